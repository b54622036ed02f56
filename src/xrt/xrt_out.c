/* xrt_out.c: what banklab's CUDA runtime tells banklab (xrt.h): per launch its kernel, grid,
 * block, dynamic shared memory and status, and per source line of the kernel the
 * shared-memory warp instructions the executor ran there, priced by the bank model and summed
 * by the executor's aggregation (src/ptx/ptx_agg.h: instructions, wavefronts, ideal = the
 * passes), charged to the learner's line (a helper's own line, a CUDA header's call site), as
 * text lines appended to the file BANKLAB_XRT_OUT names:
 *   launch SEQ STATUS GX GY GZ BX BY BZ SMEM NAME
 *   status NAME TEXT              (a launch refused or failed: cudaGetErrorName, -String)
 *   note TEXT                     (the executor's reason, when the kernel failed)
 *   steps N                       (lane-instructions the executor ran)
 *   line LINE INST WAVEFRONTS IDEAL WAYS UNPRICED KINDS FILE
 *                                 (WAYS: the largest pass cost; UNPRICED: warp instructions
 *                                 the bank model has no price for, cp.async.cg, a misaligned one)
 *   warp PC SLOT COUNT OF WAVEFRONTS KIND WIDTH MATRICES MASK BX BY BZ WARP A0..A31
 *                                 (after its line: a kept warp of one of its instructions,
 *                                 SLOT -1 the worst, 0.. the distinct patterns with their
 *                                 COUNT of OF executions; MASK and the offsets A in hex;
 *                                 none for cp.async and transposed ldmatrix)
 *   end SEQ
 *   unsupported NAME | fatal TEXT
 * KINDS: the instructions seen on the line, comma-separated (ld st atom ldsm stsm cpasync).
 * A text field is the rest of its line (a newline in it becomes '?'). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../ptx/ptx_agg.h"
#include "xrt.h"
#include "../sys/sys.h"

static struct ptx_agg agg;
static int agg_on;
static int out_fd = -2;       /* -2: not opened yet */
static unsigned long launch_seq;

static const char *const kind_names[] = {"ld", "st", "atom", "ldsm", "stsm", "cpasync"};

/* the output file, opened once (append: a child process's lines go after the parent's) */
static int out_file(void)
{
    if (out_fd != -2)
        return out_fd;
    const char *p = sys_env("BANKLAB_XRT_OUT");
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

/* The compiled code's shared instructions per line, as banklab read them from the program's
 * cubin, in the file BANKLAB_XRT_SASS names (absent: no merging):
 *   file PATH                     (the learner's file)
 *   kernel SYMBOL                 (then its lines)
 *   sass LINE N LDS-BYTES STS-BYTES
 * so the records merge where ptxas merged side-by-side accesses (ptx_agg_caps). */
static char *sass_text;
static int sass_read;

static char *sass_file(void)
{
    if (sass_read)
        return sass_text;
    sass_read = 1;
    const char *p = sys_env("BANKLAB_XRT_SASS");
    struct bl_buf b = BL_BUF_INIT;
    if (p && *p && !bl_buf_read_file(&b, p))
        sass_text = bl_buf_detach(&b, NULL);
    else if (b.failed)
        xrt_fatal(XRT_EXIT_SETUP, "out of memory reading %s", p);
    bl_buf_release(&b);   /* none, or unreadable: the records are not merged */
    return sass_text;
}

/* kernel k's lines from the file into the aggregation's merging; 0 or -1 (out of memory) */
static int sass_caps(const struct ptx_module *m, int k)
{
    const char *t = sass_file(), *name = ptx_kernel_name(m, k);
    if (!t || !name)
        return 0;
    char file[4096] = "";
    struct ptx_agg_sass *w = NULL;
    int nw = 0, cap = 0, in = 0, rc = 0;
    for (const char *s = t; *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s)) {
        int len = (int)strcspn(s, "\n");
        unsigned line, a, b;
        int n;
        if (!strncmp(s, "file ", 5))
            snprintf(file, sizeof file, "%.*s", len - 5, s + 5);
        else if (!strncmp(s, "kernel ", 7))
            in = len - 7 == (int)strlen(name) && !strncmp(s + 7, name, (size_t)len - 7);
        else if (in && sscanf(s, "sass %u %d %u %u", &line, &n, &a, &b) == 4) {
            if (nw == cap) {
                struct ptx_agg_sass *x = realloc(w, (size_t)(cap = 2 * cap + 16) * sizeof *w);
                if (!x) {
                    free(w);
                    return -1;
                }
                w = x;
            }
            w[nw++] = (struct ptx_agg_sass){line, n, {(unsigned char)a, (unsigned char)b}};
        }
    }
    if (nw && file[0])
        rc = ptx_agg_caps(&agg, m, k, file, NULL, w, nw);
    free(w);
    return rc;
}

