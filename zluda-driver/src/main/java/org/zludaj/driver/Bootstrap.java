package org.zludaj.driver;

import org.zludaj.api.Dispatch;

/** Entry called once by the shim when the JVM has started: builds the driver and installs it in Dispatch. */
public final class Bootstrap {
    private Bootstrap() {}

    public static boolean start() {
        try {
            long t0 = System.nanoTime();
            var backend = Driver.selectBackend();
            long t1 = System.nanoTime();
            Driver driver = new Driver(backend);
            Dispatch.install(driver.apis());
            org.zludaj.driver.cublas.Cublas.install(driver);
            long t2 = System.nanoTime();
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
