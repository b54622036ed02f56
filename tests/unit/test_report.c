/* test_report.c: lab reports (src/store/report.c): the JSON fields (parsed back with cJSON),
 * the Markdown tables and escaping, file names, writing into exactly one directory (no temp
 * files left, only the chosen formats), errors, and the XDG data directory. The lesson set is
 * built in memory, so this does not depend on the lesson files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../../src/store/report.h"

#define T0 1790000000LL  /* 2026-09-21 14:13:20 UTC */

/* Two lessons: "mapping" (chapter 2) with two quiz steps, "lab" (chapter 10) with two tasks. */
struct fixture {
    struct lesson lessons[2];
    struct lesson_step steps[4];
    struct lesson_quiz quiz;
    struct lesson_text choices[2];
    struct lesson_task task[2];
    struct lesson_set set;
    struct progress p;
};

static struct fixture *make_fixture(void)
{
    struct fixture *x = calloc(1, sizeof *x);
    assert_non_null(x);
    x->lessons[0].id = "mapping";
    x->lessons[0].chapter = 2;
    x->lessons[0].title = (struct lesson_text){"地址到 bank 的映射", "From address to bank"};
    x->lessons[0].nsteps = 2;
    x->lessons[0].steps = &x->steps[0];
    x->steps[0].id = "bank-of";
    x->steps[0].title = (struct lesson_text){"哪个 bank", "Which bank"};
    x->steps[0].quiz = &x->quiz;
    x->quiz.kind = QUIZ_CHOICE;   /* answers name a choice by its number ... */
    x->quiz.nchoices = 2;
    x->quiz.choices = x->choices;
    x->choices[0] = (struct lesson_text){"一路", "one way"};
    x->choices[1] = (struct lesson_text){"三十二路", "32 ways"};
    x->steps[1].id = "rows";
    x->steps[1].title = (struct lesson_text){"行", "Rows"};
    x->steps[1].quiz = &x->quiz;
    x->lessons[1].id = "lab";
    x->lessons[1].chapter = 10;
    x->lessons[1].title = (struct lesson_text){"实验", "Lab"};
    x->lessons[1].nsteps = 2;
    x->lessons[1].steps = &x->steps[2];
    x->steps[2].id = "t1";
    x->steps[2].title = (struct lesson_text){"任务一", "Task one"};
    x->steps[2].task = &x->task[0];
    x->task[0].points = 2;
    x->steps[3].id = "t2";
    x->steps[3].title = (struct lesson_text){"任务二", "Task two"};
    x->steps[3].task = &x->task[1];
    x->task[1].points = 3;
    x->set.nlessons = 2;
    x->set.lessons = x->lessons;

    struct progress *p = &x->p;
    progress_init(p);
    snprintf(p->lesson_id, sizeof p->lesson_id, "mapping");
    snprintf(p->step_id, sizeof p->step_id, "rows");
    progress_record_quiz(p, "mapping", "bank-of", 0, "32");
    progress_record_quiz(p, "mapping", "bank-of", 1, "1");
    progress_record_quiz(p, "mapping", "rows", 1, "4");
    progress_record_quiz(p, "gone", "a|b", 1, "<x>");  /* not in the lessons any more */
    progress_record_quiz(p, "lab:lab", "t1", 0, "PAD=2");  /* graded tasks, as banklab lab saves */
    progress_record_quiz(p, "lab:lab", "t1", 1, "PAD=1");
    progress_record_quiz(p, "lab", "t2", 1, "S=1");       /* a task step known from the set */
    struct progress_explored e;
    memset(&e, 0, sizeof e);
    snprintf(e.code, sizeof e.code, "__shared__ float t[32][32]; t[lane][0]");
    snprintf(e.where, sizeof e.where, "common/column");
    e.wavefronts = 32;
    e.conflicts = 31;
    e.ways = 32;
    e.has_measured = 1;
    e.measured_wavefronts = 32;
    e.measured_conflicts = 31;
    e.ns_per_access = 16.27;
    e.slowdown = 31.9;
    snprintf(e.device, sizeof e.device, "NVIDIA H200 (sm_90)");
    e.when = T0;
    progress_record_explored(p, &e);
    memset(&e, 0, sizeof e);
    snprintf(e.code, sizeof e.code, "s[lane * 2] | `tick`");
    snprintf(e.where, sizeof e.where, "playground");
    e.wavefronts = 2;
    e.conflicts = 1;
    e.ways = 2;
    e.has_measured = 1;
    e.measured_wavefronts = 1;  /* disagrees with the model */
    e.measured_conflicts = 0;
    snprintf(e.device, sizeof e.device, "recorded on NVIDIA H200, 2026-11-01");
    e.when = T0 + 60;
    progress_record_explored(p, &e);
    memset(&e, 0, sizeof e);
    snprintf(e.code, sizeof e.code, "s[lane]");
    snprintf(e.where, sizeof e.where, "playground");
    e.wavefronts = 1;
    e.ways = 1;
    progress_record_explored(p, &e);
    p->task_score = 2;   /* the last banklab lab run: only used without the lessons */
    return x;
}

