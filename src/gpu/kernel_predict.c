/* kernel_predict.c: the model's figures for every line of a kernel (kernel_predict.h). A
 * line is translated by pattern_from_cuda with control on (the guard and the loops around
 * it), once per trip of those loops and, where the text uses blockIdx, once per block; each
 * access is evaluated for every warp of the block and run through bank_simulate. Warps with
 * no active lane do not execute the line and count nothing, as on the GPU. Pure C: the model
 * and src/base. */
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../model/bank.h"
#include "../model/pattern_cuda.h"
#include "kernel_impl.h"
#include "kernel_predict.h"

/* ---------------------------------------------------------------- reasons, in two languages */

/* what pattern_from_cuda says, as one short phrase: {part of its message, en, zh}; %s is
 * the first word of the message (the name it is about) */
static const char *const reasons[][3] = {
    {"is an atomic", "%s is an atomic: the model has loads and stores only",
     "%s 是原子操作：模型只有 load 和 store"},
    {"takes a shared address", "%s takes a shared address (cp.async, ldmatrix, asm): not an index",
     "%s 取的是共享内存地址（cp.async、ldmatrix、asm）：不是下标"},
    {"inline asm", "inline asm (ldmatrix, stmatrix, cp.async): an address, not an index",
     "内联汇编（ldmatrix、stmatrix、cp.async）：给的是地址，不是下标"},
    {"points to global memory", "an index read from memory (%s points to global memory)",
     "下标是从内存读出的（%s 指向全局内存）"},
    {"local array", "an index read from a local array (%s)", "下标是从局部数组读出的（%s）"},
    {"data-dependent loop", "a data-dependent loop (while): the model cannot count its trips",
     "依赖数据的循环（while）：模型数不出它的次数"},
    {"has no value (--arg", "the parameter %s has no value (--arg %s=VALUE)",
     "参数 %s 没有值（--arg %s=VALUE）"},
    {"not declared in this file", "%s: a name the file does not declare before the line (a "
     "template parameter?)", "%s：文件在这一行之前没有声明这个名字（模板参数？）"},
    {"changes at line", "%s changes between its declaration and the line",
     "%s 在声明和这一行之间被改变了"},
    {"macro with arguments", "%s is a macro with arguments", "%s 是带参数的宏"},
    {"calls", "the index calls a function", "下标调用了函数"},
    {"steps in a way", "a loop whose step the model does not follow",
     "模型跟不上这个循环的步进方式"},
    {"declares no variable", "a loop without its own variable", "循环没有声明自己的变量"},
    {"has no condition", "a loop without a condition", "循环没有条件"},
    {"inside a switch", "inside a switch: not followed", "在 switch 里：模型不跟踪"},
    {"extern __shared__", "%s is extern __shared__ and the launch has no --smem",
     "%s 是 extern __shared__，而启动没有 --smem"},
    {"is not an integer", "a parameter that is not an integer", "参数不是整数"},
    {"loaded from shared", "an index read from shared memory", "下标是从共享内存读出的"},
    {"cannot be used in an index", "an index read from memory (a value the model does not know)",
     "下标是从内存读出的（模型不知道的值）"},
    {"template", "a template type or parameter: the model needs concrete types",
     "模板类型或参数：模型需要具体的类型"},
};

static void set_reason(struct kp_line *l, const char *why);

/* h7reader: a reason of the source reader that the table above would blur (a template
 * parameter's --name, a struct with functions, a helper's argument), in both languages from
 * its msg.def row */
static void set_reason_err(struct kp_line *l, const struct bl_err *err)
{
    set_reason(l, err->msg);
    int id = err->why.id;
    if (id == CU_TEMPLATE_PARAMETER || id == CU_STRUCT_WITH_FUNCTIONS || id == CU_HELPER_ARGUMENT ||
        id == CU_NOT_CALLED) {
        bl_err_text(err, BL_LANG_EN, l->reason[KP_EN], KP_TEXT);
        bl_err_text(err, BL_LANG_ZH, l->reason[KP_ZH], KP_TEXT);
    }
}

