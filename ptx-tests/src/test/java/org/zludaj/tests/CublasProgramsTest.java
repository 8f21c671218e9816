package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ZLUDA-J's cuBLAS (dist/lib/libcublas.so.13) from a plain C program linked with -lcublas -lcuda (c/cublas_calls.c):
 * every result checked against a double reference, and the statuses of misused calls equal to those NVIDIA's cuBLAS
 * 13.1 gave on an H100 (c/cublas_calls.expected), where the same program passes with NVIDIA's libraries.
 */
class CublasProgramsTest {
    static Path build(Path dir) throws Exception {
        return build(dir, "cublas_calls", "libcublas.so.13");
    }

    /** c/NAME.c built against the distribution's {@code library} and libcuda. */
    private static Path build(Path dir, String name, String library) throws Exception {
        return Programs.build(List.of("gcc", "-O1", "-Wall", "-o", dir.resolve(name).toString(), Programs.TESTS.resolve("c/" + name + ".c").toString(),
                "-L" + Programs.DIST.resolve("lib"), "-l:" + library, "-lcuda", "-lm"), dir.resolve(name), dir);
    }

    private static String misuse(String text) {
        return text.lines().filter(l -> l.startsWith("misuse ")).collect(Collectors.joining("\n"));
    }

    @Test
    void cublasCallsMatchTheReferenceAndNvidiasStatuses(@TempDir Path dir) throws Exception {
        Programs.Result r = Programs.withShim(build(dir), java.util.Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: cublas"), r.toString());
        assertTrue(r.stdout().contains("status 7: CUBLAS_STATUS_INVALID_VALUE / an unsupported value or parameter was passed to the function"),
                r.toString());
        String nvidia = Files.readString(Programs.TESTS.resolve("c/cublas_calls.expected"));
        assertEquals(misuse(nvidia), misuse(r.stdout()));
    }

    /**
     * cuBLAS calls captured in a CUDA graph with a non-blocking stream and the executable launched six times, new inputs
     * copied in before each, twice without a wait between (c/cublas_graphs.c: ggml's f16 GemmEx, its TF32 Sgemm, a
     * strided batch): every result exact, as with NVIDIA's libraries on an H200.
     */
    @Test
    void cublasCallsCapturedInAGraphRunAtEveryLaunch(@TempDir Path dir) throws Exception {
        Path exe = build(dir, "cublas_graphs", "libcublas.so.13");
        Programs.Result r = Programs.withShim(exe, java.util.Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("6 rounds of the captured graph: every result exact"), r.toString());
        assertTrue(r.stdout().contains("PASS: cublas graphs"), r.toString());
    }

    /**
     * cuBLASLt's matmul from a plain C program linked with -lcublasLt -lcuda (c/cublaslt_calls.c): layouts, batches,
     * scalars and epilogues against a double reference, and the statuses of misused calls equal to those NVIDIA's
     * cuBLASLt 13.1 gave on an H200 (c/cublaslt_calls.expected), where the same program passes with NVIDIA's library.
     */
    @Test
    void cublasLtMatmulMatchesTheReferenceAndNvidiasStatuses(@TempDir Path dir) throws Exception {
        Path exe = build(dir, "cublaslt_calls", "libcublasLt.so.13");
        Programs.Result r = Programs.withShim(exe, java.util.Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: cublaslt"), r.toString());
        String nvidia = Files.readString(Programs.TESTS.resolve("c/cublaslt_calls.expected"));
        assertTrue(nvidia.contains("PASS: cublaslt"), "NVIDIA's run passed the same checks");
        // where NVIDIA's library crashes on a misuse, ours answers an error status instead
        List<String> want = misuse(nvidia).lines().toList(), got = misuse(r.stdout()).lines().toList();
        assertEquals(want.size(), got.size(), r.toString());
        for (int i = 0; i < want.size(); i++) {
            if (want.get(i).endsWith(": crash")) {
                String name = want.get(i).substring(0, want.get(i).length() - "crash".length());
                assertTrue(got.get(i).startsWith(name) && !got.get(i).endsWith(": 0") && !got.get(i).endsWith("crash"), got.get(i));
            } else {
                assertEquals(want.get(i), got.get(i));
            }
        }
    }

    /**
     * A program nvcc built, calling cuBLAS through cudart as CUDA applications do (cuda/cublas_runtime.cu: cudaMalloc'd
     * memory, inputs made by kernels, GEMMs in a stream shared with kernels and async copies, batched forms, trsm,
     * axpy), linked with our libcublas.so.13 and run through the shim and through `zluda run`: every result against a
     * double reference.
     */
    @Test
    void anNvccProgramCallsCublasThroughCudart(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "cublas_runtime.cu", "cublas_runtime", "-arch=compute_86", "-L" + Programs.DIST.resolve("lib"),
                "-l:libcublas.so.13");
        Programs.Result r = Programs.withShim(exe, java.util.Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: cublas runtime"), r.toString());
        Programs.Result launched = Programs.withLauncher(exe);  // zluda run: libcublas.so.13 found by the LD_AUDIT library
        assertEquals(0, launched.exit(), launched.toString());
        assertTrue(launched.stdout().contains("PASS: cublas runtime"), launched.toString());
    }

    /**
     * A cuBLAS call captured in a CUDA graph as an application sees it through cudart (cuda/cublas_graph_nodes.cu, the
     * walk llama.cpp's 2024 graph code made): the program's kernel nodes give their parameters (their function is the
     * kernel's stub: cudart finds it by the v2 parameters' CUkernel), the cuBLAS node is a kernel node whose parameters
     * cudart answers with cudaErrorInvalidDeviceFunction, as NVIDIA's cuBLAS kernels; a kernel node's argument changed in
     * the executable takes effect, the GEMM runs at both launches.
     */
    @Test
    void aGraphsCublasNodeLooksAsNvidiasThroughCudart(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "cublas_graph_nodes.cu", "cublas_graph_nodes", "-arch=compute_86", "-L" + Programs.DIST.resolve("lib"),
                "-l:libcublas.so.13");
        Programs.Result r = Programs.withShim(exe, java.util.Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("node 0: kernel, cudaGraphKernelNodeGetParams: cudaSuccess (fill)"), r.toString());
        assertTrue(r.stdout().contains("node 2: kernel, cudaGraphKernelNodeGetParams: cudaErrorInvalidDeviceFunction"), r.toString());
        assertTrue(r.stdout().contains("PASS: cublas graph nodes (2 kernel nodes of the program, 1 of cuBLAS)"), r.toString());
    }

    /**
     * Every function of the declaration sources (all that NVIDIA's libcublas.so.13 and libcublasLt.so.13 export) is
     * exported by each file we build, with the file's soname as its symbol version, as NVIDIA's are.
     */
    @Test
    void everyExportOfNvidiasLibrariesCarriesItsVersion(@TempDir Path dir) throws Exception {
        Path api = Programs.TESTS.resolve("../../../zluda-native/src/main/api").normalize();
        for (String[] lib : new String[][] {{"cublas.api", "libcublas.so.13", "libcublas.so.12"}, {"cublasLt.api", "libcublasLt.so.13", "libcublasLt.so.12"}}) {
            List<String> names = Files.readAllLines(api.resolve(lib[0])).stream().filter(l -> !l.isBlank() && !l.startsWith("#") && !l.startsWith("@"))
                    .map(l -> l.substring(0, l.indexOf('(')).replaceAll(".* ", "")).toList();
            assertEquals(lib[0].equals("cublas.api") ? 756 : 184, names.size(), lib[0]);
            for (String so : List.of(lib[1], lib[2])) {
                Programs.Result nm = Programs.run(List.of("nm", "-D", "--defined-only", Programs.DIST.resolve("lib/" + so).toString()), java.util.Map.of(), dir);
                java.util.Set<String> exported = nm.stdout().lines().map(l -> l.substring(l.lastIndexOf(' ') + 1)).collect(Collectors.toSet());
                for (String n : names) assertTrue(exported.contains(n + "@@" + so), n + "@@" + so + " is not exported");
            }
        }
    }

    /** Through `zluda run`: the LD_AUDIT library answers the program's libcublas.so.13 with ours. */
    @Test
    void theLauncherRedirectsLibcublas(@TempDir Path dir) throws Exception {
        Programs.Result r = Programs.withLauncher(build(dir));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: cublas"), r.toString());
    }
}
