/* program.c: a whole program run without a GPU through banklab's CUDA runtime
 * (predict/program.h): nvcc builds it and its PTX in a private directory, a child runs it with
 * the runtime first on LD_LIBRARY_PATH, and the runtime's records (src/xrt/xrt_out.c: launch,
 * status, note, steps, line, end, unsupported, fatal lines) are read back. No CUDA; never prints. */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/utf8.h"
#include "../ptx/ptx_agg.h"
#include "../compile/compile.h"
#include "exec.h"
#include "predict.h"
#include "program.h"
#include "../sys/sys.h"

#define KXRT_KEEP (1u << 20)                       /* bytes of the program's output kept */
#define KXRT_AS_LIMIT (16ull * 1024 * 1024 * 1024) /* the child's address space */

static int is_lib(const char *dir)
{
    char p[PATH_MAX];
    struct stat st;
    bl_fmt(p, sizeof p, "%s/libcudart.so.13", dir);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int kxrt_lib_dir(char *dir, size_t size)
{
    const char *env = sys_env("BANKLAB_XRT_DIR");
    if (env && *env) {
        bl_fmt(dir, size, "%s", env);
        return is_lib(dir) ? 0 : -1;
    }
    char dirs[SYS_OWN_DIRS][SYS_DIR_MAX];
    for (int i = 0, n = sys_own_dirs(dirs); i < n; i++) {
        bl_fmt(dir, size, "%s/xrt", dirs[i]);
        if (is_lib(dir))
            return 0;
    }
    return -1;
}

/* ---- the child processes ---- */

static void limits_in_child(void *ctx)
{
    int timeout_s = *(const int *)ctx;
    struct rlimit as = {KXRT_AS_LIMIT, KXRT_AS_LIMIT}, cpu = {(rlim_t)timeout_s + 1, (rlim_t)timeout_s + 2};
    setrlimit(RLIMIT_AS, &as);
    setrlimit(RLIMIT_CPU, &cpu);
}

/* spawn's wait for pid when its caller may cancel: *cancel looked at every 20 ms */
static int wait_cancellable(pid_t pid, int timeout_s, const atomic_int *cancel)
{
    int ws = 0;
    pid_t w;
    struct timespec nap = {0, 20 * 1000 * 1000};
    double end = bl_now_ms() + 1000.0 * timeout_s;
    while ((w = waitpid(pid, &ws, WNOHANG)) == 0 || (w < 0 && errno == EINTR)) {
        int cancelled = atomic_load(cancel) != 0;
        if (cancelled || bl_now_ms() >= end) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
                ;
            return cancelled ? -3 : -2;
        }
        nanosleep(&nap, NULL);
    }
    if (w < 0)
        return -1;
    kill(-pid, SIGKILL);   /* what it left behind in its group */
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* argv in dir with stdout and stderr into the files out and err, at most timeout_s seconds
 * (its whole process group killed then, and as soon as *cancel is set when cancel is not
 * NULL). The exit status, 128 + signal, -2 timed out, -3 cancelled, -1 not started (errno). */
static int spawn(char *const argv[], char *const envp[], const char *out, const char *err,
                 int timeout_s, const atomic_int *cancel)
{
    int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fo < 0 || fe < 0) {
        if (fo >= 0)
            close(fo);
        if (fe >= 0)
            close(fe);
        return -1;
    }
    static const int dfl[] = {SIGPIPE, SIGINT, 0};
    struct sys_spawn sp = {.argv = argv, .envp = envp, .group = SYS_OWN_GROUP,
                           .fd = {SYS_FD_NULL, fo, fe}, .fd3 = -1, .pdeath_sig = SIGKILL,
                           .dfl_signals = dfl, .exec_fail_exits = 1,
                           .setup = limits_in_child, .ctx = &timeout_s};
    pid_t pid = sys_spawn(&sp);
    close(fo);
    close(fe);
    if (pid < 0)
        return -1;
    if (cancel)
        return wait_cancellable(pid, timeout_s, cancel);
    int status = 0, w = sys_wait(pid, 1000.0 * timeout_s, 1, &status);
    if (w < 0)
        return -1;
    if (w > 0)
        return -2;
    kill(-pid, SIGKILL);   /* what it left behind in its group */
    return status;
}

