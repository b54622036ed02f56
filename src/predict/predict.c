/* predict.c: the model's figures for every line of a kernel (predict/predict.h). A
 * line is translated by pattern_from_cuda with control on (the guard and the loops around
 * it), once per trip of those loops and, where the text uses blockIdx, once per block; each
 * access is evaluated for every warp of the block and run through bank_simulate. Warps with
 * no active lane do not execute the line and count nothing, as on the GPU. Pure C: the model
 * and src/base. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../model/bank.h"
#include "../model/clex.h"
#include "../model/pattern_cuda.h"
#include "predict.h"
#include "reason.h"


/* ---------------------------------------------------------------- the kernel's body */

static void kp_fmt_lanes(unsigned lanes, char *buf, size_t size);

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
    out->name_line = ks[pick].line;
    return 0;
}

/* ---------------------------------------------------------------- one line */

struct kp_eval {
    struct pattern_cuda_file *pf;   /* the file, read once for all its lines */
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
    /* the compiler's version of the line (kp_predict_sass), per op (BANK_LOAD, BANK_STORE): */
    unsigned widen[2];              /* the width nvcc emitted (0: the source's) */
    unsigned merge_w[2];            /* adjacent accesses of a trip that line up become one
                                       instruction of at most this many bytes (0: none) */
    int group;                      /* trips of the innermost loop one instruction covers */
    int pieces[2];                  /* a narrower instruction: how many of the pieces */
    int dry;                        /* 1: count nothing (a trip the group's first covers) */
    unsigned vec_mask;              /* accesses whose trips nvcc loads vec_g at a time, */
    unsigned vec_w;                 /* vec_w bytes wide (a loop's trips read side by side) */
    int vec_g, nloops;
    int widened, merged, split;     /* what happened, for the note */
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

/* one warp instruction into the line's sums: 0, or -1 (the reason set) */
static int count(struct kp_eval *e, const struct bank_access *acc, double mult, unsigned w,
                 int i, const char *array)
{
    static struct bank_result res;
    if (bank_simulate(acc, &res, NULL) != BANK_OK) {
        kp_reason_id(e->l, KP_MISALIGNED);
        return -1;
    }
    if (e->dry)
        return 0;
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
        bl_fmt(e->worst_text, sizeof e->worst_text, "%s", array);
    }
    return 0;
}

/* b lines up j widths after a: the same op, lanes and width, each lane's address a's plus j
 * widths */
static int lines_up_at(const struct bank_access *a, const struct bank_access *b, unsigned j)
{
    if (a->op != b->op || a->mask != b->mask || a->width != b->width || a->instr || b->instr ||
        !a->mask)
        return 0;
    for (int k = 0; k < BANK_LANES; k++)
        if ((a->mask >> k & 1) && b->offset[k] != a->offset[k] + j * a->width)
            return 0;
    return 1;
}

/* how many accesses, acc and the next ones nx[0..nnext), nvcc loads as one instruction of at
 * most maxw bytes: 4 or 2 that lie side by side for every lane, the first aligned to all of
 * them (what one wider instruction can load); 1: none */
static int run_of(const struct bank_access *acc, const struct bank_access *nx, int nnext,
                  unsigned maxw)
{
    for (int k = 4; k >= 2; k /= 2) {
        if (k - 1 > nnext || k * acc->width > maxw)
            continue;
        int ok = 1;
        for (int j = 1; j < k && ok; j++)
            ok = lines_up_at(acc, &nx[j - 1], (unsigned)j);
        for (int q = 0; q < BANK_LANES && ok; q++)
            if ((acc->mask >> q & 1) && acc->offset[q] % (k * acc->width))
                ok = 0;
        if (ok)
            return k;
    }
    return 1;
}

/* the access as nvcc emitted it (e->widen; run accesses from it merged into one), counted: 0,
 * or -1 */
