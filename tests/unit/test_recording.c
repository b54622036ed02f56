/* test_recording.c: recorded GPU results (src/store/recording.c): write/load round trip,
 * one-line errors for truncated, older-version, foreign and wrong-typed files, numbers out of
 * range, files too large or packed with values (refused before parsing), the H200 case
 * file, and the shipped assets/h200-recording.json through the replay handle.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/gpu/gpu.h"
#include "../../src/lesson/lesson.h"
#include "../../src/store/lesson_load.h"
#include "../../src/store/recording.h"
#include "../../src/model/bank.h"

static void sample(struct recording *r)
{
    struct recording_row w;
    recording_init(r);
    snprintf(r->device, sizeof r->device, "Test GPU (sm_90), 2 SMs, SM clock 1000 MHz");
    snprintf(r->date, sizeof r->date, "2026-11-29T00:00:00Z");
    snprintf(r->command, sizeof r->command, "banklab bench --json");
    snprintf(r->scenes, sizeof r->scenes, "0123456789abcdef");
    memset(&w, 0, sizeof w);
    snprintf(w.group, sizeof w.group, "sweep");
    snprintf(w.label, sizeof w.label, "4 B ld stride 32");
    w.model_wavefronts = 32;
    w.model_conflicts = 31;
    w.agree = 1;
    w.rec.req.kind = GPU_REQ_PATTERN;
    w.rec.req.access.width = 4;
    w.rec.req.access.mask = 0xffff0000u;
    for (int l = 0; l < BANK_LANES; l++)
        w.rec.req.access.offset[l] = (uint64_t)l * 128;
    w.rec.req.want_counters = 1;
    w.rec.req.want_timing = 1;
    w.rec.res.err.status = GPU_OK;
    w.rec.res.has_timing = 1;
    w.rec.res.ms_median = 2.125;
    w.rec.res.ms_min = 2.0;
    w.rec.res.ms_max = 2.5;
    w.rec.res.launches = 15;
    w.rec.res.clk_per_request = 32.11;
    w.rec.res.bytes_per_clk_per_sm = 3.98;
    w.rec.res.has_access_timing = 1;
    w.rec.res.clk_per_access = 32.11;
    w.rec.res.ns_per_access = 16.2228871;   /* written with 6 significant digits */
    w.rec.res.ref_clk_per_access = 1.005;
    w.rec.res.slowdown = 31.95;
    w.rec.res.has_counters = 1;
    w.rec.res.wavefronts_ld = 16;
    w.rec.res.conflicts_ld = 15;
    w.rec.res.inst_ld = 128;
    snprintf(w.rec.res.provenance, sizeof w.rec.res.provenance, "Test GPU; median of 15");
    assert_int_equal(recording_add(r, &w), 0);
    memset(&w, 0, sizeof w);
    snprintf(w.group, sizeof w.group, "case");
    snprintf(w.label, sizeof w.label, "transpose_padded PAD=1");
    w.model_wavefronts = 1;
    w.model_conflicts = 0;
    w.agree = -1;
    w.rec.req.kind = GPU_REQ_CASE;
    snprintf(w.rec.req.case_name, sizeof w.rec.req.case_name, "transpose_padded");
    w.rec.req.nparams = 1;
    snprintf(w.rec.req.param_name[0], sizeof w.rec.req.param_name[0], "PAD");
    w.rec.req.param_value[0] = 1;
    w.rec.res.err.status = GPU_OK;
    w.rec.res.has_timing = 1;
    w.rec.res.ms_median = 0.15;
    w.rec.res.gbps = 3535.5;
    w.rec.res.verified = 1;
    assert_int_equal(recording_add(r, &w), 0);
}

static char *write_tmp(const struct recording *r, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    assert_int_equal(recording_write(f, r), 0);
    fclose(f);
    return buf;
}

