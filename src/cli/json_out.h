/* json_out.h: the string writer of the subcommands' own JSON output (`banklab sim --json`,
 * `banklab kernel --json`); cJSON stays in src/store. */
#ifndef BANKLAB_JSON_OUT_H
#define BANKLAB_JSON_OUT_H

#include <stddef.h>
#include <stdio.h>

/* json_str_n: a JSON string of at most n bytes of s: escapes quotes, backslashes and control
 * characters; invalid UTF-8 (stray bytes, overlong forms, surrogates) becomes '?' so the
 * output parses. */
void json_str_n(FILE *f, const char *s, size_t n);
void json_str(FILE *f, const char *s);   /* the whole of s */

#endif
