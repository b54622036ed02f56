/* pattern_expr.c: expressions of the pattern language, by precedence: primaries (numbers,
 * names, builtins, min/max, sizeof), postfix [] . ->, unary and casts, binary operators and
 * ?:, each node typed (integer, opaque, pointer, array, lvalue) as it is built. Depth-bounded.
 * Depends on pattern_type.c, pattern_parse.c and pattern_text.c; not on statements. */
#include "pattern_internal.h"

#include <string.h>

static int parse_cond(struct parser *ps);
static int parse_unary(struct parser *ps);

/* The value of an lvalue or array used as a number or pointer: a shared read (opaque) or a
 * decayed pointer. Other nodes are returned unchanged. */
int pat_rvalue(struct parser *ps, int n)
{
    if (n < 0)
        return n;
    struct node *nd = &ps->p->node[n];
    if (nd->vk == VK_LVAL) {
        int r = pat_new_node(ps, N_READ, VK_OPQ, nd->pos, nd->end);
        if (r < 0)
            return -1;
        ps->p->node[r].type = ps->p->node[n].type;
        if (ps->reads++ == 0)
            ps->read_node = n;
        return pat_link(ps, r, n, -1, -1);
    }
    if (nd->vk == VK_ARR) {
        const struct array *a = &ps->p->arr[nd->arr];
        int r = pat_new_node(ps, N_PCAST, VK_PTR, nd->pos, nd->end);
        if (r < 0)
            return -1;
        ps->p->node[r].type = a->elem;
        return pat_link(ps, r, n, -1, -1);
    }
    return n;
}

/* pat_rvalue() that must be an integer. */
int pat_int_value(struct parser *ps, int n, const char *what)
{
    n = pat_rvalue(ps, n);
    if (n < 0)
        return -1;
    const struct node *nd = &ps->p->node[n];
    if (nd->vk == VK_INT)
        return n;
    return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1),
                   nd->vk == VK_OPQ ? PAT_IS_NOT_AN_INTEGER_THE : PAT_IS_A_POINTER_NOT_AN, what,
                   pat_node_text(ps, nd));
}

static int parse_builtin_member(struct parser *ps, const struct token *t, int base)
{
    /* threadIdx.x etc: t is the identifier, '.' and x/y/z follow */
    if (!is_punct(peek(ps, 0), '.'))
        return bl_fail(ps->err, -1, BL_AT(peek(ps, 0)->pos, peek(ps, 0)->len, -1),
                        PAT_EXPECTED_X_Y_OR_Z, t->len,
                        ps->s + t->pos, pat_tok_desc(ps, peek(ps, 0)));
    const struct token *m = peek(ps, 1);
    int which = -1;
    if (tok_is(ps, m, "x")) which = 0;
    else if (tok_is(ps, m, "y")) which = 1;
    else if (tok_is(ps, m, "z")) which = 2;
    if (which < 0)
        return bl_fail(ps->err, -1, BL_AT(m->pos, m->len, -1), PAT_EXPECTED_X_Y_OR_Z_2, t->len,
                       ps->s + t->pos, pat_tok_desc(ps, m));
    ps->i += 2;
    int id = pat_new_node(ps, N_BUILTIN, VK_INT, t->pos, m->pos + m->len);
    if (id < 0)
        return -1;
    ps->p->node[id].op = (short)(base + which);
    return id;
}

/* sizeof(TYPE) or sizeof EXPR-of-shared-type */
static int parse_sizeof(struct parser *ps, const struct token *t)
{
    int paren = is_punct(peek(ps, 0), '(');
    int type = -1;
    if (paren && pat_is_type_start(ps, peek(ps, 1))) {
        ps->i++;
        if (pat_parse_type(ps, &type) < 0)
            return -1;
        if (is_punct(peek(ps, 0), '*'))
            return bl_fail(ps->err, -1, BL_AT(peek(ps, 0)->pos, 1, -1), PAT_SIZEOF_OF_A_POINTER_IS);
        if (pat_expect(ps, ')', "after the type in sizeof") < 0)
            return -1;
    } else {
        int saved_reads = ps->reads, saved_node = ps->read_node;
        int e = parse_unary(ps);
        if (e < 0)
            return -1;
        ps->reads = saved_reads;
        ps->read_node = saved_node;
        const struct node *nd = &ps->p->node[e];
        if (nd->vk == VK_LVAL || nd->vk == VK_PTR)
            type = nd->vk == VK_LVAL ? nd->type : -1;
        if (nd->vk == VK_PTR)
            return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1),
                            PAT_SIZEOF_OF_A_POINTER_IS);
        if (type < 0)
            return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1),
                            PAT_SIZEOF_NEEDS_A_TYPE_OR);
    }
    int id = pat_new_node(ps, N_NUM, VK_INT, t->pos, peek(ps, -1)->pos + peek(ps, -1)->len);
    if (id < 0)
        return -1;
    ps->p->node[id].v = ps->p->type[type].size;
    return id;
}

