/* kmeasure.h: a learner's kernel or program measured where it runs. `banklab kernel`'s job
 * (job.c) hands the request to a measuring process: a warm one through its socket
 * (server.c) or a fresh exec of banklab (`banklab __kernel-child`), which measures on the
 * state it keeps between requests (cuda_state.c: driver, device, CUPTI; cuda_request.c,
 * cuda_launch.c, cuda_sass.c over cuda_sassm.c; none_state.c without CUDA). `banklab run`
 * (run.c) runs an unmodified program with the injection library (cuda_inject.c). The
 * request and the result are kernel/kernel.h's. No curses, no CUDA in this header. */
#ifndef BANKLAB_KMEASURE_H
#define BANKLAB_KMEASURE_H

#include <stddef.h>

#include "../base/err.h"
#include "../kernel/kernel.h"

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

/* a note of a run: its English text (the JSON's) and the message it came from (NULL: the text
 * is all there is, e.g. from an older library; owned by the note) */
struct gpu_note {
    char text[2 * GPU_KERNEL_TEXT];
    struct bl_msg *msg;
};

struct gpu_run_output {
    int injected;                    /* processes that loaded the library */
    int nlaunches;
    struct gpu_run_launch *launches;
    int nnotes;
    struct gpu_note *notes;          /* why something was not measured, each once */
    int notes_cut;                   /* 1: more different notes came than were kept */
    int status;                      /* the program's exit status (128 + N: signal N) */
};

/* gpu_run_note: add a note (text[0..n), its message m or NULL) to out; repeats are taken out by
 * gpu_run_notes_unique (in O(n log n), the order of first appearance kept), which
 * gpu_run_program has done on what it returns. 0, or -1 when not kept. */
int gpu_run_note(struct gpu_run_output *out, const char *text, size_t n, const struct bl_msg *m);
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

/* gpu_run_program: run argv (execvp: PATH is searched) with its output on ours, the library
 * injected (CUDA_INJECTION64_PATH) and a private directory for its results; wait for it
 * (SIGINT and SIGQUIT reach the program, not the wait); read what it measured into *out
 * (free with gpu_run_output_done). Returns 0, or -1 with err filled when the program could
 * not be started. */
int gpu_run_program(const struct gpu_run_request *req, char *const argv[],
                    struct gpu_run_output *out, struct bl_err *err);

void gpu_run_output_done(struct gpu_run_output *out);

/* gpu_kernel_server_idle: the default for req->server_idle: $BANKLAB_KERNEL_SERVER seconds
 * when set (0 turns servers off), else 60. */
int gpu_kernel_server_idle(void);

/* ---- the measuring process: cuda_request.c over cuda_state.c, cuda_launch.c and
 * cuda_sass.c (CUDA build), or none_state.c ---- */

/* What lasts between requests: the driver, the device, its context, CUPTI, NVRTC. */
struct kstate;

/* kstate_new: open the driver and device `device` (cuInit; the time goes to
 * res->timing.init). Never fails for want of a GPU: requests then compile and answer
 * GPU_KERNEL_ENOGPU. NULL only when out of memory. */
struct kstate *kstate_new(int device, struct gpu_kernel_result *res);

/* kstate_measure: answer one request into res (phases on fd). */
void kstate_measure(struct kstate *st, const struct gpu_kernel_request *req, const char *src,
                    size_t len, struct gpu_kernel_result *res, int fd);

/* kstate_watched: kstate_measure, while a watchdog thread ends this process (SIGKILL, so
 * that the guards of its compilers kill them and remove their directories) when the caller
 * on fd is gone (a pipe without its reader, a socket its peer closed) or the request's
 * --time-limit passed 2 s ago: a measuring process never outlives its caller's request. */
void kstate_watched(struct kstate *st, const struct gpu_kernel_request *req, const char *src,
                    size_t len, struct gpu_kernel_result *res, int fd);

/* kstate_prepare: do now what a request would otherwise wait for: the context, CUPTI, the
 * SASS metrics' ids (a spare measuring process calls it before it takes a request). */
void kstate_prepare(struct kstate *st, struct gpu_kernel_result *res);

/* kstate_can_serve: 1 when the state can take another request (no sticky CUDA error, and no
 * CUPTI measurement made yet: CUPTI 13 allows one per process; with no GPU it only compiles
 * and takes any number). */
int kstate_can_serve(const struct kstate *st);

void kstate_free(struct kstate *st);

/* ---- server.c: the measuring server ---- */

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
 * socket. argv: LFD IDLE DEVICE PATH [DEV:INO] (the socket file as bound: removed at the end
 * only while it is still that file). Returns the exit status. */
int kserver_spare(int argc, char **argv);

/* kserver_disabled / kserver_disable: the marker beside a server's socket that turns warm
 * measuring processes off for it (left when a warm one failed where a fresh one did not). */
int kserver_disabled(const char *path);
void kserver_disable(const char *path);

#endif
