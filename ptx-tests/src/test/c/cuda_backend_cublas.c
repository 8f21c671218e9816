/* The cuda backend's calls to NVIDIA's cuBLAS, checked against recording fakes of NVIDIA's driver and cuBLAS
 * (fake_nvidia.c, fake_cublas.c; CudaBackendFakeTest): ZLUDA-J's cuBLAS asks NVIDIA's for what the application asked,
 * with the compute type that honours the handle's math mode (llama.cpp's CUBLAS_TF32_TENSOR_OP_MATH: an f32 product on
 * TF32 tensor cores, CUBLAS_COMPUTE_32F_FAST_TF32), and a cuBLAS call captured in a graph between two kernels runs in
 * its turn at each of the executable's launches (it was once left out of them). Each step is noted in the log.
 * Build: gcc -o cuda_backend_cublas cuda_backend_cublas.c -L<dist>/lib -l:libcublas.so.13 -lcuda. Prints PASS, or the
 * failing call. */
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUgraph, *CUgraphExec, *CUgraphNode;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
CUresult cuStreamBeginCapture_v2(CUstream, int);
CUresult cuStreamEndCapture(CUstream, CUgraph *);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *, CUgraph, unsigned long long);
CUresult cuGraphLaunch(CUgraphExec, CUstream);
CUresult cuGraphExecDestroy(CUgraphExec);
CUresult cuGraphDestroy(CUgraph);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuGraphGetNodes(CUgraph, CUgraphNode *, size_t *);
CUresult cuGraphNodeGetType(CUgraphNode, int *);
CUresult cuGraphNodeSetEnabled(CUgraphExec, CUgraphNode, unsigned);
typedef struct { int result; CUgraphNode errorNode, errorFromNode; } CUgraphExecUpdateResultInfo;
CUresult cuGraphExecUpdate_v2(CUgraphExec, CUgraph, CUgraphExecUpdateResultInfo *);

typedef struct cublasContext *cublasHandle_t;
int cublasCreate_v2(cublasHandle_t *);
int cublasDestroy_v2(cublasHandle_t);
int cublasSetStream_v2(cublasHandle_t, CUstream);
int cublasSetMathMode(cublasHandle_t, int);
int cublasSgemm_v2(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *, int, const float *, float *, int);
int cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int, const void *, void *, int, int, int, int);
int cublasStrsmBatched(cublasHandle_t, int, int, int, int, int, int, const float *, const float *const *, int, float *const *, int, int);
int cublasGemmStridedBatchedEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, long long, const void *, int, int, long long, const void *, void *, int, int, long long, int, int, int);

static const char *ptx =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry a(.param .u64 p) { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n"
    ".visible .entry b(.param .u64 p) { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n";

#define CHECK(x) do { int r_ = (x); if (r_) { printf("FAIL: %s = %d\n", #x, r_); return 1; } } while (0)

static void note(const char *what) {
    FILE *log = getenv("FAKE_NVIDIA_LOG") ? fopen(getenv("FAKE_NVIDIA_LOG"), "a") : NULL;
    if (log) { fprintf(log, "program: %s\n", what); fclose(log); }
}

static CUresult launch(CUfunction f, unsigned long long arg, CUstream s) {
    void *args[] = {&arg};
    return cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, args, NULL);
}

enum { R_32F = 0, R_16F = 2, COMPUTE_16F = 64, COMPUTE_32F = 68, COMPUTE_32F_FAST_TF32 = 77, DEFAULT_MATH = 0,
       TF32_TENSOR_OP_MATH = 3, PEDANTIC_MATH = 2 };

