/* pattern_lex.c: the lexer of the pattern language: text -> tokens (identifiers, integer and
 * float literals, punctuation) over clex.h, which skips blanks and comments; the language's
 * own number values and operators here. Malformed numbers, stray bytes, open comments and
 * overlong names are errors with their column. Depends on clex.c and pattern_text.c only. */
#include "pattern_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../base/utf8.h"

/* digit c's value in any base up to 16; 99 (no base's digit) for any other byte */
static int digit_val(int c)
{
    int d = bl_hex_digit(c);
    return d < 0 ? 99 : d;
}

/* Scans a number at s[i]; fills t. Returns 0 or -1 with err. */
static int lex_number(const char *s, size_t n, size_t i, struct token *t, struct bl_err *err)
{
    size_t j = i;
    int is_float = 0;
    /* the extent: alnum, '.', and a sign right after an exponent letter of a decimal */
    int hex = s[i] == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X');
    while (j < n) {
        char c = s[j];
        if (clex_alnum(c)) {
            j++;
        } else if (c == '.') {
            is_float = 1;
            j++;
        } else if ((c == '+' || c == '-') && !hex && (s[j - 1] == 'e' || s[j - 1] == 'E')) {
            is_float = 1;
            j++;
        } else {
            break;
        }
    }
    t->pos = (int)i;
    t->len = (int)(j - i);
    if (!hex)
        for (size_t k = i; k < j; k++)
            if (s[k] == 'e' || s[k] == 'E' || s[k] == 'f' || s[k] == 'F')
                is_float = 1;
    if (is_float) {
        /* validate loosely: digits, at most one '.', an optional exponent, an optional f */
        size_t k = i;
        int digits = 0;
        while (k < j && clex_digit(s[k])) { k++; digits++; }
        if (k < j && s[k] == '.') {
            k++;
            while (k < j && clex_digit(s[k])) { k++; digits++; }
        }
        if (digits > 0 && k < j && (s[k] == 'e' || s[k] == 'E')) {
            k++;
            if (k < j && (s[k] == '+' || s[k] == '-'))
                k++;
            int ed = 0;
            while (k < j && clex_digit(s[k])) { k++; ed++; }
            if (!ed)
                digits = 0;
        }
        if (k < j && (s[k] == 'f' || s[k] == 'F' || s[k] == 'l' || s[k] == 'L'))
            k++;
        if (!digits || k != j)
            return bl_fail(err, -1, BL_AT(t->pos, t->len, -1), PAT_MALFORMED_NUMBER,
                            t->len > 40 ? 40 : t->len, s + i);
        t->kind = TK_FLOAT;
        return 0;
    }
    unsigned base = 10;
    size_t k = i;
    if (hex) {
        base = 16;
        k += 2;
    } else if (s[i] == '0' && i + 1 < n && (s[i + 1] == 'b' || s[i + 1] == 'B')) {
        base = 2;
        k += 2;
    } else if (s[i] == '0') {
        base = 8;
    }
    unsigned long long v = 0;
    int nd = 0, too_big = 0;
    while (k < j && digit_val(s[k]) < (int)base) {
        unsigned d = (unsigned)digit_val(s[k]);
        if (v > (ULLONG_MAX - d) / base)
            too_big = 1;
        else
            v = v * base + d;
        k++;
        nd++;
    }
    while (k < j && (s[k] == 'u' || s[k] == 'U' || s[k] == 'l' || s[k] == 'L'))
        k++;
    if (k != j || (nd == 0 && base != 8))
        return bl_fail(err, -1, BL_AT(t->pos, t->len, -1), PAT_MALFORMED_NUMBER,
                        t->len > 40 ? 40 : t->len, s + i);
    if (too_big || v > (unsigned long long)LLONG_MAX)
        return bl_fail(err, -1, BL_AT(t->pos, t->len, -1), PAT_INTEGER_LITERAL_IS_TOO_LARGE,
                       t->len > 40 ? 40 : t->len, s + i);
    t->kind = TK_INT;
    t->ival = (long long)v;
    return 0;
}

