/* Launches the shim repeats without the JVM (shim/launch.c), on the cuda backend over the recording fake
 * (fake_nvidia.c, CudaBackendFakeTest): 200 launches of one kernel on one stream, each with its own argument; the
 * launch checks answered as the JVM answers them once the launch is kept (a block too large, a zero grid, too much
 * dynamic shared memory, no parameters, a block other than .reqntid's, a block over .maxntid's); a launch behind a host
 * function still running waits for it; launches in a capture are captured; a raised dynamic shared memory limit is
 * honoured; the legacy stream, the per-thread stream (cuLaunchKernel_ptsz) and a second thread; a destroyed stream
 * and an unloaded module refused; 48 kernels launched in turn, as a model's ops launch theirs, each kept after its first
 * launch (and its occupancy answered in C after its first query). The program writes its own steps into the fake's log (FAKE_NVIDIA_LOG), so the test
 * sees them in order with the launches. Build: gcc -o cuda_backend_direct cuda_backend_direct.c -L<dist>/lib -lcuda
 * -lpthread. Prints PASS, or the failing call. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUgraph, *CUgraphExec;
CUresult cuInit(unsigned);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, int);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleUnload(CUmodule);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuFuncSetAttribute(CUfunction, int, int);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *, CUfunction, int, size_t);
CUresult cuStreamCreate(CUstream *, unsigned);
CUresult cuStreamDestroy_v2(CUstream);
CUresult cuStreamSynchronize(CUstream);
CUresult cuCtxSynchronize(void);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
CUresult cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
CUresult cuLaunchHostFunc(CUstream, void (*)(void *), void *);
CUresult cuStreamBeginCapture_v2(CUstream, int);
CUresult cuStreamEndCapture(CUstream, CUgraph *);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *, CUgraph, unsigned long long);
CUresult cuGraphLaunch(CUgraphExec, CUstream);
CUresult cuGraphExecDestroy(CUgraphExec);
CUresult cuGraphDestroy(CUgraph);

static const char *ptx =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry a(.param .u64 p) { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n"
    ".visible .entry b(.param .u64 p) { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n"
    ".visible .entry r(.param .u64 p) .reqntid 64, 1, 1 { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n"
    ".visible .entry m(.param .u64 p) .maxntid 128, 1, 1 { .reg .u64 %r; ld.param.u64 %r, [p]; ret; }\n";

#define CHECK(x) do { CUresult r_ = (x); if (r_) { printf("FAIL: %s = %d\n", #x, r_); return 1; } } while (0)
#define EXPECT(x, want) do { CUresult r_ = (x); if (r_ != (want)) { printf("FAIL: %s = %d, not %d\n", #x, r_, want); return 1; } } while (0)

/* a line of the program's own in the fake's log */
static void note(const char *what) {
    const char *path = getenv("FAKE_NVIDIA_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f, "program: %s\n", what);
    fclose(f);
}

static CUresult launch(CUfunction f, unsigned grid, unsigned block, unsigned shared, unsigned long long arg, CUstream s) {
    void *args[] = {&arg};
    return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shared, s, args, NULL);
}

static void slow_host_function(void *unused) {
    (void)unused;
    struct timespec t = {0, 100 * 1000 * 1000};
    nanosleep(&t, NULL);
    note("host function done");
}

static CUfunction shared_a;
static CUstream shared_s;
static CUcontext shared_ctx;
static void *second_thread(void *unused) {
    (void)unused;
    if (cuCtxSetCurrent(shared_ctx)) return (void *)1;
    for (int i = 0; i < 3; i++)
        if (launch(shared_a, 1, 32, 0, 7000 + i, shared_s)) return (void *)1;
    return NULL;
}

