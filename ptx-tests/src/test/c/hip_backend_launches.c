/* The hip backend's launches and graph replays, checked against a recording fake of AMD's HIP runtime (fake_hip.c;
 * HipBackendFakeTest): a module of two kernels compiled for the fake's gfx1100 loads, launches reach HIP in order with
 * their arguments (the first through the JVM, the next ones made by the shim), device-to-device copies between them
 * in order, a captured graph of kernels replays them in order at each launch (one native call per replay:
 * HipSequence) and after an update, a graph of kernel, cuBLAS GEMM (rocBLAS) and kernel too, and behind a host
 * function queued on the stream everything waits its turn. After each step the program compares the log's last lines
 * with what HIP must have been asked. Prints PASS, or the first difference.
 * Build: gcc -o hip_backend_launches hip_backend_launches.c -L<dist>/lib -l:libcublas.so.13 -lcuda */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log_check.h"

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUgraph, *CUgraphExec;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
CUresult cuLaunchHostFunc(CUstream, void (*)(void *), void *);
CUresult cuStreamBeginCapture_v2(CUstream, int);
CUresult cuStreamEndCapture(CUstream, CUgraph *);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *, CUgraph, unsigned long long);
CUresult cuGraphLaunch(CUgraphExec, CUstream);
typedef void *CUgraphNode;
typedef struct { int result; CUgraphNode errorNode, errorFromNode; } CUgraphExecUpdateResultInfo;
CUresult cuGraphExecUpdate_v2(CUgraphExec, CUgraph, CUgraphExecUpdateResultInfo *);
typedef struct cublasContext *cublasHandle_t;
int cublasCreate_v2(cublasHandle_t *);
int cublasSetStream_v2(cublasHandle_t, CUstream);
int cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int, const void *, void *, int, int, int, int);

static const char *ptx =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry a(.param .u64 p) { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n"
    ".visible .entry b(.param .u64 p) { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n";

#define CHECK(x) do { int r_ = (x); if (r_) { printf("FAIL: %s = %d\n", #x, r_); exit(1); } } while (0)


static CUresult launch(CUfunction f, unsigned long long arg, CUstream s) {
    void *args[] = {&arg};
    return cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, s, args, NULL);
}

static void host_function(void *arg) {
    (void)arg;
    usleep(100000);
    note("host function ran");
}

