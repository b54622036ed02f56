/* ptx_decode.c: one PTX instruction, from its tokens to a struct ptx_insn: the opcode's base
 * name to enum ptx_op, its dot-modifiers (types, state space, vector, comparison, atomic
 * operation, rounding, ...) to fields, its operands to register slots, immediates, vectors,
 * addresses [base+offset] and labels (symbols fixed up when the function ends, ptx_parse.c).
 * An opcode outside the table decodes as OP_NONE: it is named when it executes, never
 * guessed (a kernel whose unsupported instruction never runs still runs). The one call run
 * is printf's (vprintf): it prints nothing and returns 0; every other call is refused. */
#include <stdlib.h>
#include <string.h>

#include "ptx_parse.h"

static const struct {
    const char *s;
    uint8_t op;
} ops[] = {
    {"mov", OP_MOV},        {"add", OP_ADD},          {"sub", OP_SUB},
    {"mul", OP_MUL},        {"mad", OP_MAD},          {"fma", OP_FMA},
    {"div", OP_DIV},        {"rem", OP_REM},          {"min", OP_MIN},
    {"max", OP_MAX},        {"abs", OP_ABS},          {"neg", OP_NEG},
    {"and", OP_AND},        {"or", OP_OR},            {"xor", OP_XOR},
    {"not", OP_NOT},        {"cnot", OP_CNOT},        {"shl", OP_SHL},
    {"shr", OP_SHR},        {"selp", OP_SELP},        {"setp", OP_SETP},
    {"cvt", OP_CVT},        {"cvta", OP_CVTA},        {"rsqrt", OP_RSQRT},
    {"sqrt", OP_SQRT},      {"rcp", OP_RCP},          {"ex2", OP_EX2},
    {"lg2", OP_LG2},        {"sin", OP_SIN},          {"cos", OP_COS},
    {"popc", OP_POPC},      {"clz", OP_CLZ},          {"brev", OP_BREV},
    {"bfe", OP_BFE},        {"bfi", OP_BFI},          {"prmt", OP_PRMT},
    {"copysign", OP_COPYSIGN}, {"mul24", OP_MUL24},   {"mad24", OP_MAD24},
    {"ld", OP_LD},          {"ldu", OP_LD},           {"st", OP_ST},
    {"atom", OP_ATOM},      {"red", OP_RED},          {"ldmatrix", OP_LDMATRIX},
    {"stmatrix", OP_STMATRIX}, {"cp", OP_CPASYNC},    {"bra", OP_BRA},
    {"ret", OP_RET},        {"exit", OP_EXIT},        {"bar", OP_BAR},
    {"barrier", OP_BAR},    {"membar", OP_NOP},       {"fence", OP_NOP},
    {"trap", OP_TRAP},      {"shfl", OP_SHFL},        {"vote", OP_VOTE},
    {"match", OP_MATCH},    {"activemask", OP_ACTIVEMASK}, {"redux", OP_REDUX},
    {"prefetch", OP_NOP},   {"prefetchu", OP_NOP},    {"nanosleep", OP_NOP},
    {"pmevent", OP_NOP},    {"mbarrier", OP_MBAR},    {"bfind", OP_BFIND},
    {"wmma", OP_WMMA},
};

static const struct {
    const char *s;
    uint8_t t;
} tnames[] = {
    {"b8", TY(TK_B, 0)},  {"b16", TY(TK_B, 1)}, {"b32", TY(TK_B, 2)}, {"b64", TY(TK_B, 3)},
    {"u8", TY(TK_U, 0)},  {"u16", TY(TK_U, 1)}, {"u32", TY(TK_U, 2)}, {"u64", TY(TK_U, 3)},
    {"s8", TY(TK_S, 0)},  {"s16", TY(TK_S, 1)}, {"s32", TY(TK_S, 2)}, {"s64", TY(TK_S, 3)},
    {"f32", TY(TK_F, 2)}, {"f64", TY(TK_F, 3)}, {"pred", TY(TK_PRED, 0)},
    {"f16", TY(TK_F, 1)}, {"bf16", TY(TK_BF, 1)}, {"f16x2", TY(TK_H2, 2)}, {"bf16x2", TY(TK_BF, 2)},
    {"b128", TY(TK_B, 4)}, {"tf32", TY(TK_X, 2)},
};

