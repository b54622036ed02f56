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
/* the call paths of one file, read for this one question (pattern_cuda_file_paths) */
static int pattern_cuda_paths(const char *src, size_t len, int kernel_line, int line)
{
    struct pattern_cuda_file *f = pattern_cuda_open(src, len);
    int n = f ? pattern_cuda_file_paths(f, kernel_line, line) : 0;
    pattern_cuda_close(f);
    return n;
}

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

/* ---------------------------------------------------------------- what developers write */

/* translate line `line` of src for one block of bx threads, with the kernel (its body holding
 * kernel_line) and --name given; want_rc as translate() */
static struct pattern_cuda translate_in(const char *src, int line, unsigned bx, const char *name,
                                        int kernel_line, int path, int want_rc)
{
    struct pattern_cuda_launch l = {.grid = {1, 1, 1}, .block = {bx, 1, 1}, .name = name,
                                    .kernel_line = kernel_line, .path = path};
    struct pattern_cuda out;
    int rc = pattern_from_cuda(src, strlen(src), line, &l, &out);
    if (rc != want_rc)
        print_error("line %d: rc %d, why '%s', decls '%s', accesses '%s'\n", line, rc, out.err.msg,
                    out.decls, out.accesses);
    assert_int_equal(rc, want_rc);
    return out;
}

static const char casts[] =
    "__global__ void k(float *out)\n"
    "{\n"
    "    __shared__ float s[4096];\n"
    "    int lane = threadIdx.x & 31;\n"
    "    float4 a = reinterpret_cast<float4 *>(s)[lane * 4];\n"          /* 5 */
    "    float4 b = ((float4 *)s)[lane * 4];\n"                          /* 6 */
    "    float4 c = *(float4 *)&s[lane * 16];\n"                         /* 7 */
    "    float4 d = *reinterpret_cast<const float4 *>(&s[lane * 16]);\n" /* 8 */
    "    float4 *p = (float4 *)s;\n"                                     /* 9: no access */
    "    float4 e = p[lane * 4];\n"                                      /* 10 */
    "    float2 f = reinterpret_cast<float2 *>(s)[lane * 16];\n"         /* 11 */
    "    *(float4 *)&s[lane * 4] = a;\n"                                 /* 12: a store */
    "    out[lane] = s[lane] * 2;\n"                                     /* 13: '*' multiplies */
    "    float4 g = *(float4 *)(s + 4 * lane);\n"                          /* 14: arithmetic */
    "    out[lane] = *(s + lane * 2);\n"                                   /* 15 */
    "}\n";

/* By hand: float4 index lane*4 is byte 64*lane: a pass of 8 lanes puts the even lanes' 4 words
 * on banks 0-3, the odd lanes' on 16-19: 4 distinct words a bank, 4 passes: 16 wavefronts,
 * 4-way. Float index lane*16 is the same byte. float2 index lane*16 is byte 128*lane: 16 lanes
 * of a pass on banks 0-1: 16 a pass, 32 wavefronts, 16-way. */
