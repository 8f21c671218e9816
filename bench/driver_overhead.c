/* ZLUDA-J benchmark (issue 21): the driver's own cost, natively (NVIDIA's libcuda.so.1) or through ZLUDA-J (whichever
 * libcuda.so.1 the loader finds). Prints one line per measurement, "name value unit", for a side-by-side table:
 *   start     ms from main() to the first completed cuInit (library loaded by the first call, as an application does)
 *   call:*    ns per trivial call (best of 5 rounds of N calls)
 *   launch    us per asynchronous launch of an empty kernel (N launches, then one synchronize)
 *   launch+wait  us per launch followed by cuStreamSynchronize
 *   copy-dtod us per asynchronous 64-byte device-to-device copy (cuMemcpyDtoDAsync; N copies, then one synchronize:
 *             ggml's copies into its KV cache, 48 a token for GPT-2 124M)
 *   round     us per round of ggml's host-synchronized MUL_MAT_ID path: a 64-byte download to pageable memory, a
 *             synchronization, a 64-byte upload from it, a synchronization and 10 launches (cuMemcpy*Async, one stream)
 *   download+wait, upload+wait, wait-idle   the round's parts: us per 64-byte pageable copy and synchronization, and
 *             per synchronization of an idle stream
 *   graph100  us per cuGraphLaunch of a graph of 100 empty-kernel nodes (N launches, then one synchronize)
 *   graph100+wait  us per graph launch followed by cuStreamSynchronize
 * Each measurement is taken in the steady state: after WARM_S seconds of the same work (ZLUDA-J's Java is compiled by
 * the JIT after some thousands of calls; NVIDIA's driver needs no warm-up), the best of several rounds.
 * DRIVER_OVERHEAD_ONLY=launch measures the launches alone (for profiling them); =start only the start.
 * Usage: driver_overhead [N]   (build: gcc -O2 driver_overhead.c -ldl) */
#define _GNU_SOURCE
#include "driver_bench.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUgraph, *CUgraphExec;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDriverGetVersion)(int *);
static CUresult (*cuDeviceGet)(CUdevice *, int);
static CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuCtxGetCurrent)(CUcontext *);
static CUresult (*cuCtxGetDevice)(CUdevice *);
static CUresult (*cuGetErrorName)(CUresult, const char **);
static CUresult (*cuModuleLoadData)(CUmodule *, const void *);
static CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
static CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuPointerGetAttribute)(void *, int, CUdeviceptr);
static CUresult (*cuStreamCreate)(CUstream *, unsigned);
static CUresult (*cuStreamQuery)(CUstream);
static CUresult (*cuStreamSynchronize)(CUstream);
static CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                                  void **, void **);
static CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
static CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
static CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
static CUresult (*cuStreamBeginCapture)(CUstream, int);
static CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
static CUresult (*cuGraphInstantiate)(CUgraphExec *, CUgraph, unsigned long long);
static CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
static CUresult (*cuGraphExecDestroy)(CUgraphExec);
static CUresult (*cuGraphDestroy)(CUgraph);

static const char *ptx =
    ".version 7.0\n"
    ".target sm_52\n"
    ".address_size 64\n"
    ".visible .entry empty(.param .u64 p)\n"
    "{\n"
    "\tret;\n"
    "}\n";


static CUdevice dev;
static CUfunction fn;
static CUdeviceptr mem;

/* one trivial call of each kind; the value each writes is checked once, outside the timing */
static int k_version(void) { int v; return cuDriverGetVersion(&v); }
static int k_current(void) { CUcontext c; return cuCtxGetCurrent(&c); }
static int k_ctxdev(void) { CUdevice d; return cuCtxGetDevice(&d); }
static int k_attr(void) { int v; return cuDeviceGetAttribute(&v, 1 /* MAX_THREADS_PER_BLOCK */, dev); }
static int k_errname(void) { const char *s; return cuGetErrorName(700, &s); }
static int k_funcattr(void) { int v; return cuFuncGetAttribute(&v, 0 /* MAX_THREADS_PER_BLOCK */, fn); }
static int k_occupancy(void) { int v; return cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, fn, 128, 0); }
static int k_pointer(void) { unsigned t; return cuPointerGetAttribute(&t, 2 /* MEMORY_TYPE */, mem); }
static CUstream idle;
static int k_query(void) { return cuStreamQuery(idle); }
/* cudart's context-local storage get (export table c693336e, slot 2): cudart asks it before every launch */
static CUresult (*cuGetExportTable)(const void **, const void *);
static CUresult (*cls_get)(void **, CUcontext, void *);
static int cls_key;
static int k_cls(void) { void *v; return cls_get(&v, NULL, &cls_key); }

