// ZLUDA-J test program: tensor-core code (wmma, and mma/ldmatrix/cp.async at compute_80+).
#include <cstdio>
#include <mma.h>
#include <cuda_pipeline.h>
using namespace nvcuda;

__global__ void wmma_gemm(const half *a, const half *b, float *c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void async_copy(const float4 *in, float4 *out) {
    __shared__ float4 buf[128];
#if __CUDA_ARCH__ >= 800
    __pipeline_memcpy_async(&buf[threadIdx.x], &in[threadIdx.x], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
#else
    buf[threadIdx.x] = in[threadIdx.x];
#endif
    __syncthreads();
    out[threadIdx.x] = buf[127 - threadIdx.x];
}

__global__ void mma_m16n8k16(const unsigned *a, const unsigned *b, float *d) {
#if __CUDA_ARCH__ >= 800
    __shared__ unsigned short tile[16 * 16];
    for (int i = threadIdx.x; i < 256; i += 32) tile[i] = (unsigned short)i;
    __syncthreads();
    unsigned r0, r1, r2, r3;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&tile[(threadIdx.x % 16) * 16]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
    float c[4] = {0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(r0 ^ a[0]), "r"(r1), "r"(r2), "r"(r3), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; i++) d[threadIdx.x * 4 + i] = c[i];
#endif
}

int main() { printf("built\n"); return 0; }
