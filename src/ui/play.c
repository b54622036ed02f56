/* play.c: the playground (g): the learner types declarations and an access; every keystroke
 * re-parses and redraws the grid; errors show inline with a caret and never stop the program.
 * Statements NAME=VALUE set parameters (block=32x8 and warp=N too); Up/Down walk the history
 * kept in progress; Enter saves the pattern there. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

static const char *const play_example = "__shared__ float s[32][32 + PAD]; PAD=0; s[lane][0]";

static int is_ident(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.'))
            return 0;
    return 1;
}

/* "NAME = VALUE" (VALUE an integer, or AxBxC for block): 1 and the parts, else 0 */
static int param_stmt(const char *s, size_t n, char *name, size_t nsz, char *val, size_t vsz)
{
    while (n && isspace((unsigned char)*s)) { s++; n--; }
    while (n && isspace((unsigned char)s[n - 1])) n--;
    const char *eq = memchr(s, '=', n);
    if (!eq || (size_t)(eq - s) + 1 >= n || eq[1] == '=')
        return 0;
    size_t ln = (size_t)(eq - s);
    while (ln && isspace((unsigned char)s[ln - 1])) ln--;
    if (!is_ident(s, ln) || ln >= nsz)
        return 0;
    if (memchr(s, ' ', ln))
        return 0;
    const char *v = eq + 1;
    size_t vn = n - (size_t)(v - s);
    while (vn && isspace((unsigned char)*v)) { v++; vn--; }
    if (vn == 0 || vn >= vsz)
        return 0;
    for (size_t i = 0; i < vn; i++)
        if (!(isdigit((unsigned char)v[i]) || v[i] == 'x' || (i == 0 && v[i] == '-')))
            return 0;
    memcpy(name, s, ln);
    name[ln] = 0;
    memcpy(val, v, vn);
    val[vn] = 0;
    return 1;
}

static void play_eval(struct app *a)
{
    struct ui_play *p = &a->play;
    struct ui_scene *sc = &p->sc;
    struct pattern_env env;
    pattern_env_init(&env);
    sc->warp = 0;
    /* split off NAME=VALUE statements, keeping a column map for error carets */
    size_t o = 0, params_o = 0;
    p->params[0] = 0;
    const char *t = p->text;
    size_t i = 0, n = (size_t)p->len;
    char errbuf[UI_MSG_MAX] = "";
    while (i <= n) {
        size_t j = i;
        while (j < n && t[j] != ';')
            j++;
        char name[PATTERN_NAME_MAX], val[32];
        if (param_stmt(t + i, j - i, name, sizeof name, val, sizeof val)) {
            int ok = 1;
            if (!strcmp(name, "block")) {
                unsigned bx = 1, by = 1, bz = 1;
                int k = sscanf(val, "%ux%ux%u", &bx, &by, &bz);
                if (k < 1 || bx == 0 || by == 0 || bz == 0 || (unsigned long long)bx * by * bz > 1024)
                    ok = 0;
                else {
                    env.block[0] = bx;
                    env.block[1] = k > 1 ? by : 1;
                    env.block[2] = k > 2 ? bz : 1;
                }
            } else if (!strcmp(name, "warp")) {
                sc->warp = (unsigned)strtoul(val, NULL, 10);
            } else if (strchr(val, 'x') || pattern_env_set(&env, name, strtoll(val, NULL, 10)) != 0) {
                ok = 0;
            }
            if (!ok && !errbuf[0])
                snprintf(errbuf, sizeof errbuf, "bad setting %s=%s (block=XxYxZ up to 1024 threads)",
                         name, val);
            int k = snprintf(p->params + params_o, sizeof p->params - params_o, "%s%s=%s",
                             params_o ? " " : "", name, val);
            if (k > 0 && params_o + (size_t)k < sizeof p->params)
                params_o += (size_t)k;
        } else if (j > i) {
            int blank = 1;
            for (size_t k = i; k < j; k++)
                if (!isspace((unsigned char)t[k]))
                    blank = 0;
            if (!blank) {
                if (o) {
                    p->filtered[o] = ';';
                    p->colmap[o] = (int)(i > 0 ? i - 1 : 0);
                    o++;
                }
                for (size_t k = i; k < j && o + 1 < sizeof p->filtered; k++) {
                    p->filtered[o] = t[k];
                    p->colmap[o] = (int)k;
                    o++;
                }
            }
        }
        i = j + 1;
    }
    p->filtered[o] = 0;
    p->colmap[o] = (int)n;
    /* parse when the text changed */
    sc->ok = 0;
    sc->errtext[0] = 0;
    if (!sc->parsed || strcmp(sc->code, p->filtered)) {
        if (sc->pat)
            pattern_free(sc->pat);
        sc->pat = NULL;
        sc->parsed = 0;
        snprintf(sc->code, sizeof sc->code, "%s", p->filtered);
        memset(&sc->err, 0, sizeof sc->err);
        if (!p->filtered[0]) {
            snprintf(sc->errtext, sizeof sc->errtext, "type a declaration and an access, e.g. %s",
                     play_example);
            return;
        }
        if (pattern_parse(sc->code, &sc->pat, &sc->err) != 0) {
            sc->pat = NULL;
            snprintf(sc->errtext, sizeof sc->errtext, "%s", sc->err.msg);
            return;
        }
        sc->parsed = 1;
        sc->naccess = pattern_access_count(sc->pat);
    }
    if (errbuf[0]) {
        memset(&sc->err, 0, sizeof sc->err);
        snprintf(sc->errtext, sizeof sc->errtext, "%s", errbuf);
        return;
    }
    /* parameters the text uses but nobody set: 0, and say so */
    p->unset[0] = 0;
    for (int k = 0; k < pattern_param_count(sc->pat); k++) {
        const char *nm = pattern_param_name(sc->pat, k);
        int found = 0;
        for (int m = 0; m < env.nparams; m++)
            if (!strcmp(env.param[m].name, nm))
                found = 1;
        if (!found) {
            pattern_env_set(&env, nm, 0);
            size_t u = strlen(p->unset);
            snprintf(p->unset + u, sizeof p->unset - u, "%s%s", u ? ", " : "", nm);
        }
    }
    sc->env = env;
    scene_eval(a, sc);
    if (sc->ok) {
        if (pattern_substitute(sc->code, &sc->env, sc->shown, sizeof sc->shown) < 0)
            snprintf(sc->shown, sizeof sc->shown, "%s", sc->code);
        scene_submit(a, sc);
    }
}

