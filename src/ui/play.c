/* play.c: the playground (g): the learner types declarations and an access; every keystroke
 * re-parses and redraws the grid; errors show inline with a caret and never stop the program.
 * Statements NAME=VALUE set parameters (block=32x8, warp=N and dynamic=BYTES too); PgDn/PgUp
 * pick the warp and Tab the access (keys that cannot be text); opened from a step it starts
 * from that step's scene and values, with play_open from a given text (a line of the kernel
 * view). Up/Down walk the history kept in progress; Enter saves the pattern there. Its state
 * (the line, the cursor, its own scene and measurement) is private to this file and lasts the
 * whole run. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

static const char *const play_example = "__shared__ float s[32][32 + PAD]; PAD=0; s[lane][0]";

struct play {
    struct app *app;                      /* for the measurement callback */
    char text[PROGRESS_CODE_MAX];
    int len, cursor;
    int hist;                             /* browsing history index, -1 none */
    char filtered[PROGRESS_CODE_MAX];     /* text without NAME=VALUE statements */
    int colmap[PROGRESS_CODE_MAX];        /* filtered column -> text column */
    char params[UI_MSG_MAX];              /* "PAD=1 block=32x8" */
    char unset[UI_MSG_MAX];               /* parameters the text uses but nobody set (0) */
    unsigned warp;                        /* chosen with PgDn/PgUp (a warp=N statement wins) */
    int text_warp;                        /* the text has a warp=N statement */
    char carried[PROGRESS_CODE_MAX + 64]; /* the step state last carried in (see carry) */
    int opened;                           /* play_open gave the text: enter keeps it */
    struct ui_scene sc;
};

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

/* one NAME=VALUE statement into env (block, warp and dynamic set the launch); 0, or -1 with
 * why */
