package org.zludaj.driver.backend;

import org.zludaj.driver.CudaException;
import org.zludaj.nativ.HostRuntime;

/**
 * What the GPU backends' BLAS adapters share: a vendor BLAS opened at run time (NVIDIA's cuBLAS for the cuda backend,
 * AMD's rocBLAS for the hip backend), one handle per backend, and every call made through a generic signature
 * (zluda-native rt/blascall.c): arguments are integers or pointers, and an argument {@code SLOT | i} stands for the
 * address of 16 bytes of host memory (slot i) that the call reads and writes: host scalars in, handles out. Each
 * operation sets the handle's stream (the stream's device queue) and pointer mode only when they change, puts
 * alpha and beta where {@link #ALPHA} and {@link #BETA} stand (their host bits in slots 0 and 1, or their device
 * addresses), and maps the library's status with {@link #check}. Subclasses name the functions and map the enums.
 */
public abstract class RuntimeBlas implements Blas {
    /** An argument {@code SLOT | i}: the address of slot i (rt/blascall.c). */
    public static final long SLOT = 0x5a4c000000000000L;
    /** Where alpha and beta go in an argument list. */
    protected static final long ALPHA = SLOT | 0x80, BETA = SLOT | 0x81;
    /** Both libraries number pointer modes as cuBLAS does. */
    protected static final int POINTER_HOST = 0, POINTER_DEVICE = 1;

    /** Where a GEMM's own values go in an argument list ({@link #call(String, long, Gemm, long...)}). */
    protected static final long M = field(Field.M), N = field(Field.N), K = field(Field.K), A = field(Field.A), LDA = field(Field.LDA),
            STRIDE_A = field(Field.STRIDE_A), B = field(Field.B), LDB = field(Field.LDB), STRIDE_B = field(Field.STRIDE_B),
            C = field(Field.C), LDC = field(Field.LDC), STRIDE_C = field(Field.STRIDE_C), BATCH = field(Field.BATCH);

    private static long field(Field f) {
        return Blas.FIELD | f.ordinal();
    }

    private long stream = -1;
    private int pointerMode = -1;
    /** The math mode that {@link #underMathMode} gives the calls it runs on this thread (none: the handle's as it is). */
    private final ThreadLocal<Integer> callMathMode = new ThreadLocal<>();
    /** While {@link #gemmDirect} runs: the calls made with a GEMM's fields, and the last one's function and arguments. */
    private boolean recording;
    private int recordedCalls;
    private String recordedFunction;
    private long[] recordedArgs;

    /** Calls {@code function} of the library with {@code args}; its status (the library's own numbers). */
    protected abstract int invoke(String function, long[] args, long[] slots) throws CudaException;

    /** Throws, with the matching cuBLAS status, unless {@code status} is the library's success. */
    protected abstract void check(int status, String what) throws CudaException;

    /** The library's functions that set a handle's stream and pointer mode. */
    protected abstract String setStreamFunction();

    protected abstract String setPointerModeFunction();

    /** The handle every operation passes first. */
    protected abstract long handle();

    /** Creates a handle with the library's {@code create} function (its address in slot 0). */
    protected long createHandle(String create) throws CudaException {
        long[] slots = new long[2];
        check(invoke(create, new long[] {SLOT}, slots), create);
        return slots[0];
    }

    /** The address of the library's {@code function} (0: none; then no call is repeated without the JVM). */
    protected long address(String function) {
        return 0;
    }

    /** The backend's C function that makes a library call for the shim (rt/blascall.c zluda_blas_direct), or 0. */
    protected long directCall() {
        return 0;
    }

    /** cuBLAS's status for the library's {@code status} (cuBLAS's own numbers by default). */
    protected int cublasStatus(int status) {
        return status;
    }

    /** Sets the library handle's math mode (cublasMath_t) where it differs from the last; nothing where the library has none. */
    protected void mathMode(int mode) throws CudaException {
    }

    @Override
    public void underMathMode(int mathMode, Operations ops) throws CudaException {
        Integer outer = callMathMode.get();
        callMathMode.set(mathMode);
        try {
            ops.run();
        } finally {
            if (outer == null) callMathMode.remove();
            else callMathMode.set(outer);
        }
    }

