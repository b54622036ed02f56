/* pattern.c: the access-pattern language (pattern.h): a lexer, a recursive-descent parser to a
 * typed AST (parsed once), and a per-lane evaluator that lays out the arrays and turns one
 * access into a struct bank_access. Every recursion is depth-bounded, every table has a cap.
 * Pure C11 + libc: no curses, no CUDA, no cJSON; never prints, never exits. */
#include "pattern.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 16384         /* AST nodes per pattern */
#define MAX_TREE_DEPTH (4 * PATTERN_MAX_DEPTH) /* AST depth (bounds the evaluator's recursion) */
#define MAX_ARRAYS 16           /* shared arrays + carved pointers */
#define MAX_LOCALS 32           /* integer/float/pointer locals */
#define MAX_TYPES 64            /* builtin + struct types */
#define MAX_TYPEDEFS 32
#define MAX_FIELDS 256          /* struct and vector members, all types together */
#define MAX_STRUCT_FIELDS 16
#define MAX_STMTS 256
#define SNIP_MAX 48             /* expression text quoted in messages */

/* ---------------------------------------------------------------- tokens */

enum tok_kind { TK_EOF, TK_IDENT, TK_INT, TK_FLOAT, TK_PUNCT };

enum punct {
    P_SHL = 256, P_SHR, P_LE, P_GE, P_EQ, P_NE, P_ANDAND, P_OROR, P_ARROW, P_OPASSIGN, P_INCDEC
};

struct token {
    int kind;        /* enum tok_kind */
    int punct;       /* a character or enum punct, for TK_PUNCT */
    int pos, len;    /* byte offset and length in the text */
    long long ival;  /* TK_INT value */
};

/* ---------------------------------------------------------------- types */

enum type_kind { TY_INT, TY_FLT, TY_VEC, TY_STRUCT };

struct field {
    char name[PATTERN_NAME_MAX];
    int type;
    unsigned off;
};

struct ctype {
    char name[PATTERN_NAME_MAX];
    int kind;               /* enum type_kind */
    unsigned size, align;
    int nfields, field0;    /* members in p->field[field0 .. field0+nfields) */
};

struct typedef_ent {
    char name[PATTERN_NAME_MAX];
    int type;
};

/* ---------------------------------------------------------------- AST */

enum node_kind {
    N_NUM, N_FLT, N_BUILTIN, N_PARAM, N_LOCAL, N_ARRAY, N_UN, N_BIN, N_COND, N_MIN, N_MAX,
    N_INDEX, N_MEMBER, N_DEREF, N_ADDR, N_PCAST, N_PADD, N_READ, N_OPQ, N_ALIAS
};

/* What a node's value is, decided at parse time. */
enum value_kind {
    VK_INT,   /* a 64-bit integer, evaluated per lane */
    VK_OPQ,   /* a number the model cannot know (float, or read from shared memory) */
    VK_PTR,   /* a pointer into shared memory: (region, byte offset), element `type` */
    VK_ARR,   /* an array (sub)object: array `arr`, dimension `level` is indexed next */
    VK_LVAL   /* an element of shared memory of type `type` */
};

enum builtin { B_TX, B_TY, B_TZ, B_BX, B_BY, B_BZ, B_LANE, B_WARP, B_TID, B_WARPSIZE, B_COUNT };

struct node {
    unsigned char kind, vk;
    short op;                /* operator for N_UN/N_BIN/N_PADD; builtin for N_BUILTIN */
    int type;                /* element type for VK_PTR/VK_LVAL */
    int arr, level;          /* VK_ARR: array and next dimension; N_ARRAY/N_LOCAL/N_PARAM index */
    int a, b, c;             /* children, -1 if none */
    long long v;             /* N_NUM value; N_MEMBER byte offset; N_INDEX/N_PADD element size */
    int pos, end;            /* byte range in the text */
    int depth;               /* tree depth */
};

/* ---------------------------------------------------------------- declarations */

struct array {
    struct pattern_array_info info;
    int elem;                /* element type */
    int is_ptr;              /* carved pointer (a local slot holds its value) */
    int is_extern;
    int ndims;
    int dim_node[3];         /* dimension expressions (static arrays) */
    int align_node;          /* __align__(N) expression or -1 */
    long long stride[3];     /* bytes per index step of each dimension, from the layout */
    int pos, len;            /* where it is declared */
};

enum local_kind { L_INT, L_OPQ, L_PTR };

struct local {
    char name[PATTERN_NAME_MAX];
    int kind;                /* enum local_kind */
    int type;                /* L_PTR: element type */
    int array;               /* L_PTR: its entry in the array table */
    int const_init;          /* `const` integer with a constant initializer: that node, else -1 */
    int is_const;            /* declared const: cannot be assigned */
};

enum stmt_kind { S_LOCAL, S_PTR, S_ACCESS };

struct stmt {
    int kind;
    int node;                /* S_LOCAL/S_PTR: the value; S_ACCESS: the accessed lvalue */
    int slot;                /* S_LOCAL/S_PTR: local slot */
    int guard;               /* S_ACCESS: condition node or -1 */
    int access;              /* S_ACCESS: index into p->acc */
    int pos, end;
};

struct param_ent {
    char name[PATTERN_NAME_MAX];
    int pos, len;            /* first use */
};

struct pattern {
    char *text;
    size_t text_len;
    struct node *node;
    int nnodes, node_cap;
    struct ctype type[MAX_TYPES];
    int ntypes;
    struct field field[MAX_FIELDS];
    int nfields;
    struct typedef_ent tdef[MAX_TYPEDEFS];
    int ntdefs;
    struct array arr[MAX_ARRAYS];
    int narrays;
    struct pattern_array_info arr_info[MAX_ARRAYS]; /* layout of the last successful eval */
    int narr_info;
    struct local loc[MAX_LOCALS];
    int nlocals;
    struct param_ent param[PATTERN_MAX_PARAMS];
    int nparams;
    struct stmt stmt[MAX_STMTS];
    int nstmts;
    struct pattern_access_info acc[PATTERN_MAX_ACCESSES];
    int acc_stmt[PATTERN_MAX_ACCESSES];
    int naccs;
};

/* ---------------------------------------------------------------- errors */

static void err_set(struct pattern_error *err, int pos, int len, int lane, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void err_set(struct pattern_error *err, int pos, int len, int lane, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->col = pos >= 0 ? pos + 1 : 0;
    err->len = pos >= 0 ? (len > 0 ? len : 1) : 0;
    err->lane = lane;
}

/* Copies text[pos..end) into buf for a message, shortened with "..." when long. */
static const char *snip(const char *text, size_t text_len, int pos, int end, char *buf,
                        size_t size)
{
    if (pos < 0 || end < pos || (size_t)end > text_len) {
        buf[0] = 0;
        return buf;
    }
    size_t n = (size_t)(end - pos);
    if (n + 1 > size) {
        size_t keep = size - 4;
        memcpy(buf, text + pos, keep);
        memcpy(buf + keep, "...", 4);
    } else {
        memcpy(buf, text + pos, n);
        buf[n] = 0;
    }
    for (char *c = buf; *c; c++)
        if (*c == '\n' || *c == '\t' || *c == '\r')
            *c = ' ';
    return buf;
}

/* strlen bounded by max (strnlen is POSIX, not C11). */
static size_t bounded_len(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n])
        n++;
    return n;
}

/* Copies a name into a PATTERN_NAME_MAX buffer, truncating. */
static void copy_name(char *dst, const char *src)
{
    size_t l = bounded_len(src, PATTERN_NAME_MAX - 1);
    memmove(dst, src, l);
    dst[l] = 0;
}

/* ---------------------------------------------------------------- lexer */

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }

static int digit_val(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* Scans a number at s[i]; fills t. Returns 0 or -1 with err. */
static int lex_number(const char *s, size_t n, size_t i, struct token *t, struct pattern_error *err)
{
    size_t j = i;
    int is_float = 0;
    /* the extent: alnum, '.', and a sign right after an exponent letter of a decimal */
    int hex = s[i] == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X');
    while (j < n) {
        char c = s[j];
        if (is_alnum(c)) {
            j++;
        } else if (c == '.') {
            is_float = 1;
            j++;
        } else if ((c == '+' || c == '-') && !hex && (s[j - 1] == 'e' || s[j - 1] == 'E')) {
            is_float = 1;
            j++;
        } else {
            break;
        }
    }
    t->pos = (int)i;
    t->len = (int)(j - i);
    if (!hex)
        for (size_t k = i; k < j; k++)
            if (s[k] == 'e' || s[k] == 'E' || s[k] == 'f' || s[k] == 'F')
                is_float = 1;
    if (is_float) {
        /* validate loosely: digits, at most one '.', an optional exponent, an optional f */
        size_t k = i;
        int digits = 0;
        while (k < j && is_digit(s[k])) { k++; digits++; }
        if (k < j && s[k] == '.') {
            k++;
            while (k < j && is_digit(s[k])) { k++; digits++; }
        }
        if (digits > 0 && k < j && (s[k] == 'e' || s[k] == 'E')) {
            k++;
            if (k < j && (s[k] == '+' || s[k] == '-'))
                k++;
            int ed = 0;
            while (k < j && is_digit(s[k])) { k++; ed++; }
            if (!ed)
                digits = 0;
        }
        if (k < j && (s[k] == 'f' || s[k] == 'F' || s[k] == 'l' || s[k] == 'L'))
            k++;
        if (!digits || k != j) {
            err_set(err, t->pos, t->len, -1, "malformed number '%.*s'", t->len > 40 ? 40 : t->len,
                    s + i);
            return -1;
        }
        t->kind = TK_FLOAT;
        return 0;
    }
    unsigned base = 10;
    size_t k = i;
    if (hex) {
        base = 16;
        k += 2;
    } else if (s[i] == '0' && i + 1 < n && (s[i + 1] == 'b' || s[i + 1] == 'B')) {
        base = 2;
        k += 2;
    } else if (s[i] == '0') {
        base = 8;
    }
    unsigned long long v = 0;
    int nd = 0, too_big = 0;
    while (k < j && digit_val(s[k]) < (int)base) {
        unsigned d = (unsigned)digit_val(s[k]);
        if (v > (ULLONG_MAX - d) / base)
            too_big = 1;
        else
            v = v * base + d;
        k++;
        nd++;
    }
    while (k < j && (s[k] == 'u' || s[k] == 'U' || s[k] == 'l' || s[k] == 'L'))
        k++;
    if (k != j || (nd == 0 && base != 8)) {
        err_set(err, t->pos, t->len, -1, "malformed number '%.*s'", t->len > 40 ? 40 : t->len,
                s + i);
        return -1;
    }
    if (too_big || v > (unsigned long long)LLONG_MAX) {
        err_set(err, t->pos, t->len, -1, "integer literal '%.*s' is too large (64-bit signed)",
                t->len > 40 ? 40 : t->len, s + i);
        return -1;
    }
    t->kind = TK_INT;
    t->ival = (long long)v;
    return 0;
}

/* Tokenizes text[0..n). Returns the token count (last one TK_EOF) or -1 with err. */
static int lex(const char *s, size_t n, struct token **out, struct pattern_error *err)
{
    int cap = 64, cnt = 0;
    struct token *t = malloc(sizeof *t * (size_t)cap);
    if (!t) {
        err_set(err, -1, 0, -1, "out of memory");
        return -1;
    }
    size_t i = 0;
    for (;;) {
        /* whitespace and comments */
        while (i < n) {
            char c = s[i];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
                i++;
            } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
                while (i < n && s[i] != '\n')
                    i++;
            } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
                size_t start = i;
                i += 2;
                while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
                    i++;
                if (i + 1 >= n) {
                    err_set(err, (int)start, 2, -1, "unterminated comment");
                    free(t);
                    return -1;
                }
                i += 2;
            } else {
                break;
            }
        }
        if (cnt + 1 >= cap) {
            cap *= 2;
            struct token *nt = realloc(t, sizeof *t * (size_t)cap);
            if (!nt) {
                free(t);
                err_set(err, -1, 0, -1, "out of memory");
                return -1;
            }
            t = nt;
        }
        struct token *tk = &t[cnt];
        memset(tk, 0, sizeof *tk);
        tk->pos = (int)i;
        if (i >= n) {
            tk->kind = TK_EOF;
            tk->len = 0;
            cnt++;
            break;
        }
        unsigned char c = (unsigned char)s[i];
        if (is_alpha(c)) {
            size_t j = i;
            while (j < n && is_alnum(s[j]))
                j++;
            tk->kind = TK_IDENT;
            tk->len = (int)(j - i);
            if (tk->len >= PATTERN_NAME_MAX) {
                err_set(err, tk->pos, tk->len, -1, "name '%.20s...' is longer than %d characters",
                        s + i, PATTERN_NAME_MAX - 1);
                free(t);
                return -1;
            }
            i = j;
        } else if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s[i + 1]))) {
            if (lex_number(s, n, i, tk, err) < 0) {
                free(t);
                return -1;
            }
            i += (size_t)tk->len;
        } else {
            char c1 = i + 1 < n ? s[i + 1] : 0;
            char c2 = i + 2 < n ? s[i + 2] : 0;
            int p = 0, len = 1;
            if ((c == '<' && c1 == '<') || (c == '>' && c1 == '>')) {
                if (c2 == '=') { p = P_OPASSIGN; len = 3; }
                else { p = c == '<' ? P_SHL : P_SHR; len = 2; }
            } else if (c1 == '=' && (c == '<' || c == '>' || c == '=' || c == '!')) {
                p = c == '<' ? P_LE : c == '>' ? P_GE : c == '=' ? P_EQ : P_NE;
                len = 2;
            } else if (c == '&' && c1 == '&') {
                p = P_ANDAND; len = 2;
            } else if (c == '|' && c1 == '|') {
                p = P_OROR; len = 2;
            } else if (c == '-' && c1 == '>') {
                p = P_ARROW; len = 2;
            } else if ((c == '+' && c1 == '+') || (c == '-' && c1 == '-')) {
                p = P_INCDEC; len = 2;
            } else if (c1 == '=' && strchr("+-*/%&|^", c)) {
                p = P_OPASSIGN; len = 2;
            } else if (strchr("[](){};,.*+-/%&|^~!<>=?:", c)) {
                p = c;
            } else {
                if (c >= 0x20 && c < 0x7f)
                    err_set(err, (int)i, 1, -1, "unexpected character '%c'", c);
                else
                    err_set(err, (int)i, 1, -1, "unexpected byte 0x%02x", c);
                free(t);
                return -1;
            }
            tk->kind = TK_PUNCT;
            tk->punct = p;
            tk->len = len;
            i += (size_t)len;
        }
        cnt++;
    }
    *out = t;
    return cnt;
}

