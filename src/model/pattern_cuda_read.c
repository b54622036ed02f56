/* pattern_cuda_read.c: the CUDA source as pattern_cuda.c needs it: one token list (comments
 * and preprocessor lines skipped, object-like #define bodies kept apart), the functions with a
 * body (a ')' before a '{'), every declarator of the file (statements split at ';', braces and
 * control headers, a for's first clause a statement of its own; a declaration is qualifiers,
 * type words, then declarators), and the lookups over them. The tokens are clex.h's; a walk
 * over them, not a C++ parser. Pure C: libc and src/base. */
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/hash.h"
#include "pattern_cuda_internal.h"

/* ---------------------------------------------------------------- growing arrays */

/* p with room for element n (bl_grow), or NULL with *oom set */
static void *grow(void *p, int *cap, int n, size_t size, int *oom)
{
    if (bl_grow(&p, cap, n + 1, size, 64)) {
        *oom = 1;
        return NULL;
    }
    return p;
}

/* ---------------------------------------------------------------- tokens */

/* a preprocessor line: #define NAME BODY is kept (its body's tokens in c->defs), others skipped */
static void directive(struct ctx *c, const struct clex_tok *t)
{
    const char *s = c->src;
    size_t i = (size_t)t->pos + 1, eol = (size_t)(t->pos + t->len);
    while (i < eol && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (eol - i <= 7 || memcmp(s + i, "define", 6) || (s[i + 6] != ' ' && s[i + 6] != '\t'))
        return;
    for (i += 6; i < eol && (s[i] == ' ' || s[i] == '\t');)
        i++;
    size_t n0 = i;
    while (i < eol && clex_alnum(s[i]))
        i++;
    struct cdefine *d = grow(c->def, &c->defcap, c->ndef, sizeof *d, &c->oom);
    if (d)
        c->def = d;
    if (!d || i == n0)
        return;
    d = &c->def[c->ndef++];
    *d = (struct cdefine){(int)n0, (int)(i - n0), t->line, c->defs.n, 0, i < eol && s[i] == '('};
    struct clex body;
    clex_init(&body, s, i, eol, t->line, CLEX_SPLICE);
    if (clex_all(&body, &c->defs) < 0)
        c->oom = 1;
    d->to = c->defs.n;
}

/* ---------------------------------------------------------------- token helpers */

int pcu_cis(const struct ctx *c, int k, const char *w)
{
    return k >= 0 && k < c->code.n && clex_is(c->src, &c->code.t[k], w);
}

int pcu_same_text(const struct ctx *c, const struct clex_tok *a, const char *s, int n)
{
    return a->len == n && !memcmp(c->src + a->pos, s, (size_t)n);
}

int pcu_match(const struct ctx *c, const struct clex_toks *v, int k, int n)
{
    int close;
    if (v == &c->code && c->match && k >= 0 && k < c->code.n && c->match[k] != -2)
        close = c->match[k] < n ? c->match[k] : -1;     /* the index: what clex_close finds */
    else
        close = clex_close(c->src, v->t, k, n);
    return close >= 0 ? close : n > k ? n - 1 : k;
}

int pcu_match_back(const struct ctx *c, int k)
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
    const struct clex_tok *t = c->code.t;
    for (int i = 0; i < c->code.n && !c->oom; i++) {
        if (!pcu_cis(c, i, "{"))
            continue;
        int p = i - 1;
        while (p >= 0 && clex_word_in(c->src, &t[p], after_params))
            p--;
        if (p < 0 || !pcu_cis(c, p, ")"))
            continue;               /* a namespace, extern "C", a struct: transparent */
        int lp = pcu_match_back(c, p);
        if (lp < 1 || t[lp - 1].kind != CLEX_IDENT || clex_word_in(c->src, &t[lp - 1], not_functions))
            continue;
        int close = pcu_match(c, &c->code, i, c->code.n);
        struct cfunc *f = grow(c->fn, &c->fncap, c->nfn, sizeof *f, &c->oom);
        if (!f)
            return;
        c->fn = f;
        c->fn[c->nfn++] = (struct cfunc){lp - 1, lp, p, i, close, -1, -1};
        /* template <...> before it: back over the type words, qualifiers and __launch_bounds__ */
        for (int b = lp - 2, steps = 0; b >= 1 && steps < 64; b--, steps++) {
            if (pcu_cis(c, b, ";") || pcu_cis(c, b, "{") || pcu_cis(c, b, "}"))
                break;
            if (pcu_cis(c, b, ")")) {
                b = pcu_match_back(c, b);
                if (b < 0)
                    break;
                continue;
            }
            if (pcu_cis(c, b, ">")) {
                int depth = 0, lt = -1;
                for (int q = b; q >= 0 && lt < 0; q--)
                    if (pcu_cis(c, q, ">"))
                        depth++;
                    else if (pcu_cis(c, q, "<") && --depth == 0)
                        lt = q;
                    else if (pcu_cis(c, q, ";") || pcu_cis(c, q, "{") || pcu_cis(c, q, "}"))
                        break;
                if (lt >= 1 && pcu_cis(c, lt - 1, "template")) {
                    c->fn[c->nfn - 1].tmpl_from = lt + 1;
                    c->fn[c->nfn - 1].tmpl_to = b;
                    break;
                }
                if (lt < 0)
                    break;
                b = lt;
            }
        }
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
    const struct clex_tok *t = c->code.t;
    struct cdecl d;
    memset(&d, 0, sizeof d);
    d.fn = fn;
    d.stmt = s;
    d.loop = loop;
    d.align_from = d.align_to = -1;
    int k = s;
    while (k < e && t[k].kind == CLEX_IDENT) {
        if (clex_is(c->src, &t[k], "const") || clex_is(c->src, &t[k], "constexpr")) {
            d.is_const = 1;
            k++;
        } else if (clex_is(c->src, &t[k], "extern")) {
            d.is_extern = 1;
            k += k + 1 < e && t[k + 1].kind == CLEX_STRING ? 2 : 1;
        } else if (clex_is(c->src, &t[k], "__shared__")) {
            d.shared = 1;
            k++;
        } else if ((clex_is(c->src, &t[k], "__align__") || clex_is(c->src, &t[k], "alignas")) && pcu_cis(c, k + 1, "(")) {
            d.align_from = k;
            d.align_to = pcu_match(c, &c->code, k + 1, e) + 1;
            k = d.align_to;
        } else if (clex_word_in(c->src, &t[k], skip_quals)) {
            k++;
        } else {
            break;
        }
    }
    if (k >= e || t[k].kind != CLEX_IDENT || clex_word_in(c->src, &t[k], stmt_words))
        return;
    d.type_from = k;
    /* type words: every identifier followed by another one (unsigned long long x) */
    while (k + 1 < e && t[k + 1].kind == CLEX_IDENT && !clex_is(c->src, &t[k + 1], "__restrict__"))
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
        while (i < e && (pcu_cis(c, i, "*") || pcu_cis(c, i, "&") || clex_is(c->src, &t[i], "__restrict__") ||
                         clex_is(c->src, &t[i], "const"))) {
            d.pointer |= pcu_cis(c, i, "*");
            i++;
        }
        if (i >= e || t[i].kind != CLEX_IDENT || pcu_cis(c, i + 1, "(") || pcu_cis(c, i + 1, "::"))
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
        if (pcu_cis(c, i, "{") && (pcu_cis(c, i - 1, "struct") || pcu_cis(c, i - 1, "union") ||
                                   pcu_cis(c, i - 2, "struct") || pcu_cis(c, i - 2, "union") ||
                                   pcu_cis(c, i - 2, "class"))) {
            i = pcu_match(c, &c->code, i, to) + 1;  /* a struct's members are not variables */
        } else if (pcu_cis(c, i, "{") || pcu_cis(c, i, "}")) {
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

/* ---------------------------------------------------------------- types */

static void add_type(struct ctx *c, const struct ctypedef *d)
{
    struct ctypedef *v = grow(c->type, &c->typecap, c->ntype, sizeof *v, &c->oom);
    if (!v)
        return;
    c->type = v;
    c->type[c->ntype++] = *d;
}

/* struct NAME { ... };  typedef ... NAME;  using NAME = ...; in tokens [from, to) */
static void find_types(struct ctx *c, int from, int to, int fn)
{
    const struct clex_tok *t = c->code.t;
    for (int i = from; i < to && !c->oom; i++) {
        struct ctypedef d = {0, fn, i, -1, -1, -1, -1};
        if ((pcu_cis(c, i, "struct") || pcu_cis(c, i, "class")) && (i == from ||
            pcu_cis(c, i - 1, ";") || pcu_cis(c, i - 1, "}") || pcu_cis(c, i - 1, "{"))) {
            int k = i + 1;
            while (k < to && (pcu_cis(c, k, "__align__") || pcu_cis(c, k, "alignas")) &&
                   pcu_cis(c, k + 1, "("))
                k = pcu_match(c, &c->code, k + 1, to) + 1;
            if (k + 1 >= to || t[k].kind != CLEX_IDENT || !pcu_cis(c, k + 1, "{"))
                continue;
            d.kind = PCU_STRUCT;
            d.name = k;
            d.open = k + 1;
            d.close = pcu_match(c, &c->code, k + 1, to);
            d.end = d.close + 1;
            add_type(c, &d);
            i = d.close;
        } else if (pcu_cis(c, i, "typedef")) {
            int k = i + 1, name = -1;
            while (k < to && !pcu_cis(c, k, ";")) {
                if (pcu_cis(c, k, "{")) {
                    d.open = k;
                    d.close = k = pcu_match(c, &c->code, k, to);
                } else if (pcu_cis(c, k, "[") || pcu_cis(c, k, "(")) {
                    break;
                } else if (t[k].kind == CLEX_IDENT) {
                    name = k;
                }
                k++;
            }
            if (!pcu_cis(c, k, ";") || name < 0)
                continue;
            d.kind = PCU_TYPEDEF;
            d.name = name;
            d.end = k;
            add_type(c, &d);
            i = k;
        } else if (pcu_cis(c, i, "using") && i + 2 < to && t[i + 1].kind == CLEX_IDENT &&
                   pcu_cis(c, i + 2, "=")) {
            int k = i + 3;
            while (k < to && !pcu_cis(c, k, ";") && !pcu_cis(c, k, "{"))
                k++;
            if (!pcu_cis(c, k, ";"))
                continue;
            d.kind = PCU_USING;
            d.name = i + 1;
            d.end = k;
            add_type(c, &d);
            i = k;
        }
    }
}

int pcu_lookup_type(const struct ctx *c, const char *s, int n, int use)
{
    int best = -1;
    for (int i = 0; i < c->ntype; i++)
        if (c->type[i].name < use && pcu_same_text(c, &c->code.t[c->type[i].name], s, n))
            best = i;
    return best;
}

static void find_declarations(struct ctx *c)
{
    int from = 0;
    for (int f = 0; f < c->nfn; f++) {
        find_types(c, from, c->fn[f].open, -1);
        find_types(c, c->fn[f].open + 1, c->fn[f].close, f);
        statements(c, from, c->fn[f].open, -1);
        statements(c, c->fn[f].open + 1, c->fn[f].close, f);
        from = c->fn[f].close + 1;
    }
    find_types(c, from, c->code.n, -1);
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

int pcu_macro(const struct ctx *c, int de, int *params, int *body)
{
    const struct cdefine *d = &c->def[de];
    if (!d->with_args || d->to <= d->from || !clex_is(c->src, &c->defs.t[d->from], "("))
        return -1;
    int close = clex_close(c->src, c->defs.t, d->from, d->to);
    if (close < 0)
        return -1;
    *params = d->from + 1;
    *body = close + 1;
    return close;
}

int pcu_macro_param(const struct ctx *c, int de, const struct clex_tok *t)
{
    int params, body, close = pcu_macro(c, de, &params, &body);
    if (close < 0 || t->kind != CLEX_IDENT)
        return -1;
    for (int k = params, i = 0; k < close; k++) {
        if (clex_is(c->src, &c->defs.t[k], ","))
            i++;
        else if (pcu_same_text(c, &c->defs.t[k], c->src + t->pos, t->len))
            return i;
    }
    return -1;
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
            if (c->code.t[k].kind == CLEX_IDENT)
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

void pcu_read(struct ctx *c)
{
    struct clex L;
    clex_init(&L, c->src, 0, c->len, 1, CLEX_DIRECTIVES | CLEX_SPLICE);
    for (struct clex_tok t = clex_next(&L); t.kind != CLEX_END && !c->oom; t = clex_next(&L))
        if (t.kind == CLEX_DIRECTIVE)
            directive(c, &t);
        else if (clex_push(&c->code, t) < 0)
            c->oom = 1;
    if (!c->oom)
        find_functions(c);
    if (!c->oom)
        find_declarations(c);
}

/* ---------------------------------------------------------------- indexes */

static unsigned name_hash(const char *s, int n)
{
    return (unsigned)bl_hash(BL_HASH_SEED, s, (size_t)n);
}

/* what changes a variable: '=', the compound assignments, then ++ and -- (the last two) */
const char *const pcu_assign_ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
                                      "<<=", ">>=", "++", "--", NULL};

/* token k is a name assigned, ++ or --, not a member */
static int assigns(const struct ctx *c, int k)
{
    if (c->code.t[k].kind != CLEX_IDENT || pcu_cis(c, k - 1, ".") || pcu_cis(c, k - 1, "->"))
        return 0;
    if (pcu_cis(c, k - 1, "++") || pcu_cis(c, k - 1, "--"))
        return 1;
    for (int o = 0; pcu_assign_ops[o]; o++)
        if (pcu_cis(c, k + 1, pcu_assign_ops[o]))
            return 1;
    return 0;
}

static void index_assignments(struct ctx *c)
{
    int n = c->code.n, na = 0;
    for (int k = 0; k < n; k++)
        na += assigns(c, k);
    c->asg_hcap = 2 * na + 16;
    c->asg_head = malloc((size_t)c->asg_hcap * sizeof *c->asg_head);
    c->asg_next = malloc(((size_t)n + 1) * sizeof *c->asg_next);
    if (!c->asg_head || !c->asg_next) {
        c->oom = 1;
        return;
    }
    memset(c->asg_head, -1, (size_t)c->asg_hcap * sizeof *c->asg_head);
    for (int k = n - 1; k >= 0; k--) {
        c->asg_next[k] = -1;
        if (!assigns(c, k))
            continue;
        const struct clex_tok *t = &c->code.t[k];
        unsigned h = name_hash(c->src + t->pos, t->len) % (unsigned)c->asg_hcap;
        c->asg_next[k] = c->asg_head[h];
        c->asg_head[h] = k;
    }
}

int pcu_assigned(const struct ctx *c, const char *s, int n, int from, int to)
{
    if (!c->asg_head)
        return -1;
    for (int k = c->asg_head[name_hash(s, n) % (unsigned)c->asg_hcap]; k >= 0 && k < to;
         k = c->asg_next[k])
        if (k >= from && pcu_same_text(c, &c->code.t[k], s, n))
            return k;
    return -1;
}

/* every ( [ { of the code with its closing bracket of the same kind (a stack a kind: what
 * clex_close finds scanning forward), the functions by name */
void pcu_index(struct ctx *c)
{
    int n = c->code.n;
    c->match = malloc(((size_t)n + 1) * sizeof *c->match);
    int *stack = malloc(((size_t)n + 1) * sizeof *stack);
    c->fn_hcap = 2 * c->nfn + 16;
    c->fn_head = malloc((size_t)c->fn_hcap * sizeof *c->fn_head);
    c->fn_next = malloc(((size_t)c->nfn + 1) * sizeof *c->fn_next);
    c->ctlx = calloc((size_t)c->nfn + 1, sizeof *c->ctlx);
    if (!c->match || !stack || !c->fn_head || !c->fn_next || !c->ctlx) {
        free(stack);
        c->oom = 1;
        return;
    }
    static const char opens[] = "([{", closes[] = ")]}";
    for (int kind = 0; kind < 3; kind++) {
        int top = 0;
        for (int k = 0; k < n; k++) {
            const struct clex_tok *t = &c->code.t[k];
            char ch = t->kind == CLEX_PUNCT && t->len == 1 ? c->src[t->pos] : 0;
            if (kind == 0)
                c->match[k] = -2;
            if (ch == opens[kind]) {
                c->match[k] = -1;
                stack[top++] = k;
            } else if (ch == closes[kind] && top > 0) {
                c->match[stack[--top]] = k;
            }
        }
    }
    free(stack);
    index_assignments(c);
    memset(c->fn_head, -1, (size_t)c->fn_hcap * sizeof *c->fn_head);
    for (int f = c->nfn - 1; f >= 0; f--) {     /* chains in the file's order */
        const struct clex_tok *t = &c->code.t[c->fn[f].name];
        unsigned h = name_hash(c->src + t->pos, t->len) % (unsigned)c->fn_hcap;
        c->fn_next[f] = c->fn_head[h];
        c->fn_head[h] = f;
    }
}

int pcu_fn_named(const struct ctx *c, const char *s, int n)
{
    if (!c->fn_head)
        return -1;
    int g = c->fn_head[name_hash(s, n) % (unsigned)c->fn_hcap];
    while (g >= 0 && !pcu_same_text(c, &c->code.t[c->fn[g].name], s, n))
        g = c->fn_next[g];
    return g;
}

int pcu_fn_next(const struct ctx *c, int g)
{
    const struct clex_tok *t = &c->code.t[c->fn[g].name];
    for (g = c->fn_next[g]; g >= 0 && !pcu_same_text(c, &c->code.t[c->fn[g].name],
                                                      c->src + t->pos, t->len);)
        g = c->fn_next[g];
    return g;
}

void pcu_read_free(struct ctx *c)
{
    free(c->ctlx);                      /* its spans: pattern_cuda_close */
    free(c->match);
    free(c->fn_head);
    free(c->fn_next);
    free(c->asg_head);
    free(c->asg_next);
    free(c->code.t);
    free(c->defs.t);
    free(c->def);
    free(c->fn);
    free(c->decl);
    free(c->type);
}
