/* progress.c: the learner's saved state (progress.h) as JSON via cJSON. Loading accepts any
 * bytes: anything that is not a well-formed progress object is renamed aside and the learner
 * starts fresh. Saving is atomic (temp file in the same directory, fsync, rename, fsync dir).
 * No curses, no CUDA; never prints, never exits. */
#include "progress.h"
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#define PROGRESS_FORMAT 1
#define PROGRESS_FILE_MAX (8u << 20)  /* larger files are not ours: treated as corrupt */

static void fmt(char *buf, size_t size, const char *f, ...)
{
    if (!buf || !size)
        return;
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, size, f, ap);
    va_end(ap);
}

/* Copies src (NULL = "") into dst, truncating at a UTF-8 character boundary. */
static void copy_str(char *dst, size_t size, const char *src)
{
    if (!size)
        return;
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= size) {
        n = size - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
            n--;  /* do not cut a multi-byte character in half */
    }
    memcpy(dst, src, n);
    dst[n] = 0;
}

const char *progress_default_path(char *buf, size_t size)
{
    return files_xdg_path("XDG_STATE_HOME", ".local/state", "banklab/progress.json", buf, size);
}

void progress_init(struct progress *p)
{
    memset(p, 0, sizeof *p);
}

/* ---- loading ---------------------------------------------------------------------------- */

/* A reader that records the first problem; every getter tolerates NULL and wrong types. */
struct rd {
    char why[160];
};

static void bad(struct rd *r, const char *f, ...)
{
    if (r->why[0])
        return;
    va_list ap;
    va_start(ap, f);
    vsnprintf(r->why, sizeof r->why, f, ap);
    va_end(ap);
}

static void get_str(struct rd *r, const cJSON *o, const char *key, char *dst, size_t size)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return;
    if (!cJSON_IsString(v) || !v->valuestring) {
        bad(r, "\"%s\" is not a string", key);
        return;
    }
    copy_str(dst, size, v->valuestring);
}

static int clamp_int(double d, int lo, int hi)
{
    if (!(d >= lo))  /* also NaN */
        return lo;
    if (d > hi)
        return hi;
    return (int)d;
}

static void get_int(struct rd *r, const cJSON *o, const char *key, int *dst, int lo, int hi)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return;
    if (!cJSON_IsNumber(v)) {
        bad(r, "\"%s\" is not a number", key);
        return;
    }
    *dst = clamp_int(v->valuedouble, lo, hi);
}

static void get_bool(struct rd *r, const cJSON *o, const char *key, int *dst)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return;
    if (cJSON_IsBool(v))
        *dst = cJSON_IsTrue(v) ? 1 : 0;
    else if (cJSON_IsNumber(v))
        *dst = v->valuedouble != 0;
    else
        bad(r, "\"%s\" is not true/false", key);
}

static void get_double(struct rd *r, const cJSON *o, const char *key, double *dst)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        bad(r, "\"%s\" is not a number", key);
        return;
    }
    *dst = v->valuedouble;
}

static const cJSON *get_array(struct rd *r, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return NULL;
    if (!cJSON_IsArray(v)) {
        bad(r, "\"%s\" is not an array", key);
        return NULL;
    }
    return v;
}

static void read_quiz(struct rd *r, const cJSON *a, struct progress *p)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsObject(it)) {
            bad(r, "an entry of \"quiz\" is not an object");
            return;
        }
        if (p->nquiz >= PROGRESS_MAX_QUIZ)
            return;  /* keep the first ones: those are the grades */
        struct progress_quiz *q = &p->quiz[p->nquiz];
        memset(q, 0, sizeof *q);
        get_str(r, it, "lesson", q->lesson_id, sizeof q->lesson_id);
        get_str(r, it, "step", q->step_id, sizeof q->step_id);
        get_int(r, it, "attempts", &q->attempts, 0, INT_MAX);
        get_bool(r, it, "correct", &q->correct);
        get_bool(r, it, "first_correct", &q->first_correct);
        get_str(r, it, "given", q->given, sizeof q->given);
        if (r->why[0])
            return;
        if (!q->lesson_id[0] && !q->step_id[0])
            continue;  /* nameless: nothing to attach it to */
        p->nquiz++;
    }
}

