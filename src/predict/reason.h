/* reason.h: a line's reason as a message (reason.c), private to src/predict. */
#ifndef BANKLAB_PREDICT_REASON_H
#define BANKLAB_PREDICT_REASON_H

#include "../base/err.h"
#include "predict.h"

/* kp_reason_id: l cannot be predicted, for msg.def's row id (and its arguments). */
void kp_reason_id(struct kp_line *l, int id, ...);

/* kp_reason_err: l cannot be predicted, for err (the reader's or, model 1, the model's). */
void kp_reason_err(struct kp_line *l, const struct bl_err *err, int model);

#endif
