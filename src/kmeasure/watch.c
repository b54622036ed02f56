/* watch.c: a measuring process never outlives its caller's request (kmeasure/kmeasure.h,
 * kstate_watched): while it measures, a watchdog thread reads whether the caller's end of the
 * frames' fd is still there and whether the request's --time-limit passed 2 s ago; if either,
 * it kills the process with SIGKILL. The guards of its compilers (compile/spawn.c) then get
 * their parent-death signal: they kill the compilers and remove their directories. No CUDA. */
#define _GNU_SOURCE /* POLLRDHUP */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "kmeasure.h"

struct watch {
    int fd;
    double deadline;            /* bl_now_ms() */
    atomic_int stop;
};

static void *watch_main(void *arg)
{
    struct watch *w = arg;
    while (!atomic_load(&w->stop)) {
        struct pollfd p = {w->fd, POLLRDHUP, 0};
        int r = poll(&p, 1, 100);
        int gone = r > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
        if (atomic_load(&w->stop))
            break;
        if (gone || bl_now_ms() > w->deadline)
            kill(getpid(), SIGKILL);
    }
    return NULL;
}

void kstate_watched(struct kstate *st, const struct gpu_kernel_request *req, const char *src,
                    size_t len, struct gpu_kernel_result *res, int fd)
{
    struct watch w = {fd, bl_now_ms() + (req->time_limit + 2) * 1e3, 0};
    pthread_t th;
    int on = pthread_create(&th, NULL, watch_main, &w) == 0;
    kstate_measure(st, req, src, len, res, fd);
    atomic_store(&w.stop, 1);
    if (on)
        pthread_join(th, NULL);
}
