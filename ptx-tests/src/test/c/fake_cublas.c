/* ZLUDA-J test: a recording fake of NVIDIA's libcublas.so.13 for the cuda backend's tests (CudaBackendFakeTest), which
 * the backend opens as NVIDIA's cuBLAS (ZLUDA_NVIDIA_CUBLAS names its folder; the same file serves as libcublasLt.so.13).
 * Every call succeeds at once and computes nothing; the GEMMs and math modes are appended to the file FAKE_NVIDIA_LOG
 * names, one line each, with what the backend asked of NVIDIA's library: sizes, types, compute type and stream, so a test
 * can check the calls the backend made; with FAKE_CUBLAS_DETAIL set, each GEMM line is followed by one with its matrices'
 * addresses, leading dimensions, strides, scalars (f32 values read on the host, or device addresses) and stream (#1, #2,
 * ... in order of first use). The backend takes a libcublas of less than 4 MiB for ZLUDA-J's own and refuses
 * it: this one carries 5 MiB of padding.
 * Build: gcc -shared -fPIC -o libcublas.so.13 fake_cublas.c */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef int cublasStatus_t;
typedef void *cublasHandle_t, *cudaStream_t;

__attribute__((used)) static const char padding[5 << 20] = {1};

static struct fake_handle {
    cudaStream_t stream;
    int pointer_mode;
} handles[16];
static int handle_count;

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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

static struct fake_handle *of(cublasHandle_t h) { return (struct fake_handle *)h; }
static const char *where(cublasHandle_t h) { return of(h)->stream ? "a stream" : "stream 0"; }

static int stream_number(cudaStream_t s) {
    static cudaStream_t seen[64];
    static int count;
    for (int i = 0; i < count; i++)
        if (seen[i] == s) return i + 1;
    if (count == 64) return 0;
    seen[count++] = s;
    return count;
}

/* FAKE_CUBLAS_DETAIL's line: where the operands are, scalars as f32 (host) or device addresses */
static void detail(cublasHandle_t h, const void *alpha, const void *a, int lda, long long sa, const void *b, int ldb,
                   long long sb, const void *beta, const void *c, int ldc, long long sc) {
    if (!getenv("FAKE_CUBLAS_DETAIL")) return;
    char al[64], be[64];
    if (of(h)->pointer_mode) {
        snprintf(al, sizeof al, "device %p", alpha);
        snprintf(be, sizeof be, "device %p", beta);
    } else {
        snprintf(al, sizeof al, "%g", (double)*(const float *)alpha);
        snprintf(be, sizeof be, "%g", (double)*(const float *)beta);
    }
    record("  a %p lda %d sa %lld b %p ldb %d sb %lld c %p ldc %d sc %lld alpha %s beta %s stream #%d", a, lda, sa, b, ldb, sb, c,
           ldc, sc, al, be, stream_number(of(h)->stream));
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *h) {
    if (handle_count == 16) return 3; /* CUBLAS_STATUS_ALLOC_FAILED */
    *h = &handles[handle_count++];
    record("cublas handle created");
    return 0;
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t h) { (void)h; return 0; }
cublasStatus_t cublasSetStream_v2(cublasHandle_t h, cudaStream_t s) { of(h)->stream = s; return 0; }
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t h, int mode) { of(h)->pointer_mode = mode; return 0; }
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t h, void *w, size_t n) { (void)h; (void)w; (void)n; return 0; }
cublasStatus_t cublasSetMathMode(cublasHandle_t h, int mode) {
    (void)h;
    record("cublasSetMathMode %d", mode);
    return 0;
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int at,
                            int lda, const void *b, int bt, int ldb, const void *beta, void *c, int ct, int ldc, int compute,
                            int algo) {
    (void)algo;
    record("cublasGemmEx %c%c m %d n %d k %d types %d %d %d compute %d on %s", ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, at,
           bt, ct, compute, where(h));
    detail(h, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0);
    return 0;
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *a, int lda,
                              const float *b, int ldb, const float *beta, float *c, int ldc) {
    record("cublasSgemm %c%c m %d n %d k %d on %s", ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, where(h));
    detail(h, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0);
    return 0;
}

cublasStatus_t cublasStrsmBatched(cublasHandle_t h, int side, int uplo, int trans, int diag, int m, int n, const float *alpha,
                                  const float *const *a, int lda, float *const *b, int ldb, int batch) {
    (void)alpha; (void)a; (void)lda; (void)b; (void)ldb;
    record("cublasStrsmBatched side %d uplo %d trans %d diag %d m %d n %d batch %d on %s", side, uplo, trans, diag, m, n, batch,
           where(h));
    return 0;
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha,
                                          const void *a, int at, int lda, long long sa, const void *b, int bt, int ldb,
                                          long long sb, const void *beta, void *c, int ct, int ldc, long long sc, int batch,
                                          int compute, int algo) {
    (void)algo;
    record("cublasGemmStridedBatchedEx %c%c m %d n %d k %d batch %d types %d %d %d compute %d on %s", ta ? 'T' : 'N',
           tb ? 'T' : 'N', m, n, k, batch, at, bt, ct, compute, where(h));
    detail(h, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc);
    return 0;
}

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
                                   int at, int lda, const void *b, int bt, int ldb, const void *beta, void *c, int ct, int ldc,
                                   int batch, int compute, int algo) {
    (void)algo;
    record("cublasGemmBatchedEx %c%c m %d n %d k %d batch %d types %d %d %d compute %d on %s", ta ? 'T' : 'N', tb ? 'T' : 'N',
           m, n, k, batch, at, bt, ct, compute, where(h));
    detail(h, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0);
    return 0;
}
