package org.zludaj.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.zludaj.api.CuResult;

/**
 * A CUstream: an ordered queue of work (launches, copies, sets, event records, waits, host functions) run
 * asynchronously on the driver's stream threads. Each operation starts when the stream's previous one has finished
 * and when the operations it depends on have: the legacy default stream waits for every blocking stream of its
 * context and every blocking stream waits for the legacy stream's earlier work (CUDA's implicit synchronization);
 * {@code CU_STREAM_NON_BLOCKING} streams wait for neither. The first error of an operation is kept until the
 * stream is synchronized. At most {@link #MAX_PENDING} operations wait in a stream; enqueueing more blocks.
 */
public final class Stream {
    /** CU_STREAM_NON_BLOCKING */
    static final int NON_BLOCKING = 1;

    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(Stream.class);
    private static final AtomicInteger THREADS = new AtomicInteger();
    /** The stream threads: daemons, created as work needs them, shared by every stream. */
    static final ExecutorService EXECUTOR = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "zluda-stream-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    /** One unit of stream work. */
    @FunctionalInterface
    interface Op {
        void run() throws CudaException;
    }

    /** Operations a stream holds before enqueueing blocks the caller (NVIDIA's launch queue is bounded too). */
    static final int MAX_PENDING = 1024;

    private static final java.util.concurrent.atomic.AtomicLong IDS = new java.util.concurrent.atomic.AtomicLong();

    final int flags;
    final int priority;
    /** cuStreamGetId: unique in the process. */
    final long id = IDS.incrementAndGet();
    /** cuStreamSetAttribute values (CUstreamAttrValue, 64 bytes) by attribute. */
    final java.util.concurrent.ConcurrentHashMap<Integer, byte[]> attributes = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.Semaphore room = new java.util.concurrent.Semaphore(MAX_PENDING);
    final Context context;
    /** The context's legacy default stream (handle 0 / CU_STREAM_LEGACY). */
    final boolean legacy;
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    private CompletableFuture<Void> tail = DONE;
    private static final java.util.concurrent.atomic.AtomicLong CAPTURES = new java.util.concurrent.atomic.AtomicLong();
    /**
     * Stream capture: the graph being recorded (operations are recorded instead of run), its handle and id, whether it
     * broke; the nodes the next captured operation depends on; the stream that began the capture (this one, or the
     * origin a captured event's wait joined it to) and, on the origin, the streams that joined.
     */
    volatile Graph capture;
    volatile long captureGraphHandle, captureId;
    volatile boolean captureInvalidated;
    /** Whether the capture records into the application's graph (cuStreamBeginCaptureToGraph): it is not ours to destroy. */
    volatile boolean captureIntoExisting;
    volatile List<Graph.Node> captureDependencies = List.of();
    volatile Stream captureOrigin;
    final java.util.Set<Stream> joinedCaptures = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Native array of the dependencies' handles that cuStreamGetCaptureInfo hands out, and its capacity. */
    long captureDependencyArray;
    int captureDependencyCapacity;

    void beginCapture(Graph g, long handle, List<Graph.Node> dependencies, boolean existing) {
        capture = g;
        captureGraphHandle = handle;
        captureId = CAPTURES.incrementAndGet();
        captureInvalidated = false;
        captureIntoExisting = existing;
        captureDependencies = List.copyOf(dependencies);
        captureOrigin = this;
        joinedCaptures.clear();
        org.zludaj.nativ.ShimEpochs.streams();  // launches the shim repeats are captured from now on
    }

    /** Joins the capture of {@code origin} (a wait on an event it recorded), depending on {@code dependencies}. */
    void joinCapture(Stream origin, List<Graph.Node> dependencies) {
        capture = origin.capture;
        captureGraphHandle = origin.captureGraphHandle;
        captureId = origin.captureId;
        captureInvalidated = false;
        captureIntoExisting = origin.captureIntoExisting;
        captureDependencies = List.copyOf(dependencies);
        captureOrigin = origin;
        origin.joinedCaptures.add(this);
        org.zludaj.nativ.ShimEpochs.streams();
    }

    void endCapture() {
        capture = null;
        captureDependencies = List.of();
        captureOrigin = null;
        org.zludaj.nativ.ShimEpochs.streams();
    }

