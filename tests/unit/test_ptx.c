/* test_ptx.c: the PTX executor (src/ptx) instruction class by instruction class, against
 * values worked out by hand: integer and float arithmetic, logic, cvt, setp/selp, branches
 * and reconvergence, barriers and a deadlock, shfl/vote/match/redux, atomics on shared,
 * vector widths, ldmatrix addresses and data, cp.async, the .loc inlined-at chain, and the
 * errors (an unsupported instruction, a shared fault) naming the instruction and its line.
 * Each kernel is a hand-written PTX body inside one frame: thread t writes 16 u32 results at
 * out[16 t ...] (%rd3 points there), with 1024 bytes of shared memory at `sm`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ptx/ptx.h"
#include "../../src/ptx/ptx_agg.h"

#define MAXREC 64

struct recs {
    int n;
    struct ptx_access a[MAXREC];
};

static void sink(void *ctx, const struct ptx_access *a)
{
    struct recs *r = ctx;
    if (r->n < MAXREC)
        r->a[r->n++] = *a;
}

static uint32_t out[1024 * 16];
static struct recs recs;
static char text[16384];

static const char *frame_head =
    ".version 9.0\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry k(\n .param .u64 k_param_0\n)\n{\n"
    " .reg .pred %p<8>;\n .reg .b16 %rs<8>;\n .reg .b32 %r<64>;\n .reg .b64 %rd<16>;\n"
    " .reg .f32 %f<16>;\n .reg .f64 %fd<8>;\n"
    " .shared .align 16 .b8 sm[1024];\n"
    " .loc 1 5 1\n"
    " ld.param.u64 %rd1, [k_param_0];\n mov.u32 %r1, %tid.x;\n"
    " mul.wide.u32 %rd2, %r1, 64;\n add.s64 %rd3, %rd1, %rd2;\n"
    " .loc 1 7 3\n";

/* runs body for `threads` threads of one block (grid blocks); 0 or -1 with err */
static int run_grid(const char *body, unsigned grid, unsigned threads, struct bl_err *err)
{
    snprintf(text, sizeof text, "%s%s\n ret;\n}\n.file 1 \"/home/l/k.cu\"\n", frame_head,
             body);
    memset(out, 0xee, sizeof out);
    recs.n = 0;
    bl_err_clear(err);
    struct ptx_module *m = ptx_module_parse(text, strlen(text), err);
    if (!m)
        return -1;
    uint64_t p = (uint64_t)(uintptr_t)out;
    void *args[1] = {&p};
    struct ptx_launch L = {{grid, 1, 1}, {threads, 1, 1}, 0, args, 0, sink, &recs, NULL, 0, NULL, NULL};
    int rc = ptx_run(m, 0, &L, err);
    ptx_module_free(m);
    return rc;
}

static int run(const char *body, unsigned threads, struct bl_err *err)
{
    return run_grid(body, 1, threads, err);
}

static void ok(const char *body, unsigned threads)
{
    struct bl_err err;
    int rc = run(body, threads, &err);
    if (rc)
        fprintf(stderr, "error: %s\n", err.msg);
    assert_int_equal(rc, 0);
}

static float f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void test_arith(void **state)
{
    (void)state;
    ok(" add.s32 %r2, %r1, -5;\n st.global.u32 [%rd3], %r2;\n"
       " mul.lo.s32 %r3, %r1, 0x10001;\n st.global.u32 [%rd3+4], %r3;\n"
       " mul.hi.u32 %r4, %r3, %r3;\n st.global.u32 [%rd3+8], %r4;\n"
       " mov.u32 %r5, -7;\n div.s32 %r6, %r5, 2;\n st.global.u32 [%rd3+12], %r6;\n"
       " rem.s32 %r7, %r5, 2;\n st.global.u32 [%rd3+16], %r7;\n"
       " div.u32 %r8, %r5, 0;\n st.global.u32 [%rd3+20], %r8;\n"
       " mad.lo.s32 %r9, %r1, 3, 100;\n st.global.u32 [%rd3+24], %r9;\n"
       " mul.wide.s32 %rd4, %r5, 3;\n cvt.u32.u64 %r10, %rd4;\n shr.u64 %rd5, %rd4, 32;\n"
       " cvt.u32.u64 %r11, %rd5;\n st.global.u32 [%rd3+28], %r10;\n st.global.u32 [%rd3+32], %r11;\n"
       " min.s32 %r12, %r5, %r1;\n st.global.u32 [%rd3+36], %r12;\n"
       " max.u32 %r13, %r5, %r1;\n st.global.u32 [%rd3+40], %r13;\n"
       " abs.s32 %r14, %r5;\n st.global.u32 [%rd3+44], %r14;\n"
       " sub.s32 %r15, %r1, 10;\n st.global.u32 [%rd3+48], %r15;\n",
       4);
    /* lane 3 */
    uint32_t *o = out + 16 * 3;
    assert_int_equal(o[0], (uint32_t)-2);
    assert_int_equal(o[1], 3u * 0x10001u);
    assert_int_equal(o[2], (uint32_t)(((uint64_t)(3u * 0x10001u) * (3u * 0x10001u)) >> 32));
    assert_int_equal(o[3], (uint32_t)-3);  /* -7 / 2 truncates toward zero */
    assert_int_equal(o[4], (uint32_t)-1);  /* -7 % 2 keeps the dividend's sign */
    assert_int_equal(o[5], 0xffffffffu);   /* division by zero: all ones (ptx_ops.c) */
    assert_int_equal(o[6], 109u);
    assert_int_equal(o[7], (uint32_t)-21); /* the wide product's low word */
    assert_int_equal(o[8], 0xffffffffu);   /* and its high word: sign extended */
    assert_int_equal(o[9], (uint32_t)-7);
    assert_int_equal(o[10], (uint32_t)-7); /* unsigned: 0xfffffff9 > 3 */
    assert_int_equal(o[11], 7u);
    assert_int_equal(o[12], (uint32_t)-7);
}

