/* test_kernel.c: the parts of `banklab kernel` that need no GPU: reading kernels and their
 * parameters out of source, scalar values, NVRTC's log as FILE:LINE:COL, the launch options
 * (command line and the file's "banklab:" comment), the per-line sums, the wire format
 * between the job and the measuring process, and the SASS decoder against nvdisasm's listing
 * of five H200 cubins (tests/data/kernel). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/kernel/kernel.h"
#include "../../src/kmeasure/kmeasure.h"
#include "../../src/compile/compile.h"
#include "hexfile_test.h"

static int find(const char *src, struct ksrc_kernel *k, int max)
{
    int n = -1;
    ksrc_find_kernels(src, strlen(src), k, max, &n);
    return n;
}

static void test_kernels_found(void **state)
{
    (void)state;
    static struct ksrc_kernel k[8];
    const char *src =
        "// __global__ void in_a_comment(int x)\n"
        "/* __global__ void in_a_block(int x) */\n"
        "#define K __global__ void in_a_macro(int)\n"
        "const char *s = \"__global__ void in_a_string(int)\";\n"
        "extern \"C\" __global__ void plain(float *out, const float *__restrict__ in, int n)\n"
        "{ out[0] = in[n]; }\n"
        "template <typename T, int N>\n"
        "__global__ void __launch_bounds__(256, 2) tmpl(T *p, unsigned long long count) {}\n"
        "namespace lab { namespace inner {\n"
        "__global__ void nested(double d, bool flag, short *h, float a[]) {}\n"
        "} }\n"
        "__global__ void declared(int);\n"
        "__global__ void declared(int n) {}\n"
        "__global__ void noargs(void) {}\n";
    int n = find(src, k, 8);
    assert_int_equal(n, 5);
    assert_string_equal(k[0].name, "plain");
    assert_int_equal(k[0].line, 5);
    assert_int_equal(k[0].is_template, 0);
    assert_int_equal(k[0].nparams, 3);
    assert_string_equal(k[0].params[0].name, "out");
    assert_int_equal(k[0].params[0].kind, KSRC_POINTER);
    assert_string_equal(k[0].params[1].name, "in");
    assert_int_equal(k[0].params[1].kind, KSRC_POINTER);
    assert_string_equal(k[0].params[2].name, "n");
    assert_int_equal(k[0].params[2].kind, KSRC_INT);
    assert_int_equal(k[0].params[2].size, 4);

    assert_string_equal(k[1].name, "tmpl");
    assert_int_equal(k[1].is_template, 1);
    assert_int_equal(k[1].nparams, 2);
    assert_int_equal(k[1].params[0].kind, KSRC_POINTER);
    assert_int_equal(k[1].params[1].kind, KSRC_UINT);
    assert_int_equal(k[1].params[1].size, 8);

    assert_string_equal(k[2].name, "lab::inner::nested");
    assert_int_equal(k[2].nparams, 4);
    assert_int_equal(k[2].params[0].kind, KSRC_FLOAT);
    assert_int_equal(k[2].params[0].size, 8);
    assert_int_equal(k[2].params[1].kind, KSRC_UINT);
    assert_int_equal(k[2].params[1].size, 1);
    assert_int_equal(k[2].params[2].kind, KSRC_POINTER);
    assert_int_equal(k[2].params[3].kind, KSRC_POINTER); /* an array decays */
    assert_string_equal(k[2].params[3].name, "a");

    assert_string_equal(k[3].name, "declared"); /* once, though declared and defined */
    assert_int_equal(k[3].nparams, 1);
    assert_string_equal(k[4].name, "noargs");
    assert_int_equal(k[4].nparams, 0);
}

static void test_kernel_params_odd(void **state)
{
    (void)state;
    struct ksrc_kernel k[2];
    assert_int_equal(find("__global__ void k(unsigned int, float &r, S s, int n = 3) {}", k, 2), 1);
    assert_int_equal(k[0].nparams, 4);
    assert_string_equal(k[0].params[0].name, ""); /* unnamed */
    assert_string_equal(k[0].params[0].type, "unsigned int");
    assert_int_equal(k[0].params[0].kind, KSRC_UINT);
    assert_int_equal(k[0].params[1].kind, KSRC_UNSUPPORTED); /* a reference */
    assert_int_equal(k[0].params[2].kind, KSRC_UNSUPPORTED); /* a struct by value */
    assert_string_equal(k[0].params[3].name, "n");           /* a default value */
    assert_int_equal(k[0].params[3].kind, KSRC_INT);
    char base[64];
    assert_string_equal(ksrc_base_name("vector_width<float4>", base, sizeof base), "vector_width");
    assert_string_equal(ksrc_base_name("k", base, sizeof base), "k");
    /* more kernels than room: the first ones, and -1 */
    int n = 0;
    const char *many = "__global__ void a(){} __global__ void b(){} __global__ void c(){}";
    assert_int_equal(ksrc_find_kernels(many, strlen(many), k, 2, &n), -1);
    assert_int_equal(n, 2);
}

