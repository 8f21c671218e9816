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
    static final String PTX = """
            .version 7.8
            .target sm_80
            .address_size 64
            .visible .entry waits_forever(.param .u64 k_out, .param .u64 k_flag)
            {
            \t.reg .pred %p<2>;
            \t.reg .b32 %r<4>;
            \t.reg .b64 %rd<4>;
            \tld.param.u64 %rd1, [k_flag];
            SPIN:
            \tld.volatile.global.u32 %r1, [%rd1];
            \tsetp.eq.u32 %p1, %r1, 0;
            \t@%p1 bra SPIN;
            \tld.param.u64 %rd2, [k_out];
            \tst.global.u32 [%rd2], %r1;
            \tret;
            }
            """;
    static final String TEST = """
            kernel waits_forever
            grid 2 1 1
            block 64 1 1
            buffer out u32 1 fill ee
            buffer flag u32 1 fill 0
            param buffer out
            param buffer flag
            output out
            """;

    @Test
    void aKernelPollingForeverFailsWithLaunchTimeoutNamingIt(@TempDir Path work) throws Exception {
        Path exe = Programs.build(List.of("gcc", "-O1", "-o", work.resolve("ptxrun").toString(),
                Programs.TESTS.resolve("c/ptxrun.c").toString(), "-ldl"), work.resolve("ptxrun"), work);
        Path dir = Files.createDirectories(work.resolve("waits_forever"));
        Files.writeString(dir.resolve("kernel.ptx"), PTX);
        Files.writeString(dir.resolve("test.txt"), TEST);
        long t0 = System.nanoTime();
        Programs.Result r = Programs.run(List.of(exe.toString(), dir.toString()),
                Map.of("LD_LIBRARY_PATH", Programs.DIST.resolve("lib").toString(), "ZLUDA_KERNEL_TIMEOUT", "2"), work, 120);
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(r.stdout().contains("702 CUDA_ERROR_LAUNCH_TIMEOUT"), r.toString());
        assertTrue(r.stderr().contains("waits_forever"), "the log names the kernel: " + r.stderr());
        assertTrue(seconds < 60, "ended after " + seconds + " s");
    }
}
