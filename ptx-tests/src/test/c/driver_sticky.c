/* ZLUDA-J integration test: sticky errors. After a kernel traps, the context is unusable: the synchronization that
 * reports the fault and every later call that uses the context (memory, copies, launches, modules, streams, events)
 * answer CUDA_ERROR_LAUNCH_FAILED (719), while calls that only ask which context is current still answer; resetting
 * the primary context makes it usable again. The same program runs on NVIDIA's driver (tools/gpu-check), which
 * prints the same "results:" line there.
 * Build: gcc -o driver_sticky driver_sticky.c -L<dist>/lib -lcuda. Prints the results and PASS or FAIL. */
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned);
CUresult cuDeviceGet(int *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuDevicePrimaryCtxRelease_v2(int);
CUresult cuDevicePrimaryCtxReset_v2(int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxGetCurrent(CUcontext *);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemsetD8_v2(CUdeviceptr, unsigned char, size_t);
CUresult cuStreamSynchronize(CUstream);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuEventCreate(CUevent *, unsigned);

static const char *ptx =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry fault() { trap; }\n"
    ".visible .entry store(.param .u64 p) { .reg .u64 %a; ld.param.u64 %a, [p]; st.global.u32 [%a], 7; ret; }\n";

int main(void) {
    int dev;
    CUcontext ctx, cur;
    CUmodule mod, mod2;
    CUfunction fault, store;
    CUdeviceptr buf, other;
    CUstream stream;
    CUevent event;
    unsigned value = 0;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) { printf("FAIL: setup\n"); return 1; }
    if (cuModuleLoadData(&mod, ptx) || cuModuleGetFunction(&fault, mod, "fault") || cuModuleGetFunction(&store, mod, "store")
        || cuMemAlloc_v2(&buf, 64)) { printf("FAIL: setup\n"); return 1; }
    void *args[] = {&buf};
    int r[16], n = 0;
    r[n++] = cuLaunchKernel(fault, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0);  /* the launch itself is fine */
    r[n++] = cuCtxSynchronize();                                  /* reports the fault */
    r[n++] = cuCtxSynchronize();                                  /* and again: sticky */
    r[n++] = cuMemAlloc_v2(&other, 64);
    r[n++] = cuMemcpyDtoH_v2(&value, buf, 4);
    r[n++] = cuMemcpyHtoD_v2(buf, &value, 4);
    r[n++] = cuMemsetD8_v2(buf, 0, 4);
    r[n++] = cuLaunchKernel(store, 1, 1, 1, 1, 1, 1, 0, 0, args, 0);
    r[n++] = cuStreamSynchronize(0);
    r[n++] = cuStreamCreate(&stream, 0);
    r[n++] = cuEventCreate(&event, 0);
    r[n++] = cuModuleLoadData(&mod2, ptx);
    r[n++] = cuMemFree_v2(buf);
    r[n++] = cuCtxGetCurrent(&cur);                               /* only asks: answers */
    r[n++] = cuDevicePrimaryCtxReset_v2(dev);
    /* the reset unloads the context's modules: a function of one is an invalid handle (NVIDIA: 400, below), where the
     * cuda backend used to hand NVIDIA's driver a module of its destroyed context, which crashed in cuLaunchKernel */
    CUfunction stale;
    int staleModule = cuModuleGetFunction(&stale, mod, "store");
    /* after the reset: a new primary context, each step's answer (NVIDIA's driver refuses work here) */
    int step[8], k = 0;
    step[k++] = cuDevicePrimaryCtxRetain(&ctx, dev);
    step[k++] = cuCtxSetCurrent(ctx);
    step[k++] = cuMemAlloc_v2(&buf, 64);
    step[k++] = cuModuleLoadData(&mod, ptx);
    step[k++] = cuModuleGetFunction(&store, mod, "store");
    args[0] = &buf;
    step[k++] = step[4] ? -1 : cuLaunchKernel(store, 1, 1, 1, 1, 1, 1, 0, 0, args, 0);
    step[k++] = cuCtxSynchronize();
    step[k++] = cuMemcpyDtoH_v2(&value, buf, 4);
    int again = 0;
    for (int i = 0; i < k; i++) again |= step[i] != 0;
    printf("after the reset:");
    for (int i = 0; i < k; i++) printf(" %d", step[i]);
    printf("\n");
    r[n++] = again ? -1 : (int)value;
    printf("results:");
    for (int i = 0; i < n; i++) printf(" %d", r[i]);
    printf("\n");
    /* NVIDIA's answers (driver 580.159.04, H100) up to the reset. After it NVIDIA's driver keeps refusing the process
     * ("after the reset: 719 0 709 709 400 -1 709 709": the retain answers 719, the context is destroyed), where
     * ZLUDA-J gives a working context again: printed, not checked (an open difference, issue 19) */
    static const int want[] = {0, 719, 719, 719, 719, 719, 719, 719, 719, 719, 719, 719, 719, 0, 0};
    printf("a module of the reset context: %d\n", staleModule);
    int bad = n != 16 || memcmp(r, want, sizeof want) != 0 || staleModule != 400;
    printf(bad ? "FAIL: sticky errors\n" : "PASS: sticky errors\n");
    return bad;
}
