package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The order a graph's executables run its nodes in (topological, creation order among independent nodes), and how an
 * executable's backend sequence follows cuGraphExecUpdate and cuGraphExecKernelNodeSetParams.
 */
class GraphTest {
    private static Graph.Node node(Graph g, String name, List<Graph.Node> deps) throws CudaException {
        return g.add(new Graph.Work("kernel " + name, Graph.KERNEL, () -> {}, null, null), deps);
    }

    @Test
    void aCapturedChainRunsInCreationOrder() throws CudaException {
        Graph g = new Graph();
        List<Graph.Node> deps = List.of();
        for (int i = 0; i < 1000; i++) deps = List.of(g.addCaptured("kernel k" + i, () -> {}, null, deps, null));
        assertEquals(g.nodes, g.ordered());
        assertEquals("kernel k999", g.ordered().get(999).work.kind);
    }

    /**
     * Captured work that is not a kernel, copy, memset or host function (a cuBLAS call, a stream write) is an
     * OPERATION that runs at every launch: typed EMPTY, as it once was, an executable's backend sequence of its
     * kernels left it out (on an H200, ggml's f16 GEMM replayed in 42 us of its 134 natively: cuBLAS never ran).
     * Only the work that merely orders is EMPTY. Applications are told KERNEL, as NVIDIA's cuBLAS captures kernels.
     */
    @Test
    void capturedLibraryWorkIsAnOperationNotAnEmptyNode() throws CudaException {
        for (String kind : List.of("cublasGemmEx", "cublasLtMatmul", "cuStreamWriteValue32", "cuStreamBatchMemOp", "cuMemFreeAsync"))
            assertEquals(Graph.OPERATION, Graph.typeOf(kind), kind);
        for (String kind : List.of("cuStreamWaitEvent", "cuStreamAttachMemAsync", "cuMemPrefetchAsync"))
            assertEquals(Graph.EMPTY, Graph.typeOf(kind), kind);
        assertEquals(Graph.KERNEL, Graph.typeOf("kernel k"));
        assertEquals(Graph.MEMCPY, Graph.typeOf("cuMemcpyHtoDAsync"));
        assertEquals(Graph.HOST, Graph.typeOf("host function"));
        assertEquals(Graph.KERNEL, Graph.reportedType(Graph.OPERATION));
        assertEquals(Graph.EMPTY, Graph.reportedType(Graph.EMPTY));
        Graph g = new Graph();
        AtomicInteger ran = new AtomicInteger();
        Graph.Node n = g.addCaptured("cublasGemmEx", ran::incrementAndGet, null, List.of(), null);
        assertEquals(Graph.OPERATION, n.work.type);
        n.work.op.run();
        assertEquals(1, ran.get());
    }

    @Test
    void otherGraphsRunInKahnsOrder() throws CudaException {
        Graph g = new Graph();
        Graph.Node a = node(g, "a", List.of()), b = node(g, "b", List.of(a)), c = node(g, "c", List.of());
        assertEquals(List.of(a, c, b), g.ordered(), "independent c before b, which waits for a");
        Graph d = new Graph();
        Graph.Node first = node(d, "first", List.of()), left = node(d, "left", List.of(first)), right = node(d, "right", List.of(first));
        Graph.Node join = node(d, "join", List.of(left, right));
        assertEquals(List.of(first, left, right, join), d.ordered());
        Graph late = new Graph();  // a dependency on a node made after it: not a chain in creation order
        Graph.Node x = node(late, "x", List.of()), y = node(late, "y", List.of());
        x.dependencies.add(y);
        assertEquals(List.of(y, x), late.ordered());
        y.dependencies.add(x);
        assertThrows(CudaException.class, late::ordered, "a cycle");
    }

    /** A backend sequence that counts its closes and answers updates as told. */
    private static final class FakeSequence implements org.zludaj.driver.backend.Backend.KernelSequence {
        int closed;

        @Override
        public void launch(long queue) {}

        @Override
        public void close() {
            closed++;
        }
    }

    private static List<Graph.Work> works(Graph g) {
        return g.nodes.stream().map(n -> n.work).toList();
    }

