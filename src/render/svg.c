/* svg.c: one warp access (a struct bank_result) as an SVG picture (svg.h). Banks are columns;
 * each pass is a block of rows, one row per wavefront (the distinct words a bank serves);
 * cells carry the lane numbers. Broadcast, conflict and the worst bank each have a glyph and
 * a fill pattern as well as a colour, so the picture survives black-and-white printing.
 * Pure C: libc, the base room's messages and text masking, the model and the text grid's lane
 * helpers; no allocation. */
#include "svg.h"

#include <inttypes.h>
#include <string.h>

#include "../base/msg.h"
#include "../base/utf8.h"
#include "grid_text.h"

/* Geometry in SVG user units (px). */
#define MARGIN 20
#define LABEL_W 132          /* row labels left of the grid */
#define CELL_W 48
#define LINE_H 12            /* one line of lane numbers */
#define LANES_PER_LINE 3
#define TALLY_H 18           /* per-bank word count under each pass */
#define GAP_H 14             /* between pass blocks */
#define HEADER_H 20          /* bank numbers */
#define GRID_W (BANK_COUNT * CELL_W)
#define DOC_W (MARGIN + LABEL_W + GRID_W + MARGIN)
#define FONT "DejaVu Sans, Arial, Helvetica, Noto Sans CJK SC, WenQuanYi Micro Hei, sans-serif"
#define MONO "DejaVu Sans Mono, Menlo, Consolas, Noto Sans Mono CJK SC, monospace"
#define SLOT_W 15           /* horizontal step between lane numbers in a cell */

/* Cell kinds: one legend entry each. */
enum kind { K_IDLE, K_SINGLE, K_BROADCAST, K_CONFLICT, K_BOTH };

struct palette {
    const char *fill[5];     /* background per kind */
    const char *ink;         /* pattern strokes */
    const char *worst;       /* outline of the worst bank */
    const char *text;
};

static const struct palette colour = {
    {"#ffffff", "#e9f0fb", "#cfe6f7", "#f7d3ce", "#e6d3f2"}, "#6b6b6b", "#b06a00", "#111111",
};
static const struct palette mono = {
    {"#ffffff", "#ffffff", "#ffffff", "#ffffff", "#ffffff"}, "#7a7a7a", "#000000", "#000000",
};

/* the picture's words in its language (src/base/msg.def, SVG_*) */
#define W(id) bl_msg_format(id, lang)

static const char mark_of[5] = {0, 0, '*', '!', '#'};  /* the same marks as the text grid */

/* The XML entity that stands for c, or NULL when c stands for itself. */
static const char *xml_entity(char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    }
    return NULL;
}

/* Writes s XML-escaped: a tab as a space, each byte of a control character or of a sequence
 * that is not valid UTF-8 as '?' (bl_mask), in pieces cut between characters. */
static void put_escaped(FILE *f, const char *s)
{
    char buf[512];
    for (size_t i = 0, n = strlen(s); i < n;) {
        size_t k = n - i < sizeof buf ? n - i : sizeof buf;
        while (k < n - i && k > 4 && ((unsigned char)s[i + k] & 0xC0) == 0x80)
            k--;
        memcpy(buf, s + i, k);
        for (size_t j = 0; j < k; j++)
            buf[j] = buf[j] == '\t' ? ' ' : buf[j];
        bl_mask(buf, k);
        for (size_t j = 0; j < k; j++) {
            const char *e = xml_entity(buf[j]);
            if (e)
                fputs(e, f);
            else
                fputc(buf[j], f);
        }
        i += k;
    }
}

static enum kind cell_kind(const struct bank_cell *c, int row)
{
    if (row >= c->nwords)
        return K_IDLE;
    int bc = grid_lane_count(c->lanes[row]) > 1;
    int cf = c->nwords > 1;
    return bc && cf ? K_BOTH : bc ? K_BROADCAST : cf ? K_CONFLICT : K_SINGLE;
}

/* Lines of lane numbers a cell needs (the mark takes the last slot of the first line). */
static int cell_lines(const struct bank_cell *c, int row)
{
    if (row >= c->nwords)
        return 1;
    int slots = grid_lane_count(c->lanes[row]) + (mark_of[cell_kind(c, row)] ? 1 : 0);
    return (slots + LANES_PER_LINE - 1) / LANES_PER_LINE;
}

static int row_height(const struct bank_pass *p, int row)
{
    int lines = 1;
    for (int b = 0; b < BANK_COUNT; b++) {
        int n = cell_lines(&p->cell[b], row);
        if (n > lines)
            lines = n;
    }
    return 6 + lines * LINE_H;
}