#define WARM_S 0.5

static void trivial(const char *name, int (*f)(void), long n) {
    for (double until = now() + WARM_S; now() < until;)
        for (int i = 0; i < 1000; i++) f();
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        double t = now();
        for (long i = 0; i < n; i++) f();
        double per = (now() - t) / n;
        if (per < best) best = per;
    }
    printf("call:%s %.1f ns\n", name, best);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000;
    setvbuf(stdout, NULL, _IOLBF, 0);  /* every line out at once: a failure later keeps what was measured */
    double t0 = now();
    /* DRIVER_OVERHEAD_DLOPEN=deepbind: the driver loaded as ZLUDA-J's cuda backend loads NVIDIA's (local, deep binding) */
    int deep = getenv("DRIVER_OVERHEAD_DLOPEN") && !strcmp(getenv("DRIVER_OVERHEAD_DLOPEN"), "deepbind");
    void *h = dlopen("libcuda.so.1", deep ? RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND : RTLD_NOW | RTLD_GLOBAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    SYM(cuInit);
    CHECK(cuInit(0));
    printf("start %.1f ms\n", (now() - t0) / 1e6);
    if (getenv("DRIVER_OVERHEAD_ONLY") && !strcmp(getenv("DRIVER_OVERHEAD_ONLY"), "start")) return 0;
    SYM(cuDriverGetVersion); SYM(cuDeviceGet); SYM(cuDeviceGetAttribute); SYM(cuDevicePrimaryCtxRetain); SYM(cuCtxSetCurrent);
    SYM(cuCtxGetCurrent); SYM(cuCtxGetDevice); SYM(cuGetErrorName); SYM(cuModuleLoadData); SYM(cuModuleGetFunction);
    SYM(cuFuncGetAttribute); SYM(cuOccupancyMaxActiveBlocksPerMultiprocessor); SYMN(cuMemAlloc, "cuMemAlloc_v2"); SYM(cuPointerGetAttribute); SYM(cuStreamCreate); SYM(cuStreamQuery);
    SYM(cuStreamSynchronize); SYM(cuLaunchKernel); SYMN(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
    SYMN(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
    SYMN(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"); SYMN(cuStreamBeginCapture, "cuStreamBeginCapture_v2"); SYM(cuStreamEndCapture);
    *(void **)&cuGraphInstantiate = dlsym(h, "cuGraphInstantiateWithFlags");
    SYM(cuGraphLaunch); SYM(cuGraphExecDestroy); SYM(cuGraphDestroy);
    CUcontext ctx;
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&fn, mod, "empty"));
    CHECK(cuMemAlloc(&mem, 1 << 20));
    CHECK(cuStreamCreate(&idle, 1 /* NON_BLOCKING */));
    CUstream s;
    /* DRIVER_OVERHEAD_STREAM_FLAGS=0: launches into a blocking stream (one that synchronizes with the legacy stream) */
    CHECK(cuStreamCreate(&s, getenv("DRIVER_OVERHEAD_STREAM_FLAGS") ? (unsigned)atoi(getenv("DRIVER_OVERHEAD_STREAM_FLAGS")) : 1));
    { /* the answers are right before they are timed */
        int v = 0; CUcontext c = 0; const char *e = 0; unsigned t = 0;
        CHECK(cuDriverGetVersion(&v)); if (v < 12000) { fprintf(stderr, "version %d\n", v); return 1; }
        CHECK(cuCtxGetCurrent(&c)); if (c != ctx) { fprintf(stderr, "current context\n"); return 1; }
        CHECK(cuDeviceGetAttribute(&v, 1, dev)); if (v != 1024) { fprintf(stderr, "max threads %d\n", v); return 1; }
        CHECK(cuGetErrorName(700, &e));
        CHECK(cuPointerGetAttribute(&t, 2, mem)); if (t != 2) { fprintf(stderr, "memory type %u\n", t); return 1; }
        /* cudart's context-local storage: timed only where the table answers as cudart uses it (never fatal: the
           other rows stand without it) */
        static const unsigned char cls_id[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
        const void *table = NULL;
        void *got = NULL;
        *(void **)&cuGetExportTable = dlsym(h, "cuGetExportTable");
        if (cuGetExportTable && !cuGetExportTable(&table, cls_id) && table &&
            !((CUresult (*const *)(CUcontext, void *, void *, void *))table)[0](NULL, &cls_key, (void *)&cls_key, NULL) &&
            !((CUresult (*const *)(void **, CUcontext, void *))table)[2](&got, NULL, &cls_key) && got == &cls_key)
            cls_get = ((CUresult (*const *)(void **, CUcontext, void *))table)[2];
        else
            fprintf(stderr, "no context-local storage table: cudart-cls-get not timed\n");
    }
    const char *only = getenv("DRIVER_OVERHEAD_ONLY");
    int launches_only = only && !strcmp(only, "launch");
    long calls = launches_only ? 0 : n * 10;
    trivial("cuDriverGetVersion", k_version, calls);
    trivial("cuCtxGetCurrent", k_current, calls);
    if (cls_get) trivial("cudart-cls-get", k_cls, calls);
    trivial("cuCtxGetDevice", k_ctxdev, calls);
    trivial("cuDeviceGetAttribute", k_attr, calls);
    trivial("cuGetErrorName", k_errname, calls);
    trivial("cuFuncGetAttribute", k_funcattr, calls);
    trivial("cuOccupancyMaxActiveBlocksPerMultiprocessor", k_occupancy, calls);
    trivial("cuPointerGetAttribute", k_pointer, calls);
    trivial("cuStreamQuery", k_query, calls);

    void *args[] = {&mem};
    for (double until = now() + 6 * WARM_S; now() < until;) {
        for (long i = 0; i < 1000; i++) CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, args, 0));
        CHECK(cuStreamSynchronize(s));
        for (long i = 0; i < 100; i++) { cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, args, 0); cuStreamSynchronize(s); }
    }
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t = now();
        for (long i = 0; i < n; i++) cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, args, 0);
        CHECK(cuStreamSynchronize(s));
        double per = (now() - t) / n / 1e3;
        if (per < best) best = per;
    }
    printf("launch %.2f us\n", best);
    best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t = now();
        for (long i = 0; i < n / 4; i++) { cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, args, 0); cuStreamSynchronize(s); }
        double per = (now() - t) / (n / 4) / 1e3;
        if (per < best) best = per;
    }
    printf("launch+wait %.2f us\n", best);
    for (double until = now() + WARM_S; now() < until;) {
        for (long i = 0; i < 1000; i++) CHECK(cuMemcpyDtoDAsync(mem + 4096 + (i % 64) * 64, mem + (i % 64) * 64, 64, s));
        CHECK(cuStreamSynchronize(s));
    }
    best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t = now();
        for (long i = 0; i < n; i++) cuMemcpyDtoDAsync(mem + 4096 + (i % 64) * 64, mem + (i % 64) * 64, 64, s);
        CHECK(cuStreamSynchronize(s));
        double per = (now() - t) / n / 1e3;
        if (per < best) best = per;
    }
    printf("copy-dtod %.2f us\n", best);
    char pageable[64] = {0};
    for (double until = now() + WARM_S; now() < until;) {
        CHECK(cuMemcpyDtoHAsync(pageable, mem, 64, s));
        CHECK(cuStreamSynchronize(s));
    }
    best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t = now();
        for (long i = 0; i < n / 10; i++) {
            cuMemcpyDtoHAsync(pageable, mem, 64, s);
            cuStreamSynchronize(s);
            cuMemcpyHtoDAsync(mem, pageable, 64, s);
            cuStreamSynchronize(s);
            for (int k = 0; k < 10; k++) cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, args, 0);
        }
        CHECK(cuStreamSynchronize(s));
        double per = (now() - t) / (n / 10) / 1e3;
        if (per < best) best = per;
    }
    printf("round %.2f us\n", best);
    /* the round's parts: a pageable download and its synchronization, the same upload, a synchronization with nothing
     * pending (best of 3 rounds of N/10 each) */
    for (int part = 0; part < 3; part++) {
        best = 1e30;
        for (int round = 0; round < 3; round++) {
            double t = now();
            for (long i = 0; i < n / 10; i++) {
                if (part == 0) cuMemcpyDtoHAsync(pageable, mem, 64, s);
                if (part == 1) cuMemcpyHtoDAsync(mem, pageable, 64, s);
                cuStreamSynchronize(s);
            }
            double per = (now() - t) / (n / 10) / 1e3;
            if (per < best) best = per;
        }
        printf("%s %.2f us\n", part == 0 ? "download+wait" : part == 1 ? "upload+wait" : "wait-idle", best);
    }

    if (launches_only) return 0;
    CUgraph g;
    CUgraphExec ge;
    CHECK(cuStreamBeginCapture(s, 0 /* GLOBAL */));
    for (int i = 0; i < 100; i++) CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, args, 0));
    CHECK(cuStreamEndCapture(s, &g));
    CHECK(cuGraphInstantiate(&ge, g, 0));
    for (double until = now() + 2 * WARM_S; now() < until;) {
        CHECK(cuGraphLaunch(ge, s));
        CHECK(cuStreamSynchronize(s));
    }
    long gn = n / 20 > 10 ? n / 20 : 10;
    best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t = now();
        for (long i = 0; i < gn; i++) cuGraphLaunch(ge, s);
        CHECK(cuStreamSynchronize(s));
        double per = (now() - t) / gn / 1e3;
        if (per < best) best = per;
    }
    printf("graph100 %.2f us\n", best);
    best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t = now();
        for (long i = 0; i < gn / 4; i++) { cuGraphLaunch(ge, s); cuStreamSynchronize(s); }
        double per = (now() - t) / (gn / 4) / 1e3;
        if (per < best) best = per;
    }
    printf("graph100+wait %.2f us\n", best);

    /* a graph made and used once, as ggml makes one when its graph changes: us per node of a capture of 1,000
       launches, its instantiation, its first launch and wait, and its destruction (best of 5 rounds, each phase) */
    double phase[4] = {1e30, 1e30, 1e30, 1e30};
    for (int round = 0; round < 6; round++) {
        double t[5];
        t[0] = now();
        CHECK(cuStreamBeginCapture(s, 0 /* GLOBAL */));
        for (int i = 0; i < 1000; i++) CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, args, 0));
        CHECK(cuStreamEndCapture(s, &g));
        t[1] = now();
        CHECK(cuGraphInstantiate(&ge, g, 0));
        t[2] = now();
        CHECK(cuGraphLaunch(ge, s));
        CHECK(cuStreamSynchronize(s));
        t[3] = now();
        CHECK(cuGraphExecDestroy(ge));
        CHECK(cuGraphDestroy(g));
        t[4] = now();
        for (int k = 0; round > 0 && k < 4; k++) if ((t[k + 1] - t[k]) / 1000 / 1e3 < phase[k]) phase[k] = (t[k + 1] - t[k]) / 1000 / 1e3;
    }
    printf("capture1000-node %.2f us\n", phase[0] + phase[1] + phase[2] + phase[3]);  /* per node, all four phases */
    const char *phases[4] = {"capture", "instantiate", "first-launch+wait", "destroy"};
    for (int k = 0; k < 4; k++) printf("capture1000-%s %.2f us\n", phases[k], phase[k]);
    return 0;
}
