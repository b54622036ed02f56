/* fake.c: the fake device behind `banklab serve --fake` (serve/serve.h), for tests without a
 * GPU: a worker thread answers each request after a set delay with the model's wavefronts
 * (bank_simulate, on every field of the access the wire brought: the instruction, ldmatrix's
 * matrices and .trans, cp.async's sources) as its "counters", in the figures the CUDA runner
 * puts them in, and a timing derived from them (clk per access = 2 x wavefronts,
 * deterministic); it refuses what the runner refuses before it launches, with its messages,
 * so a fake fails the way the hardware fails. Every result and its gpu_info say "fake
 * device". No CUDA. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/fmt.h"
#include "../gpu/gpu.h"
#include "serve.h"

#define FAKE_QUEUE 16
#define FAKE_CP_ASYNC_SRC 65536    /* = BL_CP_ASYNC_SRC (kernels/kernels.h) */
#define FAKE_DEVICE "fake device (banklab serve --fake, for tests: the model's numbers)"

struct fake {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv_req, cv_res;
    struct gpu_request q[FAKE_QUEUE];
    int qhead, qcount;
    struct gpu_result r[FAKE_QUEUE];
    struct gpu_ring done;          /* over r[] */
    int busy, stop;
    int delay_ms;
    struct gpu_progress prog;
};

static void nap_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

/* What the CUDA runner refuses before it launches (runner/cuda_measure.c's pattern_setup), refused
 * the same way: the model's own refusals, cp.async's sources past its buffer. */
static int fake_refuses(const struct bank_access *acc, struct bank_result *br, struct gpu_result *res)
{
    int bad_lane = -1;
    enum bank_status bs = bank_simulate(acc, br, &bad_lane);
    if (bs == BANK_EALIGN)
        return bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_LANE_OFFSET_IS_NOT_A, bad_lane,
                       acc->width);
    if (bs != BANK_OK)
        return bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_TEXT, bank_status_str(bs));
    for (int l = 0; acc->instr == BANK_CPASYNC && l < BANK_LANES; l++) {
        uint32_t g = acc->has_src ? acc->src[l] : (uint32_t)l * acc->width;
        if ((uint64_t)g + acc->width > FAKE_CP_ASYNC_SRC)
            return bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_CP_ASYNC_SRC_PAST, l, g,
                           FAKE_CP_ASYNC_SRC);
    }
    uint32_t used = bank_address_lanes(acc);
    for (int l = 0; l < BANK_LANES; l++)
        if ((used >> l & 1u) && acc->offset[l] > 0x7fffffffu)
            return bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_LANE_OFFSET_IS_BEYOND_SHARED, l,
                           (unsigned long long)acc->offset[l]);
    /* (the runner's shared-memory limit, 227 KiB a block on an H200, is left out: the fake
     * takes every offset the wire allows, 1 MiB, which the server's tests use) */
    return 0;
}

/* One access measured as the runner measures it, with every field of the access (the
 * instruction, its matrices and .trans, cp.async's sources): the model's wavefronts as the
 * counters, in the figures the runner reads them from (ldmatrix: the loads'; stmatrix and
 * cp.async: the stores'; cp.async's wavefronts as its conflicts plus its passes), and a time
 * of 2 clocks a wavefront against the same instruction conflict-free (lane l at l * width). */
static void fake_access(const struct bank_access *acc, int want_timing, int want_counters,
                        struct gpu_result *res)
{
    struct bank_result br;
    if (fake_refuses(acc, &br, res))
        return;
    int st = acc->instr == BANK_STMATRIX || acc->instr == BANK_CPASYNC ||
             (acc->instr == BANK_PLAIN && acc->op == BANK_STORE);
    if (acc->instr == BANK_LDMATRIX)
        st = 0;
    if (want_counters) {
        res->has_counters = 1;
        *(st ? &res->wavefronts_st : &res->wavefronts_ld) = br.wavefronts;
        *(st ? &res->conflicts_st : &res->conflicts_ld) = br.conflicts;
        *(st ? &res->inst_st : &res->inst_ld) = 1;
        if (acc->instr == BANK_CPASYNC)
            gpu_note(res, CTR_FAKE_CPASYNC_NOTE, br.passes);
    } else {
        gpu_note(res, CTR_NOT_ASKED);
    }
    if (want_timing) {
        struct bank_access ref = *acc;
        struct bank_result rr;
        ref.has_src = 0;
        for (int l = 0; l < BANK_LANES; l++)
            ref.offset[l] = (uint64_t)l * acc->width;
        int rwf = bank_simulate(&ref, &rr, NULL) == BANK_OK && rr.wavefronts > 0 ? rr.wavefronts : 1;
        res->has_access_timing = 1;
        res->clk_per_access = 2.0 * br.wavefronts;
        res->ns_per_access = res->clk_per_access / 1.98;
        res->ref_clk_per_access = 2.0 * rwf;
        res->slowdown = res->clk_per_access / res->ref_clk_per_access;
        res->has_timing = 1;
        res->ms_median = res->ms_min = res->ms_max = 1.0;
        res->launches = 11;
        res->clk_per_request = res->clk_per_access;
    }
}

