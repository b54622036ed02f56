/* frame.c: what is drawn around every screen: the title line, the key bar (or the one-line
 * message over it until the next key), and the "terminal too small" screen. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

void app_msg(struct app *a, int warn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_warn = warn;
}

void app_title(const struct app *a, const char *left, const char *right)
{
    attr_t at = theme_attr(a, UIC_TITLE);
    text_fill(0, 0, a->W, at);
    int rw = text_width(right);
    text_puts(a, 0, 0, a->W - rw - 1, left, at);
    if (rw < a->W)
        text_puts(a, 0, a->W - rw, rw, right, at);
}

void app_keybar(const struct app *a, const char *keys)
{
    int y = a->H - 1;
    if (a->msg[0]) {
        attr_t at = theme_attr(a, a->msg_warn ? UIC_WARN : UIC_MSG);
        text_fill(y, 0, a->W, at);
        text_puts(a, y, 1, a->W - 2, a->msg, at);
        return;
    }
    if (a->opt.present || !keys[0])
        return;
    attr_t at = theme_attr(a, UIC_KEYBAR);
    text_fill(y, 0, a->W, at);
    text_puts(a, y, 1, a->W - 2, keys, at);
}

void app_keybar_for(const struct app *a, unsigned screens, const char *lesson)
{
    char bar[UI_MSG_MAX];
    keys_bar(screens, a->lang == LANG_ZH, lesson, bar, sizeof bar);
    app_keybar(a, bar);
}

void small_draw(const struct app *a, int need_w, int need_h)
{
    char buf[128];
    erase();
    snprintf(buf, sizeof buf, "terminal too small: need %dx%d (now %dx%d)", need_w, need_h, a->W,
             a->H);
    int y = a->H / 2;
    int x = (a->W - (int)strlen(buf)) / 2;
    attrset(A_BOLD);
    mvaddnstr(y, x > 0 ? x : 0, buf, a->W);
    attrset(A_NORMAL);
    if (y + 1 < a->H) {
        x = (a->W - 21) / 2;
        mvaddnstr(y + 1, x > 0 ? x : 0, "enlarge it, or q quits", a->W);
    }
}
