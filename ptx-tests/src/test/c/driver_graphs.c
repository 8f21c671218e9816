/* ZLUDA-J integration test: stream capture into a graph, instantiate, launch several times, update the executable
 * with a newly captured graph of the same shape (new kernel arguments), and the capture errors, through the shim.
 * The same program passes on NVIDIA's driver. Build: gcc -o driver_graphs driver_graphs.c -L<dist>/lib -lcuda. */
#include <stdio.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUgraphNode_st *CUgraphNode;
typedef unsigned long long CUdeviceptr;
typedef struct { int result; CUgraphNode errorNode, errorFromNode; } CUgraphExecUpdateResultInfo;
CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int v, size_t n);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream stream, void **kernelParams, void **extra);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuStreamBeginCapture_v2(CUstream s, int mode);
CUresult cuStreamEndCapture(CUstream s, CUgraph *g);
CUresult cuStreamIsCapturing(CUstream s, int *status);
CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *n);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec e, CUstream s);
CUresult cuGraphExecUpdate_v2(CUgraphExec e, CUgraph g, CUgraphExecUpdateResultInfo *info);
CUresult cuGraphExecDestroy(CUgraphExec e);
CUresult cuGraphDestroy(CUgraph g);

static const char *ptx =
    ".version 7.8\n.target sm_75\n.address_size 64\n"
    ".visible .entry addk(.param .u64 p, .param .u32 k)\n{\n"
    "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n"
    "\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [k];\n\tmov.u32 %r2, %tid.x;\n"
    "\tmul.wide.u32 %rd2, %r2, 4;\n\tadd.s64 %rd1, %rd1, %rd2;\n"
    "\tld.global.u32 %r3, [%rd1];\n\tadd.u32 %r3, %r3, %r1;\n\tst.global.u32 [%rd1], %r3;\n\tret;\n}\n";

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

static CUfunction addk;
static CUresult capture(CUstream s, CUdeviceptr p, unsigned k, CUgraph *g) {
    CUresult r = cuStreamBeginCapture_v2(s, 0);
    if (r) return r;
    void *args[] = {&p, &k};
    r = cuLaunchKernel(addk, 1, 1, 1, 32, 1, 1, 0, s, args, NULL);
    if (r) return r;
    unsigned k2 = k * 10;
    void *args2[] = {&p, &k2};
    r = cuLaunchKernel(addk, 1, 1, 1, 32, 1, 1, 0, s, args2, NULL);
    if (r) return r;
    return cuStreamEndCapture(s, g);
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&addk, mod, "addk"));
    CUdeviceptr p;
    CHECK(cuMemAlloc_v2(&p, 32 * 4));
    CHECK(cuMemsetD32_v2(p, 0, 32));
    CUstream s;
    CHECK(cuStreamCreate(&s, 1));
    int status = -1;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(cuStreamIsCapturing(s, &status));
    EXPECT(status == 1, "capturing status %d", status);
    unsigned k = 1;
    void *args[] = {&p, &k};
    CHECK(cuLaunchKernel(addk, 1, 1, 1, 32, 1, 1, 0, s, args, NULL));
    k = 1000;  /* the captured launch keeps the value it had: 1 */
    CHECK(cuMemsetD32Async(p + 4 * 31, 500, 1, s));
    CUgraph g;
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuStreamIsCapturing(s, &status));
    EXPECT(status == 0, "not capturing any more: %d", status);
    unsigned h[32];
    CHECK(cuMemcpyDtoH_v2(h, p, sizeof h));
    EXPECT(h[0] == 0, "capture ran nothing: %u", h[0]);
    size_t n = 0;
    CHECK(cuGraphGetNodes(g, NULL, &n));
    EXPECT(n == 2, "nodes %zu", n);
    CUgraphExec e;
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    for (int i = 0; i < 3; i++) CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuMemcpyDtoH_v2(h, p, sizeof h));
    EXPECT(h[0] == 3 && h[30] == 3 && h[31] == 500, "three replays: %u %u %u", h[0], h[30], h[31]);
    /* a graph of another shape (two launches) cannot update it; one of the same shape can */
    CUgraph g2, g3;
    CHECK(capture(s, p, 2, &g2));
    CUgraphExecUpdateResultInfo info = {-1, 0, 0};
    EXPECT(cuGraphExecUpdate_v2(e, g2, &info) == 910 && info.result != 0, "topology change refused (%d)", info.result);
    CUgraphExec e2;
    CHECK(cuGraphInstantiateWithFlags(&e2, g2, 0));
    CHECK(capture(s, p, 5, &g3));
    CHECK(cuGraphExecUpdate_v2(e2, g3, &info));
    EXPECT(info.result == 0, "update result %d", info.result);
    CHECK(cuMemsetD32_v2(p, 0, 32));
    CHECK(cuGraphLaunch(e2, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuMemcpyDtoH_v2(h, p, sizeof h));
    EXPECT(h[5] == 55, "updated arguments 5 + 50: %u", h[5]);
    /* synchronizing a capturing stream breaks the capture */
    CHECK(cuStreamBeginCapture_v2(s, 0));
    EXPECT(cuStreamSynchronize(s) == 900, "sync during capture: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
    CUgraph broken = (CUgraph)1;
    EXPECT(cuStreamEndCapture(s, &broken) == 901 && broken == NULL, "invalidated capture");
    EXPECT(cuStreamBeginCapture_v2(NULL, 0) == 900, "the legacy stream cannot be captured");
    CHECK(cuGraphExecDestroy(e));
    CHECK(cuGraphExecDestroy(e2));
    CHECK(cuGraphDestroy(g));
    CHECK(cuGraphDestroy(g2));
    CHECK(cuGraphDestroy(g3));
    if (bad) return 1;
    printf("PASS: graphs\n");
    return 0;
}
