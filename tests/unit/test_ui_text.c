/* test_ui_text.c: the tutorial's text measuring and wrapping (src/ui/text.c): display columns
 * by wcwidth (Chinese is two columns), breaks at spaces and between wide characters, never
 * inside a UTF-8 sequence, backticks zero-width, paragraphs; a source line found and escaped
 * for the screen; the one line editor (src/ui/input.c). No terminal needed. (Lane lists:
 * test_grid_text.c, src/render/grid_text.c formats them for the screen too.)
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <cmocka.h>

#include "../../src/base/wrap.h"
#include "../../src/ui/app.h"

static int setup(void **state)
{
    (void)state;
    if (!setlocale(LC_ALL, "C.UTF-8") && !setlocale(LC_ALL, "en_US.UTF-8"))
        return -1;
    return 0;
}

static void test_width(void **state)
{
    (void)state;
    assert_int_equal(text_width("abc"), 3);
    assert_int_equal(text_width("中文"), 4);
    assert_int_equal(text_width("a中b"), 4);
    assert_int_equal(text_width("\u00b7\u2588"), 2);   /* middle dot, full block: one each */
    int cols;
    assert_int_equal(text_fit("中文", strlen("中文"), 3, &cols), 3);  /* one character fits */
    assert_int_equal(cols, 2);
    assert_int_equal(text_fit("abc", 3, 10, &cols), 3);
    assert_int_equal(cols, 3);
}

static void test_wrap_english(void **state)
{
    (void)state;
    const char *s = "hello world foo";
    size_t next;
    size_t n = text_line(s, strlen(s), 11, &next);
    assert_int_equal(n, 11);
    assert_string_equal(s + next, "foo");
    int cut;
    /* no space: a cut, a column for its mark */
    n = bl_wrap("abcdefghij", 10, 4, BL_WRAP_TICKS, &next, &cut);
    assert_int_equal(n, 3);
    assert_int_equal(next, 3);
    assert_int_equal(cut, 1);
    n = bl_wrap("abc def", 7, 4, BL_WRAP_TICKS, &next, &cut);   /* a break at a space is no cut */
    assert_int_equal(n, 3);
    assert_int_equal(cut, 0);
    n = text_line("`ab` cd", 7, 5, &next);        /* backticks take no room */
    assert_int_equal(n, 7);
    assert_int_equal(text_count("a\n\nb", 10), 3);  /* a paragraph break is an empty line */
    assert_int_equal(text_count("one two three four", 9), 3);  /* "one two", "three", "four" */
}

/* a list of names written without spaces wraps after a comma, never inside a name; a number
 * with a thousands comma stays whole */
static void test_wrap_code(void **state)
{
    (void)state;
    const char *m = "ncu --metrics l1tex__a_op_ld.sum,l1tex__b_op_ld.sum,smsp__c.sum ./app";
    size_t next;
    int cut;
    size_t n = bl_wrap(m, strlen(m), 40, BL_WRAP_TICKS, &next, &cut);
    assert_int_equal(n, strlen("ncu --metrics l1tex__a_op_ld.sum,"));
    assert_int_equal(cut, 0);
    n = bl_wrap(m + next, strlen(m + next), 40, BL_WRAP_TICKS, &next, &cut);
    assert_int_equal(n, strlen("l1tex__b_op_ld.sum,smsp__c.sum ./app"));
    assert_int_equal(text_count("width 1,024 bytes", 8), 3);   /* "width", "1,024", "bytes" */
    n = text_line("x \u00b7 idle", strlen("x \u00b7 idle"), 5, &next);   /* "x", "· idle" */
    assert_int_equal(n, 1);
    n = bl_wrap("a;b", 3, 2, BL_WRAP_TICKS, &next, &cut);     /* "a;" then "b" */
    assert_int_equal(n, 2);
    assert_int_equal(cut, 0);
}

static void test_wrap_chinese(void **state)
{
    (void)state;
    const char *s = "通道读取同一个字，这是广播。";   /* 14 characters, 28 columns */
    size_t next;
    size_t n = text_line(s, strlen(s), 10, &next);
    assert_int_equal(n, 15);                       /* 5 characters = 10 columns, 15 bytes */
    assert_int_equal(next, 15);
    n = text_line(s, strlen(s), 9, &next);         /* an odd width: 4 characters, not 4.5 */
    assert_int_equal(n, 12);
    assert_int_equal(bl_width_n(s, n), 8);
    assert_int_equal(text_count(s, 10), 3);       /* 10 + 10 + 8 columns */
    /* mixed: a break may fall between wide characters as well as at a space */
    const char *m = "lane n 读取 s[n][0]";
    n = text_line(m, strlen(m), 9, &next);
    assert_int_equal(n, strlen("lane n 读"));
    assert_int_equal(bl_width_n(m, n), 9);
    assert_string_equal(m + next, "取 s[n][0]");
}

