/* pattern_eval.c: the evaluator of the pattern language: lays out the arrays for an
 * environment, then runs the statements up to one access for each lane of a warp (64-bit
 * arithmetic, overflow, bounds and alignment checked) into a struct bank_access and the
 * caller's struct pattern_layout. Never writes into the parsed pattern. Depends on
 * pattern_text.c (messages); not on the parser. */
#include "pattern_internal.h"

#include <limits.h>
#include <string.h>

struct val {
    long long i;     /* integer, or byte offset in the region */
    int region;      /* array index for pointers and lvalues */
};

/* One evaluation: the environment's values, the current lane, and the layout being built. */
struct ev {
    const struct pattern *p;
    struct bl_err *err;
    int lane;                        /* -1 while laying out */
    long long b[B_COUNT];            /* builtins of the current lane */
    long long pval[PATTERN_MAX_PARAMS];
    int pset[PATTERN_MAX_PARAMS];
    struct val loc[MAX_LOCALS];
    uint64_t dyn_bytes;
    int ptr_seen[MAX_ARRAYS];        /* a carved pointer's base is where lane 0 points it */
    /* not cleared: filled by layout() before they are read */
    struct pattern_layout lay;       /* parse-time names and types, then dims, bases, sizes */
    long long stride[MAX_ARRAYS][3]; /* static arrays: bytes per index step of each dimension */
    char snip[SNIP_MAX];             /* node_text's */
};

/* node n's text for a message, in e->snip */
static const char *node_text(struct ev *e, int n)
{
    const struct node *nd = &e->p->node[n];
    return pat_snip(e->p->text, e->p->text_len, nd->pos, nd->end, e->snip, sizeof e->snip);
}

static int eval(struct ev *e, int n, struct val *out);

static int eval_int(struct ev *e, int n, long long *out)
{
    struct val v;
    if (eval(e, n, &v) < 0)
        return -1;
    *out = v.i;
    return 0;
}

static int eval_bin(struct ev *e, int n, long long a, long long b, long long *r)
{
    const struct node *nd = &e->p->node[n];
    switch (nd->op) {
    case '+':
    case '-':
    case '*':
        if (nd->op == '+' ? __builtin_add_overflow(a, b, r)
            : nd->op == '-' ? __builtin_sub_overflow(a, b, r) : __builtin_mul_overflow(a, b, r))
            goto overflow;
        return 0;
    case '/':
    case '%':
        if (b == 0)
            return bl_fail(e->err, -1, BL_AT(nd->pos, nd->end - nd->pos, e->lane), PAT_DIVISION_BY_ZERO_IN,
                            node_text(e, n));
        if (a == LLONG_MIN && b == -1)
            goto overflow;
        *r = nd->op == '/' ? a / b : a % b;
        return 0;
    case P_SHL:
    case P_SHR:
        if (b < 0 || b > 63)
            return bl_fail(e->err, -1, BL_AT(nd->pos, nd->end - nd->pos, e->lane),
                           PAT_SHIFT_COUNT_IS_OUT_OF, b, node_text(e, n));
        if (nd->op == P_SHR) {
            *r = a >> b;
            return 0;
        }
        /* a << b is a * 2^b (negative values too, as on the GPU), overflow reported */
        if (b == 63) {
            if (a != 0 && a != -1)
                goto overflow;
            *r = a ? LLONG_MIN : 0;
            return 0;
        }
        if (__builtin_mul_overflow(a, (long long)1 << b, r))
            goto overflow;
        return 0;
    case '&': *r = a & b; return 0;
    case '|': *r = a | b; return 0;
    case '^': *r = a ^ b; return 0;
    case '<': *r = a < b; return 0;
    case '>': *r = a > b; return 0;
    case P_LE: *r = a <= b; return 0;
    case P_GE: *r = a >= b; return 0;
    case P_EQ: *r = a == b; return 0;
    case P_NE: *r = a != b; return 0;
    default:
        return bl_fail(e->err, -1, BL_AT(nd->pos, nd->end - nd->pos, e->lane), PAT_INTERNAL_ERROR_OPERATOR,
                        nd->op);
    }
overflow:
    return bl_fail(e->err, -1, BL_AT(nd->pos, nd->end - nd->pos, e->lane),
                    PAT_INTEGER_OVERFLOW_IN_AND, node_text(e, n), a, b);
}

