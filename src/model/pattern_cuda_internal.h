/* pattern_cuda_internal.h: what the files of pattern_cuda.h share: the token list of the
 * CUDA source, its functions, declarations, types and #defines (pattern_cuda_read.c reads
 * them), the call paths and bound parameters of helpers (pattern_cuda_call.c), the line's
 * accesses (pattern_cuda_access.c), the text composed (pattern_cuda_emit.c) and the state of
 * one translation (pattern_cuda.c resolves the line's names over them). Included by
 * src/model/pattern_cuda*.c only. Pure C: libc and src/base. */
#ifndef BANKLAB_PATTERN_CUDA_INTERNAL_H
#define BANKLAB_PATTERN_CUDA_INTERNAL_H

#include <stddef.h>

#include "clex.h"
#include "pattern_cuda.h"

#define MAX_DEPENDS 64       /* declarations a name may lean on, one through another */

struct cdefine {             /* #define NAME BODY (object-like), or a macro with arguments */
    int name_pos, name_len;
    int line;
    int from, to;            /* body tokens in the define token list */
    int with_args;
};

struct cfunc {
    int name, lparen, rparen, open, close;   /* token indices */
    int tmpl_from, tmpl_to;  /* the parameters of `template <...>` before it, or -1 */
};

/* a type the file defines: struct NAME { ... };  typedef ... NAME;  using NAME = ...; */
enum { PCU_STRUCT = 1, PCU_TYPEDEF, PCU_USING };

struct ctypedef {
    int kind;
    int fn;                  /* the function it is defined in, -1 at file scope */
    int stmt, end;           /* its first token and its ';' */
    int name;                /* the name's token */
    int open, close;         /* a struct body's braces, or -1 */
};

/* a function of the call chain from the kernel to the line's function (frame 0 the kernel) */
#define PCU_MAX_FRAMES 5
#define PCU_MAX_PARAMS 16
struct pcu_frame {
    int fn;
    int call;                /* the token of its name in the caller's call, -1 for the kernel */
};

/* One declarator of a declaration statement. */
struct cdecl {
    int fn;                  /* the function it is declared in, -1 at file scope */
    int stmt;                /* first token of the statement (its qualifiers) */
    int type_from, type_end; /* the type words */
    int align_from, align_to;/* __align__(N), or -1 */
    int dstart, name;        /* the declarator's first token ('*'s) and its name */
    int dims_from, dims_to;  /* [..][..] after the name */
    int init, init_end;      /* the initializer, or -1 */
    int shared, is_extern, is_const, loop, pointer;
};

/* a control statement around a line (pattern_cuda_ctl.c) */
enum { PCU_IF = 1, PCU_ELSE, PCU_FOR, PCU_WHILE, PCU_DO, PCU_SWITCH };
#define PCU_MAX_CTL 8

struct pcu_ctl {
    int kind;
    int kw;                  /* the keyword's token */
    int cond_from, cond_to;  /* the condition (a for's second clause) */
    int init_from, init_to;  /* a for's first and third clause */
    int step_from, step_to;
};

struct pcu_loop {            /* an enclosing for whose variable takes the value of one trip */
    int decl;
    char op;                 /* + - * / l(<<) r(>>) */
    int step_from, step_to;  /* the step's tokens; from == to: 1 */
    long long trip;
};

struct ctx {
    const char *src;
    size_t len;
    struct clex_toks code, defs;
    struct cdefine *def;
    int ndef, defcap;
    struct cfunc *fn;
    int nfn, fncap;
    struct cdecl *decl;
    int ndecl, declcap;
    struct ctypedef *type;
    int ntype, typecap;
    int oom;
    /* indexes read once with the file (pcu_index), for every line translated from it */
    int *match;              /* per code token: its closing ) ] }, -1 unclosed, -2 not one */
    int *fn_head, *fn_next;  /* the functions by name: open hash of fn_hcap heads, chains */
    int fn_hcap;
    struct pcu_ctlx *ctlx;   /* per function: its control statements, filled when first asked */
    int *asg_head, *asg_next;/* the names assigned, ++ or -- (pcu_assigned): open hash of
                                asg_hcap heads over tokens, chains in the file's order */
    int asg_hcap;
    /* the resolution */
    int use;                 /* the first token of the line: names are looked up before it */
    int depth;               /* of resolve: declarations depending on declarations */
    const struct pattern_cuda_launch *launch;
    int line;
    unsigned char *decl_need, *def_need, *type_need;
    struct pcu_frame frame[PCU_MAX_FRAMES];
    int nframe;              /* 1: the line is in the kernel itself */
    char targs[256];         /* the kernel's template arguments: --name's, else the file's launch */
    unsigned char bind_need[PCU_MAX_FRAMES][PCU_MAX_PARAMS];   /* a helper's parameter */
    unsigned char tparam_need[PCU_MAX_FRAMES][PCU_MAX_PARAMS]; /* a template parameter */
    struct pattern_cuda *out;
    struct bl_err *err;      /* &out->err */
    struct pcu_loop loop[PCU_MAX_CTL];
    int nloop;
};

