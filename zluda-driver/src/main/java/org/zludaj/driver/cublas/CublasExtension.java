package org.zludaj.driver.cublas;

import org.zludaj.api.cublas.CublasExtensionApi;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.backend.Blas.Scalar;

/** cuBLAS's BLAS-like extensions: batched trsm (S/D/C/Z), geam (S/D), with their _64 forms. */
final class CublasExtension implements CublasExtensionApi {
    private final Cublas c;
    private final CublasLevel3 level3;

    CublasExtension(Cublas c) {
        this.c = c;
        this.level3 = new CublasLevel3(c);
    }

    int geam(String fn, long handle, int type, int transa, int transb, long m, long n, long alpha, long a, long lda, long beta, long b,
             long ldb, long cc, long ldc) {
        return Cublas.call(fn, () -> {
            CublasHandle h = c.handle(handle);
            CublasLevel3.checkOp(transa, "transa");
            CublasLevel3.checkOp(transb, "transb");
            if (m < 0 || n < 0 || lda < Math.max(1, transa == 0 ? m : n) || ldb < Math.max(1, transb == 0 ? m : n) || ldc < Math.max(1, m))
                throw Cublas.invalid("m " + m + ", n " + n + ", lda " + lda + ", ldb " + ldb + ", ldc " + ldc);
            if (m == 0 || n == 0) return;
            Scalar al = Cublas.scalar(h, alpha, type, "alpha"), be = Cublas.scalar(h, beta, type, "beta");
            int mi = Cublas.narrow(m, "m"), ni = Cublas.narrow(n, "n"), la = Cublas.narrow(lda, "lda"), lb = Cublas.narrow(ldb, "ldb"),
                lc = Cublas.narrow(ldc, "ldc");
            c.enqueue(h, fn, q -> h.blas.geam(type, transa, transb, mi, ni, al, a, la, be, b, lb, cc, lc, q));
        });
    }

    @Override
    public int cublasStrsmBatched(long handle, int side, int uplo, int trans, int diag, int m, int n, long alpha, long A, int lda, long B, int ldb, int batchCount) {
        return level3.trsm("cublasStrsmBatched", handle, Blas.R_32F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount, true);
    }

    @Override
    public int cublasStrsmBatched_64(long handle, int side, int uplo, int trans, int diag, long m, long n, long alpha, long A, long lda, long B, long ldb, long batchCount) {
        return level3.trsm("cublasStrsmBatched_64", handle, Blas.R_32F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount, true);
    }

    @Override
    public int cublasDtrsmBatched(long handle, int side, int uplo, int trans, int diag, int m, int n, long alpha, long A, int lda, long B, int ldb, int batchCount) {
        return level3.trsm("cublasDtrsmBatched", handle, Blas.R_64F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount, true);
    }

    @Override
    public int cublasDtrsmBatched_64(long handle, int side, int uplo, int trans, int diag, long m, long n, long alpha, long A, long lda, long B, long ldb, long batchCount) {
        return level3.trsm("cublasDtrsmBatched_64", handle, Blas.R_64F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount, true);
    }

    @Override
    public int cublasCtrsmBatched(long handle, int side, int uplo, int trans, int diag, int m, int n, long alpha, long A, int lda, long B, int ldb, int batchCount) {
        return level3.trsm("cublasCtrsmBatched", handle, Blas.C_32F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount, true);
    }

    @Override
    public int cublasCtrsmBatched_64(long handle, int side, int uplo, int trans, int diag, long m, long n, long alpha, long A, long lda, long B, long ldb, long batchCount) {
        return level3.trsm("cublasCtrsmBatched_64", handle, Blas.C_32F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount, true);
    }

    @Override
    public int cublasZtrsmBatched(long handle, int side, int uplo, int trans, int diag, int m, int n, long alpha, long A, int lda, long B, int ldb, int batchCount) {
        return level3.trsm("cublasZtrsmBatched", handle, Blas.C_64F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount, true);
    }

    @Override
    public int cublasZtrsmBatched_64(long handle, int side, int uplo, int trans, int diag, long m, long n, long alpha, long A, long lda, long B, long ldb, long batchCount) {
        return level3.trsm("cublasZtrsmBatched_64", handle, Blas.C_64F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount, true);
    }

    @Override
    public int cublasSgeam(long handle, int transa, int transb, int m, int n, long alpha, long A, int lda, long beta, long B, int ldb, long C, int ldc) {
        return geam("cublasSgeam", handle, Blas.R_32F, transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc);
    }

    @Override
    public int cublasSgeam_64(long handle, int transa, int transb, long m, long n, long alpha, long A, long lda, long beta, long B, long ldb, long C, long ldc) {
        return geam("cublasSgeam_64", handle, Blas.R_32F, transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc);
    }

    @Override
    public int cublasDgeam(long handle, int transa, int transb, int m, int n, long alpha, long A, int lda, long beta, long B, int ldb, long C, int ldc) {
        return geam("cublasDgeam", handle, Blas.R_64F, transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc);
    }

    @Override
    public int cublasDgeam_64(long handle, int transa, int transb, long m, long n, long alpha, long A, long lda, long beta, long B, long ldb, long C, long ldc) {
        return geam("cublasDgeam_64", handle, Blas.R_64F, transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc);
    }
}
