/* test_pattern.c: the access-pattern language (src/model/pattern.h): the issue's five patterns
 * through bank_simulate, layout and carving, warps and guards, every error kind with its
 * column, substitution and the caret line. Pure model: no curses, no GPU.
 * link: model
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/model/bank.h"
#include "../../src/model/pattern.h"

/* Parses text (must succeed) and evaluates access `which` under env (must succeed). */
static struct pattern *eval_ok(const char *text, const struct pattern_env *env, int which,
                               struct bank_access *acc)
{
    struct pattern *p = NULL;
    struct pattern_error err;
    int rc = pattern_parse(text, &p, &err);
    if (rc != 0)
        print_error("parse failed: %s (col %d)\n  %s\n", err.msg, err.col, text);
    assert_int_equal(rc, 0);
    assert_non_null(p);
    rc = pattern_eval(p, env, which, acc, &err);
    if (rc != 0)
        print_error("eval failed: %s (col %d, lane %d)\n  %s\n", err.msg, err.col, err.lane,
                    text);
    assert_int_equal(rc, 0);
    return p;
}

/* Runs text's access `which` through the bank model; returns the result. */
static struct bank_result sim(const char *text, const struct pattern_env *env, int which,
                              struct bank_access *acc_out)
{
    struct bank_access acc;
    struct pattern *p = eval_ok(text, env, which, &acc);
    pattern_free(p);
    struct bank_result r;
    assert_int_equal(bank_simulate(&acc, &r, NULL), BANK_OK);
    if (acc_out)
        *acc_out = acc;
    return r;
}

/* Expects a parse error whose message contains `want`, at column col (0: don't check). */
static void parse_err(const char *text, const char *want, int col)
{
    struct pattern *p = (struct pattern *)1;
    struct pattern_error err;
    int rc = pattern_parse(text, &p, &err);
    if (rc == 0 || !strstr(err.msg, want) || (col && err.col != col))
        print_error("pattern: %s\n  got rc %d, col %d: '%s'\n  want col %d: '%s'\n", text, rc,
                    err.col, rc ? err.msg : "", col, want);
    assert_int_equal(rc, -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, want));
    if (col)
        assert_int_equal(err.col, col);
    assert_int_equal(err.lane, -1);
    if (err.col > 0)
        assert_true(err.len >= 1);
}

/* Expects an evaluation error containing `want` at column col and lane (-2: don't check). */
static void eval_err(const char *text, const struct pattern_env *env, const char *want, int col,
                     int lane)
{
    struct pattern *p = NULL;
    struct pattern_error err;
    int rc = pattern_parse(text, &p, &err);
    if (rc != 0)
        print_error("parse failed: %s\n  %s\n", err.msg, text);
    assert_int_equal(rc, 0);
    struct bank_access acc;
    rc = pattern_eval(p, env, 0, &acc, &err);
    if (rc == 0 || !strstr(err.msg, want) || (col && err.col != col) ||
        (lane != -2 && err.lane != lane))
        print_error("pattern: %s\n  got rc %d, col %d, lane %d: '%s'\n  want col %d, lane %d: "
                    "'%s'\n", text, rc, err.col, err.lane, rc ? err.msg : "", col, lane, want);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err.msg, want));
    if (col)
        assert_int_equal(err.col, col);
    if (lane != -2)
        assert_int_equal(err.lane, lane);
    pattern_free(p);
}

/* Column (1-based) of the first occurrence of needle in text. */
static int col_of(const char *text, const char *needle)
{
    const char *s = strstr(text, needle);
    assert_non_null(s);
    return (int)(s - text) + 1;
}

/* ---------------------------------------------------------------- the issue's five */

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

/* ---------------------------------------------------------------- forms */

