#!/bin/sh
# xrt.sh: banklab's CUDA runtime without a GPU (src/xrt, $BUILD/xrt/libcudart.so.13, over the
# PTX executor of src/ptx) and `banklab kernel FILE.cu --model` on a file with main()
# (src/predict/program.c, src/cli/kernel_xrun.c):
#   the library: NVIDIA's soname and version node, the same functions as NVIDIA's
#   libcudart.so.13 exports (where the toolkit has it) and nothing else;
#   tests/xrt/prog.cu built with -cudart shared and run with it: its own stdout as
#   tests/xrt/prog.expected (a kernel's results copied back right, the errors a real runtime
#   returns, H100 properties), its launches recorded with main's computed grid, block and
#   dynamic shared memory (one refused for its configuration, one for 64 KB without the
#   attribute), each shared-memory line's instructions and wavefronts (worked out by hand
#   below); a kernel reading past its allocation: cudaErrorIllegalAddress from then on and the
#   executor's reason; cudaGraphCreate and cudaMemcpyToSymbol end it with one line naming the
#   call and status 86; no PTX: one line and 87;
#   banklab kernel prog.cu --model: each kernel reported with the figures of main's first
#   launch of it that ran (text and JSON), the program's stdout on stderr, apart; a kernel that
#   faults says why under its report; the unsupported call named, exit 2; with --name/--block
#   the model reads that launch instead.
# Needs nvcc and a GPU=cuda build (else SKIP). Env: BUILD, BANKLAB.
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}"
. tests/sh/lib.sh xrt.sh
LIB=$root/$BUILD/xrt
NVCC=${BANKLAB_NVCC:-}
[ -n "$NVCC" ] || NVCC=$(command -v nvcc 2>/dev/null) || NVCC=/usr/local/cuda/bin/nvcc
if [ ! -x "$NVCC" ]; then echo "SKIP: no nvcc"; exit 77; fi
case $(cat "$BUILD/flags.stamp" 2>/dev/null) in none*) echo "SKIP: a GPU=none build has no CUDA runtime library"; exit 77 ;; esac
[ -f "$LIB/libcudart.so.13" ] || { fail "no $BUILD/xrt/libcudart.so.13 in a GPU=cuda build"; finish; }
export CUDA_VISIBLE_DEVICES=

# ---- the library ----
so=$LIB/libcudart.so.13
objdump -p "$so" | grep -q "SONAME *libcudart.so.13$" && ok "soname libcudart.so.13" || fail "soname: $(objdump -p "$so" | grep SONAME)"
objdump -p "$so" | sed -n '/Version definitions/,/^$/p' | grep -q " libcudart.so.13$" \
    && ok "version node libcudart.so.13" || fail "no version node libcudart.so.13"
objdump -T "$so" | awk '$3 == "DF" && $4 != "*UND*" && $(NF-1) == "libcudart.so.13" {print $NF}' | sort > "$tmp/ours"
others=$(objdump -T "$so" | awk '$2 == "g" && $4 != "*UND*" && $(NF-1) != "libcudart.so.13"' | wc -l)
[ "$others" = 0 ] && ok "nothing exported outside the version node" || fail "$others symbols exported outside libcudart.so.13"
real=$(dirname "$(dirname "$NVCC")")/lib64/libcudart.so.13
if [ -f "$real" ]; then
    objdump -T "$real" | awk '$3 == "DF" && $(NF-1) == "libcudart.so.13" {print $NF}' | sort > "$tmp/real"
    if cmp -s "$tmp/ours" "$tmp/real"; then ok "the same $(wc -l < "$tmp/ours") functions as $real"
    else fail "exports differ from $real:"; diff "$tmp/real" "$tmp/ours" | head -n 10; fi
fi

# ---- the program, run with the runtime ----
cd "$tmp" || exit 1
cp "$root/tests/xrt/prog.cu" prog.cu
"$NVCC" -arch=sm_90 -lineinfo -ptx -o prog.ptx prog.cu > nvcc.log 2>&1 &&
    "$NVCC" -arch=sm_90 -lineinfo -cudart shared -o prog prog.cu >> nvcc.log 2>&1 ||
    { fail "nvcc: $(head -n 5 nvcc.log)"; finish; }
