/* flow.c: a column of wrapped texts that scrolls as one (the step's text, hints and quiz; the
 * help box): each block a text at its own indent and width, with an optional label on its
 * first row (the "?" of a question, the "1)" of a choice). Measured once when added, drawn
 * from any row. Lives on the caller's stack: formatted texts are kept in its pool; no
 * allocation. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

void flow_init(struct flow *f)
{
    f->n = 0;
    f->rows = 0;
    f->used = 0;
}

int flow_add(struct flow *f, const char *text, int x, int w, attr_t at)
{
    if (f->n >= FLOW_BLOCKS)
        return -1;
    struct flow_block *b = &f->b[f->n];
    memset(b, 0, sizeof *b);
    b->text = text ? text : "";
    b->x = x;
    b->w = w < 1 ? 1 : w;
    b->at = at;
    b->rows = text_count(b->text, b->w);
    if (b->rows < 1)
        b->rows = 1;          /* an empty block is a blank row */
    b->top = f->rows;
    f->rows += b->rows;
    return f->n++;
}

void flow_label(struct flow *f, int i, const char *label, int lx, int lw, attr_t lat)
{
    if (i < 0 || i >= f->n)
        return;
    f->b[i].label = label;
    f->b[i].lx = lx;
    f->b[i].lw = lw;
    f->b[i].lat = lat;
}

const char *flow_fmt(struct flow *f, const char *fmt, ...)
{
    size_t room = sizeof f->pool - f->used;
    if (room < 2)
        return "";
    char *s = f->pool + f->used;
    va_list ap;
    va_start(ap, fmt);
    f->used += bl_vfmt(s, room, fmt, ap) + 1;   /* cut to the room left: the whole pool */
    va_end(ap);
    return s;
}

int flow_top(const struct flow *f, int i)
{
    return i >= 0 && i < f->n ? f->b[i].top : f->rows;
}

void flow_draw(const struct app *a, const struct flow *f, int y, int h, int skip)
{
    for (int i = 0; i < f->n; i++) {
        const struct flow_block *b = &f->b[i];
        int first = skip > b->top ? skip - b->top : 0;     /* rows of the block scrolled away */
        int row = b->top + first - skip;                   /* where its first shown row goes */
        if (first >= b->rows || row >= h)
            continue;
        int rows = b->rows - first < h - row ? b->rows - first : h - row;
        text_draw_ex(a, y + row, b->x, b->w, rows, b->text, first, b->at, 0);
        if (b->label && first == 0)
            text_puts(a, y + row, b->lx, b->lw, b->label, b->lat);
    }
}

int flow_scroll_to(const struct flow *f, int h, int scroll, int must, int want_end)
{
    int max = f->rows > h ? f->rows - h : 0;
    int s = scroll;
    if (want_end > must) {    /* as much of must..want_end as fits, must first */
        s = want_end - h;
        if (s > must)
            s = must;
    } else if (must < s) {
        s = must;
    } else if (must >= s + h) {
        s = must - h + 1;
    }
    if (s > max)
        s = max;
    return s < 0 ? 0 : s;
}

void flow_scrollbar(const struct app *a, int y, int x, int h, int scroll, int rows)
{
    if (rows <= h || h < 1)
        return;
    attr_t at = theme_attr(a, UIC_KEY);
    if (scroll > 0)
        text_puts(a, y, x, 1, a->g->up, at);
    if (scroll + h < rows)
        text_puts(a, y + h - 1, x, 1, a->g->down, at);
}
