/* ZLUDA-J benchmark: an LD_PRELOAD library that times an application's calls into CUDA's runtime and cuBLAS, the same
 * way natively and through ZLUDA-J, so that the cost of each call can be set side by side (run.sh ggml-gpt2-calls).
 * It wraps the entry points ggml's CUDA backend calls per token (nvcc's __cudaLaunchKernel, cudaMemcpyAsync, the cuBLAS GEMMs,
 * ...): each wrapper reads the monotonic clock around the call of the next definition (dlsym RTLD_NEXT). At exit it
 * writes a table to stderr (or to the file CALL_TIMER_OUT names): per function the calls, their total ms, the median,
 * 90th percentile and largest us of one call, and the ms its calls waited for since the thread's previous timed call
 * ended (the application's own work and calls not timed, before each); then the time between the first and last timed
 * call spent outside them.
 * Build: gcc -O2 -shared -fPIC -o libcall_timer.so call_timer.c -ldl; use: LD_PRELOAD=libcall_timer.so APP */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { unsigned x, y, z; } dim3;
typedef void *stream_t;
typedef void *handle_t;

enum { GET_KERNEL, LAUNCH, LAUNCH_NVCC, LAUNCH_EX, MEMCPY_ASYNC, MEMSET_ASYNC, STREAM_SYNC, GRAPH_LAUNCH, EVENT_RECORD, STREAM_WAIT_EVENT, GET_DEVICE,
       SET_DEVICE, BEGIN_CAPTURE, END_CAPTURE, GRAPH_EXEC_UPDATE, GEMM_EX, GEMM_STRIDED_BATCHED_EX, GEMM_BATCHED_EX,
       SGEMM, SET_STREAM, COUNT };
static const char *const NAMES[COUNT] = {
    "__cudaGetKernel", "cudaLaunchKernel", "__cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaStreamSynchronize", "cudaGraphLaunch",
    "cudaEventRecord", "cudaStreamWaitEvent", "cudaGetDevice", "cudaSetDevice", "cudaStreamBeginCapture",
    "cudaStreamEndCapture", "cudaGraphExecUpdate", "cublasGemmEx", "cublasGemmStridedBatchedEx", "cublasGemmBatchedEx",
    "cublasSgemm_v2", "cublasSetStream_v2"};

enum { MAX_SAMPLES = 1 << 20 };
static struct {
    void *next;
    uint64_t calls, total_ns, gap_ns;
    uint32_t *samples;  /* ns of each call (the first MAX_SAMPLES), for the percentiles */
} fn[COUNT];
static uint64_t first_ns, last_ns, inside_ns;
static __thread int depth;  /* a timed call made inside a timed call (cudart inside cuBLAS) is counted, not again as inside */
static __thread uint64_t thread_last;  /* when this thread's last outermost timed call ended */

static uint64_t now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *next(int i) {
    if (!fn[i].next) fn[i].next = dlsym(RTLD_NEXT, NAMES[i]);
    if (!fn[i].next) {
        fprintf(stderr, "call_timer: no definition of %s after this library\n", NAMES[i]);
        abort();
    }
    return fn[i].next;
}

static uint64_t begin(int i) {
    uint64_t t = now();
    if (!first_ns) first_ns = t;
    if (depth++ == 0 && thread_last) fn[i].gap_ns += t - thread_last;
    return t;
}

static void end(int i, uint64_t t0) {
    uint64_t t = now(), d = t - t0;
    if (--depth == 0) {
        inside_ns += d;
        thread_last = t;
    }
    last_ns = t;
    if (!fn[i].samples) fn[i].samples = malloc(sizeof(uint32_t) * MAX_SAMPLES);
    if (fn[i].samples && fn[i].calls < MAX_SAMPLES) fn[i].samples[fn[i].calls] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
    fn[i].calls++;
    fn[i].total_ns += d;
}

/* one wrapper: R NAME(PARAMS) { time next(ID)(ARGS) } */
#define TIMED(R, ID, NAME, PARAMS, ARGS)                 \
    R NAME PARAMS {                                      \
        R (*f) PARAMS = (R (*) PARAMS)next(ID);          \
        uint64_t t0 = begin(ID);                         \
        R r = f ARGS;                                    \
        end(ID, t0);                                     \
        return r;                                        \
    }

TIMED(int, LAUNCH, cudaLaunchKernel, (const void *func, dim3 grid, dim3 block, void **args, size_t shared, stream_t s),
      (func, grid, block, args, shared, s))
/* what nvcc 13's <<<...>>> calls: __cudaGetKernel once per kernel (cudart loads its module then, lazily), then
 * __cudaLaunchKernel with that cudaKernel_t in place of the stub's address */
