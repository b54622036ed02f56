/* sanitize.h: the sanitizer route's host side that needs no GPU: a launch's table (table.h),
 * as the device callbacks left it, into rows per instruction (pc offset in the kernel's code,
 * kind, executions, wavefronts, passes) and its patterns checked against the bank model
 * (src/model/bank.h); the patterns written as text lines (BANKLAB_RUN_DIR/patterns,
 * tests/data/sanitize). Pure C: libc, base, model. The injection library (san_inject.c) and
 * the tests use it. */
#ifndef BANKLAB_SANITIZE_H
#define BANKLAB_SANITIZE_H

#include <stdint.h>
#include <stdio.h>

#include "../model/bank.h"
#include "cost.h"
#include "table.h"

struct san_row {
    uint32_t pc;                 /* byte offset in the kernel's code */
    int op;                      /* enum gpu_kernel_op: LD, ST, ATOM, LDSM, STSM, LDGSTS */
    double inst, wavefronts, ideal;
    double wavefronts_alt;       /* by the other rule: an atomic with every lane's word on its
                                    own (ATOMS, ATOMS.CAS); a 16-byte cp.async by .cg's */
    double ideal_alt;            /* the ideal by that rule */
};

struct san_check {
    int patterns;                /* stored patterns checked with bank_simulate */
    int mismatch;                /* of them, costed otherwise by the model */
    uint32_t first_pc;           /* offset of the first mismatch */
    unsigned long long outside;  /* executions at pcs outside [pc0, pc0 + size) */
};

/* san_table_rows: the used entries of t whose pc lies in the kernel's code [pc0, pc0 + size)
 * as rows (at most max, sorted by pc), their patterns checked into *chk. Returns the count. */
int san_table_rows(const struct san_table *t, uint64_t pc0, uint64_t size, struct san_row *rows,
                   int max, struct san_check *chk);

/* san_pattern_access: a stored pattern as the model's access (for bank_simulate and the grid). */
void san_pattern_access(const struct san_pat *p, struct bank_access *acc);

/* san_write_patterns: one line per stored pattern of t:
 *   KERNEL LAUNCH PC SLOT COUNT WAVEFRONTS KIND WIDTH MATRICES MASK BX BY BZ WARP A0..A31 [S0..S31]
 *   [ALT]
 * (SLOT "w" for the worst warp; PC an offset; addresses in hex; S only for cp.async; ALT, the
 * wavefronts by the other rule: an atomic's with every lane on its own, a 16-byte cp.async's
 * by .cg's rule; only for those two). banklab never reads them
 * back: the tests do (tests/unit/sanpat_test.h), from tests/gpu's recordings. */
void san_write_patterns(FILE *f, const char *kernel, long launch, const struct san_table *t,
                        uint64_t pc0, uint64_t size);

#endif
