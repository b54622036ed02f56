/* compile.h: CUDA source to cubin, and what the compiled code says per line: a learner's
 * file compiled with NVRTC (cuda_nvrtc.c) or the toolkit's nvcc as a process (nvcc.c)
 * through the cache of compiled kernels (cache.c), the kernel's symbol found among the
 * cubin's demangled names (demangle.c), its shared-memory SASS decoded (sass.c) and mapped
 * to source lines through the cubin's DWARF line table (lines.c). No CUDA in this header. */
#ifndef BANKLAB_COMPILE_H
#define BANKLAB_COMPILE_H

#include <elf.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "../base/buf.h"
#include "../base/err.h"
#include "../kernel/kernel.h"

/* The bytes a note of the report (a predictor's message rendered by the cli or the ui) takes. */
#define KP_TEXT 384

/* ---- cuda_nvrtc.c, nvcc.c, demangle.c: compiling ---- */

/* The compile step (cuda_nvrtc.c: NVRTC and the cubin cache; nvcc.c) as the measuring
 * process (kmeasure/cuda_request.c) and the line reader (lines.c) use it. */

/* What NVRTC made of a file. */
struct compiled {
    char *log;                   /* NVRTC's log (warnings too) */
    char lowered[GPU_KERNEL_TEXT]; /* the chosen kernel's symbol in the cubin */
    unsigned char *cubin;
    size_t cubin_size;
    int ok;                      /* compiled without errors */
};

void compiled_done(struct compiled *c);

struct kcompile_in {
    const char *src;
    size_t len;
    const char *name;            /* the program's name: the file's real path (line info) */
    const char *dir;             /* its directory: -I */
    const char *name_expr;       /* the kernel to lower (NULL: none chosen yet) */
    int arch;                    /* sm_<arch> */
    const char *cache_dir;       /* NULL or "": no cache */
    FILE *dbg;                   /* debug log or NULL */
    const char *nvcc;            /* NULL: NVRTC; else the nvcc to run (compile/nvcc.c) */
    int nflags;                  /* the request's -I, -D and --nvcc-flag words */
    const char (*flags)[GPU_KERNEL_TEXT];
    const char *path;            /* the file's real bytes for nvcc (NULL: name); name may be
                                  * its escaped copy, for messages and NVRTC */
    double limit_s;              /* nvcc's deadline (0: 60 s) */
    const atomic_int *cancel;    /* nvcc is stopped when it turns non-zero (or NULL) */
    int ptx;                     /* nvcc only: -ptx instead of -cubin (out->cubin holds the
                                    PTX text, out->lowered stays empty) */
    int rtc_first;               /* with ptx: a fix's copy, which krtc_compile may compile
                                    with the NVRTC of nvcc's toolkit */
};

/* libnvrtc, loaded on first use and kept. */
struct rtc;
struct rtc *krtc_new(void);
void krtc_free(struct rtc *r);

/* kcompile: compile (or take from the cache) into out. Returns 0 with out->ok telling
 * whether it compiled (the log holds the messages), or -1 with err (GPU_KERNEL_ESYSTEM) when
 * NVRTC is missing or failed otherwise. *cache_hit is 1 when the cache answered. */
int kcompile(struct rtc *r, const struct kcompile_in *in, struct compiled *out, int *cache_hit,
             struct bl_err *err);

/* ---- nvcc.c: the toolkit's nvcc, for files with host code (no CUDA headers) ---- */

/* knvcc_find: the nvcc to use: $BANKLAB_NVCC, $CUDA_HOME/bin/nvcc, the build's CUDA home,
 * nvcc on $PATH, /usr/local/cuda/bin/nvcc; the first that is an executable file. 0 with its
 * path, -1 when there is none. */
int knvcc_find(char *path, size_t size);

/* knvcc_toolkit: the toolkit nvcc belongs to: its real path's directory's parent, where
 * include/cuda_runtime.h stands, into root. 0, or -1 (nvcc is a wrapper outside a toolkit). */
int knvcc_toolkit(const char *nvcc, char *root, size_t size);

