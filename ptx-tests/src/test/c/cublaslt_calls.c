/* ZLUDA-J test: cuBLASLt's matmul from plain C (gcc only; declares what it uses itself), linked with -lcublasLt
 * -lcuda. Checks cublasLtMatmul against a double-precision reference: f32, f16 -> f32, f16 -> f16, bf16 -> bf16 and f64
 * (compute 32F/64F), every transpose pair, column- and row-major layouts, odd sizes and padded leading dimensions,
 * strided batches, C apart from D, alpha/beta in device memory, and the epilogues RELU, BIAS, RELU_BIAS, GELU,
 * GELU_BIAS; the heuristic's answer; descriptor attributes (values, size queries). Then prints the status of misused
 * calls ("misuse NAME: STATUS"), which the test compares with NVIDIA's (recorded with NVIDIA's cuBLASLt 13); a misuse
 * that crashes NVIDIA's library prints "crash" there (caught, so that the others still run), and ours must then fail
 * it with an error status instead.
 * Prints "PASS: cublaslt" and exits 0. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult, CUdevice, cublasStatus_t;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque *cublasLtMatmulDesc_t;
typedef struct cublasLtMatrixLayoutOpaque *cublasLtMatrixLayout_t;
typedef struct cublasLtMatmulPreferenceOpaque *cublasLtMatmulPreference_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;
typedef struct {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} cublasLtMatmulHeuristicResult_t;
CUresult cuInit(unsigned int flags);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamSynchronize(CUstream s);
cublasStatus_t cublasLtCreate(cublasLtHandle_t *h);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t h);
size_t cublasLtGetVersion(void);
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, int computeType, int scaleType);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d, int attr, const void *buf, size_t size);
cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t d, int attr, void *buf, size_t size, size_t *written);
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, int type, uint64_t rows, uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l);
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l, int attr, const void *buf, size_t size);
cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t l, int attr, void *buf, size_t size, size_t *written);
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p, int attr, const void *buf, size_t size);
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a,
                                              cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t dd,
                                              cublasLtMatmulPreference_t p, int requested, cublasLtMatmulHeuristicResult_t *r,
                                              int *count);
cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha, const void *A,
                              cublasLtMatrixLayout_t a, const void *B, cublasLtMatrixLayout_t b, const void *beta, const void *C,
                              cublasLtMatrixLayout_t c, void *D, cublasLtMatrixLayout_t dl, const cublasLtMatmulAlgo_t *algo,
                              void *ws, size_t wsSize, CUstream s);

enum { R_32F = 0, R_64F = 1, R_16F = 2, R_16BF = 14 };
enum { COMPUTE_32F = 68, COMPUTE_64F = 70 };
enum { D_POINTER_MODE = 2, D_TRANSA = 3, D_TRANSB = 4, D_EPILOGUE = 7, D_BIAS = 8, D_BIAS_TYPE = 26 };
enum { L_ORDER = 1, L_ROWS = 2, L_LD = 4, L_BATCH = 5, L_STRIDE = 6 };
enum { EP_DEFAULT = 1, EP_RELU = 2, EP_BIAS = 4, EP_RELU_BIAS = 6, EP_GELU = 32, EP_GELU_BIAS = 36 };

#define CHECK(call) do { int r_ = (call); if (r_) { printf("FAIL %s:%d: %s = %d\n", __FILE__, __LINE__, #call, r_); exit(1); } } while (0)
static int failures;

static uint16_t to_half(double v) { _Float16 h = (_Float16)v; uint16_t b; memcpy(&b, &h, 2); return b; }
static double from_half(uint16_t b) { _Float16 h; memcpy(&h, &b, 2); return h; }
static uint16_t to_bf16(double v) {
    float f = (float)v; uint32_t u; memcpy(&u, &f, 4); u += 0x7fff + ((u >> 16) & 1); return (uint16_t)(u >> 16);
}
static double from_bf16(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static size_t tsize(int t) { return t == R_64F ? 8 : t == R_32F ? 4 : 2; }
static double get(const void *p, int t, size_t i) {
    switch (t) {
    case R_16F: return from_half(((const uint16_t *)p)[i]);
    case R_16BF: return from_bf16(((const uint16_t *)p)[i]);
    case R_32F: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}
static void put(void *p, int t, size_t i, double v) {
    switch (t) {
    case R_16F: ((uint16_t *)p)[i] = to_half(v); break;
    case R_16BF: ((uint16_t *)p)[i] = to_bf16(v); break;
    case R_32F: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v; break;
    }
}
static CUdeviceptr upload(const void *h, size_t n) {
    CUdeviceptr d;
    CHECK(cuMemAlloc_v2(&d, n ? n : 1));
    if (n && h) CHECK(cuMemcpyHtoD_v2(d, h, n));
    return d;
}
static double rnd(void) { return (double)(rand() % 17 - 8) / 8.0; }
/* element (i, j) of a rows x cols matrix stored with leading dimension ld in order (0 col, 1 row) */
static size_t at(int order, size_t i, size_t j, size_t ld) { return order ? i * ld + j : j * ld + i; }
static cublasLtMatrixLayout_t layout(int type, int order, uint64_t rows, uint64_t cols, int64_t ld, int batch, int64_t stride) {
    cublasLtMatrixLayout_t l;
    CHECK(cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld));
    CHECK(cublasLtMatrixLayoutSetAttribute(l, L_ORDER, &order, 4));
    CHECK(cublasLtMatrixLayoutSetAttribute(l, L_BATCH, &batch, 4));
    CHECK(cublasLtMatrixLayoutSetAttribute(l, L_STRIDE, &stride, 8));
    return l;
}

