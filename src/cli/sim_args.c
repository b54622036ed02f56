/* sim_args.c: the options of `banklab sim` (sim.h): parsed strictly (whole numbers, ranges,
 * options that exclude or need each other), each error one line naming the option, then the
 * short usage; and the --help text. The run is sim.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sim.h"

static void sim_short_usage(FILE *f)
{
    fputs("usage: banklab sim PATTERN [--block XxYxZ] [--warp N] [--param NAME=VALUE]...\n"
          "                  [--access N] [--dynamic BYTES] [--mask HEX] [OUTPUT OPTIONS]\n"
          "       banklab sim --offsets LIST [--width 1|2|4|8|16] [--store] [--mask HEX]\n"
          "                  [OUTPUT OPTIONS]\n"
          "output options: --json --ascii --no-color --lanes --columns N --svg FILE\n"
          "measure it:     --gpu [--device N] [--server SOCKET | --no-server] | --replay FILE\n"
          "many patterns:  --script FILE (one pattern a line; - reads stdin)\n"
          "banklab sim --help explains everything, with examples.\n",
          f);
}

/* --help, first half: the forms and their options. */
static void help_options(FILE *f)
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
        "             swizzle(B, M, S, x): CuTe's Swizzle<B,M,S> of x\n"
        "  instructions: ldmatrix.x1|x2|x4[.trans](ROW), stmatrix.x1|x2|x4[.trans](ROW):\n"
        "         ROW is where the lane's 16-byte row starts (lane 8i+j: row j of\n"
        "         matrix i); cp.async4|8|16(DST): the shared side of cp.async.ca\n"
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
        "  --server SOCKET      ask the GPU server listening there (banklab serve; also\n"
        "                       BANKLAB_SERVER; a laptop reaches a class server through\n"
        "                       ssh -L); by default the device's own server, started\n"
        "                       when none runs\n"
        "  --no-server          measure in this process (also BANKLAB_NO_SERVER=1)\n"
        "  --replay FILE        instead, look the access up in a recording (bench/verify\n"
        "                       --json; the shipped one is assets/h200-recording.json)\n"
        "                       Without --gpu, --replay or --json the text shows the\n"
        "                       shipped recording's figures where it has the access\n"
        "  --model-only         the model alone (also BANKLAB_MODEL_ONLY=1)\n"
        "  --script FILE        many patterns, one a line (- reads stdin; blank lines and\n"
        "                       lines starting with # are skipped), each with the options\n"
        "                       given here; the GPU (or the recording) is opened once, as\n"
        "                       the tutorial keeps it: a lab's or a class's script of\n"
        "                       measurements. With --json, one object a line (JSON Lines)\n"
        "                       with \"line\" (its line number) added. FILE must be a\n"
        "                       regular file (--script - < FILE reads any), at most 64 MB\n"
        "  The time of one warp access is the SM time one warp instruction of it costs\n"
        "  while every SM runs many warps of it (ns, and SM clocks: clk); the slowdown\n"
        "  compares it with the conflict-free access of the same width and kind (lane l\n"
        "  at l x width) measured by the same run: a 32-way conflict reads about 32x.\n"
        "\n"
        , f);
}

