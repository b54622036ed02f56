/* serve.c: `banklab serve`, the one measuring process of a GPU (src/gpu/serve.h), and its
 * control commands (--pause SECONDS, --stats) sent to a running server. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../gpu/serve.h"
#include "cli.h"

struct serve_args {
    int device;
    const char *socket;
    long long cache_s, idle_s, pause_s, fake_delay_ms, ready_fd;
    int pause, stats, fake;
};

static void usage(FILE *f)
{
    fprintf(f,
        "usage: banklab serve [--device N] [--socket PATH] [--cache SECONDS] [--idle SECONDS]\n"
        "       banklab serve --pause SECONDS | --stats [--device N] [--socket PATH]\n"
        "  The one measuring process of a GPU: every tutorial, sim --gpu, verify, bench and lab\n"
        "  of the machine sends it its requests (the first one starts it when none runs).\n"
        "  Requests queue per client and are served in turn; the same request of several\n"
        "  clients is measured once; a cache answers repeats.\n"
        "  --device N         CUDA device (default 0)\n"
        "  --socket PATH      the socket (default: gpu-<UUID>.sock in the shared\n"
        "                     directory " SERVE_DIR_NAME " under /run/lock or $BANKLAB_LOCK_DIR)\n"
        "  --cache SECONDS    answer repeats from results this young (default %d; 0: off,\n"
        "                     also BANKLAB_SERVE_CACHE=0)\n"
        "  --idle SECONDS     leave after this long without a client (default: never)\n"
        "  --pause SECONDS    tell the running server to leave the counters to another\n"
        "                     profiler (Nsight Compute) this long: requests get timing only,\n"
        "                     marked busy (0 ends a pause; SIGUSR1 pauses %d s)\n"
        "  --stats            print what the running server counted\n",
        SERVE_CACHE_DEFAULT_S, SERVE_SIGNAL_PAUSE_S);
}

static int parse(int argc, char **argv, struct serve_args *a)
{
    memset(a, 0, sizeof *a);
    a->cache_s = SERVE_CACHE_DEFAULT_S;
    a->ready_fd = -1;
    const char *env = getenv("BANKLAB_SERVE_CACHE");
    if (env && *env && cli_int_arg("serve", "BANKLAB_SERVE_CACHE", env, 0, 86400, &a->cache_s))
        return EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long d;
        int bad = 0, took = 1;
        if (!strcmp(o, "--device")) {
            bad = cli_int_arg("serve", o, v, 0, CLI_DEVICE_MAX, &d);
            a->device = (int)d;
        } else if (!strcmp(o, "--socket") || !strcmp(o, "--server")) {
            if (!v || !*v) {
                fprintf(stderr, "banklab serve: %s takes a path\n", o);
                return EXIT_USAGE;
            }
            a->socket = v;
        } else if (!strcmp(o, "--cache")) {
            bad = cli_int_arg("serve", o, v, 0, 86400, &a->cache_s);
        } else if (!strcmp(o, "--idle")) {
            bad = cli_int_arg("serve", o, v, 0, 86400 * 30, &a->idle_s);
        } else if (!strcmp(o, "--pause")) {
            bad = cli_int_arg("serve", o, v, 0, 86400, &a->pause_s);
            a->pause = 1;
        } else if (!strcmp(o, "--fake-delay")) {   /* tests */
            bad = cli_int_arg("serve", o, v, 0, 60000, &a->fake_delay_ms);
        } else if (!strcmp(o, "--ready-fd")) {     /* the client that starts it */
            bad = cli_int_arg("serve", o, v, 3, 1023, &a->ready_fd);
        } else {
            took = 0;
            if (!strcmp(o, "--stats"))
                a->stats = 1;
            else if (!strcmp(o, "--fake"))          /* tests: no GPU, the model's numbers */
                a->fake = 1;
            else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
                usage(stdout);
                return -1;
            } else {
                fprintf(stderr, "banklab serve: unknown argument '%s'\n", CLI_CLEAN(o));
                usage(stderr);
                return EXIT_USAGE;
            }
        }
        if (bad)
            return EXIT_USAGE;
        i += took;
    }
    if (a->pause && a->stats) {
        fprintf(stderr, "banklab serve: --pause and --stats exclude each other\n");
        return EXIT_USAGE;
    }
    return 0;
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
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);     /* no SA_RESTART: poll() returns at once */
}

static int control(const struct serve_args *a, const char *path)
{
    struct serve_stats st;
    struct bl_err err = {0};
    if (serve_control(path, a->pause, (int)a->pause_s, &st, &err)) {
        fprintf(stderr, "banklab serve: %s\n", CLI_CLEAN(err.msg));
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
    } else if (serve_default_path(a.device, path, sizeof path, &e)) {
        fprintf(stderr, "banklab serve: no socket for device %d: %s\n", a.device, CLI_CLEAN(e.msg));
        tell_ready((int)a.ready_fd, e.msg);
        return EXIT_NOGPU;
    }
    if (a.pause || a.stats)
        return control(&a, path);
    struct gpu_info info;
    struct gpu *g = a.fake ? serve_fake_open((int)a.fake_delay_ms, &info) : gpu_open(a.device, &info);
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
    signal(SIGPIPE, SIG_IGN);
    fprintf(stderr, "banklab serve: %s on %s (cache %lld s%s)\n", CLI_CLEAN(info.device),
            CLI_CLEAN(path), a.cache_s, a.idle_s ? ", leaves when idle" : "");
    struct serve_opts o = {path, a.device, (int)a.cache_s, (int)a.idle_s, (int)a.ready_fd};
    char bound[256];
    rc = serve_run(g, &info, &o, bound, sizeof bound, &e);
    gpu_close(g);
    if (rc == 1) {
        fprintf(stderr, "banklab serve: a server already listens on %s\n", CLI_CLEAN(bound));
        return EXIT_CHECK;
    }
    if (rc) {
        fprintf(stderr, "banklab serve: %s\n", CLI_CLEAN(e.msg));
        return EXIT_NOGPU;
    }
    return 0;
}
