/* progress.c: the learner's saved state (progress.h) as JSON via cJSON. Loading accepts any
 * bytes: anything that is not a well-formed progress object is renamed aside and the learner
 * starts fresh. Saving merges with the file under a lock (progress.lock, flock), then replaces
 * it atomically (temp file in the same directory, fsync, rename, fsync dir).
 * No curses, no CUDA; never prints, never exits. */
#include "progress.h"
#include "files.h"
#include "json.h"
#include "json_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../base/err.h"
#include "../base/utf8.h"

#define PROGRESS_FORMAT 1
#define PROGRESS_FILE_MAX (8u << 20)  /* larger files are not ours: treated as corrupt */
#define PROGRESS_VALUES_MAX 200000     /* a full progress file holds about 5,000 */

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

static void push_history(struct progress *p, const char *code);

const char *progress_default_path(char *buf, size_t size)
{
    return files_xdg_path("XDG_STATE_HOME", ".local/state", "banklab/progress.json", buf, size);
}

void progress_init(struct progress *p)
{
    memset(p, 0, sizeof *p);
}

/* Unix time now, to the millisecond: the stamp of a change. */
static double now_stamp(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1000.0;
}

void progress_reset(struct progress *p)
{
    progress_init(p);
    p->reset_when = now_stamp();
}

/* ---- the file's fields ------------------------------------------------------------------ */

/* What each member of a progress file holds: one table for reading and writing. */
enum pkind {
    P_STR,     /* a string, made valid UTF-8 without control characters when read */
    P_INT,     /* an int, clamped to 0..INT_MAX when read */
    P_BOOL,    /* true/false (a number: non-zero) */
    P_NUM,     /* a finite double */
    P_STAMP,   /* a change stamp: unix seconds; anything else reads as 0 (unknown) */
    P_WHEN,    /* a long long of unix seconds (explored patterns) */
};

struct pfield {
    const char *key;
    int kind;
    size_t off, size;
};

#define PF(type, key, kind, field) {key, kind, offsetof(type, field), sizeof ((type *)0)->field}
#define TOP(key, kind, field) PF(struct progress, key, kind, field)
#define QUIZ(key, kind, field) PF(struct progress_quiz, key, kind, field)
#define EXP(key, kind, field) PF(struct progress_explored, key, kind, field)
static const struct pfield top_fields[] = {
    TOP("lesson", P_STR, lesson_id),          TOP("step", P_STR, step_id),
    TOP("lang", P_STR, lang),                 TOP("task_score", P_INT, task_score),
    TOP("task_max", P_INT, task_max),         TOP("position_when", P_STAMP, position_when),
    TOP("lang_when", P_STAMP, lang_when),     TOP("task_when", P_STAMP, task_when),
    TOP("history_when", P_STAMP, history_when), TOP("reset_when", P_STAMP, reset_when),
    {NULL, 0, 0, 0},
};
static const struct pfield quiz_fields[] = {
    QUIZ("lesson", P_STR, lesson_id),         QUIZ("step", P_STR, step_id),
    QUIZ("attempts", P_INT, attempts),        QUIZ("correct", P_BOOL, correct),
    QUIZ("first_correct", P_BOOL, first_correct), QUIZ("given", P_STR, given),
    QUIZ("when", P_STAMP, when),              {NULL, 0, 0, 0},
};
static const struct pfield explored_fields[] = {
    EXP("code", P_STR, code),                 EXP("where", P_STR, where),
    EXP("wavefronts", P_INT, wavefronts),     EXP("conflicts", P_INT, conflicts),
    EXP("ways", P_INT, ways),                 EXP("when", P_WHEN, when),
    {NULL, 0, 0, 0},
};
static const struct pfield measured_fields[] = {   /* the "measured" object of one */
    EXP("wavefronts", P_NUM, measured_wavefronts), EXP("conflicts", P_NUM, measured_conflicts),
    EXP("ms", P_NUM, ms),                     EXP("ns_per_access", P_NUM, ns_per_access),
    EXP("slowdown", P_NUM, slowdown),         EXP("device", P_STR, device),
    {NULL, 0, 0, 0},
};
#undef TOP
#undef QUIZ
#undef EXP

/* ---- loading ---------------------------------------------------------------------------- */

/* Member f->key of o into the field at base + f->off. Absent or null: left as it is; of the
 * wrong type: r fails (the first problem wins). */
