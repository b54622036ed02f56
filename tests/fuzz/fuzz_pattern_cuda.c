/* fuzz_pattern_cuda.c: libFuzzer target for a CUDA line as a pattern (src/model/pattern_cuda.h,
 * the kernel view's Enter). The input is a source file; the first eight lines with a '['
 * (where the accesses are), and lines 0, 1 and one past the end, are translated under one of
 * two launches (odd lines: --arg values and dynamic shared memory; even lines: none); every
 * call reads the whole file, so eight keep the run short under the sanitizers.
 * A translation must give text the pattern parser accepts and evaluable declarations, a
 * refusal a reason; nothing may read past the input (it is not NUL-terminated). Model code
 * only. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/pattern.h"
#include "../../src/model/pattern_cuda.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 70000)
        return 0;
    char *src = malloc(size ? size : 1);        /* exactly size bytes: no terminator */
    if (!src)
        return 0;
    memcpy(src, data, size);
    static const char *const names[] = {"n", "stride", "m", "bins"};
    static const char *const values[] = {"256", "2", "0x3", "-7"};
    const struct pattern_cuda_launch launches[2] = {
        {{4, 2, 1}, {256, 1, 1}, 4096, 4, names, values},
        {{1, 1, 1}, {32, 32, 1}, 0, 0, NULL, NULL},
    };
    static struct pattern_cuda pc;
    int lines[11] = {0, 1, 1 << 20}, nl = 3;
    for (size_t i = 0, line = 1; i < size && nl < 11; i++) {
        if (src[i] == '[' && lines[nl - 1] != (int)line)
            lines[nl++] = (int)line;
        line += src[i] == '\n';
    }
    for (int k = 0; k < nl; k++) {
        int line = lines[k];
        if (pattern_from_cuda(src, size, line, &launches[line & 1], &pc) != 0) {
            if (!pc.err.msg[0])
                abort();                   /* a refusal names its reason */
            continue;
        }
        if (!pc.accesses[0] || pc.naccess < 1)
            abort();
        char text[2 * PATTERN_CUDA_TEXT + 4];
        snprintf(text, sizeof text, "%s%s%s", pc.decls, pc.decls[0] ? "; " : "", pc.accesses);
        struct pattern *p = NULL;
        struct bl_err err;
        if (pattern_parse(text, &p, &err) != 0)
            abort();                       /* what it hands the playground parses */
        struct bank_access acc;
        for (int a = 0; a < pattern_access_count(p); a++)
            pattern_eval(p, &pc.env, a, &acc, NULL, &err);
        pattern_free(p);
    }
    free(src);
    return 0;
}