static void test_casts(void **state)
{
    (void)state;
    static const char *const want[] = {
        NULL, NULL, NULL, NULL, NULL,
        "((float4 *)(s))[lane * 4]", "((float4 *)s)[lane * 4]", "*(float4 *)&s[lane * 16]",
        "*((const float4 *)(&s[lane * 16]))", NULL, "p[lane * 4]",
        "((float2 *)(s))[lane * 16]"};
    for (int line = 5; line <= 11; line++) {
        if (line == 9)
            continue;
        struct pattern_cuda pc = translate(casts, line, 32, 1, 0, 0);
        text_is(&pc, NULL, want[line]);
        assert_int_equal(pc.naccess, 1);
        struct bank_result r = model(&pc, 0);
        assert_int_equal(r.wavefronts, line == 11 ? 32 : 16);
        assert_int_equal(r.ways, line == 11 ? 16 : 4);
    }
    struct pattern_cuda pc = translate(casts, 10, 32, 1, 0, 0);
    assert_string_equal(pc.decls, "__shared__ float s[4096]; int lane = threadIdx.x & 31; "
                                  "float4 *p = (float4 *)s");
    pc = translate(casts, 9, 32, 1, 0, -1);
    assert_string_equal(pc.err.msg, "no load or store of a shared array declared in this file");
    pc = translate(casts, 12, 32, 1, 0, 0);
    text_is(&pc, NULL, "*(float4 *)&s[lane * 4] = 0");
    assert_int_equal(model(&pc, 0).wavefronts, 4);       /* consecutive float4: 4 passes */
    pc = translate(casts, 13, 32, 1, 0, 0);
    text_is(&pc, NULL, "s[lane]");
    pc = translate(casts, 14, 32, 1, 0, 0);
    text_is(&pc, NULL, "*(float4 *)(s + 4 * lane)");
    assert_int_equal(model(&pc, 0).wavefronts, 4);       /* consecutive float4 */
    pc = translate(casts, 15, 32, 1, 0, 0);
    text_is(&pc, NULL, "*(s + lane * 2)");
    assert_int_equal(model(&pc, 0).wavefronts, 2);       /* stride 2: 2-way */
}

static const char types[] =
    "struct Particle { float x, y, z; };\n"
    "typedef float real;\n"
    "using count_t = int;\n"
    "typedef struct { float a, b; } Pair;\n"
    "__global__ void k(float *out)\n"                                 /* 5 */
    "{\n"
    "    __shared__ Particle p[64];\n"
    "    __shared__ float3 v[64];\n"
    "    __shared__ real r[64];\n"
    "    __shared__ Pair q[64];\n"                                    /* 10 */
    "    count_t t = threadIdx.x;\n"
    "    p[t].y = t;\n"                                               /* 12 */
    "    v[t] = make_float3(t, t, t);\n"                              /* 13 */
    "    float3 w = v[(t * 2) % 64];\n"                               /* 14 */
    "    Particle c = p[t];\n"                                        /* 15 */
    "    out[t] = r[t * 2] + q[t].b;\n"                               /* 16 */
    "}\n";

/* By hand: Particle is 12 bytes, p[t].y word 3t + 1: 3 is odd, 32 lanes on 32 banks: 1. A
 * whole float3 or Particle is three 4-byte accesses (alignment 4). v[(2t) % 64].x is word 6t
 * (+192 after p): t and t + 16 share a bank: 2-way. r[2t]: 2-way. q[t].b: word 2t + 1: 2-way. */
