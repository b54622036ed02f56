/* cache.c: the compiled-kernel cache's key and entries (compile/compile.h). The key scan
 * visits each included file once (a set of device and inode numbers, a queue instead of
 * recursion), so its time is linear in the bytes of the distinct files; entries live in a
 * directory of this user's alone and are opened relative to it, never through a link. */
#include "compile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/fmt.h"
#include "../base/hash.h"
#include "../sys/sys.h"

/* ---- the include scan ---- */

struct seen {                    /* open addressing over (dev, ino); 0 marks a free slot */
    uint64_t *dev, *ino;
    size_t cap, n;
};

/* 1 when (dev, ino) was seen before, else records it and returns 0; -1 out of memory. */
static int seen_add(struct seen *s, uint64_t dev, uint64_t ino)
{
    if (2 * (s->n + 1) > s->cap) {
        struct seen g = {0};
        g.cap = s->cap ? s->cap * 2 : 64;
        g.dev = calloc(g.cap, sizeof *g.dev);
        g.ino = calloc(g.cap, sizeof *g.ino);
        if (!g.dev || !g.ino) {
            free(g.dev);
            free(g.ino);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->ino[i])
                seen_add(&g, s->dev[i], s->ino[i]);
        free(s->dev);
        free(s->ino);
        *s = g;
    }
    size_t i = (size_t)((dev * 0x9E3779B97F4A7C15ull) ^ (ino * 0xC2B2AE3D27D4EB4Full)) % s->cap;
    ino = ino ? ino : 1;  /* inode 0 does not occur; keep 0 for free slots */
    for (; s->ino[i]; i = (i + 1) % s->cap)
        if (s->dev[i] == dev && s->ino[i] == ino)
            return 1;
    s->dev[i] = dev;
    s->ino[i] = ino;
    s->n++;
    return 0;
}

struct pending {                 /* a queue of paths still to read */
    char **path;
    size_t n, head, cap;
};

static int pending_push(struct pending *q, const char *dir, const char *name, size_t nlen)
{
    if (q->n == q->cap) {
        size_t nc = q->cap ? q->cap * 2 : 16;
        char **w = realloc(q->path, nc * sizeof *w);
        if (!w)
            return -1;
        q->path = w;
        q->cap = nc;
    }
    size_t dl = strlen(dir);
    char *p = malloc(dl + nlen + 2);
    if (!p)
        return -1;
    memcpy(p, dir, dl);
    p[dl] = '/';
    memcpy(p + dl + 1, name, nlen);
    p[dl + 1 + nlen] = '\0';
    q->path[q->n++] = p;
    return 0;
}

/* Each `#include "NAME"` of src (in directory dir) onto the queue. */
static int queue_includes(struct pending *q, const char *dir, const char *src, size_t len)
{
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
                const char *q1 = memchr(s, '"', (size_t)(e - s));
                const char *q2 = q1 ? memchr(q1 + 1, '"', (size_t)(e - q1 - 1)) : NULL;
                if (q1 && q2 && q2 > q1 + 1 && pending_push(q, dir, q1 + 1, (size_t)(q2 - q1 - 1)))
                    return -1;
            }
        }
        p = e < end ? e + 1 : end;
    }
    return 0;
}

/* The regular file at path, at most KCACHE_INCLUDE_MAX bytes, into buf; its identity in st.
 * Returns the length, or -1 when it is missing or not a regular file (NVRTC says so). */
static long read_include(const char *path, char *buf, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long n = 0;
    if (fstat(fd, st) == 0 && S_ISREG(st->st_mode)) {
        while (n < (long)KCACHE_INCLUDE_MAX) {
            ssize_t k = read(fd, buf + n, KCACHE_INCLUDE_MAX - (size_t)n);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            n += k;
        }
    } else {
        n = -1;
    }
    close(fd);
    return n;
}

