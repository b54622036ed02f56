/* kernel.h: a learner's own kernel as a request: what to compile and how to launch it (the
 * launch options, launch.c, read from the command line, the file's `// banklab:` comment and
 * the kernel view), the __global__ functions and parameters of the source (source.c), the
 * result per source line, and the frames both sides of a measurement exchange (wire.c). The
 * measuring itself is kmeasure/kmeasure.h's: a job runs it in another process (a fresh exec
 * of banklab, so a fault, a hang or a crash of the driver cannot take the caller down).
 * No curses, no cJSON, no CUDA in this header. */
#ifndef BANKLAB_GPU_KERNEL_H
#define BANKLAB_GPU_KERNEL_H

#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "../base/err.h"
#include "../base/fmt.h"

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
                                        --nvcc-flag words, each checked (compile/nvcc.c) */
    char flags[GPU_KERNEL_MAX_FLAGS][GPU_KERNEL_TEXT];
};

/* gpu_kernel_request_init: the defaults (grid 1, block 256, buffers 16 MiB filled with
 * GPU_FILL_FLOAT, device 0, time limit 10 s, no cache, no server). */
void gpu_kernel_request_init(struct gpu_kernel_request *req);

/* ---- the launch options: one table (launch.c) for the command line (cli's option tables
 * take their rows from it), the file's `// banklab:` comment and the kernel view ---- */

/* What an option is about; a place takes the classes it accepts. */
enum {
    GPU_KOPT_PICK = 1,               /* --name: which kernel */
    GPU_KOPT_SHAPE = 2,              /* a launch of one kernel: --grid --block --smem --arg
                                        --buffer-size --fill */
    GPU_KOPT_COMPILE = 4,            /* -I, -D, --nvcc-flag, --compiler */
    GPU_KOPT_DEVICE = 8,             /* --device (never in the file's comment) */
    GPU_KOPT_LIMIT = 16,             /* --time-limit */
    GPU_KOPT_ALL = 31,
    GPU_KOPT_FILE = GPU_KOPT_ALL & ~GPU_KOPT_DEVICE,   /* the `// banklab:` comment */
};

struct gpu_kernel_opt {
    const char *name;                /* as spelled: "--grid", "-I" */
    const char *arg;                 /* its value in --help and usage: "X[xY[xZ]]" */
    const char *left;                /* --help's left column when not "NAME ARG", or NULL */
    int cls;                         /* one GPU_KOPT_ class */
    int help;                        /* msg.def id of its lines in --help; 0: listed with
                                        the row before */
    int (*apply)(struct gpu_kernel_request *req, const char *opt, const char *val, char *err,
                 size_t errsz);      /* 1 applied, -1 a bad value (one line in err) */
};
extern const struct gpu_kernel_opt gpu_kernel_opts[];   /* ends with a NULL name */

/* gpu_kernel_opt_find: the row named name (as spelled) of a class in mask, or NULL. */
const struct gpu_kernel_opt *gpu_kernel_opt_find(const char *name, int mask);

/* gpu_kernel_opt_list: the names of the classes in mask, in the table's order, joined by sep,
 * into buf (n bytes); returns the length. */
size_t gpu_kernel_opt_list(char *buf, size_t n, int mask, const char *sep);

/* gpu_kernel_words: the words w[0..n) as on the command line (OPTION VALUE, or
 * --OPTION=VALUE) applied in order, each option of a class in mask. 0; or, with *at the
 * index of the word at fault and one line in err: GPU_KW_UNKNOWN (not such an option),
 * GPU_KW_NO_VALUE (the last word wants a value), GPU_KW_BAD (a bad value). */
enum { GPU_KW_BAD = -1, GPU_KW_UNKNOWN = -2, GPU_KW_NO_VALUE = -3 };
int gpu_kernel_words(struct gpu_kernel_request *req, int n, char *const *w, int mask, int *at,
                     char *err, size_t errsz);

/* gpu_kernel_option: apply one launch option (the same words as on the command line): opt a
 * name of gpu_kernel_opts as spelled ("--grid", "-I"), val its value. Returns 1 when applied,
 * 0 when opt is not a launch option (req untouched), -1 on a missing or bad value with one
 * line in err. */
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
    GPU_KPHASE_WAIT,                 /* waiting for the device's turn (devlock/devlock.h) */
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
    uint32_t wavefronts_each;        /* an atomic's with every lane served on its own (ATOMS) */
    int op;                          /* enum gpu_kernel_op */
    uint32_t width;                  /* bytes per lane (16: a matrix row) */
    uint32_t matrices;               /* ldmatrix/stmatrix: 1, 2 or 4 */
    uint32_t mask;                   /* active lanes */
    uint32_t block[3], warp;         /* the first warp with it */
    uint32_t addr[32];               /* shared byte offsets (in the block's shared window) */
    uint32_t src[32];                /* cp.async: the global source addresses' low bits */
};

