/* lockhold.c: a test helper for tests/gpu/classroom.sh: takes the measurement lock of a device
 * (src/devlock/lock.c, the lock every banklab process takes) and holds it for a while, as a
 * long measurement would, so the tests can see others wait and say so.
 * usage: lockhold GPU-UUID SECONDS   (prints "held" once the lock is ours, "released" at the end)
 * Build: cc -O2 -o lockhold tests/gpu/lockhold.c src/devlock/lock.c src/base/fmt.c */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../src/devlock/devlock.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: lockhold GPU-UUID SECONDS\n");
        return 2;
    }
    struct devlock *l;
    struct bl_err err = {0};
    if (devlock_open(argv[1], &l, &err)) {
        fprintf(stderr, "lockhold: %s\n", err.msg);
        return 1;
    }
    if (devlock_acquire(l, 60000, NULL, NULL, &err) != DEVLOCK_OK) {
        fprintf(stderr, "lockhold: %s\n", err.msg);
        return 1;
    }
    printf("held %s\n", devlock_path(l));
    fflush(stdout);
    double s = atof(argv[2]);
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
    devlock_close(l);
    printf("released\n");
    return 0;
}