static int apply_setting(struct play *p, struct pattern_env *env, const char *name,
                         const char *val, struct bl_err *why)
{
    if (!strcmp(name, "block")) {
        unsigned bx = 1, by = 1, bz = 1;
        int k = sscanf(val, "%ux%ux%u", &bx, &by, &bz);
        if (k < 1 || bx == 0 || by == 0 || bz == 0 || (unsigned long long)bx * by * bz > 1024)
            return bl_fail(why, -1, BL_NOWHERE, UI_SETTING_BLOCK);
        env->block[0] = bx;
        env->block[1] = k > 1 ? by : 1;
        env->block[2] = k > 2 ? bz : 1;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    long long v = strchr(val, 'x') ? 0 : strtoll(val, &end, 10);
    if (!end || *end || errno)    /* no silent clamping: 4294967297 is not 1 */
        return bl_fail(why, -1, BL_NOWHERE, strchr(val, 'x') ? UI_SETTING_NUMBER
                                                             : UI_SETTING_RANGE);
    if (!strcmp(name, "warp")) {
        if (v < 0 || v > 31)
            return bl_fail(why, -1, BL_NOWHERE, UI_SETTING_WARP);
        p->sc.warp = (unsigned)v;
        p->text_warp = 1;
        return 0;
    }
    if (!strcmp(name, "dynamic")) {
        if (v < 0)
            return bl_fail(why, -1, BL_NOWHERE, UI_SETTING_DYNAMIC);
        env->dyn_bytes = (unsigned long long)v;
        return 0;
    }
    int known = 0;
    for (int k = 0; k < env->nparams; k++)
        known |= !strcmp(env->param[k].name, name);
    if (!known && env->nparams >= PATTERN_MAX_PARAMS)
        return bl_fail(why, -1, BL_NOWHERE, UI_SETTING_PARAMS, PATTERN_MAX_PARAMS);
    if (pattern_env_set(env, name, v) != 0)
        return bl_fail(why, -1, BL_NOWHERE, UI_SETTING_NAME);
    return 0;
}

/* p->filtered: the text without its NAME=VALUE statements (applied to env, listed in
 * p->params), with a column map back into the text for error carets; errbuf: the first bad
 * setting */
static void split_settings(struct play *p, struct pattern_env *env, char *errbuf, size_t esz)
{
    size_t o = 0, params_o = 0;
    const char *t = p->text;
    size_t i = 0, n = (size_t)p->len;
    p->params[0] = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && t[j] != ';')
            j++;
        char name[PATTERN_NAME_MAX], val[32];
        if (param_stmt(t + i, j - i, name, sizeof name, val, sizeof val)) {
            struct bl_err why = {0};
            if (apply_setting(p, env, name, val, &why) != 0 && !errbuf[0])
                snprintf(errbuf, esz, ui_str(p->app, UIS_PLAY_BAD_SETTING), name, val,
                         ui_err(p->app, &why, (char[BL_ERR_TEXT]){0}, BL_ERR_TEXT));
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
}

/* parameters the text uses but nobody set: 0, and p->unset says so */
static void default_unset(struct play *p, struct pattern_env *env)
{
    p->unset[0] = 0;
    for (int k = 0; k < pattern_param_count(p->sc.run.pat); k++) {
        const char *nm = pattern_param_name(p->sc.run.pat, k);
        int found = 0;
        for (int m = 0; m < env->nparams; m++)
            if (!strcmp(env->param[m].name, nm))
                found = 1;
        if (!found) {
            pattern_env_set(env, nm, 0);
            size_t u = strlen(p->unset);
            snprintf(p->unset + u, sizeof p->unset - u, "%s%s", u ? ", " : "", nm);
        }
    }
}

static void play_eval(struct app *a, struct play *p)
{
    struct ui_scene *sc = &p->sc;
    struct pattern_env env;
    char errbuf[UI_MSG_MAX] = "";
    pattern_env_init(&env);
    sc->warp = p->warp;
    p->text_warp = 0;
    split_settings(p, &env, errbuf, sizeof errbuf);
    sc->ok = 0;
    sc->errtext[0] = 0;
    if (scene_set_code(sc, p->filtered) != 0) {
        if (!p->filtered[0])
            snprintf(sc->errtext, sizeof sc->errtext, ui_str(a, UIS_PLAY_TYPE), play_example);
        return;
    }
    if (errbuf[0]) {
        memset(&sc->err, 0, sizeof sc->err);
        snprintf(sc->errtext, sizeof sc->errtext, "%s", errbuf);
        return;
    }
    default_unset(p, &env);
    sc->env = env;
    scene_eval(a, sc);
    if (sc->ok) {
        if (pattern_substitute(sc->run.code.s, &sc->env, sc->shown, sizeof sc->shown) < 0)
            snprintf(sc->shown, sizeof sc->shown, "%s", sc->run.code.s);
        scene_measure(a, sc);
    }
}

static void set_text(struct play *p, const char *s)
{
    snprintf(p->text, sizeof p->text, "%s", s);
    p->len = (int)strlen(p->text);
    p->cursor = p->len;
}

static void measured(void *ctx, const struct gpu_result *r)
{
    struct play *p = ctx;
    scene_record(p->app, &p->sc, r, "playground");
}

static void play_init(struct app *a, void *st)
{
    struct play *p = st;
    p->app = a;
    p->hist = -1;
    scene_init(&p->sc, measured, p);
}

static void play_done(struct app *a, void *st)
{
    struct play *p = st;
    scene_clear(a, &p->sc);
}

/* The current step's scene as playground text: its code (with the typedef of its element
 * type) and statements for the values it has now ("...; PAD=1; block=16x16"); its warp and
 * access are taken over too. 0, or -1 when there is no scene or it does not fit. */
static int step_text(const struct app *a, char *buf, size_t size)
{
    const struct ui_scene *s = &a->sc;
    if (!s->ls || !s->parsed)
        return -1;
    size_t o = (size_t)snprintf(buf, size, "%s", s->run.code.s);
    for (int i = 0; i < s->ls->nparams && i < PATTERN_MAX_PARAMS && o < size; i++)
        o += (size_t)snprintf(buf + o, size - o, "; %s=%lld", s->ls->params[i].name, s->value[i]);
    const unsigned *b = s->env.block;
    if (o < size && (b[0] != 32 || b[1] != 1 || b[2] != 1))
        o += (size_t)snprintf(buf + o, size - o, "; block=%ux%ux%u", b[0], b[1], b[2]);
    if (o < size && s->env.dyn_bytes)
        o += (size_t)snprintf(buf + o, size - o, "; dynamic=%llu",
                              (unsigned long long)s->env.dyn_bytes);
    return o < size ? 0 : -1;
}

/* Opened with a step on the screen: the playground starts from that step as it is now (what
 * was typed before goes into the history first, so nothing is lost). The same step in the
 * same state again: the text typed since stays. */
static int carry(struct app *a, struct play *p)
{
    char text[PROGRESS_CODE_MAX], sig[sizeof p->carried];
    if (a->sc.held && a->sc.ls) {   /* its grid would show the answer */
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_HELD_PLAY));
        return 0;
    }
    if (step_text(a, text, sizeof text) != 0)
        return 0;
    const struct lesson_step *st = app_step(a);
    snprintf(sig, sizeof sig, "%s/%s %u %d %s", a->set.lessons[a->li].id, st ? st->id : "",
             a->sc.warp, a->sc.access, text);
    if (!strcmp(sig, p->carried))
        return 1;
    snprintf(p->carried, sizeof p->carried, "%s", sig);
    if (p->len && strcmp(p->text, text))
        progress_push_history(&a->prog, p->text);
    set_text(p, text);
    p->warp = a->sc.warp;
    p->sc.access = a->sc.access;
    p->hist = -1;
    return 1;
}

