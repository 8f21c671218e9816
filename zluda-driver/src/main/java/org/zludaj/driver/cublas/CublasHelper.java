package org.zludaj.driver.cublas;

import org.zludaj.api.cublas.CublasHelperApi;
import org.zludaj.driver.Context;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Blas;
import org.zludaj.driver.Mem;
import org.zludaj.nativ.HostRuntime;

/** cuBLAS helper functions: handles, streams, modes, workspace, versions, statuses, the logger, vector/matrix copies. */
final class CublasHelper implements CublasHelperApi {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(CublasHelper.class);
    /** CUBLAS_VERSION of the cuBLAS we stand in for (13.1.1), and the CUDA runtime version it reports. */
    static final int VERSION = 130101, MAJOR = 13, MINOR = 1, PATCH = 1, CUDART_VERSION = 13000;

    private final Cublas c;

    CublasHelper(Cublas c) {
        this.c = c;
    }

    @Override
    public int cublasCreate_v2(long handle) {
        return Cublas.call("cublasCreate", () -> {
            Cublas.nonNull(handle, "handle");
            Context ctx;
            Blas blas;
            try {
                ctx = c.lib.context();
                blas = c.lib.backend().blas();
            } catch (CudaException e) {
                throw Cublas.status(CublasStatus.NOT_INITIALIZED, e.getMessage());
            }
            if (blas == null) throw Cublas.status(CublasStatus.NOT_SUPPORTED, "no BLAS on the " + c.lib.backend().name() + " backend yet");
            HostRuntime.putLong(handle, c.handles.add(new CublasHandle(ctx, blas)));
        });
    }

    @Override
    public int cublasDestroy_v2(long handle) {
        return Cublas.call("cublasDestroy", () -> {
            CublasHandle h = c.handle(handle);
            c.handles.remove(handle);
            DirectBlas.changed();
            try {
                c.lib.synchronize(h.context, h.stream);  // NVIDIA's waits for the handle's work
            } catch (CudaException e) {  // its stream is gone (destroyed after cublasSetStream): nothing left to wait for
            }
        });
    }

    @Override
    public int cublasGetVersion_v2(long handle, long version) {
        return Cublas.call("cublasGetVersion", () -> {  // NVIDIA's answers with any handle, even null
            Cublas.nonNull(version, "version");
            HostRuntime.putInt(version, VERSION);
        });
    }

    @Override
    public int cublasGetProperty(int type, long value) {
        return Cublas.call("cublasGetProperty", () -> {
            Cublas.nonNull(value, "value");
            int v = switch (type) {
                case 0 -> MAJOR;
                case 1 -> MINOR;
                case 2 -> PATCH;
                default -> throw Cublas.invalid("libraryPropertyType " + type);
            };
            HostRuntime.putInt(value, v);
        });
    }

    @Override
    public long cublasGetCudartVersion() {
        return CUDART_VERSION;
    }

    @Override
    public long cublasGetStatusName(int status) {
        return CublasStatus.cString(CublasStatus.name(status));
    }

    @Override
    public long cublasGetStatusString(int status) {
        return CublasStatus.cString(CublasStatus.string(status));
    }

    @Override
    public int cublasSetStream_v2(long handle, long streamId) {
        return Cublas.call("cublasSetStream", () -> {
            CublasHandle h = c.handle(handle);
            if (!c.lib.isStream(h.context, streamId)) throw Cublas.invalid("0x" + Long.toHexString(streamId) + " is not a stream of the handle's context");
            h.stream = streamId;
            DirectBlas.changed();  // GEMMs the shim repeats without the JVM go through it again (DirectBlas)
        });
    }

    @Override
    public int cublasGetStream_v2(long handle, long streamId) {
        return Cublas.call("cublasGetStream", () -> {
            CublasHandle h = c.handle(handle);
            Cublas.nonNull(streamId, "streamId");
            HostRuntime.putLong(streamId, h.stream);
        });
    }

