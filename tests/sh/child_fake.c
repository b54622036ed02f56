/* child_fake.c: a hostile stand-in for a CUDA program under `banklab run`, for
 * tests/sh/child_attack.sh: it writes into $BANKLAB_RUN_DIR/results what the
 * injection library would, with terminal escapes in every string the caller prints (the
 * device, the lock note, a SASS mnemonic of 24 bytes without a NUL, a file name, a note) and
 * with numbers no GPU gives (NaN wavefronts, 1e18 instructions), then `argv[1]` copies of
 * notes that repeat (argv[2] different ones). Launch 1 is sound but for its strings; launch 2
 * holds NaN; launch 3 1e18. */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/kernel/kernel.h"

#define ESC "\033]0;PWNED\007\033[2J"

static void frame(int fd, uint32_t tag, const void *p, uint32_t n)
{
    uint32_t h[2] = {tag, n};
    if (write(fd, h, 8) != 8 || write(fd, p, n) != (ssize_t)n)
        exit(1);
}

static void launch(int fd, int ordinal, double wavefronts, double inst)
{
    struct gpu_kernel_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.kernel, sizeof r.kernel, "k%d", ordinal);
    snprintf(r.lowered, sizeof r.lowered, "_Z2k%dv", ordinal);
    snprintf(r.device, sizeof r.device, "Evil GPU " ESC);
    snprintf(r.lock_note, sizeof r.lock_note, "without turns " ESC);
    r.grid[0] = r.grid[1] = r.grid[2] = 1;
    r.block[0] = 32, r.block[1] = r.block[2] = 1;
    kres_add_file(&r, "?");
    r.insts = calloc(1, sizeof *r.insts);
    r.ninsts = 1;
    r.insts[0] = (struct gpu_kernel_inst){0x100, 0, 0, GPU_KOP_LD, "", 4, 1, inst, wavefronts, 1};
    memcpy(r.insts[0].sass, "\033[31mLDS.EVIL.EVIL.EVIL..", sizeof r.insts[0].sass); /* no NUL */
    kres_build_lines(&r);
    int32_t w[2] = {ordinal, 1};
    frame(fd, KWIRE_LAUNCH, w, sizeof w);
    kwire_put_result(fd, &r);
    gpu_kernel_result_done(&r);
}

int main(int argc, char **argv)
{
    char path[PATH_MAX];
    const char *dir = getenv("BANKLAB_RUN_DIR");
    snprintf(path, sizeof path, "%s/results", dir ? dir : ".");
    int fd = open(path, O_WRONLY | O_APPEND);
    if (fd < 0)
        return 9;
    int32_t hello[2] = {(int32_t)getpid(), 0};
    frame(fd, KWIRE_HELLO, hello, sizeof hello);
    launch(fd, 1, 32, 1);
    launch(fd, 2, NAN, 1);
    launch(fd, 3, 32, 1e18);
    const char *evil = "not measured: " ESC;
    frame(fd, KWIRE_NOTE, evil, (uint32_t)strlen(evil));
    long same = argc > 1 ? atol(argv[1]) : 0, different = argc > 2 ? atol(argv[2]) : 0;
    char note[64];
    for (long i = 0; i < same + different; i++) {
        int n = i < same ? snprintf(note, sizeof note, "not measured: repeat %ld", i % 3)
                         : snprintf(note, sizeof note, "not measured: note %ld", i);
        frame(fd, KWIRE_NOTE, note, (uint32_t)n);
    }
    printf("fake program: done\n");
    return 0;
}
