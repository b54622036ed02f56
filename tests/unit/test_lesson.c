/* test_lesson.c: the lesson loader (lesson.h): fields and defaults, problems named by their
 * path, syntax errors at file:line:col (CRLF, BOM, wide characters), the
 * model checks, scene environments, directory search and sets, no crash on truncations, and
 * hostile sizes (20,000 problems on a line, 50,000 steps) in linear time, control characters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../src/lesson/lesson.h"
#include "../../src/lesson/scene.h"
#include "../../src/store/lesson_load.h"
#include "../../src/store/recording.h"

static const char good[] =
    "{\n"                                                                       /* 1 */
    "  \"format\": 1,\n"                                                        /* 2 */
    "  \"id\": \"unit\",\n"                                                     /* 3 */
    "  \"chapter\": 3,\n"                                                       /* 4 */
    "  \"title\": {\"zh\": \"测试\", \"en\": \"Test\"},\n"                      /* 5 */
    "  \"steps\": [\n"                                                          /* 6 */
    "    {\n"                                                                   /* 7 */
    "      \"id\": \"stride\",\n"                                               /* 8 */
    "      \"title\": {\"zh\": \"步长\", \"en\": \"Stride\"},\n"                /* 9 */
    "      \"text\": {\"zh\": \"文\", \"en\": \"Text\"},\n"                     /* 10 */
    "      \"hints\": [{\"zh\": \"提示\", \"en\": \"Hint\"}],\n"                /* 11 */
    "      \"scene\": {\n"                                                      /* 12 */
    "        \"code\": \"__shared__ float s[1024]; s[lane * STRIDE]\",\n"       /* 13 */
    "        \"params\": [\n"                                                   /* 14 */
    "          {\"name\": \"STRIDE\", \"default\": 2, \"min\": 1, \"max\": 32, \"keys\": \"jJ\"}\n"
    "        ]\n"                                                               /* 16 */
    "      },\n"                                                                /* 17 */
    "      \"quiz\": {\n"                                                       /* 18 */
    "        \"kind\": \"choice\", \"predict\": true,\n"                        /* 19 */
    "        \"question\": {\"zh\": \"几个?\", \"en\": \"How many?\"},\n"       /* 20 */
    "        \"choices\": [{\"zh\": \"1\", \"en\": \"1\", \"value\": 1}, {\"zh\": \"2\", \"en\": \"2\", \"value\": 2}],\n"
    "        \"answer\": 1,\n"                                                  /* 22 */
    "        \"explanation\": {\"zh\": \"两路。\", \"en\": \"2-way.\"},\n"      /* 23 */
    "        \"check\": {\"field\": \"wavefronts\", \"params\": {\"STRIDE\": 2}}\n"
    "      },\n"                                                                /* 25 */
    "      \"expect\": [\n"                                                     /* 26 */
    "        {\"params\": {\"STRIDE\": 2}, \"wavefronts\": 2, \"conflicts\": 1},\n"
    "        {\"params\": {\"STRIDE\": 32}, \"ways\": 32, \"passes\": 1}\n"     /* 28 */
    "      ],\n"                                                                /* 29 */
    "      \"task\": {\"goal\": {\"zh\": \"无冲突\", \"en\": \"No conflict\"}, \"require\": {\"conflicts\": 0}}\n"
    "    }\n"                                                                   /* 31 */
    "  ]\n"                                                                     /* 32 */
    "}\n";

/* good with the first occurrence of old replaced by new (static buffer). */
static const char *edit(const char *old, const char *new)
{
    static char buf[8192];
    const char *at = strstr(good, old);
    assert_non_null(at);
    size_t pre = (size_t)(at - good);
    assert_true(pre + strlen(new) + strlen(at + strlen(old)) < sizeof buf);
    memcpy(buf, good, pre);
    strcpy(buf + pre, new);
    strcat(buf, at + strlen(old));
    return buf;
}

/* the loader's first problem, as lesson_load_file keeps it: the first one reported */
static void keep_first(const struct lesson_error *e, void *ctx)
{
    struct lesson_error *first = ctx;
    if (first->err.status == 0)
        *first = *e;
}

/* lesson_load_file's reading from memory (data NULL: an empty file) */
static struct lesson *load_buffer(const char *name, const char *data, size_t len,
                                  struct lesson_error *e)
{
    memset(e, 0, sizeof *e);
    return lesson_load_report(name, data ? data : "", data ? len : 0, keep_first, e, NULL);
}

static struct lesson *load(const char *text, struct lesson_error *e)
{
    memset(e, 0, sizeof *e);
    return load_buffer("t.json", text, strlen(text), e);
}

/* Loads text, expects failure with the first problem at line:col with message msg. */
static void expect_error(const char *text, int line, int col, const char *msg)
{
    struct lesson_error e;
    struct lesson *l = load(text, &e);
    if (l || e.line != line || e.col != col || strcmp(e.err.msg, msg)) {
        print_error("want %d:%d: %s\n got  %d:%d: %s\n", line, col, msg, e.line, e.col, e.err.msg);
        lesson_free(l);
        fail();
    }
    assert_string_equal(e.file, "t.json");
}

