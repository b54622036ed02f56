/* cuda_internal.h: what the parts of the CUDA runner share, private to them: the runner's state,
 * the check of a CUDA call (CK), timing and counters. runner/cuda_gpu.c owns the worker thread, the queues
 * and the device lock; runner/cuda_measure.c runs pattern requests and holds the timing and counter
 * helpers; runner/cuda_cases.c runs the case kernels and their CPU references. No curses, no cJSON. */
#ifndef BANKLAB_CUDA_RUNNER_H
#define BANKLAB_CUDA_RUNNER_H

#include <pthread.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "../../kernels/kernels.h"
#include "../base/fmt.h"
#include "counters.h"
#include "../cuda/cudalib.h"
#include "../devlock/devlock.h"
#include "../gpu/gpu.h"

#define RUNNER_QUEUE 16
#define WARMUP 2
#define LAUNCHES 11            /* timed launches of a measurement (the median is reported) */
#define PATTERN_TRIPS 1024     /* loop trips x predicted wavefronts per launch: about 1 ms */
#define REF_CACHE 16           /* conflict-free references kept per runner */
#define CASE_ROUNDS 64
#define SMALL_PER_BLOCK 4096   /* floats of input per block, at most: dynamic_carve's N max */
#define TRANSPOSE_N 8192

struct runner {
    int device;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv_req, cv_res;
    struct gpu_request q[RUNNER_QUEUE];
    double q_since[RUNNER_QUEUE]; /* when each queued request was submitted (ms) */
    int qhead, qcount;
    struct gpu_result r[RUNNER_QUEUE];
    struct gpu_ring done;         /* finished results, over r[] */
    int busy, stop, started;
    int init_done, init_ok;
    struct bl_err init_err;       /* why the worker could not set the device up */
    struct gpu_info info;
    struct gpu_progress prog;     /* the request the worker has (under mu) */
    double prog_since;            /* its submission time (ms) */
    /* worker-only state */
    struct devlock *lock;         /* the device's turns; NULL: measuring without (lock_note) */
    char lock_note[GPU_TEXT_MAX];
    cudaEvent_t e0, e1;
    cudaEvent_t ev[LAUNCHES + 1]; /* between the timed launches */
    unsigned *d_sink;
    void *d_src;                /* cp.async's global source: BL_CP_ASYNC_SRC bytes */
    int ctr_nmetrics;           /* metrics R->ctr reads: BL_NMETRICS, or the six (an older CUPTI) */
    float *d_small_in, *d_small_out, *h_small_in, *h_small_out;
    size_t small_floats;
    float *d_big_in, *d_big_out, *h_big_in, *h_big_out;
    int big_n;
    struct bl_counters *ctr;      /* NULL: counters off for good (info.counters_err) */
    double linger_ms;             /* give the counters back after this long without a request */
    double last_done_ms;          /* when the last request ended (bl_now_ms) */
    struct ctr_policy retry;      /* the one-try busy policy around ctr */
    char name[128];
    double clock_mhz, clock_max_mhz;
    int sms, cc_major, cc_minor;
    int serving;                  /* the GPU server's: counters busy answered at once */
    int light;                    /* BANKLAB_LIGHT: tiny launches (for compute-sanitizer runs) */
    size_t smem_optin, smem_per_sm;
    struct {                      /* clk per access of the conflict-free access of a width,
                                     op, mask, measured once per runner */
        unsigned width;
        enum bank_op op;
        uint32_t mask;
        unsigned instr, matrices;
        double clk;
    } ref[REF_CACHE];
    int nref, ref_next;
};

const char *runner_base_name(const char *path);

/* CK: a CUDA call; on failure res fails (bl_fail: file:line, the call and the reason) and
 * the function returns -1. */
