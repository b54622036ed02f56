#!/bin/sh
# run.sh: light (it waits on tmux screens, computing little)
# lang_zh.sh: every word a Chinese learner sees is Chinese. With --lang zh at 80x24 it walks
# every step of lessons/ (each quiz answered wrong first), the contents, help, the playground
# with an error of each kind of the pattern language (syntax, unknown type, division by zero,
# bounds, alignment), the sweep, the kernel view, a replayed recording (an access it has and
# one it has not), a chapter's step out of range, the kernel view's example list (z), panels of
# steps answered right (5.1, 11.2) and the SVGs the tutorial exports (x: their tooltips and
# captions); then `banklab kernel --model --lang zh` (transpose_seed.cu, dev_casts.cu, and
# many.cu without nvcc: header, notes, footer), `banklab lab --lang zh` (scripted and at its
# prompt) and `banklab report --lang zh`; every command's --help, usage errors and no-GPU
# answers under --lang zh and LANG=zh_CN.UTF-8, sim's text (also measured on the fake device
# of `banklab serve --fake`) and check's summary. tests/sh/zh_words.py fails on an English word outside
# code, names and units and (--punct) on an ASCII : ( , right after a Chinese character, as
# the check of the zh sources does; both first fail on planted fixtures. No line may start
# with closing punctuation; the lab's lines fit 80 columns, count accesses from 1 and name no
# key of the tutorial.
. tests/sh/tui_fixtures/lib.sh
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }

