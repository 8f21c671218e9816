/* ZLUDA-J hip backend, native side: the HIP runtime (libamdhip64) loaded at run time for org.zludaj.nativ.HipRuntime.
 * Nothing of ROCm is needed to build: the functions are looked up by name in the library found first among
 * ZLUDA_HIP_LIB, libamdhip64.so.7, .so.6, the unversioned name and .so.5. Only functions whose ABI is the same in
 * ROCm 5, 6 and 7 are used (hipDeviceProp_t changed: the architecture name is read by hipGetDevicePropertiesR0600
 * where it exists). Every call returns HIP's hipError_t; the Java side maps it (HipMappings). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuvmm.h"
#include "hostrt.h"

#define JN(name) Java_org_zludaj_nativ_HipRuntime_##name
#define PTR(x) ((void *)(uintptr_t)(x))

typedef int hipError_t;

#define HIP_FUNCTIONS(X)                                                                                            \
    X(hipInit, (unsigned))                                                                                         \
    X(hipGetDeviceCount, (int *))                                                                                  \
    X(hipSetDevice, (int))                                                                                         \
    X(hipDeviceGetAttribute, (int *, int, int))                                                                    \
    X(hipDeviceGetName, (char *, int, int))                                                                        \
    X(hipDeviceTotalMem, (size_t *, int))                                                                          \
    X(hipMalloc, (void **, size_t))                                                                                \
    X(hipFree, (void *))                                                                                           \
    X(hipHostMalloc, (void **, size_t, unsigned))                                                                  \
    X(hipHostFree, (void *))                                                                                       \
    X(hipMallocManaged, (void **, size_t, unsigned))                                                               \
    X(hipMemcpy, (void *, const void *, size_t, int))                                                              \
    X(hipMemcpy2D, (void *, size_t, const void *, size_t, size_t, size_t, int))                                     \
    X(hipMemsetD8, (void *, unsigned char, size_t))                                                                \
    X(hipMemsetD16, (void *, unsigned short, size_t))                                                              \
    X(hipMemsetD32, (void *, int, size_t))                                                                         \
    X(hipMemcpyAsync, (void *, const void *, size_t, int, void *))                                                 \
    X(hipMemsetD8Async, (void *, unsigned char, size_t, void *))                                                   \
    X(hipMemsetD16Async, (void *, unsigned short, size_t, void *))                                                 \
    X(hipMemsetD32Async, (void *, int, size_t, void *))                                                            \
    X(hipModuleLoadData, (void **, const void *))                                                                  \
    X(hipModuleGetFunction, (void **, void *, const char *))                                                       \
    X(hipModuleGetGlobal, (void **, size_t *, void *, const char *))                                               \
    X(hipModuleLaunchKernel, (void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, \
                              void **, void **))                                                                   \
    X(hipDeviceSynchronize, (void))                                                                                \
    X(hipStreamCreate, (void **))                                                                                  \
    X(hipStreamDestroy, (void *))                                                                                  \
    X(hipStreamSynchronize, (void *))

#define DECLARE(name, args) static hipError_t(*hip_##name) args;
HIP_FUNCTIONS(DECLARE)
static hipError_t (*hip_props)(void *, int); /* hipGetDevicePropertiesR0600, else hipGetDeviceProperties */
/* optional (ROCm 6 and later): hipModuleLaunchCooperativeKernel */
/* optional: peer access between GPUs */
static hipError_t (*hip_can_access_peer)(int *, int, int);
static hipError_t (*hip_enable_peer)(int, unsigned);
static hipError_t (*hip_disable_peer)(int);
/* optional: virtual memory management (hipMemCreate, hipMemAddressReserve, hipMemMap ...), gpuvmm.h */
static struct gpu_vmm hip_vmm;
static hipError_t (*hip_cooperative)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **);
/* hipModuleOccupancyMaxActiveBlocksPerMultiprocessor and hipFuncGetAttribute (optional: looked up by themselves) */
static hipError_t (*hip_occupancy)(int *, void *, int, size_t);
static hipError_t (*hip_func_attribute)(int *, int, void *);