static void test_types(void **state)
{
    (void)state;
    struct pattern_cuda pc = translate(types, 12, 32, 1, 0, 0);
    text_is(&pc, "typedef struct Particle { float x, y, z; } Particle; typedef int count_t; "
                 "__shared__ Particle p[64]; count_t t = threadIdx.x", "p[t].y = 0");
    assert_int_equal(model(&pc, 0).wavefronts, 1);
    pc = translate(types, 13, 32, 1, 0, 0);
    text_is(&pc, NULL, "v[t].x = 0; v[t].y = 0; v[t].z = 0");
    assert_int_equal(pc.naccess, 3);
    pc = translate(types, 14, 32, 1, 0, 0);
    text_is(&pc, NULL, "v[(t * 2) % 64].x; v[(t * 2) % 64].y; v[(t * 2) % 64].z");
    for (int i = 0; i < 3; i++)
        assert_int_equal(model(&pc, i).wavefronts, 2);
    pc = translate(types, 15, 32, 1, 0, 0);
    text_is(&pc, NULL, "p[t].x; p[t].y; p[t].z");
    pc = translate(types, 16, 32, 1, 0, 0);
    text_is(&pc, "typedef struct Particle { float x, y, z; } Particle; typedef float real; "
                 "typedef int count_t; typedef struct { float a, b; } Pair; "
                 "__shared__ Particle p[64]; __shared__ float3 v[64]; __shared__ real r[64]; "
                 "__shared__ Pair q[64]; count_t t = threadIdx.x", "r[t * 2]; q[t].b");
    assert_int_equal(model(&pc, 0).wavefronts, 2);
    assert_int_equal(model(&pc, 1).wavefronts, 2);
    /* a struct's members are not variables: a parameter of the same name is the parameter */
    static const char member[] = "struct P { int m; float x; };\n"
                                 "__global__ void k(float *o, int m)\n{\n"
                                 "    __shared__ P s[64];\n"
                                 "    o[0] = s[threadIdx.x * m].x;\n}\n";
    pc = translate(member, 5, 32, 1, 0, 0);                 /* m = 0x3 (translate's --arg) */
    text_is(&pc, "typedef struct P { int m; float x; } P; __shared__ P s[64]",
            "s[threadIdx.x * m].x");
    param_is(&pc, "m", 3);
    /* a struct with a member function is refused, naming it */
    static const char method[] = "struct V { float x; float get() { return x; } };\n"
                                 "__global__ void k(float *o)\n{\n"
                                 "    __shared__ V s[32];\n"
                                 "    o[0] = s[threadIdx.x].x;\n}\n";
    pc = translate(method, 5, 32, 1, 0, -1);
    assert_string_equal(pc.err.msg, "struct V has functions or constructors: the pattern language "
                                    "knows plain members only");
}

static const char tmpl[] =
    "#define BIG 64\n"
    "template <int TILE, typename V, int PAD = 1>\n"
    "__global__ void carve4(float *out)\n"
    "{\n"
    "    __shared__ float t[TILE][TILE + PAD];\n"                       /* 5 */
    "    __shared__ V vec[BIG];\n"
    "    out[threadIdx.x] = t[threadIdx.x][0];\n"                       /* 7 */
    "    V q = vec[threadIdx.x * 2];\n"                                 /* 8 */
    "}\n";

/* By hand, TILE = 32, PAD = 1 (its default): rows of 33 words, the column conflict free: 1;
 * with --name 'carve4<32, float2, 0>' rows of 32 words: 32. V = float2 at stride 16 bytes:
 * two passes of 16 lanes, lanes l and l + 8 on one bank: 4 wavefronts. */
static void test_template(void **state)
{
    (void)state;
    struct pattern_cuda pc = translate_in(tmpl, 7, 32, "carve4<32, float2>", 0, 0, 0);
    text_is(&pc, "const int TILE = 32; const int PAD = 1; __shared__ float t[TILE][TILE + PAD]",
            "t[threadIdx.x][0]");
    assert_int_equal(model(&pc, 0).wavefronts, 1);
    pc = translate_in(tmpl, 7, 32, "carve4<32, float2, 0>", 0, 0, 0);
    assert_int_equal(model(&pc, 0).wavefronts, 32);
    pc = translate_in(tmpl, 8, 32, "carve4<32,float2>", 0, 0, 0);
    text_is(&pc, "const int BIG = 64; const int TILE = 32; typedef float2 V; const int PAD = 1; "
                 "__shared__ float t[TILE][TILE + PAD]; __shared__ V vec[BIG]",
            "vec[threadIdx.x * 2]");
    assert_int_equal(model(&pc, 0).wavefronts, 4);
    pc = translate_in(tmpl, 7, 32, "carve4", 0, 0, -1);
    assert_string_equal(pc.err.msg, "TILE is a template parameter of carve4: give its value in "
                                    "--name ('carve4<...>')");
    /* without --name's arguments, the file's own launch gives them; two different launches
     * do not */
    char src[1024];
    snprintf(src, sizeof src, "%sint main() { carve4<16, float4, 0><<<1, 16>>>(0); }\n", tmpl);
    pc = translate_in(src, 7, 16, "carve4", 0, 0, 0);
    text_is(&pc, "const int TILE = 16; const int PAD = 0; __shared__ float t[TILE][TILE + PAD]",
            "t[threadIdx.x][0]");
    assert_int_equal(model(&pc, 0).wavefronts, 8);   /* word 16l: banks 0 and 16, 8 lanes each */
    snprintf(src, sizeof src, "%sint main() { carve4<16, float4><<<1, 32>>>(0);\n"
             "carve4<32, float4><<<1, 32>>>(0); }\n", tmpl);
    pc = translate_in(src, 7, 32, NULL, 0, 0, -1);
    assert_non_null(strstr(pc.err.msg, "template parameter of carve4"));
}

