package org.zludaj.driver;

import java.util.concurrent.ConcurrentHashMap;

/** A CUDA context: a device plus per-context state (context-local storage of cudart, limits, flags). */
public final class Context {
    final int device;
    final boolean primary;
    volatile int flags;
    /** Primary contexts: retain count (0 = inactive). */
    int retained;
    long handle;
    /** Context-local storage (export table c693336e): key -> value and destructor. */
    final ConcurrentHashMap<Long, long[]> localStorage = new ConcurrentHashMap<>();
    final long[] limits = {1024, 1 << 20, 8 << 20, 2, 2048, 0, 0};  // CUlimit 0..6
    /**
     * A kernel fault (device-side assert, deadlock) leaves the context unusable, as on NVIDIA: every later
     * synchronization and launch in it reports this error until the context is destroyed or reset.
     */
    volatile CudaException sticky;

    /** Throws the context's sticky error, if a kernel has faulted in it. */
    void checkSticky() throws CudaException {
        CudaException e = sticky;
        if (e != null) throw new CudaException(e.result(), e.getMessage());
    }

    Context(int device, boolean primary, int flags) {
        this.device = device;
        this.primary = primary;
        this.flags = flags;
    }
}