    /** Records {@code op} in the capture after the stream's dependencies; false when the stream is not capturing. */
    boolean captured(String kind, Op op, Runnable release) {
        return captured(kind, op, release, null);
    }

    /** As {@link #captured(String, Op, Runnable)} for a kernel launch, with its parameters (kernel nodes report them). */
    boolean captured(String kind, Op op, Runnable release, Graph.KernelParams kernel) {
        return record(kind, op, release, kernel) != null;
    }

    /** The node {@code op} became in the capture, after the stream's dependencies; null when the stream is not capturing. */
    private Graph.Node record(String kind, Op op, Runnable release, Graph.KernelParams kernel) {
        Graph g = capture;
        if (g == null) return null;
        Graph.Node n = g.addCaptured(kind, op, release, captureDependencies, kernel);
        captureDependencies = List.of(n);
        return n;
    }
    private CudaException error;

    Stream(Context context, int flags, int priority, boolean legacy) {
        this.context = context;
        this.flags = flags;
        this.priority = priority;
        this.legacy = legacy;
    }

    boolean blocking() {
        return (flags & NON_BLOCKING) == 0;
    }

    /**
     * Completion of all work enqueued so far. While an operation runs on a caller's thread with nothing queued behind
     * it ({@code tail} null), its completion is made here, when someone asks (runHere completes it): a launch loop
     * that nobody waits on allocates none.
     */
    synchronized CompletableFuture<Void> tail() {
        if (tail == null) tail = hereDone = new CompletableFuture<>();
        return tail;
    }

    /** The completion tail() made for the operation running on a caller's thread, if anyone asked; else null. */
    private CompletableFuture<Void> hereDone;

    /** Work waiting in the stream: the operation, what it must wait for, its completion. */
    private record Entry(String what, Op op, CompletableFuture<?>[] deps, CudaException[] errors, CompletableFuture<Void> done) {}

    private final java.util.ArrayDeque<Entry> queue = new java.util.ArrayDeque<>();
    /**
     * draining: a stream thread is working through the queue or waiting a moment for more; running: an operation is
     * executing (on the stream thread or, submitted where nothing was pending, on the caller's). Only running and a
     * non-empty queue make a submission wait its turn: a stream thread that merely looks for more work does not, or
     * while a stream thread lingered after one queued operation, every submission was handed over to it too (an
     * H200's HGEMM 1024³ loop through the cuda backend: 7.67 us a call before, 7.47 after, NVIDIA's 7.1).
     */
    private boolean draining, sleeping, running;
    /** Operations enqueued so far (read without the lock by a stream thread looking for more work). */
    private volatile long enqueued;

    /**
     * Enqueues {@code op} after this stream's earlier work, the implicit synchronization with other streams, and
     * {@code after} (e.g. an event's record). An error of {@code op} becomes the stream's error unless
     * {@code errors} is given, which then receives it (synchronous calls report their own errors). A stream's
     * operations run back to back on one stream thread while work is queued (no hand-over per operation).
     */
    CompletableFuture<Void> enqueue(String what, Op op, CompletableFuture<?> after, CudaException[] errors) {
        if (errors == null && captured(what, op, null)) return DONE;
        List<CompletableFuture<?>> deps = new ArrayList<>();
        if (legacy) {
            for (Stream s : context.streams()) if (s != this && s.blocking()) deps.add(s.tail());
        } else if (blocking()) {
            deps.add(context.legacy.tail());
        }
        if (after != null) deps.add(after);
        deps.removeIf(CompletableFuture::isDone);
        room.acquireUninterruptibly();
        Entry e = new Entry(what, op, deps.toArray(new CompletableFuture<?>[0]), errors, new CompletableFuture<>());
        boolean start;
        synchronized (this) {
            queue.addLast(e);
            tail = e.done;
            enqueued++;
            if (sleeping) notify();
            start = !draining;
            draining = true;
        }
        // a launch the shim repeats without the JVM (shim/launch.c) must now wait its turn behind this one, here and on
        // the streams that wait for this one: it goes to the JVM until a launch finds the streams idle again
        org.zludaj.nativ.ShimEpochs.streams();
        if (start) EXECUTOR.execute(this::drain);
        return e.done;
    }