/* Adds idx * size to a byte offset, with overflow checks. */
static int add_scaled(struct ev *e, int n, long long off, long long idx, long long size,
                      long long *out)
{
    long long d;
    if (__builtin_mul_overflow(idx, size, &d) || __builtin_add_overflow(off, d, out)) {
        const struct node *nd = &e->p->node[n];
        return bl_fail(e->err, -1, BL_AT(nd->pos, nd->end - nd->pos, e->lane),
                       PAT_INTEGER_OVERFLOW_COMPUTING_THE_ADDRESS, node_text(e, n));
    }
    return 0;
}

/* a[idx] (node n): an element of a static array (bounds-checked, its dimension's stride) or
 * of a pointer or extern array (the element size). */
static int eval_index(struct ev *e, int n, struct val *out)
{
    const struct pattern *p = e->p;
    const struct node *nd = &p->node[n];
    long long idx;
    if (eval(e, nd->a, out) < 0 || eval_int(e, nd->b, &idx) < 0)
        return -1;
    const struct node *base = &p->node[nd->a];
    if (base->vk == VK_ARR && !p->arr[base->arr].is_extern) {
        const struct pattern_array_info *ai = &e->lay.array[base->arr];
        long long dim = ai->dims[base->level];
        const struct node *in = &p->node[nd->b];
        if (idx < 0 || idx >= dim)
            return bl_fail(e->err, -1, BL_AT(in->pos, in->end - in->pos, e->lane),
                           PAT_INDEX_IS_OUT_OF_BOUNDS, idx, base->level + 1, ai->name, dim);
        return add_scaled(e, n, out->i, idx, e->stride[base->arr][base->level], &out->i);
    }
    return add_scaled(e, n, out->i, idx, nd->v, &out->i);
}

/* -a, ~a, !a (node n). */
static int eval_unary(struct ev *e, int n, struct val *out)
{
    const struct node *nd = &e->p->node[n];
    struct val a;
    if (eval(e, nd->a, &a) < 0)
        return -1;
    if (nd->op == '-') {
        if (a.i == LLONG_MIN)
            return bl_fail(e->err, -1, BL_AT(nd->pos, nd->end - nd->pos, e->lane),
                            PAT_INTEGER_OVERFLOW_IN, node_text(e, n));
        out->i = -a.i;
    } else if (nd->op == '~') {
        out->i = ~a.i;
    } else {
        out->i = !a.i;
    }
    return 0;
}

static int eval_swizzle(struct ev *e, int n, struct val *out);

