/* nvcc.c: ordinary .cu files for `banklab kernel`: the toolkit's nvcc run on the file's device side
 * (-cubin -lineinfo for the GPU's architecture) as a process: an argv, no shell, in a private
 * temporary directory. nvcc's messages (EDG's "file(12): error: ..." with the echoed line and
 * a caret, the host preprocessor's "file:1:10: fatal error: ...", ptxas's) become NVRTC's form
 * with an exact column, so the one reader (ksrc_parse_log) serves both compilers. The kernel's
 * symbol is found among the cubin's functions by their demangled names. No CUDA headers;
 * never prints. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/utf8.h"
#include "compile.h"
#include "spawn.h"
#include "../sys/sys.h"

/* the deadline of a compile whose caller gave none (s) */
#define KNVCC_LIMIT_DEFAULT 60.0

/* ---- finding nvcc ---- */

static int executable(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

void knvcc_where(const char *path, char *real, size_t rsize, char *dir, size_t dsize)
{
    char r[PATH_MAX];
    bl_fmt(real, rsize, "%s", realpath(path, r) ? r : path);
    bl_fmt(dir, dsize, "%s", real);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = '\0';
    else
        bl_fmt(dir, dsize, "%s", slash ? "/" : ".");
}

/* the first executable NAME in an absolute directory of $PATH into path: 0, or -1 */
static int on_path(const char *name, char *path, size_t size)
{
    const char *pathenv = sys_env("PATH");
    while (pathenv && *pathenv) {
        const char *colon = strchr(pathenv, ':');
        size_t n = colon ? (size_t)(colon - pathenv) : strlen(pathenv);
        if (n && pathenv[0] == '/') {
            bl_fmt(path, size, "%.*s/%s", (int)n, pathenv, name);
            if (executable(path))
                return 0;
        }
        pathenv = colon ? colon + 1 : NULL;
    }
    return -1;
}

int knvcc_find(char *path, size_t size)
{
    const char *env = sys_env("BANKLAB_NVCC");
    if (env && *env) {
        bl_fmt(path, size, "%s", env);
        return executable(path) ? 0 : -1;
    }
    const char *homes[] = {sys_env("CUDA_HOME"),
#ifdef BANKLAB_CUDA_HOME
                           BANKLAB_CUDA_HOME,
#endif
                           NULL};
    for (size_t i = 0; i < sizeof homes / sizeof homes[0]; i++) {
        if (!homes[i] || !*homes[i])
            continue;
        bl_fmt(path, size, "%s/bin/nvcc", homes[i]);
        if (executable(path))
            return 0;
    }
    if (on_path("nvcc", path, size) == 0)
        return 0;
    bl_fmt(path, size, "/usr/local/cuda/bin/nvcc");
    return executable(path) ? 0 : -1;
}

int knvcc_toolkit(const char *nvcc, char *root, size_t size)
{
    char r[PATH_MAX], hdr[PATH_MAX + 32];
    if (!realpath(nvcc, r))
        return -1;
    for (int up = 0; up < 2; up++) {
        char *sl = strrchr(r, '/');
        if (!sl || sl == r)
            return -1;
        *sl = '\0';
    }
    bl_fmt(hdr, sizeof hdr, "%s/include/cuda_runtime.h", r);
    if (access(hdr, R_OK))
        return -1;
    bl_fmt(root, size, "%s", r);
    return 0;
}

void knvcc_host_id(char *id, size_t size)
{
    static const char *const names[] = {"gcc", "g++"};
    size_t o = bl_fmt(id, size, "PATH %s", sys_env("PATH") ? sys_env("PATH") : "");
    for (int i = 0; i < 2; i++) {
        char p[PATH_MAX];
        struct stat st;
        if (on_path(names[i], p, sizeof p) == 0 && stat(p, &st) == 0)
            o += bl_fmt(id + o, size - o, "\n%s %lld %lld.%09ld", p, (long long)st.st_size,
                        (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
    }
}

/* what identifies that nvcc in a cache key: its path, size and modification time, and those
 * of the cicc and ptxas beside it (a toolkit updated in place changes them) */
void knvcc_id(const char *nvcc, char *id, size_t size)
{
    char dir[PATH_MAX], p[PATH_MAX + 32];
    bl_fmt(dir, sizeof dir, "%s", nvcc);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        dir[0] = '\0';
    static const char *const tools[] = {"", "../nvvm/bin/cicc", "ptxas"};
    size_t o = 0;
    for (int i = 0; i < 3; i++) {
        struct stat st;
        if (i)
            bl_fmt(p, sizeof p, "%s%s", dir, tools[i]);
        else
            bl_fmt(p, sizeof p, "%s", nvcc);
        if (stat(p, &st) == 0)
            o += bl_fmt(id + o, size - o, "%snvcc %s %lld %lld.%09ld", i ? " " : "", p,
                        (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                        (long)st.st_mtim.tv_nsec);
        else
            o += bl_fmt(id + o, size - o, "%s%s", i ? " " : "", p);
    }
}

/* ---- running it ---- */

extern char **environ;

/* The environment with TMPDIR=tmpdir (nvcc's own temporaries then go into our private
 * directory, removed with it): a malloc'ed array of environ's strings and one of ours. */
static char **env_with_tmpdir(const char *tmpdir, char *entry, size_t size)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = malloc((n + 2) * sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "TMPDIR=", 7))
            env[k++] = environ[i];
    bl_fmt(entry, size, "TMPDIR=%s", tmpdir);
    env[k++] = entry;
    env[k] = NULL;
    return env;
}

/* argv[0] with argv, its stdout and stderr into *out (at most 1 MiB kept), its temporaries in
 * tmpdir, under kspawn's guard (its own session and group, a deadline of limit_s, a memory
 * limit, dies with its caller). The exit status, or -1 with err when it could not be started
 * or ran past the deadline. */
static int run_argv(char *const argv[], const char *tmpdir, double limit_s,
                    const atomic_int *cancel, struct bl_buf *out, struct bl_err *err)
{
    char entry[PATH_MAX + 8];
    char **env = env_with_tmpdir(tmpdir, entry, sizeof entry);
    if (!env)
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_CANNOT_RUN_NVCC, strerror(ENOMEM));
    struct kspawn sp = {argv, env, tmpdir, limit_s > 0 ? limit_s : KNVCC_LIMIT_DEFAULT, 1u << 20,
                        cancel};
    int code = 0;
    int end = kspawn_run(&sp, out, &code, err);
    free(env);
    switch (end) {
    case KSPAWN_EXITED:
        return code == 127 ? bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_CANNOT_RUN, argv[0])
                           : code;
    case KSPAWN_SIGNALED:
        return 128 + code;
    case KSPAWN_TIMEOUT:
        return bl_fail(err, GPU_KERNEL_ETIMEOUT, BL_NOWHERE, KRN_TIMEOUT_COMPILE, sp.limit_s);
    case KSPAWN_CANCELLED:
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_COMPILE_CANCELLED);
    case KSPAWN_NOEXEC:
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_CANNOT_RUN_NVCC, strerror(code));
    default:
        return -1;
    }
}

