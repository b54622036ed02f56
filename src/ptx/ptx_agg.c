/* ptx_agg.c: executed shared accesses priced by the bank model and summed per instruction and
 * per line (ptx_agg.h). An atomic is priced as a store of its width (the model has loads,
 * stores, matrix instructions and cp.async); cp.async with its global sources. */
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../model/bank.h"
#include "ptx_agg.h"
#include "ptx_internal.h"

/* whether operand i of in is read (a destination is not; o[0] is one but for the ops that
 * write nothing through it). Counting a destination as read only keeps a load wide. */
static int reads(const struct ptx_insn *in, int i)
{
    if (i > 0 || in->o[0].kind == O_MEM)
        return 1;
    switch (in->op) {
    case OP_ST: case OP_RED: case OP_STMATRIX: case OP_CPASYNC: case OP_CPWAIT: case OP_BRA:
    case OP_BAR: case OP_BARARRIVE: case OP_MBAR: case OP_WMMA:
        return 1;
    default:
        return 0;
    }
}

/* a->live: per PC of a vector load, the components (bit j: element j) some instruction of the
 * kernel reads. ptxas loads no element nobody reads: ld.shared.v4 of which .x and .w are used
 * is two 4-byte LDS (ptx_agg_sink splits it so). 0 where every element is read. */
static int live_parts(struct ptx_agg *a, const struct ptx_kernel *kn)
{
    int nvec = 0;
    for (int pc = 0; pc < kn->ninsn; pc++)
        nvec += kn->insn[pc].op == OP_LD && kn->insn[pc].vec > 1;
    if (!nvec)
        return 0;
    unsigned char *read = calloc((size_t)(kn->nslots > 0 ? kn->nslots : 1), 1);
    a->live = calloc((size_t)a->ninsn, 1);
    if (!read || !a->live) {
        free(read);
        return -1;
    }
    for (int pc = 0; pc < kn->ninsn; pc++) {
        const struct ptx_insn *in = &kn->insn[pc];
        if (in->guard >= 0 && in->guard < kn->nslots)
            read[in->guard] = 1;
        for (int i = 0; i < in->nopnd && i < PTX_NOPND; i++) {
            const struct ptx_opnd *o = &in->o[i];
            if (!reads(in, i))
                continue;
            if ((o->kind == O_REG || o->kind == O_MEM) && o->reg >= 0 && o->reg < kn->nslots)
                read[o->reg] = 1;
            for (int j = 0; o->kind == O_VEC && j < o->n && j < 8; j++)
                if (o->vreg[j] >= 0 && o->vreg[j] < kn->nslots)
                    read[o->vreg[j]] = 1;
        }
    }
    for (int pc = 0; pc < kn->ninsn; pc++) {
        const struct ptx_insn *in = &kn->insn[pc];
        if (in->op != OP_LD || in->vec < 2 || in->o[0].kind != O_VEC || in->mod)
            continue;  /* a volatile load loads every element */
        unsigned used = 0, all = (1u << in->o[0].n) - 1;
        for (int j = 0; j < in->o[0].n && j < 8; j++)
            if (in->o[0].vreg[j] >= 0 && in->o[0].vreg[j] < kn->nslots && read[in->o[0].vreg[j]])
                used |= 1u << j;
        a->live[pc] = (unsigned char)(used == all ? 0 : used); /* none read: left as it is */
    }
    free(read);
    return 0;
}

int ptx_agg_init(struct ptx_agg *a, const struct ptx_module *m, int k)
{
    memset(a, 0, sizeof *a);
    a->m = m;
    if (!m || k < 0 || k >= m->nkernels)
        return -1;
    a->ninsn = m->kernel[k].ninsn;
    a->k = k;
    a->slot = malloc((size_t)(a->ninsn ? a->ninsn : 1) * sizeof *a->slot);
    if (!a->slot)
        return -1;
    for (int i = 0; i < a->ninsn; i++)
        a->slot[i] = -1;
    return live_parts(a, &m->kernel[k]);
}

static struct ptx_agg_pc *pc_of(struct ptx_agg *a, const struct ptx_access *r)
{
    if (r->pc >= (unsigned)a->ninsn)
        return NULL;
    int s = a->slot[r->pc];
    if (s >= 0)
        return &a->pcs[s];
    if (bl_grow(&a->pcs, &a->cap, a->npcs + 1, sizeof *a->pcs, 16))
        return NULL;
    struct ptx_agg_pc *p = &a->pcs[a->npcs];
    memset(p, 0, sizeof *p);
    p->pc = r->pc;
    p->loc = r->loc;
    p->worst.wavefronts = -1;
    a->slot[r->pc] = a->npcs++;
    return p;
}