/* The file at path, NUL-terminated; "" when it is missing (a program that ended before its
 * first launch writes no records); NULL when unreadable or out of memory. Its first max bytes
 * when cut is 1 (the program's output: what is kept of it), else NULL when it is longer than
 * max. */
static char *slurp(const char *path, size_t max, int cut, size_t *n)
{
    struct bl_buf b = BL_BUF_MAX(max);
    *n = 0;
    if (bl_buf_read_file(&b, path) && !(errno == ENOENT && !b.failed) &&
        !(cut && b.failed == EFBIG)) {
        bl_buf_release(&b);
        return NULL;
    }
    return bl_buf_detach(&b, n);
}

extern char **environ;

/* the environment of the program: ours with LD_LIBRARY_PATH, LD_BIND_NOW and the runtime's
 * files set (entries in keep[6]) */
static char **child_env(const char *lib_dir, const char *dir, char keep[6][PATH_MAX + 64])
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 7, sizeof *env);
    if (!env)
        return NULL;
    const char *old = sys_env("LD_LIBRARY_PATH");
    bl_fmt(keep[0], sizeof keep[0], "LD_LIBRARY_PATH=%s%s%s", lib_dir, old && *old ? ":" : "",
           old && *old ? old : "");
    bl_fmt(keep[1], sizeof keep[1], "LD_BIND_NOW=1");
    bl_fmt(keep[2], sizeof keep[2], "BANKLAB_XRT_PTX=%s/prog.ptx", dir);
    bl_fmt(keep[3], sizeof keep[3], "BANKLAB_XRT_OUT=%s/records", dir);
    bl_fmt(keep[4], sizeof keep[4], "CUDA_VISIBLE_DEVICES=");
    bl_fmt(keep[5], sizeof keep[5], "BANKLAB_XRT_SASS=%s/sass", dir);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int ours = 0;
        for (int j = 0; j < 6; j++) {
            size_t eq = (size_t)(strchr(keep[j], '=') - keep[j]) + 1;
            ours |= !strncmp(environ[i], keep[j], eq);
        }
        if (!ours)
            env[k++] = environ[i];
    }
    for (int j = 0; j < 6; j++)
        env[k++] = keep[j];
    env[k] = NULL;
    return env;
}

/* nvcc with the request's flags, then `extra` words: the status (see spawn) */
static int nvcc(const char *nv, const char *path, const struct gpu_kernel_request *req,
                const char *dir, const char *const extra[], int nextra, const atomic_int *cancel)
{
    const char *argv[GPU_KERNEL_MAX_FLAGS + 16];
    int a = 0;
    argv[a++] = nv;
    argv[a++] = "-arch=sm_90";
    argv[a++] = "-lineinfo";
    for (int i = 0; i < req->nflags; i++)
        argv[a++] = req->flags[i];
    for (int i = 0; i < nextra; i++)
        argv[a++] = extra[i];
    argv[a++] = path;
    argv[a] = NULL;
    char out[PATH_MAX], err[PATH_MAX];
    bl_fmt(out, sizeof out, "%s/nvcc.out", dir);
    bl_fmt(err, sizeof err, "%s/nvcc.err", dir);
    char tmp[PATH_MAX + 8];
    bl_fmt(tmp, sizeof tmp, "TMPDIR=%s", dir);
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "TMPDIR=", 7))
            env[k++] = environ[i];
    env[k++] = tmp;
    int rc = spawn((char *const *)argv, env, out, err, 300, cancel);
    free(env);
    return rc;
}

/* ---- the program built: one nvcc, or the cache ---- */

/* the key of the program's build (kcache_key_compile; kind "prog" or "progptx"): the source
 * and the files it includes, the flags, the compiler, and the path nvcc is given (its PTX's
 * lines name it) with the directory a relative one is read from. -1: no cache. */
