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

    /**
     * c/driver_vmm.c: virtual memory management (one allocation mapped at two addresses, written by a kernel through
     * one and read through the other, access flags, retained handles, properties) and the stream-ordered allocator
     * (default and created pools, reuse under a release threshold, trimming, attributes, cuMemFree of async memory).
     * The error codes and pool behaviour are NVIDIA's, recorded on an H200 (driver 580.159.04).
     */
    @Test
    void virtualMemoryAndPoolsAsNvidia(@TempDir Path dir) throws Exception {
        Programs.Result r = passes(dir, "driver_vmm", "PASS: virtual memory and pools");
        assertTrue(r.stdout().contains("errors: 1 801 1 1 801 1 1 1 801 0\n"), r.toString());
        assertTrue(r.stdout().contains("pool: released 1 kept 1 reused 1 trimmed 1 follow 1 access 3\n"), r.toString());
        assertTrue(r.stdout().contains("pool errors: 0 1 0 1 1 1\n"), r.toString());
    }

    /** The groups of c/driver_misuse.c whose answers were recorded on NVIDIA's driver (c/driver_misuse.expected). */
    static final java.util.List<String> MISUSE_GROUPS = java.util.List.of("before-init", "no-context", "arguments", "unloaded-module",
            "destroyed-context", "destroyed-context-use", "copy-null-host");

    /**
     * The misuse suite: calls before cuInit, without a context, with NULL, unknown, destroyed or unloaded handles,
     * bad sizes and launch shapes, bad images, bad PTX and missing names each give the exact CUresult NVIDIA's
     * driver gave (recorded on an H200, one process per group), and the application keeps running.
     */
    @Test
    void misuseGivesNvidiasErrorCodes(@TempDir Path dir) throws Exception {
        Path exe = Programs.gccAgainstDist(dir, "driver_misuse.c", "driver_misuse");
        StringBuilder ours = new StringBuilder();
        for (String group : MISUSE_GROUPS) {
            Programs.Result r = Programs.withShim(exe, Map.of(), group);
            ours.append(r.stdout());
            if (r.exit() != 0) ours.append(group).append(" exit ").append(r.exit()).append('\n');
        }
        String nvidia = java.nio.file.Files.readString(Programs.TESTS.resolve("c/driver_misuse.expected"));
        assertEquals(nvidia, ours.toString());
    }

    /** Where NVIDIA's driver crashes the process (SIGSEGV), ZLUDA-J answers with an error code and the process lives. */
    @Test
    void misuseThatCrashesNvidiaGivesAnErrorHere(@TempDir Path dir) throws Exception {
        Path exe = Programs.gccAgainstDist(dir, "driver_misuse.c", "driver_misuse");
        Programs.Result r = Programs.withShim(exe, Map.of(), "nvidia-crashes");
        assertEquals(0, r.exit(), r.toString());
        assertEquals("nvidia-crashes cuDeviceGetName len 0: 1\nnvidia-crashes cuStreamQuery destroyed: 400\n"
                + "nvidia-crashes cuEventQuery destroyed: 400\n", r.stdout(), r.toString());
    }

    /**
     * c/driver_threads.c: 32 host threads x 1,000 launches, each thread with its own stream and events (record, wait,
     * synchronize), every result checked; then exit() while a stream still has 2,000 launches queued ends the
     * process cleanly. Passes on an H200 with NVIDIA's driver too.
     */
    @Test
    void thirtyTwoThreadsWithTheirOwnStreamsAndExitWithWorkQueued(@TempDir Path dir) throws Exception {
        passes(dir, "driver_threads", "PASS: 32 threads x 1000 launches");
        Programs.Result r = Programs.withShim(dir.resolve("driver_threads"), Map.of(), "exit");
        assertEquals(0, r.exit(), r.toString());
        assertEquals("exit with work queued\n", r.stdout(), r.toString());
    }

    /**
     * c/driver_graph_nodes.c: a graph built node by node (memset, kernel, memcpy, host, empty), a dependency added
     * after its nodes (creation order is not execution order), node types and dependencies, kernel node parameters
     * read and changed (the executable keeps the old ones until cuGraphExecUpdate), a cycle (accepted by
     * cuGraphAddDependencies, refused by instantiation with INVALID_VALUE, as NVIDIA does), cuMemcpy3D with offsets
     * and pitches, cuDeviceGetProperties. The same output on an H200 with NVIDIA's driver.
     */
    @Test
    void explicitGraphNodesAndThreeDimensionalCopiesAsNvidia(@TempDir Path dir) throws Exception {
        Programs.Result r = passes(dir, "driver_graph_nodes", "PASS: graph nodes and 3-D copies");
        assertTrue(r.stdout().contains("cycle: 0 1\n"), r.toString());
    }

    /**
     * c/driver_graph_more.c: a child graph node (copied when added), event record and wait nodes ordering graphs on
     * two streams, memory alloc and free nodes around a memset and a copy, node types and parameters read back, and
     * cuStreamBatchMemOp (32- and 64-bit writes, a barrier, an unknown operation refused). Passes on an H200 with
     * NVIDIA's driver.
     */
    @Test
    void childEventAndMemoryGraphNodesAndBatchedMemoryOperations(@TempDir Path dir) throws Exception {
        passes(dir, "driver_graph_more", "PASS: graph node kinds and batched memory operations");
    }

    /**
     * c/driver_stream_ops.c: a stream waiting (cuStreamWaitValue32) until another writes a word, every wait
     * condition, 64-bit words, stream attributes set/read/copied, stream device and context, capture info, graph
     * upload, managed memory attached and prefetched. Passes on an H200 with NVIDIA's driver.
     */
    @Test
    void streamMemoryOperationsAttributesAndAttachAsNvidia(@TempDir Path dir) throws Exception {
        passes(dir, "driver_stream_ops", "PASS: stream operations");
    }

    /**
     * c/driver_arrays.c: 1-D, 2-D and 3-D CUDA arrays, descriptors, copies by byte offset (HtoA, AtoH, DtoA, AtoD, AtoA)
     * and 2-D/3-D copies from pitched host memory and between arrays; the error codes are NVIDIA's (recorded on an H200:
     * bad format, bad channel count, past the end, a 2-D array's first row by offset allowed, two rows refused).
     */
    @Test
    void cudaArraysAndTheirCopiesAsNvidia(@TempDir Path dir) throws Exception {
        Programs.Result r = passes(dir, "driver_arrays", "PASS: arrays");
        assertTrue(r.stdout().contains("errors: 1 1 1 0 1\n"), r.toString());
    }

    /**
     * c/driver_textures.c: texture and surface objects through the driver API over layered arrays, a kernel sampling
     * one and writing the other, descriptions read back, misuse. NVIDIA's answers (recorded on an H200, driver
     * 580.159.04): no output, no texture description or a bad resource type are CUDA_ERROR_INVALID_VALUE, a surface of
     * an array made without SURFACE_LDST is allowed, a destroyed object is CUDA_ERROR_INVALID_VALUE, destroying the
     * null object succeeds, three channels are refused; reading a texture description back writes its first 40 bytes
     * only (the border color stays as it was: 0xee... here).
     */
    @Test
    void textureAndSurfaceObjectsAsNvidia(@TempDir Path dir) throws Exception {
        Programs.Result r = passes(dir, "driver_textures", "PASS: texture and surface objects");
        assertTrue(r.stdout().contains("errors: 1 1 1 0 1 0 1 0\n"), r.toString());
        assertTrue(r.stdout().contains("texture description: address 1 1 1 filter 0 flags 0 anisotropy 0 border -3.69731e+28 "
                + "-3.69731e+28 -3.69731e+28 -3.69731e+28 reserved0 -286331154\n"), r.toString());
    }

    /**
     * c/driver_modules.c: modules and libraries from files, parameter layouts, PCI lookup, deprecated configuration,
     * profiler control, peer access, 3-D peer copies, CUDA 8 memory advice, and the JIT linker joining two PTX inputs
     * (one calls a function the other defines). The errors are NVIDIA's (recorded on an H200, driver 580.159.04):
     * a parameter index past the last and a bad shared-memory config are CUDA_ERROR_INVALID_VALUE, a missing file
     * CUDA_ERROR_FILE_NOT_FOUND, an unknown PCI id CUDA_ERROR_INVALID_DEVICE and a malformed one INVALID_VALUE, peer
     * access to a context of the same device CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, disabling it
     * CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, advice on device memory INVALID_VALUE, a bad cubin for the linker
     * CUDA_ERROR_NO_BINARY_FOR_GPU, and an empty link completes. Error log management (cuLogs*): a failing call gives
     * two messages (why, then "Returning 1 (CUDA_ERROR_INVALID_VALUE) from cuMemAlloc...") to callbacks and the dump.
     */
    @Test
    void modulesLibrariesAndLinkingAsNvidia(@TempDir Path dir) throws Exception {
        Programs.Result r = passes(dir, "driver_modules", "PASS: modules, libraries and linking");
        assertTrue(r.stdout().contains("logs: 1\n"), "error log: a dump without a buffer is CUDA_ERROR_INVALID_VALUE: " + r);
        assertTrue(r.stdout().contains("errors: 1 301 1 101 1 217 705 1 209 0\n"), r.toString());
    }

    /**
     * c/driver_graph_api.c: generic cuGraphAddNode, parameters read and changed on graphs and executables, disabled
     * nodes, instantiation with parameters, clones, node removal, edges, kernel node attributes, user objects, DOT.
     * NVIDIA's answers (H200): memset parameters of a kernel node, a node not in the clone, a missing edge, memset
     * parameters for an executable's kernel node, a conditional node without a handle, a node of another graph and
     * disabling a host node are all CUDA_ERROR_INVALID_VALUE.
     */
    @Test
    void graphApiAsNvidia(@TempDir Path dir) throws Exception {
        Programs.Result r = passes(dir, "driver_graph_api", "PASS: graph API");
        assertTrue(r.stdout().contains("errors: 1 1 1 1 1 1 1 903\n"), r.toString());
    }

    /**
     * c/driver_cubin.c with a cubin nvcc makes here (cuda/vectoradd.cu, sm_80): the cubin itself is
     * CUDA_ERROR_NO_BINARY_FOR_GPU (NVIDIA machine code cannot run here), the same truncated (its first half, then
     * zeros), its ELF header alone and the same marked as another machine's ELF are CUDA_ERROR_INVALID_IMAGE, as
     * NVIDIA's driver answers such images (issue 19: a truncated ELF gave 209). The image is read only where readable.
     */
    @Test
    void cubinsAreRefusedAndBrokenOnesAreInvalidImages(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path cubin = Programs.nvcc(dir, "vectoradd.cu", "vectoradd.cubin", "-cubin", "-arch=sm_80");
        Path exe = Programs.gccAgainstDist(dir, "driver_cubin.c", "driver_cubin");
        Programs.Result r = Programs.withShim(exe, Map.of(), cubin.toString());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("answers: 209 200 200 200\n") && r.stdout().contains("PASS: cubins"), r.toString());
    }

    /**
     * c/driver_sticky.c: after a kernel traps, the synchronization reports CUDA_ERROR_LAUNCH_FAILED and every later
     * call that uses the context answers it too (memory, copies, launches, modules, streams, events), cuCtxGetCurrent
     * still answers, and cuDevicePrimaryCtxReset succeeds: NVIDIA's answers on an H100 (tools/gpu-check). After the
     * reset NVIDIA's driver refuses the process (719, then 709) where ZLUDA-J recovers: not checked, an open difference.
     * The reset unloads the context's modules: a function of one answers INVALID_HANDLE (400), as NVIDIA's.
     */
    @Test
    void aFaultIsStickyUntilThePrimaryContextIsReset(@TempDir Path dir) throws Exception {
        Programs.Result r = passes(dir, "driver_sticky", "PASS: sticky errors");
        assertTrue(r.stdout().contains("results: 0 719 719 719 719 719 719 719 719 719 719 719 719 0 0 "), r.toString());
        assertTrue(r.stdout().contains("a module of the reset context: 400"), r.toString());
    }

    /**
     * c/driver_memo.c: the answers the shim keeps in C (cuDriverGetVersion, cuDeviceGetCount, cuDeviceGet,
     * cuDeviceGetAttribute, cuGetErrorName/String, cuCtxGetCurrent, cuCtxGetDevice, a function's occupancy;
     * shim/memo.c) asked twice around every change of the thread's context stack, from a second thread, with erroneous
     * arguments (never kept), and a function's occupancy around a change of its attributes and its module's unloading.
     */
    @Test
    void answersKeptInTheShimFollowContextChanges(@TempDir Path dir) throws Exception {
        passes(dir, "driver_memo", "PASS: kept answers");
    }

    /**
     * c/driver_legacy.c: the first ABIs (cuCtxCreate, cuCtxPushCurrent/PopCurrent, cuStreamDestroy, cuEventDestroy,
     * cuGraphInstantiate, cuGraphExecUpdate), the first launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunchGrid),
         * batched copies (also 3-D, between pointers and arrays), prefetches and discards, graph memory attributes. NVIDIA's answers (H200): a parameter written
     * past cuParamSetSize is accepted, batched copies on the legacy stream, bad flags and setting a current value or a
     * high mark other than 0 and a 3-D batched copy of zero extent are CUDA_ERROR_INVALID_VALUE, updating an executable with memory nodes fails with
     * CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED (6). One known difference: NVIDIA's first cuCtxCreate makes a context
     * that refuses cuMemAlloc_v2 (201); ours behaves as cuCtxCreate_v2's.
     */
    @Test
    void firstAbisAndBatchedMemoryCallsAsNvidia(@TempDir Path dir) throws Exception {
        Programs.Result r = passes(dir, "driver_legacy", "PASS: first ABIs, first launch API, batched memory calls");
        assertTrue(r.stdout().contains("errors: 0 1 1 1 1 910 1 (update result 6)\n"), r.toString());
    }

    /**
     * c/driver_texrefs.c: texture and surface references through .texref/.surfref variables, bound to an array (point
     * and linear filtering, clamp and border with a border color), to linear and pitched memory, read back, and a
     * surface reference written by a kernel. NVIDIA's answers (H200): an unknown name or a surface reference's name is
     * CUDA_ERROR_NOT_FOUND, dimension 3 and reading the array of a reference bound to memory INVALID_VALUE; a filter
     * mode of 7 and an unknown format are accepted.
     */
    @Test
    void textureAndSurfaceReferencesAsNvidia(@TempDir Path dir) throws Exception {
        Programs.Result r = passes(dir, "driver_texrefs", "PASS: texture and surface references");
        assertTrue(r.stdout().contains("errors: 500 500 1 0 1 0\n"), r.toString());
    }
}
