/* error.c: the screen of lessons that could not be used: shown instead of a step when no
 * lessons could be loaded (what failed and what to do; the playground still works), and over
 * the first step when some lesson files were refused (they fail to load or fail
 * `banklab check`): what was refused and where, Enter or Esc going on with the lessons that
 * loaded. No state; drawing does not allocate. */
#include <stdio.h>
#include <string.h>

#include "app.h"

static void error_draw(const struct app *a, const void *st)
{
    app_title(a, a->have_lessons ? ui_str(a, UIS_REFUSED_TITLE) : " banklab", "");
    int y = 2, w = a->W - 4;
    char buf[UI_MSG_MAX];
    if (a->have_lessons)
        snprintf(buf, sizeof buf, "%d %s %d %s", a->nload_files, ui_str(a, UIS_REFUSED_FILES),
                 a->set.nlessons, ui_str(a, UIS_REFUSED_REST));
    else if (a->lessons_dir[0])
        snprintf(buf, sizeof buf, "%s %s", ui_str(a, UIS_NO_LESSONS_FROM), a->lessons_dir);
    else
        snprintf(buf, sizeof buf, ui_str(a, UIS_ERRSCR_NO_DIR), BANKLAB_SHARE_DIR);
    y += text_draw(a, y, 2, w, 3, buf, 0, theme_attr(a, UIC_ERROR));
    y++;
    if (a->load_errors[0])
        y += text_draw(a, y, 2, w, a->H - y - 5, a->load_errors, 0, A_NORMAL);
    if (a->nload_errors > a->nload_shown) {
        snprintf(buf, sizeof buf, "%s %d %s", a->g->ellipsis, a->nload_errors - a->nload_shown,
                 ui_str(a, UIS_MORE_PROBLEMS));
        y += text_draw(a, y, 2, w, 1, buf, 0, theme_attr(a, UIC_DIM));
    }
    y++;
    text_draw(a, y, 2, w, 3, ui_str(a, a->have_lessons ? UIS_REFUSED_WHAT : UIS_NO_LESSONS_WHAT),
              0, A_NORMAL);
    app_keybar(a, KS_ERROR | (a->have_lessons ? KS_NOTICE : 0), NULL, 0);
}

/* with lessons loaded, the screen is a notice over the first step: Enter or Esc goes on */
static unsigned error_modes(const struct app *a, const void *st)
{
    return a->have_lessons ? KS_NOTICE : 0;
}

const struct ui_screen screen_error = {
    .name = "no lessons", .draw = error_draw, .keys = KS_ERROR, .modes = error_modes,
};
