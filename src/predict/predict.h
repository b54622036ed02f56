/* predict.h: the source reading of a learner's kernel, for
 * the launch of a request (grid, block, --smem, --arg): each line's shared-memory accesses as
 * the pattern language expresses them (pattern_cuda.h, with the ifs and fors around the line
 * as a guard and loop trips), evaluated for every warp of every block that executes it and
 * summed as CUPTI's SASS metrics sum them (inst, wavefronts, ideal = passes, excess). A line
 * the language cannot express gets one short reason; a conflicting line the worst pass that
 * explains it; and a fix checked with the model (predict/fix.c): padding of the array's last
 * dimension or an XOR swizzle of its column, the smallest that makes the line conflict free
 * without making another line of the array worse, then executed (exec.h) before it is
 * proposed. The figures shown are the execution's (exec.h, program.h); kp_unexecuted takes
 * the reading's away where there is no execution. Every text is a message (id and arguments,
 * base/msg.h) that the cli or the ui renders in the reader's language.
 * No GPU, no curses, no files: the model only; one caller at a time (static scratch). */
#ifndef BANKLAB_KERNEL_PREDICT_H
#define BANKLAB_KERNEL_PREDICT_H

#include <stddef.h>

#include "../compile/compile.h"
#include "../base/msg.h"
#include "../kernel/kernel.h"

#define KP_MAX_EVALS (1L << 21)     /* warp evaluations one line may take */
#define KP_MAX_TRIPS 4096           /* trips of the loops around one line */
#define KP_LOOPS 8                  /* loops around one line */
#define KP_MAX_LINES 10000          /* lines with an index translated per file */
#define KP_ARRAYS 16

enum kp_state {
    KP_NONE = 0,                    /* no shared-memory access on the line */
    KP_OK,                          /* predicted */
    KP_CANNOT,                      /* accesses the model cannot express: reason[] */
};

enum kp_fix_kind { KP_FIX_NONE = 0, KP_FIX_PAD, KP_FIX_SWIZZLE };

struct kp_line {
    int line;
    enum kp_state state;
    double inst, wavefronts, ideal, excess;
    int ways;                       /* the largest pass cost of any warp: n-way */
    char arrays[128];               /* the arrays it accesses, one space between */
    char worst[32];                 /* the array of its worst access */
    struct bl_msg reason;           /* KP_CANNOT: why not */
    struct bl_msg why;              /* excess > 0: its worst pass */
    struct bl_msg fix;              /* excess > 0: the fix note (or why none) */
    enum kp_fix_kind fix_kind;      /* the fix found, for kp_patch */
    char fix_array[64];
    int fix_pad;                    /* elements added to the last dimension */
    int fix_unchecked;              /* 1: fix says its candidates could not be executed */
    /* what the compiled code has on the line (kp_predict_sass): */
    int nsass;                      /* its shared-memory SASS instructions (-1: not known) */
    char sass[64];                  /* them, "LDS.128", "LDS.64 x2, LDS" */
    int call_line;                  /* inlined from this line of the kernel (a helper), or 0 */
    struct bl_msg compiler;         /* where the SASS differs from the source: what nvcc did */
    unsigned ops;                   /* the reading's accesses: 1 << BANK_LOAD | 1 << BANK_STORE */
};

struct kp_array {                   /* a shared array as the model laid it out */
    char name[32];
    int ndims;                      /* 0: a carved pointer or an extern array */
    long long dims[3];
    unsigned elem;                  /* bytes per element */
    int dynamic;
};

/* An executed warp of a line (kexec_apply): its addresses in the shape the GPU's sanitizer
 * route gives them (struct gpu_kernel_pattern: pc is the PTX instruction's index; slot -1 the
 * worst warp of that instruction, 0.. its first distinct patterns), with the line charged
 * and its instruction's warp executions. Per line at most KP_LINE_WARPS are kept: the worst
 * warp of each instruction first, then the first distinct patterns of each (the executor keeps
 * PTX_AGG_PATTERNS per instruction), so a result holds at most KP_LINE_WARPS x its lines of
 * them (about 320 bytes each). */
