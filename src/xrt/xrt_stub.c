/* xrt_stub.c: every other entry point of NVIDIA's libcudart.so.13 (xrt_stubs.def), exported
 * under the same version node, so that a program calling one starts like any other and, at
 * the call, ends with one line naming it on stderr and exit status XRT_EXIT_UNSUPPORTED
 * (xrt.h) instead of running on with a wrong result. No CUDA header here: the stubs take no
 * arguments and never return, whatever the real prototypes are. */
#define XRT_API __attribute__((visibility("default")))

void xrt_unsupported(const char *name) __attribute__((noreturn));

#define X(name)                                                                                \
    XRT_API void name(void);                                                                   \
    XRT_API void name(void)                                                                    \
    {                                                                                          \
        xrt_unsupported(#name);                                                                \
    }
#include "xrt_stubs.def"
#undef X
