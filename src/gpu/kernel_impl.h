/* kernel_impl.h: what the parts of `banklab kernel` share inside src/gpu: reading kernels and
 * their parameters out of CUDA source, NVRTC's log as diagnostics, decoding the width of a
 * shared-memory SASS instruction from a cubin, and the wire format between the job (parent)
 * and the measuring child. Pure C: no CUDA, no curses. Not for use outside src/gpu. */
#ifndef BANKLAB_KERNEL_IMPL_H
#define BANKLAB_KERNEL_IMPL_H

#include <elf.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../base/err.h"
#include "../base/fmt.h"
#include "gpu_kernel.h"

/* ---- kernel_source.c: __global__ functions and their parameters ---- */

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

/* ksrc_parse_log: NVRTC's log as diagnostics (file, line, column from the caret line,
 * message). *diags is malloc'ed (free it); *n their number; *nerrors how many are errors.
 * A log with an error but no recognisable location gives one diagnostic in `path`, line 0.
 * Returns 0, or -1 when out of memory. */
int ksrc_parse_log(const char *log, const char *path, struct gpu_kernel_diag **diags, int *n,
                   int *nerrors);

/* ---- sass_decode.c: shared-memory instructions in a cubin (sm_70 .. sm_90 encodings) ---- */

struct sass_insn {
    int shared;          /* 1: an instruction that moves data through shared memory */
    int op;              /* enum gpu_kernel_op */
    int bytes;           /* per thread (LDS/STS/LDGSTS/ATOMS) or 16 per matrix row (LDSM) */
    int ideal;           /* wavefronts a full warp needs with no conflict */
    char text[24];       /* "LDS.128", "STS.U8", "LDSM.x4.T", ... */
};

/* sass_sections: each section of a 64-bit little-endian ELF cubin (n bytes) whose name ends
 * within the section-name table: fn(name, its header, arg) until fn returns nonzero. Returns
 * that, 0 when fn saw them all, or -1 when the cubin is not such an ELF. */
int sass_sections(const void *cubin, size_t n,
                  int (*fn)(const char *name, const Elf64_Shdr *sh, void *arg), void *arg);

/* sass_function_code: the machine code of function `symbol` in an ELF cubin: *code points
 * into cubin, *size its bytes. Returns 0, or -1 when the cubin is not ELF or has no
 * ".text.<symbol>" section. */
int sass_function_code(const void *cubin, size_t cubin_size, const char *symbol,
                       const uint8_t **code, size_t *size);

/* sass_arch_known: 1 when sass_decode knows the encodings of sm_<sm> (70 .. 90). */
int sass_arch_known(int sm);

/* sass_decode: decode the 16-byte instruction at insn. Returns 1 with *out filled when it is
 * a known shared-memory instruction, 0 otherwise (out->shared = 0). */
int sass_decode(const uint8_t insn[16], struct sass_insn *out);

/* ---- kernel_wire.c: small helpers every part uses (one-line texts: bl_fmt, src/base) ---- */

/* khash: FNV-1a over p[n], continuing from h (start with KHASH_SEED). */
#define KHASH_SEED 0xcbf29ce484222325ull
uint64_t khash(uint64_t h, const void *p, size_t n);

/* ksyms: the entries of a table of function pointers from a dlopen'ed library: each names a
 * symbol and the byte offset of its pointer in `table`. Returns 0 when all the required ones
 * were found, else bl_fail with status and message id (its %s: the first one missing).
 * KSYMS: the same for an array syms. */
struct ksym {
    size_t off;
    const char *name;
    int optional;
};
int ksyms(void *lib, const struct ksym *syms, size_t n, void *table, struct bl_err *err,
          int status, int id);
#define KSYMS(lib, syms, table, err, status, id)                                              \
    ksyms((lib), (syms), sizeof(syms) / sizeof(syms)[0], (table), (err), (status), (id))

/* ---- kernel_nvcc.c: the compile options of a request ---- */

/* kcompile_option: "-I" DIR, "-D" NAME[=VALUE], "--nvcc-flag" FLAG (one word for the
 * compiler: it must start with '-', hold no blank or control character, and not be one that
 * banklab sets itself: the output, its kind, the architecture), "--compiler" nvcc|nvrtc|auto.
 * Returns 1 applied, 0 when opt is none of these, -1 with one line in err. */
int kcompile_option(struct gpu_kernel_request *req, const char *opt, const char *val,
                    char *err, size_t errsz);

/* ---- kernel_launch.c ---- */

/* kreq_bytes: a --buffer-size value ("4096", "16M") in 4 .. 64 GiB. Returns 0 or -1. */
int kreq_bytes(const char *val, unsigned long long *out);

/* ---- kernel_wire.c: the wire format and the result helpers ---- */

/* Frames the measuring process writes (descriptor 3, or a server's connection): a 4-byte
 * tag, a 4-byte length, the payload. HELLO comes first. */
#define KWIRE_HELLO 0x48454c4fu  /* payload: int32 pid, int32 warm (1: a server answers) */
#define KWIRE_PHASE 0x50484153u  /* payload: int32 phase */
#define KWIRE_RESULT 0x52534c54u /* payload: kwire_put_result */
/* banklab run's injection library (cuda_inject.c) writes these too, before each RESULT: */
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

