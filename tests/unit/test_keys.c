/* test_keys.c: the key table (src/keys/keys.c): what a key does on each screen (modes first),
 * the key bars derived from it (the words the screens showed before the table existed), the
 * keys a lesson may not take (every key bound where lesson keys act, '-' and '.' of number
 * input included), and the man page: every key of every binding is named in assets/banklab.1
 * (run from the repository root, as tests/run.sh does).
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
    /* typing a parameter's value: its digits, Tab and Esc win over the step's */
    assert_int_equal(keys_action(KS_TUTOR, '='), ACT_VALUE);
    assert_int_equal(keys_action(KS_TUTOR | KS_VALUE, '7'), ACT_DIGIT);
    assert_int_equal(keys_action(KS_TUTOR | KS_VALUE, K_TAB), ACT_FIELD);
    assert_int_equal(keys_action(KS_TUTOR | KS_VALUE, K_ENTER), ACT_ENTER);
    assert_int_equal(keys_action(KS_TUTOR | KS_VALUE, K_ESC), ACT_LEAVE);
    assert_int_equal(keys_action(KS_TUTOR, K_TAB), ACT_ACCESS);
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
    assert_int_equal(keys_action(KS_PLAY, 'w'), ACT_INSERT);      /* text, not the warp */
    assert_int_equal(keys_action(KS_PLAY, K_PGDN), ACT_WARP_NEXT);
    assert_int_equal(keys_action(KS_PLAY, K_PGUP), ACT_WARP_PREV);
    assert_int_equal(keys_action(KS_ERROR, 'g'), ACT_PLAYGROUND);
    assert_int_equal(keys_action(KS_ERROR, 'n'), ACT_NONE);
    /* the kernel view: z opens it from a step (and without lessons); its own r and n win
     * over the report and the next step, the global keys stay; in its file prompt printable
     * keys are text, q and r too */
    static const struct {
        unsigned screens;
        int key;
        enum key_action action;
    } kernel[] = {
        {KS_TUTOR, 'z', ACT_KERNEL}, {KS_ERROR, 'z', ACT_KERNEL}, {KS_KERNEL, 'r', ACT_RUN},
        {KS_KERNEL, 'w', ACT_WATCH}, {KS_KERNEL, 'o', ACT_OPEN}, {KS_KERNEL, 'n', ACT_NEXT},
        {KS_KERNEL, 'N', ACT_PREV}, {KS_KERNEL, 'j', ACT_DOWN}, {KS_KERNEL, K_ENTER, ACT_GO},
        {KS_KERNEL, K_ESC, ACT_BACK}, {KS_KERNEL, 'q', ACT_QUIT}, {KS_KERNEL, '?', ACT_HELP},
        {KS_KERNEL, 'z', ACT_NONE}, {KS_KPROMPT, 'q', ACT_INSERT}, {KS_KPROMPT, 'r', ACT_INSERT},
        {KS_KPROMPT, K_TAB, ACT_COMPLETE}, {KS_KPROMPT, K_ENTER, ACT_GO},
        {KS_KPROMPT, K_ESC, ACT_LEAVE}, {KS_KPROMPT, K_CTRL_U, ACT_CLEAR},
        {KS_KPROMPT, K_BACKSPACE, ACT_RUBOUT}, {KS_KPROMPT, K_DOWN, ACT_DOWN},
    };
    for (size_t i = 0; i < sizeof kernel / sizeof kernel[0]; i++)
        assert_int_equal(keys_action(kernel[i].screens, kernel[i].key), kernel[i].action);
}

/* display columns as the screen counts them: a CJK character (3 UTF-8 bytes) takes two */
static int width(const char *s)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x80)
            w++;
        else if (*p >= 0xe0)
            w += *p >= 0xe3 ? 2 : 1;   /* U+3000 and up: CJK; "·", "▲", "↑" are one column */
    }
    return w;
}

/* the key bar of screens at cols columns is exactly these items, two spaces between them */
static void bar_fits(unsigned screens, int zh, const char *const *lesson, int nlesson, int cols,
                     const char *const *items)
{
    char want[512] = "", buf[512];
    for (int i = 0; items[i]; i++) {
        if (i)
            strcat(want, "  ");
        strcat(want, items[i]);
    }
    keys_bar(screens, zh, lesson, nlesson, cols, width, buf, sizeof buf);
    assert_string_equal(buf, want);
    assert_true(width(buf) <= cols || !strcmp(buf, want));
}

static void bar_is(unsigned screens, int zh, const char *lesson, const char *const *items)
{
    bar_fits(screens, zh, &lesson, lesson ? 1 : 0, 1000, items);
}

