/* measured.c: the printer of `banklab sim --gpu` and `sim --replay`, and of a measured kernel
 * launch's name in JSON (measured.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "../store/recording.h"
#include "measured.h"

void measured_source(const struct gpu_info *info, char *buf, size_t size)
{
    if (info->backend == GPU_BACKEND_REPLAY)
        snprintf(buf, size, "%s", info->device);  /* "recorded on <device>, <date>" */
    else
        snprintf(buf, size, "measured now on %s", info->device);
}

static const char *status_word(enum gpu_status st)
{
    const char *w = gpu_status_name(st);
    return w ? w : "failed";
}

int measured_complete(const struct gpu_result *r)
{
    return r->err.status == GPU_OK && r->has_counters && r->has_access_timing;
}

/* a recording's source as the text prints it, to fit 80 columns: "recorded on NVIDIA H200
 * (sm_90), 2026-12-03" of "recorded on NVIDIA H200 (sm_90), 132 SMs, ..., 2026-12-03T13:45Z" */
static const char *short_source(const char *source, char *buf, size_t size)
{
    const char *comma = strchr(source, ','), *last = strrchr(source, ',');
    if (strncmp(source, "recorded on ", 12) || !comma || !last || strlen(last) < 12 ||
        last[2 + 4] != '-' || last[2 + 7] != '-')
        return source;
    snprintf(buf, size, "%.*s, %.10s", (int)(comma - source), source, last + 2);
    return buf;
}

void measured_text(FILE *f, const struct gpu_result *r, const struct bank_access *acc,
                   const char *source, const struct measured_run *run)
{
    int st = acc->op == BANK_STORE;
    char shorter[GPU_TEXT_MAX];
    source = short_source(source, shorter, sizeof shorter);
    if (r->err.status != GPU_OK) {
        const char *why = r->err.msg[0] ? r->err.msg : status_word(r->err.status);
        /* on two lines where one would pass 80 columns */
        int wide = strlen("measured: none:  ()") + strlen(why) + strlen(source) > 80;
        fprintf(f, "measured: none: %s%s(%s)\n", CLI_CLEAN(why), wide ? "\n  " : " ",
                CLI_CLEAN(source));
        return;
    }
    fprintf(f, "measured (%s):\n", CLI_CLEAN(source));  /* a recording's device, escaped */
    if (r->has_counters)
        fprintf(f, "  %.2f wavefronts, %.2f conflicts per warp instruction (hardware counters)\n",
                st ? r->wavefronts_st : r->wavefronts_ld, st ? r->conflicts_st : r->conflicts_ld);
    else
        fprintf(f, "  counters: %s\n",
                CLI_CLEAN(r->counters_note[0] ? r->counters_note : "not measured"));
    if (r->has_access_timing) {
        double ref_ns = r->slowdown > 0 ? r->ns_per_access / r->slowdown : 0;
        char line[256], ref[32];
        snprintf(line, sizeof line, "  %.2f ns per warp access (%.2f clk), %.1fx the conflict-free "
                 "%u-byte %s", r->ns_per_access, r->clk_per_access, r->slowdown, acc->width,
                 st ? "store" : "load");
        snprintf(ref, sizeof ref, " (%.2f ns)", ref_ns);
        /* the reference's own time where the line has room for it (80 columns) */
        fprintf(f, "%s%s\n", line, strlen(line) + strlen(ref) <= 80 ? ref : "");
    } else {
        fprintf(f, "  time per access: not measured\n");
    }
    if (r->from_cache)
        fprintf(f, "  measured on this GPU %.0f s ago (the GPU server's cache of repeats)\n",
                r->cached_age_s);
    if (run)
        fprintf(f, "  waited %.2f s for the GPU's turn; %.2f s from request to numbers\n",
                r->wait_ms / 1e3, run->request_ms / 1e3);
    if (run && run->open_ms > 0)
        fprintf(f, "  start-up: %.2f s (its turn for the clock included); %s\n",
                run->open_ms / 1e3, run->lock && run->lock[0] ? CLI_CLEAN(run->lock) : "no turns");
}

void measured_json(struct jw *w, const struct gpu_result *r, const struct bank_access *acc,
                   const char *source, const struct measured_run *run)
{
    int st = acc->op == BANK_STORE, ok = r->err.status == GPU_OK;
    double ns = recording_value(r, "ns_per_access"), slow = recording_value(r, "slowdown");
    jw_obj(w, "measured");
    jw_str(w, "status", status_word(r->err.status));
    jw_numf(w, "wavefronts", "%.6g", recording_value(r, st ? "wavefronts_st" : "wavefronts_ld"));
    jw_numf(w, "conflicts", "%.6g", recording_value(r, st ? "conflicts_st" : "conflicts_ld"));
    jw_numf(w, "ns_per_access", "%.6g", ns);
    jw_numf(w, "clk_per_access", "%.6g", recording_value(r, "clk_per_access"));
    jw_numf(w, "ref_ns_per_access", "%.6g", slow > 0 ? ns / slow : NAN);
    jw_numf(w, "slowdown", "%.6g", slow);
    jw_str(w, "source", source);
    jw_str(w, "provenance", r->provenance);
    jw_str(w, "error", ok ? (r->has_counters ? "" : r->counters_note) : r->err.msg);
    jw_bool(w, "counters_busy", r->counters_busy);
    jw_bool(w, "from_server", r->from_server);
    jw_numf(w, "cache_age_s", "%.6g", r->from_cache ? r->cached_age_s : NAN);
    if (run) {
        jw_numf(w, "wait_ms", "%.3f", r->wait_ms);
        jw_numf(w, "request_ms", "%.3f", run->request_ms);
        jw_numf(w, "open_ms", "%.3f", run->open_ms);
        jw_str(w, "lock", run->lock ? run->lock : "");
    }
    jw_end(w);
}

void measured_kernel_json(struct jw *w, const struct gpu_kernel_result *r)
{
    jw_str(w, "kernel", r->kernel);
    jw_str(w, "symbol", r->lowered);
    jw_str(w, "device", r->device);
    jw_str(w, "arch", r->arch);
    jw_uints(w, "grid", r->grid, 3);
    jw_uints(w, "block", r->block, 3);
    jw_int(w, "dynamic_smem", (long long)r->smem);
    jw_int(w, "static_smem", r->static_smem);
    jw_int(w, "registers", r->regs);
}
