/* cuda_gpu.c: the CUDA runner. gpu_open finds the device (or says in one line why not) and
 * starts one worker thread that owns the CUDA context; requests wait in a small queue, results
 * in another, and the caller polls. The worker measures only while it holds the device's lock
 * (devlock/devlock.h), shared with every banklab process on the machine, so a class takes turns; while
 * it waits, gpu_progress says so. Pattern requests run in runner/cuda_measure.c, case kernels in
 * runner/cuda_cases.c; counters go through the busy policy of runner/counters.h. cudart is linked statically
 * and libcuda is never linked: without a driver the program starts and reports why.
 * No curses, no cJSON; never prints, never exits. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../kernels/kernels.h"
#include "cuda_internal.h"
#include "../gpu/gpu.h"
#include "runner.h"
#include "../cuda/cudalib.h"
#include "../sys/sys.h"

/* Oldest GPU the kernels run on: CUDA 13 dropped sm_70 (Volta), CUDA 12 still builds it. */
#if CUDART_VERSION >= 13000
#define MIN_SM 75
#else
#define MIN_SM 70
#endif

#define LOCK_WAIT_MS 30000     /* a request waits this long for its turn, then is not measured */
/* The counter hardware is one process's at a time. A measurement enables CUPTI's range
 * profiler (costly to set up: docs/gpu.md); it is given back when no request came for
 * COUNTERS_LINGER_MS, and at the latest COUNTERS_HOLD_MS after it was taken, so a busy
 * runner (the measuring server of a class) measures at full speed and still lets Nsight
 * Compute or another process in within seconds. $BANKLAB_COUNTERS_LINGER_MS changes the
 * first (0: give it back after every measurement). */
#define COUNTERS_LINGER_MS 1000
#define COUNTERS_HOLD_MS 3000
/* A process measuring for itself (not the server) that finds the counters busy tries again for
 * this long, every COUNTERS_RETRY_MS, without the device's turn in between: a server that
 * measured just before keeps them for COUNTERS_LINGER_MS, at most COUNTERS_HOLD_MS. */
#define COUNTERS_BUSY_WAIT_MS (COUNTERS_HOLD_MS + 500)
#define COUNTERS_RETRY_MS 100

/* ---- the device's turns ---- */

static void set_phase(struct runner *R, enum gpu_phase ph, int ahead)
{
    pthread_mutex_lock(&R->mu);
    R->prog.phase = ph;
    R->prog.ahead = ahead;
    pthread_mutex_unlock(&R->mu);
}

/* While waiting: show how many are ahead; stop waiting when the runner closes. */
/* The device is measured without turns, because of why: said in the lock's line and in each
 * result's provenance (lock_note). */
static void without_turns(struct runner *R, const struct bl_err *why)
{
    struct bl_msg m;
    bl_err_msg(why, &m);
    bl_msg_set(&R->info.lock_msg, R->info.lock, sizeof R->info.lock, GPU_WITHOUT_TURNS, &m);
    bl_fmt(R->lock_note, sizeof R->lock_note, "%s", R->info.lock);
}

static int lock_progress(void *arg, const struct devlock_wait *w)
{
    struct runner *R = arg;
    pthread_mutex_lock(&R->mu);
    R->prog.phase = GPU_PHASE_WAITING;
    R->prog.ahead = w->ahead;
    int stop = R->stop;
    pthread_mutex_unlock(&R->mu);
    return stop;
}

/* Wait for the device's turn (res->wait_ms). 0 when ours (or when there is no lock to take);
 * -1 with res failed when it did not come. A lock file that went bad is dropped: measuring
 * goes on without turns, and results say so. */
static int lock_take(struct runner *R, struct gpu_result *res)
{
    if (!R->lock)
        return 0;
    struct bl_err err = {0};
    double t0 = bl_now_ms();
    enum devlock_status st = devlock_acquire(R->lock, LOCK_WAIT_MS, lock_progress, R, &err);
    res->wait_ms = bl_now_ms() - t0;
    set_phase(R, GPU_PHASE_MEASURING, 0);
    if (st == DEVLOCK_OK)
        return 0;
    if (st == DEVLOCK_ERROR) {
        devlock_close(R->lock);
        R->lock = NULL;
        without_turns(R, &err);
        return 0;
    }
    if (st == DEVLOCK_TIMEOUT)
        bl_fail(&res->err, GPU_EFAILED, BL_NOWHERE, GPU_NOT_MEASURED_OTHER_PROCESSES_KEPT, err.msg);
    else
        bl_fail(&res->err, GPU_EFAILED, BL_NOWHERE, GPU_NOT_MEASURED_THE_GPU_RUNNER);
    return -1;
}

