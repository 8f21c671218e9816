package org.zludaj.driver.cublas;

import org.zludaj.api.cublas.CublasLevel1Api;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.backend.Blas.Scalar;

/**
 * cuBLAS level 1: axpy, scal, dot (dotu/dotc), nrm2, asum, copy, swap, iamax, iamin for S/D/C/Z and their _64 forms.
 * A result in host memory (pointer mode host) is there when the call returns, so those calls wait for the stream;
 * with device pointers they are asynchronous, as NVIDIA's.
 */
final class CublasLevel1 implements CublasLevel1Api {
    private final Cublas c;

    CublasLevel1(Cublas c) {
        this.c = c;
    }

    /** Operations whose alpha is read; operations that write a scalar result. */
    private static boolean scaled(int op) {
        return op == Blas.AXPY || op == Blas.SCAL;
    }

    private static boolean reduces(int op) {
        return op == Blas.DOT || op == Blas.DOTC || op == Blas.NRM2 || op == Blas.ASUM || op == Blas.IAMAX || op == Blas.IAMIN;
    }

    int vectors(String fn, long handle, int op, int type, long n, long alpha, int alphaType, long x, long incx, long y, long incy,
                long result) {
        return Cublas.call(fn, () -> {
            CublasHandle h = c.handle(handle);
            // a null result pointer is MAPPING_ERROR, as NVIDIA's (recorded on an H100, cuBLAS 13.1)
            if (reduces(op) && result == 0) throw Cublas.status(CublasStatus.MAPPING_ERROR, "result is NULL");
            Scalar al = scaled(op) ? Cublas.scalar(h, alpha, alphaType, "alpha") : null;
            int ni = Cublas.narrow(Math.max(n, 0), "n"), ix = Cublas.narrow(incx, "incx"), iy = Cublas.narrow(incy, "incy");
            if (!reduces(op)) {
                if (n <= 0) return;
                c.enqueue(h, fn, q -> h.blas.level1(op, type, ni, al, alphaType, x, ix, y, iy, 0, q));
            } else if (h.pointerMode == CublasHandle.POINTER_MODE_DEVICE) {
                c.enqueue(h, fn, q -> h.blas.level1(op, type, ni, al, alphaType, x, ix, y, iy, result, q));
            } else {
                c.run(h, fn, q -> h.blas.level1(op, type, ni, al, alphaType, x, ix, y, iy, result, q));
            }
        });
    }

