/* ZLUDA-J host BLAS: cuBLAS's operations on the host backend (device memory is host memory), over OpenBLAS.
 *
 * OpenBLAS is the one JavaCPP's preset extracts (org.bytedeco:openblas); Java hands its path to hostblasOpen and the
 * CBLAS functions are looked up here by name. cuBLAS's types that OpenBLAS lacks (f16, bf16, int8 inputs; mixed
 * types) are computed as cuBLAS defines them: inputs converted to the compute precision (f32, or f64 for 64F and
 * 32I compute), one GEMM, the result rounded to the output type. Column-major throughout, as cuBLAS. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <immintrin.h>
#include <jni.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JN(name) Java_org_zludaj_nativ_HostBlas_##name
#define PTR(x) ((void *)(uintptr_t)(x))

enum { ROW = 101, COL = 102 };
enum { NOTRANS = 111, TRANS = 112, CONJTRANS = 113 };

/* cudaDataType_t */
enum { R_32F = 0, R_64F = 1, R_16F = 2, R_8I = 3, C_32F = 4, C_64F = 5, R_8U = 8, R_32I = 10, R_16BF = 14 };

#define BLAS_FUNCTIONS(X)                                                                                          \
    X(cblas_sgemm, void, (int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int)) \
    X(cblas_dgemm, void, (int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int)) \
    X(cblas_cgemm, void, (int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *, void *, int)) \
    X(cblas_zgemm, void, (int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *, void *, int)) \
    X(cblas_strsm, void, (int, int, int, int, int, int, int, float, const float *, int, float *, int))             \
    X(cblas_dtrsm, void, (int, int, int, int, int, int, int, double, const double *, int, double *, int))          \
    X(cblas_ctrsm, void, (int, int, int, int, int, int, int, const void *, const void *, int, void *, int))        \
    X(cblas_ztrsm, void, (int, int, int, int, int, int, int, const void *, const void *, int, void *, int))        \
    X(cblas_sgemv, void, (int, int, int, int, float, const float *, int, const float *, int, float, float *, int)) \
    X(cblas_dgemv, void, (int, int, int, int, double, const double *, int, const double *, int, double, double *, int)) \
    X(cblas_cgemv, void, (int, int, int, int, const void *, const void *, int, const void *, int, const void *, void *, int)) \
    X(cblas_zgemv, void, (int, int, int, int, const void *, const void *, int, const void *, int, const void *, void *, int)) \
    X(cblas_ssyrk, void, (int, int, int, int, int, float, const float *, int, float, float *, int))                 \
    X(cblas_dsyrk, void, (int, int, int, int, int, double, const double *, int, double, double *, int))            \
    X(cblas_ssymm, void, (int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int)) \
    X(cblas_dsymm, void, (int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int)) \
    X(cblas_saxpy, void, (int, float, const float *, int, float *, int))                                          \
    X(cblas_daxpy, void, (int, double, const double *, int, double *, int))                                       \
    X(cblas_caxpy, void, (int, const void *, const void *, int, void *, int))                                     \
    X(cblas_zaxpy, void, (int, const void *, const void *, int, void *, int))                                     \
    X(cblas_sscal, void, (int, float, float *, int))                                                              \
    X(cblas_dscal, void, (int, double, double *, int))                                                            \
    X(cblas_cscal, void, (int, const void *, void *, int))                                                        \
    X(cblas_zscal, void, (int, const void *, void *, int))                                                        \
    X(cblas_csscal, void, (int, float, void *, int))                                                              \
    X(cblas_zdscal, void, (int, double, void *, int))                                                             \
    X(cblas_sdot, float, (int, const float *, int, const float *, int))                                           \
    X(cblas_ddot, double, (int, const double *, int, const double *, int))                                        \
    X(cblas_cdotu_sub, void, (int, const void *, int, const void *, int, void *))                                 \
    X(cblas_cdotc_sub, void, (int, const void *, int, const void *, int, void *))                                 \
    X(cblas_zdotu_sub, void, (int, const void *, int, const void *, int, void *))                                 \
    X(cblas_zdotc_sub, void, (int, const void *, int, const void *, int, void *))                                 \
    X(cblas_snrm2, float, (int, const float *, int))                                                              \
    X(cblas_dnrm2, double, (int, const double *, int))                                                            \
    X(cblas_scnrm2, float, (int, const void *, int))                                                              \
    X(cblas_dznrm2, double, (int, const void *, int))                                                             \
    X(cblas_sasum, float, (int, const float *, int))                                                              \
    X(cblas_dasum, double, (int, const double *, int))                                                            \
    X(cblas_scasum, float, (int, const void *, int))                                                              \
    X(cblas_dzasum, double, (int, const void *, int))                                                             \
    X(cblas_scopy, void, (int, const float *, int, float *, int))                                                 \
    X(cblas_dcopy, void, (int, const double *, int, double *, int))                                               \
    X(cblas_ccopy, void, (int, const void *, int, void *, int))                                                   \
    X(cblas_zcopy, void, (int, const void *, int, void *, int))                                                   \
    X(cblas_sswap, void, (int, float *, int, float *, int))                                                       \
    X(cblas_dswap, void, (int, double *, int, double *, int))                                                     \
    X(cblas_cswap, void, (int, void *, int, void *, int))                                                         \
    X(cblas_zswap, void, (int, void *, int, void *, int))

