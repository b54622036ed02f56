/* test_kchild.c: what `banklab kernel` takes from its measuring process and `banklab run`
 * from the injection library, without a GPU. The numbers of a result are checked
 * as a recording's are (NaN, 1e18, a flag of 7 and an unknown kind refused, with the field
 * named); a SASS mnemonic of 24 bytes without a NUL is cut, not read past; a job whose
 * measuring process sends such a result fails with the reason and nothing of it; at the time
 * limit and on cancel the job kills the measuring process's whole group (a "compiler" it
 * started dies with it) and removes the temporary directory it left; notes are said once, in
 * the order first said, 200,000 of them in well under a second; 200,000 instructions are
 * summed per line in well under a second.
 *
 * This binary is its own measuring process: the job execs /proc/self/exe __kernel-child,
 * which main() answers as FAKE_CHILD says. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/base/err.h"
#include "../../src/kernel/kernel.h"
#include "../../src/kmeasure/kmeasure.h"
#include "../../src/sys/sys.h"

static char tmpdir[256];

/* A measured result as a measuring process sends it: one line of two instructions. */
static void good_result(struct gpu_kernel_result *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->kernel, sizeof r->kernel, "k");
    snprintf(r->device, sizeof r->device, "Fake GPU (sm_90)");
    r->grid[0] = r->grid[1] = r->grid[2] = 1;
    r->block[0] = 256, r->block[1] = r->block[2] = 1;
    r->phase = GPU_KPHASE_DONE;
    kres_add_file(r, "k.cu");
    r->insts = calloc(2, sizeof *r->insts);
    r->ninsts = 2;
    r->insts[0] = (struct gpu_kernel_inst){0x10, 0, 3, GPU_KOP_LD, "LDS", 4, 1, 8, 256, 8};
    r->insts[1] = (struct gpu_kernel_inst){0x20, 0, 4, GPU_KOP_ST, "STS", 4, 1, 8, 8, 8};
    kres_build_lines(r);
}

/* r through a pipe and back: kwire_get_result's answer, back filled when 0. */
static int round_trip(const struct gpu_kernel_result *r, struct gpu_kernel_result *back,
                      struct bl_err *why)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(kwire_put_result(p[1], r), 0);
    close(p[1]);
    static unsigned char buf[1 << 20];
    size_t n = 0;
    ssize_t got;
    while ((got = read(p[0], buf + n, sizeof buf - n)) > 0)
        n += (size_t)got;
    close(p[0]);
    uint32_t head[2];
    memcpy(head, buf, 8);
    assert_int_equal(head[0], KWIRE_RESULT);
    assert_int_equal(8 + head[1], n);
    return kwire_get_result(buf + 8, head[1], back, why);
}

