package org.zludaj.driver;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A CUgraph: nodes with dependencies, made by stream capture (a chain, as one stream produces it) or by the explicit
 * cuGraphAdd*Node functions. A node's work (the operation and what it owns, such as a launch's copied arguments) is
 * shared with the executable graphs instantiated from it and freed when the last graph or executable holding it is
 * destroyed; changing a node's parameters gives it new work and leaves instantiated executables as they were.
 * Executables run their work in a topological order of the dependencies, on the stream they are launched in.
 */
public final class Graph {
    /** CUgraphNodeType values. */
    static final int KERNEL = 0, MEMCPY = 1, MEMSET = 2, HOST = 3, CHILD = 4, EMPTY = 5, EVENT_WAIT = 6, EVENT_RECORD = 7,
            MEM_ALLOC = 10, MEM_FREE = 11;
    /**
     * Ours, not NVIDIA's: captured work of another kind that must run in its turn at every launch, above all the CUDA
     * libraries' (a cuBLAS GEMM; NVIDIA's cuBLAS captures kernels, so the application is told KERNEL: {@link #reportedType}).
     * Never a plain kernel launch: an executable that holds one runs node by node, not as one backend sequence.
     */
    static final int OPERATION = 100;

    /** The CUgraphNodeType an application is told for a node of {@code type}. */
    static int reportedType(int type) {
        return type == OPERATION ? KERNEL : type;
    }

    /**
     * A kernel node's parameters, as cuGraphKernelNodeGetParams returns them (args: the node's copy); cooperative: a
     * captured cooperative launch (its node has the COOPERATIVE attribute).
     */
    record KernelParams(long function, int gx, int gy, int gz, int bx, int by, int bz, int shared, long args, boolean cooperative) {
        KernelParams(long function, int[] grid, int[] block, int shared, long args, boolean cooperative) {
            this(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, args, cooperative);
        }

        int[] grid() {
            return new int[] {gx, gy, gz};
        }

        int[] block() {
            return new int[] {bx, by, bz};
        }

        /** Whether {@code o} is the same launch shape (function, grid, block, shared memory, cooperative). */
        boolean sameShape(KernelParams o) {
            return function == o.function && gx == o.gx && gy == o.gy && gz == o.gz && bx == o.bx && by == o.by && bz == o.bz
                    && shared == o.shared && cooperative == o.cooperative;
        }
    }

    /** CU_LAUNCH_ATTRIBUTE_COOPERATIVE (CUkernelNodeAttrValue's int member). */
    static final int ATTRIBUTE_COOPERATIVE = 2;

    /** What a node does; {@code release} frees what it owns once no graph or executable holds it. */
    static final class Work {
        final String kind;
        final int type;
        final Stream.Op op;
        final KernelParams kernel;
        /** Event record and wait nodes: their event (a launch records it, or waits for its latest record). */
        volatile Event event;
        /** Child graph nodes: the graph (a copy of the child when the node was added). */
        Graph child;
        /**
         * Memory alloc and free nodes: the address (event nodes: the event's handle; child graph nodes: the child's
         * handle once asked for); alloc nodes also the size and their CUDA_MEM_ALLOC_NODE_PARAMS bytes.
         */
        long address, bytes;
        byte[] allocParams;
        /** Memcpy, memset and host nodes: their parameters as given (CUDA_MEMCPY3D, CUDA_MEMSET_NODE_PARAMS, CUDA_HOST_NODE_PARAMS). */
        byte[] params;
        private final Runnable release;
        /**
         * Captured through {@link Stream#submit} (a library's call): work that a launch may run on the caller's
         * thread, as the call itself could (see GraphApi's launch).
         */
        volatile boolean onCaller;
        /** References held by graphs, executables and launches not yet run (a field, not an object: a captured launch
         * of ggml's makes 65,520 of these at once). */
        private volatile int refs = 1;
        private static final java.util.concurrent.atomic.AtomicIntegerFieldUpdater<Work> REFS =
                java.util.concurrent.atomic.AtomicIntegerFieldUpdater.newUpdater(Work.class, "refs");