static int pass_height(const struct bank_pass *p)
{
    int h = 0;
    if (!p->lanes)
        return LINE_H + 10;  /* one "idle" line */
    for (int r = 0; r < p->cost; r++)
        h += row_height(p, r);
    return h + TALLY_H;
}

static void defs(FILE *f, const struct palette *pal)
{
    fprintf(f, "<defs>\n");
    /* conflict: diagonal hatching */
    fprintf(f,
            "<pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"7\" height=\"7\" "
            "patternTransform=\"rotate(45)\"><rect width=\"7\" height=\"7\" fill=\"%s\"/>"
            "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"7\" stroke=\"%s\" stroke-width=\"1.2\"/>"
            "</pattern>\n",
            pal->fill[K_CONFLICT], pal->ink);
    /* broadcast: dots */
    fprintf(f,
            "<pattern id=\"dots\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\">"
            "<rect width=\"6\" height=\"6\" fill=\"%s\"/>"
            "<circle cx=\"3\" cy=\"3\" r=\"1\" fill=\"%s\"/></pattern>\n",
            pal->fill[K_BROADCAST], pal->ink);
    /* broadcast in a conflicting bank: cross-hatching */
    fprintf(f,
            "<pattern id=\"cross\" patternUnits=\"userSpaceOnUse\" width=\"7\" height=\"7\" "
            "patternTransform=\"rotate(45)\"><rect width=\"7\" height=\"7\" fill=\"%s\"/>"
            "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"7\" stroke=\"%s\" stroke-width=\"1.2\"/>"
            "<line x1=\"0\" y1=\"0\" x2=\"7\" y2=\"0\" stroke=\"%s\" stroke-width=\"1.2\"/>"
            "</pattern>\n",
            pal->fill[K_BOTH], pal->ink, pal->ink);
    fprintf(f, "</defs>\n");
}

static const char *kind_fill(enum kind k, const struct palette *pal)
{
    switch (k) {
    case K_CONFLICT: return "url(#hatch)";
    case K_BROADCAST: return "url(#dots)";
    case K_BOTH: return "url(#cross)";
    default: return pal->fill[k];
    }
}

/* Text drawn over a pattern gets a white halo so it stays readable. */
#define HALO "paint-order=\"stroke\" stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\""

static void draw_cell(FILE *f, const struct bank_result *res, int pi, int b, int row, int x,
                      int y, int h, const struct palette *pal, enum bl_lang lang)
{
    const struct bank_cell *c = &res->pass[pi].cell[b];
    enum kind k = cell_kind(c, row);
    fprintf(f, "<g class=\"cell\" data-pass=\"%d\" data-bank=\"%d\" data-row=\"%d\">", pi, b, row);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#9a9a9a\" "
               "stroke-width=\"0.6\"/>",
            x, y, CELL_W, h, kind_fill(k, pal));
    if (k == K_IDLE) {
        fprintf(f, "</g>\n");
        return;
    }
    char lanes[160];
    grid_lanes_str(c->lanes[row], lanes, sizeof lanes);
    fprintf(f, "<title>");   /* the cell's tooltip, in the picture's language */
    fprintf(f, W(SVG_CELL_TITLE), b, (unsigned long long)c->word[row],
            (unsigned long long)(c->word[row] * BANK_WORD_BYTES), lanes);
    fprintf(f, "</title>");
    int slot = 0;
    for (int n = 0; n < BANK_LANES; n++) {
        if (!(c->lanes[row] >> n & 1u))
            continue;
        if (slot == LANES_PER_LINE - 1 && mark_of[k])
            slot++;  /* the mark's place */
        int tx = x + 3 + (slot % LANES_PER_LINE) * SLOT_W;
        int ty = y + 3 + (slot / LANES_PER_LINE + 1) * LINE_H - 2;
        /* "lane" once per active lane (its first word); "lane2" where a wide access
         * reaches into further banks */
        const char *cls = res->lane[n].word[0] == c->word[row] ? "lane" : "lane2";
        fprintf(f, "<text class=\"%s\" x=\"%d\" y=\"%d\" font-family=\"%s\" font-size=\"10\" %s>%d</text>",
                cls, tx, ty, MONO, HALO, n);
        slot++;
    }
    if (mark_of[k])
        fprintf(f, "<text class=\"mark\" x=\"%d\" y=\"%d\" font-weight=\"bold\" %s>%c</text>",
                x + 3 + (LANES_PER_LINE - 1) * SLOT_W + 2, y + 3 + LINE_H - 2, HALO, mark_of[k]);
    fprintf(f, "</g>\n");
}