static const char helper[] =
    "__device__ float pick(const float *row, int k)\n"
    "{\n"
    "    return row[k * 32];\n"                                        /* 3 */
    "}\n"
    "__device__ void add_up(volatile float *sdata, int tid)\n"
    "{\n"
    "    sdata[tid] += sdata[tid + 32];\n"                              /* 7 */
    "}\n"
    "__device__ float twice(const float *row, int k) { return pick(row, k) + pick(row, k + 1); }\n"
    "__global__ void k(float *out)\n"                                 /* 10 */
    "{\n"
    "    __shared__ float sdata[64];\n"
    "    __shared__ float tile[1024];\n"
    "    int lane = threadIdx.x & 31;\n"
    "    float a = pick(tile, lane);\n"                                 /* 15 */
    "    if (threadIdx.x < 32)\n"
    "        add_up(sdata, threadIdx.x);\n"                             /* 17 */
    "    out[threadIdx.x] = a + twice(tile + 1, lane % 2);\n"
    "}\n";

/* By hand: pick(tile, lane) reads tile[lane * 32]: 32 lanes on bank 0: 32-way. Through
 * twice(tile + 1, lane % 2): pick(row, k) and pick(row, k + 1) read tile[1 + (lane % 2) * 32]
 * and tile[1 + (lane % 2 + 1) * 32]: two words on bank 1: 2 each. add_up runs for the
 * threads below 32 only. */
