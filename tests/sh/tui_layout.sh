#!/bin/sh
# tui_layout.sh: the screen at 80x24 and the minimum 72x20: the overall progress (done/total)
# in the title and the contents, and the contents' marks; the reading area's scroll marks in
# the margin and PgDn/PgUp on the key bar; every parameter's keys on the key bar; a message
# keeps help and quit beside it; the help box scrolls where it does not fit; the sweep,
# inspect and message lines in Chinese.
. tests/sh/tui_fixtures/lib.sh
set -f
FIX=tests/sh/tui_fixtures/lessons

# --- progress: the fixture asks two questions (1.4, 1.5)
start 80 24 -- --lessons $FIX --lang en --reset --chapter 1 --step 4
expect " 1\\.4/5 .*done 0/2[ ,]"
lit 1
keys Enter
expect "right \\(answer: 1\\)"
expect "done 1/2[ ,]"
keys n
expect " 1\\.5/5 "
keys 1
expect "not quite"
expect "done 1/2[ ,]"
keys c
expect "done 1/2 quiz and task steps"
expect "^  1  UI fixture +1/2, 1 first try *$"
expect "^    1\\.4  ✓ Predict first"
expect "^ >  1\\.5  ✗ The two accesses"
expect "✓ right at the first try .* ◑ right later .* ✗ answered wrong .* ○ to do"
keys Escape l
expect "已完成 1/2[ ，]"
keys c
expect "已完成 1/2 个测验和任务步骤"
keys Escape q
expect "EXITED rc=0"

# --- the reading area scrolls: marks in the margin, never over the text
start 80 24 -- --lessons lessons --lang en --reset --chapter 1 --step 2
expect " 1\\.2/"
expect "compute capability 1\\.x had +↓$"      # the mark beside the text, not over it
expect "PgDn/PgUp scroll"
grep -q "only 16 banks" "$TMP/screen.txt" && fail "the end of 1.2's text shown before PgDn"
keys PgDn
expect "only 16 banks"
expect "↑$"
keys PgUp
expect "Shared memory is not accessed"
keys q
expect "EXITED rc=0"

# --- every parameter's keys, and help and quit, on the key bar at 80 columns
start 80 24 -- --lessons lessons --lang en --reset --chapter 2 --step 3
expect "j/J ROW  u/U COL .*\\? help  q quit$"
# a message keeps next, back, help and quit beside it
keys i
expect "answer first, then inspect +n next  b back  \\? help  q quit"
keys q
expect "EXITED rc=0"

# --- the help box scrolls where it does not fit (72x20)
start 72 20 -- --lessons $FIX --lang en --reset --chapter 1 --step 2
expect " 1\\.2/5 "
keys '?'
expect "banklab keys \\(Down/PgDn more, other keys close\\)"
grep -q "idle bank" "$TMP/screen.txt" && fail "the help's end shown before scrolling"
keys PgDn PgDn
expect "idle bank"
keys z
wait_gone "banklab keys" || fail "help did not close"
keys q
expect "EXITED rc=0"

# --- Chinese: inspect, the sweep, messages
start 80 24 -- --lessons $FIX --lang zh --reset --chapter 1 --step 2
expect " 1\\.2/5 "
keys i
expect "bank 0，第 1 批，第 0 个字（字节 0）：lane 0，偏移 0 B"
expect "与 lane 1-31 冲突：bank 0 要送 32 个不同的字（第 1 批，32 个 wavefront）"
expect "方向键移动"
keys i s
expect "banklab：扫描 PAD，范围 0\\.\\.8"
expect "模型：每条 warp 指令的 wavefront 数随 PAD 的变化"
expect "PAD=0：32 个 wavefront（模型）"
keys Escape b b
expect "这是第一步 +n 下一步  \\? 帮助  q 退出"   # no b on the first step
keys q
expect "EXITED rc=0"
exit 0
