/* kgrid.c: the kernel view's warp grid (Enter on a line with warps): the line's kept warps,
 * measured on the GPU (the sanitizer route's, struct gpu_kernel_pattern in the result) or
 * executed on the CPU (the PTX executor's, struct kp_warp in the prediction), the worst first,
 * each drawn in the lessons' 32-bank grid (grid.c) through the bank model
 * (gpu_kernel_pattern_access, bank_simulate), labelled where its addresses come from and which
 * warp of which block they are; [ and ] step through the line's distinct patterns with how
 * many warps have each; the why names the colliding lanes of the pattern shown; Enter opens
 * the line's access in the playground. Without warps kgrid_open says so and the kernel view
 * keeps its playground. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../compile/compile.h"
#include "kgrid.h"

struct kgrid {
    const struct kview *k;          /* the view and the row shown (Enter: the playground) */
    int row;
    struct kg_list l;
    int cur;
    int ok;                         /* sc.res holds the current warp's grid */
    struct ui_scene sc;             /* only acc, res and ok: what grid_draw reads */
};

static void add(struct kg_list *l, const struct gpu_kernel_pattern *p, double of, int each,
                int cg, const char *name)
{
    if (l->n == KG_WARPS)
        return;
    struct kg_warp *w = &l->w[l->n++];
    w->p = *p;
    w->of = of;
    w->each = each;
    w->cg = cg;
    bl_fmt(w->name, sizeof w->name, "%s", name);
}