static void test_helper(void **state)
{
    (void)state;
    assert_int_equal(pattern_cuda_paths(helper, strlen(helper), 11, 3), 3);
    assert_int_equal(pattern_cuda_paths(helper, strlen(helper), 11, 7), 1);
    assert_int_equal(pattern_cuda_paths(helper, strlen(helper), 11, 14), 1);  /* the kernel */
    assert_int_equal(pattern_cuda_paths(helper, strlen(helper), 3, 7), 0);    /* not called */
    struct pattern_cuda pc = translate_in(helper, 3, 64, NULL, 11, 0, 0);
    text_is(&pc, "__shared__ float sdata[64]; __shared__ float tile[1024]; "
                 "int lane = threadIdx.x & 31; const float *row = (tile); int k = (lane)",
            "row[k * 32]");
    assert_int_equal(model(&pc, 0).wavefronts, 32);
    /* through twice: pick(row, k) passes twice's names on; pick(row, k + 1) assigns k */
    pc = translate_in(helper, 3, 64, NULL, 11, 1, 0);
    assert_string_equal(pc.decls, "__shared__ float sdata[64]; __shared__ float tile[1024]; "
                                  "int lane = threadIdx.x & 31; const float *row = (tile + 1); "
                                  "int k = (lane % 2)");
    assert_int_equal(model(&pc, 0).wavefronts, 2);
    pc = translate_in(helper, 3, 64, NULL, 11, 2, 0);
    assert_string_equal(pc.decls, "__shared__ float sdata[64]; __shared__ float tile[1024]; "
                                  "int lane = threadIdx.x & 31; const float *row = (tile + 1); "
                                  "int k = (lane % 2); k = (k + 1)");
    assert_int_equal(model(&pc, 0).wavefronts, 2);
    pc = translate_in(helper, 7, 64, NULL, 11, 0, 0);
    text_is(&pc, "__shared__ float sdata[64]; int tid = (threadIdx.x)",
            "sdata[tid]; sdata[tid + 32]; sdata[tid] = 0");
    /* with control: the caller's if around the call guards the helper's line */
    struct pattern_cuda_launch l = {.grid = {1, 1, 1}, .block = {64, 1, 1}, .kernel_line = 11,
                                    .control = 1};
    assert_int_equal(pattern_from_cuda(helper, strlen(helper), 7, &l, &pc), 0);
    assert_string_equal(pc.guard, "(threadIdx.x < 32)");
    /* without the kernel's line: the first kernel that calls the helper, its first path */
    pc = translate_in(helper, 3, 64, NULL, 0, 0, 0);
    text_is(&pc, NULL, "row[k * 32]");
    assert_int_equal(model(&pc, 0).wavefronts, 32);
    pc = translate_in(helper, 3, 64, NULL, 11, 7, -1);
    assert_string_equal(pc.err.msg, "line 3 is in a function the kernel does not call");
    /* an address passed to a helper of the file is no access of the call's line (the
     * helper's line has it); a pointer-to-array parameter is not followed, and says so */
    static const char addr[] =
        "__device__ float ld(const float *p, int i) { return p[i]; }\n"
        "__device__ void st(float (*t)[33], int r) { t[r][0] = 0; }\n"
        "__global__ void k(float *o)\n{\n"
        "    __shared__ float tile[32][33];\n"
        "    o[0] = ld(&tile[0][0], threadIdx.x);\n"                      /* 6 */
        "    st(tile, threadIdx.x);\n}\n";
    pc = translate_in(addr, 6, 32, NULL, 4, 0, -1);
    assert_string_equal(pc.err.msg, "no load or store of a shared array declared in this file");
    pc = translate_in(addr, 1, 32, NULL, 4, 0, 0);
    text_is(&pc, "__shared__ float tile[32][33]; const float *p = (&tile[0][0]); "
                 "int i = (threadIdx.x)", "p[i]");
    pc = translate_in(addr, 2, 32, NULL, 4, 0, -1);
    assert_string_equal(pc.err.msg, "the helper's parameter t: its argument at the call cannot "
                                    "be followed (an array, a reference or a missing argument)");
    /* a template helper called with explicit arguments: its parameter from the call, the
     * caller's own name passed on, another value bound */
    static const char th[] =
        "template <int B, int S>\n"
        "__device__ void wr(volatile float *s, int t) { s[t * S] += s[t + B]; }\n"   /* 2 */
        "template <int B>\n"
        "__global__ void r(float *o)\n"
        "{\n"
        "    __shared__ float s[B * 2];\n"
        "    if (threadIdx.x < 32) wr<B, 2>(s, threadIdx.x);\n"
        "}\n";
    pc = translate_in(th, 2, 64, "r<64>", 5, 0, 0);
    text_is(&pc, "const int B = 64; __shared__ float s[B * 2]; const int S = 2; "
                 "int t = (threadIdx.x)", "s[t * S]; s[t + B]; s[t * S] = 0");
    assert_int_equal(model(&pc, 0).wavefronts, 2);      /* stride 2: lanes l and l + 16 */
}

static const char consts[] =
    "#define ROWS 8\n"
    "constexpr int PAD = 1;\n"
    "static const int STRIDE = 4;\n"
    "__global__ void k(float *out)\n"
    "{\n"                                                             /* 5 */
    "    constexpr int W = 32;\n"
    "    const int H = ROWS;\n"
    "    __shared__ float a[ROWS][W + PAD];\n"
    "    __shared__ float b[W * STRIDE];\n"
    "    b[threadIdx.x * STRIDE] = 0;\n"                                /* 10 */
    "    out[0] = a[threadIdx.x % H][threadIdx.x / H];\n"               /* 11 */
    "}\n";

