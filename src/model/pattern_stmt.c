/* pattern_stmt.c: statements of the pattern language and the program: accesses (load, store,
 * ldmatrix/stmatrix/cp.async),
 * local assignments, if / else if / else guards, barriers, and the checks that a pattern has
 * one access per statement and at least one access. Depends on pattern_decl.c and below. */
#include "pattern_internal.h"

#include <stdlib.h>

/* Does an instruction start at the cursor: ldmatrix.  stmatrix.  cp.async...  (a declared
 * name of that spelling is the learner's own)? */
static int instr_start(struct parser *ps)
{
    const struct token *t = peek(ps, 0), *t2 = peek(ps, 2);
    if (t->kind != TK_IDENT || !is_punct(peek(ps, 1), '.'))
        return 0;
    char name[PATTERN_NAME_MAX];
    tok_name(ps, t, name);
    if (pat_find_local(ps->p, name) >= 0 || pat_find_array(ps->p, name) >= 0)
        return 0;
    if (!strcmp(name, "ldmatrix") || !strcmp(name, "stmatrix"))
        return 1;
    return !strcmp(name, "cp") && t2->kind == TK_IDENT && t2->len >= 5 &&
           !strncmp(ps->s + t2->pos, "async", 5);
}

/* One modifier word w (at token m) of ldmatrix/stmatrix (cp 0) or cp.async (cp 1). */
static int instr_modifier(struct parser *ps, const struct token *m, const char *w, int cp,
                          struct pattern_access_info *info)
{
    static const char *const ptx_words[] = {"sync", "aligned", "m8n8", "shared", "b16", "ca",
                                            "global", NULL};
    for (int k = 0; ptx_words[k]; k++)
        if (!strcmp(w, ptx_words[k]) && (cp ? k >= 3 && k != 4 : k < 5))
            return 0; /* PTX's own spelling, allowed and meaning nothing more */
    if (cp) {
        if (!strcmp(w, "async") || !strcmp(w, "async4") || !strcmp(w, "async8") ||
            !strcmp(w, "async16")) {
            info->width = w[5] ? (unsigned)atoi(w + 5) : info->width;
            return 0;
        }
        if (!strncmp(w, "cg", 2))
            return bl_fail(ps->err, -1, BL_AT(m->pos, m->len, -1), PAT_CP_ASYNC_CG);
        return bl_fail(ps->err, -1, BL_AT(m->pos, m->len, -1), PAT_CP_ASYNC_PART, w);
    }
    if (w[0] == 'x' && (w[1] == '1' || w[1] == '2' || w[1] == '4') && !w[2]) {
        info->matrices = w[1] - '0';
        return 0;
    }
    if (!strcmp(w, "trans")) {
        info->trans = 1;
        return 0;
    }
    return bl_fail(ps->err, -1, BL_AT(m->pos, m->len, -1), PAT_MATRIX_PART, w, info->kind == PATTERN_LOAD ? "ldmatrix" : "stmatrix");
}

/* ldmatrix.xN[.trans](ROW) | stmatrix.xN[.trans](ROW) | cp.asyncW(DST): ROW is the element
 * (or its address) where the lane's 16-byte row starts; lane 8i+j gives row j of matrix i. */
