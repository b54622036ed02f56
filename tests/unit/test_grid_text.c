/* test_grid_text.c: the text grid's helpers (lane sets, cell classification, band width) and
 * the renderer's rules: ASCII means ASCII, colour only when asked, 80 columns, the summary.
 * Renders into open_memstream; the model computes the results (no hard-coded grids here:
 * the exact renders are golden files, tests/sh/golden.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/render/grid_text.h"
#include "../../src/model/bank.h"

static void stride_access(struct bank_access *acc, unsigned width, uint64_t stride_bytes)
{
    memset(acc, 0, sizeof *acc);
    acc->width = width;
    acc->op = BANK_LOAD;
    acc->mask = 0xffffffffu;
    for (unsigned n = 0; n < BANK_LANES; n++)
        acc->offset[n] = n * stride_bytes;
}

static char *render(const struct bank_result *res, unsigned width, int ascii, int color,
                    int cols)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    struct grid_text_options opt;
    grid_text_options_init(&opt);
    opt.ascii = ascii;
    opt.color = color;
    opt.cols = cols;
    assert_int_equal(grid_text_write(f, res, width, BANK_LOAD, 0xffffffffu, &opt), 0);
    fclose(f);
    return buf;
}

/* Columns of the widest line, counting UTF-8 code points (all glyphs used are 1 column). */
static int widest_line(const char *s)
{
    int widest = 0, col = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\n') {
            widest = col > widest ? col : widest;
            col = 0;
        } else if ((*p & 0xc0) != 0x80) {
            col++;
        }
    }
    return col > widest ? col : widest;
}

static void test_lanes_str(void **state)
{
    (void)state;
    char buf[128];
    assert_int_equal(grid_lanes_str(0, buf, sizeof buf), 4);
    assert_string_equal(buf, "none");
    grid_lanes_str(0xffffffffu, buf, sizeof buf);
    assert_string_equal(buf, "0-31");
    grid_lanes_str(0x5u, buf, sizeof buf);
    assert_string_equal(buf, "0,2");
    grid_lanes_str(0x80000001u, buf, sizeof buf);
    assert_string_equal(buf, "0,31");
    grid_lanes_str(0x0000ff0fu, buf, sizeof buf);
    assert_string_equal(buf, "0-3,8-15");
    grid_lanes_str(0x10Fu, buf, sizeof buf);   /* the inspect line's lane lists */
    assert_string_equal(buf, "0-3,8");
    assert_int_equal(grid_lane_count(0x10Fu), 5);
    assert_int_equal(grid_lane_first(0x100u), 8);
    assert_int_equal(grid_lane_first(0), -1);
    /* Truncation: NUL-terminated, returns what it needed. */
    char small[4];
    int need = grid_lanes_str(0x55555555u, small, sizeof small);
    assert_true(need > 3);
    assert_true(strlen(small) < sizeof small);
}

static void test_cells(void **state)
{
    (void)state;
    struct bank_access acc;
    struct bank_result res;
    struct grid_cell c;

    /* Broadcast: every lane reads word 0. */
    stride_access(&acc, 4, 0);
    assert_int_equal(bank_simulate(&acc, &res, NULL), BANK_OK);
    grid_cell_get(&res, 0, 0, 0, &c);
    assert_true(c.used && c.broadcast && !c.conflict);
    assert_int_equal(c.nlanes, 32);
    assert_int_equal(c.first_lane, 0);
    assert_int_equal(c.mark, GRID_MARK_BROADCAST);
    grid_cell_get(&res, 0, 1, 0, &c);
    assert_false(c.used);

    /* Stride 2 words: 2-way conflicts in even banks, lanes 0 and 16 in bank 0. */
    stride_access(&acc, 4, 8);
    assert_int_equal(bank_simulate(&acc, &res, NULL), BANK_OK);
    grid_cell_get(&res, 0, 0, 1, &c);
    assert_true(c.used && c.conflict && !c.broadcast && c.worst);
    assert_int_equal(c.first_lane, 16);
    assert_int_equal(c.mark, GRID_MARK_CONFLICT);
    grid_cell_get(&res, 0, 0, 2, &c);
    assert_false(c.used);

    /* A store of every lane to word 0 is no broadcast (a store keeps one value): its mark
     * says one word stored by several lanes, and the rendered grid never says "broadcast";
     * 9.4's float2 store v[lane / 2] = 0 likewise. */
    stride_access(&acc, 4, 0);
    acc.op = BANK_STORE;
    assert_int_equal(bank_simulate(&acc, &res, NULL), BANK_OK);
    grid_cell_get(&res, 0, 0, 0, &c);
    assert_true(c.used && !c.broadcast && c.same && !c.conflict);
    assert_int_equal(c.mark, GRID_MARK_SAME);
    stride_access(&acc, 8, 0);
    acc.op = BANK_STORE;
    for (unsigned n = 0; n < BANK_LANES; n++)
        acc.offset[n] = (n / 2) * 8;
    assert_int_equal(bank_simulate(&acc, &res, NULL), BANK_OK);
    grid_cell_get(&res, 0, 0, 0, &c);
    assert_true(c.used && !c.broadcast && c.nlanes == 2);
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        struct grid_text_options opt;
        grid_text_options_init(&opt);
        assert_int_equal(grid_text_write(f, &res, 8, BANK_STORE, 0xffffffffu, &opt), 0);
        fclose(f);
        assert_null(strstr(buf, "broadcast"));
        assert_non_null(strstr(buf, "one value kept"));
        free(buf);
    }

    /* Out of range never reads outside the result. */
    grid_cell_get(&res, 4, 0, 0, &c);
    assert_false(c.used);
    grid_cell_get(&res, 0, 32, 0, &c);
    assert_false(c.used);
    grid_cell_get(&res, -1, -1, -1, &c);
    assert_false(c.used);
}

