/* ptx_mem.c: PTX memory and warp-wide instructions for the lanes of a warp: ld/st (scalar and
 * .v2/.v4) and atom/red on .shared, .global, .local, .param, .const and generic addresses
 * (a generic address in the shared window is shared: ptx.h), ldmatrix/stmatrix (8x8 b16
 * matrices: lane 8i+j addresses row j of matrix i), cp.async (copied at once; commit/wait do
 * nothing else), mbarrier, wmma, shfl.sync, vote, match, activemask, redux. Every shared access of the warp is
 * handed to the launch's sink as one record (ptx.h); atomics run lane by lane in lane order.
 * The warp-wide instructions see the lanes that execute them together (the min-PC rule of
 * ptx_exec.c); a member lane that is elsewhere takes no part. */
#include <math.h>
#include <string.h>

#include "../base/fmt.h"
#include "ptx_exec.h"

/* where an access lands */
struct place {
    unsigned char *p;
    int shared;
    uint32_t off;
};

static int fail_addr(struct ptx_blk *b, const struct ptx_insn *in, int sp, uint64_t a,
                     unsigned n, int lane)
{
    char t[96];
    const char *f;
    unsigned line;
    ptx_insn_where(b->m, in, t, sizeof t, &f, &line);
    struct bl_place at = BL_AT(-1, 0, lane);
    if (sp == SP_SHARED)
        return bl_fail(b->err, -1, at, PTX_E_SHARED, t, f, line, (unsigned long long)a, n,
                       (unsigned long long)b->smem_size);
    if (sp == SP_LOCAL)
        return bl_fail(b->err, -1, at, PTX_E_LOCAL, t, f, line, (unsigned long long)a, n,
                       (unsigned long long)b->k->local_bytes);
    (void)a; /* a host address: it differs from run to run, the message leaves it out */
    return bl_fail(b->err, -1, at, PTX_E_GLOBAL, t, f, line, n);
}

/* in a .global/.const variable of the module */
static int in_module(const struct ptx_module *m, uint64_t a, unsigned n)
{
    for (int g = 0; g < m->ngvars; g++) {
        uint64_t s = (uint64_t)(uintptr_t)m->gvar[g].data;
        if (m->gvar[g].data && a >= s && a + n <= s + m->gvar[g].size)
            return 1;
    }
    return 0;
}

/* the place of n bytes at a in space sp for lane l; -1 with b->err */
static int place_of(struct ptx_blk *b, const struct ptx_warp *w, const struct ptx_insn *in,
                    int sp, uint64_t a, unsigned n, unsigned l, struct place *pl)
{
    if (n > 1 && a % (n > 16 ? 16 : n)) {
        char t[96];
        const char *f;
        unsigned line;
        ptx_insn_where(b->m, in, t, sizeof t, &f, &line);
        return bl_fail(b->err, -1, BL_AT(-1, 0, (int)l), PTX_E_ALIGN, t, f, line,
                       (unsigned long long)a, n > 16 ? 16 : n);
    }
    pl->shared = 0;
    if (sp == SP_GENERIC) {
        if (a >= PTX_SHARED_WIN && a - PTX_SHARED_WIN < (UINT64_C(1) << 32))
            sp = SP_SHARED, a -= PTX_SHARED_WIN;
        else if (a >= PTX_LOCAL_WIN && a - PTX_LOCAL_WIN < (UINT64_C(1) << 32))
            sp = SP_LOCAL, a -= PTX_LOCAL_WIN;
        else
            sp = SP_GLOBAL;
    }
    switch (sp) {
    case SP_SHARED:
        if (a > b->smem_size || n > b->smem_size - a)
            return fail_addr(b, in, sp, a, n, (int)l);
        pl->p = b->smem + a;
        pl->shared = 1;
        pl->off = (uint32_t)a;
        return 0;
    case SP_LOCAL:
        if (a > b->k->local_bytes || n > b->k->local_bytes - a)
            return fail_addr(b, in, sp, a, n, (int)l);
        pl->p = b->local + (size_t)b->k->local_bytes * ((unsigned)w->id * 32 + l) + a;
        return 0;
    case SP_PARAM:
        if (a > b->k->param_bytes || n > b->k->param_bytes - a)
            return fail_addr(b, in, SP_GLOBAL, a, n, (int)l);
        pl->p = b->param + a;
        return 0;
    default:
        if (!in_module(b->m, a, n) && b->l->global_ok && !b->l->global_ok(b->l->ctx, a, n))
            return fail_addr(b, in, SP_GLOBAL, a, n, (int)l);
        if (a == 0)
            return fail_addr(b, in, SP_GLOBAL, a, n, (int)l);
        pl->p = (unsigned char *)(uintptr_t)a;
        return 0;
    }
}

