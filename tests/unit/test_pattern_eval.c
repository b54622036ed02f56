/* test_pattern_eval.c: the evaluator of the pattern language (src/model/pattern_eval.c): the
 * issue's five patterns through bank_simulate, addresses against the C compiler's, layout and
 * carving, dynamic bounds, warps of 1-3-D blocks, the environment, that evaluation keeps no
 * state in the pattern, and that 2000 rounds give the same. Pure model: no curses, no GPU.
 */
#include "pattern_test.h"

static void test_five_patterns(void **state)
{
    (void)state;
    struct pattern_env env;
    struct bank_access acc;
    struct bank_result r;

    pattern_env_init(&env);
    r = sim("__shared__ float data[32][32]; data[threadIdx.x][0]", &env, 0, &acc);
    assert_int_equal(r.wavefronts, 32);
    assert_int_equal(r.conflicts, 31);
    assert_int_equal(acc.width, 4);
    assert_int_equal(acc.offset[5], 5 * 128);

    pattern_env_init(&env);
    env.block[1] = 8;
    assert_int_equal(pattern_env_set(&env, "PAD", 1), 0);
    r = sim("__shared__ float tile[32][32 + PAD]; tile[threadIdx.x][threadIdx.y]", &env, 0, &acc);
    assert_int_equal(r.wavefronts, 1);
    assert_int_equal(acc.offset[3], 3 * 33 * 4);
    assert_int_equal(pattern_env_set(&env, "PAD", 0), 0); /* without padding: 32-way */
    r = sim("__shared__ float tile[32][32 + PAD]; tile[threadIdx.x][threadIdx.y]", &env, 0, NULL);
    assert_int_equal(r.wavefronts, 32);

    pattern_env_init(&env);
    r = sim("__shared__ struct { float x, y, z; } p[256]; p[lane].x", &env, 0, &acc);
    assert_int_equal(r.wavefronts, 1);
    assert_int_equal(acc.width, 4);
    for (int i = 0; i < 32; i++)
        assert_int_equal(acc.offset[i], 12 * i);
    r = sim("__shared__ struct { float x, y, z; } p[256]; p[lane].z", &env, 0, &acc);
    assert_int_equal(acc.offset[1], 12 + 8);

    r = sim("__shared__ float4 v[64]; v[lane * 2]", &env, 0, &acc);
    assert_int_equal(acc.width, 16);
    assert_int_equal(r.wavefronts, 8);
    assert_int_equal(r.conflicts, 4);

    r = sim("__shared__ float s[1024]; s[lane * 32] = 1.0f", &env, 0, &acc);
    assert_int_equal(acc.op, BANK_STORE);
    assert_int_equal(r.wavefronts, 32);
    assert_int_equal(acc.mask, 0xffffffffu);
}

/* ---------------------------------------------------------------- against the C compiler */

/* The compiler lays out the same declarations (a struct with the arrays as members is laid
 * out like our static shared memory) and computes the same addresses. */
typedef struct __attribute__((aligned(16))) { float x, y, z, w; } c_float4;
typedef struct __attribute__((aligned(8))) { float x, y; } c_float2;
typedef struct { float x, y, z; } c_s3;
typedef struct { float a; double b; int c; } c_sm;