/* Chinese line-breaking rules: no closing punctuation at a line start, no opening bracket at a
 * line end, even when the width would fall right there. */
static void test_wrap_punctuation(void **state)
{
    (void)state;
    size_t next;
    const char *s = "\u5468\u671f\uff0c\u8fd9\u91cc";   /* 周期，这里: 10 columns */
    size_t n = text_line(s, strlen(s), 4, &next);       /* 周期 fits; ， must not start line 2 */
    assert_int_equal(n, strlen("\u5468"));              /* so 周 alone, then 期， */
    assert_int_equal(next, n);
    n = text_line(s + next, strlen(s + next), 4, &next);
    assert_int_equal(n, strlen("\u671f\uff0c"));
    const char *t = "\u4e2d\u6587, ok";                  /* 中文, ok: the comma stays with 文 */
    n = text_line(t, strlen(t), 4, &next);
    assert_int_equal(n, strlen("\u4e2d"));
    const char *o = "\u4e2d\uff08\u6587\uff09";          /* 中（文）: （ never ends a line */
    n = text_line(o, strlen(o), 4, &next);
    assert_int_equal(n, strlen("\u4e2d"));
}

/* every width from 3 to 40 columns over text dense with closing and opening punctuation
 * (two closers in a row: "）。", "”；"): no line starts with closing punctuation, none ends
 * with an opening one */
static void test_wrap_punctuation_all_widths(void **state)
{
    (void)state;
    const char *s = "他说“好”；然后（按列读）。再试 `s[lane]`（32 路）。用“填充”，行吗？"
                    "一个 warp（线程束）的 32 个 lane：每批 16 个；结论「对」、「错」！"
                    "见《规则》。padding（填充）」是 1。";
    size_t len = strlen(s);
    for (int w = 3; w <= 40; w++) {
        size_t pos = 0;
        int lines = 0;
        while (pos < len && lines < 200) {
            size_t next;
            int cut;
            size_t n = bl_wrap(s + pos, len - pos, w, BL_WRAP_TICKS, &next, &cut);
            wchar_t first = 0, last = 0;
            size_t i = 0;
            while (i < n && s[pos + i] == '`')
                i++;
            if (i < n)
                mbtowc(&first, s + pos + i, len - pos - i);
            for (size_t j = 0; j < n;) {
                wchar_t wc;
                int k = mbtowc(&wc, s + pos + j, n - j);
                if (k <= 0)
                    break;
                if (wc != L'`')
                    last = wc;
                j += (size_t)k;
            }
            static int was_cut;  /* a line after a cut word (no break allowed) is exempt */
            if (lines > 0 && !was_cut && first && wcschr(L"\uff0c\u3002\u3001\uff1b\uff1a\uff01\uff1f\uff09\u300d"
                                             L"\u300f\u300b\u201d\u2019", first))
                fail_msg("width %d: line %d starts with closing punctuation: '%.*s'", w,
                         lines + 1, (int)n, s + pos);
            if (pos + next < len && !cut && last && wcschr(L"\uff08\u300c\u300e\u300a\u201c\u2018", last))
                fail_msg("width %d: line %d ends with opening punctuation: '%.*s'", w,
                         lines + 1, (int)n, s + pos);
            assert_true(next > 0);
            was_cut = cut;
            pos += next;
            while (pos < len && s[pos] == ' ')
                pos++;
            lines++;
        }
    }
}

