/* source.c: what `banklab kernel` reads out of CUDA source text without compiling it:
 * the __global__ functions with their parameters (to bind buffers and --arg values), the
 * values of scalar parameters, and NVRTC's log as FILE:LINE:COL diagnostics. It reads the
 * tokens of src/model/clex.h, not a C++ parse: it knows declarations as people write kernels.
 * Pure C. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../model/clex.h"
#include "kernel.h"

/* Attributes that may stand between __global__ and the name, with a parenthesised argument. */
static const char *const attributes[] = {"__launch_bounds__", "__attribute__", "__maxnreg__",
                                         "__cluster_dims__", "__declspec", "alignas",
                                         "__align__", NULL};
static const char *const qualifiers[] = {"const", "volatile", "__restrict__", "restrict",
                                         "__restrict", "register", "__grid_constant__",
                                         "struct", "class", "typename", "enum", NULL};

static void append(char *dst, size_t size, const char *s, int n)
{
    size_t len = strlen(dst);
    if (len && len + 1 < size && n > 0 && clex_alnum(s[0]) && clex_alnum(dst[len - 1]))
        dst[len++] = ' ';
    if (n > 0 && len + (size_t)n < size) {
        memcpy(dst + len, s, (size_t)n);
        len += (size_t)n;
    }
    dst[len < size ? len : size - 1] = '\0';
}

static const struct {
    const char *type;
    enum ksrc_kind kind;
    int size;
} scalar_types[] = {
    {"bool", KSRC_UINT, 1}, {"char", KSRC_INT, 1}, {"signed char", KSRC_INT, 1},
    {"unsigned char", KSRC_UINT, 1}, {"int8_t", KSRC_INT, 1}, {"uint8_t", KSRC_UINT, 1},
    {"short", KSRC_INT, 2}, {"short int", KSRC_INT, 2}, {"signed short", KSRC_INT, 2},
    {"unsigned short", KSRC_UINT, 2}, {"unsigned short int", KSRC_UINT, 2},
    {"int16_t", KSRC_INT, 2}, {"uint16_t", KSRC_UINT, 2},
    {"int", KSRC_INT, 4}, {"signed", KSRC_INT, 4}, {"signed int", KSRC_INT, 4},
    {"unsigned", KSRC_UINT, 4}, {"unsigned int", KSRC_UINT, 4}, {"int32_t", KSRC_INT, 4},
    {"uint32_t", KSRC_UINT, 4},
    {"long", KSRC_INT, 8}, {"long int", KSRC_INT, 8}, {"long long", KSRC_INT, 8},
    {"long long int", KSRC_INT, 8}, {"unsigned long", KSRC_UINT, 8},
    {"unsigned long int", KSRC_UINT, 8}, {"unsigned long long", KSRC_UINT, 8},
    {"unsigned long long int", KSRC_UINT, 8}, {"int64_t", KSRC_INT, 8},
    {"uint64_t", KSRC_UINT, 8}, {"size_t", KSRC_UINT, 8}, {"ptrdiff_t", KSRC_INT, 8},
    {"float", KSRC_FLOAT, 4}, {"double", KSRC_FLOAT, 8},
};

/* One parameter from tokens v[a..b) (top level of the parameter list). */
static void parse_param(const char *src, const struct clex_tok *v, int a, int b,
                        struct ksrc_param *p)
{
    memset(p, 0, sizeof *p);
    int pointer = 0, reference = 0, last_ident = -1, idents = 0, depth = 0;
    for (int k = a; k < b; k++) {
        if (v[k].kind == CLEX_PUNCT) {
            char c = src[v[k].pos];
            if (c == '<' || c == '(' || c == '[')
                depth++;
            if (c == '>' || c == ')' || c == ']')
                depth--;
            if (c == '=' && depth == 0) { /* a default value: the declaration ends here */
                b = k;
                break;
            }
            if (depth == 0 && c == '*')
                pointer = 1;
            if (depth == 0 && c == '&')
                reference = 1;
            if (c == '[' && depth == 1)
                pointer = 1; /* an array parameter decays to a pointer */
        } else if (v[k].kind == CLEX_IDENT && depth == 0 && !clex_word_in(src, &v[k], qualifiers)) {
            last_ident = k;
            idents++;
        }
    }
    /* "float *" or "unsigned int" alone: no name; "T *p", "int n": the last identifier */
    static const char *const type_words[] = {"int", "char", "short", "long", "float", "double",
                                             "unsigned", "signed", "bool", NULL};
    int name_at = idents >= 2 && !clex_word_in(src, &v[last_ident], type_words) ? last_ident : -1;
    if (name_at >= 0)
        snprintf(p->name, sizeof p->name, "%.*s", v[name_at].len, src + v[name_at].pos);
    for (int k = a; k < b; k++) {
        if (k == name_at || (v[k].kind == CLEX_IDENT && clex_word_in(src, &v[k], qualifiers)))
            continue;
        if (v[k].kind == CLEX_PUNCT && src[v[k].pos] == '[')
            break;
        append(p->type, sizeof p->type, src + v[k].pos, v[k].len);
    }
    if (reference) {
        p->kind = KSRC_UNSUPPORTED;
        return;
    }
    if (pointer) {
        p->kind = KSRC_POINTER;
        p->size = 8;
        return;
    }
    p->kind = KSRC_UNSUPPORTED;
    const char *t = p->type;
    if (!strncmp(t, "std::", 5))
        t += 5;
    for (size_t i = 0; i < sizeof scalar_types / sizeof scalar_types[0]; i++) {
        if (!strcmp(t, scalar_types[i].type)) {
            p->kind = scalar_types[i].kind;
            p->size = scalar_types[i].size;
        }
    }
}

