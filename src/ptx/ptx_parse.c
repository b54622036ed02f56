/* ptx_parse.c: PTX text (nvcc -ptx -lineinfo, NVRTC) to a struct ptx_module: tokens, the
 * module's directives (.version/.target/.address_size skipped, .file, .global/.const/.shared
 * variables, .section skipped), functions (.entry/.func: parameters, .reg, .shared, .local,
 * labels, .loc with nvcc 13's `function_name X, inlined_at F L C`) and their instructions
 * through ptx_decode (ptx_decode.c). Symbols and labels resolve when a function ends.
 *
 * Shared layout (ptx_kernel_static_smem): a kernel's static .shared variables are laid out in
 * declaration order (the function's own, then module-level ones it uses, in the order of first
 * use), each at a multiple of its .align, from 0; the dynamic (.extern .shared) window starts
 * after them at the largest alignment among them and the extern's own (at least 16). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse.h"

/* the rest of the line of token i: the index of the first token on a later line */
static int line_end(const struct ptx_fn *fn, int i)
{
    int line = fn->tok[i].line;
    while (i < fn->ntok && fn->tok[i].t != TOK_END && fn->tok[i].line == line)
        i++;
    return i;
}

static int skip_to_semi(struct ptx_fn *fn, int i)
{
    while (i < fn->ntok && fn->tok[i].t != TOK_END && !ptx_tok_p(fn, i, ';'))
        i++;
    return i + 1;
}

static int num_at(struct ptx_fn *fn, int i, uint64_t *v)
{
    int fl;
    if (fn->tok[i].t != TOK_NUM ||
        ptx_num(fn->m->text + fn->tok[i].at, fn->tok[i].len, v, &fl) || fl)
        return ptx_perr(fn, i, PTX_E_SYNTAX);
    return 0;
}

static char *tok_dup(const struct ptx_fn *fn, int i)
{
    const struct ptx_tok *t = &fn->tok[i];
    char *s = malloc(t->len + 1);
    if (s) {
        memcpy(s, fn->m->text + t->at, t->len);
        s[t->len] = 0;
    }
    return s;
}

/* .file N "path" [, stamp, size] */
static int dir_file(struct ptx_fn *fn, int i)
{
    uint64_t id;
    int end = line_end(fn, i);
    if (num_at(fn, i + 1, &id) || fn->tok[i + 2].t != TOK_STR)
        return ptx_perr(fn, i, PTX_E_SYNTAX);
    struct ptx_module *m = fn->m;
    int cap = m->nfiles;
    if (bl_grow(&m->file, &cap, m->nfiles + 1, sizeof *m->file, 16))
        return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    const struct ptx_tok *t = &fn->tok[i + 2];
    char *p = malloc(t->len);
    if (!p)
        return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    memcpy(p, m->text + t->at + 1, t->len - 2);
    p[t->len - 2] = 0;
    m->file[m->nfiles].id = (unsigned)id;
    m->file[m->nfiles++].path = p;
    return end;
}

/* the loc record with file/line/col seen last, -1: none */
static int loc_find(const struct ptx_module *m, unsigned f, unsigned l, unsigned c)
{
    for (int i = m->nlocs - 1; i >= 0; i--)
        if (m->loc[i].file == f && m->loc[i].line == l && m->loc[i].col == c)
            return i;
    return -1;
}

/* .loc F L C [, function_name X, inlined_at F L C]: the chain's parent is the last record of
 * the inlined-at position (nvcc writes the call site's .loc just before) */
