/* exec.c: a kernel-only file's kernel executed on the CPU (predict/exec.h): nvcc -ptx (through
 * the kernel cache: the SASS compile of the same file leaves its PTX there),
 * the kernel found among the PTX's by its demangled name, its parameters bound as the GPU
 * child binds them (cuda_kernel.c: --arg values, --buffer-size buffers filled by --fill),
 * ptx_run with every access vetted against the buffers, and the per-line sums of ptx_agg
 * written into the prediction's lines; the lines an execution wrote are kept in the kernel
 * cache under everything the execution depends on, so an unchanged request is not executed
 * twice. */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/fmt.h"
#include "../base/hash.h"
#include "../base/utf8.h"
#include "../model/bank.h"
#include "../ptx/ptx.h"
#include "../ptx/ptx_agg.h"
#include "../compile/compile.h"
#include "../sys/sys.h"
#include "exec.h"

int kexec_has_main(const char *s, size_t n)
{
    return kcompile_has_main(s, n);
}

struct exec_ctx {
    struct ptx_agg agg;
    int nbufs;
    unsigned char *buf[KSRC_MAX_PARAMS];
    size_t size[KSRC_MAX_PARAMS];
};

static void sink(void *ctx, const struct ptx_access *a)
{
    ptx_agg_sink(&((struct exec_ctx *)ctx)->agg, a);
}

static int global_ok(void *ctx, uint64_t addr, size_t n)
{
    const struct exec_ctx *c = ctx;
    for (int i = 0; i < c->nbufs; i++) {
        uint64_t s = (uint64_t)(uintptr_t)c->buf[i];
        if (c->buf[i] && addr >= s && addr + n <= s + c->size[i])
            return 1;
    }
    return 0;
}

static void fill(unsigned char *b, size_t bytes, enum gpu_kernel_fill f)
{
    if (f == GPU_FILL_ZERO)
        return; /* calloc'ed */
    for (size_t w = 0; w + 4 <= bytes; w += 4) {
        if (f == GPU_FILL_FLOAT) {
            float v = (float)((w / 4) % 1024);
            memcpy(b + w, &v, 4);
        } else {
            uint32_t v = (uint32_t)(w / 4);
            memcpy(b + w, &v, 4);
        }
    }
}

/* the source's kernel of name_expr (its base name) */
static const struct ksrc_kernel *src_kernel(const char *src, size_t len, const char *name_expr,
                                            struct ksrc_kernel *ks, int *nk)
{
    char base[GPU_KERNEL_TEXT];
    ksrc_find_kernels(src, len, ks, KSRC_MAX_KERNELS, nk);
    ksrc_base_name(name_expr, base, sizeof base);
    for (int i = 0; i < *nk; i++)
        if (!strcmp(ks[i].name, base))
            return &ks[i];
    return *nk == 1 ? &ks[0] : NULL;
}

static void squeeze(const char *s, char *out, size_t n)
{
    size_t o = 0;
    for (; *s && o + 1 < n; s++)
        if (!isspace((unsigned char)*s))
            out[o++] = *s;
    out[o] = 0;
}

/* the PTX kernel whose demangled name is name_expr (spaces ignored), or the only one */
static int ptx_kernel_of(const struct ptx_module *m, const char *name_expr)
{
    char want[GPU_KERNEL_TEXT], have[GPU_KERNEL_TEXT], dem[GPU_KERNEL_TEXT];
    squeeze(name_expr, want, sizeof want);
    for (int k = 0; k < ptx_kernel_count(m); k++) {
        if (kdemangle(ptx_kernel_name(m, k), dem, sizeof dem))
            continue;
        squeeze(dem, have, sizeof have);
        if (!strcmp(have, want))
            return k;
    }
    return !want[0] && ptx_kernel_count(m) == 1 ? 0 : -1;
}

/* buffers and scalars for the source's parameters (as cuda_kernel.c binds them) */
static int bind(const struct gpu_kernel_request *req, const struct ksrc_kernel *k,
                struct exec_ctx *c, unsigned char scal[][8], void **args, struct bl_err *err)
{
    unsigned long long total = 0;
    if (ksrc_check_args(k, req, err))
        return -1;
    for (int i = 0; i < k->nparams; i++) {
        const struct ksrc_param *p = &k->params[i];
        memset(scal[i], 0, 8);
        args[i] = scal[i];
        if (p->kind == KSRC_POINTER) {
            unsigned long long sz = ksrc_buffer_bytes(k, i, req);
            total += sz;
            if (total > KEX_MAX_BUFFERS)
                return bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KEX_BUFFERS, k->name, total,
                               (unsigned long long)KEX_MAX_BUFFERS);
            c->size[i] = (size_t)sz + 256;
            c->buf[i] = calloc(1, (size_t)(sz ? sz : 1) + 256);
            if (!c->buf[i])
                return bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, PAT_OUT_OF_MEMORY);
            /* 256-aligned as cudaMalloc's: the bank of a cp.async source depends on it */
            uintptr_t at = ((uintptr_t)c->buf[i] + 255) & ~(uintptr_t)255;
            fill((unsigned char *)at, (size_t)sz, req->fill);
            uint64_t ptr = at;
            memcpy(scal[i], &ptr, 8);
            continue;
        }
        if (ksrc_scalar_arg(k, i, req, scal[i], err))
            return -1;
    }
    return 0;
}

