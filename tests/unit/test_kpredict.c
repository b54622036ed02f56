/* test_kpredict.c: the model's prediction of every line of a kernel (src/predict/predict.c)
 * against counts worked out by hand in the comments: every warp of every block that executes
 * a line, a guard taking lanes (and whole warps) out, loops with their trips (a constant
 * count, a block-stride loop, a halving reduction), a line whose text depends on blockIdx,
 * the reasons for lines the model cannot express, the why of a conflicting line, and the fix
 * (padding, a swizzle) with the patched text it writes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/predict/exec.h"
#include "../../src/predict/predict.h"
#include "../../src/compile/compile.h"
#ifdef BANKLAB_GPU_CUDA /* the measuring routes' CUPTI code: a GPU=cuda build only */
#include "../../src/kmeasure/cuda_sassm.h"
#endif
#include "hexfile_test.h"

/* T: a message of the prediction rendered in lang (one of four buffers, in turn) */
static const char *T(const struct bl_msg *m, enum bl_lang lang)
{
    static char buf[4][1024];
    static int at;
    at = (at + 1) % 4;
    bl_msg_render(m, lang, buf[at], sizeof buf[at]);
    return buf[at];
}

static struct kp_result R;

static void predict(const char *src, unsigned gx, unsigned bx, unsigned by, const char *arg)
{
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    req.grid[0] = gx;
    req.block[0] = bx;
    req.block[1] = by;
    if (arg) {
        const char *eq = strchr(arg, '=');
        snprintf(req.args[0].name, sizeof req.args[0].name, "%.*s", (int)(eq - arg), arg);
        snprintf(req.args[0].value, sizeof req.args[0].value, "%s", eq + 1);
        req.nargs = 1;
    }
    struct bl_err err = {0};
    kp_free(&R);
    assert_int_equal(kp_predict_sass(src, strlen(src), &req, NULL, &R, &err), 0);
    kp_fixes_exec(src, strlen(src), &req, NULL, NULL, NULL, &R);
}

static void figures(int line, double inst, double wavefronts, double ideal, int ways)
{
    const struct kp_line *l = &R.line[line - 1];
    if (l->state != KP_OK)
        fail_msg("line %d not predicted: %s", line, T(&l->reason, BL_LANG_EN));
    assert_true(l->inst == inst);
    assert_true(l->wavefronts == wavefronts);
    assert_true(l->ideal == ideal);
    assert_true(l->excess == wavefronts - ideal);
    assert_int_equal(l->ways, ways);
}

/* the seed transpose: 32 x 32 blocks of 32 x 32 threads = 1024 blocks x 32 warps = 32768
 * warp instructions per line; the row store 1 wavefront each, the column load 32 */
static const char transpose[] =
    "__global__ void transpose(float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float tile[32][32];\n"
    "    int x = blockIdx.x * 32 + threadIdx.x;\n"
    "    int y = blockIdx.y * 32 + threadIdx.y;\n"
    "    tile[threadIdx.y][threadIdx.x] = in[y * n + x];\n"       /* 6 */
    "    __syncthreads();\n"
    "    out[x * n + y] = tile[threadIdx.x][threadIdx.y];\n"      /* 8 */
    "}\n";

static void test_transpose(void **state)
{
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    req.grid[0] = req.grid[1] = 32;
    req.block[0] = req.block[1] = 32;
    snprintf(req.args[0].name, sizeof req.args[0].name, "n");
    snprintf(req.args[0].value, sizeof req.args[0].value, "1024");
    req.nargs = 1;
    struct bl_err err = {0};
    kp_free(&R);
    assert_int_equal(kp_predict_sass(transpose, strlen(transpose), &req, NULL, &R, &err), 0);
    kp_fixes_exec(transpose, strlen(transpose), &req, NULL, NULL, NULL, &R);
    figures(6, 32768, 32768, 32768, 1);
    figures(8, 32768, 1048576, 32768, 32);
    assert_int_equal(R.line[3].state, KP_NONE);   /* int x = ...: no shared memory */
    /* warp 0: lane l reads word 32 l: all in bank 0 */
    assert_non_null(strstr(T(&R.line[7].why, BL_LANG_EN), "bank 0 serves 32 different words "
                                                 "(0, 32, 64, …, 992) to lanes 0-31: 32-way"));
    assert_non_null(strstr(T(&R.line[7].why, BL_LANG_ZH), "32 路冲突"));
    assert_string_equal(T(&R.line[7].fix, BL_LANG_EN),
                        "note: declare tile[32][33]: line 8 becomes 1-way, line 6 stays 1-way");
    assert_int_equal(kp_worst_fixable(&R), 8);
    size_t n;
    char *p = kp_patch(transpose, strlen(transpose), &R, 8, &n);
    assert_non_null(p);
    assert_non_null(strstr(p, "__shared__ float tile[32][33];\n"));
    assert_int_equal(n, strlen(transpose) + 0);       /* "32" became "33" */
    free(p);
    (void)state;
}

/* only: the lines an execution found conflicting get a fix (a program's run: each candidate
 * one nvcc); a conflicting line left out keeps no fix and no reason for none */
