package org.zludaj.driver;

import java.util.ArrayList;
import java.util.List;
import org.zludaj.nativ.HostRuntime;

/**
 * How an executable graph runs when launched (GraphApi's cuGraphLaunch) and how its backend sequence follows an
 * update (cuGraphExecUpdate, cuGraphExecKernelNodeSetParams): one backend sequence of its kernels where every node is a
 * plain kernel (an NVIDIA graph on the cuda backend, one native call on the hip backend), else one submission on the
 * caller's thread where its nodes are kernels and library calls only, else node by node on the stream.
 */
final class GraphLaunches {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(GraphLaunches.class);
    private final Driver d;

    GraphLaunches(Driver d) {
        this.d = d;
    }

    /**
     * Launches executable {@code e} on stream {@code s}: the nodes run in their captured order on the stream, after its
     * earlier work, like the original operations. Where every node is a plain kernel and the backend submits to device
     * queues, the executable is one backend sequence, submitted in one call like a launch.
     */
    void launch(Graph.Exec e, Stream s) throws CudaException {
        Graph.Exec.Sequence sequence = d.backend.submitsAsynchronously() && s.capture == null ? e.sequence(x -> kernelSequence(x, s.context)) : null;
        if (sequence != null) {
            Context c = s.context;
            s.submit("cuGraphLaunch", () -> {
                try {
                    if (c.sticky == null) sequence.launches.launch(Stream.runningQueue(d.backend));
                } catch (CudaException x) {
                    throw c.faulted(x);  // a kernel's fault is the context's, as a launch's
                } finally {
                    sequence.release();
                }
            }, true);
            return;
        }
        var work = e.work();
        work.forEach(Graph.Work::retain);  // held until they ran, even if the executable is updated or destroyed
        if (d.backend.submitsAsynchronously() && s.capture == null && work.stream().allMatch(GraphLaunches::callerMayRun)) {
            // kernels and library calls only (a cuBLAS GEMM between kernels): one submission, run on the caller's
            // thread when the stream is idle, as each of them would be if called directly (no hand-over per node)
            s.submit("cuGraphLaunch", () -> {
                try {
                    for (Graph.Work w : work) w.op.run();
                } finally {
                    work.forEach(Graph.Work::drop);
                }
            }, true);
            return;
        }
        for (Graph.Work w : work) {
            Event waits = w.type == Graph.EVENT_WAIT ? w.event : null;
            var done = s.enqueue(w.kind, () -> {
                try {
                    w.op.run();
                } finally {
                    w.drop();
                }
            }, waits == null ? null : waits.recorded(), null);
            if (w.type == Graph.EVENT_RECORD) w.event.record(done);  // pending from the launch on, as NVIDIA's
        }
    }

    /**
     * Whether a graph launch may run this node on its caller's thread: plain kernel launches (not cooperative ones, which
     * may wait for their grid on some backends), library calls and empty nodes; not copies, sets, host functions,
     * events, memory nodes or stream memory operations, which may block or wait.
     */
    private static boolean callerMayRun(Graph.Work w) {
        return w.type == Graph.EMPTY || w.onCaller || w.type == Graph.KERNEL && w.kernel != null && !w.kernel.cooperative();
    }

    /**
     * The executable's launches as one backend sequence, or null (a node that is not a plain kernel launch). An
     * executable of kernels and cuBLAS GEMMs is captured by the backend as one graph of its own ({@link #captured}),
     * from its second launch since it last changed (llama.cpp updates its graphs at every token: a capture per update
     * would cost more than the replay saves).
     */
    private org.zludaj.driver.backend.Backend.KernelSequence kernelSequence(Graph.Exec e, Context c) throws CudaException {
        boolean calls = false;
        for (Graph.Exec.Step step : e.steps()) {
            Graph.Work w = step.work();
            if (w.type == Graph.OPERATION && capturable(w)) calls = true;
            else if (w.type == Graph.OPERATION) return null;
        }
        if (calls) {
            if (e.launchesSinceChange() < 2) {
                e.askAgainLater();
                return null;
            }
            return captured(e, c);
        }
        List<org.zludaj.driver.backend.Backend.SequencedLaunch> launches = new ArrayList<>();
        for (Graph.Exec.Step step : e.steps()) {
            Graph.Work w = step.work();
            if (w.type == Graph.EMPTY) continue;
            if (w.type != Graph.KERNEL || w.kernel == null) return null;
            // launch attributes other than COOPERATIVE (priorities, access policies...) are the nodes' own launches'
            var attributes = step.node().attributesSet();
            if (attributes.size() > (attributes.containsKey(Graph.ATTRIBUTE_COOPERATIVE) ? 1 : 0)) return null;
            if (w.kernel.cooperative() && !d.backend.queuesCooperative()) return null;
            if (!(d.handles.peek(w.kernel.function()) instanceof Kernel k)) return null;
            launches.add(new org.zludaj.driver.backend.Backend.SequencedLaunch(k.code, w.kernel.grid(), w.kernel.block(), w.kernel.shared(),
                    w.kernel.args(), w.kernel.cooperative(), k.paramLayout().sizes()));
        }
        return launches.isEmpty() ? null : d.backend.kernelSequence(launches);
    }

