/* args.c: what the subcommands share: the option parser (getopt_long over a command's table)
 * and its one usage error, integer option values with a range, --server, --replay (a
 * recording loaded and opened as the GPU), the tutorial's keys for --help texts (from the
 * key table) and the final check that stdout was written. Messages go to stderr as
 * "banklab CMD: ...". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../keys/keys.h"
#include "../store/recording.h"
#include "cli.h"
#include "../serve/serve.h"
#include "../sys/sys.h"

int cli_int_arg(const char *cmd, const char *opt, const char *val, long long lo, long long hi,
                long long *out)
{
    char *end = NULL;
    errno = 0;
    long long x = val ? strtoll(val, &end, 10) : 0;
    if (!val || !*val || errno || *end || x < lo || x > hi) {
        fprintf(stderr, "banklab%s%s: %s takes an integer in %lld..%lld, not '%s'\n",
                cmd ? " " : "", cmd ? cmd : "", opt, lo, hi, CLI_CLEAN(val ? val : ""));
        return -1;
    }
    *out = x;
    return 0;
}

int cli_int_opt(const struct cli_cmd *c, const char *opt, const char *val, int lo, int hi,
                int *out)
{
    long long x;
    if (cli_int_arg(c->name, opt, val, lo, hi, &x))
        return EXIT_USAGE;
    *out = (int)x;
    return 0;
}

struct gpu *cli_open_replay(const char *cmd, const char *path, struct gpu_info *info)
{
    struct recording rec;
    struct bl_err err = {0};
    if (recording_load_file(path, &rec, &err) != 0) {
        fprintf(stderr, "banklab%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", CLI_CLEAN(err.msg));
        return NULL;
    }
    struct gpu *g = recording_open_replay(&rec, info);
    recording_done(&rec);
    if (!g)
        fprintf(stderr, "banklab%s%s: out of memory opening %s\n", cmd ? " " : "", cmd ? cmd : "",
                CLI_CLEAN(path));
    return g;
}

int cli_model_only(void)
{
    const char *mo = sys_env("BANKLAB_MODEL_ONLY");
    return mo && *mo && strcmp(mo, "0") != 0;
}

int cli_recorded_fallback(struct gpu **g, struct gpu_info *info, int model_only,
                          struct bl_err *why)
{
    if (model_only || info->available)
        return 0;
    struct gpu_info ri;
    struct bl_err e = {0};
    struct gpu *rg = recording_open_shipped(&ri, &e);
    if (!rg || !ri.available) {
        gpu_close(rg);
        return 0;
    }
    *why = info->err;
    gpu_close(*g);
    *g = rg;
    *info = ri;
    return 1;
}

struct gpu *cli_open_gpu(const char *cmd, const char *replay, int device, const char *server,
                         int no_server, struct gpu_info *info, int *rc)
{
    struct gpu *g = replay ? cli_open_replay(cmd, replay, info)
                           : gpu_open_auto(device, server, no_server, info);
    *rc = g ? EXIT_NOGPU : EXIT_USAGE;
    if (!g && !replay)
        fprintf(stderr, "banklab %s: out of memory\n", cmd);
    else if (g && !info->available)
        fprintf(stderr, "banklab %s: no GPU: %s\n", cmd, CLI_CLEAN(info->err.msg));
    else if (g)
        return g;
    gpu_close(g);
    return NULL;
}

void cli_print_keys(FILE *f, const char *lead, const char *tail)
{
    char text[2048];
    size_t n = (size_t)snprintf(text, sizeof text, "%s", lead);
    if (n < sizeof text)
        n += keys_summary(0, text + n, sizeof text - n);
    if (n < sizeof text)
        snprintf(text + n, sizeof text - n, "%s", tail);
    /* lines of at most 90 columns, broken after a comma (a key stays with its word) */
    const char *p = text;
    while (*p) {
        size_t len = strlen(p);
        if (len > 90) {
            len = 89;
            while (len > 0 && !(p[len] == ',' && p[len + 1] == ' '))
                len--;
            len = len ? len + 1 : strcspn(p, " ");
        }
        fprintf(f, "%.*s\n", (int)len, p);
        p += len;
        while (*p == ' ')
            p++;
    }
}

const char *cli_err_text(const struct bl_err *e, int zh, char *buf, size_t n)
{
    if (!zh)
        return e->msg;
    if (e->why.id != BL_MSG_NONE)
        return bl_err_text(e, BL_LANG_ZH, buf, n);
    return bl_msg_text(NULL, e->msg, BL_LANG_ZH, buf, n);
}

int cli_stdout_done(const char *cmd, int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    fprintf(stderr, "banklab%s%s: write error on standard output: %s\n", cmd ? " " : "",
            cmd ? cmd : "", errno ? strerror(errno) : "output lost");
    return EXIT_USAGE;
}

