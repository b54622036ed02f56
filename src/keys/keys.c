/* keys.c: the one table of key bindings (keys.h) and what is derived from it: the action of a
 * key on a screen, key names, key bars, the reserved keys of lessons. Rows are in the order
 * of the help screen and the key bars; rows without help text (the contents, sweep and
 * inspect keys, described under the key that opens them) and the playground's and the kernel
 * view's (their own help boxes list them) may stand anywhere, so they stand first, before the
 * global keys their bars end with. No allocation. */
#include "keys.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../base/fmt.h"

#define K(k, act) {(k), 0, (act)}
#define RANGE(lo, hi, act) {(lo), (hi), (act)}
#define EN_ZH(en, zh) {(en), (zh)}

static const struct key_row rows[] = {
    /* the contents */
    {.keys = {K(K_UP, ACT_UP), K('k', ACT_UP), K(K_DOWN, ACT_DOWN), K('j', ACT_DOWN),
              K(K_PGUP, ACT_PGUP), K(K_PGDN, ACT_PGDN), K(K_HOME, ACT_HOME), K(K_END, ACT_END)},
     .screens = KS_TOC, .bar = KS_TOC, .bar_keys = "Up/Down PgUp/PgDn",
     .bar_text = EN_ZH("move", "移动"), .keep = 5},
    {.keys = {K(K_ENTER, ACT_GO), K(' ', ACT_GO)}, .screens = KS_TOC, .bar = KS_TOC,
     .bar_text = EN_ZH("go", "跳转"), .keep = 8},
    {.keys = {K(K_ESC, ACT_BACK), K('c', ACT_BACK)}, .screens = KS_TOC, .bar = KS_TOC,
     .bar_keys = "Esc/c", .bar_text = EN_ZH("back", "返回"), .keep = KEYS_ALWAYS},
    /* the sweep */
    {.keys = {K(K_LEFT, ACT_LEFT), K(K_RIGHT, ACT_RIGHT)}, .screens = KS_SWEEP, .bar = KS_SWEEP,
     .bar_keys = "Left/Right", .bar_text = EN_ZH("change the value", "改变取值"), .keep = 6},
    {.bar = KS_SWEEP, .bar_keys = "", .bar_text = EN_ZH("lesson keys too", "课程按键也可用"), .keep = 0},
    {.keys = {K(K_ESC, ACT_BACK), K('s', ACT_BACK)}, .screens = KS_SWEEP, .bar = KS_SWEEP,
     .bar_keys = "Esc/s", .bar_text = EN_ZH("back", "返回"), .keep = KEYS_ALWAYS},
    /* the notice of refused lessons (the error screen over the first step) */
    {.keys = {K(K_ENTER, ACT_BACK), K(K_ESC, ACT_BACK)}, .screens = KS_NOTICE, .bar = KS_NOTICE,
     .bar_keys = "Enter/Esc", .bar_text = EN_ZH("go on", "继续"), .keep = KEYS_ALWAYS},
    /* the playground: printable keys are text; its help box lists these rows */
    {.keys = {RANGE(' ', '~', ACT_INSERT)}, .screens = KS_PLAY | KS_KPROMPT,
     .help = EN_ZH("type the pattern (the grid follows each key)", "输入访问模式（每按一键网格都更新）")},
    {.keys = {K(K_LEFT, ACT_LEFT), K(K_RIGHT, ACT_RIGHT), K(K_HOME, ACT_HOME),
              K(K_CTRL_A, ACT_HOME), K(K_END, ACT_END), K(K_CTRL_E, ACT_END)},
     .screens = KS_PLAY | KS_KPROMPT,
     .help_keys = EN_ZH("Left Right Home End", "Left Right Home End"),
     .help = EN_ZH("move the cursor (Ctrl-A, Ctrl-E too)", "移动光标（也可用 Ctrl-A、Ctrl-E）")},
    {.keys = {K(K_BACKSPACE, ACT_RUBOUT), K(K_DELETE, ACT_DELETE)},
     .screens = KS_PLAY | KS_KPROMPT,
     .help = EN_ZH("delete before / at the cursor", "删除光标前 / 光标处的字符")},
    {.keys = {K(K_UP, ACT_UP), K(K_DOWN, ACT_DOWN)}, .screens = KS_PLAY, .bar = KS_PLAY,
     .bar_keys = "Up/Down", .bar_text = EN_ZH("history", "历史"),
     .help = EN_ZH("saved patterns", "保存过的访问模式"), .pair = 1, .keep = 3},
    {.keys = {K(K_ENTER, ACT_SAVE)}, .screens = KS_PLAY, .bar = KS_PLAY,
     .bar_text = EN_ZH("save", "保存"), .help = EN_ZH("save (history, report)", "保存（历史、报告）"),
     .keep = 5},
    {.keys = {K(K_TAB, ACT_ACCESS)}, .screens = KS_PLAY, .bar = KS_PLAY,
     .bar_text = EN_ZH("access", "访问"), .help = EN_ZH("next access", "下一次访问"), .pair = 1,
     .keep = 4},
    /* not on the bar (it is full at 80 columns): the parameter line names them by the warp */
    {.keys = {K(K_PGDN, ACT_WARP_NEXT), K(K_PGUP, ACT_WARP_PREV)}, .screens = KS_PLAY,
     .help = EN_ZH("next / previous warp", "下一个 / 上一个 warp")},
    {.keys = {K(K_CTRL_U, ACT_CLEAR)}, .screens = KS_PLAY | KS_KPROMPT,
     .bar = KS_PLAY | KS_KPROMPT, .bar_keys = "^U", .bar_text = EN_ZH("clear", "清空"),
     .help = EN_ZH("clear the line", "清空整行"), .pair = 1, .keep = 2},
    {.keys = {K(K_CTRL_X, ACT_SVG)}, .screens = KS_PLAY, .bar = KS_PLAY, .bar_keys = "^X",
     .bar_text = EN_ZH("svg", "SVG"), .help = EN_ZH("the grid as SVG", "网格导出为 SVG"), .keep = 1},
    {.keys = {K(K_F1, ACT_HELP)}, .screens = KS_PLAY | KS_KPROMPT, .bar = KS_PLAY | KS_KPROMPT,
     .bar_text = EN_ZH("help", "帮助"), .help = EN_ZH("this help", "本帮助"), .pair = 1,
     .keep = KEYS_ALWAYS},
    {.keys = {K(K_ESC, ACT_BACK)}, .screens = KS_PLAY, .bar = KS_PLAY,
     .bar_text = EN_ZH("back", "返回"), .help = EN_ZH("back to the tutorial", "返回教程"),
     .keep = KEYS_ALWAYS},
    /* the help box */
    {.keys = {K(K_DOWN, ACT_DOWN), K(K_UP, ACT_UP), K(K_PGDN, ACT_PGDN), K(K_PGUP, ACT_PGUP),
              K(' ', ACT_PGDN)},
     .screens = KS_HELP},
    /* the kernel view (z): a .cu file line by line; its help box lists these rows; its file
     * prompt edits like the playground */
    {.keys = {K(K_UP, ACT_UP), K(K_DOWN, ACT_DOWN), K('k', ACT_UP), K('j', ACT_DOWN),
              K(K_PGUP, ACT_PGUP), K(K_PGDN, ACT_PGDN), K(K_HOME, ACT_HOME), K(K_END, ACT_END)},
     .screens = KS_KERNEL, .bar = KS_KERNEL, .bar_keys = "Up/Down",
     .bar_text = EN_ZH("move", "移动"), .keep = 5,
     .help_keys = EN_ZH("Up Down k j", "Up Down k j"),
     .help = EN_ZH("move over the lines (PgUp PgDn Home End too)",
                   "在各行间移动（也可用 PgUp PgDn Home End）")},
    {.keys = {K('n', ACT_NEXT), K('N', ACT_PREV)}, .screens = KS_KERNEL,
     .help = EN_ZH("the next / previous line with figures or an error",
                   "下一个 / 上一个有数据或错误的行")},
    {.keys = {K(K_LEFT, ACT_LEFT), K(K_RIGHT, ACT_RIGHT)}, .screens = KS_KERNEL,
     .help = EN_ZH("scroll long lines sideways", "左右滚动长行")},
    {.keys = {K(K_ENTER, ACT_GO)}, .screens = KS_KERNEL, .bar = KS_KERNEL,
     .bar_text = EN_ZH("grid", "网格"), .keep = 6,
     .help = EN_ZH("the line's access in the playground: its bank grid",
                   "把这一行的访问放进练习场：看它的 bank 网格")},
    {.keys = {K('r', ACT_RUN)}, .screens = KS_KERNEL, .bar = KS_KERNEL,
     .bar_text = EN_ZH("run", "运行"), .help = EN_ZH("run it again", "重新运行"), .pair = 1,
     .keep = 7},
    {.keys = {K('w', ACT_WATCH)}, .screens = KS_KERNEL, .bar = KS_KERNEL,
     .bar_text = EN_ZH("watch", "监视"), .keep = 4,
     .help = EN_ZH("watch: run after each save", "监视：每次保存后运行")},
    {.keys = {K('f', ACT_FIX)}, .screens = KS_KERNEL,
     .help = EN_ZH("write FILE.fixed.cu with the model's fix and open it",
                   "写出带模型修改的 FILE.fixed.cu 并打开")},
    {.keys = {K('o', ACT_OPEN)}, .screens = KS_KERNEL, .bar = KS_KERNEL,
     .bar_text = EN_ZH("open", "打开"), .keep = 3,
     .help = EN_ZH("open another file (and launch options)", "打开另一个文件（可带启动参数）")},
    {.keys = {K(K_ESC, ACT_BACK)}, .screens = KS_KERNEL, .bar = KS_KERNEL,
     .bar_text = EN_ZH("back", "返回"), .help = EN_ZH("back to the tutorial", "返回教程"),
     .keep = KEYS_ALWAYS},
    {.keys = {K(K_UP, ACT_UP), K(K_DOWN, ACT_DOWN)}, .screens = KS_KPROMPT, .bar = KS_KPROMPT,
     .bar_keys = "Up/Down", .bar_text = EN_ZH("example", "示例"), .keep = 3},
    {.keys = {K(K_ENTER, ACT_GO)}, .screens = KS_KPROMPT, .bar = KS_KPROMPT,
     .bar_text = EN_ZH("open", "打开"), .keep = KEYS_ALWAYS},
    {.keys = {K(K_TAB, ACT_COMPLETE)}, .screens = KS_KPROMPT, .bar = KS_KPROMPT,
     .bar_text = EN_ZH("complete", "补全"), .keep = 5},
    {.keys = {K(K_ESC, ACT_LEAVE)}, .screens = KS_KPROMPT, .bar = KS_KPROMPT,
     .bar_text = EN_ZH("cancel", "取消"), .keep = KEYS_ALWAYS},
    /* the step's modes: inspect, quizzes */
    {.keys = {K(K_LEFT, ACT_LEFT), K(K_RIGHT, ACT_RIGHT), K(K_UP, ACT_UP), K(K_DOWN, ACT_DOWN),
              K(K_HOME, ACT_HOME), K(K_END, ACT_END)},
     .screens = KS_INSPECT, .bar = KS_INSPECT, .bar_keys = "",
     .bar_text = EN_ZH("arrows move", "方向键移动"), .keep = 6},
    {.keys = {K(K_ENTER, ACT_LANE)}, .screens = KS_INSPECT, .bar = KS_INSPECT,
     .bar_text = EN_ZH("next lane", "下一个 lane"), .keep = 5},
    {.keys = {K('i', ACT_LEAVE), K(K_ESC, ACT_LEAVE)}, .screens = KS_INSPECT, .bar = KS_INSPECT,
     .bar_keys = "i/Esc", .bar_text = EN_ZH("leave", "退出"), .keep = 8},
    {.keys = {K(K_BACKSPACE, ACT_RUBOUT)}, .screens = KS_NUMBER},
    /* typing a parameter's value (=) */
    {.keys = {RANGE('0', '9', ACT_DIGIT), K('-', ACT_DIGIT), K(K_BACKSPACE, ACT_RUBOUT)},
     .screens = KS_VALUE},
    {.keys = {K(K_ENTER, ACT_ENTER)}, .screens = KS_VALUE, .bar = KS_VALUE,
     .bar_text = EN_ZH("set", "设定"), .keep = 8},
    {.keys = {K(K_TAB, ACT_FIELD), K('=', ACT_FIELD)}, .screens = KS_VALUE, .bar = KS_VALUE,
     .bar_text = EN_ZH("next parameter", "下一个参数"), .keep = 7},
    {.keys = {K(K_ESC, ACT_LEAVE)}, .screens = KS_VALUE, .bar = KS_VALUE,
     .bar_text = EN_ZH("cancel", "取消"), .keep = 8},
    /* the step, and the keys that work everywhere but in the playground */
    {.keys = {K('n', ACT_NEXT), K(' ', ACT_NEXT), K(K_RIGHT, ACT_NEXT)}, .screens = KS_STEP,
     .bar = KS_TUTOR, .bar_text = EN_ZH("next", "下一步"),
     .help = EN_ZH("next step", "下一步"), .pair = 1, .keep = KEYS_ALWAYS},
    {.keys = {K('b', ACT_PREV), K(K_LEFT, ACT_PREV)}, .screens = KS_STEP, .bar = KS_TUTOR,
     .bar_text = EN_ZH("back", "上一步"), .help = EN_ZH("previous step", "上一步"),
     .keep = KEYS_ALWAYS},
    {.keys = {K(K_ENTER, ACT_ENTER)}, .screens = KS_STEP,
     .bar_text = EN_ZH("answer or next", "提交或下一步"),
     .help = EN_ZH("answer, else next step", "提交答案，否则下一步"), .pair = 1},
    {.keys = {K('e', ACT_REVEAL)}, .screens = KS_STEP, .bar_text = EN_ZH("reveal", "显示"),
     .help = EN_ZH("reveal: counts as wrong", "直接显示：算作答错")},
    {.keys = {RANGE('1', '9', ACT_CHOICE)}, .screens = KS_CHOICE,
     .bar_text = EN_ZH("answer", "作答"), .help = EN_ZH("answer a choice quiz", "回答选择题"), .pair = 1},
    {.keys = {RANGE('0', '9', ACT_DIGIT), K('.', ACT_DIGIT), K('-', ACT_DIGIT)},
     .screens = KS_NUMBER, .bar_text = EN_ZH("a number", "输入数字"),
     .help = EN_ZH("type a number, Enter", "输入数字，Enter 提交")},
    {.keys = {K(K_PGDN, ACT_PGDN), K(K_PGUP, ACT_PGUP)}, .screens = KS_STEP, .bar = KS_SCROLL,
     .bar_keys = "PgDn/PgUp", .bar_text = EN_ZH("scroll", "滚动"),
     .help = EN_ZH("scroll the step's text and quiz", "滚动本步的说明和测验"), .keep = 7},
    {.screens = KS_STEP | KS_SWEEP, .bar = KS_TUTOR, .lesson = 1,
     .help_keys = EN_ZH("lesson keys", "课程按键"),
     .help = EN_ZH("lower / raise a parameter by its step ([p/P]: P raises)",
                   "按步长减小 / 增大参数（[p/P]：P 增大）"), .keep = 7},
    {.keys = {K('=', ACT_VALUE)}, .screens = KS_STEP, .bar_text = EN_ZH("value", "输入数值"),
     .help = EN_ZH("type a parameter's value, Enter (Tab: the next parameter)",
                   "输入参数的值，按 Enter（Tab：下一个参数）")},
    {.keys = {K('t', ACT_TYPE)}, .screens = KS_STEP, .bar_text = EN_ZH("type", "类型"),
     .help = EN_ZH("cycle the element type", "切换元素类型"), .pair = 1},
    {.keys = {K('w', ACT_WARP_NEXT), K('W', ACT_WARP_PREV)}, .screens = KS_STEP,
     .bar_text = EN_ZH("warp", "warp"), .help = EN_ZH("next / previous warp", "下一个 / 上一个 warp")},
    {.keys = {K('a', ACT_ACCESS), K(K_TAB, ACT_ACCESS)}, .screens = KS_STEP,
     .bar_text = EN_ZH("access", "访问"), .help = EN_ZH("next access of the kernel (e.g. the store, then the load)",
                   "内核的下一次访问（例如先写入，再读出）")},
    {.keys = {K('c', ACT_CONTENTS)}, .screens = KS_GLOBAL | KS_KERNEL, .bar = KS_TUTOR,
     .bar_text = EN_ZH("contents", "目录"),
     .help = EN_ZH("contents: jump to any chapter or step", "目录：跳到任意章节或步骤"), .keep = 4},
    {.keys = {K('g', ACT_PLAYGROUND)}, .screens = KS_GLOBAL | KS_KERNEL,
     .bar = KS_TUTOR | KS_SWEEP | KS_ERROR, .bar_text = EN_ZH("playground", "练习场"),
     .help = EN_ZH("playground: type a declaration and an access (Esc back)",
                   "练习场：输入声明和访问（Esc 返回）"), .keep = 1},
    {.keys = {K('z', ACT_KERNEL)}, .screens = KS_STEP | KS_ERROR, .bar = KS_TUTOR,
     .bar_text = EN_ZH("kernel", "内核"),
     .help = EN_ZH("your .cu kernel, line by line", "你的 .cu 内核，逐行"), .keep = 0},
    {.keys = {K('s', ACT_SWEEP)}, .screens = KS_STEP, .bar = KS_TUTOR,
     .bar_text = EN_ZH("sweep", "扫描"),
     .help = EN_ZH("sweep: wavefronts against a parameter (Left/Right move)",
                   "扫描：wavefront 随参数的变化（Left/Right 移动）"), .keep = 2},
    {.keys = {K('i', ACT_INSPECT)}, .screens = KS_STEP, .bar = KS_TUTOR,
     .bar_text = EN_ZH("inspect", "检查"),
     .help = EN_ZH("inspect: arrows move, Enter next lane of a cell; i/Esc leaves",
                   "检查：方向键移动，Enter 看格子里的下一个 lane；i/Esc 退出"), .keep = 2},
    {.keys = {K('h', ACT_HINT)}, .screens = KS_STEP, .bar = KS_TUTOR,
     .bar_text = EN_ZH("hint", "提示"), .help = EN_ZH("next hint", "下一条提示"), .pair = 1,
     .keep = 6},
    {.keys = {K('l', ACT_LANG)}, .screens = KS_GLOBAL | KS_KERNEL, .bar = KS_TUTOR,
     .bar_text = EN_ZH("lang", "语言"), .help = EN_ZH("language zh / en", "语言 中文 / 英文"),
     .keep = 3},
    {.keys = {K('x', ACT_SVG)}, .screens = KS_STEP, .bar_text = EN_ZH("SVG", "SVG"),
     .help = EN_ZH("export the grid as SVG", "把网格导出为 SVG"), .pair = 1},
    {.keys = {K('r', ACT_REPORT)}, .screens = KS_GLOBAL, .bar_text = EN_ZH("report", "报告"),
     .help = EN_ZH("write a lab report", "生成实验报告")},
    {.keys = {K('?', ACT_HELP), K(K_F1, ACT_HELP)}, .screens = KS_GLOBAL | KS_KERNEL,
     .bar = KS_TUTOR | KS_TOC | KS_SWEEP | KS_ERROR | KS_KERNEL, .bar_text = EN_ZH("help", "帮助"),
     .help = EN_ZH("this help", "本帮助"), .pair = 1, .keep = KEYS_ALWAYS},
    {.keys = {K('q', ACT_QUIT)}, .screens = KS_GLOBAL | KS_KERNEL,
     .bar = KS_TUTOR | KS_TOC | KS_SWEEP | KS_ERROR | KS_KERNEL, .bar_text = EN_ZH("quit", "退出"),
     .help = EN_ZH("quit (progress is saved)", "退出（进度会保存）"), .keep = KEYS_ALWAYS},
};