#define DECLARE(name, ret, args) static ret(*name) args;
BLAS_FUNCTIONS(DECLARE)

/* Opens OpenBLAS at path; null, or the reason it cannot be used. */
JNIEXPORT jstring JNICALL JN(open)(JNIEnv *e, jclass c, jstring path) {
    (void)c;
    const char *p = (*e)->GetStringUTFChars(e, path, NULL);
    void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    (*e)->ReleaseStringUTFChars(e, path, p);
    char buf[512] = {0};
    if (!h) snprintf(buf, sizeof buf, "%s", dlerror());
#define RESOLVE(name, ret, args) \
    if (!buf[0] && !(name = (ret(*) args)dlsym(h, #name))) snprintf(buf, sizeof buf, "no symbol " #name);
    if (h) { BLAS_FUNCTIONS(RESOLVE) }
    return buf[0] ? (*e)->NewStringUTF(e, buf) : NULL;
}

/* ------------------------------------------------------------------------------------------ element types */

static size_t type_size(int t) {
    switch (t) {
    case R_16F: case R_16BF: return 2;
    case R_32F: case R_32I: return 4;
    case R_64F: case C_32F: return 8;
    case C_64F: return 16;
    case R_8I: case R_8U: return 1;
    default: return 0;
    }
}

static float half_to_float(uint16_t h) {
    _Float16 v;
    memcpy(&v, &h, 2);
    return (float)v;
}

static uint16_t float_to_half(float f) {
    _Float16 v = (_Float16)f;
    uint16_t h;
    memcpy(&h, &v, 2);
    return h;
}

static float bf16_to_float(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t float_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) > 0x7f800000) return (uint16_t)((u >> 16) | 0x40);  /* NaN stays NaN */
    u += 0x7fff + ((u >> 16) & 1);                                            /* round to nearest even */
    return (uint16_t)(u >> 16);
}

static double load(const void *p, int t, size_t i) {
    switch (t) {
    case R_16F: return half_to_float(((const uint16_t *)p)[i]);
    case R_16BF: return bf16_to_float(((const uint16_t *)p)[i]);
    case R_32F: return ((const float *)p)[i];
    case R_64F: return ((const double *)p)[i];
    case R_32I: return ((const int32_t *)p)[i];
    case R_8I: return ((const int8_t *)p)[i];
    case R_8U: return ((const uint8_t *)p)[i];
    default: return 0;
    }
}

static void store(void *p, int t, size_t i, double v) {
    switch (t) {
    case R_16F: ((uint16_t *)p)[i] = float_to_half((float)v); break;
    case R_16BF: ((uint16_t *)p)[i] = float_to_bf16((float)v); break;
    case R_32F: ((float *)p)[i] = (float)v; break;
    case R_64F: ((double *)p)[i] = v; break;
    case R_32I: ((int32_t *)p)[i] = v >= 2147483647.0 ? INT32_MAX : v <= -2147483648.0 ? INT32_MIN : (int32_t)lrint(v); break;
    case R_8I: ((int8_t *)p)[i] = v >= 127 ? 127 : v <= -128 ? -128 : (int8_t)lrint(v); break;
    default: break;
    }
}

/* X as stored (rows x cols, leading dimension ld, of type t) into a packed column-major buffer of the work
 * precision (f32, or f64 when wide). The common inputs have their own loops, which the compiler vectorizes (with
 * F16C where the CPU has it: f16 inputs are converted eight at a time). */
#define PACK_LOOP(T, CONV)                                                                                      \
    for (long j = 0; j < cols; j++) {                                                                          \
        const T *col = (const T *)src + (size_t)j * ld;                                                        \
        float *out = (float *)dst + (size_t)j * rows;                                                          \
        for (long i = 0; i < rows; i++) out[i] = CONV(col[i]);                                                 \
    }
#define AS_FLOAT(x) ((float)(x))
static void pack_f16_generic(float *dst, const _Float16 *src, long rows, long cols, long ld) {
    PACK_LOOP(_Float16, AS_FLOAT)
}
__attribute__((target("avx2,f16c"))) static void pack_f16_f16c(float *dst, const _Float16 *src, long rows, long cols, long ld) {
    for (long j = 0; j < cols; j++) {  /* eight at a time (compilers do not vectorize the scalar conversion) */
        const _Float16 *col = src + (size_t)j * ld;
        float *out = dst + (size_t)j * rows;
        long i = 0;
        for (; i + 8 <= rows; i += 8) _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(col + i))));
        for (; i < rows; i++) out[i] = (float)col[i];
    }
}
static float bf16_bits_to_float(uint16_t b) { return bf16_to_float(b); }
static void pack(void *dst, int wide, const void *src, int t, long rows, long cols, long ld) {
    if (!wide && t == R_16F) {
        static int f16c = -1;
        if (f16c < 0) f16c = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx2");
        if (f16c) pack_f16_f16c(dst, src, rows, cols, ld);
        else pack_f16_generic(dst, src, rows, cols, ld);
        return;
    }
    if (!wide && t == R_16BF) { PACK_LOOP(uint16_t, bf16_bits_to_float) return; }
    if (!wide && t == R_32F) { PACK_LOOP(float, AS_FLOAT) return; }
    for (long j = 0; j < cols; j++)
        for (long i = 0; i < rows; i++) {
            double v = load(src, t, (size_t)j * ld + i);
            if (wide) ((double *)dst)[j * rows + i] = v;
            else ((float *)dst)[j * rows + i] = (float)v;
        }
}

