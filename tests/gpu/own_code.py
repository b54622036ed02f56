#!/usr/bin/env python3
"""own_code.py OUT: the comparisons of tests/gpu/own_code.sh. OUT/manifest.txt lists
PROGRAM|KERNEL (one line per kernel of tests/gpu/programs/PROGRAM.cu); for each:

  * OUT/run_PROGRAM.json: `banklab run --json -- OUT/bin/PROGRAM` (every launch of the
    program: each kernel is launched once, so banklab's default, the first launch of each
    kernel, is all of them);
  * OUT/kernel_PROGRAM_KERNEL.json: `banklab kernel tests/gpu/programs/PROGRAM.cu --name
    KERNEL --json` (the file's "banklab:" comment is the launch its main makes);
  * OUT/ncu_PROGRAM_I.csv: Nsight Compute's source page (--page source --csv --print-source
    cuda,sass) of launch I (0-based) of `ncu --section SourceCounters OUT/bin/PROGRAM`.

Per source line (file name, line): the shared-memory instructions executed (ncu: the
"Instructions Executed" of the SASS rows that are shared-memory instructions), the wavefronts
("L1 Wavefronts Shared"), the ideal ("... Ideal") and the excess (wavefronts - ideal, and
ncu's "... Excessive" where it has the column) must be equal, for banklab kernel and for
banklab run. Prints ok/FAIL lines, writes OUT/compare.txt (every line's figures) and
OUT/summary.txt (one row per kernel); exit 0 when every check holds."""
import csv
import io
import json
import os
import re
import sys

WF = {"l1 wavefronts shared", "memory_l1_wavefronts_shared"}
IDEAL = {"l1 wavefronts shared ideal", "memory_l1_wavefronts_shared_ideal"}
EXCESS = {"l1 wavefronts shared excessive", "derived__memory_l1_wavefronts_shared_excessive"}
INST = {"instructions executed", "warp instructions executed", "inst_executed",
        "smsp__inst_executed.sum"}
LINE = {"line no", "line", "# line", "line number"}
ADDRESS = {"address", "# address"}
SOURCE = {"source"}
# Kernels whose per-line figures differ from ncu's for a reason that is understood (docs/kernel.md,
# "Where banklab and ncu differ"); printed, not counted as a failure.
KNOWN = {
    ("many", "histogram"): "atomicAdd's ATOMS is put on its inlined line in sm_20_intrinsics.hpp "
                           "(ncu: the call's line), and an STS under `if (t < 64)` counts the warps "
                           "that executed it with a thread on (ncu: every warp that issued it)",
}
SHARED_OPS = re.compile(r"^(LDS|STS|LDSM|STSM|ATOMS|LDGSTS|HGMMA|WGMMA|UTMALDG|UTMASTG)\b")


def number(cell):
    cell = cell.strip().replace(",", "").replace("\u202f", "")
    try:
        return float(cell)
    except ValueError:
        return None


def opcode(text):
    t = text.strip()
    t = re.sub(r"^@!?U?P[T0-9]+\s+", "", t)
    return t.split(" ")[0] if t else ""


def parse_ncu(text):
    """{(file basename, line): {"inst", "wf", "ideal", "excess"}} from ncu's source page, read as
    kernel_compare.py reads it: the SASS rows under each CUDA line summed (inst: only the rows
    that are shared-memory instructions), or, where the page has only line rows, those (then
    ncu's instructions count every instruction of the line and are not compared). has: which
    comparisons the page allows."""
    sass, direct, cur_file, cur_line, hdr, seen = {}, {}, "", None, None, set()
    has = {"inst": False, "excess": False}
    zero = lambda: {"inst": 0.0, "wf": 0.0, "ideal": 0.0, "excess": 0.0}
    for row in csv.reader(io.StringIO(text)):
        if not row:
            continue
        cells = [c.strip() for c in row]
        low = [c.lower() for c in cells]
        if len(cells) >= 2 and low[0] in ("file path", "file", "source file", "file name"):
            cur_file = os.path.basename(cells[1])
            cur_line = None
            continue
        if any(c in WF for c in low):
            hdr = {}
            for i, c in enumerate(low):
                for key, names in (("wf", WF), ("ideal", IDEAL), ("excess", EXCESS),
                                   ("inst", INST), ("line", LINE), ("addr", ADDRESS),
                                   ("src", SOURCE)):
                    if c in names and key not in hdr:
                        hdr[key] = i
            # two "Source" columns: the CUDA line's, then (after "Address") the SASS text
            if "addr" in hdr:
                later = [i for i, c in enumerate(low) if c in SOURCE and i > hdr["addr"]]
                if later:
                    hdr["src"] = later[0]
            hdr["width"] = len(cells)
            has["excess"] = has["excess"] or "excess" in hdr
            seen = set()
            continue
        if hdr is None:
            continue
        li = hdr.get("line")
        if li is not None and li < len(cells) and cells[li].isdigit():
            cur_line = int(cells[li])
            if len(cells) == hdr["width"]:  # a line row whose source text did not break the CSV
                wf = number(cells[hdr["wf"]])
                if wf is not None:
                    d = direct.setdefault((cur_file, cur_line), zero())
                    d["wf"] = wf
                    d["ideal"] = number(cells[hdr["ideal"]]) or 0.0 if "ideal" in hdr else 0.0
                    d["excess"] = number(cells[hdr["excess"]]) or 0.0 if "excess" in hdr else 0.0
            continue
        ai = hdr.get("addr")
        if ai is None or ai >= len(cells) or not re.match(r"^(0x)?[0-9a-fA-F]+$", cells[ai]):
            continue
        shift = len(cells) - hdr["width"]
        if shift < 0:
            continue
        get = (lambda i: cells[i + shift] if i > ai else cells[i]) if shift else (lambda i: cells[i])
        wf = number(get(hdr["wf"]))
        if wf is None:
            continue
        src = cells[hdr["src"]] if "src" in hdr and hdr["src"] < len(cells) else ""
        # ncu's page lists a line's SASS rows twice (seen on the H200, 2026-12-01): count each
        # instruction of a line once
        if (cur_file, cur_line, cells[ai]) in seen:
            continue
        seen.add((cur_file, cur_line, cells[ai]))
        acc = sass.setdefault((cur_file, cur_line if cur_line is not None else 0), zero())
        acc["wf"] += wf
        acc["ideal"] += number(get(hdr["ideal"])) or 0.0 if "ideal" in hdr else 0.0
        if "excess" in hdr:
            acc["excess"] += number(get(hdr["excess"])) or 0.0
        if "inst" in hdr:
            has["inst"] = True
            if SHARED_OPS.match(opcode(src)):
                acc["inst"] += number(get(hdr["inst"])) or 0.0
    rows = sass if sass else direct
    if not sass:
        has["inst"] = False
    if not has["excess"]:
        for v in rows.values():
            v["excess"] = v["wf"] - v["ideal"]
    return rows, has


