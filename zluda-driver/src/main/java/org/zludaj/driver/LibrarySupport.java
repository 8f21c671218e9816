package org.zludaj.driver;

import org.zludaj.api.CuResult;
import org.zludaj.driver.backend.Backend;

/**
 * What the CUDA libraries ZLUDA-J replaces (cuBLAS, cuBLASLt: {@code org.zludaj.driver.cublas}) need of the driver:
 * the context a handle belongs to, the streams of that context, the backend. Library work is stream work: it is
 * enqueued in the application's stream like a launch, so it is ordered with that stream's kernels and copies (and
 * recorded when the stream is being captured), on every backend.
 */
public final class LibrarySupport {
    private final Driver d;

    LibrarySupport(Driver d) {
        this.d = d;
    }

    /** One unit of library work, run in stream order; {@code queue} is the stream's device queue (0 on the host). */
    @FunctionalInterface
    public interface Work {
        void run(long queue) throws CudaException;
    }

    public Backend backend() {
        return d.backend;
    }

    /**
     * The calling thread's context; with none, the primary context of device 0 is made current, as cudart does for a
     * library's first call (cuBLAS's handle creation needs a context).
     */
    public Context context() throws CudaException {
        if (!d.initialized()) d.initialize();
        Context c = d.current();
        if (c == null) {
            c = d.primary[0];
            synchronized (c) {
                if (c.retained == 0) c.retained++;
            }
            d.stack().addLast(c);
        }
        if (c.destroyed) throw new CudaException(CuResult.CUDA_ERROR_CONTEXT_IS_DESTROYED, "the current context was destroyed");
        return c;
    }

    public int device(Context c) {
        return c.device;
    }

    /** Whether {@code handle} names a stream of {@code c} (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD included). */
    public boolean isStream(Context c, long handle) {
        if (handle == 0 || handle == StreamApi.LEGACY || handle == StreamApi.PER_THREAD) return true;
        return d.handles.peek(handle) instanceof Stream s && s.context == c;
    }

    private Stream stream(Context c, long handle) throws CudaException {
        if (handle == 0 || handle == StreamApi.LEGACY) return c.legacy;
        if (handle == StreamApi.PER_THREAD) return c.perThreadStream();
        Stream s = d.handles.get(handle, Stream.class);
        if (s.context != c) throw new CudaException(CuResult.CUDA_ERROR_INVALID_HANDLE, "stream of another context");
        return s;
    }

    /** Enqueues {@code work} in stream {@code handle} of {@code c}; it runs after the stream's earlier work. */
    public void enqueue(Context c, long handle, String what, Work work) throws CudaException {
        c.checkSticky();
        Stream s = stream(c, handle);
        s.submit(what, () -> work.run(Stream.runningQueue(d.backend)), d.backend.submitsAsynchronously());
    }

    /**
     * Runs {@code work} at once on the calling thread where the backend hands work to device queues, stream {@code
     * handle} and the streams it implicitly waits for are idle and it is not being captured; whether it did (where it
     * did not, nothing ran). An error of the work is the stream's, as for {@link #enqueue}.
     */
    public boolean tryHere(Context c, long handle, String what, Work work) throws CudaException {
        if (!d.backend.submitsAsynchronously()) return false;
        c.checkSticky();
        Stream s = stream(c, handle);
        return s.tryHere(what, () -> work.run(s.queue(d.backend)));
    }

    /** Runs {@code work} in stream order and waits for it (a result the host reads at once); its error is thrown. */
    public void run(Context c, long handle, String what, Work work) throws CudaException {
        c.checkSticky();
        Stream s = stream(c, handle);
        s.run(what, () -> work.run(Stream.runningQueue(d.backend)), d.backend.submitsAsynchronously());
    }

    /** Waits for the work enqueued so far in stream {@code handle}. */
    public void synchronize(Context c, long handle) throws CudaException {
        stream(c, handle).synchronize();
    }

    /** Copies bytes in stream order and waits (cublasSetVector/GetMatrix...): host or device addresses. */
    public void copy2D(Context c, long handle, long dst, long dpitch, long src, long spitch, long width, long height)
            throws CudaException {
        run(c, handle, "cublas copy", q -> d.backend.copy2D(dst, dpitch, src, spitch, width, height));
    }
}
