/* lines.c: the shared-memory instructions of a compiled kernel, per source line
 * (compile/compile.h). The line table is the cubin's .debug_line (DWARF 2-4 line program,
 * one sequence per function, its start address relocated against the function's symbol by
 * .rela.debug_line). nvcc marks inlined code with an extended opcode of its own (0x90): its
 * first operand is the 1-based row of the same sequence the code was inlined at (0 none), so a
 * helper's access is charged to the helper's line and a header's (atomicAdd's) to the line of
 * the file that called it. Pure C: an ELF reader, the decoder (compile/sass.c) and the
 * compiler helpers (compile/nvcc.c; NVRTC and the cache through compile/cuda_nvrtc.c in the CUDA
 * build). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/utf8.h"
#include "compile.h"

#define KSL_ARCH 90

void kp_sass_free(struct kp_sass *s)
{
    free(s->insn);
    memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- the ELF sections */

struct sect {
    const uint8_t *p;
    size_t n;
};

struct elf_want {
    const uint8_t *b;
    size_t n;
    struct sect line, rela, symtab, strtab;
};

static int want_section(const char *name, const Elf64_Shdr *sh, void *arg)
{
    struct elf_want *w = arg;
    struct sect *s = !strcmp(name, ".debug_line")        ? &w->line
                     : !strcmp(name, ".rela.debug_line") ? &w->rela
                     : !strcmp(name, ".symtab")          ? &w->symtab
                     : !strcmp(name, ".strtab")          ? &w->strtab
                                                         : NULL;
    if (!s || sh->sh_type == SHT_NOBITS || sh->sh_offset > w->n || sh->sh_size > w->n - sh->sh_offset)
        return 0;
    s->p = w->b + sh->sh_offset;
    s->n = (size_t)sh->sh_size;
    return 0;
}

/* the symbol that the relocation at .debug_line offset `off` names, or NULL */
static const char *reloc_symbol(const struct elf_want *w, size_t off)
{
    for (size_t i = 0; i + sizeof(Elf64_Rela) <= w->rela.n; i += sizeof(Elf64_Rela)) {
        Elf64_Rela r;
        memcpy(&r, w->rela.p + i, sizeof r);
        if (r.r_offset != off)
            continue;
        size_t si = (size_t)ELF64_R_SYM(r.r_info);
        if ((si + 1) * sizeof(Elf64_Sym) > w->symtab.n)
            return NULL;
        Elf64_Sym s;
        memcpy(&s, w->symtab.p + si * sizeof s, sizeof s);
        if (s.st_name >= w->strtab.n || !memchr(w->strtab.p + s.st_name, 0, w->strtab.n - s.st_name))
            return NULL;
        return (const char *)w->strtab.p + s.st_name;
    }
    return NULL;
}

/* ---------------------------------------------------------------- the line program */

struct row {
    uint64_t addr;
    int file, line, ctx;
};

struct rd {
    const uint8_t *p;
    size_t i, end;
    int bad;
};

static uint64_t uleb(struct rd *r)
{
    uint64_t v = 0;
    for (int sh = 0; r->i < r->end; sh += 7) {
        uint8_t b = r->p[r->i++];
        if (sh < 64)
            v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            return v;
    }
    r->bad = 1;
    return v;
}

static int64_t sleb(struct rd *r)
{
    int64_t v = 0;
    int sh = 0;
    uint8_t b = 0x80;
    while (r->i < r->end && (b & 0x80)) {
        b = r->p[r->i++];
        if (sh < 64)
            v |= (int64_t)(b & 0x7f) << sh;
        sh += 7;
    }
    if (b & 0x80)
        r->bad = 1;
    else if (sh < 64 && (b & 0x40))
        v |= -((int64_t)1 << sh);
    return v;
}

static uint64_t fixed(struct rd *r, int n)
{
    uint64_t v = 0;
    if (r->i + (size_t)n > r->end) {
        r->bad = 1;
        r->i = r->end;
        return 0;
    }
    for (int k = n - 1; k >= 0; k--)
        v = v << 8 | r->p[r->i + (size_t)k];
    r->i += (size_t)n;
    return v;
}