int main(void) {
    CUcontext ctx;
    CUmodule m;
    CUfunction a, b, r, mx;
    CUstream s, s2;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&m, ptx));
    CHECK(cuModuleGetFunction(&a, m, "a"));
    CHECK(cuModuleGetFunction(&b, m, "b"));
    CHECK(cuModuleGetFunction(&r, m, "r"));
    CHECK(cuModuleGetFunction(&mx, m, "m"));
    CHECK(cuStreamCreate(&s, 0));
    for (int i = 0; i < 200; i++) CHECK(launch(a, 1, 32, 0, 1000 + i, s));
    note("checks");
    /* refused as NVIDIA's driver refuses them, whether the launch is kept or not */
    EXPECT(launch(a, 1, 2048, 0, 1, s), 1);
    EXPECT(launch(a, 0, 32, 0, 1, s), 1);
    EXPECT(cuLaunchKernel(a, 1, 70000, 1, 32, 1, 1, 0, s, (void *[]){&(long long){1}}, NULL), 1);
    EXPECT(cuLaunchKernel(a, 1, 1, 1, 32, 1, 128, 0, s, (void *[]){&(long long){1}}, NULL), 1);
    EXPECT(launch(a, 1, 32, 60000, 1, s), 1);
    EXPECT(cuLaunchKernel(a, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL), 1);
    CHECK(launch(r, 1, 64, 0, 1100, s));
    CHECK(launch(r, 1, 64, 0, 1101, s));
    EXPECT(launch(r, 1, 32, 0, 1, s), 1);
    CHECK(launch(mx, 1, 128, 0, 1200, s));
    CHECK(launch(mx, 1, 64, 0, 1201, s));
    EXPECT(launch(mx, 1, 256, 0, 1, s), 1);
    /* a larger dynamic shared memory once the function allows it (MAX_DYNAMIC_SHARED_SIZE_BYTES) */
    CHECK(cuFuncSetAttribute(a, 8, 65536));
    CHECK(launch(a, 1, 32, 60000, 1300, s));
    CHECK(launch(a, 1, 32, 60000, 1301, s));
    EXPECT(launch(a, 1, 32, 70000, 1, s), 1);
    /* behind a host function still running: after it */
    note("host function");
    CHECK(cuLaunchHostFunc(s, slow_host_function, NULL));
    CHECK(launch(a, 1, 32, 0, 2000, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(launch(a, 1, 32, 0, 2001, s));
    /* captured: graph nodes, not launches */
    note("capture");
    CUgraph g;
    CUgraphExec e;
    CHECK(cuStreamBeginCapture_v2(s, 0));
    CHECK(launch(a, 1, 32, 0, 3000, s));
    CHECK(launch(a, 1, 32, 0, 3001, s));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiateWithFlags(&e, g, 0));
    CHECK(cuGraphLaunch(e, s));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuGraphExecDestroy(e));
    CHECK(cuGraphDestroy(g));
    CHECK(launch(a, 1, 32, 0, 3002, s));
    CHECK(launch(a, 1, 32, 0, 3003, s));
    /* the legacy stream, the per-thread stream, another stream of the same function */
    note("streams");
    CHECK(launch(b, 2, 32, 0, 4000, NULL));
    CHECK(launch(b, 2, 32, 0, 4001, NULL));
    unsigned long long arg = 4100;
    void *args[] = {&arg};
    CHECK(cuLaunchKernel_ptsz(b, 3, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    arg = 4101;
    CHECK(cuLaunchKernel_ptsz(b, 3, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    CHECK(cuStreamCreate(&s2, 0));
    CHECK(launch(a, 4, 32, 0, 4200, s2));
    CHECK(launch(a, 4, 32, 0, 4201, s2));
    CHECK(cuCtxSynchronize());
    /* another thread, the primary context made current there */
    note("thread");
    shared_a = a;
    shared_s = s;
    shared_ctx = ctx;
    pthread_t t;
    void *failed = NULL;
    if (pthread_create(&t, NULL, second_thread, NULL) || pthread_join(t, &failed) || failed) {
        printf("FAIL: launches from a second thread\n");
        return 1;
    }
    CHECK(cuStreamSynchronize(s));
    /* 48 kernels of one module in turn, four rounds: each kept after its first launch, none taking another's place */
    note("rotation");
    enum { MANY = 48 };
    static char many_ptx[MANY * 96 + 64];
    int at = snprintf(many_ptx, sizeof many_ptx, ".version 7.0\n.target sm_52\n.address_size 64\n");
    for (int i = 0; i < MANY; i++)
        at += snprintf(many_ptx + at, sizeof many_ptx - at,
                       ".visible .entry k%d(.param .u64 p) { .reg .u64 %%r; ld.param.u64 %%r, [p]; ret; }\n", i);
    CUmodule many;
    CUfunction k[MANY];
    CHECK(cuModuleLoadData(&many, many_ptx));
    for (int i = 0; i < MANY; i++) {
        char name[8];
        snprintf(name, sizeof name, "k%d", i);
        CHECK(cuModuleGetFunction(&k[i], many, name));
    }
    for (int round = 0; round < 4; round++)
        for (int i = 0; i < MANY; i++) {
            int blocks = 0;
            CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k[i], 32, 0));
            if (blocks <= 0) { printf("FAIL: occupancy of k%d: %d\n", i, blocks); return 1; }
            CHECK(launch(k[i], 1, 32, 0, 6000 + round * 100 + i, s));
        }
    CHECK(cuStreamSynchronize(s));
    CHECK(cuModuleUnload(many));
    /* a destroyed stream and an unloaded module */
    note("destroyed");
    CHECK(cuStreamDestroy_v2(s2));
    EXPECT(launch(a, 4, 32, 0, 1, s2), 400);
    CHECK(launch(a, 1, 32, 0, 5000, s));
    CHECK(cuModuleUnload(m));
    EXPECT(launch(a, 1, 32, 0, 1, s), 400);
    CHECK(cuCtxSynchronize());
    printf("PASS: launches repeated by the shim\n");
    return 0;
}
