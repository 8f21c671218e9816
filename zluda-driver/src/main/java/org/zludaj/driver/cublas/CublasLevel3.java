package org.zludaj.driver.cublas;

import org.zludaj.api.cublas.CublasLevel3Api;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.backend.Blas.Scalar;

/**
 * cuBLAS level 3 and the GEMM extensions: every typed GEMM (S/D/C/Z/H, plain, batched, strided batched, their _64
 * forms), cublasGemmEx and its batched forms, trsm, syrk, symm. Each checks its arguments as cuBLAS does, then
 * enqueues one {@link Blas.Gemm} (or trsm...) in the handle's stream.
 */
final class CublasLevel3 implements CublasLevel3Api {
    private final Cublas c;

    CublasLevel3(Cublas c) {
        this.c = c;
    }

    /** cublasComputeType_t values; cublasGemmEx also takes the cudaDataType_t values of CUDA 10 (0, 1, 2, 10). */
    static final int COMPUTE_16F = 64, COMPUTE_16F_PEDANTIC = 65, COMPUTE_32F = 68, COMPUTE_32F_PEDANTIC = 69, COMPUTE_64F = 70,
            COMPUTE_64F_PEDANTIC = 71, COMPUTE_32I = 72, COMPUTE_32I_PEDANTIC = 73, COMPUTE_32F_FAST_16F = 74,
            COMPUTE_32F_FAST_16BF = 75, COMPUTE_32F_FAST_TF32 = 77, COMPUTE_32F_EMULATED_16BFX9 = 78, COMPUTE_64F_EMULATED_FIXEDPOINT = 79;

    /** The compute type's family: 16F, 32F, 64F or 32I (as COMPUTE_16F...), or -1 when it is none. */
    static int family(int compute) {
        return switch (compute) {
            case COMPUTE_16F, COMPUTE_16F_PEDANTIC, Blas.R_16F -> COMPUTE_16F;
            case COMPUTE_32F, COMPUTE_32F_PEDANTIC, COMPUTE_32F_FAST_16F, COMPUTE_32F_FAST_16BF, COMPUTE_32F_FAST_TF32,
                 COMPUTE_32F_EMULATED_16BFX9, Blas.R_32F, Blas.C_32F -> COMPUTE_32F;
            case COMPUTE_64F, COMPUTE_64F_PEDANTIC, COMPUTE_64F_EMULATED_FIXEDPOINT, Blas.R_64F, Blas.C_64F -> COMPUTE_64F;
            case COMPUTE_32I, COMPUTE_32I_PEDANTIC, Blas.R_32I -> COMPUTE_32I;
            default -> -1;
        };
    }

    /**
     * Whether cuBLAS computes A/B of {@code ab} into C of {@code ct} in compute family {@code f} (cublasGemmEx's table
     * of supported combinations; complex types only in their own precision).
     */
    static boolean supported(int f, int ab, int ct) {
        return switch (f) {
            case COMPUTE_16F -> ab == Blas.R_16F && ct == Blas.R_16F;
            case COMPUTE_32I -> ab == Blas.R_8I && ct == Blas.R_32I;
            case COMPUTE_64F -> ab == ct && (ab == Blas.R_64F || ab == Blas.C_64F);
            case COMPUTE_32F -> switch (ab) {
                case Blas.R_16F, Blas.R_16BF -> ct == ab || ct == Blas.R_32F;
                case Blas.R_8I, Blas.R_32F -> ct == Blas.R_32F;
                case Blas.C_32F -> ct == Blas.C_32F;
                default -> false;
            };
            default -> false;
        };
    }

    static void checkOp(int op, String what) throws CudaException {
        if (op < 0 || op > 2) throw Cublas.invalid(what + " " + op);
    }

    /** The GEMM every entry point of this class comes down to. */
    int gemm(String fn, long handle, int transa, int transb, long m, long n, long k, long alpha, long a, int atype, long lda,
             long strideA, long b, int btype, long ldb, long strideB, long beta, long cc, int ctype, long ldc, long strideC,
             long batch, boolean arrays, int compute) {
        return gemm(fn, handle, transa, transb, m, n, k, alpha, a, atype, lda, strideA, b, btype, ldb, strideB, beta, cc, ctype, ldc, strideC,
                batch, arrays, compute, null);
    }