int main(void) {
    log_path = getenv("FAKE_HIP_LOG");
    if (!log_path) { puts("FAIL: FAKE_HIP_LOG is needed"); return 1; }
    CUcontext ctx;
    CUmodule m;
    CUfunction a, b;
    CUstream s;
    CUdeviceptr M;
    cublasHandle_t h;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&m, ptx));
    CHECK(cuModuleGetFunction(&a, m, "a"));
    CHECK(cuModuleGetFunction(&b, m, "b"));
    CHECK(cuStreamCreate(&s, 1));
    CHECK(cuMemAlloc_v2(&M, 1 << 16));
    char want[8192], line[2048];

    note("launches");
    CHECK(launch(a, 1, s));
    CHECK(cuStreamSynchronize(s));
    char first[512];
    last_lines(1, first, sizeof first);
    const char *on = strstr(first, " on stream #");
    const char *prefix = "launch a grid 2 block 32 shared 0 arg 1 on stream #";
    if (!on || strncmp(first, prefix, strlen(prefix))) { printf("FAIL: first launch: %s\n", first); return 1; }
    int ss = atoi(on + 12);
    for (unsigned long long i = 2; i <= 30; i++) {
        CHECK(launch(i % 3 ? a : b, i, s));
        CHECK(cuStreamSynchronize(s));
        snprintf(want, sizeof want, "launch %s grid 2 block 32 shared 0 arg %llu on stream #%d", i % 3 ? "a" : "b", i, ss);
        expect(1, want, "a launch");
    }

    note("device-to-device copies between launches");
    for (int i = 1; i <= 20; i++) {
        CHECK(cuMemcpyDtoDAsync_v2(M + 256 * i, M, (size_t)i, s));
        CHECK(launch(a, 100 + (unsigned long long)i, s));
        CHECK(cuStreamSynchronize(s));
        snprintf(want, sizeof want, "copy of %d bytes on stream #%d|launch a grid 2 block 32 shared 0 arg %d on stream #%d", i, ss, 100 + i, ss);
        expect(2, want, "a copy, then a launch");
    }

    note("a graph of a and b, launched twice");
    CUgraph g;
    CUgraphExec e;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(launch(a, 91, s));
    CHECK(launch(b, 92, s));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    expect(1, "program: a graph of a and b, launched twice", "nothing launched while captured");
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    snprintf(line, sizeof line, "launch a grid 2 block 32 shared 0 arg 91 on stream #%d|launch b grid 2 block 32 shared 0 arg 92 on stream #%d", ss, ss);
    snprintf(want, sizeof want, "%s|%s", line, line);
    expect(4, want, "the graph's replays");

    note("the graph captured again with b's argument 97, the executable updated, launched");
    CUgraph g1;
    CUgraphExecUpdateResultInfo info;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(launch(a, 91, s));
    CHECK(launch(b, 97, s));
    CHECK(cuStreamEndCapture(s, &g1));
    CHECK(cuGraphExecUpdate_v2(e, g1, &info));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    snprintf(want, sizeof want, "launch a grid 2 block 32 shared 0 arg 91 on stream #%d|launch b grid 2 block 32 shared 0 arg 97 on stream #%d", ss, ss);
    expect(2, want, "the updated graph's replay");

    note("a graph of a, a GEMM and b, launched three times, then a launched");
    CHECK(cublasCreate_v2(&h));
    CHECK(cublasSetStream_v2(h, s));
    float one = 1, zero = 0;
    CUgraph g2;
    CUgraphExec e2;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(launch(a, 93, s));
    CHECK(cublasGemmEx(h, 1, 0, 16, 8, 32, &one, (void *)M, 0, 32, (void *)(M + 4096), 0, 32, &zero, (void *)(M + 8192), 0, 16, 68, -1));
    CHECK(launch(b, 94, s));
    CHECK(cuStreamEndCapture(s, &g2));
    CHECK(cuGraphInstantiateWithFlags(&e2, g2, 0));
    char gemm[1024];
    snprintf(gemm, sizeof gemm,
             "rocblas_gemm_strided_batched_ex ops 112 111 m 16 n 8 k 32 batch 1 types 151 151 151 151 compute 151 a %p lda 32 sa 0 b %p "
             "ldb 32 sb 0 c %p ldc 16 sc 0 d %p ldd 16 sd 0 alpha 1 beta 0 on stream #%d",
             (void *)M, (void *)(M + 4096), (void *)(M + 8192), (void *)(M + 8192), ss);
    snprintf(line, sizeof line, "launch a grid 2 block 32 shared 0 arg 93 on stream #%d|%s|launch b grid 2 block 32 shared 0 arg 94 on stream #%d",
             ss, gemm, ss);
    for (int i = 0; i < 3; i++) CHECK(cuGraphLaunch(e2, s));
    CHECK(launch(a, 95, s));
    CHECK(cuStreamSynchronize(s));
    snprintf(want, sizeof want, "%s|%s|%s|launch a grid 2 block 32 shared 0 arg 95 on stream #%d", line, line, line, ss);
    expect(10, want, "kernel, GEMM, kernel replayed, then a");

    note("behind a host function: the graph, then a");
    CHECK(cuLaunchHostFunc(s, host_function, NULL));
    CHECK(cuGraphLaunch(e2, s));
    CHECK(launch(a, 96, s));
    CHECK(cuStreamSynchronize(s));
    snprintf(want, sizeof want, "program: host function ran|%s|launch a grid 2 block 32 shared 0 arg 96 on stream #%d", line, ss);
    expect(5, want, "the graph and a behind a host function");
    note("end");
    puts("PASS: hip backend launches");
    return 0;
}