static void test_logic(void **state)
{
    (void)state;
    ok(" mov.u32 %r2, 0xF0F0;\n and.b32 %r3, %r2, 0xFF;\n st.global.u32 [%rd3], %r3;\n"
       " or.b32 %r4, %r2, 0x0F;\n st.global.u32 [%rd3+4], %r4;\n"
       " xor.b32 %r5, %r2, 0xFFFF;\n st.global.u32 [%rd3+8], %r5;\n"
       " not.b32 %r6, %r2;\n st.global.u32 [%rd3+12], %r6;\n"
       " shl.b32 %r7, %r2, 20;\n st.global.u32 [%rd3+16], %r7;\n"
       " mov.u32 %r8, -64;\n shr.s32 %r9, %r8, 3;\n st.global.u32 [%rd3+20], %r9;\n"
       " shr.u32 %r10, %r8, 28;\n st.global.u32 [%rd3+24], %r10;\n"
       " shl.b32 %r11, %r2, 40;\n st.global.u32 [%rd3+28], %r11;\n"
       " bfe.u32 %r12, %r2, 4, 8;\n st.global.u32 [%rd3+32], %r12;\n"
       " bfi.b32 %r13, 5, %r2, 0, 4;\n st.global.u32 [%rd3+36], %r13;\n"
       " popc.b32 %r14, %r2;\n st.global.u32 [%rd3+40], %r14;\n"
       " clz.b32 %r15, %r2;\n st.global.u32 [%rd3+44], %r15;\n"
       " brev.b32 %r16, 1;\n st.global.u32 [%rd3+48], %r16;\n"
       " neg.s32 %r17, %r2;\n st.global.u32 [%rd3+52], %r17;\n",
       1);
    assert_int_equal(out[0], 0xF0u);
    assert_int_equal(out[1], 0xF0FFu);
    assert_int_equal(out[2], 0x0F0Fu);
    assert_int_equal(out[3], ~0xF0F0u);
    assert_int_equal(out[4], 0xF0F0u << 20);
    assert_int_equal(out[5], (uint32_t)-8);
    assert_int_equal(out[6], 15u);
    assert_int_equal(out[7], 0u); /* a shift past the width clamps */
    assert_int_equal(out[8], 0x0Fu);
    assert_int_equal(out[9], 0xF0F5u);
    assert_int_equal(out[10], 8u);
    assert_int_equal(out[11], 16u);
    assert_int_equal(out[12], 0x80000000u);
    assert_int_equal(out[13], (uint32_t)-0xF0F0);
}

static void test_float_cvt(void **state)
{
    (void)state;
    ok(" cvt.rn.f32.s32 %f1, %r1;\n add.f32 %f2, %f1, 0f3FC00000;\n"      /* t + 1.5 */
       " st.global.f32 [%rd3], %f2;\n"
       " cvt.rzi.s32.f32 %r2, 0fC0600000;\n st.global.u32 [%rd3+4], %r2;\n" /* -3.5 -> -3 */
       " cvt.rmi.s32.f32 %r3, 0fC0600000;\n st.global.u32 [%rd3+8], %r3;\n" /* floor: -4 */
       " cvt.rni.s32.f32 %r4, 0f40200000;\n st.global.u32 [%rd3+12], %r4;\n" /* 2.5 -> 2 */
       " mov.u32 %r5, 0x1234;\n cvt.u8.u32 %r6, %r5;\n st.global.u32 [%rd3+16], %r6;\n"
       " mov.u32 %r7, -2;\n cvt.s64.s32 %rd4, %r7;\n shr.u64 %rd5, %rd4, 32;\n"
       " cvt.u32.u64 %r8, %rd5;\n st.global.u32 [%rd3+20], %r8;\n"
       " cvt.f64.f32 %fd1, %f2;\n mul.f64 %fd2, %fd1, 0d4000000000000000;\n"
       " cvt.rn.f32.f64 %f3, %fd2;\n st.global.f32 [%rd3+24], %f3;\n"
       " fma.rn.f32 %f4, %f1, %f1, 0f3F800000;\n st.global.f32 [%rd3+28], %f4;\n"
       " cvt.rzi.u32.f32 %r9, 0fC0000000;\n st.global.u32 [%rd3+32], %r9;\n" /* -2 -> 0 */
       " rsqrt.approx.f32 %f5, 0f40800000;\n st.global.f32 [%rd3+36], %f5;\n"
       " div.rn.f32 %f6, %f1, 0f40000000;\n st.global.f32 [%rd3+40], %f6;\n"
       " max.f32 %f7, %f1, 0f40400000;\n st.global.f32 [%rd3+44], %f7;\n",
       8);
    uint32_t *o = out + 16 * 5;
    assert_true(f32_of(o[0]) == 6.5f);
    assert_int_equal(o[1], (uint32_t)-3);
    assert_int_equal(o[2], (uint32_t)-4);
    assert_int_equal(o[3], 2u);
    assert_int_equal(o[4], 0x34u);
    assert_int_equal(o[5], 0xffffffffu);
    assert_true(f32_of(o[6]) == 13.0f);
    assert_true(f32_of(o[7]) == 26.0f);
    assert_int_equal(o[8], 0u);
    assert_true(f32_of(o[9]) == 0.5f);
    assert_true(f32_of(o[10]) == 2.5f);
    assert_true(f32_of(o[11]) == 5.0f);
}

static void test_setp_selp(void **state)
{
    (void)state;
    ok(" setp.lt.s32 %p1, %r1, 2;\n selp.u32 %r2, 10, 20, %p1;\n st.global.u32 [%rd3], %r2;\n"
       " mov.u32 %r3, -1;\n setp.lt.s32 %p2, %r3, %r1;\n selp.u32 %r4, 1, 0, %p2;\n"
       " st.global.u32 [%rd3+4], %r4;\n"
       " setp.lo.u32 %p3, %r3, %r1;\n selp.u32 %r5, 1, 0, %p3;\n st.global.u32 [%rd3+8], %r5;\n"
       " setp.eq.s32 %p4, %r1, 1;\n setp.gt.s32.and %p5|%p6, %r1, 0, %p4;\n"
       " selp.u32 %r6, 1, 0, %p5;\n st.global.u32 [%rd3+12], %r6;\n"
       " selp.u32 %r7, 1, 0, %p6;\n st.global.u32 [%rd3+16], %r7;\n"
       " mov.f32 %f1, 0f7FC00000;\n setp.neu.f32 %p7, %f1, %f1;\n selp.u32 %r8, 1, 0, %p7;\n"
       " st.global.u32 [%rd3+20], %r8;\n"
       " setp.ne.s32 %p1, %r1, 0;\n @!%p1 mov.u32 %r9, 77;\n @%p1 mov.u32 %r9, 88;\n"
       " st.global.u32 [%rd3+24], %r9;\n",
       4);
    assert_int_equal(out[0], 10u);
    assert_int_equal(out[16 * 3], 20u);
    assert_int_equal(out[1], 1u);        /* -1 < 0 signed */
    assert_int_equal(out[2], 0u);        /* 0xffffffff < 0 unsigned: no */
    assert_int_equal(out[16 + 3], 1u);   /* lane 1: 1 > 0 and p4 */
    assert_int_equal(out[16 * 2 + 3], 0u);
    assert_int_equal(out[16 * 2 + 4], 0u); /* !(2 > 0) and p4(false) */
    assert_int_equal(out[5], 1u);        /* NaN != NaN unordered */
    assert_int_equal(out[6], 77u);
    assert_int_equal(out[16 + 6], 88u);
}

