package org.zludaj.driver;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import org.zludaj.api.CuErrorApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/** cuGetErrorName and cuGetErrorString: NVIDIA driver 580's texts, as C strings that live as long as the process. */
final class ErrorApi implements CuErrorApi {
    private final ConcurrentHashMap<String, Long> strings = new ConcurrentHashMap<>();

    private long cString(String s) {
        return strings.computeIfAbsent(s, k -> {
            byte[] b = (k + "\0").getBytes(StandardCharsets.UTF_8);
            long p = HostRuntime.allocate(b.length, 8);
            HostRuntime.write(p, b, 0, b.length);
            return p;
        });
    }

    private int answer(String what, String text, long pStr) {
        return Api.call(what, () -> {
            Mem.nonNull(pStr, "pStr");
            HostRuntime.putLong(pStr, text == null ? 0 : cString(text));
            if (text == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "unknown CUresult");
        });
    }

    @Override
    public int cuGetErrorName(int error, long pStr) {
        return answer("cuGetErrorName", CuResult.name(error), pStr);
    }

    @Override
    public int cuGetErrorString(int error, long pStr) {
        return answer("cuGetErrorString", CuResult.string(error), pStr);
    }
}
