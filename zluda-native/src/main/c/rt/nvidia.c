/* ZLUDA-J cuda backend, native side: NVIDIA's own driver, loaded privately, for org.zludaj.nativ.NvidiaDriver.
 *
 * Our libcuda.so.1 is already in the process under the same SONAME, so NVIDIA's is opened by absolute path with
 * RTLD_LOCAL | RTLD_DEEPBIND: its own internal references bind to itself, never to our exports, and nothing of it
 * becomes visible to the application (the LD_AUDIT library leaves requests with a '/' alone). (A namespace of its own
 * would be cleaner, but NVIDIA's driver answers cuInit with CUDA_ERROR_NOT_PERMITTED there inside the JVM's process.)
 * NVIDIA's cuBLAS and cuBLASLt (the cuda backend's BLAS) are opened on demand into a link-map namespace of their own
 * (dlmopen), whose libcuda.so.1 is libzluda_nvfwd.so: the CUDA runtime linked into them finds it there, and it
 * forwards to this NVIDIA driver, so cuBLAS shares the backend's context, memory and streams, and their own
 * libcublasLt.so.13 is NVIDIA's (in the application's namespace that name is ours). Every entry point makes the
 * backend's context current on the calling thread first (the driver calls from many threads). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <jni.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include "gpuvmm.h"
#include "hostrt.h"
#include <pthread.h>

#define JN(name) Java_org_zludaj_nativ_NvidiaDriver_##name
#define PTR(x) ((void *)(uintptr_t)(x))

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

/* The NVIDIA functions used, by the exact exported names (the _v2 ABI). */
#define NV_FUNCTIONS(X)                                                                                             \
    X(cuInit, CUresult, (unsigned))                                                                                \
    X(cuDeviceGetCount, CUresult, (int *))                                                                         \
    X(cuDeviceGet, CUresult, (int *, int))                                                                         \
    X(cuDeviceGetAttribute, CUresult, (int *, int, int))                                                           \
    X(cuDeviceGetName, CUresult, (char *, int, int))                                                               \
    X(cuDeviceTotalMem_v2, CUresult, (size_t *, int))                                                              \
    X(cuDevicePrimaryCtxRetain, CUresult, (void **, int))                                                          \
    X(cuCtxSetCurrent, CUresult, (void *))                                                                         \
    X(cuDevicePrimaryCtxReset_v2, CUresult, (int))                                                                         \
    X(cuCtxSynchronize, CUresult, (void))                                                                          \
    X(cuStreamCreate, CUresult, (void **, unsigned))                                                               \
    X(cuStreamDestroy_v2, CUresult, (void *))                                                                      \
    X(cuStreamSynchronize, CUresult, (void *))                                                                     \
    X(cuMemAlloc_v2, CUresult, (CUdeviceptr *, size_t))                                                            \
    X(cuMemFree_v2, CUresult, (CUdeviceptr))                                                                       \
    X(cuMemHostAlloc, CUresult, (void **, size_t, unsigned))                                                      \
    X(cuMemFreeHost, CUresult, (void *))                                                                           \
    X(cuMemAllocManaged, CUresult, (CUdeviceptr *, size_t, unsigned))                                             \
    X(cuMemcpy, CUresult, (CUdeviceptr, CUdeviceptr, size_t))                                                      \
    X(cuMemsetD8_v2, CUresult, (CUdeviceptr, unsigned char, size_t))                                              \
    X(cuMemsetD16_v2, CUresult, (CUdeviceptr, unsigned short, size_t))                                            \
    X(cuMemsetD32_v2, CUresult, (CUdeviceptr, unsigned, size_t))                                                  \
    X(cuMemcpyAsync, CUresult, (CUdeviceptr, CUdeviceptr, size_t, void *))                                         \
    X(cuMemsetD8Async, CUresult, (CUdeviceptr, unsigned char, size_t, void *))                                     \
    X(cuMemsetD16Async, CUresult, (CUdeviceptr, unsigned short, size_t, void *))                                   \
    X(cuMemsetD32Async, CUresult, (CUdeviceptr, unsigned, size_t, void *))                                         \
    X(cuModuleLoadDataEx, CUresult, (void **, const void *, unsigned, int *, void **))                            \
    X(cuModuleUnload, CUresult, (void *))                                                                          \
    X(cuModuleGetFunction, CUresult, (void **, void *, const char *))                                             \
    X(cuModuleGetGlobal_v2, CUresult, (CUdeviceptr *, size_t *, void *, const char *))                           \
    X(cuFuncSetAttribute, CUresult, (void *, int, int))                                                           \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, CUresult, (int *, void *, int, size_t))                        \
    X(cuFuncGetAttribute, CUresult, (int *, int, void *))                                                         \
    X(cuLaunchCooperativeKernel, CUresult, (void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
                                            void *, void **))                                                     \
    X(cuLaunchKernel, CUresult, (void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, \
                                 void **, void **))

#define DECLARE(name, ret, args) static ret(*nv_##name) args;
NV_FUNCTIONS(DECLARE)

/* NVIDIA's graphs, looked up by name (absent: graphBuild answers CUDA_ERROR_NOT_SUPPORTED) */
typedef struct {
    void *func;
    unsigned grid[3], block[3], shared;
    void **params, **extra;
} nv_kernel_node_params; /* CUDA_KERNEL_NODE_PARAMS_v1 */
static CUresult (*nv_cuGraphCreate)(void **, unsigned);
static CUresult (*nv_cuGraphAddKernelNode)(void **, void *, void **, size_t, const nv_kernel_node_params *);
static CUresult (*nv_cuGraphInstantiateWithFlags)(void **, void *, unsigned long long);
static CUresult (*nv_cuGraphLaunch)(void *, void *);
static CUresult (*nv_cuGraphExecDestroy)(void *);
static CUresult (*nv_cuGraphDestroy)(void *);
/* CUkernelNodeAttrValue is a 64-byte union; COOPERATIVE (2) reads its first int */
static CUresult (*nv_cuGraphKernelNodeSetAttribute)(void *, int, const void *);
static CUresult (*nv_cuGraphExecKernelNodeSetParams)(void *, void *, const nv_kernel_node_params *);
/* An executable graph uploaded when it is built (graphBuildRecords), on a private non-blocking stream: its first
 * launch then costs what later ones do */
