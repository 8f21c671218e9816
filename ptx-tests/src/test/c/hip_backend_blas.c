/* The hip backend's cuBLAS, checked against a recording fake of AMD's HIP runtime and rocBLAS (fake_hip.c;
 * HipBackendFakeTest): ggml's GEMM calls (cublasSgemm, cublasGemmEx, cublasGemmStridedBatchedEx, cublasGemmBatchedEx)
 * reach rocBLAS's strided and pointer-array GEMMs with rocBLAS's enums (operations 111/112, f32 151, f16 150, compute
 * type the scalars' type), D the same matrix as C, every call with its own sizes, addresses, strides and scalars on
 * the stream its handle has at that moment, the first through the JVM and the next ones repeated by the shim
 * (shim/blas.c); bad arguments get cuBLAS's status and reach nothing; a captured call runs at the graph's launch.
 * After each call the program compares the log's last lines with what rocBLAS must have been asked. Prints PASS, or
 * the first difference.
 * Build: gcc -o hip_backend_blas hip_backend_blas.c -L<dist>/lib -l:libcublas.so.13 -lcuda */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log_check.h"

typedef int CUresult;
typedef void *CUcontext, *CUstream, *CUgraph, *CUgraphExec;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuStreamBeginCapture_v2(CUstream, int);
CUresult cuStreamEndCapture(CUstream, CUgraph *);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *, CUgraph, unsigned long long);
CUresult cuGraphLaunch(CUgraphExec, CUstream);

typedef struct cublasContext *cublasHandle_t;
int cublasCreate_v2(cublasHandle_t *);
int cublasDestroy_v2(cublasHandle_t);
int cublasSetStream_v2(cublasHandle_t, CUstream);
int cublasSetMathMode(cublasHandle_t, int);
int cublasSetPointerMode_v2(cublasHandle_t, int);
int cublasSgemm_v2(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *, int, const float *, float *, int);
int cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int, const void *, void *, int, int, int, int);
int cublasGemmStridedBatchedEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, long long, const void *, int, int, long long, const void *, void *, int, int, long long, int, int, int);
int cublasGemmBatchedEx(cublasHandle_t, int, int, int, int, int, const void *, const void *const *, int, int, const void *const *, int, int, const void *, void *const *, int, int, int, int, int);

#define CHECK(x) do { int r_ = (x); if (r_) { printf("FAIL: %s = %d\n", #x, r_); exit(1); } } while (0)

/* the stream number of the log's last line ("on stream #N") */
static int last_stream(void) {
    char got[2048];
    last_lines(1, got, sizeof got);
    const char *p = strstr(got, "on stream #");
    return p ? atoi(p + 11) : -1;
}

enum { R_32F = 0, R_16F = 2, COMPUTE_32F = 68, TF32_MATH = 3, OK = 0, INVALID_VALUE = 7, EXECUTION_FAILED = 13,
       RB_N = 111, RB_T = 112, RB_F32 = 151, RB_F16 = 150 };

static char want[2048];

/* the line of a strided GEMM (D = C) */
static const char *strided(int ta, int tb, int m, int n, int k, int batch, int at, int ct, CUdeviceptr a, int lda, long long sa,
                           CUdeviceptr b, int ldb, long long sb, CUdeviceptr c, int ldc, long long sc, const char *al, const char *be, int s) {
    snprintf(want, sizeof want,
             "rocblas_gemm_strided_batched_ex ops %d %d m %d n %d k %d batch %d types %d %d %d %d compute %d a %p lda %d sa %lld b %p "
             "ldb %d sb %lld c %p ldc %d sc %lld d %p ldd %d sd %lld alpha %s beta %s on stream #%d",
             ta, tb, m, n, k, batch, at, at, ct, ct, RB_F32, (void *)a, lda, sa, (void *)b, ldb, sb, (void *)c, ldc, sc, (void *)c, ldc, sc,
             al, be, s);
    return want;
}

