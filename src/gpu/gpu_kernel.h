/* gpu_kernel.h: measuring a learner's own kernel, per source line (part of the GPU interface,
 * beside gpu.h). A request names a .cu file, the kernel and its launch; a job compiles it with
 * NVRTC and runs it in another process (a fresh exec of banklab, so a fault, a hang or a
 * crash of the driver cannot take the caller down), reading CUPTI's SASS metrics for every
 * shared-memory instruction and mapping them to source lines. Each process measures once
 * (CUPTI allows one SASS configuration per process) and leaves a successor that opens the
 * device and CUPTI ahead of the next request, so a re-run skips the driver's start-up.
 * Callers never block: start a job, poll it (or wait, from the command line).
 * No curses, no cJSON, no CUDA in this header. */
#ifndef BANKLAB_GPU_KERNEL_H
#define BANKLAB_GPU_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"

#define GPU_KERNEL_TEXT 256          /* one line of text: messages, names, paths */
#define GPU_KERNEL_MAX_ARGS 32       /* --arg NAME=VALUE and --buffer-size NAME=BYTES */
#define GPU_KERNEL_MAX_SOURCE (4u << 20) /* bytes of source accepted */
#define GPU_KERNEL_OUTPUT 4096       /* bytes of the kernel's own output kept (printf) */
#define GPU_KERNEL_MAX_FLAGS 32      /* -I, -D and --nvcc-flag words of one request */

/* ---- the request: what to compile and how to launch it (docs/kernel.md) ---- */

enum gpu_kernel_fill {
    GPU_FILL_FLOAT = 0,              /* 4-byte word k holds the float k mod 1024 (0.0, 1.0, ...) */
    GPU_FILL_INT = 1,                /* 4-byte word k holds the int k */
    GPU_FILL_ZERO = 2,               /* every byte 0 */
};

struct gpu_kernel_named {            /* NAME=VALUE from --arg or --buffer-size */
    char name[64];
    char value[64];
};

/* Which compiler: nvcc when the toolkit has one (files with host code: a main(), <cstdio>),
 * else NVRTC (device code only); --compiler nvcc|nvrtc insists on one. */
enum gpu_kernel_compiler { GPU_COMPILER_AUTO = 0, GPU_COMPILER_NVCC, GPU_COMPILER_NVRTC };

struct gpu_kernel_request {
    char path[GPU_KERNEL_TEXT];      /* the .cu file: messages, include directory, line info */
    char name[GPU_KERNEL_TEXT];      /* --name: kernel (a template instance like k<float4>),
                                        "" = the only __global__ function of the file */
    unsigned grid[3], block[3];      /* --grid, --block (defaults 1 and 256) */
    unsigned long long smem;         /* --smem: dynamic shared memory bytes per block */
    int nargs;                       /* --arg NAME=VALUE: scalar parameters */
    struct gpu_kernel_named args[GPU_KERNEL_MAX_ARGS];
    unsigned long long buffer_size;  /* --buffer-size BYTES: every pointer parameter */
    int nbufs;                       /* --buffer-size NAME=BYTES: one pointer parameter */
    struct gpu_kernel_named bufs[GPU_KERNEL_MAX_ARGS];
    enum gpu_kernel_fill fill;       /* --fill */
    int device;                      /* --device */
    double time_limit;               /* --time-limit seconds: the child is killed after it */
    int counters;                    /* --counters: also the whole-kernel range profiler sums */
    int launch_only;                 /* --launch-only: run once, measure nothing (for ncu); never
                                        through a server: the launch is in a new child */
    int server_idle;                 /* seconds a measuring server waits for the next request
                                        (0: a one-shot child, no server) */
    int counters_only;               /* set by the job: the range profiler's process of
                                        --counters (never one with SASS metrics) */
    char cache_dir[GPU_KERNEL_TEXT]; /* compiled cubins are kept here; "" = no cache */
    char exe[GPU_KERNEL_TEXT];       /* the banklab binary to exec; "" = /proc/self/exe */
    int compiler;                    /* enum gpu_kernel_compiler (--compiler) */
    int nflags;                      /* compiler words in order: "-IDIR", "-DNAME[=V]" and the
                                        --nvcc-flag words, each checked (kernel_nvcc.c) */
    char flags[GPU_KERNEL_MAX_FLAGS][GPU_KERNEL_TEXT];
};