    /**
     * Called before the handle's state changes (its stream, pointer mode, math mode): calls the shim made without the
     * JVM under the old state are refused from then on (rt/blascall.c).
     */
    protected void stateChanging() {
        if (directCall() != 0) HostRuntime.blasStateChanged();
    }

    /**
     * One GEMM-like operation in {@code queue}: {@code args} may hold {@link #M}, {@link #N}... (the GEMM's own
     * values) and {@link #ALPHA}, {@link #BETA}, each replaced by g's.
     */
    protected synchronized void call(String name, long queue, Gemm g, long... args) throws CudaException {
        long[] a = args.clone();
        for (int i = 0; i < a.length; i++)
            if ((a[i] & ~0xffL) == Blas.FIELD) a[i] = g.value(Field.values()[(int) (a[i] & 0xff)]);
        if (recording) {
            recordedCalls++;
            recordedFunction = name;
            recordedArgs = args.clone();
        }
        call(name, queue, g.alpha(), g.beta(), a);
    }

    @Override
    public synchronized Direct gemmDirect(Gemm g, long queue) throws CudaException {
        recording = true;
        recordedCalls = 0;
        try {
            gemm(g, queue);
        } finally {
            recording = false;
        }
        long call = directCall(), function = recordedCalls == 1 ? address(recordedFunction) : 0;
        if (call == 0 || function == 0) return null;
        long[] args = recordedArgs;
        for (int i = 0; i < args.length; i++) {
            if (args[i] == ALPHA) args[i] = field(Field.ALPHA);
            else if (args[i] == BETA) args[i] = field(Field.BETA);
        }
        int[] statuses = new int[20];
        for (int i = 0; i < statuses.length; i++) statuses[i] = cublasStatus(i);
        return new Direct(call, function, args, statuses, cublasStatus(statuses.length) == statuses.length ? -1 : cublasStatus(statuses.length));
    }

    /** One operation in {@code queue}; alpha and beta (null when the operation has none) where ALPHA and BETA stand. */
    protected synchronized void call(String name, long queue, Scalar alpha, Scalar beta, long... args) throws CudaException {
        call(name, queue, alpha != null && alpha.onDevice() || beta != null && beta.onDevice(), alpha, beta, args);
    }

    /** As {@link #call(String, long, Scalar, Scalar, long...)} with the pointer mode given (device results). */
    protected synchronized void call(String name, long queue, boolean devicePointers, Scalar alpha, Scalar beta, long... args)
            throws CudaException {
        long[] slots = new long[4];
        if (queue != stream) {
            stateChanging();
            stream = -1;  // unknown until set
            check(invoke(setStreamFunction(), new long[] {handle(), queue}, slots), setStreamFunction());
            stream = queue;
        }
        int mode = devicePointers ? POINTER_DEVICE : POINTER_HOST;
        if (mode != pointerMode) {
            stateChanging();
            pointerMode = -1;
            check(invoke(setPointerModeFunction(), new long[] {handle(), mode}, slots), setPointerModeFunction());
            pointerMode = mode;
        }
        Integer math = callMathMode.get();
        if (math != null) mathMode(math);
        long[] a = args.clone();
        for (int i = 0; i < a.length; i++) {
            if (a[i] == ALPHA) a[i] = scalar(alpha, 0, slots);
            else if (a[i] == BETA) a[i] = scalar(beta, 1, slots);
        }
        check(invoke(name, a, slots), name);
    }

    private static long scalar(Scalar s, int slot, long[] slots) {
        if (s.onDevice()) return s.device();
        slots[2 * slot] = s.bits0();
        slots[2 * slot + 1] = s.bits1();
        return SLOT | slot;
    }

    /** BLAS's letter of a type: S, D, C, Z. */
    protected static String letter(int type) throws CudaException {
        return switch (type) {
            case R_32F -> "S";
            case R_64F -> "D";
            case C_32F -> "C";
            case C_64F -> "Z";
            default -> throw new CudaException(15, "type " + type + " in a typed BLAS function");
        };
    }

    /** Bytes of a level-1 result: an index (4), a dot product (the vector's type), a norm or sum (its real type). */
    protected static int resultBytes(int op, int type) {
        if (op == IAMAX || op == IAMIN) return 4;
        if (op == DOT || op == DOTC) return Blas.size(type);
        return type == R_32F || type == C_32F ? 4 : 8;
    }