static void test_fixes_only(void **state)
{
    (void)state;
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    req.grid[0] = req.grid[1] = 32;
    req.block[0] = req.block[1] = 32;
    snprintf(req.args[0].name, sizeof req.args[0].name, "n");
    snprintf(req.args[0].value, sizeof req.args[0].value, "1024");
    req.nargs = 1;
    unsigned char only[16] = {0};
    kp_free(&R);
    assert_int_equal(kp_predict_sass(transpose, strlen(transpose), &req, NULL, &R, NULL), 0);
    assert_true(R.line[7].excess > 0);
    kp_fixes_exec(transpose, strlen(transpose), &req, NULL, NULL, only, &R);
    assert_int_equal(R.line[7].fix.id, BL_MSG_NONE);
    assert_int_equal(R.line[7].fix_kind, KP_FIX_NONE);
    only[7] = 1;
    kp_fixes_exec(transpose, strlen(transpose), &req, NULL, NULL, only, &R);
    assert_int_equal(R.line[7].fix_kind, KP_FIX_PAD);
    assert_int_equal(R.line[7].fix_unchecked, 0);
}

/* a guard: block 64, grid 3; only lanes 0-15 of warp 0 pass threadIdx.x < 16 (warp 1 has no
 * lane left and does not execute the line): per block 1 instruction, 16 words of bank 0 =
 * 16 wavefronts; 3 blocks: inst 3, wavefronts 48, ideal 3; padding by 1 spreads them */
static const char guard[] =
    "__global__ void col(float *out)\n"
    "{\n"
    "    __shared__ float m[32][32];\n"
    "    if (threadIdx.x < 16)\n"
    "        out[threadIdx.x] = m[threadIdx.x][0];\n"     /* 5 */
    "}\n";

static void test_guard(void **state)
{
    predict(guard, 3, 64, 1, NULL);
    figures(5, 3, 48, 3, 16);
    assert_string_equal(T(&R.line[4].fix, BL_LANG_EN), "note: declare m[32][33]: line 5 becomes 1-way");
    (void)state;
}

/* loops, block 256, grid 2:
 * line 5: for (i = t; i < 1056; i += 256): 4 trips for every thread, a 5th for t < 32 (warp
 *   0 only): 8 * 4 + 1 = 33 per block, 66 in all, conflict free;
 * line 8: the halving reduction, k = 128, 64, ..., 1: warps with t < k: 4 + 2 + 1 + 1 * 5 =
 *   12 warp trips per block, three accesses each (s[t], s[t + k] and the store of +=):
 *   36 per block, 72 in all, one wavefront each;
 * line 10: a constant trip count, j < 4: 8 warps * 4 trips * 2 blocks = 64 instructions,
 *   stride 2: 2 wavefronts each */
static const char loops[] =
    "__global__ void loops(float *out)\n"
    "{\n"
    "    __shared__ float s[1056];\n"
    "    int t = threadIdx.x;\n"
    "    for (int i = t; i < 1056; i += blockDim.x)\n"
    "        s[i] = 1.0f;\n"                              /* 6 */
    "    for (int k = blockDim.x / 2; k > 0; k >>= 1) {\n"
    "        if (t < k) s[t] += s[t + k];\n"              /* 8 */
    "    }\n"
    "    for (int j = 0; j < 4; j++) out[t] = s[(t % 32) * 2 + j * 64];\n"   /* 10 */
    "}\n";

static void test_loops(void **state)
{
    predict(loops, 2, 256, 1, NULL);
    figures(6, 66, 66, 66, 1);
    figures(8, 72, 72, 72, 1);
    figures(10, 64, 128, 64, 2);
    (void)state;
}

/* blockIdx in the index: block b reads with stride b + 1: 1, 2, 1 (stride 3 is odd), 4
 * wavefronts; inst 4, wavefronts 8, ideal 4, worst 4-way in block 3 */
static const char blocks[] =
    "__global__ void bd(float *out)\n"
    "{\n"
    "    __shared__ float s[64 * 32];\n"
    "    out[0] = s[threadIdx.x * (blockIdx.x + 1)];\n"   /* 4 */
    "}\n";

static void test_blocks(void **state)
{
    predict(blocks, 4, 32, 1, NULL);
    figures(4, 4, 8, 4, 4);
    assert_non_null(strstr(T(&R.line[3].why, BL_LANG_EN), "warp 0 of block (3,0,0)"));
    (void)state;
}

/* a 1-D array cannot be padded; the swizzle i ^ ((i / 32) % 32) puts lane l's word 32 l in
 * bank l and leaves w[lane] where it was */
static const char swz[] =
    "__global__ void k(int *out)\n"
    "{\n"
    "    __shared__ int w[32 * 32];\n"
    "    int lane = threadIdx.x & 31;\n"
    "    w[lane] = lane;\n"                               /* 5 */
    "    out[lane] = w[lane * 32];\n"                     /* 6 */
    "}\n";

static void test_swizzle(void **state)
{
    predict(swz, 1, 32, 1, NULL);
    figures(5, 1, 1, 1, 1);
    figures(6, 1, 32, 1, 32);
    assert_int_equal(R.line[5].fix_kind, KP_FIX_SWIZZLE);
    assert_string_equal(T(&R.line[5].fix, BL_LANG_EN), "note: swizzle w, indexing it w[i ^ ((i / 32) % 32)] "
                                              "on every line: line 6 becomes 1-way, line 5 stays "
                                              "1-way");
    size_t n;
    char *p = kp_patch(swz, strlen(swz), &R, 6, &n);
    assert_non_null(p);
    assert_non_null(strstr(p, "w[(lane * 32) ^ (((lane * 32) / 32) % 32)]"));
    assert_non_null(strstr(p, "w[(lane) ^ (((lane) / 32) % 32)] = lane;"));
    free(p);
    (void)state;
}

