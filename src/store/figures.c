/* figures.c: lessons' quoted figures checked against a recording (recording.h,
 * recording_check_figures): every row a figure names must give the quoted value at its
 * precision; so must the record the tutorial's replay answers with for the same measurement
 * (what the panel beside the text shows), written as the panel writes it; and a figure its
 * sentence quotes as a bound ("within 11 %") must keep to the bound. Never prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recording.h"

/* ---- quoted figures of lessons against a recording ---- */

/* How the tutorial's measured line writes field of a result (src/ui/grid.c, the strings of
 * src/ui/strings.def): its decimals, or -1 where no panel shows the field. A case kernel's
 * counters are the whole kernel's, with two decimals; a pattern's, one warp's, with one. */
static int panel_decimals(const char *field, int is_case)
{
    const struct recording_field *f = recording_field(field);
    return !f ? -1 : is_case ? f->panel_case : f->panel_pattern;
}

/* 1 when q names a measurement replay can look up (a case kernel, or a warp access). */
static int replayable(const struct gpu_request *q)
{
    return q->kind == GPU_REQ_CASE ? q->case_name[0] != '\0' : q->access.mask != 0;
}

static int same_setting(const struct gpu_request *a, const struct gpu_request *b)
{
    long long va[GPU_CASE_MAX_PARAMS], vb[GPU_CASE_MAX_PARAMS];
    if (strcmp(a->case_name, b->case_name))
        return 0;
    int n = gpu_case_values(a, va);
    return n >= 0 && gpu_case_values(b, vb) == n && !memcmp(va, vb, (size_t)n * sizeof *va);
}

/* The row whose field the tutorial's replay shows for request q (gpu/common.c: the first
 * record of that kernel setting, the access timing from the first record of the drawn
 * access), for naming it; NULL when none is found. */
static const struct recording_row *panel_row(const struct recording *r,
                                             const struct gpu_request *q, const char *field)
{
    int access = !strcmp(field, "clk_per_access") || !strcmp(field, "ns_per_access") ||
                 !strcmp(field, "slowdown");
    for (int i = 0; i < r->nrows; i++) {
        const struct gpu_request *w = &r->rows[i].rec.req;
        int match = q->kind == GPU_REQ_CASE && !access
                        ? w->kind == GPU_REQ_CASE && same_setting(w, q)
                        : w->kind == GPU_REQ_PATTERN && q->access.mask &&
                              gpu_same_access(&w->access, &q->access);
        if (match && !isnan(recording_value(&r->rows[i].rec.res, field)))
            return &r->rows[i];
    }
    return NULL;
}

/* The figure of rows a and b (b: f->over's row) from results x and y. */
static double figure_of(const struct lesson_figure *f, double x, double y)
{
    if (!f->over)
        return x;
    if (isnan(y) || y == 0)
        return NAN;
    return f->percent ? 100.0 * (x / y - 1.0) : x / y;
}

/* "transpose "padded" gbps over "copy", as a percentage above" */
static void figure_how(const struct lesson_figure *f, char *how, size_t size)
{
    if (f->over)
        snprintf(how, size, "%s \"%s\" %s over \"%s\"%s", f->group, f->label, f->field, f->over,
                 f->percent ? ", as a percentage above" : "");
    else
        snprintf(how, size, "%s \"%s\" %s", f->group, f->label, f->field);
}

/* The claim of f's sentence against x: a bound ("within 11 %") keeps to it. Returns the
 * number of problems (0 or 1). */
static int check_bound(struct lesson_problems *P, int si, int fi, const struct lesson_figure *f,
                       double x, const char *whose)
{
    double lim = fabs(f->value);
    int ok = f->bound == LESSON_FIG_AT_MOST    ? fabs(x) <= lim
             : f->bound == LESSON_FIG_AT_LEAST ? fabs(x) >= lim
                                               : 1;
    if (ok)
        return 0;
    char how[200];
    figure_how(f, how, sizeof how);
    lesson_problem(P, 0, NULL,
                   LP_FIGURES_THE_TEXT_SAYS_BUT_GIVES, si, fi,
                   f->bound == LESSON_FIG_AT_MOST ? "at most" : "at least",
                   f->text[0] == '-' ? f->text + 1 : f->text, whose, f->decimals + 2, x, how);
    return 1;
}

/* The figure as the tutorial replays it: the record its panel shows for the same measurement
 * must give the quote too, written as the panel writes it. Returns the number of problems. */
