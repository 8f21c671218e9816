package org.zludaj.nativ;

/**
 * cuBLAS's operations on the host (rt/hostblas.c) over OpenBLAS, whose library file {@link #open} is given. Matrices
 * are column-major at raw addresses; types are cudaDataType_t codes; operations (0 N, 1 T, 2 C), fill modes, sides and
 * diagonals are cuBLAS's numbers; scalars are passed as their raw bits (real part, imaginary part).
 */
public final class HostBlas {
    private HostBlas() {}

    static {
        HostRuntime.threadId();  // loads libzluda_rt.so
    }

    /** Looks up OpenBLAS's functions in the library at {@code path}; null, or why it cannot be used. */
    public static native String open(String path);

    /** Slots of {@link #gemm}'s argument array. */
    public static final int TRANSA = 0, TRANSB = 1, M = 2, N = 3, K = 4, A = 5, ATYPE = 6, LDA = 7, STRIDEA = 8, B = 9,
            BTYPE = 10, LDB = 11, STRIDEB = 12, C = 13, CTYPE = 14, LDC = 15, STRIDEC = 16, BATCH = 17, POINTER_ARRAYS = 18,
            SCALAR_TYPE = 19, WIDE = 20, ALPHA = 21, BETA = 23, COUNT = 25;

    /** A (batched) GEMM; {@code WIDE} 1 computes mixed types in f64 instead of f32. 0, or -1 when out of memory. */
    public static native int gemm(long[] args);

    public static native void trsm(int type, int side, int uplo, int trans, int diag, int m, int n, long alpha0, long alpha1,
                                   long a, int lda, long b, int ldb, int batch, boolean pointerArrays);

    public static native void gemv(int type, int trans, int m, int n, long alpha0, long alpha1, long a, int lda, long x, int incx,
                                   long beta0, long beta1, long y, int incy);

    public static native void syrk(int type, int uplo, int trans, int n, int k, long alpha, long a, int lda, long beta, long c, int ldc);

    public static native void symm(int type, int side, int uplo, int m, int n, long alpha, long a, int lda, long b, int ldb,
                                   long beta, long c, int ldc);

    /** 0, or -1 when out of memory. */
    public static native int geam(int type, int transa, int transb, int m, int n, long alpha, long a, int lda, long beta, long b,
                                  int ldb, long c, int ldc);

    /** Level-1 operations of {@link #level1}. */
    public static final int AXPY = 0, SCAL = 1, DOT = 2, DOTC = 3, NRM2 = 4, ASUM = 5, COPY = 6, SWAP = 7, IAMAX = 8, IAMIN = 9;

    /** One level-1 operation; a scalar result goes to {@code result} (16 bytes of room). */
    public static native void level1(int op, int type, int n, long alpha0, long alpha1, long x, int incx, long y, int incy,
                                     long result, int alphaType);

    /** rows x cols elements of {@code elem} bytes, {@code batch} times: dst (ldd, strideD) = src (lds, strideS). */
    public static native void copyMatrix(int elem, long rows, long cols, long batch, long src, long lds, long strideS, long dst,
                                         long ldd, long strideD);

    /**
     * cuBLASLt's epilogue on D in place: bias (one value of {@code biasType} per row of D, or per column when
     * {@code perColumn}), then ReLU or GELU; {@code epilogue} is a CUBLASLT_EPILOGUE_* value.
     */
    public static native void epilogue(int type, long rows, long cols, long batch, long d, long ldd, long strideD, int epilogue,
                                       long bias, int biasType, long biasStride, boolean perColumn);
}
