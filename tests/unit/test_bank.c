/* test_bank.c: the bank model against the H200 truth table (tests/data/h200-wavefronts.json)
 * and against the consequences docs/model.md lists. The table is read at run time, not copied.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../src/model/bank.h"

#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "tests/data"
#endif

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = 0;
    fclose(f);
    return buf;
}

static void test_h200_table(void **state)
{
    (void)state;
    char *text = slurp(TEST_DATA_DIR "/h200-wavefronts.json");
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    assert_true(cJSON_IsArray(cases));
    int ncases = 0, bad = 0;
    cJSON *c;
    cJSON_ArrayForEach(c, cases) {
        struct bank_access acc = {0};
        const char *name = cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring;
        acc.width = (unsigned)cJSON_GetObjectItemCaseSensitive(c, "width")->valueint;
        acc.op = strcmp(cJSON_GetObjectItemCaseSensitive(c, "op")->valuestring, "st") == 0
                     ? BANK_STORE : BANK_LOAD;
        acc.mask = (uint32_t)strtoul(cJSON_GetObjectItemCaseSensitive(c, "mask")->valuestring,
                                     NULL, 16);
        cJSON *offs = cJSON_GetObjectItemCaseSensitive(c, "offsets");
        assert_int_equal(cJSON_GetArraySize(offs), 32);
        for (int i = 0; i < 32; i++)
            acc.offset[i] = (uint64_t)cJSON_GetArrayItem(offs, i)->valuedouble;
        int want_wf = cJSON_GetObjectItemCaseSensitive(c, "wavefronts")->valueint;
        int want_cf = cJSON_GetObjectItemCaseSensitive(c, "conflicts")->valueint;
        struct bank_result r;
        assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
        if (r.wavefronts != want_wf || r.conflicts != want_cf) {
            print_error("%s: model %d wavefronts / %d conflicts, H200 %d / %d\n", name,
                        r.wavefronts, r.conflicts, want_wf, want_cf);
            bad++;
        }
        ncases++;
    }
    cJSON_Delete(root);
    free(text);
    assert_int_equal(ncases, 63);
    assert_int_equal(bad, 0);
}

static struct bank_result run_stride(unsigned width, unsigned stride_elems, enum bank_op op,
                                     uint32_t mask)
{
    struct bank_access acc = {.width = width, .op = op, .mask = mask};
    for (int i = 0; i < 32; i++)
        acc.offset[i] = (uint64_t)i * stride_elems * width;
    struct bank_result r;
    assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
    return r;
}

static void test_consequences(void **state)
{
    (void)state;
    struct bank_result r;
    r = run_stride(16, 1, BANK_LOAD, 0xffffffffu); /* float4 conflict-free: 4 wavefronts */
    assert_int_equal(r.wavefronts, 4);
    assert_int_equal(r.conflicts, 0);
    assert_int_equal(r.passes, 4);
    r = run_stride(8, 2, BANK_LOAD, 0xffffffffu); /* float2 stride 2 */
    assert_int_equal(r.wavefronts, 4);
    assert_int_equal(r.conflicts, 2);
    r = run_stride(4, 3, BANK_LOAD, 0xffffffffu); /* 12-byte struct .x */
    assert_int_equal(r.wavefronts, 1);
    r = run_stride(4, 32, BANK_LOAD, 0x0000ffffu); /* 16-lane partial warp, stride 32 */
    assert_int_equal(r.ways, 16);
    assert_int_equal(r.conflict_lanes, 0x0000ffffu);
    r = run_stride(1, 1, BANK_LOAD, 0xffffffffu); /* char neighbours share words */
    assert_int_equal(r.wavefronts, 1);
    assert_int_equal(r.conflict_lanes, 0);

    /* (tid*32) % 33 is a 2-way conflict, not a fix */
    struct bank_access acc = {.width = 4, .op = BANK_LOAD, .mask = 0xffffffffu};
    for (int i = 0; i < 32; i++)
        acc.offset[i] = (uint64_t)((i * 32) % 33) * 4;
    assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
    assert_int_equal(r.ways, 2);
    assert_int_equal(r.wavefronts, 2);
}

static void test_drawing_fields(void **state)
{
    (void)state;
    struct bank_result r = run_stride(4, 32, BANK_LOAD, 0xffffffffu);
    assert_int_equal(r.pass[0].worst_bank, 0);
    assert_int_equal(r.pass[0].cell[0].nwords, 32);
    assert_int_equal(r.pass[0].cell[1].nwords, 0);
    assert_int_equal(r.pass[0].cell[0].lanes[5], 1u << 5);
    assert_int_equal(r.lane[7].bank[0], 0);
    assert_int_equal(r.lane[7].word[0], 7 * 32);

    r = run_stride(8, 1, BANK_LOAD, 0xffffffffu);
    assert_int_equal(r.npasses, 2);
    assert_int_equal(r.paired, 0);
    assert_int_equal(r.lane[16].pass, 1);
    assert_int_equal(r.lane[3].nwords, 2);
    assert_int_equal(r.lane[3].bank[1], 7);

    /* broadcast: one word, all lanes behind it */
    r = run_stride(4, 0, BANK_LOAD, 0xffffffffu);
    assert_int_equal(r.pass[0].cell[0].nwords, 1);
    assert_int_equal(r.pass[0].cell[0].lanes[0], 0xffffffffu);
    assert_int_equal(r.conflict_lanes, 0);

    /* pairing: f64 lanes n and n^1 share addresses -> one 32-lane pass */
    struct bank_access acc = {.width = 8, .op = BANK_LOAD, .mask = 0xffffffffu};
    for (int i = 0; i < 32; i++)
        acc.offset[i] = (uint64_t)(i / 2) * 8;
    assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
    assert_int_equal(r.paired, 1);
    assert_int_equal(r.npasses, 1);
    assert_int_equal(r.wavefronts, 1);
    acc.op = BANK_STORE; /* stores never fuse */
    assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
    assert_int_equal(r.paired, 0);
    assert_int_equal(r.wavefronts, 2);
}

static void test_errors_and_idle(void **state)
{
    (void)state;
    struct bank_access acc = {.width = 3, .mask = 1};
    struct bank_result r;
    assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_EWIDTH);
    acc.width = 8;
    acc.offset[0] = 4;
    int bad = -1;
    assert_int_equal(bank_simulate(&acc, &r, &bad), BANK_EALIGN);
    assert_int_equal(bad, 0);
    acc.mask = 0; /* misaligned inactive lanes are ignored; no active lane costs nothing */
    assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
    assert_int_equal(r.wavefronts, 0);
    assert_int_equal(r.passes, 0);
    assert_int_equal(r.ways, 0);
    assert_string_not_equal(bank_status_str(BANK_EALIGN), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h200_table),
        cmocka_unit_test(test_consequences),
        cmocka_unit_test(test_drawing_fields),
        cmocka_unit_test(test_errors_and_idle),
    };
    return cmocka_run_group_tests_name("bank model", tests, NULL, NULL);
}
