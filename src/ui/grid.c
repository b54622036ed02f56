/* grid.c: the 32-bank grid of one warp access (columns = banks, rows = the distinct words a
 * bank serves in a pass, cells = the lanes asking for each word), the inspect cursor, the
 * legend and the parameter line (the results panel under it: results.c). Broadcast, conflict and the worst bank carry glyphs
 * as well as colour. Draws straight into curses; no allocation. */
#include <stdio.h>
#include <string.h>

#include "../render/grid_text.h"
#include "app.h"

#define LABEL 4           /* the row labels' column ("bank", "+3", "p1") */

/* lanes 0-31 and word counts 0-32 in one column: 0-9, then A-W */
static const char base32[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVW??????????????????????????????";

/* the labels' columns: one more with narrow cells, where a cell's text starts at its left
 * edge (a label of Chinese characters, two columns each, needs a space after it) */
static int label_w(int cw)
{
    return cw == 2 ? LABEL + 1 : LABEL;
}

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

/* the header row: bank numbers (every fourth when the cells are narrow, nothing between:
 * a dot in the grid means an idle bank and nothing else) */
static void draw_header(const struct app *a, int y, int x, int cw)
{
    char buf[64];
    attrset(theme_attr(a, UIC_HEADER));
    mvaddstr(y, x, "bank");       /* bank stays bank in Chinese (docs/glossary.md) */
    for (int b = 0; b < BANK_COUNT; b++) {
        if (cw == 2 && b % 4 == 0)
            snprintf(buf, sizeof buf, "%2d", b);
        else if (cw == 2)
            continue;
        else
            snprintf(buf, sizeof buf, "%*d%*s", cw - 1, b, 1, "");
        mvaddstr(y, x + label_w(cw) + b * cw, buf);
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
    else if (cw == 3)    /* a space, one digit (A-V: 10-31) and the mark: cells stay apart */
        snprintf(buf, sizeof buf, " %c%s", base32[lane & 31], mk);
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
    if (r->instr == BANK_LDMATRIX || r->instr == BANK_STMATRIX)
        snprintf(buf, sizeof buf, ui_str(a, UIS_GRID_MATRIX), p + 1);   /* a pass a matrix */
    else if (r->npasses > 1)
        snprintf(buf, sizeof buf, "p%d", p + 1);
    else
        snprintf(buf, sizeof buf, "%s", ui_str(a, UIS_GRID_WORDS));
    text_puts(a, y, x, label_w(cw), buf, theme_attr(a, UIC_HEADER));
    for (int b = 0; b < BANK_COUNT; b++) {
        int n = ps->cell[b].nwords;   /* 0: idle (a dot, as in the first row), 10-32: A-W */
        int worst = b == ps->worst_bank && ps->cost > 1;
        const char *mk = worst ? a->g->worst : " ";
        if (n == 0)
            snprintf(buf, sizeof buf, "%*s%s ", cw - 2, "", a->g->dot);
        else if (cw == 2)
            snprintf(buf, sizeof buf, "%c%s", base32[n & 63], mk);
        else
            snprintf(buf, sizeof buf, "%*d%s", cw - 1, n, mk);
        enum ui_role role = worst ? UIC_WORST : n > 1 ? UIC_CONFLICT : UIC_DIM;
        put_cell(a, y, x + label_w(cw) + b * cw, cw, buf, theme_attr(a, role));
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
    int gw = label_w(cw) + BANK_COUNT * cw;    /* centred in x..x+w */
    if (gw < w)
        x += (w - gw) / 2;
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
                draw_cell(a, r, p, b, wr, cursor, row, x + label_w(cw) + b * cw, cw);
            }
        }
        draw_footer(a, r, p, row++, x, cw);
    }
    if (fit < r->npasses && row < y + h) {
        snprintf(buf, sizeof buf, ui_str(a, UIS_GRID_MORE_PASSES), fit + 1, r->npasses,
                 r->npasses - fit);
        text_puts(a, row, x, w, buf, theme_attr(a, UIC_DIM));
    }
}

/* the legend's items: with narrow cells (80 columns) each mark stuck to its word, so that
 * the words row and the A-W digits fit as well */
static int legend_items(const struct app *a, char item[][80], int narrow, int letters,
                        int matrix)
{
    const char *fmt = narrow ? "%s%s" : "%s %s";
    int n = 0;
    snprintf(item[n++], 80, fmt, a->g->broadcast, ui_str(a, UIS_LEG_BROADCAST));
    snprintf(item[n++], 80, fmt, a->g->conflict, ui_str(a, UIS_LEG_CONFLICT));
    snprintf(item[n++], 80, fmt, a->g->both, ui_str(a, UIS_LEG_BOTH));
    snprintf(item[n++], 80, fmt, a->g->worst, ui_str(a, narrow ? UIS_LEG_WORST_SHORT : UIS_LEG_WORST));
    snprintf(item[n++], 80, fmt, a->g->dot, ui_str(a, UIS_LEG_IDLE));
    enum ui_str words = matrix ? (narrow ? UIS_LEG_WORDS_M_SHORT : UIS_LEG_WORDS_M)
                               : (narrow ? UIS_LEG_WORDS_SHORT : UIS_LEG_WORDS);
    snprintf(item[n++], 80, "%s", ui_str(a, words));
    if (letters)
        snprintf(item[n++], 80, "%s", ui_str(a, UIS_LEG_NARROW));
    return n;
}

