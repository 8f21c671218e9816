/* ZLUDA-J test: cuBLAS from plain C (gcc only; declares the cuBLAS and driver functions it uses itself), linked with
 * -lcublas -lcuda. Checks against a double-precision reference computed here: GemmEx (f16, bf16, f32, int8 inputs;
 * compute 16F/32F/32I/64F; every transpose pair; odd sizes and padded leading dimensions), the typed GEMMs
 * (S/D/C/Z/H), the batched and strided-batched forms, trsm and batched trsm, gemv, syrk, symm, geam, level 1 (axpy,
 * scal, dot, nrm2, asum, copy, swap, iamax, iamin), device pointer mode, and the order of cuBLAS work with the
 * copies of its stream. Then prints the status of misused calls, one per line ("misuse NAME: STATUS"), which the test
 * compares with NVIDIA's (recorded on an H100 with NVIDIA's cuBLAS 13). Prints "PASS: cublas" and exits 0. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult, CUdevice, cublasStatus_t;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef struct cublasContext *cublasHandle_t;
CUresult cuInit(unsigned int flags);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s);
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s);
CUresult cuMemHostAlloc(void **p, size_t n, unsigned int flags);
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamSynchronize(CUstream s);

cublasStatus_t cublasCreate_v2(cublasHandle_t *h);
cublasStatus_t cublasDestroy_v2(cublasHandle_t h);
cublasStatus_t cublasGetVersion_v2(cublasHandle_t h, int *v);
cublasStatus_t cublasGetProperty(int type, int *v);
const char *cublasGetStatusName(cublasStatus_t s);
const char *cublasGetStatusString(cublasStatus_t s);
cublasStatus_t cublasSetStream_v2(cublasHandle_t h, CUstream s);
cublasStatus_t cublasGetStream_v2(cublasHandle_t h, CUstream *s);
cublasStatus_t cublasSetMathMode(cublasHandle_t h, int mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t h, int *mode);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t h, int mode);
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t h, void *w, size_t n);
cublasStatus_t cublasLoggerConfigure(int on, int out, int err, const char *file);
cublasStatus_t cublasSgemm_v2(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *, int, const float *, float *, int);
cublasStatus_t cublasDgemm_v2(cublasHandle_t, int, int, int, int, int, const double *, const double *, int, const double *, int, const double *, double *, int);
cublasStatus_t cublasZgemm_v2(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *, void *, int);
cublasStatus_t cublasHgemm(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *, void *, int);
cublasStatus_t cublasSgemm_v2_64(cublasHandle_t, int, int, int64_t, int64_t, int64_t, const float *, const float *, int64_t, const float *, int64_t, const float *, float *, int64_t);
cublasStatus_t cublasGemmEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, const void *, int, int, const void *, void *, int, int, int, int);
cublasStatus_t cublasGemmBatchedEx(cublasHandle_t, int, int, int, int, int, const void *, const void *const *, int, int, const void *const *, int, int, const void *, void *const *, int, int, int, int, int);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, long long, const void *, int, int, long long, const void *, void *, int, int, long long, int, int, int);
cublasStatus_t cublasSgemmBatched(cublasHandle_t, int, int, int, int, int, const float *, const float *const *, int, const float *const *, int, const float *, float *const *, int, int);
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, long long, const float *, int, long long, const float *, float *, int, long long, int);
cublasStatus_t cublasStrsm_v2(cublasHandle_t, int, int, int, int, int, int, const float *, const float *, int, float *, int);
cublasStatus_t cublasStrsmBatched(cublasHandle_t, int, int, int, int, int, int, const float *, const float *const *, int, float *const *, int, int);
cublasStatus_t cublasSgemv_v2(cublasHandle_t, int, int, int, const float *, const float *, int, const float *, int, const float *, float *, int);
cublasStatus_t cublasSsyrk_v2(cublasHandle_t, int, int, int, int, const float *, const float *, int, const float *, float *, int);
cublasStatus_t cublasSsymm_v2(cublasHandle_t, int, int, int, int, const float *, const float *, int, const float *, int, const float *, float *, int);
cublasStatus_t cublasSgeam(cublasHandle_t, int, int, int, int, const float *, const float *, int, const float *, const float *, int, float *, int);
cublasStatus_t cublasSaxpy_v2(cublasHandle_t, int, const float *, const float *, int, float *, int);
cublasStatus_t cublasSscal_v2(cublasHandle_t, int, const float *, float *, int);
cublasStatus_t cublasSdot_v2(cublasHandle_t, int, const float *, int, const float *, int, float *);
cublasStatus_t cublasSnrm2_v2(cublasHandle_t, int, const float *, int, float *);
cublasStatus_t cublasSasum_v2(cublasHandle_t, int, const float *, int, float *);
cublasStatus_t cublasScopy_v2(cublasHandle_t, int, const float *, int, float *, int);
cublasStatus_t cublasSswap_v2(cublasHandle_t, int, float *, int, float *, int);
cublasStatus_t cublasIsamax_v2(cublasHandle_t, int, const float *, int, int *);
cublasStatus_t cublasIsamin_v2(cublasHandle_t, int, const float *, int, int *);
cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *y, int incy);
cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *a, int lda, void *b, int ldb);

enum { R_32F = 0, R_64F = 1, R_16F = 2, R_8I = 3, C_64F = 5, R_32I = 10, R_16BF = 14 };
enum { COMPUTE_16F = 64, COMPUTE_32F = 68, COMPUTE_64F = 70, COMPUTE_32I = 72, COMPUTE_32F_FAST_TF32 = 77 };

static int failures;
#define CHECK(call) do { int r_ = (call); if (r_) { printf("FAIL %s:%d: %s = %d\n", __FILE__, __LINE__, #call, r_); exit(1); } } while (0)

static double rnd(void) { return (double)(rand() % 2001 - 1000) / 1000.0; }

static uint16_t to_half(double v) { _Float16 h = (_Float16)v; uint16_t b; memcpy(&b, &h, 2); return b; }
static double from_half(uint16_t b) { _Float16 h; memcpy(&h, &b, 2); return h; }
static uint16_t to_bf16(double v) { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); u += 0x7fff + ((u >> 16) & 1); return u >> 16; }
static double from_bf16(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static size_t tsize(int t) { return t == R_16F || t == R_16BF ? 2 : t == R_64F ? 8 : t == R_8I ? 1 : 4; }

/* element i of a host array of type t, as double; and back */
static double get(const void *p, int t, size_t i) {
    switch (t) {
    case R_16F: return from_half(((const uint16_t *)p)[i]);
    case R_16BF: return from_bf16(((const uint16_t *)p)[i]);
    case R_64F: return ((const double *)p)[i];
    case R_8I: return ((const int8_t *)p)[i];
    case R_32I: return ((const int32_t *)p)[i];
    default: return ((const float *)p)[i];
    }
}
static void put(void *p, int t, size_t i, double v) {
    switch (t) {
    case R_16F: ((uint16_t *)p)[i] = to_half(v); break;
    case R_16BF: ((uint16_t *)p)[i] = to_bf16(v); break;
    case R_64F: ((double *)p)[i] = v; break;
    case R_8I: ((int8_t *)p)[i] = (int8_t)v; break;
    case R_32I: ((int32_t *)p)[i] = (int32_t)v; break;
    default: ((float *)p)[i] = (float)v;
    }
}

