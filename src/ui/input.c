/* input.c: a key code from curses (getch) as the key table names it (src/keys/keys.h): one
 * Enter for CR, LF and the keypad's, one Backspace for DEL, Ctrl-H and KEY_BACKSPACE, the
 * cursor keys by name. The one place that knows curses' key codes. */
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