/* A local in an expression: its value node, or in a constant context a const local's
 * initializer (evaluated in place); other locals are not constants. */
static int local_ref(struct parser *ps, const struct token *t, int li, const char *name)
{
    struct pattern *p = ps->p;
    const struct local *l = &p->loc[li];
    int end = t->pos + t->len;
    if (ps->const_ctx && l->const_init >= 0) {
        int id = pat_new_node(ps, N_ALIAS, VK_INT, t->pos, end);
        return id < 0 ? -1 : pat_link(ps, id, l->const_init, -1, -1);
    }
    if (ps->const_ctx)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_ARRAY_DIMENSIONS_MUST_BE_CONSTANTS,
                           name);
    int vk = l->kind == L_INT ? VK_INT : l->kind == L_OPQ ? VK_OPQ : VK_PTR;
    int id = pat_new_node(ps, N_LOCAL, vk, t->pos, end);
    if (id >= 0) {
        p->node[id].arr = li;
        p->node[id].type = l->type;
    }
    return id;
}

/* A shared array in an expression: an array to index, or the element of a scalar one. */
static int array_ref(struct parser *ps, const struct token *t, int ai, const char *name)
{
    struct pattern *p = ps->p;
    if (ps->const_ctx)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_ARRAY_DIMENSIONS_MUST_BE_CONSTANTS,
                           name);
    const struct array *a = &p->arr[ai];
    int scalar = !a->is_extern && a->ndims == 0;
    int id = pat_new_node(ps, N_ARRAY, scalar ? VK_LVAL : VK_ARR, t->pos, t->pos + t->len);
    if (id >= 0) {
        p->node[id].arr = ai;
        p->node[id].level = 0;
        p->node[id].type = a->elem;
    }
    return id;
}

/* min(a, b) or max(a, b), t the name: integer, or opaque when an argument is. */
static int parse_min_max(struct parser *ps, const struct token *t, const char *name)
{
    struct pattern *p = ps->p;
    if (pat_expect(ps, '(', name[1] == 'i' ? "after 'min'" : "after 'max'") < 0)
        return -1;
    int a = parse_cond(ps);
    if (a < 0 || (a = pat_rvalue(ps, a)) < 0)
        return -1;
    if (pat_expect(ps, ',', "between the arguments") < 0)
        return -1;
    int b = parse_cond(ps);
    if (b < 0 || (b = pat_rvalue(ps, b)) < 0)
        return -1;
    if (pat_expect(ps, ')', "after the arguments") < 0)
        return -1;
    int end = peek(ps, -1)->pos + 1;
    int opq = p->node[a].vk == VK_OPQ || p->node[b].vk == VK_OPQ;
    if (!opq) {
        if ((a = pat_int_value(ps, a, "argument")) < 0 ||
            (b = pat_int_value(ps, b, "argument")) < 0)
            return -1;
    } else if (p->node[a].vk > VK_OPQ || p->node[b].vk > VK_OPQ) {
        return bl_fail(ps->err, -1, BL_AT(t->pos, end - t->pos, -1), PAT_OF_A_POINTER, name);
    }
    int id = pat_new_node(ps, opq ? N_OPQ : name[1] == 'i' ? N_MIN : N_MAX,
                          opq ? VK_OPQ : VK_INT, t->pos, end);
    return id < 0 ? -1 : pat_link(ps, id, a, b, -1);
}