/* Opens the HIP runtime; 0 and the file in msg, or -1 with the reason in msg. */
JNIEXPORT jint JNICALL JN(open)(JNIEnv *e, jclass c, jbyteArray msg) {
    (void)c;
    const char *names[] = {getenv("ZLUDA_HIP_LIB"), "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so", "libamdhip64.so.5"};
    char buf[512] = {0};
    void *h = NULL;
    for (size_t i = 0; i < sizeof names / sizeof *names && !h; i++) {
        if (!names[i] || !*names[i]) continue;
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) snprintf(buf, sizeof buf, "%s", names[i]);
    }
    int r = 0;
    if (!h) {
        snprintf(buf, sizeof buf, "no HIP runtime (libamdhip64.so.7/.6/.5; ZLUDA_HIP_LIB names another)");
        r = -1;
    } else {
#define RESOLVE(name, args)                                                                                        \
        if (!r && !(hip_##name = (hipError_t(*) args)dlsym(h, #name))) { snprintf(buf, sizeof buf, "no symbol " #name); r = -1; }
        HIP_FUNCTIONS(RESOLVE)
        hip_props = (hipError_t(*)(void *, int))dlsym(h, "hipGetDevicePropertiesR0600");
        if (!hip_props) hip_props = (hipError_t(*)(void *, int))dlsym(h, "hipGetDeviceProperties");
        hip_can_access_peer = (hipError_t(*)(int *, int, int))dlsym(h, "hipDeviceCanAccessPeer");
        hip_enable_peer = (hipError_t(*)(int, unsigned))dlsym(h, "hipDeviceEnablePeerAccess");
        hip_disable_peer = (hipError_t(*)(int))dlsym(h, "hipDeviceDisablePeerAccess");
        hip_vmm.granularity = (int (*)(size_t *, const void *, int))dlsym(h, "hipMemGetAllocationGranularity");
        hip_vmm.create = (int (*)(uint64_t *, size_t, const void *, unsigned long long))dlsym(h, "hipMemCreate");
        hip_vmm.release = (int (*)(uint64_t))dlsym(h, "hipMemRelease");
        hip_vmm.reserve = (int (*)(uint64_t *, size_t, size_t, uint64_t, unsigned long long))dlsym(h, "hipMemAddressReserve");
        hip_vmm.address_free = (int (*)(uint64_t, size_t))dlsym(h, "hipMemAddressFree");
        hip_vmm.map = (int (*)(uint64_t, size_t, size_t, uint64_t, unsigned long long))dlsym(h, "hipMemMap");
        hip_vmm.unmap = (int (*)(uint64_t, size_t))dlsym(h, "hipMemUnmap");
        hip_vmm.set_access = (int (*)(uint64_t, size_t, const void *, size_t))dlsym(h, "hipMemSetAccess");
        hip_cooperative = (hipError_t(*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                                         void **))dlsym(h, "hipModuleLaunchCooperativeKernel");
        hip_occupancy = (hipError_t(*)(int *, void *, int, size_t))dlsym(h, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor");
        hip_func_attribute = (hipError_t(*)(int *, int, void *))dlsym(h, "hipFuncGetAttribute");
    }
    jsize n = (*e)->GetArrayLength(e, msg), len = (jsize)strlen(buf);
    (*e)->SetByteArrayRegion(e, msg, 0, len < n ? len : n, (const jbyte *)buf);
    return r;
}

JNIEXPORT jint JNICALL JN(init)(JNIEnv *e, jclass c, jintArray count) {
    (void)c;
    hipError_t r = hip_hipInit(0);
    int n = 0;
    if (!r) r = hip_hipGetDeviceCount(&n);
    (*e)->SetIntArrayRegion(e, count, 0, 1, &n);
    return r;
}

JNIEXPORT jint JNICALL JN(setDevice)(JNIEnv *e, jclass c, jint dev) { (void)e; (void)c; return hip_hipSetDevice(dev); }

JNIEXPORT jint JNICALL JN(attribute)(JNIEnv *e, jclass c, jint dev, jint attr, jintArray out) {
    (void)c;
    int v = 0;
    hipError_t r = hip_hipDeviceGetAttribute(&v, attr, dev);
    if (!r) (*e)->SetIntArrayRegion(e, out, 0, 1, &v);
    return r;
}

JNIEXPORT jstring JNICALL JN(name)(JNIEnv *e, jclass c, jint dev) {
    (void)c;
    char buf[256] = {0};
    hip_hipDeviceGetName(buf, sizeof buf - 1, dev);
    return (*e)->NewStringUTF(e, buf);
}

JNIEXPORT jlong JNICALL JN(totalMemory)(JNIEnv *e, jclass c, jint dev) {
    (void)e; (void)c;
    size_t t = 0;
    return hip_hipDeviceTotalMem(&t, dev) ? 0 : (jlong)t;
}

/* The gcnArchName of the device ("gfx1100:sramecc-:xnack-"), found in the properties structure by its "gfx"
 * prefix, so that the layouts of ROCm 5 and 6/7 both work; "" when there is none. */
JNIEXPORT jstring JNICALL JN(archName)(JNIEnv *e, jclass c, jint dev) {
    (void)c;
    static unsigned char props[8192];
    memset(props, 0, sizeof props);
    char out[256] = {0};
    if (hip_props && !hip_props(props, dev)) {
        for (size_t i = 256; i + 4 < sizeof props; i++) {  /* past name[256] */
            if (props[i] == 'g' && props[i + 1] == 'f' && props[i + 2] == 'x' && props[i + 3] >= '0' && props[i + 3] <= '9' &&
                (props[i - 1] == 0)) {
                snprintf(out, sizeof out, "%s", (const char *)props + i);
                break;
            }
        }
    }
    return (*e)->NewStringUTF(e, out);
}

static jint out1(JNIEnv *e, jlongArray out, hipError_t r, void *p) {
    jlong v = (jlong)(uintptr_t)p;
    if (!r) (*e)->SetLongArrayRegion(e, out, 0, 1, &v);
    return r;
}

/* kind 0 device, 1 page-locked host (mapped), 2 managed. */
JNIEXPORT jint JNICALL JN(alloc)(JNIEnv *e, jclass c, jint kind, jlong size, jlongArray out) {
    (void)c;
    void *p = NULL;
    hipError_t r = kind == 1 ? hip_hipHostMalloc(&p, (size_t)size, 0x2 /* hipHostMallocMapped */)
                 : kind == 2 ? hip_hipMallocManaged(&p, (size_t)size, 1 /* hipMemAttachGlobal */)
                             : hip_hipMalloc(&p, (size_t)size);
    return out1(e, out, r, p);
}

JNIEXPORT jint JNICALL JN(free)(JNIEnv *e, jclass c, jint kind, jlong p) {
    (void)e; (void)c;
    return kind == 1 ? hip_hipHostFree(PTR(p)) : hip_hipFree(PTR(p));
}

JNIEXPORT jint JNICALL JN(copy)(JNIEnv *e, jclass c, jlong dst, jlong src, jlong n) {
    (void)e; (void)c;
    return hip_hipMemcpy(PTR(dst), PTR(src), (size_t)n, 4 /* hipMemcpyDefault */);
}

JNIEXPORT jint JNICALL JN(copy2D)(JNIEnv *e, jclass c, jlong dst, jlong dpitch, jlong src, jlong spitch, jlong width,
                                  jlong height) {
    (void)e; (void)c;
    return hip_hipMemcpy2D(PTR(dst), (size_t)dpitch, PTR(src), (size_t)spitch, (size_t)width, (size_t)height, 4 /* hipMemcpyDefault */);
}

JNIEXPORT jint JNICALL JN(fill)(JNIEnv *e, jclass c, jlong dst, jint size, jint value, jlong count) {
    (void)e; (void)c;
    switch (size) {
        case 1: return hip_hipMemsetD8(PTR(dst), (unsigned char)value, (size_t)count);
        case 2: return hip_hipMemsetD16(PTR(dst), (unsigned short)value, (size_t)count);
        default: return hip_hipMemsetD32(PTR(dst), value, (size_t)count);
    }
}

/* A copy queued on a stream (HIP copies pageable host memory synchronously). */
JNIEXPORT jint JNICALL JN(copyAsync)(JNIEnv *e, jclass c, jlong dst, jlong src, jlong n, jlong stream) {
    (void)e; (void)c;
    return hip_hipMemcpyAsync(PTR(dst), PTR(src), (size_t)n, 4 /* hipMemcpyDefault */, PTR(stream));
}

/* What the shim calls for the device-to-device copies it repeats without the JVM (shim/copy.c): HipBackend.copyAsync's
 * call, nothing for no bytes */
static int direct_copy(uint64_t dst, uint64_t src, size_t n, void *stream) {
    return n == 0 ? 0 : hip_hipMemcpyAsync((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n, 4 /* hipMemcpyDefault */, stream);
}

JNIEXPORT jlong JNICALL JN(directCopyFunction)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    return (jlong)(uintptr_t)&direct_copy;
}

JNIEXPORT jint JNICALL JN(fillAsync)(JNIEnv *e, jclass c, jlong dst, jint size, jint value, jlong count, jlong stream) {
    (void)e; (void)c;
    switch (size) {
        case 1: return hip_hipMemsetD8Async(PTR(dst), (unsigned char)value, (size_t)count, PTR(stream));
        case 2: return hip_hipMemsetD16Async(PTR(dst), (unsigned short)value, (size_t)count, PTR(stream));
        default: return hip_hipMemsetD32Async(PTR(dst), value, (size_t)count, PTR(stream));
    }
}

JNIEXPORT jint JNICALL JN(moduleLoad)(JNIEnv *e, jclass c, jbyteArray image, jlongArray out) {
    (void)c;
    jsize n = (*e)->GetArrayLength(e, image);
    void *copy = malloc((size_t)n);  /* HIP may keep the pointer: a copy that lives with the module */
    (*e)->GetByteArrayRegion(e, image, 0, n, copy);
    void *m = NULL;
    hipError_t r = hip_hipModuleLoadData(&m, copy);
    if (r) free(copy);
    return out1(e, out, r, m);
}

JNIEXPORT jint JNICALL JN(function)(JNIEnv *e, jclass c, jlong module, jstring name, jlongArray out) {
    (void)c;
    const char *s = (*e)->GetStringUTFChars(e, name, NULL);
    void *f = NULL;
    hipError_t r = hip_hipModuleGetFunction(&f, PTR(module), s);
    (*e)->ReleaseStringUTFChars(e, name, s);
    return out1(e, out, r, f);
}

JNIEXPORT jint JNICALL JN(global)(JNIEnv *e, jclass c, jlong module, jstring name, jlongArray out) {
    (void)c;
    const char *s = (*e)->GetStringUTFChars(e, name, NULL);
    void *p = NULL;
    size_t bytes = 0;
    hipError_t r = hip_hipModuleGetGlobal(&p, &bytes, PTR(module), s);
    (*e)->ReleaseStringUTFChars(e, name, s);
    if (!r) {
        jlong v[2] = {(jlong)(uintptr_t)p, (jlong)bytes};
        (*e)->SetLongArrayRegion(e, out, 0, 2, v);
    }
    return r;
}

/* hipModuleLaunchKernel; also what the shim calls for the launches it repeats without the JVM (shim/launch.c) */
static int direct_launch(void *f, int gx, int gy, int gz, int bx, int by, int bz, int shared, void *params, void *stream) {
    return hip_hipModuleLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, (void **)params, NULL);
}

JNIEXPORT jint JNICALL JN(launch)(JNIEnv *e, jclass c, jlong f, jint gx, jint gy, jint gz, jint bx, jint by, jint bz,
                                  jint shared, jlong params, jlong stream) {
    (void)e; (void)c;
    return direct_launch(PTR(f), gx, gy, gz, bx, by, bz, shared, PTR(params), PTR(stream));
}

/* A graph's replay (HipBackend.kernelSequence): count launches of 9 words each (function, grid x/y/z, block x/y/z,
 * dynamic shared bytes, kernelParams), one after the other; the first error stops it. */
JNIEXPORT jint JNICALL JN(launchSequence)(JNIEnv *e, jclass c, jlong records, jint count, jlong stream) {
    (void)e; (void)c;
    const int64_t *r = PTR(records);
    for (jint i = 0; i < count; i++, r += 9) {
        hipError_t x = hip_hipModuleLaunchKernel(PTR(r[0]), (unsigned)r[1], (unsigned)r[2], (unsigned)r[3], (unsigned)r[4], (unsigned)r[5],
                                                 (unsigned)r[6], (unsigned)r[7], PTR(stream), (void **)PTR(r[8]), NULL);
        if (x) return x;
    }
    return 0;
}

JNIEXPORT jlong JNICALL JN(directLaunchFunction)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    return (jlong)(uintptr_t)&direct_launch;
}