static void test_good(void **state)
{
    (void)state;
    struct lesson_error e;
    struct lesson *l = load(good, &e);
    if (!l)
        print_error("%d:%d: %s\n", e.line, e.col, e.err.msg);
    assert_non_null(l);
    assert_string_equal(l->id, "unit");
    assert_string_equal(l->path, "t.json");
    assert_int_equal(l->chapter, 3);
    assert_string_equal(l->title.zh, "测试");
    assert_string_equal(lesson_tr(&l->title, LANG_EN), "Test");
    assert_int_equal(l->nsteps, 1);
    const struct lesson_step *st = &l->steps[0];
    assert_string_equal(st->id, "stride");
    assert_null(st->key.zh);
    assert_int_equal(st->nhints, 1);
    assert_string_equal(st->hints[0].en, "Hint");
    const struct lesson_scene *s = st->scene;
    assert_non_null(s);
    assert_int_equal(s->block[0], 32);
    assert_int_equal(s->block[1], 1);
    assert_int_equal(s->block[2], 1);
    assert_int_equal(s->warp, 0);
    assert_int_equal(s->access, 0);
    assert_int_equal(s->dyn_bytes, 0);
    assert_int_equal(s->ntypes, 0);
    assert_string_equal(s->kernel, "pattern");
    assert_string_equal(s->sweep, "STRIDE");     /* default: the first parameter */
    assert_int_equal(s->nparams, 1);
    assert_string_equal(s->params[0].name, "STRIDE");
    assert_int_equal(s->params[0].def, 2);
    assert_int_equal(s->params[0].min, 1);
    assert_int_equal(s->params[0].max, 32);
    assert_int_equal(s->params[0].step, 1);
    assert_int_equal(s->params[0].key_dec, 'j');   /* "jJ": Shift = more */
    assert_int_equal(s->params[0].key_inc, 'J');
    assert_null(s->params[0].label.en);
    const struct lesson_quiz *q = st->quiz;
    assert_non_null(q);
    assert_int_equal(q->kind, QUIZ_CHOICE);
    assert_int_equal(q->predict, 1);
    assert_int_equal(q->nchoices, 2);
    assert_true(q->choice_values[1] == 2.0);
    assert_int_equal(q->answer, 1);
    assert_int_equal(q->check.field, FIELD_WAVEFRONTS);
    assert_int_equal(q->check.access, 0);
    assert_int_equal(q->check.bind.nvalues, 1);
    assert_int_equal(st->nexpects, 2);
    const struct lesson_expect *x = &st->expects[1];
    assert_int_equal(x->wavefronts, -1);
    assert_int_equal(x->conflicts, -1);
    assert_int_equal(x->ways, 32);
    assert_int_equal(x->passes, 1);
    assert_string_equal(x->bind.names[0], "STRIDE");
    assert_int_equal(x->bind.values[0], 32);
    assert_non_null(st->task);
    assert_int_equal(st->task->max_conflicts, 0);
    assert_int_equal(st->task->max_wavefronts, -1);
    assert_int_equal(st->task->points, 1);
    assert_int_equal(lesson_check(l, NULL, NULL), 0);
    lesson_free(l);
}

static void test_tr(void **state)
{
    (void)state;
    struct lesson_text t = {NULL, (char *)"en only"};
    assert_string_equal(lesson_tr(&t, LANG_ZH), "en only");
    assert_string_equal(lesson_tr(&t, LANG_EN), "en only");
    struct lesson_text none = {NULL, NULL};
    assert_string_equal(lesson_tr(&none, LANG_ZH), "");
    assert_string_equal(lesson_tr(NULL, LANG_EN), "");
    lesson_free(NULL);
    struct lesson_set empty = {0, NULL};
    lesson_set_done(&empty);
}

static void test_field_errors(void **state)
{
    (void)state;
    /* the brief's example: a nested field, at its value */
    expect_error(edit("\"max\": 32", "\"max\": -1"), 0, 0,
                 "steps[0].scene.params[0].max: expected an integer >= min (1), found -1");
    expect_error(edit("\"text\":", "\"txet\":"), 0, 0,
                 "steps[0].txet: unknown field (did you mean \"text\"?); valid fields: id, title, "
                 "text, key, scene, hints, quiz, expect, task, figures");
    expect_error(edit(", \"en\": \"Stride\"", ""), 0, 0,
                 "steps[0].title: missing required field \"en\"");
    expect_error(edit("\"chapter\": 3", "\"chapter\": 3.5"), 0, 0,
                 "chapter: expected an integer in 1..99, found 3.5");
    expect_error(edit("\"keys\": \"jJ\"", "\"keys\": \"jw\""), 0, 0,
                 "steps[0].scene.params[0].keys: 'w' is reserved by the program (reserved: - . = ? "
                 "Q W a b c e g h i l n q r s t w x z, digits, space)");
    expect_error(edit("\"keys\": \"jJ\"", "\"keys\": \"j5\""), 0, 0,
                 "steps[0].scene.params[0].keys: '5' is reserved by the program (reserved: - . = ? "
                 "Q W a b c e g h i l n q r s t w x z, digits, space)");
    /* number input's '-' and '.' are the program's too (src/keys/keys.c derives the list) */
    expect_error(edit("\"keys\": \"jJ\"", "\"keys\": \"j-\""), 0, 0,
                 "steps[0].scene.params[0].keys: '-' is reserved by the program (reserved: - . = ? "
                 "Q W a b c e g h i l n q r s t w x z, digits, space)");
    expect_error(edit("\"keys\": \"jJ\"", "\"keys\": \"jj\""), 0, 0,
                 "steps[0].scene.params[0].keys: \"jj\": expected two different printable ASCII "
                 "characters (lower, raise), e.g. \"pP\"");
    expect_error(edit("\"scene\": {\n", "\"scene\": {\"block\": [32, 33],\n"), 0, 0,
                 "steps[0].scene.block: 32 x 33 x 1 = 1056 threads; a block has at most 1024");
    expect_error(edit("\"scene\": {\n", "\"scene\": {\"block\": [0],\n"), 0, 0,
                 "steps[0].scene.block[0]: expected an integer in 1..1024 (blockDim.x), found 0");
    expect_error(edit("\"scene\": {\n", "\"scene\": {\"warp\": 1,\n"), 0, 0,
                 "steps[0].scene.warp: expected an integer in 0..0 (the block has 1 warp), found 1");
}