static CUresult (*nv_cuGraphUpload)(void *, void *);
static void *upload_stream;
/* Stream capture of a replay's kernels and NVIDIA cuBLAS calls into one NVIDIA graph (captureBegin, captureEnd), on a
 * private non-blocking stream (a blocking one would forbid other threads' legacy-stream work while it captures) */
static CUresult (*nv_cuStreamBeginCapture_v2)(void *, int);
static CUresult (*nv_cuStreamEndCapture)(void *, void **);
static void *capture_stream;

/* Looked up by name, used where there: the current context asked after a cuBLAS call, device-to-device copies (the
 * shim's: cuMemcpyAsync first asks what memory each address is) */
static CUresult (*nv_cuCtxGetCurrent)(void **);
static CUresult (*nv_cuMemcpyDtoDAsync_v2)(CUdeviceptr, CUdeviceptr, size_t, void *);

/* Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap ...), looked up by name: gpuvmm.h. */
static struct gpu_vmm nv_vmm;

static void *ctx;
static void *nv_driver, *nv_cublas, *nv_cublaslt;
/* The namespace's own C library keeps per-thread state (the ctype tables isspace & co. read) that it sets up only
 * on the threads it started: every other thread calls its __ctype_init once before running code of that namespace. */
static void (*nv_ctype_init)(void);
static __thread int nv_ctype_ready;

/* NVIDIA's context made current on the calling thread, once per thread and context (cuCtxSetCurrent on every call
 * cost each launch and cuBLAS call its time): ctx_epoch changes when ctx is retained again, and a cuBLAS call (which
 * may change the thread's context) makes the thread set it again at its next call. */
static volatile int ctx_epoch = 1;
static __thread int ctx_epoch_set;
/* The device whose primary context the backend uses (retainPrimary), -1 before; the context itself is retained at the
 * first call that needs one: creating it takes NVIDIA's driver 100-150 ms, which cuInit need not wait for (NVIDIA's
 * cuInit creates no context either). */
static volatile int ctx_device = -1;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static CUresult current(void) {
    if (ctx_epoch_set == ctx_epoch) return 0;
    CUresult r = 0;
    if (!__atomic_load_n(&ctx, __ATOMIC_ACQUIRE)) {
        if (ctx_device < 0) return 0;
        pthread_mutex_lock(&ctx_lock);
        if (!ctx) {
            int d;
            void *c = NULL;
            r = nv_cuDeviceGet(&d, ctx_device);
            if (!r) r = nv_cuDevicePrimaryCtxRetain(&c, d);
            if (!r) {
                __atomic_store_n(&ctx, c, __ATOMIC_RELEASE);
                __atomic_add_fetch(&ctx_epoch, 1, __ATOMIC_SEQ_CST);
            }
        }
        pthread_mutex_unlock(&ctx_lock);
        if (r) return r;
    }
    r = nv_cuCtxSetCurrent(ctx);
    if (!r) ctx_epoch_set = ctx_epoch;
    return r;
}

