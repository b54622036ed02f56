/* json_write.h: the one JSON writer of banklab. A document is built member by member into a
 * cJSON tree and printed by cJSON; every JSON banklab writes goes through it (the commands'
 * --json output, recordings, progress, reports). cJSON stays inside src/store: nothing here
 * exposes it. Never prints but to the FILE it is given. */
#ifndef BANKLAB_JSON_WRITE_H
#define BANKLAB_JSON_WRITE_H

#include <stddef.h>
#include <stdio.h>

struct jw;

/* jw_new: an empty document whose top level is an object (array: an array). NULL when out of
 * memory; every function below takes a NULL document and does nothing. */
struct jw *jw_new(int array);

/* The values: each becomes the member key of the innermost open object, or the next element
 * of the innermost open array (key is then not used). jw_obj and jw_arr open a container that
 * takes the values until its jw_end. A value that cannot be added (out of memory, more than
 * 16 containers deep) marks the document failed: jw_print then returns -1. */
void jw_obj(struct jw *w, const char *key);
void jw_arr(struct jw *w, const char *key);
void jw_end(struct jw *w);
void jw_str(struct jw *w, const char *key, const char *s);            /* NULL: null */
void jw_strn(struct jw *w, const char *key, const char *s, size_t n); /* at most n bytes */
void jw_num(struct jw *w, const char *key, double v);    /* as cJSON writes it; NaN, inf: null */
void jw_numf(struct jw *w, const char *key, const char *fmt, double v); /* printf; NaN: null */
void jw_int(struct jw *w, const char *key, long long v); /* every digit */
void jw_uints(struct jw *w, const char *key, const unsigned *v, int n);  /* an array of n */
void jw_bool(struct jw *w, const char *key, int v);
void jw_null(struct jw *w, const char *key);

/* A struct's scalar members as a table, one row a member: its key, where it sits (offsetof) and
 * how it is written. JW_FIELD(key, type, member): an int member as jw_int writes it, a double
 * one as jw_num does; JW_FLAG(key, type, member): an int member as jw_bool. Both refuse to
 * compile for a member of another type. jw_fields: the n rows of f, read from the struct at s,
 * in order into the open object (JW_FIELDS: all the rows of the array f). */
enum jw_type { JW_INT, JW_NUM, JW_BOOL };
struct jw_field {
    const char *key;
    size_t off;
    enum jw_type type;
};
#define JW_FIELD(key, type, member)                                                            \
    {(key), offsetof(type, member), _Generic(((type *)0)->member, int: JW_INT, double: JW_NUM)}
#define JW_FLAG(key, type, member)                                                             \
    {(key), offsetof(type, member), _Generic(((type *)0)->member, int: JW_BOOL)}
void jw_fields(struct jw *w, const void *s, const struct jw_field *f, size_t n);
#define JW_FIELDS(w, s, f) jw_fields((w), (s), (f), sizeof(f) / sizeof(f)[0])

/* jw_print: the document and a newline to f: on one line, or indented by cJSON with pretty.
 * In strings, bytes that are not UTF-8 are written as '?' and DEL, C1 and the bidirectional
 * controls as \uXXXX (docs/security.md), so the output is valid UTF-8 that shows as it reads.
 * Returns 0, or -1 (errno ENOMEM when memory ran out) when the document failed or the write
 * did. jw_free: the document freed. */
int jw_print(const struct jw *w, FILE *f, int pretty);
void jw_free(struct jw *w);

#endif