static int check_panel(struct lesson_problems *P, int si, int fi, const struct lesson_figure *f,
                       const struct recording *r, struct gpu *replay,
                       const struct recording_row *ra, const struct recording_row *rb)
{
    struct gpu_result res;
    if (!replay || !replayable(&ra->rec.req) || (rb && !replayable(&rb->rec.req)))
        return 0;
    gpu_run(replay, &ra->rec.req, &res, 1000);
    double x = recording_value(&res, f->field), y = NAN;
    if (rb) {
        gpu_run(replay, &rb->rec.req, &res, 1000);
        y = recording_value(&res, f->field);
    }
    x = figure_of(f, x, y);
    if (isnan(x))
        return 0;   /* replay has none: the row's own check said what there is to say */
    const struct recording_row *pa = panel_row(r, &ra->rec.req, f->field);
    char from[200], how[200], shown[64];
    figure_how(f, how, sizeof how);
    snprintf(from, sizeof from, "%s \"%s\"", pa ? pa->group : "?", pa ? pa->label : "?");
    int d = f->over ? -1 : panel_decimals(f->field, ra->rec.req.kind == GPU_REQ_CASE);
    if (d >= 0) {
        /* as the panel writes it, or with its trailing zeros left off ("32" for "32.0") */
        snprintf(shown, sizeof shown, "%.*f", d, fabs(x));
        char bare[64];
        snprintf(bare, sizeof bare, "%s", shown);
        char *z = bare + strlen(bare);
        while (d > 0 && z > bare && z[-1] == '0')
            *--z = '\0';
        if (z > bare && z[-1] == '.')
            *--z = '\0';
        const char *q = f->text[0] == '-' ? f->text + 1 : f->text;
        if (strcmp(q, shown) && strcmp(q, bare)) {
            lesson_problem(P, 0, NULL,
                           LP_FIGURES_THE_TUTORIAL_S_PANEL_SHOWS, si, fi, shown, d,
                           d == 1 ? "" : "s", from, how, f->text);
            return 1;
        }
    } else if (fabs(x - f->value) > 0.5 * pow(10.0, -f->decimals) * (1 + 1e-9)) {
        lesson_problem(P, 0, NULL,
                       LP_FIGURES_THE_TUTORIAL_S_REPLAY_GIVE, si, fi, f->decimals, x, from, how, f->text);
        return 1;
    }
    return check_bound(P, si, fi, f, x, "the tutorial's replay");
}

/* Checks figure f against every pair of rows it names, and against what the tutorial
 * replays for them. Returns the number of problems. */
static int check_figure(struct lesson_problems *P, int si, int fi, const struct lesson_figure *f,
                        const struct recording *r, struct gpu *replay)
{
    int na = 0, nb = 0, problems = 0;
    for (int a = 0; a < r->nrows; a++) {
        const struct recording_row *ra = &r->rows[a], *rb = NULL;
        if (strcmp(ra->group, f->group) || strcmp(ra->label, f->label))
            continue;
        na++;
        double x = recording_value(&ra->rec.res, f->field);
        if (isnan(x)) {
            lesson_problem(P, 0, NULL,
                           LP_FIGURES_HAS_NO_IN_THE_RECORDING_NO, si, fi, f->group, f->label, f->field);
            problems++;
            continue;
        }
        for (int b = 0; f->over && b < r->nrows; b++) {
            if (strcmp(r->rows[b].group, f->group) || strcmp(r->rows[b].label, f->over))
                continue;
            rb = &r->rows[b];
            nb++;
            double y = recording_value(&rb->rec.res, f->field);
            if (isnan(y) || y == 0) {
                lesson_problem(P, 0, NULL,
                               LP_FIGURES_HAS_NO_TO_DIVIDE_BY_IN_THE, si, fi, f->group, f->over, f->field);
                problems++;
                x = NAN;
                break;
            }
            x = figure_of(f, x, y);
            break;   /* the first row with that label */
        }
        if (isnan(x) || (f->over && nb == 0))
            continue;
        double half = 0.5 * pow(10.0, -f->decimals);
        if (fabs(x - f->value) > half * (1 + 1e-9)) {
            char how[200];
            figure_how(f, how, sizeof how);
            lesson_problem(P, 0, NULL,
                           LP_FIGURES_THE_RECORDING_GIVES_THE_LE, si, fi, f->decimals, x, how, f->text);
            problems++;
            continue;
        }
        int n = check_bound(P, si, fi, f, x, "the recording");
        problems += n;
        if (!n)
            problems += check_panel(P, si, fi, f, r, replay, ra, rb);
    }
    if (na == 0) {
        lesson_problem(P, 0, NULL, LP_FIGURES_NO_ROW_IN_THE_RECORDING, si, fi, f->group, f->label);
        problems++;
    } else if (f->over && nb == 0 && problems == 0) {
        lesson_problem(P, 0, NULL, LP_FIGURES_NO_ROW_IN_THE_RECORDING, si, fi, f->group, f->over);
        problems++;
    }
    return problems;
}

int recording_check_figures(const struct recording *r, const struct lesson *l,
                            void (*report)(const struct lesson_error *e, void *ctx), void *ctx)
{
    if (!l || !r)
        return 0;
    struct lesson_problems P = {l->path, report, ctx, 0, NULL, 0};
    int any = 0;
    for (int i = 0; i < l->nsteps; i++)
        any += l->steps[i].nfigures;
    struct gpu_info info;
    struct gpu *replay = any ? recording_open_replay(r, &info) : NULL;
    for (int i = 0; i < l->nsteps; i++)
        for (int k = 0; k < l->steps[i].nfigures; k++)
            check_figure(&P, i, k, &l->steps[i].figures[k], r, replay);
    gpu_close(replay);
    return P.n;
}