/* ---------------------------------------------------------------- builtin types */

struct builtin_type {
    const char *name;
    int kind;
    unsigned size, align;
    const char *comp;   /* vector component type */
    int ncomp;
};

static const struct builtin_type builtin_types[] = {
    {"char", TY_INT, 1, 1, NULL, 0},
    {"unsigned char", TY_INT, 1, 1, NULL, 0},
    {"short", TY_INT, 2, 2, NULL, 0},
    {"unsigned short", TY_INT, 2, 2, NULL, 0},
    {"int", TY_INT, 4, 4, NULL, 0},
    {"unsigned", TY_INT, 4, 4, NULL, 0},
    {"long", TY_INT, 8, 8, NULL, 0},
    {"unsigned long", TY_INT, 8, 8, NULL, 0},
    {"long long", TY_INT, 8, 8, NULL, 0},
    {"unsigned long long", TY_INT, 8, 8, NULL, 0},
    {"float", TY_FLT, 4, 4, NULL, 0},
    {"double", TY_FLT, 8, 8, NULL, 0},
    {"half", TY_FLT, 2, 2, NULL, 0},
    {"__half", TY_FLT, 2, 2, NULL, 0},
    {"half2", TY_VEC, 4, 4, "half", 2},
    {"__half2", TY_VEC, 4, 4, "half", 2},
    {"float2", TY_VEC, 8, 8, "float", 2},
    {"float3", TY_VEC, 12, 4, "float", 3},
    {"float4", TY_VEC, 16, 16, "float", 4},
    {"int2", TY_VEC, 8, 8, "int", 2},
    {"int3", TY_VEC, 12, 4, "int", 3},
    {"int4", TY_VEC, 16, 16, "int", 4},
    {"uint2", TY_VEC, 8, 8, "unsigned", 2},
    {"uint4", TY_VEC, 16, 16, "unsigned", 4},
    {"double2", TY_VEC, 16, 16, "double", 2},
    {"longlong2", TY_VEC, 16, 16, "long long", 2},
};
#define NBUILTIN_TYPES ((int)(sizeof builtin_types / sizeof builtin_types[0]))

static int find_type(const struct pattern *p, const char *name)
{
    for (int i = 0; i < NBUILTIN_TYPES && i < p->ntypes; i++)
        if (p->type[i].name[0] == name[0] && strcmp(p->type[i].name, name) == 0)
            return i;
    return -1;
}

static void init_types(struct pattern *p)
{
    static const char comp_names[] = "xyzw";
    p->ntypes = 0;
    p->nfields = 0;
    for (int i = 0; i < NBUILTIN_TYPES; i++) {
        struct ctype *t = &p->type[p->ntypes++];
        const struct builtin_type *b = &builtin_types[i];
        copy_name(t->name, b->name);
        t->kind = b->kind;
        t->size = b->size;
        t->align = b->align;
        t->nfields = 0;
        t->field0 = p->nfields;
        if (b->comp) {
            int ct = find_type(p, b->comp);
            for (int k = 0; k < b->ncomp; k++) {
                struct field *f = &p->field[p->nfields++];
                f->name[0] = comp_names[k];
                f->name[1] = 0;
                f->type = ct;
                f->off = (unsigned)k * p->type[ct].size;
            }
            t->nfields = b->ncomp;
        }
    }
}

/* ---------------------------------------------------------------- parser */

struct parser {
    struct pattern *p;
    const char *s;
    size_t n;
    struct token *tok;
    int ntok, i;
    int depth;               /* nesting of parse_unary/parse_cond */
    int const_ctx;           /* parsing array dimensions: constants and parameters only */
    int reads;               /* shared reads (N_READ) in the current statement */
    int read_node;           /* the first one */
    int last_if;             /* after if/else if: "some branch so far was taken", else -1 */
    struct pattern_error *err;
};

static const struct token *peek(const struct parser *ps, int k)
{
    int j = ps->i + k;
    if (j < 0)
        j = 0;
    if (j >= ps->ntok)
        j = ps->ntok - 1;
    return &ps->tok[j];
}

static int is_punct(const struct token *t, int c) { return t->kind == TK_PUNCT && t->punct == c; }

static int tok_is(const struct parser *ps, const struct token *t, const char *word)
{
    size_t l = strlen(word);
    return t->kind == TK_IDENT && (size_t)t->len == l && memcmp(ps->s + t->pos, word, l) == 0;
}

static void tok_name(const struct parser *ps, const struct token *t, char *buf)
{
    int l = t->len < PATTERN_NAME_MAX ? t->len : PATTERN_NAME_MAX - 1;
    memcpy(buf, ps->s + t->pos, (size_t)l);
    buf[l] = 0;
}

/* Describes a token for "expected X but found Y". */
static const char *tok_desc(const struct parser *ps, const struct token *t, char *buf, size_t size)
{
    if (t->kind == TK_EOF)
        return "the end of the pattern";
    snprintf(buf, size, "'%.*s'", t->len > 24 ? 24 : t->len, ps->s + t->pos);
    return buf;
}

static int expect(struct parser *ps, int c, const char *what)
{
    const struct token *t = peek(ps, 0);
    if (is_punct(t, c)) {
        ps->i++;
        return 0;
    }
    char b[40];
    err_set(ps->err, t->pos, t->len, -1, "expected '%c' %s but found %s", c, what,
            tok_desc(ps, t, b, sizeof b));
    return -1;
}

static int new_node(struct parser *ps, int kind, int vk, int pos, int end)
{
    struct pattern *p = ps->p;
    if (p->nnodes >= MAX_NODES) {
        err_set(ps->err, pos, end - pos, -1,
                "pattern is too complex (more than %d expression nodes)", MAX_NODES);
        return -1;
    }
    if (p->nnodes >= p->node_cap) {
        int cap = p->node_cap ? p->node_cap * 2 : 64;
        struct node *nn = realloc(p->node, sizeof *nn * (size_t)cap);
        if (!nn) {
            err_set(ps->err, -1, 0, -1, "out of memory");
            return -1;
        }
        p->node = nn;
        p->node_cap = cap;
    }
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
static int link(struct parser *ps, int id, int a, int b, int c)
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
    if (nd->depth > MAX_TREE_DEPTH) {
        err_set(ps->err, nd->pos, nd->end - nd->pos, -1,
                "expression is too long or nested too deeply (more than %d levels)",
                MAX_TREE_DEPTH);
        return -1;
    }
    return id;
}

static int parse_expr(struct parser *ps);
static int parse_cond(struct parser *ps);
static int parse_unary(struct parser *ps);
static int parse_type(struct parser *ps, int *type);

static int find_local(const struct pattern *p, const char *name)
{
    for (int i = p->nlocals - 1; i >= 0; i--)
        if (strcmp(p->loc[i].name, name) == 0)
            return i;
    return -1;
}

static int find_array(const struct pattern *p, const char *name)
{
    for (int i = 0; i < p->narrays; i++)
        if (!p->arr[i].is_ptr && strcmp(p->arr[i].info.name, name) == 0)
            return i;
    return -1;
}

static int find_typedef(const struct pattern *p, const char *name)
{
    for (int i = 0; i < p->ntdefs; i++)
        if (strcmp(p->tdef[i].name, name) == 0)
            return i;
    return -1;
}

static int find_param(const struct pattern *p, const char *name)
{
    for (int i = 0; i < p->nparams; i++)
        if (strcmp(p->param[i].name, name) == 0)
            return i;
    return -1;
}

static const char *const int_words[] = {"char", "short", "int", "long", "unsigned", "signed", NULL};

static int is_int_word(const struct parser *ps, const struct token *t)
{
    for (int i = 0; int_words[i]; i++)
        if (tok_is(ps, t, int_words[i]))
            return 1;
    return 0;
}

/* Does a type start at token t? */
static int is_type_start(const struct parser *ps, const struct token *t)
{
    if (t->kind != TK_IDENT)
        return 0;
    if (is_int_word(ps, t) || tok_is(ps, t, "struct") || tok_is(ps, t, "const") ||
        tok_is(ps, t, "volatile"))
        return 1;
    char name[PATTERN_NAME_MAX];
    tok_name(ps, t, name);
    if (find_local(ps->p, name) >= 0 || find_array(ps->p, name) >= 0)
        return 0;
    return find_type(ps->p, name) >= 0 || find_typedef(ps->p, name) >= 0;
}

/* A name the pattern declared, a builtin, or a type: taken. */
static int name_taken(const struct parser *ps, const char *name)
{
    return find_local(ps->p, name) >= 0 || find_array(ps->p, name) >= 0 ||
           find_typedef(ps->p, name) >= 0 || find_type(ps->p, name) >= 0;
}

static const char *const reserved[] = {
    "threadIdx", "blockDim", "blockIdx", "gridDim", "warpSize", "min", "max", "sizeof", "if",
    "else", "typedef", "struct", "extern", "static", "__shared__", "const", "volatile",
    "unsigned", "signed", "char", "short", "int", "long", "__syncthreads", "return", "for",
    "while", "__align__", "__restrict__", NULL};

static int is_reserved(const char *name)
{
    for (int i = 0; reserved[i]; i++)
        if (reserved[i][0] == name[0] && strcmp(reserved[i], name) == 0)
            return 1;
    return 0;
}

/* Checks that a new name can be declared at token t. */
static int check_new_name(struct parser *ps, const struct token *t, char *name)
{
    if (t->kind != TK_IDENT) {
        char b[40];
        err_set(ps->err, t->pos, t->len, -1, "expected a name but found %s",
                tok_desc(ps, t, b, sizeof b));
        return -1;
    }
    tok_name(ps, t, name);
    if (is_reserved(name)) {
        err_set(ps->err, t->pos, t->len, -1, "'%s' is a reserved word, not a name", name);
        return -1;
    }
    if (name_taken(ps, name)) {
        err_set(ps->err, t->pos, t->len, -1, "'%s' is already declared", name);
        return -1;
    }
    if (find_param(ps->p, name) >= 0) {
        err_set(ps->err, t->pos, t->len, -1, "'%s' is declared after its first use", name);
        return -1;
    }
    return 0;
}

/* The value of an lvalue or array used as a number or pointer: a shared read (opaque) or a
 * decayed pointer. Other nodes are returned unchanged. */