struct ns_frame {
    char name[64];
    int depth;           /* brace depth inside the namespace */
};

int ksrc_find_kernels(const char *src, size_t len, struct ksrc_kernel *out, int max, int *n)
{
    int ntok = 0, found = 0, over = 0;
    *n = 0;
    struct clex L;
    struct clex_toks all = {NULL, 0, 0};
    clex_init(&L, src, 0, len, 1, CLEX_DIRECTIVES | CLEX_PUNCT1);   /* '>>' closes two '<' */
    if (clex_all(&L, &all)) {
        free(all.t);
        return -1;
    }
    for (int k = 0; k <= all.n; k++)   /* the preprocessor lines dropped, the end kept last */
        if (all.t[k].kind != CLEX_DIRECTIVE)
            all.t[ntok++] = all.t[k];
    const struct clex_tok *v = all.t;
    struct ns_frame ns[16];
    int nns = 0, depth = 0, decl_start = 0;
    for (int i = 0; i < ntok && v[i].kind != CLEX_END; i++) {
        if (v[i].kind == CLEX_PUNCT) {
            char c = src[v[i].pos];
            if (c == '{')
                depth++;
            if (c == '}') {
                depth--;
                if (nns > 0 && ns[nns - 1].depth == depth + 1)
                    nns--;
            }
            if (c == ';' || c == '{' || c == '}')
                decl_start = i + 1;
            continue;
        }
        if (clex_is(src, &v[i], "namespace") && v[i + 1].kind == CLEX_IDENT && clex_is(src, &v[i + 2], "{")) {
            if (nns < 16) {
                snprintf(ns[nns].name, sizeof ns[nns].name, "%.*s", v[i + 1].len, src + v[i + 1].pos);
                ns[nns++].depth = depth + 1;
            }
            continue;
        }
        if (!clex_is(src, &v[i], "__global__"))
            continue;
        int is_template = 0;
        for (int k = decl_start; k < i; k++)
            if (clex_is(src, &v[k], "template"))
                is_template = 1;
        /* the name: the first identifier before a '(' that is not an attribute */
        int k = i + 1, name_at = -1;
        while (k < ntok && v[k].kind != CLEX_END) {
            if (v[k].kind == CLEX_IDENT && clex_word_in(src, &v[k], attributes) && clex_is(src, &v[k + 1], "(")) {
                k = clex_close(src, v, k + 1, ntok);
                if (k < 0)
                    break;
                k++;
                continue;
            }
            if (v[k].kind == CLEX_IDENT && clex_is(src, &v[k + 1], "(")) {
                name_at = k;
                break;
            }
            if (clex_is(src, &v[k], ";") || clex_is(src, &v[k], "{"))
                break;
            k++;
        }
        if (name_at < 0)
            continue;
        int close = clex_close(src, v, name_at + 1, ntok);
        if (close < 0)
            continue;
        char full[GPU_KERNEL_TEXT] = "";
        for (int f = 0; f < nns; f++) {
            append(full, sizeof full, ns[f].name, (int)strlen(ns[f].name));
            append(full, sizeof full, "::", 2);
        }
        append(full, sizeof full, src + v[name_at].pos, v[name_at].len);
        int dup = 0;
        for (int f = 0; f < found && f < max; f++)
            if (!strcmp(out[f].name, full))
                dup = 1;
        if (dup) {
            i = close;
            continue;
        }
        if (found >= max) {
            over = 1;
            i = close;
            continue;
        }
        struct ksrc_kernel *kk = &out[found++];
        memset(kk, 0, sizeof *kk);
        snprintf(kk->name, sizeof kk->name, "%s", full);
        kk->line = v[name_at].line;
        kk->is_template = is_template;
        int a = name_at + 2, pdepth = 0;
        for (int t = a; t <= close; t++) {
            char c = v[t].kind == CLEX_PUNCT ? src[v[t].pos] : 0;
            if (c == '(' || c == '<' || c == '[')
                pdepth++;
            if ((c == ')' || c == '>' || c == ']') && t < close)
                pdepth--;
            if ((c == ',' && pdepth == 0) || t == close) {
                int empty = t == a || (t == a + 1 && clex_is(src, &v[a], "void"));
                kk->nall += !empty;
                if (!empty && kk->nparams < KSRC_MAX_PARAMS)
                    parse_param(src, v, a, t, &kk->params[kk->nparams++]);
                a = t + 1;
            }
        }
        i = close;
    }
    free(all.t);
    *n = found;
    return over ? -1 : 0;
}

