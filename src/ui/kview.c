/* kview.c: the kernel view (z, or `banklab FILE.cu`): a learner's own .cu file with the
 * shared-memory figures of every line, measured in another process through kernel/kernel.h and
 * polled on the idle tick, so the screen never waits. r runs again; w watches the file (its
 * mtime and size, read on the idle tick) and runs after each save; compile errors put the
 * cursor on their line; Enter opens the playground on the line's access (pattern_cuda.h) or
 * says why not; o asks for another file (kview_prompt.c). This file: the text shown and the
 * result measured on it, the runs, watching, the keys and the screen; drawing is in
 * kview_draw.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/fmt.h"
#include "../base/utf8.h"
#include "../store/files.h"
#include "../store/krecord.h"
#include "kgrid.h"
#include "../kmeasure/kmeasure.h"

/* ---------------------------------------------------------------- the shown text and result */

static void file_stat(const char *path, struct kv_stat *s)
{
    struct stat sb;
    memset(s, 0, sizeof *s);
    if (stat(path, &sb) != 0)
        return;
    s->ok = 1;
    s->size = (long long)sb.st_size;
    s->ino = (unsigned long long)sb.st_ino;
    s->mtime_ns = (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
}

static int stat_same(const struct kv_stat *x, const struct kv_stat *y)
{
    return x->ok == y->ok && x->mtime_ns == y->mtime_ns && x->size == y->size &&
           x->ino == y->ino;
}

static int count_lines(const char *text, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    return n + (len > 0 && text[len - 1] != '\n');
}

/* keep_pred: the same text comes again (its measurement): its prediction stays */
static void clear_shown_but(struct kview *k, int keep_pred)
{
    k->why[0] = 0;
    free(k->src);
    k->src = NULL;
    k->srclen = 0;
    gpu_kernel_result_done(&k->res);
    memset(&k->res, 0, sizeof k->res);
    k->has_res = 0;
    for (int i = 0; i < KV_FILES; i++) {
        free(k->other[i]);
        k->other[i] = NULL;
    }
    free(k->rows);
    k->rows = NULL;
    k->nrows = k->nsrc = 0;
    if (!keep_pred)
        kv_predict_free(k);
}

static void clear_shown(struct kview *k)
{
    clear_shown_but(k, 0);
}

static int diag_here(const struct kview *k, const struct gpu_kernel_diag *d)
{
    const char *base = strrchr(k->file.path, '/');
    return !strcmp(d->file, k->file.path) || (base && !strcmp(d->file, base + 1));
}

/* the rows: the file's lines, then lines measured in other files (headers) */
static void build_rows(struct kview *k)
{
    const struct gpu_kernel_result *r = &k->res;
    k->nsrc = count_lines(k->src, k->srclen);
    int extra = 0;
    for (int i = 0; k->has_res && i < r->nlines; i++)
        extra += r->lines[i].file != 0 || r->lines[i].line < 1 || r->lines[i].line > k->nsrc;
    k->rows = calloc((size_t)(k->nsrc + extra + 1), sizeof *k->rows);
    if (!k->rows) {
        k->nsrc = 0;
        bl_fail(&k->problem, -1, BL_NOWHERE, UI_OUT_OF_MEMORY);
        return;
    }
    k->nrows = k->nsrc;
    const char *p = k->src, *end = k->src + k->srclen;
    for (int i = 0; i < k->nsrc; i++) {     /* one pass over the text, not a search per line */
        struct kv_row *w = &k->rows[i];
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        w->line = i + 1;
        w->li = w->diag = -1;
        w->text = p;
        w->tlen = (int)(e - p) - (e > p && e[-1] == '\r');
        p = e < end ? e + 1 : end;
    }
    for (int i = 0; k->has_res && i < r->nlines; i++) {
        const struct gpu_kernel_line *l = &r->lines[i];
        if (l->file == 0 && l->line >= 1 && l->line <= k->nsrc) {
            k->rows[l->line - 1].li = i;
            continue;
        }
        struct kv_row *w = &k->rows[k->nrows++];
        w->file = l->file;
        w->line = l->line;
        w->li = i;
        w->diag = -1;
        w->text = "";
        if (l->file > 0 && l->file < KV_FILES && l->file < r->nfiles) {
            if (!k->other[l->file]) {
                char dir[UI_PATH_MAX], path[2 * UI_PATH_MAX];
                bl_fmt(dir, sizeof dir, "%s", k->file.path);
                char *slash = strrchr(dir, '/');
                if (slash)
                    *slash = 0;
                if (r->files[l->file][0] == '/' || !slash)
                    bl_fmt(path, sizeof path, "%s", r->files[l->file]);
                else
                    bl_fmt(path, sizeof path, "%s/%s", dir, r->files[l->file]);
                size_t n = 0;
                k->other[l->file] = files_read(path, GPU_KERNEL_MAX_SOURCE, &n, NULL);
            }
            if (k->other[l->file])
                ui_source_line(k->other[l->file], strlen(k->other[l->file]), l->line, &w->text,
                        &w->tlen);
        }
    }
    for (int i = 0; k->has_res && i < r->ndiags; i++) {   /* an error wins over a warning */
        const struct gpu_kernel_diag *d = &r->diags[i];
        if (!diag_here(k, d) || d->line < 1 || d->line > k->nsrc)
            continue;
        int *at = &k->rows[d->line - 1].diag;
        if (*at < 0 || (d->error && !r->diags[*at].error))
            *at = i;
    }
}

/* show text (owned from now on) with result res (NULL: none yet) */
static void adopt(struct kview *k, char *src, size_t len, const struct gpu_kernel_request *req,
                  struct gpu_kernel_result *res)
{
    int first = !k->has_res;
    int same = k->src && (k->has_pred || k->pjob) && len == k->srclen &&
               !memcmp(src, k->src, len) && !memcmp(req, &k->req, sizeof *req);
    clear_shown_but(k, same);
    k->src = src;
    k->srclen = len;
    k->req = *req;
    if (res) {
        k->res = *res;
        memset(res, 0, sizeof *res);
        k->has_res = 1;
        k->last_run = time(NULL);
    }
    build_rows(k);
    if (!same)
        kv_predict(k);                      /* the model's figures for the same text */
    k->cur = ui_min(k->cur, ui_max(0, k->nrows - 1));
    if (!k->has_res)
        return;
    /* a compile error: the cursor on its line; a first result: on the worst line */
    int to = -1;
    double worst = 0;
    for (int i = 0; i < k->nrows; i++) {
        const struct kv_row *w = &k->rows[i];
        if (k->res.err.status == GPU_KERNEL_ECOMPILE && w->diag >= 0 && k->res.diags[w->diag].error) {
            to = i;
            break;
        }
        if (first && w->li >= 0 && (to < 0 || k->res.lines[w->li].excess > worst)) {
            to = i;
            worst = k->res.lines[w->li].excess;
        }
    }
    if (to >= 0)
        k->cur = to;
}

/* ---------------------------------------------------------------- running */

/* the request for text src: its launch comment, then the options given */
static int build_request(struct app *a, struct kview *k, struct gpu_kernel_request *rq,
                         const char *src, size_t len)
{
    char err[GPU_KERNEL_TEXT], name[GPU_KERNEL_TEXT] = "";
    /* the launch the file's host code writes for its kernel (--name's, or the only one)
     * comes first; the // banklab: comment and the options given win */
    static char names[8][GPU_KERNEL_TEXT];
    int tmpl[8];
    for (int pass = 0; pass < 2; pass++) {
    gpu_kernel_request_init(rq);
    bl_fmt(rq->path, sizeof rq->path, "%s", k->file.path);
    rq->device = a->opt.device;
    if (pass == 1 && name[0])
        kp_file_launch(src, len, name, rq);
    if (gpu_kernel_file_options(rq, src, len, err, sizeof err)) {
        char text[UI_PATH_MAX + GPU_KERNEL_TEXT];
        bl_fmt(text, sizeof text, "%s:%s", k->file.path, err);
        k->problem_line = atoi(err);
        bl_fail(&k->problem, -1, BL_NOWHERE, BL_TEXT, text);
        return -1;
    }
    for (int i = 0; i < k->file.nopt; i++)
        if (gpu_kernel_option(rq, k->file.opt[i].opt, k->file.opt[i].val, err, sizeof err) != 1) {
            bl_fail(&k->problem, -1, BL_NOWHERE, BL_TEXT, err);
            return -1;
        }
    if (pass == 0 && rq->name[0])
        bl_fmt(name, sizeof name, "%s", rq->name);
    else if (pass == 0 && kp_kernels(src, len, names, tmpl, 8) == 1)
        bl_fmt(name, sizeof name, "%s", names[0]);
    }
    rq->server_idle = gpu_kernel_server_idle();
    if (!files_xdg_path("XDG_CACHE_HOME", ".cache", "banklab/kernels", rq->cache_dir,
                        sizeof rq->cache_dir))
        rq->cache_dir[0] = 0;
    return 0;
}

static char *copy_text(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = 0;
    }
    return c;
}