/* the playground's and the file prompt's line: what each editing key does, a full line */
static void test_line_edit(void **state)
{
    (void)state;
    char t[6] = "";
    int len = 0, cur = 0;
    const char *typed = "abcd";
    for (const char *c = typed; *c; c++) {
        struct ui_key k = {*c, ACT_INSERT};
        assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &k), 1);
    }
    assert_string_equal(t, "abcd");
    struct ui_key left = {K_LEFT, ACT_LEFT}, home = {K_HOME, ACT_HOME}, end = {K_END, ACT_END};
    struct ui_key rub = {K_BACKSPACE, ACT_RUBOUT}, del = {K_DELETE, ACT_DELETE};
    struct ui_key x = {'x', ACT_INSERT}, y = {'y', ACT_INSERT}, clr = {K_CTRL_U, ACT_CLEAR};
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &left), 0);
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &rub), 1);   /* the c */
    assert_string_equal(t, "abd");
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &x), 1);
    assert_string_equal(t, "abxd");
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &y), 1);
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &x), -2);    /* full: 5 + NUL */
    assert_string_equal(t, "abxyd");
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &home), 0);
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &rub), 0);   /* nothing before */
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &del), 1);
    assert_string_equal(t, "bxyd");
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &end), 0);
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &del), 0);   /* nothing at */
    assert_int_equal(cur, 4);
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &clr), 1);
    assert_true(t[0] == 0 && len == 0 && cur == 0);
    struct ui_key go = {K_ENTER, ACT_GO};
    assert_int_equal(ui_line_key(t, (int)sizeof t, &len, &cur, &go), -1);   /* not an edit */
}

/* a source line: found by number (CRLF too), tabs to 8 columns, an escape sequence escaped */
static void test_source_line(void **state)
{
    (void)state;
    const char *text = "one\r\n\ttwo\n\x1b[2Jthree";
    const char *at;
    int n;
    char buf[UI_SOURCE_TEXT];
    assert_int_equal(ui_source_line(text, strlen(text), 1, &at, &n), 1);
    assert_int_equal(n, 3);
    assert_int_equal(ui_source_line(text, strlen(text), 2, &at, &n), 1);
    assert_string_equal(ui_source_text(at, n, buf, sizeof buf), "        two");
    assert_int_equal(ui_source_line(text, strlen(text), 3, &at, &n), 1);
    assert_null(strchr(ui_source_text(at, n, buf, sizeof buf), '\x1b'));
    assert_non_null(strstr(buf, "three"));
    assert_int_equal(ui_source_line(text, strlen(text), 4, &at, &n), 0);
}

/* Lesson code spans: one that fits on a line is never split (the line breaks before it); a
 * longer one breaks at a space outside brackets, never before an operator; a span with no
 * such space is cut (and marked); a span continued from the line before keeps its rules. */