static void test_scalar_values(void **state)
{
    (void)state;
    struct ksrc_param p;
    unsigned char b[8];
    struct bl_err why;
    memset(&p, 0, sizeof p);
    snprintf(p.type, sizeof p.type, "int");
    p.kind = KSRC_INT;
    p.size = 4;
    assert_int_equal(ksrc_scalar_bytes(&p, "-7", b, &why), 0);
    int32_t i;
    memcpy(&i, b, 4);
    assert_int_equal(i, -7);
    assert_int_equal(ksrc_scalar_bytes(&p, "0x10", b, &why), 0);
    memcpy(&i, b, 4);
    assert_int_equal(i, 16);
    assert_int_equal(ksrc_scalar_bytes(&p, "2147483648", b, &why), -1);
    assert_non_null(strstr(why.msg, "out of range"));
    assert_int_equal(ksrc_scalar_bytes(&p, "12x", b, &why), -1);
    assert_int_equal(ksrc_scalar_bytes(&p, "", b, &why), -1);
    snprintf(p.type, sizeof p.type, "unsigned char");
    p.kind = KSRC_UINT;
    p.size = 1;
    assert_int_equal(ksrc_scalar_bytes(&p, "255", b, &why), 0);
    assert_int_equal(b[0], 255);
    assert_int_equal(ksrc_scalar_bytes(&p, "256", b, &why), -1);
    assert_int_equal(ksrc_scalar_bytes(&p, "-1", b, &why), -1);
    assert_non_null(strstr(why.msg, "unsigned"));
    snprintf(p.type, sizeof p.type, "float");
    p.kind = KSRC_FLOAT;
    p.size = 4;
    assert_int_equal(ksrc_scalar_bytes(&p, "0.5", b, &why), 0);
    float f;
    memcpy(&f, b, 4);
    assert_true(f == 0.5f);
    assert_int_equal(ksrc_scalar_bytes(&p, "nan", b, &why), -1);
    p.kind = KSRC_UNSUPPORTED;
    assert_int_equal(ksrc_scalar_bytes(&p, "1", b, &why), -1);
}

static void test_nvrtc_log(void **state)
{
    (void)state;
    /* NVRTC's form: the message, the line echoed after two blanks, a caret under the column
     * (tabs mirrored) */
    const char *log =
        "/abs/k.cu(4): error: identifier \"undefined_thing\" is undefined\n"
        "      out[x] = undefined_thing + 1;\n"
        "               ^\n"
        "\n"
        "/abs/k.cu(2): warning #177-D: variable \"q\" was declared but never referenced\n"
        "  \tint  q = 3;\tq += zz;\n"
        "  \t           \t     ^\n"
        "\n"
        "dir/h.cuh(1): catastrophic error: cannot open source file \"missing.h\"\n"
        "  #include \"missing.h\"\n"
        "                      ^\n"
        "\n"
        "2 errors detected in the compilation of \"/abs/k.cu\".\n";
    struct gpu_kernel_diag *d = NULL;
    int n = 0, nerr = 0;
    assert_int_equal(ksrc_parse_log(log, "k.cu", &d, &n, &nerr), 0);
    assert_int_equal(n, 3);
    assert_int_equal(nerr, 2);
    assert_string_equal(d[0].file, "/abs/k.cu");
    assert_int_equal(d[0].line, 4);
    assert_int_equal(d[0].col, 14);
    assert_int_equal(d[0].error, 1);
    assert_string_equal(d[0].message, "identifier \"undefined_thing\" is undefined");
    assert_int_equal(d[1].error, 0);
    assert_int_equal(d[1].line, 2);
    assert_int_equal(d[1].col, 19);
    assert_string_equal(d[2].file, "dir/h.cuh");
    assert_int_equal(d[2].col, 21);
    free(d);
    /* an error without a location still comes back, in the given file */
    assert_int_equal(ksrc_parse_log("nvrtc: error: invalid value for --gpu-architecture (-arch)\n",
                                    "k.cu", &d, &n, &nerr), 0);
    assert_int_equal(n, 1);
    assert_int_equal(nerr, 1);
    assert_string_equal(d[0].file, "k.cu");
    assert_int_equal(d[0].line, 0);
    free(d);
    assert_int_equal(ksrc_parse_log("", "k.cu", &d, &n, &nerr), 0);
    assert_int_equal(n, 0);
    assert_int_equal(nerr, 0);
    free(d);
}