static void test_round_trip(void **state)
{
    (void)state;
    struct recording r, back;
    struct bl_err msg = {0};
    size_t len;
    sample(&r);
    char *text = write_tmp(&r, &len);
    assert_int_equal(recording_load_buffer("mem", text, len, &back, &msg), 0);
    assert_int_equal(back.nrows, 2);
    assert_string_equal(back.device, r.device);
    assert_string_equal(back.date, r.date);
    assert_string_equal(back.command, r.command);
    assert_string_equal(back.scenes, "0123456789abcdef");
    const struct recording_row *a = &back.rows[0], *b = &back.rows[1];
    assert_string_equal(a->label, "4 B ld stride 32");
    assert_int_equal(a->rec.req.kind, GPU_REQ_PATTERN);
    assert_int_equal(a->rec.req.access.mask, 0xffff0000u);
    assert_int_equal(a->rec.req.access.offset[31], 31 * 128);
    assert_int_equal(a->model_wavefronts, 32);
    assert_int_equal(a->agree, 1);
    assert_true(a->rec.res.has_timing && a->rec.res.has_counters);
    assert_true(fabs(a->rec.res.ms_median - 2.125) < 1e-9);
    assert_true(fabs(a->rec.res.wavefronts_ld - 16) < 1e-9);
    assert_int_equal(a->rec.res.launches, 15);
    assert_true(a->rec.res.has_access_timing);
    assert_true(fabs(a->rec.res.ns_per_access - 16.2229) < 1e-9);
    assert_true(fabs(a->rec.res.slowdown - 31.95) < 1e-9);
    assert_true(fabs(a->rec.res.ref_clk_per_access - 1.005) < 1e-9);
    assert_int_equal(b->rec.req.kind, GPU_REQ_CASE);
    assert_string_equal(b->rec.req.case_name, "transpose_padded");
    assert_int_equal(b->rec.req.nparams, 1);
    assert_int_equal(b->rec.req.param_value[0], 1);
    assert_int_equal(b->agree, -1);
    assert_false(b->rec.res.has_counters);
    assert_false(b->rec.res.has_access_timing);
    assert_int_equal(b->rec.res.verified, 1);

    /* The replay handle answers the recorded request, and only that one. */
    struct gpu_info info;
    struct gpu *g = recording_open_replay(&back, &info);
    assert_non_null(g);
    assert_int_equal(info.backend, GPU_BACKEND_REPLAY);
    assert_non_null(strstr(info.device, "recorded on Test GPU"));
    struct gpu_result res;
    struct gpu_request q = a->rec.req;
    q.id = 77;
    assert_int_equal(gpu_run(g, &q, &res, 10), GPU_OK);
    assert_int_equal(res.id, 77);
    assert_true(fabs(res.wavefronts_ld - 16) < 1e-9);
    assert_non_null(strstr(res.provenance, "2026-11-29"));
    q.access.offset[20] += 4;
    assert_int_equal(gpu_run(g, &q, &res, 10), GPU_ENOTRECORDED);
    q = a->rec.req;
    q.access.offset[3] += 4; /* lane 3 is inactive: still the same access */
    assert_int_equal(gpu_run(g, &q, &res, 10), GPU_OK);
    gpu_close(g);
    free(text);
    recording_done(&r);
    recording_done(&back);
}

static void expect_error(const char *text, const char *needle)
{
    struct recording r;
    struct bl_err msg = {0};
    assert_int_equal(recording_load_buffer("bad.json", text, strlen(text), &r, &msg), -1);
    assert_int_equal(r.nrows, 0);
    assert_null(strchr(msg.msg, '\n'));
    assert_non_null(strstr(msg.msg, "bad.json"));
    if (!strstr(msg.msg, needle))
        fail_msg("message \"%s\" lacks \"%s\"", msg.msg, needle);
}

