/* ptx_internal.h: the parsed module (ptx_parse.c, ptx_decode.c) as the executor
 * (ptx_exec.c, ptx_ops.c, ptx_mem.c) reads it: per kernel, one array of pre-decoded
 * instructions whose operands are register slots, immediates or resolved addresses, so the
 * inner loop never looks at text. */
#ifndef BANKLAB_PTX_INTERNAL_H
#define BANKLAB_PTX_INTERNAL_H

#include <stdint.h>

#include "ptx.h"

enum ptx_op {
    OP_NONE = 0,
    OP_MOV, OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_FMA, OP_DIV, OP_REM, OP_MIN, OP_MAX, OP_ABS,
    OP_NEG, OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT, OP_SHL, OP_SHR, OP_SELP, OP_SETP, OP_CVT,
    OP_CVTA, OP_RSQRT, OP_SQRT, OP_RCP, OP_EX2, OP_LG2, OP_SIN, OP_COS, OP_POPC, OP_CLZ,
    OP_BREV, OP_BFE, OP_BFI, OP_PRMT, OP_COPYSIGN, OP_MUL24, OP_MAD24, OP_BFIND,
    OP_LD, OP_ST, OP_ATOM, OP_RED, OP_LDMATRIX, OP_STMATRIX, OP_CPASYNC, OP_CPWAIT,
    OP_BRA, OP_RET, OP_EXIT, OP_BAR, OP_BARARRIVE, OP_NOP, OP_TRAP,
    OP_SHFL, OP_VOTE, OP_MATCH, OP_ACTIVEMASK, OP_REDUX, OP_MBAR, OP_WMMA,
    OP_COUNT
};

/* types: kind in the high nibble, log2 bytes in the low */
enum { TK_B = 0, TK_U = 1, TK_S = 2, TK_F = 3, TK_PRED = 4, TK_BF = 5 /* bf16, bf16x2 */,
       TK_H2 = 6 /* f16x2 (f16 is TK_F) */, TK_X = 14 /* tf32 */, TK_NONE = 15 };
#define TY(k, lg) ((uint8_t)((k) << 4 | (lg)))
#define TY_KIND(t) ((t) >> 4)
#define TY_BYTES(t) (1u << ((t) & 15))
#define TY_NONE TY(TK_NONE, 0)

enum ptx_space { SP_GENERIC = 0, SP_SHARED, SP_GLOBAL, SP_LOCAL, SP_PARAM, SP_CONST };

enum ptx_okind { O_NONE = 0, O_REG, O_IMM, O_VEC, O_MEM, O_LABEL, O_SINK };

struct ptx_opnd {
    uint8_t kind;          /* enum ptx_okind */
    uint8_t neg;           /* !%p */
    uint8_t n;             /* O_VEC: elements */
    uint8_t space;         /* O_MEM/O_IMM of a symbol: the symbol's space (param: kernel's) */
    int32_t reg;           /* O_REG, O_MEM base (-1: none) */
    int32_t vreg[8];       /* O_VEC: slots (-1: a sink `_`) */
    uint64_t imm;          /* O_IMM value bits, O_MEM offset, O_LABEL target pc */
};

/* modifier codes shared by several ops */
enum { CMP_EQ = 1, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_LO, CMP_LS, CMP_HI, CMP_HS,
       CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN };
enum { MOD_LO = 1, MOD_HI, MOD_WIDE };
enum { AT_ADD = 1, AT_MIN, AT_MAX, AT_INC, AT_DEC, AT_AND, AT_OR, AT_XOR, AT_EXCH, AT_CAS };
enum { SH_UP = 1, SH_DOWN, SH_BFLY, SH_IDX };
enum { VT_ALL = 1, VT_ANY, VT_UNI, VT_BALLOT };
enum { BOP_AND = 1, BOP_OR, BOP_XOR };
enum { CV_TO = 1, CV_FROM };
/* mbarrier (cmp): init, arrive, arrive_drop, test_wait, try_wait, inval, cp.async's arrive;
 * mod: MB_PARITY, MB_NOINC, MB_TX (expect_tx: not executed) */
