/* test_sanview.c: the warps the kernel view's grid shows, from both engines, without a GPU.
 * Measured: every recorded sample of tests/data/sanitize read back the way the kernel view
 * reads a recording (krec_read of NAME.run.json, which run_json.py wrote from NAME.json and
 * NAME.patterns): for every conflicting line of every launch, its instruction's worst warp is
 * there and conflicts, its grid through the one path to the screen (gpu_kernel_pattern_access,
 * bank_simulate, grid_text_write) equals the grid of the same recorded addresses through the
 * sanitizer route's pattern lines read back (san_read_pattern, sanpat_test.h) and its own
 * san_pattern_access, and its wavefronts are
 * those the device callbacks costed. Executed: assets/kernels/transpose_seed.cu and vectors.cu
 * run on the CPU (kexec_apply, nvcc needed: skipped without it): each conflicting line keeps
 * its worst warp and its patterns (their counts add up to the line's warps), the worst's grid
 * is the model's for its addresses, the transpose's 32-way line matches the GPU's worst warp
 * of the same line (tests/gpu/programs/transpose.cu line 21) in cost, and a line nvcc widened
 * to LDS.128 or STS.128 keeps 16-byte warps of 4 passes; a program's run (banklab's CUDA
 * runtime's records) keeps each line's warps, bounded; and the programs transpose, vectors and
 * strided run on that runtime give every line's worst warp the cost the GPU's had. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/compile/compile.h"
#include "../../src/model/bank.h"
#include "../../src/predict/exec.h"
#include "../../src/predict/predict.h"
#include "../../src/predict/program.h"
#include "../../src/render/grid_text.h"
#include "../../src/sanitize/sanitize.h"
#include "sanpat_test.h"
#include "../../src/store/files.h"
#include "../../src/store/krecord.h"

#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "tests/data"
#endif

/* the recordings: the programs of tests/gpu/programs (and eight.cu), and kernel_NAME: each
 * kernel-only file of assets/kernels launched once by `banklab kernel --launch-only` under
 * banklab run's sanitizer route (docs/runs/h100-2026-12-07.md, call 20) */
static const char *const programs[] = {
    "eight", "many", "ldmatrix", "vectors", "stores", "carve", "strided", "transpose",
    "kernel_atomics", "kernel_carve", "kernel_cp_async", "kernel_ldmatrix", "kernel_stores",
    "kernel_strided", "kernel_transpose_seed", "kernel_transpose_seed_padded", "kernel_vectors"};

/* the grid of acc as text (NULL when the model refuses it); *wf its wavefronts */
static char *grid_of(const struct bank_access *acc, int *wf, int *passes)
{
    static struct bank_result r;
    if (bank_simulate(acc, &r, NULL) != BANK_OK)
        return NULL;
    *wf = r.wavefronts;
    if (passes)
        *passes = r.npasses;
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    struct grid_text_options opt;
    grid_text_options_init(&opt);
    opt.ascii = 1;
    grid_text_write(m, &r, acc->width, acc->op, acc->mask, &opt);
    fclose(m);
    return buf;
}