/* gpu_kernel_request_init: the defaults (grid 1, block 256, buffers 16 MiB filled with
 * GPU_FILL_FLOAT, device 0, time limit 10 s, no cache, no server). */
void gpu_kernel_request_init(struct gpu_kernel_request *req);

/* gpu_kernel_option: apply one launch option (the same words as on the command line):
 * opt is "--grid", "--block", "--smem", "--arg", "--buffer-size", "--fill", "--name",
 * "--time-limit", "--device", or a compile option: "-I", "-D", "--nvcc-flag", "--compiler";
 * val its value. Returns 1 when applied, 0 when opt is not a
 * launch option (req untouched), -1 on a bad value with one line in err. */
int gpu_kernel_option(struct gpu_kernel_request *req, const char *opt, const char *val,
                      char *err, size_t errsz);

/* gpu_kernel_file_options: apply the launch comment of a source file: every line comment
 * (//) before the first line of code whose text starts with "banklab:" holds options as on
 * the command line, e.g. "// banklab: --grid 32x32 --block 32x32 --arg n=1024". Returns 0,
 * or -1 with "LINE:COL: message" in err (line and column in the file). */
int gpu_kernel_file_options(struct gpu_kernel_request *req, const char *src, size_t len,
                            char *err, size_t errsz);

/* ---- the result ---- */

enum gpu_kernel_status {
    GPU_KERNEL_OK = 0,
    GPU_KERNEL_ECOMPILE,             /* the compiler refused the file: diags[] */
    GPU_KERNEL_EINPUT,               /* cannot run as asked: no such kernel, a missing --arg... */
    GPU_KERNEL_ENOGPU,               /* compiled, but there is no GPU to measure on */
    GPU_KERNEL_ECOUNTERS,            /* ran, but CUPTI's SASS metrics could not be read */
    GPU_KERNEL_ELAUNCH,              /* the launch was refused (shared memory, block size) */
    GPU_KERNEL_EFAULT,               /* the kernel faulted (illegal address, misaligned, trap) */
    GPU_KERNEL_ETIMEOUT,             /* killed at the time limit */
    GPU_KERNEL_ECRASH,               /* the measuring process died or answered nonsense */
    GPU_KERNEL_ESYSTEM,              /* could not start the measuring process */
};

/* Where a job is; a time-limit message names it. */
enum gpu_kernel_phase {
    GPU_KPHASE_START = 0, GPU_KPHASE_DEVICE, GPU_KPHASE_COMPILE, GPU_KPHASE_SETUP,
    GPU_KPHASE_WAIT,                 /* waiting for the device's turn (devlock.h) */
    GPU_KPHASE_RUN, GPU_KPHASE_COLLECT, GPU_KPHASE_DONE,
};

/* The kinds of shared-memory instruction, as CUPTI's SASS instruction metrics count them:
 * smsp__sass_inst_executed_op_shared_{ld,st,atom,stsm,gmma}, _op_ldsm, _op_ldgsts. */
enum gpu_kernel_op { GPU_KOP_LD = 0, GPU_KOP_ST, GPU_KOP_ATOM, GPU_KOP_LDSM, GPU_KOP_STSM,
                     GPU_KOP_LDGSTS, GPU_KOP_GMMA, GPU_KOP_COUNT };

struct gpu_kernel_diag {             /* one compiler message */
    char file[GPU_KERNEL_TEXT];
    int line, col;                   /* 1-based; col 0 when the compiler gave no caret */
    int error;                       /* 1 error, 0 warning */
    char message[GPU_KERNEL_TEXT];
};

