/* keys.c: the one table of key bindings (keys.def, over keys.h) and what is derived from it:
 * the action of a key on a screen, key names, key bars, the help lines, the reserved keys of
 * lessons. No allocation. */
#include "keys.h"

#include <stdio.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/msg.h"

#define K(k, act) {(k), 0, (act)}
#define RANGE(lo, hi, act) {(lo), (hi), (act)}

static const struct key_row rows[] = {
#define ROW(actions, ...) {__VA_ARGS__},
#include "keys.def"
#undef ROW
};

#define NROWS ((int)(sizeof rows / sizeof rows[0]))

const struct key_row *keys_rows(int *n)
{
    *n = NROWS;
    return rows;
}

static int binds(const struct key_bind *b, int key)
{
    return b->last ? key >= b->key && key <= b->last : key == b->key;
}

enum key_action keys_action(unsigned screens, int key)
{
    if (key == K_NONE)
        return ACT_NONE;
    for (int pass = 0; pass < 2; pass++) {
        unsigned want = pass == 0 ? screens & KS_MODES : screens;
        for (int r = 0; r < NROWS && want; r++) {
            if (!(rows[r].screens & want))
                continue;
            for (const struct key_bind *b = rows[r].keys; b->key; b++)
                if (binds(b, key))
                    return b->action;
        }
    }
    return ACT_NONE;
}

static const struct {
    int key;
    const char *name;
} names[] = {
    {K_CTRL_A, "Ctrl-A"}, {K_CTRL_E, "Ctrl-E"}, {K_TAB, "Tab"}, {K_CTRL_U, "Ctrl-U"},
    {K_CTRL_X, "Ctrl-X"}, {K_ESC, "Esc"}, {K_SPACE, "Space"}, {K_ENTER, "Enter"},
    {K_BACKSPACE, "Backspace"}, {K_DELETE, "Delete"}, {K_LEFT, "Left"}, {K_RIGHT, "Right"},
    {K_UP, "Up"}, {K_DOWN, "Down"}, {K_HOME, "Home"}, {K_END, "End"}, {K_PGUP, "PgUp"},
    {K_PGDN, "PgDn"}, {K_F1, "F1"},
};

const char *keys_name(int key, int zh, char *buf, size_t size)
{
    if (!size)
        return buf;
    if (key == K_SPACE && zh) {
        snprintf(buf, size, "%s", bl_msg_format(KEYS_SPACE, BL_LANG_ZH));
        return buf;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].key == key) {
            snprintf(buf, size, "%s", names[i].name);
            return buf;
        }
    if (key > ' ' && key <= '~')
        snprintf(buf, size, "%c", key);
    else
        snprintf(buf, size, "key %d", key);
    return buf;
}

/* a row's keys named and joined by sep ("n Space Right", "n/Space/Right"), ranges as "1-9" */
static const char *join_keys(const struct key_row *r, int zh, const char *sep, char *buf,
                             size_t size)
{
    size_t o = 0;
    buf[0] = 0;
    for (const struct key_bind *b = r->keys; b->key; b++) {
        char one[40], lo[16], hi[16];
        if (b->key == ' ' && b->last == '~')
            snprintf(one, sizeof one, "%s", bl_msg_format(KEYS_PRINTABLE, zh ? BL_LANG_ZH : BL_LANG_EN));
        else if (b->last)
            snprintf(one, sizeof one, "%s-%s", keys_name(b->key, zh, lo, sizeof lo),
                     keys_name(b->last, zh, hi, sizeof hi));
        else
            keys_name(b->key, zh, one, sizeof one);
        o += bl_fmt(buf + o, size - o, "%s%s", o ? sep : "", one);
    }
    return buf;
}

const char *keys_word(int id, int zh)
{
    return id ? bl_msg_format(id, zh ? BL_LANG_ZH : BL_LANG_EN) : NULL;
}

const char *keys_label(const struct key_row *r, int zh, char *buf, size_t size)
{
    if (!size)
        return buf;
    if (r->help_keys) {
        snprintf(buf, size, "%s", keys_word(r->help_keys, zh));
        return buf;
    }
    return join_keys(r, zh, " ", buf, size);
}

