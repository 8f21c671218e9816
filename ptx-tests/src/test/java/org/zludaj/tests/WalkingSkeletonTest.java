package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unmodified programs through ZLUDA-J's libcuda.so.1 on the host backend: a plain C driver-API program, and a CUDA
 * program built by nvcc three ways (static cudart at compute_75, -cudart shared, compute_86).
 */
class WalkingSkeletonTest {
    @Test
    void driverApiProgramFromC(@TempDir Path dir) throws Exception {
        Path exe = Programs.gccAgainstDist(dir, "driver_vectoradd.c", "driver_vectoradd");
        Programs.Result r = Programs.withShim(exe, Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: driver API vectoradd on ZLUDA host CPU"), r.toString());
        // the unimplemented function answers CUDA_ERROR_NOT_SUPPORTED and is named once in the log
        assertTrue(r.stdout().contains("graphics interop: 801 801\n"), r.toString());
        // NVIDIA's answers for a parameter buffer larger / smaller than the kernel's parameters (recorded on an H200)
        assertTrue(r.stdout().contains("parameter buffer of 32 and 24 bytes for 28: 701 0\n"), r.toString());
        assertEquals(1, r.stderr().split("cuGraphicsUnregisterResource is not supported", -1).length - 1, r.toString());
    }

    @Test
    void withoutAJvmEveryCallFailsCleanlyAndTheApplicationRuns(@TempDir Path dir) throws Exception {
        Path exe = Programs.gccAgainstDist(dir, "driver_vectoradd.c", "driver_vectoradd");
        Programs.Result r = Programs.withShim(exe, Map.of("ZLUDA_JAVA_HOME", dir.resolve("no-such-jdk").toString()));
        assertEquals(1, r.exit(), "the application's own error exit, not an abort: " + r);
        assertTrue(r.stderr().contains("ZLUDA-J: the CUDA driver is unavailable"), r.toString());
        assertEquals(1, r.stderr().split("the CUDA driver is unavailable", -1).length - 1, "said once: " + r);
        assertTrue(r.stderr().contains("cuDriverGetVersion(&version) = 3"), "CUDA_ERROR_NOT_INITIALIZED: " + r);
    }

    @Test
    void nvccCompute75StaticCudart(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "vectoradd.cu", "vectoradd75", "-arch=compute_75");
        Programs.Result r = Programs.withShim(exe, Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: vectoradd n=1000003, c[n-1]=3"), r.toString());
        assertTrue(r.stdout().contains("device: ZLUDA host CPU (cc 8.6)"), r.toString());
    }

    @Test
    void nvccSharedCudart(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "vectoradd.cu", "vectoradd_shared", "-arch=compute_75", "-cudart", "shared");
        Programs.Result r = Programs.withShim(exe, Map.of(), "4099");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: vectoradd n=4099"), r.toString());
    }

    @Test
    void nvccCompute86ThroughTheLauncher(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "vectoradd.cu", "vectoradd86", "-arch=compute_86");
        Programs.Result r = Programs.withLauncher(exe, "77777");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: vectoradd n=77777"), r.toString());
    }

    @Test
    void reportedComputeCapabilityFollowsZludaCc(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "vectoradd.cu", "vectoradd75", "-arch=compute_75");
        Programs.Result r = Programs.withShim(exe, Map.of("ZLUDA_CC", "7.5"), "1000");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("(cc 7.5)"), r.toString());
    }

    /**
     * ZLUDA_BACKEND=cuda where NVIDIA's driver cannot be opened: the driver says why, once, and runs the program on
     * the host (the cuda backend itself is checked on an NVIDIA GPU by tools/gpu-check).
     */
    @Test
    void cudaBackendWithoutNvidiasDriverFallsBackToHost(@TempDir Path dir) throws Exception {
        Path exe = Programs.gccAgainstDist(dir, "driver_vectoradd.c", "driver_vectoradd");
        Programs.Result r = Programs.withShim(exe, Map.of("ZLUDA_BACKEND", "cuda", "ZLUDA_NVIDIA_LIB", dir.resolve("no-libcuda.so.1").toString()));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: driver API vectoradd on ZLUDA host CPU"), r.toString());
        assertEquals(1, r.stderr().split("cuda backend unavailable", -1).length - 1, r.toString());
    }
}
