/* kernel_job.c: the parent's side of `banklab kernel`: the launch options (command line and
 * the file's "banklab:" comment), the child process that measures (a fresh exec of banklab:
 * a CUDA context does not survive fork, and a fault must not reach the caller), its time
 * limit, and the wire format between the two. No CUDA: both builds have it. Never prints. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernel_impl.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void say(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    if (!err || !n)
        return;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

/* ---- options ---- */

void gpu_kernel_request_init(struct gpu_kernel_request *req)
{
    memset(req, 0, sizeof *req);
    req->grid[0] = req->grid[1] = req->grid[2] = 1;
    req->block[0] = 256;
    req->block[1] = req->block[2] = 1;
    req->buffer_size = 16ull << 20;
    req->fill = GPU_FILL_FLOAT;
    req->time_limit = 10;
}

/* "32x8", "32x8x2", "256", "32,8": up to three positive sizes, each <= max[i]. */
static int parse_dim(const char *val, unsigned out[3], const unsigned long max[3], const char *opt,
                     char *err, size_t n)
{
    unsigned v[3] = {1, 1, 1};
    const char *p = val;
    int k = 0, dangling = 0;
    while (p && *p && k < 3) {
        dangling = 0;
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)*p))
            break;
        unsigned long x = strtoul(p, &end, 10);
        if (errno || x == 0 || x > max[k])
            break;
        v[k++] = (unsigned)x;
        p = end;
        if (*p == 'x' || *p == 'X' || *p == ',') {
            p++;
            dangling = 1;
        } else {
            break;
        }
    }
    if (k == 0 || *p || dangling) {
        say(err, n, "%s takes X, XxY or XxYxZ (each 1..%lu, %lu, %lu), not '%s'", opt, max[0],
            max[1], max[2], val);
        return -1;
    }
    memcpy(out, v, sizeof v);
    return 0;
}

