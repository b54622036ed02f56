/* pick.c: which launches the injection libraries measure (pick.h). */
#include <stdlib.h>
#include <string.h>

#include "../base/fmt.h"
#include "../compile/compile.h"
#include "../kernel/kernel.h"
#include "../sys/sys.h"
#include "pick.h"

static long env_long(const char *name)
{
    const char *v = sys_env(name);
    if (!v || !*v)
        return -1;
    char *end;
    long n = strtol(v, &end, 10);
    return *end || n < 0 ? -1 : n;
}

int kpick_init(struct kpick *p, int with_one, const char **bad)
{
    const char *re = sys_env("BANKLAB_RUN_KERNEL");
    if (re && *re) {
        if (regcomp(&p->re, re, REG_EXTENDED | REG_NOSUB)) {
            *bad = re;
            return -1;
        }
        p->have_re = 1;
    }
    p->skip = env_long("BANKLAB_RUN_SKIP");
    p->count = env_long("BANKLAB_RUN_COUNT");
    p->one = with_one && env_long("BANKLAB_RUN_ONE") == 1;
    return 0;
}

int kpick_launch(struct kpick *p, const char *symbol, long *ordinal, long *nth, int *replay)
{
    char dem[GPU_KERNEL_TEXT];
    *replay = 0;
    if (kdemangle(symbol, dem, sizeof dem))
        bl_fmt(dem, sizeof dem, "%s", symbol);
    p->launches++;
    *ordinal = p->launches;
    if (p->have_re && regexec(&p->re, dem, 0, NULL, 0) && regexec(&p->re, symbol, 0, NULL, 0))
        return 0;
    int i;
    for (i = 0; i < p->nseen; i++)
        if (!strcmp(p->seen[i], symbol))
            break;
    if (i == p->nseen) {
        if (p->nseen == KPICK_MAX_SEEN || !(p->seen[i] = strdup(symbol)))
            return 0;
        p->seen_n[p->nseen++] = 0;
    }
    *nth = ++p->seen_n[i];
    p->matched++;
    if (p->one && p->measured_one) {
        *replay = *nth == 1 && p->skip < 0 && p->count < 0;
        return 0;
    }
    if (p->skip < 0 && p->count < 0) {
        p->measured_one = *nth == 1;
        return *nth == 1; /* the first launch of each kernel */
    }
    if (p->skip >= 0 && p->matched <= p->skip)
        return 0;
    if (p->count >= 0 && p->selected >= p->count)
        return 0;
    p->selected++;
    p->measured_one = 1;
    return 1;
}