static void test_errors(void **state)
{
    (void)state;
    struct recording r;
    size_t len;
    sample(&r);
    char *text = write_tmp(&r, &len);
    /* Truncated: every prefix fails with one line; cut mid-file it says it ends early. */
    for (size_t cut = 0; cut < len - 2; cut += 97) {
        char *part = strndup(text, cut);
        struct recording back;
        struct bl_err msg = {0};
        assert_int_equal(recording_load_buffer("bad.json", part, cut, &back, &msg), -1);
        assert_null(strchr(msg.msg, '\n'));
        free(part);
    }
    char *half = strndup(text, len / 2);
    expect_error(half, "truncated");
    free(half);
    free(text);
    recording_done(&r);
    expect_error("{\"format\": \"banklab-recording\", \"version\": 0, \"device\": \"x\", "
                 "\"date\": \"y\", \"records\": []}", "version 0");
    expect_error("{\"lessons\": []}", "not a banklab recording");
    expect_error("[1, 2]", "not a banklab recording");
    expect_error("{\"format\": \"banklab-recording\", \"version\": 1, \"device\": \"x\", "
                 "\"date\": \"y\", \"records\": [{\"request\": {\"kind\": \"pattern\", "
                 "\"width\": \"four\", \"op\": \"ld\", \"mask\": \"ffffffff\"}}]}",
                 "records[0]");
    expect_error("{\"format\": \"banklab-recording\", \"version\": 1, \"device\": \"x\", "
                 "\"date\": \"y\", \"records\": [{\"request\": {\"kind\": \"pattern\", "
                 "\"width\": 4, \"op\": \"ld\", \"mask\": \"ffffffff\", \"offsets\": [1]}, "
                 "\"result\": {\"status\": \"ok\"}}]}", "32 numbers");
    expect_error("{\"format\": \"banklab-recording\", \"version\": 1, \"device\": \"x\", "
                 "\"date\": \"y\", \"records\": [{\"request\": {\"kind\": \"case\", \"case\": "
                 "\"copy\"}, \"result\": {\"status\": \"melted\"}}]}", "melted");
    struct recording none;
    struct bl_err msg = {0};
    assert_int_equal(recording_load_file("/nonexistent/rec.json", &none, &msg), -1);
    assert_non_null(strstr(msg.msg, "/nonexistent/rec.json"));
}

/* One record whose result's counters object holds counters_json (numbers past what a
 * GPU can report are a damaged file, refused with one line). */
static void expect_counters_error(const char *counters_json, const char *needle)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"format\": \"banklab-recording\", \"version\": 1, \"device\": \"x\", "
             "\"date\": \"y\", \"records\": [{\"request\": {\"kind\": \"case\", \"case\": "
             "\"copy\"}, \"result\": {\"status\": \"ok\", \"counters\": %s}}]}", counters_json);
    expect_error(text, needle);
}

static void test_bounds(void **state)
{
    (void)state;
    expect_counters_error("{\"wavefronts_ld\": -1e18, \"wavefronts_st\": 0, \"conflicts_ld\": 0, "
                          "\"conflicts_st\": 0}", "\"wavefronts_ld\" must be a number in 0..65536");
    expect_counters_error("{\"wavefronts_ld\": 1, \"wavefronts_st\": 0, \"conflicts_ld\": 1e308, "
                          "\"conflicts_st\": 0}", "\"conflicts_ld\" must be a number in 0..65536");
    expect_counters_error("{\"wavefronts_ld\": 1, \"wavefronts_st\": 0, \"conflicts_ld\": 0, "
                          "\"conflicts_st\": 0, \"inst_ld\": -5}", "\"inst_ld\"");
    /* offsets: whole bytes below 2^48; a width the model knows; a mask of 8 hex digits */
    char text[2048];
    const char *head = "{\"format\": \"banklab-recording\", \"version\": 1, \"device\": \"x\", "
                       "\"date\": \"y\", \"records\": [{\"request\": {\"kind\": \"pattern\", ";
    const char *zeros = "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0";
    snprintf(text, sizeof text, "%s\"width\": 4, \"op\": \"ld\", \"mask\": \"ffffffff\", "
             "\"offsets\": [1e300,%s]}, \"result\": {\"status\": \"ok\"}}]}", head, zeros);
    expect_error(text, "offsets[0] must be a whole number of bytes");
    snprintf(text, sizeof text, "%s\"width\": 4, \"op\": \"ld\", \"mask\": \"ffffffff\", "
             "\"offsets\": [0.5,%s]}, \"result\": {\"status\": \"ok\"}}]}", head, zeros);
    expect_error(text, "offsets[0]");
    snprintf(text, sizeof text, "%s\"width\": 3, \"op\": \"ld\", \"mask\": \"ffffffff\", "
             "\"offsets\": [0,%s]}, \"result\": {\"status\": \"ok\"}}]}", head, zeros);
    expect_error(text, "\"width\" must be 1, 2, 4, 8 or 16");
    /* packed with values: refused before cJSON builds a tree of them */
    size_t n = 4100000, len = 0;
    char *big = malloc(2 * n + 64);
    assert_non_null(big);
    len += (size_t)sprintf(big, "[");
    for (size_t i = 0; i < n; i++) {
        big[len++] = '0';
        big[len++] = ',';
    }
    big[len++] = '0';
    big[len++] = ']';
    big[len] = 0;
    expect_error(big, "more than 4000000 JSON values");
    free(big);
    /* a file past the size bound: refused unread (a sparse file: nothing is written) */
    char path[] = "/tmp/banklab-rec-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)240 << 20), 0);
    close(fd);
    struct recording r;
    struct bl_err msg = {0};
    assert_int_equal(recording_load_file(path, &r, &msg), -1);
    assert_non_null(strstr(msg.msg, "larger than 64 MB"));
    unlink(path);
}

