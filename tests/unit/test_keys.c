/* test_keys.c: the key table (src/keys/keys.c): what a key does on each screen (modes first),
 * the key bars derived from it (the words the screens showed before the table existed), the
 * keys a lesson may not take (every key bound where lesson keys act, '-' and '.' of number
 * input included), and the man page: every key of every binding is named in assets/banklab.1
 * (run from the repository root, as tests/run.sh does).
 * link: keys
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/keys/keys.h"

static void test_actions(void **state)
{
    (void)state;
    assert_int_equal(keys_action(KS_TUTOR, 'n'), ACT_NEXT);
    assert_int_equal(keys_action(KS_TUTOR, ' '), ACT_NEXT);
    assert_int_equal(keys_action(KS_TUTOR, K_RIGHT), ACT_NEXT);
    assert_int_equal(keys_action(KS_TUTOR, K_ENTER), ACT_ENTER);
    /* a mode's keys win over its screen's */
    assert_int_equal(keys_action(KS_TUTOR | KS_INSPECT, K_ENTER), ACT_LANE);
    assert_int_equal(keys_action(KS_TUTOR | KS_INSPECT, K_RIGHT), ACT_RIGHT);
    assert_int_equal(keys_action(KS_TUTOR | KS_INSPECT, 'i'), ACT_LEAVE);
    assert_int_equal(keys_action(KS_TUTOR, 'i'), ACT_INSPECT);
    assert_int_equal(keys_action(KS_TUTOR | KS_NUMBER, '-'), ACT_DIGIT);
    assert_int_equal(keys_action(KS_TUTOR | KS_NUMBER, K_BACKSPACE), ACT_RUBOUT);
    assert_int_equal(keys_action(KS_TUTOR, '-'), ACT_NONE);
    assert_int_equal(keys_action(KS_TUTOR | KS_CHOICE, '3'), ACT_CHOICE);
    assert_int_equal(keys_action(KS_TUTOR | KS_CHOICE, '0'), ACT_NONE);
    /* a lesson key is nobody's */
    assert_int_equal(keys_action(KS_TUTOR, 'p'), ACT_NONE);
    /* one key, one meaning per screen */
    assert_int_equal(keys_action(KS_TUTOR, 'c'), ACT_CONTENTS);
    assert_int_equal(keys_action(KS_TOC, 'c'), ACT_BACK);
    assert_int_equal(keys_action(KS_TOC, 'k'), ACT_UP);
    assert_int_equal(keys_action(KS_SWEEP, 's'), ACT_BACK);
    assert_int_equal(keys_action(KS_SWEEP, 'q'), ACT_QUIT);
    /* the playground: printable keys are text, q too */
    assert_int_equal(keys_action(KS_PLAY, 'q'), ACT_INSERT);
    assert_int_equal(keys_action(KS_PLAY, 's'), ACT_INSERT);
    assert_int_equal(keys_action(KS_PLAY, K_ESC), ACT_BACK);
    assert_int_equal(keys_action(KS_PLAY, K_CTRL_U), ACT_CLEAR);
    assert_int_equal(keys_action(KS_PLAY, K_F1), ACT_HELP);
    assert_int_equal(keys_action(KS_ERROR, 'g'), ACT_PLAYGROUND);
    assert_int_equal(keys_action(KS_ERROR, 'n'), ACT_NONE);
}

