/* help.c: the help box (? or F1) over the screen below it: every binding of the key table
 * that has help text, two to a line where the table pairs them and both fit, then what the
 * grid's marks mean; over the playground its own keys and the pattern language's syntax
 * instead, over the kernel view its keys and what its columns mean. Long lines wrap, and a
 * box taller than the terminal scrolls (Up/Down, PgUp/PgDn, Space); any other key closes it.
 * Its one state is the scroll; drawing does not allocate. */
#include <stdio.h>
#include <string.h>

#include "app.h"

#define HELP_LINES 32

struct help {
    int scroll;               /* rows of the box's text scrolled away */
};

/* The help rows of the key table: left (and right, or NULL) binding of each line. */
struct help_line {
    const struct key_row *left, *right;
};

static int help_lines(struct help_line *out, int max, unsigned screens)
{
    int n, k = 0;
    const struct key_row *r = keys_rows(&n);
    for (int i = 0; i < n && k < max; i++) {
        if (!r[i].help || !(r[i].screens & screens))
            continue;
        out[k].left = &r[i];
        out[k].right = NULL;
        if (r[i].pair)
            for (int j = i + 1; j < n; j++)
                if (r[j].help && (r[j].screens & screens)) {
                    out[k].right = &r[j];
                    i = j;
                    break;
                }
        k++;
    }
    return k;
}

/* columns: the keys, the right binding, its text; in display columns, the same in both
 * languages so that l does not move them */
struct help_cols {
    int keys, right, right_keys;
};

static void help_columns(const struct help_line *l, int n, struct help_cols *c)
{
    char buf[64];
    int left_text = 0;
    c->keys = c->right_keys = 0;
    for (int zh = 0; zh < 2; zh++)
        for (int i = 0; i < n; i++) {
            c->keys = ui_max(c->keys, text_width(keys_label(l[i].left, zh, buf, sizeof buf)));
            if (!l[i].right)
                continue;
            left_text = ui_max(left_text, text_width(keys_word(l[i].left->help, zh)));
            c->right_keys =
                ui_max(c->right_keys, text_width(keys_label(l[i].right, zh, buf, sizeof buf)));
        }
    c->keys += 2;
    c->right_keys += 2;
    c->right = c->keys + left_text + 3;
}

/* text padded with spaces to cols display columns, into the flow's pool */
static const char *padded(struct flow *f, const char *text, int cols)
{
    int pad = ui_max(0, cols - text_width(text));
    return flow_fmt(f, "%s%*s", text, pad, "");
}

/* one binding: its keys as the label, its help wrapped beside them */
static void add_binding(const struct app *a, struct flow *f, const struct key_row *r, int x,
                        int w, const struct help_cols *c, const char *text)
{
    char buf[64];
    int zh = a->lang == LANG_ZH;
    int i = flow_add(f, text ? text : keys_word(r->help, zh), x + c->keys, w - c->keys, A_NORMAL);
    flow_label(f, i, flow_fmt(f, "%s", keys_label(r, zh, buf, sizeof buf)), x, c->keys - 1,
               theme_attr(a, UIC_KEY));
}

/* the whole box's text at x in w columns: over the playground its keys and the pattern syntax,
 * over the kernel view its keys and what its columns mean, over a line's warps their keys and
 * the grid's marks, elsewhere the tutorial's keys and the grid's marks */
static void help_flow(const struct app *a, struct flow *f, int x, int w)
{
    struct help_line lines[HELP_LINES];
    int play = ui_under(a) == UI_PLAY, kernel = ui_under(a) == UI_KERNEL;
    int kgrid = ui_under(a) == UI_KGRID;    /* a line's warps: its keys and the grid's marks */
    int nb = help_lines(lines, HELP_LINES, play ? KS_PLAY : kernel ? KS_KERNEL
                                           : kgrid ? KS_KGRID : KS_GLOBAL);
    int zh = a->lang == LANG_ZH;
    struct help_cols c;
    help_columns(lines, nb, &c);
    char buf[64];
    flow_init(f);
    for (int i = 0; i < nb; i++) {
        const struct key_row *l = lines[i].left, *r = lines[i].right;
        const char *rk = r ? keys_label(r, zh, buf, sizeof buf) : "";
        if (r && c.right + c.right_keys + text_width(keys_word(r->help, zh)) <= w) {
            /* both on one line: the left help padded to the right binding's column */
            const char *t = flow_fmt(f, "%s%s%s", padded(f, keys_word(l->help, zh), c.right - c.keys),
                                     padded(f, rk, c.right_keys), keys_word(r->help, zh));
            add_binding(a, f, l, x, w, &c, t);
            continue;
        }
        add_binding(a, f, l, x, w, &c, NULL);
        if (r)
            add_binding(a, f, r, x, w, &c, NULL);
    }
    flow_add(f, "", x, w, A_NORMAL);
    if (play) {
        static const enum ui_str syntax[] = {UIS_SYNTAX1, UIS_SYNTAX2, UIS_SYNTAX3, UIS_SYNTAX4,
                                             UIS_SYNTAX5, UIS_SYNTAX6, UIS_SYNTAX7, UIS_SYNTAX8};
        for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++)
            flow_add(f, ui_str(a, syntax[i]), x, w, A_NORMAL);
        return;
    }
    if (kernel) {
        flow_add(f, flow_fmt(f, ui_str(a, UIS_KV_HELP1), a->g->bar, a->g->right), x, w,
                 A_NORMAL);
        flow_add(f, ui_str(a, UIS_KV_HELP2), x, w, A_NORMAL);
        flow_add(f, ui_str(a, UIS_KV_HELP3), x, w, A_NORMAL);
        flow_add(f, ui_str(a, UIS_KV_HELP4), x, w, A_NORMAL);
        return;
    }
    flow_add(f, ui_str(a, UIS_HELP_GRID1), x, w, A_NORMAL);
    flow_add(f, flow_fmt(f, ui_str(a, UIS_HELP_GRID2), a->g->broadcast, a->g->conflict, a->g->both,
                         a->g->worst, a->g->dot), x, w, A_NORMAL);
    flow_add(f, ui_str(a, UIS_HELP_GRID3), x, w, A_NORMAL);
    flow_add(f, ui_str(a, UIS_HELP_WORDS), x, w, A_NORMAL);
    if (!kgrid)
        flow_add(f, ui_str(a, UIS_HELP_MEASURED), x, w, A_NORMAL);
}