static char *capture(int json, const struct progress *p, const struct lesson_set *set,
                     enum lesson_lang lang, const struct report_meta *meta)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    int rc = json ? report_write_json(f, p, set, lang, meta) : report_write_md(f, p, set, lang, meta);
    assert_int_equal(rc, 0);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static const cJSON *at(const cJSON *o, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *tok = strtok(buf, "."); tok && o; tok = strtok(NULL, ".")) {
        if (tok[0] >= '0' && tok[0] <= '9')
            o = cJSON_GetArrayItem(o, atoi(tok));
        else
            o = cJSON_GetObjectItemCaseSensitive(o, tok);
    }
    if (!o)
        fail_msg("missing %s", path);
    return o;
}

static double num(const cJSON *o, const char *path)
{
    const cJSON *v = at(o, path);
    if (!cJSON_IsNumber(v))
        fail_msg("%s is not a number", path);
    return v->valuedouble;
}

static const char *str(const cJSON *o, const char *path)
{
    const cJSON *v = at(o, path);
    if (!cJSON_IsString(v))
        fail_msg("%s is not a string", path);
    return v->valuestring;
}

static void test_json_fields(void **state)
{
    (void)state;
    struct fixture *x = make_fixture();
    struct report_meta meta = {"NVIDIA H200 (sm_90)", "cuda", "Ada", T0 + 3600};
    char *text = capture(1, &x->p, &x->set, LANG_EN, &meta);
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    assert_int_equal(num(j, "format"), REPORT_FORMAT);
    assert_string_equal(str(j, "date"), "2026-09-21T15:13:20Z");
    assert_int_equal(num(j, "time"), T0 + 3600);
    assert_string_equal(str(j, "lang"), "en");
    assert_string_equal(str(j, "learner"), "Ada");
    assert_string_equal(str(j, "device.name"), "NVIDIA H200 (sm_90)");
    assert_string_equal(str(j, "device.backend"), "cuda");
    assert_true(cJSON_IsTrue(at(j, "device.measured")));
    assert_string_equal(str(j, "position.lesson"), "mapping");
    assert_string_equal(str(j, "position.step"), "rows");
    assert_int_equal(num(j, "quiz.answered"), 3);
    assert_int_equal(num(j, "quiz.first_try_correct"), 2);
    assert_int_equal(num(j, "quiz.correct_now"), 3);
    assert_int_equal(num(j, "quiz.total"), 2);  /* quiz steps in the lesson set */
    assert_int_equal(num(j, "quiz.answered_in_lessons"), 2);
    assert_int_equal(cJSON_GetArraySize(at(j, "quiz.items")), 3);
    assert_string_equal(str(j, "quiz.items.0.lesson_title"), "From address to bank");
    assert_string_equal(str(j, "quiz.items.0.step_title"), "Which bank");
    assert_int_equal(num(j, "quiz.items.0.chapter"), 2);
    assert_int_equal(num(j, "quiz.items.0.attempts"), 2);
    assert_true(cJSON_IsFalse(at(j, "quiz.items.0.first_correct")));
    assert_true(cJSON_IsTrue(at(j, "quiz.items.0.correct")));
    assert_string_equal(str(j, "quiz.items.0.given"), "1");
    /* ... the report states it as its value */
    assert_string_equal(str(j, "quiz.items.0.given_value"), "one way");
    assert_string_equal(str(j, "quiz.items.1.given_value"), "4");   /* not one of the choices */
    assert_true(cJSON_IsNull(at(j, "quiz.items.2.lesson_title")));
    assert_true(cJSON_IsNull(at(j, "quiz.items.2.chapter")));
    assert_string_equal(str(j, "quiz.items.2.given"), "<x>");
    /* both tasks solved (in the tutorial or a lab): their points, whatever the last lab run
     * saved as its score */
    assert_int_equal(num(j, "tasks.score"), 5);
    assert_int_equal(num(j, "tasks.max"), 5);
    assert_int_equal(num(j, "tasks.graded_steps"), 2);
    assert_int_equal(num(j, "tasks.tried"), 2);
    assert_int_equal(num(j, "tasks.solved"), 2);
    assert_int_equal(cJSON_GetArraySize(at(j, "tasks.items")), 2);
    assert_string_equal(str(j, "tasks.items.0.lesson"), "lab");
    assert_string_equal(str(j, "tasks.items.0.step_title"), "Task one");
    assert_int_equal(num(j, "tasks.items.0.points"), 2);
    assert_int_equal(num(j, "tasks.items.0.tries"), 2);
    assert_true(cJSON_IsFalse(at(j, "tasks.items.0.solved_first_try")));
    assert_true(cJSON_IsTrue(at(j, "tasks.items.0.solved")));
    assert_string_equal(str(j, "tasks.items.0.given"), "PAD=1");
    assert_string_equal(str(j, "tasks.items.1.step"), "t2");
    assert_int_equal(cJSON_GetArraySize(at(j, "explored")), 3);
    assert_string_equal(str(j, "explored.0.where"), "common/column");
    assert_string_equal(str(j, "explored.0.when"), "2026-09-21T14:13:20Z");
    assert_int_equal(num(j, "explored.0.predicted.wavefronts"), 32);
    assert_int_equal(num(j, "explored.0.predicted.conflicts"), 31);
    assert_int_equal(num(j, "explored.0.predicted.ways"), 32);
    assert_int_equal(num(j, "explored.0.measured.wavefronts"), 32);
    assert_true(cJSON_IsNull(at(j, "explored.0.measured.ms")));  /* a pattern: no kernel time */
    assert_true(num(j, "explored.0.measured.ns_per_access") == 16.27);
    assert_true(num(j, "explored.0.measured.slowdown") == 31.9);
    assert_string_equal(str(j, "explored.0.measured.device"), "NVIDIA H200 (sm_90)");
    assert_true(cJSON_IsTrue(at(j, "explored.0.agrees")));
    assert_true(cJSON_IsFalse(at(j, "explored.1.agrees")));
    assert_true(cJSON_IsNull(at(j, "explored.1.measured.ms")));
    assert_true(cJSON_IsNull(at(j, "explored.1.measured.slowdown")));
    assert_true(cJSON_IsNull(at(j, "explored.2.measured")));
    assert_true(cJSON_IsNull(at(j, "explored.2.agrees")));
    assert_true(cJSON_IsNull(at(j, "explored.2.when")));
    cJSON_Delete(j);
    free(text);

    /* Chinese titles; no set, no device, no learner */
    text = capture(1, &x->p, &x->set, LANG_ZH, NULL);
    j = cJSON_Parse(text);
    assert_non_null(j);
    assert_string_equal(str(j, "quiz.items.0.lesson_title"), "地址到 bank 的映射");
    assert_string_equal(str(j, "quiz.items.0.given_value"), "一路");
    assert_true(cJSON_IsNull(at(j, "learner")));
    assert_string_equal(str(j, "device.name"), "no GPU (model only)");
    assert_true(cJSON_IsFalse(at(j, "device.measured")));
    cJSON_Delete(j);
    free(text);
    text = capture(1, &x->p, NULL, LANG_EN, NULL);
    j = cJSON_Parse(text);
    assert_non_null(j);
    assert_int_equal(num(j, "quiz.total"), 0);
    assert_int_equal(num(j, "tasks.score"), 2);   /* no lessons: the last lab run's score */
    assert_int_equal(num(j, "tasks.max"), 0);
    assert_true(cJSON_IsNull(at(j, "quiz.items.0.lesson_title")));
    cJSON_Delete(j);
    free(text);
    free(x);
}

