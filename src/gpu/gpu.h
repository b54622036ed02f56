/* gpu.h: the one interface to real hardware. Implementations: CUDA (cudart + CUPTI, built
 * when nvcc is present), none (no toolkit, no device, no driver), and replay (results recorded
 * by `banklab bench/verify --json`). Callers never block: requests run on a worker thread, and
 * gpu_progress says what the oldest one is doing (it may wait seconds for its turn on a device
 * shared by a class: devlock/devlock.h). Depends on the model (bank.h) only; no curses, no cJSON. */
#ifndef BANKLAB_GPU_H
#define BANKLAB_GPU_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../base/err.h"
#include "../model/bank.h"

#define GPU_TEXT_MAX 256
#define GPU_CASE_MAX_PARAMS 8

enum gpu_backend { GPU_BACKEND_NONE = 0, GPU_BACKEND_CUDA = 1, GPU_BACKEND_REPLAY = 2 };

struct gpu_info {
    enum gpu_backend backend;     /* which implementation answers */
    int available;                /* 1 when requests can produce measurements */
    struct bl_err err;            /* why not available (status GPU_EUNAVAILABLE), or none */
    char device[GPU_TEXT_MAX];    /* e.g. "NVIDIA H200 (sm_90)" or "recorded on ..., <date>" */
    int cc_major, cc_minor;
    int sm_count;
    int clock_khz;                /* SM clock the timings are converted with */
    int counters;                 /* 1 when hardware counters can be read (they may be busy
                                     for a moment: each result says) */
    struct bl_err counters_err;   /* why not, when counters == 0 (status CTR_UNAVAILABLE,
                                     or GPU_EUNAVAILABLE with err); when they were busy at
                                     start, that note (CTR_BUSY) */
    char lock[GPU_TEXT_MAX];      /* how measurements take turns with other processes: "turns
                                     through <lock file>", or why they cannot (one line) */
    /* device (replay's "recorded on ...") as a message id of src/base/msg.def with its
     * arguments, for either language (bl_msg_or_text): id BL_MSG_NONE where the English text is
     * all there is (as for err.why and counters_err.why of an info read from a server) */
    struct bl_msg device_msg;
    struct bl_msg lock_msg;       /* lock as a message, the same way (BL_MSG_NONE: text only) */
};

enum gpu_req_kind { GPU_REQ_PATTERN = 0, GPU_REQ_CASE = 1 };

struct gpu_request {
    uint64_t id;                  /* caller's id, echoed in the result */
    enum gpu_req_kind kind;
    struct bank_access access;    /* GPU_REQ_PATTERN: the model's per-lane offsets.
                                   * GPU_REQ_CASE: the scene's drawn access (the one the kernel
                                   * teaches), or mask 0 for none; with want_timing it is timed
                                   * as a pattern too (the access_timing fields of the result) */
    char case_name[64];           /* GPU_REQ_CASE: e.g. "transpose_padded" */
    int nparams;
    char param_name[GPU_CASE_MAX_PARAMS][32];
    long long param_value[GPU_CASE_MAX_PARAMS];
    int want_timing;              /* all-SM throughput launch (pattern: time per access) */
    int want_counters;            /* one-warp CUPTI launch */
};

enum gpu_status {
    GPU_OK = 0,
    GPU_EUNAVAILABLE = 1,         /* no device (info.err says why) */
    GPU_EBUSY = 2,                /* queue full: try again after a poll */
    GPU_EINVAL = 3,               /* bad request (unknown case, bad width) */
    GPU_EFAILED = 4,              /* a CUDA call failed: err says file:line, call, reason */
    GPU_EVERIFY = 5,              /* kernel output differed from the CPU reference */
    GPU_ENOTRECORDED = 6,         /* replay: no recorded result for this request */
};