static int dir_loc(struct ptx_fn *fn, int i)
{
    int end = line_end(fn, i);
    uint64_t v[3], w[3];
    for (int j = 0; j < 3; j++)
        if (num_at(fn, i + 1 + j, &v[j]))
            return -1;
    if (v[1] == 0) /* "no line": the code stays with the line before, as in the line table */
        return end;
    int parent = -1;
    for (int j = i + 4; j < end; j++)
        if (ptx_tok_id(fn, j, "inlined_at")) {
            for (int q = 0; q < 3; q++)
                if (num_at(fn, j + 1 + q, &w[q]))
                    return -1;
            parent = loc_find(fn->m, (unsigned)w[0], (unsigned)w[1], (unsigned)w[2]);
            if (parent < 0) { /* no record yet: make one */
                struct ptx_module *m = fn->m;
                if (bl_grow(&m->loc, &m->caplocs, m->nlocs + 1, sizeof *m->loc, 16))
                    return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
                m->loc[m->nlocs] = (struct ptx_locrec){(unsigned)w[0], (unsigned)w[1],
                                                       (unsigned)w[2], -1};
                parent = m->nlocs++;
            }
        }
    struct ptx_module *m = fn->m;
    int same = m->nlocs > 0 && m->loc[m->nlocs - 1].file == v[0] &&
               m->loc[m->nlocs - 1].line == v[1] && m->loc[m->nlocs - 1].col == v[2] &&
               m->loc[m->nlocs - 1].parent == parent;
    if (!same) {
        if (bl_grow(&m->loc, &m->caplocs, m->nlocs + 1, sizeof *m->loc, 16))
            return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
        m->loc[m->nlocs++] = (struct ptx_locrec){(unsigned)v[0], (unsigned)v[1],
                                                 (unsigned)v[2], parent};
    }
    fn->cur_loc = (unsigned)m->nlocs - 1;
    return end;
}

static const struct {
    const char *s;
    uint8_t t;
} type_names[] = {
    {".b8", TY(TK_B, 0)},  {".b16", TY(TK_B, 1)}, {".b32", TY(TK_B, 2)}, {".b64", TY(TK_B, 3)},
    {".u8", TY(TK_U, 0)},  {".u16", TY(TK_U, 1)}, {".u32", TY(TK_U, 2)}, {".u64", TY(TK_U, 3)},
    {".s8", TY(TK_S, 0)},  {".s16", TY(TK_S, 1)}, {".s32", TY(TK_S, 2)}, {".s64", TY(TK_S, 3)},
    {".f16", TY(TK_F, 1)}, {".f32", TY(TK_F, 2)}, {".f64", TY(TK_F, 3)},
    {".pred", TY(TK_PRED, 0)}, {".b128", TY(TK_B, 4)}, {".f16x2", TY(TK_B, 2)},
    {".bf16", TY(TK_B, 1)}, {".bf16x2", TY(TK_B, 2)},
};

static int type_of(const struct ptx_fn *fn, int i, uint8_t *t)
{
    for (size_t j = 0; j < sizeof type_names / sizeof type_names[0]; j++)
        if (ptx_tok_id(fn, i, type_names[j].s)) {
            *t = type_names[j].t;
            return 1;
        }
    return 0;
}

/* a variable declaration: [.align N] [.vN] .type name [ [N] ]... [= {...} | = value] ;
 * at token i (after the state space); fills size, align, name token; *init_at: the '=' or -1 */
static int var_decl(struct ptx_fn *fn, int i, size_t *size, size_t *align, int *name_tok,
                    int *init_at)
{
    uint64_t a = 0, n;
    uint8_t t = TY_NONE;
    unsigned vec = 1;
    for (;; i++) {
        if (ptx_tok_id(fn, i, ".align")) {
            if (num_at(fn, ++i, &a))
                return -1;
        } else if (ptx_tok_id(fn, i, ".v2") || ptx_tok_id(fn, i, ".v4")) {
            vec = fn->m->text[fn->tok[i].at + 2] - '0';
        } else if (type_of(fn, i, &t)) {
        } else if (fn->tok[i].t == TOK_ID && fn->m->text[fn->tok[i].at] == '.') {
            /* .attribute and the like: not expected here */
            return ptx_perr(fn, i, PTX_E_SYNTAX);
        } else
            break;
    }
    if (t == TY_NONE || fn->tok[i].t != TOK_ID)
        return ptx_perr(fn, i, PTX_E_SYNTAX);
    *name_tok = i++;
    size_t el = TY_BYTES(t) * vec, count = 1;
    int unsized = 0;
    while (ptx_tok_p(fn, i, '[')) {
        if (ptx_tok_p(fn, i + 1, ']')) {
            unsized = 1;
            i += 2;
            continue;
        }
        if (num_at(fn, i + 1, &n) || !ptx_tok_p(fn, i + 2, ']'))
            return ptx_perr(fn, i, PTX_E_SYNTAX);
        count *= (size_t)n;
        i += 3;
    }
    *size = unsized ? 0 : el * count;
    *align = a ? (size_t)a : el;
    *init_at = ptx_tok_p(fn, i, '=') ? i : -1;
    return skip_to_semi(fn, i);
}

