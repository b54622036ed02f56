/* bank.h: the shared-memory bank model of one warp instruction.
 * Reproduces the wavefronts and conflicts that an H200's counters report (tests/data).
 * Pure C: depends on libc only (no curses, no CUDA, no cJSON). */
#ifndef BANKLAB_BANK_H
#define BANKLAB_BANK_H

#include <stdint.h>

#define BANK_LANES 32           /* lanes in a warp */
#define BANK_COUNT 32           /* banks per SM */
#define BANK_WORD_BYTES 4       /* bytes per bank word */
#define BANK_MAX_PASSES 4       /* 16-byte accesses without pairing */
#define BANK_MAX_LANE_WORDS 4   /* a 16-byte access touches 4 words */
#define BANK_MAX_CELL_WORDS 32  /* distinct words one bank can be asked for in one pass */

enum bank_op { BANK_LOAD = 0, BANK_STORE = 1 };

/* One warp instruction: what the model takes. */
struct bank_access {
    unsigned width;               /* bytes per lane: 1, 2, 4, 8 or 16 */
    enum bank_op op;              /* load or store */
    uint32_t mask;                /* active lanes, bit n = lane n */
    uint64_t offset[BANK_LANES];  /* byte offset of each lane; inactive lanes ignored */
};

struct bank_lane {
    int active;                           /* 1 when the lane takes part */
    uint64_t offset;                      /* byte offset (copied from the access) */
    int nwords;                           /* 4-byte words touched: 1 for width <= 4, width/4 else */
    uint64_t word[BANK_MAX_LANE_WORDS];   /* word index = byte address / 4 */
    uint8_t bank[BANK_MAX_LANE_WORDS];    /* bank of each word */
    uint8_t pass;                         /* pass (0-based) the lane is served in */
    uint8_t conflict;                     /* 1 when a bank it uses must serve >1 word in its pass */
};

/* What one bank serves in one pass: the distinct words and who asked for each. */
struct bank_cell {
    int nwords;                            /* distinct words = the cost of this bank in the pass;
                                              only word[0..nwords-1] and lanes[..] are defined */
    uint64_t word[BANK_MAX_CELL_WORDS];    /* in order of first request (lowest lane first) */
    uint32_t lanes[BANK_MAX_CELL_WORDS];   /* lanes behind each word (bit n = lane n) */
};

struct bank_pass {
    uint32_t lanes;                        /* lanes served in this pass (active only) */
    int cost;                              /* wavefronts of this pass: max nwords over banks */
    int worst_bank;                        /* lowest-numbered bank with nwords == cost, -1 if idle */
    struct bank_cell cell[BANK_COUNT];
};

struct bank_result {
    int wavefronts;     /* sum of pass costs: the hardware's wavefront count */
    int passes;         /* passes with at least one active lane */
    int conflicts;      /* wavefronts - passes: the hardware's bank-conflict count */
    int ways;           /* largest pass cost ("n-way conflict"); 0 with no active lane */
    int paired;         /* 1 when 8/16-byte load passes fused (pairing rule) */
    int npasses;        /* passes the instruction is split into (1, 2 or 4), active or not */
    uint32_t conflict_lanes;            /* lanes marked conflict in lane[] */
    struct bank_lane lane[BANK_LANES];
    struct bank_pass pass[BANK_MAX_PASSES];  /* cells defined for pass < npasses only */
};

enum bank_status {
    BANK_OK = 0,
    BANK_EWIDTH = 1,    /* width is not 1, 2, 4, 8 or 16 */
    BANK_EALIGN = 2,    /* an active lane's offset is not a multiple of the width */
};

/* bank_simulate: run one warp instruction through the model.
 * acc: the access (not modified). res: filled completely on BANK_OK; on error its contents
 * are unspecified. On BANK_EALIGN *bad_lane (if not NULL) receives the first misaligned lane.
 * Never allocates, never prints; safe to call from any thread. */
enum bank_status bank_simulate(const struct bank_access *acc, struct bank_result *res,
                               int *bad_lane);

/* bank_status_str: a static English description of a status. */
const char *bank_status_str(enum bank_status st);

/* bank_of: the bank (0..31) of a byte address. */
static inline unsigned bank_of(uint64_t byte_addr)
{
    return (unsigned)((byte_addr / BANK_WORD_BYTES) % BANK_COUNT);
}

#endif