static void get_field(struct bl_err *r, const cJSON *o, const struct pfield *f, void *base)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, f->key);
    char *at = (char *)base + f->off;
    double d = cJSON_IsNumber(v) ? v->valuedouble : 0;
    if (!v || cJSON_IsNull(v))
        return;
    if (f->kind == P_STR && cJSON_IsString(v) && v->valuestring)
        bl_utf8_fix(at, f->size, v->valuestring);  /* a hand-edited file cannot inject escapes */
    else if (f->kind == P_STR)
        bl_fail(r, -1, BL_NOWHERE, PRG_NOT_A_STRING, f->key);
    else if (f->kind == P_BOOL && (cJSON_IsBool(v) || cJSON_IsNumber(v)))
        *(int *)(void *)at = cJSON_IsBool(v) ? cJSON_IsTrue(v) : d != 0;
    else if (f->kind == P_BOOL)
        bl_fail(r, -1, BL_NOWHERE, PRG_NOT_TRUE_FALSE, f->key);
    else if (!cJSON_IsNumber(v) || (f->kind != P_INT && !isfinite(d)))
        bl_fail(r, -1, BL_NOWHERE, PRG_NOT_A_NUMBER, f->key);
    else if (f->kind == P_INT)
        *(int *)(void *)at = !(d >= 0) ? 0 : d > INT_MAX ? INT_MAX : (int)d;  /* NaN: 0 */
    else if (f->kind == P_WHEN)
        *(long long *)(void *)at = d > 0 && d < 9e15 ? (long long)d : 0;
    else
        *(double *)(void *)at = f->kind == P_STAMP && !(d > 0 && d < 1e11) ? 0 : d;
}

static void get_fields(struct bl_err *r, const cJSON *o, const struct pfield *f, void *base)
{
    for (; f->key; f++)
        get_field(r, o, f, base);
}

/* Member key of o when it is an array; NULL when absent, null, or not an array (r fails). */
static const cJSON *get_array(struct bl_err *r, const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (v && !cJSON_IsNull(v) && !cJSON_IsArray(v))
        bl_fail(r, -1, BL_NOWHERE, PRG_NOT_AN_ARRAY, key);
    return cJSON_IsArray(v) ? v : NULL;
}

static void read_quiz(struct bl_err *r, const cJSON *a, struct progress *p)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsObject(it)) {
            bl_fail(r, -1, BL_NOWHERE, PRG_ENTRY_NOT_OBJECT, "quiz");
            return;
        }
        if (p->nquiz >= PROGRESS_MAX_QUIZ)
            return;  /* keep the first ones: those are the grades */
        struct progress_quiz *q = &p->quiz[p->nquiz];
        memset(q, 0, sizeof *q);
        get_fields(r, it, quiz_fields, q);
        if (bl_err_failed(r))
            return;
        if (!q->lesson_id[0] && !q->step_id[0])
            continue;  /* nameless: nothing to attach it to */
        p->nquiz++;
    }
}

static void read_explored(struct bl_err *r, const cJSON *a, struct progress *p)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsObject(it)) {
            bl_fail(r, -1, BL_NOWHERE, PRG_ENTRY_NOT_OBJECT, "explored");
            return;
        }
        struct progress_explored e;
        memset(&e, 0, sizeof e);
        get_fields(r, it, explored_fields, &e);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(it, "measured");
        if (m && !cJSON_IsNull(m) && !cJSON_IsObject(m)) {
            bl_fail(r, -1, BL_NOWHERE, PRG_NOT_AN_OBJECT, "measured");
            return;
        }
        e.has_measured = cJSON_IsObject(m);
        get_fields(r, m, measured_fields, &e);
        if (bl_err_failed(r))
            return;
        progress_record_explored(p, &e);
    }
}

static void read_history(struct bl_err *r, const cJSON *a, struct progress *p)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsString(it) || !it->valuestring) {
            bl_fail(r, -1, BL_NOWHERE, PRG_ENTRY_NOT_STRING, "history");
            return;
        }
        char code[PROGRESS_CODE_MAX];
        push_history(p, bl_utf8_fix(code, sizeof code, it->valuestring));
    }
}

