/* grid_text.c: the bank grid of one warp access as text (see grid_text.h for the layout).
 * Columns are banks, rows the distinct words a bank serves in a pass; a cell shows the lowest
 * lane asking for that word plus a mark. Writes to a FILE with no allocation; no curses. */
#include "grid_text.h"

#include <inttypes.h>
#include <string.h>

#include "../base/wrap.h"
#include "../base/msg.h"

/* the language of the text being written (grid_text_write sets it from its options) */
static enum bl_lang lang;

static const char *T(int id)
{
    return bl_msg_format(id, lang);
}

/* s right-aligned in width columns */
static void put_right(FILE *f, const char *s, int width)
{
    for (int w = bl_cols(s); w < width; w++)
        fputc(' ', f);
    fputs(s, f);
}

struct glyphs {
    const char *h, *v, *tl, *tm, *tr, *ml, *mm, *mr, *bl, *bm, *br;
    const char *worst;  /* under the worst bank in the "words" row */
    const char *idle;   /* a bank nobody uses in this pass */
};

static const struct glyphs glyphs_utf8 = {
    "\u2500", "\u2502", "\u250c", "\u252c", "\u2510", "\u251c", "\u253c", "\u2524",
    "\u2514", "\u2534", "\u2518", "\u25b2", "\u00b7",
};
static const struct glyphs glyphs_ascii = {
    "-", "|", "+", "+", "+", "+", "+", "+", "+", "+", "+", "^", ".",
};

/* ANSI roles; colour is never the only cue (every coloured cell also has a mark). */
#define SGR_RESET "\033[0m"
#define SGR_BOLD "\033[1m"
#define SGR_CONFLICT "\033[1;31m"
#define SGR_BROADCAST "\033[36m"
#define SGR_BOTH "\033[1;35m"
#define SGR_WORST "\033[1;33m"

void grid_text_options_init(struct grid_text_options *opt)
{
    opt->ascii = 0;
    opt->color = 0;
    opt->cols = 80;
    opt->lanes = -1;
    opt->summary = 1;
    opt->zh = 0;
}

int grid_banks_per_band(int cols)
{
    if (cols <= 0)
        cols = 80;
    return cols >= GRID_WIDE_COLS ? 32 : 16;
}

void grid_cell_get(const struct bank_result *res, int pass, int bank, int row,
                   struct grid_cell *out)
{
    memset(out, 0, sizeof *out);
    out->first_lane = -1;
    out->mark = ' ';
    if (pass < 0 || pass >= res->npasses || pass >= BANK_MAX_PASSES || bank < 0 ||
        bank >= BANK_COUNT || row < 0)
        return;
    const struct bank_pass *p = &res->pass[pass];
    const struct bank_cell *c = &p->cell[bank];
    out->conflict = c->nwords > 1;
    out->worst = p->worst_bank == bank;
    if (row >= c->nwords || row >= BANK_MAX_CELL_WORDS)
        return;
    out->used = 1;
    out->word = c->word[row];
    out->lanes = c->lanes[row];
    out->nlanes = grid_lane_count(out->lanes);
    out->first_lane = grid_lane_first(out->lanes);
    out->broadcast = out->nlanes > 1 && res->op == BANK_LOAD;
    out->same = out->nlanes > 1 && res->op != BANK_LOAD;
    if (out->broadcast && out->conflict)
        out->mark = GRID_MARK_BOTH;
    else if (out->broadcast)
        out->mark = GRID_MARK_BROADCAST;
    else if (out->conflict)
        out->mark = GRID_MARK_CONFLICT;
    else if (out->same)
        out->mark = GRID_MARK_SAME;
}

int grid_lanes_str(uint32_t lanes, char *buf, size_t size)
{
    size_t len = 0;
    char tmp[16];
    if (size)
        buf[0] = 0;
    if (!lanes) {
        if (size)
            snprintf(buf, size, "none");
        return 4;
    }
    for (int n = 0; n < 32;) {
        if (!(lanes >> n & 1u)) {
            n++;
            continue;
        }
        int m = n;
        while (m + 1 < 32 && (lanes >> (m + 1) & 1u))
            m++;
        int k;
        if (m == n)
            k = snprintf(tmp, sizeof tmp, "%s%d", len ? "," : "", n);
        else
            k = snprintf(tmp, sizeof tmp, "%s%d-%d", len ? "," : "", n, m);
        if (len + (size_t)k < size)
            memcpy(buf + len, tmp, (size_t)k + 1);
        else if (size)
            buf[size - 1 < len ? size - 1 : len] = 0;
        len += (size_t)k;
        n = m + 1;
    }
    return (int)len;
}