/* 1 while a fix's copy is executed (kexec_apply_copy): its PTX may come from NVRTC
 * (compile/rtc.c), the learner's own file's always from nvcc, whose code the GPU runs */
static int copy_now;

/* the file compiled to PTX text (NUL-terminated), or NULL with err */
static char *make_ptx(const char *src, size_t len, const struct gpu_kernel_request *req,
                      const char *name_expr, char *named, size_t nsz, char *root, size_t rsz,
                      struct bl_err *err)
{
    char real[PATH_MAX], dir[PATH_MAX], nvcc[PATH_MAX];
    if (knvcc_find(nvcc, sizeof nvcc)) {
        bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, KEX_NO_NVCC);
        return NULL;
    }
    if (knvcc_toolkit(nvcc, root, rsz)) /* a wrapper: the toolkit's headers found by name */
        root[0] = '\0';
    knvcc_where(req->path, real, sizeof real, dir, sizeof dir);
    bl_clean(named, nsz, real);
    struct kcompile_in in = {.src = src, .len = len, .name = named, .dir = dir,
                             .name_expr = name_expr && name_expr[0] ? name_expr : NULL, .arch = 90,
                             .nvcc = nvcc, .nflags = req->nflags, .flags = req->flags,
                             .path = real, .limit_s = req->time_limit, .ptx = 1,
                             .cache_dir = req->cache_dir, .rtc_first = copy_now};
    struct compiled comp;
    int hit = 0;
    memset(&comp, 0, sizeof comp);
    int fast = krtc_compile(&in, &comp, &hit, err); /* a fix's copy: NVRTC, else nvcc */
    if (fast < 0 || (!fast && kcompile_nvcc(&in, &comp, &hit, err)))
        return NULL;
    free(comp.log);
    if (!comp.ok || !comp.cubin) {
        free(comp.cubin);
        bl_fail(err, GPU_KERNEL_ECOMPILE, BL_NOWHERE, KEX_NO_PTX, req->path);
        return NULL;
    }
    return (char *)comp.cubin; /* NUL-terminated (kcompile_nvcc) */
}

static const char *base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* why line l conflicts, from one warp b (warp w of block blk; kind: enum ptx_akind, for the
 * name of a plain access): its costliest pass's busiest bank */
static void explain_access(const struct bank_access *b, int kind, unsigned w, const unsigned *blk,
                           struct kp_line *l)
{
    static struct bank_result res;
    if (bank_simulate(b, &res, NULL) != BANK_OK)
        return;
    int pw = 0;
    for (int i = 1; i < res.npasses; i++)
        if (res.pass[i].cost > res.pass[pw].cost)
            pw = i;
    int bank = res.pass[pw].worst_bank;
    if (bank < 0)
        return;
    const struct bank_cell *cell = &res.pass[pw].cell[bank];
    char words[96], lanes[96], what[48], in[32];
    kp_fmt_cell(cell, words, sizeof words, lanes, sizeof lanes);
    static const char *const kinds[] = {"ld.shared", "st.shared", "atom.shared", "", "", ""};
    if (b->instr)
        bank_instr_name(b->instr, b->matrices, b->trans, b->width, in, sizeof in);
    bl_fmt(what, sizeof what, b->instr ? "%s" : "%s %u B", b->instr ? in : kinds[kind % 6],
           (unsigned)b->width);
    bl_msg_set(&l->why, NULL, 0, KEX_WHY, w, blk[0], blk[1], blk[2], what, pw + 1, res.npasses,
               bank, cell->nwords, words, lanes, res.pass[pw].cost);
}

