/* test_scene.c: the one run of a scene through the model (src/lesson/scene.h): a scene's
 * environment, type and binding, the parse kept while the text stays the same, a bare text
 * with its environment and dropped lanes, and each failure with its status, place, lane and
 * message in both languages.
 * link: lesson model
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../src/lesson/scene.h"
#include "../../src/model/bank.h"

static char *types[] = {"float", "float2"};
static struct lesson_param params[] = {{.name = "STRIDE", .def = 1, .min = 1, .max = 32, .step = 1}};

static struct lesson_scene scene(const char *code)
{
    struct lesson_scene s = {0};
    s.code = (char *)code;
    s.block[0] = 64;
    s.warp = 1;
    s.ntypes = 2;
    s.types = types;
    s.nparams = 1;
    s.params = params;
    return s;
}

static void scene_and_binding(void **state)
{
    (void)state;
    struct lesson_scene s = scene("__shared__ T s[4096]; s[tid * STRIDE]");
    struct scene_run r = {0};
    struct bank_access acc;
    struct bank_result res;
    struct bl_err err;
    bl_err_clear(&err);
    struct scene_in in = {.scene = &s, .type = 0, .access = 0, .warp = -1};
    assert_int_equal(scene_run(&r, &in, &acc, &res, &err), 0);
    assert_string_equal(r.code.s, "typedef float T; __shared__ T s[4096]; s[tid * STRIDE]");
    assert_int_equal(r.prefix, strlen("typedef float T; "));
    assert_int_equal(r.env.warp, 1);
    assert_int_equal(r.env.block[0], 64);
    assert_int_equal(res.wavefronts, 1);
    assert_int_equal(acc.offset[0], 32 * 4);   /* warp 1: lane 0 is thread 32 */
    const struct pattern *parsed = r.pat;
    char *names[] = {"STRIDE"};
    long long vals[] = {2};
    struct lesson_binding b = {1, names, vals, NULL};
    in.bind = &b;
    in.warp = 0;
    assert_int_equal(scene_run(&r, &in, &acc, &res, &err), 0);
    assert_ptr_equal(r.pat, parsed);            /* the same text: parsed once */
    assert_int_equal(res.ways, 2);
    assert_int_equal(acc.offset[1], 8);
    in.type = 1;                                /* float2: the text changes */
    assert_int_equal(scene_run(&r, &in, &acc, &res, &err), 0);
    assert_string_equal(r.code.s, "typedef float2 T; __shared__ T s[4096]; s[tid * STRIDE]");
    assert_int_equal(acc.width, 8);
    b.type = "float";                           /* the binding's type wins over the index */
    assert_int_equal(scene_run(&r, &in, &acc, &res, &err), 0);
    assert_int_equal(acc.width, 4);
    in.access = -1;                             /* environment and parse only */
    assert_int_equal(scene_run(&r, &in, NULL, NULL, &err), 0);
    assert_int_equal(r.naccess, 1);
    assert_false(bl_err_failed(&err));
    scene_run_free(&r);
    assert_null(r.pat);
}

static void bare_text(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    struct scene_run r = {0};
    struct bank_access acc;
    struct bank_result res;
    struct pattern_layout lay;
    struct scene_in in = {.code = "__shared__ float s[64]; s[lane]; s[lane * 2] = 0",
                          .env = &env, .access = 1, .warp = -1, .drop = 0xffff0000u,
                          .lay = &lay};
    assert_int_equal(scene_run(&r, &in, &acc, &res, NULL), 0);
    assert_int_equal(r.naccess, 2);
    assert_int_equal(r.prefix, 0);
    assert_int_equal(acc.op, BANK_STORE);
    assert_int_equal(acc.mask, 0x0000ffffu);
    assert_int_equal(res.ways, 1);              /* 2-way with all 32 lanes */
    scene_run_free(&r);
}

static void expect_fail(struct scene_run *r, const struct scene_in *in, int status,
                        const char *en, const char *zh, int lane)
{
    struct bank_access acc;
    struct bank_result res;
    struct bl_err err;
    char buf[512];
    bl_err_clear(&err);
    assert_int_equal(scene_run(r, in, &acc, &res, &err), -1);
    assert_int_equal(err.status, status);
    assert_string_equal(err.msg, en);
    assert_string_equal(bl_err_text(&err, BL_LANG_ZH, buf, sizeof buf), zh);
    assert_int_equal(err.lane, lane);
}

static void failures(void **state)
{
    (void)state;
    struct scene_run r = {0};
    struct lesson_scene s = scene("__shared__ T s[64]; s[lane * STRIDE]");
    char *names[] = {"PAD"};
    long long vals[] = {1};
    struct lesson_binding b = {1, names, vals, NULL};
    struct scene_in in = {.scene = &s, .bind = &b, .access = 0, .warp = -1};
    expect_fail(&r, &in, SCENE_EBIND, "'PAD' is not a parameter of the scene",
                "'PAD' 不是这个场景的参数", -1);
    names[0] = "STRIDE";
    vals[0] = 4;                                /* lane 16 reads s[64] */
    expect_fail(&r, &in, SCENE_EEVAL,
                "lane 16: index 64 is out of bounds for dimension 1 of 's' (size 64)",
                "lane 16：下标 64 越界：第 1 维（'s'，大小 64）", 16);
    struct pattern_env env;
    pattern_env_init(&env);
    in = (struct scene_in){.code = "__shared__ float s[64]; s[lane", .env = &env, .warp = -1};
    struct bl_err err;
    bl_err_clear(&err);
    assert_int_equal(scene_run(&r, &in, NULL, NULL, &err), -1);
    assert_int_equal(err.status, SCENE_EPARSE);
    assert_int_equal(err.where.at, (int)strlen(in.code) + 1);
    assert_null(r.pat);
    env.block[0] = 16;                          /* ldmatrix needs all 32 lanes */
    in.code = "__shared__ half t[4096]; ldmatrix.x2(t[lane * 64])";
    expect_fail(&r, &in, SCENE_EBANK,
                "ldmatrix/stmatrix are .sync.aligned: all 32 lanes of the warp must execute "
                "them (lane 16)",
                "ldmatrix/stmatrix 是 .sync.aligned：warp 的全部 32 个 lane 都必须执行它们"
                "（lane 16）", 16);
    /* a failure the caller holds already stays */
    bl_err_clear(&err);
    bl_fail(&err, 7, BL_NOWHERE, BL_TEXT, "first");
    struct bank_access acc;
    struct bank_result res;
    assert_int_equal(scene_run(&r, &in, &acc, &res, &err), -1);
    assert_int_equal(err.status, 7);
    assert_string_equal(err.msg, "first");
    scene_run_free(&r);
}

/* Every refusal of the bank model reads in Chinese too (its English is a phrase of msg.def). */
static void bank_refusals_in_both_languages(void **state)
{
    (void)state;
    for (int st = BANK_EWIDTH; st <= BANK_ESYNC; st++) {
        const char *en = bank_status_str((enum bank_status)st);
        const char *zh = bl_phrase(en, BL_LANG_ZH);
        if (!strcmp(zh, en))
            fail_msg("no Chinese for bank status %d: %s", st, en);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scene_and_binding),
        cmocka_unit_test(bare_text),
        cmocka_unit_test(failures),
        cmocka_unit_test(bank_refusals_in_both_languages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