/* Near-misses of the errors above that are fine. */
static void test_field_errors_ok(void **state)
{
    (void)state;
    struct lesson_error e;
    struct lesson *l = load(edit("\"scene\": {\n", "\"scene\": {\"block\": [32, 4], \"warp\": 3,\n"),
                            &e);
    assert_non_null(l);
    assert_int_equal(l->steps[0].scene->warp, 3);
    assert_int_equal(l->steps[0].scene->block[1], 4);
    lesson_free(l);
    l = load(edit("\"keys\": \"jJ\"}", "\"keys\": \"jJ\", \"step\": 1, \"label\": {\"zh\": \"步长\", "
                  "\"en\": \"stride\"}}"), &e);
    assert_non_null(l);
    assert_int_equal(l->steps[0].scene->params[0].step, 1);
    assert_string_equal(l->steps[0].scene->params[0].label.zh, "步长");
    lesson_free(l);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    expect_error(edit("\"format\": 1,", "\"format\": 1,,"), 2, 15,
                 "expected a \"key\" in double quotes, found ','");
    expect_error(edit("\"id\": \"unit\",", "\"id\": \"unit\""), 4, 3, "missing ',' before this");
    expect_error(edit("\"jJ\"}\n", "\"jJ\"},\n"), 16, 9, "trailing comma before ']'");
    expect_error("{\"a\": tru}", 1, 7, "unknown word (text must be in double quotes)");
    expect_error("{\"a\": 01}", 1, 7, "bad number (no leading zeros in JSON)");
    expect_error("{\"a\": 1} x", 1, 10, "text after the end of the JSON object");
    expect_error("", 1, 1, "empty file (a lesson is one JSON object)");
    expect_error("  \n ", 1, 1, "empty file (a lesson is one JSON object)");
    expect_error("{\"a\": [1, 2}", 1, 12, "expected ',' or ']', found '}'");
    expect_error("{\n  \"a\": [1,\n", 3, 1,
                 "unexpected end of file (a string, object or array is not closed)");
    expect_error("{\"a\": \"\\u0000\"}", 1, 8, "\\u0000 is not allowed in a text");
    expect_error("{\"a\": \"\\ud800x\"}", 1, 8, "unpaired surrogate \\uD800");
    expect_error("{\"a\": \"\xc3\x28\"}", 1, 8, "invalid UTF-8 (save the file as UTF-8)");
    expect_error("{\"a\": \"\xed\xa0\x80\"}", 1, 8, "invalid UTF-8 (save the file as UTF-8)");
    expect_error("{\"a\":\x01 1}", 1, 6, "control character 0x01 (not allowed in JSON)");
    /* what cJSON lets pass and JSON refuses, and what stands where cJSON stops */
    expect_error("{\"a\": 1.}", 1, 7, "bad number (a digit must follow '.')");
    expect_error("{\"a\": -}", 1, 7, "bad number (a digit must follow '-')");
    expect_error("{\"a\": \"b", 1, 7, "unterminated string (missing closing '\"')");
    expect_error("{\"a\": \"x\\q\"}", 1, 9, "invalid escape '\\' followed by 'q' (valid: \\\" "
                 "\\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
    expect_error("{\"a\": \"\\u12\"}", 1, 8, "\\u must be followed by 4 hex digits");
    expect_error("{\"a\": [}", 1, 8, "expected a value, found '}'");
    expect_error("{\"a\": 1 \"b\": 2}", 1, 9, "missing ',' before this");
    char deep[2100];
    memset(deep, '[', 1001);
    memset(deep + 1001, ']', 1001);
    deep[2002] = 0;
    expect_error(deep, 1, 1001, "nesting too deep (more than 1000 levels)");
    /* a NUL byte inside the buffer */
    struct lesson_error e;
    struct lesson *l = load_buffer("t.json", "{\"a\"\0:1}", 8, &e);
    assert_null(l);
    assert_int_equal(e.line, 1);
    assert_int_equal(e.col, 5);
    assert_string_equal(e.err.msg, "NUL byte in the file");
    l = load_buffer("t.json", NULL, 0, &e);
    assert_null(l);
    assert_string_equal(e.err.msg, "empty file (a lesson is one JSON object)");
}

/* A problem of a field is named by its path; a syntax error is placed at line:col, columns
 * counting characters, CRLF and a BOM not shifting them. */
static void test_columns(void **state)
{
    (void)state;
    expect_error(edit("\"title\": {\"zh\": \"步长\", \"en\": \"Stride\"},",
                      "\"title\": {\"zh\": \"步长\", \"en\": \"Stride\", \"fr\": 1},"),
                 0, 0, "steps[0].title.fr: unknown field; valid fields: zh, en");
    /* Chinese text before the error on the same line: 2 characters, 6 bytes */
    expect_error(edit("\"title\": {\"zh\": \"步长\", \"en\": \"Stride\"},",
                      "\"title\": {\"zh\": \"步长\", \"en\": \"Stride\", fr: 1},"),
                 9, 45, "expected a \"key\" in double quotes, found 'f'");
    expect_error(edit("\"max\": 32", "\"max\": 0"), 0, 0,
                 "steps[0].scene.params[0].max: expected an integer >= min (1), found 0");
    /* CRLF line ends */
    char crlf[8192];
    size_t n = 0;
    const char *bad = edit("\"max\": 32", "\"max\": 032");
    for (const char *c = bad; *c && n + 2 < sizeof crlf; c++) {
        if (*c == '\n')
            crlf[n++] = '\r';
        crlf[n++] = *c;
    }
    crlf[n] = 0;
    expect_error(crlf, 15, 61, "bad number (no leading zeros in JSON)");
    /* BOM */
    char bom[8192];
    snprintf(bom, sizeof bom, "\xEF\xBB\xBF%s", bad);
    struct lesson_error e;
    struct lesson *l = load(bom, &e);
    assert_null(l);
    assert_int_equal(e.line, 15);
    assert_int_equal(e.col, 61);
    snprintf(bom, sizeof bom, "\xEF\xBB\xBF%s", good);
    l = load(bom, &e);
    assert_non_null(l);
    lesson_free(l);
}

/* Errors inside "code" are named by the path of the code, or of the type they are in. */
static void test_code_columns(void **state)
{
    (void)state;
    /* "code" value starts at column 17 (the quote); its text at 18 */
    expect_error(edit("s[lane * STRIDE]\"", "s[lane * STRIDE + OFF]\""), 0, 0,
                 "steps[0].scene.code: unknown name 'OFF': not a parameter of the scene (add it to "
                 "\"params\" or write a number) (STRIDE=2, access 0)");
    /* the same with an escape (\u0020 is 6 characters for one space) before the error */
    expect_error(edit("s[lane * STRIDE]\"", "s[lane\\u0020* STRIDE + OFF]\""), 0, 0,
                 "steps[0].scene.code: unknown name 'OFF': not a parameter of the scene (add it to "
                 "\"params\" or write a number) (STRIDE=2, access 0)");
    /* out of bounds at the parameter's max: reported at "max" */
    expect_error(edit("\"max\": 32", "\"max\": 34"), 0, 0,
                 "steps[0].scene.params[0].max: the code fails at STRIDE = 34: lane 31: index 1054 "
                 "is out of bounds for dimension 1 of 's' (size 1024) (STRIDE=34, access 0)");
    /* a type error of one entry of "types" is reported at that entry */
    const char *t = edit("\"code\": \"__shared__ float s[1024]; s[lane * STRIDE]\"",
                         "\"types\": [\"float\", \"flot4\"], \"code\": \"__shared__ T s[1024]; "
                         "s[lane * STRIDE]\"");
    struct lesson_error e;
    struct lesson *l = load(t, &e);
    assert_null(l);
    assert_int_equal(e.line, 0);
    assert_int_equal(e.err.where.at, 0);
    assert_non_null(strstr(e.err.msg, "steps[0].scene.types[1]: "));
}

struct collect {
    int n;
    struct lesson_error e[8];
};

static void collect(const struct lesson_error *e, void *ctx)
{
    struct collect *c = ctx;
    if (c->n < 8)
        c->e[c->n] = *e;
    c->n++;
}

/* lesson_load_report goes on after a problem; every one is reported once. */
static void test_report_all(void **state)
{
    (void)state;
    char text[8192];
    snprintf(text, sizeof text, "%s", edit("\"chapter\": 3", "\"chapter\": 0"));
    char *at = strstr(text, "\"en\": \"Hint\"");
    assert_non_null(at);
    memcpy(at, "\"EN\"", 4);
    struct collect c = {0};
    int np = 0;
    struct lesson *l = lesson_load_report("t.json", text, strlen(text), collect, &c, &np);
    assert_null(l);
    assert_int_equal(np, 3);
    assert_int_equal(c.n, 3);
    assert_string_equal(c.e[0].err.msg, "chapter: expected an integer in 1..99, found 0");
    assert_string_equal(c.e[1].err.msg, "steps[0].hints[0].EN: unknown field (did you mean \"en\"?); "
                                    "valid fields: zh, en");
    assert_string_equal(c.e[2].err.msg, "steps[0].hints[0]: missing required field \"en\"");
    /* a file that cannot be read */
    c.n = 0;
    l = lesson_load_report("/nonexistent/x.json", NULL, 0, collect, &c, &np);
    assert_null(l);
    assert_int_equal(np, -1);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.e[0].line, 0);
    assert_string_equal(c.e[0].file, "/nonexistent/x.json");
}

