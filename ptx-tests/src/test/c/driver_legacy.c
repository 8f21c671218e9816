/* ZLUDA-J integration test: the first ABIs applications built long ago still call (cuCtxCreate, cuCtxDestroy,
 * cuCtxPushCurrent/PopCurrent, cuStreamDestroy, cuEventDestroy, cuGraphInstantiate, cuGraphExecUpdate), the first
 * launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunchGrid), and the newest memory calls (cuMemcpyBatchAsync, cuMemcpy3DBatchAsync,
 * batched prefetch and discard, graph memory attributes).
 * The same program runs on NVIDIA's driver; its "errors:" line is compared with NVIDIA's answers.
 * Build: gcc -o driver_legacy driver_legacy.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef unsigned long long CUdeviceptr;
typedef struct { CUdeviceptr dst; size_t pitch; unsigned value, elementSize; size_t width, height; } CUDA_MEMSET_NODE_PARAMS;
typedef struct { int type, id; } CUmemLocation;
typedef struct { int srcAccessOrder; CUmemLocation srcLocHint, dstLocHint; unsigned flags; } CUmemcpyAttributes;
typedef struct {
    int allocType, handleTypes;
    CUmemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;
typedef struct {
    int type;
    union {
        struct { CUdeviceptr ptr; size_t rowLength, layerHeight; CUmemLocation locHint; } ptr;
        struct { void *array; size_t x, y, z; } array;
    } op;
} CUmemcpy3DOperand;
typedef struct { CUmemcpy3DOperand src, dst; size_t width, height, depth; int srcAccessOrder; unsigned flags; } CUDA_MEMCPY3D_BATCH_OP;
typedef struct { CUmemPoolProps poolProps; const void *accessDescs; size_t accessDescCount, bytesize; CUdeviceptr dptr; } CUDA_MEM_ALLOC_NODE_PARAMS;

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxDestroy_v2(CUcontext ctx);
CUresult cuCtxDestroy(CUcontext ctx);
CUresult cuCtxPushCurrent(CUcontext ctx);
CUresult cuCtxPopCurrent(CUcontext *pctx);
CUresult cuCtxSynchronize(void);
CUresult cuStreamCreate(CUstream *s, unsigned flags);
CUresult cuStreamDestroy(CUstream s);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuEventCreate(CUevent *e, unsigned flags);
CUresult cuEventDestroy(CUevent e);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuFuncSetBlockShape(CUfunction f, int x, int y, int z);
CUresult cuFuncSetSharedSize(CUfunction f, unsigned bytes);
CUresult cuParamSetSize(CUfunction f, unsigned bytes);
CUresult cuParamSeti(CUfunction f, int offset, unsigned value);
CUresult cuParamSetf(CUfunction f, int offset, float value);
CUresult cuParamSetv(CUfunction f, int offset, void *p, unsigned bytes);
CUresult cuLaunchGrid(CUfunction f, int w, int h);
CUresult cuLaunchGridAsync(CUfunction f, int w, int h, CUstream s);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned flags);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, CUmemcpyAttributes *attrs,
                               size_t *attrsIdxs, size_t numAttrs, CUstream s);
CUresult cuMemcpy3DBatchAsync_v2(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, unsigned long long flags, CUstream s);
typedef struct { size_t Width, Height, Depth; int Format; unsigned NumChannels, Flags; } CUDA_ARRAY3D_DESCRIPTOR;
CUresult cuArray3DCreate_v2(void **a, const CUDA_ARRAY3D_DESCRIPTOR *d);
CUresult cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *locs, size_t *locIdxs,
                                 size_t numLocs, unsigned long long flags, CUstream s);
CUresult cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long flags, CUstream s);
CUresult cuGraphCreate(CUgraph *g, unsigned flags);
CUresult cuGraphDestroy(CUgraph g);
CUresult cuGraphAddMemsetNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx);
CUresult cuGraphAddMemAllocNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps, size_t nd, CUDA_MEM_ALLOC_NODE_PARAMS *p);
CUresult cuGraphInstantiate(CUgraphExec *e, CUgraph g, CUgraphNode *err, char *log, size_t size);
CUresult cuGraphExecUpdate(CUgraphExec e, CUgraph g, CUgraphNode *err, int *result);
CUresult cuGraphLaunch(CUgraphExec e, CUstream s);
CUresult cuGraphExecDestroy(CUgraphExec e);
CUresult cuDeviceGetGraphMemAttribute(CUdevice dev, int attr, void *value);
CUresult cuDeviceSetGraphMemAttribute(CUdevice dev, int attr, void *value);
CUresult cuDeviceGraphMemTrim(CUdevice dev);

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

/* out[ctaid.x * ntid.x + tid.x] = a * i + b (a .u32, b .f32 after a pointer) */
static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 a, .param .f32 b) {\n"
    "  .reg .u32 %r<6>; .reg .u64 %rd<4>; .reg .f32 %f<4>;\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [a]; ld.param.f32 %f1, [b];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.u32 %r2, %r2, %r3, %r4;\n"
    "  mul.lo.u32 %r5, %r2, %r1; cvt.rn.f32.u32 %f2, %r5; add.f32 %f2, %f2, %f1;\n"
    "  mul.wide.u32 %rd2, %r2, 4; add.u64 %rd3, %rd1, %rd2; st.global.f32 [%rd3], %f2; ret;\n}\n";

int main(void) {
    CUdevice dev;
    CUcontext ctx, popped;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    /* the first context ABI: NVIDIA's driver answers 0 201 0 0 0 0 here (a context made by the first cuCtxCreate
     * refuses cuMemAlloc_v2 with CUDA_ERROR_INVALID_CONTEXT); ZLUDA-J's first functions behave as the _v2 ones */
    CUcontext old;
    CUdeviceptr probe = 0;
    CUresult c[6];
    c[0] = cuCtxCreate(&old, 0, dev);
    c[1] = cuMemAlloc_v2(&probe, 64);
    if (c[1] == 0) cuMemFree_v2(probe);
    c[2] = cuCtxPopCurrent(&popped);
    c[3] = cuCtxPushCurrent(old);
    c[4] = cuCtxPopCurrent(&popped);
    c[5] = cuCtxDestroy(old);
    printf("first context ABI: %d %d %d %d %d %d\n", c[0], c[1], c[2], c[3], c[4], c[5]);
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CUresult e[8];

    /* the first launch API: 2 blocks of 64 threads, out = 3 i + 0.5 */
    CUmodule m;
    CUfunction k;
    CHECK(cuModuleLoadData(&m, ptx));
    CHECK(cuModuleGetFunction(&k, m, "k"));
    CUdeviceptr out;
    CHECK(cuMemAlloc_v2(&out, 128 * 4));
    CHECK(cuFuncSetBlockShape(k, 64, 1, 1));
    CHECK(cuFuncSetSharedSize(k, 0));
    CHECK(cuParamSetSize(k, 16));
    CHECK(cuParamSetv(k, 0, &out, 8));
    CHECK(cuParamSeti(k, 8, 3));
    CHECK(cuParamSetf(k, 12, 0.5f));
    CHECK(cuLaunchGrid(k, 2, 1));
    CHECK(cuCtxSynchronize());
    float h[128];
    CHECK(cuMemcpyDtoH_v2(h, out, sizeof h));
    for (int i = 0; i < 128; i++) EXPECT(h[i] == 3.0f * i + 0.5f, "out[%d] = %g", i, h[i]);
    e[0] = cuParamSeti(k, 16, 1);  /* past the parameter size (NVIDIA accepts it) */

    /* batched copies: two copies on a stream */
    CUstream s;
    CHECK(cuStreamCreate(&s, 1));
    CUdeviceptr a, b;
    CHECK(cuMemAlloc_v2(&a, 256));
    CHECK(cuMemAlloc_v2(&b, 256));
    CUdeviceptr dsts[2] = {a, a + 128}, srcs[2] = {out, out + 256};
    size_t sizes[2] = {128, 128}, idx[1] = {0};
    CUmemcpyAttributes attr;
    memset(&attr, 0, sizeof attr);
    attr.srcAccessOrder = 1; /* STREAM */
    attr.srcLocHint.type = attr.dstLocHint.type = 1; /* DEVICE */
    CHECK(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 2, &attr, idx, 1, s));
    CHECK(cuStreamSynchronize(s));
    float hb[64];
    CHECK(cuMemcpyDtoH_v2(hb, a, sizeof hb));
    EXPECT(hb[0] == 0.5f && hb[31] == 93.5f && hb[32] == 192.5f && hb[63] == 285.5f, "batch copy %g %g %g %g", hb[0], hb[31], hb[32], hb[63]);
    e[1] = cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 2, &attr, idx, 1, NULL);   /* the legacy stream */

    /* 3-D batched copies: a 4x3x2 float block from pitched memory (rows of 6) into an array, back into tight memory */
    float block[2][3][6], blockBack[2][3][4];
    for (int z = 0; z < 2; z++) for (int y = 0; y < 3; y++) for (int x = 0; x < 6; x++) block[z][y][x] = 100.0f * z + 10 * y + x;
    CUdeviceptr dblock, dback;
    CHECK(cuMemAlloc_v2(&dblock, sizeof block));
    CHECK(cuMemAlloc_v2(&dback, sizeof blockBack));
    CHECK(cuMemcpyHtoD_v2(dblock, block, sizeof block));
    CUDA_ARRAY3D_DESCRIPTOR a3 = {4, 3, 2, 0x20, 1, 0};
    void *arr3;
    CHECK(cuArray3DCreate_v2(&arr3, &a3));
    CUDA_MEMCPY3D_BATCH_OP ops[2];
    memset(ops, 0, sizeof ops);
    ops[0].src.type = 1; /* POINTER */
    ops[0].src.op.ptr.ptr = dblock;
    ops[0].src.op.ptr.rowLength = 6;
    ops[0].src.op.ptr.layerHeight = 3;
    ops[0].dst.type = 2; /* ARRAY */
    ops[0].dst.op.array.array = arr3;
    ops[0].width = 4;
    ops[0].height = 3;
    ops[0].depth = 2;
    ops[0].srcAccessOrder = 1;
    CHECK(cuMemcpy3DBatchAsync_v2(1, ops, 0, s));
    ops[1].src.type = 2;
    ops[1].src.op.array.array = arr3;
    ops[1].dst.type = 1;
    ops[1].dst.op.ptr.ptr = dback;
    ops[1].width = 4;
    ops[1].height = 3;
    ops[1].depth = 2;
    ops[1].srcAccessOrder = 1;
    CHECK(cuMemcpy3DBatchAsync_v2(1, &ops[1], 0, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuMemcpyDtoH_v2(blockBack, dback, sizeof blockBack));
    for (int z = 0; z < 2; z++) for (int y = 0; y < 3; y++) for (int x = 0; x < 4; x++)
        EXPECT(blockBack[z][y][x] == block[z][y][x], "3-D batch (%d,%d,%d) = %g", x, y, z, blockBack[z][y][x]);
    ops[0].depth = 0;
    e[6] = cuMemcpy3DBatchAsync_v2(1, ops, 0, s);             /* a zero extent */

    /* batched prefetch and discard of managed memory */
    CUdeviceptr managed;
    CHECK(cuMemAllocManaged(&managed, 1 << 16, 1));
    CUdeviceptr ranges[2] = {managed, managed + 4096};
    size_t lens[2] = {4096, 8192};
    CUmemLocation loc = {1, dev};
    size_t locIdx[1] = {0};
    CHECK(cuMemPrefetchBatchAsync(ranges, lens, 2, &loc, locIdx, 1, 0, s));
    CHECK(cuMemDiscardBatchAsync(ranges, lens, 2, 0, s));
    CHECK(cuStreamSynchronize(s));
    e[2] = cuMemDiscardBatchAsync(ranges, lens, 2, 7, s);   /* flags */

    /* graphs through the first ABIs; graph memory attributes */
    CUgraph g, g2;
    CHECK(cuGraphCreate(&g, 0));
    CUDA_MEMSET_NODE_PARAMS mp = {b, 0, 9, 4, 64, 1};
    CUgraphNode n;
    CHECK(cuGraphAddMemsetNode(&n, g, NULL, 0, &mp, ctx));
    CUDA_MEM_ALLOC_NODE_PARAMS ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = 1;
    ap.poolProps.location.type = 1;
    ap.poolProps.location.id = dev;
    ap.bytesize = 1 << 20;
    CUgraphNode alloc;
    CHECK(cuGraphAddMemAllocNode(&alloc, g, &n, 1, &ap));
    CUgraphExec x;
    CUgraphNode errNode = (CUgraphNode)(uintptr_t)1;
    char log[64] = "x";
    CHECK(cuGraphInstantiate(&x, g, &errNode, log, sizeof log));
    CHECK(cuGraphLaunch(x, s));
    CHECK(cuStreamSynchronize(s));
    unsigned hv[64];
    CHECK(cuMemcpyDtoH_v2(hv, b, sizeof hv));
    EXPECT(hv[0] == 9 && hv[63] == 9, "memset through the first instantiate %u", hv[0]);
    unsigned long long used = 0, high = 0;
    CHECK(cuDeviceGetGraphMemAttribute(dev, 0 /* USED_MEM_CURRENT */, &used));
    CHECK(cuDeviceGetGraphMemAttribute(dev, 1 /* USED_MEM_HIGH */, &high));
    EXPECT(used >= (1u << 20) && high >= used, "graph memory used %llu high %llu", used, high);
    unsigned long long zero = 0, one = 1;
    CHECK(cuDeviceSetGraphMemAttribute(dev, 1, &zero));
    e[3] = cuDeviceSetGraphMemAttribute(dev, 0, &zero);    /* a current value */
    e[4] = cuDeviceSetGraphMemAttribute(dev, 1, &one);     /* a high mark set to other than 0 */
    CHECK(cuDeviceGraphMemTrim(dev));
    /* an update with a different topology fails with CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED (2) */
    CHECK(cuGraphCreate(&g2, 0));
    int result = -1;
    CUgraphNode updateErr = NULL;
    e[5] = cuGraphExecUpdate(x, g2, &updateErr, &result);
    CHECK(cuGraphExecDestroy(x));
    CHECK(cuGraphDestroy(g));
    CHECK(cuGraphDestroy(g2));

    /* the first destroy functions */
    CUevent ev;
    CHECK(cuEventCreate(&ev, 0));
    CHECK(cuEventDestroy(ev));
    CHECK(cuStreamDestroy(s));
    CHECK(cuCtxDestroy_v2(ctx));
    printf("errors: %d %d %d %d %d %d %d (update result %d)\n", e[0], e[1], e[2], e[3], e[4], e[5], e[6], result);
    if (bad) { printf("FAIL: %d\n", bad); return 1; }
    printf("PASS: first ABIs, first launch API, batched memory calls\n");
    return 0;
}
