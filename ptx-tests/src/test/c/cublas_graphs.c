/* ZLUDA-J test: cuBLAS work captured in a CUDA graph and replayed, as ggml does with CUDA graphs on (its perf mode and
 * every unchanged evaluation replay one executable). Plain C (gcc only; declares what it calls), linked with -lcublas
 * -lcuda. A non-blocking stream (ggml's kind) is captured around three cuBLAS calls: cublasGemmEx with f16 inputs and
 * output and compute type 16F (ggml's f16 path), cublasSgemm under CUBLAS_TF32_TENSOR_OP_MATH (ggml's f32 path) and
 * cublasGemmStridedBatchedEx (attention), then the executable is launched again and again, each time after new inputs
 * were copied in by the same stream, twice without a synchronization between. Inputs are small integers, exact in f16
 * and TF32, with sums that stay exact: every result must equal the reference computed here. Then, with N given
 * (argv[1]), an N x N x N f16 GEMM launched 20 times in a graph and 20 times directly: microseconds per launch of each
 * (an executable that left out its cuBLAS node would take no time). Prints "PASS: cublas graphs" and exits 0. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult, CUdevice, cublasStatus_t;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef unsigned long long CUdeviceptr;
typedef struct cublasContext *cublasHandle_t;
CUresult cuInit(unsigned int flags);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemHostAlloc(void **p, size_t n, unsigned int flags);
CUresult cuMemFreeHost(void *p);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s);
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s);
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamDestroy_v2(CUstream s);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuStreamBeginCapture_v2(CUstream s, int mode);
CUresult cuStreamEndCapture(CUstream s, CUgraph *g);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec e, CUstream s);
CUresult cuGraphExecDestroy(CUgraphExec e);
CUresult cuGraphDestroy(CUgraph g);

cublasStatus_t cublasCreate_v2(cublasHandle_t *h);
cublasStatus_t cublasDestroy_v2(cublasHandle_t h);
cublasStatus_t cublasSetStream_v2(cublasHandle_t h, CUstream s);
cublasStatus_t cublasSetMathMode(cublasHandle_t h, int mode);
cublasStatus_t cublasSgemm_v2(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *, int, const float *, float *, int);
cublasStatus_t cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int, const void *, void *, int, int, int, int);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, long long, const void *, int, int, long long, const void *, void *, int, int, long long, int, int, int);

enum { R_32F = 0, R_16F = 2, COMPUTE_16F = 64, COMPUTE_32F = 68, OP_N = 0, OP_T = 1, TF32_TENSOR_OP_MATH = 3,
       STREAM_NON_BLOCKING = 1, CAPTURE_RELAXED = 2, GEMM_DEFAULT_TENSOR_OP = 99 };

#define CHECK(call) do { int r_ = (call); if (r_) { printf("FAIL %s:%d: %s = %d\n", __FILE__, __LINE__, #call, r_); exit(1); } } while (0)

/* f16 of a small integer (exact), and back */
static uint16_t half(int v) {
    if (v == 0) return 0;
    uint16_t sign = v < 0 ? 0x8000 : 0;
    unsigned a = (unsigned)(v < 0 ? -v : v), e = 0;
    while ((a >> e) > 1) e++;
    unsigned mant = e >= 10 ? (a >> (e - 10)) & 0x3ff : (a << (10 - e)) & 0x3ff;
    return (uint16_t)(sign | ((e + 15) << 10) | mant);
}
static double unhalf(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return h & 0x8000 ? -v : v;
}

enum { M = 48, N = 40, K = 64, BATCH = 3 };

/* the inputs of round r: column-major A (M x K, stored transposed: lda = K as ggml's OP_T), B (K x N) */
static int a_val(int r, int b, int i, int k) { return (i * 3 + k * 7 + r * 5 + b * 11) % 5 - 2; }
static int b_val(int r, int b, int k, int j) { return (k * 5 + j * 3 + r * 7 + b * 13) % 5 - 2; }