/* a macro with arguments in an index: its body with the arguments' text, as the
 * preprocessor substitutes it (AT2(y + 1, x) is y + 1*32 + x, not (y + 1)*32 + x) */
static void test_macros(void **state)
{
    (void)state;
    struct pattern_cuda pc = translate(misc, 17, 32, 8, 0, 0);
    text_is(&pc, "const int TILE = 32; __shared__ int before[3]; __shared__ float t[TILE][TILE "
                 "+ 1]; int x = threadIdx.x; int y = threadIdx.y", "t[((x) * TILE + (y)) % 32][0]");
    static const char src[] = "#define W 32\n"
                              "#define AT2(r,c) (r*W+c)\n"
                              "__global__ void k(float *o)\n{\n"
                              "    __shared__ float u[64 * 64];\n"
                              "    int x = threadIdx.x, y = threadIdx.y;\n"
                              "    o[0] = u[AT2(y + 1, x)] + u[AT2(x, y)];\n}\n";
    pc = translate(src, 7, 32, 1, 0, 0);
    text_is(&pc, "const int W = 32; __shared__ float u[64 * 64]; int x = threadIdx.x; "
                 "int y = threadIdx.y", "u[(y + 1*W+x)]; u[(x*W+y)]");
    assert_int_equal(model(&pc, 0).wavefronts, 1);   /* y + 32 + x: a row */
    assert_int_equal(model(&pc, 1).wavefronts, 32);  /* x * 32: a column */
    /* the preprocessor's text exactly: AT3 has no parentheses of its own, so % binds to x */
    static const char bare3[] = "#define W 32\n#define AT3(r, c) r * W + c\n"
                                "__global__ void k(float *o)\n{\n"
                                "    __shared__ float u[64 * 64];\n"
                                "    o[0] = u[AT3(threadIdx.x, threadIdx.x) % 64];\n}\n";
    pc = translate(bare3, 6, 32, 1, 0, 0);
    text_is(&pc, NULL, "u[threadIdx.x * W + threadIdx.x % 64]");
    assert_int_equal(model(&pc, 0).wavefronts, 1);   /* word 32x + x = 33x: bank x */
    /* without its parentheses it is still a macro the language has not */
    static const char bare[] = "#define F(a) (a)\n__global__ void k(float *o)\n{\n"
                               "    __shared__ float u[64];\n"
                               "    o[0] = u[threadIdx.x + F];\n}\n";
    pc = translate(bare, 5, 32, 1, 0, -1);
    assert_string_equal(pc.err.msg, "F is a macro with arguments: the pattern language has none");
}

/* By hand: stride 4 words: 4-way. a[lane % 8][lane / 8] is word 33r + c: bank r + c, 3..7
 * each taken by four (r, c): 4-way. */
static void test_consts(void **state)
{
    (void)state;
    struct pattern_cuda pc = translate(consts, 10, 32, 1, 0, 0);
    text_is(&pc, "const int ROWS = 8; const int PAD = 1; const int STRIDE = 4; const int W = 32; "
                 "__shared__ float a[ROWS][W + PAD]; __shared__ float b[W * STRIDE]",
            "b[threadIdx.x * STRIDE] = 0");
    assert_int_equal(model(&pc, 0).wavefronts, 4);
    pc = translate(consts, 11, 32, 1, 0, 0);
    assert_int_equal(model(&pc, 0).wavefronts, 4);
    assert_non_null(strstr(pc.decls, "const int H = ROWS"));
}

/* every line of cut and garbled copies of the sources above, read with a kernel line, a
 * --name and each call path: an answer, never a crash (run under ASan too) */
