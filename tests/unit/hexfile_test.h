/* hexfile_test.h: a test's binary reference input kept as text (the .hex files of tests/data/kernel: two
 * hex digits a byte, white space between them ignored), read back into bytes. The cubins of
 * tests/data/kernel are kept so: inputs made on the GPU machine, not outputs of this build. */
#ifndef BANKLAB_HEXFILE_TEST_H
#define BANKLAB_HEXFILE_TEST_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* The bytes of the hex text at path (malloc'd; *n their count), or NULL when it cannot be
 * read or holds anything but hex digits and white space, or an odd number of digits. */
static inline unsigned char *hexfile_read(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    unsigned char *b = malloc(cap);
    int c, hi = -1;
    while (b && (c = fgetc(f)) != EOF) {
        if (isspace(c))
            continue;
        if (!isxdigit(c)) {
            free(b);
            b = NULL;
            break;
        }
        int v = isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
        if (hi < 0) {
            hi = v;
            continue;
        }
        if (len == cap) {
            unsigned char *nb = realloc(b, cap *= 2);
            if (!nb)
                free(b);
            b = nb;
            if (!b)
                break;
        }
        b[len++] = (unsigned char)(hi << 4 | v);
        hi = -1;
    }
    fclose(f);
    if (b && hi >= 0) {
        free(b);
        b = NULL;
    }
    *n = len;
    return b;
}

#endif
