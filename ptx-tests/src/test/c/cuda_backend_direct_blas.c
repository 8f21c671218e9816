/* cuBLAS GEMMs the shim repeats without the JVM (shim/blas.c, DirectBlas), checked over recording fakes of NVIDIA's
 * driver and cuBLAS (fake_nvidia.c, fake_cublas.c with FAKE_CUBLAS_DETAIL; CudaBackendFakeTest): every call reaches
 * NVIDIA's library with its own sizes, addresses, strides and scalars, on the stream and under the math and pointer
 * modes its handle has at that moment; a call behind queued work waits its turn, a captured call runs at the graph's
 * launch, bad arguments get cuBLAS's status, two handles with different math modes alternate correctly, and two
 * threads on two streams keep their own. After each call the program reads the log's last lines and compares them
 * with what NVIDIA's library must have been asked. Prints PASS, or the first difference.
 * Build: gcc -o cuda_backend_direct_blas cuda_backend_direct_blas.c -L<dist>/lib -l:libcublas.so.13 -lcuda -lpthread */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
CUresult cuLaunchHostFunc(CUstream, void (*)(void *), void *);
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


enum { R_32F = 0, R_16F = 2, R_8I = 3, R_32I = 10, COMPUTE_32F = 68, COMPUTE_32I = 72, DEFAULT_MATH = 0, TF32_MATH = 3, OK = 0,
       INVALID_VALUE = 7, EXECUTION_FAILED = 13, NOT_SUPPORTED = 15 };

static CUdeviceptr A, B, C, D;
static float scalars[64];

/* the detail line of a GEMM (fake_cublas.c) */
static void detail(char *out, size_t size, CUdeviceptr a, int lda, long long sa, CUdeviceptr b, int ldb, long long sb, CUdeviceptr c,
                   int ldc, long long sc, float alpha, float beta, int stream) {
    snprintf(out, size, "  a %p lda %d sa %lld b %p ldb %d sb %lld c %p ldc %d sc %lld alpha %g beta %g stream #%d", (void *)a, lda, sa,
             (void *)b, ldb, sb, (void *)c, ldc, sc, (double)alpha, (double)beta, stream);
}

static void host_function(void *arg) {
    (void)arg;
    usleep(100000);
    note("host function ran");
}

struct worker {
    cublasHandle_t h;
    CUstream s;
    int m, failures;
};

/* a thread's GEMMs: each must be on its own stream (checked after both threads, in the log) */
static void *work(void *arg) {
    struct worker *w = arg;
    float one = 1, zero = 0;
    for (int i = 0; i < 300; i++)  /* two handles on two streams share NVIDIA's one handle: their calls may go through the JVM */
        if (cublasGemmStridedBatchedEx(w->h, 1, 0, w->m, 8, 32, &one, (void *)A, R_32F, 32, 0, (void *)B, R_32F, 32, 0, &zero, (void *)C,
                                       R_32F, w->m, 0, 2, COMPUTE_32F, -1))
            w->failures++;
    return NULL;
}