static void frame(const struct app *a, int y, int x, int w, int h)
{
    attr_t at = theme_attr(a, UIC_NORMAL);
    for (int r = 0; r < h; r++)
        text_fill(y + r, x, w, at);
    attrset(theme_attr(a, UIC_HEADER));
    for (int c = 1; c < w - 1; c++) {
        mvaddstr(y, x + c, a->g->hline);
        mvaddstr(y + h - 1, x + c, a->g->hline);
    }
    for (int r = 1; r < h - 1; r++) {
        mvaddstr(y + r, x, a->g->vline);
        mvaddstr(y + r, x + w - 1, a->g->vline);
    }
    mvaddstr(y, x, a->g->tl);
    mvaddstr(y, x + w - 1, a->g->tr);
    mvaddstr(y + h - 1, x, a->g->bl);
    mvaddstr(y + h - 1, x + w - 1, a->g->br);
    attrset(A_NORMAL);
}

/* the box at this terminal size: where it stands, its text and the rows of it shown */
struct help_box {
    int x, y, w, h, rows;
    struct flow f;
};

static void help_box(const struct app *a, struct help_box *b)
{
    b->w = ui_min(a->W - 2, 78);
    help_flow(a, &b->f, 0, b->w - 4);
    b->h = ui_min(a->H - 2, b->f.rows + 2);
    b->rows = b->h - 2;
    b->x = ui_max(0, (a->W - b->w) / 2);
    b->y = ui_max(0, (a->H - b->h) / 2);
}

static void help_draw(const struct app *a, const void *st)
{
    const struct help *hs = st;
    struct help_box b;
    help_box(a, &b);
    for (int i = 0; i < b.f.n; i++) {   /* the flow was made at x 0: move it into the box */
        b.f.b[i].x += b.x + 2;
        b.f.b[i].lx += b.x + 2;
    }
    int max = ui_max(0, b.f.rows - b.rows), scroll = ui_min(hs->scroll, max);
    frame(a, b.y, b.x, b.w, b.h);
    text_puts(a, b.y, b.x + 2, b.w - 4, ui_str(a, max ? UIS_HELP_TITLE_MORE : UIS_HELP_TITLE),
              theme_attr(a, UIC_KEY));
    flow_draw(a, &b.f, b.y + 1, b.rows, scroll);
    flow_scrollbar(a, b.y + 1, b.x + b.w - 1, b.rows, scroll, b.f.rows);
}

static int help_enter(struct app *a, void *st)
{
    struct help *hs = st;
    hs->scroll = 0;
    return 0;
}

static enum ui_result help_key(struct app *a, void *st, const struct ui_key *k)
{
    struct help *hs = st;
    struct help_box b;
    help_box(a, &b);
    int max = ui_max(0, b.f.rows - b.rows), page = ui_max(1, b.rows - 1);
    switch (k->action) {
    case ACT_DOWN: hs->scroll = ui_min(hs->scroll + 1, max); break;
    case ACT_UP: hs->scroll = ui_max(hs->scroll - 1, 0); break;
    case ACT_PGDN: hs->scroll = ui_min(hs->scroll + page, max); break;
    case ACT_PGUP: hs->scroll = ui_max(hs->scroll - page, 0); break;
    default: ui_pop(a); break;   /* any other key closes the box */
    }
    return UI_HANDLED;
}

const struct ui_screen screen_help = {
    .name = "help", .overlay = 1, .state_size = sizeof(struct help), .enter = help_enter,
    .draw = help_draw, .key = help_key, .keys = KS_HELP,
};
