package org.zludaj.nativ;

/**
 * The epochs of what the shim answers without the JVM (issue 21): the shim keeps an answer only while the epoch read
 * before the JVM gave it stays the same, and the JVM bumps the epoch whenever such answers may change. The shim
 * passes their addresses as {@code -Dzluda.epoch} (shim/memo.c: a thread's context stack, destroyed contexts, function
 * attributes, unloaded modules, kernel faults; also the launches shim/launch.c repeats) and {@code -Dzluda.streamEpoch}
 * (shim/launch.c: a stream got work queued behind other work, a capture began or ended, a stream was destroyed).
 * Outside the shim (tests) both are absent and bumping does nothing.
 */
public final class ShimEpochs {
    private ShimEpochs() {}

    private static final long CONTEXTS = Long.getLong("zluda.epoch", 0L);
    private static final long STREAMS = Long.getLong("zluda.streamEpoch", 0L);
    private static int contexts, streams;

    /** Contexts, functions or faults changed: the shim's kept per-context answers and launches are asked again. */
    public static void contexts() {
        if (CONTEXTS == 0) return;
        synchronized (ShimEpochs.class) {  // written in order: an epoch never goes back to a value a thread read
            HostRuntime.putInt(CONTEXTS, ++contexts);
        }
    }

    /** A stream's work can no longer be submitted at once from the caller's thread: kept launches go to the JVM. */
    public static void streams() {
        if (STREAMS == 0) return;
        synchronized (ShimEpochs.class) {
            HostRuntime.putInt(STREAMS, ++streams);
        }
    }
}
