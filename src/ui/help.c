/* help.c: the help box (? or F1) over the screen below it: every binding of the key table
 * that has help text, two to a line where the table pairs them, then what the grid's marks
 * mean; over the playground its own keys and the pattern language's syntax instead. Any key
 * closes it. No state of its own; drawing does not allocate. */
#include <stdio.h>
#include <string.h>

#include "app.h"

#define HELP_LINES 32

static int min_i(int x, int y) { return x < y ? x : y; }
static int max_i(int x, int y) { return x > y ? x : y; }

/* The help rows of the key table: left (and right, or NULL) binding of each line. */
struct help_line {
    const struct key_row *left, *right;
};

static int help_lines(struct help_line *out, int max, unsigned screens)
{
    int n, k = 0;
    const struct key_row *r = keys_rows(&n);
    for (int i = 0; i < n && k < max; i++) {
        if (!r[i].help[0] || !(r[i].screens & screens))
            continue;
        out[k].left = &r[i];
        out[k].right = NULL;
        if (r[i].pair)
            for (int j = i + 1; j < n; j++)
                if (r[j].help[0] && (r[j].screens & screens)) {
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
            c->keys = max_i(c->keys, text_width(keys_label(l[i].left, zh, buf, sizeof buf)));
            if (!l[i].right)
                continue;
            left_text = max_i(left_text, text_width(l[i].left->help[zh]));
            c->right_keys =
                max_i(c->right_keys, text_width(keys_label(l[i].right, zh, buf, sizeof buf)));
        }
    c->keys += 2;
    c->right_keys += 2;
    c->right = c->keys + left_text + 3;
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

static void help_draw(const struct app *a, const void *st)
{
    struct help_line lines[HELP_LINES];
    /* over the playground: its keys and the pattern syntax; elsewhere the tutorial's keys and
     * the grid's marks */
    int play = ui_under(a) == UI_PLAY;
    int nb = help_lines(lines, HELP_LINES, play ? KS_PLAY : KS_GLOBAL);
    static const enum ui_str grid[] = {UIS_HELP_GRID1, UIS_HELP_GRID2, UIS_HELP_GRID3,
                                       UIS_HELP_GRID4};
    static const enum ui_str syntax[] = {UIS_SYNTAX1, UIS_SYNTAX2, UIS_SYNTAX3, UIS_SYNTAX4,
                                         UIS_SYNTAX5, UIS_SYNTAX6, UIS_SYNTAX7, UIS_SYNTAX8};
    const enum ui_str *notes = play ? syntax : grid;
    int ng = play ? (int)(sizeof syntax / sizeof syntax[0]) : (int)(sizeof grid / sizeof grid[0]);
    int n = nb + 1 + ng;
    int w = min_i(a->W - 2, 78), h = min_i(a->H - 2, n + 3);
    int x = max_i(0, (a->W - w) / 2), y = max_i(0, (a->H - h) / 2);
    int zh = a->lang == LANG_ZH;
    frame(a, y, x, w, h);
    text_puts(a, y, x + 2, w - 4, ui_str(a, UIS_HELP_TITLE), theme_attr(a, UIC_KEY));
    struct help_cols c;
    help_columns(lines, nb, &c);
    char buf[64];
    int in = x + 2, iw = w - 4;
    for (int i = 0; i < nb && i < h - 2; i++) {
        int row = y + 1 + i;
        text_puts(a, row, in, iw, keys_label(lines[i].left, zh, buf, sizeof buf), A_NORMAL);
        text_puts(a, row, in + c.keys, iw - c.keys, lines[i].left->help[zh], A_NORMAL);
        if (!lines[i].right || c.right >= iw)
            continue;
        text_puts(a, row, in + c.right, iw - c.right,
                  keys_label(lines[i].right, zh, buf, sizeof buf), A_NORMAL);
        if (c.right + c.right_keys < iw)
            text_puts(a, row, in + c.right + c.right_keys, iw - c.right - c.right_keys,
                      lines[i].right->help[zh], A_NORMAL);
    }
    for (int i = 0; i < ng && nb + 1 + i < h - 2; i++) {
        enum ui_str s = notes[i] == UIS_HELP_GRID4 && !a->g->utf8 ? UIS_HELP_GRID4_ASCII : notes[i];
        text_puts(a, y + 2 + nb + i, in, iw, ui_str(a, s), A_NORMAL);
    }
}

static enum ui_result help_key(struct app *a, void *st, const struct ui_key *k)
{
    ui_pop(a);                /* any key closes the box */
    return UI_HANDLED;
}

const struct ui_screen screen_help = {
    .name = "help", .overlay = 1, .draw = help_draw, .key = help_key,
};
