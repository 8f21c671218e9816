package org.zludaj.ptx;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where compilations run: threads with a 64 MiB stack (eight times what LLVM's own tools get; address space
 * reserved, pages touched only as used). LLVM recurses deeply on huge straight-line kernels (ggml's flash-attention
 * kernels), and a native stack overflow on a thread of the default 1 MiB (a stream thread, an application's thread
 * calling the driver) leaves the signal handler no stack to run on: the whole application dies with SIGSEGV and no
 * message. A compilation started on any other thread runs here and the caller waits for it.
 */
public final class BigStack {
    private BigStack() {}

    /** A compilation's work. */
    @FunctionalInterface
    public interface Work<T> {
        T run() throws PtxException;
    }

    static final long STACK_BYTES = 64L << 20;
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadGroup GROUP = new ThreadGroup("zluda-compile");
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(GROUP, r, "zluda-compile-" + THREADS.incrementAndGet(), STACK_BYTES);
        t.setDaemon(true);
        return t;
    });

    /** Whether the calling thread is one of the compile threads. */
    public static boolean here() {
        return Thread.currentThread().getThreadGroup() == GROUP;
    }

    /** Runs {@code work} on a compile thread (at once where the caller is one) and returns its result or exception. */
    public static <T> T call(Work<T> work) throws PtxException {
        if (here()) return work.run();
        Future<T> f = POOL.submit(work::run);
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;  // the compilation finishes either way; its result is wanted
                }
            }
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof PtxException p) throw p;
            if (c instanceof RuntimeException r) throw r;
            if (c instanceof Error err) throw err;
            throw new IllegalStateException(c);
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