        Work(String kind, int type, Stream.Op op, Runnable release, KernelParams kernel) {
            this.kind = kind;
            this.type = type;
            this.op = op;
            this.release = release;
            this.kernel = kernel;
        }

        Work retain() {
            REFS.incrementAndGet(this);
            return this;
        }

        void drop() {
            if (REFS.decrementAndGet(this) == 0 && release != null) release.run();
        }
    }

    /** The 64-byte CUkernelNodeAttrValue of the COOPERATIVE attribute. */
    static byte[] cooperativeValue(boolean on) {
        byte[] v = new byte[64];
        v[0] = (byte) (on ? 1 : 0);
        return v;
    }

    /** Whether a kernel node's attributes make it a cooperative launch (COOPERATIVE set to a non-zero value). */
    static boolean cooperative(Map<Integer, byte[]> attributes) {
        byte[] v = attributes.get(ATTRIBUTE_COOPERATIVE);
        return v != null && (v[0] | v[1] | v[2] | v[3]) != 0;
    }

    /** A CUgraphNode: its current work and the nodes it depends on. */
    static final class Node {
        volatile Work work;
        final List<Node> dependencies;
        final Graph graph;
        volatile long handle;
        /** Kernel nodes: launch attributes set on the node (CUkernelNodeAttrValue members by attribute id), once one is. */
        private volatile Map<Integer, byte[]> attributes;

        Node(Graph graph, Work work) {
            this(graph, work, List.of());
        }

        /** A node after {@code dependencies} (held in a list of their size: a capture makes one node per operation). */
        Node(Graph graph, Work work, List<Node> dependencies) {
            this.graph = graph;
            this.work = work;
            this.dependencies = new ArrayList<>(dependencies);
        }

        /** The node's launch attributes, to change (made at the first). */
        synchronized Map<Integer, byte[]> attributes() {
            if (attributes == null) attributes = new java.util.concurrent.ConcurrentHashMap<>();
            return attributes;
        }

        /** The node's launch attributes as they are (empty where none was set). */
        Map<Integer, byte[]> attributesSet() {
            Map<Integer, byte[]> a = attributes;
            return a == null ? Map.of() : a;
        }

        /** The node's CUgraphNode, made when first asked for. */
        synchronized long handle(Handles handles) {
            if (handle == 0) handle = handles.add(this);
            return handle;
        }

        /** New work for the node (cuGraph*NodeSetParams); executables keep the old one. */
        void replace(Work w) {
            Work old = work;
            work = w;
            old.drop();
        }
    }

    final List<Node> nodes = new ArrayList<>();
    /** A clone's nodes: the original node of each (cuGraphNodeFindInClone). */
    final Map<Node, Node> clonedFrom = new HashMap<>();
    /** User objects the graph holds references to, with their counts (cuGraphRetainUserObject). */
    final Map<UserObject, Integer> userObjects = new HashMap<>();

    /**
     * A CUuserObject: a pointer and its destructor, called once the last reference (the application's, graphs' and
     * executables') is released.
     */
    static final class UserObject {
        final long ptr, destroy;
        private final AtomicInteger refs;

        UserObject(long ptr, long destroy, int initial) {
            this.ptr = ptr;
            this.destroy = destroy;
            this.refs = new AtomicInteger(initial);
        }

        void retain(int count) {
            refs.addAndGet(count);
        }

        /** True when this released the last reference (the destructor has then run). */
        boolean release(int count) {
            if (refs.addAndGet(-count) != 0) return false;
            org.zludaj.nativ.HostRuntime.callHostFunction(destroy, ptr);
            return true;
        }
    }

    /** Releases the graph's user object references (when it is destroyed). */
    synchronized void releaseUserObjects() {
        userObjects.forEach((o, n) -> o.release(n));
        userObjects.clear();
    }

    /** Removes a node and every edge to it; its work is dropped. */
    synchronized void remove(Node n) {
        nodes.remove(n);
        for (Node other : nodes) other.dependencies.removeIf(x -> x == n);
        n.work.drop();
    }