objdump -p prog | grep -q "NEEDED *libcudart.so.13$" && ok "prog needs libcudart.so.13" || fail "prog does not need libcudart.so.13"
runit() { # OUT-PREFIX: run prog with the runtime; OUT.out, OUT.err, OUT.rec, $rc
    rm -f "$1.rec"
    LD_BIND_NOW=1 LD_LIBRARY_PATH=$LIB BANKLAB_XRT_PTX=prog.ptx BANKLAB_XRT_OUT=$1.rec \
        timeout 60 ./prog > "$1.out" 2> "$1.err"
    rc=$?
    touch "$1.rec"
}
runit plain
[ "$rc" = 0 ] && ok "prog exits 0" || fail "prog exit $rc: $(head -n 3 plain.err)"
if cmp -s plain.out "$root/tests/xrt/prog.expected"; then ok "prog's own output as expected (round trip, errors, properties)"
else fail "prog's output differs:"; diff "$root/tests/xrt/prog.expected" plain.out | head -n 20; fi
grep '^launch ' plain.rec > launches
cat > want <<'W'
launch 1 0 9 1 1 128 1 1 0 _Z5scalePfif
launch 2 1 1 1 1 256 1 1 65536 _Z6spreadILi2EEvPi
launch 3 0 3 2 1 256 1 1 65536 _Z6spreadILi2EEvPi
launch 4 9 1 1 1 2048 1 1 0 _Z5scalePfif
W
if cmp -s launches want; then ok "4 launches with main's grid, block, shared memory and status"
else fail "launches:"; diff want launches; fi
grep -q "^status cudaErrorInvalidConfiguration invalid configuration argument$" plain.rec &&
    ok "the refused launch's error named" || fail "no status record for the 2048-thread launch"
# By hand: scale<<<9, 128>>> over 1061 elements: line 17 stores s[t % 32][t / 32] of a
# [32][33] float array: lane l at word 33 l + w, 32 banks, 1 wavefront for each of the 36
# warps; line 20 loads it back under i < n: 8 full blocks of 4 warps and 37 threads of the
# last (2 warps): 34 instructions, 34 wavefronts. spread<2><<<(3,2), 256>>>: dyn[2 t] (int):
# lanes 16 apart share a bank, 2 wavefronts for each of the 48 warps, on lines 27 and 29.
for want in "line 17 36 36 36 1 0 st " "line 20 34 34 34 1 0 ld " "line 27 48 96 48 2 0 st " "line 29 48 96 48 2 0 ld "; do
    [ "$(grep -c "^$want" plain.rec)" = 1 ] && ok "record: $want" || fail "no record '$want': $(grep '^line' plain.rec | tr '\n' ';')"
done
XRT_TEST_CALL=oob; export XRT_TEST_CALL
runit oob
if [ "$rc" = 1 ] && grep -q "^cudaDeviceSynchronize(): cudaErrorIllegalAddress$" oob.out &&
   grep -q "^cudaMalloc(&small, 16): cudaErrorIllegalAddress$" oob.out &&
   grep -q "^launch 1 700 1 1 1 128 1 1 0 _Z5scalePfif$" oob.rec && grep -q "^note .*prog.cu:17" oob.rec