/* ---- nvcc's messages in NVRTC's form ---- */

/* Line `line` (1-based) of src: *at and *n, or 0. */
static int src_line(const char *src, size_t len, int line, const char **at, size_t *n)
{
    const char *p = src, *end = src + len;
    for (int l = 1; p <= end; l++) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (l == line) {
            *at = p;
            *n = (size_t)(e - p);
            if (*n && p[*n - 1] == '\r')
                (*n)--;
            return 1;
        }
        if (e == end)
            break;
        p = e + 1;
    }
    return 0;
}

/* EDG echoes a line with its blanks squeezed; the caret's column in the file is where as many
 * non-blank characters stand before it. 0 when the line cannot be matched. */
static int caret_column(const char *echo, size_t caret, const char *line, size_t n)
{
    size_t want = 0;
    for (size_t i = 0; i < caret; i++)
        if (echo[i] != ' ' && echo[i] != '\t')
            want++;
    size_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (line[i] == ' ' || line[i] == '\t')
            continue;
        if (seen == want)
            return (int)i + 1;
        seen++;
    }
    return seen == want ? (int)n + 1 : 0;
}

/* "FILE(LINE): " at the start of s: the position of '(' and the line, or 0. */
static int edg_head(const char *s, size_t n, size_t *open, int *line)
{
    for (size_t i = 1; i + 3 < n; i++) {
        if (s[i] != '(' || !isdigit((unsigned char)s[i + 1]))
            continue;
        size_t j = i + 1;
        while (j < n && isdigit((unsigned char)s[j]))
            j++;
        if (j + 2 < n && s[j] == ')' && s[j + 1] == ':' && s[j + 2] == ' ') {
            *open = i;
            *line = atoi(s + i + 1);
            return 1;
        }
    }
    return 0;
}

