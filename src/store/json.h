/* json.h: JSON texts read with cJSON, the one JSON reader of banklab. json_read parses a text
 * once and says where and why a text is not JSON (at cJSON's own end pointer); a problem of a
 * value is named by its JSON path instead ("steps[2].scene.code"), which needs no positions.
 * Recordings and progress use the line:column and whole-text helpers. Part of src/store, the
 * room that owns cJSON; depends on src/base only. Never prints, never exits. */
#ifndef BANKLAB_STORE_JSON_H
#define BANKLAB_STORE_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../base/err.h"

/* json_read: text (len bytes, text[len] == 0) parsed by cJSON into *root (free with
 * cJSON_Delete). Besides cJSON's checks it refuses what RFC 8259 refuses and cJSON lets pass
 * (control characters, \u0000, numbers such as 01 or 1.), and gives every number node its
 * literal as written ("1.0", "-3") in valuestring, which cJSON_Delete frees. whole names
 * what the text must be, for the message on an empty text: "a lesson" gives "empty file (a
 * lesson is one JSON object)". Returns 0, or -1 with *root NULL and err filled: where.at
 * the byte offset + 1 of the problem (status -1; out of memory: status -2, nowhere). */
int json_read(const char *text, size_t len, const char *whole, cJSON **root, struct bl_err *err);

/* json_parse: cJSON's own parse of text (len bytes, a NUL counted when it ends it), the one
 * call of cJSON's parser: json_read's, and that of the recordings and the progress file, whose
 * readers place and word a syntax error themselves (at *end, where cJSON stopped). */
cJSON *json_parse(const char *text, size_t len, const char **end);

/* json_line_col: 1-based line and column of byte off in text (len bytes); columns count
 * characters (UTF-8 code points; a tab is one). */
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
