package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

class VectorRegistersTest {
    private static String apply(String decls, String body) throws Exception {
        String src = """
                .version 8.0
                .target sm_80
                .address_size 64
                .visible .entry k(.param .u64 out)
                {
                \t.reg .b32 %r<4>;
                \t.reg .b64 %rd<2>;
                """ + decls + "\tld.param.u64 %rd1, [out];\n" + body + "\tret;\n}\n";
        String printed = PtxPrinter.print(new VectorRegisters().apply(Ptx.parse("k.ptx", src)));
        Ptx.parse("k2.ptx", printed);  // still valid PTX
        return printed;
    }

    @Test
    void elementsBecomeRegistersAndWholeVectorsTheirVectorOperand() throws Exception {
        String out = apply("\t.reg .v4 .u32 %v;\n", """
                \tld.global.v4.u32 %v, [%rd1];
                \tadd.u32 %r1, %v.x, %v.w;
                \tmov.u32 %r2, %v.b;
                \tst.global.v4.u32 [%rd1], %v;
                """);
        assertTrue(out.contains(".reg .u32 %v$x, %v$y, %v$z, %v$w;"), out);
        assertFalse(out.contains(".v4 .u32 %v"), out);
        assertTrue(out.contains("ld.global.v4.u32 {%v$x, %v$y, %v$z, %v$w}, [%rd1];"), out);
        assertTrue(out.contains("add.u32 %r1, %v$x, %v$w;"), out);
        assertTrue(out.contains("mov.u32 %r2, %v$z;"), "r g b a name the same elements: " + out);
        assertTrue(out.contains("st.global.v4.u32 [%rd1], {%v$x, %v$y, %v$z, %v$w};"), out);
    }

    @Test
    void aRangeOfVectorsGivesEachItsElements() throws Exception {
        String out = apply("\t.reg .v2 .f32 %f<2>;\n", """
                \tmov.f32 %f1.y, 0f3F800000;
                \tst.global.v2.f32 [%rd1], %f1;
                """);
        assertTrue(out.contains("%f0$x") && out.contains("%f1$y"), out);
        assertTrue(out.contains("mov.f32 %f1$y, 0f3F800000;"), out);
        assertTrue(out.contains("st.global.v2.f32 [%rd1], {%f1$x, %f1$y};"), out);
    }

    @Test
    void aVectorMoveBecomesElementMovesThroughTemporariesWhereItPermutesItself() throws Exception {
        String out = apply("\t.reg .v2 .u32 %w;\n", """
                \tmov.v2.u32 %w, {%r1, %r2};
                \tmov.v2.u32 %w, {%w.y, %w.x};
                """);
        assertTrue(out.contains("mov.u32 %w$x, %r1;") && out.contains("mov.u32 %w$y, %r2;"), out);
        // the swap reads both elements before writing either
        int t0 = out.indexOf("mov.u32 $vmov0, %w$y;"), t1 = out.indexOf("mov.u32 $vmov1, %w$x;");
        int w0 = out.indexOf("mov.u32 %w$x, $vmov0;"), w1 = out.indexOf("mov.u32 %w$y, $vmov1;");
        assertTrue(t0 >= 0 && t1 > t0 && w0 > t1 && w1 > w0, out);
        assertTrue(out.contains(".reg .u32 $vmov0, $vmov1;"), out);
    }

    @Test
    void modulesWithoutVectorRegistersAreLeftAlone() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", """
                .version 8.0
                .target sm_80
                .address_size 64
                .visible .entry k(.param .u64 out)
                {
                \t.reg .b32 %r<2>;
                \tmov.u32 %r1, 1;
                \tret;
                }
                """);
        assertSame(in, new VectorRegisters().apply(in));
    }
}
