/* bank.c: the bank model (docs/model.md), measured against an H200.
 * Pure C, no allocation: one call fills one struct bank_result. */
#include "bank.h"

#include <stddef.h>
#include <string.h>

const char *bank_status_str(enum bank_status st)
{
    switch (st) {
    case BANK_OK: return "ok";
    case BANK_EWIDTH: return "access width must be 1, 2, 4, 8 or 16 bytes";
    case BANK_EALIGN: return "offset is not a multiple of the access width";
    }
    return "unknown status";
}

/* Loads of 8 and 16 bytes fuse passes when neighbouring lanes (n^1 or n^2) ask for the same
 * address; the hardware then serves twice as many lanes per pass. Stores never fuse. */
static int pairs_with(const struct bank_access *acc, unsigned partner_xor)
{
    for (unsigned n = 0; n < BANK_LANES; n++) {
        unsigned p = n ^ partner_xor;
        if (!(acc->mask >> n & 1u) || !(acc->mask >> p & 1u))
            continue;
        if (acc->offset[n] != acc->offset[p])
            return 0;
    }
    return 1;
}

/* Adds one requested word to a bank's cell; the cell keeps distinct words only. */
static void cell_add(struct bank_cell *c, uint64_t word, unsigned lane)
{
    for (int i = 0; i < c->nwords; i++) {
        if (c->word[i] == word) {
            c->lanes[i] |= 1u << lane;
            return;
        }
    }
    /* At most 32 distinct words reach one bank in a pass (see BANK_MAX_CELL_WORDS). */
    if (c->nwords < BANK_MAX_CELL_WORDS) {
        c->word[c->nwords] = word;
        c->lanes[c->nwords] = 1u << lane;
        c->nwords++;
    }
}

enum bank_status bank_simulate(const struct bank_access *acc, struct bank_result *res,
                               int *bad_lane)
{
    unsigned w = acc->width;
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
        return BANK_EWIDTH;
    for (unsigned n = 0; n < BANK_LANES; n++) {
        if ((acc->mask >> n & 1u) && acc->offset[n] % w != 0) {
            if (bad_lane)
                *bad_lane = (int)n;
            return BANK_EALIGN;
        }
    }

    memset(res, 0, offsetof(struct bank_result, pass));
    int paired = 0;
    if (acc->op == BANK_LOAD && w >= 8)
        paired = pairs_with(acc, 1) || pairs_with(acc, 2);
    unsigned lanes_per_pass = 32;
    if (w == 8)
        lanes_per_pass = paired ? 32 : 16;
    else if (w == 16)
        lanes_per_pass = paired ? 16 : 8;
    res->paired = paired;
    res->npasses = (int)(BANK_LANES / lanes_per_pass);
    int nwords = w <= 4 ? 1 : (int)(w / BANK_WORD_BYTES);
    /* Reset only what is read: pass headers, and the cell counts of the passes in use (only
     * the first nwords entries of a cell are defined). Clearing the whole 48 KB result cost
     * more than the model itself and kept a full sweep from staying well under 10 ms. */
    for (int i = 0; i < BANK_MAX_PASSES; i++) {
        struct bank_pass *p = &res->pass[i];
        p->lanes = 0;
        p->cost = 0;
        p->worst_bank = -1;
        if (i < res->npasses)
            for (int b = 0; b < BANK_COUNT; b++)
                p->cell[b].nwords = 0;
    }

    for (unsigned n = 0; n < BANK_LANES; n++) {
        struct bank_lane *l = &res->lane[n];
        l->active = (int)(acc->mask >> n & 1u);
        l->offset = acc->offset[n];
        l->pass = (uint8_t)(n / lanes_per_pass);
        l->nwords = nwords;
        uint64_t first = acc->offset[n] / BANK_WORD_BYTES;
        for (int k = 0; k < nwords; k++) {
            l->word[k] = first + (uint64_t)k;
            l->bank[k] = (uint8_t)((first + (uint64_t)k) % BANK_COUNT);
        }
        if (!l->active)
            continue;
        struct bank_pass *p = &res->pass[l->pass];
        p->lanes |= 1u << n;
        for (int k = 0; k < nwords; k++)
            cell_add(&p->cell[l->bank[k]], l->word[k], n);
    }

    for (int i = 0; i < res->npasses; i++) {
        struct bank_pass *p = &res->pass[i];
        if (!p->lanes)
            continue;
        for (int b = 0; b < BANK_COUNT; b++) {
            if (p->cell[b].nwords > p->cost) {
                p->cost = p->cell[b].nwords;
                p->worst_bank = b;
            }
        }
        res->passes++;
        res->wavefronts += p->cost;
        if (p->cost > res->ways)
            res->ways = p->cost;
        /* A lane is in conflict when any bank it uses must serve more than one word. */
        for (int b = 0; b < BANK_COUNT; b++) {
            const struct bank_cell *c = &p->cell[b];
            if (c->nwords > 1)
                for (int j = 0; j < c->nwords; j++)
                    res->conflict_lanes |= c->lanes[j];
        }
    }
    res->conflicts = res->wavefronts - res->passes;
    for (unsigned n = 0; n < BANK_LANES; n++)
        res->lane[n].conflict = (uint8_t)(res->conflict_lanes >> n & 1u);
    return BANK_OK;
}