/* D = epilogue(alpha op(A) op(B) + beta C + bias), checked against double precision. */
static void matmul_case(cublasLtHandle_t h, int ab, int cd, int compute, int ta, int tb, int order, int m, int n, int k,
                        int batch, int separateC, int epilogue, int deviceScalars) {
    double alpha = 1.5, beta = separateC ? 0.5 : -0.25;
    int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    int lda = (order ? ac : ar) + 3, ldb = (order ? bc : br) + 1, ldc = (order ? n : m) + 2, ldd = (order ? n : m) + 5;
    size_t sa = (size_t)lda * (order ? ar : ac) + 7, sb = (size_t)ldb * (order ? br : bc) + 3;
    size_t sc = (size_t)ldc * (order ? m : n) + 1, sd = (size_t)ldd * (order ? m : n) + 9;
    void *A = calloc(sa * batch, tsize(ab)), *B = calloc(sb * batch, tsize(ab)), *C = calloc(sc * batch, tsize(cd));
    void *D = calloc(sd * batch, tsize(cd)), *got = calloc(sd * batch, tsize(cd)), *bias = calloc((size_t)m * batch, tsize(cd));
    for (size_t i = 0; i < sa * batch; i++) put(A, ab, i, rnd());
    for (size_t i = 0; i < sb * batch; i++) put(B, ab, i, rnd());
    for (size_t i = 0; i < sc * batch; i++) put(C, cd, i, rnd());
    for (size_t i = 0; i < sd * batch; i++) put(D, cd, i, separateC ? 99 : 0);
    for (int i = 0; i < m * batch; i++) put(bias, cd, i, rnd());
    CUdeviceptr dA = upload(A, sa * batch * tsize(ab)), dB = upload(B, sb * batch * tsize(ab));
    CUdeviceptr dC = upload(C, sc * batch * tsize(cd)), dD = separateC ? upload(D, sd * batch * tsize(cd)) : dC;
    CUdeviceptr dBias = upload(bias, (size_t)m * batch * tsize(cd));
    cublasLtMatmulDesc_t desc;
    int scale = compute == COMPUTE_64F ? R_64F : R_32F;
    CHECK(cublasLtMatmulDescCreate(&desc, compute, scale));
    CHECK(cublasLtMatmulDescSetAttribute(desc, D_TRANSA, &ta, 4));
    CHECK(cublasLtMatmulDescSetAttribute(desc, D_TRANSB, &tb, 4));
    CHECK(cublasLtMatmulDescSetAttribute(desc, D_EPILOGUE, &epilogue, 4));
    int64_t biasStride = m;
    if (epilogue & EP_BIAS) {
        void *bp = (void *)dBias;
        CHECK(cublasLtMatmulDescSetAttribute(desc, D_BIAS, &bp, 8));
        CHECK(cublasLtMatmulDescSetAttribute(desc, 10, &biasStride, 8));
    }
    int64_t strideA = (int64_t)sa, strideB = (int64_t)sb, strideC = (int64_t)sc, strideD = separateC ? (int64_t)sd : (int64_t)sc;
    cublasLtMatrixLayout_t la = layout(ab, order, ar, ac, lda, batch, strideA), lb = layout(ab, order, br, bc, ldb, batch, strideB);
    cublasLtMatrixLayout_t lc = layout(cd, order, m, n, ldc, batch, strideC);
    cublasLtMatrixLayout_t ld = separateC ? layout(cd, order, m, n, ldd, batch, strideD) : lc;
    cublasLtMatmulPreference_t pref;
    CHECK(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t ws = 1 << 20;
    CHECK(cublasLtMatmulPreferenceSetAttribute(pref, 1, &ws, 8));
    cublasLtMatmulHeuristicResult_t res[4];
    int count = 0;
    int hs = cublasLtMatmulAlgoGetHeuristic(h, desc, la, lb, lc, ld, pref, 4, res, &count);
    if (hs || count < 1 || res[0].state != 0 || res[0].workspaceSize > ws) {
        printf("FAIL heuristic ab %d cd %d ta %d tb %d order %d m %d n %d k %d batch %d ep %d: status %d, %d results, state %d, workspace %zu\n",
               ab, cd, ta, tb, order, m, n, k, batch, epilogue, hs, count, res[0].state, res[0].workspaceSize);
        failures++;
        count = 0;
    }
    CUdeviceptr dWs = upload(NULL, ws);
    double sbuf[2] = {alpha, beta};
    float fbuf[2] = {(float)alpha, (float)beta};
    const void *pa = scale == R_64F ? (const void *)&sbuf[0] : (const void *)&fbuf[0];
    const void *pb = scale == R_64F ? (const void *)&sbuf[1] : (const void *)&fbuf[1];
    CUdeviceptr dScalars = 0;
    if (deviceScalars) {
        int mode = 1;
        CHECK(cublasLtMatmulDescSetAttribute(desc, D_POINTER_MODE, &mode, 4));
        dScalars = scale == R_64F ? upload(sbuf, 16) : upload(fbuf, 8);
        pa = (const void *)dScalars;
        pb = (const void *)(dScalars + tsize(scale));
    }
    CUstream s;
    CHECK(cuStreamCreate(&s, 0));
    int ms = cublasLtMatmul(h, desc, pa, (void *)dA, la, (void *)dB, lb, pb, (void *)dC, lc, (void *)dD, ld, count ? &res[0].algo : NULL,
                            (void *)dWs, ws, s);
    if (ms) {
        printf("FAIL matmul ab %d cd %d ta %d tb %d order %d m %d n %d k %d batch %d ep %d: status %d\n", ab, cd, ta, tb, order, m, n, k,
               batch, epilogue, ms);
        failures++;
    }
    CHECK(cuStreamSynchronize(s));
    size_t outN = (separateC ? sd : sc) * batch;
    CHECK(cuMemcpyDtoH_v2(got, dD, outN * tsize(cd)));
    double tol = cd == R_16F ? 2e-2 : cd == R_16BF ? 1.5e-1 : cd == R_32F ? 1e-4 : 1e-10;
    int bad = ms != 0;
    for (int bt = 0; bt < batch && !ms; bt++)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double acc = 0;
                for (int p = 0; p < k; p++) {
                    double a = ta ? get(A, ab, bt * sa + at(order, p, i, lda)) : get(A, ab, bt * sa + at(order, i, p, lda));
                    double b = tb ? get(B, ab, bt * sb + at(order, j, p, ldb)) : get(B, ab, bt * sb + at(order, p, j, ldb));
                    acc += a * b;
                }
                double want = alpha * acc + beta * get(C, cd, bt * sc + at(order, i, j, ldc));
                if (epilogue & EP_BIAS) want += get(bias, cd, (size_t)bt * m + i);
                if ((epilogue & ~EP_BIAS) == EP_RELU) want = want > 0 ? want : 0;
                if ((epilogue & ~EP_BIAS) == EP_GELU) want = 0.5 * want * (1 + tanh(0.7978845608028654 * (want + 0.044715 * want * want * want)));
                size_t o = separateC ? bt * sd + at(order, i, j, ldd) : bt * sc + at(order, i, j, ldc);
                double g = get(got, cd, o);
                if (fabs(g - want) > tol * (1 + fabs(want))) {
                    if (bad++ < 3) printf("FAIL matmul ab %d cd %d ta %d tb %d order %d m %d n %d k %d batch %d C%s ep %d: (%d,%d,%d) %g want %g\n",
                                          ab, cd, ta, tb, order, m, n, k, batch, separateC ? "!=D" : "=D", epilogue, bt, i, j, g, want);
                }
            }
    /* D's padding is untouched */
    if (separateC)
        for (int bt = 0; bt < batch && !bad; bt++)
            if (get(got, cd, bt * sd + sd - 1) != 99) { printf("FAIL matmul wrote past D's columns\n"); bad++; }
    failures += bad != 0 && !ms;
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    if (separateC) cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatmulDescDestroy(desc);
    cuMemFree_v2(dA); cuMemFree_v2(dB); cuMemFree_v2(dC); cuMemFree_v2(dBias); cuMemFree_v2(dWs);
    if (separateC) cuMemFree_v2(dD);
    if (dScalars) cuMemFree_v2(dScalars);
    free(A); free(B); free(C); free(D); free(got); free(bias);
}

