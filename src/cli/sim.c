/* sim.c: `banklab sim`: one warp access (a pattern, or raw per-lane offsets) through the bank
 * model; prints the bank grid and a summary as text, or one JSON object (--json), or an SVG.
 * Uses the model (bank, pattern) and src/render (text grid, svg); with --gpu (measured
 * now) or --replay FILE (a recording) also the measurement of that access through gpu.h,
 * printed by measured.c. No curses, no cJSON. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../model/bank.h"
#include "../model/pattern.h"
#include "../render/grid_text.h"
#include "../render/svg.h"
#include "../store/files.h"
#include "cli.h"
#include "json_out.h"
#include "measured.h"

struct sim_args {
    const char *pattern;         /* PATTERN, or NULL for the raw form */
    struct pattern_env env;
    int block_set, warp_set, params_set, dyn_set;
    int access;                  /* 1-based access to show, 0 = all */
    int have_offsets;
    uint64_t offset[BANK_LANES];
    unsigned width;
    int width_set;
    int store;
    uint32_t mask;
    int mask_set;
    int json, ascii, no_color, lanes, cols;
    const char *svg;
    int gpu, device, device_set;             /* --gpu, --device N */
    const char *replay;                      /* --replay FILE */
    const char *script;                      /* --script FILE: a pattern a line, "-" stdin */
};

static void short_usage(FILE *f)
{
    fputs("usage: banklab sim PATTERN [--block XxYxZ] [--warp N] [--param NAME=VALUE]...\n"
          "                  [--access N] [--dynamic BYTES] [--mask HEX] [OUTPUT OPTIONS]\n"
          "       banklab sim --offsets LIST [--width 1|2|4|8|16] [--store] [--mask HEX]\n"
          "                  [OUTPUT OPTIONS]\n"
          "output options: --json --ascii --no-color --lanes --columns N --svg FILE\n"
          "measure it:     --gpu [--device N] | --replay FILE\n"
          "many patterns:  --script FILE (one pattern a line; - reads stdin)\n"
          "banklab sim --help explains everything, with examples.\n",
          f);
}

