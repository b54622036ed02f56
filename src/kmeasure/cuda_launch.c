/* cuda_launch.c: one launch of a learner's kernel (kmeasure/cuda_state.h): the module loaded, the
 * launch checked against the device (threads, grid, shared memory, the parameters' sizes),
 * the buffers allocated and filled with the documented pattern before each run, the launch
 * and its wait, a fault named. Calls only kmeasure/cuda_state.c below it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_state.h"

void kchild_phase(struct child *ch, enum gpu_kernel_phase phase)
{
    ch->phase = phase;
    kwire_phase(ch->fd, phase);
}

static void fill_chunk(unsigned char *buf, size_t bytes, size_t offset, enum gpu_kernel_fill fill)
{
    if (fill == GPU_FILL_ZERO) {
        memset(buf, 0, bytes);
        return;
    }
    size_t words = bytes / 4, first = offset / 4;
    for (size_t w = 0; w < words; w++) {
        size_t k = first + w;
        if (fill == GPU_FILL_FLOAT) {
            float f = (float)(k % 1024);
            memcpy(buf + 4 * w, &f, 4);
        } else {
            uint32_t v = (uint32_t)k;
            memcpy(buf + 4 * w, &v, 4);
        }
    }
    memset(buf + 4 * words, 0, bytes - 4 * words);
}

/* Write the fill pattern into every buffer (before each launch: runs start alike). */
static int fill_buffers(struct child *ch)
{
    const struct ksrc_kernel *k = ch->kernel;
    struct kstate *st = ch->st;
    for (int i = 0; i < k->nparams; i++) {
        if (!ch->bufs[i])
            continue;
        for (size_t off = 0; off < ch->buf_size[i]; off += FILL_CHUNK) {
            size_t n = ch->buf_size[i] - off < FILL_CHUNK ? ch->buf_size[i] - off : FILL_CHUNK;
            if (ch->req->fill != GPU_FILL_ZERO || off == 0)
                fill_chunk(st->fill, n, off, ch->req->fill);
            CUresult r = st->d.htod(ch->bufs[i] + off, st->fill, n);
            if (r != CUDA_SUCCESS) {
                bl_fail(&ch->res->err, GPU_KERNEL_EFAULT, BL_NOWHERE, KRN_FILL_FAILED,
                        k->params[i].name, kcu_name(&st->d, r), kcu_text(&st->d, r));
                st->dead = 1;
                return -1;
            }
        }
    }
    return 0;
}

