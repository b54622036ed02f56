/* err.h: the one error of every room, and the one way to fail.
 *
 * A lower room (the model, the loader, the GPU runner) never prints and never exits: it fills
 * a struct bl_err and returns. The first failure wins: bl_fail on an error that already holds
 * one changes nothing, so a failing step can `return bl_fail(...)` without losing the cause.
 * The message is kept as an id of src/base/msg.def with its arguments (why) and as its English
 * text (msg); the cli and the ui render it in the learner's language with bl_err_text. Text
 * from outside banklab (a compiler's line, dlerror) goes in through the id BL_TEXT ("%s").
 * The base room: libc only. */
#ifndef BANKLAB_BASE_ERR_H
#define BANKLAB_BASE_ERR_H

#include <stddef.h>

#include "msg.h"

#define BL_ERR_TEXT 256

/* Where a failure stands: at is 1-based (a column of a one-line text, or a byte offset + 1 of
 * a file), 0 when the failure has no place; len the columns or bytes to underline from at
 * (>= 1 when at > 0); lane the warp lane that failed, -1 when none (it prefixes "lane N: "). */
struct bl_place {
    int at;
    int len;
    int lane;
};

#define BL_NOWHERE ((struct bl_place){0, 0, -1})
/* BL_AT: at the 0-based offset pos (a negative pos: nowhere), len long, for lane (-1: none). */
#define BL_AT(pos, len, lane)                                                                   \
    ((struct bl_place){(pos) >= 0 ? (int)(pos) + 1 : 0,                                         \
                       (pos) >= 0 ? ((len) > 0 ? (int)(len) : 1) : 0, (int)(lane)})

struct bl_err {
    int status;                /* 0: no failure; else the failing room's status (never 0) */
    struct bl_place where;
    int lane;                  /* the lane whose work failed, said in msg or not (-1: none);
                                  bl_fail sets where.lane, a caller may name it unsaid */
    struct bl_msg why;         /* the message as an id and its arguments (either language) */
    char msg[BL_ERR_TEXT];     /* its English text, "lane N: " first when where.lane >= 0 */
};

/* bl_fail: when e (not NULL) holds no failure yet, it takes status (0 is taken as -1), where
 * and message id of msg.def with the arguments of its English format. Returns -1 always, so
 * that `return bl_fail(...)` ends a function that returns -1 on failure. */
int bl_fail(struct bl_err *e, int status, struct bl_place where, int id, ...);

/* bl_err_clear: e holds no failure. bl_err_failed: e holds one (e not NULL). */
void bl_err_clear(struct bl_err *e);
static inline int bl_err_failed(const struct bl_err *e) { return e && e->status != 0; }

/* bl_err_text: e's message in lang into buf (n bytes), with its "lane N: " prefix; msg itself
 * in English or when why holds no message of the table. Returns buf ("" when e holds none). */
const char *bl_err_text(const struct bl_err *e, enum bl_lang lang, char *buf, size_t n);

/* bl_err_msg: e's failure as one message into m, to nest in another (%M, msg.h): its why with
 * "lane N: " before it when where.lane >= 0, or its English text (BL_TEXT) when why holds no
 * message of the table; BL_MSG_NONE when e holds none. Rendered it reads as bl_err_text. */
void bl_err_msg(const struct bl_err *e, struct bl_msg *m);

/* bl_now_ms: CLOCK_MONOTONIC in milliseconds, the one clock of every room (the same in every
 * process of the machine, so a server and its clients can compare stamps). */
double bl_now_ms(void);

#endif