JNIEXPORT jint JNICALL JN(streamCreate)(JNIEnv *e, jclass c, jlongArray out) {
    (void)c;
    void *s = NULL;
    hipError_t r = hip_hipStreamCreate(&s);
    return out1(e, out, r, s);
}

JNIEXPORT jint JNICALL JN(streamDestroy)(JNIEnv *e, jclass c, jlong s) { (void)e; (void)c; return hip_hipStreamDestroy(PTR(s)); }

JNIEXPORT jint JNICALL JN(streamSynchronize)(JNIEnv *e, jclass c, jlong s) { (void)e; (void)c; return hip_hipStreamSynchronize(PTR(s)); }

JNIEXPORT jint JNICALL JN(synchronize)(JNIEnv *e, jclass c) { (void)e; (void)c; return hip_hipDeviceSynchronize(); }

/* Device printf (printf.c's buffered records): the module's __zluda_printf holds the buffer's address; the buffer is
 * device memory whose header carries the capacity. */
JNIEXPORT jint JNICALL JN(printfInit)(JNIEnv *e, jclass c, jlong global, jlong buffer, jlong capacity) {
    (void)e; (void)c;
    uint32_t header[4] = {0, (uint32_t)capacity, 0, 0};
    hipError_t r = hip_hipMemsetD8(PTR(buffer), 0, (size_t)capacity);
    if (!r) r = hip_hipMemcpy(PTR(buffer), header, sizeof header, 1 /* hipMemcpyHostToDevice */);
    uint64_t pointer = (uint64_t)buffer;
    if (!r) r = hip_hipMemcpy(PTR(global), &pointer, sizeof pointer, 1);
    return r;
}

