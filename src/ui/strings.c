/* strings.c: the table of the screen's own words in English and Chinese, made from the one
 * list in strings.def; ui_str picks the current language (l switches it at run time).
 * Static tables only; no curses calls. */
#include "app.h"

static const char *const table[UIS_COUNT][2] = {
#define S(name, en, zh) [name] = {en, zh},
#include "strings.def"
#undef S
};

const char *ui_str(const struct app *a, enum ui_str s)
{
    if (s < 0 || s >= UIS_COUNT)
        return "";
    return table[s][a->lang == LANG_ZH ? 1 : 0];
}

enum bl_lang ui_lang(const struct app *a)
{
    return a->lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN;
}

const char *ui_msg(const struct app *a, const struct bl_msg *m, const char *en, char *buf,
                   size_t n)
{
    return bl_msg_or_text(m, en, ui_lang(a), buf, n);
}

const char *ui_err(const struct app *a, const struct bl_err *e, char *buf, size_t n)
{
    return bl_err_text(e, ui_lang(a), buf, n);
}