static void test_total_reader(void **state)
{
    (void)state;
    const char *srcs[] = {casts, types, tmpl, helper, consts};
    static const char *const names[] = {"n"}, *const values[] = {"7"};
    char buf[2048];
    unsigned seed = 7;
    for (size_t f = 0; f < sizeof srcs / sizeof srcs[0]; f++) {
        size_t n = strlen(srcs[f]);
        for (size_t cut = 0; cut <= n; cut += 5) {
            char *exact = malloc(cut ? cut : 1);   /* not terminated: a read past it is caught */
            assert_non_null(exact);
            memcpy(exact, srcs[f], cut);
            for (int line = 0; line < 20; line++) {
                struct pattern_cuda_launch l = {.grid = {1, 1, 1}, .block = {32, 2, 1},
                                                .nargs = 1, .arg_name = names,
                                                .arg_value = values, .name = "carve4<32, float2>",
                                                .kernel_line = 11, .path = line % 3,
                                                .control = line % 2};
                struct pattern_cuda pc;
                int rc = pattern_from_cuda(exact, cut, line, &l, &pc);
                assert_true(rc == 0 || (rc == -1 && pc.err.msg[0]));
                assert_true(pattern_cuda_paths(exact, cut, 11, line) >= 0);
            }
            free(exact);
        }
        for (int r = 0; r < 300; r++) {
            memcpy(buf, srcs[f], n);
            for (int k = 0; k < 3; k++) {
                seed = seed * 1103515245u + 12345u;
                buf[(seed >> 8) % n] = "{}()[];=*&#\"'/\\\n<>,"[(seed >> 20) % 19];
            }
            struct pattern_cuda_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1},
                                            .name = (seed & 64) ? "k<" : "carve4<1,,>",
                                            .kernel_line = (int)((seed >> 6) % 20),
                                            .path = (int)(seed % 4)};
            struct pattern_cuda pc;
            int rc = pattern_from_cuda(buf, n, (int)((seed >> 4) % 20), &l, &pc);
            assert_true(rc == 0 || (rc == -1 && pc.err.msg[0]));
        }
    }
}

/* one reading for many lines: pattern_cuda_line over a file opened once answers as
 * pattern_from_cuda does, whatever lines were asked before (each line twice, last to first and
 * first to last, with and without control and call paths) */
static void test_open_once(void **state)
{
    (void)state;
    const char *srcs[] = {transpose_seed, carve, misc, casts, types, tmpl, helper, consts};
    static const char *const names[] = {"n"}, *const values[] = {"7"};
    int same = 0;
    for (size_t f = 0; f < sizeof srcs / sizeof srcs[0]; f++) {
        size_t n = strlen(srcs[f]);
        struct pattern_cuda_file *pf = pattern_cuda_open(srcs[f], n);
        assert_non_null(pf);
        for (int pass = 0; pass < 4; pass++)
            for (int i = 0; i < 32; i++) {
                int line = pass % 2 ? i : 31 - i;
                struct pattern_cuda_launch l = {.grid = {1, 1, 1}, .block = {32, 2, 1},
                                                .nargs = 1, .arg_name = names,
                                                .arg_value = values, .control = pass / 2,
                                                .dyn_bytes = 4096,
                                                .kernel_line = f == 6 ? 11 : 0,
                                                .path = line % 2};
                static struct pattern_cuda a, b;
                int ra = pattern_from_cuda(srcs[f], n, line, &l, &a);
                int rb = pattern_cuda_line(pf, line, &l, &b);
                assert_int_equal(ra, rb);
                assert_string_equal(a.decls, b.decls);
                assert_string_equal(a.accesses, b.accesses);
                assert_string_equal(a.guard, b.guard);
                assert_string_equal(a.err.msg, b.err.msg);
                assert_int_equal(a.nloops, b.nloops);
                assert_int_equal(pattern_cuda_paths(srcs[f], n, 11, line),
                                 pattern_cuda_file_paths(pf, 11, line));
                same += ra == 0;
            }
        pattern_cuda_close(pf);
    }
    assert_true(same >= 40);          /* lines translated, not only reasons compared */
}

/* K&R braces: the kernel's '{' on its name's line, a helper's and a struct's too, a loop's
 * and an if / else's: the same text as the Allman form (transpose_seed: lines 9 and 12) */
