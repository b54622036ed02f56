/* fuzz_pattern.c: libFuzzer target for the access-pattern language (src/model/pattern.h).
 * Parses the input, then evaluates every access under a few environments, runs the result
 * through the bank model, checks that evaluating again (after the others) gives the same
 * result, and exercises substitution and the caret line. Model code only. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/bank.h"
#include "../../src/model/pattern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 70000)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;

    struct pattern_env env[3];
    pattern_env_init(&env[0]);
    pattern_env_set(&env[0], "PAD", 1);
    pattern_env_set(&env[0], "N", 33);
    pattern_env_set(&env[0], "STRIDE", 2);
    env[0].dyn_bytes = 4096;
    pattern_env_init(&env[1]);
    env[1].block[0] = 48;
    env[1].block[1] = 3;
    env[1].warp = 2;
    pattern_env_set(&env[1], "PAD", 0);
    pattern_env_set(&env[1], "N", -1);
    pattern_env_set(&env[1], "STRIDE", 0x7fffffffffffffffLL);
    env[1].dyn_bytes = 100;
    pattern_env_init(&env[2]);
    env[2].block[0] = 7;
    env[2].block[1] = 0; /* an empty block: no active lane */
    env[2].warp = 0xffffffffu;
    env[2].smem_limit = 0;

    struct pattern *p = NULL;
    struct bl_err err;
    char buf[512];
    if (pattern_parse(text, &p, &err) == 0) {
        int n = pattern_access_count(p);
        if (n < 1 || n > PATTERN_MAX_ACCESSES)
            abort();
        struct bank_access first;
        int first_rc = pattern_eval(p, &env[0], 0, &first, NULL, &err);
        for (int e = 0; e < 3; e++)
            for (int i = 0; i < n; i++) {
                struct bank_access acc;
                struct pattern_layout lay;
                if (pattern_eval(p, &env[e], i, &acc, &lay, &err) == 0) {
                    struct bank_result r;
                    int bad;
                    enum bank_status st = bank_simulate(&acc, &r, &bad);
                    /* the pattern checks alignment itself: the model must accept it */
                    if (st != BANK_OK)
                        abort();
                    /* every active lane is inside some array (static) or inside the
                     * dynamic memory: the bounds checks held */
                    for (int l = 0; l < 32; l++) {
                        if (!(acc.mask >> l & 1))
                            continue;
                        int inside = 0;
                        if (lay.narrays < 1 || lay.narrays > PATTERN_MAX_ARRAYS)
                            abort();
                        for (int k = 0; k < lay.narrays; k++) {
                            const struct pattern_array_info *ai = &lay.array[k];
                            uint64_t lo = ai->base, hi = ai->base + ai->bytes;
                            if (ai->dynamic && ai->ndims == 0 && ai->bytes == 0)
                                hi = ai->base + env[e].dyn_bytes;
                            if (acc.offset[l] >= lo && acc.offset[l] + acc.width <= hi)
                                inside = 1;
                        }
                        if (!inside)
                            abort();
                    }
                } else {
                    if (!err.msg[0] || (err.where.at > 0 && err.where.len < 1) ||
                        err.where.at > (int)size + 1)
                        abort();
                    pattern_error_caret(text, &err, buf, sizeof buf);
                }
            }
        /* evaluation keeps no state: the first evaluation again, after all the others */
        struct bank_access again;
        if (pattern_eval(p, &env[0], 0, &again, NULL, &err) != first_rc)
            abort();
        if (first_rc == 0) {
            if (again.mask != first.mask || again.width != first.width || again.op != first.op)
                abort();
            for (int l = 0; l < 32; l++)
                if ((first.mask >> l & 1) && again.offset[l] != first.offset[l])
                    abort();
        }
        for (int i = 0; i < pattern_param_count(p); i++)
            if (!pattern_param_name(p, i))
                abort();
        pattern_free(p);
    } else {
        if (p || !err.msg[0] || (err.where.at > 0 && err.where.len < 1) || err.where.at > (int)size + 1)
            abort();
        pattern_error_caret(text, &err, buf, sizeof buf);
    }
    pattern_substitute(text, &env[0], buf, sizeof buf);
    free(text);
    return 0;
}
