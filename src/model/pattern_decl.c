/* pattern_decl.c: declarations of the pattern language: __shared__ arrays (static and
 * extern, __align__), typedefs, and locals (integers, unknowns, carved pointers, loads into a
 * local), with the constant folding that lets const locals size arrays. Depends on
 * pattern_expr.c and below; not on pattern_stmt.c. */
#include "pattern_internal.h"

#include <string.h>

/* A name the pattern declared, a builtin, or a type: taken. */
static int name_taken(const struct parser *ps, const char *name)
{
    return pat_find_local(ps->p, name) >= 0 || pat_find_array(ps->p, name) >= 0 ||
           pat_find_typedef(ps->p, name) >= 0 || pat_find_type(ps->p, name) >= 0;
}

/* Checks that a new name can be declared at token t. */
static int check_new_name(struct parser *ps, const struct token *t, char *name)
{
    if (t->kind != TK_IDENT)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_EXPECTED_A_NAME_BUT_FOUND,
                        pat_tok_desc(ps, t));
    tok_name(ps, t, name);
    if (pat_is_reserved(name))
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_IS_A_RESERVED_WORD_NOT, name);
    if (name_taken(ps, name))
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_IS_ALREADY_DECLARED, name);
    if (pat_find_param(ps->p, name) >= 0)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_IS_DECLARED_AFTER_ITS_FIRST, name);
    return 0;
}

/* [extern|static|volatile]* __shared__ TYPE name[dims] (, name[dims])* */
int pat_parse_shared_decl(struct parser *ps)
{
    struct pattern *p = ps->p;
    int is_extern = 0, shared = 0, align_node = -1;
    const struct token *first = peek(ps, 0);
    for (;;) {
        const struct token *t = peek(ps, 0);
        if (tok_is(ps, t, "extern")) is_extern = 1;
        else if (tok_is(ps, t, "__shared__")) shared = 1;
        else if (tok_is(ps, t, "static") || tok_is(ps, t, "volatile")) { /* ignored */ }
        else if (tok_is(ps, t, "__align__")) {
            ps->i++;
            if (pat_expect(ps, '(', "after __align__") < 0)
                return -1;
            align_node = pat_parse_const(ps);
            if (align_node < 0 || pat_expect(ps, ')', "after the alignment") < 0)
                return -1;
            continue;
        } else break;
        ps->i++;
    }
    if (!shared)
        return bl_fail(ps->err, -1, BL_AT(first->pos, first->len, -1), PAT_EXPECTED_SHARED_BUT_FOUND,
                        pat_tok_desc(ps, peek(ps, 0)));
    int elem;
    if (pat_parse_type(ps, &elem) < 0)
        return -1;
    for (;;) {
        const struct token *nt = peek(ps, 0);
        if (is_punct(nt, '*'))
            return bl_fail(ps->err, -1, BL_AT(nt->pos, 1, -1), PAT_A_SHARED_POINTER_IS_NOT);
        char name[PATTERN_NAME_MAX];
        if (check_new_name(ps, nt, name) < 0)
            return -1;
        ps->i++;
        int ai = pat_add_array(ps, name, elem, nt);
        if (ai < 0)
            return -1;
        struct array *a = &p->arr[ai];
        a->align_node = align_node;
        if (is_extern) {
            a->is_extern = 1;
            a->info.dynamic = 1;
            if (pat_expect(ps, '[', "after the name of an extern __shared__ array") < 0 ||
                pat_expect(ps, ']', "(an extern __shared__ array has no size)") < 0)
                return -1;
        } else {
            while (is_punct(peek(ps, 0), '[')) {
                const struct token *ob = peek(ps, 0);
                if (a->ndims >= 3)
                    return bl_fail(ps->err, -1, BL_AT(ob->pos, 1, -1), PAT_MORE_THAN_3_DIMENSIONS);
                ps->i++;
                if (is_punct(peek(ps, 0), ']'))
                    return bl_fail(ps->err, -1, BL_AT(peek(ps, 0)->pos, 1, -1), PAT_A_STATIC_SHARED_ARRAY_NEEDS);
                int e = pat_parse_const(ps);
                if (e < 0)
                    return -1;
                if (pat_expect(ps, ']', "after the array size") < 0)
                    return -1;
                a = &p->arr[ai];
                a->dim_node[a->ndims++] = e;
            }
            a->info.ndims = a->ndims;
        }
        if (is_punct(peek(ps, 0), '='))
            return bl_fail(ps->err, -1, BL_AT(peek(ps, 0)->pos, 1, -1),
                            PAT_SHARED_VARIABLES_CANNOT_BE_INITIALIZED);
        if (!is_punct(peek(ps, 0), ','))
            break;
        ps->i++;
    }
    return 0;
}

