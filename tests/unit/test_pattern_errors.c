/* test_pattern_errors.c: what the evaluator of the pattern language reports
 * (src/model/pattern_eval.c, bl_fail): parameters without a value, division by zero,
 * overflow, shifts, bounds, sizes and the device limit, each message with its column and the
 * lane that failed ("lane N: ", or -1 when no lane is at fault).
 */
#include "pattern_test.h"

static void test_eval_errors(void **state)
{
    (void)state;
    struct pattern_env env;
    pattern_env_init(&env);
    /* a parameter without a value: the lane that met it, but no "lane N:" */
    static const struct error_case unset[] = {
        {"__shared__ float tile[32][32 + PAD]; tile[threadIdx.x][0]",
         "unknown name 'PAD' (give it a value, e.g. --param PAD=1)", "PAD", -1},
        {"__shared__ float s[64]; s[lane * STRIDE]", "unknown name 'STRIDE'", "STRIDE", 0},
        {"__shared__ float s[64]; s[lane * ((STRIDE))]", "unknown name 'STRIDE'", "STRIDE", 0},
    };
    eval_errs(unset, NCASES(unset), &env);
    pattern_env_set(&env, "N", 1);
    static const struct error_case bad[] = {
        {"__shared__ float s[64]; s[lane / (N - 1)]", "division by zero", "lane /", 0},
        {"__shared__ float s[64]; s[lane % (lane - 3)]", "lane 3: division by zero", "lane %",
         3},
        {"__shared__ float s[64]; s[(lane + 2) * 0x4000000000000000]",
         "lane 0: integer overflow in '(lane + 2) * 0x4000000000000000'", "(lane", 0},
        {"__shared__ float s[64]; s[(lane + 9223372036854775807) % 64]",
         "lane 1: integer overflow", "(lane +", 1},
        {"__shared__ float s[64]; s[-(lane - 9223372036854775807 - 1)]", "overflow", "-(lane",
         0},
        {"__shared__ float s[64]; s[lane >> (lane + 40)]", "lane 24: shift count 64", "lane >>",
         24},
        {"__shared__ float s[64]; s[(1 << (lane + 40)) & 63]", "lane 23: integer overflow",
         "(1 <<", 23},
        {"__shared__ float s[64]; s[1 << (lane - 1)]", "shift count -1", "1 <<", 0},
        {"__shared__ float tile[32][33]; tile[lane][lane + 2]",
         "lane 31: index 33 is out of bounds for dimension 2 of 'tile' (size 33)", "lane + 2",
         31},
        {"__shared__ float tile[32][33]; tile[lane - 1][0]",
         "lane 0: index -1 is out of bounds for dimension 1", "lane - 1", 0},
        {"__shared__ float s[16]; float *q = s; q[lane]",
         "lane 16: 'q' accesses bytes 64..67 of 's', past its 64 bytes", "q[lane]", 16},
        /* the layout's errors belong to no lane */
        {"__shared__ float s[0]; s[0]", "must be positive", "0]", -1},
        {"__shared__ float s[20000]; s[lane]", "larger than the 48 KB", "s[2", -1},
        {"__shared__ float s[0x7fffffffffffffff][2]; s[lane][0]", "larger than the 48 KB",
         "s[0x", -1},
        {"__shared__ float a[8192]; __shared__ float b[8192]; a[lane]",
         "static shared memory (65536 bytes) exceeds the 48 KB limit", "b[8192]", -1},
    };
    eval_errs(bad, NCASES(bad), &env);
    const char *t = "__shared__ float a[1024]; extern __shared__ float d[]; d[lane]";
    env.dyn_bytes = 230000;
    eval_err(t, &env, "4096 bytes static + 230000 bytes dynamic", col_of(t, "d[]"), -1);
    env.smem_limit = 300000;
    struct bank_access acc;
    pattern_free(eval_ok(t, &env, 0, &acc));
    assert_int_equal(acc.offset[0], 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
