// banklab: --block 32 --arg swizzle=0
/* ldmatrix.cu: ldmatrix.x4 loads four 8 x 8 matrices of 16-bit values (a tensor-core
 * fragment); lane l gives the address of one 16-byte row. Each matrix is one wavefront
 * when its 8 rows sit in different banks. Here the 32 rows are 128 bytes apart, so without
 * a swizzle the 8 rows of a matrix all start in bank 0: 8 wavefronts per matrix. XOR-ing
 * the 16-byte chunk with the row (--arg swizzle=1, what CUTLASS and TMA do) spreads them:
 * 1 wavefront per matrix. stmatrix (sm_90) writes the same way. */
__global__ void ldmatrix_tile(float *out, int swizzle)
{
    __shared__ __align__(128) unsigned short tile[32 * 64]; /* 32 rows of 128 bytes */
    for (int i = threadIdx.x; i < 32 * 64; i += blockDim.x)
        tile[i] = (unsigned short)i;
    __syncthreads();
    int lane = threadIdx.x & 31;
    int chunk = swizzle ? (lane & 7) : 0;     /* which 16-byte chunk of the row */
    unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[lane * 64 + chunk * 8]);
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
#if __CUDA_ARCH__ >= 900
    __syncthreads();
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(addr), "r"(r3), "r"(r2), "r"(r1), "r"(r0) : "memory");
    __syncthreads();
#endif
    out[threadIdx.x] = (float)(r0 + r1 + r2 + r3 + tile[lane]);
}