/* typedef TYPE NAME */
int pat_parse_typedef(struct parser *ps)
{
    struct pattern *p = ps->p;
    ps->i++;
    int type;
    if (pat_parse_type(ps, &type) < 0)
        return -1;
    const struct token *nt = peek(ps, 0);
    if (is_punct(nt, '*'))
        return bl_fail(ps->err, -1, BL_AT(nt->pos, 1, -1), PAT_POINTER_TYPEDEFS_ARE_NOT_SUPPORTED);
    char name[PATTERN_NAME_MAX];
    if (check_new_name(ps, nt, name) < 0)
        return -1;
    if (p->ntdefs >= MAX_TYPEDEFS)
        return bl_fail(ps->err, -1, BL_AT(nt->pos, nt->len, -1), PAT_TOO_MANY_TYPEDEFS_AT_MOST,
                        MAX_TYPEDEFS);
    ps->i++;
    pat_copy_name(p->tdef[p->ntdefs].name, name);
    p->tdef[p->ntdefs].type = type;
    p->ntdefs++;
    return 0;
}

/* Is node n a constant: numbers, parameters, blockDim, warpSize and const locals only? */
static int is_constant(const struct pattern *p, int n)
{
    if (n < 0)
        return 1;
    const struct node *nd = &p->node[n];
    if (nd->vk != VK_INT)
        return 0;
    switch (nd->kind) {
    case N_NUM:
    case N_PARAM:
        return 1;
    case N_BUILTIN:
        return nd->op == B_BX || nd->op == B_BY || nd->op == B_BZ || nd->op == B_WARPSIZE;
    case N_LOCAL:
        return p->loc[nd->arr].const_init >= 0;
    case N_UN:
    case N_BIN:
    case N_COND:
    case N_MIN:
    case N_MAX:
    case N_SWZ:
    case N_SWZP:
    case N_ALIAS:
        /* depth is bounded by MAX_TREE_DEPTH (pat_link() checks it) */
        return is_constant(p, nd->a) && is_constant(p, nd->b) && is_constant(p, nd->c);
    default:
        return 0;
    }
}

/* A copy of constant node n where const locals are replaced by their initializers, so that it
 * can be evaluated without per-lane state (array dimensions). Returns the node or -1. */
static int const_copy(struct parser *ps, int n)
{
    struct pattern *p = ps->p;
    if (n < 0)
        return -1;
    const struct node *nd = &p->node[n];
    if (nd->kind == N_LOCAL) {
        int id = pat_new_node(ps, N_ALIAS, VK_INT, nd->pos, nd->end);
        return id < 0 ? -1 : pat_link(ps, id, p->loc[nd->arr].const_init, -1, -1);
    }
    if (nd->a < 0 && nd->b < 0 && nd->c < 0)
        return n;
    int a = nd->a >= 0 ? const_copy(ps, nd->a) : -1;
    int b = p->node[n].b >= 0 ? const_copy(ps, p->node[n].b) : -1;
    int c = p->node[n].c >= 0 ? const_copy(ps, p->node[n].c) : -1;
    if ((p->node[n].a >= 0 && a < 0) || (p->node[n].b >= 0 && b < 0) ||
        (p->node[n].c >= 0 && c < 0))
        return -1;
    int id = pat_new_node(ps, p->node[n].kind, VK_INT, p->node[n].pos, p->node[n].end);
    if (id < 0)
        return -1;
    struct node *cp = &p->node[id];
    cp->op = p->node[n].op;
    cp->v = p->node[n].v;
    cp->arr = p->node[n].arr;
    return pat_link(ps, id, a, b, c);
}

static int parse_declarator(struct parser *ps, int type, int is_const, int stmt_pos);

/* TYPE name = EXPR | TYPE *name = POINTER-EXPR, several separated by ',' */
int pat_parse_local_decl(struct parser *ps)
{
    int stmt_pos = peek(ps, 0)->pos, first_tok = ps->i;
    int type;
    if (pat_parse_type(ps, &type) < 0)
        return -1;
    int is_const = 0;
    for (int k = first_tok; k < ps->i; k++)
        if (tok_is(ps, &ps->tok[k], "const"))
            is_const = 1;
    for (;;) {
        if (parse_declarator(ps, type, is_const, stmt_pos) < 0)
            return -1;
        if (!is_punct(peek(ps, 0), ','))
            return 0;
        ps->i++;
        stmt_pos = peek(ps, 0)->pos;
    }
}

