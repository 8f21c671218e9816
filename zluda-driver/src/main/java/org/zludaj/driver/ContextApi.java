package org.zludaj.driver;

import java.util.ArrayList;
import java.util.List;

import java.util.ArrayDeque;
import org.zludaj.api.CuContextApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/** Contexts (cuCtx*) and primary contexts (cuDevicePrimaryCtx*). Each thread has its own context stack. */
final class ContextApi implements CuContextApi {
    private final Driver d;

    ContextApi(Driver d) {
        this.d = d;
    }

    @Override
    public int cuCtxGetCurrent(long pctx) {
        return Api.call("cuCtxGetCurrent", () -> {
            Mem.nonNull(pctx, "pctx");
            d.requireInit();
            Context c = d.current();
            HostRuntime.putLong(pctx, c == null ? 0 : c.handle);
        });
    }

    @Override
    public int cuCtxSetCurrent(long ctx) {
        return Api.call("cuCtxSetCurrent", () -> {
            d.requireInit();
            ArrayDeque<Context> s = d.stack();
            if (ctx == 0) {
                s.pollLast();
                return;
            }
            Context c = d.contextOrDestroyed(ctx);
            s.pollLast();
            s.addLast(c);
        });
    }

    @Override
    public int cuCtxPushCurrent_v2(long ctx) {
        return Api.call("cuCtxPushCurrent", () -> {
            d.requireInit();
            d.stack().addLast(d.contextOrDestroyed(ctx));
        });
    }

    @Override
    public int cuCtxPopCurrent_v2(long pctx) {
        return Api.call("cuCtxPopCurrent", () -> {
            d.requireInit();
            Context c = d.stack().pollLast();
            if (c == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_CONTEXT, "context stack is empty");
            if (pctx != 0) HostRuntime.putLong(pctx, c.handle);
        });
    }

    @Override
    public int cuCtxGetDevice(long device) {
        return Api.call("cuCtxGetDevice", () -> Mem.putInt(device, d.requireCurrent().device, "device"));
    }

    @Override
    public int cuCtxGetDevice_v2(long device, long ctx) {
        return Api.call("cuCtxGetDevice", () -> Mem.putInt(device, d.context(ctx).device, "device"));
    }

    @Override
    public int cuCtxSynchronize() {
        return Api.call("cuCtxSynchronize", () -> {
            Context c = d.requireCurrent();
            c.checkSticky();
            c.synchronize();
            c.fence(d.backend);
        });
    }

    @Override
    public int cuCtxSynchronize_v2(long ctx) {
        return Api.call("cuCtxSynchronize", () -> {
            Context c = d.context(ctx);
            c.checkSticky();
            c.synchronize();
            c.fence(d.backend);
        });
    }

    @Override
    public int cuCtxCreate_v2(long pctx, int flags, int dev) {
        return Api.call("cuCtxCreate", () -> {
            Mem.nonNull(pctx, "pctx");
            d.checkDevice(dev);
            Context c = new Context(dev, false, flags);
            c.handle = d.handles.add(c);
            d.stack().addLast(c);
            HostRuntime.putLong(pctx, c.handle);
        });
    }

    @Override
    public int cuCtxCreate_v4(long pctx, long ctxCreateParams, int flags, int dev) {
        if (ctxCreateParams != 0) return org.zludaj.api.Unsupported.report("cuCtxCreate_v4 with CUctxCreateParams");
        return cuCtxCreate_v2(pctx, flags, dev);
    }

    @Override
    public int cuCtxDestroy_v2(long ctx) {
        return Api.call("cuCtxDestroy", () -> {
            d.requireInit();
            Context c = d.handles.get(ctx, Context.class);
            if (c.primary) throw new CudaException(CuResult.CUDA_ERROR_INVALID_CONTEXT, "cuCtxDestroy of a primary context");
            c.drain();
            CodeLoader.unloadModulesOf(d, c);
            d.stack().removeIf(x -> x == c);
            d.handles.remove(ctx);
            c.destroyed = true;
            d.destroyedContexts.put(ctx, c);
            d.contextsChanged();
        });
    }

    @Override
    public int cuCtxGetApiVersion(long ctx, long version) {
        return Api.call("cuCtxGetApiVersion", () -> {
            d.context(ctx);
            Mem.putInt(version, 3020, "version");
        });
    }

    @Override
    public int cuCtxGetFlags(long flags) {
        return Api.call("cuCtxGetFlags", () -> Mem.putInt(flags, d.requireCurrent().flags, "flags"));
    }

    @Override
    public int cuCtxSetFlags(int flags) {
        return Api.call("cuCtxSetFlags", () -> d.requireCurrent().flags = flags);
    }

