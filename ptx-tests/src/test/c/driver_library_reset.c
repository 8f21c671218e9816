/* ZLUDA-J integration test: a cuLibrary's kernel after a kernel fault and the primary context's reset. A library
 * outlives contexts; on the cuda backend its kernels were loaded into NVIDIA's context, which the fault destroyed:
 * launching one must fail (CUDA_ERROR_CONTEXT_IS_DESTROYED, 709, as NVIDIA's driver answers work after a fault; on
 * ZLUDA-J the queued launch's failure, reported by the next synchronization), never hand NVIDIA's driver a function
 * of the destroyed context (which crashed inside its cuLaunchKernel). A module loaded after the reset runs. Checked on the cuda backend over the fake NVIDIA driver (CudaBackendFakeTest).
 * Build: gcc -o driver_library_reset driver_library_reset.c -L<dist>/lib -lcuda. */
#include <stdio.h>

typedef int CUresult;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned);
CUresult cuDeviceGet(int *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuDevicePrimaryCtxReset_v2(int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxSynchronize(void);
CUresult cuLibraryLoadData(CUlibrary *, const void *, void *, void *, unsigned, void *, void *, unsigned);
CUresult cuLibraryGetKernel(CUkernel *, CUlibrary, const char *);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);

static const char *ptx =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry fault() { trap; }\n"
    ".visible .entry store(.param .u64 p) { .reg .u64 %a; ld.param.u64 %a, [p]; st.global.u32 [%a], 7; ret; }\n";

int main(void) {
    int dev;
    CUcontext ctx;
    CUlibrary lib;
    CUkernel fault, store;
    CUmodule mod;
    CUfunction fresh;
    CUdeviceptr buf;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)
        || cuLibraryLoadData(&lib, ptx, 0, 0, 0, 0, 0, 0) || cuLibraryGetKernel(&fault, lib, "fault")
        || cuLibraryGetKernel(&store, lib, "store") || cuMemAlloc_v2(&buf, 64)) { printf("FAIL: setup\n"); return 1; }
    void *args[] = {&buf};
    int before = cuLaunchKernel((CUfunction)store, 1, 1, 1, 1, 1, 1, 0, 0, args, 0);
    int launched = cuLaunchKernel((CUfunction)fault, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0);
    int synchronized = cuCtxSynchronize();
    int reset = cuDevicePrimaryCtxReset_v2(dev);
    if (cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx) || cuMemAlloc_v2(&buf, 64)) { printf("FAIL: after the reset\n"); return 1; }
    int stale = cuLaunchKernel((CUfunction)store, 1, 1, 1, 1, 1, 1, 0, 0, args, 0);
    int loaded = cuModuleLoadData(&mod, ptx) || cuModuleGetFunction(&fresh, mod, "store");
    int ran = loaded ? -1 : cuLaunchKernel(fresh, 1, 1, 1, 1, 1, 1, 0, 0, args, 0);
    int done = cuCtxSynchronize();
    printf("before: %d, fault: %d %d, reset: %d, stale kernel: %d, new module: %d %d %d\n", before, launched, synchronized, reset,
           stale, loaded, ran, done);
    printf("done\n");
    return 0;
}