/* swizzle(B, M, S, x), t the name: CuTe's Swizzle<B,M,S> applied to the integer x. */
static int parse_swizzle(struct parser *ps, const struct token *t)
{
    if (pat_expect(ps, '(', "after 'swizzle'") < 0)
        return -1;
    int arg[4];
    static const char *const what[4] = {"B (bits)", "M (base)", "S (shift)", "the offset"};
    for (int k = 0; k < 4; k++) {
        if (k > 0 && pat_expect(ps, ',', "between the arguments of swizzle(B, M, S, x)") < 0)
            return -1;
        arg[k] = parse_cond(ps);
        if (arg[k] < 0 || (arg[k] = pat_int_value(ps, arg[k], what[k])) < 0)
            return -1;
    }
    if (pat_expect(ps, ')', "after the arguments of swizzle(B, M, S, x)") < 0)
        return -1;
    int end = peek(ps, -1)->pos + 1;
    int bms = pat_new_node(ps, N_SWZP, VK_INT, t->pos, end);
    if (bms < 0 || pat_link(ps, bms, arg[0], arg[1], arg[2]) < 0)
        return -1;
    int id = pat_new_node(ps, N_SWZ, VK_INT, t->pos, end);
    return id < 0 ? -1 : pat_link(ps, id, arg[3], bms, -1);
}

/* A name nothing declared: an error where it cannot be a parameter (blockIdx, a reserved word
 * or a type, a call, a member or an index), else a parameter, registered at its first use. */
static int parse_param(struct parser *ps, const struct token *t, const char *name)
{
    struct pattern *p = ps->p;
    if (strcmp(name, "blockIdx") == 0 || strcmp(name, "gridDim") == 0)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_IS_NOT_MODELLED_BANKLAB_SHOWS, name);
    if (pat_is_reserved(name) || pat_find_type(p, name) >= 0 || pat_find_typedef(p, name) >= 0)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_CANNOT_BE_USED_HERE, name);
    const struct token *nx = peek(ps, 0);
    if (is_punct(nx, '('))
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_UNKNOWN_FUNCTION_ONLY_MIN_AND,
                        name);
    if (is_punct(nx, '.') || is_punct(nx, '[') || is_punct(nx, P_ARROW))
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1),
                        PAT_UNKNOWN_NAME_DECLARE_IT_BEFORE, name);
    int pi = pat_find_param(p, name);
    if (pi < 0) {
        if (p->nparams >= PATTERN_MAX_PARAMS)
            return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_TOO_MANY_PARAMETERS_AT_MOST,
                            PATTERN_MAX_PARAMS);
        pi = p->nparams++;
        pat_copy_name(p->param[pi].name, name);
        p->param[pi].pos = t->pos;
        p->param[pi].len = t->len;
    }
    int id = pat_new_node(ps, N_PARAM, VK_INT, t->pos, t->pos + t->len);
    if (id >= 0) {
        p->node[id].arr = pi;
        p->node[id].v = t->pos; /* the name itself, even if parentheses widen the node */
    }
    return id;
}

/* An identifier t (consumed) in an expression: a local, an array, a builtin, min/max, sizeof,
 * or else a parameter. */
static int parse_name(struct parser *ps, const struct token *t)
{
    struct pattern *p = ps->p;
    char name[PATTERN_NAME_MAX];
    tok_name(ps, t, name);
    int k = pat_find_local(p, name);
    if (k >= 0)
        return local_ref(ps, t, k, name);
    if ((k = pat_find_array(p, name)) >= 0)
        return array_ref(ps, t, k, name);
    if (strcmp(name, "threadIdx") == 0 || strcmp(name, "blockDim") == 0) {
        if (ps->const_ctx && name[0] == 't')
            return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_ARRAY_DIMENSIONS_MUST_BE_CONSTANTS,
                           name);
        return parse_builtin_member(ps, t, name[0] == 't' ? B_TX : B_BX);
    }
    static const char *const simple[] = {"lane", "warp", "tid", "warpSize"};
    static const int simple_b[] = {B_LANE, B_WARP, B_TID, B_WARPSIZE};
    for (k = 0; k < 4; k++) {
        if (strcmp(name, simple[k]) == 0) {
            if (ps->const_ctx && k < 3)  /* warpSize is a constant */
                return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_ARRAY_DIMENSIONS_MUST_BE_CONSTANTS,
                           name);
            int id = pat_new_node(ps, N_BUILTIN, VK_INT, t->pos, t->pos + t->len);
            if (id >= 0)
                p->node[id].op = (short)simple_b[k];
            return id;
        }
    }
    if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0)
        return parse_min_max(ps, t, name);
    if (strcmp(name, "swizzle") == 0 && is_punct(peek(ps, 0), '('))
        return parse_swizzle(ps, t);
    if (strcmp(name, "sizeof") == 0)
        return parse_sizeof(ps, t);
    return parse_param(ps, t, name);
}

