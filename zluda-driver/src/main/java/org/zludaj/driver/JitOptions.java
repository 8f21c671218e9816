package org.zludaj.driver;

import java.nio.charset.StandardCharsets;
import org.zludaj.nativ.HostRuntime;

/**
 * The JIT options of cuModuleLoadDataEx / cuLibraryLoadData that ZLUDA-J honours: the info and error log buffers.
 * As with NVIDIA's driver, a size option's value slot holds the buffer size and receives the bytes written.
 */
final class JitOptions {
    static final int INFO_LOG_BUFFER = 3, INFO_LOG_BUFFER_SIZE_BYTES = 4, ERROR_LOG_BUFFER = 5, ERROR_LOG_BUFFER_SIZE_BYTES = 6;

    private long infoBuffer, infoSizeSlot, errorBuffer, errorSizeSlot;

    static JitOptions read(int count, long options, long values) throws CudaException {
        JitOptions o = new JitOptions();
        if (count <= 0) return o;
        Mem.nonNull(options, "options");
        Mem.nonNull(values, "optionValues");
        for (int i = 0; i < count; i++) {
            int opt = HostRuntime.getInt(options + 4L * i);
            long slot = values + 8L * i;
            switch (opt) {
                case INFO_LOG_BUFFER -> o.infoBuffer = HostRuntime.getLong(slot);
                case INFO_LOG_BUFFER_SIZE_BYTES -> o.infoSizeSlot = slot;
                case ERROR_LOG_BUFFER -> o.errorBuffer = HostRuntime.getLong(slot);
                case ERROR_LOG_BUFFER_SIZE_BYTES -> o.errorSizeSlot = slot;
                default -> { } // other options (optimization level, targets, ...) do not change ZLUDA-J's compilation
            }
        }
        return o;
    }

    void info(String text) {
        write(infoBuffer, infoSizeSlot, text);
    }

    void error(String text) {
        write(errorBuffer, errorSizeSlot, text);
    }

    private static void write(long buffer, long sizeSlot, String text) {
        if (buffer == 0 || sizeSlot == 0) return;
        long size = HostRuntime.getLong(sizeSlot);
        if (size <= 0) return;
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        int n = (int) Math.min(b.length, size - 1);
        HostRuntime.write(buffer, b, 0, n);
        HostRuntime.write(buffer + n, new byte[1], 0, 1);
        HostRuntime.putLong(sizeSlot, n + 1);
    }
}