static sigjmp_buf crashed;
static void on_crash(int sig) { siglongjmp(crashed, sig); }
/* prints the status of a misused call, or "crash" when the library crashes on it */
#define MISUSE(name, call)                                                                                       \
    do {                                                                                                         \
        if (sigsetjmp(crashed, 1) == 0) printf("misuse %s: %d\n", name, (int)(call));                            \
        else printf("misuse %s: crash\n", name);                                                                 \
    } while (0)

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    cublasLtHandle_t h;
    CHECK(cublasLtCreate(&h));
    if (cublasLtGetVersion() < 130000) { printf("FAIL version %zu\n", cublasLtGetVersion()); failures++; }
    srand(7);
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int order = 0; order < 2; order++) {
                matmul_case(h, R_32F, R_32F, COMPUTE_32F, ta, tb, order, 13, 7, 9, 1, 0, EP_DEFAULT, 0);
                matmul_case(h, R_16F, R_16F, COMPUTE_32F, ta, tb, order, 17, 5, 33, 2, 1, EP_DEFAULT, 0);
            }
    matmul_case(h, R_16F, R_32F, COMPUTE_32F, 1, 0, 0, 32, 16, 64, 3, 1, EP_DEFAULT, 0);
    matmul_case(h, R_16BF, R_16BF, COMPUTE_32F, 0, 1, 0, 9, 11, 16, 1, 1, EP_DEFAULT, 0);
    matmul_case(h, R_64F, R_64F, COMPUTE_64F, 1, 1, 1, 6, 8, 10, 2, 0, EP_DEFAULT, 0);
    matmul_case(h, R_32F, R_32F, COMPUTE_32F, 0, 0, 0, 12, 10, 8, 1, 1, EP_DEFAULT, 1);
    int eps[] = {EP_RELU, EP_BIAS, EP_RELU_BIAS, EP_GELU, EP_GELU_BIAS};
    for (int e = 0; e < 5; e++) {
        matmul_case(h, R_32F, R_32F, COMPUTE_32F, 1, 0, 0, 24, 12, 20, 2, 1, eps[e], 0);
        /* NVIDIA's cuBLASLt 13.1 has no bias epilogue for a row-major D (NOT_SUPPORTED, misuse below) */
        matmul_case(h, R_16F, R_16F, COMPUTE_32F, 1, 0, eps[e] & EP_BIAS ? 0 : 1, 16, 8, 32, 1, 0, eps[e], 0);
    }

    /* attributes: values and size queries */
    cublasLtMatmulDesc_t desc;
    CHECK(cublasLtMatmulDescCreate(&desc, COMPUTE_32F, R_32F));
    int32_t v = -1;
    size_t written = 0;
    CHECK(cublasLtMatmulDescGetAttribute(desc, D_EPILOGUE, &v, 4, &written));
    if (v != EP_DEFAULT || written != 4) { printf("FAIL default epilogue %d (%zu bytes)\n", v, written); failures++; }
    written = 0;
    CHECK(cublasLtMatmulDescGetAttribute(desc, D_BIAS, NULL, 0, &written));
    if (written != 8) { printf("FAIL bias pointer size %zu\n", written); failures++; }
    CHECK(cublasLtMatmulDescGetAttribute(desc, 0, &v, 4, NULL));
    if (v != COMPUTE_32F) { printf("FAIL compute type %d\n", v); failures++; }
    cublasLtMatrixLayout_t l;
    CHECK(cublasLtMatrixLayoutCreate(&l, R_16F, 40, 30, 48));
    uint64_t rows = 0;
    CHECK(cublasLtMatrixLayoutGetAttribute(l, L_ROWS, &rows, 8, &written));
    int64_t ldv = 0;
    CHECK(cublasLtMatrixLayoutGetAttribute(l, L_LD, &ldv, 8, &written));
    int32_t bc = 0;
    CHECK(cublasLtMatrixLayoutGetAttribute(l, L_BATCH, &bc, 4, &written));
    if (rows != 40 || ldv != 48 || bc != 1) { printf("FAIL layout rows %llu ld %lld batch %d\n", (unsigned long long)rows, (long long)ldv, bc); failures++; }

    /* misuse: statuses as NVIDIA's cuBLASLt answers them */
    MISUSE("DescSetAttribute wrong size", cublasLtMatmulDescSetAttribute(desc, D_TRANSA, &v, 8));
    MISUSE("DescGetAttribute small buffer", cublasLtMatmulDescGetAttribute(desc, D_BIAS, &v, 4, &written));
    MISUSE("DescGetAttribute null buffer", cublasLtMatmulDescGetAttribute(desc, D_EPILOGUE, NULL, 4, &written));
    MISUSE("LayoutSetAttribute wrong size", cublasLtMatrixLayoutSetAttribute(l, L_ROWS, &v, 4));
    cublasLtMatrixLayout_t a32 = layout(R_32F, 0, 8, 4, 8, 1, 0), b32 = layout(R_32F, 0, 5, 6, 5, 1, 0), c32 = layout(R_32F, 0, 8, 6, 8, 1, 0);
    cublasLtMatmulPreference_t pref;
    CHECK(cublasLtMatmulPreferenceCreate(&pref));
    cublasLtMatmulHeuristicResult_t res;
    int count = -1;
    MISUSE("heuristic k mismatch", cublasLtMatmulAlgoGetHeuristic(h, desc, a32, b32, c32, c32, pref, 1, &res, &count));
    printf("misuse heuristic k mismatch count: %d\n", count);
    cublasLtMatrixLayout_t a32ok = layout(R_32F, 0, 8, 5, 8, 1, 0);
    MISUSE("heuristic zero requested", cublasLtMatmulAlgoGetHeuristic(h, desc, a32ok, b32, c32, c32, pref, 0, &res, &count));
    float one = 1, zero = 0;
    CUdeviceptr dm = upload(NULL, 4096);
    MISUSE("matmul k mismatch", cublasLtMatmul(h, desc, &one, (void *)dm, a32, (void *)dm, b32, &zero, (void *)dm, c32, (void *)dm, c32, NULL, NULL, 0, 0));
    MISUSE("matmul null handle", cublasLtMatmul(NULL, desc, &one, (void *)dm, a32ok, (void *)dm, b32, &zero, (void *)dm, c32, (void *)dm, c32, NULL, NULL, 0, 0));
    cublasLtMatrixLayout_t c16 = layout(R_16F, 0, 8, 6, 8, 1, 0);
    MISUSE("matmul C type differs from D", cublasLtMatmul(h, desc, &one, (void *)dm, a32ok, (void *)dm, b32, &zero, (void *)dm, c16, (void *)dm, c32, NULL, NULL, 0, 0));
    cublasLtMatmulDesc_t biasDesc;
    CHECK(cublasLtMatmulDescCreate(&biasDesc, COMPUTE_32F, R_32F));
    int ep = EP_BIAS;
    void *bp = (void *)dm;
    CHECK(cublasLtMatmulDescSetAttribute(biasDesc, D_EPILOGUE, &ep, 4));
    CHECK(cublasLtMatmulDescSetAttribute(biasDesc, D_BIAS, &bp, 8));
    cublasLtMatrixLayout_t ar = layout(R_32F, 1, 8, 5, 5, 1, 0), br = layout(R_32F, 1, 5, 6, 6, 1, 0), cr = layout(R_32F, 1, 8, 6, 6, 1, 0);
    MISUSE("heuristic bias epilogue, row-major D", cublasLtMatmulAlgoGetHeuristic(h, biasDesc, ar, br, cr, cr, pref, 1, &res, &count));
    MISUSE("matmul bias epilogue, row-major D", cublasLtMatmul(h, biasDesc, &one, (void *)dm, ar, (void *)dm, br, &zero, (void *)dm, cr, (void *)dm, cr, NULL, NULL, 0, 0));
    cublasLtMatrixLayoutDestroy(ar); cublasLtMatrixLayoutDestroy(br); cublasLtMatrixLayoutDestroy(cr);
    cublasLtMatmulDescDestroy(biasDesc);
    MISUSE("matmul null desc", cublasLtMatmul(h, NULL, &one, (void *)dm, a32ok, (void *)dm, b32, &zero, (void *)dm, c32, (void *)dm, c32, NULL, NULL, 0, 0));
    MISUSE("MatmulDescDestroy NULL", cublasLtMatmulDescDestroy(NULL));
    MISUSE("LayoutCreate null out", cublasLtMatrixLayoutCreate(NULL, R_32F, 4, 4, 4));
    CHECK(cuMemFree_v2(dm));
    cublasLtMatrixLayoutDestroy(a32); cublasLtMatrixLayoutDestroy(a32ok); cublasLtMatrixLayoutDestroy(b32);
    cublasLtMatrixLayoutDestroy(c32); cublasLtMatrixLayoutDestroy(c16); cublasLtMatrixLayoutDestroy(l);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatmulDescDestroy(desc);
    CHECK(cublasLtDestroy(h));
    if (failures) { printf("FAIL: cublaslt (%d)\n", failures); return 1; }
    printf("PASS: cublaslt\n");
    return 0;
}
