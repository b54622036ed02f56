/* pattern_cuda_emit.c: the pattern text pattern_cuda.c composes: tokens of the CUDA source
 * as text (blockIdx and gridDim as the launch's numbers, reinterpret_cast<T>(E) as ((T)(E)),
 * integer typedefs as their C names, a loop variable at its trip), the declarations a line
 * needs in an order where each follows what it uses (the file's, the kernel's, each called
 * helper's, with the template arguments and the helper's parameters bound to the call's
 * arguments), and the line's accesses, a whole float3 or struct element as its members.
 * Pure C: libc and src/base only. */
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "pattern_cuda_internal.h"

/* ---------------------------------------------------------------- text */


static void pcu_put(struct buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->size) {
        b->full = 1;
        return;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

void pcu_puts(struct buf *b, const char *s)
{
    pcu_put(b, s, strlen(s));
}

/* integer typedefs of CUDA code the pattern language knows by their C names */
static const char *const type_alias[][2] = {
    {"size_t", "unsigned long"}, {"uint32_t", "unsigned"}, {"int32_t", "int"},
    {"uint64_t", "unsigned long long"}, {"int64_t", "long long"}, {"uint16_t", "unsigned short"},
    {"int16_t", "short"}, {"uint8_t", "unsigned char"}, {"int8_t", "char"}, {"bool", "int"},
    {"auto", "long long"}, {"ptrdiff_t", "long"}, {NULL, NULL}};

/* blockIdx.x (y, z) and gridDim.x at token k of v: the number the playground takes (blockIdx
 * 0, the first block; gridDim the launch's), else -1 */
long long pcu_block_builtin(const struct ctx *c, const struct clex_toks *v, int k)
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

const char *const pcu_cpp_casts[] = {"reinterpret_cast", "static_cast", "const_cast", NULL};

/* reinterpret_cast<T>(E) (static_cast, const_cast) at token k of v, within [k, to): its '>'
 * and the ')' closing (E); 0 when it is not one */
static int cpp_cast(const struct ctx *c, const struct clex_toks *v, int k, int to, int *gt,
                    int *rp)
{
    if (k + 1 >= to || !clex_word_in(c->src, &v->t[k], pcu_cpp_casts) ||
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
void pcu_put_tokens(const struct ctx *c, const struct clex_toks *v, int from, int to,
                       struct buf *b, int map_types)
{
    for (int k = from; k < to; k++) {
        const struct clex_tok *t = &v->t[k];
        if (k > from && t->pos > v->t[k - 1].pos + v->t[k - 1].len)
            pcu_puts(b, " ");
        int gt, rp, de, params, body;
        if (clex_is(c->src, t, "__restrict__") || clex_is(c->src, t, "__restrict"))
            continue;
        if (v == &c->code && t->kind == CLEX_IDENT && k + 1 < to && pcu_cis(c, k + 1, "(") &&
            (de = pcu_lookup_define(c, c->src + t->pos, t->len)) >= 0 && c->def[de].with_args &&
            pcu_macro(c, de, &params, &body) >= 0) {
            /* IDX(r, c): its body, each parameter replaced by the argument's text, as the
             * preprocessor does */
            int close = pcu_match(c, &c->code, k + 1, to), run = body;
            const struct clex_tok *bt = c->defs.t;
            for (int q = body; q <= c->def[de].to; q++) {
                int p = q < c->def[de].to ? pcu_macro_param(c, de, &bt[q]) : -1, x, y;
                if (q < c->def[de].to && p < 0)
                    continue;
                if (q > run && run > body && bt[run].pos > bt[run - 1].pos + bt[run - 1].len)
                    pcu_puts(b, " ");
                pcu_put_tokens(c, &c->defs, run, q, b, map_types);
                if (q < c->def[de].to) {
                    if (q > body && bt[q].pos > bt[q - 1].pos + bt[q - 1].len)
                        pcu_puts(b, " ");
                    if (pcu_list_item(c, k + 2, close, p, &x, &y) == 0)
                        pcu_put_tokens(c, &c->code, x, y, b, map_types);
                }
                run = q + 1;
            }
            k = close;
            continue;
        }
        if (cpp_cast(c, v, k, to, &gt, &rp)) {
            pcu_puts(b, "((");
            pcu_put_tokens(c, v, k + 2, gt, b, 1);
            pcu_puts(b, ")(");
            pcu_put_tokens(c, v, gt + 2, rp, b, map_types);
            pcu_puts(b, "))");
            k = rp;
            continue;
        }
        long long bv = pcu_block_builtin(c, v, k);
        if (bv >= 0 && k + 2 < to) {
            char num[24];
            bl_fmt(num, sizeof num, "%lld", bv);
            pcu_puts(b, num);
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
        pcu_put(b, s, n);
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
    pcu_puts(b, "(");
    pcu_put_tokens(c, &c->code, d->init, d->init_end, b, 0);
    pcu_puts(b, ")");
    bl_fmt(num, sizeof num, "%lld", l->trip);
    if (l->op == '*' || l->op == '/') {
        for (long long t = 0; t < l->trip && !b->full; t++) {
            pcu_puts(b, l->op == '*' ? " * (" : " / (");
            pcu_put_tokens(c, &c->code, l->step_from, l->step_to, b, 0);
            pcu_puts(b, ")");
        }
        return;
    }
    pcu_puts(b, l->op == '+' ? " + " : l->op == '-' ? " - " : l->op == 'l' ? " << " : " >> ");
    pcu_puts(b, num);
    if (l->step_to > l->step_from) {
        pcu_puts(b, " * (");
        pcu_put_tokens(c, &c->code, l->step_from, l->step_to, b, 0);
        pcu_puts(b, ")");
    }
}

/* ---------------------------------------------------------------- composing */

/* one needed declaration as pattern text */
static void put_decl(const struct ctx *c, const struct cdecl *d, struct buf *b)
{
    if (d->shared) {
        if (d->is_extern)
            pcu_puts(b, "extern ");
        pcu_puts(b, "__shared__ ");
        if (d->align_from >= 0 && pcu_cis(c, d->align_from, "__align__")) {
            pcu_put_tokens(c, &c->code, d->align_from, d->align_to, b, 0);
            pcu_puts(b, " ");
        }
    } else if (d->is_const) {
        pcu_puts(b, "const ");
    }
    pcu_put_tokens(c, &c->code, d->type_from, d->type_end, b, 1);
    pcu_puts(b, " ");
    pcu_put_tokens(c, &c->code, d->dstart, d->dims_to, b, 0);
    if (!d->shared && d->init >= 0) {
        pcu_puts(b, " = ");
        int li = loop_of_decl(c, (int)(d - c->decl));
        if (li >= 0)
            put_trip(c, d, &c->loop[li], b);
        else
            pcu_put_tokens(c, &c->code, d->init, d->init_end, b, 0);
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
        pcu_puts(b, head);
        pcu_put_tokens(c, &c->defs, d->from, d->to, b, 0);
    } else if (it->kind == I_TYPE) {
        const struct ctypedef *d = &c->type[it->index];
        const struct clex_tok *nm = &c->code.t[d->name];
        if (d->kind == PCU_STRUCT) {
            pcu_puts(b, "typedef struct ");
            pcu_put(b, c->src + nm->pos, (size_t)nm->len);
            pcu_puts(b, " ");
            pcu_put_tokens(c, &c->code, d->open, d->close + 1, b, 1);
            pcu_puts(b, " ");
            pcu_put(b, c->src + nm->pos, (size_t)nm->len);
        } else if (d->kind == PCU_TYPEDEF) {
            pcu_put_tokens(c, &c->code, d->stmt, d->end, b, 1);
        } else {
            pcu_puts(b, "typedef ");
            pcu_put_tokens(c, &c->code, d->name + 2, d->end, b, 1);
            pcu_puts(b, " ");
            pcu_put(b, c->src + nm->pos, (size_t)nm->len);
        }
    } else if (it->kind == I_TPARAM) {
        int fn = c->frame[it->frame].fn;
        if (pcu_list_item(c, c->fn[fn].tmpl_from, c->fn[fn].tmpl_to, it->index, &a, &e))
            return;
        int name = item_name(c, a, e), type = pcu_cis(c, a, "typename") || pcu_cis(c, a, "class");
        if (name < 0)
            return;
        const struct clex_tok *nm = &c->code.t[name];
        const char *s;
        int n;
        pcu_puts(b, type ? "typedef " : "const int ");
        if (!type) {
            pcu_put(b, c->src + nm->pos, (size_t)nm->len);
            pcu_puts(b, " = ");
        }
        char at[256];
        pcu_call_targs(c, c->frame[it->frame].call, at, sizeof at);
        if (it->frame == 0 && pcu_targ(c->targs, it->index, &s, &n) == 0) {
            pcu_put(b, s, (size_t)n);
        } else if (it->frame > 0 && pcu_targ(at, it->index, &s, &n) == 0) {
            pcu_put(b, s, (size_t)n);
        } else {
            int k = a;
            while (k < e && !pcu_cis(c, k, "="))
                k++;
            pcu_put_tokens(c, &c->code, k + 1, e, b, 1);
        }
        if (type) {
            pcu_puts(b, " ");
            pcu_put(b, c->src + nm->pos, (size_t)nm->len);
        }
    } else {
        int fn = c->frame[it->frame].fn, x, y;
        if (pcu_list_item(c, c->fn[fn].lparen + 1, c->fn[fn].rparen, it->index, &a, &e) ||
            pcu_call_arg(c, c->frame[it->frame].call, it->index, &x, &y))
            return;
        int name = item_name(c, a, e);
        if (name < 0)
            return;
        pcu_put_tokens(c, &c->code, a, name + 1, b, 1);
        pcu_puts(b, " = (");
        pcu_put_tokens(c, &c->code, x, y, b, 0);
        pcu_puts(b, ")");
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

void pcu_compose_decls(const struct ctx *c, struct buf *b)
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
            pcu_puts(b, "; ");
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
            pcu_put_tokens(c, &c->code, nm, nm + 1, b, 0);
            pcu_puts(b, " = (");
            pcu_put_tokens(c, &c->code, x0, y0, b, 0);
            pcu_puts(b, ")");
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

int pcu_compose_accesses(const struct ctx *c, const struct access *acc, int n, struct buf *b)
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
                    pcu_puts(b, "; ");
                pcu_put_tokens(c, &c->code, acc[i].from, acc[i].to, b, 0);
                if (nm < 0) {
                    pcu_puts(b, xyz[j]);
                } else if (nm > 0) {
                    pcu_puts(b, ".");
                    pcu_put(b, c->src + c->code.t[m[j]].pos, (size_t)c->code.t[m[j]].len);
                }
                if (pass == 1)
                    pcu_puts(b, " = 0");
                count++;
            }
        }
    return count;
}