static void put_n(FILE *f, const char *s, int n)
{
    for (int i = 0; i < n; i++)
        fputs(s, f);
}

/* after the last bank of a group of 8: the group's right border */
static void group_end(FILE *f, const struct glyphs *g, int k)
{
    if (k % 8 == 7) {
        fputc(' ', f);
        fputs(g->v, f);
    }
}

/* A horizontal rule of one band: left, middle and right junctions. */
static void rule(FILE *f, const struct glyphs *g, int banks, const char *l, const char *m,
                 const char *r)
{
    put_n(f, " ", GRID_LABEL_COLS);
    fputs(l, f);
    for (int grp = 0; grp < banks / 8; grp++) {
        put_n(f, g->h, 8 * GRID_CELL_COLS + 1);
        fputs(grp + 1 < banks / 8 ? m : r, f);
    }
    fputc('\n', f);
}

static const char *cell_sgr(char mark)
{
    switch (mark) {
    case GRID_MARK_BROADCAST: return SGR_BROADCAST;
    case GRID_MARK_CONFLICT: return SGR_CONFLICT;
    case GRID_MARK_BOTH: return SGR_BOTH;
    }
    return NULL;
}

/* One band (banks b0 .. b0+banks-1) of one pass: header, word rows, "words" row. */
static void band(FILE *f, const struct bank_result *res, int pass, int b0, int banks,
                 const struct glyphs *g, int color)
{
    const struct bank_pass *p = &res->pass[pass];
    rule(f, g, banks, g->tl, g->tm, g->tr);
    fprintf(f, "%*s ", GRID_LABEL_COLS - 1, "bank");
    fputs(g->v, f);
    for (int b = b0; b < b0 + banks; b++) {
        fprintf(f, " %2d ", b);
        group_end(f, g, b - b0);
    }
    fputc('\n', f);
    rule(f, g, banks, g->ml, g->mm, g->mr);
    int rows = 0;  /* this band's tallest bank: a band of idle banks gets no rows */
    for (int b = b0; b < b0 + banks; b++)
        rows = p->cell[b].nwords > rows ? p->cell[b].nwords : rows;
    for (int row = 0; row < rows; row++) {
        fprintf(f, "%*d ", GRID_LABEL_COLS - 1, row + 1);
        fputs(g->v, f);
        for (int b = b0; b < b0 + banks; b++) {
            struct grid_cell c;
            grid_cell_get(res, pass, b, row, &c);
            fputc(' ', f);
            const char *sgr = color && c.used ? cell_sgr(c.mark) : NULL;
            if (sgr)
                fputs(sgr, f);
            if (c.used)
                fprintf(f, "%2d%c", c.first_lane, c.mark);
            else
                fputs("   ", f);
            if (sgr)
                fputs(SGR_RESET, f);
            group_end(f, g, b - b0);
        }
        fputc('\n', f);
    }
    if (rows > 0)
        rule(f, g, banks, g->ml, g->mm, g->mr);
    put_right(f, T(GT_WORDS), GRID_LABEL_COLS - 1);
    fputc(' ', f);
    fputs(g->v, f);
    for (int b = b0; b < b0 + banks; b++) {
        int n = p->cell[b].nwords;
        int worst = p->cost > 1 && p->worst_bank == b;
        fputc(' ', f);
        if (n == 0) {
            fputs(" ", f);
            fputs(g->idle, f);
            fputc(' ', f);
        } else {
            const char *sgr = !color ? NULL : worst ? SGR_WORST : n > 1 ? SGR_CONFLICT : NULL;
            if (sgr)
                fputs(sgr, f);
            fprintf(f, "%2d", n);
            if (worst)
                fputs(g->worst, f);
            else
                fputc(n > 1 ? GRID_MARK_CONFLICT : ' ', f);
            if (sgr)
                fputs(SGR_RESET, f);
        }
        group_end(f, g, b - b0);
    }
    fputc('\n', f);
    rule(f, g, banks, g->bl, g->bm, g->br);
}

