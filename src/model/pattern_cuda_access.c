/* pattern_cuda_access.c: the shared-memory accesses of one line of CUDA source: an array
 * (or a pointer carved from one, or a helper's parameter bound to one) indexed, with its
 * members; the same array through a pointer cast (reinterpret_cast<float4 *>(s)[i],
 * ((float4 *)s)[i], *(float4 *)&s[i], *reinterpret_cast<const float4 *>(&s[i])); loads,
 * stores and read-writes told apart; and what else the line holds when it has none (an
 * address for an atomic or asm). Pure C: libc and src/base only. */
#include <string.h>

#include "../base/fmt.h"
#include "pattern_cuda_internal.h"

/* ---------------------------------------------------------------- the line's accesses */

/* the '*' at token k is unary (a dereference), not a multiplication */
static int unary_star(const struct ctx *c, int k)
{
    if (!pcu_cis(c, k, "*"))
        return 0;
    if (k == 0)
        return 1;
    const struct clex_tok *p = &c->code.t[k - 1];
    if (p->kind == CLEX_NUMBER || p->kind == CLEX_STRING || pcu_cis(c, k - 1, ")") ||
        pcu_cis(c, k - 1, "]"))
        return 0;
    return p->kind != CLEX_IDENT || pcu_cis(c, k - 1, "return");
}

/* tokens [a, b) are a pointer type: words then one or more '*' ((float4 *), (const T *)) */
static int pointer_type(const struct ctx *c, int a, int b)
{
    int words = 0, stars = 0;
    for (int k = a; k < b; k++) {
        if (c->code.t[k].kind == CLEX_IDENT && !stars)
            words++;
        else if (pcu_cis(c, k, "*"))
            stars++;
        else if (!pcu_cis(c, k, "const") && !pcu_cis(c, k, "volatile") &&
                 !pcu_cis(c, k, "__restrict__"))
            return 0;
    }
    return words > 0 && stars > 0;
}

/* the end of the member selections .a.b or ->a from token e */
static int members_end(const struct ctx *c, int e)
{
    while ((pcu_cis(c, e, ".") || pcu_cis(c, e, "->")) && e + 1 < c->code.n &&
           c->code.t[e + 1].kind == CLEX_IDENT)
        e += 2;
    return e;
}

/* a shared pointer expression [lo, hi) (a name, &name[i]) inside casts of line [a, b):
 * reinterpret_cast<float4 *>(s)[i], ((float4 *)s)[i], *(float4 *)&s[i],
 * *reinterpret_cast<const float4 *>(&s[i]), *(float4 *)(s + 4 * i), *(s + i): the access's
 * tokens [*from, *to); 0 when the expression is neither cast nor offset, or is not then
 * indexed or dereferenced */
static int cast_access(const struct ctx *c, int lo, int hi, int a, int b, int *from, int *to)
{
    int casts = 0;
    if (pcu_cis(c, lo - 1, "(") && (pcu_cis(c, hi, "+") || pcu_cis(c, hi, "-"))) {
        /* (s + 4 * lane): pointer arithmetic, the whole parenthesis */
        int close = pcu_match(c, &c->code, lo - 1, b);
        if (close > hi && close < b && pcu_cis(c, close, ")")) {
            hi = close;
            casts++;
        }
    }
    for (int guard = 0; guard < 16; guard++) {
        if (pcu_cis(c, lo - 1, ")")) {                      /* (T *) X */
            int lp = pcu_match_back(c, lo - 1);
            if (lp >= a && pointer_type(c, lp + 1, lo - 1)) {
                lo = lp;
                casts++;
                continue;
            }
        }
        if (pcu_cis(c, lo - 1, "(") && pcu_cis(c, hi, ")") && hi < b) {
            int gt = lo - 2, lt = -1;
            for (int q = gt - 1, depth = 0; pcu_cis(c, gt, ">") && q > a && lt < 0; q--) {
                if (pcu_cis(c, q, ">"))
                    depth++;
                else if (pcu_cis(c, q, "<") && depth-- == 0)
                    lt = q;
            }
            if (lt > a && clex_word_in(c->src, &c->code.t[lt - 1], pcu_cpp_casts)) {
                lo = lt - 1;                                  /* reinterpret_cast<T *>(X) */
                hi++;
                casts++;
                continue;
            }
            if (lo - 2 >= a && c->code.t[lo - 2].kind == CLEX_IDENT &&
                !pcu_cis(c, lo - 2, "return"))
                break;                                        /* f(X): an argument */
            lo--;                                             /* (X) */
            hi++;
            continue;
        }
        break;
    }
    if (!casts)
        return 0;
    if (pcu_cis(c, hi, "[") && hi < b) {
        int e = hi;
        while (e < b && pcu_cis(c, e, "["))
            e = pcu_match(c, &c->code, e, c->code.n) + 1;
        *from = lo;
        *to = members_end(c, e);
        return 1;
    }
    if (lo - 1 >= a && unary_star(c, lo - 1)) {
        *from = lo - 1;
        *to = hi;
        return 1;
    }
    return 0;
}