static void help(FILE *f)
{
    fputs(
        "banklab sim: run one warp's shared-memory access through the bank model.\n"
        "\n"
        "usage: banklab sim PATTERN [OPTIONS]\n"
        "       banklab sim --offsets LIST [--width N] [--store] [--mask HEX] [OPTIONS]\n"
        "\n"
        "PATTERN is one argument in CUDA-like text: declarations, then one or more\n"
        "accesses, separated by ';'. An expression alone is a load; 'a[i] = v' a store.\n"
        "  types: char short int unsigned float double half float2 float4 int2 int4,\n"
        "         struct { float x, y, z; }, arrays of 1-3 dimensions, extern arrays\n"
        "  names: threadIdx.x/y/z blockDim.x/y/z lane warp tid, locals, parameters\n"
        "  operators: + - * / % << >> & | ^ ~ ! comparisons && || ?: () min() max()\n"
        "\n"
        "Pattern options:\n"
        "  --block XxYxZ|XxY|X  block shape (default 32); warp w is the threads with\n"
        "                       tid = x + y*X + z*X*Y in 32w .. 32w+31\n"
        "  --warp N             which warp of the block (default 0)\n"
        "  --param NAME=VALUE   give a parameter a value (repeatable), e.g. PAD=1\n"
        "  --access N           show only access N (from 1) of a pattern with several\n"
        "  --dynamic BYTES      dynamic shared memory size (third launch parameter)\n"
        "\n"
        "Raw form (no pattern):\n"
        "  --offsets LIST       32 comma-separated byte offsets (decimal or 0x hex)\n"
        "  --width N            bytes per lane: 1, 2, 4, 8 or 16 (default 4)\n"
        "  --store              a store (default a load; stores never fuse passes)\n"
        "Both forms:\n"
        "  --mask HEX           active lanes, bit n = lane n (default ffffffff); with a\n"
        "                       pattern it further restricts the lanes the pattern uses\n"
        "\n"
        "Output options:\n"
        "  --json               one JSON object instead of text (see below)\n"
        "  --ascii              ASCII characters only (no box drawing)\n"
        "  --no-color           no colour (there is none either with NO_COLOR set or\n"
        "                       when the output is not a terminal); with --svg,\n"
        "                       a black-and-white picture\n"
        "  --lanes              always print the per-lane table (lane, offset, word,\n"
        "                       bank, pass); by default only for a single access\n"
        "  --columns N          layout width (default: the terminal's, else 80); from\n"
        "                       143 all 32 banks sit in one band, else two bands of 16\n"
        "  --svg FILE           also write the grid as an SVG picture (one access)\n"
        "  -h, --help           this help\n"
        "\n"
        "Measuring (the same request the tutorial sends):\n"
        "  --gpu                also run the access on the GPU now: hardware counters on\n"
        "                       one warp, the time of one warp access with every SM busy;\n"
        "                       it waits its turn while other banklab processes measure\n"
        "  --device N           which GPU (default 0)\n"
        "  --replay FILE        instead, look the access up in a recording (bench/verify\n"
        "                       --json; the shipped one is assets/h200-recording.json)\n"
        "  --script FILE        many patterns, one a line (- reads stdin; blank lines and\n"
        "                       lines starting with # are skipped), each with the options\n"
        "                       given here; the GPU (or the recording) is opened once, as\n"
        "                       the tutorial keeps it: a lab's or a class's script of\n"
        "                       measurements. With --json, one object a line (JSON Lines)\n"
        "                       with \"line\" (its line number) added\n"
        "  The time of one warp access is the SM time one warp instruction of it costs\n"
        "  while every SM runs many warps of it (ns, and SM clocks: clk); the slowdown\n"
        "  compares it with the conflict-free access of the same width and kind (lane l\n"
        "  at l x width) measured by the same run: a 32-way conflict reads about 32x.\n"
        "\n"
        "The grid: a column per bank, a row per distinct 4-byte word the bank must serve\n"
        "in the pass (rows 2 and below are extra wavefronts). A cell shows the lowest\n"
        "lane asking for the word, and a mark: * broadcast (several lanes, one word:\n"
        "free), ! conflict (the bank serves more than one word), # both. The 'words'\n"
        "row counts each bank's words; ^ (a triangle in Unicode) marks the worst bank\n"
        "of a pass that has a conflict.\n"
        "8-byte accesses run in 2 passes of 16 lanes, 16-byte ones in 4 passes of 8,\n"
        "unless neighbouring lanes (n^1 or n^2) load the same address: then passes fuse\n"
        "in pairs ('paired'). Summary: wavefronts (sum of pass costs), passes,\n"
        "conflicts = wavefronts - passes (what Nsight Compute's\n"
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared counters report), ways (the\n"
        "worst pass), the conflicting lanes.\n"
        "\n"
        "JSON (--json): one object with integer fields wavefronts, passes, conflicts,\n"
        "ways, npasses, width; paired (bool); op (\"load\"/\"store\"); mask (hex string);\n"
        "conflict_lanes [lane...]; lanes: 32 x {lane, active, offset, banks [...],\n"
        "words [...], pass (from 0), conflict}; pass_detail: npasses x {pass, lanes,\n"
        "cost, worst_bank, banks: 32 x {bank, words: [{word, lanes}...]}}.\n"
        "With a pattern also: pattern (text), params {NAME: value}, block [x,y,z],\n"
        "warp, dynamic, arrays [{name, type, elem_size, dims, base, bytes, dynamic}],\n"
        "access {index (from 1), kind, array, type, text}. When a pattern has several\n"
        "accesses and --access is not given, the per-access fields move into an\n"
        "\"accesses\" array, one object per access in pattern order.\n"
        "With --gpu or --replay each access also has measured {status (\"ok\",\n"
        "\"not-recorded\", \"unavailable\", \"failed\", ...), wavefronts, conflicts,\n"
        "ns_per_access, clk_per_access, ref_ns_per_access, slowdown (numbers, or null\n"
        "when not measured), source (\"measured now on <device>\" or \"recorded on\n"
        "<device>, <date>\"), provenance, error, counters_busy (another profiler held\n"
        "the counters)}; with --gpu also wait_ms (the wait for the GPU's turn),\n"
        "request_ms (request to numbers), open_ms (start-up, for the first access) and\n"
        "lock (how turns are taken).\n"
        "\n"
        "Examples:\n"
        "  banklab sim '__shared__ float data[32][32]; data[threadIdx.x][0]'\n"
        "      a column: 32 lanes in bank 0, 32 wavefronts\n"
        "  banklab sim --block 32x8 --param PAD=1 \\\n"
        "      '__shared__ float tile[32][32 + PAD]; tile[threadIdx.x][threadIdx.y]'\n"
        "      padded by one float: 1 wavefront\n"
        "  banklab sim '__shared__ struct { float x, y, z; } p[256]; p[lane].x'\n"
        "      stride of 3 words: conflict-free\n"
        "  banklab sim '__shared__ float4 v[64]; v[lane * 2]'   8 wavefronts, 4 conflicts\n"
        "  banklab sim '__shared__ float s[1024]; s[lane * 32] = 1.0f'      32-way store\n"
        "  banklab sim '__shared__ float s[64]; s[0]' --json          broadcast, as JSON\n"
        "  banklab sim --offsets $(seq -s, 0 8 248) --width 8      float2, 2 wavefronts\n"
        "  banklab sim --offsets $(seq -s, 0 128 3968) --store --mask 0000ffff   16-way\n"
        "\n"
        "  banklab sim '__shared__ float s[1024]; s[lane * 32]' \\\n"
        "      --replay assets/h200-recording.json   the H200's 32-way time: about 32x\n"
        "\n"
        "Exit status: 0 success (also when a recording has no measurement of the access:\n"
        "it says so); 1 a recording says a run failed; 2 bad usage or bad input (a\n"
        "pattern error prints the message, the pattern and a caret under the place on\n"
        "stderr; an unreadable recording names the file); 3 --gpu without a usable GPU\n"
        "(one line on stderr, nothing on stdout); 4 --gpu could not measure all of it\n"
        "(counters busy or not allowed, no turn on the GPU within 30 s, a failed run:\n"
        "one line on stderr says what and why; what was measured is printed). With\n"
        "--script every line runs, a line's error names the line, and the exit status is\n"
        "that of the first line that failed (3 at once when no GPU answers).\n"
        , f);
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("banklab sim: ", stderr);
    fprintf(stderr, fmt, CLI_CLEAN(arg ? arg : ""));
    fputc('\n', stderr);
    short_usage(stderr);
    return EXIT_USAGE;
}

/* Strict unsigned parse: decimal or 0x hex, the whole string, no sign. */
static int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    errno = 0;
    char *end;
    /* Decimal or 0x hex; a leading 0 is not octal ("010" is ten). */
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    unsigned long long v = strtoull(s, &end, hex ? 16 : 10);
    if (errno || *end || end == s)
        return -1;
    *out = v;
    return 0;
}

