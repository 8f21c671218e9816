/* A large graph of kernels on the cuda backend, checked against a recording fake (fake_nvidia.c, CudaBackendFakeTest):
 * 300 captured launches, at least CudaSequence.IN_BACKGROUND. Its first replay launches the 300 kernels one by one,
 * in order, while NVIDIA's graph of them is built, instantiated and uploaded on another thread; a later replay is one
 * NVIDIA graph launch; a node set in the executable changes the NVIDIA graph's node in place. A second executable gets
 * a node's new argument right after its first replay, while its NVIDIA graph may still be built: that node has the
 * new argument when it is.
 * Build: gcc -o cuda_backend_big_graph cuda_backend_big_graph.c -L<dist>/lib -lcuda. Prints PASS, or the failing call. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUgraph, *CUgraphExec, *CUgraphNode;
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
CUresult cuGraphGetNodes(CUgraph, CUgraphNode *, size_t *);
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v1 *);
CUresult cuGraphExecDestroy(CUgraphExec);
CUresult cuGraphDestroy(CUgraph);

static const char *ptx =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry a(.param .u64 p) { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n";

#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL: %s = %d\n", #x, r_); return 1; } } while (0)
enum { N = 300 };

static void note(const char *what) {
    FILE *log = getenv("FAKE_NVIDIA_LOG") ? fopen(getenv("FAKE_NVIDIA_LOG"), "a") : NULL;
    if (log) { fprintf(log, "program: %s\n", what); fclose(log); }
}

static void pause_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* N launches of a captured on s, the i-th with argument base + i, as an executable; its graph's nodes in nodes */
static CUresult capture(CUfunction a, CUstream s, unsigned long long base, CUgraph *g, CUgraphExec *e, CUgraphNode *nodes) {
    CUresult r = cuStreamBeginCapture_v2(s, 0);
    for (int i = 0; !r && i < N; i++) {
        unsigned long long arg = base + i;
        void *args[] = {&arg};
        r = cuLaunchKernel(a, 1, 1, 1, 32, 1, 1, 0, s, args, NULL);
    }
    if (!r) r = cuStreamEndCapture(s, g);
    size_t count = N;
    if (!r) r = cuGraphGetNodes(*g, nodes, &count);
    if (!r && count != N) r = 999;
    return r ? r : cuGraphInstantiateWithFlags(e, *g, 0);
}

static CUresult set_arg(CUgraphExec e, CUfunction a, CUgraphNode node, unsigned long long v) {
    void *args[] = {&v};
    CUDA_KERNEL_NODE_PARAMS_v1 p = {a, 1, 1, 1, 32, 1, 1, 0, args, NULL};
    return cuGraphExecKernelNodeSetParams(e, node, &p);
}

int main(void) {
    CUcontext ctx;
    CUmodule m;
    CUfunction a;
    CUstream s;
    CUgraph g;
    CUgraphExec e;
    static CUgraphNode nodes[N];
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&m, ptx));
    CHECK(cuModuleGetFunction(&a, m, "a"));
    CHECK(cuStreamCreate(&s, 1));
    CHECK(capture(a, s, 1000, &g, &e, nodes));
    note("first replay");
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    pause_ms(500);  /* the NVIDIA graph built meanwhile */
    note("second replay");
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(set_arg(e, a, nodes[5], 5555));
    note("third replay");
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuGraphExecDestroy(e));
    CHECK(cuGraphDestroy(g));

    CHECK(capture(a, s, 2000, &g, &e, nodes));
    note("updated while built");
    CHECK(cuGraphLaunch(e, s));
    CHECK(set_arg(e, a, nodes[7], 7777));
    CHECK(cuStreamSynchronize(s));
    pause_ms(500);
    note("after the update");
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuGraphExecDestroy(e));
    CHECK(cuGraphDestroy(g));
    note("end");
    printf("PASS: cuda backend big graph\n");
    return 0;
}