/* Opens NVIDIA's driver at path; 0, or -1 with the reason in msg. */
JNIEXPORT jint JNICALL JN(open)(JNIEnv *e, jclass c, jstring path, jbyteArray msg) {
    (void)c;
    const char *p = (*e)->GetStringUTFChars(e, path, NULL);
    void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    (*e)->ReleaseStringUTFChars(e, path, p);
    nv_driver = h;
    char buf[512] = {0};
    if (!h) {
        snprintf(buf, sizeof buf, "%s", dlerror());
    } else {
#define RESOLVE(name, ret, args)                                                                                   \
        if (!buf[0] && !(nv_##name = (ret(*) args)dlsym(h, #name))) snprintf(buf, sizeof buf, "no symbol " #name);
        NV_FUNCTIONS(RESOLVE)
        nv_cuCtxGetCurrent = (CUresult(*)(void **))dlsym(h, "cuCtxGetCurrent");
        nv_cuMemcpyDtoDAsync_v2 = (CUresult(*)(CUdeviceptr, CUdeviceptr, size_t, void *))dlsym(h, "cuMemcpyDtoDAsync_v2");
        nv_cuGraphCreate = (CUresult(*)(void **, unsigned))dlsym(h, "cuGraphCreate");
        nv_cuGraphAddKernelNode = (CUresult(*)(void **, void *, void **, size_t, const nv_kernel_node_params *))dlsym(h, "cuGraphAddKernelNode");
        nv_cuGraphInstantiateWithFlags = (CUresult(*)(void **, void *, unsigned long long))dlsym(h, "cuGraphInstantiateWithFlags");
        nv_cuGraphLaunch = (CUresult(*)(void *, void *))dlsym(h, "cuGraphLaunch");
        nv_cuGraphExecDestroy = (CUresult(*)(void *))dlsym(h, "cuGraphExecDestroy");
        nv_cuGraphDestroy = (CUresult(*)(void *))dlsym(h, "cuGraphDestroy");
        nv_cuGraphKernelNodeSetAttribute = (CUresult(*)(void *, int, const void *))dlsym(h, "cuGraphKernelNodeSetAttribute");
        nv_cuStreamBeginCapture_v2 = (CUresult(*)(void *, int))dlsym(h, "cuStreamBeginCapture_v2");
        nv_cuStreamEndCapture = (CUresult(*)(void *, void **))dlsym(h, "cuStreamEndCapture");
        nv_cuGraphUpload = (CUresult(*)(void *, void *))dlsym(h, "cuGraphUpload");
        nv_cuGraphExecKernelNodeSetParams =
            (CUresult(*)(void *, void *, const nv_kernel_node_params *))dlsym(h, "cuGraphExecKernelNodeSetParams");
        nv_vmm.granularity = (int (*)(size_t *, const void *, int))dlsym(h, "cuMemGetAllocationGranularity");
        nv_vmm.create = (int (*)(uint64_t *, size_t, const void *, unsigned long long))dlsym(h, "cuMemCreate");
        nv_vmm.release = (int (*)(uint64_t))dlsym(h, "cuMemRelease");
        nv_vmm.reserve = (int (*)(uint64_t *, size_t, size_t, uint64_t, unsigned long long))dlsym(h, "cuMemAddressReserve");
        nv_vmm.address_free = (int (*)(uint64_t, size_t))dlsym(h, "cuMemAddressFree");
        nv_vmm.map = (int (*)(uint64_t, size_t, size_t, uint64_t, unsigned long long))dlsym(h, "cuMemMap");
        nv_vmm.unmap = (int (*)(uint64_t, size_t))dlsym(h, "cuMemUnmap");
        nv_vmm.set_access = (int (*)(uint64_t, size_t, const void *, size_t))dlsym(h, "cuMemSetAccess");
    }
    if (buf[0]) {
        jsize n = (*e)->GetArrayLength(e, msg);
        jsize len = (jsize)strlen(buf) < n ? (jsize)strlen(buf) : n;
        (*e)->SetByteArrayRegion(e, msg, 0, len, (const jbyte *)buf);
        return -1;
    }
    return 0;
}

/* preinit: the address of the shim's wait for its own cuInit of NVIDIA's driver on another thread, or 0 */
JNIEXPORT jint JNICALL JN(init)(JNIEnv *e, jclass c, jintArray count, jlong preinit) {
    (void)c;
    struct timespec t0, t1, t2, t3;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (preinit) ((void (*)(void))(uintptr_t)preinit)();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CUresult r = nv_cuInit(0);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    int n = 0;
    if (!r) r = nv_cuDeviceGetCount(&n);
    clock_gettime(CLOCK_MONOTONIC, &t3);
    if (getenv("ZLUDA_START_TRACE") && !strcmp(getenv("ZLUDA_START_TRACE"), "1"))
        fprintf(stderr, "ZLUDA-J start: NVIDIA's driver: waited for the pre-init %.1f ms, cuInit %.1f ms, cuDeviceGetCount %.1f ms\n",
                (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6, (t2.tv_sec - t1.tv_sec) * 1e3 + (t2.tv_nsec - t1.tv_nsec) * 1e-6,
                (t3.tv_sec - t2.tv_sec) * 1e3 + (t3.tv_nsec - t2.tv_nsec) * 1e-6);
    (*e)->SetIntArrayRegion(e, count, 0, 1, &n);
    return r;
}

/* Makes the device's primary context the backend's: retained at the first call that needs it (current). */
JNIEXPORT jint JNICALL JN(retainPrimary)(JNIEnv *e, jclass c, jint dev) {
    (void)e; (void)c;
    int d;
    CUresult r = nv_cuDeviceGet(&d, dev);
    if (!r) ctx_device = dev;
    return r;
}

JNIEXPORT jint JNICALL JN(attribute)(JNIEnv *e, jclass c, jint dev, jint attr) {
    (void)e; (void)c;
    int v = 0;
    return nv_cuDeviceGetAttribute(&v, attr, dev) ? 0 : v;
}

JNIEXPORT jstring JNICALL JN(name)(JNIEnv *e, jclass c, jint dev) {
    (void)c;
    char buf[256] = {0};
    nv_cuDeviceGetName(buf, sizeof buf - 1, dev);
    return (*e)->NewStringUTF(e, buf);
}

JNIEXPORT jlong JNICALL JN(totalMemory)(JNIEnv *e, jclass c, jint dev) {
    (void)e; (void)c;
    size_t t = 0;
    nv_cuDeviceTotalMem_v2(&t, dev);
    return (jlong)t;
}

static jint out1(JNIEnv *e, jlongArray out, CUresult r, uint64_t v) {
    jlong x = (jlong)v;
    if (!r) (*e)->SetLongArrayRegion(e, out, 0, 1, &x);
    return r;
}

/* kind: 0 device, 1 page-locked host (portable, mapped), 2 managed. */
JNIEXPORT jint JNICALL JN(alloc)(JNIEnv *e, jclass c, jint kind, jlong size, jlongArray out) {
    (void)c;
    CUresult r = current();
    if (r) return r;
    if (kind == 1) {
        void *p = NULL;
        r = nv_cuMemHostAlloc(&p, (size_t)size, 0x1 | 0x2);
        return out1(e, out, r, (uintptr_t)p);
    }
    CUdeviceptr p = 0;
    r = kind == 2 ? nv_cuMemAllocManaged(&p, (size_t)size, 1) : nv_cuMemAlloc_v2(&p, (size_t)size);
    return out1(e, out, r, p);
}

JNIEXPORT jint JNICALL JN(free)(JNIEnv *e, jclass c, jint kind, jlong p) {
    (void)e; (void)c;
    CUresult r = current();
    return r ? r : kind == 1 ? nv_cuMemFreeHost(PTR(p)) : nv_cuMemFree_v2((CUdeviceptr)p);
}

JNIEXPORT jint JNICALL JN(copy)(JNIEnv *e, jclass c, jlong dst, jlong src, jlong n) {
    (void)e; (void)c;
    CUresult r = current();
    return r ? r : nv_cuMemcpy((CUdeviceptr)dst, (CUdeviceptr)src, (size_t)n);
}

JNIEXPORT jint JNICALL JN(fill)(JNIEnv *e, jclass c, jlong dst, jint size, jint value, jlong count) {
    (void)e; (void)c;
    CUresult r = current();
    if (r) return r;
    switch (size) {
        case 1: return nv_cuMemsetD8_v2((CUdeviceptr)dst, (unsigned char)value, (size_t)count);
        case 2: return nv_cuMemsetD16_v2((CUdeviceptr)dst, (unsigned short)value, (size_t)count);
        default: return nv_cuMemsetD32_v2((CUdeviceptr)dst, (unsigned)value, (size_t)count);
    }
}

/* A copy queued on a stream (pageable host memory: NVIDIA's driver returns once it is done with it). Also what the
 * shim calls for the device-to-device copies it repeats without the JVM (shim/copy.c, directCopyFunction). */
static CUresult direct_copy(uint64_t dst, uint64_t src, size_t n, void *stream) {
    if (n == 0) return 0;
    CUresult r = current();
    return r ? r : nv_cuMemcpyAsync((CUdeviceptr)dst, (CUdeviceptr)src, n, stream);
}

JNIEXPORT jint JNICALL JN(copyAsync)(JNIEnv *e, jclass c, jlong dst, jlong src, jlong n, jlong stream) {
    (void)e; (void)c;
    return direct_copy((uint64_t)dst, (uint64_t)src, (size_t)n, PTR(stream));
}

/* The shim's device-to-device copies (shim/copy.c, directCopyFunction): NVIDIA's DtoD copy where it has one. */
static CUresult direct_copy_dtod(uint64_t dst, uint64_t src, size_t n, void *stream) {
    if (n == 0 || !nv_cuMemcpyDtoDAsync_v2) return direct_copy(dst, src, n, stream);
    CUresult r = current();
    return r ? r : nv_cuMemcpyDtoDAsync_v2((CUdeviceptr)dst, (CUdeviceptr)src, n, stream);
}

JNIEXPORT jlong JNICALL JN(directCopyFunction)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    return (jlong)(uintptr_t)&direct_copy_dtod;
}

JNIEXPORT jint JNICALL JN(fillAsync)(JNIEnv *e, jclass c, jlong dst, jint size, jint value, jlong count, jlong stream) {
    (void)e; (void)c;
    CUresult r = current();
    if (r) return r;
    switch (size) {
        case 1: return nv_cuMemsetD8Async((CUdeviceptr)dst, (unsigned char)value, (size_t)count, PTR(stream));
        case 2: return nv_cuMemsetD16Async((CUdeviceptr)dst, (unsigned short)value, (size_t)count, PTR(stream));
        default: return nv_cuMemsetD32Async((CUdeviceptr)dst, (unsigned)value, (size_t)count, PTR(stream));
    }
}

/* Loads PTX; on failure NVIDIA's JIT error log goes to log. */
JNIEXPORT jint JNICALL JN(moduleLoad)(JNIEnv *e, jclass c, jbyteArray ptx, jlongArray out, jbyteArray log) {
    (void)c;
    CUresult r = current();
    if (r) return r;
    jsize n = (*e)->GetArrayLength(e, ptx);
    char *text = (char *)(*e)->GetByteArrayElements(e, ptx, NULL);
    char errors[8192] = {0};
    int options[] = {5 /* CU_JIT_ERROR_LOG_BUFFER */, 6 /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */};
    void *values[] = {errors, (void *)(uintptr_t)(sizeof errors - 1)};
    void *m = NULL;
    (void)n;
    r = nv_cuModuleLoadDataEx(&m, text, 2, options, values);
    (*e)->ReleaseByteArrayElements(e, ptx, (jbyte *)text, JNI_ABORT);
    if (r) {
        jsize cap = (*e)->GetArrayLength(e, log), len = (jsize)strlen(errors);
        (*e)->SetByteArrayRegion(e, log, 0, len < cap ? len : cap, (const jbyte *)errors);
        return r;
    }
    return out1(e, out, 0, (uintptr_t)m);
}

JNIEXPORT jint JNICALL JN(function)(JNIEnv *e, jclass c, jlong module, jstring name, jlongArray out) {
    (void)c;
    CUresult r = current();
    if (r) return r;
    const char *s = (*e)->GetStringUTFChars(e, name, NULL);
    void *f = NULL;
    r = nv_cuModuleGetFunction(&f, PTR(module), s);
    (*e)->ReleaseStringUTFChars(e, name, s);
    return out1(e, out, r, (uintptr_t)f);
}

/* out[0] address, out[1] size. */
JNIEXPORT jint JNICALL JN(global)(JNIEnv *e, jclass c, jlong module, jstring name, jlongArray out) {
    (void)c;
    CUresult r = current();
    if (r) return r;
    const char *s = (*e)->GetStringUTFChars(e, name, NULL);
    CUdeviceptr p = 0;
    size_t bytes = 0;
    r = nv_cuModuleGetGlobal_v2(&p, &bytes, PTR(module), s);
    (*e)->ReleaseStringUTFChars(e, name, s);
    if (!r) {
        jlong v[2] = {(jlong)p, (jlong)bytes};
        (*e)->SetLongArrayRegion(e, out, 0, 2, v);
    }
    return r;
}

JNIEXPORT jint JNICALL JN(functionAttribute)(JNIEnv *e, jclass c, jlong f, jint attr) {
    (void)e; (void)c;
    int v = 0;
    if (current()) return 0;
    return nv_cuFuncGetAttribute(&v, attr, PTR(f)) ? 0 : v;
}

/* Blocks of function f resident per multiprocessor (NVIDIA's count: its registers, threads and shared memory), -1 on
 * error. Dynamic shared memory over 48 KiB is first allowed on the function, as a launch of that size would. */
JNIEXPORT jint JNICALL JN(occupancy)(JNIEnv *e, jclass c, jlong f, jint blockSize, jlong shared) {
    (void)e; (void)c;
    int n = 0;
    if (current()) return -1;
    if (shared > 48 * 1024 && nv_cuFuncSetAttribute(PTR(f), 8 /* MAX_DYNAMIC_SHARED_SIZE_BYTES */, (int)shared)) return -1;
    return nv_cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, PTR(f), blockSize, (size_t)shared) ? -1 : n;
}

/* Queues a launch on `stream` (0: NVIDIA's legacy stream); the driver waits where the host must see it done. Also
 * what the shim calls for a launch it repeats without the JVM (shim/launch.c, directLaunchFunction). */
static CUresult direct_launch(void *f, int gx, int gy, int gz, int bx, int by, int bz, int shared, void *params, void *stream) {
    CUresult r = current();
    if (r) return r;
    if (shared > 48 * 1024) {
        r = nv_cuFuncSetAttribute(f, 8 /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */, shared);
        if (r) return r;
    }
    /* a blocking stream and the legacy stream order it with later copies and frees */
    return nv_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, (void **)params, NULL);
}

