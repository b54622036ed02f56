/* test_sanreplay.c: the sanitizer route from warp addresses recorded on the GPU machine
 * (tests/data/sanitize: `banklab run --route sanitizer` and `--route cupti` of the same
 * programs on an H100, and the patterns the route kept; docs/runs/h100-2026-12-06-calls.md).
 * Without a GPU it checks what the route computes from those addresses: every recorded
 * pattern costs in the model (bank_simulate) what the device callbacks costed it; where the
 * stored patterns cover every warp of an instruction, count x wavefronts equals CUPTI's
 * measured wavefronts for that instruction (the hardware); the route's per-instruction
 * figures equal CUPTI's; and the grid of the measured worst warp of the 32-way column read
 * is the golden tests/golden/sanitize-column.txt. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../src/render/grid_text.h"
#include "../../src/sanitize/sanitize.h"
#include "sanpat_test.h"

#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "tests/data"
#endif

static const char *const programs[] = {"eight", "many", "ldmatrix", "vectors", "stores",
                                       "carve", "strided", "transpose"};

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strdup(buf);
}

/* The instruction of launch `symbol` at pc in route's list ("sanitizer", "cupti"). */
static cJSON *inst_of(cJSON *root, const char *route, const char *symbol, int pc)
{
    cJSON *l, *i;
    cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(root, route)) {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(l, "symbol")->valuestring, symbol))
            continue;
        cJSON_ArrayForEach(i, cJSON_GetObjectItemCaseSensitive(l, "instructions"))
            if (cJSON_GetObjectItemCaseSensitive(i, "pc")->valueint == pc)
                return i;
    }
    return NULL;
}

static double num(cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k)->valuedouble;
}

static void test_routes_agree(void **state)
{
    (void)state;
    int insts = 0;
    for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++) {
        char path[256];
        snprintf(path, sizeof path, TEST_DATA_DIR "/sanitize/%s.json", programs[p]);
        char *text = slurp(path);
        assert_non_null(text);
        cJSON *root = cJSON_Parse(text);
        assert_non_null(root);
        cJSON *l, *i;
        cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(root, "sanitizer"))
            cJSON_ArrayForEach(i, cJSON_GetObjectItemCaseSensitive(l, "instructions")) {
                const char *sym = cJSON_GetObjectItemCaseSensitive(l, "symbol")->valuestring;
                cJSON *c = inst_of(root, "cupti", sym, cJSON_GetObjectItemCaseSensitive(i, "pc")->valueint);
                assert_non_null(c);
                assert_true(num(i, "inst") == num(c, "inst"));
                assert_true(num(i, "wavefronts") == num(c, "wavefronts"));
                assert_true(num(i, "ideal") == num(c, "ideal"));
                insts++;
            }
        cJSON_Delete(root);
        free(text);
    }
    assert_int_equal(insts, 76);
}

static void test_patterns_cost_and_cover(void **state)
{
    (void)state;
    int patterns = 0, covered = 0;
    for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++) {
        char path[256];
        snprintf(path, sizeof path, TEST_DATA_DIR "/sanitize/%s.json", programs[p]);
        char *text = slurp(path);
        cJSON *root = cJSON_Parse(text);
        snprintf(path, sizeof path, TEST_DATA_DIR "/sanitize/%s.patterns", programs[p]);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char line[4096], name[256], last[256] = "";
        uint32_t lastpc = ~0u;
        double count = 0, wf = 0;
        for (int more = 1; more;) {
            long launch;
            uint32_t pc = ~0u;
            int slot = 0;
            struct san_pat q;
            more = fgets(line, sizeof line, f) != NULL;
            if (more) {
                assert_int_equal(san_read_pattern(line, name, sizeof name, &launch, &pc, &slot,
                                                  &q), 0);
                struct bank_access acc;
                static struct bank_result r;
                san_pattern_access(&q, &acc);
                assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
                assert_int_equal(r.wavefronts, (int)q.wavefronts);
                patterns++;
            }
            if (!more || pc != lastpc || strcmp(name, last)) {
                /* the instruction before: its stored patterns against CUPTI's figure */
                cJSON *c = lastpc != ~0u ? inst_of(root, "cupti", last, (int)lastpc) : NULL;
                if (c && count == num(c, "inst")) {
                    assert_true(wf == num(c, "wavefronts"));
                    covered++;
                }
                snprintf(last, sizeof last, "%s", name);
                lastpc = pc;
                count = wf = 0;
            }
            if (more && slot >= 0) {
                count += q.count;
                wf += (double)q.count * q.wavefronts;
            }
        }
        fclose(f);
        cJSON_Delete(root);
        free(text);
    }
    assert_true(patterns > 150);
    assert_int_equal(covered, 76);
}

static void test_column_grid(void **state)
{
    (void)state;
    FILE *f = fopen(TEST_DATA_DIR "/sanitize/eight.patterns", "r");
    assert_non_null(f);
    char line[4096], name[256];
    struct san_pat worst = {0};
    while (fgets(line, sizeof line, f)) {
        long launch;
        uint32_t pc;
        int slot;
        struct san_pat q;
        if (!san_read_pattern(line, name, sizeof name, &launch, &pc, &slot, &q) &&
            !strcmp(name, "_Z6columnPf") && slot < 0 && q.kind == SAN_LD)
            worst = q;
    }
    fclose(f);
    assert_int_equal(worst.wavefronts, 32);
    struct bank_access acc;
    static struct bank_result r;
    san_pattern_access(&worst, &acc);
    assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    struct grid_text_options opt;
    grid_text_options_init(&opt);
    opt.ascii = 1;
    grid_text_write(m, &r, acc.width, acc.op, acc.mask, &opt);
    fclose(m);
    char *want = slurp("tests/golden/sanitize-column.txt");
    if (!want || strcmp(want, buf)) {
        FILE *o = fopen("build/sanitize-column.txt", "w");
        if (o) {
            fputs(buf, o);
            fclose(o);
        }
        fail_msg("the grid differs from tests/golden/sanitize-column.txt (now in "
                 "build/sanitize-column.txt)");
    }
    free(want);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes_agree),
        cmocka_unit_test(test_patterns_cost_and_cover),
        cmocka_unit_test(test_column_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
