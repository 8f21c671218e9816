package org.zludaj.driver;

/** A CUevent: the time of its last record (work before it has completed, as operations are synchronous). */
public final class Event {
    final int flags;
    volatile long recordedNanos = -1;

    Event(int flags) {
        this.flags = flags;
    }
}