/* knvcc_where: the source file at path as nvcc is given it: its real path into real (path
 * itself when it has none) and the directory it stands in into dir ("/" or "." at the top):
 * the compile runs there, so that its own #include "..." files are found. */
void knvcc_where(const char *path, char *real, size_t rsize, char *dir, size_t dsize);

/* knvcc_host_id: what identifies the host compiler nvcc runs for a whole program (gcc and
 * g++ on $PATH: their paths, sizes and modification times, and $PATH) in a cache key. */
void knvcc_host_id(char *id, size_t size);

/* knvcc_kept_deps: kcache_deps of the files a compile read, from the preprocessed text that
 * `nvcc -keep --keep-dir dir` left in dir (one NAME.cpp1.ii); since: when the compile
 * started. NULL when there is no such file or a file it read cannot stand in an entry. */
char *knvcc_kept_deps(const char *dir, struct timespec since);

/* knvcc_id: what identifies that nvcc in a cache key: its path, size and modification
 * time, and those of the cicc and ptxas beside it (a toolkit updated in place changes
 * them). */
void knvcc_id(const char *nvcc, char *id, size_t size);

/* kcompile_nvcc: the device side of in->src's file (in->name) with nvcc -cubin (-ptx when
 * in->ptx) -lineinfo -arch=sm_<arch>, its -I, -D and flags; run as a process (an argv, no
 * shell) in a private temporary directory. out->log holds the messages in NVRTC's form
 * (file(line): error: ..., the line and an exact caret: ksrc_parse_log reads both),
 * out->lowered the symbol of in->name_expr found among the cubin's functions. Through the
 * cache in in->cache_dir (none when it is NULL or "", or in->name_expr is NULL): an entry of
 * the same key (kcache_key_compile: the output kind, the identity of nvcc and of the cicc
 * and ptxas beside it, the options, the source and its quoted includes) answers without
 * running nvcc (*cache_hit 1). A cubin compiled is kept only when the kernel's symbol was found in
 * it; compiling a cubin also keeps the PTX nvcc made on the way (-keep), under the key a
 * -ptx compile of the same input has, so the executor's PTX (predict/exec.c) needs no second
 * nvcc. Returns 0 with out->ok telling whether it compiled, or -1 with err
 * (GPU_KERNEL_ESYSTEM) when nvcc could not be run; out->cubin, from nvcc or the cache, has a NUL after its
 * cubin_size bytes (a -ptx compile's text is a string). */
int kcompile_nvcc(const struct kcompile_in *in, struct compiled *out, int *cache_hit,
                  struct bl_err *err);

/* ---- rtc.c: NVRTC as a guarded child, for a fix's copy ---- */

/* krtc_enable: this process is banklab, whose `banklab __nvrtc` (krtc_child_main) krtc_compile
 * runs as /proc/self/exe; without it (a unit test's binary) krtc_compile declines. */
void krtc_enable(void);
int krtc_child_main(int argc, char **argv);

/* krtc_compile: the PTX (in->ptx) of in->rtc_first's file, for sm_90, when nvcc's toolkit holds
 * libnvrtc, the file's name is its real bytes and its every #include names a file: made by
 * that NVRTC in a child under the compiler guard, through the cache (a key of NVRTC's and
 * nvcc's toolkit's identity; an entry holds the files its includes found outside the toolkit,
 * kcache_deps). 1: out filled (ok; *cache_hit 1 when the cache answered); 0: not made this way
 * (NVRTC refused it or is not there: kcompile_nvcc's turn, out untouched); -1 with err (its
 * deadline, a cancel). */
int krtc_compile(const struct kcompile_in *in, struct compiled *out, int *cache_hit,
                 struct bl_err *err);

/* kcompile_has_main: 1 when src defines or declares a function main (outside comments and
 * strings): a program, not a kernel-only file. */
int kcompile_has_main(const char *s, size_t n);

