/* The cuda backend's calls to NVIDIA's driver, checked against a recording fake (fake_nvidia.c, CudaBackendFakeTest):
 * NVIDIA's primary context retained only when the first module is loaded (not at cuInit), launches, a captured graph
 * of kernels replayed (one NVIDIA graph launch per replay), a kernel node changed in the executable and the executable
 * updated from a new capture (the NVIDIA graph's changed nodes take their parameters in place), a graph with a memset node (launched node by node), and a launch's argument taken when it is called,
 * both behind pending work (a host function still running: ZLUDA-J copies it) and on an idle stream (NVIDIA's driver
 * reads the application's array during the call); a cooperative launch queued on its stream (no synchronization
 * after it), and one captured with a plain launch into a graph: one NVIDIA graph whose node has the COOPERATIVE
 * attribute.
 * Build: gcc -o cuda_backend_calls cuda_backend_calls.c -L<dist>/lib -lcuda. Prints PASS, or the failing call. */
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUgraph, *CUgraphExec, *CUgraphNode;
typedef unsigned long long CUdeviceptr;
typedef struct {
    CUfunction func;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    void **kernelParams, **extra;
} CUDA_KERNEL_NODE_PARAMS_v1;
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
CUresult cuCtxSynchronize(void);
CUresult cuGraphGetNodes(CUgraph, CUgraphNode *, size_t *);
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v1 *);
typedef struct { int result; CUgraphNode errorNode, errorFromNode; } CUgraphExecUpdateResultInfo;
CUresult cuGraphExecUpdate_v2(CUgraphExec, CUgraph, CUgraphExecUpdateResultInfo *);
CUresult cuGraphExecDestroy(CUgraphExec);
CUresult cuGraphDestroy(CUgraph);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemsetD32Async(CUdeviceptr, unsigned, size_t, CUstream);
CUresult cuLaunchHostFunc(CUstream, void (*)(void *), void *);
CUresult cuLaunchCooperativeKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *, CUfunction, int, size_t);
CUresult cuFuncGetAttribute(int *, int, CUfunction);
CUresult cuStreamWriteValue32_v2(CUstream, CUdeviceptr, unsigned, unsigned);
CUresult cuMemsetD8_v2(CUdeviceptr, unsigned char, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
#include <time.h>

static void slow_host_function(void *unused) {
    (void)unused;
    struct timespec t = {0, 50 * 1000 * 1000};
    nanosleep(&t, NULL);
}

static const char *ptx =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry a(.param .u64 p) { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n"
    ".visible .entry b(.param .u64 p) { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n";

#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL: %s = %d\n", #x, r_); return 1; } } while (0)

static CUresult launch(CUfunction f, unsigned grid, unsigned block, unsigned long long arg, CUstream s) {
    void *args[] = {&arg};
    return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, args, NULL);
}

int main(void) {
    CUcontext ctx;
    CUmodule m;
    CUfunction a, b;
    CUstream s;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    FILE *log = getenv("FAKE_NVIDIA_LOG") ? fopen(getenv("FAKE_NVIDIA_LOG"), "a") : NULL;  /* NVIDIA's context: not yet */
    if (log) { fputs("program: context current\n", log); fclose(log); }
    CHECK(cuModuleLoadData(&m, ptx));
    CHECK(cuModuleGetFunction(&a, m, "a"));
    CHECK(cuModuleGetFunction(&b, m, "b"));
    CHECK(cuStreamCreate(&s, 1));
    CHECK(launch(a, 1, 32, 11, s));
    CHECK(launch(b, 2, 64, 12, s));
    CHECK(cuStreamSynchronize(s));

    /* a graph of three kernels: one NVIDIA graph, launched once per replay */
    CUgraph g;
    CUgraphExec e;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(launch(a, 1, 32, 21, s));
    CHECK(launch(b, 1, 32, 22, s));
    CHECK(launch(a, 3, 32, 23, s));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));

    /* the executable's second node gets another argument: the NVIDIA graph's node takes it in place */
    CUgraphNode nodes[3];
    size_t count = 3;
    CHECK(cuGraphGetNodes(g, nodes, &count));
    if (count != 3) { printf("FAIL: %zu nodes\n", count); return 1; }
    unsigned long long v = 33;
    void *args[] = {&v};
    CUDA_KERNEL_NODE_PARAMS_v1 p = {b, 1, 1, 1, 32, 1, 1, 0, args, NULL};
    CHECK(cuGraphExecKernelNodeSetParams(e, nodes[1], &p));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));

    /* captured again with one argument changed, the executable updated (as ggml does): only that node changes, in place;
       then updated from the graph it already has: nothing changes */
    CUgraph g2;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(launch(a, 1, 32, 21, s));
    CHECK(launch(b, 1, 32, 34, s));
    CHECK(launch(a, 3, 32, 23, s));
    CHECK(cuStreamEndCapture(s, &g2));
    CUgraphExecUpdateResultInfo info;
    CHECK(cuGraphExecUpdate_v2(e, g2, &info));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuGraphExecUpdate_v2(e, g2, &info));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuGraphExecDestroy(e));
    CHECK(cuGraphDestroy(g));
    CHECK(cuGraphDestroy(g2));

    /* a memset node: the executable runs node by node */
    CUdeviceptr mem;
    CHECK(cuMemAlloc_v2(&mem, 1024));
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(cuMemsetD32Async(mem, 7, 256, s));
    CHECK(launch(a, 1, 32, 41, s));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuGraphExecDestroy(e));

    /* kernels around a stream write (captured work that is not a kernel, as a cuBLAS call is): the executable runs
       node by node, the write in its turn at every launch (one NVIDIA graph of the kernels alone would leave it out) */
    CHECK(cuMemsetD8_v2(mem, 0, 1024));
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(launch(a, 1, 32, 42, s));
    CHECK(cuStreamWriteValue32_v2(s, mem, 0x5eed, 0));
    CHECK(launch(b, 1, 32, 43, s));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    unsigned word = 0;
    CHECK(cuMemcpyDtoH_v2(&word, mem, 4));
    if (word != 0x5eed) { printf("FAIL: the graph's stream write left 0x%x\n", word); return 1; }
    CHECK(cuMemsetD8_v2(mem, 0, 4));
    CHECK(cuGraphLaunch(e, s));  /* and again */
    CHECK(cuStreamSynchronize(s));
    CHECK(cuMemcpyDtoH_v2(&word, mem, 4));
    if (word != 0x5eed) { printf("FAIL: the graph's second launch left 0x%x\n", word); return 1; }
    CHECK(cuGraphExecDestroy(e));

    /* arguments are taken at the call: changed right after it returns, the launch still gets the old value */
    unsigned long long late = 51;
    void *late_args[] = {&late};
    CHECK(cuLaunchHostFunc(s, slow_host_function, NULL));  /* the stream is busy for 50 ms: the launch waits behind it */
    CHECK(cuLaunchKernel(a, 1, 1, 1, 32, 1, 1, 0, s, late_args, NULL));
    late = 99;
    CHECK(cuStreamSynchronize(s));
    late = 52;  /* idle stream: submitted during the call */
    CHECK(cuLaunchKernel(a, 1, 1, 1, 32, 1, 1, 0, s, late_args, NULL));
    late = 99;
    CHECK(cuStreamSynchronize(s));

    /* cooperative launches: queued on the stream like plain ones; captured, a node with the COOPERATIVE attribute */
    unsigned long long c1 = 61, c2 = 71, c3 = 72;
    void *c1_args[] = {&c1}, *c2_args[] = {&c2}, *c3_args[] = {&c3};
    CHECK(cuLaunchCooperativeKernel(a, 2, 1, 1, 32, 1, 1, 0, s, c1_args));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(cuLaunchCooperativeKernel(a, 2, 1, 1, 32, 1, 1, 0, s, c2_args));
    CHECK(cuLaunchKernel(b, 1, 1, 1, 32, 1, 1, 0, s, c3_args, NULL));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuGraphExecDestroy(e));

    /* occupancy and the register-bound attributes are NVIDIA's answers for the compiled kernel (the fake's: 96
       registers a thread, so 65536 / (96 * 128) = 5 blocks of 128 threads, at most 640 threads a block) */
    int blocks = -1, regs = -1, threads = -1;
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, b, 128, 0));
    CHECK(cuFuncGetAttribute(&regs, 4 /* NUM_REGS */, b));
    CHECK(cuFuncGetAttribute(&threads, 0 /* MAX_THREADS_PER_BLOCK */, b));
    if (blocks != 5 || regs != 96 || threads != 640) {
        printf("FAIL: occupancy %d blocks, %d registers, %d threads (want 5, 96, 640)\n", blocks, regs, threads);
        return 1;
    }
    /* the legacy stream is NVIDIA's legacy stream (CUDA's implicit synchronization between kernels is NVIDIA's then);
       a blocking stream is a blocking NVIDIA stream */
    CUstream blocking;
    CHECK(cuStreamCreate(&blocking, 0));
    CHECK(launch(a, 1, 32, 81, 0));
    CHECK(launch(b, 1, 32, 82, blocking));
    CHECK(cuCtxSynchronize());
    printf("PASS: cuda backend calls\n");
    return 0;
}
