#!/usr/bin/env python3
"""matrix_merge.py: merge the cases of tests/gpu/matrix_table.cu (list), its run without ncu and
ncu's details pages (FIRST:CSV per chunk) into the table of tests/data/h200-matrix.json.
Usage: matrix_merge.py CASES.jsonl RUN.jsonl OUT.json DEVICE NCU-VERSION FIRST:CSV..."""
import csv, json, sys
REDO = len(sys.argv) == 3 and sys.argv[1] == "--redo"
cases = [] if REDO else [json.loads(l) for l in open(sys.argv[1])]
run = [] if REDO else [json.loads(l) for l in open(sys.argv[2])]
cyc = {r["index"]: r["cycles_per_instruction"] for r in run if "index" in r}
checks = [r for r in run if "check" in r]
got = {}
for part in ([] if REDO else sys.argv[6:]):
    first, path = part.split(":", 1)
    first = int(first)
    rows = list(csv.DictReader(l for l in open(path) if l.startswith('"')))
    for r in rows:
        i = first + int(r["ID"])
        v = r["Metric Value"].replace(",", "")
        try:
            v = float(v)
        except ValueError:
            continue
        got.setdefault(i, {})[r["Metric Name"]] = v
        got[i]["kernel_name"] = r["Kernel Name"]
REPS = 100
def pick(m, *names):
    for n in names:
        if n + ".sum" in m:
            return m[n + ".sum"]
    return None
W = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
C = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared"
def summarise(ins, m):
    """Per-instruction figures from one launch's raw counter sums m (name.sum -> value)."""
    S = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"
    SC = "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_"
    if ins == "ldmatrix":
        n = pick(m, "smsp__sass_inst_executed_op_ldsm", "smsp__inst_executed_op_ldsm")
        wf = pick(m, S + "ldsm", W + "_op_ld")
        cf = pick(m, SC + "ldsm", C + "_op_ld")
    elif ins == "stmatrix":
        n = pick(m, "smsp__sass_inst_executed_op_shared_stsm", "smsp__sass_inst_executed_op_stsm",
                 "smsp__inst_executed_op_stsm")
        wf = pick(m, S + "stsm", W + "_op_st")
        cf = pick(m, SC + "stsm", C + "_op_st")
    elif ins == "cp.async":
        n = pick(m, "smsp__sass_inst_executed_op_ldgsts", "smsp__inst_executed_op_ldgsts")
        wf = pick(m, S + "ldgsts")
        cf = pick(m, SC + "ldgsts", C + "_op_ldgsts")
    elif ins == "ld.shared":
        n = pick(m, "smsp__sass_inst_executed_op_shared_ld", "smsp__inst_executed_op_shared_ld")
        wf, cf = pick(m, W + "_op_ld"), pick(m, C + "_op_ld")
    else:
        n = pick(m, "smsp__sass_inst_executed_op_shared_st", "smsp__inst_executed_op_shared_st")
        wf, cf = pick(m, W + "_op_st"), pick(m, C + "_op_st")
    sw = pick(m, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared")
    div = n if n else REPS
    per = lambda x: None if x is None else round(x / div, 3)
    return dict(instructions=n, wavefronts=per(wf), conflicts=per(cf), sass_wavefronts=per(sw))

if len(sys.argv) == 3 and sys.argv[1] == "--redo":
    # recompute the per-instruction figures of a table from its raw counters
    doc = json.load(open(sys.argv[2]))
    for rec in doc["cases"]:
        if rec.get("measured"):
            rec.pop("sass_ideal_wavefronts", None)
            rec.update(summarise(rec["instruction"], rec["counters"]))
    with open(sys.argv[2], "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    sys.exit(0)

out = []
for c in cases:
    i = c["index"]
    m = got.get(i)
    rec = {k: c[k] for k in ("name", "instruction", "variant", "width", "mask", "layout", "offsets")}
    if "global_offsets" in c:
        rec["global_offsets"] = c["global_offsets"]
    rec["cycles_per_instruction"] = cyc.get(i)
    if not m:
        rec["measured"] = False
        out.append(rec)
        continue
    rec["measured"] = True
    rec.update(summarise(c["instruction"], m))
    rec["counters"] = {k: v for k, v in sorted(m.items()) if k != "kernel_name"}
    out.append(rec)
doc = {
    "device": sys.argv[4] + " (sm_90); " + sys.argv[5],
    "method": "tests/gpu/matrix_table.sh: one warp executes the instruction 100 times at fixed "
              "per-lane byte offsets (tests/gpu/matrix_table.cu); ncu --clock-control none counts "
              "each launch; wavefronts and conflicts are per warp instruction (the counter divided by "
              "the instructions executed)",
    "usage": "python3 tests/gpu/matrix_merge.py --redo TABLE recomputes the per-instruction figures from the raw counters",
    "fields": "instruction, variant (x1/x2/x4[.trans] b16 for ldmatrix/stmatrix; ca/cg and bytes for "
              "cp.async; the PTX vector for ld/st.shared controls); width: bytes per lane row or access; "
              "mask: active lanes; offsets: the byte offset each lane supplies (32 entries; for ldmatrix/"
              "stmatrix lane 8i+j gives row j of matrix i, lanes past 8*x are ignored by the hardware); "
              "wavefronts/conflicts per instruction: smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"
              "{ldsm,stsm,ldgsts} and smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_{ldsm,stsm,"
              "ldgsts} (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st} and l1tex__data_bank_conflicts_"
              "pipe_lsu_mem_shared_op_{ld,st} for the ld/st.shared controls); sass_wavefronts: "
              "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared per instruction (what banklab kernel shows "
              "per line); counters: the raw sums",
    "checks": checks,
    "cases": out,
}
with open(sys.argv[3], "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
meas = [r for r in out if r.get("measured")]
print("table: %d cases, %d measured" % (len(out), len(meas)))
for r in out:
    print("%-28s %-9s %-9s wf %-7s cf %-7s sass %-7s cyc %s" % (
        r["name"], r["instruction"], r["variant"], r.get("wavefronts"), r.get("conflicts"),
        r.get("sass_wavefronts"), r.get("cycles_per_instruction")))
