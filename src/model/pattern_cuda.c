/* pattern_cuda.c: a line of CUDA source as a pattern (pattern_cuda.h), over the file as
 * pattern_cuda_read.c reads it: take the line's accesses of shared arrays (and of pointers
 * carved from them), then resolve every name their indices use into declarations to emit, in
 * source order, or a reason why the pattern language cannot know it. The text is checked with
 * pattern_parse. Pure C: libc and src/base only. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "pattern_cuda_internal.h"

/* ---------------------------------------------------------------- text */

struct buf {
    char *s;
    size_t size, n;
    int full;
};

static void put(struct buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->size) {
        b->full = 1;
        return;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

static void puts_(struct buf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* integer typedefs of CUDA code the pattern language knows by their C names */
static const char *const type_alias[][2] = {
    {"size_t", "unsigned long"}, {"uint32_t", "unsigned"}, {"int32_t", "int"},
    {"uint64_t", "unsigned long long"}, {"int64_t", "long long"}, {"uint16_t", "unsigned short"},
    {"int16_t", "short"}, {"uint8_t", "unsigned char"}, {"int8_t", "char"}, {"bool", "int"},
    {"auto", "long long"}, {"ptrdiff_t", "long"}, {NULL, NULL}};

/* blockIdx.x (y, z) and gridDim.x at token k of v: the number the playground takes (blockIdx
 * 0, the first block; gridDim the launch's), else -1 */
static long long block_builtin(const struct ctx *c, const struct clex_toks *v, int k)
{
    if (k + 2 >= v->n || v->t[k].kind != CLEX_IDENT || !clex_is(c->src, &v->t[k + 1], ".") ||
        v->t[k + 2].len != 1)
        return -1;
    int d = c->src[v->t[k + 2].pos] - 'x';
    if (d < 0 || d > 2)
        return -1;
    if (clex_is(c->src, &v->t[k], "blockIdx"))
        return c->launch->block_idx[d];
    if (clex_is(c->src, &v->t[k], "gridDim"))
        return c->launch->grid[d] ? c->launch->grid[d] : 1;
    return -1;
}

static const char *const cpp_casts[] = {"reinterpret_cast", "static_cast", "const_cast", NULL};

/* reinterpret_cast<T>(E) (static_cast, const_cast) at token k of v, within [k, to): its '>'
 * and the ')' closing (E); 0 when it is not one */
static int cpp_cast(const struct ctx *c, const struct clex_toks *v, int k, int to, int *gt,
                    int *rp)
{
    if (k + 1 >= to || !clex_word_in(c->src, &v->t[k], cpp_casts) ||
        !clex_is(c->src, &v->t[k + 1], "<"))
        return 0;
    *gt = clex_close(c->src, v->t, k + 1, to);
    if (*gt < 0 || *gt + 1 >= to || !clex_is(c->src, &v->t[*gt + 1], "("))
        return 0;
    *rp = clex_close(c->src, v->t, *gt + 1, to);
    return *rp > 0;
}

/* tokens [from, to) of v as text: one space where the source had blanks or a comment;
 * reinterpret_cast<T>(E) as ((T)(E)), which the pattern language reads */
static void put_tokens(const struct ctx *c, const struct clex_toks *v, int from, int to,
                       struct buf *b, int map_types)
{
    for (int k = from; k < to; k++) {
        const struct clex_tok *t = &v->t[k];
        if (k > from && t->pos > v->t[k - 1].pos + v->t[k - 1].len)
            puts_(b, " ");
        int gt, rp;
        if (clex_is(c->src, t, "__restrict__") || clex_is(c->src, t, "__restrict"))
            continue;
        if (cpp_cast(c, v, k, to, &gt, &rp)) {
            puts_(b, "((");
            put_tokens(c, v, k + 2, gt, b, 1);
            puts_(b, ")(");
            put_tokens(c, v, gt + 2, rp, b, map_types);
            puts_(b, "))");
            k = rp;
            continue;
        }
        long long bv = block_builtin(c, v, k);
        if (bv >= 0 && k + 2 < to) {
            char num[24];
            bl_fmt(num, sizeof num, "%lld", bv);
            puts_(b, num);
            k += 2;
            continue;
        }
        const char *s = c->src + t->pos;
        size_t n = (size_t)t->len;
        for (int a = 0; map_types && t->kind == CLEX_IDENT && type_alias[a][0]; a++)
            if (clex_is(c->src, t, type_alias[a][0])) {
                s = type_alias[a][1];
                n = strlen(s);
            }
        put(b, s, n);
    }
}

static int loop_of_decl(const struct ctx *c, int di)
{
    for (int i = 0; i < c->nloop; i++)
        if (c->loop[i].decl == di)
            return i;
    return -1;
}

/* an enclosing loop's variable at its trip: (init) + trip * (step), or * / << >> */
static void put_trip(const struct ctx *c, const struct cdecl *d, const struct pcu_loop *l,
                     struct buf *b)
{
    char num[24];
    puts_(b, "(");
    put_tokens(c, &c->code, d->init, d->init_end, b, 0);
    puts_(b, ")");
    bl_fmt(num, sizeof num, "%lld", l->trip);
    if (l->op == '*' || l->op == '/') {
        for (long long t = 0; t < l->trip && !b->full; t++) {
            puts_(b, l->op == '*' ? " * (" : " / (");
            put_tokens(c, &c->code, l->step_from, l->step_to, b, 0);
            puts_(b, ")");
        }
        return;
    }
    puts_(b, l->op == '+' ? " + " : l->op == '-' ? " - " : l->op == 'l' ? " << " : " >> ");
    puts_(b, num);
    if (l->step_to > l->step_from) {
        puts_(b, " * (");
        put_tokens(c, &c->code, l->step_from, l->step_to, b, 0);
        puts_(b, ")");
    }
}

/* ---------------------------------------------------------------- resolving names */

static int resolve(struct ctx *c, const struct clex_toks *v, int from, int to, int use, int fn);
static int need_type(struct ctx *c, int ti);
static int resolve_types(struct ctx *c, int from, int to, int use, int fn);
static int resolve_names(struct ctx *c, const struct clex_toks *v, int from, int to, int use,
                         int fn);

static const char *const known_words[] = {
    "int", "unsigned", "signed", "short", "long", "char", "float", "double", "bool", "const",
    "volatile", "sizeof", "struct", "half", "__half", "half2", "__half2", "float2", "float3",
    "float4", "int2", "int3", "int4", "uint2", "uint4", "double2", "longlong2", "void",
    "size_t", "uint32_t", "int32_t", "uint64_t", "int64_t", "uint16_t", "int16_t", "uint8_t",
    "int8_t", "__restrict__", "min", "max", "reinterpret_cast", "static_cast", "const_cast",
    "uint3", NULL};

/* what changes a variable: '=', the compound assignments, then ++ and -- (the last two) */
static const char *const assign_ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
                                         "<<=", ">>=", "++", "--", NULL};

static int vis(const struct ctx *c, const struct clex_toks *v, int k, const char *w)
{
    return k >= 0 && k < v->n && clex_is(c->src, &v->t[k], w);
}

/* the line where a local's value changes between its declaration and the line, or 0 */
static int reassigned(const struct ctx *c, const struct cdecl *d)
{
    const char *const *ops = assign_ops;
    const struct clex_tok *nm = &c->code.t[d->name];
    for (int k = d->init_end; k < c->use; k++) {
        const struct clex_tok *t = &c->code.t[k];
        if (t->kind != CLEX_IDENT || !pcu_same_text(c, t, c->src + nm->pos, nm->len) ||
            pcu_cis(c, k - 1, ".") || pcu_cis(c, k - 1, "->"))
            continue;
        if (pcu_cis(c, k - 1, "++") || pcu_cis(c, k - 1, "--"))
            return t->line;
        for (int o = 0; ops[o]; o++)
            if (pcu_cis(c, k + 1, ops[o]))
                return t->line;
    }
    return 0;
}

static int need_decl(struct ctx *c, int di, const char *name)
{
    const struct cdecl *d = &c->decl[di];
    int line = c->code.t[d->name].line;
    if (c->decl_need[di])
        return 0;
    c->decl_need[di] = 1;
    if (resolve_types(c, d->type_from, d->type_end, d->name, d->fn) ||
        resolve_types(c, d->dstart, d->name, d->name, d->fn))
        return -1;
    if (d->shared) {
        if (d->is_extern && c->launch->dyn_bytes == 0)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_IS_EXTERN_SHARED_AND_THE, name);
        /* the pattern language lays static arrays out in declaration order: the ones declared
         * before this one come too, so it starts where it would */
        for (int e = 0; e < c->ndecl && !d->is_extern; e++) {
            const struct cdecl *o = &c->decl[e];
            if (o->shared && !o->is_extern && o->name < d->name && (o->fn == d->fn || o->fn < 0)) {
                char oname[PATTERN_NAME_MAX * 2];
                const struct clex_tok *t = &c->code.t[o->name];
                bl_fmt(oname, sizeof oname, "%.*s", t->len, c->src + t->pos);
                if (need_decl(c, e, oname))
                    return -1;
            }
        }
        return resolve(c, &c->code, d->dims_from, d->dims_to, d->name, d->fn);
    }
    if (d->dims_to > d->dims_from)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_LINE_IS_A_LOCAL_ARRAY, name, line);
    if (d->init < 0)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_HAS_NO_VALUE_WHERE_IT, name, line);
    if (d->loop) {
        if (!c->out->note.id && !c->launch->control) {
            char first[PATTERN_MSG_MAX];
            struct buf b = {first, sizeof first, 0, 0};
            first[0] = 0;
            put_tokens(c, &c->code, d->init, d->init_end, &b, 0);
            bl_msg_set(&c->out->note, NULL, 0, CU_NOTE_LOOP, name,
                       name, first);
        }
    } else {
        int at = reassigned(c, d);
        if (at)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_CHANGES_AT_LINE_AFTER_ITS, name, at, line);
    }
    return resolve(c, &c->code, d->init, d->init_end, d->name, d->fn);
}

