/* pattern_text.c: text in and out of the pattern language: the one error helper (pat_fail),
 * the snippets and names that messages quote, and the public text helpers pattern_substitute
 * and pattern_error_caret. The bottom of the pattern files: depends on libc and src/base only,
 * on no other pattern_*.c. */
#include "pattern_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* The one error helper of the pattern language (bl_failmsg's convention: the first failure wins):
 * fills err (when not NULL and still empty) with the message, the place (pos: 0-based byte
 * offset in the text, or -1 when not tied to a place; len: bytes to underline) and the lane.
 * A lane >= 0 prefixes the message with "lane N: ". Returns -1, so that a failing step can
 * `return pat_fail(...)`. */
int pat_fail(struct pattern_error *err, int pos, int len, int lane, int id, ...)
{
    if (!err || err->msg[0])
        return -1;
    size_t k = lane >= 0 ? bl_fmt(err->msg, sizeof err->msg, "lane %d: ", lane) : 0;
    va_list ap;
    va_start(ap, id);
    bl_msg_vset(&err->why, err->msg + k, sizeof err->msg - k, id, ap);
    va_end(ap);
    err->why_lane = lane;
    err->col = pos >= 0 ? pos + 1 : 0;
    err->len = pos >= 0 ? (len > 0 ? len : 1) : 0;
    err->lane = lane;
    return -1;
}

const char *pattern_error_text(const struct pattern_error *err, enum bl_lang lang, char *buf,
                               size_t n)
{
    if (!buf || !n)
        return "";
    if (lang == BL_LANG_EN || err->why.id == BL_MSG_NONE) {
        bl_fmt(buf, n, "%s", err->msg);
        return buf;
    }
    size_t k = err->why_lane >= 0 ? bl_fmt(buf, n, bl_msg_format(PAT_LANE, lang), err->why_lane) : 0;
    bl_msg_render(&err->why, lang, buf + k, n - k);
    return buf;
}

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
        if (is_alpha(c)) {
            size_t j = i;
            while (is_alnum(text[j]))
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
        } else if (is_digit(c)) {
            size_t j = i;
            while (is_alnum(text[j]) || text[j] == '.')
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

char *pattern_error_caret(const char *text, const struct pattern_error *err, char *buf,
                          size_t size)
{
    if (!buf || size == 0)
        return buf;
    buf[0] = 0;
    if (!text || !err)
        return buf;
    size_t n = strlen(text);
    size_t pos = err->col > 0 ? (size_t)err->col - 1 : 0;
    if (pos > n)
        pos = n;
    size_t ls = pos, le = pos;
    while (ls > 0 && text[ls - 1] != '\n')
        ls--;
    while (le < n && text[le] != '\n')
        le++;
    if (err->col <= 0) {
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
    if (err->col > 0) {
        PUT(' ');
        PUT(' ');
        for (size_t k = ls; k < pos; k++) {
            unsigned char c = (unsigned char)text[k];
            if ((c & 0xc0) == 0x80)
                continue; /* a UTF-8 continuation byte takes no column */
            PUT(c == '\t' ? '\t' : ' ');
        }
        size_t len = err->len > 0 ? (size_t)err->len : 1;
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
