/* lesson_read_figure.c: a step's quoted figures (docs/lessons.md, "Quoted figures") read from
 * their JSON (lesson_read.h): each must be quoted by the step's texts in both languages, and
 * the words around its quotes say what the sentence claims of it ("within 11 %": at most;
 * "more than 3 times": at least), the same in zh and en, so that `banklab check --recording`
 * checks the comparison the sentence makes and not only the quote's rounding. Never prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_read.h"
#include "../base/lexicon.h"

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* ---------------------------------------------------------------- quoted figures */

static const char *const figure_keys[] = {"group", "label", "field", "value", "over", "percent",
                                          NULL};

/* 1 when name is a word of LESSON_FIGURE_FIELDS. */
static int figure_field_known(const char *name)
{
    static const char all[] = LESSON_FIGURE_FIELDS;
    size_t n = strlen(name);
    for (const char *at = strstr(all, name); n && at; at = strstr(at + 1, name))
        if ((at == all || at[-1] == ' ') && (at[n] == ' ' || at[n] == 0))
            return 1;
    return 0;
}

static int read_figure(struct ld *L, const cJSON *j, const char *path, struct lesson_figure *f)
{
    char p[PATH_BUF];
    if (lr_expect_object(L, j, path))
        return -1;
    int bad = lr_check_keys(L, j, path, figure_keys);
    const char *group = NULL, *label = NULL, *field = NULL, *over = NULL;
    if (lr_get_string(L, j, "group", path, 1, &group))
        bad++;
    else
        f->group = lr_dupstr(L, group);
    if (lr_get_string(L, j, "label", path, 1, &label))
        bad++;
    else
        f->label = lr_dupstr(L, label);
    if (lr_get_string(L, j, "field", path, 1, &field)) {
        bad++;
    } else if (!figure_field_known(field)) {
        lesson_problem(&L->P, 0, lr_sub(p, path, "field"), LP_EXPECTED_ONE_OF, field,
                       LESSON_FIGURE_FIELDS);
        bad++;
    } else {
        f->field = lr_dupstr(L, field);
    }
    int rc = lr_get_string(L, j, "over", path, 0, &over);
    if (rc < 0)
        bad++;
    else if (rc == 0)
        f->over = lr_dupstr(L, over);
    rc = lr_get_bool(L, j, "percent", path, &f->percent);
    if (rc < 0) {
        bad++;
    } else if (f->percent && !over) {
        lesson_problem(&L->P, 0, lr_sub(p, path, "percent"), LP_A_PERCENTAGE_NEEDS_OVER_THE_LABEL);
        bad++;
    }
    const cJSON *vj = lr_field(j, "value", path, p);
    if (!vj) {
        lr_missing(L, path, "value");
        bad++;
    } else if (!cJSON_IsNumber(vj) || !isfinite(vj->valuedouble)) {
        lesson_problem(&L->P, 0, p, LP_EXPECTED_A_NUMBER_FOUND, json_type_name(vj));
        bad++;
    } else {
        const char *lit = vj->valuestring;
        if (strpbrk(lit, "eE") || strlen(lit) >= sizeof f->text) {
            lesson_problem(&L->P, 0, p, LP_WRITE_THE_FIGURE_AS_THE_TEXT_QUOTE, lit, (int)sizeof f->text - 1);
            bad++;
        } else {
            snprintf(f->text, sizeof f->text, "%.*s", (int)sizeof f->text - 1,
                     lit); /* fits: checked above */
            f->value = vj->valuedouble;
            const char *dot = strchr(lit, '.');
            f->decimals = dot ? (int)strlen(dot + 1) : 0;
        }
    }
    return bad ? -1 : 0;
}

/* What one language's texts of a step say around the quotes of one figure. */
struct quote_scan {
    const char *q;               /* the quote, without its sign */
    int found;                   /* quoted at least once as a whole number */
    int bounds;                  /* LESSON_FIG_AT_MOST | LESSON_FIG_AT_LEAST of any quote */
    int ratio;                   /* some quote reads "N times", "N×" (or its Chinese word) */
    int percent;                 /* some quote reads "N %" */
    int up, down;                /* a percentage's quote reads "above" or "below" (lexicon) */
    int faster, slower;          /* ... "faster" or "slower" */
};

