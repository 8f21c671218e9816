package org.zludaj.driver.backend;

import org.zludaj.driver.CudaException;

/**
 * The BLAS under ZLUDA-J's cuBLAS, one implementation per backend (host: OpenBLAS; hip: rocBLAS; cuda: NVIDIA's
 * cuBLAS). cuBLAS's semantics (handles, streams, pointer modes, argument checks) stay above it: an operation arrives
 * checked, with its stream's device queue ({@code queue}, 0 on the host). Matrices are column-major at device
 * addresses; types are cudaDataType_t codes; operations (0 N, 1 T, 2 C), fill modes, sides and diagonals are cuBLAS's
 * numbers.
 */
public interface Blas {
    String name();

    /** cudaDataType_t codes used here. */
    int R_32F = 0, R_64F = 1, R_16F = 2, R_8I = 3, C_32F = 4, C_64F = 5, R_8U = 8, R_32I = 10, R_16BF = 14;

    /** Bytes of one element of {@code type}, 0 for types the BLAS does not know. */
    static int size(int type) {
        return switch (type) {
            case R_16F, R_16BF -> 2;
            case R_32F, R_32I -> 4;
            case R_64F, C_32F -> 8;
            case C_64F -> 16;
            case R_8I, R_8U -> 1;
            default -> 0;
        };
    }

    /**
     * A scalar argument: its raw bits read from the host when the call was made (pointer mode host), or the device
     * address to read when the operation runs (pointer mode device).
     */
    record Scalar(long bits0, long bits1, long device) {
        public static Scalar host(long bits0, long bits1) {
            return new Scalar(bits0, bits1, 0);
        }

        public static Scalar device(long address) {
            return new Scalar(0, 0, address);
        }

        public boolean onDevice() {
            return device != 0;
        }

        /** Whether this scalar of {@code type} is known to be zero (one in device memory is not known: false). */
        public boolean isZero(int type) {
            if (onDevice()) return false;
            return switch (type) {
                case R_16F, R_16BF -> (bits0 & 0x7fff) == 0;
                case R_32F -> (bits0 & 0x7fffffffL) == 0;
                case C_32F -> (bits0 & 0x7fffffff7fffffffL) == 0;
                case C_64F -> (bits0 & Long.MAX_VALUE) == 0 && (bits1 & Long.MAX_VALUE) == 0;
                case R_32I -> (int) bits0 == 0;
                default -> (bits0 & Long.MAX_VALUE) == 0;
            };
        }

        /** The scalar of {@code type} at a host-addressable {@code address}, read now. */
        public static Scalar read(long address, int type) {
            byte[] b = new byte[16];
            org.zludaj.nativ.HostRuntime.read(address, b, 0, size(type));
            long lo = 0, hi = 0;
            for (int i = 7; i >= 0; i--) {
                lo = lo << 8 | (b[i] & 0xff);
                hi = hi << 8 | (b[8 + i] & 0xff);
            }
            return host(lo, hi);
        }
    }

    /**
     * One GEMM or a batch of them: C = alpha op(A) op(B) + beta C. With {@code pointerArrays} A, B and C are device
     * arrays of {@code batch} matrix addresses, else each matrix is {@code stride} elements after the previous one.
     * {@code scalarType} is the type of alpha and beta; {@code wide} computes in f64 (64F and 32I compute types).
     */
    record Gemm(int transa, int transb, long m, long n, long k, Scalar alpha, long a, int atype, long lda, long strideA,
                long b, int btype, long ldb, long strideB, Scalar beta, long c, int ctype, long ldc, long strideC, long batch,
                boolean pointerArrays, int scalarType, boolean wide, int compute, int mathMode, String entry) {
        /**
         * compute, mathMode and entry: the cublasComputeType_t the application asked for (the one a typed call implies
         * for those), its handle's cublasMath_t at the call (0 where the library has none, as cuBLASLt), and the cuBLAS
         * function it called without a _64 suffix ("cublasSgemm", "cublasGemmEx"...; null where none, as cuBLASLt).
         * NVIDIA's cuBLAS is asked for exactly these, through the same entry point (a single-precision product under
         * llama.cpp's CUBLAS_TF32_TENSOR_OP_MATH then runs on TF32 tensor cores, as natively, with NVIDIA's own choice of
         * kernel); the host's and AMD's BLAS compute every type in its full precision (RDNA has no TF32), which is at
         * least as accurate.
         */
        public Gemm(int transa, int transb, long m, long n, long k, Scalar alpha, long a, int atype, long lda, long strideA,
                    long b, int btype, long ldb, long strideB, Scalar beta, long c, int ctype, long ldc, long strideC, long batch,
                    boolean pointerArrays, int scalarType, boolean wide, int compute, int mathMode) {
            this(transa, transb, m, n, k, alpha, a, atype, lda, strideA, b, btype, ldb, strideB, beta, c, ctype, ldc, strideC,
                    batch, pointerArrays, scalarType, wide, compute, mathMode, null);
        }

        public Gemm(int transa, int transb, long m, long n, long k, Scalar alpha, long a, int atype, long lda, long strideA,
                    long b, int btype, long ldb, long strideB, Scalar beta, long c, int ctype, long ldc, long strideC, long batch,
                    boolean pointerArrays, int scalarType, boolean wide) {
            this(transa, transb, m, n, k, alpha, a, atype, lda, strideA, b, btype, ldb, strideB, beta, c, ctype, ldc, strideC,
                    batch, pointerArrays, scalarType, wide, 0, 0, null);
        }

        /** The value of a {@link Field} other than ALPHA and BETA (scalars). */
        public long value(Field f) {
            return switch (f) {
                case M -> m;
                case N -> n;
                case K -> k;
                case A -> a;
                case LDA -> lda;
                case STRIDE_A -> strideA;
                case B -> b;
                case LDB -> ldb;
                case STRIDE_B -> strideB;
                case C -> c;
                case LDC -> ldc;
                case STRIDE_C -> strideC;
                case BATCH -> batch;
                case ALPHA, BETA -> throw new IllegalArgumentException(f + " is a scalar");
            };
        }
    }

