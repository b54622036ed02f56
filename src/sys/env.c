/* env.c: the one reader of the environment (sys.h): the names of env.def only. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sys.h"

static const char *const names[] = {
#define E(name, what) #name,
#include "env.def"
#undef E
};

/* the table's number of rows (env.def's second column, what a name means, is for readers) */
static int sys_env_count(void)
{
    return (int)(sizeof names / sizeof names[0]);
}

const char *sys_env(const char *name)
{
    for (int i = 0; name && i < sys_env_count(); i++)
        if (!strcmp(names[i], name))
            return getenv(name);
    errno = EINVAL;
    return NULL;
}
