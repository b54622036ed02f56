/* report.c: the lab report (report.h): Markdown for the learner and the teacher, JSON (via
 * json_write.h) for graders' scripts. Reads progress and the lesson set; writes only into the one
 * directory it is given, through temp files that are renamed into place.
 * No curses, no CUDA; never prints, never exits. */
#include "report.h"
#include "files.h"
#include "json_write.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/msg.h"
#include "../base/utf8.h"

#define REPORT_TEXT_MAX 4096   /* longest text one field of a report holds */

#ifndef BANKLAB_VERSION
#define BANKLAB_VERSION "dev"
#endif

static long long now_of(const struct report_meta *meta)
{
    return meta && meta->now > 0 ? meta->now : (long long)time(NULL);
}

static const char *device_of(const struct report_meta *meta)
{
    return meta && meta->device && meta->device[0] ? meta->device : "no GPU (model only)";
}

/* The Markdown's words in the report's language (src/base/msg.def, RPT_*). */
#define L(id) bl_msg_format(id, lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN)

/* The lesson and step a quiz result belongs to, or NULLs. */
static void find_step(const struct lesson_set *set, const char *lesson_id, const char *step_id,
                      const struct lesson **lo, const struct lesson_step **st)
{
    *lo = NULL;
    *st = NULL;
    if (!strncmp(lesson_id, REPORT_TASK_PREFIX, strlen(REPORT_TASK_PREFIX)))
        lesson_id += strlen(REPORT_TASK_PREFIX);
    for (int i = 0; set && i < set->nlessons; i++) {
        const struct lesson *l = &set->lessons[i];
        if (!l->id || strcmp(l->id, lesson_id))
            continue;
        *lo = l;
        for (int j = 0; j < l->nsteps; j++)
            if (l->steps[j].id && !strcmp(l->steps[j].id, step_id))
                *st = &l->steps[j];
        return;
    }
}

/* 1 when a progress entry is a graded task's result rather than a quiz answer. */
static int is_task(const struct progress_quiz *q, const struct lesson_step *st)
{
    if (!strncmp(q->lesson_id, REPORT_TASK_PREFIX, strlen(REPORT_TASK_PREFIX)))
        return 1;
    return st && st->task && !st->quiz;
}

/* The choice a quiz answer names ("2" for the second choice), as its text in lang; NULL
 * when the answer is not a choice of a quiz in the lesson set. */
static const char *choice_given(const struct lesson_step *st, const struct progress_quiz *q,
                                enum lesson_lang lang)
{
    if (!st || !st->quiz || st->quiz->kind != QUIZ_CHOICE)
        return NULL;
    char *end;
    long k = strtol(q->given, &end, 10);
    if (end == q->given || *end || k < 1 || k > st->quiz->nchoices)
        return NULL;
    return lesson_tr(&st->quiz->choices[k - 1], lang);
}

struct totals {
    int steps, asking, steps_done;         /* steps in the lesson set, those with a quiz or a
                                            * task, those done (the tutorial's count) */
    int answered, first_right, right_now;  /* from progress */
    int known;                             /* answers for quiz steps in the lesson set */
    int tried, solved_first, solved;       /* graded task entries in progress */
    int score;                             /* points of the solved tasks in the lesson set */
    int quizzes;                           /* quiz steps in the lesson set */
    int tasks, task_points;                /* graded steps in the lesson set */
};

/* The score and its maximum: the points of the tasks solved (in the tutorial or with banklab
 * lab, as progress keeps them) among the lessons' tasks; without lessons that know the tasks,
 * what the last banklab lab run saved. */
static void score_of(const struct progress *p, const struct totals *t, int *score, int *max)
{
    *score = t->tasks ? t->score : p->task_score;
    *max = t->tasks ? t->task_points : p->task_max;
}

/* The progress entry of a step: its quiz answer or task met in the tutorial (lab 0) or a
 * task's result in `banklab lab` (lab 1); NULL when none. */