static int rvalue(struct parser *ps, int n)
{
    if (n < 0)
        return n;
    struct node *nd = &ps->p->node[n];
    if (nd->vk == VK_LVAL) {
        int r = new_node(ps, N_READ, VK_OPQ, nd->pos, nd->end);
        if (r < 0)
            return -1;
        ps->p->node[r].type = ps->p->node[n].type;
        if (ps->reads++ == 0)
            ps->read_node = n;
        return link(ps, r, n, -1, -1);
    }
    if (nd->vk == VK_ARR) {
        const struct array *a = &ps->p->arr[nd->arr];
        int r = new_node(ps, N_PCAST, VK_PTR, nd->pos, nd->end);
        if (r < 0)
            return -1;
        ps->p->node[r].type = a->elem;
        return link(ps, r, n, -1, -1);
    }
    return n;
}

/* rvalue() that must be an integer. */
static int int_value(struct parser *ps, int n, const char *what)
{
    n = rvalue(ps, n);
    if (n < 0)
        return -1;
    const struct node *nd = &ps->p->node[n];
    if (nd->vk == VK_INT)
        return n;
    char b[SNIP_MAX];
    snip(ps->s, ps->n, nd->pos, nd->end, b, sizeof b);
    if (nd->vk == VK_OPQ)
        err_set(ps->err, nd->pos, nd->end - nd->pos, -1,
                "%s '%s' is not an integer the model can compute (a float, or a value read from "
                "shared memory)", what, b);
    else
        err_set(ps->err, nd->pos, nd->end - nd->pos, -1, "%s '%s' is a pointer, not an integer",
                what, b);
    return -1;
}

static int parse_builtin_member(struct parser *ps, const struct token *t, int base)
{
    /* threadIdx.x etc: t is the identifier, '.' and x/y/z follow */
    if (!is_punct(peek(ps, 0), '.')) {
        char b[40];
        err_set(ps->err, peek(ps, 0)->pos, peek(ps, 0)->len, -1,
                "expected '.x', '.y' or '.z' after '%.*s' but found %s", t->len, ps->s + t->pos,
                tok_desc(ps, peek(ps, 0), b, sizeof b));
        return -1;
    }
    const struct token *m = peek(ps, 1);
    int which = -1;
    if (tok_is(ps, m, "x")) which = 0;
    else if (tok_is(ps, m, "y")) which = 1;
    else if (tok_is(ps, m, "z")) which = 2;
    if (which < 0) {
        char b[40];
        err_set(ps->err, m->pos, m->len, -1, "expected x, y or z after '%.*s.' but found %s",
                t->len, ps->s + t->pos, tok_desc(ps, m, b, sizeof b));
        return -1;
    }
    ps->i += 2;
    int id = new_node(ps, N_BUILTIN, VK_INT, t->pos, m->pos + m->len);
    if (id < 0)
        return -1;
    ps->p->node[id].op = (short)(base + which);
    return id;
}

static int const_ctx_error(struct parser *ps, int pos, int len, const char *name)
{
    err_set(ps->err, pos, len, -1,
            "array dimensions must be constants (numbers, parameters, const locals); '%s' "
            "is not", name);
    return -1;
}

/* sizeof(TYPE) or sizeof EXPR-of-shared-type */
static int parse_sizeof(struct parser *ps, const struct token *t)
{
    int paren = is_punct(peek(ps, 0), '(');
    int type = -1;
    if (paren && is_type_start(ps, peek(ps, 1))) {
        ps->i++;
        if (parse_type(ps, &type) < 0)
            return -1;
        if (is_punct(peek(ps, 0), '*')) {
            err_set(ps->err, peek(ps, 0)->pos, 1, -1, "sizeof of a pointer is not supported");
            return -1;
        }
        if (expect(ps, ')', "after the type in sizeof") < 0)
            return -1;
    } else {
        int saved_reads = ps->reads, saved_node = ps->read_node;
        int e = parse_unary(ps);
        if (e < 0)
            return -1;
        ps->reads = saved_reads;
        ps->read_node = saved_node;
        const struct node *nd = &ps->p->node[e];
        if (nd->vk == VK_LVAL || nd->vk == VK_PTR) {
            type = nd->vk == VK_LVAL ? nd->type : -1;
        }
        if (nd->vk == VK_PTR) {
            err_set(ps->err, nd->pos, nd->end - nd->pos, -1,
                    "sizeof of a pointer is not supported");
            return -1;
        }
        if (type < 0) {
            err_set(ps->err, nd->pos, nd->end - nd->pos, -1,
                    "sizeof needs a type or a shared element, e.g. sizeof(float)");
            return -1;
        }
    }
    int id = new_node(ps, N_NUM, VK_INT, t->pos, peek(ps, -1)->pos + peek(ps, -1)->len);
    if (id < 0)
        return -1;
    ps->p->node[id].v = ps->p->type[type].size;
    return id;
}

static int parse_primary(struct parser *ps)
{
    const struct token *t = peek(ps, 0);
    struct pattern *p = ps->p;
    if (t->kind == TK_INT) {
        ps->i++;
        int id = new_node(ps, N_NUM, VK_INT, t->pos, t->pos + t->len);
        if (id >= 0)
            p->node[id].v = t->ival;
        return id;
    }
    if (t->kind == TK_FLOAT) {
        if (ps->const_ctx) {
            err_set(ps->err, t->pos, t->len, -1, "array dimensions must be integers");
            return -1;
        }
        ps->i++;
        return new_node(ps, N_FLT, VK_OPQ, t->pos, t->pos + t->len);
    }
    if (is_punct(t, '(')) {
        ps->i++;
        int e = parse_expr(ps);
        if (e < 0)
            return -1;
        if (expect(ps, ')', "to close '('") < 0)
            return -1;
        /* widen the range to include the parentheses */
        p->node[e].pos = t->pos;
        p->node[e].end = peek(ps, -1)->pos + 1;
        return e;
    }
    if (t->kind != TK_IDENT) {
        char b[40];
        err_set(ps->err, t->pos, t->len, -1, "expected an expression but found %s",
                tok_desc(ps, t, b, sizeof b));
        return -1;
    }
    char name[PATTERN_NAME_MAX];
    tok_name(ps, t, name);
    ps->i++;
    int end = t->pos + t->len;
    int li = find_local(p, name);
    if (li >= 0) {
        const struct local *l = &p->loc[li];
        if (ps->const_ctx && l->const_init >= 0) {
            /* a const local with a constant value: its initializer, evaluated in place */
            int id = new_node(ps, N_ALIAS, VK_INT, t->pos, end);
            return id < 0 ? -1 : link(ps, id, l->const_init, -1, -1);
        }
        if (ps->const_ctx)
            return const_ctx_error(ps, t->pos, t->len, name);
        int vk = l->kind == L_INT ? VK_INT : l->kind == L_OPQ ? VK_OPQ : VK_PTR;
        int id = new_node(ps, N_LOCAL, vk, t->pos, end);
        if (id >= 0) {
            p->node[id].arr = li;
            p->node[id].type = l->type;
        }
        return id;
    }
    int ai = find_array(p, name);
    if (ai >= 0) {
        if (ps->const_ctx)
            return const_ctx_error(ps, t->pos, t->len, name);
        const struct array *a = &p->arr[ai];
        int scalar = !a->is_extern && a->ndims == 0;
        int id = new_node(ps, N_ARRAY, scalar ? VK_LVAL : VK_ARR, t->pos, end);
        if (id >= 0) {
            p->node[id].arr = ai;
            p->node[id].level = 0;
            p->node[id].type = a->elem;
        }
        return id;
    }
    if (strcmp(name, "threadIdx") == 0 || strcmp(name, "blockDim") == 0) {
        if (ps->const_ctx && name[0] == 't')
            return const_ctx_error(ps, t->pos, t->len, name);
        return parse_builtin_member(ps, t, name[0] == 't' ? B_TX : B_BX);
    }
    static const char *const simple[] = {"lane", "warp", "tid", "warpSize"};
    static const int simple_b[] = {B_LANE, B_WARP, B_TID, B_WARPSIZE};
    for (int k = 0; k < 4; k++) {
        if (strcmp(name, simple[k]) == 0) {
            if (ps->const_ctx && k < 3)
                return const_ctx_error(ps, t->pos, t->len, name);
            int id = new_node(ps, N_BUILTIN, VK_INT, t->pos, end);
            if (id >= 0)
                p->node[id].op = (short)simple_b[k];
            return id;
        }
    }
    if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0) {
        if (expect(ps, '(', name[1] == 'i' ? "after 'min'" : "after 'max'") < 0)
            return -1;
        int a = parse_cond(ps);
        if (a < 0 || (a = rvalue(ps, a)) < 0)
            return -1;
        if (expect(ps, ',', "between the arguments") < 0)
            return -1;
        int b = parse_cond(ps);
        if (b < 0 || (b = rvalue(ps, b)) < 0)
            return -1;
        if (expect(ps, ')', "after the arguments") < 0)
            return -1;
        end = peek(ps, -1)->pos + 1;
        int opq = p->node[a].vk == VK_OPQ || p->node[b].vk == VK_OPQ;
        if (!opq) {
            if ((a = int_value(ps, a, "argument")) < 0 || (b = int_value(ps, b, "argument")) < 0)
                return -1;
        } else if (p->node[a].vk > VK_OPQ || p->node[b].vk > VK_OPQ) {
            err_set(ps->err, t->pos, end - t->pos, -1, "%s() of a pointer", name);
            return -1;
        }
        int id = new_node(ps, opq ? N_OPQ : name[1] == 'i' ? N_MIN : N_MAX, opq ? VK_OPQ : VK_INT,
                          t->pos, end);
        return id < 0 ? -1 : link(ps, id, a, b, -1);
    }
    if (strcmp(name, "sizeof") == 0)
        return parse_sizeof(ps, t);
    if (strcmp(name, "blockIdx") == 0 || strcmp(name, "gridDim") == 0) {
        err_set(ps->err, t->pos, t->len, -1,
                "'%s' is not modelled: banklab shows one block (use threadIdx, lane, warp, tid)",
                name);
        return -1;
    }
    if (is_reserved(name) || find_type(p, name) >= 0 || find_typedef(p, name) >= 0) {
        err_set(ps->err, t->pos, t->len, -1, "'%s' cannot be used here", name);
        return -1;
    }
    const struct token *nx = peek(ps, 0);
    if (is_punct(nx, '(')) {
        err_set(ps->err, t->pos, t->len, -1, "unknown function '%s' (only min and max)", name);
        return -1;
    }
    if (is_punct(nx, '.') || is_punct(nx, '[') || is_punct(nx, P_ARROW)) {
        err_set(ps->err, t->pos, t->len, -1, "unknown name '%s' (declare it before its use)",
                name);
        return -1;
    }
    /* a parameter */
    int pi = find_param(p, name);
    if (pi < 0) {
        if (p->nparams >= PATTERN_MAX_PARAMS) {
            err_set(ps->err, t->pos, t->len, -1, "too many parameters (at most %d)",
                    PATTERN_MAX_PARAMS);
            return -1;
        }
        pi = p->nparams++;
        copy_name(p->param[pi].name, name);
        p->param[pi].pos = t->pos;
        p->param[pi].len = t->len;
    }
    int id = new_node(ps, N_PARAM, VK_INT, t->pos, end);
    if (id >= 0) {
        p->node[id].arr = pi;
        p->node[id].v = t->pos; /* the name itself, even if parentheses widen the node */
    }
    return id;
}

