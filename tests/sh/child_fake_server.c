/* child_fake_server.c: a hostile stand-in for `banklab serve`, for tests/sh/child_attack.sh:
 * on the socket argv[1] it answers each client's hello with a device and a lock
 * text full of terminal escapes, and each request with a measurement whose counters note
 * holds some too, written with the project's own encoders (serve/wire.c), for as many
 * connections as come within argv[2] seconds. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "src/serve/wire.h"

#define ESC "\033]0;PWNED\007\033[2J"

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

static void serve_conn(int fd)
{
    static struct sw_buf b;
    static uint8_t payload[SW_MAX_PAYLOAD];
    for (;;) {
        uint8_t h[SW_HEADER];
        int type;
        uint32_t len;
        struct bl_err err = {0};
        if (read_all(fd, h, sizeof h) || sw_parse_header(h, &type, &len, &err) ||
            read_all(fd, payload, len))
            return;
        memset(&b, 0, sizeof b);
        if (type == SW_HELLO) {
            struct gpu_info info;
            memset(&info, 0, sizeof info);
            info.backend = GPU_BACKEND_CUDA;
            info.available = 1;
            info.counters = 1;
            info.cc_major = 9;
            info.sm_count = 132;
            info.clock_khz = 1980000;
            snprintf(info.device, sizeof info.device, "Evil GPU " ESC);
            snprintf(info.lock, sizeof info.lock, "turns through " ESC);
            sw_put_info(&b, &info);
        } else if (type == SW_REQUEST) {
            struct gpu_request q;
            uint64_t id = 0;
            if (sw_get_request(payload, len, &q, &id, &err))
                return;
            struct gpu_result r;
            memset(&r, 0, sizeof r);
            r.id = id;
            r.has_counters = 1;
            r.wavefronts_ld = r.wavefronts_st = 1;
            r.has_access_timing = 1;
            r.ns_per_access = 2;
            r.clk_per_access = 4;
            r.slowdown = 1;
            snprintf(r.provenance, sizeof r.provenance, "evil " ESC);
            sw_put_result(&b, &r);
        } else {
            continue;
        }
        if (write(fd, b.b, b.len) != (ssize_t)b.len)
            return;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", argv[1]);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    unlink(argv[1]);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 8))
        return 1;
    int ms = atoi(argv[2]) * 1000;
    struct pollfd p = {l, POLLIN, 0};
    while (poll(&p, 1, ms) > 0) {
        int c = accept(l, NULL, NULL);
        if (c >= 0) {
            serve_conn(c);
            close(c);
        }
    }
    unlink(argv[1]);
    return 0;
}