/* Each bad number refused, and named. */
static void test_ranges(void **state)
{
    (void)state;
    struct gpu_kernel_result r, back;
    struct bl_err why = {0};
    good_result(&r);
    assert_int_equal(round_trip(&r, &back, &why), 0);
    assert_int_equal(why.status, 0);
    assert_true(back.lines[0].wavefronts == 256);
    gpu_kernel_result_done(&back);
    gpu_kernel_result_done(&r);
    static const struct {
        int which;
        double v;
        const char *named;
    } bad[] = {
        {0, NAN, "insts[0].wavefronts = nan"},    {0, 1e18, "insts[0].wavefronts = 1e+18"},
        {0, -1, "insts[0].wavefronts = -1"},      {1, INFINITY, "lines[0].inst = inf"},
        {2, NAN, "totals.ideal = nan"},           {3, 1e18, "timing.run = 1e+18"},
        {4, 7, "insts[1].ideal_known = 7"},       {5, 99, "insts[0].op = 99"},
        {6, 1e9, "registers = 1e+09"},            {7, NAN, "lines[0].ways = nan"},
        {8, 5000, "block[0] = 5000"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        good_result(&r);
        switch (bad[i].which) {
        case 0: r.insts[0].wavefronts = bad[i].v; break;
        case 1: r.lines[0].inst = bad[i].v; break;
        case 2: r.totals.ideal = bad[i].v; break;
        case 3: r.timing.run = bad[i].v; break;
        case 4: r.insts[1].ideal_known = (int)bad[i].v; break;
        case 5: r.insts[0].op = (int)bad[i].v; break;
        case 6: r.regs = (int)bad[i].v; break;
        case 7: r.lines[0].ways = bad[i].v; break;
        case 8: r.block[0] = (unsigned)bad[i].v; break;
        }
        memset(&why, 0, sizeof why);
        assert_int_equal(round_trip(&r, &back, &why), -1);
        assert_int_equal(why.status, GPU_KERNEL_ECRASH);
        if (!strstr(why.msg, bad[i].named))
            fail_msg("case %zu: '%s' does not name %s", i, why.msg, bad[i].named);
        assert_null(back.insts);  /* nothing of it kept */
        assert_int_equal(back.ninsts, 0);
        gpu_kernel_result_done(&r);
    }
    /* a mnemonic of 24 bytes and no NUL: cut at 23, never read past */
    good_result(&r);
    memset(r.insts[0].sass, 'X', sizeof r.insts[0].sass);
    assert_int_equal(round_trip(&r, &back, &why), 0);
    assert_int_equal(strlen(back.insts[0].sass), sizeof back.insts[0].sass - 1);
    gpu_kernel_result_done(&back);
    gpu_kernel_result_done(&r);
}

/* Why a kernel was measured without the device's turn crosses the wire as a message of
 * msg.def, so the kernel view and `banklab kernel` say it in the reader's language; a
 * message id out of range from the other process is dropped, the English text kept. */
static void test_lock_message(void **state)
{
    (void)state;
    struct gpu_kernel_result r, back;
    struct bl_err why = {0};
    good_result(&r);
    bl_msg_set(&r.lock_msg, r.lock_note, sizeof r.lock_note, KRN_LOCK_WAITED, 30);
    assert_string_equal(r.lock_note, "without turns: waited 30 s for the GPU");
    assert_int_equal(round_trip(&r, &back, &why), 0);
    char buf[256];
    assert_string_equal(bl_msg_or_text(&back.lock_msg, back.lock_note, BL_LANG_EN, buf, sizeof buf),
                        "without turns: waited 30 s for the GPU");
    assert_string_equal(bl_msg_or_text(&back.lock_msg, back.lock_note, BL_LANG_ZH, buf, sizeof buf),
                        "不排队：等了 30 秒仍未排到 GPU");
    gpu_kernel_result_done(&back);
    /* the lock's own why nested (a damaged lock file): both languages cross the wire */
    struct bl_err lk = {0};
    bl_fail(&lk, -1, BL_NOWHERE, DLK_FILE_BROKEN, "/tmp/x.lock", "not a banklab lock (wrong content)");
    bl_msg_set(&r.lock_msg, r.lock_note, sizeof r.lock_note, KRN_LOCK_FAILED, &lk.why);
    assert_int_equal(round_trip(&r, &back, &why), 0);
    assert_string_equal(bl_msg_or_text(&back.lock_msg, back.lock_note, BL_LANG_ZH, buf, sizeof buf),
                        "不排队：GPU 锁 /tmp/x.lock：不是 banklab 锁（内容不对）");
    gpu_kernel_result_done(&back);
    r.lock_msg.sbuf[r.lock_msg.arg[0].v.s + 2] = (char)BL_MSG_ARGS + 1; /* a nested one broken */
    assert_int_equal(round_trip(&r, &back, &why), 0);
    assert_int_equal(back.lock_msg.id, BL_MSG_NONE);
    assert_string_equal(bl_msg_or_text(&back.lock_msg, back.lock_note, BL_LANG_ZH, buf, sizeof buf),
                        "without turns: GPU lock /tmp/x.lock: not a banklab lock (wrong content)");
    gpu_kernel_result_done(&back);
    bl_msg_set(&r.lock_msg, r.lock_note, sizeof r.lock_note, KRN_LOCK_WAITED, 30);
    r.lock_msg.id = 1 << 30; /* nonsense from the other side */
    assert_int_equal(round_trip(&r, &back, &why), 0);
    assert_string_equal(bl_msg_or_text(&back.lock_msg, back.lock_note, BL_LANG_ZH, buf, sizeof buf),
                        "without turns: waited 30 s for the GPU");
    gpu_kernel_result_done(&back);
    gpu_kernel_result_done(&r);
}

/* ---- the fake measuring process ---- */

static int fake_child(void)
{
    const char *mode = getenv("FAKE_CHILD");
    struct gpu_kernel_request req;
    char *src = NULL, cwd[PATH_MAX];
    size_t len = 0;
    if (!mode || kwire_get_request(0, &req, &src, &len, cwd, NULL))
        return 2;
    free(src);
    if (!strcmp(mode, "hang")) {
        /* as nvcc: a "compiler" of its own and a temporary directory, then no answer */
        char dir[PATH_MAX], file[PATH_MAX + 32];
        if (sys_tmp_make("nvcc", dir, sizeof dir))
            return 3;
        snprintf(file, sizeof file, "%s/tmpxft_00000000-1.ii", dir);
        FILE *f = fopen(file, "w");
        if (f)
            fclose(f);
        kwire_hello(3, 0);
        kwire_phase(3, GPU_KPHASE_COMPILE);
        pid_t g = fork();
        if (g == 0) {
            execlp("sleep", "sleep", "60", (char *)NULL);
            _exit(127);
        }
        char pidfile[PATH_MAX];
        snprintf(pidfile, sizeof pidfile, "%s/compiler.pid", getenv("FAKE_DIR"));
        f = fopen(pidfile, "w");
        if (f) {
            fprintf(f, "%d\n", (int)g);
            fclose(f);
        }
        for (;;)
            pause();
    }
    kwire_hello(3, 0);
    struct gpu_kernel_result r;
    good_result(&r);
    snprintf(r.device, sizeof r.device, "\033]0;PWNED\007 GPU");
    if (!strcmp(mode, "nan"))
        r.insts[1].wavefronts = NAN;
    else if (!strcmp(mode, "huge"))
        r.totals.wavefronts = 1e18;
    kwire_put_result(3, &r);
    gpu_kernel_result_done(&r);
    return 0;
}

static struct gpu_kernel_job *start_fake(const char *mode, double limit_s)
{
    setenv("FAKE_CHILD", mode, 1);
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);    /* no server: a one-shot child, /proc/self/exe */
    snprintf(req.path, sizeof req.path, "k.cu");
    req.time_limit = limit_s;
    struct bl_err err = {0};
    struct gpu_kernel_job *job = gpu_kernel_start(&req, "__global__ void k() {}", 22, &err);
    assert_non_null(job);
    return job;
}