def ours(lines):
    out = {}
    for l in lines:
        key = (os.path.basename(l["file"]), l["line"])
        out[key] = {"inst": l["inst"], "wf": l["wavefronts"], "ideal": l["ideal"],
                    "excess": l["excess"]}
    return out


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def pick(run, kernel):
    """The last launch of `kernel` in a program's run (banklab run --json; banklab kernel on a
    file with main()), or None."""
    launch = None
    for l in (run or {}).get("launches", []):
        if l["kernel"] == kernel or l["kernel"].split("<")[0] == kernel and "<" not in kernel:
            launch = l
    return launch


def main():
    out = sys.argv[1]
    fail = 0
    report, summary = [], []

    def check(ok, text):
        nonlocal fail
        print(("ok   " if ok else "FAIL ") + text)
        if not ok:
            fail += 1
        return ok

    for raw in open(os.path.join(out, "manifest.txt")):
        raw = raw.strip()
        if not raw or raw.startswith("#"):
            continue
        prog, kernel = raw.split("|")
        run = load(os.path.join(out, "run_%s.json" % prog))
        launch = pick(run, kernel)
        if not check(launch is not None and launch["status"] == "ok",
                     "%s %s: banklab run measured it" % (prog, kernel)):
            summary.append("%-10s %-16s %s" % (prog, kernel, "banklab run: not measured"))
            continue
        csvp = os.path.join(out, "ncu_%s_%d.csv" % (prog, launch["launch"] - 1))
        try:
            theirs, has = parse_ncu(open(csvp, errors="replace").read())
        except OSError:
            theirs, has = None, {}
        kres = load(os.path.join(out, "kernel_%s_%s.json" % (prog, re.sub(r"[^A-Za-z0-9_]", "_", kernel))))
        if kres is not None and "launches" in kres:
            # a file with main() is a program: banklab kernel runs it and answers as banklab
            # run does, one entry a measured launch
            kres = pick(kres, kernel)
        row = ["%-10s %-16s" % (prog, kernel)]
        for who, res in (("banklab kernel", kres), ("banklab run", launch)):
            if not check(res is not None and res.get("lines"), "%s %s: %s has lines" % (prog, kernel, who)):
                row.append("%s: none" % who)
                continue
            mine = ours(res["lines"])
            if theirs is None:
                row.append("%s: %d lines, no ncu" % (who, len(mine)))
                continue
            keys = sorted(k for k in set(mine) | set(theirs)
                          if (mine.get(k, {}).get("wf") or theirs.get(k, {}).get("wf")))
            bad = []
            for k in keys:
                a = mine.get(k, {"inst": 0, "wf": 0, "ideal": 0, "excess": 0})
                b = theirs.get(k, {"inst": 0, "wf": 0, "ideal": 0, "excess": 0})
                report.append("%-10s %-16s %-14s %-14s %4d  inst %9.0f/%-9.0f wf %9.0f/%-9.0f "
                              "ideal %9.0f/%-9.0f excess %9.0f/%-9.0f" % (
                                  prog, kernel, who, k[0], k[1], a["inst"], b["inst"], a["wf"],
                                  b["wf"], a["ideal"] or 0, b["ideal"], a["excess"] or 0,
                                  b["excess"]))
                for f in ("wf", "ideal", "excess") + (("inst",) if has.get("inst") else ()):
                    if (a[f] or 0) != (b[f] or 0):
                        bad.append("%s:%d %s %.0f vs ncu %.0f" % (k[0], k[1], f, a[f] or 0, b[f]))
            if bad and (prog, kernel) in KNOWN:
                report.append("known difference, not counted: %s %s: %s" % (prog, kernel, KNOWN[(prog, kernel)]))
                row.append("%s: %d lines, known difference" % (who, len(keys)))
                continue
            ok = check(keys and not bad, "%s %s: %s per line = ncu (%d lines: instructions%s, "
                       "wavefronts, ideal, excess)%s" % (
                           prog, kernel, who, len(keys), "" if has.get("inst") else " (no ncu column)",
                           "; differ: " + ", ".join(bad[:4]) if bad else ""))
            row.append("%s: %d lines %s" % (who, len(keys), "= ncu" if ok else "DIFFER"))
        tot = launch["totals"]
        row.append("wavefronts %.0f excess %.0f" % (tot["wavefronts"], tot["excess"]))
        summary.append("  ".join(row))
    with open(os.path.join(out, "compare.txt"), "w") as f:
        f.write("\n".join(report) + "\n")
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write("\n".join(summary) + "\n")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