static int parse_ll(const char *s, long long *out)
{
    if (!s || !*s || *s == ' ')
        return -1;
    errno = 0;
    char *end;
    const char *d = *s == '-' || *s == '+' ? s + 1 : s;
    int hex = d[0] == '0' && (d[1] == 'x' || d[1] == 'X');
    long long v = strtoll(s, &end, hex ? 16 : 10);
    if (errno || *end || end == s)
        return -1;
    *out = v;
    return 0;
}

static int parse_small(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    uint64_t v;
    if (parse_u64(s, &v) || v < lo || v > hi)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int parse_offsets(const char *s, uint64_t *off)
{
    int n = 0;
    const char *p = s;
    char tok[40];
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t')) {
            p++;
            len--;
        }
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len == 0 || len >= sizeof tok || n >= BANK_LANES)
            return n >= BANK_LANES ? BANK_LANES + 1 : -1;
        memcpy(tok, p, len);
        tok[len] = 0;
        if (parse_u64(tok, &off[n]))
            return -1;
        n++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return n;
}

static int parse_mask(const char *s, uint32_t *out)
{
    if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
        s += 2;
    size_t n = strlen(s);
    if (n == 0 || n > 8 || strspn(s, "0123456789abcdefABCDEF") != n)
        return -1;
    *out = (uint32_t)strtoul(s, NULL, 16);
    return 0;
}

static int parse_block(const char *s, unsigned block[3])
{
    unsigned v[3] = {1, 1, 1};
    int n = 0;
    const char *p = s;
    char tok[16];
    for (;;) {
        const char *x = strpbrk(p, "xX");
        size_t len = x ? (size_t)(x - p) : strlen(p);
        if (n >= 3 || len == 0 || len >= sizeof tok)
            return -1;
        memcpy(tok, p, len);
        tok[len] = 0;
        if (parse_small(tok, 1, 1024, &v[n]))
            return -1;
        n++;
        if (!x)
            break;
        p = x + 1;
    }
    if (v[2] > 64 || (uint64_t)v[0] * v[1] * v[2] > 1024)
        return -1;
    memcpy(block, v, sizeof v);
    return 0;
}