/* One pass: its rows, its per-bank word tally with the worst bank marked. Returns the height. */
static int draw_pass(FILE *f, const struct bank_result *res, int pi, int y,
                     const struct palette *pal, enum bl_lang lang)
{
    const struct bank_pass *p = &res->pass[pi];
    const int gx = MARGIN + LABEL_W;
    char lanes[160];
    grid_lanes_str(p->lanes, lanes, sizeof lanes);
    fprintf(f, "<g class=\"pass\" data-pass=\"%d\" data-cost=\"%d\">\n", pi, p->cost);
    /* passes counted from 1, as on the screen (data-pass keeps the index) */
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">", MARGIN, y + (p->lanes ? 13 : 12));
    /* ldmatrix / stmatrix: one pass per 8x8 matrix, named so */
    fprintf(f, W(res->instr == BANK_LDMATRIX || res->instr == BANK_STMATRIX ? SVG_MATRIX
                                                                             : SVG_PASS),
            pi + 1);
    fprintf(f, "</text>");
    if (!p->lanes) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-style=\"italic\">%s</text>\n</g>\n", gx, y + 12,
                W(SVG_IDLE));
        return pass_height(p);
    }
    int yy = y;
    for (int r = 0; r < p->cost; r++) {
        int h = row_height(p, r);
        fprintf(f, "<text class=\"rowlabel\" x=\"%d\" y=\"%d\" text-anchor=\"end\" "
                   "font-size=\"10\">", gx - 6, yy + 13);
        fprintf(f, W(SVG_WAVEFRONT), r + 1);
        fprintf(f, "</text>\n");
        for (int b = 0; b < BANK_COUNT; b++)
            draw_cell(f, res, pi, b, r, gx + b * CELL_W, yy, h, pal, lang);
        yy += h;
    }
    /* the worst bank: a heavy dashed outline round its column, and a triangle in the tally */
    int wb = p->worst_bank;
    if (wb >= 0)
        fprintf(f, "<rect class=\"worst\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                   "stroke=\"%s\" stroke-width=\"3\" stroke-dasharray=\"7 3\"/>\n",
                gx + wb * CELL_W + 1, y + 1, CELL_W - 2, yy - y + TALLY_H - 2, pal->worst);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"10\">", gx - 6, yy + 13);
    fprintf(f, W(SVG_WORDS), lanes);
    fprintf(f, "</text>");
    for (int b = 0; b < BANK_COUNT; b++) {
        int n = p->cell[b].nwords;
        int cx = gx + b * CELL_W + CELL_W / 2;
        if (b == wb)
            fprintf(f, "<text class=\"tally worst-bank\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                       "font-weight=\"bold\">\u25b2%d</text>",
                    cx, yy + 13, n);
        else
            fprintf(f, "<text class=\"tally\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                       "fill=\"%s\">%d</text>",
                    cx, yy + 13, n > 1 ? pal->text : "#8a8a8a", n);
    }
    fprintf(f, "\n</g>\n");
    return yy - y + TALLY_H;
}

static void legend_swatch(FILE *f, int x, int y, const char *fill, char mark, const char *text)
{
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"28\" height=\"16\" fill=\"%s\" stroke=\"#9a9a9a\"/>",
            x, y, fill);
    if (mark)
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\" %s>%c</text>", x + 10, y + 12,
                HALO, mark);
    fprintf(f, "<text x=\"%d\" y=\"%d\">", x + 36, y + 12);
    put_escaped(f, text);
    fprintf(f, "</text>\n");
}