/* a step where the sweep, inspect and a hint all act (the tutor adds these bits; tutor_draw.c) */
#define KS_STEP_ALL (KS_TUTOR | KS_CAN_NEXT | KS_CAN_BACK | KS_CAN_SWEEP | KS_CAN_INSPECT | KS_CAN_HINT)
#define KS_STEP_MID (KS_TUTOR | KS_CAN_NEXT | KS_CAN_BACK)   /* a step between two others */

static void test_bars(void **state)
{
    (void)state;
    /* every item where there is room */
    const char *const tutor[] = {"n next", "b back", "p/P PAD", "c contents", "g playground",
                                 "z kernel", "s sweep", "i inspect", "h hint", "l lang", "? help",
                                 "q quit", NULL};
    bar_is(KS_STEP_ALL, 0, "p/P PAD", tutor);
    /* a step where none of them acts offers none of them */
    const char *const bare[] = {"n next", "b back", "c contents", "g playground", "z kernel",
                                "l lang", "? help", "q quit", NULL};
    bar_is(KS_STEP_MID, 0, NULL, bare);
    /* the last step of the course offers no next, the first no back */
    const char *const last[] = {"b back", "c contents", "g playground", "z kernel", "l lang",
                                "? help", "q quit", NULL};
    bar_is(KS_TUTOR | KS_CAN_BACK, 0, NULL, last);
    const char *const first[] = {"n next", "c contents", "g playground", "z kernel", "l lang",
                                 "? help", "q quit", NULL};
    bar_is(KS_TUTOR | KS_CAN_NEXT, 0, NULL, first);
    /* after a quiz that names other values: Q, with the word of where it goes */
    const char *const qv[] = {"n next", "b back", "Q question's values", "c contents",
                              "g playground", "z kernel", "l lang", "? help", "q quit", NULL};
    bar_is(KS_STEP_MID | KS_QUIZ_VALS, 0, NULL, qv);
    const char *const own[] = {"n 下一步", "b 上一步", "Q 场景的取值", "c 目录", "g 练习场", "z 内核",
                               "l 语言", "? 帮助", "q 退出", NULL};
    bar_is(KS_STEP_MID | KS_OWN_VALS, 1, NULL, own);
    /* ... or to the values the learner had set before answering */
    const char *const yours[] = {"n next", "b back", "Q your values", "c contents",
                                 "g playground", "z kernel", "l lang", "? help", "q quit", NULL};
    bar_is(KS_STEP_MID | KS_YOUR_VALS, 0, NULL, yours);
    const char *const no_params[] = {"n next", "b back", "c contents", "g playground",
                                     "z kernel", "s sweep", "i inspect", "h hint", "l lang",
                                     "? help", "q quit", NULL};
    bar_is(KS_STEP_ALL, 0, NULL, no_params);
    bar_is(KS_STEP_ALL, 0, "", no_params);
    const char *const zh[] = {"n 下一步", "b 上一步", "c 目录", "g 练习场", "z 内核", "s 扫描",
                              "i 检查", "h 提示", "l 语言", "? 帮助", "q 退出", NULL};
    bar_is(KS_STEP_ALL, 1, NULL, zh);
    const char *const inspect[] = {"arrows move", "Enter next lane", "i/Esc leave", NULL};
    bar_is(KS_INSPECT, 0, NULL, inspect);
    const char *const toc[] = {"Up/Down PgUp/PgDn move", "Enter go", "Esc/c back", "? help",
                               "q quit", NULL};
    bar_is(KS_TOC, 0, NULL, toc);
    const char *const sweep[] = {"Left/Right change the value", "lesson keys too", "Esc/s back",
                                 "g playground", "? help", "q quit", NULL};
    bar_is(KS_SWEEP, 0, NULL, sweep);
    const char *const play[] = {"Up/Down history", "Enter save", "Tab access", "^U clear",
                                "^X svg", "F1 help", "Esc back", NULL};
    bar_is(KS_PLAY, 0, NULL, play);
    const char *const error[] = {"g playground", "? help", "q quit", NULL};
    bar_is(KS_ERROR, 0, NULL, error);
    const char *const kernel[] = {"Up/Down move", "Enter grid", "r run", "w watch", "o open",
                                  "Esc back", "? help", "q quit", NULL};
    bar_is(KS_KERNEL, 0, NULL, kernel);
    const char *const kernel_zh[] = {"Up/Down 移动", "Enter 网格", "r 运行", "w 监视", "o 打开",
                                     "Esc 返回", "? 帮助", "q 退出", NULL};
    bar_is(KS_KERNEL, 1, NULL, kernel_zh);
    const char *const prompt[] = {"^U clear", "F1 help", "Up/Down example", "Enter open",
                                  "Tab complete", "Esc cancel", NULL};
    bar_is(KS_KPROMPT, 0, NULL, prompt);
    /* a short buffer stays terminated */
    char small[10];
    keys_bar(KS_TUTOR, 0, NULL, 0, 1000, width, small, sizeof small);
    assert_true(strlen(small) < sizeof small);
}

