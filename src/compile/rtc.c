/* rtc.c: the PTX of a fix's copy of a kernel-only file (predict/exec.c), made by the NVRTC of
 * the toolkit nvcc belongs to (TOOLKIT/lib64/libnvrtc.so) in a child process (`banklab
 * __nvrtc`, krtc_child_main) under the compiler guard (compile/spawn.h: deadline, memory limit,
 * cancel, its temporary directory), without nvcc's host preprocessor and cuda_runtime.h: a
 * fifth of nvcc's time. Through the cache of compiled kernels under keys of its own; a copy
 * NVRTC does not compile (host headers, options only nvcc knows) goes to nvcc as before. The
 * learner's own file stays nvcc's: NVRTC's code is not always nvcc's (64-bit shared
 * addresses, other loops), and the GPU runs nvcc's. Never prints (the child writes NVRTC's
 * log to its stdout). */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../base/utf8.h"
#include "../base/buf.h"
#include "compile.h"
#include "spawn.h"
#include "../cuda/cudalib.h"
#include "../sys/sys.h"

/* ---- the child: banklab __nvrtc LIB OUTDIR ARCH FILE NAME EXPR OPTION... ---- */

typedef int (*rtc_create_fn)(void **, const char *, const char *, int, const char *const *,
                             const char *const *);
typedef int (*rtc_compile_fn)(void *, int, const char *const *);
typedef int (*rtc_size_fn)(void *, size_t *);
typedef int (*rtc_get_fn)(void *, char *);
typedef int (*rtc_name_fn)(void *, const char *);
typedef int (*rtc_lowered_fn)(void *, const char *, const char **);
typedef int (*rtc_destroy_fn)(void **);

static int put_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[PATH_MAX + 16];
    bl_fmt(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wbx");
    if (!f)
        return -1;
    int bad = fwrite(p, 1, n, f) != n;
    return fclose(f) || bad ? -1 : 0;
}

/* exit 0: compiled (OUTDIR/k.ptx); 1: NVRTC refused the file
 * (its log on stdout); 3: no such libnvrtc or function; 2: bad arguments or I/O */
int krtc_child_main(int argc, char **argv)
{
    if (argc < 6)
        return 2;
    void *lib = bl_nvrtc_open_at(argv[0]);
    if (!lib) {
        printf("%s\n", dlerror());
        return 3;
    }
    rtc_create_fn create = (rtc_create_fn)dlsym(lib, "nvrtcCreateProgram");
    rtc_compile_fn compile = (rtc_compile_fn)dlsym(lib, "nvrtcCompileProgram");
    rtc_size_fn log_size = (rtc_size_fn)dlsym(lib, "nvrtcGetProgramLogSize");
    rtc_get_fn log = (rtc_get_fn)dlsym(lib, "nvrtcGetProgramLog");
    rtc_size_fn ptx_size = (rtc_size_fn)dlsym(lib, "nvrtcGetPTXSize");
    rtc_get_fn ptx = (rtc_get_fn)dlsym(lib, "nvrtcGetPTX");
    rtc_name_fn add_name = (rtc_name_fn)dlsym(lib, "nvrtcAddNameExpression");
    rtc_destroy_fn destroy = (rtc_destroy_fn)dlsym(lib, "nvrtcDestroyProgram");
    if (!create || !compile || !log_size || !log || !ptx_size || !ptx || !add_name || !destroy)
        return 3;
    struct bl_buf src = BL_BUF_MAX(64u << 20);
    if (bl_buf_read_file(&src, argv[3]) || bl_buf_grow(&src, 1))
        return 2;
    char arch[64];
    bl_fmt(arch, sizeof arch, "--gpu-architecture=%s", argv[2]);
    const char **opts = calloc((size_t)argc, sizeof *opts);
    if (!opts)
        return 2;
    int nopts = 0;
    opts[nopts++] = arch;
    for (int i = 6; i < argc; i++)
        opts[nopts++] = argv[i];
    void *prog = NULL;
    if (create(&prog, src.s, argv[4], 0, NULL, NULL))
        return 2;
    if (argv[5][0])
        add_name(prog, argv[5]);
    int cr = compile(prog, nopts, opts);
    size_t n = 0;
    if (log_size(prog, &n) == 0 && n > 1) {
        char *t = malloc(n);
        if (t && log(prog, t) == 0)
            fwrite(t, 1, strnlen(t, n), stdout);
        free(t);
    }
    fflush(stdout);
    if (cr)
        return 1;
    int rc = 0;
    char *b = NULL;
    if (ptx_size(prog, &n) || !n || !(b = malloc(n)) || ptx(prog, b) ||
        put_file(argv[1], "k.ptx", b, strnlen(b, n)))
        rc = 2;
    free(b);
    destroy(&prog);
    return rc;
}