/* the recorded worst warp of symbol's instruction at pc, read as the sanitizer route reads it */
static int recorded_worst(const char *prog, const char *symbol, uint32_t pc, struct san_pat *out)
{
    char path[256], line[4096], name[256];
    snprintf(path, sizeof path, TEST_DATA_DIR "/sanitize/%s.patterns", prog);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        long launch;
        uint32_t at;
        int slot;
        struct san_pat q;
        if (!san_read_pattern(line, name, sizeof name, &launch, &at, &slot, &q) &&
            !strcmp(name, symbol) && at == pc && slot < 0) {
            *out = q;
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static void test_recorded(void **state)
{
    (void)state;
    int checked = 0;
    for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++) {
        char path[256];
        snprintf(path, sizeof path, TEST_DATA_DIR "/sanitize/%s.run.json", programs[p]);
        /* each launch of the recording: its kernel in its file */
        size_t len = 0;
        char *text = files_read(path, 1 << 24, &len, NULL);
        assert_non_null(text);
        for (const char *k = strstr(text, "\n   \"kernel\": \""); k;
             k = strstr(k + 1, "\n   \"kernel\": \"")) {
            char kernel[128], file[512];
            assert_int_equal(sscanf(k, "\n   \"kernel\": \"%127[^\"]", kernel), 1);
            const char *fl = strstr(k, "\"file\": \"");
            assert_non_null(fl);
            assert_int_equal(sscanf(fl, "\"file\": \"%511[^\"]", file), 1);
            struct gpu_kernel_result res;
            struct bl_err err = {0};
            assert_int_equal(krec_read(path, file, kernel, &res, &err), 0);
            for (int i = 0; i < res.nlines; i++) {
                const struct gpu_kernel_line *ln = &res.lines[i];
                if (ln->wavefronts <= ln->ideal)
                    continue;
                int worst_ways = 0;
                for (int j = 0; j < res.ninsts; j++) {
                    const struct gpu_kernel_inst *in = &res.insts[j];
                    if (in->file != ln->file || in->line != ln->line)
                        continue;
                    const struct gpu_kernel_pattern *w = NULL;
                    for (int q = 0; q < res.npats; q++)
                        if (res.pats[q].pc == in->pc && res.pats[q].slot < 0)
                            w = &res.pats[q];
                    assert_non_null(w);
                    struct san_pat sp;
                    assert_true(recorded_worst(programs[p], res.lowered, in->pc, &sp));
                    struct bank_access a1, a2;
                    gpu_kernel_pattern_access(w, 0, &a1);
                    san_pattern_access(&sp, &a2);
                    int wf1 = 0, wf2 = 0, np = 0;
                    char *g1 = grid_of(&a1, &wf1, &np), *g2 = grid_of(&a2, &wf2, NULL);
                    assert_non_null(g1);
                    assert_non_null(g2);
                    assert_string_equal(g1, g2);
                    assert_int_equal(wf1, (int)sp.wavefronts);
                    if (wf1 > np)
                        worst_ways = 1;
                    free(g1);
                    free(g2);
                }
                assert_true(worst_ways);        /* a conflicting line: its worst warp shows it */
                checked++;
            }
            gpu_kernel_result_done(&res);
        }
        free(text);
    }
    print_message("%d conflicting lines of the recorded samples checked\n", checked);
    assert_true(checked >= 20);
}

/* kernel file path executed on the CPU into *r (0), or 1 when nvcc is missing */
static int execute(const char *path, struct kp_result *r)
{
    size_t len = 0;
    char *src = files_read(path, 1 << 20, &len, NULL);
    assert_non_null(src);
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    snprintf(req.path, sizeof req.path, "%s", path);
    char why[GPU_KERNEL_TEXT];
    assert_int_equal(gpu_kernel_file_options(&req, src, len, why, sizeof why), 0);
    static char names[8][GPU_KERNEL_TEXT];
    int tmpl[8];
    assert_int_equal(kp_kernels(src, len, names, tmpl, 8), 1);
    snprintf(req.name, sizeof req.name, "%s", names[0]);
    struct bl_msg cwhy = {0}, kwhy = {0};
    struct ksl_cubin *c = ksl_compile(src, len, &req, req.name, NULL, &cwhy);
    if (!c) {
        free(src);
        return 1;
    }
    struct kp_sass sass = {0};
    assert_int_equal(ksl_kernel(c, req.name, src, len, &sass, &kwhy), 0);
    assert_int_equal(kp_predict_sass(src, len, &req, &sass, r, NULL), 0);
    assert_int_equal(kexec_apply(src, len, &req, req.name, r), 0);
    assert_true(r->executed);
    kp_sass_free(&sass);
    ksl_free(c);
    free(src);
    return 0;
}

/* the executed warps of line l: the worst's grid is the model's for its addresses, the
 * patterns' counts add up to at most the line's warps (exact: to all of them, when no pattern
 * was left out); returns the worst */
static const struct kp_warp *check_line(const struct kp_result *r, const struct kp_line *l,
                                        int exact)
{
    const struct kp_warp *worst = NULL;
    double counted = 0;
    for (int i = 0; i < r->nwarps; i++) {
        const struct kp_warp *w = &r->warps[i];
        if (w->line != l->line)
            continue;
        if (w->p.slot < 0 && (!worst || w->p.wavefronts > worst->p.wavefronts))
            worst = w;
        else if (w->p.slot >= 0)
            counted += w->p.count;
        struct bank_access acc;
        gpu_kernel_pattern_access(&w->p, 0, &acc);
        int wf = 0;
        char *g = grid_of(&acc, &wf, NULL);
        assert_non_null(g);
        assert_int_equal(wf, (int)w->p.wavefronts);
        free(g);
    }
    assert_non_null(worst);
    assert_true(exact ? counted == l->inst : counted > 0 && counted <= l->inst);
    return worst;
}

static void test_executed(void **state)
{
    (void)state;
    struct kp_result r;
    if (execute("assets/kernels/transpose_seed.cu", &r)) {
        skip();
        return;
    }
    int conflicting = 0;
    for (int i = 0; i < r.nlines; i++) {
        const struct kp_line *l = &r.line[i];
        if (l->state != KP_OK || l->inst <= 0)
            continue;
        const struct kp_warp *w = check_line(&r, l, 1);
        if (l->excess > 0) {
            conflicting++;
            struct san_pat gpu;             /* the GPU's worst warp of the same line */
            assert_true(recorded_worst("transpose", "_Z9transposePfS_i", 0x190, &gpu));
            assert_int_equal(w->p.wavefronts, gpu.wavefronts);
            assert_int_equal(w->p.wavefronts, 32);
        }
    }
    assert_int_equal(conflicting, 1);
    kp_free(&r);

    assert_int_equal(execute("assets/kernels/vectors.cu", &r), 0);
    int wide = 0;
    for (int i = 0; i < r.nlines; i++) {
        const struct kp_line *l = &r.line[i];
        if (l->state != KP_OK || l->inst <= 0)
            continue;
        const struct kp_warp *w = check_line(&r, l, 1);
        if (strstr(l->sass, "LDS.128") || strstr(l->sass, "STS.128")) {
            struct bank_access acc;
            gpu_kernel_pattern_access(&w->p, 0, &acc);
            int wf = 0, passes = 0;
            char *g = grid_of(&acc, &wf, &passes);
            assert_int_equal(w->p.width, 16);
            assert_int_equal(passes, 4);
            free(g);
            wide++;
        }
    }
    assert_true(wide >= 1);
    kp_free(&r);
}

/* every kernel of assets/kernels that a recorded sample runs too: each executed line keeps
 * its warps, the worst's grid the model's for its addresses */
static void test_executed_all(void **state)
{
    (void)state;
    static const char *const files[] = {"strided", "carve", "ldmatrix", "stores", "vectors",
                                        "transpose_seed"};
    int lines = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[128];
        snprintf(path, sizeof path, "assets/kernels/%s.cu", files[f]);
        struct kp_result r;
        if (execute(path, &r)) {
            skip();
            return;
        }
        for (int i = 0; i < r.nlines; i++)
            if (r.line[i].state == KP_OK && r.line[i].inst > 0 && r.line[i].excess > 0) {
                check_line(&r, &r.line[i], 0);
                lines++;
            }
        kp_free(&r);
    }
    print_message("%d conflicting executed lines checked\n", lines);
    assert_true(lines >= 6);
}