    /**
     * As above; {@code app}: the application's arguments of a call the shim may repeat without the JVM (DirectBlas), else
     * null.
     */
    int gemm(String fn, long handle, int transa, int transb, long m, long n, long k, long alpha, long a, int atype, long lda,
             long strideA, long b, int btype, long ldb, long strideB, long beta, long cc, int ctype, long ldc, long strideC,
             long batch, boolean arrays, int compute, long[] app) {
        long epoch = app != null ? DirectBlas.epoch() : 0;  // before the handle's settings are read
        return Cublas.call(fn, () -> {
            CublasHandle h = c.handle(handle);
            checkOp(transa, "transa");
            checkOp(transb, "transb");
            if (m < 0 || n < 0 || k < 0) throw Cublas.invalid("m " + m + ", n " + n + ", k " + k);
            if (lda < Math.max(1, transa == 0 ? m : k)) throw Cublas.invalid("lda " + lda);
            if (ldb < Math.max(1, transb == 0 ? k : n)) throw Cublas.invalid("ldb " + ldb);
            if (ldc < Math.max(1, m)) throw Cublas.invalid("ldc " + ldc);
            // NVIDIA's answers a negative batch count with EXECUTION_FAILED (recorded on an H100, cuBLAS 13.1)
            if (batch < 0) throw Cublas.status(CublasStatus.EXECUTION_FAILED, "batchCount " + batch);
            int f = family(compute);
            if (atype != btype || !supported(f, atype, ctype))
                throw Cublas.unsupported("types A " + atype + ", B " + btype + ", C " + ctype + " with compute type " + compute);
            // int8 GEMMs need leading dimensions of A and B in multiples of 4 (NVIDIA's IMMA path; NOT_SUPPORTED otherwise)
            if (atype == Blas.R_8I && (lda % 4 != 0 || ldb % 4 != 0)) throw Cublas.unsupported("int8 GEMM with lda " + lda + ", ldb " + ldb);
            if (m == 0 || n == 0 || batch == 0) return;
            boolean complex = ctype == Blas.C_32F || ctype == Blas.C_64F;
            int scalarType = switch (f) {
                case COMPUTE_16F -> Blas.R_16F;
                case COMPUTE_32I -> Blas.R_32I;
                case COMPUTE_64F -> complex ? Blas.C_64F : Blas.R_64F;
                default -> complex ? Blas.C_32F : Blas.R_32F;
            };
            Scalar al = Cublas.scalar(h, alpha, scalarType, "alpha"), be = Cublas.scalar(h, beta, scalarType, "beta");
            Cublas.narrow(m, "m");
            Cublas.narrow(n, "n");
            Cublas.narrow(k, "k");
            Cublas.narrow(lda, "lda");
            Cublas.narrow(ldb, "ldb");
            Cublas.narrow(ldc, "ldc");
            Blas.Gemm g = new Blas.Gemm(transa, transb, m, n, k, al, a, atype, lda, strideA, b, btype, ldb, strideB, be, cc, ctype, ldc,
                    strideC, batch, arrays, scalarType, f == COMPUTE_64F || f == COMPUTE_32I, compute, h.mathMode,
                    fn.endsWith("_64") ? fn.substring(0, fn.length() - 3) : fn);
            if (app != null && c.tryHere(h, fn, q -> DirectBlas.offer(fn, app, g, h.blas.gemmDirect(g, q), epoch))) return;
            c.enqueue(h, fn, q -> h.blas.gemm(g, q));
        });
    }