static int find_field(const struct pattern *p, int type, const char *name)
{
    const struct ctype *t = &p->type[type];
    for (int k = 0; k < t->nfields; k++)
        if (strcmp(p->field[t->field0 + k].name, name) == 0)
            return t->field0 + k;
    return -1;
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
                char b[SNIP_MAX];
                err_set(ps->err, bn->pos, bn->end - bn->pos, -1,
                        "'%s' is not an array or pointer and cannot be indexed",
                        snip(ps->s, ps->n, bn->pos, bn->end, b, sizeof b));
                return -1;
            }
            int idx = parse_expr(ps);
            if (idx < 0 || (idx = int_value(ps, idx, "index")) < 0)
                return -1;
            if (expect(ps, ']', "after the index") < 0)
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
            int id = new_node(ps, N_INDEX, vk, bn->pos, end);
            if (id < 0)
                return -1;
            p->node[id].type = type;
            p->node[id].arr = arr;
            p->node[id].level = level;
            p->node[id].v = esize;
            e = link(ps, id, base, idx, -1);
        } else if (is_punct(t, '.') || is_punct(t, P_ARROW)) {
            int arrow = is_punct(t, P_ARROW);
            const struct token *m = peek(ps, 1);
            struct node *bn = &p->node[e];
            char b[SNIP_MAX];
            if (arrow ? bn->vk != VK_PTR : bn->vk != VK_LVAL) {
                err_set(ps->err, t->pos, t->len, -1, "'%s' has no members (%s needs %s)",
                        snip(ps->s, ps->n, bn->pos, bn->end, b, sizeof b), arrow ? "->" : ".",
                        arrow ? "a pointer to a struct or vector" : "a struct or vector element");
                return -1;
            }
            if (m->kind != TK_IDENT) {
                char bb[40];
                err_set(ps->err, m->pos, m->len, -1, "expected a member name but found %s",
                        tok_desc(ps, m, bb, sizeof bb));
                return -1;
            }
            char name[PATTERN_NAME_MAX];
            tok_name(ps, m, name);
            int f = find_field(p, bn->type, name);
            if (f < 0) {
                err_set(ps->err, m->pos, m->len, -1, "%s '%s' has no member '%s'",
                        p->type[bn->type].nfields ? "type" : "scalar type",
                        p->type[bn->type].name, name);
                return -1;
            }
            ps->i += 2;
            int base = e;
            if (arrow) {
                int d = new_node(ps, N_DEREF, VK_LVAL, bn->pos, bn->end);
                if (d < 0)
                    return -1;
                p->node[d].type = p->node[base].type;
                if ((base = link(ps, d, base, -1, -1)) < 0)
                    return -1;
            }
            int id = new_node(ps, N_MEMBER, VK_LVAL, p->node[base].pos, m->pos + m->len);
            if (id < 0)
                return -1;
            p->node[id].type = p->field[f].type;
            p->node[id].v = p->field[f].off;
            e = link(ps, id, base, -1, -1);
        } else if (is_punct(t, P_INCDEC)) {
            err_set(ps->err, t->pos, t->len, -1, "'%.2s' is not supported", ps->s + t->pos);
            return -1;
        } else if (is_punct(t, '(')) {
            char b[SNIP_MAX];
            const struct node *bn = &p->node[e];
            err_set(ps->err, t->pos, 1, -1, "'%s' is not a function (index arrays with [ ])",
                    snip(ps->s, ps->n, bn->pos, bn->end, b, sizeof b));
            return -1;
        } else {
            return e;
        }
    }
}

/* Error for node e where a shared memory pointer or array is needed. */
static int not_pointer_error(struct parser *ps, int e, const char *what)
{
    const struct node *nd = &ps->p->node[e];
    char b[SNIP_MAX];
    snip(ps->s, ps->n, nd->pos, nd->end, b, sizeof b);
    if (nd->kind == N_PARAM)
        err_set(ps->err, (int)nd->v, (int)strlen(ps->p->param[nd->arr].name), -1,
                "unknown name '%s' (declare it first, e.g. extern __shared__ char %s[];)",
                ps->p->param[nd->arr].name, ps->p->param[nd->arr].name);
    else
        err_set(ps->err, nd->pos, nd->end - nd->pos, -1,
                "'%s' is not a shared memory pointer or array, %s", b, what);
    return -1;
}

/* (TYPE) or (TYPE *) cast: at '(' with a type start after it. */
static int parse_cast(struct parser *ps)
{
    struct pattern *p = ps->p;
    const struct token *open = peek(ps, 0);
    ps->i++;
    int type;
    if (parse_type(ps, &type) < 0)
        return -1;
    int ptr = 0;
    while (is_punct(peek(ps, 0), '*')) {
        if (ptr) {
            err_set(ps->err, peek(ps, 0)->pos, 1, -1, "pointers to pointers are not supported");
            return -1;
        }
        ptr = 1;
        ps->i++;
    }
    if (expect(ps, ')', "to close the cast") < 0)
        return -1;
    int e = parse_unary(ps);
    if (e < 0)
        return -1;
    int end = p->node[e].end;
    if (ptr) {
        if (p->node[e].vk == VK_ARR)
            e = rvalue(ps, e);
        if (e < 0)
            return -1;
        if (p->node[e].vk != VK_PTR)
            return not_pointer_error(ps, e, "so it cannot be cast to a pointer");
        int id = new_node(ps, N_PCAST, VK_PTR, open->pos, end);
        if (id < 0)
            return -1;
        p->node[id].type = type;
        return link(ps, id, e, -1, -1);
    }
    e = rvalue(ps, e);
    if (e < 0)
        return -1;
    if (p->type[type].kind == TY_INT) {
        if (p->node[e].vk == VK_INT || p->node[e].vk == VK_OPQ) {
            /* integer casts are ignored (values stay 64-bit) */
            p->node[e].pos = open->pos;
            return e;
        }
    } else if (p->type[type].kind == TY_FLT && p->node[e].vk <= VK_OPQ) {
        int id = new_node(ps, N_OPQ, VK_OPQ, open->pos, end);
        return id < 0 ? -1 : link(ps, id, e, -1, -1);
    }
    err_set(ps->err, open->pos, end - open->pos, -1, "cannot cast this value to %s",
            p->type[type].name);
    return -1;
}

static int parse_unary(struct parser *ps)
{
    struct pattern *p = ps->p;
    const struct token *t = peek(ps, 0);
    if (++ps->depth > PATTERN_MAX_DEPTH) {
        err_set(ps->err, t->pos, t->len, -1, "expression nested too deeply (more than %d levels)",
                PATTERN_MAX_DEPTH);
        return -1;
    }
    int r;
    if (t->kind == TK_PUNCT && (t->punct == '-' || t->punct == '+' || t->punct == '!' ||
                                t->punct == '~')) {
        ps->i++;
        int e = parse_unary(ps);
        if (e < 0 || (e = rvalue(ps, e)) < 0) {
            r = -1;
        } else if (p->node[e].vk == VK_OPQ) {
            r = new_node(ps, N_OPQ, VK_OPQ, t->pos, p->node[e].end);
            if (r >= 0)
                r = link(ps, r, e, -1, -1);
        } else if ((e = int_value(ps, e, "operand")) < 0) {
            r = -1;
        } else if (t->punct == '+') {
            p->node[e].pos = t->pos;
            r = e;
        } else {
            r = new_node(ps, N_UN, VK_INT, t->pos, p->node[e].end);
            if (r >= 0) {
                p->node[r].op = (short)t->punct;
                r = link(ps, r, e, -1, -1);
            }
        }
    } else if (is_punct(t, '*')) {
        ps->i++;
        int e = parse_unary(ps);
        if (e >= 0 && p->node[e].vk == VK_ARR)
            e = rvalue(ps, e);
        if (e < 0) {
            r = -1;
        } else if (p->node[e].vk != VK_PTR) {
            char b[SNIP_MAX];
            err_set(ps->err, p->node[e].pos, p->node[e].end - p->node[e].pos, -1,
                    "'%s' is not a pointer and cannot be dereferenced",
                    snip(ps->s, ps->n, p->node[e].pos, p->node[e].end, b, sizeof b));
            r = -1;
        } else {
            r = new_node(ps, N_DEREF, VK_LVAL, t->pos, p->node[e].end);
            if (r >= 0) {
                p->node[r].type = p->node[e].type;
                r = link(ps, r, e, -1, -1);
            }
        }
    } else if (is_punct(t, '&')) {
        ps->i++;
        int e = parse_unary(ps);
        if (e < 0) {
            r = -1;
        } else if (p->node[e].vk != VK_LVAL && p->node[e].vk != VK_ARR) {
            char b[SNIP_MAX];
            err_set(ps->err, p->node[e].pos, p->node[e].end - p->node[e].pos, -1,
                    "'&' needs a shared memory element, not '%s'",
                    snip(ps->s, ps->n, p->node[e].pos, p->node[e].end, b, sizeof b));
            r = -1;
        } else if (p->node[e].vk == VK_ARR) {
            r = rvalue(ps, e);
            if (r >= 0)
                p->node[r].pos = t->pos;
        } else {
            r = new_node(ps, N_ADDR, VK_PTR, t->pos, p->node[e].end);
            if (r >= 0) {
                p->node[r].type = p->node[e].type;
                r = link(ps, r, e, -1, -1);
            }
        }
    } else if (is_punct(t, P_INCDEC)) {
        err_set(ps->err, t->pos, t->len, -1, "'%.2s' is not supported", ps->s + t->pos);
        r = -1;
    } else if (is_punct(t, '(') && is_type_start(ps, peek(ps, 1))) {
        r = parse_cast(ps);
    } else if (is_punct(t, '(') && peek(ps, 1)->kind == TK_IDENT && is_punct(peek(ps, 2), '*') &&
               is_punct(peek(ps, 3), ')')) {
        char name[PATTERN_NAME_MAX];
        tok_name(ps, peek(ps, 1), name);
        err_set(ps->err, peek(ps, 1)->pos, peek(ps, 1)->len, -1, "unknown type '%s'", name);
        r = -1;
    } else {
        r = parse_postfix(ps);
    }
    ps->depth--;
    return r;
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
            err_set(ps->err, nd->pos, nd->end - nd->pos, -1,
                    "arithmetic on a multi-dimensional array; index it instead (e.g. &a[i][j])");
            return -1;
        }
    }
    if ((l = rvalue(ps, l)) < 0 || (r = rvalue(ps, r)) < 0)
        return -1;
    int lk = p->node[l].vk, rk = p->node[r].vk;
    int pos = p->node[l].pos, end = p->node[r].end;
    if (lk == VK_INT && rk == VK_INT) {
        int id = new_node(ps, N_BIN, VK_INT, pos, end);
        if (id < 0)
            return -1;
        p->node[id].op = (short)op;
        return link(ps, id, l, r, -1);
    }
    if ((op == '+' || op == '-') && (lk == VK_PTR) != (rk == VK_PTR) &&
        (lk == VK_PTR ? rk : lk) == VK_INT && !(op == '-' && rk == VK_PTR)) {
        int ptr = lk == VK_PTR ? l : r, off = lk == VK_PTR ? r : l;
        int id = new_node(ps, N_PADD, VK_PTR, pos, end);
        if (id < 0)
            return -1;
        p->node[id].op = (short)op;
        p->node[id].type = p->node[ptr].type;
        p->node[id].v = p->type[p->node[ptr].type].size;
        return link(ps, id, ptr, off, -1);
    }
    if ((lk == VK_INT || lk == VK_OPQ) && (rk == VK_INT || rk == VK_OPQ)) {
        int id = new_node(ps, N_OPQ, VK_OPQ, pos, end);
        return id < 0 ? -1 : link(ps, id, l, r, -1);
    }
    char b[4];
    err_set(ps->err, oppos, op > 255 ? 2 : 1, -1, "invalid operands to '%s'%s", op_name(op, b),
            lk == VK_PTR && rk == VK_PTR ? " (two pointers)" : " (a pointer)");
    return -1;
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

static int parse_cond(struct parser *ps)
{
    struct pattern *p = ps->p;
    const struct token *t0 = peek(ps, 0);
    if (++ps->depth > PATTERN_MAX_DEPTH) {
        err_set(ps->err, t0->pos, t0->len, -1, "expression nested too deeply (more than %d levels)",
                PATTERN_MAX_DEPTH);
        return -1;
    }
    int c = parse_binary(ps, 1);
    int r = c;
    if (c >= 0 && is_punct(peek(ps, 0), '?')) {
        ps->i++;
        int a = parse_expr(ps);
        int b = -1;
        if (a >= 0 && expect(ps, ':', "in '?:'") == 0)
            b = parse_cond(ps);
        if (a < 0 || b < 0 || (c = rvalue(ps, c)) < 0 || (a = rvalue(ps, a)) < 0 ||
            (b = rvalue(ps, b)) < 0) {
            r = -1;
        } else {
            int ck = p->node[c].vk, ak = p->node[a].vk, bk = p->node[b].vk;
            if (ck == VK_INT && ak == VK_INT && bk == VK_INT) {
                r = new_node(ps, N_COND, VK_INT, p->node[c].pos, p->node[b].end);
                if (r >= 0)
                    r = link(ps, r, c, a, b);
            } else if (ck <= VK_OPQ && ak <= VK_OPQ && bk <= VK_OPQ) {
                r = new_node(ps, N_OPQ, VK_OPQ, p->node[c].pos, p->node[b].end);
                if (r >= 0)
                    r = link(ps, r, c, a, b);
            } else {
                err_set(ps->err, p->node[c].pos, p->node[b].end - p->node[c].pos, -1,
                        "'?:' with pointers is not supported");
                r = -1;
            }
        }
    }
    ps->depth--;
    return r;
}

static int parse_expr(struct parser *ps)
{
    return parse_cond(ps);
}

/* A constant expression (array dimension, __align__). */
static int parse_const(struct parser *ps)
{
    ps->const_ctx = 1;
    int e = parse_cond(ps);
    ps->const_ctx = 0;
    if (e < 0)
        return -1;
    return int_value(ps, e, "dimension");
}