/* what the model cannot know, in one phrase each */
static const char cannot[] =
    "__global__ void k(const int *in, int *out)\n"
    "{\n"
    "    __shared__ int s[1024];\n"
    "    int t = threadIdx.x;\n"
    "    out[t] = s[in[t]];\n"                            /* 5: index from memory */
    "    atomicAdd(&s[t], 1);\n"                          /* 6: an atomic */
    "    int i = t;\n"
    "    while (i < 1024) { s[i] = 0; i += 32; }\n"       /* 8: a while loop */
    "}\n";

static void test_cannot(void **state)
{
    predict(cannot, 1, 32, 1, NULL);
    assert_int_equal(R.line[4].state, KP_CANNOT);
    assert_string_equal(T(&R.line[4].reason, BL_LANG_EN),
                        "an index read from memory (in points to global memory)");
    assert_string_equal(T(&R.line[5].reason, BL_LANG_EN),
                        "atomicAdd is an atomic: the model has loads and stores only");
    assert_string_equal(T(&R.line[7].reason, BL_LANG_EN),
                        "a data-dependent loop (while): the model cannot count its trips");
    assert_non_null(strstr(T(&R.line[7].reason, BL_LANG_ZH), "循环"));
    assert_string_equal(T(&R.line[5].reason, BL_LANG_ZH), "atomicAdd 是原子操作：模型只有 load 和 store");
    assert_int_equal(R.ncannot, 3);
    (void)state;
}

/* a phrase is chosen by the reader's message id and names what the message names (the
 * parameter, not the message's first word) */
static const char noarg[] =
    "__global__ void k(int n)\n"
    "{\n"
    "    __shared__ int s[1024];\n"
    "    s[threadIdx.x * n] = 0;\n"                     /* 4: n has no value */
    "}\n";

static void test_cannot_named(void **state)
{
    predict(noarg, 1, 32, 1, NULL);
    assert_int_equal(R.line[3].state, KP_CANNOT);
    assert_string_equal(T(&R.line[3].reason, BL_LANG_EN),
                        "the parameter n has no value (--arg n=VALUE)");
    assert_string_equal(T(&R.line[3].reason, BL_LANG_ZH), "参数 n 没有值（--arg n=VALUE）");
    (void)state;
}

static void test_which_kernel(void **state)
{
    static const char two[] = "__global__ void a(){}\n__global__ void b(){}\n";
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    struct bl_err err = {0};
    struct kp_result r;
    assert_int_equal(kp_predict_sass(two, strlen(two), &req, NULL, &r, &err), -1);
    assert_non_null(strstr(err.msg, "--name"));
    char zh[BL_ERR_TEXT];   /* the same failure in Chinese, from its message id */
    assert_int_equal(err.status, GPU_KERNEL_EINPUT);
    assert_non_null(strstr(bl_err_text(&err, BL_LANG_ZH, zh, sizeof zh), "文件有 2 个 kernel"));
    snprintf(req.name, sizeof req.name, "b");
    assert_int_equal(kp_predict_sass(two, strlen(two), &req, NULL, &r, &err), 0);
    assert_int_equal(r.first, 2);
    kp_free(&r);
    (void)state;
}

/* garbage and absurd nesting: an answer (a reason, or nothing), never a crash */
static void test_hostile(void **state)
{
    size_t n = 300000;
    char *src = malloc(n + 200);
    assert_non_null(src);
    size_t o = (size_t)snprintf(src, 200, "__global__ void k(float *o)\n{\n __shared__ float s[64];\n");
    for (size_t i = 0; i < n / 2; i++)
        src[o++] = i % 2 ? '{' : '\n';
    o += (size_t)snprintf(src + o, 100, " if (threadIdx.x < 3) o[0] = s[threadIdx.x];\n");
    predict(src, 1, 32, 1, NULL);
    int line = R.nlines;
    assert_true(R.line[line - 1].state != KP_OK || R.line[line - 1].inst >= 0);
    static const char bad[] = "__global__ void k() { __shared__ int s[4]; for (;;) s[0] = 1; "
                              "for (int i = 0; i < 9; ) s[i] = 0; if (s[ ) } [[ ";
    predict(bad, 1, 32, 1, NULL);
    assert_int_equal(R.line[0].state, KP_CANNOT);
    free(src);
    (void)state;
}

