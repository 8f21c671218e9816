package org.zludaj.driver;

import org.zludaj.api.CuEventApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/** Events (cuEvent*): records enqueued in streams, waits, queries, timing. */
final class EventApi implements CuEventApi {
    private final Driver d;
    private final StreamApi streams;

    EventApi(Driver d) {
        this.d = d;
        this.streams = new StreamApi(d);
    }

    @Override
    public int cuEventCreate(long phEvent, int flags) {
        return Api.call("cuEventCreate", () -> {
            Mem.nonNull(phEvent, "phEvent");
            d.requireUsable();
            if ((flags & ~0xF) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "event flags " + flags);
            HostRuntime.putLong(phEvent, d.handles.add(new Event(flags)));
        });
    }

    @Override
    public int cuEventDestroy_v2(long hEvent) {
        return Api.call("cuEventDestroy", () -> {
            d.handles.get(hEvent, Event.class);
            d.handles.remove(hEvent);
        });
    }

    private int record(long hEvent, long hStream, boolean ptds) {
        return Api.call("cuEventRecord", () -> {
            Event e = d.handles.get(hEvent, Event.class);
            Stream s = streams.resolve(hStream, ptds);
            if (s.capture != null) {  // in a capture: the event marks the capture's place (for cross-stream joins)
                e.recordInCapture(s);
                return;
            }
            e.record(s.enqueue("cuEventRecord", () -> {
                s.context.fence(d.backend, s.deviceQueue());  // the event completes when the device has done the stream's earlier work
                e.recordedNanos = System.nanoTime();
            }, null, null));
        });
    }

    @Override public int cuEventRecord(long hEvent, long hStream) { return record(hEvent, hStream, false); }
    @Override public int cuEventRecord_ptsz(long hEvent, long hStream) { return record(hEvent, hStream, true); }

    @Override
    public int cuEventRecordWithFlags(long hEvent, long hStream, int flags) {
        if ((flags & ~1) != 0) return Api.call("cuEventRecordWithFlags", () -> {
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
        });
        return record(hEvent, hStream, false);
    }

    @Override
    public int cuEventRecordWithFlags_ptsz(long hEvent, long hStream, int flags) {
        if ((flags & ~1) != 0) return cuEventRecordWithFlags(hEvent, hStream, flags);
        return record(hEvent, hStream, true);
    }

    /** Waits for the event's latest record (at once when never recorded). */
    @Override
    public int cuEventSynchronize(long hEvent) {
        return Api.call("cuEventSynchronize", () -> {
            Event e = d.handles.get(hEvent, Event.class);
            var r = e.recorded();
            if (r != null) r.join();
            Context c = d.current();
            if (c != null) c.checkSticky();
        });
    }

    @Override
    public int cuEventQuery(long hEvent) {
        return Api.call("cuEventQuery", () -> {
            Event e = d.handles.get(hEvent, Event.class);
            var r = e.recorded();
            if (r != null && !r.isDone()) throw new CudaException(CuResult.CUDA_ERROR_NOT_READY, null);
        });
    }

    @Override
    public int cuEventElapsedTime_v2(long pMilliseconds, long hStart, long hEnd) {
        return Api.call("cuEventElapsedTime", () -> {
            Mem.nonNull(pMilliseconds, "pMilliseconds");
            Event a = d.handles.get(hStart, Event.class), b = d.handles.get(hEnd, Event.class);
            if ((a.flags & 2) != 0 || (b.flags & 2) != 0)  // CU_EVENT_DISABLE_TIMING
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_HANDLE, "event created with CU_EVENT_DISABLE_TIMING");
            if (a.recorded() == null || b.recorded() == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_HANDLE, "event not recorded");
            if (!a.recorded().isDone() || !b.recorded().isDone()) throw new CudaException(CuResult.CUDA_ERROR_NOT_READY, "event not completed");
            float ms = (b.recordedNanos - a.recordedNanos) / 1e6f;
            HostRuntime.putInt(pMilliseconds, Float.floatToRawIntBits(ms));
        });
    }

    @Override
    public int cuEventElapsedTime(long pMilliseconds, long hStart, long hEnd) {
        return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
    }

    /** The first ABI (the same argument). */
    @Override public int cuEventDestroy(long hEvent) { return cuEventDestroy_v2(hEvent); }
}