/* a scalar kernel parameter: its --arg value into the environment */
static int need_param(struct ctx *c, int fn, int first, int last, const char *name)
{
    for (int k = first; k < last; k++)
        if (pcu_cis(c, k, "*") || pcu_cis(c, k, "["))
            return bl_fail(c->err, -1, BL_NOWHERE, CU_POINTS_TO_GLOBAL_MEMORY_A, name, c->code.t[c->fn[fn].name].len,
                        c->src + c->code.t[c->fn[fn].name].pos);
    const struct pattern_cuda_launch *l = c->launch;
    for (int i = 0; i < l->nargs; i++) {
        if (strcmp(l->arg_name[i], name))
            continue;
        char *end;
        errno = 0;
        long long v = strtoll(l->arg_value[i], &end, 0);
        if (errno || end == l->arg_value[i] || *end)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_IS_NOT_AN_INTEGER_THE, name, l->arg_value[i]);
        if (pattern_env_set(&c->out->env, name, v) != 0)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_TOO_MANY_PARAMETERS_FOR_THE,
                        PATTERN_MAX_PARAMS);
        return 0;
    }
    return bl_fail(c->err, -1, BL_NOWHERE, CU_THE_KERNEL_PARAMETER_HAS_NO, name, name);
}

/* ---------------------------------------------------------------- types, templates, helpers */