void grid_legend(const struct app *a, const struct bank_result *r, int cols, char *buf,
                 size_t size)
{
    int cw = cell_w(a->W, a->opt.present), narrow = cw == 2;
    int matrix = r && (r->instr == BANK_LDMATRIX || r->instr == BANK_STMATRIX);
    char item[8][80];
    int n = legend_items(a, item, narrow, cw <= 3, matrix), w = 0;
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {   /* whole items only: the last ones go when narrow */
        /* the marks apart by one space, the rest by two */
        const char *sep = !o ? "" : (narrow && i < 5) ? " " : "  ";
        int iw = text_width(item[i]) + (int)strlen(sep);
        if (w + iw > cols)
            break;
        o += (size_t)snprintf(buf + o, size - o, "%s%s", sep, item[i]);
        w += iw;
        if (o >= size)
            break;
    }
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
    const struct bank_result *r = &s->res;
    l1[0] = l2[0] = 0;
    if (!s->ok)
        return 0;
    const struct bank_pass *ps = &r->pass[in->pass];
    const struct bank_cell *c = &ps->cell[in->bank];
    char lanes[160], others[160];
    if (in->row >= c->nwords) {
        if (c->nwords == 0)
            snprintf(l1, size, ui_str(a, UIS_INSP_IDLE), in->bank, in->pass + 1);
        else
            snprintf(l1, size, ui_str(a, c->nwords > 1 ? UIS_INSP_SERVES_N : UIS_INSP_SERVES_1),
                     in->bank, in->pass + 1, c->nwords, c->nwords);
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
    char banks[64] = "";
    if (ln->nwords > 1)      /* an 8/16-byte lane spans consecutive banks */
        snprintf(banks, sizeof banks, ui_str(a, UIS_INSP_OVER), ln->bank[0],
                 ln->bank[ln->nwords - 1]);
    if (grid_lane_count(m) > 1)
        snprintf(l1, size, ui_str(a, UIS_INSP_SHARED), in->bank, in->pass + 1,
                 (unsigned long long)word, (unsigned long long)(word * BANK_WORD_BYTES), lanes,
                 lane, (unsigned long long)ln->offset, banks);
    else
        snprintf(l1, size, ui_str(a, UIS_INSP_CELL), in->bank, in->pass + 1,
                 (unsigned long long)word, (unsigned long long)(word * BANK_WORD_BYTES), lane,
                 (unsigned long long)ln->offset, banks);
    if (c->nwords <= 1) {
        snprintf(l2, size, ui_str(a, UIS_INSP_NO_CONFLICT), in->bank, in->pass + 1);
        return 2;
    }
    uint32_t om = 0;
    for (int k = 0; k < c->nwords; k++)
        if (k != in->row)
            om |= c->lanes[k];
    grid_lanes_str(om, others, sizeof others);
    snprintf(l2, size, ui_str(a, grid_lane_count(om) > 1 ? UIS_INSP_CONFLICT_N : UIS_INSP_CONFLICT_1),
             others, in->bank, c->nwords, in->pass + 1, c->nwords);
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
    if (s->ls) {
        for (int i = 0; i < s->ls->nparams && i < PATTERN_MAX_PARAMS; i++) {
            const struct lesson_param *p = &s->ls->params[i];
            o += bl_fmt(buf + o, size - o, "%s%s=%lld", o ? a->g->sep : "", p->name, s->value[i]);
            if (keys && p->key_inc && p->key_dec)
                o += bl_fmt(buf + o, size - o, " [%c/%c]", p->key_dec, p->key_inc);
        }
        if (s->ls->ntypes > 1) {
            key_hint(a, keys, ACT_TYPE, ACT_NONE, hint, sizeof hint);
            o += bl_fmt(buf + o, size - o, ui_str(a, UIS_PARAM_TYPE), o ? a->g->sep : "",
                        s->ls->types[s->type_index], hint);
        }
    } else if (s->env.nparams) {
        for (int i = 0; i < s->env.nparams; i++)
            o += bl_fmt(buf + o, size - o, "%s%s=%lld", o ? a->g->sep : "", s->env.param[i].name,
                        s->env.param[i].value);
    }
    if (s->nwarps > 1) {
        key_hint(a, keys, ACT_WARP_NEXT, ACT_WARP_PREV, hint, sizeof hint);
        o += bl_fmt(buf + o, size - o, "%swarp %u/%u%s", o ? a->g->sep : "", s->warp, s->nwarps,
                    hint);
    }
    if (s->parsed && s->run.pat) {
        const struct pattern_access_info *ai = pattern_access(s->run.pat, s->access);
        key_hint(a, s->naccess > 1 ? keys : 0, ACT_ACCESS, ACT_NONE, hint, sizeof hint);
        char in[32];
        if (ai && ai->instr)
            bank_instr_name((unsigned)ai->instr, (unsigned)ai->matrices, (unsigned)ai->trans,
                            ai->width, in, sizeof in);
        if (ai)
            /* the key by the number, so that a line cut for room keeps it (6.4 at 80x24) */
            bl_fmt(buf + o, size - o, ui_str(a, UIS_PARAM_ACCESS), o ? a->g->sep : "",
                   s->access + 1, s->naccess, hint,
                   ai->instr ? in : ai->kind == PATTERN_STORE ? "store" : "load", ai->array,
                   ai->type, ai->width);
    }
}