static const char *const cmps[] = {"",   "eq",  "ne",  "lt",  "le",  "gt",  "ge",
                                   "lo", "ls",  "hi",  "hs",  "equ", "neu", "ltu",
                                   "leu", "gtu", "geu", "num", "nan"};
static const char *const atoms[] = {"", "add", "min", "max", "inc", "dec",
                                    "and", "or", "xor", "exch", "cas"};
static const char *const mbars[] = {"", "init", "arrive", "arrive_drop", "test_wait",
                                    "try_wait", "inval"};
static const char *const rnds[] = {"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"};

static int word_in(const char *w, size_t n, const char *const *list, int count)
{
    for (int i = 1; i < count; i++)
        if (strlen(list[i]) == n && !memcmp(list[i], w, n))
            return i;
    return 0;
}

static int is(const char *w, size_t n, const char *s) { return strlen(s) == n && !memcmp(w, s, n); }

/* the modifiers of the opcode: parts after the first '.' */
static void modifiers(struct ptx_insn *in, const char *s, size_t len)
{
    int ntypes = 0;
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && s[j] != '.')
            j++;
        const char *w = s + i;
        size_t n = j - i;
        i = j + 1;
        int v;
        for (size_t t = 0; t < sizeof tnames / sizeof tnames[0]; t++)
            if (is(w, n, tnames[t].s)) {
                if (ntypes++ == 0)
                    in->type = tnames[t].t;
                else
                    in->type2 = tnames[t].t;
                goto next;
            }
        if (is(w, n, "shared") || is(w, n, "shared::cta"))
            in->space = SP_SHARED;
        else if (is(w, n, "global"))
            in->space = in->space == SP_SHARED && in->op == OP_CPASYNC ? SP_SHARED : SP_GLOBAL;
        else if (is(w, n, "local"))
            in->space = SP_LOCAL;
        else if (is(w, n, "param"))
            in->space = SP_PARAM;
        else if (is(w, n, "const"))
            in->space = SP_CONST;
        else if (is(w, n, "v2") || is(w, n, "v4"))
            in->vec = (uint8_t)(w[1] - '0');
        else if (is(w, n, "x1") || is(w, n, "x2") || is(w, n, "x4"))
            in->cmp = (uint8_t)(w[1] - '0');
        else if (is(w, n, "trans"))
            in->mod = 1;
        else if (is(w, n, "to"))
            in->cmp = CV_TO;
        else if (is(w, n, "lo") && in->op != OP_SETP)
            in->mod = MOD_LO;
        else if (is(w, n, "hi") && in->op != OP_SETP)
            in->mod = MOD_HI;
        else if (is(w, n, "wide"))
            in->mod = MOD_WIDE;
        else if (is(w, n, "sat"))
            in->rnd |= 0x80;
        else if (in->op == OP_SETP && (v = word_in(w, n, cmps, 19)))
            in->cmp = (uint8_t)v;
        else if (in->op == OP_SETP && is(w, n, "and"))
            in->mod = BOP_AND;
        else if (in->op == OP_SETP && is(w, n, "or"))
            in->mod = BOP_OR;
        else if (in->op == OP_SETP && is(w, n, "xor"))
            in->mod = BOP_XOR;
        else if ((in->op == OP_ATOM || in->op == OP_RED || in->op == OP_REDUX) &&
                 (v = word_in(w, n, atoms, 11)))
            in->cmp = (uint8_t)v;
        else if (in->op == OP_SHFL && is(w, n, "up"))
            in->cmp = SH_UP;
        else if (in->op == OP_SHFL && is(w, n, "down"))
            in->cmp = SH_DOWN;
        else if (in->op == OP_SHFL && is(w, n, "bfly"))
            in->cmp = SH_BFLY;
        else if (in->op == OP_SHFL && is(w, n, "idx"))
            in->cmp = SH_IDX;
        else if ((in->op == OP_VOTE || in->op == OP_MATCH) && is(w, n, "all"))
            in->cmp = VT_ALL;
        else if ((in->op == OP_VOTE || in->op == OP_MATCH) && is(w, n, "any"))
            in->cmp = VT_ANY;
        else if (in->op == OP_VOTE && is(w, n, "uni"))
            in->cmp = VT_UNI;
        else if (in->op == OP_VOTE && is(w, n, "ballot"))
            in->cmp = VT_BALLOT;
        else if ((v = word_in(w, n, rnds, 9)))
            in->rnd = (uint8_t)((in->rnd & 0x80) | v);
        else if (in->op == OP_BAR && is(w, n, "arrive"))
            in->op = OP_BARARRIVE;
        else if (in->op == OP_BAR && is(w, n, "warp"))
            in->op = OP_NOP; /* bar.warp.sync (__syncwarp): lanes reconverge by the min-PC rule */
        else if (in->op == OP_BAR && (is(w, n, "red") || is(w, n, "cta")))
            in->op = is(w, n, "red") ? OP_NONE : in->op;
        else if (in->op == OP_CPASYNC && (is(w, n, "commit_group") || is(w, n, "wait_group") ||
                                          is(w, n, "wait_all")))
            in->op = OP_CPWAIT;
        else if (in->op == OP_WMMA && (is(w, n, "load") || is(w, n, "store") || is(w, n, "mma")))
            in->cmp = is(w, n, "load") ? WM_LOAD : is(w, n, "store") ? WM_STORE : WM_MMA;
        else if (in->op == OP_WMMA && in->cmp == WM_LOAD && n == 1 && w[0] >= 'a' && w[0] <= 'c')
            in->cmp = (uint8_t)(WM_LOADA + (w[0] - 'a'));
        else if (in->op == OP_WMMA && (is(w, n, "row") || is(w, n, "col"))) {
            in->mod |= (uint8_t)(is(w, n, "col") ? (in->mod & WM_SEEN ? WM_COL2 : WM_COL) : 0);
            in->mod |= WM_SEEN;
        } else if (in->op == OP_WMMA && is(w, n, "m16n16k16"))
            in->mod |= WM_SHAPE;
        else if (in->op == OP_BFIND && is(w, n, "shiftamt"))
            in->mod = 1;
        else if (in->op == OP_CPASYNC && is(w, n, "mbarrier"))
            in->op = OP_MBAR, in->cmp = MB_CPARRIVE;
        else if (in->op == OP_CPASYNC && is(w, n, "bulk"))
            in->op = OP_NONE;
        else if (in->op == OP_MBAR && in->cmp != MB_CPARRIVE &&
                 (v = word_in(w, n, mbars, 7)))
            in->cmp = (uint8_t)v;
        else if (in->op == OP_MBAR && is(w, n, "parity"))
            in->mod |= MB_PARITY;
        else if (in->op == OP_MBAR && is(w, n, "noinc"))
            in->mod |= MB_NOINC;
        else if (in->op == OP_MBAR && (is(w, n, "expect_tx") || is(w, n, "complete_tx")))
            in->mod |= MB_TX;
        else if (in->op == OP_CPASYNC && is(w, n, "cg"))
            in->mod = 1;
        else if (in->op == OP_LD && is(w, n, "volatile"))
            in->mod = 1;
        else if (in->op == OP_MATCH && is(w, n, "b64"))
            in->type = TY(TK_B, 3);
        /* sync, aligned, uni, approx, full, ftz, nc, ca, cg, cs, relaxed, acquire, release,
         * gpu, cta, sys, m8n8, ... change nothing the executor computes */
    next:;
    }
}

