/* test_pattern_errors.c: what the evaluator of the pattern language reports
 * (src/model/pattern_eval.c, pat_fail): parameters without a value, division by zero,
 * overflow, shifts, bounds, sizes and the device limit, each message with its column and the
 * lane that failed ("lane N: ", or -1 when no lane is at fault).
 * link: model
 */
#include "pattern_test.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