static const char *cstr(struct rd *r)
{
    const char *s = (const char *)r->p + r->i;
    const uint8_t *z = memchr(r->p + r->i, 0, r->end - r->i);
    if (!z) {
        r->bad = 1;
        r->i = r->end;
        return "";
    }
    r->i = (size_t)(z - r->p) + 1;
    return s;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

struct found {                       /* what one function's sequence gave */
    struct row *row;
    int nrows, cap;
    int ours[256];                   /* file number -> 1 when it is the file asked about */
    int done;
};

static int push_row(struct found *f, const struct row *r)
{
    if (bl_grow(&f->row, &f->cap, f->nrows + 1, sizeof *f->row, 256))
        return -1;
    f->row[f->nrows++] = *r;
    return 0;
}

/* the rows of the sequence of `symbol` in the units of .debug_line; 0, or -1 */
static int read_lines(const struct elf_want *w, const char *symbol, const char *file,
                      struct found *f)
{
    size_t at = 0;
    while (at + 4 <= w->line.n && !f->done) {
        struct rd r = {w->line.p, at, w->line.n, 0};
        uint64_t ulen = fixed(&r, 4);
        int off8 = 0;
        if (ulen == 0xffffffffu) {
            ulen = fixed(&r, 8);
            off8 = 1;
        }
        if (r.bad || ulen > w->line.n - r.i)
            return -1;
        size_t unit_end = r.i + (size_t)ulen;
        r.end = unit_end;
        int version = (int)fixed(&r, 2);
        uint64_t hlen = fixed(&r, off8 ? 8 : 4);
        if (r.bad || version < 2 || version > 4 || hlen > unit_end - r.i)
            return -1;
        size_t prog = r.i + (size_t)hlen;
        int min_inst = (int)fixed(&r, 1);
        if (version >= 4)
            fixed(&r, 1);
        int def_stmt = (int)fixed(&r, 1);
        (void)def_stmt;
        int line_base = (int8_t)fixed(&r, 1);
        int line_range = (int)fixed(&r, 1);
        int opbase = (int)fixed(&r, 1);
        uint8_t oplen[256] = {0};
        for (int k = 1; k < opbase; k++)
            oplen[k] = (uint8_t)fixed(&r, 1);
        if (r.bad || line_range == 0 || opbase == 0)
            return -1;
        while (r.i < prog && r.p[r.i])        /* include directories */
            cstr(&r);
        r.i++;
        memset(f->ours, 0, sizeof f->ours);
        for (int k = 1; r.i < prog && r.p[r.i]; k++) {
            const char *nm = cstr(&r);
            uleb(&r);
            uleb(&r);
            uleb(&r);
            if (k < 256) /* NVRTC: as it was named (escaped); nvcc: '?' for a non-UTF-8 byte */
                f->ours[k] = bl_name_same(base_name(nm), base_name(file));
        }
        r.i = prog;
        struct row st = {0, 1, 1, 0};
        int mine = 0;
        f->nrows = 0;
        while (r.i < unit_end && !r.bad) {
            uint8_t op = r.p[r.i++];
            if (op >= opbase) {
                int adj = op - opbase;
                st.addr += (uint64_t)(adj / line_range) * (uint64_t)min_inst;
                st.line += line_base + adj % line_range;
                if (mine && push_row(f, &st))
                    return -1;
                continue;
            }
            switch (op) {
            case 0: {
                uint64_t n = uleb(&r);
                if (n == 0 || n > unit_end - r.i) {
                    r.bad = 1;
                    break;
                }
                size_t next = r.i + (size_t)n;
                uint8_t sub = r.p[r.i++];
                if (sub == 1) {                         /* end of sequence */
                    if (mine) {
                        f->done = 1;
                        return 0;
                    }
                    st = (struct row){0, 1, 1, 0};
                } else if (sub == 2) {                  /* set address: relocated */
                    const char *sym = reloc_symbol(w, r.i);
                    st.addr = fixed(&r, (int)(n - 1 > 8 ? 8 : n - 1));
                    mine = sym ? !strcmp(sym, symbol) : 0;
                } else if (sub == 0x90) {               /* nvcc: inlined at row ctx */
                    struct rd q = {r.p, r.i, next, 0};
                    st.ctx = (int)uleb(&q);
                }
                r.i = next;
                break;
            }
            case 1:
                if (mine && push_row(f, &st))
                    return -1;
                break;
            case 2: st.addr += uleb(&r) * (uint64_t)min_inst; break;
            case 3: st.line += (int)sleb(&r); break;
            case 4: st.file = (int)uleb(&r); break;
            case 8: st.addr += (uint64_t)((255 - opbase) / line_range) * (uint64_t)min_inst; break;
            case 9: st.addr += fixed(&r, 2); break;
            case 6: case 7: case 10: case 11: break;
            default:
                for (int k = 0; k < oplen[op]; k++)
                    uleb(&r);
            }
        }
        at = unit_end;
    }
    return f->done ? 0 : -1;
}

/* the row that covers pc: the last one at an address <= pc (rows go up by address); -1 none */
static int row_at(const struct found *f, uint64_t pc)
{
    int lo = 0, hi = f->nrows;              /* the first row past pc is in [lo, hi] */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (f->row[mid].addr <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

static int is_ours(const struct found *f, int file)
{
    return file > 0 && file < 256 && f->ours[file];
}

/* the line of the file at pc: its own frame nearest the instruction in the inlined-at chain
 * (*line), and the outermost one (*call); 0 when no frame of pc is in the file */
static void own_line(const struct found *f, uint64_t pc, int *line, int *call)
{
    int r = row_at(f, pc);
    *line = *call = 0;
    for (int hop = 0; r >= 0 && hop < 32; hop++) {
        if (is_ours(f, f->row[r].file)) {
            if (!*line)
                *line = f->row[r].line;
            *call = f->row[r].line;
        }
        int c = f->row[r].ctx;
        if (c <= 0 || c - 1 >= r)
            break;
        r = c - 1;
    }
}

/* the line table of function symbol's sequence in the cubin into *f (free f->row), its code
 * into *code and *size: 0, or -1 (not an ELF cubin, no such function, no line table) */
static int function_lines(const void *cubin, size_t n, const char *symbol, const char *file,
                          struct found *f, const uint8_t **code, size_t *size)
{
    struct elf_want w = {.b = cubin, .n = n};
    memset(f, 0, sizeof *f);
    if (sass_function_code(cubin, n, symbol, code, size) ||
        sass_sections(cubin, n, want_section, &w) != 0 || !w.line.p)
        return -1;
    if (read_lines(&w, symbol, file, f)) {
        free(f->row);
        f->row = NULL;
        return -1;
    }
    return 0;
}

int ksl_own_lines(const void *cubin, size_t n, const char *symbol, const char *file,
                  const unsigned *pcs, int npcs, int *lines)
{
    const uint8_t *code;
    size_t size;
    struct found f;
    for (int i = 0; i < npcs; i++)
        lines[i] = 0;
    if (function_lines(cubin, n, symbol, file, &f, &code, &size))
        return -1;
    for (int i = 0; i < npcs; i++) {
        int call;
        if (pcs[i] < size)
            own_line(&f, pcs[i], &lines[i], &call);
    }
    free(f.row);
    return 0;
}

int ksl_lines(const void *cubin, size_t n, const char *symbol, const char *file,
              struct kp_sass *out)
{
    memset(out, 0, sizeof *out);
    const uint8_t *code;
    size_t size;
    struct found f;
    if (function_lines(cubin, n, symbol, file, &f, &code, &size))
        return -1;
    int cap = 0;
    for (size_t pc = 0; pc + 16 <= size; pc += 16) {
        struct sass_insn d;
        if (!sass_decode(code + pc, &d) || !d.shared)
            continue;
        /* generic LD/ST: shared only when the address is; not counted as shared here */
        if ((d.op == GPU_KOP_LD || d.op == GPU_KOP_ST) && strncmp(d.text, "LDS", 3) &&
            strncmp(d.text, "STS", 3))
            continue;
        out->total++;
        int line = 0, call = 0;
        own_line(&f, pc, &line, &call);
        if (!line)
            continue;                        /* no line of the file: nothing to charge */
        if (bl_grow(&out->insn, &cap, out->n + 1, sizeof *out->insn, 32)) {
            free(f.row);
            kp_sass_free(out);
            return -1;
        }
        struct kp_sass_insn *o = &out->insn[out->n++];
        memset(o, 0, sizeof *o);
        o->line = line;
        o->call_line = call;
        o->pc = (unsigned)pc;
        o->op = d.op;
        o->bytes = d.bytes;
        o->ideal = d.ideal;
        bl_fmt(o->text, sizeof o->text, "%s", d.text);
    }
    free(f.row);
    return 0;
}

/* ---------------------------------------------------------------- compiling */

struct ksl_cubin {
    unsigned char *cubin;
    size_t size;
    char file[PATH_MAX];
};

struct ksl_cubin *ksl_compile(const char *src, size_t len, const struct gpu_kernel_request *req,
                              const char *name_expr, const atomic_int *cancel,
                              struct bl_msg *why)
{
    char real[PATH_MAX], dir[PATH_MAX], nvcc[PATH_MAX];
    knvcc_where(req->path, real, sizeof real, dir, sizeof dir);
    char named[PATH_MAX];
    bl_clean(named, sizeof named, real);
    /* nvcc reads the file by its real bytes; messages and NVRTC name it escaped */
    struct kcompile_in in = {src, len, named, dir, name_expr && name_expr[0] ? name_expr : NULL,
                             KSL_ARCH, req->cache_dir, NULL, NULL, req->nflags, req->flags,
                             real, req->time_limit, cancel, 0, 0};
    int have_nvcc = req->compiler != GPU_COMPILER_NVRTC && knvcc_find(nvcc, sizeof nvcc) == 0;
    if (have_nvcc)
        in.nvcc = nvcc;
    struct compiled comp;
    memset(&comp, 0, sizeof comp);
    struct bl_err err = {0};
    int rc;
#ifdef BANKLAB_GPU_CUDA
    if (!have_nvcc && req->compiler == GPU_COMPILER_NVCC) {
        bl_msg_set(why, NULL, 0, KSL_NO_NVCC_ASKED);
        return NULL;
    }
    struct rtc *rtc = krtc_new();
    int hit = 0;
    rc = rtc ? kcompile(rtc, &in, &comp, &hit, &err) : -1;
    krtc_free(rtc);
#else
    if (!have_nvcc) {
        bl_msg_set(why, NULL, 0, KSL_NO_COMPILER);
        return NULL;
    }
    int hit = 0;
    rc = kcompile_nvcc(&in, &comp, &hit, &err);
#endif
    if (rc && (err.status == GPU_KERNEL_ETIMEOUT || err.why.id == KRN_TMPDIR_FULL ||
               err.why.id == KRN_COMPILER_MEMORY)) {
        bl_err_msg(&err, why);  /* the reason itself: neither "no compiler" nor the file */
        free(comp.log);
        free(comp.cubin);
        return NULL;
    }
    if (rc) {
        struct bl_msg m;
        bl_err_msg(&err, &m);
        bl_msg_set(why, NULL, 0, KSL_NO_SASS_COMPILER, &m);
        free(comp.log);
        free(comp.cubin);
        return NULL;
    }
    free(comp.log);
    if (!comp.ok || !comp.cubin) {
        free(comp.cubin);
        bl_msg_set(why, NULL, 0, KSL_DOES_NOT_COMPILE, have_nvcc ? "nvcc" : "NVRTC");
        return NULL;
    }
    struct ksl_cubin *c = calloc(1, sizeof *c);
    if (!c) {
        free(comp.cubin);
        return NULL;
    }
    c->cubin = comp.cubin;
    c->size = comp.cubin_size;
    bl_fmt(c->file, sizeof c->file, "%s", real); /* its bytes: ksl_lines matches any naming */
    return c;
}

int ksl_kernel(const struct ksl_cubin *c, const char *name_expr, const char *src, size_t len,
               struct kp_sass *out, struct bl_msg *why)
{
    char sym[GPU_KERNEL_TEXT];
    memset(out, 0, sizeof *out);
    if (!name_expr || !name_expr[0]) {
        bl_msg_set(why, NULL, 0, KSL_TEMPLATE);
        return -1;
    }
    if (knvcc_symbol(c->cubin, c->size, name_expr, src, len, sym, sizeof sym)) {
        bl_msg_set(why, NULL, 0, KSL_NO_KERNEL, name_expr);
        return -1;
    }
    if (ksl_lines(c->cubin, c->size, sym, c->file, out)) {
        bl_msg_set(why, NULL, 0, KSL_NO_LINES, name_expr);
        return -1;
    }
    return 0;
}

void ksl_free(struct ksl_cubin *c)
{
    if (!c)
        return;
    free(c->cubin);
    free(c);
}
