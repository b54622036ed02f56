/* session.c: the learner's place and what leaves the program: the current step, going to
 * another (the screen stack back to the tutor), saving progress, exports (SVG, reports). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/files.h"
#include "../store/report.h"
#include "../render/svg.h"
#include "app.h"
#include "../sys/sys.h"

const struct lesson_step *app_step(const struct app *a)
{
    if (!a->have_lessons || a->li < 0 || a->li >= a->set.nlessons)
        return NULL;
    const struct lesson *l = &a->set.lessons[a->li];
    if (a->si < 0 || a->si >= l->nsteps)
        return NULL;
    return &l->steps[a->si];
}

const struct progress_quiz *app_record(const struct app *a, const struct lesson *l,
                                       const struct lesson_step *st, int task)
{
    char lid[PROGRESS_ID_MAX];
    snprintf(lid, sizeof lid, "%s%s", task ? REPORT_TASK_PREFIX : "", l->id);
    for (int i = 0; i < a->prog.nquiz; i++)
        if (!strcmp(a->prog.quiz[i].lesson_id, lid) && !strcmp(a->prog.quiz[i].step_id, st->id))
            return &a->prog.quiz[i];
    return NULL;
}

int app_step_state(const struct app *a, int li, int si)
{
    const struct lesson *l = &a->set.lessons[li];
    const struct lesson_step *st = &l->steps[si];
    if (!st->quiz && !st->task)
        return -1;
    const struct progress_quiz *q = app_record(a, l, st, 0);
    if (st->task && !(q && q->correct))     /* a task met in `banklab lab` counts too */
        q = app_record(a, l, st, 1);
    if (!q || !q->correct)
        return 0;
    return q->first_correct ? 2 : 1;
}

void app_chapter_score(const struct app *a, int li, int *done, int *first, int *total)
{
    *done = *first = *total = 0;
    for (int si = 0; a->have_lessons && si < a->set.lessons[li].nsteps; si++) {
        int s = app_step_state(a, li, si);
        *total += s >= 0;
        *done += s > 0;
        *first += s == 2;
    }
}

void app_progress(const struct app *a, int *done, int *first, int *total)
{
    *done = *first = *total = 0;
    for (int li = 0; a->have_lessons && li < a->set.nlessons; li++) {
        int d, f, t;
        app_chapter_score(a, li, &d, &f, &t);
        *done += d;
        *first += f;
        *total += t;
    }
}

/* where r and x write: BANKLAB_EXPORT_DIR, else the learner's own state directory,
 * $XDG_STATE_HOME/banklab/exports (~/.local/state/banklab/exports), made when missing; never
 * the current directory (a clone of banklab, or someone else's). The messages name the path. */
static const char *app_export_dir(void)
{
    static char dir[UI_PATH_MAX];
    const char *d = sys_env("BANKLAB_EXPORT_DIR");
    if (d && *d)
        return d;
    if (!files_xdg_path("XDG_STATE_HOME", ".local/state", "banklab/exports", dir, sizeof dir))
        return "/nonexistent/banklab-exports";   /* no HOME: the write fails and says so */
    struct bl_err err = {0};
    files_mkdirs(dir, 0700, &err);                /* a failure shows when the file is written */
    return dir;
}

int app_save(struct app *a, struct bl_err *err)
{
    if (!a->have_prog_path)
        return 1;
    const struct lesson_step *st = app_step(a);
    if (st)
        progress_set_position(&a->prog, a->set.lessons[a->li].id, st->id);
    char text[UI_MSG_MAX];
    struct bl_err e = {0};
    if (progress_save(a->prog_path, &a->prog, &e) == 0)
        return 0;
    app_msg(a, 1, ui_str(a, UIS_MSG_NOT_SAVED), ui_err(a, &e, text, sizeof text));
    if (err)
        *err = e;
    return -1;
}

void app_say_saved(struct app *a, int saved)
{
    const struct lesson_step *st = app_step(a);
    if (saved == 0 && st)
        printf(ui_str(a, UIS_QUIT_SAVED), a->prog_path, a->set.lessons[a->li].chapter, a->si + 1);
    else if (saved == 0)
        printf(ui_str(a, UIS_QUIT_SAVED_BARE), a->prog_path);
    else if (saved > 0 && a->opt.present)
        printf("%s", ui_str(a, UIS_QUIT_PRESENT));
    fflush(stdout);
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
            app_msg(a, 0, "%s", ui_str(a, UIS_MSG_LAST_STEP));
            return;
        }
        int done, first, total;
        app_chapter_score(a, li, &done, &first, &total);
        if (total)
            app_msg(a, 0, ui_str(a, UIS_MSG_CH_DONE), a->set.lessons[li].chapter, first, total);
        else
            app_msg(a, 0, ui_str(a, UIS_MSG_CH_DONE_BARE), a->set.lessons[li].chapter);
        li++;
        si = 0;
    } else if (si < 0) {
        if (li == 0) {
            app_msg(a, 0, "%s", ui_str(a, UIS_MSG_FIRST_STEP));
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
    if (s->held) {
        app_msg(a, 0, "%s", ui_str(a, UIS_MSG_HELD_SVG));
        return;
    }
    snprintf(path, sizeof path, "%s/%s", app_export_dir(), name);
    params_line(a, s, 0, sub, sizeof sub);
    struct svg_options o = {.title = s->shown, .subtitle = sub, .monochrome = 0, .lang = ui_lang(a)};
    struct svg_job job = {&s->res, s->acc.width, s->acc.op, &o};
    struct bl_err err = {0};
    if (files_write_atomic(path, 0644, svg_emit, &job, &err) != 0)
        app_msg(a, 1, ui_str(a, UIS_MSG_NOT_WRITTEN), path,
                ui_err(a, &err, (char[BL_ERR_TEXT]){0}, BL_ERR_TEXT));
    else
        app_msg(a, 0, ui_str(a, UIS_MSG_GRID_WRITTEN), path);
}

void app_export_report(struct app *a)
{
    char written[UI_PATH_MAX * 2];
    struct bl_err err = {0};
    const struct gpu_info *info = req_hub_info(&a->hub);
    struct report_meta meta = {
        .device = info->available ? info->device : NULL,
        .backend = gpu_backend_name(info->backend),
        .learner = sys_env("USER"),
        .now = 0,
    };
    if (report_write_dir(app_export_dir(), REPORT_BOTH, &a->prog, a->have_lessons ? &a->set : NULL,
                         a->lang, &meta, written, sizeof written, &err) != 0) {
        app_msg(a, 1, ui_str(a, UIS_MSG_REPORT_FAILED),
                ui_err(a, &err, (char[BL_ERR_TEXT]){0}, BL_ERR_TEXT));
        return;
    }
    for (char *p = written; *p; p++)
        if (*p == '\n')
            *p = ' ';
    app_msg(a, 0, ui_str(a, UIS_MSG_REPORT_WRITTEN), written);
}
