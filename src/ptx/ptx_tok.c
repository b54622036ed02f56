/* ptx_tok.c: the PTX text as tokens (identifiers with their dots, numbers, strings,
 * punctuation; comments skipped; each with its line) and the small helpers the parser
 * (ptx_parse.c) and the instruction decoder (ptx_decode.c) share. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse.h"

static int id_start(int c) { return isalpha(c) || c == '_' || c == '$' || c == '%' || c == '.'; }
static int id_char(int c) { return isalnum(c) || c == '_' || c == '$' || c == '.'; }

/* tokens of text; NULL on out of memory; *n their count (the last is TOK_END) */
struct ptx_tok *ptx_tokenize(const char *s, size_t len, int *n)
{
    int cap = 0, k = 0, line = 1;
    struct ptx_tok *t = NULL;
    size_t i = 0;
    for (;;) {
        if (bl_grow(&t, &cap, k + 1, sizeof *t, 16)) {
            free(t);
            return NULL;
        }
        while (i < len) {
            if (s[i] == '\n')
                line++, i++;
            else if (isspace((unsigned char)s[i]))
                i++;
            else if (s[i] == '/' && i + 1 < len && s[i + 1] == '/')
                while (i < len && s[i] != '\n')
                    i++;
            else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
                for (i += 2; i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'); i++)
                    line += s[i] == '\n';
                i += 2;
            } else
                break;
        }
        struct ptx_tok *o = &t[k++];
        memset(o, 0, sizeof *o);
        o->line = line;
        o->at = (uint32_t)(i < len ? i : len);
        if (i >= len) {
            o->t = TOK_END;
            *n = k;
            return t;
        }
        unsigned char c = (unsigned char)s[i];
        size_t j = i + 1;
        if (id_start(c)) { /* a state space's sub-qualifier stays in the word: shared::cta */
            while (j < len && (id_char((unsigned char)s[j]) ||
                               (s[j] == ':' && j + 2 < len && s[j + 1] == ':' &&
                                isalpha((unsigned char)s[j + 2]))))
                j += s[j] == ':' ? 2 : 1;
            o->t = TOK_ID;
        } else if (isdigit(c)) {
            while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '.'))
                j++;
            o->t = TOK_NUM;
        } else if (c == '"') {
            while (j < len && s[j] != '"' && s[j] != '\n')
                j++;
            j += j < len && s[j] == '"';
            o->t = TOK_STR;
        } else {
            o->t = TOK_P;
            o->c = (char)c;
        }
        o->len = (uint32_t)(j - i);
        i = j;
    }
}

int ptx_tok_p(const struct ptx_fn *fn, int i, char c)
{
    return i < fn->ntok && fn->tok[i].t == TOK_P && fn->tok[i].c == c;
}

int ptx_tok_id(const struct ptx_fn *fn, int i, const char *s)
{
    const struct ptx_tok *t = &fn->tok[i];
    size_t n = strlen(s);
    return i < fn->ntok && t->t == TOK_ID && t->len == n && !memcmp(fn->m->text + t->at, s, n);
}

/* ptx_perr: a syntax error at token i (id: PTX_E_SYNTAX or PTX_E_UNDECLARED) */
int ptx_perr(struct ptx_fn *fn, int i, int id)
{
    if (i >= fn->ntok)
        i = fn->ntok - 1;
    const struct ptx_tok *t = &fn->tok[i];
    char word[64];
    unsigned n = t->len < sizeof word - 1 ? t->len : sizeof word - 1;
    memcpy(word, fn->m->text + t->at, n);
    word[n] = 0;
    if (t->t == TOK_END)
        strcpy(word, "end of text");
    return bl_fail(fn->err, -1, BL_NOWHERE, id, t->line, word);
}

/* ptx_num: a PTX integer (decimal, 0x hex, 0 octal, 0b binary, U suffix) or a float image
 * (0fXXXXXXXX: f32 bits, 0dXXXXXXXXXXXXXXXX: f64 bits; decimal with '.': an f64) */
int ptx_num(const char *s, uint32_t len, uint64_t *v, int *is_float)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    *is_float = 0;
    char *end;
    if (len > 2 && buf[0] == '0' && (buf[1] == 'f' || buf[1] == 'F' || buf[1] == 'd' ||
                                     buf[1] == 'D')) {
        *is_float = (buf[1] == 'f' || buf[1] == 'F') ? 4 : 8;
        *v = strtoull(buf + 2, &end, 16);
        return *end ? -1 : 0;
    }
    if (strchr(buf, '.') || strchr(buf, 'e') || strchr(buf, 'E')) {
        if (buf[1] != 'x' && buf[1] != 'X') {
            double d = strtod(buf, &end);
            if (*end)
                return -1;
            memcpy(v, &d, 8);
            *is_float = 8;
            return 0;
        }
    }
    if (len > 1 && buf[len - 1] == 'U')
        buf[--len] = 0;
    if (len > 2 && buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B'))
        *v = strtoull(buf + 2, &end, 2);
    else
        *v = strtoull(buf, &end, 0);
    return *end ? -1 : 0;
}

