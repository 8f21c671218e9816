package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nvcc-built programs of ptx-tests that need the host backend's fibers and the driver's streams, through the shim. */
class HostProgramsTest {
    @Test
    void blockReductionInSharedMemoryWithAtomics(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "reduction.cu", "reduction", "-arch=compute_75");
        Programs.Result r = Programs.withShim(exe, Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: sum = 65536"), r.toString());
    }

    @Test
    void streamsPinnedMemoryEventsAndCallbacks(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "streams.cu", "streams", "-arch=compute_86");
        Programs.Result r = Programs.withShim(exe, Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: streams bad=0 callback=1"), r.toString());
    }
}
