/* test_kcache.c: the compiled-kernel cache (src/compile/cache.c) without NVRTC: the key's
 * include scan reads each distinct header once (a header that includes itself 10 or 1000
 * times, a chain of 1000 guarded headers: each under a second, and every header of the chain
 * in the key), stops at its limits instead of growing without end; the cache directory must
 * be this user's and closed to others; entries are never read or written through a link and
 * a store leaves no temporary file and removes those of killed stores; an entry
 * with a byte changed or cut short is never taken; the directory stays under its bound, the
 * least recently used entries removed first. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../src/compile/compile.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/banklab-kcache-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The scan of src in dir: the key it made, its time in *secs. */
static struct bl_buf scan(const char *src, double *secs)
{
    struct bl_buf k = KCACHE_KEY();
    double t0 = cpu_s();
    kcache_key_includes(&k, dir, src, strlen(src));
    *secs = cpu_s() - t0;
    return k;
}

static size_t count(const char *hay, size_t n, const char *needle)
{
    size_t c = 0, l = strlen(needle);
    for (size_t i = 0; i + l <= n; i++)
        c += !memcmp(hay + i, needle, l);
    return c;
}

static void self_including(int n)
{
    size_t cap = (size_t)n * 24 + 128;
    char *h = malloc(cap);
    assert_non_null(h);
    size_t o = (size_t)snprintf(h, cap, "#pragma once\n");
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(h + o, cap - o, "#include \"self.cuh\"\n");
    snprintf(h + o, cap - o, "__device__ int f(int x) { return x; }\n");
    put("self.cuh", h);
    free(h);
    double s;
    struct bl_buf k = scan("#include \"self.cuh\"\n#include \"self.cuh\"\n__global__ void k() {}\n", &s);
    assert_false(k.failed);
    assert_int_equal(count(k.s, k.len, "\ninclude "), 1);  /* read once */
    assert_true(s < 1.0);
    print_message("a header including itself %d times: %.4f s\n", n, s);
    bl_buf_release(&k);
}

static void test_self_10(void **state) { (void)state; self_including(10); }
static void test_self_1000(void **state) { (void)state; self_including(1000); }

static void test_chain_1000(void **state)
{
    (void)state;
    char name[32], text[256];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "h%d.cuh", i);
        snprintf(text, sizeof text, "#ifndef H%d\n#define H%d\n#include \"h%d.cuh\"\n#include \"h%d.cuh\"\n"
                 "#include \"h0.cuh\"\n#endif\n", i, i, i, i + 1);
        put(name, text);
    }
    put("h1000.cuh", "__device__ int last;\n");
    double s;
    struct bl_buf k = scan("#include \"h0.cuh\"\n", &s);
    assert_false(k.failed);
    assert_int_equal(count(k.s, k.len, "\ninclude "), 1001);  /* every header, once: no depth cut */
    assert_non_null(strstr(k.s, "__device__ int last;"));
    assert_true(s < 1.0);
    print_message("a chain of 1000 guarded headers: %.4f s\n", s);
    bl_buf_release(&k);
}

