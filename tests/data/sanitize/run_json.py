#!/usr/bin/env python3
"""run_json.py: a recorded sample of tests/data/sanitize (NAME.json, the sanitizer route's
instructions and lines as recorded on the GPU machine, and NAME.patterns, the warps the route
kept) written in the form `banklab run --json` gives today (launches[], each with its lines,
their warps, the launch's warps and its instructions), for the kernel view's --measured.
Nothing is measured or changed here: the figures and addresses are the recording's; the
launch's grid and block come from the program's `// banklab:` comment (tests/gpu/programs).

    python3 tests/data/sanitize/run_json.py NAME > tests/data/sanitize/NAME.run.json
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = {"ld": "ld", "st": "st", "atom": "atom", "ldsm": "ldsm", "stsm": "stsm", "cpasync": "ldgsts"}


def dims(text, opt):
    m = re.search(r"--%s (\d+)(?:x(\d+))?(?:x(\d+))?" % opt, text)
    return [int(m.group(i) or 1) for i in (1, 2, 3)] if m else [0, 0, 0]


def warps_of(path):
    out = {}
    for line in open(path):
        f = line.split()
        sym, pc, slot, kind = f[0], int(f[2], 16), f[3], f[6]
        w = {"pc": pc, "kind": "worst" if slot == "w" else "pattern", "warps": int(f[4]),
             "wavefronts": int(f[5]), "op": OPS[kind], "width": int(f[7]),
             "matrices": int(f[8]), "mask": "%08x" % int(f[9], 16),
             "block": [int(f[10]), int(f[11]), int(f[12])], "warp": int(f[13]),
             "offsets": [int(x, 16) for x in f[14:46]]}
        out.setdefault(sym, []).append(w)
    return out


def figures(o):
    i, wf, ideal = o["inst"], o["wavefronts"], o["ideal"]
    return {"inst": i, "wavefronts": wf, "ideal": ideal, "excess": wf - ideal,
            "ways": wf / ideal if ideal else 0}


def main(name):
    rec = json.load(open(os.path.join(HERE, name + ".json")))
    warps = warps_of(os.path.join(HERE, name + ".patterns"))
    prog = os.path.join(HERE, "..", "..", "gpu", "programs", name + ".cu")
    first = open(prog).readline() if os.path.exists(prog) else ""
    launches = []
    for n, k in enumerate(rec["sanitizer"]):
        ws = warps.get(k["symbol"], [])
        file_of = {l["line"]: l["file"] for l in k["lines"]}
        insts = []
        for i in k["instructions"]:
            o = {"pc": i["pc"], "sass": i["sass"], "op": i["op"], "line": i["line"],
                 "file": file_of.get(i["line"])}
            o.update(figures(i))
            insts.append(o)
        lines = []
        for l in k["lines"]:
            pcs = {i["pc"] for i in k["instructions"] if i["line"] == l["line"]}
            o = {"file": l["file"], "line": l["line"], "source": None}
            o.update(figures(l))
            o["warps"] = [dict(w, of=next(i["inst"] for i in k["instructions"] if i["pc"] == w["pc"]))
                          for w in ws if w["pc"] in pcs]
            lines.append(o)
        tot = {"inst": sum(i["inst"] for i in insts),
               "wavefronts": sum(i["wavefronts"] for i in insts),
               "ideal": sum(i["ideal"] for i in insts)}
        tot["excess"] = tot["wavefronts"] - tot["ideal"]
        launches.append({"kernel": k["kernel"], "symbol": k["symbol"], "device": rec["card"],
                         "arch": "sm_90", "grid": dims(first, "grid"),
                         "block": dims(first, "block"), "dynamic_smem": 0, "static_smem": 0,
                         "registers": 0, "pid": 0, "launch": n + 1, "kernel_launch": 1,
                         "status": "ok", "error": None, "lines": lines,
                         "warps": [dict(w, of=next(i["inst"] for i in k["instructions"]
                                                    if i["pc"] == w["pc"])) for w in ws],
                         "instructions": insts, "totals": tot})
    json.dump({"program": ["./" + name], "exit_status": 0, "processes": 1,
               "launches": launches,
               "notes": ["recorded: %s (%s); written by tests/data/sanitize/run_json.py from "
                         "%s.json and %s.patterns" % (rec.get("run", "?"), rec["card"], name, name)]},
              sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