/* A number, a parenthesized expression or a name. */
static int parse_primary(struct parser *ps)
{
    const struct token *t = peek(ps, 0);
    struct pattern *p = ps->p;
    if (t->kind == TK_INT) {
        ps->i++;
        int id = pat_new_node(ps, N_NUM, VK_INT, t->pos, t->pos + t->len);
        if (id >= 0)
            p->node[id].v = t->ival;
        return id;
    }
    if (t->kind == TK_FLOAT) {
        if (ps->const_ctx)
            return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_ARRAY_DIMENSIONS_MUST_BE_INTEGERS);
        ps->i++;
        return pat_new_node(ps, N_FLT, VK_OPQ, t->pos, t->pos + t->len);
    }
    if (is_punct(t, '(')) {
        ps->i++;
        int e = pat_parse_expr(ps);
        if (e < 0)
            return -1;
        if (pat_expect(ps, ')', "to close '('") < 0)
            return -1;
        /* widen the range to include the parentheses */
        p->node[e].pos = t->pos;
        p->node[e].end = peek(ps, -1)->pos + 1;
        return e;
    }
    if (t->kind != TK_IDENT) {
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_EXPECTED_AN_EXPRESSION_BUT_FOUND,
                        pat_tok_desc(ps, t));
    }
    ps->i++;
    return parse_name(ps, t);
}

static int parse_postfix(struct parser *ps)
{
    struct pattern *p = ps->p;
    int e = parse_primary(ps);
    for (;;) {
        if (e < 0)
            return -1;
        const struct token *t = peek(ps, 0);
        if (is_punct(t, '[')) {
            ps->i++;
            int base = e;
            struct node *bn = &p->node[base];
            if (bn->vk == VK_PTR || bn->vk == VK_ARR) {
                /* fine */
            } else {
                return bl_fail(ps->err, -1, BL_AT(bn->pos, bn->end - bn->pos, -1),
                               PAT_IS_NOT_AN_ARRAY_OR, pat_node_text(ps, bn));
            }
            int idx = pat_parse_expr(ps);
            if (idx < 0 || (idx = pat_int_value(ps, idx, "index")) < 0)
                return -1;
            if (pat_expect(ps, ']', "after the index") < 0)
                return -1;
            int end = peek(ps, -1)->pos + 1;
            bn = &p->node[base];
            int vk = VK_LVAL, level = 0, type = bn->type, arr = bn->arr;
            long long esize = p->type[type].size;
            if (bn->vk == VK_ARR) {
                const struct array *a = &p->arr[bn->arr];
                level = bn->level + 1;
                if (!a->is_extern && level < a->ndims)
                    vk = VK_ARR;
            }
            int id = pat_new_node(ps, N_INDEX, vk, bn->pos, end);
            if (id < 0)
                return -1;
            p->node[id].type = type;
            p->node[id].arr = arr;
            p->node[id].level = level;
            p->node[id].v = esize;
            e = pat_link(ps, id, base, idx, -1);
        } else if (is_punct(t, '.') || is_punct(t, P_ARROW)) {
            int arrow = is_punct(t, P_ARROW);
            const struct token *m = peek(ps, 1);
            struct node *bn = &p->node[e];
            if (arrow ? bn->vk != VK_PTR : bn->vk != VK_LVAL)
                return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_HAS_NO_MEMBERS_NEEDS,
                                pat_node_text(ps, bn),
                                arrow ? "->" : ".", arrow ? "a pointer to a struct or vector"
                                                          : "a struct or vector element");
            if (m->kind != TK_IDENT)
                return bl_fail(ps->err, -1, BL_AT(m->pos, m->len, -1), PAT_EXPECTED_A_MEMBER_NAME_BUT,
                                pat_tok_desc(ps, m));
            char name[PATTERN_NAME_MAX];
            tok_name(ps, m, name);
            int f = pat_find_field(p, bn->type, name);
            if (f < 0)
                return bl_fail(ps->err, -1, BL_AT(m->pos, m->len, -1), PAT_HAS_NO_MEMBER,
                                p->type[bn->type].nfields ? "type" : "scalar type",
                                p->type[bn->type].name, name);
            ps->i += 2;
            int base = e;
            if (arrow) {
                int d = pat_new_node(ps, N_DEREF, VK_LVAL, bn->pos, bn->end);
                if (d < 0)
                    return -1;
                p->node[d].type = p->node[base].type;
                if ((base = pat_link(ps, d, base, -1, -1)) < 0)
                    return -1;
            }
            int id = pat_new_node(ps, N_MEMBER, VK_LVAL, p->node[base].pos, m->pos + m->len);
            if (id < 0)
                return -1;
            p->node[id].type = p->field[f].type;
            p->node[id].v = p->field[f].off;
            e = pat_link(ps, id, base, -1, -1);
        } else if (is_punct(t, P_INCDEC)) {
            return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_IS_NOT_SUPPORTED, ps->s + t->pos);
        } else if (is_punct(t, '(')) {
            const struct node *bn = &p->node[e];
            return bl_fail(ps->err, -1, BL_AT(t->pos, 1, -1), PAT_IS_NOT_A_FUNCTION_INDEX,
                           pat_node_text(ps, bn));
        } else {
            return e;
        }
    }
}