static int build_key(const char *nv, const char *path, const struct gpu_kernel_request *req,
                     const struct bl_buf *src, const char *kind, struct bl_buf *key, char *name,
                     size_t nsz)
{
    char compiler[6 * PATH_MAX], real[PATH_MAX], fdir[PATH_MAX], cwd[PATH_MAX] = "";
    char given[2 * PATH_MAX + 8];
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
        return -1;
    knvcc_id(nv, compiler, sizeof compiler);
    size_t cl = strlen(compiler);
    knvcc_host_id(compiler + cl, sizeof compiler - cl);
    knvcc_where(path, real, sizeof real, fdir, sizeof fdir);
    bl_fmt(given, sizeof given, "%s\n%s", cwd, path);
    const char *opts[GPU_KERNEL_MAX_FLAGS + 4];
    int n = 0;
    opts[n++] = "-arch=sm_90";
    opts[n++] = "-lineinfo";
    for (int i = 0; i < req->nflags && i < GPU_KERNEL_MAX_FLAGS; i++)
        opts[n++] = req->flags[i];
    opts[n++] = "-cudart";
    opts[n++] = "shared";
    struct kcompile_in in = {.src = src->s, .len = src->len, .name = given, .dir = fdir,
                             .name_expr = "", .cache_dir = req->cache_dir};
    return kcache_key_compile(&in, kind, compiler, opts, n, key, name, nsz);
}

/* bytes into a new file at path (mode) */
static int put_file(const char *path, const void *b, size_t n, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return -1;
    size_t o = 0;
    while (o < n) {
        ssize_t w = write(fd, (const char *)b + o, n - o);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        o += (size_t)w;
    }
    return close(fd) == 0 && o == n ? 0 : -1;
}

/* a flag of the request's that -keep would clash with */
static int keeps(const struct gpu_kernel_request *req)
{
    for (int i = 0; i < req->nflags; i++)
        if (strstr(req->flags[i], "-keep"))
            return 1;
    return 0;
}

/* The program into dir/prog and its PTX into dir/prog.ptx: from the cache of compiled
 * kernels (req->cache_dir), else one nvcc that builds the program and keeps the PTX it made
 * on the way (the same bytes as `nvcc -ptx` with these flags), entered in the cache; a
 * second nvcc (-ptx) only where that PTX is not one file. The status (see spawn). */
static int build(const char *nv, const char *path, const struct gpu_kernel_request *req,
                 const char *dir, const atomic_int *cancel)
{
    char prog[PATH_MAX], ptx[PATH_MAX], keep[PATH_MAX], ename[64], pname[64];
    bl_fmt(prog, sizeof prog, "%s/prog", dir);
    bl_fmt(ptx, sizeof ptx, "%s/prog.ptx", dir);
    struct bl_buf src = BL_BUF_MAX(KCACHE_DIR_MAX), ekey = {0}, pkey = {0};
    int cached = bl_buf_read_file(&src, path) == 0 &&
                 build_key(nv, path, req, &src, "prog", &ekey, ename, sizeof ename) == 0 &&
                 build_key(nv, path, req, &src, "progptx", &pkey, pname, sizeof pname) == 0;
    struct compiled e = {0}, x = {0};
    if (cached && kcache_get(req->cache_dir, ename, &ekey, &e) == 0 &&
        kcache_get(req->cache_dir, pname, &pkey, &x) == 0 &&
        put_file(prog, e.cubin, e.cubin_size, 0700) == 0 &&
        put_file(ptx, x.cubin, x.cubin_size, 0600) == 0) {
        compiled_done(&e);
        compiled_done(&x);
        bl_buf_release(&src);
        bl_buf_release(&ekey);
        bl_buf_release(&pkey);
        return 0;
    }
    compiled_done(&e);
    compiled_done(&x);
    unlink(prog);
    unlink(ptx);
    struct timespec start;
    clock_gettime(CLOCK_REALTIME, &start);
    bl_fmt(keep, sizeof keep, "%s/keep", dir);
    int kept = !keeps(req) && mkdir(keep, 0700) == 0;
    const char *exe[] = {"-cudart", "shared", "-o", prog, "-keep", "--keep-dir", keep};
    int rc = nvcc(nv, path, req, dir, exe, kept ? 7 : 4, cancel);
    struct bl_buf text = BL_BUF_MAX(256u << 20);
    int one = 0;   /* the kept PTX: one file */
    struct sys_dir *d = rc == 0 && kept ? sys_dir_open(keep) : NULL;
    for (const char *n; d && (n = sys_dir_next(d));) {
        size_t l = strlen(n);
        if (l > 4 && !strcmp(n + l - 4, ".ptx")) {
            char f[2 * PATH_MAX];
            bl_fmt(f, sizeof f, "%s/%s", keep, n);
            one = !one && bl_buf_read_file(&text, f) == 0 ? 1 : -1;
        }
    }
    if (d)
        sys_dir_close(d);
    if (rc == 0 && (one != 1 || put_file(ptx, text.s, text.len, 0600))) {
        const char *alone[] = {"-ptx", "-o", ptx};
        unlink(ptx);
        rc = nvcc(nv, path, req, dir, alone, 3, cancel);
        one = 0;
    }
    char *deps = rc == 0 && cached && one == 1 ? knvcc_kept_deps(keep, start) : NULL;
    struct bl_buf exe_bytes = BL_BUF_MAX(256u << 20);
    if (deps && bl_buf_read_file(&exe_bytes, prog) == 0) {
        struct kcompile_in in = {.cache_dir = req->cache_dir};
        kcache_put(&in, ename, &ekey, "", "", exe_bytes.s, exe_bytes.len, deps);
        kcache_put(&in, pname, &pkey, "", "", text.s, text.len, deps);
    }
    free(deps);
    bl_buf_release(&exe_bytes);
    bl_buf_release(&text);
    bl_buf_release(&src);
    bl_buf_release(&ekey);
    bl_buf_release(&pkey);
    if (kept)
        sys_tmp_remove(keep);
    return rc;
}

