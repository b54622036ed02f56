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
    bl_vfmt(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_warn = warn;
}

void app_title(const struct app *a, const char *left, const char *right)
{
    char lang[16];
    if (!right) {
        bl_fmt(lang, sizeof lang, "%s ", ui_str(a, UIS_LANG_SHOWN));
        right = lang;
    }
    attr_t at = theme_attr(a, UIC_TITLE);
    text_fill(0, 0, a->W, at);
    int rw = text_width(right);
    text_puts(a, 0, 0, a->W - rw - 1, left, at);
    if (rw < a->W)
        text_puts(a, 0, a->W - rw, rw, right, at);
}

void app_keybar(const struct app *a, unsigned screens, const char *const *lesson, int nlesson)
{
    int y = a->H - 1, zh = a->lang == LANG_ZH;
    char bar[UI_MSG_MAX];
    attr_t kat = theme_attr(a, UIC_KEYBAR);
    if (a->msg[0]) {
        /* the message, and the bar's items that never go (help, quit) where it leaves room */
        attr_t at = theme_attr(a, a->msg_warn ? UIC_WARN : UIC_MSG);
        int bw = 0;
        if (screens && !a->opt.present) {
            keys_bar(screens, zh, NULL, 0, 0, text_width, bar, sizeof bar);
            bw = text_width(bar);
            if (text_width(a->msg) + bw + 4 > a->W)
                bw = 0;       /* the whole message first */
        }
        text_fill(y, 0, a->W, at);
        text_puts(a, y, 1, a->W - 2 - (bw ? bw + 2 : 0), a->msg, at);
        if (bw) {
            text_fill(y, a->W - bw - 2, bw + 2, kat);
            text_puts(a, y, a->W - bw - 1, bw, bar, kat);
        }
        return;
    }
    if (a->opt.present || !screens)
        return;
    keys_bar(screens, zh, lesson, nlesson, a->W - 2, text_width, bar, sizeof bar);
    text_fill(y, 0, a->W, kat);
    text_puts(a, y, 1, a->W - 2, bar, kat);
}

void small_draw(const struct app *a, int need_w, int need_h)
{
    char buf[128];
    erase();
    snprintf(buf, sizeof buf, ui_str(a, UIS_TOO_SMALL), need_w, need_h, a->W, a->H);
    int y = a->H / 2;
    int x = (a->W - text_width(buf)) / 2;
    text_puts(a, y, x > 0 ? x : 0, a->W, buf, A_BOLD);
    if (y + 1 < a->H) {
        const char *hint = ui_str(a, UIS_TOO_SMALL_HINT);
        x = (a->W - text_width(hint)) / 2;
        text_puts(a, y + 1, x > 0 ? x : 0, a->W, hint, A_NORMAL);
    }
}
