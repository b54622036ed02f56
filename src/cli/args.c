/* args.c: what the subcommands share: the one usage error (the option tables are opts.c's),
 * integer option values with a range, --server, --replay (a recording loaded and opened as
 * the GPU), the tutorial's keys for --help texts (from the
 * key table) and the final check that stdout was written. Messages go to stderr as
 * "banklab CMD: ...". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../base/wrap.h"
#include "../keys/keys.h"
#include "../store/recording.h"
#include "cli.h"
#include "../serve/serve.h"
#include "../sys/sys.h"

static enum bl_lang lang_now = BL_LANG_EN;

/* 1 when the locale asks for Chinese: the first of LC_ALL, LC_MESSAGES, LANG that is set
 * starts with zh and names UTF-8 (Chinese in another encoding would not show) */
static int locale_zh(void)
{
    const char *v[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *s = sys_env(v[i]);
        if (!s || !*s)
            continue;
        if (strncmp(s, "zh", 2))
            return 0;
        for (const char *p = s; *p; p++)
            if (!strncasecmp(p, "utf-8", 5) || !strncasecmp(p, "utf8", 4))
                return 1;
        return 0;
    }
    return 0;
}

void cli_lang_init(int argc, char **argv)
{
    lang_now = locale_zh() ? BL_LANG_ZH : BL_LANG_EN;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--"))
            break;
        if (!strncmp(argv[i], "--lang=", 7))
            v = argv[i] + 7;
        else if (!strcmp(argv[i], "--lang") && i + 1 < argc)
            v = argv[i + 1];
        if (v && (!strcmp(v, "zh") || !strcmp(v, "en")))
            lang_now = !strcmp(v, "zh") ? BL_LANG_ZH : BL_LANG_EN;
    }
}

void cli_set_lang(enum bl_lang lang)
{
    lang_now = lang;
}

enum bl_lang cli_lang(void)
{
    return lang_now;
}

const char *cli_msg(int id)
{
    return bl_msg_format(id, lang_now);
}

void cli_say(FILE *f, int id, ...)
{
    va_list ap;
    va_start(ap, id);
    vfprintf(f, bl_msg_format(id, lang_now), ap);
    va_end(ap);
}

void cli_tell(const char *cmd, int id, ...)
{
    va_list ap;
    fprintf(stderr, "banklab%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, id);
    vfprintf(stderr, bl_msg_format(id, lang_now), ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_int_arg(const char *cmd, const char *opt, const char *val, long long lo, long long hi,
                long long *out)
{
    char *end = NULL;
    errno = 0;
    long long x = val ? strtoll(val, &end, 10) : 0;
    if (!val || !*val || errno || *end || x < lo || x > hi) {
        cli_tell(cmd, CLI_E_INTEGER, opt, lo, hi, CLI_CLEAN(val ? val : ""));
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
        char buf[BL_ERR_TEXT * 2];
        cli_tell(cmd, BL_TEXT, CLI_CLEAN(cli_err_text(&err, cli_lang() == BL_LANG_ZH, buf,
                                                      sizeof buf)));
        return NULL;
    }
    struct gpu *g = recording_open_replay(&rec, info);
    recording_done(&rec);
    if (!g)
        cli_tell(cmd, CLI_E_OOM_OPENING, CLI_CLEAN(path));
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
        cli_tell(cmd, UI_OUT_OF_MEMORY);
    else if (g && !info->available)
        cli_tell(cmd, CLI_E_NO_GPU, CLI_CLEAN(cli_err_text(&info->err, cli_lang() == BL_LANG_ZH,
                                                           (char[BL_ERR_TEXT * 2]){0},
                                                           BL_ERR_TEXT * 2)));
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
        n += keys_summary(cli_lang() == BL_LANG_ZH, text + n, sizeof text - n);
    if (n < sizeof text)
        snprintf(text + n, sizeof text - n, "%s", tail);
    if (cli_lang() == BL_LANG_ZH) {
        /* Chinese: the keys joined by a full-width comma, lines of at most 80 columns */
        char zh[2048];
        const char *comma = bl_msg_format(BL_COMMA, BL_LANG_ZH);   /* U+FF0C */
        size_t o = 0, cl = strlen(comma);
        for (const char *q = text; *q && o + 4 < sizeof zh; q++) {
            if (q[0] == ',' && q[1] == ' ') {
                memcpy(zh + o, comma, cl);
                o += cl;
                q++;
            } else {
                zh[o++] = *q;
            }
        }
        zh[o] = 0;
        /* broken after a comma (a key stays with its word); a wide character is 2 columns */
        const char *line = zh, *brk = NULL;
        int cols = 0;
        for (const char *q = zh; *q; q++) {
            cols += bl_cols_at(q, NULL);
            if (cols > 80 && brk) {
                fprintf(f, "%.*s\n", (int)(brk - line), line);
                line = brk;
                brk = NULL;
                cols = 0;
                q = line - 1;
                continue;
            }
            if (!strncmp(q, comma, cl))
                brk = q + cl;
        }
        fprintf(f, "%s\n", line);
        return;
    }
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
    if (!zh || e->why.id == BL_MSG_NONE)
        return e->msg;      /* English, or an error that came as its English text alone */
    return bl_err_text(e, BL_LANG_ZH, buf, n);
}

int cli_stdout_done(const char *cmd, int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    cli_tell(cmd, CLI_E_WRITE_STDOUT,
             errno ? bl_errno_text(errno, cli_lang()) : cli_msg(CLI_OUTPUT_LOST));
    return EXIT_USAGE;
}

void cli_put_clean(FILE *f, const char *s, int lines)
{
    size_t n = bl_clean_size(s);
    char *buf = malloc(n);
    if (!buf) {
        cli_say(f, CLI_OOM_PAREN);
        return;
    }
    fputs(lines ? bl_clean_lines(buf, n, s) : bl_clean(buf, n, s), f);
    free(buf);
}

int cli_usage_error(const struct cli_cmd *c, int id, ...)
{
    va_list ap;
    fprintf(stderr, "banklab%s%s: ", c->name ? " " : "", c->name ? c->name : "");
    va_start(ap, id);
    vfprintf(stderr, cli_msg(id), ap);
    va_end(ap);
    fputc('\n', stderr);
    if (c->usage)
        c->usage(stderr);
    return EXIT_USAGE;
}

int cli_server_opt(const struct cli_cmd *c, int key, const char *val, const char **server,
                   int *no_server)
{
    if (key == CLI_NO_SERVER) {
        *no_server = 1;
        return 0;
    }
    if (!val || !*val)
        return cli_usage_error(c, CLI_E_SERVER_TAKES_PATH_GPU_SERVER);
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