static void test_access_info(void **state)
{
    (void)state;
    struct pattern *p = NULL;
    struct pattern_error err;
    const char *text = "typedef float4 T; __shared__ T v[64]; float w = v[lane].y; v[lane] = w;"
                       " __shared__ float s[S]; s[lane] = v[lane].x";
    assert_int_equal(pattern_parse(text, &p, &err), 0);
    assert_int_equal(pattern_access_count(p), 3);
    const struct pattern_access_info *a = pattern_access(p, 0);
    assert_int_equal(a->kind, PATTERN_LOAD);
    assert_int_equal(a->width, 4);
    assert_string_equal(a->array, "v");
    assert_string_equal(a->type, "float");
    assert_int_equal(a->col, col_of(text, "float w"));
    a = pattern_access(p, 1);
    assert_int_equal(a->kind, PATTERN_STORE);
    assert_int_equal(a->width, 16);
    assert_string_equal(a->type, "float4");
    a = pattern_access(p, 2);
    assert_int_equal(a->kind, PATTERN_STORE);
    assert_string_equal(a->array, "s");
    assert_null(pattern_access(p, 3));
    assert_null(pattern_access(p, -1));
    assert_int_equal(pattern_param_count(p), 1);
    assert_string_equal(pattern_param_name(p, 0), "S");
    assert_null(pattern_param_name(p, 1));
    pattern_free(p);
}

static void test_types_and_widths(void **state)
{
    (void)state;
    static const struct { const char *type; unsigned width; } cases[] = {
        {"char", 1}, {"unsigned char", 1}, {"short", 2}, {"unsigned short", 2}, {"int", 4},
        {"unsigned", 4}, {"unsigned int", 4}, {"float", 4}, {"double", 8}, {"half", 2},
        {"__half", 2}, {"float2", 8}, {"float4", 16}, {"int2", 8}, {"int4", 16},
        {"double2", 16}, {"long long", 8}, {"unsigned long long", 8}, {"const float", 4},
    };
    struct pattern_env env;
    pattern_env_init(&env);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[160];
        snprintf(text, sizeof text, "__shared__ %s a[64]; a[lane]", cases[i].type);
        struct bank_access acc;
        struct pattern *p = eval_ok(text, &env, 0, &acc);
        assert_int_equal(acc.width, cases[i].width);
        assert_int_equal(acc.offset[3], 3 * cases[i].width);
        const struct pattern_array_info *ai = pattern_array(p, 0);
        assert_non_null(ai);
        assert_int_equal(ai->elem_size, cases[i].width);
        assert_int_equal(ai->bytes, 64 * cases[i].width);
        pattern_free(p);
    }
    /* vector members have the member's width */
    struct bank_access acc;
    struct bank_result r = sim("__shared__ float2 v[64]; v[lane].y", &env, 0, &acc);
    assert_int_equal(acc.width, 4);
    assert_int_equal(acc.offset[2], 2 * 8 + 4);
    assert_int_equal(r.wavefronts, 2); /* stride 2 words: 2-way */
    sim("__shared__ int4 v[64]; v[lane].w", &env, 0, &acc);
    assert_int_equal(acc.offset[1], 16 + 12);
    sim("__shared__ double2 v[64]; v[lane].y", &env, 0, &acc);
    assert_int_equal(acc.width, 8);
    assert_int_equal(acc.offset[1], 16 + 8);
    /* structs of ints, named struct types, typedef'd structs, -> */
    sim("typedef struct { int a; unsigned b; float c; float d; } Q; __shared__ Q q[32]; q[lane].d",
        &env, 0, &acc);
    assert_int_equal(acc.offset[1], 16 + 12);
    sim("__shared__ struct P { float x, y; } a[32]; __shared__ struct P b[32]; b[lane].y", &env, 0,
        &acc);
    assert_int_equal(acc.offset[0], 32 * 8 + 4);
    sim("__shared__ struct { float x, y, z; } p[256]; struct { float x, y, z; } *q = p + 1;"
        " q->y", &env, 0, &acc);
    assert_int_equal(acc.offset[0], 12 + 4);
    /* nested structs: C layout (in: float, pad, double = 16 bytes, then c: 24 in all) */
    struct pattern *p = eval_ok("__shared__ struct { struct { float a; double b; } in; int c; }"
                                " s[4]; s[lane % 4].in.b", &env, 0, &acc);
    assert_int_equal(acc.width, 8);
    assert_int_equal(acc.offset[1], 24 + 8);
    assert_int_equal(pattern_array(p, 0)->bytes, 96);
    pattern_free(p);
}

