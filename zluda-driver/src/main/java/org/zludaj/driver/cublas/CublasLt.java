package org.zludaj.driver.cublas;

import org.zludaj.api.cublaslt.CublasLtApi;
import org.zludaj.driver.backend.Blas;
import org.zludaj.nativ.HostRuntime;

/**
 * cuBLASLt: handles, versions and statuses, and the matmul with its descriptors ({@link CublasLtMatmul}). A
 * cublasLtHandle_t is a context-bound handle like cuBLAS's.
 */
final class CublasLt implements CublasLtApi {
    private final Cublas c;
    private final CublasLtMatmul mm;

    CublasLt(Cublas c) {
        this.c = c;
        this.mm = new CublasLtMatmul(c);
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

    @Override
    public int cublasLtMatmulDescCreate(long matmulDesc, int computeType, int scaleType) {
        return Cublas.call("cublasLtMatmulDescCreate", () -> mm.add(new CublasLtMatmul.Desc(computeType, scaleType), matmulDesc));
    }

    @Override
    public int cublasLtMatmulDescDestroy(long matmulDesc) {
        return Cublas.call("cublasLtMatmulDescDestroy", () -> mm.destroy(matmulDesc, CublasLtMatmul.Desc.class, "matmulDesc"));
    }

    @Override
    public int cublasLtMatmulDescSetAttribute(long matmulDesc, int attr, long buf, long sizeInBytes) {
        return Cublas.call("cublasLtMatmulDescSetAttribute",
                () -> mm.get(matmulDesc, CublasLtMatmul.Desc.class, "matmulDesc").set(attr, buf, sizeInBytes));
    }

    @Override
    public int cublasLtMatmulDescGetAttribute(long matmulDesc, int attr, long buf, long sizeInBytes, long sizeWritten) {
        return Cublas.call("cublasLtMatmulDescGetAttribute",
                () -> mm.get(matmulDesc, CublasLtMatmul.Desc.class, "matmulDesc").read(attr, buf, sizeInBytes, sizeWritten));
    }

    @Override
    public int cublasLtMatrixLayoutCreate(long matLayout, int type, long rows, long cols, long ld) {
        return Cublas.call("cublasLtMatrixLayoutCreate", () -> mm.add(new CublasLtMatmul.Layout(type, rows, cols, ld), matLayout));
    }

    @Override
    public int cublasLtMatrixLayoutDestroy(long matLayout) {
        return Cublas.call("cublasLtMatrixLayoutDestroy", () -> mm.destroy(matLayout, CublasLtMatmul.Layout.class, "matLayout"));
    }

    @Override
    public int cublasLtMatrixLayoutSetAttribute(long matLayout, int attr, long buf, long sizeInBytes) {
        return Cublas.call("cublasLtMatrixLayoutSetAttribute",
                () -> mm.get(matLayout, CublasLtMatmul.Layout.class, "matLayout").set(attr, buf, sizeInBytes));
    }

    @Override
    public int cublasLtMatrixLayoutGetAttribute(long matLayout, int attr, long buf, long sizeInBytes, long sizeWritten) {
        return Cublas.call("cublasLtMatrixLayoutGetAttribute",
                () -> mm.get(matLayout, CublasLtMatmul.Layout.class, "matLayout").read(attr, buf, sizeInBytes, sizeWritten));
    }

    @Override
    public int cublasLtMatmulPreferenceCreate(long pref) {
        return Cublas.call("cublasLtMatmulPreferenceCreate", () -> mm.add(new CublasLtMatmul.Preference(), pref));
    }

    @Override
    public int cublasLtMatmulPreferenceDestroy(long pref) {
        return Cublas.call("cublasLtMatmulPreferenceDestroy", () -> mm.destroy(pref, CublasLtMatmul.Preference.class, "pref"));
    }

    @Override
    public int cublasLtMatmulPreferenceSetAttribute(long pref, int attr, long buf, long sizeInBytes) {
        return Cublas.call("cublasLtMatmulPreferenceSetAttribute",
                () -> mm.get(pref, CublasLtMatmul.Preference.class, "pref").set(attr, buf, sizeInBytes));
    }

    @Override
    public int cublasLtMatmulPreferenceGetAttribute(long pref, int attr, long buf, long sizeInBytes, long sizeWritten) {
        return Cublas.call("cublasLtMatmulPreferenceGetAttribute",
                () -> mm.get(pref, CublasLtMatmul.Preference.class, "pref").read(attr, buf, sizeInBytes, sizeWritten));
    }

    @Override
    public int cublasLtMatmulAlgoGetHeuristic(long lightHandle, long operationDesc, long Adesc, long Bdesc, long Cdesc, long Ddesc,
                                              long preference, int requestedAlgoCount, long heuristicResultsArray, long returnAlgoCount) {
        return mm.heuristic(lightHandle, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, preference, requestedAlgoCount,
                heuristicResultsArray, returnAlgoCount);
    }

    @Override
    public int cublasLtMatmul(long lightHandle, long computeDesc, long alpha, long A, long Adesc, long B, long Bdesc, long beta,
                              long C, long Cdesc, long D, long Ddesc, long algo, long workspace, long workspaceSizeInBytes, long stream) {
        return mm.matmul(lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, stream);
    }
}