static const struct progress_quiz *record_of(const struct progress *p, const char *lesson_id,
                                            const char *step_id, int lab)
{
    size_t n = strlen(REPORT_TASK_PREFIX);
    for (int i = 0; i < p->nquiz && i < PROGRESS_MAX_QUIZ; i++) {
        const char *lid = p->quiz[i].lesson_id;
        if (lab && strncmp(lid, REPORT_TASK_PREFIX, n))
            continue;
        if (!strcmp(lab ? lid + n : lid, lesson_id) && !strcmp(p->quiz[i].step_id, step_id))
            return &p->quiz[i];
    }
    return NULL;
}

/* A step done as the tutorial counts it (its contents, src/ui/session.c): its quiz answered
 * right, or its task met in the tutorial or in `banklab lab`. */
static int step_done(const struct progress *p, const struct lesson *l, const struct lesson_step *s)
{
    const struct progress_quiz *q = record_of(p, l->id, s->id, 0);
    if (s->task && !(q && q->correct))
        q = record_of(p, l->id, s->id, 1);
    return q && q->correct;
}

/* The points of lesson l's tasks (*max) and of those solved (*score): one lab's score, as
 * `banklab lab` and the tutorial count it. 0 when l has no task. */
static int lab_score(const struct progress *p, const struct lesson *l, int *score, int *max)
{
    *score = *max = 0;
    int n = 0;
    for (int j = 0; j < l->nsteps; j++) {
        const struct lesson_step *s = &l->steps[j];
        if (!s->task)
            continue;
        n++;
        *max += s->task->points;
        if (step_done(p, l, s))
            *score += s->task->points;
    }
    return n;
}

static void count(const struct progress *p, const struct lesson_set *set, struct totals *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < p->nquiz && i < PROGRESS_MAX_QUIZ; i++) {
        const struct progress_quiz *q = &p->quiz[i];
        const struct lesson *lo;
        const struct lesson_step *st;
        find_step(set, q->lesson_id, q->step_id, &lo, &st);
        if (is_task(q, st)) {
            t->tried++;
            t->solved_first += q->first_correct != 0;
            t->solved += q->correct != 0;
            if (q->correct && st && st->task)
                t->score += st->task->points;
            continue;
        }
        t->answered++;
        t->first_right += q->first_correct != 0;
        t->right_now += q->correct != 0;
        t->known += st && st->quiz;
    }
    for (int i = 0; set && i < set->nlessons; i++)
        for (int j = 0; j < set->lessons[i].nsteps; j++) {
            const struct lesson_step *s = &set->lessons[i].steps[j];
            t->steps++;
            t->asking += s->quiz || s->task;
            t->steps_done += (s->quiz || s->task) && step_done(p, &set->lessons[i], s);
            t->quizzes += s->quiz != NULL;
            if (s->task) {
                t->tasks++;
                t->task_points += s->task->points;
            }
        }
}

/* 1 when the counters agree with the model (to the nearest whole wavefront/conflict). */
static int agrees(const struct progress_explored *e)
{
    return lround(e->measured_wavefronts) == e->wavefronts &&
           lround(e->measured_conflicts) == e->conflicts;
}

static void date_str(long long t, int utc, const char *f, char *buf, size_t size)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!(utc ? gmtime_r(&tt, &tm) : localtime_r(&tt, &tm)) || !strftime(buf, size, f, &tm))
        snprintf(buf, size, "%lld", t);
}

/* ---- Markdown --------------------------------------------------------------------------- */

/* s (made valid UTF-8 without control characters but \n: bl_utf8_fix) in a table cell: one
 * line, '|' escaped and, outside code (html), HTML-significant characters neutralised. */
static void md_put(FILE *f, const char *s, int html)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else if (*s == '\n')
            fputc(' ', f);
        else if (html && (*s == '<' || *s == '>' || *s == '&'))
            fputs(*s == '<' ? "&lt;" : *s == '>' ? "&gt;" : "&amp;", f);
        else
            fputc(*s, f);
    }
}

/* Text for a table cell: bytes that are not UTF-8 and control characters (from a hand-edited
 * progress file, a device name) do not reach the file. */