static void test_wrap_code_spans(void **state)
{
    (void)state;
    size_t next;
    int cut;
    /* "see `a[i] = b[j];` now" at 12: the span (12 columns) goes to the next line whole */
    const char *s = "see `a[i] = b[j];` now";
    size_t n = bl_wrap(s, strlen(s), 12, BL_WRAP_TICKS, &next, &cut);
    assert_int_equal(n, 3);
    assert_int_equal(cut, 0);
    assert_string_equal(s + next, "`a[i] = b[j];` now");
    /* prose: an operator standing alone keeps the words on both sides ("x = 0", "p / P") */
    n = bl_wrap("see a[i] = b[j]; now", 20, 12, 0, &next, &cut);
    assert_int_equal(n, strlen("see"));
    /* "^", "&", "|" and two-character operators ("<<") standing alone stay too: 11.3's
     * formula never puts "^" first on a line */
    const char *x = "that is x ^ ((x & m) << S)";
    n = bl_wrap(x, strlen(x), 10, 0, &next, &cut);
    assert_int_equal(n, strlen("that is"));
    assert_string_equal(x + next, "x ^ ((x & m) << S)");
    n = bl_wrap(x + next, strlen(x + next), 16, 0, &next, &cut);
    assert_int_equal(n, strlen("x ^ ((x & m) <<"));   /* "<<" ends the line, never starts one */
    n = bl_wrap("press p / P now", 15, 8, 0, &next, &cut);
    assert_int_equal(n, strlen("press"));
    assert_string_equal("press p / P now" + next, "p / P now");
    /* longer than the line: after the '=', not before it, not inside the brackets */
    const char *c = "`out[(y + j) * n + x] = in[(y + j) * n + x];`";
    n = bl_wrap(c, strlen(c), 30, BL_WRAP_TICKS, &next, &cut);
    assert_int_equal(n, strlen("`out[(y + j) * n + x] ="));
    assert_int_equal(cut, 0);
    assert_string_equal(c + next, "in[(y + j) * n + x];`");
    /* the rest starts inside the span: it fits, so it is one line */
    n = bl_wrap(c + next, strlen(c + next), 30, BL_WRAP_IN_CODE, &next, &cut);
    assert_int_equal(n, strlen("in[(y + j) * n + x];`"));
    /* "x = a + b" at 6: a break after "=" or "+" only, never with the operator first */
    const char *e = "`x = a + bb`";
    n = bl_wrap(e, strlen(e), 6, BL_WRAP_TICKS, &next, &cut);
    assert_int_equal(n, strlen("`x ="));
    n = bl_wrap(e + next, strlen(e + next), 6, BL_WRAP_IN_CODE, &next, &cut);
    assert_int_equal(n, strlen("a + bb`"));             /* the rest fits: whole */
    n = bl_wrap("a + bb`", 7, 5, BL_WRAP_IN_CODE, &next, &cut);
    assert_int_equal(n, strlen("a +"));                 /* not "a" then "+ bb" */
    /* one shell word wider than the line: no break at its commas inside code, a cut */
    const char *m = "`ncu --metrics aaaa.sum,bbbb.sum,cccc.sum ./app`";
    n = bl_wrap(m, strlen(m), 20, BL_WRAP_TICKS, &next, &cut);
    assert_int_equal(n, strlen("`ncu --metrics"));   /* an option's '-' is no operator */
    assert_int_equal(text_count("`ncu --metrics`", 9), 2);   /* "ncu", "--metrics" */
    assert_int_equal(text_count("`a - b`", 4), 2);           /* "a -", "b": never "- b" */
    const char *w = m + strlen("`ncu --metrics ");
    n = bl_wrap(w, strlen(w), 20, BL_WRAP_IN_CODE, &next, &cut);
    assert_int_equal(cut, 1);                         /* 26 columns, no break: cut */
    assert_int_equal(n, 19);
    /* Chinese before a span: the break falls before the span, not inside it */
    const char *z = "读取共享内存 `tile[threadIdx.x][0]`。";
    n = bl_wrap(z, strlen(z), 24, BL_WRAP_TICKS, &next, &cut);
    assert_int_equal(n, strlen("读取共享内存"));
    assert_int_equal(text_count(z, 24), 2);
    /* a line terminal prints the backticks (BL_WRAP_SHOWN): they take a column each, and the
     * span still goes to the next line whole */
    n = bl_wrap(s, strlen(s), 14, BL_WRAP_TICKS | BL_WRAP_SHOWN, &next, &cut);
    assert_int_equal(n, 3);
    n = bl_wrap(s + next, strlen(s + next), 14, BL_WRAP_TICKS | BL_WRAP_SHOWN, &next, &cut);
    assert_int_equal(n, strlen("`a[i] = b[j];`"));
    /* text_count carries the span over a line break: 3 lines, not a cut */
    assert_int_equal(text_count(c, 30), 2);
    /* at 40 columns and more the rest of a wrapped code line is indented by 4 (6.2's `for`
     * lines): a rest of 37 columns fits in 40, not in the 36 left after the indent */
    const char *f = "`x = tile_of_thirty_eight_columns_wide[0];`";
    assert_int_equal(text_count(f, 40), 3);   /* "x =", the rest cut in two */
    assert_int_equal(text_count(f, 39), 2);   /* narrower than 40: no indent */
    assert_int_equal(text_count(f, 41), 1);
}

/* A terminal without UTF-8: the lessons' own symbols keep an ASCII stand-in (never vanish),
 * other characters become '?', and the result is never longer than the text. */
static void test_ascii_fallback(void **state)
{
    (void)state;
    char buf[64];
    const char *s = "word 40\u00b7r + c, 32 \u00d7 32, a \u2212 b \u2192 c \u2264 4 \u4e2d";
    size_t n = bl_ascii(buf, sizeof buf, s, strlen(s));
    assert_string_equal(buf, "word 40*r + c, 32 x 32, a - b -> c <= 4 ?");
    assert_int_equal(n, strlen(buf));
    assert_true(n <= strlen(s));
    assert_int_equal(bl_ascii(buf, 6, "a\u00d7b\u00d7c", 7), 5);   /* cut to fit, terminated */
    assert_string_equal(buf, "axbxc");
    assert_int_equal(bl_ascii(buf, sizeof buf, "\xe4\xb8", 2), 1);   /* a cut sequence: '?' */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_width),
        cmocka_unit_test(test_line_edit),
        cmocka_unit_test(test_source_line),
        cmocka_unit_test(test_wrap_english),
        cmocka_unit_test(test_wrap_code),
        cmocka_unit_test(test_wrap_code_spans),
        cmocka_unit_test(test_ascii_fallback),
        cmocka_unit_test(test_wrap_chinese),
        cmocka_unit_test(test_wrap_punctuation),
        cmocka_unit_test(test_wrap_punctuation_all_widths),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
