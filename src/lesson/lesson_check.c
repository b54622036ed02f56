/* lesson_check.c: runs a loaded lesson's expectations, quiz checks and graded tasks through
 * the model (scene_run). Never prints, never exits. No cJSON, no files: it works on lesson.h
 * structs; problems go through lesson_problem. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/lexicon.h"
#include "../base/wrap.h"
#include "scene.h"

#define TASK_SEARCH_MAX 4096   /* parameter combinations tried to show a task is solvable */
#define TASK_BUDGET 65536      /* task evaluations per lesson_check (bounds hostile input) */

struct chk {
    long budget;               /* task evaluations left */
    struct lesson_problems P;
};

static const char *type_of(const struct lesson_scene *s, const struct lesson_binding *b)
{
    if (s->ntypes == 0)
        return NULL;
    return b && b->type ? b->type : s->types[0];
}

/* One access of scene s under binding b through the model: 0, or -1 with why. desc: the
 * binding, for the message. */
static int model_run(const struct lesson_scene *s, const struct lesson_binding *b, int access,
                     struct bank_result *res, struct bl_msg *desc, struct bl_err *why)
{
    struct scene_run r = {0};
    struct bank_access acc;
    struct scene_in in = {.scene = s, .bind = b, .access = access, .warp = -1};
    bl_err_clear(why);
    int rc = scene_run(&r, &in, &acc, res, why);
    lesson_binding_msg(&r.env, type_of(s, b), access, desc);
    scene_run_free(&r);
    return rc;
}

static int field_value(const struct bank_result *r, enum lesson_field f)
{
    const int v[] = {-1, r->wavefronts, r->conflicts, r->ways, r->passes};
    return f > FIELD_NONE && f <= FIELD_PASSES ? v[f] : -1;
}

static const char *const field_name[] = {"", "wavefronts", "conflicts", "ways", "passes"};

static void check_expect(struct chk *C, int si, int ei, const struct lesson_scene *s,
                         const struct lesson_expect *e)
{
    struct bank_result res;
    struct bl_err why;
    struct bl_msg desc, wm;
    if (model_run(s, &e->bind, e->access, &res, &desc, &why)) {
        bl_err_msg(&why, &wm);
        lesson_problem(&C->P, 0, NULL, LP_EXPECT, si, ei, &wm, &desc);
        return;
    }
    const int said[5] = {-1, e->wavefronts, e->conflicts, e->ways, e->passes};
    for (int f = 1; f <= 4; f++) {
        if (said[f] < 0)
            continue;
        int got = field_value(&res, (enum lesson_field)f);
        if (got != said[f]) {
            lesson_problem(&C->P, 0, NULL,
                           LP_EXPECT_IS_BY_THE_MODEL_THE_LESSON, si, ei, field_name[f], got, said[f], &desc);
        }
    }
}

static int fmt_num(double v, char *buf, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15)
        return snprintf(buf, size, "%.0f", v);
    return snprintf(buf, size, "%g", v);
}

static void check_quiz(struct chk *C, int si, const struct lesson_scene *s,
                       const struct lesson_quiz *q)
{
    if (q->check.field == FIELD_NONE)
        return;
    struct bank_result res;
    struct bl_err why;
    struct bl_msg desc, wm;
    char a[40];
    if (model_run(s, &q->check.bind, q->check.access, &res, &desc, &why)) {
        bl_err_msg(&why, &wm);
        lesson_problem(&C->P, 0, NULL, LP_QUIZ_CHECK, si, &wm, &desc);
        return;
    }
    const char *fname = field_name[q->check.field];
    int got = field_value(&res, q->check.field);
    if (q->kind == QUIZ_NUMBER) {
        if (q->number != (double)got) {
            fmt_num(q->number, a, sizeof a);
            lesson_problem(&C->P, 0, NULL,
                           LP_QUIZ_ANSWER_THE_ANSWER_IS_THE_MODE, si, a, fname, got, &desc);
        }
        return;
    }
    if (q->answer < 0 || q->answer >= q->nchoices || !q->choice_values)
        return;
    double v = q->choice_values[q->answer];
    int right = !isnan(v) && v == (double)got;
    if (!right) {
        fmt_num(v, a, sizeof a);
        lesson_problem(&C->P, 0, NULL,
                       LP_QUIZ_ANSWER_CHOICE_HAS_VALUE_THE_M, si, q->answer, q->choices[q->answer].en ?
                       q->choices[q->answer].en : "", isnan(v) ? "none" : a, fname, got, &desc);
    }
    for (int k = 0; k < q->nchoices && right; k++)
        if (k != q->answer && q->choice_values[k] == (double)got) {
            lesson_problem(&C->P, 0, NULL,
                           LP_QUIZ_CHOICES_ITS_VALUE_IS_ALSO_THE, si, k, got, fname, &desc);
        }
}

