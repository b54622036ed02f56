/* ptext.c: the text the model translates one line of a kernel from (kernel/kernel.h,
 * kptext_*). pattern_from_cuda reads the whole file for every line it translates; a kernel of
 * n lines would cost n times its length. So each line is translated from a copy of the file in
 * which the kernel's statements that cannot matter to it are blanks (newlines kept, so every
 * line keeps its number): after the kernel, nothing; in the body, a statement stays when it is
 * control (braces, for, if, while, ..., return, asm), declares a __shared__ array (the layout),
 * is the line's own, uses a name the line's statement declares, or declares or changes a name
 * that a kept statement uses (followed until nothing is added). BANKLAB_KP_FULL=1 turns this
 * off (tests/sh/kernel_no_silent.sh compares both on every shipped .cu). The statements are
 * read once per kernel. Pure C; one caller at a time (static state). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../model/clex.h"
#include "../kernel/kernel.h"
#include "../base/hash.h"
#include "ptext.h"

struct kstmt {
    int pos, end;                   /* bytes [pos, end) of the source */
    int line0, line1;
    int control;
    int id0, nid;                   /* its identifiers: ids[id0 .. id0 + nid) */
    int set0, nset;                 /* the names it declares or changes: ids[set0 ..) */
};

struct kbody {
    const char *src;
    size_t len;
    int first, last;                /* the kernel's lines */
    size_t body_from, body_to;      /* its body's bytes */
    struct kstmt *st;
    int nst;
    int *ids;                       /* identifier ids, per statement */
    int nids, capids;
    int nnames;                     /* distinct identifiers */
    struct { int pos, len; } *name;
    int *hash;                      /* open addressing over names, -1 free */
    int hcap;
    unsigned char *need;            /* per name, for one line */
    char *text;                     /* the copy one line is translated from */
    int ok;
};

static struct kbody kb;

void kptext_free(void)
{
    free(kb.st);
    free(kb.ids);
    free(kb.name);
    free(kb.hash);
    free(kb.need);
    free(kb.text);
    memset(&kb, 0, sizeof kb);
}

static int name_id(const char *s, int pos, int len)
{
    uint64_t h = bl_hash(BL_HASH_SEED, s + pos, (size_t)len);
    for (int i = (int)(h % (uint64_t)kb.hcap);; i = (i + 1) % kb.hcap) {
        int k = kb.hash[i];
        if (k < 0) {
            if (kb.nnames * 2 >= kb.hcap)
                return -1;
            kb.hash[i] = kb.nnames;
            kb.name[kb.nnames].pos = pos;
            kb.name[kb.nnames].len = len;
            return kb.nnames++;
        }
        if (kb.name[k].len == len && !memcmp(s + kb.name[k].pos, s + pos, (size_t)len))
            return k;
    }
}