static void read_explored(struct rd *r, const cJSON *a, struct progress *p)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsObject(it)) {
            bad(r, "an entry of \"explored\" is not an object");
            return;
        }
        struct progress_explored e;
        memset(&e, 0, sizeof e);
        get_str(r, it, "code", e.code, sizeof e.code);
        get_str(r, it, "where", e.where, sizeof e.where);
        get_int(r, it, "wavefronts", &e.wavefronts, 0, INT_MAX);
        get_int(r, it, "conflicts", &e.conflicts, 0, INT_MAX);
        get_int(r, it, "ways", &e.ways, 0, INT_MAX);
        double when = 0;
        get_double(r, it, "when", &when);
        e.when = (when > 0 && when < 9e15) ? (long long)when : 0;
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(it, "measured");
        if (m && !cJSON_IsNull(m)) {
            if (!cJSON_IsObject(m)) {
                bad(r, "\"measured\" is not an object");
                return;
            }
            e.has_measured = 1;
            get_double(r, m, "wavefronts", &e.measured_wavefronts);
            get_double(r, m, "conflicts", &e.measured_conflicts);
            get_double(r, m, "ms", &e.ms);
            get_double(r, m, "ns_per_access", &e.ns_per_access);
            get_double(r, m, "slowdown", &e.slowdown);
            get_str(r, m, "device", e.device, sizeof e.device);
        }
        if (r->why[0])
            return;
        progress_record_explored(p, &e);
    }
}

static void read_history(struct rd *r, const cJSON *a, struct progress *p)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsString(it) || !it->valuestring) {
            bad(r, "an entry of \"history\" is not a string");
            return;
        }
        progress_push_history(p, it->valuestring);
    }
}

/* Fills p from a parsed document; returns 0, or -1 with r->why set. */
static int from_json(const cJSON *root, struct progress *p, struct rd *r)
{
    if (!cJSON_IsObject(root)) {
        bad(r, "not a JSON object");
        return -1;
    }
    int format = PROGRESS_FORMAT;
    get_int(r, root, "format", &format, INT_MIN, INT_MAX);
    if (!r->why[0] && format != PROGRESS_FORMAT)
        bad(r, "format %d is not %d", format, PROGRESS_FORMAT);
    get_str(r, root, "lesson", p->lesson_id, sizeof p->lesson_id);
    get_str(r, root, "step", p->step_id, sizeof p->step_id);
    get_str(r, root, "lang", p->lang, sizeof p->lang);
    if (strcmp(p->lang, "zh") && strcmp(p->lang, "en"))
        p->lang[0] = 0;  /* unknown language: fall back to the locale */
    get_int(r, root, "task_score", &p->task_score, 0, INT_MAX);
    get_int(r, root, "task_max", &p->task_max, 0, INT_MAX);
    const cJSON *a;
    if ((a = get_array(r, root, "quiz")))
        read_quiz(r, a, p);
    if ((a = get_array(r, root, "explored")))
        read_explored(r, a, p);
    if ((a = get_array(r, root, "history")))
        read_history(r, a, p);
    return r->why[0] ? -1 : 0;
}

/* Reads the whole file; returns a NUL-terminated buffer (free it) or NULL with errno set
 * (EFBIG when too large, EISDIR for a directory). */

