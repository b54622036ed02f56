/* pattern_cuda.c: a line of CUDA source as a pattern (pattern_cuda.h), over the file as
 * pattern_cuda_read.c reads it: take the line's accesses of shared arrays (pattern_cuda_access.c:
 * indexed, through pointer casts, through a helper's parameter), find the call path from the
 * kernel when the line is in a __device__ helper (pattern_cuda_call.c), then resolve every name
 * their indices use (declarations, #defines, the file's structs and typedefs, template
 * parameters from --name, a helper's parameters bound to the call's arguments) into text to
 * emit (pattern_cuda_emit.c), or a reason why the pattern language cannot know it. The text is
 * checked with pattern_parse. Pure C: libc and src/base only. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "pattern_cuda_internal.h"

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

static int vis(const struct ctx *c, const struct clex_toks *v, int k, const char *w)
{
    return k >= 0 && k < v->n && clex_is(c->src, &v->t[k], w);
}

/* the line where a local's value changes between its declaration and the line, or 0 */
static int reassigned(const struct ctx *c, const struct cdecl *d)
{
    const struct clex_tok *nm = &c->code.t[d->name];
    int k = pcu_assigned(c, c->src + nm->pos, nm->len, d->init_end, c->use);
    return k >= 0 ? c->code.t[k].line : 0;
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
            pcu_put_tokens(c, &c->code, d->init, d->init_end, &b, 0);
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
    if (fr == 0 && pcu_targ(c->targs, i, &s, &n) == 0)
        return resolve_text(c, s, n);
    int lt = c->frame[fr].call + 1, gt, a2, b2;
    if (fr > 0 && pcu_cis(c, lt, "<") && (gt = clex_close(c->src, c->code.t, lt, c->code.n)) > lt &&
        pcu_list_item(c, lt + 1, gt, i, &a2, &b2) == 0) {  /* a helper's: warpReduce<256>(..) */
        if (b2 - a2 == 1 && pcu_same_text(c, &c->code.t[a2], name, (int)strlen(name)))
            c->tparam_need[fr][i] = 0;         /* the caller's own name passed on */
        return resolve(c, &c->code, a2, b2, c->frame[fr].call, c->frame[fr - 1].fn);
    }
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
    int pa, pe;                 /* a reference, an array or a pointer to arrays: not followed */
    if (pcu_list_item(c, c->fn[fn].lparen + 1, c->fn[fn].rparen, i, &pa, &pe))
        return bl_fail(c->err, -1, BL_NOWHERE, CU_HELPER_ARGUMENT, nm);
    for (int k = pa; k < pe; k++)
        if (pcu_cis(c, k, "&") || pcu_cis(c, k, "[") || pcu_cis(c, k, "(") || pcu_cis(c, k, "&&"))
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
        if (pcu_block_builtin(c, v, k) >= 0) {
            if (!strcmp(name, "blockIdx"))
                c->out->block_dep = 1;
            if (!strcmp(name, "blockIdx") && !c->out->note.id && !c->launch->control)
                bl_msg_set(&c->out->note, NULL, 0, CU_NOTE_BLOCKIDX);
            k += 2;
            continue;
        }
        int de = pcu_lookup_define(c, c->src + t->pos, t->len), params, body;
        if (de >= 0 && c->def[de].with_args && v == &c->code && vis(c, v, k + 1, "(") &&
            pcu_macro(c, de, &params, &body) >= 0) {
            /* IDX(r, c): the names of its body but its parameters; the arguments follow */
            for (int q = body, run = body; q <= c->def[de].to; q++) {
                if (q < c->def[de].to && pcu_macro_param(c, de, &c->defs.t[q]) < 0)
                    continue;
                if (q > run && resolve(c, &c->defs, run, q, use, fn))
                    return -1;
                run = q + 1;
            }
            continue;
        }
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
                pcu_puts(&g, " && ");
            pcu_puts(&g, t->kind == PCU_ELSE ? "!(" : "(");
            pcu_put_tokens(c, &c->code, t->cond_from, t->cond_to, &g, 0);
            pcu_puts(&g, ")");
        }
    }
    if (g.full)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_CONDITIONS_TOO_LONG, PATTERN_CUDA_TEXT - 1);
    c->out->nloops = c->nloop;
    return 0;
}

/* ---------------------------------------------------------------- the entry point */

/* function f is a __global__ kernel */
static int is_global(const struct ctx *c, int f)
{
    for (int k = c->fn[f].name - 1; k >= 0 && k >= c->fn[f].name - 24; k--) {
        if (pcu_cis(c, k, "__global__"))
            return 1;
        if (pcu_cis(c, k, ";") || pcu_cis(c, k, "}") || pcu_cis(c, k, "{"))
            return 0;
    }
    return 0;
}

/* the function whose body holds line `line`, or -1: the first whose last line is at or after
 * it (the functions follow one another, none nested), when it starts at or before it */
