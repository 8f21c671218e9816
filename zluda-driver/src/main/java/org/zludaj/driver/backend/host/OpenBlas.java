package org.zludaj.driver.backend.host;

import java.util.Map;
import org.zludaj.api.CuResult;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Blas;
import org.zludaj.nativ.HostBlas;

/**
 * The host backend's BLAS: OpenBLAS, from JavaCPP's preset (org.bytedeco:openblas, extracted to JavaCPP's cache on
 * first use), called from C (rt/hostblas.c) at the addresses the application passed: device memory is host memory.
 * Operations run on the stream thread that executes them, so they are ordered with the stream's kernels and copies.
 * Scalars in device memory are read when the operation runs.
 */
public final class OpenBlas implements Blas {
    private static volatile String loaded;

    /** Loads OpenBLAS once; throws NOT_SUPPORTED with the reason when it cannot be loaded. */
    static OpenBlas open() throws CudaException {
        if (loaded == null) {
            synchronized (OpenBlas.class) {
                if (loaded == null) loaded = load();
            }
        }
        if (!loaded.isEmpty()) throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "OpenBLAS: " + loaded);
        return new OpenBlas();
    }

    /** "" when loaded, else why not. */
    private static String load() {
        try {
            org.bytedeco.javacpp.Loader.load(org.bytedeco.openblas.global.openblas_nolapack.class);
            for (Map.Entry<String, String> e : org.bytedeco.javacpp.Loader.getLoadedLibraries().entrySet()) {
                String path = e.getValue();
                if (path != null && path.contains("libopenblas")) {
                    String why = HostBlas.open(path);
                    return why == null ? "" : why;
                }
            }
            return "JavaCPP loaded no libopenblas";
        } catch (Throwable t) {
            return t.toString();
        }
    }

    @Override
    public String name() {
        return "OpenBLAS";
    }

    /** The scalar's bits, read from (host-addressable) device memory when it lives there. */
    private static long[] bits(Scalar s, int type) {
        Scalar v = s.onDevice() ? Scalar.read(s.device(), type) : s;
        return new long[] {v.bits0(), v.bits1()};
    }

    private static CudaException outOfMemory() {
        return new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "host BLAS work buffers");
    }

    @Override
    public void matmul(Matmul mm, long queue) throws CudaException {
        Gemm g = mm.gemm();
        boolean readsC = !g.beta().isZero(g.scalarType());
        if (mm.c() != g.c() && readsC)
            HostBlas.copyMatrix(Blas.size(g.ctype()), g.m(), g.n(), g.batch(), mm.c(), mm.ldc(), mm.strideC(), g.c(), g.ldc(), g.strideC());
        gemm(g, queue);
        if (mm.epilogue() != EPILOGUE_DEFAULT)
            HostBlas.epilogue(g.ctype(), g.m(), g.n(), g.batch(), g.c(), g.ldc(), g.strideC(), mm.epilogue(), mm.bias(), mm.biasType(),
                    mm.biasStride(), mm.biasPerColumn());
    }

    @Override
    public void gemm(Gemm g, long queue) throws CudaException {
        long[] a = new long[HostBlas.COUNT];
        long[] alpha = bits(g.alpha(), g.scalarType()), beta = bits(g.beta(), g.scalarType());
        a[HostBlas.TRANSA] = g.transa();
        a[HostBlas.TRANSB] = g.transb();
        a[HostBlas.M] = g.m();
        a[HostBlas.N] = g.n();
        a[HostBlas.K] = g.k();
        a[HostBlas.A] = g.a();
        a[HostBlas.ATYPE] = g.atype();
        a[HostBlas.LDA] = g.lda();
        a[HostBlas.STRIDEA] = g.strideA();
        a[HostBlas.B] = g.b();
        a[HostBlas.BTYPE] = g.btype();
        a[HostBlas.LDB] = g.ldb();
        a[HostBlas.STRIDEB] = g.strideB();
        a[HostBlas.C] = g.c();
        a[HostBlas.CTYPE] = g.ctype();
        a[HostBlas.LDC] = g.ldc();
        a[HostBlas.STRIDEC] = g.strideC();
        a[HostBlas.BATCH] = g.batch();
        a[HostBlas.POINTER_ARRAYS] = g.pointerArrays() ? 1 : 0;
        a[HostBlas.SCALAR_TYPE] = g.scalarType();
        a[HostBlas.WIDE] = g.wide() ? 1 : 0;
        a[HostBlas.ALPHA] = alpha[0];
        a[HostBlas.ALPHA + 1] = alpha[1];
        a[HostBlas.BETA] = beta[0];
        a[HostBlas.BETA + 1] = beta[1];
        if (HostBlas.gemm(a) != 0) throw outOfMemory();
    }

    @Override
    public void trsm(int type, int side, int uplo, int trans, int diag, int m, int n, Scalar alpha, long a, int lda, long b, int ldb,
                     int batch, boolean pointerArrays, long queue) {
        long[] al = bits(alpha, type);
        HostBlas.trsm(type, side, uplo, trans, diag, m, n, al[0], al[1], a, lda, b, ldb, batch, pointerArrays);
    }

    @Override
    public void gemv(int type, int trans, int m, int n, Scalar alpha, long a, int lda, long x, int incx, Scalar beta, long y, int incy,
                     long queue) {
        long[] al = bits(alpha, type), be = bits(beta, type);
        HostBlas.gemv(type, trans, m, n, al[0], al[1], a, lda, x, incx, be[0], be[1], y, incy);
    }

    @Override
    public void syrk(int type, int uplo, int trans, int n, int k, Scalar alpha, long a, int lda, Scalar beta, long c, int ldc, long queue) {
        HostBlas.syrk(type, uplo, trans, n, k, bits(alpha, type)[0], a, lda, bits(beta, type)[0], c, ldc);
    }

    @Override
    public void symm(int type, int side, int uplo, int m, int n, Scalar alpha, long a, int lda, long b, int ldb, Scalar beta, long c,
                     int ldc, long queue) {
        HostBlas.symm(type, side, uplo, m, n, bits(alpha, type)[0], a, lda, b, ldb, bits(beta, type)[0], c, ldc);
    }

    @Override
    public void geam(int type, int transa, int transb, int m, int n, Scalar alpha, long a, int lda, Scalar beta, long b, int ldb,
                     long c, int ldc, long queue) throws CudaException {
        if (HostBlas.geam(type, transa, transb, m, n, bits(alpha, type)[0], a, lda, bits(beta, type)[0], b, ldb, c, ldc) != 0)
            throw outOfMemory();
    }

    @Override
    public void level1(int op, int type, int n, Scalar alpha, int alphaType, long x, int incx, long y, int incy, long result, long queue) {
        long[] al = alpha == null ? new long[2] : bits(alpha, alphaType);
        HostBlas.level1(op, type, n, al[0], al[1], x, incx, y, incy, result, alphaType);
    }
}
