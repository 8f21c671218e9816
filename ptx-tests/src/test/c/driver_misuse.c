/* ZLUDA-J misuse suite: driver calls made wrongly, one line "GROUP CASE: CUresult" each. Run with one group name;
 * groups that follow destroyed handles run alone, so that a driver which crashes on one does not hide the others.
 * driver_misuse.expected holds what NVIDIA's driver answered (recorded on an H200 with driver 580); the test
 * compares ours with it line by line.
 * Build: gcc -o driver_misuse driver_misuse.c -L<dist>/lib -lcuda. Usage: driver_misuse GROUP. */
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *v);
CUresult cuDeviceGetCount(int *n);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDeviceGetAttribute(int *v, int attrib, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxDestroy_v2(CUcontext ctx);
CUresult cuCtxGetCurrent(CUcontext *ctx);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxPushCurrent_v2(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuCtxSetLimit(int limit, size_t value);
CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned *v);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemGetInfo_v2(size_t *free, size_t *total);
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuModuleUnload(CUmodule m);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *bytes, CUmodule m, const char *name);
CUresult cuFuncGetAttribute(int *v, int attrib, CUfunction f);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void **params, void **extra);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamDestroy_v2(CUstream s);
CUresult cuStreamQuery(CUstream s);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuEventCreate(CUevent *e, unsigned int flags);
CUresult cuEventDestroy_v2(CUevent e);
CUresult cuEventQuery(CUevent e);
CUresult cuEventRecord(CUevent e, CUstream s);
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b);
CUresult cuGetErrorName(CUresult r, const char **s);

static const char *group;
#define SAY(name, call) do { printf("%s %s: %d\n", group, name, (int)(call)); fflush(stdout); } while (0)

