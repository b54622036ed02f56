/* error.c: the screen shown instead of a step when no lessons could be loaded: what failed
 * and what to do (the playground still works). No state; drawing does not allocate. */
#include <stdio.h>
#include <string.h>

#include "app.h"

static void error_draw(const struct app *a, const void *st)
{
    app_title(a, " banklab", "");
    int y = 2;
    char buf[UI_MSG_MAX];
    if (a->lessons_dir[0])
        snprintf(buf, sizeof buf, "No lessons could be loaded from %s.", a->lessons_dir);
    else
        snprintf(buf, sizeof buf, "No lessons directory found (tried --lessons, $BANKLAB_LESSONS, "
                                  "%s/lessons and ./lessons).", BANKLAB_SHARE_DIR);
    y += text_draw(a, y, 2, a->W - 4, 3, buf, 0, theme_attr(a, UIC_ERROR));
    y++;
    if (a->load_errors[0])
        y += text_draw(a, y, 2, a->W - 4, a->H - y - 4, a->load_errors, 0, A_NORMAL);
    y++;
    text_draw(a, y, 2, a->W - 4, 3,
              "Run `banklab check` on the lesson files for every problem, or start with "
              "--lessons DIR. The playground (g) works without lessons.",
              0, A_NORMAL);
    app_keybar_for(a, KS_ERROR, NULL);
}

const struct ui_screen screen_error = {
    .name = "no lessons", .draw = error_draw, .keys = KS_ERROR,
};
