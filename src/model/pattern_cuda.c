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

/* tokens [from, to) of v as text: one space where the source had blanks or a comment */
static void put_tokens(const struct ctx *c, const struct clex_toks *v, int from, int to,
                       struct buf *b, int map_types)
{
    for (int k = from; k < to; k++) {
        const struct clex_tok *t = &v->t[k];
        if (k > from && t->pos > v->t[k - 1].pos + v->t[k - 1].len)
            puts_(b, " ");
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
static int resolve_names(struct ctx *c, const struct clex_toks *v, int from, int to, int use,
                         int fn);

static const char *const known_words[] = {
    "int", "unsigned", "signed", "short", "long", "char", "float", "double", "bool", "const",
    "volatile", "sizeof", "struct", "half", "__half", "half2", "__half2", "float2", "float3",
    "float4", "int2", "int3", "int4", "uint2", "uint4", "double2", "longlong2", "void",
    "size_t", "uint32_t", "int32_t", "uint64_t", "int64_t", "uint16_t", "int16_t", "uint8_t",
    "int8_t", "__restrict__", "min", "max", NULL};

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
        int first, last;
        if (pcu_lookup_param(c, fn, c->src + t->pos, t->len, &first, &last) >= 0) {
            if (need_param(c, fn, first, last, name))
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
};

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
        if (t->kind != CLEX_IDENT || !pcu_cis(c, k + 1, "[") || pcu_cis(c, k - 1, ".") ||
            pcu_cis(c, k - 1, "->"))
            continue;
        int di = pcu_lookup_decl(c, c->src + t->pos, t->len, k, fn);
        if (di < 0 || !pcu_is_shared(c, di, 0))
            continue;
        int e = k + 1;
        while (e < c->code.n && pcu_cis(c, e, "["))
            e = pcu_match(c, &c->code, e, c->code.n) + 1;
        while ((pcu_cis(c, e, ".") || pcu_cis(c, e, "->")) && e + 1 < c->code.n &&
               c->code.t[e + 1].kind == CLEX_IDENT)
            e += 2;
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

/* the needed declarations and defines, in the order of the file */
static void compose_decls(const struct ctx *c, struct buf *b)
{
    int di = 0, de = 0;
    for (;;) {
        while (di < c->ndecl && !c->decl_need[di])
            di++;
        while (de < c->ndef && !c->def_need[de])
            de++;
        if (di >= c->ndecl && de >= c->ndef)
            return;
        int dpos = di < c->ndecl ? c->code.t[c->decl[di].stmt].pos : -1;
        int fpos = de < c->ndef ? c->def[de].name_pos : -1;
        if (b->n)
            puts_(b, "; ");
        if (fpos >= 0 && (dpos < 0 || fpos < dpos)) {
            const struct cdefine *d = &c->def[de++];
            bl_fmt(b->s + b->n, b->size - b->n, "const int %.*s = ", d->name_len,
                   c->src + d->name_pos);
            b->n += strlen(b->s + b->n);
            put_tokens(c, &c->defs, d->from, d->to, b, 0);
        } else {
            put_decl(c, &c->decl[di++], b);
        }
    }
}

static int compose_accesses(const struct ctx *c, const struct access *acc, int n, struct buf *b)
{
    int count = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n && count < PATTERN_MAX_ACCESSES; i++) {
            int load = acc[i].kind != A_STORE, store = acc[i].kind != A_LOAD;
            if (pass == 0 ? !load : !store)
                continue;
            if (b->n)
                puts_(b, "; ");
            put_tokens(c, &c->code, acc[i].from, acc[i].to, b, 0);
            if (pass == 1)
                puts_(b, " = 0");
            count++;
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

/* the ifs and fors around the line's first access: out->guard, the loops' trips */
static int control_guard(struct ctx *c, int fn, int target)
{
    struct pcu_ctl ctl[PCU_MAX_CTL];
    int n = pcu_enclosing(c, fn, target, ctl, PCU_MAX_CTL);
    if (n < 0)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_TOO_MANY_CONTROLS, PCU_MAX_CTL);
    struct buf g = {c->out->guard, sizeof c->out->guard, 0, 0};
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
    if (g.full)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_CONDITIONS_TOO_LONG, PATTERN_CUDA_TEXT - 1);
    c->out->nloops = c->nloop;
    return 0;
}

/* ---------------------------------------------------------------- the entry point */

static int translate(struct ctx *c)
{
    struct pattern_cuda *out = c->out;
    pcu_read(c);
    c->decl_need = calloc((size_t)c->ndecl + 1, 1);
    c->def_need = calloc((size_t)c->ndef + 1, 1);
    if (c->oom || !c->decl_need || !c->def_need)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_OUT_OF_MEMORY);
    int fn = -1;
    for (int f = 0; f < c->nfn && fn < 0; f++) {
        const struct cfunc *F = &c->fn[f];
        int last = F->close < c->code.n ? c->code.t[F->close].line : 1 << 30;
        if (c->code.t[F->open].line <= c->line && c->line <= last)
            fn = f;
    }
    if (fn < 0)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_LINE_IS_NOT_INSIDE_A, c->line);
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
    if (c->launch->control && control_guard(c, fn, acc[0].from))
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
    if (rc) {
        out->decls[0] = out->accesses[0] = out->guard[0] = 0;
        out->naccess = 0;
    }
    return rc;
}