/* read the file and start measuring it; a problem shows in the view */
static void start_run(struct app *a, struct kview *k)
{
    if (k->job) {
        k->again = 1;
        app_msg(a, 0, "%s", ui_str(a, UIS_KV_AGAIN));
        return;
    }
    bl_err_clear(&k->problem);
    k->problem_line = 0;
    file_stat(k->file.path, &k->seen);
    k->moved = k->seen;
    struct bl_err why = {0};
    size_t len = 0;
    char *src = files_read(k->file.path, GPU_KERNEL_MAX_SOURCE, &len, &why);
    if (!src) {
        char text[UI_PATH_MAX + BL_ERR_TEXT];
        bl_fmt(text, sizeof text, "%s: %s", k->file.path, why.msg);
        bl_fail(&k->problem, -1, BL_NOWHERE, BL_TEXT, text);
        return;
    }
    if (build_request(a, k, &k->job_req, src, len)) {
        adopt(k, src, len, &k->job_req, NULL);   /* the text, with the cursor on the problem */
        if (k->problem_line >= 1 && k->problem_line <= k->nrows)
            k->cur = k->problem_line - 1;
        return;
    }
    struct bl_err e = {0};
    if (a->opt.kernel_measured) {           /* a recorded measurement, read again each time */
        struct gpu_kernel_result rec;
        if (krec_read(a->opt.kernel_measured, k->file.path, k->job_req.name, &rec, &e) == 0) {
            adopt(k, src, len, &k->job_req, &rec);
            return;
        }
        char text[UI_PATH_MAX + BL_ERR_TEXT];
        bl_fail(&k->problem, -1, BL_NOWHERE, BL_TEXT, ui_err(a, &e, text, sizeof text));
        adopt(k, src, len, &k->job_req, NULL);
        return;
    }
    k->job = gpu_kernel_start(&k->job_req, src, len, &e);
    if (!k->job) {
        k->problem = e;
        free(src);
        return;
    }
    k->job_src = src;
    k->job_len = len;
    k->job_t0 = bl_now_ms();
    k->phase = GPU_KPHASE_START;
    if (!k->src) {                          /* nothing shown yet: the text while it runs */
        char *shown = copy_text(src, len);
        if (shown)
            adopt(k, shown, len, &k->job_req, NULL);
    }
}