/* good with the first expectation's results replaced by expect, and old replaced by new. */
static void two_edits(char *text, size_t size, const char *expect, const char *old, const char *new)
{
    snprintf(text, size, "%s", edit("\"wavefronts\": 2, \"conflicts\": 1}", expect));
    char *at = strstr(text, old);
    assert_non_null(at);
    assert_int_equal(strlen(old), strlen(new));
    memcpy(at, new, strlen(new));
}

/* lesson_load_partial returns what holds after a problem, without the broken parts, so that
 * lesson_check goes on over the rest: a bad hint and a wrong expectation are both found. */
static void test_partial(void **state)
{
    (void)state;
    char text[8192];
    struct collect c = {0};
    int np = 0;
    two_edits(text, sizeof text, "\"wavefronts\": 3, \"conflicts\": 1.0}", "\"en\": \"Hint\"",
              "\"EN\": \"Hint\"");
    struct lesson *l = lesson_load_partial("t.json", text, strlen(text), collect, &c, &np);
    assert_non_null(l);
    assert_int_equal(np, 3);   /* EN, missing en, 1.0 */
    assert_string_equal(c.e[2].err.msg, "steps[0].expect[0].conflicts: expected an integer in "
                                    "0..1024, found 1.0 (write integers without a fraction or "
                                    "exponent)");
    assert_int_equal(l->nsteps, 1);
    assert_non_null(l->steps[0].scene);
    assert_int_equal(l->steps[0].nexpects, 1);   /* the broken one is left out */
    assert_int_equal(lesson_check(l, collect, &c), 0);
    lesson_free(l);
    /* a scene that fails: its quiz check, expectations and task go too */
    two_edits(text, sizeof text, "\"wavefronts\": 3, \"conflicts\": 1}", "\"jJ\"", "\"qQ\"");
    memset(&c, 0, sizeof c);
    l = lesson_load_partial("t.json", text, strlen(text), collect, &c, &np);
    assert_non_null(l);
    assert_int_equal(np, 1);
    assert_null(l->steps[0].scene);
    assert_int_equal(l->steps[0].nexpects, 0);
    assert_null(l->steps[0].task);
    assert_int_equal(lesson_check(l, collect, &c), 0);
    lesson_free(l);
    /* the wrong expectation next to a bad hint: found by the check of the partial lesson */
    two_edits(text, sizeof text, "\"wavefronts\": 3, \"conflicts\": 1}", "\"en\": \"Hint\"",
              "\"EN\": \"Hint\"");
    memset(&c, 0, sizeof c);
    l = lesson_load_partial("t.json", text, strlen(text), collect, &c, &np);
    assert_non_null(l);
    assert_int_equal(np, 2);
    assert_int_equal(lesson_check(l, collect, &c), 1);
    assert_string_equal(c.e[2].err.msg, "steps[0].expect[0]: wavefronts is 2 by the model, the "
                                    "lesson says 3 (STRIDE=2, access 0)");
    lesson_free(l);
    /* not JSON: nothing to go on with */
    l = lesson_load_partial("t.json", "{\"format\": ", 12, collect, &c, &np);
    assert_null(l);
    assert_int_equal(np, 1);
}

