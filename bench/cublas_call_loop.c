/* The per-call cost of one cuBLAS GEMM in a loop, to profile it (a flight recording of ZLUDA-J's JVM during the loop,
 * or perf): HGEMM (GemmEx f16 in, f32 out) or SGEMM of m=n=k=SIZE, CALLS calls per synchronization, for SECONDS.
 * Prints us per call every second. Usage: cublas_call_loop [h|s] [SIZE] [SECONDS]
 * Build: gcc -O2 -o cublas_call_loop cublas_call_loop.c -L<cuBLAS> -l:libcublas.so.13 <libcuda.so.1> */
#include <stdio.h>
#include <stdlib.h>
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
CUresult cuMemsetD8_v2(CUdeviceptr, unsigned char, size_t);
int cublasCreate_v2(cublasHandle_t *);
int cublasSgemm_v2(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *, int, const float *, float *, int);
int cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int, const void *, void *, int, int, int, int);

#define CALLS 20
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

int main(int argc, char **argv) {
    int half = argc < 2 || argv[1][0] == 'h', n = argc > 2 ? atoi(argv[2]) : 64;
    double seconds = argc > 3 ? atof(argv[3]) : 5;
    CUcontext ctx;
    cublasHandle_t h;
    CUdeviceptr a, b, c;
    if (cuInit(0) || cuDevicePrimaryCtxRetain(&ctx, 0) || cuCtxSetCurrent(ctx) || cublasCreate_v2(&h)) { puts("no cuBLAS"); return 1; }
    size_t bytes = (size_t)n * n * 4;
    if (cuMemAlloc_v2(&a, bytes) || cuMemAlloc_v2(&b, bytes) || cuMemAlloc_v2(&c, bytes)) { puts("no memory"); return 1; }
    cuMemsetD8_v2(a, 0, bytes);
    cuMemsetD8_v2(b, 0, bytes);
    float one = 1, zero = 0;
    double end = now() + seconds, mark = now() + 1;
    long calls = 0;
    double t0 = now();
    while (now() < end) {
        for (int i = 0; i < CALLS; i++) {
            if (half) cublasGemmEx(h, 0, 0, n, n, n, &one, (void *)a, 2, n, (void *)b, 2, n, &zero, (void *)c, 0, n, 68, -1);
            else cublasSgemm_v2(h, 0, 0, n, n, n, &one, (float *)a, n, (float *)b, n, &zero, (float *)c, n);
        }
        cuCtxSynchronize();
        calls += CALLS;
        if (now() > mark) {
            printf("%s %d: %.2f us per call\n", half ? "HGEMM" : "SGEMM", n, (now() - t0) / calls * 1e6);
            fflush(stdout);
            calls = 0;
            t0 = now();
            mark = t0 + 1;
        }
    }
    return 0;
}
