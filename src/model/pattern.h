/* pattern.h: the access-pattern language (docs/model.md). CUDA-like text in, per-lane
 * byte offsets out (a struct bank_access for the bank model). Pure C: libc and src/base only.
 *
 * A pattern is one string of statements separated by ';':
 *   typedef float T;                                 (optional type aliases, used to cycle types)
 *   __shared__ float tile[32][32 + PAD];             (static arrays, 1-3 dimensions)
 *   __shared__ struct { float x, y, z; } p[256];     (AoS: structs of floats/ints)
 *   extern __shared__ char smem[];                   (dynamic shared memory, size from the env)
 *   float *prices = (float *)smem;                   (typed pointers carved from it)
 *   double *vols = (double *)(prices + N);
 *   int row = tid / 32;                              (integer locals, evaluated per lane)
 *   tile[threadIdx.x][threadIdx.y + j]               (an access: a load)
 *   float v = s[lane * 2];                           (a load into a local)
 *   s[lane * 32] = 1.0f                              (a store)
 *   if (lane < 16) s[lane * 32]                      (a guarded access: other lanes inactive)
 * Declarations come before the accesses that use them; a pattern has 1..PATTERN_MAX_ACCESSES
 * accesses. Names: threadIdx.x/y/z, blockDim.x/y/z, lane, warp, tid, parameters from the env,
 * locals. Integer expressions: + - * / % << >> & | ^ ~ ! comparisons && || ?: () min() max(),
 * in 64-bit signed arithmetic with overflow, division by zero and bad shifts reported.
 * The rules in detail (types, statements, pointers, locals, layout, limits): docs/model.md,
 * "The language in detail". */
#ifndef BANKLAB_PATTERN_H
#define BANKLAB_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"
#include "../base/msg.h"
#include "bank.h"

#define PATTERN_MAX_ACCESSES 8
#define PATTERN_MAX_PARAMS 16
#define PATTERN_MAX_ARRAYS 16          /* shared arrays + carved pointers */
#define PATTERN_NAME_MAX 32
#define PATTERN_MSG_MAX 256
#define PATTERN_MAX_DEPTH 64           /* expression nesting limit ("nesting too deep") */
#define PATTERN_STATIC_LIMIT 49152     /* bytes of static __shared__ per block */
#define PATTERN_DEFAULT_SMEM_LIMIT 232448 /* sm_90: 227 KiB per block with the opt-in attribute */
#define PATTERN_TEXT_MAX 65536         /* longest pattern text in bytes */

/* Errors: struct bl_err (src/base/err.h), the first error wins. where.at is 1-based into the
 * pattern text (0 when not tied to a place), where.len the columns to underline, where.lane
 * the lane whose evaluation failed (-1 at parse time); bl_err_text renders it in either
 * language. */

struct pattern_param {
    char name[PATTERN_NAME_MAX];
    long long value;
};

/* Everything outside the text that decides the offsets. */
struct pattern_env {
    unsigned block[3];       /* blockDim.x/y/z; default 32 x 1 x 1 */
    unsigned warp;           /* which warp of the block to evaluate (lanes 32w..32w+31) */
    int nparams;
    struct pattern_param param[PATTERN_MAX_PARAMS];
    uint64_t dyn_bytes;      /* dynamic shared memory size (third launch parameter) */
    uint64_t smem_limit;     /* device limit for static + dynamic bytes per block */
};

enum pattern_kind { PATTERN_LOAD = 0, PATTERN_STORE = 1 };

/* What the parser learned about one access, for display. */
struct pattern_access_info {
    enum pattern_kind kind;
    unsigned width;                  /* bytes per lane: 1, 2, 4, 8, 16 (16: a matrix row) */
    int instr;                       /* enum bank_instr: 0 for a plain load or store;
                                        ldmatrix.xN(...) / stmatrix.xN(...) / cp.asyncW(...) */
    int matrices, trans;             /* ldmatrix/stmatrix: .x1/.x2/.x4 and .trans */
    char array[PATTERN_NAME_MAX];    /* the array or pointer name */
    char type[PATTERN_NAME_MAX];     /* C name of the accessed element type, e.g. "float4" */
    int col, len;                    /* where the access statement stands in the text */
};