/* gpu_kernel_pattern_access: a kept warp as the bank model's access (src/model/bank.h), the
 * one way the grid of a measured or executed warp is made (each: an atomic that serves every
 * lane on its own, as ATOMS does; 0: priced as a store of its width) (warp.c). */
struct bank_access;
void gpu_kernel_pattern_access(const struct gpu_kernel_pattern *q, int each,
                               struct bank_access *acc);

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
    struct bl_msg counters_msg;      /* the same as a message of msg.def (gpu_kernel_note), or
                                      * BL_MSG_NONE where the English text is all there is */
    char lock_note[GPU_KERNEL_TEXT]; /* "" when measured in the device's turn, else why not */
    struct bl_msg lock_msg;          /* the same as a message of msg.def, or BL_MSG_NONE */
    struct gpu_kernel_timing timing;
    char output[GPU_KERNEL_OUTPUT];  /* the end of what the kernel and the child printed */
};

/* gpu_kernel_result_done: free what a result holds (safe on a zeroed or done result). */
void gpu_kernel_result_done(struct gpu_kernel_result *res);

/* gpu_kernel_note: res's counters note (counters_note and counters_msg) from an error: its
 * English text and its message. */
void gpu_kernel_note(struct gpu_kernel_result *res, const struct bl_err *e);

/* gpu_kernel_op_name: "ld", "st", "atom", "ldsm", "stsm", "ldgsts", "gmma". */
const char *gpu_kernel_op_name(int op);

/* gpu_kernel_phase_name: "starting", "compiling", "running the kernel", ... */
const char *gpu_kernel_phase_name(enum gpu_kernel_phase phase);

/* ---- source.c: __global__ functions and their parameters ---- */

#define KSRC_MAX_PARAMS 32
#define KSRC_MAX_KERNELS 64

enum ksrc_kind {
    KSRC_POINTER = 0,    /* gets a device buffer */
    KSRC_INT,            /* signed integer scalar */
    KSRC_UINT,           /* unsigned integer scalar (bool too) */
    KSRC_FLOAT,          /* float or double */
    KSRC_UNSUPPORTED,    /* a struct, a reference, a template type: cannot be passed */
};

struct ksrc_param {
    char name[64];       /* "" when unnamed */
    char type[64];       /* as written, qualifiers dropped, e.g. "unsigned int", "float *" */
    enum ksrc_kind kind;
    int size;            /* bytes (8 for pointers) */
};

struct ksrc_kernel {
    char name[GPU_KERNEL_TEXT]; /* with its namespaces, e.g. "ns::k" */
    int line;                   /* where the name stands */
    int is_template;
    int nparams;
    int nall;                   /* all its parameters, also those past KSRC_MAX_PARAMS */
    struct ksrc_param params[KSRC_MAX_PARAMS];
};

/* ksrc_find_kernels: the __global__ functions of src (definitions and declarations, each
 * name once) into out[max]; *n their number. Comments, strings and preprocessor lines are
 * skipped; functions inside `#if 0` are still seen. Returns 0, or -1 when there are more
 * than max (the first max are filled). */
int ksrc_find_kernels(const char *src, size_t len, struct ksrc_kernel *out, int max, int *n);

/* ksrc_base_name: name without template arguments: "k<float4>" -> "k" into buf. */
const char *ksrc_base_name(const char *name, char *buf, size_t size);

/* ksrc_scalar_bytes: parse text as a value of parameter p into out (little endian, p->size
 * bytes). Returns 0 with err cleared, or -1 with err filled (status GPU_KERNEL_EINPUT: "not an
 * integer", "out of range for unsigned char"). */
int ksrc_scalar_bytes(const struct ksrc_param *p, const char *text, unsigned char out[8],
                      struct bl_err *err);

/* The launch's values for kernel k's parameters, one rule for every engine that binds them
 * (the measuring process, the executor): ksrc_check_args: k has at most KSRC_MAX_PARAMS
 * parameters and each --arg NAME names a scalar one (0, or -1 with err). ksrc_buffer_bytes:
 * pointer parameter i's buffer, --buffer-size NAME=BYTES or the launch's size.
 * ksrc_scalar_arg: scalar parameter i's --arg value as its bytes into out (0, or -1 with err:
 * a type banklab cannot pass, no value, a bad value). */
int ksrc_check_args(const struct ksrc_kernel *k, const struct gpu_kernel_request *req,
                    struct bl_err *err);
unsigned long long ksrc_buffer_bytes(const struct ksrc_kernel *k, int i,
                                     const struct gpu_kernel_request *req);
int ksrc_scalar_arg(const struct ksrc_kernel *k, int i, const struct gpu_kernel_request *req,
                    unsigned char out[8], struct bl_err *err);

