/* serve.c: `banklab serve`, the one measuring process of a GPU (src/serve/serve.h), and its
 * control commands (--pause SECONDS, --stats) sent to a running server. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../serve/serve.h"
#include "cli.h"
#include "../runner/runner.h"
#include "../sys/sys.h"

struct serve_args {
    const char *socket;
    long long device, cache_s, idle_s, client_idle_s, pause_s, fake_delay_ms, ready_fd, user_conns,
        job_s;
    int pause, stats, fake;
};

static const struct cli_cmd serve_cmd;  /* its options, below */

static void usage(FILE *f)
{
    cli_say(f, CLI_HELP_SERVE);
    cli_opt_help(f, &serve_cmd);
}

enum { OPT_SOCKET = CLI_KEY_FIRST, OPT_CACHE, OPT_IDLE, OPT_CLIENT_IDLE, OPT_PAUSE,
       OPT_STATS, OPT_FAKE, OPT_FAKE_DELAY, OPT_READY_FD, OPT_USER_CONNS, OPT_JOB_S };

static const struct cli_opt serve_options[] = {
    CLI_DEVICE_ROW(CLI_OH_SERVE_DEVICE),
    CLI_ROW("socket", 0, "PATH", CLI_OH_SERVE_SOCKET, OPT_SOCKET),
    CLI_ROW_NUM("cache", "SECONDS", CLI_OH_SERVE_CACHE, OPT_CACHE, SERVE_CACHE_DEFAULT_S),
    CLI_ROW("idle", 0, "SECONDS", CLI_OH_SERVE_IDLE, OPT_IDLE),
    CLI_ROW_NUM("client-idle", "SECONDS", CLI_OH_SERVE_CLIENT_IDLE, OPT_CLIENT_IDLE, SERVE_CLIENT_IDLE_S),
    CLI_ROW_NUM("pause", "SECONDS", CLI_OH_SERVE_PAUSE, OPT_PAUSE, SERVE_SIGNAL_PAUSE_S),
    CLI_ROW("stats", 0, NULL, CLI_OH_SERVE_STATS, OPT_STATS),
    CLI_ROW_NUM("user-connections", "N", CLI_OH_SERVE_USER_CONNECTIONS, OPT_USER_CONNS, SERVE_USER_CONNS),
    CLI_ROW_NUM("job-timeout", "SECONDS", CLI_OH_SERVE_JOB_TIMEOUT, OPT_JOB_S, SERVE_JOB_S),
    CLI_ROW_TEXT(CLI_HT_SERVE_1),
    CLI_ROW("server", 0, "VALUE", 0, OPT_SOCKET),
    CLI_ROW("fake", 0, NULL, 0, OPT_FAKE),
    CLI_ROW("fake-delay", 0, "VALUE", 0, OPT_FAKE_DELAY),
    CLI_ROW("ready-fd", 0, "VALUE", 0, OPT_READY_FD),
    CLI_LANG_ROW(0),
    CLI_ROW_HELP(0),
    CLI_ROW_END};

static int serve_opt(void *ctx, int key, const char *name, const char *val);

static const struct cli_cmd serve_cmd = {"serve", serve_options, 0, CLI_UNKNOWN_ARGUMENT, usage,
    usage, serve_opt, 21, 2, 0};

/* The integer options: where each goes and its range. */
static long long *int_opt(struct serve_args *a, int key, long long *lo, long long *hi)
{
    *lo = 0;
    *hi = 86400;
    switch (key) {
    case CLI_DEVICE:
        *hi = CLI_DEVICE_MAX;
        return &a->device;
    case OPT_CACHE:
        return &a->cache_s;
    case OPT_IDLE:
        *hi = 86400 * 30;
        return &a->idle_s;
    case OPT_CLIENT_IDLE:
        return &a->client_idle_s;
    case OPT_USER_CONNS:
        *lo = 1;
        *hi = 1024;
        return &a->user_conns;
    case OPT_JOB_S:
        *lo = 1;
        return &a->job_s;
    case OPT_PAUSE:
        a->pause = 1;
        return &a->pause_s;
    case OPT_FAKE_DELAY:
        *hi = 60000;
        return &a->fake_delay_ms;
    case OPT_READY_FD:
        *lo = 3;
        *hi = 1023;
        return &a->ready_fd;
    }
    return NULL;
}

static int serve_opt(void *ctx, int key, const char *name, const char *val)
{
    struct serve_args *a = ctx;
    long long lo, hi, *dst = int_opt(a, key, &lo, &hi);
    if (dst) {
        return cli_int_arg("serve", name, val, lo, hi, dst) ? EXIT_USAGE : 0;
    }
    if (key == OPT_SOCKET && (!val || !*val))
        return cli_usage_error(&serve_cmd, CLI_E_TAKES_PATH, name);
    a->socket = key == OPT_SOCKET ? val : a->socket;
    a->stats |= key == OPT_STATS;
    a->fake |= key == OPT_FAKE;
    if (key == OPT_SOCKET || key == OPT_STATS || key == OPT_FAKE)
        return 0;
    return cli_usage_error(&serve_cmd, serve_cmd.unknown, CLI_CLEAN(val ? val : name));
}

