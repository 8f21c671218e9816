/* ZLUDA-J test: a recording fake of AMD's HIP runtime (libamdhip64) and rocBLAS for the hip backend's tests
 * (HipBackendFakeTest), which the backend opens as AMD's (ZLUDA_HIP_LIB and ZLUDA_ROCBLAS_LIB both name this file).
 * One GPU, a gfx1100 (RDNA3, wave32) with host memory standing for its memory; copies and sets are made at once.
 * Kernels are not run: their launches are logged. Streams are handles numbered #1, #2... in order of
 * creation. rocBLAS's GEMM functions compute nothing and append what they were asked to the file FAKE_HIP_LOG names
 * (one line each: operations, sizes, types, compute type, addresses, leading dimensions, strides, scalars as f32 or
 * device addresses, stream), as do stream creations and copies on a stream.
 * Build: gcc -shared -fPIC -o libfake_hip.so fake_hip.c */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hipError_t;
enum { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorNotSupported = 801 };

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...) {
    const char *path = getenv("FAKE_HIP_LOG");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

/* ------------------------------------------------------------------------------------------------ the runtime */

struct fake_stream { int number; };
static int streams;

hipError_t hipInit(unsigned flags) { (void)flags; return hipSuccess; }
hipError_t hipGetDeviceCount(int *n) { *n = 1; return hipSuccess; }
hipError_t hipSetDevice(int d) { return d == 0 ? hipSuccess : hipErrorInvalidValue; }
/* a few of hipDeviceAttribute_t (ROCm 6); any other: an error, so the backend keeps its defaults */
hipError_t hipDeviceGetAttribute(int *v, int attr, int d) {
    (void)d;
    switch (attr) {
    case 56: *v = 1024; return hipSuccess;   /* MaxThreadsPerBlock */
    case 26: case 27: *v = 1024; return hipSuccess;
    case 28: *v = 1024; return hipSuccess;
    case 87: *v = 32; return hipSuccess;     /* WarpSize */
    case 63: *v = 48; return hipSuccess;     /* MultiprocessorCount */
    case 16: *v = 0; return hipSuccess;      /* Integrated */
    default: return hipErrorInvalidValue;
    }
}
hipError_t hipDeviceGetName(char *name, int len, int d) { (void)d; snprintf(name, (size_t)len, "Fake Radeon RX 7900"); return hipSuccess; }
hipError_t hipDeviceTotalMem(size_t *bytes, int d) { (void)d; *bytes = (size_t)24 << 30; return hipSuccess; }
/* the properties structure: the backend looks only for the gcnArchName string in it */
hipError_t hipGetDevicePropertiesR0600(void *props, int d) {
    (void)d;
    memset(props, 0, 4096);
    strcpy((char *)props + 1160, "gfx1100");
    return hipSuccess;
}
hipError_t hipMalloc(void **p, size_t n) { *p = aligned_alloc(256, (n + 255) / 256 * 256); return *p ? hipSuccess : 2; }
hipError_t hipFree(void *p) { free(p); return hipSuccess; }
hipError_t hipHostMalloc(void **p, size_t n, unsigned f) { (void)f; return hipMalloc(p, n); }
hipError_t hipHostFree(void *p) { free(p); return hipSuccess; }
hipError_t hipMallocManaged(void **p, size_t n, unsigned f) { (void)f; return hipMalloc(p, n); }
hipError_t hipMemcpy(void *d, const void *s, size_t n, int kind) { (void)kind; memmove(d, s, n); return hipSuccess; }
hipError_t hipMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, int kind) {
    (void)kind;
    for (size_t i = 0; i < h; i++) memmove((char *)d + i * dp, (const char *)s + i * sp, w);
    return hipSuccess;
}
hipError_t hipMemsetD8(void *d, unsigned char v, size_t n) { memset(d, v, n); return hipSuccess; }
hipError_t hipMemsetD16(void *d, unsigned short v, size_t n) { for (size_t i = 0; i < n; i++) ((unsigned short *)d)[i] = v; return hipSuccess; }
hipError_t hipMemsetD32(void *d, int v, size_t n) { for (size_t i = 0; i < n; i++) ((int *)d)[i] = v; return hipSuccess; }
static int number(void *stream) { return stream ? ((struct fake_stream *)stream)->number : 0; }
hipError_t hipMemcpyAsync(void *d, const void *s, size_t n, int kind, void *stream) {
    record("copy of %zu bytes on stream #%d", n, number(stream));
    return hipMemcpy(d, s, n, kind);
}
hipError_t hipMemsetD8Async(void *d, unsigned char v, size_t n, void *s) { (void)s; return hipMemsetD8(d, v, n); }
hipError_t hipMemsetD16Async(void *d, unsigned short v, size_t n, void *s) { (void)s; return hipMemsetD16(d, v, n); }
hipError_t hipMemsetD32Async(void *d, int v, size_t n, void *s) { (void)s; return hipMemsetD32(d, v, n); }
/* a module: an AMD code object (an ELF file, checked by its magic); a function: its name */
struct fake_function { char name[128]; };
hipError_t hipModuleLoadData(void **m, const void *image) {
    if (memcmp(image, "\177ELF", 4)) return hipErrorInvalidValue;
    *m = malloc(1);
    record("module loaded");
    return hipSuccess;
}
hipError_t hipModuleGetFunction(void **f, void *m, const char *name) {
    (void)m;
    struct fake_function *k = calloc(1, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    *f = k;
    return hipSuccess;
}
hipError_t hipModuleGetGlobal(void **p, size_t *n, void *m, const char *name) { (void)p; (void)n; (void)m; (void)name; return 500; }
/* kernels are not run: the launch is logged with its first parameter read as a 64-bit value (0 without parameters) */
hipError_t hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                 void *s, void **params, void **extra) {
    (void)gy; (void)gz; (void)by; (void)bz; (void)extra;
    unsigned long long arg = params && params[0] ? *(unsigned long long *)params[0] : 0;
    record("launch %s grid %u block %u shared %u arg %llu on stream #%d", ((struct fake_function *)f)->name, gx, bx, shared, arg, number(s));
    return hipSuccess;
}
hipError_t hipDeviceSynchronize(void) { return hipSuccess; }
hipError_t hipStreamCreate(void **s) {
    struct fake_stream *f = malloc(sizeof *f);
    f->number = ++streams;
    *s = f;
    record("stream #%d created", f->number);
    return hipSuccess;
}
hipError_t hipStreamDestroy(void *s) { (void)s; return hipSuccess; }  /* kept: numbers stay unique */
hipError_t hipStreamSynchronize(void *s) { (void)s; return hipSuccess; }