/* nvcc failed: its messages into r->err, the reason into err */
static int nvcc_refused(const char *dir, struct kxrt_result *r, struct bl_err *err, int rc)
{
    char p[PATH_MAX];
    size_t n = 0;
    bl_fmt(p, sizeof p, "%s/nvcc.err", dir);
    free(r->err);
    r->err = slurp(p, KXRT_KEEP, 1, &n);
    if (rc == -3)
        return bl_fail(err, GPU_KERNEL_ECOMPILE, BL_NOWHERE, KRN_COMPILE_CANCELLED);
    if (rc == -2)
        return bl_fail(err, GPU_KERNEL_ECOMPILE, BL_NOWHERE, KXRT_NVCC_TIMEOUT);
    return bl_fail(err, GPU_KERNEL_ECOMPILE, BL_NOWHERE, KXRT_NVCC_FAILED, rc);
}

/* ---- the compiled code's widths, for the runtime's merging ---- */

struct sass_out {
    FILE *f;
    const uint8_t *cubin;
    size_t n;
    const char *file;
    int kernels;
};

/* one function of the cubin: "kernel SYMBOL" and a "sass LINE N LDS STS" per line of the
 * learner's file with shared instructions (N of them; the widest LDS and STS in bytes) */
static int sass_function(const char *name, const Elf64_Shdr *sh, void *arg)
{
    struct sass_out *o = arg;
    struct kp_sass s;
    (void)sh;
    if (strncmp(name, ".text.", 6) || ksl_lines(o->cubin, o->n, name + 6, o->file, &s))
        return 0;
    fprintf(o->f, "kernel %s\n", name + 6);
    o->kernels++;
    for (int i = 0; i < s.n; i++) {
        int seen = 0, n = 0;
        unsigned w[2] = {0, 0};
        for (int j = 0; j < i && !seen; j++)
            seen = s.insn[j].line == s.insn[i].line;
        for (int j = i; j < s.n && !seen; j++) {
            if (s.insn[j].line != s.insn[i].line)
                continue;
            const char *t = s.insn[j].text;
            unsigned x = strstr(t, ".128") ? 16 : strstr(t, ".64") ? 8 : 4;
            int st = !strncmp(t, "STS", 3) ? 1 : !strncmp(t, "LDS", 3) ? 0 : -1;
            if (st >= 0 && x > w[st])
                w[st] = x;
            n++;
        }
        if (!seen)
            fprintf(o->f, "sass %d %d %u %u\n", s.insn[i].line, n, w[0], w[1]);
    }
    kp_sass_free(&s);
    return 0;
}

/* the sm_90 cubins the program's fat binary holds uncompressed (ELF, machine EM_CUDA), each
 * function's lines into dir/sass (src/xrt/xrt_out.c reads it). Without one the runtime does
 * not merge. */