static void test_limits(void **state)
{
    (void)state;
    /* 70 headers of 1 MB each pass the 64 MB key: no cache rather than a huge key */
    char *big = malloc(KCACHE_INCLUDE_MAX + 1);
    assert_non_null(big);
    memset(big, 'x', KCACHE_INCLUDE_MAX);
    big[KCACHE_INCLUDE_MAX] = 0;
    char src[70 * 32] = "", name[32];
    for (int i = 0; i < 70; i++) {
        snprintf(name, sizeof name, "b%d.cuh", i);
        put(name, big);
        char line[64];
        snprintf(line, sizeof line, "#include \"%s\"\n", name);
        strcat(src, line);
    }
    free(big);
    double s;
    struct bl_buf k = scan(src, &s);
    assert_true(k.failed);
    assert_true(k.len <= KCACHE_KEY_MAX);
    bl_buf_release(&k);
    /* a FIFO as an include is not read (it would block) */
    char p[512];
    snprintf(p, sizeof p, "%s/fifo.cuh", dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    k = scan("#include \"fifo.cuh\"\n", &s);
    assert_false(k.failed);
    assert_true(k.len == 0);
    bl_buf_release(&k);
}

static void test_dir_and_entries(void **state)
{
    (void)state;
    char cdir[512];
    struct bl_err why = {0};
    snprintf(cdir, sizeof cdir, "%s/cache/banklab/kernels", dir);
    int dfd = kcache_dir_open(cdir, &why);
    assert_true(dfd >= 0);
    struct stat st;
    assert_int_equal(fstat(dfd, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    struct bl_buf key = KCACHE_KEY();
    bl_buf_add(&key, "the key", 7);
    unsigned char cubin[4] = {1, 2, 3, 4};
    struct kcache_entry e = {"log", "_Z1kv", cubin, sizeof cubin, NULL}, back;
    assert_int_equal(kcache_store(dfd, "a.cubin", &key, &e), 0);
    assert_int_equal(kcache_load(dfd, "a.cubin", &key, &back), 0);
    assert_int_equal(back.cubin_size, 4);
    assert_memory_equal(back.cubin, cubin, 4);
    assert_string_equal(back.lowered, "_Z1kv");
    free(back.log);
    free(back.lowered);
    free(back.cubin);
    /* another key: a miss */
    struct bl_buf other = KCACHE_KEY();
    bl_buf_add(&other, "other key", 9);
    assert_int_equal(kcache_load(dfd, "a.cubin", &other, &back), -1);
    /* an entry that is a link (to a good entry even) is not read */
    assert_int_equal(symlinkat("a.cubin", dfd, "l.cubin"), 0);
    assert_int_equal(kcache_load(dfd, "l.cubin", &key, &back), -1);
    /* storing at a name that is a link replaces the link, never writes through it */
    char victim[512];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    put("victim", "victim\n");
    assert_int_equal(symlinkat(victim, dfd, "v.cubin"), 0);
    assert_int_equal(kcache_store(dfd, "v.cubin", &key, &e), 0);
    char buf[16] = "";
    FILE *f = fopen(victim, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "victim\n");
    assert_int_equal(fstatat(dfd, "v.cubin", &st, AT_SYMLINK_NOFOLLOW), 0);
    assert_true(S_ISREG(st.st_mode));
    /* a killed store's temporary file, 20 minutes old, goes at the next store; a fresh one
     * (maybe a live store's) stays */
    int t1 = openat(dfd, "x.cubin.tmp-dead", O_WRONLY | O_CREAT, 0600);
    int t2 = openat(dfd, "x.cubin.tmp-live", O_WRONLY | O_CREAT, 0600);
    assert_true(t1 >= 0 && t2 >= 0);
    struct timespec old[2] = {{time(NULL) - 1200, 0}, {time(NULL) - 1200, 0}};
    assert_int_equal(futimens(t1, old), 0);
    close(t1);
    assert_int_equal(kcache_store(dfd, "b.cubin", &key, &e), 0);
    assert_int_equal(fstatat(dfd, "x.cubin.tmp-dead", &st, 0), -1);
    assert_int_equal(fstatat(dfd, "x.cubin.tmp-live", &st, 0), 0);
    close(t2);
    unlinkat(dfd, "x.cubin.tmp-live", 0);
    /* no temporary file left */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp", cdir);
    assert_int_not_equal(system(cmd), 0);
    close(dfd);
    bl_buf_release(&key);
    bl_buf_release(&other);
    /* a directory open to others, or a link as the directory: refused with the reason */
    assert_int_equal(chmod(cdir, 0777), 0);
    assert_int_equal(kcache_dir_open(cdir, &why), -1);
    assert_non_null(strstr(why.msg, "open to others (mode 777"));
    char lnk[512];
    snprintf(lnk, sizeof lnk, "%s/linked", dir);
    assert_int_equal(chmod(cdir, 0700), 0);
    assert_int_equal(symlink(cdir, lnk), 0);
    bl_err_clear(&why);
    assert_int_equal(kcache_dir_open(lnk, &why), -1);
    assert_non_null(strstr(why.msg, "symbolic link"));
    if (geteuid() == 0) {  /* another user's directory */
        assert_int_equal(chown(cdir, 65534, 65534), 0);
        bl_err_clear(&why);
        assert_int_equal(kcache_dir_open(cdir, &why), -1);
        assert_non_null(strstr(why.msg, "belongs to uid 65534"));
    }
}

/* An entry with any one byte changed, or cut short anywhere, is a miss (the caller compiles
 * again), never a cubin with other bytes. */
static void test_altered_entries(void **state)
{
    (void)state;
    char cdir[512], path[600];
    snprintf(cdir, sizeof cdir, "%s/cache", dir);
    int dfd = kcache_dir_open(cdir, NULL);
    assert_true(dfd >= 0);
    struct bl_buf key = KCACHE_KEY();
    bl_buf_add(&key, "k", 1);
    unsigned char body[64];
    for (size_t i = 0; i < sizeof body; i++)
        body[i] = (unsigned char)(i * 7);
    struct kcache_entry e = {"a log", "_Z1kv", body, sizeof body, NULL}, back;
    assert_int_equal(kcache_store(dfd, "0123456789abcdef.cubin", &key, &e), 0);
    snprintf(path, sizeof path, "%s/0123456789abcdef.cubin", cdir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char good[512];
    size_t n = fread(good, 1, sizeof good, f);
    fclose(f);
    assert_true(n > sizeof body && n < sizeof good);
    for (size_t at = 0; at < n; at++) {
        unsigned char bad[512];
        memcpy(bad, good, n);
        bad[at] ^= 0x01;
        f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(bad, 1, n, f), n);
        fclose(f);
        if (kcache_load(dfd, "0123456789abcdef.cubin", &key, &back) == 0)
            fail_msg("byte %zu of %zu changed: the entry was taken", at, n);
    }
    for (size_t len = 0; len < n; len++) {
        f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(good, 1, len, f), len);
        fclose(f);
        if (kcache_load(dfd, "0123456789abcdef.cubin", &key, &back) == 0)
            fail_msg("cut to %zu of %zu bytes: the entry was taken", len, n);
    }
    f = fopen(path, "wb"); /* and a byte too many */
    assert_non_null(f);
    assert_int_equal(fwrite(good, 1, n, f), n);
    fputc(0, f);
    fclose(f);
    assert_int_equal(kcache_load(dfd, "0123456789abcdef.cubin", &key, &back), -1);
    f = fopen(path, "wb"); /* the good bytes again: a hit */
    assert_non_null(f);
    assert_int_equal(fwrite(good, 1, n, f), n);
    fclose(f);
    assert_int_equal(kcache_load(dfd, "0123456789abcdef.cubin", &key, &back), 0);
    assert_memory_equal(back.cubin, body, sizeof body);
    free(back.log);
    free(back.lowered);
    free(back.cubin);
    bl_buf_release(&key);
    close(dfd);
}

/* The directory's entries stay under the bound: the least recently used go first (a load
 * makes an entry recent), and nothing but entries is counted or removed. */
static void test_trim(void **state)
{
    (void)state;
    char cdir[512];
    snprintf(cdir, sizeof cdir, "%s/cache", dir);
    int dfd = kcache_dir_open(cdir, NULL);
    assert_true(dfd >= 0);
    struct bl_buf key = KCACHE_KEY();
    bl_buf_add(&key, "k", 1);
    static unsigned char body[10000];
    struct kcache_entry e = {"", "", body, sizeof body, NULL}, back;
    const char *names[4] = {"000000000000000a.cubin", "000000000000000b.ptx",
                            "000000000000000c.cubin", "000000000000000d.cubin"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(kcache_store(dfd, names[i], &key, &e), 0);
        int fd = openat(dfd, names[i], O_RDONLY);
        struct timespec t[2] = {{time(NULL) - 100 + i, 0}, {time(NULL) - 100 + i, 0}};
        assert_int_equal(futimens(fd, t), 0); /* a first, d last */
        close(fd);
    }
    put("cache/notes.txt", "not an entry\n");
    assert_int_equal(kcache_load(dfd, names[0], &key, &back), 0); /* a: used now */
    free(back.log);
    free(back.lowered);
    free(back.cubin);
    assert_int_equal(kcache_trim(dfd, 1ull << 30), 0);
    /* room for two entries: b and c, the least recently used, go */
    assert_int_equal(kcache_trim(dfd, 2 * sizeof body + 400), 2);
    struct stat st;
    assert_int_equal(fstatat(dfd, names[0], &st, 0), 0);
    assert_int_equal(fstatat(dfd, names[1], &st, 0), -1);
    assert_int_equal(fstatat(dfd, names[2], &st, 0), -1);
    assert_int_equal(fstatat(dfd, names[3], &st, 0), 0);
    assert_int_equal(fstatat(dfd, "notes.txt", &st, 0), 0);
    bl_buf_release(&key);
    close(dfd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_self_10, setup, teardown),
        cmocka_unit_test_setup_teardown(test_self_1000, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chain_1000, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dir_and_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_altered_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trim, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