/* if/else and a loop with per-lane trips: the shared stores show which lanes ran together */
static void test_branches(void **state)
{
    (void)state;
    ok(" mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 2;\n add.s32 %r3, %r20, %r2;\n"
       " and.b32 %r4, %r1, 1;\n setp.eq.s32 %p1, %r4, 0;\n @%p1 bra $EVEN;\n"
       " st.shared.u32 [%r3], 1;\n bra.uni $JOIN;\n"
       "$EVEN:\n st.shared.u32 [%r3], 2;\n"
       "$JOIN:\n st.shared.u32 [%r3+128], 3;\n"
       " mov.u32 %r5, 0;\n mov.u32 %r6, 0;\n"
       "$LOOP:\n add.s32 %r6, %r6, 1;\n add.s32 %r5, %r5, 1;\n setp.lt.u32 %p2, %r5, %r1;\n"
       " @%p2 bra $LOOP;\n st.global.u32 [%rd3], %r6;\n",
       32);
    assert_int_equal(recs.n, 3);
    assert_int_equal(recs.a[0].mask, 0xAAAAAAAAu); /* the odd lanes fall through: lower PC */
    assert_int_equal(recs.a[1].mask, 0x55555555u); /* then the even lanes at $EVEN */
    assert_int_equal(recs.a[2].mask, 0xffffffffu); /* together again at the join */
    assert_int_equal(recs.a[2].addr[5], 128u + 20u);
    assert_int_equal(recs.a[0].width, 4);
    assert_int_equal(recs.a[0].kind, PTX_ST);
    assert_int_equal(out[16 * 0], 1u);
    assert_int_equal(out[16 * 9], 9u);
    assert_int_equal(out[16 * 31], 31u);
}

static void test_barrier(void **state)
{
    (void)state;
    /* warp 1 writes, warp 0 reads after the barrier: 64 threads */
    ok(" mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 2;\n add.s32 %r3, %r20, %r2;\n"
       " st.shared.u32 [%r3], %r1;\n bar.sync 0;\n"
       " xor.b32 %r4, %r1, 32;\n shl.b32 %r5, %r4, 2;\n add.s32 %r6, %r20, %r5;\n"
       " ld.shared.u32 %r7, [%r6];\n st.global.u32 [%rd3], %r7;\n",
       64);
    assert_int_equal(out[0], 32u);
    assert_int_equal(out[16 * 40], 8u);
    /* only warp 0 reaches the barrier, warp 1 waits at another: a deadlock, named */
    struct bl_err err;
    int rc = run(" setp.lt.u32 %p1, %r1, 32;\n @%p1 bra $A;\n"
                 " .loc 1 12 3\n bar.sync 1;\n bra.uni $B;\n"
                 "$A:\n .loc 1 14 3\n bar.sync 0, 64;\n$B:\n",
                 64, &err);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err.msg, "deadlock"));
    assert_non_null(strstr(err.msg, "k.cu:"));
    assert_non_null(strstr(err.msg, "bar.sync"));
    /* threads that exit count as arrived */
    ok(" setp.lt.u32 %p1, %r1, 40;\n @%p1 bra $A;\n ret;\n$A:\n bar.sync 0;\n"
       " st.global.u32 [%rd3], 5;\n",
       64);
    assert_int_equal(out[16 * 39], 5u);
}

static void test_warp_wide(void **state)
{
    (void)state;
    ok(" shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n st.global.u32 [%rd3], %r2;\n"
       " shfl.sync.down.b32 %r3|%p1, %r1, 4, 31, -1;\n st.global.u32 [%rd3+4], %r3;\n"
       " selp.u32 %r4, 1, 0, %p1;\n st.global.u32 [%rd3+8], %r4;\n"
       " shfl.sync.idx.b32 %r5, %r1, 7, 31, -1;\n st.global.u32 [%rd3+12], %r5;\n"
       " shfl.sync.up.b32 %r6, %r1, 1, 0, -1;\n st.global.u32 [%rd3+16], %r6;\n"
       " and.b32 %r7, %r1, 3;\n setp.eq.s32 %p2, %r7, 0;\n"
       " vote.sync.ballot.b32 %r8, %p2, -1;\n st.global.u32 [%rd3+20], %r8;\n"
       " vote.sync.any.pred %p3, %p2, -1;\n selp.u32 %r9, 1, 0, %p3;\n st.global.u32 [%rd3+24], %r9;\n"
       " match.any.sync.b32 %r10, %r7, -1;\n st.global.u32 [%rd3+28], %r10;\n"
       " redux.sync.add.u32 %r11, %r1, -1;\n st.global.u32 [%rd3+32], %r11;\n"
       " redux.sync.max.s32 %r12, %r1, -1;\n st.global.u32 [%rd3+36], %r12;\n"
       " activemask.b32 %r13;\n st.global.u32 [%rd3+40], %r13;\n",
       32);
    assert_int_equal(out[16 * 4 + 0], 5u);
    assert_int_equal(out[16 * 4 + 1], 8u);
    assert_int_equal(out[16 * 4 + 2], 1u);
    assert_int_equal(out[16 * 30 + 1], 30u); /* down past lane 31: its own value, p false */
    assert_int_equal(out[16 * 30 + 2], 0u);
    assert_int_equal(out[16 * 12 + 3], 7u);
    assert_int_equal(out[16 * 0 + 4], 0u);   /* up from lane 0: itself */
    assert_int_equal(out[16 * 9 + 4], 8u);
    assert_int_equal(out[5], 0x11111111u);
    assert_int_equal(out[6], 1u);
    assert_int_equal(out[16 * 2 + 7], 0x44444444u);
    assert_int_equal(out[8], 496u);
    assert_int_equal(out[9], 31u);
    assert_int_equal(out[10], 0xffffffffu);
}