/* Node e as a shared memory pointer (an array decays to one): its node, or -1 with why
 * (what) it must be one. */
int pat_pointer_value(struct parser *ps, int e, const char *what)
{
    if (e >= 0 && ps->p->node[e].vk == VK_ARR)
        e = pat_rvalue(ps, e);
    if (e < 0 || ps->p->node[e].vk == VK_PTR)
        return e;
    const struct node *nd = &ps->p->node[e];
    if (nd->kind == N_PARAM) {
        const char *name = ps->p->param[nd->arr].name;
        return bl_fail(ps->err, -1, BL_AT((int)nd->v, (int)strlen(name), -1),
                       PAT_UNKNOWN_NAME_DECLARE_IT_FIRST, name, name);
    }
    return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1), PAT_IS_NOT_A_SHARED_MEMORY,
                   pat_node_text(ps, nd), what);
}

/* (TYPE) or (TYPE *) cast: at '(' with a type start after it. */
static int parse_cast(struct parser *ps)
{
    struct pattern *p = ps->p;
    const struct token *open = peek(ps, 0);
    ps->i++;
    int type;
    if (pat_parse_type(ps, &type) < 0)
        return -1;
    int ptr = pat_parse_pointer(ps, 0);
    if (ptr < 0)
        return -1;
    if (pat_expect(ps, ')', "to close the cast") < 0)
        return -1;
    int e = parse_unary(ps);
    if (e < 0)
        return -1;
    int end = p->node[e].end;
    if (ptr) {
        if ((e = pat_pointer_value(ps, e, "so it cannot be cast to a pointer")) < 0)
            return -1;
        int id = pat_new_node(ps, N_PCAST, VK_PTR, open->pos, end);
        if (id < 0)
            return -1;
        p->node[id].type = type;
        return pat_link(ps, id, e, -1, -1);
    }
    e = pat_rvalue(ps, e);
    if (e < 0)
        return -1;
    if (p->type[type].kind == TY_INT) {
        if (p->node[e].vk == VK_INT || p->node[e].vk == VK_OPQ) {
            /* integer casts are ignored (values stay 64-bit) */
            p->node[e].pos = open->pos;
            return e;
        }
    } else if (p->type[type].kind == TY_FLT && p->node[e].vk <= VK_OPQ) {
        int id = pat_new_node(ps, N_OPQ, VK_OPQ, open->pos, end);
        return id < 0 ? -1 : pat_link(ps, id, e, -1, -1);
    }
    return bl_fail(ps->err, -1, BL_AT(open->pos, end - open->pos, -1), PAT_CANNOT_CAST_THIS_VALUE_TO,
                    p->type[type].name);
}