int main(void) {
    log_path = getenv("FAKE_HIP_LOG");
    if (!log_path) { puts("FAIL: FAKE_HIP_LOG is needed"); return 1; }
    CUcontext ctx;
    CUstream s, s2;
    cublasHandle_t h;
    CUdeviceptr A, B, C, D;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuStreamCreate(&s, 1));
    CHECK(cuStreamCreate(&s2, 1));
    CHECK(cuMemAlloc_v2(&A, 1 << 20));
    CHECK(cuMemAlloc_v2(&B, 1 << 20));
    CHECK(cuMemAlloc_v2(&C, 1 << 20));
    CHECK(cuMemAlloc_v2(&D, 1 << 12));
    CHECK(cublasCreate_v2(&h));
    CHECK(cublasSetStream_v2(h, s));
    CHECK(cublasSetMathMode(h, TF32_MATH));
    float sc[64], one = 1, zero = 0;
    for (int i = 0; i < 64; i++) sc[i] = (float)i;
    char al[32], be[32];

    note("GemmEx");
    int ss = -1;
    for (int i = 0; i < 40; i++) {
        int m = 8 + (i % 5) * 8, k = 32 + (i % 3) * 16;
        CHECK(cublasGemmEx(h, 1, 0, m, 8, k, &sc[i], (void *)(A + i * 256), R_32F, k, (void *)(B + i * 512), R_32F, k + i % 2, &sc[63 - i],
                           (void *)(C + i * 1024), R_32F, m + i % 4, COMPUTE_32F, -1));
        CHECK(cuStreamSynchronize(s));
        if (ss < 0) ss = last_stream();
        snprintf(al, sizeof al, "%g", (double)sc[i]);
        snprintf(be, sizeof be, "%g", (double)sc[63 - i]);
        expect(1, strided(RB_T, RB_N, m, 8, k, 1, RB_F32, RB_F32, A + i * 256, k, 0, B + i * 512, k + i % 2, 0, C + i * 1024, m + i % 4, 0, al,
                       be, ss), "GemmEx");
    }

    note("GemmStridedBatchedEx, GemmBatchedEx, Sgemm");
    for (int i = 0; i < 20; i++) {
        long long sa = 4096 + i * 16, sb = 8192 + i * 32, scs = 2048 + i * 8;
        CHECK(cublasGemmStridedBatchedEx(h, 1, 0, 16, 8, 32, &sc[1], (void *)(A + i * 64), R_16F, 32, sa, (void *)B, R_16F, 32, sb, &sc[2],
                                         (void *)C, R_32F, 16, scs, 2 + i % 7, COMPUTE_32F, -1));
        CHECK(cuStreamSynchronize(s));
        expect(1, strided(RB_T, RB_N, 16, 8, 32, 2 + i % 7, RB_F16, RB_F32, A + i * 64, 32, sa, B, 32, sb, C, 16, scs, "1", "2", ss),
               "GemmStridedBatchedEx");
        CHECK(cublasGemmBatchedEx(h, 0, 1, 24, 8, 16, &sc[3], (void *)(D + i * 8), R_16F, 24, (void *)(D + 1024), R_16F, 8, &sc[4],
                                  (void *)(D + 2048 + i * 8), R_16F, 24, 3 + i, COMPUTE_32F, -1));
        CHECK(cuStreamSynchronize(s));
        snprintf(want, sizeof want,
                 "rocblas_gemm_batched_ex ops %d %d m 24 n 8 k 16 batch %d types %d %d %d %d compute %d a %p lda 24 b %p ldb 8 c %p ldc 24 "
                 "d %p ldd 24 alpha 3 beta 4 on stream #%d", RB_N, RB_T, 3 + i, RB_F16, RB_F16, RB_F16, RB_F16, RB_F32, (void *)(D + i * 8),
                 (void *)(D + 1024), (void *)(D + 2048 + i * 8), (void *)(D + 2048 + i * 8), ss);
        expect(1, want, "GemmBatchedEx");
        CHECK(cublasSgemm_v2(h, 1, 0, 16 + i, 8, 32, &sc[5], (float *)A, 32, (float *)B, 32, &sc[6], (float *)(C + i * 4), 40));
        CHECK(cuStreamSynchronize(s));
        expect(1, strided(RB_T, RB_N, 16 + i, 8, 32, 1, RB_F32, RB_F32, A, 32, 0, B, 32, 0, C + i * 4, 40, 0, "5", "6", ss), "Sgemm");
    }