static void test_bars(void **state)
{
    (void)state;
    char buf[512];
    keys_bar(KS_TUTOR, 0, "p/P PAD", buf, sizeof buf);
    assert_string_equal(buf, "n next  b back  p/P PAD  c contents  g playground  s sweep  "
                             "i inspect  h hint  l lang  ? help  q quit  ");
    keys_bar(KS_TUTOR, 0, NULL, buf, sizeof buf);
    assert_string_equal(buf, "n next  b back  c contents  g playground  s sweep  i inspect  "
                             "h hint  l lang  ? help  q quit  ");
    keys_bar(KS_TUTOR, 1, NULL, buf, sizeof buf);
    assert_string_equal(buf, "n 下一步  b 上一步  c 目录  g 练习场  s 扫描  i 检查  h 提示  "
                             "l 语言  ? 帮助  q 退出  ");
    keys_bar(KS_INSPECT, 0, NULL, buf, sizeof buf);
    assert_string_equal(buf, "arrows move  Enter next lane  i/Esc leave  ");
    keys_bar(KS_TOC, 0, NULL, buf, sizeof buf);
    assert_string_equal(buf, "Up/Down PgUp/PgDn move  Enter go  Esc/c back  "
                             "(? = quiz not answered yet)  q quit  ");
    keys_bar(KS_SWEEP, 0, NULL, buf, sizeof buf);
    assert_string_equal(buf, "Left/Right change the value  lesson keys too  Esc/s back  "
                             "g playground  ? help  q quit  ");
    keys_bar(KS_PLAY, 0, NULL, buf, sizeof buf);
    assert_string_equal(buf, "Up/Down history  Enter save  Tab access  ^U clear  ^X svg  "
                             "F1 help  Esc back  ");
    keys_bar(KS_ERROR, 0, NULL, buf, sizeof buf);
    assert_string_equal(buf, "g playground  ? help  q quit  ");
    /* a short buffer stays terminated */
    char small[10];
    keys_bar(KS_TUTOR, 0, NULL, small, sizeof small);
    assert_true(strlen(small) < sizeof small);
}

static void test_names(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(keys_name(K_CTRL_U, 0, buf, sizeof buf), "Ctrl-U");
    assert_string_equal(keys_name(K_SPACE, 0, buf, sizeof buf), "Space");
    assert_string_equal(keys_name(K_SPACE, 1, buf, sizeof buf), "空格");
    assert_string_equal(keys_name('?', 0, buf, sizeof buf), "?");
    int n;
    const struct key_row *r = keys_rows(&n);
    const char *want[] = {"n Space Right", "b Left", "Enter", "e", "1-9", "0-9 . -", "PgDn PgUp",
                          "lesson keys", "t", "w W", "a Tab", "c", "g", "s", "i", "h", "l", "x",
                          "r", "?", "q"};
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!r[i].help[0])
            continue;
        assert_true(k < (int)(sizeof want / sizeof want[0]));
        assert_string_equal(keys_label(&r[i], 0, buf, sizeof buf), want[k]);
        k++;
    }
    assert_int_equal(k, (int)(sizeof want / sizeof want[0]));
    /* the --help summary */
    char sum[1024];
    keys_summary(0, sum, sizeof sum);
    assert_true(!strncmp(sum, "n/Space/Right next, b/Left back, Enter reveal or next, ", 55));
    assert_non_null(strstr(sum, ", 0-9/./- a number, "));
    assert_non_null(strstr(sum, ", w/W warp, a/Tab access, "));
    assert_true(strlen(sum) > 8 && !strcmp(sum + strlen(sum) - 8, ", q quit"));
}

static void test_reserved(void **state)
{
    (void)state;
    /* every printable key the step or the sweep binds is reserved, and nothing else */
    for (int ch = ' '; ch <= '~'; ch++) {
        int bound = 0;
        unsigned screens[] = {KS_TUTOR, KS_TUTOR | KS_INSPECT, KS_TUTOR | KS_CHOICE,
                              KS_TUTOR | KS_NUMBER, KS_SWEEP};
        for (size_t s = 0; s < sizeof screens / sizeof screens[0]; s++)
            if (keys_action(screens[s], ch) != ACT_NONE)
                bound = 1;
        assert_int_equal(keys_reserved(ch), bound);
    }
    /* number input takes '-' and '.', so a lesson may not (they were swallowed) */
    assert_true(keys_reserved('-'));
    assert_true(keys_reserved('.'));
    assert_true(keys_reserved('q'));
    assert_true(keys_reserved(' '));
    assert_false(keys_reserved('p'));
    assert_false(keys_reserved('P'));
    assert_false(keys_reserved('k'));   /* the contents' key, not the step's */
    char buf[128];
    assert_string_equal(keys_reserved_text(buf, sizeof buf),
                        "- . ? W a b c e g h i l n q r s t w x, digits, space");
}

