package org.zludaj.driver;

import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/** Out-parameters and arguments in the application's memory, with the null checks NVIDIA's driver makes. */
public final class Mem {
    private Mem() {}

    static void nonNull(long p, String what) throws CudaException {
        if (p == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, what + " is NULL");
    }

    public static void putLong(long p, long v, String what) throws CudaException {
        nonNull(p, what);
        HostRuntime.putLong(p, v);
    }

    public static void putInt(long p, int v, String what) throws CudaException {
        nonNull(p, what);
        HostRuntime.putInt(p, v);
    }

    public static long getLong(long p, String what) throws CudaException {
        nonNull(p, what);
        return HostRuntime.getLong(p);
    }

    public static String string(long p, String what) throws CudaException {
        nonNull(p, what);
        return HostRuntime.string(p);
    }
}
