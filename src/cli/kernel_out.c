/* kernel_out.c: the figures of a measured kernel, as banklab kernel and banklab run print
 * them (kernel_out.h). */
#include "kernel_out.h"
#include "../kernel/kernel.h"
#include "../store/json_write.h"

#include <stdlib.h>
#include <string.h>

#include "../base/wrap.h"
#include "../base/fmt.h"
#include "cli.h"
#include "../base/utf8.h"

int kout_lines(const char *s, size_t n, struct text_lines *t)
{
    int cap = 64;
    t->n = 0;
    t->at = malloc((size_t)cap * sizeof *t->at);
    t->len = malloc((size_t)cap * sizeof *t->len);
    if (!t->at || !t->len)
        return -1;
    const char *p = s, *end = s + n;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (t->n == cap) {
            cap *= 2;
            const char **w = realloc(t->at, (size_t)cap * sizeof *w);
            int *l = w ? realloc(t->len, (size_t)cap * sizeof *l) : NULL;
            if (w)
                t->at = w;
            if (!l)
                return -1;
            t->len = l;
        }
        int ln = (int)(e - p);
        if (ln && p[ln - 1] == '\r')
            ln--;
        t->at[t->n] = p;
        t->len[t->n++] = ln;
        p = e + 1;
    }
    return 0;
}

void kout_lines_free(struct text_lines *t)
{
    free(t->at);
    free(t->len);
    memset(t, 0, sizeof *t);
}

void kout_source(FILE *f, const char *s, int n)
{
    int col = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] == '\t') {
            do
                fputc(' ', f);
            while (++col % 8);
        } else {
            size_t k = 1;  /* one character; a control character or a bad byte: '?' */
            while (i + (int)k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80 && k < 4)
                k++;
            char c[5];
            memcpy(c, s + i, k);
            c[k] = 0;
            fputs(bl_mask(c, k), f);
            i += (int)k - 1;
            col++;
        }
    }
}

void kout_figures(FILE *f, double inst, double wf, int ideal_known, double ideal)
{
    fprintf(f, " %11.0f %12.0f", inst, wf);
    if (ideal_known)
        fprintf(f, " %11.0f %11.0f %7.2f", ideal, wf - ideal, ideal > 0 ? wf / ideal : 0);
    else
        fprintf(f, " %11s %11s %7s", "-", "-", "-");
}



void kout_warp_json(struct jw *w, const struct gpu_kernel_pattern *q, double of)
{
    jw_obj(w, NULL);
    jw_int(w, "pc", q->pc);
    jw_str(w, "kind", q->slot < 0 ? "worst" : "pattern");
    jw_int(w, "warps", q->count);
    jw_numf(w, "of", "%.17g", of);
    jw_int(w, "wavefronts", q->wavefronts);
    jw_str(w, "op", gpu_kernel_op_name(q->op));
    jw_int(w, "width", q->width);
    jw_int(w, "matrices", q->matrices);
    char mask[16];
    bl_fmt(mask, sizeof mask, "%08x", q->mask);
    jw_str(w, "mask", mask);
    jw_uints(w, "block", (const unsigned *)q->block, 3);
    jw_int(w, "warp", q->warp);
    jw_uints(w, "offsets", (const unsigned *)q->addr, 32);
    if (q->op == GPU_KOP_LDGSTS) /* cp.async: its global sources' low bits (.cg's price reads them) */
        jw_uints(w, "sources", (const unsigned *)q->src, 32);
    jw_end(w);
}

void kout_pad(FILE *f, const char *t, int w)
{
    int tw = bl_cols(t);
    fprintf(f, "%*s%s", tw < w ? w - tw : 0, "", t);
}

void kout_head(FILE *f, const int *ids, const int *w, int n, int last)
{
    for (int c = 0; c < n; c++) {
        if (c)
            fputc(' ', f);
        kout_pad(f, cli_msg(ids[c]), w[c]);
    }
    fprintf(f, " | %s\n", cli_msg(last));
}
