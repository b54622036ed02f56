/* pick.h: which launches `banklab run`'s injection libraries measure, one way for both routes
 * (cuda_inject.c, CUPTI; san_inject.c, the Compute Sanitizer): the first launch of each
 * kernel, or those --kernel REGEX picks, after --launch-skip N, at most --launch-count N
 * (BANKLAB_RUN_KERNEL, _SKIP, _COUNT; _ONE: one launch in the process). Plain C (libc,
 * regex); the caller serialises calls. */
#ifndef BANKLAB_KMEASURE_PICK_H
#define BANKLAB_KMEASURE_PICK_H

#include <regex.h>

#define KPICK_MAX_SEEN 4096

struct kpick {
    regex_t re;
    int have_re;
    long skip, count;           /* -1: not given */
    int one;                    /* measure one launch in this process */
    int measured_one;
    long matched, selected, launches;
    char *seen[KPICK_MAX_SEEN]; /* kernels seen and their launch counts */
    long seen_n[KPICK_MAX_SEEN];
    int nseen;
};

/* kpick_init: p from the environment (with_one: BANKLAB_RUN_ONE read too). 0, or -1 when
 * BANKLAB_RUN_KERNEL is not an extended regular expression (*bad: it). */
int kpick_init(struct kpick *p, int with_one, const char **bad);

/* kpick_launch: count this launch of symbol; 1 when it is to be measured. *ordinal: the
 * launch's number in the process; *nth: of this kernel; *replay: 1 when it is the first
 * launch of a kernel that one-launch mode did not measure (the CUPTI route names it). */
int kpick_launch(struct kpick *p, const char *symbol, long *ordinal, long *nth, int *replay);

#endif