    /** A library call that a backend capture may hold: a cuBLAS GEMM (it only enqueues NVIDIA's kernels on its stream). */
    private static boolean capturable(Graph.Work w) {
        return w.onCaller && (w.kind.matches("cublas[A-Za-z]*[Gg]emm[A-Za-z0-9_]*") || w.kind.equals("cublasLtMatmul"));
    }

    /** Serializes the backend's captures (one private capture queue). */
    private final Object capturing = new Object();

    /**
     * The executable's plain kernel launches and cuBLAS GEMMs, in order, run once into the backend's capture (NVIDIA's
     * stream capture: NVIDIA's cuBLAS enqueues its kernels there), as one backend graph replayed whole; null where a
     * node is of another kind, the backend cannot capture, or the capture failed (the executable then runs as before).
     */
    private org.zludaj.driver.backend.Backend.KernelSequence captured(Graph.Exec e, Context c) throws CudaException {
        List<Graph.Work> work = new ArrayList<>();
        for (Graph.Exec.Step step : e.steps()) {
            Graph.Work w = step.work();
            if (w.type == Graph.EMPTY) continue;
            boolean kernel = w.type == Graph.KERNEL && w.kernel != null && !w.kernel.cooperative()
                    && step.node().attributesSet().isEmpty() && d.handles.peek(w.kernel.function()) instanceof Kernel;
            if (!kernel && !(w.type == Graph.OPERATION && capturable(w))) return null;
            work.add(w);
        }
        synchronized (capturing) {
            long queue = d.backend.beginCapture();
            if (queue == 0) return null;
            boolean ran = false;
            try {
                Stream.ofQueue(c, queue).runAs(() -> {
                    for (Graph.Work w : work) {
                        if (w.type == Graph.KERNEL) {
                            Kernel k = (Kernel) d.handles.peek(w.kernel.function());
                            d.backend.launch(k.code, w.kernel.grid(), w.kernel.block(), w.kernel.shared(), w.kernel.args(), 0, queue);
                        } else {
                            w.op.run();
                        }
                    }
                });
                ran = true;
            } catch (CudaException | RuntimeException x) {
                LOG.debug("a graph of {} kernels and cuBLAS calls not captured: {}", work.size(), x.toString());
            }
            org.zludaj.driver.backend.Backend.KernelSequence made = d.backend.endCapture(queue);
            if (!ran && made != null) {
                made.close();
                return null;
            }
            if (made != null) LOG.debug("a graph of {} kernels and cuBLAS calls captured as one backend graph", work.size());
            return made;
        }
    }

    /**
     * An executable's backend sequence takes changed kernel nodes in place (on NVIDIA GPUs its graph's nodes get new
     * parameters, as cuGraphExecUpdate does natively, instead of a new graph): the positions whose launch differs in
     * shape or argument bytes. False where a node is not a plain kernel of a known function.
     */
    boolean followSequence(org.zludaj.driver.backend.Backend.KernelSequence sequence, List<Graph.Work> before,
                           List<Graph.Work> after) throws CudaException {
        List<org.zludaj.driver.backend.Backend.SequencedLaunch> changed = new ArrayList<>();
        int[] positions = new int[after.size()];
        int at = 0, n = 0;
        for (int i = 0; i < after.size(); i++) {
            Graph.Work was = before.get(i), now = after.get(i);
            if (now.type == Graph.EMPTY && was.type == Graph.EMPTY) continue;
            if (now.type != Graph.KERNEL || was.type != Graph.KERNEL || now.kernel == null || was.kernel == null) return false;
            if (now != was && !sameLaunch(was.kernel, now.kernel)) {
                if (!(d.handles.peek(now.kernel.function()) instanceof Kernel k)) return false;
                positions[n++] = at;
                changed.add(new org.zludaj.driver.backend.Backend.SequencedLaunch(k.code, now.kernel.grid(), now.kernel.block(),
                        now.kernel.shared(), now.kernel.args(), now.kernel.cooperative(), k.paramLayout().sizes()));
            }
            at++;
        }
        return changed.isEmpty() || sequence.update(java.util.Arrays.copyOf(positions, n), changed);
    }

    /** Whether two kernel launches are the same: function, shape and the bytes of every argument. */
    private boolean sameLaunch(Graph.KernelParams a, Graph.KernelParams b) {
        if (!a.sameShape(b)) return false;
        if (a.args() == b.args()) return true;
        if (a.args() == 0 || b.args() == 0 || !(d.handles.peek(a.function()) instanceof Kernel k)) return false;
        Kernel.ParamLayout layout = k.paramLayout();
        long[] offsets = layout.offsets();
        int[] sizes = layout.sizes();
        for (int p = 0; p < sizes.length; p++) {
            long x = a.args() + offsets[p], y = b.args() + offsets[p];
            int size = sizes[p], j = 0;
            for (; j + 8 <= size; j += 8) if (HostRuntime.getLong(x + j) != HostRuntime.getLong(y + j)) return false;
            for (; j + 4 <= size; j += 4) if (HostRuntime.getInt(x + j) != HostRuntime.getInt(y + j)) return false;
            if (j < size && !java.util.Arrays.equals(HostRuntime.bytes(x + j, size - j), HostRuntime.bytes(y + j, size - j))) return false;
        }
        return true;
    }
}