    @Override
    public int cublasSetPointerMode_v2(long handle, int mode) {
        return Cublas.call("cublasSetPointerMode", () -> {
            CublasHandle h = c.handle(handle);
            if (mode != CublasHandle.POINTER_MODE_HOST && mode != CublasHandle.POINTER_MODE_DEVICE) throw Cublas.invalid("pointer mode " + mode);
            h.pointerMode = mode;
            DirectBlas.changed();
        });
    }

    @Override
    public int cublasGetPointerMode_v2(long handle, long mode) {
        return Cublas.call("cublasGetPointerMode", () -> {
            CublasHandle h = c.handle(handle);
            Cublas.nonNull(mode, "mode");
            HostRuntime.putInt(mode, h.pointerMode);
        });
    }

    @Override
    public int cublasSetAtomicsMode(long handle, int mode) {
        return Cublas.call("cublasSetAtomicsMode", () -> {
            CublasHandle h = c.handle(handle);
            if (mode != 0 && mode != 1) throw Cublas.invalid("atomics mode " + mode);
            h.atomicsMode = mode;
            DirectBlas.changed();
        });
    }

    @Override
    public int cublasGetAtomicsMode(long handle, long mode) {
        return Cublas.call("cublasGetAtomicsMode", () -> {
            CublasHandle h = c.handle(handle);
            Cublas.nonNull(mode, "mode");
            HostRuntime.putInt(mode, h.atomicsMode);
        });
    }

    /** cublasMath_t: DEFAULT 0, TENSOR_OP 1, PEDANTIC 2, TF32_TENSOR_OP 3, plus DISALLOW_REDUCED_PRECISION_REDUCTION 16. */
    @Override
    public int cublasSetMathMode(long handle, int mode) {
        return Cublas.call("cublasSetMathMode", () -> {
            CublasHandle h = c.handle(handle);
            if ((mode & ~0x1f) != 0 || (mode & 0xf) > 3) throw Cublas.invalid("math mode " + mode);
            h.mathMode = mode;  // the host and AMD BLAS compute in full precision in every mode; NVIDIA's cuBLAS gets it (cuda backend)
            DirectBlas.changed();
        });
    }

    @Override
    public int cublasGetMathMode(long handle, long mode) {
        return Cublas.call("cublasGetMathMode", () -> {
            CublasHandle h = c.handle(handle);
            Cublas.nonNull(mode, "mode");
            HostRuntime.putInt(mode, h.mathMode);
        });
    }

    @Override
    public int cublasSetSmCountTarget(long handle, int smCountTarget) {
        return Cublas.call("cublasSetSmCountTarget", () -> {
            CublasHandle h = c.handle(handle);
            if (smCountTarget < 0) throw Cublas.invalid("smCountTarget " + smCountTarget);
            h.smCountTarget = smCountTarget;
            DirectBlas.changed();
        });
    }

    @Override
    public int cublasGetSmCountTarget(long handle, long smCountTarget) {
        return Cublas.call("cublasGetSmCountTarget", () -> {
            CublasHandle h = c.handle(handle);
            Cublas.nonNull(smCountTarget, "smCountTarget");
            HostRuntime.putInt(smCountTarget, h.smCountTarget);
        });
    }

    @Override
    public int cublasSetEmulationStrategy(long handle, int emulationStrategy) {
        return Cublas.call("cublasSetEmulationStrategy", () -> {
            CublasHandle h = c.handle(handle);
            if (emulationStrategy < 0 || emulationStrategy > 2) throw Cublas.invalid("emulation strategy " + emulationStrategy);
            h.emulationStrategy = emulationStrategy;
            DirectBlas.changed();
        });
    }

    @Override
    public int cublasGetEmulationStrategy(long handle, long emulationStrategy) {
        return Cublas.call("cublasGetEmulationStrategy", () -> {
            CublasHandle h = c.handle(handle);
            Cublas.nonNull(emulationStrategy, "emulationStrategy");
            HostRuntime.putInt(emulationStrategy, h.emulationStrategy);
        });
    }