size_t keys_summary(int zh, char *buf, size_t size)
{
    size_t o = 0;
    if (size)
        buf[0] = 0;
    for (const struct key_row *r = rows; r < rows + NROWS; r++) {
        char keys[64];
        if (r->help && !r->lesson && r->bar_text && (r->screens & KS_GLOBAL))
            o += bl_fmt(buf + o, size - o, "%s%s %s", o ? ", " : "",
                        join_keys(r, zh, "/", keys, sizeof keys), keys_word(r->bar_text, zh));
    }
    return o;
}

#define BAR_ITEMS 48

struct bar_item {
    char text[80];
    int keep;
    int shown;
};

/* the items of a key bar, in table order; returns how many */
static int bar_items(unsigned screens, int zh, const char *const *lesson, int nlesson,
                     struct bar_item *it, int max)
{
    int k = 0;
    for (int i = 0; i < NROWS; i++) {
        const struct key_row *r = &rows[i];
        char name[16];
        if (!(r->bar & screens))
            continue;
        for (int j = 0; r->lesson && j < nlesson && k < max; j++)
            if (lesson[j] && *lesson[j]) {
                snprintf(it[k].text, sizeof it[k].text, "%s", lesson[j]);
                it[k++].keep = r->keep;
            }
        if (r->lesson || k >= max)
            continue;
        if (r->bar_keys && !*r->bar_keys)
            snprintf(it[k].text, sizeof it[k].text, "%s", keys_word(r->bar_text, zh));
        else
            snprintf(it[k].text, sizeof it[k].text, "%s %s",
                     r->bar_keys ? r->bar_keys : keys_name(r->keys[0].key, zh, name, sizeof name),
                     keys_word(r->bar_text, zh));
        it[k++].keep = r->keep;
    }
    return k;
}

size_t keys_bar(unsigned screens, int zh, const char *const *lesson, int nlesson, int cols,
                int (*width)(const char *), char *buf, size_t size)
{
    struct bar_item it[BAR_ITEMS];
    int n = bar_items(screens, zh, lesson, nlesson, it, BAR_ITEMS);
    int total = 0;
    for (int i = 0; i < n; i++) {
        it[i].shown = 1;
        total += width(it[i].text) + (i ? 2 : 0);
    }
    while (total > cols) {    /* drop the lowest keep, the rightmost among equals */
        int drop = -1;
        for (int i = 0; i < n; i++)
            if (it[i].shown && it[i].keep < KEYS_ALWAYS &&
                (drop < 0 || it[i].keep <= it[drop].keep))
                drop = i;
        if (drop < 0)
            break;
        it[drop].shown = 0;
        total -= width(it[drop].text) + 2;
    }
    size_t o = 0;
    if (!size)
        return 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++)
        if (it[i].shown)
            o += bl_fmt(buf + o, size - o, "%s%s", o ? "  " : "", it[i].text);
    return o;
}

const char *keys_first(unsigned screens, enum key_action act, int zh, char *buf, size_t size)
{
    if (!size)
        return buf;
    buf[0] = 0;
    for (int i = 0; i < NROWS; i++) {
        if (!(rows[i].screens & screens))
            continue;
        for (const struct key_bind *b = rows[i].keys; b->key; b++)
            if (b->action == act && !b->last)
                return keys_name(b->key, zh, buf, size);
    }
    return buf;
}

/* the screens where the lesson's parameter keys act */
static unsigned lesson_screens(void)
{
    unsigned s = 0;
    for (int i = 0; i < NROWS; i++)
        if (rows[i].lesson)
            s |= rows[i].screens;
    return s;
}

int keys_reserved(int ch)
{
    unsigned where = lesson_screens();
    for (int i = 0; i < NROWS; i++) {
        if (!(rows[i].screens & where))
            continue;
        for (const struct key_bind *b = rows[i].keys; b->key; b++)
            if (binds(b, ch))
                return 1;
    }
    return 0;
}

const char *keys_reserved_text(char *buf, size_t size)
{
    size_t o = 0;
    if (!size)
        return buf;
    buf[0] = 0;
    for (int ch = '!'; ch <= '~' && o + 4 < size; ch++) {
        if ((ch >= '0' && ch <= '9') || !keys_reserved(ch))
            continue;
        buf[o++] = (char)ch;
        buf[o++] = ' ';
        buf[o] = 0;
    }
    int digits = 1;
    for (int ch = '0'; ch <= '9'; ch++)
        digits &= keys_reserved(ch);
    if (o)
        o--;   /* the last space */
    snprintf(buf + o, size - o, "%s%s", digits ? ", digits" : "", keys_reserved(' ') ? ", space" : "");
    return buf;
}
