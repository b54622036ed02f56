/* test_gpu.c: the runner interface (src/gpu): the unavailable handle, gpu_open in whatever
 * build this is (without a device it must say why in one line and refuse work; with one, a
 * 32-way access must show 32 wavefronts and a bad request must be refused), the replay handle's
 * queue, and gpu_run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../src/gpu/gpu.h"
#include "../../src/runner/runner.h"

static void stride(struct gpu_request *q, unsigned width, unsigned s)
{
    memset(q, 0, sizeof *q);
    q->kind = GPU_REQ_PATTERN;
    q->access.width = width;
    q->access.mask = 0xffffffffu;
    for (int l = 0; l < BANK_LANES; l++)
        q->access.offset[l] = (uint64_t)l * s * width;
}

static void test_unavailable(void **state)
{
    (void)state;
    struct gpu_info info;
    struct bl_err why = {0};
    bl_fail(&why, GPU_EINVAL, BL_NOWHERE, GPU_NO_DEVICE);
    struct gpu *g = gpu_unavailable(&info, &why);
    assert_non_null(g);
    assert_int_equal(info.available, 0);
    assert_int_equal(info.backend, GPU_BACKEND_NONE);
    assert_int_equal(info.err.status, GPU_EUNAVAILABLE);
    assert_string_equal(info.err.msg, "no CUDA device");
    /* the reason in either language, from its message id */
    char zh[GPU_TEXT_MAX];
    assert_int_equal(info.err.why.id, GPU_NO_DEVICE);
    assert_string_equal(bl_msg_or_text(&info.err.why, info.err.msg, BL_LANG_ZH, zh, sizeof zh),
                        "没有 CUDA 设备");
    struct gpu_request q;
    struct gpu_result r;
    stride(&q, 4, 1);
    assert_int_equal(gpu_submit(g, &q), GPU_EUNAVAILABLE);
    assert_int_equal(gpu_poll(g, &r), 0);
    assert_int_equal(gpu_run(g, &q, &r, 10), GPU_EUNAVAILABLE);
    gpu_close(g);
    gpu_close(NULL);
    assert_string_equal(gpu_backend_name(GPU_BACKEND_CUDA), "cuda");
    assert_string_equal(gpu_backend_name(GPU_BACKEND_REPLAY), "replay");
}

