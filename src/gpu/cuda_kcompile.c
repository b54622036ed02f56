/* cuda_kcompile.c: NVRTC for `banklab kernel`: libnvrtc (dlopen'ed once per process), the
 * options (line info, the target architecture, the file's directory and the toolkit's
 * include directory), the lowered name of the chosen kernel, and a cache of cubins keyed by
 * everything that goes into them (source, quoted includes, options, NVRTC version), so an
 * unchanged file is not compiled twice. Runs in the measuring process only. Never prints. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nvrtc.h>

#include "cuda_kernel_impl.h"

/* ---- libnvrtc ---- */

struct rtc_api {
    void *lib;
    nvrtcResult (*version)(int *, int *);
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                          const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*cubin)(nvrtcProgram, char *);
    nvrtcResult (*add_name)(nvrtcProgram, const char *);
    nvrtcResult (*lowered)(nvrtcProgram, const char *, const char **);
    nvrtcResult (*destroy)(nvrtcProgram *);
    const char *(*error_string)(nvrtcResult);
};

static int rtc_load(struct rtc_api *r, char *why, size_t n)
{
    static const char *names[] = {
        "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
#ifdef BANKLAB_CUDA_HOME
        BANKLAB_CUDA_HOME "/lib64/libnvrtc.so.13", BANKLAB_CUDA_HOME "/lib64/libnvrtc.so.12",
        BANKLAB_CUDA_HOME "/lib64/libnvrtc.so",
#endif
        "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
        "/usr/local/cuda/lib64/libnvrtc.so",
    };
    memset(r, 0, sizeof *r);
    const char *env = getenv("BANKLAB_NVRTC");
    if (env && *env)
        r->lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; !r->lib && i < sizeof names / sizeof names[0]; i++)
        r->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!r->lib) {
        snprintf(why, n, "cannot compile: libnvrtc not found (install the CUDA toolkit's NVRTC "
                         "or set BANKLAB_NVRTC)");
        return -1;
    }
    static const struct ksym syms[] = {
#define S(field, name) {offsetof(struct rtc_api, field), name, 0}
        S(version, "nvrtcVersion"), S(create, "nvrtcCreateProgram"),
        S(compile, "nvrtcCompileProgram"), S(log_size, "nvrtcGetProgramLogSize"),
        S(log, "nvrtcGetProgramLog"), S(cubin_size, "nvrtcGetCUBINSize"),
        S(cubin, "nvrtcGetCUBIN"), S(add_name, "nvrtcAddNameExpression"),
        S(lowered, "nvrtcGetLoweredName"), S(destroy, "nvrtcDestroyProgram"),
        S(error_string, "nvrtcGetErrorString"),
#undef S
    };
    const char *missing = ksyms(r->lib, syms, sizeof syms / sizeof syms[0], r);
    if (missing) {
        snprintf(why, n, "cannot compile: %s missing from libnvrtc (too old?)", missing);
        return -1;
    }
    return 0;
}

struct rtc {
    int tried, loaded;
    char why[GPU_KERNEL_TEXT];   /* why loading failed */
    struct rtc_api api;
};

struct rtc *krtc_new(void)
{
    return calloc(1, sizeof(struct rtc));
}

void krtc_free(struct rtc *r)
{
    free(r); /* libnvrtc stays loaded for the process */
}

void compiled_done(struct compiled *c)
{
    free(c->log);
    free(c->cubin);
    memset(c, 0, sizeof *c);
}

/* ---- the compile cache ---- */

struct keybuf {
    char *s;
    size_t len, cap;
};

static int key_add(struct keybuf *k, const void *p, size_t n)
{
    if (k->len + n + 1 > k->cap) {
        size_t nc = k->cap ? k->cap * 2 : 4096;
        while (nc < k->len + n + 1)
            nc *= 2;
        char *w = realloc(k->s, nc);
        if (!w)
            return -1;
        k->s = w;
        k->cap = nc;
    }
    memcpy(k->s + k->len, p, n);
    k->len += n;
    k->s[k->len] = '\0';
    return 0;
}

/* Quoted includes next to the file (and theirs, a few levels deep) are part of the key:
 * editing a header must not bring back a stale cubin. */
