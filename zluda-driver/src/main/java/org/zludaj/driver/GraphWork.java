package org.zludaj.driver;

import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/**
 * A graph node's work from NVIDIA's parameter structs (CUDA_KERNEL_NODE_PARAMS v1/v2, CUDA_MEMCPY3D,
 * CUDA_MEMSET_NODE_PARAMS, CUDA_HOST_NODE_PARAMS, an event): what {@link GraphApi}'s cuGraphAdd*Node, cuGraph*SetParams,
 * cuGraphExec*SetParams and cuGraphAddNode take, checked as NVIDIA checks them, with the struct kept for the
 * GetParams queries.
 */
final class GraphWork {
    private final Driver d;

    GraphWork(Driver d) {
        this.d = d;
    }

    /** A kernel node's work from CUDA_KERNEL_NODE_PARAMS (v2 has the CUkernel and context after the v1 fields). */
    Graph.Work kernel(long p, boolean v2) throws CudaException {
        return kernel(p, v2, false);
    }

    /** As {@link #kernel(long, boolean)}; cooperative: the node has the COOPERATIVE attribute. */
    Graph.Work kernel(long p, boolean v2, boolean cooperative) throws CudaException {
        Mem.nonNull(p, "nodeParams");
        long func = HostRuntime.getLong(p);
        if (func == 0 && v2) func = HostRuntime.getLong(p + 56);  // kern
        Kernel k = d.handles.get(func, Kernel.class);
        Context c = v2 && HostRuntime.getLong(p + 64) != 0 ? d.context(HostRuntime.getLong(p + 64)) : d.requireCurrent();
        int[] grid = {HostRuntime.getInt(p + 8), HostRuntime.getInt(p + 12), HostRuntime.getInt(p + 16)};
        int[] block = {HostRuntime.getInt(p + 20), HostRuntime.getInt(p + 24), HostRuntime.getInt(p + 28)};
        int shared = HostRuntime.getInt(p + 32);
        return kernel(c, func, k, grid, block, shared, HostRuntime.getLong(p + 40), HostRuntime.getLong(p + 48), cooperative);
    }

    /** The same launch as {@code w} (a kernel node's work), cooperative or not (the COOPERATIVE attribute set on its node). */
    Graph.Work kernel(Graph.Work w, boolean cooperative) throws CudaException {
        Graph.KernelParams p = w.kernel;
        if (p == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a kernel node");
        return kernel(d.requireCurrent(), p.function(), d.handles.get(p.function(), Kernel.class), p.grid(), p.block(), p.shared(),
                p.args(), 0, cooperative);
    }

    private Graph.Work kernel(Context c, long func, Kernel k, int[] grid, int[] block, int shared, long kernelParams, long extra,
                              boolean cooperative) throws CudaException {
        LaunchApi launches = new LaunchApi(d);
        long args = launches.prepare(c, k, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, kernelParams, extra,
                cooperative);
        var params = new Graph.KernelParams(func, grid, block, shared, args, cooperative);
        return new Graph.Work(k.nodeKind(), Graph.KERNEL, launches.nodeOp(c, k, params), () -> HostRuntime.release(args), params);
    }

    static final int MEMCPY3D_BYTES = 200, MEMSET_PARAMS_BYTES = 40, HOST_PARAMS_BYTES = 16;

    static byte[] bytes(long p, int n) {
        byte[] b = new byte[n];
        HostRuntime.read(p, b, 0, n);
        return b;
    }

    /** A memcpy node's work from CUDA_MEMCPY3D (kept for cuGraphMemcpyNodeGetParams). */
    Graph.Work memcpy(long copyParams) throws CudaException {
        MemoryApi.Copy3D copy = new MemoryApi(d).read3D(copyParams);
        Graph.Work w = new Graph.Work("cuMemcpy3D", Graph.MEMCPY, copy.op(), null, null);
        w.params = bytes(copyParams, MEMCPY3D_BYTES);
        return w;
    }

    Graph.Work memset(long p) throws CudaException {
        {
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
            Graph.Work w = new Graph.Work("cuMemset", Graph.MEMSET, op, null, null);
            w.params = bytes(p, MEMSET_PARAMS_BYTES);
            return w;
        }
    }

    Graph.Work host(long p) throws CudaException {
        Mem.nonNull(p, "nodeParams");
        long fn = HostRuntime.getLong(p), userData = HostRuntime.getLong(p + 8);
        Mem.nonNull(fn, "fn");
        Graph.Work w = new Graph.Work("host function", Graph.HOST, () -> {
            d.backend.fence(Stream.runningQueueIfAny());
            HostRuntime.callHostFunction(fn, userData);
        }, null, null);
        w.params = bytes(p, HOST_PARAMS_BYTES);
        return w;
    }

    Graph.Work event(long hEvent, boolean record) throws CudaException {
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

    /** The work a CUgraphNodeParams describes, for the node types whose parameters can change. */
    Graph.Work generic(long p) throws CudaException {
        Mem.nonNull(p, "nodeParams");
        int type = HostRuntime.getInt(p);
        long u = p + 16;
        return switch (type) {
            case Graph.KERNEL -> kernel(u, true);
            case Graph.MEMCPY -> memcpy(u + 16);
            case Graph.MEMSET -> memset(u);
            case Graph.HOST -> host(u);
            case Graph.EVENT_WAIT -> event(HostRuntime.getLong(u), false);
            case Graph.EVENT_RECORD -> event(HostRuntime.getLong(u), true);
            default -> throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "changing the parameters of a node of type " + type);
        };
    }
}
