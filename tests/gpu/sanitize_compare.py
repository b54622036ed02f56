#!/usr/bin/env python3
"""sanitize_compare.py OUT PROG: the sanitizer route's `banklab run --json` of PROG
(OUT/san_PROG.json) against CUPTI's route of the same program (OUT/cupti_PROG.json): every
launch of the sanitizer run is matched by kernel name with CUPTI's, and per SASS instruction
(pc) the executions, wavefronts and ideal must be equal; then, where OUT/ncu_PROG_I.csv exist
(ncu --page source --csv --print-source cuda,sass of launch I), per source line the
wavefronts must equal ncu's. Prints one ok/FAIL line per check; exit 0 when all hold."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_compare import parse_ncu  # noqa: E402


def main():
    out, prog = sys.argv[1], sys.argv[2]
    fail = 0

    def check(ok, text):
        nonlocal fail
        print(("ok   " if ok else "FAIL ") + text)
        fail += 0 if ok else 1

    san = json.load(open(os.path.join(out, "san_%s.json" % prog)))
    cup = json.load(open(os.path.join(out, "cupti_%s.json" % prog)))
    cl = {l["kernel"]: l for l in cup["launches"]}
    check(len(san["launches"]) == len(cl) and len(cl) > 0,
          "%s: %d launches measured in one run by the sanitizer route, %d by CUPTI's" %
          (prog, len(san["launches"]), len(cl)))
    insts = equal = 0
    for l in san["launches"]:
        c = cl.get(l["kernel"])
        if not c:
            check(False, "%s: %s not measured by CUPTI" % (prog, l["kernel"]))
            continue
        ci = {i["pc"]: i for i in c["instructions"]}
        si = {i["pc"]: i for i in l["instructions"]}
        bad, varied, ideal_only = [], [], []
        for pc in sorted(set(ci) | set(si)):
            a, b = si.get(pc), ci.get(pc)
            insts += 1
            fa = a and (a["inst"], a["wavefronts"], a.get("ideal"))
            fb = b and (b["inst"], b["wavefronts"], b.get("ideal"))
            text = "pc %#x %s: sanitizer %s, CUPTI %s" % (pc, (a or b)["sass"], fa, fb)
            if fa == fb:
                equal += 1
            elif a and b and a["inst"] != b["inst"]:
                varied.append(text)   # the two runs executed it a different number of times
            elif a and b and a["wavefronts"] == b["wavefronts"]:
                ideal_only.append(text)
            else:
                bad.append(text)
        check(not bad, "%s %s: %d instructions equal to CUPTI's%s" %
              (prog, l["kernel"], len(si), ("; " + "; ".join(bad[:4])) if bad else ""))
        # one worst warp per instruction, the costliest of its kept warps by the rule its SASS
        # names (an ATOMS lane by lane, an LDGSTS.BYPASS by .cg's), and no kept warp costlier
        # than the instruction's figure per execution allows
        ws = {}
        for x in l.get("lines", []):
            for w in x.get("warps", []):
                ws.setdefault(w["pc"], {})[(w["kind"], w["warps"], w["wavefronts"], w["warp"],
                                            tuple(w["block"]))] = w
        wbad = []
        for pc, d in sorted(ws.items()):
            worst = [w for k, w in d.items() if k[0] == "worst"]
            kept = [w["wavefronts"] for k, w in d.items() if k[0] == "pattern"]
            if len(worst) != 1 or (kept and worst[0]["wavefronts"] < max(kept)):
                wbad.append("pc %#x %s: worst %s, kept %s" % (pc, si.get(pc, {}).get("sass", "?"),
                            [w["wavefronts"] for w in worst], kept))
        check(not wbad, "%s %s: each of %d instructions' worst warp the costliest kept%s" %
              (prog, l["kernel"], len(ws), ("; " + "; ".join(wbad[:4])) if wbad else ""))
        for t in varied:
            print("info %s %s: executed a different number of times in the two runs (a loop "
                  "on the data or on timing, such as a compare-and-swap retry): %s" % (prog, l["kernel"], t))
        for t in ideal_only:
            print("info %s %s: wavefronts equal, CUPTI's ideal differs: %s" % (prog, l["kernel"], t))
        for i, launch in enumerate(san["launches"]):
            if launch is not l:
                continue
            path = os.path.join(out, "ncu_%s_%d.csv" % (prog, i))
            if not os.path.exists(path):
                continue
            theirs = parse_ncu(open(path, errors="replace").read())
            ours = {(os.path.basename(x["file"]), x["line"]): x["wavefronts"] for x in l["lines"]}
            # ncu's source page lists an inlined instruction under the header line of CUDA's
            # code it stands in (and, for some, under the caller's line too); banklab charges
            # it to the caller's line in the learner's file. Lines of .cu files are compared;
            # what ncu shows only under a header must account for the rest.
            cu = lambda k: k[0].endswith(".cu")
            hdr = sum(v[0] for k, v in theirs.items() if not cu(k))
            keys = [k for k in set(ours) | set(theirs)
                    if cu(k) and (ours.get(k, 0) or theirs.get(k, [0])[0])]
            diff = {k: ours.get(k, 0) - theirs.get(k, [0])[0] for k in keys}
            lbad = ["%s:%d ours %s ncu %s" % (k[0], k[1], ours.get(k, 0), theirs.get(k, [0])[0])
                    for k in sorted(keys) if diff[k]]
            moved = sum(d for d in diff.values() if d > 0)
            ok = not [d for d in diff.values() if d < 0] and moved <= hdr
            check(ok, "%s %s: %d lines of the .cu equal to ncu's%s%s" %
                  (prog, l["kernel"], len(keys),
                   (" but for what ncu charges to CUDA's headers (%s)" % "; ".join(lbad[:4]))
                   if lbad and ok else "", ("; " + "; ".join(lbad[:4])) if not ok else ""))
    print("%s: %d of %d instructions equal to CUPTI's" % (prog, equal, insts))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
