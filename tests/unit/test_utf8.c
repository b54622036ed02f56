/* test_utf8.c: outside text made safe (src/base/utf8.c): UTF-8 validity (overlong forms,
 * surrogates, past U+10FFFF, NUL), control characters (C0 but the allowed, DEL, C1), the
 * escaped copy for terminals (\xNN, cut at a character boundary) and the fixed copy for
 * report files (U+FFFD, spaces). libc only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../src/base/utf8.h"
#include "../../src/base/wrap.h"

static void test_valid(void **state)
{
    (void)state;
    const char ok[] = "abc \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80";  /* 中文 and an emoji */
    assert_true(bl_utf8_bad(ok, strlen(ok)) == SIZE_MAX);
    assert_int_equal(bl_utf8_bad("ab\xff", 3), 2);
    assert_int_equal(bl_utf8_bad("\xC0\xAF", 2), 0);          /* overlong '/' */
    assert_int_equal(bl_utf8_bad("x\xED\xA0\x80", 4), 1);     /* a surrogate */
    assert_int_equal(bl_utf8_bad("\xF4\x90\x80\x80", 4), 0);  /* past U+10FFFF */
    assert_int_equal(bl_utf8_bad("a\xE4\xB8", 3), 1);         /* cut in half */
    assert_int_equal(bl_utf8_bad("a\0b", 3), 1);              /* NUL */
}

static void test_control(void **state)
{
    (void)state;
    unsigned cp = 0;
    assert_true(bl_utf8_control("plain text\n", "\n", &cp) == SIZE_MAX);
    assert_int_equal(bl_utf8_control("plain\ntext", NULL, &cp), 5);
    assert_int_equal(cp, 0x0A);
    assert_int_equal(bl_utf8_control("x\033[2J", "\n", &cp), 1);
    assert_int_equal(cp, 0x1B);
    assert_int_equal(bl_utf8_control("\xE4\xB8\xAD\x7f", "\n", &cp), 3);
    assert_int_equal(cp, 0x7F);
    assert_int_equal(bl_utf8_control("ab\xC2\x9B" "2J", "\n", &cp), 2);  /* C1 CSI */
    assert_int_equal(cp, 0x9B);
    assert_true(bl_utf8_control("\xC2\xA0 no-break space", "\n", &cp) == SIZE_MAX);
}

static void test_clean(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(bl_clean(buf, sizeof buf, "a\033]0;x\007b"), "a\\x1b]0;x\\x07b");
    assert_string_equal(bl_clean(buf, sizeof buf, "\xE4\xB8\xAD\xff"), "\xE4\xB8\xAD\\xff");
    assert_string_equal(bl_clean(buf, sizeof buf, "\xC2\x9B" "2J"), "\\u009b2J");
    assert_string_equal(bl_clean(buf, sizeof buf, NULL), "");
    /* cut at a character boundary: never half a character, never half an escape */
    char small[6];
    assert_string_equal(bl_clean(small, sizeof small, "ab\xE4\xB8\xAD\xE6\x96\x87"), "ab\xE4\xB8\xAD");
    assert_string_equal(bl_clean(small, sizeof small, "ab\033cd"), "ab");
}

/* bidirectional overrides and isolates (U+202A-202E, U+2066-2069) reorder what is shown:
 * controls for the checks, escaped for terminals, spaces in reports */
static void test_bidi(void **state)
{
    (void)state;
    unsigned cp = 0;
    char buf[64];
    assert_int_equal(bl_utf8_control("ab\xE2\x80\xAE" "cd", "\n", &cp), 2);  /* U+202E */
    assert_int_equal(cp, 0x202E);
    assert_int_equal(bl_utf8_control("\xE2\x81\xA6x", NULL, &cp), 0);       /* U+2066 */
    assert_int_equal(cp, 0x2066);
    assert_true(bl_utf8_control("\xE2\x80\xA9 \xE2\x81\xAA", NULL, &cp) == SIZE_MAX);
    assert_string_equal(bl_clean(buf, sizeof buf, "x\xE2\x80\xAA" "y\xE2\x81\xA9"),
                        "x\\u202ay\\u2069");
    assert_string_equal(bl_utf8_fix(buf, sizeof buf, "x\xE2\x80\xAE" "y"), "x y");
}

