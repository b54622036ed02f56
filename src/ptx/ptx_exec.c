/* ptx_exec.c: ptx_run: a kernel's launch executed block by block (every block, or
 * max_blocks of them evenly sampled), each block's warps one after another in turns of
 * QUANTUM warp instructions, each warp's lanes in lockstep.
 *
 * Reconvergence, the min-PC rule: each step of a warp runs the lanes whose PC equals the
 * smallest PC among its runnable lanes (not exited, not waiting at a barrier). Lanes that
 * branch apart run separately, the side with the lower PC first, and run together again
 * where their PCs meet: for the structured code nvcc emits (if/else, loops whose exit lies
 * after their body) that is the immediate post-dominator, where the hardware reconverges too.
 * Its limits: a lane that waits in a loop for another lane of its own warp that stands at a
 * higher PC never lets it run (the step limit names it); code that reconverges at a lower PC
 * than a side's (not what nvcc emits) runs its sides as separate partial warps.
 *
 * Barriers (bar.sync/barrier.sync a{, b}): a lane waits until b threads (no b: every thread
 * of the block) have arrived at barrier a; threads that have exited count as arrived. When no
 * warp can run and lanes still wait, the block is deadlocked: the error names the barrier. */
#include <stdlib.h>
#include <string.h>

#include "ptx_exec.h"

#define QUANTUM 4096

/* the group to run next: the lanes at the smallest PC; 0 when no lane can run */
static int pick(struct ptx_warp *w)
{
    uint32_t run = w->live & ~w->waiting;
    if (!run) {
        w->gmask = 0;
        return 0;
    }
    unsigned mn = ~0u;
    LANES(run, l) if (w->pc[l] < mn) mn = w->pc[l];
    uint32_t g = 0;
    LANES(run, l) if (w->pc[l] == mn) g |= 1u << l;
    w->gpc = mn;
    w->gmask = g;
    return 1;
}

/* the group's lanes get pc (the group ends) */
static void ungroup(struct ptx_warp *w, uint32_t lanes, unsigned pc)
{
    LANES(lanes, l) w->pc[l] = pc;
}

static int unsupported(struct ptx_blk *b, const struct ptx_insn *in)
{
    char t[96];
    const char *f;
    unsigned line;
    ptx_insn_where(b->m, in, t, sizeof t, &f, &line);
    return bl_fail(b->err, -1, BL_NOWHERE, PTX_E_UNSUPPORTED, t, f, line, (int)in->line);
}

/* releases barrier id when enough threads have arrived */
static void bar_check(struct ptx_blk *b, unsigned id, unsigned expect)
{
    unsigned have = b->bar_count[id] + (expect ? 0u : (unsigned)b->exited);
    if (!expect)
        expect = (unsigned)b->nthreads;
    if (have < expect || b->bar_count[id] == 0)
        return;
    b->bar_count[id] = 0;
    for (int i = 0; i < b->nwarps; i++) {
        struct ptx_warp *w = &b->w[i];
        LANES(w->waiting, l) if (w->bar[l] == id) {
            w->waiting &= ~(1u << l);
            w->pc[l]++;
        }
    }
}



static int barrier(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in,
                   uint32_t exec)
{
    unsigned id = (unsigned)ptx_val(w, &in->o[0], __builtin_ctz(exec)) & 15;
    unsigned expect = in->nopnd > 1 ? (unsigned)ptx_val(w, &in->o[1], __builtin_ctz(exec)) : 0;
    ungroup(w, w->gmask & ~exec, w->gpc + 1);
    if (in->op == OP_BARARRIVE) {
        b->bar_count[id] += (unsigned)__builtin_popcount(exec);
        ungroup(w, exec, w->gpc + 1);
    } else {
        ungroup(w, exec, w->gpc);
        LANES(exec, l) w->bar[l] = (uint8_t)id;
        w->waiting |= exec;
        b->bar_count[id] += (unsigned)__builtin_popcount(exec);
    }
    b->bar_expect[id] = expect;
    w->gmask = 0;
    bar_check(b, id, expect);
    return 0;
}

