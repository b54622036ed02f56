/* kernel_model.h: the model's side of `banklab kernel` (kernel_model.c): --model, --fix and
 * the predicted column beside the measured ones. */
#ifndef BANKLAB_CLI_KERNEL_MODEL_H
#define BANKLAB_CLI_KERNEL_MODEL_H

#include <stddef.h>
#include <stdio.h>

#include "../base/err.h"
#include "../kernel/kernel.h"
#include "../predict/predict.h"
#include "../predict/program.h"
#include "../store/json_write.h"

/* kmodel_predict: the reading (kp_predict_sass), its fixes executed (kp_fixes_exec) and the
 * kernel executed (kexec_apply): no figures when it is not (kp_unexecuted). Returns 0, or -1
 * with kp_predict_sass's err. */
int kmodel_predict(const char *src, size_t len, const struct gpu_kernel_request *req,
                   struct kp_result *r, struct bl_err *err);

/* kmodel_print: --model: the prediction of every line (text, or JSON), why and fixes, driven
 * by the SASS nvcc makes of the file (compiled once), for each of the n requests (one per
 * kernel: several without --name; JSON then an array of the objects); zh: the notes in
 * Chinese; sass: each line's SASS instructions; run: main's run (kxrun_start), whose launches
 * give the kernels' figures, or NULL. Returns the exit status. */
int kmodel_print(const char *file, const char *src, size_t len,
                 const struct gpu_kernel_request *reqs, int n, int json, int zh, int sass,
                 const struct kxrt_result *run);

/* kmodel_write_fix: --fix: the fix of the line with the most excess that has one, written to
 * FILE.fixed.cu (into fixed; never over an existing file); prints the note. Returns 0, or the
 * exit status with the reason on stderr. json: the note on stderr. */
int kmodel_write_fix(const char *file, const char *src, size_t len,
                     const struct gpu_kernel_request *req, char *fixed, size_t fsz, int json);

/* kmodel_put_notes: under a line's row: why the model cannot predict it, or why it
 * conflicts and the fix (zh: in Chinese) */
void kmodel_put_notes(FILE *f, const struct kp_line *l, int zh);

/* kmodel_json_lines: the predicted lines of r as the array key of w's open object */
void kmodel_json_lines(struct jw *w, const char *key, const char *src, size_t len,
                       const struct kp_result *r);

/* kxrun_start (kernel_xrun.c): --model on a file with main() where this build has banklab's
 * CUDA runtime (in lib_dir): the program built and run as it is into r (kxrt_done it), its own
 * output on stderr (not with json: stdout and stderr stay banklab's JSON and messages). 0; -1 without nvcc (nothing said: the model reads the source); else the
 * exit status, the reason said (nvcc's messages too). kxrun_end: how it ended, on stderr;
 * the exit status: 0, 1 (it failed, timed out or was killed), 2 (it calls what the runtime
 * does not have, or the runtime could not start). */
int kxrun_start(const char *file, const struct gpu_kernel_request *req, const char *lib_dir,
                int zh, int json, struct kxrt_result *r);
int kxrun_end(const char *file, const struct kxrt_result *r, int zh);

#endif
