/* test_opts.c: the option tables (src/cli/opts.c): --help's list made from a table (columns,
 * further lines, a letter column, the launch options' rows from the kernel room's table),
 * an unknown option and an abbreviation refused with the command's message, a missing value,
 * a field set from its offset, and a launch option read the same from the command line, the
 * file's `// banklab:` comment and the kernel view's words (gpu_kernel_words). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/cli/cli.h"
#include "../../src/kernel/kernel.h"

struct ctx {
    int quiet, calls;
    const char *rec;
    const char *key_name, *key_val;   /* the last option given to opt() */
    int key;
    struct gpu_kernel_request req;    /* the launch options applied in order */
    char err[256];
};

static int test_opt(void *p, int key, const char *name, const char *val)
{
    struct ctx *c = p;
    c->calls++;
    c->key = key;
    c->key_name = name;
    c->key_val = val;
    if (key == CLI_LAUNCH && val && gpu_kernel_option(&c->req, name, val, c->err, sizeof c->err) != 1)
        return EXIT_USAGE;
    return 0;
}

static int helped;
static void test_help(FILE *f)
{
    (void)f;
    helped++;
}

enum { K_LESSONS = CLI_KEY_FIRST };

static const struct cli_opt rows[] = {
    {"quiet", 'q', NULL, CLI_OH_CHECK_QUIET, CLI_SET, 0, offsetof(struct ctx, quiet), 0, 0},
    CLI_ROW("lessons", 0, "DIR", CLI_OH_CHECK_LESSONS, K_LESSONS),
    CLI_ROW_STR("recording", "FILE", CLI_OH_CHECK_RECORDING, struct ctx, rec,
                CLI_E_RECORDING_NEEDS_FILE),
    CLI_ROW_TEXT(CLI_HT_RUN_1),
    CLI_ROW_LAUNCH(GPU_KOPT_ALL, 1),
    CLI_ROW("hidden", 0, NULL, 0, K_LESSONS + 1),
    CLI_ROW_HELP(CLI_OH_CHECK_HELP),
    CLI_ROW_END};

static const struct cli_cmd cmd = {"t", rows, 0, CLI_UNKNOWN_OPTION_OF, NULL, test_help, test_opt,
                                   23, 1, 1};