static void set_reason(struct kp_line *l, const char *why)
{
    char name[64];
    size_t n = strcspn(why, " :=");
    bl_fmt(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), why);
    l->state = KP_CANNOT;
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (strstr(why, reasons[i][0])) {
            for (int g = 0; g < 2; g++) {
                const char *f = reasons[i][1 + g], *p = strstr(f, "%s");
                if (!p) {
                    bl_fmt(l->reason[g], KP_TEXT, "%s", f);
                } else {
                    const char *q = strstr(p + 2, "%s");
                    if (q)
                        bl_fmt(l->reason[g], KP_TEXT, "%.*s%s%.*s%s%s", (int)(p - f), f, name,
                               (int)(q - p - 2), p + 2, name, q + 2);
                    else
                        bl_fmt(l->reason[g], KP_TEXT, "%.*s%s%s", (int)(p - f), f, name, p + 2);
                }
            }
            return;
        }
    bl_fmt(l->reason[KP_EN], KP_TEXT, "%s", why);
    bl_fmt(l->reason[KP_ZH], KP_TEXT, "模型无法表达这一行：%s", why);
}

/* ---------------------------------------------------------------- the kernel's body */

/* the lines of the body of the kernel whose name stands on line `at`: from its '{' to its
 * '}' (comments and strings skipped) */
static void body_lines(const char *src, size_t len, int at, int *first, int *last)
{
    int line = 1, depth = 0, opened = 0;
    *first = at;
    *last = at;
    for (size_t i = 0; i < len; i++) {
        char ch = src[i];
        if (ch == '\n') {
            line++;
        } else if (ch == '/' && i + 1 < len && src[i + 1] == '/') {
            while (i + 1 < len && src[i + 1] != '\n')
                i++;
        } else if (ch == '/' && i + 1 < len && src[i + 1] == '*') {
            for (i += 2; i + 1 < len && !(src[i] == '*' && src[i + 1] == '/'); i++)
                line += src[i] == '\n';
            i++;
        } else if (ch == '"' || ch == '\'') {
            for (i++; i < len && src[i] != ch && src[i] != '\n'; i++)
                i += src[i] == '\\';
        } else if (line >= at && ch == ';' && !opened) {
            return;                         /* a declaration, no body */
        } else if (line >= at && ch == '{') {
            if (!opened)
                *first = line;
            opened = 1;
            depth++;
        } else if (opened && ch == '}' && --depth == 0) {
            *last = line;
            return;
        }
    }
    *last = line;
}

static int pick_kernel(const char *src, size_t len, const struct gpu_kernel_request *req,
                       struct kp_result *out, struct bl_err *err)
{
    static struct ksrc_kernel ks[KSRC_MAX_KERNELS];   /* large; one caller at a time */
    int n = 0, pick = -1;
    ksrc_find_kernels(src, len, ks, KSRC_MAX_KERNELS, &n);
    char want[GPU_KERNEL_TEXT], have[GPU_KERNEL_TEXT];
    ksrc_base_name(req->name, want, sizeof want);
    for (int i = 0; i < n; i++) {
        const char *s = strrchr(ks[i].name, ':');
        bl_fmt(have, sizeof have, "%s", s ? s + 1 : ks[i].name);
        if (want[0] ? !strcmp(have, want) || !strcmp(ks[i].name, want) : n == 1)
            pick = i;
    }
    if (pick < 0 && want[0])
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KP_NO_SUCH_GLOBAL, want);
    if (pick < 0)
        return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, n ? KP_WHICH : KP_NO_GLOBAL, n);
    bl_fmt(out->kernel, sizeof out->kernel, "%s", req->name[0] ? req->name : ks[pick].name);
    body_lines(src, len, ks[pick].line, &out->first, &out->last);
    return 0;
}

/* ---------------------------------------------------------------- one line */