static void md_cell(FILE *f, const char *raw)
{
    char fixed[REPORT_TEXT_MAX];
    md_put(f, bl_utf8_fix(fixed, sizeof fixed, raw), 1);
}

/* Code in a table cell: a backtick span long enough not to clash with the code's own. */
static void md_code(FILE *f, const char *raw)
{
    char fixed[REPORT_TEXT_MAX];
    const char *s = bl_utf8_fix(fixed, sizeof fixed, raw);
    int run = 0, longest = 0;
    for (const char *q = s; *q; q++) {
        run = *q == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    for (int i = 0; i <= longest; i++)
        fputc('`', f);
    fputc(' ', f);
    md_put(f, s, 0);
    fputc(' ', f);
    for (int i = 0; i <= longest; i++)
        fputc('`', f);
}

/* The rest of a quiz or task row after its first cells: lesson, step, attempts, first try,
 * now, last answer. */
static void md_answer_row(FILE *f, const struct lesson *lo, const struct lesson_step *st,
                          const struct progress_quiz *q, enum lesson_lang lang)
{
    md_cell(f, lo ? lesson_tr(&lo->title, lang) : q->lesson_id);
    fputs(" | ", f);
    md_cell(f, st ? lesson_tr(&st->title, lang) : q->step_id);
    fprintf(f, " | %d | %s | %s | ", q->attempts, L(q->first_correct ? RPT_YES : RPT_NO),
            L(q->correct ? RPT_YES : RPT_NO));
    const char *choice = choice_given(st, q, lang);
    if (choice) {   /* the value chosen, not only its number */
        md_cell(f, choice);
        fprintf(f, L(RPT_CHOICE), q->given);
    } else {
        /* what the tutorial saves for a quiz revealed without an answer, in lang */
        md_cell(f, !strcmp(q->given, "(revealed)") ? L(RPT_REVEALED) : q->given);
    }
    fputs(" |\n", f);
}

/* A row's device in the report's language: "recorded on <device>, <date>" (replay) or the
 * device measured on. */
static void md_device(FILE *f, const char *dev, enum lesson_lang lang)
{
    char zh[512], part[512];
    if (lang == LANG_ZH) {   /* the device's SMs and clock from its msg.def row, in Chinese */
        const char *d = !strncmp(dev, "recorded on ", 12) ? dev + 12 : dev;
        const char *date = d != dev ? strrchr(d, ',') : NULL;   /* "recorded on DEVICE, DATE" */
        snprintf(part, sizeof part, "%.*s", date ? (int)(date - d) : (int)strlen(d), d);
        struct bl_msg m;   /* the text as the argument of a row: the catalogue says it */
        bl_msg_set(&m, NULL, 0, BL_TEXT, part);
        const char *t = zh;
        bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
        if (strcmp(t, part)) {
            if (d != dev)
                fputs(L(RPT_RECORDED_ON), f);
            md_cell(f, t);
            if (date) {
                fputs(bl_msg_format(BL_COMMA, BL_LANG_ZH), f);
                md_cell(f, date + 1 + (date[1] == ' '));
            }
            return;
        }
    }
    if (!strncmp(dev, "recorded on ", 12)) {
        fputs(L(RPT_RECORDED_ON), f);
        md_cell(f, dev + 12);
    } else {
        md_cell(f, dev);
    }
}

/* Where the measured figures of the explored rows come from, each device once, with its
 * rows: the device line names the GPU of this run, which need not be theirs. */
static void md_measured_on(FILE *f, const struct progress *p, enum lesson_lang lang)
{
    int n = p->nexplored < PROGRESS_MAX_EXPLORED ? p->nexplored : PROGRESS_MAX_EXPLORED;
    int said = 0;
    for (int i = 0; i < n; i++) {
        const struct progress_explored *e = &p->explored[i];
        if (!e->has_measured || !e->device[0])
            continue;
        int seen = 0, rows = 0;
        for (int j = 0; j < n; j++)
            if (p->explored[j].has_measured && !strcmp(p->explored[j].device, e->device)) {
                seen |= j < i;
                rows++;
            }
        if (seen)
            continue;
        fputs(said ? L(RPT_SEP) : L(RPT_MEASURED_FIGURES), f);
        md_device(f, e->device, lang);
        fprintf(f, L(RPT_ROWS), rows);
        said = 1;
    }
    if (said)
        fputc('\n', f);
}

/* The heading: date, learner, device, last position, version. */
static void md_head(FILE *f, const struct progress *p, const struct report_meta *meta,
                    long long now, enum lesson_lang lang)
{
    char date[64];
    fprintf(f, "%s", L(RPT_TITLE));
    date_str(now, 0, "%Y-%m-%d %H:%M %Z", date, sizeof date);
    fprintf(f, L(RPT_DATE), date);
    if (meta && meta->learner && meta->learner[0]) {
        fputs(L(RPT_LEARNER), f);
        md_cell(f, meta->learner);
        fputc('\n', f);
    }
    fputs(L(RPT_DEVICE), f);
    if (meta && meta->device && meta->device[0])
        md_device(f, meta->device, lang);
    else
        fputs(L(RPT_NO_GPU), f);
    if (meta && meta->device && meta->device[0] && meta->backend && meta->backend[0])
        fprintf(f, " (%s)", meta->backend);
    fputc('\n', f);
    md_measured_on(f, p, lang);
    if (p->lesson_id[0]) {
        fputs(L(RPT_LAST_POSITION), f);
        md_cell(f, p->lesson_id);
        fputc('/', f);
        md_cell(f, p->step_id);
        fputc('\n', f);
    }
    fprintf(f, "- banklab %s\n\n", BANKLAB_VERSION);
}

/* The next progress entry from *i on that is a graded task's result (tasks 1) or a quiz
 * answer (tasks 0), with its lesson and step in set (NULLs when gone); NULL after the last. */
static const struct progress_quiz *next_answer(const struct progress *p,
                                               const struct lesson_set *set, int tasks, int *i,
                                               const struct lesson **lo,
                                               const struct lesson_step **st)
{
    while (*i < p->nquiz && *i < PROGRESS_MAX_QUIZ) {
        const struct progress_quiz *q = &p->quiz[(*i)++];
        find_step(set, q->lesson_id, q->step_id, lo, st);
        if (is_task(q, *st) == tasks)
            return q;
    }
    return NULL;
}

/* The table rows of the quiz answers (tasks 0: chapter first) or of the graded tasks. */
static void md_rows(FILE *f, const struct progress *p, const struct lesson_set *set,
                    enum lesson_lang lang, int tasks)
{
    const struct progress_quiz *q;
    const struct lesson *lo;
    const struct lesson_step *st;
    for (int i = 0; (q = next_answer(p, set, tasks, &i, &lo, &st));) {
        if (tasks || !lo)
            fputs(tasks ? "| " : "| | ", f);
        else
            fprintf(f, "| %d | ", lo->chapter);
        md_answer_row(f, lo, st, q, lang);
    }
    fputc('\n', f);
}

static void md_quizzes(FILE *f, const struct progress *p, const struct lesson_set *set,
                       enum lesson_lang lang, const struct totals *t)
{
    fprintf(f, "%s", L(RPT_QUIZ_RESULTS));
    if (t->asking)
        fprintf(f, L(RPT_STEPS_DONE), t->steps_done, t->asking, t->steps);
    if (t->quizzes) {
        fprintf(f, L(RPT_ANSWERED_OF), t->known, t->quizzes);
        if (t->answered > t->known)
            fprintf(f, L(t->answered - t->known == 1 ? RPT_AND_ANSWER : RPT_AND_ANSWERS),
                    t->answered - t->known);
        fprintf(f, L(RPT_RIGHT_FIRST_NOW), t->first_right, t->right_now);
    } else
        fprintf(f, L(RPT_ANSWERED_RIGHT), t->answered, t->first_right, t->right_now);
    if (t->answered) {
        fprintf(f, "%s", L(RPT_QUIZ_HEADER));
        fprintf(f, "|---:|---|---|---:|:---:|:---:|---|\n");
        md_rows(f, p, set, lang, 0);
    }
}

static void md_tasks(FILE *f, const struct progress *p, const struct lesson_set *set,
                     enum lesson_lang lang, const struct totals *t)
{
    fprintf(f, "%s", L(RPT_GRADED_TASKS));
    int score, max, labs = 0;
    for (int i = 0; set && i < set->nlessons; i++)
        labs += lab_score(p, &set->lessons[i], &score, &max) > 0;
    if (labs > 1) {           /* one score per lab, as `banklab lab` gives it */
        fprintf(f, "%s", L(RPT_SCORE_BY_LAB));
        for (int i = 0; i < set->nlessons; i++)
            if (lab_score(p, &set->lessons[i], &score, &max) > 0) {
                fprintf(f, L(RPT_SCORE_LAB), set->lessons[i].chapter);
                md_cell(f, lesson_tr(&set->lessons[i].title, lang));
                fprintf(f, L(RPT_SCORE_LAB_POINTS), score, max);
            }
        fputc('\n', f);
    } else {
        score_of(p, t, &score, &max);
        fprintf(f, L(RPT_SCORE), score, max);
        if (t->tasks)
            fprintf(f, L(t->tasks == 1 ? RPT_TASK_IN_LESSONS : RPT_TASKS_IN_LESSONS), t->tasks);
        fprintf(f, "%s", L(RPT_END));
    }
    if (t->tried) {
        fprintf(f, L(RPT_TASKS_TRIED), t->tried, t->solved, t->solved_first);
        fprintf(f, "%s", L(RPT_TASK_HEADER));
        fprintf(f, "|---|---|---:|:---:|:---:|---|\n");
        md_rows(f, p, set, lang, 1);
    }
}

/* One explored pattern: predicted, measured (when it was), the device. */
static void md_explored_row(FILE *f, const struct progress_explored *e, enum lesson_lang lang)
{
    char date[64];
    if (e->when > 0)
        date_str(e->when, 0, "%Y-%m-%d %H:%M", date, sizeof date);
    else
        snprintf(date, sizeof date, "-");
    fprintf(f, "| %s | ", date);
    md_cell(f, !strcmp(e->where, "playground") ? L(RPT_PLAYGROUND) : e->where);
    fputs(" | ", f);
    md_code(f, e->code);
    fprintf(f, " | %d | %d | %d | ", e->wavefronts, e->conflicts, e->ways);
    if (!e->has_measured) {
        fprintf(f, "- | - | - | - | - | - | %s |\n", L(RPT_NOT_MEASURED));
        return;
    }
    fprintf(f, "%.2f | %.2f | ", e->measured_wavefronts, e->measured_conflicts);
    if (e->ns_per_access > 0 && e->slowdown > 0)
        fprintf(f, "%.2f | %.1fx | ", e->ns_per_access, e->slowdown);
    else
        fputs("- | - | ", f);
    if (e->ms > 0)
        fprintf(f, "%.4f", e->ms);
    else
        fputc('-', f);
    fprintf(f, " | %s | ", L(agrees(e) ? RPT_YES : RPT_NO_BOLD));
    md_device(f, e->device, lang);
    fputs(" |\n", f);
}

static void md_explored(FILE *f, const struct progress *p, enum lesson_lang lang)
{
    fprintf(f, "%s", L(RPT_EXPLORED));
    if (!p->nexplored) {
        fprintf(f, "%s", L(RPT_NONE_YET));
        return;
    }
    fprintf(f, "%s", L(RPT_EXPLORED_INTRO));
    int measured = 0;
    for (int i = 0; i < p->nexplored && i < PROGRESS_MAX_EXPLORED; i++)
        measured += p->explored[i].has_measured != 0;
    if (!measured)            /* explored without a GPU: the model's numbers alone */
        fprintf(f, "%s", L(RPT_MODEL_ONLY));
    fprintf(f, "%s", L(RPT_EXPLORED_HEADER));
    fprintf(f, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---|\n");
    for (int i = 0; i < p->nexplored && i < PROGRESS_MAX_EXPLORED; i++)
        md_explored_row(f, &p->explored[i], lang);
}

int report_write_md(FILE *f, const struct progress *p, const struct lesson_set *set,
                    enum lesson_lang lang, const struct report_meta *meta)
{
    struct totals t;
    count(p, set, &t);
    clearerr(f);
    md_head(f, p, meta, now_of(meta), lang);
    md_quizzes(f, p, set, lang, &t);
    md_tasks(f, p, set, lang, &t);
    md_explored(f, p, lang);
    fflush(f);
    return ferror(f) ? -1 : 0;
}

/* ---- JSON ------------------------------------------------------------------------------- */

/* A string member holding text from outside (progress, the device, the learner): made valid
 * UTF-8 without control characters first, so the report is valid for any JSON reader. */
static void add_text(struct jw *w, const char *key, const char *raw)
{
    char fixed[REPORT_TEXT_MAX];
    jw_str(w, key, bl_utf8_fix(fixed, sizeof fixed, raw));
}

/* The report's heading fields: format, generator, date, language, learner, device, position. */
static void json_head(struct jw *w, const struct progress *p, enum lesson_lang lang,
                      const struct report_meta *meta, long long now)
{
    char date[64];
    date_str(now, 1, "%Y-%m-%dT%H:%M:%SZ", date, sizeof date);
    jw_num(w, "format", REPORT_FORMAT);
    jw_str(w, "generator", "banklab " BANKLAB_VERSION);
    jw_str(w, "date", date);
    jw_num(w, "time", (double)now);
    jw_str(w, "lang", lesson_lang_code(lang));
    if (meta && meta->learner && meta->learner[0])
        add_text(w, "learner", meta->learner);
    else
        jw_null(w, "learner");
    jw_obj(w, "device");
    add_text(w, "name", device_of(meta));
    jw_str(w, "backend", meta ? meta->backend : NULL);
    jw_bool(w, "measured", meta && meta->device && meta->device[0]);
    jw_end(w);
    jw_obj(w, "position");
    add_text(w, "lesson", p->lesson_id);
    add_text(w, "step", p->step_id);
    jw_end(w);
}

/* json_item: opens the object of progress entry q of step st (NULL when the step is gone
 * from the lessons) in the open array, with its "lesson", "step" and "step_title". */
static void json_item(struct jw *w, const char *lesson_id, const struct progress_quiz *q,
                      const struct lesson_step *st, enum lesson_lang lang)
{
    jw_obj(w, NULL);
    add_text(w, "lesson", lesson_id);
    add_text(w, "step", q->step_id);
    jw_str(w, "step_title", st ? lesson_tr(&st->title, lang) : NULL);
}

/* The quiz object's totals: the lesson set's steps (with lessons only), then the answers. */
static const struct jw_field step_counts[] = {
    JW_FIELD("steps", struct totals, steps), JW_FIELD("steps_asking", struct totals, asking),
    JW_FIELD("steps_done", struct totals, steps_done)};
static const struct jw_field quiz_counts[] = {
    JW_FIELD("answered", struct totals, answered),
    JW_FIELD("first_try_correct", struct totals, first_right),
    JW_FIELD("correct_now", struct totals, right_now),
    JW_FIELD("answered_in_lessons", struct totals, known),
    JW_FIELD("total", struct totals, quizzes)};

/* The quiz answers (tasks 0) or the graded tasks' results (tasks 1), with their totals. */
static void json_answers(struct jw *w, const struct progress *p, const struct lesson_set *set,
                         enum lesson_lang lang, const struct totals *t, int tasks)
{
    int score, max;
    score_of(p, t, &score, &max);
    jw_obj(w, tasks ? "tasks" : "quiz");
    if (tasks) {
        jw_num(w, "score", score);
        jw_num(w, "max", max);
        jw_num(w, "graded_steps", t->tasks);
        jw_num(w, "tried", t->tried);
        jw_num(w, "solved", t->solved);
        jw_arr(w, "labs");    /* one score per lab (lesson with tasks), as banklab lab's */
        for (int i = 0; set && i < set->nlessons; i++) {
            int ls, lm;
            if (lab_score(p, &set->lessons[i], &ls, &lm) <= 0)
                continue;
            jw_obj(w, NULL);
            add_text(w, "lesson", set->lessons[i].id);
            jw_num(w, "chapter", set->lessons[i].chapter);
            jw_str(w, "title", lesson_tr(&set->lessons[i].title, lang));
            jw_num(w, "score", ls);
            jw_num(w, "max", lm);
            jw_end(w);
        }
        jw_end(w);
    } else {
        if (set)
            JW_FIELDS(w, t, step_counts);
        JW_FIELDS(w, t, quiz_counts);
    }
    jw_arr(w, "items");
    const struct progress_quiz *q;
    const struct lesson *lo;
    const struct lesson_step *st;
    for (int i = 0; (q = next_answer(p, set, tasks, &i, &lo, &st));) {
        const char *lid = q->lesson_id, *value = choice_given(st, q, lang);
        if (tasks && !strncmp(lid, REPORT_TASK_PREFIX, strlen(REPORT_TASK_PREFIX)))
            lid += strlen(REPORT_TASK_PREFIX);
        json_item(w, lid, q, st, lang);
        if (tasks) {
            if (st && st->task)
                jw_num(w, "points", st->task->points);
            else
                jw_null(w, "points");
            jw_num(w, "tries", q->attempts);
            jw_bool(w, "solved_first_try", q->first_correct);
            jw_bool(w, "solved", q->correct);
            add_text(w, "given", q->given);
        } else {
            if (lo)
                jw_num(w, "chapter", lo->chapter);
            else
                jw_null(w, "chapter");
            jw_str(w, "lesson_title", lo ? lesson_tr(&lo->title, lang) : NULL);
            jw_num(w, "attempts", q->attempts);
            jw_bool(w, "first_correct", q->first_correct);
            jw_bool(w, "correct", q->correct);
            add_text(w, "given", q->given);
            add_text(w, "given_value", value ? value : q->given);
        }
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
}

/* A measured figure of an explored pattern: null when it was not measured (0). */
static void positive_or_null(struct jw *w, const char *key, double v)
{
    if (v > 0)
        jw_num(w, key, v);
    else
        jw_null(w, key);
}

static void json_explored(struct jw *w, const struct progress *p)
{
    char date[64];
    jw_arr(w, "explored");
    for (int i = 0; i < p->nexplored && i < PROGRESS_MAX_EXPLORED; i++) {
        const struct progress_explored *e = &p->explored[i];
        jw_obj(w, NULL);
        if (e->when > 0)
            date_str(e->when, 1, "%Y-%m-%dT%H:%M:%SZ", date, sizeof date);
        add_text(w, "where", e->where);
        add_text(w, "code", e->code);
        jw_str(w, "when", e->when > 0 ? date : NULL);
        jw_obj(w, "predicted");
        jw_num(w, "wavefronts", e->wavefronts);
        jw_num(w, "conflicts", e->conflicts);
        jw_num(w, "ways", e->ways);
        jw_end(w);
        if (e->has_measured) {
            jw_obj(w, "measured");
            jw_num(w, "wavefronts", e->measured_wavefronts);
            jw_num(w, "conflicts", e->measured_conflicts);
            positive_or_null(w, "ms", e->ms);
            positive_or_null(w, "ns_per_access", e->ns_per_access);
            positive_or_null(w, "slowdown", e->slowdown);
            add_text(w, "device", e->device);
            jw_end(w);
            jw_bool(w, "agrees", agrees(e));
        } else {
            jw_null(w, "measured");
            jw_null(w, "agrees");
        }
        jw_end(w);
    }
    jw_end(w);
}

int report_write_json(FILE *f, const struct progress *p, const struct lesson_set *set,
                      enum lesson_lang lang, const struct report_meta *meta)
{
    struct totals t;
    count(p, set, &t);
    struct jw *w = jw_new(0);
    json_head(w, p, lang, meta, now_of(meta));
    json_answers(w, p, set, lang, &t, 0);
    json_answers(w, p, set, lang, &t, 1);
    json_explored(w, p);
    int rc = jw_print(w, f, 1);
    jw_free(w);
    return rc;
}

/* ---- files ------------------------------------------------------------------------------ */

/* "banklab-report-<YYYY-MM-DD>.<ext>" (local date of now; 0 = time(NULL)) into buf: buf, or
 * NULL if it does not fit. */
static char *report_file_name(long long now, const char *ext, char *buf, size_t size)
{
    char date[32];
    if (now <= 0)
        now = (long long)time(NULL);
    date_str(now, 0, "%Y-%m-%d", date, sizeof date);
    int n = snprintf(buf, size, "banklab-report-%s.%s", date, ext ? ext : "md");
    return n < 0 || (size_t)n >= size ? NULL : buf;
}

/* What one report file holds, for files_write_atomic. */
struct report_job {
    int json;
    const struct progress *p;
    const struct lesson_set *set;
    enum lesson_lang lang;
    const struct report_meta *meta;
};

static int emit_report(FILE *f, void *ctx)
{
    const struct report_job *j = ctx;
    return j->json ? report_write_json(f, j->p, j->set, j->lang, j->meta)
                   : report_write_md(f, j->p, j->set, j->lang, j->meta);
}

/* One report file, replaced atomically (0644: a report is meant to be handed in). */
static int write_one(const char *dir, const char *name, int json, const struct progress *p,
                     const struct lesson_set *set, enum lesson_lang lang,
                     const struct report_meta *meta, char *path, size_t pathsz,
                     struct bl_err *err)
{
    int n = snprintf(path, pathsz, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= pathsz)
        return bl_fail(err, ENAMETOOLONG, BL_NOWHERE, RPT_PATH_TOO_LONG, dir);
    struct report_job job = {json, p, set, lang, meta};
    return files_write_atomic(path, 0644, emit_report, &job, err);
}

int report_write_dir(const char *dir, int formats, const struct progress *p,
                     const struct lesson_set *set, enum lesson_lang lang,
                     const struct report_meta *meta, char *written, size_t writtensz,
                     struct bl_err *err)
{
    struct stat st;
    if (written && writtensz)
        written[0] = 0;
    if (!dir || !dir[0])
        dir = ".";
    if (!(formats & REPORT_BOTH))
        return bl_fail(err, EINVAL, BL_NOWHERE, RPT_NO_FORMAT);
    if (stat(dir, &st) < 0)
        return bl_fail(err, errno, BL_NOWHERE, RPT_DIRECTORY, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return bl_fail(err, ENOTDIR, BL_NOWHERE, RPT_NOT_A_DIRECTORY, dir);
    long long now = now_of(meta);
    struct report_meta m = meta ? *meta : (struct report_meta){0};
    m.now = now;  /* one date for both files even across midnight */
    static const struct {
        int bit;
        const char *ext;
    } kinds[] = {{REPORT_MD, "md"}, {REPORT_JSON, "json"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!(formats & kinds[i].bit))
            continue;
        char name[64], path[4096];
        if (!report_file_name(now, kinds[i].ext, name, sizeof name))
            return bl_fail(err, -1, BL_NOWHERE, RPT_CANNOT_NAME);
        if (write_one(dir, name, kinds[i].bit == REPORT_JSON, p, set, lang, &m, path, sizeof path,
                      err) < 0)
            return -1;
        if (written && writtensz) {
            size_t len = strlen(written);
            snprintf(written + len, writtensz - len, "%s%s", len ? "\n" : "", path);
        }
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);  /* best effort: make the renames durable */
        close(fd);
    }
    return 0;
}
