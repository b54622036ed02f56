/* screens.c: the small screens around the tutorial: table of contents (c), help overlay (?),
 * sweep chart (s), the "no lessons" screen and the "terminal too small" screen.
 * Each is open/draw/key; drawing does not allocate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

static int min_i(int x, int y) { return x < y ? x : y; }
static int max_i(int x, int y) { return x > y ? x : y; }

/* --- table of contents ------------------------------------------------------------------ */

static int toc_count(const struct app *a)
{
    int n = 0;
    for (int i = 0; i < a->set.nlessons; i++)
        n += 1 + a->set.lessons[i].nsteps;
    return n;
}

/* entry k -> lesson, step (-1 for the chapter line) */
static void toc_entry(const struct app *a, int k, int *li, int *si)
{
    for (int i = 0; i < a->set.nlessons; i++) {
        int n = 1 + a->set.lessons[i].nsteps;
        if (k < n) {
            *li = i;
            *si = k - 1;
            return;
        }
        k -= n;
    }
    *li = *si = -1;
}

static int toc_index(const struct app *a, int li, int si)
{
    int k = 0;
    for (int i = 0; i < li; i++)
        k += 1 + a->set.lessons[i].nsteps;
    return k + 1 + si;
}

void toc_open(struct app *a)
{
    if (!a->have_lessons) {
        app_msg(a, 0, "no lessons loaded");
        return;
    }
    if (a->screen != SCR_TOC)
        a->back = a->screen == SCR_SWEEP ? SCR_TUTOR : a->screen;
    a->screen = SCR_TOC;
    a->toc_cursor = toc_index(a, a->li, a->si);
}

static const struct progress_quiz *quiz_of(const struct app *a, const char *lid, const char *sid)
{
    for (int i = 0; i < a->prog.nquiz; i++)
        if (!strcmp(a->prog.quiz[i].lesson_id, lid) && !strcmp(a->prog.quiz[i].step_id, sid))
            return &a->prog.quiz[i];
    return NULL;
}

void toc_draw(struct app *a)
{
    int W = a->W, H = a->H;
    app_title(a, ui_str(a, UIS_TOC_TITLE), "");
    int n = toc_count(a);
    int rows = H - 3;
    if (a->toc_cursor < a->toc_top)
        a->toc_top = a->toc_cursor;
    if (a->toc_cursor >= a->toc_top + rows)
        a->toc_top = a->toc_cursor - rows + 1;
    char buf[UI_MSG_MAX];
    for (int r = 0; r < rows && a->toc_top + r < n; r++) {
        int k = a->toc_top + r, li, si;
        toc_entry(a, k, &li, &si);
        const struct lesson *l = &a->set.lessons[li];
        attr_t at = A_NORMAL;
        if (si < 0) {
            snprintf(buf, sizeof buf, "%2d  %s", l->chapter, lesson_tr(&l->title, a->lang));
            at = theme_attr(a, UIC_HEADER) | A_BOLD;
        } else {
            const struct lesson_step *st = &l->steps[si];
            const struct progress_quiz *q = st->quiz ? quiz_of(a, l->id, st->id) : NULL;
            const char *mark = !st->quiz ? " " : !q ? "?" : q->correct ? a->g->right : a->g->wrong;
            snprintf(buf, sizeof buf, "%s %2d.%-2d %s %s", li == a->li && si == a->si ? ">" : " ",
                     l->chapter, si + 1, mark, lesson_tr(&st->title, a->lang));
        }
        if (k == a->toc_cursor) {
            text_fill(1 + r, 0, W, theme_attr(a, UIC_CURSOR));
            at = theme_attr(a, UIC_CURSOR);
        }
        text_puts(a, 1 + r, 1, W - 2, buf, at);
    }
    app_keybar(a, ui_str(a, UIS_TOC_KEYS));
}