int lesson_task_met(const struct lesson_task *t, long wavefronts, long conflicts, long ways)
{
    return (t->max_wavefronts < 0 || wavefronts <= t->max_wavefronts) &&
           (t->max_conflicts < 0 || conflicts <= t->max_conflicts) &&
           (t->max_ways < 0 || ways <= t->max_ways);
}

/* Runs the task's access at in (its binding's values, its type). Returns 1 met, 0 not met, -1
 * the code fails there (such points are skipped) or the budget is spent. */
static int task_try(struct chk *C, const struct lesson_task *task, struct scene_run *r,
                    const struct scene_in *in)
{
    if (C->budget <= 0)
        return -1;
    C->budget--;
    struct bank_access acc;
    struct bank_result res;
    if (scene_run(r, in, &acc, &res, NULL))
        return -1;
    return lesson_task_met(task, res.wavefronts, res.conflicts, res.ways);
}

static void check_task(struct chk *C, int si, const struct lesson_scene *s,
                       const struct lesson_task *t)
{
    if (s->nparams == 0 || s->nparams > PATTERN_MAX_PARAMS)
        return;
    long long vals[PATTERN_MAX_PARAMS], count[PATTERN_MAX_PARAMS];
    double space = s->ntypes > 0 ? s->ntypes : 1;
    for (int k = 0; k < s->nparams; k++) {
        if (!s->params[k].name || s->params[k].step <= 0)
            return;
        vals[k] = s->params[k].def;
        count[k] = (s->params[k].max - s->params[k].min) / s->params[k].step + 1;
        space *= (double)count[k];
    }
    const int bound[] = {-1, t->max_wavefronts, t->max_conflicts, t->max_ways};
    char req[96] = "";
    for (size_t f = FIELD_WAVEFRONTS, n = 0; f <= FIELD_WAYS; f++)
        if (bound[f] >= 0)
            n += bl_fmt(req + n, sizeof req - n, "%s%s <= %d", n ? " " : "", field_name[f],
                        bound[f]);
    char *names[PATTERN_MAX_PARAMS];
    for (int k = 0; k < s->nparams; k++)
        names[k] = s->params[k].name;
    struct lesson_binding b = {s->nparams, names, vals, NULL};
    struct scene_run r = {0};
    int ntypes = s->ntypes > 0 ? s->ntypes : 1;
    int solved_default = 0, solvable = 0, searched_all = space <= TASK_SEARCH_MAX;
    for (int ti = 0; ti < ntypes && !solvable; ti++) {
        struct scene_in in = {.scene = s, .type = ti, .access = -1, .warp = -1};
        if (scene_run(&r, &in, NULL, NULL, NULL) || t->access >= r.naccess)
            continue;
        in.bind = &b;
        in.access = t->access;
        for (int k = 0; k < s->nparams; k++)
            vals[k] = s->params[k].def;
        if (ti == 0 && task_try(C, t, &r, &in) == 1)
            solved_default = 1;
        if (searched_all) {
            /* every combination: an odometer over the parameters */
            long long idx[PATTERN_MAX_PARAMS] = {0};
            for (;;) {
                for (int k = 0; k < s->nparams; k++)
                    vals[k] = s->params[k].min + idx[k] * s->params[k].step;
                if (task_try(C, t, &r, &in) == 1) {
                    solvable = 1;
                    break;
                }
                int k = 0;
                while (k < s->nparams && ++idx[k] >= count[k])
                    idx[k++] = 0;
                if (k == s->nparams)
                    break;
            }
        } else {
            /* too many: one parameter at a time, the others at their defaults */
            for (int k = 0; k < s->nparams && !solvable; k++) {
                long long stride = count[k] > TASK_SEARCH_MAX ? count[k] / TASK_SEARCH_MAX : 1;
                for (long long i = 0; i < count[k] && !solvable; i += stride) {
                    for (int q = 0; q < s->nparams; q++)
                        vals[q] = s->params[q].def;
                    vals[k] = s->params[k].min + i * s->params[k].step;
                    solvable = task_try(C, t, &r, &in) == 1;
                }
            }
        }
    }
    scene_run_free(&r);
    if (!solvable && C->budget <= 0)
        return;   /* not searched to the end: no verdict */
    if (solved_default)
        lesson_problem(&C->P, 0, NULL,
                       LP_TASK_ALREADY_SOLVED_AT_THE_DEFAULT, si, req);
    else if (!solvable)
        lesson_problem(&C->P, 0, NULL,
                       LP_TASK_NO_PARAMETER_VALUES_WITHIN_TH, si,
                       req, searched_all ? "" : " (searched one parameter at a time)");
}