/* why line l conflicts: the worst warp of its instruction with the most conflicts */
static void explain(const struct ptx_agg_pc *p, struct kp_line *l)
{
    struct bank_access b;
    memset(&b, 0, sizeof b);
    b.width = p->width;
    b.mask = p->worst.mask;
    b.op = p->kind == PTX_LD || p->kind == PTX_LDSM ? BANK_LOAD : BANK_STORE;
    b.instr = p->kind == PTX_LDSM ? BANK_LDMATRIX : p->kind == PTX_STSM ? BANK_STMATRIX
              : p->kind == PTX_CPASYNC ? BANK_CPASYNC : BANK_PLAIN;
    b.matrices = p->matrices;
    b.trans = p->trans;
    for (int i = 0; i < 32; i++)
        b.offset[i] = p->worst.addr[i];
    if (p->bypass) { /* cp.async.cg: its own rule's groups, not passes (docs/model.md) */
        struct bank_cg_detail d;
        b.has_src = 1;
        memcpy(b.src, p->worst.src, sizeof b.src);
        int w = bank_cg_wavefronts(&b, &d);
        if (w > 0 && p->worst.wavefronts >= 0)
            bl_msg_set(&l->why, NULL, 0, KEX_WHY_CG, p->worst.warp, p->worst.block[0],
                       p->worst.block[1], p->worst.block[2], w, d.chunks, d.groups, d.mixed);
        return;
    }
    if (p->worst.wavefronts >= 0)
        explain_access(&b, p->kind, p->worst.warp, p->worst.block, l);
}

void kexec_explain_warps(struct kp_result *r)
{
    static const int kind_of[] = {[GPU_KOP_LD] = PTX_LD, [GPU_KOP_ST] = PTX_ST,
                                  [GPU_KOP_ATOM] = PTX_ATOM};
    for (int i = 0; i < r->nlines; i++) {
        struct kp_line *l = &r->line[i];
        if (l->state != KP_OK || l->excess <= 0 || l->why.id != BL_MSG_NONE)
            continue;
        const struct kp_warp *worst = NULL;
        for (int k = 0; k < r->nwarps; k++)
            if (r->warps[k].line == l->line &&
                (!worst || r->warps[k].p.wavefronts > worst->p.wavefronts))
                worst = &r->warps[k];
        if (!worst || worst->p.op == GPU_KOP_LDGSTS) /* .cg or .ca: not told apart here */
            continue;
        struct bank_access b;
        gpu_kernel_pattern_access(&worst->p, 0, &b);
        int kind = worst->p.op >= 0 && worst->p.op <= GPU_KOP_ATOM ? kind_of[worst->p.op] : 0;
        explain_access(&b, kind, (unsigned)worst->p.warp, worst->p.block, l);
        if (l->why.id != BL_MSG_NONE && l->fix.id == BL_MSG_NONE)
            bl_msg_set(&l->fix, NULL, 0, KEX_NO_FIX, l->line);
    }
}

/* the widest LDS (store 0) or STS (1) the compiled code has among sass ("LDS.64 x2, LDS") */
static unsigned sass_width(const char *sass, int store)
{
    unsigned w = 0;
    const char *want = store ? "STS" : "LDS";
    for (const char *p = strstr(sass, want); p; p = strstr(p + 3, want)) {
        unsigned x = !strncmp(p + 3, ".128", 4) ? 16 : !strncmp(p + 3, ".64", 3) ? 8 : 4;
        if (x > w)
            w = x;
    }
    return w;
}

/* where the compiled code has wider plain accesses on a line than 4 bytes, that line's
 * records may merge up to that width (ptxas's side-by-side merging, ptx_agg_merge) */
static int merge_caps(struct ptx_agg *a, const struct ptx_module *m, int k, const char *named,
                      const char *const *sys, const struct kp_result *r)
{
    unsigned next[2] = {0, 0}; /* the cap of the next line with SASS, walking backwards */
    for (int pc = ptx_kernel_ninsn(m, k) - 1; pc >= 0; pc--) {
        struct ptx_frame f = ptx_agg_frame(m, ptx_insn_loc(m, k, (unsigned)pc),
                                           PTX_CHARGE_LEARNER_INNER, sys);
        if (f.line < 1 || (int)f.line > r->nlines ||
            !(bl_name_same(f.file, named) || bl_name_same(base_of(f.file), base_of(named))))
            continue;
        const struct kp_line *l = &r->line[f.line - 1];
        /* a line the compiled code has no shared instruction on (nvcc moved its access into
         * a neighbour's wider one): its records may merge as the next line's, charged there */
        if (l->nsass == 0 && ptx_agg_orphan(a, (unsigned)pc))
            return -1;
        for (int st = 0; st < 2; st++) {
            unsigned w = l->nsass > 0 ? sass_width(l->sass, st) : l->nsass == 0 ? next[st] : 0;
            if (l->nsass > 0)
                next[st] = w;
            if (w > 4 && ptx_agg_merge(a, (unsigned)pc, st, w))
                return -1;
        }
    }
    return 0;
}