static void test_band_width(void **state)
{
    (void)state;
    assert_int_equal(grid_banks_per_band(80), 16);
    assert_int_equal(grid_banks_per_band(0), 16);
    assert_int_equal(grid_banks_per_band(GRID_WIDE_COLS - 1), 16);
    assert_int_equal(grid_banks_per_band(GRID_WIDE_COLS), 32);
    assert_true(GRID_BAND_COLS(16) <= 80);
}

static void test_render_rules(void **state)
{
    (void)state;
    static const unsigned widths[] = {1, 2, 4, 8, 16};
    static const uint64_t strides[] = {0, 1, 2, 3, 32, 33};
    for (size_t w = 0; w < 5; w++) {
        for (size_t s = 0; s < 6; s++) {
            struct bank_access acc;
            struct bank_result res;
            stride_access(&acc, widths[w], strides[s] * widths[w]);
            assert_int_equal(bank_simulate(&acc, &res, NULL), BANK_OK);

            char *u = render(&res, widths[w], 0, 0, 80);
            assert_true(widest_line(u) <= 80);
            assert_null(strchr(u, '\033'));
            char want[128];
            snprintf(want, sizeof want, "\nwavefronts %d, passes %d, conflicts %d, ways %d, ",
                     res.wavefronts, res.passes, res.conflicts, res.ways);
            assert_non_null(strstr(u, want));
            free(u);

            char *a = render(&res, widths[w], 1, 0, 80);
            for (const unsigned char *p = (const unsigned char *)a; *p; p++)
                assert_true(*p == '\n' || (*p >= 0x20 && *p < 0x7f));
            free(a);

            char *c = render(&res, widths[w], 0, 1, 80);
            assert_non_null(strchr(c, '\033'));
            free(c);

            char *wide = render(&res, widths[w], 0, 0, GRID_WIDE_COLS);
            assert_true(widest_line(wide) <= GRID_WIDE_COLS);
            free(wide);
        }
    }
}

/* Each pass with an active lane gets a section; an 8-lane-per-pass float4 load has four. */
static void test_passes(void **state)
{
    (void)state;
    struct bank_access acc;
    struct bank_result res;
    stride_access(&acc, 16, 16);
    acc.mask = 0x00ff00ffu;  /* passes 2 and 4 idle */
    assert_int_equal(bank_simulate(&acc, &res, NULL), BANK_OK);
    char *t = render(&res, 16, 1, 0, 80);
    assert_non_null(strstr(t, "pass 1 of 4: lanes 0-7, 1 wavefront"));
    assert_non_null(strstr(t, "pass 2 of 4: lanes 8-15, no active lane"));
    assert_non_null(strstr(t, "pass 3 of 4: lanes 16-23, 1 wavefront"));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lanes_str),
        cmocka_unit_test(test_cells),
        cmocka_unit_test(test_band_width),
        cmocka_unit_test(test_render_rules),
        cmocka_unit_test(test_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