static void test_check(void **state)
{
    (void)state;
    struct lesson_error e;
    struct lesson *l = load(edit("\"wavefronts\": 2, \"conflicts\": 1}", "\"wavefronts\": 16, "
                                 "\"conflicts\": 1}"), &e);
    assert_non_null(l);
    struct collect c = {0};
    assert_int_equal(lesson_check(l, collect, &c), 1);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.e[0].file, "t.json");
    assert_int_equal(c.e[0].line, 0);   /* named by its path */
    assert_string_equal(c.e[0].err.msg, "steps[0].expect[0]: wavefronts is 2 by the model, the lesson "
                                    "says 16 (STRIDE=2, access 0)");
    lesson_free(l);
    /* a quiz whose answer's value is not the model's; a task nobody can solve */
    char text[8192];
    snprintf(text, sizeof text, "%s", edit("\"answer\": 1", "\"answer\": 0"));
    char *at = strstr(text, "\"conflicts\": 0}}");
    assert_non_null(at);
    memcpy(at, "\"ways\":      0}}", 16);
    l = load(text, &e);
    assert_non_null(l);
    memset(&c, 0, sizeof c);
    assert_int_equal(lesson_check(l, collect, &c), 2);
    assert_string_equal(c.e[0].err.msg, "steps[0].quiz.answer: choice 0 (\"1\") has value 1, the "
                                    "model's wavefronts is 2 (STRIDE=2, access 0)");
    assert_int_equal(c.e[0].line, 0);
    assert_string_equal(c.e[1].err.msg, "steps[0].task: no parameter values within the ranges give "
                                    "ways <= 0");
    assert_int_equal(lesson_check(l, NULL, NULL), 2);
    lesson_free(l);
    assert_int_equal(lesson_check(NULL, NULL, NULL), 0);
}

/* Quoted figures: each must be quoted by its step's text (zh and en) as written, and
 * recording_check_figures compares it with a recording at the quoted precision. */
static void test_figures(void **state)
{
    (void)state;
    static const char head[] =
        "{\"format\": 1, \"id\": \"fig\", \"chapter\": 6, \"title\": {\"zh\": \"图\", \"en\": \"Fig\"},\n"
        " \"steps\": [{\"id\": \"m\", \"title\": {\"zh\": \"实测\", \"en\": \"Measured\"},\n"
        "  \"text\": {\"zh\": \"填充版本 3495 GB/s，是 tile32 的 2.2 倍，比拷贝高 16 %。\",\n"
        "           \"en\": \"Padded: 3495 GB/s, 2.2 times tile32, 16 % above the copy.\"},\n"
        "  \"figures\": [\n";
    static const char tail[] = "]}]}\n";
    const char *figs =
        "   {\"group\": \"transpose\", \"label\": \"padded\", \"field\": \"gbps\", \"value\": 3495},\n"
        "   {\"group\": \"transpose\", \"label\": \"padded\", \"field\": \"gbps\", \"over\": \"tile32\", \"value\": 2.2},\n"
        "   {\"group\": \"transpose\", \"label\": \"padded\", \"field\": \"gbps\", \"over\": \"copy\", \"percent\": true, \"value\": 16}\n";
    char text[4096];
    snprintf(text, sizeof text, "%s%s%s", head, figs, tail);
    struct lesson_error e;
    struct lesson *l = load(text, &e);
    if (!l)
        fail_msg("%d:%d: %s", e.line, e.col, e.err.msg);
    assert_int_equal(l->steps[0].nfigures, 3);
    assert_string_equal(l->steps[0].figures[1].text, "2.2");
    assert_int_equal(l->steps[0].figures[1].decimals, 1);

    struct recording r;
    recording_init(&r);
    const char *labels[] = {"padded", "tile32", "copy"};
    const double gbps[] = {3494.53, 1594.64, 3024.01};
    for (int k = 0; k < 3; k++) {
        struct recording_row w;
        memset(&w, 0, sizeof w);
        snprintf(w.group, sizeof w.group, "transpose");
        snprintf(w.label, sizeof w.label, "%s", labels[k]);
        w.rec.req.kind = GPU_REQ_CASE;
        w.rec.res.err.status = GPU_OK;
        w.rec.res.has_timing = 1;
        w.rec.res.gbps = gbps[k];
        assert_int_equal(recording_add(&r, &w), 0);
    }
    struct collect c = {0};
    assert_int_equal(recording_check_figures(&r, l, collect, &c), 0);
    /* a new recording: the padded kernel at 3000 GB/s; every figure built on it is stale */
    r.rows[0].rec.res.gbps = 3000.2;
    assert_int_equal(recording_check_figures(&r, l, collect, &c), 3);
    assert_string_equal(c.e[0].err.msg, "steps[0].figures[0]: the recording gives 3000 (transpose "
                                    "\"padded\" gbps); the lesson quotes 3495");
    assert_int_equal(c.e[0].line, 0);
    assert_string_equal(c.e[1].err.msg, "steps[0].figures[1]: the recording gives 1.9 (transpose "
                                    "\"padded\" gbps over \"tile32\"); the lesson quotes 2.2");
    assert_string_equal(c.e[2].err.msg, "steps[0].figures[2]: the recording gives -1 (transpose "
                                    "\"padded\" gbps over \"copy\", as a percentage above); the "
                                    "lesson quotes 16");
    /* rows that are gone, or not measured */
    snprintf(r.rows[2].label, sizeof r.rows[2].label, "copy2");
    r.rows[0].rec.res.has_timing = 0;
    memset(&c, 0, sizeof c);
    assert_int_equal(recording_check_figures(&r, l, collect, &c), 3);
    assert_string_equal(c.e[0].err.msg, "steps[0].figures[0]: transpose \"padded\" has no gbps in "
                                    "the recording (not measured)");
    r.rows[0].rec.res.has_timing = 1;
    r.rows[0].rec.res.gbps = 3494.53;
    memset(&c, 0, sizeof c);
    assert_int_equal(recording_check_figures(&r, l, collect, &c), 1);
    assert_string_equal(c.e[0].err.msg, "steps[0].figures[2]: no row transpose \"copy\" in the "
                                    "recording");
    recording_done(&r);
    lesson_free(l);

    /* the loader: a figure its text does not quote (3500 is not "3495"; 22 is not 2.2) */
    snprintf(text, sizeof text, "%s%s%s", head,
             "{\"group\": \"t\", \"label\": \"p\", \"field\": \"gbps\", \"value\": 3500},"
             "{\"group\": \"t\", \"label\": \"p\", \"field\": \"gbps\", \"value\": 95},"
             "{\"group\": \"t\", \"label\": \"p\", \"field\": \"speed\", \"value\": 2.2},"
             "{\"group\": \"t\", \"label\": \"p\", \"field\": \"gbps\", \"value\": 2.2e0},"
             "{\"group\": \"t\", \"label\": \"p\", \"field\": \"gbps\", \"percent\": true, \"value\": 16}",
             tail);
    memset(&c, 0, sizeof c);
    int np = 0;
    l = lesson_load_partial("t.json", text, strlen(text), collect, &c, &np);
    assert_non_null(l);
    assert_int_equal(np, 5);
    assert_int_equal(l->steps[0].nfigures, 0);
    assert_string_equal(c.e[0].err.msg, "steps[0].figures[0].value: no zh text of this step quotes "
                                    "3500 (a figure is a number its text quotes, as written "
                                    "there)");
    assert_string_equal(c.e[1].err.msg, "steps[0].figures[1].value: no zh text of this step quotes "
                                    "95 (a figure is a number its text quotes, as written there)");
    assert_non_null(strstr(c.e[2].err.msg, "steps[0].figures[2].field: \"speed\": expected one of "
                                       "ms_median"));
    assert_string_equal(c.e[3].err.msg, "steps[0].figures[3].value: 2.2e0: write the figure as the "
                                    "text quotes it (no exponent, at most 31 characters)");
    assert_string_equal(c.e[4].err.msg, "steps[0].figures[4].percent: a percentage needs \"over\" "
                                    "(the label of the row it is a percentage of)");
    lesson_free(l);
}