/* the space of a memory operand: a call site's .param lives in local memory */
static int space_of(const struct ptx_insn *in, const struct ptx_opnd *o)
{
    if (o->reg < 0 && o->space == SP_LOCAL)
        return SP_LOCAL;
    return in->space;
}

static uint64_t addr_of(const struct ptx_warp *w, const struct ptx_opnd *o, unsigned l)
{
    return (o->reg >= 0 ? w->r[(unsigned)o->reg * 32 + l] : 0) + o->imm;
}

static void rec_begin(struct ptx_blk *b, const struct ptx_warp *w, const struct ptx_insn *in,
                      int kind, unsigned width)
{
    struct ptx_access *r = &b->rec;
    r->loc = in->loc;
    r->pc = (unsigned)(in - b->k->insn);
    r->width = (unsigned char)width;
    r->kind = (unsigned char)kind;
    r->mask = 0;
    r->warp = (unsigned)w->id;
    r->matrices = r->trans = r->bypass = 0;
    memcpy(r->block, b->blk, sizeof r->block);
}

static void rec_end(struct ptx_blk *b)
{
    if (b->rec.mask && b->l->sink)
        b->l->sink(b->l->ctx, &b->rec);
}

static uint64_t load(const unsigned char *p, unsigned n, int sgn)
{
    uint64_t v = 0;
    memcpy(&v, p, n > 8 ? 8 : n);
    if (sgn && n < 4) {
        int sh = 64 - (int)n * 8;
        v = (uint64_t)((int64_t)(v << sh) >> sh) & 0xffffffffu;
    }
    return v;
}

static int ldst(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    int st = in->op == OP_ST;
    const struct ptx_opnd *mo = &in->o[st ? 0 : 1], *vo = &in->o[st ? 1 : 0];
    unsigned el = TY_BYTES(in->type), n = el * in->vec;
    int sp = space_of(in, mo), sgn = TY_KIND(in->type) == TK_S;
    rec_begin(b, w, in, st ? PTX_ST : PTX_LD, n);
    LANES(mask, l) {
        struct place pl;
        if (place_of(b, w, in, sp, addr_of(w, mo, l), n, l, &pl))
            return -1;
        if (pl.shared) {
            b->rec.mask |= 1u << l;
            b->rec.addr[l] = pl.off;
        }
        for (unsigned e = 0; e < in->vec; e++) {
            int32_t r = vo->kind == O_VEC ? vo->vreg[e] : vo->reg;
            if (st) {
                uint64_t v = vo->kind == O_VEC ? (r >= 0 ? w->r[(unsigned)r * 32 + l] : 0)
                                               : ptx_val(w, vo, (int)l);
                memcpy(pl.p + e * el, &v, el > 8 ? 8 : el);
            } else if (r >= 0) {
                w->r[(unsigned)r * 32 + l] = load(pl.p + e * el, el, sgn);
            }
        }
    }
    if (!in->reload) /* ptxas keeps the value an earlier load gave (mark_reloads) */
        rec_end(b);
    return 0;
}