struct kp_eval {
    const char *src;
    size_t len;
    struct pattern_cuda_launch launch;
    long long trip[KP_LOOPS];
    struct kp_line *l;
    struct kp_result *r;
    long evals;
    double worst_excess;            /* of the worst warp so far (-1: none) */
    struct bank_result worst;
    int worst_warp, worst_access;
    unsigned worst_block[3];
    char worst_text[PATTERN_NAME_MAX];
};

/* the text of one trip of one block: declarations, then each access under the guard */
static int compose(const struct pattern_cuda *pc, char *text, size_t size)
{
    size_t o = bl_fmt(text, size, "%s", pc->decls);
    const char *a = pc->accesses;
    while (*a) {
        size_t n = strcspn(a, ";");
        if (pc->guard[0])
            o += bl_fmt(text + o, size - o, "%sif (%s) %.*s", o ? "; " : "", pc->guard, (int)n, a);
        else
            o += bl_fmt(text + o, size - o, "%s%.*s", o ? "; " : "", (int)n, a);
        a += n;
        while (*a == ';' || *a == ' ')
            a++;
    }
    return o + 1 < size ? 0 : -1;
}

static void record_layout(struct kp_result *r, const struct pattern_layout *lay)
{
    for (int i = 0; i < lay->narrays; i++) {
        const struct pattern_array_info *a = &lay->array[i];
        int k = 0;
        while (k < r->narrays && strcmp(r->array[k].name, a->name))
            k++;
        if (k == r->narrays) {
            if (k == KP_ARRAYS)
                return;
            r->narrays++;
        }
        struct kp_array *o = &r->array[k];
        bl_fmt(o->name, sizeof o->name, "%s", a->name);
        o->ndims = a->ndims;
        for (int d = 0; d < 3; d++)
            o->dims[d] = a->dims[d];
        o->elem = a->elem_size;
        o->dynamic = a->dynamic;
    }
}

static void add_array(struct kp_line *l, const char *name)
{
    char pad[PATTERN_NAME_MAX + 2];
    bl_fmt(pad, sizeof pad, " %s ", name);
    char have[sizeof l->arrays + 2];
    bl_fmt(have, sizeof have, " %s ", l->arrays);
    if (strstr(have, pad))
        return;
    size_t o = strlen(l->arrays);
    bl_fmt(l->arrays + o, sizeof l->arrays - o, "%s%s", o ? " " : "", name);
}

/* every warp of one block for one trip: 1 when a lane was active, 0 none, -1 failed */
static int eval_block(struct kp_eval *e, const struct pattern_cuda *pc, double mult)
{
    char text[3 * PATTERN_CUDA_TEXT];
    if (compose(pc, text, sizeof text))
        return bl_fmt(e->l->reason[KP_EN], KP_TEXT, "the line's text is too long"), -1;
    struct pattern *p = NULL;
    struct bl_err err;
    if (pattern_parse(text, &p, &err) != 0) {
        set_reason(e->l, err.msg);
        return -1;
    }
    const unsigned *b = pc->env.block;
    unsigned threads = b[0] * b[1] * b[2], warps = (threads + 31) / 32;
    int any = 0, nacc = pattern_access_count(p);
    struct pattern_env env = pc->env;
    struct bank_access acc;
    static struct bank_result res;
    for (int i = 0; i < nacc; i++) {
        add_array(e->l, pattern_access(p, i)->array);
        for (unsigned w = 0; w < warps; w++) {
            if (++e->evals > KP_MAX_EVALS) {
                pattern_free(p);
                set_reason(e->l, "too many warps and trips for the model to evaluate");
                return -1;
            }
            env.warp = w;
            static struct pattern_layout lay;
            if (pattern_eval(p, &env, i, &acc, w == 0 ? &lay : NULL, &err) != 0) {
                char m[PATTERN_MSG_MAX + 32];
                bl_fmt(m, sizeof m, "the model: %s", err.msg);
                pattern_free(p);
                set_reason(e->l, m);
                return -1;
            }
            if (w == 0)
                record_layout(e->r, &lay);
            if (!acc.mask)
                continue;
            if (bank_simulate(&acc, &res, NULL) != BANK_OK) {
                pattern_free(p);
                set_reason(e->l, "the model: a misaligned access");
                return -1;
            }
            any = 1;
            struct kp_line *l = e->l;
            l->inst += mult;
            l->wavefronts += mult * res.wavefronts;
            l->ideal += mult * res.passes;
            if (res.ways > l->ways)
                l->ways = res.ways;
            double ex = res.wavefronts - res.passes;
            if (ex > e->worst_excess) {
                e->worst_excess = ex;
                e->worst = res;
                e->worst_warp = (int)w;
                e->worst_access = i;
                memcpy(e->worst_block, e->launch.block_idx, sizeof e->worst_block);
                bl_fmt(e->worst_text, sizeof e->worst_text, "%s", pattern_access(p, i)->array);
            }
        }
    }
    pattern_free(p);
    return any;
}