#define NROWS ((int)(sizeof rows / sizeof rows[0]))

const struct key_row *keys_rows(int *n)
{
    *n = NROWS;
    return rows;
}

static int binds(const struct key_bind *b, int key)
{
    return b->last ? key >= b->key && key <= b->last : key == b->key;
}

enum key_action keys_action(unsigned screens, int key)
{
    if (key == K_NONE)
        return ACT_NONE;
    for (int pass = 0; pass < 2; pass++) {
        unsigned want = pass == 0 ? screens & KS_MODES : screens;
        for (int r = 0; r < NROWS && want; r++) {
            if (!(rows[r].screens & want))
                continue;
            for (const struct key_bind *b = rows[r].keys; b->key; b++)
                if (binds(b, key))
                    return b->action;
        }
    }
    return ACT_NONE;
}

static const struct {
    int key;
    const char *name;
} names[] = {
    {K_CTRL_A, "Ctrl-A"}, {K_CTRL_E, "Ctrl-E"}, {K_TAB, "Tab"}, {K_CTRL_U, "Ctrl-U"},
    {K_CTRL_X, "Ctrl-X"}, {K_ESC, "Esc"}, {K_SPACE, "Space"}, {K_ENTER, "Enter"},
    {K_BACKSPACE, "Backspace"}, {K_DELETE, "Delete"}, {K_LEFT, "Left"}, {K_RIGHT, "Right"},
    {K_UP, "Up"}, {K_DOWN, "Down"}, {K_HOME, "Home"}, {K_END, "End"}, {K_PGUP, "PgUp"},
    {K_PGDN, "PgDn"}, {K_F1, "F1"},
};

