package org.zludaj.driver;

import org.zludaj.api.Dispatch;

/** Entry called once by the shim when the JVM has started: builds the driver and installs it in Dispatch. */
public final class Bootstrap {
    private Bootstrap() {}

    /** ZLUDA_START_TRACE=1: the start's phases on stderr, without starting the driver's logging (issue 21). */
    public static final boolean TRACE = "1".equals(System.getenv("ZLUDA_START_TRACE"));

    public static boolean start() {
        try {
            long t0 = System.nanoTime();
            var backend = Driver.selectBackend();
            long t1 = System.nanoTime();
            Driver driver = new Driver(backend);
            long tDriver = System.nanoTime();
            Dispatch.install(driver.apis());
            long tDispatch = System.nanoTime();
            org.zludaj.driver.cublas.Cublas.install(driver);
            long t2 = System.nanoTime();
            String warm = System.getenv("ZLUDA_PARSER_WARMUP");  // default: on the GPU backends
            if ("1".equals(warm) || (backend.submitsAsynchronously() && !"0".equals(warm))) PtxWarmUp.start();
            if (TRACE)
                System.err.printf(java.util.Locale.ROOT, "ZLUDA-J start: backend %.1f ms, driver %.1f ms, dispatch %.1f ms, cuBLAS %.1f ms%n",
                        (t1 - t0) / 1e6, (tDriver - t1) / 1e6, (tDispatch - tDriver) / 1e6, (t2 - tDispatch) / 1e6);
            var log = org.zludaj.api.Log.of(Bootstrap.class);
            if (log.isDebugEnabled())  // measured before the first message starts logback
                log.debug("driver started: backend {} in {} ms, the rest in {} ms", backend.name(), (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000);
            return true;
        } catch (Throwable t) {
            org.zludaj.api.Log.of(Bootstrap.class).error("ZLUDA-J driver failed to start", t);
            return false;
        }
    }
}
