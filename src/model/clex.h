/* clex.h: the one tokenizer of C and CUDA text in banklab, a cursor over a text that yields
 * identifiers, numbers, string and character literals and punctuation with their line and
 * column, blanks and comments skipped. The pattern language (pattern_lex.c), the CUDA reader
 * of pattern_cuda (pattern_cuda_read.c) and the kernel reader (src/kernel/source.c) all
 * read through it; each adds what its own grammar needs (the pattern language its number
 * values and operators). Pure C: libc only; never allocates except in clex_all. */
#ifndef BANKLAB_MODEL_CLEX_H
#define BANKLAB_MODEL_CLEX_H

#include <stddef.h>

/* The character classes of C (ASCII, whatever the locale). */
static inline int clex_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static inline int clex_digit(int c) { return c >= '0' && c <= '9'; }
static inline int clex_alnum(int c) { return clex_alpha(c) || clex_digit(c); }

enum clex_kind {
    CLEX_END = 0,        /* the end of the text (len 0) */
    CLEX_IDENT,          /* [A-Za-z_][A-Za-z0-9_]* */
    CLEX_NUMBER,         /* a digit (or '.' and a digit), then letters, digits, '.', a sign
                            after e/E/p/P and ' between digits (C's preprocessing number) */
    CLEX_STRING,         /* "..." or '...' up to its closing quote or the end of the line */
    CLEX_PUNCT,          /* C's operators, longest first (one byte with CLEX_PUNCT1); any
                            other byte is a one-byte CLEX_PUNCT */
    CLEX_DIRECTIVE,      /* with CLEX_DIRECTIVES: '#' first on a line, to the end of the line
                            and its backslash continuations */
};

enum {
    CLEX_DIRECTIVES = 1, /* preprocessor lines are CLEX_DIRECTIVE tokens */
    CLEX_SPLICE = 2,     /* a backslash before a newline is blank (source files) */
    CLEX_PUNCT1 = 4,     /* every punctuation token is one byte */
};

struct clex_tok {
    int kind;            /* enum clex_kind */
    int pos, len;        /* bytes in the text */
    int line, col;       /* where it starts, 1-based (col in bytes) */
};

struct clex {
    const char *s;
    size_t end;          /* the text is s[0 .. end) */
    size_t i;            /* the cursor; a reader may move it forward within a line, to end a
                            token by its own rule */
    int line;
    size_t line_start;   /* offset of the current line's first byte */
    int bol;             /* only blanks and comments since the start of the line */
    unsigned opts;
    int open_comment;    /* offset of a comment the text ends inside, or -1 */
};

/* clex_init: a cursor over s[from .. to), whose first byte is on line `line`. */
void clex_init(struct clex *L, const char *s, size_t from, size_t to, int line, unsigned opts);

/* clex_next: the token at the cursor (CLEX_END at the end of the text, again and again). */
struct clex_tok clex_next(struct clex *L);

/* clex_is: token t of text s is the word or punctuation w. clex_word_in: t is an identifier
 * of the NULL-terminated list words. */
int clex_is(const char *s, const struct clex_tok *t, const char *w);
int clex_word_in(const char *s, const struct clex_tok *t, const char *const *words);

/* clex_close: the token of t[k .. n) that closes the bracket t[k] ('(' '[' '{', or '<',
 * which gives up at a ';' or '{' first), or -1 when none does (t[k] is no bracket, the range
 * ends first). Nested brackets of the same kind count; with CLEX_PUNCT1 '>>' closes two. */
int clex_close(const char *s, const struct clex_tok *t, int k, int n);

/* A growing list of tokens. */
struct clex_toks {
    struct clex_tok *t;
    int n, cap;
};

/* clex_push: t appended to v. clex_all: every token L yields appended to v; t[n] is then the
 * CLEX_END token (not counted in n). Both return 0, or -1 when out of memory. */
int clex_push(struct clex_toks *v, struct clex_tok t);
int clex_all(struct clex *L, struct clex_toks *v);

#endif
