/* pattern_cuda_read.c: the CUDA source as pattern_cuda.c needs it: one token list (comments
 * and preprocessor lines skipped, object-like #define bodies kept apart), the functions with a
 * body (a ')' before a '{'), every declarator of the file (statements split at ';', braces and
 * control headers, a for's first clause a statement of its own; a declaration is qualifiers,
 * type words, then declarators), and the lookups over them. A small tokenizer, not a C++
 * parser. Pure C: libc and src/base. */
#include <stdlib.h>
#include <string.h>

#include "pattern_cuda_internal.h"

/* ---------------------------------------------------------------- growing arrays */

static void *grow(void *p, int *cap, int n, size_t size, int *oom)
{
    if (n < *cap)
        return p;
    int nc = *cap ? *cap * 2 : 64;
    void *q = realloc(p, (size_t)nc * size);
    if (!q) {
        *oom = 1;
        return NULL;
    }
    *cap = nc;
    return q;
}

static void push_tok(struct ctx *c, struct tokvec *v, int kind, size_t pos, size_t len, int line)
{
    struct ctok *t = grow(v->t, &v->cap, v->n, sizeof *t, &c->oom);
    if (!t)
        return;
    v->t = t;
    v->t[v->n++] = (struct ctok){kind, (int)pos, (int)len, line};
}

/* ---------------------------------------------------------------- tokens */

static int is_alpha_(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
static int is_digit_(int ch) { return ch >= '0' && ch <= '9'; }

struct lexer {
    size_t i;
    int line;
    int bol;                 /* only blanks since the start of the line */
};

static const char *const puncts3[] = {"<<=", ">>=", "...", "->*", NULL};
static const char *const puncts2[] = {"==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "+=", "-=",
                                      "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "->", "::",
                                      NULL};

static size_t punct_len(const char *s, size_t n)
{
    for (int k = 0; puncts3[k]; k++)
        if (n >= 3 && !memcmp(s, puncts3[k], 3))
            return 3;
    for (int k = 0; puncts2[k]; k++)
        if (n >= 2 && !memcmp(s, puncts2[k], 2))
            return 2;
    return 1;
}

static void directive(struct ctx *c, struct lexer *L);

/* tokens of src[L->i .. end) into v; directives only at the top level (def == 0) */
static void scan(struct ctx *c, struct lexer *L, size_t end, struct tokvec *v, int def)
{
    const char *s = c->src;
    while (L->i < end && !c->oom) {
        size_t i = L->i;
        char ch = s[i];
        if (ch == '\n') {
            L->line++;
            L->bol = 1;
            L->i++;
        } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            L->i++;
        } else if (ch == '\\' && i + 1 < end && s[i + 1] == '\n') {
            L->line++;
            L->i += 2;
        } else if (ch == '/' && i + 1 < end && s[i + 1] == '/') {
            while (L->i < end && s[L->i] != '\n')
                L->i++;
        } else if (ch == '/' && i + 1 < end && s[i + 1] == '*') {
            L->i += 2;
            while (L->i < end && !(s[L->i] == '*' && L->i + 1 < end && s[L->i + 1] == '/')) {
                if (s[L->i] == '\n')
                    L->line++;
                L->i++;
            }
            L->i = L->i + 2 <= end ? L->i + 2 : end;
        } else if (ch == '#' && L->bol && !def) {
            directive(c, L);
        } else {
            L->bol = 0;
            size_t j = i + 1;
            int kind = CT_PUNCT;
            if (is_alpha_(ch)) {
                while (j < end && (is_alpha_(s[j]) || is_digit_(s[j])))
                    j++;
                kind = CT_IDENT;
            } else if (is_digit_(ch) || (ch == '.' && i + 1 < end && is_digit_(s[i + 1]))) {
                while (j < end && (is_alpha_(s[j]) || is_digit_(s[j]) || s[j] == '.' ||
                                   ((s[j] == '+' || s[j] == '-') &&
                                    (s[j - 1] == 'e' || s[j - 1] == 'E' || s[j - 1] == 'p' ||
                                     s[j - 1] == 'P'))))
                    j++;
                kind = CT_NUM;
            } else if (ch == '"' || ch == '\'') {
                while (j < end && s[j] != ch && s[j] != '\n')
                    j += s[j] == '\\' && j + 1 < end ? 2 : 1;
                if (j < end && s[j] == ch)
                    j++;
                kind = CT_STR;
            } else {
                j = i + punct_len(s + i, end - i);
            }
            push_tok(c, v, kind, i, j - i, L->line);
            L->i = j;
        }
    }
}

