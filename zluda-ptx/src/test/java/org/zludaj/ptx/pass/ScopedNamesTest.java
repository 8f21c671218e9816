package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

class ScopedNamesTest {
    private static final String HEAD = """
            .version 8.0
            .target sm_80
            .address_size 64
            .visible .entry k(.param .u64 out)
            {
            \t.reg .pred %p<3>;
            \t.reg .b32 %r<4>;
            \t.reg .b64 %rd<2>;
            \tld.param.u64 %rd1, [out];
            \tmov.u32 %r1, %tid.x;
            \tsetp.lt.u32 %p1, %r1, 16;
            """;

    private static String apply(String body) throws Exception {
        PtxModule in = Ptx.parse("k.ptx", HEAD + body + "\tret;\n}\n");
        String printed = PtxPrinter.print(new ScopedNames().apply(in));
        Ptx.parse("k2.ptx", printed);  // still valid PTX
        return printed;
    }

    @Test
    void aBlockRegisterHidingTheFunctionsOwnIsRenamedWithItsUsesAndGuards() throws Exception {
        String out = apply("""
                \t{
                \t.reg .pred %p1;
                \tsetp.ne.u32 %p1, %r1, 0;
                \t@%p1 add.u32 %r2, %r1, 1;
                \tbar.red.and.pred %p2, 0, %p1;
                \t}
                \tselp.u32 %r3, 1, 0, %p1;
                """);
        assertTrue(out.contains("setp.ne.u32 %p1$s0, %r1, 0;"), out);
        assertTrue(out.contains("@%p1$s0 add.u32 %r2, %r1, 1;"), out);
        assertTrue(out.contains("bar.red.and.pred %p2, 0, %p1$s0;"), out);  // %p2 is the function's: not declared in the block
        assertTrue(out.contains("selp.u32 %r3, 1, 0, %p1;"), "after the block the name is the function's again: " + out);
        assertTrue(out.contains("setp.lt.u32 %p1, %r1, 16;"), out);
    }

    @Test
    void siblingBlocksDeclaringOneNameWithTwoTypesGetTwoVariables() throws Exception {
        String out = apply("""
                \t{
                \t.reg .f32 x;
                \tcvt.rn.f32.u32 x, %r1;
                \t}
                \t{
                \t.reg .b64 x;
                \tmov.b64 x, 5;
                \tst.global.u64 [%rd1], x;
                \t}
                """);
        assertTrue(out.contains("cvt.rn.f32.u32 x, %r1;"), "the first declaration keeps its name: " + out);
        assertTrue(out.contains("mov.b64 x$s0, 5;") && out.contains("st.global.u64 [%rd1], x$s0;"), out);
    }

    @Test
    void aRangeInABlockIsRenamedAsAWholeAndNestedBlocksSeeTheirEnclosingRenames() throws Exception {
        String out = apply("""
                \t{
                \t.reg .b32 %r<3>;
                \tmov.u32 %r2, 7;
                \t{
                \tadd.u32 %r2, %r2, %r3;
                \tst.global.u32 [%rd1+4], %r2;
                \t}
                \t}
                """);
        assertTrue(out.contains("mov.u32 %r$s0_2, 7;"), out);
        assertTrue(out.contains("add.u32 %r$s0_2, %r$s0_2, %r3;"), "%r3 is outside the range: the function's " + out);
        assertTrue(out.contains("[%rd1+4], %r$s0_2;"), out);
    }

    @Test
    void aModuleWithoutCollisionsIsUnchanged() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", HEAD + "\t{\n\t.reg .b32 t;\n\tmov.u32 t, 1;\n\t}\n\tret;\n}\n");
        assertSame(in, new ScopedNames().apply(in));
    }
}