/* "FILE:LINE:COL: KIND: message" (the host compiler's preprocessor): 1 with the parts. */
static int gcc_head(const char *s, size_t n, size_t *flen, int *line, int *col, const char **rest)
{
    for (size_t i = 1; i < n; i++) {
        if (s[i] != ':' || !isdigit((unsigned char)s[i + 1]))
            continue;
        char *e;
        long l = strtol(s + i + 1, &e, 10);
        if (*e != ':' || !isdigit((unsigned char)e[1]))
            continue;
        long c = strtol(e + 1, &e, 10);
        if (e[0] != ':' || e[1] != ' ' || (size_t)(e + 2 - s) > n)
            continue;
        const char *k = e + 2;
        if (strncmp(k, "fatal error:", 12) && strncmp(k, "error:", 6) && strncmp(k, "warning:", 8))
            return 0;
        *flen = i;
        *line = (int)l;
        *col = (int)c;
        *rest = k;
        return 1;
    }
    return 0;
}

static void put_caret(struct bl_buf *t, const char *line, size_t n, int col)
{
    bl_buf_add(t, "  ", 2);
    bl_buf_add(t, line, n);
    bl_buf_add(t, "\n  ", 3);
    for (int i = 1; i < col; i++)
        bl_buf_addc(t, ' ');
    bl_buf_add(t, "^\n", 2);
}

/* The path nvcc was given for the file, while it runs (source_path below). */
static char given_path[PATH_MAX];

/* The file nvcc was given, as a message's head names it. */
static int is_ours(const struct kcompile_in *in, const char *s, size_t n)
{
    const char *p = given_path[0] ? given_path : in->path ? in->path : in->name;
    return n == strlen(p) && !strncmp(s, p, n);
}

/* The file that names a template instance (instance_file), while nvcc runs: its messages
 * are about --name, not about a line of the user's. */
static char instance_path[PATH_MAX];

/* A message about the instance file: "FILE(0): error: --name K: message" (warnings dropped).
 * 1 when s was one (and the lines it took in *used). */
static int instance_message(const struct kcompile_in *in, char **ln, size_t *lnn, int i, int n,
                            struct bl_buf *t, int *used)
{
    size_t il = strlen(instance_path);
    const char *s = ln[i];
    if (!il || lnn[i] <= il || strncmp(s, instance_path, il) || (s[il] != '(' && s[il] != ':'))
        return 0;
    const char *err = strstr(s, ": error: ");
    const char *end = s + lnn[i];
    if (err && err < end) {
        char head[PATH_MAX + GPU_KERNEL_TEXT];
        int hl = snprintf(head, sizeof head, "%s(0): error: --name %s: ", in->name,
                          in->name_expr ? in->name_expr : "");
        bl_buf_add(t, head, (size_t)hl);
        bl_buf_add(t, err + 9, (size_t)(end - err - 9));
        bl_buf_add(t, "\n", 1);
    }
    *used = 1; /* and its echo and caret */
    while (*used < 3 && i + *used < n && lnn[i + *used] &&
           (ln[i + *used][0] == ' ' || ln[i + *used][0] == '\t'))
        (*used)++;
    return 1;
}

