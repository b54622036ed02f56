/* measured.h: one access measured on the GPU (`banklab sim --gpu`) or found in a recording
 * (`banklab sim --replay FILE`), printed for people and for scripts. One code path for both:
 * the caller runs the request through gpu.h (the CUDA runner or the replay handle) and hands
 * the result here; and the JSON naming a measured kernel launch (kernel --json, run --json).
 * No curses, no cJSON (JSON through src/store/json_write.h). */
#ifndef BANKLAB_MEASURED_H
#define BANKLAB_MEASURED_H

#include <stddef.h>
#include <stdio.h>

#include "../gpu/gpu.h"
#include "../kernel/kernel.h"
#include "../store/json_write.h"

/* What a live run adds (sim --gpu; NULL for a recording): how long the request took from
 * submitting it to its numbers, the start-up before it (opening the GPU, its turn for the
 * clock included; 0 after the first access), and how turns are taken (gpu_info.lock). */
struct measured_run {
    double request_ms;
    double open_ms;
    const char *lock;
    const struct bl_msg *lock_msg; /* lock as a message (NULL or none: the text as it is) */
};

/* measured_source: where results of this handle come from: "measured now on <device>" or
 * (replay) "recorded on <device>, <date>". */
void measured_source(const struct gpu_info *info, char *buf, size_t size);
/* measured_source_said: the same for the text, in the language of cli_lang (the device's SMs
 * and clock from its message) */
void measured_source_said(const struct gpu_info *info, char *buf, size_t size);

/* measured_text: "measured (SOURCE):" and one or two lines: wavefronts and conflicts per warp
 * instruction (counters), the time of one warp access in ns and clk and its slowdown against
 * the conflict-free access of the same width and kind; or why there is no measurement. */
void measured_text(FILE *f, const struct gpu_result *r, const struct bank_access *acc,
                   const char *source, const struct measured_run *run);

/* measured_json: the member "measured" of w's open object: status ("ok",
 * "not-recorded", "unavailable", "failed", ...), wavefronts, conflicts, ns_per_access,
 * clk_per_access, ref_ns_per_access, slowdown (numbers or null), source, provenance, error,
 * counters_busy (another profiler held the counters), from_server (a GPU server answered),
 * cache_age_s (its cache answered: seconds since it measured this; else null), and with run
 * also wait_ms (the wait for the GPU's turn), request_ms, open_ms and lock. */
void measured_json(struct jw *w, const struct gpu_result *r, const struct bank_access *acc,
                   const char *source, const struct measured_run *run);

/* measured_kernel_json: the members naming a measured kernel launch (banklab kernel --json,
 * banklab run --json): kernel, symbol, device, arch, grid, block, dynamic_smem, static_smem,
 * registers. */
void measured_kernel_json(struct jw *w, const struct gpu_kernel_result *r);

/* measured_complete: 1 when r has what --gpu promises (counters and the time per access). */
int measured_complete(const struct gpu_result *r);

#endif