static void lock_give(struct runner *R)
{
    devlock_release(R->lock);
}

/* ---- requests ---- */

/* One request: checked, measured while the device is ours, case outputs checked after. */
static void serve(struct runner *R, const struct gpu_request *req, struct gpu_result *res)
{
    struct case_run c;
    if (req->kind != GPU_REQ_PATTERN && req->kind != GPU_REQ_CASE) {
        bl_fail(&res->err, GPU_EINVAL, BL_NOWHERE, GPU_UNKNOWN_REQUEST_KIND, (int)req->kind);
        return;
    }
    if (req->kind == GPU_REQ_CASE && case_setup(R, req, &c, res))
        return;
    double busy_since = 0;
    /* patient only while the counters were had last time: once a wait ended busy (Nsight
       Compute profiling for minutes), the next measurements are answered at once again */
    int patient = !R->serving && req->kind == GPU_REQ_PATTERN && R->retry.busy_in_a_row == 0;
    int rc;
    for (;;) {
        if (lock_take(R, res))
            return;
        rc = req->kind == GPU_REQ_PATTERN ? run_pattern(R, req, res)
                                          : case_measure(R, req, &c, res);
        lock_give(R);
        pthread_mutex_lock(&R->mu);
        int stop = R->stop;
        pthread_mutex_unlock(&R->mu);
        if (!res->counters_busy || !patient || stop)
            break;
        double now = bl_now_ms();
        if (!busy_since)
            busy_since = now;
        if (now - busy_since >= COUNTERS_BUSY_WAIT_MS)
            break;
        struct timespec ts = {0, COUNTERS_RETRY_MS * 1000000L};
        nanosleep(&ts, NULL);
        uint64_t id = res->id;
        memset(res, 0, sizeof *res);
        res->id = id;
    }
    if (rc == 0 && req->kind == GPU_REQ_CASE)
        case_check(R, &c, res);
    if (R->lock_note[0] && res->provenance[0]) {
        size_t k = strlen(res->provenance);
        bl_fmt(res->provenance + k, sizeof res->provenance - k, "; %s", R->lock_note);
    }
}

/* ---- worker ---- */

/* Give the counters back when they were held for COUNTERS_HOLD_MS, or (quiet) when nothing is
 * queued and the last measurement ended R->linger_ms ago. Called with R->mu held; unlocks it
 * around the CUPTI calls. */
static void counters_give_back(struct runner *R, int quiet)
{
    double since = bl_counters_held_since(R->ctr);
    if (since <= 0)
        return;
    double t = bl_now_ms();
    if (t - since < COUNTERS_HOLD_MS && !(quiet && t - R->last_done_ms >= R->linger_ms))
        return;
    pthread_mutex_unlock(&R->mu);
    bl_counters_release(R->ctr);
    pthread_mutex_lock(&R->mu);
}

/* Wait for a request (R->mu held); meanwhile give the counters back once quiet. */
static void wait_for_request(struct runner *R)
{
    while (!R->stop && R->qcount == 0) {
        if (bl_counters_held_since(R->ctr) <= 0) {
            pthread_cond_wait(&R->cv_req, &R->mu);
            continue;
        }
        double left = R->last_done_ms + R->linger_ms - bl_now_ms();
        if (left > 0) {
            struct timespec until = gpu_deadline(left);
            pthread_cond_timedwait(&R->cv_req, &R->mu, &until);
        }
        if (R->qcount == 0)
            counters_give_back(R, 1);
    }
}

static enum ctr_status ops_prepare(void *impl, struct bl_err *err)
{
    return bl_counters_prepare(impl, err);
}

static enum ctr_status ops_measure(void *impl, int (*launch)(void *), void *arg, double *vals,
                                   struct bl_err *err)
{
    return bl_counters_measure(impl, launch, arg, vals, err);
}

static const struct ctr_ops cupti_ops = {ops_prepare, ops_measure};

/* The SM clock at open, which timings are converted with: a warm-up spin, then 2e7 clock64
 * cycles (once: read around each request it is noisier than the timings it converts). */
static int read_clock(struct runner *R, struct gpu_result *res)
{
    const long long cycles = 20000000;
    CK(res, bl_clock_probe(cycles / 10, R->d_sink));
    R->clock_mhz = R->clock_max_mhz;
    return probe_clock(R, res, cycles, &R->clock_mhz);
}