/* ksrc_parse_log: NVRTC's log as diagnostics (file, line, column from the caret line,
 * message). *diags is malloc'ed (free it); *n their number; *nerrors how many are errors.
 * A log with an error but no recognisable location gives one diagnostic in `path`, line 0.
 * Returns 0, or -1 when out of memory. */
int ksrc_parse_log(const char *log, const char *path, struct gpu_kernel_diag **diags, int *n,
                   int *nerrors);

/* kp_kernels: the __global__ functions of src, in the file's order: their names into
 * names[max] (with namespaces), is_template[i] 1 for a template. Returns how many. */
int kp_kernels(const char *src, size_t len, char (*names)[GPU_KERNEL_TEXT], int *is_template,
               int max);

/* kp_file_launch: the launch written in the file's host code for kernel `name` (its short
 * name), `name<<<grid, block[, smem]>>>(...)` whose arguments are constants (numbers, #define
 * and const names of the file, dim3(...), + - * / % << >> and parentheses), into req's grid,
 * block and smem. Returns 1 when found and applied, 0 when there is none (req untouched). */
int kp_file_launch(const char *src, size_t len, const char *name, struct gpu_kernel_request *req);

/* kp_file_instance: the first instance of template kernel `name` the file launches
 * (`name<32><<<...>>>`): "name<32>" into out. 1 when found, 0 none. */
int kp_file_instance(const char *src, size_t len, const char *name, char *out, size_t n);

/* ---- launch.c ---- */

/* kreq_bytes: a --buffer-size value ("4096", "16M") in 4 .. 64 GiB. Returns 0 or -1. */
int kreq_bytes(const char *val, unsigned long long *out);

/* ---- wire.c: the wire format and the result helpers ---- */

/* Frames the measuring process writes (descriptor 3, or a server's connection): a 4-byte
 * tag, a 4-byte length, the payload. HELLO comes first. */
#define KWIRE_HELLO 0x48454c4fu  /* payload: int32 pid, int32 warm (1: a server answers) */
#define KWIRE_PHASE 0x50484153u  /* payload: int32 phase */
#define KWIRE_RESULT 0x52534c54u /* payload: kwire_put_result */
/* banklab run's injection library (kmeasure/cuda_inject.c) writes these too, before each RESULT: */
#define KWIRE_LAUNCH 0x4c4e4348u /* int32 ordinal among the process's launches, int32 nth of
                                    its kernel */
#define KWIRE_NOTE 0x4e4f5445u   /* one line of text: why something was not measured */

/* kwire_put_request / kwire_get_request: the request, the source and the caller's working
 * directory (relative paths in the request are from there), on a descriptor. get: *src is
 * malloc'ed and NUL-terminated; cwd receives the directory ("" when unknown). Return 0, or
 * -1 (short read/write, too big). */
int kwire_put_request(int fd, const struct gpu_kernel_request *req, const char *src, size_t len);
int kwire_get_request(int fd, struct gpu_kernel_request *req, char **src, size_t *len,
                      char cwd[PATH_MAX], double *t_start);

/* kwire_pack_request: the same request as bytes (for a server's socket, written as it
 * drains); *n its length. NULL when out of memory. */
unsigned char *kwire_pack_request(const struct gpu_kernel_request *req, const char *src,
                                  size_t len, size_t *n);

/* kwire_frame: one frame (tag, n, p[n]) in one buffer, so that an O_APPEND file shared by
 * processes keeps each whole. Returns 0 or -1. */
int kwire_frame(int fd, uint32_t tag, const void *p, size_t n);

/* kwire_phase: write a phase frame (errors ignored: the parent may be gone). */
void kwire_phase(int fd, enum gpu_kernel_phase phase);

/* kwire_hello: write the hello frame (our pid, whether a server answers). */
void kwire_hello(int fd, int warm);

/* kwire_put_result: write the result frame. Returns 0 or -1. */
int kwire_put_result(int fd, const struct gpu_kernel_result *res);

/* kwire_get_result: decode a result payload into res (arrays malloc'ed), its strings
 * terminated and its numbers checked (kres_check). Returns 0, or -1 with why filled (res
 * then empty) when the payload is malformed or a number is out of range. */
int kwire_get_result(const unsigned char *p, size_t n, struct gpu_kernel_result *res,
                     struct bl_err *why);

/* kwire_write: write(2) that never raises SIGPIPE: send(MSG_NOSIGNAL) on a socket (a peer
 * gone is EPIPE), write on anything else. */
ssize_t kwire_write(int fd, const void *p, size_t n);


/* kres_add_file: index of file name in res->files, added when new; -1 out of memory. */
int kres_add_file(struct gpu_kernel_result *res, const char *name);

/* kres_build_lines: sort insts by pc, then sum them into lines (by file, line) and totals.
 * Returns 0, or -1 when out of memory. */
int kres_build_lines(struct gpu_kernel_result *res);

#endif
