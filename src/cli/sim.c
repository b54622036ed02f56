/* sim.c: `banklab sim`: one warp access (a pattern, or raw per-lane offsets) through the bank
 * model; prints the bank grid and a summary as text, or one JSON object (--json), or an SVG.
 * Uses the model (bank, pattern) and src/render (text grid, svg); with --gpu (measured
 * now) or --replay FILE (a recording) also the measurement of that access through gpu.h,
 * printed by measured.c. Its options and --help are sim_args.c (sim.h). No curses; JSON
 * through src/store/json_write.h. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../lesson/scene.h"
#include "../model/bank.h"
#include "../model/pattern.h"
#include "../render/grid_text.h"
#include "../render/svg.h"
#include "../store/files.h"
#include "../store/recording.h"
#include "cli.h"
#include "measured.h"
#include "sim.h"
#include "../sys/sys.h"

/* ---- JSON (src/store/json_write.h) ---- */

static void json_lane_list(struct jw *w, const char *key, uint32_t lanes)
{
    jw_arr(w, key);
    for (int n = 0; n < BANK_LANES; n++)
        if (lanes >> n & 1u)
            jw_int(w, NULL, n);
    jw_end(w);
}

/* The counts of a bank_result, each under its member's name. */
#define RESULT_COUNT(member) JW_FIELD(#member, struct bank_result, member)
static const struct jw_field result_counts[] = {
    RESULT_COUNT(wavefronts), RESULT_COUNT(passes), RESULT_COUNT(conflicts), RESULT_COUNT(ways),
    JW_FLAG("paired", struct bank_result, paired), RESULT_COUNT(npasses)};
#undef RESULT_COUNT

