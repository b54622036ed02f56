/* fuzz_lesson.c: libFuzzer target for the lesson loader: any bytes through
 * lesson_load_report (every problem reported), then lesson_check on what loads, then free;
 * the same through lesson_load_partial (what `banklab check` runs).
 * Must never crash, hang, leak or trip a sanitizer. Links src/store (the loader), src/lesson
 * and src/model. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../src/lesson/lesson.h"
#include "../../src/lesson/scene.h"
#include "../../src/store/lesson_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count(const struct lesson_error *e, void *ctx)
{
    /* touch the message: it must be a terminated string */
    *(size_t *)ctx += strlen(e->err.msg) + strlen(e->file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t sink = 0;
    int np = 0;
    struct lesson *l = lesson_load_report("fuzz.json", (const char *)data, size, count, &sink,
                                          &np);
    if (l) {
        lesson_check(l, count, &sink);
        for (int i = 0; i < l->nsteps; i++) {
            const struct lesson_step *st = &l->steps[i];
            if (!st->scene)
                continue;
            struct scene_run r = {0};
            scene_run(&r, &(struct scene_in){.scene = st->scene, .type = i, .access = -1, .warp = -1},
                      NULL, NULL, NULL);
            scene_run_free(&r);
            (void)lesson_tr(&st->title, LANG_ZH);
        }
        lesson_free(l);
    }
    /* what `banklab check` does: the parts that hold, checked after a problem */
    l = lesson_load_partial("fuzz.json", (const char *)data, size, count, &sink, &np);
    if (l) {
        lesson_check(l, count, &sink);
        lesson_free(l);
    }
    return 0;
}
