package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cuda backend's calls to NVIDIA's driver, on a machine without NVIDIA's: c/fake_nvidia.c stands in for
 * libcuda.so.1 (ZLUDA_NVIDIA_LIB), records every launch and graph call, and c/cuda_backend_calls.c drives the backend
 * through our shim. The recorded sequence is the exact one expected: NVIDIA's primary context retained at the first
 * call that needs it (a module's load), not by cuInit or the application's context calls; plain launches as cuLaunchKernel; a captured
 * graph of kernels as one NVIDIA graph (instantiated at its first launch, launched once per replay, made again after
 * cuGraphExecKernelNodeSetParams, destroyed with the executable); a graph with a memset node node by node; a launch's
 * argument as it was at the call, behind pending work (copied) and on an idle stream (read during the call); a
 * cooperative launch queued on its stream with no synchronization after it, and captured, an NVIDIA graph node with
 * the COOPERATIVE attribute (the grid checked against NVIDIA's own occupancy of the kernel); occupancy, NUM_REGS and
 * MAX_THREADS_PER_BLOCK as NVIDIA's driver counts them for the compiled kernel; a CUDA stream's (blocking) NVIDIA stream
 * made at its first use, asynchronous sets queued there, and the legacy stream's kernels on NVIDIA's legacy stream
 * (CU_STREAM_LEGACY), so that NVIDIA's driver keeps CUDA's implicit synchronization between them.
 */
class CudaBackendFakeTest {
    /** c/SOURCE.c built against the distribution and run through our shim on the cuda backend over the fake driver. */
    private static Programs.Result overFake(Path dir, String source, Path log) throws Exception {
        Path fake = Programs.build(List.of("gcc", "-O1", "-Wall", "-shared", "-fPIC", "-o", dir.resolve("libfake_nvidia.so").toString(),
                Programs.TESTS.resolve("c/fake_nvidia.c").toString()), dir.resolve("libfake_nvidia.so"), dir);
        Path program = Programs.gccAgainstDist(dir, source + ".c", source);
        return Programs.withShim(program, Map.of("ZLUDA_BACKEND", "cuda", "ZLUDA_NVIDIA_LIB", fake.toString(),
                "FAKE_NVIDIA_LOG", log.toString(), "ZLUDA_CACHE_DIR", dir.resolve("cache").toString()));
    }

    @Test
    void launchesAndGraphReplaysReachNvidiasDriverAsExpected(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("calls.txt");
        Programs.Result r = overFake(dir, "cuda_backend_calls", log);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: cuda backend calls"), r.toString());
        assertEquals(List.of(
                "program: context current",
                "primary context retained",
                "stream created, blocking",
                "launch a grid 1 block 32 shared 0 arg 11",
                "launch b grid 2 block 64 shared 0 arg 12",
                "graph node a grid 1 block 32 shared 0 arg 21 deps 0",
                "graph node b grid 1 block 32 shared 0 arg 22 deps 1",
                "graph node a grid 3 block 32 shared 0 arg 23 deps 1",
                "graph instantiate 1 of 3 nodes",
                "graph launch 1",
                "graph launch 1",
                "graph destroy 1",
                "graph node a grid 1 block 32 shared 0 arg 21 deps 0",
                "graph node b grid 1 block 32 shared 0 arg 33 deps 1",
                "graph node a grid 3 block 32 shared 0 arg 23 deps 1",
                "graph instantiate 2 of 3 nodes",
                "graph launch 2",
                "graph destroy 2",
                "set of 256 words",
                "launch a grid 1 block 32 shared 0 arg 41",
                "launch a grid 1 block 32 shared 0 arg 51",
                "launch a grid 1 block 32 shared 0 arg 52",
                "cuOccupancyMaxActiveBlocksPerMultiprocessor block=32 shared=0",
                "cooperative launch a grid 2 block 32 shared 0 arg 61 on a stream",
                "cuOccupancyMaxActiveBlocksPerMultiprocessor block=32 shared=0",
                "graph node a grid 2 block 32 shared 0 arg 71 deps 0",
                "graph node attribute 2 = 1",
                "graph node b grid 1 block 32 shared 0 arg 72 deps 1",
                "graph instantiate 3 of 2 nodes",
                "graph launch 3",
                "graph destroy 3",
                "cuOccupancyMaxActiveBlocksPerMultiprocessor block=128 shared=0",
                "launch a grid 1 block 32 shared 0 arg 81 on the legacy stream",
                "stream created, blocking",
                "launch b grid 1 block 32 shared 0 arg 82",
                "context synchronize"), Files.readAllLines(log), r.stderr());
    }

    /**
     * c/driver_sticky.c on the cuda backend: a kernel fault that NVIDIA's driver reports at the next synchronization
     * (the fake's kernel "fault") becomes the context's sticky error, so the synchronization after it and every call
     * that uses the context answer 719, as NVIDIA's driver does (its answers up to the reset are the program's check).
     */
    @Test
    void aFaultReportedBySynchronizationIsSticky(@TempDir Path dir) throws Exception {
        Programs.Result r = overFake(dir, "driver_sticky", dir.resolve("calls.txt"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("results: 0 719 719 719 719 719 719 719 719 719 719 719 719 0 0"), r.toString());
        assertTrue(r.stdout().contains("PASS: sticky errors"), r.toString());
    }

    /**
     * c/driver_library_reset.c on the cuda backend: a cuLibrary's kernel loaded before a fault (which made the backend
     * reset NVIDIA's context) never reaches NVIDIA's driver, whose cuLaunchKernel crashed on a function of its
     * destroyed context: the launch is queued and fails with CUDA_ERROR_CONTEXT_IS_DESTROYED, which the next
     * synchronization reports (as an asynchronous launch's failure); a module loaded after the reset launches.
     */
    @Test
    void aKernelOfTheContextAFaultDestroyedIsRefused(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("calls.txt");
        Programs.Result r = overFake(dir, "driver_library_reset", log);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("before: 0, fault: 0 719, reset: 0, stale kernel: 0, new module: 0 0 709"), r.toString());
        List<String> launches = Files.readAllLines(log).stream().filter(l -> l.startsWith("launch ")).toList();
        assertEquals(3, launches.size(), launches.toString());
        assertTrue(launches.get(0).startsWith("launch store ") && launches.get(1).equals("launch fault")
                && launches.get(2).startsWith("launch store "), launches.toString());
    }
}