    /** The workspace is the application's memory for the library's temporaries; our BLAS needs none of it. */
    @Override
    public int cublasSetWorkspace_v2(long handle, long workspace, long workspaceSizeInBytes) {
        return Cublas.call("cublasSetWorkspace", () -> {
            CublasHandle h = c.handle(handle);
            if (workspace == 0 && workspaceSizeInBytes != 0) throw Cublas.invalid("null workspace of " + workspaceSizeInBytes + " bytes");
            if (workspace % 256 != 0) throw Cublas.invalid("workspace not 256-byte aligned");
            h.workspace = workspace;
            h.workspaceBytes = workspaceSizeInBytes;
            DirectBlas.changed();
        });
    }

    /** cuBLAS's API log: ZLUDA-J writes its own log (ZLUDA_LOG); the call is accepted as NVIDIA's is. */
    @Override
    public int cublasLoggerConfigure(int logIsOn, int logToStdOut, int logToStdErr, long logFileName) {
        return Cublas.call("cublasLoggerConfigure", () -> {
            if (logIsOn != 0) LOG.info("cuBLAS API logging requested: ZLUDA-J logs its cuBLAS calls with ZLUDA_LOG=trace");
        });
    }

    private volatile long loggerCallback;

    @Override
    public int cublasSetLoggerCallback(long userCallback) {
        loggerCallback = userCallback;
        return CublasStatus.SUCCESS;
    }

    @Override
    public int cublasGetLoggerCallback(long userCallback) {
        return Cublas.call("cublasGetLoggerCallback", () -> Mem.putLong(userCallback, loggerCallback, "userCallback"));
    }

    // ------------------------------------------------------------------------------------------------ copies

    /** cublasSetVector/GetVector: n elements, incx/incy elements apart, in stream order on {@code stream}. */
    private int vector(String fn, long n, long elemSize, long src, long incSrc, long dst, long incDst, long stream) {
        return Cublas.call(fn, () -> {
            if (n < 0 || elemSize <= 0 || incSrc <= 0 || incDst <= 0) throw Cublas.invalid("n " + n + ", elemSize " + elemSize + ", inc " + incSrc + "/" + incDst);
            if (n == 0) return;
            Cublas.nonNull(src, "source");
            Cublas.nonNull(dst, "destination");
            copy(fn, dst, incDst * elemSize, src, incSrc * elemSize, elemSize, n, stream);
        });
    }

    /** cublasSetMatrix/GetMatrix: rows x cols elements, columns lda/ldb elements apart. */
    private int matrix(String fn, long rows, long cols, long elemSize, long src, long lds, long dst, long ldd, long stream) {
        return Cublas.call(fn, () -> {
            if (rows < 0 || cols < 0 || elemSize <= 0) throw Cublas.invalid("rows " + rows + ", cols " + cols + ", elemSize " + elemSize);
            // a leading dimension under the row count fails as the 2-D copy does on NVIDIA's: MAPPING_ERROR
            if (lds < Math.max(1, rows) || ldd < Math.max(1, rows)) throw Cublas.status(CublasStatus.MAPPING_ERROR, "ld " + lds + "/" + ldd + " < rows " + rows);
            if (rows == 0 || cols == 0) return;
            Cublas.nonNull(src, "source");
            Cublas.nonNull(dst, "destination");
            copy(fn, dst, ldd * elemSize, src, lds * elemSize, rows * elemSize, cols, stream);
        });
    }

    private void copy(String fn, long dst, long dpitch, long src, long spitch, long width, long height, long stream) throws CudaException {
        try {
            Context ctx = c.lib.context();
            c.lib.copy2D(ctx, stream, dst, dpitch, src, spitch, width, height);
        } catch (CudaException e) {
            throw Cublas.status(CublasStatus.MAPPING_ERROR, fn + ": " + e.getMessage());
        }
    }