/* A number quiz about a figure its step quotes accepts what the text's roundings give: when
 * the step quotes the figure more finely (2.15) than the answer it asks for (2.2, at the
 * coarsest quote's precision), every number at that precision that the finer quote rounds to
 * (2.1 and 2.2) is within the tolerance. */
static void check_quiz_figures(struct chk *C, int si, const struct lesson_step *st)
{
    const struct lesson_quiz *q = st->quiz;
    if (!q || q->kind != QUIZ_NUMBER)
        return;
    int coarse = -1;
    for (int k = 0; k < st->nfigures; k++) {
        const struct lesson_figure *f = &st->figures[k];
        double half = 0.5 * pow(10.0, -f->decimals);
        if (fabs(f->value - q->number) <= half + q->tolerance + 1e-9 &&
            (coarse < 0 || f->decimals < coarse))
            coarse = f->decimals;
    }
    if (coarse < 0 || coarse > 9)
        return;
    double unit = pow(10.0, -coarse);
    for (int k = 0; k < st->nfigures; k++) {
        const struct lesson_figure *f = &st->figures[k];
        if (f->decimals <= coarse ||
            fabs(f->value - q->number) > 0.5 * unit + q->tolerance + 1e-9)
            continue;
        for (double v = floor(f->value / unit) * unit; v <= f->value + unit; v += unit)
            if (fabs(v - f->value) <= 0.5 * unit + 1e-9 &&
                fabs(v - q->number) > q->tolerance + 1e-9) {
                lesson_problem(&C->P, 0, NULL,
                               LP_QUIZ_ANSWER_IS_REFUSED_ANSWER_TOLE,
                               si, coarse, v, q->number, q->tolerance, f->text, coarse,
                               coarse == 1 ? "" : "s");
                return;
            }
    }
}

int lesson_check(const struct lesson *l,
                 void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    if (!l)
        return 0;
    struct chk C = {TASK_BUDGET, {l->path, report, ctx, 0, NULL, 0}};
    for (int i = 0; i < l->nsteps; i++) {
        const struct lesson_step *st = &l->steps[i];
        check_quiz_figures(&C, i, st);
        if (!st->scene || !st->scene->code)
            continue;
        for (int k = 0; k < st->nexpects; k++)
            check_expect(&C, i, k, st->scene, &st->expects[k]);
        if (st->quiz)
            check_quiz(&C, i, st->scene, st->quiz);
        if (st->task)
            check_task(&C, i, st->scene, st->task);
    }
    lesson_problems_end(&C.P);
    return C.P.n;
}


/* ---- what a step says before its quiz, and how its code wraps (lesson_check_text) ---- */

/* The columns each text of a step is wrapped to on the tutorial's reading screen at 80x24
 * (src/ui/tutor_draw.c reading_flow, src/ui/quiz.c): the text at W - 2, a hint 8 further in,
 * the quiz's question and explanation 2 in, a choice 5 in; the key sentence (presenter mode)
 * and a task's goal at W - 4. */
enum {
    WRAP_TEXT = 78, WRAP_HINT = 70, WRAP_QUESTION = 76, WRAP_CHOICE = 73, WRAP_KEY = 76,
    WRAP_GOAL = 76
};

static const char *const lang_name[2] = {"zh", "en"};

/* Code in s that the tutorial would have to cut at width (a span wider than the line with no
 * space outside brackets to break at): reports it once and returns 1. */
