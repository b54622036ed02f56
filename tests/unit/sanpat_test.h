/* sanpat_test.h: the sanitizer route's pattern lines read back (san_read_pattern), for the
 * tests that replay them: the lines san_write_patterns (src/sanitize/table.c) writes to
 * BANKLAB_RUN_DIR/patterns or BANKLAB_SANITIZE_PATTERNS, and the recordings of
 * tests/data/sanitize. banklab itself never reads them back; test_sancost checks that this
 * reader takes what the writer writes. */
#ifndef BANKLAB_SANPAT_TEST_H
#define BANKLAB_SANPAT_TEST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/sanitize/sanitize.h"

/* The next blank-separated word of *s as an unsigned number in base; -1 when none. */
static inline int sanpat_word(const char **s, int base, unsigned long long *v)
{
    const char *p = *s;
    while (*p == ' ')
        p++;
    if (!*p || *p == '\n')
        return -1;
    char *end;
    *v = strtoull(p, &end, base);
    if (end == p || (*end && *end != ' ' && *end != '\n'))
        return -1;
    *s = end;
    return 0;
}

/* san_read_pattern: one line of san_write_patterns' (sanitize.h) back into *p (with *launch,
 * *pc, *slot: -1 for "w", the worst; -2 for "x", the worst by the other rule). 0, or -1 when
 * the line is not one. kernel receives the name (n
 * bytes). */
static inline int san_read_pattern(const char *line, char *kernel, size_t n, long *launch,
                                   uint32_t *pc, int *slot, struct san_pat *p)
{
    memset(p, 0, sizeof *p);
    const char *s = strchr(line, ' ');
    if (!s || (size_t)(s - line) >= n)
        return -1;
    memcpy(kernel, line, (size_t)(s - line));
    kernel[s - line] = 0;
    unsigned long long v[16];
    if (sanpat_word(&s, 10, &v[0]) || sanpat_word(&s, 16, &v[1]))
        return -1;
    while (*s == ' ')
        s++;
    if (*s == 'w' || *s == 'x') {   /* the worst, by the first rule or the other */
        *slot = *s == 'w' ? -1 : -2;
        s++;
    } else {
        unsigned long long k;
        if (sanpat_word(&s, 10, &k) || k >= SAN_PATS)
            return -1;
        *slot = (int)k;
    }
    if (sanpat_word(&s, 10, &v[2]) || sanpat_word(&s, 10, &v[3]))
        return -1;
    while (*s == ' ')
        s++;
    static const char *const kind_name[] = {"ld", "st", "atom", "ldsm", "stsm", "cpasync"};
    int kind = -1;
    for (int k = 0; k <= SAN_CPASYNC; k++) {
        size_t l = strlen(kind_name[k]);
        if (!strncmp(s, kind_name[k], l) && s[l] == ' ') {
            kind = k;
            s += l;
        }
    }
    if (kind < 0)
        return -1;
    for (int i = 4; i < 11; i++)
        if (sanpat_word(&s, i == 6 ? 16 : 10, &v[i]))
            return -1;
    *launch = (long)v[0];
    *pc = (uint32_t)v[1];
    p->count = (uint32_t)v[2];
    p->wavefronts = (uint32_t)v[3];
    p->kind = (uint32_t)kind;
    p->width = (uint32_t)v[4];
    p->matrices = (uint32_t)v[5];
    p->mask = (uint32_t)v[6];
    p->block[0] = (uint32_t)v[7], p->block[1] = (uint32_t)v[8], p->block[2] = (uint32_t)v[9];
    p->warp = (uint32_t)v[10];
    for (int l = 0; l < 32; l++) {
        unsigned long long a;
        if (sanpat_word(&s, 16, &a))
            return -1;
        p->addr[l] = (uint32_t)a;
    }
    if (kind == SAN_CPASYNC)
        for (int l = 0; l < 32; l++) {
            unsigned long long a;
            if (sanpat_word(&s, 16, &a))
                return -1;
            p->src[l] = (uint32_t)a;
        }
    unsigned long long alt; /* recordings before it lack it */
    if ((kind == SAN_ATOM || (kind == SAN_CPASYNC && p->width == 16)) && !sanpat_word(&s, 10, &alt))
        p->wavefronts_alt = (uint32_t)alt;
    p->key = 1;
    p->ready = 1;
    return 0;
}

#endif