static int eval(struct ev *e, int n, struct val *out)
{
    const struct pattern *p = e->p;
    const struct node *nd = &p->node[n];
    struct val a, b;
    out->region = -1;
    out->i = 0;
    switch (nd->kind) {
    case N_NUM:
        out->i = nd->v;
        return 0;
    case N_BUILTIN:
        out->i = e->b[nd->op];
        return 0;
    case N_PARAM:
        if (!e->pset[nd->arr]) {
            /* not the lane's fault: no "lane N:" before it (callers match "unknown name"), but
             * the lane that met it is recorded */
            const char *name = p->param[nd->arr].name;
            bl_fail(e->err, -1, BL_AT((int)nd->v, (int)strlen(name), -1),
                     PAT_UNKNOWN_NAME_GIVE_IT_A, name, name);
            e->err->lane = e->lane;
            return -1;
        }
        out->i = e->pval[nd->arr];
        return 0;
    case N_LOCAL:
        *out = e->loc[nd->arr];
        return 0;
    case N_ARRAY:
        out->region = nd->arr;
        return 0;
    case N_UN:
        return eval_unary(e, n, out);
    case N_BIN:
        if (nd->op == P_ANDAND || nd->op == P_OROR) {
            if (eval(e, nd->a, &a) < 0)
                return -1;
            if ((nd->op == P_ANDAND) == (a.i == 0)) {
                out->i = nd->op == P_OROR;
                return 0;
            }
            if (eval(e, nd->b, &b) < 0)
                return -1;
            out->i = b.i != 0;
            return 0;
        }
        if (eval(e, nd->a, &a) < 0 || eval(e, nd->b, &b) < 0)
            return -1;
        return eval_bin(e, n, a.i, b.i, &out->i);
    case N_COND:
        if (eval(e, nd->a, &a) < 0)
            return -1;
        return eval(e, a.i ? nd->b : nd->c, out);
    case N_MIN:
    case N_MAX:
        if (eval(e, nd->a, &a) < 0 || eval(e, nd->b, &b) < 0)
            return -1;
        out->i = nd->kind == N_MIN ? (a.i < b.i ? a.i : b.i) : (a.i > b.i ? a.i : b.i);
        return 0;
    case N_SWZ:
        return eval_swizzle(e, n, out);
    case N_INDEX:
        return eval_index(e, n, out);
    case N_MEMBER:
        if (eval(e, nd->a, out) < 0)
            return -1;
        return add_scaled(e, n, out->i, 1, nd->v, &out->i);
    case N_DEREF:
    case N_ADDR:
    case N_PCAST:
    case N_ALIAS:
        return eval(e, nd->a, out);
    case N_PADD: {
        long long k;
        if (eval(e, nd->a, out) < 0 || eval_int(e, nd->b, &k) < 0)
            return -1;
        if (nd->op == '-') {
            if (k == LLONG_MIN) {
                return bl_fail(e->err, -1, BL_AT(nd->pos, nd->end - nd->pos, e->lane),
                                PAT_INTEGER_OVERFLOW_IN, node_text(e, n));
            }
            k = -k;
        }
        return add_scaled(e, n, out->i, k, nd->v, &out->i);
    }
    default:
        return bl_fail(e->err, -1, BL_AT(nd->pos, nd->end - nd->pos, e->lane),
                        PAT_INTERNAL_ERROR_THIS_VALUE_CANNOT);
    }
}

/* swizzle(B, M, S, x) (node n): bank_swizzle, with its arguments checked. */
static int eval_swizzle(struct ev *e, int n, struct val *out)
{
    const struct node *nd = &e->p->node[n];
    const struct node *bms = &e->p->node[nd->b];
    long long x, b, m, s;
    if (eval_int(e, nd->a, &x) < 0 || eval_int(e, bms->a, &b) < 0 ||
        eval_int(e, bms->b, &m) < 0 || eval_int(e, bms->c, &s) < 0)
        return -1;
    if (!bank_swizzle_ok(b, m, s))
        return bl_fail(e->err, -1, BL_AT(nd->pos, nd->end - nd->pos, e->lane),
                        PAT_SWIZZLE_RANGE, b, m, s);
    if (x < 0)
        return bl_fail(e->err, -1, BL_AT(nd->pos, nd->end - nd->pos, e->lane),
                        PAT_SWIZZLE_NEGATIVE, x);
    out->i = (long long)bank_swizzle((unsigned)b, (unsigned)m, (unsigned)s, (uint64_t)x);
    return 0;
}

/* Places static array i at the next multiple of its alignment from *off: its dimensions,
 * strides and size, each checked against the 48 KB static limit. */