/* The launch main writes: each argument a constant expression of the file. */
static void test_file_launch(void **state)
{
    const char *src =
        "#define TILE 32\n"
        "const int N = 1 << 12;\n"
        "__global__ void k(float *o) { }\n"
        "__global__ void other(float *o) { }\n"
        "int main() {\n"
        "    int n = 100;\n"
        "    n += 1;\n"
        "    dim3 block(TILE, 32 / 4);\n"
        "    other<<<n, 32>>>(0);\n"                         /* n changes: not a constant */
        "    k<<<N / TILE, block, 2 * TILE * sizeof(float)>>>(0);\n"
        "    other<<<dim3(3, (2 + 1) * 2), 64 % 48>>>(0);\n"
        "}\n";
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    assert_int_equal(kp_file_launch(src, strlen(src), "k", &req), 1);
    /* N / TILE = 4096 / 32 = 128 blocks; block(32, 8); 2 * 32 * 4 = 256 bytes */
    assert_int_equal(req.grid[0], 128);
    assert_int_equal(req.grid[1], 1);
    assert_int_equal(req.block[0], 32);
    assert_int_equal(req.block[1], 8);
    assert_int_equal(req.smem, 256);
    gpu_kernel_request_init(&req);
    /* other's first launch uses n (assigned twice): skipped; the second: (3, 6), 16 */
    assert_int_equal(kp_file_launch(src, strlen(src), "other", &req), 1);
    assert_int_equal(req.grid[0], 3);
    assert_int_equal(req.grid[1], 6);
    assert_int_equal(req.block[0], 16);
    assert_int_equal(req.smem, 0);
    gpu_kernel_request_init(&req);
    assert_int_equal(kp_file_launch(src, strlen(src), "missing", &req), 0);
    assert_int_equal(req.block[0], 256);                 /* untouched: the default */
    const char *tsrc = "template <int T> __global__ void t(float *o) { }\n"
                       "int main() { t<16><<<1, 32>>>(0); }\n";
    char inst[64];
    assert_int_equal(kp_file_instance(tsrc, strlen(tsrc), "t", inst, sizeof inst), 1);
    assert_string_equal(inst, "t<16>");
    (void)state;
}

/* The SASS per line of a cubin NVRTC made on the H200 machine (tests/data/kernel): the
 * histogram of assets/kernels/atomics.cu stores zeros on line 10 (h[i] = 0: STS), adds on
 * line 13 (atomicAdd(&h[v % bins], 1): the header's ATOMS, charged to the calling line) and
 * reads on line 16 (h[i]: LDS); nothing else touches shared memory. */
static void test_sass_lines(void **state)
{
    size_t n = 0;
    unsigned char *buf = hexfile_read(TEST_DATA_DIR "/kernel/atomics.sm90.cubin.hex", &n);
    assert_non_null(buf);
    struct kp_sass s;
    assert_int_equal(ksl_lines(buf, n, "_Z9histogramPKiPii", "atomics.cu", &s), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.total, 3);
    assert_int_equal(s.insn[0].line, 10);
    assert_string_equal(s.insn[0].text, "STS");
    assert_int_equal(s.insn[1].line, 13);
    assert_int_equal(s.insn[1].op, GPU_KOP_ATOM);
    assert_int_equal(s.insn[2].line, 16);
    assert_string_equal(s.insn[2].text, "LDS");
    /* ksl_own_lines: the same lines for the same pcs, and a line for an instruction that is
     * not a decoded shared one (pc 0, the kernel's first); none past the function's end */
    unsigned pcs[5] = {s.insn[0].pc, s.insn[1].pc, s.insn[2].pc, 0, 1u << 30};
    int lines[5];
    assert_int_equal(ksl_own_lines(buf, n, "_Z9histogramPKiPii", "atomics.cu", pcs, 5, lines), 0);
    assert_int_equal(lines[0], 10);
    assert_int_equal(lines[1], 13);
    assert_int_equal(lines[2], 16);
    assert_true(lines[3] > 0 && lines[3] <= 10);
    assert_int_equal(lines[4], 0);
    assert_int_equal(ksl_own_lines(buf, n, "_Z9histogramPKiPii", "other.cu", pcs, 3, lines), 0);
    assert_int_equal(lines[0] + lines[1] + lines[2], 0);
    assert_int_equal(ksl_own_lines(buf, n, "_Z4nonev", "atomics.cu", pcs, 3, lines), -1);
#ifdef BANKLAB_GPU_CUDA
    /* sassm_own_lines, as every measuring route calls it: the ATOMS CUPTI's line table put in
     * CUDA's header is charged to the learner's line 13, the lines rebuilt; the others stay */
    static struct gpu_kernel_result res;
    memset(&res, 0, sizeof res);
    assert_int_equal(kres_add_file(&res, "atomics.cu"), 0);
    int hdr = kres_add_file(&res, "/usr/local/cuda/include/device_atomic_functions.hpp");
    struct gpu_kernel_inst in[3] = {
        {.pc = s.insn[0].pc, .file = 0, .line = 10, .op = GPU_KOP_ST, .inst = 4, .wavefronts = 4, .ideal = 4},
        {.pc = s.insn[1].pc, .file = hdr, .line = 107, .op = GPU_KOP_ATOM, .inst = 8, .wavefronts = 24, .ideal = 8},
        {.pc = s.insn[2].pc, .file = 0, .line = 16, .op = GPU_KOP_LD, .inst = 4, .wavefronts = 4, .ideal = 4}};
    res.insts = malloc(sizeof in);
    assert_non_null(res.insts);
    memcpy(res.insts, in, sizeof in);
    res.ninsts = 3;
    assert_int_equal(kres_build_lines(&res), 0);
    struct sassm_code code = {.cubin = buf, .size = n, .function = "_Z9histogramPKiPii",
                              .main_path = "atomics.cu"};
    sassm_own_lines(NULL, &code, &res);
    assert_int_equal(res.insts[1].file, 0);
    assert_int_equal(res.insts[1].line, 13);
    assert_int_equal(res.insts[0].line, 10);
    assert_int_equal(res.insts[2].line, 16);
    int on13 = 0, in_header = 0;
    for (int i = 0; i < res.nlines; i++) {
        on13 += res.lines[i].file == 0 && res.lines[i].line == 13 && res.lines[i].wavefronts == 24;
        in_header += res.lines[i].file == hdr;
    }
    assert_int_equal(on13, 1);
    assert_int_equal(in_header, 0);
    gpu_kernel_result_done(&res);
#endif
    kp_sass_free(&s);
    /* no such function, not a cubin */
    assert_int_equal(ksl_lines(buf, n, "_Z4nonev", "atomics.cu", &s), -1);
    assert_int_equal(ksl_lines("not an elf", 10, "_Z9histogramPKiPii", "atomics.cu", &s), -1);
    /* a truncated cubin is refused, never read past */
    assert_int_equal(ksl_lines(buf, n / 2, "_Z9histogramPKiPii", "atomics.cu", &s), -1);
    free(buf);
    (void)state;
}

