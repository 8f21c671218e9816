/* A recording fake of NVIDIA's libcuda.so.1 for the cuda backend's tests (CudaBackendFakeTest): every function the
 * backend opens answers at once as a one-GPU sm_90 driver would; kernels do nothing. Launches and graph calls are
 * appended to the file FAKE_NVIDIA_LOG names, one line each, with the first 8 bytes of each launch's first argument,
 * so that a test can check the exact calls the backend made. A kernel named "fault" faults: the next synchronization
 * answers CUDA_ERROR_LAUNCH_FAILED (719) until the primary context is reset. FAKE_NVIDIA_INIT_MS makes the first cuInit
 * take that long.
 * Build: gcc -shared -fPIC -o libfake_nvidia.so fake_nvidia.c */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void record(const char *fmt, ...) {
    const char *path = getenv("FAKE_NVIDIA_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}
/* where the driver was asked to queue work: NVIDIA's legacy stream (CU_STREAM_LEGACY), stream 0, or a created one */
static const char *on(void *stream) {
    return stream == (void *)1 ? " on the legacy stream" : stream == NULL ? " on stream 0" : "";
}

static long long first_arg(void **params) {
    long long v = 0;
    if (params && params[0]) memcpy(&v, params[0], 8);
    return v;
}

/* FAKE_NVIDIA_INIT_MS: cuInit takes that long, as NVIDIA's own does (about 100 ms), for timing ZLUDA-J's start around it */
#include <time.h>
CUresult cuInit(unsigned f) {
    (void)f;
    static int done;
    const char *ms = getenv("FAKE_NVIDIA_INIT_MS");
    if (ms && !__atomic_exchange_n(&done, 1, __ATOMIC_SEQ_CST)) {
        long n = atol(ms);
        struct timespec t = {n / 1000, n % 1000 * 1000000};
        nanosleep(&t, NULL);
    }
    return 0;
}
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int o) { (void)o; *d = 0; return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) {
    (void)d;
    switch (a) {
    case 1: case 2: case 3: *v = 1024; break;            /* threads per block, block x/y */
    case 4: *v = 64; break;
    case 5: *v = 2147483647; break;
    case 6: case 7: *v = 65535; break;
    case 8: *v = 49152; break;
    case 9: *v = 65536; break;
    case 10: *v = 32; break;
    case 12: case 82: *v = 65536; break;
    case 16: *v = 132; break;
    case 39: *v = 2048; break;
    case 41: *v = 1; break;
    case 75: *v = 9; break;                               /* sm_90 */
    case 76: *v = 0; break;
    case 81: *v = 233472; break;
    case 95: *v = 1; break;                               /* cooperative launch */
    case 97: *v = 232448; break;
    case 106: *v = 32; break;                             /* blocks per multiprocessor */
    default: *v = 0;
    }
    return 0;
}
CUresult cuDeviceGetName(char *n, int len, int d) { (void)d; snprintf(n, len, "Fake NVIDIA GPU"); return 0; }
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { (void)d; *b = 80ull << 30; return 0; }
static int context;
CUresult cuDevicePrimaryCtxRetain(void **c, int d) {
    (void)d;
    *c = &context;
    record("primary context retained");
    return 0;
}
/* the calling thread's current context; with FAKE_NVIDIA_CTX set, each setting is logged ("context set") */
static __thread void *current_context;
CUresult cuCtxSetCurrent(void *c) {
    current_context = c;
    if (getenv("FAKE_NVIDIA_CTX")) record("context set");
    return 0;
}
CUresult cuCtxGetCurrent(void **c) { *c = current_context; return 0; }
static int faulted;
CUresult cuDevicePrimaryCtxReset_v2(int d) { (void)d; faulted = 0; return 0; }
CUresult cuCtxSynchronize(void) { record("context synchronize"); return faulted ? 719 : 0; }
CUresult cuStreamCreate(void **s, unsigned f) {
    *s = malloc(16);
    record("stream created, %s", f == 1 ? "non-blocking" : f == 0 ? "blocking" : "unknown flags");
    return 0;
}
CUresult cuStreamDestroy_v2(void *s) { free(s); return 0; }
CUresult cuStreamSynchronize(void *s) { (void)s; return faulted ? 719 : 0; }
static void *block(size_t n) { return aligned_alloc(256, (n + 511) / 256 * 256); }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)(uintptr_t)block(n); return 0; }
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return 0; }
CUresult cuMemHostAlloc(void **p, size_t n, unsigned f) { (void)f; *p = block(n); return 0; }
CUresult cuMemFreeHost(void *p) { free(p); return 0; }
CUresult cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned f) { (void)f; return cuMemAlloc_v2(p, n); }
CUresult cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n) { memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { memset((void *)(uintptr_t)d, v, n); return 0; }
CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, void *stream) {
    record("copy of %zu bytes%s", n, on(stream));
    return cuMemcpy(d, s, n);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *stream) {
    record("copy of %zu bytes%s", n, on(stream));
    return cuMemcpy(d, s, n);
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *stream) { (void)stream; return cuMemsetD8_v2(d, v, n); }
CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n) {
    for (size_t i = 0; i < n; i++) ((unsigned short *)(uintptr_t)d)[i] = v;
    return 0;
}
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n) {
    for (size_t i = 0; i < n; i++) ((unsigned *)(uintptr_t)d)[i] = v;
    return 0;
}
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, void *stream) { (void)stream; return cuMemsetD16_v2(d, v, n); }
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, void *stream) {
    record("set of %zu words%s", n, on(stream));
    return cuMemsetD32_v2(d, v, n);
}
CUresult cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *o, void **v) {
    (void)img; (void)n; (void)o; (void)v;
    *m = malloc(16);
    return 0;
}
CUresult cuModuleUnload(void *m) { free(m); return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { (void)m; *f = strdup(name); return 0; }
CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *b, void *m, const char *name) {
    (void)m; (void)name;
    if (p) *p = (CUdeviceptr)(uintptr_t)calloc(1, 4096);
    if (b) *b = 4096;
    return 0;
}
CUresult cuFuncSetAttribute(void *f, int a, int v) { (void)f; (void)a; (void)v; return 0; }
/* the fake's kernels use 96 registers: NUM_REGS 96, 640 threads per block at most (65536 / 96, in warps) */
CUresult cuFuncGetAttribute(int *v, int a, void *f) { (void)f; *v = a == 0 ? 640 : a == 4 ? 96 : 0; return 0; }
/* blocks per multiprocessor by the fake's 96 registers a thread (65536 registers, in warps of 32) */
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int block, size_t shared) {
    (void)f; (void)shared;
    record("cuOccupancyMaxActiveBlocksPerMultiprocessor block=%d shared=%zu", block, shared);
    *n = block <= 0 ? 0 : 65536 / (96 * ((block + 31) / 32 * 32));
    return 0;
}
/* stream capture (cuStreamBeginCapture_v2 .. cuStreamEndCapture): launches on the capturing stream are counted as the
 * captured graph's nodes and recorded as "captured launch ..." */