/* A unary operator, a cast or a postfix expression, t its first token. */
static int unary(struct parser *ps, const struct token *t)
{
    struct pattern *p = ps->p;
    if (t->kind == TK_PUNCT && (t->punct == '-' || t->punct == '+' || t->punct == '!' ||
                                t->punct == '~')) {
        ps->i++;
        int e = parse_unary(ps), r;
        if (e < 0 || (e = pat_rvalue(ps, e)) < 0)
            return -1;
        if (p->node[e].vk == VK_OPQ) {
            r = pat_new_node(ps, N_OPQ, VK_OPQ, t->pos, p->node[e].end);
            return r < 0 ? -1 : pat_link(ps, r, e, -1, -1);
        }
        if ((e = pat_int_value(ps, e, "operand")) < 0)
            return -1;
        if (t->punct == '+') {
            p->node[e].pos = t->pos;
            return e;
        }
        if ((r = pat_new_node(ps, N_UN, VK_INT, t->pos, p->node[e].end)) < 0)
            return -1;
        p->node[r].op = (short)t->punct;
        return pat_link(ps, r, e, -1, -1);
    }
    if (is_punct(t, '*') || is_punct(t, '&')) {
        ps->i++;
        int e = parse_unary(ps), r;
        if (e >= 0 && t->punct == '*' && p->node[e].vk == VK_ARR)
            e = pat_rvalue(ps, e);
        if (e < 0)
            return -1;
        const struct node *nd = &p->node[e];
        if (t->punct == '*' && nd->vk != VK_PTR)
            return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1),
                           PAT_IS_NOT_A_POINTER_AND, pat_node_text(ps, nd));
        if (t->punct == '&' && nd->vk != VK_LVAL && nd->vk != VK_ARR)
            return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1),
                           PAT_NEEDS_A_SHARED_MEMORY_ELEMENT, pat_node_text(ps, nd));
        if (nd->vk == VK_ARR) {     /* &array: the decayed pointer */
            if ((r = pat_rvalue(ps, e)) >= 0)
                p->node[r].pos = t->pos;
            return r;
        }
        r = pat_new_node(ps, t->punct == '*' ? N_DEREF : N_ADDR, t->punct == '*' ? VK_LVAL : VK_PTR,
                         t->pos, p->node[e].end);
        if (r < 0)
            return -1;
        p->node[r].type = p->node[e].type;
        return pat_link(ps, r, e, -1, -1);
    }
    if (is_punct(t, P_INCDEC))
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_IS_NOT_SUPPORTED, ps->s + t->pos);
    if (is_punct(t, '(') && pat_is_type_start(ps, peek(ps, 1)))
        return parse_cast(ps);
    if (is_punct(t, '(') && peek(ps, 1)->kind == TK_IDENT && is_punct(peek(ps, 2), '*') &&
        is_punct(peek(ps, 3), ')')) {
        char name[PATTERN_NAME_MAX];
        tok_name(ps, peek(ps, 1), name);
        return bl_fail(ps->err, -1, BL_AT(peek(ps, 1)->pos, peek(ps, 1)->len, -1),
                       PAT_UNKNOWN_TYPE, name);
    }
    return parse_postfix(ps);
}

/* f (unary or cond) one level of nesting deeper, at most PATTERN_MAX_DEPTH */
static int nested(struct parser *ps, int (*f)(struct parser *ps, const struct token *t))
{
    const struct token *t = peek(ps, 0);
    if (++ps->depth > PATTERN_MAX_DEPTH)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1),
                       PAT_EXPRESSION_NESTED_TOO_DEEPLY_MORE, PATTERN_MAX_DEPTH);
    int r = f(ps, t);
    ps->depth--;
    return r;
}

static int parse_unary(struct parser *ps)
{
    return nested(ps, unary);
}

/* Binary operators by precedence (higher binds tighter). */
static int binop_prec(const struct token *t)
{
    if (t->kind != TK_PUNCT)
        return -1;
    switch (t->punct) {
    case P_OROR: return 1;
    case P_ANDAND: return 2;
    case '|': return 3;
    case '^': return 4;
    case '&': return 5;
    case P_EQ: case P_NE: return 6;
    case '<': case '>': case P_LE: case P_GE: return 7;
    case P_SHL: case P_SHR: return 8;
    case '+': case '-': return 9;
    case '*': case '/': case '%': return 10;
    default: return -1;
    }
}

static const char *op_name(int op, char *buf)
{
    switch (op) {
    case P_OROR: return "||";
    case P_ANDAND: return "&&";
    case P_EQ: return "==";
    case P_NE: return "!=";
    case P_LE: return "<=";
    case P_GE: return ">=";
    case P_SHL: return "<<";
    case P_SHR: return ">>";
    default: buf[0] = (char)op; buf[1] = 0; return buf;
    }
}

