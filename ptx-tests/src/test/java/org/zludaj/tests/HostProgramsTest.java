package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nvcc-built programs of ptx-tests that need the host backend's fibers and the driver's streams, through the shim. */
class HostProgramsTest {
    /** Builds {@code name.cu} with nvcc for {@code arch}, runs it through the shim and requires exit status 0. */
    private static Programs.Result run(Path dir, String name, String arch) throws Exception {
        Programs.requireNvcc();
        Programs.Result r = Programs.withShim(Programs.nvcc(dir, name + ".cu", name, arch), Map.of());
        assertEquals(0, r.exit(), r.toString());
        return r;
    }

    @Test
    void blockReductionInSharedMemoryWithAtomics(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "reduction", "-arch=compute_75");
        assertTrue(r.stdout().contains("PASS: sum = 65536"), r.toString());
    }

    /**
     * textures.cu: texture objects over linear, pitched and array memory (1-D, 2-D, 3-D, layered), point and linear
     * filtering, every address mode, normalized coordinates, read modes (normalized 8/16-bit, half, integers), border
     * colors, gathers; surface objects written and read with zero and clamp boundaries. Each fetch is compared with
     * the program's CPU reference, which NVIDIA's GPU runs against too (tools/gpu-check).
     */
    /**
     * cub_segmented_sort.cu: CUB's segmented sort of two segments, in one tile (4,865 elements) and through the
     * fallback kernel's radix passes (4,866 and 8,203: the pass-skipping test reads a predicate declared in a nested
     * block that shadows the kernel's own), against std::stable_sort.
     */
    @Test
    void cubSegmentedSortMatchesStableSort(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "cub_segmented_sort", "-arch=compute_75");
        assertTrue(r.stdout().contains("PASS: cub segmented sort, 0 wrong"), r.toString());
        for (String n : new String[] {"4865", "4866"}) {
            Programs.Result s = Programs.withShim(dir.resolve("cub_segmented_sort"), Map.of(), n);
            assertEquals(0, s.exit(), s.toString());
            assertTrue(s.stdout().contains("PASS: cub segmented sort, 0 wrong"), n + ": " + s);
        }
    }

    @Test
    void textureAndSurfaceObjectsMatchTheReference(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "textures", "-arch=compute_75");
        assertTrue(r.stdout().contains("PASS: textures and surfaces"), r.toString());
        assertTrue(r.stdout().contains("surface over an array without cudaArraySurfaceLoadStore: cudaSuccess"), r.toString());
    }

    @Test
    void streamsPinnedMemoryEventsAndCallbacks(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "streams", "-arch=compute_86");
        assertTrue(r.stdout().contains("PASS: streams bad=0 callback=1"), r.toString());
    }

    @Test
    void printfFormatsEveryConversionAndAssertFaultsTheContext(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "printf", "-arch=compute_75");
        checkPrintf(dir, r, Map.of());
        // AMD GPUs print through a buffer the driver drains after the kernel (llvm.DevicePrintf): the same program
        // with that lowering run on the host gives the same lines
        checkPrintf(dir, Programs.withShim(dir.resolve("printf"), Map.of("ZLUDA_HOST_WMMA", "gfx1100")), Map.of("ZLUDA_HOST_WMMA", "gfx1100"));
    }

    private static void checkPrintf(Path dir, Programs.Result r, Map<String, String> env) throws Exception {
        String out = r.stdout();
        assertTrue(out.contains("thread 0:  0.00 even 0 ff A\n"), r.toString());
        assertTrue(out.contains("thread 1:  1.50 odd 1099511627776 100 B\n"), r.toString());
        assertTrue(out.contains("thread 3:  4.50 odd 3298534883328 102 D\n"), r.toString());
        assertTrue(out.indexOf("thread 3:") < out.indexOf("after say: cudaSuccess"), "printf output is flushed at synchronization");
        assertTrue(out.contains("check ok: cudaSuccess"), r.toString());
        assertTrue(out.contains("check failing: cudaErrorAssert"), r.toString());
        // every failing thread reports, as on NVIDIA (threads 3..7 of 8 with limit 3), and no other
        for (int t = 0; t < 8; t++) {
            boolean reported = r.stderr().contains("printf.cu:11: void check(int): block: [0,0,0], thread: [" + t
                    + ",0,0] Assertion `threadIdx.x < limit` failed.");
            assertEquals(t >= 3, reported, "thread " + t + ": " + r);
        }
        // the same after a barrier (fibers on the host): "printf sync"
        Programs.Result sync = Programs.withShim(dir.resolve("printf"), env, "sync");
        assertEquals(0, sync.exit(), sync.toString());
        assertTrue(sync.stdout().contains("check_sync failing: cudaErrorAssert"), sync.toString());
        for (int t = 0; t < 8; t++) {
            boolean reported = sync.stderr().contains("printf.cu:16: void check_sync(int): block: [0,0,0], thread: [" + t
                    + ",0,0] Assertion `threadIdx.x < limit` failed.");
            assertEquals(t >= 6, reported, "check_sync thread " + t + ": " + sync);
        }
    }

    @Test
    void tiledSgemmAndModuleVariablesWrittenFromTheHost(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "sgemm", "-arch=compute_75");
        assertTrue(r.stdout().contains("PASS: sgemm+misc bad=0 counter=2 cudaSuccess"), r.toString());
        assertTrue(r.stdout().contains("misc: n=256 first=2.000000"), r.toString());
    }

    /**
     * ldmatrix + mma.m16n8k16 loop + online softmax + cp.async double buffering, as llama.cpp's FA kernels, in both PTX
     * forms; compute_80 also with the AMD lowering of the matrix family (gfx1100, gfx1201) emulated on the host.
     */
    @Test
    void flashAttentionWithTensorCoreInstructions(@TempDir Path dir) throws Exception {
        runTensorCore(dir, "flash_attention", "PASS: flash attention");
    }

    /** A tiled tensor-core GEMM (ldmatrix, ldmatrix.trans, mma.m16n8k16, cp.async stages), the same ways. */
    @Test
    void tensorCoreGemm(@TempDir Path dir) throws Exception {
        runTensorCore(dir, "tc_gemm", "PASS: tc_gemm");
    }

    private static void runTensorCore(Path dir, String program, String pass) throws Exception {
        Programs.requireNvcc();
        for (String arch : new String[] {"compute_80", "compute_86"}) {
            Path p = Programs.nvcc(dir, program + ".cu", program + "_" + arch, "-arch=" + arch);
            for (String wmma : arch.equals("compute_80") ? new String[] {"", "gfx1100", "gfx1201", "gfx1030"} : new String[] {""}) {
                Programs.Result r = Programs.withShim(p, wmma.isEmpty() ? Map.of() : Map.of("ZLUDA_HOST_WMMA", wmma));
                assertEquals(0, r.exit(), arch + " " + wmma + ": " + r);
                assertTrue(r.stdout().contains(pass), arch + " " + wmma + ": " + r);
            }
        }
    }

    @Test
    void fourHostThreadsEachWithItsOwnStream(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "threads", "-arch=compute_86");
        assertTrue(r.stdout().contains("PASS: threads bad=0"), r.toString());
    }

    @Test
    void twentyThousandLaunchesWithStableMemory(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "launches", "-arch=compute_75");  // the program fails when RSS grows 16 MiB or more over its second 10,000 launches
        assertTrue(r.stdout().contains("PASS: launches=20000 bad=0"), r.toString());
    }

    /**
     * cuda/mixed_calls.cu (issue 19: such a program once livelocked on the host and faulted through the cuda backend):
     * dynamic shared memory of three sizes, __noinline__ recursion (fib, a tail-recursive sum), a struct returned by
     * value from a non-inlined function, a __device__ table of function pointers.
     */
    @Test
    void recursionStructReturnsAndFunctionPointerTables(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "mixed_calls", "-arch=compute_75");
        assertTrue(r.stdout().contains("PASS") && !r.stdout().contains("FAIL"), r.toString());
    }

    @Test
    void fiberStacksFollowLocalMemoryAndTheStackLimit(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "bigstack", "-arch=compute_75");  // with fixed 64 KiB stacks the guard page stops it (SIGSEGV)
        assertTrue(r.stdout().contains("PASS: bigstack bad=0 cudaSuccess limit=262144"), r.toString());
    }

    /**
     * cuda/coop.cu: cudaLaunchCooperativeKernel sized by occupancy x multiprocessors, cooperative groups' grid.sync()
     * between rounds that read other blocks' results (the barrier word reached through %envreg1:%envreg2).
     */
    @Test
    void cooperativeLaunchWithGridSync(@TempDir Path dir) throws Exception {
        Programs.Result r = run(dir, "coop", "-arch=compute_75");
        assertTrue(r.stdout().matches("(?s)PASS: cooperative blocks=\\d+ \\(x64 threads\\) bad=0 cudaSuccess\\n"
                + "PASS: queued and graph-captured cooperative launches bad=0 nodes=2 cooperative=1 cudaSuccess\\n"), r.toString());
    }
}