/* struct [TAG] { fields } */
static int parse_struct(struct parser *ps, int *type)
{
    struct pattern *p = ps->p;
    const struct token *kw = peek(ps, 0);
    if (ps->depth + 1 > PATTERN_MAX_DEPTH) {
        err_set(ps->err, kw->pos, kw->len, -1, "structs nested too deeply");
        return -1;
    }
    ps->i++;
    char tag[PATTERN_NAME_MAX] = "";
    const struct token *t = peek(ps, 0);
    if (t->kind == TK_IDENT) {
        tok_name(ps, t, tag);
        ps->i++;
        if (!is_punct(peek(ps, 0), '{')) {
            /* a reference to a declared struct */
            char full[PATTERN_NAME_MAX + 8];
            snprintf(full, sizeof full, "struct %s", tag);
            for (int k = NBUILTIN_TYPES; k < p->ntypes; k++)
                if (strcmp(p->type[k].name, full) == 0) {
                    *type = k;
                    return 0;
                }
            err_set(ps->err, t->pos, t->len, -1, "unknown type 'struct %s'", tag);
            return -1;
        }
    }
    if (expect(ps, '{', "after 'struct'") < 0)
        return -1;
    if (p->ntypes >= MAX_TYPES) {
        err_set(ps->err, kw->pos, kw->len, -1, "too many struct types (at most %d)",
                MAX_TYPES - NBUILTIN_TYPES);
        return -1;
    }
    struct ctype st;
    memset(&st, 0, sizeof st);
    st.kind = TY_STRUCT;
    st.align = 1;
    /* members are collected here and appended after '}': nested structs add theirs first */
    struct field fl[MAX_STRUCT_FIELDS];
    if (tag[0]) {
        size_t tl = strlen(tag);
        if (tl + 7 >= sizeof st.name) {
            err_set(ps->err, t->pos, t->len, -1, "struct tag '%s' is too long", tag);
            return -1;
        }
        memcpy(st.name, "struct ", 7);
        memcpy(st.name + 7, tag, tl + 1);
    } else {
        memcpy(st.name, "struct", 7);
    }
    unsigned long long off = 0;
    while (!is_punct(peek(ps, 0), '}')) {
        int ft;
        if (!is_type_start(ps, peek(ps, 0))) {
            char b[40];
            err_set(ps->err, peek(ps, 0)->pos, peek(ps, 0)->len, -1,
                    "expected a member type but found %s", tok_desc(ps, peek(ps, 0), b, sizeof b));
            return -1;
        }
        ps->depth++;
        int rt = parse_type(ps, &ft);
        ps->depth--;
        if (rt < 0)
            return -1;
        for (;;) {
            const struct token *nt = peek(ps, 0);
            char fname[PATTERN_NAME_MAX];
            if (nt->kind != TK_IDENT) {
                char b[40];
                err_set(ps->err, nt->pos, nt->len, -1, "expected a member name but found %s",
                        tok_desc(ps, nt, b, sizeof b));
                return -1;
            }
            tok_name(ps, nt, fname);
            for (int k = 0; k < st.nfields; k++)
                if (strcmp(fl[k].name, fname) == 0) {
                    err_set(ps->err, nt->pos, nt->len, -1, "duplicate member '%s'", fname);
                    return -1;
                }
            if (st.nfields >= MAX_STRUCT_FIELDS) {
                err_set(ps->err, nt->pos, nt->len, -1, "too many struct members (at most %d)",
                        MAX_STRUCT_FIELDS);
                return -1;
            }
            ps->i++;
            const struct ctype *ftp = &p->type[ft];
            off = (off + ftp->align - 1) / ftp->align * ftp->align;
            struct field *f = &fl[st.nfields];
            copy_name(f->name, fname);
            f->type = ft;
            f->off = (unsigned)off;
            off += ftp->size;
            if (ftp->align > st.align)
                st.align = ftp->align;
            st.nfields++;
            if (is_punct(peek(ps, 0), '[')) {
                err_set(ps->err, peek(ps, 0)->pos, 1, -1, "array members are not supported");
                return -1;
            }
            if (is_punct(peek(ps, 0), ',')) {
                ps->i++;
                continue;
            }
            break;
        }
        if (expect(ps, ';', "after the member") < 0)
            return -1;
    }
    ps->i++; /* '}' */
    if (st.nfields == 0) {
        err_set(ps->err, kw->pos, peek(ps, -1)->pos + 1 - kw->pos, -1, "empty struct");
        return -1;
    }
    if (p->nfields + st.nfields > MAX_FIELDS || p->ntypes >= MAX_TYPES) {
        err_set(ps->err, kw->pos, kw->len, -1, "too many struct types or members");
        return -1;
    }
    if (off > PATTERN_STATIC_LIMIT) {
        err_set(ps->err, kw->pos, kw->len, -1, "struct is larger than %d bytes",
                PATTERN_STATIC_LIMIT);
        return -1;
    }
    st.field0 = p->nfields;
    memcpy(&p->field[p->nfields], fl, sizeof fl[0] * (size_t)st.nfields);
    p->nfields += st.nfields;
    st.size = (unsigned)((off + st.align - 1) / st.align * st.align);
    p->type[p->ntypes] = st;
    *type = p->ntypes++;
    return 0;
}

/* A type: qualifiers, integer keyword combinations, named types, typedefs, structs. */
static int parse_type(struct parser *ps, int *type)
{
    struct pattern *p = ps->p;
    while (tok_is(ps, peek(ps, 0), "const") || tok_is(ps, peek(ps, 0), "volatile"))
        ps->i++;
    const struct token *t = peek(ps, 0);
    if (tok_is(ps, t, "struct"))
        return parse_struct(ps, type);
    if (is_int_word(ps, t)) {
        int nunsigned = 0, nsigned = 0, nchar = 0, nshort = 0, nint = 0, nlong = 0;
        const struct token *first = t;
        while (is_int_word(ps, peek(ps, 0)) || tok_is(ps, peek(ps, 0), "const") ||
               tok_is(ps, peek(ps, 0), "volatile")) {
            const struct token *w = peek(ps, 0);
            if (tok_is(ps, w, "unsigned")) nunsigned++;
            else if (tok_is(ps, w, "signed")) nsigned++;
            else if (tok_is(ps, w, "char")) nchar++;
            else if (tok_is(ps, w, "short")) nshort++;
            else if (tok_is(ps, w, "int")) nint++;
            else if (tok_is(ps, w, "long")) nlong++;
            ps->i++;
        }
        const struct token *last = peek(ps, -1);
        int bad = nunsigned + nsigned > 1 || nchar + nshort + (nlong > 0) > 1 || nint > 1 ||
                  nlong > 2 || (nchar && nint);
        const char *name = NULL;
        if (!bad) {
            if (nchar) name = nunsigned ? "unsigned char" : "char";
            else if (nshort) name = nunsigned ? "unsigned short" : "short";
            else if (nlong == 2) name = nunsigned ? "unsigned long long" : "long long";
            else if (nlong == 1) name = nunsigned ? "unsigned long" : "long";
            else name = nunsigned ? "unsigned" : "int";
        }
        if (!name) {
            err_set(ps->err, first->pos, last->pos + last->len - first->pos, -1,
                    "invalid combination of type words");
            return -1;
        }
        *type = find_type(p, name);
        return 0;
    }
    if (t->kind != TK_IDENT) {
        char b[40];
        err_set(ps->err, t->pos, t->len, -1, "expected a type but found %s",
                tok_desc(ps, t, b, sizeof b));
        return -1;
    }
    char name[PATTERN_NAME_MAX];
    tok_name(ps, t, name);
    int k = find_typedef(p, name);
    if (k >= 0) {
        *type = p->tdef[k].type;
    } else if ((k = find_type(p, name)) >= 0) {
        *type = k;
    } else {
        err_set(ps->err, t->pos, t->len, -1, "unknown type '%s'", name);
        return -1;
    }
    ps->i++;
    while (tok_is(ps, peek(ps, 0), "const") || tok_is(ps, peek(ps, 0), "volatile"))
        ps->i++;
    return 0;
}

static int add_stmt(struct parser *ps, int kind, int node, int slot, int pos, int end)
{
    struct pattern *p = ps->p;
    if (p->nstmts >= MAX_STMTS) {
        err_set(ps->err, pos, end - pos, -1, "too many statements (at most %d)", MAX_STMTS);
        return -1;
    }
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

static int add_local(struct parser *ps, const char *name, int kind, int type, const struct token *t)
{
    struct pattern *p = ps->p;
    if (p->nlocals >= MAX_LOCALS) {
        err_set(ps->err, t->pos, t->len, -1, "too many names (at most %d locals and pointers)",
                MAX_LOCALS);
        return -1;
    }
    struct local *l = &p->loc[p->nlocals];
    memset(l, 0, sizeof *l);
    copy_name(l->name, name);
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
            copy_name(buf, p->arr[nd->arr].info.name);
            return;
        }
        if (nd->kind == N_LOCAL) {
            copy_name(buf, p->loc[nd->arr].name);
            return;
        }
        n = nd->a;
    }
    buf[0] = 0;
}

/* Registers access statement for lvalue node lv. */
static int add_access(struct parser *ps, int lv, int kind, int guard, int pos, int end)
{
    struct pattern *p = ps->p;
    const struct node *nd = &p->node[lv];
    const struct ctype *t = &p->type[nd->type];
    if (p->naccs >= PATTERN_MAX_ACCESSES) {
        err_set(ps->err, pos, end - pos, -1, "too many accesses (at most %d)",
                PATTERN_MAX_ACCESSES);
        return -1;
    }
    if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8 && t->size != 16) {
        char b[SNIP_MAX];
        err_set(ps->err, nd->pos, nd->end - nd->pos, -1,
                "'%s' is a %u-byte %s, which is not one shared memory instruction; access a "
                "member (e.g. .x)", snip(ps->s, ps->n, nd->pos, nd->end, b, sizeof b), t->size,
                t->name);
        return -1;
    }
    if (t->kind == TY_STRUCT && t->size != t->align) {
        char b[SNIP_MAX];
        err_set(ps->err, nd->pos, nd->end - nd->pos, -1,
                "'%s' is a whole %s (%u bytes, aligned to %u), which the compiler splits into "
                "several instructions; access a member (e.g. .x)",
                snip(ps->s, ps->n, nd->pos, nd->end, b, sizeof b), t->name, t->size, t->align);
        return -1;
    }
    int si = add_stmt(ps, S_ACCESS, lv, -1, pos, end);
    if (si < 0)
        return -1;
    struct stmt *s = &p->stmt[si];
    s->guard = guard;
    s->access = p->naccs;
    struct pattern_access_info *ai = &p->acc[p->naccs];
    memset(ai, 0, sizeof *ai);
    ai->kind = kind ? PATTERN_STORE : PATTERN_LOAD;
    ai->width = t->size;
    lvalue_root(p, lv, ai->array);
    copy_name(ai->type, t->name);
    ai->col = pos + 1;
    ai->len = end - pos > 0 ? end - pos : 1;
    p->acc_stmt[p->naccs] = si;
    p->naccs++;
    return 0;
}