static CUdeviceptr upload(const void *h, size_t n) {
    CUdeviceptr d;
    CHECK(cuMemAlloc_v2(&d, n ? n : 1));
    if (n) CHECK(cuMemcpyHtoD_v2(d, h, n));
    return d;
}

/* A random matrix of rows x cols with leading dimension ld, values representable in type t. */
static void *matrix(int t, int rows, int cols, int ld) {
    void *p = calloc((size_t)ld * cols + 1, tsize(t));
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < ld; i++) put(p, t, (size_t)j * ld + i, t == R_8I ? rand() % 19 - 9 : t == R_32I ? rand() % 100 : rnd());
    return p;
}

static double at(const void *m, int t, int trans, int ld, int i, int j) { return trans ? get(m, t, (size_t)i * ld + j) : get(m, t, (size_t)j * ld + i); }

/* C = alpha op(A) op(B) + beta C in double: the reference, then the relative error of `got` against it. */
static double gemm_error(int ta, int tb, int m, int n, int k, double alpha, const void *A, int at_, int lda, const void *B, int bt,
                         int ldb, double beta, const void *C0, const void *got, int ct, int ldc) {
    double num = 0, den = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int l = 0; l < k; l++) s += at(A, at_, ta, lda, i, l) * at(B, bt, tb, ldb, l, j);
            double ref = alpha * s + beta * get(C0, ct, (size_t)j * ldc + i);
            double d = get(got, ct, (size_t)j * ldc + i) - ref;
            num += d * d;
            den += ref * ref;
        }
    /* rows between m and ldc are untouched */
    for (int j = 0; j < n; j++)
        for (int i = m; i < ldc; i++)
            if (get(got, ct, (size_t)j * ldc + i) != get(C0, ct, (size_t)j * ldc + i)) return 1e9;
    return sqrt(num / (den > 0 ? den : 1));
}

static void expect(const char *what, double err, double tol) {
    if (!(err <= tol)) { printf("FAIL %s: relative error %g > %g\n", what, err, tol); failures++; }
}

static cublasHandle_t h;

