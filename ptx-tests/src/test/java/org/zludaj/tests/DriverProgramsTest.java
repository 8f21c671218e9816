package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Driver programs in C through the shim. c/driver_memcpy2d.c: pitched allocation, 2-D copies in every direction with offsets and pitches,
 * 2-D sets, and the error codes. Its output is NVIDIA's (recorded on an H200: pitch 512 for 400 bytes, errors 1 1 1 1).
 */
class DriverProgramsTest {
    /** Builds c/NAME.c against the distribution, runs it through the shim, checks its exit status and PASS line. */
    private static Programs.Result passes(Path dir, String name, String pass) throws Exception {
        Path exe = Programs.gccAgainstDist(dir, name + ".c", name);
        Programs.Result r = Programs.withShim(exe, Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains(pass), r.toString());
        return r;
    }

    @Test
    void pitchedMemoryAndTwoDimensionalCopiesAsNvidia(@TempDir Path dir) throws Exception {
        Programs.Result r = passes(dir, "driver_memcpy2d", "PASS: 2-D copies");
        assertTrue(r.stdout().contains("pitch for 400 bytes: 512\n"), r.toString());
        assertTrue(r.stdout().contains("errors: 1 1 1 1\n"), r.toString());
    }

    /**
     * c/driver_kernel_attrs.c: the dynamic shared memory opt-in (64 KiB launch refused, then allowed), PTX_VERSION and
     * static shared size, cuLaunchKernelEx with a launch attribute, occupancy derived from the device's attributes.
     * The program passes on an H200 with NVIDIA's driver too.
     */
    @Test
    void kernelAttributesLaunchExAndOccupancyAsNvidia(@TempDir Path dir) throws Exception {
        passes(dir, "driver_kernel_attrs", "PASS: kernel attributes");
    }

    /**
     * c/driver_pointers.c: pointer attributes of device, host, registered and unknown memory, address ranges,
     * cuMemHostRegister/Unregister errors, host allocation flags, stream flags/priority/context/id. Passes on an H200.
     */
    @Test
    void pointerAttributesRegisteredMemoryAndStreamPropertiesAsNvidia(@TempDir Path dir) throws Exception {
        passes(dir, "driver_pointers", "PASS: pointers and streams");
    }

    /**
     * c/driver_functions.c: function names, modules, enumeration and loading state, peer queries and copies on one
     * device, managed-memory prefetch and advice, cache preference, persisting-L2 reset. Passes on an H200.
     */
    @Test
    void functionIdentityPeersAndManagedHintsAsNvidia(@TempDir Path dir) throws Exception {
        passes(dir, "driver_functions", "PASS: functions");
    }

    /**
     * c/driver_graphs.c: stream capture (arguments kept as at capture), node count, instantiate, replays,
     * cuGraphExecUpdate with the same and another shape, capture broken by a synchronization, the legacy stream
     * refused. Passes on an H200 with NVIDIA's driver.
     */
    @Test
    void streamCaptureGraphsReplayAndUpdateAsNvidia(@TempDir Path dir) throws Exception {
        passes(dir, "driver_graphs", "PASS: graphs");
    }
}