#define CK(res, expr)                                                                          \
    do {                                                                                       \
        cudaError_t e_ = (cudaError_t)(expr);                                                  \
        if (e_ != cudaSuccess) {                                                               \
            bl_fail(&(res)->err, GPU_EFAILED, BL_NOWHERE, GPU_CUDA_CALL, runner_base_name(__FILE__), __LINE__, \
                     #expr, cudaGetErrorString(e_));                                           \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)

/* probe_clock: the SM clock now (MHz): a one-thread kernel spins `cycles` clock64 cycles. */
int probe_clock(struct runner *R, struct gpu_result *res, long long cycles, double *mhz);

/* time_launches: warm-up launches, then the median, min and max of timed ones into res. */
int time_launches(struct runner *R, struct gpu_result *res, int (*launch)(void *), void *arg);

/* sync_launch: launch(arg), then wait for the device; 0 or -1. */
int sync_launch(void *arg, int (*launch)(void *));

/* read_counters: the counters of what launch(arg) launches into v, the first nmetrics of them
 * (BL_INST_ST + 1: the plain loads' and stores' six, fewer passes; BL_NMETRICS: all; busy
 * counters are tried once: busy is reported at once, runner/counters.h). 0; or -1 with
 * res->counters_note (and counters_busy) set, or with res failed when the launch left a CUDA
 * error. */
int read_counters(struct runner *R, struct gpu_result *res, int (*launch)(void *), void *arg,
                  int nmetrics, double *v);

/* counters_to_result: v per instruction (divided by div_ld / div_st) into res. */
void counters_to_result(struct gpu_result *res, const double *v, double div_ld, double div_st);

/* A pattern kernel launch (runner/cuda_measure.c). */
struct pattern_run {
    struct bl_pattern_args a;
    int blocks, threads, iters;
    size_t smem;
    unsigned *sink;
    int passes;                   /* the model's passes with an active lane (cp.async's counters) */
};

/* pattern_setup: the launch of access acc (offsets checked against the model and the
 * device's shared memory); *wf gets the predicted wavefronts. 0, or -1 with res failed. */
int pattern_setup(struct runner *R, const struct bank_access *acc, struct pattern_run *p,
                  int *wf, struct gpu_result *res);
/* pattern_time: the timing launch of p on all SMs; res gets the launch timing and
 * clk_per_request. */
int pattern_time(struct runner *R, struct pattern_run *p, int wf, struct gpu_result *res);
/* access_timing: the time of one warp access of acc (clk_per_access from a timing launch
 * whose clk_per_request is clk) and its slowdown against the conflict-free reference. */
int access_timing(struct runner *R, const struct bank_access *acc, double clk,
                  struct gpu_result *res);

/* runner_warm_up (runner/cuda_measure.c): the first-time work of a process (the first launch of the
 * pattern kernel, CUPTI's first profiling session: docs/gpu.md says what it costs) on one
 * warp and a few instructions, in the process's start-up turn (with the
 * clock), so that a request's turn holds its own measurement only and no profiled launch runs
 * outside a turn. Device lock held. Failures (busy counters) are ignored: the first request
 * then does that work. */
void runner_warm_up(struct runner *R);

/* run_pattern (runner/cuda_measure.c): a pattern request; 0 or -1 (res says why). Device lock held. */
int run_pattern(struct runner *R, const struct gpu_request *req, struct gpu_result *res);

/* A case kernel run: set up before taking the device, measured with it, checked after. */
struct case_run {
    const struct gpu_case *gc;
    const struct case_kernel *k;  /* its row of runner/cuda_cases.c's table */
    int kind;                     /* copy_tile32 and the transposes: enum bl_transpose */
    int a, b;                     /* the kernel's parameters */
    int blocks, n;
    int per_block_out;            /* output floats per block (small cases) */
    double shared_ld_per_launch;  /* warp-level shared loads of the taught access */
    double global_bytes;          /* the matrix cases: bytes read + written per launch */
    float *out;
    const float *in;
    size_t out_floats;
};

/* case_setup (runner/cuda_cases.c): the kernel, its parameters and its checks for req; 0, or -1 with
 * res refused (GPU_EINVAL). No device work. */
int case_setup(struct runner *R, const struct gpu_request *req, struct case_run *c,
               struct gpu_result *res);
/* case_measure: buffers, timing, counters, the output copied back. Device lock held. */
int case_measure(struct runner *R, const struct gpu_request *req, struct case_run *c,
                 struct gpu_result *res);
/* case_check: the output against the CPU reference (after the lock is given back). */
int case_check(struct runner *R, struct case_run *c, struct gpu_result *res);
/* case_free: the runner's case buffers. */
void case_free(struct runner *R);

#endif