# 0. the zh texts at their sources: no ASCII : ( , right after a Chinese character outside code
#    (first on a fixture that has each, so the check is seen to fail)
printf '{"t": {"zh": "行距:128，步长(字)，大小,32 与 `a[i](x),y`", "en": "x"}}\n' >"$TMP/punct.json"
python3 tests/sh/zh_words.py --sources "$TMP/punct.json" >"$TMP/punct.txt" && fail "zh_words.py --sources passed a fixture with ASCII : ( ,"
[ "$(grep -c "ASCII '" "$TMP/punct.txt")" = 3 ] || fail "zh_words.py --sources: want 3 findings: $(cat "$TMP/punct.txt")"
python3 tests/sh/zh_words.py --sources lessons/*.json src/base/msg*.def src/ui/strings.def \
    src/keys/keys.def src/cli/lab.c src/cli/lab_text.c >"$TMP/punct.txt" ||
    { cat "$TMP/punct.txt"; fail "ASCII : ( , after Chinese in a zh source text"; }
# the same check over rendered text (zh_words.py --punct) and the English-word check: first on
# a planted capture that has each, so neither can pass vacuously
printf '### fixture\n冲突:32 路(共 32 个)，lane 0-31\n第 1 行,第 2 行 与 `a[i](x)` 与 s[写](0)\n### fixture, English\nThe load walks a column of the tile\n' >"$TMP/fixture.txt"
python3 tests/sh/zh_words.py --punct "$TMP/fixture.txt" >"$TMP/fixture.out" &&
    fail "zh_words.py --punct passed a planted capture"
[ "$(grep -c "ASCII '" "$TMP/fixture.out")" = 3 ] ||
    fail "zh_words.py --punct: want 3 ASCII findings on the fixture: $(cat "$TMP/fixture.out")"
grep -q "'column'" "$TMP/fixture.out" || fail "zh_words.py: the English sentence was not found: $(cat "$TMP/fixture.out")"
CAP="$TMP/captures.txt"
: >"$CAP"
typed() { # TEXT: wait until TEXT (not a pattern) is on the screen (5 s, times BANKLAB_TEST_SLOW)
    ty_end=$(( $(now_ms) + 5000 * BANKLAB_TEST_SLOW ))
    until screen | grep -qF -- "$1"; do
        [ "$(now_ms)" -gt "$ty_end" ] && return 1
        sleep 0.02
    done
}
settled() { # the same screen in two captures 200 ms apart (5 s at most)
    st_a=$(screen) st_i=0
    while [ $st_i -lt 25 ]; do
        sleep 0.2
        st_b=$(screen)
        [ "$st_a" = "$st_b" ] && return 0
        st_a=$st_b st_i=$((st_i + 1))
    done
}
cap() { # WHAT: the screen as it is now, into the captures
    printf '### %s\n' "$1" >>"$CAP"
    screen >>"$CAP"
}

jq -r -s 'sort_by(.chapter)[] | .chapter as $c | (.steps | length) as $n | .steps | to_entries[] |
  .value.quiz as $q | [$c, .key + 1, $n, (if .value.scene then 1 else 0 end), ($q.kind // "-"),
   ($q.answer // 0 | tostring), (($q.choices // []) | length)] | @tsv' \
   lessons/*.json >"$TMP/steps.tsv" || fail "jq could not read lessons/*.json"
total=$(wc -l <"$TMP/steps.tsv")
[ "$total" -gt 0 ] || fail "no steps in lessons/"

# 1. every step, every quiz answered wrong first (the verdict and the explanation in view)
start 80 24 -- --lessons lessons --lang zh --reset
n=0
while IFS="$(printf '\t')" read -r ch st ns scene kind ans nch; do
    n=$((n + 1))
    expect " $ch\\.$st/$ns " 5
    [ "$scene" = 1 ] && { wait_for "^ (无 GPU：|实测 )|先回答|先预测" 5 || fail "step $ch.$st: no GPU line"; }
    cap "step $ch.$st"
    if [ "$kind" = choice ]; then
        keys "$((($ans + 1) % $nch + 1))"
    elif [ "$kind" = number ]; then
        lit "$(awk "BEGIN { print $ans + 100 }")"
        keys Enter
    fi
    if [ "$kind" != - ]; then
        expect "✗ 不对" 5
        cap "step $ch.$st, wrong answer"
        keys PgDn
        cap "step $ch.$st, wrong answer, PgDn"
    fi
    [ "$n" -lt "$total" ] && keys n
done <"$TMP/steps.tsv"
echo "walked $n steps in Chinese"

# 2. the other screens
keys c; expect "目录" 5; cap "contents"; keys Escape
keys '?'; expect "按键" 5; cap "help"; keys Escape
keys g; expect "练习场" 5; cap "playground"
for p in '__shared__ float s[32]; s[lane' '__shared__ flaot s[32]; s[lane]' \
         '__shared__ int q[64]; q[lane / 0]' '__shared__ float s[32][33]; s[lane][lane * 2]' \
         '__shared__ double d[64]; float *p = (float *)d; *(double *)(p + 1)' \
         '__shared__ float s[32]; s[lane] += 1' '__shared__ float s[32]; t[lane]' \
         '__shared__ float4 v[64]; v[lane].q'; do
    keys C-u
    lit "$p"
    # the whole text typed and evaluated: its last six characters on the screen, an error, and
    # the screen still (an error of a text typed only in part, "flaot" as far as "fl", came
    # first under load)
    tail6=${p#"${p%??????}"}
    typed "$tail6" || fail "the playground did not show '$tail6' of: $p"
    expect "错误" 5
    settled
    cap "playground: $p"
done
keys F1; sleep 0.5; cap "playground: F1"; keys Escape
keys Escape
keys q; expect "EXITED rc=0" 5

start 80 24 -- --lessons lessons --lang zh --reset --chapter 3 --step 99
expect " 3\\.[0-9]+/" 5
cap "chapter 3, step 99"
keys s; sleep 1; cap "sweep"; keys Escape
keys i; sleep 0.5; cap "inspector"; keys Escape
keys q; expect "EXITED rc=0" 5

start 80 24 -- assets/kernels/transpose_seed.cu --lessons lessons --lang zh --reset
sleep 1
wait_for "(GPU|编译|行)" 20 || true
sleep 2
cap "kernel view"
keys q; keys q; sleep 0.5

# 2b. the kernel view's example list (at 80 columns and, whole, at 200); panels of steps with a scene and a quiz answered (5.1:
#     the choice answered right; 11.2: the number answered right, then revealed)
start 80 24 -- --lessons lessons --lang zh --reset
expect " 1\\.1/" 5
keys z; expect "示例" 5; cap "kernel view: the examples"
keys Down; sleep 0.3; cap "kernel view: the examples, the second"
keys Escape; keys q; keys q; sleep 0.3
start 200 30 -- --lessons lessons --lang zh --reset
expect " 1\\.1/" 5
keys z; expect "示例" 5; cap "kernel view: the examples at 200 columns, not cut"
keys Escape; keys q; keys q; sleep 0.3
start 80 24 -- --lessons lessons --lang zh --reset --chapter 5 --step 1
expect " 5\\.1/" 5
keys "$(awk -F '\t' '$1 == 5 && $2 == 1 { print $6 + 1 }' "$TMP/steps.tsv")"
expect "✓" 5; sleep 0.5; cap "step 5.1, answered"
keys e; sleep 0.5; cap "step 5.1, answered, revealed"
keys q; keys q; sleep 0.3
start 80 24 -- --lessons lessons --lang zh --reset --chapter 11 --step 2
expect " 11\\.2/" 5
lit "$(awk -F '\t' '$1 == 11 && $2 == 2 { print $6 }' "$TMP/steps.tsv")"; keys Enter
expect "✓" 5; sleep 0.5; cap "step 11.2, answered"
keys e; sleep 0.5; cap "step 11.2, answered, revealed"
keys PgDn; sleep 0.3; cap "step 11.2, answered, revealed, PgDn"
keys q; keys q; sleep 0.3

# 2c. the SVG the tutorial exports (x) in Chinese: its tooltips (<title>) and captions (<text>)
has_zh() { # PREFIX FILE: a Chinese character after the regex PREFIX somewhere in FILE
    python3 -c 'import re, sys
sys.exit(not re.search(sys.argv[1] + "[\u4e00-\u9fff]", open(sys.argv[2], encoding="utf-8").read()))' "$1" "$2"
}
mkdir -p "$TMP/export"
for at in "5 1" "11 1"; do
    set -- $at
    start 100 30 BANKLAB_EXPORT_DIR="$TMP/export" -- --lessons lessons --lang zh --reset --chapter $1 --step $2
    expect " $1\\.$2/" 5
    keys e; sleep 0.5
    keys x; expect "\\.svg" 5
    keys q; keys q; sleep 0.3
done
nsvg=0
for svg in "$TMP"/export/*.svg; do
    [ -f "$svg" ] || continue
    nsvg=$((nsvg + 1))
    has_zh "<title>[^<]*" "$svg" || fail "SVG $svg: no tooltip in Chinese"
    { echo "### SVG $(basename "$svg")"
      python3 -c 'import re, sys, html
for m in re.finditer(r"<(title|text|desc)[^>]*>(.*?)</\1>", open(sys.argv[1], encoding="utf-8").read(), re.S):
    print(html.unescape(re.sub(r"<[^>]*>", "", m.group(2))))' "$svg"; } >>"$CAP"
done
[ "$nsvg" = 2 ] || fail "x wrote $nsvg SVGs, want 2"

# 2d. `banklab kernel --model --lang zh`: the header, the column names, the lines' notes, the
#     total and the footer, all in Chinese; the source column is the learner's code
#     (with nvcc when there is one; many.cu's column with none, for the note that says nothing was
#     executed and no figures)
for k in assets/kernels/transpose_seed.cu tests/gpu/kernels/dev_casts.cu "tests/gpu/programs/many.cu --name column"; do
    case $k in
    *many.cu*) nv=/nonexistent ;;
    *) nv=${BANKLAB_NVCC:-} ;;
    esac
    BANKLAB_NVCC=$nv PATH="$PATH:/usr/local/cuda/bin" "$BANKLAB" kernel $k --model --lang zh >"$TMP/kmodel.txt" 2>&1 ||
        fail "banklab kernel $k --model --lang zh failed: $(cat "$TMP/kmodel.txt")"
    # without nvcc nothing is executed: the note says so, and no line has figures
    case $k in *many.cu*) grep -q "^没有执行（没有 nvcc 来生成 kernel 的 PTX）：没有数字" "$TMP/kmodel.txt" || fail "kernel $k without nvcc: no note in Chinese: $(tail -n 3 "$TMP/kmodel.txt")"
        ! grep -Eq "^ *24 +[0-9]" "$TMP/kmodel.txt" || fail "kernel $k without nvcc: line 24 has figures: $(grep -E '^ *24 ' "$TMP/kmodel.txt")" ;; esac
    has_zh "" "$TMP/kmodel.txt" || fail "kernel $k --model --lang zh: no Chinese"
    { echo "### kernel --model $k"
      sed -e 's/ | .*$/ |/' "$TMP/kmodel.txt"; } >>"$CAP"
done

# 2e. the commands with --lang zh, what they answer and their errors: a kernel line the model
#     refuses (its reason), one not executed, a missing file, a directory, a kernel that compiles where no GPU
#     measures it, the report's directory missing or a file, an unknown option
mkdir -p "$TMP/cli"
cp assets/kernels/strided.cu "$TMP/cli/col.cu"
printf '// banklab: --block 32\n__global__ void k(float *out)\n{\n    __shared__ float s[1024];\n    s[threadIdx.x + 1024] = 1.0f;\n    __syncthreads();\n    out[threadIdx.x] = s[threadIdx.x];\n}\n' >"$TMP/cli/oob.cu"
cli() { # WHAT CMD...: what CMD prints (stdout and stderr, run in $TMP/cli) into the captures
    what=$1
    shift
    { echo "### $what"; (cd "$TMP/cli" && "$@" 2>&1 | sed -e 's/ | .*$/ |/'); } >>"$CAP"
}
# a kernel the executor stops on (a misaligned 8-byte load: the GPU faults there; with nvcc),
# and a kernel not executed at all (no nvcc): each says why in Chinese
printf '// banklab: --block 32\n__global__ void k(float *out)\n{\n    __shared__ float s[128];\n    s[threadIdx.x] = 1.0f;\n    __syncthreads();\n    float2 v = *reinterpret_cast<float2 *>(&s[2 * threadIdx.x + 1]);\n    out[threadIdx.x] = v.x + v.y;\n}\n' >"$TMP/cli/mis.cu"
if [ -x "${BANKLAB_NVCC:-/usr/local/cuda/bin/nvcc}" ] || command -v nvcc >/dev/null 2>&1; then
    cli "kernel --model: a misaligned load" env PATH="$PATH:/usr/local/cuda/bin" "$BANKLAB" kernel "$TMP/cli/mis.cu" --model --lang zh
    grep -A 10 "^### kernel --model: a misaligned load" "$CAP" | grep -q "^没有执行（lane 0：.*地址 0x4 不是 8 字节的倍数）：没有数字" ||
        fail "kernel --model --lang zh: the misaligned load's reason is not in Chinese: $(grep -A 10 '### kernel --model: a misaligned' "$CAP" | sed -n 3p)"
fi
cli "kernel --model: not executed" env BANKLAB_NVCC=/nonexistent "$BANKLAB" kernel oob.cu --model --lang zh
grep -A 30 "^### kernel --model: not executed" "$CAP" | grep -q "^没有执行（没有 nvcc 来生成 kernel 的 PTX）：没有数字" ||
    fail "kernel --model --lang zh: not executed, not said in Chinese: $(grep -A 30 '### kernel --model: not executed' "$CAP" | tail -n 4)"
cli "kernel: a missing file" "$BANKLAB" kernel nosuch.cu --lang zh
cli "kernel: a directory" "$BANKLAB" kernel "$ROOT/assets/kernels/" --lang zh
cli "kernel: no GPU" env CUDA_VISIBLE_DEVICES= PATH="$PATH:/usr/local/cuda/bin" "$BANKLAB" kernel col.cu --lang zh
cli "lab: a missing file" "$BANKLAB" lab nosuch.json --lang zh
cli "lab: a directory" "$BANKLAB" lab "$ROOT/lessons" --lang zh
cli "report: a missing directory" "$BANKLAB" report --out "$TMP/cli/no/such" --lang zh
cli "report: a file for a directory" "$BANKLAB" report --out "$TMP/cli/col.cu" --lang zh
for c in kernel lab report; do cli "$c: a bad option" "$BANKLAB" $c --bogus --lang zh; done
cli "the tutorial: a bad option" "$BANKLAB" --bogus --lang zh
# the errors name the file before a full-width colon, never "path: " in Chinese text
sed -n '/^### kernel: a missing file/,$p' "$CAP" | grep -v '^###' | sed 's/^banklab\( [a-z]*\)\{0,1\}: //' | grep -E ': [^ -~]' &&
    fail "an error joins a name and Chinese with an ASCII ': ' (want ：)"

# 2f. every command under --lang zh (and the tutorial's and kernel's under LANG=zh_CN.UTF-8):
#     its --help, its usage errors, and what it answers without a GPU (the no-GPU line of
#     sim --gpu, verify, bench, serve, run and kernel; sim's grid and summary with the
#     shipped recording's figures; check's summary); then sim --gpu on the fake device of
#     `banklab serve --fake` for what a GPU's measurement prints
nogpu() { env CUDA_VISIBLE_DEVICES= BANKLAB_NO_SERVER=1 PATH="$PATH:/usr/local/cuda/bin" "$@"; }
for c in "" sim check bench verify lab report kernel serve run; do
    cli "$c --help" "$BANKLAB" $c --help --lang zh
done
cli "LANG=zh_CN.UTF-8 --help" env LANG=zh_CN.UTF-8 "$BANKLAB" --help
cli "LANG=zh_CN.UTF-8 kernel --help" env LANG=zh_CN.UTF-8 "$BANKLAB" kernel --help
for c in sim check bench verify serve run; do cli "$c: a bad option" "$BANKLAB" $c --bogus --lang zh; done
cli "sim: a bad value" "$BANKLAB" sim --warp 99 's[lane]' --lang zh
cli "sim: two forms" "$BANKLAB" sim 's[lane]' --offsets 0 --lang zh
cli "kernel: no file" "$BANKLAB" kernel --lang zh
cli "run: no program" "$BANKLAB" run --lang zh
cli "an unknown command" "$BANKLAB" nosuch --lang zh
cli "a command after an option" "$BANKLAB" --lang zh sim 's[lane]'
grep -A 2 "^### a command after an option" "$CAP" | grep -q "“sim”是命令" ||
    fail "banklab --lang zh sim: not told that the command goes first: $(grep -A 2 '^### a command after' "$CAP" | tail -n 1)"
"$BANKLAB" --lang en sim 's[lane]' 2>&1 | grep -q "'sim' is a command: it goes first (banklab sim" ||
    fail "banklab --lang en sim: not told that the command goes first"
cli "--lang fr under LANG=zh_CN.UTF-8" env LANG=zh_CN.UTF-8 "$BANKLAB" sim --lang fr 's[lane]'
cli "sim: text" "$BANKLAB" sim '__shared__ float s[64][32]; s[lane / 2][0]; s[lane][lane] = 1' --lang zh --columns 80
cli "sim: 8-byte, lanes" "$BANKLAB" sim --offsets "$(seq -s, 0 8 248)" --width 8 --lanes --lang zh
cli "sim: ldmatrix" "$BANKLAB" sim '__shared__ half t[64][8]; ldmatrix.x4(t[lane][0])' --lang zh --columns 80
cli "sim: cp.async" "$BANKLAB" sim '__shared__ float4 t[64]; cp.async16(t[lane * 2])' --lang zh --columns 80
cli "sim: LANG=zh_CN.UTF-8, --access" env LANG=zh_CN.UTF-8 "$BANKLAB" sim '__shared__ float s[1024]; s[lane * 32]' --access 1 --columns 80
cli "sim --gpu: no GPU" nogpu "$BANKLAB" sim '__shared__ float s[32]; s[lane]' --gpu --lang zh
cli "sim --access 3 of 1" "$BANKLAB" sim '__shared__ float s[32]; s[lane]' --access 3 --lang zh
cli "check: the lessons" "$BANKLAB" check --lessons "$ROOT/lessons" --lang zh
cli "check: a missing file" "$BANKLAB" check nosuch.json --lang zh
cli "verify: no GPU" nogpu "$BANKLAB" verify --lessons "$ROOT/lessons" --lang zh
cli "bench: no GPU" nogpu "$BANKLAB" bench --lang zh
cli "serve: no GPU" nogpu "$BANKLAB" serve --lang zh
cli "run: no GPU" nogpu "$BANKLAB" run --lang zh -- true
cli "kernel: no GPU, LANG=zh_CN.UTF-8" nogpu env LANG=zh_CN.UTF-8 "$BANKLAB" kernel col.cu
cp assets/kernels/transpose_seed.cu "$TMP/cli/seed.cu"
cli "kernel --fix: no GPU" nogpu "$BANKLAB" kernel seed.cu --fix --lang zh
cli "kernel --fix: the copy exists" nogpu "$BANKLAB" kernel seed.cu --fix --lang zh
"$BANKLAB" serve --fake --socket "$TMP/fake.sock" --lang zh 2>"$TMP/fake.err" &
fake=$!
i=0
while [ ! -S "$TMP/fake.sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
# the fake device's own name and turns (the server's test double describes itself in English)
nofake() { sed -e 's/fake device ([^)]*)/FAKE/g' -e 's/no turns (fake device)/FAKE/g'; }
{ echo "### sim --gpu on the fake device"
  "$BANKLAB" sim '__shared__ float s[1024]; s[lane * 32]' --gpu --server "$TMP/fake.sock" --lang zh 2>&1 | nofake; } >>"$CAP"
# bench on the fake device (its table's rows, the stride sweep's labels)
{ echo "### bench on the fake device"
  "$BANKLAB" bench --quick --server "$TMP/fake.sock" --lang zh 2>&1 | nofake; } >>"$CAP"
grep -A 8 "^### bench on the fake device" "$CAP" | grep -q "步长 1 " ||
    fail "bench on the fake device: no sweep rows: $(grep -A 8 '^### bench on the fake device' "$CAP")"
kill $fake 2>/dev/null; wait $fake 2>/dev/null
{ echo "### serve --fake"; nofake <"$TMP/fake.err"; } >>"$CAP"
# sim --script (its "== file:line" headers, a line that fails), check of a lesson directory
# with problems (the loader's and the checker's problem lines)
printf '# a class\n__shared__ float s[1024]; s[lane * 32]\n\n__shared__ float s[10]; s[lane * 2]\n' >"$TMP/cli/patterns.txt"
cli "sim --script" "$BANKLAB" sim --script patterns.txt --replay "$ROOT/assets/h200-recording.json" --lang zh --columns 80
mkdir -p "$TMP/badlessons"
jq '.chapter = 200 | .steps[0].bogus = 1 | .steps[1].quiz.kind = "many"' "$ROOT/lessons/01-what-is-a-bank.json" \
    >"$TMP/badlessons/01-bad.json" || fail "jq could not plant problems in a lesson"
printf '{"format": 1, "chapter": 3,\n "steps": [' >"$TMP/badlessons/02-syntax.json"
# a scene whose code fails (its error and binding are messages) and an expectation the model
# refutes (the binding "STRIDE=.., access N" in the reader's language)
jq '.chapter = 97 | .steps[0].scene.code = "__shared__ float data[512]; data[lane * 32]"' \
    "$ROOT/lessons/01-what-is-a-bank.json" >"$TMP/badlessons/03-code.json" &&
    jq '.chapter = 98 | .steps[0].expect[0].wavefronts = 5' "$ROOT/lessons/03-common-cases.json" \
    >"$TMP/badlessons/04-expect.json" || fail "jq could not plant a failing scene"
cli "check: lessons with problems" "$BANKLAB" check --lessons "$TMP/badlessons" --lang zh
[ "$(grep -A 8 '^### check: lessons with problems' "$CAP" | grep -c 'json')" -ge 4 ] ||
    fail "check: the planted problems are not all listed: $(grep -A 8 '^### check: lessons with problems' "$CAP")"
grep -A 12 '^### check: lessons with problems' "$CAP" | grep -q '越界.*（访问 0）' ||
    fail "check: the failing scene's error and binding are not in Chinese: $(grep -A 12 '^### check: lessons with problems' "$CAP")"
grep -A 12 '^### check: lessons with problems' "$CAP" | grep -q 'COL=0, 访问 0' ||
    fail "check: the refuted expectation's binding is not in Chinese: $(grep -A 12 '^### check: lessons with problems' "$CAP")"
for w in " --help" "sim --help" "sim: text" "check: the lessons" "bench: no GPU" "kernel --fix: no GPU" \
         "sim --gpu on the fake device" "bench on the fake device" "sim --script" \
         "check: lessons with problems"; do
    python3 - "$CAP" "$w" <<'PY' || fail "$w: no Chinese in its output"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"^### " + re.escape(sys.argv[2]) + r"\n(.*?)(?=^### |\Z)", text, re.S | re.M)
sys.exit(not (m and re.search("[\u4e00-\u9fff]", m.group(1))))
PY
done

# 3. a replayed recording: what it has, and an access it has not
start 80 24 -- --lessons lessons --lang zh --reset --replay assets/h200-recording.json --chapter 1 --step 3
expect " 1\\.3/" 5
keys e
wait_for "录制于" 5 || fail "replay: no provenance in Chinese"
cap "replay, step 1.3"
keys g; expect "练习场" 5; keys C-u
lit '__shared__ float s[4096]; s[lane * 37 + 5]'
wait_for "录制里没有" 5 || fail "replay: no 'not recorded' in Chinese"
cap "replay, an access not recorded"
keys Escape; keys q; expect "EXITED rc=0" 5

# 3b. presenter mode on the recording: the device it names (its SMs and clock) in Chinese
start 120 40 -- --lessons lessons --lang zh --reset --present --replay assets/h200-recording.json --chapter 1 --step 3
expect " 1\\.3/" 5
keys e
wait_for "录制于" 5 || fail "presenter: no provenance in Chinese"
cap "presenter, replay, step 1.3"
grep -q "SM clock\|SMs" "$TMP/screen.txt" && fail "presenter: the recording's device in English"
keys q; keys q; sleep 0.3

# 4. the lab: scripted against the recording, and at its prompt
COLUMNS=80 "$BANKLAB" lab lessons/10-lab-workshop.json --lang zh --no-save \
    --replay assets/h200-recording.json --answers PAD=1,K=2 >"$TMP/lab.txt" 2>&1 ||
    fail "banklab lab --answers failed: $(cat "$TMP/lab.txt")"
printf 'x\n?\n1\n\nq\n' | COLUMNS=80 "$BANKLAB" lab lessons/10-lab-workshop.json --lang zh \
    --no-save >"$TMP/lab2.txt" 2>&1 || fail "banklab lab at its prompt failed"
{ echo "### lab (scripted, replay)"; cat "$TMP/lab.txt"; echo "### lab (prompt)"; cat "$TMP/lab2.txt"; } >>"$CAP"
grep -q "访问 1/1" "$TMP/lab.txt" || fail "lab: the access is not counted from 1 ('访问 1/1')"
grep -q "访问 0" "$TMP/lab.txt" && fail "lab: 'access 0'"
grep -qE "(用|with) [a-zA-Z] / [a-zA-Z]|换几个 warp|other warps" "$TMP/lab.txt" "$TMP/lab2.txt" &&
    fail "lab: the tutorial's keys at the lab's prompt: $(grep -hE '(用|with) [a-zA-Z] / [a-zA-Z]|warp' "$TMP/lab.txt" | head -n 2)"
grep -q "在 PAD 提示处" "$TMP/lab.txt" || fail "lab: no instruction for its prompt"
grep -q "要求：wavefront 数 <=" "$TMP/lab.txt" && fail "lab: the bound is written 'wavefront 数 <= N' (want 不超过)"
grep -q "SM clock\|SMs," "$TMP/lab.txt" && fail "lab: the recording's device in English ($(grep -m1 'SM clock' "$TMP/lab.txt"))"
# the lab and sim as a newcomer without a GPU gets them: the shipped recording's figures by
# default (the suites run with BANKLAB_MODEL_ONLY=1), its device and date said in Chinese
printf 'q\n' | nogpu env -u BANKLAB_MODEL_ONLY COLUMNS=80 "$BANKLAB" lab lessons/10-lab-workshop.json \
    --lang zh --no-save >"$TMP/lab3.txt" 2>&1
nogpu env -u BANKLAB_MODEL_ONLY "$BANKLAB" sim '__shared__ float s[1024]; s[lane * 32]' --lang zh \
    >"$TMP/sim3.txt" 2>&1 || fail "sim --lang zh with the shipped recording failed: $(cat "$TMP/sim3.txt")"
{ echo "### lab (prompt, the shipped recording)"; cat "$TMP/lab3.txt"
  echo "### sim (the shipped recording)"; cat "$TMP/sim3.txt"; } >>"$CAP"
for f in lab3 sim3; do
    grep -q "录制于" "$TMP/$f.txt" || fail "${f%3} without a GPU does not say it shows the shipped recording (录制于)"
    grep -E "录制于.*(\(sm_|SMs|SM clock|, 20[0-9][0-9]-)" "$TMP/$f.txt" &&
        fail "${f%3}: the recording's device or date in English words or punctuation (above)"
done
python3 - "$TMP/lab.txt" "$TMP/lab2.txt" <<'PY' || fail "lab: a line wider than 80 columns"
import sys, unicodedata
bad = 0
for p in sys.argv[1:]:
    for line in open(p, encoding="utf-8"):
        line = line.rstrip("\n")
        w = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
        # a prompt answered through a pipe shares its line with what follows
        if w > 80 and "]：" not in line and "]: " not in line:
            print("%d columns: %s" % (w, line)); bad = 1
sys.exit(bad)
PY

# 5. the report
mkdir -p "$TMP/rep"
"$BANKLAB" lab lessons/10-lab-workshop.json --lang zh --replay assets/h200-recording.json \
    --answers PAD=2,K=1 >/dev/null 2>&1 || fail "lab for the report failed"
"$BANKLAB" report --lang zh --out "$TMP/rep" >/dev/null 2>&1 || fail "banklab report --lang zh failed"
md=$(ls "$TMP/rep"/*.md) || fail "no Markdown report"
{ echo "### report (Markdown)"; cat "$md"; } >>"$CAP"
grep -q "下面的实测数字：录制于" "$md" || fail "report: the device line does not say where the figures come from"

# the words, and no line starting with closing punctuation; the names of the code on the
# screen (the scenes' and the kernels' identifiers, the playground's patterns) are names
{
    jq -r '.. | objects | .code? // empty | strings' lessons/*.json
    cat assets/kernels/*.cu
    grep -o "'__shared__[^']*'" "$0"
    # the names the --help texts quote: JSON fields (of sim --json, kernel --model --json and
    # the lessons), option values (--fill float|int|zero)
    "$BANKLAB" sim '__shared__ float s[32]; s[lane]' --json --replay assets/h200-recording.json |
        jq -r '[paths | .[] | strings] | unique[]'
    echo launches lines totals notes   # banklab run --json's (it needs a GPU)
    echo ok not-recorded unavailable failed null lock   # sim --gpu --json's status and lock
    echo ld st memcpy copy   # bench's rows: PTX's ld/st, cudaMemcpy, the copy case
    ls kernels/*.cu | sed 's|.*/||; s|\.cu$||'   # bench's kernels (the pattern kernel, copy, ...)
    # kernel --model --json's fields: the executed seed transpose's (kernel_model.sh keeps
    # this file equal to banklab's output), and a kernel's not executed
    sed '/^exit [0-9]*$/d' tests/golden/kernel_model/transpose_seed.json.txt |
        jq -r '[paths | .[] | strings] | unique[]'
    BANKLAB_NVCC=/nonexistent "$BANKLAB" kernel assets/kernels/transpose_seed.cu --model --json |
        jq -r '[paths | .[] | strings] | unique[]'
    jq -r '[paths | .[] | strings] | unique[]' lessons/*.json
    for c in "" sim check bench verify lab report kernel serve run; do "$BANKLAB" $c --help; done |
        grep -oE '[a-z0-9]+(\|[a-z0-9]+)+'
} | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u >"$TMP/codewords"
python3 tests/sh/zh_words.py --punct --allow "$TMP/codewords" "$CAP" >"$TMP/english.txt" || {
    head -n "${ZH_SHOW:-40}" "$TMP/english.txt"
    echo "FAIL: $(wc -l <"$TMP/english.txt") English words or ASCII : ( , after Chinese a learner sees (above: the first 40)"
    exit 1
}
python3 - "$CAP" <<'PY' || { echo "FAIL: a line starts with closing punctuation"; exit 1; }
import sys
close = "，。、；：！？）」』》】〉”’…"
bad = 0
what = "?"
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("### "):
        what = line[4:].strip(); continue
    s = line.strip(" │|")
    # a line of code the playground scrolled to the left starts with its "…" marker: not text
    if what.startswith("playground") and s.startswith("… ") and s[2:3].isascii():
        continue
    if s and s[0] in close:
        print("%s: %s" % (what, line.rstrip())); bad = 1
sys.exit(bad)
PY
echo "Chinese: no English word outside code, names and units, no ASCII : ( , after a Chinese character; no line starts with closing punctuation"

# A terminal without UTF-8 (LANG=C, an ssh session without a locale): the tutorial falls back
# to English, and the lessons' own · and × keep ASCII stand-ins instead of vanishing (2.3:
# "word 40·r + c" reads "word 40*r + c", not "word 40  r + c"; test_ui_text covers the rest)
start 80 24 LANG=C LC_ALL=C LC_CTYPE=C -- --lessons lessons --reset --chapter 2 --step 3
expect "word 40\\*r \\+ c" 5
grep -q "40  r" "$TMP/screen.txt" && fail "LANG=C: the middle dot vanished"
echo "LANG=C: the lessons' symbols shown as ASCII"
exit 0