/* --- the man page --------------------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

/* roff to plain words: "\-" is "-", font escapes go, quotes and commas separate words */
static void plain(const char *in, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = in; *p && o + 1 < size; p++) {
        if (p[0] == '\\' && p[1] == '-') {
            out[o++] = '-';
            p++;
        } else if (p[0] == '\\' && p[1] == 'f' && p[2]) {
            out[o++] = ' ';
            p += 2;
        } else if (*p == '"' || *p == ',' || *p == '/' || *p == '(' || *p == ')') {
            out[o++] = ' ';
        } else {
            out[o++] = *p;
        }
    }
    out[o] = 0;
}

static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int before = p == text || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t';
        char c = p[n];
        int after = c == 0 || c == ' ' || c == '\n' || c == '\t' || c == '.' || c == ';' ||
                    c == ':';
        if (before && after)
            return 1;
    }
    return 0;
}

static void test_manpage(void **state)
{
    (void)state;
    char *man = slurp("assets/banklab.1");
    assert_non_null(man);
    char *keys = strstr(man, "\n.SH KEYS");
    assert_non_null(keys);
    char *end = strstr(keys + 1, "\n.SH ");
    if (end)
        *end = 0;
    /* one-letter keys must be tagged: a .B/.BR/.I line, or bold in the text (\fBk\fR) */
    size_t cap = strlen(keys) * 2 + 1;
    char *tags = calloc(1, cap), *text = calloc(1, cap), *line = calloc(1, cap);
    assert_non_null(tags);
    assert_non_null(text);
    size_t t = 0;
    for (char *p = keys; *p;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        memcpy(line, p, len);
        line[len] = 0;
        if (!strncmp(line, ".B ", 3) || !strncmp(line, ".BR ", 4) || !strncmp(line, ".I ", 3)) {
            plain(strchr(line, ' '), tags + t, cap - t);
            t += strlen(tags + t);
            tags[t++] = '\n';
        }
        for (char *b = strstr(line, "\\fB"); b; b = strstr(b + 3, "\\fB")) {
            char *e = strstr(b, "\\fR");
            if (e && e - b - 3 < 40 && t + 64 < cap) {
                char one[64];
                memcpy(one, b + 3, (size_t)(e - b - 3));
                one[e - b - 3] = 0;
                plain(one, tags + t, cap - t);
                t += strlen(tags + t);
                tags[t++] = '\n';
            }
        }
        p += len + (nl ? 1 : 0);
    }
    tags[t] = 0;
    plain(keys, text, cap);
    int n, missing = 0;
    const struct key_row *r = keys_rows(&n);
    for (int i = 0; i < n; i++) {
        char name[64];
        if (r[i].lesson && !has_word(text, keys_label(&r[i], 0, name, sizeof name))) {
            /* "lesson keys" is two words: look for the phrase */
            if (!strstr(text, name)) {
                print_error("the man page does not describe the %s\n", name);
                missing++;
            }
        }
        for (const struct key_bind *b = r[i].keys; b->key; b++) {
            if (b->last && b->key == ' ' && b->last == '~')
                snprintf(name, sizeof name, "printable keys");
            else if (b->last)
                snprintf(name, sizeof name, "%c-%c", b->key, b->last);
            else
                keys_name(b->key, 0, name, sizeof name);
            int ok = strlen(name) == 1 ? has_word(tags, name)
                                       : strchr(name, ' ') ? strstr(text, name) != NULL
                                                           : has_word(text, name);
            if (!ok) {
                print_error("key %s (row %d) is not in the KEYS section of assets/banklab.1\n",
                            name, i);
                missing++;
            }
        }
    }
    assert_int_equal(missing, 0);
    free(line);
    free(tags);
    free(text);
    free(man);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_actions),
        cmocka_unit_test(test_bars),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_reserved),
        cmocka_unit_test(test_manpage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
