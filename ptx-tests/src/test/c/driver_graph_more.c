/* ZLUDA-J integration test: more graph node kinds and batched stream memory operations. A child graph node (the
 * child copied when added: later changes to the child do not reach it), event record and wait nodes ordering two
 * graphs on two streams, memory alloc and free nodes (the address known when the node is added, used by a memset and
 * a copy node in between), node types and parameters read back, and cuStreamBatchMemOp writing 32- and 64-bit words.
 * The same program passes on NVIDIA's driver.
 * Build: gcc -o driver_graph_more driver_graph_more.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
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
typedef struct { CUdeviceptr dst; size_t pitch; unsigned value, elementSize; size_t width, height; } CUDA_MEMSET_NODE_PARAMS;
typedef struct {
    int allocType, handleTypes;
    struct { int type, id; } location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;
typedef struct {
    CUmemPoolProps poolProps;
    const void *accessDescs;
    size_t accessDescCount, bytesize;
    CUdeviceptr dptr;
} CUDA_MEM_ALLOC_NODE_PARAMS;
typedef union {
    unsigned operation;
    struct { unsigned operation; CUdeviceptr address; unsigned long long value; unsigned flags; CUdeviceptr alias; } op;
    unsigned long long pad[6];
} CUstreamBatchMemOpParams;

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuStreamBatchMemOp_v2(CUstream s, unsigned count, CUstreamBatchMemOpParams *p, unsigned flags);
CUresult cuEventCreate(CUevent *e, unsigned flags);
CUresult cuEventSynchronize(CUevent e);
CUresult cuGraphCreate(CUgraph *g, unsigned flags);
CUresult cuGraphDestroy(CUgraph g);
CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *n);
CUresult cuGraphNodeGetType(CUgraphNode n, int *type);
CUresult cuGraphAddMemsetNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext c);
CUresult cuGraphAddMemcpyNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, const CUDA_MEMCPY3D *p, CUcontext c);
CUresult cuGraphAddEmptyNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd);
CUresult cuGraphAddChildGraphNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, CUgraph child);
CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode n, CUgraph *g);
CUresult cuGraphAddEventRecordNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, CUevent e);
CUresult cuGraphAddEventWaitNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, CUevent e);
CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode n, CUevent *e);
CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode n, CUevent *e);
CUresult cuGraphAddMemAllocNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, CUDA_MEM_ALLOC_NODE_PARAMS *p);
CUresult cuGraphMemAllocNodeGetParams(CUgraphNode n, CUDA_MEM_ALLOC_NODE_PARAMS *p);
CUresult cuGraphAddMemFreeNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, CUdeviceptr d);
CUresult cuGraphMemFreeNodeGetParams(CUgraphNode n, CUdeviceptr *d);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec e, CUstream s);
CUresult cuGraphExecDestroy(CUgraphExec e);

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("ERROR %s = %d\n", #x, r_); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); bad = 1; } } while (0)

enum { N = 256 };

static CUDA_MEMSET_NODE_PARAMS memset32(CUdeviceptr dst, unsigned value) {
    CUDA_MEMSET_NODE_PARAMS m = {dst, N * 4, value, 4, N, 1};
    return m;
}

static CUDA_MEMCPY3D copyDtoD(CUdeviceptr dst, CUdeviceptr src) {
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = 2; c.srcDevice = src; c.srcPitch = N * 4; c.srcHeight = 1;
    c.dstMemoryType = 2; c.dstDevice = dst; c.dstPitch = N * 4; c.dstHeight = 1;
    c.WidthInBytes = N * 4; c.Height = 1; c.Depth = 1;
    return c;
}

static int all(CUdeviceptr p, unsigned want) {
    unsigned h[N];
    if (cuMemcpyDtoH_v2(h, p, sizeof h)) return 0;
    for (int i = 0; i < N; i++) if (h[i] != want) return 0;
    return 1;
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUstream s1, s2;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CHECK(cuStreamCreate(&s1, 1));
    CHECK(cuStreamCreate(&s2, 1));
    CUdeviceptr a, b;
    CHECK(cuMemAlloc_v2(&a, N * 4));
    CHECK(cuMemAlloc_v2(&b, N * 4));
    int type;
    size_t count;

    /* a child graph: memset a = 7, copy a -> b; the parent runs it after an empty node */
    CUgraph child, parent, embedded;
    CUgraphNode n1, n2, e0, cn, extra;
    CHECK(cuGraphCreate(&child, 0));
    CUDA_MEMSET_NODE_PARAMS m7 = memset32(a, 7);
    CHECK(cuGraphAddMemsetNode(&n1, child, NULL, 0, &m7, ctx));
    CUDA_MEMCPY3D ab = copyDtoD(b, a);
    CHECK(cuGraphAddMemcpyNode(&n2, child, &n1, 1, &ab, ctx));
    CHECK(cuGraphCreate(&parent, 0));
    CHECK(cuGraphAddEmptyNode(&e0, parent, NULL, 0));
    CHECK(cuGraphAddChildGraphNode(&cn, parent, &e0, 1, child));
    CHECK(cuGraphAddEmptyNode(&extra, child, &n2, 1));  /* after the copy was taken: not in the parent */
    CHECK(cuGraphNodeGetType(cn, &type));
    EXPECT(type == 4, "child graph node type %d", type);
    CHECK(cuGraphChildGraphNodeGetGraph(cn, &embedded));
    CHECK(cuGraphGetNodes(embedded, NULL, &count));
    EXPECT(count == 2, "the embedded graph has %zu nodes", count);
    CHECK(cuGraphGetNodes(child, NULL, &count));
    EXPECT(count == 3, "the child has %zu nodes", count);
    CUgraphExec x1;
    CHECK(cuGraphInstantiateWithFlags(&x1, parent, 0));
    CHECK(cuMemsetD32_v2(b, 0, N));
    CHECK(cuGraphLaunch(x1, s1));
    CHECK(cuStreamSynchronize(s1));
    EXPECT(all(b, 7), "the child graph's copy");

    /* event record and wait nodes: graph g1 (s1) memsets a = 3 then records ev; graph g2 (s2) waits for ev, copies */
    CUevent ev, got;
    CHECK(cuEventCreate(&ev, 0));
    CUgraph g1, g2;
    CUgraphNode m, r, w, c;
    CHECK(cuGraphCreate(&g1, 0));
    CUDA_MEMSET_NODE_PARAMS m3 = memset32(a, 3);
    CHECK(cuGraphAddMemsetNode(&m, g1, NULL, 0, &m3, ctx));
    CHECK(cuGraphAddEventRecordNode(&r, g1, &m, 1, ev));
    CHECK(cuGraphCreate(&g2, 0));
    CHECK(cuGraphAddEventWaitNode(&w, g2, NULL, 0, ev));
    CHECK(cuGraphAddMemcpyNode(&c, g2, &w, 1, &ab, ctx));
    CHECK(cuGraphNodeGetType(r, &type));
    EXPECT(type == 7, "event record node type %d", type);
    CHECK(cuGraphNodeGetType(w, &type));
    EXPECT(type == 6, "event wait node type %d", type);
    CHECK(cuGraphEventRecordNodeGetEvent(r, &got));
    EXPECT(got == ev, "the record node's event");
    CHECK(cuGraphEventWaitNodeGetEvent(w, &got));
    EXPECT(got == ev, "the wait node's event");
    CUgraphExec x2, x3;
    CHECK(cuGraphInstantiateWithFlags(&x2, g1, 0));
    CHECK(cuGraphInstantiateWithFlags(&x3, g2, 0));
    CHECK(cuGraphLaunch(x2, s1));
    CHECK(cuGraphLaunch(x3, s2));
    CHECK(cuEventSynchronize(ev));
    CHECK(cuStreamSynchronize(s2));
    EXPECT(all(b, 3), "the copy after the event");

    /* memory nodes: alloc, memset the allocation = 9, copy it to b, free */
    CUgraph g3;
    CUgraphNode al, ms, cp, fr;
    CHECK(cuGraphCreate(&g3, 0));
    CUDA_MEM_ALLOC_NODE_PARAMS ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = 1;           /* CU_MEM_ALLOCATION_TYPE_PINNED */
    ap.poolProps.location.type = 1;       /* CU_MEM_LOCATION_TYPE_DEVICE */
    ap.poolProps.location.id = dev;
    ap.bytesize = N * 4;
    CHECK(cuGraphAddMemAllocNode(&al, g3, NULL, 0, &ap));
    EXPECT(ap.dptr != 0, "the allocation's address is known when the node is added");
    CUDA_MEMSET_NODE_PARAMS m9 = memset32(ap.dptr, 9);
    CHECK(cuGraphAddMemsetNode(&ms, g3, &al, 1, &m9, ctx));
    CUDA_MEMCPY3D tb = copyDtoD(b, ap.dptr);
    CHECK(cuGraphAddMemcpyNode(&cp, g3, &ms, 1, &tb, ctx));
    CHECK(cuGraphAddMemFreeNode(&fr, g3, &cp, 1, ap.dptr));
    CHECK(cuGraphNodeGetType(al, &type));
    EXPECT(type == 10, "memory alloc node type %d", type);
    CHECK(cuGraphNodeGetType(fr, &type));
    EXPECT(type == 11, "memory free node type %d", type);
    CUDA_MEM_ALLOC_NODE_PARAMS back;
    memset(&back, 0, sizeof back);
    CHECK(cuGraphMemAllocNodeGetParams(al, &back));
    EXPECT(back.bytesize == N * 4 && back.dptr == ap.dptr && back.poolProps.location.type == 1, "alloc node parameters");
    CUdeviceptr freed = 0;
    CHECK(cuGraphMemFreeNodeGetParams(fr, &freed));
    EXPECT(freed == ap.dptr, "free node parameter");
    CUgraphExec x4;
    CHECK(cuGraphInstantiateWithFlags(&x4, g3, 0));
    CHECK(cuGraphLaunch(x4, s1));
    CHECK(cuStreamSynchronize(s1));
    EXPECT(all(b, 9), "the copy of the graph's allocation");

    /* batched stream memory operations: a 32-bit and a 64-bit write, then a barrier */
    CUstreamBatchMemOpParams ops[3];
    memset(ops, 0, sizeof ops);
    ops[0].op.operation = 2; ops[0].op.address = a; ops[0].op.value = 0x12345678u;
    ops[1].op.operation = 5; ops[1].op.address = a + 8; ops[1].op.value = 0x1122334455667788ull;
    ops[2].operation = 6;
    CHECK(cuStreamBatchMemOp_v2(s2, 3, ops, 0));
    CHECK(cuStreamSynchronize(s2));
    unsigned h[4];
    CHECK(cuMemcpyDtoH_v2(h, a, sizeof h));
    EXPECT(h[0] == 0x12345678u && h[1] == 3 && h[2] == 0x55667788u && h[3] == 0x11223344u, "batch writes: %x %x %x %x", h[0], h[1], h[2], h[3]);
    ops[0].op.operation = 9;
    CUresult bad_op = cuStreamBatchMemOp_v2(s2, 1, ops, 0);
    EXPECT(bad_op == 1, "an unknown operation: %d", bad_op);

    CHECK(cuGraphExecDestroy(x1));
    CHECK(cuGraphExecDestroy(x2));
    CHECK(cuGraphExecDestroy(x3));
    CHECK(cuGraphExecDestroy(x4));
    CHECK(cuGraphDestroy(parent));
    CHECK(cuGraphDestroy(child));
    CHECK(cuGraphDestroy(g1));
    CHECK(cuGraphDestroy(g2));
    CHECK(cuGraphDestroy(g3));
    if (bad) return 1;
    printf("PASS: graph node kinds and batched memory operations\n");
    return 0;
}