/* What a figure's sentence claims ("within 11 %", "不到 11 %": at most) is read from both
 * texts and held against the recording; and the record the tutorial's replay shows for the
 * same kernel setting (the first one) must give the quote, written as the panel writes it. */
static void test_figure_claims(void **state)
{
    (void)state;
    const char *text =
        "{\"format\": 1, \"id\": \"fig\", \"chapter\": 6, \"title\": {\"zh\": \"图\", \"en\": \"Fig\"},\n"
        " \"steps\": [{\"id\": \"m\", \"title\": {\"zh\": \"实测\", \"en\": \"Measured\"},\n"
        "  \"text\": {\"zh\": \"填充版本 3708 GB/s，距 memcpy 不到 11 %。\",\n"
        "           \"en\": \"Padded: 3708 GB/s, within 11 % of memcpy.\"},\n"
        "  \"figures\": [\n"
        "   {\"group\": \"transpose\", \"label\": \"padded\", \"field\": \"gbps\", \"value\": 3708},\n"
        "   {\"group\": \"transpose\", \"label\": \"padded\", \"field\": \"gbps\", \"over\": \"memcpy\", "
        "\"percent\": true, \"value\": -11}]}]}\n";
    struct lesson_error e;
    struct lesson *l = load(text, &e);
    if (!l)
        fail_msg("%d:%d: %s", e.line, e.col, e.err.msg);
    assert_int_equal(l->steps[0].figures[0].bound, LESSON_FIG_ABOUT);
    assert_int_equal(l->steps[0].figures[1].bound, LESSON_FIG_AT_MOST);

    /* the padded kernel measured twice: the lesson's own record first (what replay shows),
     * then the benchmark's */
    struct recording r;
    recording_init(&r);
    const char *groups[] = {"lesson-case", "transpose", "transpose"};
    const char *labels[] = {"transpose/padded PAD=1", "padded", "memcpy"};
    const char *cases[] = {"transpose_padded", "transpose_padded", "memcpy"};
    const double gbps[] = {3708.2, 3707.67, 4178.63};
    for (int k = 0; k < 3; k++) {
        struct recording_row w;
        memset(&w, 0, sizeof w);
        snprintf(w.group, sizeof w.group, "%s", groups[k]);
        snprintf(w.label, sizeof w.label, "%s", labels[k]);
        w.rec.req.kind = GPU_REQ_CASE;
        snprintf(w.rec.req.case_name, sizeof w.rec.req.case_name, "%s", cases[k]);
        if (k < 2) {
            snprintf(w.rec.req.param_name[0], sizeof w.rec.req.param_name[0], "PAD");
            w.rec.req.param_value[0] = 1;
            w.rec.req.nparams = 1;
        }
        w.rec.res.err.status = GPU_OK;
        w.rec.res.has_timing = 1;
        w.rec.res.gbps = gbps[k];
        assert_int_equal(recording_add(&r, &w), 0);
    }
    struct collect c = {0};
    /* 3707.67 / 4178.63 is 11.27 % below: rounds to 11, but not "within 11 %" */
    assert_int_equal(recording_check_figures(&r, l, collect, &c), 1);
    assert_string_equal(c.e[0].err.msg, "steps[0].figures[1]: the text says at most 11, but the "
                                    "recording gives -11.27 (transpose \"padded\" gbps over "
                                    "\"memcpy\", as a percentage above)");
    /* the lesson's record says 3711: the panel shows that, whatever the benchmark row says */
    r.rows[0].rec.res.gbps = 3710.95;
    r.rows[1].rec.res.gbps = 3707.67;
    r.rows[2].rec.res.gbps = 4156.6;   /* 10.80 % and 10.72 % below: within 11 % */
    memset(&c, 0, sizeof c);
    assert_int_equal(recording_check_figures(&r, l, collect, &c), 1);
    assert_string_equal(c.e[0].err.msg, "steps[0].figures[0]: the tutorial's panel shows 3711 (0 "
                                    "decimals, replayed from lesson-case \"transpose/padded "
                                    "PAD=1\") for transpose \"padded\" gbps; the lesson quotes "
                                    "3708");
    recording_done(&r);
    lesson_free(l);

    /* the same claim in both languages, or a problem */
    char t2[2048];
    snprintf(t2, sizeof t2, "%s", text);
    char *at = strstr(t2, "距 memcpy 不到 11 %");
    assert_non_null(at);
    static const char low[] = "比 memcpy 低 11 %   ";   /* as long as what it replaces */
    assert_int_equal(strlen(low), strlen("距 memcpy 不到 11 %"));
    memcpy(at, low, strlen(low));
    memset(&c, 0, sizeof c);
    int np = 0;
    l = lesson_load_partial("t.json", t2, strlen(t2), collect, &c, &np);
    assert_non_null(l);
    assert_int_equal(np, 1);
    assert_non_null(strstr(c.e[0].err.msg, "steps[0].figures[1].value: the zh text claims no bound"));
    lesson_free(l);
}