static void test_options(void **state)
{
    (void)state;
    struct gpu_kernel_request r;
    char err[256];
    gpu_kernel_request_init(&r);
    assert_int_equal(r.grid[0], 1);
    assert_int_equal(r.block[0], 256);
    assert_int_equal(r.server_idle, 0);
    assert_int_equal(gpu_kernel_option(&r, "--grid", "32x16x2", err, sizeof err), 1);
    assert_int_equal(r.grid[0], 32);
    assert_int_equal(r.grid[1], 16);
    assert_int_equal(r.grid[2], 2);
    assert_int_equal(gpu_kernel_option(&r, "--block", "32,8", err, sizeof err), 1);
    assert_int_equal(r.block[0] * r.block[1] * r.block[2], 256);
    assert_int_equal(gpu_kernel_option(&r, "--block", "64x32", err, sizeof err), -1);
    assert_non_null(strstr(err, "2048 threads"));
    assert_int_equal(gpu_kernel_option(&r, "--grid", "0", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&r, "--grid", "4x", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&r, "--smem", "48K", err, sizeof err), 1);
    assert_int_equal(r.smem, 48 * 1024);
    assert_int_equal(gpu_kernel_option(&r, "--smem", "-1", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&r, "--arg", "n=1024", err, sizeof err), 1);
    assert_int_equal(gpu_kernel_option(&r, "--arg", "n=2048", err, sizeof err), 1);
    assert_int_equal(r.nargs, 1); /* replaced, not added */
    assert_string_equal(r.args[0].value, "2048");
    assert_int_equal(gpu_kernel_option(&r, "--arg", "n", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&r, "--arg", "a-b=1", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&r, "--buffer-size", "4M", err, sizeof err), 1);
    assert_int_equal(r.buffer_size, 4u << 20);
    assert_int_equal(gpu_kernel_option(&r, "--buffer-size", "out=1G", err, sizeof err), 1);
    assert_int_equal(r.nbufs, 1);
    assert_int_equal(gpu_kernel_option(&r, "--buffer-size", "2", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&r, "--fill", "int", err, sizeof err), 1);
    assert_int_equal(r.fill, GPU_FILL_INT);
    assert_int_equal(gpu_kernel_option(&r, "--fill", "ones", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&r, "--time-limit", "0.05", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&r, "--time-limit", "2.5", err, sizeof err), 1);
    assert_int_equal(gpu_kernel_option(&r, "--device", "64", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&r, "--name", "k<float4>", err, sizeof err), 1);
    assert_string_equal(r.name, "k<float4>");
    assert_int_equal(gpu_kernel_option(&r, "--json", "x", err, sizeof err), 0);
    assert_int_equal(gpu_kernel_option(&r, "--grid", NULL, err, sizeof err), -1);
}

static void test_file_options(void **state)
{
    (void)state;
    struct gpu_kernel_request r;
    char err[256];
    const char *src = "// a comment\n"
                      "// banklab: --grid 32x32 --block 32x32\n"
                      "/* more words\n"
                      " * banklab: --arg n=1024 --name 'k<float>'\n"
                      " */\n"
                      "// banklab: --smem 4K\n"
                      "__global__ void k(int n) {}\n"
                      "// banklab: --grid 7\n";
    gpu_kernel_request_init(&r);
    assert_int_equal(gpu_kernel_file_options(&r, src, strlen(src), err, sizeof err), 0);
    assert_int_equal(r.grid[0], 32);
    assert_int_equal(r.block[1], 32);
    assert_int_equal(r.nargs, 1);
    assert_string_equal(r.name, "k<float>");
    assert_int_equal(r.smem, 4096);
    /* errors say LINE:COL of the word */
    const char *bad = "\n// banklab: --grid 32 --block 0\n__global__ void k() {}\n";
    gpu_kernel_request_init(&r);
    assert_int_equal(gpu_kernel_file_options(&r, bad, strlen(bad), err, sizeof err), -1);
    assert_true(!strncmp(err, "2:31: --block", 13));
    const char *unknown = "// banklab: --json\n";
    assert_int_equal(gpu_kernel_file_options(&r, unknown, strlen(unknown), err, sizeof err), -1);
    assert_true(!strncmp(err, "1:13: '--json' is not a launch option", 37));
    const char *dev = "// banklab: --device 1\n"; /* the machine's business, not the file's */
    assert_int_equal(gpu_kernel_file_options(&r, dev, strlen(dev), err, sizeof err), -1);
    const char *dangling = "// banklab: --grid\n";
    assert_int_equal(gpu_kernel_file_options(&r, dangling, strlen(dangling), err, sizeof err), -1);
    assert_non_null(strstr(err, "needs a value"));
}

