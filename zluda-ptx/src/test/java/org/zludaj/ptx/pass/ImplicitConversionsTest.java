package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Golden;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

class ImplicitConversionsTest {
    /** Narrow loads, stores and conversions through wide registers, as nvcc and hand-written PTX use them. */
    static final String PTX = """
            .version 8.0
            .target sm_80
            .address_size 64
            .visible .entry k(.param .u64 p, .param .u8 c)
            {
            \t.reg .b16 %rs<4>;
            \t.reg .b32 %r<8>;
            \t.reg .b64 %rd<4>;
            \t.reg .f32 %f<2>;
            \tld.param.u64 %rd1, [p];
            \tld.param.u8 %r1, [c];
            \tld.global.s8 %r2, [%rd1];
            \tld.global.v2.u16 {%r3, %r0}, [%rd1+2];
            \tst.global.u8 [%rd1+8], %r2;
            \tst.global.v2.b16 [%rd1+12], {%r3, %r0};
            \tcvt.rn.f32.s16 %f1, %r3;
            \tcvt.s8.s32 %r4, %r2;
            \tcvt.rn.f16.f32 %r5, %f1;
            \tld.global.u32 %r6, [%rd1];
            \tst.global.u8 [%rd1], 7;
            \t{
            \t.reg .b64 %r7;
            \tld.global.u16 %r7, [%rd1];
            \t}
            \tret;
            }
            """;

    @Test
    void narrowDataThroughWideRegistersBecomesExplicitConversions() throws Exception {
        PtxModule out = new ImplicitConversions().apply(Ptx.parse("k.ptx", PTX));
        String printed = PtxPrinter.print(out);
        Golden.check("implicit-conversions.ptx", printed);
        // loads extend by the instruction type's kind
        assertTrue(printed.contains("cvt.u32.u8 %r1, %__ic0;"), printed);
        assertTrue(printed.contains("ld.global.s8 %__ic1, [%rd1];") && printed.contains("cvt.s32.s8 %r2, %__ic1;"), printed);
        assertTrue(printed.contains("ld.global.v2.u16 {%__ic2, %__ic3}, [%rd1+2];") && printed.contains("cvt.u32.u16 %r0, %__ic3;"),
                "each element of a vector of wide registers: " + printed);
        // stores and conversion sources truncate
        assertTrue(printed.contains("cvt.u8.u32 %__ic4, %r2;") && printed.contains("st.global.u8 [%rd1+8], %__ic4;"), printed);
        assertTrue(printed.contains("cvt.u16.u32 %__ic7, %r3;") && printed.contains("cvt.rn.f32.s16 %f1, %__ic7;"), printed);
        // a narrowing conversion into a wide register: convert, then sign-extend by the destination type
        assertTrue(printed.contains("cvt.s8.s32 %__ic8, %r2;") && printed.contains("cvt.s32.s8 %r4, %__ic8;"), printed);
        // an f16 result in a 32-bit register: its bits, zero-extended
        assertTrue(printed.contains("cvt.rn.f16.f32 %__ic9, %f1;") && printed.contains("cvt.u32.u16 %r5, %__ic9;"), printed);
        // same sizes, immediates and a block's own (wider) declaration
        assertTrue(printed.contains("ld.global.u32 %r6, [%rd1];") && printed.contains("st.global.u8 [%rd1], 7;"), printed);
        assertTrue(printed.contains("cvt.u64.u16 %r7, %__ic10;"), "the block's %r7 is 64-bit: " + printed);
        assertDoesNotThrow(() -> Ptx.parse("again.ptx", printed), "the result checks again");
    }

    @Test
    void modulesWithoutWideOperandsAreUnchanged() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                + "\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\tld.param.u64 %rd1, [p];\n\tld.global.u32 %r1, [%rd1];\n\tret;\n}\n");
        assertSame(in, new ImplicitConversions().apply(in));
    }
}