int kcompile_has_main(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
        } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
            for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
                ;
            i++;
        } else if (s[i] == '"' || s[i] == '\'') {
            char q = s[i];
            for (i++; i < n && s[i] != q && s[i] != '\n'; i++)
                i += s[i] == '\\';
        } else if (!strncmp(s + i, "main", 4) && i + 4 <= n &&
                   (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))) {
            size_t j = i + 4;
            if (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
                continue;
            while (j < n && isspace((unsigned char)s[j]))
                j++;
            if (j < n && s[j] == '(')
                return 1;
        }
    }
    return 0;
}

/* ---- the parent ---- */

static int self_ok; /* this process is banklab: /proc/self/exe has the __nvrtc child */

void krtc_enable(void)
{
    self_ok = 1;
}

/* the toolkit of nvcc (its directory's parent) into root and that toolkit's libnvrtc into
 * lib; 0, or -1 (no such library: nvcc alone) */
static int toolkit(const char *nvcc, char *root, size_t rs, char *lib, size_t ls)
{
    if (knvcc_toolkit(nvcc, root, rs))
        return -1;
    static const char *const names[] = {"lib64/libnvrtc.so", "lib64/libnvrtc.so.13",
                                        "lib/libnvrtc.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[PATH_MAX + 32], real[PATH_MAX];
        struct stat st;
        bl_fmt(p, sizeof p, "%s/%s", root, names[i]);
        if (realpath(p, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode)) {
            bl_fmt(lib, ls, "%s", real);
            return 0;
        }
    }
    return -1;
}

/* the -I directories of the compile, in NVRTC's order: the file's, the flags', the toolkit's */
struct incdirs {
    int n;
    char dir[GPU_KERNEL_MAX_FLAGS + 4][PATH_MAX];
};

static int incdirs(const struct kcompile_in *in, const char *root, struct incdirs *d)
{
    d->n = 0;
    bl_fmt(d->dir[d->n++], PATH_MAX, "%s", in->dir);
    for (int i = 0; i < in->nflags && i < GPU_KERNEL_MAX_FLAGS; i++) {
        if (!strncmp(in->flags[i], "-I", 2)) {
            if (!in->flags[i][2])
                return -1; /* "-I DIR" in two words: nvcc's */
            bl_fmt(d->dir[d->n++], PATH_MAX, "%s", in->flags[i] + 2);
        }
    }
    bl_fmt(d->dir[d->n++], PATH_MAX, "%s/include", root);
    bl_fmt(d->dir[d->n++], PATH_MAX, "%s/include/cccl", root);
    return 0;
}

/* the files the compile may read besides the toolkit's: every #include of src (and of those
 * files, transitively) found in the including file's directory (quoted) or the -I
 * directories, one absolute path a line into *out; an include found in the toolkit is the
 * toolkit's (its identity is in the key). -1 when an #include names no "file" or <file>
 * (a macro: nvcc's route, whose deps come from its preprocessor). */