struct gpu_result {
    uint64_t id;
    struct bl_err err;            /* err.status: enum gpu_status (GPU_OK: none); its why is
                                     BL_MSG_NONE where the English msg is all there is (a
                                     result read from a recording or a server) */
    char provenance[GPU_TEXT_MAX];/* device, clock, method, or "recorded on <device>, <date>" */
    /* timing of the launch (valid when has_timing): for a pattern the launch is sized to a
     * fixed duration, so ms means nothing to a learner; clk_per_request and the access
     * timing below do. For a case kernel ms and gbps are the kernel's time and bandwidth. */
    int has_timing;
    double ms_median, ms_min, ms_max;  /* per launch, after warm-up */
    int launches;
    double clk_per_request;       /* SM cycles per warp instruction per SM (case kernels: per
                                   * shared load of the taught access, whole kernel) */
    double bytes_per_clk_per_sm;  /* achieved shared bandwidth (limit 128) */
    double gbps;                  /* case kernels: global GB/s (read + write) */
    int verified;                 /* case kernels: 1 when output matched the CPU reference */
    /* time of one warp access (valid when has_access_timing; docs/gpu.md "Time per warp
     * access"): the SM time one warp instruction of this access costs while every SM runs
     * many warps of it, and the same for the conflict-free access of the same width, kind
     * (load/store) and mask, measured by the same process */
    int has_access_timing;
    double clk_per_access;        /* SM clocks per warp access */
    double ns_per_access;         /* the same in ns at the SM clock read at start-up */
    double ref_clk_per_access;    /* the conflict-free access (lane l at l * width) */
    double slowdown;              /* clk_per_access / ref_clk_per_access */
    /* counters per warp instruction (valid when has_counters) */
    int has_counters;
    double wavefronts_ld, wavefronts_st;
    double conflicts_ld, conflicts_st;
    double inst_ld, inst_st;      /* shared instructions executed (raw) */
    char counters_note[GPU_TEXT_MAX]; /* why counters are missing, when has_counters == 0 */
    /* counters_note as a message id of src/base/msg.def with its arguments (gpu_note), for
     * either language; BL_MSG_NONE where the English text is all there is (a recording's) */
    struct bl_msg counters_msg;
    int counters_busy;            /* counters missing because another profiler held them:
                                     a later request may have them (not recorded) */
    double wait_ms;               /* time waiting for the device's turn (not recorded) */
    /* answered by a GPU server (`banklab serve`, serve/client.c; not recorded) */
    int from_server;              /* 1: measured by the server of the device, not this process */
    int from_cache;               /* 1: the server's cache answered: measured earlier for the
                                     same request (of any client), cached_age_s ago */
    double cached_age_s;          /* seconds since it was measured (0 when not from_cache) */
};

/* What a handle is doing with its oldest unfinished request (gpu_progress). */
enum gpu_phase {
    GPU_PHASE_IDLE = 0,           /* nothing submitted is unfinished */
    GPU_PHASE_QUEUED = 1,         /* behind this handle's own earlier requests */
    GPU_PHASE_WAITING = 2,        /* waiting for its turn: other processes measure the device */
    GPU_PHASE_MEASURING = 3,      /* running on the device */
    GPU_PHASE_COUNTERS_BUSY = 4,  /* another profiler holds the counters: trying again */
    GPU_PHASE_RECONNECTING = 5,   /* the GPU server went away: reconnecting (and resending) */
};

struct gpu_progress {
    enum gpu_phase phase;
    uint64_t id;                  /* the request (0 when idle) */
    double seconds;               /* since the request was submitted */
    int ahead;                    /* GPU_PHASE_WAITING: turns before it on the device, else 0 */
};

struct gpu;

/* A recorded measurement: the request it answers and the result. Files of these are written by
 * `banklab bench/verify --json` and read by src/store/recording.c (the JSON side lives there,
 * since only src/store uses cJSON). Replay finds results by what was measured: a pattern by
 * width, op, mask and the offsets of the active lanes (counters and access timing may come
 * from different records of the same access); a case by name and the values of the
 * parameters the kernel reads (gpu_case_info: aliases and defaults resolved), plus the access
 * timing of its drawn access from that access's pattern records. */
struct gpu_record {
    struct gpu_request req;
    struct gpu_result res;
};

/* gpu_open_replay: a handle that answers from n recorded results (copied; recs may be freed
 * after the call). device and date name the recording ("recorded on <device>, <date>").
 * Returns NULL only when out of memory. Requests with no recording answer GPU_ENOTRECORDED. */
