/* test_pattern_stmt.c: declarations and statements of the pattern language
 * (src/model/pattern_decl.c, pattern_stmt.c): what the parser learns about each access, locals
 * and const locals, if / else guards, and the statement errors and table limits.
 */
#include "pattern_test.h"

static void test_access_info(void **state)
{
    (void)state;
    struct pattern *p = NULL;
    struct bl_err err;
    const char *text = "typedef float4 T; __shared__ T v[64]; float w = v[lane].y; v[lane] = w;"
                       " __shared__ float s[S]; s[lane] = v[lane].x";
    assert_int_equal(pattern_parse(text, &p, &err), 0);
    assert_int_equal(pattern_access_count(p), 3);
    const struct pattern_access_info *a = pattern_access(p, 0);
    assert_int_equal(a->kind, PATTERN_LOAD);
    assert_int_equal(a->width, 4);
    assert_string_equal(a->array, "v");
    assert_string_equal(a->type, "float");
    assert_int_equal(a->col, col_of(text, "float w"));
    a = pattern_access(p, 1);
    assert_int_equal(a->kind, PATTERN_STORE);
    assert_int_equal(a->width, 16);
    assert_string_equal(a->type, "float4");
    a = pattern_access(p, 2);
    assert_int_equal(a->kind, PATTERN_STORE);
    assert_string_equal(a->array, "s");
    assert_null(pattern_access(p, 3));
    assert_null(pattern_access(p, -1));
    assert_int_equal(pattern_param_count(p), 1);
    assert_string_equal(pattern_param_name(p, 0), "S");
    assert_null(pattern_param_name(p, 1));
    pattern_free(p);
}

static void test_locals(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    env.block[0] = 64;
    env.warp = 1;
    struct bank_access acc;
    /* locals evaluated per lane; warp 1 of a 64-thread block is tid 32..63 */
    sim("__shared__ float s[64][33]; int row = tid / 32; unsigned col = tid % 32;"
        " s[row][col]", &env, 0, &acc);
    for (int i = 0; i < 32; i++)
        assert_int_equal(acc.offset[i], (33 + i) * 4);
    /* reassignment, min/max, ?:, casts, hex/suffixes, shadowing a builtin */
    sim("__shared__ float s[128]; int lane = threadIdx.x & 0x1f; int j = lane * 2U;"
        " j = min(j, 40) + max(0, (int)lane - 30); s[lane < 4 ? 100 : j]", &env, 0, &acc);
    assert_int_equal(acc.offset[0], 400);
    assert_int_equal(acc.offset[4], 8 * 4);
    assert_int_equal(acc.offset[20], 40 * 4);
    assert_int_equal(acc.offset[31], (40 + 1) * 4);
    /* const locals are constants: they can size arrays */
    pattern_env_init(&env);
    pattern_env_set(&env, "PAD", 1);
    struct pattern_layout lay;
    struct pattern *p = eval_layout("const int TILE = 32; const int W = TILE + PAD; __shared__"
                                    " float t[TILE][W]; t[lane][lane % TILE]", &env, 0, &acc,
                                    &lay);
    assert_int_equal(lay.array[0].dims[1], 33);
    assert_int_equal(acc.offset[2], (2 * 33 + 2) * 4);
    pattern_free(p);
    /* several declarators; a local without a value is unknown (fine until used in an index) */
    p = eval_ok("__shared__ float s[64]; float sum; int a = lane, b = a * 2; float *c = s + 1;"
                " float v = s[b], w = s[a]; c[b]", &env, 2, &acc);
    assert_int_equal(acc.offset[3], (6 + 1) * 4);
    pattern_free(p);
    p = eval_ok("__shared__ float s[64]; float sum; int a = lane, b = a * 2;"
                " float v = s[b], w = s[a]; s[b + 1]", &env, 1, &acc);
    assert_int_equal(pattern_access_count(p), 3);
    assert_int_equal(acc.offset[3], 3 * 4);
    pattern_free(p);
    const char *t = "__shared__ float s[64]; int k; s[k]";
    parse_err(t, "'k' is not an integer the model can compute", col_of(t, "k]"));
    t = "const int TILE = 32; TILE = 3; __shared__ float s[TILE]; s[lane]";
    parse_err(t, "'TILE' is const", col_of(t, "; TILE") + 2);
    t = "const int K = lane; __shared__ float s[K]; s[lane]";
    parse_err(t, "array dimensions must be constants", col_of(t, "K]"));
}

