package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Golden;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Statement;

class PairMmaTest {
    static final String MMA = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";

    /**
     * Pairs: (1) and (2) share A with a load of (2)'s B in between: (1) moves down to (2). (3) reads (2)'s D as C: the
     * chain is not paired with it, but (3) and (4) share A and pair. (5) shares A with (6) but an instruction in between
     * reads (5)'s D, and (7) is behind a label: neither pairs.
     */
    static final String PTX = """
            .version 8.0
            .target sm_80
            .address_size 64
            .visible .entry k(.param .u64 out)
            {
            \t.reg .b32 %r<16>;
            \t.reg .f32 %f<40>;
            \t.reg .b64 %rd<2>;
            \tld.param.u64 %rd1, [out];
            \t%MMA {%f0, %f1, %f2, %f3}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f0, %f1, %f2, %f3};
            \tld.global.b32 %r7, [%rd1];
            \t%MMA {%f4, %f5, %f6, %f7}, {%r1, %r2, %r3, %r4}, {%r7, %r6}, {%f4, %f5, %f6, %f7};
            \t%MMA {%f8, %f9, %f10, %f11}, {%r8, %r9, %r10, %r11}, {%r5, %r6}, {%f4, %f5, %f6, %f7};
            \t%MMA {%f12, %f13, %f14, %f15}, {%r8, %r9, %r10, %r11}, {%r7, %r6}, {%f12, %f13, %f14, %f15};
            \t%MMA {%f16, %f17, %f18, %f19}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f16, %f17, %f18, %f19};
            \tst.global.f32 [%rd1], %f16;
            \t%MMA {%f20, %f21, %f22, %f23}, {%r1, %r2, %r3, %r4}, {%r7, %r6}, {%f20, %f21, %f22, %f23};
            L:
            \t%MMA {%f24, %f25, %f26, %f27}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f24, %f25, %f26, %f27};
            \tret;
            }
            """.replace("%MMA", MMA);

    @Test
    void mmaSharingAPairWhereNothingInBetweenDependsOnThem() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", PTX);
        String printed = PtxPrinter.print(new PairMma().apply(in));
        Golden.check("pair-mma.ptx", printed);
        long pairs = printed.lines().filter(l -> l.contains(PairMma.PAIR)).count();
        long single = printed.lines().filter(l -> l.contains("mma.sync") && !l.contains(PairMma.PAIR)).count();
        assertEquals(2, pairs, printed);
        assertEquals(3, single, printed);
        assertTrue(printed.contains("{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r6}"), printed);
        assertTrue(printed.indexOf("ld.global.b32") < printed.indexOf(PairMma.PAIR), "the first operation moved down to the second");
        assertTrue(printed.contains("{%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15}, {%r8, %r9, %r10, %r11}"), printed);
    }

    @Test
    void otherInstructionsAreLeftAlone() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", PTX.replace(".f16.f16", ".bf16.bf16").replace("m16n8k16", "m16n8k16"));
        assertEquals(2, PtxPrinter.print(new PairMma().apply(in)).lines().filter(l -> l.contains(PairMma.PAIR)).count());
        PtxModule bytes = Ptx.parse("i.ptx", PTX.replace(".f32.f16.f16.f32", ".s32.s8.u8.s32").replace("m16n8k16", "m16n8k32")
                .replace(".f32 %f<40>", ".b32 %f<40>").replace("st.global.f32", "st.global.b32"));
        assertEquals(2, PtxPrinter.print(new PairMma().apply(bytes)).lines().filter(l -> l.contains(PairMma.PAIR)).count(),
                "m16n8k32 s8/u8 pairs too");
        PtxModule tf32 = Ptx.parse("t.ptx", PTX.replace(".f16.f16", ".tf32.tf32").replace("m16n8k16", "m16n8k8"));
        assertFalse(PtxPrinter.print(new PairMma().apply(tf32)).contains(PairMma.PAIR), "tf32 has no WMMA: not paired");
        assertTrue(PairMma.pairable(new Statement.Instruction(null, "mma", java.util.List.of(".sync", ".aligned", ".m16n8k8",
                ".row", ".col", ".f16", ".f16", ".f16", ".f16"), java.util.List.of(), 1, 1)) == false, "four operands needed");
    }
}