/* the SASS decides: a line the source reading predicts but nvcc emits nothing for predicts
 * nothing and says so; a line with an instruction the reading does not see gets a reason;
 * an instruction wider than the access (LDS.128 for a float2) is predicted at its width */
static void test_sass_drive(void **state)
{
    const char *src =
        "__global__ void k(float *o)\n"                     /* 1 */
        "{\n"
        "    __shared__ float4 s4[64];\n"
        "    float2 *s2 = (float2 *)s4;\n"
        "    int lane = threadIdx.x & 31;\n"                /* 5 */
        "    float2 b = s2[lane * 2];\n"                    /* 6: 8 bytes at 16 * lane */
        "    float4 c = s4[lane];\n"                        /* 7: the same 16 bytes */
        "    o[lane] = b.x + c.w + helper();\n"             /* 8 */
        "}\n";
    struct kp_sass_insn in[2] = {
        {.line = 6, .call_line = 6, .op = GPU_KOP_LD, .bytes = 16, .ideal = 4, .text = "LDS.128"},
        {.line = 8, .call_line = 8, .op = GPU_KOP_LD, .bytes = 4, .ideal = 1, .text = "LDS"},
    };
    struct kp_sass s = {2, in, 2};
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    req.block[0] = 32;
    struct bl_err err = {0};
    kp_free(&R);
    assert_int_equal(kp_predict_sass(src, strlen(src), &req, &s, &R, &err), 0);
    /* line 6 as one LDS.128: 4 passes of 8 lanes, 32 different banks each: 4, ideal 4 (the
     * source's float2 at stride 16 bytes would be 2-way: 4 wavefronts, ideal 2) */
    assert_int_equal(R.line[5].state, KP_OK);
    assert_true(R.line[5].wavefronts == 4 && R.line[5].ideal == 4 && R.line[5].inst == 1);
    assert_non_null(strstr(T(&R.line[5].compiler, BL_LANG_EN), "LDS.128"));
    /* line 7: nothing emitted, merged into line 6's LDS.128 */
    assert_int_equal(R.line[6].state, KP_OK);
    assert_true(R.line[6].inst == 0 && R.line[6].wavefronts == 0);
    assert_non_null(strstr(T(&R.line[6].compiler, BL_LANG_EN), "line 6's LDS.128"));
    assert_non_null(strstr(T(&R.line[6].compiler, BL_LANG_ZH), "第 6 行"));
    /* line 8: an LDS the reading does not see: named, in both languages */
    assert_int_equal(R.line[7].state, KP_CANNOT);
    assert_non_null(strstr(T(&R.line[7].reason, BL_LANG_EN), "LDS"));
    assert_true(T(&R.line[7].reason, BL_LANG_ZH)[0] != 0);
    assert_int_equal(R.nsass_lines, 2);
    (void)state;
}

/* a fix checked with the instructions nvcc emitted: line 7 reads float4s at t ^ 1, which the
 * source reads conflict free (8 lanes a pass, 8 consecutive float4s: 4 wavefronts, ideal 4),
 * but only v.x and v.w are used and nvcc emits two 4-byte LDS: words 4(t ^ 1) (+ 3), on 8 of
 * the 32 banks, 32 words: 4-way each, 8 wavefronts, ideal 2. No padding or swizzle of a float4
 * array moves a word off its bank % 4: checked with the LDS, no fix; checked with the source's
 * float4 read, any candidate would pass (the source line has no conflict to begin with) */
static void test_fix_narrowed(void **state)
{
    const char *src =
        "__global__ void k(float *o)\n"                     /* 1 */
        "{\n"
        "    __shared__ float4 s[256];\n"
        "    int t = threadIdx.x;\n"
        "    s[t] = make_float4(t, t, t, t);\n"             /* 5 */
        "    __syncthreads();\n"
        "    float4 v = s[t ^ 1];\n"                        /* 7 */
        "    o[t] = v.x + v.w;\n"
        "}\n";
    struct kp_sass_insn in[3] = {
        {.line = 5, .call_line = 5, .op = GPU_KOP_ST, .bytes = 16, .ideal = 4, .text = "STS.128"},
        {.line = 7, .call_line = 7, .op = GPU_KOP_LD, .bytes = 4, .ideal = 1, .text = "LDS"},
        {.line = 7, .call_line = 7, .op = GPU_KOP_LD, .bytes = 4, .ideal = 1, .text = "LDS"},
    };
    struct kp_sass s = {3, in, 3};
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    req.block[0] = 32;
    struct bl_err err = {0};
    kp_free(&R);
    assert_int_equal(kp_predict_sass(src, strlen(src), &req, &s, &R, &err), 0);
    figures(5, 1, 4, 4, 1);
    figures(7, 2, 8, 2, 4);
    kp_fixes_exec(src, strlen(src), &req, &s, NULL, NULL, &R);
    assert_int_equal(R.line[6].fix_kind, KP_FIX_NONE);
    assert_non_null(strstr(T(&R.line[6].fix, BL_LANG_EN), "no fix found"));
    assert_non_null(strstr(T(&R.line[6].fix, BL_LANG_ZH), "没有找到修改"));
    kp_free(&R);
    assert_int_equal(kp_predict_sass(src, strlen(src), &req, &s, &R, &err), 0);
    kp_fixes_exec(src, strlen(src), &req, NULL, NULL, NULL, &R);          /* the source reading alone: fooled */
    assert_int_not_equal(R.line[6].fix_kind, KP_FIX_NONE);
    (void)state;
}