struct gpu *gpu_open_replay(const struct gpu_record *recs, int n, const char *device,
                            const char *date, struct gpu_info *info);

/* gpu_submit: queue a request; never blocks. GPU_OK, GPU_EBUSY or GPU_EUNAVAILABLE. */
enum gpu_status gpu_submit(struct gpu *g, const struct gpu_request *req);

/* gpu_poll: 1 and *out filled when a result is ready, 0 when none. Never blocks. */
int gpu_poll(struct gpu *g, struct gpu_result *out);

/* gpu_wait: block until a result is ready or timeout_ms passes (CLI use only).
 * 1 with *out filled, 0 on timeout. */
int gpu_wait(struct gpu *g, struct gpu_result *out, int timeout_ms);

/* gpu_run: submit req and wait up to timeout_ms for its result (CLI use only: assumes no
 * other request of this caller is outstanding). Returns out->err.status; GPU_EBUSY when the queue
 * stayed full, GPU_EFAILED with out->err set on a timeout. */
enum gpu_status gpu_run(struct gpu *g, const struct gpu_request *req, struct gpu_result *out,
                        int timeout_ms);

/* gpu_progress: what the oldest unfinished request is doing, for "waiting for the GPU (3 s)".
 * Never blocks; replay and unavailable handles are always idle. */
void gpu_progress(struct gpu *g, struct gpu_progress *out);

/* gpu_close: stop the worker (waits for the running request) and free. NULL is fine. */
void gpu_close(struct gpu *g);

/* One parameter a case kernel reads: its name, another scene name that stands for it, the
 * value used when a request does not give it, and the range the kernel accepts. */
struct gpu_case_param {
    const char *name;             /* e.g. "PAD" */
    const char *alias;            /* e.g. "COL" for "COLUMN", or NULL */
    long long def, min, max;
};

/* A case kernel: the one table every part reads (the runner, `bench`, `verify`, the lesson
 * checker, the tutorial), found by name; the runner's device side of each row is in
 * src/runner/cuda_cases.c. */
struct gpu_case {
    const char *name;             /* what lessons and requests call it, e.g. "transpose_padded" */
    int matrix;                   /* 1: works on the 8192 x 8192 matrix (copies, transposes:
                                     GB/s against the copy ceiling) */
    const struct gpu_case_param *params; /* the parameters it reads, in a fixed order */
    int nparams;
    const char *taught;           /* the taught access, in words and code (docs, bench) */
    /* the taught shared access of one warp at parameter values v (params order): each lane's
     * offset at the first step of its loop (the other steps shift every lane alike); NULL
     * when the kernel has none of its own to model */
    int (*model)(const long long *v, struct bank_access *acc);
    const long long *bench;       /* the settings `banklab bench` measures: nbench rows of
                                     nparams values */
    int nbench;
    int uncounted;                /* 1: no kernel of banklab's to count (memcpy) */
};

/* GPU_CASE_COUNT: the rows of the table (gpu_case_count). */
#define GPU_CASE_COUNT gpu_case_count()
int gpu_case_count(void);

/* gpu_case_find: the case kernel called name, or NULL. gpu_case_at: the i-th (0 ..
 * GPU_CASE_COUNT - 1), or NULL. Pointers into a static table. */
const struct gpu_case *gpu_case_find(const char *name);
const struct gpu_case *gpu_case_at(int i);

/* gpu_case_check: the index of the first of c's parameter values v (params order) outside
 * its range, or -1. */
int gpu_case_check(const struct gpu_case *c, const long long *v);

/* gpu_case_model: the model's view of the taught access of req's case kernel at req's values
 * into acc. 0, or -1 (unknown case, nothing to model, a value out of range). */
int gpu_case_model(const struct gpu_request *req, struct bank_access *acc);

/* gpu_case_info: the parameters case kernel `name` reads, in a fixed order; *n receives
 * their number (0 for a case without parameters). NULL (and *n = 0) for an unknown case.
 * The pointer is static. */
const struct gpu_case_param *gpu_case_info(const char *name, int *n);