static void to_bank(const struct ptx_access *r, struct bank_access *b)
{
    memset(b, 0, sizeof *b);
    b->width = r->width;
    b->mask = r->mask;
    b->op = (r->kind == PTX_LD || r->kind == PTX_LDSM) ? BANK_LOAD : BANK_STORE;
    for (int l = 0; l < 32; l++)
        b->offset[l] = r->addr[l];
    if (r->kind == PTX_LDSM || r->kind == PTX_STSM) {
        b->instr = r->kind == PTX_LDSM ? BANK_LDMATRIX : BANK_STMATRIX;
        b->matrices = r->matrices;
        b->trans = r->trans;
    } else if (r->kind == PTX_CPASYNC) {
        b->instr = BANK_CPASYNC;
        b->has_src = 1;
        memcpy(b->src, r->src, sizeof b->src);
    }
}

/* the lowest active lane's word (cp.async: its 128-byte row): patterns are compared relative
 * to it */
static uint32_t base_word(const struct ptx_access *r)
{
    uint32_t lo = 0xffffffffu;
    for (int l = 0; l < 32; l++)
        if ((r->mask >> l & 1) && r->addr[l] < lo)
            lo = r->addr[l];
    return lo & (r->kind == PTX_CPASYNC ? ~127u : ~3u);
}

/* q: the warp of record r, wf wavefronts (its count left as it was) */
static void set_pattern(struct ptx_agg_pattern *q, const struct ptx_access *r, int wf)
{
    q->mask = r->mask;
    memcpy(q->addr, r->addr, sizeof q->addr);
    if (r->kind == PTX_CPASYNC)
        memcpy(q->src, r->src, sizeof q->src);
    q->wavefronts = wf;
    q->width = r->width;
    memcpy(q->block, r->block, sizeof q->block);
    q->warp = r->warp;
}

static void keep_pattern(struct ptx_agg_pc *p, const struct ptx_access *r, int wf)
{
    uint32_t lo = base_word(r);
    for (int i = 0; i < p->npat; i++) {
        struct ptx_agg_pattern *q = &p->pat[i];
        if (q->mask != r->mask || q->width != r->width)
            continue;
        struct ptx_access t = {.mask = q->mask, .kind = r->kind};
        memcpy(t.addr, q->addr, sizeof t.addr);
        uint32_t qlo = base_word(&t);
        int same = 1;
        for (int l = 0; l < 32 && same; l++)
            same = !((r->mask >> l) & 1) || q->addr[l] - qlo == r->addr[l] - lo;
        if (same) {
            q->count++;
            return;
        }
    }
    if (p->npat == PTX_AGG_PATTERNS) {
        p->other++;
        return;
    }
    struct ptx_agg_pattern *q = &p->pat[p->npat++];
    set_pattern(q, r, wf);
    for (int l = 0; l < 32; l++)
        if (!((r->mask >> l) & 1))
            q->addr[l] = 0;
    q->count = 1;
}

static void price(struct ptx_agg *a, const struct ptx_access *r);

#define PEND 8 /* records one warp holds: loads of different arrays interleave (a += x[k] * y[k]) */

int ptx_agg_merge(struct ptx_agg *a, unsigned pc, int store, unsigned width)
{
    if (pc >= (unsigned)a->ninsn)
        return 0;
    if (!a->merge) {
        a->merge = calloc((size_t)a->ninsn * 2, 1);
        a->pend = calloc(32 * PEND, sizeof *a->pend);
        a->palign = calloc((size_t)a->ninsn, 1);
        a->canon = malloc((size_t)a->ninsn * sizeof *a->canon);
        for (int i = 0; a->canon && i < a->ninsn; i++)
            a->canon[i] = -3;
        a->has_pend = calloc(32 * PEND, sizeof *a->has_pend);
        if (!a->merge || !a->pend || !a->has_pend)
            return -1;
    }
    unsigned char *m = &a->merge[2 * pc + (store ? 1 : 0)];
    *m = (unsigned char)((*m & 0x80) | (width > 16 ? 16 : width));
    return 0;
}

int ptx_agg_orphan(struct ptx_agg *a, unsigned pc)
{
    if (!a->merge && ptx_agg_merge(a, 0, 0, 0))
        return -1;
    if (pc < (unsigned)a->ninsn)
        a->merge[2 * pc] |= 0x80;
    return 0;
}

