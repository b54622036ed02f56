/* test_lexicon.c: the word lists for reading prose (src/base/lexicon.def, lexicon.c): each
 * list in each language NULL-terminated and of whole UTF-8 words, the numerals one word per
 * value in both languages, a word found at the start and at the end of a text in either
 * language, and the line breaker's punctuation one character a word. libc only. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../src/base/lexicon.h"
#include "../../src/base/utf8.h"

static void test_lists(void **state)
{
    (void)state;
    for (int id = 0; id < BL_LEX_COUNT; id++) {
        int words = 0;
        for (int l = 0; l < 2; l++)
            for (const char *const *w = bl_lex((enum bl_lex)id, (enum bl_lang)l); *w; w++) {
                assert_true(**w);
                assert_true(bl_utf8_bad(*w, strlen(*w)) == SIZE_MAX);
                words++;
            }
        assert_true(words > 0);   /* no row without a word */
    }
    assert_null(bl_lex(BL_LEX_COUNT, BL_LANG_EN)[0]);
    assert_null(bl_lex((enum bl_lex)-1, BL_LANG_ZH)[0]);
}

static int count(enum bl_lex id, enum bl_lang l)
{
    int n = 0;
    for (const char *const *w = bl_lex(id, l); *w; w++)
        n++;
    return n;
}

static void test_numerals(void **state)
{
    (void)state;
    /* lesson_check.c's numeral_values: 1 to 10, 12, 16, 32 */
    assert_int_equal(count(BL_LEX_NUMERALS, BL_LANG_EN), 13);
    assert_int_equal(count(BL_LEX_NUMERALS, BL_LANG_ZH), 13);
    assert_string_equal(bl_lex(BL_LEX_NUMERALS, BL_LANG_EN)[12], "thirty-two");
    assert_string_equal(bl_lex(BL_LEX_NUMERALS, BL_LANG_ZH)[12], "\xe4\xb8\x89\xe5\x8d\x81\xe4\xba\x8c");
}

static void test_prefix_suffix(void **state)
{
    (void)state;
    const char *s = "within 11 %";
    assert_int_equal(bl_lex_prefix(BL_LEX_AT_MOST_BEFORE, s), strlen("within"));
    assert_int_equal(bl_lex_prefix(BL_LEX_AT_MOST_BEFORE, "11 %"), 0);
    /* the Chinese "less than" (bu dao) before a quote, and the full-width percent sign */
    const char *zh = "\xe4\xb8\x8d\xe5\x88\xb0";
    assert_int_equal(bl_lex_suffix(BL_LEX_AT_MOST_BEFORE, zh, zh + strlen(zh)), strlen(zh));
    assert_int_equal(bl_lex_suffix(BL_LEX_AT_MOST_BEFORE, zh, zh + 3), 0);
    assert_int_equal(bl_lex_prefix(BL_LEX_PERCENT_SIGN, "\xef\xbc\x85 faster"), 3);
    assert_int_equal(bl_lex_prefix(BL_LEX_PERCENT_SIGN, "% faster"), 1);
    assert_int_equal(bl_lex_suffix(BL_LEX_AT_LEAST_BEFORE, s, s), 0);
    assert_int_equal(bl_lex_prefix(BL_LEX_AT_LEAST_BEFORE, NULL), 0);
}

static void test_chars(void **state)
{
    (void)state;
    assert_true(bl_lex_has_char(BL_LEX_NO_LINE_START, 0x3002));    /* ideographic full stop */
    assert_true(bl_lex_has_char(BL_LEX_NO_LINE_START, 0xff05));    /* full-width percent */
    assert_true(bl_lex_has_char(BL_LEX_NO_LINE_START, 0x2026));    /* ellipsis */
    assert_true(bl_lex_has_char(BL_LEX_NO_LINE_END, 0xff08));      /* full-width ( */
    assert_false(bl_lex_has_char(BL_LEX_NO_LINE_END, 0xff09));     /* full-width ) */
    assert_false(bl_lex_has_char(BL_LEX_NO_LINE_START, '.'));      /* ASCII: in wrap.c */
    assert_false(bl_lex_has_char(BL_LEX_AT_MOST_BEFORE, 0x4e0d));  /* words, not characters */
    for (int l = 0; l < 2; l++)
        for (const char *const *w = bl_lex(BL_LEX_NO_LINE_START, (enum bl_lang)l); *w; w++)
            assert_true(strlen(*w) <= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_numerals),
        cmocka_unit_test(test_prefix_suffix),
        cmocka_unit_test(test_chars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
