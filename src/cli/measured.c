/* measured.c: the printer of `banklab sim --gpu` and `sim --replay` (measured.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json_out.h"
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

void measured_text(FILE *f, const struct gpu_result *r, const struct bank_access *acc,
                   const char *source, const struct measured_run *run)
{
    int st = acc->op == BANK_STORE;
    if (r->err.status != GPU_OK) {
        fprintf(f, "measured: none: %s (%s)\n",
                CLI_CLEAN(r->err.msg[0] ? r->err.msg : status_word(r->err.status)), CLI_CLEAN(source));
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
        fprintf(f, "  %.2f ns per warp access (%.2f clk), %.1fx the conflict-free %u-byte %s "
                   "(%.2f ns)\n", r->ns_per_access, r->clk_per_access, r->slowdown, acc->width,
                st ? "store" : "load", ref_ns);
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
                run->open_ms / 1e3, run->lock && run->lock[0] ? run->lock : "no turns");
}

static void num_or_null(FILE *f, const char *key, int have, double v)
{
    if (have)
        fprintf(f, ",\"%s\":%.6g", key, v);
    else
        fprintf(f, ",\"%s\":null", key);
}

void measured_json(FILE *f, const struct gpu_result *r, const struct bank_access *acc,
                   const char *source, const struct measured_run *run)
{
    int st = acc->op == BANK_STORE, ok = r->err.status == GPU_OK;
    int c = ok && r->has_counters, t = ok && r->has_access_timing;
    fprintf(f, "\"measured\":{\"status\":\"%s\"", status_word(r->err.status));
    num_or_null(f, "wavefronts", c, st ? r->wavefronts_st : r->wavefronts_ld);
    num_or_null(f, "conflicts", c, st ? r->conflicts_st : r->conflicts_ld);
    num_or_null(f, "ns_per_access", t, r->ns_per_access);
    num_or_null(f, "clk_per_access", t, r->clk_per_access);
    num_or_null(f, "ref_ns_per_access", t && r->slowdown > 0,
                r->slowdown > 0 ? r->ns_per_access / r->slowdown : 0);
    num_or_null(f, "slowdown", t, r->slowdown);
    fputs(",\"source\":", f);
    json_str(f, source);
    fputs(",\"provenance\":", f);
    json_str(f, r->provenance);
    fputs(",\"error\":", f);
    json_str(f, ok ? (r->has_counters ? "" : r->counters_note) : r->err.msg);
    fprintf(f, ",\"counters_busy\":%s", r->counters_busy ? "true" : "false");
    fprintf(f, ",\"from_server\":%s", r->from_server ? "true" : "false");
    num_or_null(f, "cache_age_s", r->from_cache, r->cached_age_s);
    if (run) {
        fprintf(f, ",\"wait_ms\":%.3f,\"request_ms\":%.3f,\"open_ms\":%.3f,\"lock\":", r->wait_ms,
                run->request_ms, run->open_ms);
        json_str(f, run->lock ? run->lock : "");
    }
    fputc('}', f);
}