/* The lanes a pass serves, as the hardware splits them (active or not). */
static uint32_t pass_span(const struct bank_result *res, int pass)
{
    int per = res->pass_lanes > 0 ? res->pass_lanes : BANK_LANES / (res->npasses > 0 ? res->npasses : 1);
    uint32_t span = 0;
    for (int n = pass * per; n < (pass + 1) * per && n < BANK_LANES; n++)
        span |= 1u << n;
    return span;
}

/* Broadcast words of one pass, packed into lines of at most cols columns. Neighbouring banks
 * holding consecutive words for the same lanes (8- and 16-byte accesses) are merged into one
 * item: "banks 0-3 words 0-3: lanes 0-1". */
struct bc_run {
    int bank0, bank1;
    uint64_t word0, word1;
    uint32_t lanes;
    char mark;
};

static void broadcast_legend(FILE *f, const struct bank_result *res, int pass, int cols)
{
    /* A pass serves at most 32 lanes x 4 words = 128 requests, so at most 64 broadcast words. */
    struct bc_run run[64];
    int nrun = 0;
    for (int b = 0; b < BANK_COUNT; b++) {
        for (int row = 0; row < res->pass[pass].cell[b].nwords; row++) {
            struct grid_cell c;
            grid_cell_get(res, pass, b, row, &c);
            if (!c.broadcast)
                continue;
            int k;
            for (k = 0; k < nrun; k++)
                if (run[k].bank1 + 1 == b && run[k].word1 + 1 == c.word &&
                    run[k].lanes == c.lanes && run[k].mark == c.mark)
                    break;
            if (k < nrun) {
                run[k].bank1 = b;
                run[k].word1 = c.word;
            } else if (nrun < (int)(sizeof run / sizeof run[0])) {
                run[nrun++] = (struct bc_run){b, b, c.word, c.word, c.lanes, c.mark};
            }
        }
    }
    int col = 0;
    for (int k = 0; k < nrun; k++) {
        char lanes[128], item[256];
        grid_lanes_str(run[k].lanes, lanes, sizeof lanes);
        int n;
        if (run[k].bank0 == run[k].bank1)
            n = snprintf(item, sizeof item, T(GT_BC_ONE), run[k].bank0,
                         (unsigned long long)run[k].word0, lanes);
        else
            n = snprintf(item, sizeof item, T(GT_BC_RUN), run[k].bank0, run[k].bank1,
                         (unsigned long long)run[k].word0, (unsigned long long)run[k].word1,
                         lanes);
        int indent = bl_cols(T(GT_BROADCAST));
        n = bl_cols(item);
        if (col == 0) {
            fputs(T(GT_BROADCAST), f);
            col = indent;
        } else if (col + 2 + n > cols) {
            fputs(T(GT_SEMICOLON), f);
            fputc('\n', f);
            put_n(f, " ", indent);
            col = indent;
        } else {
            fputs(T(GT_ITEM_SEP), f);
            col += 2;
        }
        fputs(item, f);
        col += n;
    }
    if (col)
        fputc('\n', f);
}

/* The fields of one lane's line of the table, as text. */
struct lane_row {
    char lane[12], offset[24], word[48], bank[8], pass[12];
    char mark;
};