int play_open(struct app *a, const char *text)
{
    struct play *p = ui_state(a, UI_PLAY);
    if (strlen(text) >= sizeof p->text)
        return -1;
    if (p->len && strcmp(p->text, text))
        progress_push_history(&a->prog, p->text);
    set_text(p, text);
    p->hist = -1;
    p->warp = 0;
    p->sc.access = 0;
    p->opened = 1;
    return ui_push(a, UI_PLAY);
}

static int play_enter(struct app *a, void *st)
{
    struct play *p = st;
    if (p->opened) {
        p->opened = 0;
    } else if (!carry(a, p) && !p->len && !(a->sc.held && a->sc.ls)) {
        /* (a step whose answer is held: an empty line, no example's grid beside it) */
        if (a->prog.nhistory > 0)
            set_text(p, a->prog.history[a->prog.nhistory - 1]);
        else
            set_text(p, play_example);
        p->hist = -1;
    }
    play_eval(a, p);
    return 0;
}

/* the input line, scrolled so the cursor shows; returns the first column shown */
static int draw_input(const struct app *a, const struct play *p, int y)
{
    int iw = a->W - 4;
    int start = 0;
    if (p->cursor > iw - 1)
        start = p->cursor - (iw - 1);
    /* the prompt, or an ellipsis when the line's start is scrolled away; one at the end
     * when it goes on past the screen */
    text_puts(a, y, 0, 2, start > 0 ? a->g->ellipsis : "> ", theme_attr(a, UIC_KEY));
    attrset(theme_attr(a, UIC_CODE));
    mvaddnstr(y, 2, p->text + start, iw);
    if (p->len - start > iw)
        text_puts(a, y, 2 + iw, 1, a->g->ellipsis, theme_attr(a, UIC_KEY));
    attrset(theme_attr(a, UIC_CURSOR));
    char cc[2] = {p->cursor < p->len ? p->text[p->cursor] : ' ', 0};
    mvaddstr(y, 2 + p->cursor - start, cc);
    attrset(A_NORMAL);
    return start;
}

/* the error: a caret (and ~ under the rest of a parse error) under the input, the message */
static int draw_error(const struct app *a, const struct play *p, int y, int start)
{
    const struct ui_scene *sc = &p->sc;
    char buf[UI_MSG_MAX];
    int W = a->W;
    if (sc->err.where.at > 0 && sc->err.where.at <= (int)strlen(sc->run.code.s) + 1) {
        int col = p->colmap[sc->err.where.at - 1] + 1;
        int cx = 2 + (col - 1) - start;
        if (cx >= 2 && cx < W && sc->parsed == 0) {
            attrset(theme_attr(a, UIC_ERROR));
            mvaddstr(y, cx, "^");
            for (int k = 1; k < sc->err.where.len && cx + k < W; k++)
                mvaddstr(y, cx + k, "~");
            attrset(A_NORMAL);
        } else if (cx >= 2 && cx < W) {
            text_puts(a, y, cx, 1, "^", theme_attr(a, UIC_ERROR));
        }
    }
    y++;
    char why[UI_MSG_MAX];
    scene_error_text(a, sc, why, sizeof why);
    snprintf(buf, sizeof buf, ui_str(a, UIS_PLAY_ERROR), why);
    return y + text_draw(a, y, 1, W - 2, 2, buf, 0, theme_attr(a, UIC_ERROR));
}

