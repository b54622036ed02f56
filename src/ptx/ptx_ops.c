/* ptx_ops.c: PTX arithmetic, logic, comparison and conversion for the lanes of a warp.
 * Integers are exact at their type's width (registers hold the value zero-extended to 64
 * bits); floating point is the host's IEEE arithmetic in the type's precision (.approx and
 * .ftz are not modelled: an approximate instruction returns the correctly rounded value;
 * fma/mad of floats fuse). Where PTX leaves a result undefined the executor picks: integer
 * division by zero gives all ones, remainder by zero gives the dividend. */
#include <math.h>
#include <string.h>

#include "ptx_exec.h"

static inline uint64_t trunc_to(uint64_t v, unsigned bytes)
{
    return bytes >= 8 ? v : v & ((UINT64_C(1) << (bytes * 8)) - 1);
}

static inline int64_t sx(uint64_t v, unsigned bytes)
{
    if (bytes >= 8)
        return (int64_t)v;
    unsigned sh = 64 - bytes * 8;
    return (int64_t)(v << sh) >> sh;
}

static inline float f32(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint64_t bf32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline double f64(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static inline uint64_t bf64(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* IEEE half <-> float */
static float half_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 31, m = h & 1023, u;
    if (e == 31)
        u = s | 0x7f800000u | m << 13;
    else if (e)
        u = s | (e + 112) << 23 | m << 13;
    else if (m) {
        float f = ldexpf((float)m, -24);
        return s ? -f : f;
    } else
        u = s;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t float_to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t s = (uint16_t)((u >> 16) & 0x8000);
    float a = fabsf(f);
    if (isnan(f))
        return s | 0x7e00;
    if (a >= 65520.0f)
        return s | 0x7c00;
    if (a < ldexpf(1, -14)) /* subnormal: multiples of 2^-24, rounded to nearest even */
        return s | (uint16_t)nearbyintf(a * ldexpf(1, 24));
    int e;
    float fr = frexpf(a, &e); /* a = fr * 2^e, fr in [0.5, 1) */
    uint32_t m = (uint32_t)nearbyintf((fr * 2 - 1) * 1024);
    int he = e - 1 + 15;
    if (m == 1024)
        m = 0, he++;
    if (he >= 31)
        return s | 0x7c00;
    return s | (uint16_t)(he << 10) | (uint16_t)m;
}

static double rnd_int(double x, int r)
{
    switch (r) {
    case RND_RZI: case RND_RZ: return trunc(x);
    case RND_RMI: case RND_RM: return floor(x);
    case RND_RPI: case RND_RP: return ceil(x);
    default: return nearbyint(x);
    }
}

static uint64_t cvt(uint8_t dt, uint8_t st, uint64_t a, int rnd)
{
    unsigned db = TY_BYTES(dt), sb = TY_BYTES(st);
    int dk = TY_KIND(dt), sk = TY_KIND(st);
    int sat = rnd & 0x80;
    rnd &= 0x7f;
    if (sk == TK_F) {
        double x = sb == 8 ? f64(a) : sb == 4 ? f32(a) : half_to_float((uint16_t)a);
        if (dk == TK_F) {
            if (rnd >= RND_RNI)
                x = rnd_int(x, rnd);
            if (sat)
                x = isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
            if (db == 8)
                return bf64(x);
            if (db == 4)
                return bf32((float)x);
            return float_to_half((float)x);
        }
        /* float to integer: saturating, NaN to 0 */
        if (isnan(x))
            return 0;
        x = rnd_int(x, rnd ? rnd : RND_RZI);
        if (dk == TK_S) {
            double lo = -ldexp(1, (int)db * 8 - 1), hi = ldexp(1, (int)db * 8 - 1) - 1;
            int64_t v = x <= lo ? (int64_t)lo : x >= hi ? (db == 8 ? INT64_MAX : (int64_t)hi)
                                                       : (int64_t)x;
            return trunc_to((uint64_t)v, db);
        }
        double hi = ldexp(1, (int)db * 8) - 1;
        uint64_t v = x <= 0 ? 0 : x >= hi ? (db == 8 ? UINT64_MAX : (uint64_t)hi) : (uint64_t)x;
        return v;
    }
    if (dk == TK_F) {
        double x = sk == TK_S ? (double)sx(a, sb) : (double)trunc_to(a, sb);
        if (db == 8) {
            if (sb == 8) /* 64-bit integers may not fit a double exactly: round once */
                x = sk == TK_S ? (double)(int64_t)a : (double)a;
            return bf64(x);
        }
        if (db == 4) {
            float f = sk == TK_S ? (float)sx(a, sb) : (float)trunc_to(a, sb);
            return bf32(f);
        }
        return float_to_half((float)x);
    }
    /* integer to integer */
    int64_t v = sk == TK_S ? sx(a, sb) : (int64_t)trunc_to(a, sb);
    if (sat && db < 8) {
        int64_t lo = dk == TK_S ? -(INT64_C(1) << (db * 8 - 1)) : 0;
        int64_t hi = dk == TK_S ? (INT64_C(1) << (db * 8 - 1)) - 1 : (INT64_C(1) << db * 8) - 1;
        v = v < lo ? lo : v > hi ? hi : v;
    }
    return trunc_to((uint64_t)v, db);
}

static int fcmp(double a, double b, int c)
{
    int un = isnan(a) || isnan(b);
    switch (c) {
    case CMP_EQ: return !un && a == b;
    case CMP_NE: return !un && a != b;
    case CMP_LT: return !un && a < b;
    case CMP_LE: return !un && a <= b;
    case CMP_GT: return !un && a > b;
    case CMP_GE: return !un && a >= b;
    case CMP_EQU: return un || a == b;
    case CMP_NEU: return un || a != b;
    case CMP_LTU: return un || a < b;
    case CMP_LEU: return un || a <= b;
    case CMP_GTU: return un || a > b;
    case CMP_GEU: return un || a >= b;
    case CMP_NUM: return !un;
    case CMP_NAN: return un;
    }
    return 0;
}

static int icmp(uint64_t a, uint64_t b, int c, int sgn, unsigned bytes)
{
    int64_t x = sx(a, bytes), y = sx(b, bytes);
    uint64_t u = trunc_to(a, bytes), v = trunc_to(b, bytes);
    switch (c) {
    case CMP_EQ: return u == v;
    case CMP_NE: return u != v;
    case CMP_LT: return sgn ? x < y : u < v;
    case CMP_LE: return sgn ? x <= y : u <= v;
    case CMP_GT: return sgn ? x > y : u > v;
    case CMP_GE: return sgn ? x >= y : u >= v;
    case CMP_LO: return u < v;
    case CMP_LS: return u <= v;
    case CMP_HI: return u > v;
    case CMP_HS: return u >= v;
    }
    return 0;
}

/* a binary or ternary float operation in double (f64) or float (f32) precision */
static uint64_t fop(int op, unsigned bytes, uint64_t a, uint64_t b, uint64_t c, int rnd)
{
    if (bytes == 4) {
        float x = f32(a), y = f32(b), z = f32(c), r;
        switch (op) {
        case OP_ADD: r = x + y; break;
        case OP_SUB: r = x - y; break;
        case OP_MUL: r = x * y; break;
        case OP_MAD: case OP_FMA: r = fmaf(x, y, z); break;
        case OP_DIV: r = x / y; break;
        case OP_MIN: r = fminf(x, y); break;
        case OP_MAX: r = fmaxf(x, y); break;
        case OP_ABS: r = fabsf(x); break;
        case OP_NEG: r = -x; break;
        case OP_RSQRT: r = 1.0f / sqrtf(x); break;
        case OP_SQRT: r = sqrtf(x); break;
        case OP_RCP: r = 1.0f / x; break;
        case OP_EX2: r = exp2f(x); break;
        case OP_LG2: r = log2f(x); break;
        case OP_SIN: r = sinf(x); break;
        case OP_COS: r = cosf(x); break;
        case OP_COPYSIGN: r = copysignf(y, x); break;
        default: r = 0;
        }
        if (rnd & 0x80)
            r = isnan(r) ? 0 : r < 0 ? 0 : r > 1 ? 1 : r;
        return bf32(r);
    }
    double x = f64(a), y = f64(b), z = f64(c), r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_MAD: case OP_FMA: r = fma(x, y, z); break;
    case OP_DIV: r = x / y; break;
    case OP_MIN: r = fmin(x, y); break;
    case OP_MAX: r = fmax(x, y); break;
    case OP_ABS: r = fabs(x); break;
    case OP_NEG: r = -x; break;
    case OP_RSQRT: r = 1.0 / sqrt(x); break;
    case OP_SQRT: r = sqrt(x); break;
    case OP_RCP: r = 1.0 / x; break;
    case OP_EX2: r = exp2(x); break;
    case OP_LG2: r = log2(x); break;
    case OP_SIN: r = sin(x); break;
    case OP_COS: r = cos(x); break;
    case OP_COPYSIGN: r = copysign(y, x); break;
    default: r = 0;
    }
    return bf64(r);
}

/* the high half or the wide product of a * b at bytes each */
static uint64_t mul_hw(uint64_t a, uint64_t b, unsigned bytes, int sgn, int mod)
{
    if (bytes == 8) {
        __int128 p = sgn ? (__int128)(int64_t)a * (int64_t)b
                         : (__int128)((unsigned __int128)a * (unsigned __int128)b);
        return (uint64_t)((unsigned __int128)p >> 64);
    }
    uint64_t p = sgn ? (uint64_t)(sx(a, bytes) * sx(b, bytes))
                     : trunc_to(a, bytes) * trunc_to(b, bytes);
    if (mod == MOD_WIDE)
        return trunc_to(p, bytes * 2);
    return trunc_to(sgn ? (uint64_t)((int64_t)p >> (bytes * 8)) : p >> (bytes * 8), bytes);
}

static uint64_t iop(const struct ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    unsigned by = TY_BYTES(in->type);
    int sgn = TY_KIND(in->type) == TK_S;
    unsigned bits = by * 8;
    switch (in->op) {
    case OP_ADD:
        if ((in->rnd & 0x80) && by == 4) {
            int64_t s = sx(a, 4) + sx(b, 4);
            s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
            return trunc_to((uint64_t)s, 4);
        }
        return trunc_to(a + b, by);
    case OP_SUB: return trunc_to(a - b, by);
    case OP_MUL:
        if (in->mod == MOD_HI || in->mod == MOD_WIDE)
            return mul_hw(a, b, by, sgn, in->mod);
        return trunc_to(a * b, by);
    case OP_MAD:
        if (in->mod == MOD_WIDE)
            return trunc_to(mul_hw(a, b, by, sgn, MOD_WIDE) + c, by * 2);
        if (in->mod == MOD_HI)
            return trunc_to(mul_hw(a, b, by, sgn, MOD_HI) + c, by);
        return trunc_to(a * b + c, by);
    case OP_MUL24: return trunc_to((uint64_t)(sgn ? sx(a, 3) * sx(b, 3) : (int64_t)(trunc_to(a, 3) * trunc_to(b, 3))), by);
    case OP_MAD24: return trunc_to((uint64_t)(sgn ? sx(a, 3) * sx(b, 3) : (int64_t)(trunc_to(a, 3) * trunc_to(b, 3))) + c, by);
    case OP_DIV:
        if (trunc_to(b, by) == 0)
            return trunc_to(~UINT64_C(0), by);
        if (sgn) {
            int64_t x = sx(a, by), y = sx(b, by);
            if (y == -1)
                return trunc_to((uint64_t)0 - (uint64_t)x, by);
            return trunc_to((uint64_t)(x / y), by);
        }
        return trunc_to(a, by) / trunc_to(b, by);
    case OP_REM:
        if (trunc_to(b, by) == 0)
            return trunc_to(a, by);
        if (sgn) {
            int64_t x = sx(a, by), y = sx(b, by);
            if (y == -1)
                return 0;
            return trunc_to((uint64_t)(x % y), by);
        }
        return trunc_to(a, by) % trunc_to(b, by);
    case OP_MIN:
        return sgn ? (sx(a, by) < sx(b, by) ? trunc_to(a, by) : trunc_to(b, by))
                   : (trunc_to(a, by) < trunc_to(b, by) ? trunc_to(a, by) : trunc_to(b, by));
    case OP_MAX:
        return sgn ? (sx(a, by) > sx(b, by) ? trunc_to(a, by) : trunc_to(b, by))
                   : (trunc_to(a, by) > trunc_to(b, by) ? trunc_to(a, by) : trunc_to(b, by));
    case OP_ABS: return trunc_to(sx(a, by) < 0 ? (uint64_t)0 - a : a, by);
    case OP_NEG: return trunc_to((uint64_t)0 - a, by);
    case OP_AND: return a & b;
    case OP_OR: return a | b;
    case OP_XOR: return a ^ b;
    case OP_NOT: return TY_KIND(in->type) == TK_PRED ? !a : trunc_to(~a, by);
    case OP_CNOT: return trunc_to(a, by) == 0;
    case OP_SHL: b = trunc_to(b, 4); return b >= bits ? 0 : trunc_to(a << b, by);
    case OP_SHR:
        b = trunc_to(b, 4);
        if (sgn)
            return trunc_to((uint64_t)(sx(a, by) >> (b >= bits ? bits - 1 : b)), by);
        return b >= bits ? 0 : trunc_to(a, by) >> b;
    case OP_POPC: return (uint64_t)__builtin_popcountll(trunc_to(a, by));
    case OP_CLZ: return trunc_to(a, by) ? (uint64_t)(__builtin_clzll(trunc_to(a, by)) - (64 - (int)bits)) : bits;
    case OP_BREV: {
        uint64_t r = 0;
        for (unsigned i = 0; i < bits; i++)
            r |= ((a >> i) & 1) << (bits - 1 - i);
        return r;
    }
    case OP_BFE: {
        unsigned pos = (unsigned)(b & 255), len = (unsigned)(c & 255);
        uint64_t x = trunc_to(a, by);
        if (len == 0)
            return 0;
        uint64_t v = pos >= bits ? 0 : x >> pos;
        if (len < 64)
            v &= (UINT64_C(1) << len) - 1;
        if (sgn) { /* sign bit: bit pos+len-1, or the msb when that lies beyond */
            unsigned sb = pos + len - 1 < bits - 1 ? pos + len - 1 : bits - 1;
            if ((x >> sb) & 1 && len < 64)
                v |= ~((UINT64_C(1) << len) - 1);
        }
        return trunc_to(v, by);
    }
    case OP_COPYSIGN: return 0;
    }
    return 0;
}

static uint64_t bfi(uint64_t a, uint64_t b, uint64_t c, uint64_t d, unsigned by)
{
    unsigned pos = (unsigned)(c & 255), len = (unsigned)(d & 255), bits = by * 8;
    uint64_t r = trunc_to(b, by);
    for (unsigned i = 0; i < len && pos + i < bits; i++)
        r = (r & ~(UINT64_C(1) << (pos + i))) | (((a >> i) & 1) << (pos + i));
    return r;
}

static uint64_t prmt(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t bytes = (a & 0xffffffffu) | (b & 0xffffffffu) << 32;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        unsigned sel = (unsigned)(c >> (i * 4)) & 15;
        uint32_t v = (uint32_t)(bytes >> ((sel & 7) * 8)) & 255;
        if (sel & 8)
            v = (v & 128) ? 255 : 0;
        r |= v << (i * 8);
    }
    return r;
}

