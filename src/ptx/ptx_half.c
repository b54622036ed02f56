/* ptx_half.c: PTX's 16-bit floats for the lanes of a warp: f16 and bf16, and their packed
 * pairs f16x2 and bf16x2 (the low half the first element): add, sub, mul, fma, min, max,
 * neg, abs, and cvt to and from them. Each result is the exact operation rounded once to the
 * type as the instruction's rounding mode says (rn by default), from an exact double: a sum or
 * product of two 16-bit floats is exact in a double, and an fma's is rounded once more only
 * when its exact value needs more than 53 bits (bf16's wide exponents; f16's sums of 80 bits
 * at most), which the executor does not model. .ftz is not modelled; .sat clamps to [0, 1]. */
#include <math.h>
#include <string.h>

#include "ptx_exec.h"

/* the format: mantissa bits and exponent bias */
struct small_fmt { int mbits, bias; };
static const struct small_fmt F16 = {10, 15}, BF16 = {7, 127};

static double small_to_double(uint16_t h, struct small_fmt f)
{
    int ebits = 15 - f.mbits;
    unsigned e = (unsigned)(h >> f.mbits) & ((1u << ebits) - 1), m = h & ((1u << f.mbits) - 1);
    double s = h & 0x8000 ? -1.0 : 1.0;
    if (e == (1u << ebits) - 1)
        return m ? NAN : s * INFINITY;
    if (e == 0)
        return s * ldexp((double)m, 1 - f.bias - f.mbits);
    return s * ldexp((double)(m | 1u << f.mbits), (int)e - f.bias - f.mbits);
}

/* x rounded once to the format (rnd: RND_RN or 0, RZ, RM, RP) */
static uint16_t double_to_small(double x, struct small_fmt f, int rnd)
{
    int ebits = 15 - f.mbits, emax = (1 << ebits) - 1;
    uint16_t s = signbit(x) ? 0x8000 : 0;
    if (isnan(x))
        return 0x7fff; /* the canonical NaN */
    double a = fabs(x);
    uint16_t inf = s | (uint16_t)(emax << f.mbits), big = (uint16_t)(inf - 1);
    if (isinf(a))
        return inf;
    if (a == 0)
        return s;
    int e;
    frexp(a, &e);
    int E = e - 1 < 1 - f.bias ? 1 - f.bias : e - 1; /* the exponent (the least: subnormal) */
    double q = ldexp(a, f.mbits - E);                 /* in units of the last place: exact */
    int down = rnd == RND_RZ || (rnd == RND_RM && !s) || (rnd == RND_RP && s);
    int up = (rnd == RND_RM && s) || (rnd == RND_RP && !s);
    q = down ? floor(q) : up ? ceil(q) : nearbyint(q);
    double one = ldexp(1, f.mbits);
    if (q >= 2 * one) {
        q /= 2;
        E++;
    }
    int field = q >= one ? E + f.bias : 0;
    if (field >= emax)
        return down ? s | big : inf;
    return s | (uint16_t)(field << f.mbits) | (uint16_t)(q - (field ? one : 0));
}

/* the 16-bit format of type t, NULL for none */
static const struct small_fmt *fmt_of(uint8_t t)
{
    if (t == TY(TK_F, 1) || t == TY(TK_H2, 2))
        return &F16;
    if (TY_KIND(t) == TK_BF)
        return &BF16;
    return NULL;
}

/* a value of type t (not a 16-bit float) as a double */
static double wide_value(uint8_t t, uint64_t v)
{
    unsigned by = TY_BYTES(t);
    if (TY_KIND(t) == TK_F) {
        if (by == 8) {
            double d;
            memcpy(&d, &v, 8);
            return d;
        }
        float f;
        uint32_t u = (uint32_t)v;
        memcpy(&f, &u, 4);
        return f;
    }
    if (by < 8)
        v &= (UINT64_C(1) << (by * 8)) - 1;
    if (TY_KIND(t) == TK_S) {
        unsigned sh = 64 - by * 8;
        return (double)((int64_t)(v << sh) >> sh);
    }
    return (double)v;
}

