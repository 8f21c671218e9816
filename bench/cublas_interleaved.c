/* ZLUDA-J benchmark: what one cuBLAS call costs its caller when it comes between other stream work, as ggml's do (a
 * conversion kernel or a few, then the product), natively or through ZLUDA-J (whichever libcuda.so.1 and
 * libcublas.so.13 the loader finds). Each round queues K small device-to-device copies on a non-blocking stream (other
 * stream work, as ggml's kernels: made by the shim without the JVM, as launches are), then makes one
 * cublasGemmStridedBatchedEx (f16 A and B, f32 C, compute 32F, 64 x 64 x 64, 12 matrices: GPT-2's attention product),
 * the stream synchronized every 16 rounds. Every call is timed on its own; the first ROUNDS/10 are left out.
 * Prints per call kind: calls, p50, p90 and mean us. With K = 0 the GEMMs follow each other (a hot loop).
 * Usage: cublas_interleaved [K] [ROUNDS]   (build: gcc -O2 cublas_interleaved.c -lcublas -lcuda) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void *CUcontext, *CUstream;
typedef unsigned long long CUdeviceptr;
int cuInit(unsigned);
int cuDevicePrimaryCtxRetain(CUcontext *, int);
int cuCtxSetCurrent(CUcontext);
int cuStreamCreate(CUstream *, unsigned);
int cuStreamSynchronize(CUstream);
int cuMemAlloc_v2(CUdeviceptr *, size_t);
int cuMemsetD8_v2(CUdeviceptr, unsigned char, size_t);
int cuMemcpyDtoDAsync_v2(CUdeviceptr, CUdeviceptr, size_t, CUstream);
typedef struct cublasContext *cublasHandle_t;
int cublasCreate_v2(cublasHandle_t *);
int cublasSetStream_v2(cublasHandle_t, CUstream);
int cublasSetMathMode(cublasHandle_t, int);
int cublasGemmStridedBatchedEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, long long,
                               const void *, int, int, long long, const void *, void *, int, int, long long, int, int, int);

#define CHECK(x) do { int r_ = (x); if (r_) { fprintf(stderr, "FAIL %s = %d\n", #x, r_); exit(1); } } while (0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, double *t, int n) {
    if (n == 0) return;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += t[i];
    qsort(t, n, sizeof *t, cmp);
    printf("%-28s %8d calls  p50 %7.2f us  p90 %7.2f us  mean %7.2f us\n", what, n, t[n / 2], t[n * 9 / 10], sum / n);
}

int main(int argc, char **argv) {
    int copies = argc > 1 ? atoi(argv[1]) : 8, rounds = argc > 2 ? atoi(argv[2]) : 4000, skip = rounds / 10;
    CUcontext c;
    CUstream s;
    CUdeviceptr m;
    cublasHandle_t h;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&c, 0));
    CHECK(cuCtxSetCurrent(c));
    CHECK(cuStreamCreate(&s, 1));
    size_t matrix = 64 * 64 * 12;
    CHECK(cuMemAlloc_v2(&m, matrix * 8));
    CHECK(cuMemsetD8_v2(m, 0, matrix * 8));
    CHECK(cublasCreate_v2(&h));
    CHECK(cublasSetStream_v2(h, s));
    CHECK(cublasSetMathMode(h, 3));  /* CUBLAS_TF32_TENSOR_OP_MATH, as llama.cpp sets it */
    double *gemm = malloc(sizeof(double) * rounds), *launch = malloc(sizeof(double) * rounds * (copies ? copies : 1));
    int ng = 0, nl = 0;
    const float one = 1, zero = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < copies; i++) {
            double t0 = now();
            CHECK(cuMemcpyDtoDAsync_v2(m + matrix * 6, m + matrix * 7, 256, s));
            if (r >= skip) launch[nl++] = now() - t0;
        }
        double t0 = now();
        CHECK(cublasGemmStridedBatchedEx(h, 1, 0, 64, 64, 64, &one, (const void *)m, 2, 64, 4096, (const void *)(m + matrix * 2), 2,
                                         64, 4096, &zero, (void *)(m + matrix * 4), 0, 64, 4096, 12, 68, -1));
        if (r >= skip) gemm[ng++] = now() - t0;
        if (r % 16 == 15) CHECK(cuStreamSynchronize(s));
    }
    CHECK(cuStreamSynchronize(s));
    printf("%d copies before each GEMM, %d rounds (the first %d left out)\n", copies, rounds, skip);
    report("cublasGemmStridedBatchedEx", gemm, ng);
    report("cuMemcpyDtoDAsync", launch, nl);
    return 0;
}