/* A result with NaN or 1e18 in it: the job fails with the reason and keeps none of it. */
static void test_job_refuses(void **state)
{
    (void)state;
    const char *modes[] = {"nan", "huge"}, *named[] = {"insts[1].wavefronts = nan",
                                                        "totals.wavefronts = 1e+18"};
    for (int i = 0; i < 2; i++) {
        struct gpu_kernel_job *job = start_fake(modes[i], 10);
        struct gpu_kernel_result r;
        gpu_kernel_wait(job, &r);
        assert_int_equal(r.err.status, GPU_KERNEL_ECRASH);
        if (!strstr(r.err.msg, named[i]) || !strstr(r.err.msg, "out of range"))
            fail_msg("%s: '%s'", modes[i], r.err.msg);
        assert_int_equal(r.ninsts, 0);
        assert_int_equal(r.nlines, 0);
        assert_int_equal(r.device[0], '\0');
        gpu_kernel_result_done(&r);
        gpu_kernel_free(job);
    }
    /* the good one goes through (its device text is the caller's to escape) */
    struct gpu_kernel_job *job = start_fake("good", 10);
    struct gpu_kernel_result r;
    gpu_kernel_wait(job, &r);
    assert_int_equal(r.err.status, GPU_KERNEL_OK);
    assert_int_equal(r.ninsts, 2);
    gpu_kernel_result_done(&r);
    gpu_kernel_free(job);
}