/* Counters at open, before any turn (loading CUPTI takes a while): the library (missing is
 * for good), the configuration and the profiler initialised on our context (no counter
 * hardware is touched: busy is fine, the measurements try again in their turns). Why there
 * are none, or that they were busy, goes to info.counters_err. */
static void open_counters(struct runner *R)
{
    struct bl_err *e = &R->info.counters_err, why = {0};
    R->info.counters = 0;
    if (sys_env("BANKLAB_NO_COUNTERS")) {
        bl_fail(e, CTR_UNAVAILABLE, BL_NOWHERE, CNT_OFF_BY_ENV);
        return;
    }
    if (!(R->ctr = bl_counters_new(R->device, NULL, 0, e)))
        return;
    ctr_policy_init(&R->retry, &cupti_ops, R->ctr);
    R->ctr_nmetrics = BL_NMETRICS;
    enum ctr_status st = ctr_policy_prepare(&R->retry, &why);
    cudaGetLastError(); /* a failed CUPTI setup leaves no CUDA error behind */
    if (st == CTR_UNAVAILABLE) {
        /* a CUPTI without the metrics of ldmatrix, stmatrix and cp.async: the six alone
         * (those instructions then measure without counters, and say so) */
        static const char *six[BL_INST_ST + 1];
        for (int i = 0; i <= BL_INST_ST; i++)
            six[i] = bl_counters_metric(i);
        bl_err_clear(&why);
        struct bl_counters *c = bl_counters_new(R->device, six, BL_INST_ST + 1, &why);
        if (c) {
            bl_counters_close(R->ctr);
            R->ctr = c;
            R->ctr_nmetrics = BL_INST_ST + 1;
            ctr_policy_init(&R->retry, &cupti_ops, R->ctr);
            st = ctr_policy_prepare(&R->retry, &why);
            cudaGetLastError();
        }
    }
    R->info.counters = st != CTR_UNAVAILABLE;
    if (st == CTR_BUSY)
        bl_fail(e, CTR_BUSY, BL_NOWHERE, CNT_BUSY_AT_START, why.msg);
    else if (st == CTR_UNAVAILABLE)
        *e = why;
}

static int worker_init(struct runner *R, struct gpu_result *res)
{
    CK(res, cudaSetDevice(R->device));
    CK(res, cudaFree(0));
    CK(res, cudaEventCreate(&R->e0));
    CK(res, cudaEventCreate(&R->e1));
    for (int i = 0; i <= LAUNCHES; i++)
        CK(res, cudaEventCreate(&R->ev[i]));
    CK(res, cudaMalloc((void **)&R->d_sink, 64));
    CK(res, cudaMalloc(&R->d_src, BL_CP_ASYNC_SRC));
    CK(res, cudaMemset(R->d_src, 0, BL_CP_ASYNC_SRC));
    open_counters(R);
    /* The clock is a measurement: in a turn of its own, with the first-time work of the
     * process (its first launch and first profiled launch: a profiled launch outside a turn
     * would collide with the counter pass of whoever holds the turn). When the turn does not
     * come (other processes kept the device for 30 s), the nominal clock stands in and the
     * name says so. */
    const char *nominal = "";
    if (lock_take(R, res) == 0) {
        runner_warm_up(R);
        int rc = read_clock(R, res);
        lock_give(R);
        if (rc)
            return -1;
    } else {
        memset(res, 0, sizeof *res);
        R->clock_mhz = R->clock_max_mhz;
        nominal = " (nominal: the device was busy at start)";
    }
    /* the device's text and its msg.def row, for either language */
    bl_msg_set(&R->info.device_msg, R->info.device, sizeof R->info.device,
               nominal[0] ? GPU_DEVICE_DESC_NOMINAL : GPU_DEVICE_DESC, R->name,
               R->cc_major * 10 + R->cc_minor, R->sms, (int)(R->clock_mhz + 0.5));
    R->info.clock_khz = (int)(R->clock_mhz * 1000 + 0.5);
    return 0;
}