static void test_typedef_cycling(void **state)
{
    (void)state;
    static const struct { const char *t; int wf; } cases[] = {
        {"char", 1}, {"short", 1}, {"float", 1}, {"double", 2}, {"float4", 4},
    };
    struct pattern_env env;
    pattern_env_init(&env);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "typedef %s T; __shared__ T s[64]; s[lane]", cases[i].t);
        struct bank_result r = sim(text, &env, 0, NULL);
        assert_int_equal(r.wavefronts, cases[i].wf);
    }
}

static void test_locals_minmax(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    env.block[0] = 64;
    env.warp = 1;
    struct bank_access acc;
    /* locals evaluated per lane; warp 1 of a 64-thread block is tid 32..63 */
    sim("__shared__ float s[64][33]; int row = tid / 32; unsigned col = tid % 32;"
        " s[row][col]", &env, 0, &acc);
    for (int i = 0; i < 32; i++)
        assert_int_equal(acc.offset[i], (33 + i) * 4);
    /* reassignment, min/max, ?:, casts, hex/suffixes, shadowing a builtin */
    sim("__shared__ float s[128]; int lane = threadIdx.x & 0x1f; int j = lane * 2U;"
        " j = min(j, 40) + max(0, (int)lane - 30); s[lane < 4 ? 100 : j]", &env, 0, &acc);
    assert_int_equal(acc.offset[0], 400);
    assert_int_equal(acc.offset[4], 8 * 4);
    assert_int_equal(acc.offset[20], 40 * 4);
    assert_int_equal(acc.offset[31], (40 + 1) * 4);
    /* const locals are constants: they can size arrays */
    pattern_env_init(&env);
    pattern_env_set(&env, "PAD", 1);
    struct pattern *p = eval_ok("const int TILE = 32; const int W = TILE + PAD; __shared__ float"
                                " t[TILE][W]; t[lane][lane % TILE]", &env, 0, &acc);
    assert_int_equal(pattern_array(p, 0)->dims[1], 33);
    assert_int_equal(acc.offset[2], (2 * 33 + 2) * 4);
    pattern_free(p);
    /* several declarators; a local without a value is unknown (fine until used in an index) */
    p = eval_ok("__shared__ float s[64]; float sum; int a = lane, b = a * 2; float *c = s + 1;"
                " float v = s[b], w = s[a]; c[b]", &env, 2, &acc);
    assert_int_equal(acc.offset[3], (6 + 1) * 4);
    pattern_free(p);
    p = eval_ok("__shared__ float s[64]; float sum; int a = lane, b = a * 2;"
                " float v = s[b], w = s[a]; s[b + 1]", &env, 1, &acc);
    assert_int_equal(pattern_access_count(p), 3);
    assert_int_equal(acc.offset[3], 3 * 4);
    pattern_free(p);
    const char *t = "__shared__ float s[64]; int k; s[k]";
    parse_err(t, "'k' is not an integer the model can compute", col_of(t, "k]"));
    t = "const int TILE = 32; TILE = 3; __shared__ float s[TILE]; s[lane]";
    parse_err(t, "'TILE' is const", col_of(t, "; TILE") + 2);
    t = "const int K = lane; __shared__ float s[K]; s[lane]";
    parse_err(t, "array dimensions must be constants", col_of(t, "K]"));
    /* operators */
    pattern_env_init(&env);
    sim("__shared__ char c[4096]; c[(((lane << 3) >> 1) ^ 5 | 2) & ~1 % 7 + (!0) * -(-3)"
        " + (lane % 2 == 0 && lane != 2 || lane >= 30) + (lane <= 1) - (lane > 40)]",
        &env, 0, &acc);
    for (int i = 0; i < 32; i++) {
        long long want = (((((i << 3) >> 1) ^ 5) | 2) & (~1 % 7 + 1 * 3)) +
                         ((i % 2 == 0 && i != 2) || i >= 30) + (i <= 1) - (i > 40);
        assert_int_equal(acc.offset[i], want);
    }
    /* a float local and a load into it; sizeof; comments */
    sim("__shared__ double d[64]; /* a */ float f = 2.0f; // b\n double v = d[lane] * f;"
        " d[lane * sizeof(float2) / 8]", &env, 1, &acc);
    assert_int_equal(acc.width, 8);
    assert_int_equal(acc.offset[3], 24);
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
    struct pattern_error err;
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

/* ---------------------------------------------------------------- layout and carving */

static void test_layout(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    env.dyn_bytes = 1024;
    struct bank_access acc;
    struct pattern *p = eval_ok("__shared__ char c[3]; __shared__ double d[5]; __shared__ short h[3];"
                                " __shared__ float4 f[2]; extern __shared__ float dyn[]; dyn[lane]",
                                &env, 0, &acc);
    assert_int_equal(pattern_array_count(p), 5);
    assert_int_equal(pattern_array(p, 0)->base, 0);
    assert_int_equal(pattern_array(p, 1)->base, 8);   /* aligned to 8 */
    assert_int_equal(pattern_array(p, 2)->base, 48);
    assert_int_equal(pattern_array(p, 3)->base, 64);  /* 54 -> 64 for float4 */
    assert_int_equal(pattern_array(p, 3)->bytes, 32);
    assert_int_equal(pattern_array(p, 4)->base, 96);  /* static ends at 96: multiple of 16 */
    assert_int_equal(pattern_array(p, 4)->dynamic, 1);
    assert_int_equal(pattern_array(p, 4)->ndims, 0);
    assert_int_equal(acc.offset[1], 96 + 4);
    pattern_free(p);
    /* dynamic memory starts at the first multiple of 16 after static */
    p = eval_ok("__shared__ float a[3]; extern __shared__ float dyn[]; dyn[lane]", &env, 0, &acc);
    assert_int_equal(acc.offset[0], 16);
    assert_int_equal(pattern_array(p, 0)->ndims, 1);
    assert_int_equal(pattern_array(p, 0)->dims[0], 3);
    pattern_free(p);
    p = eval_ok("__shared__ char c[3]; __shared__ __align__(64) float a[4]; a[lane % 4]", &env, 0,
                &acc);
    assert_int_equal(pattern_array(p, 1)->base, 64);
    assert_int_equal(acc.offset[1], 68);
    pattern_free(p);
    const char *t = "__shared__ __align__(A) float a[4]; a[0]";
    pattern_env_set(&env, "A", 24);
    eval_err(t, &env, "power of two", col_of(t, "A)"), -1);
    p = eval_ok("__shared__ float a[2][3][4]; a[1][2][lane % 4]", &env, 0, &acc);
    assert_int_equal(acc.offset[3], (1 * 12 + 2 * 4 + 3) * 4);
    assert_int_equal(pattern_array(p, 0)->ndims, 3);
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
    p = eval_ok(text, &env, 2, &acc);
    assert_int_equal(acc.width, 8);
    assert_int_equal(acc.offset[1], 256 + 8);
    assert_int_equal(pattern_array_count(p), 4);
    assert_string_equal(pattern_array(p, 3)->name, "vols");
    assert_string_equal(pattern_array(p, 3)->type, "double");
    assert_int_equal(pattern_array(p, 3)->base, 256);
    assert_int_equal(pattern_array(p, 3)->dynamic, 1);
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

/* ---------------------------------------------------------------- warps, guards */

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

static void test_guard(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    struct bank_access acc;
    struct bank_result r = sim("__shared__ float s[1024]; if (lane < 16) s[lane * 32]", &env, 0,
                               &acc);
    assert_int_equal(acc.mask, 0x0000ffffu);
    assert_int_equal(r.wavefronts, 16);
    /* guarded-off lanes are not evaluated: no out-of-bounds error for them */
    sim("__shared__ float s[16]; if (lane < 16) { s[lane] = 0.5f; }", &env, 0, &acc);
    assert_int_equal(acc.mask, 0x0000ffffu);
    assert_int_equal(acc.op, BANK_STORE);
    sim("__shared__ float s[64]; float v; if (lane >= 8) v = s[lane - 8]", &env, 0, &acc);
    assert_int_equal(acc.mask, 0xffffff00u);
    assert_int_equal(acc.offset[8], 0);
    /* else and else if: one access per branch, guarded by "no earlier branch taken" */
    const char *t = "__shared__ float s[64]; if (lane < 8) s[lane]; else if (lane < 20) {"
                    " s[lane * 2] = 1.0f; } else s[0]";
    sim(t, &env, 0, &acc);
    assert_int_equal(acc.mask, 0x000000ffu);
    sim(t, &env, 1, &acc);
    assert_int_equal(acc.mask, 0x000fff00u);
    assert_int_equal(acc.op, BANK_STORE);
    sim(t, &env, 2, &acc);
    assert_int_equal(acc.mask, 0xfff00000u);
    sim("__shared__ float s[64]; if (lane & 1) { s[lane]; } else { s[lane + 1]; }", &env, 1, &acc);
    assert_int_equal(acc.mask, 0x55555555u);
    parse_err("__shared__ float s[64]; s[0]; else s[1]", "'else' without 'if'", 31);
    sim("__shared__ float s[64]; if (lane % 2) s[lane]; s[lane * 2]", &env, 1, &acc);
    assert_int_equal(acc.mask, 0xffffffffu);
    sim("__shared__ float s[64]; if (lane % 2) s[lane]; s[lane * 2]", &env, 0, &acc);
    assert_int_equal(acc.mask, 0xaaaaaaaau);
}

/* ---------------------------------------------------------------- errors */

static void test_parse_errors(void **state)
{
    (void)state;
    const char *t;
    t = "__shared__ float s[32]; s[lane";
    parse_err(t, "expected ']'", (int)strlen(t) + 1);
    t = "__shared__ float s[32; s[lane]";
    parse_err(t, "expected ']'", col_of(t, ";"));
    t = "__shared__ foo s[32]; s[lane]";
    parse_err(t, "unknown type 'foo'", col_of(t, "foo"));
    t = "__shared__ float s[32]; (bar *)s";
    parse_err(t, "unknown type 'bar'", col_of(t, "bar"));
    t = "__shared__ float s[32]; s[lane] @";
    parse_err(t, "unexpected character '@'", col_of(t, "@"));
    parse_err("", "empty pattern", 0);
    parse_err(" ; ;\n", "empty pattern", 0);
    parse_err("__shared__ float s[32];", "no access", 0);
    t = "__shared__ float s[32]; s[lane] += 1";
    parse_err(t, "compound assignment", col_of(t, "+="));
    t = "__shared__ float s[32]; lane * 2";
    parse_err(t, "does not access shared memory", col_of(t, "lane"));
    t = "__shared__ float s[32]; __shared__ float s[4]; s[0]";
    parse_err(t, "already declared", col_of(t, "s[4]"));
    t = "__shared__ float s[32]; s[0.5f]";
    parse_err(t, "not an integer", col_of(t, "0.5f"));
    t = "__shared__ float s[32]; s[s[lane]]";
    parse_err(t, "not an integer", col_of(t, "s[lane]"));
    t = "__shared__ float s[lane]; s[0]";
    parse_err(t, "constants", col_of(t, "lane"));
    t = "__shared__ float s[32]; s[lane] + s[0]";
    parse_err(t, "more than one shared memory read", col_of(t, "s[lane]"));
    t = "__shared__ float3 v[32]; v[lane]";
    parse_err(t, "12-byte", col_of(t, "v[lane]"));
    t = "__shared__ struct { float x, y, z; } p[32]; p[lane].q";
    parse_err(t, "no member 'q'", col_of(t, "q"));
    t = "__shared__ float s[32]; s[0x123456789abcdef01]";
    parse_err(t, "too large", col_of(t, "0x"));
    t = "__shared__ float s[32]; s[09]";
    parse_err(t, "malformed number", col_of(t, "09"));
    t = "float *p = (float *)smem; p[lane]";
    parse_err(t, "unknown name 'smem' (declare it first", col_of(t, "smem"));
    t = "__shared__ float s[32]; s(lane)";
    parse_err(t, "'s' is not a function", col_of(t, "(lane"));
    t = "__shared__ float s[32]; s[blockIdx.x]";
    parse_err(t, "not modelled", col_of(t, "blockIdx"));
    t = "__shared__ float s[32]; s[foo(1)]";
    parse_err(t, "unknown function 'foo'", col_of(t, "foo"));
    t = "__shared__ float s[32]; s[lane] /* open";
    parse_err(t, "unterminated comment", col_of(t, "/*"));
    t = "int x = 1; x = s[0]; __shared__ float s[4]; s[0]";
    parse_err(t, "unknown name 's'", col_of(t, "s[0]"));
    t = "__shared__ float s[32]; s[ROW]; int ROW = 1; s[ROW]";
    parse_err(t, "declared after its first use", col_of(t, "ROW = 1"));
    t = "__shared__ float s[32]; if (lane) int k = 1";
    parse_err(t, "only a shared memory access", col_of(t, "int"));
    t = "__shared__ float s[32][2][2][2]; s[0][0][0][0]";
    parse_err(t, "more than 3 dimensions", col_of(t, "[2]; s"));

    /* nesting too deep, a long expression, too many names, too many accesses, too long */
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "__shared__ float s[32]; s[");
    for (int i = 0; i < PATTERN_MAX_DEPTH + 4; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "(");
    parse_err(buf, "nested too deeply", 0);
    n = snprintf(buf, sizeof buf, "__shared__ float s[32]; s[");
    for (int i = 0; i < 400; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "1+");
    snprintf(buf + n, sizeof buf - (size_t)n, "1]");
    parse_err(buf, "too long or nested too deeply", 0);
    n = snprintf(buf, sizeof buf, "__shared__ float s[32]; s[");
    for (int i = 0; i < PATTERN_MAX_PARAMS + 1; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "P%d+", i);
    snprintf(buf + n, sizeof buf - (size_t)n, "0]");
    parse_err(buf, "too many parameters", col_of(buf, "P16"));
    n = snprintf(buf, sizeof buf, "__shared__ float s[32];");
    for (int i = 0; i < PATTERN_MAX_ACCESSES + 1; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " s[%d];", i);
    parse_err(buf, "too many accesses", col_of(buf, "s[8]"));
    n = 0;
    for (int i = 0; i < 40; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "int v%d = %d; ", i, i);
    parse_err(buf, "too many names", col_of(buf, "v32"));
    n = 0;
    for (int i = 0; i < 17; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "__shared__ char a%d[4]; ", i);
    snprintf(buf + n, sizeof buf - (size_t)n, "a0[0]");
    parse_err(buf, "too many shared arrays and pointers (at most 16)", col_of(buf, "a16"));
    n = snprintf(buf, sizeof buf, "__shared__ ");
    for (int i = 0; i < PATTERN_MAX_DEPTH + 2; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "struct { ");
    parse_err(buf, "structs nested too deeply", 0);
    char *big = malloc(70000);
    assert_non_null(big);
    memset(big, ' ', 69999);
    big[69999] = 0;
    parse_err(big, "longer than", 0);
    free(big);
    t = "__shared__ float s[32]; s[a_name_that_is_much_longer_than_31_chars]";
    parse_err(t, "longer than 31", col_of(t, "a_name"));
}

static void test_eval_errors(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    const char *t;
    t = "__shared__ float tile[32][32 + PAD]; tile[threadIdx.x][0]";
    eval_err(t, &env, "unknown name 'PAD' (give it a value, e.g. --param PAD=1)", col_of(t, "PAD"),
             -1);
    t = "__shared__ float s[64]; s[lane * STRIDE]";
    eval_err(t, &env, "unknown name 'STRIDE'", col_of(t, "STRIDE"), 0);
    t = "__shared__ float s[64]; s[lane * ((STRIDE))]";
    eval_err(t, &env, "unknown name 'STRIDE'", col_of(t, "STRIDE"), 0);
    pattern_env_set(&env, "N", 1);
    t = "__shared__ float s[64]; s[lane / (N - 1)]";
    eval_err(t, &env, "division by zero", col_of(t, "lane /"), 0);
    t = "__shared__ float s[64]; s[lane % (lane - 3)]";
    eval_err(t, &env, "lane 3: division by zero", col_of(t, "lane %"), 3);
    t = "__shared__ float s[64]; s[(lane + 2) * 0x4000000000000000]";
    eval_err(t, &env, "lane 0: integer overflow in '(lane + 2) * 0x4000000000000000'",
             col_of(t, "(lane"), 0);
    t = "__shared__ float s[64]; s[(lane + 9223372036854775807) % 64]";
    eval_err(t, &env, "lane 1: integer overflow", col_of(t, "(lane +"), 1);
    t = "__shared__ float s[64]; s[-(lane - 9223372036854775807 - 1)]";
    eval_err(t, &env, "overflow", col_of(t, "-(lane"), 0);
    t = "__shared__ float s[64]; s[lane >> (lane + 40)]";
    eval_err(t, &env, "lane 24: shift count 64", col_of(t, "lane >>"), 24);
    t = "__shared__ float s[64]; s[(1 << (lane + 40)) & 63]";
    eval_err(t, &env, "lane 23: integer overflow", col_of(t, "(1 <<"), 23);
    t = "__shared__ float s[64]; s[1 << (lane - 1)]";
    eval_err(t, &env, "shift count -1", col_of(t, "1 <<"), 0);
    t = "__shared__ float tile[32][33]; tile[lane][lane + 2]";
    eval_err(t, &env, "lane 31: index 33 is out of bounds for dimension 2 of 'tile' (size 33)",
             col_of(t, "lane + 2"), 31);
    t = "__shared__ float tile[32][33]; tile[lane - 1][0]";
    eval_err(t, &env, "lane 0: index -1 is out of bounds for dimension 1", col_of(t, "lane - 1"),
             0);
    t = "__shared__ float s[16]; float *q = s; q[lane]";
    eval_err(t, &env, "lane 16: 'q' accesses bytes 64..67 of 's', past its 64 bytes",
             col_of(t, "q[lane]"), 16);
    t = "__shared__ float s[0]; s[0]";
    eval_err(t, &env, "must be positive", col_of(t, "0]"), -1);
    t = "__shared__ float s[20000]; s[lane]";
    eval_err(t, &env, "larger than the 48 KB", col_of(t, "s[2"), -1);
    t = "__shared__ float s[0x7fffffffffffffff][2]; s[lane][0]";
    eval_err(t, &env, "larger than the 48 KB", col_of(t, "s[0x"), -1);
    t = "__shared__ float a[8192]; __shared__ float b[8192]; a[lane]";
    eval_err(t, &env, "static shared memory (65536 bytes) exceeds the 48 KB limit",
             col_of(t, "b[8192]"), -1);
    t = "__shared__ float a[1024]; extern __shared__ float d[]; d[lane]";
    env.dyn_bytes = 230000;
    eval_err(t, &env, "4096 bytes static + 230000 bytes dynamic", col_of(t, "d[]"), -1);
    env.smem_limit = 300000;
    struct bank_access acc;
    pattern_free(eval_ok(t, &env, 0, &acc));
    assert_int_equal(acc.offset[0], 4096);
}

static void test_substitute_caret(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    pattern_env_set(&env, "PAD", 1);
    pattern_env_set(&env, "N", -12);
    char buf[128];
    int n = pattern_substitute("__shared__ float tile[32][32 + PAD]; t[PADDING + N + p.N + 0xN]",
                               &env, buf, sizeof buf);
    assert_string_equal(buf, "__shared__ float tile[32][32 + 1]; t[PADDING + -12 + p.N + 0xN]");
    assert_int_equal(n, (int)strlen(buf));
    char small[10];
    assert_int_equal(pattern_substitute("PAD + PAD + PAD + PAD", &env, small, sizeof small), -1);
    assert_string_equal(small, "1 + 1 + 1");
    assert_int_equal(pattern_substitute("x", &env, small, 0), -1);

    struct pattern_error err = {.col = 5, .len = 3, .lane = -1};
    char cb[128];
    assert_string_equal(pattern_error_caret("s[a + PAD]", &err, cb, sizeof cb),
                        "  s[a + PAD]\n      ^~~\n");
    err.len = 50; /* clipped to the line */
    assert_string_equal(pattern_error_caret("s[a+b]", &err, cb, sizeof cb),
                        "  s[a+b]\n      ^~\n");
    err.col = 0;
    assert_string_equal(pattern_error_caret("s[a]", &err, cb, sizeof cb), "  s[a]\n");
    err.col = 9; /* on the second line */
    err.len = 1;
    assert_string_equal(pattern_error_caret("s[0];\ns[b]", &err, cb, sizeof cb),
                        "  s[b]\n    ^\n");
    /* a real error through the caret */
    const char *t = "__shared__ float s[32]; s[lane / 0]";
    struct pattern *p = NULL;
    assert_int_equal(pattern_parse(t, &p, &err), 0);
    struct bank_access acc;
    assert_int_equal(pattern_eval(p, &env, 0, &acc, &err), -1);
    pattern_free(p);
    assert_string_equal(pattern_error_caret(t, &err, cb, sizeof cb),
                        "  __shared__ float s[32]; s[lane / 0]\n"
                        "                            ^~~~~~~~\n");
    char tiny[6];
    pattern_error_caret(t, &err, tiny, sizeof tiny);
    assert_string_equal(tiny, "  __s");
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
    struct pattern_error err;
    struct bank_access acc;
    assert_int_equal(pattern_parse(NULL, NULL, &err), -1);
    assert_int_equal(pattern_eval(NULL, &env, 0, &acc, &err), -1);
    struct pattern *p = NULL;
    assert_int_equal(pattern_parse("__shared__ float s[32]; s[0]", &p, NULL), 0);
    assert_int_equal(pattern_eval(p, &env, 1, &acc, &err), -1);
    assert_int_equal(pattern_eval(p, &env, -1, &acc, &err), -1);
    pattern_free(p);
    pattern_free(NULL);
}

/* Parsing + evaluating a typical pattern must take microseconds (the TUI re-parses per key). */
static void test_speed(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    env.block[1] = 8;
    pattern_env_set(&env, "PAD", 1);
    const char *t = "__shared__ float tile[32][32 + PAD]; int j = threadIdx.y;"
                    " tile[threadIdx.x][j]; tile[j][threadIdx.x] = 1.0f";
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int iters = 2000;
    for (int i = 0; i < iters; i++) {
        struct pattern *p = NULL;
        struct pattern_error err;
        struct bank_access acc;
        assert_int_equal(pattern_parse(t, &p, &err), 0);
        assert_int_equal(pattern_eval(p, &env, 0, &acc, &err), 0);
        assert_int_equal(pattern_eval(p, &env, 1, &acc, &err), 0);
        pattern_free(p);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 /
                iters;
    print_message("parse + 2 evals: %.2f us\n", us);
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "vgpreload"))
        return; /* under valgrind: no timing */
    assert_true(us < 500.0); /* typically ~20 us at -O2; generous for sanitizer builds */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_five_patterns),
        cmocka_unit_test(test_access_info),
        cmocka_unit_test(test_types_and_widths),
        cmocka_unit_test(test_typedef_cycling),
        cmocka_unit_test(test_locals_minmax),
        cmocka_unit_test(test_c_reference),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_carving),
        cmocka_unit_test(test_dynamic_bounds),
        cmocka_unit_test(test_warps),
        cmocka_unit_test(test_guard),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_eval_errors),
        cmocka_unit_test(test_substitute_caret),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_speed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
