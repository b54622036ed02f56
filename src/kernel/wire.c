/* wire.c: what the job and the measuring process exchange: the request (with the
 * source and the caller's directory), frames (hello, phase, result) and the result's arrays;
 * the result helpers both sides use (first error wins, files, per-line sums);; The two sides are the same
 * binary, so structs travel as they are, checked for size on arrival. Pure C: no CUDA, no
 * curses; never prints. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernel.h"

/* ---- results ---- */

void gpu_kernel_note(struct gpu_kernel_result *res, const struct bl_err *e)
{
    snprintf(res->counters_note, sizeof res->counters_note, "%s", e->msg);
    res->counters_msg = e->why;
}

void gpu_kernel_result_done(struct gpu_kernel_result *res)
{
    if (!res)
        return;
    free(res->diags);
    free(res->files);
    free(res->insts);
    free(res->lines);
    free(res->pats);
    res->diags = NULL;
    res->files = NULL;
    res->insts = NULL;
    res->lines = NULL;
    res->pats = NULL;
    res->ndiags = res->nfiles = res->ninsts = res->nlines = res->npats = 0;
}

int kres_add_file(struct gpu_kernel_result *res, const char *name)
{
    for (int i = 0; i < res->nfiles; i++)
        if (!strcmp(res->files[i], name))
            return i;
    char (*w)[GPU_KERNEL_TEXT] = realloc(res->files, (size_t)(res->nfiles + 1) * sizeof *w);
    if (!w)
        return -1;
    res->files = w;
    snprintf(w[res->nfiles], sizeof w[0], "%s", name);
    return res->nfiles++;
}

