/* xrt_mem.c: device memory as host memory (xrt.h). Every allocation (cudaMalloc,
 * cudaMallocManaged, cudaMallocHost, cudaHostAlloc, cudaMallocPitch, cudaMallocAsync) is a
 * zeroed, 256-byte aligned host block kept in a table sorted by address, so a copy, a memset and the
 * executor's global accesses are checked against the blocks they must lie in. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "xrt.h"

#define XRT_ALIGN 256
/* what cudaMemGetInfo reports: an H100's 80 GB (the H200's 141 GB differ only in size) */
#define XRT_TOTAL_MEM (80ull * 1000 * 1000 * 1000)

enum blk_kind { BLK_DEVICE, BLK_HOST, BLK_MANAGED };

struct blk {
    char *base;
    size_t size;
    int kind;
    size_t mapped;    /* bytes mmap'ed (0: from posix_memalign) */
};

/* from this size on an allocation is its own mapping: zero pages the kernel commits only as
 * they are touched, so a large cudaMalloc costs no memory until it is used */
#define XRT_MAP_FROM (1u << 20)

static struct blk *blks;
static size_t nblk, capblk;
static size_t in_use;
int xrt_bad_global;

/* the first block whose base is > p */
static size_t upper(const void *p)
{
    size_t lo = 0, hi = nblk;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((uintptr_t)blks[mid].base <= (uintptr_t)p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct blk *find(const void *p, size_t n)
{
    size_t i = upper(p);
    if (i == 0)
        return NULL;
    struct blk *b = &blks[i - 1];
    uintptr_t off = (uintptr_t)p - (uintptr_t)b->base;
    if (off > b->size || n > b->size - off || (n == 0 && off == b->size && b->size))
        return NULL;
    return b;
}

int xrt_global_ok(void *ctx, uint64_t addr, size_t n)
{
    (void)ctx;
    if (find((const void *)(uintptr_t)addr, n ? n : 1))
        return 1;
    xrt_bad_global = 1;
    return 0;
}

static cudaError_t add(void **out, size_t size, int kind)
{
    if (!out)
        return cudaErrorInvalidValue;
    *out = NULL;
    if (size == 0)
        return cudaSuccess;
    if (size > XRT_TOTAL_MEM - in_use)
        return cudaErrorMemoryAllocation;
    if (nblk == capblk) {
        size_t cap = capblk ? capblk * 2 : 64;
        struct blk *nb = realloc(blks, cap * sizeof *nb);
        if (!nb)
            return cudaErrorMemoryAllocation;
        blks = nb;
        capblk = cap;
    }
    size_t round = (size + XRT_ALIGN - 1) / XRT_ALIGN * XRT_ALIGN, mapped = 0;
    void *p = NULL;
    if (round < size)
        return cudaErrorMemoryAllocation;
    if (round >= XRT_MAP_FROM) {
        p = mmap(NULL, round, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return cudaErrorMemoryAllocation;
        mapped = round;
    } else {
        if (posix_memalign(&p, XRT_ALIGN, round))
            return cudaErrorMemoryAllocation;
        memset(p, 0, round);
    }
    size_t i = upper(p);
    memmove(&blks[i + 1], &blks[i], (nblk - i) * sizeof *blks);
    blks[i] = (struct blk){p, size, kind, mapped};
    nblk++;
    in_use += size;
    *out = p;
    return cudaSuccess;
}

static cudaError_t drop(void *p, int host)
{
    if (!p)
        return cudaSuccess;
    size_t i = upper(p);
    if (i == 0 || blks[i - 1].base != p || (blks[i - 1].kind == BLK_HOST) != host)
        return cudaErrorInvalidValue;
    in_use -= blks[i - 1].size;
    if (blks[i - 1].mapped)
        munmap(p, blks[i - 1].mapped);
    else
        free(p);
    memmove(&blks[i - 1], &blks[i], (nblk - i) * sizeof *blks);
    nblk--;
    return cudaSuccess;
}

#define LOCKED(expr)                                                                            \
    do {                                                                                        \
        pthread_mutex_lock(&xrt_lock);                                                          \
        cudaError_t e_ = xrt_sticky ? xrt_sticky : (expr);                                      \
        pthread_mutex_unlock(&xrt_lock);                                                        \
        return xrt_set(e_);                                                                     \
    } while (0)

XRT_API cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    LOCKED(add(devPtr, size, BLK_DEVICE));
}

XRT_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    LOCKED(add(devPtr, size, BLK_MANAGED));
}

XRT_API cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    LOCKED(add(ptr, size, BLK_HOST));
}