static int parse_instr(struct parser *ps, int guard, int stmt_pos)
{
    struct pattern *p = ps->p;
    const struct token *t0 = peek(ps, 0);
    int cp = tok_is(ps, t0, "cp");
    struct pattern_access_info info;
    memset(&info, 0, sizeof info);
    info.kind = tok_is(ps, t0, "ldmatrix") ? PATTERN_LOAD : PATTERN_STORE;
    info.instr = cp ? BANK_CPASYNC : info.kind == PATTERN_LOAD ? BANK_LDMATRIX : BANK_STMATRIX;
    info.width = cp ? 0 : 16;
    const char *what = cp ? "cp.async" : info.kind == PATTERN_LOAD ? "ldmatrix" : "stmatrix";
    ps->i++;
    while (is_punct(peek(ps, 0), '.')) {
        ps->i++;
        const struct token *m = peek(ps, 0);
        if (m->kind != TK_IDENT)
            return bl_fail(ps->err, -1, BL_AT(m->pos, m->len, -1), PAT_EXPECTED_PART, what);
        char w[PATTERN_NAME_MAX];
        tok_name(ps, m, w);
        ps->i++;
        if (instr_modifier(ps, m, w, cp, &info) < 0)
            return -1;
    }
    const struct token *t = peek(ps, 0);
    if (cp && info.width != 4 && info.width != 8 && info.width != 16)
        return bl_fail(ps->err, -1, BL_AT(t0->pos, t->pos - t0->pos, -1), PAT_CP_ASYNC_SIZE);
    if (!cp && !info.matrices)
        return bl_fail(ps->err, -1, BL_AT(t0->pos, t->pos - t0->pos, -1), PAT_MATRIX_COUNT, what);
    if (!cp && guard >= 0)
        return bl_fail(ps->err, -1, BL_AT(t0->pos, t->pos - t0->pos, -1), PAT_MATRIX_ALIGNED, what);
    if (pat_expect(ps, '(', cp ? "after cp.async (its shared destination)"
                               : "after the instruction (the lane's row)") < 0)
        return -1;
    ps->reads = 0;
    int a = pat_parse_expr(ps);
    if (a < 0)
        return -1;
    const struct node *nd = &p->node[a];
    if (nd->vk != VK_LVAL && nd->vk != VK_PTR)
        return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1), PAT_MATRIX_OPERAND, what,
                        pat_node_text(ps, nd));
    if (ps->reads)
        return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1), PAT_MATRIX_ADDR_READS, what);
    if (pat_expect(ps, ')', "after the address") < 0)
        return -1;
    int rowtype = pat_instr_type(p, cp ? "cp.async" : "matrix row", info.width);
    return pat_add_instr_access(ps, a, &info, rowtype, guard, stmt_pos, peek(ps, -1)->pos + 1);
}

/* An access or a local assignment: EXPR | LVAL = EXPR | local = EXPR. guard: -1 or condition. */
static int parse_expr_stmt(struct parser *ps, int guard, int stmt_pos)
{
    struct pattern *p = ps->p;
    if (instr_start(ps))
        return parse_instr(ps, guard, stmt_pos);
    ps->reads = 0;
    ps->read_node = -1;
    int lhs = pat_parse_expr(ps);
    if (lhs < 0)
        return -1;
    const struct token *t = peek(ps, 0);
    if (is_punct(t, P_OPASSIGN))
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_COMPOUND_ASSIGNMENT_IS_A_LOAD,
                        t->len, ps->s + t->pos);
    if (is_punct(t, '=')) {
        ps->i++;
        const struct node *ln = &p->node[lhs];
        if (ln->vk == VK_LVAL) {
            int lhs_reads = ps->reads;
            int rhs = pat_parse_expr(ps);
            if (rhs < 0 || (rhs = pat_rvalue(ps, rhs)) < 0)
                return -1;
            if (lhs_reads) {
                const struct node *rn = &p->node[ps->read_node];
                return bl_fail(ps->err, -1, BL_AT(rn->pos, rn->end - rn->pos, -1),
                               PAT_THE_STORED_TO_INDEX_READS, pat_node_text(ps, rn));
            }
            if (p->node[rhs].vk > VK_OPQ)
                return bl_fail(ps->err, -1, BL_AT(p->node[rhs].pos, p->node[rhs].end - p->node[rhs].pos, -1),
                                PAT_CANNOT_STORE_A_POINTER_IN);
            return pat_add_access(ps, lhs, 1, guard, stmt_pos, p->node[rhs].end);
        }
        if (ln->kind == N_LOCAL && p->loc[ln->arr].kind != L_PTR) {
            int slot = ln->arr;
            if (p->loc[slot].is_const)
                return bl_fail(ps->err, -1, BL_AT(ln->pos, ln->end - ln->pos, -1), PAT_IS_CONST,
                                p->loc[slot].name);
            int lpos = ln->pos, lend = ln->end;
            int rhs = pat_parse_expr(ps);
            if (rhs < 0 || (rhs = pat_rvalue(ps, rhs)) < 0)
                return -1;
            if (p->node[rhs].vk > VK_OPQ)
                return bl_fail(ps->err, -1, BL_AT(p->node[rhs].pos, p->node[rhs].end - p->node[rhs].pos, -1),
                                PAT_CANNOT_ASSIGN_A_POINTER_TO, p->loc[slot].name);
            if (ps->reads > 1)
                return bl_fail(ps->err, -1, BL_AT(p->node[rhs].pos, p->node[rhs].end - p->node[rhs].pos, -1),
                                PAT_MORE_THAN_ONE_SHARED_MEMORY);
            if (ps->reads == 1) {
                p->loc[slot].kind = L_OPQ;
                return pat_add_access(ps, ps->read_node, 0, guard, stmt_pos, p->node[rhs].end);
            }
            if (guard >= 0)
                return bl_fail(ps->err, -1, BL_AT(lpos, lend - lpos, -1),
                                PAT_ONLY_A_SHARED_MEMORY_ACCESS);
            int rend = p->node[rhs].end;
            if (p->loc[slot].kind == L_INT && p->node[rhs].vk == VK_INT)
                return pat_add_stmt(ps, S_LOCAL, rhs, slot, stmt_pos, rend) < 0 ? -1 : 0;
            p->loc[slot].kind = L_OPQ; /* a float value: nothing to evaluate */
            return 0;
        }
        return bl_fail(ps->err, -1, BL_AT(ln->pos, ln->end - ln->pos, -1), PAT_CANNOT_ASSIGN_TO_ASSIGN_TO,
                        pat_node_text(ps, ln));
    }
    int e = pat_rvalue(ps, lhs);
    if (e < 0)
        return -1;
    if (ps->reads == 0) {
        const struct node *nd = &p->node[e];
        return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1),
                       PAT_DOES_NOT_ACCESS_SHARED_MEMORY, pat_node_text(ps, nd));
    }
    if (ps->reads > 1) {
        const struct node *nd = &p->node[e];
        return bl_fail(ps->err, -1, BL_AT(nd->pos, nd->end - nd->pos, -1),
                        PAT_MORE_THAN_ONE_SHARED_MEMORY);
    }
    return pat_add_access(ps, ps->read_node, 0, guard, stmt_pos, p->node[e].end);
}

