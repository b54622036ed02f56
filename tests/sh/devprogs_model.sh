#!/bin/sh
# devprogs_model.sh: every program an H100 measured with CUPTI (tests/data/devprogs/NAME.json:
# its "program", of tests/gpu/devprogs or tests/gpu/programs, and the per-line figures) is run
# as it is on the CPU by `banklab kernel PROGRAM --model --json` (its main() through banklab's CUDA runtime and the
# PTX executor, no other option), and each line of the program's own file is compared per
# (kernel, line): inst, wavefronts, and ideal where both have it. Lines the GPU charges to a
# CUDA or CUB header are not compared (the model charges them to the calling line).
# Prints every line that differs with both figures and "N of M lines equal". Fails when a kernel
# the H100 measured was not executed on the CPU, when a line differs that
# tests/data/devprogs/known-differences.txt does not list, when a listed line is now equal
# (remove it: the list only shrinks), or when a listed line is not a compared line.
# DEVPROGS_ONLY="a b" runs those programs only; DEVPROGS_KEEP=DIR keeps the outputs there, and
# with DEVPROGS_REUSE=1 compares the outputs already in DIR without running anything.
# Needs nvcc (SKIP without it); no GPU.
set -u
: "${BUILD:=build}" "${BANKLAB:=$BUILD/banklab}" "${DEVPROGS_ONLY:=}" "${DEVPROGS_KEEP:=}" "${DEVPROGS_REUSE:=0}"
. tests/sh/lib.sh devprogs_model.sh
export CUDA_VISIBLE_DEVICES= XDG_RUNTIME_DIR="$tmp/run" XDG_CACHE_HOME="$tmp/cache" BANKLAB_KERNEL_SERVER=0
mkdir -p "$tmp/run" && chmod 700 "$tmp/run"
if ! { [ -x "${BANKLAB_NVCC:-/usr/local/cuda/bin/nvcc}" ] || command -v nvcc >/dev/null 2>&1; }; then
    echo "devprogs_model.sh: SKIP: no nvcc to build the programs"
    exit 77
fi
out=$tmp/out
[ -n "$DEVPROGS_KEEP" ] && out=$DEVPROGS_KEEP
mkdir -p "$out" || exit 1
known=tests/data/devprogs/known-differences.txt
for d in tests/data/devprogs/*.json; do
    n=$(basename "$d" .json)
    if [ -n "$DEVPROGS_ONLY" ]; then
        case " $DEVPROGS_ONLY " in *" $n "*) ;; *) continue ;; esac
    fi
    p=$(json_get "$d" program) && [ -f "$p" ] || { echo "devprogs_model.sh: $d: no program $p"; exit 1; }
    echo "$n $p"
done >"$tmp/list" || exit 1
[ -s "$tmp/list" ] || { echo "devprogs_model.sh: no program to run"; exit 1; }
export BANKLAB out
[ "$DEVPROGS_REUSE" = 1 ] && [ -n "$DEVPROGS_KEEP" ] || \
# two at a time: make test runs on two cores; a compile of CUB's headers may take longer than
# the default 10 s on a loaded machine (a CI run: cub_blocks stopped at 10 s), and this suite
# judges the figures, not the compile's speed
xargs -P 2 -L 1 sh -c 'timeout 300 "$BANKLAB" kernel "$1" --model --json --time-limit 240 \
    >"$out/$0.json" 2>"$out/$0.err"; echo $? >"$out/$0.rc"' <"$tmp/list"
python3 - "$tmp/list" "$out" "$known" <<'EOF' && ok "every line equal or listed" || fail "the programs' lines against the H100's (above)"
import json, os, sys
names = [l.split()[0] for l in open(sys.argv[1])]
out, known_path = sys.argv[2], sys.argv[3]
known, bad = {}, []
for i, raw in enumerate(open(known_path, encoding="utf-8"), 1):
    s = raw.strip()
    if not s or s.startswith("#"):
        continue
    parts = s.split(None, 2)
    kl = parts[1].rsplit(":", 1) if len(parts) == 3 else []
    if len(kl) != 2 or not kl[1].isdigit():
        bad.append("%s:%d: not `PROGRAM KERNEL:LINE reason`: %s" % (known_path, i, s))
        continue
    known[(parts[0], kl[0], int(kl[1]))] = parts[2]
seen = set()
total = equal = 0
for n in names:
    gpu = json.load(open("tests/data/devprogs/%s.json" % n))
    rc = open(os.path.join(out, n + ".rc")).read().strip()
    try:
        mine = json.load(open(os.path.join(out, n + ".json")))
    except ValueError:
        mine = []
    if isinstance(mine, dict):
        mine = [mine]
    err = open(os.path.join(out, n + ".err")).read().strip().splitlines()
    model, notes = {}, {}
    for k in mine:
        if not k.get("executed"):
            notes[k["kernel"]] = k.get("exec_note") or "not executed"
        for x in k.get("model") or []:
            model[(k["kernel"], x["line"])] = x
    e = m = 0
    ran = {k["kernel"] for k in mine if k.get("executed")}
    for launch in gpu["launches"]:
        kern = launch["kernel"]
        if kern not in ran and ("ran", n, kern) not in seen:
            seen.add(("ran", n, kern))
            bad.append("%s %s: not executed on the CPU (%s)" % (n, kern, notes.get(kern, "not reported")))
        for g in launch["lines"]:
            if g["file"] != os.path.basename(gpu["program"]):
                continue
            key = (n, kern, g["line"])
            if key in seen:
                continue
            seen.add(key)
            m += 1
            x = model.get((kern, g["line"]))
            diff = []
            for f in ("inst", "wavefronts", "ideal"):
                c = x.get(f) if x else None
                if f == "ideal" and (c is None or g.get(f) is None):
                    continue
                if c != g.get(f):
                    diff.append("%s cpu %s gpu %s" % (f, c, g.get(f)))
            where = "%s %s:%d" % (n, kern, g["line"])
            if not diff:
                e += 1
                if key in known:
                    bad.append("listed but now equal: remove it from %s: %s" % (known_path, where))
                continue
            why = "" if kern not in notes else " (%s)" % notes[kern]
            print("DIFFER %s: %s%s" % (where, ", ".join(diff), why))
            if key not in known:
                bad.append("differs and is not listed in %s: %s" % (known_path, where))
    tail = "" if rc == "0" else " (exit %s: %s)" % (rc, err[-1] if err else "")
    print("%-18s %3d of %3d lines equal%s" % (n, e, m, tail))
    total += m
    equal += e
for key in known:
    if key[0] in names and key not in seen:
        bad.append("listed but not a compared line: %s %s:%d" % key)
print("devprogs: %d of %d lines equal" % (equal, total))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
EOF
finish
