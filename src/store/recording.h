/* recording.h: recorded GPU measurements (the output of `banklab bench --json` and
 * `banklab verify --json`, format in docs/gpu.md) read into struct gpu_record for replay, and
 * written back; lessons' quoted figures checked against one. The JSON side lives in
 * recording.c (src/store owns cJSON); this header exposes none. Depends on gpu.h (structs
 * only; no CUDA) and lesson.h. */
#ifndef BANKLAB_RECORDING_H
#define BANKLAB_RECORDING_H

#include <stddef.h>
#include <stdio.h>

#include "../base/err.h"
#include "../gpu/gpu.h"
#include "../lesson/lesson.h"

#define RECORDING_FORMAT "banklab-recording"
#define RECORDING_VERSION 1          /* files with another version are refused */

/* One row: a request, its result, and what the model predicted for it. */
struct recording_row {
    struct gpu_record rec;
    char group[32];              /* "sweep", "transpose", "case", "lesson", "h200" */
    char label[128];             /* e.g. "4 B stride 32", "lesson3/column: PAD=1 access 0" */
    int model_wavefronts;        /* model prediction per warp instruction; -1 when none */
    int model_conflicts;         /* -1 when none */
    int agree;                   /* verify: 1 model == counters, 0 not, -1 not compared */
};

struct recording {
    int version;                 /* RECORDING_VERSION */
    char device[GPU_TEXT_MAX];   /* e.g. "NVIDIA H200 (sm_90), 132 SMs, 1980 MHz" */
    char date[64];               /* UTC, ISO 8601 */
    char command[GPU_TEXT_MAX];  /* the command(s) that produced it */
    char scenes[24];             /* lesson_scenes_digest of the lessons verify measured, or "" */
    int nrows;
    struct recording_row *rows;  /* owned */
};

/* The numbers of a GPU result a recording holds, in the parts of its "result" ("timing",
 * "access_timing", "counters": the result's has_timing, has_access_timing, has_counters):
 * the one table that writing and reading recordings, the printing of a measurement
 * (src/cli/measured.c) and the check of lessons' figures use. */
enum rec_part { REC_TIMING, REC_ACCESS, REC_COUNTERS, REC_PARTS };
enum rec_kind {
    REC_SIG,                     /* a double, written to 6 significant digits */
    REC_RAW,                     /* a double, written as it is */
    REC_INT,                     /* an int */
};
struct recording_field {
    const char *name;            /* its key (and the field name a lesson's figure gives) */
    int part;                    /* enum rec_part */
    size_t off;                  /* of its value in struct gpu_result */
    int kind;                    /* enum rec_kind */
    int required;                /* a part read without it is refused */
    double lo, hi;               /* the range a value read must be in */
    int panel_pattern, panel_case; /* decimals the tutorial's panel shows it with, for a
                                      pattern and a case kernel; -1: no panel shows it */
};

/* recording_field: the entry of name, or NULL. recording_value: field name of r; NAN when r
 * failed, its part was not measured or there is no such field. */
const struct recording_field *recording_field(const char *name);
double recording_value(const struct gpu_result *r, const char *name);

/* recording_tolerance: how far a measured wavefront or conflict figure an instruction may be
 * from the model's (or from another measurement of the same access) and still be the same
 * count: 0.005; 0.05 for cp.async, whose counters come from the range profiler's LDGSTS
 * bank-conflict count, which moves by a few in 100 instructions from run to run where the
 * global sources are scattered (H200: 27.96 and 28.02 for the model's 28, CUPTI's SASS
 * counters 28.00: tests/data/h200-matrix.json, docs/runs/h200-2026-12-03-calls.md call 2). */
double recording_tolerance(const struct bank_access *a);

/* recording_init: an empty recording (version set, no rows). */
void recording_init(struct recording *r);

/* recording_add: append a row (copied). Returns 0, or -1 when out of memory. */
int recording_add(struct recording *r, const struct recording_row *row);

/* recording_load_file / _buffer: parse a recording. On success returns 0 and fills *r (free
 * with recording_done). On failure returns -1, *r is empty and err holds one line naming the
 * file and the problem: not JSON (with line:col, e.g. a truncated file), not a banklab
 * recording, a version other than RECORDING_VERSION, a field of the wrong type. */
int recording_load_file(const char *path, struct recording *r, struct bl_err *err);
int recording_load_buffer(const char *name, const char *data, size_t len, struct recording *r,
                          struct bl_err *err);

/* recording_write: write r as JSON to f. Returns 0, or -1 on a write error or out of memory. */
int recording_write(FILE *f, const struct recording *r);


/* recording_open_replay: a replay handle (gpu.h) answering from r's rows; r may be freed
 * afterwards. NULL only when out of memory. */
struct gpu *recording_open_replay(const struct recording *r, struct gpu_info *info);

void recording_done(struct recording *r);

/* One measured warp access of tests/data/h200-wavefronts.json or h200-matrix.json (installed
 * as assets/h200-wavefronts.json, assets/h200-matrix.json): what the H200's counters reported
 * (the matrix table's cp.async.cg cases are left out: the model does not cover them, and the
 * table read 0 for them; docs/model.md). */
struct hw_case {
    char name[64];
    struct bank_access access;
    int wavefronts, conflicts;   /* per warp instruction */
};

/* recording_load_hw_cases: read such a file into a new array (*cases, free with free()).
 * Returns 0, or -1 with one line in err (file, and which case and field is wrong). */
int recording_load_hw_cases(const char *path, struct hw_case **cases, int *n,
                            struct bl_err *err);

/* recording_find_asset: the path of assets file `name`: $BANKLAB_ASSETS/name, else the
 * installed share directory, else the build tree's (assets/ beside the directory of the
 * binary, build/banklab), else ./assets/name. Returns buf, or NULL when none exists. */
const char *recording_find_asset(const char *name, char *buf, size_t size);

/* The recording shipped with banklab: what an H200 measured for every lesson scene, shown
 * without a GPU unless --model-only. recording_open_shipped: a replay handle over it (info
 * filled: "recorded on <device>" and its date), or NULL with the reason in err (not found,
 * damaged, out of memory). */
#define RECORDING_SHIPPED "h200-recording.json"
struct gpu *recording_open_shipped(struct gpu_info *info, struct bl_err *err);

/* recording_check_figures: compare every quoted figure of lesson l with r: the rows must
 * exist, hold the field, and give the quoted value at its precision (3495 holds
 * 3494.5..3495.5; 2.2 holds 2.15..2.25). Calls report once per problem (lesson_problem's
 * cap) and returns the number of problems. */
int recording_check_figures(const struct recording *r, const struct lesson *l,
                            void (*report)(const struct lesson_error *e, void *ctx), void *ctx);

#endif