    @Override
    public int cublasSaxpy_v2(long handle, int n, long alpha, long x, int incx, long y, int incy) {
        return vectors("cublasSaxpy", handle, Blas.AXPY, Blas.R_32F, n, alpha, Blas.R_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasSaxpy_v2_64(long handle, long n, long alpha, long x, long incx, long y, long incy) {
        return vectors("cublasSaxpy_64", handle, Blas.AXPY, Blas.R_32F, n, alpha, Blas.R_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasSscal_v2(long handle, int n, long alpha, long x, int incx) {
        return vectors("cublasSscal", handle, Blas.SCAL, Blas.R_32F, n, alpha, Blas.R_32F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasSscal_v2_64(long handle, long n, long alpha, long x, long incx) {
        return vectors("cublasSscal_64", handle, Blas.SCAL, Blas.R_32F, n, alpha, Blas.R_32F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasScopy_v2(long handle, int n, long x, int incx, long y, int incy) {
        return vectors("cublasScopy", handle, Blas.COPY, Blas.R_32F, n, 0, Blas.R_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasScopy_v2_64(long handle, long n, long x, long incx, long y, long incy) {
        return vectors("cublasScopy_64", handle, Blas.COPY, Blas.R_32F, n, 0, Blas.R_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasSswap_v2(long handle, int n, long x, int incx, long y, int incy) {
        return vectors("cublasSswap", handle, Blas.SWAP, Blas.R_32F, n, 0, Blas.R_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasSswap_v2_64(long handle, long n, long x, long incx, long y, long incy) {
        return vectors("cublasSswap_64", handle, Blas.SWAP, Blas.R_32F, n, 0, Blas.R_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasIsamax_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasIsamax", handle, Blas.IAMAX, Blas.R_32F, n, 0, Blas.R_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIsamax_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasIsamax_64", handle, Blas.IAMAX, Blas.R_32F, n, 0, Blas.R_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIsamin_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasIsamin", handle, Blas.IAMIN, Blas.R_32F, n, 0, Blas.R_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIsamin_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasIsamin_64", handle, Blas.IAMIN, Blas.R_32F, n, 0, Blas.R_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasDaxpy_v2(long handle, int n, long alpha, long x, int incx, long y, int incy) {
        return vectors("cublasDaxpy", handle, Blas.AXPY, Blas.R_64F, n, alpha, Blas.R_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasDaxpy_v2_64(long handle, long n, long alpha, long x, long incx, long y, long incy) {
        return vectors("cublasDaxpy_64", handle, Blas.AXPY, Blas.R_64F, n, alpha, Blas.R_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasDscal_v2(long handle, int n, long alpha, long x, int incx) {
        return vectors("cublasDscal", handle, Blas.SCAL, Blas.R_64F, n, alpha, Blas.R_64F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasDscal_v2_64(long handle, long n, long alpha, long x, long incx) {
        return vectors("cublasDscal_64", handle, Blas.SCAL, Blas.R_64F, n, alpha, Blas.R_64F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasDcopy_v2(long handle, int n, long x, int incx, long y, int incy) {
        return vectors("cublasDcopy", handle, Blas.COPY, Blas.R_64F, n, 0, Blas.R_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasDcopy_v2_64(long handle, long n, long x, long incx, long y, long incy) {
        return vectors("cublasDcopy_64", handle, Blas.COPY, Blas.R_64F, n, 0, Blas.R_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasDswap_v2(long handle, int n, long x, int incx, long y, int incy) {
        return vectors("cublasDswap", handle, Blas.SWAP, Blas.R_64F, n, 0, Blas.R_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasDswap_v2_64(long handle, long n, long x, long incx, long y, long incy) {
        return vectors("cublasDswap_64", handle, Blas.SWAP, Blas.R_64F, n, 0, Blas.R_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasIdamax_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasIdamax", handle, Blas.IAMAX, Blas.R_64F, n, 0, Blas.R_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIdamax_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasIdamax_64", handle, Blas.IAMAX, Blas.R_64F, n, 0, Blas.R_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIdamin_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasIdamin", handle, Blas.IAMIN, Blas.R_64F, n, 0, Blas.R_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIdamin_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasIdamin_64", handle, Blas.IAMIN, Blas.R_64F, n, 0, Blas.R_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasCaxpy_v2(long handle, int n, long alpha, long x, int incx, long y, int incy) {
        return vectors("cublasCaxpy", handle, Blas.AXPY, Blas.C_32F, n, alpha, Blas.C_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasCaxpy_v2_64(long handle, long n, long alpha, long x, long incx, long y, long incy) {
        return vectors("cublasCaxpy_64", handle, Blas.AXPY, Blas.C_32F, n, alpha, Blas.C_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasCscal_v2(long handle, int n, long alpha, long x, int incx) {
        return vectors("cublasCscal", handle, Blas.SCAL, Blas.C_32F, n, alpha, Blas.C_32F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasCscal_v2_64(long handle, long n, long alpha, long x, long incx) {
        return vectors("cublasCscal_64", handle, Blas.SCAL, Blas.C_32F, n, alpha, Blas.C_32F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasCcopy_v2(long handle, int n, long x, int incx, long y, int incy) {
        return vectors("cublasCcopy", handle, Blas.COPY, Blas.C_32F, n, 0, Blas.C_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasCcopy_v2_64(long handle, long n, long x, long incx, long y, long incy) {
        return vectors("cublasCcopy_64", handle, Blas.COPY, Blas.C_32F, n, 0, Blas.C_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasCswap_v2(long handle, int n, long x, int incx, long y, int incy) {
        return vectors("cublasCswap", handle, Blas.SWAP, Blas.C_32F, n, 0, Blas.C_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasCswap_v2_64(long handle, long n, long x, long incx, long y, long incy) {
        return vectors("cublasCswap_64", handle, Blas.SWAP, Blas.C_32F, n, 0, Blas.C_32F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasIcamax_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasIcamax", handle, Blas.IAMAX, Blas.C_32F, n, 0, Blas.C_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIcamax_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasIcamax_64", handle, Blas.IAMAX, Blas.C_32F, n, 0, Blas.C_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIcamin_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasIcamin", handle, Blas.IAMIN, Blas.C_32F, n, 0, Blas.C_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIcamin_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasIcamin_64", handle, Blas.IAMIN, Blas.C_32F, n, 0, Blas.C_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasZaxpy_v2(long handle, int n, long alpha, long x, int incx, long y, int incy) {
        return vectors("cublasZaxpy", handle, Blas.AXPY, Blas.C_64F, n, alpha, Blas.C_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasZaxpy_v2_64(long handle, long n, long alpha, long x, long incx, long y, long incy) {
        return vectors("cublasZaxpy_64", handle, Blas.AXPY, Blas.C_64F, n, alpha, Blas.C_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasZscal_v2(long handle, int n, long alpha, long x, int incx) {
        return vectors("cublasZscal", handle, Blas.SCAL, Blas.C_64F, n, alpha, Blas.C_64F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasZscal_v2_64(long handle, long n, long alpha, long x, long incx) {
        return vectors("cublasZscal_64", handle, Blas.SCAL, Blas.C_64F, n, alpha, Blas.C_64F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasZcopy_v2(long handle, int n, long x, int incx, long y, int incy) {
        return vectors("cublasZcopy", handle, Blas.COPY, Blas.C_64F, n, 0, Blas.C_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasZcopy_v2_64(long handle, long n, long x, long incx, long y, long incy) {
        return vectors("cublasZcopy_64", handle, Blas.COPY, Blas.C_64F, n, 0, Blas.C_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasZswap_v2(long handle, int n, long x, int incx, long y, int incy) {
        return vectors("cublasZswap", handle, Blas.SWAP, Blas.C_64F, n, 0, Blas.C_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasZswap_v2_64(long handle, long n, long x, long incx, long y, long incy) {
        return vectors("cublasZswap_64", handle, Blas.SWAP, Blas.C_64F, n, 0, Blas.C_64F, x, incx, y, incy, 0);
    }

    @Override
    public int cublasIzamax_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasIzamax", handle, Blas.IAMAX, Blas.C_64F, n, 0, Blas.C_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIzamax_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasIzamax_64", handle, Blas.IAMAX, Blas.C_64F, n, 0, Blas.C_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIzamin_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasIzamin", handle, Blas.IAMIN, Blas.C_64F, n, 0, Blas.C_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasIzamin_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasIzamin_64", handle, Blas.IAMIN, Blas.C_64F, n, 0, Blas.C_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasCsscal_v2(long handle, int n, long alpha, long x, int incx) {
        return vectors("cublasCsscal", handle, Blas.SCAL, Blas.C_32F, n, alpha, Blas.R_32F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasCsscal_v2_64(long handle, long n, long alpha, long x, long incx) {
        return vectors("cublasCsscal_64", handle, Blas.SCAL, Blas.C_32F, n, alpha, Blas.R_32F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasZdscal_v2(long handle, int n, long alpha, long x, int incx) {
        return vectors("cublasZdscal", handle, Blas.SCAL, Blas.C_64F, n, alpha, Blas.R_64F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasZdscal_v2_64(long handle, long n, long alpha, long x, long incx) {
        return vectors("cublasZdscal_64", handle, Blas.SCAL, Blas.C_64F, n, alpha, Blas.R_64F, x, incx, 0, 1, 0);
    }

    @Override
    public int cublasSdot_v2(long handle, int n, long x, int incx, long y, int incy, long result) {
        return vectors("cublasSdot", handle, Blas.DOT, Blas.R_32F, n, 0, Blas.R_32F, x, incx, y, incy, result);
    }

    @Override
    public int cublasSdot_v2_64(long handle, long n, long x, long incx, long y, long incy, long result) {
        return vectors("cublasSdot_64", handle, Blas.DOT, Blas.R_32F, n, 0, Blas.R_32F, x, incx, y, incy, result);
    }

    @Override
    public int cublasDdot_v2(long handle, int n, long x, int incx, long y, int incy, long result) {
        return vectors("cublasDdot", handle, Blas.DOT, Blas.R_64F, n, 0, Blas.R_64F, x, incx, y, incy, result);
    }

    @Override
    public int cublasDdot_v2_64(long handle, long n, long x, long incx, long y, long incy, long result) {
        return vectors("cublasDdot_64", handle, Blas.DOT, Blas.R_64F, n, 0, Blas.R_64F, x, incx, y, incy, result);
    }

    @Override
    public int cublasCdotu_v2(long handle, int n, long x, int incx, long y, int incy, long result) {
        return vectors("cublasCdotu", handle, Blas.DOT, Blas.C_32F, n, 0, Blas.C_32F, x, incx, y, incy, result);
    }

    @Override
    public int cublasCdotu_v2_64(long handle, long n, long x, long incx, long y, long incy, long result) {
        return vectors("cublasCdotu_64", handle, Blas.DOT, Blas.C_32F, n, 0, Blas.C_32F, x, incx, y, incy, result);
    }

    @Override
    public int cublasCdotc_v2(long handle, int n, long x, int incx, long y, int incy, long result) {
        return vectors("cublasCdotc", handle, Blas.DOTC, Blas.C_32F, n, 0, Blas.C_32F, x, incx, y, incy, result);
    }

    @Override
    public int cublasCdotc_v2_64(long handle, long n, long x, long incx, long y, long incy, long result) {
        return vectors("cublasCdotc_64", handle, Blas.DOTC, Blas.C_32F, n, 0, Blas.C_32F, x, incx, y, incy, result);
    }

    @Override
    public int cublasZdotu_v2(long handle, int n, long x, int incx, long y, int incy, long result) {
        return vectors("cublasZdotu", handle, Blas.DOT, Blas.C_64F, n, 0, Blas.C_64F, x, incx, y, incy, result);
    }

    @Override
    public int cublasZdotu_v2_64(long handle, long n, long x, long incx, long y, long incy, long result) {
        return vectors("cublasZdotu_64", handle, Blas.DOT, Blas.C_64F, n, 0, Blas.C_64F, x, incx, y, incy, result);
    }

    @Override
    public int cublasZdotc_v2(long handle, int n, long x, int incx, long y, int incy, long result) {
        return vectors("cublasZdotc", handle, Blas.DOTC, Blas.C_64F, n, 0, Blas.C_64F, x, incx, y, incy, result);
    }

    @Override
    public int cublasZdotc_v2_64(long handle, long n, long x, long incx, long y, long incy, long result) {
        return vectors("cublasZdotc_64", handle, Blas.DOTC, Blas.C_64F, n, 0, Blas.C_64F, x, incx, y, incy, result);
    }

    @Override
    public int cublasSnrm2_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasSnrm2", handle, Blas.NRM2, Blas.R_32F, n, 0, Blas.R_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasSnrm2_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasSnrm2_64", handle, Blas.NRM2, Blas.R_32F, n, 0, Blas.R_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasDnrm2_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasDnrm2", handle, Blas.NRM2, Blas.R_64F, n, 0, Blas.R_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasDnrm2_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasDnrm2_64", handle, Blas.NRM2, Blas.R_64F, n, 0, Blas.R_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasScnrm2_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasScnrm2", handle, Blas.NRM2, Blas.C_32F, n, 0, Blas.C_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasScnrm2_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasScnrm2_64", handle, Blas.NRM2, Blas.C_32F, n, 0, Blas.C_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasDznrm2_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasDznrm2", handle, Blas.NRM2, Blas.C_64F, n, 0, Blas.C_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasDznrm2_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasDznrm2_64", handle, Blas.NRM2, Blas.C_64F, n, 0, Blas.C_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasSasum_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasSasum", handle, Blas.ASUM, Blas.R_32F, n, 0, Blas.R_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasSasum_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasSasum_64", handle, Blas.ASUM, Blas.R_32F, n, 0, Blas.R_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasDasum_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasDasum", handle, Blas.ASUM, Blas.R_64F, n, 0, Blas.R_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasDasum_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasDasum_64", handle, Blas.ASUM, Blas.R_64F, n, 0, Blas.R_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasScasum_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasScasum", handle, Blas.ASUM, Blas.C_32F, n, 0, Blas.C_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasScasum_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasScasum_64", handle, Blas.ASUM, Blas.C_32F, n, 0, Blas.C_32F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasDzasum_v2(long handle, int n, long x, int incx, long result) {
        return vectors("cublasDzasum", handle, Blas.ASUM, Blas.C_64F, n, 0, Blas.C_64F, x, incx, 0, 1, result);
    }

    @Override
    public int cublasDzasum_v2_64(long handle, long n, long x, long incx, long result) {
        return vectors("cublasDzasum_64", handle, Blas.ASUM, Blas.C_64F, n, 0, Blas.C_64F, x, incx, 0, 1, result);
    }
}
