/* ptx_exec.h: one block's execution state, shared by ptx_exec.c (blocks, warps, control flow,
 * barriers), ptx_ops.c (arithmetic, logic, conversions) and ptx_mem.c (memory and warp-wide
 * instructions). A warp's registers are slot-major: r[slot * 32 + lane]. */
#ifndef BANKLAB_PTX_EXEC_H
#define BANKLAB_PTX_EXEC_H

#include "ptx_internal.h"

struct ptx_warp {
    uint64_t *r;
    unsigned pc[32];
    uint32_t live;          /* lanes that exist and have not exited */
    uint32_t waiting;       /* lanes at a barrier */
    uint8_t bar[32];        /* the barrier each waiting lane waits at */
    unsigned gpc;           /* the group being run: its pc and lanes */
    uint32_t gmask;
    int id;
};

struct ptx_blk {
    const struct ptx_module *m;
    const struct ptx_kernel *k;
    const struct ptx_launch *l;
    struct bl_err *err;
    unsigned char *smem;
    uint64_t smem_size;
    unsigned char *param;
    unsigned char *local;   /* local_bytes per thread, thread-major */
    unsigned blk[3];
    int nthreads, nwarps;
    struct ptx_warp *w;
    uint64_t steps, lane_steps, clock;
    int exited;             /* threads of the block that have exited */
    unsigned bar_count[16]; /* threads arrived at each barrier */
    unsigned bar_expect[16]; /* the count each was last waited for with (0: all) */
    struct ptx_access rec;
    int yield;              /* the warp's turn ends after this instruction (a barrier wait) */
};

/* ptx_alu: an arithmetic, logic, conversion or comparison instruction for the lanes of mask;
 * 1 when in->op is not one of them */
int ptx_alu(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask);
/* ptx_half: an arithmetic instruction or cvt on f16, bf16, f16x2 or bf16x2 (ptx_half.c);
 * 1 when it is not one the executor runs */
int ptx_half(struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask);
/* ptx_mem: a memory or warp-wide instruction; 0, -1 with b->err, 1 when not one of them */
int ptx_mem(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask);
/* ptx_insn_where: the instruction's text (cut to ntext) and its source file (the last part of
 * its path) and line, for the messages that name it */
void ptx_insn_where(const struct ptx_module *m, const struct ptx_insn *in, char *text,
                    size_t ntext, const char **file, unsigned *line);

/* the value of operand o for lane l (a register or an immediate) */
static inline uint64_t ptx_val(const struct ptx_warp *w, const struct ptx_opnd *o, int l)
{
    return o->kind == O_REG ? w->r[(unsigned)o->reg * 32 + (unsigned)l] : o->imm;
}

#define LANES(mask, l) for (uint32_t m_ = (mask), l; m_ && ((l = (uint32_t)__builtin_ctz(m_)), 1); m_ &= m_ - 1)

#endif