JNIEXPORT jint JNICALL JN(launch)(JNIEnv *e, jclass c, jlong f, jint gx, jint gy, jint gz, jint bx, jint by, jint bz,
                                  jint shared, jlong params, jlong stream) {
    (void)e; (void)c;
    return direct_launch(PTR(f), gx, gy, gz, bx, by, bz, shared, PTR(params), PTR(stream));
}

JNIEXPORT jlong JNICALL JN(directLaunchFunction)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    return (jlong)(uintptr_t)&direct_launch;
}

/* A blocking stream (it synchronizes with the legacy stream, so plain copies stay ordered after its kernels). */
JNIEXPORT jint JNICALL JN(streamCreate)(JNIEnv *e, jclass c, jlongArray out) {
    (void)c;
    CUresult r = current();
    void *s = NULL;
    if (!r) r = nv_cuStreamCreate(&s, 0);
    if (!r) {
        jlong v = (jlong)(uintptr_t)s;
        (*e)->SetLongArrayRegion(e, out, 0, 1, &v);
    }
    return r;
}

JNIEXPORT jint JNICALL JN(streamDestroy)(JNIEnv *e, jclass c, jlong s) {
    (void)e; (void)c;
    CUresult r = current();
    return r ? r : nv_cuStreamDestroy_v2(PTR(s));
}

