/* exec.h: a learner's kernel executed, not read: the file compiled to PTX by nvcc
 * (-ptx -lineinfo -arch=sm_90), the request's kernel run on the CPU by the PTX executor
 * (src/ptx) with the request's launch (grid, block, --smem, --arg; every pointer parameter a
 * buffer of --buffer-size bytes filled as --fill says) and every executed shared access priced
 * by the bank model, summed per line of the file. No GPU, no curses. */
#ifndef BANKLAB_KERNEL_EXEC_H
#define BANKLAB_KERNEL_EXEC_H

#include "predict.h"

#define KEX_MAX_BUFFERS (1ull << 30)  /* bytes of buffers one execution may allocate */

/* kexec_apply: every line of r (a reading of the same request, kp_predict_sass) gets the
 * executed figures of the request's kernel run with the request's launch (a file with main()
 * too: its host code is not run): inst, wavefronts, ideal, excess and ways of the lines the
 * execution charges (an access in a helper or a header to the innermost frame in the file),
 * KP_NONE for a line no executed access stands on; r->executed 1. Returns 0 when applied, -1
 * when it could not be executed: r untouched but for exec_note (why, both languages); -2 when
 * that was not the kernel's doing (no nvcc, out of memory, a compile its guard stopped). */
int kexec_apply(const char *src, size_t len, const struct gpu_kernel_request *req,
                const char *name_expr, struct kp_result *r);

/* kexec_prefetch: the execution kexec_apply would make for the same file, request and kernel,
 * started now on a thread of its own (it reads of r only the lines' SASS, which the fixes do
 * not change), so that it runs beside what comes before kexec_apply (kp_fixes_exec executing
 * a fix's copy) on another core; kexec_apply then takes its figures (the same ones), or stops
 * it when its kept figures answer. Nothing for a file with host code. */
void kexec_prefetch(const char *src, size_t len, const struct gpu_kernel_request *req,
                    const char *name_expr, const struct kp_result *r);

/* kexec_apply_lines: the executed lines of a (its lines: file, line, inst, wavefronts, ideal,
 * ways, unmodelled) into r, those of file `named` (or of its base name) on r's lines;
 * r->executed 1. A conflicting line the reader has no why for gets one from its worst warp
 * when a has its instructions (a->pcs), as kexec_apply's have; a program's run has lines only. */
struct ptx_agg;
void kexec_apply_lines(const struct ptx_agg *a, const char *named, struct kp_result *r);

/* kexec_explain_warps: a why, from its kept worst warp (r->warps), for each conflicting line of
 * r that has none (a program's lines: executed in a child, its patterns kept, not its pcs);
 * cp.async lines are left as they are (.ca and .cg are not told apart in a kept warp). */
void kexec_explain_warps(struct kp_result *r);

/* kexec_apply_copy: kexec_apply of text, an edited copy of req's file (lines where they were),
 * written for nvcc as a file of the same name in a directory of its own (under the kernel
 * cache, named by the file's path and the text: the same copy is compiled and executed once;
 * without a cache a temporary directory, removed after), its file's directory an include
 * directory. Returns as kexec_apply; -1 with exec_note when the copy cannot be written. */
int kexec_apply_copy(const char *text, size_t tlen, const struct gpu_kernel_request *req,
                     const char *name_expr, struct kp_result *r);

/* kp_fixes_exec: for every conflicting line of r (kp_predict_sass of src with sass), a fix
 * or the reason there is none, into its fix fields: the reading (predict/fix.c) finds the
 * array and the index to edit and the candidates it finds conflict free; each is executed as
 * kexec_apply executes the file (the edited copy's PTX run on the CPU, name_expr the kernel,
 * a file with main() too) and proposed only when the run does not fault, leaves the line
 * conflict free and no other line of the array worse, the note in the executed figures; else
 * the next candidate, at most 3 runs a line, each rejected one named with its reason among
 * what was tried; where a candidate could not be executed at all (kexec_apply's -2: no nvcc,
 * say) the line says its fixes could not be checked, not that none was found. only: NULL for
 * every conflicting line, else the lines i with only[i] set (those an execution found
 * conflicting). name_expr NULL: the reading's candidates unexecuted (the unit tests of the
 * reading only; banklab itself always executes). */
void kp_fixes_exec(const char *src, size_t len, const struct gpu_kernel_request *req,
                   const struct kp_sass *sass, const char *name_expr,
                   const unsigned char *only, struct kp_result *r);

/* kexec_has_main: the file defines main() (outside comments and strings): `--model` runs the
 * program (predict/program.h) rather than the kernel alone */
int kexec_has_main(const char *src, size_t len);

#endif