/* One message of nvcc's output at p (its lines until the next), rewritten into t. The number
 * of lines it took. */
static int rewrite_one(const struct kcompile_in *in, char **ln, size_t *lnn, int i, int n,
                       struct bl_buf *t)
{
    int took;
    if (instance_message(in, ln, lnn, i, n, t, &took))
        return took;
    size_t open, flen;
    int line, col;
    const char *rest;
    const char *s = ln[i];
    size_t sn = lnn[i];
    const char *at = NULL;
    size_t atn = 0;
    if (gcc_head(s, sn, &flen, &line, &col, &rest)) {
        int fatal = !strncmp(rest, "fatal ", 6);
        int ours = is_ours(in, s, flen);
        if (ours)  /* the file by its shown name, never its raw bytes */
            bl_buf_add(t, in->name, strlen(in->name));
        else
            bl_buf_add(t, s, flen);
        char head[64];
        int hl = snprintf(head, sizeof head, "(%d): ", line);
        bl_buf_add(t, head, (size_t)hl);
        bl_buf_add(t, fatal ? rest + 6 : rest, sn - (size_t)(rest - s) - (fatal ? 6 : 0));
        bl_buf_add(t, "\n", 1);
        if (ours && col > 0 && src_line(in->src, in->len, line, &at, &atn))
            put_caret(t, at, atn, col);
        int used = 1; /* the preprocessor's own echo: "    1 | ...", "      |   ^~~" */
        while (i + used < n && memchr(ln[i + used], '|', lnn[i + used]) &&
               strspn(ln[i + used], " 0123456789") < lnn[i + used] &&
               ln[i + used][strspn(ln[i + used], " 0123456789")] == '|')
            used++;
        return used;
    }
    const char *perr = sn > 6 && !strncmp(s, "ptxas ", 6) ? strstr(s, "; error   : ") : NULL;
    if (perr && perr < s + sn) { /* ptxas: the PTX's line means nothing to the user */
        char head[PATH_MAX + 32];
        int hl = snprintf(head, sizeof head, "%s(0): error: ptxas: ", in->name);
        bl_buf_add(t, head, (size_t)hl);
        bl_buf_add(t, perr + 12, sn - (size_t)(perr + 12 - s));
        bl_buf_add(t, "\n", 1);
        return 1;
    }
    int head = edg_head(s, sn, &open, &line);
    int ours = head && is_ours(in, s, open);
    if (ours) {
        bl_buf_add(t, in->name, strlen(in->name));
        bl_buf_add(t, s + open, sn - open);
    } else {
        bl_buf_add(t, s, sn);
    }
    bl_buf_add(t, "\n", 1);
    if (!head || i + 2 >= n)
        return 1;
    const char *echo = ln[i + 1], *car = ln[i + 2];
    const char *hat = memchr(car, '^', lnn[i + 2]);
    if (!hat || strspn(car, " \t") != (size_t)(hat - car) || lnn[i + 1] < 2)
        return 1;
    size_t caret = (size_t)(hat - car);
    col = 0;
    if (ours && src_line(in->src, in->len, line, &at, &atn) && caret >= 2)
        col = caret_column(echo + 2, caret - 2, at, atn);
    if (col > 0) {
        put_caret(t, at, atn, col);
    } else {
        bl_buf_add(t, echo, lnn[i + 1]);
        bl_buf_add(t, "\n", 1);
        bl_buf_add(t, car, lnn[i + 2]);
        bl_buf_add(t, "\n", 1);
    }
    return 3;
}

/* nvcc's whole output rewritten (see the top of the file); a failed compile without any
 * recognisable message keeps its last line as "error: ..." so it is shown. */