    /**
     * Enqueues an operation that only hands work to the device (a launch or a library call where the backend's
     * device queues run it asynchronously: {@code onCaller}). Where nothing of this stream or of the streams it
     * implicitly waits for is pending, it runs at once on the calling thread, as NVIDIA's driver submits from the
     * caller's thread: no hand-over to a stream thread, whose wake-up costs more than the submission. Otherwise (and
     * always where {@code onCaller} is false) it is enqueued behind the pending work.
     */
    void submit(String what, Op op, boolean onCaller) {
        Graph.Node n = record(what, op, null, null);
        if (n != null) {  // captured: marked as work that its launches may run on their caller's thread
            n.work.onCaller = onCaller;
            return;
        }
        if (!onCaller || !runHere(what, op, null)) enqueue(what, op, null, null);
    }

    /** Runs {@code op} on the calling thread if the stream and those it waits for are idle; whether it did. */
    private boolean runHere(String what, Op op, CudaException[] errors) {
        return runHere(what, op, errors, true);
    }

    /** As {@link #runHere(String, Op, CudaException[])}; {@code bound}: the op may ask for {@link #runningQueue}. */
    private boolean runHere(String what, Op op, CudaException[] errors, boolean bound) {
        if (legacy) {
            for (Stream s : context.streams()) if (s != this && s.blocking() && !s.tail().isDone()) return false;
        } else if (blocking() && !context.legacy.tail().isDone()) {
            return false;
        }
        synchronized (this) {
            if (running || !queue.isEmpty()) return false;
            running = true;  // work enqueued meanwhile waits behind this operation
            tail = null;     // this operation's completion, made by tail() if anyone asks
            enqueued++;
        }
        try {
            if (bound) execute(what, op, errors);
            else executeHere(what, op, errors);
        } finally {
            boolean start = false;
            CompletableFuture<Void> done;
            synchronized (this) {
                running = false;
                done = hereDone;
                hereDone = null;
                if (tail == null) tail = DONE;
                if (!queue.isEmpty()) {
                    if (sleeping) notify();
                    start = !draining;
                    draining = true;
                }
            }
            if (done != null) done.complete(null);
            if (start) EXECUTOR.execute(this::drain);
        }
        return true;
    }

    /**
     * Runs {@code op} on the calling thread if the stream is not being captured and it, and the streams it waits for,
     * are idle (see submit); whether it did. Where it did not, nothing ran: the caller enqueues its own way. The op
     * names its device queue itself ({@link #queue}), not through {@link #runningQueue}.
     */
    boolean tryHere(String what, Op op) {
        return capture == null && runHere(what, op, null, false);
    }

    /** The next queued operation, unless one is running (then null); marks it running. Holds the lock. */
    private Entry next() {
        if (running) return null;
        Entry e = queue.pollFirst();
        if (e != null) running = true;
        return e;
    }

    /** Runs the queued operations in order until the queue is empty. */
    private void drain() {
        long seen = enqueued;
        for (;;) {
            Entry e;
            synchronized (this) {
                e = next();
            }
            if (e == null) {
                // an application that launches in a loop enqueues again within microseconds: look for more work for
                // a moment (spinning, then sleeping), which is cheaper than waking a thread for every operation
                long until = System.nanoTime() + 30_000;
                while (enqueued == seen && System.nanoTime() < until) Thread.yield();
            }
            synchronized (this) {
                if (e == null) e = next();
                if (e == null) {
                    sleeping = true;
                    try {
                        wait(2);
                    } catch (InterruptedException ignored) {
                        Thread.currentThread().interrupt();
                    }
                    sleeping = false;
                    e = next();
                    if (e == null) {
                        draining = false;  // work queued behind an operation on a caller's thread: that caller starts us again
                        return;
                    }
                }
            }
            seen = enqueued;
            try {
                for (CompletableFuture<?> d : e.deps) d.handle((v, t) -> null).join();
                room.release();
                execute(e.what, e.op, e.errors);
            } finally {
                synchronized (this) {
                    running = false;
                }
                e.done.complete(null);
            }
        }
    }

    /** The stream whose operation this thread is running (stream threads only). */
    private static final ThreadLocal<Stream> RUNNING = new ThreadLocal<>();

    /** The backend's device queue of this stream (a HIP or CUDA stream on GPUs), made at its first use; 0: none yet. */
    private volatile long deviceQueue;