#define KP_LINE_WARPS 10
struct kp_warp {
    int line;
    double inst;                    /* executions of its instruction (warps) */
    struct gpu_kernel_pattern p;
};

struct kp_result {
    char kernel[GPU_KERNEL_TEXT];   /* the kernel predicted */
    int first, last;                /* its body's lines */
    int name_line;                  /* the line its name stands on */
    int nlines;                     /* the file's lines: line[i] is line i + 1 */
    struct kp_line *line;
    int npredicted, ncannot;
    int narrays;
    struct kp_array array[KP_ARRAYS];
    unsigned grid[3], block[3];
    unsigned long long smem;
    int sass_known;                 /* 1: the lines come from the compiled code's SASS */
    struct bl_msg sass_note;        /* sass_known 0: why not (no compiler, a compile error) */
    int nsass_lines;                /* lines with a shared SASS instruction */
    int sass_total, sass_on_lines;  /* the kernel's shared instructions; those on a line */
    /* kexec_apply (predict/exec.h): the figures of executing the kernel's PTX */
    int executed;                   /* 1: every line's figures come from the execution */
    struct bl_msg exec_note;        /* executed 0: why not (none for a file with host code) */
    unsigned long long exec_steps;  /* lane-instructions executed */
    /* kxrt_apply (predict/program.h): a file with main() run as it is */
    int main_launch;                /* the launch of main whose figures these are (1-based) */
    int main_launches;              /* main's launches of this kernel */
    int nwarps;                     /* executed warps kept per line (kexec_apply), by line */
    struct kp_warp *warps;
};

/* kp_predict_sass: every line of the request's kernel (req->name, or the only __global__
 * function) of src (len bytes) read from the source, driven by the compiled code (sass: the
 * kernel's shared-memory instructions per line, compile/compile.h; NULL: the source reading
 * alone). Returns 0 with *out filled (free it with kp_free), or -1 with err (no kernel, which
 * kernel, out of memory; NULL: no reason kept). Never prints. Its figures choose the fix
 * candidates worth executing; the figures shown are the execution's (kp_unexecuted). Every line
 * with a shared instruction is predicted or gets a reason; a predicted line without one says
 * what nvcc did (merged, removed) and predicts nothing; a line whose instructions are wider
 * or narrower than the source's accesses is predicted as the instructions nvcc emitted. */
int kp_predict_sass(const char *src, size_t len, const struct gpu_kernel_request *req,
                    const struct kp_sass *sass, struct kp_result *out, struct bl_err *err);

/* kp_patch: src with the fix of line `line` applied (a new NUL-terminated buffer, *outlen its
 * length; the lines keep their numbers), or NULL when the line has no fix or memory is out. */
char *kp_patch(const char *src, size_t len, const struct kp_result *r, int line,
               size_t *outlen);

/* kp_worst_fixable: the line with the most excess that has a fix, or 0 */
int kp_worst_fixable(const struct kp_result *r);

/* kp_unexecuted: r's figures gone when it was not executed (r->executed 0): every line
 * KP_NONE, without figures, why, fix, reason or compiler note, the counts 0; the lines'
 * SASS (nsass, sass) kept. The figures banklab shows come from executing the kernel (its
 * PTX, predict/exec.h, or main's run, predict/program.h); the source reading only finds the
 * array and the index a fix edits. r->exec_note keeps why it was not executed. */
void kp_unexecuted(struct kp_result *r);

void kp_free(struct kp_result *r);

/* kp_fmt_cell: the words a bank cell serves ("0, 32, 64, …, 992": the first three and the
 * last) into words and the lanes asking for them (as ranges, "0-31", "0, 16") into lanes: the why of a
 * pass, for the model's text and the kernel view's grid alike. */
struct bank_cell;
void kp_fmt_cell(const struct bank_cell *c, char *words, size_t wsize, char *lanes,
                 size_t lsize);

#endif