static int need_tparam(struct ctx *c, int fn, int i, int a, int b, const char *name);

/* the type names among the words [from, to) of the code (a declaration's type, a struct's
 * members, a parameter's type): the file's structs and typedefs, fn's template parameters,
 * #defines (a member's array size) */
static int resolve_types(struct ctx *c, int from, int to, int use, int fn)
{
    for (int k = from; k < to; k++) {
        const struct clex_tok *t = &c->code.t[k];
        if (t->kind != CLEX_IDENT || pcu_cis(c, k - 1, ".") || clex_word_in(c->src, t, known_words))
            continue;
        char name[PATTERN_NAME_MAX * 2];
        bl_fmt(name, sizeof name, "%.*s", t->len, c->src + t->pos);
        int ti = pcu_lookup_type(c, c->src + t->pos, t->len, use), a, b, i;
        if (ti >= 0) {
            if (need_type(c, ti))
                return -1;
        } else if ((i = pcu_tparam(c, fn, c->src + t->pos, t->len, &a, &b)) >= 0) {
            if (need_tparam(c, fn, i, a, b, name))
                return -1;
        } else {
            int de = pcu_lookup_define(c, c->src + t->pos, t->len);
            if (de >= 0 && !c->def[de].with_args && !c->def_need[de]) {
                c->def_need[de] = 1;
                if (resolve(c, &c->defs, c->def[de].from, c->def[de].to, use, fn))
                    return -1;
            }
        }
    }
    return 0;
}

/* a struct, typedef or using of the file: it and the types it is made of */
static int need_type(struct ctx *c, int ti)
{
    if (c->type_need[ti])
        return 0;
    c->type_need[ti] = 1;
    const struct ctypedef *d = &c->type[ti];
    if (d->kind == PCU_STRUCT) {
        for (int k = d->open + 1; k < d->close; k++)
            if (pcu_cis(c, k, "(")) {
                const struct clex_tok *t = &c->code.t[d->name];
                return bl_fail(c->err, -1, BL_NOWHERE, CU_STRUCT_WITH_FUNCTIONS, t->len,
                               c->src + t->pos);
            }
        return resolve_types(c, d->open + 1, d->close, d->name, d->fn);
    }
    return resolve_types(c, d->stmt + 1, d->end, d->name, d->fn);
}

/* the words of a text outside the file (a template argument of --name): its types and
 * #defines */
static int resolve_text(struct ctx *c, const char *s, int n)
{
    for (int i = 0; i < n;) {
        if (!clex_alpha((unsigned char)s[i])) {
            i++;
            continue;
        }
        int j = i;
        while (j < n && clex_alnum((unsigned char)s[j]))
            j++;
        int ti = pcu_lookup_type(c, s + i, j - i, c->code.n), de;
        if (ti >= 0 && need_type(c, ti))
            return -1;
        if (ti < 0 && (de = pcu_lookup_define(c, s + i, j - i)) >= 0 && !c->def[de].with_args &&
            !c->def_need[de]) {
            c->def_need[de] = 1;
            if (resolve(c, &c->defs, c->def[de].from, c->def[de].to, c->use, -1))
                return -1;
        }
        i = j;
    }
    return 0;
}

/* template parameter i (tokens [a, b) of its list) of function fn: the kernel's from the
 * arguments of --name, else its default */
static int need_tparam(struct ctx *c, int fn, int i, int a, int b, const char *name)
{
    int fr = pcu_frame_of(c, fn);
    if (fr < 0 || i >= PCU_MAX_PARAMS)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_IS_NOT_DECLARED_IN_THIS, name, c->line);
    if (c->tparam_need[fr][i])
        return 0;
    c->tparam_need[fr][i] = 1;
    const char *s;
    int n;
    if (fr == 0 && pcu_targ(c->launch->name, i, &s, &n) == 0)
        return resolve_text(c, s, n);
    for (int k = a; k < b; k++)
        if (pcu_cis(c, k, "="))
            return resolve(c, &c->code, k + 1, b, c->use, -1);
    const struct clex_tok *f = &c->code.t[c->fn[fn].name];
    return bl_fail(c->err, -1, BL_NOWHERE, CU_TEMPLATE_PARAMETER, name, f->len, c->src + f->pos,
                   f->len, c->src + f->pos);
}

/* parameter `name` (token) of helper fn in frame fr > 0: the argument of the call; the same
 * name passed on (warpReduce(sdata, tid)) is the caller's, else a local of the argument */