static void sass_widths(const char *prog, const char *path, const char *dir)
{
    size_t n = 0;
    char *b = slurp(prog, 256u << 20, 0, &n), p[PATH_MAX], real[PATH_MAX];
    bl_fmt(p, sizeof p, "%s/sass", dir);
    FILE *f = b ? fopen(p, "w") : NULL;
    if (!f) {
        free(b);
        return;
    }
    fprintf(f, "file %s\n", realpath(path, real) ? real : path);
    struct sass_out o = {f, NULL, 0, realpath(path, real) ? real : path, 0};
    for (size_t i = 0; i + sizeof(Elf64_Ehdr) <= n; i++) {
        if (memcmp(b + i, ELFMAG, SELFMAG) || b[i + EI_CLASS] != ELFCLASS64)
            continue;
        Elf64_Ehdr h;
        memcpy(&h, b + i, sizeof h);
        size_t end = (size_t)h.e_shoff + (size_t)h.e_shnum * h.e_shentsize;
        uint8_t *c = h.e_machine == 190 && h.e_shoff && end <= n - i ? malloc(end) : NULL;
        if (!c)
            continue;
        memcpy(c, b + i, end);   /* aligned for the ELF reader */
        o.cubin = c;
        o.n = end;
        sass_sections(o.cubin, o.n, sass_function, &o);
        free(c);
        i += end - 1;
    }
    fclose(f);
    free(b);
}

/* ---- the records ---- */