/* "4096", "48K", "16M", "1G": bytes (binary suffixes) in lo..hi. */
static int parse_bytes(const char *val, unsigned long long lo, unsigned long long hi,
                       unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!val || !isdigit((unsigned char)*val))
        return -1;
    unsigned long long x = strtoull(val, &end, 10);
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift) {
        end++;
        if (*end == 'i' && end[1] == 'B')
            end += 2;
        else if (*end == 'B')
            end++;
    }
    if (errno || *end || x > (hi >> shift))
        return -1;
    x <<= shift;
    if (x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

int kreq_bytes(const char *val, unsigned long long *out)
{
    return parse_bytes(val, 4, 64ull << 30, out);
}

/* NAME=VALUE into list (replacing an earlier NAME). */
static int put_named(struct gpu_kernel_named *list, int *n, const char *opt, const char *val,
                     char *err, size_t errsz)
{
    const char *eq = strchr(val, '=');
    if (!eq || eq == val || !eq[1]) {
        say(err, errsz, "%s takes NAME=VALUE, not '%s'", opt, val);
        return -1;
    }
    size_t nl = (size_t)(eq - val);
    if (nl >= sizeof list[0].name || strlen(eq + 1) >= sizeof list[0].value) {
        say(err, errsz, "%s %s: name or value too long", opt, val);
        return -1;
    }
    for (size_t i = 0; i < nl; i++)
        if (!isalnum((unsigned char)val[i]) && val[i] != '_') {
            say(err, errsz, "%s %s: '%.*s' is not a parameter name", opt, val, (int)nl, val);
            return -1;
        }
    int at = *n;
    for (int i = 0; i < *n; i++)
        if (strlen(list[i].name) == nl && !strncmp(list[i].name, val, nl))
            at = i;
    if (at == GPU_KERNEL_MAX_ARGS) {
        say(err, errsz, "%s: at most %d of them", opt, GPU_KERNEL_MAX_ARGS);
        return -1;
    }
    snprintf(list[at].name, sizeof list[at].name, "%.*s", (int)nl, val);
    snprintf(list[at].value, sizeof list[at].value, "%s", eq + 1);
    if (at == *n)
        (*n)++;
    return 0;
}

int gpu_kernel_option(struct gpu_kernel_request *req, const char *opt, const char *val, char *err,
                      size_t errsz)
{
    static const unsigned long grid_max[3] = {2147483647ul, 65535, 65535};
    static const unsigned long block_max[3] = {1024, 1024, 64};
    static const char *known[] = {"--grid", "--block", "--smem", "--arg", "--buffer-size",
                                  "--fill", "--name", "--time-limit", "--device"};
    size_t k;
    for (k = 0; k < sizeof known / sizeof known[0]; k++)
        if (!strcmp(opt, known[k]))
            break;
    if (k == sizeof known / sizeof known[0])
        return 0;
    if (!val) {
        say(err, errsz, "%s needs a value", opt);
        return -1;
    }
    if (!strcmp(opt, "--grid"))
        return parse_dim(val, req->grid, grid_max, opt, err, errsz) ? -1 : 1;
    if (!strcmp(opt, "--block")) {
        unsigned b[3];
        if (parse_dim(val, b, block_max, opt, err, errsz))
            return -1;
        if ((unsigned long)b[0] * b[1] * b[2] > 1024) {
            say(err, errsz, "--block %s is %lu threads; a block has at most 1024", val,
                (unsigned long)b[0] * b[1] * b[2]);
            return -1;
        }
        memcpy(req->block, b, sizeof b);
        return 1;
    }
    if (!strcmp(opt, "--smem")) {
        if (parse_bytes(val, 0, 1ull << 30, &req->smem)) {
            say(err, errsz, "--smem takes bytes (e.g. 4352 or 48K), not '%s'", val);
            return -1;
        }
        return 1;
    }
    if (!strcmp(opt, "--arg"))
        return put_named(req->args, &req->nargs, opt, val, err, errsz) ? -1 : 1;
    if (!strcmp(opt, "--buffer-size")) {
        const char *eq = strchr(val, '=');
        const char *bytes = eq ? eq + 1 : val;
        unsigned long long b;
        if (kreq_bytes(bytes, &b)) {
            say(err, errsz, "--buffer-size takes BYTES or NAME=BYTES (4 .. 64G, e.g. 16M), "
                            "not '%s'", val);
            return -1;
        }
        if (!eq) {
            req->buffer_size = b;
            return 1;
        }
        return put_named(req->bufs, &req->nbufs, opt, val, err, errsz) ? -1 : 1;
    }
    if (!strcmp(opt, "--fill")) {
        if (!strcmp(val, "float"))
            req->fill = GPU_FILL_FLOAT;
        else if (!strcmp(val, "int"))
            req->fill = GPU_FILL_INT;
        else if (!strcmp(val, "zero"))
            req->fill = GPU_FILL_ZERO;
        else {
            say(err, errsz, "--fill takes float, int or zero, not '%s'", val);
            return -1;
        }
        return 1;
    }
    if (!strcmp(opt, "--name")) {
        if (!*val || strlen(val) >= sizeof req->name) {
            say(err, errsz, "--name takes a kernel name, not '%s'", val);
            return -1;
        }
        snprintf(req->name, sizeof req->name, "%s", val);
        return 1;
    }
    if (!strcmp(opt, "--time-limit")) {
        char *end;
        errno = 0;
        double s = strtod(val, &end);
        if (errno || end == val || *end || !(s >= 0.1 && s <= 3600)) {
            say(err, errsz, "--time-limit takes seconds in 0.1..3600, not '%s'", val);
            return -1;
        }
        req->time_limit = s;
        return 1;
    }
    /* --device */
    char *end;
    errno = 0;
    long d = strtol(val, &end, 10);
    if (errno || end == val || *end || d < 0 || d > 63) {
        say(err, errsz, "--device takes an integer in 0..63, not '%s'", val);
        return -1;
    }
    req->device = (int)d;
    return 1;
}

/* Split the words of one comment line (quotes group, no escapes) and apply them as
 * OPTION VALUE pairs. */
static int apply_words(struct gpu_kernel_request *req, const char *s, size_t n, int line,
                       const char *base, char *err, size_t errsz)
{
    char word[2][GPU_KERNEL_TEXT];
    int col[2] = {0, 0}, have = 0;
    size_t i = 0;
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= n) {
            if (have == 1) {
                say(err, errsz, "%d:%d: %s needs a value", line, col[0], word[0]);
                return -1;
            }
            return 0;
        }
        char *w = word[have];
        size_t wl = 0;
        col[have] = (int)(s + i - base) + 1;
        char quote = 0;
        while (i < n && (quote || (s[i] != ' ' && s[i] != '\t'))) {
            if (!quote && (s[i] == '\'' || s[i] == '"'))
                quote = s[i];
            else if (quote && s[i] == quote)
                quote = 0;
            else if (wl + 1 < sizeof word[0])
                w[wl++] = s[i];
            i++;
        }
        w[wl] = '\0';
        char why[GPU_KERNEL_TEXT];
        struct gpu_kernel_request probe;
        if (have == 0 && (gpu_kernel_option(&probe, w, NULL, why, sizeof why) == 0 ||
                          !strcmp(w, "--device"))) {
            say(err, errsz, "%d:%d: '%s' is not a launch option (--grid, --block, --smem, --arg, "
                "--buffer-size, --fill, --name, --time-limit)", line, col[0], w);
            return -1;
        }
        if (++have < 2)
            continue;
        if (gpu_kernel_option(req, word[0], word[1], why, sizeof why) < 0) {
            say(err, errsz, "%d:%d: %s", line, col[1], why);
            return -1;
        }
        have = 0;
    }
}