int kcache_key_includes(struct bl_buf *k, const char *dir, const char *src, size_t len)
{
    struct pending q = {0};
    struct seen seen = {0};
    char *buf = malloc(KCACHE_INCLUDE_MAX);
    int rc = buf ? queue_includes(&q, dir, src, len) : -1;
    size_t files = 0;
    while (!rc && q.head < q.n) {
        char *path = q.path[q.head++];
        struct stat st;
        long n = read_include(path, buf, &st);
        int was = n < 0 ? 1 : seen_add(&seen, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
        if (was < 0 || (!was && ++files > KCACHE_INCLUDES_MAX)) {
            rc = -1;
        } else if (!was) {
            bl_buf_add(k, "\ninclude ", 9);
            bl_buf_add(k, path, strlen(path));
            bl_buf_add(k, "\n", 1);
            bl_buf_add(k, buf, (size_t)n);
            char *slash = strrchr(path, '/');
            *slash = '\0';  /* pending_push always wrote one */
            rc = k->failed ? -1 : queue_includes(&q, path, buf, (size_t)n);
        }
    }
    for (size_t i = 0; i < q.n; i++)
        free(q.path[i]);
    free(q.path);
    free(seen.dev);
    free(seen.ino);
    free(buf);
    if (rc)
        k->failed = k->failed ? k->failed : EFBIG;
    return rc;
}

/* ---- the directory and its entries ---- */

int kcache_dir_open(const char *dir, struct bl_err *err)
{
    char p[PATH_MAX];
    if (bl_fmt(p, sizeof p, "%s", dir) >= sizeof p - 1 || p[0] != '/')
        return bl_fail(err, -1, BL_NOWHERE, KRN_CACHE_NOT_ABSOLUTE, dir);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            (void)mkdir(p, 0700);
            *s = '/';
        }
    }
    (void)mkdir(p, 0700);
    int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
        return bl_fail(err, -1, BL_NOWHERE, KRN_CACHE_LINK, dir);
    if (fd < 0)
        return bl_fail(err, -1, BL_NOWHERE, KRN_CACHE_CANNOT_OPEN, dir, strerror(errno));
    if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
        if (st.st_uid != geteuid())
            bl_fail(err, -1, BL_NOWHERE, KRN_CACHE_NOT_OURS, dir, (unsigned long)st.st_uid);
        else
            bl_fail(err, -1, BL_NOWHERE, KRN_CACHE_OPEN_TO_OTHERS, dir,
                    (unsigned)(st.st_mode & 0777));
        close(fd);
        return -1;
    }
    return fd;
}

int kernel_cache_refused(const char *dir, struct bl_err *err)
{
    int fd = kcache_dir_open(dir, err);
    if (fd < 0)
        return 1;
    close(fd);
    return 0;
}

/* An entry: the magic, the key, the log, the lowered name and the output (each a length and
 * its bytes), then the hash of all four: a torn or altered entry is never taken. */
#define KCACHE_MAGIC "BLKC2\n"

static uint64_t entry_sum(const void *k, size_t kn, const void *l, size_t ln, const void *w,
                          size_t wn, const void *b, size_t bn)
{
    uint64_t h = bl_hash(BL_HASH_SEED, k, kn);
    h = bl_hash(h, l, ln);
    h = bl_hash(h, w, wn);
    return bl_hash(h, b, bn);
}

static int put_u64(FILE *f, uint64_t v) { return fwrite(&v, sizeof v, 1, f) == 1 ? 0 : -1; }

static int put_part(FILE *f, const void *p, uint64_t n)
{
    return put_u64(f, n) || (n && fwrite(p, 1, (size_t)n, f) != n) ? -1 : 0;
}

/* Temporary files of stores that were killed (NAME.tmp-X, untouched for KCACHE_TMP_STALE_S:
 * a live store writes its file within seconds) are removed. */
#define KCACHE_TMP_STALE_S 600
static void remove_stale_tmps(int dfd)
{
    struct sys_dir *d = sys_dir_at(dfd);
    if (!d)
        return;
    time_t now = time(NULL);
    const char *name;
    struct stat st;
    while ((name = sys_dir_next(d)))
        if (strstr(name, ".tmp-") &&
            fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            st.st_uid == geteuid() && now - st.st_mtime > KCACHE_TMP_STALE_S)
            unlinkat(dfd, name, 0);
    sys_dir_close(d);
}

int kcache_store(int dfd, const char *name, const struct bl_buf *key,
                 const struct kcache_entry *e)
{
    remove_stale_tmps(dfd);
    char tmp[256];
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 16; tries++) {
        unsigned long r = (unsigned long)random() ^ ((unsigned long)getpid() << 16);
        if (bl_fmt(tmp, sizeof tmp, "%s.tmp-%lx", name, r) >= sizeof tmp - 1)
            return -1;
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            return -1;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        if (fd >= 0) {
            close(fd);
            unlinkat(dfd, tmp, 0);
        }
        return -1;
    }
    const char *log = e->log ? e->log : "", *low = e->lowered ? e->lowered : "";
    const char *deps = e->deps ? e->deps : "";
    uint64_t sum = entry_sum(key->s, key->len, log, strlen(log), low, strlen(low), e->cubin,
                             e->cubin_size);
    int bad = fwrite(KCACHE_MAGIC, 6, 1, f) != 1 || put_part(f, key->s, key->len) ||
              put_part(f, log, strlen(log)) || put_part(f, low, strlen(low)) ||
              put_part(f, e->cubin, e->cubin_size) || put_part(f, deps, strlen(deps)) ||
              put_u64(f, bl_hash(sum, deps, strlen(deps)));
    int e2 = errno;
    if (fclose(f) || bad || renameat(dfd, tmp, dfd, name)) {
        e2 = errno ? errno : e2;
        unlinkat(dfd, tmp, 0);
        errno = e2;
        return -1;
    }
    kcache_trim(dfd, KCACHE_DIR_MAX);
    return 0;
}