static void mov_vec(struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    const struct ptx_opnd *d = &in->o[0], *s = &in->o[1];
    unsigned n = d->kind == O_VEC ? d->n : s->n;
    unsigned part = TY_BYTES(in->type) / (n ? n : 1) * 8;
    uint64_t pm = part >= 64 ? UINT64_MAX : (UINT64_C(1) << part) - 1;
    LANES(mask, l) {
        if (d->kind == O_VEC) {
            uint64_t v = ptx_val(w, s, (int)l);
            for (unsigned e = 0; e < n; e++)
                if (d->vreg[e] >= 0)
                    w->r[(unsigned)d->vreg[e] * 32 + l] = (v >> (e * part)) & pm;
        } else {
            uint64_t v = 0;
            for (unsigned e = 0; e < n; e++)
                if (s->vreg[e] >= 0)
                    v |= (w->r[(unsigned)s->vreg[e] * 32 + l] & pm) << (e * part);
            w->r[(unsigned)d->reg * 32 + l] = v;
        }
    }
}

static uint64_t cvta(const struct ptx_insn *in, uint64_t a)
{
    uint64_t win = in->space == SP_SHARED ? PTX_SHARED_WIN : in->space == SP_LOCAL ? PTX_LOCAL_WIN : 0;
    if (!win)
        return a;
    if (in->cmp == CV_TO)
        return trunc_to(a - win, TY_BYTES(in->type));
    return trunc_to(a, 4) + win;
}