/* An access or a local assignment: EXPR | LVAL = EXPR | local = EXPR. guard: -1 or condition. */
static int parse_expr_stmt(struct parser *ps, int guard, int stmt_pos)
{
    struct pattern *p = ps->p;
    ps->reads = 0;
    ps->read_node = -1;
    int lhs = parse_expr(ps);
    if (lhs < 0)
        return -1;
    const struct token *t = peek(ps, 0);
    if (is_punct(t, P_OPASSIGN)) {
        err_set(ps->err, t->pos, t->len, -1,
                "compound assignment '%.*s' is a load and a store; write them as two statements",
                t->len, ps->s + t->pos);
        return -1;
    }
    if (is_punct(t, '=')) {
        ps->i++;
        const struct node *ln = &p->node[lhs];
        if (ln->vk == VK_LVAL) {
            int lhs_reads = ps->reads;
            int rhs = parse_expr(ps);
            if (rhs < 0 || (rhs = rvalue(ps, rhs)) < 0)
                return -1;
            if (lhs_reads) {
                char b[SNIP_MAX];
                const struct node *rn = &p->node[ps->read_node];
                err_set(ps->err, rn->pos, rn->end - rn->pos, -1,
                        "the stored-to index reads shared memory ('%s'); one access per statement",
                        snip(ps->s, ps->n, rn->pos, rn->end, b, sizeof b));
                return -1;
            }
            if (p->node[rhs].vk > VK_OPQ) {
                err_set(ps->err, p->node[rhs].pos, p->node[rhs].end - p->node[rhs].pos, -1,
                        "cannot store a pointer in shared memory");
                return -1;
            }
            return add_access(ps, lhs, 1, guard, stmt_pos, p->node[rhs].end);
        }
        if (ln->kind == N_LOCAL && p->loc[ln->arr].kind != L_PTR) {
            int slot = ln->arr;
            if (p->loc[slot].is_const) {
                err_set(ps->err, ln->pos, ln->end - ln->pos, -1, "'%s' is const",
                        p->loc[slot].name);
                return -1;
            }
            int lpos = ln->pos, lend = ln->end;
            int rhs = parse_expr(ps);
            if (rhs < 0 || (rhs = rvalue(ps, rhs)) < 0)
                return -1;
            if (p->node[rhs].vk > VK_OPQ) {
                err_set(ps->err, p->node[rhs].pos, p->node[rhs].end - p->node[rhs].pos, -1,
                        "cannot assign a pointer to '%s'", p->loc[slot].name);
                return -1;
            }
            if (ps->reads > 1) {
                err_set(ps->err, p->node[rhs].pos, p->node[rhs].end - p->node[rhs].pos, -1,
                        "more than one shared memory read in one statement; split it");
                return -1;
            }
            if (ps->reads == 1) {
                p->loc[slot].kind = L_OPQ;
                return add_access(ps, ps->read_node, 0, guard, stmt_pos, p->node[rhs].end);
            }
            if (guard >= 0) {
                err_set(ps->err, lpos, lend - lpos, -1,
                        "only a shared memory access can follow 'if (...)'");
                return -1;
            }
            if (p->loc[slot].kind == L_INT && p->node[rhs].vk == VK_INT)
                return add_stmt(ps, S_LOCAL, rhs, slot, stmt_pos, p->node[rhs].end) < 0 ? -1 : 0;
            p->loc[slot].kind = L_OPQ; /* a float value: nothing to evaluate */
            return 0;
        }
        char b[SNIP_MAX];
        err_set(ps->err, ln->pos, ln->end - ln->pos, -1,
                "cannot assign to '%s' (assign to a shared memory element or an integer local)",
                snip(ps->s, ps->n, ln->pos, ln->end, b, sizeof b));
        return -1;
    }
    int e = rvalue(ps, lhs);
    if (e < 0)
        return -1;
    if (ps->reads == 0) {
        const struct node *nd = &p->node[e];
        char b[SNIP_MAX];
        err_set(ps->err, nd->pos, nd->end - nd->pos, -1,
                "'%s' does not access shared memory", snip(ps->s, ps->n, nd->pos, nd->end, b,
                                                           sizeof b));
        return -1;
    }
    if (ps->reads > 1) {
        const struct node *nd = &p->node[e];
        err_set(ps->err, nd->pos, nd->end - nd->pos, -1,
                "more than one shared memory read in one statement; split it");
        return -1;
    }
    return add_access(ps, ps->read_node, 0, guard, stmt_pos, p->node[e].end);
}

/* Adds an array-table entry. */
static int add_array(struct parser *ps, const char *name, int elem, const struct token *t)
{
    struct pattern *p = ps->p;
    if (p->narrays >= MAX_ARRAYS) {
        err_set(ps->err, t->pos, t->len, -1, "too many shared arrays and pointers (at most %d)",
                MAX_ARRAYS);
        return -1;
    }
    struct array *a = &p->arr[p->narrays];
    memset(a, 0, sizeof *a);
    copy_name(a->info.name, name);
    copy_name(a->info.type, p->type[elem].name);
    a->info.elem_size = p->type[elem].size;
    a->elem = elem;
    a->pos = t->pos;
    a->len = t->len;
    a->dim_node[0] = a->dim_node[1] = a->dim_node[2] = -1;
    a->align_node = -1;
    return p->narrays++;
}

/* [extern|static|volatile]* __shared__ TYPE name[dims] (, name[dims])* */
static int parse_shared_decl(struct parser *ps)
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
            if (expect(ps, '(', "after __align__") < 0)
                return -1;
            align_node = parse_const(ps);
            if (align_node < 0 || expect(ps, ')', "after the alignment") < 0)
                return -1;
            continue;
        } else break;
        ps->i++;
    }
    if (!shared) {
        char b[40];
        err_set(ps->err, first->pos, first->len, -1, "expected __shared__ but found %s",
                tok_desc(ps, peek(ps, 0), b, sizeof b));
        return -1;
    }
    int elem;
    if (parse_type(ps, &elem) < 0)
        return -1;
    for (;;) {
        const struct token *nt = peek(ps, 0);
        if (is_punct(nt, '*')) {
            err_set(ps->err, nt->pos, 1, -1, "a __shared__ pointer is not supported; declare a "
                    "local pointer such as 'float *p = (float *)smem;'");
            return -1;
        }
        char name[PATTERN_NAME_MAX];
        if (check_new_name(ps, nt, name) < 0)
            return -1;
        ps->i++;
        int ai = add_array(ps, name, elem, nt);
        if (ai < 0)
            return -1;
        struct array *a = &p->arr[ai];
        a->align_node = align_node;
        if (is_extern) {
            a->is_extern = 1;
            a->info.dynamic = 1;
            if (expect(ps, '[', "after the name of an extern __shared__ array") < 0 ||
                expect(ps, ']', "(an extern __shared__ array has no size)") < 0)
                return -1;
        } else {
            while (is_punct(peek(ps, 0), '[')) {
                const struct token *ob = peek(ps, 0);
                if (a->ndims >= 3) {
                    err_set(ps->err, ob->pos, 1, -1, "more than 3 dimensions");
                    return -1;
                }
                ps->i++;
                if (is_punct(peek(ps, 0), ']')) {
                    err_set(ps->err, peek(ps, 0)->pos, 1, -1,
                            "a static __shared__ array needs a size (or use extern __shared__)");
                    return -1;
                }
                int e = parse_const(ps);
                if (e < 0)
                    return -1;
                if (expect(ps, ']', "after the array size") < 0)
                    return -1;
                a = &p->arr[ai];
                a->dim_node[a->ndims++] = e;
            }
            a->info.ndims = a->ndims;
        }
        if (is_punct(peek(ps, 0), '=')) {
            err_set(ps->err, peek(ps, 0)->pos, 1, -1, "__shared__ variables cannot be initialized");
            return -1;
        }
        if (!is_punct(peek(ps, 0), ','))
            break;
        ps->i++;
    }
    return 0;
}

/* typedef TYPE NAME */
static int parse_typedef(struct parser *ps)
{
    struct pattern *p = ps->p;
    ps->i++;
    int type;
    if (parse_type(ps, &type) < 0)
        return -1;
    const struct token *nt = peek(ps, 0);
    if (is_punct(nt, '*')) {
        err_set(ps->err, nt->pos, 1, -1, "pointer typedefs are not supported");
        return -1;
    }
    char name[PATTERN_NAME_MAX];
    if (check_new_name(ps, nt, name) < 0)
        return -1;
    if (p->ntdefs >= MAX_TYPEDEFS) {
        err_set(ps->err, nt->pos, nt->len, -1, "too many typedefs (at most %d)", MAX_TYPEDEFS);
        return -1;
    }
    ps->i++;
    copy_name(p->tdef[p->ntdefs].name, name);
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
    case N_ALIAS:
        /* depth is bounded by MAX_TREE_DEPTH (link() checks it) */
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
        int id = new_node(ps, N_ALIAS, VK_INT, nd->pos, nd->end);
        return id < 0 ? -1 : link(ps, id, p->loc[nd->arr].const_init, -1, -1);
    }
    if (nd->a < 0 && nd->b < 0 && nd->c < 0)
        return n;
    int a = nd->a >= 0 ? const_copy(ps, nd->a) : -1;
    int b = p->node[n].b >= 0 ? const_copy(ps, p->node[n].b) : -1;
    int c = p->node[n].c >= 0 ? const_copy(ps, p->node[n].c) : -1;
    if ((p->node[n].a >= 0 && a < 0) || (p->node[n].b >= 0 && b < 0) ||
        (p->node[n].c >= 0 && c < 0))
        return -1;
    int id = new_node(ps, p->node[n].kind, VK_INT, p->node[n].pos, p->node[n].end);
    if (id < 0)
        return -1;
    struct node *cp = &p->node[id];
    cp->op = p->node[n].op;
    cp->v = p->node[n].v;
    cp->arr = p->node[n].arr;
    return link(ps, id, a, b, c);
}

static int parse_declarator(struct parser *ps, int type, int is_const, int stmt_pos);

/* TYPE name = EXPR | TYPE *name = POINTER-EXPR, several separated by ',' */
static int parse_local_decl(struct parser *ps)
{
    int stmt_pos = peek(ps, 0)->pos, first_tok = ps->i;
    int type;
    if (parse_type(ps, &type) < 0)
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
    int ptr = 0;
    while (is_punct(peek(ps, 0), '*')) {
        if (ptr) {
            err_set(ps->err, peek(ps, 0)->pos, 1, -1, "pointers to pointers are not supported");
            return -1;
        }
        ptr = 1;
        ps->i++;
        while (tok_is(ps, peek(ps, 0), "__restrict__") || tok_is(ps, peek(ps, 0), "const"))
            ps->i++;
    }
    const struct token *nt = peek(ps, 0);
    char name[PATTERN_NAME_MAX];
    if (nt->kind == TK_IDENT) {
        /* locals may shadow the builtins lane, warp, tid: int lane = threadIdx.x % 32; */
        tok_name(ps, nt, name);
        if (strcmp(name, "lane") != 0 && strcmp(name, "warp") != 0 && strcmp(name, "tid") != 0)
            if (check_new_name(ps, nt, name) < 0)
                return -1;
        if (find_local(p, name) >= 0) {
            err_set(ps->err, nt->pos, nt->len, -1, "'%s' is already declared", name);
            return -1;
        }
    } else if (check_new_name(ps, nt, name) < 0) {
        return -1;
    }
    ps->i++;
    if (is_punct(peek(ps, 0), '[')) {
        err_set(ps->err, peek(ps, 0)->pos, 1, -1,
                "local arrays are not shared memory; declare it __shared__");
        return -1;
    }
    if (!ptr && !is_const && (is_punct(peek(ps, 0), ';') || is_punct(peek(ps, 0), ',') ||
                              peek(ps, 0)->kind == TK_EOF))
        return add_local(ps, name, L_OPQ, type, nt) < 0 ? -1 : 0; /* no value: unknown */
    if (expect(ps, '=', ptr ? "(a pointer needs a value, e.g. = (float *)smem)"
                            : "(a local needs a value)") < 0)
        return -1;
    ps->reads = 0;
    ps->read_node = -1;
    int e = parse_expr(ps);
    if (e < 0)
        return -1;
    int end = p->node[e].end;
    if (ptr) {
        if (p->node[e].vk == VK_ARR && (e = rvalue(ps, e)) < 0)
            return -1;
        if (p->node[e].vk != VK_PTR)
            return not_pointer_error(ps, e, "so it cannot initialize a pointer");
        /* a pointer of another type is taken as if cast (C would want the cast) */
        int ai = add_array(ps, name, type, nt);
        if (ai < 0)
            return -1;
        p->arr[ai].is_ptr = 1;
        int slot = add_local(ps, name, L_PTR, type, nt);
        if (slot < 0)
            return -1;
        p->loc[slot].array = ai;
        return add_stmt(ps, S_PTR, e, slot, stmt_pos, end) < 0 ? -1 : 0;
    }
    e = rvalue(ps, e);
    if (e < 0)
        return -1;
    if (p->node[e].vk > VK_OPQ) {
        err_set(ps->err, p->node[e].pos, p->node[e].end - p->node[e].pos, -1,
                "'%s' is not a pointer; declare it as '%s *%s'", name, p->type[type].name, name);
        return -1;
    }
    if (ps->reads > 1) {
        err_set(ps->err, p->node[e].pos, p->node[e].end - p->node[e].pos, -1,
                "more than one shared memory read in one statement; split it");
        return -1;
    }
    int is_int = p->type[type].kind == TY_INT;
    if (ps->reads == 1) {
        if (add_local(ps, name, L_OPQ, type, nt) < 0)
            return -1;
        return add_access(ps, ps->read_node, 0, -1, stmt_pos, end);
    }
    if (is_int && p->node[e].vk == VK_INT) {
        int cinit = -1;
        if (is_const && is_constant(p, e) && (cinit = const_copy(ps, e)) < 0)
            return -1;
        int slot = add_local(ps, name, L_INT, type, nt);
        if (slot < 0)
            return -1;
        p->loc[slot].const_init = cinit;
        p->loc[slot].is_const = is_const;
        return add_stmt(ps, S_LOCAL, e, slot, stmt_pos, end) < 0 ? -1 : 0;
    }
    return add_local(ps, name, L_OPQ, type, nt) < 0 ? -1 : 0;
}

