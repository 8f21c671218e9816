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
 * graph of kernels as one NVIDIA graph (instantiated at its first launch, launched once per replay, changed in place
 * in the nodes that cuGraphExecKernelNodeSetParams or cuGraphExecUpdate change, nothing for an update that changes
 * nothing, destroyed with the executable); a graph with a memset node node by node; a launch's
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
        return overFake(dir, source, log, Map.of());
    }

    private static Programs.Result overFake(Path dir, String source, Path log, Map<String, String> env, String... args) throws Exception {
        Path fake = Programs.build(List.of("gcc", "-O1", "-Wall", "-shared", "-fPIC", "-o", dir.resolve("libfake_nvidia.so").toString(),
                Programs.TESTS.resolve("c/fake_nvidia.c").toString()), dir.resolve("libfake_nvidia.so"), dir);
        Path program = Programs.gccAgainstDist(dir, source + ".c", source);
        var all = new java.util.HashMap<>(env);
        all.putAll(Map.of("ZLUDA_BACKEND", "cuda", "ZLUDA_NVIDIA_LIB", fake.toString(),
                "FAKE_NVIDIA_LOG", log.toString(), "ZLUDA_CACHE_DIR", dir.resolve("cache").toString()));
        return Programs.withShim(program, all, args);
    }

    /** How many calls of {@code function} entered the JVM: its row of the ZLUDA_PROFILE=calls table. */
    private static int enteredTheJvm(Programs.Result r, String function) {
        var row = java.util.regex.Pattern.compile("(?m)^" + function + "\\s+(\\d+)").matcher(r.stderr());
        assertTrue(row.find(), "no " + function + " row in the calls table:\n" + r.stderr());
        return Integer.parseInt(row.group(1));
    }

    /** The log's lines after the program's note {@code from}, up to its note {@code to} (null: the end). */
    private static List<String> arguments(List<String> log, String from, String to) {
        return log.subList(log.indexOf("program: " + from) + 1, to == null ? log.size() : log.indexOf("program: " + to));
    }

    /**
     * c/cuda_backend_direct.c: launches the shim repeats without the JVM (shim/launch.c) reach NVIDIA's driver exactly
     * as launches through the JVM do: each with its own argument, in order, on the right NVIDIA stream; refused where
     * the JVM refuses them (the program checks the codes: block, grid, dynamic shared memory, parameters, .reqntid,
     * .maxntid); behind a host function still running, after it; captured while the stream captures; on the legacy,
     * per-thread and another stream, and from another thread; not after the stream is destroyed or the module
     * unloaded. ZLUDA_PROFILE=calls counts the launches that entered the JVM: 73 of the program's 423, the first of each
     * function on each stream and thread (8: a, r, m, a after its attribute changed, the legacy, per-thread and second
     * stream, the second thread), the 11 refused ones, the launch behind the host function and the one after it, the
     * two captured ones and the first after the capture, the first after the stream's destruction, and the first of
     * each of 48 kernels launched in turn four times (each kept beside the others: a direct-mapped table let two of
     * ggml's kernels take each other's place on every round); of their 192 occupancy queries, the first of each.
     */
    @Test
    void launchesTheShimRepeatsReachNvidiasDriverAsTheJvmsDo(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("calls.txt");
        Programs.Result r = overFake(dir, "cuda_backend_direct", log, Map.of("ZLUDA_PROFILE", "calls"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: launches repeated by the shim"), r.toString());
        List<String> calls = Files.readAllLines(log);
        List<String> expected = new java.util.ArrayList<>(List.of("primary context retained", "stream created, blocking"));
        for (int i = 0; i < 200; i++) expected.add("launch a grid 1 block 32 shared 0 arg " + (1000 + i));
        assertEquals(expected, calls.subList(0, calls.indexOf("program: checks")), r.stderr());
        assertEquals(List.of(
                "launch r grid 1 block 64 shared 0 arg 1100",
                "launch r grid 1 block 64 shared 0 arg 1101",
                "launch m grid 1 block 128 shared 0 arg 1200",
                "launch m grid 1 block 64 shared 0 arg 1201",
                "launch a grid 1 block 32 shared 60000 arg 1300",
                "launch a grid 1 block 32 shared 60000 arg 1301"), arguments(calls, "checks", "host function"));
        assertEquals(List.of(
                "program: host function done",
                "launch a grid 1 block 32 shared 0 arg 2000",
                "launch a grid 1 block 32 shared 0 arg 2001"), arguments(calls, "host function", "capture"));
        List<String> capture = arguments(calls, "capture", "streams");
        assertEquals(List.of(
                "graph node a grid 1 block 32 shared 0 arg 3000 deps 0",
                "graph node a grid 1 block 32 shared 0 arg 3001 deps 1"), capture.subList(0, 2));
        assertTrue(capture.get(2).matches("graph instantiate \\d+ of 2 nodes") && capture.get(3).startsWith("graph launch ")
                && capture.get(4).startsWith("graph destroy "), capture.toString());
        assertEquals(List.of(
                "launch a grid 1 block 32 shared 0 arg 3002",
                "launch a grid 1 block 32 shared 0 arg 3003"), capture.subList(5, capture.size()));
        assertEquals(List.of(
                "launch b grid 2 block 32 shared 0 arg 4000 on the legacy stream",
                "launch b grid 2 block 32 shared 0 arg 4001 on the legacy stream",
                "stream created, blocking",
                "launch b grid 3 block 32 shared 0 arg 4100",
                "launch b grid 3 block 32 shared 0 arg 4101",
                "stream created, blocking",
                "launch a grid 4 block 32 shared 0 arg 4200",
                "launch a grid 4 block 32 shared 0 arg 4201",
                "context synchronize"), arguments(calls, "streams", "thread"));
        assertEquals(List.of(
                "launch a grid 1 block 32 shared 0 arg 7000",
                "launch a grid 1 block 32 shared 0 arg 7001",
                "launch a grid 1 block 32 shared 0 arg 7002"), arguments(calls, "thread", "rotation"));
        List<String> rotation = new java.util.ArrayList<>();
        for (int round = 0; round < 4; round++)
            for (int i = 0; i < 48; i++) rotation.add("launch k" + i + " grid 1 block 32 shared 0 arg " + (6000 + round * 100 + i));
        List<String> rotated = arguments(calls, "rotation", "destroyed");
        assertEquals(rotation, rotated.stream().filter(l -> l.startsWith("launch")).toList());
        // the occupancy of each reached NVIDIA's driver once: the other three rounds were answered in C
        assertEquals(48, rotated.stream().filter(l -> l.startsWith("cuOccupancyMaxActiveBlocksPerMultiprocessor")).count(), rotated.toString());
        assertEquals(List.of(
                "launch a grid 1 block 32 shared 0 arg 5000",
                "context synchronize"), arguments(calls, "destroyed", null));
        int entered = enteredTheJvm(r, "cuLaunchKernel");
        assertEquals(25 + 48, entered, "launches that entered the JVM (of 423):\n" + r.stderr());
    }

    /**
     * c/cuda_backend_copies.c: device-to-device copies the shim repeats without the JVM (shim/copy.c) reach NVIDIA's
     * driver exactly as copies through the JVM do: each its own size, in order, on the right NVIDIA stream, every byte
     * in place (the program checks them); a NULL address refused with CUDA_ERROR_INVALID_VALUE after copies are kept; a
     * copy behind a host function still running after it; a captured copy made by the graph's launch. ZLUDA_PROFILE=calls
     * counts the copies that entered the JVM: 10 of the program's 117, the first on each stream and thread (4: the
     * created, legacy and per-thread streams, the second thread), the two NULL ones, the one behind the host function
     * and the first after it, the captured one and the first after the capture.
     */
    @Test
    void copiesTheShimRepeatsReachNvidiasDriverAsTheJvmsDo(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("calls.txt");
        Programs.Result r = overFake(dir, "cuda_backend_copies", log, Map.of("ZLUDA_PROFILE", "calls"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: device-to-device copies repeated by the shim"), r.toString());
        List<String> calls = Files.readAllLines(log);
        List<String> expected = new java.util.ArrayList<>(List.of("stream created, blocking"));
        for (int i = 0; i < 100; i++) expected.add("copy of " + (100 + i) + " bytes");
        assertEquals(expected, arguments(calls, "copies", "null"), r.stderr());
        assertEquals(List.of("copy of 210 bytes"), arguments(calls, "null", "host function"));  // none of no bytes
        assertEquals(List.of("program: host function done", "copy of 220 bytes", "copy of 221 bytes", "copy of 222 bytes"),
                arguments(calls, "host function", "capture"));
        assertEquals(List.of("copy of 230 bytes", "copy of 231 bytes", "copy of 232 bytes"), arguments(calls, "capture", "streams"));
        assertEquals(List.of(
                "copy of 240 bytes on the legacy stream",
                "copy of 241 bytes on the legacy stream",
                "stream created, blocking",
                "copy of 250 bytes",
                "copy of 251 bytes",
                "context synchronize"), arguments(calls, "streams", "thread"));
        assertEquals(List.of("copy of 300 bytes", "copy of 301 bytes", "copy of 302 bytes"), arguments(calls, "thread", "end"));
        assertEquals(10, enteredTheJvm(r, "cuMemcpyDtoDAsync"), "copies that entered the JVM (of 117):\n" + r.stderr());
    }

    /** c/cuda_backend_direct_blas.c over the fake driver and the fake cuBLAS (FAKE_CUBLAS_DETAIL), with {@code env}. */
    private static Programs.Result directBlas(Path dir, Map<String, String> env) throws Exception {
        Path blas = Files.createDirectories(dir.resolve("nvidia-cublas"));
        Programs.build(List.of("gcc", "-O1", "-Wall", "-shared", "-fPIC", "-o", blas.resolve("libcublas.so.13").toString(),
                Programs.TESTS.resolve("c/fake_cublas.c").toString()), blas.resolve("libcublas.so.13"), dir);
        Files.copy(blas.resolve("libcublas.so.13"), blas.resolve("libcublasLt.so.13"));
        Path fake = Programs.build(List.of("gcc", "-O1", "-Wall", "-shared", "-fPIC", "-o", dir.resolve("libfake_nvidia.so").toString(),
                Programs.TESTS.resolve("c/fake_nvidia.c").toString(), Programs.TESTS.resolve("c/fake_nvidia_exports.c").toString()),
                dir.resolve("libfake_nvidia.so"), dir);
        Path program = Programs.build(List.of("gcc", "-O1", "-Wall", "-o", dir.resolve("cuda_backend_direct_blas").toString(),
                Programs.TESTS.resolve("c/cuda_backend_direct_blas.c").toString(), "-L" + Programs.DIST.resolve("lib"), "-l:libcublas.so.13",
                "-lcuda", "-lpthread"), dir.resolve("cuda_backend_direct_blas"), dir);
        var all = new java.util.HashMap<>(env);
        all.putAll(Map.of("ZLUDA_BACKEND", "cuda", "ZLUDA_NVIDIA_LIB", fake.toString(), "ZLUDA_NVIDIA_CUBLAS", blas.toString(),
                "FAKE_NVIDIA_LOG", dir.resolve("calls.txt").toString(), "FAKE_CUBLAS_DETAIL", "1", "ZLUDA_PROFILE", "calls",
                "ZLUDA_CACHE_DIR", dir.resolve("cache").toString(), "FAKE_NVIDIA_CTX", "1"));
        return Programs.withShim(program, all);
    }

    /**
     * cuBLAS GEMMs the shim repeats without the JVM (shim/blas.c, DirectBlas): c/cuda_backend_direct_blas.c checks, after
     * each call, what NVIDIA's library was asked (sizes, addresses, strides, scalars, stream, math and pointer modes) as
     * calls change their arguments, their handle's settings change between them, queued work and a capture come in
     * between, bad arguments come, two handles of different math modes alternate and two threads use two handles on two
     * streams; of its 91 single-threaded cublasGemmEx calls only those the shim may not repeat enter the JVM (first calls,
     * calls after a settings change, refused arguments, int8 GEMMs, the capture, the alternating handles).
     */
    @Test
    void gemmsRepeatedWithoutTheJvmReachNvidiasCublasAsAsked(@TempDir Path dir) throws Exception {
        Programs.Result r = directBlas(dir, Map.of());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: cuda backend direct blas"), r.toString());
        int gemmEx = enteredTheJvm(r, "cublasGemmEx"), sgemm = enteredTheJvm(r, "cublasSgemm");
        assertTrue(gemmEx <= 40, gemmEx + " of 91 cublasGemmEx calls entered the JVM:\n" + r.stderr());
        assertTrue(sgemm <= 2, sgemm + " of 20 cublasSgemm calls entered the JVM:\n" + r.stderr());
        assertTrue(enteredTheJvm(r, "cublasGemmBatchedEx") <= 2, r.stderr());
        // NVIDIA's context is made current once per thread, not again after each cuBLAS call (which leaves it current)
        long sets = Files.readAllLines(dir.resolve("calls.txt")).stream().filter(l -> l.equals("context set")).count();
        assertTrue(sets <= 8, sets + " times NVIDIA's context was set for 805 GEMMs");
    }

    /** With ZLUDA_DIRECT_LAUNCH=0 every GEMM enters the JVM, and NVIDIA's library is asked the same. */
    @Test
    void gemmsAllThroughTheJvmWithoutDirectCalls(@TempDir Path dir) throws Exception {
        Programs.Result r = directBlas(dir, Map.of("ZLUDA_DIRECT_LAUNCH", "0"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: cuda backend direct blas"), r.toString());
        assertEquals(91, enteredTheJvm(r, "cublasGemmEx"), r.stderr());
        assertEquals(632, enteredTheJvm(r, "cublasGemmStridedBatchedEx"), r.stderr());
        assertEquals(20, enteredTheJvm(r, "cublasSgemm"), r.stderr());
    }

    /** With ZLUDA_DIRECT_LAUNCH=0 every copy enters the JVM, and the same calls reach NVIDIA's driver. */
    @Test
    void copiesAllThroughTheJvmWithoutDirectLaunches(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("calls.txt");
        Programs.Result r = overFake(dir, "cuda_backend_copies", log, Map.of("ZLUDA_PROFILE", "calls", "ZLUDA_DIRECT_LAUNCH", "0"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: device-to-device copies repeated by the shim"), r.toString());
        assertEquals(100, Files.readAllLines(log).stream().filter(l -> l.matches("copy of 1\\d\\d bytes")).count());
        assertEquals(117, enteredTheJvm(r, "cuMemcpyDtoDAsync"), r.stderr());
    }

    /**
     * c/cuda_backend_big_graph.c: a graph of 300 kernels (CudaSequence.IN_BACKGROUND or more). Its first replay launches
     * them one by one, in order, while another thread builds, instantiates and uploads NVIDIA's graph of them (on a
     * non-blocking stream of its own); the next replay is that graph's launch, and a node set in the executable changes
     * its node in place. A node set right after the first replay of another executable, while its graph may still be
     * built, is in that graph when it is (whichever came first), and the later replay launches it.
     */
    @Test
    void aLargeGraphIsBuiltInTheBackgroundWhileItsFirstReplayLaunchesItsKernels(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("calls.txt");
        Programs.Result r = overFake(dir, "cuda_backend_big_graph", log);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: cuda backend big graph"), r.toString());
        List<String> all = Files.readAllLines(log);
        String[] ids = new String[2];
        for (int k = 0; k < 2; k++) {
            List<String> first = arguments(all, k == 0 ? "first replay" : "updated while built", k == 0 ? "second replay" : "after the update");
            int base = k == 0 ? 1000 : 2000;
            assertEquals(java.util.stream.IntStream.range(0, 300).mapToObj(i -> "launch a grid 1 block 32 shared 0 arg " + (base + i)).toList(),
                    first.stream().filter(l -> l.startsWith("launch ")).toList(), "the first replay: the kernels one by one, in order");
            List<String> nodes = first.stream().filter(l -> l.startsWith("graph node ")).toList();
            // (node 7 of the second may already have the argument it is updated to, if the update came before its node)
            List<String> expected = java.util.stream.IntStream.range(0, 300).mapToObj(i -> "graph node a grid 1 block 32 shared 0 arg "
                    + (base == 2000 && i == 7 && nodes.size() > 7 && nodes.get(7).contains("arg 7777 ") ? 7777 : base + i)
                    + " deps " + (i == 0 ? 0 : 1)).toList();
            assertEquals(expected, nodes, "NVIDIA's graph: the same launches, chained");
            String instantiated = first.stream().filter(l -> l.matches("graph instantiate \\d+ of 300 nodes")).findFirst()
                    .orElseThrow(() -> new AssertionError("not instantiated: " + first));
            ids[k] = instantiated.split(" ")[2];
            assertTrue(first.contains("graph upload " + ids[k]), "uploaded where it was built: " + first);
            assertTrue(first.indexOf("graph upload " + ids[k]) > first.indexOf(instantiated), "uploaded once instantiated");
            assertFalse(first.stream().anyMatch(l -> l.startsWith("graph launch")), "no graph launched by the first replay");
        }
        assertTrue(arguments(all, "first replay", "second replay").contains("stream created, non-blocking"), "the upload's own stream");
        assertEquals(List.of("graph launch " + ids[0], "graph exec " + ids[0] + " node a grid 1 block 32 shared 0 arg 5555"),
                arguments(all, "second replay", "third replay"));
        assertEquals(List.of("graph launch " + ids[0], "graph destroy " + ids[0]), arguments(all, "third replay", "updated while built"));
        // the update of the second executable: one node change, before or after its graph was there, then its launch
        List<String> updated = arguments(all, "updated while built", "end");
        assertEquals(1, updated.stream().filter(l -> l.equals("graph exec " + ids[1] + " node a grid 1 block 32 shared 0 arg 7777")).count(),
                updated.toString());
        assertEquals(List.of("graph launch " + ids[1], "graph destroy " + ids[1]), arguments(all, "after the update", "end"));
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
                "graph exec 1 node b grid 1 block 32 shared 0 arg 33",
                "graph launch 1",
                "graph exec 1 node b grid 1 block 32 shared 0 arg 34",
                "graph launch 1",
                "graph launch 1",
                "graph destroy 1",
                "set of 256 words",
                "launch a grid 1 block 32 shared 0 arg 41",
                // kernels captured around a stream write: node by node at each of two launches, the write between
                "launch a grid 1 block 32 shared 0 arg 42",
                "launch b grid 1 block 32 shared 0 arg 43",
                "launch a grid 1 block 32 shared 0 arg 42",
                "launch b grid 1 block 32 shared 0 arg 43",
                "launch a grid 1 block 32 shared 0 arg 51",
                "launch a grid 1 block 32 shared 0 arg 52",
                "cuOccupancyMaxActiveBlocksPerMultiprocessor block=32 shared=0",
                "cooperative launch a grid 2 block 32 shared 0 arg 61 on a stream",
                "cuOccupancyMaxActiveBlocksPerMultiprocessor block=32 shared=0",
                "graph node a grid 2 block 32 shared 0 arg 71 deps 0",
                "graph node attribute 2 = 1",
                "graph node b grid 1 block 32 shared 0 arg 72 deps 1",
                "graph instantiate 2 of 2 nodes",
                "graph launch 2",
                "graph destroy 2",
                "cuOccupancyMaxActiveBlocksPerMultiprocessor block=128 shared=0",
                "launch a grid 1 block 32 shared 0 arg 81 on the legacy stream",
                "stream created, blocking",
                "launch b grid 1 block 32 shared 0 arg 82",
                "context synchronize"), Files.readAllLines(log), r.stderr());
    }

    /**
     * ZLUDA-J's cuBLAS on the cuda backend over fakes of NVIDIA's driver and cuBLAS (c/fake_nvidia.c with
     * c/fake_nvidia_exports.c, c/fake_cublas.c as libcublas.so.13 and libcublasLt.so.13 under ZLUDA_NVIDIA_CUBLAS):
     * c/cuda_backend_cublas.c's GEMMs reach NVIDIA's library as asked: the application's compute type (pedantic and
     * fast forms too) under its math mode, set on NVIDIA's handle where it changed (llama.cpp's
     * CUBLAS_TF32_TENSOR_OP_MATH: its f32 products on TF32 tensor cores, as natively); a cuBLAS call captured between two kernels runs in its turn at both launches of the graph;
     * its node is a kernel node to the application, which can disable it in the executable and enable it again; an
     * executable updated from a new capture runs the new GEMM.
     */
    @Test
    void cublasCallsReachNvidiasCublasAsAskedAndRunInReplayedGraphs(@TempDir Path dir) throws Exception {
        cublasGraphs(dir, false);
    }

    /**
     * Where NVIDIA's driver refuses the capture of a replay (the fake invalidates it), nothing of it is kept: the
     * executable goes on node by node, its GEMM made at every launch, and the capture is not tried again.
     */
    @Test
    void aReplayNvidiaWouldNotCaptureRunsNodeByNode(@TempDir Path dir) throws Exception {
        cublasGraphs(dir, true);
    }

    private static void cublasGraphs(Path dir, boolean captureFails) throws Exception {
        Path fake = Programs.build(List.of("gcc", "-O1", "-Wall", "-shared", "-fPIC", "-o", dir.resolve("libfake_nvidia.so").toString(),
                Programs.TESTS.resolve("c/fake_nvidia.c").toString(), Programs.TESTS.resolve("c/fake_nvidia_exports.c").toString()),
                dir.resolve("libfake_nvidia.so"), dir);
        Path blas = Files.createDirectories(dir.resolve("nvidia-cublas"));
        Programs.build(List.of("gcc", "-O1", "-Wall", "-shared", "-fPIC", "-o", blas.resolve("libcublas.so.13").toString(),
                Programs.TESTS.resolve("c/fake_cublas.c").toString()), blas.resolve("libcublas.so.13"), dir);
        Files.copy(blas.resolve("libcublas.so.13"), blas.resolve("libcublasLt.so.13"));
        Path program = Programs.build(List.of("gcc", "-O1", "-Wall", "-o", dir.resolve("cuda_backend_cublas").toString(),
                Programs.TESTS.resolve("c/cuda_backend_cublas.c").toString(), "-L" + Programs.DIST.resolve("lib"), "-l:libcublas.so.13",
                "-lcuda"), dir.resolve("cuda_backend_cublas"), dir);
        Path log = dir.resolve("calls.txt");
        var env = new java.util.HashMap<>(Map.of("ZLUDA_BACKEND", "cuda", "ZLUDA_NVIDIA_LIB", fake.toString(),
                "ZLUDA_NVIDIA_CUBLAS", blas.toString(), "FAKE_NVIDIA_LOG", log.toString(), "ZLUDA_CACHE_DIR", dir.resolve("cache").toString()));
        if (captureFails) env.put("FAKE_NVIDIA_CAPTURE_FAILS", "1");
        Programs.Result r = Programs.withShim(program, env);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS: cuda backend cublas"), r.toString());
        List<String> calls = Files.readAllLines(log);
        String tn = "cublasGemmEx TN m 16 n 8 k 32 types ", sgemm = "cublasSgemm TN m 16 n 8 k 32 on a stream";
        // a typed call is NVIDIA's typed function (which may choose its kernel otherwise than cublasGemmEx)
        assertEquals(List.of(sgemm), arguments(calls, "Sgemm, default math", "Sgemm, TF32 tensor op math")
                .stream().filter(l -> l.startsWith("cublas")).toList(), String.join("\n", calls));
        // the application's math mode set on NVIDIA's handle before the GEMM that runs under it (once while it holds)
        assertEquals(List.of("cublasSetMathMode 3", sgemm),
                arguments(calls, "Sgemm, TF32 tensor op math", "GemmEx f32 compute 32F, f16 compute 16F, f16 in 32F strided batch; pedantic 32F, fast TF32 under default math"),
                String.join("\n", calls));
        assertEquals(List.of(
                tn + "0 0 0 compute 68 on a stream",  // compute 32F, under TF32 math still
                tn + "2 2 2 compute 64 on a stream",  // f16, compute 16F (ggml's f16 product)
                "cublasGemmStridedBatchedEx TN m 16 n 8 k 32 batch 3 types 2 2 0 compute 68 on a stream",
                "cublasSetMathMode 0",                // the application's CUBLAS_DEFAULT_MATH again
                tn + "0 0 0 compute 69 on a stream",  // CUBLAS_COMPUTE_32F_PEDANTIC as asked
                tn + "0 0 0 compute 77 on a stream"), // CUBLAS_COMPUTE_32F_FAST_TF32 as asked
                arguments(calls, "GemmEx f32 compute 32F, f16 compute 16F, f16 in 32F strided batch; pedantic 32F, fast TF32 under default math",
                        "captured: a, Sgemm (TF32 math), b; launched three times"), String.join("\n", calls));
        // the captured GEMM keeps the math mode of its capture: set at the first replay, which NVIDIA's handle keeps; the
        // first launch runs node by node, the second captures the kernels and NVIDIA's cuBLAS call on a private
        // non-blocking stream into one NVIDIA graph and launches it, the third only launches it (no cuBLAS call)
        List<String> once = List.of("launch a grid 1 block 32 shared 0 arg 91", sgemm, "launch b grid 1 block 32 shared 0 arg 92");
        List<String> three = new java.util.ArrayList<>(List.of(once.get(0), "cublasSetMathMode 3", once.get(1), once.get(2)));
        three.addAll(List.of("stream created, non-blocking", "capture begin, mode 2", "captured launch a grid 1 block 32 shared 0 arg 91",
                sgemm, "captured launch b grid 1 block 32 shared 0 arg 92"));
        if (captureFails) {  // refused: the second launch and the third run node by node, no second try
            three.add("capture end: invalidated");
            three.addAll(once);
            three.addAll(once);
        } else {
            three.addAll(List.of("capture end, 2 kernel launches", "graph instantiate 1 of 2 nodes", "graph launch 1", "graph launch 1"));
        }
        assertEquals(three, arguments(calls, "captured: a, Sgemm (TF32 math), b; launched three times",
                "the cuBLAS node disabled, then enabled: launched once each way"), String.join("\n", calls));
        if (captureFails) return;
        // disabled: the captured graph goes, the executable's nodes are then kernels only, one NVIDIA graph of a and b;
        // enabled again: that graph goes and the executable runs node by node, the GEMM between the kernels
        List<String> without = new java.util.ArrayList<>(List.of("graph destroy 1", "graph node a grid 1 block 32 shared 0 arg 91 deps 0",
                "graph node b grid 1 block 32 shared 0 arg 92 deps 1", "graph instantiate 2 of 2 nodes", "graph launch 2", "graph destroy 2"));
        without.addAll(once);
        assertEquals(without, arguments(calls, "the cuBLAS node disabled, then enabled: launched once each way",
                "captured again (m 24, b's argument 93), executable updated, launched"), String.join("\n", calls));
        assertEquals(List.of("launch a grid 1 block 32 shared 0 arg 91", "cublasSgemm TN m 24 n 8 k 32 on a stream",
                "launch b grid 1 block 32 shared 0 arg 93"),
                arguments(calls, "captured again (m 24, b's argument 93), executable updated, launched",
                        "StrsmBatched under default math between TF32 GEMMs"), String.join("\n", calls));
        // every call reaches NVIDIA's handle under the math mode the application had set when it made it, trsm too
        assertEquals(List.of(sgemm, "cublasSetMathMode 0", "cublasStrsmBatched side 1 uplo 1 trans 0 diag 0 m 32 n 128 batch 8 on a stream",
                "cublasSetMathMode 3", sgemm),
                arguments(calls, "StrsmBatched under default math between TF32 GEMMs", "end").stream().filter(l -> l.startsWith("cublas")).toList(),
                String.join("\n", calls));
    }

    /**
     * A module's second load in another process adds nothing to the compile cache: parsed whole at its first load (a
     * small module), its variables unit was stored under its model's key only, and the next process, which reads the
     * marked module only declared, parsed the variables again to find it; it is stored under its text's key too now.
     * Its kernels' units likewise (KernelUnits): stored by their text at the first load, found so at the second.
     */
    @Test
    void aModulesSecondProcessFindsEverythingInTheCache(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("calls.txt");
        Programs.Result first = overFake(dir, "cuda_backend_calls", log, Map.of("ZLUDA_LOG", "debug"));
        assertEquals(0, first.exit(), first.toString());
        assertTrue(first.stderr().contains("(parsed whole)"), first.stderr());
        long entries = cacheEntries(dir.resolve("cache"));
        Programs.Result second = overFake(dir, "cuda_backend_calls", log, Map.of("ZLUDA_LOG", "debug"));
        assertEquals(0, second.exit(), second.toString());
        assertTrue(second.stderr().contains("(indexed, variables declared)"), second.stderr());
        assertFalse(second.stderr().contains("compiled "), second.stderr());
        assertTrue(second.stderr().contains("found in the compile cache by its text"), second.stderr());
        assertEquals(entries, cacheEntries(dir.resolve("cache")), second.stderr());
    }

    /**
     * A fatbin loaded before is loaded by its record (ModuleRecords): a later process neither decompresses nor indexes
     * its PTX, finds its variables unit and its kernels compiled by the digests the record holds, and launches them as
     * the first did, adding nothing to the cache; a kernel that no process compiled before makes that process read the
     * module's text then (and compile the kernel), the module still loaded by its record.
     */
    @Test
    void aFatbinLoadedBeforeIsLoadedByItsRecord(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path fatbin = Programs.build(List.of("nvcc", "-fatbin", "-arch=compute_75", "-o", dir.resolve("record_kernels.fatbin").toString(),
                Programs.TESTS.resolve("cuda/record_kernels.cu").toString()), dir.resolve("record_kernels.fatbin"), dir);
        Map<String, String> debug = Map.of("ZLUDA_LOG", "debug");
        Path log1 = dir.resolve("calls1.txt"), log2 = dir.resolve("calls2.txt"), log3 = dir.resolve("calls3.txt");
        Programs.Result first = overFake(dir, "module_from_file", log1, debug, fatbin.toString(), "first");
        assertTrue(first.stdout().contains("PASS: module from file"), first.toString());
        assertTrue(first.stderr().contains("read and decompressed") && !first.stderr().contains("loaded by its record"), first.stderr());
        long entries = cacheEntries(dir.resolve("cache"));

        Programs.Result second = overFake(dir, "module_from_file", log2, debug, fatbin.toString(), "first");
        assertTrue(second.stdout().contains("PASS: module from file"), second.toString());
        assertTrue(second.stderr().contains("loaded by its record (2 kernels)"), second.stderr());
        assertFalse(second.stderr().contains("read and decompressed"), second.stderr());
        assertTrue(second.stderr().contains("kernel first found in the compile cache by its text"), second.stderr());
        assertFalse(second.stderr().contains("its text read"), second.stderr());
        assertFalse(second.stderr().contains("compiled "), second.stderr());
        List<String> launches1 = Files.readAllLines(log1).stream().filter(l -> l.startsWith("launch ")).toList();
        assertEquals(List.of("launch first grid 1 block 32 shared 0 arg 92"), launches1, String.join("\n", Files.readAllLines(log1)));
        assertEquals(launches1, Files.readAllLines(log2).stream().filter(l -> l.startsWith("launch ")).toList());
        assertEquals(entries, cacheEntries(dir.resolve("cache")), "the second process adds nothing: " + second.stderr());

        Programs.Result third = overFake(dir, "module_from_file", log3, debug, fatbin.toString(), "first", "second");
        assertTrue(third.stdout().contains("PASS: module from file"), third.toString());
        assertTrue(third.stderr().contains("loaded by its record (2 kernels)"), third.stderr());
        assertTrue(third.stderr().contains("its text read for a unit not in the compile cache"), third.stderr());
        assertEquals(List.of("launch first grid 1 block 32 shared 0 arg 92", "launch second grid 1 block 32 shared 0 arg 93"),
                Files.readAllLines(log3).stream().filter(l -> l.startsWith("launch ")).toList(), String.join("\n", Files.readAllLines(log3)));
    }

    private static long cacheEntries(Path cache) throws java.io.IOException {
        try (var files = Files.walk(cache)) {
            return files.filter(f -> f.getFileName().toString().matches("[0-9a-f]{64}")).count();
        }
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
