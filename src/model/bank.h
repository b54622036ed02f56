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

/* Which instruction (docs/model.md, "Matrix instructions and cp.async"). A zeroed access is a
 * plain ld/st.shared, so code that knows nothing of the others is unchanged. */
enum bank_instr {
    BANK_PLAIN = 0,      /* ld.shared / st.shared (LDS, STS) of `width` bytes */
    BANK_LDMATRIX = 1,   /* ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 (LDSM) */
    BANK_STMATRIX = 2,   /* stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 (STSM) */
    BANK_CPASYNC = 3,    /* cp.async.ca.shared.global of 4, 8 or 16 bytes (LDGSTS): its shared side */
    BANK_ATOMIC = 4,     /* atom/red on shared of 4 or 8 bytes (ATOMS): each lane's operation is
                            served on its own, the same word from two lanes costs two (measured
                            on an H100: 32 lanes on one word, 32 wavefronts) */
};

/* One warp instruction: what the model takes. */
struct bank_access {
    unsigned width;               /* bytes per lane: 1, 2, 4, 8 or 16 (16 for a matrix row) */
    enum bank_op op;              /* load or store */
    uint32_t mask;                /* active lanes, bit n = lane n */
    uint64_t offset[BANK_LANES];  /* byte offset of each lane; inactive lanes ignored. ldmatrix/
                                     stmatrix: lane 8i+j gives row j of matrix i */
    uint8_t instr;                /* enum bank_instr */
    uint8_t matrices;             /* ldmatrix/stmatrix: 1, 2 or 4 (.x1/.x2/.x4) */
    uint8_t trans;                /* .trans: shown, costs the same (measured) */
    uint8_t has_src;              /* cp.async: 1 when src[] gives the global sources; 0: lane l
                                     reads bytes l*width.. (coalesced: what the pattern language
                                     assumes) */
    uint32_t src[BANK_LANES];     /* cp.async: byte offset of each lane's global source; only
                                     its bank, (src / 4) % 32, matters */
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
    int nwords;                            /* distinct words = the cost of this bank in the pass
                                              (cp.async: every lane's word counts, the same
                                              word twice too);
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
    int npasses;        /* passes the instruction is split into (1, 2 or 4), active or not;
                           ldmatrix/stmatrix: one per 8x8 matrix */
    uint32_t conflict_lanes;            /* lanes marked conflict in lane[] */
    int pass_lanes;     /* lanes per pass: 32, 16 or 8 (a matrix's 8 rows) */
    uint8_t instr, matrices, trans;     /* the access's, for drawing (enum bank_instr) */
    uint8_t op;                         /* the access's enum bank_op: several lanes loading one
                                           word share it (a broadcast); several storing to it
                                           leave one value (no broadcast) */
    struct bank_lane lane[BANK_LANES];
    struct bank_pass pass[BANK_MAX_PASSES];  /* cells defined for pass < npasses only */
};

enum bank_status {
    BANK_OK = 0,
    BANK_EWIDTH = 1,    /* width is not 1, 2, 4, 8 or 16 (16 for ldmatrix/stmatrix, 4/8/16 for
                           cp.async) */
    BANK_EALIGN = 2,    /* an active lane's offset is not a multiple of the width */
    BANK_EMATRIX = 3,   /* ldmatrix/stmatrix with other than 1, 2 or 4 matrices, or an unknown
                           instruction */
    BANK_ESYNC = 4,     /* ldmatrix/stmatrix with a lane missing (.sync.aligned: all 32 execute it) */
};

/* bank_simulate: run one warp instruction through the model.
 * acc: the access (not modified). res: filled completely on BANK_OK; on error its contents
 * are unspecified. On BANK_EALIGN *bad_lane (if not NULL) receives the first misaligned lane,
 * on BANK_ESYNC the first lane missing.
 * Never allocates, never prints; safe to call from any thread. */
enum bank_status bank_simulate(const struct bank_access *acc, struct bank_result *res,
                               int *bad_lane);

