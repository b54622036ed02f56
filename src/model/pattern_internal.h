/* pattern_internal.h: what the files of the pattern language share, and nothing public (that is
 * pattern.h): the limits, tokens, the type table, the AST, the declaration tables, struct pattern
 * and the parser's state, plus each file's entry points. Files, lowest first: clex.c (the C
 * tokenizer the CUDA readers share), pattern_text.c, pattern_lex.c, pattern_parse.c, pattern_type.c, pattern_expr.c, pattern_decl.c,
 * pattern_stmt.c, pattern.c; pattern_eval.c beside them. A file calls only files before it.
 * Included by src/model/pattern*.c only. Pure C11 + libc (and src/base). */
#ifndef BANKLAB_PATTERN_INTERNAL_H
#define BANKLAB_PATTERN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../base/fmt.h"
#include "clex.h"
#include "pattern.h"

#define MAX_NODES 16384         /* AST nodes per pattern */
#define MAX_TREE_DEPTH (4 * PATTERN_MAX_DEPTH) /* AST depth (bounds the evaluator's recursion) */
#define MAX_ARRAYS PATTERN_MAX_ARRAYS /* shared arrays + carved pointers */
#define MAX_LOCALS 32           /* integer/float/pointer locals */
#define MAX_TYPES 64            /* builtin + struct types */
#define MAX_TYPEDEFS 32
#define MAX_FIELDS 256          /* struct and vector members, all types together */
#define MAX_STRUCT_FIELDS 16
#define MAX_STMTS 256
#define SNIP_MAX 48             /* expression text quoted in messages */

/* ---------------------------------------------------------------- tokens (pattern_lex.c) */

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

/* ---------------------------------------------------------------- types (pattern_type.c) */

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
    N_INDEX, N_MEMBER, N_DEREF, N_ADDR, N_PCAST, N_PADD, N_READ, N_OPQ, N_ALIAS,
    N_SWZ,   /* swizzle(B, M, S, x): a = x, b = an N_SWZP */
    N_SWZP   /* swizzle's B, M, S: a, b, c */
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
    struct pattern_array_info info; /* as parsed: name, type, sizes, ndims, dynamic (extern);
                                     * pattern_eval copies it into the layout and fills the rest */
    int elem;                /* element type */
    int is_ptr;              /* carved pointer (a local slot holds its value) */
    int is_extern;
    int ndims;
    int dim_node[3];         /* dimension expressions (static arrays) */
    int align_node;          /* __align__(N) expression or -1 */
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
    int rowtype;             /* S_ACCESS of ldmatrix/stmatrix/cp.async: the type checked for
                                bounds and alignment (a 16-byte row, a cp.async chunk); else -1 */
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

/* ---------------------------------------------------------------- the parser's state */

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
    struct bl_err *err;
    char desc[32], snip[SNIP_MAX]; /* what pat_tok_desc and pat_node_text return */
};

/* The token k places from the cursor (clamped to the first and the TK_EOF token). */
static inline const struct token *peek(const struct parser *ps, int k)
{
    int j = ps->i + k;
    if (j < 0)
        j = 0;
    if (j >= ps->ntok)
        j = ps->ntok - 1;
    return &ps->tok[j];
}

static inline int is_punct(const struct token *t, int c)
{
    return t->kind == TK_PUNCT && t->punct == c;
}

/* Is t the identifier `word`? */
static inline int tok_is(const struct parser *ps, const struct token *t, const char *word)
{
    size_t l = strlen(word);
    return t->kind == TK_IDENT && (size_t)t->len == l && memcmp(ps->s + t->pos, word, l) == 0;
}

/* Copies t's text into buf (PATTERN_NAME_MAX bytes), truncating. */
static inline void tok_name(const struct parser *ps, const struct token *t, char *buf)
{
    int l = t->len < PATTERN_NAME_MAX ? t->len : PATTERN_NAME_MAX - 1;
    memcpy(buf, ps->s + t->pos, (size_t)l);
    buf[l] = 0;
}

/* ---------------------------------------------------------------- pattern_text.c */

/* pat_snip: text[pos..end) for a message, into buf, "..." when cut, newlines as spaces. */
const char *pat_snip(const char *text, size_t text_len, int pos, int end, char *buf,
                     size_t size);
size_t pat_bounded_len(const char *s, size_t max);   /* strnlen (C11 has none) */
void pat_copy_name(char *dst, const char *src);      /* into PATTERN_NAME_MAX bytes */

