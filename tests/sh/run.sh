#!/bin/sh
# run.sh: `banklab run` without a GPU (CUDA_VISIBLE_DEVICES= hides any): `banklab run -- true`
# exits 3 with one line saying measuring needs a GPU; bad usage exits 2; a profiler that is
# injected already is named in one line (exit 3); the injection library is built beside the
# binary, exports InitializeInjection alone, and, loaded outside a CUDA program, writes its
# hello and one note to the results file instead of crashing. Env: BANKLAB.
set -u
: "${BANKLAB:=build/banklab}"
B=$BANKLAB
[ -x "$B" ] || { echo "run.sh: no binary at $B"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export CUDA_VISIBLE_DEVICES=
unset CUDA_INJECTION64_PATH
pass=0 fail=0
ok() { pass=$((pass+1)); echo "ok   $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1"; }
run() { # NAME WANT_RC ARGS...
    name=$1 want=$2
    shift 2
    "$B" run "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" = "$want" ]; then ok "$name (exit $rc)"; else
        bad "$name: exit $rc, want $want"; sed 's/^/    /' "$tmp/err" | head -5; fi
}
one_line() { # NAME PATTERN: one line on stderr matching PATTERN, nothing on stdout
    n=$(wc -l < "$tmp/err")
    if [ "$n" = 1 ] && [ ! -s "$tmp/out" ] && grep -q -E "$2" "$tmp/err"; then ok "$1"; else
        bad "$1: $n stderr lines, $(wc -c < "$tmp/out") stdout bytes"; sed 's/^/    /' "$tmp/err" | head -5; fi
}

run "banklab run -- true without a GPU" 3 -- true
one_line "one line: measuring needs a GPU" "^banklab run: measuring a program needs a GPU: no CUDA (driver|device)"
run "without -- as well" 3 true
one_line "the same line" "measuring a program needs a GPU"
run "--json without a GPU" 3 --json -- true
one_line "--json: the same one line" "measuring a program needs a GPU"
run "no program" 2
run "--launch-skip not a count" 2 --launch-skip x -- true
run "--launch-count negative" 2 --launch-count -1 -- true
run "--kernel not a regular expression" 2 --kernel '(' -- true
run "an unknown option" 2 --frobnicate -- true
CUDA_INJECTION64_PATH=/opt/other/libinject.so "$B" run -- true > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 3 ] && ok "another profiler injected: exit 3" || bad "another profiler injected: exit $rc"
one_line "another profiler: one line naming it" "another profiler is injected already \\(CUDA_INJECTION64_PATH=/opt/other/libinject.so\\)"
"$B" run --help > "$tmp/out" 2>&1 && grep -q -- "--launch-count" "$tmp/out" && ok "--help" || bad "--help"