static void key_includes(struct keybuf *k, const char *dir, const char *src, size_t len, int depth)
{
    if (depth > 6)
        return;
    const char *p = src, *end = src + len;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        const char *s = p;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        if (s < e && *s == '#') {
            s++;
            while (s < e && (*s == ' ' || *s == '\t'))
                s++;
            if ((size_t)(e - s) > 8 && !strncmp(s, "include", 7)) {
                const char *q = memchr(s, '"', (size_t)(e - s));
                const char *q2 = q ? memchr(q + 1, '"', (size_t)(e - q - 1)) : NULL;
                if (q && q2) {
                    char path[PATH_MAX];
                    int pl = snprintf(path, sizeof path, "%s/%.*s", dir, (int)(q2 - q - 1), q + 1);
                    FILE *f = pl > 0 && (size_t)pl < sizeof path ? fopen(path, "rb") : NULL;
                    if (f) {
                        char *buf = malloc(1 << 20);
                        size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
                        fclose(f);
                        if (buf) {
                            key_add(k, "\ninclude ", 9);
                            key_add(k, path, strlen(path));
                            key_add(k, "\n", 1);
                            key_add(k, buf, n);
                            char sub[PATH_MAX];
                            snprintf(sub, sizeof sub, "%s", path);
                            char *slash = strrchr(sub, '/');
                            if (slash)
                                *slash = '\0';
                            key_includes(k, sub, buf, n, depth + 1);
                            free(buf);
                        }
                    }
                }
            }
        }
        p = e < end ? e + 1 : end;
    }
}

static int write_u64(FILE *f, uint64_t v) { return fwrite(&v, sizeof v, 1, f) == 1 ? 0 : -1; }

static int cache_store(const char *path, const struct keybuf *key, const struct compiled *c)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp)
        return -1;
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    size_t loglen = c->log ? strlen(c->log) : 0, lowlen = strlen(c->lowered);
    int bad = fwrite("BLKC1\n", 6, 1, f) != 1 || write_u64(f, key->len) ||
              fwrite(key->s, 1, key->len, f) != key->len || write_u64(f, loglen) ||
              fwrite(c->log ? c->log : "", 1, loglen, f) != loglen || write_u64(f, lowlen) ||
              fwrite(c->lowered, 1, lowlen, f) != lowlen || write_u64(f, c->cubin_size) ||
              fwrite(c->cubin, 1, c->cubin_size, f) != c->cubin_size;
    if (fclose(f) || bad || rename(tmp, path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void *read_part(FILE *f, uint64_t max, uint64_t *n)
{
    if (fread(n, sizeof *n, 1, f) != 1 || *n > max)
        return NULL;
    char *p = malloc((size_t)*n + 1);
    if (!p)
        return NULL;
    if (fread(p, 1, (size_t)*n, f) != *n) {
        free(p);
        return NULL;
    }
    p[*n] = '\0';
    return p;
}

static int cache_load(const char *path, const struct keybuf *key, struct compiled *c)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char magic[6];
    uint64_t n;
    int ok = 0;
    char *k = NULL, *low = NULL;
    if (fread(magic, 6, 1, f) == 1 && !memcmp(magic, "BLKC1\n", 6) &&
        (k = read_part(f, 64u << 20, &n)) && n == key->len && !memcmp(k, key->s, n) &&
        (c->log = read_part(f, 16u << 20, &n)) && (low = read_part(f, GPU_KERNEL_TEXT - 1, &n)) &&
        (c->cubin = read_part(f, 256u << 20, &n))) {
        snprintf(c->lowered, sizeof c->lowered, "%s", low);
        c->cubin_size = (size_t)n;
        c->ok = 1;
        ok = 1;
    }
    fclose(f);
    free(k);
    free(low);
    if (!ok)
        compiled_done(c);
    return ok ? 0 : -1;
}

static void mkdirs(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0700);
            *s = '/';
        }
    }
    mkdir(p, 0700);
}


/* NVRTC, once per process. */
static int rtc_ready(struct rtc *r)
{
    if (!r->tried) {
        r->tried = 1;
        r->loaded = rtc_load(&r->api, r->why, sizeof r->why) == 0;
    }
    return r->loaded;
}