    // ------------------------------------------------------------- operations whose argument order both libraries share

    /** The library's name of a typed BLAS function: {@code kind} "gemv", "syrk", "symm", "geam", "trsm", "trsmBatched". */
    protected abstract String typed(String kind, int type) throws CudaException;

    /** The library's name of a level-1 function (null: none for these types). */
    protected abstract String level1Name(int op, int type, int alphaType) throws CudaException;

    /** The library's numbers for cuBLAS's operation (N/T/C), fill mode, diagonal and side: cuBLAS's own by default. */
    protected long operation(int cublas) {
        return cublas;
    }

    protected long fill(int cublas) {
        return cublas;
    }

    protected long diagonal(int cublas) {
        return cublas;
    }

    protected long side(int cublas) {
        return cublas;
    }

    /** 16 bytes of device memory for level-1 results, and a copy (unified addresses: to host or device memory). */
    protected abstract long scratch() throws CudaException;

    protected abstract void copy(long dst, long src, long bytes) throws CudaException;

    @Override
    public void trsm(int type, int side, int uplo, int trans, int diag, int m, int n, Scalar alpha, long a, int lda, long b, int ldb,
                     int batch, boolean pointerArrays, long queue) throws CudaException {
        if (pointerArrays) call(typed("trsmBatched", type), queue, alpha, null, handle(), side(side), fill(uplo), operation(trans),
                diagonal(diag), m, n, ALPHA, a, lda, b, ldb, batch);
        else call(typed("trsm", type), queue, alpha, null, handle(), side(side), fill(uplo), operation(trans), diagonal(diag), m, n,
                ALPHA, a, lda, b, ldb);
    }

    @Override
    public void gemv(int type, int trans, int m, int n, Scalar alpha, long a, int lda, long x, int incx, Scalar beta, long y, int incy,
                     long queue) throws CudaException {
        call(typed("gemv", type), queue, alpha, beta, handle(), operation(trans), m, n, ALPHA, a, lda, x, incx, BETA, y, incy);
    }

    @Override
    public void syrk(int type, int uplo, int trans, int n, int k, Scalar alpha, long a, int lda, Scalar beta, long c, int ldc, long queue)
            throws CudaException {
        call(typed("syrk", type), queue, alpha, beta, handle(), fill(uplo), operation(trans), n, k, ALPHA, a, lda, BETA, c, ldc);
    }

    @Override
    public void symm(int type, int side, int uplo, int m, int n, Scalar alpha, long a, int lda, long b, int ldb, Scalar beta, long c,
                     int ldc, long queue) throws CudaException {
        call(typed("symm", type), queue, alpha, beta, handle(), side(side), fill(uplo), m, n, ALPHA, a, lda, b, ldb, BETA, c, ldc);
    }

    @Override
    public void geam(int type, int transa, int transb, int m, int n, Scalar alpha, long a, int lda, Scalar beta, long b, int ldb, long c,
                     int ldc, long queue) throws CudaException {
        call(typed("geam", type), queue, alpha, beta, handle(), operation(transa), operation(transb), m, n, ALPHA, a, lda, BETA, b, ldb,
                c, ldc);
    }

    @Override
    public void level1(int op, int type, int n, Scalar alpha, int alphaType, long x, int incx, long y, int incy, long result, long queue)
            throws CudaException {
        String name = level1Name(op, type, alphaType);
        switch (op) {
            case AXPY -> call(name, queue, alpha, null, handle(), n, ALPHA, x, incx, y, incy);
            case SCAL -> call(name, queue, alpha, null, handle(), n, ALPHA, x, incx);
            case COPY, SWAP -> call(name, queue, null, null, handle(), n, x, incx, y, incy);
            default -> {  // a scalar result: into device scratch (pointer mode device), then copied where the caller wants it
                long out = scratch();
                call(name, queue, true, null, null, op == DOT || op == DOTC ? new long[] {handle(), n, x, incx, y, incy, out}
                        : new long[] {handle(), n, x, incx, out});
                copy(result, out, resultBytes(op, type));
            }
        }
    }
}