static int parse_guarded(struct parser *ps, int c, int stmt_pos);

/* "(COND)" after an 'if': the condition's node, or -1 with the error set. */
static int parse_condition(struct parser *ps)
{
    if (pat_expect(ps, '(', "after 'if'") < 0)
        return -1;
    ps->reads = 0;
    int c = pat_parse_expr(ps);
    if (c < 0 || (c = pat_int_value(ps, c, "condition")) < 0)
        return -1;
    if (pat_expect(ps, ')', "after the condition") < 0)
        return -1;
    return c;
}

/* if (COND) ACCESS   or   if (COND) { ACCESS; } */
static int parse_if(struct parser *ps)
{
    int stmt_pos = peek(ps, 0)->pos;
    ps->i++;
    int c = parse_condition(ps);
    if (c < 0)
        return -1;
    if (parse_guarded(ps, c, stmt_pos) < 0)
        return -1;
    ps->last_if = c;
    return 0;
}

/* A node for `a OP b` (OP is '!' with b < 0) built by the parser itself. */
static int logic_node(struct parser *ps, int op, int a, int b, int pos, int end)
{
    int id = pat_new_node(ps, b < 0 ? N_UN : N_BIN, VK_INT, pos, end);
    if (id < 0)
        return -1;
    ps->p->node[id].op = (short)op;
    return pat_link(ps, id, a, b, -1);
}

/* else ACCESS | else if (COND) ACCESS, after an if: the guard is "no earlier branch taken". */
static int parse_else(struct parser *ps, int taken)
{
    const struct token *t = peek(ps, 0);
    if (taken < 0)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_ELSE_WITHOUT_IF_BEFORE_IT);
    ps->i++;
    int not_taken = logic_node(ps, '!', taken, -1, t->pos, t->pos + t->len);
    if (not_taken < 0)
        return -1;
    if (!tok_is(ps, peek(ps, 0), "if"))
        return parse_guarded(ps, not_taken, t->pos);
    ps->i++;
    int c = parse_condition(ps);
    if (c < 0)
        return -1;
    const struct node *cn = &ps->p->node[c];
    int guard = logic_node(ps, P_ANDAND, not_taken, c, cn->pos, cn->end);
    if (guard < 0 || parse_guarded(ps, guard, t->pos) < 0)
        return -1;
    cn = &ps->p->node[c];
    int any = logic_node(ps, P_OROR, taken, c, cn->pos, cn->end);
    if (any < 0)
        return -1;
    ps->last_if = any;
    return 0;
}