/* the accesses of shared memory on the line (tokens [a, b) of function fn); *why_kind says
 * what else was there when there is none: 1 an address (&s[i]), 2 an atomic, 3 inline asm */
int pcu_line_accesses(struct ctx *c, int fn, int a, int b, struct access *acc, int max,
                         int *why_kind, char *what, size_t wsz)
{
    const char *const *rmw = pcu_assign_ops + 1;       /* a read and a write: ++ -- last */
    int n = 0;
    *why_kind = 0;
    for (int k = a; k < b; k++) {
        const struct clex_tok *t = &c->code.t[k];
        if (pcu_cis(c, k, "asm") || pcu_cis(c, k, "__asm__") || pcu_cis(c, k, "__asm"))
            *why_kind = *why_kind ? *why_kind : 3;
        if (t->kind != CLEX_IDENT || pcu_cis(c, k - 1, ".") || pcu_cis(c, k - 1, "->"))
            continue;
        int di = pcu_lookup_decl(c, c->src + t->pos, t->len, k, fn);
        if (di >= 0 ? !pcu_is_shared(c, di, 0)
                    : !pcu_param_shared(c, fn, c->src + t->pos, t->len, 0))
            continue;
        int cf, ct;
        if (!pcu_cis(c, k + 1, "[")) {
            /* reinterpret_cast<float4 *>(s)[i], ((float4 *)s)[i] */
            if (n < max && cast_access(c, k, k + 1, a, b, &cf, &ct)) {
                acc[n] = (struct access){cf, ct, pcu_cis(c, ct, "=") ? A_STORE : A_LOAD, -1, 0};
                for (int o = 0; rmw[o]; o++)
                    if (pcu_cis(c, ct, rmw[o]) || (o >= 10 && pcu_cis(c, cf - 1, rmw[o])))
                        acc[n].kind = A_BOTH;
                n++;
            }
            continue;
        }
        int e = k + 1;
        while (e < c->code.n && pcu_cis(c, e, "["))
            e = pcu_match(c, &c->code, e, c->code.n) + 1;
        int sel = e;
        e = members_end(c, e);
        if (pcu_cis(c, k - 1, "&") && n < max && cast_access(c, k - 1, sel, a, b, &cf, &ct)) {
            /* *(float4 *)&s[i], *reinterpret_cast<const float4 *>(&s[i]) */
            acc[n] = (struct access){cf, ct, pcu_cis(c, ct, "=") ? A_STORE : A_LOAD, -1, 0};
            for (int o = 0; rmw[o]; o++)
                if (pcu_cis(c, ct, rmw[o]) || (o >= 10 && pcu_cis(c, cf - 1, rmw[o])))
                    acc[n].kind = A_BOTH;
            n++;
            k = sel - 1;
            continue;
        }
        if (pcu_cis(c, k - 1, "&")) {
            /* an address: of an atomic, or for inline asm */
            int call = -1;
            for (int p = k - 2, depth = 0; p >= a; p--) {
                if (pcu_cis(c, p, ")"))
                    depth++;
                else if (pcu_cis(c, p, "(") && depth-- == 0) {
                    call = p - 1;
                    break;
                }
            }
            int atomic = call >= 0 && c->code.t[call].len > 6 &&
                         !memcmp(c->src + c->code.t[call].pos, "atomic", 6);
            int helper = 0;         /* an argument of a function of the file: its lines count */
            for (int f = 0; call >= 0 && f < c->nfn && !helper; f++)
                helper = pcu_same_text(c, &c->code.t[c->fn[f].name],
                                       c->src + c->code.t[call].pos, c->code.t[call].len);
            if (!helper && (*why_kind == 0 || *why_kind == 1)) {
                *why_kind = atomic ? 2 : 1;
                if (call >= 0)
                    bl_fmt(what, wsz, "%.*s", c->code.t[call].len, c->src + c->code.t[call].pos);
                else
                    bl_fmt(what, wsz, "&%.*s", t->len, c->src + t->pos);
            }
            k = e - 1;
            continue;
        }
        if (n < max) {
            acc[n].from = k;
            acc[n].to = e;
            acc[n].decl = di;
            acc[n].whole = e == sel;
            acc[n].kind = pcu_cis(c, e, "=") ? A_STORE : A_LOAD;
            for (int o = 0; rmw[o]; o++)
                if (pcu_cis(c, e, rmw[o]) || (o >= 10 && pcu_cis(c, k - 1, rmw[o])))
                    acc[n].kind = A_BOTH;
            n++;
        }
        /* indices inside are looked at too: s[s2[i]] has two accesses */
    }
    return n;
}