int gpu_kernel_file_options(struct gpu_kernel_request *req, const char *src, size_t len,
                            char *err, size_t errsz)
{
    const char *p = src, *end = src + len;
    int line = 1, in_block = 0;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        const char *s = p;
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        const char *text = NULL; /* the comment's text on this line */
        if (in_block) {
            text = s;
            if (text < e && *text == '*' && !(text + 1 < e && text[1] == '/'))
                text++;
        } else if (s + 1 < e && s[0] == '/' && s[1] == '/') {
            text = s + 2;
        } else if (s + 1 < e && s[0] == '/' && s[1] == '*') {
            text = s + 2;
            in_block = 1;
        } else if (s != e && !(e - s == 1 && *s == '\r')) {
            return 0; /* the first line of code */
        }
        if (text) {
            const char *stop = e;
            if (in_block) {
                for (const char *c = text; c + 1 < e; c++)
                    if (c[0] == '*' && c[1] == '/') {
                        stop = c;
                        in_block = 0;
                        if (c + 2 < e) {
                            const char *r = c + 2;
                            while (r < e && (*r == ' ' || *r == '\t' || *r == '\r'))
                                r++;
                            if (r < e)
                                in_block = 2; /* code after the comment: last line to read */
                        }
                        break;
                    }
            }
            while (text < stop && (*text == ' ' || *text == '\t'))
                text++;
            if ((size_t)(stop - text) >= 8 && !strncmp(text, "banklab:", 8)) {
                const char *w = text + 8;
                size_t wn = (size_t)(stop - w);
                while (wn && (w[wn - 1] == '\r' || w[wn - 1] == ' '))
                    wn--;
                if (apply_words(req, w, wn, line, p, err, errsz))
                    return -1;
            }
            if (in_block == 2)
                return 0;
        }
        p = e < end ? e + 1 : end;
        line++;
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

void kres_fail(struct gpu_kernel_result *res, enum gpu_kernel_status st, const char *fmt, ...)
{
    if (res->status != GPU_KERNEL_OK)
        return;
    res->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->error, sizeof res->error, fmt, ap);
    va_end(ap);
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

static double g_child_start;     /* the child's: set by kwire_get_request */

/* The request as bytes (for a server's socket, written as it drains). NULL when out of memory. */
static unsigned char *pack_request(const struct gpu_kernel_request *req, const char *src,
                                   size_t len, size_t *n)
{
    struct wire_request w;
    memset(&w, 0, sizeof w);
    w.req = *req;
    if (!getcwd(w.cwd, sizeof w.cwd))
        w.cwd[0] = '\0';
    w.t_start = now_ms();
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
    unsigned char *b = pack_request(req, src, len, &n);
    int r = b ? write_all(fd, b, n) : -1;
    free(b);
    return r;
}

int kwire_get_request(int fd, struct gpu_kernel_request *req, char **src, size_t *len,
                      char cwd[PATH_MAX])
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
    *src = s;
    *len = (size_t)w.len;
    w.cwd[sizeof w.cwd - 1] = '\0';
    memcpy(cwd, w.cwd, PATH_MAX);
    g_child_start = w.t_start;
    return 0;
}