/* One SASS instruction that touched shared memory, with CUPTI's SASS metrics for it:
 * smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared and its _ideal (the wavefronts the same
 * accesses need without a bank conflict, for their width and active lanes). */
struct gpu_kernel_inst {
    uint32_t pc;                     /* byte offset in the kernel's code */
    int file, line;                  /* index into files[], 1-based line (0: unknown) */
    int op;                          /* enum gpu_kernel_op */
    char sass[24];                   /* e.g. "LDS.128", "STS.U8", "LDSM.x4", "?" when unknown */
    int bytes;                       /* bytes per thread from the SASS (0: not decoded) */
    int ideal_known;                 /* 0: no ideal (a CUPTI without the _ideal metric and an
                                        instruction whose width is unknown) */
    double inst;                     /* warp-level executions */
    double wavefronts;
    double ideal;
};

/* One source line: the sums of its instructions. excess = wavefronts - ideal (the bank
 * conflicts), ways = wavefronts / ideal (1 = conflict free, 32 = a 32-way conflict). */
struct gpu_kernel_line {
    int file, line;
    int ninst;                       /* SASS instructions behind it */
    int ideal_known;                 /* 0: an instruction's width is unknown: ideal is partial */
    double inst, wavefronts, ideal, excess, ways;
};

/* A warp of one instruction as the GPU executed it (the sanitizer route): its lanes' shared
 * byte offsets, kept per instruction as the worst warp and the first distinct patterns (warps
 * whose offsets differ by whole words cost the same and share a pattern). */
#define GPU_KERNEL_PATS 4            /* distinct patterns kept per instruction */
struct gpu_kernel_pattern {
    uint32_t pc;                     /* the instruction's (struct gpu_kernel_inst) */
    int slot;                        /* -1: the worst warp seen; 0..GPU_KERNEL_PATS-1: a pattern */
    uint32_t count;                  /* warps with this pattern (the worst: 0) */
    uint32_t wavefronts;             /* of one such warp */
    int op;                          /* enum gpu_kernel_op */
    uint32_t width;                  /* bytes per lane (16: a matrix row) */
    uint32_t matrices;               /* ldmatrix/stmatrix: 1, 2 or 4 */
    uint32_t mask;                   /* active lanes */
    uint32_t block[3], warp;         /* the first warp with it */
    uint32_t addr[32];               /* shared byte offsets (in the block's shared window) */
    uint32_t src[32];                /* cp.async: the global source addresses' low bits */
};

struct gpu_kernel_totals {
    double inst, wavefronts, ideal, excess;
    double op_inst[GPU_KOP_COUNT], op_wavefronts[GPU_KOP_COUNT];
};

/* Whole-kernel figures of the range profiler (the counters `banklab bench` reads), --counters.
 * wavefronts: l1tex__data_pipe_lsu_wavefronts_mem_shared.sum, every kind (-1: not read). */
struct gpu_kernel_counters {
    double wavefronts_ld, wavefronts_st, conflicts_ld, conflicts_st, inst_ld, inst_st;
    double wavefronts;
};

/* Milliseconds spent in each step of the measuring process (the speed figures). */
struct gpu_kernel_timing {
    double start;                    /* exec of the child until it reads the request */
    double init;                     /* cuInit + device query */
    double context;                  /* primary context */
    double compile;                  /* NVRTC, or reading the cache */
    double load;                     /* module load, buffers */
    double wait;                     /* waiting for the device's turn (other processes) */
    double cupti;                    /* SASS metrics configuration */
    double run;                      /* the measured launch */
    double collect;                  /* flush, correlation, decoding */
    double counters;                 /* --counters: range profiler */
    double total;                    /* job start until the result was read */
    int cache_hit;                   /* the cubin came from the cache */
    int warm;                        /* a measuring server answered: no driver start-up */
};