static void stop_run(struct kview *k)
{
    gpu_kernel_free(k->job);
    k->job = NULL;
    free(k->job_src);
    k->job_src = NULL;
    k->again = 0;
}

/* open a file with its launch options (the prompt's, or the command line's) */
static void open_file(struct app *a, struct kview *k, const struct kv_open *o)
{
    stop_run(k);
    clear_shown(k);
    k->file = *o;
    k->cur = k->top = k->hscroll = 0;
    k->pred_placed = 0;
    k->last_run = 0;
    k->watch = 1;
    start_run(a, k);
}

/* ---------------------------------------------------------------- keys */

static void move_cursor(const struct app *a, struct kview *k, int to)
{
    k->why[0] = 0;
    k->cur = ui_max(0, ui_min(to, k->nrows - 1));
    k->top = kv_first_shown(k, kv_table_rows(a, k));
}

/* n / N: the next row (dir 1) or the previous (-1) with figures (measured, or the model's
 * when nothing was measured: predicted, or named with its reason) or a compiler message */
static void next_marked(struct app *a, struct kview *k, int dir)
{
    int model = kv_model_shown(k);
    for (int i = k->cur + dir; i >= 0 && i < k->nrows; i += dir) {
        const struct kp_line *l = model ? kv_pred_line(k, &k->rows[i]) : NULL;
        if (k->rows[i].li >= 0 || k->rows[i].diag >= 0 || (l && l->state != KP_NONE)) {
            move_cursor(a, k, i);
            return;
        }
    }
    app_msg(a, 0, "%s", ui_str(a, UIS_KV_NO_MORE));
}