XRT_API cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    LOCKED(add(pHost, size, BLK_HOST));
}

XRT_API cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    size_t p = (width + 511) / 512 * 512;
    if (!pitch)
        return xrt_set(cudaErrorInvalidValue);
    *pitch = p;
    LOCKED(height && p > SIZE_MAX / height ? cudaErrorMemoryAllocation : add(devPtr, p * height, BLK_DEVICE));
}

XRT_API cudaError_t cudaFree(void *devPtr)
{
    LOCKED(drop(devPtr, 0));
}

XRT_API cudaError_t cudaFreeHost(void *ptr)
{
    LOCKED(drop(ptr, 1));
}

XRT_API cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    if (!pDevice)
        return xrt_set(cudaErrorInvalidValue);
    *pDevice = pHost;
    LOCKED(find(pHost, 1) ? cudaSuccess : cudaErrorInvalidValue);
}

XRT_API cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total)
{
    if (free_b)
        *free_b = (size_t)(XRT_TOTAL_MEM - in_use);
    if (total)
        *total = (size_t)XRT_TOTAL_MEM;
    return xrt_sticky ? xrt_sticky : cudaSuccess;
}

/* a copy's sides checked as its kind says: a device side must lie in one allocation */
static cudaError_t copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    if (n == 0)
        return cudaSuccess;
    if ((unsigned)kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (!dst || !src)
        return cudaErrorInvalidValue;
    int dev_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    int dev_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if ((dev_dst && !find(dst, n)) || (dev_src && !find(src, n)))
        return cudaErrorInvalidValue;
    memmove(dst, src, n);
    return cudaSuccess;
}

XRT_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    LOCKED(copy(dst, src, count, kind));
}

XRT_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                    enum cudaMemcpyKind kind, cudaStream_t stream)
{
    LOCKED(copy(dst, src, count, kind));
}

static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, enum cudaMemcpyKind kind)
{
    if (width > dpitch || width > spitch)
        return cudaErrorInvalidPitchValue;
    for (size_t r = 0; r < height; r++) {
        cudaError_t e = copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width, kind);
        if (e)
            return e;
    }
    return cudaSuccess;
}

XRT_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t width, size_t height, enum cudaMemcpyKind kind)
{
    LOCKED(copy2d(dst, dpitch, src, spitch, width, height, kind));
}

XRT_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t height, enum cudaMemcpyKind kind,
                                      cudaStream_t stream)
{
    LOCKED(copy2d(dst, dpitch, src, spitch, width, height, kind));
}

static cudaError_t set(void *p, int value, size_t n)
{
    if (n == 0)
        return cudaSuccess;
    if (!find(p, n))
        return cudaErrorInvalidValue;
    memset(p, value, n);
    return cudaSuccess;
}

XRT_API cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    LOCKED(set(devPtr, value, count));
}

XRT_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    LOCKED(set(devPtr, value, count));
}

static cudaError_t set2d(void *p, size_t pitch, int value, size_t width, size_t height)
{
    if (width > pitch)
        return cudaErrorInvalidValue;
    for (size_t r = 0; r < height; r++) {
        cudaError_t e = set((char *)p + r * pitch, value, width);
        if (e)
            return e;
    }
    return cudaSuccess;
}

XRT_API cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    LOCKED(set2d(devPtr, pitch, value, width, height));
}

XRT_API cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                         struct cudaMemLocation location, unsigned int flags,
                                         cudaStream_t stream)
{
    LOCKED(find(devPtr, count) ? cudaSuccess : cudaErrorInvalidValue);
}

XRT_API cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    LOCKED(add(devPtr, size, BLK_DEVICE));
}

XRT_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    LOCKED(drop(devPtr, 0));
}