static int fn_of_line(const struct ctx *c, int line)
{
    int lo = 0, hi = c->nfn;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        const struct cfunc *F = &c->fn[mid];
        int last = F->close < c->code.n ? c->code.t[F->close].line : 1 << 30;
        if (last < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->nfn && c->code.t[c->fn[lo].open].line <= line ? lo : -1;
}

/* a file read once (pattern_cuda_open): the read and its indexes, and what lines ask again */
struct pattern_cuda_file {
    struct ctx read;                /* the tokens, functions, declarations, types, defines */
    int paths_kfn;                  /* pattern_cuda_file_paths: for this kernel's function, */
    int *paths;                     /* the call paths to each function (-1: not counted yet) */
    int targs_fn;                   /* pcu_file_targs of this function (-1: none yet) */
    char targs[256];
};

static int translate(struct ctx *c, struct pattern_cuda_file *file)
{
    struct pattern_cuda *out = c->out;
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
    for (int f = 0; c->launch->kernel_line <= 0 && kfn < 0 && !is_global(c, fn) && f < c->nfn; f++)
        if (is_global(c, f) && pcu_paths(c, f, fn, -1) > 0)
            kfn = f;                /* a helper's line without the kernel: the first caller's */
    if (kfn >= 0 && kfn != fn) {
        c->nframe = 0;
        pcu_paths(c, kfn, fn, c->launch->path);
        if (c->nframe == 0)
            return bl_fail(c->err, -1, BL_NOWHERE, CU_NOT_CALLED, c->line);
    }
    if (c->launch->name && strchr(c->launch->name, '<'))
        bl_fmt(c->targs, sizeof c->targs, "%s", c->launch->name);
    else if (c->frame[0].fn == file->targs_fn)
        bl_fmt(c->targs, sizeof c->targs, "%s", file->targs);
    else {
        pcu_file_targs(c, c->frame[0].fn, c->targs, sizeof c->targs);
        file->targs_fn = c->frame[0].fn;
        bl_fmt(file->targs, sizeof file->targs, "%s", c->targs);
    }
    int a = c->fn[fn].open + 1, b, hi = c->fn[fn].close;
    while (a < hi) {                /* the first token of the line (tokens go line by line) */
        int mid = a + (hi - a) / 2;
        if (c->code.t[mid].line < c->line)
            a = mid + 1;
        else
            hi = mid;
    }
    b = a;
    while (b < c->fn[fn].close && c->code.t[b].line == c->line)
        b++;
    if (a == b)
        return bl_fail(c->err, -1, BL_NOWHERE, CU_LINE_HAS_NO_CODE, c->line);
    c->use = a;
    struct access acc[MAX_LINE_ACCESSES];
    int why_kind;
    char what[64] = "";
    int n = pcu_line_accesses(c, fn, a, b, acc, MAX_LINE_ACCESSES, &why_kind, what, sizeof what);
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
    pcu_compose_decls(c, &bd);
    out->naccess = pcu_compose_accesses(c, acc, n, &ba);
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

struct pattern_cuda_file *pattern_cuda_open(const char *src, size_t len)
{
    struct pattern_cuda_file *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->read.src = src ? src : "";
    f->read.len = src ? len : 0;
    pcu_read(&f->read);
    if (!f->read.oom)
        pcu_index(&f->read);
    f->paths_kfn = f->targs_fn = -1;
    return f;
}

void pattern_cuda_close(struct pattern_cuda_file *f)
{
    if (!f)
        return;
    for (int g = 0; f->read.ctlx && g < f->read.nfn; g++)
        free(f->read.ctlx[g].s);
    pcu_read_free(&f->read);
    free(f->paths);
    free(f);
}

int pattern_cuda_line(struct pattern_cuda_file *file, int line,
                      const struct pattern_cuda_launch *launch, struct pattern_cuda *out)
{
    memset(out, 0, sizeof *out);
    bl_err_clear(&out->err);
    pattern_env_init(&out->env);
    for (int i = 0; i < 3; i++)
        out->env.block[i] = launch->block[i] ? launch->block[i] : 1;
    out->env.dyn_bytes = launch->dyn_bytes;
    struct ctx c = file->read;      /* the read shared, the rest this line's own */
    c.launch = launch;
    c.line = line;
    c.out = out;
    c.err = &out->err;
    int rc = line < 1 ? bl_fail(&out->err, -1, BL_NOWHERE, CU_NO_SUCH_LINE) :
             c.oom ? bl_fail(c.err, -1, BL_NOWHERE, CU_OUT_OF_MEMORY) : translate(&c, file);
    free(c.decl_need);
    free(c.def_need);
    free(c.type_need);
    if (rc) {
        out->decls[0] = out->accesses[0] = out->guard[0] = 0;
        out->naccess = 0;
    }
    return rc;
}

int pattern_from_cuda(const char *src, size_t len, int line,
                      const struct pattern_cuda_launch *launch, struct pattern_cuda *out)
{
    struct pattern_cuda_file *f = pattern_cuda_open(src, len);
    if (!f) {
        memset(out, 0, sizeof *out);
        return bl_fail(&out->err, -1, BL_NOWHERE, CU_OUT_OF_MEMORY);
    }
    int rc = pattern_cuda_line(f, line, launch, out);
    pattern_cuda_close(f);
    return rc;
}

int pattern_cuda_file_paths(struct pattern_cuda_file *file, int kernel_line, int line)
{
    struct ctx *c = &file->read;
    if (c->oom)
        return 0;
    int fn = fn_of_line(c, line), kfn = fn_of_line(c, kernel_line);
    if (fn < 0 || kfn < 0)
        return 0;
    if (file->paths_kfn != kfn) {
        free(file->paths);
        file->paths = malloc(((size_t)c->nfn + 1) * sizeof *file->paths);
        file->paths_kfn = file->paths ? kfn : -1;
        for (int g = 0; file->paths && g < c->nfn; g++)
            file->paths[g] = -1;
    }
    if (!file->paths) {
        struct ctx w = *c;
        return pcu_paths(&w, kfn, fn, -1);
    }
    if (file->paths[fn] < 0) {
        struct ctx w = *c;          /* pcu_paths writes frames only when asked for one */
        file->paths[fn] = pcu_paths(&w, kfn, fn, -1);
    }
    return file->paths[fn];
}

