package org.zludaj.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A CUgraph built by stream capture (or created empty): the captured operations in order, a chain as one stream
 * produces it. Nodes are shared with the executable graphs instantiated from it and keep what they need (a launch's
 * copied arguments) until the last graph or executable holding them is destroyed.
 */
public final class Graph {
    /** A captured operation; {@code release} frees what it owns once no graph holds it. */
    static final class Node {
        final String kind;
        final Stream.Op op;
        private final Runnable release;
        private final AtomicInteger refs = new AtomicInteger(1);
        volatile long handle;

        Node(String kind, Stream.Op op, Runnable release) {
            this.kind = kind;
            this.op = op;
            this.release = release;
        }

        Node retain() {
            refs.incrementAndGet();
            return this;
        }

        void drop() {
            if (refs.decrementAndGet() == 0 && release != null) release.run();
        }
    }

    final List<Node> nodes = new ArrayList<>();

    synchronized void add(String kind, Stream.Op op, Runnable release) {
        nodes.add(new Node(kind, op, release));
    }

    synchronized List<Node> snapshot() {
        return new ArrayList<>(nodes);
    }

    synchronized void destroy() {
        nodes.forEach(Node::drop);
        nodes.clear();
    }

    /** A CUgraphExec: nodes to enqueue, in order, on the stream it is launched in. */
    static final class Exec {
        private List<Node> nodes;

        Exec(List<Node> nodes) {
            nodes.forEach(Node::retain);
            this.nodes = nodes;
        }

        synchronized List<Node> nodes() {
            return nodes;
        }

        /** cuGraphExecUpdate: the same sequence of kinds takes the new nodes (and their parameters). */
        synchronized boolean update(List<Node> next) {
            if (next.size() != nodes.size()) return false;
            for (int i = 0; i < next.size(); i++) if (!next.get(i).kind.equals(nodes.get(i).kind)) return false;
            next.forEach(Node::retain);
            nodes.forEach(Node::drop);
            nodes = next;
            return true;
        }

        synchronized void destroy() {
            nodes.forEach(Node::drop);
            nodes = List.of();
        }
    }
}
