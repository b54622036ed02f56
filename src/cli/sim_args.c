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
    cli_say(f, CLI_USAGE_SIM);
}

/* --help, first half: the forms and their options. */
static void help_options(FILE *f)
{
    cli_say(f, CLI_HELP_SIM_1);
    cli_opt_help(f, &sim_cmd);
}

/* --help, second half: reading the grid and the JSON, examples, the exit status. */
static void help_output(FILE *f)
{
    cli_say(f, CLI_HELP_SIM_2);
}

static void help(FILE *f)
{
    help_options(f);
    help_output(f);
}

static int sim_opt(void *ctx, int key, const char *name, const char *val);

enum { OPT_JSON = CLI_KEY_FIRST, OPT_ASCII, OPT_NO_COLOR, OPT_STORE, OPT_LANES, OPT_GPU,
       OPT_BLOCK, OPT_WARP, OPT_PARAM, OPT_ACCESS, OPT_DYNAMIC, OPT_OFFSETS, OPT_WIDTH, OPT_MASK,
       OPT_COLUMNS, OPT_SCRIPT, OPT_SVG };

static const struct cli_opt sim_options[] = {
    CLI_ROW("block", 0, "XxYxZ|XxY|X", CLI_OH_SIM_BLOCK, OPT_BLOCK),
    CLI_ROW("warp", 0, "N", CLI_OH_SIM_WARP, OPT_WARP),
    CLI_ROW("param", 0, "NAME=VALUE", CLI_OH_SIM_PARAM, OPT_PARAM),
    CLI_ROW("access", 0, "N", CLI_OH_SIM_ACCESS, OPT_ACCESS),
    CLI_ROW("dynamic", 0, "BYTES", CLI_OH_SIM_DYNAMIC, OPT_DYNAMIC),
    CLI_ROW_TEXT(CLI_HT_SIM_1),
    CLI_ROW("offsets", 0, "LIST", CLI_OH_SIM_OFFSETS, OPT_OFFSETS),
    CLI_ROW("width", 0, "N", CLI_OH_SIM_WIDTH, OPT_WIDTH),
    CLI_ROW("store", 0, NULL, CLI_OH_SIM_STORE, OPT_STORE),
    CLI_ROW_TEXT(CLI_HT_SIM_2),
    CLI_ROW("mask", 0, "HEX", CLI_OH_SIM_MASK, OPT_MASK),
    CLI_ROW_TEXT(CLI_HT_SIM_3),
    CLI_ROW("json", 0, NULL, CLI_OH_SIM_JSON, OPT_JSON),
    CLI_ROW("ascii", 0, NULL, CLI_OH_SIM_ASCII, OPT_ASCII),
    CLI_ROW("no-color", 0, NULL, CLI_OH_SIM_NO_COLOR, OPT_NO_COLOR),
    CLI_ROW("lanes", 0, NULL, CLI_OH_SIM_LANES, OPT_LANES),
    CLI_ROW("columns", 0, "N", CLI_OH_SIM_COLUMNS, OPT_COLUMNS),
    CLI_ROW("svg", 0, "FILE", CLI_OH_SIM_SVG, OPT_SVG),
    CLI_ROW_HELP(CLI_OH_SIM_HELP),
    CLI_ROW_TEXT(CLI_HT_SIM_4),
    CLI_ROW("gpu", 0, NULL, CLI_OH_SIM_GPU, OPT_GPU),
    CLI_MEASURE_ROWS(CLI_OH_SIM_DEVICE, CLI_OH_SIM_SERVER, CLI_OH_SIM_NO_SERVER,
                     CLI_OH_SIM_REPLAY, CLI_OH_SIM_MODEL_ONLY),
    CLI_ROW("script", 0, "FILE", CLI_OH_SIM_SCRIPT, OPT_SCRIPT),
    CLI_ROW_TEXT(CLI_HT_SIM_5),
    CLI_ROW("no-colour", 0, NULL, 0, OPT_NO_COLOR),
    CLI_LANG_ROW(0),
    CLI_ROW_END};