JNIEXPORT jint JNICALL JN(streamSynchronize)(JNIEnv *e, jclass c, jlong s) {
    (void)e; (void)c;
    CUresult r = current();
    return r ? r : nv_cuStreamSynchronize(PTR(s));
}

/* After a kernel fault NVIDIA's context is unusable: reset the primary context and retain it again (everything
 * allocated or loaded in it is gone, as for an application that recreates its context). */
JNIEXPORT jint JNICALL JN(reset)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    CUresult r = nv_cuDevicePrimaryCtxReset_v2(0);
    capture_stream = NULL; /* they belonged to the context that is gone */
    upload_stream = NULL;
    if (!r) r = nv_cuDevicePrimaryCtxRetain(&ctx, 0);
    __atomic_add_fetch(&ctx_epoch, 1, __ATOMIC_SEQ_CST);
    return r ? r : current();
}

/* A cooperative launch queued on `stream` as a plain launch is (NVIDIA's driver gives it the grid workspace that
 * cooperative groups read from %envreg1/%envreg2); a fault shows at the next synchronization. */
JNIEXPORT jint JNICALL JN(launchCooperative)(JNIEnv *e, jclass c, jlong f, jint gx, jint gy, jint gz, jint bx, jint by,
                                             jint bz, jint shared, jlong params, jlong stream) {
    (void)e; (void)c;
    CUresult r = current();
    if (r) return r;
    if (shared > 48 * 1024) {
        r = nv_cuFuncSetAttribute(PTR(f), 8 /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */, shared);
        if (r) return r;
    }
    return nv_cuLaunchCooperativeKernel(PTR(f), gx, gy, gz, bx, by, bz, shared, PTR(stream), (void **)PTR(params));
}

JNIEXPORT jint JNICALL JN(synchronize)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    CUresult r = current();
    return r ? r : nv_cuCtxSynchronize();
}

/* One virtual memory operation (gpuvmm.h) on device `dev`; its result, if any, in out[0]. */
JNIEXPORT jint JNICALL JN(vmm)(JNIEnv *e, jclass c, jint op, jint dev, jlong a, jlong b, jlong x, jlong d, jlongArray out) {
    (void)c;
    /* a device's granularity is asked at cuInit, before NVIDIA's context is made: without one first */
    CUresult r = op == VMM_GRANULARITY ? 0 : current();
    if (r) return r;
    uint64_t v = 0;
    r = gpu_vmm_call(&nv_vmm, 801 /* CUDA_ERROR_NOT_SUPPORTED */, op, dev, (uint64_t)a, (uint64_t)b, (uint64_t)x, (uint64_t)d, &v);
    if (r && r != 801 && op == VMM_GRANULARITY && !(r = current()))
        r = gpu_vmm_call(&nv_vmm, 801, op, dev, (uint64_t)a, (uint64_t)b, (uint64_t)x, (uint64_t)d, &v);
    return out1(e, out, r, v);
}