/* 1 when pid has ended (gone, or a zombie nobody reaped yet). */
static int ended(pid_t pid)
{
    char path[64], stat[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *close_paren = strrchr(stat, ')');
    return close_paren && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

/* The "compiler" of the last hang, from its pid file (waits for it to be written). */
static pid_t compiler_pid(void)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/compiler.pid", tmpdir);
    for (int i = 0; i < 300; i++) {
        FILE *f = fopen(path, "r");
        int pid = 0;
        if (f) {
            int k = fscanf(f, "%d", &pid);
            fclose(f);
            if (k == 1 && pid > 0) {
                unlink(path);
                return (pid_t)pid;
            }
        }
        usleep(10000);
    }
    fail_msg("the fake measuring process wrote no compiler pid");
    return -1;
}

/* No banklab-nvcc-* directory left in tmpdir. */
static int temporaries_left(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -d '%s'/banklab-nvcc-* >/dev/null 2>&1", tmpdir);
    return system(cmd) == 0;
}

static void wait_ended(pid_t pid, const char *when)
{
    for (int i = 0; i < 200 && !ended(pid); i++)
        usleep(10000);
    if (!ended(pid)) {
        kill(pid, SIGKILL);
        fail_msg("%s: the measuring process's compiler (pid %d) outlived it", when, (int)pid);
    }
}

/* At the time limit: the group killed whole, the temporary directory removed. */
static void test_time_limit_kills_group(void **state)
{
    (void)state;
    struct gpu_kernel_job *job = start_fake("hang", 1);
    pid_t comp = compiler_pid();
    struct gpu_kernel_result r;
    double t0 = bl_now_ms();
    gpu_kernel_wait(job, &r);
    assert_int_equal(r.err.status, GPU_KERNEL_ETIMEOUT);
    assert_true(bl_now_ms() - t0 < 5000);
    gpu_kernel_result_done(&r);
    gpu_kernel_free(job);
    wait_ended(comp, "time limit");
    assert_false(temporaries_left());
}

/* Cancelled (the kernel view's next save, or quitting): the same. */
static void test_cancel_kills_group(void **state)
{
    (void)state;
    struct gpu_kernel_job *job = start_fake("hang", 30);
    pid_t comp = compiler_pid();
    gpu_kernel_free(job);
    wait_ended(comp, "cancel");
    assert_false(temporaries_left());
}

/* Notes: each once, in first-said order; many of them in a blink. */
/* this process's CPU time in ms: the speed checks below measure the work, not how busy the
 * machine is (tests run in parallel, beside other users) */
static double cpu_ms(void)
{
    return (double)clock() * 1000.0 / CLOCKS_PER_SEC;
}

static void test_notes(void **state)
{
    (void)state;
    struct gpu_run_output o;
    memset(&o, 0, sizeof o);
    char line[64];
    double t0 = cpu_ms();
    for (int i = 0; i < 200000; i++) {
        snprintf(line, sizeof line, "not measured: reason %d", (i * 7) % 10);
        gpu_run_note(&o, line, strlen(line), NULL);
    }
    gpu_run_notes_unique(&o);
    assert_int_equal(o.nnotes, 10);
    for (int i = 0; i < 10; i++) {
        snprintf(line, sizeof line, "not measured: reason %d", (i * 7) % 10);
        assert_string_equal(o.notes[i].text, line);
    }
    gpu_run_output_done(&o);
    /* all different: kept up to a bound, the rest cut, still fast */
    for (int i = 0; i < 200000; i++) {
        snprintf(line, sizeof line, "note %d", i);
        gpu_run_note(&o, line, strlen(line), NULL);
    }
    gpu_run_notes_unique(&o);
    assert_true(o.nnotes > 1000 && o.nnotes <= 4096);
    assert_string_equal(o.notes[0].text, "note 0");
    assert_int_equal(o.notes_cut, 1);
    gpu_run_output_done(&o);
    double ms = cpu_ms() - t0;
    if (ms > 1000)
        fail_msg("400,000 notes took %.0f ms", ms);
}

/* The per-line sums of many instructions: sorted, not searched (200,000 instructions on
 * 100,000 lines took minutes when each looked its line up among the lines so far). */
static void test_many_lines(void **state)
{
    (void)state;
    struct gpu_kernel_result r;
    memset(&r, 0, sizeof r);
    int n = 200000;
    r.insts = calloc((size_t)n, sizeof *r.insts);
    assert_non_null(r.insts);
    r.ninsts = n;
    for (int i = 0; i < n; i++)
        r.insts[i] = (struct gpu_kernel_inst){(uint32_t)(n - i) * 16, 0, 1 + (i * 7919) % (n / 2),
                                              GPU_KOP_LD, "LDS", 4, 1, 1, 2, 1};
    double t0 = cpu_ms();
    assert_int_equal(kres_build_lines(&r), 0);
    double ms = cpu_ms() - t0;
    assert_int_equal(r.nlines, n / 2);
    for (int k = 0; k < r.nlines; k++) {
        assert_int_equal(r.lines[k].line, k + 1);
        assert_int_equal(r.lines[k].ninst, 2);
        assert_true(r.lines[k].wavefronts == 4 && r.lines[k].ways == 2);
    }
    assert_true(r.totals.wavefronts == 2.0 * n && r.insts[0].pc == 16);
    gpu_kernel_result_done(&r);
    if (ms > 1000)
        fail_msg("200,000 instructions summed in %.0f ms", ms);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "__kernel-child"))
        return fake_child();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_kchild-XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    setenv("TMPDIR", tmpdir, 1);
    setenv("FAKE_DIR", tmpdir, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_lock_message),
        cmocka_unit_test(test_job_refuses),
        cmocka_unit_test(test_time_limit_kills_group),
        cmocka_unit_test(test_cancel_kills_group),
        cmocka_unit_test(test_notes),
        cmocka_unit_test(test_many_lines),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
