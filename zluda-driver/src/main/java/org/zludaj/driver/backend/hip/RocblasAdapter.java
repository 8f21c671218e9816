package org.zludaj.driver.backend.hip;

import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.RuntimeBlas;

/**
 * The hip backend's BLAS: AMD's rocBLAS, a thin table-driven adapter. cuBLAS's enums become rocBLAS's (the tables
 * below), its cudaDataType_t codes rocblas_datatype, its statuses come back as cuBLAS's; GEMMs of every type go to
 * rocblas_gemm_strided_batched_ex / rocblas_gemm_batched_ex with the compute type of the scalars (as rocBLAS defines
 * it); cuBLASLt's matmul is rocblas_gemm_strided_batched_ex with C apart from D (its epilogues other than DEFAULT
 * answer NOT_SUPPORTED: rocBLAS has none); trsm, gemv, syrk, symm, geam and level 1 have rocBLAS's functions of the
 * same argument order. Work goes to the stream's HIP stream (rocblas_set_stream).
 */
public final class RocblasAdapter extends RuntimeBlas {
    static final int ROCBLAS_SUCCESS = 0, ROCBLAS_PERF_DEGRADED = 7;
    private final Rocblas rocblas;
    private final Hip hip;
    private final long handle;
    private long scratch;

    RocblasAdapter(Rocblas rocblas, Hip hip) throws CudaException {
        this.rocblas = rocblas;
        this.hip = hip;
        this.handle = createHandle("rocblas_create_handle");
    }

    /** Opens rocBLAS and creates the backend's handle; NOT_SUPPORTED with the reason where there is no rocBLAS. */
    static RocblasAdapter open(Rocblas rocblas, Hip hip) throws CudaException {
        String why = rocblas.open();
        if (why != null) throw new CudaException(15, "rocBLAS not found: " + why + " (set ZLUDA_ROCBLAS_LIB)");
        return new RocblasAdapter(rocblas, hip);
    }

    // ------------------------------------------------------------------------------------------ the mapping tables

    /** rocblas_operation of cuBLAS's N, T, C. */
    static final long[] OPERATION = {111, 112, 113};
    /** rocblas_fill of cuBLAS's LOWER (0), UPPER (1), FULL (2). */
    static final long[] FILL = {122, 121, 123};
    /** rocblas_diagonal of cuBLAS's NON_UNIT, UNIT. */
    static final long[] DIAGONAL = {131, 132};
    /** rocblas_side of cuBLAS's LEFT, RIGHT. */
    static final long[] SIDE = {141, 142};
    /** rocblas_datatype of each cudaDataType_t code 0..15 (R_32F, R_64F, R_16F, R_8I, C_32F, C_64F, C_16F, C_8I, R_8U, C_8U, R_32I, C_32I, R_32U, C_32U, R_16BF, C_16BF). */
    static final long[] DATATYPE = {151, 152, 150, 160, 154, 155, 153, 164, 161, 165, 162, 166, 163, 167, 168, 169};
    /** cuBLAS's status of each rocblas_status 0..15. */
    static final int[] STATUS = {
        0,   // success
        1,   // invalid_handle -> NOT_INITIALIZED
        15,  // not_implemented -> NOT_SUPPORTED
        7,   // invalid_pointer -> INVALID_VALUE
        7,   // invalid_size -> INVALID_VALUE
        3,   // memory_error -> ALLOC_FAILED
        14,  // internal_error -> INTERNAL_ERROR
        0,   // perf_degraded: done, slower
        14,  // size_query_mismatch
        14,  // size_increased
        14,  // size_unchanged
        7,   // invalid_value -> INVALID_VALUE
        14,  // continue
        13,  // check_numerics_fail -> EXECUTION_FAILED
        15,  // excluded_from_build -> NOT_SUPPORTED
        8,   // arch_mismatch -> ARCH_MISMATCH
    };

    static long datatype(int cuda) throws CudaException {
        if (cuda < 0 || cuda >= DATATYPE.length) throw new CudaException(15, "data type " + cuda + " has no rocBLAS type");
        return DATATYPE[cuda];
    }

    static int status(int rocblas) {
        return rocblas >= 0 && rocblas < STATUS.length ? STATUS[rocblas] : 14;
    }

    @Override
    protected long operation(int cublas) {
        return OPERATION[cublas];
    }

    @Override
    protected long fill(int cublas) {
        return FILL[cublas];
    }

    @Override
    protected long diagonal(int cublas) {
        return DIAGONAL[cublas];
    }

    @Override
    protected long side(int cublas) {
        return SIDE[cublas];
    }

    // ------------------------------------------------------------------------------------------------ the calls

    @Override
    protected int invoke(String function, long[] args, long[] slots) {
        return rocblas.call(function, args, slots);
    }

    @Override
    protected void check(int status, String what) throws CudaException {
        if (status == ROCBLAS_SUCCESS || status == ROCBLAS_PERF_DEGRADED) return;
        throw new CudaException(status(status), what + " failed in rocBLAS (rocblas_status " + status + ")");
    }

    @Override
    protected String setStreamFunction() {
        return "rocblas_set_stream";
    }

    @Override
    protected String setPointerModeFunction() {
        return "rocblas_set_pointer_mode";
    }

    @Override
    protected long handle() {
        return handle;
    }