int toc_key(struct app *a, int ch)
{
    int n = toc_count(a);
    switch (ch) {
    case KEY_UP: case 'k': a->toc_cursor--; break;
    case KEY_DOWN: case 'j': a->toc_cursor++; break;
    case KEY_PPAGE: a->toc_cursor -= a->H - 4; break;
    case KEY_NPAGE: a->toc_cursor += a->H - 4; break;
    case KEY_HOME: a->toc_cursor = 0; break;
    case KEY_END: a->toc_cursor = n - 1; break;
    case '\n': case '\r': case KEY_ENTER: case ' ': {
        int li, si;
        toc_entry(a, a->toc_cursor, &li, &si);
        a->screen = SCR_TUTOR;
        app_goto(a, li, si < 0 ? 0 : si);
        return 1;
    }
    case 27: case 'c':
        a->screen = a->back == SCR_PLAY ? SCR_PLAY : SCR_TUTOR;
        return 1;
    default:
        return 0;
    }
    if (a->toc_cursor < 0)
        a->toc_cursor = 0;
    if (a->toc_cursor >= n)
        a->toc_cursor = n - 1;
    return 1;
}

/* --- help ------------------------------------------------------------------------------- */

static const char *const help_lines[][2] = {
    {"n Space Right  next step            b Left      previous step",
     "n 空格 Right   下一步               b Left      上一步"},
    {"Enter          reveal a hidden grid (predict steps), else next step",
     "Enter          显示隐藏的网格（预测题），否则下一步"},
    {"e              reveal without answering (presenter: e or Enter)",
     "e              不作答直接显示（演示模式：e 或 Enter）"},
    {"1-9            answer a choice quiz   0-9 . -  type a number, Enter",
     "1-9            回答选择题            0-9 . -  输入数字，Enter 提交"},
    {"PgDn PgUp      scroll the step's text",
     "PgDn PgUp      滚动本步的说明文字"},
    {"lesson keys    change a parameter (shown as [p/P] in the parameter line)",
     "课程按键       改变参数（参数行里显示为 [p/P]）"},
    {"t              cycle the element type    w W  next / previous warp",
     "t              切换元素类型              w W  下一个 / 上一个 warp"},
    {"a Tab          next access of the kernel (e.g. the store, then the load)",
     "a Tab          内核的下一次访问（例如先写入，再读出）"},
    {"i              inspect: arrows move, Enter next lane of a cell; i/Esc leaves",
     "i              检查：方向键移动，Enter 看格子里的下一个 lane；i/Esc 退出"},
    {"c              contents: jump to any chapter or step",
     "c              目录：跳到任意章节或步骤"},
    {"g              playground: type a declaration and an access (Esc back)",
     "g              练习场：输入声明和访问（Esc 返回）"},
    {"s              sweep: wavefronts against a parameter (Left/Right move)",
     "s              扫描：wavefront 随参数的变化（Left/Right 移动）"},
    {"h              next hint             l  language zh / en",
     "h              下一条提示            l  语言 中文 / 英文"},
    {"x              export the grid as SVG   r  write a lab report",
     "x              把网格导出为 SVG        r  生成实验报告"},
    {"?              this help             q  quit (progress is saved)",
     "?              本帮助                q  退出（进度会保存）"},
    {"", ""},
    {"Grid: columns are banks 0-31, rows the distinct words a bank serves,",
     "网格：列是 bank 0-31，行是一个 bank 要提供的不同的字，"},
    {"cells the lowest lane asking for that word (A-V = lanes 10-31 when narrow).",
     "格子里是请求该字的最小 lane 号（窄屏时 A-V 表示 lane 10-31）。"},
    {"* broadcast (several lanes, one word: free)   ! conflict (bank serves more",
     "* 广播（多个 lane 读同一个字：免费）   ! 冲突（该 bank 在本趟要提供"},
    {"than one word)   # both   ^/\u25b2 worst bank of the pass   p1..p4 passes",
     "不止一个字）   # 两者   ^/\u25b2 本趟最忙的 bank   p1..p4 各趟"},
};