/* Returns the value of --opt=VALUE or --opt VALUE (advancing *i), NULL when it is missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *matched)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    *matched = 0;
    if (strncmp(a, name, n))
        return NULL;
    if (a[n] == '=') {
        *matched = 1;
        return a + n + 1;
    }
    if (a[n] != 0)
        return NULL;
    *matched = 1;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

/* Options that exclude or need each other. 0, or EXIT_USAGE after the message. */
static int check_args(const struct sim_args *a)
{
    if (a->pattern && a->have_offsets)
        return usage_error("give a PATTERN or --offsets, not both%s", "");
    if (a->gpu && a->replay)
        return usage_error("--gpu measures now, --replay looks up a recording: give one%s", "");
    if (a->device_set && !a->gpu)
        return usage_error("--device picks the GPU of --gpu%s", "");
    if (a->script && (a->pattern || a->have_offsets))
        return usage_error("--script gives the patterns, one a line: no PATTERN or --offsets "
                           "beside it%s", "");
    if (a->script && a->svg)
        return usage_error("--svg draws one access; --script runs many%s", "");
    if (!a->pattern && !a->have_offsets && !a->script)
        return usage_error("nothing to simulate: give a PATTERN, --offsets LIST or --script "
                           "FILE%s", "");
    if (a->pattern || a->script) {
        if (a->width_set)
            return usage_error("--width belongs to --offsets; a pattern's types set the "
                               "width%s", "");
        if (a->store)
            return usage_error("--store belongs to --offsets; a pattern stores with "
                               "'a[i] = value'%s", "");
    } else {
        const char *bad = a->block_set ? "--block" : a->warp_set ? "--warp"
                          : a->params_set ? "--param" : a->dyn_set ? "--dynamic"
                          : a->access ? "--access" : NULL;
        if (bad)
            return usage_error("%s needs a PATTERN (it means nothing for --offsets)", bad);
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct sim_args *a)
{
    memset(a, 0, sizeof *a);
    pattern_env_init(&a->env);
    a->width = 4;
    a->mask = 0xffffffffu;
    a->lanes = -1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *v;
        int m;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            help(stdout);
            return -1;
        } else if (!strcmp(arg, "--json")) {
            a->json = 1;
        } else if (!strcmp(arg, "--ascii")) {
            a->ascii = 1;
        } else if (!strcmp(arg, "--no-color") || !strcmp(arg, "--no-colour")) {
            a->no_color = 1;
        } else if (!strcmp(arg, "--store")) {
            a->store = 1;
        } else if (!strcmp(arg, "--lanes")) {
            a->lanes = 1;
        } else if ((v = opt_value(argc, argv, &i, "--block", &m)) || m) {
            if (!v || parse_block(v, a->env.block))
                return usage_error("--block wants XxYxZ, XxY or X with at most 1024 threads "
                                   "(z <= 64), got '%s'", v);
            a->block_set = 1;
        } else if ((v = opt_value(argc, argv, &i, "--warp", &m)) || m) {
            if (!v || parse_small(v, 0, 31, &a->env.warp))
                return usage_error("--warp wants a warp number 0..31, got '%s'", v);
            a->warp_set = 1;
        } else if ((v = opt_value(argc, argv, &i, "--param", &m)) || m) {
            const char *eq = v ? strchr(v, '=') : NULL;
            char name[PATTERN_NAME_MAX];
            long long val;
            size_t len = eq ? (size_t)(eq - v) : 0;
            if (!eq || len == 0 || len >= sizeof name)
                return usage_error("--param wants NAME=VALUE, got '%s'", v);
            memcpy(name, v, len);
            name[len] = 0;
            if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
                    != len || (name[0] >= '0' && name[0] <= '9'))
                return usage_error("--param: '%s' is not a name", name);
            if (parse_ll(eq + 1, &val))
                return usage_error("--param wants an integer value, got '%s'", v);
            for (int k = 0; k < a->env.nparams; k++)
                if (!strcmp(a->env.param[k].name, name))
                    return usage_error("--param: %s is given twice", name);
            if (pattern_env_set(&a->env, name, val))
                return usage_error("--param: too many parameters (at '%s')", v);
            a->params_set = 1;
        } else if ((v = opt_value(argc, argv, &i, "--access", &m)) || m) {
            unsigned n;
            if (!v || parse_small(v, 1, PATTERN_MAX_ACCESSES, &n))
                return usage_error("--access wants an access number from 1, got '%s'", v);
            a->access = (int)n;
        } else if ((v = opt_value(argc, argv, &i, "--dynamic", &m)) || m) {
            if (!v || parse_u64(v, &a->env.dyn_bytes))
                return usage_error("--dynamic wants a byte count, got '%s'", v);
            a->dyn_set = 1;
        } else if ((v = opt_value(argc, argv, &i, "--offsets", &m)) || m) {
            int n = v ? parse_offsets(v, a->offset) : -1;
            if (n < 0)
                return usage_error("--offsets wants 32 byte offsets separated by commas "
                                   "(decimal or 0x hex), got '%s'", v);
            if (n != BANK_LANES) {
                char msg[64];
                snprintf(msg, sizeof msg, "%s%d", n > BANK_LANES ? "more than " : "",
                         n > BANK_LANES ? BANK_LANES : n);
                return usage_error("--offsets wants exactly 32 offsets, one per lane; got %s",
                                   msg);
            }
            a->have_offsets = 1;
        } else if ((v = opt_value(argc, argv, &i, "--width", &m)) || m) {
            if (!v || parse_small(v, 1, 16, &a->width) ||
                (a->width != 1 && a->width != 2 && a->width != 4 && a->width != 8 &&
                 a->width != 16))
                return usage_error("--width wants 1, 2, 4, 8 or 16 (bytes per lane), got '%s'",
                                   v);
            a->width_set = 1;
        } else if ((v = opt_value(argc, argv, &i, "--mask", &m)) || m) {
            if (!v || parse_mask(v, &a->mask))
                return usage_error("--mask wants up to 8 hex digits (bit n = lane n), got '%s'",
                                   v);
            a->mask_set = 1;
        } else if ((v = opt_value(argc, argv, &i, "--columns", &m)) || m) {
            unsigned c;
            if (!v || parse_small(v, 40, 1000, &c))
                return usage_error("--columns wants a width of 40..1000, got '%s'", v);
            a->cols = (int)c;
        } else if (!strcmp(arg, "--gpu")) {
            a->gpu = 1;
        } else if ((v = opt_value(argc, argv, &i, "--script", &m)) || m) {
            if (!v || !*v)
                return usage_error("--script wants a file of patterns, one a line (- for "
                                   "stdin)%s", "");
            a->script = v;
        } else if ((v = opt_value(argc, argv, &i, "--replay", &m)) || m) {
            if (!v || !*v)
                return usage_error("--replay wants a recording file%s", "");
            a->replay = v;
        } else if ((v = opt_value(argc, argv, &i, "--device", &m)) || m) {
            long long d;
            if (cli_int_arg("sim", "--device", v, 0, CLI_DEVICE_MAX, &d))
                return EXIT_USAGE;
            a->device = (int)d;
            a->device_set = 1;
        } else if ((v = opt_value(argc, argv, &i, "--svg", &m)) || m) {
            if (!v || !*v)
                return usage_error("--svg wants a file name%s", "");
            a->svg = v;
        } else if (!strcmp(arg, "--")) {
            if (i + 1 < argc && !a->pattern)
                a->pattern = argv[++i];
            if (i + 1 < argc)
                return usage_error("unexpected argument '%s' (one pattern only)", argv[i + 1]);
        } else if (arg[0] == '-' && arg[1] != 0) {
            return usage_error("unknown option '%s'", arg);
        } else if (a->pattern) {
            return usage_error("unexpected argument '%s': the pattern is one argument "
                               "(quote it)", arg);
        } else {
            a->pattern = arg;
        }
    }
    return check_args(a);
}

/* ---- JSON (json_out.h: cJSON stays in src/store) ---- */

static void json_lane_list(FILE *f, uint32_t lanes)
{
    int first = 1;
    fputc('[', f);
    for (int n = 0; n < BANK_LANES; n++)
        if (lanes >> n & 1u) {
            fprintf(f, "%s%d", first ? "" : ",", n);
            first = 0;
        }
    fputc(']', f);
}