static void test_lines_sum(void **state)
{
    (void)state;
    struct gpu_kernel_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(kres_add_file(&r, "k.cu"), 0);
    assert_int_equal(kres_add_file(&r, "lds.cuh"), 1);
    assert_int_equal(kres_add_file(&r, "k.cu"), 0);
    r.insts = calloc(4, sizeof *r.insts);
    r.ninsts = 4;
    struct gpu_kernel_inst in[4] = {
        {.pc = 0x80, .file = 0, .line = 9, .op = GPU_KOP_LD, .ideal_known = 1, .inst = 32,
         .wavefronts = 1024, .ideal = 32},
        {.pc = 0x10, .file = 0, .line = 7, .op = GPU_KOP_ST, .ideal_known = 1, .inst = 32,
         .wavefronts = 32, .ideal = 32},
        {.pc = 0x90, .file = 0, .line = 9, .op = GPU_KOP_LD, .ideal_known = 1, .inst = 32,
         .wavefronts = 64, .ideal = 32},
        {.pc = 0x40, .file = 1, .line = 3, .op = GPU_KOP_LD, .ideal_known = 0, .inst = 8,
         .wavefronts = 8},
    };
    memcpy(r.insts, in, sizeof in);
    assert_int_equal(kres_build_lines(&r), 0);
    assert_int_equal(r.insts[0].pc, 0x10); /* by pc */
    assert_int_equal(r.nlines, 3);
    assert_int_equal(r.lines[0].line, 7);
    assert_int_equal(r.lines[1].line, 9);
    assert_int_equal(r.lines[1].ninst, 2);
    assert_true(r.lines[1].wavefronts == 1088);
    assert_true(r.lines[1].excess == 1024);
    assert_true(r.lines[1].ways == 17);
    assert_int_equal(r.lines[2].file, 1);
    assert_int_equal(r.lines[2].ideal_known, 0);
    assert_true(r.totals.wavefronts == 1128);
    assert_true(r.totals.op_wavefronts[GPU_KOP_ST] == 32);
    assert_true(r.totals.op_inst[GPU_KOP_LD] == 72);
    gpu_kernel_result_done(&r);
    assert_null(r.lines);
}

/* The result goes through the wire as the measuring process sends it. */
static void test_wire_result(void **state)
{
    (void)state;
    struct gpu_kernel_result r, back;
    memset(&r, 0, sizeof r);
    r.err.status = GPU_KERNEL_ECOMPILE;
    snprintf(r.err.msg, sizeof r.err.msg, "k.cu: 1 compile error");
    kres_add_file(&r, "k.cu");
    r.diags = calloc(1, sizeof *r.diags);
    r.ndiags = 1;
    r.diags[0].line = 4;
    r.diags[0].col = 14;
    snprintf(r.diags[0].message, sizeof r.diags[0].message, "identifier is undefined");
    r.insts = calloc(1, sizeof *r.insts);
    r.ninsts = 1;
    r.insts[0].wavefronts = 5;
    kres_build_lines(&r);
    int p[2];
    assert_int_equal(pipe(p), 0);
    kwire_phase(p[1], GPU_KPHASE_COMPILE);
    assert_int_equal(kwire_put_result(p[1], &r), 0);
    close(p[1]);
    static unsigned char buf[1 << 20];
    size_t n = 0;
    ssize_t got;
    while ((got = read(p[0], buf + n, sizeof buf - n)) > 0)
        n += (size_t)got;
    close(p[0]);
    uint32_t head[2];
    memcpy(head, buf, 8);
    assert_int_equal(head[0], KWIRE_PHASE);
    size_t at = 8 + head[1];
    memcpy(head, buf + at, 8);
    assert_int_equal(head[0], KWIRE_RESULT);
    assert_int_equal(kwire_get_result(buf + at + 8, head[1], &back, NULL), 0);
    assert_int_equal(back.err.status, GPU_KERNEL_ECOMPILE);
    assert_string_equal(back.err.msg, r.err.msg);
    assert_int_equal(back.ndiags, 1);
    assert_int_equal(back.diags[0].col, 14);
    assert_string_equal(back.files[0], "k.cu");
    assert_int_equal(back.nlines, 1);
    assert_true(back.lines[0].wavefronts == 5);
    /* a short or padded payload is refused */
    struct gpu_kernel_result junk;
    assert_int_equal(kwire_get_result(buf + at + 8, head[1] - 1, &junk, NULL), -1);
    assert_int_equal(kwire_get_result(buf + at + 8, 16, &junk, NULL), -1);
    gpu_kernel_result_done(&r);
    gpu_kernel_result_done(&back);
}