static void test_scene_env(void **state)
{
    (void)state;
    struct lesson_error e;
    const char *t = edit("\"code\": \"__shared__ float s[1024]; s[lane * STRIDE]\"",
                         "\"types\": [\"float\", \"float2\"], \"block\": [16, 4], \"warp\": 1, "
                         "\"dynamic_bytes\": 64, \"code\": \"__shared__ T s[1024]; s[lane * STRIDE]\"");
    struct lesson *l = load(t, &e);
    if (!l)
        print_error("%d:%d: %s\n", e.line, e.col, e.err.msg);
    assert_non_null(l);
    const struct lesson_scene *s = l->steps[0].scene;
    /* the environment and the code scene_run makes of the scene (access -1: no access run) */
    struct scene_run r = {0};
    struct scene_in in = {.scene = s, .type = 0, .access = -1, .warp = -1};
    assert_int_equal(scene_run(&r, &in, NULL, NULL, NULL), 0);
    assert_string_equal(r.code.s, "typedef float T; __shared__ T s[1024]; s[lane * STRIDE]");
    assert_int_equal(r.env.block[0], 16);
    assert_int_equal(r.env.block[1], 4);
    assert_int_equal(r.env.block[2], 1);
    assert_int_equal(r.env.warp, 1);
    assert_int_equal(r.env.dyn_bytes, 64);
    assert_int_equal(r.env.nparams, 1);
    assert_int_equal(r.env.param[0].value, 2);
    in.type = 3;   /* taken modulo the two types */
    assert_int_equal(scene_run(&r, &in, NULL, NULL, NULL), 0);
    assert_string_equal(r.code.s, "typedef float2 T; __shared__ T s[1024]; s[lane * STRIDE]");
    char *names[] = {(char *)"STRIDE"};
    long long values[] = {7};
    struct lesson_binding b = {1, names, values, (char *)"float2"};
    in = (struct scene_in){.scene = s, .bind = &b, .access = -1, .warp = -1};
    assert_int_equal(scene_run(&r, &in, NULL, NULL, NULL), 0);
    assert_string_equal(r.code.s, "typedef float2 T; __shared__ T s[1024]; s[lane * STRIDE]");
    assert_int_equal(r.env.param[0].value, 7);
    char *bad_names[] = {(char *)"PAD"};
    struct lesson_binding bad = {1, bad_names, values, NULL};
    struct bl_err err = {0};
    in.bind = &bad;
    assert_int_equal(scene_run(&r, &in, NULL, NULL, &err), -1);
    assert_int_equal(err.status, SCENE_EBIND);
    scene_run_free(&r);
    /* an expectation with the second type and the model through it */
    assert_int_equal(lesson_check(l, NULL, NULL), 0);
    lesson_free(l);
}

static char tmpdir[256];

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_dirs(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/banklab-test-lesson-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    char buf[512];
    assert_ptr_equal(lesson_find_dir(tmpdir, buf, sizeof buf), buf);
    assert_string_equal(buf, tmpdir);
    assert_null(lesson_find_dir("/nonexistent-banklab", buf, sizeof buf));
    assert_null(lesson_find_dir(tmpdir, buf, 4));
    setenv("BANKLAB_LESSONS", tmpdir, 1);
    assert_non_null(lesson_find_dir(NULL, buf, sizeof buf));
    assert_string_equal(buf, tmpdir);
    setenv("BANKLAB_LESSONS", "/nonexistent-banklab", 1);
    assert_null(lesson_find_dir(NULL, buf, sizeof buf));
    unsetenv("BANKLAB_LESSONS");

    struct lesson_set set;
    struct collect c = {0};
    assert_int_equal(lesson_set_load_dir(&set, tmpdir, collect, &c), -1);   /* empty */
    assert_int_equal(c.n, 1);
    assert_int_equal(set.nlessons, 0);
    /* z.json is chapter 1, a.json chapter 3: sorted by chapter; b.json is broken; d.json
     * repeats a.json's id */
    write_file("a.json", good);
    write_file("z.json", edit("\"chapter\": 3", "\"chapter\": 1"));
    char text[8192];
    snprintf(text, sizeof text, "%s", edit("\"id\": \"unit\"", "\"id\": \"zz\""));
    char *at = strstr(text, "\"chapter\": 3");
    memcpy(at, "\"chapter\": 1", 12);
    write_file("z.json", text);
    write_file("b.json", "{\"format\": 1,}");
    write_file("d.json", good);
    write_file("notes.txt", "not a lesson");
    memset(&c, 0, sizeof c);
    assert_int_equal(lesson_set_load_dir(&set, tmpdir, collect, &c), 0);
    assert_int_equal(set.nlessons, 2);
    assert_string_equal(set.lessons[0].id, "zz");
    assert_int_equal(set.lessons[0].chapter, 1);
    assert_string_equal(set.lessons[1].id, "unit");
    assert_int_equal(c.n, 2);
    assert_int_equal(c.e[0].line, 1);
    assert_int_equal(c.e[0].col, 14);
    assert_non_null(strstr(c.e[0].file, "b.json"));
    assert_non_null(strstr(c.e[1].file, "d.json"));
    assert_non_null(strstr(c.e[1].err.msg, "also the id of"));
    lesson_set_done(&set);
    assert_int_equal(set.nlessons, 0);
    assert_int_equal(lesson_set_load_dir(&set, "/nonexistent-banklab", NULL, NULL), -1);

    /* lesson_load_file */
    struct lesson_error e;
    snprintf(buf, sizeof buf, "%s/a.json", tmpdir);
    struct lesson *l = lesson_load_file(buf, &e);
    assert_non_null(l);
    assert_string_equal(l->path, buf);
    lesson_free(l);
    l = lesson_load_file(tmpdir, &e);   /* a directory */
    assert_null(l);
    assert_int_equal(e.line, 0);
    const char *names[] = {"a.json", "b.json", "d.json", "z.json", "notes.txt"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(buf, sizeof buf, "%s/%s", tmpdir, names[i]);
        unlink(buf);
    }
    rmdir(tmpdir);
}