static uint32_t guard_mask(const struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    const uint64_t *p = w->r + (unsigned)in->guard * 32;
    uint32_t e = 0;
    LANES(mask, l) if ((p[l] & 1) ^ (uint64_t)in->guard_neg) e |= 1u << l;
    return e;
}

/* the group's control instruction; 0 or -1 */
static int control(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in,
                   uint32_t exec)
{
    uint32_t g = w->gmask;
    switch (in->op) {
    case OP_BRA:
        if (exec == g) {
            w->gpc = (unsigned)in->o[0].imm;
            if (w->live & ~w->waiting & ~g) { /* others may stand there: regroup */
                ungroup(w, g, w->gpc);
                w->gmask = 0;
            }
            return 0;
        }
        ungroup(w, exec, (unsigned)in->o[0].imm);
        ungroup(w, g & ~exec, w->gpc + 1);
        w->gmask = 0;
        return 0;
    case OP_EXIT: case OP_RET:
        w->live &= ~exec;
        b->exited += __builtin_popcount(exec);
        ungroup(w, g & ~exec, w->gpc + 1);
        w->gmask = 0;
        for (unsigned id = 0; id < 16; id++)
            bar_check(b, id, b->bar_expect[id]);
        return 0;
    case OP_TRAP: {
        char t[96];
        const char *f;
        unsigned line;
        ptx_insn_where(b->m, in, t, sizeof t, &f, &line);
        return bl_fail(b->err, -1, BL_NOWHERE, PTX_E_TRAP, t, f, line);
    }
    default:
        return barrier(b, w, in, exec);
    }
}

static void set_clock(struct ptx_blk *b, struct ptx_warp *w)
{
    uint64_t c = b->steps * 4;
    for (unsigned l = 0; l < 32; l++) {
        w->r[SR_CLOCK * 32 + l] = c & 0xffffffffu;
        w->r[SR_CLOCK64 * 32 + l] = c;
        w->r[SR_GTIMER * 32 + l] = c;
    }
}

/* runs warp w for at most budget steps or until no lane of it can run; 0 or -1 */
static int run_warp(struct ptx_blk *b, struct ptx_warp *w, int budget)
{
    const struct ptx_insn *code = b->k->insn;
    unsigned n = (unsigned)b->k->ninsn;
    while (budget-- > 0) {
        if (!w->gmask && !pick(w))
            return 0;
        if (w->gpc >= n) { /* ran off the end: as ret */
            w->live &= ~w->gmask;
            b->exited += __builtin_popcount(w->gmask);
            w->gmask = 0;
            for (unsigned id = 0; id < 16; id++)
                bar_check(b, id, b->bar_expect[id]);
            continue;
        }
        const struct ptx_insn *in = &code[w->gpc];
        uint32_t g = w->gmask, exec = in->guard >= 0 ? guard_mask(w, in, g) : g;
        b->steps++;
        b->lane_steps += (unsigned)__builtin_popcount(g);
        if (b->k->uses_clock)
            set_clock(b, w);
        switch (in->op) {
        case OP_BRA: case OP_EXIT: case OP_RET: case OP_BAR: case OP_BARARRIVE: case OP_TRAP:
            if (exec == 0 && in->op != OP_BRA)
                break;
            if (control(b, w, in, exec))
                return -1;
            continue;
        case OP_NONE:
            return unsupported(b, in);
        default:
            if (exec) {
                int r = in->op >= OP_LD ? ptx_mem(b, w, in, exec) : ptx_alu(b, w, in, exec);
                if (r > 0)
                    return unsupported(b, in);
                if (r < 0)
                    return -1;
            }
        }
        w->gpc++;
        if (w->live & ~w->waiting & ~g) { /* diverged: the smallest PC next */
            ungroup(w, g, w->gpc);
            w->gmask = 0;
        }
        if (b->yield) { /* an mbarrier wait not yet complete: the others run first */
            b->yield = 0;
            return 0;
        }
    }
    return 0;
}

