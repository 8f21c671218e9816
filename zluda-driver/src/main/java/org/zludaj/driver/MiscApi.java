package org.zludaj.driver;

import org.zludaj.api.CuMiscApi;

/**
 * The profiler control functions (cuProfilerInitialize, cuProfilerStart, cuProfilerStop). No profiler attaches to
 * ZLUDA-J, so, as NVIDIA's driver does without one, they succeed and change nothing.
 */
final class MiscApi implements CuMiscApi {
    private final Driver d;

    MiscApi(Driver d) {
        this.d = d;
    }

    @Override
    public int cuProfilerInitialize(long configFile, long outputFile, int outputMode) {
        return Api.call("cuProfilerInitialize", () -> d.requireCurrent());
    }

    @Override
    public int cuProfilerStart() {
        return Api.call("cuProfilerStart", () -> d.requireCurrent());
    }

    @Override
    public int cuProfilerStop() {
        return Api.call("cuProfilerStop", () -> d.requireCurrent());
    }
}