static void test_c_reference(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    env.block[0] = 16;
    env.block[1] = 4;
    env.warp = 1;
    env.dyn_bytes = 8192;
    pattern_env_set(&env, "P", -5);
    struct bank_access acc;
    struct c_shared {
        char a0[5];
        c_sm a1[3][4];
        short a2[7];
        c_float4 a3[2][3];
        c_s3 a4[9];
    };
    static union {
        struct c_shared s;
        c_float4 align;
        char bytes[sizeof(struct c_shared) + 16 + 64 * sizeof(c_sm)];
    } mem;
    struct c_shared *S = &mem.s;
    const char *decl = "typedef struct { float a; double b; int c; } SM; __shared__ char a0[5];"
                       " __shared__ SM a1[3][4]; __shared__ short a2[7];"
                       " __shared__ float4 a3[2][3]; __shared__ struct { float x, y, z; } a4[9];";
    char text[1024];
    /* every array's base, a struct member in a 2-D array, a vector member, shifts of negatives */
    snprintf(text, sizeof text, "%s a1[(threadIdx.y + P + 8) %% 3][lane %% 4].c; a3[lane %% 2]"
             "[((-8 << 3) + lane) & 1].z; a4[(lane * 5 + P + 9) %% 9 + 1 - 1].y; a2[lane %% 7];"
             " a0[4 - lane %% 5]", decl);
    for (int which = 0; which < 5; which++) {
        struct pattern *p = eval_ok(text, &env, which, &acc);
        for (int n = 0; n < 32; n++) {
            long long tid = 32 + n, lane = tid % 32, y = tid / 16, P = -5;
            const char *addr;
            switch (which) {
            case 0: addr = (const char *)&S->a1[(y + P + 8) % 3][lane % 4].c; break;
            case 1: addr = (const char *)&S->a3[lane % 2][((-8 * 8) + lane) & 1].z; break;
            case 2: addr = (const char *)&S->a4[(lane * 5 + P + 9) % 9].y; break;
            case 3: addr = (const char *)&S->a2[lane % 7]; break;
            default: addr = (const char *)&S->a0[4 - lane % 5]; break;
            }
            assert_int_equal(acc.offset[n], (uint64_t)(addr - (const char *)S));
        }
        pattern_free(p);
    }
    /* carving: the dynamic base is the static size rounded up to 16 */
    uint64_t dyn = (sizeof(struct c_shared) + 15) / 16 * 16;
    snprintf(text, sizeof text, "%s extern __shared__ char smem[]; c_float2_t *p = (float2 *)smem;"
             " SM *q = (SM *)(p + 3); q[lane].b", decl);
    /* c_float2_t is not a type: the first error names it */
    struct pattern *p = NULL;
    struct bl_err err;
    assert_int_equal(pattern_parse(text, &p, &err), -1);
    assert_non_null(strstr(err.msg, "unknown type 'c_float2_t'"));
    snprintf(text, sizeof text, "%s extern __shared__ char smem[]; float2 *p = (float2 *)smem;"
             " SM *q = (SM *)(p + 3); q[lane].b", decl);
    p = eval_ok(text, &env, 0, &acc);
    const char *smem = mem.bytes + dyn;
    c_sm *q = (c_sm *)(void *)((c_float2 *)(void *)smem + 3);
    for (int n = 0; n < 32; n++)
        assert_int_equal(acc.offset[n], (uint64_t)((const char *)&q[n].b - (const char *)S));
    pattern_free(p);
}

static void test_layout(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    env.dyn_bytes = 1024;
    struct bank_access acc;
    struct pattern_layout lay;
    struct pattern *p = eval_layout("__shared__ char c[3]; __shared__ double d[5]; __shared__ short"
                                    " h[3]; __shared__ float4 f[2]; extern __shared__ float dyn[];"
                                    " dyn[lane]", &env, 0, &acc, &lay);
    assert_int_equal(lay.narrays, 5);
    assert_int_equal(lay.array[0].base, 0);
    assert_int_equal(lay.array[1].base, 8);   /* aligned to 8 */
    assert_int_equal(lay.array[2].base, 48);
    assert_int_equal(lay.array[3].base, 64);  /* 54 -> 64 for float4 */
    assert_int_equal(lay.array[3].bytes, 32);
    assert_int_equal(lay.array[4].base, 96);  /* static ends at 96: multiple of 16 */
    assert_int_equal(lay.array[4].dynamic, 1);
    assert_int_equal(lay.array[4].ndims, 0);
    assert_int_equal(acc.offset[1], 96 + 4);
    pattern_free(p);
    /* dynamic memory starts at the first multiple of 16 after static */
    p = eval_layout("__shared__ float a[3]; extern __shared__ float dyn[]; dyn[lane]", &env, 0,
                    &acc, &lay);
    assert_int_equal(acc.offset[0], 16);
    assert_int_equal(lay.array[0].ndims, 1);
    assert_int_equal(lay.array[0].dims[0], 3);
    pattern_free(p);
    p = eval_layout("__shared__ char c[3]; __shared__ __align__(64) float a[4]; a[lane % 4]",
                    &env, 0, &acc, &lay);
    assert_int_equal(lay.array[1].base, 64);
    assert_int_equal(acc.offset[1], 68);
    pattern_free(p);
    const char *t = "__shared__ __align__(A) float a[4]; a[0]";
    pattern_env_set(&env, "A", 24);
    eval_err(t, &env, "power of two", col_of(t, "A)"), -1);
    p = eval_layout("__shared__ float a[2][3][4]; a[1][2][lane % 4]", &env, 0, &acc, &lay);
    assert_int_equal(acc.offset[3], (1 * 12 + 2 * 4 + 3) * 4);
    assert_int_equal(lay.array[0].ndims, 3);
    pattern_free(p);
}