/* One GemmEx case: A/B of type ab, C of type ct, compute type; alpha/beta in the compute type's scalar type. */
static void gemm_ex(int ta, int tb, int m, int n, int k, int ab, int ct, int compute, double tol) {
    int lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 1, ldc = m + 2;
    if (ab == R_8I) lda = (lda + 3) / 4 * 4, ldb = (ldb + 3) / 4 * 4;  /* int8: NVIDIA's needs multiples of 4 */
    void *A = matrix(ab, ta ? k : m, ta ? m : k, lda), *B = matrix(ab, tb ? n : k, tb ? k : n, ldb);
    void *C = matrix(ct, m, n, ldc), *got = malloc(tsize(ct) * (size_t)ldc * n);
    CUdeviceptr dA = upload(A, tsize(ab) * (size_t)lda * (ta ? m : k)), dB = upload(B, tsize(ab) * (size_t)ldb * (tb ? k : n));
    CUdeviceptr dC = upload(C, tsize(ct) * (size_t)ldc * n);
    double alpha = 1.5, beta = ct == R_32I ? 2 : -0.5;
    union { float f; double d; uint16_t h; int32_t i; } a, b;
    if (compute == COMPUTE_16F) { a.h = to_half(alpha); b.h = to_half(beta); }
    else if (compute == COMPUTE_64F) { a.d = alpha; b.d = beta; }
    else if (compute == COMPUTE_32I) { a.i = 2; b.i = 2; alpha = 2; }
    else { a.f = (float)alpha; b.f = (float)beta; }
    char what[128];
    snprintf(what, sizeof what, "GemmEx ta=%d tb=%d %dx%dx%d types %d->%d compute %d", ta, tb, m, n, k, ab, ct, compute);
    int st = cublasGemmEx(h, ta, tb, m, n, k, &a, (void *)dA, ab, lda, (void *)dB, ab, ldb, &b, (void *)dC, ct, ldc, compute, -1);
    if (st) {
        printf("FAIL %s: status %d\n", what, st);
        failures++;
    } else {
        CHECK(cuMemcpyDtoH_v2(got, dC, tsize(ct) * (size_t)ldc * n));
        expect(what, gemm_error(ta, tb, m, n, k, alpha, A, ab, lda, B, ab, ldb, beta, C, got, ct, ldc), tol);
    }
    cuMemFree_v2(dA); cuMemFree_v2(dB); cuMemFree_v2(dC);
    free(A); free(B); free(C); free(got);
}

static void batched(void) {
    int m = 13, n = 7, k = 9, batch = 5, lda = 15, ldb = 10, ldc = 14;
    long long sa = (long long)lda * k + 3, sb = (long long)ldb * n, sc = (long long)ldc * n + 5;
    void *A = matrix(R_16F, (int)sa, batch, (int)sa), *B = matrix(R_16F, (int)sb, batch, (int)sb), *C = matrix(R_32F, (int)sc, batch, (int)sc);
    void *got = malloc(4 * (size_t)sc * batch);
    CUdeviceptr dA = upload(A, 2 * (size_t)sa * batch), dB = upload(B, 2 * (size_t)sb * batch), dC = upload(C, 4 * (size_t)sc * batch);
    float alpha = 0.75f, beta = 0.25f;
    CHECK(cublasGemmStridedBatchedEx(h, 0, 0, m, n, k, &alpha, (void *)dA, R_16F, lda, sa, (void *)dB, R_16F, ldb, sb, &beta, (void *)dC, R_32F, ldc, sc, batch, COMPUTE_32F, -1));
    CHECK(cuMemcpyDtoH_v2(got, dC, 4 * (size_t)sc * batch));
    for (int i = 0; i < batch; i++)
        expect("GemmStridedBatchedEx f16->f32", gemm_error(0, 0, m, n, k, alpha, (char *)A + 2 * sa * i, R_16F, lda, (char *)B + 2 * sb * i, R_16F, ldb,
                                                           beta, (char *)C + 4 * sc * i, (char *)got + 4 * sc * i, R_32F, ldc), 1e-5);
    /* the same through pointer arrays (in device memory), transposed A, f32: GemmBatchedEx and SgemmBatched */
    float *Af = matrix(R_32F, k, m * batch, k), *Bf = matrix(R_32F, k, n * batch, k), *Cf = matrix(R_32F, m, n * batch, m), *gotf = malloc(4 * (size_t)m * n * batch);
    CUdeviceptr dAf = upload(Af, 4 * (size_t)k * m * batch), dBf = upload(Bf, 4 * (size_t)k * n * batch), dCf = upload(Cf, 4 * (size_t)m * n * batch);
    CUdeviceptr pa[5], pb[5], pc[5];
    for (int i = 0; i < batch; i++) { pa[i] = dAf + 4 * (size_t)k * m * i; pb[i] = dBf + 4 * (size_t)k * n * i; pc[i] = dCf + 4 * (size_t)m * n * i; }
    CUdeviceptr dpa = upload(pa, sizeof pa), dpb = upload(pb, sizeof pb), dpc = upload(pc, sizeof pc);
    CHECK(cublasGemmBatchedEx(h, 1, 1, m, n, k, &alpha, (void *)dpa, R_32F, k, (void *)dpb, R_32F, n, &beta, (void *)dpc, R_32F, m, batch, COMPUTE_32F, -1));
    CHECK(cuMemcpyDtoH_v2(gotf, dCf, 4 * (size_t)m * n * batch));
    for (int i = 0; i < batch; i++)
        expect("GemmBatchedEx f32 T,T", gemm_error(1, 1, m, n, k, alpha, Af + k * m * i, R_32F, k, Bf + k * n * i, R_32F, n, beta, Cf + m * n * i, gotf + m * n * i, R_32F, m), 1e-5);
    CHECK(cuMemcpyHtoD_v2(dCf, Cf, 4 * (size_t)m * n * batch));
    CHECK(cublasSgemmBatched(h, 1, 1, m, n, k, &alpha, (const float *const *)dpa, k, (const float *const *)dpb, n, &beta, (float *const *)dpc, m, batch));
    CHECK(cuMemcpyDtoH_v2(gotf, dCf, 4 * (size_t)m * n * batch));
    for (int i = 0; i < batch; i++)
        expect("SgemmBatched", gemm_error(1, 1, m, n, k, alpha, Af + k * m * i, R_32F, k, Bf + k * n * i, R_32F, n, beta, Cf + m * n * i, gotf + m * n * i, R_32F, m), 1e-5);
    CHECK(cuMemcpyHtoD_v2(dCf, Cf, 4 * (size_t)m * n * batch));
    CHECK(cublasSgemmStridedBatched(h, 1, 1, m, n, k, &alpha, (float *)dAf, k, (long long)k * m, (float *)dBf, n, (long long)k * n, &beta, (float *)dCf, m, (long long)m * n, batch));
    CHECK(cuMemcpyDtoH_v2(gotf, dCf, 4 * (size_t)m * n * batch));
    for (int i = 0; i < batch; i++)
        expect("SgemmStridedBatched", gemm_error(1, 1, m, n, k, alpha, Af + k * m * i, R_32F, k, Bf + k * n * i, R_32F, n, beta, Cf + m * n * i, gotf + m * n * i, R_32F, m), 1e-5);
}