static int place_static(struct ev *e, int i, uint64_t *off)
{
    const struct pattern *p = e->p;
    const struct array *a = &p->arr[i];
    struct pattern_array_info *ai = &e->lay.array[i];
    const struct ctype *t = &p->type[a->elem];
    unsigned long long bytes = t->size;
    for (int d = 0; d < a->ndims; d++) {
        long long v;
        if (eval_int(e, a->dim_node[d], &v) < 0)
            return -1;
        if (v <= 0) {
            const struct node *dn = &p->node[a->dim_node[d]];
            return bl_fail(e->err, -1, BL_AT(dn->pos, dn->end - dn->pos, -1),
                           PAT_DIMENSION_OF_IS_IT_MUST, d + 1, ai->name, v);
        }
        ai->dims[d] = v;
        if (__builtin_mul_overflow(bytes, (unsigned long long)v, &bytes) ||
            bytes > PATTERN_STATIC_LIMIT)
            return bl_fail(e->err, -1, BL_AT(a->pos, a->len, -1), PAT_SHARED_ARRAY_IS_LARGER_THAN, ai->name,
                            PATTERN_STATIC_LIMIT);
    }
    long long *stride = e->stride[i];
    for (int d = a->ndims - 1; d >= 0; d--)
        stride[d] = d == a->ndims - 1 ? (long long)t->size : stride[d + 1] * ai->dims[d + 1];
    unsigned long long align = t->align;
    if (a->align_node >= 0) {
        long long v;
        if (eval_int(e, a->align_node, &v) < 0)
            return -1;
        if (v <= 0 || v > 4096 || (v & (v - 1))) {
            const struct node *an = &p->node[a->align_node];
            return bl_fail(e->err, -1, BL_AT(an->pos, an->end - an->pos, -1),
                           PAT_ALIGN_THE_ALIGNMENT_MUST_BE, v);
        }
        if ((unsigned long long)v > align)
            align = (unsigned long long)v;
    }
    *off = (*off + align - 1) / align * align;
    ai->base = *off;
    ai->bytes = bytes;
    *off += bytes;
    if (*off > PATTERN_STATIC_LIMIT)
        return bl_fail(e->err, -1, BL_AT(a->pos, a->len, -1),
                        PAT_STATIC_SHARED_MEMORY_BYTES_EXCEEDS,
                        (unsigned long long)*off, PATTERN_STATIC_LIMIT);
    return 0;
}

/* Lays out the arrays into e->lay: static in declaration order, dynamic at the first multiple
 * of 16 after; carved pointers at 0 until a lane carves them. */
static int layout(struct ev *e, const struct pattern_env *env)
{
    const struct pattern *p = e->p;
    e->lay.narrays = p->narrays;
    for (int i = 0; i < p->narrays; i++)
        e->lay.array[i] = p->arr[i].info;
    uint64_t off = 0;
    for (int i = 0; i < p->narrays; i++)
        if (!p->arr[i].is_ptr && !p->arr[i].is_extern && place_static(e, i, &off) < 0)
            return -1;
    uint64_t dyn_base = (off + 15) / 16 * 16;
    uint64_t limit = env->smem_limit ? env->smem_limit : PATTERN_DEFAULT_SMEM_LIMIT;
    if (env->dyn_bytes > limit || off + env->dyn_bytes > limit) {
        int at = -1, len = 0; /* point at the first extern array, if any */
        for (int i = 0; i < p->narrays && at < 0; i++)
            if (p->arr[i].is_extern) {
                at = p->arr[i].pos;
                len = p->arr[i].len;
            }
        return bl_fail(e->err, -1, BL_AT(at, len, -1), PAT_SHARED_MEMORY_PER_BLOCK_IS,
                        (unsigned long long)off, (unsigned long long)env->dyn_bytes,
                        (unsigned long long)limit);
    }
    for (int i = 0; i < p->narrays; i++) {
        if (p->arr[i].is_extern)
            e->lay.array[i].base = dyn_base;
        if (p->arr[i].is_extern || p->arr[i].is_ptr)
            e->lay.array[i].bytes = 0;
    }
    e->dyn_bytes = env->dyn_bytes;
    return 0;
}

/* Checks that a pointer/lvalue at v of type `type` is inside its region and aligned. `name`
 * names it for messages. */
