/* ptx.h: a learner's CUDA program executed, not read. nvcc's PTX (-ptx -lineinfo) is parsed
 * once into a compact instruction array per kernel and executed on the CPU block by block,
 * each block's warps in lockstep groups of 32 lanes (ptx_exec.c states the reconvergence rule);
 * every shared-memory access of a warp is handed to the caller as one record, for the bank
 * model (src/model/bank.h) to price. Pure C: libc, base and model only; no CUDA, no curses.
 * f16, bf16 and their pairs (ptx_half.c), mbarrier and wmma m16n16k16 with f16 inputs and f32
 * accumulators (ptx_mem.c) are run. Not executed (ptx_run names the instruction and its line
 * when one runs): calls (but printf's vprintf, which prints nothing), mma/wgmma and wmma's
 * other shapes and types, tf32, tex/surf, mbarrier's transaction counts, cp.async.bulk and
 * TMA, bar.red, 128-bit types. */
#ifndef BANKLAB_PTX_H
#define BANKLAB_PTX_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../base/err.h"

struct ptx_module;                                   /* the parsed PTX of one compilation unit */
struct ptx_module *ptx_module_parse(const char *text, size_t len, struct bl_err *err);
void ptx_module_free(struct ptx_module *m);
int ptx_kernel_count(const struct ptx_module *m);
const char *ptx_kernel_name(const struct ptx_module *m, int k);          /* mangled */
int ptx_kernel_find(const struct ptx_module *m, const char *mangled);    /* -1: none */
int ptx_kernel_nparams(const struct ptx_module *m, int k);
enum ptx_akind { PTX_LD = 0, PTX_ST, PTX_ATOM, PTX_LDSM, PTX_STSM, PTX_CPASYNC };
struct ptx_access {                  /* one warp's shared-memory instruction, as executed */
    unsigned loc;                    /* ptx_loc(): its source position and inlined-at chain */
    unsigned pc;                     /* the instruction's index in its kernel */
    unsigned char width;             /* bytes per lane: 1, 2, 4, 8, 16 */
    unsigned char kind;              /* enum ptx_akind */
    uint32_t mask;                   /* active lanes */
    uint32_t addr[32];               /* byte offset in the block's shared window, per lane */
    unsigned block[3], warp;         /* which block, which warp of it */
    /* additions to the agreed header: */
    unsigned char matrices;          /* PTX_LDSM/PTX_STSM: 1, 2 or 4 (.x1/.x2/.x4) */
    unsigned char trans;             /* PTX_LDSM/PTX_STSM: .trans */
    uint32_t src[32];                /* PTX_CPASYNC: low 32 bits of each lane's global source */
    unsigned char bypass;            /* PTX_CPASYNC: .cg (LDGSTS.BYPASS), not .ca */
};
struct ptx_frame { const char *file; unsigned line, col; };
/* ptx_loc: the source frames of loc, innermost first (the instruction's own line, then each
 * inlined-at call site); returns how many (at most max). */
int ptx_loc(const struct ptx_module *m, unsigned loc, struct ptx_frame *out, int max);
typedef void (*ptx_sink)(void *ctx, const struct ptx_access *a);
struct ptx_launch {
    unsigned grid[3], block[3];
    size_t dyn_smem;                 /* dynamic shared bytes */
    void **args;                     /* as cudaLaunchKernel: args[i] points at parameter i */
    uint64_t max_blocks;             /* 0: every block; else at most this many, evenly sampled */
    ptx_sink sink; void *ctx;        /* every shared access of every executed warp */
    /* global memory: 64-bit addresses are host addresses the caller owns (a child process
       with limits); global_ok (NULL: any) vets each access range */
    int (*global_ok)(void *ctx, uint64_t addr, size_t n);
    /* additions to the agreed header: */
    uint64_t max_steps;              /* warp instructions one block may execute before it is
                                        called endless; 0: PTX_MAX_STEPS */
    uint64_t *lane_steps;            /* NULL, or receives the lane-instructions executed */
    const atomic_int *stop;          /* NULL, or the run ends between blocks (-1, err left as
                                        it was) once it turns non-zero */
};
#define PTX_MAX_STEPS (UINT64_C(1) << 25)  /* about 1e9 lane-instructions: seconds */
/* ptx_run: executes kernel k with l; 0, or -1 with err naming the PTX instruction and its
 * source line that could not be executed (an unsupported opcode, a fault, a barrier deadlock). */
int ptx_run(const struct ptx_module *m, int k, const struct ptx_launch *l, struct bl_err *err);

/* additions: */
/* ptx_kernel_static_smem: bytes of kernel k's static .shared variables as laid out
 * (declaration order, each at its .align; ptx_parse.c) */
size_t ptx_kernel_static_smem(const struct ptx_module *m, int k);
/* ptx_kernel_ninsn: kernel k's instructions; ptx_insn_loc: the loc of its instruction pc */
int ptx_kernel_ninsn(const struct ptx_module *m, int k);
unsigned ptx_insn_loc(const struct ptx_module *m, int k, unsigned pc);
/* the generic windows: a generic address in [PTX_SHARED_WIN, + 2^32) is the shared offset
 * address - PTX_SHARED_WIN (cvta.shared), likewise local; no host address is ever there */
#define PTX_SHARED_WIN UINT64_C(0xF000000000000000)
#define PTX_LOCAL_WIN UINT64_C(0xE000000000000000)

#endif