const char *ksrc_base_name(const char *name, char *buf, size_t size)
{
    const char *lt = strchr(name, '<');
    size_t n = lt ? (size_t)(lt - name) : strlen(name);
    while (n > 0 && name[n - 1] == ' ')
        n--;
    snprintf(buf, size, "%.*s", (int)n, name);
    return buf;
}

int ksrc_scalar_bytes(const struct ksrc_param *p, const char *text, unsigned char out[8],
                      struct bl_err *err)
{
    bl_err_clear(err);
    memset(out, 0, 8);
    char *end = NULL;
    errno = 0;
    if (!text || !*text)
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KSRC_EMPTY_VALUE);
    if (p->kind == KSRC_FLOAT) {
        double d = strtod(text, &end);
        if (*end || errno == ERANGE || !isfinite(d))
            return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KSRC_NOT_A_NUMBER, text);
        if (p->size == 4) {
            float f = (float)d;
            memcpy(out, &f, 4);
        } else {
            memcpy(out, &d, 8);
        }
        return 0;
    }
    if (p->kind != KSRC_INT && p->kind != KSRC_UINT)
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KSRC_CANNOT_PASS, p->type);
    int bits = p->size * 8;
    if (p->kind == KSRC_INT) {
        long long x = strtoll(text, &end, 0);
        long long lo = bits == 64 ? LLONG_MIN : -(1LL << (bits - 1));
        long long hi = bits == 64 ? LLONG_MAX : (1LL << (bits - 1)) - 1;
        if (*end || errno == ERANGE) {
            return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KSRC_NOT_AN_INTEGER, text);
        }
        if (x < lo || x > hi) {
            return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KSRC_INT_RANGE, text, p->type, lo,
                           hi);
        }
        unsigned long long u = (unsigned long long)x;
        for (int b = 0; b < p->size; b++)
            out[b] = (unsigned char)(u >> (8 * b));
        return 0;
    }
    if (text[0] == '-') {
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KSRC_NEGATIVE_UNSIGNED, text, p->type);
    }
    unsigned long long u = strtoull(text, &end, 0);
    unsigned long long hi = bits == 64 ? ULLONG_MAX : (1ULL << bits) - 1;
    if (!strcmp(p->type, "bool"))
        hi = 1;
    if (*end || errno == ERANGE)
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KSRC_NOT_AN_INTEGER, text);
    if (u > hi) {
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KSRC_UINT_RANGE, text, p->type, hi);
    }
    for (int b = 0; b < p->size; b++)
        out[b] = (unsigned char)(u >> (8 * b));
    return 0;
}

/* ---- NVRTC's log ---- */

/* "file(12): error: message" / "file(12): warning #177-D: message" /
 * "file(3): catastrophic error: message": fills file, line, kind, message; 1 when it matches. */
static int log_head(const char *s, size_t n, struct gpu_kernel_diag *d)
{
    const char *open = NULL;
    for (size_t i = 0; i + 2 < n; i++) {
        if (s[i] == '(' && clex_digit(s[i + 1])) {
            size_t j = i + 1;
            while (j < n && clex_digit(s[j]))
                j++;
            if (j + 2 < n && s[j] == ')' && s[j + 1] == ':' && s[j + 2] == ' ') {
                open = s + i;
                break;
            }
        }
    }
    if (!open || open == s)
        return 0;
    const char *rest = strchr(open, ')') + 3;
    size_t left = n - (size_t)(rest - s);
    int error;
    const char *kinds[] = {"catastrophic error", "error", "warning", "remark"};
    size_t k;
    for (k = 0; k < 4; k++) {
        size_t kl = strlen(kinds[k]);
        if (left >= kl && !strncmp(rest, kinds[k], kl) && (rest[kl] == ':' || rest[kl] == ' '))
            break;
    }
    if (k == 4)
        return 0;
    error = k < 2;
    const char *colon = memchr(rest, ':', left);
    if (!colon)
        return 0;
    const char *msg = colon + 1;
    while (msg < s + n && *msg == ' ')
        msg++;
    memset(d, 0, sizeof *d);
    snprintf(d->file, sizeof d->file, "%.*s", (int)(open - s), s);
    d->line = atoi(open + 1);
    d->error = error;
    snprintf(d->message, sizeof d->message, "%.*s", (int)(s + n - msg), msg);
    return 1;
}