int ptx_reg_find(struct ptx_fn *fn, const char *s, uint32_t len)
{
    static const char *const sr[SR_COUNT] = {
        "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y",
        "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%nwarpid",
        "%smid", "%nsmid", "%gridid", "%clock", "%clock64", "%lanemask_eq", "%lanemask_lt",
        "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%dynamic_smem_size",
        "%total_smem_size", "%globaltimer"};
    for (int i = 0; i < SR_COUNT; i++)
        if (is(s, len, sr[i])) {
            if (i == SR_CLOCK || i == SR_CLOCK64 || i == SR_GTIMER)
                fn->k->uses_clock = 1;
            return i;
        }
    if (is(s, len, "%tid") || is(s, len, "%ntid") || is(s, len, "%ctaid") ||
        is(s, len, "%nctaid"))
        return -1;
    for (int i = fn->npfx - 1; i >= 0; i--) /* the innermost block's name first */
        if (fn->pfx[i].count < 0 && fn->pfx[i].len == len && !memcmp(fn->pfx[i].name, s, len))
            return fn->pfx[i].base;
    uint32_t d = len;
    while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
        d--;
    if (d == len || d == 0)
        return -1;
    long n = strtol(s + d, NULL, 10);
    for (int i = fn->npfx - 1; i >= 0; i--)
        if (fn->pfx[i].count >= 0 && fn->pfx[i].len == d && !memcmp(fn->pfx[i].name, s, d) &&
            n < fn->pfx[i].count)
            return fn->pfx[i].base + (int)n;
    return -1;
}

