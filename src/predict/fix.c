/* fix.c: a fix for a conflicting line: for each static __shared__ array the line accesses,
 * padding its last dimension by 1..8 elements (two or more dimensions) or its index by 1..8
 * elements a 128-byte row (a[(e) + (e) / R * p], R elements in 128 bytes), then an XOR swizzle
 * of every access (a[r][(c) ^ ((r) & (C - 1))]; one dimension a[(e) ^ (((e) / R) % R)], in
 * 16-byte chunks when it is also read as float4 so every float4 stays whole). The file is read
 * again with each (predict/predict.h); the first that leaves the line conflict free and no
 * other line of the array worse is executed (kexec_apply: the edited copy's PTX run on the
 * CPU, a file with main() too) and proposed in a compiler's words only when the run neither
 * faults, nor leaves the line conflicting, nor makes another line of the array worse (the
 * note's figures are the run's); else the next, at most FIX_EXECS runs a line, each rejected
 * one named with its reason. A candidate that could not be executed at all (no nvcc) makes the
 * line "could not be checked", never "no fix found". Before those, the element's width (a
 * note, no patch): K = 2 or 4 consecutive elements a lane reads one by one that nvcc left as
 * separate LDS, read as one float2 / float4, or a float2 / float4 read through a cast read as
 * its floats, only when the line gets fewer wavefronts. The patched text keeps every line
 * where it was. Pure C. */
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "exec.h"
#include "predict.h"

/* ---------------------------------------------------------------- tokens */

struct ftok {
    int pos, len;
    char kind;               /* 'i' identifier, 'n' number, 'p' punctuation */
    int line;                /* the line of its first byte */
};

struct ftoks {
    struct ftok *t;
    int n;
};

