#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_golden.sh: golden screen captures (tmux capture-pane) of fixed steps of the fixture
# lesson, compared with tests/golden/screen_*.txt. UPDATE=1 regenerates them. The line that
# names the GPU (or why there is none) and the backend's words in the title are normalised, so
# the files hold for every build without a GPU. A difference prints a diff.
. tests/sh/tui_fixtures/lib.sh
set -f   # keys such as ? must not glob
FIX=tests/sh/tui_fixtures/lessons
GOLD=tests/golden
failed=0

normalise() {
    # the backend's word in the title, Chinese ones too; the title is right-aligned, so the
    # room before it is counted as for a word of 4 columns (none, cuda, 回放)
    sed -E -e 's/^( *)(no GPU: |无 GPU：).*/\1\2<reason>/' \
           -e 's/(·|\|) (no GPU: model only|model only|looking for a GPU|GPU: [^·|]*|GPU|无 GPU：仅模型|仅模型|正在查找 GPU|GPU：[^·|]*|GPU 实测) (·|\|)/\1 <backend> \3/'
}

# shot NAME W H WAIT_REGEX KEYS... -- ARGS...
shot() {
    name=$1; w=$2; h=$3; re=$4; shift 4
    ks=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do ks="$ks $1"; shift; done
    shift
    start "$w" "$h" -- --lessons $FIX --reset "$@"
    [ -n "$ks" ] && expect "[[:alnum:]]"   # keys typed before curses starts may be flushed
    for k in $ks; do
        case $k in
            TEXT) lit "$TEXT" ;;   # literal text from $TEXT (tmux would parse ';')
            *) keys "$k" ;;
        esac
    done
    expect "$re"
    sleep 0.2          # let a last redraw land
    screen | normalise >"$TMP/$name.txt"
    keys Escape q
    if [ "${UPDATE:-0}" = 1 ]; then
        cp "$TMP/$name.txt" "$GOLD/screen_$name.txt"
        echo "updated $GOLD/screen_$name.txt"
    elif ! diff -u "$GOLD/screen_$name.txt" "$TMP/$name.txt"; then
        echo "FAIL: screen $name differs from $GOLD/screen_$name.txt (UPDATE=1 regenerates)"
        failed=1
    fi
}

shot 80x24_one_per_bank 80 24 "$GRID_HEADER" -- --lang en
shot 80x24_column 80 24 "model +32 wavefronts" -- --lang en --chapter 1 --step 2
shot 80x24_column_ascii 80 24 "model +32 wavefronts" -- --lang en --ascii --chapter 1 --step 2
shot 120x40_float2 120 40 "model +4 wavefronts" -- --lang en --chapter 1 --step 3
shot 80x24_predict_hidden 80 24 "hidden until you answer" -- --lang en --chapter 1 --step 4
shot 100x30_present_transpose 100 30 "access 2/2" a -- --lang en --present --chapter 1 --step 5
shot 80x24_zh 80 24 "$GRID_HEADER" -- --lang zh --chapter 1 --step 2
TEXT='__shared__ int q[8]; q[lane]'
shot 80x24_playground_error 80 24 "error: " g C-u TEXT -- --lang en
shot 60x16_too_small 60 16 "terminal too small" -- --lang en
shot 80x24_contents 80 24 "contents" c -- --lang en --chapter 1 --step 3
shot 80x24_help_zh 80 24 "banklab 按键" '?' -- --lang zh --chapter 1 --step 2
shot 120x40_help 120 40 "banklab keys" '?' -- --lang en --chapter 1 --step 2
shot 120x40_zh 120 40 "模型 +4 个 wavefront" -- --lang zh --chapter 1 --step 3
shot 80x24_contents_zh 80 24 "目录" c -- --lang zh --chapter 1 --step 3
# an answered quiz: the verdict and the explanation scrolled into view
shot 80x24_quiz_wrong 80 24 "not quite" 1 -- --lang en --chapter 1 --step 5
shot 80x24_quiz_zh 80 24 "不对" 1 -- --lang zh --chapter 1 --step 5
shot 120x40_quiz_right 120 40 "right " 2 -- --lang en --chapter 1 --step 5
[ $failed = 0 ]