static void test_carving(void **state)
{
    (void)state;
    const char *text = "extern __shared__ char smem[]; float *prices = (float *)smem;"
                       " float *strikes = prices + N; double *vols = (double *)(strikes + N);"
                       " prices[lane]; strikes[lane]; vols[lane]";
    struct pattern_env env;
    pattern_env_init(&env);
    env.dyn_bytes = 4096;
    pattern_env_set(&env, "N", 32);
    struct bank_access acc;
    struct pattern *p = eval_ok(text, &env, 1, &acc);
    assert_int_equal(acc.offset[0], 128);
    pattern_free(p);
    struct pattern_layout lay;
    p = eval_layout(text, &env, 2, &acc, &lay);
    assert_int_equal(acc.width, 8);
    assert_int_equal(acc.offset[1], 256 + 8);
    assert_int_equal(lay.narrays, 4);
    assert_string_equal(lay.array[3].name, "vols");
    assert_string_equal(lay.array[3].type, "double");
    assert_int_equal(lay.array[3].base, 256);
    assert_int_equal(lay.array[3].dynamic, 1);
    pattern_free(p);

    /* a double pointer right after an odd number of floats is misaligned, even is fine */
    const char *carve = "extern __shared__ char smem[]; float *prices = (float *)smem;"
                        " double *d = (double *)(prices + N); d[lane]";
    pattern_env_set(&env, "N", 3);
    eval_err(carve, &env, "'d' is a double pointer at byte offset 12, not a multiple of 8",
             col_of(carve, "(double *)"), 0);
    pattern_env_set(&env, "N", 4);
    pattern_free(eval_ok(carve, &env, 0, &acc));
    assert_int_equal(acc.offset[0], 16);

    /* &arr[i], pointer arithmetic, *p, casting from a static array */
    pattern_env_init(&env);
    sim("__shared__ float t[32][33]; float *row = &t[warp][0]; *(row + lane)", &env, 0, &acc);
    assert_int_equal(acc.offset[7], 28);
    sim("__shared__ float t[64]; float2 *v = (float2 *)t; v[lane % 16]", &env, 0, &acc);
    assert_int_equal(acc.width, 8);
    assert_int_equal(acc.offset[17], 8);
    env.dyn_bytes = 34 * 16;
    sim("extern __shared__ float4 big[]; float4 *q = big + 2; q[lane]", &env, 0, &acc);
    assert_int_equal(acc.offset[31], 33 * 16);
}

static void test_dynamic_bounds(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    env.dyn_bytes = 64;
    const char *text = "extern __shared__ float s[]; s[lane]";
    eval_err(text, &env, "past its 64 bytes", col_of(text, "s[lane]"), 16);
    text = "extern __shared__ float s[]; float *q = s - 1; q[lane + 1]; q[lane]";
    struct bank_access acc;
    env.dyn_bytes = 128;
    pattern_free(eval_ok(text, &env, 0, &acc)); /* a pointer may point outside */
    assert_int_equal(acc.offset[1], 4);
    text = "extern __shared__ float s[]; float *q = s - 1; q[lane]";
    eval_err(text, &env, "'q' is at byte offset -4, before the start of dynamic shared memory",
             col_of(text, "q[lane]"), 0);
    text = "extern __shared__ float s[]; s[lane - 1]";
    eval_err(text, &env, "byte offset -4", col_of(text, "s[lane - 1]"), 0);
    text = "extern __shared__ char c[]; ((float4 *)c)[lane]";
    env.dyn_bytes = 4096;
    pattern_free(eval_ok(text, &env, 0, &acc));
    text = "extern __shared__ char c[]; ((float4 *)(c + 8))[lane]";
    eval_err(text, &env, "misaligned 16-byte float4 access at byte offset 8", 0, 0);
}

