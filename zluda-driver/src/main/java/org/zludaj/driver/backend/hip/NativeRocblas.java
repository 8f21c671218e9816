package org.zludaj.driver.backend.hip;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import org.zludaj.nativ.HipRuntime;

/** AMD's rocBLAS, through rt/hip.c (librocblas found at run time: ZLUDA_ROCBLAS_LIB, .so.5, .so.4, .so.0, /opt/rocm). */
public final class NativeRocblas implements Rocblas {
    /** rocblas_status_not_implemented: the answer for a function this rocBLAS does not have. */
    static final int NOT_IMPLEMENTED = 2;
    private final ConcurrentHashMap<String, Long> functions = new ConcurrentHashMap<>();

    @Override
    public String open() {
        byte[] msg = new byte[512];
        return HipRuntime.rocblasOpen(msg) == 0 ? null : new String(msg, StandardCharsets.UTF_8).trim();
    }

    @Override
    public long address(String function) {
        return functions.computeIfAbsent(function, HipRuntime::rocblasSymbol);
    }

    @Override
    public long directCall() {
        return HipRuntime.directBlasFunction();
    }

    @Override
    public int call(String function, long[] args, long[] slots) {
        long f = functions.computeIfAbsent(function, HipRuntime::rocblasSymbol);
        if (f == 0) return NOT_IMPLEMENTED;
        int r = HipRuntime.rocblasCall(f, args, slots);
        return r < 0 ? 11 /* rocblas_status_invalid_value */ : r;
    }
}