/* The fields of one access result (no braces), so they can sit at the top level. */
static void json_result_fields(FILE *f, const struct bank_result *r, const struct bank_access *acc)
{
    fprintf(f, "\"op\":\"%s\",\"width\":%u,\"mask\":\"%08" PRIx32 "\",",
            acc->op == BANK_STORE ? "store" : "load", acc->width, acc->mask);
    fprintf(f, "\"wavefronts\":%d,\"passes\":%d,\"conflicts\":%d,\"ways\":%d,\"paired\":%s,"
               "\"npasses\":%d,\"conflict_lanes\":",
            r->wavefronts, r->passes, r->conflicts, r->ways, r->paired ? "true" : "false",
            r->npasses);
    json_lane_list(f, r->conflict_lanes);
    fputs(",\"lanes\":[", f);
    for (int n = 0; n < BANK_LANES; n++) {
        const struct bank_lane *l = &r->lane[n];
        int nw = l->nwords > 0 && l->nwords <= BANK_MAX_LANE_WORDS ? l->nwords : 1;
        fprintf(f, "%s{\"lane\":%d,\"active\":%s,\"offset\":%" PRIu64 ",\"banks\":[", n ? "," : "",
                n, l->active ? "true" : "false", l->offset);
        for (int k = 0; k < nw; k++)
            fprintf(f, "%s%u", k ? "," : "", l->bank[k]);
        fputs("],\"words\":[", f);
        for (int k = 0; k < nw; k++)
            fprintf(f, "%s%" PRIu64, k ? "," : "", l->word[k]);
        fprintf(f, "],\"pass\":%d,\"conflict\":%s}", l->pass, l->conflict ? "true" : "false");
    }
    fputs("],\"pass_detail\":[", f);
    for (int p = 0; p < r->npasses && p < BANK_MAX_PASSES; p++) {
        const struct bank_pass *ps = &r->pass[p];
        fprintf(f, "%s{\"pass\":%d,\"lanes\":", p ? "," : "", p);
        json_lane_list(f, ps->lanes);
        fprintf(f, ",\"cost\":%d,\"worst_bank\":%d,\"banks\":[", ps->cost, ps->worst_bank);
        for (int b = 0; b < BANK_COUNT; b++) {
            const struct bank_cell *c = &ps->cell[b];
            fprintf(f, "%s{\"bank\":%d,\"words\":[", b ? "," : "", b);
            for (int k = 0; k < c->nwords && k < BANK_MAX_CELL_WORDS; k++) {
                fprintf(f, "%s{\"word\":%" PRIu64 ",\"lanes\":", k ? "," : "", c->word[k]);
                json_lane_list(f, c->lanes[k]);
                fputc('}', f);
            }
            fputs("]}", f);
        }
        fputs("]}", f);
    }
    fputc(']', f);
}

/* ---- one evaluated access ---- */

struct sim_one {
    struct bank_access acc;
    struct bank_result res;
    const struct pattern_access_info *info;  /* NULL for the raw form */
    int index;                               /* 1-based */
};

/* The message, then the line of the pattern holding the error with a caret under it (a
 * pattern given on several lines shows only the line that matters). */
static void print_pattern_error(const char *text, const struct pattern_error *err)
{
    static char line[4096], caret[3 * 4096];
    fprintf(stderr, "banklab sim: %s\n", CLI_CLEAN(err->msg));
    size_t len = text ? strlen(text) : 0;
    if (err->col <= 0 || (size_t)err->col > len + 1)
        return;
    size_t at = (size_t)err->col - 1, start = at, end = at;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    while (end < len && text[end] != '\n')
        end++;
    if (end - start >= sizeof line)
        return;
    memcpy(line, text + start, end - start);
    line[end - start] = 0;
    for (char *c = line; *c; c++)  /* one column each: the caret stays under its place */
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    struct pattern_error e = *err;
    e.col = (int)(at - start) + 1;
    if (e.len < 1)
        e.len = 1;
    fputs(pattern_error_caret(line, &e, caret, sizeof caret), stderr);
}

/* The text of an access statement, for headings. */
static void access_text(const char *pattern, const struct pattern_access_info *info, char *buf,
                        size_t size)
{
    size_t len = strlen(pattern);
    buf[0] = 0;
    if (!info || info->col < 1 || (size_t)info->col > len || info->len < 1)
        return;
    size_t start = (size_t)info->col - 1, n = (size_t)info->len;
    if (n > len - start)
        n = len - start;
    if (n >= size)
        n = size - 1;
    memcpy(buf, pattern + start, n);
    buf[n] = 0;
}

static int term_columns(void)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

static void print_pattern_head(FILE *f, const struct sim_args *a,
                               const struct pattern_layout *lay)
{
    char buf[4096];
    fprintf(f, "pattern: %s\n", a->pattern);
    if (a->env.nparams > 0 && pattern_substitute(a->pattern, &a->env, buf, sizeof buf) >= 0 &&
        strcmp(buf, a->pattern)) {
        fputs("   with", f);
        for (int i = 0; i < a->env.nparams; i++)
            fprintf(f, "%s %s=%lld", i ? "," : "", a->env.param[i].name, a->env.param[i].value);
        fprintf(f, ": %s\n", buf);
    }
    unsigned t0 = a->env.warp * 32;
    fprintf(f, "block %ux%ux%u, warp %u (threads %u-%u)", a->env.block[0], a->env.block[1],
            a->env.block[2], a->env.warp, t0, t0 + 31);
    if (a->env.dyn_bytes)
        fprintf(f, ", dynamic shared memory %" PRIu64 " bytes", a->env.dyn_bytes);
    fputc('\n', f);
    for (int i = 0; i < lay->narrays; i++) {
        const struct pattern_array_info *ai = &lay->array[i];
        fprintf(f, "array %s: %s", ai->name, ai->type);
        if (ai->ndims > 0)
            for (int d = 0; d < ai->ndims && d < 3; d++)
                fprintf(f, "[%lld]", ai->dims[d]);
        else
            fputs(ai->dynamic ? " (dynamic)" : "", f);
        fprintf(f, ", %u bytes per element, at byte %" PRIu64, ai->elem_size, ai->base);
        if (ai->bytes)
            fprintf(f, ", %" PRIu64 " bytes", ai->bytes);
        fputc('\n', f);
    }
}