static void test_warps(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    env.block[0] = 32;
    env.block[1] = 8;
    env.warp = 1;
    struct bank_access acc;
    /* warp 1 of a 32 x 8 block: threadIdx.y is 1 */
    sim("__shared__ float t[8][32]; t[threadIdx.y][threadIdx.x]", &env, 0, &acc);
    assert_int_equal(acc.offset[0], 128);
    /* 8 x 32 block: warp 1 holds threadIdx.y 4..7 */
    env.block[0] = 8;
    env.block[1] = 32;
    sim("__shared__ int t[32][8]; t[threadIdx.y][threadIdx.x]", &env, 0, &acc);
    for (int i = 0; i < 32; i++)
        assert_int_equal(acc.offset[i] / 32, 4 + i / 8);
    /* threadIdx.z, blockDim, warp, warpSize */
    pattern_env_init(&env);
    env.block[0] = 4;
    env.block[1] = 4;
    env.block[2] = 4;
    env.warp = 1;
    sim("__shared__ int t[4096]; t[threadIdx.z * 1000 + blockDim.x * 100 + warp * 10 + warpSize"
        " - 32 + tid - 32 * warp]", &env, 0, &acc);
    assert_int_equal(acc.offset[0], (2 * 1000 + 400 + 10) * 4);
    assert_int_equal(acc.offset[17], (3 * 1000 + 400 + 10 + 17) * 4);
    /* partial warp: block 48, warp 1 has 16 active lanes */
    pattern_env_init(&env);
    env.block[0] = 48;
    env.warp = 1;
    struct bank_result r = sim("__shared__ float s[1024]; s[(tid % 32) * 32]", &env, 0, &acc);
    assert_int_equal(acc.mask, 0x0000ffffu);
    assert_int_equal(r.ways, 16);
    assert_int_equal(acc.offset[15], 15 * 128);
    assert_int_equal(acc.offset[16], 0);
    /* a warp past the block: no active lanes, no error */
    env.warp = 5;
    sim("__shared__ float s[64]; s[tid]", &env, 0, &acc);
    assert_int_equal(acc.mask, 0);
}

/* The same pattern evaluated for other accesses and envs in between gives the same result
 * and layout as a fresh one: pattern_eval takes a const pattern and keeps nothing in it. */
static void test_eval_keeps_no_state(void **state)
{
    (void)state;
    const char *text = "extern __shared__ char smem[]; __shared__ float s[8][T]; s[lane % 8][1];"
                       " float *q = (float *)smem; double *r = (double *)(q + T); r[lane];"
                       " q[lane * T]";
    struct pattern_env env, other;
    pattern_env_init(&env);
    pattern_env_set(&env, "T", 4);
    env.dyn_bytes = 2048;
    pattern_env_init(&other);
    pattern_env_set(&other, "T", 2);
    other.dyn_bytes = 4096;
    struct pattern *p = NULL;
    struct bl_err err;
    assert_int_equal(pattern_parse(text, &p, &err), 0);
    const struct pattern *cp = p;
    for (int which = 0; which < 3; which++) {
        struct bank_access want, got;
        struct pattern_layout want_lay, got_lay;
        struct pattern *fresh = eval_layout(text, &env, which, &want, &want_lay);
        pattern_free(fresh);
        for (int k = 2; k >= 0; k--) {  /* the other accesses, under another env */
            struct bank_access acc;
            assert_int_equal(pattern_eval(cp, &other, k, &acc, &got_lay, &err), 0);
        }
        memset(&got_lay, 0x55, sizeof got_lay);
        assert_int_equal(pattern_eval(cp, &env, which, &got, &got_lay, &err), 0);
        assert_int_equal(got.mask, want.mask);
        assert_int_equal(got.width, want.width);
        for (int l = 0; l < 32; l++)
            assert_int_equal(got.offset[l], want.offset[l]);
        assert_int_equal(got_lay.narrays, want_lay.narrays);
        for (int i = 0; i < want_lay.narrays; i++) {
            const struct pattern_array_info *a = &got_lay.array[i], *b = &want_lay.array[i];
            assert_string_equal(a->name, b->name);
            assert_int_equal(a->base, b->base);
            assert_int_equal(a->bytes, b->bytes);
            assert_int_equal(a->dynamic, b->dynamic);
            assert_int_equal(a->ndims, b->ndims);
            for (int k = 0; k < a->ndims; k++)
                assert_int_equal(a->dims[k], b->dims[k]);
        }
    }
    /* the layout of access 0 (before the pointers are carved) has them at 0, not where an
     * earlier evaluation of access 2 carved them */
    struct bank_access acc;
    struct pattern_layout l0;
    assert_int_equal(pattern_eval(cp, &env, 2, &acc, &l0, &err), 0);
    assert_int_equal(l0.array[2].base, 8 * 4 * 4);  /* q = smem, after s[8][4] */
    assert_int_equal(l0.array[2].dynamic, 1);
    assert_int_equal(l0.array[3].base, 8 * 4 * 4 + 4 * 4);  /* r = q + T */
    assert_int_equal(pattern_eval(cp, &env, 0, &acc, &l0, &err), 0);
    assert_int_equal(l0.narrays, 4);
    assert_int_equal(l0.array[2].base, 0);
    assert_int_equal(l0.array[2].dynamic, 0);
    /* a failed evaluation leaves the layout as it was */
    pattern_env_set(&env, "T", 0);
    struct pattern_layout keep = l0;
    assert_int_equal(pattern_eval(cp, &env, 0, &acc, &l0, &err), -1);
    assert_memory_equal(&l0, &keep, sizeof l0);
    pattern_free(p);
}

