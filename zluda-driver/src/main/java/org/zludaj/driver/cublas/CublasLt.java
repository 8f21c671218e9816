package org.zludaj.driver.cublas;

import org.zludaj.api.cublaslt.CublasLtApi;
import org.zludaj.driver.backend.Blas;
import org.zludaj.nativ.HostRuntime;

/**
 * cuBLASLt: handles, versions and statuses. A cublasLtHandle_t is a context-bound handle like cuBLAS's; the matmul,
 * layout and preference descriptors are not implemented yet (they answer CUBLAS_STATUS_NOT_SUPPORTED).
 */
final class CublasLt implements CublasLtApi {
    private final Cublas c;

    CublasLt(Cublas c) {
        this.c = c;
    }

    @Override
    public int cublasLtCreate(long lightHandle) {
        return Cublas.call("cublasLtCreate", () -> {
            Cublas.nonNull(lightHandle, "lightHandle");
            try {
                Blas blas = c.lib.backend().blas();
                if (blas == null) throw Cublas.unsupported("no BLAS on the " + c.lib.backend().name() + " backend yet");
                HostRuntime.putLong(lightHandle, c.handles.add(new CublasHandle(c.lib.context(), blas)));
            } catch (org.zludaj.driver.CudaException e) {
                throw e.result() == CublasStatus.NOT_SUPPORTED ? e : Cublas.status(CublasStatus.NOT_INITIALIZED, e.getMessage());
            }
        });
    }

    @Override
    public int cublasLtDestroy(long lightHandle) {
        return Cublas.call("cublasLtDestroy", () -> {
            c.handle(lightHandle);
            c.handles.remove(lightHandle);
        });
    }

    @Override
    public long cublasLtGetVersion() {
        return CublasHelper.VERSION;
    }

    @Override
    public long cublasLtGetCudartVersion() {
        return CublasHelper.CUDART_VERSION;
    }

    @Override
    public int cublasLtGetProperty(int type, long value) {
        return new CublasHelper(c).cublasGetProperty(type, value);
    }

    @Override
    public long cublasLtGetStatusName(int status) {
        return CublasStatus.cString(CublasStatus.name(status));
    }

    @Override
    public long cublasLtGetStatusString(int status) {
        return CublasStatus.cString(CublasStatus.string(status));
    }
}