static void warp_init(struct ptx_blk *b, struct ptx_warp *w, int id, const struct ptx_launch *L,
                      const unsigned blk[3])
{
    int ns = b->k->nslots;
    memset(w->r, 0, (size_t)ns * 32 * sizeof *w->r);
    memset(w->pc, 0, sizeof w->pc);
    w->id = id;
    w->live = w->waiting = w->gmask = 0;
    w->gpc = 0;
    unsigned bx = L->block[0], by = L->block[1];
    uint64_t smem = b->smem_size;
    for (unsigned l = 0; l < 32; l++) {
        unsigned t = (unsigned)id * 32 + l;
        if (t < (unsigned)b->nthreads)
            w->live |= 1u << l;
        uint64_t *r = w->r;
        r[SR_TID_X * 32 + l] = t % bx;
        r[SR_TID_Y * 32 + l] = t / bx % by;
        r[SR_TID_Z * 32 + l] = t / bx / by;
        for (int c = 0; c < 3; c++) {
            r[(SR_NTID_X + c) * 32 + l] = L->block[c];
            r[(SR_CTAID_X + c) * 32 + l] = blk[c];
            r[(SR_NCTAID_X + c) * 32 + l] = L->grid[c];
        }
        r[SR_LANEID * 32 + l] = l;
        r[SR_WARPID * 32 + l] = (unsigned)id;
        r[SR_NWARPID * 32 + l] = (unsigned)b->nwarps;
        r[SR_NSMID * 32 + l] = 132;
        r[SR_LM_EQ * 32 + l] = 1u << l;
        r[SR_LM_LT * 32 + l] = (1u << l) - 1;
        r[SR_LM_LE * 32 + l] = (uint32_t)((UINT64_C(2) << l) - 1);
        r[SR_LM_GT * 32 + l] = ~(uint32_t)((UINT64_C(2) << l) - 1);
        r[SR_LM_GE * 32 + l] = ~((1u << l) - 1);
        r[SR_DYNSMEM * 32 + l] = L->dyn_smem;
        r[SR_TOTSMEM * 32 + l] = smem;
    }
}

static int deadlock(struct ptx_blk *b)
{
    for (int i = 0; i < b->nwarps; i++)
        if (b->w[i].waiting) {
            struct ptx_warp *w = &b->w[i];
            const struct ptx_insn *in = &b->k->insn[w->pc[__builtin_ctz(w->waiting)]];
            char t[96];
            const char *f;
            unsigned line;
            ptx_insn_where(b->m, in, t, sizeof t, &f, &line);
            return bl_fail(b->err, -1, BL_NOWHERE, PTX_E_DEADLOCK, t, f, line, b->blk[0],
                           b->blk[1], b->blk[2]);
        }
    return 0;
}

static int run_block(struct ptx_blk *b, const unsigned blk[3], uint64_t max_steps)
{
    memcpy(b->blk, blk, sizeof b->blk);
    memset(b->smem, 0, b->smem_size);
    memset(b->local, 0, (size_t)b->k->local_bytes * (size_t)b->nwarps * 32);
    memset(b->bar_count, 0, sizeof b->bar_count);
    memset(b->bar_expect, 0, sizeof b->bar_expect);
    b->exited = 0;
    b->steps = 0;
    for (int i = 0; i < b->nwarps; i++)
        warp_init(b, &b->w[i], i, b->l, blk);
    for (;;) {
        int ran = 0, waiting = 0;
        for (int i = 0; i < b->nwarps; i++) {
            struct ptx_warp *w = &b->w[i];
            if (w->live & ~w->waiting) {
                ran = 1;
                if (run_warp(b, w, QUANTUM))
                    return -1;
            }
            waiting |= w->waiting != 0;
        }
        if (!ran)
            return waiting ? deadlock(b) : 0;
        if (b->steps > max_steps) {
            const struct ptx_warp *w = b->w;
            for (int i = 0; i < b->nwarps; i++)
                if (b->w[i].live & ~b->w[i].waiting)
                    w = &b->w[i];
            uint32_t run = w->live & ~w->waiting;
            const struct ptx_insn *in = &b->k->insn[run ? (w->gmask ? w->gpc : w->pc[__builtin_ctz(run)]) : 0];
            char t[96];
            const char *f;
            unsigned line;
            ptx_insn_where(b->m, in, t, sizeof t, &f, &line);
            return bl_fail(b->err, -1, BL_NOWHERE, PTX_E_STEPS, t, f, line, blk[0], blk[1],
                           blk[2], (unsigned long long)max_steps);
        }
    }
}