/* The words that make a quote right after them a bound: the lexicon's AT_MOST_BEFORE
 * ("within 11 %" is at most 11 %) and AT_LEAST_BEFORE ("more than 3 times"). */

static int is_ascii_letter(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* 1 when the text s ends, at e and before the spaces there, with word w (ASCII compared
 * without case, as a whole word). */
static int word_before(const char *s, const char *e, const char *w)
{
    while (e > s && e[-1] == ' ')
        e--;
    size_t n = strlen(w);
    if ((size_t)(e - s) < n)
        return 0;
    const char *b = e - n;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)b[i]) != lower((unsigned char)w[i]))
            return 0;
    return !(is_ascii_letter((unsigned char)w[0]) && b > s &&
             is_ascii_letter((unsigned char)b[-1]));
}

static const char *skip_spaces(const char *e)
{
    while (*e == ' ')
        e++;
    return e;
}

/* Where a bound word would end before the quote at: at itself, or before one word of
 * Chinese comparison between them (the lexicon's COMPARISON_BETWEEN: "at least faster 2.2
 * times" in Chinese word order; "less than half" written in words is not a quote). */
static const char *bound_end(const char *s, const char *at, int gap)
{
    if (!gap)
        return at;
    while (at > s && at[-1] == ' ')
        at--;
    size_t n = bl_lex_suffix(BL_LEX_COMPARISON_BETWEEN, s, at);
    return n ? at - n : NULL;
}

/* 1 when e starts with ASCII word w, as a whole word. */
static int word_after(const char *e, const char *w)
{
    size_t n = strlen(w);
    return !strncmp(e, w, n) && !is_ascii_letter((unsigned char)e[n]);
}

/* The direction of a percentage: "0.2 % below", "8 % less", "19 % faster", or in Chinese
 * the word before it, after an optional perfective particle (the lexicon's PERCENT_UP,
 * PERCENT_DOWN, PERCENT_FASTER, PERCENT_SLOWER, PERFECTIVE; e: after the %, at: the quote). */
static void percent_words(const char *s, const char *at, const char *e, struct quote_scan *k)
{
    const char *b = at;
    while (b > s && b[-1] == ' ')
        b--;
    b -= bl_lex_suffix(BL_LEX_PERFECTIVE, s, b);
    struct {
        enum bl_lex list;
        int *flag;
    } tab[] = {{BL_LEX_PERCENT_UP, &k->up}, {BL_LEX_PERCENT_DOWN, &k->down},
               {BL_LEX_PERCENT_FASTER, &k->faster}, {BL_LEX_PERCENT_SLOWER, &k->slower}};
    for (size_t t = 0; t < sizeof tab / sizeof *tab; t++)
        for (int l = 0; l < 2; l++)
            for (const char *const *w = bl_lex(tab[t].list, (enum bl_lang)l); *w; w++) {
                size_t n = strlen(*w);
                int ascii = is_ascii_letter((unsigned char)(*w)[0]);
                if (ascii ? word_after(e, *w) : (size_t)(b - s) >= n && !strncmp(b - n, *w, n))
                    *tab[t].flag = 1;
            }
}

