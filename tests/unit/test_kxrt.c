/* test_kxrt.c: the records banklab's CUDA runtime writes (src/xrt/xrt_out.c) read back by
 * kxrt_parse (src/predict/program.c): launches with their status, error and reason, lines of
 * the compiled file and of a header, the lines of one launch summed and sorted, an unsupported
 * call, a launch the program did not finish, and damaged records skipped without a crash; and
 * kxrt_apply giving a kernel's prediction main's first launch of it that ran. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/predict/predict.h"
#include "../../src/predict/program.h"

/* T: a message of the prediction rendered in lang (one of four buffers, in turn) */
static const char *T(const struct bl_msg *m, enum bl_lang lang)
{
    static char buf[4][1024];
    static int at;
    at = (at + 1) % 4;
    bl_msg_render(m, lang, buf[at], sizeof buf[at]);
    return buf[at];
}

static const char records[] =
    "launch 1 0 9 1 1 128 1 1 0 _Z5scalePfif\n"
    "steps 4096\n"
    "line 20 34 34 34 1 0 ld /tmp/d/prog.cu\n"
    "line 17 36 36 36 1 0 st /tmp/d/prog.cu\n"
    "line 80 8 16 8 2 0 ld,st /usr/local/cuda/include/crt/x.h\n"
    "line 17 4 8 4 2 1 st /tmp/d/prog.cu\n"
    "end 1\n"
    "launch 2 9 1 1 1 2048 1 1 0 _Z5scalePfif\n"
    "status cudaErrorInvalidConfiguration invalid configuration argument\n"
    "end 2\n"
    "garbage that is no record\n"
    "launch x y\n"
    "line 5 nonsense\n"
    "launch 3 700 3 2 1 256 1 1 65536 _Z6spreadILi2EEvPi\n"
    "status cudaErrorIllegalAddress an illegal memory access was encountered\n"
    "note lane 3: `ld.global.f32` (prog.cu:17): not memory of the program\n"
    
    "end 3\n"
    "launch 4 0 1 1 1 32 1 1 0 _Z6spreadILi2EEvPi\n"
    "line 27 1 2 1 2 0 st /tmp/d/prog.cu\n"
    "unsupported cudaGraphCreate\n";

static void test_parse(void **state)
{
    (void)state;
    static struct kxrt_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(kxrt_parse(records, strlen(records), "prog.cu", &r), 0);
    assert_int_equal(r.nlaunches, 4);
    const struct kxrt_launch *l = &r.launches[0];
    assert_string_equal(l->kernel, "scale");
    assert_int_equal(l->grid[0], 9);
    assert_int_equal(l->block[0], 128);
    assert_int_equal(l->status, 0);
    assert_int_equal(l->steps, 4096);
    assert_int_equal(l->nlines, 3);              /* line 17 twice: one line, summed */
    assert_int_equal(l->lines[0].line, 17);      /* the file's lines first, by number */
    assert_true(l->lines[0].in_file);
    assert_true(l->lines[0].inst == 40 && l->lines[0].wavefronts == 44 && l->lines[0].ideal == 40);
    assert_int_equal(l->lines[0].ways, 2);
    assert_int_equal(l->lines[0].unpriced, 1);
    assert_int_equal(l->lines[1].line, 20);
    assert_false(l->lines[2].in_file);           /* the header's line last */
    assert_string_equal(l->lines[2].kinds, "ld st");
    assert_int_equal(r.launches[1].status, 9);
    assert_string_equal(r.launches[1].error, "cudaErrorInvalidConfiguration");
    assert_string_equal(r.launches[1].error_text, "invalid configuration argument");
    l = &r.launches[2];
    assert_string_equal(l->kernel, "spread<2>");
    assert_int_equal(l->grid[1], 2);
    assert_int_equal(l->smem, 65536);
    assert_int_equal(l->status, 700);
    assert_non_null(strstr(l->note, "not memory of the program"));
    assert_int_equal(r.launches[3].nlines, 1);   /* not ended: its lines kept */
    assert_int_equal(r.end, KXRT_UNSUPPORTED);
    assert_string_equal(r.what, "cudaGraphCreate");
    kxrt_done(&r);
    assert_int_equal(r.nlaunches, 0);
}

static void test_apply(void **state)
{
    (void)state;
    static struct kxrt_result run;
    static struct kp_result r;
    static struct kp_line lines[30];
    memset(&run, 0, sizeof run);
    assert_int_equal(kxrt_parse(records, strlen(records), "prog.cu", &run), 0);
    memset(&r, 0, sizeof r);
    r.line = lines;
    r.nlines = 30;
    for (int i = 0; i < 30; i++)
        lines[i].line = i + 1;
    snprintf(r.kernel, sizeof r.kernel, "spread<2>");
    kxrt_apply(&run, "spread<2>", "/elsewhere/prog.cu", &r);   /* launch 3 failed, 4 ran */
    assert_int_equal(r.main_launches, 2);
    assert_int_equal(r.main_launch, 2);
    assert_true(r.executed);
    assert_int_equal(r.grid[0], 1);
    assert_int_equal(r.block[0], 32);
    assert_int_equal(lines[26].state, KP_OK);
    assert_true(lines[26].wavefronts == 2 && lines[26].excess == 1);
    memset(&r, 0, sizeof r);
    r.line = lines;
    r.nlines = 30;
    kxrt_apply(&run, "other", "prog.cu", &r);
    assert_false(r.executed);
    assert_string_equal(T(&r.exec_note, BL_LANG_EN), "main never launched it");
    kxrt_done(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
