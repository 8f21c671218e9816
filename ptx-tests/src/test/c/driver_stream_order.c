/* ZLUDA-J integration test: CUDA's implicit synchronization between the legacy default stream and blocking streams
 * holds for kernels on the device, not only for synchronous copies, and asynchronous copies keep their stream's order.
 * A slow kernel (a single thread iterating `n` times before it stores) runs first; what follows it in CUDA's order
 * reads what it stored. Checked (CUDA Programming Guide, "Implicit Synchronization"; driver API, "Stream
 * synchronization behavior"): a kernel on the legacy stream waits for an earlier kernel of a blocking stream, a kernel of
 * a blocking stream waits for an earlier legacy-stream kernel, an asynchronous copy on the legacy stream waits for a
 * blocking stream's kernel, an asynchronous device-to-device copy and a kernel after it keep their stream's order, and
 * an asynchronous copy to pageable memory has its data when it returns ("for transfers from device memory to pageable
 * host memory, the function will return only once the copy has completed").
 * Build: gcc -o driver_stream_order driver_stream_order.c -L<dist>/lib -lcuda. Prints "results:" and PASS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemAllocHost_v2(void **pp, size_t bytesize);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s);
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s);
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int v, size_t n);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream stream, void **kernelParams, void **extra);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuCtxSynchronize(void);

/* slow: after n iterations of a recurrence the compiler cannot shorten, stores v (and the recurrence, so it is kept) */
static const char *ptx =
    ".version 7.8\n.target sm_75\n.address_size 64\n"
    ".visible .entry slow(.param .u64 p, .param .u32 v, .param .u32 n)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<2>;\n"
    "\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [v];\n\tld.param.u32 %r2, [n];\n"
    "\tmov.u32 %r3, 0;\n\tmov.u32 %r4, 12345;\n"
    "LOOP:\n\tsetp.ge.u32 %p1, %r3, %r2;\n\t@%p1 bra DONE;\n"
    "\tmad.lo.u32 %r4, %r4, 1664525, 1013904223;\n\tshf.l.wrap.b32 %r4, %r4, %r4, 7;\n\tadd.u32 %r3, %r3, 1;\n\tbra LOOP;\n"
    "DONE:\n\tst.global.u32 [%rd1], %r1;\n\tst.global.u32 [%rd1+4], %r4;\n\tret;\n}\n"
    ".visible .entry inc(.param .u64 dst, .param .u64 src)\n{\n"
    "\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<3>;\n"
    "\tld.param.u64 %rd1, [dst];\n\tld.param.u64 %rd2, [src];\n\tld.global.u32 %r1, [%rd2];\n"
    "\tadd.u32 %r1, %r1, 1;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";

#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); exit(1); } } while (0)

static CUfunction slow, inc;
static unsigned iterations = 4000000;

static void launch_slow(CUstream s, CUdeviceptr p, unsigned v) {
    void *args[] = {&p, &v, &iterations};
    CHECK(cuLaunchKernel(slow, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

static void launch_inc(CUstream s, CUdeviceptr dst, CUdeviceptr src) {
    void *args[] = {&dst, &src};
    CHECK(cuLaunchKernel(inc, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

static unsigned read_back(CUdeviceptr p) {
    unsigned v = 0;
    CHECK(cuMemcpyDtoH_v2(&v, p, 4));
    return v;
}

int main(int argc, char **argv) {
    if (argc > 1) iterations = (unsigned)strtoul(argv[1], NULL, 0);
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&slow, mod, "slow"));
    CHECK(cuModuleGetFunction(&inc, mod, "inc"));
    CUdeviceptr x, y, z;
    CHECK(cuMemAlloc_v2(&x, 8));
    CHECK(cuMemAlloc_v2(&y, 8));
    CHECK(cuMemAlloc_v2(&z, 8));
    CUstream a, b;
    CHECK(cuStreamCreate(&a, 0));  /* blocking streams */
    CHECK(cuStreamCreate(&b, 0));
    unsigned *pinned;
    CHECK(cuMemAllocHost_v2((void **)&pinned, 16));
    unsigned results[6];

    /* 1. a legacy-stream kernel after a blocking stream's kernel */
    CHECK(cuMemsetD32_v2(x, 0, 2));
    CHECK(cuMemsetD32_v2(y, 0, 2));
    launch_slow(a, x, 41);
    launch_inc(0, y, x);
    CHECK(cuCtxSynchronize());
    results[0] = read_back(y);

    /* 2. a blocking stream's kernel after a legacy-stream kernel */
    CHECK(cuMemsetD32_v2(x, 0, 2));
    CHECK(cuMemsetD32_v2(y, 0, 2));
    launch_slow(0, x, 51);
    launch_inc(b, y, x);
    CHECK(cuCtxSynchronize());
    results[1] = read_back(y);

    /* 3. an asynchronous copy on the legacy stream after a blocking stream's kernel */
    CHECK(cuMemsetD32_v2(x, 0, 2));
    pinned[0] = 0;
    launch_slow(a, x, 61);
    CHECK(cuMemcpyDtoHAsync_v2(pinned, x, 4, 0));
    CHECK(cuStreamSynchronize(0));
    results[2] = pinned[0];

    /* 4. a kernel, an asynchronous device-to-device copy and a kernel reading the copy, in one stream */
    CHECK(cuMemsetD32_v2(x, 0, 2));
    CHECK(cuMemsetD32_v2(y, 0, 2));
    CHECK(cuMemsetD32_v2(z, 0, 2));
    launch_slow(a, x, 71);
    CHECK(cuMemcpyDtoDAsync_v2(z, x, 4, a));
    launch_inc(a, y, z);
    CHECK(cuStreamSynchronize(a));
    results[3] = read_back(y);

    /* 5. an asynchronous copy to pageable memory has its data when it returns */
    CHECK(cuMemsetD32_v2(x, 0, 2));
    unsigned *pageable = malloc(16);
    pageable[0] = 0;
    launch_slow(a, x, 81);
    CHECK(cuMemcpyDtoHAsync_v2(pageable, x, 4, a));
    results[4] = pageable[0];

    /* 6. an asynchronous set and an upload from page-locked memory in stream order before a kernel */
    CHECK(cuMemsetD32_v2(x, 0, 2));
    CHECK(cuMemsetD32_v2(y, 0, 2));
    pinned[1] = 90;
    launch_slow(b, z, 1);
    CHECK(cuMemsetD32Async(x, 7, 1, b));
    CHECK(cuMemcpyHtoDAsync_v2(x, &pinned[1], 4, b));
    launch_inc(b, y, x);
    CHECK(cuStreamSynchronize(b));
    results[5] = read_back(y);

    printf("results: %u %u %u %u %u %u\n", results[0], results[1], results[2], results[3], results[4], results[5]);
    unsigned expected[6] = {42, 52, 61, 72, 81, 91};
    int failures = 0;
    for (int i = 0; i < 6; i++)
        if (results[i] != expected[i]) {
            printf("FAIL: check %d gave %u, expected %u\n", i + 1, results[i], expected[i]);
            failures++;
        }
    free(pageable);
    if (failures) return 1;
    printf("PASS: stream order\n");
    return 0;
}
