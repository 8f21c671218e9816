// ZLUDA-J test program: tiled SGEMM with shared memory, plus half-precision and double helpers.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define TILE 16

__global__ void sgemm(int n, const float *a, const float *b, float *c, float alpha, float beta) {
    __shared__ float ta[TILE][TILE], tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;
    for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
        ta[threadIdx.y][threadIdx.x] = row < n && t * TILE + threadIdx.x < n ? a[row * n + t * TILE + threadIdx.x] : 0;
        tb[threadIdx.y][threadIdx.x] = col < n && t * TILE + threadIdx.y < n ? b[(t * TILE + threadIdx.y) * n + col] : 0;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n) c[row * n + col] = alpha * acc + beta * c[row * n + col];
}

__global__ void halves(const __half2 *x, __half2 *y, const __nv_bfloat16 *bx, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half2 v = __hfma2(x[i], x[i], y[i]);
        y[i] = __hmax2(v, __float2half2_rn(0.5f));
        out[i] = __bfloat162float(bx[i]) + __half2float(__low2half(v)) + (float)sqrt((double)i) + __expf((float)i * 1e-3f)
                 + sinf((float)i) + rsqrtf((float)i + 1.0f) + (float)__double2int_rn(1.5 * i) + __fdividef(1.0f, i + 1.0f);
    }
}

__device__ int counter;
__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};

__device__ __noinline__ float poly(float x) { return coeffs[0] + x * (coeffs[1] + x * (coeffs[2] + x * coeffs[3])); }

__global__ void misc(float *out, unsigned *bits, long long *wide, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = poly((float)i);
    unsigned v = bits[i];
    bits[i] = __brev(v) ^ __clz(v) ^ __ffs(v) ^ __byte_perm(v, 0x1234, 0x3210) ^ __funnelshift_l(v, v, 7) ^ __popc(v);
    wide[i] = __mul64hi(wide[i], 3) + __umulhi(v, 7) + __sad(i, 5, 1) + __dp4a((int)v, 0x01020304, 0);
    if (i == 0) { atomicAdd(&counter, 1); printf("misc: n=%d first=%f\n", n, out[0]); }
    unsigned lanes = __activemask();
    if (__any_sync(lanes, v == 0) && __all_sync(lanes, i < n)) out[i] += __shfl_xor_sync(lanes, out[i], 1);
    __threadfence();
    assert(i < n);
}

int main() { printf("built\n"); return 0; }