/* d appended to *diags (*n of them, room for *cap): 0, or -1 (all freed) when out of memory */
static int add_diag(struct gpu_kernel_diag **diags, int *n, int *cap,
                    const struct gpu_kernel_diag *d)
{
    if (bl_grow(diags, cap, *n + 1, sizeof **diags, 8)) {
        free(*diags);
        *diags = NULL;
        *n = 0;
        return -1;
    }
    (*diags)[(*n)++] = *d;
    return 0;
}

int ksrc_parse_log(const char *log, const char *path, struct gpu_kernel_diag **diags, int *n,
                   int *nerrors)
{
    *diags = NULL;
    *n = 0;
    *nerrors = 0;
    int cap = 0;
    const char *first_error = NULL;
    size_t first_error_len = 0;
    const char *p = log ? log : "";
    const char *prev = NULL, *prev2 = NULL; /* the two lines before this one */
    size_t prevn = 0, prev2n = 0;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t ln = e ? (size_t)(e - p) : strlen(p);
        struct gpu_kernel_diag d;
        if (log_head(p, ln, &d)) {
            if (add_diag(diags, n, &cap, &d))
                return -1;
            if (d.error)
                (*nerrors)++;
        } else if (*n > 0 && prev && prev2 && ln > 2 && !(*diags)[*n - 1].col) {
            /* a caret line: two blanks, then blanks and tabs mirroring the echoed line */
            const char *caret = memchr(p, '^', ln);
            int blanks = caret != NULL;
            for (const char *c = p; caret && c < caret; c++)
                if (*c != ' ' && *c != '\t')
                    blanks = 0;
            struct gpu_kernel_diag *last = &(*diags)[*n - 1];
            if (blanks && caret - p >= 2 && log_head(prev2, prev2n, &d) && d.line == last->line)
                last->col = (int)(caret - p) - 1;
        }
        if (!first_error && ln && strstr(p, "error") && (size_t)(strstr(p, "error") - p) < ln) {
            first_error = p;
            first_error_len = ln;
        }
        prev2 = prev;
        prev2n = prevn;
        prev = p;
        prevn = ln;
        p = e ? e + 1 : p + ln;
    }
    if (*nerrors == 0 && first_error) {
        struct gpu_kernel_diag d;
        memset(&d, 0, sizeof d);
        snprintf(d.file, sizeof d.file, "%s", path);
        d.error = 1;
        snprintf(d.message, sizeof d.message, "%.*s", (int)first_error_len, first_error);
        if (add_diag(diags, n, &cap, &d))
            return -1;
        *nerrors = 1;
    }
    return 0;
}

/* ---- the launch written in the file: name<<<grid, block, smem>>> with constant arguments ---- */

struct lctx {
    const char *src;
    const struct clex_tok *v;        /* the code's tokens (CLEX_PUNCT1), directives dropped */
    int n;
    struct clex_toks defs;           /* the bodies of object-like #defines, one after another */
    struct ldef {
        int name;                    /* token of the name in defs (a #define) or v */
        int from, to;                /* its value's tokens [from, to) in defs or v */
        int in_defs;
    } def[256];
    int ndefs;
    int depth;                       /* of names resolved inside names */
};

static int tok_is(const struct lctx *c, const struct clex_tok *t, const char *w)
{
    return clex_is(c->src, t, w);
}

static int tok_same(const struct lctx *c, const struct clex_tok *a, const struct clex_tok *b)
{
    return a->len == b->len && !memcmp(c->src + a->pos, c->src + b->pos, (size_t)a->len);
}

/* a value of dims (1 to 3 numbers) for tokens [a, b) of t; 0, or -1 */
static int lval(struct lctx *c, const struct clex_tok *t, int a, int b, long long out[3], int *dims);

/* t[*k] onwards as an integer expression over + - * / % << >> ( ) */
static int lexpr(struct lctx *c, const struct clex_tok *t, int *k, int b, long long *out, int prec);