static int hip_copy(void *ctx, void *dst, uint64_t src, size_t n) {
    (void)ctx;
    return n ? hip_hipMemcpy(dst, PTR(src), n, 2 /* hipMemcpyDeviceToHost */) : 0;
}

static int hip_zero(void *ctx, uint64_t dst, size_t n) {
    (void)ctx;
    return n ? hip_hipMemsetD8(PTR(dst), 0, n) : 0;
}

/* Prints and empties the buffer after a kernel: asserts << 32 | lines, or -1 when it cannot be read. */
JNIEXPORT jlong JNICALL JN(printfDrain)(JNIEnv *e, jclass c, jlong buffer) {
    (void)e; (void)c;
    int asserts = 0, printed = zluda_printf_drain((uint64_t)buffer, hip_copy, hip_zero, NULL, &asserts);
    return printed < 0 ? -1 : ((jlong)asserts << 32) | (uint32_t)printed;
}

/* A cooperative launch (every block resident at once) on the null stream; 801 (hipErrorNotSupported) without it. */
JNIEXPORT jint JNICALL JN(launchCooperative)(JNIEnv *e, jclass c, jlong f, jint gx, jint gy, jint gz, jint bx, jint by,
                                             jint bz, jint shared, jlong params) {
    (void)e; (void)c;
    if (!hip_cooperative) return 801;
    return hip_cooperative(PTR(f), gx, gy, gz, bx, by, bz, shared, NULL, (void **)PTR(params));
}

