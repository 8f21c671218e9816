package org.zludaj.driver;

import org.zludaj.nativ.HostRuntime;

/**
 * Device-to-device copies the shim repeats without the JVM (shim/copy.c), as {@link DirectLaunch} does for launches:
 * after a {@code cuMemcpyDtoDAsync} ran at once on the calling thread (its stream and those it implicitly waits for
 * idle, no capture, a backend that only hands it to a device queue), the JVM offers the shim the backend's C copy
 * function and the stream's device queue; the shim makes the next such copies on the same stream itself while its
 * epochs hold ({@link org.zludaj.nativ.ShimEpochs}). A NULL address goes to the JVM, which answers it.
 */
final class DirectCopy {
    private DirectCopy() {}

    /** The shim's zluda_copy_offer, 0 outside the shim or with ZLUDA_DIRECT_LAUNCH=0 (every call through the JVM). */
    private static final long OFFER = "0".equals(System.getenv("ZLUDA_DIRECT_LAUNCH")) ? 0 : Long.getLong("zluda.copyOffer", 0L);
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(DirectCopy.class);

    /** Whether copies may be offered: inside the shim, and not while each call is traced. */
    static boolean enabled() {
        return OFFER != 0 && !LOG.isTraceEnabled();
    }

    /**
     * Offers the copy just made through {@code copy} (the backend's C function) into device queue {@code queue} of the
     * stream the application named {@code hStream} ({@code ptds}: through the _ptsz variant).
     */
    static void offer(long copy, long hStream, boolean ptds, long queue) {
        // the words of shim/copy.c's offer, in its order (C_STREAM .. C_QUEUE)
        HostRuntime.callWithWords(OFFER, new long[] {hStream, ptds ? 1 : 0, copy, queue});
    }
}
