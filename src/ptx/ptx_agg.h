/* ptx_agg.h: the executed shared-memory accesses of a launch (ptx_run's records) priced by the
 * bank model (bank_simulate, src/model/bank.h) and summed per PTX instruction and per source
 * line as CUPTI's SASS metrics sum them: instructions (warp executions), wavefronts, ideal
 * (the passes a conflict-free access takes) and conflicts (wavefronts - ideal); for each
 * instruction its worst warp's addresses and the first distinct address patterns with their
 * counts (for the grid). Pure C over ptx and model; no files, no printing. */
#ifndef BANKLAB_PTX_AGG_H
#define BANKLAB_PTX_AGG_H

#include "ptx.h"

#define PTX_AGG_PATTERNS 4

/* which source frame a line is charged to */
enum ptx_agg_charge {
    PTX_CHARGE_OWN = 0,        /* the instruction's own .loc, a header's line too (what the
                                  hardware's line table and the H200 figures give) */
    PTX_CHARGE_LEARNER_INNER,  /* the innermost frame outside the toolkit's include
                                  directories: a helper's own line, a header call's call site */
    PTX_CHARGE_LEARNER_OUTER,  /* the outermost such frame: a helper's accesses at its call */
};

struct ptx_agg_pattern {
    uint32_t mask;
    uint32_t addr[32];         /* the first such warp's (lanes off the mask: 0) */
    uint32_t src[32];          /* cp.async: their global sources */
    uint64_t count;            /* warp executions with these addresses, or all of them a
                                  whole number of words apart (the same banks, rotated: as
                                  the sanitizer route's patterns count) */
    int wavefronts;
    unsigned char width;       /* bytes per lane (after merging) */
    unsigned block[3], warp;   /* the first warp with it */
};

struct ptx_agg_pc {
    unsigned pc, loc;
    unsigned char kind, width, matrices, trans;  /* the last record's (enum ptx_akind) */
    unsigned char bypass;      /* cp.async.cg */
    double inst, wavefronts, ideal, conflicts;
    int ways;                  /* the largest pass cost of any execution */
    int bad;                   /* executions the model refused (misaligned, ...) */
    int unmodelled;            /* executions the model has no rule for */
    /* the worst warp: the first execution with the most wavefronts (wavefronts -1 before any;
     * count unused; addr as executed, lanes off the mask too) */
    struct ptx_agg_pattern worst;
    int line;                  /* after ptx_agg_lines: its index in lines */
    int npat;                  /* distinct patterns kept (at most PTX_AGG_PATTERNS) */
    uint64_t other;            /* executions of patterns beyond them */
    struct ptx_agg_pattern pat[PTX_AGG_PATTERNS];
};

struct ptx_agg_line {
    const char *file;          /* the module's path of the frame charged */
    unsigned line;
    double inst, wavefronts, ideal, conflicts;
    int ways;
    int npcs;                  /* its shared instructions */
    int worst_pc;              /* the index into pcs of its instruction with most conflicts */
    unsigned op_mask;          /* 1 << enum ptx_akind of its instructions */
    int unmodelled;            /* executions without a price, bad ones too */
};

struct ptx_agg {
    const struct ptx_module *m;
    int npcs;                  /* shared instructions executed, in PC order after finish */
    struct ptx_agg_pc *pcs;
    int nlines;
    struct ptx_agg_line *lines;
    /* merging, as ptxas merges side-by-side accesses into one wider instruction: merge[2 * pc
       + (0 load, 1 store)] is the widest access that pc's records may grow to (0: none) */
    unsigned char *merge;
    /* own[2 * pc + st]: the widest access the compiled code has on pc's own line where a
       record may grow past it into a later line's wider one (0: no such limit) */
    unsigned char *own;
    /* internal */
    struct ptx_access *pend;   /* per warp of the block: a record held to merge with the next */
    uint64_t *has_pend;        /* 0: none held; else when it came (a->tick) */
    uint64_t tick;
    int k;                     /* the kernel */
    int *canon;                /* per PC: its address's base register as base_reg finds it */
    unsigned char *palign;     /* per PC: its address's provable alignment (0: not yet known) */
    int ninsn;
    int *slot;                 /* per PC: index in pcs, -1 */
    unsigned char *live;       /* per PC of a vector load: its elements read (0: all) */
    int cap;
    int oom;
};

/* ptx_agg_init: an empty aggregation for kernel k of m; 0 or -1 (out of memory) */
int ptx_agg_init(struct ptx_agg *a, const struct ptx_module *m, int k);
/* ptx_agg_merge: records of pc (a load: store 0, a store: 1) may merge up to width bytes with
 * the same warp's next records when those continue every lane's bytes side by side at an
 * address aligned to the sum (what ptxas does when it can prove it: a caller that has the
 * SASS says which lines it did it on). 0 or -1 (out of memory) */
int ptx_agg_merge(struct ptx_agg *a, unsigned pc, int store, unsigned width);
/* ptx_agg_orphan: pc's line has no instruction of its own in the compiled code: a record of
 * pc that merges with a later one is charged to the later one's pc (and line) */
int ptx_agg_orphan(struct ptx_agg *a, unsigned pc);
/* one line of the learner's file in the compiled code: its shared-memory instructions there
 * (n) and the widest LDS (width[0]) and STS (width[1]) among them, in bytes */
struct ptx_agg_sass { unsigned line; int n; unsigned char width[2]; };
/* ptx_agg_caps: merging as ptxas merged on kernel k, from the compiled code's lines of the file
 * `named` (w: nw of them, every line of it with a shared instruction; any other line of it has
 * none): a line with an access wider than 4 bytes lets its records merge up to that width, a
 * line with none lets them merge as the next line's (ptx_agg_orphan), and a line whose next
 * line has a wider one lets them grow into it, charged there (ptxas's STS.64 on the second of
 * two lines storing side by side); frames charged as
 * PTX_CHARGE_LEARNER_INNER with sysdirs. 0 or -1 (out of memory) */
int ptx_agg_caps(struct ptx_agg *a, const struct ptx_module *m, int k, const char *named,
                 const char *const *sysdirs, const struct ptx_agg_sass *w, int nw);
/* ptx_agg_frame: the frame a loc is charged to (see ptx_agg_lines) */
struct ptx_frame ptx_agg_frame(const struct ptx_module *m, unsigned loc, enum ptx_agg_charge c,
                               const char *const *sysdirs);
/* ptx_agg_sink: a ptx_sink (ctx: the struct ptx_agg) */
void ptx_agg_sink(void *ctx, const struct ptx_access *r);
/* ptx_agg_lines: the per-line sums, charged as c; sysdirs: path prefixes of the toolkit's
 * include directories (NULL-terminated; NULL: any path with "/cuda" and "/include/" in it);
 * a path nvcc names from its own directory (".../bin/../targets/...") is the toolkit's too.
 * 0 or -1 (out of memory, or a record was lost to it) */
int ptx_agg_lines(struct ptx_agg *a, enum ptx_agg_charge c, const char *const *sysdirs);
void ptx_agg_free(struct ptx_agg *a);

#endif