static void test_atomics(void **state)
{
    (void)state;
    ok(" mov.u32 %r20, sm;\n st.shared.u32 [%r20], 0;\n bar.sync 0;\n"
       " atom.shared.add.u32 %r2, [%r20], 1;\n st.global.u32 [%rd3], %r2;\n bar.sync 0;\n"
       " ld.shared.u32 %r3, [%r20];\n st.global.u32 [%rd3+4], %r3;\n"
       " add.s32 %r21, %r1, 1;\n atom.shared.cas.b32 %r4, [%r20+4], 0, %r21;\n st.global.u32 [%rd3+8], %r4;\n"
       " bar.sync 0;\n ld.shared.u32 %r5, [%r20+4];\n st.global.u32 [%rd3+12], %r5;\n"
       " atom.shared.max.s32 %r6, [%r20+8], %r1;\n bar.sync 0;\n"
       " ld.shared.u32 %r7, [%r20+8];\n st.global.u32 [%rd3+16], %r7;\n",
       64);
    /* within a warp the lanes add in lane order; the warps in some order */
    assert_int_equal(out[16 * 5] - out[16 * 0], 5u);
    assert_int_equal(out[16 * 33] - out[16 * 32], 1u);
    assert_true(out[0] == 0 || out[0] == 32);
    assert_int_equal(out[0] + out[16 * 32], 32u);
    assert_int_equal(out[16 * 7 + 1], 64u);
    /* the first lane to run the cas swapped 0 for its tid + 1: lane 0 of one of the warps;
     * every other lane found that and kept it */
    assert_true(out[16 * 9 + 3] == 1 || out[16 * 9 + 3] == 33);
    assert_int_equal(out[16 * 9 + 2], out[16 * 9 + 3]);
    assert_int_equal(out[16 * 9 + 4], 63u);
    assert_int_equal(recs.a[2].kind, PTX_ATOM);
    assert_int_equal(recs.a[2].mask, 0xffffffffu);
}

static void test_vector_widths(void **state)
{
    (void)state;
    ok(" mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 4;\n add.s32 %r3, %r20, %r2;\n"
       " mov.f32 %f1, 0f3F800000;\n"
       " st.shared.v4.f32 [%r3], {%f1, %f1, %f1, %f1};\n"
       " ld.shared.v2.u32 {%r4, %r5}, [%r3+8];\n st.global.u32 [%rd3], %r5;\n"
       " ld.shared.u8 %r6, [%r3+3];\n st.global.u32 [%rd3+4], %r6;\n"
       " ld.shared.s8 %r7, [%r3+3];\n st.global.u32 [%rd3+8], %r7;\n"
       " ld.shared.u16 %rs1, [%r20+2];\n cvt.u32.u16 %r8, %rs1;\n st.global.u32 [%rd3+12], %r8;\n",
       32);
    assert_int_equal(recs.n, 5);
    assert_int_equal(recs.a[0].width, 16);
    assert_int_equal(recs.a[0].addr[3], 48u);
    assert_int_equal(recs.a[1].width, 8);
    assert_int_equal(recs.a[1].addr[3], 56u);
    assert_int_equal(recs.a[2].width, 1);
    assert_int_equal(recs.a[3].width, 1);
    assert_int_equal(recs.a[4].width, 2);
    assert_int_equal(recs.a[4].addr[7], 2u);
    assert_int_equal(out[0], 0x3F800000u);
    assert_int_equal(out[1], 0x3Fu);
    assert_int_equal(out[2], 0x3Fu);
    assert_int_equal(out[3], 0x3F80u);
}

static void test_ldmatrix(void **state)
{
    (void)state;
    /* sm holds the b16 values 0..511; lane l gives row l of the four 8x8 matrices laid one
     * after another (row r of matrix i at 16 (8 i + r)) */
    ok(" mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 5;\n add.s32 %r3, %r20, %r2;\n"
       " shl.b32 %r4, %r1, 4;\n mov.u32 %r5, 0;\n"
       "$F:\n add.s32 %r6, %r4, %r5;\n cvt.u16.u32 %rs1, %r6;\n"
       " shl.b32 %r7, %r5, 1;\n add.s32 %r8, %r3, %r7;\n st.shared.u16 [%r8], %rs1;\n"
       " add.s32 %r5, %r5, 1;\n setp.lt.u32 %p1, %r5, 16;\n @%p1 bra $F;\n"
       " bar.sync 0;\n"
       " shl.b32 %r9, %r1, 4;\n add.s32 %r10, %r20, %r9;\n"
       " ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r11, %r12, %r13, %r14}, [%r10];\n"
       " st.global.u32 [%rd3], %r11;\n st.global.u32 [%rd3+4], %r14;\n"
       " ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r15}, [%r10];\n"
       " st.global.u32 [%rd3+8], %r15;\n",
       32);
    const struct ptx_access *a = &recs.a[recs.n - 2];
    assert_int_equal(a->kind, PTX_LDSM);
    assert_int_equal(a->matrices, 4);
    assert_int_equal(a->width, 16);
    assert_int_equal(a->addr[9], 144u);
    /* thread 5: row 1, columns 2 and 3 of matrix 0: elements 8+2, 8+3 */
    assert_int_equal(out[16 * 5], 10u | 11u << 16);
    /* matrix 3 (rows 24..31): row 24 + 1, columns 2, 3 */
    assert_int_equal(out[16 * 5 + 1], (25u * 8 + 2) | (25u * 8 + 3) << 16);
    /* .trans: thread 5 gets column 1, rows 2 and 3 */
    assert_int_equal(out[16 * 5 + 2], (2u * 8 + 1) | (3u * 8 + 1) << 16);
    assert_int_equal(recs.a[recs.n - 1].matrices, 1);
    assert_int_equal(recs.a[recs.n - 1].trans, 1);
}

