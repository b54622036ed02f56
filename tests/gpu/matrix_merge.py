#!/usr/bin/env python3
"""matrix_merge.py: merge the cases of tests/gpu/matrix_table.cu (list), its run without ncu and
ncu's details pages (FIRST:CSV per chunk) into the table of tests/data/h200-matrix.json.
Usage: matrix_merge.py CASES.jsonl RUN.jsonl OUT.json DEVICE NCU-VERSION FIRST:CSV..."""
import csv, json, sys
cases = [json.loads(l) for l in open(sys.argv[1])]
run = [json.loads(l) for l in open(sys.argv[2])]
cyc = {r["index"]: r["cycles_per_instruction"] for r in run if "index" in r}
checks = [r for r in run if "check" in r]
got = {}
for part in sys.argv[6:]:
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
    ins = c["instruction"]
    if ins == "ldmatrix":
        n = pick(m, "smsp__sass_inst_executed_op_ldsm", "smsp__inst_executed_op_ldsm")
        wf = pick(m, W + "_op_ldsm", W + "_op_ld")
        cf = pick(m, C + "_op_ldsm", C + "_op_ld")
    elif ins == "stmatrix":
        n = pick(m, "smsp__sass_inst_executed_op_shared_stsm", "smsp__sass_inst_executed_op_stsm",
                 "smsp__inst_executed_op_stsm")
        wf = pick(m, W + "_op_stsm", W + "_op_st")
        cf = pick(m, C + "_op_stsm", C + "_op_st")
    elif ins == "cp.async":
        n = pick(m, "smsp__sass_inst_executed_op_ldgsts", "smsp__inst_executed_op_ldgsts")
        wf = pick(m, W + "_op_ldgsts")
        cf = pick(m, C + "_op_ldgsts")
    elif ins == "ld.shared":
        n = pick(m, "smsp__sass_inst_executed_op_shared_ld", "smsp__inst_executed_op_shared_ld")
        wf, cf = pick(m, W + "_op_ld"), pick(m, C + "_op_ld")
    else:
        n = pick(m, "smsp__sass_inst_executed_op_shared_st", "smsp__inst_executed_op_shared_st")
        wf, cf = pick(m, W + "_op_st"), pick(m, C + "_op_st")
    sw = pick(m, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared")
    ideal = pick(m, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal")
    div = n if n else REPS
    per = lambda x: None if x is None else round(x / div, 3)
    rec.update(measured=True, instructions=n, wavefronts=per(wf), conflicts=per(cf),
               sass_wavefronts=per(sw), sass_ideal_wavefronts=per(ideal),
               counters={k: v for k, v in sorted(m.items()) if k != "kernel_name"})
    out.append(rec)
doc = {
    "device": sys.argv[4] + " (sm_90); " + sys.argv[5],
    "method": "tests/gpu/matrix_table.sh: one warp executes the instruction 100 times at fixed "
              "per-lane byte offsets (tests/gpu/matrix_table.cu); ncu --clock-control none counts "
              "each launch; wavefronts and conflicts are per warp instruction (the counter divided by "
              "the instructions executed)",
    "fields": "instruction, variant (x1/x2/x4[.trans] b16 for ldmatrix/stmatrix; ca/cg and bytes for "
              "cp.async; the PTX vector for ld/st.shared controls); width: bytes per lane row or access; "
              "mask: active lanes; offsets: the byte offset each lane supplies (32 entries; for ldmatrix/"
              "stmatrix lane 8i+j gives row j of matrix i, lanes past 8*x are ignored by the hardware); "
              "wavefronts/conflicts: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_* and "
              "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_* per instruction; sass_wavefronts: "
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
    print("%-28s %-9s %-9s wf %-7s cf %-7s sass %-7s ideal %-6s cyc %s" % (
        r["name"], r["instruction"], r["variant"], r.get("wavefronts"), r.get("conflicts"),
        r.get("sass_wavefronts"), r.get("sass_ideal_wavefronts"), r.get("cycles_per_instruction")))
