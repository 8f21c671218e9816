package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hip backend (AMD GPUs, the product) end to end without an AMD GPU: a C program through our libcuda.so.1 and
 * libcublas.so.13, the JVM, the hip backend and rt/hip.c, over c/fake_hip.c, a recording fake of AMD's HIP runtime and
 * rocBLAS (one gfx1100; ZLUDA_HIP_LIB and ZLUDA_ROCBLAS_LIB name it). c/hip_backend_blas.c checks what rocBLAS is
 * asked for each of ggml's GEMM calls, the ones the shim repeats without the JVM (shim/blas.c) included;
 * c/hip_backend_launches.c the launches and graph replays HIP gets from a module compiled for the fake's gfx1100.
 */
class HipBackendFakeTest {
    private static Programs.Result overFake(Path dir, String source, Map<String, String> env) throws Exception {
        Path fake = Programs.build(List.of("gcc", "-O1", "-Wall", "-shared", "-fPIC", "-o", dir.resolve("libfake_hip.so").toString(),
                Programs.TESTS.resolve("c/fake_hip.c").toString()), dir.resolve("libfake_hip.so"), dir);
        Path program = Programs.build(List.of("gcc", "-O1", "-Wall", "-o", dir.resolve(source).toString(),
                Programs.TESTS.resolve("c/" + source + ".c").toString(), "-L" + Programs.DIST.resolve("lib"), "-l:libcublas.so.13", "-lcuda"),
                dir.resolve(source), dir);
        var all = new java.util.HashMap<>(env);
        all.putAll(Map.of("ZLUDA_BACKEND", "hip", "ZLUDA_HIP_LIB", fake.toString(), "ZLUDA_ROCBLAS_LIB", fake.toString(),
                "FAKE_HIP_LOG", dir.resolve("calls.txt").toString(), "ZLUDA_PROFILE", "calls", "ZLUDA_CACHE_DIR", dir.resolve("cache").toString()));
        return Programs.withShim(program, all);
    }

    /** How many calls of {@code function} entered the JVM: its row of the ZLUDA_PROFILE=calls table. */
    private static int enteredTheJvm(Programs.Result r, String function) {
        var row = java.util.regex.Pattern.compile("(?m)^" + function + "\\s+(\\d+)").matcher(r.stderr());
        assertTrue(row.find(), "no " + function + " row in the calls table:\n" + r.stderr());
        return Integer.parseInt(row.group(1));
    }

    /**
     * ggml's four GEMM entry points reach rocBLAS as they must (c/hip_backend_blas.c compares each call); of 53
     * cublasGemmEx calls only the first of a kind, those after a settings change, the refused ones and the captured one
     * enter the JVM, of 20 calls each of the other three one.
     */
    @Test
    void ggmlsGemmsReachRocblasAsAskedMostWithoutTheJvm(@TempDir Path dir) throws Exception {
        Programs.Result r = overFake(dir, "hip_backend_blas", Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: hip backend blas"), r.toString());
        int gemmEx = enteredTheJvm(r, "cublasGemmEx");
        assertTrue(gemmEx <= 16, gemmEx + " of 53 cublasGemmEx calls entered the JVM:\n" + r.stderr());
        assertTrue(enteredTheJvm(r, "cublasSgemm") <= 2, r.stderr());
        assertTrue(enteredTheJvm(r, "cublasGemmStridedBatchedEx") <= 3, r.stderr());  // one refused
        assertTrue(enteredTheJvm(r, "cublasGemmBatchedEx") <= 2, r.stderr());
    }

    /**
     * Kernels compiled for gfx1100 launch in order with their arguments, most without the JVM (shim/launch.c), and so do
     * device-to-device copies between them (shim/copy.c); a graph of kernels replays in order at each launch (one
     * native call, HipSequence) and after an update in place; one of kernel, GEMM, kernel too (one submission on the
     * caller's thread where the stream is idle), also behind a host function queued on the stream.
     */
    @Test
    void launchesAndGraphReplaysReachHipInOrder(@TempDir Path dir) throws Exception {
        Programs.Result r = overFake(dir, "hip_backend_launches", Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: hip backend launches"), r.toString());
        int launches = enteredTheJvm(r, "cuLaunchKernel"), copies = enteredTheJvm(r, "cuMemcpyDtoDAsync");
        assertTrue(launches <= 10, launches + " of 58 launches entered the JVM:\n" + r.stderr());
        assertTrue(copies <= 2, copies + " of 20 copies entered the JVM:\n" + r.stderr());
    }

    /** The same with ZLUDA_DIRECT_LAUNCH=0: every launch through the JVM. */
    @Test
    void launchesAndGraphReplaysAllThroughTheJvm(@TempDir Path dir) throws Exception {
        Programs.Result r = overFake(dir, "hip_backend_launches", Map.of("ZLUDA_DIRECT_LAUNCH", "0"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: hip backend launches"), r.toString());
        assertEquals(58, enteredTheJvm(r, "cuLaunchKernel"), r.stderr());
        assertEquals(20, enteredTheJvm(r, "cuMemcpyDtoDAsync"), r.stderr());
    }

    /** With ZLUDA_DIRECT_LAUNCH=0 every call enters the JVM, and rocBLAS is asked the same. */
    @Test
    void ggmlsGemmsAllThroughTheJvmWithoutDirectCalls(@TempDir Path dir) throws Exception {
        Programs.Result r = overFake(dir, "hip_backend_blas", Map.of("ZLUDA_DIRECT_LAUNCH", "0"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: hip backend blas"), r.toString());
        assertEquals(53, enteredTheJvm(r, "cublasGemmEx"), r.stderr());
        assertEquals(20, enteredTheJvm(r, "cublasSgemm"), r.stderr());
        assertEquals(20, enteredTheJvm(r, "cublasGemmBatchedEx"), r.stderr());
    }
}
