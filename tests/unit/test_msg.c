/* test_msg.c: the message table of src/base/msg.def: every message has both languages, the
 * Chinese one is Chinese (not the English copied) and takes the same printf conversions in the
 * same order; a kept message renders in English exactly as printf would and in Chinese with
 * the same arguments, phrases given as arguments in the message's language; and every error
 * the pattern language reports carries its id (both languages).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "fmt_test.h"
#include "../../src/base/msg.h"
#include "../../src/model/pattern.h"
#include "../../src/model/pattern_cuda.h"

static int has_non_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return 1;
    return 0;
}

/* the Chinese takes the English's conversions; a position it leaves out ('?') is one whose
 * argument the English repeats (a name said twice) */
static int same_conversions(const char *ce, const char *cz)
{
    while (*ce && *cz) {
        size_t a = strcspn(ce, " "), b = strcspn(cz, " ");
        if (!(b == 1 && *cz == '?') && (a != b || strncmp(ce, cz, a)))
            return 0;
        ce += a + (ce[a] == ' '), cz += b + (cz[b] == ' ');
    }
    return !*ce && !*cz;
}

static void test_both_languages(void **state)
{
    (void)state;
    assert_true(BL_MSG_COUNT > 150);
    for (int id = 1; id < BL_MSG_COUNT; id++) {
        const char *en = bl_msg_format(id, BL_LANG_EN), *zh = bl_msg_format(id, BL_LANG_ZH);
        const char *name = bl_msg_name(id);
        assert_non_null(name);
        if (!en[0] || !zh[0])
            fail_msg("%s: a language is missing", name);
        char ce[160], cz[160];
        conversions(en, ce, sizeof ce);
        conversions(zh, cz, sizeof cz);
        if (!same_conversions(ce, cz))
            fail_msg("%s: English takes '%s', Chinese '%s'", name, ce, cz);
        for (const char *p = strchr(en, '%'); p; p = strchr(p + 1, '%')) {
            const char *q = p + 1;
            while (*q >= '0' && *q <= '9')
                q++;
            if (q > p + 1 && *q == '$')
                fail_msg("%s: the English '%s' takes positions (only the Chinese may)", name, en);
        }
        if (!strcmp(en, "%s") || !strcmp(en, "%M"))
            continue; /* a text or a message handed on as it is (a CUDA library's own message,
                       * a lesson's code error under its problem's path) */
        if (!strncmp(name, "KW_", 3) && !has_non_ascii(zh) && !strchr(zh, '%') &&
            !strcasecmp(en, zh))
            continue; /* a name in the key table, the same in both (Home End, SVG, warp) */
        if (!strcmp(en, zh) || !has_non_ascii(zh))
            fail_msg("%s: the Chinese text '%s' is not Chinese", name, zh);
        if (strstr(zh, "趟") || strstr(zh, "轮"))
            fail_msg("%s: '%s' uses 趟 or 轮 (docs/glossary.md: a pass is 批)", name, zh);
    }
    assert_null(bl_msg_name(0));
    assert_null(bl_msg_name(BL_MSG_COUNT));
    assert_string_equal(bl_msg_format(BL_MSG_COUNT, BL_LANG_ZH), "");
}