int main(void) {
    CUcontext ctx;
    CUmodule m;
    CUfunction a, b;
    CUstream s;
    cublasHandle_t h;
    CUdeviceptr A, B, C;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&m, ptx));
    CHECK(cuModuleGetFunction(&a, m, "a"));
    CHECK(cuModuleGetFunction(&b, m, "b"));
    CHECK(cuStreamCreate(&s, 1));
    CHECK(cuMemAlloc_v2(&A, 1 << 16));
    CHECK(cuMemAlloc_v2(&B, 1 << 16));
    CHECK(cuMemAlloc_v2(&C, 1 << 16));
    CHECK(cublasCreate_v2(&h));
    CHECK(cublasSetStream_v2(h, s));
    const float one = 1, zero = 0;
    const unsigned short one16 = 0x3c00, zero16 = 0;

    note("Sgemm, default math");
    CHECK(cublasSgemm_v2(h, 1, 0, 16, 8, 32, &one, (const float *)A, 32, (const float *)B, 32, &zero, (float *)C, 16));
    note("Sgemm, TF32 tensor op math");
    CHECK(cublasSetMathMode(h, TF32_TENSOR_OP_MATH));
    CHECK(cublasSgemm_v2(h, 1, 0, 16, 8, 32, &one, (const float *)A, 32, (const float *)B, 32, &zero, (float *)C, 16));
    note("GemmEx f32 compute 32F, f16 compute 16F, f16 in 32F strided batch; pedantic 32F, fast TF32 under default math");
    CHECK(cublasGemmEx(h, 1, 0, 16, 8, 32, &one, (const void *)A, R_32F, 32, (const void *)B, R_32F, 32, &zero, (void *)C, R_32F, 16,
                       COMPUTE_32F, -1));
    CHECK(cublasGemmEx(h, 1, 0, 16, 8, 32, &one16, (const void *)A, R_16F, 32, (const void *)B, R_16F, 32, &zero16, (void *)C, R_16F,
                       16, COMPUTE_16F, -1));
    CHECK(cublasGemmStridedBatchedEx(h, 1, 0, 16, 8, 32, &one, (const void *)A, R_16F, 32, 512, (const void *)B, R_16F, 32, 256,
                                     &zero, (void *)C, R_32F, 16, 128, 3, COMPUTE_32F, -1));
    CHECK(cublasSetMathMode(h, DEFAULT_MATH));
    CHECK(cublasGemmEx(h, 1, 0, 16, 8, 32, &one, (const void *)A, R_32F, 32, (const void *)B, R_32F, 32, &zero, (void *)C, R_32F, 16,
                       COMPUTE_32F + 1 /* 32F_PEDANTIC */, -1));
    CHECK(cublasGemmEx(h, 1, 0, 16, 8, 32, &one, (const void *)A, R_32F, 32, (const void *)B, R_32F, 32, &zero, (void *)C, R_32F, 16,
                       COMPUTE_32F_FAST_TF32, -1));
    CHECK(cuStreamSynchronize(s));

    note("captured: a, Sgemm (TF32 math), b; launched three times");
    CHECK(cublasSetMathMode(h, TF32_TENSOR_OP_MATH));
    CUgraph g;
    CUgraphExec e;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(launch(a, 91, s));
    CHECK(cublasSgemm_v2(h, 1, 0, 16, 8, 32, &one, (const float *)A, 32, (const float *)B, 32, &zero, (float *)C, 16));
    CHECK(launch(b, 92, s));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    /* the cuBLAS call's node is a kernel node to the application (NVIDIA's cuBLAS captures kernels), and like one it
       can be disabled in the executable, then enabled again */
    CUgraphNode nodes[3];
    size_t count = 3;
    int type = -1;
    CHECK(cuGraphGetNodes(g, nodes, &count));
    if (count != 3) { printf("FAIL: %zu nodes\n", count); return 1; }
    CHECK(cuGraphNodeGetType(nodes[1], &type));
    if (type != 0) { printf("FAIL: the cuBLAS node's type is %d, not CU_GRAPH_NODE_TYPE_KERNEL\n", type); return 1; }
    note("the cuBLAS node disabled, then enabled: launched once each way");
    CHECK(cuGraphNodeSetEnabled(e, nodes[1], 0));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuGraphNodeSetEnabled(e, nodes[1], 1));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));

    /* captured again with other arguments (as ggml does when a token's addresses change) and the executable updated:
       the next launch runs the new GEMM and the new kernel argument */
    note("captured again (m 24, b's argument 93), executable updated, launched");
    CUgraph g2;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(launch(a, 91, s));
    CHECK(cublasSgemm_v2(h, 1, 0, 24, 8, 32, &one, (const float *)A, 32, (const float *)B, 32, &zero, (float *)C, 24));
    CHECK(launch(b, 93, s));
    CHECK(cuStreamEndCapture(s, &g2));
    CUgraphExecUpdateResultInfo info;
    CHECK(cuGraphExecUpdate_v2(e, g2, &info));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuGraphExecDestroy(e));
    CHECK(cuGraphDestroy(g2));
    CHECK(cuGraphDestroy(g));

    /* ggml's SOLVE_TRI: cublasStrsmBatched under CUBLAS_DEFAULT_MATH between GEMMs under TF32 (NVIDIA's trsm computes
       in TF32 under TF32 math: ggml's test then misses its tolerance); A and B stand for arrays of 8 matrix addresses */
    note("StrsmBatched under default math between TF32 GEMMs");
    CHECK(cublasSgemm_v2(h, 1, 0, 16, 8, 32, &one, (const float *)A, 32, (const float *)B, 32, &zero, (float *)C, 16));
    CHECK(cublasSetMathMode(h, DEFAULT_MATH));
    CHECK(cublasStrsmBatched(h, 1, 1, 0, 0, 32, 128, &one, (const float *const *)A, 128, (float *const *)B, 32, 8));
    CHECK(cublasSetMathMode(h, TF32_TENSOR_OP_MATH));
    CHECK(cublasSgemm_v2(h, 1, 0, 16, 8, 32, &one, (const float *)A, 32, (const float *)B, 32, &zero, (float *)C, 16));
    CHECK(cuStreamSynchronize(s));
    CHECK(cublasDestroy_v2(h));
    note("end");
    printf("PASS: cuda backend cublas\n");
    return 0;
}