/* Renames path to path.corrupt-<time>[-N] (never over an existing file). Fills kept. */
static int move_aside(const char *path, char *kept, size_t size)
{
    long long t = (long long)time(NULL);
    for (int i = 0; i < 1000; i++) {
        int n = i ? snprintf(kept, size, "%s.corrupt-%lld-%d", path, t, i)
                  : snprintf(kept, size, "%s.corrupt-%lld", path, t);
        if (n < 0 || (size_t)n >= size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        struct stat st;
        if (lstat(kept, &st) == 0)
            continue;
        if (errno != ENOENT)
            return -1;
        return rename(path, kept);
    }
    errno = EEXIST;
    return -1;
}

int progress_read(const char *path, struct progress *p, char *err, size_t errsz)
{
    progress_init(p);
    if (err && errsz)
        err[0] = 0;
    if (!path || !path[0])
        return 0;
    size_t len = 0;
    struct rd r;
    memset(&r, 0, sizeof r);
    char *data = files_read(path, PROGRESS_FILE_MAX, &len, NULL, 0);
    if (!data) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;  /* first run */
        bad(&r, "%s", errno == EFBIG ? "file too large" : strerror(errno));
    } else {
        const char *end = NULL;
        cJSON *root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
        if (!root) {
            size_t off = end && end >= data && end <= data + len ? (size_t)(end - data) : 0;
            int line = 1, col = 1;
            for (size_t i = 0; i < off; i++) {
                if (data[i] == '\n') {
                    line++;
                    col = 1;
                } else {
                    col++;
                }
            }
            bad(&r, "JSON syntax error at %d:%d", line, col);
        } else {
            const char *q = end;
            while (q && q < data + len && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
                q++;
            if (q && q < data + len)
                bad(&r, "text after the JSON object");
            else
                from_json(root, p, &r);
            cJSON_Delete(root);
        }
        free(data);
    }
    if (!r.why[0])
        return 0;
    progress_init(p);
    fmt(err, errsz, "%s", r.why);
    return -1;
}

int progress_load(const char *path, struct progress *p, char *warn, size_t warnsz)
{
    char why[160];
    if (warn && warnsz)
        warn[0] = 0;
    if (progress_read(path, p, why, sizeof why) == 0)
        return 0;
    char kept[4096 + 64];
    if (move_aside(path, kept, sizeof kept) < 0) {
        fmt(warn, warnsz, "progress file %s is unusable (%s) and could not be moved aside: %s; "
                          "starting fresh", path, why, strerror(errno));
        return -1;
    }
    fmt(warn, warnsz, "progress file %s was unusable (%s); kept it as %s and started fresh",
        path, why, kept);
    return 1;
}

/* ---- saving ----------------------------------------------------------------------------- */

static cJSON *to_json(const struct progress *p)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    int ok = cJSON_AddNumberToObject(root, "format", PROGRESS_FORMAT) &&
             cJSON_AddStringToObject(root, "lesson", p->lesson_id) &&
             cJSON_AddStringToObject(root, "step", p->step_id) &&
             cJSON_AddStringToObject(root, "lang", p->lang) &&
             cJSON_AddNumberToObject(root, "task_score", p->task_score) &&
             cJSON_AddNumberToObject(root, "task_max", p->task_max);
    cJSON *quiz = ok ? cJSON_AddArrayToObject(root, "quiz") : NULL;
    ok = ok && quiz;
    for (int i = 0; ok && i < p->nquiz && i < PROGRESS_MAX_QUIZ; i++) {
        const struct progress_quiz *q = &p->quiz[i];
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(quiz, o);
        if (!ok) {
            cJSON_Delete(o);
            break;
        }
        ok = cJSON_AddStringToObject(o, "lesson", q->lesson_id) &&
             cJSON_AddStringToObject(o, "step", q->step_id) &&
             cJSON_AddNumberToObject(o, "attempts", q->attempts) &&
             cJSON_AddBoolToObject(o, "correct", q->correct) &&
             cJSON_AddBoolToObject(o, "first_correct", q->first_correct) &&
             cJSON_AddStringToObject(o, "given", q->given);
    }
    cJSON *ex = ok ? cJSON_AddArrayToObject(root, "explored") : NULL;
    ok = ok && ex;
    for (int i = 0; ok && i < p->nexplored && i < PROGRESS_MAX_EXPLORED; i++) {
        const struct progress_explored *e = &p->explored[i];
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(ex, o);
        if (!ok) {
            cJSON_Delete(o);
            break;
        }
        ok = cJSON_AddStringToObject(o, "code", e->code) &&
             cJSON_AddStringToObject(o, "where", e->where) &&
             cJSON_AddNumberToObject(o, "wavefronts", e->wavefronts) &&
             cJSON_AddNumberToObject(o, "conflicts", e->conflicts) &&
             cJSON_AddNumberToObject(o, "ways", e->ways) &&
             cJSON_AddNumberToObject(o, "when", (double)e->when);
        if (ok && e->has_measured) {
            cJSON *m = cJSON_AddObjectToObject(o, "measured");
            ok = m && cJSON_AddNumberToObject(m, "wavefronts", e->measured_wavefronts) &&
                 cJSON_AddNumberToObject(m, "conflicts", e->measured_conflicts) &&
                 cJSON_AddNumberToObject(m, "ms", e->ms) &&
                 cJSON_AddNumberToObject(m, "ns_per_access", e->ns_per_access) &&
                 cJSON_AddNumberToObject(m, "slowdown", e->slowdown) &&
                 cJSON_AddStringToObject(m, "device", e->device);
        } else if (ok) {
            ok = cJSON_AddNullToObject(o, "measured") != NULL;
        }
    }
    cJSON *hist = ok ? cJSON_AddArrayToObject(root, "history") : NULL;
    ok = ok && hist;
    for (int i = 0; ok && i < p->nhistory && i < 16; i++) {
        cJSON *s = cJSON_CreateString(p->history[i]);
        ok = s && cJSON_AddItemToArray(hist, s);
        if (!ok)
            cJSON_Delete(s);
    }
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* mkdir -p for the directory part of path (mode 0700 for what it creates). */
static int make_parents(const char *path, char *err, size_t errsz)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash || slash == path)
        return 0;
    if ((size_t)(slash - path) >= sizeof dir) {
        fmt(err, errsz, "path too long: %s", path);
        return -1;
    }
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    return files_mkdirs(dir, 0700, err, errsz);
}