static int put_frame(int fd, uint32_t tag, const void *a, size_t an, const void *b, size_t bn)
{
    uint32_t head[2] = {tag, (uint32_t)(an + bn)};
    if (an + bn > 0x7fffffffu)
        return -1;
    return write_all(fd, head, sizeof head) || write_all(fd, a, an) || write_all(fd, b, bn) ? -1 : 0;
}

void kwire_hello(int fd, int warm)
{
    int32_t p[2] = {(int32_t)getpid(), warm};
    (void)put_frame(fd, KWIRE_HELLO, p, sizeof p, NULL, 0);
}

void kwire_phase(int fd, enum gpu_kernel_phase phase)
{
    int32_t p = (int32_t)phase;
    (void)put_frame(fd, KWIRE_PHASE, &p, sizeof p, NULL, 0);
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
    int r = put_frame(fd, KWIRE_RESULT, buf, total, NULL, 0);
    free(buf);
    return r;
}

static void *take(const unsigned char **p, size_t *left, int count, size_t each)
{
    if (count < 0 || count > 1000000 || (size_t)count * each > *left)
        return (void *)-1;
    if (count == 0)
        return NULL;
    void *m = malloc((size_t)count * each);
    if (!m)
        return (void *)-1;
    memcpy(m, *p, (size_t)count * each);
    *p += (size_t)count * each;
    *left -= (size_t)count * each;
    return m;
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
    void *d = take(&p, &n, head.ndiags, sizeof head.diags[0]);
    void *f = d == (void *)-1 ? d : take(&p, &n, head.nfiles, sizeof head.files[0]);
    void *in = f == (void *)-1 ? f : take(&p, &n, head.ninsts, sizeof head.insts[0]);
    void *l = in == (void *)-1 ? in : take(&p, &n, head.nlines, sizeof head.lines[0]);
    if (d == (void *)-1 || f == (void *)-1 || in == (void *)-1 || l == (void *)-1 || n != 0) {
        if (d != (void *)-1)
            free(d);
        if (f != (void *)-1)
            free(f);
        if (in != (void *)-1)
            free(in);
        return -1;
    }
    *res = head;
    res->diags = d;
    res->files = f;
    res->insts = in;
    res->lines = l;
    res->error[sizeof res->error - 1] = '\0';
    res->device[sizeof res->device - 1] = '\0';
    res->kernel[sizeof res->kernel - 1] = '\0';
    res->lowered[sizeof res->lowered - 1] = '\0';
    res->arch[sizeof res->arch - 1] = '\0';
    res->counters_note[sizeof res->counters_note - 1] = '\0';
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

/* ---- the measuring process ---- */

int gpu_kernel_server_idle(void)
{
    const char *e = getenv("BANKLAB_KERNEL_SERVER");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        return *end || v < 0 ? 0 : v > 3600 ? 3600 : (int)v;
    }
    return getenv("BANKLAB_KERNEL_DEBUG") ? 0 : 60;
}