static int parse_guarded(struct parser *ps, int c, int stmt_pos);

/* "(COND)" after an 'if': the condition's node, or -1 with the error set. */
static int parse_condition(struct parser *ps)
{
    if (expect(ps, '(', "after 'if'") < 0)
        return -1;
    ps->reads = 0;
    int c = parse_expr(ps);
    if (c < 0 || (c = int_value(ps, c, "condition")) < 0)
        return -1;
    if (expect(ps, ')', "after the condition") < 0)
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
    int id = new_node(ps, b < 0 ? N_UN : N_BIN, VK_INT, pos, end);
    if (id < 0)
        return -1;
    ps->p->node[id].op = (short)op;
    return link(ps, id, a, b, -1);
}

/* else ACCESS | else if (COND) ACCESS, after an if: the guard is "no earlier branch taken". */
static int parse_else(struct parser *ps, int taken)
{
    const struct token *t = peek(ps, 0);
    if (taken < 0) {
        err_set(ps->err, t->pos, t->len, -1, "'else' without 'if' before it");
        return -1;
    }
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
    if (t->kind == TK_EOF || is_punct(t, ';') || is_punct(t, '}')) {
        char b[40];
        err_set(ps->err, t->pos, t->len, -1, "expected an access after 'if (...)' but found %s",
                tok_desc(ps, t, b, sizeof b));
        return -1;
    }
    if (is_type_start(ps, t) || tok_is(ps, t, "if") || tok_is(ps, t, "__shared__") ||
        tok_is(ps, t, "extern") || tok_is(ps, t, "typedef")) {
        err_set(ps->err, t->pos, t->len, -1,
                "only a shared memory access can follow 'if (...)' (no declarations)");
        return -1;
    }
    int before = p->naccs;
    if (parse_expr_stmt(ps, c, stmt_pos) < 0)
        return -1;
    if (p->naccs == before) {
        err_set(ps->err, t->pos, t->len, -1, "only a shared memory access can follow 'if (...)'");
        return -1;
    }
    if (brace) {
        if (is_punct(peek(ps, 0), ';'))
            ps->i++;
        if (expect(ps, '}', "to close the 'if' block") < 0)
            return -1;
    }
    return 0;
}

static int parse_statement(struct parser *ps)
{
    struct pattern *p = ps->p;
    const struct token *t = peek(ps, 0);
    if (tok_is(ps, t, "typedef"))
        return parse_typedef(ps);
    if (tok_is(ps, t, "__shared__") || tok_is(ps, t, "extern") || tok_is(ps, t, "static") ||
        tok_is(ps, t, "__align__") ||
        (tok_is(ps, t, "volatile") && tok_is(ps, peek(ps, 1), "__shared__")))
        return parse_shared_decl(ps);
    int taken = ps->last_if;
    ps->last_if = -1;
    if (tok_is(ps, t, "if"))
        return parse_if(ps);
    if (tok_is(ps, t, "else"))
        return parse_else(ps, taken);
    if (tok_is(ps, t, "__syncthreads") || tok_is(ps, t, "__syncwarp")) {
        ps->i++;
        if (expect(ps, '(', "after the barrier") < 0)
            return -1;
        while (!is_punct(peek(ps, 0), ')') && peek(ps, 0)->kind != TK_EOF &&
               !is_punct(peek(ps, 0), ';'))
            ps->i++;
        return expect(ps, ')', "after the barrier");
    }
    if (is_type_start(ps, t))
        return parse_local_decl(ps);
    if (t->kind == TK_IDENT) {
        char name[PATTERN_NAME_MAX];
        tok_name(ps, t, name);
        const struct token *t1 = peek(ps, 1), *t2 = peek(ps, 2);
        int declared = find_local(p, name) >= 0 || find_array(p, name) >= 0;
        if (!declared && !is_reserved(name) &&
            (t1->kind == TK_IDENT ||
             (is_punct(t1, '*') && t2->kind == TK_IDENT && is_punct(peek(ps, 3), '=')))) {
            err_set(ps->err, t->pos, t->len, -1, "unknown type '%s'", name);
            return -1;
        }
    }
    return parse_expr_stmt(ps, -1, t->pos);
}

static int parse_program(struct parser *ps)
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
        if (!is_punct(nt, ';')) {
            char b[40];
            err_set(ps->err, nt->pos, nt->len, -1, "expected ';' but found %s",
                    tok_desc(ps, nt, b, sizeof b));
            return -1;
        }
    }
    if (!any) {
        err_set(ps->err, -1, 0, -1, "empty pattern");
        return -1;
    }
    if (p->naccs == 0) {
        err_set(ps->err, -1, 0, -1,
                "the pattern has no access (add one, e.g. 'tile[threadIdx.x][0]')");
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- public: parse */

void pattern_env_init(struct pattern_env *env)
{
    memset(env, 0, sizeof *env);
    env->block[0] = 32;
    env->block[1] = 1;
    env->block[2] = 1;
    env->smem_limit = PATTERN_DEFAULT_SMEM_LIMIT;
}

int pattern_env_set(struct pattern_env *env, const char *name, long long value)
{
    if (!env || !name || strlen(name) >= PATTERN_NAME_MAX || !name[0])
        return -1;
    int n = env->nparams < 0 ? 0 : env->nparams > PATTERN_MAX_PARAMS ? PATTERN_MAX_PARAMS
                                                                      : env->nparams;
    for (int i = 0; i < n; i++)
        if (strncmp(env->param[i].name, name, PATTERN_NAME_MAX) == 0) {
            env->param[i].value = value;
            return 0;
        }
    if (n >= PATTERN_MAX_PARAMS)
        return -1;
    copy_name(env->param[n].name, name);
    env->param[n].value = value;
    env->nparams = n + 1;
    return 0;
}

void pattern_free(struct pattern *p)
{
    if (!p)
        return;
    free(p->text);
    free(p->node);
    free(p);
}

int pattern_parse(const char *text, struct pattern **out, struct pattern_error *err)
{
    struct pattern_error dummy;
    if (!err)
        err = &dummy;
    memset(err, 0, sizeof *err);
    err->lane = -1;
    if (out)
        *out = NULL;
    if (!text || !out) {
        err_set(err, -1, 0, -1, "no pattern");
        return -1;
    }
    size_t n = bounded_len(text, PATTERN_TEXT_MAX + 1);
    if (n > PATTERN_TEXT_MAX) {
        err_set(err, -1, 0, -1, "pattern is longer than %d bytes", PATTERN_TEXT_MAX);
        return -1;
    }
    struct pattern *p = calloc(1, sizeof *p);
    if (!p || !(p->text = malloc(n + 1))) {
        free(p);
        err_set(err, -1, 0, -1, "out of memory");
        return -1;
    }
    memcpy(p->text, text, n + 1);
    p->text_len = n;
    init_types(p);
    struct parser ps = {.p = p, .s = p->text, .n = n, .err = err, .read_node = -1, .last_if = -1};
    ps.ntok = lex(p->text, n, &ps.tok, err);
    if (ps.ntok < 0 || parse_program(&ps) < 0) {
        free(ps.tok);
        pattern_free(p);
        return -1;
    }
    free(ps.tok);
    *out = p;
    return 0;
}

int pattern_access_count(const struct pattern *p)
{
    return p ? p->naccs : 0;
}

const struct pattern_access_info *pattern_access(const struct pattern *p, int i)
{
    return p && i >= 0 && i < p->naccs ? &p->acc[i] : NULL;
}

int pattern_param_count(const struct pattern *p)
{
    return p ? p->nparams : 0;
}

const char *pattern_param_name(const struct pattern *p, int i)
{
    return p && i >= 0 && i < p->nparams ? p->param[i].name : NULL;
}

int pattern_array_count(const struct pattern *p)
{
    return p ? p->narr_info : 0;
}

const struct pattern_array_info *pattern_array(const struct pattern *p, int i)
{
    return p && i >= 0 && i < p->narr_info ? &p->arr_info[i] : NULL;
}

/* ---------------------------------------------------------------- evaluation */

struct val {
    long long i;     /* integer, or byte offset in the region */
    int region;      /* array index for pointers and lvalues */
};

struct ev {
    struct pattern *p;
    struct pattern_error *err;
    int lane;                        /* -1 while laying out */
    long long b[B_COUNT];            /* builtins of the current lane */
    long long pval[PATTERN_MAX_PARAMS];
    int pset[PATTERN_MAX_PARAMS];
    struct val loc[MAX_LOCALS];
    uint64_t dyn_bytes;
};

static int ev_fail(struct ev *e, int n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int ev_fail(struct ev *e, int n, const char *fmt, ...)
{
    char body[PATTERN_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    const struct node *nd = n >= 0 ? &e->p->node[n] : NULL;
    int pos = nd ? nd->pos : -1, len = nd ? nd->end - nd->pos : 0;
    if (e->lane >= 0)
        err_set(e->err, pos, len, e->lane, "lane %d: %s", e->lane, body);
    else
        err_set(e->err, pos, len, -1, "%s", body);
    return -1;
}

static const char *node_text(struct ev *e, int n, char *buf, size_t size)
{
    const struct node *nd = &e->p->node[n];
    return snip(e->p->text, e->p->text_len, nd->pos, nd->end, buf, size);
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
    char t[SNIP_MAX];
    switch (nd->op) {
    case '+':
        if (__builtin_add_overflow(a, b, r))
            goto overflow;
        return 0;
    case '-':
        if (__builtin_sub_overflow(a, b, r))
            goto overflow;
        return 0;
    case '*':
        if (__builtin_mul_overflow(a, b, r))
            goto overflow;
        return 0;
    case '/':
    case '%':
        if (b == 0)
            return ev_fail(e, n, "division by zero in '%s'", node_text(e, n, t, sizeof t));
        if (a == LLONG_MIN && b == -1)
            goto overflow;
        *r = nd->op == '/' ? a / b : a % b;
        return 0;
    case P_SHL:
    case P_SHR:
        if (b < 0 || b > 63)
            return ev_fail(e, n, "shift count %lld is out of range 0..63 in '%s'", b,
                           node_text(e, n, t, sizeof t));
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
        return ev_fail(e, n, "internal error: operator %d", nd->op);
    }
overflow:
    return ev_fail(e, n, "integer overflow in '%s' (%lld and %lld)", node_text(e, n, t, sizeof t),
                   a, b);
}

/* Adds idx * size to a byte offset, with overflow checks. */
static int add_scaled(struct ev *e, int n, long long off, long long idx, long long size,
                      long long *out)
{
    long long d;
    if (__builtin_mul_overflow(idx, size, &d) || __builtin_add_overflow(off, d, out)) {
        char t[SNIP_MAX];
        return ev_fail(e, n, "integer overflow computing the address of '%s'",
                       node_text(e, n, t, sizeof t));
    }
    return 0;
}

static int eval(struct ev *e, int n, struct val *out)
{
    struct pattern *p = e->p;
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
            const char *name = p->param[nd->arr].name;
            err_set(e->err, (int)nd->v, (int)strlen(name), e->lane,
                    "unknown name '%s' (give it a value, e.g. --param %s=1)", name, name);
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
        if (eval(e, nd->a, &a) < 0)
            return -1;
        if (nd->op == '-') {
            if (a.i == LLONG_MIN) {
                char t[SNIP_MAX];
                return ev_fail(e, n, "integer overflow in '%s'", node_text(e, n, t, sizeof t));
            }
            out->i = -a.i;
        } else if (nd->op == '~') {
            out->i = ~a.i;
        } else {
            out->i = !a.i;
        }
        return 0;
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
    case N_INDEX: {
        long long idx;
        if (eval(e, nd->a, &a) < 0 || eval_int(e, nd->b, &idx) < 0)
            return -1;
        const struct node *base = &p->node[nd->a];
        *out = a;
        if (base->vk == VK_ARR) {
            const struct array *ar = &p->arr[base->arr];
            if (!ar->is_extern) {
                long long dim = ar->info.dims[base->level];
                if (idx < 0 || idx >= dim)
                    return ev_fail(e, nd->b, "index %lld is out of bounds for dimension %d of "
                                   "'%s' (size %lld)", idx, base->level + 1, ar->info.name, dim);
                return add_scaled(e, n, a.i, idx, ar->stride[base->level], &out->i);
            }
        }
        return add_scaled(e, n, a.i, idx, nd->v, &out->i);
    }
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
                char t[SNIP_MAX];
                return ev_fail(e, n, "integer overflow in '%s'", node_text(e, n, t, sizeof t));
            }
            k = -k;
        }
        return add_scaled(e, n, out->i, k, nd->v, &out->i);
    }
    default:
        return ev_fail(e, n, "internal error: this value cannot be evaluated");
    }
}