/* Enter: the line's warps (measured, or executed on the CPU) in the grid; without them its
 * access in the playground (kview_play.c), or why it cannot be shown */
static void open_grid(struct app *a, struct kview *k)
{
    const struct kv_row *w = kv_cur_row(k);
    if (!w)
        return;
    if (kgrid_open(a, k, w) != 1)           /* its measured or executed warps */
        return;
    if (kv_executing(k) && kv_pred_line(k, w) && kv_pred_line(k, w)->state == KP_OK) {
        app_msg(a, 0, "%s", ui_str(a, UIS_KV_EXECUTING));
        return;
    }
    kv_play_open(a, k, w, k->why, sizeof k->why);
}

static enum ui_result kv_key(struct app *a, void *st, const struct ui_key *key)
{
    struct kview *k = st;
    if (k->prompting) {
        int rc = kv_prompt_key(a, k, key);
        if (rc == 1)
            open_file(a, k, &k->ask);
        return rc < 0 ? UI_IGNORED : UI_HANDLED;
    }
    int page = ui_max(1, kv_table_rows(a, k) - 1);
    switch (key->action) {
    case ACT_UP: move_cursor(a, k, k->cur - 1); break;
    case ACT_DOWN: move_cursor(a, k, k->cur + 1); break;
    case ACT_PGUP: move_cursor(a, k, k->cur - page); break;
    case ACT_PGDN: move_cursor(a, k, k->cur + page); break;
    case ACT_HOME: move_cursor(a, k, 0); break;
    case ACT_END: move_cursor(a, k, k->nrows - 1); break;
    case ACT_NEXT: next_marked(a, k, 1); break;
    case ACT_PREV: next_marked(a, k, -1); break;
    case ACT_LEFT: k->hscroll = ui_max(0, k->hscroll - 8); break;
    case ACT_RIGHT: k->hscroll += 8; break;
    case ACT_GO: open_grid(a, k); break;
    case ACT_RUN:
        if (k->file.path[0])
            start_run(a, k);
        break;
    case ACT_WATCH:
        k->watch = !k->watch;
        app_msg(a, 0, "%s", ui_str(a, k->watch ? UIS_KV_WATCH_ON : UIS_KV_WATCH_OFF));
        break;
    case ACT_OPEN: kv_prompt_start(k); break;
    case ACT_FIX:
        if (kv_fix(a, k)) {     /* the fixed copy, on the same line */
            int at = k->cur;
            open_file(a, k, &k->ask);
            move_cursor(a, k, at);
        }
        break;
    default:
        return UI_IGNORED;       /* Esc (back), ?, q, l, c, g: the loop's */
    }
    return UI_HANDLED;
}

