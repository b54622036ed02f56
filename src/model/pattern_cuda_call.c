/* pattern_cuda_call.c: what a line inside a __device__ helper or a template needs of the
 * file: the call paths from the kernel to the helper (each a chain of frames, the caller's
 * call token for each), the argument a helper's parameter is bound to at that call, and the
 * template parameters of a function with the arguments written in --name ('carve4<32>').
 * A walk over pattern_cuda_read.c's tokens, not a C++ parser. Pure C: libc and src/base. */
#include <string.h>

#include "pattern_cuda_internal.h"

#define MAX_PATHS 64

/* ---------------------------------------------------------------- comma lists */

/* item i of the comma list [from, to) (commas inside brackets do not count): [*a, *b) */
int pcu_list_item(const struct ctx *c, int from, int to, int i, int *a, int *b)
{
    int start = from, idx = 0, angle = 0;
    for (int k = from; k <= to; k++) {
        if (k < to && (pcu_cis(c, k, "(") || pcu_cis(c, k, "[") || pcu_cis(c, k, "{"))) {
            k = pcu_match(c, &c->code, k, to);
            continue;
        }
        if (k < to && pcu_cis(c, k, "<"))
            angle++;
        else if (k < to && pcu_cis(c, k, ">") && angle > 0)
            angle--;
        if (k < to && !(pcu_cis(c, k, ",") && angle == 0))
            continue;
        if (idx == i) {
            *a = start;
            *b = k;
            return k > start ? 0 : -1;
        }
        idx++;
        start = k + 1;
    }
    return -1;
}

int pcu_param_index(const struct ctx *c, int fn, int name)
{
    if (fn < 0)
        return -1;
    const struct cfunc *f = &c->fn[fn];
    for (int i = 0; i < PCU_MAX_PARAMS; i++) {
        int a, b;
        if (pcu_list_item(c, f->lparen + 1, f->rparen, i, &a, &b))
            return -1;
        if (name >= a && name < b)
            return i;
    }
    return -1;
}

/* the '(' of the call whose name is token k (f(...) or f<...>(...)), or -1 */
static int call_paren(const struct ctx *c, int k)
{
    if (pcu_cis(c, k + 1, "("))
        return k + 1;
    if (!pcu_cis(c, k + 1, "<"))
        return -1;
    int close = clex_close(c->src, c->code.t, k + 1, c->code.n);
    return close > 0 && pcu_cis(c, close + 1, "(") ? close + 1 : -1;
}

int pcu_call_arg(const struct ctx *c, int call, int i, int *a, int *b)
{
    int lp = call < 0 ? -1 : call_paren(c, call);
    if (lp < 0)
        return -1;
    int close = pcu_match(c, &c->code, lp, c->code.n);
    return pcu_list_item(c, lp + 1, close, i, a, b);
}

void pcu_call_targs(const struct ctx *c, int call, char *buf, size_t size)
{
    buf[0] = 0;
    int lp = call < 0 ? -1 : call_paren(c, call);
    if (lp <= call + 1 || size < 2)
        return;
    int from = c->code.t[call + 1].pos, to = c->code.t[lp - 1].pos + 1;
    if ((size_t)(to - from) < size) {
        memcpy(buf, c->src + from, (size_t)(to - from));
        buf[to - from] = 0;
    }
}

/* ---------------------------------------------------------------- call paths */

int pcu_frame_of(const struct ctx *c, int fn)
{
    for (int i = 0; i < c->nframe; i++)
        if (c->frame[i].fn == fn)
            return i;
    return -1;
}

struct walk {
    struct ctx *c;
    int target, want, count;
    struct pcu_frame stack[PCU_MAX_FRAMES];
    int depth;               /* stack[0 .. depth] */
};

static void dfs(struct walk *w)
{
    struct ctx *c = w->c;
    int f = w->stack[w->depth].fn;
    if (w->count >= MAX_PATHS)
        return;
    if (f == w->target) {
        if (w->count == w->want) {
            memcpy(c->frame, w->stack, sizeof w->stack);
            c->nframe = w->depth + 1;
        }
        w->count++;
        return;
    }
    if (w->depth + 1 >= PCU_MAX_FRAMES)
        return;
    for (int k = c->fn[f].open + 1; k < c->fn[f].close && w->count < MAX_PATHS; k++) {
        const struct clex_tok *t = &c->code.t[k];
        if (t->kind != CLEX_IDENT || call_paren(c, k) < 0 || pcu_cis(c, k - 1, ".") ||
            pcu_cis(c, k - 1, "->"))
            continue;
        for (int g = pcu_fn_named(c, c->src + t->pos, t->len); g >= 0; g = pcu_fn_next(c, g)) {
            int on = 0;
            for (int d = 0; d <= w->depth; d++)
                on |= w->stack[d].fn == g;
            if (on)
                continue;
            w->depth++;
            w->stack[w->depth] = (struct pcu_frame){g, k};
            dfs(w);
            w->depth--;
        }
    }
}