/* The fields of one access result, members of w's open object (the top level or an access). */
static void json_result_fields(struct jw *w, const struct bank_result *r,
                               const struct bank_access *acc)
{
    char mask[16], name[32];
    snprintf(mask, sizeof mask, "%08" PRIx32, acc->mask);
    jw_str(w, "op", acc->op == BANK_STORE ? "store" : "load");
    jw_int(w, "width", acc->width);
    jw_str(w, "mask", mask);
    if (acc->instr != BANK_PLAIN)
        jw_str(w, "instruction", bank_instr_name(acc->instr, acc->matrices, acc->trans,
                                                 acc->width, name, sizeof name));
    JW_FIELDS(w, r, result_counts);
    json_lane_list(w, "conflict_lanes", r->conflict_lanes);
    jw_arr(w, "lanes");
    for (int n = 0; n < BANK_LANES; n++) {
        const struct bank_lane *l = &r->lane[n];
        int nw = l->nwords > 0 && l->nwords <= BANK_MAX_LANE_WORDS ? l->nwords : 1;
        jw_obj(w, NULL);
        jw_int(w, "lane", n);
        jw_bool(w, "active", l->active);
        jw_int(w, "offset", (long long)l->offset);
        jw_arr(w, "banks");
        for (int k = 0; k < nw; k++)
            jw_int(w, NULL, l->bank[k]);
        jw_end(w);
        jw_arr(w, "words");
        for (int k = 0; k < nw; k++)
            jw_int(w, NULL, (long long)l->word[k]);
        jw_end(w);
        jw_int(w, "pass", l->pass);
        jw_bool(w, "conflict", l->conflict);
        jw_end(w);
    }
    jw_end(w);
    jw_arr(w, "pass_detail");
    for (int p = 0; p < r->npasses && p < BANK_MAX_PASSES; p++) {
        const struct bank_pass *ps = &r->pass[p];
        jw_obj(w, NULL);
        jw_int(w, "pass", p);
        json_lane_list(w, "lanes", ps->lanes);
        jw_int(w, "cost", ps->cost);
        jw_int(w, "worst_bank", ps->worst_bank);
        jw_arr(w, "banks");
        for (int b = 0; b < BANK_COUNT; b++) {
            const struct bank_cell *c = &ps->cell[b];
            jw_obj(w, NULL);
            jw_int(w, "bank", b);
            jw_arr(w, "words");
            for (int k = 0; k < c->nwords && k < BANK_MAX_CELL_WORDS; k++) {
                jw_obj(w, NULL);
                jw_int(w, "word", (long long)c->word[k]);
                json_lane_list(w, "lanes", c->lanes[k]);
                jw_end(w);
            }
            jw_end(w);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
}

/* ---- one evaluated access ---- */

struct sim_one {
    struct bank_access acc;
    struct bank_result res;
    const struct pattern_access_info *info;  /* NULL for the raw form */
    int index;                               /* 1-based */
};

/* The message, then the line of the pattern holding the error with a caret under it (a
 * pattern given on several lines shows only the line that matters). */
static void print_pattern_error(const char *text, const struct bl_err *err)
{
    static char line[4096], caret[3 * 4096];
    fprintf(stderr, "banklab sim: %s\n", CLI_CLEAN(CLI_ERR(err)));
    size_t len = text ? strlen(text) : 0;
    if (err->where.at <= 0 || (size_t)err->where.at > len + 1)
        return;
    size_t at = (size_t)err->where.at - 1, start = at, end = at;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    while (end < len && text[end] != '\n')
        end++;
    if (end - start >= sizeof line)
        return;
    memcpy(line, text + start, end - start);
    line[end - start] = 0;
    bl_mask(line, end - start);  /* controls, C1, bidi, bad bytes: '?' a byte, caret in place */
    struct bl_err e = *err;
    e.where.at = (int)(at - start) + 1;
    if (e.where.len < 1)
        e.where.len = 1;
    fputs(pattern_error_caret(line, &e, caret, sizeof caret), stderr);
}

/* The text of an access statement, for headings. */
static void access_text(const char *pattern, const struct pattern_access_info *info, char *buf,
                        size_t size)
{
    size_t len = strlen(pattern);
    buf[0] = 0;
    if (!info || info->col < 1 || (size_t)info->col > len || info->len < 1)
        return;
    size_t start = (size_t)info->col - 1, n = (size_t)info->len;
    if (n > len - start)
        n = len - start;
    if (n >= size)
        n = size - 1;
    memcpy(buf, pattern + start, n);
    buf[n] = 0;
}

static int term_columns(void)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

static void print_pattern_head(FILE *f, const struct sim_args *a,
                               const struct pattern_layout *lay)
{
    char buf[4096];
    cli_say(f, SIM_PATTERN);
    cli_put_clean(f, a->pattern, 1);
    fputc('\n', f);
    if (a->env.nparams > 0 && pattern_substitute(a->pattern, &a->env, buf, sizeof buf) >= 0 &&
        strcmp(buf, a->pattern)) {
        cli_say(f, SIM_WITH);
        for (int i = 0; i < a->env.nparams; i++)
            fprintf(f, "%s %s=%lld", i ? "," : "", a->env.param[i].name, a->env.param[i].value);
        cli_say(f, SIM_WITH_END);
        cli_put_clean(f, buf, 1);
        fputc('\n', f);
    }
    unsigned t0 = a->env.warp * 32;
    cli_say(f, SIM_BLOCK, a->env.block[0], a->env.block[1], a->env.block[2], a->env.warp, t0,
            t0 + 31);
    if (a->env.dyn_bytes)
        cli_say(f, SIM_DYNAMIC, (unsigned long long)a->env.dyn_bytes);
    fputc('\n', f);
    for (int i = 0; i < lay->narrays; i++) {
        const struct pattern_array_info *ai = &lay->array[i];
        cli_say(f, SIM_ARRAY, ai->name, ai->type);
        if (ai->ndims > 0)
            for (int d = 0; d < ai->ndims && d < 3; d++)
                fprintf(f, "[%lld]", ai->dims[d]);
        else
            fputs(ai->dynamic ? cli_msg(SIM_DYNAMIC_ARRAY) : "", f);
        cli_say(f, SIM_ELEM, ai->elem_size, (unsigned long long)ai->base);
        if (ai->bytes)
            cli_say(f, SIM_BYTES, (unsigned long long)ai->bytes);
        fputc('\n', f);
    }
}

static void json_pattern_fields(struct jw *w, const struct sim_args *a,
                                const struct pattern_layout *lay)
{
    jw_str(w, "pattern", a->pattern);
    jw_obj(w, "params");
    for (int i = 0; i < a->env.nparams; i++)
        jw_int(w, a->env.param[i].name, a->env.param[i].value);
    jw_end(w);
    jw_uints(w, "block", a->env.block, 3);
    jw_int(w, "warp", a->env.warp);
    jw_int(w, "dynamic", (long long)a->env.dyn_bytes);
    jw_arr(w, "arrays");
    for (int i = 0; i < lay->narrays; i++) {
        const struct pattern_array_info *ai = &lay->array[i];
        jw_obj(w, NULL);
        jw_strn(w, "name", ai->name, sizeof ai->name);
        jw_strn(w, "type", ai->type, sizeof ai->type);
        jw_int(w, "elem_size", ai->elem_size);
        jw_arr(w, "dims");
        for (int d = 0; d < ai->ndims && d < 3; d++)
            jw_int(w, NULL, ai->dims[d]);
        jw_end(w);
        jw_int(w, "base", (long long)ai->base);
        jw_int(w, "bytes", (long long)ai->bytes);
        jw_bool(w, "dynamic", ai->dynamic);
        jw_end(w);
    }
    jw_end(w);
}

static void json_access_info(struct jw *w, const struct sim_args *a, const struct sim_one *o)
{
    char text[1024];
    access_text(a->pattern, o->info, text, sizeof text);
    jw_obj(w, "access");
    jw_int(w, "index", o->index);
    jw_str(w, "kind", o->info->kind == PATTERN_STORE ? "store" : "load");
    jw_strn(w, "array", o->info->array, sizeof o->info->array);
    jw_strn(w, "type", o->info->type, sizeof o->info->type);
    jw_str(w, "text", text);
    jw_end(w);
}

static int write_svg(const struct sim_args *a, const struct sim_one *o)
{
    char title[1024], sub[512];
    struct svg_options so = {0};
    const char *nc = sys_env("NO_COLOR");
    so.monochrome = a->no_color || (nc && *nc); /* black-and-white handouts */
    if (a->pattern) {
        access_text(a->pattern, o->info, title, sizeof title);
        int k = snprintf(sub, sizeof sub, "block %ux%ux%u, warp %u", a->env.block[0],
                         a->env.block[1], a->env.block[2], a->env.warp);
        for (int i = 0; i < a->env.nparams && k > 0 && (size_t)k < sizeof sub; i++)
            k += snprintf(sub + k, sizeof sub - (size_t)k, ", %s=%lld", a->env.param[i].name,
                          a->env.param[i].value);
        so.title = title[0] ? title : a->pattern;
        so.subtitle = sub;
    } else {
        snprintf(title, sizeof title, "%s of %u bytes per lane, mask %08" PRIx32,
                 o->acc.op == BANK_STORE ? "store" : "load", o->acc.width, o->acc.mask);
        so.title = title;
    }
    struct svg_job job = {&o->res, o->acc.width, o->acc.op, &so};
    struct bl_err err = {0};
    if (files_write_atomic(a->svg, 0644, svg_emit, &job, &err)) {
        fprintf(stderr, "banklab sim: %s\n", CLI_CLEAN(CLI_ERR(&err)));
        return EXIT_USAGE;
    }
    return 0;
}

static int simulate(struct sim_one *o, int *bad_lane)
{
    return (int)bank_simulate(&o->acc, &o->res, bad_lane);
}

#define SIM_GPU_TIMEOUT_MS 120000     /* the runner gives up waiting for its turn after 30 s */

/* The accesses of a.pattern (or only --access N) into one[], *n of them; r holds the parsed
 * pattern (free it); lay the arrays as laid out for the last access evaluated. 0, or
 * EXIT_USAGE after the message. */
static int eval_pattern(const struct sim_args *a, struct sim_one *one, struct scene_run *r, int *n,
                        struct pattern_layout *lay)
{
    struct bl_err err;
    bl_err_clear(&err);
    *n = 0;
    struct scene_in in = {.code = a->pattern, .env = &a->env, .access = -1, .warp = -1,
                          .drop = ~a->mask, .lay = lay};
    if (scene_run(r, &in, NULL, NULL, &err)) {
        print_pattern_error(a->pattern, &err);
        return EXIT_USAGE;
    }
    int count = r->naccess;
    if (a->access > count) {
        cli_tell("sim", count == 1 ? CLI_F_ACCESS_PATTERN_HAS_1 : CLI_F_ACCESS_PATTERN_HAS_N,
                 a->access, count);
        return EXIT_USAGE;
    }
    unsigned threads = a->env.block[0] * a->env.block[1] * a->env.block[2];
    if (a->env.warp * 32 >= threads) {
        cli_tell("sim", threads > 32 ? CLI_F_WARP_BLOCK_HAS_N : CLI_F_WARP_BLOCK_HAS_1,
                 a->env.warp, threads, (threads + 31) / 32);
        return EXIT_USAGE;
    }
    for (int i = 0; i < count && i < PATTERN_MAX_ACCESSES; i++) {
        if (a->access && i + 1 != a->access)
            continue;
        struct sim_one *o = &one[*n];
        in.access = i;
        if (scene_run(r, &in, &o->acc, &o->res, &err)) {
            if (err.status == SCENE_EBANK)
                cli_tell("sim", CLI_F_ACCESS, i + 1, CLI_ERR(&err));
            else
                print_pattern_error(a->pattern, &err);
            return EXIT_USAGE;
        }
        o->info = pattern_access(r->pat, i);
        o->index = i + 1;
        (*n)++;
    }
    return 0;
}

/* The raw form (--offsets) into o. 0, or EXIT_USAGE after the message. */
static int eval_offsets(const struct sim_args *a, struct sim_one *o)
{
    memset(o, 0, sizeof *o);
    o->acc.width = a->width;
    o->acc.op = a->store ? BANK_STORE : BANK_LOAD;
    o->acc.mask = a->mask;
    memcpy(o->acc.offset, a->offset, sizeof a->offset);
    o->index = 1;
    int bad = -1;
    int st = simulate(o, &bad);
    if (st == BANK_EALIGN) {
        return cli_usage_error(&sim_cmd, CLI_E_LANE_OFFSET_ALIGN, bad,
                               (unsigned long long)a->offset[bad >= 0 && bad < 32 ? bad : 0],
                               a->width);
    } else if (st) {
        int id = st == BANK_EWIDTH ? SCENE_BANK_EWIDTH : st == BANK_EMATRIX ? SCENE_BANK_EMATRIX
               : st == BANK_ESYNC ? SCENE_BANK_ESYNC : BL_TEXT;   /* rows of bank_status_str */
        fprintf(stderr, "banklab sim: %s\n", id == BL_TEXT ? bank_status_str((enum bank_status)st)
                                                            : cli_msg(id));
        return EXIT_USAGE;
    }
    return 0;
}

/* What --gpu or --replay found for the accesses. */
struct sim_meas {
    struct gpu_result res[PATTERN_MAX_ACCESSES];
    struct measured_run run[PATTERN_MAX_ACCESSES];
    char source[GPU_TEXT_MAX + 32];
    char said[GPU_TEXT_MAX * 2];  /* source for the text, in its language */
    char lock[GPU_TEXT_MAX];
    struct bl_msg lock_msg;
    int live;                     /* --gpu: measured now (run[] is filled) */
};

/* The GPU runner or the recording, opened once for every pattern of a run. */
struct sim_meter {
    struct gpu *g;
    struct gpu_info info;
    double open_ms;               /* start-up, reported with the first access measured */
};

/* meter_open: open --gpu's device or --replay's recording. 0, or the exit status after one
 * line on stderr. */
static int meter_open(const struct sim_args *a, struct sim_meter *mt)
{
    double t0 = bl_now_ms();
    int rc;
    mt->g = cli_open_gpu("sim", a->replay, a->device, a->server, a->no_server, &mt->info, &rc);
    mt->open_ms = bl_now_ms() - t0;
    return mt->g ? 0 : rc;
}

/* --gpu / --replay: each access through gpu.h (the CUDA runner or the recording), as the
 * tutorial sends it. Returns 0, or EXIT_CHECK when a recording says a run failed. */
static int measure(const struct sim_args *a, struct sim_meter *mt, const struct sim_one *one,
                   int n, struct sim_meas *m)
{
    measured_source(&mt->info, m->source, sizeof m->source);
    measured_source_said(&mt->info, m->said, sizeof m->said);
    snprintf(m->lock, sizeof m->lock, "%s", mt->info.lock);
    m->lock_msg = mt->info.lock_msg;
    m->live = !a->replay;
    int failed = 0;
    for (int i = 0; i < n; i++) {
        struct gpu_request q;
        memset(&q, 0, sizeof q);
        q.id = (uint64_t)i + 1;
        q.kind = GPU_REQ_PATTERN;
        q.access = one[i].acc;
        q.want_timing = q.want_counters = 1;
        double t1 = bl_now_ms();
        enum gpu_status st = gpu_run(mt->g, &q, &m->res[i], SIM_GPU_TIMEOUT_MS);
        m->run[i].request_ms = bl_now_ms() - t1;
        m->run[i].open_ms = mt->open_ms;
        mt->open_ms = 0;
        m->run[i].lock = m->lock;
        m->run[i].lock_msg = &m->lock_msg;
        failed |= st != GPU_OK && st != GPU_ENOTRECORDED && st != GPU_EINVAL;
    }
    return failed && a->replay ? EXIT_CHECK : 0;
}

/* --gpu: 0 when every access has its counters and its time per access; else one line on
 * stderr (how many, and the first reason) and EXIT_UNMEASURED. */
static int measured_status(const struct sim_meas *m, int n)
{
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (!measured_complete(&m->res[i])) {
            bad++;
            first = first < 0 ? i : first;
        }
    if (!bad)
        return 0;
    const struct gpu_result *r = &m->res[first];
    char what[96] = "";
    if (n > 1)
        snprintf(what, sizeof what, cli_msg(CLI_F_N_OF_ACCESSES), bad, n);
    if (r->err.status != GPU_OK)
        cli_tell("sim", CLI_F_MEASURED, what,
                 r->err.msg[0] ? CLI_CLEAN(CLI_ERR(&r->err)) : cli_msg(CLI_F_NO_RESULT));
    else if (!r->has_counters)
        cli_tell("sim", CLI_F_WITHOUT_COUNTERS, what,
                 r->counters_note[0] ? CLI_CLEAN(CLI_NOTE(&r->counters_msg, r->counters_note))
                                     : cli_msg(CLI_F_NOT_READ));
    else
        cli_tell("sim", CLI_F_WITHOUT_TIME_PER_ACCESS, what);
    return EXIT_UNMEASURED;
}

static void write_json(const struct sim_args *a, struct pattern *p,
                       const struct pattern_layout *lay, const struct sim_one *one, int n,
                       const struct sim_meas *m, int line)
{
    struct jw *w = jw_new(0);
    if (line)
        jw_int(w, "line", line);
    if (p)
        json_pattern_fields(w, a, lay);
    if (n > 1)
        jw_arr(w, "accesses");
    for (int i = 0; i < n; i++) {
        if (n > 1)
            jw_obj(w, NULL);
        if (p)
            json_access_info(w, a, &one[i]);
        json_result_fields(w, &one[i].res, &one[i].acc);
        if (m)
            measured_json(w, &m->res[i], &one[i].acc, m->source, m->live ? &m->run[i] : NULL);
        if (n > 1)
            jw_end(w);
    }
    jw_print(w, stdout, 0);   /* main() reports output that could not be written */
    jw_free(w);
}

static void write_text(const struct sim_args *a, struct pattern *p,
                       const struct pattern_layout *lay, const struct sim_one *one, int n,
                       const struct sim_meas *m)
{
    struct grid_text_options go;
    grid_text_options_init(&go);
    go.ascii = a->ascii;
    const char *nc = sys_env("NO_COLOR");
    go.color = !a->no_color && !(nc && *nc) && isatty(STDOUT_FILENO);
    go.cols = a->cols ? a->cols : term_columns();
    go.lanes = a->lanes == 1 ? 1 : n == 1 ? -1 : 0;
    go.zh = cli_lang() == BL_LANG_ZH;
    if (p)
        print_pattern_head(stdout, a, lay);
    for (int i = 0; i < n; i++) {
        if (p) {
            char text[1024];
            access_text(a->pattern, one[i].info, text, sizeof text);
            fputs(i || p ? "\n" : "", stdout);
            cli_say(stdout, SIM_ACCESS, one[i].index, pattern_access_count(p), CLI_CLEAN(text),
                    one[i].info->kind == PATTERN_STORE ? "store" : "load", one[i].info->type);
        }
        grid_text_write(stdout, &one[i].res, one[i].acc.width, one[i].acc.op, one[i].acc.mask,
                        &go);
        if (m)
            measured_text(stdout, &m->res[i], &one[i].acc, m->said,
                          m->live ? &m->run[i] : NULL);
    }
}

/* sim_pattern: one PATTERN (or the raw offsets) through the model and, with mt, measured;
 * printed. line: its line in --script (0 for the command line). Returns the exit status. */
static int sim_pattern(const struct sim_args *a, struct sim_meter *mt, int line)
{
    static struct sim_one one[PATTERN_MAX_ACCESSES];
    static struct pattern_layout lay;  /* as laid out for the last access evaluated */
    static struct sim_meas meas;
    struct scene_run r = {0};
    int n = 1, mrc = 0;
    int rc = a->pattern ? eval_pattern(a, one, &r, &n, &lay) : eval_offsets(a, &one[0]);
    if (!rc && mt && (mrc = measure(a, mt, one, n, &meas)) != 0 && mrc != EXIT_CHECK)
        rc = mrc;
    if (!rc && a->svg) {
        if (n != 1) {
            cli_tell("sim", CLI_F_SVG_DRAWS_ONE_ACCESS_PICK, n);
            rc = EXIT_USAGE;
        } else {
            rc = write_svg(a, &one[0]);
        }
    }
    if (rc) {
        scene_run_free(&r);
        return rc;
    }
    if (a->json)
        write_json(a, r.pat, &lay, one, n, mt ? &meas : NULL, line);
    else
        write_text(a, r.pat, &lay, one, n, mt ? &meas : NULL);
    scene_run_free(&r);
    return a->gpu ? measured_status(&meas, n) : mrc;
}

/* --script FILE: every pattern line through sim_pattern with one meter (lines read with
 * bounds: files_lines). The status of the first line that failed, or 0. */
static int sim_script(struct sim_args *a, struct files_lines *in, struct sim_meter *mt)
{
    static char buf[4096];
    struct bl_err why = {0};
    int line = 0, first = 0, ran = 0, flags, got;
    while ((got = files_lines_next(in, buf, sizeof buf, &flags, &why)) > 0) {
        line++;
        if (flags) {
            if (flags & FILES_LINE_NUL)
                cli_tell("sim", CLI_F_LINE_HOLDS_NUL_BYTE_SKIPPED,
                        CLI_CLEAN(a->script), line);
            else
                cli_tell("sim", CLI_F_LINE_LONGER_THAN_BYTES,
                        CLI_CLEAN(a->script), line, sizeof buf - 2);
            first = first ? first : EXIT_USAGE;
            continue;
        }
        const char *t = buf + strspn(buf, " \t");
        if (!*t || *t == '#')
            continue;
        if (!a->json && ran++)
            fputc('\n', stdout);
        if (!a->json)
            fprintf(stdout, "== %s:%d\n", CLI_CLEAN(a->script), line);
        a->pattern = t;
        int rc = sim_pattern(a, mt, line);
        if (rc && rc != EXIT_CHECK)
            cli_tell("sim", CLI_F_LINE_ABOVE_FAILED_EXIT,
                    CLI_CLEAN(a->script), line, rc);
        first = first ? first : rc;
        fflush(stdout);
    }
    if (got < 0) {
        cli_tell("sim", CLI_PATH_SAYS, CLI_CLEAN(a->script), CLI_CLEAN(CLI_ERR(&why)));
        first = first ? first : EXIT_USAGE;
    }
    return first;
}

int cmd_sim(int argc, char **argv)
{
    static struct sim_args a;         /* large: keep it off the stack */
    int rc = sim_parse_args(argc, argv, &a);
    if (rc < 0)
        return 0;  /* --help */
    if (rc)
        return rc;
    static struct files_lines script;
    struct bl_err why = {0};
    if (a.script && files_lines_open(&script, a.script, 0, &why)) {
        cli_tell("sim", CLI_F_SCRIPT, CLI_CLEAN(a.script), CLI_CLEAN(CLI_ERR(&why)));
        return EXIT_USAGE;
    }
    /* the text without --gpu: the shipped recording's figures where it has the access */
    static char shipped[4096];
    if (!a.gpu && !a.replay && !a.json && !a.model_only && !cli_model_only() &&
        recording_find_asset(RECORDING_SHIPPED, shipped, sizeof shipped))
        a.replay = shipped;       /* said once at the end, with how to have the others */
    struct sim_meter meter, *mt = NULL;
    memset(&meter, 0, sizeof meter);
    if ((a.gpu || a.replay) && (rc = meter_open(&a, &meter)) == 0)
        mt = &meter;
    if (!rc)
        rc = a.script ? sim_script(&a, &script, mt) : sim_pattern(&a, mt, 0);
    if (a.script)
        files_lines_close(&script);
    if (mt)
        gpu_close(mt->g);
    if (mt && a.replay == shipped && rc != EXIT_USAGE)
        cli_say(stdout, SIM_SHIPPED_WHY);
    return rc;  /* main() reports output that could not be written */
}