/* Lays out the arrays: static in declaration order, dynamic at the first multiple of 16 after. */
static int layout(struct ev *e, const struct pattern_env *env)
{
    struct pattern *p = e->p;
    uint64_t off = 0;
    for (int i = 0; i < p->narrays; i++) {
        struct array *a = &p->arr[i];
        if (a->is_ptr || a->is_extern)
            continue;
        const struct ctype *t = &p->type[a->elem];
        unsigned long long bytes = t->size;
        for (int d = 0; d < a->ndims; d++) {
            long long v;
            if (eval_int(e, a->dim_node[d], &v) < 0)
                return -1;
            if (v <= 0) {
                const struct node *dn = &p->node[a->dim_node[d]];
                err_set(e->err, dn->pos, dn->end - dn->pos, -1,
                        "dimension %d of '%s' is %lld; it must be positive", d + 1, a->info.name,
                        v);
                return -1;
            }
            a->info.dims[d] = v;
            if (__builtin_mul_overflow(bytes, (unsigned long long)v, &bytes) ||
                bytes > PATTERN_STATIC_LIMIT) {
                err_set(e->err, a->pos, a->len, -1,
                        "__shared__ array '%s' is larger than the 48 KB (%d bytes) static shared "
                        "memory limit", a->info.name, PATTERN_STATIC_LIMIT);
                return -1;
            }
        }
        for (int d = a->ndims - 1; d >= 0; d--)
            a->stride[d] = d == a->ndims - 1 ? (long long)t->size
                                             : a->stride[d + 1] * a->info.dims[d + 1];
        unsigned long long align = t->align;
        if (a->align_node >= 0) {
            long long v;
            if (eval_int(e, a->align_node, &v) < 0)
                return -1;
            if (v <= 0 || v > 4096 || (v & (v - 1))) {
                const struct node *an = &p->node[a->align_node];
                err_set(e->err, an->pos, an->end - an->pos, -1,
                        "__align__(%lld): the alignment must be a power of two up to 4096", v);
                return -1;
            }
            if ((unsigned long long)v > align)
                align = (unsigned long long)v;
        }
        off = (off + align - 1) / align * align;
        a->info.base = off;
        a->info.bytes = bytes;
        off += bytes;
        if (off > PATTERN_STATIC_LIMIT) {
            err_set(e->err, a->pos, a->len, -1,
                    "static shared memory (%llu bytes) exceeds the 48 KB limit (%d bytes)",
                    (unsigned long long)off, PATTERN_STATIC_LIMIT);
            return -1;
        }
    }
    uint64_t dyn_base = (off + 15) / 16 * 16;
    uint64_t limit = env->smem_limit ? env->smem_limit : PATTERN_DEFAULT_SMEM_LIMIT;
    if (env->dyn_bytes > limit || off + env->dyn_bytes > limit) {
        int at = -1, len = 0; /* point at the first extern array, if any */
        for (int i = 0; i < p->narrays && at < 0; i++)
            if (p->arr[i].is_extern) {
                at = p->arr[i].pos;
                len = p->arr[i].len;
            }
        err_set(e->err, at, len, -1,
                "shared memory per block is %llu bytes static + %llu bytes dynamic, more than "
                "the device limit of %llu bytes", (unsigned long long)off,
                (unsigned long long)env->dyn_bytes, (unsigned long long)limit);
        return -1;
    }
    for (int i = 0; i < p->narrays; i++) {
        struct array *a = &p->arr[i];
        if (a->is_extern) {
            a->info.base = dyn_base;
            a->info.bytes = 0;
        }
        if (a->is_ptr) {
            a->info.base = 0;
            a->info.bytes = 0;
        }
    }
    e->dyn_bytes = env->dyn_bytes;
    return 0;
}

/* Checks that a pointer/lvalue at v of type `type` is inside its region and aligned. `what`
 * names it for messages. */
static int check_place(struct ev *e, int n, struct val v, int type, const char *name,
                       int is_ptr)
{
    struct pattern *p = e->p;
    if (v.region < 0 || v.region >= p->narrays)
        return ev_fail(e, n, "internal error: no region");
    const struct array *r = &p->arr[v.region];
    const struct ctype *t = &p->type[type];
    uint64_t size = r->is_extern ? e->dyn_bytes : r->info.bytes;
    if (!is_ptr && v.i < 0)
        return ev_fail(e, n, "'%s' is at byte offset %lld, before the start of %s", name, v.i,
                       r->is_extern ? "dynamic shared memory" : r->info.name);
    if (!is_ptr && (uint64_t)v.i + t->size > size) {
        if (r->is_extern)
            return ev_fail(e, n, "'%s' accesses bytes %lld..%lld of dynamic shared memory, past "
                           "its %llu bytes (dyn_bytes)", name, v.i, v.i + (long long)t->size - 1,
                           (unsigned long long)size);
        return ev_fail(e, n, "'%s' accesses bytes %lld..%lld of '%s', past its %llu bytes", name,
                       v.i, v.i + (long long)t->size - 1, r->info.name, (unsigned long long)size);
    }
    /* pointers may point anywhere (only accesses must be inside); they must be aligned */
    uint64_t abs = r->info.base + (uint64_t)v.i;
    if (abs % t->align) {
        if (is_ptr)
            return ev_fail(e, n, "'%s' is a %s pointer at byte offset %lld, not a multiple of %u",
                           name, t->name, r->is_extern ? v.i : (long long)abs, t->align);
        return ev_fail(e, n, "misaligned %u-byte %s access at byte offset %lld (not a multiple "
                       "of %u)", t->size, t->name, r->is_extern ? v.i : (long long)abs, t->align);
    }
    return 0;
}

int pattern_eval(struct pattern *p, const struct pattern_env *env, int which,
                 struct bank_access *acc, struct pattern_error *err)
{
    struct pattern_error dummy;
    if (!err)
        err = &dummy;
    memset(err, 0, sizeof *err);
    err->lane = -1;
    if (!p || !env || !acc) {
        err_set(err, -1, 0, -1, "no pattern or environment");
        return -1;
    }
    if (which < 0 || which >= p->naccs) {
        err_set(err, -1, 0, -1, "no access number %d (the pattern has %d)", which, p->naccs);
        return -1;
    }
    struct ev ev_storage;
    struct ev *e = &ev_storage;
    memset(e, 0, sizeof *e);
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
    int rc = -1;
    e->b[B_BX] = env->block[0];
    e->b[B_BY] = env->block[1];
    e->b[B_BZ] = env->block[2];
    e->b[B_WARPSIZE] = 32;
    if (layout(e, env) < 0)
        goto out;
    const struct pattern_access_info *ai = &p->acc[which];
    memset(acc, 0, sizeof *acc);
    acc->width = ai->width;
    acc->op = ai->kind == PATTERN_STORE ? BANK_STORE : BANK_LOAD;
    int last = p->acc_stmt[which];
    unsigned long long bx = env->block[0], by = env->block[1], bz = env->block[2], nthreads, bxy;
    if (__builtin_mul_overflow(bx, by, &bxy))
        bxy = ULLONG_MAX;
    if (__builtin_mul_overflow(bxy, bz, &nthreads))
        nthreads = ULLONG_MAX;
    int ptr_seen[MAX_ARRAYS] = {0};
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
        for (int si = 0; si <= last; si++) {
            const struct stmt *s = &p->stmt[si];
            struct val v;
            if (s->kind == S_LOCAL) {
                if (eval(e, s->node, &v) < 0)
                    goto out;
                e->loc[s->slot] = v;
            } else if (s->kind == S_PTR) {
                if (eval(e, s->node, &v) < 0)
                    goto out;
                const struct local *l = &p->loc[s->slot];
                if (check_place(e, s->node, v, l->type, l->name, 1) < 0)
                    goto out;
                e->loc[s->slot] = v;
                struct array *pa = &p->arr[l->array];
                if (!ptr_seen[l->array]) {
                    ptr_seen[l->array] = 1;
                    pa->info.base = p->arr[v.region].info.base + (uint64_t)v.i;
                    pa->info.dynamic = p->arr[v.region].is_extern;
                }
            } else if (si == last) {
                if (s->guard >= 0) {
                    long long g;
                    if (eval_int(e, s->guard, &g) < 0)
                        goto out;
                    if (!g)
                        break;
                }
                if (eval(e, s->node, &v) < 0)
                    goto out;
                if (check_place(e, s->node, v, p->node[s->node].type, ai->array, 0) < 0)
                    goto out;
                acc->mask |= 1u << lane;
                acc->offset[lane] = p->arr[v.region].info.base + (uint64_t)v.i;
            }
        }
    }
    for (int i = 0; i < p->narrays; i++)
        p->arr_info[i] = p->arr[i].info;
    p->narr_info = p->narrays;
    rc = 0;
out:
    return rc;
}

/* ---------------------------------------------------------------- text helpers */

int pattern_substitute(const char *text, const struct pattern_env *env, char *buf, size_t size)
{
    if (!buf || size == 0)
        return -1;
    buf[0] = 0;
    if (!text || !env)
        return -1;
    size_t o = 0, i = 0;
    int fit = 1;
    int nenv = env->nparams < 0 ? 0 : env->nparams > PATTERN_MAX_PARAMS ? PATTERN_MAX_PARAMS
                                                                         : env->nparams;
    while (text[i]) {
        const char *rep = NULL;
        size_t rep_len = 0, tok_len = 1;
        char num[32];
        unsigned char c = (unsigned char)text[i];
        if (is_alpha(c)) {
            size_t j = i;
            while (is_alnum(text[j]))
                j++;
            tok_len = j - i;
            int member = 0;
            for (size_t k = i; k > 0; k--) {
                char pc = text[k - 1];
                if (pc == ' ' || pc == '\t')
                    continue;
                member = pc == '.' || (pc == '>' && k >= 2 && text[k - 2] == '-');
                break;
            }
            if (!member)
                for (int k = 0; k < nenv; k++)
                    if (bounded_len(env->param[k].name, PATTERN_NAME_MAX) == tok_len &&
                        memcmp(env->param[k].name, text + i, tok_len) == 0) {
                        snprintf(num, sizeof num, "%lld", env->param[k].value);
                        rep = num;
                        rep_len = strlen(num);
                        break;
                    }
        } else if (is_digit(c)) {
            size_t j = i;
            while (is_alnum(text[j]) || text[j] == '.')
                j++;
            tok_len = j - i;
        }
        const char *src = rep ? rep : text + i;
        size_t len = rep ? rep_len : tok_len;
        for (size_t k = 0; k < len; k++) {
            if (o + 1 < size)
                buf[o++] = src[k];
            else
                fit = 0;
        }
        i += tok_len;
    }
    buf[o] = 0;
    if (!fit || o > INT_MAX)
        return -1;
    return (int)o;
}

char *pattern_error_caret(const char *text, const struct pattern_error *err, char *buf,
                          size_t size)
{
    if (!buf || size == 0)
        return buf;
    buf[0] = 0;
    if (!text || !err)
        return buf;
    size_t n = strlen(text);
    size_t pos = err->col > 0 ? (size_t)err->col - 1 : 0;
    if (pos > n)
        pos = n;
    size_t ls = pos, le = pos;
    while (ls > 0 && text[ls - 1] != '\n')
        ls--;
    while (le < n && text[le] != '\n')
        le++;
    if (err->col <= 0) {
        ls = 0;
        le = 0;
        while (le < n && text[le] != '\n')
            le++;
    }
    size_t o = 0;
#define PUT(ch) do { if (o + 1 < size) buf[o++] = (char)(ch); } while (0)
    PUT(' ');
    PUT(' ');
    for (size_t k = ls; k < le; k++)
        PUT(text[k] == '\r' ? ' ' : text[k]);
    PUT('\n');
    if (err->col > 0) {
        PUT(' ');
        PUT(' ');
        for (size_t k = ls; k < pos; k++) {
            unsigned char c = (unsigned char)text[k];
            if ((c & 0xc0) == 0x80)
                continue; /* a UTF-8 continuation byte takes no column */
            PUT(c == '\t' ? '\t' : ' ');
        }
        size_t len = err->len > 0 ? (size_t)err->len : 1;
        if (pos + len > le)
            len = le > pos ? le - pos : 1;
        PUT('^');
        for (size_t k = 1; k < len; k++)
            PUT('~');
        PUT('\n');
    }
#undef PUT
    buf[o] = 0;
    return buf;
}
