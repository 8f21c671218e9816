package org.zludaj.driver;

import org.zludaj.api.Dispatch;

/** Entry called once by the shim when the JVM has started: builds the driver and installs it in Dispatch. */
public final class Bootstrap {
    private Bootstrap() {}

    public static boolean start() {
        try {
            Driver driver = new Driver(Driver.selectBackend());
            Dispatch.install(driver.apis());
            org.zludaj.driver.cublas.Cublas.install(driver);
            return true;
        } catch (Throwable t) {
            org.zludaj.api.Log.of(Bootstrap.class).error("ZLUDA-J driver failed to start", t);
            return false;
        }
    }
}