static void test_lines_mask(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(bl_clean_lines(buf, sizeof buf, "a\n\033b\n"), "a\n\\x1bb\n");
    assert_string_equal(bl_clean(buf, sizeof buf, "a\nb"), "a\\x0ab");
    char m[] = "s[\xC2\x9B" "2J] \xff \xE4\xB8\xAD \xE2\x80\xAE\t";
    size_t n = strlen(m);
    assert_string_equal(bl_mask(m, n), "s[??2J] ? \xE4\xB8\xAD ????");
    assert_int_equal(strlen(m), n);  /* byte offsets kept */
    char z[] = {'a', 0, 'b'};
    bl_mask(z, 3);
    assert_memory_equal(z, "a?b", 3);
    assert_true(bl_clean_size("abc") >= 13);
}

static void test_fix(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(bl_utf8_fix(buf, sizeof buf, "bad\xff!"), "bad\xEF\xBF\xBD!");
    assert_string_equal(bl_utf8_fix(buf, sizeof buf, "l\033[2J\nx\x7f\xC2\x85y"), "l [2J\nx  y");
    assert_string_equal(bl_utf8_fix(buf, sizeof buf, "\xE4\xB8\xAD\xE6\x96\x87"), "\xE4\xB8\xAD\xE6\x96\x87");
    char small[4];
    assert_string_equal(bl_utf8_fix(small, sizeof small, "\xE4\xB8\xAD\xE6\x96\x87"), "\xE4\xB8\xAD");
}

/* a tool's name for a file: the bytes, the escaped copy (NVRTC's), '?' for odd bytes (nvcc's) */
/* columns without the locale: ASCII 1, a Chinese character and full-width punctuation 2, the
 * lessons' 2- and 3-byte symbols (·, ×, →) 1, a lone continuation or invalid lead byte 0 */
static void test_cols(void **state)
{
    (void)state;
    assert_int_equal(bl_cols(""), 0);
    assert_int_equal(bl_cols("bank 7"), 6);
    assert_int_equal(bl_cols("\xe6\xb3\xa2\xe5\x89\x8d"), 4);          /* 波前 */
    assert_int_equal(bl_cols("a\xef\xbc\x8c" "b"), 4);                  /* a，b */
    assert_int_equal(bl_cols("\xc2\xb7\xc3\x97\xe2\x86\x92"), 3);      /* ·×→ */
    assert_int_equal(bl_cols("\xf0\xa0\x80\x80"), 2);                  /* U+20000 */
    assert_int_equal(bl_cols("\x80x\xff"), 1);
    assert_int_equal(bl_cols("\xe6\xb3"), 0);                          /* cut short */
    size_t k;
    assert_int_equal(bl_cols_at("\xe6\xb3\xa2!", &k), 2);
    assert_int_equal((int)k, 3);
    assert_int_equal(bl_cols_at("\xb3", &k), 0);
    assert_int_equal((int)k, 1);
}

static void test_name_same(void **state)
{
    (void)state;
    assert_true(bl_name_same("/d/caf\xe9.cu", "/d/caf\xe9.cu"));
    assert_true(bl_name_same("/d/caf\\xe9.cu", "/d/caf\xe9.cu"));
    assert_true(bl_name_same("/d/caf?.cu", "/d/caf\xe9.cu"));
    assert_true(bl_name_same("k?]0;PWN?.cu", "k\033]0;PWN\007.cu"));
    assert_false(bl_name_same("/d/cafe.cu", "/d/caf\xe9.cu"));
    assert_false(bl_name_same("/d/caf?.cu", "/d/cafe.cu"));
    assert_false(bl_name_same("/d/caf\\xe9.cu", "/d/caf\\xe9.cu.other"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_control),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_fix),
        cmocka_unit_test(test_bidi),
        cmocka_unit_test(test_lines_mask),
        cmocka_unit_test(test_name_same),
        cmocka_unit_test(test_cols),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