static void test_render(void **state)
{
    (void)state;
    struct bl_msg m;
    char en[256], ref[256], zh[256];
    bl_msg_set(&m, en, sizeof en, PAT_INDEX_IS_OUT_OF_BOUNDS, -3LL, 2, "tile", 33LL);
    snprintf(ref, sizeof ref, "index %lld is out of bounds for dimension %d of '%s' (size %lld)",
             -3LL, 2, "tile", 33LL);
    assert_string_equal(en, ref);
    bl_msg_render(&m, BL_LANG_EN, zh, sizeof zh);
    assert_string_equal(zh, ref);
    bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "下标 -3 越界：第 2 维（'tile'，大小 33）");
    /* %c, %02x, %.*s, %u, %zu and %g */
    bl_msg_set(&m, en, sizeof en, PAT_UNEXPECTED_BYTE_0X, 0x7u);
    assert_string_equal(en, "unexpected byte 0x07");
    bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "意外的字节 0x07");
    bl_msg_set(&m, en, sizeof en, PAT_MALFORMED_NUMBER, 3, "12xyz");
    assert_string_equal(en, "malformed number '12x'");
    bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "数字格式不对：'12x'");
    bl_msg_set(&m, en, sizeof en, PAT_EXPECTED_BUT_FOUND, ']', "after the index",
               "the end of the pattern");
    assert_string_equal(en, "expected ']' after the index but found the end of the pattern");
    bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "应有 ']'（在下标之后），却是 模式的结尾");
    bl_msg_set(&m, en, sizeof en, GPU_DYNAMIC_CARVE_BYTES_OF_SHARED, (size_t)70000, (size_t)65536);
    bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "dynamic_carve：每个 block 需要 70000 字节共享内存，设备只允许 65536");
    bl_msg_set(&m, en, sizeof en, GPU_OUTPUT_ELEMENT_DIFFERS_FROM_THE, "copy", 12L, 0.5);
    assert_string_equal(en, "copy: output element 12 differs from the CPU reference (0.5)");
    /* cut to the buffer, NUL-terminated */
    bl_msg_render(&m, BL_LANG_EN, zh, 8);
    assert_string_equal(zh, "copy: o");
    /* no message: the English given is what shows */
    struct bl_msg none;
    memset(&none, 0, sizeof none);
    assert_string_equal(bl_msg_or_text(&none, "plain", BL_LANG_ZH, zh, sizeof zh), "plain");
    assert_string_equal(bl_msg_or_text(&m, "eng", BL_LANG_EN, zh, sizeof zh), "eng");
    assert_string_equal(bl_phrase("after the index", BL_LANG_ZH), "在下标之后");
    assert_string_equal(bl_phrase("after the index", BL_LANG_EN), "after the index");
    assert_string_equal(bl_phrase("tile", BL_LANG_ZH), "tile");
    /* punctuation alone is the writer's text, though a row (BL_PAREN_OPEN) spells "(" */
    assert_string_equal(bl_phrase("(", BL_LANG_ZH), "(");
    assert_string_equal(bl_msg_format(BL_PAREN_OPEN, BL_LANG_ZH), "（");
}

/* every error of a set of broken patterns: an id kept, English byte for byte as msg, Chinese
 * without an English sentence (the only ASCII words are the code quoted and CUDA terms) */
static void test_pattern_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "__shared__ float s[32]; s[lane",
        "__shared__ flaot s[32]; s[lane]",
        "__shared__ float s[32]; s[lane / 0]",
        "__shared__ float s[32]; s[lane + 40]",
        "__shared__ double d[64]; float *p = (float *)d; *(double *)(p + 1)",
        "__shared__ float s[32]; s[lane] += 1",
        "__shared__ float s[32]; s[N]",
        "__shared__ float s[32]; t[lane]",
        "__shared__ float s[32]; s[lane] @",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pattern *p = NULL;
        struct bl_err err;
        int rc = pattern_parse(bad[i], &p, &err);
        if (rc == 0) {
            struct pattern_env env;
            struct bank_access acc;
            pattern_env_init(&env);
            rc = pattern_eval(p, &env, 0, &acc, NULL, &err);
            pattern_free(p);
        }
        assert_int_equal(rc, -1);
        assert_true(err.msg[0]);
        if (err.why.id == BL_MSG_NONE)
            fail_msg("'%s': '%s' has no message id", bad[i], err.msg);
        char en[PATTERN_MSG_MAX], zh[2 * PATTERN_MSG_MAX];
        assert_string_equal(bl_err_text(&err, BL_LANG_EN, en, sizeof en), err.msg);
        bl_err_text(&err, BL_LANG_ZH, zh, sizeof zh);
        if (!has_non_ascii(zh) || !strcmp(zh, err.msg))
            fail_msg("'%s': Chinese '%s' for '%s'", bad[i], zh, err.msg);
    }
}

/* a line of CUDA the pattern language cannot draw says why in either language, and what it
 * assumed */
