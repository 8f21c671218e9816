package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Golden;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

class ExpandVectorOperandsTest {
    static final String PTX = """
            .version 8.0
            .target sm_80
            .address_size 64
            .visible .entry k(.param .u64 p)
            {
            \t.reg .b32 %r<8>;
            \t.reg .f32 %f<4>;
            \t.reg .b64 %rd<4>;
            \tld.param.u64 %rd1, [p];
            \tld.global.v4.f32 {%f1, _, %f2, _}, [%rd1];
            \tst.global.v4.f32 [%rd1+16], {%f1, 0f3F800000, %f2, 0f00000000};
            \tld.global.v2.u32 {%r1, %r1}, [%rd1+32];
            \tmov.b64 %rd2, {%r1, 7};
            \tld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd1+48];
            \tst.global.v2.u32 [%rd1+64], {%r2, %r3};
            \tret;
            }
            """;

    @Test
    void vectorElementsBecomeDistinctRegisters() throws Exception {
        PtxModule out = new ExpandVectorOperands().apply(Ptx.parse("k.ptx", PTX));
        String printed = PtxPrinter.print(out);
        Golden.check("expand-vector-operands.ptx", printed);
        assertTrue(printed.contains("ld.global.v4.f32 {%f1, %__vx0, %f2, %__vx1}, [%rd1];"), "ignored elements get registers: " + printed);
        assertTrue(printed.contains("mov.f32 %__vx2, 0f3F800000;") && printed.contains("mov.f32 %__vx3, 0f00000000;"), printed);
        assertTrue(printed.contains("st.global.v4.f32 [%rd1+16], {%f1, %__vx2, %f2, %__vx3};"), printed);
        assertTrue(printed.contains("ld.global.v2.u32 {%r1, %__vx4}, [%rd1+32];") && printed.contains("mov.u32 %r1, %__vx4;"),
                "a register named twice ends with the last element: " + printed);
        assertTrue(printed.contains("mov.b32 %__vx5, 7;") && printed.contains("mov.b64 %rd2, {%r1, %__vx5};"), printed);
        assertTrue(printed.contains("ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd1+48];"), "registers only: unchanged");
        assertDoesNotThrow(() -> Ptx.parse("again.ptx", printed));
    }
}