static void test_hw_cases(void **state)
{
    (void)state;
    struct hw_case *c;
    int n;
    struct bl_err msg = {0};
    assert_int_equal(recording_load_hw_cases(TEST_DATA_DIR "/h200-wavefronts.json", &c, &n, &msg), 0);
    assert_int_equal(n, 63);
    assert_string_equal(c[1].name, "f32_stride32");
    assert_int_equal(c[1].access.width, 4);
    assert_int_equal(c[1].access.offset[31], 3968);
    assert_int_equal(c[1].wavefronts, 32);
    for (int i = 0; i < n; i++) {
        struct bank_result r;
        assert_int_equal(bank_simulate(&c[i].access, &r, NULL), BANK_OK);
        assert_int_equal(r.wavefronts, c[i].wavefronts);
    }
    free(c);
    assert_int_equal(recording_load_hw_cases("/nonexistent.json", &c, &n, &msg), -1);
    /* the matrix table: its instructions and cp.async sources come through, cp.async.cg not */
    assert_int_equal(recording_load_hw_cases(TEST_DATA_DIR "/h200-matrix.json", &c, &n, &msg), 0);
    assert_int_equal(n, 129);
    int ldsm = 0, src = 0;
    for (int i = 0; i < n; i++) {
        struct bank_result r;
        assert_int_equal(bank_simulate(&c[i].access, &r, NULL), BANK_OK);
        assert_int_equal(r.wavefronts, c[i].wavefronts);
        assert_int_equal(r.conflicts, c[i].conflicts);
        ldsm += c[i].access.instr == BANK_LDMATRIX;
        src += c[i].access.has_src;
    }
    assert_int_equal(ldsm, 48);
    assert_int_equal(src, 28);
    free(c);
}

