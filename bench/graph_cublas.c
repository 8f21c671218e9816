/* ZLUDA-J benchmark: CUDA graphs holding a cuBLAS call, natively or through ZLUDA-J (whichever libcuda.so.1 and
 * libcublas.so.13 the loader finds). A graph of an empty kernel, a small cublasGemmEx and the kernel again (ggml's
 * conversion, product and conversion) is captured once and launched N times, then one synchronization; the same three
 * calls are also made directly N times. Prints one line per measurement, "name value unit", the best of 5 rounds:
 *   graph-kgk     us per cuGraphLaunch of the graph (returned; the work is done by the synchronization)
 *   graph-kgk+all us per graph launch, the final synchronization included
 *   direct-kgk    us per round of the three calls made directly
 * Over the fake NVIDIA driver and cuBLAS of CudaBackendFakeTest (ZLUDA_BACKEND=cuda ZLUDA_NVIDIA_LIB=libfake_nvidia.so
 * ZLUDA_NVIDIA_CUBLAS=<its folder>) it times ZLUDA-J's own part.
 * Usage: graph_cublas [N]   (build: gcc -O2 graph_cublas.c -lcublas -lcuda) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void *CUcontext, *CUstream, *CUmodule, *CUfunction, *CUgraph, *CUgraphExec;
typedef unsigned long long CUdeviceptr;
int cuInit(unsigned);
int cuDevicePrimaryCtxRetain(CUcontext *, int);
int cuCtxSetCurrent(CUcontext);
int cuStreamCreate(CUstream *, unsigned);
int cuStreamSynchronize(CUstream);
int cuMemAlloc_v2(CUdeviceptr *, size_t);
int cuMemsetD8_v2(CUdeviceptr, unsigned char, size_t);
int cuModuleLoadData(CUmodule *, const void *);
int cuModuleGetFunction(CUfunction *, CUmodule, const char *);
int cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
int cuStreamBeginCapture_v2(CUstream, int);
int cuStreamEndCapture(CUstream, CUgraph *);
int cuGraphInstantiateWithFlags(CUgraphExec *, CUgraph, unsigned long long);
int cuGraphLaunch(CUgraphExec, CUstream);
typedef struct cublasContext *cublasHandle_t;
int cublasCreate_v2(cublasHandle_t *);
int cublasSetStream_v2(cublasHandle_t, CUstream);
int cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int,
                 const void *, void *, int, int, int, int);

static const char *ptx = ".version 7.0\n.target sm_52\n.address_size 64\n"
                         ".visible .entry k(.param .u64 p) { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n";

#define CHECK(x) do { int r_ = (x); if (r_) { fprintf(stderr, "FAIL %s = %d\n", #x, r_); exit(1); } } while (0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static CUfunction k;
static cublasHandle_t h;
static CUdeviceptr m;
static unsigned long long arg = 1;
static void *args[] = {&arg};

/* the three calls: kernel, a 64^3 f32 GEMM (compute 32F), kernel */
static void calls(CUstream s) {
    static const float one = 1, zero = 0;
    CHECK(cuLaunchKernel(k, 1, 1, 1, 32, 1, 1, 0, s, args, NULL));
    CHECK(cublasGemmEx(h, 1, 0, 64, 64, 64, &one, (const void *)m, 0, 64, (const void *)m, 0, 64, &zero, (void *)(m + 16384), 0,
                       64, 68, -1));
    CHECK(cuLaunchKernel(k, 1, 1, 1, 32, 1, 1, 0, s, args, NULL));
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    CUcontext c;
    CUstream s;
    CUmodule mod;
    CUgraph g;
    CUgraphExec e;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&c, 0));
    CHECK(cuCtxSetCurrent(c));
    CHECK(cuStreamCreate(&s, 1));
    CHECK(cuMemAlloc_v2(&m, 32768));
    CHECK(cuMemsetD8_v2(m, 0, 32768));
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&k, mod, "k"));
    CHECK(cublasCreate_v2(&h));
    CHECK(cublasSetStream_v2(h, s));
    CHECK(cuStreamBeginCapture_v2(s, 0));
    calls(s);
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    double best[3] = {1e30, 1e30, 1e30};
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (int i = 0; i < n; i++) CHECK(cuGraphLaunch(e, s));
        double t1 = now();
        CHECK(cuStreamSynchronize(s));
        double t2 = now();
        for (int i = 0; i < n; i++) calls(s);
        CHECK(cuStreamSynchronize(s));
        double t3 = now();
        if ((t1 - t0) / n < best[0]) best[0] = (t1 - t0) / n;
        if ((t2 - t0) / n < best[1]) best[1] = (t2 - t0) / n;
        if ((t3 - t2) / n < best[2]) best[2] = (t3 - t2) / n;
    }
    printf("graph-kgk %.3f us\ngraph-kgk+all %.3f us\ndirect-kgk %.3f us\n", best[0], best[1], best[2]);
    return 0;
}