lib=$(dirname "$B")/libbanklab_inject.so
if grep -q "GPU=cuda" "$(dirname "$B")/flags.stamp" 2>/dev/null || [ -f "$lib" ]; then
    if [ -f "$lib" ]; then ok "the injection library is built beside the binary"; else bad "no $lib"; fi
    syms=$(nm -D --defined-only "$lib" 2>/dev/null | awk '{print $3}' | tr '\n' ' ')
    [ "$syms" = "InitializeInjection " ] && ok "it exports InitializeInjection alone" || bad "exports: $syms"
    if command -v python3 > /dev/null 2>&1; then
        mkdir -p "$tmp/res" && : > "$tmp/res/results"
        # outside a CUDA program (no driver here): a hello and one note, no crash
        BANKLAB_RUN_DIR="$tmp/res" python3 -c "import ctypes; ctypes.CDLL('$lib').InitializeInjection()"
        rc=$?
        [ "$rc" = 0 ] && ok "loaded outside a program: no crash" || bad "loaded outside a program: exit $rc"
        head -c 4 "$tmp/res/results" | grep -q OLEH && ok "it says hello in the results file" || bad "no hello frame"
        grep -q "not measured: libcuda.so.1 not found" "$tmp/res/results" && ok "and one note why nothing is measured" || bad "no note"
        # no BANKLAB_RUN_DIR: it stays out of the way
        env -u BANKLAB_RUN_DIR python3 -c "import ctypes; ctypes.CDLL('$lib').InitializeInjection()" \
            && ok "without BANKLAB_RUN_DIR it does nothing" || bad "without BANKLAB_RUN_DIR"
    fi
    # what the library writes, printed: a program that writes the frames itself (no GPU here)
    if cc -std=c11 -D_DEFAULT_SOURCE -I. -o "$tmp/fake" tests/sh/run_fake.c \
        "$(dirname "$B")/lib/kernel.a" "$(dirname "$B")/lib/base.a" -ldl 2> "$tmp/cc.err"; then
        src=$PWD/tests/gpu/programs/transpose.cu
        BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run -- "$tmp/fake" "$src" > "$tmp/out" 2> "$tmp/err"
        rc=$?
        [ "$rc" = 0 ] && ok "results read back (exit 0)" || bad "results read back: exit $rc: $(head -n 3 "$tmp/err")"
        grep -q "^fake program: its own output" "$tmp/out" && ok "the program's output passes through" || bad "no program output"
        grep -q "^== transpose<<<(32,32,1), (32,32,1), 0>>> on Fake GPU (sm_90): launch 1 of this kernel" "$tmp/out" &&
            ok "a head line per launch" || bad "no head line"
        grep -qE "^ +21 +32768 +1048576 +32768 +1015808 +32.00 \| +out\[x \* n \+ y\] = tile\[threadIdx.x\]\[threadIdx.y\];" "$tmp/out" &&
            ok "a line's figures beside its source text" || bad "no line 21 with its figures and source"
        grep -q "file $src" "$tmp/out" && ok "the file the line info names" || bad "no file line"
        # the same report in Chinese: the head line, the header, the total and the hint
        BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run --lang zh -- "$tmp/fake" "$src" > "$tmp/zh" 2>&1
        grep -q "^== transpose<<<(32,32,1), (32,32,1), 0>>>，在 Fake GPU (sm_90) 上：这个 kernel 的第 1 次启动" "$tmp/zh" &&
            grep -q "^  行号 .* | 源码$" "$tmp/zh" && grep -q "^  合计 .* | 2 行有共享内存指令$" "$tmp/zh" &&
            grep -q "^提示：这个 kernel 的 cubin 没有行号信息" "$tmp/zh" &&
            ok "--lang zh: the report in Chinese" || bad "--lang zh: $(head -n 12 "$tmp/zh")"
        grep -q "hint: no line info in this kernel's cubin" "$tmp/out" && grep -q "pc 0x0180  LDS" "$tmp/out" &&
            ok "without line info: per instruction and the hint" || bad "no per-instruction rows or hint"
        grep -qF 'odd\x1b[31mname' "$tmp/out" && ! grep -q "$(printf '\033')" "$tmp/out" &&
            ok "a kernel name's escape sequence is shown escaped" || bad "escape sequence reached the terminal"
        grep -q "^banklab run: not measured: a note from the library" "$tmp/err" && ok "the library's note on stderr" || bad "no note"
        grep -q "^banklab run: not measured: --kernel x( is not an extended regular expression" "$tmp/err" &&
            grep -q "^banklab run: 未测量：--kernel x( 不是扩展正则表达式" "$tmp/zh" &&
            grep -q "^banklab run: not measured: a note from the library" "$tmp/zh" &&
            ok "a note the library sent as a message: in the reader's language (text alone: as it came)" ||
            bad "the library's message note: $(grep 'banklab run:' "$tmp/err" "$tmp/zh")"
        BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run --grid -- "$tmp/fake" "$src" > "$tmp/out" 2> "$tmp/err"
        grep -q "LDS: warps 1024 at 32 wavefronts of 32768; the worst, warp 3 of block (0,0,0): 32" "$tmp/out" &&
            ok "the sanitizer route's warps under the conflicting line" || bad "no warps line: $(head -c 300 "$tmp/out")"
        grep -q "^measured addresses, warp 3 of block (0,0,0):" "$tmp/out" &&
            grep -q "32 wavefronts, worst bank 3 (32 words)" "$tmp/out" &&
            ok "--grid: the measured worst warp's bank grid" || bad "--grid: no grid of the measured warp"
        BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run --json -- "$tmp/fake" "$src" > "$tmp/out" 2> "$tmp/err"
        grep -q "^fake program: its own output" "$tmp/err" && ok "--json: the program's output goes to stderr" ||
            bad "--json: the program's output is not on stderr"
        python3 - "$tmp/out" <<'PYEOF' && ok "--json: launches, lines with source, notes" || bad "--json"
