/* test_pattern_text.c: the text helpers of the pattern language (src/model/pattern_text.c):
 * parameter substitution (whole names only, not members or literals; truncation) and the
 * caret line under an error (columns in bytes and UTF-8, tabs, the second line, clipping).
 */
#include "pattern_test.h"

static void test_substitute_caret(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    pattern_env_set(&env, "PAD", 1);
    pattern_env_set(&env, "N", -12);
    char buf[128];
    int n = pattern_substitute("__shared__ float tile[32][32 + PAD]; t[PADDING + N + p.N + 0xN]",
                               &env, buf, sizeof buf);
    assert_string_equal(buf, "__shared__ float tile[32][32 + 1]; t[PADDING + -12 + p.N + 0xN]");
    assert_int_equal(n, (int)strlen(buf));
    char small[10];
    assert_int_equal(pattern_substitute("PAD + PAD + PAD + PAD", &env, small, sizeof small), -1);
    assert_string_equal(small, "1 + 1 + 1");
    assert_int_equal(pattern_substitute("x", &env, small, 0), -1);

    struct bl_err err = {.status = -1, .where = {.at = 5, .len = 3, .lane = -1}, .lane = -1};
    char cb[128];
    assert_string_equal(pattern_error_caret("s[a + PAD]", &err, cb, sizeof cb),
                        "  s[a + PAD]\n      ^~~\n");
    err.where.len = 50; /* clipped to the line */
    assert_string_equal(pattern_error_caret("s[a+b]", &err, cb, sizeof cb),
                        "  s[a+b]\n      ^~\n");
    err.where.at = 0;
    assert_string_equal(pattern_error_caret("s[a]", &err, cb, sizeof cb), "  s[a]\n");
    err.where.at = 9; /* on the second line */
    err.where.len = 1;
    assert_string_equal(pattern_error_caret("s[0];\ns[b]", &err, cb, sizeof cb),
                        "  s[b]\n    ^\n");
    /* a real error through the caret */
    const char *t = "__shared__ float s[32]; s[lane / 0]";
    struct pattern *p = NULL;
    assert_int_equal(pattern_parse(t, &p, &err), 0);
    struct bank_access acc;
    assert_int_equal(pattern_eval(p, &env, 0, &acc, NULL, &err), -1);
    pattern_free(p);
    assert_string_equal(pattern_error_caret(t, &err, cb, sizeof cb),
                        "  __shared__ float s[32]; s[lane / 0]\n"
                        "                            ^~~~~~~~\n");
    char tiny[6];
    pattern_error_caret(t, &err, tiny, sizeof tiny);
    assert_string_equal(tiny, "  __s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_substitute_caret),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
