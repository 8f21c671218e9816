/* ZLUDA-J test: a recording fake of NVIDIA's libcublas.so.13 for the cuda backend's tests (CudaBackendFakeTest), which
 * the backend opens as NVIDIA's cuBLAS (ZLUDA_NVIDIA_CUBLAS names its folder; the same file serves as libcublasLt.so.13).
 * Every call succeeds at once and computes nothing; the GEMMs and math modes are appended to the file FAKE_NVIDIA_LOG
 * names, one line each, with what the backend asked of NVIDIA's library: sizes, types, compute type and stream, so a test
 * can check the calls the backend made. The backend takes a libcublas of less than 4 MiB for ZLUDA-J's own and refuses
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
    (void)alpha; (void)a; (void)lda; (void)b; (void)ldb; (void)beta; (void)c; (void)ldc; (void)algo;
    record("cublasGemmEx %c%c m %d n %d k %d types %d %d %d compute %d on %s", ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, at,
           bt, ct, compute, where(h));
    return 0;
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, int ta, int tb, int m, int n, int k, const void *alpha,
                                          const void *a, int at, int lda, long long sa, const void *b, int bt, int ldb,
                                          long long sb, const void *beta, void *c, int ct, int ldc, long long sc, int batch,
                                          int compute, int algo) {
    (void)alpha; (void)a; (void)lda; (void)sa; (void)b; (void)ldb; (void)sb; (void)beta; (void)c; (void)ldc; (void)sc; (void)algo;
    record("cublasGemmStridedBatchedEx %c%c m %d n %d k %d batch %d types %d %d %d compute %d on %s", ta ? 'T' : 'N',
           tb ? 'T' : 'N', m, n, k, batch, at, bt, ct, compute, where(h));
    return 0;
}