    int trsm(String fn, long handle, int type, int side, int uplo, int trans, int diag, long m, long n, long alpha, long a, long lda,
             long b, long ldb, long batch, boolean arrays) {
        return Cublas.call(fn, () -> {
            CublasHandle h = c.handle(handle);
            if (side < 0 || side > 1 || uplo < 0 || uplo > 1 || diag < 0 || diag > 1) throw Cublas.invalid("side/uplo/diag");
            checkOp(trans, "trans");
            if (m < 0 || n < 0 || batch < 0) throw Cublas.invalid("m " + m + ", n " + n + ", batch " + batch);
            if (lda < Math.max(1, side == 0 ? m : n)) throw Cublas.invalid("lda " + lda);
            if (ldb < Math.max(1, m)) throw Cublas.invalid("ldb " + ldb);
            if (m == 0 || n == 0 || batch == 0) return;
            Scalar al = Cublas.scalar(h, alpha, type, "alpha");
            int mi = Cublas.narrow(m, "m"), ni = Cublas.narrow(n, "n"), la = Cublas.narrow(lda, "lda"), lb = Cublas.narrow(ldb, "ldb");
            int bi = Cublas.narrow(batch, "batchCount");
            c.enqueue(h, fn, q -> h.blas.trsm(type, side, uplo, trans, diag, mi, ni, al, a, la, b, lb, bi, arrays, q));
        });
    }

    int syrk(String fn, long handle, int type, int uplo, int trans, long n, long k, long alpha, long a, long lda, long beta, long cc, long ldc) {
        return Cublas.call(fn, () -> {
            CublasHandle h = c.handle(handle);
            if (uplo < 0 || uplo > 1) throw Cublas.invalid("uplo " + uplo);
            checkOp(trans, "trans");
            if (n < 0 || k < 0) throw Cublas.invalid("n " + n + ", k " + k);
            if (lda < Math.max(1, trans == 0 ? n : k)) throw Cublas.invalid("lda " + lda);
            if (ldc < Math.max(1, n)) throw Cublas.invalid("ldc " + ldc);
            if (n == 0) return;
            Scalar al = Cublas.scalar(h, alpha, type, "alpha"), be = Cublas.scalar(h, beta, type, "beta");
            int ni = Cublas.narrow(n, "n"), ki = Cublas.narrow(k, "k"), la = Cublas.narrow(lda, "lda"), lc = Cublas.narrow(ldc, "ldc");
            c.enqueue(h, fn, q -> h.blas.syrk(type, uplo, trans, ni, ki, al, a, la, be, cc, lc, q));
        });
    }

    int symm(String fn, long handle, int type, int side, int uplo, long m, long n, long alpha, long a, long lda, long b, long ldb,
             long beta, long cc, long ldc) {
        return Cublas.call(fn, () -> {
            CublasHandle h = c.handle(handle);
            if (side < 0 || side > 1 || uplo < 0 || uplo > 1) throw Cublas.invalid("side/uplo");
            if (m < 0 || n < 0) throw Cublas.invalid("m " + m + ", n " + n);
            if (lda < Math.max(1, side == 0 ? m : n) || ldb < Math.max(1, m) || ldc < Math.max(1, m)) throw Cublas.invalid("leading dimension");
            if (m == 0 || n == 0) return;
            Scalar al = Cublas.scalar(h, alpha, type, "alpha"), be = Cublas.scalar(h, beta, type, "beta");
            int mi = Cublas.narrow(m, "m"), ni = Cublas.narrow(n, "n"), la = Cublas.narrow(lda, "lda"), lb = Cublas.narrow(ldb, "ldb"),
                lc = Cublas.narrow(ldc, "ldc");
            c.enqueue(h, fn, q -> h.blas.symm(type, side, uplo, mi, ni, al, a, la, b, lb, be, cc, lc, q));
        });
    }

    @Override
    public int cublasSgemm_v2(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int lda, long B, int ldb, long beta, long C, int ldc) {
        long[] app = c.repeatsGemms() ? new long[] {handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc} : null;
        return gemm("cublasSgemm", handle, transa, transb, m, n, k, alpha, A, Blas.R_32F, lda, 0, B, Blas.R_32F, ldb, 0, beta, C, Blas.R_32F, ldc, 0, 1, false, 68, app);
    }