int xrt_out_begin(const struct ptx_module *m, int k)
{
    if (agg_on)
        ptx_agg_free(&agg);
    agg_on = ptx_agg_init(&agg, m, k) == 0;
    if (agg_on && sass_caps(m, k)) {
        ptx_agg_free(&agg);
        agg_on = 0;
    }
    return agg_on ? 0 : -1;
}

void xrt_out_sink(void *ctx, const struct ptx_access *a)
{
    ptx_agg_sink(&agg, a);
}

static void warp_record(const struct ptx_agg_pc *p, int slot)
{
    const struct ptx_agg_pattern *t = slot >= 0 ? &p->pat[slot] : &p->worst;
    char offs[32 * 9 + 1];
    size_t o = 0;
    for (int l = 0; l < 32; l++)
        o += (size_t)snprintf(offs + o, sizeof offs - o, " %x", t->addr[l]);
    record("warp %u %d %llu %.0f %d %s %u %u %x %u %u %u %u%s", p->pc, slot,
           slot >= 0 ? (unsigned long long)t->count : 0ull, p->inst, t->wavefronts,
           kind_names[p->kind % 6], t->width, p->matrices, t->mask, t->block[0], t->block[1],
           t->block[2], t->warp, offs);
}

static void kinds_text(unsigned mask, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < sizeof kind_names / sizeof kind_names[0]; k++)
        if (mask >> k & 1u)
            o += (size_t)snprintf(buf + o, o < n ? n - o : 0, "%s%s", o ? "," : "", kind_names[k]);
    if (!buf[0])
        snprintf(buf, n, "-");
}

void xrt_out_launch(const struct xrt_func *f, const unsigned grid[3], const unsigned block[3],
                    size_t smem, cudaError_t status, const char *note, uint64_t steps)
{
    unsigned long seq = ++launch_seq;
    record("launch %lu %d %u %u %u %u %u %u %zu %s", seq, (int)status, grid[0], grid[1], grid[2],
           block[0], block[1], block[2], smem, f ? f->name : "?");
    if (status)
        record("status %s %s", cudaGetErrorName(status), cudaGetErrorString(status));
    if (note && *note)
        record("note %s", note);
    if (steps)
        record("steps %llu", (unsigned long long)steps);
    if (agg_on) {
        if (ptx_agg_lines(&agg, PTX_CHARGE_LEARNER_INNER, NULL))
            xrt_fatal(XRT_EXIT_SETUP, "out of memory summing the accesses");
        for (int i = 0; i < agg.nlines; i++) {
            const struct ptx_agg_line *l = &agg.lines[i];
            char kinds[64];
            kinds_text(l->op_mask, kinds, sizeof kinds);
            record("line %u %.0f %.0f %.0f %d %d %s %s", l->line, l->inst, l->wavefronts,
                   l->ideal, l->ways, l->unmodelled, kinds, l->file ? l->file : "");
            for (int j = 0; j < agg.npcs; j++) {
                const struct ptx_agg_pc *p = &agg.pcs[j];
                if (p->line != i || p->kind == PTX_CPASYNC || p->trans || p->worst.wavefronts < 0)
                    continue;
                for (int k = -1; k < p->npat; k++)
                    warp_record(p, k);
            }
        }
        ptx_agg_free(&agg);
        agg_on = 0;
    }
    record("end %lu", seq);
}