    /** A chain of captured kernels whose work counts its releases. */
    private static Graph chain(String[] kinds, AtomicInteger released) {
        Graph g = new Graph();
        List<Graph.Node> deps = List.of();
        for (String k : kinds) deps = List.of(g.addCaptured(k, () -> {}, released::incrementAndGet, deps, null));
        return g;
    }

    @Test
    void anUpdatedExecutableKeepsItsSequenceWhereTheBackendFollows() throws CudaException {
        AtomicInteger released = new AtomicInteger();
        String[] kinds = {"kernel a", "kernel b", "kernel a"};
        Graph g = chain(kinds, released), g2 = chain(kinds, released);
        Graph.Exec e = new Graph.Exec(g, 0);
        FakeSequence seq = new FakeSequence();
        e.sequence(x -> seq).release();  // made at a launch, which then ran
        List<List<Graph.Work>> seen = new ArrayList<>();
        Graph.Exec.SequenceUpdater follows = (s, before, after) -> {
            assertSame(seq, s);
            seen.add(before);
            seen.add(after);
            return true;
        };
        // from the graph it was made of: the same work on both sides, the sequence kept
        assertEquals(0, e.update(g.snapshot(), follows));
        assertEquals(List.of(works(g), works(g)), seen);
        assertEquals(0, seq.closed);
        // from another capture: the backend gets both, keeps the sequence; the old work is not released while g holds it
        seen.clear();
        assertEquals(0, e.update(g2.snapshot(), follows));
        assertEquals(List.of(works(g), works(g2)), seen);
        assertEquals(0, seq.closed);
        assertEquals(0, released.get());
        g.destroy();
        assertEquals(3, released.get(), "g's work, held by nothing else now");
        // a backend that cannot follow: the sequence is closed, made again at the next launch
        assertEquals(0, e.update(g2.snapshot(), (s, before, after) -> false));
        assertEquals(1, seq.closed);
        FakeSequence again = new FakeSequence();
        e.sequence(x -> again).release();
        // a launch still holds the sequence: the backend is not asked, the sequence closes when the launch lets go
        Graph.Exec.Sequence held = e.sequence(x -> { throw new AssertionError("made once"); });
        assertEquals(0, e.update(g2.snapshot(), (s, before, after) -> { throw new AssertionError("not asked"); }));
        assertEquals(0, again.closed);
        held.release();
        assertEquals(1, again.closed);
        // another sequence of kinds: topology changed, the executable unchanged
        AtomicInteger other = new AtomicInteger();
        Graph g3 = chain(new String[] {"kernel a", "kernel b"}, other);
        assertEquals(2, e.update(g3.snapshot(), follows));
        g3.destroy();
        assertEquals(2, other.get(), "the refused work released with its graph");
        e.destroy();
        g2.destroy();
        assertEquals(6, released.get(), "every work released once");
    }

    @Test
    void aNodeSetInTheExecutableIsFollowedOrRemade() throws CudaException {
        AtomicInteger released = new AtomicInteger();
        Graph g = chain(new String[] {"kernel a", "kernel b"}, released);
        Graph.Exec e = new Graph.Exec(g, 0);
        FakeSequence seq = new FakeSequence();
        e.sequence(x -> seq).release();
        Graph.Node second = g.nodes.get(1);
        AtomicInteger mine = new AtomicInteger();
        Graph.Work w = new Graph.Work("kernel b", Graph.KERNEL, () -> {}, mine::incrementAndGet, null);
        List<List<Graph.Work>> seen = new ArrayList<>();
        e.replace(second, w, (s, before, after) -> {
            seen.add(before);
            seen.add(after);
            return true;
        });
        assertSame(w, seen.get(1).get(1));
        assertSame(g.nodes.get(0).work, seen.get(1).get(0));
        assertEquals(0, seq.closed);
        assertFalse(e.work().contains(second.work));
        assertTrue(e.work().contains(w));
        e.destroy();
        assertEquals(1, mine.get(), "the executable's own work released with it");
        assertEquals(0, released.get(), "the graph's still held by it");
        g.destroy();
        assertEquals(2, released.get());
    }
}
