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

    @Test
    void printfFormatsEveryConversionAndAssertFaultsTheContext(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "printf.cu", "printf", "-arch=compute_75");
        Programs.Result r = Programs.withShim(exe, Map.of());
        assertEquals(0, r.exit(), r.toString());
        String out = r.stdout();
        assertTrue(out.contains("thread 0:  0.00 even 0 ff A\n"), r.toString());
        assertTrue(out.contains("thread 1:  1.50 odd 1099511627776 100 B\n"), r.toString());
        assertTrue(out.contains("thread 3:  4.50 odd 3298534883328 102 D\n"), r.toString());
        assertTrue(out.indexOf("thread 3:") < out.indexOf("after say: cudaSuccess"), "printf output is flushed at synchronization");
        assertTrue(out.contains("check ok: cudaSuccess"), r.toString());
        assertTrue(out.contains("check failing: cudaErrorAssert"), r.toString());
        assertTrue(r.stderr().matches("(?s).*printf\\.cu:11: void check\\(int\\): block: \\[0,0,0\\], thread: \\[[3-7],0,0\\] Assertion `threadIdx.x < limit` failed\\..*"),
                r.toString());
    }
}
