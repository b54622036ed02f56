/* sig.c: signal handlers set and put back (sys.h): the only sigaction of banklab. */
#include <pthread.h>
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

int sys_sig_hold_stops(sigset_t *old)
{
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGTSTP);
    sigaddset(&stops, SIGTTIN);
    sigaddset(&stops, SIGTTOU);
    return pthread_sigmask(SIG_BLOCK, &stops, old) ? -1 : 0;
}

void sys_sig_unhold(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}