    /** The nodes that depend on {@code n}. */
    synchronized List<Node> dependents(Node n) {
        List<Node> out = new ArrayList<>();
        for (Node other : nodes) if (other.dependencies.contains(n)) out.add(other);
        return out;
    }

    /**
     * The node type of captured work by its kind: EMPTY only for what does nothing but order (a wait for an event, a
     * prefetch or attachment hint); other work (a library's call, a batch of memory operations) runs at every launch.
     */
    static int typeOf(String kind) {
        if (kind.startsWith("kernel")) return KERNEL;
        if (kind.contains("Memcpy")) return MEMCPY;
        if (kind.contains("Memset")) return MEMSET;
        if (kind.startsWith("host")) return HOST;
        return switch (kind) {
            case "cuStreamWaitEvent", "cuStreamAttachMemAsync", "cuMemPrefetchAsync", "cuGraphUpload" -> EMPTY;
            default -> OPERATION;
        };
    }

    /** Stream capture: the operation depends on the capturing stream's current dependencies. */
    synchronized Node addCaptured(String kind, Stream.Op op, Runnable release, List<Node> dependencies, KernelParams kernel) {
        Node n = new Node(this, new Work(kind, typeOf(kind), op, release, kernel), dependencies);
        if (kernel != null && kernel.cooperative()) n.attributes().put(ATTRIBUTE_COOPERATIVE, cooperativeValue(true));
        nodes.add(n);
        return n;
    }