    @Override
    public int cublasSetVector(int n, int elemSize, long x, int incx, long devicePtr, int incy) {
        return vector("cublasSetVector", n, elemSize, x, incx, devicePtr, incy, 0);
    }

    @Override
    public int cublasSetVector_64(long n, long elemSize, long x, long incx, long devicePtr, long incy) {
        return vector("cublasSetVector_64", n, elemSize, x, incx, devicePtr, incy, 0);
    }

    @Override
    public int cublasGetVector(int n, int elemSize, long x, int incx, long y, int incy) {
        return vector("cublasGetVector", n, elemSize, x, incx, y, incy, 0);
    }

    @Override
    public int cublasGetVector_64(long n, long elemSize, long x, long incx, long y, long incy) {
        return vector("cublasGetVector_64", n, elemSize, x, incx, y, incy, 0);
    }

    @Override
    public int cublasSetVectorAsync(int n, int elemSize, long hostPtr, int incx, long devicePtr, int incy, long stream) {
        return vector("cublasSetVectorAsync", n, elemSize, hostPtr, incx, devicePtr, incy, stream);
    }

    @Override
    public int cublasSetVectorAsync_64(long n, long elemSize, long hostPtr, long incx, long devicePtr, long incy, long stream) {
        return vector("cublasSetVectorAsync_64", n, elemSize, hostPtr, incx, devicePtr, incy, stream);
    }

    @Override
    public int cublasGetVectorAsync(int n, int elemSize, long devicePtr, int incx, long hostPtr, int incy, long stream) {
        return vector("cublasGetVectorAsync", n, elemSize, devicePtr, incx, hostPtr, incy, stream);
    }

    @Override
    public int cublasGetVectorAsync_64(long n, long elemSize, long devicePtr, long incx, long hostPtr, long incy, long stream) {
        return vector("cublasGetVectorAsync_64", n, elemSize, devicePtr, incx, hostPtr, incy, stream);
    }

    @Override
    public int cublasSetMatrix(int rows, int cols, int elemSize, long A, int lda, long B, int ldb) {
        return matrix("cublasSetMatrix", rows, cols, elemSize, A, lda, B, ldb, 0);
    }

    @Override
    public int cublasSetMatrix_64(long rows, long cols, long elemSize, long A, long lda, long B, long ldb) {
        return matrix("cublasSetMatrix_64", rows, cols, elemSize, A, lda, B, ldb, 0);
    }

    @Override
    public int cublasGetMatrix(int rows, int cols, int elemSize, long A, int lda, long B, int ldb) {
        return matrix("cublasGetMatrix", rows, cols, elemSize, A, lda, B, ldb, 0);
    }

    @Override
    public int cublasGetMatrix_64(long rows, long cols, long elemSize, long A, long lda, long B, long ldb) {
        return matrix("cublasGetMatrix_64", rows, cols, elemSize, A, lda, B, ldb, 0);
    }

    @Override
    public int cublasSetMatrixAsync(int rows, int cols, int elemSize, long A, int lda, long B, int ldb, long stream) {
        return matrix("cublasSetMatrixAsync", rows, cols, elemSize, A, lda, B, ldb, stream);
    }

    @Override
    public int cublasSetMatrixAsync_64(long rows, long cols, long elemSize, long A, long lda, long B, long ldb, long stream) {
        return matrix("cublasSetMatrixAsync_64", rows, cols, elemSize, A, lda, B, ldb, stream);
    }

    @Override
    public int cublasGetMatrixAsync(int rows, int cols, int elemSize, long A, int lda, long B, int ldb, long stream) {
        return matrix("cublasGetMatrixAsync", rows, cols, elemSize, A, lda, B, ldb, stream);
    }

    @Override
    public int cublasGetMatrixAsync_64(long rows, long cols, long elemSize, long A, long lda, long B, long ldb, long stream) {
        return matrix("cublasGetMatrixAsync_64", rows, cols, elemSize, A, lda, B, ldb, stream);
    }
}
