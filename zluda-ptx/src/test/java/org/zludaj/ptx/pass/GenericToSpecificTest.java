package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Golden;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

class GenericToSpecificTest {
    /**
     * Generic accesses through cvta'd registers: a shared variable (1), a global register (2, with an atomic and a
     * volatile store), a local depot (3). Not followed: a register written twice (4), a cvta of a register defined
     * after it (5, in a loop), and accesses that name their space already (6).
     */
    static final String PTX = """
            .version 8.0
            .target sm_80
            .address_size 64
            .shared .align 4 .b8 smem[256];
            .visible .entry k(.param .u64 p)
            {
            \t.local .align 8 .b8 depot[16];
            \t.reg .b32 %r<8>;
            \t.reg .b64 %rd<16>;
            \t.reg .pred %p<2>;
            \tcvta.shared.u64 %rd1, smem;
            \tld.u32 %r1, [%rd1+4];
            \tld.param.u64 %rd2, [p];
            \tcvta.global.u64 %rd3, %rd2;
            \tatom.add.u32 %r2, [%rd3], 1;
            \tst.volatile.u32 [%rd3+8], %r2;
            \tmov.u64 %rd4, depot;
            \tcvta.local.u64 %rd5, %rd4;
            \tst.u32 [%rd5], %r1;
            \tcvta.global.u64 %rd6, %rd2;
            \tadd.u64 %rd6, %rd6, 4;
            \tld.u32 %r3, [%rd6];
            LOOP:
            \tcvta.global.u64 %rd7, %rd8;
            \tld.param.u64 %rd8, [p];
            \tld.u32 %r4, [%rd7];
            \tld.global.u32 %r5, [%rd3];
            \tsetp.ne.u32 %p1, %r4, 0;
            \t@%p1 bra LOOP;
            \tret;
            }
            """;

    @Test
    void genericAccessesThroughCvtaNameTheirSpace() throws Exception {
        PtxModule out = new GenericToSpecific().apply(Ptx.parse("k.ptx", PTX));
        String printed = PtxPrinter.print(out);
        Golden.check("generic-to-specific.ptx", printed);
        assertTrue(printed.contains("ld.shared.u32 %r1, [smem+4];"), printed);
        assertTrue(printed.contains("atom.global.add.u32 %r2, [%rd2], 1;"), printed);
        assertTrue(printed.contains("st.volatile.global.u32 [%rd2+8], %r2;"), printed);
        assertTrue(printed.contains("st.local.u32 [%rd4], %r1;"), printed);
        assertTrue(printed.contains("ld.u32 %r3, [%rd6];"), "written twice: left generic");
        assertTrue(printed.contains("ld.u32 %r4, [%rd7];"), "the cvta's source is defined after it: left generic");
        assertTrue(printed.contains("ld.global.u32 %r5, [%rd3];"), "explicit spaces are left alone");
        assertDoesNotThrow(() -> Ptx.parse("again.ptx", printed));
    }
}