/* the op of enum gpu_kernel_op for an executed kind (enum ptx_akind) */
static int op_of(unsigned kind)
{
    static const int op[] = {[PTX_LD] = GPU_KOP_LD, [PTX_ST] = GPU_KOP_ST, [PTX_ATOM] = GPU_KOP_ATOM,
                             [PTX_LDSM] = GPU_KOP_LDSM, [PTX_STSM] = GPU_KOP_STSM,
                             [PTX_CPASYNC] = GPU_KOP_LDGSTS};
    return kind < sizeof op / sizeof op[0] ? op[kind] : GPU_KOP_LD;
}

static void put_warp(struct kp_result *r, int line, const struct ptx_agg_pc *p, int slot)
{
    struct kp_warp *w = &r->warps[r->nwarps++];
    memset(w, 0, sizeof *w);
    w->line = line;
    w->inst = p->inst;
    struct gpu_kernel_pattern *q = &w->p;
    q->pc = p->pc;
    q->slot = slot;
    q->op = op_of(p->kind);
    q->matrices = p->matrices;
    const struct ptx_agg_pattern *t = slot >= 0 ? &p->pat[slot] : &p->worst;
    if (slot >= 0)
        q->count = (uint32_t)t->count;
    q->wavefronts = (uint32_t)t->wavefronts;
    q->width = t->width;
    q->mask = t->mask;
    memcpy(q->block, t->block, sizeof q->block);
    q->warp = t->warp;
    memcpy(q->addr, t->addr, sizeof q->addr);
}

/* the executed warps of line index j of a (its instructions' worst warps, then their first
 * distinct patterns; at most KP_LINE_WARPS) as r's warps of line `line`. cp.async is left
 * out: its patterns keep no global sources, which its price needs. */
static void keep_warps(const struct ptx_agg *a, int j, int line, struct kp_result *r)
{
    if (!a->pcs || !r->warps)
        return;
    int kept = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < a->npcs; i++) {
            const struct ptx_agg_pc *p = &a->pcs[i];
            if (p->line != j || p->kind == PTX_CPASYNC || p->worst.wavefronts < 0 || p->trans)
                continue;
            for (int k = pass ? 0 : -1; k < (pass ? p->npat : 0) && kept < KP_LINE_WARPS; k++) {
                put_warp(r, line, p, k);
                kept++;
            }
        }
}

void kexec_apply_lines(const struct ptx_agg *a, const char *named, struct kp_result *r)
{
    int *from = calloc((size_t)(r->nlines ? r->nlines : 1), sizeof *from);
    free(r->warps);
    r->nwarps = 0;
    r->warps = a->pcs ? calloc((size_t)(a->nlines ? a->nlines : 1) * KP_LINE_WARPS,
                               sizeof *r->warps) : NULL;
    for (int i = 0; i < r->nlines; i++) {
        struct kp_line *l = &r->line[i];
        const struct ptx_agg_line *e = NULL;
        int ej = -1;
        for (int j = 0; j < a->nlines; j++)
            if ((int)a->lines[j].line == l->line &&
                (bl_name_same(a->lines[j].file, named) ||
                 bl_name_same(base_of(a->lines[j].file), base_of(named))))
                e = &a->lines[ej = j];
        if (!e) { /* no executed access: a line the reader said nvcc merged keeps its zeros */
            if (l->state == KP_CANNOT)
                l->state = KP_NONE;
            l->inst = l->wavefronts = l->ideal = l->excess = 0;
            l->reason.id = BL_MSG_NONE;
            l->why.id = l->fix.id = BL_MSG_NONE;
            continue;
        }
        if (e->unmodelled) {
            l->state = KP_CANNOT;
            l->inst = l->wavefronts = l->ideal = l->excess = 0;
            l->why.id = l->fix.id = BL_MSG_NONE;
            bl_msg_set(&l->reason, NULL, 0, KEX_UNPRICED, e->unmodelled);
            continue;
        }
        int was_ok = l->state == KP_OK;
        if (!was_ok) {
            l->why.id = l->fix.id = BL_MSG_NONE;
            l->fix_kind = KP_FIX_NONE;
        }
        l->state = KP_OK;
        l->reason.id = BL_MSG_NONE;
        l->inst = e->inst;
        l->wavefronts = e->wavefronts;
        l->ideal = e->ideal;
        l->excess = e->wavefronts - e->ideal;
        l->ways = e->ways;
        keep_warps(a, ej, l->line, r);
        if (l->excess <= 0) {
            l->why.id = l->fix.id = BL_MSG_NONE;
            l->fix_kind = KP_FIX_NONE;
        } else if ((!was_ok || l->why.id == BL_MSG_NONE) && a->pcs && e->worst_pc < a->npcs) {
            explain(&a->pcs[e->worst_pc], l);
            if (l->fix.id == BL_MSG_NONE)
                bl_msg_set(&l->fix, NULL, 0, KEX_NO_FIX, l->line);
        }
    }
    free(from);
    r->npredicted = r->ncannot = 0;
    for (int i = 0; i < r->nlines; i++) {
        r->npredicted += r->line[i].state == KP_OK;
        r->ncannot += r->line[i].state == KP_CANNOT;
    }
    r->executed = 1;
}