static int add_sym(struct ptx_fn *fn, int name_tok, uint8_t space, uint64_t addr, int dynamic)
{
    if (bl_grow(&fn->sym, &fn->capsym, fn->nsym + 1, sizeof *fn->sym, 16))
        return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    const struct ptx_tok *t = &fn->tok[name_tok];
    fn->sym[fn->nsym++] = (struct ptx_sym){fn->m->text + t->at, t->len, space, dynamic, addr};
    return 0;
}

static size_t align_up(size_t v, size_t a) { return a ? (v + a - 1) / a * a : v; }

/* the initializer {a, b, ...} or a value after '=' at i into data (elements of el bytes) */
static void var_init(struct ptx_fn *fn, int i, unsigned char *data, size_t size, size_t el)
{
    size_t o = 0;
    for (i++; i < fn->ntok && !ptx_tok_p(fn, i, ';') && o + el <= size; i++) {
        if (fn->tok[i].t != TOK_NUM)
            continue;
        uint64_t v;
        int fl;
        if (ptx_num(fn->m->text + fn->tok[i].at, fn->tok[i].len, &v, &fl))
            continue;
        if (fl == 8 && el == 4) {
            double d;
            memcpy(&d, &v, 8);
            float f = (float)d;
            uint32_t u;
            memcpy(&u, &f, 4);
            v = u;
        }
        int neg = ptx_tok_p(fn, i - 1, '-');
        if (neg)
            v = (uint64_t)0 - v;
        memcpy(data + o, &v, el); /* little endian */
        o += el;
    }
}

/* a module-level .global/.const/.shared variable */
static int module_var(struct ptx_fn *fn, int i, uint8_t space, int is_extern)
{
    size_t size, align;
    int name, init;
    int end = var_decl(fn, i, &size, &align, &name, &init);
    if (end < 0)
        return -1;
    struct ptx_module *m = fn->m;
    int cap = m->ngvars;
    if (bl_grow(&m->gvar, &cap, m->ngvars + 1, sizeof *m->gvar, 16))
        return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    struct ptx_gvar *g = &m->gvar[m->ngvars];
    memset(g, 0, sizeof *g);
    g->name = tok_dup(fn, name);
    g->space = space;
    g->size = size;
    g->align = align;
    if (!g->name)
        return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    m->ngvars++;
    if (space != SP_SHARED) {
        g->data = calloc(1, size ? size : 1);
        if (!g->data)
            return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
        if (init >= 0) {
            size_t el = 1;
            for (int j = i; j < name; j++) {
                uint8_t t;
                if (type_of(fn, j, &t))
                    el = TY_BYTES(t);
            }
            var_init(fn, init, g->data, size, el);
        }
    } else if (is_extern || size == 0) {
        g->size = 0; /* dynamic */
    }
    return end;
}

