/* spawn.h: the one way banklab runs a compiler (nvcc and what nvcc starts: cudafe++,
 * cicc, the host compiler, ptxas) for the model, --fix, the kernel view and the measuring
 * process. The compiler runs under a guard process of its own session:
 *   - the compiler and everything it starts are one process group, killed whole;
 *   - a deadline of the guard's own (kspawn.limit_s): past it the group is killed, even when
 *     the caller is stopped or hung;
 *   - the guard dies with its caller (PR_SET_PDEATHSIG, and a check of its parent): it kills
 *     the group, waits until it is gone and removes the run's temporary directory;
 *   - an address-space limit (RLIMIT_AS, KSPAWN_MEM_DEFAULT unless BANKLAB_COMPILER_MEMORY
 *     says otherwise, in MiB) and a file-size limit on the compiler, inherited by its children.
 * No CUDA, no curses; never prints. docs/security.md. */
#ifndef BANKLAB_KERNEL_SPAWN_H
#define BANKLAB_KERNEL_SPAWN_H

#include <stdatomic.h>
#include <stddef.h>

#include "../base/err.h"

struct bl_buf;

#define KSPAWN_MEM_DEFAULT (2048ull << 20)   /* RLIMIT_AS of a compiler: 2 GiB */
#define KSPAWN_FSIZE_MAX (1024ull << 20)     /* RLIMIT_FSIZE: no file of it past 1 GiB */

struct kspawn {
    char *const *argv;          /* argv[0]: the program's path (no PATH search) */
    char *const *envp;          /* its environment */
    const char *tmpdir;         /* its private directory: removed when the caller dies (or NULL) */
    double limit_s;             /* the deadline (seconds, > 0) */
    size_t keep;                /* at most this many bytes of its output kept */
    const atomic_int *cancel;   /* when it turns non-zero the group is killed (or NULL) */
};

enum kspawn_end {
    KSPAWN_EXITED = 0,          /* *code: the exit status */
    KSPAWN_SIGNALED = 1,        /* *code: the signal */
    KSPAWN_TIMEOUT = 2,         /* past limit_s: the group killed */
    KSPAWN_NOEXEC = 3,          /* it could not be started: *code the errno of execve */
    KSPAWN_CANCELLED = 4,       /* *cancel was set: the group killed */
};

/* kspawn_mem: the address-space limit in bytes (KSPAWN_MEM_DEFAULT, or
 * $BANKLAB_COMPILER_MEMORY MiB when that is a number from 64 to 1048576). */
unsigned long long kspawn_mem(void);

/* kspawn_run: run sp->argv with stdin /dev/null and stdout and stderr into *out, under the
 * guard above; returns when the group is gone. An enum kspawn_end with *code, or -1 with err
 * (GPU_KERNEL_ESYSTEM) when it could not be started. */
int kspawn_run(const struct kspawn *sp, struct bl_buf *out, int *code, struct bl_err *err);

#endif