static char *rewrite_log(const struct kcompile_in *in, char *raw, int failed)
{
    struct bl_buf t = {0};
    char *ln[4096];
    size_t lnn[4096];
    int n = 0;
    for (char *p = raw; p && *p && n < 4096;) {
        char *e = strchr(p, '\n');
        ln[n] = p;
        lnn[n] = e ? (size_t)(e - p) : strlen(p);
        n++;
        p = e ? e + 1 : NULL;
    }
    for (int i = 0; i < n;)
        i += rewrite_one(in, ln, lnn, i, n, &t);
    if (failed && !strstr(bl_buf_str(&t), "error")) {
        const char *last = "nvcc failed without a message";
        size_t ll = strlen(last);
        for (int i = n - 1; i >= 0; i--)
            if (lnn[i] && strspn(ln[i], " \t") < lnn[i]) {
                last = ln[i];
                ll = lnn[i];
                break;
            }
        char head[PATH_MAX + 32];
        int hl = snprintf(head, sizeof head, "%s(0): error: ", in->name);
        bl_buf_add(&t, head, (size_t)hl);
        bl_buf_add(&t, last, ll);
        bl_buf_add(&t, "\n", 1);
    }
    return bl_buf_detach(&t, NULL);
}

/* ---- the compile ---- */

/* the file at path read whole (*n bytes, a NUL after them), or NULL (unreadable, empty,
 * over 256 MiB, out of memory) */
static unsigned char *read_file(const char *path, size_t *n)
{
    struct bl_buf t = BL_BUF_MAX(256u << 20);
    if (bl_buf_read_file(&t, path) || !t.len) {
        bl_buf_release(&t);
        return NULL;
    }
    return (unsigned char *)bl_buf_detach(&t, n);
}

/* the one file nvcc -keep left in dir whose name ends in suffix, read whole (*n bytes), or
 * NULL (none, or more than one) */
static unsigned char *kept_file(const char *dir, const char *suffix, size_t *n)
{
    struct sys_dir *d = sys_dir_open(dir);
    const char *e;
    char path[PATH_MAX + NAME_MAX + 2];
    size_t sl = strlen(suffix);
    int found = 0;
    while (d && (e = sys_dir_next(d))) {
        size_t l = strlen(e);
        if (l > sl && !strcmp(e + l - sl, suffix)) {
            found++;
            bl_fmt(path, sizeof path, "%s/%s", dir, e);
        }
    }
    if (d)
        sys_dir_close(d);
    return found == 1 ? read_file(path, n) : NULL;
}

/* The compile failed for want of space where its temporaries go: TMPDIR (dir's parent) is
 * full, or a compiler said so. */
static int no_space(const char *dir, const char *log)
{
    struct statvfs v;
    if (log && (strstr(log, "No space left on device") || strstr(log, "Disk quota exceeded")))
        return 1;
    return statvfs(dir, &v) == 0 && (v.f_bavail == 0 || (v.f_files && v.f_favail == 0));
}

static int tmpdir_full(const char *dir, struct bl_err *err)
{
    char base[PATH_MAX];
    bl_fmt(base, sizeof base, "%s", dir);
    char *slash = strrchr(base, '/');
    if (slash && slash != base)
        *slash = '\0';
    return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_TMPDIR_FULL, base);
}

/* A compiler stopped by its memory limit (RLIMIT_AS: its allocations fail). */
static int out_of_memory(const char *log)
{
    static const char *const says[] = {"out of memory", "memory exhausted",
                                       "Cannot allocate memory", "bad_alloc"};
    for (size_t i = 0; log && i < sizeof says / sizeof says[0]; i++)
        if (strstr(log, says[i]))
            return 1;
    return 0;
}

/* The path nvcc reads the file by: its real bytes (in->path). A name with bytes that are not
 * UTF-8 or are control characters is handed over as a link in the private directory dir to
 * the real file, named with each such byte as '?': nvcc reads the file itself (never one
 * named by an escaped copy), and its messages and line table name the link, which
 * bl_name_same matches (nvcc would write '?' for some such bytes, C escapes or a cut name
 * for others). */