static void set_text(struct ui_play *p, const char *s)
{
    snprintf(p->text, sizeof p->text, "%s", s);
    p->len = (int)strlen(p->text);
    p->cursor = p->len;
}

void play_open(struct app *a)
{
    struct ui_play *p = &a->play;
    if (a->screen == SCR_PLAY)
        return;
    a->back = (a->screen == SCR_ERROR) ? SCR_ERROR : SCR_TUTOR;
    a->screen = SCR_PLAY;
    if (!p->len) {
        if (a->prog.nhistory > 0)
            set_text(p, a->prog.history[a->prog.nhistory - 1]);
        else if (a->sc.ls && a->sc.ls->code && strlen(a->sc.ls->code) < sizeof p->text)
            set_text(p, a->sc.ls->code);
        else
            set_text(p, play_example);
        p->hist = -1;
    }
    play_eval(a);
}

void play_close(struct app *a)
{
    scene_clear(&a->play.sc);
}

void play_draw(struct app *a)
{
    struct ui_play *p = &a->play;
    struct ui_scene *sc = &p->sc;
    int W = a->W, H = a->H;
    char buf[UI_MSG_MAX];
    app_title(a, ui_str(a, UIS_PLAY_TITLE), a->lang == LANG_ZH ? "zh " : "en ");
    int y = 1;
    y += text_draw(a, y, 1, W - 2, 2, ui_str(a, UIS_PLAY_INTRO), 0, theme_attr(a, UIC_DIM));
    /* the input line, scrolled so the cursor shows */
    int iw = W - 4;
    int start = 0;
    if (p->cursor > iw - 1)
        start = p->cursor - (iw - 1);
    text_puts(a, y, 0, 2, "> ", theme_attr(a, UIC_KEY));
    attrset(theme_attr(a, UIC_CODE));
    mvaddnstr(y, 2, p->text + start, iw);
    attrset(theme_attr(a, UIC_CURSOR));
    char cc[2] = {p->cursor < p->len ? p->text[p->cursor] : ' ', 0};
    mvaddstr(y, 2 + p->cursor - start, cc);
    attrset(A_NORMAL);
    y++;
    /* error with a caret under the input, or the parameter line */
    if (!sc->ok) {
        if (sc->err.col > 0 && sc->parsed == 0 && sc->err.col <= (int)strlen(sc->code) + 1) {
            int col = p->colmap[sc->err.col - 1] + 1;
            int cx = 2 + (col - 1) - start;
            if (cx >= 2 && cx < W) {
                attrset(theme_attr(a, UIC_ERROR));
                mvaddstr(y, cx, "^");
                for (int k = 1; k < sc->err.len && cx + k < W; k++)
                    mvaddstr(y, cx + k, "~");
                attrset(A_NORMAL);
            }
        } else if (sc->err.col > 0 && sc->err.col <= (int)strlen(sc->code) + 1) {
            int col = p->colmap[sc->err.col - 1] + 1;
            int cx = 2 + (col - 1) - start;
            if (cx >= 2 && cx < W)
                text_puts(a, y, cx, 1, "^", theme_attr(a, UIC_ERROR));
        }
        y++;
        snprintf(buf, sizeof buf, "error: %s", sc->errtext);
        y += text_draw(a, y, 1, W - 2, 2, buf, 0, theme_attr(a, UIC_ERROR));
    } else {
        y++;
        params_line(a, sc, buf, sizeof buf);
        if (p->unset[0]) {
            size_t o = strlen(buf);
            snprintf(buf + o, sizeof buf - o, "%s%s unset: 0 (type NAME=VALUE)", a->g->sep, p->unset);
        }
        text_puts(a, y++, 1, W - 2, buf, A_NORMAL);
        int gh = H - y - 2 - results_rows(a);
        int need = grid_rows_wanted(a, sc);
        if (gh > need)
            gh = need;
        int cw = (W - 4) / 32 > 3 ? 3 : (W - 4) / 32;
        int gx = (W - (4 + 32 * cw)) / 2;
        if (gx < 0)
            gx = 0;
        if (gh >= 3)
            grid_draw(a, y, gx, W - gx, gh, sc, NULL, 0);
        y += gh > 0 ? gh : 0;
        results_draw(a, y, 1, W - 2, results_rows(a), sc, 0);
    }
    app_keybar(a, ui_str(a, UIS_PLAY_KEYS));
}