static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .global .u32 counter;\n"
    ".visible .entry k(.param .u64 p) { ret; }\n";

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    group = argv[1];
    CUdevice dev = 0;
    CUcontext ctx = 0;
    CUmodule m = 0;
    CUfunction f = 0;
    CUdeviceptr p = 0;
    if (!strcmp(group, "before-init")) {
        int v, n;
        SAY("cuDriverGetVersion", cuDriverGetVersion(&v));
        SAY("cuDeviceGetCount", cuDeviceGetCount(&n));
        SAY("cuDeviceGet", cuDeviceGet(&dev, 0));
        SAY("cuCtxGetCurrent", cuCtxGetCurrent(&ctx));
        SAY("cuMemAlloc", cuMemAlloc_v2(&p, 16));
        SAY("cuModuleLoadData", cuModuleLoadData(&m, ptx));
        SAY("cuInit bad flags", cuInit(1));
        return 0;
    }
    if (cuInit(0)) return 3;
    if (!strcmp(group, "no-context")) {
        SAY("cuMemAlloc", cuMemAlloc_v2(&p, 16));
        SAY("cuCtxSynchronize", cuCtxSynchronize());
        SAY("cuModuleLoadData", cuModuleLoadData(&m, ptx));
        SAY("cuDeviceGet 99", cuDeviceGet(&dev, 99));
        SAY("cuDeviceGet -1", cuDeviceGet(&dev, -1));
        SAY("cuDeviceGet NULL", cuDeviceGet(NULL, 0));
        int v;
        SAY("cuDeviceGetAttribute 9999", cuDeviceGetAttribute(&v, 9999, 0));
        SAY("cuDeviceGetAttribute NULL", cuDeviceGetAttribute(NULL, 1, 0));
        SAY("cuDeviceGetAttribute device 99", cuDeviceGetAttribute(&v, 1, 99));
        SAY("cuCtxCreate device 99", cuCtxCreate_v2(&ctx, 0, 99));
        SAY("cuCtxGetCurrent NULL", cuCtxGetCurrent(NULL));
        const char *s;
        SAY("cuGetErrorName 9999", cuGetErrorName(9999, &s));
        return 0;
    }
    if (cuDeviceGet(&dev, 0) || cuCtxCreate_v2(&ctx, 0, dev)) return 4;
    if (cuModuleLoadData(&m, ptx) || cuModuleGetFunction(&f, m, "k")) return 5;
    void *params[] = {&p};
    if (!strcmp(group, "arguments")) {
        size_t a, b;
        int v;
        SAY("cuMemAlloc 0 bytes", cuMemAlloc_v2(&p, 0));
        SAY("cuMemAlloc NULL", cuMemAlloc_v2(NULL, 16));
        SAY("cuMemFree unknown", cuMemFree_v2(0x1234));
        SAY("cuMemGetInfo NULL", cuMemGetInfo_v2(NULL, NULL));
        SAY("cuMemGetInfo", cuMemGetInfo_v2(&a, &b));
        SAY("cuMemsetD8 NULL", cuMemsetD8_v2(0, 0, 16));
        CUmodule bad;
        SAY("cuModuleLoadData garbage", cuModuleLoadData(&bad, "this is not PTX"));
        SAY("cuModuleLoadData bad PTX", cuModuleLoadData(&bad, ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry x() { frobnicate.u32 %r1; }\n"));
        SAY("cuModuleLoadData NULL", cuModuleLoadData(&bad, NULL));
        CUfunction g;
        SAY("cuModuleGetFunction missing", cuModuleGetFunction(&g, m, "nope"));
        SAY("cuModuleGetFunction NULL name", cuModuleGetFunction(&g, m, NULL));
        SAY("cuModuleGetGlobal missing", cuModuleGetGlobal_v2(&p, &a, m, "nope"));
        SAY("cuModuleGetGlobal", cuModuleGetGlobal_v2(&p, &a, m, "counter"));
        SAY("cuLaunchKernel 2048 threads", cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, 0, params, 0));
        SAY("cuLaunchKernel block z 65", cuLaunchKernel(f, 1, 1, 1, 1, 1, 65, 0, 0, params, 0));
        SAY("cuLaunchKernel empty block", cuLaunchKernel(f, 1, 1, 1, 0, 1, 1, 0, 0, params, 0));
        SAY("cuLaunchKernel empty grid", cuLaunchKernel(f, 0, 1, 1, 32, 1, 1, 0, 0, params, 0));
        SAY("cuLaunchKernel grid y 65536", cuLaunchKernel(f, 1, 65536, 1, 32, 1, 1, 0, 0, params, 0));
        SAY("cuLaunchKernel 1 MiB shared", cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 1 << 20, 0, params, 0));
        SAY("cuLaunchKernel NULL function", cuLaunchKernel(NULL, 1, 1, 1, 32, 1, 1, 0, 0, params, 0));
        SAY("cuLaunchKernel", cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params, 0));
        SAY("cuFuncGetAttribute 9999", cuFuncGetAttribute(&v, 9999, f));
        SAY("cuFuncGetAttribute NULL", cuFuncGetAttribute(NULL, 0, f));
        CUstream s;
        CUevent e1, e2;
        float ms;
        SAY("cuStreamCreate bad flags", cuStreamCreate(&s, 99));
        SAY("cuEventCreate bad flags", cuEventCreate(&e1, 99));
        SAY("cuEventCreate", cuEventCreate(&e1, 0));
        SAY("cuEventCreate", cuEventCreate(&e2, 0));
        SAY("cuEventElapsedTime unrecorded", cuEventElapsedTime(&ms, e1, e2));
        SAY("cuEventQuery unrecorded", cuEventQuery(e1));
        SAY("cuCtxSetLimit 999", cuCtxSetLimit(999, 0));
        SAY("cuCtxSynchronize", cuCtxSynchronize());
        return 0;
    }
    /* NVIDIA's driver crashes (SIGSEGV) on these; ZLUDA-J answers with an error code */
    if (!strcmp(group, "nvidia-crashes")) {
        char name[64];
        CUstream s;
        CUevent e;
        SAY("cuDeviceGetName len 0", cuDeviceGetName(name, 0, 0));
        if (cuStreamCreate(&s, 0) || cuStreamDestroy_v2(s)) return 6;
        SAY("cuStreamQuery destroyed", cuStreamQuery(s));
        if (cuEventCreate(&e, 0) || cuEventDestroy_v2(e)) return 6;
        SAY("cuEventQuery destroyed", cuEventQuery(e));
        return 0;
    }
    if (!strcmp(group, "destroyed-stream")) {
        CUstream s;
        if (cuStreamCreate(&s, 0) || cuStreamDestroy_v2(s)) return 6;
        SAY("cuStreamQuery", cuStreamQuery(s));
        return 0;
    }
    if (!strcmp(group, "destroyed-event")) {
        CUevent e;
        if (cuEventCreate(&e, 0) || cuEventDestroy_v2(e)) return 6;
        SAY("cuEventQuery", cuEventQuery(e));
        return 0;
    }
    if (!strcmp(group, "unloaded-module")) {
        CUfunction g;
        if (cuModuleUnload(m)) return 6;
        SAY("cuModuleGetFunction", cuModuleGetFunction(&g, m, "k"));
        return 0;
    }
    if (!strcmp(group, "destroyed-context")) {
        unsigned v;
        if (cuCtxDestroy_v2(ctx)) return 6;
        SAY("cuCtxGetCurrent", cuCtxGetCurrent(&ctx));
        SAY("current is NULL", ctx == 0 ? 0 : 1);
        SAY("cuMemAlloc", cuMemAlloc_v2(&p, 16));
        SAY("cuCtxGetApiVersion", cuCtxGetApiVersion(ctx, &v));
        return 0;
    }
    if (!strcmp(group, "destroyed-context-use")) {
        CUcontext old = ctx;
        if (cuCtxDestroy_v2(ctx)) return 6;
        SAY("cuCtxSetCurrent", cuCtxSetCurrent(old));
        SAY("cuMemAlloc", cuMemAlloc_v2(&p, 16));
        return 0;
    }
    if (!strcmp(group, "copy-null-host")) {
        if (cuMemAlloc_v2(&p, 16)) return 6;
        SAY("cuMemcpyHtoD NULL source", cuMemcpyHtoD_v2(p, NULL, 16));
        return 0;
    }
    return 2;
}