/* What the words around one quote (at, n bytes, in s) claim. */
static void scan_quote(const char *s, const char *at, size_t n, struct quote_scan *k)
{
    for (int gap = 0; gap < 2; gap++) {
        const char *b = bound_end(s, at, gap);
        for (int l = 0; b && l < 2; l++) {
            for (const char *const *w = bl_lex(BL_LEX_AT_MOST_BEFORE, (enum bl_lang)l); *w; w++)
                if (word_before(s, b, *w))
                    k->bounds |= LESSON_FIG_AT_MOST;
            for (const char *const *w = bl_lex(BL_LEX_AT_LEAST_BEFORE, (enum bl_lang)l); *w; w++)
                if (word_before(s, b, *w))
                    k->bounds |= LESSON_FIG_AT_LEAST;
        }
    }
    const char *e = skip_spaces(at + n);
    size_t sign = bl_lex_prefix(BL_LEX_PERCENT_SIGN, e);   /* % or the full-width one */
    if (sign) {
        k->percent = 1;
        e = skip_spaces(e + sign);
        percent_words(s, at, e, k);
    }
    /* a ratio: "3.4 times" (or its Chinese word, RATIO_AFTER), "31.9×" or "31.9x" (not
     * "32 × 32") */
    size_t len = bl_lex_prefix(BL_LEX_RATIO_AFTER, e), xl = strlen("×");
    if (!len && !strncmp(e, "×", xl) && !is_digit((unsigned char)*skip_spaces(e + xl)))
        len = xl;
    else if (!len && !strncmp(e, "times", 5) && !is_ascii_letter((unsigned char)e[5]))
        len = 5;
    else if (!len && at + n == e && *e == 'x' && !is_ascii_letter((unsigned char)e[1]) &&
             !is_digit((unsigned char)e[1]))
        len = 1;
    if (len) {
        k->ratio = 1;
        e = skip_spaces(e + len);
    }
    if (bl_lex_prefix(BL_LEX_AT_MOST_AFTER, e))
        k->bounds |= LESSON_FIG_AT_MOST;
    else if (bl_lex_prefix(BL_LEX_AT_LEAST_AFTER, e))
        k->bounds |= LESSON_FIG_AT_LEAST;
}

/* Every quote of k->q in s as a whole number: not inside a longer one ("3495" is not quoted
 * by "13495" or "3495.5"). */
static void scan_text(const char *s, struct quote_scan *k)
{
    size_t n = strlen(k->q);
    for (const char *at = s && n ? strstr(s, k->q) : NULL; at; at = strstr(at + 1, k->q)) {
        const char *e = at + n;
        int joined_before = at > s && (is_digit((unsigned char)at[-1]) || at[-1] == '.');
        int joined_after = is_digit((unsigned char)*e) ||
                           (*e == '.' && is_digit((unsigned char)e[1]));
        if (joined_before || joined_after)
            continue;
        k->found = 1;
        scan_quote(s, at, n, k);
    }
}

/* Every text of the step in language lang, scanned for the quotes of k->q. */
static void scan_step(const struct lesson_step *st, enum lesson_lang lang, struct quote_scan *k)
{
    const struct lesson_text *t[] = {&st->title, &st->text, &st->key,
                                     st->quiz ? &st->quiz->question : NULL,
                                     st->quiz ? &st->quiz->explanation : NULL,
                                     st->task ? &st->task->goal : NULL};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (t[i])
            scan_text(lang == LANG_ZH ? t[i]->zh : t[i]->en, k);
    for (int i = 0; i < st->nhints; i++)
        scan_text(lang == LANG_ZH ? st->hints[i].zh : st->hints[i].en, k);
    for (int i = 0; st->quiz && i < st->quiz->nchoices; i++)
        scan_text(lang == LANG_ZH ? st->quiz->choices[i].zh : st->quiz->choices[i].en, k);
}

/* b named, with the first words of its lists in the lexicon: "at most ("within", "less
 * than", and the first Chinese one, ...)" (buf: room for it) */
static const char *bound_words(int b, char *buf, size_t size)
{
    const char *const *en = bl_lex(BL_LEX_AT_MOST_BEFORE, BL_LANG_EN);
    const char *const *zh = bl_lex(BL_LEX_AT_MOST_BEFORE, BL_LANG_ZH);
    if (b == LESSON_FIG_AT_MOST)
        snprintf(buf, size, "at most (\"%s\", \"%s\", \"%s\", ...)", en[0], en[1], zh[0]);
    else if (b == LESSON_FIG_AT_LEAST)
        snprintf(buf, size, "at least (\"%s\", \"%s\", ...)",
                 bl_lex(BL_LEX_AT_LEAST_BEFORE, BL_LANG_EN)[0],
                 bl_lex(BL_LEX_AT_LEAST_BEFORE, BL_LANG_ZH)[0]);
    else
        snprintf(buf, size, "%s",
                 b ? "both at most and at least" : "no bound (the value rounds to it)");
    return buf;
}

/* The quotes of figure f (entry d, at path p2) in both languages: present, claiming the same
 * bound, a ratio only where the figure is one, a percentage written with %. Returns 0, or -1
 * after reporting. */
