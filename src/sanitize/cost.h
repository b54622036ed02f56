/* cost.h: the bank model of src/model/bank.c reduced to its two figures (wavefronts, passes)
 * for one warp instruction, small enough to run in a Compute Sanitizer device callback: no
 * per-cell tables, 32 addresses in, two numbers out. The same rules as bank_simulate: passes
 * by width (32, 16 or 8 lanes), 8/16-byte loads fuse passes when neighbouring lanes (n^1 or
 * n^2) ask for the same address, a pass costs the most distinct 4-byte words one bank must
 * serve; ldmatrix/stmatrix: one pass per 8x8 matrix of rows from lanes 8i..8i+7; cp.async:
 * every word written counts (no broadcast) and the global side's banks count too; an
 * atomic as a store, or (SAN_ATOM_EACH) with every lane's word counted on its own; a 16-byte
 * cp.async also by .cg's rule (san_cg_cost): the SASS, read on the host, says which it was.
 * tests/unit/test_sancost.c holds it against bank_simulate on every pattern of tests/data and
 * on random ones. C and CUDA (SAN_HD is __host__ __device__ under nvcc); no libc. */
#ifndef BANKLAB_SANITIZE_COST_H
#define BANKLAB_SANITIZE_COST_H

#include <stdint.h>

#ifdef __CUDACC__
#define SAN_HD __host__ __device__ __forceinline__
#else
#define SAN_HD static inline
#endif

/* SAN_ATOM is costed both ways: as a store (distinct words: ATOMS.POPC.INC, which serves the
 * lanes on one word together) and, as SAN_ATOM_EACH, every lane's word on its own (ATOMS,
 * ATOMS.CAS); which one the instruction was is told by its SASS on the host. */
enum san_kind { SAN_LD = 0, SAN_ST = 1, SAN_ATOM = 2, SAN_LDSM = 3, SAN_STSM = 4, SAN_CPASYNC = 5,
                SAN_ATOM_EACH = 6 };

struct san_cost { uint32_t wavefronts, passes; };

/* san_pass_cost: the cost of the lanes `lanes` of one pass: the most distinct words (cp.async:
 * words, each lane's counting) one bank serves; cp.async also the most words one source bank
 * gives. nwords: 4-byte words per lane. */
SAN_HD uint32_t san_pass_cost(const uint32_t *addr, const uint32_t *src, uint32_t lanes,
                              unsigned nwords, int every_word)
{
    uint32_t worst = 0;
    uint8_t count[32], scount[32];
    for (int b = 0; b < 32; b++)
        count[b] = scount[b] = 0;
    for (int n = 0; n < 32; n++) {
        if (!(lanes >> n & 1u))
            continue;
        uint32_t first = addr[n] / 4u;
        for (unsigned k = 0; k < nwords; k++) {
            uint32_t w = first + k;
            int seen = 0;
            if (!every_word) { /* a word an earlier lane of the pass asked for is free */
                for (int m = 0; m < n && !seen; m++) {
                    if (!(lanes >> m & 1u))
                        continue;
                    uint32_t f = addr[m] / 4u;
                    seen = w >= f && w < f + nwords;
                }
            }
            if (seen)
                continue;
            uint8_t c = ++count[w % 32u];
            if (c > worst)
                worst = c;
            if (every_word && src) {
                uint8_t s = ++scount[(src[n] / 4u + k) % 32u];
                if (s > worst)
                    worst = s;
            }
        }
    }
    return worst;
}

/* san_width: the bytes per lane to cost a plain access the Compute Sanitizer reports as `size`.
 * 12 is a 128-bit LDS or STS that ptxas made of three 32-bit accesses to one 16-byte-aligned
 * block (atomics.cu's bit_masks: the SASS names LDS.128, the Compute Sanitizer says 12 bytes;
 * docs/runs/h100-2026-12-07-morning.md, call 23). It runs as the 16-byte instruction it is, 8
 * lanes a pass, and its three words cost what four would: a lane's fourth word (its 16-byte
 * base + 3) is in a bank no other lane's first three words reach, so every bank serves as
 * many words for it as for the first (test_sancost). */
SAN_HD unsigned san_width(unsigned size)
{
    return size == 12 ? 16u : size;
}

/* san_cost_of: wavefronts and passes of one warp instruction of `kind`, `width` bytes per
 * lane (16 for a matrix row), active lanes `mask`, shared byte offsets addr[32] (src[32]: the
 * global sources of cp.async, else unused), matrices 1/2/4 for ldmatrix/stmatrix. */