/* .param list in ( ... ) at i (the '('); kernel params get offsets */
static int params(struct ptx_fn *fn, int i, int record)
{
    if (!ptx_tok_p(fn, i, '('))
        return i;
    i++;
    while (!ptx_tok_p(fn, i, ')')) {
        if (!ptx_tok_id(fn, i, ".param") && !ptx_tok_id(fn, i, ".reg"))
            return ptx_perr(fn, i, PTX_E_SYNTAX);
        i++;
        int j = i;
        while (fn->tok[j].t == TOK_ID && fn->m->text[fn->tok[j].at] == '.' &&
               !ptx_tok_id(fn, j, ".align")) {
            uint8_t t;
            if (type_of(fn, j, &t))
                break;
            j++; /* .ptr, .global, ... qualifiers */
        }
        size_t size, align;
        int name, init;
        /* var_decl runs to ';': copy until ',' or ')' instead */
        int k = j, depth = 0;
        while (k < fn->ntok && fn->tok[k].t != TOK_END &&
               !(depth == 0 && (ptx_tok_p(fn, k, ',') || ptx_tok_p(fn, k, ')')))) {
            depth += ptx_tok_p(fn, k, '[') - ptx_tok_p(fn, k, ']');
            k++;
        }
        struct ptx_tok save = fn->tok[k];
        fn->tok[k] = (struct ptx_tok){TOK_P, ';', save.at, 1, save.line};
        int e = var_decl(fn, j, &size, &align, &name, &init);
        fn->tok[k] = save;
        if (e < 0)
            return -1;
        if (record) {
            struct ptx_kernel *kn = fn->k;
            int cap = kn->nparams;
            if (bl_grow(&kn->param, &cap, kn->nparams + 1, sizeof *kn->param, 16))
                return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
            size_t off = align_up(kn->param_bytes, align);
            kn->param[kn->nparams++] = (struct ptx_param){tok_dup(fn, name), size, align, off};
            kn->param_bytes = off + size;
            if (add_sym(fn, name, SP_PARAM, off, 0))
                return -1;
        }
        i = k + ptx_tok_p(fn, k, ',');
    }
    return i + 1;
}

/* .reg .type %name<N>; or .reg .type %a, %b; */
static int dir_reg(struct ptx_fn *fn, int i)
{
    int end = skip_to_semi(fn, i);
    for (int j = i + 1; j < end - 1; j++) { /* %r, or a block's plain names (r0, p) */
        if (fn->tok[j].t != TOK_ID || fn->m->text[fn->tok[j].at] == '.')
            continue;
        int count = -1;
        if (ptx_tok_p(fn, j + 1, '<')) {
            uint64_t n;
            if (num_at(fn, j + 2, &n) || !ptx_tok_p(fn, j + 3, '>') || n > (1u << 20))
                return ptx_perr(fn, j, PTX_E_SYNTAX);
            count = (int)n;
        }
        if (bl_grow(&fn->pfx, &fn->cappfx, fn->npfx + 1, sizeof *fn->pfx, 16))
            return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
        fn->pfx[fn->npfx++] = (struct ptx_regpfx){fn->m->text + fn->tok[j].at, fn->tok[j].len,
                                                  fn->k->nslots, count};
        fn->k->nslots += count < 0 ? 1 : count;
    }
    return end;
}

/* a function-level .shared/.local/.param variable */
static int fn_var(struct ptx_fn *fn, int i, uint8_t space)
{
    size_t size, align;
    int name, init;
    int end = var_decl(fn, i + 1, &size, &align, &name, &init);
    if (end < 0)
        return -1;
    struct ptx_kernel *k = fn->k;
    if (space == SP_SHARED) {
        size_t off = align_up(k->static_smem, align);
        k->static_smem = off + size;
        if (align > k->smem_align)
            k->smem_align = align;
        return add_sym(fn, name, SP_SHARED, off, 0) ? -1 : end;
    }
    /* .local and call-site .param: per-thread memory */
    size_t off = align_up(k->local_bytes, align < 8 ? 8 : align);
    k->local_bytes = off + size;
    return add_sym(fn, name, SP_LOCAL, off, 0) ? -1 : end;
}

static int add_label(struct ptx_fn *fn, int tok)
{
    if (bl_grow(&fn->label, &fn->caplabel, fn->nlabel + 1, sizeof *fn->label, 16))
        return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    fn->label[fn->nlabel++] = (struct ptx_sym){fn->m->text + fn->tok[tok].at, fn->tok[tok].len,
                                               0, 0, (uint64_t)fn->k->ninsn};
    return 0;
}

static struct ptx_sym *find(struct ptx_sym *s, int n, const char *name, uint32_t len)
{
    for (int i = 0; i < n; i++)
        if (s[i].len == len && !memcmp(s[i].name, name, len))
            return &s[i];
    return NULL;
}

