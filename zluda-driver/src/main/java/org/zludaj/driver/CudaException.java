package org.zludaj.driver;

import org.zludaj.api.CuResult;

/** A driver function's failure: the CUresult to return, with the reason for the log. */
public final class CudaException extends Exception {
    private final int result;

    public CudaException(int result, String reason) {
        super(reason, null, false, false);
        this.result = result;
    }

    public int result() {
        return result;
    }

    @Override
    public String toString() {
        return CuResult.name(result) + ": " + getMessage();
    }
}