/* at 80 columns (78 for the bar) help, quit, next and back stay, the lowest keep goes first
 * and every parameter's keys stay before contents and the rest */
static void test_bar_fit(void **state)
{
    (void)state;
    const char *const two[] = {"j/J ROW", "u/U COL"};
    const char *const tutor80[] = {"n next", "b back", "j/J ROW", "u/U COL", "c contents",
                                   "h hint", "l lang", "? help", "q quit", NULL};
    bar_fits(KS_STEP_ALL, 0, two, 2, 78, tutor80);
    const char *const scroll80[] = {"n next", "b back", "PgDn/PgUp scroll", "j/J ROW",
                                    "u/U COL", "h hint", "? help", "q quit", NULL};
    bar_fits(KS_STEP_ALL | KS_SCROLL, 0, two, 2, 78, scroll80);
    const char *const zh80[] = {"n 下一步", "b 上一步", "PgDn/PgUp 滚动", "j/J ROW", "u/U COL",
                                "h 提示", "? 帮助", "q 退出", NULL};
    bar_fits(KS_STEP_ALL | KS_SCROLL, 1, two, 2, 78, zh80);
    const char *const inspect80[] = {"arrows move", "i/Esc leave", "n next", "b back",
                                     "j/J ROW", "u/U COL", "? help", "q quit", NULL};
    bar_fits(KS_STEP_ALL | KS_INSPECT, 0, two, 2, 78, inspect80);
    /* no room at all: only the items that never go */
    const char *const always[] = {"n next", "b back", "? help", "q quit", NULL};
    bar_fits(KS_STEP_MID | KS_SCROLL, 0, two, 2, 0, always);
    const char *const play_always[] = {"F1 help", "Esc back", NULL};
    bar_fits(KS_PLAY, 0, NULL, 0, 0, play_always);
    /* every screen's bar keeps a way to help and a way out */
    int n;
    const struct key_row *r = keys_rows(&n);
    unsigned bars[] = {KS_TUTOR, KS_TOC, KS_SWEEP, KS_PLAY, KS_ERROR, KS_KERNEL, KS_KPROMPT};
    for (size_t b = 0; b < sizeof bars / sizeof bars[0]; b++) {
        int help = 0, out = 0;
        for (int i = 0; i < n; i++) {
            if (!(r[i].bar & bars[b]) || r[i].keep != KEYS_ALWAYS)
                continue;
            for (const struct key_bind *k = r[i].keys; k->key; k++) {
                enum key_action act = keys_action(bars[b], k->key);
                help |= act == ACT_HELP;
                out |= act == ACT_QUIT || act == ACT_BACK || act == ACT_LEAVE;
            }
        }
        assert_true(help && out);
    }
}

/* the rows a help box over screens lists (help text, acting there) are named want, in order */
static void help_rows_are(unsigned screens, const char *const *want)
{
    int n, k = 0;
    char buf[64];
    const struct key_row *r = keys_rows(&n);
    for (int i = 0; i < n; i++) {
        if (!r[i].help || !(r[i].screens & screens))
            continue;
        assert_non_null(want[k]);
        assert_string_equal(keys_label(&r[i], 0, buf, sizeof buf), want[k]);
        k++;
    }
    assert_null(want[k]);
}