/* A scalar passed as raw bits (two 64-bit words: real, or real and imaginary parts) of type t, as double. */
static double scalar(const int64_t *bits, int t) {
    switch (t) {
    case R_16F: return half_to_float((uint16_t)bits[0]);
    case R_16BF: return bf16_to_float((uint16_t)bits[0]);
    case R_32F: case C_32F: { float f; uint32_t u = (uint32_t)bits[0]; memcpy(&f, &u, 4); return f; }
    case R_64F: case C_64F: { double d; memcpy(&d, &bits[0], 8); return d; }
    case R_32I: return (int32_t)bits[0];
    default: return 0;
    }
}

/* ------------------------------------------------------------------------------------------------- GEMM */

/* The arguments of one (batched) GEMM, in the order GemmArgs.pack writes them. */
enum {
    G_TRANSA, G_TRANSB, G_M, G_N, G_K, G_A, G_ATYPE, G_LDA, G_STRIDEA, G_B, G_BTYPE, G_LDB, G_STRIDEB, G_C, G_CTYPE,
    G_LDC, G_STRIDEC, G_BATCH, G_POINTER_ARRAYS, G_SCALAR_TYPE, G_WIDE, G_ALPHA0, G_ALPHA1, G_BETA0, G_BETA1, G_COUNT
};

static int trans_of(int64_t op) { return op == 0 ? NOTRANS : op == 1 ? TRANS : CONJTRANS; }

