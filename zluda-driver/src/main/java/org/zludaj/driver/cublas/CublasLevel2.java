package org.zludaj.driver.cublas;

import org.zludaj.api.cublas.CublasLevel2Api;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.backend.Blas.Scalar;

/** cuBLAS level 2: gemv for S/D/C/Z and the _64 forms. */
final class CublasLevel2 implements CublasLevel2Api {
    private final Cublas c;

    CublasLevel2(Cublas c) {
        this.c = c;
    }

    int gemv(String fn, long handle, int type, int trans, long m, long n, long alpha, long a, long lda, long x, long incx, long beta,
             long y, long incy) {
        return Cublas.call(fn, () -> {
            CublasHandle h = c.handle(handle);
            CublasLevel3.checkOp(trans, "trans");
            if (m < 0 || n < 0 || lda < Math.max(1, m)) throw Cublas.invalid("m " + m + ", n " + n + ", lda " + lda);
            // NVIDIA's accepts incx = 0 (x is one element repeated), which the host BLAS computes; incy = 0 has no defined result
            if (incy == 0) throw Cublas.unsupported("gemv with incy 0");
            if (m == 0 || n == 0) return;
            Scalar al = Cublas.scalar(h, alpha, type, "alpha"), be = Cublas.scalar(h, beta, type, "beta");
            int mi = Cublas.narrow(m, "m"), ni = Cublas.narrow(n, "n"), la = Cublas.narrow(lda, "lda"), ix = Cublas.narrow(incx, "incx"),
                iy = Cublas.narrow(incy, "incy");
            c.enqueue(h, fn, q -> h.blas.gemv(type, trans, mi, ni, al, a, la, x, ix, be, y, iy, q));
        });
    }

    @Override
    public int cublasSgemv_v2(long handle, int trans, int m, int n, long alpha, long A, int lda, long x, int incx, long beta, long y, int incy) {
        return gemv("cublasSgemv", handle, Blas.R_32F, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
    }

    @Override
    public int cublasSgemv_v2_64(long handle, int trans, long m, long n, long alpha, long A, long lda, long x, long incx, long beta, long y, long incy) {
        return gemv("cublasSgemv_64", handle, Blas.R_32F, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
    }

    @Override
    public int cublasDgemv_v2(long handle, int trans, int m, int n, long alpha, long A, int lda, long x, int incx, long beta, long y, int incy) {
        return gemv("cublasDgemv", handle, Blas.R_64F, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
    }

    @Override
    public int cublasDgemv_v2_64(long handle, int trans, long m, long n, long alpha, long A, long lda, long x, long incx, long beta, long y, long incy) {
        return gemv("cublasDgemv_64", handle, Blas.R_64F, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
    }

    @Override
    public int cublasCgemv_v2(long handle, int trans, int m, int n, long alpha, long A, int lda, long x, int incx, long beta, long y, int incy) {
        return gemv("cublasCgemv", handle, Blas.C_32F, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
    }

    @Override
    public int cublasCgemv_v2_64(long handle, int trans, long m, long n, long alpha, long A, long lda, long x, long incx, long beta, long y, long incy) {
        return gemv("cublasCgemv_64", handle, Blas.C_32F, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
    }

    @Override
    public int cublasZgemv_v2(long handle, int trans, int m, int n, long alpha, long A, int lda, long x, int incx, long beta, long y, int incy) {
        return gemv("cublasZgemv", handle, Blas.C_64F, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
    }

    @Override
    public int cublasZgemv_v2_64(long handle, int trans, long m, long n, long alpha, long A, long lda, long x, long incx, long beta, long y, long incy) {
        return gemv("cublasZgemv_64", handle, Blas.C_64F, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
    }
}
