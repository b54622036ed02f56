/* gpu.h: the one interface to real hardware. Implementations: CUDA (cudart + CUPTI, built
 * when nvcc is present), none (no toolkit, no device, no driver), and replay (results recorded
 * by `banklab bench/verify --json`). Callers never block: requests run on a worker thread, and
 * gpu_progress says what the oldest one is doing (it may wait seconds for its turn on a device
 * shared by a class: devlock.h). Depends on the model (bank.h) only; no curses, no cJSON. */
#ifndef BANKLAB_GPU_H
#define BANKLAB_GPU_H

#include <stddef.h>
#include <stdint.h>

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
     * arguments, for either language (bl_msg_text): id BL_MSG_NONE where the English text is
     * all there is (as for err.why and counters_err.why of an info read from a server) */
    struct bl_msg device_msg;
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
    int counters_busy;            /* counters missing because another profiler held them:
                                     a later request may have them (not recorded) */
    double wait_ms;               /* time waiting for the device's turn (not recorded) */
    /* answered by a GPU server (`banklab serve`, serve_client.c; not recorded) */
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

/* gpu_open: open device `device` (index) with the built-in implementation (CUDA if built
 * and usable, else none). Always returns a handle (NULL only when out of memory); info tells
 * what answers. Starts the worker thread when a device is there. */
struct gpu *gpu_open(int device, struct gpu_info *info);

/* gpu_open_server: a client of the GPU server (`banklab serve`) listening on the Unix socket
 * at path: requests go to it and its results come back (serve_client.c; no CUDA in this
 * process, no GPU memory). device is only told to the server. Waits at most a few seconds for
 * the server's hello; when none answers, the handle is unavailable and info.err says why.
 * A server that goes away later is reconnected to and the unanswered requests are sent again
 * (gpu_progress: GPU_PHASE_RECONNECTING); after 30 s without a server they fail. */
struct gpu *gpu_open_server(const char *path, int device, struct gpu_info *info);

/* gpu_open_auto: what every banklab command but `banklab kernel` and `banklab serve` opens.
 * server (or $BANKLAB_SERVER when server is NULL or ""): a client of that socket. no_server
 * (or $BANKLAB_NO_SERVER=1): gpu_open, the runner in this process. Else the default socket of
 * device (the directory of serve_dir, named after the GPU's UUID); when no server answers
 * there, one is started (`banklab serve --device N --idle 600`, detached; one for many
 * clients starting at once) and reconnected to if it dies. Without a CUDA driver or device:
 * gpu_open (the reason of today). Returns NULL only when out of memory. */
struct gpu *gpu_open_auto(int device, const char *server, int no_server, struct gpu_info *info);

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
 * src/gpu/cuda_cases.c. */
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

/* gpu_backend_name: "cuda", "none" or "replay". */
const char *gpu_backend_name(enum gpu_backend b);

#endif