/* Fills p from a parsed document; returns 0, or -1 with r filled. */
static int from_json(const cJSON *root, struct progress *p, struct bl_err *r)
{
    if (!cJSON_IsObject(root))
        return bl_fail(r, -1, BL_NOWHERE, PRG_NOT_JSON_OBJECT);
    static const struct pfield format_field = {"format", P_NUM, 0, sizeof(double)};
    double d = PROGRESS_FORMAT;
    get_field(r, root, &format_field, &d);
    int format = !(d >= INT_MIN) ? INT_MIN : d > INT_MAX ? INT_MAX : (int)d;
    if (format != PROGRESS_FORMAT)
        bl_fail(r, -1, BL_NOWHERE, PRG_FORMAT, format, PROGRESS_FORMAT);
    get_fields(r, root, top_fields, p);
    if (strcmp(p->lang, "zh") && strcmp(p->lang, "en"))
        p->lang[0] = 0;  /* unknown language: fall back to the locale */
    const cJSON *a;
    if ((a = get_array(r, root, "quiz")))
        read_quiz(r, a, p);
    if ((a = get_array(r, root, "explored")))
        read_explored(r, a, p);
    if ((a = get_array(r, root, "history")))
        read_history(r, a, p);
    return bl_err_failed(r) ? -1 : 0;
}

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

int progress_read(const char *path, struct progress *p, struct bl_err *err)
{
    progress_init(p);
    if (!path || !path[0])
        return 0;
    size_t len = 0;
    struct bl_err r;
    bl_err_clear(&r);
    char *data = files_read(path, PROGRESS_FILE_MAX, &len, NULL);
    if (!data) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;  /* first run */
        if (errno == EFBIG)
            bl_fail(&r, EFBIG, BL_NOWHERE, PRG_FILE_TOO_LARGE);
        else
            bl_fail(&r, errno, BL_NOWHERE, BL_TEXT, strerror(errno));
    } else {
        const char *end = NULL;
        cJSON *root = NULL;
        if (json_too_many_values(data, len, PROGRESS_VALUES_MAX))
            bl_fail(&r, -1, BL_NOWHERE, PRG_TOO_MANY_VALUES, PROGRESS_VALUES_MAX);
        else if (!(root = json_parse(data, len, &end))) {
            size_t off = end && end >= data && end <= data + len ? (size_t)(end - data) : 0;
            int line, col;
            json_line_col(data, len, off, &line, &col);
            bl_fail(&r, -1, BL_AT((long long)off, 1, -1), PRG_SYNTAX, line, col);
        } else {
            const char *q = end;
            while (q && q < data + len && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
                q++;
            if (q && q < data + len)
                bl_fail(&r, -1, BL_NOWHERE, PRG_TEXT_AFTER);
            else
                from_json(root, p, &r);
            cJSON_Delete(root);
        }
        free(data);
    }
    if (!bl_err_failed(&r))
        return 0;
    progress_init(p);
    if (err && !bl_err_failed(err))
        *err = r;
    return -1;
}

/* The path of the lock beside the progress file at path into lock; -1 when it does not fit. */
static int lock_path(const char *path, char *lock, size_t size)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    return snprintf(lock, size, "%.*sprogress.lock", dirlen, path) >= (int)size ? -1 : 0;
}

/* The lock beside the progress file ("progress.lock" in its directory) held exclusively:
 * returns its descriptor (close it to unlock), or -1 with err filled when another process
 * kept it for PROGRESS_LOCK_WAIT_MS. */
static int lock_beside(const char *path, struct bl_err *err)
{
    char lock[4200];
    if (lock_path(path, lock, sizeof lock))
        return bl_fail(err, ENAMETOOLONG, BL_NOWHERE, FIL_PATH_TOO_LONG, path);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return bl_fail(err, errno, BL_NOWHERE, PRG_CANNOT_OPEN_LOCK, lock, strerror(errno));
    for (int waited = 0;; waited += 10) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd;
        if (errno != EWOULDBLOCK && errno != EINTR) {
            bl_fail(err, errno, BL_NOWHERE, PRG_CANNOT_LOCK, lock, strerror(errno));
            break;
        }
        if (waited >= PROGRESS_LOCK_WAIT_MS) {
            bl_fail(err, EWOULDBLOCK, BL_NOWHERE, PRG_LOCKED, lock, PROGRESS_LOCK_WAIT_MS / 1000);
            break;
        }
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    close(fd);
    return -1;
}

/* The temporary files of a save that was killed (progress.json.tmp-XXXXXX): removed when
 * the lock is free at once, i.e. no other banklab is saving now (a live save holds it). */
static void remove_stale_temps(const char *path)
{
    char lock[4200];
    if (!path || !path[0] || lock_path(path, lock, sizeof lock))
        return;
    int fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;  /* never saved here: nothing left behind */
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        files_remove_temps(path);
    close(fd);
}