static void fake_measure(const struct gpu_request *q, struct gpu_result *res)
{
    memset(res, 0, sizeof *res);
    res->id = q->id;
    bl_fmt(res->provenance, sizeof res->provenance, "%s", FAKE_DEVICE);
    if (q->kind == GPU_REQ_PATTERN) {
        fake_access(&q->access, q->want_timing, q->want_counters, res);
        return;
    }
    struct bank_access acc;
    if (gpu_case_model(q, &acc) != 0) {
        if (!gpu_case_find(q->case_name)) {
            bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, SRV_FAKE_UNKNOWN_CASE, q->case_name);
            return;
        }
        acc = q->access;
    }
    if (acc.mask)
        fake_access(&acc, q->want_timing, q->want_counters, res);
    res->verified = 1;
    res->gbps = 1000.0;
}

static void *fake_worker(void *arg)
{
    struct fake *F = arg;
    pthread_mutex_lock(&F->mu);
    for (;;) {
        while (!F->stop && F->qcount == 0)
            pthread_cond_wait(&F->cv_req, &F->mu);
        if (F->stop)
            break;
        struct gpu_request q = F->q[F->qhead];
        F->qhead = (F->qhead + 1) % FAKE_QUEUE;
        F->qcount--;
        F->busy = 1;
        F->prog.phase = GPU_PHASE_MEASURING;
        F->prog.id = q.id;
        pthread_mutex_unlock(&F->mu);
        struct gpu_result res;
        nap_ms(F->delay_ms);
        fake_measure(&q, &res);
        pthread_mutex_lock(&F->mu);
        gpu_ring_put(&F->done, &res);
        F->busy = 0;
        F->prog.phase = GPU_PHASE_IDLE;
        F->prog.id = 0;
        pthread_cond_broadcast(&F->cv_res);
    }
    pthread_mutex_unlock(&F->mu);
    return NULL;
}

static enum gpu_status f_submit(void *impl, const struct gpu_request *req)
{
    struct fake *F = impl;
    enum gpu_status st = GPU_OK;
    pthread_mutex_lock(&F->mu);
    if (F->qcount + F->done.count + F->busy >= FAKE_QUEUE) {
        st = GPU_EBUSY;
    } else {
        F->q[(F->qhead + F->qcount) % FAKE_QUEUE] = *req;
        F->qcount++;
        pthread_cond_signal(&F->cv_req);
    }
    pthread_mutex_unlock(&F->mu);
    return st;
}

static void f_progress(void *impl, struct gpu_progress *out)
{
    struct fake *F = impl;
    pthread_mutex_lock(&F->mu);
    *out = F->prog;
    pthread_mutex_unlock(&F->mu);
}

static void f_close(void *impl)
{
    struct fake *F = impl;
    pthread_mutex_lock(&F->mu);
    F->stop = 1;
    pthread_cond_broadcast(&F->cv_req);
    pthread_mutex_unlock(&F->mu);
    pthread_join(F->thread, NULL);
    pthread_mutex_destroy(&F->mu);
    pthread_cond_destroy(&F->cv_req);
    pthread_cond_destroy(&F->cv_res);
    free(F);
}

static const struct gpu_ops fake_ops = {f_submit, NULL, NULL, f_close, f_progress};

struct gpu *serve_fake_open(int delay_ms, struct gpu_info *info)
{
    struct fake *F = calloc(1, sizeof *F);
    if (!F)
        return NULL;
    F->delay_ms = delay_ms < 0 ? 0 : delay_ms;
    F->done = (struct gpu_ring){F->r, FAKE_QUEUE, 0, 0, &F->mu, &F->cv_res};
    pthread_mutex_init(&F->mu, NULL);
    pthread_cond_init(&F->cv_req, NULL);
    pthread_cond_init(&F->cv_res, NULL);
    if (pthread_create(&F->thread, NULL, fake_worker, F)) {
        pthread_mutex_destroy(&F->mu);
        pthread_cond_destroy(&F->cv_req);
        pthread_cond_destroy(&F->cv_res);
        free(F);
        struct bl_err why = {0};
        bl_fail(&why, GPU_EUNAVAILABLE, BL_NOWHERE, SRV_FAKE_NO_THREAD);
        return gpu_unavailable(info, &why);
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->backend = GPU_BACKEND_CUDA;
        info->available = 1;
        info->counters = 1;
        bl_fmt(info->device, sizeof info->device, "%s", FAKE_DEVICE);
        info->cc_major = 9;
        info->sm_count = 1;
        info->clock_khz = 1980000;
        bl_msg_set(&info->lock_msg, info->lock, sizeof info->lock, GPU_NO_TURNS_FAKE);
    }
    return gpu_wrap_new(&fake_ops, F, &F->done, GPU_BACKEND_CUDA);
}