/* text being composed; full when it did not fit */
struct buf {
    char *s;
    size_t size, n;
    int full;
};

/* one access of the line (pattern_cuda_access.c) */
enum acc_kind { A_LOAD, A_STORE, A_BOTH };

struct access {
    int from, to;            /* tokens of the lvalue: name[..][..].member */
    int kind;
    int decl;                /* the array's declaration, -1 for a cast or a helper's parameter */
    int whole;               /* no member selected */
};

#define MAX_LINE_ACCESSES 16

/* ---- pattern_cuda_emit.c ---- */

void pcu_puts(struct buf *b, const char *s);
/* pcu_block_builtin: blockIdx.x (y, z) or gridDim.x at token k of v: the launch's number (the
 * block of launch->block_idx; gridDim the grid), else -1 */
long long pcu_block_builtin(const struct ctx *c, const struct clex_toks *v, int k);
/* reinterpret_cast, static_cast, const_cast */
extern const char *const pcu_cpp_casts[];
/* pcu_put_tokens: tokens [from, to) of v as pattern text (map_types: size_t and the other
 * integer typedefs as their C names) */
void pcu_put_tokens(const struct ctx *c, const struct clex_toks *v, int from, int to,
                    struct buf *b, int map_types);
/* pcu_compose_decls: every needed declaration, define, type, template argument and bound
 * parameter, "; " between; pcu_compose_accesses: the accesses, loads first, a whole float3 or
 * struct element as its members; their number */
void pcu_compose_decls(const struct ctx *c, struct buf *b);
int pcu_compose_accesses(const struct ctx *c, const struct access *acc, int n, struct buf *b);

/* ---- pattern_cuda_access.c ---- */

/* '=', the compound assignments, then ++ and -- (the last two) */
extern const char *const pcu_assign_ops[];
/* pcu_line_accesses: the shared-memory accesses of tokens [a, b) of function fn, at most max;
 * when there is none *why_kind says what else was there: 1 an address (&s[i]), 2 an atomic,
 * 3 inline asm, with its name in what */
int pcu_line_accesses(struct ctx *c, int fn, int a, int b, struct access *acc, int max,
                      int *why_kind, char *what, size_t wsz);

/* ---- pattern_cuda_ctl.c ---- */

/* the control statements of one function, each with the tokens [lo, hi) its body spans, in
 * the order a walk of the function meets their ends (innermost first) */
struct pcu_ctl_span {
    struct pcu_ctl x;
    int lo, hi;
};
struct pcu_ctlx {
    int done, over;          /* read; nested deeper than the walk follows */
    struct pcu_ctl_span *s;
    int n, cap;
};

/* pcu_enclosing: the control statements of function fn around token target, outermost
 * first, into ctl[max]. Returns their number, or -1 when there are more than max. */
int pcu_enclosing(const struct ctx *c, int fn, int target, struct pcu_ctl *ctl, int max);

/* ---- pattern_cuda_call.c ---- */

/* pcu_paths: the call paths from function kfn to function fn (kfn == fn: one, the empty
 * path); when want >= 0, path number `want` into c->frame / c->nframe. At most 64. */
int pcu_paths(struct ctx *c, int kfn, int fn, int want);
/* pcu_list_item: item i of the comma list [from, to) (commas in brackets and <> do not
 * count): its tokens [*a, *b); -1 when there is none */
int pcu_list_item(const struct ctx *c, int from, int to, int i, int *a, int *b);
/* pcu_frame_of: the frame of function fn, or -1 */
int pcu_frame_of(const struct ctx *c, int fn);
/* pcu_param_index: the 0-based position of fn's parameter whose name is token `name`, and
 * pcu_call_arg: the tokens [*a, *b) of argument i of the call whose name is token `call`;
 * -1 when there is none */
