/* reason.h: a line's reason in both languages (reason.c), private to src/predict. */
#ifndef BANKLAB_PREDICT_REASON_H
#define BANKLAB_PREDICT_REASON_H

#include "../base/err.h"
#include "predict.h"


/* kp_reason_id: the reason of msg.def's row id (and its arguments), in both languages. */
void kp_reason_id(struct kp_line *l, int id, ...);

/* kp_reason_err: the reason of err (the reader's or, model 1, the model's) in both languages. */
void kp_reason_err(struct kp_line *l, const struct bl_err *err, int model);

#endif