static int setup(struct ptx_blk *b, const struct ptx_module *m, int k, const struct ptx_launch *l,
                 struct bl_err *err)
{
    memset(b, 0, sizeof *b);
    b->m = m;
    b->err = err;
    b->l = l;
    if (!m || k < 0 || k >= m->nkernels)
        return bl_fail(err, -1, BL_NOWHERE, PTX_E_NOKERNEL, k);
    b->k = &m->kernel[k];
    uint64_t nt = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    if (!l->grid[0] || !l->grid[1] || !l->grid[2] || nt == 0 || nt > 1024)
        return bl_fail(err, -1, BL_NOWHERE, PTX_E_LAUNCH, b->k->name);
    size_t a = b->k->smem_align ? b->k->smem_align : 1;
    uint64_t st = (b->k->static_smem + a - 1) / a * a;
    b->smem_size = l->dyn_smem ? st + l->dyn_smem : b->k->static_smem;
    if (b->smem_size > 228 * 1024)
        return bl_fail(err, -1, BL_NOWHERE, PTX_E_SMEM, b->k->name,
                       (unsigned long long)b->smem_size);
    b->nthreads = (int)nt;
    b->nwarps = (int)((nt + 31) / 32);
    b->smem = calloc(1, b->smem_size ? b->smem_size : 1);
    b->param = calloc(1, b->k->param_bytes ? b->k->param_bytes : 1);
    b->local = calloc((size_t)b->nwarps * 32, b->k->local_bytes ? b->k->local_bytes : 1);
    b->w = calloc((size_t)b->nwarps, sizeof *b->w);
    if (!b->smem || !b->param || !b->local || !b->w)
        return bl_fail(err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    for (int i = 0; i < b->nwarps; i++)
        if (!(b->w[i].r = malloc((size_t)b->k->nslots * 32 * sizeof(uint64_t))))
            return bl_fail(err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    for (int i = 0; i < b->k->nparams; i++)
        if (l->args && l->args[i])
            memcpy(b->param + b->k->param[i].off, l->args[i], b->k->param[i].size);
    return 0;
}

static void teardown(struct ptx_blk *b)
{
    for (int i = 0; b->w && i < b->nwarps; i++)
        free(b->w[i].r);
    free(b->w);
    free(b->smem);
    free(b->param);
    free(b->local);
}

int ptx_run(const struct ptx_module *m, int k, const struct ptx_launch *l, struct bl_err *err)
{
    struct ptx_blk b;
    int rc = setup(&b, m, k, l, err);
    uint64_t total = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    uint64_t runs = l->max_blocks && l->max_blocks < total ? l->max_blocks : total;
    uint64_t max_steps = l->max_steps ? l->max_steps : PTX_MAX_STEPS;
    for (uint64_t i = 0; !rc && i < runs; i++) {
        if (l->stop && atomic_load(l->stop)) {
            rc = -1;
            break;
        }
        uint64_t id = runs == total ? i : i * total / runs;
        unsigned blk[3] = {(unsigned)(id % l->grid[0]), (unsigned)(id / l->grid[0] % l->grid[1]),
                           (unsigned)(id / l->grid[0] / l->grid[1])};
        rc = run_block(&b, blk, max_steps);
    }
    if (l->lane_steps)
        *l->lane_steps = b.lane_steps;
    teardown(&b);
    return rc ? -1 : 0;
}