then ok "a read past the allocation: cudaErrorIllegalAddress, sticky, the executor's reason"
else fail "oob: exit $rc: $(cat oob.out) $(cat oob.rec)"; fi
for call in graph:cudaGraphCreate symbol:cudaMemcpyToSymbol; do
    XRT_TEST_CALL=${call%%:*}; export XRT_TEST_CALL
    runit un
    name=${call#*:}
    if [ "$rc" = 86 ] && [ "$(wc -l < un.err)" = 1 ] && grep -q "$name is not supported" un.err &&
       grep -q "^unsupported $name$" un.rec; then ok "$name: one line naming it, exit 86"
    else fail "$name: exit $rc, $(cat un.err)"; fi
done
unset XRT_TEST_CALL
rm -f np.rec
LD_BIND_NOW=1 LD_LIBRARY_PATH=$LIB BANKLAB_XRT_OUT=np.rec ./prog > np.out 2> np.err
rc=$?
[ "$rc" = 87 ] && grep -q "BANKLAB_XRT_PTX names no PTX file" np.err && ok "no PTX: one line, exit 87" ||
    fail "no PTX: exit $rc, $(cat np.err)"

# ---- banklab kernel FILE.cu --model on it ----
export BANKLAB_XRT_DIR=$LIB XDG_CACHE_HOME=$tmp/cache BANKLAB_KERNEL_SERVER=0
timeout 120 "$BANKLAB" kernel prog.cu --model > k.out 2> k.err
rc=$?
[ "$rc" = 0 ] && ok "banklab kernel --model: exit 0" || fail "banklab kernel --model: exit $rc: $(head -n 5 k.err)"
for want in "prog.cu: scale<<<(9,1,1), (128,1,1), 0>>>" \
            "prog.cu: spread<2><<<(3,2,1), (256,1,1), 65536>>>" \
            "executed: main's launch 1 of this kernel (of 2), run on the CPU" \
            "executed: main's launch 2 of this kernel (of 2), run on the CPU" \
            "why: warp 0, dyn, pass 1 of 1: bank 0 serves 2 different words (0, 32) to lanes 0, 16: 2-way"; do
    grep -qF "$want" k.out && ok "prints: $want" || fail "missing: $want"
done
grep -qE '^ +27 +48 +96 +48 +48 +2.00 \| +dyn\[threadIdx.x \* STRIDE\] = threadIdx.x;$' k.out && ok "a line's executed figures and source" ||
    fail "no figures of line 27: $(grep "^ *27 " k.out)"
grep -qE '^ +20 +34 +34 +34 +0 +1.00 \|' k.out && ok "line 20: the last block's 2 warps only (34, not 36)" ||
    fail "line 20: $(grep "^ *20 " k.out)"
grep -q "round trip: every element doubled" k.err && ! grep -q "round trip" k.out && ok "the program's stdout on stderr, apart" ||
    fail "program output: stdout $(grep -c round k.out), stderr $(grep -c round k.err)"
timeout 120 "$BANKLAB" kernel prog.cu --model --json > j.out 2> j.err
r=$(json_check j.out 0.kernel=scale 0.grid=[9,1,1] 0.executed=true 0.main_launch=1 0.main_launches=2 \
    1.kernel="spread<2>" 1.grid=[3,2,1] 1.block=[256,1,1] 1.dynamic_smem=65536 1.main_launch=2 \
    1.model.0.line=27 1.model.0.inst=48 1.model.0.wavefronts=96) &&
    ok "--json: each kernel with main's launch of it" || fail "--json: $r"
XRT_TEST_CALL=oob timeout 120 "$BANKLAB" kernel prog.cu --model > o.out 2> o.err
rc=$?
[ "$rc" = 1 ] && grep -q "^not executed (main's launch of it failed: cudaErrorIllegalAddress: lane 16: .*prog.cu:17" o.out &&
    grep -q "^prog.cu: the program exited with status 1" o.err &&
    ok "a kernel that faults: the reason under its report, the program's status, exit 1" ||
    fail "oob via banklab: exit $rc, $(grep executed o.out) $(tail -n 1 o.err)"
XRT_TEST_CALL=graph timeout 120 "$BANKLAB" kernel prog.cu --model > g.out 2> g.err
rc=$?
[ "$rc" = 2 ] && grep -q "^prog.cu: the program calls cudaGraphCreate, which banklab cannot run without a GPU" g.err &&
    grep -q "^not executed (main never launched it)" g.out &&
    ok "an unsupported call: named, exit 2, the kernels read from the source" || fail "unsupported via banklab: exit $rc, $(tail -n 2 g.err)"
# a launch of the command line is the model's to read: --block wins over main's
timeout 120 "$BANKLAB" kernel prog.cu --model --name scale --block 64 > n.out 2>&1
grep -q "scale<<<(1,1,1), (64,1,1), 0>>>" n.out && ! grep -q "executed: main's" n.out &&
    ok "--name/--block: the model reads that launch, main is not run" || fail "--block: $(head -n 1 n.out)"
finish