static int check_place(struct ev *e, int n, struct val v, int type, const char *name,
                       int is_ptr)
{
    const struct pattern *p = e->p;
    const struct node *nd = &p->node[n];
    int pos = nd->pos, len = nd->end - nd->pos;
    if (v.region < 0 || v.region >= p->narrays)
        return bl_fail(e->err, -1, BL_AT(pos, len, e->lane), PAT_INTERNAL_ERROR_NO_REGION);
    const struct array *r = &p->arr[v.region];
    const struct pattern_array_info *ri = &e->lay.array[v.region];
    const struct ctype *t = &p->type[type];
    uint64_t size = r->is_extern ? e->dyn_bytes : ri->bytes;
    if (!is_ptr && v.i < 0)
        return bl_fail(e->err, -1, BL_AT(pos, len, e->lane), PAT_IS_AT_BYTE_OFFSET_BEFORE,
                        name, v.i, r->is_extern ? "dynamic shared memory" : r->info.name);
    if (!is_ptr && (uint64_t)v.i + t->size > size) {
        if (r->is_extern)
            return bl_fail(e->err, -1, BL_AT(pos, len, e->lane), PAT_ACCESSES_BYTES_OF_DYNAMIC_SHARED,
                            name, v.i,
                            v.i + (long long)t->size - 1, (unsigned long long)size);
        return bl_fail(e->err, -1, BL_AT(pos, len, e->lane), PAT_ACCESSES_BYTES_OF_PAST_ITS, name,
                       v.i, v.i + (long long)t->size - 1, r->info.name, (unsigned long long)size);
    }
    /* pointers may point anywhere (only accesses must be inside); they must be aligned */
    uint64_t abs = ri->base + (uint64_t)v.i;
    if (abs % t->align) {
        if (is_ptr)
            return bl_fail(e->err, -1, BL_AT(pos, len, e->lane), PAT_IS_A_POINTER_AT_BYTE, name, t->name,
                            r->is_extern ? v.i : (long long)abs, t->align);
        return bl_fail(e->err, -1, BL_AT(pos, len, e->lane), PAT_MISALIGNED_BYTE_ACCESS_AT_BYTE,
                       t->size, t->name, r->is_extern ? v.i : (long long)abs, t->align);
    }
    return 0;
}

/* Runs statements 0..last for the current lane: locals, carved pointers, and the access
 * (statement `last`) into acc unless its guard is false. */
static int run_lane(struct ev *e, int which, struct bank_access *acc)
{
    const struct pattern *p = e->p;
    int last = p->acc_stmt[which];
    for (int si = 0; si <= last; si++) {
        const struct stmt *s = &p->stmt[si];
        struct val v;
        if (s->kind == S_LOCAL) {
            if (eval(e, s->node, &v) < 0)
                return -1;
            e->loc[s->slot] = v;
        } else if (s->kind == S_PTR) {
            if (eval(e, s->node, &v) < 0)
                return -1;
            const struct local *l = &p->loc[s->slot];
            if (check_place(e, s->node, v, l->type, l->name, 1) < 0)
                return -1;
            e->loc[s->slot] = v;
            if (!e->ptr_seen[l->array]) {
                struct pattern_array_info *pa = &e->lay.array[l->array];
                e->ptr_seen[l->array] = 1;
                pa->base = e->lay.array[v.region].base + (uint64_t)v.i;
                pa->dynamic = p->arr[v.region].is_extern;
            }
        } else if (si == last) {
            if (s->guard >= 0) {
                long long g;
                if (eval_int(e, s->guard, &g) < 0)
                    return -1;
                if (!g)
                    return 0;
            }
            if (eval(e, s->node, &v) < 0)
                return -1;
            int ty = s->rowtype >= 0 ? s->rowtype : p->node[s->node].type;
            if (check_place(e, s->node, v, ty, p->acc[which].array, 0) < 0)
                return -1;
            acc->mask |= 1u << e->lane;
            acc->offset[e->lane] = e->lay.array[v.region].base + (uint64_t)v.i;
        }
    }
    return 0;
}

