/* test_pattern_cuda.c: a line of CUDA source as a pattern (src/model/pattern_cuda.c), the
 * text the kernel view's Enter gives the playground: the declarations a line's accesses need
 * (shared arrays and those declared before them, carved pointers, locals, #define and file
 * constants, kernel parameters with their --arg values), loads before stores, and the bank
 * model's verdict on the result; and the one-line reasons when the pattern language cannot
 * express a line. Also: no crash and no read past the text on cut or garbled sources.
 */
#include "pattern_test.h"

#include "../../src/model/pattern_cuda.h"

/* the note pattern_from_cuda left, in English ("" when none) */
static const char *note_en(const struct pattern_cuda *pc)
{
    static char buf[PATTERN_MSG_MAX];
    bl_msg_render(&pc->note, BL_LANG_EN, buf, sizeof buf);
    return buf;
}

/* the shipped example assets/kernels/transpose_seed.cu, as the source article writes it */
static const char transpose_seed[] =
    "// banklab: --grid 32x32 --block 32x32 --arg n=1024 --buffer-size 4M\n"
    "__global__ void transpose(float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float tile[32][32];\n"
    "\n"
    "    int x = blockIdx.x * 32 + threadIdx.x;\n"
    "    int y = blockIdx.y * 32 + threadIdx.y;\n"
    "\n"
    "    tile[threadIdx.y][threadIdx.x] = in[y * n + x];\n"   /* 9: the row store */
    "    __syncthreads();\n"
    "\n"
    "    out[x * n + y] = tile[threadIdx.x][threadIdx.y];\n"  /* 12: the column load */
    "}\n";

static const char carve[] =
    "__global__ void carve(float *out, const float *in, int n)\n"
    "{\n"
    "    extern __shared__ __align__(16) unsigned char buf[];\n"
    "    float *a = (float *)buf;\n"
    "    double *b = (double *)(a + n);\n"
    "    int *c = (int *)(b + n);\n"
    "    int t = threadIdx.x;\n"
    "    out[t] = a[(t * 33) % n] + (float)b[t] + (float)c[(t * 2) % n];\n"   /* 8 */
    "}\n";

static const char misc[] =
    "#define TILE 32\n"
    "#define IDX(a, b) ((a) * TILE + (b))\n"
    "const int ROWS = 8;\n"
    "template <typename T>\n"
    "__global__ void k(float *out, const float *in, int n, int m)\n"
    "{\n"
    "    __shared__ int before[3];\n"                       /* 7: 12 bytes before t */
    "    __shared__ float t[TILE][TILE + 1];\n"
    "    __shared__ T tt[64];\n"
    "    int x = threadIdx.x, y = threadIdx.y;\n"            /* 10 */
    "    int r = y;\n"
    "    r += 1;\n"
    "    t[y][x] += 1.0f;\n"                                 /* 13: a read and a write */
    "    out[x] = t[r][x];\n"                                /* 14: r changed */
    "    out[x] = t[blockIdx.x % 32][x];\n"                  /* 15: the first block */
    "    out[x] = tt[x];\n"                                  /* 16: template type */
    "    out[x] = t[IDX(x, y) % 32][0];\n"                   /* 17: macro with arguments */
    "    out[x] = t[x % ROWS][m];\n"                         /* 18: file constant, parameter */
    "    out[x] = t[(int)in[x]][0];\n"                       /* 19: global memory */
    "    out[x] = t[x][t[0][x]];\n"                          /* 20: index read from shared */
    "    for (int i = threadIdx.x; i < 64; i += 32)\n"
    "        tt[i] = 0;\n"                                   /* 22: a template type */
    "    atomicAdd((int *)&t[x][0], 1);\n"                   /* 23: an atomic */
    "    asm volatile(\"bar.sync 0;\");\n"                    /* 24: inline asm */
    "    out[x] = before[x % 3] + n;\n"                      /* 25 */
    "}\n";

static struct pattern_cuda translate(const char *src, int line, unsigned bx, unsigned by,
                                     unsigned long long dyn, int want_rc)
{
    static const char *const names[] = {"n", "m"}, *const values[] = {"1024", "0x3"};
    struct pattern_cuda_launch l = {.grid = {4, 4, 1}, .block = {bx, by, 1}, .dyn_bytes = dyn, .nargs = 2,
                                    .arg_name = names, .arg_value = values};
    struct pattern_cuda out;
    int rc = pattern_from_cuda(src, strlen(src), line, &l, &out);
    if (rc != want_rc)
        print_error("line %d: rc %d, why '%s', decls '%s', accesses '%s'\n", line, rc, out.err.msg,
                    out.decls, out.accesses);
    assert_int_equal(rc, want_rc);
    if (rc)
        assert_true(out.err.msg[0] != 0);
    return out;
}

/* the translation's declarations (NULL: not checked) and accesses */
static void text_is(const struct pattern_cuda *pc, const char *decls, const char *accesses)
{
    if (decls)
        assert_string_equal(pc->decls, decls);
    assert_string_equal(pc->accesses, accesses);
}