void help_draw(struct app *a)
{
    int n = (int)(sizeof help_lines / sizeof help_lines[0]);
    int w = min_i(a->W - 2, 78), h = min_i(a->H - 2, n + 3);
    int x = max_i(0, (a->W - w) / 2), y = max_i(0, (a->H - h) / 2);
    attr_t at = theme_attr(a, UIC_NORMAL);
    for (int r = 0; r < h; r++)
        text_fill(y + r, x, w, at);
    attrset(theme_attr(a, UIC_HEADER));
    for (int c = 1; c < w - 1; c++) {
        mvaddstr(y, x + c, a->g->hline);
        mvaddstr(y + h - 1, x + c, a->g->hline);
    }
    for (int r = 1; r < h - 1; r++) {
        mvaddstr(y + r, x, a->g->vline);
        mvaddstr(y + r, x + w - 1, a->g->vline);
    }
    mvaddstr(y, x, a->g->tl);
    mvaddstr(y, x + w - 1, a->g->tr);
    mvaddstr(y + h - 1, x, a->g->bl);
    mvaddstr(y + h - 1, x + w - 1, a->g->br);
    attrset(A_NORMAL);
    int zh = a->lang == LANG_ZH;
    text_puts(a, y, x + 2, w - 4, zh ? " banklab 按键（任意键关闭） " : " banklab keys (any key closes) ",
              theme_attr(a, UIC_KEY));
    for (int i = 0; i < n && i < h - 2; i++) {
        const char *s = help_lines[i][zh];
        if (!a->g->utf8 && strstr(s, "\u25b2"))
            s = "than one word)   # both   ^ worst bank of the pass   p1..p4 passes";
        text_puts(a, y + 1 + i, x + 2, w - 4, s, A_NORMAL);
    }
}

/* --- sweep ------------------------------------------------------------------------------ */

static int sweep_param(const struct app *a)
{
    const struct lesson_scene *ls = a->sc.ls;
    if (!ls || ls->nparams == 0)
        return -1;
    if (ls->sweep)
        for (int i = 0; i < ls->nparams; i++)
            if (!strcmp(ls->params[i].name, ls->sweep))
                return i;
    return 0;
}

void sweep_open(struct app *a)
{
    struct ui_sweep *sw = &a->sweep;
    int p = sweep_param(a);
    if (p < 0)
        return;
    const struct lesson_param *lp = &a->sc.ls->params[p];
    long long step = lp->step > 0 ? lp->step : 1;
    long long count = (lp->max - lp->min) / step + 1;
    while (count > UI_SWEEP_MAX) {
        step *= 2;
        count = (lp->max - lp->min) / step + 1;
    }
    memset(sw, 0, sizeof *sw);
    sw->param = p;
    struct bank_result res;
    for (long long v = lp->min; v <= lp->max && sw->n < UI_SWEEP_MAX; v += step) {
        sw->value[sw->n] = v;
        sw->wavefronts[sw->n] = scene_eval_values(a, &a->sc, p, v, &res, NULL) == 0
                                    ? res.wavefronts : -1;
        sw->measured[sw->n] = -1;
        sw->n++;
    }
    sw->req_base = a->next_id + 1;
    a->next_id += (uint64_t)sw->n;
    sw->next_submit = 0;
    a->back = SCR_TUTOR;
    a->screen = SCR_SWEEP;
    sweep_pump(a);
}

/* submit the measurements still missing, as far as the runner's queue takes them */
void sweep_pump(struct app *a)
{
    struct ui_sweep *sw = &a->sweep;
    if (!a->gpu || !a->info.available || a->screen != SCR_SWEEP)
        return;
    struct bank_result res;
    while (sw->next_submit < sw->n) {
        int i = sw->next_submit;
        struct gpu_request rq;
        memset(&rq, 0, sizeof rq);
        rq.id = sw->req_base + (uint64_t)i;
        rq.want_timing = 1;
        rq.want_counters = 1;
        const struct lesson_scene *ls = a->sc.ls;
        if (ls->kernel && *ls->kernel && strcmp(ls->kernel, "pattern")) {
            scene_case_request(&a->sc, sw->param, sw->value[i], &rq);
        } else {
            rq.kind = GPU_REQ_PATTERN;
            if (scene_eval_values(a, &a->sc, sw->param, sw->value[i], &res, &rq.access) != 0) {
                sw->next_submit++;
                continue;
            }
        }
        if (gpu_submit(a->gpu, &rq) != GPU_OK)
            break;
        a->inflight++;
        sw->next_submit++;
    }
}

