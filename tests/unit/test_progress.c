/* test_progress.c: learner progress (src/store/progress.c): XDG paths, record/update rules,
 * save/load round trip, atomic save (no temp files left, 0700 directories), loading any
 * bytes: truncated, garbage, wrong-typed and oversized files are moved aside with a warning;
 * and two writers: a save merges with what is on disk (per entry, newest wins, under a lock),
 * so a tutorial and a lab, or two tutorials, never lose each other's entries.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/store/progress.h"

struct tmp {
    char dir[256];
    char path[512];
};

static int setup(void **state)
{
    struct tmp *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    const char *base = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/banklab-progress-XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(t->dir)) {
        free(t);
        return -1;
    }
    snprintf(t->path, sizeof t->path, "%s/state/banklab/progress.json", t->dir);
    *state = t;
    return 0;
}

static void rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rm_rf(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static int teardown(void **state)
{
    struct tmp *t = *state;
    rm_rf(t->dir);
    free(t);
    return 0;
}

static void write_file(const char *path, const char *data, size_t len)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    char *s = strrchr(dir, '/');
    *s = 0;
    char *p = strrchr(dir, '/');
    *p = 0;
    mkdir(dir, 0700);
    *p = '/';
    mkdir(dir, 0700);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Number of entries in the progress file's directory whose name starts with prefix. */
static int count_prefix(const char *path, const char *prefix)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix)))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void remove_prefix(const char *path, const char *prefix)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
            unlink(sub);
        }
    }
    if (d)
        closedir(d);
}

static struct progress *new_progress(void)
{
    struct progress *p = malloc(sizeof *p);
    assert_non_null(p);
    progress_init(p);
    return p;
}

static void test_default_path(void **state)
{
    (void)state;
    char buf[512];
    char *old_xdg = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

    setenv("XDG_STATE_HOME", "/x/state", 1);
    setenv("HOME", "/home/u", 1);
    assert_string_equal(progress_default_path(buf, sizeof buf), "/x/state/banklab/progress.json");
    setenv("XDG_STATE_HOME", "relative/dir", 1);  /* invalid per the XDG spec: ignored */
    assert_string_equal(progress_default_path(buf, sizeof buf),
                        "/home/u/.local/state/banklab/progress.json");
    unsetenv("XDG_STATE_HOME");
    assert_string_equal(progress_default_path(buf, sizeof buf),
                        "/home/u/.local/state/banklab/progress.json");
    assert_null(progress_default_path(buf, 10));  /* does not fit */
    unsetenv("HOME");
    assert_null(progress_default_path(buf, sizeof buf));

    if (old_xdg)
        setenv("XDG_STATE_HOME", old_xdg, 1);
    if (old_home)
        setenv("HOME", old_home, 1);
    free(old_xdg);
    free(old_home);
}

