/* test_json_write.c: the one JSON writer (src/store/json_write.c): members and elements in
 * nested containers, the numbers as asked (printf formats, every digit of an integer, NaN as
 * null), strings escaped as docs/security.md says (bytes that are not UTF-8 as '?', DEL, C1
 * and bidirectional controls as \uXXXX) and the output parsing back; a failed document; a
 * struct's members written from a field table (jw_fields). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../src/store/json_write.h"

/* w printed (and freed) into buf; returns jw_print's status */
static int print_to(struct jw *w, int pretty, char *buf, size_t size)
{
    FILE *f = fmemopen(buf, size, "w");
    assert_non_null(f);
    int rc = jw_print(w, f, pretty);
    fclose(f);
    jw_free(w);
    return rc;
}

static void test_compact(void **state)
{
    (void)state;
    char buf[512];
    struct jw *w = jw_new(0);
    assert_non_null(w);
    jw_int(w, "big", 1234567890123456789LL);
    jw_numf(w, "six", "%.6g", 0.1234567);
    jw_numf(w, "three", "%.3f", 12.0);
    jw_numf(w, "none", "%.6g", NAN);
    jw_num(w, "n", 2.5);
    jw_bool(w, "yes", 7);
    jw_str(w, "nothing", NULL);
    jw_strn(w, "cut", "abcdef", 3);
    jw_arr(w, "list");
    jw_int(w, "ignored-key", 1);
    jw_obj(w, NULL);
    jw_null(w, "x");
    jw_end(w);
    jw_end(w);
    jw_obj(w, "empty");
    jw_end(w);
    assert_int_equal(print_to(w, 0, buf, sizeof buf), 0);
    assert_string_equal(buf, "{\"big\":1234567890123456789,\"six\":0.123457,\"three\":12.000,"
                             "\"none\":null,\"n\":2.5,\"yes\":true,\"nothing\":null,"
                             "\"cut\":\"abc\",\"list\":[1,{\"x\":null}],\"empty\":{}}\n");
}

/* A field table: each member from its offset, as its row's type says, in the table's order. */
struct counts {
    double ms;
    int hits, flag, misses;
};

static void test_fields(void **state)
{
    (void)state;
    static const struct jw_field rows[] = {
        JW_FIELD("misses", struct counts, misses), JW_FLAG("flag", struct counts, flag),
        JW_FIELD("ms", struct counts, ms), JW_FIELD("hits", struct counts, hits)};
    const struct counts c = {.ms = 0.25, .hits = 2147483647, .flag = 5, .misses = -3};
    char buf[256];
    struct jw *w = jw_new(0);
    JW_FIELDS(w, &c, rows);
    jw_fields(w, &c, rows + 3, 0);   /* no rows: nothing */
    jw_obj(w, "zero");
    JW_FIELDS(w, &(struct counts){0}, rows);
    jw_end(w);
    assert_int_equal(print_to(w, 0, buf, sizeof buf), 0);
    assert_string_equal(buf, "{\"misses\":-3,\"flag\":true,\"ms\":0.25,\"hits\":2147483647,"
                             "\"zero\":{\"misses\":0,\"flag\":false,\"ms\":0,\"hits\":0}}\n");
}

static void test_strings(void **state)
{
    (void)state;
    char buf[512];
    struct jw *w = jw_new(1);
    jw_str(w, NULL, "q\"b\\ nl\n tab\t");
    jw_str(w, NULL, "del\x7f c1\xc2\x85 rlo\xe2\x80\xae iso\xe2\x81\xa6 ok\xe4\xb8\xad");
    jw_str(w, NULL, "bad\xff lone\xc3 over\xc0\xaf sur\xed\xa0\x80 end");
    assert_int_equal(print_to(w, 0, buf, sizeof buf), 0);
    assert_string_equal(buf, "[\"q\\\"b\\\\ nl\\n tab\\t\","
                             "\"del\\u007f c1\\u0085 rlo\\u202e iso\\u2066 ok\xe4\xb8\xad\","
                             "\"bad? lone? over?? sur??? end\"]\n");
    cJSON *back = cJSON_Parse(buf);
    assert_non_null(back);
    assert_string_equal(cJSON_GetArrayItem(back, 1)->valuestring,
                        "del\x7f c1\xc2\x85 rlo\xe2\x80\xae iso\xe2\x81\xa6 ok\xe4\xb8\xad");
    cJSON_Delete(back);
}

static void test_pretty_and_failure(void **state)
{
    (void)state;
    char buf[4096];
    struct jw *w = jw_new(0);
    jw_obj(w, "a");
    jw_int(w, "b", 1);
    jw_end(w);
    assert_int_equal(print_to(w, 1, buf, sizeof buf), 0);
    assert_string_equal(buf, "{\n\t\"a\":\t{\n\t\t\"b\":\t1\n\t}\n}\n");
    /* more than 16 containers deep: the document fails, nothing half-printed */
    w = jw_new(0);
    for (int i = 0; i < 20; i++)
        jw_obj(w, "deeper");
    for (int i = 0; i < 20; i++)
        jw_end(w);
    jw_int(w, "after", 1);
    memset(buf, 0, sizeof buf);
    assert_int_equal(print_to(w, 0, buf, sizeof buf), -1);
    assert_string_equal(buf, "");
    /* a NULL document: nothing happens, printing fails */
    jw_int(NULL, "k", 1);
    jw_end(NULL);
    assert_int_equal(jw_print(NULL, stdout, 0), -1);
    jw_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compact),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_pretty_and_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