static void test_open(void **state)
{
    (void)state;
    struct gpu_info info;
    struct gpu *g = gpu_open(0, &info);
    assert_non_null(g);
    struct gpu_request q;
    struct gpu_result r;
    stride(&q, 4, 32);
    q.want_counters = 1;
    q.want_timing = 1;
    if (!info.available) {
        /* No device, driver or toolkit: one line saying which. */
        assert_true(strlen(info.err.msg) > 0);
        assert_null(strchr(info.err.msg, '\n'));
        assert_int_equal(gpu_submit(g, &q), GPU_EUNAVAILABLE);
        gpu_close(g);
        print_message("SKIP: the device half of this test needs a GPU: %s\n", info.err.msg);
        skip();
    }
    assert_int_equal(info.backend, GPU_BACKEND_CUDA);
    assert_true(info.sm_count > 0 && info.clock_khz > 0);
    q.id = 5;
    assert_int_equal(gpu_run(g, &q, &r, 60000), GPU_OK);
    assert_int_equal(r.id, 5);
    assert_true(r.has_timing && r.ms_median > 0 && r.clk_per_request > 16);
    assert_true(strlen(r.provenance) > 0);
    /* time per access: the 32-way column costs about 32 conflict-free loads */
    assert_true(r.has_access_timing && r.ns_per_access > 0 && r.clk_per_access > 16);
    assert_true(r.slowdown > 28 && r.slowdown < 34);
    struct gpu_request q1;
    struct gpu_result r1;
    stride(&q1, 4, 1);
    q1.want_timing = 1;
    assert_int_equal(gpu_run(g, &q1, &r1, 60000), GPU_OK);
    assert_true(r1.has_access_timing && r1.slowdown > 0.9 && r1.slowdown < 1.1);
    if (info.counters) {
        assert_true(r.has_counters);
        assert_true(fabs(r.wavefronts_ld - 32) < 0.005);
        assert_true(fabs(r.conflicts_ld - 31) < 0.005);
    }
    /* Misaligned lane: refused before any launch. */
    stride(&q, 8, 1);
    q.access.offset[3] = 4;
    q.want_counters = 1;
    assert_int_equal(gpu_run(g, &q, &r, 60000), GPU_EINVAL);
    assert_non_null(strstr(r.err.msg, "lane 3"));
    /* Unknown case kernel, and a misaligned dynamic carve. */
    memset(&q, 0, sizeof q);
    q.kind = GPU_REQ_CASE;
    snprintf(q.case_name, sizeof q.case_name, "transpose_quantum");
    assert_int_equal(gpu_run(g, &q, &r, 60000), GPU_EINVAL);
    snprintf(q.case_name, sizeof q.case_name, "dynamic_carve");
    q.nparams = 1;
    snprintf(q.param_name[0], sizeof q.param_name[0], "PAD_BYTES");
    q.param_value[0] = 4;
    assert_int_equal(gpu_run(g, &q, &r, 60000), GPU_EINVAL);
    assert_non_null(strstr(r.err.msg, "multiple of 8"));
    /* A case kernel: output checked against the CPU reference; with the scene's drawn
     * access in the request, that access's time per access comes back too. */
    q.param_value[0] = 0;
    q.want_timing = 1;
    stride(&q1, 4, 32);
    q.access = q1.access;
    assert_int_equal(gpu_run(g, &q, &r, 60000), GPU_OK);
    assert_int_equal(r.verified, 1);
    assert_true(r.has_access_timing && r.slowdown > 28 && r.slowdown < 34);
    /* The copy ceiling: cudaMemcpy and the copy kernel, both checked. */
    memset(&q, 0, sizeof q);
    q.kind = GPU_REQ_CASE;
    q.want_timing = 1;
    snprintf(q.case_name, sizeof q.case_name, "memcpy");
    assert_int_equal(gpu_run(g, &q, &r, 60000), GPU_OK);
    assert_true(r.verified && r.gbps > 0);
    snprintf(q.case_name, sizeof q.case_name, "copy");
    assert_int_equal(gpu_run(g, &q, &r, 60000), GPU_OK);
    assert_true(r.verified && r.gbps > 0);
    gpu_close(g);
    /* A device index that does not exist. */
    g = gpu_open(999, &info);
    assert_non_null(g);
    assert_int_equal(info.available, 0);
    assert_non_null(strstr(info.err.msg, "999"));
    gpu_close(g);
}

static void test_replay_queue(void **state)
{
    (void)state;
    struct gpu_record rec;
    memset(&rec, 0, sizeof rec);
    stride(&rec.req, 4, 2);
    rec.res.err.status = GPU_OK;
    rec.res.has_counters = 1;
    rec.res.wavefronts_ld = 2;
    struct gpu_info info;
    struct gpu *g = gpu_open_replay(&rec, 1, "H200", "2026-11-29", &info);
    assert_non_null(g);
    assert_int_equal(info.available, 1);
    struct gpu_request q = rec.req;
    int n = 0;
    while (gpu_submit(g, &q) == GPU_OK)
        n++;
    assert_int_equal(n, 16);
    assert_int_equal(gpu_submit(g, &q), GPU_EBUSY);
    struct gpu_result r;
    for (int i = 0; i < n; i++) {
        assert_int_equal(gpu_poll(g, &r), 1);
        assert_int_equal(r.err.status, GPU_OK);
        assert_true(fabs(r.wavefronts_ld - 2) < 1e-9);
        assert_string_equal(r.provenance, "recorded on H200, 2026-11-29");
    }
    assert_int_equal(gpu_poll(g, &r), 0);
    gpu_close(g);
}

static void case_req(struct gpu_request *q, const char *name, int n, const char *const *names,
                     const long long *values)
{
    memset(q, 0, sizeof *q);
    q->kind = GPU_REQ_CASE;
    snprintf(q->case_name, sizeof q->case_name, "%s", name);
    for (int i = 0; i < n; i++) {
        snprintf(q->param_name[i], sizeof q->param_name[0], "%s", names[i]);
        q->param_value[i] = values[i];
    }
    q->nparams = n;
}

/* Replay finds results by what was measured: a case by its name and the values of the
 * parameters the kernel reads (aliases and defaults resolved, other scene parameters
 * ignored); a pattern's counters and time per access from any records of that access; a
 * case request's drawn access from the pattern records. */