static void test_record_quiz(void **state)
{
    (void)state;
    struct progress *p = new_progress();
    progress_record_quiz(p, "mapping", "q1", 0, "32");
    progress_record_quiz(p, "mapping", "q1", 1, "1");
    progress_record_quiz(p, "mapping", "q2", 1, "4");
    assert_int_equal(p->nquiz, 2);
    assert_string_equal(p->quiz[0].lesson_id, "mapping");
    assert_string_equal(p->quiz[0].step_id, "q1");
    assert_int_equal(p->quiz[0].attempts, 2);
    assert_int_equal(p->quiz[0].correct, 1);
    assert_int_equal(p->quiz[0].first_correct, 0);  /* the grade is the first answer */
    assert_string_equal(p->quiz[0].given, "1");
    assert_int_equal(p->quiz[1].first_correct, 1);
    /* long ids and answers are cut, never overflow */
    char big[1000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    progress_record_quiz(p, big, big, 7, big);
    assert_int_equal(p->nquiz, 3);
    assert_int_equal(strlen(p->quiz[2].lesson_id), PROGRESS_ID_MAX - 1);
    assert_int_equal(strlen(p->quiz[2].given), sizeof p->quiz[2].given - 1);
    assert_int_equal(p->quiz[2].correct, 1);
    /* full table: new entries are dropped, existing ones still update */
    for (int i = 0; i < PROGRESS_MAX_QUIZ + 10; i++) {
        char id[16];
        snprintf(id, sizeof id, "s%d", i);
        progress_record_quiz(p, "fill", id, 1, NULL);
    }
    assert_int_equal(p->nquiz, PROGRESS_MAX_QUIZ);
    progress_record_quiz(p, "mapping", "q2", 0, "5");
    assert_int_equal(p->quiz[1].attempts, 2);
    assert_int_equal(p->quiz[1].first_correct, 1);
    free(p);
}

static void test_record_explored_ring(void **state)
{
    (void)state;
    struct progress *p = new_progress();
    for (int i = 0; i < PROGRESS_MAX_EXPLORED + 5; i++) {
        struct progress_explored e;
        memset(&e, 0, sizeof e);
        snprintf(e.code, sizeof e.code, "s[lane * %d]", i);
        e.wavefronts = i;
        progress_record_explored(p, &e);
    }
    assert_int_equal(p->nexplored, PROGRESS_MAX_EXPLORED);
    assert_int_equal(p->explored[0].wavefronts, 5);  /* the 5 oldest were dropped */
    assert_string_equal(p->explored[PROGRESS_MAX_EXPLORED - 1].code, "s[lane * 68]");
    free(p);
}

static void test_history(void **state)
{
    (void)state;
    struct progress *p = new_progress();
    progress_push_history(p, "a");
    progress_push_history(p, "b");
    progress_push_history(p, "c");
    progress_push_history(p, "a");  /* moves to the end */
    progress_push_history(p, "");   /* ignored */
    progress_push_history(p, NULL);
    assert_int_equal(p->nhistory, 3);
    assert_string_equal(p->history[0], "b");
    assert_string_equal(p->history[1], "c");
    assert_string_equal(p->history[2], "a");
    for (int i = 0; i < 40; i++) {
        char c[16];
        snprintf(c, sizeof c, "x%d", i);
        progress_push_history(p, c);
    }
    assert_int_equal(p->nhistory, 16);
    assert_string_equal(p->history[0], "x24");
    assert_string_equal(p->history[15], "x39");
    free(p);
}

static void fill(struct progress *p)
{
    snprintf(p->lesson_id, sizeof p->lesson_id, "padding");
    snprintf(p->step_id, sizeof p->step_id, "pad-one");
    snprintf(p->lang, sizeof p->lang, "zh");
    progress_record_quiz(p, "mapping", "q1", 0, "32");
    progress_record_quiz(p, "mapping", "q1", 1, "1");
    progress_record_quiz(p, "common", "中文步骤", 1, "二");
    struct progress_explored e;
    memset(&e, 0, sizeof e);
    snprintf(e.code, sizeof e.code, "__shared__ float t[32][33]; t[lane][0] \"quoted\"\\");
    snprintf(e.where, sizeof e.where, "padding/pad-one");
    e.wavefronts = 1;
    e.conflicts = 0;
    e.ways = 1;
    e.has_measured = 1;
    e.measured_wavefronts = 1.0;
    e.measured_conflicts = 0.25;
    e.ms = 0.0123;
    snprintf(e.device, sizeof e.device, "NVIDIA H200 (sm_90)");
    e.when = 1790000000LL;
    progress_record_explored(p, &e);
    memset(&e, 0, sizeof e);
    snprintf(e.code, sizeof e.code, "s[lane*32]");
    snprintf(e.where, sizeof e.where, "playground");
    e.wavefronts = 32;
    e.conflicts = 31;
    e.ways = 32;
    progress_record_explored(p, &e);
    progress_push_history(p, "s[lane*2]");
    progress_push_history(p, "s[lane*32]");
    p->task_score = 3;
    p->task_max = 5;
}

static void test_roundtrip(void **state)
{
    struct tmp *t = *state;
    struct progress *p = new_progress(), *q = new_progress();
    fill(p);
    struct bl_err err = {0};
    assert_int_equal(progress_save(t->path, p, &err), 0);
    /* parent directories are created private */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/state/banklab", t->dir);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(stat(t->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(count_prefix(t->path, "progress.json.tmp"), 0);

    struct bl_err warn = {0};
    assert_int_equal(progress_load(t->path, q, &warn), 0);
    assert_string_equal(warn.msg, "");
    assert_string_equal(q->lesson_id, "padding");
    assert_string_equal(q->step_id, "pad-one");
    assert_string_equal(q->lang, "zh");
    assert_int_equal(q->nquiz, 2);
    assert_int_equal(q->quiz[0].attempts, 2);
    assert_int_equal(q->quiz[0].correct, 1);
    assert_int_equal(q->quiz[0].first_correct, 0);
    assert_string_equal(q->quiz[1].step_id, "中文步骤");
    assert_string_equal(q->quiz[1].given, "二");
    assert_int_equal(q->nexplored, 2);
    assert_string_equal(q->explored[0].code, p->explored[0].code);
    assert_int_equal(q->explored[0].has_measured, 1);
    assert_true(q->explored[0].measured_conflicts == 0.25);
    assert_true(q->explored[0].ms > 0.0122 && q->explored[0].ms < 0.0124);
    assert_string_equal(q->explored[0].device, "NVIDIA H200 (sm_90)");
    assert_int_equal(q->explored[0].when, 1790000000LL);
    assert_int_equal(q->explored[1].has_measured, 0);
    assert_int_equal(q->explored[1].ways, 32);
    assert_int_equal(q->nhistory, 2);
    assert_string_equal(q->history[1], "s[lane*32]");
    assert_int_equal(q->task_score, 3);
    assert_int_equal(q->task_max, 5);

    /* saving again replaces the file in place */
    q->task_score = 4;
    assert_int_equal(progress_save(t->path, q, &err), 0);
    assert_int_equal(progress_load(t->path, p, &warn), 0);
    assert_int_equal(p->task_score, 4);
    assert_int_equal(count_prefix(t->path, "progress.json"), 1);
    free(p);
    free(q);
}

static void test_missing_is_fresh(void **state)
{
    struct tmp *t = *state;
    struct progress *p = new_progress();
    p->nquiz = 5;
    struct bl_err warn = {0};
    assert_int_equal(progress_load(t->path, p, &warn), 0);
    assert_int_equal(p->nquiz, 0);
    assert_string_equal(warn.msg, "");
    assert_int_equal(progress_load(NULL, p, NULL), 0);
    free(p);
}

/* Each content must be rejected: renamed aside, warning, empty state, no crash. */
static void expect_corrupt(struct tmp *t, const char *data, size_t len, const char *why)
{
    struct progress *p = new_progress();
    write_file(t->path, data, len);
    struct bl_err warn = {0};
    int rc = progress_load(t->path, p, &warn);
    if (rc != 1)
        fail_msg("expected corrupt for %s, got %d (%s)", why, rc, warn.msg);
    assert_int_equal(p->nquiz, 0);
    assert_int_equal(p->nexplored, 0);
    assert_string_equal(p->lesson_id, "");
    assert_non_null(strstr(warn.msg, ".corrupt-"));
    assert_null(strchr(warn.msg, '\n'));  /* one line */
    assert_int_equal(access(t->path, F_OK), -1);  /* moved away */
    assert_int_equal(count_prefix(t->path, "progress.json.corrupt-"), 1);
    remove_prefix(t->path, "progress.json.corrupt-");
    free(p);
}

static void test_corrupt_files(void **state)
{
    struct tmp *t = *state;
    struct progress *p = new_progress();
    fill(p);
    struct bl_err err = {0};
    assert_int_equal(progress_save(t->path, p, &err), 0);
    FILE *f = fopen(t->path, "rb");
    assert_non_null(f);
    char good[65536];
    size_t n = fread(good, 1, sizeof good, f);
    fclose(f);
    assert_true(n > 100);

    /* every truncation of a valid file */
    for (size_t cut = 0; cut < n; cut += (cut < 40 ? 1 : 37)) {
        if (cut == 0)
            continue;  /* empty: checked below */
        expect_corrupt(t, good, cut, "truncated");
    }
    expect_corrupt(t, "", 0, "empty");
    expect_corrupt(t, "\x00\x01\x02garbage\xff\xfe", 12, "binary garbage");
    expect_corrupt(t, "[1,2,3]", 7, "array");
    expect_corrupt(t, "\"text\"", 6, "string");
    expect_corrupt(t, "{} {}", 5, "trailing");
    expect_corrupt(t, "{\"format\": 99}", 14, "newer format");
    expect_corrupt(t, "{\"format\": \"1\"}", 15, "format string");
    const char *wrong[] = {
        "{\"lesson\": 5}",
        "{\"quiz\": {}}",
        "{\"quiz\": [1]}",
        "{\"quiz\": [{\"lesson\":\"a\",\"step\":\"b\",\"attempts\":\"many\"}]}",
        "{\"quiz\": [{\"lesson\":\"a\",\"step\":\"b\",\"correct\":\"yes\"}]}",
        "{\"explored\": [{\"code\": []}]}",
        "{\"explored\": [{\"code\": \"x\", \"measured\": 3}]}",
        "{\"explored\": [{\"code\": \"x\", \"measured\": {\"ms\": \"fast\"}}]}",
        "{\"history\": [\"a\", 2]}",
        "{\"history\": \"a\"}",
        "{\"task_score\": true}",
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++)
        expect_corrupt(t, wrong[i], strlen(wrong[i]), wrong[i]);
    /* deep nesting must not crash the parser */
    char deep[20000];
    memset(deep, '[', sizeof deep);
    expect_corrupt(t, deep, sizeof deep, "deep");
    free(p);
}

static void test_lenient_values(void **state)
{
    struct tmp *t = *state;
    struct progress *p = new_progress();
    /* out-of-range numbers are clamped, unknown keys and nulls ignored, long strings cut,
     * an unknown language is dropped, more entries than fit are dropped */
    char buf[200000];
    int n = snprintf(buf, sizeof buf,
                     "{\"format\":1,\"future\":{\"x\":1},\"lang\":\"fr\",\"lesson\":null,"
                     "\"task_score\":1e300,\"task_max\":-5,\"history\":[],"
                     "\"explored\":[{\"code\":\"s[lane]\",\"wavefronts\":-3,\"when\":-1}],"
                     "\"quiz\":[{\"lesson\":\"%0300d\",\"step\":\"s\",\"attempts\":2.9}",
                     7);
    for (int i = 0; i < PROGRESS_MAX_QUIZ + 20; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, ",{\"lesson\":\"l\",\"step\":\"%d\"}", i);
    n += snprintf(buf + n, sizeof buf - (size_t)n, "]}\n");
    write_file(t->path, buf, (size_t)n);
    struct bl_err warn = {0};
    assert_int_equal(progress_load(t->path, p, &warn), 0);
    assert_string_equal(warn.msg, "");
    assert_string_equal(p->lang, "");
    assert_int_equal(p->task_max, 0);
    assert_true(p->task_score > 1000000);
    assert_int_equal(p->nexplored, 1);
    assert_int_equal(p->explored[0].wavefronts, 0);
    assert_int_equal(p->explored[0].when, 0);
    assert_int_equal(p->nquiz, PROGRESS_MAX_QUIZ);
    assert_int_equal(strlen(p->quiz[0].lesson_id), PROGRESS_ID_MAX - 1);
    assert_int_equal(p->quiz[0].attempts, 2);
    free(p);
}

static void test_unreadable_and_directory(void **state)
{
    struct tmp *t = *state;
    struct progress *p = new_progress();
    /* a directory where the file should be: moved aside, fresh start */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/state", t->dir);
    mkdir(dir, 0700);
    snprintf(dir, sizeof dir, "%s/state/banklab", t->dir);
    mkdir(dir, 0700);
    assert_int_equal(mkdir(t->path, 0700), 0);
    struct bl_err warn = {0};
    assert_int_equal(progress_load(t->path, p, &warn), 1);
    assert_non_null(strstr(warn.msg, "corrupt"));
    /* saving where a parent is a regular file fails with a message */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/state/banklab/file", t->dir);
    write_file(bad, "x", 1);
    snprintf(bad, sizeof bad, "%s/state/banklab/file/sub/progress.json", t->dir);
    struct bl_err err = {0};
    assert_int_equal(progress_save(bad, p, &err), -1);
    assert_true(err.msg[0] != 0);
    assert_int_equal(progress_save("", p, &err), -1);
    free(p);
}

static void test_read_leaves_file(void **state)
{
    struct tmp *t = *state;
    struct progress *p = new_progress();
    struct bl_err err = {0};
    write_file(t->path, "{\"quiz\": [", 10);
    assert_int_equal(progress_read(t->path, p, &err), -1);
    assert_non_null(strstr(err.msg, "syntax"));
    assert_int_equal(access(t->path, F_OK), 0);  /* still there, nothing renamed */
    assert_int_equal(count_prefix(t->path, "progress.json.corrupt-"), 0);
    write_file(t->path, "{\"lesson\": \"mapping\"}", 21);
    assert_int_equal(progress_read(t->path, p, &err), 0);
    assert_string_equal(p->lesson_id, "mapping");
    unlink(t->path);
    assert_int_equal(progress_read(t->path, p, &err), 0);
    assert_string_equal(p->lesson_id, "");
    free(p);
}

/* Deterministic mutations of a valid file (byte changes, JSON punctuation, deletions): every
 * one loads or is refused, never crashes, and what loads is terminated and in range. */
static void test_mutations(void **state)
{
    struct tmp *t = *state;
    struct progress *p = new_progress();
    fill(p);
    struct bl_err err = {0};
    assert_int_equal(progress_save(t->path, p, &err), 0);
    FILE *f = fopen(t->path, "rb");
    assert_non_null(f);
    static char good[65536], buf[65536];
    size_t n = fread(good, 1, sizeof good, f);
    fclose(f);
    static const char punct[] = "{}[]\",:0-9eE.tfn\\ \n\x80\xff";
    uint32_t seed = 12345;
    int loaded = 0, refused = 0;
    for (int it = 0; it < 600; it++) {
        memcpy(buf, good, n);
        size_t len = n;
        int edits = 1 + it % 4;
        for (int e = 0; e < edits && len > 1; e++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            switch ((seed >> 16) % 3) {
            case 0: buf[pos] = (char)(seed >> 4); break;
            case 1: buf[pos] = punct[(seed >> 9) % (sizeof punct - 1)]; break;
            default: memmove(buf + pos, buf + pos + 1, len - pos - 1); len--; break;
            }
        }
        write_file(t->path, buf, len);
        int rc = progress_read(t->path, p, &err);
        assert_true(rc == 0 || rc == -1);
        if (rc == 0) {
            loaded++;
            assert_true(p->nquiz >= 0 && p->nquiz <= PROGRESS_MAX_QUIZ);
            assert_true(p->nexplored >= 0 && p->nexplored <= PROGRESS_MAX_EXPLORED);
            assert_true(p->nhistory >= 0 && p->nhistory <= 16);
            assert_true(strlen(p->lesson_id) < sizeof p->lesson_id);
            for (int i = 0; i < p->nquiz; i++)
                assert_true(strlen(p->quiz[i].given) < sizeof p->quiz[i].given &&
                            p->quiz[i].attempts >= 0);
            for (int i = 0; i < p->nexplored; i++)
                assert_true(strlen(p->explored[i].code) < sizeof p->explored[i].code);
        } else {
            refused++;
            assert_true(err.msg[0] != 0);
        }
    }
    assert_true(loaded > 0 && refused > 0);  /* both paths were taken */
    free(p);
}

static void test_oversized(void **state)
{
    struct tmp *t = *state;
    size_t n = (9u << 20);
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    expect_corrupt(t, big, n, "oversized");
    free(big);
}

/* ---- two writers: nothing one process saved is lost by another ---------------- */

/* A tutorial left open and a lab run: each loads, changes its own entries and saves; the one
 * that saves last must keep what the other saved (the lab's score, the quiz answered in
 * another tutorial). */
static void test_two_writers_keep_both(void **state)
{
    struct tmp *t = *state;
    struct progress *tut = new_progress(), *lab = new_progress(), *got = new_progress();
    struct bl_err err = {0}, warn = {0};
    assert_int_equal(progress_load(t->path, tut, &warn), 0);
    assert_int_equal(progress_load(t->path, lab, &warn), 0);

    progress_record_quiz(tut, "banks", "predict", 1, "32");
    assert_int_equal(progress_save(t->path, tut, &err), 0);

    /* the lab started before the tutorial saved and never saw its answer */
    progress_record_quiz(lab, "lab:lab-padding", "pad", 1, "PAD=1");
    usleep(3000);
    progress_set_tasks(lab, 5, 9);
    assert_int_equal(progress_save(t->path, lab, &err), 0);

    /* the tutorial quits: its stale copy must not reset the score or drop the task */
    progress_record_quiz(tut, "banks", "second", 0, "7");
    assert_int_equal(progress_save(t->path, tut, &err), 0);

    assert_int_equal(progress_read(t->path, got, &err), 0);
    assert_int_equal(got->nquiz, 3);
    assert_int_equal(got->task_score, 5);
    assert_int_equal(got->task_max, 9);
    int seen = 0;
    for (int i = 0; i < got->nquiz; i++)
        seen |= (!strcmp(got->quiz[i].step_id, "predict") ? 1 : 0) |
                (!strcmp(got->quiz[i].step_id, "pad") ? 2 : 0) |
                (!strcmp(got->quiz[i].step_id, "second") ? 4 : 0);
    assert_int_equal(seen, 7);
    /* the saver sees the merged state too */
    assert_int_equal(tut->task_score, 5);
    assert_int_equal(tut->nquiz, 3);
    free(tut);
    free(lab);
    free(got);
}

/* The same entry changed in two sessions: the newer answer wins, and a stale copy saved
 * later does not bring the older one back. The position, the language and the playground
 * history follow the same rule. */
static void test_newest_wins(void **state)
{
    struct tmp *t = *state;
    struct progress *a = new_progress(), *b = new_progress(), *got = new_progress();
    struct bl_err err = {0}, warn = {0};
    assert_int_equal(progress_load(t->path, a, &warn), 0);
    assert_int_equal(progress_load(t->path, b, &warn), 0);

    progress_record_quiz(a, "banks", "predict", 0, "4");
    progress_set_position(a, "banks", "intro");
    progress_push_history(a, "s[lane]");
    assert_int_equal(progress_save(t->path, a, &err), 0);
    usleep(3000);
    progress_record_quiz(b, "banks", "predict", 1, "32");
    progress_set_position(b, "padding", "pad-one");
    progress_set_lang(b, "zh");
    progress_push_history(b, "s[lane * 2]");
    assert_int_equal(progress_save(t->path, b, &err), 0);
    assert_int_equal(progress_save(t->path, a, &err), 0);  /* a is stale now */

    assert_int_equal(progress_read(t->path, got, &err), 0);
    assert_int_equal(got->nquiz, 1);
    assert_string_equal(got->quiz[0].given, "32");
    assert_int_equal(got->quiz[0].correct, 1);
    assert_string_equal(got->lesson_id, "padding");
    assert_string_equal(got->step_id, "pad-one");
    assert_string_equal(got->lang, "zh");
    assert_int_equal(got->nhistory, 2);
    assert_string_equal(got->history[0], "s[lane]");
    assert_string_equal(got->history[1], "s[lane * 2]");
    free(a);
    free(b);
    free(got);
}

/* --reset forgets what was saved before it, not what another session saves after it. */
static void test_reset_merge(void **state)
{
    struct tmp *t = *state;
    struct progress *old = new_progress(), *fresh = new_progress(), *other = new_progress();
    struct bl_err err = {0}, warn = {0};
    progress_record_quiz(old, "banks", "predict", 1, "32");
    progress_set_tasks(old, 3, 9);
    progress_set_position(old, "banks", "intro");
    assert_int_equal(progress_save(t->path, old, &err), 0);
    assert_int_equal(progress_load(t->path, other, &warn), 0);
    usleep(3000);
    progress_reset(fresh);              /* banklab --reset */
    usleep(3000);
    progress_record_quiz(other, "banks", "later", 1, "1");  /* after the reset */
    assert_int_equal(progress_save(t->path, other, &err), 0);
    assert_int_equal(progress_save(t->path, fresh, &err), 0);

    struct progress *got = new_progress();
    assert_int_equal(progress_read(t->path, got, &err), 0);
    assert_int_equal(got->nquiz, 1);
    assert_string_equal(got->quiz[0].step_id, "later");
    assert_int_equal(got->task_score, 0);
    assert_string_equal(got->lesson_id, "");
    free(old);
    free(fresh);
    free(other);
    free(got);
}

/* Many processes at once, each adding its own answers: the lock keeps every one. */
static void test_concurrent_processes(void **state)
{
    struct tmp *t = *state;
    enum { NPROC = 6, NSAVES = 8 };
    pid_t pids[NPROC];
    for (int k = 0; k < NPROC; k++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            struct progress *p = malloc(sizeof *p);
            struct bl_err err = {0}, warn = {0};
            char step[32];
            if (!p || progress_load(t->path, p, &warn) < 0)
                _exit(2);
            for (int i = 0; i < NSAVES; i++) {
                snprintf(step, sizeof step, "p%d-s%d", k, i);
                progress_record_quiz(p, "race", step, 1, "x");
                if (progress_save(t->path, p, &err) != 0)
                    _exit(3);
            }
            free(p);
            _exit(0);
        }
        pids[k] = pid;
    }
    for (int k = 0; k < NPROC; k++) {
        int st = 0;
        assert_int_equal(waitpid(pids[k], &st, 0), pids[k]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
    }
    struct progress *got = new_progress();
    struct bl_err err = {0};
    assert_int_equal(progress_read(t->path, got, &err), 0);
    assert_int_equal(got->nquiz, NPROC * NSAVES);
    assert_int_equal(count_prefix(t->path, "progress.json.tmp"), 0);
    free(got);
}

/* A lock that is never released: the save gives up with a message instead of hanging. */
static void test_lock_timeout(void **state)
{
    struct tmp *t = *state;
    struct progress *p = new_progress();
    struct bl_err err = {0};
    assert_int_equal(progress_save(t->path, p, &err), 0);
    char lock[600];
    snprintf(lock, sizeof lock, "%s", t->path);
    snprintf(strrchr(lock, '/'), sizeof lock - (size_t)(strrchr(lock, '/') - lock), "/progress.lock");
    int fd = open(lock, O_RDWR | O_CREAT, 0600);
    assert_true(fd >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {             /* another process holds it */
        flock(fd, LOCK_EX);
        alarm(10);              /* never outlives a failed test */
        pause();
        _exit(0);
    }
    usleep(100000);
    progress_record_quiz(p, "banks", "predict", 1, "32");
    assert_int_equal(progress_save(t->path, p, &err), -1);
    assert_non_null(strstr(err.msg, "locked"));
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(fd);
    assert_int_equal(progress_save(t->path, p, &err), 0);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_path),
        cmocka_unit_test(test_record_quiz),
        cmocka_unit_test(test_record_explored_ring),
        cmocka_unit_test(test_history),
        cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_is_fresh, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lenient_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unreadable_and_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_leaves_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oversized, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_writers_keep_both, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newest_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reset_merge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_processes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_timeout, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
