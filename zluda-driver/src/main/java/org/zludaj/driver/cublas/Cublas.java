package org.zludaj.driver.cublas;

import org.zludaj.driver.CudaException;
import org.zludaj.driver.Driver;
import org.zludaj.driver.Handles;
import org.zludaj.driver.LibrarySupport;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.backend.Blas.Scalar;

/**
 * ZLUDA-J's cuBLAS and cuBLASLt: the state every group class shares (the handle table, the driver's library support)
 * and the way each function reports. Work is enqueued in the handle's stream ({@link LibrarySupport}) and runs on the
 * backend's {@link Blas}; arguments are checked here, with the statuses NVIDIA's cuBLAS returns.
 */
public final class Cublas {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(Cublas.class);

    final LibrarySupport lib;
    final Handles handles = new Handles();

    Cublas(LibrarySupport lib) {
        this.lib = lib;
    }

    /** Installs cuBLAS and cuBLASLt over {@code driver} in their dispatch classes. */
    public static void install(Driver driver) {
        Cublas c = new Cublas(driver.librarySupport());
        org.zludaj.api.cublas.Dispatch.install(new org.zludaj.api.cublas.ApiSet(new CublasExtension(c), new CublasHelper(c),
                new org.zludaj.api.cublas.CublasLegacyApi() {}, new CublasLevel1(c), new CublasLevel2(c), new CublasLevel3(c),
                new org.zludaj.api.cublas.CublasXtApi() {}));
        org.zludaj.api.cublaslt.Dispatch.install(new org.zludaj.api.cublaslt.ApiSet(new CublasLt(c)));
    }

    @FunctionalInterface
    interface Body {
        void run() throws CudaException;
    }

    /** Runs a function's body: 0, or the status of the failure (a CudaException carrying a cublasStatus_t). */
    static int call(String function, Body body) {
        if (org.zludaj.driver.CallProfile.ON) {
            long t0 = org.zludaj.driver.CallProfile.begin(function);
            int r = run(function, body);
            org.zludaj.driver.CallProfile.end(function, t0);
            return r;
        }
        return run(function, body);
    }

    private static int run(String function, Body body) {
        try {
            body.run();
            return CublasStatus.SUCCESS;
        } catch (CudaException e) {
            if (LOG.isDebugEnabled()) LOG.debug("{} -> {}: {}", function, CublasStatus.name(e.result()), e.getMessage());
            return e.result();
        }
    }

    static CudaException status(int status, String why) {
        return new CudaException(status, why);
    }

    static CudaException invalid(String why) {
        return status(CublasStatus.INVALID_VALUE, why);
    }

    static CudaException unsupported(String why) {
        return status(CublasStatus.NOT_SUPPORTED, why);
    }

    /** The live handle {@code h}; a null, foreign or destroyed one is CUBLAS_STATUS_NOT_INITIALIZED, as NVIDIA's. */
    CublasHandle handle(long h) throws CudaException {
        if (h != 0 && handles.peek(h) instanceof CublasHandle ch) return ch;
        throw status(CublasStatus.NOT_INITIALIZED, h == 0 ? "null handle" : "0x" + Long.toHexString(h) + " is not a live cuBLAS handle");
    }

    static void nonNull(long p, String what) throws CudaException {
        if (p == 0) throw invalid(what + " is NULL");
    }

    /** A scalar argument in the handle's pointer mode: read now from the host, or its device address for later. */
    static Scalar scalar(CublasHandle h, long p, int type, String what) throws CudaException {
        nonNull(p, what);
        if (h.pointerMode == CublasHandle.POINTER_MODE_DEVICE) return Scalar.device(p);
        return Scalar.read(p, type);
    }

    /** Whether a host scalar is zero (a device scalar is not known here: false). */
    static boolean isZero(Scalar s, int type) {
        return s.isZero(type);
    }

    /** Enqueues work in the handle's stream, ordered with that stream's kernels and copies. */
    void enqueue(CublasHandle h, String what, LibrarySupport.Work work) throws CudaException {
        enqueue(h, h.stream, what, underMathMode(h, work));
    }

    /** work under the handle's math mode as it is now (the application may change it before the work runs: ggml does). */
    private static LibrarySupport.Work underMathMode(CublasHandle h, LibrarySupport.Work work) {
        int mode = h.mathMode;
        return q -> h.blas.underMathMode(mode, () -> work.run(q));
    }

    /** Enqueues work in {@code stream} (cuBLASLt's calls name theirs) of the handle's context. */
    void enqueue(CublasHandle h, long stream, String what, LibrarySupport.Work work) throws CudaException {
        try {
            lib.enqueue(h.context, stream, what, work);
        } catch (CudaException e) {
            throw status(CublasStatus.EXECUTION_FAILED, what + ": " + e.getMessage());
        }
    }

    /**
     * Runs work at once on the calling thread where the handle's stream and those it waits for are idle and not being
     * captured, on a backend that hands work to device queues; whether it did (else nothing ran: enqueue it).
     */
    boolean tryHere(CublasHandle h, String what, LibrarySupport.Work work) throws CudaException {
        try {
            return lib.tryHere(h.context, h.stream, what, underMathMode(h, work));
        } catch (CudaException e) {
            throw status(CublasStatus.EXECUTION_FAILED, what + ": " + e.getMessage());
        }
    }

    /**
     * Whether GEMMs may be repeated by the shim without the JVM (DirectBlas): inside the shim, on a backend that hands
     * work to device queues (the host backend computes each GEMM itself: no offer, no argument array).
     */
    boolean repeatsGemms() {
        var b = lib.backend();
        return DirectBlas.enabled() && b != null && b.submitsAsynchronously();
    }

    /** Runs work in the handle's stream and waits (results the host reads on return). */
    void run(CublasHandle h, String what, LibrarySupport.Work work) throws CudaException {
        try {
            lib.run(h.context, h.stream, what, underMathMode(h, work));
        } catch (CudaException e) {
            throw status(CublasStatus.EXECUTION_FAILED, what + ": " + e.getMessage());
        }
    }

    /** A 64-bit size that the backend's BLAS takes as int. */
    static int narrow(long v, String what) throws CudaException {
        if (v != (int) v) throw unsupported(what + " = " + v + " exceeds the 32-bit range of the backend's BLAS");
        return (int) v;
    }
}
