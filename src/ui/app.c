/* app.c: ui_run and the tutorial's one input loop: curses setup, signals (the handler only
 * sets a flag), resize, GPU polling through the hub (never blocking), one key at a time to the
 * screen on top with the global keys as the fall-back, one redraw per event, and the
 * BANKLAB_TIMING measurements; the table of screens. The only mutable global is the signal
 * flag. Nothing in src/ui calls into this file: the screens share frame.c and session.c. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

#include "../base/utf8.h"
#include "../store/recording.h"
#include "app.h"
#include "../sys/sys.h"

static volatile sig_atomic_t ui_signal, ui_leaving;

/* The screens, by id (screen.h). The stack (screen.c) gets this table and names no screen, so
 * the screens can push and pop without calling each other in a circle. */
static const struct ui_screen *const screens[UI_SCREENS] = {
    [UI_TUTOR] = &screen_tutor,
    [UI_ERROR] = &screen_error,
    [UI_TOC] = &screen_toc,
    [UI_SWEEP] = &screen_sweep,
    [UI_PLAY] = &screen_play,
    [UI_HELP] = &screen_help,
    [UI_KERNEL] = &screen_kernel,
    [UI_KGRID] = &screen_kgrid,
};

/* The first signal only sets the flag: the loop (awake every 100 ms, never blocked on the GPU
 * server: requests.c and serve/client.c bound every wait) ends, the terminal is restored and
 * progress saved. One that comes while that is under way ends the program as its default
 * would: a second ^C is never ignored. */
static void on_signal(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    /* a SIGPIPE the kernel raised for this process's own write to a connection that closed
     * (a server that dropped it): that write fails with EPIPE and its caller says so; only
     * one sent by someone else (kill -PIPE) ends the tutorial */
    if (sig == SIGPIPE && info && info->si_pid == getpid())
        return;
    if (ui_leaving && ui_signal) {
        sys_sig_set(sig, SIG_DFL, 0, NULL);
        raise(sig);
        return;
    }
    ui_signal = sig;
}

/* 1 when the terminal is smaller than the screens need: the "too small" screen shows */
static int too_small(const struct app *a, int *need_w, int *need_h)
{
    *need_w = a->opt.present ? UI_PRESENT_MIN_W : UI_MIN_W;
    *need_h = a->opt.present ? UI_PRESENT_MIN_H : UI_MIN_H;
    return a->W < *need_w || a->H < *need_h;
}

static void draw(const struct app *a)
{
    int need_w, need_h;
    erase();
    if (too_small(a, &need_w, &need_h))
        small_draw(a, need_w, need_h);
    else
        ui_draw(a);
    refresh();
}

/* the keys every screen but the playground leaves to the loop: those that open a screen, and
 * the others */
static const struct {
    enum key_action action;
    enum ui_screen_id screen;
} opens[] = {
    {ACT_HELP, UI_HELP}, {ACT_CONTENTS, UI_TOC}, {ACT_PLAYGROUND, UI_PLAY},
    {ACT_KERNEL, UI_KERNEL},
};