static uint64_t atom_op(const struct ptx_insn *in, uint64_t old, uint64_t x, uint64_t y)
{
    unsigned by = TY_BYTES(in->type);
    int k = TY_KIND(in->type);
    uint64_t m = by >= 8 ? UINT64_MAX : (UINT64_C(1) << by * 8) - 1;
    old &= m;
    x &= m;
    switch (in->cmp) {
    case AT_ADD:
        if (k == TK_F) {
            if (by == 4) {
                float a, c;
                uint32_t u = (uint32_t)old, v = (uint32_t)x;
                memcpy(&a, &u, 4);
                memcpy(&c, &v, 4);
                a += c;
                memcpy(&u, &a, 4);
                return u;
            }
            double a, c;
            memcpy(&a, &old, 8);
            memcpy(&c, &x, 8);
            a += c;
            memcpy(&old, &a, 8);
            return old;
        }
        return (old + x) & m;
    case AT_MIN: case AT_MAX: {
        int lt;
        if (k == TK_S) {
            int sh = 64 - (int)by * 8;
            lt = ((int64_t)(old << sh) >> sh) < ((int64_t)(x << sh) >> sh);
        } else
            lt = old < x;
        return (in->cmp == AT_MIN) == lt ? old : x;
    }
    case AT_INC: return old >= x ? 0 : old + 1;
    case AT_DEC: return (old == 0 || old > x) ? x : old - 1;
    case AT_AND: return old & x;
    case AT_OR: return old | x;
    case AT_XOR: return old ^ x;
    case AT_EXCH: return x;
    case AT_CAS: return old == x ? (y & m) : old;
    }
    return old;
}

static int atom(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    int red = in->op == OP_RED;
    const struct ptx_opnd *mo = &in->o[red ? 0 : 1];
    const struct ptx_opnd *xo = &in->o[red ? 1 : 2], *yo = &in->o[red ? 2 : 3];
    unsigned by = TY_BYTES(in->type);
    int sp = space_of(in, mo);
    if (!in->cmp || (TY_KIND(in->type) == TK_F && in->cmp != AT_ADD && in->cmp != AT_EXCH) ||
        by < 4 || in->vec > 1)
        return 1;
    rec_begin(b, w, in, PTX_ATOM, by);
    LANES(mask, l) {
        struct place pl;
        if (place_of(b, w, in, sp, addr_of(w, mo, l), by, l, &pl))
            return -1;
        if (pl.shared) {
            b->rec.mask |= 1u << l;
            b->rec.addr[l] = pl.off;
        }
        uint64_t old = load(pl.p, by, 0);
        uint64_t nw = atom_op(in, old, ptx_val(w, xo, (int)l), ptx_val(w, yo, (int)l));
        memcpy(pl.p, &nw, by);
        if (!red && in->o[0].kind == O_REG)
            w->r[(unsigned)in->o[0].reg * 32 + l] = old;
    }
    rec_end(b);
    return 0;
}

