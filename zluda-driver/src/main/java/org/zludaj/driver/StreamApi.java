package org.zludaj.driver;

import org.zludaj.api.CuResult;
import org.zludaj.api.CuStreamApi;
import org.zludaj.nativ.HostRuntime;

/** Streams (cuStream*): creation, synchronization and queries, waits on events, host callbacks. */
final class StreamApi implements CuStreamApi {
    static final long LEGACY = 1, PER_THREAD = 2;
    private final Driver d;

    StreamApi(Driver d) {
        this.d = d;
    }

    /**
     * The stream a handle names in the current context: 0 is the legacy default stream, or the calling thread's
     * default stream for the _ptsz/_ptds functions ({@code perThreadDefault}); CU_STREAM_LEGACY and
     * CU_STREAM_PER_THREAD name those two explicitly; anything else must be a live stream.
     */
    Stream resolve(long handle, boolean perThreadDefault) throws CudaException {
        Context c = d.requireUsable();  // a faulted context takes no more work (sticky errors)
        if (handle == 0) return perThreadDefault ? c.perThreadStream() : c.legacy;
        if (handle == LEGACY) return c.legacy;
        if (handle == PER_THREAD) return c.perThreadStream();
        return d.handles.get(handle, Stream.class);
    }

    @Override
    public int cuStreamCreate(long phStream, int flags) {
        return cuStreamCreateWithPriority(phStream, flags, 0);
    }

    @Override
    public int cuStreamCreateWithPriority(long phStream, int flags, int priority) {
        return Api.call("cuStreamCreate", () -> {
            Mem.nonNull(phStream, "phStream");
            Context c = d.requireUsable();
            if ((flags & ~Stream.NON_BLOCKING) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "stream flags " + flags);
            // the device has no stream priorities (range [0, 0]): NVIDIA clamps a requested priority into the range
            HostRuntime.putLong(phStream, d.handles.add(c.add(new Stream(c, flags, 0, false))));
        });
    }

    /** The stream goes at once; work already enqueued in it still completes (as on NVIDIA). */
    @Override
    public int cuStreamDestroy_v2(long hStream) {
        return Api.call("cuStreamDestroy", () -> {
            Stream s = d.handles.get(hStream, Stream.class);
            s.context.remove(s);
            d.handles.remove(hStream);
            s.enqueue("cuStreamDestroy", () -> s.releaseQueue(d.backend), null, null);  // after the stream's work
            synchronized (s) {  // the array cuStreamGetCaptureInfo handed out
                if (s.captureDependencyArray != 0) HostRuntime.release(s.captureDependencyArray);
                s.captureDependencyArray = 0;
                s.captureDependencyCapacity = 0;
            }
        });
    }

    private int sync(long hStream, boolean ptds) {
        return Api.call("cuStreamSynchronize", () -> {
            Stream s = resolve(hStream, ptds);
            if (s.capture != null) {
                s.captureInvalidated = true;
                throw new CudaException(CuResult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "synchronizing a capturing stream");
            }
            s.synchronize();
            s.context.fence(d.backend, s.deviceQueue());  // GPU launches return before their kernels end
            s.context.checkSticky();
        });
    }

    @Override public int cuStreamSynchronize(long hStream) { return sync(hStream, false); }
    @Override public int cuStreamSynchronize_ptsz(long hStream) { return sync(hStream, true); }

    /** CUDA_SUCCESS when all the stream's work has completed, CUDA_ERROR_NOT_READY while some is pending. */
    private int query(long hStream, boolean ptds) {
        return Api.call("cuStreamQuery", () -> {
            Stream s = resolve(hStream, ptds);
            s.context.checkSticky();
            if (!s.idle()) throw new CudaException(CuResult.CUDA_ERROR_NOT_READY, null);
            s.context.fence(d.backend, s.deviceQueue());
            s.takeError();
        });
    }

    @Override public int cuStreamQuery(long hStream) { return query(hStream, false); }
    @Override public int cuStreamQuery_ptsz(long hStream) { return query(hStream, true); }