static struct kxrt_line *line_of(struct kxrt_launch *l, const char *file, int line, int in_file)
{
    for (int i = 0; i < l->nlines; i++)
        if (l->lines[i].line == line && !strcmp(l->lines[i].file, file))
            return &l->lines[i];
    struct kxrt_line *nl = realloc(l->lines, (size_t)(l->nlines + 1) * sizeof *nl);
    if (!nl)
        return NULL;
    l->lines = nl;
    struct kxrt_line *e = &nl[l->nlines++];
    memset(e, 0, sizeof *e);
    bl_fmt(e->file, sizeof e->file, "%s", file);
    e->line = line;
    e->in_file = in_file;
    return e;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* one line record: "line LINE INST WAVEFRONTS IDEAL WAYS UNPRICED KINDS FILE" */
static int take_line(struct kxrt_launch *l, const char *rec, const char *file,
                     struct kxrt_line **taken)
{
    int line = 0, off = 0, ways = 0, unpriced = 0;
    double inst = 0, wf = 0, ideal = 0;
    char kinds[64];
    if (sscanf(rec, "line %d %lf %lf %lf %d %d %63s %n", &line, &inst, &wf, &ideal, &ways,
               &unpriced, kinds, &off) < 7 || !off)
        return 0;
    const char *f = rec + off;
    struct kxrt_line *e = line_of(l, f, line, !strcmp(f, file) || !strcmp(base_name(f), base_name(file)));
    *taken = e;
    if (!e)
        return -1;
    e->inst += inst;
    e->wavefronts += wf;
    e->ideal += ideal;
    if (ways > e->ways)
        e->ways = ways;
    e->unpriced += unpriced;
    for (char *c = kinds; *c; c++)
        if (*c == ',')
            *c = ' ';
    bl_fmt(e->kinds, sizeof e->kinds, "%s", kinds);
    return 0;
}

static int op_of(const char *kind)
{
    static const char *const names[] = {"ld", "st", "atom", "ldsm", "stsm", "cpasync"};
    static const int op[] = {GPU_KOP_LD, GPU_KOP_ST, GPU_KOP_ATOM, GPU_KOP_LDSM, GPU_KOP_STSM,
                             GPU_KOP_LDGSTS};
    for (int i = 0; i < 6; i++)
        if (!strcmp(kind, names[i]))
            return op[i];
    return -1;
}

/* one warp record of line e (xrt_out.c): kept while e has fewer than KP_LINE_WARPS */
static int take_warp(struct kxrt_line *e, const char *rec)
{
    struct kp_warp w;
    memset(&w, 0, sizeof w);
    struct gpu_kernel_pattern *q = &w.p;
    char kind[16];
    int off = 0;
    if (!e || e->nwarps >= KP_LINE_WARPS ||
        sscanf(rec, "warp %u %d %u %lf %u %15s %u %u %x %u %u %u %u%n", &q->pc, &q->slot,
               &q->count, &w.inst, &q->wavefronts, kind, &q->width, &q->matrices, &q->mask,
               &q->block[0], &q->block[1], &q->block[2], &q->warp, &off) < 13 ||
        (q->op = op_of(kind)) < 0)
        return 0;
    for (int l = 0; l < 32; l++) {
        int n = 0;
        if (sscanf(rec + off, " %x%n", &q->addr[l], &n) < 1)
            return 0;
        off += n;
    }
    struct kp_warp *nw = realloc(e->warps, (size_t)(e->nwarps + 1) * sizeof *nw);
    if (!nw)
        return -1;
    e->warps = nw;
    w.line = e->line;
    nw[e->nwarps++] = w;
    return 0;
}

static int cmp_line(const void *pa, const void *pb)
{
    const struct kxrt_line *a = pa, *b = pb;
    if (a->in_file != b->in_file)
        return b->in_file - a->in_file;
    int c = strcmp(a->file, b->file);
    return c ? c : a->line - b->line;
}

static int take_launch(struct kxrt_result *r, const char *rec)
{
    if (r->nlaunches == KXRT_MAX_LAUNCHES) {
        r->launches_cut = 1;
        return 1;
    }
    struct kxrt_launch *nl = realloc(r->launches, (size_t)(r->nlaunches + 1) * sizeof *nl);
    if (!nl)
        return -1;
    r->launches = nl;
    struct kxrt_launch *l = &nl[r->nlaunches];
    memset(l, 0, sizeof *l);
    unsigned long seq = 0;
    int off = 0;
    if (sscanf(rec, "launch %lu %d %u %u %u %u %u %u %llu %n", &seq, &l->status, &l->grid[0],
               &l->grid[1], &l->grid[2], &l->block[0], &l->block[1], &l->block[2], &l->smem,
               &off) < 9 || !off)
        return 1;
    if (kdemangle(rec + off, l->kernel, sizeof l->kernel))
        bl_fmt(l->kernel, sizeof l->kernel, "%s", rec + off);
    r->nlaunches++;
    return 0;
}

int kxrt_parse(const char *text, size_t n, const char *file, struct kxrt_result *r)
{
    char *copy = malloc(n + 1);
    if (!copy)
        return -1;
    memcpy(copy, text, n);
    copy[n] = '\0';
    int open = 0, rc = 0;
    struct kxrt_line *last = NULL;        /* the line a warp record belongs to */
    for (char *s = copy, *e; s && *s && rc == 0; s = e) {
        e = strchr(s, '\n');
        if (e)
            *e++ = '\0';
        struct kxrt_launch *l = open ? &r->launches[r->nlaunches - 1] : NULL;
        if (!strncmp(s, "launch ", 7)) {
            open = take_launch(r, s) == 0;
            last = NULL;
        } else if (l && !strncmp(s, "status ", 7)) {
            int k = (int)strcspn(s + 7, " ");
            bl_fmt(l->error, sizeof l->error, "%.*s", k, s + 7);
            bl_fmt(l->error_text, sizeof l->error_text, "%s", s + 7 + k + (s[7 + k] == ' '));
        } else if (l && !strncmp(s, "note ", 5)) {
            bl_fmt(l->note, sizeof l->note, "%s", s + 5);
        } else if (l && !strncmp(s, "line ", 5)) {
            rc = take_line(l, s, file, &last);
        } else if (l && !strncmp(s, "warp ", 5)) {
            rc = take_warp(last, s);
        } else if (l && !strncmp(s, "steps ", 6)) {
            l->steps = strtoull(s + 6, NULL, 10);
        } else if (l && !strncmp(s, "end ", 4)) {
            if (l->nlines > 1) /* (a launch without shared lines has no array) */
                qsort(l->lines, (size_t)l->nlines, sizeof *l->lines, cmp_line);
            open = 0;
            last = NULL;
        } else if (!strncmp(s, "unsupported ", 12)) {
            r->end = KXRT_UNSUPPORTED;
            bl_fmt(r->what, sizeof r->what, "%s", s + 12);
        } else if (!strncmp(s, "fatal ", 6)) {
            r->end = KXRT_SETUP;
            bl_fmt(r->what, sizeof r->what, "%s", s + 6);
        }
    }
    if (open)   /* a launch the program did not finish (it was killed in it) */
        qsort(r->launches[r->nlaunches - 1].lines, (size_t)r->launches[r->nlaunches - 1].nlines,
              sizeof(struct kxrt_line), cmp_line);
    free(copy);
    return rc;
}

void kxrt_done(struct kxrt_result *r)
{
    for (int i = 0; i < r->nlaunches; i++) {
        for (int j = 0; j < r->launches[i].nlines; j++)
            free(r->launches[i].lines[j].warps);
        free(r->launches[i].lines);
    }
    free(r->launches);
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

/* the dynamic linker's "undefined symbol: NAME" in the program's stderr: NAME into r->what */
static void undefined_symbol(struct kxrt_result *r)
{
    const char *u = r->err ? strstr(r->err, "undefined symbol: ") : NULL;
    if (!u)
        return;
    u += 18;
    size_t k = strcspn(u, ", \n");
    r->end = KXRT_UNSUPPORTED;
    bl_fmt(r->what, sizeof r->what, "%.*s", (int)k, u);
}

int kxrt_run(const char *path, const struct gpu_kernel_request *req, const char *lib_dir,
             int timeout_s, const atomic_int *cancel, struct kxrt_result *r, struct bl_err *err)
{
    memset(r, 0, sizeof *r);
    char nv[PATH_MAX], dir[PATH_MAX], p[PATH_MAX], prog[PATH_MAX], o[PATH_MAX], e[PATH_MAX];
    if (knvcc_find(nv, sizeof nv))
        return bl_fail(err, GPU_KERNEL_ECOMPILE, BL_NOWHERE, KXRT_NO_NVCC);
    sys_tmp_sweep("xrt", 0);
    if (sys_tmp_make("xrt", dir, sizeof dir))
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_RUN_NO_DIR, strerror(errno));
    bl_fmt(prog, sizeof prog, "%s/prog", dir);
    int rc = build(nv, path, req, dir, cancel);
    if (rc != 0) {
        nvcc_refused(dir, r, err, rc);
        sys_tmp_remove(dir);
        return -1;
    }
    sass_widths(prog, path, dir);
    char keep[6][PATH_MAX + 64];
    char **env = child_env(lib_dir, dir, keep);
    char *argv[] = {prog, NULL};
    bl_fmt(o, sizeof o, "%s/stdout", dir);
    bl_fmt(e, sizeof e, "%s/stderr", dir);
    rc = env ? spawn(argv, env, o, e, timeout_s, cancel) : -1;
    free(env);
    if (rc == -1) {
        bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KRN_RUN_CANNOT_START, prog, strerror(errno));
        sys_tmp_remove(dir);
        return -1;
    }
    if (rc == -3) {                       /* cancelled: nothing of it is wanted */
        sys_tmp_remove(dir);
        return bl_fail(err, GPU_KERNEL_ECOMPILE, BL_NOWHERE, KRN_COMPILE_CANCELLED);
    }
    size_t n = 0;
    r->out = slurp(o, KXRT_KEEP, 1, &n);
    r->err = slurp(e, KXRT_KEEP, 1, &n);
    bl_fmt(p, sizeof p, "%s/records", dir);
    char *rec = slurp(p, 64u << 20, 0, &n);
    int prc = rec ? kxrt_parse(rec, n, path, r) : -1;
    free(rec);
    sys_tmp_remove(dir);
    if (prc)
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, BL_TEXT, strerror(ENOMEM));
    r->status = rc;
    if (rc == -2)
        r->end = KXRT_TIMEOUT;
    else if (r->end == KXRT_ENDED && rc == 127)
        undefined_symbol(r);
    if (r->end == KXRT_ENDED && rc >= 128 && rc != -2) {
        r->end = KXRT_SIGNAL;
        r->status = rc - 128;
    }
    return 0;
}

