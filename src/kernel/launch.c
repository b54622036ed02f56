/* launch.c: the launch options of `banklab kernel` (grid, block, dynamic shared
 * memory, scalar arguments, buffer sizes and fill, time limit), from the command line and
 * from the "banklab:" comments at the top of a .cu file, into a request. Pure C: no CUDA,
 * no curses; never prints. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

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
        bl_fmt(err, n, "%s takes X, XxY or XxYxZ (each 1..%lu, %lu, %lu), not '%s'", opt, max[0],
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

/* ---- the request's compile options ---- */

/* Flags banklab sets itself (output, its kind, the target): a flag equal to one of these or
 * starting with one followed by '=' is refused. */
static const char *const refused_flags[] = {
    "-o", "--output-file", "-cubin", "--cubin", "-ptx", "--ptx", "-fatbin", "--fatbin", "-c",
    "--compile", "-E", "--preprocess", "-M", "-MM", "-MD", "-MMD", "-MF", "--dependency-output",
    "-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode", "--generate-code",
    "-run", "--run", "-lib", "--lib", "-link", "--link", "-dlink", "--device-link", "-odir",
    "--output-directory", "-keep", "--keep", "-keep-dir", "--keep-dir", "-dryrun", "--dryrun",
    "-lineinfo", "--generate-line-info", "-v", "--verbose", "-V", "--version", "-h", "--help",
    "-optf", "--options-file", "-save-temps", "--save-temps",
};

static int flag_refused(const char *f)
{
    for (size_t i = 0; i < sizeof refused_flags / sizeof refused_flags[0]; i++) {
        size_t n = strlen(refused_flags[i]);
        if (!strncmp(f, refused_flags[i], n) && (f[n] == '\0' || f[n] == '='))
            return 1;
    }
    return !strncmp(f, "-arch=", 6) || !strncmp(f, "-arch", 5); /* -archsm_90 forms too */
}

/* A word that may reach the compiler: printable, no blank, no quote, at most 200 bytes. */
static int word_ok(const char *w)
{
    size_t n = strlen(w);
    if (n == 0 || n > 200)
        return 0;
    for (const unsigned char *p = (const unsigned char *)w; *p; p++)
        if (*p <= ' ' || *p == 0x7f || *p == '"' || *p == '\'' || *p == '\\')
            return 0;
    return 1;
}

static int add_flag(struct gpu_kernel_request *req, const char *pre, const char *val, char *err,
                    size_t errsz)
{
    if (req->nflags >= GPU_KERNEL_MAX_FLAGS) {
        bl_fmt(err, errsz, "too many compiler options (at most %d -I, -D and --nvcc-flag)",
               GPU_KERNEL_MAX_FLAGS);
        return -1;
    }
    bl_fmt(req->flags[req->nflags++], GPU_KERNEL_TEXT, "%s%s", pre, val);
    return 1;
}

static int kcompile_option(struct gpu_kernel_request *req, const char *opt, const char *val,
                    char *err, size_t errsz)
{
    int inc = !strcmp(opt, "-I"), def = !strcmp(opt, "-D"), pass = !strcmp(opt, "--nvcc-flag");
    int comp = !strcmp(opt, "--compiler");
    if (!inc && !def && !pass && !comp)
        return 0;
    if (!val || !*val) {
        bl_fmt(err, errsz, "%s needs a value", opt);
        return -1;
    }
    if (comp) {
        if (!strcmp(val, "nvcc"))
            req->compiler = GPU_COMPILER_NVCC;
        else if (!strcmp(val, "nvrtc"))
            req->compiler = GPU_COMPILER_NVRTC;
        else if (!strcmp(val, "auto"))
            req->compiler = GPU_COMPILER_AUTO;
        else {
            bl_fmt(err, errsz, "--compiler takes nvcc, nvrtc or auto");
            return -1;
        }
        return 1;
    }
    if (!word_ok(val)) {
        bl_fmt(err, errsz, "%s: a value without blanks, quotes, backslashes or control "
               "characters, at most 200 bytes", opt);
        return -1;
    }
    if (inc)
        return add_flag(req, "-I", val, err, errsz);
    if (def) {
        const char *p = val;
        if (!isalpha((unsigned char)*p) && *p != '_') {
            bl_fmt(err, errsz, "-D takes NAME or NAME=VALUE (NAME a C identifier)");
            return -1;
        }
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        if (*p && *p != '=') {
            bl_fmt(err, errsz, "-D takes NAME or NAME=VALUE (NAME a C identifier)");
            return -1;
        }
        return add_flag(req, "-D", val, err, errsz);
    }
    if (val[0] != '-') {
        bl_fmt(err, errsz, "--nvcc-flag takes one compiler flag starting with '-' (e.g. "
               "--nvcc-flag -maxrregcount=64)");
        return -1;
    }
    if (flag_refused(val)) {
        bl_fmt(err, errsz, "--nvcc-flag %s: banklab sets that itself (the output, its kind and "
               "the GPU's architecture)", val);
        return -1;
    }
    return add_flag(req, "", val, err, errsz);
}