void sweep_result(struct app *a, const struct gpu_result *r)
{
    struct ui_sweep *sw = &a->sweep;
    if (r->id < sw->req_base || r->id >= sw->req_base + (uint64_t)sw->n)
        return;
    int i = (int)(r->id - sw->req_base);
    if (r->status != GPU_OK)
        return;
    if (r->has_timing && r->clk_per_request > 0) {
        sw->measured[i] = r->clk_per_request;
        sw->measured_is_clk = 1;
    } else if (r->has_counters) {
        sw->measured[i] = r->wavefronts_ld > 0 ? r->wavefronts_ld : r->wavefronts_st;
    }
    a->dirty = 1;
}

static int sweep_cur(const struct app *a)
{
    const struct ui_sweep *sw = &a->sweep;
    long long v = a->sc.value[sw->param];
    int best = 0;
    for (int i = 0; i < sw->n; i++)
        if (llabs(sw->value[i] - v) < llabs(sw->value[best] - v))
            best = i;
    return best;
}

static void chart(struct app *a, int y, int x, int w, int h, const double *v, int n, int cur,
                  const char *label, enum ui_role role)
{
    double maxv = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > maxv)
            maxv = v[i];
    if (maxv <= 0)
        maxv = 1;
    char buf[64];
    int axis = 7;
    int colw = (w - axis) / (n > 0 ? n : 1);
    if (colw > 4)
        colw = 4;
    if (colw < 1)
        colw = 1;
    int shown = min_i(n, (w - axis) / colw);
    text_puts(a, y, x, w, label, theme_attr(a, UIC_HEADER));
    int ch = h - 3;  /* label row, axis row, value row */
    if (ch < 1)
        return;
    snprintf(buf, sizeof buf, "%6.4g", maxv);
    text_puts(a, y + 1, x, axis, buf, theme_attr(a, UIC_DIM));
    text_puts(a, y + ch, x, axis, "     0", theme_attr(a, UIC_DIM));
    for (int i = 0; i < shown; i++) {
        int cx = x + axis + i * colw;
        if (v[i] < 0) {
            text_puts(a, y + ch, cx, colw, "?", theme_attr(a, UIC_DIM));
            continue;
        }
        int bh = (int)(v[i] / maxv * ch + 0.5);
        if (v[i] > 0 && bh == 0)
            bh = 1;
        attrset(theme_attr(a, i == cur ? UIC_MARK : role));
        for (int r = 0; r < bh; r++)
            for (int c = 0; c < (colw > 1 ? colw - 1 : 1); c++)
                mvaddstr(y + ch - r, cx + c, a->g->bar);
        attrset(A_NORMAL);
        if (bh < ch) {   /* the value on top of its bar, where it fits */
            snprintf(buf, sizeof buf, "%.3g", v[i]);
            if (colw >= 2 && (int)strlen(buf) <= colw)
                text_puts(a, y + ch - bh, cx, colw, buf, theme_attr(a, UIC_DIM));
        }
    }
    /* value labels every few columns, the current one marked */
    int every = max_i(1, (6 + colw - 1) / colw);
    for (int i = 0; i < shown; i++) {
        int cx = x + axis + i * colw;
        if (i == cur)
            text_puts(a, y + ch + 1, cx, 1, a->g->mark, theme_attr(a, UIC_MARK));
        if (i % every == 0) {
            snprintf(buf, sizeof buf, "%lld", a->sweep.value[i]);
            text_puts(a, y + ch + 2, cx, x + w - cx, buf, theme_attr(a, UIC_DIM));
        }
    }
}

