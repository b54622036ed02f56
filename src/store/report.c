/* report.c: the lab report (report.h): Markdown for the learner and the teacher, JSON (via
 * cJSON) for graders' scripts. Reads progress and the lesson set; writes only into the one
 * directory it is given, through temp files that are renamed into place.
 * No curses, no CUDA; never prints, never exits. */
#include "report.h"
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../base/fmt.h"
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

/* Text for a table cell: one line, '|' escaped, HTML-significant characters neutralised;
 * bytes that are not UTF-8 and control characters (from a hand-edited progress file, a
 * device name) do not reach the file. */
static void md_cell(FILE *f, const char *raw)
{
    char fixed[REPORT_TEXT_MAX];
    const char *s = bl_utf8_fix(fixed, sizeof fixed, raw);
    for (; *s; s++) {
        switch (*s) {
        case '|': fputs("\\|", f); break;
        case '\n': case '\r': case '\t': fputc(' ', f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        default: fputc(*s, f);
        }
    }
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
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else if (*s == '\n' || *s == '\r' || *s == '\t')
            fputc(' ', f);
        else
            fputc(*s, f);
    }
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

/* The heading: date, learner, device, last position, version. */
/* A row's device in the report's language: "recorded on <device>, <date>" (replay) or the
 * device measured on. */
static void md_device(FILE *f, const char *dev, enum lesson_lang lang)
{
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

static void md_quizzes(FILE *f, const struct progress *p, const struct lesson_set *set,
                       enum lesson_lang lang, const struct totals *t)
{
    fprintf(f, "%s", L(RPT_QUIZ_RESULTS));
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
        for (int i = 0; i < p->nquiz && i < PROGRESS_MAX_QUIZ; i++) {
            const struct progress_quiz *q = &p->quiz[i];
            const struct lesson *lo;
            const struct lesson_step *st;
            find_step(set, q->lesson_id, q->step_id, &lo, &st);
            if (is_task(q, st))
                continue;
            if (lo)
                fprintf(f, "| %d | ", lo->chapter);
            else
                fprintf(f, "| | ");
            md_answer_row(f, lo, st, q, lang);
        }
        fputc('\n', f);
    }
}

static void md_tasks(FILE *f, const struct progress *p, const struct lesson_set *set,
                     enum lesson_lang lang, const struct totals *t)
{
    fprintf(f, "%s", L(RPT_GRADED_TASKS));
    int score, max;
    score_of(p, t, &score, &max);
    fprintf(f, L(RPT_SCORE), score, max);
    if (t->tasks)
        fprintf(f, L(t->tasks == 1 ? RPT_TASK_IN_LESSONS : RPT_TASKS_IN_LESSONS), t->tasks);
    fprintf(f, "%s", L(RPT_END));
    if (t->tried) {
        fprintf(f, L(RPT_TASKS_TRIED), t->tried, t->solved, t->solved_first);
        fprintf(f, "%s", L(RPT_TASK_HEADER));
        fprintf(f, "|---|---|---:|:---:|:---:|---|\n");
        for (int i = 0; i < p->nquiz && i < PROGRESS_MAX_QUIZ; i++) {
            const struct progress_quiz *q = &p->quiz[i];
            const struct lesson *lo;
            const struct lesson_step *st;
            find_step(set, q->lesson_id, q->step_id, &lo, &st);
            if (!is_task(q, st))
                continue;
            fputs("| ", f);
            md_answer_row(f, lo, st, q, lang);
        }
        fputc('\n', f);
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
static cJSON *add_text(cJSON *o, const char *key, const char *raw)
{
    char fixed[REPORT_TEXT_MAX];
    return cJSON_AddStringToObject(o, key, bl_utf8_fix(fixed, sizeof fixed, raw));
}

/* The report's heading fields: format, generator, date, language, learner, device, position.
 * Each json_ part returns 1, or 0 when memory ran out. */
static int json_head(cJSON *root, const struct progress *p, enum lesson_lang lang,
                     const struct report_meta *meta, long long now)
{
    char date[64];
    date_str(now, 1, "%Y-%m-%dT%H:%M:%SZ", date, sizeof date);
    int ok = cJSON_AddNumberToObject(root, "format", REPORT_FORMAT) &&
             cJSON_AddStringToObject(root, "generator", "banklab " BANKLAB_VERSION) &&
             cJSON_AddStringToObject(root, "date", date) &&
             cJSON_AddNumberToObject(root, "time", (double)now) &&
             cJSON_AddStringToObject(root, "lang", lesson_lang_code(lang));
    if (ok && meta && meta->learner && meta->learner[0])
        ok = add_text(root, "learner", meta->learner) != NULL;
    else if (ok)
        ok = cJSON_AddNullToObject(root, "learner") != NULL;
    cJSON *dev = ok ? cJSON_AddObjectToObject(root, "device") : NULL;
    ok = ok && dev && add_text(dev, "name", device_of(meta)) &&
         (meta && meta->backend ? cJSON_AddStringToObject(dev, "backend", meta->backend)
                                : cJSON_AddNullToObject(dev, "backend")) &&
         cJSON_AddBoolToObject(dev, "measured", meta && meta->device && meta->device[0]);
    cJSON *pos = ok ? cJSON_AddObjectToObject(root, "position") : NULL;
    ok = ok && pos && add_text(pos, "lesson", p->lesson_id) &&
         add_text(pos, "step", p->step_id);
    return ok;
}

/* json_item: a new object at the end of items for progress entry q of step st (NULL when the
 * step is gone from the lessons), with its "lesson", "step" and "step_title"; NULL when out
 * of memory. */
static cJSON *json_item(cJSON *items, const char *lesson_id, const struct progress_quiz *q,
                        const struct lesson_step *st, enum lesson_lang lang)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(items, o)) {
        cJSON_Delete(o);
        return NULL;
    }
    int ok = add_text(o, "lesson", lesson_id) && add_text(o, "step", q->step_id) &&
             (st ? cJSON_AddStringToObject(o, "step_title", lesson_tr(&st->title, lang))
                 : cJSON_AddNullToObject(o, "step_title"));
    return ok ? o : NULL;
}

static int json_quizzes(cJSON *root, const struct progress *p, const struct lesson_set *set,
                        enum lesson_lang lang, const struct totals *t)
{
    cJSON *qz = cJSON_AddObjectToObject(root, "quiz");
    int ok = qz && cJSON_AddNumberToObject(qz, "answered", t->answered) &&
         cJSON_AddNumberToObject(qz, "first_try_correct", t->first_right) &&
         cJSON_AddNumberToObject(qz, "correct_now", t->right_now) &&
         cJSON_AddNumberToObject(qz, "answered_in_lessons", t->known) &&
         cJSON_AddNumberToObject(qz, "total", t->quizzes);
    cJSON *items = ok ? cJSON_AddArrayToObject(qz, "items") : NULL;
    ok = ok && items;
    for (int i = 0; ok && i < p->nquiz && i < PROGRESS_MAX_QUIZ; i++) {
        const struct progress_quiz *q = &p->quiz[i];
        const struct lesson *lo;
        const struct lesson_step *st;
        find_step(set, q->lesson_id, q->step_id, &lo, &st);
        if (is_task(q, st))
            continue;
        const char *value = choice_given(st, q, lang);
        cJSON *o = json_item(items, q->lesson_id, q, st, lang);
        ok = o &&
             (lo ? cJSON_AddNumberToObject(o, "chapter", lo->chapter)
                 : cJSON_AddNullToObject(o, "chapter")) &&
             (lo ? cJSON_AddStringToObject(o, "lesson_title", lesson_tr(&lo->title, lang))
                 : cJSON_AddNullToObject(o, "lesson_title")) &&
             cJSON_AddNumberToObject(o, "attempts", q->attempts) &&
             cJSON_AddBoolToObject(o, "first_correct", q->first_correct) &&
             cJSON_AddBoolToObject(o, "correct", q->correct) &&
             add_text(o, "given", q->given) &&
             add_text(o, "given_value", value ? value : q->given);
    }
    return ok;
}

static int json_tasks(cJSON *root, const struct progress *p, const struct lesson_set *set,
                      enum lesson_lang lang, const struct totals *t)
{
    int score, max;
    score_of(p, t, &score, &max);
    cJSON *tk = cJSON_AddObjectToObject(root, "tasks");
    int ok = tk && cJSON_AddNumberToObject(tk, "score", score) &&
             cJSON_AddNumberToObject(tk, "max", max) &&
             cJSON_AddNumberToObject(tk, "graded_steps", t->tasks) &&
             cJSON_AddNumberToObject(tk, "tried", t->tried) &&
             cJSON_AddNumberToObject(tk, "solved", t->solved);
    cJSON *titems = ok ? cJSON_AddArrayToObject(tk, "items") : NULL;
    ok = ok && titems;
    for (int i = 0; ok && i < p->nquiz && i < PROGRESS_MAX_QUIZ; i++) {
        const struct progress_quiz *q = &p->quiz[i];
        const struct lesson *lo;
        const struct lesson_step *st;
        find_step(set, q->lesson_id, q->step_id, &lo, &st);
        if (!is_task(q, st))
            continue;
        const char *lid = q->lesson_id;
        if (!strncmp(lid, REPORT_TASK_PREFIX, strlen(REPORT_TASK_PREFIX)))
            lid += strlen(REPORT_TASK_PREFIX);
        cJSON *o = json_item(titems, lid, q, st, lang);
        ok = o &&
             (st && st->task ? cJSON_AddNumberToObject(o, "points", st->task->points)
                             : cJSON_AddNullToObject(o, "points")) &&
             cJSON_AddNumberToObject(o, "tries", q->attempts) &&
             cJSON_AddBoolToObject(o, "solved_first_try", q->first_correct) &&
             cJSON_AddBoolToObject(o, "solved", q->correct) &&
             add_text(o, "given", q->given);
    }
    return ok;
}

static int json_explored(cJSON *root, const struct progress *p)
{
    char date[64];
    cJSON *ex = cJSON_AddArrayToObject(root, "explored");
    int ok = ex != NULL;
    for (int i = 0; ok && i < p->nexplored && i < PROGRESS_MAX_EXPLORED; i++) {
        const struct progress_explored *e = &p->explored[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(ex, o)) {
            cJSON_Delete(o);
            ok = 0;
            break;
        }
        if (e->when > 0)
            date_str(e->when, 1, "%Y-%m-%dT%H:%M:%SZ", date, sizeof date);
        ok = add_text(o, "where", e->where) &&
             add_text(o, "code", e->code) &&
             (e->when > 0 ? cJSON_AddStringToObject(o, "when", date)
                          : cJSON_AddNullToObject(o, "when"));
        cJSON *pr = ok ? cJSON_AddObjectToObject(o, "predicted") : NULL;
        ok = ok && pr && cJSON_AddNumberToObject(pr, "wavefronts", e->wavefronts) &&
             cJSON_AddNumberToObject(pr, "conflicts", e->conflicts) &&
             cJSON_AddNumberToObject(pr, "ways", e->ways);
        if (ok && e->has_measured) {
            cJSON *m = cJSON_AddObjectToObject(o, "measured");
            ok = m && cJSON_AddNumberToObject(m, "wavefronts", e->measured_wavefronts) &&
                 cJSON_AddNumberToObject(m, "conflicts", e->measured_conflicts) &&
                 (e->ms > 0 ? cJSON_AddNumberToObject(m, "ms", e->ms)
                            : cJSON_AddNullToObject(m, "ms")) &&
                 (e->ns_per_access > 0 ? cJSON_AddNumberToObject(m, "ns_per_access", e->ns_per_access)
                                       : cJSON_AddNullToObject(m, "ns_per_access")) &&
                 (e->slowdown > 0 ? cJSON_AddNumberToObject(m, "slowdown", e->slowdown)
                                  : cJSON_AddNullToObject(m, "slowdown")) &&
                 add_text(m, "device", e->device) &&
                 cJSON_AddBoolToObject(o, "agrees", agrees(e));
        } else if (ok) {
            ok = cJSON_AddNullToObject(o, "measured") && cJSON_AddNullToObject(o, "agrees");
        }
    }
    return ok;
}

static cJSON *json_report(const struct progress *p, const struct lesson_set *set,
                          enum lesson_lang lang, const struct report_meta *meta)
{
    struct totals t;
    count(p, set, &t);
    cJSON *root = cJSON_CreateObject();
    if (!root || !json_head(root, p, lang, meta, now_of(meta)) ||
        !json_quizzes(root, p, set, lang, &t) || !json_tasks(root, p, set, lang, &t) ||
        !json_explored(root, p)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

int report_write_json(FILE *f, const struct progress *p, const struct lesson_set *set,
                      enum lesson_lang lang, const struct report_meta *meta)
{
    cJSON *root = json_report(p, set, lang, meta);
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text) {
        errno = ENOMEM;
        return -1;
    }
    clearerr(f);
    fputs(text, f);
    fputc('\n', f);
    free(text);
    fflush(f);
    return ferror(f) ? -1 : 0;
}

/* ---- files ------------------------------------------------------------------------------ */

char *report_file_name(long long now, const char *ext, char *buf, size_t size)
{
    char date[32];
    if (now <= 0)
        now = (long long)time(NULL);
    date_str(now, 0, "%Y-%m-%d", date, sizeof date);
    int n = snprintf(buf, size, "banklab-report-%s.%s", date, ext ? ext : "md");
    return n < 0 || (size_t)n >= size ? NULL : buf;
}

const char *report_data_dir(char *buf, size_t size, int create)
{
    if (!files_xdg_path("XDG_DATA_HOME", ".local/share", "banklab/reports", buf, size))
        return NULL;
    if (create && files_mkdirs(buf, 0700, NULL) < 0)
        return NULL;
    return buf;
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