static void setp(struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    unsigned by = TY_BYTES(in->type);
    int k = TY_KIND(in->type);
    const struct ptx_opnd *d2 = &in->o[PTX_NOPND - 1];
    LANES(mask, l) {
        uint64_t a = ptx_val(w, &in->o[1], (int)l), b = ptx_val(w, &in->o[2], (int)l);
        int t = k == TK_F ? fcmp(by == 8 ? f64(a) : f32(a), by == 8 ? f64(b) : f32(b), in->cmp)
                          : icmp(a, b, in->cmp, k == TK_S, by);
        int u = !t;
        if (in->mod) {
            int c = (int)(ptx_val(w, &in->o[3], (int)l) & 1) ^ in->o[3].neg;
            t = in->mod == BOP_AND ? t & c : in->mod == BOP_OR ? t | c : t ^ c;
            u = in->mod == BOP_AND ? u & c : in->mod == BOP_OR ? u | c : u ^ c;
        }
        w->r[(unsigned)in->o[0].reg * 32 + l] = (uint64_t)t;
        if (d2->kind == O_REG)
            w->r[(unsigned)d2->reg * 32 + l] = (uint64_t)u;
    }
}

/* the commonest integer instructions of 32 and 64 bits, operands in registers or
 * immediates: without the per-lane dispatch of iop; 0 when done, 1 when not one of them */