static void test_cuda_line_reasons(void **state)
{
    (void)state;
    const char *src = "__global__ void k(float *g, int n)\n"
                      "{\n"
                      "    __shared__ int s[64];\n"
                      "    atomicAdd(&s[threadIdx.x], 1);\n"
                      "    for (int i = 0; i < n; i++)\n"
                      "        s[threadIdx.x + i] = 0;\n"
                      "}\n";
    struct pattern_cuda_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .dyn_bytes = 0, .nargs = 0,
                                    .arg_name = NULL, .arg_value = NULL};
    static struct pattern_cuda pc;
    char zh[2 * PATTERN_MSG_MAX];
    for (int line = 0; line <= 4; line++) {
        if (line == 3)
            continue;
        assert_int_equal(pattern_from_cuda(src, strlen(src), line, &l, &pc), -1);
        if (pc.err.why.id == BL_MSG_NONE)
            fail_msg("line %d: '%s' has no message id", line, pc.err.msg);
        assert_string_equal(bl_err_text(&pc.err, BL_LANG_EN, zh, sizeof zh), pc.err.msg);
        bl_err_text(&pc.err, BL_LANG_ZH, zh, sizeof zh);
        if (!has_non_ascii(zh))
            fail_msg("line %d: Chinese '%s' for '%s'", line, zh, pc.err.msg);
    }
    assert_int_equal(pattern_from_cuda(src, strlen(src), 6, &l, &pc), 0);
    assert_int_equal(pc.note.id, CU_NOTE_LOOP);
    bl_msg_render(&pc.note, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "i 是循环变量：取第一次迭代，i = 0");
}

/* English text read back as a message: a reason only the English holds (the counters'), a
 * message given as another's argument, numbers of every kind; other text is left alone */
static void test_read_back(void **state)
{
    (void)state;
    struct bl_msg m;
    char zh[512];
    assert_int_equal(bl_msg_parse("counters not allowed: insufficient privileges "
                                  "(cuptiProfilerInitialize; run as root or allow profiling for "
                                  "all users)", &m), 1);
    assert_int_equal(m.id, CNT_PRIVILEGES);
    bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "不允许读取计数器：权限不足（cuptiProfilerInitialize；请以 root 运行，"
                            "或允许所有用户做性能分析）");
    assert_int_equal(bl_msg_parse("counters busy: another profiler is using this GPU's "
                                  "counters (CUPTI_ERROR_HARDWARE_BUSY); tried 3 times in "
                                  "1.5 s", &m), 1);
    bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "计数器被占用：另一个分析器正在使用这块 GPU 的计数器"
                        "（CUPTI_ERROR_HARDWARE_BUSY）；3 次尝试，共 1.5 秒");
    /* a message in a message */
    char en[256];
    bl_msg_set(&m, en, sizeof en, GPU_NOT_MEASURED_OTHER_PROCESSES_KEPT, "no CUDA device");
    bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "未测量：没有 CUDA 设备；其他进程一直占用 GPU");
    bl_msg_set(&m, en, sizeof en, GPU_CONFLICT_FREE_REFERENCE,
               "lane 3: offset 99999 is beyond shared memory");
    bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "无冲突参考：lane 3：偏移 99999 超出共享内存");
    /* numbers: signed, hexadecimal, %.*s */
    assert_int_equal(bl_msg_parse("shift count -4 is out of range 0..63 in 'a << b'", &m), 1);
    assert_int_equal(m.id, PAT_SHIFT_COUNT_IS_OUT_OF);
    assert_int_equal(m.arg[0].v.i, -4);
    assert_int_equal(bl_msg_parse("unexpected byte 0x7f", &m), 1);
    bl_msg_render(&m, BL_LANG_EN, en, sizeof en);
    assert_string_equal(en, "unexpected byte 0x7f");
    assert_int_equal(bl_msg_parse("malformed number '12x'", &m), 1);
    bl_msg_render(&m, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "数字格式不对：'12x'");
    /* not a message of the table: the text stays as it is */
    assert_int_equal(bl_msg_parse("NVIDIA H200 (sm_90), 132 SMs", &m), 0);
    assert_int_equal(m.id, BL_MSG_NONE);
    assert_int_equal(bl_msg_parse("hello world", &m), 0);
    /* text alone (no message) shows as it is, in either language */
    assert_string_equal(bl_msg_or_text(NULL, "hello world", BL_LANG_ZH, zh, sizeof zh), "hello world");
    assert_string_equal(bl_msg_or_text(NULL, "no CUDA device", BL_LANG_EN, zh, sizeof zh),
                        "no CUDA device");
}

