/* ZLUDA-J integration test: function identity (names, modules, enumeration, loading state), peer queries and
 * copies on one device, managed-memory hints, cache preferences, through the shim. Passes on NVIDIA's driver too.
 * Build: gcc -o driver_functions driver_functions.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef struct { int type; int id; } CUmemLocation;
CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule mod);
CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned int n, CUmodule mod);
CUresult cuFuncGetName(const char **name, CUfunction f);
CUresult cuFuncGetModule(CUmodule *mod, CUfunction f);
CUresult cuFuncLoad(CUfunction f);
CUresult cuFuncIsLoaded(int *state, CUfunction f);
CUresult cuFuncSetCacheConfig(CUfunction f, int config);
CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int v, size_t n);
CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemPrefetchAsync_v2(CUdeviceptr p, size_t n, CUmemLocation loc, unsigned int flags, CUstream s);
CUresult cuMemAdvise_v2(CUdeviceptr p, size_t n, int advice, CUmemLocation loc);
CUresult cuCtxResetPersistingL2Cache(void);
CUresult cuCtxSynchronize(void);
CUresult cuFuncGetAttribute(int *v, int attrib, CUfunction f);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void **params, void **extra);

static const char *ptx =
    ".version 7.8\n.target sm_75\n.address_size 64\n"
    ".func helper()\n{\n\tret;\n}\n"
    ".visible .entry first()\n{\n\tcall helper, ();\n\tret;\n}\n"
    ".visible .entry second()\n{\n\tret;\n}\n";

/* block-size directives: NVIDIA (H100, driver 580) reports .maxntid's product as MAX_THREADS_PER_BLOCK (.reqntid: the
 * device's 1024) and refuses other blocks with CUDA_ERROR_INVALID_VALUE */
static const char *bounds_ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry bounded(.param .u64 p)\n.maxntid 128, 1, 1\n.minnctapersm 2\n{\n\tret;\n}\n"
    ".visible .entry exact(.param .u64 p)\n.reqntid 64, 2, 1\n{\n\tret;\n}\n";

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod, owner;
    CUfunction f, all[2];
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&mod, ptx));
    unsigned count = 0;
    CHECK(cuModuleGetFunctionCount(&count, mod));
    EXPECT(count == 2, "kernels in the module: %u", count);
    CHECK(cuModuleEnumerateFunctions(all, 2, mod));
    const char *n0 = "", *n1 = "";
    CHECK(cuFuncGetName(&n0, all[0]));
    CHECK(cuFuncGetName(&n1, all[1]));
    EXPECT((!strcmp(n0, "first") && !strcmp(n1, "second")) || (!strcmp(n0, "second") && !strcmp(n1, "first")), "names %s %s", n0, n1);
    CHECK(cuModuleGetFunction(&f, mod, "second"));
    CHECK(cuFuncGetModule(&owner, f));
    EXPECT(owner == mod, "the function's module");
    CHECK(cuFuncLoad(f));
    int state = -1;
    CHECK(cuFuncIsLoaded(&state, f));
    EXPECT(state == 1, "loaded state %d", state);
    CHECK(cuFuncSetCacheConfig(f, 1));
    int can = -1;
    CHECK(cuDeviceCanAccessPeer(&can, dev, dev));
    EXPECT(can == 0, "a device is not its own peer: %d", can);
    CUdeviceptr a, b;
    CHECK(cuMemAlloc_v2(&a, 64));
    CHECK(cuMemAlloc_v2(&b, 64));
    CHECK(cuMemsetD32_v2(a, 0x1234, 16));
    CHECK(cuMemcpyPeer(b, ctx, a, ctx, 64));
    unsigned h[16];
    CHECK(cuMemcpyDtoH_v2(h, b, 64));
    EXPECT(h[0] == 0x1234 && h[15] == 0x1234, "peer copy %x", h[0]);
    CUdeviceptr m;
    CHECK(cuMemAllocManaged(&m, 1 << 16, 1));
    CUmemLocation loc = {1, 0};  /* CU_MEM_LOCATION_TYPE_DEVICE, device 0 */
    CHECK(cuMemAdvise_v2(m, 1 << 16, 1, loc));  /* CU_MEM_ADVISE_SET_READ_MOSTLY */
    CHECK(cuMemPrefetchAsync_v2(m, 1 << 16, loc, 0, 0));
    EXPECT(cuMemPrefetchAsync_v2(a, 64, loc, 0, 0) == 1, "prefetching device memory is CUDA_ERROR_INVALID_VALUE");
    CHECK(cuCtxResetPersistingL2Cache());
    CHECK(cuCtxSynchronize());
    if (bad) return 1;
    CUmodule bm;
    CUfunction bounded, exact;
    CHECK(cuModuleLoadData(&bm, bounds_ptx));
    CHECK(cuModuleGetFunction(&bounded, bm, "bounded"));
    CHECK(cuModuleGetFunction(&exact, bm, "exact"));
    int most = 0, most2 = 0;
    CHECK(cuFuncGetAttribute(&most, 0, bounded));
    CHECK(cuFuncGetAttribute(&most2, 0, exact));
    EXPECT(most == 128 && most2 == 1024, "MAX_THREADS_PER_BLOCK %d %d (NVIDIA: 128 1024)", most, most2);
    unsigned long long arg = 0;
    void *args[] = {&arg};
    unsigned shapes[][3] = {{128, 1, 1}, {129, 1, 1}, {64, 4, 1}, {256, 1, 1}}, rshapes[][3] = {{64, 2, 1}, {128, 1, 1}, {32, 2, 1}};
    int want[] = {0, 1, 1, 1}, rwant[] = {0, 1, 1};
    for (int i = 0; i < 4; i++) {
        CUresult r = cuLaunchKernel(bounded, 1, 1, 1, shapes[i][0], shapes[i][1], shapes[i][2], 0, 0, args, 0);
        EXPECT(r == want[i], ".maxntid 128 kernel, block %ux%ux%u: %d (NVIDIA: %d)", shapes[i][0], shapes[i][1], shapes[i][2], r, want[i]);
    }
    for (int i = 0; i < 3; i++) {
        CUresult r = cuLaunchKernel(exact, 1, 1, 1, rshapes[i][0], rshapes[i][1], rshapes[i][2], 0, 0, args, 0);
        EXPECT(r == rwant[i], ".reqntid 64,2 kernel, block %ux%ux%u: %d (NVIDIA: %d)", rshapes[i][0], rshapes[i][1], rshapes[i][2], r, rwant[i]);
    }
    CHECK(cuCtxSynchronize());
    if (bad) return 1;
    printf("PASS: functions\n");
    return 0;
}