static void test_cp_async(void **state)
{
    (void)state;
    ok(" mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 4;\n add.s32 %r3, %r20, %r2;\n"
       " st.global.u32 [%rd3+60], %r1;\n"
       " add.s64 %rd4, %rd3, 48;\n"
       " cp.async.cg.shared.global [%r3], [%rd4], 16;\n cp.async.commit_group;\n"
       " cp.async.wait_group 0;\n bar.sync 0;\n"
       " ld.shared.u32 %r4, [%r3+12];\n st.global.u32 [%rd3], %r4;\n",
       32);
    assert_int_equal(out[16 * 6], 6u);
    assert_int_equal(recs.a[0].kind, PTX_CPASYNC);
    assert_int_equal(recs.a[0].width, 16);
    assert_int_equal(recs.a[0].addr[6], 96u);
    assert_int_equal(recs.a[0].src[6], (uint32_t)(uintptr_t)(out + 16 * 6 + 12));
}

/* mark_reloads: ptxas keeps a shared word it loaded in a register, so a second ld.shared of
 * the same address operand in the block is executed (its value right) but not recorded; a
 * store, a barrier, a branch target or a new base register between them makes it a load again */
static void test_reloads(void **state)
{
    (void)state;
    const char *twice = " mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 2;\n add.s32 %r3, %r20, %r2;\n"
                        " st.shared.u32 [%r3], %r1;\n bar.sync 0;\n"
                        " ld.shared.u32 %r4, [%r3+4];\n shfl.sync.up.b32 %r9, %r4, 1, 0, -1;\n"
                        " ld.shared.u32 %r5, [%r3+4];\n add.s32 %r6, %r4, %r5;\n"
                        " st.global.u32 [%rd3], %r6;\n";
    ok(twice, 32);
    assert_int_equal(recs.n, 2); /* the store and the first load */
    assert_int_equal(out[16 * 5], 12u); /* lane 5: 6 + 6, the reload's value used */
    const char *stored = " mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 2;\n add.s32 %r3, %r20, %r2;\n"
                         " ld.shared.u32 %r4, [%r3];\n st.shared.u32 [%r3+128], %r1;\n"
                         " ld.shared.u32 %r5, [%r3];\n";
    ok(stored, 32);
    assert_int_equal(recs.n, 3);
    const char *rebased = " mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 2;\n add.s32 %r3, %r20, %r2;\n"
                          " ld.shared.u32 %r4, [%r3];\n add.s32 %r3, %r3, 4;\n"
                          " ld.shared.u32 %r5, [%r3];\n";
    ok(rebased, 32);
    assert_int_equal(recs.n, 2);
    const char *volat = " mov.u32 %r20, sm;\n ld.volatile.shared.u32 %r4, [%r20];\n"
                        " ld.volatile.shared.u32 %r5, [%r20];\n";
    ok(volat, 32);
    assert_int_equal(recs.n, 2);
}

static void test_errors(void **state)
{
    (void)state;
    struct bl_err err;
    assert_int_equal(run(" .loc 1 9 2\n tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f1}];\n",
                         32, &err), -1);
    assert_non_null(strstr(err.msg, "tex.2d.v4.f32.f32"));
    assert_non_null(strstr(err.msg, "k.cu:9"));
    /* an unsupported instruction on a path not taken does not stop the run */
    ok(" setp.gt.u32 %p1, %r1, 100;\n @!%p1 bra $S;\n tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];\n$S:\n", 32);
    assert_int_equal(run(" mov.u32 %r20, sm;\n .loc 1 11 4\n ld.shared.u32 %r2, [%r20+1024];\n", 32,
                         &err), -1);
    assert_non_null(strstr(err.msg, "k.cu:11"));
    assert_non_null(strstr(err.msg, "1024"));
    assert_int_equal(run(" bra $NOWHERE;\n", 32, &err), -1);
    assert_non_null(strstr(err.msg, "$NOWHERE"));
    assert_int_equal(run("$L:\n bra.uni $L;\n", 32, &err), -1);
    assert_non_null(strstr(err.msg, "did not finish"));
}