static int need_bind(struct ctx *c, int fr, int fn, int name, int first)
{
    int i = pcu_param_index(c, fn, name), a, b;
    const struct clex_tok *t = &c->code.t[name];
    char nm[PATTERN_NAME_MAX * 2];
    bl_fmt(nm, sizeof nm, "%.*s", t->len, c->src + t->pos);
    if (i < 0 || i >= PCU_MAX_PARAMS || pcu_call_arg(c, c->frame[fr].call, i, &a, &b))
        return bl_fail(c->err, -1, BL_NOWHERE, CU_HELPER_ARGUMENT, nm);
    if (c->bind_need[fr][i])
        return 0;
    int caller = c->frame[fr - 1].fn, call = c->frame[fr].call;
    if (b - a == 1 && pcu_same_text(c, &c->code.t[a], c->src + t->pos, t->len))
        return resolve(c, &c->code, a, b, call, caller);
    c->bind_need[fr][i] = 1;
    for (int k = first; k < name; k++)
        if (pcu_cis(c, k, "&") || pcu_cis(c, k, "["))
            return bl_fail(c->err, -1, BL_NOWHERE, CU_HELPER_ARGUMENT, nm);
    if (resolve_types(c, first, name, name, fn))
        return -1;
    return resolve(c, &c->code, a, b, call, caller);
}

/* every name the tokens [from, to) of v use, looked up at token `use` of function fn */
static int resolve(struct ctx *c, const struct clex_toks *v, int from, int to, int use, int fn)
{
    if (++c->depth > MAX_DEPENDS)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_THE_INDEX_DEPENDS_ON_A, MAX_DEPENDS);
    int rc = resolve_names(c, v, from, to, use, fn);
    c->depth--;
    return rc;
}

static int resolve_names(struct ctx *c, const struct clex_toks *v, int from, int to, int use,
                         int fn)
{
    for (int k = from; k < to; k++) {
        const struct clex_tok *t = &v->t[k];
        if (t->kind != CLEX_IDENT || vis(c, v, k - 1, ".") || vis(c, v, k - 1, "->"))
            continue;
        char name[PATTERN_NAME_MAX * 2];
        bl_fmt(name, sizeof name, "%.*s", t->len, c->src + t->pos);
        if (!strcmp(name, "threadIdx") || !strcmp(name, "blockDim") ||
            !strcmp(name, "warpSize") || clex_word_in(c->src, t, known_words))
            continue;
        if (block_builtin(c, v, k) >= 0) {
            if (!strcmp(name, "blockIdx"))
                c->out->block_dep = 1;
            if (!strcmp(name, "blockIdx") && !c->out->note.id && !c->launch->control)
                bl_msg_set(&c->out->note, NULL, 0, CU_NOTE_BLOCKIDX);
            k += 2;
            continue;
        }
        int de = pcu_lookup_define(c, c->src + t->pos, t->len);
        if (de >= 0 && c->def[de].with_args)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_IS_A_MACRO_WITH_ARGUMENTS, name);
        if (vis(c, v, k + 1, "("))
            return bl_fail(c->err, -1, BL_NOWHERE, CU_THE_INDEX_CALLS_THE_PATTERN, name);
        int di = pcu_lookup_decl(c, c->src + t->pos, t->len, use, fn);
        if (di >= 0) {
            if (need_decl(c, di, name))
                return -1;
            continue;
        }
        int first, last, pn, fr = pcu_frame_of(c, fn), ti, a, b, i;
        if ((pn = pcu_lookup_param(c, fn, c->src + t->pos, t->len, &first, &last)) >= 0) {
            if (fr > 0 ? need_bind(c, fr, fn, pn, first) : need_param(c, fn, first, last, name))
                return -1;
            continue;
        }
        if (v == &c->code && (ti = pcu_lookup_type(c, c->src + t->pos, t->len, use)) >= 0) {
            if (need_type(c, ti))
                return -1;
            continue;
        }
        if ((i = pcu_tparam(c, fn, c->src + t->pos, t->len, &a, &b)) >= 0) {
            if (need_tparam(c, fn, i, a, b, name))
                return -1;
            continue;
        }
        if (de >= 0) {
            if (!c->def_need[de]) {
                c->def_need[de] = 1;
                if (resolve(c, &c->defs, c->def[de].from, c->def[de].to, use, fn))
                    return -1;
            }
            continue;
        }
        return bl_fail(c->err, -1, BL_NOWHERE, CU_IS_NOT_DECLARED_IN_THIS, name, c->line);
    }
    return 0;
}

/* ---------------------------------------------------------------- the line's accesses */

enum acc_kind { A_LOAD, A_STORE, A_BOTH };

struct access {
    int from, to;            /* tokens of the lvalue: name[..][..].member */
    int kind;
    int decl;                /* the array's declaration, -1 for a cast or a helper's parameter */
    int whole;               /* no member selected */
};

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
 * *reinterpret_cast<const float4 *>(&s[i]): the access's tokens [*from, *to); 0 when the
 * expression is not cast and then indexed or dereferenced */