static int scan_deps(const char *src, size_t len, const char *dir, const struct incdirs *d,
                     const char *root, struct bl_buf *out, int depth)
{
    size_t rl = strlen(root);
    for (const char *p = src, *end = src + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end, *q = p;
        p = e + 1;
        while (q < e && isspace((unsigned char)*q))
            q++;
        if (q >= e || *q++ != '#')
            continue;
        while (q < e && isspace((unsigned char)*q))
            q++;
        if ((size_t)(e - q) < 7 || strncmp(q, "include", 7))
            continue;
        for (q += 7; q < e && isspace((unsigned char)*q); q++)
            ;
        char close = q < e && *q == '"' ? '"' : q < e && *q == '<' ? '>' : 0;
        const char *c = close ? memchr(q + 1, close, (size_t)(e - q - 1)) : NULL;
        if (!c || c == q + 1 || (size_t)(c - q) >= NAME_MAX * 4)
            return -1;
        char name[NAME_MAX * 4], path[2 * PATH_MAX], real[PATH_MAX];
        bl_fmt(name, sizeof name, "%.*s", (int)(c - q - 1), q + 1);
        int found = 0;
        for (int i = close == '"' ? -1 : 0; i < d->n && !found; i++) {
            bl_fmt(path, sizeof path, "%s/%s", i < 0 ? dir : d->dir[i], name);
            struct stat st;
            found = realpath(path, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode);
        }
        if (!found || (!strncmp(real, root, rl) && real[rl] == '/'))
            continue;
        char line[PATH_MAX + 2];
        size_t ll = bl_fmt(line, sizeof line, "\n%s\n", real);
        if (out->s && (strstr(out->s, line) || !strncmp(out->s, line + 1, ll - 1)))
            continue; /* read once */
        bl_buf_add(out, line + 1, ll - 1);
        if (depth >= 32 || out->failed)
            return -1;
        size_t n = 0;
        FILE *f = fopen(real, "rb");
        struct bl_buf t = BL_BUF_MAX(KCACHE_INCLUDE_MAX);
        char chunk[65536];
        while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
            if (bl_buf_add(&t, chunk, n))
                break;
        if (f)
            fclose(f);
        char *slash = strrchr(real, '/');
        *slash = '\0';
        int rc = t.failed ? -1 : scan_deps(t.s ? t.s : "", t.len, real, d, root, out, depth + 1);
        free(t.s);
        if (rc)
            return -1;
    }
    return 0;
}

/* the child run: 0 compiled (files in dir), 1 not (nvcc's turn), -1 with err (its deadline,
 * a cancel: what nvcc would say too) */
static int run_child(const struct kcompile_in *in, const char *lib, const struct incdirs *d,
                     const char *dir, struct bl_buf *log, struct bl_err *err)
{
    char *argv[24 + GPU_KERNEL_MAX_FLAGS];
    char incs[GPU_KERNEL_MAX_FLAGS + 4][PATH_MAX + 2];
    int ac = 0;
    argv[ac++] = "/proc/self/exe";
    argv[ac++] = "__nvrtc";
    argv[ac++] = (char *)lib;
    argv[ac++] = (char *)dir;
    argv[ac++] = "compute_90";
    argv[ac++] = (char *)(in->path ? in->path : in->name);
    argv[ac++] = (char *)in->name;
    argv[ac++] = (char *)(in->name_expr ? in->name_expr : "");
    argv[ac++] = "-lineinfo";
    argv[ac++] = "--std=c++17";
    for (int i = 0; i < d->n; i++) {
        struct stat st;
        if (i && i >= d->n - 2 && stat(d->dir[i], &st))
            continue;            /* a toolkit without include/cccl */
        bl_fmt(incs[i], sizeof incs[i], "-I%s", d->dir[i]);
        argv[ac++] = incs[i];
    }
    for (int i = 0; i < in->nflags && i < GPU_KERNEL_MAX_FLAGS; i++)
        if (strncmp(in->flags[i], "-I", 2))
            argv[ac++] = (char *)in->flags[i];
    argv[ac] = NULL;
    extern char **environ;
    struct kspawn sp = {argv, environ, dir, in->limit_s > 0 ? in->limit_s : 60.0, 1u << 20,
                        in->cancel};
    int code = 0, end = kspawn_run(&sp, log, &code, err);
    if (end == KSPAWN_TIMEOUT)
        return bl_fail(err, GPU_KERNEL_ETIMEOUT, BL_NOWHERE, KRN_TIMEOUT_COMPILE, sp.limit_s);
    if (end == KSPAWN_CANCELLED)
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_COMPILE_CANCELLED);
    bl_err_clear(err);
    return end == KSPAWN_EXITED && code == 0 ? 0 : 1;
}

static unsigned char *slurp(const char *dir, const char *name, size_t *n)
{
    char path[PATH_MAX + 16];
    bl_fmt(path, sizeof path, "%s/%s", dir, name);
    struct bl_buf t = BL_BUF_MAX(256u << 20);
    if (bl_buf_read_file(&t, path)) {
        bl_buf_release(&t);
        return NULL;
    }
    *n = t.len;
    return (unsigned char *)t.s;
}

