/* grid_text.h: the bank grid of one warp access (a struct bank_result) as plain text for
 * `banklab sim` and golden tests: Unicode box drawing or ASCII only, ANSI colour on request.
 * Pure C over the model: no curses (the TUI draws with curses itself but may reuse the
 * layout helpers below: cell classification, lane-set formatting, band geometry). */
#ifndef BANKLAB_GRID_TEXT_H
#define BANKLAB_GRID_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/bank.h"

/* Widths of the text layout, in terminal columns. A bank is one cell of GRID_CELL_COLS
 * (space, lane number in two columns, mark); banks come in groups of 8 between rules; a band
 * holds 16 banks (fits 80 columns) or, when the budget allows it, all 32. */
#define GRID_CELL_COLS 4
#define GRID_LABEL_COLS 6
#define GRID_BAND_COLS(banks) (GRID_LABEL_COLS + 1 + ((banks) / 8) * (8 * GRID_CELL_COLS + 2))
#define GRID_WIDE_COLS GRID_BAND_COLS(32)   /* 143: one band of 32 banks */

/* Mark characters of a cell (ASCII in both glyph sets, so they read the same everywhere). */
#define GRID_MARK_BROADCAST '*'   /* several lanes ask for this word: served once */
#define GRID_MARK_CONFLICT '!'    /* the bank serves more than one word in this pass */
#define GRID_MARK_BOTH '#'        /* a broadcast word in a conflicting bank */
#define GRID_MARK_SAME '='        /* several lanes store to this word: one value is kept */

struct grid_text_options {
    int ascii;      /* 1: ASCII characters only; 0: Unicode box drawing (UTF-8) */
    int color;      /* 1: ANSI colour escapes (the caller decides: TTY, NO_COLOR, --no-color) */
    int cols;       /* column budget; < GRID_WIDE_COLS gives two bands of 16 banks; 0 means 80 */
    int lanes;      /* per-lane table: 1 always, 0 never, -1 when it fits in cols */
    int summary;    /* 1: print the summary lines after the grid */
    int zh;         /* 1: the words in Chinese (src/base/msg.def, GT_*); 0: English */
};

/* What one cell of the grid (pass, bank, row) holds. */
struct grid_cell {
    int used;           /* 0: the bank has no row-th word in this pass (empty cell) */
    uint64_t word;      /* word index (byte address / 4) */
    uint32_t lanes;     /* lanes asking for it, bit n = lane n */
    int nlanes;         /* popcount of lanes */
    int first_lane;     /* lowest lane: the number the cell shows */
    int broadcast;      /* nlanes > 1 of a load (stores do not broadcast: same below) */
    int same;           /* nlanes > 1 of a store or stmatrix: one lane's value is kept */
    int conflict;       /* the bank serves > 1 word in this pass */
    int worst;          /* this bank is the pass's worst bank */
    char mark;          /* ' ', GRID_MARK_BROADCAST, GRID_MARK_CONFLICT, GRID_MARK_BOTH or
                           GRID_MARK_SAME (a store's shared word, in a bank without conflict) */
};

/* grid_text_options_init: ASCII off, colour off, 80 columns, lane table when it fits,
 * summary on. */
void grid_text_options_init(struct grid_text_options *opt);

/* grid_cell_get: classify cell (pass, bank, row) of res; row 0 is the bank's first distinct
 * word in that pass. Out-of-range arguments give an unused cell. Never fails. */
void grid_cell_get(const struct bank_result *res, int pass, int bank, int row,
                   struct grid_cell *out);

/* grid_lanes_str: format a lane set as ranges, e.g. "0-3,8,16-31", or "none" when empty,
 * into buf (always NUL-terminated). Returns the length it needed (like snprintf). */
int grid_lanes_str(uint32_t lanes, char *buf, size_t size);

/* grid_lane_count: how many lanes the set holds. grid_lane_first: its lowest lane, -1 when
 * it is empty. */
static inline int grid_lane_count(uint32_t lanes) { return __builtin_popcount(lanes); }
static inline int grid_lane_first(uint32_t lanes) { return lanes ? __builtin_ctz(lanes) : -1; }

/* grid_banks_per_band: 32 when cols >= GRID_WIDE_COLS, else 16 (cols 0 means 80). */
int grid_banks_per_band(int cols);

/* grid_text_write: write the grid of res (one section per pass with an active lane, the
 * broadcast legend, then the summary and lane table as opt says) to f. width and op are those
 * of the access that produced res. Returns 0, or -1 when a write failed. No allocation. */
int grid_text_write(FILE *f, const struct bank_result *res, unsigned width, enum bank_op op,
                    uint32_t mask, const struct grid_text_options *opt);

#endif