/* ---- the executed figures in the kernel cache ----
 * An execution is a function of the PTX, the launch (grid, block, --smem, --arg, buffers,
 * --fill), the kernel's name, the prediction it amends (the reader's lines from the source
 * and the SASS) and banklab itself: with all of them in the key, a hit gives exactly the lines
 * an execution would. An entry holds the lines the execution changed (index, the line) and
 * the result's counts, its note and its kept warps (struct kp_warp, plain data). */

struct memo {
    struct bl_buf key;
    char name[64];
    int on;
};

static void memo_key(struct memo *mc, const char *ptx, const struct gpu_kernel_request *req,
                     const char *name_expr, const struct kp_result *r)
{
    memset(mc, 0, sizeof *mc);
    struct stat st;
    if (!req->cache_dir[0] || stat("/proc/self/exe", &st))
        return;
    struct bl_buf *k = &mc->key;
    *k = KCACHE_KEY();
    bl_buf_addf(k, "banklab exec 1\nexe %lld %lld.%09ld %llu %zu\n", (long long)st.st_size,
                (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
                (unsigned long long)st.st_ino, sizeof(struct kp_line));
    bl_buf_addf(k, "kernel %s\npath %s\n", name_expr ? name_expr : "", req->path);
    bl_buf_addf(k, "launch %u %u %u %u %u %u %llu %llu %d\n", req->grid[0], req->grid[1],
                req->grid[2], req->block[0], req->block[1], req->block[2], req->smem,
                req->buffer_size, (int)req->fill);
    for (int i = 0; i < req->nargs; i++)
        bl_buf_addf(k, "arg %s\n= %s\n", req->args[i].name, req->args[i].value);
    for (int i = 0; i < req->nbufs; i++)
        bl_buf_addf(k, "buffer %s\n= %s\n", req->bufs[i].name, req->bufs[i].value);
    uint64_t h = bl_hash(BL_HASH_SEED, r->line, (size_t)r->nlines * sizeof *r->line);
    bl_buf_addf(k, "lines %d %016llx\nptx\n", r->nlines, (unsigned long long)h);
    bl_buf_adds(k, ptx);
    if (!k->s || k->failed) {
        bl_buf_release(k);
        memset(mc, 0, sizeof *mc);
        return;
    }
    bl_fmt(mc->name, sizeof mc->name, "%016llx.exec",
           (unsigned long long)bl_hash(BL_HASH_SEED, k->s, k->len));
    mc->on = 1;
}

struct memo_head {
    int nchanged, npredicted, ncannot, nlines, nwarps;
    unsigned long long steps;
    struct bl_msg note;             /* the execution's note (r->exec_note) */
};

/* the entry of mc applied to r: 0, or -1 (none, or not one for these lines) */
static int memo_get(const struct memo *mc, const struct gpu_kernel_request *req,
                    struct kp_result *r)
{
    struct compiled c;
    memset(&c, 0, sizeof c);
    if (!mc->on || kcache_get(req->cache_dir, mc->name, &mc->key, &c))
        return -1;
    struct memo_head h;
    size_t rec = sizeof(int) + sizeof(struct kp_line);
    int ok = c.cubin_size >= sizeof h;
    if (ok) {
        memcpy(&h, c.cubin, sizeof h);
        ok = h.nlines == r->nlines && h.nchanged >= 0 && h.nchanged <= r->nlines &&
             h.nwarps >= 0 && h.nwarps <= (r->nlines ? r->nlines : 1) * KP_LINE_WARPS &&
             c.cubin_size == sizeof h + (size_t)h.nchanged * rec +
                                 (size_t)h.nwarps * sizeof(struct kp_warp);
    }
    for (int i = 0; ok && i < h.nchanged; i++) {
        int at;
        memcpy(&at, c.cubin + sizeof h + (size_t)i * rec, sizeof at);
        ok = at >= 0 && at < r->nlines;
    }
    for (int i = 0; ok && i < h.nchanged; i++) {
        int at;
        const unsigned char *p = c.cubin + sizeof h + (size_t)i * rec;
        memcpy(&at, p, sizeof at);
        memcpy(&r->line[at], p + sizeof at, sizeof(struct kp_line));
    }
    struct kp_warp *w = NULL;
    if (ok && h.nwarps) {
        w = malloc((size_t)h.nwarps * sizeof *w);
        ok = w != NULL;
        if (ok)
            memcpy(w, c.cubin + sizeof h + (size_t)h.nchanged * rec,
                   (size_t)h.nwarps * sizeof *w);
    }
    if (ok) {
        r->npredicted = h.npredicted;
        r->ncannot = h.ncannot;
        r->exec_steps = h.steps;
        r->executed = 1;
        r->exec_note = h.note;
        free(r->warps);
        r->warps = w;
        r->nwarps = h.nwarps;
    }
    free(c.log);
    free(c.cubin);
    return ok ? 0 : -1;
}

/* the lines of r that differ from before[], and r's counts, stored under mc */
static void memo_put(const struct memo *mc, const struct gpu_kernel_request *req,
                     const struct kp_line *before, const struct kp_result *r)
{
    if (!mc->on || !before)
        return;
    struct memo_head h;
    memset(&h, 0, sizeof h);
    h.npredicted = r->npredicted;
    h.ncannot = r->ncannot;
    h.nlines = r->nlines;
    h.nwarps = r->warps ? r->nwarps : 0;
    h.steps = r->exec_steps;
    h.note = r->exec_note;
    size_t rec = sizeof(int) + sizeof(struct kp_line);
    for (int i = 0; i < r->nlines; i++)
        h.nchanged += memcmp(&before[i], &r->line[i], sizeof *before) != 0;
    size_t wbytes = (size_t)h.nwarps * sizeof(struct kp_warp);
    unsigned char *b = malloc(sizeof h + (size_t)h.nchanged * rec + wbytes);
    if (!b)
        return;
    memcpy(b, &h, sizeof h);
    unsigned char *p = b + sizeof h;
    for (int i = 0; i < r->nlines; i++)
        if (memcmp(&before[i], &r->line[i], sizeof *before)) {
            memcpy(p, &i, sizeof i);
            memcpy(p + sizeof i, &r->line[i], sizeof *before);
            p += rec;
        }
    if (wbytes) {
        memcpy(p, r->warps, wbytes);
        p += wbytes;
    }
    struct kcompile_in in;
    memset(&in, 0, sizeof in);
    in.cache_dir = req->cache_dir;
    kcache_put(&in, mc->name, &mc->key, "", "", b, (size_t)(p - b), NULL);
    free(b);
}

static void note(struct kp_result *r, const struct bl_err *err)
{
    bl_err_msg(err, &r->exec_note);
}

/* One execution of a kernel-only file's PTX, what kexec_apply applies: a function of the PTX,
 * the request, the kernel and the SASS widths of the lines (merge_caps), nothing else of the
 * prediction; run here or, started by kexec_prefetch, on a thread of its own. */
struct run {
    struct gpu_kernel_request req;
    const char *src;
    size_t len;
    char name_expr[GPU_KERNEL_TEXT];
    char *text;                       /* the PTX (NULL: make_ptx failed, err says why) */
    char named[PATH_MAX], root[PATH_MAX + 2];
    struct kp_result caps;            /* nlines and the lines' SASS: merge_caps reads them */
    struct ksrc_kernel ks[KSRC_MAX_KERNELS];
    struct ptx_module *m;
    struct exec_ctx c;
    int ran;                          /* 0: c.agg holds the executed lines */
    uint64_t steps;
    struct bl_err err;
    atomic_int stop;
    pthread_t thread;
    int threaded;
};

static struct run *run_new(const char *src, size_t len, const struct gpu_kernel_request *req,
                           const char *name_expr, const struct kp_result *r)
{
    struct run *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->req = *req;
    x->src = src;
    x->len = len;
    bl_fmt(x->name_expr, sizeof x->name_expr, "%s", name_expr ? name_expr : "");
    x->ran = -1;
    bl_err_clear(&x->err);
    x->caps.nlines = r->nlines;
    x->caps.line = malloc((size_t)(r->nlines ? r->nlines : 1) * sizeof *r->line);
    if (!x->caps.line) {
        free(x);
        return NULL;
    }
    memcpy(x->caps.line, r->line, (size_t)r->nlines * sizeof *r->line);
    x->text = make_ptx(src, len, req, name_expr, x->named, sizeof x->named, x->root,
                       sizeof x->root - 1, &x->err);
    return x;
}

static void run_free(struct run *x)
{
    if (!x)
        return;
    if (x->threaded) {
        atomic_store(&x->stop, 1);
        pthread_join(x->thread, NULL);
    }
    ptx_agg_free(&x->c.agg);
    for (int i = 0; i < KSRC_MAX_PARAMS; i++)
        free(x->c.buf[i]);
    ptx_module_free(x->m);
    free(x->caps.line);
    free(x->text);
    free(x);
}

/* the execution itself: x->ran 0, or x->err */
static void run_exec(struct run *x)
{
    const struct gpu_kernel_request *req = &x->req;
    const char *name_expr = x->name_expr[0] ? x->name_expr : NULL;
    struct bl_err *err = &x->err;
    x->m = x->text ? ptx_module_parse(x->text, strlen(x->text), err) : NULL;
    int nk = 0, k = -1;
    const struct ksrc_kernel *sk = x->m ? src_kernel(x->src, x->len, name_expr, x->ks, &nk) : NULL;
    if (x->m && ((k = ptx_kernel_of(x->m, name_expr)) < 0 || !sk))
        bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KEX_NO_KERNEL, name_expr);
    else if (x->m && ptx_kernel_nparams(x->m, k) != sk->nall)
        bl_fail(err, GPU_KERNEL_EINPUT, BL_NOWHERE, KEX_PARAMS, name_expr,
                ptx_kernel_nparams(x->m, k), sk->nall);
    struct exec_ctx *c = &x->c;
    unsigned char scal[KSRC_MAX_PARAMS][8];
    void *args[KSRC_MAX_PARAMS];
    if (!x->m || bl_err_failed(err) || bind(req, sk, c, scal, args, err))
        return;
    c->nbufs = sk->nparams;
    struct ptx_launch L;
    memset(&L, 0, sizeof L);
    memcpy(L.grid, req->grid, sizeof L.grid);
    memcpy(L.block, req->block, sizeof L.block);
    L.dyn_smem = (size_t)req->smem;
    L.args = args;
    L.sink = sink;
    L.ctx = c;
    L.global_ok = global_ok;
    L.lane_steps = &x->steps;
    L.stop = &x->stop;
    /* the toolkit's headers and the host's: a header's access is charged to its caller's line
       (a wrapper nvcc outside its toolkit: ptx_agg knows nvcc's own "bin/../" paths) */
    const char *sys[] = {"/usr/include/", "/usr/lib/gcc/", x->root[0] ? x->root : NULL, NULL};
    if (x->root[0])
        strcat(x->root, "/");
    /* the PTX names the file as nvcc was told it (its real bytes, masked where they are
       not UTF-8): matched with the real path (bl_name_same) */
    if (ptx_agg_init(&c->agg, x->m, k) || merge_caps(&c->agg, x->m, k, req->path, sys, &x->caps))
        bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, PAT_OUT_OF_MEMORY);
    else if (ptx_run(x->m, k, &L, err) == 0 &&
             ptx_agg_lines(&c->agg, PTX_CHARGE_LEARNER_INNER, sys) == 0)
        x->ran = 0;
    else if (!bl_err_failed(err))
        bl_fail(err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, PAT_OUT_OF_MEMORY);
}