/* the one kernel parameter the translation took from the --arg values */
static void param_is(const struct pattern_cuda *pc, const char *name, long long value)
{
    assert_int_equal(pc->env.nparams, 1);
    assert_string_equal(pc->env.param[0].name, name);
    assert_int_equal(pc->env.param[0].value, value);
}

/* the translated access `which` through the bank model */
static struct bank_result model(const struct pattern_cuda *pc, int which)
{
    char text[2 * PATTERN_CUDA_TEXT + 4];
    snprintf(text, sizeof text, "%s; %s", pc->decls, pc->accesses);
    return sim(text, &pc->env, which, NULL);
}

static void test_transpose(void **state)
{
    (void)state;
    struct pattern_cuda pc = translate(transpose_seed, 9, 32, 32, 0, 0);
    text_is(&pc, "__shared__ float tile[32][32]", "tile[threadIdx.y][threadIdx.x] = 0");
    assert_int_equal(pc.naccess, 1);
    assert_int_equal(pc.env.block[0], 32);
    assert_int_equal(pc.env.block[1], 32);
    assert_int_equal(pc.env.nparams, 0);       /* n indexes global memory only */
    assert_int_equal(model(&pc, 0).wavefronts, 1);
    pc = translate(transpose_seed, 12, 32, 32, 0, 0);
    text_is(&pc, NULL, "tile[threadIdx.x][threadIdx.y]");
    struct bank_result r = model(&pc, 0);
    assert_int_equal(r.wavefronts, 32);        /* the 32-way column of the article */
    assert_int_equal(r.ways, 32);
    /* lines without a shared access say so */
    pc = translate(transpose_seed, 6, 32, 32, 0, -1);
    assert_string_equal(pc.err.msg, "no load or store of a shared array declared in this file");
    pc = translate(transpose_seed, 1, 32, 32, 0, -1);
    assert_string_equal(pc.err.msg, "line 1 is not inside a function");
    pc = translate(transpose_seed, 5, 32, 32, 0, -1);
    assert_string_equal(pc.err.msg, "line 5 has no code");
    pc = translate(transpose_seed, 99, 32, 32, 0, -1);
}

static void test_carve(void **state)
{
    (void)state;
    struct pattern_cuda pc = translate(carve, 8, 256, 1, 4096, 0);
    text_is(&pc, "extern __shared__ __align__(16) unsigned char buf[]; float *a = (float *)buf; "
                 "double *b = (double *)(a + n); int *c = (int *)(b + n); int t = threadIdx.x",
            "a[(t * 33) % n]; b[t]; c[(t * 2) % n]");
    assert_int_equal(pc.naccess, 3);
    assert_int_equal(pc.env.dyn_bytes, 4096);
    param_is(&pc, "n", 1024);
    /* n = 1024 carves past 4096 bytes: the playground will say so; with n = 256 it fits */
    static const char *const names[] = {"n"}, *const values[] = {"256"};
    struct pattern_cuda_launch l = {.grid = {1, 1, 1}, .block = {256, 1, 1}, .dyn_bytes = 4096, .nargs = 1,
                                    .arg_name = names, .arg_value = values};
    assert_int_equal(pattern_from_cuda(carve, strlen(carve), 8, &l, &pc), 0);
    assert_int_equal(model(&pc, 0).wavefronts, 1);   /* a[(t * 33) % n]: conflict free */
    assert_int_equal(model(&pc, 1).wavefronts, 2);   /* b[t]: doubles, two passes */
    assert_int_equal(model(&pc, 2).wavefronts, 2);   /* c[(t * 2) % n]: 2-way */
    /* extern without dynamic shared memory */
    pc = translate(carve, 8, 256, 1, 0, -1);
    assert_string_equal(pc.err.msg, "buf is extern __shared__ and the launch has no dynamic shared "
                                "memory (--smem)");
}

static void test_names(void **state)
{
    (void)state;
    /* a #define, a read and a write in one statement, the arrays declared before */
    struct pattern_cuda pc = translate(misc, 13, 32, 8, 0, 0);
    text_is(&pc, "const int TILE = 32; __shared__ int before[3]; __shared__ float t[TILE][TILE "
                 "+ 1]; int x = threadIdx.x; int y = threadIdx.y", "t[y][x]; t[y][x] = 0");
    assert_string_equal(note_en(&pc), "a read and a write in one statement: shown as its load and "
                                 "its store");
    /* t starts 12 bytes in, as in the kernel: the row of warp 0 is still one wavefront */
    assert_int_equal(model(&pc, 0).wavefronts, 1);
    /* a file constant and a parameter given as hex */
    pc = translate(misc, 18, 32, 8, 0, 0);
    text_is(&pc, NULL, "t[x % ROWS][m]");
    assert_non_null(strstr(pc.decls, "const int ROWS = 8"));
    param_is(&pc, "m", 3);
    /* blockIdx: the first block's, with a note; gridDim: the launch's */
    pc = translate(misc, 15, 32, 8, 0, 0);
    text_is(&pc, NULL, "t[0 % 32][x]");
    assert_string_equal(note_en(&pc), "blockIdx is 0 here: the grid shows the first block");
    /* a template type without its argument: where to give it */
    pc = translate(misc, 22, 32, 1, 0, -1);
    assert_string_equal(pc.err.msg, "T is a template parameter of k: give its value in --name "
                                    "('k<...>')");
    pc = translate(misc, 25, 32, 1, 0, 0);
    text_is(&pc, "__shared__ int before[3]; int x = threadIdx.x", "before[x % 3]");
}

