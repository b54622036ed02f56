/* json.h: JSON text beside the cJSON tree made from it. cJSON keeps no positions; this module
 * walks the same text with a strict scanner (RFC 8259, with messages a person can act on),
 * records where each value and its key start, and turns byte offsets into line:column in time
 * linear in the text (a column checkpoint every JSON_COL_STEP bytes). The lesson loader uses
 * all of it; recordings and progress use line:column and the cheap whole-text checks (values
 * counted, a text that ends early). Part of src/store, the room that owns cJSON; depends on
 * src/base only. Never prints, never exits. */
#ifndef BANKLAB_STORE_JSON_H
#define BANKLAB_STORE_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define JSON_COL_STEP 256   /* bytes between two column checkpoints */
#define JSON_DEPTH_MAX 200  /* nesting the scanner accepts */

struct json_node {
    const cJSON *item;
    size_t key_off;      /* where its "key" starts, SIZE_MAX when it has none */
    size_t val_off;      /* where its value starts */
};

/* One text and what is known of its places. Fill with json_doc_init, free with
 * json_doc_done. */
struct json_doc {
    const char *text;    /* NUL-terminated (text[len] == 0), not owned */
    size_t len;
    size_t *lines;       /* offset of each line start */
    size_t nlines;
    int *cols;           /* column of byte k * JSON_COL_STEP in its line */
    struct json_node *nodes;
    size_t nnodes, cap;
    size_t *hash;        /* open addressing over nodes by item: index + 1, 0 = empty */
    size_t hcap;
    int oom;             /* memory ran out while recording nodes */
};

/* json_doc_init: index text (len bytes, text[len] == 0) for line:column. Returns 0, or -1
 * when memory ran out (*D is then safe to json_doc_done). */
int json_doc_init(struct json_doc *D, const char *text, size_t len);

void json_doc_done(struct json_doc *D);

/* json_doc_scan: check the whole text strictly (a UTF-8 BOM is skipped). With root (cJSON's
 * tree of this text) the place of every value and key of root is recorded for
 * json_doc_offset. whole names what the text must be, for the message on an empty text, e.g.
 * "a lesson" gives "empty file (a lesson is one JSON object)". Returns 0, or -1 with one line
 * in err and the place of the problem in *err_off. Check D->oom afterwards. */
int json_doc_scan(struct json_doc *D, const cJSON *root, const char *whole, size_t *err_off,
                  char *err, size_t esz);

/* json_doc_offset: where item starts in the text, or its key when want_key and it has one;
 * SIZE_MAX when unknown (not scanned, or NULL). */
size_t json_doc_offset(const struct json_doc *D, const cJSON *item, int want_key);

/* json_doc_line_col: 1-based line and column of off; columns count characters (UTF-8 code
 * points; a tab is one). 0:0 for SIZE_MAX. O(log lines + JSON_COL_STEP). */
void json_doc_line_col(const struct json_doc *D, size_t off, int *line, int *col);

/* json_doc_string_offset: the offset in the text of byte index (0-based) of the decoded
 * string whose opening quote is at quote (escapes such as \n and \u4e2d undone). */
size_t json_doc_string_offset(const struct json_doc *D, size_t quote, size_t index);

/* json_doc_literal: the number at item as written ("1.0", "-3", "1e2"), at most size - 1
 * characters, into buf; "" when its place is unknown. Returns buf. */
const char *json_doc_literal(const struct json_doc *D, const cJSON *item, char *buf,
                             size_t size);

/* json_line_col: line:column of off in text (len bytes) in one pass, without an index: for a
 * single syntax error. Columns as json_doc_line_col. */
void json_line_col(const char *text, size_t len, size_t off, int *line, int *col);

/* json_unclosed: 1 when text ends inside a string or with an object or array still open (a
 * truncated file), else 0. */
int json_unclosed(const char *text, size_t len);

/* json_too_many_values: 1 when text holds more than max JSON values (counted by their
 * separators, outside strings), before cJSON spends 64 bytes on each. */
int json_too_many_values(const char *text, size_t len, size_t max);

/* json_type_name: "a string", "a number", "an object", ... for messages; "nothing" for NULL. */
const char *json_type_name(const cJSON *j);

#endif
