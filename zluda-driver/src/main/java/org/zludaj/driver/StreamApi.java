package org.zludaj.driver;

import org.zludaj.api.CuResult;
import org.zludaj.api.CuStreamApi;
import org.zludaj.nativ.HostRuntime;

/** Streams (cuStream*). Work completes before each call returns in this slice, so waits and queries are immediate. */
final class StreamApi implements CuStreamApi {
    static final long LEGACY = 1, PER_THREAD = 2;
    private final Driver d;

    StreamApi(Driver d) {
        this.d = d;
    }

    /** Validates a stream argument: 0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, or a live stream. */
    Stream stream(long handle) throws CudaException {
        if (handle == 0 || handle == LEGACY || handle == PER_THREAD) return null;
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
            d.requireCurrent();
            if ((flags & ~1) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "stream flags " + flags);
            HostRuntime.putLong(phStream, d.handles.add(new Stream(flags, priority)));
        });
    }

    @Override
    public int cuStreamDestroy_v2(long hStream) {
        return Api.call("cuStreamDestroy", () -> {
            d.handles.get(hStream, Stream.class);
            d.handles.remove(hStream);
        });
    }

    private int sync(String name, long hStream) {
        return Api.call(name, () -> {
            Context c = d.requireCurrent();
            stream(hStream);
            d.backend.synchronize();
            c.checkSticky();
        });
    }

    @Override public int cuStreamSynchronize(long hStream) { return sync("cuStreamSynchronize", hStream); }
    @Override public int cuStreamSynchronize_ptsz(long hStream) { return sync("cuStreamSynchronize", hStream); }
    @Override public int cuStreamQuery(long hStream) { return sync("cuStreamQuery", hStream); }
    @Override public int cuStreamQuery_ptsz(long hStream) { return sync("cuStreamQuery", hStream); }

    /** The callback runs when the stream's earlier work is done: at once, as work completes before calls return. */
    @Override
    public int cuStreamAddCallback(long hStream, long callback, long userData, int flags) {
        return Api.call("cuStreamAddCallback", () -> {
            d.requireCurrent();
            stream(hStream);
            Mem.nonNull(callback, "callback");
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            d.backend.synchronize();
            HostRuntime.callStreamCallback(callback, hStream, CuResult.CUDA_SUCCESS, userData);
        });
    }

    @Override
    public int cuStreamAddCallback_ptsz(long hStream, long callback, long userData, int flags) {
        return cuStreamAddCallback(hStream, callback, userData, flags);
    }

    @Override
    public int cuStreamWaitEvent(long hStream, long hEvent, int flags) {
        return Api.call("cuStreamWaitEvent", () -> {
            stream(hStream);
            d.handles.get(hEvent, Event.class);
        });
    }

    @Override
    public int cuStreamWaitEvent_ptsz(long hStream, long hEvent, int flags) {
        return cuStreamWaitEvent(hStream, hEvent, flags);
    }
}
