// ZLUDA-J test program: a flash-attention-like kernel written the way llama.cpp's and FlashAttention-2's are:
// ldmatrix fragments from shared memory, an mma.m16n8k16 loop for S = Q K^T and O += P V, the online softmax in
// registers (quad shuffles), K/V tiles streamed with cp.async into two shared-memory stages (double buffering).
// Checked against a double-precision reference computed here from the same f16 inputs.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define HEADS 2
#define NQ 64      // query rows per head: one block of 4 warps, 16 rows each
#define NKV 256    // keys per head
#define D 64       // head dimension
#define BC 32      // keys per tile
#define WARPS 4

// the tensor-core PTX used here (cp.async, mma.m16n8k16) needs sm_80: older targets get an empty kernel
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void ldmatrix_x4(unsigned r[4], const void *p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem(p)));
}

__device__ __forceinline__ void ldmatrix_x2_trans(unsigned r[2], const void *p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(smem(p)));
}

__device__ __forceinline__ void mma16816(float c[4], const unsigned a[4], const unsigned b[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void cp_async16(void *dst, const void *src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem(dst)), "l"(src));
}

__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *(unsigned *)&h;
}

// one 32-key tile of K and V into shared memory: 2 x 32 x 64 halves = 512 chunks of 16 bytes, 4 per thread
__device__ void load_tile(__half (*ks)[D], __half (*vs)[D], const __half *k, const __half *v) {
    for (int c = threadIdx.x; c < BC * D / 8; c += blockDim.x) {
        int row = c / (D / 8), col = (c % (D / 8)) * 8;
        cp_async16(&ks[row][col], k + row * D + col);
        cp_async16(&vs[row][col], v + row * D + col);
    }
    asm volatile("cp.async.commit_group;");
}

#endif

__global__ void flash_attention(const __half *q, const __half *k, const __half *v, float *o, float scale) {
#if __CUDA_ARCH__ >= 800
    __shared__ __align__(16) __half qs[NQ][D];
    __shared__ __align__(16) __half ks[2][BC][D];
    __shared__ __align__(16) __half vs[2][BC][D];
    int head = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    q += head * NQ * D; k += head * NKV * D; v += head * NKV * D; o += head * NQ * D;
    for (int c = threadIdx.x; c < NQ * D / 8; c += blockDim.x) {
        int row = c / (D / 8), col = (c % (D / 8)) * 8;
        cp_async16(&qs[row][col], q + row * D + col);
    }
    asm volatile("cp.async.commit_group;");
    load_tile(ks[0], vs[0], k, v);

    float acc[D / 8][4];
    for (int j = 0; j < D / 8; j++) for (int e = 0; e < 4; e++) acc[j][e] = 0.f;
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};   // rows g and g+8 of this warp's 16

    for (int tile = 0; tile < NKV / BC; tile++) {
        int stage = tile & 1;
        if (tile + 1 < NKV / BC) {   // prefetch the next tile into the other stage, then wait for this one
            load_tile(ks[stage ^ 1], vs[stage ^ 1], k + (tile + 1) * BC * D, v + (tile + 1) * BC * D);
            asm volatile("cp.async.wait_group 1;");
        } else {
            asm volatile("cp.async.wait_group 0;");
        }
        __syncthreads();
        // S = Q K^T for the warp's 16 rows and the tile's 32 keys: 4 n-tiles of 8 keys, 4 k-steps of 16 dims
        float s[BC / 8][4];
        for (int n = 0; n < BC / 8; n++) for (int e = 0; e < 4; e++) s[n][e] = 0.f;
        for (int kk = 0; kk < D / 16; kk++) {
            unsigned a[4];
            // matrices: rows 0-7 / 8-15 x dims 0-7 / 8-15 of this k-step: lanes 0-15 rows 0-15 at dim 0, 16-31 at dim 8
            ldmatrix_x4(a, &qs[warp * 16 + (lane % 16)][kk * 16 + (lane / 16) * 8]);
            for (int n = 0; n < BC / 8; n += 2) {
                unsigned bb[4];
                // K rows (keys) are B's columns: matrices keys n*8.. x dims 0-7, 8-15, then the next 8 keys
                ldmatrix_x4(bb, &ks[stage][n * 8 + (lane / 16) * 8 + (lane % 8)][kk * 16 + ((lane / 8) % 2) * 8]);
                unsigned b0[2] = {bb[0], bb[1]}, b1[2] = {bb[2], bb[3]};
                mma16816(s[n], a, b0);
                mma16816(s[n + 1], a, b1);
            }
        }
        // online softmax over the tile: this thread holds columns 2t, 2t+1 of each n-tile for rows g (e 0,1), g+8 (e 2,3)
        for (int r = 0; r < 2; r++) {
            float mx = m[r];
            for (int n = 0; n < BC / 8; n++) mx = fmaxf(mx, fmaxf(s[n][2 * r], s[n][2 * r + 1]) * scale);
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            float correction = __expf(m[r] - mx), sum = 0.f;
            for (int n = 0; n < BC / 8; n++)
                for (int e = 2 * r; e < 2 * r + 2; e++) {
                    s[n][e] = __expf(s[n][e] * scale - mx);
                    sum += s[n][e];
                }
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            sum += __shfl_xor_sync(0xffffffffu, sum, 2);
            l[r] = l[r] * correction + sum;
            m[r] = mx;
            for (int j = 0; j < D / 8; j++) { acc[j][2 * r] *= correction; acc[j][2 * r + 1] *= correction; }
        }
        // O += P V: P's accumulator layout is the A layout of the next mma (two n-tiles per 16-key k-step)
        for (int kk = 0; kk < BC / 16; kk++) {
            unsigned a[4] = {pack_half2(s[2 * kk][0], s[2 * kk][1]), pack_half2(s[2 * kk][2], s[2 * kk][3]),
                             pack_half2(s[2 * kk + 1][0], s[2 * kk + 1][1]), pack_half2(s[2 * kk + 1][2], s[2 * kk + 1][3])};
            for (int j = 0; j < D / 8; j++) {
                unsigned b[2];
                // V is keys x dims in memory, B wants it transposed: keys kk*16.. (lanes 0-7) and +8 (lanes 8-15)
                ldmatrix_x2_trans(b, &vs[stage][kk * 16 + (lane % 16)][j * 8]);
                mma16816(acc[j], a, b);
            }
        }
        __syncthreads();   // the stage is refilled by the next iteration's prefetch
    }
    for (int j = 0; j < D / 8; j++)
        for (int e = 0; e < 4; e++) {
            int row = warp * 16 + g + (e / 2) * 8, col = j * 8 + 2 * t + (e % 2);
            o[row * D + col] = acc[j][e] / l[e / 2];
        }