static void source_path(const struct kcompile_in *in, const char *dir, char *out, size_t n)
{
    const char *real = in->path ? in->path : in->name;
    bl_fmt(out, n, "%s", real);
    char clean[PATH_MAX], cwd[PATH_MAX], target[PATH_MAX], link[PATH_MAX];
    if (!strcmp(bl_clean(clean, sizeof clean, real), real))
        return;
    if (real[0] == '/')
        bl_fmt(target, sizeof target, "%s", real);
    else if (getcwd(cwd, sizeof cwd))
        bl_fmt(target, sizeof target, "%s/%s", cwd, real);
    else
        return;
    const char *base = strrchr(real, '/');
    base = base ? base + 1 : real;
    size_t bl = strlen(base);
    char masked[NAME_MAX + 1];
    if (!bl || bl > NAME_MAX)
        return;
    memcpy(masked, base, bl + 1);
    bl_mask(masked, bl);
    bl_fmt(link, sizeof link, "%s/%s", dir, masked);
    if (symlink(target, link) == 0)
        bl_fmt(out, n, "%s", link);
}

/* A file that includes the user's and names the template instance, so nvcc makes it: only
 * for a name with template arguments. 0 with its path, -1 (compile the file itself). */
static int instance_file(const struct kcompile_in *in, const char *dir, char *path, size_t n)
{
    const char *real = given_path;
    if (!in->name_expr || !strchr(in->name_expr, '<') || strpbrk(real, "\"\\\n"))
        return -1;
    bl_fmt(path, n, "%s/instance.cu", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "#include \"%s\"\nstatic void *const banklab_instance_ __attribute__((unused)) "
            "= (void *)&%s;\n", real, in->name_expr);
    return fclose(f) ? -1 : 0;
}

/* The files a compile read, from the linemarkers (# LINE "PATH" FLAGS) of the device side's
 * preprocessed text that nvcc -keep left in dir (NAME.cpp1.ii): each distinct path once, one
 * a line; NULL when there is no such file. */
static char *kept_deps(const char *dir)
{
    size_t n = 0;
    unsigned char *text = kept_file(dir, ".cpp1.ii", &n);
    if (!text)
        return NULL;
    struct bl_buf out = {0}, seen = {0};
    char last[PATH_MAX + 2] = "";
    bl_buf_add(&seen, "\n", 1);
    for (char *p = (char *)text, *end = p + n; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        nl = nl ? nl : end;
        char *q = p + 1, name[PATH_MAX + 2];
        size_t o = 0;
        if (*p == '#' && q < nl && *q == ' ' && isdigit((unsigned char)q[1])) {
            for (q++; q < nl && isdigit((unsigned char)*q); q++)
                ;
            if (q + 1 < nl && q[0] == ' ' && q[1] == '"') {
                for (q += 2; q < nl && *q != '"' && o + 2 < sizeof name; q++)
                    name[o++] = *q == '\\' && q + 1 < nl ? *++q : *q;
                name[o] = '\0';
                if (o && name[0] != '<' && strcmp(name, last)) {
                    bl_fmt(last, sizeof last, "%s", name);
                    name[o++] = '\n';
                    name[o] = '\0';
                    char *at = strstr(seen.s, name);
                    if (!at || at[-1] != '\n') {
                        bl_buf_add(&seen, name, o);
                        bl_buf_add(&out, name, o);
                    }
                }
            }
        }
        p = nl + 1;
    }
    bl_buf_release(&seen);
    free(text);
    return bl_buf_detach(&out, NULL);
}

char *knvcc_kept_deps(const char *dir, struct timespec since)
{
    char *paths = kept_deps(dir), cwd[PATH_MAX];
    struct bl_buf abs = {0};
    for (char *p = paths, *nl; p && *p; p = nl + 1) {   /* a relative one: nvcc's cwd, ours */
        nl = strchr(p, '\n');
        if (!nl)
            break;
        if (*p != '/') {
            if (!getcwd(cwd, sizeof cwd)) {
                abs.failed = errno;
                break;
            }
            bl_buf_add(&abs, cwd, strlen(cwd));
            bl_buf_add(&abs, "/", 1);
        }
        bl_buf_add(&abs, p, (size_t)(nl - p) + 1);
    }
    char *deps = paths && abs.s && !abs.failed ? kcache_deps(abs.s, dir, since) : NULL;
    free(paths);
    bl_buf_release(&abs);
    return deps;
}