static void *capturing;
static int captured_nodes;
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
    (void)gy; (void)gz; (void)by; (void)bz; (void)stream; (void)extra;
    if (capturing && stream == capturing) {
        captured_nodes++;
        record("captured launch %s grid %u block %u shared %u arg %lld", (const char *)f, gx, bx, shared, first_arg(params));
        return 0;
    }
    if (!strcmp((const char *)f, "fault")) {  /* takes no arguments */
        faulted = 1;
        record("launch fault");
        return 0;
    }
    record("launch %s grid %u block %u shared %u arg %lld%s", (const char *)f, gx, bx, shared, first_arg(params),
           on(stream));
    return 0;
}
CUresult cuLaunchCooperativeKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                   void *stream, void **params) {
    (void)gy; (void)gz; (void)by; (void)bz;
    record("cooperative launch %s grid %u block %u shared %u arg %lld %s", (const char *)f, gx, bx, shared, first_arg(params),
           stream ? "on a stream" : "on the null stream");
    return 0;
}

/* graphs: a graph is a count of nodes; an executable remembers how many it has */
typedef struct { void *func; unsigned grid[3], block[3], shared; void **params, **extra; } kernel_node_params_v1;
typedef struct { int nodes; } fake_graph;
static int graph_ids;
CUresult cuGraphCreate(void **g, unsigned flags) { (void)flags; *g = calloc(1, sizeof(fake_graph)); return 0; }
CUresult cuGraphAddKernelNode(void **node, void *g, void **deps, size_t ndeps, const kernel_node_params_v1 *p) {
    (void)deps;
    fake_graph *graph = g;
    graph->nodes++;
    *node = malloc(1);
    record("graph node %s grid %u block %u shared %u arg %lld deps %zu", (const char *)p->func, p->grid[0], p->block[0], p->shared,
           first_arg(p->params), ndeps);
    return 0;
}
CUresult cuGraphKernelNodeSetAttribute(void *node, int attr, const void *value) {
    (void)node;
    record("graph node attribute %d = %d", attr, *(const int *)value);
    return 0;
}
CUresult cuGraphExecKernelNodeSetParams(void *exec, void *node, const kernel_node_params_v1 *p) {
    (void)node;
    record("graph exec %d node %s grid %u block %u shared %u arg %lld", ((int *)exec)[0], (const char *)p->func, p->grid[0],
           p->block[0], p->shared, first_arg(p->params));
    return 0;
}
CUresult cuGraphInstantiateWithFlags(void **exec, void *g, unsigned long long flags) {
    (void)flags;
    int *e = malloc(2 * sizeof(int));
    e[0] = ++graph_ids;
    e[1] = ((fake_graph *)g)->nodes;
    *exec = e;
    record("graph instantiate %d of %d nodes", e[0], e[1]);
    return 0;
}
CUresult cuStreamBeginCapture_v2(void *stream, int mode) {
    if (capturing) return 900; /* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: one at a time here */
    capturing = stream;
    captured_nodes = 0;
    record("capture begin, mode %d", mode);
    return 0;
}
CUresult cuStreamEndCapture(void *stream, void **g) {
    if (!capturing || stream != capturing) return 901; /* CUDA_ERROR_STREAM_CAPTURE_INVALIDATED */
    if (getenv("FAKE_NVIDIA_CAPTURE_FAILS")) {  /* as when something in the capture was not capturable */
        capturing = NULL;
        *g = NULL;
        record("capture end: invalidated");
        return 901;
    }
    fake_graph *graph = calloc(1, sizeof(fake_graph));
    graph->nodes = captured_nodes;
    capturing = NULL;
    *g = graph;
    record("capture end, %d kernel launches", captured_nodes);
    return 0;
}
CUresult cuGraphLaunch(void *exec, void *stream) {
    record("graph launch %d%s", ((int *)exec)[0], on(stream));
    return 0;
}
CUresult cuGraphUpload(void *exec, void *stream) {
    record("graph upload %d%s", ((int *)exec)[0], on(stream));
    return 0;
}
CUresult cuGraphExecDestroy(void *exec) { record("graph destroy %d", ((int *)exec)[0]); free(exec); return 0; }
CUresult cuGraphDestroy(void *g) { free(g); return 0; }