/* An ldmatrix and a cp.async with its sources survive a write and a read. */
static void test_instr_round_trip(void **state)
{
    (void)state;
    struct recording r, back;
    struct recording_row w;
    struct bl_err msg = {0};
    size_t len;
    memset(&r, 0, sizeof r);
    snprintf(r.device, sizeof r.device, "Test GPU");
    for (int k = 0; k < 2; k++) {
        memset(&w, 0, sizeof w);
        snprintf(w.group, sizeof w.group, "lesson");
        snprintf(w.label, sizeof w.label, "row %d", k);
        w.agree = -1;
        w.rec.req.kind = GPU_REQ_PATTERN;
        struct bank_access *a = &w.rec.req.access;
        assert_int_equal(bank_instr_parse(k ? "cp.async8" : "ldmatrix.x2.trans", a), 0);
        a->mask = 0xffffffffu;
        for (int l = 0; l < 32; l++) {
            a->offset[l] = (uint64_t)l * 16;
            a->src[l] = (uint32_t)(l * 8 + 128 * k);
        }
        a->has_src = (uint8_t)k;
        w.rec.res.err.status = GPU_OK;
        assert_int_equal(recording_add(&r, &w), 0);
    }
    char *text = write_tmp(&r, &len);
    assert_non_null(strstr(text, "\"ldmatrix.x2.trans\""));
    assert_int_equal(recording_load_buffer("mem", text, len, &back, &msg), 0);
    assert_int_equal(back.nrows, 2);
    const struct bank_access *a = &back.rows[0].rec.req.access, *b = &back.rows[1].rec.req.access;
    assert_int_equal(a->instr, BANK_LDMATRIX);
    assert_int_equal(a->matrices, 2);
    assert_int_equal(a->trans, 1);
    assert_int_equal(a->has_src, 0);
    assert_int_equal(b->instr, BANK_CPASYNC);
    assert_int_equal(b->width, 8);
    assert_int_equal(b->has_src, 1);
    assert_int_equal(b->src[31], 31 * 8 + 128);
    assert_true(gpu_same_access(&r.rows[1].rec.req.access, b));
    assert_false(gpu_same_access(a, b));
    free(text);
    recording_done(&r);
    recording_done(&back);
}

/* The shipped recording: loads, was made by `banklab verify --json` and `bench --json` on a
 * GPU, every verify row agrees, and each row replays to its own result. */
static void test_shipped(void **state)
{
    (void)state;
    const char *path = "assets/h200-recording.json";
    if (access(path, R_OK) != 0)
        skip();
    struct recording r;
    struct bl_err msg = {0};
    if (recording_load_file(path, &r, &msg))
        fail_msg("%s", msg.msg);
    assert_non_null(strstr(r.command, "banklab verify --json"));
    assert_non_null(strstr(r.command, "banklab bench --json"));
    int h200 = 0, lesson = 0, sweep = 0, transpose = 0;
    for (int i = 0; i < r.nrows; i++) {
        const struct recording_row *w = &r.rows[i];
        if (!strcmp(w->group, "h200") || !strcmp(w->group, "lesson")) {
            h200 += !strcmp(w->group, "h200");
            lesson += !strcmp(w->group, "lesson");
            assert_true(w->rec.res.has_counters);
            struct bank_result m;
            assert_int_equal(bank_simulate(&w->rec.req.access, &m, NULL), BANK_OK);
            double got = w->rec.req.access.op == BANK_STORE ? w->rec.res.wavefronts_st
                                                             : w->rec.res.wavefronts_ld;
            /* verify's agree of the time of recording, or within the counters' spread of a
             * cp.async (recording_tolerance) where verify then was stricter */
            if (w->agree != 1)
                assert_int_equal(w->rec.req.access.instr, BANK_CPASYNC);
            assert_true(fabs(got - m.wavefronts) < recording_tolerance(&w->rec.req.access));
        }
        sweep += !strcmp(w->group, "sweep");
        transpose += !strcmp(w->group, "transpose") && w->rec.res.verified;
    }
    /* tests/data/h200-wavefronts.json's 63 and h200-matrix.json's 129 (of its 138, the 9
     * cp.async.cg cases are not modelled) */
    assert_int_equal(h200, 63 + 129);
    assert_true(lesson > 0);
    assert_true(sweep >= 33);
    assert_int_equal(transpose, 7);   /* memcpy, copy, copy_tile32 and the four transposes */
    struct gpu_info info;
    struct gpu *g = recording_open_replay(&r, &info);
    assert_non_null(g);
    for (int i = 0; i < r.nrows; i += 7) {
        struct gpu_result res;
        assert_int_equal(gpu_run(g, &r.rows[i].rec.req, &res, 10), r.rows[i].rec.res.err.status);
    }
    gpu_close(g);
    recording_done(&r);
}

struct cover {
    struct gpu *g;
    const struct lesson_scene *sc;
    const char *where;
    int checked, missing, untimed;
    int quiet;                   /* count only */
    int predates_instr;          /* the recording holds no ldmatrix/stmatrix/cp.async at all */
    int skipped_instr;           /* accesses of those left out for that reason */
};