int progress_load(const char *path, struct progress *p, struct bl_err *warn)
{
    struct bl_err why;
    bl_err_clear(&why);
    /* in another user's directory (or one others can write) nothing is read or moved */
    if (path && path[0] && files_own_parent(path, warn)) {
        progress_init(p);
        return 1;
    }
    remove_stale_temps(path);
    if (progress_read(path, p, &why) == 0)
        return 0;
    /* under the lock: another banklab may be replacing the file right now */
    int lock = lock_beside(path, NULL);
    bl_err_clear(&why);
    if (progress_read(path, p, &why) == 0) {
        if (lock >= 0)
            close(lock);
        return 0;
    }
    char kept[4096 + 64];
    int moved = move_aside(path, kept, sizeof kept);
    int e = errno;
    if (lock >= 0)
        close(lock);
    if (moved < 0)
        return bl_fail(warn, e, BL_NOWHERE, PRG_UNUSABLE_NOT_MOVED, path, why.msg, strerror(e));
    bl_fail(warn, 1, BL_NOWHERE, PRG_UNUSABLE_KEPT, path, why.msg, kept);
    return 1;
}

/* ---- saving ----------------------------------------------------------------------------- */

/* The fields of base as members of w's open object. */
static void put_fields(struct jw *w, const struct pfield *f, const void *base)
{
    for (; f->key; f++) {
        const char *at = (const char *)base + f->off;
        if (f->kind == P_STR)
            jw_str(w, f->key, at);
        else if (f->kind == P_INT)
            jw_num(w, f->key, *(const int *)(const void *)at);
        else if (f->kind == P_BOOL)
            jw_bool(w, f->key, *(const int *)(const void *)at);
        else if (f->kind == P_WHEN)
            jw_num(w, f->key, (double)*(const long long *)(const void *)at);
        else
            jw_num(w, f->key, *(const double *)(const void *)at);
    }
}

/* p as the JSON document of a progress file. */
static struct jw *to_json(const struct progress *p)
{
    struct jw *w = jw_new(0);
    jw_num(w, "format", PROGRESS_FORMAT);
    put_fields(w, top_fields, p);
    jw_arr(w, "quiz");
    for (int i = 0; i < p->nquiz && i < PROGRESS_MAX_QUIZ; i++) {
        jw_obj(w, NULL);
        put_fields(w, quiz_fields, &p->quiz[i]);
        jw_end(w);
    }
    jw_end(w);
    jw_arr(w, "explored");
    for (int i = 0; i < p->nexplored && i < PROGRESS_MAX_EXPLORED; i++) {
        const struct progress_explored *e = &p->explored[i];
        jw_obj(w, NULL);
        put_fields(w, explored_fields, e);
        if (e->has_measured) {
            jw_obj(w, "measured");
            put_fields(w, measured_fields, e);
            jw_end(w);
        } else {
            jw_null(w, "measured");
        }
        jw_end(w);
    }
    jw_end(w);
    jw_arr(w, "history");
    for (int i = 0; i < p->nhistory && i < 16; i++)
        jw_str(w, NULL, p->history[i]);
    jw_end(w);
    return w;
}

/* mkdir -p for the directory part of path (mode 0700 for what it creates). */
static int make_parents(const char *path, struct bl_err *err)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash || slash == path)
        return 0;
    if ((size_t)(slash - path) >= sizeof dir)
        return bl_fail(err, ENAMETOOLONG, BL_NOWHERE, FIL_PATH_TOO_LONG, path);
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    return files_own_dir(dir, 1, err); /* never another user's directory */
}

static int emit_json(FILE *f, void *w)
{
    return jw_print(w, f, 1);
}

/* the merge of progress_save without the file: dst becomes the merge of dst and src (dst
 * wins ties) */
static void progress_merge(struct progress *dst, const struct progress *src);

