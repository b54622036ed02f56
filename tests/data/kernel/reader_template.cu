// banklab: --name tpl<32,float2> --block 32
/* reader_template.cu: a template kernel whose tile size and vector type come from --name
 * (tests/sh/reader_model.sh): TILE = 32, V = float2. One warp, 32 lanes; bank = word % 32;
 * "wf" is the line's wavefronts.
 *   t[r][lane] = r: a row, 32 trips of one pass with one word per lane: 32.
 *   vec[lane].x = 0: float2's x, a 4-byte store at word 2 * lane: lanes l and l + 16 share
 *   a bank: 2-way: 2.
 *   t[lane][0]: a column of 32-word rows, all lanes on bank 0: 32.
 *   vec[lane * 2]: a float2 (8 bytes: two passes of 16 lanes) at word 4 * lane: in a pass,
 *   lanes l and l + 8 share a bank: 2 a pass, 4. */
template <int TILE, typename V>
__global__ void tpl(float *out)
{
    __shared__ float t[TILE][TILE];
    __shared__ V vec[TILE * 2];
    int lane = threadIdx.x;
    for (int r = 0; r < TILE; r++)
        t[r][lane] = r;                                                 // wf 32
    vec[lane].x = 0;                                                    // wf 2
    __syncthreads();
    float c = t[lane][0];                                               // wf 32
    V q = vec[lane * 2];                                                // wf 4
    out[lane] = c + q.x + q.y;
}