static void test_knr(void **state)
{
    (void)state;
    static const char knr[] =
        "// banklab: --grid 32x32 --block 32x32 --arg n=1024 --buffer-size 4M\n"
        "__global__ void transpose(float *in, float *out, int n) {\n"
        "\n"
        "    __shared__ float tile[32][32];\n"
        "\n"
        "    int x = blockIdx.x * 32 + threadIdx.x;\n"
        "    int y = blockIdx.y * 32 + threadIdx.y;\n"
        "\n"
        "    tile[threadIdx.y][threadIdx.x] = in[y * n + x];\n"
        "    __syncthreads();\n"
        "\n"
        "    out[x * n + y] = tile[threadIdx.x][threadIdx.y];\n"
        "}\n";
    static const char *const names[] = {"n"}, *const values[] = {"1024"};
    struct pattern_cuda_launch l = {.grid = {32, 32, 1}, .block = {32, 32, 1}, .nargs = 1,
                                    .arg_name = names, .arg_value = values, .control = 1};
    for (int line = 9; line <= 12; line += 3) {
        static struct pattern_cuda a, b;
        assert_int_equal(pattern_from_cuda(transpose_seed, strlen(transpose_seed), line, &l, &a), 0);
        assert_int_equal(pattern_from_cuda(knr, strlen(knr), line, &l, &b), 0);
        assert_string_equal(a.decls, b.decls);
        assert_string_equal(a.accesses, b.accesses);
    }
    static const char one[] =
        "struct P { float x, y; };\n"
        "__device__ float get(const float *a, int i) { return a[i]; }\n"
        "__global__ void k(float *out) {\n"
        "    __shared__ float s[64];\n"
        "    __shared__ P p[32];\n"
        "    float acc = 0;\n"
        "    for (int j = 0; j < 2; j++) { acc += s[threadIdx.x * 2 + j]; }\n"
        "    if (threadIdx.x < 16) { acc += s[threadIdx.x]; } else {\n"
        "        acc += p[threadIdx.x].y; }\n"
        "    out[0] = acc + get(s, threadIdx.x);\n"
        "}\n";
    struct pattern_cuda_launch m = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .control = 1,
                                    .kernel_line = 3};
    static struct pattern_cuda pc;
    assert_int_equal(pattern_from_cuda(one, strlen(one), 7, &m, &pc), 0);
    assert_string_equal(pc.accesses, "s[threadIdx.x * 2 + j]");
    assert_int_equal(pc.nloops, 1);
    assert_int_equal(pattern_from_cuda(one, strlen(one), 8, &m, &pc), 0);
    assert_string_equal(pc.guard, "(threadIdx.x < 16)");
    assert_int_equal(pattern_from_cuda(one, strlen(one), 9, &m, &pc), 0);
    assert_string_equal(pc.guard, "!(threadIdx.x < 16)");
    assert_non_null(strstr(pc.decls, "struct P"));
    assert_int_equal(pattern_from_cuda(one, strlen(one), 2, &m, &pc), 0);
    assert_string_equal(pc.accesses, "a[i]");          /* a bound to s, i to threadIdx.x */
    assert_non_null(strstr(pc.decls, "s[64]"));
    assert_int_equal(pattern_cuda_paths(one, strlen(one), 3, 2), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transpose), cmocka_unit_test(test_carve),
        cmocka_unit_test(test_names),     cmocka_unit_test(test_reasons),
        cmocka_unit_test(test_loop),      cmocka_unit_test(test_total),
        cmocka_unit_test(test_casts),     cmocka_unit_test(test_types),
        cmocka_unit_test(test_template),  cmocka_unit_test(test_helper),
        cmocka_unit_test(test_consts),    cmocka_unit_test(test_total_reader),
        cmocka_unit_test(test_macros),    cmocka_unit_test(test_open_once),
        cmocka_unit_test(test_knr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