static int check_wrap(struct lesson_problems *P, const char *path, int lang, const char *s,
                      int width)
{
    size_t n = s ? strlen(s) : 0, pos = 0;
    int code = 0;
    while (pos < n) {
        size_t nx;
        int cut;
        size_t len = bl_wrap(s + pos, n - pos, width, code ? BL_WRAP_IN_CODE : BL_WRAP_TICKS,
                             &nx, &cut);
        size_t open = code ? 0 : (size_t)-1;   /* where the span cut at its end opened */
        for (size_t i = 0; i < len; i++)
            if (s[pos + i] == '`') {
                code = !code;
                open = code ? pos + i + 1 : (size_t)-1;
            }
        if (cut && code) {
            if (open == 0)                      /* opened on an earlier line: find it */
                for (size_t i = 0, c = 0; i < pos; i++)
                    if (s[i] == '`' && (c = !c))
                        open = i + 1;
            size_t e = open;
            while (e < n && s[e] != '`' && s[e] != '\n')
                e++;
            int w = bl_width_n(s + open, e - open);
            lesson_problem(P, 0, NULL,
                           LP_CODE_COLUMNS_WOULD_BE_CUT_AT_COLUM, path, lang_name[lang], s + open,
                           e - open > 40 ? "..." : "", w, width);
            return 1;
        }
        if (nx == 0)
            break;
        pos += nx;
    }
    return 0;
}

/* The words that name what a quiz's check measures, after its number ("4 wavefronts",
 * "2-way", "31 conflicts"), by field and language: the lexicon's NOUNS_* rows (an empty list
 * for a field without nouns). */
static const char *const *field_nouns(int field, int lang)
{
    enum bl_lex id = field == FIELD_WAVEFRONTS  ? BL_LEX_NOUNS_WAVEFRONTS
                     : field == FIELD_CONFLICTS ? BL_LEX_NOUNS_CONFLICTS
                     : field == FIELD_WAYS      ? BL_LEX_NOUNS_WAYS
                     : field == FIELD_PASSES    ? BL_LEX_NOUNS_PASSES
                                                : BL_LEX_COUNT;
    return bl_lex(id, lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN);
}

static int word_byte(unsigned char c)
{
    return isalnum(c) || c == '_';
}

/* The number v written out, as prose says it in lang: English words and Chinese numerals
 * (the lexicon's NUMERALS, word k for numeral_values[k]), for the spellings of number_said
 * besides the digits; NULL when prose has no word for v. */
static const char *num_word(int v, int lang)
{
    static const int numeral_values[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 32};
    const char *const *w = bl_lex(BL_LEX_NUMERALS, lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN);
    for (size_t k = 0; k < sizeof numeral_values / sizeof *numeral_values && w[k]; k++)
        if (numeral_values[k] == v)
            return w[k];
    return NULL;
}

/* 1 when the Chinese character at p makes a numeral part of another word: before it
 * (NUMERAL_JOINED_AFTER: "the same one", "each one", "the first", a longer numeral ...) or
 * after it (NUMERAL_JOINED_BEFORE: "some", "alike", "together", "always" ...) */
static int cjk_bound(const char *p, int before)
{
    return bl_lex_prefix(before ? BL_LEX_NUMERAL_JOINED_AFTER : BL_LEX_NUMERAL_JOINED_BEFORE,
                         p) > 0;
}

/* after a number at a: " and 4 ", " or four ", or their Chinese words (NUMBER_LINK; one number
 * more before the noun, "two and four passes"; not a list "2, 4, 8-way" written with the
 * Chinese enumeration comma, which names every case): where the noun may start */
static const char *skip_second_number(const char *a)
{
    const char *w = a;
    while (*w == ' ')
        w++;
    size_t link = bl_lex_prefix(BL_LEX_NUMBER_LINK, w);
    if (!link)
        return a;
    w += link;
    const char *d = w;
    while (isdigit((unsigned char)*d))
        d++;
    if (d > w)
        return d;
    for (int k = 1; k <= 32; k++)
        for (int lang = 0; lang < 2; lang++) {
            const char *t = num_word(k, lang);
            if (t && !strncmp(w, t, strlen(t)) && !word_byte((unsigned char)w[strlen(t)]))
                return w + strlen(t);
        }
    return a;
}