static int read_quotes(struct ld *L, const cJSON *d, const char *p2, const struct lesson_step *st,
                       struct lesson_figure *f)
{
    char p3[PATH_BUF];
    lr_sub(p3, p2, "value");
    struct quote_scan k[2];
    int rc = 0;
    for (int lang = LANG_ZH; lang <= LANG_EN; lang++) {
        memset(&k[lang], 0, sizeof k[lang]);
        k[lang].q = f->text[0] == '-' ? f->text + 1 : f->text;
        scan_step(st, (enum lesson_lang)lang, &k[lang]);
        const char *lc = lesson_lang_code((enum lesson_lang)lang);
        if (!k[lang].found) {
            lesson_problem(&L->P, 0, p3, LP_NO_TEXT_OF_THIS_STEP_QUOTES_A_FIGU, lc, k[lang].q);
            return -1;   /* the first language that lacks it is enough to say */
        }
        if (k[lang].ratio && !f->over) {
            lesson_problem(&L->P, 0, p3, LP_THE_TEXT_QUOTES_AS_A_RATIO_TIMES_B, lc, k[lang].q);
            rc = -1;
        }
        if (f->percent && !k[lang].percent) {
            lesson_problem(&L->P, 0, p3, LP_A_PERCENTAGE_BUT_NO_TEXT_QUOTES_IT, lc,
                           k[lang].q);
            rc = -1;
        }
        /* a rate (GB/s, bytes per clock) is faster when higher; a time when lower */
        int rate = f->field && (!strcmp(f->field, "gbps") ||
                                !strcmp(f->field, "bytes_per_clk_per_sm"));
        int up = k[lang].up || (rate ? k[lang].faster : k[lang].slower);
        int down = k[lang].down || (rate ? k[lang].slower : k[lang].faster);
        if (f->percent && ((up && f->value < 0) || (down && f->value > 0))) {
            lesson_problem(&L->P, 0, p3, LP_THE_TEXT_READS_AS_BUT_THE_FIGURE_I,
                           lc, k[lang].q,
                           up ? "above (higher, more, faster)" : "below (lower, less, slower)",
                           f->value < 0 ? "below" : "above", f->text);
            rc = -1;
        }
        if (k[lang].bounds == (LESSON_FIG_AT_MOST | LESSON_FIG_AT_LEAST)) {
            lesson_problem(&L->P, 0, p3, LP_THE_TEXT_QUOTES_BOTH_AS_AN_UPPER_A, lc, k[lang].q);
            rc = -1;
        }
    }
    if (rc == 0 && k[LANG_ZH].bounds != k[LANG_EN].bounds) {
        char bz[128], be[128];
        lesson_problem(&L->P, 0, p3, LP_THE_ZH_TEXT_CLAIMS_OF_THE_EN_TEXT,
                       bound_words(k[LANG_ZH].bounds, bz, sizeof bz), k[LANG_ZH].q,
                       bound_words(k[LANG_EN].bounds, be, sizeof be));
        rc = -1;
    }
    f->bound = k[LANG_EN].bounds;
    return rc;
}

int lr_read_figures(struct ld *L, const cJSON *gj, const char *path, struct lesson_step *st)
{
    char p[PATH_BUF], p2[PATH_BUF];
    lr_sub(p, path, "figures");
    int n = cJSON_GetArraySize(gj), bad = 0;
    if (!cJSON_IsArray(gj)) {
        lesson_problem(&L->P, 0, p, LP_EXPECTED_AN_ARRAY_OF_FIGURES_FOUND, json_type_name(gj));
        return -1;
    }
    if (n == 0)
        return 0;
    if (!(st->figures = lr_calloc(L, n, sizeof *st->figures)))
        return -1;
    int k = 0;
    for (const cJSON *d = gj->child; d; d = d->next, k++) {
        struct lesson_figure *f = &st->figures[st->nfigures];
        int rc = read_figure(L, d, lr_subi(p2, p, k), f);
        if (rc == 0)
            rc = read_quotes(L, d, p2, st, f);
        if (rc) {
            bad++;
            lesson_figure_free(f);
        } else {
            st->nfigures++;
        }
    }
    return bad ? -1 : 0;
}
