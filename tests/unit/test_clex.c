/* test_clex.c: the one C/CUDA tokenizer (src/model/clex.c) that the pattern language, the
 * CUDA reader of pattern_cuda and the kernel reader share: token kinds and extents, lines and
 * columns, comments, directives with their continuations, backslash-newlines, punctuation
 * longest first or one byte, and a comment the text ends inside. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/model/clex.h"

/* the tokens of text as "KIND:text@line:col" joined by spaces */
static const char *tokens(const char *text, unsigned opts)
{
    static char out[1024];
    static const char kinds[] = "EINSPD";
    struct clex L;
    size_t o = 0;
    clex_init(&L, text, 0, strlen(text), 1, opts);
    for (struct clex_tok t = clex_next(&L); t.kind != CLEX_END; t = clex_next(&L))
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%c:%.*s@%d:%d", o ? " " : "",
                              kinds[t.kind], t.len, text + t.pos, t.line, t.col);
    out[o] = 0;
    return out;
}

static void test_kinds(void **state)
{
    (void)state;
    assert_string_equal(tokens("a_1 = 0x1Fu + .5e-3f; // c", 0),
                        "I:a_1@1:1 P:=@1:5 N:0x1Fu@1:7 P:+@1:13 N:.5e-3f@1:15 P:;@1:21");
    assert_string_equal(tokens("s = \"a\\\"b\" 'c' 1'000", 0),
                        "I:s@1:1 P:=@1:3 S:\"a\\\"b\"@1:5 S:'c'@1:12 N:1'000@1:16");
    assert_string_equal(tokens("a /* x\ny */ b\n  c", 0), "I:a@1:1 I:b@2:6 I:c@3:3");
}

static void test_punctuation(void **state)
{
    (void)state;
    assert_string_equal(tokens("a<<=b->c::d>>e", 0),
                        "I:a@1:1 P:<<=@1:2 I:b@1:5 P:->@1:6 I:c@1:8 P:::@1:9 I:d@1:11 "
                        "P:>>@1:12 I:e@1:14");
    assert_string_equal(tokens("T<U<int>>", CLEX_PUNCT1),
                        "I:T@1:1 P:<@1:2 I:U@1:3 P:<@1:4 I:int@1:5 P:>@1:8 P:>@1:9");
    assert_string_equal(tokens("@\x80", 0), "P:@@1:1 P:\x80@1:2");
}

static void test_directives(void **state)
{
    (void)state;
    /* at the start of a line (after blanks and comments only) */
    const char *src = "#define N \\\n  32\n/* c */ # pragma\na # b\n";
    assert_string_equal(tokens(src, CLEX_DIRECTIVES),
                        "D:#define N \\\n  32@1:1 D:# pragma@3:9 I:a@4:1 P:#@4:3 I:b@4:5");
    /* without CLEX_DIRECTIVES '#' is punctuation; with CLEX_SPLICE a backslash-newline is blank */
    assert_string_equal(tokens("#x", 0), "P:#@1:1 I:x@1:2");
    assert_string_equal(tokens("a\\\nb", CLEX_SPLICE), "I:a@1:1 I:b@2:1");
    assert_string_equal(tokens("a\\\nb", 0), "I:a@1:1 P:\\@1:2 I:b@2:1");
}

static void test_open_comment(void **state)
{
    (void)state;
    struct clex L;
    const char *src = "a /*/ b";
    clex_init(&L, src, 0, strlen(src), 1, 0);
    assert_int_equal(clex_next(&L).kind, CLEX_IDENT);
    assert_int_equal(clex_next(&L).kind, CLEX_END);
    assert_int_equal(L.open_comment, 2);
    /* clex_all: every token, the end after the last */
    struct clex_toks v = {NULL, 0, 0};
    clex_init(&L, src, 0, 1, 1, 0);
    assert_int_equal(clex_all(&L, &v), 0);
    assert_int_equal(v.n, 1);
    assert_int_equal(v.t[1].kind, CLEX_END);
    assert_true(clex_is(src, &v.t[0], "a"));
    assert_false(clex_is(src, &v.t[0], "ab"));
    free(v.t);
}

/* brackets: nested, '<' giving up at ';', '>>' closing two with one-byte punctuation */
static void test_close(void **state)
{
    (void)state;
    const char *src = "f(a[(b)], c) T<U<int>> x; A<b; c> { }";
    struct clex L;
    struct clex_toks v = {NULL, 0, 0};
    clex_init(&L, src, 0, strlen(src), 1, CLEX_PUNCT1);
    assert_int_equal(clex_all(&L, &v), 0);
    assert_int_equal(clex_close(src, v.t, 1, v.n), 10);    /* f( ... ) */
    assert_int_equal(clex_close(src, v.t, 3, v.n), 7);     /* a[ ... ] */
    assert_int_equal(clex_close(src, v.t, 12, v.n), 17);   /* T< U<int> > */
    assert_int_equal(clex_close(src, v.t, 14, v.n), 16);
    assert_int_equal(clex_close(src, v.t, 21, v.n), -1);   /* A< b; */
    assert_int_equal(clex_close(src, v.t, 1, 5), -1);      /* the range ends first */
    assert_int_equal(clex_close(src, v.t, 0, v.n), -1);    /* f is no bracket */
    static const char *const words[] = {"T", "x", NULL};
    assert_true(clex_word_in(src, &v.t[11], words));
    assert_false(clex_word_in(src, &v.t[0], words));
    free(v.t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_punctuation),
        cmocka_unit_test(test_directives),
        cmocka_unit_test(test_open_comment),
        cmocka_unit_test(test_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