static int emit_text(FILE *f, void *text)
{
    return fputs(text, f) < 0 || fputc('\n', f) == EOF ? -1 : 0;
}

int progress_save(const char *path, const struct progress *p, char *err, size_t errsz)
{
    if (!path || !path[0]) {
        fmt(err, errsz, "no progress path");
        return -1;
    }
    if (make_parents(path, err, errsz) < 0)
        return -1;
    cJSON *root = to_json(p);
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text) {
        fmt(err, errsz, "out of memory writing %s", path);
        return -1;
    }
    int rc = files_write_atomic(path, 0600, emit_text, text, err, errsz);
    free(text);
    return rc;
}

/* ---- updating --------------------------------------------------------------------------- */

void progress_record_quiz(struct progress *p, const char *lesson_id, const char *step_id,
                          int correct, const char *given)
{
    char lid[PROGRESS_ID_MAX], sid[PROGRESS_ID_MAX];
    copy_str(lid, sizeof lid, lesson_id);
    copy_str(sid, sizeof sid, step_id);
    correct = correct ? 1 : 0;
    for (int i = 0; i < p->nquiz; i++) {
        struct progress_quiz *q = &p->quiz[i];
        if (!strcmp(q->lesson_id, lid) && !strcmp(q->step_id, sid)) {
            if (q->attempts < INT_MAX)
                q->attempts++;
            q->correct = correct;
            copy_str(q->given, sizeof q->given, given);
            return;
        }
    }
    if (p->nquiz >= PROGRESS_MAX_QUIZ)
        return;  /* full: earlier grades are kept rather than replaced */
    struct progress_quiz *q = &p->quiz[p->nquiz++];
    memset(q, 0, sizeof *q);
    memcpy(q->lesson_id, lid, sizeof lid);
    memcpy(q->step_id, sid, sizeof sid);
    q->attempts = 1;
    q->correct = correct;
    q->first_correct = correct;
    copy_str(q->given, sizeof q->given, given);
}

void progress_record_explored(struct progress *p, const struct progress_explored *e)
{
    if (p->nexplored < 0 || p->nexplored > PROGRESS_MAX_EXPLORED)
        p->nexplored = 0;
    if (p->nexplored == PROGRESS_MAX_EXPLORED) {
        memmove(&p->explored[0], &p->explored[1],
                (PROGRESS_MAX_EXPLORED - 1) * sizeof p->explored[0]);
        p->nexplored--;
    }
    struct progress_explored *d = &p->explored[p->nexplored++];
    *d = *e;
    /* the caller's strings may be unterminated at full length: terminate them here */
    d->code[sizeof d->code - 1] = 0;
    d->where[sizeof d->where - 1] = 0;
    d->device[sizeof d->device - 1] = 0;
}

void progress_push_history(struct progress *p, const char *code)
{
    enum { NHIST = (int)(sizeof p->history / sizeof p->history[0]) };
    char c[PROGRESS_CODE_MAX];
    if (!code || !code[0])
        return;
    copy_str(c, sizeof c, code);
    if (p->nhistory < 0 || p->nhistory > NHIST)
        p->nhistory = 0;
    for (int i = 0; i < p->nhistory; i++) {
        if (!strcmp(p->history[i], c)) {
            memmove(p->history[i], p->history[i + 1], (size_t)(p->nhistory - 1 - i) * sizeof p->history[0]);
            p->nhistory--;
            break;
        }
    }
    if (p->nhistory == NHIST) {
        memmove(p->history[0], p->history[1], (NHIST - 1) * sizeof p->history[0]);
        p->nhistory--;
    }
    memcpy(p->history[p->nhistory++], c, sizeof c);
}