/* NAME=VALUE into list (replacing an earlier NAME). */
static int put_named(struct gpu_kernel_named *list, int *n, const char *opt, const char *val,
                     char *err, size_t errsz)
{
    const char *eq = strchr(val, '=');
    if (!eq || eq == val || !eq[1]) {
        bl_fmt(err, errsz, "%s takes NAME=VALUE, not '%s'", opt, val);
        return -1;
    }
    size_t nl = (size_t)(eq - val);
    if (nl >= sizeof list[0].name || strlen(eq + 1) >= sizeof list[0].value) {
        bl_fmt(err, errsz, "%s %s: name or value too long", opt, val);
        return -1;
    }
    for (size_t i = 0; i < nl; i++)
        if (!isalnum((unsigned char)val[i]) && val[i] != '_') {
            bl_fmt(err, errsz, "%s %s: '%.*s' is not a parameter name", opt, val, (int)nl, val);
            return -1;
        }
    int at = *n;
    for (int i = 0; i < *n; i++)
        if (strlen(list[i].name) == nl && !strncmp(list[i].name, val, nl))
            at = i;
    if (at == GPU_KERNEL_MAX_ARGS) {
        bl_fmt(err, errsz, "%s: at most %d of them", opt, GPU_KERNEL_MAX_ARGS);
        return -1;
    }
    snprintf(list[at].name, sizeof list[at].name, "%.*s", (int)nl, val);
    snprintf(list[at].value, sizeof list[at].value, "%s", eq + 1);
    if (at == *n)
        (*n)++;
    return 0;
}

/* ---- the launch options, one row each (gpu_kernel_opts) ---- */

static int opt_grid(struct gpu_kernel_request *req, const char *opt, const char *val, char *err,
                    size_t errsz)
{
    static const unsigned long grid_max[3] = {2147483647ul, 65535, 65535};
    return parse_dim(val, req->grid, grid_max, opt, err, errsz) ? -1 : 1;
}

static int opt_block(struct gpu_kernel_request *req, const char *opt, const char *val, char *err,
                     size_t errsz)
{
    static const unsigned long block_max[3] = {1024, 1024, 64};
    unsigned b[3];
    if (parse_dim(val, b, block_max, opt, err, errsz))
        return -1;
    if ((unsigned long)b[0] * b[1] * b[2] > 1024) {
        bl_fmt(err, errsz, "--block %s is %lu threads; a block has at most 1024", val,
            (unsigned long)b[0] * b[1] * b[2]);
        return -1;
    }
    memcpy(req->block, b, sizeof b);
    return 1;
}

static int opt_smem(struct gpu_kernel_request *req, const char *opt, const char *val, char *err,
                    size_t errsz)
{
    (void)opt;
    if (parse_bytes(val, 0, 1ull << 30, &req->smem)) {
        bl_fmt(err, errsz, "--smem takes bytes (e.g. 4352 or 48K), not '%s'", val);
        return -1;
    }
    return 1;
}

static int opt_arg(struct gpu_kernel_request *req, const char *opt, const char *val, char *err,
                   size_t errsz)
{
    return put_named(req->args, &req->nargs, opt, val, err, errsz) ? -1 : 1;
}