/* gpu_case_param_index: index in gpu_case_info(case) of the parameter a scene names
 * `scene_name` (by name or alias), or -1. */
int gpu_case_param_index(const char *case_name, const char *scene_name);

/* gpu_case_values: the value of every parameter case kernel q->case_name reads, in
 * gpu_case_info's order, into v (the request's value by name or alias, else the default).
 * Returns their number, or -1 for an unknown case. Two case requests run the same kernel
 * setting exactly when their names and these values are equal. */
int gpu_case_values(const struct gpu_request *q, long long v[GPU_CASE_MAX_PARAMS]);

/* gpu_same_access: 1 when a and b are the same warp access (width, op, mask and the offsets
 * of the active lanes; inactive lanes' offsets do not matter). */
int gpu_same_access(const struct bank_access *a, const struct bank_access *b);

/* gpu_status_name: "ok", "unavailable", "busy", "invalid", "failed", "verify" or
 * "not-recorded" (the recording format's names); NULL for a value outside the enum. */
const char *gpu_status_name(enum gpu_status st);

/* gpu_note: r's counters note (counters_note and counters_msg) from the message id of
 * msg.def and its arguments. gpu_note_err: the same from an error (its message and text). */
void gpu_note(struct gpu_result *r, int id, ...);
void gpu_note_err(struct gpu_result *r, const struct bl_err *e);

/* gpu_backend_name: "cuda", "none" or "replay". */
const char *gpu_backend_name(enum gpu_backend b);

/* ---- for the implementations (src/gpu/common.c, the runner, the GPU server's client, the
 * fake device): not for the callers of the interface ---- */

/* gpu_unavailable: a handle whose requests all answer GPU_EUNAVAILABLE; info (when not NULL)
 * gets why as its err and counters_err (status GPU_EUNAVAILABLE). Returns NULL only when out
 * of memory. */
struct gpu *gpu_unavailable(struct gpu_info *info, const struct bl_err *why);

/* A handle backed by another implementation (the CUDA runner, the server's client, the fake
 * device): gpu_submit/close/progress forward to ops with impl, and gpu_poll/wait take from
 * its ring of results (gpu_wrap_new), or forward to ops when it has none. */
struct gpu_ops {
    enum gpu_status (*submit)(void *impl, const struct gpu_request *req);
    int (*poll)(void *impl, struct gpu_result *out);              /* NULL with a ring */
    int (*wait)(void *impl, struct gpu_result *out, int timeout_ms);
    void (*close)(void *impl);
    void (*progress)(void *impl, struct gpu_progress *out); /* may be NULL: always idle */
};

/* A ring of finished results, for the implementations that hand results from a thread of
 * their own to gpu_poll/gpu_wait. The implementation owns the slots, the mutex the ring is
 * used under and the condition variable signalled when a result is put. */
struct gpu_ring {
    struct gpu_result *r;         /* cap slots */
    int cap, head, count;
    pthread_mutex_t *mu;
    pthread_cond_t *cv;
};

/* gpu_ring_put: append res (mutex held); 0, or -1 when the ring is full (gpu_poll and
 * gpu_wait take the oldest). */
int gpu_ring_put(struct gpu_ring *q, const struct gpu_result *res);

/* gpu_deadline: CLOCK_REALTIME ms from now, for pthread_cond_timedwait. */
struct timespec gpu_deadline(double ms);

/* copy_access_timing: t's time of one warp access (has_access_timing and its figures) into r. */
void copy_access_timing(struct gpu_result *r, const struct gpu_result *t);

/* gpu_same_case: a and b (case requests) run the same kernel setting: the same name and the
 * same values of the parameters the kernel reads (gpu_case_values); an unknown case matches
 * only the same name with the same parameters given. */
int gpu_same_case(const struct gpu_request *a, const struct gpu_request *b);

/* gpu_wrap_new: a handle forwarding to ops/impl (impl is closed by gpu_close), its results
 * taken from ring (NULL: from ops). NULL when out of memory (impl is then closed too). */
struct gpu *gpu_wrap_new(const struct gpu_ops *ops, void *impl, struct gpu_ring *ring,
                         enum gpu_backend backend);

#endif