static int parse(int argc, char **argv, struct serve_args *a)
{
    memset(a, 0, sizeof *a);
    a->cache_s = SERVE_CACHE_DEFAULT_S;
    a->client_idle_s = SERVE_CLIENT_IDLE_S;
    a->user_conns = SERVE_USER_CONNS;
    a->job_s = SERVE_JOB_S;
    a->ready_fd = -1;
    const char *env = sys_env("BANKLAB_SERVE_CACHE");
    if (env && *env && cli_int_arg("serve", "BANKLAB_SERVE_CACHE", env, 0, 86400, &a->cache_s))
        return EXIT_USAGE;
    int rc = cli_parse(&serve_cmd, argc, argv, a, NULL);
    if (!rc && a->pause && a->stats)
        rc = cli_usage_error(&serve_cmd, CLI_E_PAUSE_AND_STATS_EXCLUDE_EACH);
    return rc;
}

static void on_stop(int sig)
{
    (void)sig;
    serve_stop();
}

static void on_pause(int sig)
{
    (void)sig;
    serve_pause_signal();
}

static void handle(int sig, void (*fn)(int))
{
    sys_sig_set(sig, fn, 0, NULL);     /* no SA_RESTART: poll() returns at once */
}

static int control(const struct serve_args *a, const char *path)
{
    struct serve_stats st;
    struct bl_err err = {0};
    if (serve_control(path, a->pause, (int)a->pause_s, &st, &err)) {
        fprintf(stderr, "banklab serve: %s\n", CLI_CLEAN(CLI_ERR(&err)));
        return EXIT_NOGPU;
    }
    if (a->pause)
        printf("banklab serve: counters %s\n", st.pause_left_s > 0 ? "paused" : "back");
    printf("requests %llu measured %llu merged %llu cache_hits %llu errors %llu dropped %llu "
           "clients %u queued %u pause_left_s %d cache_s %d\n",
           (unsigned long long)st.requests, (unsigned long long)st.measured,
           (unsigned long long)st.merged, (unsigned long long)st.cache_hits,
           (unsigned long long)st.errors, (unsigned long long)st.dropped, st.clients, st.queued,
           st.pause_left_s, st.cache_s);
    return 0;
}

static void tell_ready(int fd, const char *msg)
{
    if (fd < 0)
        return;
    ssize_t k = write(fd, msg, strlen(msg));
    (void)k;
    close(fd);
}

int cmd_serve(int argc, char **argv)
{
    struct serve_args a;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    char path[256], err[GPU_TEXT_MAX] = "";
    struct bl_err e = {0};
    if (a.socket) {
        snprintf(path, sizeof path, "%s", a.socket);
    } else if (serve_default_path((int)a.device, path, sizeof path, &e)) {
        cli_tell("serve", CLI_F_NO_SOCKET_FOR_DEVICE, (int)a.device, CLI_CLEAN(CLI_ERR(&e)));
        tell_ready((int)a.ready_fd, e.msg);
        return EXIT_NOGPU;
    }
    if (a.pause || a.stats)
        return control(&a, path);
    struct gpu_info info;
    struct gpu *g = a.fake ? serve_fake_open((int)a.fake_delay_ms, &info) : gpu_open_serving((int)a.device, &info);
    if (!g || !info.available) {
        snprintf(err, sizeof err, "no GPU: %.200s", g ? info.err.msg : "out of memory");
        fprintf(stderr, "banklab serve: %s\n", CLI_CLEAN(err));
        tell_ready((int)a.ready_fd, err);
        gpu_close(g);
        return EXIT_NOGPU;
    }
    handle(SIGTERM, on_stop);
    handle(SIGINT, on_stop);
    handle(SIGHUP, on_stop);
    handle(SIGUSR1, on_pause);
    sys_sig_set(SIGPIPE, SIG_IGN, 0, NULL);
    cli_tell("serve", a.idle_s ? CLI_F_ON_CACHE_IDLE : CLI_F_ON_CACHE, CLI_CLEAN(info.device),
             CLI_CLEAN(path), a.cache_s);
    struct serve_opts o = {path, (int)a.device, (int)a.cache_s, (int)a.idle_s,
                           (int)a.client_idle_s, (int)a.ready_fd, (int)a.user_conns,
                           (int)a.job_s};
    char bound[256];
    rc = serve_run(g, &info, &o, bound, sizeof bound, &e);
    gpu_close(g);
    if (rc == 1) {
        cli_tell("serve", CLI_F_SERVER_ALREADY_LISTENS_ON, CLI_CLEAN(bound));
        return EXIT_CHECK;
    }
    if (rc) {
        fprintf(stderr, "banklab serve: %s\n", CLI_CLEAN(CLI_ERR(&e)));
        return EXIT_NOGPU;
    }
    return 0;
}
