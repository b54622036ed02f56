/* wire.h: the wire format between `banklab serve` and its clients (serve/wire.c), private
 * to src/serve (daemon.c, client.c) and its tests. A frame is a 12-byte header (magic
 * "BLSV", version, type, payload length: little-endian) and at most SW_MAX_PAYLOAD bytes of
 * payload.
 *
 * The rule: EVERY field of struct gpu_request (and its struct bank_access), struct gpu_result
 * (and its struct bl_err with that error's struct bl_place and struct bl_msg) and struct
 * gpu_info is written, one by one, never as a raw struct: integers little-endian (enums and
 * flags as one byte, a value that does not fit saturates so that the reader refuses it),
 * doubles as their IEEE bits, strings as a 16-bit length and the bytes (no NUL on the wire;
 * one is added on arrival), arrays element by element (a counted array as its count and
 * that many elements). A message id (bl_msg.id) goes as its name in msg.def, not as a number,
 * so that two builds with other tables never show another message. Adding a field to one of
 * these structs means adding it here, in both directions, and bumping SW_VERSION;
 * tests/unit/test_serve_wire.c fills every field with a distinct value through positional
 * initializers (a field it does not know is a compile error there) and fails when one does
 * not come back.
 *
 * Reading: a decoder never reads past the payload and refuses trailing bytes, and it refuses
 * (GPU_EINVAL, with a bl_err naming the field) any number out of its field's range: doubles
 * must be finite and within the ranges of SW_RANGES below (NaN, 1e18 or a negative time never
 * reaches a grade or progress.json), enums within their enum, counts within their arrays;
 * strings must fit their field and be valid UTF-8 without a NUL or a control character (C0,
 * DEL, C1, bidirectional controls: utf8.h); a writer sends its own strings escaped
 * (bl_clean) when they are not, so a good peer is never refused. A message (bl_msg) whose
 * name this build does not know, or whose English rendering is not the error's msg, is
 * dropped (its English msg stays): it is only a translation. No CUDA, never prints. */
#ifndef BANKLAB_SERVE_WIRE_H
#define BANKLAB_SERVE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "../gpu/gpu.h"
#include "serve.h"

#define SW_MAGIC "BLSV"
#define SW_VERSION 4             /* 4: an info's turns (lock) as a message too; 3: a result's
                                    counters note as a message too; 2: every
                                    field of a request, a result and an info (1: width, op,
                                    mask and offsets only: chapter 11 measured as plain loads
                                    and stores) */
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

#define sw_stats serve_stats   /* serve/serve.h: what the server counts */

/* A frame being written: the header is filled by sw_finish. */
struct sw_buf {
    uint8_t b[SW_MAX_FRAME];
    size_t len;
    int overflow;
};

/* The ranges a decoder accepts for the numbers of a result: a recording's (store/recording.c)
 * for counters per warp instruction, instruction counts, times and rates; a slowdown against
 * the conflict-free access tighter (a warp access is at most a few dozen times slower). */
#define SW_COUNTER_MAX 65536.0     /* wavefronts, conflicts per instruction */
#define SW_INST_MAX 1e15           /* raw instruction counts */
#define SW_MS_MAX 1e7              /* a launch's ms; also wait_ms */
#define SW_RATE_MAX 1e12           /* clk per request, B/clk/SM, GB/s, clk and ns per access */
#define SW_SLOWDOWN_MAX 1e6        /* a slowdown against the conflict-free access */
#define SW_AGE_MAX 1e7             /* seconds a cached result is old */
#define SW_LAUNCHES_MAX 1000000000
#define SW_PLACE_MAX (1 << 24)     /* bl_place.at and .len */

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
 * request's id as soon as it was read (0 before), for the error reply. sw_get_result, when it
 * refuses a result, leaves r holding only the id it read (0 before) and the refusal as its
 * error (GPU_EFAILED, "the GPU server's result was refused: ..."), so the request it answers
 * can be told. */
int sw_get_hello(const uint8_t *p, size_t n, struct sw_hello *h, struct bl_err *err);
int sw_get_info(const uint8_t *p, size_t n, struct gpu_info *info, struct bl_err *err);
int sw_get_request(const uint8_t *p, size_t n, struct gpu_request *q, uint64_t *id, struct bl_err *err);
int sw_get_result(const uint8_t *p, size_t n, struct gpu_result *r, struct bl_err *err);
int sw_get_progress(const uint8_t *p, size_t n, struct sw_progress *pr, struct bl_err *err);
int sw_get_control(const uint8_t *p, size_t n, struct sw_control *c, struct bl_err *err);
int sw_get_stats(const uint8_t *p, size_t n, struct sw_stats *s, struct bl_err *err);

/* sw_check_request: 0 when q is a request the server may measure: kind pattern or case, load
 * or store, the instruction (enum bank_instr) with its own rules (the model's, bank.h: ld/st
 * of 1, 2, 4, 8 or 16 bytes; ldmatrix/stmatrix of 16 bytes, .x1/.x2/.x4, every lane active;
 * cp.async of 4, 8 or 16 bytes), trans and has_src 0 or 1, matrices 0, 1, 2 or 4, the offsets
 * of the lanes the instruction uses aligned and below SW_MAX_OFFSET, global sources (has_src,
 * cp.async only) aligned and inside the runner's source buffer (SW_MAX_SRC), a pattern with
 * at least one lane; a case kernel that exists with at most GPU_CASE_MAX_PARAMS parameters,
 * the value of each it reads (by name or alias) in its range; one it does not read is left
 * alone, as the runner leaves it. Else -1 with err. */
#define SW_MAX_OFFSET (1u << 20)
#define SW_MAX_SRC 65536u          /* = BL_CP_ASYNC_SRC (kernels/kernels.h) */
int sw_check_request(const struct gpu_request *q, struct bl_err *err);

/* sw_same_request: 1 when a and b are the same measurement, compared on every field of the
 * request but its id: kind, want_timing, want_counters, the whole access (gpu_same_access:
 * width, op, mask, instr, matrices, trans, has_src, the sources when has_src, the offsets of
 * the active lanes) and, for a case kernel, its name and the values of every parameter it
 * reads (gpu_same_case: aliases and defaults resolved). What no measurement reads is not
 * compared: a pattern's case name and parameters, an inactive lane's offset, src without
 * has_src. The server's cache and its merging of requests in flight use it (daemon.c). */
int sw_same_request(const struct gpu_request *a, const struct gpu_request *b);

#endif
