/* pattern_cuda_internal.h: what the two files of pattern_cuda.h share: the token list of the
 * CUDA source, its functions, declarations and #defines (pattern_cuda_read.c reads them), and
 * the state of one translation (pattern_cuda.c resolves the line's names over them). Included
 * by src/model/pattern_cuda*.c only. Pure C: libc and src/base. */
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
    int oom;
    /* the resolution */
    int use;                 /* the first token of the line: names are looked up before it */
    int depth;               /* of resolve: declarations depending on declarations */
    const struct pattern_cuda_launch *launch;
    int line;
    unsigned char *decl_need, *def_need;
    struct pattern_cuda *out;
    struct bl_err *err;      /* &out->err */
    struct pcu_loop loop[PCU_MAX_CTL];
    int nloop;
};

/* ---- pattern_cuda_ctl.c ---- */

/* pcu_enclosing: the control statements of function fn around token target, outermost
 * first, into ctl[max]. Returns their number, or -1 when there are more than max. */
int pcu_enclosing(const struct ctx *c, int fn, int target, struct pcu_ctl *ctl, int max);

/* ---- pattern_cuda_read.c ---- */

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
/* pcu_lookup_define: the #define of s defined before the line, or -1 */
int pcu_lookup_define(const struct ctx *c, const char *s, int n);
/* pcu_lookup_param: the name token of function fn's parameter s, its tokens [*first, *last),
 * or -1 */
int pcu_lookup_param(const struct ctx *c, int fn, const char *s, int n, int *first, int *last);
/* pcu_is_shared: the declaration points into shared memory (an array, or a pointer carved
 * from one) */
int pcu_is_shared(const struct ctx *c, int di, int depth);

#endif