#define BIN(expr)                                                                           \
    do {                                                                                    \
        if (o[2].kind == O_REG) {                                                           \
            const uint64_t *s2 = w->r + (unsigned)o[2].reg * 32;                            \
            LANES(mask, l) { uint64_t x = s1[l], y = s2[l]; d[l] = (expr) & tm; }          \
        } else {                                                                            \
            uint64_t y = o[2].imm;                                                          \
            LANES(mask, l) { uint64_t x = s1[l]; d[l] = (expr) & tm; }                     \
        }                                                                                   \
        return 0;                                                                           \
    } while (0)

static int fast_int(struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    const struct ptx_opnd *o = in->o;
    unsigned by = TY_BYTES(in->type);
    int k = TY_KIND(in->type);
    if ((by != 4 && by != 8) || k > TK_S || in->rnd || o[1].kind != O_REG ||
        o[0].kind != O_REG || (o[2].kind != O_REG && o[2].kind != O_IMM))
        return 1;
    uint64_t tm = by == 8 ? UINT64_MAX : 0xffffffffu;
    uint64_t *d = w->r + (unsigned)o[0].reg * 32;
    const uint64_t *s1 = w->r + (unsigned)o[1].reg * 32;
    switch (in->op) {
    case OP_ADD: BIN(x + y);
    case OP_SUB: BIN(x - y);
    case OP_AND: BIN(x & y);
    case OP_OR: BIN(x | y);
    case OP_XOR: BIN(x ^ y);
    case OP_MUL:
        if (in->mod == MOD_LO || (in->mod == 0))
            BIN(x * y);
        return 1;
    case OP_SHL:
        if (o[2].kind == O_IMM && o[2].imm < by * 8)
            BIN(x << y);
        return 1;
    case OP_SHR:
        if (o[2].kind == O_IMM && o[2].imm < by * 8 && k != TK_S)
            BIN((x & tm) >> y);
        return 1;
    }
    return 1;
}