/* knvcc_symbol: the cubin's function for name_expr ("k", "ns::k", "k<float4, 4>", "k<MODE_A>"
 * with MODE_A an enumerator, #define or const int of src), by the demangled names of its
 * ".text." sections: the exact instance, else the only function of that name. 0 with the
 * symbol in sym, -1 when none (or several) match. src may be NULL. */
/* kdemangle: the name of a mangled symbol with its template arguments ("ns::k<float4, 4>");
 * an unmangled one is its own name. 0, or -1 when it cannot be read. */
int kdemangle(const char *sym, char *out, size_t n);

int knvcc_symbol(const void *cubin, size_t size, const char *name_expr, const char *src,
                 size_t srclen, char *sym, size_t symsz);

/* ---- cache.c ---- */

/* The cache of compiled kernels behind `banklab kernel` (compile/cache.c):
 * the key (everything that goes into a cubin, the quoted includes found in time linear in
 * what they hold), and entries read and written in a directory that must be this user's
 * alone, never through a link (docs/security.md). Plain C, no CUDA: used by compile/cuda_nvrtc.c
 * and the unit tests. Never prints. */

/* A cache key is a struct bl_buf (base/buf.h) made with KCACHE_KEY(): everything appended
 * stays under KCACHE_KEY_MAX bytes; past it, or out of memory, key.failed (do not cache). */
#define KCACHE_KEY() BL_BUF_MAX(KCACHE_KEY_MAX)

#define KCACHE_INCLUDE_MAX (1u << 20)     /* bytes read of one included file */
#define KCACHE_INCLUDES_MAX 4096          /* distinct included files */
#define KCACHE_KEY_MAX (64u << 20)        /* bytes of a whole key */

/* kcache_key_includes: the quoted includes of src (len bytes, in directory dir), and theirs,
 * each distinct file (by device and inode) once, added to k as "\ninclude PATH\n" and its
 * bytes: editing a header must not bring back a stale cubin, and a header included many times
 * (guarded, #pragma once, including itself) is read once. Only regular files are read. Over
 * the limits above k->failed is set (the caller then compiles without the cache). Returns 0,
 * or -1 when k->failed. */
int kcache_key_includes(struct bl_buf *k, const char *dir, const char *src, size_t len);

/* kcache_dir_open: dir (made with its parents, 0700, when missing) opened as a directory
 * without following a link at its last step, and accepted only when it is this user's and no
 * one else may enter or write it (as the measuring server's socket directory). Returns the
 * descriptor, or -1 with err ("... is open to others", "... belongs to uid N"). */
int kcache_dir_open(const char *dir, struct bl_err *err);

/* kernel_cache_refused: 0 when dir can be the cache (kcache_dir_open accepts it, made when
 * missing), else 1 with err: what the command line says before it runs without the cache. */
int kernel_cache_refused(const char *dir, struct bl_err *err);

/* One cached compile: what kcache_load fills (malloc'ed; free them) and kcache_store writes. */
struct kcache_entry {
    char *log;
    char *lowered;
    unsigned char *cubin;
    size_t cubin_size;
    char *deps;                  /* kcache_store: NULL or kcache_deps' list; kcache_load
                                    checks it and leaves this NULL */
};

/* kcache_deps: for each absolute path of paths (one a line) other than those under the
 * directory skip, a line "HASH PATH" (the hash of its bytes now): the files a compile read,
 * which an entry holds and kcache_load reads again, so an edited header that the key's
 * include scan cannot see (found through -I or <...>) is a miss. NULL (store no entry) when
 * a path is not absolute, cannot be read, or was changed (its data or its inode) at or
 * after since (CLOCK_REALTIME when the compile started). Free it. */
char *kcache_deps(const char *paths, const char *skip, struct timespec since);

/* kcache_load: the entry name in directory dfd when it is a regular file of this user's (no
 * link followed) whose key equals key, whose checksum holds (no byte changed, none missing
 * or added) and whose files (kcache_deps) still have the bytes they had. 0, or -1 (no entry,
 * not ours, another key, altered, a file it read changed). */
int kcache_load(int dfd, const char *name, const struct bl_buf *key, struct kcache_entry *e);