/* Runs access `which` for each lane of warp env->warp that is inside the block. */
static int run_warp(struct ev *e, const struct pattern_env *env, int which,
                    struct bank_access *acc)
{
    unsigned long long bx = env->block[0], by = env->block[1], bz = env->block[2], nthreads, bxy;
    if (__builtin_mul_overflow(bx, by, &bxy))
        bxy = ULLONG_MAX;
    if (__builtin_mul_overflow(bxy, bz, &nthreads))
        nthreads = ULLONG_MAX;
    unsigned long long tid0 = (unsigned long long)env->warp * 32u;
    unsigned long long x = 0, y = 0, z = 0;
    if (tid0 < nthreads) { /* then bx, by, bz > 0 */
        x = tid0 % bx;
        y = tid0 / bx % by;
        z = tid0 / bxy;
    }
    e->b[B_WARP] = (long long)env->warp;
    for (int lane = 0; lane < BANK_LANES; lane++) {
        unsigned long long tid = tid0 + (unsigned)lane;
        if (tid >= nthreads)
            break; /* the lanes after are past the block too */
        e->lane = lane;
        e->b[B_TX] = (long long)x;
        e->b[B_TY] = (long long)y;
        e->b[B_TZ] = (long long)z;
        e->b[B_LANE] = lane;
        e->b[B_TID] = (long long)tid;
        if (++x == bx) { /* the next thread's index */
            x = 0;
            if (++y == by) {
                y = 0;
                z++;
            }
        }
        if (run_lane(e, which, acc) < 0)
            return -1;
    }
    return 0;
}

int pattern_eval(const struct pattern *p, const struct pattern_env *env, int which,
                 struct bank_access *acc, struct pattern_layout *layout_out,
                 struct bl_err *err)
{
    struct bl_err dummy;
    if (!err)
        err = &dummy;
    bl_err_clear(err);
    if (!p || !env || !acc)
        return bl_fail(err, -1, BL_AT(-1, 0, -1), PAT_NO_PATTERN_OR_ENVIRONMENT);
    if (which < 0 || which >= p->naccs)
        return bl_fail(err, -1, BL_AT(-1, 0, -1), PAT_NO_ACCESS_NUMBER_THE_PATTERN, which,
                        p->naccs);
    struct ev ev_storage;
    struct ev *e = &ev_storage;
    memset(e, 0, offsetof(struct ev, lay));
    e->p = p;
    e->err = err;
    e->lane = -1;
    int nenv = env->nparams < 0 ? 0 : env->nparams > PATTERN_MAX_PARAMS ? PATTERN_MAX_PARAMS
                                                                         : env->nparams;
    for (int i = 0; i < p->nparams; i++)
        for (int k = 0; k < nenv; k++)
            if (strncmp(env->param[k].name, p->param[i].name, PATTERN_NAME_MAX) == 0) {
                e->pval[i] = env->param[k].value;
                e->pset[i] = 1;
                break;
            }
    e->b[B_BX] = env->block[0];
    e->b[B_BY] = env->block[1];
    e->b[B_BZ] = env->block[2];
    e->b[B_WARPSIZE] = 32;
    if (layout(e, env) < 0)
        return -1;
    const struct pattern_access_info *ai = &p->acc[which];
    memset(acc, 0, sizeof *acc);
    acc->width = ai->width;
    acc->op = ai->kind == PATTERN_STORE ? BANK_STORE : BANK_LOAD;
    acc->instr = (uint8_t)ai->instr;
    acc->matrices = (uint8_t)ai->matrices;
    acc->trans = (uint8_t)ai->trans;
    if (run_warp(e, env, which, acc) < 0)
        return -1;
    if (layout_out) {
        layout_out->narrays = e->lay.narrays;
        memcpy(layout_out->array, e->lay.array, sizeof e->lay.array[0] * (size_t)e->lay.narrays);
    }
    return 0;
}