static int push_id(int id)
{
    if (kb.nids == kb.capids) {
        int cap = kb.capids ? kb.capids * 2 : 1024;
        int *n = realloc(kb.ids, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        kb.ids = n;
        kb.capids = cap;
    }
    kb.ids[kb.nids++] = id;
    return 0;
}

static const char *const control_words[] = {"for", "if", "else", "while", "do", "switch", "case",
                                            "default", "return", "break", "continue", "goto",
                                            "asm", "__asm__", "__syncthreads_or", NULL};

/* statement [from, k] of the tokens v into kb.st: its bytes, lines, whether it is control,
 * its names and the names it declares or changes. 0, or -1 out of memory. */
static int read_stmt(const char *src, const struct clex_toks *v, int from, int k)
{
    const struct clex_tok *t = &v->t[k];
    char c = t->kind == CLEX_PUNCT && t->len == 1 ? src[t->pos] : 0;
    struct kstmt *s = &kb.st[kb.nst++];
    memset(s, 0, sizeof *s);
    s->pos = v->t[from].pos;
    s->end = t->pos + t->len;
    s->line0 = v->t[from].line;
    s->line1 = t->line;
    s->control = t->kind == CLEX_DIRECTIVE || (from == k && (c == '{' || c == '}'));
    s->id0 = kb.nids;
    int decl = 0;
    for (int q = from; q <= k; q++) {
        const struct clex_tok *x = &v->t[q];
        if (x->kind != CLEX_IDENT)
            continue;
        for (int w = 0; control_words[w]; w++)
            if (clex_is(src, x, control_words[w]))
                s->control = 1;
        if (clex_is(src, x, "__shared__"))
            s->control = 1;     /* a shared array: the layout of those after it */
        int id = name_id(src, x->pos, x->len);
        if (id < 0 || push_id(id)) {
            return -1;
        }
        s->nid++;
        if (q == from && q + 1 <= k && (v->t[q + 1].kind == CLEX_IDENT ||
                                        clex_is(src, &v->t[q + 1], "*") ||
                                        clex_is(src, &v->t[q + 1], "&") ||
                                        clex_is(src, &v->t[q + 1], "<") ||
                                        clex_is(src, &v->t[q + 1], "::")))
            decl = 1;          /* TYPE NAME, TYPE *NAME, T<...> NAME: a declaration */
    }
    /* what it declares or changes: in a declaration the declarators (the last name of
     * the leading run of type words, *, & and template arguments; again after each
     * comma outside brackets); in any statement a name before an assignment, ++ or --,
     * or after ++, -- or & */
    s->set0 = kb.nids;
    int depth = 0, seg = from;
    for (int q = from; q <= k; q++) {
        const struct clex_tok *x = &v->t[q];
        int set = 0;
        if (decl && q == seg) {
            int lastid = -1, r = q, tdepth = 0;
            for (; r <= k; r++) {
                const struct clex_tok *y = &v->t[r];
                if (clex_is(src, y, "<"))
                    tdepth++;
                else if (clex_is(src, y, ">") && tdepth > 0)
                    tdepth--;
                else if (tdepth == 0 && y->kind == CLEX_IDENT)
                    lastid = r;
                else if (tdepth == 0 && !clex_is(src, y, "*") && !clex_is(src, y, "&") &&
                         !clex_is(src, y, "::"))
                    break;
            }
            if (lastid >= 0) {
                if (push_id(name_id(src, v->t[lastid].pos, v->t[lastid].len)))
                    return -1;
                s->nset++;
            }
        }
        if (x->kind == CLEX_PUNCT && x->len == 1) {
            char ch = src[x->pos];
            depth += (ch == '(' || ch == '[' || ch == '{') - (ch == ')' || ch == ']' || ch == '}');
            if (ch == ',' && depth == 0)
                seg = q + 1;
        }
        if (x->kind != CLEX_IDENT)
            continue;
        /* a.x = ..., p->y += ...: a member of a changes */
        int at = q + 1;
        if (q + 3 <= k && (clex_is(src, &v->t[q + 1], ".") || clex_is(src, &v->t[q + 1], "->")) &&
            v->t[q + 2].kind == CLEX_IDENT && (q == from || (!clex_is(src, &v->t[q - 1], ".") &&
                                                            !clex_is(src, &v->t[q - 1], "->"))))
            at = q + 3;
        if (at <= k && v->t[at].kind == CLEX_PUNCT) {
            const struct clex_tok *n = &v->t[at];
            const char *p = src + n->pos;
            set = (n->len >= 1 && p[n->len - 1] == '=' && !(n->len == 2 && (p[0] == '=' ||
                   p[0] == '!' || p[0] == '<' || p[0] == '>')) && !(n->len == 1 &&
                   at + 1 <= k && clex_is(src, &v->t[at + 1], "="))) ||
                  clex_is(src, n, "++") || clex_is(src, n, "--");
        }
        if (!set && q > from)
            set = clex_is(src, &v->t[q - 1], "++") || clex_is(src, &v->t[q - 1], "--") ||
                  clex_is(src, &v->t[q - 1], "&");
        if (set) {
            if (push_id(name_id(src, x->pos, x->len)))
                return -1;
            s->nset++;
        }
    }
    return 0;
}

/* the statements of the body of the kernel on lines [first, last] */
void kptext_read(const char *src, size_t len, int first, int last)
{
    kptext_free();
    kb.src = src;
    kb.len = len;
    kb.first = first;
    kb.last = last;
    if (getenv("BANKLAB_KP_FULL") && getenv("BANKLAB_KP_FULL")[0] == '1')
        return;
    /* the bytes of lines first .. last */
    int line = 1;
    size_t i = 0;
    for (; i < len && line < first; i++)
        line += src[i] == '\n';
    kb.body_from = i;
    for (; i < len && line <= last; i++)
        line += src[i] == '\n';
    kb.body_to = i;
    struct clex L;
    struct clex_toks v = {NULL, 0, 0};
    clex_init(&L, src, kb.body_from, kb.body_to, first, CLEX_DIRECTIVES | CLEX_SPLICE);
    if (clex_all(&L, &v)) {
        free(v.t);
        return;
    }
    kb.hcap = 2 * v.n + 64;
    kb.hash = malloc((size_t)kb.hcap * sizeof *kb.hash);
    kb.name = malloc((size_t)(kb.hcap / 2 + 1) * sizeof *kb.name);
    kb.st = malloc((size_t)(v.n + 1) * sizeof *kb.st);
    kb.text = malloc(len + 1);
    if (!kb.hash || !kb.name || !kb.st || !kb.text) {
        free(v.t);
        kptext_free();
        return;
    }
    memset(kb.hash, -1, (size_t)kb.hcap * sizeof *kb.hash);
    int from = 0, paren = 0;
    for (int k = 0; k < v.n; k++) {
        const struct clex_tok *t = &v.t[k];
        int one = t->kind == CLEX_PUNCT && t->len == 1;
        char c = one ? src[t->pos] : 0;
        if (c == '(' || c == '[')
            paren++;
        else if ((c == ')' || c == ']') && paren > 0)
            paren--;
        int ends = t->kind == CLEX_DIRECTIVE || (paren == 0 && (c == ';' || c == '{' || c == '}'));
        if (!ends && k + 1 < v.n)
            continue;
        if (read_stmt(src, &v, from, k)) {
            free(v.t);
            kptext_free();
            return;
        }
        from = k + 1;
    }
    free(v.t);
    kb.need = calloc((size_t)kb.nnames + 1, 1);
    kb.ok = kb.need != NULL;
}

static int stmt_sets_needed(const struct kstmt *s)
{
    for (int i = 0; i < s->nset; i++)
        if (kb.need[kb.ids[s->set0 + i]])
            return 1;
    return 0;
}

static int stmt_need(const struct kstmt *s)
{
    int added = 0;
    for (int i = 0; i < s->nid; i++)
        if (!kb.need[kb.ids[s->id0 + i]]) {
            kb.need[kb.ids[s->id0 + i]] = 1;
            added = 1;
        }
    return added;
}

/* the text line `line` is translated from (kb.text, or src itself) */
const char *kptext_for(int line)
{
    if (!kb.ok || line < kb.first || line > kb.last)
        return kb.src;
    memset(kb.need, 0, (size_t)kb.nnames);
    static unsigned char *keep;
    static int keepcap;
    if (keepcap < kb.nst) {
        free(keep);
        keep = malloc((size_t)kb.nst);
        keepcap = keep ? kb.nst : 0;
        if (!keep)
            return kb.src;
    }
    static unsigned char *own;              /* the names the line's statement sets */
    static int owncap;
    if (owncap < kb.nnames + 1) {
        free(own);
        own = calloc((size_t)kb.nnames + 1, 1);
        owncap = own ? kb.nnames + 1 : 0;
        if (!own)
            return kb.src;
    }
    memset(own, 0, (size_t)kb.nnames + 1);
    for (int i = 0; i < kb.nst; i++) {
        const struct kstmt *s = &kb.st[i];
        keep[i] = s->control || (s->line0 <= line && s->line1 >= line);
        if (keep[i])
            stmt_need(s);
        if (s->line0 <= line && s->line1 >= line)
            for (int q = 0; q < s->nset; q++)
                own[kb.ids[s->set0 + q]] = 1;
    }
    for (int i = 0; i < kb.nst; i++)        /* where the line's own names go (an address into asm) */
        for (int q = 0; !keep[i] && q < kb.st[i].nid; q++)
            if (own[kb.ids[kb.st[i].id0 + q]])
                keep[i] = 2;                /* kept to be read, its names not needed */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = kb.nst - 1; i >= 0; i--)
            if (!keep[i] && stmt_sets_needed(&kb.st[i])) {
                keep[i] = 1;
                changed |= stmt_need(&kb.st[i]);
            }
    }
    memcpy(kb.text, kb.src, kb.body_to);
    for (size_t i = kb.body_to; i < kb.len; i++)      /* after the kernel: nothing */
        kb.text[i] = kb.src[i] == '\n' ? '\n' : ' ';
    for (int i = 0; i < kb.nst; i++)
        if (!keep[i])
            for (int b = kb.st[i].pos; b < kb.st[i].end; b++)
                if (kb.text[b] != '\n')
                    kb.text[b] = ' ';
    kb.text[kb.len] = 0;
    return kb.text;
}