static int add_fix(struct ptx_fn *fn, int insn, int opnd, int tok)
{
    if (bl_grow(&fn->fix, &fn->capfix, fn->nfix + 1, sizeof *fn->fix, 16))
        return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    fn->fix[fn->nfix++] = (struct ptx_fixup){insn, opnd, (uint32_t)tok};
    return 0;
}

/* an immediate at token i (with a '-' before it): bits of the value; floats as the
 * instruction's float type wants them (a 0f image in an f64 operand widens) */
static int immediate(struct ptx_fn *fn, int i, int neg, const struct ptx_insn *in, uint64_t *v)
{
    int fl;
    if (ptx_num(fn->m->text + fn->tok[i].at, fn->tok[i].len, v, &fl))
        return ptx_perr(fn, i, PTX_E_SYNTAX);
    if (fl == 4 && TY_KIND(in->type) == TK_F && TY_BYTES(in->type) == 8) {
        float f;
        uint32_t u = (uint32_t)*v;
        memcpy(&f, &u, 4);
        double d = f;
        memcpy(v, &d, 8);
    } else if (fl == 8 && TY_BYTES(in->type) == 4 && TY_KIND(in->type) == TK_F) {
        double d;
        memcpy(&d, v, 8);
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        *v = u;
    }
    if (neg) {
        if (fl == 4)
            *v ^= 0x80000000u;
        else if (fl == 8)
            *v ^= UINT64_C(1) << 63;
        else
            *v = (uint64_t)0 - *v;
    }
    return 0;
}

/* one operand at fn->pos */
static int operand(struct ptx_fn *fn, struct ptx_insn *in, int idx)
{
    struct ptx_opnd *o = &in->o[idx];
    int i = fn->pos;
    o->reg = -1;
    const struct ptx_tok *t = &fn->tok[i];
    const char *s = fn->m->text + t->at;
    if (ptx_tok_p(fn, i, '{')) {
        o->kind = O_VEC;
        i++;
        while (!ptx_tok_p(fn, i, '}')) {
            if (o->n == 8)
                return ptx_perr(fn, i, PTX_E_SYNTAX);
            int r = ptx_tok_id(fn, i, "_") ? -1
                    : ptx_reg_find(fn, fn->m->text + fn->tok[i].at, fn->tok[i].len);
            if (r < 0 && !ptx_tok_id(fn, i, "_"))
                return ptx_perr(fn, i, PTX_E_UNDECLARED);
            o->vreg[o->n++] = r;
            i++;
            if (ptx_tok_p(fn, i, ','))
                i++;
        }
        fn->pos = i + 1;
        return 0;
    }
    if (ptx_tok_p(fn, i, '[')) {
        o->kind = O_MEM;
        i++;
        if (fn->tok[i].t == TOK_ID) {
            int r = ptx_reg_find(fn, fn->m->text + fn->tok[i].at, fn->tok[i].len);
            if (r >= 0)
                o->reg = r;
            else if (add_fix(fn, fn->k->ninsn, idx, i))
                return -1;
            i++;
        } else if (fn->tok[i].t == TOK_NUM) {
            if (immediate(fn, i, 0, in, &o->imm))
                return -1;
            i++;
        }
        if (ptx_tok_p(fn, i, '+')) {
            int neg = ptx_tok_p(fn, i + 1, '-');
            uint64_t v;
            if (immediate(fn, i + 1 + neg, neg, in, &v))
                return -1;
            o->imm += v;
            i += 2 + neg;
        }
        if (!ptx_tok_p(fn, i, ']'))
            return ptx_perr(fn, i, PTX_E_SYNTAX);
        fn->pos = i + 1;
        return 0;
    }
    int neg = 0;
    if (ptx_tok_p(fn, i, '!') || ptx_tok_p(fn, i, '-')) {
        neg = 1;
        i++;
        t = &fn->tok[i];
        s = fn->m->text + t->at;
    }
    if (t->t == TOK_NUM) {
        o->kind = O_IMM;
        if (immediate(fn, i, neg, in, &o->imm))
            return -1;
        fn->pos = i + 1;
        return 0;
    }
    if (t->t != TOK_ID)
        return ptx_perr(fn, i, PTX_E_SYNTAX);
    int r = ptx_reg_find(fn, s, t->len);
    if (s[0] == '%' || r >= 0) { /* a register: %r1, or a block's own name (r0) */
        o->kind = O_REG;
        o->neg = (uint8_t)neg;
        o->reg = r;
        if (o->reg < 0)
            return ptx_perr(fn, i, PTX_E_UNDECLARED);
        fn->pos = i + 1;
        return 0;
    }
    if (ptx_tok_id(fn, i, "WARP_SZ")) { /* PTX's constant: the warp's width */
        o->kind = O_IMM;
        o->imm = 32;
        fn->pos = i + 1;
        return 0;
    }
    if (ptx_tok_id(fn, i, "_")) {
        o->kind = O_SINK;
        fn->pos = i + 1;
        return 0;
    }
    /* a label (branch target) or a symbol's address */
    o->kind = in->op == OP_BRA ? O_LABEL : O_IMM;
    if (add_fix(fn, fn->k->ninsn, idx, i))
        return -1;
    fn->pos = i + 1;
    return 0;
}