/* ---------------------------------------------------------------- h7reader */

/* predict() with --name */
static void predict_named(const char *src, const char *name, unsigned bx)
{
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    req.block[0] = bx;
    snprintf(req.name, sizeof req.name, "%s", name);
    struct bl_err err = {0};
    kp_free(&R);
    assert_int_equal(kp_predict_sass(src, strlen(src), &req, NULL, &R, &err), 0);
    kp_fixes_exec(src, strlen(src), &req, NULL, NULL, NULL, &R);
}

static const char helpers[] =
    "__device__ float pick(const float *row, int k)\n"
    "{\n"
    "    return row[k * 32];\n"                                  /* 3 */
    "}\n"
    "__device__ float unused(const float *row) { return row[0]; }\n"   /* 5: never called */
    "__global__ void k(float *out)\n"
    "{\n"
    "    __shared__ float tile[1024];\n"
    "    int lane = threadIdx.x & 31, warp = threadIdx.x / 32;\n"
    "    tile[threadIdx.x] = 0;\n"                                /* 10 */
    "    float a = pick(tile, lane);\n"
    "    float b = pick(tile + warp, lane % 2);\n"
    "    out[threadIdx.x] = a + b;\n"
    "}\n";

/* By hand, two warps: pick(tile, lane) is tile[lane * 32], 32 lanes on bank 0: 32 a warp;
 * pick(tile + warp, lane % 2) is two words on bank `warp`: 2 a warp. Line 3 sums both calls
 * of both warps: 4 instructions, 68 wavefronts, ideal 4; its why is the 32-way call's. */
static void test_reader_helper(void **state)
{
    predict(helpers, 1, 64, 1, NULL);
    figures(10, 2, 2, 2, 1);
    figures(3, 4, 68, 4, 32);
    assert_non_null(strstr(T(&R.line[2].why, BL_LANG_EN), "32-way"));
    assert_int_equal(R.line[4].state, KP_NONE);
    assert_int_equal(R.npredicted, 2);
    (void)state;
}

static const char tile_tmpl[] =
    "template <int TILE>\n"
    "__global__ void carve4(float *out)\n"
    "{\n"
    "    __shared__ float t[TILE][TILE];\n"
    "    t[threadIdx.x][0] = 0;\n"                                /* 5 */
    "}\n";

/* By hand: TILE = 32 from --name: a column of 32-word rows, all lanes on bank 0: 32-way; 64
 * the same; 48: word 48l, bank 16l % 32 is 0 or 16, 16 lanes each: 16-way. Without the
 * argument: not predicted (the reason says where to give it). */
static void test_reader_template(void **state)
{
    predict_named(tile_tmpl, "carve4<32>", 32);
    figures(5, 1, 32, 1, 32);
    assert_string_equal(T(&R.line[4].fix, BL_LANG_EN), "note: declare t[TILE][TILE + 1]: line 5 becomes "
                                              "1-way");
    predict_named(tile_tmpl, "carve4<64>", 32);
    figures(5, 1, 32, 1, 32);
    predict_named(tile_tmpl, "carve4<48>", 32);      /* rows of 48 words: bank 16l % 32 */
    figures(5, 1, 16, 1, 16);
    predict_named(tile_tmpl, "carve4", 32);
    assert_int_equal(R.line[4].state, KP_CANNOT);
    (void)state;
}

static const char fix1d[] =
    "__global__ void k(float *out)\n"
    "{\n"
    "    __shared__ float c[1024];\n"
    "    __shared__ float b[1040];\n"
    "    int lane = threadIdx.x & 31;\n"                           /* 5 */
    "    c[lane] = lane;\n"
    "    float4 y = reinterpret_cast<float4 *>(c)[lane * 4];\n"    /* 7 */
    "    out[lane] = y.x + c[(lane / 4) * 32 + lane % 4];\n"     /* 8 */
    "    out[lane] += b[lane * 32];\n"                             /* 9 */
    "}\n";

/* By hand: line 7, float4 at byte 64*lane, 4 a pass of 8: 16 wavefronts (ideal 4); line 8,
 * c's rows 0-7 at columns 0-3: 8-way; line 9, b[lane * 32]: 32-way. c's swizzle in 16-byte
 * chunks makes both of c's reads conflict free; b (1040 floats) has no whole rows to swizzle,
 * its index padding b[i + i / 32] puts lane l on word 33l. */
