/* pattern_parse.c: the parser's plumbing, shared by the grammar files: token descriptions
 * and `expect`, AST node allocation with the depth check, and the tables the grammar fills
 * (arrays, locals, parameters, statements, accesses) with their lookups. No grammar here;
 * depends on pattern_text.c only. */
#include "pattern_internal.h"

#include "../base/buf.h"

#include <stdlib.h>
#include <string.h>

/* Describes a token for "expected X but found Y". */
const char *pat_tok_desc(struct parser *ps, const struct token *t)
{
    if (t->kind == TK_EOF)
        return "the end of the pattern";
    bl_fmt(ps->desc, sizeof ps->desc, "'%.*s'", t->len > 24 ? 24 : t->len, ps->s + t->pos);
    return ps->desc;
}

const char *pat_node_text(struct parser *ps, const struct node *nd)
{
    return pat_snip(ps->s, ps->n, nd->pos, nd->end, ps->snip, sizeof ps->snip);
}

int pat_expect(struct parser *ps, int c, const char *what)
{
    const struct token *t = peek(ps, 0);
    if (is_punct(t, c)) {
        ps->i++;
        return 0;
    }
    return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_EXPECTED_BUT_FOUND, c, what,
                    pat_tok_desc(ps, t));
}

int pat_new_node(struct parser *ps, int kind, int vk, int pos, int end)
{
    struct pattern *p = ps->p;
    if (p->nnodes >= MAX_NODES)
        return bl_fail(ps->err, -1, BL_AT(pos, end - pos, -1),
                        PAT_PATTERN_IS_TOO_COMPLEX_MORE, MAX_NODES);
    if (bl_grow(&p->node, &p->node_cap, p->nnodes + 1, sizeof *p->node, 64))
        return bl_fail(ps->err, -1, BL_AT(-1, 0, -1), PAT_OUT_OF_MEMORY);
    int id = p->nnodes++;
    struct node *nd = &p->node[id];
    memset(nd, 0, sizeof *nd);
    nd->kind = (unsigned char)kind;
    nd->vk = (unsigned char)vk;
    nd->a = nd->b = nd->c = -1;
    nd->type = -1;
    nd->arr = -1;
    nd->pos = pos;
    nd->end = end;
    nd->depth = 1;
    return id;
}

/* Sets children and checks the tree depth (the evaluator recurses along it). */
int pat_link(struct parser *ps, int id, int a, int b, int c)
{
    struct node *nd = &ps->p->node[id];
    nd->a = a;
    nd->b = b;
    nd->c = c;
    int d = 0;
    if (a >= 0 && ps->p->node[a].depth > d) d = ps->p->node[a].depth;
    if (b >= 0 && ps->p->node[b].depth > d) d = ps->p->node[b].depth;
    if (c >= 0 && ps->p->node[c].depth > d) d = ps->p->node[c].depth;
    nd->depth = d + 1;
    if (nd->depth > MAX_TREE_DEPTH)
        return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1),
                       PAT_EXPRESSION_IS_TOO_LONG_OR, MAX_TREE_DEPTH);
    return id;
}

int pat_find_local(const struct pattern *p, const char *name)
{
    for (int i = p->nlocals - 1; i >= 0; i--)
        if (strcmp(p->loc[i].name, name) == 0)
            return i;
    return -1;
}

int pat_find_array(const struct pattern *p, const char *name)
{
    for (int i = 0; i < p->narrays; i++)
        if (!p->arr[i].is_ptr && strcmp(p->arr[i].info.name, name) == 0)
            return i;
    return -1;
}

int pat_find_typedef(const struct pattern *p, const char *name)
{
    for (int i = 0; i < p->ntdefs; i++)
        if (strcmp(p->tdef[i].name, name) == 0)
            return i;
    return -1;
}

int pat_find_param(const struct pattern *p, const char *name)
{
    for (int i = 0; i < p->nparams; i++)
        if (strcmp(p->param[i].name, name) == 0)
            return i;
    return -1;
}

static const char *const reserved[] = {
    "threadIdx", "blockDim", "blockIdx", "gridDim", "warpSize", "min", "max", "sizeof", "if",
    "else", "typedef", "struct", "extern", "static", "__shared__", "const", "volatile",
    "unsigned", "signed", "char", "short", "int", "long", "__syncthreads", "return", "for",
    "while", "__align__", "__restrict__", NULL};

int pat_is_reserved(const char *name)
{
    for (int i = 0; reserved[i]; i++)
        if (reserved[i][0] == name[0] && strcmp(reserved[i], name) == 0)
            return 1;
    return 0;
}