int kcompile(struct rtc *r, const struct kcompile_in *in, struct compiled *out, int *cache_hit,
             char *why, size_t whysz)
{
    memset(out, 0, sizeof *out);
    *cache_hit = 0;
    char opt_arch[32], opt_inc[PATH_MAX + 4], opt_cuda[PATH_MAX + 4];
    snprintf(opt_arch, sizeof opt_arch, "--gpu-architecture=sm_%d", in->arch);
    snprintf(opt_inc, sizeof opt_inc, "-I%s", in->dir);
    const char *home = getenv("CUDA_HOME");
#ifdef BANKLAB_CUDA_HOME
    if (!home || !*home)
        home = BANKLAB_CUDA_HOME;
#endif
    if (!home || !*home)
        home = "/usr/local/cuda";
    snprintf(opt_cuda, sizeof opt_cuda, "-I%s/include", home);
    const char *opts[5 + GPU_KERNEL_MAX_FLAGS] = {opt_arch, "-lineinfo", "--std=c++17", opt_inc,
                                                  opt_cuda};
    int nopts = 5;
    for (int i = 0; i < in->nflags && i < GPU_KERNEL_MAX_FLAGS; i++) /* -I, -D, --nvcc-flag */
        opts[nopts++] = in->flags[i];
    char compiler[PATH_MAX + 64] = "";
    if (in->nvcc) /* the toolkit's nvcc (kernel_nvcc.c): the same cache, its own key */
        knvcc_id(in->nvcc, compiler, sizeof compiler);
    else if (!rtc_ready(r)) {
        snprintf(why, whysz, "%s", r->why);
        return -1;
    }
    struct rtc_api *api = &r->api;
    int vmaj = 0, vmin = 0;
    if (!in->nvcc)
        api->version(&vmaj, &vmin);

    /* the cache key: everything that goes into the cubin */
    struct keybuf key = {0};
    char cpath[PATH_MAX] = "";
    int use_cache = in->cache_dir && in->cache_dir[0] && in->name_expr;
    if (use_cache) {
        char head[PATH_MAX + 512];
        int hl = snprintf(head, sizeof head, "banklab kernel cache 1\nnvrtc %d.%d\nname %s\nexpr %s\n",
                          vmaj, vmin, in->name, in->name_expr);
        key_add(&key, head, (size_t)hl);
        key_add(&key, compiler, strlen(compiler));
        for (int i = 0; i < nopts; i++) {
            key_add(&key, opts[i], strlen(opts[i]));
            key_add(&key, "\n", 1);
        }
        key_add(&key, "source\n", 7);
        key_add(&key, in->src, in->len);
        key_includes(&key, in->dir, in->src, in->len, 0);
        if (key.s) {
            uint64_t h = khash(KHASH_SEED, key.s, key.len);
            snprintf(cpath, sizeof cpath, "%s/%016llx.cubin", in->cache_dir, (unsigned long long)h);
            struct stat st;
            if (stat(cpath, &st) == 0 && cache_load(cpath, &key, out) == 0) {
                *cache_hit = 1;
                free(key.s);
                return 0;
            }
        }
    }
    int rv = 0;
    if (in->nvcc) {
        rv = knvcc_compile(in, out, why, whysz);
        if (rv == 0 && out->ok && in->name_expr && !out->lowered[0]) {
            snprintf(why, whysz, "nvcc compiled %s but its cubin has no kernel %s", in->name,
                     in->name_expr);
            rv = -1;
        }
        goto store;
    }
    nvrtcProgram prog;
    nvrtcResult nr = api->create(&prog, in->src, in->name, 0, NULL, NULL);
    if (nr != NVRTC_SUCCESS) {
        snprintf(why, whysz, "NVRTC cannot take the program: %s", api->error_string(nr));
        free(key.s);
        return -1;
    }
    if (in->name_expr)
        api->add_name(prog, in->name_expr);
    nvrtcResult cr = api->compile(prog, nopts, opts);
    size_t ls = 0;
    api->log_size(prog, &ls);
    out->log = malloc(ls + 1);
    if (out->log) {
        out->log[0] = '\0';
        if (ls)
            api->log(prog, out->log);
        out->log[ls] = '\0';
    }
    if (cr == NVRTC_SUCCESS) {
        const char *low = NULL;
        size_t cs = 0;
        if (in->name_expr && api->lowered(prog, in->name_expr, &low) == NVRTC_SUCCESS && low)
            snprintf(out->lowered, sizeof out->lowered, "%s", low);
        if (api->cubin_size(prog, &cs) == NVRTC_SUCCESS && cs && (out->cubin = malloc(cs)) &&
            api->cubin(prog, (char *)out->cubin) == NVRTC_SUCCESS) {
            out->cubin_size = cs;
            out->ok = 1;
        } else {
            snprintf(why, whysz, "NVRTC compiled %s but gave no cubin", in->name);
            rv = -1;
        }
    }
    api->destroy(&prog);
store:
    if (rv == 0 && out->ok && use_cache && key.s && out->lowered[0]) {
        mkdirs(in->cache_dir);
        if (cache_store(cpath, &key, out) && in->dbg)
            fprintf(in->dbg, "cache: cannot write %s: %s\n", cpath, strerror(errno));
    }
    free(key.s);
    return rv;
}
