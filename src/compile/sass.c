/* sass.c: which shared-memory instruction stands at a pc of a cubin, and how wide it
 * is: the SASS column of `banklab kernel --sass`, and the ideal wavefronts where CUPTI has no
 * _ideal metric. Volta to Hopper (sm_70 .. sm_90) use 128-bit instructions with the opcode in
 * the low 12 bits; the fields below were read off NVRTC's output for ld/st.shared.{u8,u16,
 * b32,v2,v4}, ldmatrix, stmatrix, atom/red.shared and cp.async, and are checked against
 * nvdisasm's listing of H200 cubins in tests/unit/test_kernel.c. Pure C: an ELF reader and a
 * table. */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "../kernel/kernel.h"
#include "compile.h"

/* 8 little-endian bytes (an instruction word) */
static uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int sass_sections(const void *cubin, size_t n,
                  int (*fn)(const char *name, const Elf64_Shdr *sh, void *arg), void *arg)
{
    const uint8_t *b = cubin;
    Elf64_Ehdr eh;
    if (!b || n < sizeof eh)
        return -1;
    memcpy(&eh, b, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return -1;
    if (eh.e_shentsize < sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum || eh.e_shoff > n ||
        (uint64_t)eh.e_shnum * eh.e_shentsize > n - eh.e_shoff)
        return -1;
    Elf64_Shdr strsh, sh;
    memcpy(&strsh, b + eh.e_shoff + (size_t)eh.e_shstrndx * eh.e_shentsize, sizeof strsh);
    if (strsh.sh_offset > n || strsh.sh_size > n - strsh.sh_offset)
        return -1;
    const char *names = (const char *)b + strsh.sh_offset;
    for (uint16_t i = 0; i < eh.e_shnum; i++) {
        memcpy(&sh, b + eh.e_shoff + (size_t)i * eh.e_shentsize, sizeof sh);
        if (sh.sh_name >= strsh.sh_size ||
            !memchr(names + sh.sh_name, '\0', strsh.sh_size - sh.sh_name))
            continue;
        int rc = fn(names + sh.sh_name, &sh, arg);
        if (rc)
            return rc;
    }
    return 0;
}

struct code_want {
    const char *symbol;              /* the section is ".text.<symbol>", a name of any length */
    size_t n;                        /* the cubin's bytes */
    uint64_t off, size;
};

static int code_section(const char *name, const Elf64_Shdr *sh, void *arg)
{
    struct code_want *w = arg;
    if (strncmp(name, ".text.", 6) || strcmp(name + 6, w->symbol))
        return 0;
    if (sh->sh_offset > w->n || sh->sh_size > w->n - sh->sh_offset)
        return -1;
    w->off = sh->sh_offset;
    w->size = sh->sh_size;
    return 1;
}

int sass_function_code(const void *cubin, size_t n, const char *symbol, const uint8_t **code,
                       size_t *size)
{
    struct code_want w = {.symbol = symbol, .n = n};
    if (sass_sections(cubin, n, code_section, &w) != 1)
        return -1;
    *code = (const uint8_t *)cubin + w.off;
    *size = (size_t)w.size;
    return 0;
}

int sass_arch_known(int sm) { return sm >= 70 && sm <= 90; }

static int ideal_for_bytes(int bytes) { return bytes <= 4 ? 1 : bytes / 4; }

/* The 3-bit size field at bits 73..75 of LDS, STS, LD, ST and LDGSTS. */
static const struct {
    int bytes;
    const char *suffix;
} size_field[8] = {{1, ".U8"}, {1, ".S8"}, {2, ".U16"}, {2, ".S16"},
                   {4, ""},    {8, ".64"}, {16, ".128"}, {16, ".U.128"}};

int sass_each_lane(int op, const char *sass)
{
    return op == GPU_KOP_ATOM && strcmp(sass, "ATOMS.POPC.INC") != 0;
}

int sass_cg(const char *sass)
{
    return !strncmp(sass, "LDGSTS.BYPASS", 13);
}

int sass_decode(const uint8_t insn[16], struct sass_insn *out)
{
    memset(out, 0, sizeof *out);
    uint64_t lo = rd64(insn), hi = rd64(insn + 8);
    unsigned opcode = (unsigned)(lo & 0xfff), size = (unsigned)(hi >> 9) & 7;
    const char *name = NULL;
    switch (opcode) {
    case 0x984: name = "LDS"; out->op = GPU_KOP_LD; break;
    case 0x388:
    case 0x988: name = "STS"; out->op = GPU_KOP_ST; break; /* 0x988: [R+UR] addressing */
    case 0x980: name = "LD"; out->op = GPU_KOP_LD; break;   /* generic: shared when the address is */
    case 0x385: name = "ST"; out->op = GPU_KOP_ST; break;
    case 0xfae: name = "LDGSTS"; out->op = GPU_KOP_LDGSTS; break;
    case 0x83b:
    case 0x844: {
        /* LDSM / STSM: .x1 .x2 .x4 matrices of 8 rows x 16 bytes, one wavefront each */
        unsigned num = (unsigned)(hi >> 8) & 3;
        if (num == 3)
            return 0;
        int mats = 1 << num;
        out->shared = 1;
        out->op = opcode == 0x83b ? GPU_KOP_LDSM : GPU_KOP_STSM;
        out->bytes = 16;
        out->ideal = mats;
        snprintf(out->text, sizeof out->text, "%s.16.M%s88.%d", opcode == 0x83b ? "LDSM" : "STSM",
                 (hi >> 14 & 1) ? "T" : "", mats);
        return 1;
    }
    case 0x38c:
    case 0x38d:
    case 0x3c4:
    case 0xf8c:
        /* ATOMS (RED on shared too; 0xf8c: ATOMS.POPC.INC, what atomicAdd(p, 1) becomes;
         * 0x3c4: the one of a lane after a warp's reduction, what atomicMin/Max/And/Or/Xor on
         * an address the same for the whole warp become: one lane, one wavefront) */
        out->shared = 1;
        out->op = GPU_KOP_ATOM;
        out->bytes = 4;
        out->ideal = 1;
        snprintf(out->text, sizeof out->text, "%s",
                 opcode == 0x38d ? "ATOMS.CAS" : opcode == 0xf8c ? "ATOMS.POPC.INC" : "ATOMS");
        return 1;
    default:
        return 0;
    }
    out->shared = 1;
    out->bytes = size_field[size].bytes;
    if (out->op == GPU_KOP_LDGSTS && out->bytes < 4)
        return out->shared = 0;
    out->ideal = ideal_for_bytes(out->bytes);
    const char *suffix = size_field[size].suffix;
    if (out->op == GPU_KOP_ST && (size == 1 || size == 3))
        suffix = size == 1 ? ".U8" : ".U16"; /* stores have no sign */
    /* LDGSTS with bit 81 clear is cp.async.cg, LDGSTS.E.BYPASS in nvdisasm's listing
     * (tests/data/kernel/cp_async.sm90.sass; .ca's have the bit set): its shared side costs
     * otherwise (docs/model.md) */
    if (out->op == GPU_KOP_LDGSTS && !(hi >> 17 & 1))
        name = "LDGSTS.BYPASS";
    snprintf(out->text, sizeof out->text, "%s%s", name, suffix);
    return 1;
}