/* a module-level variable used by kernel fn->k: its address in o */
static int resolve_gvar(struct ptx_fn *fn, const char *name, uint32_t len, struct ptx_opnd *o,
                        struct ptx_sym *dyn_fix)
{
    struct ptx_module *m = fn->m;
    for (int g = 0; g < m->ngvars; g++) {
        struct ptx_gvar *v = &m->gvar[g];
        if (strlen(v->name) != len || memcmp(v->name, name, len))
            continue;
        if (v->space != SP_SHARED) {
            o->imm += (uint64_t)(uintptr_t)v->data;
            o->space = v->space;
            return 0;
        }
        if (v->size == 0) { /* dynamic: after the static layout, fixed up at the end */
            if (v->align > dyn_fix->addr)
                dyn_fix->addr = v->align;
            o->space = SP_SHARED;
            dyn_fix->dynamic = 1;
            return 1;
        }
        struct ptx_kernel *k = fn->k;
        size_t off = align_up(k->static_smem, v->align);
        k->static_smem = off + v->size;
        if (v->align > k->smem_align)
            k->smem_align = v->align;
        if (bl_grow(&fn->sym, &fn->capsym, fn->nsym + 1, sizeof *fn->sym, 16))
            return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
        fn->sym[fn->nsym++] = (struct ptx_sym){name, len, SP_SHARED, 0, off};
        o->imm += off;
        o->space = SP_SHARED;
        return 0;
    }
    return -2;
}

/* ptxas keeps a shared word it loaded in a register: a second plain ld.shared of the same
 * address operand (base register, offset, type, vector) in the same basic block, with no
 * instruction between them that may write shared memory or order it (a store, an atomic, a
 * barrier, cp.async, a fence or anything the executor does not name), nor one that writes the
 * base register, is no SASS instruction (tests/gpu/devprogs/cub_blocks.cu's BlockScan: three
 * such reloads a block, measured on an H100). Those loads are marked, not recorded. */
static void mark_reloads(struct ptx_kernel *k)
{
    enum { SEEN = 16 };
    const struct ptx_insn *seen[SEEN];
    int nseen = 0;
    unsigned char *target = calloc((size_t)k->ninsn + 1, 1);
    if (!target)
        return; /* nothing marked: every load recorded */
    for (int i = 0; i < k->ninsn; i++)
        for (int j = 0; j < k->insn[i].nopnd; j++)
            if (k->insn[i].o[j].kind == O_LABEL && k->insn[i].o[j].imm <= (uint64_t)k->ninsn)
                target[k->insn[i].o[j].imm] = 1;
    for (int i = 0; i < k->ninsn; i++) {
        struct ptx_insn *in = &k->insn[i];
        if (target[i])
            nseen = 0;
        int plain = in->op == OP_LD && in->space == SP_SHARED && !in->mod && in->guard < 0 &&
                    in->o[1].kind == O_MEM;
        if (plain) {
            int k2 = 0;
            while (k2 < nseen && !(seen[k2]->o[1].reg == in->o[1].reg &&
                                   seen[k2]->o[1].imm == in->o[1].imm &&
                                   seen[k2]->type == in->type && seen[k2]->vec == in->vec))
                k2++;
            if (k2 < nseen)
                in->reload = 1;
            else if (nseen < SEEN)
                seen[nseen++] = in;
        }
        switch (in->op) {
        case OP_ST: case OP_ATOM: case OP_RED: case OP_STMATRIX: case OP_CPASYNC:
        case OP_CPWAIT: case OP_BAR: case OP_BARARRIVE: case OP_MBAR: case OP_WMMA: case OP_BRA:
        case OP_RET: case OP_EXIT: case OP_NOP: case OP_NONE: case OP_TRAP:
            nseen = 0;
            continue;
        default:
            break;
        }
        /* a register it writes: loads based on it are another address from here on */
        const struct ptx_opnd *d = &in->o[0];
        for (int s = 0; s < nseen; s++) {
            int32_t base = seen[s]->o[1].reg, hit = base >= 0 && d->kind == O_REG && d->reg == base;
            for (int e = 0; d->kind == O_VEC && e < d->n && base >= 0; e++)
                hit |= d->vreg[e] == base;
            if (hit)
                seen[s--] = seen[--nseen];
        }
    }
    free(target);
}