/* kres_check: the numbers of a result from another process as a recording's are checked:
 * finite, counts in 0..1e15, times within 1e7 ms, flags 0 or 1, kinds and phases known.
 * 0, or -1 with why naming the first one out of range (GPU_KERNEL_ECRASH). */
int kres_check(const struct gpu_kernel_result *res, struct bl_err *why);

/* kwire_write: write(2) that never raises SIGPIPE: send(MSG_NOSIGNAL) on a socket (a peer
 * gone is EPIPE), write on anything else. */
ssize_t kwire_write(int fd, const void *p, size_t n);

/* ktmp_make: a private directory $TMPDIR/banklab-WHAT-PID-XXXXXX (mkdtemp: 0700) into dir;
 * its name says whose it is. 0, or -1 with errno. ktmp_remove: dir and everything of ours
 * in it (links removed, never followed). ktmp_sweep: remove the banklab-WHAT-PID-* of
 * process pid (pid > 0: a caller that killed it), or (pid 0) those whose process is gone. */
int ktmp_make(const char *what, char *dir, size_t size);
void ktmp_remove(const char *dir);
void ktmp_sweep(const char *what, long pid);

/* kres_add_file: index of file name in res->files, added when new; -1 out of memory. */
int kres_add_file(struct gpu_kernel_result *res, const char *name);

/* kres_build_lines: sort insts by pc, then sum them into lines (by file, line) and totals.
 * Returns 0, or -1 when out of memory. */
int kres_build_lines(struct gpu_kernel_result *res);

/* ---- the measuring process: cuda_kernel.c over cuda_kstate.c, cuda_klaunch.c and
 * cuda_ksass.c (CUDA build), or none_kernel.c ---- */

/* What lasts between requests: the driver, the device, its context, CUPTI, NVRTC. */
struct kstate;

/* kstate_new: open the driver and device `device` (cuInit; the time goes to
 * res->timing.init). Never fails for want of a GPU: requests then compile and answer
 * GPU_KERNEL_ENOGPU. NULL only when out of memory. */
struct kstate *kstate_new(int device, struct gpu_kernel_result *res);

/* kstate_measure: answer one request into res (phases on fd). */
void kstate_measure(struct kstate *st, const struct gpu_kernel_request *req, const char *src,
                    size_t len, struct gpu_kernel_result *res, int fd);

/* kstate_prepare: do now what a request would otherwise wait for: the context, CUPTI, the
 * SASS metrics' ids (a spare measuring process calls it before it takes a request). */
void kstate_prepare(struct kstate *st, struct gpu_kernel_result *res);

/* kstate_can_serve: 1 when the state can take another request (no sticky CUDA error, and no
 * CUPTI measurement made yet: CUPTI 13 allows one per process; with no GPU it only compiles
 * and takes any number). kstate_has_gpu: 1 when a GPU answered. */
int kstate_can_serve(const struct kstate *st);
int kstate_has_gpu(const struct kstate *st);

void kstate_free(struct kstate *st);

/* ---- kernel_server.c: the measuring server ---- */

/* kserver_path: the socket of the server for (this binary, $CUDA_VISIBLE_DEVICES, device):
 * $XDG_RUNTIME_DIR/banklab/ or /tmp/banklab-UID/ (made 0700, refused when not ours), file
 * kernel-HASH.sock. 0 with the path, -1 when there is no safe place. */
int kserver_path(int device, char *path, size_t size);

/* kserver_connect: a connected socket to a running server at path, or -1. */
int kserver_connect(const char *path);

/* kserver_listen: a listening socket at path, or -1 (another server is there, or no socket
 * can be made). A socket file left by a dead server is replaced. */
int kserver_listen(const char *path);

/* kserver_loop: serve on lfd: answer requests one at a time (stdout and stderr go to a
 * temporary file whose end becomes each result's output) until `idle` seconds pass without
 * one (then remove path), or until the state can take no more: then a successor (a fresh
 * `banklab __kernel-child --spare`) inherits lfd and gets ready for the next request.
 * Returns the exit status for the process. */
int kserver_loop(struct kstate *st, int device, int lfd, const char *path, int idle);

/* kserver_can_serve: kstate_can_serve, or 0 when BANKLAB_KERNEL_ONE_REQUEST is set (every
 * process then takes one request, as on a GPU: the hand-over is tested without one). */
int kserver_can_serve(const struct kstate *st);

/* kserver_handover: start that successor on lfd now (a process that measured before it
 * listened), close lfd. 0, or 1 when no successor could start (path is removed). */
int kserver_handover(int lfd, const char *path, int idle, int device);

/* kserver_spare: the successor's main: open the device, prepare, serve on the inherited
 * socket. argv: LFD IDLE DEVICE PATH. Returns the exit status. */
int kserver_spare(int argc, char **argv);

/* kserver_disabled / kserver_disable: the marker beside a server's socket that turns warm
 * measuring processes off for it (left when a warm one failed where a fresh one did not). */
int kserver_disabled(const char *path);
void kserver_disable(const char *path);

#endif
