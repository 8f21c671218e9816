package org.zludaj.driver;

import org.zludaj.api.CuInitApi;
import org.zludaj.api.CuResult;

/** Initialization and version: cuInit, cuDriverGetVersion. */
final class InitApi implements CuInitApi {
    private final Driver d;

    InitApi(Driver d) {
        this.d = d;
    }

    @Override
    public int cuInit(int flags) {
        return Api.call("cuInit", () -> {
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cuInit flags must be 0");
            if (d.deviceCount() == 0) throw new CudaException(CuResult.CUDA_ERROR_NO_DEVICE, "no device");
            d.initialize();
        });
    }

    @Override
    public int cuDriverGetVersion(long driverVersion) {
        return Api.call("cuDriverGetVersion", () -> Mem.putInt(driverVersion, Driver.VERSION, "driverVersion"));
    }
}