/* kcache_store: writes the entry under a temporary name made exclusively (O_EXCL, never
 * through a link) in dfd, then renames it to name. 0, or -1 with errno (the temporary file
 * is removed). Temporary files of killed stores (untouched for 10 minutes) go first. */
int kcache_store(int dfd, const char *name, const struct bl_buf *key,
                 const struct kcache_entry *e);

/* The entries' bytes in one cache directory stay under KCACHE_DIR_MAX: after each store,
 * kcache_trim removes the least recently used (a hit refreshes an entry's modification
 * time) until they fit. kcache_trim returns how many it removed, -1 when dfd cannot be
 * read. Only entries' names (16 hex digits, '.', a kind) of regular files of this user's
 * are counted and removed. */
#define KCACHE_DIR_MAX (256ull << 20)
int kcache_trim(int dfd, unsigned long long max);

/* kcache_key_compile: the key of in's compile into key (free key->s) and the entry's name
 * ("HASH.KIND") into cname: "banklab kernel cache 2", kind ("cubin", "ptx"), the
 * compiler's identity (nvcc's files, or NVRTC's version), in->name, in->name_expr, opts, the
 * source and its quoted includes (kcache_key_includes). 0, or -1 when there is to be no
 * cache (no directory, no name_expr, a key over its limits). */
int kcache_key_compile(const struct kcompile_in *in, const char *kind, const char *compiler,
                       const char *const *opts, int nopts, struct bl_buf *key, char *cname,
                       size_t n);

/* kcache_get: the entry cname of key in cache_dir into out (log, lowered, cubin; ok 1).
 * 0 on a hit; -1 (no entry, another key, an entry torn or altered, a refused directory). */
int kcache_get(const char *cache_dir, const char *cname, const struct bl_buf *key,
               struct compiled *out);

/* kcache_put: bytes[size] (with the log, the lowered name and deps, kcache_deps' list or
 * NULL) stored as cname of key in in->cache_dir; a failure only goes to in->dbg. */
void kcache_put(const struct kcompile_in *in, const char *cname, const struct bl_buf *key,
                const char *log, const char *lowered, const void *bytes, size_t size,
                const char *deps);

/* ---- sass.c: shared-memory instructions in a cubin (sm_70 .. sm_90 encodings) ---- */

struct sass_insn {
    int shared;          /* 1: an instruction that moves data through shared memory */
    int op;              /* enum gpu_kernel_op */
    int bytes;           /* per thread (LDS/STS/LDGSTS/ATOMS) or 16 per matrix row (LDSM) */
    int ideal;           /* wavefronts a full warp needs with no conflict */
    char text[24];       /* "LDS.128", "STS.U8", "LDSM.x4.T", ... */
};

/* sass_sections: each section of a 64-bit little-endian ELF cubin (n bytes) whose name ends
 * within the section-name table: fn(name, its header, arg) until fn returns nonzero. Returns
 * that, 0 when fn saw them all, or -1 when the cubin is not such an ELF. */
int sass_sections(const void *cubin, size_t n,
                  int (*fn)(const char *name, const Elf64_Shdr *sh, void *arg), void *arg);

/* sass_function_code: the machine code of function `symbol` in an ELF cubin: *code points
 * into cubin, *size its bytes. Returns 0, or -1 when the cubin is not ELF or has no
 * ".text.<symbol>" section. */
int sass_function_code(const void *cubin, size_t cubin_size, const char *symbol,
                       const uint8_t **code, size_t *size);

/* sass_arch_known: 1 when sass_decode knows the encodings of sm_<sm> (70 .. 90). */
int sass_arch_known(int sm);

/* sass_decode: decode the 16-byte instruction at insn. Returns 1 with *out filled when it is
 * a known shared-memory instruction, 0 otherwise (out->shared = 0). */
int sass_decode(const uint8_t insn[16], struct sass_insn *out);