/* worst warps first (the costliest first), then the distinct patterns as kept */
static int order(const void *x, const void *y)
{
    const struct kg_warp *a = x, *b = y;
    int wa = a->p.slot < 0, wb = b->p.slot < 0;
    if (wa != wb)
        return wb - wa;
    if (wa && a->p.wavefronts != b->p.wavefronts)
        return a->p.wavefronts < b->p.wavefronts ? 1 : -1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* the warps of row's line: the measured result's when it has warps, else the shown
 * prediction's when it was executed; the worst first. Returns how many. */
static int kg_gather(const struct kview *k, const struct kv_row *row, struct kg_list *l)
{
    memset(l, 0, sizeof *l);
    if (!row)
        return 0;
    l->line = row->line;
    const struct gpu_kernel_result *r = &k->res;
    if (k->has_res && r->err.status == GPU_KERNEL_OK && r->npats) {
        l->measured = 1;
        for (int i = 0; i < r->ninsts; i++) {
            const struct gpu_kernel_inst *in = &r->insts[i];
            if (in->file != row->file || in->line != row->line)
                continue;
            int each = sass_each_lane(in->op, in->sass), cg = sass_cg(in->sass);
            for (int j = 0; j < r->npats; j++)
                if (r->pats[j].pc == in->pc)
                    add(l, &r->pats[j], in->inst, each, cg, in->sass);
        }
    } else if (kv_model_shown(k) && k->pred.executed && row->file == 0) {
        for (int i = 0; i < k->pred.nwarps; i++) {
            const struct kp_warp *w = &k->pred.warps[i];
            if (w->line != row->line)
                continue;
            char name[32];
            bl_fmt(name, sizeof name, "%s %u B", gpu_kernel_op_name(w->p.op), w->p.width);
            add(l, &w->p, w->inst, 0, 0, name);
        }
    }
    for (int i = 0; i < l->n; i++)
        l->w[i].seq = i;
    qsort(l->w, (size_t)l->n, sizeof l->w[0], order);
    return l->n;
}

static void show(struct kgrid *g)
{
    g->ok = 0;
    memset(&g->sc.res, 0, sizeof g->sc.res);
    if (g->cur < 0 || g->cur >= g->l.n)
        return;
    const struct kg_warp *w = &g->l.w[g->cur];
    gpu_kernel_pattern_access(&w->p, w->each, &g->sc.acc);
    g->ok = bank_simulate(&g->sc.acc, &g->sc.res, NULL) == BANK_OK;
    g->sc.ok = g->ok;
}

int kgrid_open(struct app *a, const struct kview *k, const struct kv_row *row)
{
    struct kgrid *g = ui_state(a, UI_KGRID);
    if (!kg_gather(k, row, &g->l))
        return 1;
    g->cur = 0;
    g->k = k;
    g->row = (int)(row - k->rows);
    show(g);
    return ui_push(a, UI_KGRID);
}

/* why: the costliest pass's worst bank, its words and the lanes asking for them */
static void kg_why(const struct app *a, const struct bank_result *r, char *buf, size_t size)
{
    int pw = 0;
    for (int i = 1; i < r->npasses && i < BANK_MAX_PASSES; i++)
        if (r->pass[i].cost > r->pass[pw].cost)
            pw = i;
    int bank = r->pass[pw].worst_bank;
    if (r->ways <= 1 || bank < 0) {
        bl_fmt(buf, size, ui_str(a, UIS_KG_FREE), r->npasses);
        return;
    }
    const struct bank_cell *c = &r->pass[pw].cell[bank];
    char words[96], lanes[96];
    kp_fmt_cell(c, words, sizeof words, lanes, sizeof lanes);
    bl_fmt(buf, size, ui_str(a, UIS_KG_WHY), pw + 1, r->npasses, bank, c->nwords, words, lanes,
           r->pass[pw].cost);
}

static void kg_draw(const struct app *a, const void *st)
{
    const struct kgrid *g = st;
    char buf[UI_MSG_MAX], dims[160];
    bl_fmt(buf, sizeof buf, ui_str(a, UIS_KG_TITLE), g->l.line);
    app_title(a, buf, NULL);
    if (g->cur >= g->l.n) {
        app_keybar(a, KS_KGRID, NULL, 0);
        return;
    }
    const struct kg_warp *w = &g->l.w[g->cur];
    const struct gpu_kernel_pattern *p = &w->p;
    int y = 1, width = a->W - 2;
    int launch = g->l.measured ? 0 : g->k->pred.main_launch;   /* a program's: main's launch */
    if (launch > 0)
        bl_fmt(buf, sizeof buf, ui_str(a, UIS_KG_EXECUTED_MAIN), launch, p->warp, p->block[0],
               p->block[1], p->block[2]);
    else
        bl_fmt(buf, sizeof buf, ui_str(a, g->l.measured ? UIS_KG_MEASURED : UIS_KG_EXECUTED),
               p->warp, p->block[0], p->block[1], p->block[2]);
    text_puts(a, y++, 1, width, buf, A_BOLD);
    if (p->slot < 0)
        bl_fmt(buf, sizeof buf, ui_str(a, UIS_KG_WORST), g->cur + 1, g->l.n, w->name, w->of,
               w->each ? p->wavefronts_each : p->wavefronts);
    else
        bl_fmt(buf, sizeof buf, ui_str(a, UIS_KG_PATTERN), g->cur + 1, g->l.n, w->name,
               p->count, w->of, w->each ? p->wavefronts_each : p->wavefronts);
    y += text_draw(a, y, 1, width, 2, buf, 0, A_NORMAL);
    if (!g->ok) {
        text_puts(a, y, 1, width, ui_str(a, UIS_KG_BAD), theme_attr(a, UIC_DIM));
        app_keybar(a, KS_KGRID, NULL, 0);
        return;
    }
    struct bank_cg_detail cg;
    int cgw = w->cg ? bank_cg_wavefronts(&g->sc.acc, &cg) : -1;
    if (cgw >= 0) /* .cg: its rule's why, not .ca's passes */
        bl_fmt(buf, sizeof buf, ui_str(a, UIS_KG_WHY_CG), cgw, cg.groups, cg.chunks, cg.mixed);
    else
        kg_why(a, &g->sc.res, buf, sizeof buf);
    y += text_draw(a, y, 1, width, 2, buf, 0, theme_attr(a, UIC_CONFLICT));
    int h = a->H - 2 - y;                  /* the legend and the key bar below */
    grid_draw(a, y, 0, a->W, h, &g->sc, NULL, a->opt.present);
    grid_legend(a, &g->sc.res, width, dims, sizeof dims);
    text_puts(a, a->H - 2, 1, width, dims, theme_attr(a, UIC_DIM));
    app_keybar(a, KS_KGRID, NULL, 0);
}

static enum ui_result kg_key(struct app *a, void *st, const struct ui_key *k)
{
    struct kgrid *g = st;
    if (k->action == ACT_GO) {         /* the line's access in the playground, as the model
                                          reads it from the source */
        char why[UI_MSG_MAX];
        if (g->k && g->row >= 0 && g->row < g->k->nrows &&
            kv_play_open(a, g->k, &g->k->rows[g->row], why, sizeof why) != 0)
            app_msg(a, 1, "%s", why);
        return UI_HANDLED;
    }
    if (k->action != ACT_PAT_NEXT && k->action != ACT_PAT_PREV)
        return UI_IGNORED;             /* Esc (back), ?, q, l: the loop's */
    if (g->l.n > 0) {
        g->cur = (g->cur + (k->action == ACT_PAT_NEXT ? 1 : g->l.n - 1)) % g->l.n;
        show(g);
    }
    return UI_HANDLED;
}

const struct ui_screen screen_kgrid = {
    .name = "kernel grid", .state_size = sizeof(struct kgrid), .draw = kg_draw, .key = kg_key,
    .keys = KS_KGRID,
};
