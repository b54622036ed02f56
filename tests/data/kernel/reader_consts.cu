// banklab: --block 32
/* reader_consts.cu: sizes and strides from #define (and a macro with arguments), constexpr
 * and const at file and kernel scope (tests/sh/reader_model.sh). One warp, 4-byte accesses,
 * one pass of 32 lanes costing the most distinct words one bank serves (bank = word % 32);
 * "wf" is the line's wavefronts.
 *   a[r][lane] = r: rows of W + PAD = 33 words, H = ROWS = 8 trips of a row: 8.
 *   b[lane * STRIDE]: stride 4 words: banks 0, 4, .., 28, four lanes each: 4.
 *   a[lane % ROWS][lane / ROWS]: word 33r + c, r = lane % 8, c = lane / 8 (0..3): bank
 *   (r + c) % 32; r + c = 3..7 each for four (r, c): 4-way: 4.
 *   b[lane + LAST]: LAST = 96, consecutive words: 1.
 *   f[IDX(lane % ROWS, lane / ROWS)]: the macro gives word 33r + c as a's read: 4.
 *   f[lane], read back so that nvcc keeps the store above: consecutive words: 1. */
#define ROWS 8
#define IDX(r, c) ((r) * 33 + (c))
constexpr int PAD = 1;
static const int STRIDE = 4;

__global__ void reader_consts(float *out)
{
    constexpr int W = 32;
    const int H = ROWS;
    const int LAST = W * STRIDE - 32;
    __shared__ float a[ROWS][W + PAD];
    __shared__ float b[W * STRIDE];
    __shared__ float f[ROWS * 33];
    int lane = threadIdx.x;
    for (int r = 0; r < H; r++)
        a[r][lane] = r;                                                 // wf 8
    b[lane * STRIDE] = lane;                                            // wf 4
    __syncthreads();
    float x = a[lane % ROWS][lane / ROWS];                              // wf 4
    f[IDX(lane % ROWS, lane / ROWS)] = x;                               // wf 4
    out[lane] = x + b[lane + LAST];                                     // wf 1
    __syncthreads();
    out[lane] += f[lane];                                               // wf 1
}