static void *run_thread(void *arg)
{
    run_exec(arg);
    return NULL;
}

/* the execution kexec_prefetch started, for the kexec_apply that follows it */
static struct run *prefetched;

void kexec_prefetch(const char *src, size_t len, const struct gpu_kernel_request *req,
                    const char *name_expr, const struct kp_result *r)
{
    run_free(prefetched);
    prefetched = NULL;
    if (kexec_has_main(src, len))
        return;
    struct run *x = run_new(src, len, req, name_expr, r);
    if (x && x->text && pthread_create(&x->thread, NULL, run_thread, x) == 0)
        x->threaded = 1;
    if (x && !x->threaded) {
        run_free(x);
        return;
    }
    prefetched = x;
}

/* the prefetched execution when it is of this file, request, kernel and lines' SASS (still
 * running: kexec_apply joins it, or stops it when the kept figures answer) */
static struct run *take_prefetched(const char *src, size_t len,
                                   const struct gpu_kernel_request *req, const char *name_expr,
                                   const struct kp_result *r)
{
    struct run *x = prefetched;
    prefetched = NULL;
    if (!x)
        return NULL;
    int same = x->src == src && x->len == len && !memcmp(&x->req, req, sizeof *req) &&
               !strcmp(x->name_expr, name_expr ? name_expr : "") && x->caps.nlines == r->nlines;
    for (int i = 0; same && i < r->nlines; i++)
        same = x->caps.line[i].nsass == r->line[i].nsass &&
               !strcmp(x->caps.line[i].sass, r->line[i].sass);
    if (!same) {
        run_free(x);
        return NULL;
    }
    return x;
}