/* --------------------------------------------------------------------------------- NVIDIA's cuBLAS (cuda backend) */

/* Opens NVIDIA's cuBLASLt, then cuBLAS (which needs it), by absolute paths into a new namespace whose libcuda.so.1 is
 * the forwarder `fwd` (libzluda_nvfwd.so, loaded there first and pointed at NVIDIA's driver); 0, or -1 with the
 * reason in msg. cuBLASLt first: cuBLAS's dependency then resolves to it, not to a libcublasLt.so.13 that
 * LD_LIBRARY_PATH may name (ours). */
JNIEXPORT jint JNICALL JN(openBlas)(JNIEnv *e, jclass c, jstring fwd, jstring cublas, jstring cublaslt, jbyteArray msg) {
    (void)c;
    char buf[512] = {0};
    const char *pf = (*e)->GetStringUTFChars(e, fwd, NULL), *pl = (*e)->GetStringUTFChars(e, cublaslt, NULL),
               *pb = (*e)->GetStringUTFChars(e, cublas, NULL);
    if (!nv_cublas) {
        void *f = nv_driver ? dlmopen(LM_ID_NEWLM, pf, RTLD_NOW | RTLD_LOCAL) : NULL;
        Lmid_t lm = LM_ID_BASE;
        int (*init)(void *) = f ? (int (*)(void *))dlsym(f, "zluda_nvfwd_init") : NULL;
        if (!nv_driver) snprintf(buf, sizeof buf, "NVIDIA's driver is not open");
        else if (!f || !init || dlinfo(f, RTLD_DI_LMID, &lm) != 0) snprintf(buf, sizeof buf, "%s: %s", pf, dlerror());
        else if (init(nv_driver) < 100) snprintf(buf, sizeof buf, "%s: NVIDIA's driver lacks its functions", pf);
        else {
            if (!(nv_cublaslt = dlmopen(lm, pl, RTLD_NOW | RTLD_LOCAL))) snprintf(buf, sizeof buf, "%s", dlerror());
            else if (!(nv_cublas = dlmopen(lm, pb, RTLD_NOW | RTLD_LOCAL))) snprintf(buf, sizeof buf, "%s", dlerror());
            void *libc = nv_cublas ? dlmopen(lm, "libc.so.6", RTLD_NOW | RTLD_NOLOAD) : NULL;
            nv_ctype_init = libc ? (void (*)(void))dlsym(libc, "__ctype_init") : NULL;
        }
    }
    (*e)->ReleaseStringUTFChars(e, fwd, pf);
    (*e)->ReleaseStringUTFChars(e, cublaslt, pl);
    (*e)->ReleaseStringUTFChars(e, cublas, pb);
    if (!buf[0]) return 0;
    jsize n = (*e)->GetArrayLength(e, msg), len = (jsize)strlen(buf) < n ? (jsize)strlen(buf) : n;
    (*e)->SetByteArrayRegion(e, msg, 0, len, (const jbyte *)buf);
    return -1;
}

/* The address of a cuBLAS or cuBLASLt function, 0 when neither library has it. */
JNIEXPORT jlong JNICALL JN(blasSymbol)(JNIEnv *e, jclass c, jstring name) {
    (void)c;
    const char *n = (*e)->GetStringUTFChars(e, name, NULL);
    void *f = nv_cublas ? dlsym(nv_cublas, n) : NULL;
    if (!f && nv_cublaslt) f = dlsym(nv_cublaslt, n);
    (*e)->ReleaseStringUTFChars(e, name, n);
    return (jlong)(uintptr_t)f;
}

/* Calls cuBLAS function fn (rt/blascall.c: arguments and slots), after making the backend's context current; its
 * cublasStatus_t. */
/* What a call of NVIDIA's cuBLAS needs first: the backend's context current, the thread's ctype tables in cuBLAS's
 * namespace; 0 or a CUresult. */
static int blas_prepare(void) {
    CUresult r = current();
    if (r) return r;
    if (!nv_ctype_ready && nv_ctype_init) {
        nv_ctype_init();
        nv_ctype_ready = 1;
    }
    return 0;
}

/* cuBLAS may have made another context current: then the next call makes the backend's current again (asking costs a
 * read of the driver's thread state; setting it again after every GEMM cost the next launch or copy about 1 us) */
static void blas_after(void) {
    void *now = NULL;
    if (!nv_cuCtxGetCurrent || nv_cuCtxGetCurrent(&now) || now != ctx) ctx_epoch_set = 0;
}

JNIEXPORT jint JNICALL JN(blasCall)(JNIEnv *e, jclass c, jlong fn, jlongArray args, jlongArray slots) {
    (void)c;
    if (blas_prepare()) return 14; /* CUBLAS_STATUS_INTERNAL_ERROR */
    int r = zluda_blas_call(e, PTR(fn), args, slots);
    blas_after();
    return r < 0 ? 7 /* CUBLAS_STATUS_INVALID_VALUE */ : r;
}

/* A GEMM the shim repeats without the JVM (shim/blas.c, directBlasFunction): as blasCall, under the BLAS epoch. */
static int direct_blas(void *fn, int64_t epoch, const int64_t *args) {
    return zluda_blas_direct(fn, epoch, args, blas_prepare, blas_after);
}

JNIEXPORT jlong JNICALL JN(directBlasFunction)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    return (jlong)(uintptr_t)&direct_blas;
}

/* One launch of graphBuild's or graphSetParams' array (10 values: function, grid x/y/z, block x/y/z, dynamic shared
 * bytes, kernelParams, and cooperative or a node handle) as NVIDIA's node parameters. */
