// ZLUDA-J test program: cuBLAS used as CUDA applications use it, from a program nvcc built, through cudart: memory
// from cudaMalloc, inputs made by kernels, GEMMs (Sgemm, GemmEx f16 -> f32 and bf16 -> bf16, GemmStridedBatchedEx,
// SgemmBatched), StrsmBatched and Saxpy in a cudaStream_t shared with the program's kernels, and a kernel that reads
// cuBLAS's results in that stream before one synchronization; every result checked against a double reference.
// cuBLAS's functions are declared here (no cuBLAS headers needed); link with -lcublas. Prints "PASS: cublas runtime".
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef struct cublasContext *cublasHandle_t;
extern "C" {
int cublasCreate_v2(cublasHandle_t *);
int cublasDestroy_v2(cublasHandle_t);
int cublasSetStream_v2(cublasHandle_t, cudaStream_t);
int cublasSetMathMode(cublasHandle_t, int);
int cublasSgemm_v2(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *, int, const float *, float *, int);
int cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int, const void *,
                 void *, int, int, int, int);
int cublasGemmStridedBatchedEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, long long, const void *,
                               int, int, long long, const void *, void *, int, int, long long, int, int, int);
int cublasSgemmBatched(cublasHandle_t, int, int, int, int, int, const float *, const float *const *, int, const float *const *, int,
                       const float *, float *const *, int, int);
int cublasStrsmBatched(cublasHandle_t, int, int, int, int, int, int, const float *, const float *const *, int, float *const *, int, int);
int cublasSaxpy_v2(cublasHandle_t, int, const float *, const float *, int, float *, int);
}
enum { R_32F = 0, R_16F = 2, R_16BF = 14, COMPUTE_32F = 68, TF32_MATH = 3 };

#define CK(x) do { auto r_ = (x); if (r_) { printf("FAIL %s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)r_); exit(1); } } while (0)

// deterministic inputs made on the GPU: value i of a matrix from its index
__global__ void fill(float *f, __half *h, __nv_bfloat16 *b, int n, int seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = (float)((i * 7 + seed * 13) % 17 - 8) / 8.0f;
        f[i] = v;
        h[i] = __float2half(v);
        b[i] = __float2bfloat16(v);
    }
}
__global__ void twice(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2 * x[i];
}
static float input(int i, int seed) { return (float)((i * 7 + seed * 13) % 17 - 8) / 8.0f; }

static int failures;
static void check(const char *what, const std::vector<float> &got, const std::vector<double> &want, double tol) {
    int bad = 0;
    for (size_t i = 0; i < want.size(); i++)
        if (fabs(got[i] - want[i]) > tol * (1 + fabs(want[i])) && bad++ < 3) printf("FAIL %s [%zu]: %g want %g\n", what, i, got[i], want[i]);
    failures += bad != 0;
}