/* X with op(A) X = alpha B: checks op(A) X == alpha B in double. */
static void trsm(void) {
    int m = 11, n = 6, lda = 12, ldb = 13, batch = 3;
    float alpha = 2.0f;
    for (int uplo = 0; uplo < 2; uplo++)
        for (int trans = 0; trans < 2; trans++) {
            float *A = matrix(R_32F, m, m, lda), *B = matrix(R_32F, m, n, ldb), *X = malloc(4 * (size_t)ldb * n);
            for (int i = 0; i < m; i++) A[i * lda + i] = 4.0f + (float)i;  /* well conditioned */
            CUdeviceptr dA = upload(A, 4 * (size_t)lda * m), dB = upload(B, 4 * (size_t)ldb * n);
            CHECK(cublasStrsm_v2(h, 0, uplo, trans, 0, m, n, &alpha, (float *)dA, lda, (float *)dB, ldb));
            CHECK(cuMemcpyDtoH_v2(X, dB, 4 * (size_t)ldb * n));
            double num = 0, den = 0;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    double s = 0;
                    for (int l = 0; l < m; l++) {
                        int r = trans ? l : i, c = trans ? i : l;  /* element of op(A) at (i, l) is A(r, c) */
                        int in = uplo == 0 ? r >= c : r <= c;      /* lower (0) or upper (1) triangle */
                        if (in) s += A[c * lda + r] * X[j * ldb + l];
                    }
                    double d = s - alpha * B[j * ldb + i];
                    num += d * d;
                    den += alpha * B[j * ldb + i] * alpha * B[j * ldb + i];
                }
            expect(uplo ? (trans ? "Strsm upper T" : "Strsm upper N") : (trans ? "Strsm lower T" : "Strsm lower N"), sqrt(num / den), 1e-5);
            /* batched: every matrix of the batch solved alike */
            CHECK(cuMemcpyHtoD_v2(dB, B, 4 * (size_t)ldb * n));
            CUdeviceptr bs[3], as[3], dBs[3];
            for (int i = 0; i < batch; i++) { dBs[i] = upload(B, 4 * (size_t)ldb * n); bs[i] = dBs[i]; as[i] = dA; }
            CUdeviceptr dpa = upload(as, sizeof as), dpb = upload(bs, sizeof bs);
            CHECK(cublasStrsmBatched(h, 0, uplo, trans, 0, m, n, &alpha, (const float *const *)dpa, lda, (float *const *)dpb, ldb, batch));
            for (int i = 0; i < batch; i++) {
                float *Y = malloc(4 * (size_t)ldb * n);
                CHECK(cuMemcpyDtoH_v2(Y, dBs[i], 4 * (size_t)ldb * n));
                double dn = 0, dd = 0;
                for (int q = 0; q < ldb * n; q++) { dn += (X[q] - Y[q]) * (double)(X[q] - Y[q]); dd += X[q] * (double)X[q]; }
                expect("StrsmBatched against Strsm", sqrt(dn / dd), 1e-5);
                free(Y);
            }
            free(A); free(B); free(X);
        }
}