const char *keys_name(int key, int zh, char *buf, size_t size)
{
    if (!size)
        return buf;
    if (key == K_SPACE && zh) {
        snprintf(buf, size, "空格");
        return buf;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].key == key) {
            snprintf(buf, size, "%s", names[i].name);
            return buf;
        }
    if (key > ' ' && key <= '~')
        snprintf(buf, size, "%c", key);
    else
        snprintf(buf, size, "key %d", key);
    return buf;
}

/* append to buf (size bytes, *o used so far); the text is cut, never overrun */
static void add(char *buf, size_t size, size_t *o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t size, size_t *o, const char *fmt, ...)
{
    if (*o + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    *o += bl_vfmt(buf + *o, size - *o, fmt, ap);
    va_end(ap);
}

/* a row's keys named and joined by sep ("n Space Right", "n/Space/Right"), ranges as "1-9" */
static const char *join_keys(const struct key_row *r, int zh, const char *sep, char *buf,
                             size_t size)
{
    size_t o = 0;
    buf[0] = 0;
    for (const struct key_bind *b = r->keys; b->key; b++) {
        char one[40], lo[16], hi[16];
        if (b->key == ' ' && b->last == '~')
            snprintf(one, sizeof one, "%s", zh ? "可打印字符" : "printable keys");
        else if (b->last)
            snprintf(one, sizeof one, "%s-%s", keys_name(b->key, zh, lo, sizeof lo),
                     keys_name(b->last, zh, hi, sizeof hi));
        else
            keys_name(b->key, zh, one, sizeof one);
        add(buf, size, &o, "%s%s", o ? sep : "", one);
    }
    return buf;
}

const char *keys_label(const struct key_row *r, int zh, char *buf, size_t size)
{
    if (!size)
        return buf;
    if (r->help_keys[zh ? 1 : 0]) {
        snprintf(buf, size, "%s", r->help_keys[zh ? 1 : 0]);
        return buf;
    }
    return join_keys(r, zh, " ", buf, size);
}

size_t keys_summary(int zh, char *buf, size_t size)
{
    size_t o = 0;
    if (size)
        buf[0] = 0;
    for (const struct key_row *r = rows; r < rows + NROWS; r++) {
        char keys[64];
        if (r->help[0] && !r->lesson && r->bar_text[0] && (r->screens & KS_GLOBAL))
            add(buf, size, &o, "%s%s %s", o ? ", " : "", join_keys(r, zh, "/", keys, sizeof keys),
                r->bar_text[zh ? 1 : 0]);
    }
    return o;
}

#define BAR_ITEMS 48

struct bar_item {
    char text[80];
    int keep;
    int shown;
};

/* the items of a key bar, in table order; returns how many */
static int bar_items(unsigned screens, int zh, const char *const *lesson, int nlesson,
                     struct bar_item *it, int max)
{
    int k = 0;
    for (int i = 0; i < NROWS; i++) {
        const struct key_row *r = &rows[i];
        char name[16];
        if (!(r->bar & screens))
            continue;
        for (int j = 0; r->lesson && j < nlesson && k < max; j++)
            if (lesson[j] && *lesson[j]) {
                snprintf(it[k].text, sizeof it[k].text, "%s", lesson[j]);
                it[k++].keep = r->keep;
            }
        if (r->lesson || k >= max)
            continue;
        if (r->bar_keys && !*r->bar_keys)
            snprintf(it[k].text, sizeof it[k].text, "%s", r->bar_text[zh ? 1 : 0]);
        else
            snprintf(it[k].text, sizeof it[k].text, "%s %s",
                     r->bar_keys ? r->bar_keys : keys_name(r->keys[0].key, zh, name, sizeof name),
                     r->bar_text[zh ? 1 : 0]);
        it[k++].keep = r->keep;
    }
    return k;
}

size_t keys_bar(unsigned screens, int zh, const char *const *lesson, int nlesson, int cols,
                int (*width)(const char *), char *buf, size_t size)
{
    struct bar_item it[BAR_ITEMS];
    int n = bar_items(screens, zh, lesson, nlesson, it, BAR_ITEMS);
    int total = 0;
    for (int i = 0; i < n; i++) {
        it[i].shown = 1;
        total += width(it[i].text) + (i ? 2 : 0);
    }
    while (total > cols) {    /* drop the lowest keep, the rightmost among equals */
        int drop = -1;
        for (int i = 0; i < n; i++)
            if (it[i].shown && it[i].keep < KEYS_ALWAYS &&
                (drop < 0 || it[i].keep <= it[drop].keep))
                drop = i;
        if (drop < 0)
            break;
        it[drop].shown = 0;
        total -= width(it[drop].text) + 2;
    }
    size_t o = 0;
    if (!size)
        return 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++)
        if (it[i].shown)
            add(buf, size, &o, "%s%s", o ? "  " : "", it[i].text);
    return o;
}