/* Combines l OP r with type rules: int op int, pointer +- int, opaque arithmetic. */
static int make_binary(struct parser *ps, int op, int l, int r, int oppos)
{
    struct pattern *p = ps->p;
    for (int k = 0; k < 2; k++) {
        const struct node *nd = &p->node[k ? r : l];
        if (nd->vk == VK_ARR && !p->arr[nd->arr].is_extern &&
            nd->level < p->arr[nd->arr].ndims - 1) {
            return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1), PAT_ARITHMETIC_ON_A_MULTI_DIMENSIONAL);
        }
    }
    if ((l = pat_rvalue(ps, l)) < 0 || (r = pat_rvalue(ps, r)) < 0)
        return -1;
    int lk = p->node[l].vk, rk = p->node[r].vk;
    int pos = p->node[l].pos, end = p->node[r].end;
    if (lk == VK_INT && rk == VK_INT) {
        int id = pat_new_node(ps, N_BIN, VK_INT, pos, end);
        if (id < 0)
            return -1;
        p->node[id].op = (short)op;
        return pat_link(ps, id, l, r, -1);
    }
    if ((op == '+' || op == '-') && (lk == VK_PTR) != (rk == VK_PTR) &&
        (lk == VK_PTR ? rk : lk) == VK_INT && !(op == '-' && rk == VK_PTR)) {
        int ptr = lk == VK_PTR ? l : r, off = lk == VK_PTR ? r : l;
        int id = pat_new_node(ps, N_PADD, VK_PTR, pos, end);
        if (id < 0)
            return -1;
        p->node[id].op = (short)op;
        p->node[id].type = p->node[ptr].type;
        p->node[id].v = p->type[p->node[ptr].type].size;
        return pat_link(ps, id, ptr, off, -1);
    }
    if ((lk == VK_INT || lk == VK_OPQ) && (rk == VK_INT || rk == VK_OPQ)) {
        int id = pat_new_node(ps, N_OPQ, VK_OPQ, pos, end);
        return id < 0 ? -1 : pat_link(ps, id, l, r, -1);
    }
    char b[4];
    return bl_fail(ps->err, -1, BL_AT(oppos, op > 255 ? 2 : 1, -1), PAT_INVALID_OPERANDS_TO,
                    op_name(op, b), lk == VK_PTR && rk == VK_PTR ? " (two pointers)"
                                                                  : " (a pointer)");
}

static int parse_binary(struct parser *ps, int minprec)
{
    int l = parse_unary(ps);
    for (;;) {
        if (l < 0)
            return -1;
        const struct token *t = peek(ps, 0);
        int prec = binop_prec(t);
        if (prec < minprec || prec < 0)
            return l;
        int op = t->punct, oppos = t->pos;
        ps->i++;
        int r = parse_binary(ps, prec + 1);
        if (r < 0)
            return -1;
        l = make_binary(ps, op, l, r, oppos);
    }
}

/* c ? a : b, or the binary expression c alone */
static int cond(struct parser *ps, const struct token *t)
{
    (void)t;
    struct pattern *p = ps->p;
    int c = parse_binary(ps, 1);
    if (c < 0 || !is_punct(peek(ps, 0), '?'))
        return c;
    ps->i++;
    int a = pat_parse_expr(ps), b;
    if (a < 0 || pat_expect(ps, ':', "in '?:'") < 0 || (b = parse_cond(ps)) < 0 ||
        (c = pat_rvalue(ps, c)) < 0 || (a = pat_rvalue(ps, a)) < 0 || (b = pat_rvalue(ps, b)) < 0)
        return -1;
    int ck = p->node[c].vk, ak = p->node[a].vk, bk = p->node[b].vk;
    if (ck > VK_OPQ || ak > VK_OPQ || bk > VK_OPQ)
        return bl_fail(ps->err, -1, BL_AT(p->node[c].pos, p->node[b].end - p->node[c].pos, -1),
                       PAT_WITH_POINTERS_IS_NOT_SUPPORTED);
    int opq = ck != VK_INT || ak != VK_INT || bk != VK_INT;
    int r = pat_new_node(ps, opq ? N_OPQ : N_COND, opq ? VK_OPQ : VK_INT, p->node[c].pos,
                         p->node[b].end);
    return r < 0 ? -1 : pat_link(ps, r, c, a, b);
}

static int parse_cond(struct parser *ps)
{
    return nested(ps, cond);
}

int pat_parse_expr(struct parser *ps)
{
    return parse_cond(ps);
}

/* A constant expression (array dimension, __align__). */
int pat_parse_const(struct parser *ps)
{
    ps->const_ctx = 1;
    int e = parse_cond(ps);
    ps->const_ctx = 0;
    if (e < 0)
        return -1;
    return pat_int_value(ps, e, "dimension");
}