int ptx_alu(struct ptx_blk *b, struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    if (in->op <= OP_SHR && in->op >= OP_ADD && !fast_int(w, in, mask))
        return 0;
    const struct ptx_opnd *o = in->o;
    uint64_t *d = o[0].kind == O_REG ? w->r + (unsigned)o[0].reg * 32 : NULL;
    unsigned by = TY_BYTES(in->type);
    int fl = TY_KIND(in->type) == TK_F;
    int k1 = TY_KIND(in->type), k2 = TY_KIND(in->type2);
    if (in->op != OP_MOV && (k1 == TK_BF || k1 == TK_H2 || k2 == TK_BF || k2 == TK_H2 ||
                             (fl && by == 2) || (k2 == TK_F && TY_BYTES(in->type2) == 2)))
        return ptx_half(w, in, mask); /* 16-bit floats (ptx_half.c) */
    if (in->op != OP_MOV && (k1 == TK_X || k2 == TK_X))
        return 1; /* tf32: not executed */
    switch (in->op) {
    case OP_MOV:
        if (o[0].kind == O_VEC || o[1].kind == O_VEC) {
            mov_vec(w, in, mask);
            return 0;
        }
        if (o[1].kind == O_REG) {
            const uint64_t *s = w->r + (unsigned)o[1].reg * 32;
            LANES(mask, l) d[l] = trunc_to(s[l], by);
        } else {
            uint64_t v = trunc_to(o[1].imm, by);
            LANES(mask, l) d[l] = v;
        }
        return 0;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_DIV: case OP_MIN: case OP_MAX:
    case OP_ABS: case OP_NEG:
        if (fl) {
            LANES(mask, l) d[l] = fop(in->op, by, ptx_val(w, &o[1], (int)l),
                                      ptx_val(w, &o[2], (int)l), ptx_val(w, &o[3], (int)l), in->rnd);
            return 0;
        }
        /* fall through */
    case OP_REM: case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: case OP_CNOT: case OP_SHL:
    case OP_SHR: case OP_POPC: case OP_CLZ: case OP_BREV: case OP_BFE: case OP_MUL24:
    case OP_MAD24:
        if (in->op == OP_ADD && o[1].kind == O_REG && in->rnd == 0) { /* the commonest */
            const uint64_t *s = w->r + (unsigned)o[1].reg * 32;
            LANES(mask, l) d[l] = trunc_to(s[l] + ptx_val(w, &o[2], (int)l), by);
            return 0;
        }
        LANES(mask, l) d[l] = iop(in, ptx_val(w, &o[1], (int)l), ptx_val(w, &o[2], (int)l),
                                  ptx_val(w, &o[3], (int)l));
        return 0;
    case OP_FMA: case OP_RSQRT: case OP_SQRT: case OP_RCP: case OP_EX2: case OP_LG2: case OP_SIN:
    case OP_COS: case OP_COPYSIGN:
        if (!fl || by < 4)
            return 1;
        LANES(mask, l) d[l] = fop(in->op, by, ptx_val(w, &o[1], (int)l),
                                  ptx_val(w, &o[2], (int)l), ptx_val(w, &o[3], (int)l), in->rnd);
        return 0;
    case OP_SELP:
        LANES(mask, l) d[l] = (ptx_val(w, &o[3], (int)l) & 1) ^ o[3].neg
                                  ? ptx_val(w, &o[1], (int)l) : ptx_val(w, &o[2], (int)l);
        return 0;
    case OP_SETP:
        setp(w, in, mask);
        return 0;
    case OP_CVT:
        LANES(mask, l) d[l] = cvt(in->type, in->type2, ptx_val(w, &o[1], (int)l), in->rnd);
        return 0;
    case OP_CVTA:
        LANES(mask, l) d[l] = cvta(in, ptx_val(w, &o[1], (int)l));
        return 0;
    case OP_BFI:
        LANES(mask, l) d[l] = bfi(ptx_val(w, &o[1], (int)l), ptx_val(w, &o[2], (int)l),
                                  ptx_val(w, &o[3], (int)l), ptx_val(w, &o[4], (int)l), by);
        return 0;
    case OP_BFIND: /* the most significant bit unlike the sign (.shiftamt: from the top) */
        LANES(mask, l) {
            uint64_t a = trunc_to(ptx_val(w, &o[1], (int)l), by);
            if (TY_KIND(in->type) == TK_S && (a >> (by * 8 - 1) & 1))
                a = trunc_to(~a, by);
            int pos = a ? 63 - __builtin_clzll(a) : -1;
            d[l] = pos < 0 ? 0xffffffffu : in->mod ? (uint64_t)(by * 8 - 1 - (unsigned)pos)
                                                   : (uint64_t)pos;
        }
        return 0;
    case OP_PRMT:
        if (in->mod || in->rnd)
            return 1;
        LANES(mask, l) d[l] = prmt(ptx_val(w, &o[1], (int)l), ptx_val(w, &o[2], (int)l),
                                   ptx_val(w, &o[3], (int)l));
        return 0;
    }
    (void)b;
    return 1;
}