int pcu_param_index(const struct ctx *c, int fn, int name);
int pcu_call_arg(const struct ctx *c, int call, int i, int *a, int *b);
/* pcu_param_shared: fn's parameter s (n bytes), in a helper's frame, is bound to an argument
 * that points into shared memory */
int pcu_param_shared(const struct ctx *c, int fn, const char *s, int n, int depth);
/* pcu_is_shared: the declaration points into shared memory (an array, or a pointer carved
 * from one, or from a helper's parameter bound to one) */
int pcu_is_shared(const struct ctx *c, int di, int depth);
/* pcu_tparam: the template parameter s (n bytes) of function fn: its index, its tokens
 * [*a, *b) in the template list; -1 when none */
int pcu_tparam(const struct ctx *c, int fn, const char *s, int n, int *a, int *b);
/* pcu_targ: argument i of the template arguments written in name ("k<32, float>"): its text
 * into *s, *n; -1 when there is none */
int pcu_targ(const char *name, int i, const char **s, int *n);
/* pcu_file_targs: the template arguments of the launches of kernel fn in the file's own code
 * (carve4<32><<<1, 256>>>(...)) as "<32>" into buf, "" when there are none, or launches with
 * different arguments */
void pcu_file_targs(const struct ctx *c, int fn, char *buf, size_t size);
/* pcu_call_targs: the template arguments written at the call whose name is token call
 * (warpReduce<256>(...)) as "<256>" into buf, "" when none */
void pcu_call_targs(const struct ctx *c, int call, char *buf, size_t size);

/* ---- pattern_cuda_read.c ---- */

/* pcu_index: the indexes of a read file (c->match, c->fn_head / fn_next, c->ctlx); c->oom on
 * a failed allocation. pcu_read_free frees them and the read (not the spans each
 * c->ctlx[f].s holds: pattern_cuda_close). */
void pcu_index(struct ctx *c);
void pcu_read_free(struct ctx *c);
/* pcu_assigned: the first token in [from, to) where the name s (n bytes) is assigned, or
 * incremented or decremented (not a member: a.s, p->s), or -1 */
int pcu_assigned(const struct ctx *c, const char *s, int n, int from, int to);
/* pcu_fn_named: the first function named s (n bytes), pcu_fn_next the next one, -1 when none */
int pcu_fn_named(const struct ctx *c, const char *s, int n);
int pcu_fn_next(const struct ctx *c, int g);

/* pcu_read: the tokens of c->src (the bodies of object-like #defines in c->defs), the
 * functions with a body and every declarator of the file; c->oom on a failed allocation */
void pcu_read(struct ctx *c);

/* token k of the code is the word or punctuation w */
int pcu_cis(const struct ctx *c, int k, const char *w);
int pcu_same_text(const struct ctx *c, const struct clex_tok *a, const char *s, int n);
/* pcu_match: the index of the bracket closing the one at token k of v ('(' '[' '{'), or
 * n - 1 (the last token of the range) when it is not closed */
int pcu_match(const struct ctx *c, const struct clex_toks *v, int k, int n);

/* pcu_lookup_decl: the declaration of name s (n bytes) visible at token `use` of function fn:
 * the function's last one before `use`, else the file's; -1 when none */
int pcu_lookup_decl(const struct ctx *c, const char *s, int n, int use, int fn);
/* pcu_macro: a #define with arguments: its parameters' tokens from *params and its body's
 * from *body to def->to in c->defs; returns the ')' closing the parameters, or -1.
 * pcu_macro_param: the index of the parameter of define de named like token t, or -1 */
int pcu_macro(const struct ctx *c, int de, int *params, int *body);
int pcu_macro_param(const struct ctx *c, int de, const struct clex_tok *t);
/* pcu_lookup_define: the #define of s defined before the line, or -1 */
int pcu_lookup_define(const struct ctx *c, const char *s, int n);
/* pcu_lookup_param: the name token of function fn's parameter s, its tokens [*first, *last),
 * or -1 */
int pcu_lookup_param(const struct ctx *c, int fn, const char *s, int n, int *first, int *last);
/* pcu_lookup_type: the type s (n bytes) the file defines before token use, or -1 */
int pcu_lookup_type(const struct ctx *c, const char *s, int n, int use);
/* pcu_match_back: the '(' opening the ')' at token k, or -1 */
int pcu_match_back(const struct ctx *c, int k);

#endif