/* labels and symbols of the function's instructions */
static int resolve(struct ptx_fn *fn)
{
    struct ptx_sym dyn = {0};
    dyn.addr = 16;
    int ndyn = 0;
    int *dynfix = NULL;
    int capdyn = 0;
    for (int f = 0; f < fn->nfix; f++) {
        struct ptx_fixup *x = &fn->fix[f];
        struct ptx_opnd *o = &fn->k->insn[x->insn].o[x->opnd];
        const struct ptx_tok *t = &fn->tok[x->tok];
        const char *name = fn->m->text + t->at;
        struct ptx_sym *s;
        if (o->kind == O_LABEL) {
            if (!(s = find(fn->label, fn->nlabel, name, t->len)))
                goto undeclared;
            o->imm = s->addr;
            continue;
        }
        if ((s = find(fn->sym, fn->nsym, name, t->len))) {
            o->imm += s->addr;
            o->space = s->space;
            continue;
        }
        int r = resolve_gvar(fn, name, t->len, o, &dyn);
        if (r == 1) {
            if (bl_grow(&dynfix, &capdyn, ndyn + 1, sizeof *dynfix, 16)) {
                free(dynfix);
                return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
            }
            dynfix[ndyn++] = f;
            continue;
        }
        if (r == 0)
            continue;
        if (r == -1) {
            free(dynfix);
            return -1;
        }
    undeclared:
        free(dynfix);
        return ptx_perr(fn, x->tok, PTX_E_UNDECLARED);
    }
    struct ptx_kernel *k = fn->k;
    size_t a = k->smem_align > dyn.addr ? k->smem_align : dyn.addr;
    size_t base = align_up(k->static_smem, a);
    for (int d = 0; d < ndyn; d++) {
        struct ptx_fixup *x = &fn->fix[dynfix[d]];
        fn->k->insn[x->insn].o[x->opnd].imm += base;
    }
    k->smem_align = a;
    free(dynfix);
    return 0;
}

static int body_stmt(struct ptx_fn *fn, int i)
{
    if (ptx_tok_p(fn, i, '{')) { /* a block (inline asm's): its .reg names are its own */
        if (fn->nscope == (int)(sizeof fn->scope / sizeof fn->scope[0]))
            return ptx_perr(fn, i, PTX_E_SYNTAX);
        fn->scope[fn->nscope++] = fn->npfx;
        return i + 1;
    }
    if (ptx_tok_p(fn, i, '}')) {
        if (fn->nscope > 0)
            fn->npfx = fn->scope[--fn->nscope];
        return i + 1;
    }
    if (ptx_tok_id(fn, i, ".reg"))
        return dir_reg(fn, i);
    if (ptx_tok_id(fn, i, ".loc"))
        return dir_loc(fn, i);
    if (ptx_tok_id(fn, i, ".shared"))
        return fn_var(fn, i, SP_SHARED);
    if (ptx_tok_id(fn, i, ".local") || ptx_tok_id(fn, i, ".param"))
        return fn_var(fn, i, SP_LOCAL);
    if (ptx_tok_id(fn, i, ".pragma"))
        return skip_to_semi(fn, i);
    if (fn->tok[i].t == TOK_ID && ptx_tok_p(fn, i + 1, ':')) {
        if (add_label(fn, i))
            return -1;
        return i + 2;
    }
    int guard = -1, neg = 0;
    if (ptx_tok_p(fn, i, '@')) {
        i++;
        if (ptx_tok_p(fn, i, '!'))
            neg = 1, i++;
        guard = ptx_reg_find(fn, fn->m->text + fn->tok[i].at, fn->tok[i].len);
        if (guard < 0)
            return ptx_perr(fn, i, PTX_E_UNDECLARED);
        i++;
    }
    if (fn->tok[i].t != TOK_ID)
        return ptx_perr(fn, i, PTX_E_SYNTAX);
    fn->pos = i;
    if (ptx_decode(fn, guard, neg))
        return -1;
    return fn->pos;
}

