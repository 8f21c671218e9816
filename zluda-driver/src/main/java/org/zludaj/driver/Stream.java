package org.zludaj.driver;

/** A CUstream. In this slice every operation completes before it returns, so a stream only carries its flags. */
public final class Stream {
    final int flags;
    final int priority;

    Stream(int flags, int priority) {
        this.flags = flags;
        this.priority = priority;
    }
}