static void level12(void) {
    int n = 37;
    float *x = matrix(R_32F, n, 1, n), *y = matrix(R_32F, n, 1, n), r[2];
    CUdeviceptr dx = upload(x, 4 * n), dy = upload(y, 4 * n);
    float alpha = 0.5f, got[64];
    double ref = 0;
    CHECK(cublasSdot_v2(h, n, (float *)dx, 1, (float *)dy, 1, &r[0]));
    for (int i = 0; i < n; i++) ref += (double)x[i] * y[i];
    expect("Sdot", fabs(r[0] - ref), 1e-5);
    CHECK(cublasSnrm2_v2(h, n, (float *)dx, 1, &r[0]));
    ref = 0;
    for (int i = 0; i < n; i++) ref += (double)x[i] * x[i];
    expect("Snrm2", fabs(r[0] - sqrt(ref)), 1e-5);
    CHECK(cublasSasum_v2(h, (n + 1) / 2, (float *)dx, 2, &r[0]));
    ref = 0;
    for (int i = 0; i < n; i += 2) ref += fabs(x[i]);
    expect("Sasum incx=2", fabs(r[0] - ref), 1e-5);
    int imax, imin, emax = 1, emin = 1;
    CHECK(cublasIsamax_v2(h, n, (float *)dx, 1, &imax));
    CHECK(cublasIsamin_v2(h, n, (float *)dx, 1, &imin));
    for (int i = 1; i < n; i++) { if (fabsf(x[i]) > fabsf(x[emax - 1])) emax = i + 1; if (fabsf(x[i]) < fabsf(x[emin - 1])) emin = i + 1; }
    if (imax != emax || imin != emin) { printf("FAIL Isamax/Isamin %d %d, expected %d %d\n", imax, imin, emax, emin); failures++; }
    CHECK(cublasSaxpy_v2(h, n, &alpha, (float *)dx, 1, (float *)dy, 1));
    CHECK(cuMemcpyDtoH_v2(got, dy, 4 * n));
    double err = 0;
    for (int i = 0; i < n; i++) err = fmax(err, fabs(got[i] - (alpha * x[i] + y[i])));
    expect("Saxpy", err, 1e-6);
    CHECK(cublasSscal_v2(h, n, &alpha, (float *)dx, 1));
    CHECK(cublasScopy_v2(h, n, (float *)dx, 1, (float *)dy, 1));
    CHECK(cuMemcpyDtoH_v2(got, dy, 4 * n));
    err = 0;
    for (int i = 0; i < n; i++) err = fmax(err, fabs(got[i] - alpha * x[i]));
    expect("Sscal+Scopy", err, 0);
    CHECK(cuMemcpyHtoD_v2(dy, y, 4 * n));
    CHECK(cublasSswap_v2(h, n, (float *)dx, 1, (float *)dy, 1));
    CHECK(cuMemcpyDtoH_v2(got, dx, 4 * n));
    if (memcmp(got, y, 4 * n)) { printf("FAIL Sswap\n"); failures++; }
    /* gemv, both ways, padded lda */
    int m = 9, lda = 11;
    float *A = matrix(R_32F, m, n, lda), beta = -1.0f;
    CUdeviceptr dA = upload(A, 4 * (size_t)lda * n);
    for (int t = 0; t < 2; t++) {
        int len_x = t ? m : n, len_y = t ? n : m;
        CHECK(cuMemcpyHtoD_v2(dx, x, 4 * n));
        CHECK(cuMemcpyHtoD_v2(dy, y, 4 * n));
        CHECK(cublasSgemv_v2(h, t, m, n, &alpha, (float *)dA, lda, (float *)dx, 1, &beta, (float *)dy, 1));
        CHECK(cuMemcpyDtoH_v2(got, dy, 4 * len_y));
        err = 0;
        for (int i = 0; i < len_y; i++) {
            double s = 0;
            for (int l = 0; l < len_x; l++) s += (t ? A[i * lda + l] : A[l * lda + i]) * (double)x[l];
            err = fmax(err, fabs(got[i] - (alpha * s + beta * y[i])));
        }
        expect(t ? "Sgemv T" : "Sgemv N", err, 1e-5);
    }
    /* syrk (lower), symm (left, upper), geam (A^T + B) */
    int k = 5;
    float *S = matrix(R_32F, m, m, m), *Cs = malloc(4 * m * m), *K = matrix(R_32F, m, k, m);
    CUdeviceptr dS = upload(S, 4 * m * m), dK = upload(K, 4 * m * k);
    float one = 1.0f, zero = 0.0f;
    CHECK(cublasSsyrk_v2(h, 0, 0, m, k, &one, (float *)dK, m, &zero, (float *)dS, m));
    CHECK(cuMemcpyDtoH_v2(Cs, dS, 4 * m * m));
    err = 0;
    for (int j = 0; j < m; j++)
        for (int i = j; i < m; i++) {
            double s = 0;
            for (int l = 0; l < k; l++) s += (double)K[l * m + i] * K[l * m + j];
            err = fmax(err, fabs(Cs[j * m + i] - s));
        }
    expect("Ssyrk lower", err, 1e-5);
    float *Bm = matrix(R_32F, m, k, m), *Cm = malloc(4 * m * k);
    CUdeviceptr dBm = upload(Bm, 4 * m * k), dCm = upload(Bm, 4 * m * k);
    CHECK(cuMemcpyHtoD_v2(dS, S, 4 * m * m));
    CHECK(cublasSsymm_v2(h, 0, 1, m, k, &one, (float *)dS, m, (float *)dBm, m, &zero, (float *)dCm, m));
    CHECK(cuMemcpyDtoH_v2(Cm, dCm, 4 * m * k));
    err = 0;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int l = 0; l < m; l++) s += (double)(i <= l ? S[l * m + i] : S[i * m + l]) * Bm[j * m + l];
            err = fmax(err, fabs(Cm[j * m + i] - s));
        }
    expect("Ssymm left upper", err, 1e-5);
    float *G = malloc(4 * m * m);
    CUdeviceptr dG = upload(S, 4 * m * m), dS2 = upload(S, 4 * m * m);
    CHECK(cublasSgeam(h, 1, 0, m, m, &alpha, (float *)dS2, m, &beta, (float *)dS2, m, (float *)dG, m));
    CHECK(cuMemcpyDtoH_v2(G, dG, 4 * m * m));
    err = 0;
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++) err = fmax(err, fabs(G[j * m + i] - (alpha * S[i * m + j] + beta * S[j * m + i])));
    expect("Sgeam A^T+B", err, 1e-6);
}