static int lprimary(struct lctx *c, const struct clex_tok *t, int *k, int b, long long *out)
{
    if (*k >= b)
        return -1;
    const struct clex_tok *x = &t[*k];
    if (tok_is(c, x, "(")) {
        int close = clex_close(c->src, t, *k, b);
        if (close < 0)
            return -1;
        /* a cast of a type word: (int)x, (unsigned)x */
        if (close == *k + 2 && t[*k + 1].kind == CLEX_IDENT &&
            (tok_is(c, &t[*k + 1], "int") || tok_is(c, &t[*k + 1], "unsigned") ||
             tok_is(c, &t[*k + 1], "size_t") || tok_is(c, &t[*k + 1], "long"))) {
            *k = close + 1;
            return lprimary(c, t, k, b, out);
        }
        int j = *k + 1;
        if (lexpr(c, t, &j, close, out, 0) || j != close)
            return -1;
        *k = close + 1;
        return 0;
    }
    if (tok_is(c, x, "-") || tok_is(c, x, "+")) {
        (*k)++;
        if (lprimary(c, t, k, b, out))
            return -1;
        if (tok_is(c, x, "-"))
            *out = -*out;
        return 0;
    }
    if (x->kind == CLEX_IDENT && tok_is(c, x, "sizeof") && *k + 1 < b && tok_is(c, &t[*k + 1], "(")) {
        /* sizeof(TYPE) of the types a launch sizes shared memory with */
        static const struct { const char *w; int n; } sizes[] = {
            {"char", 1}, {"short", 2}, {"half", 2}, {"__half", 2}, {"__nv_bfloat16", 2},
            {"int", 4}, {"unsigned", 4}, {"float", 4}, {"uint32_t", 4}, {"int32_t", 4},
            {"long", 8}, {"double", 8}, {"size_t", 8}, {"float2", 8}, {"int2", 8},
            {"uint2", 8}, {"float4", 16}, {"int4", 16}, {"uint4", 16}, {"double2", 16}};
        int close = clex_close(c->src, t, *k + 1, b);
        if (close < 0 || close < *k + 3 || t[close - 1].kind != CLEX_IDENT)
            return -1;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            if (tok_is(c, &t[close - 1], sizes[i].w)) {
                *out = tok_is(c, &t[close - 2], "long") && sizes[i].n == 8 ? 8 : sizes[i].n;
                if (tok_is(c, &t[close - 1], "int") && tok_is(c, &t[close - 2], "long"))
                    *out = 8;
                *k = close + 1;
                return 0;
            }
        return -1;
    }
    if (x->kind == CLEX_NUMBER) {
        char buf[32], *e;
        bl_fmt(buf, sizeof buf, "%.*s", x->len, c->src + x->pos);
        errno = 0;
        long long v = strtoll(buf, &e, 0);
        while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')
            e++;
        if (*e || errno)
            return -1;
        *out = v;
        (*k)++;
        return 0;
    }
    if (x->kind == CLEX_IDENT) {
        long long v[3];
        int dims = 0;
        if (lval(c, t, *k, *k + 1, v, &dims) || dims != 1)
            return -1;
        *out = v[0];
        (*k)++;
        return 0;
    }
    return -1;
}

static int lexpr(struct lctx *c, const struct clex_tok *t, int *k, int b, long long *out, int prec)
{
    /* precedence: 0 shifts, 1 + -, 2 * / % */
    if (prec > 2)
        return lprimary(c, t, k, b, out);
    if (lexpr(c, t, k, b, out, prec + 1))
        return -1;
    while (*k < b) {
        const struct clex_tok *o = &t[*k];
        int shift = prec == 0 && *k + 1 < b && ((tok_is(c, o, "<") && tok_is(c, &t[*k + 1], "<")) ||
                                               (tok_is(c, o, ">") && tok_is(c, &t[*k + 1], ">")));
        int add = prec == 1 && (tok_is(c, o, "+") || tok_is(c, o, "-"));
        int mul = prec == 2 && (tok_is(c, o, "*") || tok_is(c, o, "/") || tok_is(c, o, "%"));
        if (!shift && !add && !mul)
            return 0;
        *k += shift ? 2 : 1;
        long long r;
        if (lexpr(c, t, k, b, &r, prec + 1))
            return -1;
        if (shift) {
            if (r < 0 || r > 40)
                return -1;
            *out = tok_is(c, o, "<") ? *out << r : *out >> r;
        } else if (tok_is(c, o, "+")) {
            *out += r;
        } else if (tok_is(c, o, "-")) {
            *out -= r;
        } else if (tok_is(c, o, "*")) {
            *out *= r;
        } else if (r == 0) {
            return -1;
        } else {
            *out = tok_is(c, o, "/") ? *out / r : *out % r;
        }
        if (*out > (1LL << 40) || *out < -(1LL << 40))
            return -1;
    }
    return 0;
}