static void test_replay_matching(void **state)
{
    (void)state;
    struct gpu_record rec[6];
    memset(rec, 0, sizeof rec);
    /* 0: the stride-32 access, counters only (as verify without --timing records it) */
    stride(&rec[0].req, 4, 32);
    rec[0].res.err.status = GPU_OK;
    rec[0].res.has_counters = 1;
    rec[0].res.wavefronts_ld = 32;
    rec[0].res.conflicts_ld = 31;
    /* 1: the same access again, timed only */
    stride(&rec[1].req, 4, 32);
    rec[1].res.err.status = GPU_OK;
    rec[1].res.has_timing = 1;
    rec[1].res.ms_median = 1.0;
    rec[1].res.has_access_timing = 1;
    rec[1].res.ns_per_access = 16.3;
    rec[1].res.clk_per_access = 32.2;
    rec[1].res.slowdown = 31.9;
    /* 2: row_col as a scene sends it: only PAD (COLUMN takes its default 1) */
    static const char *const pad[] = {"PAD"}, *const padj[] = {"PAD", "j"},
                             *const carve[] = {"N", "PAD"}, *const carve2[] = {"N", "PAD_BYTES"},
                             *const rc2[] = {"PAD", "COLUMN"};
    long long v3[] = {3}, v3j[] = {3, 16}, v3c[] = {3, 1}, v3r[] = {3, 0}, c64[] = {64, 0},
              c62[] = {62, 4};
    case_req(&rec[2].req, "row_col", 1, pad, v3);
    rec[2].res.err.status = GPU_OK;
    rec[2].res.has_timing = 1;
    rec[2].res.ms_median = 0.074;
    rec[2].res.verified = 1;
    /* 3: dynamic_carve under the scene's alias PAD */
    case_req(&rec[3].req, "dynamic_carve", 2, carve, c64);
    rec[3].res.err.status = GPU_OK;
    rec[3].res.verified = 1;
    /* 4: a setting the runner refused */
    case_req(&rec[4].req, "dynamic_carve", 2, carve, c62);
    rec[4].res.err.status = GPU_EINVAL;
    snprintf(rec[4].res.err.msg, sizeof rec[4].res.err.msg, "misaligned");
    struct gpu *g = gpu_open_replay(rec, 5, "H200", "2026-11-29", NULL);
    assert_non_null(g);
    struct gpu_request q;
    struct gpu_result r;
    /* a pattern: counters from record 0, time per access from record 1 */
    stride(&q, 4, 32);
    assert_int_equal(gpu_run(g, &q, &r, 10), GPU_OK);
    assert_true(r.has_counters && fabs(r.wavefronts_ld - 32) < 1e-9);
    assert_true(r.has_access_timing && fabs(r.slowdown - 31.9) < 1e-9);
    q.access.offset[0] = 4; /* another access: not recorded */
    assert_int_equal(gpu_run(g, &q, &r, 10), GPU_ENOTRECORDED);
    /* a case: the kernel's defaults and other scene parameters resolved */
    case_req(&q, "row_col", 2, rc2, v3c);
    assert_int_equal(gpu_run(g, &q, &r, 10), GPU_OK);
    assert_true(r.verified && fabs(r.ms_median - 0.074) < 1e-9);
    case_req(&q, "row_col", 2, padj, v3j);
    assert_int_equal(gpu_run(g, &q, &r, 10), GPU_OK);
    case_req(&q, "row_col", 2, rc2, v3r); /* COLUMN = 0: another setting */
    assert_int_equal(gpu_run(g, &q, &r, 10), GPU_ENOTRECORDED);
    /* with the drawn access, its time per access comes along */
    case_req(&q, "row_col", 1, pad, v3);
    stride(&rec[5].req, 4, 32);
    q.access = rec[5].req.access;
    assert_int_equal(gpu_run(g, &q, &r, 10), GPU_OK);
    assert_true(r.verified && r.has_access_timing && fabs(r.ns_per_access - 16.3) < 1e-9);
    /* a kernel setting not recorded, its drawn access recorded: the access's numbers */
    case_req(&q, "row_col", 2, rc2, v3r);
    q.access = rec[5].req.access;
    assert_int_equal(gpu_run(g, &q, &r, 10), GPU_OK);
    assert_true(!r.has_timing && !r.verified && r.has_counters && r.has_access_timing);
    /* the alias and the kernel's own name find the same record */
    case_req(&q, "dynamic_carve", 2, carve2, c64);
    assert_int_equal(gpu_run(g, &q, &r, 10), GPU_OK);
    assert_true(r.verified);
    case_req(&q, "dynamic_carve", 2, carve2, c62);
    assert_int_equal(gpu_run(g, &q, &r, 10), GPU_EINVAL);
    assert_string_equal(r.err.msg, "misaligned");
    gpu_close(g);
}

