#!/bin/sh
# tui_panel.sh: the panel agrees with what the step says, on the shipped lessons, at
# 80x24 and larger, in English and Chinese:
# - after a quiz is answered or revealed the grid and numbers show the values the question
#   named (5.1: PAD = 1, 1 wavefront, beside the verdict), in presenter mode too (9.3); Q goes
#   back to the scene's own values and again to the question's;
# - a quiz below the reading area is not passed over silently: n shows it and says so, the
#   same key again goes on; the chapter's score does not stand beside its open last quiz;
# - the key bar offers s, i, h only on steps where they act;
# - the contents count the steps as the report does (report.sh); presenter mode marks a
#   revealed step revealed, not answered wrong; the access answered is in the explored list
#   for the report, measured or not;
# - zh: the kernel view's example list, the SVG's cell tooltips, the ldmatrix grid's legend;
#   6.4 keeps its [a] at 80x24; 7.3's error shows once, with a caret under its place.
. tests/sh/tui_fixtures/lib.sh
L=lessons
steps=$(cat $L/*.json | jq -s '[.[].steps | length] | add')
asking=$(cat $L/*.json | jq -s '[.[].steps[] | select(.quiz or .task)] | length')
set -f   # keys such as ? must not glob
quit() { keys q; expect "EXITED rc=0"; }
count() { grep -cE -- "$1" "$TMP/screen.txt"; }

# --- 5.1 answered: PAD = 1's grid and figures beside the verdict; Q and back
start 80 24 -- --lessons $L --lang en --reset --chapter 5 --step 1
expect " 5\\.1/"
expect "PAD=0 \\[p/P\\]"
keys 1
expect "right \\(answer: 1\\)"
expect "The grid shows the question's values: PAD = 1 \\(Q: the scene's, PAD = 0\\)"
expect "PAD=1 \\[p/P\\]"
expect "model +1 wavefront · 0 conflicts"
expect "data\\[32\\]\\[32 \\+ 1\\]"
expect "Q scene's values"
keys Q
expect "PAD=0 \\[p/P\\]"
expect "model +32 wavefronts"
expect "The grid shows PAD = 0; Q: the question's values \\(PAD = 1\\)"
expect "Q question's values"
keys Q
expect "model +1 wavefront "
# a parameter moved by hand: the line says what is shown, Q goes to the question's again
keys P
expect "PAD=2 \\[p/P\\]"
expect "The grid shows PAD = 2; Q: the question's values \\(PAD = 1\\)"
keys Q
expect "PAD=1 \\[p/P\\]"
keys Q
expect "PAD=2 \\[p/P\\]"    # back to the values shown before
quit
# the access answered is in the explored list (with the model's numbers when no GPU measured it)
jq -e '[.explored[]? | select(.where == "avoiding/padding" and .wavefronts == 1)] | length > 0' \
    "$PROGRESS" >/dev/null || fail "5.1 answered: no explored row at PAD = 1 ($(jq -c '.explored' "$PROGRESS"))"
# coming back to the answered step: the question's values again
start 80 24 -- --lessons $L --lang en --chapter 5 --step 1
expect " 5\\.1/"
expect "PAD=1 \\[p/P\\]"
expect "model +1 wavefront "
quit

# --- the same in Chinese, larger, by e (revealed)
start 120 40 -- --lessons $L --lang zh --reset --chapter 5 --step 1
expect " 5\\.1/"
keys e
expect "未作答，已显示"
expect "网格显示的是题目的取值：PAD = 1（按 Q 回到场景的取值：PAD = 0）"
expect "PAD=1 \\[p/P\\]"
expect "模型 +1 个 wavefront"
quit

# --- 6.2 (another access) and 11.2 (a number) at 80x24
start 80 24 -- --lessons $L --lang en --reset --chapter 6 --step 2
expect " 6\\.2/"
expect "access 1/2 \\[a\\]: store"
keys 4
expect "access 2/2 \\[a\\]: load"
expect "model +32 wavefronts"
quit
start 80 24 -- --lessons $L --lang en --reset --chapter 11 --step 2
expect " 11\\.2/"
lit 4
keys Enter
expect "right \\(answer: 4\\)"
expect "PITCH=64 \\[p/P\\]"
expect "model +4 wavefronts"
quit

# --- presenter mode: 9.3's float2, D = 2 after e
start 100 30 -- --lessons $L --lang en --reset --present --chapter 9 --step 3
expect " 9\\.3/"
keys e
expect "D=2 \\[d/D\\]"
expect "model: 1 wavefront"
expect "The grid shows the question's values: D = 2"
keys Q
expect "D=1 \\[d/D\\]"
keys c
expect "contents"
expect "9\\.3  ◌ "
grep -q "9\\.3  ✗" "$TMP/screen.txt" && fail "presenter mode marks a revealed step answered wrong"
expect "◌ revealed"
quit

# --- a quiz below the fold at 80x24: n shows it and says so, n again goes on
start 80 24 -- --lessons $L --lang en --reset --chapter 6 --step 6
expect " 6\\.6/6 "
grep -q "How many times faster" "$TMP/screen.txt" && fail "6.6's quiz is on the first screen: the check would not test anything"
grep -q "End of chapter 6" "$TMP/screen.txt" && fail "the chapter's score shows beside its open last quiz"
keys n
expect "This step asks a question \\(shown now\\): answer it, or n again to go on"
expect "\\? How many times faster"
expect " 6\\.6/6 "
grep -q "End of chapter 6" "$TMP/screen.txt" && fail "the chapter's score shows beside its open last quiz"
lit 2.13
keys Enter
expect "right \\(answer: 2\\.13"
expect "End of chapter 6"
keys n
expect " 7\\.1/"
quit
start 80 24 -- --lessons $L --lang zh --reset --chapter 1 --step 5
expect " 1\\.5/"
keys Space
expect "本步有一道题（已显示）：先作答，或再按 空格 继续"
expect " 1\\.5/"
keys Space
expect " 1\\.6/"
quit

# --- the key bar offers only keys that act on the step (wide enough for every item)
start 160 40 -- --lessons $L --lang en --reset --chapter 1 --step 6
expect " 1\\.6/"
expect "\\? help"
for k in "s sweep" "i inspect" "h hint"; do
    grep -q "  $k  " "$TMP/screen.txt" && fail "1.6 (no scene, no hints) offers $k"
done
keys s
expect "no scene|parameter"       # refused, as the bar says
keys b
expect " 1\\.5/"
expect "  s sweep  "
grep -q "  i inspect  " "$TMP/screen.txt" || fail "1.5 (a grid drawn) does not offer i"
expect "  h hint  "
keys h
expect "hint 1"
sleep 0.2
screen >"$TMP/screen.txt"
grep -q "  h hint  " "$TMP/screen.txt" && fail "1.5 offers h with its one hint shown"
keys b b b b
expect " 1\\.1/"
grep -q "  s sweep  " "$TMP/screen.txt" && fail "1.1 (no parameter) offers s"
quit
start 160 40 -- --lessons $L --lang en --reset --chapter 11 --step 5
expect " 11\\.5/"
expect "hidden until you answer"
grep -q "  i inspect  " "$TMP/screen.txt" && fail "11.5 offers i while its grid is hidden"
grep -q "  h hint  " "$TMP/screen.txt" && fail "11.5 (no hints) offers h"
grep -q "  Q " "$TMP/screen.txt" && fail "Q offered before the quiz is answered"
quit

# --- the contents count the steps the report counts
start 80 24 -- --lessons $L --lang en --reset
expect " 1\\.1/"
keys c
expect "done 0/$asking quiz and task steps \\($steps steps\\), 0 first try"
quit
start 80 24 -- --lessons $L --lang zh
expect " 1\\.1/"
keys c
expect "已完成 0/$asking 个测验和任务步骤（共 $steps 步），首次对 0"
quit

# --- zh: the kernel view's example list
start 100 30 -- --lessons $L --lang zh
expect " 1\\.1/"
keys z
expect "示例（Up/Down 选择）"
expect "atomics\\.cu +用 atomicAdd（ATOMS）在共享内存里做直方图"
expect "vectors\\.cu +8 字节和 16 字节访问（float2、float4）"
keys Escape
quit

# --- zh: the SVG's tooltips, the ldmatrix legend
mkdir -p "$TMP/export"
start 100 30 BANKLAB_EXPORT_DIR="$TMP/export" -- --lessons $L --lang zh --reset --chapter 11 --step 1
expect " 11\\.1/"
keys e
expect "矩4 "
expect "矩1-矩4：每个 8×8 矩阵各 bank 的字数"
keys x
expect "\\.svg"
quit
set +f
svg=$(ls "$TMP"/export/*.svg 2>/dev/null | head -n 1)
set -f
[ -n "$svg" ] || fail "x wrote no SVG"
grep -q "<title>bank 0，第 0 个字（字节 0）：lane 0</title>" "$svg" || fail "the SVG's tooltips are not in Chinese: $(grep -o '<title>bank[^<]*' "$svg" | head -n 1)"
grep -q ">第 1 个矩阵<" "$svg" || fail "the SVG does not name the matrix"
grep -q "16 字节 ldmatrix.x4" "$svg" || fail "the SVG's detail does not name the instruction"

# --- 6.4 keeps its [a] at 80x24; 7.3's error once, with a caret under its place
start 80 24 -- --lessons $L --lang zh --reset --chapter 6 --step 4
expect " 6\\.4/"
expect "访问 2/2 \\[a\\]"
quit
start 80 24 -- --lessons $L --lang zh --reset --chapter 7 --step 3
expect " 7\\.3/"
keys e
expect "N=63 \\[u/U\\] · PAD=4"
keys Q
expect "PAD=0 \\[p/P\\]"
keys u
expect "不是 8 的倍数"
[ "$(count '不是 8 的倍数')" -eq 1 ] || fail "7.3's error is printed $(count '不是 8 的倍数') times"
expect "^ +\\^~+ *$"
expect "smem \\+ 4 \\* N \\+ PAD"
expect "没有结果：错误见上方"
quit

echo "tui_panel: all passed"