static void test_loc_chain(void **state)
{
    (void)state;
    const char *t =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k()\n{\n .reg .b32 %r<4>;\n .shared .align 4 .b8 a[8];\n"
        " .shared .align 16 .b8 b[32];\n .loc 1 20 5\n"
        " .loc 2 10 3, function_name $L__info_string0, inlined_at 1 20 5\n"
        " .loc 3 107 3, function_name $L__info_string1, inlined_at 2 10 3\n"
        " mov.u32 %r1, b;\n st.shared.u32 [%r1], 1;\n ret;\n}\n"
        ".file 1 \"/home/l/k.cu\"\n.file 2 \"/home/l/h.cuh\"\n"
        ".file 3 \"/usr/local/cuda/include/x.hpp\"\n";
    struct bl_err err;
    bl_err_clear(&err);
    struct ptx_module *m = ptx_module_parse(t, strlen(t), &err);
    assert_non_null(m);
    assert_int_equal(ptx_kernel_static_smem(m, 0), 48); /* a at 0, b at 16 (its .align) */
    struct ptx_launch L = {{1, 1, 1}, {32, 1, 1}, 0, NULL, 0, sink, &recs, NULL, 0, NULL, NULL};
    recs.n = 0;
    assert_int_equal(ptx_run(m, 0, &L, &err), 0);
    assert_int_equal(recs.a[0].addr[0], 16u);
    struct ptx_frame f[8];
    int n = ptx_loc(m, recs.a[0].loc, f, 8);
    assert_int_equal(n, 3);
    assert_string_equal(f[0].file, "/usr/local/cuda/include/x.hpp");
    assert_int_equal(f[0].line, 107);
    assert_int_equal(f[1].line, 10);
    assert_int_equal(f[2].line, 20);
    struct ptx_agg a;
    assert_int_equal(ptx_agg_init(&a, m, 0), 0);
    for (int i = 0; i < recs.n; i++)
        ptx_agg_sink(&a, &recs.a[i]);
    assert_int_equal(ptx_agg_lines(&a, PTX_CHARGE_LEARNER_INNER, NULL), 0);
    assert_int_equal(a.nlines, 1);
    assert_int_equal(a.lines[0].line, 10);
    assert_int_equal(ptx_agg_lines(&a, PTX_CHARGE_LEARNER_OUTER, NULL), 0);
    assert_int_equal(a.lines[0].line, 20);
    assert_true(a.lines[0].inst == 1 && a.lines[0].wavefronts == 1);
    ptx_agg_free(&a);
    ptx_module_free(m);
}

/* a launch's stop: set before the run, no block executes (-1, no error, no access); clear,
 * every block does */
static void test_stop(void **state)
{
    (void)state;
    const char *t =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k()\n{\n .reg .b32 %r<4>;\n .shared .align 4 .b8 a[128];\n"
        " .loc 1 5 1\n mov.u32 %r1, a;\n st.shared.u32 [%r1], 1;\n ret;\n}\n"
        ".file 1 \"/home/l/k.cu\"\n";
    struct bl_err err;
    bl_err_clear(&err);
    struct ptx_module *m = ptx_module_parse(t, strlen(t), &err);
    assert_non_null(m);
    atomic_int stop = 1;
    uint64_t lanes = 7;
    struct ptx_launch L = {{4, 1, 1}, {32, 1, 1}, 0, NULL, 0, sink, &recs, NULL, 0, &lanes, &stop};
    recs.n = 0;
    assert_int_equal(ptx_run(m, 0, &L, &err), -1);
    assert_false(bl_err_failed(&err));
    assert_int_equal(recs.n, 0);
    assert_int_equal(lanes, 0);
    atomic_store(&stop, 0);
    assert_int_equal(ptx_run(m, 0, &L, &err), 0);
    assert_int_equal(recs.n, 4);
    assert_int_equal(lanes, 4 * 32 * 3);
    ptx_module_free(m);
}

/* the aggregation: a 32-way column access, priced by the model */
static void test_agg(void **state)
{
    (void)state;
    struct bl_err err;
    assert_int_equal(run_grid(" mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 5;\n add.s32 %r3, %r20, %r2;\n"
                              " ld.shared.u32 %r4, [%r3];\n",
                              2, 32, &err),
                     0);
    struct ptx_module *m = ptx_module_parse(text, strlen(text), &err);
    struct ptx_agg a;
    assert_int_equal(ptx_agg_init(&a, m, 0), 0);
    for (int i = 0; i < recs.n; i++)
        ptx_agg_sink(&a, &recs.a[i]);
    assert_int_equal(ptx_agg_lines(&a, PTX_CHARGE_OWN, NULL), 0);
    assert_int_equal(a.nlines, 1);
    assert_int_equal(a.lines[0].line, 7);
    assert_true(a.lines[0].inst == 2 && a.lines[0].wavefronts == 16 && a.lines[0].ideal == 2);
    assert_int_equal(a.pcs[0].ways, 8); /* 32 lanes, 8-word stride: banks 0, 8, 16, 24 */
    assert_int_equal(a.pcs[0].npat, 1);
    assert_int_equal(a.pcs[0].pat[0].count, 2);
    ptx_agg_free(&a);
    ptx_module_free(m);
}

/* merging: two 4-byte loads of a warp side by side (s[2 t], s[2 t + 1]) become one 8-byte
 * access where the caller allows 8 bytes on their PCs, as ptxas makes one LDS.64: 2 passes of
 * 16 lanes, 16 consecutive 8-byte words each: 2 wavefronts, ideal 2; unmerged each load is
 * 2-way (lanes t and t + 16 on bank 2t % 32): 2 + 2 */
static void test_agg_merge(void **state)
{
    (void)state;
    struct bl_err err;
    const char *body = " mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 3;\n add.s32 %r3, %r20, %r2;\n"
                       " ld.shared.u32 %r4, [%r3];\n ld.shared.u32 %r5, [%r3+4];\n";
    assert_int_equal(run(body, 32, &err), 0);
    assert_int_equal(recs.n, 2);
    struct ptx_module *m = ptx_module_parse(text, strlen(text), &err);
    for (int merge = 0; merge < 2; merge++) {
        struct ptx_agg a;
        assert_int_equal(ptx_agg_init(&a, m, 0), 0);
        if (merge) {
            assert_int_equal(ptx_agg_merge(&a, recs.a[0].pc, 0, 8), 0);
            assert_int_equal(ptx_agg_merge(&a, recs.a[1].pc, 0, 8), 0);
        }
        for (int i = 0; i < recs.n; i++)
            ptx_agg_sink(&a, &recs.a[i]);
        assert_int_equal(ptx_agg_lines(&a, PTX_CHARGE_OWN, NULL), 0);
        assert_int_equal(a.nlines, 1);
        assert_true(a.lines[0].inst == (merge ? 1 : 2));
        assert_true(a.lines[0].wavefronts == (merge ? 2 : 4));
        assert_true(a.lines[0].ideal == 2);
        ptx_agg_free(&a);
    }
    ptx_module_free(m);
}


/* narrowing: ptxas loads no element of a vector that nothing reads. A float4 of each lane
 * (16 bytes apart) read whole is one 16-byte access: 4 wavefronts, ideal 4. Of .x and .w (or
 * .y and .z: 4 is not 8-aligned) it is two 4-byte loads 16 bytes apart: lanes t, t + 8, t + 16
 * and t + 24 on bank 4t % 32, 4-way: 4 + 4 wavefronts, ideal 1 + 1. Of .x and .y it is one
 * 8-byte load: 2 passes of 16 lanes on banks 4t, 4t + 1 (t < 16), 2-way: 4 wavefronts,
 * ideal 2. A volatile load, or one whose elements nothing reads, is left as it is. */
static void test_agg_narrow(void **state)
{
    (void)state;
    static const struct { const char *ld, *use; int inst, wf, ideal; } c[] = {
        {"ld.shared.v4.f32", "add.f32 %f5, %f1, %f2;\n add.f32 %f6, %f3, %f4;\n add.f32 %f7, %f5, %f6;", 1, 4, 4},
        {"ld.shared.v4.f32", "add.f32 %f7, %f1, %f4;", 2, 8, 2},
        {"ld.shared.v4.f32", "add.f32 %f7, %f2, %f3;", 2, 8, 2},
        {"ld.shared.v4.f32", "add.f32 %f7, %f1, %f2;", 1, 4, 2},
        {"ld.volatile.shared.v4.f32", "add.f32 %f7, %f1, %f4;", 1, 4, 4},
        {"ld.shared.v4.f32", "mov.f32 %f7, 0f00000000;", 1, 4, 4},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 " mov.u32 %%r20, sm;\n shl.b32 %%r2, %%r1, 4;\n add.s32 %%r3, %%r20, %%r2;\n"
                 " %s {%%f1, %%f2, %%f3, %%f4}, [%%r3];\n %s\n st.global.f32 [%%rd3], %%f7;\n",
                 c[i].ld, c[i].use);
        struct bl_err err;
        assert_int_equal(run(body, 32, &err), 0);
        assert_int_equal(recs.n, 1);
        struct ptx_module *m = ptx_module_parse(text, strlen(text), &err);
        struct ptx_agg a;
        assert_int_equal(ptx_agg_init(&a, m, 0), 0);
        ptx_agg_sink(&a, &recs.a[0]);
        assert_int_equal(ptx_agg_lines(&a, PTX_CHARGE_OWN, NULL), 0);
        assert_int_equal(a.nlines, 1);
        if (a.lines[0].inst != c[i].inst || a.lines[0].wavefronts != c[i].wf ||
            a.lines[0].ideal != c[i].ideal)
            fail_msg("case %zu (%s): inst %g wavefronts %g ideal %g", i, c[i].use,
                     a.lines[0].inst, a.lines[0].wavefronts, a.lines[0].ideal);
        ptx_agg_free(&a);
        ptx_module_free(m);
    }
}

/* f16, bf16 and their pairs: each result rounded once, to nearest even, from the exact value */
static void test_half(void **state)
{
    (void)state;
    ok(" mov.f32 %f1, 0f3F801000;\n cvt.rn.f16.f32 %rs1, %f1;\n" /* 1 + 2^-11: a tie, to 1 */
       " cvt.u32.u16 %r2, %rs1;\n st.global.u32 [%rd3], %r2;\n"
       " mov.f32 %f2, 0f3F801800;\n cvt.rn.f16.f32 %rs2, %f2;\n" /* 1 + 3 * 2^-12: up */
       " cvt.u32.u16 %r3, %rs2;\n st.global.u32 [%rd3+4], %r3;\n"
       " mov.f64 %fd1, 0d3FF0020000010000;\n cvt.rn.f16.f64 %rs3, %fd1;\n" /* past the tie */
       " cvt.u32.u16 %r4, %rs3;\n st.global.u32 [%rd3+8], %r4;\n"
       " mov.f32 %f3, 0f477FF000;\n cvt.rn.f16.f32 %rs4, %f3;\n" /* 65520: to infinity */
       " cvt.u32.u16 %r5, %rs4;\n st.global.u32 [%rd3+12], %r5;\n"
       " mov.f32 %f4, 0f33400000;\n cvt.rn.f16.f32 %rs5, %f4;\n" /* 3 * 2^-26: subnormal 1 */
       " cvt.u32.u16 %r6, %rs5;\n st.global.u32 [%rd3+16], %r6;\n"
       " mov.f32 %f5, 0f40400000;\n mov.f32 %f6, 0f3F800000;\n"
       " cvt.rn.f16x2.f32 %r7, %f5, %f6;\n st.global.u32 [%rd3+20], %r7;\n" /* {3, 1} */
       " fma.rn.f16x2 %r8, %r7, %r7, %r7;\n st.global.u32 [%rd3+24], %r8;\n" /* {12, 2} */
       " mov.b16 %rs6, 0x3F80;\n cvt.f32.bf16 %f7, %rs6;\n st.global.f32 [%rd3+28], %f7;\n"
       " mov.f32 %f8, 0f3F808000;\n cvt.rn.bf16.f32 %rs7, %f8;\n" /* 1 + 2^-8: a tie, to 1 */
       " cvt.u32.u16 %r9, %rs7;\n st.global.u32 [%rd3+32], %r9;\n"
       " mov.b32 %r10, 0x3C003C00;\n add.rn.f16x2 %r11, %r10, %r10;\n st.global.u32 [%rd3+36], %r11;\n",
       1);
    assert_int_equal(out[0], 0x3c00);
    assert_int_equal(out[1], 0x3c01);
    assert_int_equal(out[2], 0x3c01); /* not 0x3c00: rounded once from the double */
    assert_int_equal(out[3], 0x7c00);
    assert_int_equal(out[4], 0x0001);
    assert_int_equal(out[5], 0x42003c00u); /* 3.0 high, 1.0 low */
    assert_int_equal(out[6], 0x4a004000u); /* 3 * 3 + 3 = 12, 1 * 1 + 1 = 2 */
    assert_true(f32_of(out[7]) == 1.0f);
    assert_int_equal(out[8], 0x3f80);
    assert_int_equal(out[9], 0x40004000u);
}

/* inline asm's { } blocks with names of their own, WARP_SZ, bfind */
static void test_scopes(void **state)
{
    (void)state;
    ok(" {\n .reg .pred p;\n .reg .s32 r0;\n setp.eq.s32 p, %r1, 1;\n mov.s32 r0, 5;\n"
       " @p add.s32 r0, r0, 10;\n mov.s32 %r2, r0;\n }\n"
       " {\n .reg .s32 r0;\n mov.s32 r0, 7;\n mov.s32 %r3, r0;\n }\n"
       " st.global.u32 [%rd3], %r2;\n st.global.u32 [%rd3+4], %r3;\n"
       " mov.u32 %r4, WARP_SZ;\n st.global.u32 [%rd3+8], %r4;\n"
       " mov.u32 %r5, 0x00F00000;\n bfind.u32 %r6, %r5;\n st.global.u32 [%rd3+12], %r6;\n"
       " bfind.shiftamt.u32 %r7, %r5;\n st.global.u32 [%rd3+16], %r7;\n"
       " bfind.u32 %r8, 0;\n st.global.u32 [%rd3+20], %r8;\n",
       2);
    assert_int_equal(out[0], 5);
    assert_int_equal(out[16], 15);
    assert_int_equal(out[1], 7);
    assert_int_equal(out[2], 32);
    assert_int_equal(out[3], 23);
    assert_int_equal(out[4], 8);
    assert_int_equal(out[5], 0xffffffffu);
}

/* an mbarrier of 64 threads: warp 0 waits on the phase until warp 1 has arrived too */
static void test_mbarrier(void **state)
{
    (void)state;
    ok(" mov.u32 %r20, sm;\n setp.ne.s32 %p1, %r1, 0;\n @%p1 bra SKIP;\n"
       " mbarrier.init.shared::cta.b64 [%r20], 64;\nSKIP:\n bar.sync 0;\n"
       " mbarrier.arrive.shared::cta.b64 %rd4, [%r20];\n"
       "WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r20], 0;\n @!%p2 bra WAIT;\n"
       " mbarrier.test_wait.shared.b64 %p3, [%r20], %rd4;\n selp.u32 %r2, 1, 0, %p3;\n"
       " st.global.u32 [%rd3], %r2;\n",
       64);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[16 * 63], 1);
}