/* one trip (e->trip) over the blocks the text differs in: 1 some lane active, 0 none, -1 */
static int eval_trip(struct kp_eval *e, struct kp_result *r, int block_dep)
{
    unsigned long long nb = (unsigned long long)r->grid[0] * r->grid[1] * r->grid[2];
    double mult = block_dep ? 1.0 : (double)nb;
    unsigned long long blocks = block_dep ? nb : 1;
    int any = 0;
    static struct pattern_cuda pc;
    for (unsigned long long bi = 0; bi < blocks; bi++) {
        e->launch.block_idx[0] = (unsigned)(bi % r->grid[0]);
        e->launch.block_idx[1] = (unsigned)(bi / r->grid[0] % r->grid[1]);
        e->launch.block_idx[2] = (unsigned)(bi / r->grid[0] / r->grid[1]);
        if (pattern_from_cuda(e->src, e->len, e->l->line, &e->launch, &pc) != 0) {
            set_reason_err(e->l, &pc.err);
            return -1;
        }
        int rc = eval_block(e, &pc, mult);
        if (rc < 0)
            return -1;
        any |= rc;
    }
    return any;
}

/* the worst pass of the worst warp, in words */
static void explain(struct kp_eval *e, const struct kp_result *r, int block_dep)
{
    const struct bank_result *w = &e->worst;
    int p = 0;
    for (int i = 1; i < w->npasses; i++)
        if (w->pass[i].cost > w->pass[p].cost)
            p = i;
    int bank = w->pass[p].worst_bank;
    if (bank < 0)
        return;
    const struct bank_cell *cell = &w->pass[p].cell[bank];
    unsigned lanes = 0;
    char words[128];
    size_t o = 0;
    words[0] = 0;
    for (int k = 0; k < cell->nwords; k++) {
        lanes |= cell->lanes[k];
        if (k < 3 || k == cell->nwords - 1)
            o += bl_fmt(words + o, sizeof words - o, "%s%s%llu", k ? ", " : "",
                        k == cell->nwords - 1 && k > 3 ? "…, " : "",
                        (unsigned long long)cell->word[k]);
    }
    char lane_s[96], where[2][64];
    kp_fmt_lanes(lanes, lane_s, sizeof lane_s);
    if (block_dep)
        bl_fmt(where[KP_EN], sizeof where[0], "warp %d of block (%u,%u,%u)", e->worst_warp,
               e->worst_block[0], e->worst_block[1], e->worst_block[2]);
    else
        bl_fmt(where[KP_EN], sizeof where[0], "warp %d", e->worst_warp);
    if (block_dep)
        bl_fmt(where[KP_ZH], sizeof where[0], "block (%u,%u,%u) 的 warp %d", e->worst_block[0],
               e->worst_block[1], e->worst_block[2], e->worst_warp);
    else
        bl_fmt(where[KP_ZH], sizeof where[0], "warp %d", e->worst_warp);
    bl_fmt(e->l->why[KP_EN], KP_TEXT, "why: %s, %s, pass %d of %d: bank %d serves %d different "
           "words (%s) to lanes %s: %d-way", where[KP_EN], e->worst_text, p + 1, w->npasses, bank,
           cell->nwords, words, lane_s, w->pass[p].cost);
    bl_fmt(e->l->why[KP_ZH], KP_TEXT, "原因：%s，%s，第 %d 批（共 %d 批）：bank %d 要给 lane %s "
           "送 %d 个不同的字（%s）：%d 路冲突", where[KP_ZH], e->worst_text, p + 1, w->npasses,
           bank, lane_s, cell->nwords, words, w->pass[p].cost);
    (void)r;
}

