#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# tui_recorded.sh: without a GPU the tutorial shows the figures of the shipped H200 recording
# (assets/h200-recording.json) wherever a scene was recorded, labelled with the GPU and the
# date, and says once why (no GPU here; never over another message, nor over the kernel view,
# which shows the model's figures); --model-only (or BANKLAB_MODEL_ONLY=1) shows the model
# alone; a scene that was not recorded shows the model and says so. The recording is found
# from the build tree whatever the working directory. Skips on a machine with a GPU.
. tests/sh/tui_fixtures/lib.sh
U="-u BANKLAB_MODEL_ONLY"    # lib.sh sets it for the other suites (and the tmux server has it)
L=$ROOT/lessons
quit() { keys q; expect "EXITED rc=0"; }
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "SKIP: a GPU is here (the recording stands in only without one)"
    exit 77
fi

# --- 1.1, started from another directory: the recording is the build tree's
mkdir -p "$TMP/elsewhere"
$TM kill-session -t t >/dev/null 2>&1
$TM new-session -d -s t -x 80 -y 24 \
    "cd '$TMP/elsewhere' && env $U '$BANKLAB' --lessons '$L' --lang en --reset --chapter 1 --step 1; echo EXITED rc=\$?; sleep 600" ||
    fail "tmux new-session"
$TM set-option -t t status off >/dev/null
expect " 1\\.1/"
expect "measured +1\\.0 wavefronts, 0\\.0 conflicts"
expect "0\\.51 ns/access under load"
expect "recorded on NVIDIA H200 \\(sm_90\\), 2026-12-03"
expect "no GPU here \\(.*\\): recorded figures shown"
expect "· replay · en"
grep -q "no GPU: " "$TMP/screen.txt" && fail "1.1: the panel says no GPU beside recorded figures"
# said once: a key, and it is gone for good (the next step has its own recorded figures)
keys n
wait_gone "recorded figures shown" || fail "the message stays after a key"
expect " 1\\.2/"
expect "recorded on NVIDIA H200"
grep -q "recorded figures shown" "$TMP/screen.txt" && fail "the message came again on 1.2"
quit

# --- the same in Chinese
start 80 24 $U -- --lessons "$L" --lang zh --reset --chapter 1 --step 1
expect " 1\\.1/"
expect "实测"
expect "录制于 (NVIDIA )?H200(（sm_90）)?，2026-12-03"
expect "这里没有 GPU（.*）：显示录制的实测数据"
quit

# --- --model-only and BANKLAB_MODEL_ONLY=1: the model alone, and why
for how in "$U -- --model-only" "BANKLAB_MODEL_ONLY=1 --"; do
        start 80 24 $how --lessons "$L" --lang en --reset --chapter 1 --step 1
    expect " 1\\.1/"
    expect "no GPU: "
    expect "model only"
    grep -q "recorded on" "$TMP/screen.txt" && fail "$how: recorded figures shown"
    quit
done

# --- a scene the recording does not hold: the model, said so
# (the fixture's 1.3: float2 v[lane * S] = 0; S = 2 was recorded, S = 3 was not)
start 80 24 $U -- --lessons tests/sh/tui_fixtures/lessons --lang en --reset --chapter 1 --step 3
expect " 1\\.3/"
expect "recorded on NVIDIA H200"
keys K
expect "S=3 "
expect "model +"
expect "measured +- \\(no recorded measurement for this access\\)"
quit
# ... and in Chinese, with Chinese brackets
start 80 24 $U -- --lessons tests/sh/tui_fixtures/lessons --lang zh --reset --chapter 1 --step 3
expect " 1\\.3/"
expect "录制于 NVIDIA H200"
keys K
expect "S=3 "
expect "实测 +-（录制里没有这次访问的实测结果）"
quit
# --- a first start with no language chosen: the word on the language stays on the first
# screen (the recorded figures' message waits for the first key)
$TM kill-session -t t >/dev/null 2>&1
$TM new-session -d -s t -x 80 -y 24 \
    "cd '$TMP/elsewhere' && env $U XDG_STATE_HOME='$TMP/fresh' LANG=C.UTF-8 '$BANKLAB' --lessons '$L'; echo EXITED rc=\$?; sleep 600" ||
    fail "tmux new-session"
expect " 1\\.1/"
expect "Chinese \\(中文\\): press l, or start with --lang zh"
sleep 1
grep -q "Chinese (中文): press l" "$TMP/screen.txt" || fail "first start: the language hint was overwritten"
keys n
expect "no GPU here \\(.*\\): recorded figures shown"
quit
# --- Chinese asked for where the locale is not UTF-8: the word on why the screen is English
# stays on the first screen too (the recorded figures' message waits for the first key)
$TM kill-session -t t >/dev/null 2>&1
$TM new-session -d -s t -x 80 -y 24 \
    "cd '$TMP/elsewhere' && env $U XDG_STATE_HOME='$TMP/fresh-c' LANG=C LC_ALL=C '$BANKLAB' --lessons '$L' --lang zh; echo EXITED rc=\$?; sleep 600" ||
    fail "tmux new-session"
expect " 1\\.1/"
expect "the locale is not UTF-8: showing English"
sleep 1
screen | grep -q "the locale is not UTF-8" || fail "LANG=C --lang zh: the word on the locale was overwritten"
keys n
expect "no GPU here \\(.*\\): recorded figures shown"
quit
# --- started on the kernel view (banklab FILE.cu), which shows the model's figures: the
# recorded figures' message waits for the tutorial (Esc), where they are shown
$TM kill-session -t t >/dev/null 2>&1
$TM new-session -d -s t -x 80 -y 24 \
    "cd '$ROOT' && env $U '$BANKLAB' --lessons '$L' --lang en assets/kernels/transpose_seed.cu; echo EXITED rc=\$?; sleep 600" ||
    fail "tmux new-session"
expect "^ model only: " 20
expect "watching assets/kernels/transpose_seed.cu"
sleep 1
screen >"$TMP/screen.txt"
grep -q "recorded figures shown" "$TMP/screen.txt" &&
    fail "kernel view: says 'recorded figures shown' over the model's figures"
keys Escape
expect "recorded on NVIDIA H200 \\(sm_90\\)"
expect "no GPU here \\(.*\\): recorded figures shown"
quit
echo "tui_recorded: ok"
exit 0
