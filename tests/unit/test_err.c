/* test_err.c: the one error of every room (src/base/err.h): the first failure wins, a status
 * of 0 is kept as -1, the place and the lane stand as given, the English text is printf's with
 * "lane N: " before it, the Chinese rendering takes the same arguments, and outside text goes
 * through BL_TEXT unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/base/err.h"

static void test_first_wins(void **state)
{
    (void)state;
    struct bl_err e;
    bl_err_clear(&e);
    assert_false(bl_err_failed(&e));
    assert_int_equal(bl_fail(&e, 0, BL_NOWHERE, BL_TEXT, "first"), -1);
    assert_true(bl_err_failed(&e));
    assert_int_equal(e.status, -1);
    assert_int_equal(bl_fail(&e, 4, BL_AT(3, 2, -1), BL_TEXT, "second"), -1);
    assert_string_equal(e.msg, "first");
    assert_int_equal(e.status, -1);
    assert_int_equal(e.where.at, 0);
    assert_int_equal(bl_fail(NULL, 1, BL_NOWHERE, BL_TEXT, "x"), -1);
}

static void test_place_and_lane(void **state)
{
    (void)state;
    struct bl_err e;
    bl_err_clear(&e);
    bl_fail(&e, 3, BL_AT(4, 0, 7), PAT_LANE, 9);
    assert_int_equal(e.status, 3);
    assert_int_equal(e.where.at, 5);
    assert_int_equal(e.where.len, 1);
    assert_int_equal(e.where.lane, 7);
    assert_string_equal(e.msg, "lane 7: lane 9: ");
    char zh[128];
    bl_err_text(&e, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "lane 7：lane 9：");
    bl_err_clear(&e);
    bl_fail(&e, 1, BL_AT(-1, 5, -1), BL_TEXT, "nvcc: %d");
    assert_int_equal(e.where.at, 0);
    assert_int_equal(e.where.len, 0);
    char en[64];
    assert_string_equal(bl_err_text(&e, BL_LANG_EN, en, sizeof en), "nvcc: %d");
}

static void test_outside_text(void **state)
{
    (void)state;
    struct bl_err e;
    bl_err_clear(&e);
    bl_fail(&e, 1, BL_NOWHERE, BL_TEXT, "libcuda.so.1: cannot open %d");
    char zh[128], en[128];
    assert_string_equal(bl_err_text(&e, BL_LANG_ZH, zh, sizeof zh), "libcuda.so.1: cannot open %d");
    assert_string_equal(bl_err_text(&e, BL_LANG_EN, en, sizeof en), "libcuda.so.1: cannot open %d");
    bl_err_clear(&e);
    assert_string_equal(bl_err_text(&e, BL_LANG_EN, en, sizeof en), "");
}

static void test_clock(void **state)
{
    (void)state;
    double a = bl_now_ms(), b = bl_now_ms();
    assert_true(a > 0 && b >= a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_wins),
        cmocka_unit_test(test_place_and_lane),
        cmocka_unit_test(test_outside_text),
        cmocka_unit_test(test_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
