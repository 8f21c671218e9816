package org.zludaj.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A CUDA context: a device plus per-context state (context-local storage of cudart, limits, flags). */
public final class Context {
    // ZLUDA-J's logger, not SLF4J's directly: that started logback (10-30 ms) at the driver's start, in every process
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(Context.class);
    final int device;
    final boolean primary;
    volatile int flags;
    /** Primary contexts: retain count (0 = inactive). */
    int retained;
    long handle;
    /** Context-local storage (export table c693336e): key -> value and destructor. */
    final ConcurrentHashMap<Long, long[]> localStorage = new ConcurrentHashMap<>();
    final long[] limits = {1024, 1 << 20, 8 << 20, 2, 2048, 0, 0};  // CUlimit 0..6
    /** Devices whose memory this context was given access to (cuCtxEnablePeerAccess). */
    final java.util.Set<Integer> peers = new java.util.HashSet<>();
    /**
     * A kernel fault (device-side assert, deadlock) leaves the context unusable, as on NVIDIA: every later
     * synchronization and launch in it reports this error until the context is destroyed or reset.
     */
    volatile CudaException sticky;
    /** Destroyed by cuCtxDestroy: NVIDIA still lets a thread make it current, and then every call reports 709. */
    volatile boolean destroyed;

    /**
     * A kernel fault the device reported when asked to finish its work (a fence, a synchronization: GPU backends learn
     * of faults there, not at the launch) becomes the context's sticky error, as a fault found by a launch does.
     */
    CudaException faulted(CudaException e) {
        if (LaunchApi.isKernelFault(e.result())) stick(e);
        return e;
    }

    /** A kernel fault becomes the context's sticky error; the first one is logged (it names the kernel). */
    void stick(CudaException e) {
        synchronized (this) {
            if (sticky != null) return;
            sticky = e;
        }
        org.zludaj.nativ.ShimEpochs.contexts();  // the launches the shim repeats go to the JVM, which refuses them
        LOG.warn("{}: {}; the context is unusable from now on", org.zludaj.api.CuResult.name(e.result()), e.getMessage());
    }

    /** The backend's fence of {@code queue} ({@link org.zludaj.driver.backend.Backend#fence(long)}), its fault sticky. */
    void fence(org.zludaj.driver.backend.Backend backend, long queue) throws CudaException {
        try {
            backend.fence(queue);
        } catch (CudaException e) {
            throw faulted(e);
        }
    }

    /** The backend's fence of the whole device ({@link org.zludaj.driver.backend.Backend#fence()}), its fault sticky. */
    void fence(org.zludaj.driver.backend.Backend backend) throws CudaException {
        try {
            backend.fence();
        } catch (CudaException e) {
            throw faulted(e);
        }
    }

    /** Throws the context's sticky error, if a kernel has faulted in it. */
    void checkSticky() throws CudaException {
        CudaException e = sticky;
        if (e != null) throw new CudaException(e.result(), e.getMessage());
    }

    /** The legacy default stream (handle 0 and CU_STREAM_LEGACY). */
    final Stream legacy = new Stream(this, 0, 0, true);
    /** The streams created in this context, per-thread default streams included. */
    private final Set<Stream> streams = ConcurrentHashMap.newKeySet();
    /** CU_STREAM_PER_THREAD and the _ptsz/_ptds functions: one blocking stream per host thread. */
    private final ThreadLocal<Stream> perThread = ThreadLocal.withInitial(() -> add(new Stream(this, 0, 0, false)));

    Stream add(Stream s) {
        streams.add(s);
        return s;
    }

    void remove(Stream s) {
        streams.remove(s);
    }

    List<Stream> streams() {
        return new ArrayList<>(streams);
    }

    Stream perThreadStream() {
        return perThread.get();
    }

    /**
     * cuCtxSynchronize: waits for the work of every stream of the context; throws the sticky error, else the first
     * error an asynchronous operation reported.
     */
    void synchronize() throws CudaException {
        List<Stream> all = streams();
        all.add(legacy);
        for (Stream s : all) s.tail().join();
        checkSticky();
        for (Stream s : all) s.takeError();
    }

    /** Waits for every stream without reporting errors (before memory is freed or the context goes). */
    void drain() {
        List<Stream> all = streams();
        all.add(legacy);
        for (Stream s : all) s.tail().join();
    }

    Context(int device, boolean primary, int flags) {
        this.device = device;
        this.primary = primary;
        this.flags = flags;
    }
}
