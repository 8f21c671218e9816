package org.zludaj.driver;

import org.zludaj.nativ.HostRuntime;

/**
 * Launches the shim repeats without the JVM (shim/launch.c, issue 21). After a launch ran at once on the calling
 * thread (its stream and those it implicitly waits for idle, no capture, a backend that only hands it to a device
 * queue), the JVM offers the shim what it needs to make the next launches of the same function on the same stream
 * itself: the backend's C launch function, the kernel's entry and the stream's device queue, and the limits
 * {@link LaunchApi}'s checks used. The shim keeps the offer for the calling thread while its epochs hold
 * ({@link org.zludaj.nativ.ShimEpochs}); anything else goes to the JVM as before.
 */
final class DirectLaunch {
    private DirectLaunch() {}

    /** The shim's zluda_launch_offer, 0 outside the shim or with ZLUDA_DIRECT_LAUNCH=0 (every launch through the JVM). */
    private static final long OFFER = "0".equals(System.getenv("ZLUDA_DIRECT_LAUNCH")) ? 0 : Long.getLong("zluda.launchOffer", 0L);
    static boolean enabled() {
        return OFFER != 0;
    }

    /**
     * Offers the launch of {@code k} just made in context {@code c} on stream {@code s}, which the application named
     * {@code f} and {@code hStream} ({@code ptds}: through cuLaunchKernel_ptsz).
     */
    static void offer(Driver d, Context c, Kernel k, long f, long hStream, boolean ptds, Stream s) {
        try {
            make(d, c, k, f, hStream, ptds, s);
        } catch (CudaException | RuntimeException e) {  // nothing offered: the launch, done, stays the JVM's
            LOG.debug("no direct launch for {}: {}", k.code.name(), e.toString());
        }
    }

    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(DirectLaunch.class);

    private static void make(Driver d, Context c, Kernel k, long f, long hStream, boolean ptds, Stream s) throws CudaException {
        long launch = d.backend.directLaunchFunction(k.code);
        if (launch == 0) return;
        var limits = d.devices().get(c.device);
        int[] required = k.requiredBlock;
        long threads = limits.attribute(1);
        if (k.maxBlockThreads > 0) threads = Math.min(threads, k.maxBlockThreads);
        // the words of shim/launch.c's offer, in its order (O_FUNCTION .. O_PARAMS)
        long[] v = {f, hStream, ptds ? 1 : 0, launch, k.code.entry(), s.queue(d.backend),
                limits.attribute(2), limits.attribute(3), limits.attribute(4), threads,
                required != null ? required[0] : 0, required != null ? required[1] : 0, required != null ? required[2] : 0,
                limits.attribute(6), limits.attribute(7), k.maxDynamicShared, k.paramLayout().sizes().length != 0 ? 1 : 0};
        HostRuntime.callWithWords(OFFER, v);
    }
}