int progress_save(const char *path, struct progress *p, struct bl_err *err)
{
    if (!path || !path[0])
        return bl_fail(err, EINVAL, BL_NOWHERE, PRG_NO_PATH);
    if (make_parents(path, err) < 0)
        return -1;
    int lock = lock_beside(path, err);
    if (lock < 0)
        return -1;
    files_remove_temps(path);  /* a killed save's, never a live one's: we hold the lock */
    struct progress *disk = malloc(sizeof *disk);
    struct bl_err why;
    bl_err_clear(&why);
    int rc = -1;
    if (!disk) {
        bl_fail(err, ENOMEM, BL_NOWHERE, PRG_OUT_OF_MEMORY_WRITING, path);
        goto out;
    }
    if (progress_read(path, disk, &why) < 0) {
        char kept[4096 + 64];  /* unusable: kept aside, then replaced by what we have */
        if (move_aside(path, kept, sizeof kept) < 0 && errno != ENOENT) {
            bl_fail(err, errno, BL_NOWHERE, PRG_UNUSABLE_SAVE, path, why.msg, strerror(errno));
            goto out;
        }
    } else {
        progress_merge(p, disk);
    }
    struct jw *w = to_json(p);
    if (!w) {
        bl_fail(err, ENOMEM, BL_NOWHERE, PRG_OUT_OF_MEMORY_WRITING, path);
        goto out;
    }
    rc = files_write_atomic(path, 0600, emit_json, w, err);
    jw_free(w);
out:
    free(disk);
    close(lock);  /* unlocks */
    return rc;
}

/* ---- merging ---------------------------------------------------------------------------- */

/* Which side of a stamped part is kept: 1 src, 0 dst (dst wins ties). */
static int src_newer(double dst_when, double src_when)
{
    return src_when > dst_when;
}

static void merge_quiz(struct progress *dst, const struct progress *src, double reset)
{
    struct progress_quiz *keep = malloc(sizeof dst->quiz);
    int n = 0;
    if (!keep)
        return;  /* out of memory: dst stays as it is; nothing of it is lost */
    for (int i = 0; i < dst->nquiz; i++) {
        const struct progress_quiz *q = &dst->quiz[i];
        for (int j = 0; j < src->nquiz; j++)
            if (!strcmp(src->quiz[j].lesson_id, q->lesson_id) &&
                !strcmp(src->quiz[j].step_id, q->step_id) && src_newer(q->when, src->quiz[j].when))
                q = &src->quiz[j];
        if (q->when >= reset)
            keep[n++] = *q;
    }
    for (int j = 0; j < src->nquiz && n < PROGRESS_MAX_QUIZ; j++) {
        const struct progress_quiz *q = &src->quiz[j];
        int in_dst = 0;
        for (int i = 0; i < dst->nquiz && !in_dst; i++)
            in_dst = !strcmp(dst->quiz[i].lesson_id, q->lesson_id) &&
                     !strcmp(dst->quiz[i].step_id, q->step_id);
        if (!in_dst && q->when >= reset)
            keep[n++] = *q;
    }
    memcpy(dst->quiz, keep, (size_t)n * sizeof *keep);
    dst->nquiz = n;
    free(keep);
}

static int explored_same(const struct progress_explored *a, const struct progress_explored *b)
{
    return a->when == b->when && a->wavefronts == b->wavefronts &&
           a->has_measured == b->has_measured && !strcmp(a->code, b->code) &&
           !strcmp(a->where, b->where);
}

/* Both rings joined: the entries only src has are merged into dst's in time order (each
 * side keeps its own order), the newest PROGRESS_MAX_EXPLORED kept. */
static void merge_explored(struct progress *dst, const struct progress *src, double reset)
{
    enum { N = PROGRESS_MAX_EXPLORED };
    struct progress_explored *all = malloc(2 * N * sizeof *all);
    int n = 0, i = 0, j = 0;
    if (!all)
        return;
    const struct progress_explored *theirs[N];
    int nt = 0;
    for (int k = 0; k < src->nexplored && k < N; k++) {
        int dup = 0;
        for (int d = 0; d < dst->nexplored && !dup; d++)
            dup = explored_same(&dst->explored[d], &src->explored[k]);
        if (!dup)
            theirs[nt++] = &src->explored[k];
    }
    while (i < dst->nexplored || j < nt) {
        const struct progress_explored *e;
        if (j >= nt || (i < dst->nexplored && dst->explored[i].when <= theirs[j]->when))
            e = &dst->explored[i++];
        else
            e = theirs[j++];
        if ((double)(e->when + 1) > reset)  /* when is whole seconds */
            all[n++] = *e;
    }
    int from = n > N ? n - N : 0;
    memcpy(dst->explored, all + from, (size_t)(n - from) * sizeof *all);
    dst->nexplored = n - from;
    free(all);
}

/* The older list first, then the newer one's entries in their order: both survive, the
 * newer side's order wins at the end (most recent last). */
