/* xrt_out.c: what banklab's CUDA runtime tells banklab (xrt.h): per launch its kernel, grid,
 * block, dynamic shared memory and status, and per source location of the kernel the
 * shared-memory warp instructions the executor ran there, summed through the bank model
 * (instructions, wavefronts, passes), as text lines appended to the file BANKLAB_XRT_OUT
 * names:
 *   launch SEQ STATUS GX GY GZ BX BY BZ SMEM NAME
 *   status NAME TEXT              (a launch refused or failed: cudaGetErrorName, -String)
 *   note TEXT                     (the executor's reason, when the kernel failed)
 *   acc KIND WIDTH INST WAVEFRONTS PASSES UNMODELLED NFRAMES
 *   frame LINE COL FILE           (NFRAMES of them, the innermost first)
 *   end SEQ
 *   unsupported NAME | fatal TEXT
 * KIND: ld st atom ldsm stsm cpasync. A text field is the rest of its line (a newline in it
 * becomes '?'). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/bank.h"
#include "xrt.h"

struct agg {
    int used;
    unsigned loc;
    unsigned char kind, width;
    uint64_t inst, wavefronts, passes, unmodelled;
};

static struct agg *tab;
static size_t tab_cap, tab_n;
static int out_fd = -2;       /* -2: not opened yet */
static unsigned long launch_seq;

static const char *const kind_names[] = {"ld", "st", "atom", "ldsm", "stsm", "cpasync"};

/* the output file, opened once (append: a child process's lines go after the parent's) */
static int out_file(void)
{
    if (out_fd != -2)
        return out_fd;
    const char *p = getenv("BANKLAB_XRT_OUT");
    out_fd = p && *p ? open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
    return out_fd;
}

static void put(const char *s, size_t n)
{
    int fd = out_file();
    while (fd >= 0 && n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* a record: printf into a line (cut at 4 KiB), newlines inside a field as '?' */
static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    for (int i = 0; i < n; i++)
        if (line[i] == '\n' || line[i] == '\r')
            line[i] = '?';
    line[n++] = '\n';
    put(line, (size_t)n);
}

void xrt_fatal(int code, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    record("fatal %s", text);
    fprintf(stderr, "banklab's CUDA runtime: %s\n", text);
    fflush(NULL);
    _exit(code);
}

void xrt_unsupported(const char *name)
{
    record("unsupported %s", name);
    fprintf(stderr, "banklab's CUDA runtime: %s is not supported without a GPU; the program "
            "stops here\n", name);
    fflush(NULL);
    _exit(XRT_EXIT_UNSUPPORTED);
}

void xrt_out_begin(void)
{
    if (tab)
        memset(tab, 0, tab_cap * sizeof *tab);
    tab_n = 0;
}

static size_t slot(unsigned loc, unsigned kind, unsigned width)
{
    size_t h = ((size_t)loc * 2654435761u) ^ (kind * 40503u) ^ (width * 97u);
    size_t i = h & (tab_cap - 1);
    while (tab[i].used && !(tab[i].loc == loc && tab[i].kind == kind && tab[i].width == width))
        i = (i + 1) & (tab_cap - 1);
    return i;
}

static struct agg *entry(unsigned loc, unsigned kind, unsigned width)
{
    if (tab_n * 2 >= tab_cap) {
        size_t cap = tab_cap ? tab_cap * 2 : 256;
        struct agg *old = tab, *nt = calloc(cap, sizeof *nt);
        if (!nt)
            xrt_fatal(XRT_EXIT_SETUP, "out of memory summing the accesses");
        size_t old_cap = tab_cap;
        tab = nt;
        tab_cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].used)
                tab[slot(old[i].loc, old[i].kind, old[i].width)] = old[i];
        free(old);
    }
    size_t i = slot(loc, kind, width);
    if (!tab[i].used) {
        tab[i].used = 1;
        tab[i].loc = loc;
        tab[i].kind = (unsigned char)kind;
        tab[i].width = (unsigned char)width;
        tab_n++;
    }
    return &tab[i];
}

/* the access as the bank model takes it: the 32 lanes' shared byte addresses */
static void to_bank(const struct ptx_access *a, struct bank_access *b)
{
    memset(b, 0, sizeof *b);
    b->width = a->width;
    b->mask = a->mask;
    b->op = a->kind == PTX_ST || a->kind == PTX_STSM ? BANK_STORE : BANK_LOAD;
    for (int l = 0; l < BANK_LANES; l++)
        b->offset[l] = a->addr[l];
    if (a->kind == PTX_LDSM || a->kind == PTX_STSM) {
        /* ldmatrix/stmatrix: the lanes that give row addresses say .x1/.x2/.x4 */
        int top = 31;
        while (top > 0 && !(a->mask >> top & 1u))
            top--;
        b->instr = a->kind == PTX_LDSM ? BANK_LDMATRIX : BANK_STMATRIX;
        b->matrices = (uint8_t)(top < 8 ? 1 : top < 16 ? 2 : 4);
        b->width = 16;
        b->mask = 0xffffffffu;
    } else if (a->kind == PTX_CPASYNC) {
        b->instr = BANK_CPASYNC;
        b->op = BANK_STORE;
    }
}

void xrt_out_sink(void *ctx, const struct ptx_access *a)
{
    (void)ctx;
    unsigned kind = a->kind <= PTX_CPASYNC ? a->kind : PTX_LD;
    struct agg *e = entry(a->loc, kind, a->width);
    struct bank_access b;
    struct bank_result r;
    to_bank(a, &b);
    e->inst++;
    if (bank_simulate(&b, &r, NULL) == BANK_OK) {
        e->wavefronts += (uint64_t)r.wavefronts;
        e->passes += (uint64_t)r.passes;
    } else {
        e->unmodelled++;
    }
}

static int cmp_agg(const void *pa, const void *pb)
{
    const struct agg *a = pa, *b = pb;
    if (a->used != b->used)
        return b->used - a->used;
    if (a->loc != b->loc)
        return a->loc < b->loc ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind - b->kind;
    return a->width - b->width;
}

void xrt_out_launch(const struct ptx_module *m, const struct xrt_func *f, const unsigned grid[3],
                    const unsigned block[3], size_t smem, cudaError_t status, const char *note)
{
    unsigned long seq = ++launch_seq;
    record("launch %lu %d %u %u %u %u %u %u %zu %s", seq, (int)status, grid[0], grid[1], grid[2],
           block[0], block[1], block[2], smem, f ? f->name : "?");
    if (status)
        record("status %s %s", cudaGetErrorName(status), cudaGetErrorString(status));
    if (note && *note)
        record("note %s", note);
    if (tab && tab_n)
        qsort(tab, tab_cap, sizeof *tab, cmp_agg);
    for (size_t i = 0; i < tab_n && tab; i++) {
        const struct agg *e = &tab[i];
        struct ptx_frame fr[8];
        int nf = m ? ptx_loc(m, e->loc, fr, 8) : 0;
        if (nf < 0)
            nf = 0;
        if (nf > 8)
            nf = 8;
        record("acc %s %u %llu %llu %llu %llu %d", kind_names[e->kind], e->width,
               (unsigned long long)e->inst, (unsigned long long)e->wavefronts,
               (unsigned long long)e->passes, (unsigned long long)e->unmodelled, nf);
        for (int j = 0; j < nf; j++)
            record("frame %u %u %s", fr[j].line, fr[j].col, fr[j].file ? fr[j].file : "");
    }
    record("end %lu", seq);
    xrt_out_begin();
}
