/* kernel_out.h: what banklab kernel (kernel.c, kernel_model.c) and banklab run (run.c) print
 * alike: the lines of a source text, a source line on the terminal, a line's figures (inst,
 * wavefronts, ideal, excess, ways) as text columns and as JSON fields. */
#ifndef BANKLAB_CLI_KERNEL_OUT_H
#define BANKLAB_CLI_KERNEL_OUT_H

#include <stddef.h>
#include <stdio.h>

/* The lines of a text: pointers into it (not NUL-terminated: use len; a '\r' before the
 * newline is left out). */
struct text_lines {
    const char **at;
    int *len;
    int n;
};

/* kout_lines: the lines of s (n bytes) into t (kout_lines_free it). 0, or -1 out of memory
 * (t holds the lines found so far). */
int kout_lines(const char *s, size_t n, struct text_lines *t);
void kout_lines_free(struct text_lines *t);

/* kout_source: n bytes of a source line, tabs to stops of 8 columns, a control character or
 * a bad byte as '?' (the columns stay those of the file). */
void kout_source(FILE *f, const char *s, int n);

/* kout_figures: " inst wavefronts ideal excess ways" in the columns of the tables (excess =
 * wavefronts - ideal, ways = wavefronts / ideal; '-' for the three when ideal is unknown). */
void kout_figures(FILE *f, double inst, double wf, int ideal_known, double ideal);

/* kout_pad: t right-aligned to w display columns (a CJK character takes two) */
void kout_pad(FILE *f, const char *t, int w);

/* kout_head: the table's header: n column titles (messages of msg.def, in the reader's
 * language) right-aligned to widths w (display columns), then " | " and the title last */
void kout_head(FILE *f, const int *ids, const int *w, int n, int last);

/* kout_warp_json: one kept warp as the object both `banklab kernel --json` (the executor's
 * warps, under each line) and `banklab run --json` (the sanitizer route's, under each line
 * and per launch) write: pc, kind ("worst" or "pattern"), warps (with this pattern), of (the
 * warp executions of its instruction), wavefronts, op, width, matrices, mask, block, warp,
 * offsets. */
struct jw;
struct gpu_kernel_pattern;
void kout_warp_json(struct jw *w, const struct gpu_kernel_pattern *q, double of);

#endif