    /** An explicit node after {@code dependencies} (nodes of this graph). */
    synchronized Node add(Work work, List<Node> dependencies) throws CudaException {
        for (Node dep : dependencies)
            if (dep.graph != this) throw new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_INVALID_VALUE, "a dependency belongs to another graph");
        Node n = new Node(this, work, dependencies);
        nodes.add(n);
        return n;
    }

    synchronized List<Node> nodeList() {
        return new ArrayList<>(nodes);
    }

    /** The nodes' work in a topological order (creation order among independent nodes), each retained once. */
    synchronized List<Work> snapshot() throws CudaException {
        List<Work> order = new ArrayList<>();
        for (Node n : ordered()) order.add(n.work);
        order.forEach(Work::retain);
        return order;
    }

    /** The nodes in a topological order (creation order among independent nodes). */
    synchronized List<Node> ordered() throws CudaException {
        if (chain()) return new ArrayList<>(nodes);  // what the general order below gives a chain, without its maps
        Map<Node, Integer> waiting = new HashMap<>();
        Map<Node, List<Node>> dependents = new HashMap<>();
        for (Node n : nodes) {
            waiting.put(n, n.dependencies.size());
            for (Node dep : n.dependencies) dependents.computeIfAbsent(dep, k -> new ArrayList<>()).add(n);
        }
        List<Node> order = new ArrayList<>();
        ArrayDeque<Node> ready = new ArrayDeque<>();
        for (Node n : nodes) if (waiting.get(n) == 0) ready.add(n);
        while (!ready.isEmpty()) {
            Node n = ready.poll();
            order.add(n);
            for (Node next : dependents.getOrDefault(n, List.of()))
                if (waiting.merge(next, -1, Integer::sum) == 0) ready.add(next);
        }
        if (order.size() != nodes.size())
            throw new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_INVALID_VALUE, "the graph's dependencies form a cycle");
        return order;
    }

    /**
     * Whether the nodes form one chain in creation order, each after the one before (what a stream capture makes: a
     * graph of 65,520 captured launches took 69 ms to instantiate and 91 to update with the maps of the general order).
     */
    private boolean chain() {
        for (int i = 0; i < nodes.size(); i++) {
            List<Node> deps = nodes.get(i).dependencies;
            if (i == 0 ? !deps.isEmpty() : deps.size() != 1 || deps.get(0) != nodes.get(i - 1)) return false;
        }
        return true;
    }

    synchronized void destroy() {
        nodes.forEach(n -> n.work.drop());
        nodes.clear();
        releaseUserObjects();
    }

    /** A copy (cuGraphAddChildGraphNode, cuGraphClone): the same work, retained, with the same dependencies. */
    synchronized Graph copy() {
        Graph g = new Graph();
        Map<Node, Node> map = new HashMap<>();
        for (Node n : nodes) {
            Node c = new Node(g, n.work.retain());
            if (!n.attributesSet().isEmpty()) c.attributes().putAll(n.attributesSet());
            map.put(n, c);
            g.nodes.add(c);
            g.clonedFrom.put(c, n);
        }
        for (Node n : nodes) for (Node dep : n.dependencies) map.get(n).dependencies.add(map.get(dep));
        return g;
    }

    /**
     * A CUgraphExec: work to enqueue, in order, on the stream it is launched in; the graph's node at each position
     * (for the per-executable changes cuGraphExec*SetParams and cuGraphNodeSetEnabled), the instantiation flags, and
     * references to the graph's user objects.
     */
    static final class Exec {
        private List<Work> work;
        private final List<Node> nodes;
        private final boolean[] disabled;
        final long flags;
        private final Map<UserObject, Integer> userObjects;

        /** Takes the (retained) work of the graph's nodes, in the order of {@link Graph#ordered}. */
        Exec(Graph g, long flags) throws CudaException {
            synchronized (g) {
                this.nodes = g.ordered();
                List<Work> w = new ArrayList<>(nodes.size());
                for (Node n : nodes) w.add(n.work.retain());
                this.work = w;
                this.userObjects = new HashMap<>(g.userObjects);
            }
            userObjects.keySet().forEach(o -> o.retain(1));  // one reference each while the executable lives
            this.disabled = new boolean[nodes.size()];
            this.flags = flags;
        }

        /** A node of the executable and its work there. */
        record Step(Node node, Work work) {}

        /** The enabled nodes, in order, with their work in this executable. */
        synchronized List<Step> steps() {
            List<Step> out = new ArrayList<>();
            for (int i = 0; i < work.size(); i++) if (!disabled[i]) out.add(new Step(nodes.get(i), work.get(i)));
            return out;
        }

        /**
         * The executable as one submission of the backend (a {@link org.zludaj.driver.backend.Backend.KernelSequence}),
         * made by {@code make} at the first launch that asks and kept until the executable changes; null where it has
         * none. The caller holds a reference until its launch ran ({@link Sequence#release}).
         */
        synchronized Sequence sequence(SequenceMaker make) throws CudaException {
            launchesSinceChange++;
            if (!sequenceTried) {
                askAgain = false;
                var made = make.make(this);
                sequenceTried = !askAgain;
                sequence = made == null ? null : new Sequence(made);
            }
            if (sequence != null) sequence.retain();
            return sequence;
        }

        @FunctionalInterface
        interface SequenceMaker {
            org.zludaj.driver.backend.Backend.KernelSequence make(Exec e) throws CudaException;
        }

        /** A backend sequence shared by the executable and the launches not yet run; closed with the last of them. */
        static final class Sequence {
            final org.zludaj.driver.backend.Backend.KernelSequence launches;
            private int refs = 1;

            Sequence(org.zludaj.driver.backend.Backend.KernelSequence launches) {
                this.launches = launches;
            }

            synchronized void retain() {
                refs++;
            }

            synchronized void release() {
                if (--refs == 0) launches.close();
            }

            /** Whether only the executable holds it (no launch of it waits to be submitted). */
            synchronized boolean alone() {
                return refs == 1;
            }
        }

        private Sequence sequence;
        private boolean sequenceTried, askAgain;
        /** Launches that asked for the sequence since the executable was made or last changed (this one included). */
        private int launchesSinceChange;

        /** How many launches asked for the sequence since the executable last changed, the asking one included. */
        synchronized int launchesSinceChange() {
            return launchesSinceChange;
        }

        /** Said by a {@link SequenceMaker} that made none now but may at a later launch (none is kept until then). */
        synchronized void askAgainLater() {
            askAgain = true;
        }

        /** The executable changed: its sequence is made again at the next launch. */
        private void forgetSequence() {
            if (sequence != null) sequence.release();
            sequence = null;
            sequenceTried = false;
            launchesSinceChange = 0;
        }

        synchronized List<Work> work() {
            List<Work> out = new ArrayList<>();
            for (int i = 0; i < work.size(); i++) if (!disabled[i]) out.add(work.get(i));
            return out;
        }

        /** The position of the graph's node {@code n} in this executable. */
        synchronized int indexOf(Node n) throws CudaException {
            int i = nodes.indexOf(n);
            if (i < 0) throw new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_INVALID_VALUE, "the node is not in the graph the executable was made of");
            return i;
        }

        /**
         * Gives the executable's copy of a node new work (the graph's node keeps its own); {@code follow} makes the
         * backend sequence take it in place where it can.
         */
        synchronized void replace(Node n, Work w, SequenceUpdater follow) throws CudaException {
            int i;
            try {
                i = indexOf(n);
            } catch (CudaException e) {
                w.drop();
                throw e;
            }
            if (work.get(i).type != w.type) {
                w.drop();
                throw new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_INVALID_VALUE, "the node's type cannot change");
            }
            List<Work> next = new ArrayList<>(work);
            for (Work kept : next) kept.retain();  // take drops the old list's references
            next.set(i, w).drop();
            take(next, follow);
        }

        /**
         * The executable's work becomes {@code next} (as many, of the same kinds); the old work is dropped. The backend
         * sequence follows in place where nothing launched holds it and {@code follow} can change it; else it is made
         * again at the next launch.
         */
        private void take(List<Work> next, SequenceUpdater follow) {
            List<Work> before = work;
            boolean kept = false;
            try {
                kept = sequence != null && sequence.alone() && follow.update(sequence.launches, enabled(before), enabled(next));
            } catch (CudaException | RuntimeException e) {
                kept = false;  // the sequence is made again at the next launch, which reports what is wrong
            }
            work = next;
            if (!kept) forgetSequence();
            for (int i = 0; i < before.size(); i++) before.get(i).drop();
        }

        private List<Work> enabled(List<Work> all) {
            List<Work> out = new ArrayList<>(all.size());
            for (int i = 0; i < all.size(); i++) if (!disabled[i]) out.add(all.get(i));
            return out;
        }

        /**
         * Makes a backend sequence take changed work in place: {@code before} and {@code after} the executable's
         * enabled work, position by position of the same kinds; false where it cannot (the sequence is made again).
         */
        @FunctionalInterface
        interface SequenceUpdater {
            boolean update(org.zludaj.driver.backend.Backend.KernelSequence sequence, List<Work> before, List<Work> after)
                    throws CudaException;
        }

        synchronized void enable(Node n, boolean enabled) throws CudaException {
            disabled[indexOf(n)] = !enabled;
            forgetSequence();
        }

        synchronized boolean enabled(Node n) throws CudaException {
            return !disabled[indexOf(n)];
        }

        /**
         * cuGraphExecUpdate: the same sequence of kinds takes the new work (and its parameters; the backend sequence
         * follows in place where {@code follow} can); else drops it. The CUgraphExecUpdateResult: 0 success, 2
         * topology changed, 6 not supported (memory nodes, as NVIDIA answers).
         */
        synchronized int update(List<Work> next, SequenceUpdater follow) throws CudaException {
            boolean memory = false;
            for (Work w : work) memory |= w.type == MEM_ALLOC || w.type == MEM_FREE;
            for (Work w : next) memory |= w.type == MEM_ALLOC || w.type == MEM_FREE;
            boolean same = !memory && next.size() == work.size();
            for (int i = 0; same && i < next.size(); i++) same = next.get(i).kind.equals(work.get(i).kind);
            if (!same) {
                next.forEach(Work::drop);
                return memory ? 6 : 2;
            }
            take(next, follow);
            return 0;
        }

        synchronized void destroy() {
            forgetSequence();
            work.forEach(Work::drop);
            work = List.of();
            userObjects.forEach((o, count) -> o.release(1));
            userObjects.clear();
        }
    }
}