/* a preprocessor line at '#': #define NAME BODY is kept (its body tokenized), the rest skipped */
static void directive(struct ctx *c, struct lexer *L)
{
    const char *s = c->src;
    size_t eol = L->i;
    while (eol < c->len && s[eol] != '\n')
        eol += s[eol] == '\\' && eol + 1 < c->len && s[eol + 1] == '\n' ? 2 : 1;
    size_t i = L->i + 1;
    while (i < eol && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (eol - i > 7 && !memcmp(s + i, "define", 6) && (s[i + 6] == ' ' || s[i + 6] == '\t')) {
        i += 6;
        while (i < eol && (s[i] == ' ' || s[i] == '\t'))
            i++;
        size_t n0 = i;
        while (i < eol && (is_alpha_(s[i]) || is_digit_(s[i])))
            i++;
        struct cdefine *d = grow(c->def, &c->defcap, c->ndef, sizeof *d, &c->oom);
        if (d)
            c->def = d;
        if (d && i > n0) {
            d = &c->def[c->ndef++];
            d->name_pos = (int)n0;
            d->name_len = (int)(i - n0);
            d->line = L->line;
            d->with_args = i < eol && s[i] == '(';
            d->from = c->defs.n;
            L->i = i;
            scan(c, L, eol, &c->defs, 1);
            d->to = c->defs.n;
        }
    }
    /* the rest of the line, counting its continuations */
    for (size_t k = L->i; k < eol; k++)
        if (s[k] == '\n')
            L->line++;
    L->i = eol;
}

/* ---------------------------------------------------------------- token helpers */

int pcu_tis(const struct ctx *c, const struct ctok *t, const char *w)
{
    size_t n = strlen(w);
    return t->len == (int)n && !memcmp(c->src + t->pos, w, n);
}

int pcu_cis(const struct ctx *c, int k, const char *w)
{
    return k >= 0 && k < c->code.n && pcu_tis(c, &c->code.t[k], w);
}

int pcu_same_text(const struct ctx *c, const struct ctok *a, const char *s, int n)
{
    return a->len == n && !memcmp(c->src + a->pos, s, (size_t)n);
}

/* the index of the bracket closing the one at k ('(' '[' '{'), or n - 1 (the last token of
 * the range) when it is not closed */
int pcu_match(const struct ctx *c, const struct tokvec *v, int k, int n)
{
    const char *open = "([{", *close = ")]}";
    char o = c->src[v->t[k].pos];
    const char *w = strchr(open, o);
    if (!w)
        return k;
    char cl = close[w - open];
    int depth = 0;
    for (int i = k; i < n; i++) {
        const struct ctok *t = &v->t[i];
        if (t->kind != CT_PUNCT || t->len != 1)
            continue;
        if (c->src[t->pos] == o)
            depth++;
        else if (c->src[t->pos] == cl && --depth == 0)
            return i;
    }
    return n > k ? n - 1 : k;
}

/* the '(' opening the ')' at k, or -1 */
static int match_back(const struct ctx *c, int k)
{
    int depth = 0;
    for (int i = k; i >= 0; i--) {
        if (pcu_cis(c, i, ")"))
            depth++;
        else if (pcu_cis(c, i, "(") && --depth == 0)
            return i;
    }
    return -1;
}

int pcu_word_in(const struct ctx *c, const struct ctok *t, const char *const *words)
{
    if (t->kind != CT_IDENT)
        return 0;
    for (int i = 0; words[i]; i++)
        if (pcu_tis(c, t, words[i]))
            return 1;
    return 0;
}

/* statements that start with these are not declarations */
static const char *const stmt_words[] = {
    "return", "goto", "case", "default", "else", "do", "new", "delete", "throw", "using",
    "typedef", "asm", "__asm__", "break", "continue", "sizeof", "template", "namespace",
    "if", "for", "while", "switch", "public", "private", "protected", "struct", "union",
    "enum", "class", "operator", "static_assert", NULL};

static const char *const skip_quals[] = {"static", "volatile", "register", "inline",
                                         "__forceinline__", "__restrict__", "__device__",
                                         "__host__", "__constant__", "__managed__", NULL};

/* ---------------------------------------------------------------- functions */

static void find_functions(struct ctx *c)
{
    static const char *const after_params[] = {"const", "noexcept", "override", "final", NULL};
    static const char *const not_functions[] = {"if", "for", "while", "switch", "catch",
                                                "__launch_bounds__", NULL};
    const struct ctok *t = c->code.t;
    for (int i = 0; i < c->code.n && !c->oom; i++) {
        if (!pcu_cis(c, i, "{"))
            continue;
        int p = i - 1;
        while (p >= 0 && pcu_word_in(c, &t[p], after_params))
            p--;
        if (p < 0 || !pcu_cis(c, p, ")"))
            continue;               /* a namespace, extern "C", a struct: transparent */
        int lp = match_back(c, p);
        if (lp < 1 || t[lp - 1].kind != CT_IDENT || pcu_word_in(c, &t[lp - 1], not_functions))
            continue;
        int close = pcu_match(c, &c->code, i, c->code.n);
        struct cfunc *f = grow(c->fn, &c->fncap, c->nfn, sizeof *f, &c->oom);
        if (!f)
            return;
        c->fn = f;
        c->fn[c->nfn++] = (struct cfunc){lp - 1, lp, p, i, close};
        i = close;                  /* nothing nested */
    }
}

/* ---------------------------------------------------------------- declarations */

static void add_decl(struct ctx *c, const struct cdecl *d)
{
    struct cdecl *v = grow(c->decl, &c->declcap, c->ndecl, sizeof *v, &c->oom);
    if (!v)
        return;
    c->decl = v;
    c->decl[c->ndecl++] = *d;
}

/* the statement [s, e) (e: its ';' or the end of a range): its declarators when it is a
 * declaration */
static void statement(struct ctx *c, int s, int e, int fn, int loop)
{
    const struct ctok *t = c->code.t;
    struct cdecl d;
    memset(&d, 0, sizeof d);
    d.fn = fn;
    d.stmt = s;
    d.loop = loop;
    d.align_from = d.align_to = -1;
    int k = s;
    while (k < e && t[k].kind == CT_IDENT) {
        if (pcu_tis(c, &t[k], "const") || pcu_tis(c, &t[k], "constexpr")) {
            d.is_const = 1;
            k++;
        } else if (pcu_tis(c, &t[k], "extern")) {
            d.is_extern = 1;
            k += k + 1 < e && t[k + 1].kind == CT_STR ? 2 : 1;
        } else if (pcu_tis(c, &t[k], "__shared__")) {
            d.shared = 1;
            k++;
        } else if ((pcu_tis(c, &t[k], "__align__") || pcu_tis(c, &t[k], "alignas")) && pcu_cis(c, k + 1, "(")) {
            d.align_from = k;
            d.align_to = pcu_match(c, &c->code, k + 1, e) + 1;
            k = d.align_to;
        } else if (pcu_word_in(c, &t[k], skip_quals)) {
            k++;
        } else {
            break;
        }
    }
    if (k >= e || t[k].kind != CT_IDENT || pcu_word_in(c, &t[k], stmt_words))
        return;
    d.type_from = k;
    /* type words: every identifier followed by another one (unsigned long long x) */
    while (k + 1 < e && t[k + 1].kind == CT_IDENT && !pcu_tis(c, &t[k + 1], "__restrict__"))
        k++;
    d.type_end = k + 1;
    if (d.type_end - d.type_from > 1) {
        d.type_end--;               /* the last word is the name: int x */
        k--;
    }
    int i = k + 1;
    for (;;) {
        d.dstart = i;
        d.pointer = 0;
        while (i < e && (pcu_cis(c, i, "*") || pcu_cis(c, i, "&") || pcu_tis(c, &t[i], "__restrict__") ||
                         pcu_tis(c, &t[i], "const"))) {
            d.pointer |= pcu_cis(c, i, "*");
            i++;
        }
        if (i >= e || t[i].kind != CT_IDENT || pcu_cis(c, i + 1, "(") || pcu_cis(c, i + 1, "::"))
            return;
        d.name = i++;
        d.dims_from = i;
        while (i < e && pcu_cis(c, i, "["))
            i = pcu_match(c, &c->code, i, e) + 1;
        d.dims_to = i;
        d.init = d.init_end = -1;
        if (i < e && pcu_cis(c, i, "=")) {
            d.init = ++i;
            while (i < e && !pcu_cis(c, i, ",")) {
                if (pcu_cis(c, i, "(") || pcu_cis(c, i, "[") || pcu_cis(c, i, "{"))
                    i = pcu_match(c, &c->code, i, e);
                i++;
            }
            d.init_end = i;
        }
        if (i < e && !pcu_cis(c, i, ","))
            return;                 /* something else follows: not a declaration */
        add_decl(c, &d);
        if (i >= e)
            return;
        i++;
    }
}

/* the statements of tokens [from, to): split at ';' and braces, control headers skipped
 * (a for's first clause is a statement of its own, its variables loop variables) */
static void statements(struct ctx *c, int from, int to, int fn)
{
    int s = from;
    for (int i = from; i < to && !c->oom;) {
        if (pcu_cis(c, i, "{") || pcu_cis(c, i, "}")) {
            s = ++i;
        } else if (pcu_cis(c, i, ";")) {
            statement(c, s, i, fn, 0);
            s = ++i;
        } else if ((pcu_cis(c, i, "if") || pcu_cis(c, i, "while") || pcu_cis(c, i, "switch")) &&
                   pcu_cis(c, i + 1, "(")) {
            i = pcu_match(c, &c->code, i + 1, to) + 1;
            s = i;
        } else if (pcu_cis(c, i, "for") && pcu_cis(c, i + 1, "(")) {
            int close = pcu_match(c, &c->code, i + 1, to);
            int semi = i + 2;
            while (semi < close && !pcu_cis(c, semi, ";"))
                semi++;
            statement(c, i + 2, semi, fn, 1);
            i = close + 1;
            s = i;
        } else if (pcu_cis(c, i, "else") || pcu_cis(c, i, "do")) {
            s = ++i;
        } else if (pcu_cis(c, i, "(") || pcu_cis(c, i, "[")) {
            i = pcu_match(c, &c->code, i, to) + 1;
        } else {
            i++;
        }
    }
}

static void find_declarations(struct ctx *c)
{
    int from = 0;
    for (int f = 0; f < c->nfn; f++) {
        statements(c, from, c->fn[f].open, -1);
        statements(c, c->fn[f].open + 1, c->fn[f].close, f);
        from = c->fn[f].close + 1;
    }
    statements(c, from, c->code.n, -1);
}

/* ---------------------------------------------------------------- looking names up */

/* the declaration of name (token k, or text s/n) visible at token `use` in function fn: the
 * function's last one before `use`, else the file's; -1 when none */
int pcu_lookup_decl(const struct ctx *c, const char *s, int n, int use, int fn)
{
    int best = -1;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int i = 0; i < c->ndecl; i++) {
            const struct cdecl *d = &c->decl[i];
            if (d->fn != (pass == 0 ? fn : -1) || d->name >= use ||
                !pcu_same_text(c, &c->code.t[d->name], s, n))
                continue;
            if (pass == 0 && fn < 0)
                continue;
            best = i;
        }
    return best;
}

