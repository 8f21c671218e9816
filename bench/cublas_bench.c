/* SGEMM and HGEMM (GemmEx f16 in, f32 out, compute 32F) GFLOP/s through a cuBLAS (ours through ZLUDA-J, or
 * NVIDIA's natively), side by side with the BLAS underneath called directly: on the host backend that is OpenBLAS's
 * cblas_sgemm (argument 1: the libopenblas file; HGEMM's direct column is the same conversion-free sgemm on f32 copies
 * of the inputs, the best the host can do). Each figure: after a second of calls (at least 30), the best of 9 timings of 20 calls and one
 * synchronization, per call. CUBLAS_BENCH_64=1 calls the _64 entry points instead. Prints one table. Build: see bench/cublas-bench.sh. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;
typedef struct cublasContext *cublasHandle_t;
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxSynchronize(void);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
int cublasCreate_v2(cublasHandle_t *);
int cublasSgemm_v2(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *, int, const float *, float *, int);
int cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int, const void *, void *, int, int, int, int);
int cublasSgemm_v2_64(cublasHandle_t, int, int, int64_t, int64_t, int64_t, const float *, const float *, int64_t, const float *, int64_t, const float *, float *, int64_t);
int cublasGemmEx_64(cublasHandle_t, int, int, int64_t, int64_t, int64_t, const void *, const void *, int, int64_t, const void *, int, int64_t, const void *, void *, int, int64_t, int, int);
static int use64;  /* CUBLAS_BENCH_64=1: the _64 entry points (cuBLAS's per-call cost differs between the two) */
static int sgemm(cublasHandle_t h, int m, int n, int k, const float *one, const float *A, const float *B, const float *zero, float *C) {
    return use64 ? cublasSgemm_v2_64(h, 0, 0, m, n, k, one, A, m, B, k, zero, C, m) : cublasSgemm_v2(h, 0, 0, m, n, k, one, A, m, B, k, zero, C, m);
}
static int hgemm(cublasHandle_t h, int m, int n, int k, const float *one, const void *A, const void *B, const float *zero, void *C) {
    return use64 ? cublasGemmEx_64(h, 0, 0, m, n, k, one, A, 2, m, B, 2, k, zero, C, 0, m, 68, -1)
                 : cublasGemmEx(h, 0, 0, m, n, k, one, A, 2, m, B, 2, k, zero, C, 0, m, 68, -1);
}

#define CALLS 20  /* GEMMs per timing, one synchronization after them */
#define WARMUP 30    /* calls before timing, and at least WARMUP_S seconds of them: a JIT-compiled library (ZLUDA-J's */
#define WARMUP_S 1.0 /* Java, compiled after some thousands of calls) reaches its steady state as in a long run */
#define REPS 10
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

int main(int argc, char **argv) {
    void (*direct)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int) = NULL;
    if (argc > 1) {
        void *ob = dlopen(argv[1], RTLD_NOW);
        if (ob) direct = dlsym(ob, "cblas_sgemm");
    }
    use64 = getenv("CUBLAS_BENCH_64") && atoi(getenv("CUBLAS_BENCH_64"));
    CUcontext ctx;
    cublasHandle_t h;
    if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx) || cublasCreate_v2(&h)) { puts("no cuBLAS"); return 1; }
    int shapes[3][3] = {{1024, 1024, 1024}, {4096, 4096, 128}, {64, 64, 64}};  /* the last: per-call cost */
    printf("%-16s %-6s %12s %12s %8s %12s %12s\n", "m x n x k", "op", "cuBLAS GF/s", "direct GF/s", "ratio", "cuBLAS us", "direct us");
    for (int s = 0; s < 3; s++) {
        int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
        float *A = malloc(4 * na), *B = malloc(4 * nb), *C = malloc(4 * nc);
        uint16_t *Ah = malloc(2 * na), *Bh = malloc(2 * nb);
        for (size_t i = 0; i < na; i++) { A[i] = (float)(rand() % 100) / 100; _Float16 v = A[i]; memcpy(&Ah[i], &v, 2); }
        for (size_t i = 0; i < nb; i++) { B[i] = (float)(rand() % 100) / 100; _Float16 v = B[i]; memcpy(&Bh[i], &v, 2); }
        CUdeviceptr dA, dB, dC, dAh, dBh;
        cuMemAlloc_v2(&dA, 4 * na); cuMemAlloc_v2(&dB, 4 * nb); cuMemAlloc_v2(&dC, 4 * nc);
        cuMemAlloc_v2(&dAh, 2 * na); cuMemAlloc_v2(&dBh, 2 * nb);
        cuMemcpyHtoD_v2(dA, A, 4 * na); cuMemcpyHtoD_v2(dB, B, 4 * nb); cuMemcpyHtoD_v2(dAh, Ah, 2 * na); cuMemcpyHtoD_v2(dBh, Bh, 2 * nb);
        float one = 1, zero = 0;
        double flop = 2.0 * m * n * k;
        for (int op = 0; op < 2; op++) {
            double best = 1e30, bestd = 1e30;
            double warm_until = now() + WARMUP_S;
            for (int i = 0; i < WARMUP || now() < warm_until; i++) {
                if (op == 0) sgemm(h, m, n, k, &one, (float *)dA, (float *)dB, &zero, (float *)dC);
                else hgemm(h, m, n, k, &one, (void *)dAh, (void *)dBh, &zero, (void *)dC);
            }
            cuCtxSynchronize();
            for (int rep = 0; rep < REPS; rep++) {
                double t0 = now();
                for (int i = 0; i < CALLS; i++) {  /* as applications issue them: several, then one wait */
                    if (op == 0) sgemm(h, m, n, k, &one, (float *)dA, (float *)dB, &zero, (float *)dC);
                    else hgemm(h, m, n, k, &one, (void *)dAh, (void *)dBh, &zero, (void *)dC);
                }
                cuCtxSynchronize();
                double t = (now() - t0) / CALLS;
                if (rep > 0 && t < best) best = t;
                if (direct) {
                    t0 = now();
                    for (int i = 0; i < CALLS; i++) direct(102, 111, 111, m, n, k, 1, A, m, B, k, 0, C, m);
                    t = (now() - t0) / CALLS;
                    if (rep > 0 && t < bestd) bestd = t;
                }
            }
            char shape[32];
            snprintf(shape, sizeof shape, "%dx%dx%d", m, n, k);
            if (direct) printf("%-16s %-6s %12.1f %12.1f %8.2f %12.2f %12.2f\n", shape, op ? "HGEMM" : "SGEMM", flop / best * 1e-9, flop / bestd * 1e-9, bestd / best, best * 1e6, bestd * 1e6);
            else printf("%-16s %-6s %12.1f %12s %8s %12.2f %12s\n", shape, op ? "HGEMM" : "SGEMM", flop / best * 1e-9, "-", "-", best * 1e6, "-");
        }
        free(A); free(B); free(C); free(Ah); free(Bh);
    }
    return 0;
}