static void merge_history(struct progress *dst, const struct progress *src, double reset)
{
    const struct progress *older = src_newer(dst->history_when, src->history_when) ? dst : src;
    const struct progress *newer = older == dst ? src : dst;
    struct progress *tmp = malloc(sizeof *tmp);
    if (!tmp)
        return;
    tmp->nhistory = 0;
    if (older->history_when >= reset)
        for (int i = 0; i < older->nhistory; i++)
            push_history(tmp, older->history[i]);
    if (newer->history_when >= reset)
        for (int i = 0; i < newer->nhistory; i++)
            push_history(tmp, newer->history[i]);
    memcpy(dst->history, tmp->history, sizeof dst->history);
    dst->nhistory = tmp->nhistory;
    dst->history_when = newer->history_when >= reset ? newer->history_when : 0;
    free(tmp);
}

static void progress_merge(struct progress *dst, const struct progress *src)
{
    double reset = dst->reset_when > src->reset_when ? dst->reset_when : src->reset_when;
    if (src_newer(dst->position_when, src->position_when)) {
        memcpy(dst->lesson_id, src->lesson_id, sizeof dst->lesson_id);
        memcpy(dst->step_id, src->step_id, sizeof dst->step_id);
        dst->position_when = src->position_when;
    }
    if (src_newer(dst->lang_when, src->lang_when)) {
        memcpy(dst->lang, src->lang, sizeof dst->lang);
        dst->lang_when = src->lang_when;
    }
    if (src_newer(dst->task_when, src->task_when)) {
        dst->task_score = src->task_score;
        dst->task_max = src->task_max;
        dst->task_when = src->task_when;
    }
    merge_quiz(dst, src, reset);
    merge_explored(dst, src, reset);
    merge_history(dst, src, reset);
    /* what is older than the reset is gone */
    if (dst->position_when < reset) {
        dst->lesson_id[0] = dst->step_id[0] = 0;
        dst->position_when = 0;
    }
    if (dst->lang_when < reset) {
        dst->lang[0] = 0;
        dst->lang_when = 0;
    }
    if (dst->task_when < reset) {
        dst->task_score = dst->task_max = 0;
        dst->task_when = 0;
    }
    dst->reset_when = reset;
}

/* ---- updating --------------------------------------------------------------------------- */

void progress_record_quiz(struct progress *p, const char *lesson_id, const char *step_id,
                          int correct, const char *given)
{
    char lid[PROGRESS_ID_MAX], sid[PROGRESS_ID_MAX];
    struct progress_quiz *q = NULL;
    copy_str(lid, sizeof lid, lesson_id);
    copy_str(sid, sizeof sid, step_id);
    for (int i = 0; i < p->nquiz && !q; i++)
        if (!strcmp(p->quiz[i].lesson_id, lid) && !strcmp(p->quiz[i].step_id, sid))
            q = &p->quiz[i];
    if (q && q->attempts < INT_MAX) {
        q->attempts++;
    } else if (!q) {
        if (p->nquiz >= PROGRESS_MAX_QUIZ)
            return;  /* full: earlier grades are kept rather than replaced */
        q = &p->quiz[p->nquiz++];
        memset(q, 0, sizeof *q);
        memcpy(q->lesson_id, lid, sizeof lid);
        memcpy(q->step_id, sid, sizeof sid);
        q->attempts = 1;
        q->first_correct = correct != 0;
    }
    q->correct = correct != 0;
    copy_str(q->given, sizeof q->given, given);
    q->when = now_stamp();
}

void progress_set_position(struct progress *p, const char *lesson_id, const char *step_id)
{
    char lid[PROGRESS_ID_MAX], sid[PROGRESS_ID_MAX];
    copy_str(lid, sizeof lid, lesson_id);
    copy_str(sid, sizeof sid, step_id);
    if (!strcmp(lid, p->lesson_id) && !strcmp(sid, p->step_id))
        return;
    memcpy(p->lesson_id, lid, sizeof lid);
    memcpy(p->step_id, sid, sizeof sid);
    p->position_when = now_stamp();
}

void progress_set_lang(struct progress *p, const char *lang)
{
    char l[sizeof p->lang];
    copy_str(l, sizeof l, lang);
    if (!strcmp(l, p->lang))
        return;
    memcpy(p->lang, l, sizeof l);
    p->lang_when = now_stamp();
}

void progress_set_tasks(struct progress *p, int score, int max)
{
    p->task_score = score;
    p->task_max = max;
    p->task_when = now_stamp();
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
    if (!code || !code[0])
        return;
    push_history(p, code);
    p->history_when = now_stamp();
}

static void push_history(struct progress *p, const char *code)
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