static int cmp_inst(const void *a, const void *b)
{
    const struct gpu_kernel_inst *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Instructions by (file, line), then pc: the order their lines are summed in. */
static int cmp_inst_line(const void *a, const void *b)
{
    const struct gpu_kernel_inst *x = *(const struct gpu_kernel_inst *const *)a;
    const struct gpu_kernel_inst *y = *(const struct gpu_kernel_inst *const *)b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

int kres_build_lines(struct gpu_kernel_result *res)
{
    qsort(res->insts, (size_t)res->ninsts, sizeof res->insts[0], cmp_inst);
    free(res->lines);
    res->lines = NULL;
    res->nlines = 0;
    memset(&res->totals, 0, sizeof res->totals);
    if (res->ninsts == 0)
        return 0;
    /* sorted by line, not searched: a kernel of many instructions takes n log n */
    const struct gpu_kernel_inst **by = malloc((size_t)res->ninsts * sizeof *by);
    res->lines = calloc((size_t)res->ninsts, sizeof res->lines[0]);
    if (!by || !res->lines) {
        free(by);
        free(res->lines);
        res->lines = NULL;
        return -1;
    }
    for (int i = 0; i < res->ninsts; i++)
        by[i] = &res->insts[i];
    qsort(by, (size_t)res->ninsts, sizeof by[0], cmp_inst_line);
    for (int i = 0; i < res->ninsts; i++) {
        const struct gpu_kernel_inst *in = by[i];
        struct gpu_kernel_line *l = res->nlines ? &res->lines[res->nlines - 1] : NULL;
        if (!l || l->file != in->file || l->line != in->line) {
            l = &res->lines[res->nlines++];
            l->file = in->file;
            l->line = in->line;
            l->ideal_known = 1;
        }
        l->ninst++;
        l->inst += in->inst;
        l->wavefronts += in->wavefronts;
        l->ideal += in->ideal;
        if (!in->ideal_known)
            l->ideal_known = 0;
    }
    for (int i = 0; i < res->ninsts; i++) {  /* the totals in pc order, as before */
        const struct gpu_kernel_inst *in = &res->insts[i];
        struct gpu_kernel_totals *t = &res->totals;
        t->inst += in->inst;
        t->wavefronts += in->wavefronts;
        t->ideal += in->ideal;
        if (in->op >= 0 && in->op < GPU_KOP_COUNT) {
            t->op_inst[in->op] += in->inst;
            t->op_wavefronts[in->op] += in->wavefronts;
        }
    }
    free(by);
    for (int k = 0; k < res->nlines; k++) {
        struct gpu_kernel_line *l = &res->lines[k];
        l->excess = l->wavefronts - l->ideal;
        l->ways = l->ideal > 0 ? l->wavefronts / l->ideal : 0;
    }
    res->totals.excess = res->totals.wavefronts - res->totals.ideal;
    return 0;
}

const char *gpu_kernel_op_name(int op)
{
    static const char *names[GPU_KOP_COUNT] = {"ld", "st", "atom", "ldsm", "stsm", "ldgsts", "gmma"};
    return op >= 0 && op < GPU_KOP_COUNT ? names[op] : "?";
}

const char *gpu_kernel_phase_name(enum gpu_kernel_phase phase)
{
    switch (phase) {
    case GPU_KPHASE_START: return "starting";
    case GPU_KPHASE_DEVICE: return "opening the GPU";
    case GPU_KPHASE_COMPILE: return "compiling";
    case GPU_KPHASE_SETUP: return "preparing the launch";
    case GPU_KPHASE_WAIT: return "waiting for the GPU (other banklab processes are measuring)";
    case GPU_KPHASE_RUN: return "running the kernel";
    case GPU_KPHASE_COLLECT: return "reading the counters";
    case GPU_KPHASE_DONE: return "done";
    }
    return "?";
}

/* ---- wire ---- */

ssize_t kwire_write(int fd, const void *p, size_t n)
{
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == ENOTSOCK)
        w = write(fd, p, n);
    return w;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = kwire_write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

struct wire_request {
    struct gpu_kernel_request req;
    char cwd[PATH_MAX];          /* the caller's directory: relative paths are from there */
    double t_start;              /* CLOCK_MONOTONIC ms when the job started */
    uint64_t len;
};

unsigned char *kwire_pack_request(const struct gpu_kernel_request *req, const char *src,
                                  size_t len, size_t *n)
{
    struct wire_request w;
    memset(&w, 0, sizeof w);
    w.req = *req;
    if (!getcwd(w.cwd, sizeof w.cwd))
        w.cwd[0] = '\0';
    w.t_start = bl_now_ms();
    w.len = len;
    unsigned char *b = malloc(sizeof w + len);
    if (!b)
        return NULL;
    memcpy(b, &w, sizeof w);
    memcpy(b + sizeof w, src, len);
    *n = sizeof w + len;
    return b;
}

int kwire_put_request(int fd, const struct gpu_kernel_request *req, const char *src, size_t len)
{
    size_t n;
    unsigned char *b = kwire_pack_request(req, src, len, &n);
    int r = b ? write_all(fd, b, n) : -1;
    free(b);
    return r;
}

int kwire_get_request(int fd, struct gpu_kernel_request *req, char **src, size_t *len,
                      char cwd[PATH_MAX], double *t_start)
{
    struct wire_request w;
    if (read_all(fd, &w, sizeof w) || w.len > GPU_KERNEL_MAX_SOURCE)
        return -1;
    char *s = malloc((size_t)w.len + 1);
    if (!s)
        return -1;
    if (read_all(fd, s, (size_t)w.len)) {
        free(s);
        return -1;
    }
    s[w.len] = '\0';
    *req = w.req;
    req->path[sizeof req->path - 1] = '\0';
    req->name[sizeof req->name - 1] = '\0';
    req->cache_dir[sizeof req->cache_dir - 1] = '\0';
    if (req->nflags < 0 || req->nflags > GPU_KERNEL_MAX_FLAGS)
        req->nflags = 0;
    for (int i = 0; i < GPU_KERNEL_MAX_FLAGS; i++)
        req->flags[i][GPU_KERNEL_TEXT - 1] = '\0';
    *src = s;
    *len = (size_t)w.len;
    w.cwd[sizeof w.cwd - 1] = '\0';
    memcpy(cwd, w.cwd, PATH_MAX);
    if (t_start)
        *t_start = w.t_start;
    return 0;
}

int kwire_frame(int fd, uint32_t tag, const void *p, size_t n)
{
    uint32_t head[2] = {tag, (uint32_t)n};
    unsigned char *b = n <= 0x7fffffffu ? malloc(sizeof head + n) : NULL;
    if (!b)
        return -1;
    memcpy(b, head, sizeof head);
    if (n)
        memcpy(b + sizeof head, p, n);
    int r = write_all(fd, b, sizeof head + n);
    free(b);
    return r;
}

void kwire_hello(int fd, int warm)
{
    int32_t p[2] = {(int32_t)getpid(), warm};
    (void)kwire_frame(fd, KWIRE_HELLO, p, sizeof p);
}

void kwire_phase(int fd, enum gpu_kernel_phase phase)
{
    int32_t p = (int32_t)phase;
    (void)kwire_frame(fd, KWIRE_PHASE, &p, sizeof p);
}

int kwire_put_result(int fd, const struct gpu_kernel_result *res)
{
    struct gpu_kernel_result head = *res;
    head.diags = NULL;
    head.files = NULL;
    head.insts = NULL;
    head.lines = NULL;
    head.pats = NULL;
    size_t np = (size_t)res->npats * sizeof res->pats[0];
    size_t nd = (size_t)res->ndiags * sizeof res->diags[0];
    size_t nf = (size_t)res->nfiles * sizeof res->files[0];
    size_t ni = (size_t)res->ninsts * sizeof res->insts[0];
    size_t nl = (size_t)res->nlines * sizeof res->lines[0];
    size_t total = sizeof head + nd + nf + ni + nl + np;
    unsigned char *buf = malloc(total);
    if (!buf)
        return -1;
    unsigned char *p = buf;
    memcpy(p, &head, sizeof head);
    p += sizeof head;
    if (nd)
        memcpy(p, res->diags, nd);
    p += nd;
    if (nf)
        memcpy(p, res->files, nf);
    p += nf;
    if (ni)
        memcpy(p, res->insts, ni);
    p += ni;
    if (nl)
        memcpy(p, res->lines, nl);
    p += nl;
    if (np)
        memcpy(p, res->pats, np);
    int r = kwire_frame(fd, KWIRE_RESULT, buf, total);
    free(buf);
    return r;
}

/* count items of each bytes from *p into a new array *out (NULL when count is 0). 0, or -1. */
static int take(const unsigned char **p, size_t *left, int count, size_t each, void *out)
{
    void *m = NULL;
    if (count < 0 || count > 1000000 || (size_t)count * each > *left)
        return -1;
    if (count && !(m = malloc((size_t)count * each)))
        return -1;
    if (count)
        memcpy(m, *p, (size_t)count * each);
    *p += (size_t)count * each;
    *left -= (size_t)count * each;
    memcpy(out, &m, sizeof m);
    return 0;
}

/* ---- the numbers of a result from another process, checked as a recording's are
 * (src/store/recording.c): finite, in range, whole where they count something ---- */

#define KR_COUNT 1e15      /* warp-level executions, wavefronts: a recording's instruction counts */
#define KR_MS 1e7          /* milliseconds: a recording's times */
#define KR_PER_INST 65536  /* wavefronts per warp instruction, ways: a recording's counters */

/* One number of a result: 0 when lo <= v <= hi (NaN is not), else -1 with why naming it. */
static int num_in(struct bl_err *why, const char *what, int i, const char *field, double v,
                  double lo, double hi)
{
    if (v >= lo && v <= hi)
        return 0;
    char name[96];
    if (i >= 0 && *what)
        bl_fmt(name, sizeof name, "%s[%d].%s", what, i, field);     /* insts[3].wavefronts */
    else if (i >= 0)
        bl_fmt(name, sizeof name, "%s[%d]", field, i);              /* grid[1] */
    else
        bl_fmt(name, sizeof name, "%s%s%s", what, *what ? "." : "", field); /* totals.ideal */
    return bl_fail(why, GPU_KERNEL_ECRASH, BL_NOWHERE, KRN_CHILD_BAD_NUMBER, name, v, lo, hi);
}

/* kres_check: the numbers of a result from another process as a recording's are checked:
 * finite, counts in 0..1e15, times within 1e7 ms, flags 0 or 1, kinds and phases known.
 * 0, or -1 with why naming the first one out of range (GPU_KERNEL_ECRASH). */
static int kres_check(const struct gpu_kernel_result *r, struct bl_err *why)
{
    int bad = 0;
#define N(what, i, field, v, lo, hi) (bad |= num_in(why, what, i, field, (double)(v), lo, hi))
    N("", -1, "status", r->err.status, GPU_KERNEL_OK, GPU_KERNEL_ESYSTEM);
    N("", -1, "phase", r->phase, GPU_KPHASE_START, GPU_KPHASE_DONE);
    for (int k = 0; k < 3; k++) {
        N("", k, "grid", r->grid[k], 0, k ? 65535 : 2147483647.0);
        N("", k, "block", r->block[k], 0, 1024);
    }
    N("", -1, "smem", r->smem, 0, 1u << 30);
    N("", -1, "static_smem", r->static_smem, 0, 1u << 30);
    N("", -1, "registers", r->regs, 0, 65536);
    N("", -1, "has_counters", r->has_counters, 0, 1);
    for (int i = 0; i < r->ndiags; i++) {
        N("diags", i, "line", r->diags[i].line, 0, INT_MAX);
        N("diags", i, "col", r->diags[i].col, 0, INT_MAX);
        N("diags", i, "error", r->diags[i].error, 0, 1);
    }
    for (int i = 0; i < r->npats && !bad; i++) {
        const struct gpu_kernel_pattern *q = &r->pats[i];
        N("pats", i, "slot", q->slot, -1, GPU_KERNEL_PATS - 1);
        N("pats", i, "op", q->op, 0, GPU_KOP_COUNT - 1);
        N("pats", i, "width", q->width, 1, 16);
        N("pats", i, "matrices", q->matrices, 0, 4);
        N("pats", i, "wavefronts", q->wavefronts, 0, 1024);
    }
    for (int i = 0; i < r->ninsts && !bad; i++) {
        const struct gpu_kernel_inst *in = &r->insts[i];
        N("insts", i, "line", in->line, 0, INT_MAX);
        N("insts", i, "op", in->op, 0, GPU_KOP_COUNT - 1);
        N("insts", i, "bytes", in->bytes, 0, 1024);
        N("insts", i, "ideal_known", in->ideal_known, 0, 1);
        N("insts", i, "inst", in->inst, 0, KR_COUNT);
        N("insts", i, "wavefronts", in->wavefronts, 0, KR_COUNT);
        N("insts", i, "ideal", in->ideal, 0, KR_COUNT);
    }
    for (int i = 0; i < r->nlines && !bad; i++) {
        const struct gpu_kernel_line *l = &r->lines[i];
        N("lines", i, "line", l->line, 0, INT_MAX);
        N("lines", i, "ninst", l->ninst, 0, INT_MAX);
        N("lines", i, "ideal_known", l->ideal_known, 0, 1);
        N("lines", i, "inst", l->inst, 0, KR_COUNT);
        N("lines", i, "wavefronts", l->wavefronts, 0, KR_COUNT);
        N("lines", i, "ideal", l->ideal, 0, KR_COUNT);
        N("lines", i, "excess", l->excess, -KR_COUNT, KR_COUNT);
        N("lines", i, "ways", l->ways, 0, KR_PER_INST);
    }
    const struct gpu_kernel_totals *t = &r->totals;
    N("totals", -1, "inst", t->inst, 0, KR_COUNT);
    N("totals", -1, "wavefronts", t->wavefronts, 0, KR_COUNT);
    N("totals", -1, "ideal", t->ideal, 0, KR_COUNT);
    N("totals", -1, "excess", t->excess, -KR_COUNT, KR_COUNT);
    for (int k = 0; k < GPU_KOP_COUNT; k++) {
        N("totals.op_inst", -1, gpu_kernel_op_name(k), t->op_inst[k], 0, KR_COUNT);
        N("totals.op_wavefronts", -1, gpu_kernel_op_name(k), t->op_wavefronts[k], 0, KR_COUNT);
    }
    if (r->has_counters) {   /* -1: not read */
        const struct gpu_kernel_counters *c = &r->counters;
        N("counters", -1, "wavefronts_ld", c->wavefronts_ld, -1, KR_COUNT);
        N("counters", -1, "wavefronts_st", c->wavefronts_st, -1, KR_COUNT);
        N("counters", -1, "conflicts_ld", c->conflicts_ld, -1, KR_COUNT);
        N("counters", -1, "conflicts_st", c->conflicts_st, -1, KR_COUNT);
        N("counters", -1, "inst_ld", c->inst_ld, -1, KR_COUNT);
        N("counters", -1, "inst_st", c->inst_st, -1, KR_COUNT);
        N("counters", -1, "wavefronts", c->wavefronts, -1, KR_COUNT);
    }
    const struct gpu_kernel_timing *m = &r->timing;
    const double ms[] = {m->start, m->init, m->context, m->compile, m->load, m->wait, m->cupti,
                         m->run, m->collect, m->counters, m->total};
    static const char *const ms_name[] = {"start", "init", "context", "compile", "load", "wait",
                                          "cupti", "run", "collect", "counters", "total"};
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) /* a clock's difference: may be < 0 */
        N("timing", -1, ms_name[k], ms[k], -KR_MS, KR_MS);
    N("timing", -1, "cache_hit", m->cache_hit, 0, 1);
    N("timing", -1, "warm", m->warm, 0, 1);
#undef N
    return bad ? -1 : 0;
}

int kwire_get_result(const unsigned char *p, size_t n, struct gpu_kernel_result *res,
                     struct bl_err *why)
{
    memset(res, 0, sizeof *res);
    if (n < sizeof *res)
        return bl_fail(why, GPU_KERNEL_ECRASH, BL_NOWHERE, KRN_CHILD_NONSENSE);
    struct gpu_kernel_result head;
    memcpy(&head, p, sizeof head);
    p += sizeof head;
    n -= sizeof head;
    *res = head;
    res->diags = NULL;
    res->files = NULL;
    res->insts = NULL;
    res->lines = NULL;
    res->pats = NULL;
    if (take(&p, &n, head.ndiags, sizeof head.diags[0], &res->diags) ||
        take(&p, &n, head.nfiles, sizeof head.files[0], &res->files) ||
        take(&p, &n, head.ninsts, sizeof head.insts[0], &res->insts) ||
        take(&p, &n, head.nlines, sizeof head.lines[0], &res->lines) ||
        take(&p, &n, head.npats, sizeof head.pats[0], &res->pats) || n != 0) {
        gpu_kernel_result_done(res);
        memset(res, 0, sizeof *res);
        return bl_fail(why, GPU_KERNEL_ECRASH, BL_NOWHERE, KRN_CHILD_NONSENSE);
    }
    res->err.msg[sizeof res->err.msg - 1] = '\0';
    bl_msg_sanitize(&res->err.why); /* from our child: ids and strings in range */
    res->device[sizeof res->device - 1] = '\0';
    res->kernel[sizeof res->kernel - 1] = '\0';
    res->lowered[sizeof res->lowered - 1] = '\0';
    res->arch[sizeof res->arch - 1] = '\0';
    res->counters_note[sizeof res->counters_note - 1] = '\0';
    bl_msg_sanitize(&res->counters_msg);
    res->lock_note[sizeof res->lock_note - 1] = '\0';
    bl_msg_sanitize(&res->lock_msg);
    res->output[sizeof res->output - 1] = '\0';
    for (int i = 0; i < res->nfiles; i++)
        res->files[i][sizeof res->files[0] - 1] = '\0';
    for (int i = 0; i < res->ndiags; i++) {
        res->diags[i].file[sizeof res->diags[0].file - 1] = '\0';
        res->diags[i].message[sizeof res->diags[0].message - 1] = '\0';
    }
    for (int i = 0; i < res->ninsts; i++) {
        res->insts[i].sass[sizeof res->insts[0].sass - 1] = '\0'; /* never read past it */
        if (res->insts[i].file < 0 || res->insts[i].file >= res->nfiles)
            res->insts[i].file = 0;
    }
    for (int i = 0; i < res->nlines; i++)
        if (res->lines[i].file < 0 || res->lines[i].file >= res->nfiles)
            res->lines[i].file = 0;
    struct bl_err bad = {0};
    if (kres_check(res, &bad)) {  /* refused whole: nothing of it is stored or graded */
        gpu_kernel_result_done(res);
        memset(res, 0, sizeof *res);
        if (why && !why->status)
            *why = bad;
        return -1;
    }
    return 0;
}