int gpu_kernel_child_main(void)
{
    struct gpu_kernel_request req;
    char *src = NULL;
    size_t len = 0;
    char cwd[PATH_MAX];
    signal(SIGPIPE, SIG_IGN);
    if (kwire_get_request(0, &req, &src, &len, cwd)) {
        fprintf(stderr, "banklab __kernel-child: no request on stdin (an internal command)\n");
        return 2;
    }
    if (cwd[0] && chdir(cwd)) { /* the request's relative paths are the caller's */
    }
    kwire_hello(3, 0);
    struct gpu_kernel_result *res = calloc(1, sizeof *res);
    struct kstate *st = res ? kstate_new(req.device, res) : NULL;
    if (!res || !st) {
        free(res);
        free(src);
        return 1;
    }
    res->timing.start = now_ms() - g_child_start - res->timing.init;
    if (kres_add_file(res, req.path) < 0)
        kres_fail(res, GPU_KERNEL_ESYSTEM, "out of memory");
    else
        kstate_measure(st, &req, src, len, res, 3);
    fflush(stdout);
    fflush(stderr);
    /* stay as a server? listen before answering, so the caller's next request finds us */
    char path[108];
    int lfd = -1;
    if (req.server_idle > 0 && !req.launch_only && kstate_can_serve(st) &&
        kserver_path(req.device, path, sizeof path) == 0)
        lfd = kserver_listen(path);
    int rc = kwire_put_result(3, res) ? 1 : 0;
    gpu_kernel_result_done(res);
    free(res);
    free(src);
    close(3);
    if (lfd >= 0)
        rc = kserver_loop(st, lfd, path, req.server_idle);
    kstate_free(st);
    return rc;
}

/* ---- the job ---- */

struct gpu_kernel_job {
    pid_t pid;                   /* the measuring process (from its hello) */
    int own_child;               /* pid is our child (one-shot): reap it */
    int res_fd, out_fd;          /* frames; the child's stdout and stderr (one-shot only) */
    unsigned char *buf;          /* frames read so far */
    size_t len, cap;
    unsigned char *wbuf;         /* the request, still to be written to a server */
    size_t wlen, woff;
    char out[GPU_KERNEL_OUTPUT]; /* the last bytes of the child's stdout and stderr */
    size_t outlen;
    double t0;                   /* the job's start */
    double t_hello;              /* when the measuring process took the request (0: not yet) */
    double limit_ms;
    enum gpu_kernel_phase phase;
    int via_server, retried;
    int ended;                   /* res is final */
    int reaped;
    struct gpu_kernel_result res;
    struct gpu_kernel_request req; /* kept to start a fresh child if a server went away */
    char *src;
    size_t srclen;
    char exe[GPU_KERNEL_TEXT];
};

#define QUEUE_WAIT_MS 120000.0   /* how long a busy server may keep a request waiting */

/* A new measuring process: a child that execs banklab __kernel-child with the request on
 * stdin. With a server to become, it is started through an intermediate process so that it
 * is nobody's child once it outlives the request (the caller need not reap it). */
