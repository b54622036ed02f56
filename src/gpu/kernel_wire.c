/* kernel_wire.c: what the job and the measuring process exchange: the request (with the
 * source and the caller's directory), frames (hello, phase, result) and the result's arrays;
 * the result helpers both sides use (first error wins, files, per-line sums); and the small
 * helpers of every part (clock, hash, symbol table). The two sides are the same
 * binary, so structs travel as they are, checked for size on arrival. Pure C: no CUDA, no
 * curses; never prints. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_impl.h"

uint64_t khash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

int ksyms(void *lib, const struct ksym *syms, size_t n, void *table, struct bl_err *err,
          int status, int id)
{
    for (size_t i = 0; i < n; i++) {
        void *f = dlsym(lib, syms[i].name);
        if (!f && !syms[i].optional)
            return bl_fail(err, status, BL_NOWHERE, id, syms[i].name);
        memcpy((char *)table + syms[i].off, &f, sizeof f);
    }
    return 0;
}

/* ---- results ---- */

void gpu_kernel_result_done(struct gpu_kernel_result *res)
{
    if (!res)
        return;
    free(res->diags);
    free(res->files);
    free(res->insts);
    free(res->lines);
    res->diags = NULL;
    res->files = NULL;
    res->insts = NULL;
    res->lines = NULL;
    res->ndiags = res->nfiles = res->ninsts = res->nlines = 0;
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

static int cmp_line(const void *a, const void *b)
{
    const struct gpu_kernel_line *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
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
    res->lines = calloc((size_t)res->ninsts, sizeof res->lines[0]);
    if (!res->lines)
        return -1;
    for (int i = 0; i < res->ninsts; i++) {
        const struct gpu_kernel_inst *in = &res->insts[i];
        struct gpu_kernel_line *l = NULL;
        for (int k = 0; k < res->nlines && !l; k++)
            if (res->lines[k].file == in->file && res->lines[k].line == in->line)
                l = &res->lines[k];
        if (!l) {
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
        struct gpu_kernel_totals *t = &res->totals;
        t->inst += in->inst;
        t->wavefronts += in->wavefronts;
        t->ideal += in->ideal;
        if (in->op >= 0 && in->op < GPU_KOP_COUNT) {
            t->op_inst[in->op] += in->inst;
            t->op_wavefronts[in->op] += in->wavefronts;
        }
    }
    for (int k = 0; k < res->nlines; k++) {
        struct gpu_kernel_line *l = &res->lines[k];
        l->excess = l->wavefronts - l->ideal;
        l->ways = l->ideal > 0 ? l->wavefronts / l->ideal : 0;
    }
    res->totals.excess = res->totals.wavefronts - res->totals.ideal;
    qsort(res->lines, (size_t)res->nlines, sizeof res->lines[0], cmp_line);
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

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
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
    size_t nd = (size_t)res->ndiags * sizeof res->diags[0];
    size_t nf = (size_t)res->nfiles * sizeof res->files[0];
    size_t ni = (size_t)res->ninsts * sizeof res->insts[0];
    size_t nl = (size_t)res->nlines * sizeof res->lines[0];
    size_t total = sizeof head + nd + nf + ni + nl;
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

int kwire_get_result(const unsigned char *p, size_t n, struct gpu_kernel_result *res)
{
    memset(res, 0, sizeof *res);
    if (n < sizeof *res)
        return -1;
    struct gpu_kernel_result head;
    memcpy(&head, p, sizeof head);
    p += sizeof head;
    n -= sizeof head;
    *res = head;
    res->diags = NULL;
    res->files = NULL;
    res->insts = NULL;
    res->lines = NULL;
    if (take(&p, &n, head.ndiags, sizeof head.diags[0], &res->diags) ||
        take(&p, &n, head.nfiles, sizeof head.files[0], &res->files) ||
        take(&p, &n, head.ninsts, sizeof head.insts[0], &res->insts) ||
        take(&p, &n, head.nlines, sizeof head.lines[0], &res->lines) || n != 0) {
        gpu_kernel_result_done(res);
        memset(res, 0, sizeof *res);
        return -1;
    }
    res->err.msg[sizeof res->err.msg - 1] = '\0';
    bl_msg_sanitize(&res->err.why);   /* from another process: ids and strings in range */
    res->device[sizeof res->device - 1] = '\0';
    res->kernel[sizeof res->kernel - 1] = '\0';
    res->lowered[sizeof res->lowered - 1] = '\0';
    res->arch[sizeof res->arch - 1] = '\0';
    res->counters_note[sizeof res->counters_note - 1] = '\0';
    res->lock_note[sizeof res->lock_note - 1] = '\0';
    res->output[sizeof res->output - 1] = '\0';
    for (int i = 0; i < res->nfiles; i++)
        res->files[i][sizeof res->files[0] - 1] = '\0';
    for (int i = 0; i < res->ndiags; i++) {
        res->diags[i].file[sizeof res->diags[0].file - 1] = '\0';
        res->diags[i].message[sizeof res->diags[0].message - 1] = '\0';
    }
    for (int i = 0; i < res->ninsts; i++)
        if (res->insts[i].file < 0 || res->insts[i].file >= res->nfiles)
            res->insts[i].file = 0;
    for (int i = 0; i < res->nlines; i++)
        if (res->lines[i].file < 0 || res->lines[i].file >= res->nfiles)
            res->lines[i].file = 0;
    return 0;
}

