/* err.c: the one error of every room (err.h). libc only. */
#include "err.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "fmt.h"

int bl_fail(struct bl_err *e, int status, struct bl_place where, int id, ...)
{
    if (!e || e->status != 0)
        return -1; /* the first failure wins */
    e->status = status ? status : -1;
    e->where = where;
    e->lane = where.lane;
    size_t k = where.lane >= 0 ? bl_fmt(e->msg, sizeof e->msg, bl_msg_format(PAT_LANE, BL_LANG_EN),
                                        where.lane)
                               : 0;
    va_list ap;
    va_start(ap, id);
    bl_msg_vset(&e->why, e->msg + k, sizeof e->msg - k, id, ap);
    va_end(ap);
    return -1;
}

void bl_err_clear(struct bl_err *e)
{
    if (!e)
        return;
    memset(e, 0, sizeof *e);
    e->where = BL_NOWHERE;
    e->lane = -1;
}

const char *bl_err_text(const struct bl_err *e, enum bl_lang lang, char *buf, size_t n)
{
    if (!buf || !n)
        return "";
    buf[0] = 0;
    if (!e || e->status == 0)
        return buf;
    if (lang == BL_LANG_EN || e->why.id == BL_MSG_NONE) {
        bl_fmt(buf, n, "%s", e->msg);
        return buf;
    }
    size_t k = e->where.lane >= 0 ? bl_fmt(buf, n, bl_msg_format(PAT_LANE, lang), e->where.lane) : 0;
    bl_msg_render(&e->why, lang, buf + k, n - k);
    return buf;
}

void bl_err_msg(const struct bl_err *e, struct bl_msg *m)
{
    memset(m, 0, sizeof *m);
    if (!e || e->status == 0)
        return;
    if (e->why.id == BL_MSG_NONE)
        bl_msg_set(m, NULL, 0, BL_TEXT, e->msg);
    else if (e->where.lane >= 0)
        bl_msg_set(m, NULL, 0, BL_LANE_MSG, e->where.lane, &e->why);
    else
        *m = e->why;
}

double bl_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