static int spawn(struct gpu_kernel_job *job, char *err, size_t errsz)
{
    int rp[2] = {-1, -1}, op[2] = {-1, -1};
    FILE *tmp = tmpfile();
    if (!tmp || pipe(rp) || pipe(op)) {
        say(err, errsz, "cannot start the measuring process: %s", strerror(errno));
        goto fail;
    }
    if (kwire_put_request(fileno(tmp), &job->req, job->src, job->srclen) || fflush(tmp) ||
        lseek(fileno(tmp), 0, SEEK_SET) != 0) {
        say(err, errsz, "cannot write the request to a temporary file: %s", strerror(errno));
        goto fail;
    }
    for (int i = 0; i < 2; i++) {
        fcntl(rp[i], F_SETFD, FD_CLOEXEC);
        fcntl(op[i], F_SETFD, FD_CLOEXEC);
    }
    int detach = job->req.server_idle > 0 && !job->req.launch_only;
    pid_t pid = fork();
    if (pid < 0) {
        say(err, errsz, "cannot start the measuring process: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        /* async-signal-safe calls only until exec */
        int tfd = fileno(tmp);
        if (dup2(tfd, 0) < 0 || dup2(op[1], 1) < 0 || dup2(op[1], 2) < 0 || dup2(rp[1], 3) < 0)
            _exit(127);
        for (int fd = 4; fd < 1024; fd++) /* nothing of the caller's (a server outlives it) */
            close(fd);
        if (detach) {
            setsid();
            pid_t g = fork();
            if (g != 0)
                _exit(g < 0 ? 127 : 0);
        }
        char *argv[] = {"banklab", "__kernel-child", NULL};
        execv(job->exe, argv);
        static const char msg[] = "exec failed\n";
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
        _exit(127);
    }
    fclose(tmp);
    close(rp[1]);
    close(op[1]);
    if (detach) {
        int ws;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
        job->pid = -1; /* the real one says who it is in its hello */
        job->own_child = 0;
    } else {
        job->pid = pid;
        job->own_child = 1;
    }
    job->res_fd = rp[0];
    job->out_fd = op[0];
    fcntl(job->res_fd, F_SETFL, fcntl(job->res_fd, F_GETFL) | O_NONBLOCK);
    fcntl(job->out_fd, F_SETFL, fcntl(job->out_fd, F_GETFL) | O_NONBLOCK);
    return 0;
fail:
    if (tmp)
        fclose(tmp);
    for (int i = 0; i < 2; i++) {
        if (rp[i] >= 0)
            close(rp[i]);
        if (op[i] >= 0)
            close(op[i]);
    }
    return -1;
}

/* A running server for this request's device, when there is one: the request goes to it. */
static int try_server(struct gpu_kernel_job *job)
{
    char path[108];
    if (job->req.server_idle <= 0 || job->req.launch_only ||
        kserver_path(job->req.device, path, sizeof path))
        return -1;
    int fd = kserver_connect(path);
    if (fd < 0)
        return -1;
    job->wbuf = pack_request(&job->req, job->src, job->srclen, &job->wlen);
    if (!job->wbuf) {
        close(fd);
        return -1;
    }
    job->woff = 0;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    job->res_fd = fd;
    job->out_fd = -1;
    job->via_server = 1;
    job->pid = -1;
    job->own_child = 0;
    return 0;
}

struct gpu_kernel_job *gpu_kernel_start(const struct gpu_kernel_request *req, const char *src,
                                        size_t len, char *err, size_t errsz)
{
    if (len > GPU_KERNEL_MAX_SOURCE) {
        say(err, errsz, "%s is %zu bytes; banklab kernel reads at most %u", req->path, len,
            GPU_KERNEL_MAX_SOURCE);
        return NULL;
    }
    struct gpu_kernel_job *job = calloc(1, sizeof *job);
    char *copy = malloc(len + 1);
    if (!job || !copy) {
        free(job);
        free(copy);
        say(err, errsz, "out of memory");
        return NULL;
    }
    memcpy(copy, src, len);
    copy[len] = '\0';
    job->src = copy;
    job->srclen = len;
    job->req = *req;
    job->res_fd = job->out_fd = -1;
    job->pid = -1;
    snprintf(job->exe, sizeof job->exe, "%s", req->exe[0] ? req->exe : "/proc/self/exe");
    job->limit_ms = req->time_limit * 1e3;
    job->t0 = now_ms();
    if (try_server(job) == 0 || spawn(job, err, errsz) == 0)
        return job;
    free(job->src);
    free(job);
    return NULL;
}

static void keep_output(struct gpu_kernel_job *job, const char *s, size_t n)
{
    size_t cap = sizeof job->out - 1;
    if (n >= cap) {
        memcpy(job->out, s + n - cap, cap);
        job->outlen = cap;
    } else {
        if (job->outlen + n > cap) {
            size_t drop = job->outlen + n - cap;
            memmove(job->out, job->out + drop, job->outlen - drop);
            job->outlen -= drop;
        }
        memcpy(job->out + job->outlen, s, n);
        job->outlen += n;
    }
    job->out[job->outlen] = '\0';
}

/* Read what is there; 1 at end of file. */
static int drain(struct gpu_kernel_job *job, int *fd, int frames)
{
    char chunk[8192];
    while (*fd >= 0) {
        ssize_t r = read(*fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return 0; /* EAGAIN */
        if (r == 0) {
            close(*fd);
            *fd = -1;
            return 1;
        }
        if (!frames) {
            keep_output(job, chunk, (size_t)r);
            continue;
        }
        if (job->len + (size_t)r > job->cap) {
            size_t nc = job->cap ? job->cap * 2 : 65536;
            while (nc < job->len + (size_t)r)
                nc *= 2;
            if (nc > (256u << 20))
                return 1; /* nonsense: treat as the end */
            unsigned char *w = realloc(job->buf, nc);
            if (!w)
                return 1;
            job->buf = w;
            job->cap = nc;
        }
        memcpy(job->buf + job->len, chunk, (size_t)r);
        job->len += (size_t)r;
    }
    return 1;
}

/* Parse complete frames: phases, and the result (1 when it is there). */
static int parse_frames(struct gpu_kernel_job *job)
{
    size_t at = 0;
    int got = 0;
    while (job->len - at >= 8) {
        uint32_t head[2];
        memcpy(head, job->buf + at, sizeof head);
        if (job->len - at - 8 < head[1])
            break;
        const unsigned char *payload = job->buf + at + 8;
        if (head[0] == KWIRE_HELLO && head[1] == 8) {
            int32_t h[2];
            memcpy(h, payload, sizeof h);
            if (!job->own_child)
                job->pid = h[0];
            job->t_hello = now_ms();
        } else if (head[0] == KWIRE_PHASE && head[1] == 4) {
            int32_t ph;
            memcpy(&ph, payload, 4);
            if (ph >= GPU_KPHASE_START && ph <= GPU_KPHASE_DONE)
                job->phase = (enum gpu_kernel_phase)ph;
        } else if (head[0] == KWIRE_RESULT && !got) {
            if (kwire_get_result(payload, head[1], &job->res) == 0)
                got = 1;
            else
                kres_fail(&job->res, GPU_KERNEL_ECRASH,
                          "the measuring process answered nonsense (a different banklab?)");
        }
        at += 8 + head[1];
    }
    memmove(job->buf, job->buf + at, job->len - at);
    job->len -= at;
    return got || job->res.status != GPU_KERNEL_OK;
}

static void reap(struct gpu_kernel_job *job, int block, int *wstatus)
{
    if (job->reaped || job->pid <= 0)
        return;
    pid_t r;
    do
        r = waitpid(job->pid, wstatus, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == job->pid || (r < 0 && errno == ECHILD))
        job->reaped = 1;
}

static void finish(struct gpu_kernel_job *job, struct gpu_kernel_result *res)
{
    job->ended = 1;
    job->res.timing.total = now_ms() - job->t0;
    if (job->outlen && !job->res.output[0])
        snprintf(job->res.output, sizeof job->res.output, "%s", job->out);
    *res = job->res;
    memset(&job->res, 0, sizeof job->res); /* the arrays now belong to the caller */
}

static void timeout_message(struct gpu_kernel_job *job)
{
    double s = job->limit_ms / 1e3;
    switch (job->phase) {
    case GPU_KPHASE_RUN:
        kres_fail(&job->res, GPU_KERNEL_ETIMEOUT,
                  "the kernel did not finish within %g s (--time-limit); it was stopped", s);
        break;
    case GPU_KPHASE_COMPILE:
        kres_fail(&job->res, GPU_KERNEL_ETIMEOUT,
                  "compiling took longer than %g s (--time-limit); stopped", s);
        break;
    default:
        kres_fail(&job->res, GPU_KERNEL_ETIMEOUT, "no answer within %g s (--time-limit) while %s; "
                  "stopped", s, gpu_kernel_phase_name(job->phase));
    }
}

/* Write what the server's socket takes of the request. */
static void send_request(struct gpu_kernel_job *job)
{
    while (job->wbuf && job->woff < job->wlen) {
        ssize_t w = write(job->res_fd, job->wbuf + job->woff, job->wlen - job->woff);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* full (or gone: the read side sees it) */
        job->woff += (size_t)w;
    }
    free(job->wbuf);
    job->wbuf = NULL;
}

/* The end without a result: say how, from what is known of the process. */
static void lost(struct gpu_kernel_job *job)
{
    int ws = 0;
    if (job->own_child)
        reap(job, 1, &ws);
    drain(job, &job->out_fd, 0);
    gpu_kernel_result_done(&job->res);
    memset(&job->res, 0, sizeof job->res);
    job->res.phase = job->phase;
    if (job->own_child && WIFSIGNALED(ws))
        kres_fail(&job->res, GPU_KERNEL_ECRASH, "the measuring process died (signal %d, %s) "
                  "while %s", WTERMSIG(ws), strsignal(WTERMSIG(ws)),
                  gpu_kernel_phase_name(job->phase));
    else if (job->own_child && WIFEXITED(ws) && WEXITSTATUS(ws) == 127)
        kres_fail(&job->res, GPU_KERNEL_ESYSTEM, "cannot run %s for the measurement", job->exe);
    else
        kres_fail(&job->res, GPU_KERNEL_ECRASH, "the measuring process ended without a result "
                  "while %s", gpu_kernel_phase_name(job->phase));
}

int gpu_kernel_poll(struct gpu_kernel_job *job, struct gpu_kernel_result *res,
                    enum gpu_kernel_phase *phase)
{
    if (!job || job->ended)
        return 0;
    send_request(job);
    drain(job, &job->out_fd, 0);
    int eof = drain(job, &job->res_fd, 1);
    if (parse_frames(job)) {
        drain(job, &job->out_fd, 0);
        if (job->own_child)
            reap(job, 0, NULL);
        finish(job, res);
        return 1;
    }
    if (eof && job->via_server && !job->t_hello && !job->retried) {
        /* the server left before taking the request (it was going idle): start a new one */
        job->retried = 1;
        job->via_server = 0;
        free(job->wbuf);
        job->wbuf = NULL;
        job->len = 0;
        char err[GPU_KERNEL_TEXT];
        if (spawn(job, err, sizeof err) == 0)
            return 0;
        memset(&job->res, 0, sizeof job->res);
        kres_fail(&job->res, GPU_KERNEL_ESYSTEM, "%s", err);
        finish(job, res);
        return 1;
    }
    if (eof) {
        lost(job);
        finish(job, res);
        return 1;
    }
    /* the time limit runs from when the measuring process took the request; before that a
     * busy server may keep it waiting a while */
    double now = now_ms();
    int over = job->t_hello ? now - job->t_hello > job->limit_ms
                            : now - job->t0 > job->limit_ms + QUEUE_WAIT_MS;
    if (over) {
        if (job->pid > 0)
            kill(job->pid, SIGKILL);
        if (job->own_child)
            reap(job, 1, NULL);
        drain(job, &job->out_fd, 0);
        gpu_kernel_result_done(&job->res);
        memset(&job->res, 0, sizeof job->res);
        job->res.phase = job->phase;
        if (job->t_hello)
            timeout_message(job);
        else
            kres_fail(&job->res, GPU_KERNEL_ETIMEOUT, "the measuring server was busy for %g s; "
                      "gave up", (job->limit_ms + QUEUE_WAIT_MS) / 1e3);
        finish(job, res);
        return 1;
    }
    if (phase)
        *phase = job->phase;
    return 0;
}

int gpu_kernel_fd(const struct gpu_kernel_job *job)
{
    return job && !job->ended ? job->res_fd : -1;
}

void gpu_kernel_wait(struct gpu_kernel_job *job, struct gpu_kernel_result *res)
{
    while (!gpu_kernel_poll(job, res, NULL)) {
        struct pollfd fds[2] = {{job->res_fd, (short)(POLLIN | (job->wbuf ? POLLOUT : 0)), 0},
                                {job->out_fd, POLLIN, 0}};
        poll(fds, 2, 100);
    }
}

void gpu_kernel_free(struct gpu_kernel_job *job)
{
    if (!job)
        return;
    if (!job->ended && job->pid > 0)
        kill(job->pid, SIGKILL); /* cancelled: whatever it was doing stops */
    if (job->own_child)
        reap(job, 1, NULL);
    if (job->res_fd >= 0)
        close(job->res_fd);
    if (job->out_fd >= 0)
        close(job->out_fd);
    gpu_kernel_result_done(&job->res);
    free(job->wbuf);
    free(job->buf);
    free(job->src);
    free(job);
}