/* cli_parse of the words (argv[0] "t"), stderr caught into err */
static int parse(struct ctx *c, char *err, size_t n, int argc, ...)
{
    char *argv[32] = {"t"};
    va_list ap;
    va_start(ap, argc);
    for (int i = 1; i <= argc; i++)
        argv[i] = va_arg(ap, char *);
    va_end(ap);
    memset(c, 0, sizeof *c);
    gpu_kernel_request_init(&c->req);
    fflush(stderr);
    int saved = dup(2);
    FILE *t = tmpfile();
    assert_non_null(t);
    dup2(fileno(t), 2);
    int rc = cli_parse(&cmd, argc + 1, argv, c, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(t);
    size_t got = fread(err, 1, n - 1, t);
    err[got] = 0;
    fclose(t);
    return rc;
}

static char *help_text(const struct cli_cmd *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    cli_opt_help(f, c);
    fclose(f);
    return buf;
}

static void test_help_generated(void **state)
{
    (void)state;
    cli_set_lang(BL_LANG_EN);
    char *h = help_text(&cmd);
    /* a letter, a long option indented past "-x, ", a description over several lines */
    assert_non_null(strstr(h, "  -q, --quiet          no summary line; only problems are printed\n"
                              "      --lessons DIR    the lessons directory to check when no FILE is given\n"
                              "      --recording FILE also compare every figure the lessons quote (a step's\n"
                              "                       \"figures\") with this recording, e.g. the shipped\n"));
    /* a text row as it is, then the launch options from gpu_kernel_opts */
    assert_non_null(strstr(h, "\nWhich launches (as in Nsight Compute):\n"
                              "  --name K             the kernel"));
    /* an option longer than the column: gap blanks (1 here) */
    assert_non_null(strstr(h, "  --fill float|int|zero buffer contents before the launch"));
    /* -D is listed with -I (help 0), so is a row without a description */
    assert_non_null(strstr(h, "  -I DIR, -D NAME[=V]  include directory"));
    assert_null(strstr(h, "  -D NAME"));
    assert_null(strstr(h, "hidden"));
    assert_non_null(strstr(h, "  -h, --help           this help\n"));
    free(h);
    /* the same rows in Chinese: the catalogue's other column, the same layout */
    cli_set_lang(BL_LANG_ZH);
    h = help_text(&cmd);
    assert_non_null(strstr(h, "  -q, --quiet          不输出汇总行，只输出问题\n"));
    free(h);
    cli_set_lang(BL_LANG_EN);
}

static void test_parse(void **state)
{
    (void)state;
    struct ctx c;
    char err[1024];
    cli_set_lang(BL_LANG_EN);
    /* a switch and a string go where their offsets say; opt() is not called for them */
    assert_int_equal(parse(&c, err, sizeof err, 3, "-q", "--recording", "r.json"), 0);
    assert_int_equal(c.quiet, 1);
    assert_string_equal(c.rec, "r.json");
    assert_int_equal(c.calls, 0);
    /* an argument that is not an option, after "--" too */
    assert_int_equal(parse(&c, err, sizeof err, 3, "--lessons=d", "--", "x"), 0);
    assert_int_equal(c.key, CLI_REST);
    assert_string_equal(c.key_val, "x");
    /* an unknown option, an abbreviation, an unknown letter: the command's message */
    assert_int_equal(parse(&c, err, sizeof err, 1, "--bogus"), EXIT_USAGE);
    assert_string_equal(err, "banklab t: unknown option '--bogus'\n");
    assert_int_equal(parse(&c, err, sizeof err, 1, "--quie"), EXIT_USAGE);
    assert_string_equal(err, "banklab t: unknown option '--quie'\n");
    assert_int_equal(parse(&c, err, sizeof err, 1, "-Z"), EXIT_USAGE);
    assert_string_equal(err, "banklab t: unknown option '-Z'\n");
    assert_int_equal(parse(&c, err, sizeof err, 1, "--quiet=1"), EXIT_USAGE);
    /* a missing value: opt() is told (val NULL); a CLI_STR row says its own message */
    assert_int_equal(parse(&c, err, sizeof err, 1, "--lessons"), 0);
    assert_int_equal(c.key, K_LESSONS);
    assert_string_equal(c.key_name, "--lessons");
    assert_null(c.key_val);
    assert_int_equal(parse(&c, err, sizeof err, 1, "--recording"), EXIT_USAGE);
    assert_string_equal(err, "banklab t: --recording needs a file\n");
    cli_set_lang(BL_LANG_ZH);
    assert_int_equal(parse(&c, err, sizeof err, 1, "--bogus"), EXIT_USAGE);
    assert_string_equal(err, "banklab t: 未知的选项“--bogus”\n");
    cli_set_lang(BL_LANG_EN);
    /* --help: the command's help, and -1 */
    helped = 0;
    assert_int_equal(parse(&c, err, sizeof err, 1, "-h"), -1);
    assert_int_equal(helped, 1);
}

/* a launch option, as given: the request it makes from the command line (through the table's
 * rows in a command's table), from a `// banklab:` comment and from the kernel view's words */
static void three_ways(const char *line, char *const *words, int n, struct gpu_kernel_request *cl,
                       struct gpu_kernel_request *file, struct gpu_kernel_request *view)
{
    struct ctx c;
    char err[1024], src[512], why[256];
    char *argv[16];
    for (int i = 0; i < n; i++)
        argv[i] = words[i];
    assert_true(n <= 8);
    int rc = parse(&c, err, sizeof err, n, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5],
                   argv[6], argv[7]);
    assert_int_equal(rc, 0);
    *cl = c.req;
    gpu_kernel_request_init(file);
    snprintf(src, sizeof src, "// banklab: %s\n__global__ void k() {}\n", line);
    assert_int_equal(gpu_kernel_file_options(file, src, strlen(src), why, sizeof why), 0);
    gpu_kernel_request_init(view);
    int at;
    assert_int_equal(gpu_kernel_words(view, n, words, GPU_KOPT_ALL, &at, why, sizeof why), 0);
}