/* wmma m16n16k16: A (row-major, the identity times 2) * B (col-major, b[i][j] = i + j) + C,
 * from shared memory; the loads priced as one LDSM.x4 each, the store as four 8-byte ones */
static void test_wmma(void **state)
{
    (void)state;
    /* sm: A at 0 (16x16 f16), B at 512, C/D f32 at 0 afterwards (A no longer needed) */
    ok(" mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 3;\n" /* lane t fills elements 8 t .. 8 t + 7 */
       " mov.u32 %r3, 0;\nFILL:\n add.u32 %r4, %r2, %r3;\n shr.u32 %r5, %r4, 4;\n and.b32 %r6, %r4, 15;\n"
       " setp.eq.u32 %p1, %r5, %r6;\n selp.u32 %r7, 0x4000, 0, %p1;\n cvt.u16.u32 %rs1, %r7;\n"
       " shl.b32 %r8, %r4, 1;\n add.u32 %r9, %r20, %r8;\n st.shared.u16 [%r9], %rs1;\n"
       " add.u32 %r10, %r5, %r6;\n cvt.rn.f16.u32 %rs2, %r10;\n st.shared.u16 [%r9+512], %rs2;\n"
       " add.u32 %r3, %r3, 1;\n setp.lt.u32 %p2, %r3, 8;\n @%p2 bra FILL;\n"
       " bar.sync 0;\n .loc 1 9 3\n"
       " wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37}, [%r20], 16;\n"
       " add.u32 %r21, %r20, 512;\n"
       " wmma.load.b.sync.aligned.col.m16n16k16.shared.f16 {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47}, [%r21], 16;\n"
       " mov.f32 %f1, 0f3F800000;\n"
       " wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, {%r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37}, {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};\n"
       " bar.sync 0;\n .loc 1 11 3\n"
       " wmma.store.d.sync.aligned.row.m16n16k16.shared.f32 [%r20], {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, 16;\n"
       " bar.sync 0;\n"
       " shl.b32 %r11, %r1, 2;\n add.u32 %r12, %r20, %r11;\n ld.shared.f32 %f10, [%r12];\n"
       " st.global.f32 [%rd3], %f10;\n ld.shared.f32 %f11, [%r12+196];\n st.global.f32 [%rd3+4], %f11;\n",
       32);
    /* D = 2 B + 1 with B col-major: D[i][j] = 2 (j + i) + 1; lane t reads D[0][t] and D[3][t + 1] */
    for (int t = 0; t < 16; t++)
        assert_true(f32_of(out[16 * t]) == 2.0f * (float)t + 1.0f);
    assert_true(f32_of(out[16 * 2 + 1]) == 2.0f * (3 + 3) + 1.0f);
    int ldsm = 0, st8 = 0;
    for (int i = 0; i < recs.n; i++) {
        ldsm += recs.a[i].kind == PTX_LDSM && recs.a[i].matrices == 4;
        st8 += recs.a[i].kind == PTX_ST && recs.a[i].width == 8;
    }
    assert_int_equal(ldsm, 2);
    assert_int_equal(st8, 4);
}

