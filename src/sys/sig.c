/* sig.c: signal handlers set and put back (sys.h): the only sigaction of banklab. */
#include <string.h>

#include "sys.h"

int sys_sig_set(int sig, void (*handler)(int), int flags, struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = flags & ~SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, old);
}

int sys_sig_action(int sig, void (*handler)(int, siginfo_t *, void *), int flags,
                   struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = flags | SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, old);
}

int sys_sig_restore(int sig, const struct sigaction *old)
{
    return sigaction(sig, old, NULL);
}

int sys_sig_get(int sig, struct sigaction *cur)
{
    return sigaction(sig, NULL, cur);
}
