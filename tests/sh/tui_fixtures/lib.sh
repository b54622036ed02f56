# lib.sh: shared helpers for the tmux end-to-end suites tests/sh/tui_*.sh (sourced, not a suite).
# A private tmux server (tmux -L banklab-test-$$) killed on exit; HOME and XDG_STATE_HOME in a
# temp dir; waits poll capture-pane for expected text with a timeout instead of fixed sleeps.
set -u
: "${BANKLAB:=build/banklab}"
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux is not installed"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq is not installed (tests/deps.sh installs it)"; exit 77; }
case $BANKLAB in /*) ;; *) BANKLAB=$PWD/$BANKLAB ;; esac
[ -x "$BANKLAB" ] || { echo "FAIL: $BANKLAB is not built"; exit 1; }
ROOT=$PWD
TMP=$(mktemp -d "${TMPDIR:-/tmp}/banklab-tui.XXXXXX")
SOCK=banklab-test-$$
TM="tmux -L $SOCK -f /dev/null"
export HOME="$TMP/home" XDG_STATE_HOME="$TMP/state" LANG=C.UTF-8 LC_ALL= LC_MESSAGES= TERM=xterm-256color
unset NO_COLOR BANKLAB_LESSONS BANKLAB_TIMING 2>/dev/null || true
# Without a GPU the tutorial shows the shipped recording's figures by default; the suites and
# the golden screens are of the model alone (tui_recorded.sh starts without this).
export BANKLAB_MODEL_ONLY=1
mkdir -p "$HOME"
PROGRESS="$XDG_STATE_HOME/banklab/progress.json"
tui_cleanup() { $TM kill-server >/dev/null 2>&1; sleep 0.3; rm -rf "$TMP"; }
trap tui_cleanup EXIT
trap 'exit 1' INT TERM

# TS: the session banklab runs in ("t"; a suite that runs several at once names each its own)
TS=t
# a session that keeps the private server alive between test sessions
$TM new-session -d -s keep -x 80 -y 24 "sleep 3600" || { echo "FAIL: tmux cannot start"; exit 1; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
screen() { $TM capture-pane -p -t "$TS" 2>/dev/null; }
keys() { $TM send-keys -t "$TS" "$@"; }
lit() { $TM send-keys -t "$TS" -l -- "$1"; }
fail() {
    echo "FAIL: $*"
    echo "--- screen:"
    screen
    exit 1
}

# start W H [ENV=VALUE ...] -- ARGS...: run banklab in a fresh session $TS
start() {
    w=$1; h=$2; shift 2
    envs=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    [ $# -gt 0 ] && shift
    $TM kill-session -t "$TS" >/dev/null 2>&1
    $TM new-session -d -s "$TS" -x "$w" -y "$h" \
        "cd '$ROOT' && env $envs '$BANKLAB' $*; echo EXITED rc=\$?; sleep 600" || fail "tmux new-session"
    $TM set-option -t "$TS" status off >/dev/null
}

# BANKLAB_TEST_SLOW (tests/run.sh sets 3 when tests run in parallel): every wait lasts that
# many times its SECONDS; a wait ends as soon as the screen shows what it waits for
: "${BANKLAB_TEST_SLOW:=1}"
case $BANKLAB_TEST_SLOW in ''|*[!0-9]*|0) BANKLAB_TEST_SLOW=1 ;; esac

# wait_for REGEX [SECONDS]: poll the screen until REGEX (grep -E) matches
wait_for() {
    end=$(( $(now_ms) + ${2:-5} * 1000 * BANKLAB_TEST_SLOW ))
    while :; do
        screen >"$TMP/screen.txt"
        grep -qE -- "$1" "$TMP/screen.txt" && return 0
        [ "$(now_ms)" -gt "$end" ] && return 1
        sleep 0.02
    done
}

# wait_gone REGEX [SECONDS]: poll until REGEX no longer matches
wait_gone() {
    end=$(( $(now_ms) + ${2:-5} * 1000 * BANKLAB_TEST_SLOW ))
    while :; do
        screen >"$TMP/screen.txt"
        grep -qE -- "$1" "$TMP/screen.txt" || return 0
        [ "$(now_ms)" -gt "$end" ] && return 1
        sleep 0.02
    done
}

expect() { wait_for "$1" "${2:-5}" || fail "did not see /$1/"; }

# A key and its drawing, without a fixed sleep: a suite that starts banklab with
# BANKLAB_TIMING="$TIMING" gets a line "redraw_ms N key K" there each time banklab has read a
# key and drawn the screen for it (src/ui/app.c). Read on descriptor 9 as lines come.
TIMING="$TMP/timing"
: >"$TIMING"
exec 9<"$TIMING"

# press_drawn MS KEY: send KEY (a tmux key name) and wait until banklab has drawn the screen
# for it (5 s, times BANKLAB_TEST_SLOW, at most) and the drawing is on tmux's screen: the screen
# differs from the one before the key and is the same in two captures 20 ms apart. A key that
# changes nothing on the screen waits MS from the key (what a fixed `sleep` waited before), and
# 100 ms after the drawing at least; the screen is then taken as it is. The last capture is
# left in $TMP/screen.txt.
press_drawn() {
    pd_ms=$1; shift
    while IFS= read -r pd_l <&9; do :; done     # the lines of earlier drawings
    pd_before=$(screen; echo .)
    pd_t0=$(now_ms)
    keys "$1"
    pd_line=$pd_l pd_i=0
    while [ $pd_i -lt $((500 * BANKLAB_TEST_SLOW)) ]; do
        if IFS= read -r pd_l <&9; then
            pd_line=$pd_line$pd_l
            case $pd_line in "redraw_ms "*" key "*) break ;; esac
            pd_line=
        else
            pd_line=$pd_line$pd_l     # a line not whole yet
            sleep 0.01
            pd_i=$((pd_i + 1))
        fi
    done
    pd_now=$(now_ms)
    pd_until=$(( pd_t0 + pd_ms ))
    [ "$pd_until" -lt $(( pd_now + 100 )) ] && pd_until=$(( pd_now + 100 ))
    pd_a=$(screen; echo .)
    while :; do
        sleep 0.02
        pd_b=$(screen; echo .)
        [ "$pd_a" = "$pd_b" ] && [ "$pd_b" != "$pd_before" ] && break
        pd_a=$pd_b
        [ "$(now_ms)" -ge "$pd_until" ] && break
    done
    printf '%s' "${pd_b%.}" >"$TMP/screen.txt"
}

# the pid of banklab inside the session (a child of the pane's shell)
banklab_pid() {
    sh_pid=$($TM display-message -p -t "$TS" '#{pane_pid}')
    # from /proc, not ps: procps is not in every minimal image. Through cat: a process that
    # ends between the glob and the read must not stop the scan (mawk gives up on such a
    # file); tried for up to 2 s while the program starts.
    n=0
    while [ $n -lt 40 ]; do
        pid=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$sh_pid" '$4 == p { print $1 }' | head -n 1)
        [ -n "$pid" ] && { echo "$pid"; return; }
        sleep 0.05
        n=$((n + 1))
    done
}

GRID_HEADER='bank +0 +(1|4) '
