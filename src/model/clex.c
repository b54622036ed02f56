/* clex.c: the one tokenizer of C and CUDA text (clex.h). */
#include "clex.h"

#include "../base/buf.h"

#include <stdlib.h>
#include <string.h>

void clex_init(struct clex *L, const char *s, size_t from, size_t to, int line, unsigned opts)
{
    *L = (struct clex){s, to, from, line, from, 1, opts, -1};
}

/* the newline at the cursor: the next line starts after it */
static void newline(struct clex *L)
{
    L->i++;
    L->line++;
    L->line_start = L->i;
}

/* blanks, comments and (with CLEX_SPLICE) backslash-newlines from the cursor */
static void skip_blank(struct clex *L)
{
    const char *s = L->s;
    while (L->i < L->end) {
        char c = s[L->i], c1 = L->i + 1 < L->end ? s[L->i + 1] : 0;
        if (c == '\n') {
            newline(L);
            L->bol = 1;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            L->i++;
        } else if (c == '\\' && c1 == '\n' && (L->opts & CLEX_SPLICE)) {
            L->i++;
            newline(L);
        } else if (c == '/' && c1 == '/') {
            while (L->i < L->end && s[L->i] != '\n')
                L->i++;
        } else if (c == '/' && c1 == '*') {
            size_t start = L->i;
            for (L->i += 2; L->i < L->end && !(s[L->i] == '*' && L->i + 1 < L->end &&
                                               s[L->i + 1] == '/');)
                if (s[L->i] == '\n')
                    newline(L);
                else
                    L->i++;
            if (L->i >= L->end) {
                L->open_comment = (int)start;
                return;
            }
            L->i += 2;
        } else {
            return;
        }
    }
}

/* the operators of C and CUDA longer than one byte, longest first */
static const char *const long_puncts[] = {
    "<<=", ">>=", "...", "->*", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "+=", "-=", "*=",
    "/=", "%=", "&=", "|=", "^=", "++", "--", "->", "::", NULL};

/* the end of the token at s[i] that starts with byte c (not blank) */
static size_t token_end(const struct clex *L, size_t i, int *kind)
{
    const char *s = L->s;
    size_t j = i + 1, end = L->end;
    char c = s[i];
    if (clex_alpha(c)) {
        *kind = CLEX_IDENT;
        while (j < end && clex_alnum(s[j]))
            j++;
    } else if (clex_digit(c) || (c == '.' && j < end && clex_digit(s[j]))) {
        *kind = CLEX_NUMBER;
        while (j < end && (clex_alnum(s[j]) || s[j] == '.' ||
                           ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E' ||
                                                             s[j - 1] == 'p' || s[j - 1] == 'P')) ||
                           (s[j] == '\'' && j + 1 < end && clex_alnum(s[j + 1]))))
            j++;
    } else if (c == '"' || c == '\'') {
        *kind = CLEX_STRING;
        while (j < end && s[j] != c && s[j] != '\n')
            j += s[j] == '\\' && j + 1 < end ? 2 : 1;
        if (j < end && s[j] == c)
            j++;
    } else if (c == '#' && L->bol && (L->opts & CLEX_DIRECTIVES)) {
        *kind = CLEX_DIRECTIVE;
        while (j < end && s[j] != '\n')
            j += s[j] == '\\' && j + 1 < end && s[j + 1] == '\n' ? 2 : 1;
    } else {
        *kind = CLEX_PUNCT;
        for (int k = 0; long_puncts[k] && !(L->opts & CLEX_PUNCT1); k++) {
            size_t n = strlen(long_puncts[k]);
            if (end - i >= n && !memcmp(s + i, long_puncts[k], n))
                return i + n;
        }
    }
    return j;
}

struct clex_tok clex_next(struct clex *L)
{
    skip_blank(L);
    struct clex_tok t = {CLEX_END, (int)L->i, 0, L->line, (int)(L->i - L->line_start) + 1};
    if (L->i >= L->end)
        return t;
    size_t j = token_end(L, L->i, &t.kind);
    t.len = (int)(j - L->i);
    for (size_t k = L->i; k < j && t.kind == CLEX_DIRECTIVE; k++)  /* its continuations */
        if (L->s[k] == '\n') {
            L->line++;
            L->line_start = k + 1;
        }
    L->i = j;
    L->bol = 0;
    return t;
}

int clex_is(const char *s, const struct clex_tok *t, const char *w)
{
    size_t n = strlen(w);
    return t->len == (int)n && !memcmp(s + t->pos, w, n);
}

int clex_word_in(const char *s, const struct clex_tok *t, const char *const *words)
{
    for (int i = 0; t->kind == CLEX_IDENT && words[i]; i++)
        if (clex_is(s, t, words[i]))
            return 1;
    return 0;
}

int clex_close(const char *s, const struct clex_tok *t, int k, int n)
{
    const char *opens = "([{<", *closes = ")]}>", *o = strchr(opens, s[t[k].pos]);
    if (t[k].kind != CLEX_PUNCT || t[k].len != 1 || !o)
        return -1;
    char open = *o, close = closes[o - opens];
    for (int i = k, depth = 0; i < n && t[i].kind != CLEX_END; i++) {
        char c = t[i].kind == CLEX_PUNCT && t[i].len == 1 ? s[t[i].pos] : 0;
        if (c == open)
            depth++;
        else if (c == close && --depth == 0)
            return i;
        else if (open == '<' && (c == ';' || c == '{'))
            return -1;
    }
    return -1;
}

int clex_push(struct clex_toks *v, struct clex_tok t)
{
    if (bl_grow(&v->t, &v->cap, v->n + 2, sizeof *v->t, 256))
        return -1;
    v->t[v->n++] = t;
    return 0;
}

int clex_all(struct clex *L, struct clex_toks *v)
{
    for (;;) {
        struct clex_tok t = clex_next(L);
        if (clex_push(v, t) < 0)
            return -1;
        if (t.kind == CLEX_END) {
            v->n--;
            return 0;
        }
    }
}
