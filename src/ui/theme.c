/* theme.c: colour roles -> colour pairs, with a monochrome column used when the terminal has
 * no colours or NO_COLOR / --no-color asks for none; and the UTF-8 / ASCII glyph tables.
 * Both are chosen once, in theme_init. Colour is never the only cue: cells carry glyphs. */
#include <stdlib.h>

#include "app.h"
#include "../sys/sys.h"

static const struct {
    short fg, bg;        /* colour pair (-1 = terminal default) */
    attr_t cattr;        /* extra attributes with colour */
    attr_t mono;         /* attributes without colour */
} roles[UIC_COUNT] = {
    [UIC_NORMAL]    = {-1, -1, A_NORMAL, A_NORMAL},
    [UIC_TITLE]     = {COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD},
    [UIC_KEYBAR]    = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
    [UIC_KEY]       = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
    [UIC_MSG]       = {COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_REVERSE | A_BOLD},
    [UIC_WARN]      = {COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_REVERSE | A_BOLD},
    [UIC_TEXTCODE]  = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
    [UIC_CODE]      = {COLOR_YELLOW, -1, A_NORMAL, A_BOLD},
    [UIC_HEADER]    = {COLOR_CYAN, -1, A_NORMAL, A_UNDERLINE},
    [UIC_LANE]      = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
    [UIC_BROADCAST] = {COLOR_BLUE, -1, A_BOLD, A_BOLD},
    [UIC_CONFLICT]  = {COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE},
    [UIC_WORST]     = {COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD},
    [UIC_OK]        = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
    [UIC_ERROR]     = {COLOR_RED, -1, A_BOLD, A_BOLD | A_REVERSE},
    [UIC_MEASURED]  = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
    [UIC_DIM]       = {-1, -1, A_DIM, A_DIM},
    [UIC_CURSOR]    = {COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_REVERSE | A_BOLD},
    [UIC_QUIZ]      = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
    [UIC_RIGHT]     = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
    [UIC_WRONG]     = {COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE},
    [UIC_BAR]       = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
    [UIC_MARK]      = {COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_REVERSE},
};

static const struct ui_glyphs glyphs_utf8 = {
    .utf8 = 1, .hline = "\u2500", .vline = "\u2502", .tl = "\u250c", .tr = "\u2510",
    .bl = "\u2514", .br = "\u2518", .dot = "\u00b7", .broadcast = "*", .conflict = "!",
    .both = "#", .worst = "\u25b2", .bar = "\u2588", .bar_top = "\u2584", .mark = "\u25b2",
    .right = "\u2713", .wrong = "\u2717", .late = "\u25d1", .ellipsis = "\u2026", .sep = " \u00b7 ",
    .up = "\u2191", .down = "\u2193", .todo = "\u25cb",
    .revealed = "\u25cc",
};

static const struct ui_glyphs glyphs_ascii = {
    .utf8 = 0, .hline = "-", .vline = "|", .tl = "+", .tr = "+", .bl = "+", .br = "+",
    .dot = ".", .broadcast = "*", .conflict = "!", .both = "#", .worst = "^", .bar = "#",
    .bar_top = "#", .mark = "^", .right = "ok", .wrong = "x", .late = "re", .ellipsis = "...", .sep = " | ",
    .up = "^", .down = "v", .todo = "o", .revealed = "e",
};

void theme_init(struct app *a)
{
    a->g = (a->utf8 && !a->opt.ascii) ? &glyphs_utf8 : &glyphs_ascii;
    const char *nc = sys_env("NO_COLOR");
    a->color = 0;
    if (a->opt.no_color || (nc && *nc) || !has_colors())
        return;
    if (start_color() == ERR)
        return;
    use_default_colors();
    if (COLOR_PAIRS < UIC_COUNT)
        return;
    for (int r = 1; r < UIC_COUNT; r++)
        init_pair((short)r, roles[r].fg, roles[r].bg);
    a->color = 1;
}

attr_t theme_attr(const struct app *a, enum ui_role r)
{
    if (r <= UIC_NORMAL || r >= UIC_COUNT)
        return A_NORMAL;
    if (!a->color)
        return roles[r].mono;
    attr_t at = roles[r].cattr;
    if (a->opt.present)
        at |= A_BOLD;
    return COLOR_PAIR(r) | at;
}