TIMED(int, GET_KERNEL, __cudaGetKernel, (void **kernel, const void *stub), (kernel, stub))
TIMED(int, LAUNCH_NVCC, __cudaLaunchKernel, (void *kernel, dim3 grid, dim3 block, void **args, size_t shared, stream_t s),
      (kernel, grid, block, args, shared, s))
TIMED(int, LAUNCH_EX, cudaLaunchKernelExC, (const void *config, const void *func, void **args), (config, func, args))
TIMED(int, MEMCPY_ASYNC, cudaMemcpyAsync, (void *dst, const void *src, size_t n, int kind, stream_t s), (dst, src, n, kind, s))
TIMED(int, MEMSET_ASYNC, cudaMemsetAsync, (void *dst, int v, size_t n, stream_t s), (dst, v, n, s))
TIMED(int, STREAM_SYNC, cudaStreamSynchronize, (stream_t s), (s))
TIMED(int, GRAPH_LAUNCH, cudaGraphLaunch, (void *exec, stream_t s), (exec, s))
TIMED(int, EVENT_RECORD, cudaEventRecord, (void *e, stream_t s), (e, s))
TIMED(int, STREAM_WAIT_EVENT, cudaStreamWaitEvent, (stream_t s, void *e, unsigned flags), (s, e, flags))
TIMED(int, GET_DEVICE, cudaGetDevice, (int *dev), (dev))
TIMED(int, SET_DEVICE, cudaSetDevice, (int dev), (dev))
TIMED(int, BEGIN_CAPTURE, cudaStreamBeginCapture, (stream_t s, int mode), (s, mode))
TIMED(int, END_CAPTURE, cudaStreamEndCapture, (stream_t s, void **graph), (s, graph))
TIMED(int, GRAPH_EXEC_UPDATE, cudaGraphExecUpdate, (void *exec, void *graph, void *info), (exec, graph, info))
TIMED(int, GEMM_EX, cublasGemmEx,
      (handle_t h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int at, int lda, const void *b,
       int bt, int ldb, const void *beta, void *c, int ct, int ldc, int compute, int algo),
      (h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, compute, algo))
TIMED(int, GEMM_STRIDED_BATCHED_EX, cublasGemmStridedBatchedEx,
      (handle_t h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int at, int lda, long long sa,
       const void *b, int bt, int ldb, long long sb, const void *beta, void *c, int ct, int ldc, long long sc, int batch,
       int compute, int algo),
      (h, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc, sc, batch, compute, algo))
TIMED(int, GEMM_BATCHED_EX, cublasGemmBatchedEx,
      (handle_t h, int ta, int tb, int m, int n, int k, const void *alpha, const void *const *a, int at, int lda,
       const void *const *b, int bt, int ldb, const void *beta, void *const *c, int ct, int ldc, int batch, int compute,
       int algo),
      (h, ta, tb, m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, batch, compute, algo))
TIMED(int, SGEMM, cublasSgemm_v2,
      (handle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *a, int lda, const float *b,
       int ldb, const float *beta, float *c, int ldc),
      (h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
TIMED(int, SET_STREAM, cublasSetStream_v2, (handle_t h, stream_t s), (h, s))

static int by_value(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

__attribute__((destructor)) static void report(void) {
    if (!first_ns) return;  /* nothing timed (a process the application started, the launcher) */
    const char *path = getenv("CALL_TIMER_OUT");
    FILE *out = path && *path ? fopen(path, "a") : NULL;
    if (!out) out = stderr;
    fprintf(out, "call_timer: %-30s %9s %11s %9s %9s %11s %11s\n", "function", "calls", "total ms", "p50 us", "p90 us", "max us",
            "gap ms");
    for (int i = 0; i < COUNT; i++) {
        if (!fn[i].calls) continue;
        uint64_t kept = fn[i].calls < MAX_SAMPLES ? fn[i].calls : MAX_SAMPLES;
        double p50 = 0, p90 = 0, max = 0;
        if (fn[i].samples) {
            qsort(fn[i].samples, kept, sizeof(uint32_t), by_value);
            p50 = fn[i].samples[kept / 2] / 1e3;
            p90 = fn[i].samples[kept * 9 / 10] / 1e3;
            max = fn[i].samples[kept - 1] / 1e3;
        }
        fprintf(out, "call_timer: %-30s %9llu %11.3f %9.2f %9.2f %11.2f %11.3f\n", NAMES[i], (unsigned long long)fn[i].calls,
                fn[i].total_ns / 1e6, p50, p90, max, fn[i].gap_ns / 1e6);
    }
    fprintf(out, "call_timer: %-30s %9s %11.3f   (first to last timed call %.3f ms)\n", "outside the timed calls", "",
                (last_ns - first_ns - inside_ns) / 1e6, (last_ns - first_ns) / 1e6);
    if (out != stderr) fclose(out);
}
