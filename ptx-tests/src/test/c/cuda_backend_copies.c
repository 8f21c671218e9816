/* Device-to-device copies the shim repeats without the JVM (shim/copy.c), on the cuda backend over the recording fake
 * (fake_nvidia.c, CudaBackendFakeTest): 100 cuMemcpyDtoDAsync on one stream, each of its own size into its own place;
 * a NULL address refused as the JVM refuses it, before and after copies are kept; a copy of no bytes; a copy behind a
 * host function still running waits for it; a copy in a capture is captured; the legacy stream, the per-thread stream
 * (cuMemcpyDtoDAsync_v2_ptsz) and a second thread. Every byte is checked at the end. The program writes its own steps
 * into the fake's log (FAKE_NVIDIA_LOG), so the test sees them in order with the copies. Build: gcc -o
 * cuda_backend_copies cuda_backend_copies.c -L<dist>/lib -lcuda -lpthread. Prints PASS, or the failing call. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext, *CUstream, *CUgraph, *CUgraphExec;
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemsetD8_v2(CUdeviceptr, unsigned char, size_t);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamSynchronize(CUstream);
CUresult cuCtxSynchronize(void);
CUresult cuLaunchHostFunc(CUstream, void (*)(void *), void *);
CUresult cuStreamBeginCapture_v2(CUstream, int);
CUresult cuStreamEndCapture(CUstream, CUgraph *);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *, CUgraph, unsigned long long);
CUresult cuGraphLaunch(CUgraphExec, CUstream);
CUresult cuGraphExecDestroy(CUgraphExec);
CUresult cuGraphDestroy(CUgraph);

#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL: %s = %d\n", #x, r_); return 1; } } while (0)
#define EXPECT(x, want) do { CUresult r_ = (x); if (r_ != (want)) { printf("FAIL: %s = %d, not %d\n", #x, r_, want); return 1; } } while (0)
#define BYTES 65536

static void note(const char *what) {
    const char *path = getenv("FAKE_NVIDIA_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f, "program: %s\n", what);
    fclose(f);
}

static void slow_host_function(void *unused) {
    (void)unused;
    struct timespec t = {0, 100 * 1000 * 1000};
    nanosleep(&t, NULL);
    note("host function done");
}

static CUdeviceptr src, dst;
static size_t at;  /* the next copy's offset: each copy has its own bytes */
static unsigned char copied[BYTES];
/* n bytes from src to dst at the next offset, on stream s (ptsz: the _ptsz variant) */
static CUresult copy(size_t n, CUstream s, int ptsz) {
    CUresult r = (ptsz ? cuMemcpyDtoDAsync_v2_ptsz : cuMemcpyDtoDAsync_v2)(dst + at, src + at, n, s);
    if (r == 0) memset(copied + at, 1, n);
    at += n;
    return r;
}

static CUstream shared_s;
static CUcontext shared_ctx;
static void *second_thread(void *unused) {
    (void)unused;
    if (cuCtxSetCurrent(shared_ctx)) return (void *)1;
    for (int i = 0; i < 3; i++)
        if (copy(300 + i, shared_s, 0)) return (void *)1;
    return NULL;
}

int main(void) {
    CUcontext ctx;
    CUstream s;
    static unsigned char pattern[BYTES], back[BYTES];
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuMemAlloc_v2(&src, BYTES));
    CHECK(cuMemAlloc_v2(&dst, BYTES));
    for (int i = 0; i < BYTES; i++) pattern[i] = (unsigned char)(i * 7 + 3);
    CHECK(cuMemcpyHtoD_v2(src, pattern, BYTES));
    CHECK(cuMemsetD8_v2(dst, 0, BYTES));
    CHECK(cuStreamCreate(&s, 0));
    note("copies");
    for (int i = 0; i < 100; i++) CHECK(copy(100 + i, s, 0));
    note("null");
    EXPECT(cuMemcpyDtoDAsync_v2(0, src, 8, s), 1);
    EXPECT(cuMemcpyDtoDAsync_v2(dst, 0, 8, s), 1);
    CHECK(cuMemcpyDtoDAsync_v2(0, 0, 0, s));  /* no bytes: nothing to copy, no error */
    CHECK(copy(210, s, 0));
    note("host function");
    CHECK(cuLaunchHostFunc(s, slow_host_function, NULL));
    CHECK(copy(220, s, 0));
    CHECK(cuStreamSynchronize(s));
    CHECK(copy(221, s, 0));
    CHECK(copy(222, s, 0));
    note("capture");
    CUgraph g;
    CUgraphExec e;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(copy(230, s, 0));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuGraphExecDestroy(e));
    CHECK(cuGraphDestroy(g));
    CHECK(copy(231, s, 0));
    CHECK(copy(232, s, 0));
    note("streams");
    CHECK(copy(240, NULL, 0));
    CHECK(copy(241, NULL, 0));
    CHECK(copy(250, NULL, 1));
    CHECK(copy(251, NULL, 1));
    CHECK(cuCtxSynchronize());
    note("thread");
    shared_s = s;
    shared_ctx = ctx;
    pthread_t t;
    void *failed;
    if (pthread_create(&t, NULL, second_thread, NULL) || pthread_join(t, &failed) || failed) {
        printf("FAIL: copies from a second thread\n");
        return 1;
    }
    CHECK(cuStreamSynchronize(s));
    note("end");
    CHECK(cuMemcpyDtoH_v2(back, dst, BYTES));
    for (size_t i = 0; i < BYTES; i++)
        if (back[i] != (copied[i] ? pattern[i] : 0)) {
            printf("FAIL: byte %zu is %d, not %d\n", i, back[i], copied[i] ? pattern[i] : 0);
            return 1;
        }
    printf("PASS: device-to-device copies repeated by the shim (%zu bytes)\n", at);
    return 0;
}