/* The rule an instruction's SASS name (sass_decode's text) says it is priced by. sass_each_lane:
 * an atomic (op GPU_KOP_ATOM) that serves every lane's word on its own (ATOMS, ATOMS.CAS, or one
 * the decoder does not name), not ATOMS.POPC.INC, which serves the lanes on one word together.
 * sass_cg: cp.async.cg, LDGSTS.BYPASS (.cg's rule, model/bank.h's bank_cg_wavefronts). */
int sass_each_lane(int op, const char *sass);
int sass_cg(const char *sass);

/* ---- lines.c ---- */

/* Which source lines of a learner's kernel hold shared-memory
 * instructions in the compiled code, and which ones: the file compiled for the target (nvcc
 * -cubin -lineinfo -arch=sm_90 without a GPU, NVRTC where there is no nvcc; the kernel cache
 * keeps the cubin), the kernel's SASS decoded (compile/sass.c: LDS, STS, LDSM, STSM, ATOMS,
 * LDGSTS and their widths) and mapped to lines through the cubin's DWARF line table
 * (.debug_line), inlined code charged to the line in the file nvcc charges it to (a helper's
 * line), a header's code to the line of the file that called it. The list (struct kp_sass,
 * below) drives the model's report (predict/predict.h): no line with a shared instruction is left
 * without a figure or a reason. Runs the compiler as a process; no CUDA runtime, no curses. */

/* A shared-memory instruction of the compiled kernel, as the model needs
 * it: the line nvcc charges it to, its kind and width. */
struct kp_sass_insn {
    int line;                       /* the file's line nvcc charges it to (a helper's line) */
    int call_line;                  /* the kernel's line it was inlined from (= line if not) */
    unsigned pc;
    int op;                         /* enum gpu_kernel_op */
    int bytes;                      /* per lane (16 for a matrix row) */
    int ideal;                      /* wavefronts of a full warp without a conflict */
    char text[24];                  /* "LDS.128", "STS.U8", "LDSM.16.M88.4", ... */
};

struct kp_sass {
    int n;
    struct kp_sass_insn *insn;
    int total;                      /* shared instructions of the kernel, those of no line of
                                       the file too (n counts only those with a line) */
};

void kp_sass_free(struct kp_sass *s);

/* ksl_compile: compile src (the file req->path) once for sm_90 into a handle whose kernels
 * ksl_kernel reads; NULL when there is no compiler or it refused the file: *why (a message)
 * says so (for the report's note). nvcc runs under the compiler guard
 * (compile/spawn.h) with req->time_limit as its deadline, stopped early when *cancel (if not
 * NULL) turns non-zero. */
struct ksl_cubin;
struct ksl_cubin *ksl_compile(const char *src, size_t len, const struct gpu_kernel_request *req,
                              const char *name_expr, const atomic_int *cancel,
                              struct bl_msg *why);

/* ksl_kernel: the shared-memory instructions of kernel name_expr ("k", "k<32>") of the
 * compiled file, per line of the file, into *out (free with kp_sass_free). 0, or -1 when the
 * cubin has no such kernel (why filled). */
int ksl_kernel(const struct ksl_cubin *c, const char *name_expr, const char *src, size_t len,
               struct kp_sass *out, struct bl_msg *why);

void ksl_free(struct ksl_cubin *c);

/* ksl_lines: the same from a cubin in memory (tests): the instructions of function `symbol`
 * in the file whose name ends in `file` (a header's code charged to that file's calling
 * line). 0, or -1 (not an ELF cubin, no such function, no line table). */
int ksl_lines(const void *cubin, size_t n, const char *symbol, const char *file,
              struct kp_sass *out);

/* ksl_own_lines: for each of npcs instruction offsets pcs[] of function `symbol`, the line
 * of the file whose name ends in `file` that the instruction is charged to, as ksl_lines does
 * (its frame in that file nearest the instruction in the DWARF inlined-at chain), into
 * lines[i], 0 where no frame is in the file; for any instruction, shared or not decoded (the
 * sanitizer route knows which are shared). 0, or -1 as ksl_lines. */
int ksl_own_lines(const void *cubin, size_t n, const char *symbol, const char *file,
                  const unsigned *pcs, int npcs, int *lines);

#endif