import json, sys
r = json.load(open(sys.argv[1]))
w = r["launches"][0]["warps"]
assert [x["kind"] for x in w] == ["pattern", "worst"] and w[0]["warps"] == 1024, w
assert w[1]["offsets"][1] - w[1]["offsets"][0] == 128 and w[1]["wavefronts"] == 32, w
# each line carries the warps of its instructions, the same objects with "of" (the executions)
lw = [x for ln in r["launches"][0]["lines"] for x in ln["warps"]]
assert [dict(x, of=None) for x in lw] == [dict(x, of=None) for x in w], lw
assert all(x["of"] == 32768 for x in lw), lw
l = r["launches"]
ok = (len(l) == 2 and l[0]["kernel"] == "transpose" and l[0]["grid"] == [32, 32, 1]
      and any(x["line"] == 21 and x["excess"] == 1015808 and "tile[threadIdx.x]" in x["source"] for x in l[0]["lines"])
      and r["notes"] == ["not measured: a note from the library",
                         "not measured: --kernel x( is not an extended regular expression"]
      and r["exit_status"] == 0
      and r["processes"] == 1)
sys.exit(0 if ok else 1)
PYEOF
        BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run -- "$tmp/fake" "$src" 5 > "$tmp/out" 2> "$tmp/err"
        rc=$?
        [ "$rc" = 1 ] && grep -q "exited with status 5" "$tmp/err" && ok "a failed program: exit 1, its status said" ||
            bad "a failed program: exit $rc"
        BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run --view -- "$tmp/fake" "$src" > "$tmp/out" 2> "$tmp/err" < /dev/null
        rc=$?
        [ "$rc" = 2 ] && grep -q "^banklab run: --view needs a terminal" "$tmp/err" && ok "--view without a terminal: one line, exit 2" ||
            bad "--view without a terminal: exit $rc"
        if command -v tmux > /dev/null 2>&1; then # --view: the kernel view on what this run measured
            sock="banklab-run-$$"
            tmux -L "$sock" new-session -d -x 100 -y 30 "cd '$PWD' && CUDA_VISIBLE_DEVICES= BANKLAB_KERNEL_SERVER=0 XDG_CACHE_HOME='$tmp/cache' XDG_STATE_HOME='$tmp/state' BANKLAB_RUN_NO_GPU_CHECK=1 '$B' run --view -- '$tmp/fake' '$src' 2> '$tmp/view.err'; sleep 30"
            seen=
            for i in $(seq 1 40); do
                tmux -L "$sock" capture-pane -p > "$tmp/pane" 2> /dev/null
                if grep -q "banklab: kernel transpose.cu" "$tmp/pane" && grep -q "> *21 .*1048576 *32768 *1015808 *32.00" "$tmp/pane"; then seen=1; break; fi
                sleep 0.5
            done
            [ -n "$seen" ] && ok "--view opens the kernel view on the run's own figures (line 21: 1048576 wavefronts)" ||
                { bad "--view: no kernel view with the run's figures"; sed 's/^/    /' "$tmp/pane" | head -8; }
            [ "$(stat -c %a "$tmp/state/banklab/run-view.json" 2> /dev/null)" = 600 ] &&
                ok "--view keeps the run in the learner's state directory (mode 600)" || bad "--view: no $tmp/state/banklab/run-view.json"
            tmux -L "$sock" send-keys Enter
            seen=
            for i in $(seq 1 20); do
                tmux -L "$sock" capture-pane -p > "$tmp/pane" 2> /dev/null
                grep -q "measured addresses, warp 3 of block (0,0,0)" "$tmp/pane" && { seen=1; break; }
                sleep 0.3
            done
            [ -n "$seen" ] && ok "--view: Enter shows the warp the program's run measured" ||
                { bad "--view: Enter shows no measured warp"; sed 's/^/    /' "$tmp/pane" | head -8; }
            tmux -L "$sock" kill-server 2> /dev/null
        fi
        BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run -- true > "$tmp/out" 2> "$tmp/err"
        rc=$?
        [ "$rc" = 1 ] && grep -q "true never started CUDA" "$tmp/err" && ok "a program without CUDA: exit 1, said so" ||
            bad "a program without CUDA: exit $rc: $(cat "$tmp/err")"
        BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run -- /no/such/program > "$tmp/out" 2> "$tmp/err"
        rc=$?
        [ "$rc" = 1 ] && grep -q "cannot run /no/such/program: No such file" "$tmp/err" && ok "no such program: one line" ||
            bad "no such program: exit $rc: $(cat "$tmp/err")"
    else
        bad "cannot build tests/sh/run_fake.c: $(head -n 3 "$tmp/cc.err")"
    fi
    # the library itself, driven by a stand-in driver and CUPTI (run_mock.c): selection,
    # measuring, correlation and its results, without a GPU
    inc=${CUDA_HOME:-/usr/local/cuda}/include
    mkdir -p "$tmp/mock"
    # the H200's cubin of ldmatrix.cu, kept as hex text (tests/data/kernel/README.md)
    python3 -c 'import sys, binascii; open(sys.argv[2], "wb").write(binascii.unhexlify("".join(open(sys.argv[1]).read().split())))' \
        tests/data/kernel/ldmatrix.sm90.cubin.hex "$tmp/ldmatrix.cubin"
    if [ -f "$inc/cupti_sass_metrics.h" ] &&
        cc -std=c11 -D_DEFAULT_SOURCE -shared -fPIC -DMOCK_LIB -I"$inc" -o "$tmp/mock/libcuda.so.1" \
            tests/sh/run_mock.c 2> "$tmp/cc.err" &&
        cc -std=c11 -D_DEFAULT_SOURCE -I"$inc" -o "$tmp/mockprog" tests/sh/run_mock.c -ldl 2>> "$tmp/cc.err"; then
        mock() { # ARGS...: banklab run ARGS -- the mock program
            LD_LIBRARY_PATH="$tmp/mock" BANKLAB_CUPTI="$tmp/mock/libcuda.so.1" BANKLAB_NO_LOCK=1 \
                BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run "$@" -- "$tmp/mockprog" "$tmp/mock/libcuda.so.1" \
                "$tmp/ldmatrix.cubin" > "$tmp/out" 2> "$tmp/err"
        }
        mock --json
        rc=$?
        python3 - "$tmp/out" <<'PYEOF' && ok "the library under a stand-in CUPTI: the first launch of each kernel, measured and correlated (exit $rc)" || { bad "the library under a stand-in CUPTI (exit $rc)"; head -c 600 "$tmp/out"; sed 's/^/    /' "$tmp/err" | head -5; }