static int cover_access(const struct bank_access *acc, int type_index, unsigned warp, int access,
                        void *arg)
{
    struct cover *c = arg;
    struct gpu_request q;
    struct gpu_result r;
    struct bank_result m;
    memset(&q, 0, sizeof q);
    q.kind = GPU_REQ_PATTERN;
    q.access = *acc;
    q.want_counters = q.want_timing = 1;
    assert_int_equal(bank_simulate(acc, &m, NULL), BANK_OK);
    if (acc->instr != BANK_PLAIN && c->predates_instr) {
        c->skipped_instr++;
        return 0;
    }
    c->checked++;
    if (gpu_run(c->g, &q, &r, 10) != GPU_OK || !r.has_counters) {
        if (c->missing++ < 5 && !c->quiet)
            print_error("%s type %d warp %u access %d: not in the recording\n", c->where,
                        type_index, warp, access);
        return 0;
    }
    double wf = acc->op == BANK_STORE ? r.wavefronts_st : r.wavefronts_ld;
    assert_true(fabs(wf - m.wavefronts) < 0.005);
    if (!r.has_access_timing || r.ns_per_access <= 0 || r.slowdown <= 0) {
        if (c->untimed++ < 5 && !c->quiet)
            print_error("%s warp %u access %d: no time per access\n", c->where, warp, access);
    }
    return 0;
}

static int cover_setting(const struct lesson_binding *b, void *arg)
{
    struct cover *c = arg;
    assert_true(lesson_scene_accesses(c->sc, b, cover_access, c) >= 0);
    return 0;
}

/* Every access of every setting (strict), or of the defaults only. */
static void cover_set(struct cover *c, const struct lesson_set *set, int strict)
{
    for (int li = 0; li < set->nlessons; li++) {
        const struct lesson *l = &set->lessons[li];
        for (int si = 0; si < l->nsteps; si++) {
            char where[128];
            if (!l->steps[si].scene)
                continue;
            snprintf(where, sizeof where, "%s/%s", l->id, l->steps[si].id);
            c->where = where;
            c->sc = l->steps[si].scene;
            if (strict)
                assert_true(lesson_scene_settings(c->sc, cover_setting, c) > 0);
            else
                assert_true(lesson_scene_accesses(c->sc, NULL, cover_access, c) >= 0);
        }
    }
}

/* The shipped recording covers every access a learner can draw in a lesson scene (every
 * parameter setting of lesson_scene_settings, every type, warp and access), through the replay
 * handle, with counters equal to the model and a time per access; and every case-kernel scene's
 * kernel. That is checked in full when the recording was made from these lessons' scenes (its
 * lesson_scenes digest is theirs). After a scene changed, until the recording is made again
 * (tests/gpu/record.sh on a GPU), only the defaults are required, and the settings that lost
 * their measurement are counted and named. */
