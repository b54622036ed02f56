/* test_sys.c: the border with the OS (src/sys): the environment table answers its names only;
 * the walker skips "." and ".." and reads a directory open as an fd from its start; a private
 * temporary directory is 0700 and its removal takes what is in it but never follows a link out
 * of it; the spawner runs a program with its fds, says why exec failed (errno, not a 127 to
 * guess from), and at a deadline kills the child's whole group (a grandchild too); a detached
 * child is nobody's zombie; the executable's directory is found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/sys/sys.h"

static void test_env_table(void **state)
{
    (void)state;
    setenv("BANKLAB_LIGHT", "yes", 1);
    setenv("BANKLAB_NOT_A_ROW", "x", 1);
    assert_string_equal(sys_env("BANKLAB_LIGHT"), "yes");
    errno = 0;
    assert_null(sys_env("BANKLAB_NOT_A_ROW"));      /* set, but no row: never read */
    assert_int_equal(errno, EINVAL);
    assert_null(sys_env(NULL));
    unsetenv("BANKLAB_LIGHT");
    assert_null(sys_env("BANKLAB_LIGHT"));
}

static void test_dir_and_tmp(void **state)
{
    (void)state;
    char dir[PATH_MAX], p[PATH_MAX + 32], outside[PATH_MAX];
    setenv("TMPDIR", "relative/path", 1);               /* not absolute: /tmp */
    assert_string_equal(sys_tmp_base(), "/tmp");
    unsetenv("TMPDIR");
    assert_int_equal(sys_tmp_make("systest", dir, sizeof dir), 0);
    char want[64];
    snprintf(want, sizeof want, "/tmp/banklab-systest-%ld-", (long)getpid());
    assert_memory_equal(dir, want, strlen(want));
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    /* a file, a subdirectory with a file, and a link to a directory outside */
    assert_int_equal(sys_tmp_make("sysout", outside, sizeof outside), 0);
    snprintf(p, sizeof p, "%s/keep", outside);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(p, sizeof p, "%s/a", dir);
    f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(p, sizeof p, "%s/sub", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/sub/b", dir);
    f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(p, sizeof p, "%s/link", dir);
    assert_int_equal(symlink(outside, p), 0);
    /* the walker: three names, no "." or ".."; again through an fd read half-way */
    struct sys_dir *d = sys_dir_open(dir);
    assert_non_null(d);
    int n = 0;
    const char *name;
    while ((name = sys_dir_next(d))) {
        assert_true(strcmp(name, ".") && strcmp(name, ".."));
        n++;
    }
    sys_dir_close(d);
    assert_int_equal(n, 3);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    d = sys_dir_at(fd);
    assert_non_null(sys_dir_next(d));
    sys_dir_close(d);
    d = sys_dir_at(fd);                                  /* from the start again */
    for (n = 0; sys_dir_next(d); n++)
        ;
    sys_dir_close(d);
    close(fd);
    assert_int_equal(n, 3);
    errno = 0;
    assert_null(sys_dir_open("/nonexistent/banklab"));
    assert_int_equal(errno, ENOENT);
    sys_tmp_remove(dir);
    assert_int_equal(lstat(dir, &st), -1);              /* gone, with what was in it */
    snprintf(p, sizeof p, "%s/keep", outside);
    assert_int_equal(stat(p, &st), 0);                  /* the link was not followed */
    sys_tmp_sweep("sysout", getpid());                  /* ours, by the pid in its name */
    assert_int_equal(lstat(outside, &st), -1);
}

static void test_spawn(void **state)
{
    (void)state;
    /* an exit code through sys_wait, stdout into a pipe */
    int pp[2];
    assert_int_equal(pipe(pp), 0);
    char *echo[] = {"sh", "-c", "echo hi; exit 3", NULL};
    struct sys_spawn sp = {.argv = echo, .path_search = 1, .group = SYS_OWN_GROUP,
                           .fd = {SYS_FD_NULL, pp[1], SYS_FD_KEEP}, .fd3 = -1};
    pid_t pid = sys_spawn(&sp);
    close(pp[1]);
    assert_true(pid > 0);
    char buf[16] = "";
    assert_int_equal(read(pp[0], buf, sizeof buf - 1), 3);
    close(pp[0]);
    assert_string_equal(buf, "hi\n");
    int st = -1;
    assert_int_equal(sys_wait(pid, -1, 0, &st), 0);
    assert_int_equal(st, 3);
    /* exec failing: -2 with its errno, the child reaped */
    char *none[] = {"/nonexistent/banklab-prog", NULL};
    struct sys_spawn bad = {.argv = none, .fd = {SYS_FD_KEEP, SYS_FD_KEEP, SYS_FD_KEEP}, .fd3 = -1};
    errno = 0;
    assert_int_equal(sys_spawn(&bad), -2);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);   /* no child left */
    bad.exec_fail_exits = 1;                            /* as a shell: 127 */
    pid = sys_spawn(&bad);
    assert_true(pid > 0);
    assert_int_equal(sys_wait(pid, 1000, 0, &st), 0);
    assert_int_equal(st, 127);
    /* the deadline: the group killed, a grandchild too */
    char pidfile[PATH_MAX], cmd[PATH_MAX + 64];
    snprintf(pidfile, sizeof pidfile, "/tmp/banklab-systest-%ld.pid", (long)getpid());
    snprintf(cmd, sizeof cmd, "sleep 30 & echo $! > %s; wait", pidfile);
    char *sh[] = {"sh", "-c", cmd, NULL};
    struct sys_spawn slow = {.argv = sh, .path_search = 1, .group = SYS_OWN_GROUP,
                             .fd = {SYS_FD_NULL, SYS_FD_KEEP, SYS_FD_KEEP}, .fd3 = -1};
    pid = sys_spawn(&slow);
    assert_true(pid > 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_REALTIME, &t0);
    assert_int_equal(sys_wait(pid, 300, 1, &st), 1);
    clock_gettime(CLOCK_REALTIME, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    assert_true(ms >= 290 && ms < 5000);
    FILE *f = fopen(pidfile, "r");
    long g = 0;
    if (f) {
        assert_int_equal(fscanf(f, "%ld", &g), 1);
        fclose(f);
    }
    unlink(pidfile);
    assert_true(g > 0);
    for (int i = 0; i < 200 && kill((pid_t)g, 0) == 0; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(kill((pid_t)g, 0), -1);            /* the grandchild died with its group */
    /* detached: the id of its group and session, and no child of ours */
    char *t[] = {"true", NULL};
    struct sys_spawn det = {.argv = t, .path_search = 1, .group = SYS_DETACHED,
                            .fd = {SYS_FD_NULL, SYS_FD_NULL, SYS_FD_NULL}, .fd3 = -1};
    assert_true(sys_spawn(&det) > 0);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

static void test_exe_dir(void **state)
{
    (void)state;
    char dir[PATH_MAX], self[PATH_MAX];
    assert_int_equal(sys_exe_dir(dir, sizeof dir), 0);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = 0;
    *strrchr(self, '/') = 0;
    assert_string_equal(dir, self);
    assert_int_equal(sys_exe_dir(dir, 1), -1);          /* no room: "" */
    assert_string_equal(dir, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_table),
        cmocka_unit_test(test_dir_and_tmp),
        cmocka_unit_test(test_spawn),
        cmocka_unit_test(test_exe_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