/* Blocks of function f resident per compute unit by HIP's own count (its registers too), -1 where HIP has no answer. */
JNIEXPORT jint JNICALL JN(occupancy)(JNIEnv *e, jclass c, jlong f, jint blockSize, jlong shared) {
    (void)e; (void)c;
    int n = 0;
    if (!hip_occupancy || hip_occupancy(&n, PTR(f), blockSize, (size_t)shared)) return -1;
    return n;
}

/* hipFuncGetAttribute (the CUDA numbering: 0 MAX_THREADS_PER_BLOCK, 4 NUM_REGS), -1 where HIP has no answer. */
JNIEXPORT jint JNICALL JN(functionAttribute)(JNIEnv *e, jclass c, jlong f, jint attribute) {
    (void)e; (void)c;
    int v = 0;
    if (!hip_func_attribute || hip_func_attribute(&v, attribute, PTR(f))) return -1;
    return v;
}

JNIEXPORT jboolean JNICALL JN(hasCooperativeLaunch)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    return hip_cooperative != NULL;
}

/* Whether the runtime has the eight virtual memory functions. */
JNIEXPORT jboolean JNICALL JN(hasVirtualMemory)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    return gpu_vmm_complete(&hip_vmm) ? JNI_TRUE : JNI_FALSE;
}