/* a program's run: the runtime's warp records (xrt_out.c) kept with their line, at most
 * KP_LINE_WARPS of a line, and handed to the prediction of the file's lines */
static void test_program_records(void **state)
{
    (void)state;
    char text[16384];
    size_t o = (size_t)snprintf(text, sizeof text,
                                "launch 1 0 2 1 1 64 1 1 0 _Z1kPf\n"
                                "line 7 4 128 4 32 0 ld /d/k.cu\n");
    for (int k = -1; k < 12; k++) {     /* a worst and 12 patterns: more than are kept */
        o += (size_t)snprintf(text + o, sizeof text - o, "warp 9 %d %d 4 32 ld 4 0 ffffffff 1 0 0 %d",
                              k < 0 ? -1 : k, k < 0 ? 0 : 1, k < 0 ? 1 : k);
        for (int l = 0; l < 32; l++)
            o += (size_t)snprintf(text + o, sizeof text - o, " %x", 128 * l + 4 * (k + 1));
        o += (size_t)snprintf(text + o, sizeof text - o, "\n");
    }
    o += (size_t)snprintf(text + o, sizeof text - o, "line 9 4 4 4 1 0 st /d/k.cu\nend 1\n");
    struct kxrt_result run;
    memset(&run, 0, sizeof run);
    assert_int_equal(kxrt_parse(text, o, "/d/k.cu", &run), 0);
    assert_int_equal(run.nlaunches, 1);
    const struct kxrt_launch *l = &run.launches[0];
    assert_int_equal(l->nlines, 2);
    const struct kxrt_line *seven = l->lines[0].line == 7 ? &l->lines[0] : &l->lines[1];
    const struct kxrt_line *nine = seven == &l->lines[0] ? &l->lines[1] : &l->lines[0];
    assert_int_equal(seven->nwarps, KP_LINE_WARPS);
    assert_int_equal(nine->nwarps, 0);
    const struct kp_warp *w = &seven->warps[0];
    assert_int_equal(w->p.slot, -1);
    assert_int_equal(w->p.wavefronts, 32);
    assert_int_equal(w->p.block[0], 1);
    assert_int_equal(w->p.warp, 1);
    assert_int_equal(w->p.addr[31], 128 * 31);
    assert_true(w->inst == 4);
    struct bank_access acc;
    gpu_kernel_pattern_access(&w->p, 0, &acc);
    int wf = 0;
    char *g = grid_of(&acc, &wf, NULL);
    assert_int_equal(wf, 32);
    free(g);
    assert_int_equal(seven->warps[1].p.count, 1);
    assert_int_equal(seven->warps[1].p.addr[1], 128 + 4);
    kxrt_done(&run);
}