int pat_add_stmt(struct parser *ps, int kind, int node, int slot, int pos, int end)
{
    struct pattern *p = ps->p;
    if (p->nstmts >= MAX_STMTS)
        return bl_fail(ps->err, -1, BL_AT(pos, end - pos, -1), PAT_TOO_MANY_STATEMENTS_AT_MOST, MAX_STMTS);
    struct stmt *s = &p->stmt[p->nstmts++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->node = node;
    s->slot = slot;
    s->guard = -1;
    s->access = -1;
    s->pos = pos;
    s->end = end;
    return p->nstmts - 1;
}

int pat_add_local(struct parser *ps, const char *name, int kind, int type,
                  const struct token *t)
{
    struct pattern *p = ps->p;
    if (p->nlocals >= MAX_LOCALS)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1),
                        PAT_TOO_MANY_NAMES_AT_MOST, MAX_LOCALS);
    struct local *l = &p->loc[p->nlocals];
    memset(l, 0, sizeof *l);
    pat_copy_name(l->name, name);
    l->kind = kind;
    l->type = type;
    l->array = -1;
    l->const_init = -1;
    return p->nlocals++;
}

/* The root array or pointer name of an lvalue, for display. */
static void lvalue_root(const struct pattern *p, int n, char *buf)
{
    for (int guard = 0; n >= 0 && guard < MAX_NODES; guard++) {
        const struct node *nd = &p->node[n];
        if (nd->kind == N_ARRAY) {
            pat_copy_name(buf, p->arr[nd->arr].info.name);
            return;
        }
        if (nd->kind == N_LOCAL) {
            pat_copy_name(buf, p->loc[nd->arr].name);
            return;
        }
        n = nd->a;
    }
    buf[0] = 0;
}

/* Registers access statement for lvalue node lv. */
int pat_add_access(struct parser *ps, int lv, int kind, int guard, int pos, int end)
{
    struct pattern *p = ps->p;
    const struct node *nd = &p->node[lv];
    const struct ctype *t = &p->type[nd->type];
    if (p->naccs >= PATTERN_MAX_ACCESSES)
        return bl_fail(ps->err, -1, BL_AT(pos, end - pos, -1), PAT_TOO_MANY_ACCESSES_AT_MOST,
                        PATTERN_MAX_ACCESSES);
    if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8 && t->size != 16)
        return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1), PAT_IS_A_BYTE_WHICH_IS,
                       pat_node_text(ps, nd), t->size, t->name);
    if (t->kind == TY_STRUCT && t->size != t->align)
        return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1),
                       PAT_IS_A_WHOLE_BYTES_ALIGNED, pat_node_text(ps, nd), t->name, t->size,
                       t->align);
    struct pattern_access_info info;
    memset(&info, 0, sizeof info);
    info.kind = kind ? PATTERN_STORE : PATTERN_LOAD;
    info.width = t->size;
    return pat_add_instr_access(ps, lv, &info, -1, guard, pos, end);
}

int pat_add_instr_access(struct parser *ps, int lv, const struct pattern_access_info *info,
                         int rowtype, int guard, int pos, int end)
{
    struct pattern *p = ps->p;
    if (p->naccs >= PATTERN_MAX_ACCESSES)
        return bl_fail(ps->err, -1, BL_AT(pos, end - pos, -1), PAT_TOO_MANY_ACCESSES,
                        PATTERN_MAX_ACCESSES);
    int si = pat_add_stmt(ps, S_ACCESS, lv, -1, pos, end);
    if (si < 0)
        return -1;
    struct stmt *s = &p->stmt[si];
    s->guard = guard;
    s->access = p->naccs;
    s->rowtype = rowtype;
    struct pattern_access_info *ai = &p->acc[p->naccs];
    *ai = *info;
    lvalue_root(p, lv, ai->array);
    pat_copy_name(ai->type, p->type[p->node[lv].type].name);
    ai->col = pos + 1;
    ai->len = end - pos > 0 ? end - pos : 1;
    p->acc_stmt[p->naccs] = si;
    p->naccs++;
    return 0;
}

/* Adds an array-table entry. */
int pat_add_array(struct parser *ps, const char *name, int elem, const struct token *t)
{
    struct pattern *p = ps->p;
    if (p->narrays >= MAX_ARRAYS)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1),
                        PAT_TOO_MANY_SHARED_ARRAYS_AND, MAX_ARRAYS);
    struct array *a = &p->arr[p->narrays];
    memset(a, 0, sizeof *a);
    pat_copy_name(a->info.name, name);
    pat_copy_name(a->info.type, p->type[elem].name);
    a->info.elem_size = p->type[elem].size;
    a->elem = elem;
    a->pos = t->pos;
    a->len = t->len;
    a->dim_node[0] = a->dim_node[1] = a->dim_node[2] = -1;
    a->align_node = -1;
    return p->narrays++;
}