static void lane_row_fill(const struct bank_result *res, int n, struct lane_row *r)
{
    const struct bank_lane *l = &res->lane[n];
    snprintf(r->lane, sizeof r->lane, "%d", n);
    snprintf(r->offset, sizeof r->offset, "%" PRIu64, l->offset);
    int nw = l->nwords > 0 && l->nwords <= BANK_MAX_LANE_WORDS ? l->nwords : 1;
    if (nw > 1) {
        snprintf(r->word, sizeof r->word, "%" PRIu64 "-%" PRIu64, l->word[0], l->word[nw - 1]);
        snprintf(r->bank, sizeof r->bank, "%u-%u", l->bank[0], l->bank[nw - 1]);
    } else {
        snprintf(r->word, sizeof r->word, "%" PRIu64, l->word[0]);
        snprintf(r->bank, sizeof r->bank, "%u", l->bank[0]);
    }
    if (l->active)
        snprintf(r->pass, sizeof r->pass, "%d", l->pass + 1);
    else
        snprintf(r->pass, sizeof r->pass, "-");
    r->mark = !l->active ? '-' : l->conflict ? GRID_MARK_CONFLICT : ' ';
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

/* Per-lane table: two lanes per line (0-15 left, 16-31 right) when that fits, else one. */
static void lane_table(FILE *f, const struct bank_result *res, int cols, int force)
{
    struct lane_row rows[BANK_LANES];
    int wo = 6, ww = 4, wb = 4;
    for (int n = 0; n < BANK_LANES; n++) {
        lane_row_fill(res, n, &rows[n]);
        wo = max_int(wo, (int)strlen(rows[n].offset));
        ww = max_int(ww, (int)strlen(rows[n].word));
        wb = max_int(wb, (int)strlen(rows[n].bank));
    }
    int entry = 4 + 2 + wo + 2 + ww + 2 + wb + 2 + 4 + 1;
    int two = 2 * entry + 4 <= cols;
    if (!two && !force)
        return;
    fputc('\n', f);
    int per_line = two ? 2 : 1;
    for (int k = 0; k < per_line; k++) {
        fputs(k ? "    " : "", f);
        put_right(f, "lane", 4);
        fputs("  ", f);
        put_right(f, T(GT_OFFSET), wo);
        fputs("  ", f);
        put_right(f, T(GT_WORD), ww);
        fputs("  ", f);
        put_right(f, "bank", wb);
        fputs("  ", f);
        put_right(f, T(GT_PASS), 4);
        fputs(k + 1 < per_line ? " " : "", f);
    }
    fputc('\n', f);
    int nlines = BANK_LANES / per_line;
    for (int i = 0; i < nlines; i++) {
        for (int k = 0; k < per_line; k++) {
            const struct lane_row *r = &rows[i + k * nlines];
            fprintf(f, "%s%4s  %*s  %*s  %*s  %4s", k ? "    " : "", r->lane, wo, r->offset,
                    ww, r->word, wb, r->bank, r->pass);
            if (r->mark != ' ' || k + 1 < per_line)
                fputc(r->mark, f);
        }
        fputc('\n', f);
    }
    fputs(T(GT_LANE_NOTE), f);
}

static void summary(FILE *f, const struct bank_result *res, const struct glyphs *g, int color)
{
    char lanes[128];
    fputc('\n', f);
    if (color)
        fputs(SGR_BOLD, f);
    fprintf(f, T(GT_SUMMARY), res->wavefronts, res->passes, res->conflicts, res->ways,
            T(res->paired ? GT_YES : GT_NO));
    if (color)
        fputs(SGR_RESET, f);
    grid_lanes_str(res->conflict_lanes, lanes, sizeof lanes);
    fprintf(f, T(GT_CONFLICT_LANES), res->conflict_lanes ? lanes : T(GT_NONE));
    if (res->conflict_lanes)
        fprintf(f, " (%d)", grid_lane_count(res->conflict_lanes));
    fputc('\n', f);
    int seen[5] = {0};  /* broadcast, conflict, both, worst, same word stored */
    for (int p = 0; p < res->npasses && p < BANK_MAX_PASSES; p++) {
        if (res->pass[p].cost > 1)
            seen[3] = 1;
        for (int b = 0; b < BANK_COUNT; b++)
            for (int row = 0; row < res->pass[p].cell[b].nwords; row++) {
                struct grid_cell c;
                grid_cell_get(res, p, b, row, &c);
                seen[0] |= c.mark == GRID_MARK_BROADCAST;
                seen[1] |= c.mark == GRID_MARK_CONFLICT;
                seen[2] |= c.mark == GRID_MARK_BOTH;
                seen[4] |= c.mark == GRID_MARK_SAME;
            }
    }
    fputs(T(GT_CELL), f);
    if (seen[0])
        fprintf(f, T(GT_M_BROADCAST), GRID_MARK_BROADCAST);
    if (seen[1])
        fprintf(f, T(GT_M_CONFLICT), GRID_MARK_CONFLICT);
    if (seen[2])
        fprintf(f, T(GT_M_BOTH), GRID_MARK_BOTH);
    if (seen[4])
        fprintf(f, T(GT_M_SAME), GRID_MARK_SAME);
    if (seen[3])
        fprintf(f, T(GT_M_WORST), g->worst);
    fputs("\n", f);
}

/* The head line of a matrix instruction or cp.async (instead of "load of N bytes"). */
static void instr_head(FILE *f, const struct bank_result *res, unsigned width, uint32_t mask)
{
    char name[32];
    bank_instr_name(res->instr, res->matrices, res->trans, width, name, sizeof name);
    if (res->instr == BANK_CPASYNC) {
        fprintf(f, T(GT_CPASYNC), name, width, (unsigned)mask,
                grid_lane_count(mask), grid_lane_count(mask) == 1 ? "" : "s", res->npasses,
                res->npasses == 1 ? "" : "es", res->pass_lanes);
        return;
    }
    fprintf(f, T(res->instr == BANK_LDMATRIX ? GT_MATRIX_LOADS : GT_MATRIX_STORES), name,
            res->matrices, res->matrices == 1 ? "x" : "ces", 8 * res->matrices - 1);
}

/* A matrix's rows: which lane gives each, the banks it covers, and the earlier row it
 * collides with (other bytes in a bank both use) or repeats (the same row: free). */
static void matrix_rows(FILE *f, const struct bank_result *res, int p)
{
    for (int j = 0; j < 8; j++) {
        int n = p * 8 + j;
        const struct bank_lane *l = &res->lane[n];
        fprintf(f, T(GT_ROW), j, n, (unsigned long long)l->offset,
                (unsigned long long)l->offset + 15, l->bank[0], l->bank[3]);
        for (int k = 0; k < j; k++) {
            const struct bank_lane *o = &res->lane[p * 8 + k];
            if (o->offset == l->offset) {
                fprintf(f, T(GT_ROW_SAME), k);
                break;
            }
            if (o->bank[0] == l->bank[0]) {  /* 16-byte aligned rows: same 4 banks or none */
                fprintf(f, T(GT_ROW_COLLIDES), k);
                break;
            }
        }
        fputc('\n', f);
    }
}

int grid_text_write(FILE *f, const struct bank_result *res, unsigned width, enum bank_op op,
                    uint32_t mask, const struct grid_text_options *opt)
{
    struct grid_text_options defaults;
    if (!opt) {
        grid_text_options_init(&defaults);
        opt = &defaults;
    }
    const struct glyphs *g = opt->ascii ? &glyphs_ascii : &glyphs_utf8;
    lang = opt->zh ? BL_LANG_ZH : BL_LANG_EN;
    int cols = opt->cols > 0 ? opt->cols : 80;
    int banks = grid_banks_per_band(cols);
    int npasses = res->npasses;
    if (npasses < 1 || npasses > BANK_MAX_PASSES)
        npasses = 1;

    int matrix = res->instr == BANK_LDMATRIX || res->instr == BANK_STMATRIX;
    if (res->instr != BANK_PLAIN) {
        instr_head(f, res, width, mask);
    } else {
        fprintf(f, T(op == BANK_STORE ? GT_HEAD_STORE : GT_HEAD_LOAD), width,
                width == 1 ? "" : "s", (unsigned)mask, grid_lane_count(mask),
                grid_lane_count(mask) == 1 ? "" : "s");
        if (width >= 8 && res->paired)
            fprintf(f, T(GT_FUSED), npasses, BANK_LANES / npasses);
        else if (width >= 8)
            fprintf(f, T(op == BANK_STORE ? GT_SPLIT_STORE : GT_SPLIT), npasses,
                    BANK_LANES / npasses);
        fputs("\n", f);
    }

    for (int p = 0; p < npasses; p++) {
        const struct bank_pass *ps = &res->pass[p];
        char span[128];
        grid_lanes_str(pass_span(res, p), span, sizeof span);
        fputc('\n', f);
        if (opt->color)
            fputs(SGR_BOLD, f);
        if (matrix)
            fprintf(f, T(GT_MATRIX_HEAD), p + 1, npasses, span);
        else
            fprintf(f, T(GT_PASS_HEAD), p + 1, npasses, span);
        if (!ps->lanes)
            fputs(T(GT_NO_ACTIVE), f);
        else
            fprintf(f, T(GT_WAVEFRONTS), ps->cost, ps->cost == 1 ? "" : "s");
        if (ps->lanes && ps->cost > 1 && ps->worst_bank >= 0)
            fprintf(f, T(GT_WORST), ps->worst_bank, ps->cost);
        if (opt->color)
            fputs(SGR_RESET, f);
        fputc('\n', f);
        if (!ps->lanes)
            continue;
        for (int b0 = 0; b0 < BANK_COUNT; b0 += banks)
            band(f, res, p, b0, banks, g, opt->color);
        broadcast_legend(f, res, p, cols);
        if (matrix)
            matrix_rows(f, res, p);
    }
    if (opt->summary)
        summary(f, res, g, opt->color);
    if (opt->lanes != 0)
        lane_table(f, res, cols, opt->lanes == 1);
    return ferror(f) ? -1 : 0;
}