/* the largest worst-warp cost kept for line of a result's file 0, -1 when none */
static int recorded_line_worst(const struct gpu_kernel_result *res, int line)
{
    int best = -1;
    for (int j = 0; j < res->ninsts; j++)
        for (int q = 0; q < res->npats && res->insts[j].file == 0 && res->insts[j].line == line;
             q++)
            if (res->pats[q].pc == res->insts[j].pc && res->pats[q].slot < 0 &&
                (int)res->pats[q].wavefronts > best)
                best = (int)res->pats[q].wavefronts;
    return best;
}

/* the programs of tests/gpu/programs the samples recorded, run without a GPU on banklab's CUDA
 * runtime (build/xrt): on every line with a recorded worst warp the executed worst warp costs
 * what the GPU's did (nvcc needed: skipped without it) */
static void test_programs_agree(void **state)
{
    (void)state;
    static const char *const progs[] = {"transpose", "vectors", "strided"};
    char dir[4096];
    setenv("BANKLAB_XRT_DIR", "build/xrt", 0);
    if (kxrt_lib_dir(dir, sizeof dir) != 0) {
        skip();
        return;
    }
    int lines = 0;
    for (size_t p = 0; p < sizeof progs / sizeof progs[0]; p++) {
        char path[256], rec[256];
        snprintf(path, sizeof path, "tests/gpu/programs/%s.cu", progs[p]);
        snprintf(rec, sizeof rec, TEST_DATA_DIR "/sanitize/%s.run.json", progs[p]);
        struct gpu_kernel_request req;
        gpu_kernel_request_init(&req);
        snprintf(req.path, sizeof req.path, "%s", path);
        struct kxrt_result run;
        struct bl_err err = {0};
        memset(&run, 0, sizeof run);
        if (kxrt_run(path, &req, dir, 120, NULL, &run, &err) != 0) {   /* no nvcc */
            skip();
            return;
        }
        for (int i = 0; i < run.nlaunches; i++) {
            const struct kxrt_launch *l = &run.launches[i];
            struct gpu_kernel_result res;
            char name[GPU_KERNEL_TEXT];
            ksrc_base_name(l->kernel, name, sizeof name);
            char *paren = strchr(name, '(');
            if (paren)
                *paren = 0;
            if (krec_read(rec, path, name, &res, &err) != 0)
                continue;                       /* a launch the recording does not have */
            for (int k = 0; k < l->nlines; k++) {
                const struct kxrt_line *x = &l->lines[k];
                int gpu = recorded_line_worst(&res, x->line), cpu = -1;
                if (!x->in_file || gpu < 0)
                    continue;
                for (int w = 0; w < x->nwarps; w++)
                    if (x->warps[w].p.slot < 0 && (int)x->warps[w].p.wavefronts > cpu)
                        cpu = (int)x->warps[w].p.wavefronts;
                if (cpu != gpu)
                    print_message("%s line %d: executed worst %d, measured worst %d\n",
                                  progs[p], x->line, cpu, gpu);
                assert_int_equal(cpu, gpu);
                lines++;
            }
            gpu_kernel_result_done(&res);
        }
        kxrt_done(&run);
    }
    print_message("%d lines of programs: executed worst warps cost what the GPU's did\n", lines);
    assert_true(lines >= 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded),
        cmocka_unit_test(test_executed),
        cmocka_unit_test(test_executed_all),
        cmocka_unit_test(test_program_records),
        cmocka_unit_test(test_programs_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