#endif
}

static unsigned long long seed = 12345;
static float rnd() {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((seed >> 33) % 20001) / 10000.0f - 1.0f;
}

int main() {
    size_t nq = HEADS * NQ * D, nkv = HEADS * NKV * D;
    __half *hq = (__half *)malloc(nq * 2), *hk = (__half *)malloc(nkv * 2), *hv = (__half *)malloc(nkv * 2);
    for (size_t i = 0; i < nq; i++) hq[i] = __float2half(rnd());
    for (size_t i = 0; i < nkv; i++) hk[i] = __float2half(rnd());
    for (size_t i = 0; i < nkv; i++) hv[i] = __float2half(rnd());
    __half *dq, *dk, *dv;
    float *dout;
    cudaMalloc(&dq, nq * 2); cudaMalloc(&dk, nkv * 2); cudaMalloc(&dv, nkv * 2); cudaMalloc(&dout, nq * 4);
    cudaMemcpy(dq, hq, nq * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dk, hk, nkv * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dv, hv, nkv * 2, cudaMemcpyHostToDevice);
    cudaMemset(dout, 0, nq * 4);
    float scale = 1.0f / sqrtf((float)D);
    flash_attention<<<HEADS, WARPS * 32>>>(dq, dk, dv, dout, scale);
    cudaError_t err = cudaDeviceSynchronize();
    float *out = (float *)malloc(nq * 4);
    cudaMemcpy(out, dout, nq * 4, cudaMemcpyDeviceToHost);
    double worst = 0;
    for (int h = 0; h < HEADS; h++)
        for (int i = 0; i < NQ; i++) {
            double s[NKV], mx = -1e300, sum = 0;
            for (int j = 0; j < NKV; j++) {
                double dot = 0;
                for (int d = 0; d < D; d++)
                    dot += (double)__half2float(hq[(h * NQ + i) * D + d]) * (double)__half2float(hk[(h * NKV + j) * D + d]);
                s[j] = dot * scale;
                if (s[j] > mx) mx = s[j];
            }
            for (int j = 0; j < NKV; j++) { s[j] = exp(s[j] - mx); sum += s[j]; }
            for (int d = 0; d < D; d++) {
                double x = 0;
                for (int j = 0; j < NKV; j++) x += s[j] * (double)__half2float(hv[(h * NKV + j) * D + d]);
                double diff = fabs(x / sum - out[(h * NQ + i) * D + d]);
                if (!(diff <= worst)) worst = diff;   // NaN counts as worst
            }
        }
    printf("flash attention: %s, max abs error %.6f, o[0]=%.6f\n", cudaGetErrorString(err), worst, out[0]);
    int ok = err == cudaSuccess && worst < 2e-3;
    printf("%s\n", ok ? "PASS: flash attention" : "FAIL: flash attention");
    return ok ? 0 : 1;
}