static enum ui_result global_key(struct app *a, const struct ui_key *k)
{
    for (size_t i = 0; i < sizeof opens / sizeof opens[0]; i++)
        if (opens[i].action == k->action) {
            ui_push(a, opens[i].screen);
            return UI_HANDLED;
        }
    switch (k->action) {
    case ACT_QUIT:
        return UI_QUIT;
    case ACT_LANG:
        if (!a->utf8) {
            app_msg(a, 1, "%s", ui_str(a, UIS_MSG_NEED_UTF8));
            break;
        }
        a->lang = a->lang == LANG_ZH ? LANG_EN : LANG_ZH;
        progress_set_lang(&a->prog, lesson_lang_code(a->lang));
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

/* A key while the terminal is too small: nothing unseen happens (no screen opens, no text is
 * typed into one): q quits, as the screen says, and help opens; the rest waits for a resize. */
static void key_small(struct app *a, int ch)
{
    struct ui_key k = {.key = ui_key_name(ch)};
    k.action = keys_action(KS_GLOBAL, k.key);
    if (k.action == ACT_QUIT)
        a->quit = 1;
    else if (k.action == ACT_HELP)
        ui_push(a, UI_HELP);
}

static void key(struct app *a, int ch)
{
    int need_w, need_h;
    if (too_small(a, &need_w, &need_h)) {
        key_small(a, ch);
        return;
    }
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

/* idle: the hub's answers, the screens' own work (a kernel measured), then a save that was
 * waiting for a quiet moment */
static void idle(struct app *a)
{
    if (req_hub_poll(&a->hub))
        a->dirty = 1;
    const struct gpu_info *info = req_hub_info(&a->hub);
    /* (not over another message, such as the first screen's word on the language, a locale
     * without UTF-8 or progress that could not be read: that one stays until a key; not over
     * the kernel view, which shows the model's figures, not the recording's) */
    enum ui_screen_id top = a->stack.depth > 0 ? a->stack.id[a->stack.depth - 1] : UI_ERROR;
    if (!a->said_recorded && bl_err_failed(&a->hub.nogpu) && info->backend == GPU_BACKEND_REPLAY &&
        !a->msg[0] && top != UI_KERNEL && top != UI_KGRID) {
        char why[GPU_TEXT_MAX];            /* once: the figures are recorded, and why */
        app_msg(a, 0, ui_str(a, UIS_MSG_RECORDED), ui_err(a, &a->hub.nogpu, why, sizeof why));
        a->said_recorded = 1;
        a->dirty = 1;
    }
    if (ui_idle(a))
        a->dirty = 1;
    if (a->save_due) {
        a->save_due = 0;
        app_save(a, NULL);
        if (a->msg[0])
            a->dirty = 1;
    }
}

static void loop(struct app *a)
{
    while (!a->quit && !ui_signal) {
        int ch = getch();
        double t0 = bl_now_ms();
        a->dirty = 0;
        if (ch == ERR) {
            idle(a);
        } else if (ch == KEY_RESIZE) {
            getmaxyx(stdscr, a->H, a->W);
            a->dirty = 1;
        } else {
            key(a, ch);
            req_hub_poll(&a->hub);
            ui_idle(a);
            a->dirty = 1;
        }
        if (a->dirty && !a->quit && !ui_signal) {
            draw(a);
            if (a->timing && ch != ERR) {
                fprintf(a->timing, "redraw_ms %.3f key %d\n", bl_now_ms() - t0, ch);
                fflush(a->timing);
            }
        }
    }
}

/* Every signal whose default ends the program and that does not mean a fault in it: caught,
 * the loop ends, the terminal is restored and progress saved (exit status 128 + signal). */
static const int ending_signals[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
    SIGVTALRM, SIGPROF, SIGIO,
#ifdef SIGPWR
    SIGPWR,
#endif
};

static void catch_signals(void)
{
    for (size_t i = 0; i < sizeof ending_signals / sizeof ending_signals[0]; i++)
        sys_sig_action(ending_signals[i], on_signal, 0, NULL);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
        sys_sig_action(sig, on_signal, 0, NULL);
}

/* 1 when terminfo knows TERM and it can place the cursor and clear the screen; else 0 with
 * why filled. Asked before curses starts, so a refused terminal sees no output at all. */
static int terminal_usable(struct bl_err *why)
{
    const char *term = sys_env("TERM");
    int err = 0;
    term = term && *term ? term : "(unset)";
    if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
        bl_fail(why, -1, BL_NOWHERE, UI_TERM_UNKNOWN, term);
        return 0;
    }
    const char *cup = tigetstr("cup"), *clear = tigetstr("clear");
    int ok = cup && cup != (char *)-1 && clear && clear != (char *)-1;
    del_curterm(cur_term);
    if (!ok)
        bl_fail(why, -1, BL_NOWHERE, UI_TERM_NO_CURSOR, term);
    return ok;
}

static SCREEN *terminal_start(struct app *a)
{
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr)
        return NULL;
    set_term(scr);
    catch_signals();
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
    if (!opt->model_only)     /* no GPU: the shipped recording's figures, said so once */
        req_hub_fallback(&a->hub, recording_open_shipped);
    if (ui_screens_init(a, screens) != 0) {
        fprintf(stderr, "banklab: out of memory\n");
        ui_screens_done(a);
        free(a);
        return 2;
    }
    app_start_locale(a);
    app_start_progress(a);
    double t_load = app_start_lessons(a);

    struct bl_err why = {0};
    SCREEN *scr = terminal_usable(&why) ? terminal_start(a) : NULL;
    if (!scr) {
        char clean[BL_ERR_TEXT * 4];
        fprintf(stderr, "banklab: the tutorial cannot use this terminal: %s; use a terminal such "
                        "as TERM=xterm-256color, or banklab sim for the grid as text\n",
                bl_err_failed(&why) ? bl_clean(clean, sizeof clean, why.msg)
                                    : "curses could not start");
        ui_screens_done(a);
        lesson_set_done(&a->set);
        free(a);
        return 2;
    }
    ui_reset(a, a->have_lessons ? UI_TUTOR : UI_ERROR);
    if (a->have_lessons && a->nload_files)
        ui_push(a, UI_ERROR);     /* what was refused, before the first step (Esc goes on) */
    if (opt->kernel_file)
        ui_push(a, UI_KERNEL);        /* banklab FILE.cu: the kernel view over the tutorial */
    draw(a);
    if (!gpu)
        req_hub_open(&a->hub, opt->device, opt->server, opt->no_server);   /* after the first frame: CUDA takes a while */
    if (a->timing) {
        fprintf(a->timing, "first_frame_ms %.3f\nlessons_ms %.3f\n",
                bl_now_ms() - opt->t_start, t_load);
        fflush(a->timing);
    }
    loop(a);
    ui_leaving = 1;
    endwin();
    delscreen(scr);
    struct bl_err save_err = {0};   /* a save that fails at the end is not exit 0 */
    int saved = app_save(a, &save_err); /* first: closing the runner may wait */
    app_say_saved(a, saved);
    req_hub_done(&a->hub);
    int sig = ui_signal;
    if (a->timing)
        fclose(a->timing);
    ui_screens_done(a);
    if (a->have_lessons || a->set.lessons)
        lesson_set_done(&a->set);
    if (saved < 0) {
        fputs("banklab: ", stderr);
        char text[UI_MSG_MAX], clean[UI_MSG_MAX * 4];
        const char *said = ui_err(a, &save_err, text, sizeof text);
        fprintf(stderr, ui_str(a, UIS_MSG_NOT_SAVED), bl_clean(clean, sizeof clean, said));
        fputc('\n', stderr);
    }
    free(a);
    return sig ? 128 + sig : saved < 0 ? 2 : 0;
}
