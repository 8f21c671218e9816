/* ZLUDA-J integration test: graphs built node by node (memset, kernel, memcpy, host and empty nodes, dependencies
 * added after the nodes so that creation order is not execution order), kernel node parameters read and changed
 * (an instantiated graph keeps the old ones until cuGraphExecUpdate), and 3-D copies (cuMemcpy3D) with offsets and
 * pitches; cuDeviceGetProperties. The same program passes on NVIDIA's driver; its "cycle:" line is compared with NVIDIA's answer.
 * Build: gcc -o driver_graph_nodes driver_graph_nodes.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef unsigned long long CUdeviceptr;
typedef struct {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray, *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray, *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;
typedef struct {
    CUfunction func;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    void **kernelParams, **extra;
    void *kern;
    CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS;
typedef struct { CUdeviceptr dst; size_t pitch; unsigned value, elementSize; size_t width, height; } CUDA_MEMSET_NODE_PARAMS;
typedef struct { void (*fn)(void *); void *userData; } CUDA_HOST_NODE_PARAMS;
typedef struct { int result; CUgraphNode errorNode, errorFromNode; } CUgraphExecUpdateResultInfo;

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetAttribute(int *v, int attrib, CUdevice dev);
CUresult cuDeviceGetProperties(int *prop, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags);
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuGraphCreate(CUgraph *g, unsigned flags);
CUresult cuGraphDestroy(CUgraph g);
CUresult cuGraphAddKernelNode_v2(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, const CUDA_KERNEL_NODE_PARAMS *p);
CUresult cuGraphAddMemsetNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx);
CUresult cuGraphAddMemcpyNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, const CUDA_MEMCPY3D *p, CUcontext ctx);
CUresult cuGraphAddHostNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, const CUDA_HOST_NODE_PARAMS *p);
CUresult cuGraphAddEmptyNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd);
CUresult cuGraphAddDependencies(CUgraph g, const CUgraphNode *from, const CUgraphNode *to, size_t n);
CUresult cuGraphNodeGetDependencies(CUgraphNode n, CUgraphNode *deps, size_t *count);
CUresult cuGraphNodeGetType(CUgraphNode n, int *type);
CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *count);
CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p);
CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec e, CUstream s);
CUresult cuGraphExecUpdate_v2(CUgraphExec e, CUgraph g, CUgraphExecUpdateResultInfo *info);
CUresult cuGraphExecDestroy(CUgraphExec e);

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry inc(.param .u64 p, .param .u32 n) {\n"
    "  .reg .u32 %r<6>; .reg .u64 %rd<4>; .reg .pred %p;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.u32 %r2, %r2, %r3, %r4;\n"
    "  setp.ge.u32 %p, %r2, %r1; @%p ret;\n"
    "  mul.wide.u32 %rd2, %r2, 4; add.u64 %rd3, %rd1, %rd2;\n"
    "  ld.global.u32 %r5, [%rd3]; add.u32 %r5, %r5, 1; st.global.u32 [%rd3], %r5; ret;\n}\n";

#define N 1024
static int host_calls;
static void on_host(void *p) { (*(int *)p)++; }

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule m;
    CUfunction inc;
    CUstream s;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&m, ptx));
    CHECK(cuModuleGetFunction(&inc, m, "inc"));
    CHECK(cuStreamCreate(&s, 1));
    CUdeviceptr buf;
    unsigned *out;
    CHECK(cuMemAlloc_v2(&buf, N * 4));
    CHECK(cuMemHostAlloc((void **)&out, N * 4, 0));

    /* memset -> kernel -> memcpy -> host -> empty; the copy is made before the kernel and ordered after it later */
    CUgraph g;
    CUgraphNode a, b, c, h, e;
    CHECK(cuGraphCreate(&g, 0));
    CUDA_MEMSET_NODE_PARAMS ms = {buf, N * 4, 1, 4, N, 1};
    CHECK(cuGraphAddMemsetNode(&a, g, NULL, 0, &ms, ctx));
    CUDA_MEMCPY3D cp;
    memset(&cp, 0, sizeof cp);
    cp.srcMemoryType = 2; cp.srcDevice = buf; cp.srcPitch = N * 4; cp.srcHeight = 1;
    cp.dstMemoryType = 1; cp.dstHost = out; cp.dstPitch = N * 4; cp.dstHeight = 1;
    cp.WidthInBytes = N * 4; cp.Height = 1; cp.Depth = 1;
    CHECK(cuGraphAddMemcpyNode(&c, g, NULL, 0, &cp, ctx));
    unsigned n = N;
    void *args[] = {&buf, &n};
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = inc; kp.gridDimX = N / 128; kp.gridDimY = kp.gridDimZ = 1; kp.blockDimX = 128; kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = args;
    CHECK(cuGraphAddKernelNode_v2(&b, g, &a, 1, &kp));
    n = 5;  /* the node took its own copy of the arguments */
    CHECK(cuGraphAddDependencies(g, &b, &c, 1));
    CUDA_HOST_NODE_PARAMS hp = {on_host, &host_calls};
    CHECK(cuGraphAddHostNode(&h, g, &c, 1, &hp));
    CHECK(cuGraphAddEmptyNode(&e, g, &h, 1));
    size_t count = 0;
    CHECK(cuGraphGetNodes(g, NULL, &count));
    EXPECT(count == 5, "nodes %zu", count);
    int types[5];
    CUgraphNode all[5] = {a, b, c, h, e};
    for (int i = 0; i < 5; i++) CHECK(cuGraphNodeGetType(all[i], &types[i]));
    EXPECT(types[0] == 2 && types[1] == 0 && types[2] == 1 && types[3] == 3 && types[4] == 5, "types %d %d %d %d %d",
           types[0], types[1], types[2], types[3], types[4]);
    CUgraphNode dep = 0;
    count = 1;
    CHECK(cuGraphNodeGetDependencies(c, &dep, &count));
    EXPECT(count == 1 && dep == b, "the copy depends on the kernel");
    CUDA_KERNEL_NODE_PARAMS got;
    memset(&got, 0, sizeof got);
    CHECK(cuGraphKernelNodeGetParams_v2(b, &got));
    EXPECT(got.func == inc && got.gridDimX == N / 128 && got.blockDimX == 128 && *(unsigned *)got.kernelParams[1] == N,
           "kernel node parameters");

    CUgraphExec x;
    CHECK(cuGraphInstantiateWithFlags(&x, g, 0));
    for (int launch = 0; launch < 2; launch++) {
        memset(out, 0, N * 4);
        CHECK(cuGraphLaunch(x, s));
        CHECK(cuStreamSynchronize(s));
        EXPECT(out[0] == 2 && out[N - 1] == 2, "launch %d: %u %u", launch, out[0], out[N - 1]);
    }
    EXPECT(host_calls == 2, "host node ran %d times", host_calls);

    /* new parameters: only the first half; the executable keeps the old ones until updated */
    unsigned half = N / 2;
    void *args2[] = {&buf, &half};
    kp.kernelParams = args2;
    CHECK(cuGraphKernelNodeSetParams_v2(b, &kp));
    CHECK(cuGraphLaunch(x, s));
    CHECK(cuStreamSynchronize(s));
    EXPECT(out[N - 1] == 2, "old parameters before the update: %u", out[N - 1]);
    CUgraphExecUpdateResultInfo info;
    CHECK(cuGraphExecUpdate_v2(x, g, &info));
    CHECK(cuGraphLaunch(x, s));
    CHECK(cuStreamSynchronize(s));
    EXPECT(out[0] == 2 && out[N - 1] == 1, "new parameters after the update: %u %u", out[0], out[N - 1]);
    CHECK(cuGraphExecDestroy(x));

    /* a cycle: answered by cuGraphAddDependencies or by instantiation */
    int cyc1 = cuGraphAddDependencies(g, &e, &a, 1), cyc2 = -1;
    if (cyc1 == 0) {
        cyc2 = cuGraphInstantiateWithFlags(&x, g, 0);
        if (cyc2 == 0) cuGraphExecDestroy(x);
    }
    printf("cycle: %d %d\n", cyc1, cyc2);
    CHECK(cuGraphDestroy(g));

    /* 3-D copies: a 5x3x2 box of bytes from a pitched host volume into device memory at an offset, and back */
    enum { W = 16, H = 4, D = 3 };
    unsigned char vol[D][H][W], back[D][H][W];
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x2 = 0; x2 < W; x2++) vol[z][y][x2] = (unsigned char)(z * 64 + y * 16 + x2);
    CUdeviceptr dvol;
    CHECK(cuMemAlloc_v2(&dvol, sizeof vol));
    CUDA_MEMCPY3D c3;
    memset(&c3, 0, sizeof c3);
    c3.srcMemoryType = 1; c3.srcHost = vol; c3.srcPitch = W; c3.srcHeight = H; c3.srcXInBytes = 2; c3.srcY = 1; c3.srcZ = 1;
    c3.dstMemoryType = 2; c3.dstDevice = dvol; c3.dstPitch = W; c3.dstHeight = H;
    c3.WidthInBytes = 5; c3.Height = 3; c3.Depth = 2;
    CHECK(cuMemcpy3D_v2(&c3));
    memset(back, 0xee, sizeof back);
    memset(&c3, 0, sizeof c3);
    c3.srcMemoryType = 2; c3.srcDevice = dvol; c3.srcPitch = W; c3.srcHeight = H;
    c3.dstMemoryType = 1; c3.dstHost = back; c3.dstPitch = W; c3.dstHeight = H;
    c3.WidthInBytes = 5; c3.Height = 3; c3.Depth = 2;
    CHECK(cuMemcpy3D_v2(&c3));
    int wrong = 0;
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 3; y++)
            for (int x2 = 0; x2 < 5; x2++) wrong += back[z][y][x2] != vol[z + 1][y + 1][x2 + 2];
    EXPECT(wrong == 0 && back[0][0][5] == 0xee, "3-D copy: %d wrong bytes", wrong);
    /* the deprecated CUdevprop: 14 ints, the first attributes in order */
    int prop[14], attr;
    CHECK(cuDeviceGetProperties(prop, dev));
    for (int i = 0; i < 14; i++) {
        CHECK(cuDeviceGetAttribute(&attr, i + 1, dev));
        EXPECT(prop[i] == attr, "CUdevprop field %d = %d, attribute %d", i, prop[i], attr);
    }
    if (bad) return 1;
    printf("PASS: graph nodes and 3-D copies\n");
    return 0;
}