struct gpu_kernel_result {
    struct bl_err err;               /* err.status: enum gpu_kernel_status (GPU_KERNEL_OK: 0) */
    enum gpu_kernel_phase phase;     /* where it stopped (or GPU_KPHASE_DONE) */
    char device[GPU_KERNEL_TEXT];    /* "NVIDIA H200 (sm_90)" */
    char kernel[GPU_KERNEL_TEXT];    /* as named (k or k<float4>) */
    char lowered[GPU_KERNEL_TEXT];   /* the symbol in the cubin */
    char arch[16];                   /* "sm_90" */
    unsigned grid[3], block[3];
    unsigned long long smem;         /* dynamic */
    int static_smem, regs;           /* from the compiled kernel */
    int ndiags;
    struct gpu_kernel_diag *diags;
    int nfiles;
    char (*files)[GPU_KERNEL_TEXT];  /* files[0] is the request's file */
    int ninsts;
    struct gpu_kernel_inst *insts;   /* by pc */
    int nlines;
    struct gpu_kernel_line *lines;   /* by file, then line */
    int npats;
    struct gpu_kernel_pattern *pats; /* the sanitizer route's warps, by pc (none from CUPTI) */
    struct gpu_kernel_totals totals;
    int has_counters;
    struct gpu_kernel_counters counters;
    char counters_note[GPU_KERNEL_TEXT]; /* why has_counters is 0 when --counters asked */
    char lock_note[GPU_KERNEL_TEXT]; /* "" when measured in the device's turn, else why not */
    struct gpu_kernel_timing timing;
    char output[GPU_KERNEL_OUTPUT];  /* the end of what the kernel and the child printed */
};

/* gpu_kernel_result_done: free what a result holds (safe on a zeroed or done result). */
void gpu_kernel_result_done(struct gpu_kernel_result *res);

/* ---- jobs ---- */

struct gpu_kernel_job;

/* gpu_kernel_start: start measuring req: reads nothing from the GPU itself; copies the
 * source text (src, len) and forks a child that execs req->exe. Returns the job, or NULL with
 * err filled (cannot create a pipe or a process, source too large). */
struct gpu_kernel_job *gpu_kernel_start(const struct gpu_kernel_request *req, const char *src,
                                        size_t len, struct bl_err *err);

/* gpu_kernel_poll: never blocks. 0 while the job runs (*phase, if not NULL, says where);
 * 1 when it ended: *res is filled (free it with gpu_kernel_result_done) and the job may only
 * be freed. Kills the child at the time limit (GPU_KERNEL_ETIMEOUT). */
int gpu_kernel_poll(struct gpu_kernel_job *job, struct gpu_kernel_result *res,
                    enum gpu_kernel_phase *phase);

/* gpu_kernel_fd: a descriptor that becomes readable when the job has news (for poll(2) in an
 * input loop); -1 once the job ended. */
int gpu_kernel_fd(const struct gpu_kernel_job *job);

/* gpu_kernel_wait: block until the job ends (command line only); fills *res like poll. */
void gpu_kernel_wait(struct gpu_kernel_job *job, struct gpu_kernel_result *res);

/* gpu_kernel_free: stop the child if it still runs (SIGKILL, reaped) and free. NULL is fine. */
void gpu_kernel_free(struct gpu_kernel_job *job);

/* gpu_kernel_child_main: the measuring process (`banklab __kernel-child [--spare ...]`):
 * argv after the command name. Reads a request on stdin and writes the result to
 * descriptor 3, or (--spare) serves on an inherited socket. Returns the exit status. Not
 * for other callers. */
int gpu_kernel_child_main(int argc, char **argv);

/* ---- banklab run: an unmodified program under banklab's CUPTI injection library ---- */

