package org.zludaj.driver;

import java.util.concurrent.CompletableFuture;

/**
 * A CUevent: its most recent record, which completes when the work enqueued before it in its stream has, and the
 * time at which it completed (for cuEventElapsedTime).
 */
public final class Event {
    final int flags;
    private CompletableFuture<Void> recorded;
    volatile long recordedNanos = -1;

    Event(int flags) {
        this.flags = flags;
    }

    /** The latest record's completion, or null when never recorded. */
    synchronized CompletableFuture<Void> recorded() {
        return recorded;
    }

    synchronized void record(CompletableFuture<Void> completion) {
        recorded = completion;
        captureOrigin = null;
    }

    /**
     * A record in a capturing stream: no work, but the capture's place (its origin stream and the dependencies at
     * that point), which a stream waiting on the event joins.
     */
    volatile Stream captureOrigin;
    volatile java.util.List<Graph.Node> captureNodes = java.util.List.of();
    volatile long captureId;

    synchronized void recordInCapture(Stream s) {
        captureOrigin = s.captureOrigin;
        captureNodes = s.captureDependencies;
        captureId = s.captureId;
    }
}