/* [p, e) holds the text w */
static int span_has(const char *p, const char *e, const char *w)
{
    size_t wl = strlen(w);
    for (const char *q = p; q + wl <= e; q++)
        if (!memcmp(q, w, wl))
            return 1;
    return 0;
}

/* line n of src holds the text w */
static int line_has(const char *src, size_t len, int n, const char *w)
{
    const char *p = src, *end = src + len;
    for (int i = 1; p < end; i++) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (i == n)
            return span_has(p, e, w);
        p = e + 1;
    }
    return 0;
}

static int kp_path;                 /* h7reader: the call path of a helper's line being read */

static void predict_line(const char *src, size_t len, const struct gpu_kernel_request *req,
                         struct kp_result *r, struct kp_line *l)
{
    static struct kp_eval e;
    static struct pattern_cuda pc;
    const char *names[GPU_KERNEL_MAX_ARGS], *values[GPU_KERNEL_MAX_ARGS];
    for (int i = 0; i < req->nargs && i < GPU_KERNEL_MAX_ARGS; i++) {
        names[i] = req->args[i].name;
        values[i] = req->args[i].value;
    }
    memset(&e, 0, sizeof e);
    e.src = src;
    e.len = len;
    e.l = l;
    e.r = r;
    e.worst_excess = -1;
    struct pattern_cuda_launch *L = &e.launch;
    for (int d = 0; d < 3; d++) {
        L->grid[d] = req->grid[d] ? req->grid[d] : 1;
        L->block[d] = req->block[d] ? req->block[d] : 1;
    }
    L->dyn_bytes = req->smem;
    L->nargs = req->nargs;
    L->arg_name = names;
    L->arg_value = values;
    L->control = 1;
    L->trip = e.trip;
    L->ntrip = KP_LOOPS;
    L->name = req->name;                /* h7reader: template arguments, helpers' call paths */
    L->kernel_line = r->first;
    L->path = kp_path;
    if (pattern_from_cuda(src, len, l->line, L, &pc) != 0) {
        if (strstr(pc.err.msg, "no load or store of a shared array") || strstr(pc.err.msg, "has no code") ||
            strstr(pc.err.msg, "not inside a function"))
            l->state = KP_NONE;
        else if (!strncmp(pc.err.msg, "inline asm", 10) && !line_has(src, len, l->line, ".shared"))
            l->state = KP_NONE;             /* asm that does not touch shared memory */
        else
            set_reason_err(l, &pc.err);
        return;
    }
    int nloops = pc.nloops < KP_LOOPS ? pc.nloops : KP_LOOPS, block_dep = pc.block_dep;
    l->state = KP_OK;
    for (int tuples = 0;; tuples++) {
        if (tuples >= KP_MAX_TRIPS) {
            set_reason(l, "more trips than the model follows (4096)");
            break;
        }
        int rc = eval_trip(&e, r, block_dep);
        if (rc < 0)
            break;
        if (rc > 0 && nloops > 0) {
            e.trip[nloops - 1]++;
            continue;
        }
        /* nothing ran: the innermost loop that had gone round ends, its outer one goes on */
        int j = nloops - 1;
        while (j >= 0 && e.trip[j] == 0)
            j--;
        if (rc > 0 || j <= 0)
            break;
        for (int k = j; k < nloops; k++)
            e.trip[k] = 0;
        e.trip[j - 1]++;
    }
    if (l->state != KP_OK) {
        l->inst = l->wavefronts = l->ideal = l->excess = 0;
        l->ways = 0;
        return;
    }
    l->excess = l->wavefronts - l->ideal;
    if (l->excess > 0) {
        explain(&e, r, block_dep);
        bl_fmt(l->worst, sizeof l->worst, "%s", e.worst_text);
    }
}

