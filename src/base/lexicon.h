/* lexicon.h: banklab's word lists for reading prose (lexicon.def: a row a list, its English
 * and its Chinese words), data, not words banklab says. The base room: libc only. */
#ifndef BANKLAB_BASE_LEXICON_H
#define BANKLAB_BASE_LEXICON_H

#include "msg.h"

enum bl_lex {
#define LEX(id, en, zh) BL_LEX_##id,
#include "lexicon.def"
#undef LEX
    BL_LEX_COUNT
};

/* bl_lex: the words of list id in lang, NULL-terminated (an empty list: {NULL}); an id out of
 * range: the empty list. */
const char *const *bl_lex(enum bl_lex id, enum bl_lang lang);

/* bl_lex_prefix: the length of the word of list id (either language) that s starts with, the
 * first one found (English first); 0 when none. */
size_t bl_lex_prefix(enum bl_lex id, const char *s);

/* bl_lex_suffix: the length of the word of list id (either language) that the text s ends
 * with at e (s <= e), the first one found; 0 when none. */
size_t bl_lex_suffix(enum bl_lex id, const char *s, const char *e);

/* bl_lex_has_char: 1 when one of the words of list id (either language) is exactly the one
 * character cp (a Unicode code point; the words are UTF-8). */
int bl_lex_has_char(enum bl_lex id, unsigned long cp);

#endif