/* 1 when one of nouns follows a (after blanks and a measure word, COUNTER) */
static int noun_follows(const char *a, const char *const *nouns)
{
    const char *w = a;
    while (*w == ' ')
        w++;
    size_t counter = bl_lex_prefix(BL_LEX_COUNTER, w);
    if (counter)
        for (w += counter; *w == ' ';)
            w++;
    for (int q = 0; q < 4 && nouns[q]; q++)
        if (!strncmp(a, nouns[q], strlen(nouns[q])) || !strncmp(w, nouns[q], strlen(nouns[q])))
            return 1;
    return 0;
}

/* Where s says the number num as a whole token, not as a binding's value ("PAD = 2",
 * "<= 4") and, with nouns, followed by one of them ("2 wavefronts", "2 wavefronts" with a
 * measure word, "two and four passes", a Chinese numeral and noun): its offset, or -1.
 * Outside code spans; inside one too with a noun after it (`// 2 wavefronts`: an answer in
 * code is still given). A numeral (a Chinese one among them) needs a noun. *nlen: the length
 * of what matched. */
static long number_said(const char *s, const char *num, const char *const *nouns, size_t *nlen)
{
    size_t k = strlen(num);
    int code = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '`')
            code = !code;
        if (strncmp(s + i, num, k))
            continue;
        if (code && !(nouns && nouns[0]))
            continue;
        if (i > 0 && (word_byte((unsigned char)s[i - 1]) || s[i - 1] == '.' || s[i - 1] == '-'))
            continue;
        if (i >= 3 && (unsigned char)num[0] >= 0x80 && cjk_bound(s + i - 3, 1))
            continue;
        const char *a = s + i + k;
        if (word_byte((unsigned char)*a) || (*a == '.' && isdigit((unsigned char)a[1])))
            continue;
        if ((unsigned char)num[0] >= 0x80 && cjk_bound(a, 0))
            continue;
        size_t b = i;
        while (b > 0 && s[b - 1] == ' ')
            b--;
        if (b > 0 && (strchr("=<>", s[b - 1]) ||
                      (b >= 3 && !strncmp(s + b - 3, "\u2264", 3)) ||
                      (b >= 3 && !strncmp(s + b - 3, "\u2265", 3))))
            continue;
        *nlen = k;
        if (!nouns || !nouns[0])
            return (long)i;
        const char *a2 = skip_second_number(a);
        if (noun_follows(a, nouns) || (a2 != a && noun_follows(a2, nouns))) {
            *nlen = (size_t)(a2 - (s + i));
            return (long)i;
        }
    }
    return -1;
}

/* Words of a text outside its code spans: ASCII letter and digit runs, and each other
 * character but punctuation (a Chinese character is a word of its own). */
struct word {
    const char *p;
    size_t n;
};

static int words_of(const char *s, struct word *w, int max)
{
    int nw = 0, code = 0;
    for (size_t i = 0; s && s[i];) {
        unsigned char c = (unsigned char)s[i];
        if (c == '`') {
            code = !code;
            i++;
            continue;
        }
        size_t j = i + 1;
        if (isalnum(c)) {
            while (isalnum((unsigned char)s[j]))
                j++;
        } else if (c >= 0x80) {
            while ((s[j] & 0xc0) == 0x80)
                j++;
            /* CJK and full-width punctuation (U+3000..U+303F, U+FF00..U+FFEF) and general
             * punctuation (U+2000..U+206F) separate words */
            unsigned u = c >= 0xe0 && j - i == 3 ? (c & 0x0fu) << 12 |
                         ((unsigned char)s[i + 1] & 0x3fu) << 6 | ((unsigned char)s[i + 2] & 0x3fu)
                                                 : 0;
            if ((u >= 0x3000 && u <= 0x303f) || (u >= 0xff00 && u <= 0xffef) ||
                (u >= 0x2000 && u <= 0x206f)) {
                i = j;
                continue;
            }
        } else {
            i = j;
            continue;
        }
        if (!code && nw < max)
            w[nw++] = (struct word){s + i, j - i};
        i = j;
    }
    return nw;
}

static int same_words(const struct word *a, const struct word *b, int n)
{
    for (int k = 0; k < n; k++) {
        if (a[k].n != b[k].n)
            return 0;
        for (size_t c = 0; c < a[k].n; c++)
            if (tolower((unsigned char)a[k].p[c]) != tolower((unsigned char)b[k].p[c]))
                return 0;
    }
    return 1;
}