/* ---- a kernel's report from main's launches ---- */

/* name (demangled, "ns::k<2>") is kernel name_expr: the same, or the same without template
 * arguments when name_expr has none */
static int same_kernel(const char *name, const char *name_expr)
{
    if (!strcmp(name, name_expr))
        return 1;
    size_t n = strcspn(name, "<");
    return !strchr(name_expr, '<') && strlen(name_expr) == n && !strncmp(name, name_expr, n);
}

/* launched (demangled, "ns::k<2>") is an instance of template name ("k" or "ns::k") */
static int instance_of(const char *launched, const char *name)
{
    size_t n = strcspn(launched, "<"), k = strlen(name);
    if (!launched[n])
        return 0;
    if (n == k && !strncmp(launched, name, n))
        return 1;
    return n > k + 2 && !strncmp(launched + n - k, name, k) && !strncmp(launched + n - k - 2, "::", 2);
}

int kxrt_instances(const struct kxrt_result *run, const char *name, char (*out)[GPU_KERNEL_TEXT],
                   int max)
{
    int k = 0;
    for (int i = 0; run && i < run->nlaunches && k < max; i++) {
        const char *l = run->launches[i].kernel;
        int seen = 0;
        for (int j = 0; j < k && !seen; j++)
            seen = !strcmp(out[j], l);
        if (!seen && instance_of(l, name))
            bl_fmt(out[k++], GPU_KERNEL_TEXT, "%s", l);
    }
    return k;
}

