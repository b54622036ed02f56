/* test_base.c: the base room (src/base): the bounded formatter cuts where the text does not
 * fit, always terminates, never writes past n nor into a NULL or zero-sized buffer, and says
 * how much it wrote. libc only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../src/base/fmt.h"

static void test_fmt(void **state)
{
    (void)state;
    char buf[8];
    assert_int_equal(bl_fmt(buf, sizeof buf, "%d-%s", 12, "ab"), 5);
    assert_string_equal(buf, "12-ab");
    /* cut where it does not fit, terminated, and the guard byte after n untouched */
    char big[12];
    memset(big, 'x', sizeof big);
    assert_int_equal(bl_fmt(big, 6, "%s", "abcdefghij"), 5);
    assert_string_equal(big, "abcde");
    assert_int_equal(big[6], 'x');
    /* nothing written into NULL or a zero-sized buffer */
    assert_int_equal(bl_fmt(NULL, 8, "%d", 1), 0);
    buf[0] = 'q';
    assert_int_equal(bl_fmt(buf, 0, "%d", 1), 0);
    assert_int_equal(buf[0], 'q');
    assert_int_equal(bl_fmt(buf, 1, "%d", 123), 0);
    assert_string_equal(buf, "");
}

/* The va_list form, as an error helper calls it: appends after a prefix. */
static size_t prefixed(char *dst, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static size_t prefixed(char *dst, size_t n, const char *fmt, ...)
{
    size_t k = bl_fmt(dst, n, "lane %d: ", 7);
    va_list ap;
    va_start(ap, fmt);
    k += bl_vfmt(dst + k, n - k, fmt, ap);
    va_end(ap);
    return k;
}

static void test_vfmt(void **state)
{
    (void)state;
    char buf[32];
    assert_int_equal(prefixed(buf, sizeof buf, "%s at %u", "overflow", 12u), 22);
    assert_string_equal(buf, "lane 7: overflow at 12");
    char small[12];
    assert_int_equal(prefixed(small, sizeof small, "%s", "a long message"), 11);
    assert_string_equal(small, "lane 7: a l");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt),
        cmocka_unit_test(test_vfmt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