/* 1 when the n words at g occur in a row in w[0..nw) */
static int has_words(const struct word *w, int nw, const struct word *g, int n)
{
    for (int i = 0; i + n <= nw; i++)
        if (same_words(w + i, g, n))
            return 1;
    return 0;
}

#define WORDS_MAX 2048
#define PHRASE_WORDS_EN 4    /* a choice's distinctive phrase: 4 English words in a row, */
#define PHRASE_WORDS_ZH 5    /* or 5 Chinese characters */

/* The right choice's distinctive text in src: a run of words of the right choice that no
 * other choice has, and src has too. Returns 1 and the phrase in *at, *len. */
static int choice_said(const struct lesson_quiz *q, int lang, const char *src, const char **at,
                       size_t *len)
{
    static struct word r[WORDS_MAX], o[WORDS_MAX], t[WORDS_MAX];
    int n = lang == LANG_EN ? PHRASE_WORDS_EN : PHRASE_WORDS_ZH;
    int nr = words_of(lesson_tr(&q->choices[q->answer], (enum lesson_lang)lang), r, WORDS_MAX);
    int nt = words_of(src, t, WORDS_MAX);
    for (int i = 0; i + n <= nr; i++) {
        int other = 0;
        for (int k = 0; k < q->nchoices && !other; k++) {
            if (k == q->answer)
                continue;
            int no = words_of(lesson_tr(&q->choices[k], (enum lesson_lang)lang), o, WORDS_MAX);
            other = has_words(o, no, r + i, n);
        }
        if (other)
            continue;
        for (int j = 0; j + n <= nt; j++)
            if (same_words(t + j, r + i, n)) {
                *at = t[j].p;
                *len = (size_t)(t[j + n - 1].p + t[j + n - 1].n - t[j].p);
                return 1;
            }
    }
    return 0;
}

/* Words of a title that state a finding ("A remap that works", "The row length causes it, not
 * n", "Conflicts cost time, never correctness"): in a step with a quiz the title names the
 * topic and the quiz finds the rest. English whole words; Chinese substrings. */
static const char *title_verdict(const char *s, int lang)
{
    const char *const *verdict = bl_lex(BL_LEX_VERDICT, lang == LANG_ZH ? BL_LANG_ZH : BL_LANG_EN);
    if (lang == LANG_ZH) {
        for (int k = 0; verdict[k]; k++)
            if (strstr(s, verdict[k]))
                return verdict[k];
        return NULL;
    }
    static struct word w[64];
    int nw = words_of(s, w, 64);
    for (int i = 0; i < nw; i++)
        for (int k = 0; verdict[k]; k++)
            if (w[i].n == strlen(verdict[k]) &&
                same_words(&w[i], &(struct word){verdict[k], w[i].n}, 1))
                return verdict[k];
    return NULL;
}

/* the spellings of v that number_said looks for in lang: its digits, and written out */
static int spellings(double v, const char *num, int lang, const char **out)
{
    int n = 0;
    out[n++] = num;
    if (v == floor(v) && v >= 1 && v <= 32 && num_word((int)v, lang))
        out[n++] = num_word((int)v, lang);
    if (v == 2 && lang == LANG_ZH)
        out[n++] = bl_lex(BL_LEX_NUMERAL_TWO_ALSO, BL_LANG_ZH)[0];
    return n;
}

/* The title, text and key sentence of step si must not give its quiz's answer: a number (a
 * number quiz's, or the right choice's value) said as a token with what the check measures
 * (in digits or in words, in prose or in code), the right choice's own words, or, in the
 * title, a finding (title_verdict). */
