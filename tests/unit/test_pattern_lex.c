/* test_pattern_lex.c: the lexer of the pattern language (src/model/pattern_lex.c): number
 * literals (hex, binary, octal, suffixes, floats) and their errors, comments, stray characters
 * and bytes, overlong names and texts, each error at its column.
 */
#include "pattern_test.h"

static void test_numbers(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    struct bank_access acc;
    /* hex, binary, octal and suffixes are integers; a float literal is an opaque value */
    sim("__shared__ char c[256]; c[0x10 + 0b11 + 010 + 5u + 6UL + 7ll + lane]", &env, 0, &acc);
    assert_int_equal(acc.offset[1], 16 + 3 + 8 + 5 + 6 + 7 + 1);
    sim("__shared__ float s[64]; float f = 1.5e-3f + .25 + 2.f; s[lane]", &env, 0, &acc);
    assert_int_equal(acc.offset[2], 8);
    static const struct error_case bad[] = {
        {"__shared__ float s[32]; s[0x123456789abcdef01]", "too large", "0x", -1},
        {"__shared__ float s[32]; s[09]", "malformed number", "09", -1},
        {"__shared__ float s[32]; float f = 1.5e; s[0]", "malformed number '1.5e'", "1.5e", -1},
        {"__shared__ float s[32]; s[0x]", "malformed number '0x'", "0x", -1},
    };
    parse_errs(bad, NCASES(bad));
}

static void test_characters(void **state)
{
    (void)state;
    static const struct error_case bad[] = {
        {"__shared__ float s[32]; s[lane] @", "unexpected character '@'", "@", -1},
        {"__shared__ float s[32]; s[lane] \x01", "unexpected byte 0x01", "\x01", -1},
        {"__shared__ float s[32]; s[lane] /* open", "unterminated comment", "/*", -1},
    };
    parse_errs(bad, NCASES(bad));
    struct pattern_env env;
    pattern_env_init(&env);
    struct bank_access acc;
    sim("/* a */ __shared__ float s[64]; // b\n s[lane /* c */ * 2] // d", &env, 0, &acc);
    assert_int_equal(acc.offset[1], 8);
}

static void test_lengths(void **state)
{
    (void)state;
    char *big = malloc(70000);
    assert_non_null(big);
    memset(big, ' ', 69999);
    big[69999] = 0;
    parse_err(big, "longer than", 0);
    free(big);
    const char *t = "__shared__ float s[32]; s[a_name_that_is_much_longer_than_31_chars]";
    parse_err(t, "longer than 31", col_of(t, "a_name"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_characters),
        cmocka_unit_test(test_lengths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