static uint64_t wide_bits(uint8_t t, double x, int rnd)
{
    if (TY_KIND(t) == TK_F && TY_BYTES(t) == 8) {
        uint64_t u;
        memcpy(&u, &x, 8);
        return u;
    }
    if (TY_KIND(t) == TK_F && TY_BYTES(t) == 4) {
        float f = (float)x; /* from a 16-bit float: exact */
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    if (isnan(x)) /* to an integer: saturating, as cvt's others */
        return 0;
    x = rnd == RND_RNI ? nearbyint(x) : rnd == RND_RMI ? floor(x) : rnd == RND_RPI ? ceil(x)
                                                                                 : trunc(x);
    unsigned by = TY_BYTES(t);
    if (TY_KIND(t) == TK_S) {
        double lo = -ldexp(1, (int)by * 8 - 1), hi = ldexp(1, (int)by * 8 - 1) - 1;
        int64_t v = x <= lo ? (int64_t)lo : x >= hi ? (int64_t)hi : (int64_t)x;
        return by >= 8 ? (uint64_t)v : (uint64_t)v & ((UINT64_C(1) << (by * 8)) - 1);
    }
    double hi = ldexp(1, (int)by * 8) - 1;
    return x <= 0 ? 0 : x >= hi ? (uint64_t)hi : (uint64_t)x;
}

static double arith(int op, double x, double y, double z)
{
    switch (op) {
    case OP_ADD: return x + y;
    case OP_SUB: return x - y;
    case OP_MUL: return x * y;
    case OP_FMA: case OP_MAD: return fma(x, y, z);
    case OP_MIN: return isnan(x) ? y : isnan(y) ? x : x < y || (x == y && signbit(x)) ? x : y;
    case OP_MAX: return isnan(x) ? y : isnan(y) ? x : x > y || (x == y && !signbit(x)) ? x : y;
    case OP_NEG: return -x;
    case OP_ABS: return fabs(x);
    }
    return NAN;
}

/* one element (16 bits at shift sh) of an arithmetic instruction */
static uint16_t element(const struct ptx_insn *in, struct small_fmt f, uint64_t a, uint64_t b,
                        uint64_t c, unsigned sh)
{
    double x = small_to_double((uint16_t)(a >> sh), f), y = small_to_double((uint16_t)(b >> sh), f),
           z = small_to_double((uint16_t)(c >> sh), f);
    double r = arith(in->op, x, y, z);
    if (in->rnd & 0x80)
        r = isnan(r) ? 0 : r < 0 ? 0 : r > 1 ? 1 : r;
    return double_to_small(r, f, in->rnd & 0x7f);
}

static int convert(struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask, uint64_t *d)
{
    const struct ptx_opnd *o = in->o;
    const struct small_fmt *df = fmt_of(in->type), *sf = fmt_of(in->type2);
    int rnd = in->rnd & 0x7f, sat = in->rnd & 0x80;
    if (df && TY_BYTES(in->type) == 4) { /* cvt.rn.f16x2.f32 d, a, b: a to the high half */
        if (sf || TY_KIND(in->type2) != TK_F)
            return 1;
        LANES(mask, l) {
            double hi = wide_value(in->type2, ptx_val(w, &o[1], (int)l));
            double lo = wide_value(in->type2, ptx_val(w, &o[2], (int)l));
            if (sat) {
                hi = isnan(hi) ? 0 : hi < 0 ? 0 : hi > 1 ? 1 : hi;
                lo = isnan(lo) ? 0 : lo < 0 ? 0 : lo > 1 ? 1 : lo;
            }
            d[l] = (uint64_t)double_to_small(hi, *df, rnd) << 16 | double_to_small(lo, *df, rnd);
        }
        return 0;
    }
    LANES(mask, l) {
        uint64_t v = ptx_val(w, &o[1], (int)l);
        double x = sf ? small_to_double((uint16_t)v, *sf) : wide_value(in->type2, v);
        if (sat && (df || TY_KIND(in->type) == TK_F))
            x = isnan(x) ? 0 : x < 0 ? 0 : x > 1 ? 1 : x;
        if (df && rnd >= RND_RNI) /* to an integral value in the 16-bit type */
            x = rnd == RND_RNI ? nearbyint(x) : rnd == RND_RZI ? trunc(x)
                : rnd == RND_RMI ? floor(x) : ceil(x);
        d[l] = df ? double_to_small(x, *df, rnd >= RND_RNI ? 0 : rnd) : wide_bits(in->type, x, rnd);
    }
    return 0;
}

int ptx_half(struct ptx_warp *w, const struct ptx_insn *in, uint32_t mask)
{
    const struct ptx_opnd *o = in->o;
    if (o[0].kind != O_REG)
        return 1;
    uint64_t *d = w->r + (unsigned)o[0].reg * 32;
    if (in->op == OP_CVT)
        return fmt_of(in->type) || fmt_of(in->type2) ? convert(w, in, mask, d) : 1;
    const struct small_fmt *f = fmt_of(in->type);
    if (!f)
        return 1;
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_FMA: case OP_MAD: case OP_MIN: case OP_MAX:
    case OP_NEG: case OP_ABS:
        break;
    default:
        return 1;
    }
    int pairs = TY_BYTES(in->type) == 4;
    LANES(mask, l) {
        uint64_t a = ptx_val(w, &o[1], (int)l), b = ptx_val(w, &o[2], (int)l),
                 c = ptx_val(w, &o[3], (int)l);
        uint64_t r = element(in, *f, a, b, c, 0);
        if (pairs)
            r |= (uint64_t)element(in, *f, a, b, c, 16) << 16;
        d[l] = r;
    }
    return 0;
}
