/* ZLUDA-J shim: libcuda.so.1. Every CUDA driver export forwards to the JVM through zluda_call. */
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
#define ZLUDA_EXPORT __attribute__((visibility("default")))

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_DEINITIALIZED 4
#define CUDA_ERROR_OPERATING_SYSTEM 304
#define CUDA_ERROR_NOT_SUPPORTED 801
#define CUDA_ERROR_UNKNOWN 999

/* Calls driver function `id` (zluda_ids.h) in the JVM with its raw arguments; starts the JVM on first use. */
CUresult zluda_call(int id, const int64_t *args);

/* A CUDA library ZLUDA-J replaces (libcublas, libcublasLt): its generated exports call into the JVM through
 * zluda_library_call, exported by libcuda.so.1, which each library depends on. The class and method are resolved at
 * the library's first call. */
typedef struct zluda_library {
    const char *dispatch_class; /* "org/zludaj/api/cublas/Dispatch": static long callRaw(int id, long args), args[nargs] */
    int nargs;
    int64_t not_initialized;    /* the answer when no driver runs (the library's NOT_INITIALIZED status) */
    void *volatile cls;         /* resolved: a global reference to the class */
    void *volatile method;
    void *volatile upcall;      /* an upcall stub of callRaw once the JVM has made one (Upcalls), else NULL */
    int calls;                  /* calls through JNI so far (the stub is asked for after ZLUDA_UPCALL_AFTER of them) */
} zluda_library;

__attribute__((visibility("default"))) int64_t zluda_library_call(zluda_library *lib, int id, const int64_t *args);

/* 1 when ZLUDA_LOG=trace. */
extern int zluda_trace;

/* 1 once the process exits (calls answer CUDA_ERROR_DEINITIALIZED). */
int zluda_shutting_down(void);

/* Answers kept in C for the @memo functions of cuda-driver.api (memo.c): get answers from what was kept (1) or
 * not (0); put keeps a successful answer of the JVM. */
int zluda_memo_get(int id, const int64_t *args, CUresult *result);
void zluda_memo_put(int id, const int64_t *args);

/* Launches repeated without the JVM (launch.c), asked by memo.c for cuLaunchKernel (ptds 0) and its _ptsz variant. */
int zluda_launch_get(int ptds, const int64_t *args, CUresult *result);
void zluda_launch_put(int ptds, const int64_t *args);

/* A zeroed block of count * size bytes for the calling thread, freed when the thread ends, after which forget clears
 * the thread-local pointer that held it (thread.c); NULL without memory. */
void *zluda_thread_calloc(size_t count, size_t size, void (*forget)(void));

/* Device-to-device copies repeated without the JVM (copy.c), asked by memo.c for cuMemcpyDtoDAsync_v2 (ptds 0) and
 * its _ptsz variant. */
int zluda_copy_get(int ptds, const int64_t *args, CUresult *result);
void zluda_copy_put(int ptds, const int64_t *args);

/* cuBLAS GEMMs repeated without the JVM (blas.c), asked by the generated exports of cublas.api's @direct functions:
 * get makes the call from a kept GEMM (1, with its status) or leaves it to the JVM (0); put keeps what the JVM offered
 * for a call it made. */
ZLUDA_EXPORT int zluda_blas_get(int id, const int64_t *args, int64_t *status);
ZLUDA_EXPORT void zluda_blas_put(int id, const int64_t *args);

/* A 64-bit hash of a key word for the shim's tables: every bit of x moves every bit of the result (handles are aligned
 * addresses whose low bits are all zero; a plain multiply leaves those zero, and keys collide in a small table) */
static inline uint64_t zluda_mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ x >> 33;
}
static inline int64_t zluda_f32_bits(float f) { union { float f; uint32_t u; } c = {f}; return c.u; }
static inline int64_t zluda_f64_bits(double d) { union { double d; int64_t u; } c = {d}; return c.u; }

/* cuGetProcAddress: NVIDIA driver 580's answer for (name, flag) from `version` on (generated table). */
typedef struct {
    const char *name;
    int flag;
    int version;
    void *fn;
    int rc;
    int status;
} zluda_procaddr_entry;
extern const zluda_procaddr_entry zluda_procaddr_table[];
extern const int zluda_procaddr_count;
extern const char *const zluda_function_names[];