/* ---------------------------------------------------------------- the file */

void kp_fmt_lanes(unsigned lanes, char *buf, size_t size)
{
    size_t o = 0;
    int items = 0;
    buf[0] = 0;
    for (int i = 0; i < 32; i++) {
        if (!(lanes >> i & 1))
            continue;
        int j = i;
        while (j + 1 < 32 && (lanes >> (j + 1) & 1))
            j++;
        if (items == 4) {
            bl_fmt(buf + o, size - o, ", …");
            return;
        }
        if (j > i)
            o += bl_fmt(buf + o, size - o, "%s%d-%d", items ? ", " : "", i, j);
        else
            o += bl_fmt(buf + o, size - o, "%s%d", items ? ", " : "", i);
        items++;
        i = j;
    }
}

int kp_predict(const char *src, size_t len, const struct gpu_kernel_request *req,
               struct kp_result *out, struct bl_err *err)
{
    memset(out, 0, sizeof *out);
    if (pick_kernel(src, len, req, out, err))
        return -1;
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += src[i] == '\n';
    n += len > 0 && src[len - 1] != '\n';
    out->nlines = n;
    out->line = calloc((size_t)n + 1, sizeof *out->line);
    if (!out->line)
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
    for (int d = 0; d < 3; d++) {
        out->grid[d] = req->grid[d] ? req->grid[d] : 1;
        out->block[d] = req->block[d] ? req->block[d] : 1;
    }
    out->smem = req->smem;
    int tried = 0;
    const char *p = src, *end = src + len;
    for (int i = 0; i < n; i++) {
        struct kp_line *l = &out->line[i];
        l->line = i + 1;
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        const char *from = p;
        p = e < end ? e + 1 : end;
        /* a shared access is an index ('[') or asm: other lines are not translated (each
         * translation reads the whole file) */
        if (!(memchr(from, '[', (size_t)(e - from)) || span_has(from, e, "asm") ||
              span_has(from, e, "*(")))         /* h7reader: *(float4 *)(s + i) */
            continue;
        /* h7reader: a line of a __device__ helper the kernel calls counts once per call path */
        int paths = l->line < out->first || l->line > out->last ?
                    pattern_cuda_paths(src, len, out->first, l->line) : 1;
        if (paths < 1)
            continue;
        if (++tried > KP_MAX_LINES) {
            set_reason(l, "the kernel has too many lines with an index for the model");
            out->ncannot++;
            continue;
        }
        static struct kp_line best;         /* h7reader: the why of the worst call path */
        double most = -1;
        for (kp_path = 0; kp_path < paths && (kp_path == 0 || l->state == KP_OK); kp_path++) {
            double before = l->wavefronts - l->ideal;
            predict_line(src, len, req, out, l);
            if (paths > 1 && l->excess - before > most) {
                most = l->excess - before;
                memcpy(best.why, l->why, sizeof best.why);
                memcpy(best.worst, l->worst, sizeof best.worst);
            }
        }
        if (paths > 1 && l->state == KP_OK && most > 0) {
            memcpy(l->why, best.why, sizeof l->why);
            memcpy(l->worst, best.worst, sizeof l->worst);
        }
        kp_path = 0;
        out->npredicted += l->state == KP_OK;
        out->ncannot += l->state == KP_CANNOT;
    }
    return 0;
}

int kp_worst_fixable(const struct kp_result *r)
{
    int best = 0;
    for (int i = 0; i < r->nlines; i++) {
        const struct kp_line *l = &r->line[i];
        if (l->state == KP_OK && l->fix_kind != KP_FIX_NONE &&
            (!best || l->excess > r->line[best - 1].excess))
            best = l->line;
    }
    return best;
}

void kp_free(struct kp_result *r)
{
    free(r->line);
    memset(r, 0, sizeof *r);
}
