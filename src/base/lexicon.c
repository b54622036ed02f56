/* lexicon.c: the word lists of lexicon.def as NULL-terminated arrays (lexicon.h). libc only. */
#include "lexicon.h"

#include <string.h>

#define LEX_WORDS(...) __VA_ARGS__
#define LEX(id, en, zh)                                                                        \
    static const char *const id##_en[] = {LEX_WORDS en NULL};                                  \
    static const char *const id##_zh[] = {LEX_WORDS zh NULL};
#include "lexicon.def"
#undef LEX

static const char *const *const lists[BL_LEX_COUNT][2] = {
#define LEX(id, en, zh) [BL_LEX_##id] = {id##_en, id##_zh},
#include "lexicon.def"
#undef LEX
};

static const char *const none[] = {NULL};

const char *const *bl_lex(enum bl_lex id, enum bl_lang lang)
{
    if ((int)id < 0 || id >= BL_LEX_COUNT)
        return none;
    return lists[id][lang == BL_LANG_ZH];
}

size_t bl_lex_prefix(enum bl_lex id, const char *s)
{
    for (int l = 0; s && l < 2; l++)
        for (const char *const *w = bl_lex(id, (enum bl_lang)l); *w; w++)
            if (!strncmp(s, *w, strlen(*w)))
                return strlen(*w);
    return 0;
}

size_t bl_lex_suffix(enum bl_lex id, const char *s, const char *e)
{
    for (int l = 0; s && e && l < 2; l++)
        for (const char *const *w = bl_lex(id, (enum bl_lang)l); *w; w++) {
            size_t n = strlen(*w);
            if ((size_t)(e - s) >= n && !strncmp(e - n, *w, n))
                return n;
        }
    return 0;
}

/* the code point of the one character w is, or -1 (not one well-formed UTF-8 character) */
static long one_char(const char *w)
{
    const unsigned char *u = (const unsigned char *)w;
    int n = u[0] < 0x80 ? 1 : (u[0] & 0xe0) == 0xc0 ? 2 : (u[0] & 0xf0) == 0xe0 ? 3
                                                     : (u[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (!n || !u[0])
        return -1;
    long cp = n == 1 ? u[0] : u[0] & (0x7f >> n);
    for (int i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return -1;
        cp = cp << 6 | (u[i] & 0x3f);
    }
    return u[n] ? -1 : cp;
}

int bl_lex_has_char(enum bl_lex id, unsigned long cp)
{
    for (int l = 0; l < 2; l++)
        for (const char *const *w = bl_lex(id, (enum bl_lang)l); *w; w++)
            if (one_char(*w) == (long)cp)
                return 1;
    return 0;
}
