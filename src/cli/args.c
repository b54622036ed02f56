/* args.c: option values shared by the subcommands: integers with a range, and --replay
 * (a recording loaded and opened as the GPU). Messages go to stderr as "banklab CMD: ...". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lesson/recording.h"
#include "cli.h"

int cli_int_arg(const char *cmd, const char *opt, const char *val, long long lo, long long hi,
                long long *out)
{
    char *end = NULL;
    errno = 0;
    long long x = val ? strtoll(val, &end, 10) : 0;
    if (!val || !*val || errno || *end || x < lo || x > hi) {
        fprintf(stderr, "banklab%s%s: %s takes an integer in %lld..%lld, not '%s'\n",
                cmd ? " " : "", cmd ? cmd : "", opt, lo, hi, val ? val : "");
        return -1;
    }
    *out = x;
    return 0;
}

struct gpu *cli_open_replay(const char *cmd, const char *path, struct gpu_info *info)
{
    struct recording rec;
    char msg[RECORDING_MSG_MAX];
    if (recording_load_file(path, &rec, msg, sizeof msg) != 0) {
        fprintf(stderr, "banklab%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", msg);
        return NULL;
    }
    struct gpu *g = recording_open_replay(&rec, info);
    recording_done(&rec);
    if (!g)
        fprintf(stderr, "banklab%s%s: out of memory opening %s\n", cmd ? " " : "", cmd ? cmd : "",
                path);
    return g;
}