static int opt_buffer_size(struct gpu_kernel_request *req, const char *opt, const char *val,
                           char *err, size_t errsz)
{
    const char *eq = strchr(val, '=');
    const char *bytes = eq ? eq + 1 : val;
    unsigned long long b;
    if (kreq_bytes(bytes, &b)) {
        bl_fmt(err, errsz, "--buffer-size takes BYTES or NAME=BYTES (4 .. 64G, e.g. 16M), "
                        "not '%s'", val);
        return -1;
    }
    if (!eq) {
        req->buffer_size = b;
        return 1;
    }
    return put_named(req->bufs, &req->nbufs, opt, val, err, errsz) ? -1 : 1;
}

static int opt_fill(struct gpu_kernel_request *req, const char *opt, const char *val, char *err,
                    size_t errsz)
{
    (void)opt;
    if (!strcmp(val, "float"))
        req->fill = GPU_FILL_FLOAT;
    else if (!strcmp(val, "int"))
        req->fill = GPU_FILL_INT;
    else if (!strcmp(val, "zero"))
        req->fill = GPU_FILL_ZERO;
    else {
        bl_fmt(err, errsz, "--fill takes float, int or zero, not '%s'", val);
        return -1;
    }
    return 1;
}

static int opt_name(struct gpu_kernel_request *req, const char *opt, const char *val, char *err,
                    size_t errsz)
{
    (void)opt;
    if (!*val || strlen(val) >= sizeof req->name) {
        bl_fmt(err, errsz, "--name takes a kernel name, not '%s'", val);
        return -1;
    }
    snprintf(req->name, sizeof req->name, "%s", val);
    return 1;
}

static int opt_time_limit(struct gpu_kernel_request *req, const char *opt, const char *val,
                          char *err, size_t errsz)
{
    (void)opt;
    char *end;
    errno = 0;
    double s = strtod(val, &end);
    if (errno || end == val || *end || !(s >= 0.1 && s <= 3600)) {
        bl_fmt(err, errsz, "--time-limit takes seconds in 0.1..3600, not '%s'", val);
        return -1;
    }
    req->time_limit = s;
    return 1;
}

static int opt_device(struct gpu_kernel_request *req, const char *opt, const char *val,
                      char *err, size_t errsz)
{
    (void)opt;
    char *end;
    errno = 0;
    long d = strtol(val, &end, 10);
    if (errno || end == val || *end || d < 0 || d > 63) {
        bl_fmt(err, errsz, "--device takes an integer in 0..63, not '%s'", val);
        return -1;
    }
    req->device = (int)d;
    return 1;
}

/* The one table of the launch options: the command line (cli's option tables take their rows
 * from it), the file's `// banklab:` comment and the kernel view's prompt all read it. */
const struct gpu_kernel_opt gpu_kernel_opts[] = {
    {"--name", "K", NULL, GPU_KOPT_PICK, KOPT_HELP_NAME, opt_name},
    {"--grid", "X[xY[xZ]]", NULL, GPU_KOPT_SHAPE, KOPT_HELP_GRID, opt_grid},
    {"--block", "X[xY[xZ]]", NULL, GPU_KOPT_SHAPE, KOPT_HELP_BLOCK, opt_block},
    {"--smem", "BYTES", NULL, GPU_KOPT_SHAPE, KOPT_HELP_SMEM, opt_smem},
    {"--arg", "NAME=VALUE", NULL, GPU_KOPT_SHAPE, KOPT_HELP_ARG, opt_arg},
    {"--buffer-size", "BYTES", NULL, GPU_KOPT_SHAPE, KOPT_HELP_BUFFER_SIZE, opt_buffer_size},
    {"--fill", "float|int|zero", NULL, GPU_KOPT_SHAPE, KOPT_HELP_FILL, opt_fill},
    {"-I", "DIR", "-I DIR, -D NAME[=V]", GPU_KOPT_COMPILE, KOPT_HELP_INCLUDE, kcompile_option},
    {"-D", "NAME[=V]", NULL, GPU_KOPT_COMPILE, 0, kcompile_option},
    {"--nvcc-flag", "FLAG", NULL, GPU_KOPT_COMPILE, KOPT_HELP_NVCC_FLAG, kcompile_option},
    {"--compiler", "C", NULL, GPU_KOPT_COMPILE, KOPT_HELP_COMPILER, kcompile_option},
    {"--device", "N", NULL, GPU_KOPT_DEVICE, KOPT_HELP_DEVICE, opt_device},
    {"--time-limit", "S", NULL, GPU_KOPT_LIMIT, KOPT_HELP_TIME_LIMIT, opt_time_limit},
    {NULL, NULL, NULL, 0, 0, NULL},
};