/* One declarator of a local declaration: [*]name [= EXPR]. */
static int parse_declarator(struct parser *ps, int type, int is_const, int stmt_pos)
{
    struct pattern *p = ps->p;
    int ptr = pat_parse_pointer(ps, 1);
    if (ptr < 0)
        return -1;
    const struct token *nt = peek(ps, 0);
    char name[PATTERN_NAME_MAX];
    if (nt->kind == TK_IDENT) {
        /* locals may shadow the builtins lane, warp, tid: int lane = threadIdx.x % 32; */
        tok_name(ps, nt, name);
        if (strcmp(name, "lane") != 0 && strcmp(name, "warp") != 0 && strcmp(name, "tid") != 0)
            if (check_new_name(ps, nt, name) < 0)
                return -1;
        if (pat_find_local(p, name) >= 0)
            return bl_fail(ps->err, -1, BL_AT(nt->pos, nt->len, -1), PAT_IS_ALREADY_DECLARED, name);
    } else if (check_new_name(ps, nt, name) < 0) {
        return -1;
    }
    ps->i++;
    if (is_punct(peek(ps, 0), '['))
        return bl_fail(ps->err, -1, BL_AT(peek(ps, 0)->pos, 1, -1),
                        PAT_LOCAL_ARRAYS_ARE_NOT_SHARED);
    if (!ptr && !is_const && (is_punct(peek(ps, 0), ';') || is_punct(peek(ps, 0), ',') ||
                              peek(ps, 0)->kind == TK_EOF))
        return pat_add_local(ps, name, L_OPQ, type, nt) < 0 ? -1 : 0; /* no value: unknown */
    if (pat_expect(ps, '=', ptr ? "(a pointer needs a value, e.g. = (float *)smem)"
                            : "(a local needs a value)") < 0)
        return -1;
    ps->reads = 0;
    ps->read_node = -1;
    int e = pat_parse_expr(ps);
    if (e < 0)
        return -1;
    int end = p->node[e].end;
    if (ptr) {
        if ((e = pat_pointer_value(ps, e, "so it cannot initialize a pointer")) < 0)
            return -1;
        /* a pointer of another type is taken as if cast (C would want the cast) */
        int ai = pat_add_array(ps, name, type, nt);
        if (ai < 0)
            return -1;
        p->arr[ai].is_ptr = 1;
        int slot = pat_add_local(ps, name, L_PTR, type, nt);
        if (slot < 0)
            return -1;
        p->loc[slot].array = ai;
        return pat_add_stmt(ps, S_PTR, e, slot, stmt_pos, end) < 0 ? -1 : 0;
    }
    e = pat_rvalue(ps, e);
    if (e < 0)
        return -1;
    if (p->node[e].vk > VK_OPQ)
        return bl_fail(ps->err, -1, BL_AT(p->node[e].pos, p->node[e].end - p->node[e].pos, -1),
                       PAT_IS_NOT_A_POINTER_DECLARE, name, p->type[type].name, name);
    if (ps->reads > 1)
        return bl_fail(ps->err, -1, BL_AT(p->node[e].pos, p->node[e].end - p->node[e].pos, -1),
                        PAT_MORE_THAN_ONE_SHARED_MEMORY);
    int is_int = p->type[type].kind == TY_INT;
    if (ps->reads == 1) {
        if (pat_add_local(ps, name, L_OPQ, type, nt) < 0)
            return -1;
        return pat_add_access(ps, ps->read_node, 0, -1, stmt_pos, end);
    }
    if (is_int && p->node[e].vk == VK_INT) {
        int cinit = -1;
        if (is_const && is_constant(p, e) && (cinit = const_copy(ps, e)) < 0)
            return -1;
        int slot = pat_add_local(ps, name, L_INT, type, nt);
        if (slot < 0)
            return -1;
        p->loc[slot].const_init = cinit;
        p->loc[slot].is_const = is_const;
        return pat_add_stmt(ps, S_LOCAL, e, slot, stmt_pos, end) < 0 ? -1 : 0;
    }
    return pat_add_local(ps, name, L_OPQ, type, nt) < 0 ? -1 : 0;
}
