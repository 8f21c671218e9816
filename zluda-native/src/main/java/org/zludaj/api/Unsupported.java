package org.zludaj.api;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The answer of every driver function ZLUDA-J does not implement: CUDA_ERROR_NOT_SUPPORTED, named once in the log. */
public final class Unsupported {
    private Unsupported() {}

    private static final Log LOG = Log.of(Unsupported.class);
    private static final Set<String> REPORTED = ConcurrentHashMap.newKeySet();

    public static int report(String function) {
        if (REPORTED.add(function)) LOG.warn("{} is not supported by ZLUDA-J: returning CUDA_ERROR_NOT_SUPPORTED", function);
        return CuResult.CUDA_ERROR_NOT_SUPPORTED;
    }

    /** A library function (cuBLAS...) not implemented: the library's {@code status}, named once in the log. */
    public static int report(String function, int status) {
        if (REPORTED.add(function)) LOG.warn("{} is not supported by ZLUDA-J: returning status {} (NOT_SUPPORTED)", function, status);
        return status;
    }

    /** Functions reported so far (for tests and `zluda info`). */
    public static Set<String> reported() {
        return Set.copyOf(REPORTED);
    }
}
