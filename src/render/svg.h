/* svg.h: the bank grid of one warp access as an SVG picture, for slides and handouts.
 * Same information as the screen (lanes per bank and word, passes, broadcast, conflicts,
 * worst bank, summary), readable in black and white (conflicts carry a glyph and hatching,
 * not only colour). Pure C over the model and the base room (shared by cli and ui). */
#ifndef BANKLAB_SVG_H
#define BANKLAB_SVG_H

#include <stdio.h>

#include "../model/bank.h"

struct svg_options {
    const char *title;      /* heading line (e.g. the pattern text), may be NULL; XML-escaped */
    const char *subtitle;   /* second line (e.g. "block 32x8, warp 0, PAD=1"), may be NULL */
    int monochrome;         /* 1: black and white only */
    int lang;               /* its words in English (BL_LANG_EN, 0) or Chinese (BL_LANG_ZH) */
};

/* What svg_emit draws, in one struct, so that a file writer that takes a callback
 * (files_write_atomic) can write the picture. */
struct svg_job {
    const struct bank_result *res;
    unsigned width;
    enum bank_op op;
    const struct svg_options *opt;  /* may be NULL */
};

/* svg_emit: write a complete, well-formed SVG document for job->res (a struct svg_job *job)
 * to f. Returns 0, or -1 when a write failed (errno from stdio). Files are written by the
 * callers (src/cli, src/ui) through files_write_atomic: this room opens no files. */
int svg_emit(FILE *f, void *job);

#endif