/* Device pointer mode and stream order: C zeroed by an async memset in the stream, GEMM with beta = 1 from device
 * scalars, async copy back in the same stream; only the stream is synchronized. */
static void streams_and_pointer_mode(void) {
    int m = 64, n = 48, k = 32;
    CUstream s, got_s;
    CHECK(cuStreamCreate(&s, 0));
    CHECK(cublasSetStream_v2(h, s));
    CHECK(cublasGetStream_v2(h, &got_s));
    if (got_s != s) { printf("FAIL cublasGetStream\n"); failures++; }
    float *A = matrix(R_32F, m, k, m), *B = matrix(R_32F, k, n, k), *C = matrix(R_32F, m, n, m), *zero = calloc((size_t)m * n, 4), *got;
    CHECK(cuMemHostAlloc((void **)&got, 4 * (size_t)m * n, 0));
    CUdeviceptr dA = upload(A, 4 * (size_t)m * k), dB = upload(B, 4 * (size_t)k * n), dC = upload(C, 4 * (size_t)m * n);
    float scalars[2] = {1.0f, 1.0f};
    CUdeviceptr dS = upload(scalars, 8);
    CHECK(cublasSetPointerMode_v2(h, 1));
    for (int rep = 0; rep < 3; rep++) {
        CHECK(cuMemsetD32Async(dC, 0, (size_t)m * n, s));
        CHECK(cublasSgemm_v2(h, 0, 0, m, n, k, (float *)dS, (float *)dA, m, (float *)dB, k, (float *)(dS + 4), (float *)dC, m));
        CHECK(cuMemcpyDtoHAsync_v2(got, dC, 4 * (size_t)m * n, s));
        CHECK(cuStreamSynchronize(s));
        expect("stream order: memset, Sgemm (device scalars), copy", gemm_error(0, 0, m, n, k, 1.0, A, R_32F, m, B, R_32F, k, 1.0, zero, got, R_32F, m), 1e-5);
    }
    CHECK(cublasSetPointerMode_v2(h, 0));
    CHECK(cublasSetStream_v2(h, 0));
}

