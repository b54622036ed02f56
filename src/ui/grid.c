/* grid.c: the 32-bank grid of one warp access (columns = banks, rows = the distinct words a
 * bank serves in a pass, cells = the lanes asking for each word), the inspect cursor, the
 * results panel and the parameter line. Broadcast, conflict and the worst bank carry glyphs
 * as well as colour. Draws straight into curses; no allocation. */
#include <stdio.h>
#include <string.h>

#include "../render/grid_text.h"
#include "app.h"

#define LABEL 4

static const char base32[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVW";

static int cell_w(int w, int big)
{
    int c = (w - LABEL) / BANK_COUNT;
    int max = big ? 4 : 3;
    if (c > max)
        c = max;
    if (c < 2)
        c = 2;
    return c;
}

static int pass_rows(const struct bank_result *r, int p)
{
    int c = r->pass[p].cost;
    return c > 0 ? c : 1;
}

int grid_rows_wanted(const struct app *a, const struct ui_scene *s)
{
    (void)a;
    if (!s->ok)
        return 3;
    int rows = 1;
    for (int p = 0; p < s->res.npasses && p < BANK_MAX_PASSES; p++)
        rows += pass_rows(&s->res, p) + 1;
    return rows;
}

/* rows shown per pass when h rows are available (header included); returns how many passes
 * fit (each needs a row and its footer; a last row says what did not fit) */
static int allot(const struct bank_result *r, int h, int *shown)
{
    int np = r->npasses;
    int k = np;
    if (1 + 2 * np > h) {
        k = (h - 2) / 2;
        if (k < 0)
            k = 0;
    }
    int budget = h - 1 - 2 * k - (k < np ? 1 : 0);
    for (int p = 0; p < np; p++)
        shown[p] = p < k ? 1 : 0;
    int more = 1;
    while (budget > 0 && more) {
        more = 0;
        for (int p = 0; p < k && budget > 0; p++)
            if (shown[p] < pass_rows(r, p)) {
                shown[p]++;
                budget--;
                more = 1;
            }
    }
    return k;
}

int grid_rows_min(const struct ui_scene *s)
{
    return s->ok ? 1 + 2 * s->res.npasses : 3;
}

static void put_cell(const struct app *a, int y, int x, int cw, const char *txt, attr_t at)
{
    attrset(at);
    mvaddnstr(y, x, txt, -1);
    (void)cw;
    attrset(A_NORMAL);
}

/* the header row: bank numbers (every fourth when the cells are narrow) */
static void draw_header(const struct app *a, int y, int x, int cw)
{
    char buf[64];
    attrset(theme_attr(a, UIC_HEADER));
    mvaddstr(y, x, "bank");
    for (int b = 0; b < BANK_COUNT; b++) {
        if (cw == 2 && b % 4 == 0)
            snprintf(buf, sizeof buf, "%2d", b);
        else if (cw == 2)
            snprintf(buf, sizeof buf, " %s", a->g->dot);
        else
            snprintf(buf, sizeof buf, "%*d%*s", cw - 1, b, 1, "");
        mvaddstr(y, x + LABEL + b * cw, buf);
    }
    attrset(A_NORMAL);
}

/* one cell: the lowest lane asking for word row wr of bank b in pass p, and its mark */
static void draw_cell(const struct app *a, const struct bank_result *r, int p, int b, int wr,
                      int cursor, int y, int cx, int cw)
{
    char buf[64];
    const struct bank_pass *ps = &r->pass[p];
    const struct bank_cell *c = &ps->cell[b];
    if (wr >= c->nwords) {
        if (wr == 0 && ps->lanes) {
            snprintf(buf, sizeof buf, "%*s%s%*s", cw - 2, "", a->g->dot, 1, "");
            put_cell(a, y, cx, cw, buf, theme_attr(a, cursor ? UIC_CURSOR : UIC_DIM));
        } else if (cursor) {
            snprintf(buf, sizeof buf, "%*s", cw, "");
            put_cell(a, y, cx, cw, buf, theme_attr(a, UIC_CURSOR));
        }
        return;
    }
    struct grid_cell gc;
    grid_cell_get(r, p, b, wr, &gc);
    int lane = gc.first_lane, bc = gc.broadcast, cf = gc.conflict;
    const char *mk = cf && bc ? a->g->both : cf ? a->g->conflict : bc ? a->g->broadcast : " ";
    if (cw == 2)
        snprintf(buf, sizeof buf, "%c%s", base32[lane & 31], mk);
    else
        snprintf(buf, sizeof buf, "%*d%s", cw - 1, lane, mk);
    enum ui_role role = UIC_LANE;
    if (cf)
        role = (b == ps->worst_bank && ps->cost > 1) ? UIC_WORST : UIC_CONFLICT;
    else if (bc)
        role = UIC_BROADCAST;
    put_cell(a, y, cx, cw, buf, theme_attr(a, cursor ? UIC_CURSOR : role));
}

/* a pass's footer: its label and the words each bank serves, the worst bank marked */
static void draw_footer(const struct app *a, const struct bank_result *r, int p, int y, int x,
                        int cw)
{
    char buf[64];
    const struct bank_pass *ps = &r->pass[p];
    if (r->npasses > 1)
        snprintf(buf, sizeof buf, "p%d", p + 1);
    else
        snprintf(buf, sizeof buf, "wds");
    attrset(theme_attr(a, UIC_HEADER));
    mvaddstr(y, x, buf);
    attrset(A_NORMAL);
    for (int b = 0; b < BANK_COUNT; b++) {
        int n = ps->cell[b].nwords;
        int worst = b == ps->worst_bank && ps->cost > 1;
        const char *mk = worst ? a->g->worst : " ";
        if (n == 0)
            snprintf(buf, sizeof buf, "%*s", cw, "");
        else if (n == 1)
            snprintf(buf, sizeof buf, "%*s%s ", cw - 2, "", a->g->dot);
        else if (cw == 2)
            snprintf(buf, sizeof buf, "%c%s", n < 10 ? '0' + n : '+', mk);
        else
            snprintf(buf, sizeof buf, "%*d%s", cw - 1, n, mk);
        enum ui_role role = worst ? UIC_WORST : n > 1 ? UIC_CONFLICT : UIC_DIM;
        put_cell(a, y, x + LABEL + b * cw, cw, buf, theme_attr(a, role));
    }
}

void grid_draw(const struct app *a, int y, int x, int w, int h, const struct ui_scene *s,
               const struct ui_inspect *in, int big)
{
    const struct bank_result *r = &s->res;
    int cw = cell_w(w, big);
    char buf[96];
    if (h < 3)
        return;
    draw_header(a, y, x, cw);
    int shown[BANK_MAX_PASSES] = {0};
    int fit = allot(r, h, shown);
    int row = y + 1;
    for (int p = 0; p < fit && p < BANK_MAX_PASSES; p++) {
        int total = pass_rows(r, p);
        int off = 0;                    /* rows scrolled so the inspect cursor shows */
        if (in && in->on && in->pass == p && in->row >= shown[p])
            off = in->row - shown[p] + 1;
        for (int k = 0; k < shown[p]; k++, row++) {
            int wr = k + off;           /* word row */
            if (k == shown[p] - 1 && off + shown[p] < total) {
                snprintf(buf, sizeof buf, "+%d", total - off - shown[p]);
                attrset(theme_attr(a, UIC_DIM));
                mvaddstr(row, x, buf);
                attrset(A_NORMAL);
            }
            for (int b = 0; b < BANK_COUNT; b++) {
                int cursor = in && in->on && in->pass == p && in->bank == b && in->row == wr;
                draw_cell(a, r, p, b, wr, cursor, row, x + LABEL + b * cw, cw);
            }
        }
        draw_footer(a, r, p, row++, x, cw);
    }
    if (fit < r->npasses && row < y + h) {
        snprintf(buf, sizeof buf, "p%d-p%d: %d more pass%s not shown (a taller terminal shows them)",
                 fit + 1, r->npasses, r->npasses - fit, r->npasses - fit > 1 ? "es" : "");
        text_puts(a, row, x, w, buf, theme_attr(a, UIC_DIM));
    }
}

void grid_legend(const struct app *a, char *buf, size_t size)
{
    int narrow = cell_w(a->W, a->opt.present) == 2;
    snprintf(buf, size, "%s broadcast  %s conflict  %s both  %s worst bank  %s",
             a->g->broadcast, a->g->conflict, a->g->both, a->g->worst,
             narrow ? "A-V = lanes 10-31" : "wds, p1-p4: words per bank (per pass)");
}

void grid_inspect_clamp(const struct ui_scene *s, struct ui_inspect *in)
{
    const struct bank_result *r = &s->res;
    if (r->npasses < 1) {
        in->pass = in->row = in->bank = 0;
        return;
    }
    if (in->pass >= r->npasses)
        in->pass = r->npasses - 1;
    if (in->pass < 0)
        in->pass = 0;
    if (in->bank < 0)
        in->bank = BANK_COUNT - 1;
    if (in->bank >= BANK_COUNT)
        in->bank = 0;
    int rows = pass_rows(r, in->pass);
    if (in->row >= rows)
        in->row = rows - 1;
    if (in->row < 0)
        in->row = 0;
}

void grid_inspect_move(const struct ui_scene *s, struct ui_inspect *in, enum key_action act)
{
    const struct bank_result *r = &s->res;
    if (act == ACT_LANE) {
        in->k++;
        return;
    }
    in->k = 0;
    switch (act) {
    case ACT_LEFT: in->bank--; break;
    case ACT_RIGHT: in->bank++; break;
    case ACT_HOME: in->bank = 0; break;
    case ACT_END: in->bank = BANK_COUNT - 1; break;
    case ACT_UP:
        if (in->row > 0)
            in->row--;
        else if (in->pass > 0) {
            in->pass--;
            in->row = pass_rows(r, in->pass) - 1;
        }
        break;
    case ACT_DOWN:
        if (in->row + 1 < pass_rows(r, in->pass))
            in->row++;
        else if (in->pass + 1 < r->npasses) {
            in->pass++;
            in->row = 0;
        }
        break;
    default:
        break;
    }
    grid_inspect_clamp(s, in);
}

int grid_inspect_text(const struct app *a, const struct ui_scene *s, const struct ui_inspect *in,
                      char *l1, char *l2, size_t size)
{
    (void)a;
    const struct bank_result *r = &s->res;
    l1[0] = l2[0] = 0;
    if (!s->ok)
        return 0;
    const struct bank_pass *ps = &r->pass[in->pass];
    const struct bank_cell *c = &ps->cell[in->bank];
    char lanes[160], others[160];
    if (in->row >= c->nwords) {
        if (c->nwords == 0)
            snprintf(l1, size, "bank %d, pass %d: idle (no lane asks it for a word)", in->bank,
                     in->pass + 1);
        else
            snprintf(l1, size, "bank %d, pass %d: serves %d word%s (%d wavefront%s for this bank)",
                     in->bank, in->pass + 1, c->nwords, c->nwords > 1 ? "s" : "", c->nwords,
                     c->nwords > 1 ? "s" : "");
        return 1;
    }
    uint64_t word = c->word[in->row];
    uint32_t m = c->lanes[in->row];
    grid_lanes_str(m, lanes, sizeof lanes);
    int lane = grid_lane_first(m);
    for (int k = in->k % grid_lane_count(m); k > 0; k--)   /* the k-th lane of the cell */
        for (lane++; lane < 32 && !(m >> lane & 1u); lane++)
            ;
    const struct bank_lane *ln = &r->lane[lane];
    char banks[32] = "";
    if (ln->nwords > 1)      /* an 8/16-byte lane spans consecutive banks */
        snprintf(banks, sizeof banks, " over banks %d-%d", ln->bank[0], ln->bank[ln->nwords - 1]);
    if (grid_lane_count(m) > 1)
        snprintf(l1, size, "bank %d, pass %d, word %llu (byte %llu): lanes %s share it (free); "
                 "lane %d at %llu B%s",
                 in->bank, in->pass + 1, (unsigned long long)word,
                 (unsigned long long)(word * BANK_WORD_BYTES), lanes, lane,
                 (unsigned long long)ln->offset, banks);
    else
        snprintf(l1, size, "bank %d, pass %d, word %llu (byte %llu): lane %d at offset %llu B%s",
                 in->bank, in->pass + 1, (unsigned long long)word,
                 (unsigned long long)(word * BANK_WORD_BYTES), lane,
                 (unsigned long long)ln->offset, banks);
    if (c->nwords <= 1) {
        snprintf(l2, size, "no conflict: bank %d serves only this word in pass %d", in->bank,
                 in->pass + 1);
        return 2;
    }
    uint32_t om = 0;
    for (int k = 0; k < c->nwords; k++)
        if (k != in->row)
            om |= c->lanes[k];
    grid_lanes_str(om, others, sizeof others);
    snprintf(l2, size, "conflicts with lane%s %s: bank %d serves %d different words in pass %d "
             "(%d wavefronts)",
             grid_lane_count(om) > 1 ? "s" : "", others, in->bank, c->nwords, in->pass + 1, c->nwords);
    return 2;
}

/* " [w/W]": the keys of a pair of actions on the screens `keys` (empty without them) */
static void key_hint(const struct app *a, unsigned keys, enum key_action one,
                     enum key_action other, char *buf, size_t size)
{
    char k1[16], k2[16];
    int zh = a->lang == LANG_ZH;
    buf[0] = 0;
    if (!keys || !*keys_first(keys, one, zh, k1, sizeof k1))
        return;
    if (other != ACT_NONE && *keys_first(keys, other, zh, k2, sizeof k2))
        snprintf(buf, size, " [%s/%s]", k1, k2);
    else
        snprintf(buf, size, " [%s]", k1);
}

void params_line(const struct app *a, const struct ui_scene *s, unsigned keys, char *buf,
                 size_t size)
{
    size_t o = 0;
    char hint[40];
    buf[0] = 0;
#define ADD(...)                                                                          \
    do {                                                                                  \
        int k_ = snprintf(buf + o, size - o, __VA_ARGS__);                                \
        if (k_ > 0)                                                                       \
            o += (size_t)k_;                                                              \
        if (o >= size)                                                                    \
            o = size - 1;                                                                 \
    } while (0)
    if (s->ls) {
        for (int i = 0; i < s->ls->nparams && i < PATTERN_MAX_PARAMS; i++) {
            const struct lesson_param *p = &s->ls->params[i];
            ADD("%s%s=%lld", o ? a->g->sep : "", p->name, s->value[i]);
            if (keys && p->key_inc && p->key_dec)
                ADD(" [%c/%c]", p->key_dec, p->key_inc);
        }
        if (s->ls->ntypes > 1) {
            key_hint(a, keys, ACT_TYPE, ACT_NONE, hint, sizeof hint);
            ADD("%stype %s%s", o ? a->g->sep : "", s->ls->types[s->type_index], hint);
        }
    } else if (s->env.nparams) {
        for (int i = 0; i < s->env.nparams; i++)
            ADD("%s%s=%lld", o ? a->g->sep : "", s->env.param[i].name, s->env.param[i].value);
    }
    if (s->nwarps > 1) {
        key_hint(a, keys, ACT_WARP_NEXT, ACT_WARP_PREV, hint, sizeof hint);
        ADD("%swarp %u/%u%s", o ? a->g->sep : "", s->warp, s->nwarps, hint);
    }
    if (s->parsed && s->pat) {
        const struct pattern_access_info *ai = pattern_access(s->pat, s->access);
        key_hint(a, s->naccess > 1 ? keys : 0, ACT_ACCESS, ACT_NONE, hint, sizeof hint);
        if (ai)
            ADD("%saccess %d/%d: %s %s (%s, %u B)%s", o ? a->g->sep : "", s->access + 1,
                s->naccess, ai->kind == PATTERN_STORE ? "store" : "load", ai->array, ai->type,
                ai->width, hint);
    }
#undef ADD
}

static const char *plural(int n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

int results_rows(const struct app *a)
{
    return req_hub_ready(&a->hub) ? 3 : 2;
}

static int is_case(const struct ui_scene *s)
{
    const char *k = s->ls ? s->ls->kernel : NULL;
    return k && *k && strcmp(k, "pattern");
}

/* The measured numbers of r in at most w columns: for a pattern the counters (one warp), the
 * time of one warp access and its slowdown against the conflict-free access (docs/gpu.md);
 * for a case kernel the drawn access's time and slowdown and the kernel's own time (its
 * counters go on the source line). Shortened until they fit. */
static void measured_numbers(const struct app *a, const struct gpu_result *r,
                             const struct ui_scene *s, int w, char *buf, size_t size)
{
    int st = s->acc.op == BANK_STORE, kcase = is_case(s);
    double wf = st ? r->wavefronts_st : r->wavefronts_ld, cf = st ? r->conflicts_st : r->conflicts_ld;
    const char *sep = a->g->sep, *x = a->g->utf8 ? "\u00d7" : "x";
    char c[4][96] = {"", "", "", ""}, t[4][128] = {"", "", "", ""}, k[96] = "";
    if (r->has_counters && !kcase) {
        snprintf(c[0], sizeof c[0], "%.1f wavefronts, %.1f conflicts", wf, cf);
        snprintf(c[1], sizeof c[1], "%.1f wavefronts", wf);
        snprintf(c[2], sizeof c[2], "%.1f wf", wf);
    }
    if (kcase && r->has_timing) {
        int n = snprintf(k, sizeof k, "kernel %.3f ms", r->ms_median);
        if (r->gbps > 0 && n > 0 && (size_t)n < sizeof k)
            snprintf(k + n, sizeof k - (size_t)n, ", %.0f GB/s", r->gbps);
    }
    if (r->has_access_timing) {
        snprintf(t[0], sizeof t[0], "%.2f ns per access (%.1f clk)%s%.1f%s the conflict-free %s",
                 r->ns_per_access, r->clk_per_access, sep, r->slowdown, x, st ? "store" : "load");
        snprintf(t[1], sizeof t[1], "%.2f ns/access (%.1f clk)%s%.1f%s conflict-free",
                 r->ns_per_access, r->clk_per_access, sep, r->slowdown, x);
        snprintf(t[2], sizeof t[2], "%.2f ns/access%s%.1f%s conflict-free", r->ns_per_access, sep,
                 r->slowdown, x);
        snprintf(t[3], sizeof t[3], "%.2f ns/access%s%.1f%s", r->ns_per_access, sep, r->slowdown, x);
    }
    for (int i = 0; i < 4; i++) {
        int n = snprintf(buf, size, "%s%s%s", c[i], c[i][0] && t[i][0] ? sep : "", t[i]);
        if (k[0] && n >= 0 && (size_t)n < size)
            snprintf(buf + n, size - (size_t)n, "%s%s", buf[0] ? sep : "", k);
        if (text_width(buf) <= w)
            return;
    }
    /* nothing fits whole: the time per access matters most */
    snprintf(buf, size, "%s", t[3][0] ? t[3] : k[0] ? k : c[2][0] ? c[2] : "-");
}

/* the measured numbers of s's answer in w columns, or why there are none; *dim when not a
 * measurement */
static void measured_text(const struct app *a, const struct ui_scene *s, int w, char *buf,
                          size_t size, int *dim)
{
    const struct req_slot *m = &s->slot;
    *dim = 1;
    if (m->state == REQ_WAITING || m->state == REQ_RUNNING) {
        /* the device's turn goes to other processes first, or another profiler holds the
         * counters: say so, with how long (printf formats: seconds, then turns ahead) */
        const struct gpu_progress *pr = req_hub_progress(&a->hub);
        if (m->state == REQ_RUNNING && pr->phase == GPU_PHASE_WAITING)
            snprintf(buf, size, ui_str(a, UIS_WAITING_GPU), (int)pr->seconds, pr->ahead);
        else if (m->state == REQ_RUNNING && pr->phase == GPU_PHASE_COUNTERS_BUSY)
            snprintf(buf, size, ui_str(a, UIS_COUNTERS_BUSY), (int)pr->seconds);
        else
            snprintf(buf, size, "measuring%s", a->g->ellipsis);
        return;
    }
    if (m->state != REQ_DONE) {
        snprintf(buf, size, "-");
        *dim = 0;
        return;
    }
    const struct gpu_result *g = &m->result;
    if (g->status != GPU_OK) {
        snprintf(buf, size, "- (%s)", g->error[0] ? g->error : "no result");
        return;
    }
    *dim = 0;
    measured_numbers(a, g, s, w, buf, size);
}

/* the model's line: wavefronts, conflicts, ways, passes, or why the model has none */
static void model_line(const struct app *a, int y, int x, int w, const struct ui_scene *s,
                       int big)
{
    char buf[UI_MSG_MAX], b2[UI_MSG_MAX];
    const struct bank_result *r = &s->res;
    int lab = big ? 0 : 10;
    if (!big)
        text_puts(a, y, x, w, ui_str(a, UIS_MODEL), theme_attr(a, UIC_HEADER));
    if (!s->ok) {
        text_puts(a, y, x + lab, w - lab, s->errtext[0] ? s->errtext : "-",
                  theme_attr(a, UIC_ERROR));
        return;
    }
    snprintf(buf, sizeof buf, "%d %s%s%d %s%s%d-way%s%d %s%s", r->wavefronts,
             plural(r->wavefronts, "wavefront", "wavefronts"), a->g->sep, r->conflicts,
             plural(r->conflicts, "conflict", "conflicts"), a->g->sep, r->ways, a->g->sep,
             r->passes, plural(r->passes, "pass", "passes"),
             r->paired ? " (8/16-byte pairs fused)" : "");
    attr_t at = theme_attr(a, r->conflicts ? UIC_CONFLICT : UIC_OK);
    if (big) {
        snprintf(b2, sizeof b2, "%s: %s", ui_str(a, UIS_MODEL), buf);
        text_puts(a, y, x, w, b2, at);
    } else {
        text_puts(a, y, x + lab, w - lab, buf, at);
    }
}

int results_draw(const struct app *a, int y, int x, int w, int h, const struct ui_scene *s,
                 int big)
{
    char buf[UI_MSG_MAX];
    if (h < 1)
        return 0;
    model_line(a, y, x, w, s, big);
    if (h < 2)
        return 1;
    /* measured: the numbers on one line, where they come from on the next */
    const struct gpu_info *info = req_hub_info(&a->hub);
    if (req_hub_opening(&a->hub)) {
        snprintf(buf, sizeof buf, "GPU: looking for a device%s", a->g->ellipsis);
        text_puts(a, y + 1, x, w, buf, theme_attr(a, UIC_DIM));
        return 2;
    }
    if (!req_hub_ready(&a->hub)) {
        snprintf(buf, sizeof buf, "%s: %s", ui_str(a, UIS_NO_GPU),
                 info->reason[0] ? info->reason : "no runner (model only)");
        text_puts(a, y + 1, x, w, buf, theme_attr(a, UIC_DIM));
        return 2;
    }
    char src[GPU_TEXT_MAX + 32];
    const struct gpu_result *g = s->slot.state == REQ_DONE ? &s->slot.result : NULL;
    if (info->backend == GPU_BACKEND_REPLAY)
        snprintf(src, sizeof src, "%s", info->device);
    else if (g && g->status == GPU_OK && !g->has_counters)
        snprintf(src, sizeof src, "measured now on %s (no counters: %s)", info->device,
                 g->counters_note[0] ? g->counters_note : info->counters_reason);
    else
        snprintf(src, sizeof src, "measured now on %s", info->device);
    if (g && g->status == GPU_OK && g->has_counters && is_case(s)) {
        /* a case kernel's counters are the whole kernel's (docs/gpu.md: the offset) */
        int st = s->acc.op == BANK_STORE;
        char kt[UI_MSG_MAX];
        snprintf(kt, sizeof kt, "whole kernel: %.2f wavefronts, %.2f conflicts per %s%s%s",
                 st ? g->wavefronts_st : g->wavefronts_ld, st ? g->conflicts_st : g->conflicts_ld,
                 st ? "store" : "load", a->g->sep, src);
        snprintf(src, sizeof src, "%s", kt);
    }
    int dim, lab = big ? 0 : 10;
    measured_text(a, s, w - (big ? text_width(ui_str(a, UIS_MEASURED)) + 2 : lab), buf,
                  sizeof buf, &dim);
    attr_t at = theme_attr(a, dim ? UIC_DIM : UIC_MEASURED);
    if (big) {
        char b2[UI_MSG_MAX];
        snprintf(b2, sizeof b2, "%s: %s", ui_str(a, UIS_MEASURED), buf);
        text_puts(a, y + 1, x, w, b2, at);
    } else {
        text_puts(a, y + 1, x, 10, ui_str(a, UIS_MEASURED), theme_attr(a, UIC_HEADER));
        text_puts(a, y + 1, x + lab, w - lab, buf, at);
    }
    if (h >= 3)
        text_puts(a, y + 2, x + lab, w - lab, src, theme_attr(a, UIC_DIM));
    return h >= 3 ? 3 : 2;
}