/* ------------------------------------------------------------------------------------------------ rocBLAS */

typedef int rocblas_status;
struct fake_handle { void *stream; int pointer_mode; };

rocblas_status rocblas_create_handle(struct fake_handle **h) {
    *h = calloc(1, sizeof **h);
    record("rocblas handle created");
    return 0;
}
rocblas_status rocblas_destroy_handle(struct fake_handle *h) { free(h); return 0; }
rocblas_status rocblas_set_stream(struct fake_handle *h, void *s) { h->stream = s; return 0; }
rocblas_status rocblas_set_pointer_mode(struct fake_handle *h, int mode) { h->pointer_mode = mode; return 0; }

static void scalars(struct fake_handle *h, const void *alpha, const void *beta, char *al, char *be, size_t size) {
    if (h->pointer_mode) {
        snprintf(al, size, "device %p", alpha);
        snprintf(be, size, "device %p", beta);
    } else {
        snprintf(al, size, "%g", (double)*(const float *)alpha);
        snprintf(be, size, "%g", (double)*(const float *)beta);
    }
}

rocblas_status rocblas_gemm_strided_batched_ex(struct fake_handle *h, int ta, int tb, int m, int n, int k, const void *alpha,
                                               const void *a, int at, int lda, long long sa, const void *b, int bt, int ldb,
                                               long long sb, const void *beta, const void *c, int ct, int ldc, long long sc,
                                               void *d, int dt, int ldd, long long sd, int batch, int compute, int algo,
                                               int solution, unsigned flags) {
    (void)algo; (void)solution; (void)flags;
    char al[64], be[64];
    scalars(h, alpha, beta, al, be, sizeof al);
    record("rocblas_gemm_strided_batched_ex ops %d %d m %d n %d k %d batch %d types %d %d %d %d compute %d a %p lda %d sa %lld b %p ldb %d "
           "sb %lld c %p ldc %d sc %lld d %p ldd %d sd %lld alpha %s beta %s on stream #%d",
           ta, tb, m, n, k, batch, at, bt, ct, dt, compute, a, lda, sa, b, ldb, sb, c, ldc, sc, d, ldd, sd, al, be, number(h->stream));
    return 0;
}

rocblas_status rocblas_gemm_batched_ex(struct fake_handle *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
                                       int at, int lda, const void *b, int bt, int ldb, const void *beta, const void *c, int ct, int ldc,
                                       void *d, int dt, int ldd, int batch, int compute, int algo, int solution, unsigned flags) {
    (void)algo; (void)solution; (void)flags;
    char al[64], be[64];
    scalars(h, alpha, beta, al, be, sizeof al);
    record("rocblas_gemm_batched_ex ops %d %d m %d n %d k %d batch %d types %d %d %d %d compute %d a %p lda %d b %p ldb %d c %p ldc %d "
           "d %p ldd %d alpha %s beta %s on stream #%d",
           ta, tb, m, n, k, batch, at, bt, ct, dt, compute, a, lda, b, ldb, c, ldc, d, ldd, al, be, number(h->stream));
    return 0;
}
