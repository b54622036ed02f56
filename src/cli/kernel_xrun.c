/* kernel_xrun.c: `banklab kernel FILE.cu --model` on a file with main(), where this build has
 * banklab's CUDA runtime (src/predict/program.h): the program is built and run as it is, each
 * kernel main launches runs on the CPU through the PTX executor, and kmodel_print reports
 * every kernel with the figures of main's launch of it (kxrt_apply); here the run itself: the
 * program's own output on stderr, apart from the figures, and how it ended. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../predict/program.h"
#include "cli.h"
#include "kernel_model.h"

/* a program may run this long on the CPU unless --time-limit asks for longer */
#define KXRUN_SECONDS 120

/* one message of msg.def in the reader's language, a newline after it */
static void say_msg(FILE *f, int zh, int id, ...)
{
    struct bl_msg m;
    char text[1024];
    va_list ap;
    va_start(ap, id);
    bl_msg_vset(&m, NULL, 0, id, ap);
    va_end(ap);
    bl_msg_render(&m, zh ? BL_LANG_ZH : BL_LANG_EN, text, sizeof text);
    fprintf(f, "%s\n", text);
}

/* how the program ended, on stderr; the exit status of banklab */
int kxrun_end(const char *file, const struct kxrt_result *r, int zh)
{
    switch (r->end) {
    case KXRT_UNSUPPORTED:
        say_msg(stderr, zh, KXRT_SAY_UNSUPPORTED, CLI_CLEAN(file), CLI_CLEAN(r->what));
        return EXIT_USAGE;
    case KXRT_SETUP:
        say_msg(stderr, zh, KXRT_SAY_SETUP, CLI_CLEAN(file), CLI_CLEAN(r->what));
        return EXIT_USAGE;
    case KXRT_TIMEOUT:
        say_msg(stderr, zh, KXRT_SAY_TIMEOUT, CLI_CLEAN(file), r->status);
        return EXIT_CHECK;
    case KXRT_SIGNAL:
        say_msg(stderr, zh, KXRT_SAY_SIGNAL, CLI_CLEAN(file), r->status);
        return EXIT_CHECK;
    default:
        if (r->status == 0)
            return 0;
        say_msg(stderr, zh, KXRT_STATUS, CLI_CLEAN(file), r->status);
        return EXIT_CHECK;
    }
}

int kxrun_start(const char *file, const struct gpu_kernel_request *req, const char *lib_dir,
                int zh, int json, struct kxrt_result *r)
{
    struct bl_err err = {0};
    int secs = req->time_limit > KXRUN_SECONDS ? (int)req->time_limit : KXRUN_SECONDS;
    if (kxrt_run(file, req, lib_dir, secs, NULL, r, &err)) {
        int rc = err.why.id == KXRT_NO_NVCC ? -1 : EXIT_USAGE;
        if (rc != -1) {
            if (r->err && r->err[0])
                cli_put_clean(stderr, r->err, 1);
            char text[BL_ERR_TEXT];
            cli_tell("kernel", CLI_PATH_SAYS, CLI_CLEAN(file),
                    bl_err_text(&err, zh ? BL_LANG_ZH : BL_LANG_EN, text, sizeof text));
        }
        kxrt_done(r);
        return rc;
    }
    for (int s = 0; s < 2 && !json; s++) {
        const char *t = s ? r->err : r->out;
        if (t && t[0]) {
            const char *stream = s ? "stderr" : "stdout";
            say_msg(stderr, zh, KXRT_OUTPUT, stream);
            cli_put_clean(stderr, t, 1);
            if (t[strlen(t) - 1] != '\n')
                fputc('\n', stderr);
        }
    }
    return 0;
}
