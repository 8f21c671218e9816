// ZLUDA-J test: what an application sees of a cuBLAS call captured in a CUDA graph, through cudart. llama.cpp's CUDA
// graphs (2024 releases) walked the captured nodes: for each, cudaGraphNodeGetType, then cudaGraphKernelNodeGetParams,
// accepting cudaErrorInvalidDeviceFunction for cuBLAS's kernels ("incorrect handling by CUDA runtime of CUDA BLAS
// node": their functions are not the runtime's) and asserting success for every other node, then changed the arguments
// of some kernel nodes in the executable (cudaGraphExecKernelNodeSetParams). Prints each node's type and the runtime's
// answer, then runs the graph, changes the first kernel's argument and runs it again, checking both results. Prints
// "PASS: cublas graph nodes".
// cuBLAS's functions are declared here (no cuBLAS headers needed); link with -lcublas.
#include <cstdio>
#include <cuda_runtime.h>

typedef struct cublasContext *cublasHandle_t;
typedef int cublasStatus_t;
enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_OP_N = 0 };
extern "C" {
cublasStatus_t cublasCreate_v2(cublasHandle_t *);
cublasStatus_t cublasDestroy_v2(cublasHandle_t);
cublasStatus_t cublasSetStream_v2(cublasHandle_t, cudaStream_t);
cublasStatus_t cublasSgemm_v2(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *, int,
                              const float *, float *, int);
}

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorName(e_)); return 1; } } while (0)
#define CHECKB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { printf("FAIL %s:%d: cuBLAS %d\n", __FILE__, __LINE__, (int)s_); return 1; } } while (0)

__global__ void fill(float *p, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}

int main() {
    const int n = 32;
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, n * n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * n * sizeof(float)));
    CHECK(cudaMalloc(&c, n * n * sizeof(float)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cublasHandle_t h;
    CHECKB(cublasCreate_v2(&h));
    CHECKB(cublasSetStream_v2(h, s));
    const float one = 1.0f, zero = 0.0f;
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    fill<<<(n * n + 127) / 128, 128, 0, s>>>(a, 2.0f, n * n);
    fill<<<(n * n + 127) / 128, 128, 0, s>>>(b, 3.0f, n * n);
    CHECKB(cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
    CHECK(cudaStreamEndCapture(s, &g));

    size_t count = 0;
    CHECK(cudaGraphGetNodes(g, nullptr, &count));
    cudaGraphNode_t nodes[64];
    if (count < 3 || count > 64) { printf("FAIL: %zu nodes\n", count); return 1; }
    CHECK(cudaGraphGetNodes(g, nodes, &count));
    int ours = 0, blas = 0;
    cudaGraphNode_t first = nullptr;  // the first fill's node, whose argument the executable gets anew below
    for (size_t i = 0; i < count; i++) {
        cudaGraphNodeType type;
        CHECK(cudaGraphNodeGetType(nodes[i], &type));
        if (type != cudaGraphNodeTypeKernel) { printf("node %zu: type %d\n", i, (int)type); continue; }
        cudaKernelNodeParams p;
        cudaError_t e = cudaGraphKernelNodeGetParams(nodes[i], &p);
        printf("node %zu: kernel, cudaGraphKernelNodeGetParams: %s%s\n", i, cudaGetErrorName(e), e == cudaSuccess && p.func == (void *)fill ? " (fill)" : "");
        if (e == cudaSuccess && p.func == (void *)fill) {
            if (!ours++) first = nodes[i];
        }
        else if (e == cudaErrorInvalidDeviceFunction) blas++;
        else { printf("FAIL: node %zu answered %s\n", i, cudaGetErrorName(e)); return 1; }
        cudaGetLastError();  // as llama.cpp did: the error is cleared
    }
    if (ours != 2 || blas < 1) { printf("FAIL: %d fill nodes, %d cuBLAS nodes\n", ours, blas); return 1; }

    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphLaunch(e, s));
    float out[n * n];
    CHECK(cudaMemcpyAsync(out, c, sizeof out, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n * n; i++)
        if (out[i] != 2.0f * 3.0f * n) { printf("FAIL: c[%d] = %g, want %g\n", i, out[i], 2.0f * 3.0f * n); return 1; }
    // as llama.cpp did to point its copy kernels at the next token's place: a kernel node's arguments changed in the
    // executable, the cuBLAS node left as it is
    cudaKernelNodeParams p;
    CHECK(cudaGraphKernelNodeGetParams(first, &p));
    float five = 5.0f;
    int count_n = n * n;
    void *args[] = {&a, &five, &count_n};
    p.kernelParams = args;
    CHECK(cudaGraphExecKernelNodeSetParams(e, first, &p));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaMemcpyAsync(out, c, sizeof out, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n * n; i++)
        if (out[i] != 5.0f * 3.0f * n) { printf("FAIL: after the new argument c[%d] = %g, want %g\n", i, out[i], 5.0f * 3.0f * n); return 1; }
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
    CHECKB(cublasDestroy_v2(h));
    printf("PASS: cublas graph nodes (%d kernel nodes of the program, %d of cuBLAS)\n", ours, blas);
    return 0;
}