/* ---------------------------------------------------------------- pattern_lex.c */

/* pat_lex: tokenizes s[0..n) into *out (malloc'ed; the last token is TK_EOF). Returns the
 * token count, or -1 with err filled (nothing to free then). */
int pat_lex(const char *s, size_t n, struct token **out, struct bl_err *err);

/* ---------------------------------------------------------------- pattern_parse.c */
/* The parser's plumbing: the token cursor, node allocation and the tables the grammar fills.
 * Every function that fails has filled ps->err and returns -1. */

/* "'tok'" or "the end of the pattern", for "expected X but found Y" messages, and the text of
 * node nd for a message (pat_snip), each in the parser's one buffer for it. */
const char *pat_tok_desc(struct parser *ps, const struct token *t);
const char *pat_node_text(struct parser *ps, const struct node *nd);
int pat_expect(struct parser *ps, int c, const char *what);  /* consumes punctuation c */
/* A new node (children -1, depth 1) over text [pos, end): its index, or -1. */
int pat_new_node(struct parser *ps, int kind, int vk, int pos, int end);
/* Sets node id's children and checks the tree depth: returns id, or -1. */
int pat_link(struct parser *ps, int id, int a, int b, int c);
/* Lookups by name: the index, or -1. Arrays exclude carved pointers (they are locals). */
int pat_find_local(const struct pattern *p, const char *name);
int pat_find_array(const struct pattern *p, const char *name);
int pat_find_typedef(const struct pattern *p, const char *name);
int pat_find_param(const struct pattern *p, const char *name);
int pat_is_reserved(const char *name);
/* Table entries: the new index, or -1 when the table is full. */
int pat_add_stmt(struct parser *ps, int kind, int node, int slot, int pos, int end);
int pat_add_local(struct parser *ps, const char *name, int kind, int type,
                  const struct token *t);
int pat_add_array(struct parser *ps, const char *name, int elem, const struct token *t);
/* Registers an access of lvalue node lv (kind 1: store) as a statement: 0 or -1. */
int pat_add_access(struct parser *ps, int lv, int kind, int guard, int pos, int end);
/* An ldmatrix/stmatrix/cp.async access of node lv (an lvalue or a pointer): info gives instr,
 * matrices, trans, kind and width; rowtype the type its address is checked as. */
int pat_add_instr_access(struct parser *ps, int lv, const struct pattern_access_info *info,
                         int rowtype, int guard, int pos, int end);

/* ---------------------------------------------------------------- pattern_type.c */

void pat_init_types(struct pattern *p);                       /* the builtin types */
int pat_find_type(const struct pattern *p, const char *name); /* a builtin type, or -1 */
/* The unnameable types an instruction's address is checked as: "matrix row" (16 bytes) and
 * "cp.async" of 4, 8 or 16 bytes. -1 if none. */
int pat_instr_type(const struct pattern *p, const char *name, unsigned size);
int pat_find_field(const struct pattern *p, int type, const char *name);
int pat_is_type_start(const struct parser *ps, const struct token *t);
/* A type at the cursor (qualifiers, integer words, names, typedefs, structs): 0 or -1. */
int pat_parse_type(struct parser *ps, int *type);
/* The '*' after a type: 1, 0 when none, -1 for '**'; qualifiers: skip const/__restrict__. */
int pat_parse_pointer(struct parser *ps, int qualifiers);

/* ---------------------------------------------------------------- pattern_expr.c */

int pat_parse_expr(struct parser *ps);   /* an expression: its node, or -1 */
int pat_parse_const(struct parser *ps);  /* a constant integer expression (dimensions) */
/* The value of an lvalue (a shared read) or array (a pointer); other nodes unchanged. */
int pat_rvalue(struct parser *ps, int n);
int pat_int_value(struct parser *ps, int n, const char *what);  /* pat_rvalue, an integer */
int pat_pointer_value(struct parser *ps, int e, const char *what);  /* pat_rvalue, a pointer */

/* ---------------------------------------------------------------- pattern_decl.c */

int pat_parse_shared_decl(struct parser *ps);  /* [extern] __shared__ TYPE name[dims], ... */
int pat_parse_typedef(struct parser *ps);      /* typedef TYPE NAME */
int pat_parse_local_decl(struct parser *ps);   /* TYPE [*]name = EXPR, ... */

/* ---------------------------------------------------------------- pattern_stmt.c */

int pat_parse_program(struct parser *ps);  /* every statement up to TK_EOF: 0 or -1 */

#endif