const char *keys_first(unsigned screens, enum key_action act, int zh, char *buf, size_t size)
{
    if (!size)
        return buf;
    buf[0] = 0;
    for (int i = 0; i < NROWS; i++) {
        if (!(rows[i].screens & screens))
            continue;
        for (const struct key_bind *b = rows[i].keys; b->key; b++)
            if (b->action == act && !b->last)
                return keys_name(b->key, zh, buf, size);
    }
    return buf;
}

/* the screens where the lesson's parameter keys act */
static unsigned lesson_screens(void)
{
    unsigned s = 0;
    for (int i = 0; i < NROWS; i++)
        if (rows[i].lesson)
            s |= rows[i].screens;
    return s;
}

int keys_reserved(int ch)
{
    unsigned where = lesson_screens();
    for (int i = 0; i < NROWS; i++) {
        if (!(rows[i].screens & where))
            continue;
        for (const struct key_bind *b = rows[i].keys; b->key; b++)
            if (binds(b, ch))
                return 1;
    }
    return 0;
}

const char *keys_reserved_text(char *buf, size_t size)
{
    size_t o = 0;
    if (!size)
        return buf;
    buf[0] = 0;
    for (int ch = '!'; ch <= '~' && o + 4 < size; ch++) {
        if ((ch >= '0' && ch <= '9') || !keys_reserved(ch))
            continue;
        buf[o++] = (char)ch;
        buf[o++] = ' ';
        buf[o] = 0;
    }
    int digits = 1;
    for (int ch = '0'; ch <= '9'; ch++)
        digits &= keys_reserved(ch);
    if (o)
        o--;   /* the last space */
    snprintf(buf + o, size - o, "%s%s", digits ? ", digits" : "", keys_reserved(' ') ? ", space" : "");
    return buf;
}
