/* test_buf.c: the growable string (src/base/buf.c): many appends grow it and keep every byte,
 * addf prints output of any length, read_file reads an empty file, a large one and says why a
 * missing one failed, a limit refuses without cutting, and running out of memory (a real
 * failed realloc under a lowered address-space limit, in a child) is reported, the text kept.
 * libc only. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/base/buf.h"

/* bl_grow: the one growable array, doubling from its first size, refusing what cannot fit */
static void test_grow(void **state)
{
    (void)state;
    long *a = NULL;
    int cap = 0;
    assert_int_equal(bl_grow(&a, &cap, 1, sizeof *a, 4), 0);
    assert_int_equal(cap, 4);
    a[3] = 7;
    assert_int_equal(bl_grow(&a, &cap, 4, sizeof *a, 4), 0);    /* room already */
    assert_int_equal(cap, 4);
    assert_int_equal(bl_grow(&a, &cap, 5, sizeof *a, 4), 0);
    assert_int_equal(cap, 8);
    assert_int_equal(bl_grow(&a, &cap, 100, sizeof *a, 4), 0);
    assert_int_equal(cap, 128);
    assert_int_equal(a[3], 7);
    long *before = a;
    assert_int_equal(bl_grow(&a, &cap, INT_MAX, (size_t)1 << 40, 4), -1);   /* too large */
    assert_ptr_equal(a, before);
    assert_int_equal(cap, 128);
    free(a);
}

static void test_many_appends(void **state)
{
    (void)state;
    struct bl_buf b = BL_BUF_INIT;
    assert_string_equal(bl_buf_str(&b), "");
    for (int i = 0; i < 100000; i++)
        assert_int_equal(bl_buf_addc(&b, 'a' + i % 26), 0);
    assert_int_equal(b.len, 100000);
    assert_true(b.cap > b.len);
    assert_int_equal(b.s[b.len], '\0');
    assert_int_equal(strlen(b.s), 100000);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(b.s[i], 'a' + i % 26);
    /* bytes with NULs inside, and appending a part of itself */
    bl_buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_int_equal(bl_buf_add(&b, "x\0y", 3), 0);
    assert_int_equal(b.len, 3);
    assert_memory_equal(b.s, "x\0y", 4);
    for (int i = 0; i < 12; i++)
        assert_int_equal(bl_buf_add(&b, b.s, b.len), 0);
    assert_int_equal(b.len, 3u << 12);
    assert_memory_equal(b.s + b.len - 3, "x\0y", 4);
    assert_int_equal(bl_buf_adds(&b, ""), 0);
    assert_int_equal(b.len, 3u << 12);
    bl_buf_release(&b);
    assert_null(b.s);
    assert_int_equal(b.len, 0);
}

static void test_addf(void **state)
{
    (void)state;
    struct bl_buf b = BL_BUF_INIT;
    assert_int_equal(bl_buf_addf(&b, "%d-%s", 12, "ab"), 0);
    assert_string_equal(b.s, "12-ab");
    /* far longer than any first allocation: printed again after growing, nothing cut */
    char *big = malloc(100001);
    assert_non_null(big);
    memset(big, 'z', 100000);
    big[100000] = '\0';
    assert_int_equal(bl_buf_addf(&b, "[%s]%d", big, 7), 0);
    assert_int_equal(b.len, 5 + 1 + 100000 + 1 + 1);
    assert_memory_equal(b.s, "12-ab[zzz", 9);
    assert_string_equal(b.s + b.len - 3, "z]7");
    /* many small ones */
    bl_buf_reset(&b);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(bl_buf_addf(&b, "%d,", i % 10), 0);
    assert_int_equal(b.len, 20000);
    assert_memory_equal(b.s + b.len - 4, "8,9,", 4);
    size_t len = 0;
    char *s = bl_buf_detach(&b, &len);
    assert_int_equal(len, 20000);
    assert_int_equal(strlen(s), 20000);
    assert_null(b.s);
    free(s);
    /* detach of an empty buffer: an allocated "" */
    s = bl_buf_detach(&b, &len);
    assert_non_null(s);
    assert_string_equal(s, "");
    assert_int_equal(len, 0);
    free(s);
    free(big);
}

