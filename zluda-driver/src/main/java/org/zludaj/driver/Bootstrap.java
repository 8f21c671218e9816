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
            Thread preload = preload();
            var backend = Driver.selectBackend();
            long tBackend = System.nanoTime();
            preload.join();
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
                System.err.printf(java.util.Locale.ROOT, "ZLUDA-J start: backend %.1f ms, then the class preload %.1f ms, driver %.1f ms, "
                        + "dispatch %.1f ms, cuBLAS %.1f ms%n", (tBackend - t0) / 1e6, (t1 - tBackend) / 1e6, (tDriver - t1) / 1e6,
                        (tDispatch - tDriver) / 1e6, (t2 - tDispatch) / 1e6);
            var log = org.zludaj.api.Log.of(Bootstrap.class);
            if (log.isDebugEnabled())  // measured before the first message starts logback
                log.debug("driver started: backend {} in {} ms, the rest in {} ms", backend.name(), (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000);
            return true;
        } catch (Throwable t) {
            org.zludaj.api.Log.of(Bootstrap.class).error("ZLUDA-J driver failed to start", t);
            return false;
        }
    }

    /**
     * Loads and initializes the classes the driver's construction needs, on a thread of its own while the backend
     * starts (the cuda backend mostly waits there for NVIDIA's cuInit): 20-30 ms of the start that came after it
     * (issue 21). Only classes whose initialization has no effect but their own fields; a failure changes nothing but
     * the time (the driver's thread initializes what is left).
     */
    private static Thread preload() {
        Thread t = new Thread(() -> {
            for (Class<?> c : new Class<?>[] {Driver.class, Handles.class, CodeLoader.class, ErrorLog.class, Api.class, Context.class,
                    MemoryPool.class, Stream.class, org.zludaj.api.ApiSet.class, ContextApi.class, DarkApi.class, DeviceApi.class,
                    ErrorApi.class, EventApi.class, StreamApi.class, GraphApi.class, GraphWork.class, InitApi.class, LaunchApi.class,
                    LibraryApi.class, MemoryApi.class, MemoryPoolApi.class, MiscApi.class, ModuleApi.class, TextureApi.class,
                    VirtualMemoryApi.class, org.zludaj.driver.cublas.Cublas.class, org.zludaj.api.Dispatch.class,
                    org.zludaj.ptx.cache.CompileCache.class}) {
                try {
                    Class.forName(c.getName(), true, c.getClassLoader());
                } catch (Throwable e) {  // left to the driver's thread, which reports it as it would have
                    return;
                }
            }
        }, "zluda-preload");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
