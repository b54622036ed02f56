/* app.c: the tutorial's one input loop and everything around it: locale and glyph choice,
 * lessons and progress loading, curses setup, signals (the handler only sets a flag), resize,
 * GPU polling (never blocking), the screen dispatch (init/draw/key), saving, exports, and the
 * BANKLAB_TIMING measurements. The only mutable global is the signal flag. */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lesson/report.h"
#include "../render/svg.h"
#include "app.h"

static volatile sig_atomic_t ui_signal;

/* gpu_open on a thread: the first frame and the keys do not wait for CUDA's start-up */
struct opener {
    pthread_t thread;
    int device;
    struct gpu *gpu;
    struct gpu_info info;
    atomic_int done;
};

static void *opener_main(void *arg)
{
    struct opener *o = arg;
    o->gpu = gpu_open(o->device, &o->info);
    atomic_store(&o->done, 1);
    return NULL;
}

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

void app_title(struct app *a, const char *left, const char *right)
{
    attr_t at = theme_attr(a, UIC_TITLE);
    text_fill(0, 0, a->W, at);
    int rw = text_width(right);
    text_puts(a, 0, 0, a->W - rw - 1, left, at);
    if (rw < a->W)
        text_puts(a, 0, a->W - rw, rw, right, at);
}

void app_keybar(struct app *a, const char *keys)
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
    tutor_enter_step(a);
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
    struct report_meta meta = {
        .device = a->info.available ? a->info.device : NULL,
        .backend = gpu_backend_name(a->info.backend),
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

/* --- start ------------------------------------------------------------------------------ */

static void load_report(const struct lesson_error *e, void *ctx)
{
    struct app *a = ctx;
    size_t o = strlen(a->load_errors);
    a->nload_errors++;
    if (a->nload_errors > 4 || o + 8 >= sizeof a->load_errors)
        return;
    snprintf(a->load_errors + o, sizeof a->load_errors - o, "%s%s:%d:%d: %s", o ? "\n" : "",
             e->file, e->line, e->col, e->msg);
}

static int locale_is_zh(void)
{
    const char *v[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *s = getenv(v[i]);
        if (s && *s)
            return !strncmp(s, "zh", 2);
    }
    return 0;
}

static void find_start(struct app *a)
{
    a->li = a->si = 0;
    if (!a->have_lessons)
        return;
    if (a->opt.chapter > 0) {
        for (int i = 0; i < a->set.nlessons; i++)
            if (a->set.lessons[i].chapter == a->opt.chapter) {
                a->li = i;
                int s = a->opt.step > 0 ? a->opt.step - 1 : 0;
                a->si = s < a->set.lessons[i].nsteps ? s : a->set.lessons[i].nsteps - 1;
                return;
            }
        app_msg(a, 1, "no chapter %d: starting at the beginning", a->opt.chapter);
        return;
    }
    if (!a->prog.lesson_id[0])
        return;
    for (int i = 0; i < a->set.nlessons; i++) {
        const struct lesson *l = &a->set.lessons[i];
        if (strcmp(l->id, a->prog.lesson_id))
            continue;
        a->li = i;
        for (int s = 0; s < l->nsteps; s++)
            if (!strcmp(l->steps[s].id, a->prog.step_id))
                a->si = s;
        return;
    }
}

static void draw(struct app *a)
{
    erase();
    int need_w = a->opt.present ? UI_PRESENT_MIN_W : UI_MIN_W;
    int need_h = a->opt.present ? UI_PRESENT_MIN_H : UI_MIN_H;
    if (a->W < need_w || a->H < need_h) {
        small_draw(a, need_w, need_h);
    } else {
        switch (a->screen) {
        case SCR_TUTOR: tutor_draw(a); break;
        case SCR_TOC: toc_draw(a); break;
        case SCR_PLAY: play_draw(a); break;
        case SCR_SWEEP: sweep_draw(a); break;
        case SCR_ERROR: error_draw(a); break;
        }
        if (a->help)
            help_draw(a);
    }
    refresh();
}

static void key(struct app *a, int ch)
{
    if (a->help) {          /* any key closes the overlay */
        a->help = 0;
        return;
    }
    a->msg[0] = 0;
    int handled = 0;
    switch (a->screen) {
    case SCR_TUTOR: handled = tutor_key(a, ch); break;
    case SCR_TOC: handled = toc_key(a, ch); break;
    case SCR_PLAY: handled = play_key(a, ch); break;
    case SCR_SWEEP: handled = sweep_key(a, ch); break;
    case SCR_ERROR: break;
    }
    if (handled)
        return;
    switch (ch) {
    case 'q':
        a->quit = 1;
        break;
    case '?':
        a->help = 1;
        break;
    case 'c':
        toc_open(a);
        break;
    case 'g':
        play_open(a);
        break;
    case 'l':
        if (!a->utf8) {
            app_msg(a, 1, "Chinese text needs a UTF-8 locale (e.g. LANG=C.UTF-8)");
            break;
        }
        a->lang = a->lang == LANG_ZH ? LANG_EN : LANG_ZH;
        snprintf(a->prog.lang, sizeof a->prog.lang, "%s", a->lang == LANG_ZH ? "zh" : "en");
        app_save_soon(a);
        break;
    case 'r':
        app_export_report(a);
        break;
    case 27:
        if (a->screen != SCR_TUTOR && a->screen != SCR_ERROR)
            a->screen = a->have_lessons ? SCR_TUTOR : SCR_ERROR;
        break;
    default:
        break;
    }
}

static void poll_gpu(struct app *a)
{
    struct gpu_result r;
    if (!a->gpu)
        return;
    while (gpu_poll(a->gpu, &r)) {
        if (a->inflight > 0)
            a->inflight--;
        struct ui_scene *s = a->screen == SCR_PLAY ? &a->play.sc : &a->sc;
        if (r.id && r.id == s->req_id) {
            a->last = r;
            a->has_last = 1;
            a->pending = 0;
            a->dirty = 1;
            if (r.status == GPU_OK && s->ok) {
                struct progress_explored e;
                memset(&e, 0, sizeof e);
                snprintf(e.code, sizeof e.code, "%s", s->shown);
                const struct lesson_step *st = app_step(a);
                if (s == &a->sc && st)
                    snprintf(e.where, sizeof e.where, "%s/%s", a->set.lessons[a->li].id, st->id);
                else
                    snprintf(e.where, sizeof e.where, "playground");
                e.wavefronts = s->res.wavefronts;
                e.conflicts = s->res.conflicts;
                e.ways = s->res.ways;
                e.has_measured = r.has_counters || r.has_timing;
                int st_op = s->acc.op == BANK_STORE;
                e.measured_wavefronts = st_op ? r.wavefronts_st : r.wavefronts_ld;
                e.measured_conflicts = st_op ? r.conflicts_st : r.conflicts_ld;
                e.ms = r.has_timing ? r.ms_median : 0;
                snprintf(e.device, sizeof e.device, "%s", a->info.device);
                e.when = (long long)time(NULL);
                progress_record_explored(&a->prog, &e);
            }
        } else {
            sweep_result(a, &r);
        }
    }
    if (a->submit_due && a->inflight == 0) {
        struct ui_scene *s = a->submit_due;
        a->submit_due = NULL;
        if (s->ok)
            scene_submit(a, s);
    }
    if (a->screen == SCR_SWEEP)
        sweep_pump(a);
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
    a->gpu = gpu;
    if (gpu && info)
        a->info = *info;
    else if (!gpu)
        snprintf(a->info.reason, sizeof a->info.reason, "looking for a GPU%s", "...");

    if (!setlocale(LC_ALL, "")) {
        /* a UTF-8 locale that is not installed (e.g. zh_CN.UTF-8): keep UTF-8 through C.UTF-8 */
        const char *v[] = {getenv("LC_ALL"), getenv("LC_CTYPE"), getenv("LANG")};
        for (int i = 0; i < 3; i++)
            if (v[i] && *v[i]) {
                if (strstr(v[i], "UTF-8") || strstr(v[i], "utf8") || strstr(v[i], "UTF8"))
                    setlocale(LC_ALL, "C.UTF-8");
                break;
            }
    }
    const char *cs = nl_langinfo(CODESET);
    a->utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));

    const char *tf = getenv("BANKLAB_TIMING");
    if (tf && *tf)
        a->timing = fopen(tf, "a");

    /* progress */
    char warn[UI_MSG_MAX] = "";
    progress_init(&a->prog);
    if (progress_default_path(a->prog_path, sizeof a->prog_path)) {
        a->have_prog_path = 1;
        if (!opt->reset && progress_load(a->prog_path, &a->prog, warn, sizeof warn) != 0)
            app_msg(a, 1, "%s", warn[0] ? warn : "progress could not be read; starting fresh");
    }

    /* language: --lang, then the saved choice, then the locale; English without UTF-8 */
    if (opt->lang == LANG_ZH || opt->lang == LANG_EN)
        a->lang = (enum lesson_lang)opt->lang;
    else if (!strcmp(a->prog.lang, "zh"))
        a->lang = LANG_ZH;
    else if (!strcmp(a->prog.lang, "en"))
        a->lang = LANG_EN;
    else
        a->lang = locale_is_zh() ? LANG_ZH : LANG_EN;
    if (!a->utf8 && a->lang == LANG_ZH) {
        a->lang = LANG_EN;
        if (!a->msg[0])
            app_msg(a, 1, "the locale is not UTF-8: showing English with ASCII glyphs");
    }

    /* lessons */
    double t_load = ui_now();
    if (lesson_find_dir(opt->lessons_dir, a->lessons_dir, sizeof a->lessons_dir)) {
        if (lesson_set_load_dir(&a->set, a->lessons_dir, load_report, a) == 0 &&
            a->set.nlessons > 0)
            a->have_lessons = 1;
    } else {
        a->lessons_dir[0] = 0;
        if (opt->lessons_dir)
            snprintf(a->load_errors, sizeof a->load_errors, "%s: no such directory",
                     opt->lessons_dir);
    }
    if (a->have_lessons && a->nload_errors && !a->msg[0])
        app_msg(a, 1, "%d problem%s in the lessons (skipped): %.200s", a->nload_errors,
                a->nload_errors > 1 ? "s" : "", a->load_errors);
    t_load = ui_now() - t_load;
    find_start(a);
    a->screen = a->have_lessons ? SCR_TUTOR : SCR_ERROR;

    /* terminal */
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        fprintf(stderr, "banklab: cannot use this terminal (TERM=%s)\n",
                getenv("TERM") ? getenv("TERM") : "");
        lesson_set_done(&a->set);
        free(a);
        return 2;
    }
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
    if (a->have_lessons)
        tutor_enter_step(a);

    draw(a);
    struct opener op;
    memset(&op, 0, sizeof op);
    if (!a->gpu) {
        op.device = opt->device;
        atomic_init(&op.done, 0);
        if (pthread_create(&op.thread, NULL, opener_main, &op) == 0)
            a->opening = 1;
        else
            snprintf(a->info.reason, sizeof a->info.reason, "could not start the GPU thread");
    }
    if (a->timing) {
        fprintf(a->timing, "first_frame_ms %.3f\nlessons_ms %.3f\n",
                (ui_now() - opt->t_start) * 1e3, t_load * 1e3);
        fflush(a->timing);
    }
    while (!a->quit && !ui_signal) {
        int ch = getch();
        double t0 = ui_now();
        a->dirty = 0;
        if (a->opening && atomic_load(&op.done)) {
            pthread_join(op.thread, NULL);
            a->opening = 0;
            a->gpu = op.gpu;
            a->own_gpu = 1;
            a->info = op.info;
            a->dirty = 1;
            struct ui_scene *s = a->screen == SCR_PLAY ? &a->play.sc : &a->sc;
            const struct lesson_step *st = app_step(a);
            int hid = st && st->quiz && st->quiz->predict && !a->quiz.answered && !a->quiz.revealed;
            if (s->ok && !(s == &a->sc && hid))
                scene_submit(a, s);
        }
        if (ch == ERR) {
            poll_gpu(a);
            if (a->save_due) {      /* idle: nothing typed for a tick */
                a->save_due = 0;
                app_save(a);
                if (a->msg[0])
                    a->dirty = 1;
            }
        } else if (ch == KEY_RESIZE) {
            getmaxyx(stdscr, a->H, a->W);
            a->dirty = 1;
        } else {
            key(a, ch);
            poll_gpu(a);
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
    endwin();
    delscreen(scr);
    app_save(a);               /* first: closing the runner may wait for a measurement */
    if (a->opening) {          /* quit while CUDA was starting: wait for it, then close */
        pthread_join(op.thread, NULL);
        a->gpu = op.gpu;
        a->own_gpu = 1;
    }
    if (a->own_gpu)
        gpu_close(a->gpu);
    int sig = ui_signal;
    if (a->timing)
        fclose(a->timing);
    scene_clear(&a->sc);
    play_close(a);
    if (a->have_lessons || a->set.lessons)
        lesson_set_done(&a->set);
    free(a);
    return sig ? 128 + sig : 0;
}
