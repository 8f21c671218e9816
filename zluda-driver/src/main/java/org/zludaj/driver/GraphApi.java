package org.zludaj.driver;

import org.zludaj.api.CuGraphApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/**
 * Graphs (cuGraph*) as stream capture makes them: create, count nodes, instantiate, launch, update, destroy. The
 * explicit node-building functions are not implemented yet (CUDA_ERROR_NOT_SUPPORTED).
 */
final class GraphApi implements CuGraphApi {
    private final Driver d;
    private final StreamApi streams;

    GraphApi(Driver d) {
        this.d = d;
        this.streams = new StreamApi(d);
    }

    @Override
    public int cuGraphCreate(long phGraph, int flags) {
        return Api.call("cuGraphCreate", () -> {
            Mem.nonNull(phGraph, "phGraph");
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            HostRuntime.putLong(phGraph, d.handles.add(new Graph()));
        });
    }

    @Override
    public int cuGraphDestroy(long hGraph) {
        return Api.call("cuGraphDestroy", () -> {
            d.handles.get(hGraph, Graph.class).destroy();
            d.handles.remove(hGraph);
        });
    }

    /** With nodes NULL: the node count; otherwise up to *numNodes node handles. */
    @Override
    public int cuGraphGetNodes(long hGraph, long nodes, long numNodes) {
        return Api.call("cuGraphGetNodes", () -> {
            Graph g = d.handles.get(hGraph, Graph.class);
            Mem.nonNull(numNodes, "numNodes");
            var all = g.snapshot();
            if (nodes == 0) {
                HostRuntime.putLong(numNodes, all.size());
                return;
            }
            long n = Math.min(HostRuntime.getLong(numNodes), all.size());
            for (int i = 0; i < n; i++) {
                Graph.Node node = all.get(i);
                synchronized (node) {
                    if (node.handle == 0) node.handle = d.handles.add(node);
                }
                HostRuntime.putLong(nodes + 8L * i, node.handle);
            }
            HostRuntime.putLong(numNodes, n);
        });
    }

    private void instantiate(long phGraphExec, long hGraph, long flags) throws CudaException {
        Mem.nonNull(phGraphExec, "phGraphExec");
        Graph g = d.handles.get(hGraph, Graph.class);
        if ((flags & ~(1L | 8L)) != 0)  // AUTO_FREE_ON_LAUNCH and USE_NODE_PRIORITY change nothing here
            throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "instantiate flags " + flags);
        HostRuntime.putLong(phGraphExec, d.handles.add(new Graph.Exec(g.snapshot())));
    }

    @Override
    public int cuGraphInstantiateWithFlags(long phGraphExec, long hGraph, long flags) {
        return Api.call("cuGraphInstantiateWithFlags", () -> instantiate(phGraphExec, hGraph, flags));
    }

    @Override
    public int cuGraphInstantiate_v2(long phGraphExec, long hGraph, long phErrorNode, long logBuffer, long bufferSize) {
        return Api.call("cuGraphInstantiate", () -> {
            if (phErrorNode != 0) HostRuntime.putLong(phErrorNode, 0);
            if (logBuffer != 0 && bufferSize > 0) HostRuntime.write(logBuffer, new byte[] {0}, 0, 1);
            instantiate(phGraphExec, hGraph, 0);
        });
    }

    @Override
    public int cuGraphExecDestroy(long hGraphExec) {
        return Api.call("cuGraphExecDestroy", () -> {
            d.handles.get(hGraphExec, Graph.Exec.class).destroy();
            d.handles.remove(hGraphExec);
        });
    }

    /** The nodes run in their captured order on the stream, after its earlier work, like the original operations. */
    private int launch(long hGraphExec, long hStream, boolean ptds) {
        return Api.call("cuGraphLaunch", () -> {
            Graph.Exec e = d.handles.get(hGraphExec, Graph.Exec.class);
            Stream s = streams.resolve(hStream, ptds);
            var nodes = e.nodes();
            nodes.forEach(Graph.Node::retain);  // held until they ran, even if the executable is updated or destroyed
            for (Graph.Node n : nodes) {
                s.enqueue(n.kind, () -> {
                    try {
                        n.op.run();
                    } finally {
                        n.drop();
                    }
                }, null, null);
            }
        });
    }

    @Override public int cuGraphLaunch(long hGraphExec, long hStream) { return launch(hGraphExec, hStream, false); }
    @Override public int cuGraphLaunch_ptsz(long hGraphExec, long hStream) { return launch(hGraphExec, hStream, true); }

    /**
     * cuGraphExecUpdate: a graph with the same sequence of node kinds replaces the executable's nodes (new kernel
     * arguments, copy addresses); otherwise CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED. resultInfo: result (int) at 0,
     * errorNode at 8, errorFromNode at 16.
     */
    @Override
    public int cuGraphExecUpdate_v2(long hGraphExec, long hGraph, long resultInfo) {
        return Api.call("cuGraphExecUpdate", () -> {
            Graph.Exec e = d.handles.get(hGraphExec, Graph.Exec.class);
            Graph g = d.handles.get(hGraph, Graph.class);
            Mem.nonNull(resultInfo, "resultInfo");
            boolean ok = e.update(g.snapshot());
            HostRuntime.putInt(resultInfo, ok ? 0 : 2);
            HostRuntime.putLong(resultInfo + 8, 0);
            HostRuntime.putLong(resultInfo + 16, 0);
            if (!ok) throw new CudaException(CuResult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "the graph's topology differs");
        });
    }
}