/* merging follows what ptxas can prove: loads off one base register (through an add of a
 * number) merge; two registers that happen to meet, or a base only 4-aligned, do not */
static void test_agg_provable(void **state)
{
    (void)state;
    struct bl_err err;
    static const char *const bodies[3] = {
        /* one base (%r3 and %r6 = %r3 + 0): merged */
        " mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 3;\n add.s32 %r3, %r20, %r2;\n add.s32 %r6, %r3, 0;\n"
        " ld.shared.u32 %r4, [%r3];\n ld.shared.u32 %r5, [%r6+4];\n",
        /* two registers computed apart: not merged */
        " mov.u32 %r20, sm;\n shl.b32 %r2, %r1, 3;\n add.s32 %r3, %r20, %r2;\n"
        " mul.lo.s32 %r6, %r1, 8;\n add.s32 %r7, %r20, %r6;\n"
        " ld.shared.u32 %r4, [%r3];\n ld.shared.u32 %r5, [%r7+4];\n",
        /* a base only known 4-aligned (a row of 12 bytes), even where a lane's is 8-aligned */
        " mov.u32 %r20, sm;\n mul.lo.s32 %r2, %r1, 12;\n add.s32 %r3, %r20, %r2;\n"
        " ld.shared.u32 %r4, [%r3];\n ld.shared.u32 %r5, [%r3+4];\n"};
    for (int b = 0; b < 3; b++) {
        assert_int_equal(run(bodies[b], 2, &err), 0);
        assert_int_equal(recs.n, 2);
        struct ptx_module *m = ptx_module_parse(text, strlen(text), &err);
        struct ptx_agg a;
        assert_int_equal(ptx_agg_init(&a, m, 0), 0);
        assert_int_equal(ptx_agg_merge(&a, recs.a[0].pc, 0, 8), 0);
        assert_int_equal(ptx_agg_merge(&a, recs.a[1].pc, 0, 8), 0);
        for (int i = 0; i < recs.n; i++)
            ptx_agg_sink(&a, &recs.a[i]);
        assert_int_equal(ptx_agg_lines(&a, PTX_CHARGE_OWN, NULL), 0);
        assert_true(a.lines[0].inst == (b == 0 ? 1 : 2));
        ptx_agg_free(&a);
        ptx_module_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arith),       cmocka_unit_test(test_logic),
        cmocka_unit_test(test_reloads),
        cmocka_unit_test(test_float_cvt),   cmocka_unit_test(test_setp_selp),
        cmocka_unit_test(test_branches),    cmocka_unit_test(test_barrier),
        cmocka_unit_test(test_warp_wide),   cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_vector_widths), cmocka_unit_test(test_ldmatrix),
        cmocka_unit_test(test_cp_async),    cmocka_unit_test(test_errors),
        cmocka_unit_test(test_loc_chain),   cmocka_unit_test(test_agg),
        cmocka_unit_test(test_agg_merge),   cmocka_unit_test(test_half),
        cmocka_unit_test(test_scopes),      cmocka_unit_test(test_mbarrier),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_wmma),        cmocka_unit_test(test_agg_provable),
        cmocka_unit_test(test_agg_narrow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
