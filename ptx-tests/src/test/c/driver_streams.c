/* ZLUDA-J integration test: streams are asynchronous queues with CUDA's ordering rules, through the shim.
 * A host function that blocks until the test releases it keeps a stream busy, so every check is deterministic:
 * queries answer CUDA_ERROR_NOT_READY while work is pending, an event orders two streams, the legacy default stream
 * (a synchronous copy) waits for blocking streams and not for non-blocking ones, the per-thread default stream and
 * callbacks run in order. Build: gcc -o driver_streams driver_streams.c -L<dist>/lib -lcuda -lpthread. Prints PASS. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
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
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int v, size_t n);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream stream, void **kernelParams, void **extra);
CUresult cuLaunchHostFunc(CUstream s, void (*fn)(void *), void *user);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamQuery(CUstream s);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags);
CUresult cuStreamAddCallback(CUstream s, void (*cb)(CUstream, CUresult, void *), void *user, unsigned int flags);
CUresult cuEventCreate(CUevent *e, unsigned int flags);
CUresult cuEventRecord(CUevent e, CUstream s);
CUresult cuEventQuery(CUevent e);
CUresult cuEventSynchronize(CUevent e);
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b);
CUresult cuCtxSynchronize(void);

#define CUDA_ERROR_NOT_READY 600
#define CU_STREAM_NON_BLOCKING 1
#define CU_STREAM_PER_THREAD ((CUstream)2)

static const char *ptx =
    ".version 7.8\n.target sm_75\n.address_size 64\n"
    ".visible .entry put(.param .u64 p, .param .u32 v)\n{\n"
    "\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n"
    "\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [v];\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n"
    ".visible .entry inc(.param .u64 dst, .param .u64 src)\n{\n"
    "\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<3>;\n"
    "\tld.param.u64 %rd1, [dst];\n\tld.param.u64 %rd2, [src];\n\tld.global.u32 %r1, [%rd2];\n"
    "\tadd.u32 %r1, %r1, 1;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";

static int failures;
#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL %s = %d (line %d)\n", #x, r_, __LINE__); exit(1); } } while (0)
#define EXPECT(c, what) do { if (!(c)) { printf("FAIL: %s (line %d)\n", what, __LINE__); failures++; } } while (0)

static atomic_int gate_open[8];
static void gate(void *user) {  /* a host function that holds its stream until released */
    atomic_int *g = user;
    while (!atomic_load(g)) usleep(1000);
}
static void *release_later(void *user) {
    usleep(150 * 1000);
    atomic_store((atomic_int *)user, 1);
    return NULL;
}

