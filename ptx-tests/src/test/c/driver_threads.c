/* ZLUDA-J concurrency test: THREADS host threads share one context; each creates its own stream and events and makes
 * LAUNCHES launches of a kernel that adds 1 to every element of its own buffer, recording an event every 100
 * launches and waiting on the previous one, then checks that every element equals LAUNCHES. With "exit" as argument,
 * the main thread instead queues work on a stream and calls exit() while it still runs: the process must end cleanly.
 * Build: gcc -o driver_threads driver_threads.c -L<dist>/lib -lcuda -lpthread. Prints PASS. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void **params, void **extra);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s);
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamDestroy_v2(CUstream s);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags);
CUresult cuEventCreate(CUevent *e, unsigned int flags);
CUresult cuEventDestroy_v2(CUevent e);
CUresult cuEventRecord(CUevent e, CUstream s);
CUresult cuEventSynchronize(CUevent e);

#define THREADS 32
#define LAUNCHES 1000
#define N 256

static CUcontext ctx;
static CUfunction inc;
static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry inc(.param .u64 p, .param .u32 n) {\n"
    "  .reg .u32 %r<6>; .reg .u64 %rd<4>; .reg .pred %p;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.u32 %r2, %r2, %r3, %r4;\n"
    "  setp.ge.u32 %p, %r2, %r1; @%p ret;\n"
    "  mul.wide.u32 %rd2, %r2, 4; add.u64 %rd3, %rd1, %rd2;\n"
    "  ld.global.u32 %r5, [%rd3]; add.u32 %r5, %r5, 1; st.global.u32 [%rd3], %r5; ret;\n}\n";

#define TRY(x) do { CUresult r_ = (x); if (r_) { fprintf(stderr, "thread %ld: %s = %d\n", id, #x, r_); return (void *)1; } } while (0)

static void *worker(void *arg) {
    long id = (long)arg;
    TRY(cuCtxSetCurrent(ctx));
    CUstream s;
    CUevent ev[2];
    CUdeviceptr buf;
    TRY(cuStreamCreate(&s, 1));
    TRY(cuEventCreate(&ev[0], 2));
    TRY(cuEventCreate(&ev[1], 2));
    TRY(cuMemAlloc_v2(&buf, N * 4));
    TRY(cuMemsetD32Async(buf, 0, N, s));
    unsigned n = N;
    void *params[] = {&buf, &n};
    for (int i = 0; i < LAUNCHES; i++) {
        TRY(cuLaunchKernel(inc, N / 64, 1, 1, 64, 1, 1, 0, s, params, 0));
        if (i % 100 == 99) {
            CUevent e = ev[(i / 100) & 1];
            TRY(cuEventRecord(e, s));
            TRY(cuStreamWaitEvent(s, e, 0));
            if (i % 200 == 199) TRY(cuEventSynchronize(ev[0]));
        }
    }
    unsigned out[N];
    TRY(cuMemcpyDtoHAsync_v2(out, buf, sizeof out, s));
    TRY(cuStreamSynchronize(s));
    for (int i = 0; i < N; i++)
        if (out[i] != LAUNCHES) {
            fprintf(stderr, "thread %ld: element %d = %u\n", id, i, out[i]);
            return (void *)1;
        }
    TRY(cuMemFree_v2(buf));
    TRY(cuEventDestroy_v2(ev[0]));
    TRY(cuEventDestroy_v2(ev[1]));
    TRY(cuStreamDestroy_v2(s));
    return NULL;
}

int main(int argc, char **argv) {
    CUdevice dev;
    CUmodule m;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) return 3;
    if (cuModuleLoadData(&m, ptx) || cuModuleGetFunction(&inc, m, "inc")) return 4;
    if (argc > 1 && !strcmp(argv[1], "exit")) {
        CUstream s;
        CUdeviceptr buf;
        unsigned n = 1 << 16;
        void *params[] = {&buf, &n};
        if (cuStreamCreate(&s, 1) || cuMemAlloc_v2(&buf, n * 4)) return 5;
        for (int i = 0; i < 2000; i++)
            if (cuLaunchKernel(inc, n / 256, 1, 1, 256, 1, 1, 0, s, params, 0)) return 6;
        printf("exit with work queued\n");
        fflush(stdout);
        exit(0);
    }
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    int failed = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        failed += r != NULL;
    }
    if (failed) {
        printf("FAIL: %d threads\n", failed);
        return 1;
    }
    printf("PASS: %d threads x %d launches\n", THREADS, LAUNCHES);
    return 0;
}