int main(int argc, char **argv) {
    CUcontext ctx;
    CUstream s;
    cublasHandle_t h;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuStreamCreate(&s, STREAM_NON_BLOCKING));
    CHECK(cublasCreate_v2(&h));
    CHECK(cublasSetStream_v2(h, s));
    CHECK(cublasSetMathMode(h, TF32_TENSOR_OP_MATH));

    /* device buffers: f16 A, B (BATCH of each), f16 C (BATCH), f32 A, B, C */
    size_t ah = (size_t)BATCH * M * K * 2, bh = (size_t)BATCH * K * N * 2, ch = (size_t)BATCH * M * N * 2;
    size_t af = (size_t)M * K * 4, bf = (size_t)K * N * 4, cf = (size_t)M * N * 4;
    CUdeviceptr dA, dB, dC, dC1, dAf, dBf, dCf;
    CHECK(cuMemAlloc_v2(&dA, ah));
    CHECK(cuMemAlloc_v2(&dB, bh));
    CHECK(cuMemAlloc_v2(&dC, ch));
    CHECK(cuMemAlloc_v2(&dC1, (size_t)M * N * 2));
    CHECK(cuMemAlloc_v2(&dAf, af));
    CHECK(cuMemAlloc_v2(&dBf, bf));
    CHECK(cuMemAlloc_v2(&dCf, cf));
    /* page-locked host memory, one set per round in flight (two rounds run without a synchronization between) */
    uint16_t *hA[2], *hB[2], *hC[2], *hC1[2];
    float *hAf[2], *hBf[2], *hCf[2];
    for (int p = 0; p < 2; p++) {
        CHECK(cuMemHostAlloc((void **)&hA[p], ah, 0));
        CHECK(cuMemHostAlloc((void **)&hB[p], bh, 0));
        CHECK(cuMemHostAlloc((void **)&hC[p], ch, 0));
        CHECK(cuMemHostAlloc((void **)&hC1[p], (size_t)M * N * 2, 0));
        CHECK(cuMemHostAlloc((void **)&hAf[p], af, 0));
        CHECK(cuMemHostAlloc((void **)&hBf[p], bf, 0));
        CHECK(cuMemHostAlloc((void **)&hCf[p], cf, 0));
    }

    /* the graph: the three cuBLAS calls, alpha and beta read at capture as NVIDIA's do in host pointer mode */
    const uint16_t one16 = 0x3c00, zero16 = 0;
    const float one = 1.0f, zero = 0.0f;
    CUgraph g;
    CUgraphExec e;
    CHECK(cuStreamBeginCapture_v2(s, CAPTURE_RELAXED));
    CHECK(cublasGemmEx(h, OP_T, OP_N, M, N, K, &one16, (const void *)dA, R_16F, K, (const void *)dB, R_16F, K, &zero16,
                       (void *)dC1, R_16F, M, COMPUTE_16F, GEMM_DEFAULT_TENSOR_OP));
    CHECK(cublasSgemm_v2(h, OP_T, OP_N, M, N, K, &one, (const float *)dAf, K, (const float *)dBf, K, &zero, (float *)dCf, M));
    CHECK(cublasGemmStridedBatchedEx(h, OP_T, OP_N, M, N, K, &one, (const void *)dA, R_16F, K, (long long)M * K,
                                     (const void *)dB, R_16F, K, (long long)K * N, &zero, (void *)dC, R_16F, M,
                                     (long long)M * N, BATCH, COMPUTE_32F, GEMM_DEFAULT_TENSOR_OP));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));

    int rounds = 6, bad = 0;
    for (int r = 0; r < rounds; r++) {
        int p = r & 1;
        for (int b = 0; b < BATCH; b++)
            for (int i = 0; i < M; i++)
                for (int k = 0; k < K; k++) hA[p][(size_t)b * M * K + (size_t)i * K + k] = half(a_val(r, b, i, k));
        for (int b = 0; b < BATCH; b++)
            for (int j = 0; j < N; j++)
                for (int k = 0; k < K; k++) hB[p][(size_t)b * K * N + (size_t)j * K + k] = half(b_val(r, b, k, j));
        for (int i = 0; i < M; i++)
            for (int k = 0; k < K; k++) hAf[p][i * K + k] = (float)a_val(r, 1, i, k);
        for (int j = 0; j < N; j++)
            for (int k = 0; k < K; k++) hBf[p][j * K + k] = (float)b_val(r, 1, k, j);
        CHECK(cuMemcpyHtoDAsync_v2(dA, hA[p], ah, s));
        CHECK(cuMemcpyHtoDAsync_v2(dB, hB[p], bh, s));
        CHECK(cuMemcpyHtoDAsync_v2(dAf, hAf[p], af, s));
        CHECK(cuMemcpyHtoDAsync_v2(dBf, hBf[p], bf, s));
        CHECK(cuMemsetD8Async(dC, 0x7f, ch, s));  /* a result left from the round before cannot pass */
        CHECK(cuMemsetD8Async(dC1, 0x7f, (size_t)M * N * 2, s));
        CHECK(cuMemsetD8Async(dCf, 0x7f, cf, s));
        CHECK(cuGraphLaunch(e, s));
        CHECK(cuMemcpyDtoHAsync_v2(hC[p], dC, ch, s));
        CHECK(cuMemcpyDtoHAsync_v2(hC1[p], dC1, (size_t)M * N * 2, s));
        CHECK(cuMemcpyDtoHAsync_v2(hCf[p], dCf, cf, s));
        if (r % 4 == 0) continue;  /* rounds 0 and 4 are checked after the next one: two launches without a wait */
        CHECK(cuStreamSynchronize(s));
        for (int q = (r % 4 == 1 ? r - 1 : r); q <= r; q++) {
            int pq = q & 1;
            for (int b = 0; b < BATCH; b++)
                for (int i = 0; i < M; i++)
                    for (int j = 0; j < N; j++) {
                        long want = 0;
                        for (int k = 0; k < K; k++) want += a_val(q, b, i, k) * b_val(q, b, k, j);
                        double got = unhalf(hC[pq][(size_t)b * M * N + (size_t)j * M + i]);
                        if (got != (double)want && bad++ < 5) printf("round %d strided batch %d C[%d,%d] = %g, want %ld\n", q, b, i, j, got, want);
                        if (b == 0) {
                            double got1 = unhalf(hC1[pq][(size_t)j * M + i]);
                            if (got1 != (double)want && bad++ < 5) printf("round %d GemmEx C[%d,%d] = %g, want %ld\n", q, i, j, got1, want);
                        }
                        if (b == 1) {  /* the f32 inputs are batch 1's values */
                            double gotf = hCf[pq][j * M + i];
                            if (gotf != (double)want && bad++ < 5) printf("round %d Sgemm C[%d,%d] = %g, want %ld\n", q, i, j, gotf, want);
                        }
                    }
        }
    }
    printf("%d rounds of the captured graph: %s\n", rounds, bad ? "WRONG" : "every result exact");

    if (argc > 1) {  /* the time of a large captured GEMM against the same GEMM called directly */
        int n = atoi(argv[1]);
        CUdeviceptr x, y, z;
        CHECK(cuMemAlloc_v2(&x, (size_t)n * n * 2));
        CHECK(cuMemAlloc_v2(&y, (size_t)n * n * 2));
        CHECK(cuMemAlloc_v2(&z, (size_t)n * n * 2));
        CHECK(cuMemsetD8Async(x, 0, (size_t)n * n * 2, s));
        CHECK(cuMemsetD8Async(y, 0, (size_t)n * n * 2, s));
        CUgraph g2;
        CUgraphExec e2;
        CHECK(cuStreamBeginCapture_v2(s, CAPTURE_RELAXED));
        CHECK(cublasGemmEx(h, OP_T, OP_N, n, n, n, &one16, (const void *)x, R_16F, n, (const void *)y, R_16F, n, &zero16,
                           (void *)z, R_16F, n, COMPUTE_16F, GEMM_DEFAULT_TENSOR_OP));
        CHECK(cuStreamEndCapture(s, &g2));
        CHECK(cuGraphInstantiateWithFlags(&e2, g2, 0));
        double us[2];
        for (int way = 0; way < 2; way++) {
            for (int warm = 0; warm < 2; warm++) {
                struct timespec t0, t1;
                clock_gettime(CLOCK_MONOTONIC, &t0);
                for (int i = 0; i < 20; i++) {
                    if (way == 0) CHECK(cuGraphLaunch(e2, s));
                    else CHECK(cublasGemmEx(h, OP_T, OP_N, n, n, n, &one16, (const void *)x, R_16F, n, (const void *)y, R_16F, n,
                                            &zero16, (void *)z, R_16F, n, COMPUTE_16F, GEMM_DEFAULT_TENSOR_OP));
                }
                CHECK(cuStreamSynchronize(s));
                clock_gettime(CLOCK_MONOTONIC, &t1);
                us[way] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / 20;
            }
        }
        printf("f16 GEMM %d x %d x %d: %.1f us per graph launch, %.1f us per direct call\n", n, n, n, us[0], us[1]);
        /* an f32 Sgemm under the handle's TF32_TENSOR_OP_MATH (llama.cpp's f32 path): on tensor cores where TF32 is */
        CUdeviceptr xf, yf, zf;
        CHECK(cuMemAlloc_v2(&xf, (size_t)n * n * 4));
        CHECK(cuMemAlloc_v2(&yf, (size_t)n * n * 4));
        CHECK(cuMemAlloc_v2(&zf, (size_t)n * n * 4));
        CHECK(cuMemsetD8Async(xf, 0, (size_t)n * n * 4, s));
        CHECK(cuMemsetD8Async(yf, 0, (size_t)n * n * 4, s));
        double sg = 0;
        for (int warm = 0; warm < 2; warm++) {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            for (int i = 0; i < 10; i++)
                CHECK(cublasSgemm_v2(h, OP_T, OP_N, n, n, n, &one, (const float *)xf, n, (const float *)yf, n, &zero, (float *)zf, n));
            CHECK(cuStreamSynchronize(s));
            clock_gettime(CLOCK_MONOTONIC, &t1);
            sg = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / 10;
        }
        printf("f32 Sgemm %d x %d x %d under TF32_TENSOR_OP_MATH: %.1f us per call\n", n, n, n, sg);
        CHECK(cuMemFree_v2(xf));
        CHECK(cuMemFree_v2(yf));
        CHECK(cuMemFree_v2(zf));
        CHECK(cuGraphExecDestroy(e2));
        CHECK(cuGraphDestroy(g2));
    }
    CHECK(cuGraphExecDestroy(e));
    CHECK(cuGraphDestroy(g));
    CHECK(cublasDestroy_v2(h));
    CHECK(cuStreamDestroy_v2(s));
    if (bad) {
        printf("FAIL: %d wrong results\n", bad);
        return 1;
    }
    printf("PASS: cublas graphs\n");
    return 0;
}