const struct cli_cmd sim_cmd = {"sim", sim_options, 0, CLI_UNKNOWN_OPTION_OF, sim_short_usage,
    help, sim_opt, 23, 2, 0};

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
        return cli_usage_error(c, CLI_E_GIVE_PATTERN_OR_OFFSETS_NOT);
    if (a->gpu && a->replay)
        return cli_usage_error(c, CLI_E_GPU_MEASURES_NOW_REPLAY_LOOKS);
    if (a->device_set && !a->gpu)
        return cli_usage_error(c, CLI_E_DEVICE_PICKS_GPU_GPU);
    if ((a->server || a->no_server) && !a->gpu)
        return cli_usage_error(c, CLI_E_SERVER_AND_NO_SERVER_SAY);
    if (a->script && (a->pattern || a->have_offsets))
        return cli_usage_error(c, CLI_E_SCRIPT_GIVES_PATTERNS_ONE_LINE);
    if (a->script && a->svg)
        return cli_usage_error(c, CLI_E_SVG_DRAWS_ONE_ACCESS_SCRIPT);
    if (!a->pattern && !a->have_offsets && !a->script)
        return cli_usage_error(c, CLI_E_NOTHING_TO_SIMULATE_GIVE_PATTERN);
    if ((a->pattern || a->script) && a->width_set)
        return cli_usage_error(c, CLI_E_WIDTH_BELONGS_TO_OFFSETS_PATTERN);
    if ((a->pattern || a->script) && a->store)
        return cli_usage_error(c, CLI_E_STORE_BELONGS_TO_OFFSETS_PATTERN);
    const char *bad = a->pattern || a->script ? NULL : a->block_set ? "--block"
                      : a->warp_set ? "--warp" : a->params_set ? "--param"
                      : a->dyn_set ? "--dynamic" : a->access ? "--access" : NULL;
    if (bad)
        return cli_usage_error(c, CLI_E_NEEDS_PATTERN_IT_MEANS_NOTHING, bad);
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
        return cli_usage_error(&sim_cmd, CLI_E_PARAM_WANTS_NAME_VALUE_GOT, CLI_CLEAN(v));
    memcpy(name, v, len);
    name[len] = 0;
    if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
            != len || (name[0] >= '0' && name[0] <= '9'))
        return cli_usage_error(&sim_cmd, CLI_E_PARAM_IS_NOT_NAME, CLI_CLEAN(name));
    if (parse_num(eq + 1, 1, &val, NULL))
        return cli_usage_error(&sim_cmd, CLI_E_PARAM_WANTS_INTEGER_VALUE_GOT, CLI_CLEAN(v));
    for (int k = 0; k < a->env.nparams; k++)
        if (!strcmp(a->env.param[k].name, name))
            return cli_usage_error(&sim_cmd, CLI_E_PARAM_IS_GIVEN_TWICE, CLI_CLEAN(name));
    if (pattern_env_set(&a->env, name, val))
        return cli_usage_error(&sim_cmd, CLI_E_PARAM_TOO_MANY_PARAMETERS_AT, CLI_CLEAN(v));
    a->params_set = 1;
    return 0;
}

/* --offsets LIST into a->offset. 0, or EXIT_USAGE after the message. */
static int offsets_opt(struct sim_args *a, const char *v)
{
    int n = v ? parse_offsets(v, a->offset) : -1;
    if (n < 0)
        return cli_usage_error(&sim_cmd, CLI_E_OFFSETS_WANTS_BYTE_OFFSETS_SEPARATED, CLI_CLEAN(v));
    if (n != BANK_LANES)
        return cli_usage_error(&sim_cmd, n > BANK_LANES ? CLI_E_OFFSETS_MORE : CLI_E_OFFSETS_FEWER,
                               n > BANK_LANES ? BANK_LANES : n);
    a->have_offsets = 1;
    return 0;
}