static int cast_access(const struct ctx *c, int lo, int hi, int a, int b, int *from, int *to)
{
    int casts = 0;
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
            if (lt > a && clex_word_in(c->src, &c->code.t[lt - 1], cpp_casts)) {
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

#define MAX_LINE_ACCESSES 16

/* the accesses of shared memory on the line (tokens [a, b) of function fn); *why_kind says
 * what else was there when there is none: 1 an address (&s[i]), 2 an atomic, 3 inline asm */
static int line_accesses(struct ctx *c, int fn, int a, int b, struct access *acc, int max,
                         int *why_kind, char *what, size_t wsz)
{
    const char *const *rmw = assign_ops + 1;       /* a read and a write: ++ -- last */
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
            if (*why_kind == 0 || *why_kind == 1) {
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

/* ---------------------------------------------------------------- composing */

/* one needed declaration as pattern text */
static void put_decl(const struct ctx *c, const struct cdecl *d, struct buf *b)
{
    if (d->shared) {
        if (d->is_extern)
            puts_(b, "extern ");
        puts_(b, "__shared__ ");
        if (d->align_from >= 0 && pcu_cis(c, d->align_from, "__align__")) {
            put_tokens(c, &c->code, d->align_from, d->align_to, b, 0);
            puts_(b, " ");
        }
    } else if (d->is_const) {
        puts_(b, "const ");
    }
    put_tokens(c, &c->code, d->type_from, d->type_end, b, 1);
    puts_(b, " ");
    put_tokens(c, &c->code, d->dstart, d->dims_to, b, 0);
    if (!d->shared && d->init >= 0) {
        puts_(b, " = ");
        int li = loop_of_decl(c, (int)(d - c->decl));
        if (li >= 0)
            put_trip(c, d, &c->loop[li], b);
        else
            put_tokens(c, &c->code, d->init, d->init_end, b, 0);
    }
}

/* what the text declares, in an order where each comes after what it uses: the file's
 * (defines, types, file-scope arrays) first, then the kernel's (its template parameters, its
 * locals), then each helper's (its parameters bound to the call's arguments, its locals); by
 * position within each */
enum { I_DECL, I_DEF, I_TYPE, I_TPARAM, I_BIND };

struct item {
    int level, pos, kind, index, frame;
};

static int level_of(const struct ctx *c, int fn)
{
    int fr = fn < 0 ? -1 : pcu_frame_of(c, fn);
    return fr < 0 ? 0 : fr + 1;
}

static int cmp_item(const void *x, const void *y)
{
    const struct item *a = x, *b = y;
    if (a->level != b->level)
        return a->level - b->level;
    if (a->pos != b->pos)
        return a->pos - b->pos;
    return a->index - b->index;
}

/* the name of the list item [a, b) (a parameter): its last word before '=' */
static int item_name(const struct ctx *c, int a, int b)
{
    int name = -1;
    for (int k = a; k < b && !pcu_cis(c, k, "=") && !pcu_cis(c, k, "["); k++)
        if (c->code.t[k].kind == CLEX_IDENT)
            name = k;
    return name;
}

static void put_item(const struct ctx *c, const struct item *it, struct buf *b)
{
    int a, e;
    if (it->kind == I_DECL) {
        put_decl(c, &c->decl[it->index], b);
    } else if (it->kind == I_DEF) {
        const struct cdefine *d = &c->def[it->index];
        char head[PATTERN_NAME_MAX * 2 + 16];
        bl_fmt(head, sizeof head, "const int %.*s = ", d->name_len, c->src + d->name_pos);
        puts_(b, head);
        put_tokens(c, &c->defs, d->from, d->to, b, 0);
    } else if (it->kind == I_TYPE) {
        const struct ctypedef *d = &c->type[it->index];
        const struct clex_tok *nm = &c->code.t[d->name];
        if (d->kind == PCU_STRUCT) {
            puts_(b, "typedef struct ");
            put(b, c->src + nm->pos, (size_t)nm->len);
            puts_(b, " ");
            put_tokens(c, &c->code, d->open, d->close + 1, b, 1);
            puts_(b, " ");
            put(b, c->src + nm->pos, (size_t)nm->len);
        } else if (d->kind == PCU_TYPEDEF) {
            put_tokens(c, &c->code, d->stmt, d->end, b, 1);
        } else {
            puts_(b, "typedef ");
            put_tokens(c, &c->code, d->name + 2, d->end, b, 1);
            puts_(b, " ");
            put(b, c->src + nm->pos, (size_t)nm->len);
        }
    } else if (it->kind == I_TPARAM) {
        int fn = c->frame[it->frame].fn;
        if (pcu_list_item(c, c->fn[fn].tmpl_from, c->fn[fn].tmpl_to, it->index, &a, &e))
            return;
        int name = item_name(c, a, e), type = pcu_cis(c, a, "typename") || pcu_cis(c, a, "class");
        const struct clex_tok *nm = &c->code.t[name];
        const char *s;
        int n;
        puts_(b, type ? "typedef " : "const int ");
        if (!type) {
            put(b, c->src + nm->pos, (size_t)nm->len);
            puts_(b, " = ");
        }
        if (it->frame == 0 && pcu_targ(c->launch->name, it->index, &s, &n) == 0) {
            put(b, s, (size_t)n);
        } else {
            int k = a;
            while (k < e && !pcu_cis(c, k, "="))
                k++;
            put_tokens(c, &c->code, k + 1, e, b, 1);
        }
        if (type) {
            puts_(b, " ");
            put(b, c->src + nm->pos, (size_t)nm->len);
        }
    } else {
        int fn = c->frame[it->frame].fn, x, y;
        if (pcu_list_item(c, c->fn[fn].lparen + 1, c->fn[fn].rparen, it->index, &a, &e) ||
            pcu_call_arg(c, c->frame[it->frame].call, it->index, &x, &y))
            return;
        int name = item_name(c, a, e);
        put_tokens(c, &c->code, a, name + 1, b, 1);
        puts_(b, " = (");
        put_tokens(c, &c->code, x, y, b, 0);
        puts_(b, ")");
    }
}

/* the token naming what item x declares (a declaration's or a bound parameter's), or -1 */
static int item_decl_name(const struct ctx *c, const struct item *x)
{
    int a, e;
    if (x->kind == I_DECL)
        return c->decl[x->index].name;
    if (x->kind != I_BIND || x->index < 0)
        return -1;
    int fn = c->frame[x->frame].fn;
    if (pcu_list_item(c, c->fn[fn].lparen + 1, c->fn[fn].rparen, x->index, &a, &e))
        return -1;
    return item_name(c, a, e);
}

static void compose_decls(const struct ctx *c, struct buf *b)
{
    int cap = c->ndecl + c->ndef + c->ntype + 2 * PCU_MAX_FRAMES * PCU_MAX_PARAMS, n = 0;
    struct item *it = malloc((size_t)cap * sizeof *it);
    if (!it) {
        b->full = 1;
        return;
    }
    for (int i = 0; i < c->ndecl; i++)
        if (c->decl_need[i])
            it[n++] = (struct item){level_of(c, c->decl[i].fn), c->code.t[c->decl[i].stmt].pos,
                                    I_DECL, i, 0};
    for (int i = 0; i < c->ndef; i++)
        if (c->def_need[i])
            it[n++] = (struct item){0, c->def[i].name_pos, I_DEF, i, 0};
    for (int i = 0; i < c->ntype; i++)
        if (c->type_need[i])
            it[n++] = (struct item){level_of(c, c->type[i].fn), c->code.t[c->type[i].stmt].pos,
                                    I_TYPE, i, 0};
    for (int f = 0; f < c->nframe; f++)
        for (int i = 0; i < PCU_MAX_PARAMS; i++) {
            const struct cfunc *F = &c->fn[c->frame[f].fn];
            if (c->tparam_need[f][i])
                it[n++] = (struct item){f + 1, c->code.t[F->tmpl_from].pos, I_TPARAM, i, f};
            if (c->bind_need[f][i])
                it[n++] = (struct item){f + 1, c->code.t[F->lparen].pos, I_BIND, i, f};
        }
    qsort(it, (size_t)n, sizeof *it, cmp_item);
    for (int i = 0; i < n; i++) {
        if (b->n)
            puts_(b, "; ");
        struct item x = it[i];
        int nm = item_decl_name(c, &x), again = 0;
        for (int j = 0; j < i && x.kind == I_BIND && nm >= 0 && !again; j++) {
            int on = item_decl_name(c, &it[j]);
            again = on >= 0 && pcu_same_text(c, &c->code.t[on], c->src + c->code.t[nm].pos,
                                             c->code.t[nm].len);
        }
        int x0, y0;
        if (again && pcu_call_arg(c, c->frame[x.frame].call, x.index, &x0, &y0) == 0) {
            /* a caller's name: assigned the argument (an integer local may be) */
            put_tokens(c, &c->code, nm, nm + 1, b, 0);
            puts_(b, " = (");
            put_tokens(c, &c->code, x0, y0, b, 0);
            puts_(b, ")");
            continue;
        }
        put_item(c, &x, b);
    }
    free(it);
}

/* the members a whole access of declaration di's element splits into (float3, a struct of
 * the file: nvcc loads and stores them one by one), into m[]; 0 when it is one access */
static int split_members(const struct ctx *c, int di, int *m, int max)
{
    static const char *const three[] = {"float3", "int3", "uint3", NULL};
    const struct cdecl *d = &c->decl[di];
    if (d->type_end - d->type_from != 1)
        return 0;
    const struct clex_tok *t = &c->code.t[d->type_from];
    if (clex_word_in(c->src, t, three))
        return -3;                                   /* .x .y .z */
    int ti = pcu_lookup_type(c, c->src + t->pos, t->len, d->name);
    if (ti < 0 || c->type[ti].open < 0)
        return 0;
    int n = 0;
    for (int k = c->type[ti].open + 1; k < c->type[ti].close; k++) {
        if (c->code.t[k].kind != CLEX_IDENT || !(pcu_cis(c, k + 1, ",") || pcu_cis(c, k + 1, ";")))
            continue;
        if (pcu_cis(c, k + 1, "[") || n == max)
            return 0;
        m[n++] = k;
    }
    return n;
}

static int compose_accesses(const struct ctx *c, const struct access *acc, int n, struct buf *b)
{
    static const char *const xyz[] = {".x", ".y", ".z"};
    int count = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n && count < PATTERN_MAX_ACCESSES; i++) {
            int load = acc[i].kind != A_STORE, store = acc[i].kind != A_LOAD;
            if (pass == 0 ? !load : !store)
                continue;
            int m[PATTERN_MAX_ACCESSES];
            int nm = acc[i].whole && acc[i].decl >= 0 ?
                     split_members(c, acc[i].decl, m, PATTERN_MAX_ACCESSES) : 0;
            for (int j = 0; j < (nm ? abs(nm) : 1) && count < PATTERN_MAX_ACCESSES; j++) {
                if (b->n)
                    puts_(b, "; ");
                put_tokens(c, &c->code, acc[i].from, acc[i].to, b, 0);
                if (nm < 0) {
                    puts_(b, xyz[j]);
                } else if (nm > 0) {
                    puts_(b, ".");
                    put(b, c->src + c->code.t[m[j]].pos, (size_t)c->code.t[m[j]].len);
                }
                if (pass == 1)
                    puts_(b, " = 0");
                count++;
            }
        }
    return count;
}

/* ---------------------------------------------------------------- control around the line */

/* the for at ctl: its variable (declared in the first clause) and its step, into c->loop */
static int loop_of(struct ctx *c, int fn, const struct pcu_ctl *t, int line)
{
    static const char *const ops[] = {"+=", "-=", "*=", "/=", "<<=", ">>=", NULL};
    static const char opc[] = "+-*/lr";
    int di = -1;
    for (int i = 0; i < c->ndecl && di < 0; i++)
        if (c->decl[i].loop && c->decl[i].stmt == t->init_from && c->decl[i].fn == fn)
            di = i;
    if (di < 0)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_LOOP_NO_VARIABLE, line);
    if (c->nloop >= PCU_MAX_CTL)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_TOO_MANY_LOOPS, PCU_MAX_CTL);
    const struct clex_tok *nm = &c->code.t[c->decl[di].name];
    struct pcu_loop l = {di, 0, 0, 0, 0};
    int a = t->step_from, b = t->step_to, named = -1;
    if (b - a == 2 && (pcu_cis(c, a + 1, "++") || pcu_cis(c, a + 1, "--")))
        named = a, l.op = pcu_cis(c, a + 1, "++") ? '+' : '-';
    else if (b - a == 2 && (pcu_cis(c, a, "++") || pcu_cis(c, a, "--")))
        named = a + 1, l.op = pcu_cis(c, a, "++") ? '+' : '-';
    else if (b - a >= 3) {
        named = a;
        for (int o = 0; ops[o]; o++)
            if (pcu_cis(c, a + 1, ops[o]))
                l.op = opc[o], l.step_from = a + 2, l.step_to = b;
        if (!l.op && pcu_cis(c, a + 1, "=") && b - a >= 5 &&
            pcu_same_text(c, &c->code.t[a + 2], c->src + nm->pos, nm->len))
            for (int o = 0; o < 4; o++)
                if (c->code.t[a + 3].len == 1 && c->src[c->code.t[a + 3].pos] == opc[o])
                    l.op = opc[o], l.step_from = a + 4, l.step_to = b;
    }
    for (int k = l.step_from; k < l.step_to; k++)
        if (pcu_cis(c, k, ","))
            l.op = 0;
    if (named < 0 || !l.op || !pcu_same_text(c, &c->code.t[named], c->src + nm->pos, nm->len))
        return bl_fail(c->err, -1, BL_NOWHERE, CU_LOOP_STEP_UNKNOWN, line);
    if (t->cond_to <= t->cond_from)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_LOOP_NO_CONDITION, line);
    if (l.step_to > l.step_from && resolve(c, &c->code, l.step_from, l.step_to, t->kw, fn))
        return -1;
    int at = c->nloop;
    l.trip = c->launch->trip && at < c->launch->ntrip ? c->launch->trip[at] : 0;
    c->loop[c->nloop++] = l;
    return 0;
}