    void gemm(Gemm g, long queue) throws CudaException;

    /** A GEMM's own values, which an application passes to each call (the rest of a call fixes what the library runs). */
    enum Field { M, N, K, A, LDA, STRIDE_A, B, LDB, STRIDE_B, C, LDC, STRIDE_C, BATCH, ALPHA, BETA }

    /** An argument {@code FIELD | f.ordinal()} of a {@link Direct} call: the GEMM's value of field f. */
    long FIELD = 0x5a4c000000000100L;

    /**
     * How a GEMM was handed to a library: {@code function} (a C function's address) with {@code args}, each a value or
     * {@link #FIELD} | a {@link Field}'s ordinal, called through {@code call}, the backend's C function that makes such
     * a call without the JVM (rt/blascall.c zluda_blas_direct); the library's statuses 0..19 as cuBLAS's in {@code
     * statuses}, any other as {@code otherStatus} (-1: itself). The shim repeats such a call for the application's next
     * calls of the same kind (shim/blas.c, DirectBlas).
     */
    record Direct(long call, long function, long[] args, int[] statuses, int otherStatus) {}

    /**
     * Runs a GEMM as {@link #gemm} does, and returns how it was handed to a library where one call of one function
     * with the GEMM's own values ({@link Field}) in its arguments made it, the same for every GEMM that differs only in
     * those; else null (the host's BLAS: computed here).
     */
    default Direct gemmDirect(Gemm g, long queue) throws CudaException {
        gemm(g, queue);
        return null;
    }

    /** cuBLASLt epilogues: CUBLASLT_EPILOGUE_DEFAULT, RELU, BIAS, RELU_BIAS, GELU, GELU_BIAS. */
    int EPILOGUE_DEFAULT = 1, EPILOGUE_RELU = 2, EPILOGUE_BIAS = 4, EPILOGUE_RELU_BIAS = 6, EPILOGUE_GELU = 32,
            EPILOGUE_GELU_BIAS = 36;

    /**
     * cuBLASLt's matmul in column-major terms: D = epilogue(alpha op(A) op(B) + beta C + bias). {@code gemm}'s C is D;
     * the input C is at {@code c} (ldc, strideC, of D's type), the same matrix as D or another one. The bias (when
     * the epilogue has one) is a vector of {@code biasType}, one value per row of D ({@code biasPerColumn}: per
     * column), {@code biasStride} elements apart per batch.
     */
    record Matmul(Gemm gemm, long c, long ldc, long strideC, int epilogue, long bias, int biasType, long biasStride,
                  boolean biasPerColumn) {}

    void matmul(Matmul m, long queue) throws CudaException;

    /** Calls of this BLAS that {@link #underMathMode} runs. */
    interface Operations {
        void run() throws CudaException;
    }

    /**
     * Runs {@code ops} (calls of this BLAS, on the calling thread) under the math mode (cublasMath_t) that the cuBLAS
     * handle had when the application made the call. NVIDIA's cuBLAS lets CUBLAS_TF32_TENSOR_OP_MATH change its trsm,
     * syrk and symm as well as its GEMMs (ggml sets CUBLAS_DEFAULT_MATH around its cublasStrsmBatched for that): it
     * gets the mode before each call. The host's and AMD's BLAS compute in full precision in every mode: ops run as
     * they are.
     */
    default void underMathMode(int mathMode, Operations ops) throws CudaException {
        ops.run();
    }

    /** op(A) X = alpha B or X op(A) = alpha B, X written over B; a batch of pointer arrays when {@code pointerArrays}. */
    void trsm(int type, int side, int uplo, int trans, int diag, int m, int n, Scalar alpha, long a, int lda, long b, int ldb,
              int batch, boolean pointerArrays, long queue) throws CudaException;

    void gemv(int type, int trans, int m, int n, Scalar alpha, long a, int lda, long x, int incx, Scalar beta, long y, int incy,
              long queue) throws CudaException;

    void syrk(int type, int uplo, int trans, int n, int k, Scalar alpha, long a, int lda, Scalar beta, long c, int ldc, long queue)
            throws CudaException;

    void symm(int type, int side, int uplo, int m, int n, Scalar alpha, long a, int lda, long b, int ldb, Scalar beta, long c,
              int ldc, long queue) throws CudaException;

    void geam(int type, int transa, int transb, int m, int n, Scalar alpha, long a, int lda, Scalar beta, long b, int ldb,
              long c, int ldc, long queue) throws CudaException;

    /** Level-1 operations. */
    int AXPY = 0, SCAL = 1, DOT = 2, DOTC = 3, NRM2 = 4, ASUM = 5, COPY = 6, SWAP = 7, IAMAX = 8, IAMIN = 9;

    /**
     * A level-1 operation on vectors of {@code type}; {@code alphaType} is the scalar's type (a real scale of a complex
     * vector: csscal); a scalar result (dot, nrm2, asum, the 1-based index of iamax/iamin) goes to {@code result}.
     */
    void level1(int op, int type, int n, Scalar alpha, int alphaType, long x, int incx, long y, int incy, long result, long queue)
            throws CudaException;
}
