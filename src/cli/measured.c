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

/* a recording's source in Chinese, shortened as short_source does: the device message
 * rendered in Chinese (name, arch, SMs, clock, ..., date, separated by BL_COMMA's Chinese
 * comma) cut to its first part and the date's day */
static void recorded_said_zh(const struct bl_msg *m, char *buf, size_t size)
{
    char full[GPU_TEXT_MAX * 2];
    bl_msg_render(m, BL_LANG_ZH, full, sizeof full);
    const char *comma = bl_msg_format(BL_COMMA, BL_LANG_ZH);
    size_t cl = strlen(comma);
    const char *first = strstr(full, comma), *last = first;
    for (const char *p = first; p; p = strstr(p + cl, comma))
        last = p;
    if (first && last != first && strlen(last + cl) >= 10 && last[cl + 4] == '-' &&
        last[cl + 7] == '-')
        snprintf(buf, size, "%.*s%s%.10s", (int)(first - full), full, comma, last + cl);
    else
        snprintf(buf, size, "%s", full);
}

void measured_source_said(const struct gpu_info *info, char *buf, size_t size)
{
    if (info->backend == GPU_BACKEND_REPLAY && cli_lang() == BL_LANG_ZH &&
        info->device_msg.id != BL_MSG_NONE)
        recorded_said_zh(&info->device_msg, buf, size);
    else if (info->backend == GPU_BACKEND_REPLAY)
        measured_source(info, buf, size);
    else
        snprintf(buf, size, cli_msg(MEAS_NOW_ON), CLI_NOTE(&info->device_msg, info->device));
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

/* source ("recorded on ...", "measured now on ...", a lock's "served by ...") in the language
 * of the text */
static const char *said_source(const char *source, char *buf, size_t size)
{
    static const struct {
        const char *en;
        int id;
    } head[] = {{"recorded on ", MEAS_RECORDED_ON}, {"measured now on ", MEAS_NOW_ON},
                {"served by ", MEAS_SERVED_BY}};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        if (!strncmp(source, head[i].en, strlen(head[i].en))) {
            snprintf(buf, size, cli_msg(head[i].id), source + strlen(head[i].en));
            return buf;
        }
    return source;
}

void measured_text(FILE *f, const struct gpu_result *r, const struct bank_access *acc,
                   const char *source, const struct measured_run *run)
{
    int st = acc->op == BANK_STORE;
    char shorter[GPU_TEXT_MAX], said[GPU_TEXT_MAX + 64];
    source = said_source(short_source(source, shorter, sizeof shorter), said, sizeof said);
    if (r->err.status != GPU_OK) {
        const char *why = r->err.msg[0] ? CLI_ERR(&r->err) : status_word(r->err.status);
        /* on two lines where one would pass 80 columns */
        int wide = strlen("measured: none:  ()") + strlen(why) + strlen(source) > 80;
        cli_say(f, wide ? MEAS_NONE_WIDE : MEAS_NONE, CLI_CLEAN(why), CLI_CLEAN(source));
        return;
    }
    cli_say(f, MEAS_HEAD, CLI_CLEAN(source));  /* a recording's device, escaped */
    if (r->has_counters)
        cli_say(f, MEAS_COUNTERS, st ? r->wavefronts_st : r->wavefronts_ld,
                st ? r->conflicts_st : r->conflicts_ld);
    else
        cli_say(f, MEAS_NO_COUNTERS, CLI_CLEAN(r->counters_note[0]
                                                   ? CLI_NOTE(&r->counters_msg, r->counters_note)
                                                   : cli_msg(MEAS_NOT_MEASURED)));
    if (r->has_access_timing) {
        double ref_ns = r->slowdown > 0 ? r->ns_per_access / r->slowdown : 0;
        char line[256], ref[32];
        snprintf(line, sizeof line, cli_msg(st ? MEAS_TIME_STORE : MEAS_TIME_LOAD),
                 r->ns_per_access, r->clk_per_access, r->slowdown, acc->width);
        snprintf(ref, sizeof ref, cli_msg(MEAS_REF), ref_ns);
        /* the reference's own time where the line has room for it (80 columns) */
        fprintf(f, "%s%s\n", line, strlen(line) + strlen(ref) <= 80 ? ref : "");
    } else {
        cli_say(f, MEAS_NO_TIME);
    }
    if (r->from_cache)
        cli_say(f, MEAS_CACHED, r->cached_age_s);
    if (run)
        cli_say(f, MEAS_WAITED, r->wait_ms / 1e3, run->request_ms / 1e3);
    if (run && run->open_ms > 0)
        cli_say(f, MEAS_START_UP, run->open_ms / 1e3,
                run->lock && run->lock[0] ? CLI_CLEAN(CLI_NOTE(run->lock_msg, run->lock))
                                          : cli_msg(MEAS_NO_TURNS));
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