/* the ifs and fors around the line's first access: out->guard, the loops' trips; for a
 * helper's line those around each call first, from the kernel's */
static int control_guard(struct ctx *c, int target)
{
    struct pcu_ctl ctl[PCU_MAX_CTL];
    struct buf g = {c->out->guard, sizeof c->out->guard, 0, 0};
    for (int fr = 0; fr < c->nframe; fr++) {
        int fn = c->frame[fr].fn;
        int n = pcu_enclosing(c, fn, fr + 1 < c->nframe ? c->frame[fr + 1].call : target, ctl,
                              PCU_MAX_CTL);
        if (n < 0)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_TOO_MANY_CONTROLS, PCU_MAX_CTL);
        for (int i = 0; i < n; i++) {
            const struct pcu_ctl *t = &ctl[i];
            int line = c->code.t[t->kw].line;
            if (t->kind == PCU_WHILE || t->kind == PCU_DO)
                return bl_fail(c->err, -1, BL_NOWHERE, CU_DATA_DEPENDENT_LOOP, line);
            if (t->kind == PCU_SWITCH)
                return bl_fail(c->err, -1, BL_NOWHERE, CU_INSIDE_SWITCH, line);
            if (t->kind == PCU_FOR && loop_of(c, fn, t, line))
                return -1;
            if (t->cond_to <= t->cond_from)
                continue;
            if (resolve(c, &c->code, t->cond_from, t->cond_to, t->cond_from, fn))
                return -1;
            if (g.n)
                puts_(&g, " && ");
            puts_(&g, t->kind == PCU_ELSE ? "!(" : "(");
            put_tokens(c, &c->code, t->cond_from, t->cond_to, &g, 0);
            puts_(&g, ")");
        }
    }
    if (g.full)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_CONDITIONS_TOO_LONG, PATTERN_CUDA_TEXT - 1);
    c->out->nloops = c->nloop;
    return 0;
}