#define GEMMEX(m) cublasGemmEx(h, 1, 0, m, 8, 32, &one, (void *)A, R_32F, 32, (void *)B, R_32F, 32, &zero, (void *)C, R_32F, 128, COMPUTE_32F, -1)
    note("the handle's stream and pointer mode changed between repeated calls");
    CHECK(cublasSetStream_v2(h, s2));
    CHECK(GEMMEX(40));
    CHECK(cuStreamSynchronize(s2));
    int ss2 = last_stream();
    if (ss2 == ss || ss2 < 0) { printf("FAIL: a GEMM on stream s2 reached rocBLAS on stream #%d (s: #%d)\n", ss2, ss); return 1; }
    CHECK(GEMMEX(40));
    CHECK(cuStreamSynchronize(s2));
    expect(1, strided(RB_T, RB_N, 40, 8, 32, 1, RB_F32, RB_F32, A, 32, 0, B, 32, 0, C, 128, 0, "1", "0", ss2), "GemmEx on s2");
    CHECK(cublasSetStream_v2(h, s));
    CHECK(GEMMEX(48));
    CHECK(cuStreamSynchronize(s));
    expect(1, strided(RB_T, RB_N, 48, 8, 32, 1, RB_F32, RB_F32, A, 32, 0, B, 32, 0, C, 128, 0, "1", "0", ss), "GemmEx on s again");
    CHECK(cublasSetPointerMode_v2(h, 1));
    CHECK(cublasGemmEx(h, 1, 0, 48, 8, 32, (void *)D, (void *)A, R_32F, 32, (void *)B, R_32F, 32, (void *)(D + 4), (void *)C, R_32F, 128,
                       COMPUTE_32F, -1));
    CHECK(cuStreamSynchronize(s));
    snprintf(al, sizeof al, "device %p", (void *)D);
    snprintf(be, sizeof be, "device %p", (void *)(D + 4));
    expect(1, strided(RB_T, RB_N, 48, 8, 32, 1, RB_F32, RB_F32, A, 32, 0, B, 32, 0, C, 128, 0, al, be, ss), "GemmEx, device scalars");
    CHECK(cublasSetPointerMode_v2(h, 0));
    for (int i = 0; i < 3; i++) CHECK(GEMMEX(56));
    CHECK(cuStreamSynchronize(s));
    expect(1, strided(RB_T, RB_N, 56, 8, 32, 1, RB_F32, RB_F32, A, 32, 0, B, 32, 0, C, 128, 0, "1", "0", ss), "GemmEx, host scalars");

    note("bad arguments of a repeated call");
    char before[2048], after[2048];
    last_lines(1, before, sizeof before);
    if (GEMMEX(-1) != INVALID_VALUE || GEMMEX(129) != INVALID_VALUE ||
        cublasGemmEx(h, 1, 0, 56, 8, 32, NULL, (void *)A, R_32F, 32, (void *)B, R_32F, 32, &zero, (void *)C, R_32F, 128, COMPUTE_32F, -1) != INVALID_VALUE ||
        GEMMEX(0) != OK ||
        cublasGemmStridedBatchedEx(h, 1, 0, 16, 8, 32, &one, (void *)A, R_16F, 32, 0, (void *)B, R_16F, 32, 0, &zero, (void *)C, R_32F, 16,
                                   0, -1, COMPUTE_32F, -1) != EXECUTION_FAILED) {
        puts("FAIL: a bad argument was not answered as NVIDIA's cuBLAS answers it");
        return 1;
    }
    CHECK(cuStreamSynchronize(s));
    last_lines(1, after, sizeof after);
    if (strcmp(before, after)) { printf("FAIL: a refused call reached rocBLAS: %s\n", after); return 1; }

    note("a repeated call captured: run at the graph's launch");
    CHECK(GEMMEX(56));
    CUgraph g;
    CUgraphExec e;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(GEMMEX(64));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuStreamSynchronize(s));
    expect(1, strided(RB_T, RB_N, 56, 8, 32, 1, RB_F32, RB_F32, A, 32, 0, B, 32, 0, C, 128, 0, "1", "0", ss), "nothing run while captured");
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    expect(1, strided(RB_T, RB_N, 64, 8, 32, 1, RB_F32, RB_F32, A, 32, 0, B, 32, 0, C, 128, 0, "1", "0", ss), "GemmEx captured");
    CHECK(cublasDestroy_v2(h));
    note("end");
    puts("PASS: hip backend blas");
    return 0;
}
