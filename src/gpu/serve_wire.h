/* serve_wire.h: the wire format between `banklab serve` and its clients (serve_wire.c), private
 * to src/gpu (serve.c, serve_client.c) and its tests. A frame is a 12-byte header (magic
 * "BLSV", version, type, payload length: little-endian) and at most SW_MAX_PAYLOAD bytes of
 * payload whose fields are written one by one (never a raw struct): integers little-endian,
 * doubles as their IEEE bits, strings as a 16-bit length and the bytes (no NUL on the wire;
 * one is added on arrival and a string that does not fit its field is refused). A decoder
 * never reads past the payload and refuses trailing bytes. No CUDA, never prints. */
#ifndef BANKLAB_SERVE_WIRE_H
#define BANKLAB_SERVE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "serve.h"

#define SW_MAGIC "BLSV"
#define SW_VERSION 1
#define SW_HEADER 12
#define SW_MAX_PAYLOAD 8192
#define SW_MAX_FRAME (SW_HEADER + SW_MAX_PAYLOAD)

enum sw_type {
    SW_HELLO = 1,     /* client -> server: protocol version, device; server -> client: gpu_info */
    SW_REQUEST = 2,   /* client -> server: one gpu_request */
    SW_RESULT = 3,    /* server -> client: one gpu_result (also the error reply to a bad frame) */
    SW_PROGRESS = 4,  /* server -> client: where a request is (queued with n ahead, measuring) */
    SW_CONTROL = 5,   /* client -> server: pause the counters for n seconds, or ask for stats */
    SW_STATS = 6,     /* server -> client: the answer to a control message */
};

enum sw_control_op { SW_CTL_STATS = 1, SW_CTL_PAUSE = 2 };

struct sw_hello {                 /* client -> server */
    uint32_t version;
    int32_t device;
};

struct sw_progress {
    uint64_t id;                  /* the client's request id */
    int32_t phase;                /* GPU_PHASE_QUEUED, _WAITING (ahead: before it), _MEASURING
                                     or _COUNTERS_BUSY (the device's own phases, forwarded) */
    int32_t ahead;                /* requests the server measures before it */
};

struct sw_control {
    int32_t op;                   /* enum sw_control_op */
    int32_t seconds;              /* SW_CTL_PAUSE: 0 .. 86400 (0 ends a pause) */
};

#define sw_stats serve_stats   /* serve.h: what the server counts */

/* A frame being written: the header is filled by sw_finish. */
struct sw_buf {
    uint8_t b[SW_MAX_FRAME];
    size_t len;
    int overflow;
};

/* sw_parse_header: the 12 bytes at h. 0 with *type and *len (payload bytes), -1 with err
 * (bad magic or version: the stream cannot be trusted; close it), -2 when len is over
 * SW_MAX_PAYLOAD (an oversized frame: close it). */
int sw_parse_header(const uint8_t *h, int *type, uint32_t *len, struct bl_err *err);

/* Encoders: a whole frame into b (b->len its size). 0, or -1 when it does not fit. */
int sw_put_hello(struct sw_buf *b, const struct sw_hello *h);
int sw_put_info(struct sw_buf *b, const struct gpu_info *info);
int sw_put_request(struct sw_buf *b, const struct gpu_request *q);
int sw_put_result(struct sw_buf *b, const struct gpu_result *r);
int sw_put_progress(struct sw_buf *b, const struct sw_progress *p);
int sw_put_control(struct sw_buf *b, const struct sw_control *c);
int sw_put_stats(struct sw_buf *b, const struct sw_stats *s);

/* Decoders of a payload (p, n bytes): 0, or -1 with err failed (GPU_EINVAL). sw_get_request also
 * validates what a server must check before measuring (sw_check_request); *id receives the
 * request's id as soon as it was read (0 before), for the error reply. */
int sw_get_hello(const uint8_t *p, size_t n, struct sw_hello *h, struct bl_err *err);
int sw_get_info(const uint8_t *p, size_t n, struct gpu_info *info, struct bl_err *err);
int sw_get_request(const uint8_t *p, size_t n, struct gpu_request *q, uint64_t *id, struct bl_err *err);
int sw_get_result(const uint8_t *p, size_t n, struct gpu_result *r, struct bl_err *err);
int sw_get_progress(const uint8_t *p, size_t n, struct sw_progress *pr, struct bl_err *err);
int sw_get_control(const uint8_t *p, size_t n, struct sw_control *c, struct bl_err *err);
int sw_get_stats(const uint8_t *p, size_t n, struct sw_stats *s, struct bl_err *err);

/* sw_check_request: 0 when q is a request the server may measure: kind pattern or case, width
 * 1/2/4/8/16, load or store, offsets of active lanes aligned and below SW_MAX_OFFSET, a pattern
 * with at least one lane; a case kernel that exists with at most GPU_CASE_MAX_PARAMS
 * parameters it reads (names or aliases), each value in its range. Else -1 with err. */
#define SW_MAX_OFFSET (1u << 20)
int sw_check_request(const struct gpu_request *q, struct bl_err *err);

#endif
