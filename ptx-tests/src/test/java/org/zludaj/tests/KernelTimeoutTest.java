package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kernel that cannot end (issue 19) fails its launch in bounded time on the host backend instead of spinning
 * forever: every thread polls a flag that no thread sets. NVIDIA's driver waits for such a kernel forever (no
 * watchdog on a GPU without a display), so this is not among the ptx-tests run on the GPU; the waiting that does end
 * (ptx-test spin_wait_global_flag) is.
 */
class KernelTimeoutTest {
    /** A kernel of that name over u32 {@code out} and {@code flag} (0), its body after {@code %rd1 = flag}. */
    static String ptx(String name, String body) {
        return """
                .version 7.8
                .target sm_80
                .address_size 64
                .visible .entry %s(.param .u64 k_out, .param .u64 k_flag)
                {
                \t.reg .pred %%p<2>;
                \t.reg .b32 %%r<4>;
                \t.reg .b64 %%rd<4>;
                \tld.param.u64 %%rd1, [k_flag];
                %s\tld.param.u64 %%rd2, [k_out];
                \tst.global.u32 [%%rd2], %%r1;
                \tret;
                }
                """.formatted(name, body);
    }

    static String test(String name) {
        return """
                kernel %s
                grid 2 1 1
                block 64 1 1
                buffer out u32 1 fill ee
                buffer flag u32 1 fill 0
                param buffer out
                param buffer flag
                output out
                """.formatted(name);
    }

    /** Runs the kernel with a 2 s timeout: the launch fails with 702 and a log line naming the kernel, soon. */
    private static void failsInBoundedTime(Path work, String name, String body) throws Exception {
        failsInBoundedTime(work, name, body, Map.of("ZLUDA_KERNEL_TIMEOUT", "2"));
    }

    private static void failsInBoundedTime(Path work, String name, String body, Map<String, String> limits) throws Exception {
        Path exe = work.resolve("ptxrun");
        if (!Files.exists(exe))
            Programs.build(List.of("gcc", "-O1", "-o", exe.toString(), Programs.TESTS.resolve("c/ptxrun.c").toString(), "-ldl"), exe, work);
        Path dir = Files.createDirectories(work.resolve(name));
        Files.writeString(dir.resolve("kernel.ptx"), ptx(name, body));
        Files.writeString(dir.resolve("test.txt"), test(name));
        long t0 = System.nanoTime();
        var env = new java.util.HashMap<>(limits);
        env.put("LD_LIBRARY_PATH", Programs.DIST.resolve("lib").toString());
        Programs.Result r = Programs.run(List.of(exe.toString(), dir.toString()), env, work, 120);
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(r.stdout().contains("702 CUDA_ERROR_LAUNCH_TIMEOUT"), r.toString());
        assertTrue(r.stderr().contains(name), "the log names the kernel: " + r.stderr());
        assertTrue(seconds < 60, "ended after " + seconds + " s");
    }

    @Test
    void aKernelPollingForeverFailsWithLaunchTimeoutNamingIt(@TempDir Path work) throws Exception {
        failsInBoundedTime(work, "waits_forever", """
                SPIN:
                \tld.volatile.global.u32 %r1, [%rd1];
                \tsetp.eq.u32 %p1, %r1, 0;
                \t@%p1 bra SPIN;
                """);
    }

    /**
     * Loops that poll nothing and never end: {@code while (1);} (nvcc's {@code bra.uni} to itself), and a flag read
     * once before a loop that tests it (a plain load hoisted out of {@code while (!flag);}), in every thread, and in
     * one thread while the others finish.
     */
    @Test
    void loopsThatCannotEndFailWithLaunchTimeout(@TempDir Path work) throws Exception {
        failsInBoundedTime(work, "while_one", """
                \tmov.u32 %r1, 0;
                $L__BB0_1:
                \tbra.uni $L__BB0_1;
                """);
        failsInBoundedTime(work, "hoisted_flag", """
                \tld.global.u32 %r1, [%rd1];
                \tsetp.eq.u32 %p1, %r1, 0;
                $L__BB0_1:
                \tadd.u32 %r2, %r2, 1;
                \t@%p1 bra $L__BB0_1;
                """);
        failsInBoundedTime(work, "one_thread_stuck", """
                \tmov.u32 %r1, %tid.x;
                \tsetp.ne.u32 %p1, %r1, 37;
                \t@%p1 bra DONE;
                STUCK:
                \tbra STUCK;
                DONE:
                """);
    }

    /**
     * Loops that compute forever: their exit depends on what they write, so no analysis tells them from a long
     * computation; the block time limit (CPU seconds of one block, here 2) ends them. A counter that steps by 2 and
     * exits at an odd value, storing each step (every thread, on the path without fibers); the same in one thread
     * while the others finish; and with a barrier in the loop (every thread, on the fiber path: each round completes,
     * so the scheduler's own checks see progress).
     */
    @Test
    void loopsThatComputeForeverFailWithLaunchTimeout(@TempDir Path work) throws Exception {
        Map<String, String> limit = Map.of("ZLUDA_BLOCK_TIME_LIMIT", "2", "ZLUDA_KERNEL_TIMEOUT", "0");
        failsInBoundedTime(work, "counts_forever", """
                \tmov.u32 %r1, 0;
                \tld.param.u64 %rd2, [k_out];
                LOOP:
                \tadd.u32 %r1, %r1, 2;
                \tst.global.u32 [%rd2], %r1;
                \tsetp.ne.u32 %p1, %r1, 1;
                \t@%p1 bra LOOP;
                """, limit);
        failsInBoundedTime(work, "one_thread_counts_forever", """
                \tmov.u32 %r1, %tid.x;
                \tld.param.u64 %rd2, [k_out];
                \tsetp.ne.u32 %p1, %r1, 5;
                \t@%p1 bra DONE;
                LOOP:
                \tadd.u32 %r1, %r1, 2;
                \tst.global.u32 [%rd2], %r1;
                \tsetp.ne.u32 %p1, %r1, 2;
                \t@%p1 bra LOOP;
                DONE:
                """, limit);
        failsInBoundedTime(work, "barrier_loop_forever", """
                \tmov.u32 %r1, 0;
                LOOP:
                \tbar.sync 0;
                \tadd.u32 %r1, %r1, 2;
                \tsetp.ne.u32 %p1, %r1, 1;
                \t@%p1 bra LOOP;
                """, limit);
    }
}
