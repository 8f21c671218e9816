/* ZLUDA-J integration test: modules and libraries from files, parameter layout queries, PCI lookup, deprecated
 * configuration calls, profiler control, peer access answers, 3-D peer copies, the CUDA 8 memory advice, context
 * events and ids, error log management (cuLogs*), and the JIT linker (cuLinkCreate/AddData/Complete) with two PTX inputs, one calling into the other.
 * The same program runs on NVIDIA's driver; its "errors:" line is compared with NVIDIA's answers.
 * Build: gcc -o driver_modules driver_modules.c -L<dist>/lib -lcuda. Prints PASS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUlinkState_st *CUlinkState;
typedef unsigned long long CUdeviceptr;
typedef struct {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    CUcontext srcContext;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    CUcontext dstContext;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D_PEER;

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice dev);
CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *id);
CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *w, int format, unsigned channels, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxSynchronize(void);
CUresult cuCtxGetSharedMemConfig(int *config);
CUresult cuCtxSetSharedMemConfig(int config);
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned flags);
CUresult cuCtxDisablePeerAccess(CUcontext peer);
CUresult cuProfilerStart(void);
CUresult cuProfilerStop(void);
CUresult cuModuleLoad(CUmodule *m, const char *fname);
CUresult cuModuleLoadFatBinary(CUmodule *m, const void *image);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuModuleUnload(CUmodule m);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size);
CUresult cuFuncSetSharedMemConfig(CUfunction f, int config);
CUresult cuLibraryLoadFromFile(CUlibrary *lib, const char *file, void *jo, void **jv, unsigned nj, void *lo, void **lv, unsigned nl);
CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name);
CUresult cuKernelGetParamInfo(CUkernel k, size_t index, size_t *offset, size_t *size);
CUresult cuLibraryUnload(CUlibrary lib);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *s, void **params, void **extra);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned flags);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *p);
CUresult cuMemAdvise(CUdeviceptr p, size_t n, int advice, CUdevice dev);
CUresult cuLinkCreate_v2(unsigned n, int *options, void **values, CUlinkState *state);
CUresult cuLinkAddData_v2(CUlinkState state, int type, void *data, size_t size, const char *name, unsigned n, int *options, void **values);
CUresult cuLinkComplete(CUlinkState state, void **cubin, size_t *size);
CUresult cuLinkDestroy(CUlinkState state);
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
CUresult cuCtxGetId(CUcontext ctx, unsigned long long *id);
CUresult cuCtxRecordEvent(CUcontext ctx, CUevent e);
CUresult cuCtxWaitEvent(CUcontext ctx, CUevent e);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuEventCreate(CUevent *e, unsigned flags);
CUresult cuEventSynchronize(CUevent e);
CUresult cuEventQuery(CUevent e);
CUresult cuStreamCreate(CUstream *s, unsigned flags);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s);
CUresult cuMemHostRegister(void *p, size_t n, unsigned flags);
CUresult cuMemHostUnregister(void *p);
typedef void (*CUlogsCallback)(void *data, int level, char *message, size_t length);
CUresult cuLogsRegisterCallback(CUlogsCallback fn, void *data, void **handle);
CUresult cuLogsUnregisterCallback(void *handle);
CUresult cuLogsCurrent(unsigned *iterator, unsigned flags);
CUresult cuLogsDumpToMemory(unsigned *iterator, char *buffer, size_t *size, unsigned flags);

static int bad;
static int logged;
static char lastLog[1024];
static void onLog(void *data, int level, char *message, size_t length) {
    (void)level;
    logged += data == (void *)&logged;
    snprintf(lastLog, sizeof lastLog, "%.*s", (int)length, message);
}
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)

/* parameters u8, u64, f32, a 12-byte aligned-4 array, u16: C layout offsets 0, 8, 16, 20, 32 */
static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry k(.param .u8 a, .param .u64 b, .param .f32 c, .param .align 4 .b8 d[12], .param .u16 e) {\n"
    "  .reg .u64 %rd<2>; .reg .u32 %r<2>;\n"
    "  ld.param.u64 %rd1, [b]; ld.param.u16 %r1, [e]; st.global.u32 [%rd1], %r1; ret;\n}\n";

/* the linker's inputs: one calls a function the other defines */
static const char *ptx_caller =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".extern .func (.param .u32 r) triple(.param .u32 x);\n"
    ".visible .entry run(.param .u64 out) {\n"
    "  .reg .u64 %rd<3>; .reg .u32 %r<4>;\n"
    "  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;\n"
    "  { .param .u32 x; .param .u32 r; st.param.u32 [x], %r1; call (r), triple, (x); ld.param.u32 %r2, [r]; }\n"
    "  mul.wide.u32 %rd2, %r1, 4; add.u64 %rd2, %rd1, %rd2; st.global.u32 [%rd2], %r2; ret;\n}\n";
static const char *ptx_callee =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .func (.param .u32 r) triple(.param .u32 x) {\n"
    "  .reg .u32 %r<3>; ld.param.u32 %r1, [x]; mul.lo.u32 %r2, %r1, 3; add.u32 %r2, %r2, 1; st.param.u32 [r], %r2; ret;\n}\n";

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CUresult e[12];

    /* modules and libraries from a file */
    char path[] = "/tmp/zluda-driver-modules-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, ptx, strlen(ptx)) != (ssize_t)strlen(ptx)) { printf("FAIL temp file\n"); return 1; }
    close(fd);
    CUmodule m, fm;
    CHECK(cuModuleLoad(&m, path));
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, m, "k"));
    size_t want[5][2] = {{0, 1}, {8, 8}, {16, 4}, {20, 12}, {32, 2}};
    for (int i = 0; i < 5; i++) {
        size_t off = 99, size = 99;
        CHECK(cuFuncGetParamInfo(f, i, &off, &size));
        EXPECT(off == want[i][0] && size == want[i][1], "parameter %d: offset %zu size %zu", i, off, size);
    }
    size_t off, size;
    e[0] = cuFuncGetParamInfo(f, 5, &off, &size);                 /* past the last parameter */
    e[1] = cuModuleLoad(&fm, "/no/such/file.ptx");                  /* a missing file */
    CHECK(cuModuleLoadFatBinary(&fm, ptx));                          /* PTX text is taken too */
    CHECK(cuModuleUnload(fm));
    CUlibrary lib;
    CHECK(cuLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0));
    CUkernel kk;
    CHECK(cuLibraryGetKernel(&kk, lib, "k"));
    CHECK(cuKernelGetParamInfo(kk, 3, &off, &size));
    EXPECT(off == 20 && size == 12, "kernel parameter 3: offset %zu size %zu", off, size);
    CHECK(cuLibraryUnload(lib));
    unlink(path);

    /* deprecated configuration and profiler control */
    int config = -1;
    CHECK(cuCtxGetSharedMemConfig(&config));
    CHECK(cuCtxSetSharedMemConfig(2));
    CHECK(cuFuncSetSharedMemConfig(f, 1));
    e[2] = cuCtxSetSharedMemConfig(7);
    CHECK(cuProfilerStart());
    CHECK(cuProfilerStop());
    EXPECT(config == 1, "shared memory config %d", config);

    /* PCI bus id round trip; 1-D linear texture width */
    char id[64];
    CHECK(cuDeviceGetPCIBusId(id, sizeof id, dev));
    CUdevice again = -1;
    CHECK(cuDeviceGetByPCIBusId(&again, id));
    EXPECT(again == dev, "device %d by PCI id %s", again, id);
    e[3] = cuDeviceGetByPCIBusId(&again, "0000:ff:1f.0");
    e[4] = cuDeviceGetByPCIBusId(&again, "not an id");
    size_t width = 0;
    CHECK(cuDeviceGetTexture1DLinearMaxWidth(&width, 0x20, 1, dev));
    EXPECT(width >= (1u << 27), "1-D linear texture width %zu", width);

    /* peer access: to a context of the same device */
    CUcontext other;
    CHECK(cuCtxCreate_v2(&other, 0, dev));
    e[5] = cuCtxEnablePeerAccess(ctx, 0);
    e[6] = cuCtxDisablePeerAccess(ctx);

    /* a 3-D peer copy between two contexts of the device: 4 rows of 16 bytes, from pitch 32 to pitch 16 */
    CUdeviceptr src, dst;
    CHECK(cuMemAlloc_v2(&src, 128));
    CHECK(cuMemAlloc_v2(&dst, 64));
    unsigned char h[128], back[64];
    for (int i = 0; i < 128; i++) h[i] = (unsigned char)i;
    CHECK(cuMemcpyHtoD_v2(src, h, 128));
    CUDA_MEMCPY3D_PEER p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = 2; /* DEVICE */
    p.srcDevice = src;
    p.srcContext = ctx;
    p.srcPitch = 32;
    p.srcHeight = 4;
    p.dstMemoryType = 2;
    p.dstDevice = dst;
    p.dstContext = other;
    p.dstPitch = 16;
    p.dstHeight = 4;
    p.WidthInBytes = 16;
    p.Height = 4;
    p.Depth = 1;
    CHECK(cuMemcpy3DPeer(&p));
    CHECK(cuMemcpyDtoH_v2(back, dst, 64));
    for (int r = 0; r < 4; r++) for (int c = 0; c < 16; c++) EXPECT(back[r * 16 + c] == h[r * 32 + c], "peer copy byte %d,%d", r, c);

    /* CUDA 8 memory advice on managed memory; on device memory */
    CUdeviceptr managed;
    CHECK(cuMemAllocManaged(&managed, 4096, 1));
    CHECK(cuMemAdvise(managed, 4096, 1 /* SET_READ_MOSTLY */, dev));
    CHECK(cuMemAdvise(managed, 4096, 3 /* SET_PREFERRED_LOCATION */, -1 /* CPU */));
    e[7] = cuMemAdvise(src, 64, 1, dev);

    /* the JIT linker: two PTX inputs, one calling into the other, linked into one image */
    CUlinkState link;
    static char linkLog[4096];
    int linkOptions[] = {5 /* CU_JIT_ERROR_LOG_BUFFER */, 6 /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */};
    void *linkValues[] = {linkLog, (void *)(uintptr_t)sizeof linkLog};
    CHECK(cuLinkCreate_v2(2, linkOptions, linkValues, &link));
    CHECK(cuLinkAddData_v2(link, 1 /* CU_JIT_INPUT_PTX */, (void *)ptx_caller, strlen(ptx_caller) + 1, "caller.ptx", 0, NULL, NULL));
    CHECK(cuLinkAddData_v2(link, 1, (void *)ptx_callee, strlen(ptx_callee) + 1, "callee.ptx", 0, NULL, NULL));
    void *image = NULL;
    size_t imageSize = 0;
    CUresult linked_r = cuLinkComplete(link, &image, &imageSize);
    if (linked_r) {  /* print what NVIDIA's linker says before giving up */
        printf("FAIL cuLinkComplete = %d: %s\n", linked_r, linkLog);
        return 1;
    }
    EXPECT(image != NULL && imageSize > 0, "linked image %p of %zu bytes", image, imageSize);
    CUmodule linked;
    CHECK(cuModuleLoadData(&linked, image));
    CHECK(cuLinkDestroy(link));
    CUfunction run;
    CHECK(cuModuleGetFunction(&run, linked, "run"));
    CUdeviceptr out;
    CHECK(cuMemAlloc_v2(&out, 32 * 4));
    void *params[] = {&out};
    CHECK(cuLaunchKernel(run, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    unsigned got[32];
    CHECK(cuMemcpyDtoH_v2(got, out, sizeof got));
    for (int i = 0; i < 32; i++) EXPECT(got[i] == 3u * i + 1, "linked call %d: %u", i, got[i]);
    CUlinkState second;
    CHECK(cuLinkCreate_v2(0, NULL, NULL, &second));
    e[8] = cuLinkAddData_v2(second, 0 /* CU_JIT_INPUT_CUBIN */, (void *)"\x7f" "ELF", 4, "bad.cubin", 0, NULL, NULL);
    CHECK(cuLinkDestroy(second));
    CHECK(cuLinkCreate_v2(0, NULL, NULL, &second));
    e[9] = cuLinkComplete(second, &image, &imageSize);                 /* nothing added */
    CHECK(cuLinkDestroy(second));

    /* context ids; an event recorded after all of a context's work, which its streams then wait for */
    unsigned long long id1 = 0, id2 = 0;
    CHECK(cuCtxGetId(ctx, &id1));
    CHECK(cuCtxGetId(other, &id2));
    EXPECT(id1 != 0 && id2 != 0 && id1 != id2, "context ids %llu %llu", id1, id2);
    CHECK(cuCtxSetCurrent(ctx));
    CUstream s1, s2;
    CHECK(cuStreamCreate(&s1, 1));
    CHECK(cuStreamCreate(&s2, 1));
    CHECK(cuMemsetD32Async(dst, 0x11111111u, 8, s1));
    CHECK(cuMemsetD32Async(dst + 32, 0x22222222u, 8, s2));
    CUevent ce;
    CHECK(cuEventCreate(&ce, 0));
    CHECK(cuCtxRecordEvent(ctx, ce));
    CHECK(cuEventSynchronize(ce));
    unsigned words[16];
    CHECK(cuMemcpyDtoH_v2(words, dst, 64));
    EXPECT(words[0] == 0x11111111u && words[15] == 0x22222222u && cuEventQuery(ce) == 0, "context event after both streams");
    CHECK(cuCtxWaitEvent(ctx, ce));
    /* the first cuMemHostRegister */
    static char pageAligned[8192] __attribute__((aligned(4096)));
    CHECK(cuMemHostRegister(pageAligned, 4096, 0));
    CHECK(cuMemHostUnregister(pageAligned));

    /* error log management: a failing call's message reaches a callback and the dump */
    void *cbh = NULL;
    unsigned it = 0;
    CHECK(cuLogsRegisterCallback(onLog, &logged, &cbh));
    CHECK(cuLogsCurrent(&it, 0));
    CUdeviceptr none;
    CUresult failing = cuMemAlloc_v2(&none, 0);
    static char dump[30000];
    size_t dumpSize = sizeof dump;
    CHECK(cuLogsDumpToMemory(&it, dump, &dumpSize, 0));
    /* NVIDIA (H200): two messages per failure, why and "Returning 1 (CUDA_ERROR_INVALID_VALUE) from cuMemAlloc_v2" */
    EXPECT(failing == 1 && logged == 2 && strstr(lastLog, "Returning 1 (CUDA_ERROR_INVALID_VALUE) from cuMemAlloc") == lastLog,
           "callback: %d messages, last: %s", logged, lastLog);
    EXPECT(dumpSize > 0 && dumpSize == strlen(dump) && strstr(dump, "cuMemAlloc") != NULL, "dump of %zu bytes: %s", dumpSize, dump);
    size_t small = sizeof dump;
    CUresult noBuffer = cuLogsDumpToMemory(NULL, NULL, &small, 0);
    CHECK(cuLogsUnregisterCallback(cbh));
    int before = logged;
    cuMemAlloc_v2(&none, 0);
    EXPECT(logged == before, "no callback after unregistering");
    printf("logs: %d\n", noBuffer);  /* (unregistering twice crashes NVIDIA's driver) */

    printf("errors: %d %d %d %d %d %d %d %d %d %d\n", e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7], e[8], e[9]);
    CHECK(cuModuleUnload(linked));
    CHECK(cuModuleUnload(m));
    if (bad) { printf("FAIL: %d\n", bad); return 1; }
    printf("PASS: modules, libraries and linking\n");
    return 0;
}
