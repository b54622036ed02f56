/* kgrid.h: the kernel view's warp grid (kgrid.c): a line's kept warps, measured or executed,
 * gathered from the view's result or prediction and shown one at a time in the bank grid. */
#ifndef BANKLAB_UI_KGRID_H
#define BANKLAB_UI_KGRID_H

#include "kview.h"

#define KG_WARPS 32                 /* warps of one line shown (each instruction's worst and
                                       distinct patterns: 5 per instruction kept) */

struct kg_warp {
    struct gpu_kernel_pattern p;
    double of;                      /* warp executions of its instruction */
    int each;                       /* an atomic served lane by lane (ATOMS) */
    int cg;                         /* cp.async.cg (LDGSTS.BYPASS): priced by .cg's rule */
    char name[32];                  /* its instruction: "LDS.128" (GPU), "ld 16 B" (executed) */
    int seq;
};

struct kg_list {
    int line;
    int measured;                   /* 1: the GPU's sanitizer route; 0: executed on the CPU */
    int n;
    struct kg_warp w[KG_WARPS];
};

/* kgrid_open: show row's warps on the grid screen: 0 (shown), 1 when the line has none (the
 * caller keeps its own Enter), -1 when it could not be shown */
int kgrid_open(struct app *a, const struct kview *k, const struct kv_row *row);

#endif