/* The SVG document for res (svg_emit). */
static int svg_write(FILE *f, const struct bank_result *res, unsigned width, enum bank_op op,
                     const struct svg_options *opt)
{
    const struct palette *pal = opt && opt->monochrome ? &mono : &colour;
    const char *title = opt && opt->title ? opt->title : NULL;
    const char *subtitle = opt && opt->subtitle ? opt->subtitle : NULL;
    enum bl_lang lang = opt && opt->lang == BL_LANG_ZH ? BL_LANG_ZH : BL_LANG_EN;
    int npasses = res->npasses;
    if (npasses < 1 || npasses > BANK_MAX_PASSES)
        npasses = npasses < 1 ? 1 : BANK_MAX_PASSES;

    /* layout first: the document height */
    int y_head = MARGIN + (title ? 22 : 0) + (subtitle ? 18 : 0) + 30; /* summary lines */
    int y_grid = y_head + HEADER_H;
    int h = 0;
    for (int i = 0; i < npasses; i++)
        h += pass_height(&res->pass[i]) + (i ? GAP_H : 0);
    int y_legend = y_grid + h + 22;
    int doc_h = y_legend + 3 * 22 + MARGIN;

    uint32_t active = 0;
    for (int n = 0; n < BANK_LANES; n++)
        if (res->lane[n].active)
            active |= 1u << n;

    clearerr(f);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"%s\" font-size=\"11\" fill=\"%s\">\n",
            DOC_W, doc_h, DOC_W, doc_h, FONT, pal->text);
    fprintf(f, "<title>");
    put_escaped(f, title ? title : W(SVG_TITLE));
    fprintf(f, "</title>\n<desc>%s</desc>\n", W(SVG_DESC));
    defs(f, pal);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");

    int y = MARGIN;
    if (title) {
        fprintf(f, "<text id=\"title\" x=\"%d\" y=\"%d\" font-family=\"%s\" font-size=\"15\" "
                   "font-weight=\"bold\">",
                MARGIN, y + 15, MONO);
        put_escaped(f, title);
        fprintf(f, "</text>\n");
        y += 22;
    }
    if (subtitle) {
        fprintf(f, "<text id=\"subtitle\" x=\"%d\" y=\"%d\" font-size=\"12\">", MARGIN, y + 12);
        put_escaped(f, subtitle);
        fprintf(f, "</text>\n");
        y += 18;
    }
    fprintf(f, "<text id=\"summary\" x=\"%d\" y=\"%d\" font-size=\"14\" font-weight=\"bold\">",
            MARGIN, y + 14);
    fprintf(f, W(SVG_SUMMARY), res->wavefronts, res->passes, res->conflicts, res->ways);
    fprintf(f, "</text>\n");
    char lanes[160];
    grid_lanes_str(active, lanes, sizeof lanes);
    int nact = grid_lane_count(active);
    fprintf(f, "<text id=\"detail\" x=\"%d\" y=\"%d\" font-size=\"11\">", MARGIN, y + 28);
    char instr[32];           /* a load, a store, or the instruction (ldmatrix.x4, cp.async) */
    if (res->instr != BANK_PLAIN)
        bank_instr_name(res->instr, res->matrices, res->trans, width, instr, sizeof instr);
    else
        snprintf(instr, sizeof instr, "%s", op == BANK_STORE ? "store" : "load");
    fprintf(f, W(nact == 1 ? SVG_DETAIL_LANE : SVG_DETAIL_LANES), width, instr, nact, lanes);
    fprintf(f, W(npasses == 1 ? SVG_DETAIL_PASS : SVG_DETAIL_PASSES), npasses);
    fprintf(f, "%s</text>\n", res->paired ? W(SVG_PAIRED) : "");

    /* bank numbers */
    fprintf(f, "<g class=\"banks\">");
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"bold\">%s</text>",
            MARGIN + LABEL_W - 6, y_grid - 6, W(SVG_BANK));
    for (int b = 0; b < BANK_COUNT; b++)
        fprintf(f, "<text class=\"bank\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                   "font-weight=\"bold\">%d</text>",
                MARGIN + LABEL_W + b * CELL_W + CELL_W / 2, y_grid - 6, b);
    fprintf(f, "</g>\n");

    y = y_grid;
    for (int i = 0; i < npasses; i++) {
        if (i)
            y += GAP_H;
        y += draw_pass(f, res, i, y, pal, lang);
    }

    /* legend: fill and mark together, so it reads without colour */
    int lx = MARGIN, ly = y_legend;
    fprintf(f, "<g id=\"legend\">\n");
    legend_swatch(f, lx, ly, kind_fill(K_SINGLE, pal), 0, W(SVG_LEGEND_SINGLE));
    legend_swatch(f, lx + 520, ly, "url(#dots)", mark_of[K_BROADCAST], W(SVG_LEGEND_BROADCAST));
    legend_swatch(f, lx, ly + 22, "url(#hatch)", mark_of[K_CONFLICT], W(SVG_LEGEND_CONFLICT));
    legend_swatch(f, lx + 520, ly + 22, "url(#cross)", mark_of[K_BOTH], W(SVG_LEGEND_BOTH));
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"28\" height=\"16\" fill=\"none\" stroke=\"%s\" "
               "stroke-width=\"3\" stroke-dasharray=\"7 3\"/>",
            lx, ly + 44, pal->worst);
    fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>\n", lx + 36, ly + 56, W(SVG_LEGEND_WORST));
    fprintf(f, "</g>\n</svg>\n");
    fflush(f);
    return ferror(f) ? -1 : 0;
}

int svg_emit(FILE *f, void *job)
{
    const struct svg_job *j = job;
    return svg_write(f, j->res, j->width, j->op, j->opt);
}
