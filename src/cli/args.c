/* args.c: what the subcommands share: integer option values with a range, --replay (a
 * recording loaded and opened as the GPU), the tutorial's keys for --help texts (from the
 * key table) and the final check that stdout was written. Messages go to stderr as
 * "banklab CMD: ...". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../keys/keys.h"
#include "../store/recording.h"
#include "cli.h"

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

int cli_server_arg(const char *cmd, int argc, char **argv, int *i, const char **server,
                   int *no_server)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--no-server")) {
        *no_server = 1;
        return 1;
    }
    if (strcmp(a, "--server"))
        return 0;
    if (*i + 1 >= argc || !argv[*i + 1][0]) {
        fprintf(stderr, "banklab%s%s: --server takes the path of a GPU server's socket\n",
                cmd ? " " : "", cmd ? cmd : "");
        return -1;
    }
    *server = argv[++*i];
    return 1;
}
