/* kview_play.c: a line of the kernel view's file in the playground (Enter on a line without
 * warps, and Enter on the warp grid): the line's shared accesses in the pattern language
 * (pattern_cuda.h) with what they need, or why the language cannot express them. */
#include <string.h>

#include "../base/fmt.h"
#include "../base/utf8.h"
#include "../model/pattern_cuda.h"
#include "kview.h"

int kv_play_open(struct app *a, const struct kview *k, const struct kv_row *w, char *why,
                 size_t size)
{
    if (w->file != 0) {
        bl_fmt(why, size, "%s", ui_str(a, UIS_KV_OTHER_FILE));
        return -1;
    }
    const struct gpu_kernel_request *rq = &k->req;
    const char *names[GPU_KERNEL_MAX_ARGS], *values[GPU_KERNEL_MAX_ARGS];
    for (int i = 0; i < rq->nargs && i < GPU_KERNEL_MAX_ARGS; i++) {
        names[i] = rq->args[i].name;
        values[i] = rq->args[i].value;
    }
    struct pattern_cuda_launch l = {.grid = {rq->grid[0], rq->grid[1], rq->grid[2]},
                                    .block = {rq->block[0], rq->block[1], rq->block[2]},
                                    .dyn_bytes = rq->smem, .nargs = rq->nargs,
                                    .arg_name = names, .arg_value = values};
    struct pattern_cuda pc;
    if (pattern_from_cuda(k->src, k->srclen, w->line, &l, &pc) != 0) {
        char msg[2 * PATTERN_MSG_MAX];
        bl_fmt(why, size, "%s %d%s%s", ui_str(a, UIS_KV_LINE), w->line,
               ui_str(a, UIS_COLON), ui_err(a, &pc.err, msg, sizeof msg));
        return -1;
    }
    /* the playground's text: declarations; the values it needs; the accesses */
    char text[2 * PATTERN_CUDA_TEXT + 256];
    size_t o = bl_fmt(text, sizeof text, "%s", pc.decls);
    for (int i = 0; i < pc.env.nparams; i++)
        o += bl_fmt(text + o, sizeof text - o, "%s%s=%lld", o ? "; " : "", pc.env.param[i].name,
                    pc.env.param[i].value);
    const unsigned *b = pc.env.block;
    if (b[0] != 32 || b[1] != 1 || b[2] != 1) {
        char dims[32];
        kv_fmt_dims(b, dims, sizeof dims);
        o += bl_fmt(text + o, sizeof text - o, "%sblock=%s", o ? "; " : "", dims);
    }
    if (strstr(pc.decls, "extern "))
        o += bl_fmt(text + o, sizeof text - o, "%sdynamic=%llu", o ? "; " : "",
                    (unsigned long long)pc.env.dyn_bytes);
    bl_fmt(text + o, sizeof text - o, "%s%s", o ? "; " : "", pc.accesses);
    if (strlen(text) + 1 >= sizeof text || play_open(a, text) != 0) {
        bl_fmt(why, size, "%s", ui_str(a, UIS_KV_TOO_LONG));
        return -1;
    }
    char note[2 * PATTERN_MSG_MAX], shown[2 * PATTERN_MSG_MAX];
    if (pc.note.id && bl_msg_render(&pc.note, ui_lang(a), shown, sizeof shown))
        app_msg(a, 0, "%s %d%s%s", ui_str(a, UIS_KV_LINE), w->line, ui_str(a, UIS_COLON),
                bl_clean(note, sizeof note, shown));
    return 0;
}