int main() {
    const int m = 37, n = 29, k = 45, lda = 40, ldb = 48, ldc = 41, batch = 3;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cublasHandle_t h;
    CK(cublasCreate_v2(&h));
    CK(cublasSetStream_v2(h, s));
    const int sB = ldb * k;  // B's batch stride: room for k columns (B is k x n, or n x k when transposed)
    size_t na = (size_t)lda * k * batch, nb = (size_t)sB * batch, nc = (size_t)ldc * n * batch;
    float *A, *B, *C, *D;
    __half *Ah, *Bh, *Ch;
    __nv_bfloat16 *Ab, *Bb, *Cb;
    CK(cudaMalloc(&A, na * 4)); CK(cudaMalloc(&B, nb * 4)); CK(cudaMalloc(&C, nc * 4)); CK(cudaMalloc(&D, nc * 4));
    CK(cudaMalloc(&Ah, na * 2)); CK(cudaMalloc(&Bh, nb * 2)); CK(cudaMalloc(&Ch, nc * 2));
    CK(cudaMalloc(&Ab, na * 2)); CK(cudaMalloc(&Bb, nb * 2)); CK(cudaMalloc(&Cb, nc * 2));
    fill<<<(na + 127) / 128, 128, 0, s>>>(A, Ah, Ab, (int)na, 1);
    fill<<<(nb + 127) / 128, 128, 0, s>>>(B, Bh, Bb, (int)nb, 2);
    fill<<<(nc + 127) / 128, 128, 0, s>>>(C, Ch, Cb, (int)nc, 3);
    float alpha = 1.25f, beta = -0.5f;
    // reference of batch b: alpha A_b B_b + beta C_b, column-major with the leading dimensions above
    auto ref = [&](int b, bool transB) {
        std::vector<double> r((size_t)ldc * n, 0);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double acc = 0;
                for (int p = 0; p < k; p++)
                    acc += (double)input(b * lda * k + p * lda + i, 1) * input(b * sB + (transB ? p * ldb + j : j * ldb + p), 2);
                r[(size_t)j * ldc + i] = alpha * acc + beta * input(b * ldc * n + j * ldc + i, 3);
            }
        return r;
    };
    auto mask = [&](std::vector<double> want, const std::vector<float> &got, std::vector<float> &out) {  // rows < m only
        out.assign(want.size(), 0);
        for (int j = 0; j < n; j++) for (int i = 0; i < ldc; i++) if (i >= m) want[(size_t)j * ldc + i] = got[(size_t)j * ldc + i];
        return want;
    };
    std::vector<float> got(nc), tmp;
    // Sgemm into D (C copied there first, in the stream), then a kernel doubles D in the same stream
    CK(cudaMemcpyAsync(D, C, nc * 4, cudaMemcpyDeviceToDevice, s));
    CK(cublasSgemm_v2(h, 0, 0, m, n, k, &alpha, A, lda, B, ldb, &beta, D, ldc));
    twice<<<(ldc * n + 127) / 128, 128, 0, s>>>(D, D + ldc * n, ldc * n);
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(got.data(), D, nc * 4, cudaMemcpyDeviceToHost));
    std::vector<double> r0 = ref(0, false);
    check("Sgemm", got, mask(r0, got, tmp), 1e-4);
    std::vector<float> doubled(got.begin() + ldc * n, got.begin() + 2 * ldc * n);
    std::vector<double> r0x2(r0.size());
    for (size_t i = 0; i < r0.size(); i++) r0x2[i] = 2 * got[i];
    check("kernel after Sgemm in the stream", doubled, r0x2, 1e-6);
    // GemmEx f16 in, f32 out, TF32 math mode set (no effect on f16)
    CK(cublasSetMathMode(h, TF32_MATH));
    CK(cudaMemcpyAsync(D, C, nc * 4, cudaMemcpyDeviceToDevice, s));
    CK(cublasGemmEx(h, 0, 0, m, n, k, &alpha, Ah, R_16F, lda, Bh, R_16F, ldb, &beta, D, R_32F, ldc, COMPUTE_32F, -1));
    CK(cudaMemcpyAsync(got.data(), D, nc * 4, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    check("GemmEx f16->f32", got, mask(r0, got, tmp), 1e-3);
    // GemmStridedBatchedEx bf16 in and out, B transposed (B read as n x k)
    CK(cublasGemmStridedBatchedEx(h, 0, 1, m, n, k, &alpha, Ab, R_16BF, lda, (long long)lda * k, Bb, R_16BF, ldb, (long long)sB,
                                  &beta, Cb, R_16BF, ldc, (long long)ldc * n, batch, COMPUTE_32F, -1));
    std::vector<__nv_bfloat16> gb(nc);
    CK(cudaMemcpyAsync(gb.data(), Cb, nc * 2, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (int b = 0; b < batch; b++) {
        std::vector<float> g(ldc * n);
        std::vector<double> want = ref(b, true);
        for (int i = 0; i < ldc * n; i++) g[i] = __bfloat162float(gb[(size_t)b * ldc * n + i]);
        check("GemmStridedBatchedEx bf16, B transposed", g, mask(want, g, tmp), 4e-2);
    }
    // SgemmBatched over device arrays of pointers, and StrsmBatched on unit lower-triangular A
    std::vector<const float *> pa(batch), pb(batch);
    std::vector<float *> pc(batch);
    for (int b = 0; b < batch; b++) { pa[b] = A + (size_t)b * lda * k; pb[b] = B + (size_t)b * sB; pc[b] = D + (size_t)b * ldc * n; }
    const float **dpa; const float **dpb; float **dpc;
    CK(cudaMalloc(&dpa, batch * 8)); CK(cudaMalloc(&dpb, batch * 8)); CK(cudaMalloc(&dpc, batch * 8));
    CK(cudaMemcpyAsync(dpa, pa.data(), batch * 8, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dpb, pb.data(), batch * 8, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(dpc, pc.data(), batch * 8, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(D, C, nc * 4, cudaMemcpyDeviceToDevice, s));
    CK(cublasSgemmBatched(h, 0, 0, m, n, k, &alpha, dpa, lda, dpb, ldb, &beta, dpc, ldc, batch));
    CK(cudaMemcpyAsync(got.data(), D, nc * 4, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (int b = 0; b < batch; b++) {
        std::vector<float> g(got.begin() + (size_t)b * ldc * n, got.begin() + (size_t)(b + 1) * ldc * n);
        check("SgemmBatched", g, mask(ref(b, false), g, tmp), 1e-4);
    }
    // trsm: A X = 1 B with A m x m lower triangular, unit diagonal (A_b's leading m x m block), B m x n in D
    CK(cudaMemcpyAsync(D, C, nc * 4, cudaMemcpyDeviceToDevice, s));
    float one = 1;
    CK(cublasStrsmBatched(h, 0, 0, 0, 1, m, n, &one, dpa, lda, dpc, ldc, batch));
    CK(cudaMemcpyAsync(got.data(), D, nc * 4, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (int b = 0; b < batch; b++) {  // check A X = C by substitution in double
        int bad = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double ax = got[(size_t)b * ldc * n + j * ldc + i];
                for (int p = 0; p < i; p++) ax += (double)input(b * lda * k + p * lda + i, 1) * got[(size_t)b * ldc * n + j * ldc + p];
                double want = input(b * ldc * n + j * ldc + i, 3);
                if (fabs(ax - want) > 1e-2 * (1 + fabs(want)) && bad++ < 3) printf("FAIL StrsmBatched b %d (%d,%d): %g want %g\n", b, i, j, ax, want);
            }
        failures += bad != 0;
    }
    // Saxpy: D = 0.5 A + D over the first m elements
    CK(cudaMemcpyAsync(D, C, nc * 4, cudaMemcpyDeviceToDevice, s));
    float half = 0.5f;
    CK(cublasSaxpy_v2(h, m, &half, A, 1, D, 1));
    CK(cudaMemcpyAsync(got.data(), D, m * 4, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    std::vector<float> ga(got.begin(), got.begin() + m);
    std::vector<double> wa(m);
    for (int i = 0; i < m; i++) wa[i] = 0.5 * input(i, 1) + input(i, 3);
    check("Saxpy", ga, wa, 1e-6);
    CK(cublasDestroy_v2(h));
    CK(cudaStreamDestroy(s));
    if (failures) { printf("FAIL: cublas runtime (%d)\n", failures); return 1; }
    printf("PASS: cublas runtime\n");
    return 0;
}