    /**
     * The device queue of the stream running the calling operation (made now if it has none), or 0 (the device's
     * default queue) outside stream operations.
     */
    static long runningQueue(org.zludaj.driver.backend.Backend backend) throws CudaException {
        Stream s = RUNNING.get();
        return s == null ? 0 : s.queue(backend);
    }

    /** This stream's device queue, made at its first use (0 where the backend has none: the host). */
    long queue(org.zludaj.driver.backend.Backend backend) throws CudaException {
        if (queueAsked) return deviceQueue;  // every launch after the first: no lock, no backend call
        synchronized (this) {
            if (!queueAsked) {
                deviceQueue = backend.createQueue(context.device, legacy);
                queueAsked = true;
            }
            return deviceQueue;
        }
    }

    /** Whether the backend was asked for this stream's device queue (it may have none: the host). */
    private volatile boolean queueAsked;

    /** The device queue of the stream running the calling operation, or 0 (none, or not in a stream operation). */
    static long runningQueueIfAny() {
        Stream s = RUNNING.get();
        return s == null ? 0 : s.deviceQueue;
    }

    /** The device queue, or 0 when the stream never used one (nothing of it is on the device). */
    long deviceQueue() {
        return deviceQueue;
    }

    /** Gives the device queue back (a destroyed stream, after its work). */
    void releaseQueue(org.zludaj.driver.backend.Backend backend) {
        long q;
        synchronized (this) {
            q = deviceQueue;
            deviceQueue = 0;
            queueAsked = false;
        }
        if (q != 0) backend.destroyQueue(q);
    }

    /**
     * A stream of {@code context} that is only a device queue's name for the operations run in it by {@link #runAs}
     * (a graph replay's capture: GraphLaunches); never an application's handle, never given work.
     */
    static Stream ofQueue(Context context, long queue) {
        Stream s = new Stream(context, NON_BLOCKING, 0, false);
        s.deviceQueue = queue;
        s.queueAsked = true;
        return s;
    }

    /** Runs {@code op} on the calling thread as an operation of this stream ({@link #runningQueue} answers its queue). */
    void runAs(Op op) throws CudaException {
        Stream outer = RUNNING.get();
        RUNNING.set(this);
        try {
            op.run();
        } finally {
            RUNNING.set(outer);
        }
    }

    private void execute(String what, Op op, CudaException[] errors) {
        Stream outer = RUNNING.get();  // set back, not removed: a remove costs a launch more than the lookup
        RUNNING.set(this);
        try {
            executeHere(what, op, errors);
        } finally {
            RUNNING.set(outer);
        }
    }

    private void executeHere(String what, Op op, CudaException[] errors) {
        CudaException failure = null;
        try {
            op.run();
        } catch (CudaException e) {
            failure = e;
        } catch (Throwable t) {  // never lost, never thrown into the application
            LOG.error("{} failed on a stream thread", what, t);
            failure = new CudaException(CuResult.CUDA_ERROR_UNKNOWN, what + ": " + t);
        }
        if (failure == null) return;
        if (errors != null) {
            errors[0] = failure;
            return;
        }
        LOG.debug("{} failed asynchronously: {}", what, failure.getMessage());
        synchronized (this) {
            if (error == null) error = failure;
        }
    }

    /** Runs {@code op} in stream order and waits for it; its error is thrown here. */
    void run(String what, Op op) throws CudaException {
        run(what, op, false);
    }

    /** As {@link #run(String, Op)}; {@code onCaller}: on the calling thread where nothing is pending (see submit). */
    void run(String what, Op op, boolean onCaller) throws CudaException {
        if (capture != null) {  // a synchronous operation cannot be part of a graph: the capture breaks, as on NVIDIA
            captureInvalidated = true;
            throw new CudaException(CuResult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, what + " while the stream is being captured");
        }
        CudaException[] errors = new CudaException[1];
        if (!onCaller || !runHere(what, op, errors)) enqueue(what, op, null, errors).join();
        if (errors[0] != null) throw errors[0];
    }

    /** Waits for the stream's work; throws (and forgets) the first error of an operation since the last wait. */
    void synchronize() throws CudaException {
        tail().join();
        takeError();
    }

    /** Throws and forgets the stream's first error, if any. */
    void takeError() throws CudaException {
        CudaException e;
        synchronized (this) {
            e = error;
            error = null;
        }
        if (e != null) throw e;
    }

    boolean idle() {
        return tail().isDone();
    }
}