/* the value of the name at t[a] (#define, a constant, a dim3 or int local assigned once) */
static int lname(struct lctx *c, const struct clex_tok *t, int a, long long out[3], int *dims)
{
    if (tok_is(c, &t[a], "dim3"))
        return -1;
    if (++c->depth > 16) {
        c->depth--;
        return -1;
    }
    int rc = -1;
    for (int i = 0; i < c->ndefs && rc; i++) {
        const struct ldef *d = &c->def[i];
        const struct clex_tok *base = d->in_defs ? c->defs.t : c->v;
        if (tok_same(c, &base[d->name], &t[a]))
            rc = lval(c, base, d->from, d->to, out, dims);
    }
    if (rc) {
        /* a declaration in the code: TYPE NAME = expr; TYPE NAME(args); TYPE NAME{args};
         * refused when the name is assigned anywhere else */
        int found = -1, assigned = 0;
        for (int k = 1; k + 1 < c->n; k++) {
            if (!tok_same(c, &c->v[k], &t[a]) || c->v[k].kind != CLEX_IDENT)
                continue;
            const struct clex_tok *prev = &c->v[k - 1], *next = &c->v[k + 1];
            int typed = prev->kind == CLEX_IDENT && !tok_is(c, prev, "return");
            if (typed && (tok_is(c, next, "=") || tok_is(c, next, "(") || tok_is(c, next, "{")))
                found = found < 0 ? k : -2;
            else if ((tok_is(c, next, "=") && !tok_is(c, &c->v[k + 2], "=")) ||
                     (k + 2 < c->n && tok_is(c, &c->v[k + 2], "=") &&
                      strchr("+-*/%<>&|^", c->src[next->pos])) ||
                     (tok_is(c, next, "+") && tok_is(c, &c->v[k + 2], "+")) ||
                     (tok_is(c, next, "-") && tok_is(c, &c->v[k + 2], "-")))
                assigned = 1;
        }
        if (found >= 0 && !assigned) {
            int k = found + 1, to;
            if (tok_is(c, &c->v[k], "=")) {
                for (to = k + 1; to < c->n && !tok_is(c, &c->v[to], ";") && !tok_is(c, &c->v[to], ",");
                     to++)
                    if (tok_is(c, &c->v[to], "(") && (to = clex_close(c->src, c->v, to, c->n)) < 0)
                        break;
                if (to > k + 1)
                    rc = lval(c, c->v, k + 1, to, out, dims);
            } else {
                int close = clex_close(c->src, c->v, k, c->n);
                if (close > k && tok_is(c, &c->v[found - 1], "dim3")) {
                    /* dim3 NAME(x, y, z): as dim3(x, y, z) */
                    long long v3[3] = {1, 1, 1};
                    int nd = 0, from = k + 1;
                    rc = 0;
                    for (int j = k + 1; j <= close && !rc; j++) {
                        if (j < close && !tok_is(c, &c->v[j], ","))
                            continue;
                        long long one;
                        int q = from;
                        if (nd >= 3 || lexpr(c, c->v, &q, j, &one, 0) || q != j)
                            rc = -1;
                        else
                            v3[nd++] = one;
                        from = j + 1;
                    }
                    if (!rc) {
                        memcpy(out, v3, sizeof v3);
                        *dims = 3;
                    }
                }
            }
        }
    }
    c->depth--;
    return rc;
}

static int lval(struct lctx *c, const struct clex_tok *t, int a, int b, long long out[3], int *dims)
{
    if (b - a >= 3 && tok_is(c, &t[a], "dim3") && (tok_is(c, &t[a + 1], "(") || tok_is(c, &t[a + 1], "{"))) {
        int close = clex_close(c->src, t, a + 1, b);
        if (close != b - 1)
            return -1;
        long long v3[3] = {1, 1, 1};
        int nd = 0, from = a + 2;
        for (int j = a + 2; j <= close; j++) {
            if (j < close && tok_is(c, &t[j], "("))
                j = clex_close(c->src, t, j, close);
            if (j < 0)
                return -1;
            if (j < close && !tok_is(c, &t[j], ","))
                continue;
            long long one;
            int q = from;
            if (nd >= 3 || lexpr(c, t, &q, j, &one, 0) || q != j)
                return -1;
            v3[nd++] = one;
            from = j + 1;
        }
        memcpy(out, v3, sizeof v3);
        *dims = 3;
        return 0;
    }
    if (b - a == 1 && t[a].kind == CLEX_IDENT)
        return lname(c, t, a, out, dims);
    int k = a;
    long long v;
    if (lexpr(c, t, &k, b, &v, 0) || k != b)
        return -1;
    out[0] = v;
    out[1] = out[2] = 1;
    *dims = 1;
    return 0;
}