/* bank_cg_wavefronts: the wavefronts of cp.async.cg (LDGSTS.BYPASS: the data comes from L2 in
 * 32-byte sectors, not through L1 as .ca's) for a 16-byte access acc whose src[] are the
 * global sources, by the rule 76 measured patterns gave (docs/model.md; the H100's
 * tests/data/cg/h100-cp-async-cg.tsv and the H200's h200-cp-async-more.tsv): a chunk written
 * by several lanes counts once (the first lane's); the chunks fall into groups by (their shared
 * 128-byte row, their source's 128-byte line, the low two bits of chunk position XOR source
 * position within 128 bytes); a group costs one wavefront for each kind of source sector it
 * holds: whole (both 16-byte halves, to one shared sector), only the first half, only the
 * second. Returns -1 for another width or without sources. */
struct bank_cg_detail {
    int chunks;                   /* distinct shared chunks written */
    int groups;                   /* their groups */
    int mixed;                    /* groups that hold source sectors of more than one kind */
    int ideal;                    /* the counters' ideal: the chunks' bytes, 128 a wavefront
                                     (76 of 76 measured patterns; not the passes, as .ca's) */
};
int bank_cg_wavefronts(const struct bank_access *acc, struct bank_cg_detail *d);

/* bank_ideal: the ideal wavefronts the hardware counters give one executed warp instruction
 * whose model result is res: its passes, except a plain store (op BANK_STORE, no matrices),
 * where they count the bytes its active lanes write, 128 a wavefront, rounded up. The two
 * differ only for a store of 8 or 16 bytes a lane whose active lanes are fewer than a full
 * warp and spread over more passes than their bytes need: bitonic_sort.cu's STS.64 of a
 * partial warp, 7085 ideal on an H100 (tests/data/devprogs), where the passes are 7846.
 * src/sanitize/cost.h's san_ideal is the same rule for the device callbacks. */
unsigned bank_ideal(const struct bank_access *acc, const struct bank_result *res);

/* bank_address_lanes: the lanes whose offsets the instruction uses: for ldmatrix/stmatrix
 * lanes 0..8*matrices-1 (the others supply no address), else the active mask. */
uint32_t bank_address_lanes(const struct bank_access *acc);

/* bank_swizzle: CuTe's Swizzle<B,M,S> applied to an offset x: the B bits of x starting at bit
 * M+S are XOR-ed into the B bits starting at bit M, i.e.
 * x ^ ((x & (((1 << B) - 1) << (M + S))) >> S). On byte offsets, Swizzle<3,4,3> XORs the
 * 16-byte chunk (bits 4-6) with the row of a 128-byte-row tile (bits 7-9): TMA's 128-byte
 * swizzle; <2,4,3> and <1,4,3> are its 64- and 32-byte swizzles. Needs 0 <= B <= S and
 * B + M + S <= 63 (bank_swizzle_ok); CuTe's negative S is not modelled. */
static inline uint64_t bank_swizzle(unsigned b, unsigned m, unsigned s, uint64_t x)
{
    uint64_t yyy = ((UINT64_C(1) << b) - 1u) << (m + s);
    return x ^ ((x & yyy) >> s);
}
static inline int bank_swizzle_ok(long long b, long long m, long long s)
{
    return b >= 0 && m >= 0 && s >= b && b + m + s <= 63;
}

/* bank_instr_name: "ldmatrix.x4.trans", "stmatrix.x1", "cp.async16", or "" for a plain access,
 * into buf (always NUL-terminated). Returns buf. */
char *bank_instr_name(unsigned instr, unsigned matrices, unsigned trans, unsigned width,
                      char *buf, unsigned size);

/* bank_instr_parse: the reverse of bank_instr_name ("ldmatrix.x2", "stmatrix.x4.trans",
 * "cp.async8"): fills acc's instr, matrices, trans (and width, op). 0, or -1 when name is
 * none of them. */
int bank_instr_parse(const char *name, struct bank_access *acc);

/* bank_status_str: a static English description of a status. */
const char *bank_status_str(enum bank_status st);

/* bank_of: the bank (0..31) of a byte address. */
static inline unsigned bank_of(uint64_t byte_addr)
{
    return (unsigned)((byte_addr / BANK_WORD_BYTES) % BANK_COUNT);
}

#endif