/* ldmatrix/stmatrix .x1/.x2/.x4 [.trans] .shared .b16 */
static int matrix(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in,
                  uint32_t mask)
{
    int st = in->op == OP_STMATRIX;
    const struct ptx_opnd *mo = &in->o[st ? 0 : 1], *vo = &in->o[st ? 1 : 0];
    unsigned nm = in->cmp ? in->cmp : 1;
    if (in->space != SP_SHARED || vo->kind != O_VEC || vo->n != nm)
        return 1;
    rec_begin(b, w, in, st ? PTX_STSM : PTX_LDSM, 16);
    b->rec.matrices = (unsigned char)nm;
    b->rec.trans = in->mod;
    unsigned char *row[32];
    b->rec.mask = mask;
    for (unsigned l = 0; l < 8 * nm; l++) {
        struct place pl;
        if (!(mask >> l & 1)) { /* .sync.aligned: the model names the missing lane */
            row[l] = NULL;
            b->rec.addr[l] = 0;
            continue;
        }
        if (place_of(b, w, in, SP_SHARED, addr_of(w, mo, l), 16, l, &pl))
            return -1;
        row[l] = pl.p;
        b->rec.addr[l] = pl.off;
    }
    for (unsigned l = 8 * nm; l < 32; l++)
        b->rec.addr[l] = 0;
    LANES(mask, t) {
        for (unsigned i = 0; i < nm; i++) {
            int32_t r = vo->vreg[i];
            for (unsigned h = 0; h < 2; h++) {
                unsigned rr = t / 4, cc = 2 * (t % 4) + h; /* the fragment's element */
                if (in->mod) { /* .trans: element (rr, cc) of the transpose */
                    unsigned x = rr;
                    rr = cc;
                    cc = x;
                }
                unsigned char *p = row[8 * i + rr];
                if (!p)
                    continue;
                uint16_t e;
                if (st) {
                    e = r >= 0 ? (uint16_t)(w->r[(unsigned)r * 32 + t] >> (16 * h)) : 0;
                    memcpy(p + 2 * cc, &e, 2);
                } else if (r >= 0) {
                    memcpy(&e, p + 2 * cc, 2);
                    uint64_t *d = &w->r[(unsigned)r * 32 + t];
                    *d = (*d & ~(UINT64_C(0xffff) << (16 * h))) | (uint64_t)e << (16 * h);
                }
            }
        }
    }
    rec_end(b);
    return 0;
}

/* cp.async.ca/cg.shared.global [dst], [src], size[, src-size] */
static int cpasync(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in,
                   uint32_t mask)
{
    const struct ptx_opnd *d = &in->o[0], *s = &in->o[1];
    if (in->nopnd < 3 || d->kind != O_MEM || s->kind != O_MEM || in->o[2].kind != O_IMM)
        return 1;
    unsigned n = (unsigned)in->o[2].imm;
    if (n != 4 && n != 8 && n != 16)
        return 1;
    rec_begin(b, w, in, PTX_CPASYNC, n);
    b->rec.bypass = in->mod;
    LANES(mask, l) {
        struct place pd, ps;
        uint64_t sa = addr_of(w, s, l);
        unsigned srcn = in->nopnd > 3 && in->o[3].kind != O_NONE
                            ? (unsigned)ptx_val(w, &in->o[3], (int)l) : n;
        if (srcn > n)
            srcn = n;
        if (place_of(b, w, in, SP_SHARED, addr_of(w, d, l), n, l, &pd) ||
            (srcn && place_of(b, w, in, SP_GLOBAL, sa, srcn, l, &ps)))
            return -1;
        unsigned char buf[16] = {0};
        if (srcn)
            memcpy(buf, ps.p, srcn);
        memcpy(pd.p, buf, n);
        b->rec.mask |= 1u << l;
        b->rec.addr[l] = pd.off;
        b->rec.src[l] = (uint32_t)sa;
    }
    rec_end(b);
    return 0;
}

/* mbarrier: an 8-byte object in shared memory, kept here as pending arrivals (bits 0-31),
 * the expected count (32-62) and the phase's parity (63); a state token is the word before
 * the arrival. Each lane arrives in turn; the arrival that brings pending to zero completes the
 * phase (pending back to the expected count, the parity flipped). cp.async's arrive happens at
 * once: the executor's cp.async has completed when it returns (without .noinc the pending count
 * it adds first is taken away again). A wait that completes for no lane ends the warp's turn
 * (b->yield) so the warps it waits for run. mbarrier's transaction counts (expect_tx, for
 * cp.async.bulk) are not executed. */