/* Scans punctuation at s[i] (one to three characters) into t. Returns 0 or -1 with err. */
static int lex_punct(const char *s, size_t n, size_t i, struct token *t,
                     struct bl_err *err)
{
    unsigned char c = (unsigned char)s[i];
    char c1 = i + 1 < n ? s[i + 1] : 0;
    char c2 = i + 2 < n ? s[i + 2] : 0;
    int p = 0, len = 1;
    if ((c == '<' && c1 == '<') || (c == '>' && c1 == '>')) {
        if (c2 == '=') { p = P_OPASSIGN; len = 3; }
        else { p = c == '<' ? P_SHL : P_SHR; len = 2; }
    } else if (c1 == '=' && (c == '<' || c == '>' || c == '=' || c == '!')) {
        p = c == '<' ? P_LE : c == '>' ? P_GE : c == '=' ? P_EQ : P_NE;
        len = 2;
    } else if (c == '&' && c1 == '&') {
        p = P_ANDAND; len = 2;
    } else if (c == '|' && c1 == '|') {
        p = P_OROR; len = 2;
    } else if (c == '-' && c1 == '>') {
        p = P_ARROW; len = 2;
    } else if ((c == '+' && c1 == '+') || (c == '-' && c1 == '-')) {
        p = P_INCDEC; len = 2;
    } else if (c1 == '=' && strchr("+-*/%&|^", c)) {
        p = P_OPASSIGN; len = 2;
    } else if (strchr("[](){};,.*+-/%&|^~!<>=?:", c)) {
        p = c;
    } else if (c >= 0x20 && c < 0x7f) {
        return bl_fail(err, -1, BL_AT((int)i, 1, -1), PAT_UNEXPECTED_CHARACTER, c);
    } else {
        return bl_fail(err, -1, BL_AT((int)i, 1, -1), PAT_UNEXPECTED_BYTE_0X, c);
    }
    t->kind = TK_PUNCT;
    t->punct = p;
    t->len = len;
    return 0;
}

/* Scans the token c (not the end) into t: an identifier as clex found it, a number or
 * punctuation by the language's own rules. Returns 0 or -1 with err. */
static int lex_token(const char *s, size_t n, const struct clex_tok *c, struct token *t,
                     struct bl_err *err)
{
    if (c->kind == CLEX_NUMBER)
        return lex_number(s, n, (size_t)c->pos, t, err);
    if (c->kind != CLEX_IDENT)
        return lex_punct(s, n, (size_t)c->pos, t, err);
    t->kind = TK_IDENT;
    t->len = c->len;
    if (t->len >= PATTERN_NAME_MAX)
        return bl_fail(err, -1, BL_AT(t->pos, t->len, -1), PAT_NAME_IS_LONGER_THAN_CHARACTERS,
                        s + c->pos, PATTERN_NAME_MAX - 1);
    return 0;
}

/* Tokenizes text[0..n). Returns the token count (last one TK_EOF) or -1 with err. */
int pat_lex(const char *s, size_t n, struct token **out, struct bl_err *err)
{
    int cap = 64, cnt = 0;
    struct token *t = malloc(sizeof *t * (size_t)cap);
    if (!t)
        return bl_fail(err, -1, BL_AT(-1, 0, -1), PAT_OUT_OF_MEMORY);
    struct clex L;
    clex_init(&L, s, 0, n, 1, 0);
    for (;;) {
        struct clex_tok c = clex_next(&L);
        if (c.kind == CLEX_END && L.open_comment >= 0) {
            bl_fail(err, -1, BL_AT(L.open_comment, 2, -1), PAT_UNTERMINATED_COMMENT);
            goto fail;
        }
        if (cnt + 1 >= cap) {
            cap *= 2;
            struct token *nt = realloc(t, sizeof *t * (size_t)cap);
            if (!nt) {
                bl_fail(err, -1, BL_AT(-1, 0, -1), PAT_OUT_OF_MEMORY);
                goto fail;
            }
            t = nt;
        }
        struct token *tk = &t[cnt++];
        memset(tk, 0, sizeof *tk);
        tk->pos = c.pos;
        if (c.kind == CLEX_END) {
            tk->kind = TK_EOF;
            break;
        }
        if (lex_token(s, n, &c, tk, err) < 0)
            goto fail;
        L.i = (size_t)tk->pos + (size_t)tk->len;
    }
    *out = t;
    return cnt;
fail:
    free(t);
    return -1;
}
