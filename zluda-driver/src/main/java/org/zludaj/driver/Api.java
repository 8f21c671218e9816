package org.zludaj.driver;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zludaj.api.CuResult;

/** How every implemented driver function reports: success, or a CudaException turned into its CUresult. */
public final class Api {
    private Api() {}

    private static final Logger LOG = LoggerFactory.getLogger(Api.class);

    @FunctionalInterface
    public interface Body {
        void run() throws CudaException;
    }

    public static int call(String function, Body body) {
        try {
            body.run();
            return CuResult.CUDA_SUCCESS;
        } catch (CudaException e) {
            if (LOG.isDebugEnabled()) LOG.debug("{} -> {}", function, e.toString());
            return e.result();
        }
    }
}