static int mbar(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    int op = in->cmp, mi = op == MB_INIT || op == MB_INVAL || op == MB_CPARRIVE ? 0 : 1;
    const struct ptx_opnd *mo = &in->o[mi];
    if ((in->mod & MB_TX) || !op || mo->kind != O_MEM)
        return 1;
    int sp = space_of(in, mo);
    uint32_t done = 0;
    LANES(mask, l) {
        struct place pl;
        if (place_of(b, w, in, sp, addr_of(w, mo, l), 8, l, &pl))
            return -1;
        uint64_t v;
        memcpy(&v, pl.p, 8);
        uint64_t pend = v & 0xffffffffu, expect = v >> 32 & 0x7fffffffu, phase = v >> 63;
        uint64_t *d = in->o[0].kind == O_REG ? &w->r[(unsigned)in->o[0].reg * 32 + l] : NULL;
        switch (op) {
        case MB_INIT: {
            uint64_t n = ptx_val(w, &in->o[1], (int)l) & 0x7fffffffu;
            v = n << 32 | n;
            break;
        }
        case MB_INVAL:
            v = 0;
            break;
        case MB_ARRIVE: case MB_DROP: case MB_CPARRIVE: {
            uint64_t n = op != MB_CPARRIVE && in->nopnd > 2 ? ptx_val(w, &in->o[2], (int)l) : 1;
            if (op == MB_CPARRIVE && !(in->mod & MB_NOINC))
                n = 0; /* its own increment, then its arrival */
            if (d)
                *d = v;
            if (op == MB_DROP && expect > 0)
                expect--;
            pend = n >= pend ? 0 : pend - n;
            if (n && pend == 0) {
                pend = expect;
                phase ^= 1;
            }
            v = phase << 63 | expect << 32 | pend;
            break;
        }
        default: { /* test_wait, try_wait: has the phase of the token (or parity) completed */
            uint64_t want = ptx_val(w, &in->o[2], (int)l);
            uint64_t ph = in->mod & MB_PARITY ? want & 1 : want >> 63;
            if (d)
                *d = ph != phase;
            done |= (uint32_t)(ph != phase) << l;
            continue;
        }
        }
        memcpy(pl.p, &v, 8);
    }
    if ((op == MB_TEST || op == MB_TRY) && !done)
        b->yield = 1;
    return 0;
}

/* wmma, shape m16n16k16: a and b f16 (load.a, load.b), the accumulator f32 (load.c,
 * store.d, mma .f32.f32). PTX leaves the fragments' layout to the implementation; here lane l
 * holds elements 8l .. 8l+7 of the 16x16 matrix in row order (f16: two to a register, the
 * first in the low half; f32: one to a register), so load, mma and store agree with each
 * other. The shared accesses are priced as the H100's code makes them: a load of a or b one
 * LDSM.x4 (lane l at the row l % 16 of the stored matrix, its 16-byte half l / 16), the
 * accumulator four 8-byte accesses (row-major; lane l at rows l / 4 and l / 4 + 8, columns
 * 2 (l % 4) and 8 more), column-major eight 4-byte ones. mma's sums are exact products added
 * in double and rounded once to f32, not the tensor core's own order of additions. */
#define WM_N 16

/* the place of element (i, j) of the stored matrix at lane 0's address (the warp's: .aligned) */
static int wm_place(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in,
                    uint64_t base, uint64_t ld, int col, unsigned i, unsigned j, unsigned size,
                    struct place *pl)
{
    uint64_t e = col ? (uint64_t)j * ld + i : (uint64_t)i * ld + j;
    return place_of(b, w, in, space_of(in, &in->o[in->cmp == WM_STORE ? 0 : 1]), base + e * size,
                    size, 0, pl);
}

static void wm_records(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in,
                       uint64_t base, uint64_t ld, int col, unsigned size)
{
    int acc = size == 4;
    if (!acc) { /* one LDSM.x4 */
        rec_begin(b, w, in, PTX_LDSM, 16);
        b->rec.matrices = 4;
        b->rec.mask = 0xffffffffu;
        for (unsigned l = 0; l < 32; l++)
            b->rec.addr[l] = (uint32_t)(base + (l % 16) * ld * 2 + (l / 16) * 16);
        rec_end(b);
        return;
    }
    int st = in->cmp == WM_STORE;
    for (unsigned q = 0; q < (col ? 8u : 4u); q++) {
        rec_begin(b, w, in, st ? PTX_ST : PTX_LD, col ? 4 : 8);
        b->rec.mask = 0xffffffffu;
        for (unsigned l = 0; l < 32; l++) {
            unsigned i = l / 4 + 8 * (q % 2), j = 2 * (l % 4) + 8 * (q / 2 % 2) + (col ? q / 4 : 0);
            b->rec.addr[l] = (uint32_t)(base + 4 * (col ? j * ld + i : i * ld + j));
        }
        rec_end(b);
    }
}