    @Override
    public String name() {
        return "rocBLAS";
    }

    @Override
    protected String typed(String kind, int type) throws CudaException {
        String t = letter(type).toLowerCase();
        return kind.equals("trsmBatched") ? "rocblas_" + t + "trsm_batched" : "rocblas_" + t + kind;
    }

    @Override
    protected String level1Name(int op, int type, int alphaType) throws CudaException {
        String t = letter(type).toLowerCase();
        boolean complex = type == C_32F || type == C_64F;
        String real = complex ? (type == C_32F ? "sc" : "dz") : t;
        return switch (op) {
            case AXPY -> "rocblas_" + t + "axpy";
            case SCAL -> "rocblas_" + (complex && alphaType != type ? t + (type == C_32F ? "s" : "d") : t) + "scal";
            case COPY -> "rocblas_" + t + "copy";
            case SWAP -> "rocblas_" + t + "swap";
            case DOT -> "rocblas_" + t + (complex ? "dotu" : "dot");
            case DOTC -> "rocblas_" + t + "dotc";
            case NRM2 -> "rocblas_" + real + "nrm2";
            case ASUM -> "rocblas_" + real + "asum";
            case IAMAX -> "rocblas_i" + t + "amax";
            case IAMIN -> "rocblas_i" + t + "amin";
            default -> throw new CudaException(15, "level-1 operation " + op);
        };
    }

    /** Every rocBLAS function this adapter may call (the test checks AMD's library has each one where it is installed). */
    static java.util.List<String> functions() throws CudaException {
        java.util.List<String> names = new java.util.ArrayList<>(java.util.List.of("rocblas_create_handle", "rocblas_set_stream",
                "rocblas_set_pointer_mode", "rocblas_gemm_strided_batched_ex", "rocblas_gemm_batched_ex"));
        RocblasAdapter naming = new RocblasAdapter();
        for (int type : new int[] {R_32F, R_64F, C_32F, C_64F}) {
            for (String kind : new String[] {"gemv", "syrk", "symm", "geam", "trsm", "trsmBatched"}) names.add(naming.typed(kind, type));
            for (int op = AXPY; op <= IAMIN; op++) {
                if (op == DOTC && (type == R_32F || type == R_64F)) continue;
                names.add(naming.level1Name(op, type, type));
                if (op == SCAL && (type == C_32F || type == C_64F)) names.add(naming.level1Name(op, type, type == C_32F ? R_32F : R_64F));
            }
        }
        return names;
    }

    /** An adapter without a library: for naming only. */
    private RocblasAdapter() {
        this.rocblas = null;
        this.hip = null;
        this.handle = 0;
    }

    @Override
    protected synchronized long scratch() throws CudaException {
        if (scratch == 0) {
            long[] out = new long[1];
            int r = hip.alloc(0, 16, out);
            if (r != 0) throw new CudaException(3, "hipMalloc of rocBLAS's result buffer: " + r);
            scratch = out[0];
        }
        return scratch;
    }

    @Override
    protected void copy(long dst, long src, long bytes) throws CudaException {
        int r = hip.copy(dst, src, bytes);
        if (r != 0) throw new CudaException(13, "hipMemcpy of a rocBLAS result: " + r);
    }

    /** rocBLAS's compute type: the type of alpha and beta (rocblas_gemm_ex defines it so). */
    static long computeType(Gemm g) throws CudaException {
        return datatype(g.scalarType());
    }

    @Override
    public void gemm(Gemm g, long queue) throws CudaException {
        gemmEx(g, C, LDC, STRIDE_C, queue);
    }

    /** D = alpha op(A) op(B) + beta C: gemm's C is D (C, LDC, STRIDE_C: the GEMM's own); the input C is at {@code c}. */
    private void gemmEx(Gemm g, long c, long ldc, long strideC, long queue) throws CudaException {
        long at = datatype(g.atype()), bt = datatype(g.btype()), ct = datatype(g.ctype()), compute = computeType(g);
        if (g.pointerArrays())
            call("rocblas_gemm_batched_ex", queue, g, handle, operation(g.transa()), operation(g.transb()), M, N, K, ALPHA, A, at, LDA, B,
                    bt, LDB, BETA, c, ct, ldc, C, ct, LDC, BATCH, compute, 0, 0, 0);
        else
            call("rocblas_gemm_strided_batched_ex", queue, g, handle, operation(g.transa()), operation(g.transb()), M, N, K, ALPHA, A, at,
                    LDA, STRIDE_A, B, bt, LDB, STRIDE_B, BETA, c, ct, ldc, strideC, C, ct, LDC, STRIDE_C, BATCH, compute, 0, 0, 0);
    }

    @Override
    protected long address(String function) {
        return rocblas.address(function);
    }

    @Override
    protected long directCall() {
        return rocblas.directCall();
    }

    @Override
    protected int cublasStatus(int status) {
        return status(status);
    }

    @Override
    public void matmul(Matmul mm, long queue) throws CudaException {
        if (mm.epilogue() != EPILOGUE_DEFAULT) throw new CudaException(15, "epilogue " + mm.epilogue() + " (rocBLAS has none)");
        gemmEx(mm.gemm(), mm.c(), mm.ldc(), mm.strideC(), queue);
    }
}