/* the hash of the regular file at path (at most 64 MiB, no link followed at its last step)
 * into *h; 0, or -1 */
static int file_hash(const char *path, uint64_t *h)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
        close(fd);
        return -1;
    }
    char buf[65536];
    ssize_t r;
    *h = BL_HASH_SEED;
    while ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
        if (r > 0)
            *h = bl_hash(*h, buf, (size_t)r);
    close(fd);
    return r < 0 ? -1 : 0;
}

static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

char *kcache_deps(const char *paths, const char *skip, struct timespec since)
{
    struct bl_buf t = BL_BUF_MAX(16u << 20);
    size_t sl = skip ? strlen(skip) : 0;
    for (const char *p = paths; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char path[PATH_MAX], line[PATH_MAX + 24];
        struct stat st;
        uint64_t h;
        if (n && n < sizeof path) {
            memcpy(path, p, n);
            path[n] = '\0';
            if (sl && !strncmp(path, skip, sl) && path[sl] == '/')
                ;  /* the compile's own temporary files */
            else if (path[0] != '/' || lstat(path, &st) || !before(&st.st_mtim, &since) ||
                     !before(&st.st_ctim, &since) || file_hash(path, &h)) {
                bl_buf_release(&t);  /* not absolute, gone, changed while compiled: keep no entry */
                return NULL;
            } else {
                size_t l = bl_fmt(line, sizeof line, "%016llx %s\n", (unsigned long long)h, path);
                if (bl_buf_add(&t, line, l)) {
                    bl_buf_release(&t);
                    return NULL;
                }
            }
        } else if (n) {
            bl_buf_release(&t);
            return NULL;
        }
        p = e ? e + 1 : p + n;
    }
    return bl_buf_detach(&t, NULL);
}

/* every "HASH PATH" line of deps still names a file of those bytes */
static int deps_hold(const char *deps)
{
    for (const char *p = deps; *p;) {
        const char *e = strchr(p, '\n');
        char path[PATH_MAX];
        unsigned long long want;
        uint64_t h;
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!e || n < 18 || n - 17 >= sizeof path || sscanf(p, "%16llx", &want) != 1 ||
            p[16] != ' ')
            return 0;
        memcpy(path, p + 17, n - 17);
        path[n - 17] = '\0';
        if (file_hash(path, &h) || h != want)
            return 0;
        p = e + 1;
    }
    return 1;
}

static void *get_part(FILE *f, uint64_t max, uint64_t *n)
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

int kcache_load(int dfd, const char *name, const struct bl_buf *key, struct kcache_entry *e)
{
    memset(e, 0, sizeof *e);
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    FILE *f = NULL;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        !(f = fdopen(fd, "rb"))) {
        close(fd);
        return -1;
    }
    char magic[6], extra;
    uint64_t n, ln = 0, wn = 0, dn = 0, sum = 0;
    char *k = NULL, *deps = NULL;
    int ok = fread(magic, 6, 1, f) == 1 && !memcmp(magic, KCACHE_MAGIC, 6) &&
             (k = get_part(f, KCACHE_KEY_MAX, &n)) && n == key->len && !memcmp(k, key->s, n) &&
             (e->log = get_part(f, 16u << 20, &ln)) && (e->lowered = get_part(f, 4096, &wn)) &&
             (e->cubin = get_part(f, 256u << 20, &n)) && (deps = get_part(f, 16u << 20, &dn)) &&
             fread(&sum, sizeof sum, 1, f) == 1 && fread(&extra, 1, 1, f) == 0 &&
             sum == bl_hash(entry_sum(k, key->len, e->log, (size_t)ln, e->lowered, (size_t)wn,
                                      e->cubin, (size_t)n), deps, (size_t)dn) &&
             deps_hold(deps);
    free(deps);
    if (ok) {
        e->cubin_size = (size_t)n;
        (void)futimens(fd, NULL); /* used now: the trim removes the least recently used */
    }
    fclose(f);
    free(k);
    if (!ok) {
        free(e->log);
        free(e->lowered);
        free(e->cubin);
        memset(e, 0, sizeof *e);
        return -1;
    }
    return 0;
}

