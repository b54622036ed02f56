/* pattern_test.h: what the test_pattern_*.c files share: cmocka, the model headers, and the
 * helpers that parse and evaluate a pattern expecting success (eval_ok, eval_layout, sim) or an
 * error at a column and lane (parse_err, eval_err). One test file per unit of the language
 * (src/model/pattern_*.c): _lex, _types, _expr, _stmt, _eval, _errors, _text. */
#ifndef BANKLAB_PATTERN_TEST_H
#define BANKLAB_PATTERN_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/bank.h"
#include "../../src/model/pattern.h"

/* Parses text (must succeed) and evaluates access `which` under env (must succeed), the
 * arrays' layout into *lay when lay is not NULL. */
static inline struct pattern *eval_layout(const char *text, const struct pattern_env *env,
                                          int which, struct bank_access *acc,
                                          struct pattern_layout *lay)
{
    struct pattern *p = NULL;
    struct bl_err err;
    int rc = pattern_parse(text, &p, &err);
    if (rc != 0)
        print_error("parse failed: %s (col %d)\n  %s\n", err.msg, err.where.at, text);
    assert_int_equal(rc, 0);
    assert_non_null(p);
    rc = pattern_eval(p, env, which, acc, lay, &err);
    if (rc != 0)
        print_error("eval failed: %s (col %d, lane %d)\n  %s\n", err.msg, err.where.at, err.lane,
                    text);
    assert_int_equal(rc, 0);
    return p;
}

/* eval_layout without the layout. */
static inline struct pattern *eval_ok(const char *text, const struct pattern_env *env, int which,
                                      struct bank_access *acc)
{
    return eval_layout(text, env, which, acc, NULL);
}

/* Runs text's access `which` through the bank model; returns the result. */
static inline struct bank_result sim(const char *text, const struct pattern_env *env,
                                     int which, struct bank_access *acc_out)
{
    struct bank_access acc;
    struct pattern *p = eval_ok(text, env, which, &acc);
    pattern_free(p);
    struct bank_result r;
    assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
    if (acc_out)
        *acc_out = acc;
    return r;
}

/* Expects a parse error whose message contains `want`, at column col (0: don't check). */
static inline void parse_err(const char *text, const char *want, int col)
{
    struct pattern *p = (struct pattern *)1;
    struct bl_err err;
    int rc = pattern_parse(text, &p, &err);
    if (rc == 0 || !strstr(err.msg, want) || (col && err.where.at != col))
        print_error("pattern: %s\n  got rc %d, col %d: '%s'\n  want col %d: '%s'\n", text, rc,
                    err.where.at, rc ? err.msg : "", col, want);
    assert_int_equal(rc, -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, want));
    if (col)
        assert_int_equal(err.where.at, col);
    assert_int_equal(err.lane, -1);
    if (err.where.at > 0)
        assert_true(err.where.len >= 1);
}

/* Expects an evaluation error containing `want` at column col and lane (-2: don't check). */
static inline void eval_err(const char *text, const struct pattern_env *env, const char *want,
                            int col, int lane)
{
    struct pattern *p = NULL;
    struct bl_err err;
    int rc = pattern_parse(text, &p, &err);
    if (rc != 0)
        print_error("parse failed: %s\n  %s\n", err.msg, text);
    assert_int_equal(rc, 0);
    struct bank_access acc;
    rc = pattern_eval(p, env, 0, &acc, NULL, &err);
    if (rc == 0 || !strstr(err.msg, want) || (col && err.where.at != col) ||
        (lane != -2 && err.lane != lane))
        print_error("pattern: %s\n  got rc %d, col %d, lane %d: '%s'\n  want col %d, lane %d: "
                    "'%s'\n", text, rc, err.where.at, err.lane, rc ? err.msg : "", col, lane, want);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err.msg, want));
    if (col)
        assert_int_equal(err.where.at, col);
    if (lane != -2)
        assert_int_equal(err.lane, lane);
    pattern_free(p);
}

/* Column (1-based) of the first occurrence of needle in text. */
static inline int col_of(const char *text, const char *needle)
{
    const char *s = strstr(text, needle);
    assert_non_null(s);
    return (int)(s - text) + 1;
}

/* An error case: the pattern, a part of the expected message, where the error points (the
 * column of the first `at` in the text; NULL: not checked) and, for evaluation errors, the
 * lane that failed (-1: none; -2: not checked). */
struct error_case {
    const char *text, *want, *at;
    int lane;
};

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))

/* parse_err for each of n cases. */
static inline void parse_errs(const struct error_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        parse_err(c[i].text, c[i].want, c[i].at ? col_of(c[i].text, c[i].at) : 0);
}

/* eval_err under env for each of n cases. */
static inline void eval_errs(const struct error_case *c, size_t n, const struct pattern_env *env)
{
    for (size_t i = 0; i < n; i++)
        eval_err(c[i].text, env, c[i].want, c[i].at ? col_of(c[i].text, c[i].at) : 0,
                 c[i].lane);
}

#endif