SAN_HD struct san_cost san_cost_of(unsigned kind, unsigned width, uint32_t mask,
                                   const uint32_t *addr, const uint32_t *src, unsigned matrices)
{
    struct san_cost r = {0, 0};
    if (kind == SAN_LDSM || kind == SAN_STSM) {
        for (unsigned i = 0; i < matrices && i < 4; i++) {
            uint32_t lanes = 0xffu << (8u * i);
            r.wavefronts += san_pass_cost(addr, 0, lanes, 4, 0);
            r.passes++;
        }
        return r;
    }
    unsigned per = width == 16 ? 8 : width == 8 ? 16 : 32;
    unsigned nwords = width <= 4 ? 1 : width / 4;
    if (kind == SAN_LD && width >= 8) {
        int pair = 0;
        for (unsigned x = 1; x <= 2 && !pair; x++) {
            pair = 1;
            for (unsigned n = 0; n < 32 && pair; n++) {
                unsigned p = n ^ x;
                if ((mask >> n & 1u) && (mask >> p & 1u) && addr[n] != addr[p])
                    pair = 0;
            }
        }
        if (pair)
            per *= 2;
    }
    for (unsigned first = 0; first < 32; first += per) {
        uint32_t lanes = (per == 32 ? 0xffffffffu : ((1u << per) - 1u) << first) & mask;
        if (!lanes)
            continue;
        r.wavefronts += san_pass_cost(addr, kind == SAN_CPASYNC ? src : 0, lanes, nwords,
                                      kind == SAN_CPASYNC || kind == SAN_ATOM_EACH);
        r.passes++;
    }
    return r;
}

/* cp.async.cg (LDGSTS.BYPASS) by bank_cg_wavefronts' rule (src/model/bank.c, docs/model.md).
 * san_cg_same: lanes i and j write chunks of one group: the same shared 128-byte row, the same
 * source 128-byte line, and the same low two bits of chunk position XOR source position. */
SAN_HD int san_cg_same(const uint32_t *addr, const uint32_t *src, unsigned i, unsigned j)
{
    return addr[i] / 128u == addr[j] / 128u && src[i] / 128u == src[j] / 128u &&
           ((addr[i] / 16u ^ src[i] / 16u) & 3u) == ((addr[j] / 16u ^ src[j] / 16u) & 3u);
}

/* san_cg_cost: the wavefronts of one warp's 16-byte cp.async.cg with active lanes `mask`: the
 * first lane writing each 16-byte shared chunk counts; a group (san_cg_same) costs one wavefront
 * for each kind of 32-byte source sector it holds: whole (both halves, to one shared sector),
 * its first half alone, its second half alone. *ideal: the chunks' bytes, 128 a wavefront.
 * O(chunks^2), for the device callback. */
SAN_HD uint32_t san_cg_cost(const uint32_t *addr, const uint32_t *src, uint32_t mask,
                            uint32_t *ideal)
{
    uint8_t keep[32];
    unsigned n = 0;
    for (unsigned l = 0; l < 32; l++) {
        if (!(mask >> l & 1u))
            continue;
        unsigned k = 0;
        while (k < n && addr[keep[k]] / 16u != addr[l] / 16u)
            k++;
        if (k == n)
            keep[n++] = (uint8_t)l;
    }
    uint32_t whole = 0, done = 0, wavefronts = 0;
    for (unsigned j = 0; j < n; j++) /* the other half of its source sector, to its shared one */
        for (unsigned k = j + 1; k < n; k++) {
            unsigned a = keep[j], b = keep[k];
            if (src[a] / 32u == src[b] / 32u && addr[a] / 32u == addr[b] / 32u &&
                san_cg_same(addr, src, a, b))
                whole |= 1u << j | 1u << k;
        }
    for (unsigned i = 0; i < n; i++) {
        if (done >> i & 1u)
            continue;
        unsigned kinds = 0; /* 1: a whole sector, 2: a first half alone, 4: a second half */
        for (unsigned j = i; j < n; j++) {
            if ((done >> j & 1u) || !san_cg_same(addr, src, keep[i], keep[j]))
                continue;
            done |= 1u << j;
            kinds |= (whole >> j & 1u) ? 1u : 2u << (src[keep[j]] / 16u & 1u);
        }
        wavefronts += (kinds & 1u) + (kinds >> 1 & 1u) + (kinds >> 2 & 1u);
    }
    *ideal = (n * 16u + 127u) / 128u;
    return wavefronts;
}

/* san_ideal: the ideal wavefronts of one warp instruction whose passes are `passes`: as
 * bank_ideal (src/model/bank.h): a plain store counts its active lanes' bytes, 128 a
 * wavefront, rounded up (a partial warp's STS.64 over both half-warps: 1, not 2 passes). */
SAN_HD uint32_t san_ideal(unsigned kind, unsigned width, uint32_t mask, uint32_t passes)
{
    if (kind != SAN_ST || width > 16)
        return passes;
    uint32_t n = 0;
    for (uint32_t m = mask; m; m &= m - 1u)
        n++;
    return (n * width + 127u) / 128u;
}

#endif
