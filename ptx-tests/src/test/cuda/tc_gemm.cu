// ZLUDA-J test program: a tensor-core GEMM as hand-written CUDA libraries do it: 64x64 block tiles, four warps of
// 32x32 (2 x 4 mma.m16n8k16 each), A and B tiles of 64x32 streamed into two shared-memory stages with cp.async,
// fragments by ldmatrix (B transposed by ldmatrix.trans). C = A B with A MxK row-major, B KxN row-major, f16 -> f32.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define M 128
#define N 128
#define K 256
#define BM 64
#define BN 64
#define BK 32

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void cp_async16(void *dst, const void *src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem(dst)), "l"(src));
}

// one k-tile: A rows blockRow..+63 x k0..+31, B rows k0..+31 x blockCol..+63 (8 halves per 16-byte chunk)
__device__ void load_tiles(__half (*as)[BK + 8], __half (*bs)[BN + 8], const __half *a, const __half *b, int row0, int col0, int k0) {
    for (int c = threadIdx.x; c < BM * BK / 8; c += blockDim.x) {
        int r = c / (BK / 8), k = (c % (BK / 8)) * 8;
        cp_async16(&as[r][k], a + (row0 + r) * K + k0 + k);
    }
    for (int c = threadIdx.x; c < BK * BN / 8; c += blockDim.x) {
        int k = c / (BN / 8), n = (c % (BN / 8)) * 8;
        cp_async16(&bs[k][n], b + (k0 + k) * N + col0 + n);
    }
    asm volatile("cp.async.commit_group;");
}
#endif

__global__ void tc_gemm(const __half *a, const __half *b, float *c) {
#if __CUDA_ARCH__ >= 800
    __shared__ __align__(16) __half as[2][BM][BK + 8];
    __shared__ __align__(16) __half bs[2][BK][BN + 8];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int wr = (warp / 2) * 32, wc = (warp % 2) * 32;   // the warp's 32x32 inside the block tile
    float acc[2][4][4] = {};
    load_tiles(as[0], bs[0], a, b, row0, col0, 0);
    for (int kt = 0; kt < K / BK; kt++) {
        int s = kt & 1;
        if (kt + 1 < K / BK) {
            load_tiles(as[s ^ 1], bs[s ^ 1], a, b, row0, col0, (kt + 1) * BK);
            asm volatile("cp.async.wait_group 1;");
        } else {
            asm volatile("cp.async.wait_group 0;");
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned af[2][4], bf[4][2];
            for (int i = 0; i < 2; i++) {
                const __half *p = &as[s][wr + i * 16 + (lane % 16)][kk + (lane / 16) * 8];
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                             : "=r"(af[i][0]), "=r"(af[i][1]), "=r"(af[i][2]), "=r"(af[i][3]) : "r"(smem(p)));
            }
            for (int j = 0; j < 4; j++) {   // B is k x n in memory: .trans gives the mma's column-major fragment
                const __half *p = &bs[s][kk + (lane % 16)][wc + j * 8];
                asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                             : "=r"(bf[j][0]), "=r"(bf[j][1]) : "r"(smem(p)));
            }
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 4; j++)
                    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                                 : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                                 : "r"(af[i][0]), "r"(af[i][1]), "r"(af[i][2]), "r"(af[i][3]), "r"(bf[j][0]), "r"(bf[j][1]));
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            for (int e = 0; e < 4; e++)
                c[(row0 + wr + i * 16 + g + (e / 2) * 8) * N + col0 + wc + j * 8 + 2 * t + (e % 2)] = acc[i][j][e];
#endif
}

int main() {
    __half *ha = (__half *)malloc(M * K * 2), *hb = (__half *)malloc(K * N * 2);
    unsigned long long seed = 99;
    for (int i = 0; i < M * K; i++) { seed = seed * 6364136223846793005ULL + 1; ha[i] = __float2half((float)((seed >> 33) % 2001) / 1000.0f - 1.0f); }
    for (int i = 0; i < K * N; i++) { seed = seed * 6364136223846793005ULL + 1; hb[i] = __float2half((float)((seed >> 33) % 2001) / 1000.0f - 1.0f); }
    __half *da, *db;
    float *dc;
    cudaMalloc(&da, M * K * 2); cudaMalloc(&db, K * N * 2); cudaMalloc(&dc, M * N * 4);
    cudaMemcpy(da, ha, M * K * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb, K * N * 2, cudaMemcpyHostToDevice);
    tc_gemm<<<dim3(N / BN, M / BM), 128>>>(da, db, dc);
    cudaError_t err = cudaDeviceSynchronize();
    float *hc = (float *)malloc(M * N * 4);
    cudaMemcpy(hc, dc, M * N * 4, cudaMemcpyDeviceToHost);
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double x = 0;
            for (int k = 0; k < K; k++) x += (double)__half2float(ha[i * K + k]) * (double)__half2float(hb[k * N + j]);
            double d = fabs(x - hc[i * N + j]);
            if (!(d <= worst)) worst = d;
        }
    printf("tc_gemm %dx%dx%d: %s, max abs error %.6f\n", M, N, K, cudaGetErrorString(err), worst);
    int ok = err == cudaSuccess && worst < 1e-3;
    printf("%s\n", ok ? "PASS: tc_gemm" : "FAIL: tc_gemm");
    return ok ? 0 : 1;
}