static void test_env(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    assert_int_equal(env.block[0], 32);
    assert_int_equal(env.block[1], 1);
    assert_int_equal(env.block[2], 1);
    assert_int_equal(env.smem_limit, PATTERN_DEFAULT_SMEM_LIMIT);
    for (int i = 0; i < PATTERN_MAX_PARAMS; i++) {
        char name[16];
        snprintf(name, sizeof name, "P%d", i);
        assert_int_equal(pattern_env_set(&env, name, i), 0);
    }
    assert_int_equal(pattern_env_set(&env, "P3", 33), 0);
    assert_int_equal(env.param[3].value, 33);
    assert_int_equal(pattern_env_set(&env, "EXTRA", 1), -1);
    assert_int_equal(pattern_env_set(&env, "a_name_that_is_much_longer_than_31_chars", 1), -1);
    /* API misuse is an error, not a crash */
    struct bl_err err;
    struct bank_access acc;
    assert_int_equal(pattern_parse(NULL, NULL, &err), -1);
    assert_int_equal(pattern_eval(NULL, &env, 0, &acc, NULL, &err), -1);
    struct pattern *p = NULL;
    assert_int_equal(pattern_parse("__shared__ float s[32]; s[0]", &p, NULL), 0);
    assert_int_equal(pattern_eval(p, &env, 1, &acc, NULL, &err), -1);
    assert_int_equal(pattern_eval(p, &env, -1, &acc, NULL, &err), -1);
    pattern_free(p);
    pattern_free(NULL);
}

/* Parsing and evaluating the same text 2000 times gives the same access each time and leaks
 * nothing (ASan and valgrind runs); its speed is a benchmark (tests/bench/bench_model.c), not
 * a test. */
static void test_repeat(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    env.block[1] = 8;
    pattern_env_set(&env, "PAD", 1);
    const char *t = "__shared__ float tile[32][32 + PAD]; int j = threadIdx.y;"
                    " tile[threadIdx.x][j]; tile[j][threadIdx.x] = 1.0f";
    struct bank_access first[2];
    for (int i = 0; i < 2000; i++) {
        struct pattern *p = NULL;
        struct bl_err err;
        struct bank_access acc[2];
        memset(acc, 0, sizeof acc);
        assert_int_equal(pattern_parse(t, &p, &err), 0);
        assert_int_equal(pattern_eval(p, &env, 0, &acc[0], NULL, &err), 0);
        assert_int_equal(pattern_eval(p, &env, 1, &acc[1], NULL, &err), 0);
        pattern_free(p);
        if (i == 0)
            memcpy(first, acc, sizeof first);
        else
            assert_memory_equal(first, acc, sizeof first);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_five_patterns),
        cmocka_unit_test(test_c_reference),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_carving),
        cmocka_unit_test(test_dynamic_bounds),
        cmocka_unit_test(test_warps),
        cmocka_unit_test(test_eval_keeps_no_state),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_repeat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