/* The converted inputs of a mixed-type GEMM: a buffer kept per thread (each stream runs on its own thread) up to
 * 64 MiB, so that repeated GEMMs do not fault fresh pages in every time; larger ones are allocated for the call
 * and given back at the next. NULL when out of memory. */
static __thread char *work_kept;
static __thread size_t work_kept_bytes;
static char *work_buffer(size_t bytes) {
    if (bytes <= work_kept_bytes) return work_kept;
    free(work_kept);
    work_kept = malloc(bytes);
    work_kept_bytes = work_kept ? bytes : 0;
    if (bytes > ((size_t)64 << 20)) {  /* too large to keep: freed at the next call that needs a buffer */
        char *b = work_kept;
        work_kept_bytes = 0;
        work_kept = NULL;
        static __thread char *big;
        free(big);
        big = b;
        return b;
    }
    return work_kept;
}

/* One GEMM; 0, or -1 when out of memory. */
static int gemm_one(const int64_t *g, const void *A, const void *B, void *C) {
    long m = g[G_M], n = g[G_N], k = g[G_K], lda = g[G_LDA], ldb = g[G_LDB], ldc = g[G_LDC];
    int at = (int)g[G_ATYPE], bt = (int)g[G_BTYPE], ct = (int)g[G_CTYPE], st = (int)g[G_SCALAR_TYPE];
    int ta = trans_of(g[G_TRANSA]), tb = trans_of(g[G_TRANSB]);
    if (at == C_32F && bt == C_32F && ct == C_32F) {
        float alpha[2], beta[2];
        uint32_t w[4] = {(uint32_t)g[G_ALPHA0], (uint32_t)(g[G_ALPHA0] >> 32), (uint32_t)g[G_BETA0], (uint32_t)(g[G_BETA0] >> 32)};
        memcpy(alpha, w, 8);
        memcpy(beta, w + 2, 8);
        cblas_cgemm(COL, ta, tb, (int)m, (int)n, (int)k, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
        return 0;
    }
    if (at == C_64F && bt == C_64F && ct == C_64F) {
        double alpha[2], beta[2];
        memcpy(alpha, &g[G_ALPHA0], 16);
        memcpy(beta, &g[G_BETA0], 16);
        cblas_zgemm(COL, ta, tb, (int)m, (int)n, (int)k, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
        return 0;
    }
    double alpha = scalar(&g[G_ALPHA0], st), beta = scalar(&g[G_BETA0], st);
    int wide = (int)g[G_WIDE];
    if (!wide && at == R_32F && bt == R_32F && ct == R_32F) {
        cblas_sgemm(COL, ta, tb, (int)m, (int)n, (int)k, (float)alpha, A, (int)lda, B, (int)ldb, (float)beta, C, (int)ldc);
        return 0;
    }
    if (wide && at == R_64F && bt == R_64F && ct == R_64F) {
        cblas_dgemm(COL, ta, tb, (int)m, (int)n, (int)k, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
        return 0;
    }
    /* mixed or narrow types: A and B converted (as stored) to the work precision, one GEMM; C used in place when
     * it has the work precision, else converted and rounded back */
    size_t es = wide ? 8 : 4;
    long ar = ta == NOTRANS ? m : k, ac = ta == NOTRANS ? k : m, br = tb == NOTRANS ? k : n, bc = tb == NOTRANS ? n : k;
    int direct = ct == (wide ? R_64F : R_32F);
    size_t abytes = es * (size_t)(m * k > 0 ? m * k : 1), bbytes = es * (size_t)(k * n > 0 ? k * n : 1);
    char *work = work_buffer(abytes + bbytes);
    void *wa = work, *wb = work ? work + abytes : NULL, *wc = direct ? C : malloc(es * (size_t)(m * n));
    if (!work || !wc) { if (!direct) free(wc); return -1; }
    /* one thread: the conversion is memory-bound, and a helper thread would compete with OpenBLAS's own */
    pack(wa, wide, A, at, ar, ac, lda);
    pack(wb, wide, B, bt, br, bc, ldb);
    long ldw = direct ? ldc : m;
    if (!direct) {
        if (beta != 0) pack(wc, wide, C, ct, m, n, ldc);
        else memset(wc, 0, es * (size_t)(m * n));
    }
    int tra = ta == NOTRANS ? NOTRANS : TRANS, trb = tb == NOTRANS ? NOTRANS : TRANS;
    if (wide) cblas_dgemm(COL, tra, trb, (int)m, (int)n, (int)k, alpha, wa, (int)(ar ? ar : 1), wb, (int)(br ? br : 1), beta, wc, (int)ldw);
    else cblas_sgemm(COL, tra, trb, (int)m, (int)n, (int)k, (float)alpha, wa, (int)(ar ? ar : 1), wb, (int)(br ? br : 1), (float)beta, wc, (int)ldw);
    if (!direct) {
        for (long j = 0; j < n; j++)
            for (long i = 0; i < m; i++)
                store(C, ct, (size_t)j * ldc + i, wide ? ((double *)wc)[j * m + i] : ((float *)wc)[j * m + i]);
        free(wc);
    }
    return 0;
}

/* A (batched) GEMM; 0, or -1 when out of memory. */
JNIEXPORT jint JNICALL JN(gemm)(JNIEnv *e, jclass c, jlongArray args) {
    (void)c;
    int64_t g[G_COUNT];
    (*e)->GetLongArrayRegion(e, args, 0, G_COUNT, (jlong *)g);
    size_t as = type_size((int)g[G_ATYPE]), bs = type_size((int)g[G_BTYPE]), cs = type_size((int)g[G_CTYPE]);
    for (int64_t b = 0; b < g[G_BATCH]; b++) {
        const void *A, *B;
        void *C;
        if (g[G_POINTER_ARRAYS]) {
            A = ((void *const *)PTR(g[G_A]))[b];
            B = ((void *const *)PTR(g[G_B]))[b];
            C = ((void *const *)PTR(g[G_C]))[b];
        } else {
            A = (const char *)PTR(g[G_A]) + (size_t)b * g[G_STRIDEA] * as;
            B = (const char *)PTR(g[G_B]) + (size_t)b * g[G_STRIDEB] * bs;
            C = (char *)PTR(g[G_C]) + (size_t)b * g[G_STRIDEC] * cs;
        }
        if (gemm_one(g, A, B, C)) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------- TRSM */

/* side, uplo, trans, diag as cuBLAS numbers them; A and B (or arrays of them when pointerArrays); batch. */
JNIEXPORT void JNICALL JN(trsm)(JNIEnv *e, jclass c, jint type, jint side, jint uplo, jint trans, jint diag, jint m, jint n,
                                jlong alpha0, jlong alpha1, jlong a, jint lda, jlong b, jint ldb, jint batch, jboolean arrays) {
    (void)e; (void)c;
    int s = side == 0 ? 141 : 142, u = uplo == 0 ? 122 : 121, t = trans_of(trans), d = diag == 0 ? 131 : 132;
    int64_t al[2] = {alpha0, alpha1};
    for (int i = 0; i < batch; i++) {
        const void *A = arrays ? ((void *const *)PTR(a))[i] : PTR(a);
        void *B = arrays ? ((void *const *)PTR(b))[i] : PTR(b);
        switch (type) {
        case R_32F: cblas_strsm(COL, s, u, t, d, m, n, (float)scalar(al, R_32F), A, lda, B, ldb); break;
        case R_64F: cblas_dtrsm(COL, s, u, t, d, m, n, scalar(al, R_64F), A, lda, B, ldb); break;
        case C_32F: cblas_ctrsm(COL, s, u, t, d, m, n, al, A, lda, B, ldb); break;
        case C_64F: cblas_ztrsm(COL, s, u, t, d, m, n, al, A, lda, B, ldb); break;
        default: break;
        }
    }
}

/* ------------------------------------------------------------------------------------ level 2, syrk, symm */

JNIEXPORT void JNICALL JN(gemv)(JNIEnv *e, jclass c, jint type, jint trans, jint m, jint n, jlong alpha0, jlong alpha1,
                                jlong a, jint lda, jlong x, jint incx, jlong beta0, jlong beta1, jlong y, jint incy) {
    (void)e; (void)c;
    int64_t al[2] = {alpha0, alpha1}, be[2] = {beta0, beta1};
    int t = trans_of(trans);
    void *rep = NULL;
    if (incx == 0) {  /* cuBLAS takes incx 0 as one element repeated; OpenBLAS refuses it: repeat it here */
        size_t len = trans ? (size_t)m : (size_t)n, es = type_size(type);
        rep = malloc(len * es + 1);
        if (!rep) return;
        for (size_t i = 0; i < len; i++) memcpy((char *)rep + i * es, PTR(x), es);
        x = (jlong)(uintptr_t)rep;
        incx = 1;
    }
    switch (type) {
    case R_32F: cblas_sgemv(COL, t, m, n, (float)scalar(al, R_32F), PTR(a), lda, PTR(x), incx, (float)scalar(be, R_32F), PTR(y), incy); break;
    case R_64F: cblas_dgemv(COL, t, m, n, scalar(al, R_64F), PTR(a), lda, PTR(x), incx, scalar(be, R_64F), PTR(y), incy); break;
    case C_32F: cblas_cgemv(COL, t, m, n, al, PTR(a), lda, PTR(x), incx, be, PTR(y), incy); break;
    case C_64F: cblas_zgemv(COL, t, m, n, al, PTR(a), lda, PTR(x), incx, be, PTR(y), incy); break;
    default: break;
    }
    free(rep);
}

JNIEXPORT void JNICALL JN(syrk)(JNIEnv *e, jclass c, jint type, jint uplo, jint trans, jint n, jint k, jlong alpha0,
                                jlong a, jint lda, jlong beta0, jlong cc, jint ldc) {
    (void)e; (void)c;
    int64_t al[2] = {alpha0, 0}, be[2] = {beta0, 0};
    int u = uplo == 0 ? 122 : 121, t = trans_of(trans);
    if (type == R_32F) cblas_ssyrk(COL, u, t, n, k, (float)scalar(al, R_32F), PTR(a), lda, (float)scalar(be, R_32F), PTR(cc), ldc);
    else cblas_dsyrk(COL, u, t, n, k, scalar(al, R_64F), PTR(a), lda, scalar(be, R_64F), PTR(cc), ldc);
}

JNIEXPORT void JNICALL JN(symm)(JNIEnv *e, jclass c, jint type, jint side, jint uplo, jint m, jint n, jlong alpha0,
                                jlong a, jint lda, jlong b, jint ldb, jlong beta0, jlong cc, jint ldc) {
    (void)e; (void)c;
    int64_t al[2] = {alpha0, 0}, be[2] = {beta0, 0};
    int s = side == 0 ? 141 : 142, u = uplo == 0 ? 122 : 121;
    if (type == R_32F)
        cblas_ssymm(COL, s, u, m, n, (float)scalar(al, R_32F), PTR(a), lda, PTR(b), ldb, (float)scalar(be, R_32F), PTR(cc), ldc);
    else cblas_dsymm(COL, s, u, m, n, scalar(al, R_64F), PTR(a), lda, PTR(b), ldb, scalar(be, R_64F), PTR(cc), ldc);
}

/* C = alpha op(A) + beta op(B) (cublas<t>geam), real types; C may be A or B when its layout matches. */
JNIEXPORT jint JNICALL JN(geam)(JNIEnv *e, jclass c, jint type, jint transa, jint transb, jint m, jint n, jlong alpha0,
                                jlong a, jint lda, jlong beta0, jlong b, jint ldb, jlong cc, jint ldc) {
    (void)e; (void)c;
    int64_t al[2] = {alpha0, 0}, be[2] = {beta0, 0};
    double alpha = scalar(al, type), beta = scalar(be, type);
    size_t es = type_size(type);
    double *w = malloc(sizeof(double) * (size_t)m * n + 1);
    if (!w) return -1;
    for (long j = 0; j < n; j++)
        for (long i = 0; i < m; i++) {
            double va = alpha == 0 ? 0 : load(PTR(a), type, transa ? (size_t)i * lda + j : (size_t)j * lda + i);
            double vb = beta == 0 ? 0 : load(PTR(b), type, transb ? (size_t)i * ldb + j : (size_t)j * ldb + i);
            w[j * m + i] = alpha * va + beta * vb;
        }
    for (long j = 0; j < n; j++)
        for (long i = 0; i < m; i++) store(PTR(cc), type, (size_t)j * ldc + i, w[j * m + i]);
    (void)es;
    free(w);
    return 0;
}

/* ---------------------------------------------------------------------------------------------- level 1 */

enum { L1_AXPY, L1_SCAL, L1_DOT, L1_DOTC, L1_NRM2, L1_ASUM, L1_COPY, L1_SWAP, L1_IAMAX, L1_IAMIN };

/* amax/amin index, 1-based as BLAS; |re| + |im| for complex, as cuBLAS. */
static int iamaxmin(int type, int n, const void *x, int incx, int max) {
    if (n <= 0 || incx <= 0) return 0;
    int best = 1;
    double bv = 0;
    for (int i = 0; i < n; i++) {
        size_t at = (size_t)i * incx;
        double v;
        if (type == C_32F) v = fabs(((const float *)x)[2 * at]) + fabs(((const float *)x)[2 * at + 1]);
        else if (type == C_64F) v = fabs(((const double *)x)[2 * at]) + fabs(((const double *)x)[2 * at + 1]);
        else v = fabs(load(x, type, at));
        if (i == 0 || (max ? v > bv : v < bv)) { bv = v; best = i + 1; }
    }
    return best;
}

/* One level-1 operation; its scalar result (dot, nrm2, asum, index) is written to `result` (16 bytes room). */
JNIEXPORT void JNICALL JN(level1)(JNIEnv *e, jclass c, jint op, jint type, jint n, jlong alpha0, jlong alpha1, jlong x,
                                  jint incx, jlong y, jint incy, jlong result, jint alphaType) {
    (void)e; (void)c;
    int64_t al[2] = {alpha0, alpha1};
    void *X = PTR(x), *Y = PTR(y), *R = PTR(result);
    switch (op) {
    case L1_AXPY:
        if (type == R_32F) cblas_saxpy(n, (float)scalar(al, R_32F), X, incx, Y, incy);
        else if (type == R_64F) cblas_daxpy(n, scalar(al, R_64F), X, incx, Y, incy);
        else if (type == C_32F) cblas_caxpy(n, al, X, incx, Y, incy);
        else cblas_zaxpy(n, al, X, incx, Y, incy);
        break;
    case L1_SCAL:
        if (type == R_32F) cblas_sscal(n, (float)scalar(al, R_32F), X, incx);
        else if (type == R_64F) cblas_dscal(n, scalar(al, R_64F), X, incx);
        else if (type == C_32F && alphaType == R_32F) cblas_csscal(n, (float)scalar(al, R_32F), X, incx);
        else if (type == C_64F && alphaType == R_64F) cblas_zdscal(n, scalar(al, R_64F), X, incx);
        else if (type == C_32F) cblas_cscal(n, al, X, incx);
        else cblas_zscal(n, al, X, incx);
        break;
    case L1_DOT: case L1_DOTC:
        if (type == R_32F) *(float *)R = cblas_sdot(n, X, incx, Y, incy);
        else if (type == R_64F) *(double *)R = cblas_ddot(n, X, incx, Y, incy);
        else if (type == C_32F) (op == L1_DOT ? cblas_cdotu_sub : cblas_cdotc_sub)(n, X, incx, Y, incy, R);
        else (op == L1_DOT ? cblas_zdotu_sub : cblas_zdotc_sub)(n, X, incx, Y, incy, R);
        break;
    case L1_NRM2:  /* cuBLAS: 0 for n <= 0 or incx <= 0 */
        if (n <= 0 || incx <= 0) { memset(R, 0, type == R_64F || type == C_64F ? 8 : 4); break; }
        if (type == R_32F) *(float *)R = cblas_snrm2(n, X, incx);
        else if (type == R_64F) *(double *)R = cblas_dnrm2(n, X, incx);
        else if (type == C_32F) *(float *)R = cblas_scnrm2(n, X, incx);
        else *(double *)R = cblas_dznrm2(n, X, incx);
        break;
    case L1_ASUM:
        if (n <= 0 || incx <= 0) { memset(R, 0, type == R_64F || type == C_64F ? 8 : 4); break; }
        if (type == R_32F) *(float *)R = cblas_sasum(n, X, incx);
        else if (type == R_64F) *(double *)R = cblas_dasum(n, X, incx);
        else if (type == C_32F) *(float *)R = cblas_scasum(n, X, incx);
        else *(double *)R = cblas_dzasum(n, X, incx);
        break;
    case L1_COPY:
        if (type == R_32F) cblas_scopy(n, X, incx, Y, incy);
        else if (type == R_64F) cblas_dcopy(n, X, incx, Y, incy);
        else if (type == C_32F) cblas_ccopy(n, X, incx, Y, incy);
        else cblas_zcopy(n, X, incx, Y, incy);
        break;
    case L1_SWAP:
        if (type == R_32F) cblas_sswap(n, X, incx, Y, incy);
        else if (type == R_64F) cblas_dswap(n, X, incx, Y, incy);
        else if (type == C_32F) cblas_cswap(n, X, incx, Y, incy);
        else cblas_zswap(n, X, incx, Y, incy);
        break;
    case L1_IAMAX: case L1_IAMIN:
        *(int32_t *)R = iamaxmin(type, n, X, incx, op == L1_IAMAX);
        break;
    default: break;
    }
}

/* ------------------------------------------------------------------------------------------ cuBLASLt matmul */

/* rows x cols elements of elem bytes, batch times: dst (ldd, strideD) = src (lds, strideS); column-major. */
JNIEXPORT void JNICALL JN(copyMatrix)(JNIEnv *e, jclass c, jint elem, jlong rows, jlong cols, jlong batch, jlong src,
                                      jlong lds, jlong strideS, jlong dst, jlong ldd, jlong strideD) {
    (void)e; (void)c;
    for (jlong b = 0; b < batch; b++)
        for (jlong j = 0; j < cols; j++)
            memmove((char *)PTR(dst) + ((size_t)b * strideD + (size_t)j * ldd) * elem,
                    (const char *)PTR(src) + ((size_t)b * strideS + (size_t)j * lds) * elem, (size_t)rows * elem);
}

/* cuBLASLt's epilogues on D (rows x cols, ldd, strideD, batch; of type `type`), in place: bias (a vector of
 * `biasType`, one value per row of D, or per column when perColumn; biasStride apart per batch), then ReLU or GELU
 * (tanh approximation, as cuBLASLt). epilogue: CUBLASLT_EPILOGUE_* (1 default, 2 relu, 4 bias, 6 relu+bias, 32 gelu,
 * 36 gelu+bias). */
JNIEXPORT void JNICALL JN(epilogue)(JNIEnv *e, jclass c, jint type, jlong rows, jlong cols, jlong batch, jlong d,
                                    jlong ldd, jlong strideD, jint epilogue, jlong bias, jint biasType, jlong biasStride,
                                    jboolean perColumn) {
    (void)e; (void)c;
    int relu = (epilogue & ~4) == 2, gelu = (epilogue & ~4) == 32, has_bias = (epilogue & 4) != 0;
    for (jlong b = 0; b < batch; b++) {
        void *D = (char *)PTR(d) + (size_t)b * strideD * type_size(type);
        const void *bv = has_bias ? (const char *)PTR(bias) + (size_t)b * biasStride * type_size(biasType) : NULL;
        for (jlong j = 0; j < cols; j++)
            for (jlong i = 0; i < rows; i++) {
                size_t at = (size_t)j * ldd + i;
                double x = load(D, type, at);
                if (bv) x += load(bv, biasType, (size_t)(perColumn ? j : i));
                if (relu) x = x > 0 ? x : 0;
                if (gelu) x = 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
                store(D, type, at, x);
            }
    }
}