    /** The callback runs on a stream thread once the stream's earlier work is done, with the stream's status. */
    private int addCallback(long hStream, long callback, long userData, int flags, boolean ptds) {
        return Api.call("cuStreamAddCallback", () -> {
            Stream s = resolve(hStream, ptds);
            Mem.nonNull(callback, "callback");
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            s.enqueue("stream callback", () -> {
                s.context.fence(d.backend, s.deviceQueue());
                int status = s.context.sticky != null ? s.context.sticky.result() : CuResult.CUDA_SUCCESS;
                HostRuntime.callStreamCallback(callback, hStream, status, userData);
            }, null, null);
        });
    }

    @Override
    public int cuStreamAddCallback(long hStream, long callback, long userData, int flags) {
        return addCallback(hStream, callback, userData, flags, false);
    }

    @Override
    public int cuStreamAddCallback_ptsz(long hStream, long callback, long userData, int flags) {
        return addCallback(hStream, callback, userData, flags, true);
    }

    /** Later work of the stream waits for the event's most recent record (none: no wait). */
    private int waitEvent(long hStream, long hEvent, int flags, boolean ptds) {
        return Api.call("cuStreamWaitEvent", () -> {
            Stream s = resolve(hStream, ptds);
            Event e = d.handles.get(hEvent, Event.class);
            if ((flags & ~1) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
            Stream origin = e.captureOrigin;
            if (origin != null && origin.capture != null && origin.captureId == e.captureId) {
                // an event recorded in a capture: the waiting stream joins it (or adds the event's place to its dependencies)
                if (s.capture == null) {
                    if (s.legacy) throw new CudaException(CuResult.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "the legacy stream cannot join a capture");
                    s.joinCapture(origin, e.captureNodes);
                } else if (s.captureId == e.captureId) {
                    java.util.LinkedHashSet<Graph.Node> union = new java.util.LinkedHashSet<>(s.captureDependencies);
                    union.addAll(e.captureNodes);
                    s.captureDependencies = java.util.List.copyOf(union);
                } else {
                    s.captureInvalidated = true;
                    throw new CudaException(CuResult.CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "the event belongs to another capture");
                }
                return;
            }
            s.enqueue("cuStreamWaitEvent", () -> {}, e.recorded(), null);
        });
    }

    @Override
    public int cuStreamWaitEvent(long hStream, long hEvent, int flags) {
        return waitEvent(hStream, hEvent, flags, false);
    }

    @Override
    public int cuStreamWaitEvent_ptsz(long hStream, long hEvent, int flags) {
        return waitEvent(hStream, hEvent, flags, true);
    }

    // ---- properties

    private int flags(long hStream, long pFlags, boolean ptds) {
        return Api.call("cuStreamGetFlags", () -> Mem.putInt(pFlags, resolve(hStream, ptds).flags, "flags"));
    }

    @Override public int cuStreamGetFlags(long hStream, long flags) { return flags(hStream, flags, false); }
    @Override public int cuStreamGetFlags_ptsz(long hStream, long flags) { return flags(hStream, flags, true); }

    private int priority(long hStream, long p, boolean ptds) {
        return Api.call("cuStreamGetPriority", () -> Mem.putInt(p, resolve(hStream, ptds).priority, "priority"));
    }

    @Override public int cuStreamGetPriority(long hStream, long priority) { return priority(hStream, priority, false); }
    @Override public int cuStreamGetPriority_ptsz(long hStream, long priority) { return priority(hStream, priority, true); }

    private int ctx(long hStream, long pctx, boolean ptds) {
        return Api.call("cuStreamGetCtx", () -> Mem.putLong(pctx, resolve(hStream, ptds).context.handle, "pctx"));
    }

    @Override public int cuStreamGetCtx(long hStream, long pctx) { return ctx(hStream, pctx, false); }
    @Override public int cuStreamGetCtx_ptsz(long hStream, long pctx) { return ctx(hStream, pctx, true); }

    private int id(long hStream, long pId, boolean ptds) {
        return Api.call("cuStreamGetId", () -> Mem.putLong(pId, resolve(hStream, ptds).id, "streamId"));
    }

    @Override public int cuStreamGetId(long hStream, long streamId) { return id(hStream, streamId, false); }
    @Override public int cuStreamGetId_ptsz(long hStream, long streamId) { return id(hStream, streamId, true); }

    // ---- stream capture: each operation a node after the stream's capture dependencies (the last node, or those an
    // event wait joined in from other streams of the capture, or what cuStreamUpdateCaptureDependencies set)

    private int beginCapture(long hStream, int mode, boolean ptds) {
        return Api.call("cuStreamBeginCapture", () -> {
            Stream s = resolve(hStream, ptds);
            if (s.legacy) throw new CudaException(CuResult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "the legacy default stream cannot be captured");
            if (mode < 0 || mode > 2) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "capture mode " + mode);
            if (s.capture != null) throw new CudaException(CuResult.CUDA_ERROR_ILLEGAL_STATE, "the stream is already capturing");
            Graph g = new Graph();
            s.beginCapture(g, d.handles.add(g), java.util.List.of(), false);
        });
    }