struct gpu_run_request {
    const char *lib;                 /* the injection library (gpu_run_find_lib) */
    const char *kernel_re;           /* --kernel: extended regex on the kernel's name, or NULL */
    long skip, count;                /* --launch-skip, --launch-count; -1 when not given (then:
                                        the first launch of each kernel) */
    int stdout_to_stderr;            /* the program's stdout onto our stderr (--json: our
                                        stdout holds the JSON alone) */
    int one;                         /* measure one launch per run of the program (the library
                                        names the other kernels in "replay:" notes) */
    const char *patch;               /* the sanitizer route: the device patch
                                        (banklab_patch.fatbin) lib loads; NULL: CUPTI's route */
};

struct gpu_run_launch {
    int pid;                         /* the process that launched it */
    long ordinal, nth;               /* among its process's launches; among its kernel's */
    struct gpu_kernel_result res;    /* files[0] is "?": instructions without line info */
};

struct gpu_run_output {
    int injected;                    /* processes that loaded the library */
    int nlaunches;
    struct gpu_run_launch *launches;
    int nnotes;
    char (*notes)[2 * GPU_KERNEL_TEXT]; /* why something was not measured, each once */
    int notes_cut;                   /* 1: more different notes came than were kept */
    int status;                      /* the program's exit status (128 + N: signal N) */
};

/* gpu_run_note: add a note (text[0..n)) to out; repeats are taken out by
 * gpu_run_notes_unique (in O(n log n), the order of first appearance kept), which
 * gpu_run_program has done on what it returns. 0, or -1 when not kept. */
int gpu_run_note(struct gpu_run_output *out, const char *text, size_t n);
void gpu_run_notes_unique(struct gpu_run_output *out);

/* gpu_run_check: 0 when a CUDA driver and a device are there, else -1 with err filled
 * ("no CUDA driver (libcuda.so.1 not found)", "no CUDA device"). */
int gpu_run_check(struct bl_err *err);

/* gpu_run_find_lib: the injection library: $BANKLAB_INJECT, libbanklab_inject.so beside the
 * banklab binary, ../lib/banklab/ from it, then the installed lib directory. 0 with its
 * path, -1 with err saying where it looked. */
int gpu_run_find_lib(char *path, size_t size, struct bl_err *err);

/* gpu_run_find_sanitizer: the sanitizer route's library and device patch
 * (libbanklab_sanitize.so and banklab_patch.fatbin, from $BANKLAB_SANITIZE_DIR, beside the
 * executable or installed), and the Compute Sanitizer's own library they need. 0, or -1 with
 * err saying what is missing (then banklab run measures through CUPTI). */
int gpu_run_find_sanitizer(char *lib, char *patch, size_t size, struct bl_err *err);

/* knvcc_find (kernel_nvcc.c): the toolkit's nvcc ($CUDA_HOME, $CUDA_PATH, PATH, then
 * /usr/local/cuda); 0 when found (path filled), else -1. */
int knvcc_find(char *path, size_t size);

/* gpu_run_program: run argv (execvp: PATH is searched) with its output on ours, the library
 * injected (CUDA_INJECTION64_PATH) and a private directory for its results; wait for it
 * (SIGINT and SIGQUIT reach the program, not the wait); read what it measured into *out
 * (free with gpu_run_output_done). Returns 0, or -1 with err filled when the program could
 * not be started. */
int gpu_run_program(const struct gpu_run_request *req, char *const argv[],
                    struct gpu_run_output *out, struct bl_err *err);

void gpu_run_output_done(struct gpu_run_output *out);

/* gpu_kernel_op_name: "ld", "st", "atom", "ldsm", "stsm", "ldgsts", "gmma". */
const char *gpu_kernel_op_name(int op);

/* gpu_kernel_server_idle: the default for req->server_idle: $BANKLAB_KERNEL_SERVER seconds
 * when set (0 turns servers off), else 60. */
int gpu_kernel_server_idle(void);

/* gpu_kernel_phase_name: "starting", "compiling", "running the kernel", ... */
const char *gpu_kernel_phase_name(enum gpu_kernel_phase phase);

#endif