static void draw_grid(const struct app *a, const struct play *p, int y)
{
    const struct ui_scene *sc = &p->sc;
    char buf[UI_MSG_MAX];
    int W = a->W, H = a->H;
    params_line(a, sc, KS_PLAY, buf, sizeof buf);
    if (p->unset[0]) {
        size_t o = strlen(buf);
        snprintf(buf + o, sizeof buf - o, "%s%s%s", a->g->sep, p->unset, ui_str(a, UIS_UNSET));
    }
    text_puts(a, y++, 1, W - 2, buf, A_NORMAL);
    int gh = H - y - 2 - results_rows(a, sc, W - 2, 0);
    int need = grid_rows_wanted(a, sc);
    if (gh > need)
        gh = need;
    if (gh >= 3)
        grid_draw(a, y, 0, W, gh, sc, NULL, 0);
    y += gh > 0 ? gh : 0;
    results_draw(a, y, 1, W - 2, results_rows(a, sc, W - 2, 0), sc, 0);
}

static void play_draw(const struct app *a, const void *st)
{
    const struct play *p = st;
    app_title(a, ui_str(a, UIS_PLAY_TITLE), NULL);
    int y = 1;
    y += text_draw(a, y, 1, a->W - 2, 2, ui_str(a, UIS_PLAY_INTRO), 0, theme_attr(a, UIC_DIM));
    int start = draw_input(a, p, y);
    y++;
    if (!p->sc.ok)
        draw_error(a, p, y, start);
    else
        draw_grid(a, p, y + 1);
    app_keybar(a, KS_PLAY, NULL, 0);
}

static void history(struct app *a, struct play *p, int delta)
{
    int nh = a->prog.nhistory;
    if (nh == 0) {
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_NO_HISTORY));
        return;
    }
    if (p->hist < 0)
        p->hist = nh;
    p->hist += delta;
    if (p->hist < 0)
        p->hist = 0;
    if (p->hist >= nh)
        p->hist = nh - 1;
    set_text(p, a->prog.history[p->hist]);
    play_eval(a, p);
}

static void save(struct app *a, struct play *p)
{
    if (!p->len)
        return;
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
    app_msg(a, 0, "%s", ui_str(a, UIS_MSG_SAVED));
}

static enum ui_result play_key(struct app *a, void *st, const struct ui_key *k)
{
    struct play *p = st;
    /* a printable key is always text here: with a full line it must not fall through to the
     * tutorial's keys (s would open the sweep, q would quit) */
    int edit = ui_line_key(p->text, (int)sizeof p->text, &p->len, &p->cursor, k);
    if (edit == 1)
        play_eval(a, p);
    else if (edit == -2)
        app_msg(a, 1, "%s", ui_str(a, UIS_MSG_TOO_LONG));
    if (edit != -1)
        return UI_HANDLED;
    switch (k->action) {
    case ACT_UP: history(a, p, -1); return UI_HANDLED;
    case ACT_DOWN: history(a, p, 1); return UI_HANDLED;
    case ACT_ACCESS:
        if (p->sc.ok || p->sc.parsed) {
            scene_next_access(a, &p->sc);
            play_eval(a, p);
        }
        return UI_HANDLED;
    case ACT_WARP_NEXT: case ACT_WARP_PREV:
        if (p->text_warp) {
            app_msg(a, 0, "%s", ui_str(a, UIS_TEXT_WARP));
        } else if (p->sc.ok) {
            scene_warp(a, &p->sc, k->action == ACT_WARP_NEXT ? 1 : -1);
            p->warp = p->sc.warp;
        }
        return UI_HANDLED;
    case ACT_SAVE: save(a, p); return UI_HANDLED;
    case ACT_SVG:
        if (p->sc.ok)
            app_export_svg(a, &p->sc, "banklab-playground.svg");
        else
            app_msg(a, 1, "%s", ui_str(a, UIS_MSG_FIX_FIRST));
        return UI_HANDLED;
    default:
        return UI_IGNORED;    /* Esc (back) and F1 (help) are the loop's */
    }
}

const struct ui_screen screen_play = {
    .name = "playground", .state_size = sizeof(struct play), .init = play_init, .done = play_done,
    .enter = play_enter, .draw = play_draw, .key = play_key, .keys = KS_PLAY,
};