const struct gpu_kernel_opt *gpu_kernel_opt_find(const char *name, int mask)
{
    for (const struct gpu_kernel_opt *o = gpu_kernel_opts; name && o->name; o++)
        if ((o->cls & mask) && !strcmp(o->name, name))
            return o;
    return NULL;
}

size_t gpu_kernel_opt_list(char *buf, size_t n, int mask, const char *sep)
{
    size_t at = 0;
    buf[0] = 0;
    for (const struct gpu_kernel_opt *o = gpu_kernel_opts; o->name; o++)
        if ((o->cls & mask) && at < n)
            at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? sep : "", o->name);
    return at;
}

int gpu_kernel_option(struct gpu_kernel_request *req, const char *opt, const char *val, char *err,
                      size_t errsz)
{
    const struct gpu_kernel_opt *o = gpu_kernel_opt_find(opt, GPU_KOPT_ALL);
    if (!o)
        return 0;
    if (!val || (o->cls == GPU_KOPT_COMPILE && !*val)) {
        bl_fmt(err, errsz, "%s needs a value", opt);
        return -1;
    }
    return o->apply(req, opt, val, err, errsz);
}

int gpu_kernel_words(struct gpu_kernel_request *req, int n, char *const *w, int mask, int *at,
                     char *err, size_t errsz)
{
    char opt[GPU_KERNEL_TEXT];
    for (int i = 0; i < n; i++) {
        const char *eq = strncmp(w[i], "--", 2) ? NULL : strchr(w[i], '=');
        bl_fmt(opt, sizeof opt, "%.*s", eq ? (int)(eq - w[i]) : (int)strlen(w[i]), w[i]);
        *at = i;
        if (!gpu_kernel_opt_find(opt, mask)) {
            char list[GPU_KERNEL_TEXT];
            gpu_kernel_opt_list(list, sizeof list, mask & ~GPU_KOPT_COMPILE, ", ");
            bl_fmt(err, errsz, "'%s' is not a launch option (%s)", opt, list);
            return GPU_KW_UNKNOWN;
        }
        const char *val = eq ? eq + 1 : i + 1 < n ? w[++i] : NULL;
        if (!val) {
            bl_fmt(err, errsz, "%s needs a value", opt);
            return GPU_KW_NO_VALUE;
        }
        *at = i;
        if (gpu_kernel_option(req, opt, val, err, errsz) < 0)
            return GPU_KW_BAD;
    }
    return 0;
}

/* Split the words of one comment line (quotes group, no escapes) and apply them as the
 * command line's words (gpu_kernel_words: OPTION VALUE or --OPTION=VALUE). */
static int apply_words(struct gpu_kernel_request *req, const char *s, size_t n, int line,
                       const char *base, char *err, size_t errsz)
{
    enum { MAXW = 2 * GPU_KERNEL_MAX_ARGS + 16 };
    static char word[MAXW][GPU_KERNEL_TEXT];
    char *w[MAXW];
    int col[MAXW], nw = 0;
    size_t i = 0;
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= n)
            break;
        if (nw == MAXW) {
            bl_fmt(err, errsz, "%d:%d: too many launch options on one line", line,
                   (int)(s + i - base) + 1);
            return -1;
        }
        size_t wl = 0;
        col[nw] = (int)(s + i - base) + 1;
        char quote = 0;
        while (i < n && (quote || (s[i] != ' ' && s[i] != '\t'))) {
            if (!quote && (s[i] == '\'' || s[i] == '"'))
                quote = s[i];
            else if (quote && s[i] == quote)
                quote = 0;
            else if (wl + 1 < sizeof word[0])
                word[nw][wl++] = s[i];
            i++;
        }
        word[nw][wl] = '\0';
        w[nw] = word[nw];
        nw++;
    }
    char why[GPU_KERNEL_TEXT];
    int at = 0, rc = gpu_kernel_words(req, nw, w, GPU_KOPT_FILE, &at, why, sizeof why);
    if (rc)
        bl_fmt(err, errsz, "%d:%d: %s", line, col[at], why);
    return rc ? -1 : 0;
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
