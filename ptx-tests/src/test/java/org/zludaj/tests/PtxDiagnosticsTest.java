package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Malformed PTX reaches the application as CUDA_ERROR_INVALID_PTX with the diagnostics in the JIT error log. */
class PtxDiagnosticsTest {
    @Test
    void invalidPtxIsReportedThroughTheJitLog(@TempDir Path dir) throws Exception {
        Path exe = Programs.gccAgainstDist(dir, "ptx_errors.c", "ptx_errors");
        Programs.Result r = Programs.withShim(exe, Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: malformed PTX is reported, not fatal"), r.toString());
    }
}
