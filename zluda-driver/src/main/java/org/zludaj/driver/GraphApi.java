package org.zludaj.driver;

import org.zludaj.api.CuGraphApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/**
 * Graphs (cuGraph*): made by stream capture or node by node (kernel, memcpy, memset, host and empty nodes with their
 * dependencies), instantiated, launched, updated, destroyed; kernel node parameters read and changed. Child graphs,
 * event/memory-allocation nodes, conditional nodes and per-executable node changes are not supported yet.
 */
final class GraphApi implements CuGraphApi {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(GraphApi.class);

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
            Graph g = d.handles.get(hGraph, Graph.class);
            for (Graph.Node n : g.nodeList()) if (n.handle != 0) d.handles.remove(n.handle);
            g.destroy();
            d.handles.remove(hGraph);
        });
    }

    /** With nodes NULL: the node count; otherwise up to *numNodes node handles. */
    @Override
    public int cuGraphGetNodes(long hGraph, long nodes, long numNodes) {
        return Api.call("cuGraphGetNodes", () -> {
            Graph g = d.handles.get(hGraph, Graph.class);
            Mem.nonNull(numNodes, "numNodes");
            var all = g.nodeList();
            if (nodes == 0) {
                HostRuntime.putLong(numNodes, all.size());
                return;
            }
            long n = Math.min(HostRuntime.getLong(numNodes), all.size());
            for (int i = 0; i < n; i++) HostRuntime.putLong(nodes + 8L * i, handleOf(all.get(i)));
            HostRuntime.putLong(numNodes, n);
        });
    }

    /** The node's CUgraphNode, made when first asked for. */
    private long handleOf(Graph.Node node) {
        synchronized (node) {
            if (node.handle == 0) node.handle = d.handles.add(node);
            return node.handle;
        }
    }

    /** The nodes of a dependencies array. */
    private java.util.List<Graph.Node> dependencies(long array, long count) throws CudaException {
        if (count > 0) Mem.nonNull(array, "dependencies");
        var list = new java.util.ArrayList<Graph.Node>();
        for (long i = 0; i < count; i++) list.add(d.handles.get(HostRuntime.getLong(array + 8 * i), Graph.Node.class));
        return list;
    }

    private void addNode(long phGraphNode, long hGraph, long deps, long numDeps, Graph.Work work) throws CudaException {
        Mem.nonNull(phGraphNode, "phGraphNode");
        Graph g = d.handles.get(hGraph, Graph.class);
        Graph.Node n;
        try {
            n = g.add(work, dependencies(deps, numDeps));
        } catch (CudaException e) {
            work.drop();
            throw e;
        }
        HostRuntime.putLong(phGraphNode, handleOf(n));
    }

    /** A kernel node's work from CUDA_KERNEL_NODE_PARAMS (v2 has the CUkernel and context after the v1 fields). */
    private Graph.Work kernelWork(long p, boolean v2) throws CudaException {
        Mem.nonNull(p, "nodeParams");
        long func = HostRuntime.getLong(p);
        if (func == 0 && v2) func = HostRuntime.getLong(p + 56);  // kern
        Kernel k = d.handles.get(func, Kernel.class);
        Context c = v2 && HostRuntime.getLong(p + 64) != 0 ? d.context(HostRuntime.getLong(p + 64)) : d.requireCurrent();
        int[] grid = {HostRuntime.getInt(p + 8), HostRuntime.getInt(p + 12), HostRuntime.getInt(p + 16)};
        int[] block = {HostRuntime.getInt(p + 20), HostRuntime.getInt(p + 24), HostRuntime.getInt(p + 28)};
        int shared = HostRuntime.getInt(p + 32);
        LaunchApi.Prepared prep = new LaunchApi(d).prepare(c, k, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
                HostRuntime.getLong(p + 40), HostRuntime.getLong(p + 48));
        long args = prep.snapshot();
        return new Graph.Work("kernel " + k.code.name(), Graph.KERNEL, prep.op(), () -> HostRuntime.release(args),
                new Graph.KernelParams(func, grid, block, shared, args));
    }

    @Override
    public int cuGraphAddKernelNode_v2(long phGraphNode, long hGraph, long deps, long numDeps, long nodeParams) {
        return Api.call("cuGraphAddKernelNode", () -> addNode(phGraphNode, hGraph, deps, numDeps, kernelWork(nodeParams, true)));
    }

    @Override
    public int cuGraphAddKernelNode(long phGraphNode, long hGraph, long deps, long numDeps, long nodeParams) {
        return Api.call("cuGraphAddKernelNode", () -> addNode(phGraphNode, hGraph, deps, numDeps, kernelWork(nodeParams, false)));
    }

    @Override
    public int cuGraphAddMemcpyNode(long phGraphNode, long hGraph, long deps, long numDeps, long copyParams, long ctx) {
        return Api.call("cuGraphAddMemcpyNode", () -> {
            d.context(ctx);
            MemoryApi.Copy3D copy = new MemoryApi(d).read3D(copyParams);
            addNode(phGraphNode, hGraph, deps, numDeps, new Graph.Work("cuMemcpy3D", Graph.MEMCPY, copy.op(), null, null));
        });
    }

    /** CUDA_MEMSET_NODE_PARAMS {dst, pitch, value, elementSize, width, height}. */
    @Override
    public int cuGraphAddMemsetNode(long phGraphNode, long hGraph, long deps, long numDeps, long p, long ctx) {
        return Api.call("cuGraphAddMemsetNode", () -> {
            d.context(ctx);
            Mem.nonNull(p, "memsetParams");
            long dst = HostRuntime.getLong(p), pitch = HostRuntime.getLong(p + 8);
            int value = HostRuntime.getInt(p + 16), size = HostRuntime.getInt(p + 20);
            long width = HostRuntime.getLong(p + 24), height = HostRuntime.getLong(p + 32);
            if (size != 1 && size != 2 && size != 4) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "elementSize " + size);
            if (dst == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "dst is NULL");
            if (height > 1 && width * size > pitch) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "width exceeds the pitch");
            Stream.Op op = () -> {
                for (long y = 0; y < height; y++) d.backend.fill(dst + y * pitch, size, value, width);
            };
            addNode(phGraphNode, hGraph, deps, numDeps, new Graph.Work("cuMemset", Graph.MEMSET, op, null, null));
        });
    }

    /** CUDA_HOST_NODE_PARAMS {fn, userData}: the function runs on a stream thread in the node's turn. */
    @Override
    public int cuGraphAddHostNode(long phGraphNode, long hGraph, long deps, long numDeps, long p) {
        return Api.call("cuGraphAddHostNode", () -> {
            Mem.nonNull(p, "nodeParams");
            long fn = HostRuntime.getLong(p), userData = HostRuntime.getLong(p + 8);
            Mem.nonNull(fn, "fn");
            addNode(phGraphNode, hGraph, deps, numDeps,
                    new Graph.Work("host function", Graph.HOST, () -> {
                        d.backend.fence(Stream.runningQueueIfAny());
                        HostRuntime.callHostFunction(fn, userData);
                    }, null, null));
        });
    }

    @Override
    public int cuGraphAddEmptyNode(long phGraphNode, long hGraph, long deps, long numDeps) {
        return Api.call("cuGraphAddEmptyNode", () -> addNode(phGraphNode, hGraph, deps, numDeps, new Graph.Work("empty", Graph.EMPTY, () -> {}, null, null)));
    }

    /** The child graph is copied (later changes to it do not reach the node); its work runs in the node's turn. */
    @Override
    public int cuGraphAddChildGraphNode(long phGraphNode, long hGraph, long deps, long numDeps, long childGraph) {
        return Api.call("cuGraphAddChildGraphNode", () -> {
            Graph child = d.handles.get(childGraph, Graph.class).copy();
            java.util.List<Graph.Work> order;
            try {
                order = child.snapshot();
            } catch (CudaException e) {
                child.destroy();
                throw e;
            }
            for (Graph.Work w : order) {
                if (w.type == Graph.EVENT_RECORD || w.type == Graph.EVENT_WAIT || w.type == Graph.MEM_ALLOC || w.type == Graph.MEM_FREE) {
                    order.forEach(Graph.Work::drop);
                    child.destroy();
                    throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "event and memory nodes inside a child graph");
                }
            }
            Graph.Work[] self = new Graph.Work[1];
            Graph.Work work = new Graph.Work("child graph", Graph.CHILD, () -> {
                for (Graph.Work w : order) w.op.run();
            }, () -> {
                order.forEach(Graph.Work::drop);
                child.destroy();
                if (self[0].address != 0) d.handles.remove(self[0].address);
            }, null);
            self[0] = work;
            work.child = child;
            addNode(phGraphNode, hGraph, deps, numDeps, work);
        });
    }

    @Override
    public int cuGraphChildGraphNodeGetGraph(long hNode, long phGraph) {
        return Api.call("cuGraphChildGraphNodeGetGraph", () -> {
            Graph.Work w = work(hNode, Graph.CHILD, "a child graph node");
            Mem.nonNull(phGraph, "phGraph");
            synchronized (w) {
                if (w.address == 0) w.address = d.handles.add(w.child);  // the graph it holds, owned by the node
            }
            HostRuntime.putLong(phGraph, w.address);
        });
    }

    /** The node's current work, which must be of {@code type}. */
    private Graph.Work work(long hNode, int type, String what) throws CudaException {
        Graph.Work w = d.handles.get(hNode, Graph.Node.class).work;
        if (w.type != type) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not " + what);
        return w;
    }

    private Graph.Work eventWork(long hEvent, boolean record) throws CudaException {
        Event e = d.handles.get(hEvent, Event.class);
        Graph.Work w = record
                ? new Graph.Work("event record", Graph.EVENT_RECORD, () -> {
                    d.backend.fence(Stream.runningQueueIfAny());
                    e.recordedNanos = System.nanoTime();
                }, null, null)
                : new Graph.Work("event wait", Graph.EVENT_WAIT, () -> {}, null, null);
        w.event = e;
        w.address = hEvent;  // the handle, for cuGraphEvent*NodeGetEvent
        return w;
    }

    @Override
    public int cuGraphAddEventRecordNode(long phGraphNode, long hGraph, long deps, long numDeps, long event) {
        return Api.call("cuGraphAddEventRecordNode", () -> addNode(phGraphNode, hGraph, deps, numDeps, eventWork(event, true)));
    }

    @Override
    public int cuGraphAddEventWaitNode(long phGraphNode, long hGraph, long deps, long numDeps, long event) {
        return Api.call("cuGraphAddEventWaitNode", () -> addNode(phGraphNode, hGraph, deps, numDeps, eventWork(event, false)));
    }

    private int eventOf(String name, long hNode, long eventOut, int type) {
        return Api.call(name, () -> {
            Graph.Work w = work(hNode, type, type == Graph.EVENT_RECORD ? "an event record node" : "an event wait node");
            Mem.nonNull(eventOut, "event_out");
            HostRuntime.putLong(eventOut, w.address);
        });
    }

    @Override public int cuGraphEventRecordNodeGetEvent(long n, long out) { return eventOf("cuGraphEventRecordNodeGetEvent", n, out, Graph.EVENT_RECORD); }
    @Override public int cuGraphEventWaitNodeGetEvent(long n, long out) { return eventOf("cuGraphEventWaitNodeGetEvent", n, out, Graph.EVENT_WAIT); }

    /** CUDA_MEM_ALLOC_NODE_PARAMS: poolProps (88 bytes), accessDescs, accessDescCount, bytesize @104, dptr @112 (out). */
    static final int ALLOC_PARAMS_BYTES = 120;

    /**
     * The memory is allocated when the node is added (its address is fixed for the graph, as NVIDIA's is) and stays
     * until a free node's graph or the application (cuMemFree) frees it.
     */
    @Override
    public int cuGraphAddMemAllocNode(long phGraphNode, long hGraph, long deps, long numDeps, long nodeParams) {
        return Api.call("cuGraphAddMemAllocNode", () -> {
            Mem.nonNull(nodeParams, "nodeParams");
            long bytes = HostRuntime.getLong(nodeParams + 104);
            int locationType = HostRuntime.getInt(nodeParams + 8), device = HostRuntime.getInt(nodeParams + 12);
            if (bytes == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "bytesize is 0");
            if (locationType != 1 || device < 0 || device >= d.devices().size())
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "poolProps.location must be a device");
            d.requireCurrent();
            long p = d.backend.allocate(device, bytes);
            d.deviceMemory.put(p, bytes);
            HostRuntime.putLong(nodeParams + 112, p);
            Graph.Work w = new Graph.Work("memory alloc", Graph.MEM_ALLOC, () -> {}, null, null);
            w.address = p;
            w.bytes = bytes;
            w.allocParams = new byte[ALLOC_PARAMS_BYTES];
            HostRuntime.read(nodeParams, w.allocParams, 0, ALLOC_PARAMS_BYTES);
            addNode(phGraphNode, hGraph, deps, numDeps, w);
        });
    }

    @Override
    public int cuGraphMemAllocNodeGetParams(long hNode, long paramsOut) {
        return Api.call("cuGraphMemAllocNodeGetParams", () -> {
            Graph.Work w = work(hNode, Graph.MEM_ALLOC, "a memory alloc node");
            Mem.nonNull(paramsOut, "params_out");
            HostRuntime.write(paramsOut, w.allocParams, 0, ALLOC_PARAMS_BYTES);
        });
    }

    /** The allocation is freed when the last graph or executable holding the node is destroyed. */
    @Override
    public int cuGraphAddMemFreeNode(long phGraphNode, long hGraph, long deps, long numDeps, long dptr) {
        return Api.call("cuGraphAddMemFreeNode", () -> {
            if (!d.deviceMemory.containsKey(dptr)) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "dptr is not an allocation");
            Graph.Work w = new Graph.Work("memory free", Graph.MEM_FREE, () -> {}, () -> {
                if (d.deviceMemory.remove(dptr) != null) {
                    try {
                        d.backend.free(dptr);
                    } catch (CudaException e) {
                        LOG.warn("freeing graph memory {}: {}", Long.toHexString(dptr), e.getMessage());
                    }
                }
            }, null);
            w.address = dptr;
            addNode(phGraphNode, hGraph, deps, numDeps, w);
        });
    }

    @Override
    public int cuGraphMemFreeNodeGetParams(long hNode, long dptrOut) {
        return Api.call("cuGraphMemFreeNodeGetParams", () -> {
            Graph.Work w = work(hNode, Graph.MEM_FREE, "a memory free node");
            Mem.nonNull(dptrOut, "dptr_out");
            HostRuntime.putLong(dptrOut, w.address);
        });
    }

    @Override
    public int cuGraphNodeGetType(long hNode, long type) {
        return Api.call("cuGraphNodeGetType", () -> Mem.putInt(type, d.handles.get(hNode, Graph.Node.class).work.type, "type"));
    }

    private int addDependencies(long hGraph, long from, long to, long count) {
        return Api.call("cuGraphAddDependencies", () -> {
            Graph g = d.handles.get(hGraph, Graph.class);
            var froms = dependencies(from, count);
            var tos = dependencies(to, count);
            synchronized (g) {
                for (int i = 0; i < froms.size(); i++) {
                    if (froms.get(i).graph != g || tos.get(i).graph != g) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "a node of another graph");
                    if (!tos.get(i).dependencies.contains(froms.get(i))) tos.get(i).dependencies.add(froms.get(i));
                }
            }
        });
    }

    @Override public int cuGraphAddDependencies(long g, long from, long to, long n) { return addDependencies(g, from, to, n); }

    @Override
    public int cuGraphAddDependencies_v2(long g, long from, long to, long edgeData, long n) {
        return edgeData != 0 ? Api.call("cuGraphAddDependencies", () -> {
            throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "edge data");
        }) : addDependencies(g, from, to, n);
    }

    @Override
    public int cuGraphNodeGetDependencies(long hNode, long deps, long numDeps) {
        return Api.call("cuGraphNodeGetDependencies", () -> {
            Graph.Node node = d.handles.get(hNode, Graph.Node.class);
            Mem.nonNull(numDeps, "numDependencies");
            java.util.List<Graph.Node> list;
            synchronized (node.graph) {
                list = new java.util.ArrayList<>(node.dependencies);
            }
            if (deps == 0) {
                HostRuntime.putLong(numDeps, list.size());
                return;
            }
            long n = Math.min(HostRuntime.getLong(numDeps), list.size());
            for (int i = 0; i < n; i++) HostRuntime.putLong(deps + 8L * i, handleOf(list.get(i)));
            HostRuntime.putLong(numDeps, n);
        });
    }

    /** The kernel node's parameters; kernelParams points to the node's own copy of the arguments (valid while it lives). */
    private int kernelGetParams(long hNode, long p, boolean v2) {
        return Api.call("cuGraphKernelNodeGetParams", () -> {
            Graph.Node node = d.handles.get(hNode, Graph.Node.class);
            Graph.KernelParams k = node.work.kernel;
            if (k == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a kernel node made by cuGraphAddKernelNode");
            Mem.nonNull(p, "nodeParams");
            HostRuntime.write(p, new byte[v2 ? 72 : 56], 0, v2 ? 72 : 56);
            HostRuntime.putLong(p, k.function());
            for (int i = 0; i < 3; i++) {
                HostRuntime.putInt(p + 8 + 4 * i, k.grid()[i]);
                HostRuntime.putInt(p + 20 + 4 * i, k.block()[i]);
            }
            HostRuntime.putInt(p + 32, k.shared());
            HostRuntime.putLong(p + 40, k.args());
        });
    }

    @Override public int cuGraphKernelNodeGetParams_v2(long hNode, long p) { return kernelGetParams(hNode, p, true); }
    @Override public int cuGraphKernelNodeGetParams(long hNode, long p) { return kernelGetParams(hNode, p, false); }

    /** New parameters for the node; graphs instantiated before keep the old ones (cuGraphExecUpdate takes the new). */
    private int kernelSetParams(long hNode, long p, boolean v2) {
        return Api.call("cuGraphKernelNodeSetParams", () -> {
            Graph.Node node = d.handles.get(hNode, Graph.Node.class);
            if (node.work.type != Graph.KERNEL) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a kernel node");
            Graph.Work w = kernelWork(p, v2);
            synchronized (node.graph) {
                node.replace(w);
            }
        });
    }

    @Override public int cuGraphKernelNodeSetParams_v2(long hNode, long p) { return kernelSetParams(hNode, p, true); }
    @Override public int cuGraphKernelNodeSetParams(long hNode, long p) { return kernelSetParams(hNode, p, false); }

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
            var work = e.work();
            work.forEach(Graph.Work::retain);  // held until they ran, even if the executable is updated or destroyed
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
        });
    }

    /** Nothing to upload: the host holds everything an executable needs. Checked and ordered like a launch. */
    private int upload(long hGraphExec, long hStream, boolean ptsz) {
        return Api.call("cuGraphUpload", () -> {
            d.handles.get(hGraphExec, Graph.Exec.class);
            streams.resolve(hStream, ptsz).enqueue("cuGraphUpload", () -> {}, null, null);
        });
    }

    @Override public int cuGraphUpload(long hGraphExec, long hStream) { return upload(hGraphExec, hStream, false); }
    @Override public int cuGraphUpload_ptsz(long hGraphExec, long hStream) { return upload(hGraphExec, hStream, true); }

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