static CUfunction put, inc;
static void launch_put(CUstream s, CUdeviceptr p, unsigned v) {
    void *args[] = {&p, &v};
    CHECK(cuLaunchKernel(put, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
}

static int order[8], norder;
static void callback(CUstream s, CUresult status, void *user) {
    (void)s;
    if (status == 0) order[norder++] = (int)(intptr_t)user;
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&put, mod, "put"));
    CHECK(cuModuleGetFunction(&inc, mod, "inc"));
    CUdeviceptr x, y, z;
    CHECK(cuMemAlloc_v2(&x, 4));
    CHECK(cuMemAlloc_v2(&y, 4));
    CHECK(cuMemAlloc_v2(&z, 4));
    CHECK(cuMemsetD32_v2(x, 0, 1));
    CHECK(cuMemsetD32_v2(y, 0, 1));
    CHECK(cuMemsetD32_v2(z, 0, 1));
    CUstream s1, s2, s3;
    CHECK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&s3, 0));
    CUevent e, t0, t1;
    CHECK(cuEventCreate(&e, 0));
    CHECK(cuEventCreate(&t0, 0));
    CHECK(cuEventCreate(&t1, 0));

    /* 1. a held stream is not ready, and an event orders two streams: y = x + 1 only after x = 41 */
    CHECK(cuEventRecord(t0, s1));
    CHECK(cuLaunchHostFunc(s1, gate, &gate_open[0]));
    launch_put(s1, x, 41);
    CHECK(cuEventRecord(e, s1));
    CHECK(cuEventRecord(t1, s1));
    CHECK(cuStreamWaitEvent(s2, e, 0));
    void *args[] = {&y, &x};
    CHECK(cuLaunchKernel(inc, 1, 1, 1, 1, 1, 1, 0, s2, args, NULL));
    EXPECT(cuStreamQuery(s1) == CUDA_ERROR_NOT_READY, "cuStreamQuery of a held stream is CUDA_ERROR_NOT_READY");
    EXPECT(cuEventQuery(e) == CUDA_ERROR_NOT_READY, "cuEventQuery of a pending record is CUDA_ERROR_NOT_READY");
    EXPECT(cuStreamQuery(s2) == CUDA_ERROR_NOT_READY, "the waiting stream is not ready either");
    /* 2. the legacy stream (a synchronous copy) does not wait for non-blocking streams */
    unsigned hy = 99;
    CHECK(cuMemcpyDtoH_v2(&hy, y, 4));
    EXPECT(hy == 0, "a synchronous copy did not wait for the non-blocking streams");
    EXPECT(cuStreamQuery(s1) == CUDA_ERROR_NOT_READY, "still held");
    float ms = -1;
    EXPECT(cuEventElapsedTime(&ms, t0, t1) == CUDA_ERROR_NOT_READY, "elapsed time of a pending event is NOT_READY");
    pthread_t th;
    pthread_create(&th, NULL, release_later, &gate_open[0]);
    CHECK(cuStreamSynchronize(s2));
    CHECK(cuMemcpyDtoH_v2(&hy, y, 4));
    EXPECT(hy == 42, "the consumer stream saw the producer's write through the event");
    CHECK(cuEventSynchronize(t1));
    CHECK(cuEventElapsedTime(&ms, t0, t1));
    EXPECT(ms >= 100.0f, "the timed section spans the held host function");
    pthread_join(th, NULL);

    /* 3. the legacy stream waits for a blocking stream: the synchronous copy sees z = 7 */
    CHECK(cuLaunchHostFunc(s3, gate, &gate_open[1]));
    launch_put(s3, z, 7);
    pthread_create(&th, NULL, release_later, &gate_open[1]);
    unsigned hz = 0;
    CHECK(cuMemcpyDtoH_v2(&hz, z, 4));
    EXPECT(hz == 7, "a synchronous copy waited for the blocking stream's earlier work");
    pthread_join(th, NULL);

    /* 4. the per-thread default stream, page-locked asynchronous copies, callbacks in order */
    unsigned *pinned;
    CHECK(cuMemAllocHost_v2((void **)&pinned, 4));
    *pinned = 0;
    CHECK(cuLaunchHostFunc(CU_STREAM_PER_THREAD, gate, &gate_open[2]));
    launch_put(CU_STREAM_PER_THREAD, x, 5);
    CHECK(cuMemcpyDtoHAsync_v2(pinned, x, 4, CU_STREAM_PER_THREAD));
    for (int i = 1; i <= 3; i++) CHECK(cuStreamAddCallback(CU_STREAM_PER_THREAD, callback, (void *)(intptr_t)i, 0));
    EXPECT(*pinned == 0 && norder == 0, "asynchronous copy and callbacks wait for the held stream");
    atomic_store(&gate_open[2], 1);
    CHECK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    EXPECT(*pinned == 5, "the page-locked copy completed in stream order");
    EXPECT(norder == 3 && order[0] == 1 && order[1] == 2 && order[2] == 3, "callbacks ran in order with CUDA_SUCCESS");
    CHECK(cuCtxSynchronize());
    if (failures) return 1;
    printf("PASS: streams\n");
    return 0;
}