/* Every shared-memory instruction of nvdisasm's listing decodes to the same mnemonic and
 * width, and nothing else decodes as one. */
static void check_cubin(const char *cubin, const char *listing, const char *symbol, int expect)
{
    size_t n = 0;
    unsigned char *b = hexfile_read(cubin, &n);
    assert_non_null(b);
    const uint8_t *code;
    size_t size;
    assert_int_equal(sass_function_code(b, n, symbol, &code, &size), 0);
    assert_int_equal(sass_function_code(b, n, "no_such_symbol", &code, &size), -1);
    assert_int_equal(sass_function_code(b, n, symbol, &code, &size), 0);
    FILE *f = fopen(listing, "r");
    assert_non_null(f);
    char line[512];
    int seen = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned pc;
        char *c = strstr(line, "/*");
        if (!c || sscanf(c, "/*%x*/", &pc) != 1 || pc >= size || !strchr(c + 2, ';'))
            continue;
        char *m = strstr(c, "*/") + 2;
        while (*m == ' ')
            m++;
        if (*m == '@')
            m = strchr(m, ' ') + 1;
        char mnem[32];
        sscanf(m, "%31s", mnem);
        struct sass_insn si;
        int shared = !strncmp(mnem, "LDS", 3) || !strncmp(mnem, "STS", 3) ||
                     !strncmp(mnem, "ATOMS", 5) || !strncmp(mnem, "LDGSTS", 6);
        assert_int_equal(sass_decode(code + pc, &si), shared);
        if (!shared)
            continue;
        seen++;
        if (!strncmp(mnem, "ATOMS", 5)) {
            assert_int_equal(si.op, GPU_KOP_ATOM);
            continue;
        }
        if (!strncmp(mnem, "LDSM", 4) || !strncmp(mnem, "STSM", 4)) {
            /* LDSM.16.M88.4: four 8x8 matrices, one wavefront each */
            assert_string_equal(si.text, mnem);
            assert_int_equal(si.op, mnem[0] == 'L' ? GPU_KOP_LDSM : GPU_KOP_STSM);
            assert_int_equal(si.ideal, atoi(strrchr(mnem, '.') + 1));
            continue;
        }
        if (!strncmp(mnem, "LDGSTS", 6)) { /* LDGSTS.E.BYPASS.128: the size is what we read */
            assert_int_equal(si.op, GPU_KOP_LDGSTS);
            assert_int_equal(si.bytes, strstr(mnem, ".128") ? 16 : strstr(mnem, ".64") ? 8 : 4);
            assert_int_equal(strstr(si.text, ".BYPASS") != NULL, strstr(mnem, ".BYPASS") != NULL);
            continue;
        }
        char want[32];
        snprintf(want, sizeof want, "%s", mnem);
        assert_string_equal(si.text, want);
        int bytes = strstr(mnem, ".128") ? 16 : strstr(mnem, ".64") ? 8 : strstr(mnem, "16") ? 2
                    : strstr(mnem, "8") ? 1 : 4;
        assert_int_equal(si.bytes, bytes);
        assert_int_equal(si.ideal, bytes <= 4 ? 1 : bytes / 4);
    }
    fclose(f);
    free(b);
    assert_int_equal(seen, expect);
}