int main(void) {
    log_path = getenv("FAKE_NVIDIA_LOG");
    if (!log_path || !getenv("FAKE_CUBLAS_DETAIL")) { puts("FAIL: FAKE_NVIDIA_LOG and FAKE_CUBLAS_DETAIL are needed"); return 1; }
    CUcontext ctx;
    CUstream s, s2;
    cublasHandle_t h, h2;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuStreamCreate(&s, 1));
    CHECK(cuStreamCreate(&s2, 1));
    CHECK(cuMemAlloc_v2(&A, 1 << 20));
    CHECK(cuMemAlloc_v2(&B, 1 << 20));
    CHECK(cuMemAlloc_v2(&C, 1 << 20));
    CHECK(cuMemAlloc_v2(&D, 1 << 12));
    for (int i = 0; i < 64; i++) scalars[i] = (float)i;
    CHECK(cublasCreate_v2(&h));
    CHECK(cublasSetStream_v2(h, s));
    CHECK(cublasSetMathMode(h, TF32_MATH));  /* llama.cpp's */
    char want[1024], line[512];

    note("GemmEx: sizes, addresses and scalars change from call to call");
    for (int i = 0; i < 60; i++) {
        int m = 8 + (i % 5) * 8, k = 32 + (i % 3) * 16;
        CUdeviceptr a = A + i * 256, b = B + i * 512, c = C + i * 1024;
        CHECK(cublasGemmEx(h, 1, 0, m, 8, k, &scalars[i], (void *)a, R_32F, k, (void *)b, R_32F, k + i % 2, &scalars[63 - i], (void *)c,
                           R_32F, m + i % 4, COMPUTE_32F, -1));
        CHECK(cuStreamSynchronize(s));
        detail(line, sizeof line, a, k, 0, b, k + i % 2, 0, c, m + i % 4, 0, scalars[i], scalars[63 - i], 1);
        snprintf(want, sizeof want, "cublasGemmEx TN m %d n 8 k %d types 0 0 0 compute 68 on a stream|%s", m, k, line);
        expect(2, want, "GemmEx");
    }

    note("GemmStridedBatchedEx: batches and strides change");
    for (int i = 0; i < 30; i++) {
        int batch = 2 + i % 7;
        long long sa = 4096 + i * 16, sb = 8192 + i * 32, sc = 2048 + i * 8;
        CHECK(cublasGemmStridedBatchedEx(h, 1, 0, 16, 8, 32, &scalars[1], (void *)(A + i * 64), R_16F, 32, sa, (void *)B, R_16F, 32, sb,
                                         &scalars[2], (void *)C, R_32F, 16, sc, batch, COMPUTE_32F, -1));
        CHECK(cuStreamSynchronize(s));
        detail(line, sizeof line, A + i * 64, 32, sa, B, 32, sb, C, 16, sc, 1, 2, 1);
        snprintf(want, sizeof want, "cublasGemmStridedBatchedEx TN m 16 n 8 k 32 batch %d types 2 2 0 compute 68 on a stream|%s", batch, line);
        expect(2, want, "GemmStridedBatchedEx");
    }

    note("GemmBatchedEx and Sgemm");
    for (int i = 0; i < 20; i++) {
        CHECK(cublasGemmBatchedEx(h, 0, 1, 24, 8, 16, &scalars[3], (void *)(D + i * 8), R_16F, 24, (void *)(D + 1024), R_16F, 8,
                                  &scalars[4], (void *)(D + 2048 + i * 8), R_16F, 24, 3 + i, COMPUTE_32F, -1));
        CHECK(cuStreamSynchronize(s));
        detail(line, sizeof line, D + i * 8, 24, 0, D + 1024, 8, 0, D + 2048 + i * 8, 24, 0, 3, 4, 1);
        snprintf(want, sizeof want, "cublasGemmBatchedEx NT m 24 n 8 k 16 batch %d types 2 2 2 compute 68 on a stream|%s", 3 + i, line);
        expect(2, want, "GemmBatchedEx");
        CHECK(cublasSgemm_v2(h, 1, 0, 16 + i, 8, 32, &scalars[5], (float *)A, 32, (float *)B, 32, &scalars[6], (float *)(C + i * 4), 40));
        CHECK(cuStreamSynchronize(s));
        detail(line, sizeof line, A, 32, 0, B, 32, 0, C + i * 4, 40, 0, 5, 6, 1);
        snprintf(want, sizeof want, "cublasSgemm TN m %d n 8 k 32 on a stream|%s", 16 + i, line);
        expect(2, want, "Sgemm");
    }

    note("the handle's stream, math mode and pointer mode changed between repeated calls");
    float one = 1, zero = 0;
