package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The order a graph's executables run its nodes in: topological, creation order among independent nodes. */
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
}