int ptx_decode(struct ptx_fn *fn, int guard, int guard_neg)
{
    struct ptx_kernel *k = fn->k;
    if (bl_grow(&k->insn, &fn->capinsn, k->ninsn + 1, sizeof *k->insn, 16))
        return bl_fail(fn->err, -1, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    struct ptx_insn *in = &k->insn[k->ninsn];
    memset(in, 0, sizeof *in);
    int i = fn->pos;
    const struct ptx_tok *t = &fn->tok[i];
    const char *s = fn->m->text + t->at;
    size_t base = 0;
    while (base < t->len && s[base] != '.')
        base++;
    for (size_t j = 0; j < sizeof ops / sizeof ops[0]; j++)
        if (is(s, base, ops[j].s))
            in->op = ops[j].op;
    in->type = in->type2 = TY_NONE;
    in->vec = 1;
    in->guard = guard;
    in->guard_neg = (int8_t)guard_neg;
    in->loc = fn->cur_loc;
    in->line = (unsigned)t->line;
    in->text = t->at;
    if (base < t->len)
        modifiers(in, s + base + 1, t->len - base - 1);
    if (in->op == OP_CPASYNC && in->space != SP_SHARED)
        in->op = OP_NONE;
    if (ptx_tok_id(fn, i, "call") || !strncmp(s, "call.", 5))
        in->op = OP_NONE;
    fn->pos = i + 1;
    int n = 0;
    int end = fn->pos;
    while (end < fn->ntok && fn->tok[end].t != TOK_END && !ptx_tok_p(fn, end, ';'))
        end++;
    in->tlen = fn->tok[end].at + 1 - in->text;
    if (in->op == OP_NONE && !strncmp(s, "call", 4) && (t->len == 4 || s[4] == '.'))
        for (int j = fn->pos; j < end; j++)
            if (ptx_tok_id(fn, j, "vprintf"))
                in->op = OP_NOP; /* printf: its output is not produced (returns 0) */
    if (in->op == OP_NONE || in->op == OP_NOP) { /* named when executed; or nothing to do */
        fn->pos = end + 1;
        k->ninsn++;
        return 0;
    }
    while (fn->pos < end) {
        if (n == PTX_NOPND)
            return ptx_perr(fn, fn->pos, PTX_E_SYNTAX);
        if (operand(fn, in, n))
            return -1;
        n++;
        if (ptx_tok_p(fn, fn->pos, '|')) { /* setp's second destination */
            fn->pos++;
            if (operand(fn, in, PTX_NOPND - 1))
                return -1;
        }
        if (ptx_tok_p(fn, fn->pos, ','))
            fn->pos++;
        else if (fn->pos < end)
            return ptx_perr(fn, fn->pos, PTX_E_SYNTAX);
    }
    in->nopnd = (uint8_t)n;
    fn->pos = end + 1;
    k->ninsn++;
    return 0;
}