/* One shared array or carved pointer, as laid out. */
struct pattern_array_info {
    char name[PATTERN_NAME_MAX];
    char type[PATTERN_NAME_MAX];     /* element type name */
    unsigned elem_size;              /* bytes per element */
    int ndims;                       /* 0 for a carved pointer or extern array */
    long long dims[3];
    uint64_t base;                   /* byte offset in the block's shared memory */
    uint64_t bytes;                  /* size (0 for extern / pointers) */
    int dynamic;                     /* 1 for extern arrays and pointers carved from them */
};

/* The arrays of a pattern as laid out for one environment and access (pattern_eval fills it),
 * in declaration order: static arrays each at the next multiple of its alignment, extern
 * arrays where dynamic memory starts, carved pointers where lane 0 first carved them (base 0
 * when the access comes before their declaration). */
struct pattern_layout {
    int narrays;
    struct pattern_array_info array[PATTERN_MAX_ARRAYS];
};

struct pattern;  /* opaque: a parsed pattern */

/* pattern_env_init: block 32x1x1, warp 0, no params, dyn_bytes 0, default smem limit. */
void pattern_env_init(struct pattern_env *env);

/* pattern_env_set: set (or add) a parameter. Returns 0, or -1 when the table is full or the
 * name is longer than PATTERN_NAME_MAX-1. */
int pattern_env_set(struct pattern_env *env, const char *name, long long value);

/* pattern_parse: parse text. On success returns 0 and *out owns a new pattern (free it with
 * pattern_free). On a syntax error returns -1, *out is NULL and err is filled. Names that are
 * neither builtins, declared nor locals are taken as parameters; they are checked against
 * the env at evaluation. Never prints, never exits; total for every input (no crash or hang). */
int pattern_parse(const char *text, struct pattern **out, struct bl_err *err);

void pattern_free(struct pattern *p);

/* Number of accesses (>= 1 for a parsed pattern) and their descriptions. */
int pattern_access_count(const struct pattern *p);
const struct pattern_access_info *pattern_access(const struct pattern *p, int i);

/* Parameter names the text uses (unknown names), in order of first use. Pointers stay valid
 * until pattern_free. */
int pattern_param_count(const struct pattern *p);
const char *pattern_param_name(const struct pattern *p, int i);

/* pattern_eval: compute access number `which` of warp env->warp into *acc (width, op, mask,
 * offsets). Lanes whose tid is outside the block, or whose guard is false, are inactive.
 * When layout is not NULL, the arrays as laid out for env are written there (on success only;
 * on failure it is left as it was). Reads p only: one pattern may be evaluated for any envs
 * and accesses in any order, and results do not depend on earlier calls.
 * Returns 0, or -1 with err filled: unknown name (a parameter missing from env), division
 * by zero, overflow, index out of bounds (names lane, index, dimension and bound), misaligned
 * access or carved pointer, array larger than the device limit, dynamic access past dyn_bytes. */
int pattern_eval(const struct pattern *p, const struct pattern_env *env, int which,
                 struct bank_access *acc, struct pattern_layout *layout,
                 struct bl_err *err);

/* pattern_substitute: copy text into buf (size bytes, always NUL-terminated) with each
 * parameter name that env defines replaced by its value, e.g. "32 + PAD" -> "32 + 1".
 * Returns the length written, or -1 if it did not fit (buf then holds a truncated copy). */
int pattern_substitute(const char *text, const struct pattern_env *env, char *buf, size_t size);

/* pattern_error_caret: format "  <text>\n  <spaces>^~~~\n" for an error with col > 0 into
 * buf; returns buf. For single-line patterns. */
char *pattern_error_caret(const char *text, const struct bl_err *err, char *buf,
                          size_t size);

#endif
