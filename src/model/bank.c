/* bank.c: the bank model (docs/model.md), measured against an H200: plain loads and stores
 * (tests/data/h200-wavefronts.json), ldmatrix, stmatrix and cp.async (tests/data/h200-matrix.json).
 * Pure C, no allocation: one call fills one struct bank_result. */
#include "bank.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *bank_status_str(enum bank_status st)
{
    switch (st) {
    case BANK_OK: return "ok";
    case BANK_EWIDTH: return "access width must be 1, 2, 4, 8 or 16 bytes (ldmatrix/stmatrix: a "
                             "16-byte row; cp.async: 4, 8 or 16)";
    case BANK_EALIGN: return "offset is not a multiple of the access width";
    case BANK_EMATRIX: return "ldmatrix/stmatrix take .x1, .x2 or .x4";
    case BANK_ESYNC: return "ldmatrix/stmatrix are .sync.aligned: all 32 lanes of the warp must "
                            "execute them";
    }
    return "unknown status";
}

char *bank_instr_name(unsigned instr, unsigned matrices, unsigned trans, unsigned width,
                      char *buf, unsigned size)
{
    if (!size)
        return buf;
    if (instr == BANK_LDMATRIX || instr == BANK_STMATRIX)
        snprintf(buf, size, "%s.x%u%s", instr == BANK_LDMATRIX ? "ldmatrix" : "stmatrix",
                 matrices, trans ? ".trans" : "");
    else if (instr == BANK_CPASYNC)
        snprintf(buf, size, "cp.async%u", width);
    else if (instr == BANK_ATOMIC)
        snprintf(buf, size, "atom%u", width);
    else
        buf[0] = 0;
    return buf;
}

int bank_instr_parse(const char *name, struct bank_access *acc)
{
    int ld = !strncmp(name, "ldmatrix.x", 10), st = !strncmp(name, "stmatrix.x", 10);
    if (ld || st) {
        char x = name[10];
        if ((x != '1' && x != '2' && x != '4') || (name[11] && strcmp(name + 11, ".trans")))
            return -1;
        acc->instr = ld ? BANK_LDMATRIX : BANK_STMATRIX;
        acc->matrices = (uint8_t)(x - '0');
        acc->trans = name[11] != 0;
        acc->width = 16;
        acc->op = ld ? BANK_LOAD : BANK_STORE;
        return 0;
    }
    if (!strcmp(name, "atom4") || !strcmp(name, "atom8")) {
        acc->instr = BANK_ATOMIC;
        acc->matrices = 0;
        acc->trans = 0;
        acc->width = name[4] == '4' ? 4 : 8;
        acc->op = BANK_STORE;
        return 0;
    }
    if (!strcmp(name, "cp.async4") || !strcmp(name, "cp.async8") || !strcmp(name, "cp.async16")) {
        acc->instr = BANK_CPASYNC;
        acc->matrices = 0;
        acc->trans = 0;
        acc->width = name[8] == '4' ? 4 : name[8] == '8' ? 8 : 16;
        acc->op = BANK_STORE;
        return 0;
    }
    return -1;
}

uint32_t bank_address_lanes(const struct bank_access *acc)
{
    if (acc->instr == BANK_LDMATRIX || acc->instr == BANK_STMATRIX)
        return acc->matrices >= 4 ? 0xffffffffu : (1u << (8u * acc->matrices)) - 1u;
    return acc->mask;
}

/* The instruction's own checks and its passes: lanes per pass, or 0 with *st set. */
static unsigned instr_passes(const struct bank_access *acc, enum bank_status *st)
{
    unsigned w = acc->width;
    *st = BANK_OK;
    switch (acc->instr) {
    case BANK_PLAIN:
        if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
            *st = BANK_EWIDTH;
        return w == 16 ? 8 : w == 8 ? 16 : 32;
    case BANK_LDMATRIX:
    case BANK_STMATRIX:
        /* one phase per 8x8 matrix: lanes 8i..8i+7 give its eight 16-byte rows */
        if (w != 16)
            *st = BANK_EWIDTH;
        else if (acc->matrices != 1 && acc->matrices != 2 && acc->matrices != 4)
            *st = BANK_EMATRIX;
        else if (acc->mask != 0xffffffffu)
            *st = BANK_ESYNC;
        return 8;
    case BANK_ATOMIC:
        /* one pass of 32 lanes (4 bytes) or two of 16 (8 bytes), as a store of that width */
        if (w != 4 && w != 8)
            *st = BANK_EWIDTH;
        return w == 8 ? 16 : 32;
    case BANK_CPASYNC:
        /* the shared side is written like a store of that width */
        if (w != 4 && w != 8 && w != 16)
            *st = BANK_EWIDTH;
        return w == 16 ? 8 : w == 8 ? 16 : 32;
    }
    *st = BANK_EMATRIX;
    return 0;
}

