package org.zludaj.driver;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.zludaj.api.CuMiscApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/**
 * The profiler control functions (cuProfilerInitialize, cuProfilerStart, cuProfilerStop): no profiler attaches to
 * ZLUDA-J, so, as NVIDIA's driver does without one, they succeed and change nothing. Error log management (cuLogs*):
 * the driver's {@link ErrorLog}, where every failing call explains itself.
 */
final class MiscApi implements CuMiscApi {
    private final Driver d;

    MiscApi(Driver d) {
        this.d = d;
    }

    @Override
    public int cuProfilerInitialize(long configFile, long outputFile, int outputMode) {
        return Api.call("cuProfilerInitialize", () -> d.requireCurrent());
    }

    @Override
    public int cuProfilerStart() {
        return Api.call("cuProfilerStart", () -> d.requireCurrent());
    }

    @Override
    public int cuProfilerStop() {
        return Api.call("cuProfilerStop", () -> d.requireCurrent());
    }

    @Override
    public int cuLogsCurrent(long iteratorOut, int flags) {
        return Api.call("cuLogsCurrent", () -> {
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            Mem.putInt(iteratorOut, (int) d.errorLog.next(), "iterator_out");
        });
    }

    /** The messages from the iterator (all kept when it is NULL); the iterator then names the next message. */
    private List<ErrorLog.Entry> fromIterator(long iterator) {
        long from = iterator == 0 ? 0 : Integer.toUnsignedLong(HostRuntime.getInt(iterator));
        return d.errorLog.since(from);
    }

    /**
     * The messages, each followed by a newline, as many whole ones as fit in *size bytes with the terminating NUL;
     * *size becomes the bytes written without it. None fitting: *size 0 and CUDA_ERROR_INVALID_VALUE.
     */
    @Override
    public int cuLogsDumpToMemory(long iterator, long buffer, long size, int flags) {
        return Api.call("cuLogsDumpToMemory", () -> {
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            if (buffer == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "buffer cannot be NULL");
            Mem.nonNull(size, "size");
            long room = HostRuntime.getLong(size);
            List<ErrorLog.Entry> entries = fromIterator(iterator);
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            long last = -1;
            for (ErrorLog.Entry e : entries) {
                byte[] line = (e.text() + "\n").getBytes(StandardCharsets.UTF_8);
                if (out.size() + line.length + 1 > room) break;
                out.write(line, 0, line.length);
                last = e.sequence();
            }
            if (!entries.isEmpty() && last < 0) {
                HostRuntime.putLong(size, 0);
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "the buffer of " + room + " bytes holds no message");
            }
            byte[] text = out.toByteArray();
            if (room > 0) {
                HostRuntime.write(buffer, text, 0, text.length);
                HostRuntime.write(buffer + text.length, new byte[] {0}, 0, 1);
            }
            HostRuntime.putLong(size, text.length);
            if (iterator != 0 && last >= 0) HostRuntime.putInt(iterator, (int) (last + 1));
        });
    }

    @Override
    public int cuLogsDumpToFile(long iterator, long pathToFile, int flags) {
        return Api.call("cuLogsDumpToFile", () -> {
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            String path = Mem.string(pathToFile, "pathToFile");
            List<ErrorLog.Entry> entries = fromIterator(iterator);
            StringBuilder text = new StringBuilder();
            for (ErrorLog.Entry e : entries) text.append(e.text()).append('\n');
            try {
                java.nio.file.Files.writeString(java.nio.file.Path.of(path), text, java.nio.file.StandardOpenOption.CREATE,
                        java.nio.file.StandardOpenOption.APPEND);
            } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cannot write " + path + ": " + e.getMessage());
            }
            if (iterator != 0 && !entries.isEmpty()) HostRuntime.putInt(iterator, (int) (entries.get(entries.size() - 1).sequence() + 1));
        });
    }

    @Override
    public int cuLogsRegisterCallback(long callbackFunc, long userData, long callbackOut) {
        return Api.call("cuLogsRegisterCallback", () -> {
            Mem.nonNull(callbackFunc, "callbackFunc");
            long handle = d.handles.add(d.errorLog);
            d.errorLog.register(handle, callbackFunc, userData);
            if (callbackOut != 0) HostRuntime.putLong(callbackOut, handle);
        });
    }

    @Override
    public int cuLogsUnregisterCallback(long callback) {
        return Api.call("cuLogsUnregisterCallback", () -> {
            if (!d.errorLog.unregister(callback)) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "no such callback");
            d.handles.remove(callback);
        });
    }
}