static void typed_gemms(void) {
    /* Dgemm, Hgemm, Zgemm, Sgemm_64 against the same reference code */
    int m = 17, n = 19, k = 23;
    double *A = matrix(R_64F, m, k, m), *B = matrix(R_64F, k, n, k), *C = matrix(R_64F, m, n, m), *got = malloc(8 * (size_t)m * n);
    CUdeviceptr dA = upload(A, 8 * (size_t)m * k), dB = upload(B, 8 * (size_t)k * n), dC = upload(C, 8 * (size_t)m * n);
    double alpha = 1.25, beta = 0.5;
    CHECK(cublasDgemm_v2(h, 0, 0, m, n, k, &alpha, (double *)dA, m, (double *)dB, k, &beta, (double *)dC, m));
    CHECK(cuMemcpyDtoH_v2(got, dC, 8 * (size_t)m * n));
    expect("Dgemm", gemm_error(0, 0, m, n, k, alpha, A, R_64F, m, B, R_64F, k, beta, C, got, R_64F, m), 1e-13);
    uint16_t *hA = matrix(R_16F, m, k, m), *hB = matrix(R_16F, k, n, k), *hC = matrix(R_16F, m, n, m), *hg = malloc(2 * (size_t)m * n);
    CUdeviceptr dhA = upload(hA, 2 * (size_t)m * k), dhB = upload(hB, 2 * (size_t)k * n), dhC = upload(hC, 2 * (size_t)m * n);
    uint16_t ha = to_half(1.0), hb = to_half(0.5);
    CHECK(cublasHgemm(h, 0, 0, m, n, k, &ha, (void *)dhA, m, (void *)dhB, k, &hb, (void *)dhC, m));
    CHECK(cuMemcpyDtoH_v2(hg, dhC, 2 * (size_t)m * n));
    expect("Hgemm", gemm_error(0, 0, m, n, k, 1.0, hA, R_16F, m, hB, R_16F, k, 0.5, hC, hg, R_16F, m), 2e-3);
    /* Zgemm with conjugate transposes: A is k x m (op = C), B is n x k (op = C) */
    double *zA = malloc(16 * (size_t)k * m), *zB = malloc(16 * (size_t)n * k), *zC = malloc(16 * (size_t)m * n), *zg = malloc(16 * (size_t)m * n);
    for (int i = 0; i < 2 * k * m; i++) zA[i] = rnd();
    for (int i = 0; i < 2 * n * k; i++) zB[i] = rnd();
    for (int i = 0; i < 2 * m * n; i++) zC[i] = rnd();
    CUdeviceptr dzA = upload(zA, 16 * (size_t)k * m), dzB = upload(zB, 16 * (size_t)n * k), dzC = upload(zC, 16 * (size_t)m * n);
    double za[2] = {0.5, -1.0}, zb[2] = {0.25, 0.75};
    CHECK(cublasZgemm_v2(h, 2, 2, m, n, k, za, (void *)dzA, k, (void *)dzB, n, zb, (void *)dzC, m));
    CHECK(cuMemcpyDtoH_v2(zg, dzC, 16 * (size_t)m * n));
    double num = 0, den = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double sr = 0, si = 0;
            for (int l = 0; l < k; l++) {
                double ar = zA[2 * (i * k + l)], ai = -zA[2 * (i * k + l) + 1], br = zB[2 * (l * n + j)], bi = -zB[2 * (l * n + j) + 1];
                sr += ar * br - ai * bi;
                si += ar * bi + ai * br;
            }
            double cr = zC[2 * (j * m + i)], ci = zC[2 * (j * m + i) + 1];
            double rr = za[0] * sr - za[1] * si + zb[0] * cr - zb[1] * ci, ri = za[0] * si + za[1] * sr + zb[0] * ci + zb[1] * cr;
            double dr = zg[2 * (j * m + i)] - rr, di = zg[2 * (j * m + i) + 1] - ri;
            num += dr * dr + di * di;
            den += rr * rr + ri * ri;
        }
    expect("Zgemm C,C", sqrt(num / den), 1e-13);
    float *sA = matrix(R_32F, m, k, m), *sB = matrix(R_32F, k, n, k), *sC = matrix(R_32F, m, n, m), *sg = malloc(4 * (size_t)m * n), fa = 2, fb = 0;
    CUdeviceptr dsA = upload(sA, 4 * (size_t)m * k), dsB = upload(sB, 4 * (size_t)k * n), dsC = upload(sC, 4 * (size_t)m * n);
    CHECK(cublasSgemm_v2_64(h, 0, 0, m, n, k, &fa, (float *)dsA, m, (float *)dsB, k, &fb, (float *)dsC, m));
    CHECK(cuMemcpyDtoH_v2(sg, dsC, 4 * (size_t)m * n));
    expect("Sgemm_64 (beta 0 ignores C)", gemm_error(0, 0, m, n, k, 2.0, sA, R_32F, m, sB, R_32F, k, 0.0, sC, sg, R_32F, m), 1e-5);
}

