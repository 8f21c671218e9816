// ZLUDA-J test program: tiled SGEMM with shared memory, plus half-precision and double helpers.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cassert>
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

#include <cmath>
#include <vector>

int main() {
    const int n = 100;  // not a multiple of the tile: exercises the bounds checks
    std::vector<float> a(n * n), b(n * n), c(n * n), ref(n * n);
    for (int i = 0; i < n * n; i++) { a[i] = (i % 7) * 0.25f - 0.5f; b[i] = (i % 5) * 0.5f - 1.0f; c[i] = 1.0f; }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double acc = 0;
            for (int k = 0; k < n; k++) acc += (double)a[i * n + k] * b[k * n + j];
            ref[i * n + j] = (float)(2.0 * acc + 0.5 * c[i * n + j]);
        }
    float *da, *db, *dc;
    cudaMalloc(&da, n * n * 4); cudaMalloc(&db, n * n * 4); cudaMalloc(&dc, n * n * 4);
    cudaMemcpy(da, a.data(), n * n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), n * n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, c.data(), n * n * 4, cudaMemcpyHostToDevice);
    dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE), block(TILE, TILE);
    sgemm<<<grid, block>>>(n, da, db, dc, 2.0f, 0.5f);
    cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n * n; i++) bad += std::fabs(c[i] - ref[i]) > 1e-3f * (1 + std::fabs(ref[i]));

    const int m = 256;
    std::vector<float> out(m);
    std::vector<unsigned> bits(m);
    std::vector<long long> wide(m, 1);
    for (int i = 0; i < m; i++) bits[i] = i + 1;  // no zero: the shuffle branch stays off
    float *dout; unsigned *dbits; long long *dwide;
    cudaMalloc(&dout, m * 4); cudaMalloc(&dbits, m * 4); cudaMalloc(&dwide, m * 8);
    cudaMemcpy(dbits, bits.data(), m * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dwide, wide.data(), m * 8, cudaMemcpyHostToDevice);
    misc<<<m / 64, 64>>>(dout, dbits, dwide, m);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(out.data(), dout, m * 4, cudaMemcpyDeviceToHost);
    int hits = 0;
    cudaMemcpyFromSymbol(&hits, counter, sizeof hits);
    for (int i = 0; i < m; i++) {
        float x = (float)i, p = 1.0f + x * (0.5f + x * (0.25f + x * 0.125f));
        bad += std::fabs(out[i] - p) > 1e-5f * (1 + std::fabs(p));
    }
    // __constant__ memory written from the host: the kernel must see the new coefficients
    const float flat[4] = {2.0f, 0.0f, 0.0f, 0.0f};
    cudaMemcpyToSymbol(coeffs, flat, sizeof flat);
    misc<<<m / 64, 64>>>(dout, dbits, dwide, m);
    cudaMemcpy(out.data(), dout, m * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < m; i++) bad += out[i] != 2.0f;
    cudaMemcpyFromSymbol(&hits, counter, sizeof hits);
    bool ok = bad == 0 && hits == 2 && e == cudaSuccess;
    printf("%s: sgemm+misc bad=%d counter=%d %s\n", ok ? "PASS" : "FAIL", bad, hits, cudaGetErrorName(e));
    return ok ? 0 : 1;
}