static void check_answer_before(struct lesson_problems *P, int si, const struct lesson_step *st)
{
    const struct lesson_quiz *q = st->quiz;
    if (!q || (q->kind == QUIZ_CHOICE && (q->answer < 0 || q->answer >= q->nchoices)))
        return;
    double v = q->kind == QUIZ_NUMBER ? q->number
                                      : q->choice_values ? q->choice_values[q->answer] : NAN;
    char num[40];
    if (!isnan(v))
        fmt_num(v, num, sizeof num);
    const struct lesson_text *src[3] = {&st->title, &st->text, &st->key};
    static const char *const src_name[3] = {"title", "text", "key"};
    for (int f = 0; f < 3; f++)
        for (int lang = 0; lang < 2; lang++) {
            const char *s = lesson_tr(src[f], (enum lesson_lang)lang);
            if (!s || (f == 2 && !src[f]->en))
                continue;
            const char *at = NULL;
            size_t len = 0;
            if (!isnan(v)) {
                const char *const *nouns = field_nouns(q->check.field, lang);
                const char *sp[3];
                int nsp = spellings(v, num, lang, sp);
                for (int k = 0; k < nsp && !at; k++) {
                    size_t nl = 0;
                    long i = k == 0 || (nouns && nouns[0]) ? number_said(s, sp[k], nouns, &nl) : -1;
                    if (i < 0)
                        continue;
                    at = s + i;
                    len = nl;
                    while (at[len] && at[len] != '.' && at[len] != '`' && len < 24 &&
                           !strchr(",;:)", at[len]) && !bl_lex_prefix(BL_LEX_CLAUSE_END, at + len))
                        len++;
                    while (len > 0 && (at[len - 1] & 0xc0) == 0x80 && (at[len] & 0xc0) == 0x80)
                        len--;   /* never half a character */
                }
            }
            if (!at && q->kind == QUIZ_CHOICE)
                choice_said(q, lang, s, &at, &len);
            if (at)
                lesson_problem(P, 0, NULL,
                               LP_GIVES_THE_ANSWER_OF_THE_STEP_S_QUI, si, src_name[f],
                               lang_name[lang], (int)len, at);
            const char *vw = f == 0 ? title_verdict(s, lang) : NULL;
            if (vw && !at)
                lesson_problem(P, 0, NULL,
                               LP_TITLE_STATES_WHAT_THE_STEP_S_QUIZ, si, lang_name[lang], s,
                               vw);
        }
}

int lesson_check_text(const struct lesson *l,
                      void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    if (!l)
        return 0;
    struct lesson_problems P = {l->path, report, ctx, 0, NULL, 0};
    /* widths need a UTF-8 locale (a Chinese character is 2 columns): without one, no wrap check */
    const char *wide = bl_lex(BL_LEX_WIDE_CHARACTER, BL_LANG_ZH)[0];
    int wrap = bl_width_n(wide, strlen(wide)) == 2;
    char path[64];
    for (int i = 0; i < l->nsteps; i++) {
        const struct lesson_step *st = &l->steps[i];
        check_answer_before(&P, i, st);
        for (int lang = 0; wrap && lang < 2; lang++) {
            snprintf(path, sizeof path, "steps[%d].text", i);
            check_wrap(&P, path, lang, lesson_tr(&st->text, (enum lesson_lang)lang), WRAP_TEXT);
            if (st->key.en) {
                snprintf(path, sizeof path, "steps[%d].key", i);
                check_wrap(&P, path, lang, lesson_tr(&st->key, (enum lesson_lang)lang), WRAP_KEY);
            }
            for (int h = 0; h < st->nhints; h++) {
                snprintf(path, sizeof path, "steps[%d].hints[%d]", i, h);
                check_wrap(&P, path, lang, lesson_tr(&st->hints[h], (enum lesson_lang)lang),
                           WRAP_HINT);
            }
            if (st->quiz) {
                const struct lesson_quiz *q = st->quiz;
                snprintf(path, sizeof path, "steps[%d].quiz.question", i);
                check_wrap(&P, path, lang, lesson_tr(&q->question, (enum lesson_lang)lang),
                           WRAP_QUESTION);
                for (int c = 0; c < q->nchoices; c++) {
                    snprintf(path, sizeof path, "steps[%d].quiz.choices[%d]", i, c);
                    check_wrap(&P, path, lang, lesson_tr(&q->choices[c], (enum lesson_lang)lang),
                               WRAP_CHOICE);
                }
                snprintf(path, sizeof path, "steps[%d].quiz.explanation", i);
                check_wrap(&P, path, lang, lesson_tr(&q->explanation, (enum lesson_lang)lang),
                           WRAP_QUESTION);
            }
            if (st->task) {
                snprintf(path, sizeof path, "steps[%d].task.goal", i);
                check_wrap(&P, path, lang, lesson_tr(&st->task->goal, (enum lesson_lang)lang),
                           WRAP_GOAL);
            }
        }
    }
    lesson_problems_end(&P);
    return P.n;
}
