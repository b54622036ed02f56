/* kernel_prog.h: `banklab kernel F.cu` on a file with a main(): the program, not one kernel.
 * It is built with nvcc as the developer would build it (-lineinfo, the GPU's own
 * architecture, the request's -I/-D/--nvcc-flag words) into a private directory and run as it
 * is, with its own launches and data, under `banklab run` (cli_run_program): every kernel it
 * launches is measured in that one run. --name picks kernels by name; --launch-skip and
 * --launch-count as in banklab run. */
#ifndef BANKLAB_CLI_KERNEL_PROG_H
#define BANKLAB_CLI_KERNEL_PROG_H

#include <stddef.h>

#include "../kernel/kernel.h"


/* kprog_run: build and run the program of req->path (req: its compile words, --name in
 * req->name, the time limit of the build), print what was measured; json as --json. Returns
 * the exit status. */
int kprog_run(const struct gpu_kernel_request *req, long skip, long count, int json);

#endif