/* the key of the PTX entry (kcache_key_compile) */
static int rtc_key(const struct kcompile_in *in, const char *lib, struct bl_buf *pk, char *pname)
{
    char compiler[4 * PATH_MAX + 64], tools[3 * PATH_MAX], arch[32], inc[PATH_MAX + 4];
    struct stat st;
    if (stat(lib, &st))
        return -1;
    knvcc_id(in->nvcc, tools, sizeof tools);
    bl_fmt(compiler, sizeof compiler, "nvrtc %s %lld %lld.%09ld; %s", lib, (long long)st.st_size,
           (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec, tools);
    const char *opts[3 + GPU_KERNEL_MAX_FLAGS];
    int n = 0;
    bl_fmt(arch, sizeof arch, "-arch=sm_%d", in->arch);
    bl_fmt(inc, sizeof inc, "-I%s", in->dir);
    opts[n++] = "-lineinfo";
    opts[n++] = arch;
    opts[n++] = inc;
    for (int i = 0; i < in->nflags && i < GPU_KERNEL_MAX_FLAGS; i++)
        opts[n++] = in->flags[i];
    return kcache_key_compile(in, "ptx", compiler, opts, n, pk, pname, 64);
}

/* the PTX the child made into out, and its entry (with deps) */
static int take(const struct kcompile_in *in, const char *dir, const struct bl_buf *pk,
                const char *pname, const char *deps, struct compiled *out)
{
    size_t pn = 0;
    unsigned char *ptx = slurp(dir, "k.ptx", &pn);
    if (!ptx)
        return -1;
    if (deps && pk->s)
        kcache_put(in, pname, pk, out->log ? out->log : "", "", ptx, pn, deps);
    out->cubin = ptx;
    out->cubin_size = pn;
    out->ok = 1;
    return 0;
}

int krtc_compile(const struct kcompile_in *in, struct compiled *out, int *cache_hit,
                 struct bl_err *err)
{
    char root[PATH_MAX], lib[PATH_MAX], pname[64] = "";
    static struct incdirs d;
    if (!self_ok || !in->rtc_first || !in->ptx || !in->nvcc || in->arch != 90 ||
        toolkit(in->nvcc, root, sizeof root, lib, sizeof lib) || incdirs(in, root, &d))
        return 0;
    char clean[PATH_MAX];
    const char *real = in->path ? in->path : in->name;
    if (strcmp(bl_clean(clean, sizeof clean, real), real) || strcmp(in->name, real))
        return 0; /* NVRTC's line table names the file as told: its real bytes only */
    struct bl_buf deps_in = BL_BUF_MAX(1u << 20), pk = KCACHE_KEY();
    bl_buf_grow(&deps_in, 1);
    if (scan_deps(in->src, in->len, in->dir, &d, root, &deps_in, 0)) {
        free(deps_in.s);
        return 0;
    }
    int keyed = in->cache_dir && in->cache_dir[0] && in->name_expr &&
                rtc_key(in, lib, &pk, pname) == 0;
    if (keyed && kcache_get(in->cache_dir, pname, &pk, out) == 0) {
        *cache_hit = 1;
        free(deps_in.s);
        free(pk.s);
        return 1;
    }
    struct timespec start;
    clock_gettime(CLOCK_REALTIME, &start);
    char dir[PATH_MAX];
    int rc = 0;
    if (sys_tmp_make("nvrtc", dir, sizeof dir) == 0) {
        struct bl_buf log = BL_BUF_INIT;
        int ran = run_child(in, lib, &d, dir, &log, err);
        if (ran < 0) {
            rc = -1;
        } else if (ran == 0) {
            char *deps = keyed ? kcache_deps(deps_in.s, NULL, start) : NULL;
            out->log = log.s ? log.s : strdup("");
            log.s = NULL;
            if (out->log && take(in, dir, &pk, pname, deps, out) == 0) {
                rc = 1;
            } else {
                free(out->log);
                out->log = NULL;
            }
            free(deps);
        }
        if (in->dbg)
            fprintf(in->dbg, "nvrtc (%s): %s\n", rc > 0 ? "compiled" : "nvcc next",
                     log.s ? log.s : "");
        free(log.s);
        sys_tmp_remove(dir);
    }
    free(deps_in.s);
    free(pk.s);
    return rc;
}
