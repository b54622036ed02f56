/* ptx_agg.c: executed shared accesses priced by the bank model and summed per instruction and
 * per line (ptx_agg.h). An atomic is priced as a store of its width (the model has loads,
 * stores, matrix instructions and cp.async); cp.async with its global sources. */
#include <stdlib.h>
#include <string.h>

#include "../model/bank.h"
#include "ptx_agg.h"
#include "ptx_internal.h"

int ptx_agg_init(struct ptx_agg *a, const struct ptx_module *m, int k)
{
    memset(a, 0, sizeof *a);
    a->m = m;
    if (!m || k < 0 || k >= m->nkernels)
        return -1;
    a->ninsn = m->kernel[k].ninsn;
    a->slot = malloc((size_t)(a->ninsn ? a->ninsn : 1) * sizeof *a->slot);
    if (!a->slot)
        return -1;
    for (int i = 0; i < a->ninsn; i++)
        a->slot[i] = -1;
    return 0;
}

static struct ptx_agg_pc *pc_of(struct ptx_agg *a, const struct ptx_access *r)
{
    if (r->pc >= (unsigned)a->ninsn)
        return NULL;
    int s = a->slot[r->pc];
    if (s >= 0)
        return &a->pcs[s];
    if (a->npcs == a->cap) {
        int n = a->cap ? a->cap * 2 : 16;
        void *p = realloc(a->pcs, (size_t)n * sizeof *a->pcs);
        if (!p)
            return NULL;
        a->pcs = p;
        a->cap = n;
    }
    struct ptx_agg_pc *p = &a->pcs[a->npcs];
    memset(p, 0, sizeof *p);
    p->pc = r->pc;
    p->loc = r->loc;
    p->worst_wf = -1;
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

static void keep_pattern(struct ptx_agg_pc *p, const struct ptx_access *r, int wf)
{
    for (int i = 0; i < p->npat; i++) {
        struct ptx_agg_pattern *q = &p->pat[i];
        if (q->mask != r->mask)
            continue;
        int same = 1;
        for (int l = 0; l < 32 && same; l++)
            same = !((r->mask >> l) & 1) || q->addr[l] == r->addr[l];
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
    q->mask = r->mask;
    for (int l = 0; l < 32; l++)
        q->addr[l] = (r->mask >> l) & 1 ? r->addr[l] : 0;
    q->count = 1;
    q->wavefronts = wf;
}

void ptx_agg_sink(void *ctx, const struct ptx_access *r)
{
    struct ptx_agg *a = ctx;
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
    p->inst += 1;
    if (bank_simulate(&b, &res, NULL) != BANK_OK) {
        p->bad++;
        return;
    }
    p->wavefronts += res.wavefronts;
    p->ideal += res.passes;
    p->conflicts += res.conflicts;
    if (res.ways > p->ways)
        p->ways = res.ways;
    if (res.wavefronts > p->worst_wf) {
        p->worst_wf = res.wavefronts;
        p->worst_mask = r->mask;
        memcpy(p->worst_addr, r->addr, sizeof p->worst_addr);
        memcpy(p->worst_block, r->block, sizeof p->worst_block);
        p->worst_warp = r->warp;
    }
    keep_pattern(p, r, res.wavefronts);
}

static int is_sys(const char *path, const char *const *sysdirs)
{
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

/* the frame pc p is charged to */
static struct ptx_frame charge(const struct ptx_agg *a, const struct ptx_agg_pc *p,
                               enum ptx_agg_charge c, const char *const *sysdirs)
{
    struct ptx_frame f[32], none = {"", 0, 0};
    int n = ptx_loc(a->m, p->loc, f, 32);
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

int ptx_agg_lines(struct ptx_agg *a, enum ptx_agg_charge c, const char *const *sysdirs)
{
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
        struct ptx_frame f = charge(a, p, c, sysdirs);
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
        L->inst += p->inst;
        L->wavefronts += p->wavefronts;
        L->ideal += p->ideal;
        L->conflicts += p->conflicts;
        if (p->ways > L->ways)
            L->ways = p->ways;
        if (p->conflicts > a->pcs[L->worst_pc].conflicts)
            L->worst_pc = i;
        L->npcs++;
        L->op_mask |= 1u << p->kind;
    }
    return a->oom ? -1 : 0;
}

void ptx_agg_free(struct ptx_agg *a)
{
    free(a->pcs);
    free(a->lines);
    free(a->slot);
    memset(a, 0, sizeof *a);
}