/* A number of lo..hi into *out, or the message "OPT wants WHAT, got 'VAL'". */
static int small_opt(const char *v, unsigned lo, unsigned hi, unsigned *out, int what)
{
    if (parse_small(v, lo, hi, out))
        return cli_usage_error(&sim_cmd, what, CLI_CLEAN(v));
    return 0;
}

/* A value option; v is "" when the value is missing. */
static int value_opt(struct sim_args *a, int key, const char *name, const char *v)
{
    unsigned n = 0;
    switch (key) {
    case OPT_BLOCK:
        if (parse_block(v, a->env.block))
            return cli_usage_error(&sim_cmd, CLI_E_BLOCK_WANTS_XXYXZ_XXY_OR, CLI_CLEAN(v));
        a->block_set = 1;
        return 0;
    case OPT_WARP:
        a->warp_set = 1;
        return small_opt(v, 0, 31, &a->env.warp, CLI_E_WARP_WANTS);
    case OPT_PARAM:
        return param_opt(a, v);
    case OPT_ACCESS:
        if (small_opt(v, 1, PATTERN_MAX_ACCESSES, &n, CLI_E_ACCESS_WANTS))
            return EXIT_USAGE;
        a->access = (int)n;
        return 0;
    case OPT_DYNAMIC:
        if (parse_u64(v, &a->env.dyn_bytes))
            return cli_usage_error(&sim_cmd, CLI_E_DYNAMIC_WANTS_BYTE_COUNT_GOT,
                                   CLI_CLEAN(v));
        a->dyn_set = 1;
        return 0;
    case OPT_OFFSETS:
        return offsets_opt(a, v);
    case OPT_WIDTH:
        a->width_set = 1;
        if ((parse_small(v, 1, 16, &a->width) || (a->width & (a->width - 1))))
            return cli_usage_error(&sim_cmd, CLI_E_WIDTH_WANTS_OR_BYTES_PER, CLI_CLEAN(v));
        return 0;
    case OPT_MASK:
        a->mask_set = 1;
        if (parse_mask(v, &a->mask))
            return cli_usage_error(&sim_cmd, CLI_E_MASK_WANTS_UP_TO_HEX, CLI_CLEAN(v));
        return 0;
    case OPT_COLUMNS:
        if (small_opt(v, 40, 1000, &n, CLI_E_COLUMNS_WANTS))
            return EXIT_USAGE;
        a->cols = (int)n;
        return 0;
    case CLI_DEVICE:
        a->device_set = 1;
        return cli_int_opt(&sim_cmd, name, v, 0, CLI_DEVICE_MAX, &a->device);
    }
    const char **dst = key == OPT_SCRIPT ? &a->script : key == CLI_REPLAY ? &a->replay : &a->svg;
    if (!*v)
        return cli_usage_error(&sim_cmd, key == OPT_SCRIPT ? CLI_E_SCRIPT_WANTS
                               : key == CLI_REPLAY ? CLI_E_REPLAY_WANTS : CLI_E_SVG_WANTS);
    *dst = v;
    return 0;
}

static int sim_opt(void *ctx, int key, const char *name, const char *val)
{
    struct sim_args *a = ctx;
    int *flag[] = {&a->json, &a->ascii, &a->no_color, &a->store, &a->lanes, &a->gpu};
    if (key >= OPT_JSON && key <= OPT_GPU) {
        *flag[key - OPT_JSON] = 1;
    } else if (key == CLI_MODEL_ONLY) {
        a->model_only = 1;
    } else if (key == CLI_SERVER || key == CLI_NO_SERVER) {
        return cli_server_opt(&sim_cmd, key, val, &a->server, &a->no_server);
    } else if (key == CLI_REST && a->pattern) {
        return cli_usage_error(&sim_cmd, CLI_E_UNEXPECTED_ARGUMENT_ONE_PATTERN_ONLY,
                               CLI_CLEAN(val));
    } else if (key == CLI_ARG && a->pattern) {
        return cli_usage_error(&sim_cmd, CLI_E_UNEXPECTED_ARGUMENT_PATTERN_IS_ONE, CLI_CLEAN(val));
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