/* --help, second half: reading the grid and the JSON, examples, the exit status. */
static void help_output(FILE *f)
{
    fputs(
        "The grid: a column per bank, a row per distinct 4-byte word the bank must serve\n"
        "in the pass (rows 2 and below are extra wavefronts). A cell shows the lowest\n"
        "lane asking for the word, and a mark: * broadcast (several lanes load one\n"
        "word: free), ! conflict (the bank serves more than one word), # both, = one\n"
        "word stored by several lanes (no broadcast: one value is kept). The 'words'\n"
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

static void help(FILE *f)
{
    help_options(f);
    help_output(f);
}

static int sim_opt(void *ctx, int key, const char *name, const char *val);

enum { OPT_JSON = CLI_KEY_FIRST, OPT_ASCII, OPT_NO_COLOR, OPT_STORE, OPT_LANES, OPT_GPU,
       OPT_MODEL_ONLY, OPT_BLOCK, OPT_WARP, OPT_PARAM, OPT_ACCESS, OPT_DYNAMIC, OPT_OFFSETS, OPT_WIDTH, OPT_MASK,
       OPT_COLUMNS, OPT_SCRIPT, OPT_REPLAY, OPT_DEVICE, OPT_SVG };

static const struct option sim_options[] = {
    {"json", no_argument, NULL, OPT_JSON}, {"ascii", no_argument, NULL, OPT_ASCII},
    {"no-color", no_argument, NULL, OPT_NO_COLOR}, {"no-colour", no_argument, NULL, OPT_NO_COLOR},
    {"store", no_argument, NULL, OPT_STORE}, {"lanes", no_argument, NULL, OPT_LANES},
    {"gpu", no_argument, NULL, OPT_GPU}, {"model-only", no_argument, NULL, OPT_MODEL_ONLY},
    {"block", required_argument, NULL, OPT_BLOCK},
    {"warp", required_argument, NULL, OPT_WARP}, {"param", required_argument, NULL, OPT_PARAM},
    {"access", required_argument, NULL, OPT_ACCESS},
    {"dynamic", required_argument, NULL, OPT_DYNAMIC},
    {"offsets", required_argument, NULL, OPT_OFFSETS},
    {"width", required_argument, NULL, OPT_WIDTH}, {"mask", required_argument, NULL, OPT_MASK},
    {"columns", required_argument, NULL, OPT_COLUMNS},
    {"script", required_argument, NULL, OPT_SCRIPT},
    {"replay", required_argument, NULL, OPT_REPLAY},
    {"device", required_argument, NULL, OPT_DEVICE}, {"svg", required_argument, NULL, OPT_SVG},
    CLI_SERVER_OPTIONS, {"help", no_argument, NULL, 'h'}, {0}};

const struct cli_cmd sim_cmd = {"sim", "h", sim_options, 0, "unknown option '%s'",
                                sim_short_usage, help, sim_opt};

/* Strict parse of a whole number: decimal or 0x hex (a leading 0 is not octal: "010" is ten),
 * a sign only where sign is set. */
static int parse_num(const char *s, int sign, long long *sv, uint64_t *uv)
{
    const char *d = sign && s && (*s == '-' || *s == '+') ? s + 1 : s;
    if (!d || !*d || *d == '-' || *d == '+' || *d == ' ')
        return -1;
    errno = 0;
    char *end;
    int base = d[0] == '0' && (d[1] == 'x' || d[1] == 'X') ? 16 : 10;
    if (sign)
        *sv = strtoll(s, &end, base);
    else
        *uv = strtoull(s, &end, base);
    return errno || *end || end == s ? -1 : 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    return parse_num(s, 0, NULL, out);
}

static int parse_small(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    uint64_t v;
    if (parse_u64(s, &v) || v < lo || v > hi)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* The numbers of s separated by any of seps (blanks around each dropped), each of lo..hi,
 * into out[]: their count; max + 1 when there are more than max; -1 when one is empty or not
 * such a number. */
static int parse_list(const char *s, const char *seps, uint64_t lo, uint64_t hi, uint64_t *out,
                      int max)
{
    char tok[40];
    for (int n = 0;; n++) {
        size_t len = strcspn(s, seps), skip = strspn(s, " \t");
        const char *p = s + (skip < len ? skip : len);
        size_t k = len - (size_t)(p - s);
        while (k && (p[k - 1] == ' ' || p[k - 1] == '\t'))
            k--;
        if (k == 0 || k >= sizeof tok || n >= max)
            return n >= max ? max + 1 : -1;
        memcpy(tok, p, k);
        tok[k] = 0;
        if (parse_u64(tok, &out[n]) || out[n] < lo || out[n] > hi)
            return -1;
        if (!s[len])
            return n + 1;
        s += len + 1;
    }
}

static int parse_offsets(const char *s, uint64_t *off)
{
    return parse_list(s, ",", 0, UINT64_MAX, off, BANK_LANES);
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
    uint64_t v[3] = {1, 1, 1};
    int n = parse_list(s, "xX", 1, 1024, v, 3);
    if (n < 1 || n > 3 || v[2] > 64 || v[0] * v[1] * v[2] > 1024)
        return -1;
    for (int i = 0; i < 3; i++)
        block[i] = (unsigned)v[i];
    return 0;
}

/* Options that exclude or need each other. 0, or EXIT_USAGE after the message. */
static int check_args(const struct sim_args *a)
{
    const struct cli_cmd *c = &sim_cmd;
    if (a->pattern && a->have_offsets)
        return cli_usage_error(c, "give a PATTERN or --offsets, not both");
    if (a->gpu && a->replay)
        return cli_usage_error(c, "--gpu measures now, --replay looks up a recording: give one");
    if (a->device_set && !a->gpu)
        return cli_usage_error(c, "--device picks the GPU of --gpu");
    if ((a->server || a->no_server) && !a->gpu)
        return cli_usage_error(c, "--server and --no-server say where --gpu measures");
    if (a->script && (a->pattern || a->have_offsets))
        return cli_usage_error(c, "--script gives the patterns, one a line: no PATTERN or "
                               "--offsets beside it");
    if (a->script && a->svg)
        return cli_usage_error(c, "--svg draws one access; --script runs many");
    if (!a->pattern && !a->have_offsets && !a->script)
        return cli_usage_error(c, "nothing to simulate: give a PATTERN, --offsets LIST or "
                               "--script FILE");
    if ((a->pattern || a->script) && a->width_set)
        return cli_usage_error(c, "--width belongs to --offsets; a pattern's types set the width");
    if ((a->pattern || a->script) && a->store)
        return cli_usage_error(c, "--store belongs to --offsets; a pattern stores with "
                               "'a[i] = value'");
    const char *bad = a->pattern || a->script ? NULL : a->block_set ? "--block"
                      : a->warp_set ? "--warp" : a->params_set ? "--param"
                      : a->dyn_set ? "--dynamic" : a->access ? "--access" : NULL;
    if (bad)
        return cli_usage_error(c, "%s needs a PATTERN (it means nothing for --offsets)", bad);
    return 0;
}

/* --param NAME=VALUE into a->env. 0, or EXIT_USAGE after the message. */
static int param_opt(struct sim_args *a, const char *v)
{
    const char *eq = v ? strchr(v, '=') : NULL;
    char name[PATTERN_NAME_MAX];
    long long val;
    size_t len = eq ? (size_t)(eq - v) : 0;
    if (!eq || len == 0 || len >= sizeof name)
        return cli_usage_error(&sim_cmd, "--param wants NAME=VALUE, got '%s'", CLI_CLEAN(v));
    memcpy(name, v, len);
    name[len] = 0;
    if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
            != len || (name[0] >= '0' && name[0] <= '9'))
        return cli_usage_error(&sim_cmd, "--param: '%s' is not a name", CLI_CLEAN(name));
    if (parse_num(eq + 1, 1, &val, NULL))
        return cli_usage_error(&sim_cmd, "--param wants an integer value, got '%s'", CLI_CLEAN(v));
    for (int k = 0; k < a->env.nparams; k++)
        if (!strcmp(a->env.param[k].name, name))
            return cli_usage_error(&sim_cmd, "--param: %s is given twice", CLI_CLEAN(name));
    if (pattern_env_set(&a->env, name, val))
        return cli_usage_error(&sim_cmd, "--param: too many parameters (at '%s')", CLI_CLEAN(v));
    a->params_set = 1;
    return 0;
}

/* --offsets LIST into a->offset. 0, or EXIT_USAGE after the message. */
static int offsets_opt(struct sim_args *a, const char *v)
{
    int n = v ? parse_offsets(v, a->offset) : -1;
    if (n < 0)
        return cli_usage_error(&sim_cmd, "--offsets wants 32 byte offsets separated by commas "
                               "(decimal or 0x hex), got '%s'", CLI_CLEAN(v));
    if (n != BANK_LANES)
        return cli_usage_error(&sim_cmd, "--offsets wants exactly 32 offsets, one per lane; got "
                               "%s%d", n > BANK_LANES ? "more than " : "",
                               n > BANK_LANES ? BANK_LANES : n);
    a->have_offsets = 1;
    return 0;
}

/* A number of lo..hi into *out, or the message "OPT wants WHAT, got 'VAL'". */
static int small_opt(const char *v, unsigned lo, unsigned hi, unsigned *out, const char *what)
{
    if (parse_small(v, lo, hi, out))
        return cli_usage_error(&sim_cmd, "%s, got '%s'", what, CLI_CLEAN(v));
    return 0;
}

/* A value option; v is "" when the value is missing. */
static int value_opt(struct sim_args *a, int key, const char *name, const char *v)
{
    unsigned n = 0;
    switch (key) {
    case OPT_BLOCK:
        if (parse_block(v, a->env.block))
            return cli_usage_error(&sim_cmd, "--block wants XxYxZ, XxY or X with at most 1024 "
                                   "threads (z <= 64), got '%s'", CLI_CLEAN(v));
        a->block_set = 1;
        return 0;
    case OPT_WARP:
        a->warp_set = 1;
        return small_opt(v, 0, 31, &a->env.warp, "--warp wants a warp number 0..31");
    case OPT_PARAM:
        return param_opt(a, v);
    case OPT_ACCESS:
        if (small_opt(v, 1, PATTERN_MAX_ACCESSES, &n, "--access wants an access number from 1"))
            return EXIT_USAGE;
        a->access = (int)n;
        return 0;
    case OPT_DYNAMIC:
        if (parse_u64(v, &a->env.dyn_bytes))
            return cli_usage_error(&sim_cmd, "--dynamic wants a byte count, got '%s'",
                                   CLI_CLEAN(v));
        a->dyn_set = 1;
        return 0;
    case OPT_OFFSETS:
        return offsets_opt(a, v);
    case OPT_WIDTH:
        a->width_set = 1;
        if ((parse_small(v, 1, 16, &a->width) || (a->width & (a->width - 1))))
            return cli_usage_error(&sim_cmd, "--width wants 1, 2, 4, 8 or 16 (bytes per lane), "
                                   "got '%s'", CLI_CLEAN(v));
        return 0;
    case OPT_MASK:
        a->mask_set = 1;
        if (parse_mask(v, &a->mask))
            return cli_usage_error(&sim_cmd, "--mask wants up to 8 hex digits (bit n = lane n), "
                                   "got '%s'", CLI_CLEAN(v));
        return 0;
    case OPT_COLUMNS:
        if (small_opt(v, 40, 1000, &n, "--columns wants a width of 40..1000"))
            return EXIT_USAGE;
        a->cols = (int)n;
        return 0;
    case OPT_DEVICE:
        a->device_set = 1;
        return cli_int_opt(&sim_cmd, name, v, 0, CLI_DEVICE_MAX, &a->device);
    }
    const char **dst = key == OPT_SCRIPT ? &a->script : key == OPT_REPLAY ? &a->replay : &a->svg;
    if (!*v)
        return cli_usage_error(&sim_cmd, "%s", key == OPT_SCRIPT ? "--script wants a file of "
                               "patterns, one a line (- for stdin)" : key == OPT_REPLAY
                               ? "--replay wants a recording file" : "--svg wants a file name");
    *dst = v;
    return 0;
}

static int sim_opt(void *ctx, int key, const char *name, const char *val)
{
    struct sim_args *a = ctx;
    int *flag[] = {&a->json, &a->ascii, &a->no_color, &a->store, &a->lanes, &a->gpu,
                   &a->model_only};
    if (key >= OPT_JSON && key <= OPT_MODEL_ONLY) {
        *flag[key - OPT_JSON] = 1;
    } else if (key == CLI_SERVER || key == CLI_NO_SERVER) {
        return cli_server_opt(&sim_cmd, key, val, &a->server, &a->no_server);
    } else if (key == CLI_REST && a->pattern) {
        return cli_usage_error(&sim_cmd, "unexpected argument '%s' (one pattern only)",
                               CLI_CLEAN(val));
    } else if (key == CLI_ARG && a->pattern) {
        return cli_usage_error(&sim_cmd, "unexpected argument '%s': the pattern is one argument "
                               "(quote it)", CLI_CLEAN(val));
    } else if (key == CLI_ARG || key == CLI_REST) {
        a->pattern = val;
    } else {
        return value_opt(a, key, name, val ? val : "");
    }
    return 0;
}

int sim_parse_args(int argc, char **argv, struct sim_args *a)
{
    memset(a, 0, sizeof *a);
    pattern_env_init(&a->env);
    a->width = 4;
    a->mask = 0xffffffffu;
    int rc = cli_parse(&sim_cmd, argc, argv, a, NULL);
    if (!rc)
        a->lanes = a->lanes ? 1 : -1;
    return rc ? rc : check_args(a);
}
