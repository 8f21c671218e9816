/* ZLUDA-J integration test: the graph API beyond adding nodes: generic cuGraphAddNode, node parameters read and
 * changed (graph and executable), nodes disabled in an executable, instantiation with parameters, clones, node
 * removal, edges, roots and dependents, kernel node attributes, user objects and DOT output.
 * The same program runs on NVIDIA's driver; its "errors:" line is compared with NVIDIA's answers.
 * Build: gcc -o driver_graph_api driver_graph_api.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUuserObject_st *CUuserObject;
typedef unsigned long long CUdeviceptr;
typedef void (*CUhostFn)(void *);
typedef struct {
    CUfunction func;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    void **kernelParams, **extra;
    void *kern;
    CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS;
typedef struct { CUdeviceptr dst; size_t pitch; unsigned value, elementSize; size_t width, height; } CUDA_MEMSET_NODE_PARAMS;
typedef struct { CUhostFn fn; void *userData; } CUDA_HOST_NODE_PARAMS;
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
    int type, reserved0[3];
    union {
        long long reserved1[29];
        CUDA_KERNEL_NODE_PARAMS kernel;
        struct { int flags, reserved; CUcontext copyCtx; CUDA_MEMCPY3D copyParams; } memcpy;
        struct { CUdeviceptr dst; size_t pitch; unsigned value, elementSize; size_t width, height; CUcontext ctx; } memset;
        struct { CUhostFn fn; void *userData; unsigned syncMode; } host;
    } u;
    long long reserved2;
} CUgraphNodeParams;
typedef struct { unsigned long long flags; CUstream hUploadStream; CUgraphNode hErrNode_out; int result_out; } CUDA_GRAPH_INSTANTIATE_PARAMS;

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxSynchronize(void);
CUresult cuStreamCreate(CUstream *s, unsigned flags);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned v, size_t n);
CUresult cuGraphCreate(CUgraph *g, unsigned flags);
CUresult cuGraphDestroy(CUgraph g);
CUresult cuGraphAddNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, CUgraphNodeParams *p);
CUresult cuGraphAddKernelNode_v2(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, const CUDA_KERNEL_NODE_PARAMS *p);
CUresult cuGraphAddEmptyNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd);
CUresult cuGraphMemsetNodeGetParams(CUgraphNode n, CUDA_MEMSET_NODE_PARAMS *p);
CUresult cuGraphMemsetNodeSetParams(CUgraphNode n, const CUDA_MEMSET_NODE_PARAMS *p);
CUresult cuGraphHostNodeGetParams(CUgraphNode n, CUDA_HOST_NODE_PARAMS *p);
CUresult cuGraphMemcpyNodeGetParams(CUgraphNode n, CUDA_MEMCPY3D *p);
CUresult cuGraphNodeSetParams(CUgraphNode n, CUgraphNodeParams *p);
CUresult cuGraphInstantiateWithParams(CUgraphExec *e, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p);
CUresult cuGraphExecGetFlags(CUgraphExec e, unsigned long long *flags);
CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec e, CUgraphNode n, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx);
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p);
CUresult cuGraphNodeSetEnabled(CUgraphExec e, CUgraphNode n, unsigned enabled);
CUresult cuGraphNodeGetEnabled(CUgraphExec e, CUgraphNode n, unsigned *enabled);
CUresult cuGraphLaunch(CUgraphExec e, CUstream s);
CUresult cuGraphExecDestroy(CUgraphExec e);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags);
CUresult cuGraphClone(CUgraph *clone, CUgraph original);
CUresult cuGraphNodeFindInClone(CUgraphNode *n, CUgraphNode original, CUgraph clone);
CUresult cuGraphDestroyNode(CUgraphNode n);
CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *n);
CUresult cuGraphGetRootNodes(CUgraph g, CUgraphNode *nodes, size_t *n);
CUresult cuGraphGetEdges(CUgraph g, CUgraphNode *from, CUgraphNode *to, size_t *n);
CUresult cuGraphNodeGetDependentNodes(CUgraphNode n, CUgraphNode *out, size_t *count);
CUresult cuGraphRemoveDependencies(CUgraph g, const CUgraphNode *from, const CUgraphNode *to, size_t n);
CUresult cuGraphKernelNodeSetAttribute(CUgraphNode n, int attr, const void *value);
CUresult cuGraphKernelNodeGetAttribute(CUgraphNode n, int attr, void *value);
CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src);
CUresult cuUserObjectCreate(CUuserObject *o, void *ptr, CUhostFn destroy, unsigned initial, unsigned flags);
CUresult cuUserObjectRelease(CUuserObject o, unsigned count);
CUresult cuGraphRetainUserObject(CUgraph g, CUuserObject o, unsigned count, unsigned flags);
CUresult cuGraphDebugDotPrint(CUgraph g, const char *path, unsigned flags);
typedef struct CUevent_st *CUevent;
CUresult cuEventCreate(CUevent *e, unsigned flags);
CUresult cuEventRecord(CUevent e, CUstream s);
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags);
CUresult cuStreamBeginCapture_v2(CUstream s, int mode);
CUresult cuStreamEndCapture(CUstream s, CUgraph *g);
CUresult cuStreamGetCaptureInfo_v3(CUstream s, int *status, unsigned long long *id, CUgraph *g, const CUgraphNode **deps,
                                   const void **edges, size_t *numDeps);
CUresult cuStreamUpdateCaptureDependencies(CUstream s, CUgraphNode *deps, size_t n, unsigned flags);
CUresult cuStreamBeginCaptureToGraph(CUstream s, CUgraph g, const CUgraphNode *deps, const void *edges, size_t n, int mode);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s);
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void **params, void **extra);

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

/* out[i] += add, for 64 elements */
static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry add(.param .u64 p, .param .u32 v) {\n"
    "  .reg .u32 %r<4>; .reg .u64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [v]; mov.u32 %r2, %tid.x;\n"
    "  mul.wide.u32 %rd2, %r2, 4; add.u64 %rd3, %rd1, %rd2; ld.global.u32 %r3, [%rd3]; add.u32 %r3, %r3, %r1; st.global.u32 [%rd3], %r3; ret;\n}\n";

static int hostRuns, destroyed;
static void hostFn(void *p) { (void)p; hostRuns++; }
static void destroyFn(void *p) { destroyed += (int)(intptr_t)p; }

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CUstream s;
    CHECK(cuStreamCreate(&s, 1));
    CUmodule mod;
    CUfunction add;
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&add, mod, "add"));
    CUdeviceptr buf, copy;
    CHECK(cuMemAlloc_v2(&buf, 256));
    CHECK(cuMemAlloc_v2(&copy, 256));
    CUresult e[10];

    /* memset(buf, 1) -> kernel(+v) -> host fn, memcpy(copy <- buf): built with cuGraphAddNode */
    CUgraph g;
    CHECK(cuGraphCreate(&g, 0));
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = 2; /* MEMSET */
    np.u.memset.dst = buf;
    np.u.memset.value = 1;
    np.u.memset.elementSize = 4;
    np.u.memset.width = 64;
    np.u.memset.height = 1;
    np.u.memset.ctx = ctx;
    CUgraphNode nMemset, nKernel, nHost, nCopy, nEmpty;
    CHECK(cuGraphAddNode(&nMemset, g, NULL, 0, &np));
    unsigned v = 10;
    void *params[] = {&buf, &v};
    memset(&np, 0, sizeof np);
    np.type = 0; /* KERNEL */
    np.u.kernel.func = add;
    np.u.kernel.gridDimX = np.u.kernel.gridDimY = np.u.kernel.gridDimZ = 1;
    np.u.kernel.blockDimX = 64;
    np.u.kernel.blockDimY = np.u.kernel.blockDimZ = 1;
    np.u.kernel.kernelParams = params;
    CHECK(cuGraphAddNode(&nKernel, g, &nMemset, 1, &np));
    memset(&np, 0, sizeof np);
    np.type = 3; /* HOST */
    np.u.host.fn = hostFn;
    CHECK(cuGraphAddNode(&nHost, g, &nKernel, 1, &np));
    memset(&np, 0, sizeof np);
    np.type = 1; /* MEMCPY */
    np.u.memcpy.copyCtx = ctx;
    np.u.memcpy.copyParams.srcMemoryType = 2;
    np.u.memcpy.copyParams.srcDevice = buf;
    np.u.memcpy.copyParams.dstMemoryType = 2;
    np.u.memcpy.copyParams.dstDevice = copy;
    np.u.memcpy.copyParams.WidthInBytes = 256;
    np.u.memcpy.copyParams.Height = 1;
    np.u.memcpy.copyParams.Depth = 1;
    CHECK(cuGraphAddNode(&nCopy, g, &nKernel, 1, &np));
    CHECK(cuGraphAddEmptyNode(&nEmpty, g, NULL, 0));

    /* structure: roots memset and empty; 3 edges; the kernel's dependents host and memcpy */
    size_t count = 0;
    CHECK(cuGraphGetRootNodes(g, NULL, &count));
    EXPECT(count == 2, "roots %zu", count);
    CUgraphNode from[8], to[8];
    count = 8;
    CHECK(cuGraphGetEdges(g, from, to, &count));
    EXPECT(count == 3 && from[0] == nMemset && to[0] == nKernel, "edges %zu", count);
    CUgraphNode deps[4];
    count = 4;
    CHECK(cuGraphNodeGetDependentNodes(nKernel, deps, &count));
    EXPECT(count == 2 && ((deps[0] == nHost && deps[1] == nCopy) || (deps[0] == nCopy && deps[1] == nHost)), "dependents %zu", count);

    /* parameters read back and changed: memset value 1 -> 5 */
    CUDA_MEMSET_NODE_PARAMS mp;
    CHECK(cuGraphMemsetNodeGetParams(nMemset, &mp));
    EXPECT(mp.dst == buf && mp.value == 1 && mp.width == 64, "memset params");
    mp.value = 5;
    CHECK(cuGraphMemsetNodeSetParams(nMemset, &mp));
    CUDA_HOST_NODE_PARAMS hp;
    CHECK(cuGraphHostNodeGetParams(nHost, &hp));
    EXPECT(hp.fn == hostFn, "host params");
    CUDA_MEMCPY3D cp;
    CHECK(cuGraphMemcpyNodeGetParams(nCopy, &cp));
    EXPECT(cp.dstDevice == copy && cp.WidthInBytes == 256, "memcpy params");

    /* kernel node attributes: PRIORITY (8) into an int, copied to another kernel node */
    int prio = -1, prio_back[2] = {7, 0x5a5a5a5a};  /* -1: within the device's priority range */
    CHECK(cuGraphKernelNodeSetAttribute(nKernel, 8, &prio));
    CHECK(cuGraphKernelNodeGetAttribute(nKernel, 8, prio_back));
    EXPECT(prio_back[0] == -1 && prio_back[1] == 0x5a5a5a5a, "priority attribute %d 0x%x", prio_back[0], prio_back[1]);

    /* user objects: the graph takes one reference (moved), the executable another */
    CUuserObject uo;
    CHECK(cuUserObjectCreate(&uo, (void *)(intptr_t)7, destroyFn, 1, 1));
    CHECK(cuGraphRetainUserObject(g, uo, 1, 1 /* MOVE */));

    /* instantiate with parameters; 5 + 10 everywhere */
    CUDA_GRAPH_INSTANTIATE_PARAMS ip = {2 /* UPLOAD */, s, (CUgraphNode)(uintptr_t)1, -1};
    CUgraphExec x;
    CHECK(cuGraphInstantiateWithParams(&x, g, &ip));
    EXPECT(ip.result_out == 0 && ip.hErrNode_out == NULL, "instantiate result %d", ip.result_out);
    unsigned long long flags = 99;
    CHECK(cuGraphExecGetFlags(x, &flags));
    EXPECT(flags == 0, "exec flags %llu (UPLOAD is not kept)", flags);
    CHECK(cuGraphLaunch(x, s));
    CHECK(cuStreamSynchronize(s));
    unsigned h[64];
    CHECK(cuMemcpyDtoH_v2(h, copy, 256));
    EXPECT(h[0] == 15 && h[63] == 15 && hostRuns == 1, "first launch %u %u, host %d", h[0], h[63], hostRuns);

    /* per executable: memset 7, kernel +100, memcpy node disabled; the graph itself is unchanged */
    mp.value = 7;
    CHECK(cuGraphExecMemsetNodeSetParams(x, nMemset, &mp, ctx));
    unsigned v2 = 100;
    void *params2[] = {&buf, &v2};
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = add;
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = 64;
    kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = params2;
    CHECK(cuGraphExecKernelNodeSetParams_v2(x, nKernel, &kp));
    CHECK(cuGraphNodeSetEnabled(x, nCopy, 0));
    e[6] = cuGraphNodeSetEnabled(x, nHost, 0);                     /* host nodes cannot be disabled */
    unsigned enabled = 9;
    CHECK(cuGraphNodeGetEnabled(x, nCopy, &enabled));
    EXPECT(enabled == 0, "enabled %u", enabled);
    CHECK(cuGraphLaunch(x, s));
    CHECK(cuStreamSynchronize(s));
    unsigned hb[64];
    CHECK(cuMemcpyDtoH_v2(h, copy, 256));
    CHECK(cuMemcpyDtoH_v2(hb, buf, 256));
    EXPECT(hb[0] == 107 && hb[63] == 107 && h[0] == 15 && hostRuns == 2, "changed executable %u, copy %u (disabled), host %d", hb[0], h[0], hostRuns);
    CHECK(cuGraphMemsetNodeGetParams(nMemset, &mp));
    EXPECT(mp.value == 5, "the graph's memset node keeps 5: %u", mp.value);

    /* generic set params on the graph's node: memset 2 */
    memset(&np, 0, sizeof np);
    np.type = 2;
    np.u.memset.dst = buf;
    np.u.memset.value = 2;
    np.u.memset.elementSize = 4;
    np.u.memset.width = 64;
    np.u.memset.height = 1;
    CHECK(cuGraphNodeSetParams(nMemset, &np));
    CHECK(cuGraphMemsetNodeGetParams(nMemset, &mp));
    EXPECT(mp.value == 2, "generic set %u", mp.value);

    /* clone, find the copy of a node, remove an edge and a node in the clone */
    CUgraph c;
    CHECK(cuGraphClone(&c, g));
    CUgraphNode cKernel, cCopy, cHost;
    CHECK(cuGraphNodeFindInClone(&cKernel, nKernel, c));
    CHECK(cuGraphNodeFindInClone(&cCopy, nCopy, c));
    CHECK(cuGraphNodeFindInClone(&cHost, nHost, c));
    EXPECT(cKernel != nKernel, "a clone has its own nodes");
    CHECK(cuGraphRemoveDependencies(c, &cKernel, &cCopy, 1));
    CHECK(cuGraphDestroyNode(cHost));
    count = 0;
    CHECK(cuGraphGetNodes(c, NULL, &count));
    size_t roots = 0;
    CHECK(cuGraphGetRootNodes(c, NULL, &roots));
    EXPECT(count == 4 && roots == 3, "clone: %zu nodes, %zu roots", count, roots);
    count = 0;
    CHECK(cuGraphGetNodes(g, NULL, &count));
    EXPECT(count == 5, "the original keeps its 5 nodes: %zu", count);
    CHECK(cuGraphKernelNodeCopyAttributes(cKernel, nKernel));

    /* DOT output */
    char path[] = "/tmp/zluda-graph-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK(cuGraphDebugDotPrint(g, path, 0));
    FILE *f = fopen(path, "r");
    char dot[4096] = {0};
    size_t got = f ? fread(dot, 1, sizeof dot - 1, f) : 0;
    if (f) fclose(f);
    unlink(path);
    EXPECT(got > 0 && strstr(dot, "digraph") != NULL, "DOT output of %zu bytes", got);

    /* misuse: NVIDIA's answers are the expectation */
    e[0] = cuGraphMemsetNodeGetParams(nKernel, &mp);               /* not a memset node */
    e[1] = cuGraphNodeFindInClone(&cKernel, nKernel, g);           /* not a clone of it */
    e[2] = cuGraphRemoveDependencies(g, &nHost, &nCopy, 1);        /* no such edge */
    e[3] = cuGraphExecMemsetNodeSetParams(x, nKernel, &mp, ctx);   /* kernel node given memset parameters */
    memset(&np, 0, sizeof np);
    np.type = 13; /* CONDITIONAL without a handle */
    CUgraphNode nBad;
    e[4] = cuGraphAddNode(&nBad, g, NULL, 0, &np);
    e[5] = cuGraphNodeSetEnabled(x, cKernel, 1);                    /* a node of another graph */

    /* the destructor runs when the last reference goes: graph, then executable */
    CHECK(cuGraphDestroy(g));
    int afterGraph = destroyed;
    CHECK(cuGraphExecDestroy(x));
    CHECK(cuGraphDestroy(c));
    /* NVIDIA runs the destructor later, on a thread of its own: wait for it (up to 2 s) */
    for (int i = 0; i < 200 && destroyed != 7; i++) {
        cuCtxSynchronize();
        usleep(10000);
    }
    EXPECT(afterGraph == 0 && destroyed == 7, "user object destroyed %d then %d", afterGraph, destroyed);
    /* capture across streams: a memsets, b joins through an event and adds, a rejoins and copies */
    CUstream sa, sb;
    CHECK(cuStreamCreate(&sa, 1));
    CHECK(cuStreamCreate(&sb, 1));
    CUevent fork, join;
    CHECK(cuEventCreate(&fork, 0));
    CHECK(cuEventCreate(&join, 0));
    CHECK(cuStreamBeginCapture_v2(sa, 0));
    CHECK(cuMemsetD32Async(buf, 1, 64, sa));
    CHECK(cuEventRecord(fork, sa));
    CHECK(cuStreamWaitEvent(sb, fork, 0));
    int status = -1;
    size_t nd = 99;
    const CUgraphNode *cdeps = NULL;
    CHECK(cuStreamGetCaptureInfo_v3(sb, &status, NULL, NULL, &cdeps, NULL, &nd));
    EXPECT(status == 1 && nd == 1 && cdeps != NULL, "b joined the capture: status %d, %zu dependencies", status, nd);
    CHECK(cuLaunchKernel(add, 1, 1, 1, 64, 1, 1, 0, sb, params, NULL));  /* + 10 */
    CHECK(cuEventRecord(join, sb));
    CHECK(cuStreamWaitEvent(sa, join, 0));
    CHECK(cuStreamGetCaptureInfo_v3(sa, &status, NULL, NULL, &cdeps, NULL, &nd));
    EXPECT(nd == 2, "a depends on its memset and b's kernel: %zu", nd);
    CHECK(cuMemcpyDtoDAsync_v2(copy, buf, 256, sa));
    CUgraph fj;
    CHECK(cuStreamEndCapture(sa, &fj));
    count = 8;
    CHECK(cuGraphGetEdges(fj, from, to, &count));
    size_t fjNodes = 0;
    CHECK(cuGraphGetNodes(fj, NULL, &fjNodes));
    EXPECT(fjNodes == 3 && count == 3, "fork-join graph: %zu nodes, %zu edges", fjNodes, count);
    CUgraphExec fx;
    CHECK(cuGraphInstantiateWithFlags(&fx, fj, 0));
    CHECK(cuGraphLaunch(fx, sa));
    CHECK(cuStreamSynchronize(sa));
    CHECK(cuMemcpyDtoH_v2(h, copy, 256));
    EXPECT(h[0] == 11 && h[63] == 11, "fork-join result %u", h[0]);
    CHECK(cuGraphExecDestroy(fx));

    /* capture into an existing graph after one of its nodes; a dependency set replaced with none */
    CUgraph into;
    CUgraphNode first;
    CHECK(cuGraphCreate(&into, 0));
    CHECK(cuGraphAddEmptyNode(&first, into, NULL, 0));
    CHECK(cuStreamBeginCaptureToGraph(sa, into, &first, NULL, 1, 0));
    CHECK(cuMemsetD32Async(buf, 4, 64, sa));
    CHECK(cuStreamUpdateCaptureDependencies(sa, NULL, 0, 1 /* SET */));
    CHECK(cuMemsetD32Async(copy, 5, 64, sa));
    CUgraph same = NULL;
    CHECK(cuStreamEndCapture(sa, &same));
    size_t intoNodes = 0, intoRoots = 0;
    CHECK(cuGraphGetNodes(into, NULL, &intoNodes));
    CHECK(cuGraphGetRootNodes(into, NULL, &intoRoots));
    EXPECT(same == into && intoNodes == 3 && intoRoots == 2, "captured into the graph: %p, %zu nodes, %zu roots", (void *)same, intoNodes, intoRoots);
    CHECK(cuGraphDestroy(into));
    CHECK(cuGraphDestroy(fj));

    /* ending a capture in a stream that joined it: refused, and the capture is broken */
    CHECK(cuStreamBeginCapture_v2(sa, 0));
    CHECK(cuEventRecord(fork, sa));
    CHECK(cuStreamWaitEvent(sb, fork, 0));
    CHECK(cuMemsetD32Async(buf, 1, 64, sb));
    CUgraph broken = NULL;
    e[7] = cuStreamEndCapture(sb, &broken);
    CUresult ended = cuStreamEndCapture(sa, &broken);
    EXPECT(ended == 901 /* CUDA_ERROR_STREAM_CAPTURE_INVALIDATED */ && broken == NULL, "the origin's end: %d", ended);

    printf("errors: %d %d %d %d %d %d %d %d\n", e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]);
    if (bad) { printf("FAIL: %d\n", bad); return 1; }
    printf("PASS: graph API\n");
    return 0;
}