static void test_reasons(void **state)
{
    (void)state;
    struct {
        int line;
        const char *why;
    } cases[] = {
        {14, "r changes at line 12, after its declaration at line 11"},
        {17, "IDX is a macro with arguments: the pattern language has none"},
        {19, "in points to global memory (a parameter of k): the model cannot know what it "
             "holds"},
        {20, "the pattern language cannot read it: index 't[0][x]' is not an integer the model "
             "can compute (a float, or a value read from shared memory)"},
        {23, "atomicAdd is an atomic: the pattern language has loads and stores only"},
        {24, "inline asm (ldmatrix, stmatrix, cp.async): it takes an address, not an index the "
             "pattern language can follow"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct pattern_cuda pc = translate(misc, cases[i].line, 32, 8, 0, -1);
        if (strcmp(pc.err.msg, cases[i].why))
            print_error("line %d\n", cases[i].line);
        assert_string_equal(pc.err.msg, cases[i].why);
    }
    /* a parameter without a value */
    static const char src[] = "__global__ void k(float *o, int s)\n{\n"
                              "    __shared__ float a[1024];\n"
                              "    o[0] = a[threadIdx.x * s];\n}\n";
    struct pattern_cuda_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .dyn_bytes = 0, .nargs = 0,
                                    .arg_name = NULL, .arg_value = NULL};
    struct pattern_cuda pc;
    assert_int_equal(pattern_from_cuda(src, strlen(src), 4, &l, &pc), -1);
    assert_string_equal(pc.err.msg, "the kernel parameter s has no value (--arg s=VALUE)");
    static const char *const names[] = {"s"}, *const values[] = {"1.5"};
    l.nargs = 1;
    l.arg_name = names;
    l.arg_value = values;
    assert_int_equal(pattern_from_cuda(src, strlen(src), 4, &l, &pc), -1);
    assert_string_equal(pc.err.msg, "s=1.5 is not an integer: the model indexes with integers");
}

static void test_loop(void **state)
{
    (void)state;
    static const char src[] = "__global__ void k(float *o)\n{\n"
                              "    __shared__ float s[32 * 33];\n"
                              "    for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x)\n"
                              "        s[i] = (float)i;\n}\n";
    struct pattern_cuda_launch l = {.grid = {1, 1, 1}, .block = {256, 1, 1}, .dyn_bytes = 0, .nargs = 0,
                                    .arg_name = NULL, .arg_value = NULL};
    struct pattern_cuda pc;
    assert_int_equal(pattern_from_cuda(src, strlen(src), 5, &l, &pc), 0);
    text_is(&pc, "__shared__ float s[32 * 33]; int i = threadIdx.x", "s[i] = 0");
    assert_string_equal(note_en(&pc), "i is a loop variable: its first trip, i = threadIdx.x");
}

/* every line of cut and garbled copies: an answer, never a crash (run under ASan too) */
static void test_total(void **state)
{
    (void)state;
    const char *srcs[] = {transpose_seed, carve, misc};
    static const char *const names[] = {"n", "m"}, *const values[] = {"7", "x"};
    struct pattern_cuda_launch l = {.grid = {2, 1, 1}, .block = {32, 4, 1}, .dyn_bytes = 256, .nargs = 2,
                                    .arg_name = names, .arg_value = values};
    struct pattern_cuda pc;
    char buf[2048];
    unsigned seed = 1;
    for (size_t f = 0; f < sizeof srcs / sizeof srcs[0]; f++) {
        size_t n = strlen(srcs[f]);
        for (size_t cut = 0; cut <= n; cut += 3) {
            char *exact = malloc(cut ? cut : 1);   /* not terminated: a read past it is caught */
            assert_non_null(exact);
            memcpy(exact, srcs[f], cut);
            for (int line = 0; line < 30; line++) {
                int rc = pattern_from_cuda(exact, cut, line, &l, &pc);
                assert_true(rc == 0 || (rc == -1 && pc.err.msg[0]));
            }
            free(exact);
        }
        for (int r = 0; r < 300; r++) {
            memcpy(buf, srcs[f], n);
            for (int k = 0; k < 3; k++) {
                seed = seed * 1103515245u + 12345u;
                buf[(seed >> 8) % n] = "{}()[];=*&#\"'/\\\n<>"[(seed >> 20) % 18];
            }
            int rc = pattern_from_cuda(buf, n, (int)((seed >> 4) % 30), &l, &pc);
            assert_true(rc == 0 || (rc == -1 && pc.err.msg[0]));
        }
    }
    assert_int_equal(pattern_from_cuda(NULL, 0, 1, &l, &pc), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transpose), cmocka_unit_test(test_carve),
        cmocka_unit_test(test_names),     cmocka_unit_test(test_reasons),
        cmocka_unit_test(test_loop),      cmocka_unit_test(test_total),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