int pcu_lookup_define(const struct ctx *c, const char *s, int n)
{
    for (int i = c->ndef - 1; i >= 0; i--)
        if (c->def[i].name_len == n && !memcmp(c->src + c->def[i].name_pos, s, (size_t)n) &&
            c->def[i].line <= c->line)
            return i;
    return -1;
}

/* a parameter of function fn named s: its first and last token, or -1 */
int pcu_lookup_param(const struct ctx *c, int fn, const char *s, int n, int *first, int *last)
{
    if (fn < 0)
        return -1;
    const struct cfunc *f = &c->fn[fn];
    int a = f->lparen + 1;
    for (int i = a; i <= f->rparen; i++) {
        if (pcu_cis(c, i, "(") || pcu_cis(c, i, "[") || pcu_cis(c, i, "<")) {
            if (!pcu_cis(c, i, "<"))
                i = pcu_match(c, &c->code, i, f->rparen);
            continue;
        }
        if (i < f->rparen && !pcu_cis(c, i, ","))
            continue;
        /* [a, i): one parameter; its name is the last identifier before any '[' */
        int name = -1;
        for (int k = a; k < i; k++) {
            if (pcu_cis(c, k, "[") || pcu_cis(c, k, "="))
                break;
            if (c->code.t[k].kind == CT_IDENT)
                name = k;
        }
        if (name >= 0 && pcu_same_text(c, &c->code.t[name], s, n)) {
            *first = a;
            *last = i;
            return name;
        }
        a = i + 1;
    }
    return -1;
}

/* does the declaration point into shared memory (an array, or a pointer carved from one)? */
int pcu_is_shared(const struct ctx *c, int di, int depth)
{
    const struct cdecl *d = &c->decl[di];
    if (d->shared)
        return 1;
    if (!d->pointer || d->init < 0 || depth > 8)
        return 0;
    for (int k = d->init; k < d->init_end; k++) {
        const struct ctok *t = &c->code.t[k];
        if (t->kind != CT_IDENT || pcu_cis(c, k - 1, ".") || pcu_cis(c, k - 1, "->"))
            continue;
        int e = pcu_lookup_decl(c, c->src + t->pos, t->len, d->name, d->fn);
        if (e >= 0 && e != di && pcu_is_shared(c, e, depth + 1))
            return 1;
    }
    return 0;
}

void pcu_read(struct ctx *c)
{
    struct lexer L = {0, 1, 1};
    scan(c, &L, c->len, &c->code, 0);
    if (!c->oom)
        find_functions(c);
    if (!c->oom)
        find_declarations(c);
}