static void json_pattern_fields(FILE *f, const struct sim_args *a,
                                const struct pattern_layout *lay)
{
    fputs("\"pattern\":", f);
    json_str_n(f, a->pattern, strlen(a->pattern));
    fputs(",\"params\":{", f);
    for (int i = 0; i < a->env.nparams; i++) {
        if (i)
            fputc(',', f);
        json_str(f, a->env.param[i].name);
        fprintf(f, ":%lld", a->env.param[i].value);
    }
    fprintf(f, "},\"block\":[%u,%u,%u],\"warp\":%u,\"dynamic\":%" PRIu64 ",\"arrays\":[",
            a->env.block[0], a->env.block[1], a->env.block[2], a->env.warp, a->env.dyn_bytes);
    for (int i = 0; i < lay->narrays; i++) {
        const struct pattern_array_info *ai = &lay->array[i];
        fprintf(f, "%s{\"name\":", i ? "," : "");
        json_str_n(f, ai->name, sizeof ai->name);
        fputs(",\"type\":", f);
        json_str_n(f, ai->type, sizeof ai->type);
        fprintf(f, ",\"elem_size\":%u,\"dims\":[", ai->elem_size);
        for (int d = 0; d < ai->ndims && d < 3; d++)
            fprintf(f, "%s%lld", d ? "," : "", ai->dims[d]);
        fprintf(f, "],\"base\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"dynamic\":%s}", ai->base,
                ai->bytes, ai->dynamic ? "true" : "false");
    }
    fputc(']', f);
}

static void json_access_info(FILE *f, const struct sim_args *a, const struct sim_one *o)
{
    char text[1024];
    access_text(a->pattern, o->info, text, sizeof text);
    fprintf(f, "\"access\":{\"index\":%d,\"kind\":\"%s\",\"array\":", o->index,
            o->info->kind == PATTERN_STORE ? "store" : "load");
    json_str_n(f, o->info->array, sizeof o->info->array);
    fputs(",\"type\":", f);
    json_str_n(f, o->info->type, sizeof o->info->type);
    fputs(",\"text\":", f);
    json_str_n(f, text, strlen(text));
    fputc('}', f);
}

static int write_svg(const struct sim_args *a, const struct sim_one *o)
{
    char title[1024], sub[512];
    struct svg_options so = {0};
    const char *nc = getenv("NO_COLOR");
    so.monochrome = a->no_color || (nc && *nc); /* black-and-white handouts */
    if (a->pattern) {
        access_text(a->pattern, o->info, title, sizeof title);
        int k = snprintf(sub, sizeof sub, "block %ux%ux%u, warp %u", a->env.block[0],
                         a->env.block[1], a->env.block[2], a->env.warp);
        for (int i = 0; i < a->env.nparams && k > 0 && (size_t)k < sizeof sub; i++)
            k += snprintf(sub + k, sizeof sub - (size_t)k, ", %s=%lld", a->env.param[i].name,
                          a->env.param[i].value);
        so.title = title[0] ? title : a->pattern;
        so.subtitle = sub;
    } else {
        snprintf(title, sizeof title, "%s of %u bytes per lane, mask %08" PRIx32,
                 o->acc.op == BANK_STORE ? "store" : "load", o->acc.width, o->acc.mask);
        so.title = title;
    }
    struct svg_job job = {&o->res, o->acc.width, o->acc.op, &so};
    char err[512];
    if (files_write_atomic(a->svg, 0644, svg_emit, &job, err, sizeof err)) {
        fprintf(stderr, "banklab sim: %s\n", CLI_CLEAN(err));
        return EXIT_USAGE;
    }
    return 0;
}

static int simulate(struct sim_one *o, int *bad_lane)
{
    return (int)bank_simulate(&o->acc, &o->res, bad_lane);
}

#define SIM_GPU_TIMEOUT_MS 120000     /* the runner gives up waiting for its turn after 30 s */

/* The accesses of a.pattern (or only --access N) into one[], *n of them; *p the parsed
 * pattern (free it); lay the arrays as laid out for the last access evaluated. 0, or
 * EXIT_USAGE after the message. */
static int eval_pattern(const struct sim_args *a, struct sim_one *one, struct pattern **p, int *n,
                        struct pattern_layout *lay)
{
    struct pattern_error err;
    memset(&err, 0, sizeof err);
    *n = 0;
    if (pattern_parse(a->pattern, p, &err)) {
        print_pattern_error(a->pattern, &err);
        return EXIT_USAGE;
    }
    int count = pattern_access_count(*p);
    if (a->access > count) {
        fprintf(stderr, "banklab sim: --access %d: the pattern has %d access%s\n", a->access,
                count, count == 1 ? "" : "es");
        return EXIT_USAGE;
    }
    unsigned threads = a->env.block[0] * a->env.block[1] * a->env.block[2];
    if (a->env.warp * 32 >= threads) {
        fprintf(stderr, "banklab sim: --warp %u: a block of %u threads has %u warp%s\n",
                a->env.warp, threads, (threads + 31) / 32, threads > 32 ? "s" : "");
        return EXIT_USAGE;
    }
    for (int i = 0; i < count && i < PATTERN_MAX_ACCESSES; i++) {
        if (a->access && i + 1 != a->access)
            continue;
        struct sim_one *o = &one[*n];
        memset(&err, 0, sizeof err);
        if (pattern_eval(*p, &a->env, i, &o->acc, lay, &err)) {
            print_pattern_error(a->pattern, &err);
            return EXIT_USAGE;
        }
        o->acc.mask &= a->mask;
        o->info = pattern_access(*p, i);
        o->index = i + 1;
        int bad = -1;
        int st = simulate(o, &bad);
        if (st) {
            fprintf(stderr, "banklab sim: access %d: %s (lane %d)\n", i + 1,
                    bank_status_str((enum bank_status)st), bad);
            return EXIT_USAGE;
        }
        (*n)++;
    }
    return 0;
}