int kexec_apply(const char *src, size_t len, const struct gpu_kernel_request *req,
                const char *name_expr, struct kp_result *r)
{
    struct run *pre = copy_now ? NULL : take_prefetched(src, len, req, name_expr, r);
    struct run *x = pre ? pre : run_new(src, len, req, name_expr, r);
    if (!x) {
        struct bl_err err;
        bl_fail(&err, GPU_KERNEL_ESYSTEM, BL_NOWHERE, PAT_OUT_OF_MEMORY);
        note(r, &err);
        return -2;
    }
    struct memo mc = {0};
    if (x->text)
        memo_key(&mc, x->text, req, name_expr, r);
    if (x->text && memo_get(&mc, req, r) == 0) {
        run_free(x);
        bl_buf_release(&mc.key);
        return 0;
    }
    struct kp_line *before = mc.on ? malloc((size_t)(r->nlines ? r->nlines : 1) * sizeof *before)
                                   : NULL;
    if (before)
        memcpy(before, r->line, (size_t)r->nlines * sizeof *before);
    if (pre) {
        pthread_join(x->thread, NULL);
        x->threaded = 0;
    } else {
        run_exec(x);
    }
    int rc = -1;
    if (x->ran == 0) {
        kexec_apply_lines(&x->c.agg, req->path, r);
        r->exec_steps = x->steps;
        rc = 0;
        memo_put(&mc, req, before, r);
    }
    if (rc) {
        note(r, &x->err);
        /* not the kernel's doing: no nvcc, out of memory, the compile's guard */
        if (x->err.status == GPU_KERNEL_ESYSTEM || x->err.status == GPU_KERNEL_ETIMEOUT ||
            x->err.why.id == KRN_COMPILER_MEMORY)
            rc = -2;
    }
    run_free(x);
    free(before);
    bl_buf_release(&mc.key);
    return rc;
}

