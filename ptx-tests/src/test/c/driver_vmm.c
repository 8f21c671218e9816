/* ZLUDA-J integration test: virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap, cuMemSetAccess ...)
 * and the stream-ordered allocator (cuMemAllocAsync, pools and their attributes), as ggml's pools use them.
 * The same program runs on NVIDIA's driver; the "errors:" and "pool:" lines are compared with what it printed there.
 * Build: gcc -o driver_vmm driver_vmm.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef unsigned long long CUdeviceptr, CUmemGenericAllocationHandle;
typedef struct { int type, id; } CUmemLocation;
typedef struct {
    int type, requestedHandleTypes;
    CUmemLocation location;
    void *win32HandleMetaData;
    unsigned char compressionType, gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
} CUmemAllocationProp;
typedef struct { CUmemLocation location; int flags; } CUmemAccessDesc;
typedef struct {
    int allocType, handleTypes;
    CUmemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetAttribute(int *v, int attrib, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void **params, void **extra);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned v, size_t n);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s);
CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr);
CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop, int option);
CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size, const CUmemAllocationProp *prop, unsigned long long flags);
CUresult cuMemRelease(CUmemGenericAllocationHandle h);
CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags);
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size);
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h, unsigned long long flags);
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size);
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count);
CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr);
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *addr);
CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop, CUmemGenericAllocationHandle h);
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev);
CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev);
CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool);
CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream s);
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool, CUstream s);
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream s);
CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props);
CUresult cuMemPoolDestroy(CUmemoryPool pool);
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attr, void *value);
CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int attr, void *value);
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep);
CUresult cuMemPoolGetAccess(int *flags, CUmemoryPool pool, CUmemLocation *location);

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

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    int vmm = 0, pools = 0;
    CHECK(cuDeviceGetAttribute(&vmm, 102, dev));
    CHECK(cuDeviceGetAttribute(&pools, 115, dev));
    EXPECT(vmm == 1 && pools == 1, "VMM %d, pools %d", vmm, pools);
    CUmodule mod;
    CUfunction inc;
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&inc, mod, "inc"));

    /* --- virtual memory: one allocation mapped twice, written through one view, read through the other --- */
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = 1;           /* PINNED */
    prop.location.type = 1;  /* DEVICE */
    prop.location.id = dev;
    size_t g = 0, grec = 0;
    CHECK(cuMemGetAllocationGranularity(&g, &prop, 0));
    CHECK(cuMemGetAllocationGranularity(&grec, &prop, 1));
    EXPECT(g > 0 && (g & (g - 1)) == 0 && grec >= g, "granularity %zu, recommended %zu", g, grec);
    CUmemGenericAllocationHandle h, h2;
    CHECK(cuMemCreate(&h, 2 * g, &prop, 0));
    CUdeviceptr va;
    CHECK(cuMemAddressReserve(&va, 6 * g, 0, 0, 0));
    EXPECT(va % g == 0, "reservation aligned");
    CHECK(cuMemMap(va, 2 * g, 0, h, 0));
    CHECK(cuMemMap(va + 2 * g, 2 * g, 0, h, 0));  /* the same allocation again, after the first view */
    CUmemAccessDesc access = {{1, dev}, 3};
    CHECK(cuMemSetAccess(va, 4 * g, &access, 1));
    unsigned long long flags = 0;
    CUmemLocation here = {1, dev};
    CHECK(cuMemGetAccess(&flags, &here, va + 100));
    EXPECT(flags == 3, "access flags %llu", flags);
    size_t n = 2 * g / 4;
    CHECK(cuMemsetD32_v2(va, 41, n));
    void *params[] = {&va, &n};
    unsigned nn = (unsigned)n;
    params[1] = &nn;
    CHECK(cuLaunchKernel(inc, (nn + 255) / 256, 1, 1, 256, 1, 1, 0, 0, params, 0));
    CHECK(cuCtxSynchronize());
    unsigned first = 0, alias = 0;
    CHECK(cuMemcpyDtoH_v2(&first, va + 4, 4));
    CHECK(cuMemcpyDtoH_v2(&alias, va + 2 * g + 8, 4));  /* = element 2, through the second view */
    EXPECT(first == 42 && alias == 42, "through the kernel %u, through the second view %u", first, alias);
    CHECK(cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)(va + 2 * g + 16)));
    EXPECT(h2 == h, "retained handle");
    CHECK(cuMemRelease(h2));
    CUmemAllocationProp back;
    memset(&back, 0xff, sizeof back);
    CHECK(cuMemGetAllocationPropertiesFromHandle(&back, h));
    EXPECT(back.type == 1 && back.location.type == 1 && back.location.id == dev && back.requestedHandleTypes == 0, "properties");
    unsigned type = 0;
    CHECK(cuPointerGetAttribute(&type, 2, va + 64));
    EXPECT(type == 2, "mapped memory is device memory: %u", type);
    /* misuse, each answered with an error code: printed and compared with NVIDIA's */
    CUmemGenericAllocationHandle hx;
    CUdeviceptr vx;
    int e1 = cuMemCreate(&hx, g + 1, &prop, 0);       /* size not a multiple of the granularity */
    int e2 = cuMemMap(va, g, 0, h, 0);                /* part of the allocation (and mapped already) */
    int e3 = cuMemAddressFree(va, 6 * g);             /* still mapped */
    int e4 = cuMemUnmap(va, g);                       /* part of a mapping */
    int e5 = cuMemMap(va + 4 * g, g, g, h, 0);        /* at an offset into the allocation */
    int e6 = cuMemAddressReserve(&vx, g + 1, 0, 0, 0); /* size not a multiple */
    int e7 = cuMemRelease(0);                         /* no handle */
    int e8 = cuMemSetAccess(va + 4 * g, g, &access, 1); /* not mapped */
    int e9 = cuMemMap(va + 4 * g, 4 * g, 0, h, 0);      /* more than the allocation */
    int e10 = cuMemUnmap(va, 4 * g);                    /* both mappings at once */
    if (e10) {
        CHECK(cuMemUnmap(va, 2 * g));
        CHECK(cuMemUnmap(va + 2 * g, 2 * g));
    }
    printf("errors: %d %d %d %d %d %d %d %d %d %d\n", e1, e2, e3, e4, e5, e6, e7, e8, e9, e10);
    CHECK(cuMemRelease(h));
    CHECK(cuMemAddressFree(va, 6 * g));

    /* --- stream-ordered allocator --- */
    CUstream s;
    CHECK(cuStreamCreate(&s, 1));
    CUmemoryPool def, cur, mine;
    CHECK(cuDeviceGetDefaultMemPool(&def, dev));
    CHECK(cuDeviceGetMemPool(&cur, dev));
    EXPECT(def == cur && def != 0, "default pool is current");
    unsigned *host;
    CHECK(cuMemHostAlloc((void **)&host, 4096, 0));
    CUdeviceptr a;
    CHECK(cuMemAllocAsync(&a, 4000, s));
    CHECK(cuMemsetD32Async(a, 7, 1000, s));
    CHECK(cuMemcpyDtoHAsync_v2(host, a, 4000, s));
    CUmemoryPool owner = 0;
    CHECK(cuPointerGetAttribute(&owner, 17, a));
    EXPECT(owner == def, "MEMPOOL_HANDLE attribute");
    unsigned long long used = 0, reserved = 0, high = 0;
    CHECK(cuMemPoolGetAttribute(def, 7, &used));
    EXPECT(used >= 4000, "used %llu", used);
    CHECK(cuMemFreeAsync(a, s));
    CHECK(cuStreamSynchronize(s));
    EXPECT(host[0] == 7 && host[999] == 7, "async allocation written %u %u", host[0], host[999]);
    CHECK(cuMemPoolGetAttribute(def, 7, &used));
    CHECK(cuMemPoolGetAttribute(def, 5, &reserved));
    CHECK(cuMemPoolGetAttribute(def, 8, &high));
    EXPECT(used == 0 && high >= 4000, "after free: used %llu, high %llu", used, high);
    int reserved_released = reserved == 0;
    unsigned long long keep = ~0ull;
    CHECK(cuMemPoolSetAttribute(def, 4, &keep));
    CUdeviceptr b, c;
    CHECK(cuMemAllocAsync(&b, 1 << 20, s));
    CHECK(cuMemFreeAsync(b, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuMemPoolGetAttribute(def, 5, &reserved));
    int kept = reserved >= (1 << 20);
    CHECK(cuMemAllocAsync(&c, 1 << 20, s));
    int reused = c == b;
    CHECK(cuMemFreeAsync(c, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuMemPoolTrimTo(def, 0));
    CHECK(cuMemPoolGetAttribute(def, 5, &reserved));
    int trimmed = reserved == 0;
    int follow = -1;
    CHECK(cuMemPoolGetAttribute(def, 1, &follow));
    CUmemPoolProps pp;
    memset(&pp, 0, sizeof pp);
    pp.allocType = 1;
    pp.location.type = 1;
    pp.location.id = dev;
    CHECK(cuMemPoolCreate(&mine, &pp));
    CHECK(cuMemAllocFromPoolAsync(&a, 256, mine, s));
    CHECK(cuPointerGetAttribute(&owner, 17, a));
    EXPECT(owner == mine, "allocation from my pool");
    CHECK(cuMemFreeAsync(a, s));
    int access_flags = -1;
    CHECK(cuMemPoolGetAccess(&access_flags, mine, &here));
    CHECK(cuDeviceSetMemPool(dev, mine));
    CHECK(cuDeviceGetMemPool(&cur, dev));
    EXPECT(cur == mine, "current pool set");
    CHECK(cuMemAllocAsync(&a, 64, s));
    CHECK(cuPointerGetAttribute(&owner, 17, a));
    EXPECT(owner == mine, "cuMemAllocAsync from the current pool");
    CHECK(cuMemFree_v2(a));  /* cuMemFree of an async allocation */
    CHECK(cuDeviceSetMemPool(dev, def));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuMemPoolDestroy(mine));
    printf("pool: released %d kept %d reused %d trimmed %d follow %d access %d\n", reserved_released, kept, reused, trimmed,
           follow, access_flags);
    CUdeviceptr plain, z;
    CHECK(cuMemAlloc_v2(&plain, 256));
    unsigned long long five = 5;
    int p1 = cuMemFreeAsync(plain, s);             /* not from a pool: freed in stream order all the same */
    int p2 = cuMemPoolDestroy(def);                /* the default pool */
    z = 1;
    int p3 = cuMemAllocAsync(&z, 0, s);            /* zero bytes: success */
    int p4 = cuMemPoolSetAttribute(def, 8, &five); /* high-water mark set to non-zero */
    int p5 = cuMemPoolGetAttribute(def, 99, &five); /* no such attribute */
    CHECK(cuStreamSynchronize(s));
    int p6 = cuMemFree_v2(plain);                  /* freed already */
    printf("pool errors: %d %d %d %d %d %d\n", p1, p2, p3, p4, p5, p6);
    if (bad) return 1;
    printf("PASS: virtual memory and pools\n");
    return 0;
}