/* The raw form (--offsets) into o. 0, or EXIT_USAGE after the message. */
static int eval_offsets(const struct sim_args *a, struct sim_one *o)
{
    memset(o, 0, sizeof *o);
    o->acc.width = a->width;
    o->acc.op = a->store ? BANK_STORE : BANK_LOAD;
    o->acc.mask = a->mask;
    memcpy(o->acc.offset, a->offset, sizeof a->offset);
    o->index = 1;
    int bad = -1;
    int st = simulate(o, &bad);
    if (st == BANK_EALIGN) {
        fprintf(stderr, "banklab sim: lane %d: offset %" PRIu64 " is not a multiple of the "
                        "width (%u bytes)\n", bad, a->offset[bad >= 0 && bad < 32 ? bad : 0],
                a->width);
        short_usage(stderr);
        return EXIT_USAGE;
    } else if (st) {
        fprintf(stderr, "banklab sim: %s\n", bank_status_str((enum bank_status)st));
        return EXIT_USAGE;
    }
    return 0;
}

/* What --gpu or --replay found for the accesses. */
struct sim_meas {
    struct gpu_result res[PATTERN_MAX_ACCESSES];
    struct measured_run run[PATTERN_MAX_ACCESSES];
    char source[GPU_TEXT_MAX + 32];
    char lock[GPU_TEXT_MAX];
    int live;                     /* --gpu: measured now (run[] is filled) */
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The GPU runner or the recording, opened once for every pattern of a run. */
struct sim_meter {
    struct gpu *g;
    struct gpu_info info;
    double open_ms;               /* start-up, reported with the first access measured */
};

/* meter_open: open --gpu's device or --replay's recording. 0, or the exit status after one
 * line on stderr. */
static int meter_open(const struct sim_args *a, struct sim_meter *mt)
{
    double t0 = now_ms();
    mt->g = a->replay ? cli_open_replay("sim", a->replay, &mt->info) : gpu_open(a->device, &mt->info);
    if (!mt->g) {
        if (!a->replay)
            fprintf(stderr, "banklab sim: out of memory\n");
        return EXIT_USAGE;
    }
    if (!mt->info.available) {
        fprintf(stderr, "banklab sim: no GPU: %s\n", CLI_CLEAN(mt->info.reason));
        gpu_close(mt->g);
        mt->g = NULL;
        return EXIT_NOGPU;
    }
    mt->open_ms = now_ms() - t0;
    return 0;
}

/* --gpu / --replay: each access through gpu.h (the CUDA runner or the recording), as the
 * tutorial sends it. Returns 0, or EXIT_CHECK when a recording says a run failed. */
static int measure(const struct sim_args *a, struct sim_meter *mt, const struct sim_one *one,
                   int n, struct sim_meas *m)
{
    measured_source(&mt->info, m->source, sizeof m->source);
    snprintf(m->lock, sizeof m->lock, "%s", mt->info.lock);
    m->live = !a->replay;
    int failed = 0;
    for (int i = 0; i < n; i++) {
        struct gpu_request q;
        memset(&q, 0, sizeof q);
        q.id = (uint64_t)i + 1;
        q.kind = GPU_REQ_PATTERN;
        q.access = one[i].acc;
        q.want_timing = q.want_counters = 1;
        double t1 = now_ms();
        enum gpu_status st = gpu_run(mt->g, &q, &m->res[i], SIM_GPU_TIMEOUT_MS);
        m->run[i].request_ms = now_ms() - t1;
        m->run[i].open_ms = mt->open_ms;
        mt->open_ms = 0;
        m->run[i].lock = m->lock;
        failed |= st != GPU_OK && st != GPU_ENOTRECORDED && st != GPU_EINVAL;
    }
    return failed && a->replay ? EXIT_CHECK : 0;
}

/* --gpu: 0 when every access has its counters and its time per access; else one line on
 * stderr (how many, and the first reason) and EXIT_UNMEASURED. */
static int measured_status(const struct sim_meas *m, int n)
{
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (!measured_complete(&m->res[i])) {
            bad++;
            first = first < 0 ? i : first;
        }
    if (!bad)
        return 0;
    const struct gpu_result *r = &m->res[first];
    char what[48] = "";
    if (n > 1)
        snprintf(what, sizeof what, "%d of %d accesses ", bad, n);
    if (r->status != GPU_OK)
        fprintf(stderr, "banklab sim: %snot measured: %s\n", what, r->error[0] ? r->error : "no result");
    else if (!r->has_counters)
        fprintf(stderr, "banklab sim: %smeasured without counters: %s\n", what,
                r->counters_note[0] ? r->counters_note : "not read");
    else
        fprintf(stderr, "banklab sim: %smeasured without the time per access\n", what);
    return EXIT_UNMEASURED;
}

static void write_json(const struct sim_args *a, struct pattern *p,
                       const struct pattern_layout *lay, const struct sim_one *one, int n,
                       const struct sim_meas *m, int line)
{
    FILE *f = stdout;
    fputc('{', f);
    if (line)
        fprintf(f, "\"line\":%d,", line);
    if (p) {
        json_pattern_fields(f, a, lay);
        fputc(',', f);
    }
    for (int i = 0; i < n; i++) {
        if (n > 1)
            fputs(i ? ",{" : "\"accesses\":[{", f);
        if (p) {
            json_access_info(f, a, &one[i]);
            fputc(',', f);
        }
        json_result_fields(f, &one[i].res, &one[i].acc);
        if (m) {
            fputc(',', f);
            measured_json(f, &m->res[i], &one[i].acc, m->source, m->live ? &m->run[i] : NULL);
        }
        if (n > 1)
            fputc('}', f);
    }
    fputs(n > 1 ? "]}\n" : "}\n", f);
}

static void write_text(const struct sim_args *a, struct pattern *p,
                       const struct pattern_layout *lay, const struct sim_one *one, int n,
                       const struct sim_meas *m)
{
    struct grid_text_options go;
    grid_text_options_init(&go);
    go.ascii = a->ascii;
    const char *nc = getenv("NO_COLOR");
    go.color = !a->no_color && !(nc && *nc) && isatty(STDOUT_FILENO);
    go.cols = a->cols ? a->cols : term_columns();
    go.lanes = a->lanes == 1 ? 1 : n == 1 ? -1 : 0;
    if (p)
        print_pattern_head(stdout, a, lay);
    for (int i = 0; i < n; i++) {
        if (p) {
            char text[1024];
            access_text(a->pattern, one[i].info, text, sizeof text);
            fprintf(stdout, "%saccess %d of %d: %s (%s %s)\n", i || p ? "\n" : "",
                    one[i].index, pattern_access_count(p), text,
                    one[i].info->kind == PATTERN_STORE ? "store" : "load", one[i].info->type);
        }
        grid_text_write(stdout, &one[i].res, one[i].acc.width, one[i].acc.op, one[i].acc.mask,
                        &go);
        if (m)
            measured_text(stdout, &m->res[i], &one[i].acc, m->source,
                          m->live ? &m->run[i] : NULL);
    }
}

/* sim_pattern: one PATTERN (or the raw offsets) through the model and, with mt, measured;
 * printed. line: its line in --script (0 for the command line). Returns the exit status. */
static int sim_pattern(const struct sim_args *a, struct sim_meter *mt, int line)
{
    static struct sim_one one[PATTERN_MAX_ACCESSES];
    static struct pattern_layout lay;  /* as laid out for the last access evaluated */
    static struct sim_meas meas;
    struct pattern *p = NULL;
    int n = 1, mrc = 0;
    int rc = a->pattern ? eval_pattern(a, one, &p, &n, &lay) : eval_offsets(a, &one[0]);
    if (!rc && mt && (mrc = measure(a, mt, one, n, &meas)) != 0 && mrc != EXIT_CHECK)
        rc = mrc;
    if (!rc && a->svg) {
        if (n != 1) {
            fprintf(stderr, "banklab sim: --svg draws one access; pick it with --access N "
                            "(the pattern has %d)\n", n);
            rc = EXIT_USAGE;
        } else {
            rc = write_svg(a, &one[0]);
        }
    }
    if (rc) {
        pattern_free(p);
        return rc;
    }
    if (a->json)
        write_json(a, p, &lay, one, n, mt ? &meas : NULL, line);
    else
        write_text(a, p, &lay, one, n, mt ? &meas : NULL);
    pattern_free(p);
    return a->gpu ? measured_status(&meas, n) : mrc;
}

/* --script FILE: every pattern line through sim_pattern with one meter. The status of the
 * first line that failed, or 0. */
static int sim_script(struct sim_args *a, FILE *f, struct sim_meter *mt)
{
    char buf[4096];
    int line = 0, first = 0, ran = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        size_t len = strlen(buf);
        if (len && buf[len - 1] != '\n' && !feof(f)) {
            fprintf(stderr, "banklab sim: %s:%d: line longer than %zu bytes\n",
                    CLI_CLEAN(a->script), line, sizeof buf - 2);
            first = first ? first : EXIT_USAGE;
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
            continue;
        }
        buf[strcspn(buf, "\r\n")] = 0;
        const char *t = buf + strspn(buf, " \t");
        if (!*t || *t == '#')
            continue;
        if (!a->json && ran++)
            fputc('\n', stdout);
        if (!a->json)
            fprintf(stdout, "== %s:%d\n", CLI_CLEAN(a->script), line);
        a->pattern = t;
        int rc = sim_pattern(a, mt, line);
        if (rc && rc != EXIT_CHECK)
            fprintf(stderr, "banklab sim: %s:%d: the line above failed (exit %d)\n",
                    CLI_CLEAN(a->script), line, rc);
        first = first ? first : rc;
        fflush(stdout);
    }
    if (ferror(f)) {
        fprintf(stderr, "banklab sim: %s: %s\n", CLI_CLEAN(a->script), strerror(errno));
        first = first ? first : EXIT_USAGE;
    }
    return first;
}

int cmd_sim(int argc, char **argv)
{
    static struct sim_args a;         /* large: keep it off the stack */
    int rc = parse_args(argc, argv, &a);
    if (rc < 0)
        return 0;  /* --help */
    if (rc)
        return rc;
    FILE *script = NULL;
    if (a.script && !(script = strcmp(a.script, "-") ? fopen(a.script, "r") : stdin)) {
        fprintf(stderr, "banklab sim: %s: %s\n", CLI_CLEAN(a.script), strerror(errno));
        return EXIT_USAGE;
    }
    struct sim_meter meter, *mt = NULL;
    memset(&meter, 0, sizeof meter);
    if ((a.gpu || a.replay) && (rc = meter_open(&a, &meter)) == 0)
        mt = &meter;
    if (!rc)
        rc = script ? sim_script(&a, script, mt) : sim_pattern(&a, mt, 0);
    if (script && script != stdin)
        fclose(script);
    if (mt)
        gpu_close(mt->g);
    return rc;  /* main() reports output that could not be written */
}