import json, sys
r = json.load(open(sys.argv[1]))
l = r["launches"]
a = l[0] if l else {}
lines = {x["line"]: x for x in a.get("lines", [])}
ok = (len(l) == 2 and a["kernel"] == "ldmatrix_tile" and a["kernel_launch"] == 1 and a["launch"] == 1
      and a["grid"] == [2, 1, 1] and a["block"] == [32, 1, 1] and a["registers"] == 7
      and lines.get(30, {}).get("wavefronts") == 32 and lines[30]["ideal"] == 4 and lines[30]["excess"] == 28
      and lines[30]["file"] == "/mock/ldm.cu" and lines.get(41, {}).get("inst") == 1
      and any(i["sass"].startswith("LDSM") for i in a["instructions"])
      and l[1]["kernel"] == "other" and l[1]["status"] == "failed" and "not seen loading" in l[1]["error"])
sys.exit(0 if ok else 1)
PYEOF
        # more kernels than CUPTI's route runs the program again for: the rest said, not dropped
        MOCK_MORE=70 mock --json
        python3 - "$tmp/out" <<'PYEOF' && ok "72 kernels by CUPTI's route: 65 measured, the 7 others said" || { bad "72 kernels by CUPTI's route"; head -c 300 "$tmp/out"; }
import json, sys
r = json.load(open(sys.argv[1]))
n = [x for x in r["notes"] if "7 more kernels not measured" in x]
sys.exit(0 if len(r["launches"]) == 65 and len(n) == 1 else 1)
PYEOF
        mock --json --launch-skip 1 --launch-count 1
        python3 - "$tmp/out" <<'PYEOF' && ok "--launch-skip 1 --launch-count 1: the second launch alone" || bad "--launch-skip/--launch-count"