static void exec_note(struct kp_result *r, int id, ...)
{
    va_list ap;
    va_start(ap, id);
    bl_msg_vset(&r->exec_note, NULL, 0, id, ap);
    va_end(ap);
}

void kxrt_apply(const struct kxrt_result *run, const char *name_expr, const char *path,
                struct kp_result *r)
{
    const struct kxrt_launch *first = NULL;
    int n = 0, at = 0, tried = 0;
    const char *want = name_expr && name_expr[0] ? name_expr : r->kernel;
    for (int i = 0; i < run->nlaunches; i++) {
        const struct kxrt_launch *l = &run->launches[i];
        if (!same_kernel(l->kernel, want))
            continue;
        n++;
        tried = tried ? tried : i + 1;
        if (!first && l->status == 0) {
            first = l;
            at = n;
        }
    }
    r->main_launches = n;
    if (!first) {
        const struct kxrt_launch *t = tried ? &run->launches[tried - 1] : NULL;
        char why[sizeof t->note * 4], name[sizeof t->error * 4];
        if (t)   /* the executor's text names the program's file: escaped here */
            exec_note(r, KXRT_LAUNCH_FAILED, bl_clean(name, sizeof name, t->error),
                      bl_clean(why, sizeof why, t->note[0] ? t->note : t->error_text));
        else
            exec_note(r, KXRT_NOT_LAUNCHED);
        return;
    }
    static struct ptx_agg a;
    static struct ptx_agg_line lines[512];
    memset(&a, 0, sizeof a);
    for (int i = 0; i < first->nlines && i < 512; i++) {
        const struct kxrt_line *x = &first->lines[i];
        memset(&lines[i], 0, sizeof lines[i]);
        lines[i].file = x->file;
        lines[i].line = (unsigned)x->line;
        lines[i].inst = x->inst;
        lines[i].wavefronts = x->wavefronts;
        lines[i].ideal = x->ideal;
        lines[i].conflicts = x->wavefronts - x->ideal;
        lines[i].ways = x->ways;
        lines[i].unmodelled = x->unpriced;
        a.nlines++;
    }
    a.lines = lines;
    kexec_apply_lines(&a, path, r);
    int nw = 0;                           /* the kept warps of the file's lines */
    for (int i = 0; i < first->nlines; i++)
        nw += first->lines[i].in_file ? first->lines[i].nwarps : 0;
    if (nw && (r->warps = malloc((size_t)nw * sizeof *r->warps)))
        for (int i = 0; i < first->nlines; i++)
            for (int k = 0; first->lines[i].in_file && k < first->lines[i].nwarps; k++)
                r->warps[r->nwarps++] = first->lines[i].warps[k];
    kexec_explain_warps(r);
    memcpy(r->grid, first->grid, sizeof r->grid);
    memcpy(r->block, first->block, sizeof r->block);
    r->smem = first->smem;
    r->main_launch = at;
    r->exec_steps = first->steps;
}
