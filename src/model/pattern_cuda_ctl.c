/* pattern_cuda_ctl.c: the control statements around a token of a function (pattern_cuda.c
 * turns them into a guard and loop trips when the launch asks for control): the function's
 * body is walked statement by statement, a braced block, if / else, for, while, do and
 * switch with braced or braceless bodies, once per function: every construct with the tokens
 * its body spans (c->ctlx); the constructs around a target are those whose span holds it. A
 * small walker over the tokens, not a C++ parser. Pure C: libc and src/base. */
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "pattern_cuda_internal.h"

struct walk {
    const struct ctx *c;
    struct pcu_ctlx *rec;    /* every control statement of the function, with its span */
    int depth;               /* of statement(): braces in braces */
};

#define MAX_NESTING 256

static int statement(struct walk *w, int k, int end);

/* control statement x, whose body spans the tokens [lo, hi) */
static void keep(struct walk *w, const struct pcu_ctl *x, int lo, int hi)
{
    struct pcu_ctlx *r = w->rec;
    if (r->over)
        return;
    if (bl_grow(&r->s, &r->cap, r->n + 1, sizeof *r->s, 16)) {
        r->over = 1;
        return;
    }
    r->s[r->n++] = (struct pcu_ctl_span){*x, lo, hi};
}

/* the statement at token k of [k, end): the index after it */
static int plain(const struct walk *w, int k, int end)
{
    const struct ctx *c = w->c;
    for (int i = k; i < end; i++) {
        if (pcu_cis(c, i, "(") || pcu_cis(c, i, "[") || pcu_cis(c, i, "{"))
            i = pcu_match(c, &c->code, i, end);
        else if (pcu_cis(c, i, ";"))
            return i + 1;
    }
    return end;
}

/* if, for, while, switch at k with its '(' at k + 1 */
static int headed(struct walk *w, int k, int end, int kind)
{
    const struct ctx *c = w->c;
    int cp = pcu_match(c, &c->code, k + 1, end);
    struct pcu_ctl x;
    memset(&x, 0, sizeof x);
    x.kind = kind;
    x.kw = k;
    x.cond_from = k + 2;
    x.cond_to = cp;
    if (kind == PCU_FOR) {
        int s1 = k + 2, s2;
        while (s1 < cp && !pcu_cis(c, s1, ";"))
            s1++;
        s2 = s1 + 1;
        while (s2 < cp && !pcu_cis(c, s2, ";"))
            s2++;
        x.init_from = k + 2;
        x.init_to = s1;
        x.cond_from = s1 + 1 < cp ? s1 + 1 : cp;
        x.cond_to = s2 < cp ? s2 : cp;
        x.step_from = s2 + 1 < cp ? s2 + 1 : cp;
        x.step_to = cp;
    }
    int body = cp + 1, bend = statement(w, body, end);
    keep(w, &x, body, bend);
    if (kind == PCU_IF && pcu_cis(c, bend, "else")) {
        int eend = statement(w, bend + 1, end);
        x.kind = PCU_ELSE;
        keep(w, &x, bend + 1, eend);
        return eend;
    }
    return bend;
}

static int statement_at(struct walk *w, int k, int end);

static int statement(struct walk *w, int k, int end)
{
    if (w->depth >= MAX_NESTING) {       /* deeper than kernels are written: given up */
        w->rec->over = 1;
        return end;
    }
    w->depth++;
    int rc = statement_at(w, k, end);
    w->depth--;
    return rc;
}

static int statement_at(struct walk *w, int k, int end)
{
    const struct ctx *c = w->c;
    if (k >= end)
        return end;
    if (pcu_cis(c, k, "{")) {
        int j = pcu_match(c, &c->code, k, end);
        for (int i = k + 1; i < j;)
            i = statement(w, i, j);
        return j + 1;
    }
    if (pcu_cis(c, k + 1, "(")) {
        static const char *const words[] = {"if", "for", "while", "switch"};
        static const int kinds[] = {PCU_IF, PCU_FOR, PCU_WHILE, PCU_SWITCH};
        for (int i = 0; i < 4; i++)
            if (pcu_cis(c, k, words[i]))
                return headed(w, k, end, kinds[i]);
    }
    if (pcu_cis(c, k, "do")) {
        int bend = statement(w, k + 1, end);
        struct pcu_ctl x;
        memset(&x, 0, sizeof x);
        x.kind = PCU_DO;
        x.kw = k;
        keep(w, &x, k + 1, bend);
        return plain(w, bend, end);         /* while (...); */
    }
    return plain(w, k, end);
}

/* the function is walked once; each question after is answered from its spans */
int pcu_enclosing(const struct ctx *c, int fn, int target, struct pcu_ctl *ctl, int max)
{
    struct pcu_ctlx *r = &c->ctlx[fn];
    if (!r->done) {
        struct walk w;
        memset(&w, 0, sizeof w);
        w.c = c;
        w.rec = r;
        statement(&w, c->fn[fn].open, c->fn[fn].close + 1);
        r->done = 1;
    }
    if (r->over)
        return -1;
    int n = 0;
    for (int i = r->n - 1; i >= 0; i--)     /* kept innermost first: outermost first here */
        if (target >= r->s[i].lo && target < r->s[i].hi) {
            if (n >= max || n >= PCU_MAX_CTL)
                return -1;
            ctl[n++] = r->s[i].x;
        }
    return n;
}
