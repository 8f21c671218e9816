package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * c/driver_streams.c through the shim: streams run asynchronously with CUDA's ordering (queries NOT_READY while work
 * is pending, events across streams, the legacy default stream against blocking and non-blocking streams, the
 * per-thread default stream, page-locked asynchronous copies, callbacks in order). The same program passes on
 * NVIDIA's driver (see the issue note).
 */
class DriverStreamsTest {
    @Test
    void streamsAreAsynchronousQueuesWithCudaOrdering(@TempDir Path dir) throws Exception {
        Path exe = Programs.gccAgainstDist(dir, "driver_streams.c", "driver_streams");
        Programs.Result r = Programs.withShim(exe, Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: streams"), r.toString());
    }

    /**
     * c/driver_stream_order.c: CUDA's implicit synchronization between the legacy stream and blocking streams holds
     * for kernels, and asynchronous copies and sets keep their stream's order (a slow kernel first, then what reads
     * its result). On the GPU machine natively and through the cuda backend (tools/gpu-check).
     */
    @Test
    void kernelsAndAsynchronousCopiesKeepCudasOrderBetweenStreams(@TempDir Path dir) throws Exception {
        Path exe = Programs.gccAgainstDist(dir, "driver_stream_order.c", "driver_stream_order");
        Programs.Result r = Programs.withShim(exe, Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("results: 42 52 61 72 81 91"), r.toString());
        assertTrue(r.stdout().contains("PASS: stream order"), r.toString());
    }
}