static unsigned merge_cap(const struct ptx_agg *a, const struct ptx_access *r)
{
    if (!a->merge || r->pc >= (unsigned)a->ninsn || (r->kind != PTX_LD && r->kind != PTX_ST))
        return 0;
    return a->merge[2 * r->pc + (r->kind == PTX_ST)] & 0x7f;
}

/* a held record priced: split into access widths the model takes (12 = 8 + 4, or 16 where the
 * compiled code has a 16-byte access there and the address allows it) */
static void flush(struct ptx_agg *a, int w)
{
    if (!a->has_pend || !a->has_pend[w])
        return;
    a->has_pend[w] = 0;
    struct ptx_access *p = &a->pend[w];
    int al16 = 1;
    for (int l = 0; l < 32; l++)
        al16 &= !(p->mask >> l & 1) || p->addr[l] % 16 == 0;
    if (p->width == 12 && al16 && merge_cap(a, p) == 16) { /* one LDS.128, its last word unused */
        struct ptx_access q = *p;
        q.width = 16;
        price(a, &q);
        return;
    }
    if (p->width == 12) {
        struct ptx_access q = *p;
        q.width = 8;
        price(a, &q);
        for (int l = 0; l < 32; l++)
            q.addr[l] += 8;
        q.width = 4;
        price(a, &q);
        return;
    }
    price(a, p);
}

/* the register reg at pc stands for: through `add/sub %r, %s, imm` and `mov %r, %s` before it
 * (the nearest write of each before it in the PTX's order), as ptxas sees
 * %r136 = %r76 - 4 and %r135 = %r76 - 4 as one base */
static int canon_reg(const struct ptx_agg *a, unsigned pc, int reg)
{
    const struct ptx_insn *code = a->m->kernel[a->k].insn;
    for (int hop = 0; hop < 8 && reg >= 0; hop++) {
        int from = -1;
        for (int q = (int)pc - 1; q >= 0 && from < 0; q--) {
            const struct ptx_insn *in = &code[q];
            if (in->nopnd < 2 || in->o[0].kind != O_REG || in->o[0].reg != reg)
                continue;
            if (in->guard < 0 && in->o[1].kind == O_REG &&
                ((in->op == OP_MOV && in->nopnd == 2) ||
                 ((in->op == OP_ADD || in->op == OP_SUB) && in->o[2].kind == O_IMM)))
                from = q;
            else
                return reg; /* another write: the base itself */
        }
        if (from < 0)
            return reg;
        pc = (unsigned)from;
        reg = code[from].o[1].reg;
    }
    return reg;
}

static unsigned imm_align(uint64_t v)
{
    return v == 0 || (v & 15) == 0 ? 16 : (unsigned)(v & (0 - v));
}

/* the alignment (1 .. 16 bytes) reg's value at pc is known to have, as ptxas can prove it:
 * from a symbol's offset, numbers, and the adds, masks, multiplies and shifts between them (a
 * thread's index or a loaded value: 1) */
static unsigned reg_align(const struct ptx_agg *a, unsigned pc, int reg, int depth)
{
    const struct ptx_insn *code = a->m->kernel[a->k].insn;
    if (reg < SR_COUNT || depth > 8)
        return 1;
    for (int q = (int)pc - 1; q >= 0; q--) {
        const struct ptx_insn *in = &code[q];
        if (in->nopnd < 2 || in->o[0].kind != O_REG || in->o[0].reg != reg)
            continue;
        unsigned x[3] = {16, 16, 16};
        for (int i = 1; i < in->nopnd && i < 4; i++) {
            const struct ptx_opnd *o = &in->o[i];
            if (o->kind == O_IMM)
                x[i - 1] = imm_align(o->imm);
            else if (o->kind == O_REG && o->reg == reg) /* i += k in a loop: from before it */
                x[i - 1] = reg_align(a, (unsigned)q, reg, depth + 1);
            else if (o->kind == O_REG)
                x[i - 1] = reg_align(a, (unsigned)q, o->reg, depth + 1);
            else
                x[i - 1] = 1;
        }
        unsigned r;
        switch (in->op) {
        case OP_MOV: case OP_CVTA: case OP_CVT: r = x[0]; break;
        case OP_ADD: case OP_SUB: case OP_OR: r = x[0] < x[1] ? x[0] : x[1]; break;
        case OP_AND: r = x[0] > x[1] ? x[0] : x[1]; break; /* (t * 16) & 496, t & ~15 */
        case OP_MUL: r = in->mod == MOD_HI ? 1 : x[0] * x[1]; break;
        case OP_MAD: {
            unsigned m = in->mod == MOD_HI ? 1 : x[0] * x[1];
            r = m < x[2] ? m : x[2];
            break;
        }
        case OP_SHL:
            r = in->o[2].kind == O_IMM && in->o[2].imm < 5 ? x[0] << in->o[2].imm : 16;
            break;
        default: r = 1;
        }
        return r > 16 ? 16 : r;
    }
    return 1;
}