static void test_limit(void **state)
{
    (void)state;
    struct bl_buf b = BL_BUF_MAX(10);
    assert_int_equal(bl_buf_adds(&b, "0123456789"), 0);
    errno = 0;
    assert_int_equal(bl_buf_addc(&b, 'x'), -1);
    assert_int_equal(errno, EFBIG);
    assert_int_equal(b.failed, EFBIG);
    assert_string_equal(b.s, "0123456789");   /* kept whole, nothing cut or added */
    /* sticky: a later append that would fit is refused too, until reset */
    assert_int_equal(bl_buf_add(&b, "", 0), -1);
    assert_int_equal(bl_buf_addf(&b, "%s", ""), -1);
    assert_string_equal(b.s, "0123456789");
    bl_buf_reset(&b);
    assert_int_equal(b.failed, 0);
    assert_int_equal(bl_buf_addf(&b, "%s", "abcdefghij"), 0);
    assert_int_equal(bl_buf_addf(&b, "%s", "k"), -1);
    assert_string_equal(b.s, "abcdefghij");
    /* a length that cannot be: out of memory without asking for it */
    struct bl_buf c = BL_BUF_INIT;
    assert_int_equal(bl_buf_adds(&c, "ab"), 0);
    assert_int_equal(bl_buf_grow(&c, SIZE_MAX - 1), -1);
    assert_int_equal(c.failed, ENOMEM);
    assert_string_equal(c.s, "ab");
    bl_buf_release(&c);
    bl_buf_release(&b);
    assert_int_equal(b.max, 10);
}

static char dir[] = "/tmp/test_buf.XXXXXX";

static void test_read_file(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    char empty[64], full[64], missing[64];
    snprintf(empty, sizeof empty, "%s/empty", dir);
    snprintf(full, sizeof full, "%s/full", dir);
    snprintf(missing, sizeof missing, "%s/missing", dir);
    FILE *f = fopen(empty, "w");
    assert_non_null(f);
    fclose(f);
    f = fopen(full, "w");
    assert_non_null(f);
    for (int i = 0; i < 300000; i++)
        fputc('0' + i % 10, f);
    fclose(f);

    struct bl_buf b = BL_BUF_INIT;
    assert_int_equal(bl_buf_read_file(&b, empty), 0);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.failed, 0);
    assert_string_equal(bl_buf_str(&b), "");
    errno = 0;
    assert_int_equal(bl_buf_read_file(&b, missing), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(b.failed, 0);   /* the buffer itself is fine */
    assert_int_equal(bl_buf_adds(&b, "head:"), 0);
    assert_int_equal(bl_buf_read_file(&b, full), 0);
    assert_int_equal(b.len, 5 + 300000);
    assert_int_equal(b.s[b.len], '\0');
    assert_memory_equal(b.s, "head:0123", 9);
    assert_int_equal(b.s[b.len - 1], '9');
    bl_buf_release(&b);

    /* a limit: exactly the file's size passes, one byte less is refused */
    b = BL_BUF_MAX(300000);
    assert_int_equal(bl_buf_read_file(&b, full), 0);
    assert_int_equal(b.len, 300000);
    bl_buf_release(&b);
    b = BL_BUF_MAX(299999);
    assert_int_equal(bl_buf_read_file(&b, full), -1);
    assert_int_equal(errno, EFBIG);
    assert_int_equal(b.failed, EFBIG);
    bl_buf_release(&b);

    /* a read error: a directory */
    assert_int_equal(bl_buf_read_file(&b, dir), -1);
    assert_int_equal(errno, EISDIR);
    bl_buf_release(&b);
    unlink(empty);
    unlink(full);
    rmdir(dir);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* A real failed realloc: in a child whose address space is capped, a buffer asked to grow
 * far past the cap says ENOMEM and keeps its text. ASan reserves terabytes of shadow memory
 * and cannot run under such a cap: there the test says so and passes on the limit check. */
static void test_out_of_memory(void **state)
{
    (void)state;
#ifdef UNDER_ASAN
    print_message("SKIP: a capped address space and ASan's shadow memory do not mix: the "
                  "out-of-memory path is tested in the plain build\n");
    skip();
#else
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct bl_buf b = BL_BUF_INIT;
        if (bl_buf_adds(&b, "kept"))
            _exit(2);
        struct rlimit rl = {256u << 20, 256u << 20};
        if (setrlimit(RLIMIT_AS, &rl))
            _exit(3);
        errno = 0;
        int rc = bl_buf_grow(&b, 1u << 30);
        if (rc != -1 || errno != ENOMEM || b.failed != ENOMEM)
            _exit(4);
        if (strcmp(b.s, "kept") || b.len != 4)
            _exit(5);
        /* and addf, which grows inside */
        b.failed = 0;
        char *big = malloc(64u << 20);
        if (!big)
            _exit(6);
        memset(big, 'q', (64u << 20) - 1);
        big[(64u << 20) - 1] = '\0';
        int n = 0;
        while (n < 8 && !bl_buf_addf(&b, "%s", big))
            n++;
        if (n == 8 || b.failed != ENOMEM || b.len != 4 + (size_t)n * ((64u << 20) - 1))
            _exit(7);
        _exit(0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow),
        cmocka_unit_test(test_many_appends),
        cmocka_unit_test(test_addf),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