static void *worker(void *arg)
{
    struct runner *R = arg;
    struct gpu_result ires;
    memset(&ires, 0, sizeof ires);
    int ok = worker_init(R, &ires) == 0;
    pthread_mutex_lock(&R->mu);
    R->prog.phase = GPU_PHASE_IDLE;
    R->init_done = 1;
    R->init_ok = ok;
    if (!ok)
        R->init_err = ires.err;
    pthread_cond_broadcast(&R->cv_res);
    while (ok) {
        wait_for_request(R);
        if (R->stop)
            break;
        struct gpu_request req = R->q[R->qhead];
        R->prog.phase = R->lock ? GPU_PHASE_WAITING : GPU_PHASE_MEASURING;
        R->prog.id = req.id;
        R->prog.ahead = 0;
        R->prog_since = R->q_since[R->qhead];
        R->qhead = (R->qhead + 1) % RUNNER_QUEUE;
        R->qcount--;
        R->busy = 1;
        pthread_mutex_unlock(&R->mu);

        struct gpu_result res;
        memset(&res, 0, sizeof res);
        res.id = req.id;
        serve(R, &req, &res);
        if (!res.provenance[0])
            bl_fmt(res.provenance, sizeof res.provenance, "%s", R->info.device);

        pthread_mutex_lock(&R->mu);
        gpu_ring_put(&R->done, &res); /* room: submit counts it */
        R->busy = 0;
        R->prog.phase = GPU_PHASE_IDLE;
        R->prog.id = 0;
        R->last_done_ms = bl_now_ms();
        pthread_cond_broadcast(&R->cv_res);
        counters_give_back(R, 0);
    }
    pthread_mutex_unlock(&R->mu);
    /* The context stays for the process; free what this runner allocated. */
    cudaFree(R->d_sink);
    cudaFree(R->d_src);
    case_free(R);
    R->h_small_in = R->h_small_out = R->h_big_in = R->h_big_out = NULL;
    if (R->e0)
        cudaEventDestroy(R->e0);
    if (R->e1)
        cudaEventDestroy(R->e1);
    for (int i = 0; i <= LAUNCHES; i++)
        if (R->ev[i])
            cudaEventDestroy(R->ev[i]);
    bl_counters_close(R->ctr);
    R->ctr = NULL;
    return NULL;
}

/* ---- gpu_ops ---- */

static enum gpu_status r_submit(void *impl, const struct gpu_request *req)
{
    struct runner *R = impl;
    enum gpu_status st = GPU_OK;
    pthread_mutex_lock(&R->mu);
    if (R->qcount + R->done.count + R->busy >= RUNNER_QUEUE) {
        st = GPU_EBUSY;
    } else {
        R->q[(R->qhead + R->qcount) % RUNNER_QUEUE] = *req;
        R->q_since[(R->qhead + R->qcount) % RUNNER_QUEUE] = bl_now_ms();
        R->qcount++;
        pthread_cond_signal(&R->cv_req);
    }
    pthread_mutex_unlock(&R->mu);
    return st;
}

static void r_progress(void *impl, struct gpu_progress *out)
{
    struct runner *R = impl;
    pthread_mutex_lock(&R->mu);
    double t = bl_now_ms();
    if (R->prog.phase != GPU_PHASE_IDLE) {
        *out = R->prog;
        out->seconds = (t - R->prog_since) / 1e3;
    } else if (R->qcount > 0) {
        out->phase = GPU_PHASE_QUEUED;
        out->id = R->q[R->qhead].id;
        out->seconds = (t - R->q_since[R->qhead]) / 1e3;
    }
    pthread_mutex_unlock(&R->mu);
}

static void r_close(void *impl)
{
    struct runner *R = impl;
    if (!R)
        return;
    if (R->started) {
        pthread_mutex_lock(&R->mu);
        R->stop = 1;
        pthread_cond_broadcast(&R->cv_req);
        pthread_mutex_unlock(&R->mu);
        pthread_join(R->thread, NULL);
    }
    pthread_mutex_destroy(&R->mu);
    pthread_cond_destroy(&R->cv_req);
    pthread_cond_destroy(&R->cv_res);
    free(R->h_small_in);
    free(R->h_small_out);
    free(R->h_big_in);
    free(R->h_big_out);
    devlock_close(R->lock);
    free(R);
}

static const struct gpu_ops runner_ops = {r_submit, NULL, NULL, r_close, r_progress};

/* Why device `device` cannot be used, into why (failed: GPU_EUNAVAILABLE); nothing when it
 * is usable (prop then holds its properties). */