struct kept {                    /* what nvcc -keep left besides the output */
    char *ptx;                   /* a cubin compile's PTX (NULL: none) */
    size_t ptx_size;
    char *deps;                  /* kcache_deps of the files it read (NULL: none) */
};

/* the compile (kcompile_nvcc's, less the cache), and with keep (k not NULL) the PTX a cubin compile made on the way and the
 * files the compile read into *k */
static int nvcc_run(const struct kcompile_in *in, struct kept *k, struct compiled *out,
                    struct bl_err *err)
{
    struct timespec start;
    clock_gettime(CLOCK_REALTIME, &start);
    char dir[PATH_MAX];
    sys_tmp_sweep("nvcc", 0); /* those of measuring processes killed with their caller */
    if (sys_tmp_make("nvcc", dir, sizeof dir)) {
        if (errno == ENOSPC || errno == EDQUOT)
            return tmpdir_full(dir, err);
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_NVCC_NO_TMPDIR, strerror(errno));
    }
    char arch[32], cubin[PATH_MAX], inc[PATH_MAX + 4], input[PATH_MAX];
    bl_fmt(arch, sizeof arch, "-arch=sm_%d", in->arch);
    bl_fmt(cubin, sizeof cubin, in->ptx ? "%s/k.ptx" : "%s/k.cubin", dir);
    bl_fmt(inc, sizeof inc, "-I%s", in->dir);
    instance_path[0] = '\0';
    source_path(in, dir, given_path, sizeof given_path);
    if (instance_file(in, dir, input, sizeof input))
        bl_fmt(input, sizeof input, "%s", given_path);
    else
        bl_fmt(instance_path, sizeof instance_path, "%s", input);
    char *argv[16 + GPU_KERNEL_MAX_FLAGS];
    int ac = 0;
    argv[ac++] = (char *)in->nvcc;
    argv[ac++] = in->ptx ? "-ptx" : "-cubin";
    argv[ac++] = "-lineinfo";
    argv[ac++] = arch;
    argv[ac++] = inc;
    for (int i = 0; i < in->nflags && i < GPU_KERNEL_MAX_FLAGS; i++)
        argv[ac++] = (char *)in->flags[i];
    if (k) { /* nvcc's PTX on the way to the cubin (the same bytes), its preprocessed text */
        argv[ac++] = "-keep";
        argv[ac++] = "--keep-dir";
        argv[ac++] = dir;
    }
    argv[ac++] = "-o";
    argv[ac++] = cubin;
    argv[ac++] = input;
    argv[ac] = NULL;
    struct bl_buf log = {0};
    int rc = run_argv(argv, dir, in->limit_s, in->cancel, &log, err);
    if (rc > 0 && no_space(dir, bl_buf_str(&log)))
        rc = tmpdir_full(dir, err); /* not the file's fault: say where the space ran out */
    else if (rc > 0 && out_of_memory(bl_buf_str(&log)))
        rc = bl_fail(err, GPU_KERNEL_ECOMPILE, BL_NOWHERE, KRN_COMPILER_MEMORY,
                     kspawn_mem() >> 20);
    if (rc < 0) {
        bl_buf_release(&log);
        sys_tmp_remove(dir);
        return -1;
    }
    if (in->dbg)
        fprintf(in->dbg, "nvcc (exit %d): %s\n", rc, bl_buf_str(&log));
    out->log = rewrite_log(in, log.s, rc != 0); /* NULL: no output */
    bl_buf_release(&log);
    if (rc == 0) {
        out->cubin = read_file(cubin, &out->cubin_size);
        if (!out->cubin) {
            bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_NVCC_NO_CUBIN, in->name);
            sys_tmp_remove(dir);
            return -1;
        }
        out->ok = 1;
        if (in->name_expr && !in->ptx)
            knvcc_symbol(out->cubin, out->cubin_size, in->name_expr, in->src, in->len,
                         out->lowered, sizeof out->lowered);
        if (k && !in->ptx)
            k->ptx = (char *)kept_file(dir, ".ptx", &k->ptx_size);
        char *paths = k ? kept_deps(dir) : NULL;
        if (paths)
            k->deps = kcache_deps(paths, dir, start);
        free(paths);
    }
    sys_tmp_remove(dir);
    return 0;
}

