package org.zludaj.driver;

import java.util.ArrayList;
import java.util.List;
import org.zludaj.api.CuGraphApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/**
 * Graphs (cuGraph*): made by stream capture or node by node (kernel, memcpy, memset, host, empty, child graph, event
 * record/wait, memory alloc/free nodes, also through the generic cuGraphAddNode), inspected (nodes, edges, roots,
 * dependents, parameters, DOT output), changed (parameters, edges, node removal, clones), instantiated, launched,
 * updated and changed per executable (parameters, enabled nodes); user objects live as long as graphs and
 * executables hold them. Not supported: conditional nodes, external semaphore and batched memory-operation nodes
 * added through cuGraphAddNode, edge data other than the default, device-side launch.
 */
final class GraphApi implements CuGraphApi {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(GraphApi.class);

    private final Driver d;
    private final StreamApi streams;
    private final GraphWork works;
    private final GraphLaunches launches;
    /** The function a captured library call's node answers with (made at first need): no kernel of the application's. */
    private long libraryFunction;

    /** What the handle {@link #libraryFunction} names. */
    static final class LibraryFunction {}

    GraphApi(Driver d) {
        this.d = d;
        this.streams = new StreamApi(d);
        this.works = new GraphWork(d);
        this.launches = new GraphLaunches(d);
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
        return node.handle(d.handles);
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

    @Override
    public int cuGraphAddKernelNode_v2(long phGraphNode, long hGraph, long deps, long numDeps, long nodeParams) {
        return Api.call("cuGraphAddKernelNode", () -> addNode(phGraphNode, hGraph, deps, numDeps, works.kernel(nodeParams, true)));
    }

    @Override
    public int cuGraphAddKernelNode(long phGraphNode, long hGraph, long deps, long numDeps, long nodeParams) {
        return Api.call("cuGraphAddKernelNode", () -> addNode(phGraphNode, hGraph, deps, numDeps, works.kernel(nodeParams, false)));
    }

    @Override
    public int cuGraphAddMemcpyNode(long phGraphNode, long hGraph, long deps, long numDeps, long copyParams, long ctx) {
        return Api.call("cuGraphAddMemcpyNode", () -> {
            d.context(ctx);
            addNode(phGraphNode, hGraph, deps, numDeps, works.memcpy(copyParams));
        });
    }

    /** CUDA_MEMSET_NODE_PARAMS {dst, pitch, value, elementSize, width, height}. */
    @Override
    public int cuGraphAddMemsetNode(long phGraphNode, long hGraph, long deps, long numDeps, long p, long ctx) {
        return Api.call("cuGraphAddMemsetNode", () -> {
            d.context(ctx);
            addNode(phGraphNode, hGraph, deps, numDeps, works.memset(p));
        });
    }

    /** CUDA_HOST_NODE_PARAMS {fn, userData}: the function runs on a stream thread in the node's turn. */
    @Override
    public int cuGraphAddHostNode(long phGraphNode, long hGraph, long deps, long numDeps, long p) {
        return Api.call("cuGraphAddHostNode", () -> addNode(phGraphNode, hGraph, deps, numDeps, works.host(p)));
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

    @Override
    public int cuGraphAddEventRecordNode(long phGraphNode, long hGraph, long deps, long numDeps, long event) {
        return Api.call("cuGraphAddEventRecordNode", () -> addNode(phGraphNode, hGraph, deps, numDeps, works.event(event, true)));
    }

    @Override
    public int cuGraphAddEventWaitNode(long phGraphNode, long hGraph, long deps, long numDeps, long event) {
        return Api.call("cuGraphAddEventWaitNode", () -> addNode(phGraphNode, hGraph, deps, numDeps, works.event(event, false)));
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
            d.graphMemory.put(p, bytes);
            long now = d.graphMemory.values().stream().mapToLong(Long::longValue).sum();
            d.graphMemoryHigh.accumulateAndGet(now, Math::max);
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
                d.graphMemory.remove(dptr);
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
        return Api.call("cuGraphNodeGetType", () -> Mem.putInt(type, Graph.reportedType(d.handles.get(hNode, Graph.Node.class).work.type), "type"));
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
            if (k == null && node.work.type == Graph.OPERATION) {
                // a captured library call, which NVIDIA's cuBLAS makes kernels of: a function that is none of the
                // application's kernels, one block of one thread (cudart answers cudaErrorInvalidDeviceFunction for
                // it, as for NVIDIA's cuBLAS kernels, which llama.cpp's graph code expected)
                synchronized (this) {
                    if (libraryFunction == 0) libraryFunction = d.handles.add(new LibraryFunction());
                }
                k = new Graph.KernelParams(libraryFunction, 1, 1, 1, 1, 1, 1, 0, 0, false);
            }
            if (k == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a kernel node made by cuGraphAddKernelNode");
            Mem.nonNull(p, "nodeParams");
            HostRuntime.write(p, new byte[v2 ? 72 : 56], 0, v2 ? 72 : 56);
            HostRuntime.putLong(p, k.function());
            int[] grid = k.grid(), block = k.block();
            for (int i = 0; i < 3; i++) {
                HostRuntime.putInt(p + 8 + 4 * i, grid[i]);
                HostRuntime.putInt(p + 20 + 4 * i, block[i]);
            }
            HostRuntime.putInt(p + 32, k.shared());
            HostRuntime.putLong(p + 40, k.args());
            if (v2) {  // kern (a CUkernel is its own CUfunction here: cudart finds its kernel's entry by it) and ctx
                HostRuntime.putLong(p + 56, k.function());
                Context c = d.current();
                HostRuntime.putLong(p + 64, c == null ? 0 : c.handle);
            }
        });
    }

    @Override public int cuGraphKernelNodeGetParams_v2(long hNode, long p) { return kernelGetParams(hNode, p, true); }
    @Override public int cuGraphKernelNodeGetParams(long hNode, long p) { return kernelGetParams(hNode, p, false); }

    /** New parameters for the node; graphs instantiated before keep the old ones (cuGraphExecUpdate takes the new). */
    private int kernelSetParams(long hNode, long p, boolean v2) {
        return Api.call("cuGraphKernelNodeSetParams", () -> {
            Graph.Node node = d.handles.get(hNode, Graph.Node.class);
            if (node.work.type != Graph.KERNEL) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a kernel node");
            Graph.Work w = works.kernel(p, v2, Graph.cooperative(node.attributesSet()));
            synchronized (node.graph) {
                node.replace(w);
            }
        });
    }

    @Override public int cuGraphKernelNodeSetParams_v2(long hNode, long p) { return kernelSetParams(hNode, p, true); }
    @Override public int cuGraphKernelNodeSetParams(long hNode, long p) { return kernelSetParams(hNode, p, false); }

    private void instantiate(long phGraphExec, long hGraph, long flags) throws CudaException {
        instantiate(phGraphExec, hGraph, flags, false);
    }

    /** UPLOAD (2) only through cuGraphInstantiateWithParams, which has the stream for it. */
    private void instantiate(long phGraphExec, long hGraph, long flags, boolean upload) throws CudaException {
        Mem.nonNull(phGraphExec, "phGraphExec");
        Graph g = d.handles.get(hGraph, Graph.class);
        if ((flags & ~(1L | 8L | (upload ? 2L : 0L))) != 0)  // AUTO_FREE_ON_LAUNCH and USE_NODE_PRIORITY change nothing here
            throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "instantiate flags " + flags);
        // UPLOAD is not one of the executable's flags (cuGraphExecGetFlags: 0 after it, as NVIDIA answers)
        HostRuntime.putLong(phGraphExec, d.handles.add(new Graph.Exec(g, flags & ~2L)));
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

    /** See {@link GraphLaunches#launch}. */
    private int launch(long hGraphExec, long hStream, boolean ptds) {
        return Api.call("cuGraphLaunch", () -> launches.launch(d.handles.get(hGraphExec, Graph.Exec.class), streams.resolve(hStream, ptds)));
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
     * arguments, copy addresses); otherwise CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, or _NOT_SUPPORTED where
     * memory nodes are involved (as NVIDIA answers). resultInfo: result (int) at 0,
     * errorNode at 8, errorFromNode at 16.
     */
    @Override
    public int cuGraphExecUpdate_v2(long hGraphExec, long hGraph, long resultInfo) {
        return Api.call("cuGraphExecUpdate", () -> {
            Graph.Exec e = d.handles.get(hGraphExec, Graph.Exec.class);
            Graph g = d.handles.get(hGraph, Graph.class);
            Mem.nonNull(resultInfo, "resultInfo");
            int result = e.update(g.snapshot(), launches::followSequence);
            HostRuntime.putInt(resultInfo, result);
            HostRuntime.putLong(resultInfo + 8, 0);
            HostRuntime.putLong(resultInfo + 16, 0);
            if (result != 0) throw new CudaException(CuResult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, result == 6 ? "graphs with memory nodes" : "the graph's topology differs");
        });
    }

    // ---- node parameters read and changed (graph nodes and executables' copies)

    private Graph.Node node(long hNode) throws CudaException {
        return d.handles.get(hNode, Graph.Node.class);
    }

    private int getParams(String name, long hNode, long out, int type, String what) {
        return Api.call(name, () -> {
            Graph.Work w = work(hNode, type, what);
            Mem.nonNull(out, "nodeParams");
            if (w.params == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, what + " made by stream capture has no parameters to read");
            HostRuntime.write(out, w.params, 0, w.params.length);
        });
    }

    @Override public int cuGraphMemcpyNodeGetParams(long n, long p) { return getParams("cuGraphMemcpyNodeGetParams", n, p, Graph.MEMCPY, "a memcpy node"); }
    @Override public int cuGraphMemsetNodeGetParams(long n, long p) { return getParams("cuGraphMemsetNodeGetParams", n, p, Graph.MEMSET, "a memset node"); }
    @Override public int cuGraphHostNodeGetParams(long n, long p) { return getParams("cuGraphHostNodeGetParams", n, p, Graph.HOST, "a host node"); }

    /** New work for a graph node of {@code type} (executables made before keep theirs). */
    private void setWork(long hNode, int type, String what, Graph.Work w) throws CudaException {
        Graph.Node node = node(hNode);
        if (node.work.type != type) {
            w.drop();
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not " + what);
        }
        synchronized (node.graph) {
            node.replace(w);
        }
    }

    @Override
    public int cuGraphMemcpyNodeSetParams(long hNode, long p) {
        return Api.call("cuGraphMemcpyNodeSetParams", () -> setWork(hNode, Graph.MEMCPY, "a memcpy node", works.memcpy(p)));
    }

    @Override
    public int cuGraphMemsetNodeSetParams(long hNode, long p) {
        return Api.call("cuGraphMemsetNodeSetParams", () -> setWork(hNode, Graph.MEMSET, "a memset node", works.memset(p)));
    }

    @Override
    public int cuGraphHostNodeSetParams(long hNode, long p) {
        return Api.call("cuGraphHostNodeSetParams", () -> setWork(hNode, Graph.HOST, "a host node", works.host(p)));
    }

    @Override
    public int cuGraphEventRecordNodeSetEvent(long hNode, long event) {
        return Api.call("cuGraphEventRecordNodeSetEvent", () -> setWork(hNode, Graph.EVENT_RECORD, "an event record node", works.event(event, true)));
    }

    @Override
    public int cuGraphEventWaitNodeSetEvent(long hNode, long event) {
        return Api.call("cuGraphEventWaitNodeSetEvent", () -> setWork(hNode, Graph.EVENT_WAIT, "an event wait node", works.event(event, false)));
    }

    /** The executable's copy of the node takes new work; the graph's node is unchanged. */
    private void execSet(long hExec, long hNode, Graph.Work w) throws CudaException {
        Graph.Exec e;
        Graph.Node n;
        try {
            e = d.handles.get(hExec, Graph.Exec.class);
            n = node(hNode);
        } catch (CudaException x) {
            w.drop();
            throw x;
        }
        e.replace(n, w, launches::followSequence);
    }

    @Override
    public int cuGraphExecKernelNodeSetParams_v2(long hExec, long hNode, long p) {
        return Api.call("cuGraphExecKernelNodeSetParams", () -> execSet(hExec, hNode, works.kernel(p, true, cooperativeNode(hNode))));
    }

    /** Whether the node is a cooperative launch (false for what is not a node: execSet reports that). */
    private boolean cooperativeNode(long hNode) {
        return d.handles.peek(hNode) instanceof Graph.Node n && Graph.cooperative(n.attributesSet());
    }

    @Override
    public int cuGraphExecKernelNodeSetParams(long hExec, long hNode, long p) {
        return Api.call("cuGraphExecKernelNodeSetParams", () -> execSet(hExec, hNode, works.kernel(p, false, cooperativeNode(hNode))));
    }

    @Override
    public int cuGraphExecMemcpyNodeSetParams(long hExec, long hNode, long p, long ctx) {
        return Api.call("cuGraphExecMemcpyNodeSetParams", () -> {
            d.context(ctx);
            execSet(hExec, hNode, works.memcpy(p));
        });
    }

    @Override
    public int cuGraphExecMemsetNodeSetParams(long hExec, long hNode, long p, long ctx) {
        return Api.call("cuGraphExecMemsetNodeSetParams", () -> {
            d.context(ctx);
            execSet(hExec, hNode, works.memset(p));
        });
    }

    @Override
    public int cuGraphExecHostNodeSetParams(long hExec, long hNode, long p) {
        return Api.call("cuGraphExecHostNodeSetParams", () -> execSet(hExec, hNode, works.host(p)));
    }

    @Override
    public int cuGraphExecEventRecordNodeSetEvent(long hExec, long hNode, long event) {
        return Api.call("cuGraphExecEventRecordNodeSetEvent", () -> execSet(hExec, hNode, works.event(event, true)));
    }

    @Override
    public int cuGraphExecEventWaitNodeSetEvent(long hExec, long hNode, long event) {
        return Api.call("cuGraphExecEventWaitNodeSetEvent", () -> execSet(hExec, hNode, works.event(event, false)));
    }

    /** Kernel, memset and memcpy nodes only (NVIDIA answers CUDA_ERROR_INVALID_VALUE for the others: recorded on an H200). */
    @Override
    public int cuGraphNodeSetEnabled(long hExec, long hNode, int isEnabled) {
        return Api.call("cuGraphNodeSetEnabled", () -> {
            Graph.Exec e = d.handles.get(hExec, Graph.Exec.class);
            Graph.Node n = node(hNode);
            int type = Graph.reportedType(n.work.type);  // a library call's node is a kernel node to the application
            if (type != Graph.KERNEL && type != Graph.MEMSET && type != Graph.MEMCPY)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "only kernel, memset and memcpy nodes can be disabled");
            e.enable(n, isEnabled != 0);
        });
    }

