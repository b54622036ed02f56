/* msg.h: the one table of banklab's messages in English and Chinese (msg.def: one line per
 * message, both languages side by side) and a message kept as its id plus its arguments, so
 * that a lower room (the model, the GPU runner) that never knows the reader's language can
 * fill it and the cli or the ui renders it in either language later. The base room: libc only.
 *
 * A message is filled from the English printf format of its id (bl_msg_set): the arguments
 * are read from the va_list by the conversions of that format and kept (numbers by value,
 * strings copied, cut at BL_MSG_SBUF bytes in all). The Chinese format of an id takes the
 * same conversions in the same order (tests/unit/test_msg.c). A string argument that is the
 * English text of a phrase (an id named PH_*, e.g. "the end of the pattern") is rendered as
 * that phrase's Chinese.
 *
 * A message nested in a message: the conversion %M (banklab's, not printf's) takes a
 * const struct bl_msg * (NULL or BL_MSG_NONE: nothing is shown there). The inner message is
 * copied into the outer's sbuf (packed: its id, its arguments, its own nested messages, at
 * most 32 deep) and rendered in the outer's language where the %M stands, so that a room can
 * hand up one message for a sentence made of others: "the model: %M" around the reader's
 * error (bl_err_msg in err.h), "%M; %M" a list. A nested message that does not fit in sbuf is
 * kept as nothing. As it is (ids as numbers), it crosses a process only to one of the same
 * build (a measuring child, an injected library: bl_msg_sanitize); the serve wire, which may
 * join two builds, carries it by name (bl_msg_inner, bl_msg_nest).
 * Rows with %M are rendered, never read back (bl_msg_parse).
 *
 * A Chinese format may take the arguments in another order with positions, %N$ (gettext's
 * rule: the same conversions, any order), e.g. "block (%2$u,%3$u,%4$u) ... warp %1$d" (the
 * Chinese word order) for "warp %d of block (%u,%u,%u)"; its English format takes them in
 * order, and a row with positions has no '*'. */
#ifndef BANKLAB_BASE_MSG_H
#define BANKLAB_BASE_MSG_H

#include <stdarg.h>
#include <stddef.h>

enum bl_lang { BL_LANG_EN = 0, BL_LANG_ZH = 1 };

enum bl_msg_id {
    BL_MSG_NONE = 0,
#define M(id, en, zh) id,
#include "msg.def"
#undef M
    BL_MSG_COUNT
};

#define BL_MSG_ARGS 16
#define BL_MSG_SBUF 768

struct bl_msg_arg {
    char kind;                    /* 'i' signed, 'u' unsigned, 'f' double, 's' string,
                                     'm' a nested message */
    union {
        long long i;
        unsigned long long u;
        double f;
        unsigned s;               /* offset of the string (or packed message) in sbuf */
    } v;
};

struct bl_msg {
    int id;                       /* BL_MSG_NONE: no message (or one outside the table) */
    int nargs;
    struct bl_msg_arg arg[BL_MSG_ARGS];
    char sbuf[BL_MSG_SBUF];
};

/* bl_msg_format: the printf format of id in lang ("" for an id outside the table).
 * bl_msg_name: the id's name, e.g. "PAT_UNKNOWN_TYPE" (NULL outside the table). */
const char *bl_msg_format(int id, enum bl_lang lang);
const char *bl_msg_name(int id);

/* bl_msg_vset: m (when not NULL) takes id and the arguments ap holds for its English format;
 * en (when not NULL, n bytes) receives the English text, exactly as printf would write it.
 * Returns the length written into en. ap is consumed. */
size_t bl_msg_vset(struct bl_msg *m, char *en, size_t n, int id, va_list ap);
size_t bl_msg_set(struct bl_msg *m, char *en, size_t n, int id, ...);

/* bl_msg_render: m in lang into dst (n bytes, always NUL-terminated when n > 0, cut where it
 * does not fit, never inside a UTF-8 character); "" for BL_MSG_NONE. Returns the length
 * written. */
size_t bl_msg_render(const struct bl_msg *m, enum bl_lang lang, char *dst, size_t n);

/* bl_msg_or_text: what to show for a message m whose English text is en, never reading en
 * back: en itself in English or where m holds no message (text from outside banklab, a
 * recording, an older peer); else m rendered in lang into buf. */
const char *bl_msg_or_text(const struct bl_msg *m, const char *en, enum bl_lang lang, char *buf,
                           size_t n);

/* bl_errno_text: the C library's text of the error number err (strerror) in lang: its PH_E*
 * row of msg.def where it has one (glibc's English text in English), else strerror's. */
const char *bl_errno_text(int err, enum bl_lang lang);

/* bl_phrase: the phrase whose English text is s in lang (s itself when none is, or in
 * English): a PH_* entry, or any message without conversions (a reason given as another
 * message's argument, e.g. "no CUDA driver (libcuda.so.1 not found)"). A text without a
 * letter ("(", ", ") is never one: punctuation given as an argument is the writer's own (a
 * regular expression on the command line). */
const char *bl_phrase(const char *s, enum bl_lang lang);

/* bl_msg_parse: the message of the table whose English format text matches (its arguments
 * read back: %s the shortest text that lets the rest match, numbers as written). Returns 1
 * with m filled, 0 (m empty) when no message matches. For text that only its English holds:
 * a message given as another's argument ("not measured: %s; ..."), a reason kept as text by
 * the part that made it (the counters'). */
int bl_msg_parse(const char *text, struct bl_msg *m);

/* bl_msg_inner: the message nested as argument i of m (%M) into inner: 1, or 0 (inner empty)
 * when argument i is not a whole one. bl_msg_nest: inner packed into m's sbuf from byte at on
 * and made argument i of m: the bytes it takes, 0 (m unchanged) when it does not fit. For a
 * wire that carries a message in parts (the serve wire: by name, rebuilt on the other side). */
int bl_msg_inner(const struct bl_msg *m, int i, struct bl_msg *inner);
size_t bl_msg_nest(struct bl_msg *m, int i, size_t at, const struct bl_msg *inner);

/* bl_msg_sanitize: m as read from another process of this build (the same ids: a measuring
 * child, an injected library): an id outside the table, a count of arguments, a string or a
 * nested message outside sbuf make it BL_MSG_NONE (its English text is all there is). */
void bl_msg_sanitize(struct bl_msg *m);

#endif