static void misuse(void) {
    float one = 1.0f;
    CUdeviceptr d;
    CHECK(cuMemAlloc_v2(&d, 4096));
    float *p = (float *)d;
    printf("misuse Sgemm null handle: %d\n", cublasSgemm_v2(NULL, 0, 0, 2, 2, 2, &one, p, 2, p, 2, &one, p, 2));
    printf("misuse Sgemm m<0: %d\n", cublasSgemm_v2(h, 0, 0, -1, 2, 2, &one, p, 2, p, 2, &one, p, 2));
    printf("misuse Sgemm k<0: %d\n", cublasSgemm_v2(h, 0, 0, 2, 2, -1, &one, p, 2, p, 2, &one, p, 2));
    printf("misuse Sgemm lda<m: %d\n", cublasSgemm_v2(h, 0, 0, 4, 2, 2, &one, p, 3, p, 2, &one, p, 4));
    printf("misuse Sgemm lda<k transposed: %d\n", cublasSgemm_v2(h, 1, 0, 2, 2, 4, &one, p, 3, p, 4, &one, p, 2));
    printf("misuse Sgemm ldb<k: %d\n", cublasSgemm_v2(h, 0, 0, 2, 2, 4, &one, p, 2, p, 3, &one, p, 2));
    printf("misuse Sgemm ldc<m: %d\n", cublasSgemm_v2(h, 0, 0, 4, 2, 2, &one, p, 4, p, 2, &one, p, 3));
    printf("misuse Sgemm transa 7: %d\n", cublasSgemm_v2(h, 7, 0, 2, 2, 2, &one, p, 2, p, 2, &one, p, 2));
    printf("misuse Sgemm m=0: %d\n", cublasSgemm_v2(h, 0, 0, 0, 2, 2, &one, p, 1, p, 2, &one, p, 1));
    printf("misuse GemmEx f32 in, f16 out: %d\n", cublasGemmEx(h, 0, 0, 2, 2, 2, &one, p, R_32F, 2, p, R_32F, 2, &one, p, R_16F, 2, COMPUTE_32F, -1));
    printf("misuse GemmEx A f16 B f32: %d\n", cublasGemmEx(h, 0, 0, 2, 2, 2, &one, p, R_16F, 2, p, R_32F, 2, &one, p, R_32F, 2, COMPUTE_32F, -1));
    printf("misuse GemmEx compute 12345: %d\n", cublasGemmEx(h, 0, 0, 2, 2, 2, &one, p, R_32F, 2, p, R_32F, 2, &one, p, R_32F, 2, 12345, -1));
    printf("misuse GemmEx int8 lda 43 ldb 41: %d\n", cublasGemmEx(h, 1, 0, 16, 12, 40, (int[]){1}, p, R_8I, 43, p, R_8I, 41, (int[]){1}, p, R_32I, 18, COMPUTE_32I, -1));
    printf("misuse GemmStridedBatchedEx batch<0: %d\n", cublasGemmStridedBatchedEx(h, 0, 0, 2, 2, 2, &one, p, R_32F, 2, 4, p, R_32F, 2, 4, &one, p, R_32F, 2, 4, -1, COMPUTE_32F, -1));
    printf("misuse Strsm side 5: %d\n", cublasStrsm_v2(h, 5, 0, 0, 0, 2, 2, &one, p, 2, p, 2));
    printf("misuse Strsm ldb<m: %d\n", cublasStrsm_v2(h, 0, 0, 0, 0, 4, 2, &one, p, 4, p, 3));
    printf("misuse Sgemv lda<m: %d\n", cublasSgemv_v2(h, 0, 4, 2, &one, p, 3, p, 1, &one, p, 1));
    printf("misuse Sgemv incx 0: %d\n", cublasSgemv_v2(h, 0, 2, 2, &one, p, 2, p, 0, &one, p + 8, 1));
    printf("misuse Sdot null result: %d\n", cublasSdot_v2(h, 2, p, 1, p, 1, NULL));
    printf("misuse SetPointerMode 3: %d\n", cublasSetPointerMode_v2(h, 3));
    printf("misuse SetMathMode 99: %d\n", cublasSetMathMode(h, 99));
    printf("misuse GetVersion null: %d\n", cublasGetVersion_v2(h, NULL));
    printf("misuse GetProperty 3: %d\n", cublasGetProperty(3, (int[]){0}));
    printf("misuse SetVector incx 0: %d\n", cublasSetVector(2, 4, &one, 0, p, 1));
    printf("misuse SetVector elemSize 0: %d\n", cublasSetVector(2, 0, &one, 1, p, 1));
    printf("misuse GetMatrix lda<rows: %d\n", cublasGetMatrix(4, 2, 4, p, 3, (float[8]){0}, 4));
    printf("misuse Create null: %d\n", cublasCreate_v2(NULL));
    cuMemFree_v2(d);
}

int main(void) {
    srand(7);
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cublasCreate_v2(&h));
    int v = 0, major = 0;
    CHECK(cublasGetVersion_v2(h, &v));
    CHECK(cublasGetProperty(0, &major));
    printf("cuBLAS version %d (major %d)\n", v, major);
    if (v / 10000 != major || major < 12) { printf("FAIL version\n"); failures++; }
    printf("status 7: %s / %s\n", cublasGetStatusName(7), cublasGetStatusString(7));
    CHECK(cublasLoggerConfigure(0, 0, 0, NULL));
    CHECK(cublasSetMathMode(h, 0));
    int mode = -1;
    CHECK(cublasGetMathMode(h, &mode));
    if (mode != 0) { printf("FAIL math mode %d\n", mode); failures++; }

    /* GemmEx: every transpose pair with odd sizes, then each supported type combination */
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) gemm_ex(ta, tb, 37, 29, 53, R_32F, R_32F, COMPUTE_32F, 1e-5);
    gemm_ex(0, 1, 33, 17, 64, R_16F, R_32F, COMPUTE_32F, 1e-5);
    gemm_ex(1, 0, 33, 17, 64, R_16F, R_16F, COMPUTE_32F, 2e-3);
    gemm_ex(0, 0, 33, 17, 64, R_16F, R_16F, COMPUTE_16F, 1e-2);
    gemm_ex(1, 0, 21, 40, 19, R_16BF, R_16BF, COMPUTE_32F, 1e-2);
    gemm_ex(0, 1, 21, 40, 19, R_16BF, R_32F, COMPUTE_32F, 1e-5);
    gemm_ex(1, 0, 16, 12, 40, R_8I, R_32I, COMPUTE_32I, 0);
    gemm_ex(1, 1, 15, 25, 35, R_64F, R_64F, COMPUTE_64F, 1e-13);
    gemm_ex(0, 0, 24, 24, 24, R_32F, R_32F, COMPUTE_32F_FAST_TF32, 2e-3);
    batched();
    typed_gemms();
    trsm();
    level12();
    streams_and_pointer_mode();
    misuse();
    CHECK(cublasDestroy_v2(h));
    if (failures) { printf("FAILED: %d checks\n", failures); return 1; }
    printf("PASS: cublas\n");
    return 0;
}