static nv_kernel_node_params node_params(const jlong *v) {
    nv_kernel_node_params p = {PTR(v[0]), {(unsigned)v[1], (unsigned)v[2], (unsigned)v[3]},
                               {(unsigned)v[4], (unsigned)v[5], (unsigned)v[6]}, (unsigned)v[7], (void **)PTR(v[8]), NULL};
    return p;
}

/* One node of a chain: its parameters and whether it is a cooperative launch. */
typedef struct {
    nv_kernel_node_params p;
    int cooperative;
} chain_node;

/* graphBuild's array: 10 values per launch, the last one cooperative (0/1). */
static chain_node array_node(const void *values, jsize i) {
    const jlong *v = (const jlong *)values + 10 * i;
    chain_node n = {node_params(v), v[9] != 0};
    return n;
}

/* LaunchRecords' records: 9 words per launch, the first 9 values of graphBuild's (none cooperative). */
static chain_node record_node(const void *records, jsize i) {
    chain_node n = {node_params((const jlong *)records + 9 * i), 0};
    return n;
}

/* An executable NVIDIA graph of n kernel launches run one after the other (each node after the one before), node i
 * given by at(src, i), whose arguments NVIDIA copies here: the executable in o[0], its graph in o[1] (kept: its nodes
 * name the executable's to graphSetParams), node i in o[2 + i]; nothing kept on an error. */
static CUresult build_chain(jsize n, chain_node (*at)(const void *, jsize), const void *src, jlong *o) {
    void *graph = NULL, *prev = NULL, *exec = NULL;
    CUresult r = nv_cuGraphCreate(&graph, 0);
    for (jsize i = 0; !r && i < n; i++) {
        chain_node c = at(src, i);
        if (c.p.shared > 48 * 1024) r = nv_cuFuncSetAttribute(c.p.func, 8 /* MAX_DYNAMIC_SHARED_SIZE_BYTES */, (int)c.p.shared);
        void *node = NULL;
        if (!r) r = nv_cuGraphAddKernelNode(&node, graph, prev ? &prev : NULL, prev ? 1 : 0, &c.p);
        if (!r && c.cooperative) {  /* a cooperative launch: the node's COOPERATIVE attribute, as a captured one has */
            long long value[8] = {1};
            r = nv_cuGraphKernelNodeSetAttribute ? nv_cuGraphKernelNodeSetAttribute(node, 2, value) : 801;
        }
        o[2 + i] = (jlong)(uintptr_t)node;
        prev = node;
    }
    if (!r) r = nv_cuGraphInstantiateWithFlags(&exec, graph, 0);
    if (r && graph) nv_cuGraphDestroy(graph);
    o[0] = r ? 0 : (jlong)(uintptr_t)exec;
    o[1] = r ? 0 : (jlong)(uintptr_t)graph;
    return r;
}

static int has_graphs(void) {
    return nv_cuGraphCreate && nv_cuGraphAddKernelNode && nv_cuGraphInstantiateWithFlags && nv_cuGraphLaunch &&
           nv_cuGraphExecDestroy && nv_cuGraphDestroy;
}

/* An executable NVIDIA graph of kernel launches, one after the other: nodes holds 10 values per launch (function,
 * grid x/y/z, block x/y/z, dynamic shared bytes, kernelParams, cooperative), whose arguments NVIDIA copies here. The
 * executable's handle in out[0], the graph it was made of in out[1] (kept: its nodes name the executable's to
 * graphSetParams) and each launch's node in out[2 + i]; CUDA_ERROR_NOT_SUPPORTED (801) where NVIDIA's driver lacks
 * graphs. */
JNIEXPORT jint JNICALL JN(graphBuild)(JNIEnv *e, jclass c, jlongArray nodes, jlongArray out) {
    (void)c;
    if (!has_graphs()) return 801;
    CUresult r = current();
    if (r) return r;
    jsize n = (*e)->GetArrayLength(e, nodes);
    if ((*e)->GetArrayLength(e, out) < 2 + n / 10) return 1; /* CUDA_ERROR_INVALID_VALUE */
    jlong *v = (*e)->GetLongArrayElements(e, nodes, NULL);
    jlong *o = (*e)->GetLongArrayElements(e, out, NULL);
    if (!v || !o) {
        if (v) (*e)->ReleaseLongArrayElements(e, nodes, v, JNI_ABORT);
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    }
    r = build_chain(n / 10, array_node, v, o);
    (*e)->ReleaseLongArrayElements(e, nodes, v, JNI_ABORT);
    (*e)->ReleaseLongArrayElements(e, out, o, 0);
    return r;
}

/* The background builds and the process's exit: exit() waits for the build in flight (an atexit handler registered
 * at the first build runs before NVIDIA's own exit handlers and library destructors), and none starts after it. */
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;
static int build_exit_registered, build_exiting;

static void builds_done(void) {
    pthread_mutex_lock(&build_lock);
    build_exiting = 1;
    pthread_mutex_unlock(&build_lock);
}

/* graphBuild of `count` LaunchRecords at `records` (none cooperative), then uploaded (cuGraphUpload on a private
 * non-blocking stream, waited for; where the driver has it, and not an error where it fails: the first launch uploads
 * then). Made on the cuda backend's graph-building thread while the replays run the records themselves. */
