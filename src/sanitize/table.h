/* table.h: what the Compute Sanitizer's device callbacks (src/sanitize/patch/patch.cu) sum
 * per shared-memory instruction of one launch, in device memory, and what the injection
 * library copies back: per pc the warp-level executions, wavefronts and passes (ideal), and
 * the first distinct warp patterns with their counts plus the worst one seen (by each rule, where
 * the SASS may name one of two). A pattern is a
 * warp's lanes, their shared byte offsets (and cp.async's global sources) as executed; two
 * warps whose offsets differ by a multiple of 128 bytes share a pattern (same banks, same
 * words apart). C and CUDA; fixed sizes (the table is copied as it is). No libc. */
#ifndef BANKLAB_SANITIZE_TABLE_H
#define BANKLAB_SANITIZE_TABLE_H

#include <stdint.h>

#define SAN_PCS 512          /* shared instructions of one kernel that are told apart */
#define SAN_PATS 4           /* distinct patterns kept per instruction (first seen) */
#define SAN_WORST SAN_PATS   /* pat[SAN_WORST]: the costliest warp seen */
#define SAN_WORST_ALT (SAN_PATS + 1) /* pat[SAN_WORST_ALT]: the costliest by the other rule
                                        (an atomic lane by lane, a 16-byte cp.async as .cg),
                                        for an instruction whose SASS names that rule */

struct san_pat {
    uint64_t key;            /* 0: empty; else a hash of the normalised pattern */
    uint32_t count;          /* warps with this pattern */
    uint32_t wavefronts;     /* of one such warp (by cost.h) */
    uint32_t mask;           /* active lanes */
    uint32_t width;          /* bytes per lane (16: a matrix row) */
    uint32_t kind;           /* enum san_kind */
    uint32_t matrices;       /* ldmatrix/stmatrix: 1, 2 or 4 */
    uint32_t block[3];       /* the first warp with it: its block */
    uint32_t warp;           /* and its warp in the block (linear thread index / 32) */
    uint32_t ready;          /* 1 once addr/src are written */
    uint32_t wavefronts_alt; /* by the other rule: an atomic with every lane's word on its own
                                (SAN_ATOM_EACH), a 16-byte cp.async by .cg's (san_cg_cost) */
    uint32_t addr[32];       /* shared byte offsets (as executed, not normalised) */
    uint32_t src[32];        /* cp.async: global source address (low 32 bits) */
};

struct san_pc {
    uint64_t pc;             /* 0: empty; else the callback's pc + 1 */
    unsigned long long inst; /* warp-level executions */
    unsigned long long wavefronts;
    unsigned long long ideal;/* passes with an active lane */
    unsigned long long wavefronts_alt; /* by the other rule (san_pat's); else = wavefronts */
    unsigned long long ideal_alt;      /* the ideal by that rule (.cg's: its chunks' bytes) */
    uint32_t kind, width, matrices;
    uint32_t others;         /* warps whose pattern found no free slot */
    struct san_pat pat[SAN_PATS + 2];
};

struct san_table {
    uint32_t overflow;       /* warp instructions of pcs beyond SAN_PCS (not counted) */
    uint32_t magic;          /* SAN_MAGIC once a callback ran */
    uint64_t pad;
    struct san_pc pc[SAN_PCS];
};

#define SAN_MAGIC 0xba5eb17au

#endif
