/* run_fake.c: a stand-in for a CUDA program under `banklab run`, for tests/sh/run.sh on a
 * machine without a GPU: it writes into $BANKLAB_RUN_DIR/results what the injection library
 * writes (kernel/wire.c's frames): a hello, two measured launches (one with line info from
 * the file named in argv[1], one without) and two notes (text only, and a message as
 * kmeasure/cuda_inj.c's inj_note writes it: the English text, a NUL, the message), then prints
 * a line of its own. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/msg.h"
#include "src/kernel/kernel.h"

static void frame(int fd, uint32_t tag, const void *p, uint32_t n)
{
    uint32_t h[2] = {tag, n};
    if (write(fd, h, 8) != 8 || write(fd, p, n) != (ssize_t)n)
        exit(1);
}

static void launch(int fd, const char *kernel, const char *sym, const char *file, int l1, int l2,
                   int ordinal)
{
    struct gpu_kernel_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.kernel, sizeof r.kernel, "%s", kernel);
    snprintf(r.lowered, sizeof r.lowered, "%s", sym);
    snprintf(r.device, sizeof r.device, "Fake GPU (sm_90)");
    r.grid[0] = r.grid[1] = 32, r.grid[2] = 1;
    r.block[0] = r.block[1] = 32, r.block[2] = 1;
    r.regs = 16;
    r.static_smem = 4096;
    kres_add_file(&r, "?");
    int f = file ? kres_add_file(&r, file) : 0;
    r.insts = calloc(2, sizeof *r.insts);
    r.ninsts = 2;
    r.insts[0] = (struct gpu_kernel_inst){0x100, f, l1, GPU_KOP_ST, "STS", 4, 1, 32768, 32768, 32768};
    r.insts[1] = (struct gpu_kernel_inst){0x180, f, l2, GPU_KOP_LD, "LDS", 4, 1, 32768, 1048576, 32768};
    kres_build_lines(&r);
    /* the sanitizer route's warps of the conflicting load: a column read, 32 wavefronts */
    r.pats = calloc(2, sizeof *r.pats);
    r.npats = 2;
    for (int k = 0; k < 2; k++) {
        struct gpu_kernel_pattern *q = &r.pats[k];
        q->pc = 0x180;
        q->slot = k ? -1 : 0;
        q->count = k ? 0 : 1024;
        q->wavefronts = 32;
        q->op = GPU_KOP_LD;
        q->width = 4;
        q->mask = 0xffffffffu;
        q->warp = 3;
        for (int i = 0; i < 32; i++)
            q->addr[i] = 0x400 + (uint32_t)i * 128u + 12u;
    }
    int32_t w[2] = {ordinal, 1};
    frame(fd, KWIRE_LAUNCH, w, sizeof w);
    kwire_put_result(fd, &r);
    gpu_kernel_result_done(&r);
}

int main(int argc, char **argv)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/results", getenv("BANKLAB_RUN_DIR"));
    int fd = open(path, O_WRONLY | O_APPEND);
    if (fd < 0 || !getenv("CUDA_INJECTION64_PATH"))
        return 9;
    int32_t hello[2] = {(int32_t)getpid(), 0};
    frame(fd, KWIRE_HELLO, hello, sizeof hello);
    launch(fd, "transpose", "_Z9transposePfS_i", argc > 1 ? argv[1] : NULL, 18, 21, 1);
    launch(fd, "odd\033[31mname", "_Z3oddv", NULL, 0, 0, 2);
    const char *note = "not measured: a note from the library";
    frame(fd, KWIRE_NOTE, note, (uint32_t)strlen(note));
    static char m2[GPU_KERNEL_TEXT + 1 + sizeof(struct bl_msg)];
    struct bl_msg m;
    size_t n = bl_msg_set(&m, m2, GPU_KERNEL_TEXT, INJ_BAD_REGEX, "x(");
    memcpy(m2 + n + 1, &m, sizeof m);
    frame(fd, KWIRE_NOTE, m2, (uint32_t)(n + 1 + sizeof m));
    printf("fake program: its own output\n");
    return argc > 2 ? atoi(argv[2]) : 0;
}