static void probe(int device, struct bl_err *why, struct cudaDeviceProp *prop)
{
    void *libcuda = bl_cuda_open();
    if (!libcuda) {
        bl_fail(why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_NO_DRIVER);
        return;
    }
    dlclose(libcuda);
    int drv = 0, count = 0;
    cudaError_t e = cudaDriverGetVersion(&drv);
    if (e == cudaSuccess && drv > 0 && drv < CUDART_VERSION) {
        bl_fail(why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_DRIVER_TOO_OLD_VERSION, drv / 1000,
                drv % 1000 / 10, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        return;
    }
    e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0))
        bl_fail(why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_NO_DEVICE);
    else if (e == cudaErrorInsufficientDriver)
        bl_fail(why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_DRIVER_TOO_OLD, cudaGetErrorString(e));
    else if (e != cudaSuccess)
        bl_fail(why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_CUDA_UNAVAILABLE, cudaGetErrorString(e));
    else if (device < 0 || device >= count)
        bl_fail(why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_NO_DEVICE_N, device, count, count - 1);
    else if ((e = cudaGetDeviceProperties(prop, device)) != cudaSuccess)
        bl_fail(why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_DEVICE_ERROR, device, cudaGetErrorString(e));
    else if (prop->major * 10 + prop->minor < MIN_SM)
        bl_fail(why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_DEVICE_TOO_OLD, prop->name, prop->major,
                prop->minor, MIN_SM);
}

static struct gpu *open_runner(int device, int serving, struct gpu_info *info);

struct gpu *gpu_open(int device, struct gpu_info *info)
{
    return open_runner(device, 0, info);
}

struct gpu *gpu_open_serving(int device, struct gpu_info *info)
{
    return open_runner(device, 1, info);
}

static struct gpu *open_runner(int device, int serving, struct gpu_info *info)
{
    struct bl_err why = {0};
    /* Load every kernel when the context is made (before any turn), not at its first launch
     * inside one; a user's own setting wins. */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    struct cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    probe(device, &why, &prop);
    if (bl_err_failed(&why))
        return gpu_unavailable(info, &why);
    struct runner *R = calloc(1, sizeof *R);
    if (!R)
        return NULL;
    R->device = device;
    R->serving = serving;
    R->done = (struct gpu_ring){R->r, RUNNER_QUEUE, 0, 0, &R->mu, &R->cv_res};
    R->light = sys_env("BANKLAB_LIGHT") != NULL;
    const char *linger = sys_env("BANKLAB_COUNTERS_LINGER_MS");
    R->linger_ms = linger && *linger ? atof(linger) : COUNTERS_LINGER_MS;
    if (R->linger_ms < 0 || R->linger_ms > COUNTERS_HOLD_MS)
        R->linger_ms = COUNTERS_LINGER_MS;
    bl_fmt(R->name, sizeof R->name, "%s", prop.name);
    R->cc_major = prop.major;
    R->cc_minor = prop.minor;
    R->sms = prop.multiProcessorCount;
    R->smem_optin = prop.sharedMemPerBlockOptin ? prop.sharedMemPerBlockOptin : prop.sharedMemPerBlock;
    R->smem_per_sm = prop.sharedMemPerMultiprocessor;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) == cudaSuccess)
        R->clock_max_mhz = khz / 1000.0;
    pthread_mutex_init(&R->mu, NULL);
    pthread_cond_init(&R->cv_req, NULL);
    pthread_cond_init(&R->cv_res, NULL);
    char key[64];
    struct bl_err err = {0};
    devlock_key((const unsigned char *)prop.uuid.bytes, key, sizeof key);
    if (devlock_open(key, &R->lock, &err) == 0)
        bl_msg_set(&R->info.lock_msg, R->info.lock, sizeof R->info.lock, GPU_TURNS_THROUGH,
                   devlock_path(R->lock));
    else
        without_turns(R, &err);
    R->info.backend = GPU_BACKEND_CUDA;
    R->info.cc_major = prop.major;
    R->info.cc_minor = prop.minor;
    R->info.sm_count = prop.multiProcessorCount;
    R->prog.phase = GPU_PHASE_MEASURING;   /* the worker's start-up (gpu_open waits for it) */
    if (pthread_create(&R->thread, NULL, worker, R)) {
        r_close(R);
        bl_fail(&why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_NO_WORKER_THREAD);
        return gpu_unavailable(info, &why);
    }
    R->started = 1;
    /* Wait for the worker to set up the context (once, at open). */
    pthread_mutex_lock(&R->mu);
    while (!R->init_done)
        pthread_cond_wait(&R->cv_res, &R->mu);
    int ok = R->init_ok;
    pthread_mutex_unlock(&R->mu);
    if (!ok) {
        bl_fail(&why, GPU_EUNAVAILABLE, BL_NOWHERE, GPU_DEVICE_UNUSABLE, device, R->init_err.msg);
        r_close(R);
        return gpu_unavailable(info, &why);
    }
    R->info.available = 1;
    if (info)
        *info = R->info;
    return gpu_wrap_new(&runner_ops, R, &R->done, GPU_BACKEND_CUDA);
}