static void test_reader_fix1d(void **state)
{
    predict(fix1d, 1, 32, 1, NULL);
    figures(7, 1, 16, 4, 4);
    figures(8, 1, 8, 1, 8);
    figures(9, 1, 32, 1, 32);
    assert_int_equal(R.line[6].fix_kind, KP_FIX_SWIZZLE);
    assert_string_equal(T(&R.line[6].fix, BL_LANG_EN), "note: swizzle c, indexing it c[i ^ ((i / 32) % 8 "
                                              "* 4)] on every line: line 7 becomes 1-way, line 6 "
                                              "stays 1-way, line 8 becomes 1-way");
    size_t n;
    char *p = kp_patch(fix1d, strlen(fix1d), &R, 7, &n);
    assert_non_null(p);
    assert_non_null(strstr(p, "reinterpret_cast<float4 *>(c)[(lane * 4) ^ (((lane * 4) / 8) % 8)]"));
    assert_non_null(strstr(p, "c[((lane / 4) * 32 + lane % 4) ^ ((((lane / 4) * 32 + lane % 4) / "
                              "32) % 8 * 4)]"));
    free(p);
    /* b: no swizzle (and why), then padding its index */
    assert_int_equal(R.line[8].fix_kind, KP_FIX_PAD);
    assert_string_equal(R.line[8].fix_array, "b");
    p = kp_patch(fix1d, strlen(fix1d), &R, 9, &n);
    assert_non_null(p);
    assert_non_null(strstr(p, "__shared__ float b[1073];"));
    assert_non_null(strstr(p, "b[(lane * 32) + (lane * 32) / 32]"));
    free(p);
    /* a pointer made of the array: what could not be tried, and why */
    static const char made[] = "__global__ void k(float *out)\n{\n"
                               "    __shared__ float s[1024];\n"
                               "    float2 *p = (float2 *)s;\n"
                               "    out[0] = s[threadIdx.x * 32] + p[0].x;\n}\n";
    predict(made, 1, 32, 1, NULL);
    assert_string_equal(T(&R.line[4].fix, BL_LANG_EN), "no fix found for line 5; not possible: a wider "
                        "element (no lane reads 2 or 4 consecutive elements of s one by one); "
                        "an XOR swizzle of s (a pointer is made of it, whose accesses a swizzle would "
                        "miss); padding s (a pointer is made of it, whose accesses a padding "
                        "would miss)");
    assert_non_null(strstr(T(&R.line[4].fix, BL_LANG_ZH), "无法尝试"));
    (void)state;
}

static const char pad4[] =
    "__global__ void k(float *out)\n"
    "{\n"
    "    __shared__ float s[1040];\n"
    "    int lane = threadIdx.x & 31;\n"
    "    float4 a = reinterpret_cast<float4 *>(s)[lane];\n"            /* 5 */
    "    out[lane] = a.x + s[(lane % 8) * 32 + lane / 8];\n"           /* 6 */
    "}\n";

/* By hand: line 6 reads rows 0-7 at columns 0-3 of 32-word rows: banks 0-3, 8 lanes each:
 * 8-way. 1040 floats are no whole rows: no swizzle. Padding the index keeps line 5's float4
 * whole only by 4 or 8 floats a row; 4 puts row r at word 36r: banks 4r + c, all distinct.
 * Line 5 (consecutive float4) becomes float4 j + j / 8: still one row a pass: conflict free. */
static void test_reader_pad_vector(void **state)
{
    predict(pad4, 1, 32, 1, NULL);
    figures(5, 1, 4, 4, 1);
    figures(6, 1, 8, 1, 8);
    assert_int_equal(R.line[5].fix_kind, KP_FIX_PAD);
    assert_int_equal(R.line[5].fix_pad, 4);
    size_t n;
    char *p = kp_patch(pad4, strlen(pad4), &R, 6, &n);
    assert_non_null(p);
    assert_non_null(strstr(p, "__shared__ float s[1172];"));                /* 1040 + 33 * 4 */
    assert_non_null(strstr(p, "reinterpret_cast<float4 *>(s)[(lane) + (lane) / 8];"));
    assert_non_null(strstr(p, "s[((lane % 8) * 32 + lane / 8) + ((lane % 8) * 32 + lane / 8) / "
                              "32 * 4]"));
    predict(p, 1, 32, 1, NULL);
    figures(5, 1, 4, 4, 1);
    figures(6, 1, 1, 1, 1);
    free(p);
    (void)state;
}

/* ---------------------------------------------------------------- h11width: element width */

static const char wide4[] =
    "__global__ void k(float *out)\n"
    "{\n"
    "    __shared__ float s[1024];\n"
    "    int lane = threadIdx.x & 31;\n"
    "    float a = s[4 * lane], b = s[4 * lane + 1], c = s[4 * lane + 2], d = s[4 * lane + 3];\n"
    "    out[lane] = a + b + c + d;\n"
    "}\n";

/* By hand: line 5's four reads each put lanes 0, 8, 16, 24 on one bank (word 4 * lane): 4-way,
 * 4 wavefronts each, 16. One float4 at index lane: 4 passes of 8 lanes, 128 bytes each: 4.
 * The wider element is proposed when nvcc emits four LDS; with one LDS.128 nvcc already
 * reads it wide: not proposed. */