/* ---------------------------------------------------------------- the entry point */

/* the function whose body holds line `line`, or -1 */
static int fn_of_line(const struct ctx *c, int line)
{
    for (int f = 0; f < c->nfn; f++) {
        const struct cfunc *F = &c->fn[f];
        int last = F->close < c->code.n ? c->code.t[F->close].line : 1 << 30;
        if (c->code.t[F->open].line <= line && line <= last)
            return f;
    }
    return -1;
}

static int translate(struct ctx *c)
{
    struct pattern_cuda *out = c->out;
    pcu_read(c);
    c->decl_need = calloc((size_t)c->ndecl + 1, 1);
    c->def_need = calloc((size_t)c->ndef + 1, 1);
    c->type_need = calloc((size_t)c->ntype + 1, 1);
    if (c->oom || !c->decl_need || !c->def_need || !c->type_need)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_OUT_OF_MEMORY);
    int fn = fn_of_line(c, c->line);
    if (fn < 0)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_LINE_IS_NOT_INSIDE_A, c->line);
    c->nframe = 1;
    c->frame[0] = (struct pcu_frame){fn, -1};
    int kfn = c->launch->kernel_line > 0 ? fn_of_line(c, c->launch->kernel_line) : -1;
    if (kfn >= 0 && kfn != fn) {
        c->nframe = 0;
        pcu_paths(c, kfn, fn, c->launch->path);
        if (c->nframe == 0)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_NOT_CALLED, c->line);
    }
    int a = c->fn[fn].open + 1, b = a;
    while (a < c->fn[fn].close && c->code.t[a].line < c->line)
        a++;
    b = a;
    while (b < c->fn[fn].close && c->code.t[b].line == c->line)
        b++;
    if (a == b)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_LINE_HAS_NO_CODE, c->line);
    c->use = a;
    struct access acc[MAX_LINE_ACCESSES];
    int why_kind;
    char what[64] = "";
    int n = line_accesses(c, fn, a, b, acc, MAX_LINE_ACCESSES, &why_kind, what, sizeof what);
    if (n == 0) {
        if (why_kind == 2)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_IS_AN_ATOMIC_THE_PATTERN, what);
        if (why_kind == 1)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_TAKES_A_SHARED_ADDRESS_FOR, what);
        if (why_kind == 3)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_INLINE_ASM_LDMATRIX_STMATRIX_CP);
        return bl_fail(c->err, -1, BL_NOWHERE, CU_NO_LOAD_OR_STORE_OF);
    }
    for (int i = 0; i < n; i++)
        if (resolve(c, &c->code, acc[i].from, acc[i].to, acc[i].from, fn))
            return -1;
    if (c->launch->control && control_guard(c, acc[0].from))
        return -1;
    struct buf bd = {out->decls, sizeof out->decls, 0, 0};
    struct buf ba = {out->accesses, sizeof out->accesses, 0, 0};
    compose_decls(c, &bd);
    out->naccess = compose_accesses(c, acc, n, &ba);
    if (bd.full || ba.full)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_THE_DECLARATIONS_THIS_LINE_NEEDS,
                    PATTERN_CUDA_TEXT - 1);
    if (!out->note.id) {
        for (int i = 0; i < n; i++)
            if (acc[i].kind == A_BOTH) {
                bl_msg_set(&out->note, NULL, 0, CU_NOTE_READ_WRITE);
                break;
            }
        if (n > PATTERN_MAX_ACCESSES)
            bl_msg_set(&out->note, NULL, 0, CU_NOTE_FIRST_ACCESSES,
                       PATTERN_MAX_ACCESSES);
    }
    /* the text must parse: the pattern language has the last word */
    char text[2 * PATTERN_CUDA_TEXT + 4];
    bl_fmt(text, sizeof text, "%s%s%s", out->decls, out->decls[0] ? "; " : "", out->accesses);
    if (out->guard[0])      /* the guard must parse too: one guarded access stands for all */
        bl_fmt(text, sizeof text, "%s%sif (%s) %.*s", out->decls, out->decls[0] ? "; " : "",
               out->guard, (int)strcspn(out->accesses, ";"), out->accesses);
    struct pattern *p = NULL;
    struct bl_err err;
    if (pattern_parse(text, &p, &err) != 0)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_THE_PATTERN_LANGUAGE_CANNOT_READ, err.msg);
    pattern_free(p);
    return 0;
}