/* the base register of instruction pc's address (-1: a symbol's or a number), -2: none */
static int base_reg(const struct ptx_agg *a, unsigned pc)
{
    if (pc >= (unsigned)a->ninsn)
        return -2;
    if (a->canon && a->canon[pc] != -3)
        return a->canon[pc];
    const struct ptx_insn *in = &a->m->kernel[a->k].insn[pc];
    int r = -2;
    for (int i = 0; i < in->nopnd && r == -2; i++)
        if (in->o[i].kind == O_MEM)
            r = in->o[i].reg >= 0 ? canon_reg(a, pc, in->o[i].reg) : -1;
    if (a->canon)
        a->canon[pc] = r;
    return r;
}

/* the merged access's alignment follows from its base register's: the runtime checks the
 * address itself, and every record merged shares that base (base_reg) */
static int provable(const struct ptx_agg *a, const struct ptx_access *p, unsigned w)
{
    unsigned al = w == 12 ? 16 : w, pc = p->pc;
    if (a->palign && a->palign[pc])
        return a->palign[pc] >= al;
    int base = base_reg(a, pc);
    unsigned got = base == -1 ? 16 : base < 0 ? 1 : reg_align(a, pc, base, 0);
    if (a->palign)
        a->palign[pc] = (unsigned char)got;
    return got >= al;
}

/* 1: r continues p's bytes in every lane (appended), 2: r's bytes come just before them
 * (prepended: nvcc may load the second word first), at a base aligned to the sum; 0: no.
 * Only accesses off the same base register merge: ptxas merges what it can prove side by
 * side, [%r8] with [%r8+4], not two addresses computed apart that happen to meet. */
static int can_merge(const struct ptx_agg *a, const struct ptx_access *p,
                     const struct ptx_access *r, unsigned cap)
{
    unsigned w = p->width + r->width;
    if (p->kind != r->kind || p->mask != r->mask || r->pc <= p->pc || w > cap ||
        base_reg(a, p->pc) != base_reg(a, r->pc) || !provable(a, p, w) ||
        p->block[0] != r->block[0] || p->block[1] != r->block[1] || p->block[2] != r->block[2])
        return 0;
    unsigned al = w == 12 ? 16 : w;
    int after = 1, before = 1;
    for (int l = 0; l < 32 && (after || before); l++) {
        if (!(p->mask >> l & 1))
            continue;
        after &= r->addr[l] == p->addr[l] + p->width && p->addr[l] % al == 0;
        before &= r->addr[l] + r->width == p->addr[l] && r->addr[l] % al == 0;
    }
    return after ? 1 : before ? 2 : 0;
}

/* A warp's held records: one of them grows when r continues it; a record of another kind
 * (a store after loads) or another block ends them all (no merging across it); when all
 * PEND are held, the narrowest (oldest among equals) is priced to make room. Loads merge past other loads, as ptxas reorders them. */
static void take(struct ptx_agg *a, const struct ptx_access *r)
{
    if (!a->merge) {
        price(a, r);
        return;
    }
    int base = (int)(r->warp & 31) * PEND, free_slot = -1;
    for (int j = 0; j < PEND; j++) {
        struct ptx_access *p = &a->pend[base + j];
        if (!a->has_pend[base + j])
            continue;
        int how = can_merge(a, p, r, merge_cap(a, p));
        if (how) {
            if (how == 2)
                memcpy(p->addr, r->addr, sizeof p->addr);
            p->width = (unsigned char)(p->width + r->width);
            unsigned char own = a->own ? a->own[2 * p->pc + (p->kind == PTX_ST)] : 0;
            if ((a->merge[2 * p->pc] & 0x80) || (own && p->width > own)) {
                /* charged where the compiled code has it */
                p->pc = r->pc;
                p->loc = r->loc;
            }
            if (p->width >= merge_cap(a, p)) /* full: it cannot grow, make room */
                flush(a, base + j);
            return;
        }
    }
    for (int j = 0; j < PEND; j++) {
        const struct ptx_access *p = &a->pend[base + j];
        if (a->has_pend[base + j] && (p->kind != r->kind || r->kind != PTX_LD ||
                                      memcmp(p->block, r->block, sizeof p->block)))
            flush(a, base + j);
        if (!a->has_pend[base + j] && free_slot < 0)
            free_slot = base + j;
    }
    if (merge_cap(a, r) <= r->width) {
        price(a, r);
        return;
    }
    if (free_slot < 0) {
        free_slot = base;
        for (int j = 1; j < PEND; j++) { /* the narrowest (one that has not grown), the
                                            longest held (a loop's next turn is newer) */
            const struct ptx_access *p = &a->pend[base + j], *q = &a->pend[free_slot];
            if (p->width < q->width ||
                (p->width == q->width && a->has_pend[base + j] < a->has_pend[free_slot]))
                free_slot = base + j;
        }
        flush(a, free_slot);
    }
    a->pend[free_slot] = *r;
    a->has_pend[free_slot] = ++a->tick;
}