static int wmma_mem(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in)
{
    int st = in->cmp == WM_STORE, col = in->mod & WM_COL;
    const struct ptx_opnd *mo = &in->o[st ? 0 : 1], *vo = &in->o[st ? 1 : 0];
    unsigned size = in->cmp == WM_LOADC || st ? 4 : 2, per = 8 / (size == 2 ? 2 : 1);
    if (mo->kind != O_MEM || vo->kind != O_VEC || vo->n < per ||
        TY_BYTES(in->type) != size || (size == 4 && TY_KIND(in->type) != TK_F) ||
        (size == 2 && in->type != TY(TK_F, 1)))
        return 1;
    uint64_t base = addr_of(w, mo, 0);
    uint64_t ld = in->nopnd > 2 ? ptx_val(w, &in->o[2], 0) : WM_N;
    for (unsigned idx = 0; idx < WM_N * WM_N; idx++) {
        unsigned l = idx / 8, s = idx % 8, i = idx / WM_N, j = idx % WM_N;
        struct place pl;
        if (wm_place(b, w, in, base, ld, col, i, j, size, &pl))
            return -1;
        int32_t r = vo->vreg[size == 2 ? s / 2 : s];
        if (r < 0)
            continue;
        uint64_t *reg = &w->r[(unsigned)r * 32 + l];
        unsigned sh = size == 2 ? 16 * (s % 2) : 0;
        uint64_t m = (size == 2 ? UINT64_C(0xffff) : UINT64_C(0xffffffff)) << sh;
        if (st) {
            uint32_t v = (uint32_t)((*reg & m) >> sh);
            memcpy(pl.p, &v, size);
        } else {
            uint32_t v = 0;
            memcpy(&v, pl.p, size);
            *reg = (*reg & ~m) | ((uint64_t)v << sh);
        }
    }
    for (unsigned e = per; e < vo->n; e++) /* the registers this layout leaves unused */
        if (!st && vo->vreg[e] >= 0)
            for (unsigned l = 0; l < 32; l++)
                w->r[(unsigned)vo->vreg[e] * 32 + l] = 0;
    struct place pl;
    if (place_of(b, w, in, space_of(in, mo), base, size, 0, &pl))
        return -1;
    if (pl.shared)
        wm_records(b, w, in, pl.off, ld, col, size);
    return 0;
}