    @Override
    public int cuCtxGetLimit(long pvalue, int limit) {
        return Api.call("cuCtxGetLimit", () -> {
            Context c = d.requireCurrent();
            if (limit < 0 || limit >= c.limits.length) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "no limit " + limit);
            Mem.putLong(pvalue, c.limits[limit], "pvalue");
        });
    }

    @Override
    public int cuCtxSetLimit(int limit, long value) {
        return Api.call("cuCtxSetLimit", () -> {
            Context c = d.requireCurrent();
            if (limit < 0 || limit >= c.limits.length) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "no limit " + limit);
            c.limits[limit] = value;
        });
    }

    @Override
    public int cuCtxGetStreamPriorityRange(long leastPriority, long greatestPriority) {
        return Api.call("cuCtxGetStreamPriorityRange", () -> {
            d.requireCurrent();
            if (leastPriority != 0) HostRuntime.putInt(leastPriority, 0);
            if (greatestPriority != 0) HostRuntime.putInt(greatestPriority, 0);
        });
    }

    @Override
    public int cuCtxGetCacheConfig(long pconfig) {
        return Api.call("cuCtxGetCacheConfig", () -> {
            d.requireCurrent();
            Mem.putInt(pconfig, 0, "pconfig");
        });
    }

    @Override
    public int cuCtxSetCacheConfig(int config) {
        return Api.call("cuCtxSetCacheConfig", () -> {
            d.requireCurrent();
            if (config < 0 || config > 3) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cache config " + config);
        });
    }

    /** Shared memory bank size (deprecated; NVIDIA keeps 4-byte banks: CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE). */
    @Override
    public int cuCtxGetSharedMemConfig(long pConfig) {
        return Api.call("cuCtxGetSharedMemConfig", () -> {
            d.requireCurrent();
            Mem.putInt(pConfig, 1, "pConfig");
        });
    }

    @Override
    public int cuCtxSetSharedMemConfig(int config) {
        return Api.call("cuCtxSetSharedMemConfig", () -> {
            d.requireCurrent();
            if (config < 0 || config > 2) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "shared memory config " + config);
        });
    }

    /**
     * Peer access between contexts: where the backend's GPUs reach each other (HIP's hipDeviceCanAccessPeer), enabling
     * it is HIP's; otherwise CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, as NVIDIA answers for a context of the same device too
     * (recorded on an H200). Copies between devices work without it (cuMemcpyPeer).
     */
    @Override
    public int cuCtxEnablePeerAccess(long peerContext, int flags) {
        return Api.call("cuCtxEnablePeerAccess", () -> {
            Context c = d.requireCurrent();
            Context peer = d.handles.get(peerContext, Context.class);
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            if (!d.backend.canAccessPeer(c.device, peer.device))
                throw new CudaException(CuResult.CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "device " + c.device + " cannot access device " + peer.device);
            synchronized (c.peers) {
                if (c.peers.contains(peer.device)) throw new CudaException(CuResult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "already enabled");
                d.backend.peerAccess(c.device, peer.device, true);
                c.peers.add(peer.device);
            }
        });
    }

    @Override
    public int cuCtxDisablePeerAccess(long peerContext) {
        return Api.call("cuCtxDisablePeerAccess", () -> {
            Context c = d.requireCurrent();
            Context peer = d.handles.get(peerContext, Context.class);
            synchronized (c.peers) {
                if (!c.peers.contains(peer.device)) throw new CudaException(CuResult.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access was never enabled");
                d.backend.peerAccess(c.device, peer.device, false);
                c.peers.remove(peer.device);
            }
        });
    }

    // ---- primary contexts

    @Override
    public int cuDevicePrimaryCtxRetain(long pctx, int dev) {
        return Api.call("cuDevicePrimaryCtxRetain", () -> {
            Mem.nonNull(pctx, "pctx");
            Context c = d.primary[d.checkDevice(dev)];
            synchronized (c) {
                c.retained++;
            }
            HostRuntime.putLong(pctx, c.handle);
        });
    }

    @Override
    public int cuDevicePrimaryCtxRelease_v2(int dev) {
        return Api.call("cuDevicePrimaryCtxRelease", () -> {
            Context c = d.primary[d.checkDevice(dev)];
            synchronized (c) {
                if (c.retained == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_CONTEXT, "primary context is not retained");
                c.retained--;
            }
        });
    }

    @Override
    public int cuDevicePrimaryCtxRelease(int dev) {
        return cuDevicePrimaryCtxRelease_v2(dev);
    }

    @Override
    public int cuDevicePrimaryCtxGetState(int dev, long flags, long active) {
        return Api.call("cuDevicePrimaryCtxGetState", () -> {
            Context c = d.primary[d.checkDevice(dev)];
            Mem.putInt(flags, c.flags, "flags");
            Mem.putInt(active, c.retained > 0 ? 1 : 0, "active");
        });
    }

    @Override
    public int cuDevicePrimaryCtxSetFlags_v2(int dev, int flags) {
        return Api.call("cuDevicePrimaryCtxSetFlags", () -> d.primary[d.checkDevice(dev)].flags = flags);
    }

    @Override
    public int cuDevicePrimaryCtxSetFlags(int dev, int flags) {
        return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
    }

    @Override
    public int cuDevicePrimaryCtxReset_v2(int dev) {
        return Api.call("cuDevicePrimaryCtxReset", () -> {
            Context c = d.primary[d.checkDevice(dev)];
            c.drain();
            CodeLoader.unloadModulesOf(d, c);
            c.localStorage.clear();
            d.contextsChanged();  // the shim's kept context-local values (shim/dark.c) are asked again
            c.sticky = null;
            List<Stream> all = new ArrayList<>(c.streams());
            all.add(c.legacy);  // the legacy stream is not among c.streams(): the fault's own error is usually there
            for (Stream s : all) {
                try {
                    s.takeError();  // reset: errors of earlier work are forgotten
                } catch (CudaException ignored) {
                    // forgotten on purpose
                }
            }
        });
    }

    @Override
    public int cuDevicePrimaryCtxReset(int dev) {
        return cuDevicePrimaryCtxReset_v2(dev);
    }

    /** One device: a device is not its own peer (NVIDIA answers 0 for dev == peerDev too). */
    @Override
    public int cuDeviceCanAccessPeer(long canAccessPeer, int dev, int peerDev) {
        return Api.call("cuDeviceCanAccessPeer", () -> {
            d.checkDevice(dev);
            d.checkDevice(peerDev);
            Mem.putInt(canAccessPeer, d.backend.canAccessPeer(dev, peerDev) ? 1 : 0, "canAccessPeer");
        });
    }

    @Override
    public int cuDeviceGetP2PAttribute(long value, int attrib, int srcDevice, int dstDevice) {
        return Api.call("cuDeviceGetP2PAttribute", () -> {
            d.checkDevice(srcDevice);
            d.checkDevice(dstDevice);
            if (srcDevice == dstDevice) throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "a device is not its own peer");
            // ACCESS_SUPPORTED (2) as cuDeviceCanAccessPeer; performance rank, native atomics, array access: 0
            Mem.putInt(value, attrib == 2 && d.backend.canAccessPeer(srcDevice, dstDevice) ? 1 : 0, "value");
        });
    }

    /** No persisting L2 lines exist here: nothing to reset. */
    @Override
    public int cuCtxResetPersistingL2Cache() {
        return Api.call("cuCtxResetPersistingL2Cache", d::requireCurrent);
    }

    // the first ABI of these (the same arguments): as the _v2 functions
    @Override public int cuCtxCreate(long pctx, int flags, int dev) { return cuCtxCreate_v2(pctx, flags, dev); }
    @Override public int cuCtxDestroy(long ctx) { return cuCtxDestroy_v2(ctx); }
    @Override public int cuCtxPushCurrent(long ctx) { return cuCtxPushCurrent_v2(ctx); }
    @Override public int cuCtxPopCurrent(long pctx) { return cuCtxPopCurrent_v2(pctx); }

    /**
     * Records the event after all work submitted to the context so far: a marker in each of its streams (the legacy
     * stream included), the event completing when all have.
     */
    @Override
    public int cuCtxRecordEvent(long hCtx, long hEvent) {
        return Api.call("cuCtxRecordEvent", () -> {
            Context c = d.context(hCtx);
            Event e = d.handles.get(hEvent, Event.class);
            java.util.List<java.util.concurrent.CompletableFuture<Void>> done = new java.util.ArrayList<>();
            java.util.List<Stream> all = new java.util.ArrayList<>(c.streams());
            all.add(c.legacy);
            for (Stream s : all) {
                if (s.capture != null) throw new CudaException(CuResult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "a stream of the context is capturing");
            }
            for (Stream s : all) done.add(s.enqueue("cuCtxRecordEvent", () -> s.context.fence(d.backend, s.deviceQueue()), null, null));
            e.record(java.util.concurrent.CompletableFuture.allOf(done.toArray(new java.util.concurrent.CompletableFuture<?>[0])).thenRun(() -> {
                e.recordedNanos = System.nanoTime();
            }));
        });
    }

    /** The context's streams (the legacy one included) wait for the event's work before their later work. */
    @Override
    public int cuCtxWaitEvent(long hCtx, long hEvent) {
        return Api.call("cuCtxWaitEvent", () -> {
            Context c = d.context(hCtx);
            Event e = d.handles.get(hEvent, Event.class);
            java.util.List<Stream> all = new java.util.ArrayList<>(c.streams());
            all.add(c.legacy);
            for (Stream s : all) s.enqueue("cuCtxWaitEvent", () -> {}, e.recorded(), null);
        });
    }

    /** A context's id: unique in the process, as NVIDIA's (the handle serves: handles are never reused). */
    @Override
    public int cuCtxGetId(long ctx, long ctxId) {
        return Api.call("cuCtxGetId", () -> {
            Context c = d.context(ctx);
            Mem.putLong(ctxId, c.handle, "ctxId");
        });
    }
}
