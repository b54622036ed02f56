/* reason.c: why the model cannot predict a line (reason.h): the reader's message as a short
 * phrase of the table below (by its id), or the message itself. */
#include <stdarg.h>
#include <string.h>
#include "../base/fmt.h"
#include "predict.h"
#include "reason.h"

/* the reader's messages (pattern_cuda.c) that have a short phrase for a line's reason; a
 * phrase with %s takes the first word of the message's first string (the name it is about) */
static const struct {
    int from, to;
} phrases[] = {
    {CU_IS_AN_ATOMIC_THE_PATTERN, KP_R_ATOMIC},
    {CU_TAKES_A_SHARED_ADDRESS_FOR, KP_R_SHARED_ADDRESS},
    {CU_INLINE_ASM_LDMATRIX_STMATRIX_CP, KP_R_INLINE_ASM},
    {CU_POINTS_TO_GLOBAL_MEMORY_A, KP_R_GLOBAL_INDEX},
    {CU_LINE_IS_A_LOCAL_ARRAY, KP_R_LOCAL_ARRAY},
    {CU_DATA_DEPENDENT_LOOP, KP_R_DATA_LOOP},
    {CU_THE_KERNEL_PARAMETER_HAS_NO, KP_R_NO_VALUE},
    {CU_IS_NOT_DECLARED_IN_THIS, KP_R_UNDECLARED},
    {CU_CHANGES_AT_LINE_AFTER_ITS, KP_R_CHANGES},
    {CU_IS_A_MACRO_WITH_ARGUMENTS, KP_R_MACRO},
    {CU_THE_INDEX_CALLS_THE_PATTERN, KP_R_CALLS},
    {CU_LOOP_STEP_UNKNOWN, KP_R_STEP},
    {CU_LOOP_NO_VARIABLE, KP_R_NO_LOOP_VAR},
    {CU_LOOP_NO_CONDITION, KP_R_NO_CONDITION},
    {CU_INSIDE_SWITCH, KP_R_SWITCH},
    {CU_IS_EXTERN_SHARED_AND_THE, KP_R_EXTERN_NO_SMEM},
    {CU_IS_NOT_AN_INTEGER_THE, KP_R_NOT_INTEGER},
    {PAT_IS_NOT_AN_INTEGER_THE, KP_R_NOT_INTEGER},
};

static int kp_reason_phrase(int id)
{
    for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++)
        if (phrases[i].from == id)
            return phrases[i].to;
    return BL_MSG_NONE;
}

/* a reason of msg.def's row id */
void kp_reason_id(struct kp_line *l, int id, ...)
{
    va_list ap;
    va_start(ap, id);
    bl_msg_vset(&l->reason, NULL, 0, id, ap);
    va_end(ap);
    l->state = KP_CANNOT;
}

/* the first word (up to a space, ':' or '=') of m's first string argument, into name */
static void first_word(const struct bl_msg *m, char *name, size_t n)
{
    name[0] = 0;
    for (int i = 0; i < m->nargs; i++)
        if (m->arg[i].kind == 's') {
            const char *s = m->sbuf + m->arg[i].v.s;
            bl_fmt(name, n, "%.*s", (int)strcspn(s, " :="), s);
            return;
        }
}

/* the reason of err (the reader's or, model 1, the model's): the reader's message's phrase
 * (the table above), else err's message itself, "the model: " before the model's, the
 * Chinese "cannot express" before text from outside the table */
void kp_reason_err(struct kp_line *l, const struct bl_err *err, int model)
{
    int id = err->why.id, to = model ? BL_MSG_NONE : kp_reason_phrase(id);
    l->state = KP_CANNOT;
    if (to != BL_MSG_NONE) {
        char name[64];
        first_word(&err->why, name, sizeof name);
        bl_msg_set(&l->reason, NULL, 0, to, name, name);  /* a phrase takes at most two */
        return;
    }
    struct bl_msg m;
    bl_err_msg(err, &m);
    if (model)
        bl_msg_set(&l->reason, NULL, 0, KP_THE_MODEL, &m);
    else if (id == BL_MSG_NONE || id == BL_TEXT)
        bl_msg_set(&l->reason, NULL, 0, KP_CANNOT_EXPRESS, &m);
    else
        l->reason = m;
}