/* ---- the size bound ---- */

struct aged {
    char name[64];
    long long size;
    struct timespec used;
};

static int older(const void *a, const void *b)
{
    const struct aged *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* An entry's name: 16 hex digits, a dot and a kind ("0123456789abcdef.cubin"). */
static int entry_name(const char *s)
{
    size_t i = 0;
    for (; s[i] && i < 16; i++)
        if (!strchr("0123456789abcdef", s[i]))
            return 0;
    return i == 16 && s[16] == '.' && !strchr(s + 17, '.') && strlen(s) < 64;
}

int kcache_trim(int dfd, unsigned long long max)
{
    struct sys_dir *d = sys_dir_at(dfd);
    if (!d)
        return -1;
    struct aged *v = NULL;
    size_t n = 0, cap = 0;
    unsigned long long total = 0;
    const char *name;
    struct stat st;
    while ((name = sys_dir_next(d))) {
        if (!entry_name(name) || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
            !S_ISREG(st.st_mode) || st.st_uid != geteuid())
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            struct aged *w = realloc(v, nc * sizeof *w);
            if (!w)
                break;
            v = w;
            cap = nc;
        }
        bl_fmt(v[n].name, sizeof v[n].name, "%s", name);
        v[n].size = (long long)st.st_size;
        v[n].used = st.st_mtim;
        total += (unsigned long long)st.st_size;
        n++;
    }
    sys_dir_close(d);
    int removed = 0;
    if (total > max && n) {
        qsort(v, n, sizeof *v, older);
        for (size_t i = 0; i < n && total > max; i++)
            if (unlinkat(dfd, v[i].name, 0) == 0) {
                total -= (unsigned long long)v[i].size;
                removed++;
            }
    }
    free(v);
    return removed;
}

/* ---- a compile through the cache ---- */

void compiled_done(struct compiled *c)
{
    free(c->log);
    free(c->cubin);
    memset(c, 0, sizeof *c);
}


int kcache_key_compile(const struct kcompile_in *in, const char *kind, const char *compiler,
                       const char *const *opts, int nopts, struct bl_buf *key, char *cname,
                       size_t n)
{
    *key = KCACHE_KEY();
    cname[0] = '\0';
    if (!in->cache_dir || !in->cache_dir[0] || !in->name_expr)
        return -1;
    const char *head[] = {"banklab kernel cache 2\nout ", kind, "\ncompiler ", compiler,
                          "\nname ", in->name, "\nexpr ", in->name_expr, "\noptions\n"};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        bl_buf_add(key, head[i], strlen(head[i]));
    for (int i = 0; i < nopts; i++) {
        bl_buf_add(key, opts[i], strlen(opts[i]));
        bl_buf_add(key, "\n", 1);
    }
    bl_buf_add(key, "source\n", 7);
    bl_buf_add(key, in->src, in->len);
    kcache_key_includes(key, in->dir, in->src, in->len);
    if (!key->s || key->failed) {
        bl_buf_release(key);
        return -1;
    }
    bl_fmt(cname, n, "%016llx.%s", (unsigned long long)bl_hash(BL_HASH_SEED, key->s, key->len),
           kind);
    return 0;
}

int kcache_get(const char *cache_dir, const char *cname, const struct bl_buf *key,
               struct compiled *out)
{
    int dfd = kcache_dir_open(cache_dir, NULL);
    struct kcache_entry e;
    if (dfd < 0)
        return -1;
    int rc = kcache_load(dfd, cname, key, &e);
    close(dfd);
    if (rc)
        return -1;
    out->log = e.log;
    out->cubin = e.cubin;
    out->cubin_size = e.cubin_size;
    bl_fmt(out->lowered, sizeof out->lowered, "%s", e.lowered);
    free(e.lowered);
    out->ok = 1;
    return 0;
}

void kcache_put(const struct kcompile_in *in, const char *cname, const struct bl_buf *key,
                const char *log, const char *lowered, const void *bytes, size_t size,
                const char *deps)
{
    struct bl_err why = {0};
    int dfd = kcache_dir_open(in->cache_dir, &why);
    struct kcache_entry e = {(char *)log, (char *)lowered, (unsigned char *)bytes, size,
                             (char *)deps};
    if ((dfd < 0 || kcache_store(dfd, cname, key, &e)) && in->dbg)
        fprintf(in->dbg, "cache: cannot write %s/%s: %s\n", in->cache_dir, cname,
                dfd < 0 ? why.msg : strerror(errno));
    if (dfd >= 0)
        close(dfd);
}
