package org.zludaj.driver;

import org.zludaj.api.Dispatch;

/** Entry called once by the shim when the JVM has started: builds the driver and installs it in Dispatch. */
public final class Bootstrap {
    private Bootstrap() {}

    /** ZLUDA_START_TRACE=1: the start's phases on stderr, without starting the driver's logging (issue 21). */
    public static final boolean TRACE = "1".equals(System.getenv("ZLUDA_START_TRACE"));

    /** Nanoseconds as milliseconds with one decimal, without floating point or a formatter (for the start trace). */
    public static String ms(long ns) {
        return new StringBuilder().append(ns / 1_000_000).append('.').append(ns / 100_000 % 10).toString();
    }

    public static boolean start() {
        try {
            long t0 = System.nanoTime();
            Thread preload = preload();
            // the parser's warm-up (GPU backends): where the backend is named, it starts now and loads its classes while
            // the backend waits for the GPU's driver (NVIDIA's cuInit: 60-140 ms); started after the backend, it slowed
            // the application's first call by 5-6 ms on an H200 (ZLUDA_START_TRACE, 2026-11-28)
            String warm = System.getenv("ZLUDA_PARSER_WARMUP"), named = System.getenv("ZLUDA_BACKEND");
            boolean early = "1".equals(warm) || !"0".equals(warm) && ("cuda".equals(named) || "hip".equals(named));
            if (early) PtxWarmUp.start();
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
            if (!early && backend.submitsAsynchronously() && !"0".equals(warm)) PtxWarmUp.start();  // default: on the GPU backends
            if (TRACE)  // no printf: a first one costs milliseconds of the start it measures
                System.err.println(new StringBuilder("ZLUDA-J start: backend ").append(ms(tBackend - t0)).append(" ms, then the class preload ")
                        .append(ms(t1 - tBackend)).append(" ms, driver ").append(ms(tDriver - t1)).append(" ms, dispatch ")
                        .append(ms(tDispatch - tDriver)).append(" ms, cuBLAS ").append(ms(t2 - tDispatch)).append(" ms"));
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
                    org.zludaj.ptx.cache.CompileCache.class, org.zludaj.api.RawArgs.class, org.zludaj.api.CallLog.class,
                    CallProfile.class, Api.Body.class, CudaException.class}) {
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
