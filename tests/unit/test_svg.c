/* test_svg.c: the SVG picture of one access (src/render/svg.c): 32 bank columns, one lane text
 * per active lane, rows per wavefront, marks and patterns for broadcast/conflict/worst bank,
 * the summary, escaping of titles, monochrome, and write errors. Accesses are built directly
 * (no pattern language) and run through bank_simulate. With SVG_OUT_DIR set, the pictures are
 * also written there (tests/sh/svg.sh validates and renders them).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../src/base/msg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/store/files.h"
#include "../../src/render/svg.h"

/* The picture into path as banklab's commands write it (files_write_atomic + svg_emit). */
static int write_svg_file(const char *path, const struct bank_result *res, unsigned width,
                          enum bank_op op, const struct svg_options *opt, struct bl_err *err)
{
    struct svg_job job = {res, width, op, opt};
    return files_write_atomic(path, 0644, svg_emit, &job, err);
}

static struct bank_result *run(unsigned width, enum bank_op op, uint32_t mask, unsigned stride_elems,
                               int same)
{
    struct bank_access acc;
    memset(&acc, 0, sizeof acc);
    acc.width = width;
    acc.op = op;
    acc.mask = mask;
    for (unsigned n = 0; n < BANK_LANES; n++)
        acc.offset[n] = same ? 0 : (uint64_t)n * stride_elems * width;
    struct bank_result *res = malloc(sizeof *res);
    assert_non_null(res);
    assert_int_equal(bank_simulate(&acc, res, NULL), BANK_OK);
    return res;
}

/* Renders to memory; the caller frees. */
static char *render(const struct bank_result *res, unsigned width, enum bank_op op,
                    const struct svg_options *opt, const char *save_as)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    struct svg_job job = {res, width, op, opt};
    assert_int_equal(svg_emit(f, &job), 0);
    long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    const char *dir = getenv("SVG_OUT_DIR");
    if (dir && dir[0] && save_as) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.svg", dir, save_as);
        struct bl_err err = {0};
        assert_int_equal(write_svg_file(path, res, width, op, opt, &err), 0);
    }
    return buf;
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_conflict_free(void **state)
{
    (void)state;
    struct bank_result *res = run(4, BANK_LOAD, 0xFFFFFFFFu, 1, 0);
    struct svg_options opt = {"s[lane]", "block 32x1, warp 0", 0, 0};
    char *svg = render(res, 4, BANK_LOAD, &opt, "stride1");
    assert_true(strncmp(svg, "<?xml", 5) == 0);
    assert_non_null(strstr(svg, "</svg>\n"));
    assert_int_equal(count(svg, "class=\"bank\""), 32);
    assert_int_equal(count(svg, "class=\"lane\""), 32);
    assert_int_equal(count(svg, "class=\"lane2\""), 0);
    assert_non_null(strstr(svg, "wavefronts 1, passes 1, conflicts 0, ways 1"));
    assert_non_null(strstr(svg, ">s[lane]</text>"));
    assert_non_null(strstr(svg, "block 32x1, warp 0"));
    assert_int_equal(count(svg, ">wavefront "), 1);
    assert_int_equal(count(svg, "class=\"mark\""), 0);   /* no broadcast, no conflict */
    assert_int_equal(count(svg, "class=\"worst\""), 1);  /* worst bank = bank 0, cost 1 */
    assert_non_null(strstr(svg, "id=\"legend\""));
    /* lane 5 is in bank 5: its cell carries lane 5 */
    const char *cell = strstr(svg, "data-pass=\"0\" data-bank=\"5\" data-row=\"0\"");
    assert_non_null(cell);
    assert_non_null(strstr(cell, ">5</text>"));
    assert_true(strstr(cell, ">5</text>") < strstr(cell, "</g>"));
    free(svg);
    free(res);
}

static void test_32_way(void **state)
{
    (void)state;
    struct bank_result *res = run(4, BANK_LOAD, 0xFFFFFFFFu, 32, 0);  /* column of [32][32] */
    char *svg = render(res, 4, BANK_LOAD, NULL, "stride32");
    assert_non_null(strstr(svg, "wavefronts 32, passes 1, conflicts 31, ways 32"));
    assert_int_equal(count(svg, ">wavefront "), 32);  /* one row per wavefront */
    assert_int_equal(count(svg, "class=\"lane\""), 32);
    assert_int_equal(count(svg, "class=\"mark\""), 32);  /* every used cell is a conflict */
    assert_int_equal(count(svg, "url(#hatch)"), 32 + 1); /* 32 cells + the legend swatch */
    assert_non_null(strstr(svg, "worst-bank\" x=\""));
    assert_non_null(strstr(svg, "\u25b2" "32</text>"));  /* the worst bank's tally */
    free(svg);
    free(res);
}