JNIEXPORT jint JNICALL JN(graphBuildRecords)(JNIEnv *e, jclass c, jlong records, jint count, jlongArray out) {
    (void)c;
    if (!has_graphs()) return 801;
    CUresult r = current();
    if (r) return r;
    if ((*e)->GetArrayLength(e, out) < 2 + count) return 1; /* CUDA_ERROR_INVALID_VALUE */
    jlong *o = (*e)->GetLongArrayElements(e, out, NULL);
    if (!o) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    pthread_mutex_lock(&build_lock);
    if (!build_exit_registered) build_exit_registered = atexit(builds_done) == 0;
    if (build_exiting) r = 4; /* CUDA_ERROR_DEINITIALIZED */
    if (!r) r = build_chain(count, record_node, PTR(records), o);
    if (!r && nv_cuGraphUpload) {
        CUresult u = upload_stream ? 0 : nv_cuStreamCreate(&upload_stream, 1 /* CU_STREAM_NON_BLOCKING */);
        if (!u) u = nv_cuGraphUpload(PTR(o[0]), upload_stream);
        if (!u) nv_cuStreamSynchronize(upload_stream);
    }
    pthread_mutex_unlock(&build_lock);
    (*e)->ReleaseLongArrayElements(e, out, o, 0);
    return r;
}

/* `count` LaunchRecords launched one after the other on `stream`, as direct_launch launches each; the first error
 * stops it. */
JNIEXPORT jint JNICALL JN(launchRecords)(JNIEnv *e, jclass c, jlong records, jint count, jlong stream) {
    (void)e; (void)c;
    const int64_t *r = PTR(records);
    for (jint i = 0; i < count; i++, r += 9) {
        CUresult x = direct_launch(PTR(r[0]), (int)r[1], (int)r[2], (int)r[3], (int)r[4], (int)r[5], (int)r[6], (int)r[7],
                                   PTR(r[8]), PTR(stream));
        if (x) return x;
    }
    return 0;
}

/* New parameters for nodes of a graphBuild executable, in place (cuGraphExecKernelNodeSetParams): 10 values per node
 * (function, grid x/y/z, block x/y/z, dynamic shared bytes, kernelParams, the node from graphBuild's out). 801 where
 * NVIDIA's driver lacks the call: the caller makes the graph again. */
JNIEXPORT jint JNICALL JN(graphSetParams)(JNIEnv *e, jclass c, jlong exec, jlongArray nodes) {
    (void)c;
    if (!nv_cuGraphExecKernelNodeSetParams) return 801;
    CUresult r = current();
    if (r) return r;
    jsize n = (*e)->GetArrayLength(e, nodes);
    jlong *v = (*e)->GetLongArrayElements(e, nodes, NULL);
    if (!v) return 2;
    for (jsize i = 0; !r && i + 10 <= n; i += 10) {
        nv_kernel_node_params p = node_params(v + i);
        if (p.shared > 48 * 1024) r = nv_cuFuncSetAttribute(p.func, 8, (int)p.shared);
        if (!r) r = nv_cuGraphExecKernelNodeSetParams(PTR(exec), PTR(v[i + 9]), &p);
    }
    (*e)->ReleaseLongArrayElements(e, nodes, v, JNI_ABORT);
    return r;
}

/* Begins capturing the private capture stream (made at the first call, non-blocking) in relaxed mode, as ggml captures:
 * its handle in out[0]. 801 where NVIDIA's driver lacks stream capture or graphs. One capture at a time: the caller's. */
JNIEXPORT jint JNICALL JN(captureBegin)(JNIEnv *e, jclass c, jlongArray out) {
    (void)c;
    if (!nv_cuStreamBeginCapture_v2 || !nv_cuStreamEndCapture || !nv_cuGraphInstantiateWithFlags || !nv_cuGraphLaunch ||
        !nv_cuGraphExecDestroy || !nv_cuGraphDestroy)
        return 801;
    CUresult r = current();
    if (!r && !capture_stream) r = nv_cuStreamCreate(&capture_stream, 1 /* CU_STREAM_NON_BLOCKING */);
    if (!r) r = nv_cuStreamBeginCapture_v2(capture_stream, 2 /* CU_STREAM_CAPTURE_MODE_RELAXED */);
    if (!r) {
        jlong v = (jlong)(uintptr_t)capture_stream;
        (*e)->SetLongArrayRegion(e, out, 0, 1, &v);
    }
    return r;
}

/* Ends captureBegin's capture of {@code stream} and instantiates what it captured: the executable in out[0], its graph
 * in out[1] (graphLaunch and graphDestroy take both); an error of either step leaves nothing (the graph destroyed). */
JNIEXPORT jint JNICALL JN(captureEnd)(JNIEnv *e, jclass c, jlong stream, jlongArray out) {
    (void)c;
    CUresult r = current();
    if (r) return r;
    void *graph = NULL, *exec = NULL;
    r = nv_cuStreamEndCapture(PTR(stream), &graph);
    if (!r && !graph) r = 901; /* CUDA_ERROR_STREAM_CAPTURE_INVALIDATED */
    if (!r) r = nv_cuGraphInstantiateWithFlags(&exec, graph, 0);
    if (r && graph) nv_cuGraphDestroy(graph);
    jlong v[2] = {r ? 0 : (jlong)(uintptr_t)exec, r ? 0 : (jlong)(uintptr_t)graph};
    (*e)->SetLongArrayRegion(e, out, 0, 2, v);
    return r;
}

JNIEXPORT jint JNICALL JN(graphLaunch)(JNIEnv *e, jclass c, jlong exec, jlong stream) {
    (void)e; (void)c;
    CUresult r = current();
    return r ? r : nv_cuGraphLaunch(PTR(exec), PTR(stream));
}

JNIEXPORT jint JNICALL JN(graphDestroy)(JNIEnv *e, jclass c, jlong exec, jlong graph) {
    (void)e; (void)c;
    CUresult r = current();
    if (r) return r;
    r = nv_cuGraphExecDestroy(PTR(exec));
    CUresult g = graph ? nv_cuGraphDestroy(PTR(graph)) : 0;
    return r ? r : g;
}