/* .entry/.func NAME (...) ... { body } or ; */
static int function(struct ptx_fn *fn, int i, int is_entry)
{
    i++;
    if (!is_entry && ptx_tok_p(fn, i, '(')) /* return parameters */
        if ((i = params(fn, i, 0)) < 0)
            return -1;
    if (fn->tok[i].t != TOK_ID)
        return ptx_perr(fn, i, PTX_E_SYNTAX);
    struct ptx_module *m = fn->m;
    int cap = m->nkernels;
    if (bl_grow(&m->kernel, &cap, m->nkernels + 1, sizeof *m->kernel, 16))
        return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    struct ptx_kernel *k = &m->kernel[m->nkernels++];
    memset(k, 0, sizeof *k);
    k->name = tok_dup(fn, i);
    k->is_entry = is_entry;
    k->nslots = SR_COUNT;
    k->smem_align = 1;
    fn->k = k;
    fn->npfx = fn->nsym = fn->nlabel = fn->nfix = fn->nscope = 0;
    fn->capinsn = 0;
    if (!k->name || (i = params(fn, i + 1, 1)) < 0)
        return -1;
    while (!ptx_tok_p(fn, i, '{') && !ptx_tok_p(fn, i, ';')) {
        if (fn->tok[i].t == TOK_END)
            return ptx_perr(fn, i, PTX_E_SYNTAX);
        i++; /* .maxntid 256, 1, 1 and other performance directives */
    }
    if (ptx_tok_p(fn, i, ';')) { /* a declaration: not a kernel to run */
        free(k->name);
        free(k->param);
        m->nkernels--;
        return i + 1;
    }
    int depth = 1;
    i++;
    while (depth > 0) {
        if (fn->tok[i].t == TOK_END)
            return ptx_perr(fn, i, PTX_E_SYNTAX);
        if (ptx_tok_p(fn, i, '{'))
            depth++;
        if (ptx_tok_p(fn, i, '}') && --depth == 0)
            break;
        if ((i = body_stmt(fn, i)) < 0)
            return -1;
    }
    if (resolve(fn))
        return -1;
    mark_reloads(k);
    if (!is_entry) { /* a .func: kept only as a name that calls cannot reach */
        for (int j = 0; j < k->nparams; j++)
            free(k->param[j].name);
        free(k->param);
        free(k->insn);
        free(k->name);
        m->nkernels--;
    }
    return i + 1;
}

static int module_stmt(struct ptx_fn *fn, int i)
{
    int is_extern = 0;
    while (ptx_tok_id(fn, i, ".visible") || ptx_tok_id(fn, i, ".weak") ||
           ptx_tok_id(fn, i, ".extern") || ptx_tok_id(fn, i, ".common")) {
        is_extern |= ptx_tok_id(fn, i, ".extern");
        i++;
    }
    if (ptx_tok_id(fn, i, ".version") || ptx_tok_id(fn, i, ".target") ||
        ptx_tok_id(fn, i, ".address_size"))
        return line_end(fn, i);
    if (ptx_tok_id(fn, i, ".file"))
        return dir_file(fn, i);
    if (ptx_tok_id(fn, i, ".loc"))
        return dir_loc(fn, i);
    if (ptx_tok_id(fn, i, ".entry"))
        return function(fn, i, 1);
    if (ptx_tok_id(fn, i, ".func"))
        return function(fn, i, 0);
    if (ptx_tok_id(fn, i, ".global"))
        return module_var(fn, i + 1, SP_GLOBAL, is_extern);
    if (ptx_tok_id(fn, i, ".const"))
        return module_var(fn, i + 1, SP_CONST, is_extern);
    if (ptx_tok_id(fn, i, ".shared"))
        return module_var(fn, i + 1, SP_SHARED, is_extern);
    if (ptx_tok_id(fn, i, ".section")) {
        while (!ptx_tok_p(fn, i, '{') && fn->tok[i].t != TOK_END)
            i++;
        while (!ptx_tok_p(fn, i, '}') && fn->tok[i].t != TOK_END)
            i++;
        return fn->tok[i].t == TOK_END ? i : i + 1;
    }
    if (ptx_tok_id(fn, i, ".pragma"))
        return skip_to_semi(fn, i);
    return ptx_perr(fn, i, PTX_E_SYNTAX);
}

