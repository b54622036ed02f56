/* ptx_parse.h: the parser's state shared by ptx_parse.c (tokens, directives, functions) and
 * ptx_decode.c (one instruction: its opcode's modifiers and its operands). */
#ifndef BANKLAB_PTX_PARSE_H
#define BANKLAB_PTX_PARSE_H

#include "ptx_internal.h"
#include "../base/buf.h"

enum { TOK_END = 0, TOK_ID, TOK_NUM, TOK_STR, TOK_P };

struct ptx_tok {
    uint8_t t;
    char c;                 /* TOK_P: the character */
    uint32_t at, len;       /* in the module's text */
    int line;
};

struct ptx_regpfx { const char *name; uint32_t len; int base, count; /* count -1: scalar */ };
struct ptx_sym { const char *name; uint32_t len; uint8_t space; int dynamic; uint64_t addr; };
struct ptx_fixup { int insn, opnd; uint32_t tok; };

struct ptx_fn {
    struct ptx_module *m;
    struct ptx_kernel *k;
    struct ptx_tok *tok;
    int ntok, pos;
    struct bl_err *err;
    struct ptx_regpfx *pfx;
    int npfx, cappfx;
    struct ptx_sym *sym;     /* the function's own (shared, local, params, call params) */
    int nsym, capsym;
    struct ptx_sym *label;
    int nlabel, caplabel;
    struct ptx_fixup *fix;
    int nfix, capfix;
    int capinsn;
    unsigned cur_loc;        /* the loc of the next instruction */
    int scope[32];           /* npfx where each open { } block began (its .reg names end at } ) */
    int nscope;
};

/* ptx_decode: the instruction at fn->tok[fn->pos] (after its guard), through its ';', appended
 * to fn->k->insn with the guard given; 0 or -1 with fn->err */
int ptx_decode(struct ptx_fn *fn, int guard, int guard_neg);
/* ptx_tokenize: the tokens of text (the last TOK_END), *n their count; NULL: out of memory */
struct ptx_tok *ptx_tokenize(const char *s, size_t len, int *n);
/* ptx_tok_p, ptx_tok_id: token i is the punctuation c / the identifier s */
int ptx_tok_p(const struct ptx_fn *fn, int i, char c);
int ptx_tok_id(const struct ptx_fn *fn, int i, const char *s);
int ptx_perr(struct ptx_fn *fn, int i, int id);
int ptx_reg_find(struct ptx_fn *fn, const char *s, uint32_t len);
int ptx_num(const char *s, uint32_t len, uint64_t *v, int *is_float);

#endif
