/* table.c: a launch's sanitizer table into rows and checked patterns (sanitize.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sanitize.h"

/* The op numbers of enum gpu_kernel_op (src/kernel/kernel.h), kept in step by test_sancost. */
static const int kind_op[] = {
    [SAN_LD] = 0, [SAN_ST] = 1, [SAN_ATOM] = 2, [SAN_LDSM] = 3, [SAN_STSM] = 4, [SAN_CPASYNC] = 5,
};

void san_pattern_access(const struct san_pat *p, struct bank_access *acc)
{
    memset(acc, 0, sizeof *acc);
    acc->width = p->width;
    acc->mask = p->mask;
    acc->op = p->kind == SAN_ST || p->kind == SAN_STSM || p->kind == SAN_ATOM ? BANK_STORE
                                                                               : BANK_LOAD;
    acc->instr = p->kind == SAN_LDSM ? BANK_LDMATRIX : p->kind == SAN_STSM ? BANK_STMATRIX
               : p->kind == SAN_CPASYNC ? BANK_CPASYNC : BANK_PLAIN;
    acc->matrices = (uint8_t)p->matrices;
    acc->has_src = p->kind == SAN_CPASYNC;
    for (int i = 0; i < 32; i++) {
        acc->offset[i] = p->addr[i];
        acc->src[i] = p->src[i];
    }
}

static int by_pc(const void *a, const void *b)
{
    const struct san_row *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void check_pattern(const struct san_pat *p, uint32_t off, struct san_check *chk)
{
    if (!p->key || !p->ready)
        return;
    struct bank_access acc;
    static __thread struct bank_result res;
    san_pattern_access(p, &acc);
    chk->patterns++;
    int bad = bank_simulate(&acc, &res, NULL) != BANK_OK || (uint32_t)res.wavefronts != p->wavefronts;
    if (p->kind == SAN_ATOM && !bad) { /* and with every lane on its own */
        acc.instr = BANK_ATOMIC;
        bad = bank_simulate(&acc, &res, NULL) != BANK_OK ||
              (uint32_t)res.wavefronts != p->wavefronts_alt;
    }
    if (p->kind == SAN_CPASYNC && p->width == 16 && !bad) /* and by .cg's rule */
        bad = bank_cg_wavefronts(&acc, NULL) != (int)p->wavefronts_alt;
    if (bad) {
        if (!chk->mismatch)
            chk->first_pc = off;
        chk->mismatch++;
    }
}

int san_table_rows(const struct san_table *t, uint64_t pc0, uint64_t size, struct san_row *rows,
                   int max, struct san_check *chk)
{
    memset(chk, 0, sizeof *chk);
    int n = 0;
    for (int i = 0; i < SAN_PCS; i++) {
        const struct san_pc *e = &t->pc[i];
        if (!e->pc)
            continue;
        uint64_t pc = e->pc - 1;
        if (pc < pc0 || pc - pc0 >= size) {
            chk->outside += e->inst;
            continue;
        }
        if (n == max)
            break;
        struct san_row *r = &rows[n++];
        r->pc = (uint32_t)(pc - pc0);
        r->op = e->kind < sizeof kind_op / sizeof kind_op[0] ? kind_op[e->kind] : 0;
        r->inst = (double)e->inst;
        r->wavefronts = (double)e->wavefronts;
        r->ideal = (double)e->ideal;
        r->wavefronts_alt = (double)e->wavefronts_alt;
        r->ideal_alt = (double)e->ideal_alt;
        for (int k = 0; k <= SAN_WORST_ALT; k++)
            check_pattern(&e->pat[k], r->pc, chk);
    }
    qsort(rows, (size_t)n, sizeof *rows, by_pc);
    return n;
}

static const char *const kind_name[] = {"ld", "st", "atom", "ldsm", "stsm", "cpasync"};

void san_write_patterns(FILE *f, const char *kernel, long launch, const struct san_table *t,
                        uint64_t pc0, uint64_t size)
{
    for (int i = 0; i < SAN_PCS; i++) {
        const struct san_pc *e = &t->pc[i];
        if (!e->pc || e->pc - 1 < pc0 || e->pc - 1 - pc0 >= size)
            continue;
        for (int k = 0; k <= SAN_WORST_ALT; k++) {
            const struct san_pat *p = &e->pat[k];
            if (!p->key || !p->ready || p->kind > SAN_CPASYNC)
                continue;
            fprintf(f, "%s %ld %#" PRIx64 " ", kernel, launch, e->pc - 1 - pc0);
            if (k == SAN_WORST || k == SAN_WORST_ALT)
                fprintf(f, k == SAN_WORST ? "w" : "x");
            else
                fprintf(f, "%d", k);
            fprintf(f, " %u %u %s %u %u %#x %u %u %u %u", p->count, p->wavefronts,
                    kind_name[p->kind], p->width, p->matrices, p->mask, p->block[0], p->block[1],
                    p->block[2], p->warp);
            for (int l = 0; l < 32; l++)
                fprintf(f, " %x", p->addr[l]);
            if (p->kind == SAN_CPASYNC)
                for (int l = 0; l < 32; l++)
                    fprintf(f, " %x", p->src[l]);
            if (p->kind == SAN_ATOM || (p->kind == SAN_CPASYNC && p->width == 16))
                fprintf(f, " %u", p->wavefronts_alt);
            fputc('\n', f);
        }
    }
    fflush(f);
}
