/* test_nvcc.c: the parts of ordinary .cu files that need neither nvcc nor a GPU: the
 * compile options of a request (-I, -D, --nvcc-flag checked, --compiler), the names read back
 * from mangled kernel symbols, and the kernel found among a cubin's functions by the name as
 * written (a shipped H200 cubin, tests/data/kernel). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/compile/compile.h"
#include "../../src/kernel/kernel.h"
#include "hexfile_test.h"

static void test_compile_options(void **state)
{
    (void)state;
    struct gpu_kernel_request req;
    gpu_kernel_request_init(&req);
    char err[256];
    assert_int_equal(gpu_kernel_option(&req, "-I", "/opt/inc", err, sizeof err), 1);
    assert_int_equal(gpu_kernel_option(&req, "-D", "WIDTH=4", err, sizeof err), 1);
    assert_int_equal(gpu_kernel_option(&req, "-D", "FAST", err, sizeof err), 1);
    assert_int_equal(gpu_kernel_option(&req, "--nvcc-flag", "-maxrregcount=64", err, sizeof err), 1);
    assert_int_equal(req.nflags, 4);
    assert_string_equal(req.flags[0], "-I/opt/inc");
    assert_string_equal(req.flags[1], "-DWIDTH=4");
    assert_string_equal(req.flags[2], "-DFAST");
    assert_string_equal(req.flags[3], "-maxrregcount=64");
    static const char *refused[] = {"-o", "-arch=sm_80", "--gpu-architecture=sm_80", "-cubin",
                                    "-ptx", "-E", "--output-file=x", "-gencode", "-run",
                                    "-archsm_80", "-lineinfo", "--options-file=f"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        err[0] = '\0';
        assert_int_equal(gpu_kernel_option(&req, "--nvcc-flag", refused[i], err, sizeof err), -1);
        assert_non_null(strstr(err, "banklab sets that itself"));
    }
    static const char *bad[] = {"-O3 -G", "x.cu", "-D'x'", "-a\"b", "-a\\b", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(gpu_kernel_option(&req, "--nvcc-flag", bad[i], err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&req, "-D", "1x", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&req, "-D", "A B", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&req, "-D", "A-B=1", err, sizeof err), -1);
    assert_int_equal(gpu_kernel_option(&req, "-I", "a\nb", err, sizeof err), -1);
    assert_int_equal(req.nflags, 4);
    assert_int_equal(gpu_kernel_option(&req, "--compiler", "nvrtc", err, sizeof err), 1);
    assert_int_equal(req.compiler, GPU_COMPILER_NVRTC);
    assert_int_equal(gpu_kernel_option(&req, "--compiler", "nvcc", err, sizeof err), 1);
    assert_int_equal(req.compiler, GPU_COMPILER_NVCC);
    assert_int_equal(gpu_kernel_option(&req, "--compiler", "gcc", err, sizeof err), -1);
    while (req.nflags < GPU_KERNEL_MAX_FLAGS)
        assert_int_equal(gpu_kernel_option(&req, "-D", "X", err, sizeof err), 1);
    assert_int_equal(gpu_kernel_option(&req, "-D", "X", err, sizeof err), -1);
    assert_non_null(strstr(err, "too many"));
    /* in the file's launch comment too */
    gpu_kernel_request_init(&req);
    const char *src = "// banklab: -D WIDTH=8 --grid 2 -I inc\n__global__ void k() {}\n";
    assert_int_equal(gpu_kernel_file_options(&req, src, strlen(src), err, sizeof err), 0);
    assert_int_equal(req.nflags, 2);
    assert_string_equal(req.flags[0], "-DWIDTH=8");
    assert_string_equal(req.flags[1], "-Iinc");
}

static void test_demangle(void **state)
{
    (void)state;
    static const struct {
        const char *sym, *name;
    } cases[] = {
        {"_Z9transposePfS_i", "transpose"},
        {"_Z3ldmILi0EEvPf", "ldm<0>"},
        {"_Z16transpose_sharedILi2EEvPfPKfii", "transpose_shared<2>"},
        {"_Z12vector_widthI6float4EvPT_ii", "vector_width<float4>"},
        {"_ZN2ns3vecI6float2Li4EEEvPT_i", "ns::vec<float2, 4>"},
        {"_Z1kIjLj8EEvPT_", "k<unsigned int, 8>"},
        {"_Z1kILin3EEvv", "k<-3>"},
        {"_Z1kILb1EEvv", "k<true>"},
        {"_Z1kIPKfEvT_", "k<const float*>"},
        {"_ZN5outer5inner4kernEPi", "outer::inner::kern"},
        {"py_column", "py_column"},
    };
    char out[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(kdemangle(cases[i].sym, out, sizeof out), 0);
        assert_string_equal(out, cases[i].name);
    }
    assert_int_equal(kdemangle("_Z", out, sizeof out), -1);
    assert_int_equal(kdemangle("_Z99x", out, sizeof out), -1);
    assert_int_equal(kdemangle("_Z1kIS_Evv", out, sizeof out), -1);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    unsigned char *b = hexfile_read(path, n);
    assert_non_null(b);
    return b;
}

static void test_symbol_in_cubin(void **state)
{
    (void)state;
    size_t n;
    unsigned char *b = slurp(TEST_DATA_DIR "/kernel/ldmatrix.sm90.cubin.hex", &n);
    char sym[256];
    assert_int_equal(knvcc_symbol(b, n, "ldmatrix_tile", NULL, 0, sym, sizeof sym), 0);
    assert_string_equal(sym, "_Z13ldmatrix_tilePfi");
    assert_int_equal(knvcc_symbol(b, n, " ldmatrix_tile ", NULL, 0, sym, sizeof sym), 0);
    assert_int_equal(knvcc_symbol(b, n, "no_such_kernel", NULL, 0, sym, sizeof sym), -1);
    assert_string_equal(sym, "");
    assert_int_equal(knvcc_symbol(b, 10, "ldmatrix_tile", NULL, 0, sym, sizeof sym), -1);
    free(b);
    b = slurp(TEST_DATA_DIR "/kernel/atomics.sm90.cubin.hex", &n);
    assert_int_equal(knvcc_symbol(b, n, "histogram", NULL, 0, sym, sizeof sym), 0);
    assert_string_equal(sym, "_Z9histogramPKiPii");
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_options),
        cmocka_unit_test(test_demangle),
        cmocka_unit_test(test_symbol_in_cubin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