void cli_put_clean(FILE *f, const char *s, int lines)
{
    size_t n = bl_clean_size(s);
    char *buf = malloc(n);
    if (!buf) {
        fputs("(out of memory)", f);
        return;
    }
    fputs(lines ? bl_clean_lines(buf, n, s) : bl_clean(buf, n, s), f);
    free(buf);
}

int cli_usage_error(const struct cli_cmd *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "banklab%s%s: ", c->name ? " " : "", c->name ? c->name : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (c->usage)
        c->usage(stderr);
    return EXIT_USAGE;
}

/* The row of c's table spelled exactly as s ("--name" or "--name=value"), or NULL: getopt_long
 * takes abbreviations, banklab does not. */
static const struct option *exact(const struct cli_cmd *c, const char *s)
{
    if (strncmp(s, "--", 2))
        return NULL;
    size_t n = strcspn(s + 2, "=");
    for (const struct option *o = c->longopts; o->name; o++)
        if (strlen(o->name) == n && !strncmp(o->name, s + 2, n))
            return o;
    return NULL;
}

/* The long option whose argument is s, when s is one of c's options that failed (optopt its
 * key; 0: getopt_long knew no such option), else NULL: a short option failed. */
static const char *refused_long(const struct cli_cmd *c, const char *s)
{
    const struct option *o = exact(c, s);
    return !strncmp(s, "--", 2) && (!optopt || (o && o->val == optopt)) ? s : NULL;
}

/* 1 when c takes --lang and argv asks for Chinese (--lang zh, --lang=zh): the parse errors are
 * then said in Chinese, read before any option is taken */
static int wants_zh(const struct cli_cmd *c, int argc, char **argv)
{
    if (!exact(c, "--lang"))
        return 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--lang=zh") || (!strcmp(argv[i], "--lang") && i + 1 < argc &&
                                              !strcmp(argv[i + 1], "zh")))
            return 1;
    }
    return 0;
}

/* an unknown option: c's own words, or in Chinese (without the English usage) */
static int unknown_option(const struct cli_cmd *c, int zh, const char *name)
{
    if (!zh)
        return cli_usage_error(c, c->unknown, name);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "banklab%s%s", c->name ? " " : "", c->name ? c->name : "");
    fprintf(stderr, "%s: ", cmd);
    fprintf(stderr, bl_msg_format(CLI_UNKNOWN_OPTION, BL_LANG_ZH), name, cmd);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

int cli_parse(const struct cli_cmd *c, int argc, char **argv, void *ctx, int *rest)
{
    int zh = wants_zh(c, argc, argv);
    char shortopts[64], name[64];
    snprintf(shortopts, sizeof shortopts, "%c:%s", c->in_order ? '+' : '-', c->shortopts);
    opterr = 0;
    optind = 0;  /* glibc: start afresh */
    int k, idx, rc;
    while (idx = -1, (k = getopt_long(argc, argv, shortopts, c->longopts, &idx)) != -1) {
        const char *val = optarg, *elem = NULL;
        if (k == CLI_ARG) {
            if ((rc = c->opt(ctx, CLI_ARG, NULL, val)))
                return rc;
            continue;
        }
        if (idx >= 0)  /* a long option's argument: before its value when that stood apart */
            elem = argv[optind - 1 - (val && val == argv[optind - 1])];
        else if (k == '?' || k == ':')
            elem = refused_long(c, argv[optind - 1]);
        if (elem) {
            const struct option *o = exact(c, elem);
            if (!o || k == '?')
                return unknown_option(c, zh, CLI_CLEAN(elem));
            k = o->val;
            snprintf(name, sizeof name, "--%s", o->name);
        } else {
            if (k == '?') {
                snprintf(name, sizeof name, "-%c", optopt);
                return unknown_option(c, zh, CLI_CLEAN(name));
            }
            k = k == ':' ? optopt : k;
            snprintf(name, sizeof name, "-%c", k);
        }
        if (k == 'h') {
            c->help(stdout);
            return -1;
        }
        if ((rc = c->opt(ctx, k, name, val)))
            return rc;
    }
    if (rest) {
        *rest = optind;
        return 0;
    }
    for (int i = optind; i < argc; i++)
        if ((rc = c->opt(ctx, CLI_REST, NULL, argv[i])))
            return rc;
    return 0;
}

int cli_server_opt(const struct cli_cmd *c, int key, const char *val, const char **server,
                   int *no_server)
{
    if (key == CLI_NO_SERVER) {
        *no_server = 1;
        return 0;
    }
    if (!val || !*val)
        return cli_usage_error(c, "--server takes the path of a GPU server's socket");
    *server = val;
    return 0;
}

void cli_now_utc(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
