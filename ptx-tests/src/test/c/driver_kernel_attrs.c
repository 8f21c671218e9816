/* ZLUDA-J integration test: function attributes (the dynamic shared memory opt-in llama.cpp uses, PTX_VERSION, static
 * shared size), cuLaunchKernelEx with a launch attribute, and the occupancy calculator, through the shim. The checks
 * hold on NVIDIA's driver too. Build: gcc -o driver_kernel_attrs driver_kernel_attrs.c -L<dist>/lib -lcuda. */
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef struct { unsigned id; unsigned pad; unsigned char value[64]; } CUlaunchAttribute;
typedef struct {
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned numAttrs;
} CUlaunchConfig;
CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream stream, void **kernelParams, void **extra);
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra);
CUresult cuFuncGetAttribute(int *pi, int attrib, CUfunction f);
CUresult cuFuncSetAttribute(CUfunction f, int attrib, int value);
CUresult cuCtxSynchronize(void);
CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction f, int blockSize, size_t dyn);
CUresult cuOccupancyMaxPotentialBlockSize(int *minGrid, int *blockSize, CUfunction f, size_t (*b2d)(int), size_t dyn, int limit);

/* dyn: every thread writes its index into 64 KiB of dynamic shared memory, then thread 0 sums one word per thread;
 * stat: 4 KiB of static shared memory */
static const char *ptx =
    ".version 7.8\n.target sm_75\n.address_size 64\n"
    ".extern .shared .align 4 .b8 big[];\n"
    ".visible .entry dyn(.param .u64 out)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<3>;\n"
    "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, big;\n\tshl.b32 %r3, %r1, 8;\n\tadd.u32 %r3, %r3, %r2;\n"
    "\tst.shared.u32 [%r3+252], %r1;\n\tbar.sync 0;\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra DONE;\n"
    "\tmov.u32 %r4, 0;\n\tmov.u32 %r5, 0;\nLOOP:\n\tshl.b32 %r6, %r4, 8;\n\tadd.u32 %r6, %r6, %r2;\n"
    "\tld.shared.u32 %r7, [%r6+252];\n\tadd.u32 %r5, %r5, %r7;\n\tadd.u32 %r4, %r4, 1;\n\tsetp.lt.u32 %p1, %r4, 256;\n"
    "\t@%p1 bra LOOP;\n\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tst.global.u32 [%rd1], %r5;\nDONE:\n\tret;\n}\n"
    ".visible .entry stat(.param .u64 out)\n{\n"
    "\t.shared .align 4 .b8 tile[4096];\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n"
    "\tmov.u32 %r1, tile;\n\tst.shared.u32 [%r1], 5;\n\tld.shared.u32 %r2, [%r1];\n"
    "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n";

static int bad;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)
#define EXPECT(c, ...) do { if (!(c)) { printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); bad++; } } while (0)
static size_t b2d(int block) { return (size_t)block * 16; }

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction dyn, stat;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&dyn, mod, "dyn"));
    CHECK(cuModuleGetFunction(&stat, mod, "stat"));
    CUdeviceptr out;
    CHECK(cuMemAlloc_v2(&out, 4));
    void *args[] = {&out};
    int v = -1;
    CHECK(cuFuncGetAttribute(&v, 8, dyn));   /* MAX_DYNAMIC_SHARED_SIZE_BYTES */
    EXPECT(v == 48 * 1024, "default dynamic shared limit %d", v);
    CHECK(cuFuncGetAttribute(&v, 5, dyn));   /* PTX_VERSION */
    EXPECT(v == 75, "PTX_VERSION %d", v);
    CHECK(cuFuncGetAttribute(&v, 1, stat));  /* SHARED_SIZE_BYTES */
    EXPECT(v == 4096, "static shared %d", v);
    CHECK(cuFuncGetAttribute(&v, 8, stat));
    EXPECT(v == 48 * 1024 - 4096, "stat's dynamic limit %d", v);
    CUresult e = cuLaunchKernel(dyn, 1, 1, 1, 256, 1, 1, 64 * 1024, 0, args, NULL);
    EXPECT(e == 1, "64 KiB without opting in: %d", e);
    EXPECT(cuFuncSetAttribute(dyn, 8, 1 << 20) == 1, "a limit beyond the device's is refused");
    CHECK(cuFuncSetAttribute(dyn, 8, 64 * 1024));
    CHECK(cuFuncGetAttribute(&v, 8, dyn));
    EXPECT(v == 64 * 1024, "raised limit %d", v);
    CHECK(cuLaunchKernel(dyn, 1, 1, 1, 256, 1, 1, 64 * 1024, 0, args, NULL));
    CHECK(cuCtxSynchronize());
    unsigned sum = 0;
    CHECK(cuMemcpyDtoH_v2(&sum, out, 4));
    EXPECT(sum == 255 * 256 / 2, "sum over 64 KiB of dynamic shared memory %u", sum);
    /* cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PRIORITY */
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = 8;
    CUlaunchConfig cfg = {1, 1, 1, 32, 1, 1, 0, 0, &attr, 1};
    CHECK(cuLaunchKernelEx(&cfg, stat, args, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH_v2(&sum, out, 4));
    EXPECT(sum == 5, "cuLaunchKernelEx result %u", sum);
    /* occupancy */
    int blocks = -1, minGrid = -1, block = -1;
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stat, 256, 0));
    EXPECT(blocks >= 1 && blocks <= 32, "active blocks %d", blocks);
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dyn, 1024, 64 * 1024));
    int threadsPerSm, sharedPerSm;
    CHECK(cuDeviceGetAttribute(&threadsPerSm, 39, dev));  /* MAX_THREADS_PER_MULTIPROCESSOR */
    CHECK(cuDeviceGetAttribute(&sharedPerSm, 81, dev));   /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
    int byThreads = threadsPerSm / 1024, byShared = sharedPerSm / (64 * 1024 + 1024);  /* 1 KiB reserved per block */
    EXPECT(blocks == (byThreads < byShared ? byThreads : byShared), "1024-thread blocks with 64 KiB: %d", blocks);
    CHECK(cuOccupancyMaxPotentialBlockSize(&minGrid, &block, stat, NULL, 0, 0));
    EXPECT(block >= 32 && block <= 1024 && block % 32 == 0 && minGrid >= 1, "potential block %d grid %d", block, minGrid);
    CHECK(cuOccupancyMaxPotentialBlockSize(&minGrid, &block, stat, b2d, 0, 128));
    EXPECT(block >= 32 && block <= 128 && minGrid >= 1, "limited potential block %d grid %d", block, minGrid);
    if (bad) return 1;
    printf("PASS: kernel attributes\n");
    return 0;
}