/* One virtual memory operation (gpuvmm.h) on HIP device `dev`; its result, if any, in out[0]. */
JNIEXPORT jint JNICALL JN(vmm)(JNIEnv *e, jclass c, jint op, jint dev, jlong a, jlong b, jlong x, jlong d, jlongArray out) {
    (void)c;
    uint64_t v = 0;
    hipError_t r = gpu_vmm_call(&hip_vmm, 801 /* hipErrorNotSupported */, op, dev, (uint64_t)a, (uint64_t)b, (uint64_t)x, (uint64_t)d, &v);
    return out1(e, out, r, (void *)(uintptr_t)v);
}

/* Peer access: op 0 hipDeviceCanAccessPeer(dev, peer) -> out[0]; 1 hipDeviceEnablePeerAccess(peer, 0) and 2
 * hipDeviceDisablePeerAccess(peer) for the calling thread's current device. hipErrorNotSupported where missing. */
JNIEXPORT jint JNICALL JN(peer)(JNIEnv *e, jclass c, jint op, jint dev, jint peer, jintArray out) {
    (void)c;
    if (op == 0) {
        int v = 0;
        if (!hip_can_access_peer) return 801;
        hipError_t r = hip_can_access_peer(&v, dev, peer);
        if (!r) (*e)->SetIntArrayRegion(e, out, 0, 1, &v);
        return r;
    }
    if (op == 1) return hip_enable_peer ? hip_enable_peer(peer, 0) : 801;
    return hip_disable_peer ? hip_disable_peer(peer) : 801;
}

/* ------------------------------------------------------------------------------------------ rocBLAS (hip backend) */

static void *rocblas;

/* Opens rocBLAS: the first of ZLUDA_ROCBLAS_LIB, librocblas.so.5 (ROCm 7), .so.4 (ROCm 6), .so.0 (Debian's package)
 * and /opt/rocm/lib/librocblas.so; 0, or -1 with the reason in msg. */
JNIEXPORT jint JNICALL JN(rocblasOpen)(JNIEnv *e, jclass c, jbyteArray msg) {
    (void)c;
    const char *env = getenv("ZLUDA_ROCBLAS_LIB");
    const char *names[] = {env && *env ? env : NULL, "librocblas.so.5", "librocblas.so.4", "librocblas.so.0",
                           "/opt/rocm/lib/librocblas.so"};
    char buf[512] = {0};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !rocblas; i++) {
        if (!names[i]) continue;
        rocblas = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!rocblas && !buf[0]) snprintf(buf, sizeof buf, "%s", dlerror());
    }
    if (rocblas) return 0;
    jsize n = (*e)->GetArrayLength(e, msg), len = (jsize)strlen(buf) < n ? (jsize)strlen(buf) : n;
    (*e)->SetByteArrayRegion(e, msg, 0, len, (const jbyte *)buf);
    return -1;
}

/* The address of a rocBLAS function, 0 when it has none of that name. */
JNIEXPORT jlong JNICALL JN(rocblasSymbol)(JNIEnv *e, jclass c, jstring name) {
    (void)c;
    const char *n = (*e)->GetStringUTFChars(e, name, NULL);
    void *f = rocblas ? dlsym(rocblas, n) : NULL;
    (*e)->ReleaseStringUTFChars(e, name, n);
    return (jlong)(uintptr_t)f;
}

/* Calls a rocBLAS function (rt/blascall.c: arguments and slots); its rocblas_status (-1: bad arguments here). */
JNIEXPORT jint JNICALL JN(rocblasCall)(JNIEnv *e, jclass c, jlong fn, jlongArray args, jlongArray slots) {
    (void)c;
    return zluda_blas_call(e, PTR(fn), args, slots);
}

/* A GEMM the shim repeats without the JVM (shim/blas.c, directBlasFunction): a rocBLAS call under the BLAS epoch (on
 * the thread that made it through the JVM before, whose HIP device is the handle's). */
static int direct_rocblas(void *fn, int64_t epoch, const int64_t *args) { return zluda_blas_direct(fn, epoch, args, NULL, NULL); }

JNIEXPORT jlong JNICALL JN(directBlasFunction)(JNIEnv *e, jclass c) {
    (void)e; (void)c;
    return (jlong)(uintptr_t)&direct_rocblas;
}
