/* input.c: a key code from curses (getch) as the key table names it (src/keys/keys.h): one
 * Enter for CR, LF and the keypad's, one Backspace for DEL, Ctrl-H and KEY_BACKSPACE, the
 * cursor keys by name. The one place that knows curses' key codes; and the one line editor
 * (the playground's line, the kernel view's file prompt). */
#include <string.h>

#include "app.h"

int ui_key_name(int ch)
{
    switch (ch) {
    case '\r': case '\n': case KEY_ENTER: return K_ENTER;
    case K_DEL: case K_CTRL_H: case KEY_BACKSPACE: return K_BACKSPACE;
    case KEY_DC: return K_DELETE;
    case KEY_LEFT: return K_LEFT;
    case KEY_RIGHT: return K_RIGHT;
    case KEY_UP: return K_UP;
    case KEY_DOWN: return K_DOWN;
    case KEY_HOME: return K_HOME;
    case KEY_END: return K_END;
    case KEY_PPAGE: return K_PGUP;
    case KEY_NPAGE: return K_PGDN;
    case KEY_F(1): return K_F1;
    default:
        /* control and printable characters are their own name; other curses keys: none */
        return ch >= 0 && ch < 0x100 ? ch : K_NONE;
    }
}

int ui_line_key(char *text, int size, int *len, int *cur, const struct ui_key *k)
{
    switch (k->action) {
    case ACT_INSERT:
        if (*len + 1 >= size)
            return -2;
        memmove(text + *cur + 1, text + *cur, (size_t)(*len - *cur + 1));
        text[(*cur)++] = (char)k->key;
        (*len)++;
        return 1;
    case ACT_LEFT: *cur -= *cur > 0; return 0;
    case ACT_RIGHT: *cur += *cur < *len; return 0;
    case ACT_HOME: *cur = 0; return 0;
    case ACT_END: *cur = *len; return 0;
    case ACT_RUBOUT:
        if (*cur == 0)
            return 0;
        memmove(text + *cur - 1, text + *cur, (size_t)(*len - *cur + 1));
        (*cur)--;
        (*len)--;
        return 1;
    case ACT_DELETE:
        if (*cur >= *len)
            return 0;
        memmove(text + *cur, text + *cur + 1, (size_t)(*len - *cur));
        (*len)--;
        return 1;
    case ACT_CLEAR:
        text[0] = 0;
        *len = *cur = 0;
        return 1;
    default:
        return -1;
    }
}
