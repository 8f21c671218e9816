package org.zludaj.driver.backend.host;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.model.PtxModule;

/** The fiber stack follows the kernel's .local need along its call tree, CU_LIMIT_STACK_SIZE and its host frames. */
class FiberStackTest {
    private static final String PTX = """
            .version 7.0
            .target sm_75
            .address_size 64
            .func (.param .b32 r) helper(.param .b32 x)
            {
                .local .align 8 .b8 scratch[4096];
                .reg .b32 %r<2>;
                ld.param.b32 %r1, [x];
                st.param.b32 [r], %r1;
                ret;
            }
            .func unused()
            {
                .local .b8 never[100000];
                ret;
            }
            .visible .entry k(.param .u64 p)
            {
                .local .align 4 .b32 arr[256];
                .reg .b32 %r<3>;
                {
                    .local .b8 inner[16];
                    mov.b32 %r1, 7;
                }
                {
                .param .b32 a;
                .param .b32 b;
                st.param.b32 [a], %r1;
                call (b), helper, (a);
                ld.param.b32 %r2, [b];
                }
                {
                .param .b32 c;
                .param .b32 d;
                st.param.b32 [c], %r2;
                call (d), helper, (c);
                }
                ret;
            }
            """;

    @Test
    void localBytesCountsTheKernelNestedBlocksAndEachCalleeOnce() throws Exception {
        PtxModule m = Ptx.parse("t.ptx", PTX);
        assertEquals(1024 + 16 + 4096, HostBackend.localBytes(m, m.function("k")));
        assertEquals(4096, HostBackend.localBytes(m, m.function("helper")));
    }

    @Test
    void stackGrowsWithLocalNeedAndTheContextLimitInPages() {
        assertEquals(HostBackend.FIBER_STACK + 4096, HostBackend.fiberStack(0, 1024, 0));  // 2 KiB rounded up to a page
        long big = HostBackend.fiberStack(1 << 20, 1024, 0);
        assertTrue(big >= HostBackend.FIBER_STACK + 2 * ((1 << 20) + 1024), "stack " + big);
        assertEquals(0, big % 4096);
        assertEquals(HostBackend.FIBER_STACK, HostBackend.fiberStack(-5, 0, 0));
        // the host frames of the compiled kernel and its callees (spills the PTX does not show) come on top, once
        assertEquals(HostBackend.FIBER_STACK + 200_704, HostBackend.fiberStack(0, 0, 200_000));
    }
}
