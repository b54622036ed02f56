/* warp.c: a kept warp (struct gpu_kernel_pattern: the sanitizer route's or the PTX
 * executor's) as the bank model's access. */
#include <string.h>

#include "../model/bank.h"
#include "kernel.h"

void gpu_kernel_pattern_access(const struct gpu_kernel_pattern *q, int each, struct bank_access *acc)
{
    memset(acc, 0, sizeof *acc);
    acc->width = q->width;
    acc->mask = q->mask;
    acc->op = q->op == GPU_KOP_LD || q->op == GPU_KOP_LDSM ? BANK_LOAD : BANK_STORE;
    acc->instr = q->op == GPU_KOP_LDSM ? BANK_LDMATRIX : q->op == GPU_KOP_STSM ? BANK_STMATRIX
               : q->op == GPU_KOP_LDGSTS ? BANK_CPASYNC : q->op == GPU_KOP_ATOM && each ? BANK_ATOMIC
               : BANK_PLAIN;
    acc->matrices = (uint8_t)q->matrices;
    acc->has_src = q->op == GPU_KOP_LDGSTS;
    for (int i = 0; i < 32; i++) {
        acc->offset[i] = q->addr[i];
        acc->src[i] = q->src[i];
    }
}
