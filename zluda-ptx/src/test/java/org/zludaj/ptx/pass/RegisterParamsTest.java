package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

class RegisterParamsTest {
    private static final String PTX = """
            .version 8.0
            .target sm_80
            .address_size 64
            .func (.reg .u32 lo, .reg .u32 hi) split(.reg .u32 x)
            {
            \t.reg .pred %q;
            \tand.b32 lo, x, 65535;
            \tshr.u32 hi, x, 16;
            \tsetp.eq.u32 %q, x, 0;
            \t@%q ret;
            \tadd.u32 hi, hi, 1;
            \tret;
            }
            .visible .entry k(.param .u64 out)
            {
            \t.reg .pred %p<2>;
            \t.reg .b32 %r<4>;
            \tmov.u32 %r1, %tid.x;
            \tsetp.lt.u32 %p1, %r1, 16;
            \tcall (%r2, %r3), split, (%r1);
            \t@%p1 call (%r2, %r3), split, (7);
            \tret;
            }
            """;

    @Test
    void registerParametersBecomeParamsLoadedAndStoredAroundEveryReturnAndCall() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", PTX);
        String out = PtxPrinter.print(new RegisterParams().apply(in));
        Ptx.parse("k2.ptx", out);  // still valid PTX
        assertTrue(out.contains(".func (.param .u32 $zluda_rp_lo, .param .u32 $zluda_rp_hi) split("), out);
        assertTrue(out.contains(".param .u32 $zluda_rp_x\n)"), out);
        assertTrue(out.contains(".reg .u32 x, lo, hi;"), out);
        assertTrue(out.contains("ld.param.u32 x, [$zluda_rp_x];"), out);
        // both returns store both results, the guarded one under its guard
        assertTrue(out.contains("@%q st.param.u32 [$zluda_rp_lo], lo;"), out);
        assertEquals(2, out.split("st.param.u32 \\[\\$zluda_rp_hi\\], hi;", -1).length - 1, out);
        // calls: arguments stored (a register, an immediate), results loaded under the call's guard
        assertTrue(out.contains("st.param.u32 [$zluda_rp_arg0_0], %r1;"), out);
        assertTrue(out.contains("call ($zluda_rp_ret0_0, $zluda_rp_ret0_1), split, ($zluda_rp_arg0_0);"), out);
        assertTrue(out.contains("ld.param.u32 %r3, [$zluda_rp_ret0_1];"), out);
        assertTrue(out.contains("st.param.u32 [$zluda_rp_arg1_0], 7;"), out);
        assertTrue(out.contains("@%p1 ld.param.u32 %r2, [$zluda_rp_ret1_0];"), out);
    }

    @Test
    void aModuleWithoutRegisterParametersIsReturnedAsItIs() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n");
        assertSame(in, new RegisterParams().apply(in));
    }
}