static void test_width_wider(void **state)
{
    struct kp_sass_insn in[4];
    for (int i = 0; i < 4; i++)
        in[i] = (struct kp_sass_insn){.line = 5, .call_line = 5, .op = GPU_KOP_LD, .bytes = 4,
                                      .ideal = 1, .text = "LDS"};
    struct kp_sass four = {4, in, 4};
    struct kp_sass_insn w = {.line = 5, .call_line = 5, .op = GPU_KOP_LD, .bytes = 16,
                             .ideal = 4, .text = "LDS.128"};
    struct kp_sass one = {1, &w, 1};
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    req.block[0] = 32;
    struct bl_err err = {0};
    kp_free(&R);
    assert_int_equal(kp_predict_sass(wide4, strlen(wide4), &req, &four, &R, &err), 0);
    figures(5, 4, 16, 4, 4);
    kp_fixes_exec(wide4, strlen(wide4), &req, &four, NULL, NULL, &R);
    assert_int_equal(R.line[4].fix_kind, KP_FIX_NONE);
    assert_string_equal(T(&R.line[4].fix, BL_LANG_EN), "note: read s's 4 elements a lane as one float4, "
                        "float4 v = reinterpret_cast<const float4 *>(s)[lane] (s aligned to 16 "
                        "bytes: __align__(16)): line 5 becomes 4 wavefronts instead of 16");
    assert_non_null(strstr(T(&R.line[4].fix, BL_LANG_ZH), "第 5 行由 16 个 wavefront 变为 4 个"));
    kp_free(&R);
    assert_int_equal(kp_predict_sass(wide4, strlen(wide4), &req, &one, &R, &err), 0);
    kp_fixes_exec(wide4, strlen(wide4), &req, &one, NULL, NULL, &R);
    assert_null(strstr(T(&R.line[4].fix, BL_LANG_EN), "float4 v ="));       /* nvcc reads it wide */
    (void)state;
}

static const char wide_loop[] =
    "__global__ void k(float *out)\n"
    "{\n"
    "    __shared__ float s[1024];\n"
    "    int lane = threadIdx.x & 31;\n"
    "    float x = 0;\n"
    "    for (int j = 0; j < 2; j++)\n"
    "        x += s[2 * lane + j];\n"                                  /* 7 */
    "    for (int j = 0; j < 4; j++)\n"
    "        x += s[2 * lane + j + 64];\n"                             /* 9 */
    "    out[lane] = x;\n"
    "}\n";

/* By hand: line 7, each trip lanes 0 and 16 on one bank: 2-way, 2 trips: 4; one float2 at
 * index lane: 2 passes of 16 lanes, 128 bytes each: 2. Line 9 reads 4 elements from 2 * lane:
 * overlapping, no whole float4 a lane: not possible. */
static void test_width_loop(void **state)
{
    predict(wide_loop, 1, 32, 1, NULL);
    figures(7, 2, 4, 2, 2);
    assert_non_null(strstr(T(&R.line[6].fix, BL_LANG_EN), "one float2, float2 v = reinterpret_cast<const "
                           "float2 *>(s)[lane] (s aligned to 8 bytes"));
    assert_non_null(strstr(T(&R.line[6].fix, BL_LANG_EN), "line 7 becomes 2 wavefronts instead of 4"));
    assert_non_null(strstr(T(&R.line[6].fix, BL_LANG_ZH), "合成一次 float2 读取"));
    assert_non_null(strstr(T(&R.line[8].fix, BL_LANG_EN), "not possible: a wider element (no lane reads "
                           "2 or 4 consecutive elements of s one by one)"));
    assert_non_null(strstr(T(&R.line[8].fix, BL_LANG_ZH), "更宽的元素（没有线程逐个读取 s 的"));
    (void)state;
}

static const char narrow2[] =
    "__global__ void k(float *out)\n"
    "{\n"
    "    __shared__ float s[1024];\n"
    "    float *p = s;\n"
    "    int lane = threadIdx.x & 31;\n"
    "    float2 e = reinterpret_cast<float2 *>(s)[lane * 16];\n"     /* 6 */
    "    out[lane] = e.x + e.y + p[0];\n"
    "}\n";

/* By hand: line 6, float2 at word 32 * lane: 2 passes of 16 lanes on banks 0-1: 16-way, 32.
 * As 2 floats, s[(lane * 16) * 2 + m]: 32 lanes on one bank each: 64, no better; a pointer
 * is made of s: no padding or swizzle. */
static void test_width_narrower(void **state)
{
    predict(narrow2, 1, 32, 1, NULL);
    figures(6, 1, 32, 2, 16);
    assert_non_null(strstr(T(&R.line[5].fix, BL_LANG_EN), "no fix found: tried a narrower element (s's "
                           "8-byte element as 2 floats: 64 wavefronts, no better)"));
    assert_non_null(strstr(T(&R.line[5].fix, BL_LANG_ZH), "更窄的元素（把 s 的 8 字节元素拆成 2 个 float："
                           "64 个 wavefront，并不更好）"));
    (void)state;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transpose), cmocka_unit_test(test_fixes_only),
        cmocka_unit_test(test_guard),
        cmocka_unit_test(test_loops),     cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_swizzle),   cmocka_unit_test(test_cannot),
        cmocka_unit_test(test_cannot_named),
        cmocka_unit_test(test_which_kernel), cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_file_launch), cmocka_unit_test(test_sass_lines),
        cmocka_unit_test(test_sass_drive), cmocka_unit_test(test_fix_narrowed),
        cmocka_unit_test(test_reader_helper), cmocka_unit_test(test_reader_template),
        cmocka_unit_test(test_reader_fix1d), cmocka_unit_test(test_reader_pad_vector),
        cmocka_unit_test(test_width_wider), cmocka_unit_test(test_width_loop),
        cmocka_unit_test(test_width_narrower),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    kp_free(&R);
    return rc;
}