/* a message nested in a message (%M) renders in the outer's language, at any depth and in
 * a list; Chinese positions (%N$) take the arguments in their own order; a nested message
 * never crosses a process; a cut rendering keeps whole UTF-8 characters */
static void test_nested(void **state)
{
    (void)state;
    struct bl_msg why, a, b, list, outer;
    char en[512], zh[512];
    size_t k = bl_msg_set(&why, en, sizeof en, KP_WHY_PASS_BLOCK, 3, 1u, 2u, 0u, "s[tid * 32]", 1,
                          2, 0, 32, "0, 32, 64, …, 992", "0-31", 32);
    assert_int_equal(k, strlen(en));
    assert_string_equal(en, "why: warp 3 of block (1,2,0), s[tid * 32], pass 1 of 2: bank 0 "
                            "serves 32 different words (0, 32, 64, …, 992) to lanes 0-31: 32-way");
    bl_msg_render(&why, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "原因：block (1,2,0) 的 warp 3，s[tid * 32]，第 1 批（共 2 批）：bank 0 "
                            "要给 lane 0-31 送 32 个不同的字（0, 32, 64, …, 992）：32 路冲突");
    /* a list of two, nested in a message */
    bl_msg_set(&a, NULL, 0, KP_TRIED_PAD_ROWS, "m");
    bl_msg_set(&b, NULL, 0, KP_TRIED_SWIZZLE, "m[i][j ^ i]");
    bl_msg_set(&list, NULL, 0, BL_LIST_SEMI, &a, &b);
    bl_msg_set(&outer, en, sizeof en, KP_NO_FIX_TRIED, &list, 5);
    assert_string_equal(en, "no fix found: tried padding m's rows by 1-8 elements; the XOR "
                            "swizzle m[i][j ^ i]: each leaves line 5 conflicting or makes another "
                            "line of the array worse");
    bl_msg_render(&outer, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "没有找到修改（试过：把 m 的每行填充 1-8 个元素；XOR 重排 m[i][j ^ i]）："
                            "都不能消除第 5 行的冲突而不让该数组的另一行更差");
    /* an error with its lane, nested */
    struct bl_err e;
    bl_err_clear(&e);
    bl_fail(&e, -1, BL_AT(0, 1, 7), PAT_DIVISION_BY_ZERO_IN, "i / 0");
    bl_err_msg(&e, &a);
    bl_msg_set(&outer, en, sizeof en, KP_THE_MODEL, &a);
    assert_string_equal(en, "the model: lane 7: division by zero in 'i / 0'");
    bl_msg_render(&outer, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "模型：lane 7：'i / 0' 中除以零");
    /* NULL nests nothing */
    bl_msg_set(&outer, en, sizeof en, KP_THE_MODEL, (const struct bl_msg *)NULL);
    assert_string_equal(en, "the model: ");
    /* from another process of this build a nested message comes whole, and only whole */
    bl_msg_set(&outer, NULL, 0, KP_THE_MODEL, &a);
    bl_msg_sanitize(&outer);
    bl_msg_render(&outer, BL_LANG_ZH, zh, sizeof zh);
    assert_string_equal(zh, "模型：lane 7：'i / 0' 中除以零");
    outer.arg[0].v.s = sizeof outer.sbuf - 2;    /* a nested message cut off */
    bl_msg_sanitize(&outer);
    assert_int_equal(outer.id, BL_MSG_NONE);
    /* a chain deeper than a message can hold is cut, never overruns */
    bl_msg_set(&list, NULL, 0, KP_FIX_BECOMES, 1, 1);
    for (int i = 0; i < 64; i++) {
        struct bl_msg before = list;
        bl_msg_set(&list, NULL, 0, KP_FIX_AND_STAYS, &before, i + 2, 1);
    }
    assert_true(bl_msg_render(&list, BL_LANG_ZH, zh, sizeof zh) < sizeof zh);
    /* cut inside a Chinese character: the character is left out */
    bl_msg_set(&a, NULL, 0, KP_R_CALLS);
    bl_msg_render(&a, BL_LANG_ZH, zh, 8);       /* "下标" is 6 bytes, "调" 3 more */
    assert_string_equal(zh, "下标");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_languages),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_pattern_errors),
        cmocka_unit_test(test_cuda_line_reasons),
        cmocka_unit_test(test_read_back),
        cmocka_unit_test(test_nested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