static void test_broadcast(void **state)
{
    (void)state;
    struct bank_result *res = run(4, BANK_LOAD, 0xFFFFFFFFu, 0, 1);
    char *svg = render(res, 4, BANK_LOAD, NULL, "broadcast");
    assert_non_null(strstr(svg, "wavefronts 1, passes 1, conflicts 0, ways 1"));
    assert_int_equal(count(svg, "class=\"lane\""), 32);
    assert_int_equal(count(svg, "class=\"mark\""), 1);  /* the one broadcast cell */
    assert_int_equal(count(svg, "url(#dots)"), 1 + 1);
    assert_int_equal(count(svg, "url(#hatch)"), 1);     /* legend only */
    free(svg);

    /* lanes 0-15 read word 0, lanes 16-31 word 32: two broadcast words in one bank */
    struct bank_access acc;
    memset(&acc, 0, sizeof acc);
    acc.width = 4;
    acc.mask = 0xFFFFFFFFu;
    for (unsigned n = 0; n < BANK_LANES; n++)
        acc.offset[n] = n < 16 ? 0 : 128;
    assert_int_equal(bank_simulate(&acc, res, NULL), BANK_OK);
    svg = render(res, 4, BANK_LOAD, NULL, "broadcast-conflict");
    assert_non_null(strstr(svg, "wavefronts 2, passes 1, conflicts 1, ways 2"));
    assert_int_equal(count(svg, "class=\"mark\""), 2);
    assert_int_equal(count(svg, "url(#cross)"), 2 + 1);
    assert_int_equal(count(svg, "class=\"lane\""), 32);
    free(svg);
    free(res);
}

static void test_float4_and_partial(void **state)
{
    (void)state;
    /* float4, stride 1: four quarter-warp passes, each lane touches 4 banks */
    struct bank_result *res = run(16, BANK_LOAD, 0xFFFFFFFFu, 1, 0);
    char *svg = render(res, 16, BANK_LOAD, NULL, "float4");
    assert_non_null(strstr(svg, "wavefronts 4, passes 4, conflicts 0, ways 1"));
    assert_int_equal(count(svg, "class=\"lane\""), 32);
    assert_int_equal(count(svg, "class=\"lane2\""), 96);
    assert_int_equal(count(svg, "class=\"pass\""), 4);
    assert_non_null(strstr(svg, "16-byte load"));
    free(svg);
    free(res);

    /* half a warp active, stride 32: 16-way; inactive lanes are not drawn */
    res = run(4, BANK_STORE, 0x0000FFFFu, 32, 0);
    svg = render(res, 4, BANK_STORE, NULL, "partial");
    assert_non_null(strstr(svg, "wavefronts 16, passes 1, conflicts 15, ways 16"));
    assert_int_equal(count(svg, "class=\"lane\""), 16);
    assert_non_null(strstr(svg, "16 active lanes (0-15)"));
    assert_non_null(strstr(svg, "4-byte store"));
    free(svg);
    free(res);

    /* float2 stride 1 unpaired store: two half-warp passes */
    res = run(8, BANK_STORE, 0xFFFFFFFFu, 1, 0);
    svg = render(res, 8, BANK_STORE, NULL, NULL);
    assert_int_equal(count(svg, "class=\"pass\""), 2);
    assert_non_null(strstr(svg, "words (lanes 0-15)"));
    assert_non_null(strstr(svg, "words (lanes 16-31)"));
    free(svg);
    free(res);

    /* no active lane at all: still a document with the summary and idle passes */
    res = run(4, BANK_LOAD, 0, 1, 0);
    svg = render(res, 4, BANK_LOAD, NULL, NULL);
    assert_non_null(strstr(svg, "wavefronts 0, passes 0, conflicts 0, ways 0"));
    assert_non_null(strstr(svg, "idle: no active lane"));
    assert_int_equal(count(svg, "class=\"lane\""), 0);
    free(svg);
    free(res);
}

