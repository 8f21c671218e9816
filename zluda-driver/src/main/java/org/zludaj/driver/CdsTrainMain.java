package org.zludaj.driver;

import org.zludaj.api.Dispatch;
import org.zludaj.nativ.HostRuntime;

/**
 * The build's training run for the class-data sharing archive (dist/lib/zluda.jsa, src/dist/assemble.sh): starts the
 * driver as the shim does and makes the calls every CUDA program starts with, so that the classes they load are
 * archived; the shim maps the archive when it starts the JVM (issue 21: a third less time to the first call).
 */
public final class CdsTrainMain {
    private CdsTrainMain() {}

    public static void main(String[] args) {
        if (!Bootstrap.start()) System.exit(1);
        long cell = HostRuntime.allocate(64, 8);
        call("cuInit", 0, 0);
        call("cuCtxGetDevice", cell, 0);  // fails (no context yet), as cudart's first call does: the error log's path archived too
        call("cuDriverGetVersion", cell, 0);
        call("cuDeviceGetCount", cell, 0);
        call("cuDeviceGet", cell, 0);
        call("cuDeviceGetAttribute", cell, 1);
        call("cuDevicePrimaryCtxRetain", cell, 0);
        long ctx = HostRuntime.getLong(cell);
        call("cuCtxSetCurrent", ctx, 0);
        call("cuCtxGetCurrent", cell, 0);
        call("cuMemAlloc_v2", cell, 256);
        call("cuMemFree_v2", HostRuntime.getLong(cell), 0);
        call("cuStreamCreate", cell, 0);
        call("cuStreamSynchronize", HostRuntime.getLong(cell), 0);
        call("cuCtxSynchronize", 0, 0);
        call("cuDevicePrimaryCtxRelease_v2", 0, 0);
        PtxWarmUp.read(40);
    }

    private static void call(String name, long a0, long a1) {
        Dispatch.call(Dispatch.id(name), a0, a1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }
}
