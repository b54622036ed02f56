/* test_pattern_expr.c: expressions of the pattern language (src/model/pattern_expr.c): every
 * operator against C, float locals and sizeof, and the expression errors: indexing, what is
 * not an integer, calls, builtins not modelled, nesting and length limits, parameters.
 */
#include "pattern_test.h"

static void test_operators(void **state)
{
    (void)state;
    struct pattern_env env;
    struct bank_access acc;
    /* operators */
    pattern_env_init(&env);
    sim("__shared__ char c[4096]; c[(((lane << 3) >> 1) ^ 5 | 2) & ~1 % 7 + (!0) * -(-3)"
        " + (lane % 2 == 0 && lane != 2 || lane >= 30) + (lane <= 1) - (lane > 40)]",
        &env, 0, &acc);
    for (int i = 0; i < 32; i++) {
        long long want = (((((i << 3) >> 1) ^ 5) | 2) & (~1 % 7 + 1 * 3)) +
                         ((i % 2 == 0 && i != 2) || i >= 30) + (i <= 1) - (i > 40);
        assert_int_equal(acc.offset[i], want);
    }
    /* a float local and a load into it; sizeof; comments */
    sim("__shared__ double d[64]; /* a */ float f = 2.0f; // b\n double v = d[lane] * f;"
        " d[lane * sizeof(float2) / 8]", &env, 1, &acc);
    assert_int_equal(acc.width, 8);
    assert_int_equal(acc.offset[3], 24);
}

static void test_expr_errors(void **state)
{
    (void)state;
    const char *t = "__shared__ float s[32]; s[lane";
    parse_err(t, "expected ']'", (int)strlen(t) + 1);
    static const struct error_case bad[] = {
        {"__shared__ float s[32; s[lane]", "expected ']'", ";", -1},
        {"__shared__ float s[32]; s[0.5f]", "not an integer", "0.5f", -1},
        {"__shared__ float s[32]; s[s[lane]]", "not an integer", "s[lane]", -1},
        {"__shared__ float s[lane]; s[0]", "constants", "lane", -1},
        {"__shared__ float s[32]; s(lane)", "'s' is not a function", "(lane", -1},
        {"__shared__ float s[32]; s[blockIdx.x]", "not modelled", "blockIdx", -1},
        {"__shared__ float s[32]; s[foo(1)]", "unknown function 'foo'", "foo", -1},
    };
    parse_errs(bad, NCASES(bad));
}

/* nesting too deep, a long expression, too many parameters */
static void test_expr_limits(void **state)
{
    (void)state;
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "__shared__ float s[32]; s[");
    for (int i = 0; i < PATTERN_MAX_DEPTH + 4; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "(");
    parse_err(buf, "nested too deeply", 0);
    n = snprintf(buf, sizeof buf, "__shared__ float s[32]; s[");
    for (int i = 0; i < 400; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "1+");
    snprintf(buf + n, sizeof buf - (size_t)n, "1]");
    parse_err(buf, "too long or nested too deeply", 0);
    n = snprintf(buf, sizeof buf, "__shared__ float s[32]; s[");
    for (int i = 0; i < PATTERN_MAX_PARAMS + 1; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "P%d+", i);
    snprintf(buf + n, sizeof buf - (size_t)n, "0]");
    parse_err(buf, "too many parameters", col_of(buf, "P16"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operators),
        cmocka_unit_test(test_expr_errors),
        cmocka_unit_test(test_expr_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