/* The access after if (...) or else: ACCESS or { ACCESS; } */
static int parse_guarded(struct parser *ps, int c, int stmt_pos)
{
    struct pattern *p = ps->p;
    int brace = is_punct(peek(ps, 0), '{');
    if (brace)
        ps->i++;
    const struct token *t = peek(ps, 0);
    if (t->kind == TK_EOF || is_punct(t, ';') || is_punct(t, '}'))
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_EXPECTED_AN_ACCESS_AFTER_IF,
                       pat_tok_desc(ps, t));
    if (pat_is_type_start(ps, t) || tok_is(ps, t, "if") || tok_is(ps, t, "__shared__") ||
        tok_is(ps, t, "extern") || tok_is(ps, t, "typedef")) {
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_ONLY_A_SHARED_MEMORY_ACCESS_2);
    }
    int before = p->naccs;
    if (parse_expr_stmt(ps, c, stmt_pos) < 0)
        return -1;
    if (p->naccs == before)
        return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_ONLY_A_SHARED_MEMORY_ACCESS);
    if (brace) {
        if (is_punct(peek(ps, 0), ';'))
            ps->i++;
        if (pat_expect(ps, '}', "to close the 'if' block") < 0)
            return -1;
    }
    return 0;
}

static int parse_statement(struct parser *ps)
{
    struct pattern *p = ps->p;
    const struct token *t = peek(ps, 0);
    if (tok_is(ps, t, "typedef"))
        return pat_parse_typedef(ps);
    if (tok_is(ps, t, "__shared__") || tok_is(ps, t, "extern") || tok_is(ps, t, "static") ||
        tok_is(ps, t, "__align__") ||
        (tok_is(ps, t, "volatile") && tok_is(ps, peek(ps, 1), "__shared__")))
        return pat_parse_shared_decl(ps);
    int taken = ps->last_if;
    ps->last_if = -1;
    if (tok_is(ps, t, "if"))
        return parse_if(ps);
    if (tok_is(ps, t, "else"))
        return parse_else(ps, taken);
    if (tok_is(ps, t, "__syncthreads") || tok_is(ps, t, "__syncwarp")) {
        ps->i++;
        if (pat_expect(ps, '(', "after the barrier") < 0)
            return -1;
        while (!is_punct(peek(ps, 0), ')') && peek(ps, 0)->kind != TK_EOF &&
               !is_punct(peek(ps, 0), ';'))
            ps->i++;
        return pat_expect(ps, ')', "after the barrier");
    }
    if (pat_is_type_start(ps, t))
        return pat_parse_local_decl(ps);
    if (t->kind == TK_IDENT) {
        char name[PATTERN_NAME_MAX];
        tok_name(ps, t, name);
        const struct token *t1 = peek(ps, 1), *t2 = peek(ps, 2);
        int declared = pat_find_local(p, name) >= 0 || pat_find_array(p, name) >= 0;
        if (!declared && !pat_is_reserved(name) &&
            (t1->kind == TK_IDENT ||
             (is_punct(t1, '*') && t2->kind == TK_IDENT && is_punct(peek(ps, 3), '=')))) {
            return bl_fail(ps->err, -1, BL_AT(t->pos, t->len, -1), PAT_UNKNOWN_TYPE, name);
        }
    }
    return parse_expr_stmt(ps, -1, t->pos);
}

int pat_parse_program(struct parser *ps)
{
    struct pattern *p = ps->p;
    int any = 0;
    for (;;) {
        while (is_punct(peek(ps, 0), ';'))
            ps->i++;
        const struct token *t = peek(ps, 0);
        if (t->kind == TK_EOF)
            break;
        any = 1;
        ps->depth = 0;
        if (parse_statement(ps) < 0)
            return -1;
        const struct token *nt = peek(ps, 0);
        if (nt->kind == TK_EOF)
            break;
        /* a block needs no ';' after it, nor does a statement before 'else' */
        if (is_punct(peek(ps, -1), '}') || tok_is(ps, nt, "else"))
            continue;
        if (!is_punct(nt, ';'))
            return bl_fail(ps->err, -1, BL_AT(nt->pos, nt->len, -1), PAT_EXPECTED_BUT_FOUND_2,
                            pat_tok_desc(ps, nt));
    }
    if (!any)
        return bl_fail(ps->err, -1, BL_AT(-1, 0, -1), PAT_EMPTY_PATTERN);
    if (p->naccs == 0)
        return bl_fail(ps->err, -1, BL_AT(-1, 0, -1), PAT_THE_PATTERN_HAS_NO_ACCESS);
    return 0;
}