static int lex(const char *s, size_t len, struct ftoks *v)
{
    int cap = 256;
    v->n = 0;
    v->t = malloc((size_t)cap * sizeof *v->t);
    if (!v->t)
        return -1;
    int bol = 1;
    for (size_t i = 0; i < len;) {
        char c = s[i];
        size_t j = i + 1;
        if (c == '\n') {
            bol = 1;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        if (c == '#' && bol) {
            while (i < len && s[i] != '\n')
                i += s[i] == '\\' && i + 1 < len ? 2 : 1;
            continue;
        }
        bol = 0;
        if (c == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i < len && s[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            for (i += 2; i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'); i++)
                ;
            i += 2;
            continue;
        }
        char kind = 'p';
        if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            while (j < len && (s[j] == '_' || (s[j] >= 'a' && s[j] <= 'z') ||
                               (s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= '0' && s[j] <= '9')))
                j++;
            kind = c >= '0' && c <= '9' ? 'n' : 'i';
        } else if (c == '"' || c == '\'') {
            while (j < len && s[j] != c && s[j] != '\n')
                j += s[j] == '\\' ? 2 : 1;
            j++;
            kind = 's';
        } else if (c == '-' && j < len && s[j] == '>') {
            j++;
        }
        if (v->n == cap) {
            struct ftok *w = realloc(v->t, (size_t)cap * 2 * sizeof *w);
            if (!w)
                return -1;
            v->t = w;
            cap *= 2;
        }
        v->t[v->n++] = (struct ftok){(int)i, (int)((j < len ? j : len) - i), kind, 0};
        i = j;
    }
    for (int k = 0, ln = 1, p = 0; k < v->n; k++) {
        for (; p < v->t[k].pos; p++)
            ln += s[p] == '\n';
        v->t[k].line = ln;
    }
    return 0;
}

static int tis(const char *s, const struct ftoks *v, int k, const char *w)
{
    return k >= 0 && k < v->n && v->t[k].len == (int)strlen(w) && !memcmp(s + v->t[k].pos, w, strlen(w));
}

/* the ']' closing the '[' at k, or -1 */
static int closing(const char *s, const struct ftoks *v, int k)
{
    int depth = 0;
    for (int i = k; i < v->n; i++) {
        if (tis(s, v, i, "[") || tis(s, v, i, "(") || tis(s, v, i, "{"))
            depth++;
        else if ((tis(s, v, i, "]") || tis(s, v, i, ")") || tis(s, v, i, "}")) && --depth == 0)
            return i;
    }
    return -1;
}

/* ---------------------------------------------------------------- an edited copy */

struct edit {
    int at, cut;             /* replace cut bytes at byte `at` ... */
    char text[160];          /* ... by text */
};

#define MAX_EDITS 64

static int cmp_edit(const void *a, const void *b)
{
    return ((const struct edit *)a)->at - ((const struct edit *)b)->at;
}

static char *apply(const char *src, size_t len, struct edit *e, int n, size_t *outlen)
{
    size_t extra = 0;
    for (int i = 0; i < n; i++)
        extra += strlen(e[i].text);
    char *o = malloc(len + extra + 1);
    if (!o)
        return NULL;
    qsort(e, (size_t)n, sizeof *e, cmp_edit);
    size_t w = 0, r = 0;
    for (int i = 0; i < n; i++) {
        memcpy(o + w, src + r, (size_t)e[i].at - r);
        w += (size_t)e[i].at - r;
        size_t tl = strlen(e[i].text);
        memcpy(o + w, e[i].text, tl);
        w += tl;
        r = (size_t)(e[i].at + e[i].cut);
    }
    memcpy(o + w, src + r, len - r);
    w += len - r;
    o[w] = 0;
    *outlen = w;
    return o;
}

/* the declaration of static __shared__ array name: the token of its name, -1 when none */
static int find_decl(const char *s, const struct ftoks *v, const char *name)
{
    for (int k = 0; k < v->n; k++) {
        if (!tis(s, v, k, "__shared__"))
            continue;
        int ext = tis(s, v, k - 1, "extern") || tis(s, v, k - 2, "extern");
        for (int i = k + 1; i < v->n && !tis(s, v, i, ";"); i++)
            if (tis(s, v, i, name) && tis(s, v, i + 1, "[") && !ext)
                return i;
    }
    return -1;
}

static const struct {
    const char *name;
    int bytes;
} widths[] = {{"float4", 16}, {"int4", 16}, {"uint4", 16}, {"double2", 16}, {"longlong2", 16},
              {"float2", 8}, {"int2", 8}, {"uint2", 8}, {"double", 8}, {"half2", 4},
              {"float", 4}, {"int", 4}, {"unsigned", 4}, {"half", 2}, {"__half", 2},
              {"short", 2}, {"char", 1}, {NULL, 0}};

/* the use of array name at token k as reinterpret_cast<T *>(a)[j] or ((T *)a)[j]: the '[' of
 * its index and T's bytes into *bytes; -1 when it is neither */
static int cast_use(const char *s, const struct ftoks *v, int k, int *bytes)
{
    if (!tis(s, v, k + 1, ")") || !tis(s, v, k + 2, "["))
        return -1;
    int from = -1, to = -1;
    if (tis(s, v, k - 1, "(") && tis(s, v, k - 2, ">")) {
        to = k - 2;
        for (int q = to - 1; q >= 0 && q > to - 8 && from < 0; q--)
            if (tis(s, v, q, "<"))
                from = q + 1;
    } else if (tis(s, v, k - 1, ")") && tis(s, v, k + 1, ")")) {
        to = k - 1;
        for (int q = to - 1; q >= 0 && q > to - 8 && from < 0; q--)
            if (tis(s, v, q, "("))
                from = q + 1;
    }
    for (int q = from; from >= 0 && q < to; q++)
        for (int w = 0; widths[w].name; w++)
            if (v->t[q].kind == 'i' && tis(s, v, q, widths[w].name)) {
                *bytes = widths[w].bytes;
                return k + 2;
            }
    return -1;
}

/* the uses of array name (token d declares it), each the '[' of its index in elements of
 * g[i] array elements (1 for a[i] and &a[i], 4 for reinterpret_cast<float4 *>(a)[j] of a
 * float array), into at[] / g[]; -1 when it is used otherwise (a pointer made of it, another
 * thing of that name) */
static int uses(const char *s, const struct ftoks *v, int d, unsigned elem, int *at, int *g,
                int max)
{
    const char *name = s + v->t[d].pos;
    int nl = v->t[d].len, n = 0, bytes;
    for (int k = 0; k < v->n; k++) {
        if (k == d || v->t[k].kind != 'i' || v->t[k].len != nl || memcmp(s + v->t[k].pos, name, (size_t)nl) ||
            tis(s, v, k - 1, ".") || tis(s, v, k - 1, "->"))
            continue;
        if (k < d || n == max)
            return -1;
        if (tis(s, v, k + 1, "[")) {
            at[n] = k + 1;
            g[n++] = 1;
        } else if ((at[n] = cast_use(s, v, k, &bytes)) > 0 && elem && bytes % (int)elem == 0) {
            g[n++] = bytes / (int)elem;
        } else {
            return -1;
        }
    }
    return n;
}

/* padding: the last dimension of the array whose name is token d, plus pad; *decl the new
 * declaration, e.g. "tile[32][33]". One dimension: its index, pad elements a 128-byte row
 * (a[i] as a[(i) + (i) / R * pad]), the array longer by as much */
static char *pad_patch(const char *s, size_t len, const struct ftoks *v, int d, int pad,
                       unsigned elem, char *decl, size_t dsz, char *idx, size_t isz,
                       size_t *outlen)
{
    int last = -1, dims = 0;
    size_t o = bl_fmt(decl, dsz, "%.*s", v->t[d].len, s + v->t[d].pos);
    for (int k = d + 1; tis(s, v, k, "["); k = closing(s, v, k) + 1, dims++) {
        if (closing(s, v, k) < 0)
            return NULL;
        last = k;
    }
    if (dims < 1)
        return NULL;
    struct edit e[MAX_EDITS];
    int from = v->t[last + 1].pos, end = closing(s, v, last), to = v->t[end].pos, n = 1;
    long long rowel = elem ? 128 / elem : 32;
    e[0].at = from;
    e[0].cut = to - from;
    if (dims == 1 && end == last + 2 && v->t[last + 1].kind == 'n') {
        long long nel = strtoll(s + from, NULL, 0);
        bl_fmt(e[0].text, sizeof e[0].text, "%lld", nel + (nel + rowel - 1) / rowel * pad);
    } else if (dims == 1) {
        bl_fmt(e[0].text, sizeof e[0].text, "%.*s + (%.*s) / %lld", to - from, s + from,
               to - from, s + from, rowel);
        if (pad > 1) {
            size_t tl = strlen(e[0].text);
            bl_fmt(e[0].text + tl, sizeof e[0].text - tl, " * %d", pad);
        }
    } else if (end == last + 2 && v->t[last + 1].kind == 'n') {
        long long nel = strtoll(s + from, NULL, 0);
        bl_fmt(e[0].text, sizeof e[0].text, "%lld", nel + pad);
    } else {
        bl_fmt(e[0].text, sizeof e[0].text, "%.*s + %d", to - from, s + from, pad);
    }
    for (int k = d + 1; k < last; k = closing(s, v, k) + 1)
        o += bl_fmt(decl + o, dsz - o, "%.*s", v->t[closing(s, v, k)].pos + 1 - v->t[k].pos,
                    s + v->t[k].pos);
    if (dims == 1) {
        /* every index, a[i] and &a[i] alike, and a vector read through a cast in its own
         * units, where the pad keeps it aligned (a multiple of its elements) */
        int at[MAX_EDITS], g[MAX_EDITS];
        int nu = uses(s, v, d, elem, at, g, MAX_EDITS - 1);
        if (nu <= 0)
            return NULL;
        for (int i = 0; i < nu; i++) {
            int c1 = closing(s, v, at[i]);
            if (c1 < 0 || pad % g[i] || rowel % g[i])
                return NULL;
            struct edit *x = &e[n++];
            int rf = v->t[at[i]].pos + 1, rt = v->t[c1].pos, m = pad / g[i];
            x->at = rf;
            x->cut = rt - rf;
            bl_fmt(x->text, sizeof x->text, "(%.*s) + (%.*s) / %lld", rt - rf, s + rf, rt - rf,
                   s + rf, rowel / g[i]);
            if (m > 1) {
                size_t tl = strlen(x->text);
                bl_fmt(x->text + tl, sizeof x->text - tl, " * %d", m);
            }
            if (strlen(x->text) + 1 >= sizeof x->text)
                return NULL;
        }
        bl_fmt(decl + o, dsz - o, "[%s]", e[0].text);
        bl_fmt(idx, isz, "%.*s[i + i / %lld%s%.0d]", v->t[d].len, s + v->t[d].pos, rowel,
               pad == 1 ? "" : " * ", pad == 1 ? 0 : pad);
        return apply(s, len, e, n, outlen);
    }
    bl_fmt(decl + o, dsz - o, "[%s]", e[0].text);
    idx[0] = 0;
    return apply(s, len, e, 1, outlen);
}

/* the swizzle on every access of the array (every use of its name must be a full index, or
 * for one dimension an index through a cast to a wider element) */
static char *swizzle_patch(const char *s, size_t len, const struct ftoks *v, int d,
                           const struct kp_array *a, char *how, size_t hsz, size_t *outlen)
{
    struct edit e[MAX_EDITS];
    int n = 0;
    long long cols = a->ndims >= 2 ? a->dims[a->ndims - 1] : 128 / (a->elem ? a->elem : 4);
    if (a->ndims < 1 || a->ndims > 2 || cols < 2 || (cols & (cols - 1)) ||
        (a->ndims == 1 && a->dims[0] % cols))
        return NULL;
    const char *name = s + v->t[d].pos;
    int nl = v->t[d].len;
    if (a->ndims == 1) {
        /* chunks of the widest access: each vector stays whole, the chunks of a 128-byte row
         * XORed with the row */
        int at[MAX_EDITS], g[MAX_EDITS], chunk = 1;
        int nu = uses(s, v, d, a->elem, at, g, MAX_EDITS);
        if (nu <= 0)
            return NULL;
        for (int i = 0; i < nu; i++)
            chunk = g[i] > chunk ? g[i] : chunk;
        long long rows = cols / chunk;          /* chunks in a row */
        if (rows < 2 || cols % chunk)
            return NULL;
        for (int i = 0; i < nu; i++) {
            int c1 = closing(s, v, at[i]);
            if (c1 < 0 || chunk % g[i])
                return NULL;
            struct edit *x = &e[n++];
            int rf = v->t[at[i]].pos + 1, rt = v->t[c1].pos, m = chunk / g[i];
            x->at = rf;
            x->cut = rt - rf;
            if (m == 1)
                bl_fmt(x->text, sizeof x->text, "(%.*s) ^ (((%.*s) / %lld) %% %lld)", rt - rf,
                       s + rf, rt - rf, s + rf, cols / g[i], rows);
            else
                bl_fmt(x->text, sizeof x->text, "(%.*s) ^ (((%.*s) / %lld) %% %lld * %d)",
                       rt - rf, s + rf, rt - rf, s + rf, cols / g[i], rows, m);
            if (strlen(x->text) + 1 >= sizeof x->text)
                return NULL;
        }
        if (chunk == 1)
            bl_fmt(how, hsz, "%.*s[i ^ ((i / %lld) %% %lld)]", nl, name, cols, rows);
        else
            bl_fmt(how, hsz, "%.*s[i ^ ((i / %lld) %% %lld * %d)]", nl, name, cols, rows,
                   chunk);
        return apply(s, len, e, n, outlen);
    }
    for (int k = 0; k < v->n; k++) {
        if (k == d || v->t[k].kind != 'i' || v->t[k].len != nl || memcmp(s + v->t[k].pos, name, (size_t)nl) ||
            tis(s, v, k - 1, ".") || tis(s, v, k - 1, "->"))
            continue;
        if (k < d)
            return NULL;                      /* another thing of that name */
        int b1 = k + 1, c1 = tis(s, v, b1, "[") ? closing(s, v, b1) : -1;
        if (c1 < 0 || n == MAX_EDITS)
            return NULL;                      /* used as a pointer: a swizzle would miss it */
        int b2 = c1 + 1, c2 = tis(s, v, b2, "[") ? closing(s, v, b2) : -1;
        if (c2 < 0)
            return NULL;
        struct edit *x = &e[n++];
        int rf = v->t[b1].pos + 1, rt = v->t[c1].pos;
        int cf = v->t[b2].pos + 1, ct = v->t[c2].pos;
        x->at = cf;
        x->cut = ct - cf;
        bl_fmt(x->text, sizeof x->text, "(%.*s) ^ ((%.*s) & %lld)", ct - cf, s + cf, rt - rf,
               s + rf, cols - 1);
        if (strlen(x->text) + 1 >= sizeof x->text)
            return NULL;
    }
    bl_fmt(how, hsz, "%.*s[r][c ^ (r & %lld)]", nl, name, cols - 1);
    return n ? apply(s, len, e, n, outlen) : NULL;
}

/* ---------------------------------------------------------------- checking a candidate */

static int has_array(const struct kp_line *l, const char *name)
{
    char have[sizeof l->arrays + 2], want[80];
    bl_fmt(have, sizeof have, " %s ", l->arrays);
    bl_fmt(want, sizeof want, " %s ", name);
    return strstr(have, want) != NULL;
}

/* the compiled code the lines were read with (NULL: the source alone): a candidate is read
 * with the same instructions per line (nvcc's widening, merging, narrowing) */
static const struct kp_sass *fix_sass;

/* the kernel to execute each proposal of (kp_fixes_exec; NULL: checked by the reading alone),
 * the executions left for the line being fixed, a fault's words told once a line, and 1 when
 * a candidate of the line could not be executed at all (no nvcc) */
#define FIX_EXECS 3
static const char *fix_expr;
static int fix_execs_left, fix_fault_told, fix_unchecked;

/* 1 when text, executed, has line `line` conflict free and no other line of array `name`
 * worse than in r, with *out the outcome in the executed figures (the line's ways, then each
 * other line of the array); 0 with why when the execution faults, leaves the line conflicting
 * or makes another line of the array worse, or when the line has no executions left */
static int executed_ok(const char *text, size_t tlen, const struct gpu_kernel_request *req,
                       const struct kp_result *r, int line, const char *name,
                       struct bl_msg *out, struct bl_msg *why)
{
    if (fix_unchecked || fix_execs_left <= 0) {   /* what stopped the last stops this one */
        if (fix_unchecked)
            bl_msg_set(why, NULL, 0, KP_EXEC_UNCHECKED_TOO);
        else
            bl_msg_set(why, NULL, 0, KP_EXEC_LIMIT, FIX_EXECS);
        return 0;
    }
    fix_execs_left--;
    static struct kp_result p;
    memset(&p, 0, sizeof p);
    int ok = 0, xrc = -1, ran = kp_predict_sass(text, tlen, req, fix_sass, &p, NULL) == 0 &&
                                (xrc = kexec_apply_copy(text, tlen, req, fix_expr, &p)) == 0;
    if (xrc == -2) {            /* not the copy's fault: the fix is unchecked, not wrong */
        fix_unchecked = 1;
        bl_msg_set(why, NULL, 0, KP_EXEC_UNCHECKED, &p.exec_note);
    } else if (!ran && fix_fault_told) {
        bl_msg_set(why, NULL, 0, KP_EXEC_FAULTS_TOO);
    } else if (!ran) {
        fix_fault_told = 1;
        bl_msg_set(why, NULL, 0, KP_EXEC_FAULTS, &p.exec_note);
    } else if (line > p.nlines || p.nlines != r->nlines) {
        bl_msg_set(why, NULL, 0, KP_EXEC_CONFLICTS, line, 0);
    } else if (p.line[line - 1].state == KP_OK && p.line[line - 1].excess > 0) {
        bl_msg_set(why, NULL, 0, KP_EXEC_CONFLICTS, line, p.line[line - 1].ways);
    } else {
        ok = 1;
        bl_msg_set(out, NULL, 0, KP_FIX_BECOMES, line, p.line[line - 1].ways);
    }
    for (int i = 0; ok && i < r->nlines; i++) {   /* the array's other lines, executed */
        const struct kp_line *was = &r->line[i], *now = &p.line[i];
        if (was->line == line || was->state != KP_OK || !has_array(was, name) ||
            now->state == KP_NONE)  /* no executed access there (nvcc merged it) */
            continue;
        if (now->state != KP_OK || now->excess > was->excess) {
            bl_msg_set(why, NULL, 0, KP_EXEC_WORSE, was->line, now->state == KP_OK ? now->ways : 0);
            ok = 0;
            break;
        }
        struct bl_msg before = *out;
        bl_msg_set(out, NULL, 0, now->ways == was->ways ? KP_FIX_AND_STAYS : KP_FIX_AND_BECOMES,
                   &before, was->line, now->ways);
    }
    kp_free(&p);
    return ok;
}

/* the predictions of the edited copies, kept while kp_fixes_exec runs: a padding or swizzle
 * of an array edits every access of it, the same copy for each of its conflicting lines,
 * predicted once (a copy is the same when its bytes and the instructions it is predicted
 * with are); of each, what the checks read: per line its state, wavefronts, excess, ways */
struct lfig {
    enum kp_state state;
    double wavefronts, excess;
    int ways;
};
struct memo {
    char *text;
    size_t len;
    const struct kp_sass *sass;
    int ok, nlines;
    struct lfig *line;
};
#define MEMO 64
static struct memo memo[MEMO];
static int memo_next;

static void memo_clear(void)
{
    for (int i = 0; i < MEMO; i++)
        free(memo[i].text), free(memo[i].line), memset(&memo[i], 0, sizeof memo[i]);
    memo_next = 0;
}

/* the lines of text predicted with sass (kp_predict_sass), each copy once until memo_clear;
 * NULL when that fails */
static const struct memo *predicted(const char *text, size_t tlen,
                                    const struct gpu_kernel_request *req,
                                    const struct kp_sass *sass)
{
    for (int i = 0; i < MEMO; i++)
        if (memo[i].text && memo[i].len == tlen && memo[i].sass == sass &&
            !memcmp(memo[i].text, text, tlen))
            return memo[i].ok ? &memo[i] : NULL;
    static struct kp_result p;
    struct memo m = {NULL, tlen, sass, 0, 0, NULL};
    if (!kp_predict_sass(text, tlen, req, sass, &p, NULL)) {
        m.nlines = p.nlines;
        m.line = malloc(((size_t)p.nlines + 1) * sizeof *m.line);
        for (int i = 0; m.line && i < p.nlines; i++)
            m.line[i] = (struct lfig){p.line[i].state, p.line[i].wavefronts, p.line[i].excess,
                                      p.line[i].ways};
        m.ok = m.line != NULL;
        kp_free(&p);
    }
    m.text = malloc(tlen + 1);
    struct memo *slot = &memo[memo_next];
    if (!m.text) {
        free(m.line);
        return NULL;
    }
    memcpy(m.text, text, tlen);
    free(slot->text), free(slot->line);
    *slot = m;
    memo_next = (memo_next + 1) % MEMO;
    return slot->ok ? slot : NULL;
}

/* 1 when text fixes line `line` without making another line of array `name` worse; the
 * outcome of the lines of the array into *out. When the reading passes it but its execution
 * (fix_expr) does not, 0 with the reason in *why (else why->id stays BL_MSG_NONE). */
static int check(const char *text, size_t tlen, const struct gpu_kernel_request *req,
                 const struct kp_result *r, int line, const char *name, struct bl_msg *out,
                 struct bl_msg *why)
{
    why->id = BL_MSG_NONE;
    const struct memo *pp = predicted(text, tlen, req, fix_sass);
    if (!pp)
        return 0;
    const struct memo p = *pp;
    int ok = p.nlines == r->nlines && p.line[line - 1].state == KP_OK &&
             p.line[line - 1].excess == 0;
    if (ok)
        bl_msg_set(out, NULL, 0, KP_FIX_BECOMES, line, p.line[line - 1].ways);
    for (int i = 0; ok && i < r->nlines; i++) {
        const struct kp_line *was = &r->line[i];
        const struct lfig *now = &p.line[i];
        if (was->line == line || was->state != KP_OK || !has_array(was, name))
            continue;
        if (now->state != KP_OK || now->excess > was->excess) {
            ok = 0;
            break;
        }
        struct bl_msg before = *out;
        bl_msg_set(out, NULL, 0, now->ways == was->ways ? KP_FIX_AND_STAYS : KP_FIX_AND_BECOMES,
                   &before, was->line, now->ways);
    }
    if (ok && fix_expr)             /* the figures of the note: the executed copy's */
        ok = executed_ok(text, tlen, req, r, line, name, out, why);
    return ok;
}

static const struct kp_array *array_of(const struct kp_result *r, const char *name)
{
    for (int i = 0; i < r->narrays; i++)
        if (!strcmp(r->array[i].name, name))
            return &r->array[i];
    return NULL;
}

/* what was tried for a line: two lists, "; " between; the English of each is kept as well
 * (only to tell which arrays were tried already) */
struct tried {
    struct bl_msg t, x;      /* tried and found wanting; not possible, and why */
    char t_en[KP_TEXT], x_en[KP_TEXT];
};

static void tried_add(struct tried *t, int possible, const struct bl_msg *item)
{
    struct bl_msg *list = possible ? &t->t : &t->x;
    char *en = possible ? t->t_en : t->x_en, one[KP_TEXT];
    if (list->id == BL_MSG_NONE) {
        *list = *item;
    } else {
        struct bl_msg before = *list;
        bl_msg_set(list, NULL, 0, BL_LIST_SEMI, &before, item);
    }
    size_t o = strlen(en);
    bl_msg_render(item, BL_LANG_EN, one, sizeof one);
    bl_fmt(en + o, KP_TEXT - o, "%s%s", o ? "; " : "", one);
}

/* a fix found: into the line's fix fields */
static int found(struct kp_line *l, enum kp_fix_kind kind, int pad, const char *name,
                 const struct bl_msg *note)
{
    l->fix_kind = kind;
    l->fix_pad = pad;
    l->fix = *note;
    bl_fmt(l->fix_array, sizeof l->fix_array, "%s", name);
    return 1;
}

/* padding array a (token d declares it) for line l: 1 when it fixes it, else what was tried */
static int try_pad(const char *src, size_t len, const struct ftoks *v, int d,
                   const struct gpu_kernel_request *req, const struct kp_result *r,
                   struct kp_line *l, const struct kp_array *a, const char *name, int made,
                   struct tried *tr)
{
    char what[160], idx[64], list[32] = "";
    struct bl_msg outcome, note, why;
    size_t tlen;
    int pads = 0;
    unsigned rowel = a->elem ? 128 / a->elem : 32;
    for (int pad = 1; pad <= 8; pad++) {
        char *t = pad_patch(src, len, v, d, pad, a->elem, what, sizeof what, idx, sizeof idx,
                            &tlen);
        if (!t)
            continue;               /* not this pad: a vector's alignment, say */
        pads = pad;
        size_t tl = strlen(list);
        bl_fmt(list + tl, sizeof list - tl, "%s%d", tl ? ", " : "", pad);
        int ok = check(t, tlen, req, r, l->line, name, &outcome, &why);
        free(t);
        if (!ok && why.id != BL_MSG_NONE) {
            bl_msg_set(&note, NULL, 0, KP_TRIED_PAD_EXEC, what, &why);
            tried_add(tr, 1, &note);
        }
        if (ok && idx[0])
            bl_msg_set(&note, NULL, 0, KP_NOTE_PAD_INDEXED, what, idx, &outcome);
        else if (ok)
            bl_msg_set(&note, NULL, 0, KP_NOTE_PAD, what, &outcome);
        if (ok)
            return found(l, KP_FIX_PAD, pad, name, &note);
    }
    if (pads && a->ndims >= 2) {
        bl_msg_set(&note, NULL, 0, KP_TRIED_PAD_ROWS, name);
    } else if (pads) {
        const char *by = strlen(list) > 16 ? "1-8" : list;    /* "4, 8": whole float4s */
        bl_msg_set(&note, NULL, 0, KP_TRIED_PAD_INDEX, name, by, name, rowel);
    } else {
        bl_msg_set(&note, NULL, 0, made ? KP_TRIED_PAD_POINTER : KP_TRIED_PAD_CAST, name);
    }
    tried_add(tr, pads > 0, &note);
    return 0;
}

/* an XOR swizzle of array a for line l: 1 when it fixes it, else what was tried */
static int try_swizzle(const char *src, size_t len, const struct ftoks *v, int d,
                       const struct gpu_kernel_request *req, const struct kp_result *r,
                       struct kp_line *l, const struct kp_array *a, const char *name, int made,
                       struct tried *tr)
{
    char what[160];
    struct bl_msg outcome, note, why;
    size_t tlen;
    char *t = swizzle_patch(src, len, v, d, a, what, sizeof what, &tlen);
    if (t) {
        int ok = check(t, tlen, req, r, l->line, name, &outcome, &why);
        free(t);
        if (ok) {
            bl_msg_set(&note, NULL, 0, KP_NOTE_SWIZZLE, name, what, &outcome);
            return found(l, KP_FIX_SWIZZLE, 0, name, &note);
        }
        if (why.id != BL_MSG_NONE)
            bl_msg_set(&note, NULL, 0, KP_TRIED_SWIZZLE_EXEC, what, &why);
        else
            bl_msg_set(&note, NULL, 0, KP_TRIED_SWIZZLE, what);
    } else if (made) {
        bl_msg_set(&note, NULL, 0, KP_TRIED_SWIZZLE_POINTER, name);
    } else if (a->ndims == 1 && a->elem && 128 % a->elem == 0) {
        bl_msg_set(&note, NULL, 0, KP_TRIED_SWIZZLE_ROWS, name);
    } else {
        bl_msg_set(&note, NULL, 0, KP_TRIED_SWIZZLE_POW2, name);
    }
    tried_add(tr, t != NULL, &note);
    return 0;
}

/* ---------------------------------------------------------------- element width */

/* tokens [*b, *e) of line `line` (the first token on a later line for both when it has none) */
static void line_toks(const struct ftoks *v, int line, int *b, int *e)
{
    int lo = 0, hi = v->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (v->t[mid].line < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    *b = lo;
    for (hi = v->n; lo < hi;) {
        int mid = lo + (hi - lo) / 2;
        if (v->t[mid].line <= line)
            lo = mid + 1;
        else
            hi = mid;
    }
    *e = lo;
}

static int same_toks(const char *s, const struct ftoks *v, int a, int b, int n)
{
    for (int i = 0; i < n; i++)
        if (v->t[a + i].len != v->t[b + i].len ||
            memcmp(s + v->t[a + i].pos, s + v->t[b + i].pos, (size_t)v->t[a + i].len))
            return 0;
    return 1;
}

static int tnum(const char *s, const struct ftoks *v, int k)
{
    return k >= 0 && k < v->n && v->t[k].kind == 'n' ? atoi(s + v->t[k].pos) : -1;
}

/* index tokens [a, e) as K * X or X * K, X one token or a parenthesized group: X's first
 * token and count into *x, *xn; K, or -1 */
static int times_k(const char *s, const struct ftoks *v, int a, int e, int *x, int *xn)
{
    int k = tnum(s, v, a);
    if (k > 0 && tis(s, v, a + 1, "*")) {
        *x = a + 2;
    } else if ((k = tnum(s, v, e - 1)) > 0 && tis(s, v, e - 2, "*")) {
        *x = a;
        e -= 2;
    } else {
        return -1;
    }
    *xn = e - *x;
    if (*xn == 1 || (tis(s, v, *x, "(") && closing(s, v, *x) == *x + *xn - 1))
        return k;
    return -1;
}

static void copy_toks(const char *s, const struct ftoks *v, int a, int n, char *out, size_t size)
{
    int from = v->t[a].pos, to = v->t[a + n - 1].pos + v->t[a + n - 1].len;
    bl_fmt(out, size, "%.*s", to - from, s + from);
}

/* line `line`'s predicted wavefronts in src with the edits ed[0..n) applied (the copy compiled
 * anew and predicted from its own SASS), or -1 when that fails or the line is not predicted */
static double edited_wavefronts(const char *src, size_t len, struct edit *ed, int n,
                                const struct gpu_kernel_request *req, int line)
{
    size_t tlen;
    char *t = apply(src, len, ed, n, &tlen);
    const struct memo *p = t ? predicted(t, tlen, req, NULL) : NULL;
    double wf = -1;
    if (p && p->nlines >= line && p->line[line - 1].state == KP_OK)
        wf = p->line[line - 1].wavefronts;
    free(t);
    return wf;
}
/* a wider element for line l of array `name` (token d declares it): each lane reading K = 2 or
 * 4 consecutive elements as separate accesses, a[K * X], a[K * X + 1], ... on the line, or
 * a[K * X + j] in `for (int j = 0; j < K; j++)`, read as one K-wide vector instead, when the
 * model gives the line fewer wavefronts that way. 1 when proposed, else what was tried */
static int try_wider(const char *src, size_t len, const struct ftoks *v, int d,
                     const struct gpu_kernel_request *req, struct kp_line *l,
                     const struct kp_array *a, const char *name, struct tried *tr)
{
    char x[64], vec[16], cand[160];
    struct bl_msg note;
    const char *ty = tis(src, v, d - 1, "float") ? "float" : tis(src, v, d - 1, "int") ? "int"
                     : tis(src, v, d - 1, "unsigned") ? "uint" : NULL;
    int b, e, acc[8], nacc = 0;
    line_toks(v, l->line, &b, &e);
    for (int k = b; k < e && nacc < 8; k++)
        if (v->t[k].kind == 'i' && tis(src, v, k, name) && tis(src, v, k + 1, "[") &&
            !tis(src, v, k - 1, ".") && !tis(src, v, k - 1, "->"))
            acc[nacc++] = k;
    /* the pattern: K and the accesses' base K * X */
    int K = -1, xa = 0, xn = 0, bound = -1, loopvar = -1;
    if (ty && a->ndims == 1 && a->elem == 4 && nacc >= 1) {
        int o = acc[0] + 1, c = closing(src, v, o);
        if (nacc == 1 && c > o + 3 && tis(src, v, c - 2, "+") && v->t[c - 1].kind == 'i') {
            /* a[K * X + j] in a loop on j from 0 below K, its header before the line */
            K = times_k(src, v, o + 1, c - 2, &xa, &xn);
            loopvar = c - 1;
            for (int q = b - 1; K > 0 && q >= 0 && q >= b - 40 && bound < 0; q--)
                if (tis(src, v, q, "for") && tis(src, v, q + 1, "(") && tis(src, v, q + 2, "int") &&
                    same_toks(src, v, q + 3, loopvar, 1) && tis(src, v, q + 4, "=") &&
                    tnum(src, v, q + 5) == 0 && tis(src, v, q + 6, ";") &&
                    same_toks(src, v, q + 7, loopvar, 1) && tis(src, v, q + 8, "<") &&
                    tnum(src, v, q + 9) == K && tis(src, v, q + 10, ";"))
                    bound = q + 9;
            if (bound < 0)
                K = -1;
        } else if (nacc >= 2 && c > o) {
            K = times_k(src, v, o + 1, c, &xa, &xn);
            int bn = c - o - 1;
            if (K != nacc)
                K = -1;
            for (int m = 1; K > 0 && m < nacc; m++) {
                int om = acc[m] + 1, cm = closing(src, v, om);
                if (cm - om - 1 != bn + 2 || !same_toks(src, v, o + 1, om + 1, bn) ||
                    !tis(src, v, om + 1 + bn, "+") || tnum(src, v, om + 2 + bn) != m)
                    K = -1;
            }
        }
    }
    if (K != 2 && K != 4) {
        bl_msg_set(&note, NULL, 0, KP_TRIED_WIDER_NONE, name);
        tried_add(tr, 0, &note);
        return 0;
    }
    copy_toks(src, v, xa, xn, x, sizeof x);
    bl_fmt(vec, sizeof vec, "%s%d", ty, K);
    if (l->nsass > 0 && strstr(l->sass, "LDS.")) {
        bl_msg_set(&note, NULL, 0, KP_TRIED_WIDER_ALREADY, name, K, l->sass);
        tried_add(tr, 0, &note);
        return 0;
    }
    /* the candidate: the first access as the vector's, the others 0, the loop once */
    struct edit ed[8];
    int n = 0;
    int o = acc[0] + 1, c = closing(src, v, o);
    ed[n].at = v->t[acc[0]].pos;
    ed[n].cut = v->t[c].pos + 1 - ed[n].at;
    bl_fmt(ed[n++].text, sizeof ed[0].text, "reinterpret_cast<%s *>(%s)[%s].x", vec, name, x);
    for (int m = 1; m < nacc; m++) {
        int cm = closing(src, v, acc[m] + 1);
        ed[n].at = v->t[acc[m]].pos;
        ed[n].cut = v->t[cm].pos + 1 - ed[n].at;
        bl_fmt(ed[n++].text, sizeof ed[0].text, "0");
    }
    if (bound >= 0) {
        ed[n].at = v->t[bound].pos;
        ed[n].cut = v->t[bound].len;
        bl_fmt(ed[n++].text, sizeof ed[0].text, "1");
    }
    double wf = edited_wavefronts(src, len, ed, n, req, l->line);
    bl_fmt(cand, sizeof cand, "%s v = reinterpret_cast<const %s *>(%s)[%s]", vec, vec, name, x);
    if (wf >= 0 && wf < l->wavefronts) {
        bl_msg_set(&note, NULL, 0, KP_NOTE_WIDER, name, K, vec, cand, name, 4 * K, 4 * K,
                   l->line, wf, l->wavefronts);
        return found(l, KP_FIX_NONE, 0, name, &note);
    }
    if (wf >= 0)
        bl_msg_set(&note, NULL, 0, KP_TRIED_WIDER_NO_FEWER, cand, wf);
    else
        bl_msg_set(&note, NULL, 0, KP_TRIED_WIDER_UNKNOWN, cand);
    tried_add(tr, 1, &note);
    return 0;
}

/* a narrower element for line l of array `name`: a float2 / float4 read through a cast,
 * reinterpret_cast<float4 *>(a)[j], read as its 2 or 4 floats, a[(j) * 4 + c], when the model
 * gives the line fewer wavefronts that way. 1 when proposed; else what was tried, or nothing
 * when the line reads no vector of the array */
static int try_narrower(const char *src, size_t len, const struct ftoks *v,
                        const struct gpu_kernel_request *req, struct kp_line *l,
                        const struct kp_array *a, const char *name, struct tried *tr)
{
    int b, e, bytes = 0, o = -1, k;
    line_toks(v, l->line, &b, &e);
    for (k = b; k < e && o < 0; k++)
        if (tis(src, v, k, name) && (o = cast_use(src, v, k, &bytes)) > 0 &&
            (bytes != 8 && bytes != 16))
            o = -1;
    if (o < 0 || a->ndims != 1 || a->elem != 4)
        return 0;
    k--;
    int start = -1;
    for (int q = k - 1; q >= 0 && q >= k - 8 && start < 0; q--)
        if (tis(src, v, q, "reinterpret_cast"))
            start = q;
        else if (tis(src, v, q, "(") && tis(src, v, q - 1, "("))
            start = q - 1;
    int c = closing(src, v, o);
    if (start < 0 || c < 0 || (l->nsass > 0 && !strstr(l->sass, "LDS.")))
        return 0;                   /* nvcc already reads it narrower */
    int n = bytes / 4;
    char j[64], text[160];
    struct bl_msg note;
    copy_toks(src, v, o + 1, c - o - 1, j, sizeof j);
    struct edit ed;
    ed.at = v->t[start].pos;
    ed.cut = v->t[c].pos + 1 - ed.at;
    size_t w = bl_fmt(ed.text, sizeof ed.text, "make_float%d(", n);
    for (int m = 0; m < n; m++)
        w += bl_fmt(ed.text + w, sizeof ed.text - w, "%s%s[(%s) * %d + %d]", m ? ", " : "", name,
                    j, n, m);
    bl_fmt(ed.text + w, sizeof ed.text - w, ")");
    bl_fmt(text, sizeof text, "%s", ed.text);
    double wf = edited_wavefronts(src, len, &ed, 1, req, l->line);
    if (wf >= 0 && wf < l->wavefronts) {
        bl_msg_set(&note, NULL, 0, KP_NOTE_NARROWER, bytes, n, text, l->line, wf, l->wavefronts);
        return found(l, KP_FIX_NONE, 0, name, &note);
    }
    if (wf >= 0)
        bl_msg_set(&note, NULL, 0, KP_TRIED_NARROWER_NO_BETTER, name, bytes, n, wf);
    else
        bl_msg_set(&note, NULL, 0, KP_TRIED_NARROWER_UNKNOWN, name, bytes, n);
    tried_add(tr, 1, &note);
    return 0;
}

/* try the fixes for one array of a line: 1 when one was found; what was tried into *tr. Two
 * dimensions: padding the rows first; one: the swizzle first (the array keeps its size),
 * then padding the index */
static int try_array(const char *src, size_t len, const struct ftoks *v,
                     const struct gpu_kernel_request *req, const struct kp_result *r,
                     struct kp_line *l, const char *name, struct tried *tr)
{
    const struct kp_array *a = array_of(r, name);
    int d = find_decl(src, v, name);
    if (!a || d < 0 || a->dynamic)
        return 0;
    int at[MAX_EDITS], g[MAX_EDITS];
    int made = uses(src, v, d, a->elem, at, g, MAX_EDITS) < 0;   /* a pointer made of it */
    if (a->ndims >= 2)
        return try_pad(src, len, v, d, req, r, l, a, name, made, tr) ||
               try_swizzle(src, len, v, d, req, r, l, a, name, made, tr);
    return try_swizzle(src, len, v, d, req, r, l, a, name, made, tr) ||
           try_pad(src, len, v, d, req, r, l, a, name, made, tr);
}

void kp_fixes_exec(const char *src, size_t len, const struct gpu_kernel_request *req,
                   const struct kp_sass *sass, const char *name_expr,
                   const unsigned char *only, struct kp_result *r)
{
    fix_sass = sass;
    fix_expr = name_expr;
    memo_clear();
    struct ftoks v;
    if (lex(src, len, &v)) {
        free(v.t);
        return;
    }
    for (int i = 0; i < r->nlines; i++) {
        struct kp_line *l = &r->line[i];
        if (l->state != KP_OK || l->excess <= 0 || (only && !only[i]))
            continue;
        fix_execs_left = FIX_EXECS;
        fix_fault_told = fix_unchecked = 0;
        char names[sizeof l->arrays + sizeof l->worst + 2];
        bl_fmt(names, sizeof names, "%s %s", l->worst, l->arrays);   /* the worst one first */
        int found = 0, declared = 0;
        struct tried tr;
        memset(&tr, 0, sizeof tr);
        {   /* a wider element first: one load instead of K, the conflicts with it */
            const struct kp_array *a = array_of(r, l->worst);
            int d = find_decl(src, &v, l->worst);
            if (a && d >= 0 && !a->dynamic)
                found = try_wider(src, len, &v, d, req, l, a, l->worst, &tr) ||
                        try_narrower(src, len, &v, req, l, a, l->worst, &tr);
        }
        for (char *save = NULL, *n = strtok_r(names, " ", &save); n && !found;
             n = strtok_r(NULL, " ", &save)) {
            const struct kp_array *a = array_of(r, n);
            char seen[2 * KP_TEXT + 2];
            bl_fmt(seen, sizeof seen, "%s %s", tr.t_en, tr.x_en);
            if (declared && strstr(seen, n))
                continue;                        /* the worst array again */
            declared |= a && !a->dynamic && find_decl(src, &v, n) >= 0;
            found = try_array(src, len, &v, req, r, l, n, &tr);
        }
        if (found)
            continue;
        if (declared) {
            struct bl_msg head;
            if ((l->fix_unchecked = fix_unchecked))  /* not "no fix found": none was checked */
                bl_msg_set(&head, NULL, 0, KP_NO_FIX_UNCHECKED, l->line, &tr.t);
            else if (tr.t.id != BL_MSG_NONE)
                bl_msg_set(&head, NULL, 0, KP_NO_FIX_TRIED, &tr.t, l->line);
            else
                bl_msg_set(&head, NULL, 0, KP_NO_FIX_LINE, l->line);
            if (tr.x.id != BL_MSG_NONE)
                bl_msg_set(&l->fix, NULL, 0, KP_NO_FIX_NOT_POSSIBLE, &head, &tr.x);
            else
                l->fix = head;
        } else {
            bl_msg_set(&l->fix, NULL, 0, KP_NO_FIX_NOT_SHARED, l->worst);
        }
    }
    memo_clear();
    fix_expr = NULL;
    free(v.t);
}

char *kp_patch(const char *src, size_t len, const struct kp_result *r, int line,
               size_t *outlen)
{
    if (line < 1 || line > r->nlines || r->line[line - 1].fix_kind == KP_FIX_NONE)
        return NULL;
    const struct kp_line *l = &r->line[line - 1];
    struct ftoks v;
    char what[160], idx[64];
    char *out = NULL;
    if (lex(src, len, &v) == 0) {
        int d = find_decl(src, &v, l->fix_array);
        const struct kp_array *a = array_of(r, l->fix_array);
        if (d >= 0 && a && l->fix_kind == KP_FIX_PAD)
            out = pad_patch(src, len, &v, d, l->fix_pad, a->elem, what, sizeof what, idx,
                            sizeof idx, outlen);
        else if (d >= 0 && a)
            out = swizzle_patch(src, len, &v, d, a, what, sizeof what, outlen);
    }
    free(v.t);
    return out;
}