    @Override
    public int cublasSgemmBatched(long handle, int transa, int transb, int m, int n, int k, long alpha, long Aarray, int lda, long Barray, int ldb, long beta, long Carray, int ldc, int batchCount) {
        return gemm("cublasSgemmBatched", handle, transa, transb, m, n, k, alpha, Aarray, Blas.R_32F, lda, 0, Barray, Blas.R_32F, ldb, 0, beta, Carray, Blas.R_32F, ldc, 0, batchCount, true, 68);
    }

    @Override
    public int cublasSgemmStridedBatched(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int lda, long strideA, long B, int ldb, long strideB, long beta, long C, int ldc, long strideC, int batchCount) {
        return gemm("cublasSgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, Blas.R_32F, lda, strideA, B, Blas.R_32F, ldb, strideB, beta, C, Blas.R_32F, ldc, strideC, batchCount, false, 68);
    }

    @Override
    public int cublasSgemm_v2_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, long lda, long B, long ldb, long beta, long C, long ldc) {
        return gemm("cublasSgemm_64", handle, transa, transb, m, n, k, alpha, A, Blas.R_32F, lda, 0, B, Blas.R_32F, ldb, 0, beta, C, Blas.R_32F, ldc, 0, 1, false, 68);
    }

    @Override
    public int cublasSgemmBatched_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long Aarray, long lda, long Barray, long ldb, long beta, long Carray, long ldc, long batchCount) {
        return gemm("cublasSgemmBatched_64", handle, transa, transb, m, n, k, alpha, Aarray, Blas.R_32F, lda, 0, Barray, Blas.R_32F, ldb, 0, beta, Carray, Blas.R_32F, ldc, 0, batchCount, true, 68);
    }

    @Override
    public int cublasSgemmStridedBatched_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, long lda, long strideA, long B, long ldb, long strideB, long beta, long C, long ldc, long strideC, long batchCount) {
        return gemm("cublasSgemmStridedBatched_64", handle, transa, transb, m, n, k, alpha, A, Blas.R_32F, lda, strideA, B, Blas.R_32F, ldb, strideB, beta, C, Blas.R_32F, ldc, strideC, batchCount, false, 68);
    }

    @Override
    public int cublasDgemm_v2(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int lda, long B, int ldb, long beta, long C, int ldc) {
        return gemm("cublasDgemm", handle, transa, transb, m, n, k, alpha, A, Blas.R_64F, lda, 0, B, Blas.R_64F, ldb, 0, beta, C, Blas.R_64F, ldc, 0, 1, false, 70);
    }

    @Override
    public int cublasDgemmBatched(long handle, int transa, int transb, int m, int n, int k, long alpha, long Aarray, int lda, long Barray, int ldb, long beta, long Carray, int ldc, int batchCount) {
        return gemm("cublasDgemmBatched", handle, transa, transb, m, n, k, alpha, Aarray, Blas.R_64F, lda, 0, Barray, Blas.R_64F, ldb, 0, beta, Carray, Blas.R_64F, ldc, 0, batchCount, true, 70);
    }

    @Override
    public int cublasDgemmStridedBatched(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int lda, long strideA, long B, int ldb, long strideB, long beta, long C, int ldc, long strideC, int batchCount) {
        return gemm("cublasDgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, Blas.R_64F, lda, strideA, B, Blas.R_64F, ldb, strideB, beta, C, Blas.R_64F, ldc, strideC, batchCount, false, 70);
    }

    @Override
    public int cublasDgemm_v2_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, long lda, long B, long ldb, long beta, long C, long ldc) {
        return gemm("cublasDgemm_64", handle, transa, transb, m, n, k, alpha, A, Blas.R_64F, lda, 0, B, Blas.R_64F, ldb, 0, beta, C, Blas.R_64F, ldc, 0, 1, false, 70);
    }

    @Override
    public int cublasDgemmBatched_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long Aarray, long lda, long Barray, long ldb, long beta, long Carray, long ldc, long batchCount) {
        return gemm("cublasDgemmBatched_64", handle, transa, transb, m, n, k, alpha, Aarray, Blas.R_64F, lda, 0, Barray, Blas.R_64F, ldb, 0, beta, Carray, Blas.R_64F, ldc, 0, batchCount, true, 70);
    }

    @Override
    public int cublasDgemmStridedBatched_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, long lda, long strideA, long B, long ldb, long strideB, long beta, long C, long ldc, long strideC, long batchCount) {
        return gemm("cublasDgemmStridedBatched_64", handle, transa, transb, m, n, k, alpha, A, Blas.R_64F, lda, strideA, B, Blas.R_64F, ldb, strideB, beta, C, Blas.R_64F, ldc, strideC, batchCount, false, 70);
    }

    @Override
    public int cublasCgemm_v2(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int lda, long B, int ldb, long beta, long C, int ldc) {
        return gemm("cublasCgemm", handle, transa, transb, m, n, k, alpha, A, Blas.C_32F, lda, 0, B, Blas.C_32F, ldb, 0, beta, C, Blas.C_32F, ldc, 0, 1, false, 68);
    }

    @Override
    public int cublasCgemmBatched(long handle, int transa, int transb, int m, int n, int k, long alpha, long Aarray, int lda, long Barray, int ldb, long beta, long Carray, int ldc, int batchCount) {
        return gemm("cublasCgemmBatched", handle, transa, transb, m, n, k, alpha, Aarray, Blas.C_32F, lda, 0, Barray, Blas.C_32F, ldb, 0, beta, Carray, Blas.C_32F, ldc, 0, batchCount, true, 68);
    }

    @Override
    public int cublasCgemmStridedBatched(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int lda, long strideA, long B, int ldb, long strideB, long beta, long C, int ldc, long strideC, int batchCount) {
        return gemm("cublasCgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, Blas.C_32F, lda, strideA, B, Blas.C_32F, ldb, strideB, beta, C, Blas.C_32F, ldc, strideC, batchCount, false, 68);
    }

    @Override
    public int cublasCgemm_v2_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, long lda, long B, long ldb, long beta, long C, long ldc) {
        return gemm("cublasCgemm_64", handle, transa, transb, m, n, k, alpha, A, Blas.C_32F, lda, 0, B, Blas.C_32F, ldb, 0, beta, C, Blas.C_32F, ldc, 0, 1, false, 68);
    }

    @Override
    public int cublasCgemmBatched_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long Aarray, long lda, long Barray, long ldb, long beta, long Carray, long ldc, long batchCount) {
        return gemm("cublasCgemmBatched_64", handle, transa, transb, m, n, k, alpha, Aarray, Blas.C_32F, lda, 0, Barray, Blas.C_32F, ldb, 0, beta, Carray, Blas.C_32F, ldc, 0, batchCount, true, 68);
    }

    @Override
    public int cublasCgemmStridedBatched_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, long lda, long strideA, long B, long ldb, long strideB, long beta, long C, long ldc, long strideC, long batchCount) {
        return gemm("cublasCgemmStridedBatched_64", handle, transa, transb, m, n, k, alpha, A, Blas.C_32F, lda, strideA, B, Blas.C_32F, ldb, strideB, beta, C, Blas.C_32F, ldc, strideC, batchCount, false, 68);
    }

    @Override
    public int cublasZgemm_v2(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int lda, long B, int ldb, long beta, long C, int ldc) {
        return gemm("cublasZgemm", handle, transa, transb, m, n, k, alpha, A, Blas.C_64F, lda, 0, B, Blas.C_64F, ldb, 0, beta, C, Blas.C_64F, ldc, 0, 1, false, 70);
    }

    @Override
    public int cublasZgemmBatched(long handle, int transa, int transb, int m, int n, int k, long alpha, long Aarray, int lda, long Barray, int ldb, long beta, long Carray, int ldc, int batchCount) {
        return gemm("cublasZgemmBatched", handle, transa, transb, m, n, k, alpha, Aarray, Blas.C_64F, lda, 0, Barray, Blas.C_64F, ldb, 0, beta, Carray, Blas.C_64F, ldc, 0, batchCount, true, 70);
    }

    @Override
    public int cublasZgemmStridedBatched(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int lda, long strideA, long B, int ldb, long strideB, long beta, long C, int ldc, long strideC, int batchCount) {
        return gemm("cublasZgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, Blas.C_64F, lda, strideA, B, Blas.C_64F, ldb, strideB, beta, C, Blas.C_64F, ldc, strideC, batchCount, false, 70);
    }

    @Override
    public int cublasZgemm_v2_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, long lda, long B, long ldb, long beta, long C, long ldc) {
        return gemm("cublasZgemm_64", handle, transa, transb, m, n, k, alpha, A, Blas.C_64F, lda, 0, B, Blas.C_64F, ldb, 0, beta, C, Blas.C_64F, ldc, 0, 1, false, 70);
    }

    @Override
    public int cublasZgemmBatched_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long Aarray, long lda, long Barray, long ldb, long beta, long Carray, long ldc, long batchCount) {
        return gemm("cublasZgemmBatched_64", handle, transa, transb, m, n, k, alpha, Aarray, Blas.C_64F, lda, 0, Barray, Blas.C_64F, ldb, 0, beta, Carray, Blas.C_64F, ldc, 0, batchCount, true, 70);
    }

    @Override
    public int cublasZgemmStridedBatched_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, long lda, long strideA, long B, long ldb, long strideB, long beta, long C, long ldc, long strideC, long batchCount) {
        return gemm("cublasZgemmStridedBatched_64", handle, transa, transb, m, n, k, alpha, A, Blas.C_64F, lda, strideA, B, Blas.C_64F, ldb, strideB, beta, C, Blas.C_64F, ldc, strideC, batchCount, false, 70);
    }

    @Override
    public int cublasHgemm(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int lda, long B, int ldb, long beta, long C, int ldc) {
        return gemm("cublasHgemm", handle, transa, transb, m, n, k, alpha, A, Blas.R_16F, lda, 0, B, Blas.R_16F, ldb, 0, beta, C, Blas.R_16F, ldc, 0, 1, false, 64);
    }

    @Override
    public int cublasHgemmBatched(long handle, int transa, int transb, int m, int n, int k, long alpha, long Aarray, int lda, long Barray, int ldb, long beta, long Carray, int ldc, int batchCount) {
        return gemm("cublasHgemmBatched", handle, transa, transb, m, n, k, alpha, Aarray, Blas.R_16F, lda, 0, Barray, Blas.R_16F, ldb, 0, beta, Carray, Blas.R_16F, ldc, 0, batchCount, true, 64);
    }

    @Override
    public int cublasHgemmStridedBatched(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int lda, long strideA, long B, int ldb, long strideB, long beta, long C, int ldc, long strideC, int batchCount) {
        return gemm("cublasHgemmStridedBatched", handle, transa, transb, m, n, k, alpha, A, Blas.R_16F, lda, strideA, B, Blas.R_16F, ldb, strideB, beta, C, Blas.R_16F, ldc, strideC, batchCount, false, 64);
    }

    @Override
    public int cublasHgemm_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, long lda, long B, long ldb, long beta, long C, long ldc) {
        return gemm("cublasHgemm_64", handle, transa, transb, m, n, k, alpha, A, Blas.R_16F, lda, 0, B, Blas.R_16F, ldb, 0, beta, C, Blas.R_16F, ldc, 0, 1, false, 64);
    }

    @Override
    public int cublasHgemmBatched_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long Aarray, long lda, long Barray, long ldb, long beta, long Carray, long ldc, long batchCount) {
        return gemm("cublasHgemmBatched_64", handle, transa, transb, m, n, k, alpha, Aarray, Blas.R_16F, lda, 0, Barray, Blas.R_16F, ldb, 0, beta, Carray, Blas.R_16F, ldc, 0, batchCount, true, 64);
    }

    @Override
    public int cublasHgemmStridedBatched_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, long lda, long strideA, long B, long ldb, long strideB, long beta, long C, long ldc, long strideC, long batchCount) {
        return gemm("cublasHgemmStridedBatched_64", handle, transa, transb, m, n, k, alpha, A, Blas.R_16F, lda, strideA, B, Blas.R_16F, ldb, strideB, beta, C, Blas.R_16F, ldc, strideC, batchCount, false, 64);
    }

    @Override
    public int cublasGemmEx(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int Atype, int lda, long B, int Btype, int ldb, long beta, long C, int Ctype, int ldc, int computeType, int algo) {
        long[] app = c.repeatsGemms() ? new long[] {handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
                computeType, algo} : null;
        return gemm("cublasGemmEx", handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1, false, computeType, app);
    }

    @Override
    public int cublasGemmBatchedEx(long handle, int transa, int transb, int m, int n, int k, long alpha, long Aarray, int Atype, int lda, long Barray, int Btype, int ldb, long beta, long Carray, int Ctype, int ldc, int batchCount, int computeType, int algo) {
        long[] app = c.repeatsGemms() ? new long[] {handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray,
                Ctype, ldc, batchCount, computeType, algo} : null;
        return gemm("cublasGemmBatchedEx", handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, 0, Barray, Btype, ldb, 0, beta, Carray, Ctype, ldc, 0, batchCount, true, computeType, app);
    }

    @Override
    public int cublasGemmStridedBatchedEx(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int Atype, int lda, long strideA, long B, int Btype, int ldb, long strideB, long beta, long C, int Ctype, int ldc, long strideC, int batchCount, int computeType, int algo) {
        long[] app = c.repeatsGemms() ? new long[] {handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C,
                Ctype, ldc, strideC, batchCount, computeType, algo} : null;
        return gemm("cublasGemmStridedBatchedEx", handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount, false, computeType, app);
    }

    @Override
    public int cublasSgemmEx(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int Atype, int lda, long B, int Btype, int ldb, long beta, long C, int Ctype, int ldc) {
        return gemm("cublasSgemmEx", handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1, false, 68);
    }

    @Override
    public int cublasCgemmEx(long handle, int transa, int transb, int m, int n, int k, long alpha, long A, int Atype, int lda, long B, int Btype, int ldb, long beta, long C, int Ctype, int ldc) {
        return gemm("cublasCgemmEx", handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1, false, 68);
    }

    @Override
    public int cublasGemmEx_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, int Atype, long lda, long B, int Btype, long ldb, long beta, long C, int Ctype, long ldc, int computeType, int algo) {
        return gemm("cublasGemmEx_64", handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1, false, computeType);
    }

    @Override
    public int cublasGemmBatchedEx_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long Aarray, int Atype, long lda, long Barray, int Btype, long ldb, long beta, long Carray, int Ctype, long ldc, long batchCount, int computeType, int algo) {
        return gemm("cublasGemmBatchedEx_64", handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, 0, Barray, Btype, ldb, 0, beta, Carray, Ctype, ldc, 0, batchCount, true, computeType);
    }

    @Override
    public int cublasGemmStridedBatchedEx_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, int Atype, long lda, long strideA, long B, int Btype, long ldb, long strideB, long beta, long C, int Ctype, long ldc, long strideC, long batchCount, int computeType, int algo) {
        return gemm("cublasGemmStridedBatchedEx_64", handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount, false, computeType);
    }

    @Override
    public int cublasSgemmEx_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, int Atype, long lda, long B, int Btype, long ldb, long beta, long C, int Ctype, long ldc) {
        return gemm("cublasSgemmEx_64", handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1, false, 68);
    }

    @Override
    public int cublasCgemmEx_64(long handle, int transa, int transb, long m, long n, long k, long alpha, long A, int Atype, long lda, long B, int Btype, long ldb, long beta, long C, int Ctype, long ldc) {
        return gemm("cublasCgemmEx_64", handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1, false, 68);
    }

    @Override
    public int cublasStrsm_v2(long handle, int side, int uplo, int trans, int diag, int m, int n, long alpha, long A, int lda, long B, int ldb) {
        return trsm("cublasStrsm", handle, Blas.R_32F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, 1, false);
    }

    @Override
    public int cublasStrsm_v2_64(long handle, int side, int uplo, int trans, int diag, long m, long n, long alpha, long A, long lda, long B, long ldb) {
        return trsm("cublasStrsm_64", handle, Blas.R_32F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, 1, false);
    }

    @Override
    public int cublasDtrsm_v2(long handle, int side, int uplo, int trans, int diag, int m, int n, long alpha, long A, int lda, long B, int ldb) {
        return trsm("cublasDtrsm", handle, Blas.R_64F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, 1, false);
    }

    @Override
    public int cublasDtrsm_v2_64(long handle, int side, int uplo, int trans, int diag, long m, long n, long alpha, long A, long lda, long B, long ldb) {
        return trsm("cublasDtrsm_64", handle, Blas.R_64F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, 1, false);
    }

    @Override
    public int cublasCtrsm_v2(long handle, int side, int uplo, int trans, int diag, int m, int n, long alpha, long A, int lda, long B, int ldb) {
        return trsm("cublasCtrsm", handle, Blas.C_32F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, 1, false);
    }

    @Override
    public int cublasCtrsm_v2_64(long handle, int side, int uplo, int trans, int diag, long m, long n, long alpha, long A, long lda, long B, long ldb) {
        return trsm("cublasCtrsm_64", handle, Blas.C_32F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, 1, false);
    }

    @Override
    public int cublasZtrsm_v2(long handle, int side, int uplo, int trans, int diag, int m, int n, long alpha, long A, int lda, long B, int ldb) {
        return trsm("cublasZtrsm", handle, Blas.C_64F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, 1, false);
    }

    @Override
    public int cublasZtrsm_v2_64(long handle, int side, int uplo, int trans, int diag, long m, long n, long alpha, long A, long lda, long B, long ldb) {
        return trsm("cublasZtrsm_64", handle, Blas.C_64F, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, 1, false);
    }

    @Override
    public int cublasSsyrk_v2(long handle, int uplo, int trans, int n, int k, long alpha, long A, int lda, long beta, long C, int ldc) {
        return syrk("cublasSsyrk", handle, Blas.R_32F, uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
    }

    @Override
    public int cublasSsymm_v2(long handle, int side, int uplo, int m, int n, long alpha, long A, int lda, long B, int ldb, long beta, long C, int ldc) {
        return symm("cublasSsymm", handle, Blas.R_32F, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
    }

    @Override
    public int cublasSsyrk_v2_64(long handle, int uplo, int trans, long n, long k, long alpha, long A, long lda, long beta, long C, long ldc) {
        return syrk("cublasSsyrk_64", handle, Blas.R_32F, uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
    }

    @Override
    public int cublasSsymm_v2_64(long handle, int side, int uplo, long m, long n, long alpha, long A, long lda, long B, long ldb, long beta, long C, long ldc) {
        return symm("cublasSsymm_64", handle, Blas.R_32F, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
    }

    @Override
    public int cublasDsyrk_v2(long handle, int uplo, int trans, int n, int k, long alpha, long A, int lda, long beta, long C, int ldc) {
        return syrk("cublasDsyrk", handle, Blas.R_64F, uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
    }

    @Override
    public int cublasDsymm_v2(long handle, int side, int uplo, int m, int n, long alpha, long A, int lda, long B, int ldb, long beta, long C, int ldc) {
        return symm("cublasDsymm", handle, Blas.R_64F, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
    }

    @Override
    public int cublasDsyrk_v2_64(long handle, int uplo, int trans, long n, long k, long alpha, long A, long lda, long beta, long C, long ldc) {
        return syrk("cublasDsyrk_64", handle, Blas.R_64F, uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
    }

    @Override
    public int cublasDsymm_v2_64(long handle, int side, int uplo, long m, long n, long alpha, long A, long lda, long B, long ldb, long beta, long C, long ldc) {
        return symm("cublasDsymm_64", handle, Blas.R_64F, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
    }
}