/* Hostile sizes: 20,000 problems on one line are found in linear time (the old
 * scan from the start of the line per problem took 12 s), the first LESSON_PROBLEMS_SHOWN are
 * reported with the right columns and the rest counted; 50,000 steps with a repeated id at
 * the end are checked without comparing every pair. CPU time, so a loaded machine does not
 * make it fail; the bound is 50 times what it takes. */
static void test_hostile_sizes(void **state)
{
    (void)state;
    enum { N = 20000 };
    const char *head = "{\"format\": 1, \"id\": \"x\", \"chapter\": 1, \"title\": {\"zh\": \"x\", "
                       "\"en\": \"x\"}, \"steps\": [{\"id\": \"a\", \"title\": {\"zh\": \"a\", "
                       "\"en\": \"a\"}, \"text\": {\"zh\": \"t\", \"en\": \"t\"}}]";
    size_t cap = strlen(head) + (size_t)N * 64 + 16, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "%s", head);
    for (int i = 0; i < N; i++) {
        len += (size_t)snprintf(text + len, cap - len, ", \"unknown_%05d\": \"vvvvvvvvvvvvvvvv\"", i);
    }
    len += (size_t)snprintf(text + len, cap - len, "}");
    struct collect c = {0};
    int np = 0;
    clock_t t0 = clock();
    struct lesson *l = lesson_load_report("wide.json", text, len, collect, &c, &np);
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    assert_null(l);
    assert_int_equal(np, N);
    assert_int_equal(c.n, LESSON_PROBLEMS_SHOWN + 1);  /* and one "N more" line */
    assert_int_equal(c.e[0].line, 0);
    assert_non_null(strstr(c.e[0].err.msg, "unknown_00000: unknown field"));
    if (cpu > 1.0)
        fail_msg("20000 problems on one line took %.2f s of CPU", cpu);
    free(text);

    /* 50,000 steps, the last one repeating the first one's id */
    enum { S = 50000 };
    cap = strlen(head) + (size_t)S * 96 + 16;
    text = malloc(cap);
    assert_non_null(text);
    len = (size_t)snprintf(text, cap, "{\"format\": 1, \"id\": \"x\", \"chapter\": 1, \"title\": "
                           "{\"zh\": \"x\", \"en\": \"x\"}, \"steps\": [");
    for (int i = 0; i < S; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s{\"id\": \"s%d\", \"title\": {\"zh\": "
                                "\"a\", \"en\": \"a\"}, \"text\": {\"zh\": \"t\", \"en\": \"t\"}}\n",
                                i ? ", " : "", i == S - 1 ? 0 : i);
    len += (size_t)snprintf(text + len, cap - len, "]}");
    memset(&c, 0, sizeof c);
    t0 = clock();
    l = lesson_load_report("long.json", text, len, collect, &c, &np);
    cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    assert_null(l);
    assert_int_equal(np, 1);
    assert_int_equal(c.e[0].line, 0);
    assert_non_null(strstr(c.e[0].err.msg, "\"s0\" is also the id of steps[0]"));
    if (cpu > 2.0)
        fail_msg("50000 steps took %.2f s of CPU", cpu);
    free(text);
}

/* A control character in any text of a lesson is a problem at its place: a lesson cannot
 * retitle, clear or otherwise drive the learner's terminal. \n stays allowed. */
static void test_control_characters(void **state)
{
    (void)state;
    struct lesson_error e;
    struct lesson *l = load(edit("\"en\": \"Stride\"", "\"en\": \"Str\\u001b]0;x\\u0007ide\""), &e);
    assert_null(l);
    assert_int_equal(e.line, 0);
    assert_non_null(strstr(e.err.msg, "steps[0].title.en: control character U+001B"));
    l = load(edit("\"en\": \"Text\"", "\"en\": \"Te\\u0085xt\""), &e);  /* C1 NEL */
    assert_null(l);
    assert_non_null(strstr(e.err.msg, "control character U+0085"));
    l = load(edit("\"en\": \"Text\"", "\"en\": \"Te\\u007fxt\""), &e);
    assert_null(l);
    assert_non_null(strstr(e.err.msg, "control character U+007F"));
    l = load(edit("\"en\": \"Text\"", "\"en\": \"Line one\\nline two\""), &e);
    assert_non_null(l);
    lesson_free(l);
}

/* Every prefix of a valid lesson, and every single-byte corruption of its first 600 bytes,
 * loads or fails cleanly (no crash, no leak under the sanitizer build). */
static void test_truncations(void **state)
{
    (void)state;
    size_t n = strlen(good);
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    for (size_t k = 0; k + 1 < n; k++) {
        struct lesson_error e;
        memcpy(buf, good, k);
        struct lesson *l = load_buffer("t.json", buf, k, &e);
        assert_null(l);
        assert_true(e.err.msg[0] != 0);
        assert_true(e.line >= 1);
    }
    static const char junk[] = {'"', '{', '}', '[', ']', ',', ':', '\\', '0', 'x', '\n', '\xff'};
    for (size_t k = 0; k < 600 && k < n; k++) {
        for (size_t j = 0; j < sizeof junk; j++) {
            struct lesson_error e;
            memcpy(buf, good, n);
            buf[k] = junk[j];
            struct lesson *l = load_buffer("t.json", buf, n, &e);
            if (l) {
                lesson_check(l, NULL, NULL);
                lesson_free(l);
            } else {
                assert_true(e.err.msg[0] != 0);
            }
        }
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_tr),
        cmocka_unit_test(test_field_errors),
        cmocka_unit_test(test_field_errors_ok),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_code_columns),
        cmocka_unit_test(test_report_all),
        cmocka_unit_test(test_partial),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_figures),
        cmocka_unit_test(test_figure_claims),
        cmocka_unit_test(test_scene_env),
        cmocka_unit_test(test_dirs),
        cmocka_unit_test(test_hostile_sizes),
        cmocka_unit_test(test_control_characters),
        cmocka_unit_test(test_truncations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