void sweep_draw(struct app *a)
{
    struct ui_sweep *sw = &a->sweep;
    const struct lesson_param *lp = &a->sc.ls->params[sw->param];
    char buf[UI_MSG_MAX];
    snprintf(buf, sizeof buf, " banklab: sweep %s over %lld..%lld", lp->name, lp->min, lp->max);
    app_title(a, buf, "");
    int W = a->W, H = a->H;
    int cur = sweep_cur(a);
    double model[UI_SWEEP_MAX];
    int any_measured = 0;
    for (int i = 0; i < sw->n; i++) {
        model[i] = sw->wavefronts[i];
        if (sw->measured[i] >= 0)
            any_measured = 1;
    }
    int y = 1;
    text_draw(a, y, 1, W - 2, 1, a->sc.shown, 0, theme_attr(a, UIC_CODE));
    y += 2;
    int avail = H - y - 3;
    int mh = any_measured ? avail / 2 : 0;
    snprintf(buf, sizeof buf, "model: wavefronts per warp instruction against %s", lp->name);
    chart(a, y, 1, W - 2, avail - mh, model, sw->n, cur, buf, UIC_BAR);
    y += avail - mh;
    if (any_measured) {
        snprintf(buf, sizeof buf, "%s: %s against %s", a->info.device,
                 sw->measured_is_clk ? "clk/request (measured)" : "wavefronts (counters)", lp->name);
        chart(a, y, 1, W - 2, mh, sw->measured, sw->n, cur, buf, UIC_MEASURED);
        y += mh;
    }
    int wf = sw->wavefronts[cur];
    if (wf >= 0)
        snprintf(buf, sizeof buf, "%s=%lld: %d wavefront%s (model)", lp->name, sw->value[cur], wf,
                 wf == 1 ? "" : "s");
    else
        snprintf(buf, sizeof buf, "%s=%lld: the model cannot evaluate this value", lp->name,
                 sw->value[cur]);
    if (sw->measured[cur] >= 0) {
        size_t o = strlen(buf);
        snprintf(buf + o, sizeof buf - o, "%s%.1f %s", a->g->sep, sw->measured[cur],
                 sw->measured_is_clk ? "clk/request measured" : "wavefronts counted");
    } else if (!a->gpu || !a->info.available) {
        size_t o = strlen(buf);
        snprintf(buf + o, sizeof buf - o, "%sno GPU: %s", a->g->sep, a->info.reason);
    }
    text_puts(a, H - 2, 1, W - 2, buf, A_BOLD);
    app_keybar(a, ui_str(a, UIS_SWEEP_KEYS));
}

int sweep_key(struct app *a, int ch)
{
    struct ui_sweep *sw = &a->sweep;
    if (ch == 27 || ch == 's') {
        a->screen = SCR_TUTOR;
        return 1;
    }
    if (ch == KEY_LEFT || ch == KEY_RIGHT) {
        int cur = sweep_cur(a) + (ch == KEY_LEFT ? -1 : 1);
        if (cur < 0 || cur >= sw->n)
            return 1;
        a->sc.value[sw->param] = sw->value[cur];
        scene_eval(a, &a->sc);
        scene_submit(a, &a->sc);
        return 1;
    }
    if (scene_param_key(a, &a->sc, ch))
        return 1;
    return 0;
}

/* --- errors and small terminals --------------------------------------------------------- */

void error_draw(struct app *a)
{
    app_title(a, " banklab", "");
    int y = 2;
    char buf[UI_MSG_MAX];
    if (a->lessons_dir[0])
        snprintf(buf, sizeof buf, "No lessons could be loaded from %s.", a->lessons_dir);
    else
        snprintf(buf, sizeof buf, "No lessons directory found (tried --lessons, $BANKLAB_LESSONS, "
                                  "%s/lessons and ./lessons).", BANKLAB_SHARE_DIR);
    y += text_draw(a, y, 2, a->W - 4, 3, buf, 0, theme_attr(a, UIC_ERROR));
    y++;
    if (a->load_errors[0])
        y += text_draw(a, y, 2, a->W - 4, a->H - y - 4, a->load_errors, 0, A_NORMAL);
    y++;
    text_draw(a, y, 2, a->W - 4, 3,
              "Run `banklab check` on the lesson files for every problem, or start with "
              "--lessons DIR. The playground (g) works without lessons.",
              0, A_NORMAL);
    app_keybar(a, "g playground  ? help  q quit");
}

void small_draw(struct app *a, int need_w, int need_h)
{
    char buf[128];
    erase();
    snprintf(buf, sizeof buf, "terminal too small: need %dx%d (now %dx%d)", need_w, need_h, a->W,
             a->H);
    int y = a->H / 2;
    int x = max_i(0, (a->W - (int)strlen(buf)) / 2);
    attrset(A_BOLD);
    mvaddnstr(y, x, buf, a->W);
    attrset(A_NORMAL);
    if (y + 1 < a->H)
        mvaddnstr(y + 1, max_i(0, (a->W - 21) / 2), "enlarge it, or q quits", a->W);
}