static void test_shipped_covers_lessons(void **state)
{
    (void)state;
    const char *path = "assets/h200-recording.json";
    if (access(path, R_OK) != 0 || access("lessons", R_OK) != 0)
        skip();
    struct recording rec;
    struct bl_err msg = {0};
    if (recording_load_file(path, &rec, &msg))
        fail_msg("%s", msg.msg);
    struct gpu *g = recording_open_replay(&rec, NULL);
    assert_non_null(g);
    struct lesson_set set;
    memset(&set, 0, sizeof set);
    assert_int_equal(lesson_set_load_dir(&set, "lessons", NULL, NULL), 0);
    char digest[17];
    lesson_scenes_digest(&set, digest);
    int strict = !strcmp(rec.scenes, digest);
    struct cover c = {g, NULL, "", 0, 0, 0, 0, 0, 0};
    if (!strict) {
        /* how much a re-recording would add: every setting, counted, not required */
        c.quiet = 1;
        cover_set(&c, &set, 1);
        print_message("NOTE: the lessons' scenes changed since %s was made (digest %s, "
                      "recording %s): %d of %d accesses of their settings are not recorded; "
                      "tests/gpu/record.sh makes it again. Checking the defaults.\n", path,
                      digest, rec.scenes[0] ? rec.scenes : "none", c.missing, c.checked);
        memset(&c, 0, sizeof c);
        c.g = g;
        c.where = "";
    }
    /* A recording made before banklab measured ldmatrix, stmatrix and cp.async (none of its
     * records is one) cannot hold them: while the scenes changed since, those are named and
     * counted, not required; a recording made since must hold them (strict or not). */
    int predates = 1;
    for (int i = 0; i < rec.nrows; i++)
        if (rec.rows[i].rec.req.kind == GPU_REQ_PATTERN && rec.rows[i].rec.req.access.instr)
            predates = 0;
    recording_done(&rec);
    c.predates_instr = !strict && predates;
    cover_set(&c, &set, strict);
    if (c.skipped_instr)
        print_message("NOTE: %s predates ldmatrix, stmatrix and cp.async measurements: %d "
                      "accesses of chapter 11's defaults are not in it; tests/gpu/record.sh "
                      "makes it again.\n", path, c.skipped_instr);
    int kernels = 0, kernels_missing = 0;
    for (int li = 0; li < set.nlessons; li++) {
        const struct lesson *l = &set.lessons[li];
        for (int si = 0; si < l->nsteps; si++) {
            const struct lesson_scene *sc = l->steps[si].scene;
            if (!sc || !sc->kernel || !*sc->kernel || !strcmp(sc->kernel, "pattern"))
                continue;
            /* the case kernel at its defaults, as the tutorial sends it */
            struct gpu_request q;
            struct gpu_result r;
            memset(&q, 0, sizeof q);
            q.kind = GPU_REQ_CASE;
            snprintf(q.case_name, sizeof q.case_name, "%s", sc->kernel);
            for (int p = 0; p < sc->nparams && p < GPU_CASE_MAX_PARAMS; p++) {
                snprintf(q.param_name[p], sizeof q.param_name[0], "%s", sc->params[p].name);
                q.param_value[p] = sc->params[p].def;
                q.nparams = p + 1;
            }
            kernels++;
            enum gpu_status st = gpu_run(g, &q, &r, 10);
            if (st != GPU_OK && st != GPU_EINVAL) {
                print_error("%s/%s: kernel %s at its defaults: not in the recording\n", l->id,
                            l->steps[si].id, sc->kernel);
                kernels_missing++;
            }
        }
    }
    lesson_set_done(&set);
    gpu_close(g);
    assert_true(c.checked > (strict ? 1000 : 50));
    assert_true(kernels > 0);
    assert_int_equal(c.missing, 0);
    assert_int_equal(c.untimed, 0);
    assert_int_equal(kernels_missing, 0);
}

/* The scenes digest changes with what decides the drawable accesses, not with the text. */
static void test_scenes_digest(void **state)
{
    (void)state;
    if (access("lessons", R_OK) != 0)
        skip();
    struct lesson_set set;
    memset(&set, 0, sizeof set);
    assert_int_equal(lesson_set_load_dir(&set, "lessons", NULL, NULL), 0);
    char a[17], b[17];
    lesson_scenes_digest(&set, a);
    assert_int_equal(strlen(a), 16);
    lesson_scenes_digest(&set, b);
    assert_string_equal(a, b);
    struct lesson_step *st = NULL;
    for (int li = 0; li < set.nlessons && !st; li++)
        for (int si = 0; si < set.lessons[li].nsteps && !st; si++)
            if (set.lessons[li].steps[si].scene && set.lessons[li].steps[si].scene->nparams)
                st = &set.lessons[li].steps[si];
    assert_non_null(st);
    char *text = st->text.en;
    st->text.en = (char *)"another text";
    lesson_scenes_digest(&set, b);
    assert_string_equal(a, b);
    st->text.en = text;
    st->scene->params[0].max++;
    lesson_scenes_digest(&set, b);
    assert_string_not_equal(a, b);
    st->scene->params[0].max--;
    lesson_set_done(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_hw_cases),
        cmocka_unit_test(test_instr_round_trip),
        cmocka_unit_test(test_shipped),
        cmocka_unit_test(test_shipped_covers_lessons),
        cmocka_unit_test(test_scenes_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