/* the object-like #defines of the file into c->defs / c->def */
static void read_defines(struct lctx *c, const struct clex_toks *all)
{
    for (int k = 0; k < all->n; k++) {
        const struct clex_tok *d = &all->t[k];
        if (d->kind != CLEX_DIRECTIVE)
            continue;
        const char *s = c->src + d->pos;
        size_t i = 1, n = (size_t)d->len;
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (n - i < 6 || memcmp(s + i, "define", 6))
            continue;
        i += 6;
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        struct clex L;
        clex_init(&L, c->src, (size_t)d->pos + i, (size_t)(d->pos + d->len), d->line,
                  CLEX_PUNCT1 | CLEX_SPLICE);
        int from = c->defs.n;
        if (clex_all(&L, &c->defs) || c->defs.n - from < 2 || c->ndefs >= 256)
            continue;
        const struct clex_tok *nm = &c->defs.t[from], *after = &c->defs.t[from + 1];
        if (nm->kind != CLEX_IDENT || (tok_is(c, after, "(") && after->pos == nm->pos + nm->len))
            continue;                       /* a macro with arguments */
        c->def[c->ndefs++] = (struct ldef){from, from + 1, c->defs.n, 1};
    }
}

int kp_file_launch(const char *src, size_t len, const char *name, struct gpu_kernel_request *req)
{
    static struct lctx c;
    memset(&c, 0, sizeof c);
    c.src = src;
    char base[GPU_KERNEL_TEXT];
    ksrc_base_name(name, base, sizeof base);
    const char *colon = strrchr(base, ':');
    const char *want = colon ? colon + 1 : base;
    struct clex L;
    struct clex_toks all = {NULL, 0, 0};
    clex_init(&L, src, 0, len, 1, CLEX_DIRECTIVES | CLEX_PUNCT1 | CLEX_SPLICE);
    if (clex_all(&L, &all)) {
        free(all.t);
        return 0;
    }
    read_defines(&c, &all);
    int ntok = 0;
    for (int k = 0; k <= all.n; k++)
        if (all.t[k].kind != CLEX_DIRECTIVE)
            all.t[ntok++] = all.t[k];
    c.v = all.t;
    c.n = ntok - 1;
    int done = 0;
    for (int k = 0; k + 3 < c.n && !done; k++) {
        if (c.v[k].kind != CLEX_IDENT || !clex_is(src, &c.v[k], want))
            continue;
        int j = k + 1;
        if (tok_is(&c, &c.v[j], "<") && !tok_is(&c, &c.v[j + 1], "<")) {   /* k<T><<<...>>> */
            int depth = 0;
            for (; j < c.n; j++) {
                depth += tok_is(&c, &c.v[j], "<") - tok_is(&c, &c.v[j], ">");
                if (depth == 0)
                    break;
            }
            j++;
        }
        if (j + 2 >= c.n || !tok_is(&c, &c.v[j], "<") || !tok_is(&c, &c.v[j + 1], "<") ||
            !tok_is(&c, &c.v[j + 2], "<"))
            continue;
        int from = j + 3, end = -1;
        for (int q = from; q + 2 < c.n; q++) {
            if (tok_is(&c, &c.v[q], "(") && (q = clex_close(src, c.v, q, c.n)) < 0)
                break;
            if (tok_is(&c, &c.v[q], ">") && tok_is(&c, &c.v[q + 1], ">") && tok_is(&c, &c.v[q + 2], ">")) {
                end = q;
                break;
            }
        }
        if (end < 0)
            continue;
        long long val[3][3] = {{1, 1, 1}, {1, 1, 1}, {0, 1, 1}};
        int nargs = 0, ok = 1, a = from;
        for (int q = from; q <= end && ok; q++) {
            if (q < end && tok_is(&c, &c.v[q], "(")) {
                q = clex_close(src, c.v, q, end);
                if (q < 0)
                    ok = 0;
                continue;
            }
            if (q < end && !tok_is(&c, &c.v[q], ","))
                continue;
            int dims = 0;
            if (nargs < 3 && lval(&c, c.v, a, q, val[nargs], &dims))
                ok = 0;
            nargs++;
            a = q + 1;
        }
        if (!ok || nargs < 2)
            continue;
        for (int d = 0; d < 3; d++)
            if (val[0][d] < 1 || val[0][d] > 0x7fffffff || val[1][d] < 1 || val[1][d] > 1024)
                ok = 0;
        if (!ok || val[2][0] < 0 || val[2][0] > (1LL << 30))
            continue;
        for (int d = 0; d < 3; d++) {
            req->grid[d] = (unsigned)val[0][d];
            req->block[d] = (unsigned)val[1][d];
        }
        if (nargs >= 3)
            req->smem = (unsigned long long)val[2][0];
        done = 1;
    }
    free(all.t);
    free(c.defs.t);
    return done;
}