static void test_sass_decode(void **state)
{
    (void)state;
    check_cubin(TEST_DATA_DIR "/kernel/carve.sm90.cubin.hex", TEST_DATA_DIR "/kernel/carve.sm90.sass",
                "_Z5carvePfPKfi", 6);
    check_cubin(TEST_DATA_DIR "/kernel/atomics.sm90.cubin.hex",
                TEST_DATA_DIR "/kernel/atomics.sm90.sass", "_Z9histogramPKiPii", 3);
    check_cubin(TEST_DATA_DIR "/kernel/stores.sm90.cubin.hex", TEST_DATA_DIR "/kernel/stores.sm90.sass",
                "_Z6storesPfi", 11);
    check_cubin(TEST_DATA_DIR "/kernel/ldmatrix.sm90.cubin.hex",
                TEST_DATA_DIR "/kernel/ldmatrix.sm90.sass", "_Z13ldmatrix_tilePfi", 4);
    check_cubin(TEST_DATA_DIR "/kernel/cp_async.sm90.cubin.hex",
                TEST_DATA_DIR "/kernel/cp_async.sm90.sass", "_Z13cp_async_copyPK6float4Pfi", 5);
    assert_int_equal(sass_arch_known(90), 1);
    assert_int_equal(sass_arch_known(100), 0);
    /* encodings read off NVRTC's sm_90 output for ld/st.shared, ldmatrix, stmatrix, cp.async */
    static const struct {
        uint64_t lo, hi;
        const char *text;
        int op, ideal;
    } cases[] = {
        {0x13007984ull, 0x0e620000000000ull, "LDS.U8", GPU_KOP_LD, 1},
        {0x130c7984ull, 0x0ee40000000a00ull, "LDS.64", GPU_KOP_LD, 2},
        {0x1513007388ull, 0x4fe80000000400ull, "STS.U16", GPU_KOP_ST, 1},
        {0x413007388ull, 0x0fe80000000c00ull, "STS.128", GPU_KOP_ST, 4},
        {0x1308783bull, 0x0e680000004200ull, "LDSM.16.MT88.4", GPU_KOP_LDSM, 4},
        {0x813007844ull, 0x23e80000000000ull, "STSM.16.M88.1", GPU_KOP_STSM, 1},
        {0x2137faeull, 0x3e8000b921a44ull, "LDGSTS.64", GPU_KOP_LDGSTS, 2},
        /* cp.async.ca and .cg of 16 bytes, as nvcc 13.0 compiles them (-arch=sm_90): bit 81 */
        {0x2077faeull, 0xfe2000b921c46ull, "LDGSTS.128", GPU_KOP_LDGSTS, 4},
        {0x2077faeull, 0xfe2000b901c46ull, "LDGSTS.BYPASS.128", GPU_KOP_LDGSTS, 4},
        {0x981ull, 0x1900ull, NULL, 0, 0}, /* LDG: not shared */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t insn[16];
        for (int b = 0; b < 8; b++) {
            insn[b] = (uint8_t)(cases[i].lo >> (8 * b));
            insn[8 + b] = (uint8_t)(cases[i].hi >> (8 * b));
        }
        struct sass_insn si;
        int r = sass_decode(insn, &si);
        assert_int_equal(r, cases[i].text != NULL);
        if (!cases[i].text)
            continue;
        assert_string_equal(si.text, cases[i].text);
        assert_int_equal(si.op, cases[i].op);
        assert_int_equal(si.ideal, cases[i].ideal);
    }
    unsigned char junk[64] = "not an elf";
    const uint8_t *code;
    size_t size;
    assert_int_equal(sass_function_code(junk, sizeof junk, "k", &code, &size), -1);
}

/* A source over the limit is refused before anything starts, with its message in both
 * languages. */
static void test_start_refused(void **state)
{
    (void)state;
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    snprintf(req.path, sizeof req.path, "big.cu");
    struct bl_err err = {0};
    char zh[BL_ERR_TEXT];
    assert_null(gpu_kernel_start(&req, "", GPU_KERNEL_MAX_SOURCE + 1, &err));
    assert_int_equal(err.status, GPU_KERNEL_EINPUT);
    assert_non_null(strstr(err.msg, "big.cu is 4194305 bytes; banklab kernel reads at most"));
    assert_non_null(strstr(bl_err_text(&err, BL_LANG_ZH, zh, sizeof zh), "最多读取 4194304 字节"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_found),   cmocka_unit_test(test_kernel_params_odd),
        cmocka_unit_test(test_scalar_values),   cmocka_unit_test(test_nvrtc_log),
        cmocka_unit_test(test_options),         cmocka_unit_test(test_file_options),
        cmocka_unit_test(test_lines_sum),       cmocka_unit_test(test_wire_result),
        cmocka_unit_test(test_sass_decode),     cmocka_unit_test(test_start_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