/* the options of an nvcc compile as its cache key has them (nvcc_run's argv less the
 * output, the temporary paths and -keep) */
static int key_options(const struct kcompile_in *in, const char **opts, char *arch, char *inc)
{
    int n = 0;
    sprintf(arch, "-arch=sm_%d", in->arch);
    bl_fmt(inc, PATH_MAX + 4, "-I%s", in->dir);
    opts[n++] = "-lineinfo";
    opts[n++] = arch;
    opts[n++] = inc;
    for (int i = 0; i < in->nflags && i < GPU_KERNEL_MAX_FLAGS; i++)
        opts[n++] = in->flags[i];
    return n;
}

int kcompile_nvcc(const struct kcompile_in *in, struct compiled *out, int *cache_hit,
                  struct bl_err *err)
{
    memset(out, 0, sizeof *out);
    *cache_hit = 0;
    char compiler[3 * PATH_MAX], arch[32], inc[PATH_MAX + 4], cname[64], pname[64];
    const char *opts[4 + GPU_KERNEL_MAX_FLAGS];
    knvcc_id(in->nvcc, compiler, sizeof compiler);
    int nopts = key_options(in, opts, arch, inc);
    struct bl_buf key, pkey = {0};
    const char *kind = in->ptx ? "ptx" : "cubin";
    /* the whole file is compiled whichever kernel is wanted (a template instance aside: its
     * own file, instance_file): keyed without the name, the kernel's symbol found anew */
    struct kcompile_in whole = *in;
    if (whole.name_expr && !strchr(whole.name_expr, '<'))
        whole.name_expr = "";
    int cached = kcache_key_compile(&whole, kind, compiler, opts, nopts, &key, cname,
                                    sizeof cname) == 0;
    if (cached && kcache_get(in->cache_dir, cname, &key, out) == 0) {
        if (!in->ptx && in->name_expr && !strchr(in->name_expr, '<'))
            knvcc_symbol(out->cubin, out->cubin_size, in->name_expr, in->src, in->len,
                         out->lowered, sizeof out->lowered);
        if (in->ptx || out->lowered[0]) {
            *cache_hit = 1;
            bl_buf_release(&key);
            return 0;
        }
        compiled_done(out); /* no such kernel: the compile says so, in its words */
    }
    /* the PTX too, when its entry is missing: one nvcc for both */
    int ptx_too = cached && !in->ptx &&
                  kcache_key_compile(&whole, "ptx", compiler, opts, nopts, &pkey, pname,
                                     sizeof pname) == 0;
    if (ptx_too) {
        struct compiled have;
        memset(&have, 0, sizeof have);
        if (kcache_get(in->cache_dir, pname, &pkey, &have) == 0)
            ptx_too = 0;
        free(have.log);
        free(have.cubin);
    }
    struct kept k = {0};
    int rc = nvcc_run(in, cached ? &k : NULL, out, err);
    /* an entry only with the list of the files the compile read (kcache_deps) */
    if (rc == 0 && out->ok && cached && k.deps && (in->ptx || out->lowered[0]))
        kcache_put(in, cname, &key, out->log, out->lowered, out->cubin, out->cubin_size, k.deps);
    if (rc == 0 && out->ok && ptx_too && k.ptx && k.deps)
        kcache_put(in, pname, &pkey, out->log, "", k.ptx, k.ptx_size, k.deps);
    free(k.ptx);
    free(k.deps);
    bl_buf_release(&key);
    bl_buf_release(&pkey);
    return rc;
}