static int count_compiled(struct kp_eval *e, struct bank_access *acc, int run, double mult,
                          unsigned w, int i, const char *array)
{
    unsigned W = acc->op <= BANK_STORE ? e->widen[acc->op] : 0;
    if (run > 1) {
        acc->width *= (unsigned)run;
        e->merged = 1;
        return count(e, acc, mult, w, i, array);
    }
    if (!W || W == acc->width || acc->instr)
        return count(e, acc, mult, w, i, array);
    if (W > acc->width) {
        for (int k = 0; k < BANK_LANES; k++)
            acc->offset[k] &= ~(uint64_t)(W - 1);
        acc->width = W;
        e->widened = 1;
        return count(e, acc, mult, w, i, array);
    }
    struct bank_access part = *acc;                /* split into acc->width / W pieces, or */
    part.width = W;                                /* the pieces nvcc loads (shifting every */
    e->split = 1;                                  /* lane alike costs the same) */
    int np = e->pieces[acc->op] > 0 ? e->pieces[acc->op] : (int)(acc->width / W);
    for (unsigned o = 0; o < (unsigned)np * W && o < acc->width; o += W) {
        for (int k = 0; k < BANK_LANES; k++)
            part.offset[k] = acc->offset[k] + o;
        if (count(e, &part, mult, w, i, array))
            return -1;
    }
    return 0;
}