int play_key(struct app *a, int ch)
{
    struct ui_play *p = &a->play;
    switch (ch) {
    case 27:
        a->screen = a->back == SCR_ERROR ? SCR_ERROR : SCR_TUTOR;
        if (a->screen == SCR_TUTOR)       /* the measurement shown is the step's again */
            tutor_resubmit(a);
        return 1;
    case KEY_LEFT: if (p->cursor > 0) p->cursor--; return 1;
    case KEY_RIGHT: if (p->cursor < p->len) p->cursor++; return 1;
    case KEY_HOME: case 1: p->cursor = 0; return 1;
    case KEY_END: case 5: p->cursor = p->len; return 1;
    case KEY_BACKSPACE: case 127: case 8:
        if (p->cursor > 0) {
            memmove(p->text + p->cursor - 1, p->text + p->cursor, (size_t)(p->len - p->cursor + 1));
            p->cursor--;
            p->len--;
            play_eval(a);
        }
        return 1;
    case KEY_DC:
        if (p->cursor < p->len) {
            memmove(p->text + p->cursor, p->text + p->cursor + 1, (size_t)(p->len - p->cursor));
            p->len--;
            play_eval(a);
        }
        return 1;
    case 21: /* ^U */
        p->text[0] = 0;
        p->len = p->cursor = 0;
        play_eval(a);
        return 1;
    case KEY_UP: case KEY_DOWN: {
        int nh = a->prog.nhistory;
        if (nh == 0) {
            app_msg(a, 0, "no history yet: Enter saves a pattern");
            return 1;
        }
        if (p->hist < 0)
            p->hist = nh;
        p->hist += ch == KEY_UP ? -1 : 1;
        if (p->hist < 0)
            p->hist = 0;
        if (p->hist >= nh) {
            p->hist = nh - 1;
        }
        set_text(p, a->prog.history[p->hist]);
        play_eval(a);
        return 1;
    }
    case '\t':
        if (p->sc.ok || p->sc.parsed) {
            scene_next_access(a, &p->sc);
            play_eval(a);
        }
        return 1;
    case '\n': case '\r': case KEY_ENTER:
        if (!p->len)
            return 1;
        progress_push_history(&a->prog, p->text);
        p->hist = -1;
        if (p->sc.ok) {
            struct progress_explored e;
            memset(&e, 0, sizeof e);
            snprintf(e.code, sizeof e.code, "%s", p->sc.shown);
            snprintf(e.where, sizeof e.where, "playground");
            e.wavefronts = p->sc.res.wavefronts;
            e.conflicts = p->sc.res.conflicts;
            e.ways = p->sc.res.ways;
            e.when = (long long)time(NULL);
            progress_record_explored(&a->prog, &e);
        }
        app_save_soon(a);
        app_msg(a, 0, "saved to the playground history (Up/Down)");
        return 1;
    case 24: /* ^X */
        if (p->sc.ok)
            app_export_svg(a, &p->sc, "banklab-playground.svg");
        else
            app_msg(a, 1, "fix the pattern first");
        return 1;
    case KEY_F(1):
        a->help = 1;
        return 1;
    }
    if (ch >= 32 && ch < 127) {
        /* a printable key is always text here: with a full line it must not fall through to
         * the tutorial's keys (s would open the sweep, q would quit) */
        if (p->len + 1 >= (int)sizeof p->text) {
            app_msg(a, 1, "the pattern is at its length limit");
            return 1;
        }
        memmove(p->text + p->cursor + 1, p->text + p->cursor, (size_t)(p->len - p->cursor + 1));
        p->text[p->cursor++] = (char)ch;
        p->len++;
        play_eval(a);
        return 1;
    }
    return 0;
}