/* text written where nvcc will read it, named as req's file: in
 * CACHE/fixes/HASH/ (HASH of the file's real path and the text, so the same copy compiles and
 * runs once through the kernel cache), or in a private temporary directory (*tmp 1: remove
 * dir after) without a cache. 0 with the file's path, -1. */
static int write_copy(const struct gpu_kernel_request *req, const char *text, size_t tlen,
                      char *dir, size_t dsz, int *tmp, char *path, size_t psz)
{
    char real[PATH_MAX], part[PATH_MAX + 32];
    if (!realpath(req->path, real))
        bl_fmt(real, sizeof real, "%s", req->path);
    const char *base = strrchr(real, '/');
    base = base ? base + 1 : real;
    *tmp = !req->cache_dir[0];
    if (*tmp && sys_tmp_make("fix", dir, dsz))
        return -1;
    if (!*tmp) {
        struct bl_err err;
        bl_err_clear(&err);
        int fd = kcache_dir_open(req->cache_dir, &err);
        if (fd < 0)
            return -1;
        close(fd);
        uint64_t h = bl_hash(bl_hash(BL_HASH_SEED, real, strlen(real) + 1), text, tlen);
        bl_fmt(dir, dsz, "%s/fixes", req->cache_dir);
        (void)mkdir(dir, 0700);
        bl_fmt(dir, dsz, "%s/fixes/%016llx", req->cache_dir, (unsigned long long)h);
        (void)mkdir(dir, 0700);
    }
    if (bl_fmt(path, psz, "%s/%s", dir, base) >= psz - 1)
        return -1;
    bl_fmt(part, sizeof part, "%s.tmp-%ld", path, (long)getpid());
    int fd = open(part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < tlen) {
        ssize_t w = write(fd, text + off, tlen - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    int ok = off == tlen;
    ok = close(fd) == 0 && ok && rename(part, path) == 0;
    if (!ok)
        unlink(part);
    return ok ? 0 : -1;
}

int kexec_apply_copy(const char *text, size_t tlen, const struct gpu_kernel_request *req,
                     const char *name_expr, struct kp_result *r)
{
    static struct gpu_kernel_request cq;
    char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2], real[PATH_MAX];
    int tmp = 0;
    cq = *req;
    if (write_copy(req, text, tlen, dir, sizeof dir, &tmp, path, sizeof path) ||
        bl_fmt(cq.path, sizeof cq.path, "%s", path) >= sizeof cq.path - 1) {
        bl_msg_set(&r->exec_note, NULL, 0, KEX_NO_COPY, req->path);
        if (tmp)
            sys_tmp_remove(dir);
        return -2;
    }
    char own[PATH_MAX];   /* its own directory's headers, as the file has them */
    knvcc_where(req->path, real, sizeof real, own, sizeof own);
    if (cq.nflags < GPU_KERNEL_MAX_FLAGS)
        bl_fmt(cq.flags[cq.nflags++], sizeof cq.flags[0], "-I%s", own);
    copy_now = 1;
    int rc = kexec_apply(text, tlen, &cq, name_expr, r);
    copy_now = 0;
    if (tmp)
        sys_tmp_remove(dir);
    return rc;
}