/* ---------------------------------------------------------------- the screen */

static int kv_idle(struct app *a, void *st)
{
    struct kview *k = st;
    int redraw = 0;
    if (kv_predict_poll(k)) {
        redraw = 1;
        kv_prog_note(a, k);
        /* nothing measured: the cursor opens on the line the model says is worst, once */
        if (!k->pred_placed && (!k->has_res || k->res.err.status != GPU_KERNEL_OK) &&
            !(k->has_res && k->res.err.status == GPU_KERNEL_ECOMPILE) && !k->problem_line) {
            int to = kv_pred_worst(k);
            if (to >= 0) {
                k->pred_placed = 1;
                move_cursor(a, k, to);
            }
        }
    }
    if (k->job) {
        struct gpu_kernel_result r;
        enum gpu_kernel_phase phase = k->phase;
        if (gpu_kernel_poll(k->job, &r, &phase)) {
            gpu_kernel_free(k->job);
            k->job = NULL;
            adopt(k, k->job_src, k->job_len, &k->job_req, &r);
            k->job_src = NULL;
            if (k->again) {
                k->again = 0;
                start_run(a, k);
            }
        } else {
            k->phase = phase;
        }
        redraw = 1;               /* the progress moves on every tick */
    }
    if (k->watch && k->shown_now && k->file.path[0] && !k->job && !k->prompting) {
        struct kv_stat now;
        file_stat(k->file.path, &now);
        if (!stat_same(&now, &k->seen)) {
            if (!stat_same(&now, &k->moved)) {
                k->moved = now;              /* changed: wait until the writing is over */
                k->moved_at = bl_now_ms();
            } else if (now.ok && bl_now_ms() - k->moved_at >= KV_SETTLE_MS) {
                start_run(a, k);
                redraw = 1;
            }
        }
    }
    return redraw;
}

static void kv_init(struct app *a, void *st)
{
    struct kview *k = st;
    k->watch = 1;
}

static void kv_done(struct app *a, void *st)
{
    struct kview *k = st;
    stop_run(k);
    clear_shown(k);
}

static int kv_enter(struct app *a, void *st)
{
    struct kview *k = st;
    k->shown_now = 1;
    if (a->opt.kernel_file && !k->cli_taken) {   /* banklab FILE.cu [LAUNCH OPTIONS] */
        k->cli_taken = 1;
        bl_fmt(k->ask.path, sizeof k->ask.path, "%s", a->opt.kernel_file);
        k->ask.nopt = ui_min(a->opt.kernel_nopts, KV_OPTS);
        for (int i = 0; i < k->ask.nopt; i++) {
            bl_fmt(k->ask.opt[i].opt, sizeof k->ask.opt[i].opt, "%s", a->opt.kernel_opt[i]);
            bl_fmt(k->ask.opt[i].val, sizeof k->ask.opt[i].val, "%s", a->opt.kernel_val[i]);
        }
        open_file(a, k, &k->ask);
    } else if (!k->file.path[0]) {
        kv_prompt_start(k);
    }
    return 0;
}

/* left: a running measurement still ends here, but a save is not run until the view is back */
static void kv_leave(struct app *a, void *st)
{
    struct kview *k = st;
    k->shown_now = 0;
}

static unsigned kv_keys(const struct app *a, const void *st)
{
    const struct kview *k = st;
    return k->prompting ? KS_KPROMPT : KS_KERNEL;
}

const struct ui_screen screen_kernel = {
    .name = "kernel", .state_size = sizeof(struct kview), .init = kv_init, .done = kv_done,
    .enter = kv_enter, .leave = kv_leave, .draw = kv_draw, .key = kv_key, .idle = kv_idle,
    .modes = kv_keys,
};