    @Override
    public int cuGraphNodeGetEnabled(long hExec, long hNode, long isEnabled) {
        return Api.call("cuGraphNodeGetEnabled", () -> Mem.putInt(isEnabled, d.handles.get(hExec, Graph.Exec.class).enabled(node(hNode)) ? 1 : 0, "isEnabled"));
    }

    @Override
    public int cuGraphExecGetFlags(long hExec, long flags) {
        return Api.call("cuGraphExecGetFlags", () -> Mem.putLong(flags, d.handles.get(hExec, Graph.Exec.class).flags, "flags"));
    }

    // ---- kernel node attributes (CUkernelNodeAttrValue: only the member an attribute uses is read or written)

    @Override
    public int cuGraphKernelNodeGetAttribute(long hNode, int attr, long value) {
        return Api.call("cuGraphKernelNodeGetAttribute", () -> {
            Graph.Node n = node(hNode);
            if (n.work.type != Graph.KERNEL) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a kernel node");
            Mem.nonNull(value, "value_out");
            if (attr < 1 || attr > 16) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "attribute " + attr);
            byte[] v = n.attributesSet().getOrDefault(attr, new byte[64]);
            HostRuntime.write(value, v, 0, StreamApi.attributeBytes(attr));
        });
    }

    @Override
    public int cuGraphKernelNodeSetAttribute(long hNode, int attr, long value) {
        return Api.call("cuGraphKernelNodeSetAttribute", () -> {
            Graph.Node n = node(hNode);
            if (n.work.type != Graph.KERNEL) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a kernel node");
            Mem.nonNull(value, "value");
            if (attr < 1 || attr > 16) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "attribute " + attr);
            byte[] v = new byte[64];
            HostRuntime.read(value, v, 0, StreamApi.attributeBytes(attr));
            boolean before = Graph.cooperative(n.attributesSet());
            n.attributes().put(attr, v);
            cooperativeFollows(n, before);
        });
    }

    @Override
    public int cuGraphKernelNodeCopyAttributes(long dst, long src) {
        return Api.call("cuGraphKernelNodeCopyAttributes", () -> {
            Graph.Node to = node(dst), from = node(src);
            if (to.work.type != Graph.KERNEL || from.work.type != Graph.KERNEL) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not kernel nodes");
            boolean before = Graph.cooperative(to.attributesSet());
            to.attributes().clear();
            to.attributes().putAll(from.attributesSet());
            cooperativeFollows(to, before);
        });
    }

    /** A kernel node whose COOPERATIVE attribute changed launches the other way from now on (executables keep theirs). */
    private void cooperativeFollows(Graph.Node n, boolean before) throws CudaException {
        boolean now = Graph.cooperative(n.attributesSet());
        if (now == before) return;
        Graph.Work w = works.kernel(n.work, now);
        synchronized (n.graph) {
            n.replace(w);
        }
    }

    // ---- graph structure: clones, removal, edges, roots, dependents

    @Override
    public int cuGraphClone(long phGraphClone, long originalGraph) {
        return Api.call("cuGraphClone", () -> {
            Mem.nonNull(phGraphClone, "phGraphClone");
            HostRuntime.putLong(phGraphClone, d.handles.add(d.handles.get(originalGraph, Graph.class).copy()));
        });
    }

    @Override
    public int cuGraphNodeFindInClone(long phNode, long hOriginalNode, long hClonedGraph) {
        return Api.call("cuGraphNodeFindInClone", () -> {
            Mem.nonNull(phNode, "phNode");
            Graph clone = d.handles.get(hClonedGraph, Graph.class);
            Graph.Node original = node(hOriginalNode);
            synchronized (clone) {
                for (var e : clone.clonedFrom.entrySet()) {
                    if (e.getValue() == original && clone.nodes.contains(e.getKey())) {
                        HostRuntime.putLong(phNode, handleOf(e.getKey()));
                        return;
                    }
                }
            }
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "the node has no copy in that graph");
        });
    }

    @Override
    public int cuGraphDestroyNode(long hNode) {
        return Api.call("cuGraphDestroyNode", () -> {
            Graph.Node n = node(hNode);
            n.graph.remove(n);
            d.handles.remove(hNode);
        });
    }

    /** Writes up to *count node handles (all of them counted when the array is NULL), as the cuGraph*Nodes queries do. */
    private void putNodes(java.util.List<Graph.Node> list, long array, long count, String what) throws CudaException {
        Mem.nonNull(count, what);
        if (array == 0) {
            HostRuntime.putLong(count, list.size());
            return;
        }
        long n = Math.min(HostRuntime.getLong(count), list.size());
        for (int i = 0; i < n; i++) HostRuntime.putLong(array + 8L * i, handleOf(list.get(i)));
        HostRuntime.putLong(count, n);
    }

    @Override
    public int cuGraphGetRootNodes(long hGraph, long roots, long numRoots) {
        return Api.call("cuGraphGetRootNodes", () -> {
            Graph g = d.handles.get(hGraph, Graph.class);
            java.util.List<Graph.Node> list = new java.util.ArrayList<>();
            synchronized (g) {
                for (Graph.Node n : g.nodes) if (n.dependencies.isEmpty()) list.add(n);
            }
            putNodes(list, roots, numRoots, "numRootNodes");
        });
    }

    private int dependents(long hNode, long out, long edgeData, long count) {
        return Api.call("cuGraphNodeGetDependentNodes", () -> {
            Graph.Node n = node(hNode);
            var list = n.graph.dependents(n);
            putNodes(list, out, count, "numDependentNodes");
            if (edgeData != 0 && out != 0) HostRuntime.write(edgeData, new byte[8 * list.size()], 0, (int) Math.min(8L * list.size(), 8L * HostRuntime.getLong(count)));
        });
    }

    @Override public int cuGraphNodeGetDependentNodes(long n, long out, long count) { return dependents(n, out, 0, count); }
    @Override public int cuGraphNodeGetDependentNodes_v2(long n, long out, long edges, long count) { return dependents(n, out, edges, count); }

    /** Edge data (CUgraphEdgeData, 8 bytes) is the default everywhere here: zeros. */
    @Override
    public int cuGraphNodeGetDependencies_v2(long hNode, long deps, long edgeData, long numDeps) {
        int r = cuGraphNodeGetDependencies(hNode, deps, numDeps);
        if (r == 0 && edgeData != 0 && deps != 0) {
            long n = HostRuntime.getLong(numDeps);
            HostRuntime.write(edgeData, new byte[(int) (8 * n)], 0, (int) (8 * n));
        }
        return r;
    }

    private int edges(long hGraph, long from, long to, long edgeData, long numEdges) {
        return Api.call("cuGraphGetEdges", () -> {
            Graph g = d.handles.get(hGraph, Graph.class);
            Mem.nonNull(numEdges, "numEdges");
            java.util.List<Graph.Node[]> list = new java.util.ArrayList<>();
            synchronized (g) {
                for (Graph.Node n : g.nodes) for (Graph.Node dep : n.dependencies) list.add(new Graph.Node[] {dep, n});
            }
            if (from == 0 && to == 0) {
                HostRuntime.putLong(numEdges, list.size());
                return;
            }
            Mem.nonNull(from, "from");
            Mem.nonNull(to, "to");
            long n = Math.min(HostRuntime.getLong(numEdges), list.size());
            for (int i = 0; i < n; i++) {
                HostRuntime.putLong(from + 8L * i, handleOf(list.get(i)[0]));
                HostRuntime.putLong(to + 8L * i, handleOf(list.get(i)[1]));
                if (edgeData != 0) HostRuntime.putLong(edgeData + 8L * i, 0);
            }
            HostRuntime.putLong(numEdges, n);
        });
    }

    @Override public int cuGraphGetEdges(long g, long from, long to, long n) { return edges(g, from, to, 0, n); }
    @Override public int cuGraphGetEdges_v2(long g, long from, long to, long edges, long n) { return edges(g, from, to, edges, n); }

    private int removeDependencies(long hGraph, long from, long to, long count) {
        return Api.call("cuGraphRemoveDependencies", () -> {
            Graph g = d.handles.get(hGraph, Graph.class);
            var froms = dependencies(from, count);
            var tos = dependencies(to, count);
            synchronized (g) {
                for (int i = 0; i < froms.size(); i++)
                    if (!tos.get(i).dependencies.contains(froms.get(i)))
                        throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "no such edge");
                for (int i = 0; i < froms.size(); i++) tos.get(i).dependencies.remove(froms.get(i));
            }
        });
    }

    @Override public int cuGraphRemoveDependencies(long g, long from, long to, long n) { return removeDependencies(g, from, to, n); }

    @Override
    public int cuGraphRemoveDependencies_v2(long g, long from, long to, long edgeData, long n) {
        return removeDependencies(g, from, to, n);
    }

    // ---- instantiation with parameters, generic nodes

    /** CUDA_GRAPH_INSTANTIATE_PARAMS {flags, hUploadStream, hErrNode_out, result_out}. */
    private int instantiateWithParams(long phGraphExec, long hGraph, long p, boolean ptsz) {
        return Api.call("cuGraphInstantiateWithParams", () -> {
            Mem.nonNull(p, "instantiateParams");
            long flags = HostRuntime.getLong(p), upload = HostRuntime.getLong(p + 8);
            HostRuntime.putLong(p + 16, 0);
            HostRuntime.putInt(p + 24, 1);  // CUDA_GRAPH_INSTANTIATE_ERROR until it succeeds
            instantiate(phGraphExec, hGraph, flags, true);
            if ((flags & 2) != 0)  // UPLOAD: ordered on the stream like cuGraphUpload
                streams.resolve(upload, ptsz).enqueue("cuGraphUpload", () -> {}, null, null);
            HostRuntime.putInt(p + 24, 0);  // CUDA_GRAPH_INSTANTIATE_SUCCESS
        });
    }

    @Override public int cuGraphInstantiateWithParams(long ph, long g, long p) { return instantiateWithParams(ph, g, p, false); }
    @Override public int cuGraphInstantiateWithParams_ptsz(long ph, long g, long p) { return instantiateWithParams(ph, g, p, true); }

    /** Turns a nested call's CUresult back into the exception of the call around it. */
    private static void ok(int r, String what) throws CudaException {
        if (r != 0) throw new CudaException(r, what);
    }

    /**
     * CUgraphNodeParams {type, reserved[3], union at 16}: each node type as its own cuGraphAdd*Node takes it
     * (kernel v3 = v2's layout, memcpy {flags, reserved, ctx, CUDA_MEMCPY3D}, memset v2, host v2, child graph,
     * event, memory alloc v2 with its dptr written back, memory free).
     */
    private void addGeneric(long phGraphNode, long hGraph, long deps, long numDeps, long p) throws CudaException {
        Mem.nonNull(p, "nodeParams");
        int type = HostRuntime.getInt(p);
        long u = p + 16;
        switch (type) {
            case Graph.KERNEL -> addNode(phGraphNode, hGraph, deps, numDeps, works.kernel(u, true));
            case Graph.MEMCPY -> {
                d.context(HostRuntime.getLong(u + 8));
                addNode(phGraphNode, hGraph, deps, numDeps, works.memcpy(u + 16));
            }
            case Graph.MEMSET -> {
                d.context(HostRuntime.getLong(u + 40));
                addNode(phGraphNode, hGraph, deps, numDeps, works.memset(u));
            }
            case Graph.HOST -> addNode(phGraphNode, hGraph, deps, numDeps, works.host(u));
            case Graph.CHILD -> ok(cuGraphAddChildGraphNode(phGraphNode, hGraph, deps, numDeps, HostRuntime.getLong(u)), "child graph node");
            case Graph.EMPTY -> ok(cuGraphAddEmptyNode(phGraphNode, hGraph, deps, numDeps), "empty node");
            case Graph.EVENT_WAIT -> ok(cuGraphAddEventWaitNode(phGraphNode, hGraph, deps, numDeps, HostRuntime.getLong(u)), "event wait node");
            case Graph.EVENT_RECORD -> ok(cuGraphAddEventRecordNode(phGraphNode, hGraph, deps, numDeps, HostRuntime.getLong(u)), "event record node");
            case Graph.MEM_ALLOC -> ok(cuGraphAddMemAllocNode(phGraphNode, hGraph, deps, numDeps, u), "memory alloc node");
            case Graph.MEM_FREE -> ok(cuGraphAddMemFreeNode(phGraphNode, hGraph, deps, numDeps, HostRuntime.getLong(u)), "memory free node");
            case 13 -> {  // CONDITIONAL: its handle first (NVIDIA: INVALID_VALUE without one, recorded on an H200)
                if (HostRuntime.getLong(u) == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "a conditional node without a handle");
                throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "conditional graph nodes");
            }
            case 8, 9, 12 -> throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "graph node type " + type + " (external semaphores, batched memory operations)");
            default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "graph node type " + type);
        }
    }

    @Override
    public int cuGraphAddNode(long phGraphNode, long hGraph, long deps, long numDeps, long nodeParams) {
        return Api.call("cuGraphAddNode", () -> addGeneric(phGraphNode, hGraph, deps, numDeps, nodeParams));
    }

    @Override
    public int cuGraphAddNode_v2(long phGraphNode, long hGraph, long deps, long edgeData, long numDeps, long nodeParams) {
        return Api.call("cuGraphAddNode", () -> addGeneric(phGraphNode, hGraph, deps, numDeps, nodeParams));
    }

    @Override
    public int cuGraphNodeSetParams(long hNode, long nodeParams) {
        return Api.call("cuGraphNodeSetParams", () -> {
            Graph.Work w = works.generic(nodeParams);
            setWork(hNode, w.type, "a node of type " + w.type, w);
        });
    }

    @Override
    public int cuGraphExecNodeSetParams(long hExec, long hNode, long nodeParams) {
        return Api.call("cuGraphExecNodeSetParams", () -> execSet(hExec, hNode, works.generic(nodeParams)));
    }

    // ---- user objects

    @Override
    public int cuUserObjectCreate(long objectOut, long ptr, long destroy, int initialRefcount, int flags) {
        return Api.call("cuUserObjectCreate", () -> {
            Mem.nonNull(objectOut, "object_out");
            Mem.nonNull(destroy, "destroy");
            if (initialRefcount <= 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "initialRefcount " + initialRefcount);
            if (flags != 1) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be CU_USER_OBJECT_NO_DESTRUCTOR_SYNC");
            HostRuntime.putLong(objectOut, d.handles.add(new Graph.UserObject(ptr, destroy, initialRefcount)));
        });
    }

    @Override
    public int cuUserObjectRetain(long object, int count) {
        return Api.call("cuUserObjectRetain", () -> {
            if (count <= 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "count " + count);
            d.handles.get(object, Graph.UserObject.class).retain(count);
        });
    }

    @Override
    public int cuUserObjectRelease(long object, int count) {
        return Api.call("cuUserObjectRelease", () -> {
            if (count <= 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "count " + count);
            if (d.handles.get(object, Graph.UserObject.class).release(count)) d.handles.remove(object);
        });
    }

    /** flags 1 (CU_GRAPH_USER_OBJECT_MOVE): the caller's references move to the graph. */
    @Override
    public int cuGraphRetainUserObject(long graph, long object, int count, int flags) {
        return Api.call("cuGraphRetainUserObject", () -> {
            Graph g = d.handles.get(graph, Graph.class);
            Graph.UserObject o = d.handles.get(object, Graph.UserObject.class);
            if (count <= 0 || (flags & ~1) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "count " + count + ", flags " + flags);
            if ((flags & 1) == 0) o.retain(count);
            synchronized (g) {
                g.userObjects.merge(o, count, Integer::sum);
            }
        });
    }

    @Override
    public int cuGraphReleaseUserObject(long graph, long object, int count) {
        return Api.call("cuGraphReleaseUserObject", () -> {
            Graph g = d.handles.get(graph, Graph.class);
            Graph.UserObject o = d.handles.get(object, Graph.UserObject.class);
            if (count <= 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "count " + count);
            synchronized (g) {
                int held = g.userObjects.getOrDefault(o, 0);
                if (held < count) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "the graph holds " + held + " references");
                if (held == count) g.userObjects.remove(o);
                else g.userObjects.put(o, held - count);
            }
            o.release(count);
        });
    }

    // ---- DOT output

    /** The graph in Graphviz DOT: one vertex per node (its kind), one arrow per dependency. */
    @Override
    public int cuGraphDebugDotPrint(long hGraph, long path, int flags) {
        return Api.call("cuGraphDebugDotPrint", () -> {
            Graph g = d.handles.get(hGraph, Graph.class);
            String file = Mem.string(path, "path");
            StringBuilder dot = new StringBuilder("digraph zluda_graph {\n");
            synchronized (g) {
                for (int i = 0; i < g.nodes.size(); i++)
                    dot.append("  n").append(i).append(" [label=\"").append(g.nodes.get(i).work.kind.replace("\"", "'")).append("\"];\n");
                for (int i = 0; i < g.nodes.size(); i++)
                    for (Graph.Node dep : g.nodes.get(i).dependencies) dot.append("  n").append(g.nodes.indexOf(dep)).append(" -> n").append(i).append(";\n");
            }
            dot.append("}\n");
            try {
                java.nio.file.Files.writeString(java.nio.file.Path.of(file), dot);
            } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
                throw new CudaException(CuResult.CUDA_ERROR_OPERATING_SYSTEM, "cannot write " + file + ": " + e.getMessage());
            }
        });
    }

    // ---- the first ABIs, graph memory

    @Override
    public int cuGraphInstantiate(long phGraphExec, long hGraph, long phErrorNode, long logBuffer, long bufferSize) {
        return cuGraphInstantiate_v2(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
    }

    /** The CUDA 10-11 form: the error node and result through two pointers. */
    @Override
    public int cuGraphExecUpdate(long hGraphExec, long hGraph, long hErrorNodeOut, long updateResultOut) {
        return Api.call("cuGraphExecUpdate", () -> {
            Graph.Exec e = d.handles.get(hGraphExec, Graph.Exec.class);
            Graph g = d.handles.get(hGraph, Graph.class);
            Mem.nonNull(updateResultOut, "updateResult_out");
            int result = e.update(g.snapshot(), launches::followSequence);
            if (hErrorNodeOut != 0) HostRuntime.putLong(hErrorNodeOut, 0);
            HostRuntime.putInt(updateResultOut, result);
            if (result != 0) throw new CudaException(CuResult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, result == 6 ? "graphs with memory nodes" : "the graph's topology differs");
        });
    }

    /**
     * CUgraphMem_attribute: USED_MEM_CURRENT (0) and RESERVED_MEM_CURRENT (2) are the bytes of graph allocations
     * still allocated, the _HIGH ones (1, 3) the most there was; only the high marks can be reset, to 0.
     */
    @Override
    public int cuDeviceGetGraphMemAttribute(int device, int attr, long value) {
        return Api.call("cuDeviceGetGraphMemAttribute", () -> {
            d.checkDevice(device);
            Mem.nonNull(value, "value");
            long current = d.graphMemory.values().stream().mapToLong(Long::longValue).sum();
            long v = switch (attr) {
                case 0, 2 -> current;
                case 1, 3 -> Math.max(current, d.graphMemoryHigh.get());
                default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "graph memory attribute " + attr);
            };
            HostRuntime.putLong(value, v);
        });
    }

    @Override
    public int cuDeviceSetGraphMemAttribute(int device, int attr, long value) {
        return Api.call("cuDeviceSetGraphMemAttribute", () -> {
            d.checkDevice(device);
            Mem.nonNull(value, "value");
            if ((attr != 1 && attr != 3) || HostRuntime.getLong(value) != 0)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "only the high marks can be set, to 0");
            d.graphMemoryHigh.set(d.graphMemory.values().stream().mapToLong(Long::longValue).sum());
        });
    }

    /** Graph memory goes back to the system when freed here: nothing is kept to trim. */
    @Override
    public int cuDeviceGraphMemTrim(int device) {
        return Api.call("cuDeviceGraphMemTrim", () -> d.checkDevice(device));
    }
}