static void test_markdown(void **state)
{
    (void)state;
    struct fixture *x = make_fixture();
    struct report_meta meta = {"NVIDIA H200 (sm_90)", "cuda", "Ada | Lovelace", T0};
    char *md = capture(0, &x->p, &x->set, LANG_EN, &meta);
    assert_true(strncmp(md, "# banklab lab report\n", 21) == 0);
    assert_non_null(strstr(md, "- Learner: Ada \\| Lovelace\n"));
    assert_non_null(strstr(md, "- Device: NVIDIA H200 (sm_90) (cuda)\n"));
    assert_non_null(strstr(md, "Answered 2 of 2 quizzes (and 1 answer for steps not in these lessons)"));
    assert_non_null(strstr(md, "right at the first try: 2"));
    assert_non_null(strstr(md, "| 2 | From address to bank | Which bank | 2 | no | yes | one way (choice 1) |"));
    assert_non_null(strstr(md, "| | gone | a\\|b | 1 | yes | yes | &lt;x&gt; |"));
    assert_non_null(strstr(md, "Score: 5 of 5 points (2 graded tasks in the lessons)."));
    assert_non_null(strstr(md, "`` s[lane * 2] \\| `tick` ``"));
    assert_non_null(strstr(md, "| 32 | 31 | 32 | 32.00 | 31.00 | 16.27 | 31.9x | - | yes | NVIDIA H200 (sm_90) |"));
    assert_non_null(strstr(md, "| **no** |"));
    assert_non_null(strstr(md, "Tasks tried: 2; solved: 2 (at the first try: 1)."));
    assert_non_null(strstr(md, "| Lab | Task one | 2 | no | yes | PAD=1 |"));
    assert_null(strstr(md, "| 10 |"));  /* tasks are not in the quiz table */
    assert_non_null(strstr(md, "| - | - | - | - | - | - | not measured |"));
    free(md);
    struct progress *empty = malloc(sizeof *empty);
    assert_non_null(empty);
    progress_init(empty);
    md = capture(0, empty, NULL, LANG_EN, NULL);
    assert_non_null(strstr(md, "- Device: no GPU (model only)\n"));
    assert_non_null(strstr(md, "None yet."));
    assert_null(strstr(md, "Learner"));
    free(md);
    free(empty);
    free(x);
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void test_write_dir(void **state)
{
    (void)state;
    struct fixture *x = make_fixture();
    char dir[] = "/tmp/banklab-report-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct report_meta meta = {NULL, NULL, NULL, T0};
    char written[1024], path[512];
    struct bl_err err = {0};

    assert_int_equal(report_write_dir(dir, REPORT_BOTH, &x->p, &x->set, LANG_EN, &meta, written,
                                      sizeof written, &err), 0);
    assert_int_equal(count_entries(dir), 2);
    snprintf(path, sizeof path, "%s/banklab-report-2026-09-21.md\n%s/banklab-report-2026-09-21.json",
             dir, dir);
    assert_string_equal(written, path);
    snprintf(path, sizeof path, "%s/banklab-report-2026-09-21.json", dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 200);
    /* again, JSON only: replaces, adds nothing */
    assert_int_equal(report_write_dir(dir, REPORT_JSON, &x->p, &x->set, LANG_EN, &meta, written,
                                      sizeof written, &err), 0);
    assert_int_equal(count_entries(dir), 2);
    assert_string_equal(written, path);
    /* bad places */
    assert_int_equal(report_write_dir("/nonexistent-banklab", REPORT_BOTH, &x->p, NULL, LANG_EN,
                                      &meta, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent-banklab"));
    bl_err_clear(&err);
    assert_int_equal(report_write_dir(path, REPORT_BOTH, &x->p, NULL, LANG_EN, &meta, NULL, 0, &err), -1);
    assert_non_null(strstr(err.msg, "not a directory"));
    bl_err_clear(&err);
    assert_int_equal(report_write_dir(dir, 0, &x->p, NULL, LANG_EN, &meta, NULL, 0, &err), -1);
    if (geteuid() != 0) {  /* root ignores permissions */
        chmod(dir, 0500);
        assert_int_equal(report_write_dir(dir, REPORT_MD, &x->p, NULL, LANG_EN, &meta, NULL, 0,
                                          &err), -1);
        chmod(dir, 0700);
    }
    assert_int_equal(count_entries(dir), 2);  /* nothing half-written left */
    unlink(path);
    snprintf(path, sizeof path, "%s/banklab-report-2026-09-21.md", dir);
    unlink(path);
    assert_int_equal(rmdir(dir), 0);

    FILE *full = fopen("/dev/full", "w");
    if (full) {
        setvbuf(full, NULL, _IONBF, 0);
        assert_int_equal(report_write_md(full, &x->p, &x->set, LANG_EN, &meta), -1);
        assert_int_equal(report_write_json(full, &x->p, &x->set, LANG_EN, &meta), -1);
        fclose(full);
    }
    free(x);
}

int main(void)
{
    setenv("TZ", "UTC", 1);  /* file names use the local date */
    tzset();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_fields),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_write_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