import json, sys
l = json.load(open(sys.argv[1]))["launches"]
sys.exit(0 if len(l) == 1 and l[0]["kernel_launch"] == 2 and l[0]["launch"] == 2 else 1)
PYEOF
        mock --json --kernel '^oth' --launch-count 5
        python3 - "$tmp/out" <<'PYEOF' && ok "--kernel REGEX: only the matching kernel" || bad "--kernel REGEX"
import json, sys
l = json.load(open(sys.argv[1]))["launches"]
sys.exit(0 if len(l) == 1 and l[0]["kernel"] == "other" else 1)
PYEOF
        # the device's turns with a lock whose header another program holds (any user can lock
        # the 0666 file): measured without turns after 3 s, and said, not 30 s and nothing
        mkdir -m 700 "$tmp/lk"
        turns() {
            LD_LIBRARY_PATH="$tmp/mock" BANKLAB_CUPTI="$tmp/mock/libcuda.so.1" BANKLAB_LOCK_DIR="$tmp/lk" \
                BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run --json -- "$tmp/mockprog" "$tmp/mock/libcuda.so.1" \
                "$tmp/ldmatrix.cubin" > "$tmp/out" 2> "$tmp/err"
        }
        turns
        lkf="$tmp/lk/banklab-GPU-00010203-0405-0607-0809-0a0b0c0d0e0f.lock"
        if [ -f "$lkf" ]; then
            python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 64, 0)
open(sys.argv[2], "w").close()
time.sleep(30)' "$lkf" "$tmp/held" &
            hp=$!
            i=0
            while [ ! -f "$tmp/held" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
            t0=$(date +%s)
            turns
            rc=$? dt=$(( $(date +%s) - t0 ))
            LD_LIBRARY_PATH="$tmp/mock" BANKLAB_CUPTI="$tmp/mock/libcuda.so.1" BANKLAB_LOCK_DIR="$tmp/lk" \
                BANKLAB_RUN_NO_GPU_CHECK=1 "$B" run --lang zh -- "$tmp/mockprog" "$tmp/mock/libcuda.so.1" \
                "$tmp/ldmatrix.cubin" > "$tmp/zh.out" 2>&1
            grep -q "此后不排队：GPU 锁 .*：它的头部已被一个不是 banklab 的程序占用 3 秒" "$tmp/zh.out" &&
                ok "a lock header held by another program, --lang zh: said in Chinese (此后不排队)" || bad "a lock header held by another program, --lang zh: $(grep -v '^ ' "$tmp/zh.out" | head -c 300)"
            kill "$hp" 2>/dev/null
            wait "$hp" 2>/dev/null
            python3 - "$tmp/out" <<'PYEOF' && ok "a lock header held by another program: measured without turns, said (exit $rc, $dt s)" || { bad "a lock header held by another program (exit $rc, $dt s)"; head -c 400 "$tmp/out"; sed 's/^/    /' "$tmp/err" | head -5; }
import json, sys
r = json.load(open(sys.argv[1]))
notes = r.get("notes") or []
sys.exit(0 if r["launches"] and r["launches"][0]["status"] == "ok" and any(
    "without turns from here on" in n and "its header has been held for 3 s" in n for n in notes) else 1)
PYEOF
            [ "$dt" -le 20 ] || bad "a lock header held by another program: $dt s (want the 3 s wait, not 30 s a launch)"
        else
            bad "the library made no lock file in BANKLAB_LOCK_DIR ($(ls "$tmp/lk"))"
        fi
        MOCK_OTHER_SUBSCRIBER=1 mock
        rc=$?
        [ "$rc" = 3 ] && grep -q "^banklab run: not measured: another CUPTI client is active in this program" "$tmp/err" &&
            ok "another CUPTI client: one clear line, exit 3" || bad "another CUPTI client: exit $rc: $(cat "$tmp/err")"
    else
        echo "skip the library under a stand-in CUPTI: no CUDA headers ($(head -n 2 "$tmp/cc.err"))"
    fi
else
    echo "skip the injection library: GPU=none build"
fi
echo "run.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]