enum { MB_INIT = 1, MB_ARRIVE, MB_DROP, MB_TEST, MB_TRY, MB_INVAL, MB_CPARRIVE };
enum { MB_PARITY = 1, MB_NOINC = 2, MB_TX = 4 };
/* wmma (cmp): load.a, load.b, load.c, store.d, mma; mod: WM_COL (the (first) layout col),
 * WM_COL2 (mma's second), WM_SEEN (a layout read), WM_SHAPE (m16n16k16) */
enum { WM_LOADA = 1, WM_LOADB, WM_LOADC, WM_STORE, WM_MMA, WM_LOAD = 9 };
enum { WM_COL = 1, WM_COL2 = 2, WM_SEEN = 4, WM_SHAPE = 8 };
enum { RND_NONE = 0, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI };

#define PTX_NOPND 6

struct ptx_insn {
    uint8_t op;            /* enum ptx_op */
    uint8_t type, type2;   /* the (first, second) type: cvt d.type2? cvt.dst.src: type=dst */
    uint8_t space;         /* memory ops, cvta */
    uint8_t vec;           /* .v2/.v4: 2, 4; else 1 */
    uint8_t cmp;           /* setp: CMP_*, atom: AT_*, shfl: SH_*, vote: VT_*, cvta: CV_*,
                              redux: AT_*, match: VT_ALL/VT_ANY, bar: 0 sync, ldmatrix: .xN,
                              mbarrier: MB_* */
    uint8_t mod;           /* MOD_LO/HI/WIDE; setp: BOP_*; ldmatrix/stmatrix: .trans;
                              bra.uni; ld.volatile */
    uint8_t rnd;           /* cvt/float rounding RND_*, sat in bit 7 */
    uint8_t nopnd;
    uint8_t reload;        /* ld.shared of an address its block loaded before (mark_reloads):
                              executed, not recorded, as ptxas keeps the first load's value */
    int8_t guard_neg;
    int32_t guard;         /* predicate slot, -1: none */
    unsigned loc;          /* index in the module's loc table */
    unsigned line;         /* PTX line */
    uint32_t text, tlen;   /* the instruction's text in the module's copy */
    struct ptx_opnd o[PTX_NOPND];
};

/* special registers, the first slots of every kernel's register file */
enum {
    SR_TID_X = 0, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z, SR_CTAID_X, SR_CTAID_Y,
    SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z, SR_LANEID, SR_WARPID, SR_NWARPID,
    SR_SMID, SR_NSMID, SR_GRIDID, SR_CLOCK, SR_CLOCK64, SR_LM_EQ, SR_LM_LT, SR_LM_LE, SR_LM_GT,
    SR_LM_GE, SR_DYNSMEM, SR_TOTSMEM, SR_GTIMER, SR_COUNT
};

struct ptx_param { char *name; size_t size, align, off; };

struct ptx_kernel {
    char *name;
    int is_entry;
    int nparams;
    struct ptx_param *param;
    size_t param_bytes;
    size_t static_smem;     /* bytes of static shared variables */
    size_t smem_align;      /* the largest alignment among them (dynamic starts aligned) */
    size_t local_bytes;     /* per thread .local */
    int nslots;             /* register slots (SR_COUNT first) */
    int ninsn;
    struct ptx_insn *insn;
    int uses_clock;
};

struct ptx_locrec { unsigned file, line, col; int parent; /* loc index, -1 */ };
struct ptx_file { unsigned id; char *path; };

struct ptx_gvar { char *name; uint8_t space; size_t size, align; unsigned char *data; };

struct ptx_module {
    char *text;             /* a copy of the PTX */
    size_t len;
    int nkernels;
    struct ptx_kernel *kernel;
    int nlocs, caplocs;
    struct ptx_locrec *loc;
    int nfiles;
    struct ptx_file *file;
    int ngvars;
    struct ptx_gvar *gvar;
};

#endif
