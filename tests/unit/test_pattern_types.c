/* test_pattern_types.c: the type table of the pattern language (src/model/pattern_type.c):
 * every builtin scalar and vector type with its width, members of vectors and structs, C
 * struct layout, typedefs, pointer types, and the type errors.
 */
#include "pattern_test.h"

static void test_types_and_widths(void **state)
{
    (void)state;
    static const struct { const char *type; unsigned width; } cases[] = {
        {"char", 1}, {"unsigned char", 1}, {"short", 2}, {"unsigned short", 2}, {"int", 4},
        {"unsigned", 4}, {"unsigned int", 4}, {"float", 4}, {"double", 8}, {"half", 2},
        {"__half", 2}, {"float2", 8}, {"float4", 16}, {"int2", 8}, {"int4", 16},
        {"double2", 16}, {"long long", 8}, {"unsigned long long", 8}, {"const float", 4},
    };
    struct pattern_env env;
    pattern_env_init(&env);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[160];
        snprintf(text, sizeof text, "__shared__ %s a[64]; a[lane]", cases[i].type);
        struct bank_access acc;
        struct pattern_layout lay;
        struct pattern *p = eval_layout(text, &env, 0, &acc, &lay);
        assert_int_equal(acc.width, cases[i].width);
        assert_int_equal(acc.offset[3], 3 * cases[i].width);
        assert_int_equal(lay.narrays, 1);
        const struct pattern_array_info *ai = &lay.array[0];
        assert_int_equal(ai->elem_size, cases[i].width);
        assert_int_equal(ai->bytes, 64 * cases[i].width);
        pattern_free(p);
    }
    /* vector members have the member's width */
    struct bank_access acc;
    struct bank_result r = sim("__shared__ float2 v[64]; v[lane].y", &env, 0, &acc);
    assert_int_equal(acc.width, 4);
    assert_int_equal(acc.offset[2], 2 * 8 + 4);
    assert_int_equal(r.wavefronts, 2); /* stride 2 words: 2-way */
    sim("__shared__ int4 v[64]; v[lane].w", &env, 0, &acc);
    assert_int_equal(acc.offset[1], 16 + 12);
    sim("__shared__ double2 v[64]; v[lane].y", &env, 0, &acc);
    assert_int_equal(acc.width, 8);
    assert_int_equal(acc.offset[1], 16 + 8);
    /* structs of ints, named struct types, typedef'd structs, -> */
    sim("typedef struct { int a; unsigned b; float c; float d; } Q; __shared__ Q q[32]; q[lane].d",
        &env, 0, &acc);
    assert_int_equal(acc.offset[1], 16 + 12);
    sim("__shared__ struct P { float x, y; } a[32]; __shared__ struct P b[32]; b[lane].y", &env, 0,
        &acc);
    assert_int_equal(acc.offset[0], 32 * 8 + 4);
    sim("__shared__ struct { float x, y, z; } p[256]; struct { float x, y, z; } *q = p + 1;"
        " q->y", &env, 0, &acc);
    assert_int_equal(acc.offset[0], 12 + 4);
    /* nested structs: C layout (in: float, pad, double = 16 bytes, then c: 24 in all) */
    struct pattern_layout lay;
    struct pattern *p = eval_layout("__shared__ struct { struct { float a; double b; } in; int c; }"
                                    " s[4]; s[lane % 4].in.b", &env, 0, &acc, &lay);
    assert_int_equal(acc.width, 8);
    assert_int_equal(acc.offset[1], 24 + 8);
    assert_int_equal(lay.array[0].bytes, 96);
    pattern_free(p);
}

static void test_typedef_cycling(void **state)
{
    (void)state;
    static const struct { const char *t; int wf; } cases[] = {
        {"char", 1}, {"short", 1}, {"float", 1}, {"double", 2}, {"float4", 4},
    };
    struct pattern_env env;
    pattern_env_init(&env);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "typedef %s T; __shared__ T s[64]; s[lane]", cases[i].t);
        struct bank_result r = sim(text, &env, 0, NULL);
        assert_int_equal(r.wavefronts, cases[i].wf);
    }
}

static void test_type_errors(void **state)
{
    (void)state;
    static const struct error_case bad[] = {
        {"__shared__ foo s[32]; s[lane]", "unknown type 'foo'", "foo", -1},
        {"__shared__ float s[32]; (bar *)s", "unknown type 'bar'", "bar", -1},
        {"__shared__ float3 v[32]; v[lane]", "12-byte", "v[lane]", -1},
        {"__shared__ struct { float x, y, z; } p[32]; p[lane].q", "no member 'q'", "q", -1},
    };
    parse_errs(bad, NCASES(bad));
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "__shared__ ");
    for (int i = 0; i < PATTERN_MAX_DEPTH + 2; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "struct { ");
    parse_err(buf, "structs nested too deeply", 0);
}

/* Pointer types: one '*', qualifiers after it in a declarator, no pointers to pointers. */
static void test_pointer_types(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    env.dyn_bytes = 256;
    struct bank_access acc;
    sim("extern __shared__ char smem[]; float * __restrict__ const p = (float *)smem; p[lane]",
        &env, 0, &acc);
    assert_int_equal(acc.offset[3], 12);
    static const struct error_case bad[] = {
        {"extern __shared__ char smem[]; float **p = (float *)smem; p[0]",
         "pointers to pointers are not supported", "*p", -1},
        {"extern __shared__ char smem[]; float *p = (float **)smem; p[0]",
         "pointers to pointers are not supported", "*)", -1},
        {"extern __shared__ char smem[]; float *p = (float *const)smem; p[0]",
         "expected ')' to close the cast", "const", -1},
    };
    parse_errs(bad, NCASES(bad));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types_and_widths),
        cmocka_unit_test(test_typedef_cycling),
        cmocka_unit_test(test_type_errors),
        cmocka_unit_test(test_pointer_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