int pattern_from_cuda(const char *src, size_t len, int line,
                      const struct pattern_cuda_launch *launch, struct pattern_cuda *out)
{
    memset(out, 0, sizeof *out);
    bl_err_clear(&out->err);
    pattern_env_init(&out->env);
    for (int i = 0; i < 3; i++)
        out->env.block[i] = launch->block[i] ? launch->block[i] : 1;
    out->env.dyn_bytes = launch->dyn_bytes;
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.src = src ? src : "";
    c.len = src ? len : 0;
    c.launch = launch;
    c.line = line;
    c.out = out;
    c.err = &out->err;
    int rc = line < 1 ? bl_fail(&out->err, -1, BL_NOWHERE, CU_NO_SUCH_LINE) : translate(&c);
    free(c.code.t);
    free(c.defs.t);
    free(c.def);
    free(c.fn);
    free(c.decl);
    free(c.decl_need);
    free(c.def_need);
    free(c.type_need);
    free(c.type);
    if (rc) {
        out->decls[0] = out->accesses[0] = out->guard[0] = 0;
        out->naccess = 0;
    }
    return rc;
}

int pattern_cuda_paths(const char *src, size_t len, int kernel_line, int line)
{
    static const struct pattern_cuda_launch none;
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.src = src ? src : "";
    c.len = src ? len : 0;
    c.launch = &none;
    c.line = line;
    pcu_read(&c);
    int n = 0;
    if (!c.oom) {
        int fn = fn_of_line(&c, line), kfn = fn_of_line(&c, kernel_line);
        n = kfn >= 0 && fn >= 0 ? pcu_paths(&c, kfn, fn, -1) : 0;
    }
    free(c.code.t);
    free(c.defs.t);
    free(c.def);
    free(c.fn);
    free(c.decl);
    free(c.type);
    return n;
}