    /** Captures into the application's graph, after the given nodes of it. */
    private int beginCaptureToGraph(long hStream, long hGraph, long deps, long edgeData, long numDeps, int mode, boolean ptsz) {
        return Api.call("cuStreamBeginCaptureToGraph", () -> {
            Stream s = resolve(hStream, ptsz);
            Graph g = d.handles.get(hGraph, Graph.class);
            if (s.legacy) throw new CudaException(CuResult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "the legacy default stream cannot be captured");
            if (mode < 0 || mode > 2) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "capture mode " + mode);
            if (s.capture != null) throw new CudaException(CuResult.CUDA_ERROR_ILLEGAL_STATE, "the stream is already capturing");
            var nodes = captureNodes(g, deps, numDeps);
            s.beginCapture(g, hGraph, nodes, true);
        });
    }

    @Override
    public int cuStreamBeginCaptureToGraph(long hStream, long hGraph, long deps, long edgeData, long numDeps, int mode) {
        return beginCaptureToGraph(hStream, hGraph, deps, edgeData, numDeps, mode, false);
    }

    @Override
    public int cuStreamBeginCaptureToGraph_ptsz(long hStream, long hGraph, long deps, long edgeData, long numDeps, int mode) {
        return beginCaptureToGraph(hStream, hGraph, deps, edgeData, numDeps, mode, true);
    }

    /** Nodes of the capture's graph from an array of handles. */
    private java.util.List<Graph.Node> captureNodes(Graph g, long array, long count) throws CudaException {
        if (count > 0) Mem.nonNull(array, "dependencies");
        var list = new java.util.ArrayList<Graph.Node>();
        for (long i = 0; i < count; i++) {
            Graph.Node n = d.handles.get(HostRuntime.getLong(array + 8 * i), Graph.Node.class);
            if (n.graph != g) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "a node of another graph");
            list.add(n);
        }
        return list;
    }

    /** flags 0 (CU_STREAM_ADD_CAPTURE_DEPENDENCIES) adds to the stream's dependencies, 1 (SET) replaces them. */
    private int updateCaptureDependencies(long hStream, long deps, long numDeps, int flags, boolean ptsz) {
        return Api.call("cuStreamUpdateCaptureDependencies", () -> {
            Stream s = resolve(hStream, ptsz);
            if (s.capture == null) throw new CudaException(CuResult.CUDA_ERROR_ILLEGAL_STATE, "the stream is not capturing");
            if (flags != 0 && flags != 1) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
            var nodes = captureNodes(s.capture, deps, numDeps);
            java.util.LinkedHashSet<Graph.Node> next = new java.util.LinkedHashSet<>(flags == 1 ? java.util.List.of() : s.captureDependencies);
            next.addAll(nodes);
            s.captureDependencies = java.util.List.copyOf(next);
        });
    }

    @Override public int cuStreamUpdateCaptureDependencies(long s, long deps, long n, int flags) { return updateCaptureDependencies(s, deps, n, flags, false); }
    @Override public int cuStreamUpdateCaptureDependencies_ptsz(long s, long deps, long n, int flags) { return updateCaptureDependencies(s, deps, n, flags, true); }
    @Override public int cuStreamUpdateCaptureDependencies_v2(long s, long deps, long edges, long n, int flags) { return updateCaptureDependencies(s, deps, n, flags, false); }
    @Override public int cuStreamUpdateCaptureDependencies_v2_ptsz(long s, long deps, long edges, long n, int flags) { return updateCaptureDependencies(s, deps, n, flags, true); }

    @Override public int cuStreamBeginCapture(long hStream) { return beginCapture(hStream, 0, false); }
    @Override public int cuStreamBeginCapture_v2(long hStream, int mode) { return beginCapture(hStream, mode, false); }
    @Override public int cuStreamBeginCapture_v2_ptsz(long hStream, int mode) { return beginCapture(hStream, mode, true); }

    private int endCapture(long hStream, long phGraph, boolean ptds) {
        return Api.call("cuStreamEndCapture", () -> {
            Stream s = resolve(hStream, ptds);
            Mem.nonNull(phGraph, "phGraph");
            Graph g = s.capture;
            if (g == null) throw new CudaException(CuResult.CUDA_ERROR_ILLEGAL_STATE, "the stream is not capturing");
            if (s.captureOrigin != s) {  // NVIDIA: the capture breaks too (its origin's end then answers INVALIDATED)
                Stream origin = s.captureOrigin;
                if (origin != null) origin.captureInvalidated = true;
                s.captureInvalidated = true;
                throw new CudaException(CuResult.CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "the capture began in another stream");
            }
            long handle = s.captureGraphHandle;
            boolean broken = s.captureInvalidated, existing = s.captureIntoExisting;
            for (Stream joined : s.joinedCaptures) {
                broken |= joined.captureInvalidated;
                if (joined.captureId == s.captureId) joined.endCapture();
            }
            s.joinedCaptures.clear();
            s.endCapture();
            if (broken) {
                if (!existing) {
                    g.destroy();
                    d.handles.remove(handle);
                }
                HostRuntime.putLong(phGraph, 0);
                throw new CudaException(CuResult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "a synchronous operation broke the capture");
            }
            HostRuntime.putLong(phGraph, handle);
        });
    }

    @Override public int cuStreamEndCapture(long hStream, long phGraph) { return endCapture(hStream, phGraph, false); }
    @Override public int cuStreamEndCapture_ptsz(long hStream, long phGraph) { return endCapture(hStream, phGraph, true); }

    private static int captureStatus(Stream s) {
        return s.capture == null ? 0 : s.captureInvalidated ? 2 : 1;  // NONE, ACTIVE, INVALIDATED
    }

    private int isCapturing(long hStream, long status, boolean ptds) {
        return Api.call("cuStreamIsCapturing", () -> Mem.putInt(status, captureStatus(resolve(hStream, ptds)), "captureStatus"));
    }

    @Override public int cuStreamIsCapturing(long hStream, long status) { return isCapturing(hStream, status, false); }
    @Override public int cuStreamIsCapturing_ptsz(long hStream, long status) { return isCapturing(hStream, status, true); }

    /**
     * The stream's capture dependencies as a driver-owned array of node handles (valid until the next query on the
     * stream, as NVIDIA's is until the stream's next call).
     */
    private long dependencyArray(Stream s, java.util.List<Graph.Node> list) throws CudaException {
        synchronized (s) {
            if (s.captureDependencyCapacity < list.size()) {
                if (s.captureDependencyArray != 0) HostRuntime.release(s.captureDependencyArray);
                s.captureDependencyCapacity = Math.max(8, list.size());
                s.captureDependencyArray = HostRuntime.allocate(8L * s.captureDependencyCapacity, 8);
                if (s.captureDependencyArray == 0) throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "capture dependencies");
            }
            for (int i = 0; i < list.size(); i++) HostRuntime.putLong(s.captureDependencyArray + 8L * i, list.get(i).handle(d.handles));
            return s.captureDependencyArray;
        }
    }

    /** Status, capture id and graph, and the nodes the next captured operation will depend on. */
    private int captureInfo(long hStream, long status, long id, long graph, long deps, long edges, long numDeps, boolean ptds) {
        return Api.call("cuStreamGetCaptureInfo", () -> {
            Stream s = resolve(hStream, ptds);
            Mem.putInt(status, captureStatus(s), "captureStatus_out");
            boolean active = s.capture != null;
            if (id != 0) HostRuntime.putLong(id, active ? s.captureId : 0);
            if (graph != 0) HostRuntime.putLong(graph, active ? s.captureGraphHandle : 0);
            var list = active ? s.captureDependencies : java.util.List.<Graph.Node>of();
            if (deps != 0) HostRuntime.putLong(deps, list.isEmpty() ? 0 : dependencyArray(s, list));
            if (edges != 0) HostRuntime.putLong(edges, 0);  // default edges: NULL means all default
            if (numDeps != 0) HostRuntime.putLong(numDeps, list.size());
        });
    }

    @Override
    public int cuStreamGetCaptureInfo_v2(long hStream, long status, long id, long graph, long deps, long numDeps) {
        return captureInfo(hStream, status, id, graph, deps, 0, numDeps, false);
    }

    @Override
    public int cuStreamGetCaptureInfo_v3(long hStream, long status, long id, long graph, long deps, long edges, long numDeps) {
        return captureInfo(hStream, status, id, graph, deps, edges, numDeps, false);
    }

    @Override
    public int cuStreamGetCaptureInfo_v3_ptsz(long hStream, long status, long id, long graph, long deps, long edges, long numDeps) {
        return captureInfo(hStream, status, id, graph, deps, edges, numDeps, true);
    }

    /** The capture mode of the calling thread: modes only restrict other threads' unsafe calls, so none is kept. */
    @Override
    public int cuThreadExchangeStreamCaptureMode(long mode) {
        return Api.call("cuThreadExchangeStreamCaptureMode", () -> {
            Mem.nonNull(mode, "mode");
            int m = HostRuntime.getInt(mode);
            if (m < 0 || m > 2) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "capture mode " + m);
            HostRuntime.putInt(mode, CAPTURE_MODE.get());
            CAPTURE_MODE.set(m);
        });
    }

    @Override public int cuStreamBeginCapture_ptsz(long hStream) { return beginCapture(hStream, 0, true); }

    @Override
    public int cuStreamGetCaptureInfo(long hStream, long status, long id) {
        return captureInfo(hStream, status, id, 0, 0, 0, 0, false);
    }

    @Override
    public int cuStreamGetCaptureInfo_ptsz(long hStream, long status, long id) {
        return captureInfo(hStream, status, id, 0, 0, 0, 0, true);
    }

    @Override
    public int cuStreamGetCaptureInfo_v2_ptsz(long hStream, long status, long id, long graph, long deps, long numDeps) {
        return captureInfo(hStream, status, id, graph, deps, 0, numDeps, true);
    }

    /** The stream's context; no green contexts here (NULL). */
    private int ctxV2(long hStream, long pctx, long pGreen, boolean ptds) {
        return Api.call("cuStreamGetCtx", () -> {
            Stream s = resolve(hStream, ptds);
            if (pctx == 0 && pGreen == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "both outputs are NULL");
            if (pctx != 0) HostRuntime.putLong(pctx, s.context.handle);
            if (pGreen != 0) HostRuntime.putLong(pGreen, 0);
        });
    }

    @Override public int cuStreamGetCtx_v2(long hStream, long pctx, long pGreen) { return ctxV2(hStream, pctx, pGreen, false); }
    @Override public int cuStreamGetCtx_v2_ptsz(long hStream, long pctx, long pGreen) { return ctxV2(hStream, pctx, pGreen, true); }

    private int device(long hStream, long device, boolean ptds) {
        return Api.call("cuStreamGetDevice", () -> Mem.putInt(device, resolve(hStream, ptds).context.device, "device"));
    }

    @Override public int cuStreamGetDevice(long hStream, long device) { return device(hStream, device, false); }
    @Override public int cuStreamGetDevice_ptsz(long hStream, long device) { return device(hStream, device, true); }

    /** Managed memory is reachable from every stream here: attaching only checks and keeps stream order. */
    private int attach(long hStream, long dptr, long length, int flags, boolean ptsz) {
        return Api.call("cuStreamAttachMemAsync", () -> {
            Stream s = resolve(hStream, ptsz);
            if (flags != 1 && flags != 2 && flags != 4) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
            var e = Driver.allocationOf(d.deviceMemory, dptr);
            if (e == null || !d.managedMemory.contains(e.getKey()) || e.getKey() != dptr || (length != 0 && length != e.getValue()))
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a whole managed allocation");
            s.enqueue("cuStreamAttachMemAsync", () -> {}, null, null);
        });
    }

    @Override public int cuStreamAttachMemAsync(long h, long dptr, long length, int flags) { return attach(h, dptr, length, flags, false); }
    @Override public int cuStreamAttachMemAsync_ptsz(long h, long dptr, long length, int flags) { return attach(h, dptr, length, flags, true); }

    // ---- stream attributes (CUstreamAttrValue: a 64-byte union, kept per stream as set)

    /**
     * Bytes of the union member an attribute uses: only these are read and written, as NVIDIA's driver does (an
     * application may pass a plain int for PRIORITY; writing the whole union would overwrite its stack).
     */
    static int attributeBytes(int attr) {
        return switch (attr) {
            case 1 -> 32;          // ACCESS_POLICY_WINDOW: {base_ptr, num_bytes, hitRatio, hitProp, missProp}
            case 4, 11 -> 12;      // CLUSTER_DIMENSION, PREFERRED_CLUSTER_DIMENSION: {x, y, z}
            case 7, 12, 13 -> 16;  // PROGRAMMATIC_EVENT, LAUNCH_COMPLETION_EVENT: {event, flags, ...}; DEVICE_UPDATABLE_KERNEL_NODE
            case 9 -> 2;           // MEM_SYNC_DOMAIN_MAP: {default_, remote}
            default -> 4;          // the int and enum members
        };
    }

    private int getAttribute(long hStream, int attr, long value, boolean ptsz) {
        return Api.call("cuStreamGetAttribute", () -> {
            Stream s = resolve(hStream, ptsz);
            Mem.nonNull(value, "value_out");
            if (attr < 1 || attr > 16) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "stream attribute " + attr);
            byte[] v = s.attributes.get(attr);
            if (v == null) {
                v = new byte[64];
                if (attr == 8) java.nio.ByteBuffer.wrap(v).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, s.priority);  // PRIORITY
            }
            HostRuntime.write(value, v, 0, attributeBytes(attr));
        });
    }

    private int setAttribute(long hStream, int attr, long value, boolean ptsz) {
        return Api.call("cuStreamSetAttribute", () -> {
            Stream s = resolve(hStream, ptsz);
            Mem.nonNull(value, "value");
            if (attr < 1 || attr > 16) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "stream attribute " + attr);
            byte[] v = new byte[64];
            HostRuntime.read(value, v, 0, attributeBytes(attr));
            s.attributes.put(attr, v);
        });
    }

    @Override public int cuStreamGetAttribute(long h, int attr, long value) { return getAttribute(h, attr, value, false); }
    @Override public int cuStreamGetAttribute_ptsz(long h, int attr, long value) { return getAttribute(h, attr, value, true); }
    @Override public int cuStreamSetAttribute(long h, int attr, long value) { return setAttribute(h, attr, value, false); }
    @Override public int cuStreamSetAttribute_ptsz(long h, int attr, long value) { return setAttribute(h, attr, value, true); }

    private int copyAttributes(long dst, long src, boolean ptsz) {
        return Api.call("cuStreamCopyAttributes", () -> {
            Stream to = resolve(dst, ptsz), from = resolve(src, ptsz);
            to.attributes.clear();
            to.attributes.putAll(from.attributes);
        });
    }

    @Override public int cuStreamCopyAttributes(long dst, long src) { return copyAttributes(dst, src, false); }
    @Override public int cuStreamCopyAttributes_ptsz(long dst, long src) { return copyAttributes(dst, src, true); }

    // ---- stream memory operations: a write, or a wait until a word satisfies a condition, in stream order

    /** Reads a 32- or 64-bit word of device memory through the backend. */
    private long readWord(long addr, int bytes) throws CudaException {
        long tmp = HostRuntime.allocate(8, 8);
        try {
            HostRuntime.putLong(tmp, 0);
            d.backend.copy(tmp, addr, bytes);
            return bytes == 4 ? HostRuntime.getInt(tmp) & 0xFFFF_FFFFL : HostRuntime.getLong(tmp);
        } finally {
            HostRuntime.release(tmp);
        }
    }

    private int writeValue(String name, long hStream, long addr, long value, int bytes, int flags, boolean ptsz) {
        return Api.call(name, () -> {
            Stream s = resolve(hStream, ptsz);
            s.enqueue(name, writeOp(addr, value, bytes, flags), null, null);
        });
    }

    /** Writes the {@code bytes}-byte {@code value} at {@code addr} in stream order (after checking the arguments). */
    private Stream.Op writeOp(long addr, long value, int bytes, int flags) throws CudaException {
        if (addr == 0 || addr % bytes != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "address 0x" + Long.toHexString(addr));
        if ((flags & ~1) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
        return () -> {
            long tmp = HostRuntime.allocate(8, 8);
            try {
                HostRuntime.putLong(tmp, value);
                d.backend.copy(addr, tmp, bytes);
            } finally {
                HostRuntime.release(tmp);
            }
        };
    }

    /** Waits in stream order until the word at {@code addr} satisfies {@code flags} (after checking the arguments). */
    private Stream.Op waitOp(long addr, long value, int bytes, int flags) throws CudaException {
        if (addr == 0 || addr % bytes != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "address 0x" + Long.toHexString(addr));
        if ((flags & ~(3 | (1 << 30))) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
        return () -> {
            long pause = 1_000;
            while (!satisfied(readWord(addr, bytes), value, flags, bytes)) {
                java.util.concurrent.locks.LockSupport.parkNanos(pause);
                pause = Math.min(pause * 2, 1_000_000);
            }
        };
    }

    /**
     * cuStreamBatchMemOp: CUstreamBatchMemOpParams (48 bytes each: operation, then address @8, value @16, flags @24)
     * for WAIT_VALUE_32 (1), WRITE_VALUE_32 (2), FLUSH_REMOTE_WRITES (3), WAIT_VALUE_64 (4), WRITE_VALUE_64 (5),
     * BARRIER (6), done in order as one stream operation; every element is checked before any runs.
     */
    private int batch(long hStream, int count, long params, int flags, boolean ptsz) {
        return Api.call("cuStreamBatchMemOp", () -> {
            Stream s = resolve(hStream, ptsz);
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
            if (count < 0 || count > 256) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "count " + count);
            if (count > 0) Mem.nonNull(params, "paramArray");
            java.util.List<Stream.Op> ops = new java.util.ArrayList<>();
            for (int i = 0; i < count; i++) {
                long p = params + 48L * i;
                int op = HostRuntime.getInt(p);
                long addr = HostRuntime.getLong(p + 8), value = HostRuntime.getLong(p + 16);
                int f = HostRuntime.getInt(p + 24);
                ops.add(switch (op) {
                    case 1 -> waitOp(addr, value & 0xFFFF_FFFFL, 4, f);
                    case 2 -> writeOp(addr, value & 0xFFFF_FFFFL, 4, f);
                    case 4 -> waitOp(addr, value, 8, f);
                    case 5 -> writeOp(addr, value, 8, f);
                    case 3, 6 -> () -> s.context.fence(d.backend, s.deviceQueue());  // remote writes flushed, earlier work done
                    default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "operation " + op + " of element " + i);
                });
            }
            s.enqueue("cuStreamBatchMemOp", () -> {
                for (Stream.Op op : ops) op.run();
            }, null, null);
        });
    }

    @Override public int cuStreamBatchMemOp_v2(long s, int n, long p, int flags) { return batch(s, n, p, flags, false); }
    @Override public int cuStreamBatchMemOp_v2_ptsz(long s, int n, long p, int flags) { return batch(s, n, p, flags, true); }
    @Override public int cuStreamBatchMemOp(long s, int n, long p, int flags) { return batch(s, n, p, flags, false); }
    @Override public int cuStreamBatchMemOp_ptsz(long s, int n, long p, int flags) { return batch(s, n, p, flags, true); }

    /** Wait flags: GEQ 0 (cyclic, (int)(*addr - value) >= 0), EQ 1, AND 2 ((*addr & value) != 0), NOR 3 (~(*addr | value) != 0). */
    static boolean satisfied(long word, long value, int flags, int bytes) {
        long mask = bytes == 4 ? 0xFFFF_FFFFL : -1L;
        return switch (flags & 3) {
            case 0 -> bytes == 4 ? (int) (word - value) >= 0 : word - value >= 0;
            case 1 -> (word & mask) == (value & mask);
            case 2 -> (word & value & mask) != 0;
            default -> (~(word | value) & mask) != 0;
        };
    }

    private int waitValue(String name, long hStream, long addr, long value, int bytes, int flags, boolean ptsz) {
        return Api.call(name, () -> {
            Stream s = resolve(hStream, ptsz);
            s.enqueue(name, waitOp(addr, value, bytes, flags), null, null);
        });
    }

    @Override public int cuStreamWriteValue32_v2(long h, long addr, int v, int flags) { return writeValue("cuStreamWriteValue32", h, addr, v & 0xFFFF_FFFFL, 4, flags, false); }
    @Override public int cuStreamWriteValue32_v2_ptsz(long h, long addr, int v, int flags) { return writeValue("cuStreamWriteValue32", h, addr, v & 0xFFFF_FFFFL, 4, flags, true); }
    @Override public int cuStreamWriteValue32(long h, long addr, int v, int flags) { return writeValue("cuStreamWriteValue32", h, addr, v & 0xFFFF_FFFFL, 4, flags, false); }
    @Override public int cuStreamWriteValue32_ptsz(long h, long addr, int v, int flags) { return writeValue("cuStreamWriteValue32", h, addr, v & 0xFFFF_FFFFL, 4, flags, true); }
    @Override public int cuStreamWriteValue64_v2(long h, long addr, long v, int flags) { return writeValue("cuStreamWriteValue64", h, addr, v, 8, flags, false); }
    @Override public int cuStreamWriteValue64_v2_ptsz(long h, long addr, long v, int flags) { return writeValue("cuStreamWriteValue64", h, addr, v, 8, flags, true); }
    @Override public int cuStreamWriteValue64(long h, long addr, long v, int flags) { return writeValue("cuStreamWriteValue64", h, addr, v, 8, flags, false); }
    @Override public int cuStreamWriteValue64_ptsz(long h, long addr, long v, int flags) { return writeValue("cuStreamWriteValue64", h, addr, v, 8, flags, true); }
    @Override public int cuStreamWaitValue32_v2(long h, long addr, int v, int flags) { return waitValue("cuStreamWaitValue32", h, addr, v & 0xFFFF_FFFFL, 4, flags, false); }
    @Override public int cuStreamWaitValue32_v2_ptsz(long h, long addr, int v, int flags) { return waitValue("cuStreamWaitValue32", h, addr, v & 0xFFFF_FFFFL, 4, flags, true); }
    @Override public int cuStreamWaitValue32(long h, long addr, int v, int flags) { return waitValue("cuStreamWaitValue32", h, addr, v & 0xFFFF_FFFFL, 4, flags, false); }
    @Override public int cuStreamWaitValue32_ptsz(long h, long addr, int v, int flags) { return waitValue("cuStreamWaitValue32", h, addr, v & 0xFFFF_FFFFL, 4, flags, true); }
    @Override public int cuStreamWaitValue64_v2(long h, long addr, long v, int flags) { return waitValue("cuStreamWaitValue64", h, addr, v, 8, flags, false); }
    @Override public int cuStreamWaitValue64_v2_ptsz(long h, long addr, long v, int flags) { return waitValue("cuStreamWaitValue64", h, addr, v, 8, flags, true); }
    @Override public int cuStreamWaitValue64(long h, long addr, long v, int flags) { return waitValue("cuStreamWaitValue64", h, addr, v, 8, flags, false); }
    @Override public int cuStreamWaitValue64_ptsz(long h, long addr, long v, int flags) { return waitValue("cuStreamWaitValue64", h, addr, v, 8, flags, true); }

    private static final ThreadLocal<Integer> CAPTURE_MODE = ThreadLocal.withInitial(() -> 0);

    /** The first ABI (the same argument). */
    @Override public int cuStreamDestroy(long hStream) { return cuStreamDestroy_v2(hStream); }
}