static void test_escaping_and_mono(void **state)
{
    (void)state;
    struct bank_result *res = run(4, BANK_LOAD, 0xFFFFFFFFu, 2, 0);
    struct svg_options opt = {"a<b && c>\"d\" 'e' \x01\xff\xc3(", "填充 PAD=1", 1, 0};
    char *svg = render(res, 4, BANK_LOAD, &opt, "mono-stride2");
    assert_non_null(strstr(svg, "a&lt;b &amp;&amp; c&gt;&quot;d&quot; &#39;e&#39; ??" "?("));
    assert_non_null(strstr(svg, "填充 PAD=1"));
    assert_null(strstr(svg, "\xff"));
    /* monochrome: none of the colour fills */
    assert_null(strstr(svg, "#f7d3ce"));
    assert_null(strstr(svg, "#cfe6f7"));
    assert_null(strstr(svg, "#e9f0fb"));
    assert_non_null(strstr(svg, "wavefronts 2, passes 1, conflicts 1, ways 2"));
    free(svg);
    free(res);
}

static void test_write_errors(void **state)
{
    (void)state;
    struct bank_result *res = run(4, BANK_LOAD, 0xFFFFFFFFu, 1, 0);
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        setvbuf(full, NULL, _IONBF, 0);
        struct svg_job job = {res, 4, BANK_LOAD, NULL};
        assert_int_equal(svg_emit(full, &job), -1);
        fclose(full);
    }
    struct bl_err err = {0};
    assert_int_equal(write_svg_file("/nonexistent-dir-banklab/x.svg", res, 4, BANK_LOAD, NULL,
                                    &err), -1);
    assert_non_null(strstr(err.msg, strerror(ENOENT)));
    assert_int_equal(write_svg_file("", res, 4, BANK_LOAD, NULL, &err), -1);

    char dir[] = "/tmp/banklab-svg-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/grid.svg", dir);
    assert_int_equal(write_svg_file(path, res, 4, BANK_LOAD, NULL, &err), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 1000);
    unlink(path);
    assert_int_equal(rmdir(dir), 0);  /* fails if a temp file was left behind */
    free(res);
}

/* The picture's words in the chosen language, passes counted from 1 as on the screen: the
 * Chinese picture's text holds no English word of the picture's own (code and CUDA terms
 * aside), the English one says "pass 1" and never "pass 0". */
static void test_language_and_pass_numbers(void **state)
{
    (void)state;
    struct bank_result *res = run(16, BANK_LOAD, 0xFFFFFFFFu, 1, 0);   /* 4 passes */
    struct svg_options en = {"v[lane]", NULL, 0, BL_LANG_EN};
    char *svg = render(res, 16, BANK_LOAD, &en, NULL);
    assert_non_null(strstr(svg, ">pass 1<"));
    assert_non_null(strstr(svg, ">pass 4<"));
    assert_null(strstr(svg, ">pass 0<"));
    free(svg);
    struct svg_options zh = {"v[lane]", NULL, 0, BL_LANG_ZH};
    svg = render(res, 16, BANK_LOAD, &zh, "zh");
    assert_non_null(strstr(svg, ">\u7b2c 1 \u6279<"));                    /* 第 1 批 */
    assert_non_null(strstr(svg, "4 \u4e2a wavefront\uff0c4 \u6279"));    /* 4 个 wavefront，4 批 */
    static const char *const english[] = {"pass ", "passes", "idle", "words", "active", "broadcast",
                                          "conflict", "served", "worst", "Banks are", "Made by",
                                          "shared-memory"};
    /* the text between the tags (attributes and class names are the file's own code) */
    char *text = malloc(strlen(svg) + 1);
    assert_non_null(text);
    size_t o = 0;
    for (const char *c = svg; *c; c++) {
        if (*c == '<')
            while (*c && *c != '>')
                c++;
        else
            text[o++] = *c;
        if (!*c)
            break;
    }
    text[o] = 0;
    for (size_t i = 0; i < sizeof english / sizeof english[0]; i++)
        if (strstr(text, english[i]))
            fail_msg("the Chinese SVG says '%s'", english[i]);
    free(text);
    free(svg);
    free(res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conflict_free),
        cmocka_unit_test(test_32_way),
        cmocka_unit_test(test_broadcast),
        cmocka_unit_test(test_float4_and_partial),
        cmocka_unit_test(test_escaping_and_mono),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_language_and_pass_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