int bank_cg_wavefronts(const struct bank_access *acc, struct bank_cg_detail *d)
{
    struct bank_cg_detail none;
    if (!d)
        d = &none;
    memset(d, 0, sizeof *d);
    if (acc->width != 16 || !acc->has_src)
        return -1;
    /* the writes that count: one per chunk, the first lane's */
    int keep[BANK_LANES], n = 0;
    for (int l = 0; l < BANK_LANES; l++) {
        if (!(acc->mask >> l & 1u))
            continue;
        int k = 0;
        while (k < n && acc->offset[keep[k]] / 16 != acc->offset[l] / 16)
            k++;
        if (k == n)
            keep[n++] = l;
    }
#define CG_X(i) ((unsigned)((acc->offset[i] / 16 ^ acc->src[i] / 16) & 3))
#define CG_SAME(i, j) (acc->offset[i] / 128 == acc->offset[j] / 128 && \
                       acc->src[i] / 128 == acc->src[j] / 128 && CG_X(i) == CG_X(j))
    int done[BANK_LANES] = {0}, wavefronts = 0;
    for (int i = 0; i < n; i++) {
        if (done[i])
            continue;
        int kind[3] = {0, 0, 0}; /* a whole source sector, its first half alone, its second */
        for (int j = i; j < n; j++) {
            const int b = keep[j];
            if (done[j] || !CG_SAME(keep[i], b))
                continue;
            done[j] = 1;
            /* the sector's other half in the group, going to the same shared sector? */
            int whole = 0;
            for (int k = i; k < n && !whole; k++) {
                const int o = keep[k];
                whole = o != b && acc->src[o] / 32 == acc->src[b] / 32 && CG_SAME(o, b) &&
                        acc->offset[o] / 32 == acc->offset[b] / 32;
            }
            kind[whole ? 0 : 1 + (acc->src[b] / 16 & 1)] = 1;
        }
        wavefronts += kind[0] + kind[1] + kind[2];
        d->groups++;
        d->mixed += kind[0] + kind[1] + kind[2] > 1;
    }
    d->chunks = n;
    d->ideal = (n * 16 + 127) / 128;
#undef CG_SAME
#undef CG_X
    return wavefronts;
}

/* cp.async: a pass moves each lane's words from the source's banks (global byte offset / 4
 * % 32, as the data comes from L1) to the shared banks; one wavefront takes each bank once on
 * either side, so the pass costs the most words one bank gives or takes (measured on the H200:
 * 32 lanes reading one source word write 32 wavefronts into 32 different banks). */
static int cp_async_cost(const struct bank_access *acc, const struct bank_result *res, int pass)
{
    uint8_t src[BANK_COUNT] = {0}, dst[BANK_COUNT] = {0};
    int worst = 0;
    uint32_t lanes = res->pass[pass].lanes;
    for (unsigned n = 0; n < BANK_LANES; n++) {
        if (!(lanes >> n & 1u))
            continue;
        const struct bank_lane *l = &res->lane[n];
        uint64_t s0 = acc->has_src ? acc->src[n] / BANK_WORD_BYTES
                                   : (uint64_t)n * acc->width / BANK_WORD_BYTES;
        for (int k = 0; k < l->nwords; k++) {
            unsigned sb = (unsigned)((s0 + (uint64_t)k) % BANK_COUNT);
            if (++src[sb] > worst)
                worst = src[sb];
            if (++dst[l->bank[k]] > worst)
                worst = dst[l->bank[k]];
        }
    }
    return worst;
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

/* Adds a word to a bank's cell as a new one (cp.async: the same word from two lanes is two
 * writes). */
static void add_new_word(struct bank_cell *c, uint64_t word, unsigned lane)
{
    if (c->nwords < BANK_MAX_CELL_WORDS) {
        c->word[c->nwords] = word;
        c->lanes[c->nwords] = 1u << lane;
        c->nwords++;
    }
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
    add_new_word(c, word, lane);
}

enum bank_status bank_simulate(const struct bank_access *acc, struct bank_result *res,
                               int *bad_lane)
{
    unsigned w = acc->width;
    enum bank_status st;
    unsigned lanes_per_pass = instr_passes(acc, &st);
    if (st == BANK_ESYNC && bad_lane)
        *bad_lane = __builtin_ctz(~acc->mask); /* the first lane missing */
    if (st != BANK_OK)
        return st;
    uint32_t used = bank_address_lanes(acc);
    for (unsigned n = 0; n < BANK_LANES; n++) {
        if ((used >> n & 1u) && acc->offset[n] % w != 0) {
            if (bad_lane)
                *bad_lane = (int)n;
            return BANK_EALIGN;
        }
    }

    memset(res, 0, offsetof(struct bank_result, pass));
    int paired = 0;
    if (acc->instr == BANK_PLAIN && acc->op == BANK_LOAD && w >= 8)
        paired = pairs_with(acc, 1) || pairs_with(acc, 2);
    if (paired)
        lanes_per_pass *= 2;
    res->paired = paired;
    res->pass_lanes = (int)lanes_per_pass;
    res->instr = acc->instr;
    res->op = (uint8_t)acc->op;
    res->matrices = acc->matrices;
    res->trans = acc->trans;
    res->npasses = (int)(BANK_LANES / lanes_per_pass);
    if (acc->instr == BANK_LDMATRIX || acc->instr == BANK_STMATRIX)
        res->npasses = acc->matrices;
    void (*add)(struct bank_cell *, uint64_t, unsigned) =
        acc->instr == BANK_CPASYNC || acc->instr == BANK_ATOMIC ? add_new_word : cell_add;
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
        l->active = (int)(used >> n & 1u);
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
            add(&p->cell[l->bank[k]], l->word[k], n);
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
        if (acc->instr == BANK_CPASYNC)
            p->cost = cp_async_cost(acc, res, i);
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

unsigned bank_ideal(const struct bank_access *acc, const struct bank_result *res)
{
    if (acc->op != BANK_STORE || acc->instr != BANK_PLAIN || acc->width > 16)
        return (unsigned)res->passes;
    unsigned bytes = (unsigned)__builtin_popcount(acc->mask) * acc->width;
    return (bytes + 127u) / 128u;
}