/* a vector load split as ptxas compiles it (live_parts): each run of read elements at an
 * address aligned to its size is one access, the rest are not loaded */
void ptx_agg_sink(void *ctx, const struct ptx_access *r)
{
    struct ptx_agg *a = ctx;
    unsigned live = a->live && r->kind == PTX_LD && r->pc < (unsigned)a->ninsn ? a->live[r->pc] : 0;
    unsigned n = live ? (unsigned)a->m->kernel[a->k].insn[r->pc].vec : 0;
    if (!live || n < 2 || r->width % n) {
        take(a, r);
        return;
    }
    unsigned each = r->width / n;
    for (unsigned j = 0; j < n;) {
        unsigned g = 4;
        while (g > 1 && (j % g || j + g > n || ((live >> j) & ((1u << g) - 1)) != (1u << g) - 1))
            g /= 2;
        if (!(live >> j & 1)) {
            j++;
            continue;
        }
        struct ptx_access part = *r;
        part.width = (unsigned char)(g * each);
        for (int i = 0; i < 32; i++)
            part.addr[i] += j * each;
        take(a, &part);
        j += g;
    }
}

static void price(struct ptx_agg *a, const struct ptx_access *r)
{
    struct ptx_agg_pc *p = pc_of(a, r);
    if (!p) {
        a->oom = 1;
        return;
    }
    static _Thread_local struct bank_result res;
    struct bank_access b;
    to_bank(r, &b);
    p->kind = r->kind;
    p->width = r->width;
    p->matrices = r->matrices;
    p->trans = r->trans;
    p->bypass = r->kind == PTX_CPASYNC && r->bypass;
    p->inst += 1;
    if (bank_simulate(&b, &res, NULL) != BANK_OK) {
        p->bad++;
        return;
    }
    int ideal = r->kind == PTX_ST ? (int)bank_ideal(&b, &res) : res.passes;
    if (r->kind == PTX_CPASYNC && r->bypass) { /* .cg: its own rule (docs/model.md) */
        struct bank_cg_detail d;
        int w = bank_cg_wavefronts(&b, &d);
        if (w < 0) {
            p->unmodelled++;
            return;
        }
        res.wavefronts = w;
        res.conflicts = w - res.passes;
        ideal = d.ideal;
        if (res.passes && (w + res.passes - 1) / res.passes > res.ways)
            res.ways = (w + res.passes - 1) / res.passes;
    }
    p->wavefronts += res.wavefronts;
    p->ideal += (unsigned)ideal;
    p->conflicts += res.conflicts;
    if (res.ways > p->ways)
        p->ways = res.ways;
    if (res.wavefronts > p->worst.wavefronts)
        set_pattern(&p->worst, r, res.wavefronts);
    keep_pattern(p, r, res.wavefronts);
}

static int is_sys(const char *path, const char *const *sysdirs)
{
    if (strstr(path, "/bin/../targets/") || strstr(path, "/bin/../include/"))
        return 1; /* nvcc names its toolkit's headers from its own directory */
    if (!sysdirs)
        return strstr(path, "/cuda") && strstr(path, "/include/");
    for (int i = 0; sysdirs[i]; i++)
        if (!strncmp(path, sysdirs[i], strlen(sysdirs[i])))
            return 1;
    return 0;
}

static int by_pc(const void *x, const void *y)
{
    const struct ptx_agg_pc *a = x, *b = y;
    return (a->pc > b->pc) - (a->pc < b->pc);
}