int pcu_paths(struct ctx *c, int kfn, int fn, int want)
{
    if (kfn < 0 || fn < 0)
        return 0;
    struct walk w;
    memset(&w, 0, sizeof w);
    w.c = c;
    w.target = fn;
    w.want = want;
    w.stack[0] = (struct pcu_frame){kfn, -1};
    dfs(&w);
    return w.count;
}

/* ---------------------------------------------------------------- bound parameters */

int pcu_param_shared(const struct ctx *c, int fn, const char *s, int n, int depth)
{
    int fr = pcu_frame_of(c, fn), first, last, a, b;
    if (fr <= 0 || depth > 8)
        return 0;
    int name = pcu_lookup_param(c, fn, s, n, &first, &last);
    int i = name >= 0 ? pcu_param_index(c, fn, name) : -1;
    if (i < 0 || pcu_call_arg(c, c->frame[fr].call, i, &a, &b))
        return 0;
    int caller = c->frame[fr - 1].fn, call = c->frame[fr].call;
    for (int k = a; k < b; k++) {
        const struct clex_tok *t = &c->code.t[k];
        if (t->kind != CLEX_IDENT || pcu_cis(c, k - 1, ".") || pcu_cis(c, k - 1, "->"))
            continue;
        int di = pcu_lookup_decl(c, c->src + t->pos, t->len, call, caller);
        if (di >= 0 ? pcu_is_shared(c, di, depth + 1)
                    : pcu_param_shared(c, caller, c->src + t->pos, t->len, depth + 1))
            return 1;
    }
    return 0;
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
        const struct clex_tok *t = &c->code.t[k];
        if (t->kind != CLEX_IDENT || pcu_cis(c, k - 1, ".") || pcu_cis(c, k - 1, "->"))
            continue;
        int e = pcu_lookup_decl(c, c->src + t->pos, t->len, d->name, d->fn);
        if (e >= 0 && e != di && pcu_is_shared(c, e, depth + 1))
            return 1;
        if (e < 0 && pcu_param_shared(c, d->fn, c->src + t->pos, t->len, depth + 1))
            return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- template parameters */

int pcu_tparam(const struct ctx *c, int fn, const char *s, int n, int *a, int *b)
{
    if (fn < 0 || c->fn[fn].tmpl_from < 0)
        return -1;
    for (int i = 0; i < PCU_MAX_PARAMS; i++) {
        if (pcu_list_item(c, c->fn[fn].tmpl_from, c->fn[fn].tmpl_to, i, a, b))
            return -1;
        int name = -1;
        for (int k = *a; k < *b && !pcu_cis(c, k, "="); k++)
            if (c->code.t[k].kind == CLEX_IDENT)
                name = k;
        if (name >= 0 && pcu_same_text(c, &c->code.t[name], s, n))
            return i;
    }
    return -1;
}

int pcu_targ(const char *name, int i, const char **s, int *n)
{
    const char *lt = name ? strchr(name, '<') : NULL, *gt = name ? strrchr(name, '>') : NULL;
    if (!lt || !gt || gt < lt)
        return -1;
    const char *p = lt + 1;
    for (int idx = 0, depth = 0; p <= gt; idx++) {
        const char *q = p;
        while (q < gt && !(*q == ',' && depth == 0)) {
            depth += *q == '<' || *q == '(';
            depth -= (*q == '>' || *q == ')') && depth > 0;
            q++;
        }
        if (idx == i) {
            while (p < q && *p == ' ')
                p++;
            while (q > p && q[-1] == ' ')
                q--;
            *s = p;
            *n = (int)(q - p);
            return q > p ? 0 : -1;
        }
        p = q + 1;
    }
    return -1;
}

void pcu_file_targs(const struct ctx *c, int fn, char *buf, size_t size)
{
    buf[0] = 0;
    if (fn < 0 || c->fn[fn].tmpl_from < 0 || size < 2)
        return;
    const struct clex_tok *nm = &c->code.t[c->fn[fn].name];
    for (int k = 0; k + 1 < c->code.n; k++) {
        const struct clex_tok *t = &c->code.t[k];
        if (k == c->fn[fn].name || t->kind != CLEX_IDENT ||
            !pcu_same_text(c, t, c->src + nm->pos, nm->len) || !pcu_cis(c, k + 1, "<"))
            continue;
        int close = clex_close(c->src, c->code.t, k + 1, c->code.n);
        if (close < 0 || close + 1 >= c->code.n || c->src[c->code.t[close + 1].pos] != '<')
            continue;                              /* not a launch: name<...><<<...>>> */
        int from = c->code.t[k + 1].pos, to = c->code.t[close].pos + 1;
        size_t n = (size_t)(to - from);
        if (buf[0] && (strlen(buf) != n || memcmp(buf, c->src + from, n))) {
            buf[0] = 0;                            /* two instances: --name must say which */
            return;
        }
        if (n >= size)
            return;
        memcpy(buf, c->src + from, n);
        buf[n] = 0;
    }
}