int klaunch_setup(struct child *ch)
{
    struct kstate *st = ch->st;
    struct drv *d = &st->d;
    const struct gpu_kernel_request *req = ch->req;
    double t0 = bl_now_ms();
    CUresult r = d->module_load(&ch->module, ch->comp.cubin);
    if (r == CUDA_SUCCESS)
        r = d->module_function(&ch->func, ch->module, ch->comp.lowered);
    if (r != CUDA_SUCCESS)
        return bl_fail(&ch->res->err, GPU_KERNEL_ELAUNCH, BL_NOWHERE, KRN_CANNOT_LOAD,
                       ch->res->kernel, kcu_name(d, r), kcu_text(d, r));
    int static_smem = 0, regs = 0, maxthr = 0;
    d->func_attr(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, ch->func);
    d->func_attr(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, ch->func);
    d->func_attr(&maxthr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, ch->func);
    ch->res->static_smem = static_smem;
    ch->res->regs = regs;
    unsigned long threads = (unsigned long)req->block[0] * req->block[1] * req->block[2];
    if (maxthr > 0 && threads > (unsigned long)maxthr)
        return bl_fail(&ch->res->err, GPU_KERNEL_ELAUNCH, BL_NOWHERE, KRN_BLOCK_TOO_BIG,
                       ch->res->kernel, maxthr, regs, req->block[0], req->block[1], req->block[2],
                       threads);
    for (int i = 0; i < 3; i++)
        if (st->grid_max[i] > 0 && req->grid[i] > (unsigned)st->grid_max[i])
            return bl_fail(&ch->res->err, GPU_KERNEL_ELAUNCH, BL_NOWHERE, KRN_GRID_TOO_BIG,
                           "xyz"[i], req->grid[i], st->grid_max[i]);
    unsigned long long total = (unsigned long long)static_smem + req->smem;
    if (total > (unsigned long long)st->smem_optin)
        return bl_fail(&ch->res->err, GPU_KERNEL_ELAUNCH, BL_NOWHERE, KRN_SMEM_TOO_MUCH,
                       ch->res->kernel, total, static_smem, req->smem, st->name, st->smem_optin);
    if (req->smem > 48 * 1024 - (unsigned long long)static_smem) {
        r = d->func_set_attr(ch->func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             (int)req->smem);
        if (r != CUDA_SUCCESS)
            return bl_fail(&ch->res->err, GPU_KERNEL_ELAUNCH, BL_NOWHERE, KRN_CANNOT_ALLOW_SMEM,
                           req->smem, kcu_text(d, r));
    }
    /* the compiled kernel must take what the source says */
    const struct ksrc_kernel *k = ch->kernel;
    if (d->func_param_info) {
        int n = 0;
        size_t off, size;
        while (n <= KSRC_MAX_PARAMS && d->func_param_info(ch->func, (size_t)n, &off, &size) ==
                                           CUDA_SUCCESS) {
            if (n < k->nparams && (int)size != k->params[n].size)
                return bl_fail(&ch->res->err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_PARAM_SIZE, n + 1,
                               k->name, size, req->path, k->params[n].type, k->params[n].size);
            n++;
        }
        if (n != k->nparams)
            return bl_fail(&ch->res->err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_PARAM_COUNT, k->name,
                           n, k->nparams, req->path);
    }
    for (int i = 0; i < k->nparams; i++) {
        if (k->params[i].kind == KSRC_POINTER) {
            r = d->mem_alloc(&ch->bufs[i], ch->buf_size[i]);
            if (r != CUDA_SUCCESS)
                return bl_fail(&ch->res->err, GPU_KERNEL_EINPUT, BL_NOWHERE, KRN_CANNOT_ALLOCATE,
                               ch->buf_size[i], k->params[i].name, kcu_text(d, r));
            ch->params[i] = &ch->bufs[i];
        } else {
            ch->params[i] = ch->scalars[i];
        }
    }
    ch->res->timing.load = bl_now_ms() - t0;
    return 0;
}

static int is_fault(CUresult r)
{
    return r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_MISALIGNED_ADDRESS ||
           r == CUDA_ERROR_ASSERT || r == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
           r == CUDA_ERROR_INVALID_PC || r == CUDA_ERROR_HARDWARE_STACK_ERROR ||
           r == CUDA_ERROR_INVALID_ADDRESS_SPACE || r == CUDA_ERROR_LAUNCH_FAILED ||
           r == CUDA_ERROR_LAUNCH_TIMEOUT;
}

/* Fill, launch, wait. 0, or -1 with the reason in the result. */
int klaunch_run(struct child *ch)
{
    struct kstate *st = ch->st;
    struct drv *d = &st->d;
    const struct gpu_kernel_request *req = ch->req;
    if (fill_buffers(ch))
        return -1;
    kchild_phase(ch, GPU_KPHASE_RUN);
    CUresult r = d->launch(ch->func, req->grid[0], req->grid[1], req->grid[2], req->block[0],
                           req->block[1], req->block[2], (unsigned)req->smem, NULL, ch->params,
                           NULL);
    if (r != CUDA_SUCCESS && !is_fault(r))
        return bl_fail(&ch->res->err, GPU_KERNEL_ELAUNCH, BL_NOWHERE, KRN_LAUNCH_REFUSED,
                       ch->res->kernel, kcu_name(d, r), kcu_text(d, r));
    if (r == CUDA_SUCCESS)
        r = d->ctx_sync();
    if (r == CUDA_SUCCESS)
        return 0;
    st->dead = 1; /* a fault is sticky: this context takes no more work */
    int id = !is_fault(r) ? KRN_CALL_FAILED : r == CUDA_ERROR_ILLEGAL_ADDRESS ? KRN_FAULT_ILLEGAL
             : r == CUDA_ERROR_MISALIGNED_ADDRESS ? KRN_FAULT_MISALIGNED : KRN_FAULTED;
    bl_fail(&ch->res->err, is_fault(r) ? GPU_KERNEL_EFAULT : GPU_KERNEL_ELAUNCH, BL_NOWHERE, id,
            ch->res->kernel, kcu_name(d, r), req->buffer_size);
    return -1;
}
