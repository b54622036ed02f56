/* app.c: the tutorial's one input loop and what all screens share: curses setup, signals (the
 * handler only sets a flag), resize, GPU polling through the hub (never blocking), one key at
 * a time to the screen on top with the global keys as the fall-back, one redraw per event,
 * the title and key bar, going to a step, saving, exports, and the BANKLAB_TIMING
 * measurements. The only mutable global is the signal flag. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lesson/report.h"
#include "../render/svg.h"
#include "app.h"

static volatile sig_atomic_t ui_signal;

static void on_signal(int sig)
{
    ui_signal = sig;
}

double ui_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void app_msg(struct app *a, int warn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_warn = warn;
}

const struct lesson_step *app_step(const struct app *a)
{
    if (!a->have_lessons || a->li < 0 || a->li >= a->set.nlessons)
        return NULL;
    const struct lesson *l = &a->set.lessons[a->li];
    if (a->si < 0 || a->si >= l->nsteps)
        return NULL;
    return &l->steps[a->si];
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

const char *app_export_dir(void)
{
    const char *d = getenv("BANKLAB_EXPORT_DIR");
    return d && *d ? d : ".";
}

void app_save(struct app *a)
{
    if (!a->have_prog_path)
        return;
    const struct lesson_step *st = app_step(a);
    if (st) {
        snprintf(a->prog.lesson_id, sizeof a->prog.lesson_id, "%s", a->set.lessons[a->li].id);
        snprintf(a->prog.step_id, sizeof a->prog.step_id, "%s", st->id);
    }
    char err[UI_MSG_MAX];
    if (progress_save(a->prog_path, &a->prog, err, sizeof err) != 0)
        app_msg(a, 1, "progress not saved: %s", err);
}

void app_save_soon(struct app *a)
{
    a->save_due = 1;
}

void app_goto(struct app *a, int li, int si)
{
    if (!a->have_lessons)
        return;
    if (li < 0 || li >= a->set.nlessons)
        return;
    if (si >= a->set.lessons[li].nsteps) {
        if (li + 1 >= a->set.nlessons) {
            app_msg(a, 0, "this is the last step of the last chapter (c: contents, q: quit)");
            return;
        }
        li++;
        si = 0;
    } else if (si < 0) {
        if (li == 0) {
            app_msg(a, 0, "this is the first step");
            return;
        }
        li--;
        si = a->set.lessons[li].nsteps - 1;
    }
    a->li = li;
    a->si = si;
    ui_reset(a, UI_TUTOR);
    app_save_soon(a);
}

void app_export_svg(struct app *a, const struct ui_scene *s, const char *name)
{
    char path[UI_PATH_MAX], sub[UI_MSG_MAX];
    snprintf(path, sizeof path, "%s/%s", app_export_dir(), name);
    params_line(a, s, sub, sizeof sub);
    struct svg_options o = {.title = s->shown, .subtitle = sub, .monochrome = 0};
    if (svg_write_file(path, &s->res, s->acc.width, s->acc.op, &o) != 0)
        app_msg(a, 1, "could not write %s: %s", path, strerror(errno));
    else
        app_msg(a, 0, "grid written to %s", path);
}

void app_export_report(struct app *a)
{
    char written[UI_PATH_MAX * 2], err[UI_MSG_MAX];
    const struct gpu_info *info = req_hub_info(&a->hub);
    struct report_meta meta = {
        .device = info->available ? info->device : NULL,
        .backend = gpu_backend_name(info->backend),
        .learner = getenv("USER"),
        .now = 0,
    };
    if (report_write_dir(app_export_dir(), REPORT_BOTH, &a->prog, a->have_lessons ? &a->set : NULL,
                         a->lang, &meta, written, sizeof written, err, sizeof err) != 0) {
        app_msg(a, 1, "report not written: %s", err);
        return;
    }
    for (char *p = written; *p; p++)
        if (*p == '\n')
            *p = ' ';
    app_msg(a, 0, "report written: %s", written);
}

/* --- the loop --------------------------------------------------------------------------- */

static void draw(const struct app *a)
{
    erase();
    int need_w = a->opt.present ? UI_PRESENT_MIN_W : UI_MIN_W;
    int need_h = a->opt.present ? UI_PRESENT_MIN_H : UI_MIN_H;
    if (a->W < need_w || a->H < need_h)
        small_draw(a, need_w, need_h);
    else
        ui_draw(a);
    refresh();
}

