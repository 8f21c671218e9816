package org.zludaj.driver;

import org.zludaj.api.CuResult;

/** How every implemented driver function reports: success, or a CudaException turned into its CUresult. */
public final class Api {
    private Api() {}

    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(Api.class);

    @FunctionalInterface
    public interface Body {
        void run() throws CudaException;
    }

    /** The error log failing calls write to (cuLogs*): the driver's, installed when it starts. */
    static volatile ErrorLog errorLog;

    public static int call(String function, Body body) {
        if (CallProfile.ON) {
            long t0 = CallProfile.begin(function);
            int r = run(function, body);
            CallProfile.end(function, t0);
            return r;
        }
        return run(function, body);
    }

    private static int run(String function, Body body) {
        try {
            body.run();
            return CuResult.CUDA_SUCCESS;
        } catch (CudaException e) {
            if (LOG.isDebugEnabled()) LOG.debug("{} -> {}", function, e.toString());
            ErrorLog log = errorLog;
            if (log != null && e.result() != CuResult.CUDA_ERROR_NOT_READY)  // NOT_READY is an answer, not an error
                log.add(function, e.getMessage(), e.result());
            return e.result();
        }
    }
}
