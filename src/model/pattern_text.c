/* pattern_text.c: text in and out of the pattern language: the snippets and names that messages quote, and the public text helpers pattern_substitute
 * and pattern_error_caret. The bottom of the pattern files: depends on libc and src/base only,
 * on no other pattern_*.c. */
#include "pattern_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* Copies text[pos..end) into buf for a message, shortened with "..." when long. */
const char *pat_snip(const char *text, size_t text_len, int pos, int end, char *buf,
                     size_t size)
{
    if (pos < 0 || end < pos || (size_t)end > text_len) {
        buf[0] = 0;
        return buf;
    }
    size_t n = (size_t)(end - pos);
    if (n + 1 > size) {
        size_t keep = size - 4;
        memcpy(buf, text + pos, keep);
        memcpy(buf + keep, "...", 4);
    } else {
        memcpy(buf, text + pos, n);
        buf[n] = 0;
    }
    for (char *c = buf; *c; c++)
        if (*c == '\n' || *c == '\t' || *c == '\r')
            *c = ' ';
    return buf;
}

/* strlen bounded by max (strnlen is POSIX, not C11). */
size_t pat_bounded_len(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n])
        n++;
    return n;
}

/* Copies a name into a PATTERN_NAME_MAX buffer, truncating. */
void pat_copy_name(char *dst, const char *src)
{
    size_t l = pat_bounded_len(src, PATTERN_NAME_MAX - 1);
    memmove(dst, src, l);
    dst[l] = 0;
}

int pattern_substitute(const char *text, const struct pattern_env *env, char *buf, size_t size)
{
    if (!buf || size == 0)
        return -1;
    buf[0] = 0;
    if (!text || !env)
        return -1;
    size_t o = 0, i = 0;
    int fit = 1;
    int nenv = env->nparams < 0 ? 0 : env->nparams > PATTERN_MAX_PARAMS ? PATTERN_MAX_PARAMS
                                                                         : env->nparams;
    while (text[i]) {
        const char *rep = NULL;
        size_t rep_len = 0, tok_len = 1;
        char num[32];
        unsigned char c = (unsigned char)text[i];
        if (clex_alpha(c)) {
            size_t j = i;
            while (clex_alnum(text[j]))
                j++;
            tok_len = j - i;
            int member = 0;
            for (size_t k = i; k > 0; k--) {
                char pc = text[k - 1];
                if (pc == ' ' || pc == '\t')
                    continue;
                member = pc == '.' || (pc == '>' && k >= 2 && text[k - 2] == '-');
                break;
            }
            if (!member)
                for (int k = 0; k < nenv; k++)
                    if (pat_bounded_len(env->param[k].name, PATTERN_NAME_MAX) == tok_len &&
                        memcmp(env->param[k].name, text + i, tok_len) == 0) {
                        bl_fmt(num, sizeof num, "%lld", env->param[k].value);
                        rep = num;
                        rep_len = strlen(num);
                        break;
                    }
        } else if (clex_digit(c)) {
            size_t j = i;
            while (clex_alnum(text[j]) || text[j] == '.')
                j++;
            tok_len = j - i;
        }
        const char *src = rep ? rep : text + i;
        size_t len = rep ? rep_len : tok_len;
        for (size_t k = 0; k < len; k++) {
            if (o + 1 < size)
                buf[o++] = src[k];
            else
                fit = 0;
        }
        i += tok_len;
    }
    buf[o] = 0;
    if (!fit || o > INT_MAX)
        return -1;
    return (int)o;
}

char *pattern_error_caret(const char *text, const struct bl_err *err, char *buf,
                          size_t size)
{
    if (!buf || size == 0)
        return buf;
    buf[0] = 0;
    if (!text || !err)
        return buf;
    size_t n = strlen(text);
    size_t pos = err->where.at > 0 ? (size_t)err->where.at - 1 : 0;
    if (pos > n)
        pos = n;
    size_t ls = pos, le = pos;
    while (ls > 0 && text[ls - 1] != '\n')
        ls--;
    while (le < n && text[le] != '\n')
        le++;
    if (err->where.at <= 0) {
        ls = 0;
        le = 0;
        while (le < n && text[le] != '\n')
            le++;
    }
    size_t o = 0;
#define PUT(ch) do { if (o + 1 < size) buf[o++] = (char)(ch); } while (0)
    PUT(' ');
    PUT(' ');
    for (size_t k = ls; k < le; k++)
        PUT(text[k] == '\r' ? ' ' : text[k]);
    PUT('\n');
    if (err->where.at > 0) {
        PUT(' ');
        PUT(' ');
        for (size_t k = ls; k < pos; k++) {
            unsigned char c = (unsigned char)text[k];
            if ((c & 0xc0) == 0x80)
                continue; /* a UTF-8 continuation byte takes no column */
            PUT(c == '\t' ? '\t' : ' ');
        }
        size_t len = err->where.len > 0 ? (size_t)err->where.len : 1;
        if (pos + len > le)
            len = le > pos ? le - pos : 1;
        PUT('^');
        for (size_t k = 1; k < len; k++)
            PUT('~');
        PUT('\n');
    }
#undef PUT
    buf[o] = 0;
    return buf;
}
