/* test_pick.c: which launches banklab run's injection libraries measure (kmeasure/pick.c, both
 * routes): the first launch of each kernel by default; --kernel REGEX on the demangled or the
 * mangled name; --launch-skip and --launch-count over the launches REGEX picks; one-launch
 * mode measures one and names the first launches of the other kernels for a replay; a bad
 * REGEX is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../src/kmeasure/pick.h"

static void env(const char *re, const char *skip, const char *count, const char *one)
{
    const char *names[] = {"BANKLAB_RUN_KERNEL", "BANKLAB_RUN_SKIP", "BANKLAB_RUN_COUNT", "BANKLAB_RUN_ONE"};
    const char *vals[] = {re, skip, count, one};
    for (int i = 0; i < 4; i++)
        if (vals[i])
            setenv(names[i], vals[i], 1);
        else
            unsetenv(names[i]);
}

/* the launches of seq (kernel symbols) that are measured, as a string of 0 and 1 */
static void run(struct kpick *p, const char *const *seq, int n, char *out, char *replays)
{
    for (int i = 0; i < n; i++) {
        long ord = 0, nth = 0;
        int replay = 0;
        out[i] = kpick_launch(p, seq[i], &ord, &nth, &replay) ? '1' : '0';
        replays[i] = replay ? 'r' : '.';
        assert_int_equal(ord, i + 1);
    }
    out[n] = replays[n] = 0;
}

static const char *const seq[] = {"_Z1av", "_Z1bv", "_Z1av", "_Z1bv", "_Z1av", "_Z1cv"};

static struct kpick *fresh(void)
{
    static struct kpick p;
    for (int i = 0; i < p.nseen; i++)
        free(p.seen[i]);
    if (p.have_re)
        regfree(&p.re);
    memset(&p, 0, sizeof p);
    return &p;
}

static void test_first_of_each(void **state)
{
    (void)state;
    char got[8], rep[8];
    const char *bad = NULL;
    struct kpick *p = fresh();
    env(NULL, NULL, NULL, NULL);
    assert_int_equal(kpick_init(p, 1, &bad), 0);
    run(p, seq, 6, got, rep);
    assert_string_equal(got, "110001");
    assert_string_equal(rep, "......");
}

static void test_regex_skip_count(void **state)
{
    (void)state;
    char got[8], rep[8];
    const char *bad = NULL;
    struct kpick *p = fresh();
    env("^a", "1", "1", NULL);                   /* the demangled name (the mangled is _Z1av) */
    assert_int_equal(kpick_init(p, 0, &bad), 0);
    run(p, seq, 6, got, rep);
    assert_string_equal(got, "001000");          /* a's second launch only */
    p = fresh();
    env("_Z1bv", NULL, "5", NULL);               /* the mangled name, every launch of b */
    assert_int_equal(kpick_init(p, 0, &bad), 0);
    run(p, seq, 6, got, rep);
    assert_string_equal(got, "010100");
    p = fresh();
    env("([", NULL, NULL, NULL);
    assert_int_equal(kpick_init(p, 0, &bad), -1);
    assert_string_equal(bad, "([");
}

static void test_one_launch(void **state)
{
    (void)state;
    char got[8], rep[8];
    const char *bad = NULL;
    struct kpick *p = fresh();
    env(NULL, NULL, NULL, "1");
    assert_int_equal(kpick_init(p, 1, &bad), 0);
    run(p, seq, 6, got, rep);
    assert_string_equal(got, "100000");
    assert_string_equal(rep, ".r...r");          /* b and c: to be measured in a replay */
    p = fresh();
    assert_int_equal(kpick_init(p, 0, &bad), 0);  /* a route without one-launch mode */
    run(p, seq, 6, got, rep);
    assert_string_equal(got, "110001");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_of_each),
        cmocka_unit_test(test_regex_skip_count),
        cmocka_unit_test(test_one_launch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