#define GEMMEX(handle, m) cublasGemmEx(handle, 1, 0, m, 8, 32, &one, (void *)A, R_32F, 32, (void *)B, R_32F, 32, &zero, (void *)C, R_32F, 128, COMPUTE_32F, -1)
    CHECK(cublasSetStream_v2(h, NULL));
    CHECK(GEMMEX(h, 40));
    CHECK(cuStreamSynchronize(NULL));
    detail(line, sizeof line, A, 32, 0, B, 32, 0, C, 128, 0, 1, 0, 2);  /* the legacy stream's own NVIDIA stream */
    snprintf(want, sizeof want, "cublasGemmEx TN m 40 n 8 k 32 types 0 0 0 compute 68 on a stream|%s", line);
    expect(2, want, "GemmEx after cublasSetStream(NULL)");
    CHECK(cublasSetStream_v2(h, s));
    CHECK(GEMMEX(h, 40));
    CHECK(cuStreamSynchronize(s));
    detail(line, sizeof line, A, 32, 0, B, 32, 0, C, 128, 0, 1, 0, 1);
    snprintf(want, sizeof want, "cublasGemmEx TN m 40 n 8 k 32 types 0 0 0 compute 68 on a stream|%s", line);
    expect(2, want, "GemmEx after cublasSetStream(s)");
    CHECK(cublasSetMathMode(h, DEFAULT_MATH));
    CHECK(GEMMEX(h, 40));
    CHECK(cuStreamSynchronize(s));
    snprintf(want, sizeof want, "cublasSetMathMode 0|cublasGemmEx TN m 40 n 8 k 32 types 0 0 0 compute 68 on a stream|%s", line);
    expect(3, want, "GemmEx after cublasSetMathMode(DEFAULT)");
    CHECK(cublasSetMathMode(h, TF32_MATH));
    CHECK(cublasSetPointerMode_v2(h, 1));
    CHECK(cublasGemmEx(h, 1, 0, 40, 8, 32, (void *)D, (void *)A, R_32F, 32, (void *)B, R_32F, 32, (void *)(D + 4), (void *)C, R_32F, 64,
                       COMPUTE_32F, -1));
    CHECK(cuStreamSynchronize(s));
    snprintf(want, sizeof want,
             "cublasSetMathMode 3|cublasGemmEx TN m 40 n 8 k 32 types 0 0 0 compute 68 on a stream|  a %p lda 32 sa 0 b %p ldb 32 sb 0 c %p "
             "ldc 64 sc 0 alpha device %p beta device %p stream #1", (void *)A, (void *)B, (void *)C, (void *)D, (void *)(D + 4));
    expect(3, want, "GemmEx with device scalars");
    CHECK(cublasSetPointerMode_v2(h, 0));
    for (int i = 0; i < 3; i++) CHECK(GEMMEX(h, 48));
    CHECK(cuStreamSynchronize(s));
    detail(line, sizeof line, A, 32, 0, B, 32, 0, C, 128, 0, 1, 0, 1);
    snprintf(want, sizeof want, "cublasGemmEx TN m 48 n 8 k 32 types 0 0 0 compute 68 on a stream|%s", line);
    expect(2, want, "GemmEx with host scalars again");

    note("bad arguments of a repeated call: cuBLAS's status, nothing called");
    char before[4096], after[4096];
    last_lines(2, before, sizeof before);
    if (cublasGemmEx(h, 1, 0, -1, 8, 32, &one, (void *)A, R_32F, 32, (void *)B, R_32F, 32, &zero, (void *)C, R_32F, 64, COMPUTE_32F, -1) != INVALID_VALUE ||
        cublasGemmEx(h, 1, 0, 48, 8, 32, &one, (void *)A, R_32F, 31, (void *)B, R_32F, 32, &zero, (void *)C, R_32F, 64, COMPUTE_32F, -1) != INVALID_VALUE ||
        cublasGemmEx(h, 1, 0, 48, 8, 32, &one, (void *)A, R_32F, 32, (void *)B, R_32F, 32, &zero, (void *)C, R_32F, 47, COMPUTE_32F, -1) != INVALID_VALUE ||
        cublasGemmEx(h, 1, 0, 48, 8, 32, NULL, (void *)A, R_32F, 32, (void *)B, R_32F, 32, &zero, (void *)C, R_32F, 64, COMPUTE_32F, -1) != INVALID_VALUE ||
        cublasGemmEx(h, 1, 0, 48, 8, 32, &one, (void *)A, R_32F, 32, (void *)B, R_32F, 32, NULL, (void *)C, R_32F, 64, COMPUTE_32F, -1) != INVALID_VALUE ||
        cublasGemmEx(h, 1, 0, 0, 8, 32, &one, (void *)A, R_32F, 32, (void *)B, R_32F, 32, &zero, (void *)C, R_32F, 64, COMPUTE_32F, -1) != OK ||
        cublasGemmStridedBatchedEx(h, 1, 0, 16, 8, 32, &one, (void *)A, R_16F, 32, 0, (void *)B, R_16F, 32, 0, &zero, (void *)C, R_32F, 16,
                                   0, 0, COMPUTE_32F, -1) != OK ||
        cublasGemmStridedBatchedEx(h, 1, 0, 16, 8, 32, &one, (void *)A, R_16F, 32, 0, (void *)B, R_16F, 32, 0, &zero, (void *)C, R_32F, 16,
                                   0, -1, COMPUTE_32F, -1) != EXECUTION_FAILED) {
        puts("FAIL: a bad argument was not answered as NVIDIA's cuBLAS answers it");
        return 1;
    }
    CHECK(cuStreamSynchronize(s));
    last_lines(2, after, sizeof after);
    if (strcmp(before, after)) { printf("FAIL: a refused call reached NVIDIA's library: %s\n", after); return 1; }

    note("int8 GEMMs: their leading dimensions checked at every call");
    int ione = 1, izero = 0;
    for (int i = 0; i < 3; i++)
        CHECK(cublasGemmEx(h, 1, 0, 16, 8, 32, &ione, (void *)A, R_8I, 32, (void *)B, R_8I, 32, &izero, (void *)C, R_32I, 16, COMPUTE_32I, -1));
    CHECK(cuStreamSynchronize(s));
    last_lines(2, before, sizeof before);
    if (cublasGemmEx(h, 1, 0, 16, 8, 30, &ione, (void *)A, R_8I, 30, (void *)B, R_8I, 30, &izero, (void *)C, R_32I, 16, COMPUTE_32I, -1) !=
        NOT_SUPPORTED) {
        puts("FAIL: an int8 GEMM with lda 30 was not answered CUBLAS_STATUS_NOT_SUPPORTED");
        return 1;
    }
    CHECK(cuStreamSynchronize(s));
    last_lines(2, after, sizeof after);
    if (strcmp(before, after)) { printf("FAIL: a refused int8 GEMM reached NVIDIA's library: %s\n", after); return 1; }

    note("a repeated call behind a host function queued on its stream");
    CHECK(GEMMEX(h, 48));  /* kept again */
    CHECK(GEMMEX(h, 48));
    CHECK(cuLaunchHostFunc(s, host_function, NULL));
    CHECK(GEMMEX(h, 56));
    CHECK(cuStreamSynchronize(s));
    detail(line, sizeof line, A, 32, 0, B, 32, 0, C, 128, 0, 1, 0, 1);
    snprintf(want, sizeof want, "program: host function ran|cublasGemmEx TN m 56 n 8 k 32 types 0 0 0 compute 68 on a stream|%s", line);
    expect(3, want, "GemmEx behind a host function");

    note("a repeated call captured: run at the graph's launch");
    CHECK(GEMMEX(h, 48));
    CHECK(GEMMEX(h, 48));
    CUgraph g;
    CUgraphExec e;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(GEMMEX(h, 64));
    CHECK(cuStreamEndCapture(s, &g));
    note("captured");
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    detail(line, sizeof line, A, 32, 0, B, 32, 0, C, 128, 0, 1, 0, 1);
    snprintf(want, sizeof want, "program: captured|cublasGemmEx TN m 64 n 8 k 32 types 0 0 0 compute 68 on a stream|%s", line);
    expect(3, want, "GemmEx captured");
    CHECK(GEMMEX(h, 72));
    CHECK(cuStreamSynchronize(s));
    snprintf(want, sizeof want, "cublasGemmEx TN m 72 n 8 k 32 types 0 0 0 compute 68 on a stream|%s", line);
    expect(2, want, "GemmEx after the capture");

    note("two handles of different math modes in turn");
    CHECK(cublasCreate_v2(&h2));
    CHECK(cublasSetStream_v2(h2, s));
    for (int i = 0; i < 6; i++) {  /* h2 (default math), h (TF32), ... */
        CHECK(GEMMEX(i % 2 ? h : h2, 80 + i % 2 * 8));
        CHECK(cuStreamSynchronize(s));
        snprintf(want, sizeof want, "cublasSetMathMode %d|cublasGemmEx TN m %d n 8 k 32 types 0 0 0 compute 68 on a stream|%s",
                 i % 2 ? TF32_MATH : DEFAULT_MATH, 80 + i % 2 * 8, line);
        expect(3, want, "two handles in turn");
    }

    note("two threads, two handles, two streams");
    CHECK(cublasSetMathMode(h2, TF32_MATH));
    CHECK(cublasSetStream_v2(h2, s2));
    CHECK(GEMMEX(h2, 100));  /* s2's first use: stream #3 */
    CHECK(cuStreamSynchronize(s2));
    struct worker w[2] = {{h, s, 96, 0}, {h2, s2, 104, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, &w[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK(cuStreamSynchronize(s));
    CHECK(cuStreamSynchronize(s2));
    if (w[0].failures || w[1].failures) { printf("FAIL: %d and %d calls of the threads failed\n", w[0].failures, w[1].failures); return 1; }
    /* each thread's GEMMs on its own stream: s is #1 (first used), s2 #3 (after the legacy stream) */
    static char text[1 << 22];
    FILE *f = fopen(log_path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = 0;
    char *p = strstr(text, "program: two threads");
    int counts[2] = {0, 0};
    for (char *l = p ? strtok(p, "\n") : NULL; l; l = strtok(NULL, "\n")) {
        int which = strstr(l, "StridedBatchedEx TN m 96 ") ? 0 : strstr(l, "StridedBatchedEx TN m 104 ") ? 1 : -1;
        if (which < 0) continue;
        char *d = strtok(NULL, "\n");
        const char *own = which ? "stream #3" : "stream #1";
        if (!d || strlen(d) < strlen(own) || strcmp(d + strlen(d) - strlen(own), own)) {
            printf("FAIL: thread %d's GEMM not on its stream: %s | %s\n", which, l, d ? d : "(end)");
            return 1;
        }
        counts[which]++;
    }
    if (counts[0] != 300 || counts[1] != 300) { printf("FAIL: the threads' GEMMs logged %d and %d times, not 300\n", counts[0], counts[1]); return 1; }
    CHECK(cublasDestroy_v2(h2));
    CHECK(cublasDestroy_v2(h));
    note("end");
    puts("PASS: cuda backend direct blas");
    return 0;
}