static void test_guard(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    struct bank_access acc;
    struct bank_result r = sim("__shared__ float s[1024]; if (lane < 16) s[lane * 32]", &env, 0,
                               &acc);
    assert_int_equal(acc.mask, 0x0000ffffu);
    assert_int_equal(r.wavefronts, 16);
    /* guarded-off lanes are not evaluated: no out-of-bounds error for them */
    sim("__shared__ float s[16]; if (lane < 16) { s[lane] = 0.5f; }", &env, 0, &acc);
    assert_int_equal(acc.mask, 0x0000ffffu);
    assert_int_equal(acc.op, BANK_STORE);
    sim("__shared__ float s[64]; float v; if (lane >= 8) v = s[lane - 8]", &env, 0, &acc);
    assert_int_equal(acc.mask, 0xffffff00u);
    assert_int_equal(acc.offset[8], 0);
    /* else and else if: one access per branch, guarded by "no earlier branch taken" */
    const char *t = "__shared__ float s[64]; if (lane < 8) s[lane]; else if (lane < 20) {"
                    " s[lane * 2] = 1.0f; } else s[0]";
    sim(t, &env, 0, &acc);
    assert_int_equal(acc.mask, 0x000000ffu);
    sim(t, &env, 1, &acc);
    assert_int_equal(acc.mask, 0x000fff00u);
    assert_int_equal(acc.op, BANK_STORE);
    sim(t, &env, 2, &acc);
    assert_int_equal(acc.mask, 0xfff00000u);
    sim("__shared__ float s[64]; if (lane & 1) { s[lane]; } else { s[lane + 1]; }", &env, 1, &acc);
    assert_int_equal(acc.mask, 0x55555555u);
    parse_err("__shared__ float s[64]; s[0]; else s[1]", "'else' without 'if'", 31);
    sim("__shared__ float s[64]; if (lane % 2) s[lane]; s[lane * 2]", &env, 1, &acc);
    assert_int_equal(acc.mask, 0xffffffffu);
    sim("__shared__ float s[64]; if (lane % 2) s[lane]; s[lane * 2]", &env, 0, &acc);
    assert_int_equal(acc.mask, 0xaaaaaaaau);
}

static void test_stmt_errors(void **state)
{
    (void)state;
    static const struct error_case bad[] = {
        {"", "empty pattern", NULL, -1},
        {" ; ;\n", "empty pattern", NULL, -1},
        {"__shared__ float s[32];", "no access", NULL, -1},
        {"__shared__ float s[32]; s[lane] += 1", "compound assignment", "+=", -1},
        {"__shared__ float s[32]; lane * 2", "does not access shared memory", "lane", -1},
        {"__shared__ float s[32]; __shared__ float s[4]; s[0]", "already declared", "s[4]", -1},
        {"__shared__ float s[32]; s[lane] + s[0]", "more than one shared memory read", "s[lane]",
         -1},
        {"float *p = (float *)smem; p[lane]", "unknown name 'smem' (declare it first", "smem",
         -1},
        {"int x = 1; x = s[0]; __shared__ float s[4]; s[0]", "unknown name 's'", "s[0]", -1},
        {"__shared__ float s[32]; s[ROW]; int ROW = 1; s[ROW]", "declared after its first use",
         "ROW = 1", -1},
        {"__shared__ float s[32]; if (lane) int k = 1", "only a shared memory access", "int", -1},
        {"__shared__ float s[32][2][2][2]; s[0][0][0][0]", "more than 3 dimensions", "[2]; s",
         -1},
    };
    parse_errs(bad, NCASES(bad));
}

/* too many accesses, names, arrays */
static void test_stmt_limits(void **state)
{
    (void)state;
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "__shared__ float s[32];");
    for (int i = 0; i < PATTERN_MAX_ACCESSES + 1; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " s[%d];", i);
    parse_err(buf, "too many accesses", col_of(buf, "s[8]"));
    n = 0;
    for (int i = 0; i < 40; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "int v%d = %d; ", i, i);
    parse_err(buf, "too many names", col_of(buf, "v32"));
    n = 0;
    for (int i = 0; i < 17; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "__shared__ char a%d[4]; ", i);
    snprintf(buf + n, sizeof buf - (size_t)n, "a0[0]");
    parse_err(buf, "too many shared arrays and pointers (at most 16)", col_of(buf, "a16"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_access_info),
        cmocka_unit_test(test_locals),
        cmocka_unit_test(test_guard),
        cmocka_unit_test(test_stmt_errors),
        cmocka_unit_test(test_stmt_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
