/* ptext.h: the text the model translates one line from (ptext.c), for predict.c alone. */
#ifndef BANKLAB_PREDICT_PTEXT_H
#define BANKLAB_PREDICT_PTEXT_H

#include <stddef.h>

/* kptext_read: read the statements of the kernel body on lines [first, last] of src (kept
 * until kptext_free or the next read); kptext_for: the text to translate line `line` from (a
 * copy with what cannot matter to it blanked, lines kept; src itself outside the body or when
 * the reading failed). */
void kptext_read(const char *src, size_t len, int first, int last);
const char *kptext_for(int line);
void kptext_free(void);

#endif