static void test_names(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(keys_name(K_CTRL_U, 0, buf, sizeof buf), "Ctrl-U");
    assert_string_equal(keys_name(K_SPACE, 0, buf, sizeof buf), "Space");
    assert_string_equal(keys_name(K_SPACE, 1, buf, sizeof buf), "空格");
    assert_string_equal(keys_name('?', 0, buf, sizeof buf), "?");
    const char *want[] = {"n Space Right", "b Left", "Enter", "e", "1-9", "0-9 . -", "PgDn PgUp",
                          "lesson keys", "Q", "=", "t", "w W", "a Tab", "c", "g", "z", "s", "i", "h",
                          "l", "x", "r", "? F1", "q", NULL};
    /* the tutorial's help box: rows acting outside the playground */
    help_rows_are(KS_GLOBAL, want);
    /* the playground's help box: its own rows, keys that cannot be text but for the first */
    const char *play[] = {"printable keys", "Left Right Home End", "Backspace Delete", "Up Down",
                          "Enter", "Tab", "PgDn PgUp", "Ctrl-U", "Ctrl-X", "F1", "Esc", NULL};
    help_rows_are(KS_PLAY, play);
    /* the kernel view's help box: its own rows, then the global keys that work there */
    const char *kernel[] = {"Up Down k j", "n N", "Left Right", "Enter", "r", "w", "f", "o", "Esc",
                            "c", "g", "l", "? F1", "q", NULL};
    help_rows_are(KS_KERNEL, kernel);
    /* the hints of the parameter line come from the same table */
    assert_string_equal(keys_first(KS_TUTOR, ACT_WARP_NEXT, 0, buf, sizeof buf), "w");
    assert_string_equal(keys_first(KS_PLAY, ACT_WARP_NEXT, 0, buf, sizeof buf), "PgDn");
    assert_string_equal(keys_first(KS_PLAY, ACT_ACCESS, 0, buf, sizeof buf), "Tab");
    assert_string_equal(keys_first(KS_TUTOR, ACT_ACCESS, 0, buf, sizeof buf), "a");
    assert_string_equal(keys_first(KS_PLAY, ACT_TYPE, 0, buf, sizeof buf), "");
    /* the --help summary */
    char sum[1024];
    keys_summary(0, sum, sizeof sum);
    assert_true(!strncmp(sum, "n/Space/Right next, b/Left back, Enter answer or next, ", 55));
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
                              KS_TUTOR | KS_NUMBER, KS_TUTOR | KS_VALUE, KS_SWEEP};
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
                        "- . = ? Q W a b c e g h i l n q r s t w x z, digits, space");
}

/* --- the man page --------------------------------------------------------------------- */

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

/* the KEYS section of the man page: its plain text, and the words one-letter keys must be
 * among (tag lines .B/.BR/.I and bold \fB..\fR spans) */
static void read_keys_section(const char *path, char *text, char *tags, size_t cap)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    size_t t = 0, x = 0;
    int in = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, ".SH ", 4))
            in = !strncmp(line, ".SH KEYS", 8);
        if (!in || t + 2 * sizeof line >= cap || x + 2 * sizeof line >= cap)
            continue;
        plain(line, text + x, cap - x);
        x += strlen(text + x);
        if (!strncmp(line, ".B ", 3) || !strncmp(line, ".BR ", 4) || !strncmp(line, ".I ", 3)) {
            plain(strchr(line, ' '), tags + t, cap - t);
            t += strlen(tags + t);
        }
        for (char *b = strstr(line, "\\fB"); b; b = strstr(b + 3, "\\fB")) {
            char *e = strstr(b, "\\fR");
            if (!e || e - b - 3 >= 40)
                continue;
            char one[64];
            memcpy(one, b + 3, (size_t)(e - b - 3));
            one[e - b - 3] = 0;
            plain(one, tags + t, cap - t);
            t += strlen(tags + t);
            tags[t++] = '\n';
            tags[t] = 0;
        }
    }
    fclose(f);
    assert_true(x > 0);
}

/* the man page's name for key b of a row */
static void man_name(const struct key_bind *b, char *name, size_t size)
{
    if (b->last && b->key == ' ' && b->last == '~')
        snprintf(name, size, "printable keys");
    else if (b->last)
        snprintf(name, size, "%c-%c", b->key, b->last);
    else
        keys_name(b->key, 0, name, size);
}

static void test_manpage(void **state)
{
    (void)state;
    static char text[1 << 16], tags[1 << 16];
    read_keys_section("assets/banklab.1", text, tags, sizeof text);
    int n, missing = 0;
    const struct key_row *r = keys_rows(&n);
    for (int i = 0; i < n; i++) {
        char name[64];
        if (r[i].lesson && !strstr(text, keys_label(&r[i], 0, name, sizeof name))) {
            print_error("the man page does not describe the %s\n", name);
            missing++;
        }
        for (const struct key_bind *b = r[i].keys; b->key; b++) {
            man_name(b, name, sizeof name);
            /* one letter: tagged; a phrase: anywhere; a name: a word of the section */
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
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_actions),
        cmocka_unit_test(test_bars),
        cmocka_unit_test(test_bar_fit),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_reserved),
        cmocka_unit_test(test_manpage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