int kp_file_instance(const char *src, size_t len, const char *name, char *out, size_t n)
{
    struct clex L;
    struct clex_toks all = {NULL, 0, 0};
    clex_init(&L, src, 0, len, 1, CLEX_DIRECTIVES | CLEX_PUNCT1 | CLEX_SPLICE);
    out[0] = 0;
    if (clex_all(&L, &all)) {
        free(all.t);
        return 0;
    }
    const char *colon = strrchr(name, ':');
    const char *want = colon ? colon + 1 : name;
    const struct clex_tok *v = all.t;
    for (int k = 0; k + 2 < all.n && !out[0]; k++) {
        if (v[k].kind != CLEX_IDENT || !clex_is(src, &v[k], want) || !clex_is(src, &v[k + 1], "<") ||
            clex_is(src, &v[k + 2], "<"))
            continue;
        int depth = 0, j = k + 1;
        for (; j < all.n; j++) {
            depth += clex_is(src, &v[j], "<") - clex_is(src, &v[j], ">");
            if (depth == 0 || clex_is(src, &v[j], ";"))
                break;
        }
        if (depth != 0 || j + 3 >= all.n || !clex_is(src, &v[j + 1], "<") ||
            !clex_is(src, &v[j + 2], "<") || !clex_is(src, &v[j + 3], "<"))
            continue;
        size_t from = (size_t)v[k].pos, to = (size_t)(v[j].pos + v[j].len);
        if (to - from + 1 < n && !memchr(src + from, '\n', to - from))
            bl_fmt(out, n, "%.*s", (int)(to - from), src + from);
    }
    free(all.t);
    return out[0] != 0;
}

int kp_kernels(const char *src, size_t len, char (*names)[GPU_KERNEL_TEXT], int *is_template,
               int max)
{
    static struct ksrc_kernel ks[KSRC_MAX_KERNELS];
    int n = 0;
    ksrc_find_kernels(src, len, ks, KSRC_MAX_KERNELS, &n);
    int m = 0;
    for (int i = 0; i < n && m < max; i++, m++) {
        bl_fmt(names[m], GPU_KERNEL_TEXT, "%s", ks[i].name);
        is_template[m] = ks[i].is_template;
    }
    return m;
}

/* ---- the launch's values for a kernel's parameters ---- */

int ksrc_check_args(const struct ksrc_kernel *k, const struct gpu_kernel_request *req,
                    struct bl_err *err)
{
    if (k->nall > KSRC_MAX_PARAMS)
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_TOO_MANY_PARAMS, k->name, k->nall,
                       KSRC_MAX_PARAMS);
    for (int a = 0; a < req->nargs; a++) {
        int found = 0;
        for (int i = 0; i < k->nparams; i++)
            found |= !strcmp(k->params[i].name, req->args[a].name) &&
                     k->params[i].kind != KSRC_POINTER;
        if (!found)
            return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_NO_SCALAR_PARAM,
                           req->args[a].name, k->name, req->args[a].name);
    }
    return 0;
}

unsigned long long ksrc_buffer_bytes(const struct ksrc_kernel *k, int i,
                                     const struct gpu_kernel_request *req)
{
    unsigned long long sz = req->buffer_size, v;
    for (int b = 0; b < req->nbufs; b++)
        if (!strcmp(req->bufs[b].name, k->params[i].name) &&
            kreq_bytes(req->bufs[b].value, &v) == 0)
            sz = v;
    return sz;
}

int ksrc_scalar_arg(const struct ksrc_kernel *k, int i, const struct gpu_kernel_request *req,
                    unsigned char out[8], struct bl_err *err)
{
    const struct ksrc_param *p = &k->params[i];
    if (p->kind == KSRC_UNSUPPORTED)
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_PARAM_UNSUPPORTED, i + 1, k->name,
                       p->type, p->name[0] ? " " : "", p->name);
    const char *val = NULL;
    for (int a = 0; a < req->nargs; a++)
        if (!strcmp(req->args[a].name, p->name))
            val = req->args[a].value;
    if (!val) {
        if (p->name[0])
            return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_PARAM_NEEDS_VALUE, k->name,
                           p->type, p->name, p->name, p->name, req->path);
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_PARAM_UNNAMED, i + 1, k->name,
                       p->type);
    }
    struct bl_err why = {0};
    if (ksrc_scalar_bytes(p, val, out, &why))
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_BAD_ARG_VALUE, p->name, val,
                       why.msg);
    return 0;
}
