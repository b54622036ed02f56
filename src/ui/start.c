/* start.c: what the tutorial sets up before its first frame: the locale (UTF-8 or not, which
 * decides glyphs and whether Chinese can be shown), the timing log, saved progress and the
 * language, the lessons and the step to start at. Messages go to the message line; nothing
 * here touches the terminal. */
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../store/lesson_load.h"
#include "app.h"
#include "../sys/sys.h"

void app_start_locale(struct app *a)
{
    if (!setlocale(LC_ALL, "")) {
        /* a UTF-8 locale that is not installed (e.g. zh_CN.UTF-8): keep UTF-8 through C.UTF-8 */
        const char *v[] = {sys_env("LC_ALL"), sys_env("LC_CTYPE"), sys_env("LANG")};
        for (int i = 0; i < 3; i++)
            if (v[i] && *v[i]) {
                if (strstr(v[i], "UTF-8") || strstr(v[i], "utf8") || strstr(v[i], "UTF8"))
                    setlocale(LC_ALL, "C.UTF-8");
                break;
            }
    }
    const char *cs = nl_langinfo(CODESET);
    a->utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
    const char *tf = sys_env("BANKLAB_TIMING");
    if (tf && *tf) {  /* appended; a FIFO nobody reads is skipped, not waited for */
        int fd = open(tf, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
        if (fd >= 0 && !(a->timing = fdopen(fd, "a")))
            close(fd);
    }
}

void app_start_progress(struct app *a)
{
    struct bl_err warn = {0};
    int unread = 0;
    progress_init(&a->prog);
    /* Presenter mode starts clean: nothing read, nothing saved (unless --keep-progress). */
    int temporary = a->opt.present && !a->opt.keep_progress;
    if (!temporary && progress_default_path(a->prog_path, sizeof a->prog_path)) {
        a->have_prog_path = 1;
        if (a->opt.reset)
            progress_reset(&a->prog);  /* saving forgets what was saved before now */
        else
            unread = progress_load(a->prog_path, &a->prog, &warn) != 0;
    }
    /* language: --lang, then the saved choice, then the locale; English without UTF-8 */
    if (a->opt.lang == LANG_ZH || a->opt.lang == LANG_EN) {
        a->lang = (enum lesson_lang)a->opt.lang;
        progress_set_lang(&a->prog, lesson_lang_code(a->lang));   /* the next start too */
        app_save_soon(a);
    } else if (lesson_lang_parse(a->prog.lang, &a->lang) != 0)
        a->lang = lesson_lang_from_env();
    int english = !a->utf8 && a->lang == LANG_ZH;
    if (english)
        a->lang = LANG_EN;
    /* what could not be read, in the language just chosen */
    if (unread)
        app_msg(a, 1, "%s", warn.msg[0] ? ui_err(a, &warn, (char[BL_ERR_TEXT]){0}, BL_ERR_TEXT)
                                        : "progress could not be read; starting fresh");
    else if (english)
        app_msg(a, 1, "the locale is not UTF-8: showing English with ASCII glyphs");
    else if (a->utf8 && a->opt.lang != LANG_ZH && a->opt.lang != LANG_EN &&
             lesson_lang_parse(a->prog.lang, &(enum lesson_lang){0}) != 0)
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_LANG_HINT));   /* no choice yet: how to make one */
}

static void load_report(const struct lesson_error *e, void *ctx)
{
    struct app *a = ctx;
    size_t o = strlen(a->load_errors);
    if (strcmp(e->file, a->load_last_file)) {   /* problems come file by file */
        a->nload_files++;
        snprintf(a->load_last_file, sizeof a->load_last_file, "%s", e->file);
    }
    if (o + 8 >= sizeof a->load_errors || a->nload_errors >= UI_LOAD_ERRORS_SHOWN) {
        a->nload_errors++;
        return;
    }
    a->nload_errors++;
    a->nload_shown++;
    char line[512];
    snprintf(a->load_errors + o, sizeof a->load_errors - o, "%s%s", o ? "\n" : "",
             lesson_error_text(e, ui_lang(a), line, sizeof line));
}

/* the step to start at: --chapter/--step, else where the learner left off */
static void find_start(struct app *a)
{
    a->li = a->si = 0;
    if (!a->have_lessons)
        return;
    if (a->opt.chapter > 0) {
        for (int i = 0; i < a->set.nlessons; i++)
            if (a->set.lessons[i].chapter == a->opt.chapter) {
                a->li = i;
                int s = a->opt.step > 0 ? a->opt.step - 1 : 0, n = a->set.lessons[i].nsteps;
                a->si = s < n ? s : n - 1;
                if (s >= n)
                    app_msg(a, 1, ui_str(a, n == 1 ? UIS_MSG_CHAPTER_STEP : UIS_MSG_CHAPTER_STEPS),
                            a->opt.chapter, n, n);
                return;
            }
        app_msg(a, 1, ui_str(a, UIS_MSG_NO_CHAPTER), a->opt.chapter);
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

double app_start_lessons(struct app *a)
{
    double t = bl_now_ms();
    const char *dir = a->opt.lessons_dir;
    if (lesson_find_dir(dir, a->lessons_dir, sizeof a->lessons_dir)) {
        /* checked: a lesson `banklab check` refuses is listed (start pushes the error screen
         * over the first step), never shown */
        if (lesson_set_load(&a->set, a->lessons_dir, 1, load_report, a) == 0 &&
            a->set.nlessons > 0)
            a->have_lessons = 1;
    } else {
        a->lessons_dir[0] = 0;
        if (dir)
            snprintf(a->load_errors, sizeof a->load_errors, "%s: no such directory or file", dir);
    }
    t = bl_now_ms() - t;
    find_start(a);
    return t;
}