static double wm_half(uint64_t v)
{
    uint16_t h = (uint16_t)v;
    unsigned e = (h >> 10) & 31, m = h & 1023;
    double x = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(m | 1024, (int)e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -x : x;
}

static int wmma_mma(struct ptx_warp *w, const struct ptx_insn *in)
{
    const struct ptx_opnd *o = in->o;
    if (in->nopnd < 4 || in->type != TY(TK_F, 2) || in->type2 != TY(TK_F, 2) || o[0].n < 8 ||
        o[1].n < 4 || o[2].n < 4 || o[3].n < 8)
        return 1;
    static _Thread_local double A[WM_N][WM_N], B[WM_N][WM_N], C[WM_N][WM_N];
    for (unsigned idx = 0; idx < WM_N * WM_N; idx++) {
        unsigned l = idx / 8, s = idx % 8, i = idx / WM_N, j = idx % WM_N;
        uint64_t a = o[1].vreg[s / 2] >= 0 ? w->r[(unsigned)o[1].vreg[s / 2] * 32 + l] : 0;
        uint64_t bb = o[2].vreg[s / 2] >= 0 ? w->r[(unsigned)o[2].vreg[s / 2] * 32 + l] : 0;
        uint64_t c = o[3].vreg[s] >= 0 ? w->r[(unsigned)o[3].vreg[s] * 32 + l] : 0;
        float cf;
        uint32_t cu = (uint32_t)c;
        memcpy(&cf, &cu, 4);
        /* a fragment holds the matrix in row order whichever layout it was loaded from */
        A[i][j] = wm_half(a >> (16 * (s % 2)));
        B[i][j] = wm_half(bb >> (16 * (s % 2)));
        C[i][j] = cf;
    }
    for (unsigned idx = 0; idx < WM_N * WM_N; idx++) {
        unsigned l = idx / 8, s = idx % 8, i = idx / WM_N, j = idx % WM_N;
        double sum = C[i][j];
        for (unsigned k = 0; k < WM_N; k++)
            sum += A[i][k] * B[k][j];
        float f = (float)sum;
        uint32_t u;
        memcpy(&u, &f, 4);
        if (o[0].vreg[s] >= 0)
            w->r[(unsigned)o[0].vreg[s] * 32 + l] = u;
    }
    return 0;
}

/* wmma: the warp as one (.sync.aligned: every lane takes part) */
static int wmma(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    if (!(in->mod & WM_SHAPE) || mask != w->live || w->live != 0xffffffffu)
        return 1;
    if (in->cmp == WM_MMA)
        return wmma_mma(w, in);
    if (in->cmp >= WM_LOADA && in->cmp <= WM_STORE)
        return wmma_mem(b, w, in);
    return 1;
}

static void shfl(struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    uint64_t a[32];
    const struct ptx_opnd *pd = &in->o[PTX_NOPND - 1];
    for (unsigned l = 0; l < 32; l++)
        a[l] = ptx_val(w, &in->o[1], (int)l);
    LANES(mask, l) {
        int bv = (int)(ptx_val(w, &in->o[2], (int)l) & 0xffffffffu);
        unsigned c = (unsigned)ptx_val(w, &in->o[3], (int)l);
        int seg = (int)((c >> 8) & 31), cval = (int)(c & 31), lane = (int)l;
        int minl = lane & seg, maxl = minl | (cval & ~seg), j, ok;
        switch (in->cmp) {
        case SH_UP: j = lane - bv; ok = j >= maxl; break;
        case SH_DOWN: j = lane + bv; ok = j <= maxl; break;
        case SH_BFLY: j = lane ^ bv; ok = j <= maxl; break;
        default: j = minl | (bv & 31 & ~seg); ok = j <= maxl; break;
        }
        if (!ok || j < 0 || j > 31)
            j = lane, ok = 0;
        if (in->o[0].kind == O_REG)
            w->r[(unsigned)in->o[0].reg * 32 + l] = a[j] & 0xffffffffu;
        if (pd->kind == O_REG)
            w->r[(unsigned)pd->reg * 32 + l] = (uint64_t)ok;
    }
}

static uint32_t pred_mask(const struct ptx_warp *w, const struct ptx_opnd *o, uint32_t mask)
{
    uint32_t r = 0;
    LANES(mask, l) if ((ptx_val(w, o, (int)l) & 1) ^ o->neg) r |= 1u << l;
    return r;
}

static int warpwide(struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    uint64_t *d = in->o[0].kind == O_REG ? w->r + (unsigned)in->o[0].reg * 32 : NULL;
    uint32_t mem = in->op == OP_ACTIVEMASK ? mask
                   : (uint32_t)ptx_val(w, &in->o[in->nopnd - 1], __builtin_ctz(mask)) & mask;
    if (!d)
        return 1;
    switch (in->op) {
    case OP_ACTIVEMASK:
        LANES(mask, l) d[l] = mask;
        return 0;
    case OP_VOTE: {
        uint32_t t = pred_mask(w, &in->o[1], mem);
        uint64_t v = in->cmp == VT_BALLOT ? t : in->cmp == VT_ALL ? t == mem
                     : in->cmp == VT_ANY ? t != 0 : (t == 0 || t == mem);
        LANES(mask, l) d[l] = v;
        return 0;
    }
    case OP_MATCH: {
        uint64_t um = TY_BYTES(in->type) >= 8 ? UINT64_MAX : 0xffffffffu;
        const struct ptx_opnd *pd = &in->o[PTX_NOPND - 1];
        LANES(mask, l) {
            uint64_t v = ptx_val(w, &in->o[1], (int)l) & um;
            uint32_t same = 0;
            for (unsigned j = 0; j < 32; j++)
                if ((mem >> j & 1) && (ptx_val(w, &in->o[1], (int)j) & um) == v)
                    same |= 1u << j;
            if (in->cmp == VT_ALL) {
                d[l] = same == mem ? mem : 0;
                if (pd->kind == O_REG)
                    w->r[(unsigned)pd->reg * 32 + l] = same == mem;
            } else
                d[l] = same;
        }
        return 0;
    }
    case OP_REDUX: {
        int sgn = TY_KIND(in->type) == TK_S;
        uint64_t acc = 0;
        int first = 1;
        LANES(mem, l) {
            uint32_t v = (uint32_t)ptx_val(w, &in->o[1], (int)l);
            if (first) {
                acc = v;
                first = 0;
                continue;
            }
            uint32_t a = (uint32_t)acc;
            switch (in->cmp) {
            case AT_ADD: acc = a + v; break;
            case AT_AND: acc = a & v; break;
            case AT_OR: acc = a | v; break;
            case AT_XOR: acc = a ^ v; break;
            case AT_MIN: acc = sgn ? ((int32_t)v < (int32_t)a ? v : a) : (v < a ? v : a); break;
            case AT_MAX: acc = sgn ? ((int32_t)v > (int32_t)a ? v : a) : (v > a ? v : a); break;
            default: return 1;
            }
        }
        LANES(mask, l) d[l] = acc & 0xffffffffu;
        return 0;
    }
    }
    return 1;
}

int ptx_mem(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    switch (in->op) {
    case OP_LD: case OP_ST:
        if (TY_BYTES(in->type) > 8 || (in->o[in->op == OP_ST ? 0 : 1].kind != O_MEM))
            return 1;
        return ldst(b, w, in, mask);
    case OP_ATOM: case OP_RED: return atom(b, w, in, mask);
    case OP_LDMATRIX: case OP_STMATRIX: return matrix(b, w, in, mask);
    case OP_CPASYNC: return cpasync(b, w, in, mask);
    case OP_CPWAIT: case OP_NOP: return 0;
    case OP_MBAR: return mbar(b, w, in, mask);
    case OP_WMMA: return wmma(b, w, in, mask);
    case OP_SHFL:
        if (!in->cmp)
            return 1;
        shfl(w, in, mask);
        return 0;
    case OP_VOTE: case OP_MATCH: case OP_ACTIVEMASK: case OP_REDUX:
        return warpwide(w, in, mask);
    }
    return 1;
}

void ptx_insn_where(const struct ptx_module *m, const struct ptx_insn *in, char *text,
                    size_t ntext, const char **file, unsigned *line)
{
    size_t n = in->tlen, o = 0;
    for (size_t i = 0; i < n && o + 1 < ntext; i++) { /* whitespace runs to one space */
        char c = m->text[in->text + i];
        if (c == '\t' || c == '\n' || c == ' ') {
            if (o && text[o - 1] != ' ')
                text[o++] = ' ';
        } else
            text[o++] = c;
    }
    text[o] = 0;
    struct ptx_frame f[16];
    int nf = ptx_loc(m, in->loc, f, 16);
    *file = "?";
    *line = in->line;
    if (nf > 0) {
        const char *p = f[nf - 1].file, *s = strrchr(p, '/');
        *file = s ? s + 1 : p;
        *line = f[nf - 1].line;
    }
}