/* every warp of one block for one trip: 1 when a lane was active, 0 none, -1 failed */
static int eval_block(struct kp_eval *e, const struct pattern_cuda *pc, double mult)
{
    char text[3 * PATTERN_CUDA_TEXT];
    if (compose(pc, text, sizeof text))
        return kp_reason_id(e->l, KP_TEXT_TOO_LONG), -1;
    struct pattern *p = NULL;
    struct bl_err err;
    if (pattern_parse(text, &p, &err) != 0) {
        kp_reason_err(e->l, &err, 0);
        return -1;
    }
    const unsigned *b = pc->env.block;
    unsigned threads = b[0] * b[1] * b[2], warps = (threads + 31) / 32;
    int any = 0, nacc = pattern_access_count(p);
    struct pattern_env env = pc->env;
    static struct bank_access acc, nx[3];
    static unsigned char skip[1024 / 32 + 1];   /* accesses of a warp merged into an earlier one */
    memset(skip, 0, sizeof skip);
    for (int i = 0; i < nacc; i++) {
        const char *array = pattern_access(p, i)->array;
        add_array(e->l, array);
        for (unsigned w = 0; w < warps; w++) {
            if (++e->evals > KP_MAX_EVALS) {
                pattern_free(p);
                kp_reason_id(e->l, KP_TOO_MANY_EVALS);
                return -1;
            }
            env.warp = w;
            static struct pattern_layout lay;
            if (pattern_eval(p, &env, i, &acc, w == 0 ? &lay : NULL, &err) != 0) {
                pattern_free(p);
                kp_reason_err(e->l, &err, 1);
                return -1;
            }
            if (w == 0)
                record_layout(e->r, &lay);
            if (!acc.mask)
                continue;
            any = 1;
            e->l->ops |= 1u << (acc.op & 7);
            if (w < sizeof skip && skip[w]) {
                skip[w]--;
                continue;                   /* merged into an earlier access's instruction */
            }
            if (i < 32 && (e->vec_mask >> i & 1) && e->nloops > 0) {
                if (e->trip[e->nloops - 1] % e->vec_g != 0)
                    continue;               /* in the instruction of the group's first trip */
                for (int q = 0; q < BANK_LANES; q++)
                    acc.offset[q] &= ~(uint64_t)(e->vec_w - 1);
                acc.width = e->vec_w;
                e->widened = 1;
                if (count(e, &acc, mult, w, i, array)) {
                    pattern_free(p);
                    return -1;
                }
                continue;
            }
            int run = 1;
            if (acc.op <= BANK_STORE && e->merge_w[acc.op] > acc.width) {
                int nn = 0;
                while (nn < 3 && i + 1 + nn < nacc &&
                       pattern_eval(p, &env, i + 1 + nn, &nx[nn], NULL, &err) == 0)
                    nn++;
                run = run_of(&acc, nx, nn, e->merge_w[acc.op]);
            }
            if (count_compiled(e, &acc, run, mult, w, i, array)) {
                pattern_free(p);
                return -1;
            }
            if (w < sizeof skip)
                skip[w] = (unsigned char)(run - 1);
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
        if (pattern_cuda_line(e->pf, e->l->line, &e->launch, &pc) != 0) {
            kp_reason_err(e->l, &pc.err, 0);
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
    char lane_s[96];
    kp_fmt_lanes(lanes, lane_s, sizeof lane_s);
    if (block_dep)
        bl_msg_set(&e->l->why, NULL, 0, KP_WHY_PASS_BLOCK, e->worst_warp, e->worst_block[0],
                   e->worst_block[1], e->worst_block[2], e->worst_text, p + 1, w->npasses, bank,
                   cell->nwords, words, lane_s, w->pass[p].cost);
    else
        bl_msg_set(&e->l->why, NULL, 0, KP_WHY_PASS, e->worst_warp, e->worst_text, p + 1,
                   w->npasses, bank, cell->nwords, words, lane_s, w->pass[p].cost);
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

/* what the compiled code has on one line, for predict_line: per op (BANK_LOAD, BANK_STORE)
 * the plain LDS/STS instructions' width (0 none, -1 mixed) and whether one is twice another */
struct line_sass {
    int n;                          /* shared instructions on the line */
    int width[2];
    int has_double[2];              /* some instruction twice as wide as another */
    unsigned widths[2];             /* bit b: an instruction of 2^b bytes */
    int count[2];                   /* plain LDS / STS instructions */
    const char *text[2];            /* an instruction's text, per op */
};

/* the widths of the source's accesses per op (0 none, -1 mixed) and how many */
static void source_widths(const struct pattern_cuda *pc, int width[2], int nacc[2])
{
    width[0] = width[1] = nacc[0] = nacc[1] = 0;
    char text[3 * PATTERN_CUDA_TEXT];
    struct pattern *p = NULL;
    struct bl_err err;
    if (compose(pc, text, sizeof text) || pattern_parse(text, &p, &err) != 0)
        return;
    for (int i = 0; i < pattern_access_count(p); i++) {
        const struct pattern_access_info *a = pattern_access(p, i);
        int o = a->kind == PATTERN_STORE;
        if (a->instr)
            continue;
        nacc[o]++;
        width[o] = !width[o] || width[o] == (int)a->width ? (int)a->width : -1;
    }
    pattern_free(p);
}

/* e's compiler fields from the line's SASS (ls) and the source's accesses */
static void plan_compiled(struct kp_eval *e, const struct pattern_cuda *pc, const struct line_sass *ls)
{
    int sw[2], na[2];
    source_widths(pc, sw, na);
    for (int o = 0; o < 2; o++) {
        if (sw[o] <= 0 || !ls->widths[o])
            continue;
        if (ls->width[o] > 0 && ls->width[o] < sw[o]) {
            e->widen[o] = (unsigned)ls->width[o];               /* split, or narrowed */
            e->pieces[o] = sw[o] / ls->width[o];
            if (pc->nloops == 0 && ls->count[o] / na[o] < e->pieces[o])
                e->pieces[o] = ls->count[o] / na[o] > 0 ? ls->count[o] / na[o] : 1;
        } else if (ls->width[o] > 0 && ls->width[o] != sw[o]) {
            if (na[o] == 1 && pc->nloops == 0)
                e->widen[o] = (unsigned)ls->width[o];           /* widened */
            else if (na[o] == 1 && ls->width[o] % sw[o] == 0) {
                e->widen[o] = (unsigned)ls->width[o];           /* trips of the loop merged */
                e->group = ls->width[o] / sw[o];
            } else
                e->merge_w[o] = (unsigned)ls->width[o];
        } else if (ls->width[o] < 0 && (ls->widths[o] >> 1 & (ls->widths[o] >> 0)) &&
                   (ls->widths[o] & (unsigned)sw[o])) {
            int wide = 16;
            while (wide > sw[o] && !(ls->widths[o] & (unsigned)wide))
                wide /= 2;
            if (na[o] == 1 && pc->nloops > 0 && wide > sw[o]) {
                e->widen[o] = (unsigned)wide;                   /* trips merged, a rest */
                e->group = wide / sw[o];
            } else {
                e->merge_w[o] = (unsigned)wide;                 /* some accesses merged */
            }
        }
    }
}

/* offsets of access `which` of warp 0 of block 0 at the trips e->trip (0, or -1) */
static int probe_access(struct kp_eval *e, int which, struct bank_access *acc)
{
    static struct pattern_cuda pc;
    char text[3 * PATTERN_CUDA_TEXT];
    struct pattern *p = NULL;
    struct bl_err err;
    memset(e->launch.block_idx, 0, sizeof e->launch.block_idx);
    if (pattern_cuda_line(e->pf, e->l->line, &e->launch, &pc) || compose(&pc, text, sizeof text) ||
        pattern_parse(text, &p, &err))
        return -1;
    struct pattern_env env = pc.env;
    env.warp = 0;
    int rc = which < pattern_access_count(p) ? pattern_eval(p, &env, which, acc, NULL, &err) : -1;
    pattern_free(p);
    return rc;
}

/* a loop line whose instructions are of two widths (LDS and LDS.128): the accesses whose
 * lanes read side by side from one trip of the innermost loop to the next, aligned for the
 * wider instruction, are the ones nvcc loads several trips at a time (a matrix multiply's
 * As[ty][k]): e->vec_* */
static void plan_vector_trips(struct kp_eval *e, const struct line_sass *ls, int nloops)
{
    static struct bank_access a0, a1;
    for (int o = 0; o < 2; o++) {
        if (ls->width[o] >= 0 || nloops == 0)
            continue;
        unsigned wide = 16;
        while (wide > 1 && !(ls->widths[o] & wide))
            wide /= 2;
        for (int i = 0; i < 32; i++) {
            memset(e->trip, 0, sizeof e->trip);
            if (probe_access(e, i, &a0))
                break;
            if ((int)a0.op != o || a0.instr || a0.width >= wide || !a0.mask)
                continue;
            e->trip[nloops - 1] = 1;
            if (probe_access(e, i, &a1) || a1.mask != a0.mask)
                continue;
            int side = 1;
            for (int q = 0; q < BANK_LANES && side; q++)
                if (a0.mask >> q & 1)
                    side = a1.offset[q] == a0.offset[q] + a0.width && a0.offset[q] % wide == 0;
            if (side) {
                e->vec_mask |= 1u << i;
                e->vec_w = wide;
                e->vec_g = (int)(wide / a0.width);
            }
        }
    }
    memset(e->trip, 0, sizeof e->trip);
    memset(e->launch.block_idx, 0, sizeof e->launch.block_idx);
}

/* the line's own text is [lfrom, lend) (read for asm: the file is not searched per line) */
static int kp_path;                 /* h7reader: the call path of a helper's line being read */

static void predict_line(struct pattern_cuda_file *pf, const struct gpu_kernel_request *req,
                         struct kp_result *r, struct kp_line *l, const struct line_sass *ls,
                         const char *lfrom, const char *lend)
{
    static struct kp_eval e;
    static struct pattern_cuda pc;
    const char *names[GPU_KERNEL_MAX_ARGS], *values[GPU_KERNEL_MAX_ARGS];
    for (int i = 0; i < req->nargs && i < GPU_KERNEL_MAX_ARGS; i++) {
        names[i] = req->args[i].name;
        values[i] = req->args[i].value;
    }
    memset(&e, 0, sizeof e);
    e.pf = pf;
    e.l = l;
    e.r = r;
    e.worst_excess = -1;
    e.group = 1;
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
    if (pattern_cuda_line(pf, l->line, L, &pc) != 0) {
        int id = pc.err.why.id;
        if (id == CU_NO_LOAD_OR_STORE_OF || id == CU_LINE_HAS_NO_CODE || id == CU_LINE_IS_NOT_INSIDE_A)
            l->state = KP_NONE;
        else if (id == CU_INLINE_ASM_LDMATRIX_STMATRIX_CP && !span_has(lfrom, lend, ".shared") &&
                 !(ls && ls->n))
            l->state = KP_NONE;             /* asm that does not touch shared memory */
        else
            kp_reason_err(l, &pc.err, 0);
        return;
    }
    int nloops = pc.nloops < KP_LOOPS ? pc.nloops : KP_LOOPS, block_dep = pc.block_dep;
    e.nloops = nloops;
    if (ls && ls->n)
        plan_compiled(&e, &pc, ls);
    if (nloops == 0)
        e.group = 1;
    if (ls && ls->n && nloops > 0 && (ls->width[0] < 0 || ls->width[1] < 0) && e.group == 1) {
        plan_vector_trips(&e, ls, nloops);
        if (e.vec_mask)
            e.merge_w[0] = e.merge_w[1] = 0;
    }
    l->state = KP_OK;
    for (int tuples = 0;; tuples++) {
        if (tuples >= KP_MAX_TRIPS) {
            kp_reason_id(l, KP_TOO_MANY_TRIPS);
            break;
        }
        e.dry = nloops > 0 && e.group > 1 && e.trip[nloops - 1] % e.group != 0;
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
    const char *t = ls ? (ls->text[0] ? ls->text[0] : ls->text[1]) : NULL;
    if (e.vec_mask)
        bl_msg_set(&l->compiler, NULL, 0, KP_NVCC_VECTOR, e.vec_g, e.vec_w, l->sass);
    else if (e.group > 1 && e.widened)
        bl_msg_set(&l->compiler, NULL, 0, KP_NVCC_COVERS, t ? t : l->sass, e.group);
    else if (e.widened)
        bl_msg_set(&l->compiler, NULL, 0, KP_NVCC_WIDENED, t ? t : l->sass,
                   t && strstr(t, "128") ? 16 : 8);
    else if (e.merged)
        bl_msg_set(&l->compiler, NULL, 0, KP_NVCC_MERGES, l->sass);
    else if (e.split)
        bl_msg_set(&l->compiler, NULL, 0, KP_NVCC_SPLITS, l->sass);
}

/* ---------------------------------------------------------------- the file */

void kp_fmt_cell(const struct bank_cell *c, char *words, size_t wsize, char *lanes,
                 size_t lsize)
{
    size_t o = 0;
    uint32_t lm = 0;
    words[0] = 0;
    for (int i = 0; i < c->nwords && i < BANK_MAX_CELL_WORDS; i++) {
        lm |= c->lanes[i];
        if (i < 3 || i == c->nwords - 1)
            o += bl_fmt(words + o, wsize - o, "%s%s%llu", i ? ", " : "",
                        i == c->nwords - 1 && i > 3 ? "\u2026, " : "",
                        (unsigned long long)c->word[i]);
    }
    kp_fmt_lanes(lm, lanes, lsize);
}

/* kp_fmt_lanes: lanes as ranges, "0-31", "0, 16" (… past a few) into buf */
static void kp_fmt_lanes(unsigned lanes, char *buf, size_t size)
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

/* the line's instructions into ls and l->sass ("LDS.64 x2, LDS") */
/* the instructions of line `line`: from at[line - 1], each one's next in *next (the file's
 * order; -1 ends), built once for all lines by kp_predict_sass */
static void line_sass_of(const struct kp_sass *sass, const int *at, const int *next, int line,
                         struct line_sass *ls, struct kp_line *l)
{
    memset(ls, 0, sizeof *ls);
    l->nsass = 0;
    size_t o = 0;
    l->sass[0] = 0;
    for (int i = at[line - 1]; i >= 0; i = next[i]) {
        const struct kp_sass_insn *in = &sass->insn[i];
        ls->n++;
        l->nsass++;
        if (in->call_line != in->line)
            l->call_line = in->call_line;
        int same = 0;
        for (int k = at[line - 1]; k != i; k = next[k])
            same += !strcmp(sass->insn[k].text, in->text);
        if (!same) {
            int cnt = 0;
            for (int k = i; k >= 0; k = next[k])
                cnt += !strcmp(sass->insn[k].text, in->text);
            if (cnt > 1)
                o += bl_fmt(l->sass + o, sizeof l->sass - o, "%s%s x%d", o ? ", " : "", in->text, cnt);
            else
                o += bl_fmt(l->sass + o, sizeof l->sass - o, "%s%s", o ? ", " : "", in->text);
        }
        if (in->op != GPU_KOP_LD && in->op != GPU_KOP_ST)
            continue;
        int op = in->op == GPU_KOP_ST;
        ls->count[op]++;
        ls->width[op] = !ls->width[op] || ls->width[op] == in->bytes ? in->bytes : -1;
        for (int b = 0; b < 5; b++)
            if (in->bytes == 1 << b)
                ls->widths[op] |= 1u << b;
        if (!ls->text[op])
            ls->text[op] = in->text;
    }
}

/* a line the compiled code has no instruction on, though the source reads shared memory
 * there: what nvcc did with it (the nearest line within 4 with an instruction of the kind) */
static void no_instruction(const struct kp_result *r, const struct kp_sass *sass, struct kp_line *l)
{
    int best = -1;
    /* of the kind the line reads: a load merged into a load, a store into a store */
    int want = l->ops == 1u << BANK_LOAD ? GPU_KOP_LD : l->ops == 1u << BANK_STORE ? GPU_KOP_ST : -1;
    for (int i = 0; i < sass->n; i++) {
        int d = sass->insn[i].line - l->line;
        if (d < 0)
            d = -d;
        if (want >= 0 && sass->insn[i].op != want)
            continue;
        if (d > 0 && d <= 4 && sass->insn[i].line >= r->first && sass->insn[i].line <= r->last &&
            (best < 0 || d < abs(sass->insn[best].line - l->line)))
            best = i;
    }
    l->inst = l->wavefronts = l->ideal = l->excess = 0;
    l->ways = 0;
    memset(&l->why, 0, sizeof l->why);
    memset(&l->fix, 0, sizeof l->fix);
    l->fix_kind = KP_FIX_NONE;
    if (best >= 0)
        bl_msg_set(&l->compiler, NULL, 0, KP_NVCC_MERGED_INTO, sass->insn[best].line,
                   sass->insn[best].text);
    else
        bl_msg_set(&l->compiler, NULL, 0, KP_NVCC_NOTHING);
}

/* a line with shared instructions that the source reading did not predict: a reason */
static void unread(const struct kp_result *r, struct kp_line *l)
{
    l->state = KP_CANNOT;
    if (l->line < r->first || l->line > r->last) {
        if (l->call_line)
            bl_msg_set(&l->reason, NULL, 0, KP_R_INLINED, l->sass, l->call_line);
        else
            bl_msg_set(&l->reason, NULL, 0, KP_R_OUTSIDE, l->sass);
        return;
    }
    int matrix = 1;
    for (const char *q = l->sass; *q; q++)
        if ((q == l->sass || q[-1] == ' ') && strncmp(q, "LDSM", 4) && strncmp(q, "STSM", 4) &&
            strncmp(q, "LDGSTS", 6) && strncmp(q, "x", 1) && *q != ',')
            matrix = 0;
    bl_msg_set(&l->reason, NULL, 0, matrix ? KP_R_ASM_MATRIX : KP_R_NO_INDEX, l->sass);
}

int kp_predict_sass(const char *src, size_t len, const struct gpu_kernel_request *req,
                    const struct kp_sass *sass, struct kp_result *out, struct bl_err *err)
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
    out->sass_known = sass != NULL;
    out->sass_total = sass ? sass->total : 0;
    struct pattern_cuda_file *pf = pattern_cuda_open(src, len);
    int nin = sass ? sass->n : 0;
    int *at = malloc(((size_t)n + 1) * sizeof *at), *next = malloc(((size_t)nin + 1) * sizeof *next);
    if (!pf || !at || !next) {
        pattern_cuda_close(pf);
        free(at), free(next), kp_free(out);
        return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, GPU_OUT_OF_MEMORY);
    }
    for (int i = 0; i < n; i++)             /* each line's instructions, in the file's order */
        at[i] = -1;
    for (int i = nin - 1; i >= 0; i--) {
        int ln = sass->insn[i].line;
        next[i] = ln >= 1 && ln <= n ? at[ln - 1] : -1;
        if (ln >= 1 && ln <= n)
            at[ln - 1] = i;
    }
    int tried = 0;
    const char *p = src, *end = src + len;
    struct line_sass ls;
    for (int i = 0; i < n; i++) {
        struct kp_line *l = &out->line[i];
        l->line = i + 1;
        l->nsass = -1;
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        const char *from = p;
        p = e < end ? e + 1 : end;
        if (sass) {
            line_sass_of(sass, at, next, l->line, &ls, l);
            out->nsass_lines += ls.n > 0;
            out->sass_on_lines += ls.n;
        }
        int in_body = l->line >= out->first && l->line <= out->last;
        /* a shared access is an index ('[') or asm: other lines are not translated, unless the
         * compiled code has one there; a line of a __device__ helper the kernel calls counts
         * once per call path */
        int looks = memchr(from, '[', (size_t)(e - from)) || span_has(from, e, "asm") ||
                    span_has(from, e, "*(");
        if (!(sass && ls.n) && !looks)
            continue;
        int paths = in_body ? 1 : pattern_cuda_file_paths(pf, out->first, l->line);
        if (!(sass && ls.n) && paths < 1)
            continue;
        if (paths < 1)
            paths = 1;
        if (++tried > KP_MAX_LINES) {
            kp_reason_id(l, KP_TOO_MANY_LINES);
            out->ncannot++;
            continue;
        }
        static struct kp_line best;         /* the why of the worst call path */
        double most = -1;
        for (kp_path = 0; kp_path < paths && (kp_path == 0 || l->state == KP_OK); kp_path++) {
            double before = l->wavefronts - l->ideal;
            predict_line(pf, req, out, l, sass ? &ls : NULL, from, e);
            if (paths > 1 && l->excess - before > most) {
                most = l->excess - before;
                best.why = l->why;
                memcpy(best.worst, l->worst, sizeof best.worst);
            }
        }
        if (paths > 1 && l->state == KP_OK && most > 0) {
            l->why = best.why;
            memcpy(l->worst, best.worst, sizeof l->worst);
        }
        kp_path = 0;
        if (sass && ls.n && l->state == KP_NONE)
            unread(out, l);
        else if (sass && ls.n && l->state == KP_OK && !in_body && l->call_line)
            ;                               /* a helper's line the reader predicted */
        else if (sass && !ls.n && l->state == KP_OK && l->inst > 0)
            no_instruction(out, sass, l);   /* (the reading finding no access here: nothing to say) */
        out->npredicted += l->state == KP_OK;
        out->ncannot += l->state == KP_CANNOT;
    }
    pattern_cuda_close(pf);
    free(at), free(next);
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

void kp_unexecuted(struct kp_result *r)
{
    if (r->executed)
        return;
    for (int i = 0; i < r->nlines; i++) {
        struct kp_line *l = &r->line[i];
        l->state = KP_NONE;
        l->inst = l->wavefronts = l->ideal = l->excess = 0;
        l->ways = 0;
        l->reason.id = l->why.id = l->fix.id = l->compiler.id = BL_MSG_NONE;
        l->fix_kind = KP_FIX_NONE;
    }
    r->npredicted = r->ncannot = 0;
    free(r->warps);
    r->warps = NULL;
    r->nwarps = 0;
}

void kp_free(struct kp_result *r)
{
    free(r->line);
    free(r->warps);
    memset(r, 0, sizeof *r);
}