static void test_launch_three_ways(void **state)
{
    (void)state;
    struct gpu_kernel_request a, b, v;
    char *w[] = {"--grid", "4x2", "--arg=n=5", "-I", "inc", "--block=32x8", "--fill", "int"};
    three_ways("--grid 4x2 --arg=n=5 -I inc --block=32x8 --fill int", w, 8, &a, &b, &v);
    assert_int_equal(a.grid[0], 4);
    assert_int_equal(a.grid[1], 2);
    assert_int_equal(a.block[0], 32);
    assert_int_equal(a.block[1], 8);
    assert_int_equal(a.nargs, 1);
    assert_string_equal(a.args[0].name, "n");
    assert_string_equal(a.args[0].value, "5");
    assert_int_equal(a.nflags, 1);
    assert_string_equal(a.flags[0], "-Iinc");
    assert_int_equal(a.fill, GPU_FILL_INT);
    assert_memory_equal(&a, &b, sizeof a);
    assert_memory_equal(&a, &v, sizeof a);

    /* a bad value: the same words from the command line's option and from the comment */
    struct ctx c;
    char err[1024], why[256];
    cli_set_lang(BL_LANG_EN);
    assert_int_equal(parse(&c, err, sizeof err, 2, "--block", "64x64"), EXIT_USAGE);
    const char *src = "// banklab: --block 64x64\n";
    struct gpu_kernel_request r;
    gpu_kernel_request_init(&r);
    assert_int_equal(gpu_kernel_file_options(&r, src, strlen(src), why, sizeof why), -1);
    assert_string_equal(why, "1:21: --block 64x64 is 4096 threads; a block has at most 1024");
    assert_string_equal(c.err, why + strlen("1:21: "));
    /* --device is the command line's, never the comment's; an unknown word names the table's
       options; a missing value */
    src = "// banklab: --device 1\n";
    assert_int_equal(gpu_kernel_file_options(&r, src, strlen(src), why, sizeof why), -1);
    assert_string_equal(why, "1:13: '--device' is not a launch option (--name, --grid, --block, "
                             "--smem, --arg, --buffer-size, --fill, --time-limit)");
    src = "// banklab: --grid\n";
    assert_int_equal(gpu_kernel_file_options(&r, src, strlen(src), why, sizeof why), -1);
    assert_string_equal(why, "1:13: --grid needs a value");
    char *w2[] = {"--grid"};
    int at = -1;
    assert_int_equal(gpu_kernel_words(&r, 1, w2, GPU_KOPT_ALL, &at, why, sizeof why),
                     GPU_KW_NO_VALUE);
    assert_int_equal(at, 0);
    char *w3[] = {"--grid", "2", "--json", "x"};
    assert_int_equal(gpu_kernel_words(&r, 4, w3, GPU_KOPT_ALL, &at, why, sizeof why),
                     GPU_KW_UNKNOWN);
    assert_int_equal(at, 2);
    /* every row of the table is found by its name, in its class only */
    for (const struct gpu_kernel_opt *o = gpu_kernel_opts; o->name; o++) {
        assert_ptr_equal(gpu_kernel_opt_find(o->name, o->cls), o);
        assert_null(gpu_kernel_opt_find(o->name, GPU_KOPT_ALL & ~o->cls));
        assert_non_null(o->apply);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_generated),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_launch_three_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