/* The one table of case kernels: names found, defaults and bench settings in range, and the
 * taught access of each bench setting modelled as docs/gpu.md's case table says. */
static void test_case_table(void **state)
{
    (void)state;
    static const int want[] = {-1, -1, -1, -1,          /* memcpy copy copy_tile32 naive */
                               32, 1, 1,                /* tile32 padded swizzled */
                               1, 32, 1,                /* row_col */
                               32, 1, 32, 2, 32, 4,     /* vector_width */
                               2, 1, 4, 1,              /* aos_soa */
                               32, 1,                   /* remap */
                               1, 1, 32,                /* broadcast */
                               -1, -1};                 /* dynamic_carve */
    int k = 0;
    assert_null(gpu_case_at(-1));
    assert_null(gpu_case_at(GPU_CASE_COUNT));
    assert_null(gpu_case_find("pattern"));
    for (int i = 0; i < GPU_CASE_COUNT; i++) {
        const struct gpu_case *c = gpu_case_at(i);
        assert_ptr_equal(gpu_case_find(c->name), c);
        assert_true(c->nbench >= 1);
        assert_true(c->taught && c->taught[0]);
        for (int p = 0; p < c->nparams; p++)
            assert_true(c->params[p].def >= c->params[p].min && c->params[p].def <= c->params[p].max);
        for (int b = 0; b < c->nbench; b++, k++) {
            struct gpu_request q;
            memset(&q, 0, sizeof q);
            q.kind = GPU_REQ_CASE;
            snprintf(q.case_name, sizeof q.case_name, "%s", c->name);
            for (int p = 0; p < c->nparams; p++) {
                snprintf(q.param_name[p], sizeof q.param_name[p], "%s", c->params[p].name);
                q.param_value[p] = c->bench[b * c->nparams + p];
            }
            q.nparams = c->nparams;
            long long v[GPU_CASE_MAX_PARAMS];
            assert_int_equal(gpu_case_values(&q, v), c->nparams);
            assert_int_equal(gpu_case_check(c, v), -1);
            struct bank_access a;
            struct bank_result r;
            int wf = -1;
            if (gpu_case_model(&q, &a) == 0 && bank_simulate(&a, &r, NULL) == BANK_OK)
                wf = r.wavefronts;
            assert_true(k < (int)(sizeof want / sizeof want[0]));
            assert_int_equal(wf, want[k]);
        }
    }
    assert_int_equal(k, (int)(sizeof want / sizeof want[0]));
    /* aliases, defaults, ranges */
    const struct gpu_case *rc = gpu_case_find("row_col");
    struct gpu_request q;
    memset(&q, 0, sizeof q);
    snprintf(q.case_name, sizeof q.case_name, "row_col");
    snprintf(q.param_name[0], sizeof q.param_name[0], "COL");
    q.param_value[0] = 0;
    snprintf(q.param_name[1], sizeof q.param_name[1], "OTHER");
    q.param_value[1] = 99;
    q.nparams = 2;
    long long v[GPU_CASE_MAX_PARAMS];
    assert_int_equal(gpu_case_values(&q, v), 2);
    assert_int_equal(gpu_case_check(rc, v), -1);
    assert_int_equal(v[0], 0);                          /* PAD: its default */
    assert_int_equal(v[1], 0);                          /* COLUMN through its alias */
    q.param_value[0] = 2;
    gpu_case_values(&q, v);
    assert_int_equal(gpu_case_check(rc, v), 1);         /* COLUMN = 2 is out of range */
    assert_int_equal(gpu_case_param_index("row_col", "COL"), 1);
    assert_int_equal(gpu_case_param_index("row_col", "X"), -1);
    int n;
    assert_non_null(gpu_case_info("dynamic_carve", &n));
    assert_int_equal(n, 2);
    assert_null(gpu_case_info("nope", &n));
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unavailable),
        cmocka_unit_test(test_open),
        cmocka_unit_test(test_replay_queue),
        cmocka_unit_test(test_replay_matching),
        cmocka_unit_test(test_case_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