struct ptx_frame ptx_agg_frame(const struct ptx_module *m, unsigned loc, enum ptx_agg_charge c,
                               const char *const *sysdirs)
{
    struct ptx_frame f[32], none = {"", 0, 0};
    int n = ptx_loc(m, loc, f, 32);
    if (n == 0)
        return none;
    if (c == PTX_CHARGE_OWN)
        return f[0];
    if (c == PTX_CHARGE_LEARNER_INNER) {
        for (int i = 0; i < n; i++)
            if (!is_sys(f[i].file, sysdirs))
                return f[i];
    } else {
        for (int i = n - 1; i >= 0; i--)
            if (!is_sys(f[i].file, sysdirs))
                return f[i];
    }
    return f[n - 1];
}

static const char *base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int ptx_agg_caps(struct ptx_agg *a, const struct ptx_module *m, int k, const char *named,
                 const char *const *sysdirs, const struct ptx_agg_sass *w, int nw)
{
    unsigned next[2] = {0, 0}; /* the cap of the next line with SASS, walking backwards */
    for (int pc = ptx_kernel_ninsn(m, k) - 1; pc >= 0; pc--) {
        struct ptx_frame f = ptx_agg_frame(m, ptx_insn_loc(m, k, (unsigned)pc),
                                           PTX_CHARGE_LEARNER_INNER, sysdirs);
        if (f.line < 1 || (strcmp(f.file, named) && strcmp(base_of(f.file), base_of(named))))
            continue;
        const struct ptx_agg_sass *l = NULL;
        for (int i = 0; i < nw && !l; i++)
            l = w[i].line == f.line && w[i].n > 0 ? &w[i] : NULL;
        if (!l && ptx_agg_orphan(a, (unsigned)pc))
            return -1;
        for (int st = 0; st < 2; st++) {
            unsigned width = l ? l->width[st] : next[st];
            if (st && l && next[st] > width && next[st] > 4) { /* a store: may grow into the
                                                                   next line's, as ptxas sinks it */
                if (!a->own && !(a->own = calloc((size_t)a->ninsn * 2, 1)))
                    return -1;
                a->own[2 * pc + st] = (unsigned char)(width ? width : 4);
                width = next[st];
            }
            if (l)
                next[st] = l->width[st];
            if (width > 4 && ptx_agg_merge(a, (unsigned)pc, st, width))
                return -1;
        }
    }
    return 0;
}

int ptx_agg_lines(struct ptx_agg *a, enum ptx_agg_charge c, const char *const *sysdirs)
{
    for (int w = 0; a->merge && w < 32 * PEND; w++)
        flush(a, w);
    qsort(a->pcs, (size_t)a->npcs, sizeof *a->pcs, by_pc);
    for (int i = 0; i < a->npcs; i++)
        a->slot[a->pcs[i].pc] = i;
    free(a->lines);
    a->lines = calloc((size_t)(a->npcs ? a->npcs : 1), sizeof *a->lines);
    a->nlines = 0;
    if (!a->lines)
        return -1;
    for (int i = 0; i < a->npcs; i++) {
        const struct ptx_agg_pc *p = &a->pcs[i];
        struct ptx_frame f = ptx_agg_frame(a->m, p->loc, c, sysdirs);
        struct ptx_agg_line *L = NULL;
        for (int j = 0; j < a->nlines && !L; j++)
            if (a->lines[j].line == f.line && !strcmp(a->lines[j].file, f.file))
                L = &a->lines[j];
        if (!L) {
            L = &a->lines[a->nlines++];
            L->file = f.file;
            L->line = f.line;
            L->worst_pc = i;
        }
        a->pcs[i].line = (int)(L - a->lines);
        L->inst += p->inst;
        L->wavefronts += p->wavefronts;
        L->ideal += p->ideal;
        L->conflicts += p->conflicts;
        if (p->ways > L->ways)
            L->ways = p->ways;
        if (p->conflicts > a->pcs[L->worst_pc].conflicts)
            L->worst_pc = i;
        L->npcs++;
        L->unmodelled += p->unmodelled + p->bad;
        L->op_mask |= 1u << p->kind;
    }
    return a->oom ? -1 : 0;
}

void ptx_agg_free(struct ptx_agg *a)
{
    free(a->pcs);
    free(a->lines);
    free(a->slot);
    free(a->merge);
    free(a->own);
    free(a->canon);
    free(a->palign);
    free(a->pend);
    free(a->has_pend);
    free(a->live);
    memset(a, 0, sizeof *a);
}