struct ptx_module *ptx_module_parse(const char *text, size_t len, struct bl_err *err)
{
    struct ptx_module *m = calloc(1, sizeof *m);
    if (!m || !(m->text = malloc(len + 1))) {
        free(m);
        bl_fail(err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
        return NULL;
    }
    memcpy(m->text, text, len);
    m->text[len] = 0;
    m->len = len;
    struct ptx_fn fn = {0};
    fn.m = m;
    fn.err = err;
    fn.tok = ptx_tokenize(m->text, len, &fn.ntok);
    int i = 0, rc = 0;
    if (!fn.tok)
        rc = bl_fail(err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    while (!rc && fn.tok[i].t != TOK_END)
        if ((i = module_stmt(&fn, i)) < 0)
            rc = -1;
    free(fn.tok);
    free(fn.pfx);
    free(fn.sym);
    free(fn.label);
    free(fn.fix);
    if (rc) {
        ptx_module_free(m);
        return NULL;
    }
    return m;
}

void ptx_module_free(struct ptx_module *m)
{
    if (!m)
        return;
    for (int k = 0; k < m->nkernels; k++) {
        for (int j = 0; j < m->kernel[k].nparams; j++)
            free(m->kernel[k].param[j].name);
        free(m->kernel[k].param);
        free(m->kernel[k].insn);
        free(m->kernel[k].name);
    }
    free(m->kernel);
    for (int f = 0; f < m->nfiles; f++)
        free(m->file[f].path);
    free(m->file);
    for (int g = 0; g < m->ngvars; g++) {
        free(m->gvar[g].name);
        free(m->gvar[g].data);
    }
    free(m->gvar);
    free(m->loc);
    free(m->text);
    free(m);
}

int ptx_kernel_count(const struct ptx_module *m) { return m ? m->nkernels : 0; }

const char *ptx_kernel_name(const struct ptx_module *m, int k)
{
    return m && k >= 0 && k < m->nkernels ? m->kernel[k].name : NULL;
}

int ptx_kernel_find(const struct ptx_module *m, const char *mangled)
{
    for (int k = 0; m && mangled && k < m->nkernels; k++)
        if (!strcmp(m->kernel[k].name, mangled))
            return k;
    return -1;
}

int ptx_kernel_nparams(const struct ptx_module *m, int k)
{
    return m && k >= 0 && k < m->nkernels ? m->kernel[k].nparams : -1;
}

size_t ptx_kernel_static_smem(const struct ptx_module *m, int k)
{
    return m && k >= 0 && k < m->nkernels ? m->kernel[k].static_smem : 0;
}

int ptx_kernel_ninsn(const struct ptx_module *m, int k)
{
    return m && k >= 0 && k < m->nkernels ? m->kernel[k].ninsn : 0;
}

unsigned ptx_insn_loc(const struct ptx_module *m, int k, unsigned pc)
{
    if (!m || k < 0 || k >= m->nkernels || pc >= (unsigned)m->kernel[k].ninsn)
        return ~0u;
    return m->kernel[k].insn[pc].loc;
}

int ptx_loc(const struct ptx_module *m, unsigned loc, struct ptx_frame *out, int max)
{
    int n = 0;
    int i = m && loc < (unsigned)m->nlocs ? (int)loc : -1;
    for (int guard = 0; i >= 0 && n < max && guard < 64; guard++) {
        const struct ptx_locrec *r = &m->loc[i];
        const char *path = "";
        for (int f = 0; f < m->nfiles; f++)
            if (m->file[f].id == r->file)
                path = m->file[f].path;
        out[n++] = (struct ptx_frame){path, r->line, r->col};
        i = r->parent;
    }
    return n;
}
