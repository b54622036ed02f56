/* test_ui_strings.c: the screen's words (src/ui/strings.def) and the key table's (src/keys):
 * every string has both languages, the Chinese one is not the English one copied, both take
 * the same printf conversions in the same order (the screen formats either with the same
 * arguments), and the Chinese words follow docs/glossary.md: a pass is 批, never 趟, and 轮
 * stands for nothing but a wavefront (the screen says wavefront, so never 轮).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fmt_test.h"
#include "../../src/keys/keys.h"

static const struct {
    const char *name, *en, *zh;
} strings[] = {
#define S(name, en, zh) {#name, en, zh},
#include "../../src/ui/strings.def"
#undef S
};

#define NSTRINGS ((int)(sizeof strings / sizeof strings[0]))

static void test_both_languages(void **state)
{
    (void)state;
    assert_true(NSTRINGS > 50);
    for (int i = 0; i < NSTRINGS; i++) {
        char ce[128], cz[128];
        assert_true(strings[i].en[0] && strings[i].zh[0]);
        if (!strcmp(strings[i].en, strings[i].zh))
            fail_msg("%s: the Chinese text is the English one", strings[i].name);
        conversions(strings[i].en, ce, sizeof ce);
        conversions(strings[i].zh, cz, sizeof cz);
        if (strcmp(ce, cz))
            fail_msg("%s: English takes '%s', Chinese '%s'", strings[i].name, ce, cz);
    }
}

static void no_word(const char *where, const char *s, const char *word)
{
    if (s && strstr(s, word))
        fail_msg("%s: '%s' uses %s (docs/glossary.md)", where, s, word);
}

static void test_glossary(void **state)
{
    (void)state;
    for (int i = 0; i < NSTRINGS; i++) {
        no_word(strings[i].name, strings[i].zh, "趟");
        no_word(strings[i].name, strings[i].zh, "轮");
    }
    int n;
    const struct key_row *r = keys_rows(&n);
    for (int i = 0; i < n; i++) {
        no_word("keys.c", keys_word(r[i].help, 1), "趟");
        no_word("keys.c", keys_word(r[i].help, 1), "轮");
        no_word("keys.c", keys_word(r[i].bar_text, 1), "趟");
        no_word("keys.c", keys_word(r[i].bar_text, 1), "轮");
        if (r[i].bar_text && !*keys_word(r[i].bar_text, 1))
            fail_msg("keys.c: '%s' has no Chinese", keys_word(r[i].bar_text, 0));
        if (r[i].help && !*keys_word(r[i].help, 1))
            fail_msg("keys.c: '%s' has no Chinese", keys_word(r[i].help, 0));
    }
}

/* the helper itself: a wrong order is caught */
static void test_conversions(void **state)
{
    (void)state;
    char a[64], b[64];
    conversions("%s=%lld: %d wavefronts, %.1f%%", a, sizeof a);
    assert_string_equal(a, "s lld d f ");
    conversions("%d %s", b, sizeof b);
    assert_string_not_equal(b, "s d ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_both_languages),
        cmocka_unit_test(test_glossary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
