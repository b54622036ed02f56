/* reason.c: why the model cannot predict a line, in both languages (reason.h): the reader's
 * and the model's messages as a short phrase of the table below, or the message itself. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../base/fmt.h"
#include "../model/bank.h"
#include "../model/clex.h"
#include "../model/pattern_cuda.h"
#include "predict.h"
#include "reason.h"

/* ---------------------------------------------------------------- reasons, in two languages */

/* what pattern_from_cuda says, as one short phrase: {part of its message, en, zh}; %s is
 * the first word of the message (the name it is about) */
static const char *const reasons[][3] = {
    {"is an atomic", "%s is an atomic: the model has loads and stores only",
     "%s 是原子操作：模型只有 load 和 store"},
    {"takes a shared address", "%s takes a shared address (cp.async, ldmatrix, asm): not an index",
     "%s 取的是共享内存地址（cp.async、ldmatrix、asm）：不是下标"},
    {"inline asm", "inline asm (ldmatrix, stmatrix, cp.async): an address, not an index",
     "内联汇编（ldmatrix、stmatrix、cp.async）：给的是地址，不是下标"},
    {"points to global memory", "an index read from memory (%s points to global memory)",
     "下标是从内存读出的（%s 指向全局内存）"},
    {"local array", "an index read from a local array (%s)", "下标是从局部数组读出的（%s）"},
    {"data-dependent loop", "a data-dependent loop (while): the model cannot count its trips",
     "依赖数据的循环（while）：模型数不出它的次数"},
    {"has no value (--arg", "the parameter %s has no value (--arg %s=VALUE)",
     "参数 %s 没有值（--arg %s=VALUE）"},
    {"not declared in this file", "%s: a name the file does not declare before the line (a "
     "template parameter?)", "%s：文件在这一行之前没有声明这个名字（模板参数？）"},
    {"changes at line", "%s changes between its declaration and the line",
     "%s 在声明和这一行之间被改变了"},
    {"macro with arguments", "%s is a macro with arguments", "%s 是带参数的宏"},
    {"calls", "the index calls a function", "下标调用了函数"},
    {"steps in a way", "a loop whose step the model does not follow",
     "模型跟不上这个循环的步进方式"},
    {"declares no variable", "a loop without its own variable", "循环没有声明自己的变量"},
    {"has no condition", "a loop without a condition", "循环没有条件"},
    {"inside a switch", "inside a switch: not followed", "在 switch 里：模型不跟踪"},
    {"extern __shared__", "%s is extern __shared__ and the launch has no --smem",
     "%s 是 extern __shared__，而启动没有 --smem"},
    {"is not an integer", "a parameter that is not an integer", "参数不是整数"},
    {"loaded from shared", "an index read from shared memory", "下标是从共享内存读出的"},
    {"cannot be used in an index", "an index read from memory (a value the model does not know)",
     "下标是从内存读出的（模型不知道的值）"},
    {"template", "a template type or parameter: the model needs concrete types",
     "模板类型或参数：模型需要具体的类型"},
};


/* a reason of msg.def's row id, in both languages */
void kp_reason_id(struct kp_line *l, int id, ...)
{
    struct bl_msg m;
    char en[KP_TEXT];
    va_list ap;
    va_start(ap, id);
    bl_msg_vset(&m, en, sizeof en, id, ap);
    va_end(ap);
    l->state = KP_CANNOT;
    bl_msg_render(&m, BL_LANG_EN, l->reason[KP_EN], KP_TEXT);
    bl_msg_render(&m, BL_LANG_ZH, l->reason[KP_ZH], KP_TEXT);
}

static int kp_reason(struct kp_line *l, const char *why);

/* the reason of err (the reader's or, model 1, the model's) in both languages: a row of the
 * table above, else (and for the reader's own reasons) err's msg.def row itself */
void kp_reason_err(struct kp_line *l, const struct bl_err *err, int model)
{
    int id = err->why.id;
    if (!model && kp_reason(l, err->msg) && id != CU_TEMPLATE_PARAMETER &&
        id != CU_STRUCT_WITH_FUNCTIONS && id != CU_HELPER_ARGUMENT && id != CU_NOT_CALLED)
        return;
    l->state = KP_CANNOT;
    for (int g = 0; g < 2; g++) {
        char t[KP_TEXT];
        bl_err_text(err, g ? BL_LANG_ZH : BL_LANG_EN, t, KP_TEXT);
        int f = model ? KP_THE_MODEL : id == BL_MSG_NONE || id == BL_TEXT ? KP_CANNOT_EXPRESS : 0;
        bl_fmt(l->reason[g], KP_TEXT, f ? bl_msg_format(f, g ? BL_LANG_ZH : BL_LANG_EN) : "%s", t);
    }
}

/* a row of the table above for why, in both languages: 1; 0 (the reason unset) when none */
static int kp_reason(struct kp_line *l, const char *why)
{
    char name[64];
    size_t n = strcspn(why, " :=");
    bl_fmt(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), why);
    l->state = KP_CANNOT;
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (strstr(why, reasons[i][0])) {
            for (int g = 0; g < 2; g++) {
                const char *f = reasons[i][1 + g], *p = strstr(f, "%s");
                if (!p) {
                    bl_fmt(l->reason[g], KP_TEXT, "%s", f);
                } else {
                    const char *q = strstr(p + 2, "%s");
                    if (q)
                        bl_fmt(l->reason[g], KP_TEXT, "%.*s%s%.*s%s%s", (int)(p - f), f, name,
                               (int)(q - p - 2), p + 2, name, q + 2);
                    else
                        bl_fmt(l->reason[g], KP_TEXT, "%.*s%s%s", (int)(p - f), f, name, p + 2);
                }
            }
            return 1;
        }
    return 0;
}