/* the keys every screen but the playground leaves to the loop */
static enum ui_result global_key(struct app *a, const struct ui_key *k)
{
    switch (k->action) {
    case ACT_QUIT:
        return UI_QUIT;
    case ACT_HELP:
        ui_push(a, UI_HELP);
        break;
    case ACT_CONTENTS:
        ui_push(a, UI_TOC);
        break;
    case ACT_PLAYGROUND:
        ui_push(a, UI_PLAY);
        break;
    case ACT_LANG:
        if (!a->utf8) {
            app_msg(a, 1, "Chinese text needs a UTF-8 locale (e.g. LANG=C.UTF-8)");
            break;
        }
        a->lang = a->lang == LANG_ZH ? LANG_EN : LANG_ZH;
        snprintf(a->prog.lang, sizeof a->prog.lang, "%s", a->lang == LANG_ZH ? "zh" : "en");
        app_save_soon(a);
        break;
    case ACT_REPORT:
        app_export_report(a);
        break;
    case ACT_BACK:
        ui_pop(a);
        break;
    default:
        return UI_IGNORED;
    }
    return UI_HANDLED;
}

static void key(struct app *a, int ch)
{
    struct ui_key k = {.key = ui_key_name(ch)};
    k.action = keys_action(ui_keyset(a), k.key);
    if (!ui_overlay_on_top(a))
        a->msg[0] = 0;      /* a message lasts until the next key (not the one closing help) */
    enum ui_result r = ui_key(a, &k);
    if (r == UI_IGNORED)
        r = global_key(a, &k);
    if (r == UI_QUIT)
        a->quit = 1;
}

/* idle: the hub's answers, then a save that was waiting for a quiet moment */
static void idle(struct app *a)
{
    if (req_hub_poll(&a->hub))
        a->dirty = 1;
    if (a->save_due) {
        a->save_due = 0;
        app_save(a);
        if (a->msg[0])
            a->dirty = 1;
    }
}

static void loop(struct app *a)
{
    while (!a->quit && !ui_signal) {
        int ch = getch();
        double t0 = ui_now();
        a->dirty = 0;
        if (ch == ERR) {
            idle(a);
        } else if (ch == KEY_RESIZE) {
            getmaxyx(stdscr, a->H, a->W);
            a->dirty = 1;
        } else {
            key(a, ch);
            req_hub_poll(&a->hub);
            a->dirty = 1;
        }
        if (a->dirty && !a->quit && !ui_signal) {
            draw(a);
            if (a->timing && ch != ERR) {
                fprintf(a->timing, "redraw_ms %.3f key %d\n", (ui_now() - t0) * 1e3, ch);
                fflush(a->timing);
            }
        }
    }
}

static SCREEN *terminal_start(struct app *a)
{
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr)
        return NULL;
    set_term(scr);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    timeout(100);
    theme_init(a);
    getmaxyx(stdscr, a->H, a->W);
    return scr;
}

int ui_run(const struct ui_options *opt, struct gpu *gpu, const struct gpu_info *info)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "banklab: the tutorial needs a terminal on stdin and stdout "
                        "(for scripts: banklab sim, check, report)\n");
        return 2;
    }
    struct app *a = calloc(1, sizeof *a);
    if (!a) {
        fprintf(stderr, "banklab: out of memory\n");
        return 2;
    }
    a->opt = *opt;
    req_hub_init(&a->hub, gpu, info);
    if (ui_screens_init(a) != 0) {
        fprintf(stderr, "banklab: out of memory\n");
        ui_screens_done(a);
        free(a);
        return 2;
    }
    app_start_locale(a);
    app_start_progress(a);
    double t_load = app_start_lessons(a);

    SCREEN *scr = terminal_start(a);
    if (!scr) {
        fprintf(stderr, "banklab: cannot use this terminal (TERM=%s)\n",
                getenv("TERM") ? getenv("TERM") : "");
        ui_screens_done(a);
        lesson_set_done(&a->set);
        free(a);
        return 2;
    }
    ui_reset(a, a->have_lessons ? UI_TUTOR : UI_ERROR);
    draw(a);
    if (!gpu)
        req_hub_open(&a->hub, opt->device);   /* after the first frame: CUDA takes a while */
    if (a->timing) {
        fprintf(a->timing, "first_frame_ms %.3f\nlessons_ms %.3f\n",
                (ui_now() - opt->t_start) * 1e3, t_load * 1e3);
        fflush(a->timing);
    }
    loop(a);
    endwin();
    delscreen(scr);
    app_save(a);               /* first: closing the runner may wait for a measurement */
    req_hub_done(&a->hub);
    int sig = ui_signal;
    if (a->timing)
        fclose(a->timing);
    ui_screens_done(a);
    if (a->have_lessons || a->set.lessons)
        lesson_set_done(&a->set);
    free(a);
    return sig ? 128 + sig : 0;
}
