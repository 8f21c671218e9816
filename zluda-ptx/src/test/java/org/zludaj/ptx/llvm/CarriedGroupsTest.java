package org.zludaj.ptx.llvm;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Ptx;

/** CarriedGroups: which mma accumulators stay in the WMMA layout across a loop. */
class CarriedGroupsTest {
    private static final String MMA = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, "
            + "{%f1,%f2,%f3,%f4};\n";

    /** A kernel whose body is {@code before}, a loop of {@code loop} run eight times, then {@code after}. */
    private static List<CarriedGroups.Group> groups(String before, String loop, String after) throws Exception {
        String ptx = ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                + ".reg .b32 %r<12>;\n.reg .f32 %f<8>;\n.reg .pred %p<2>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n"
                + "mov.f32 %f1, 0f00000000;\nmov.f32 %f2, 0f00000000;\nmov.f32 %f3, 0f00000000;\nmov.f32 %f4, 0f00000000;\n"
                + before + "LOOP:\n" + loop + "add.s32 %r10, %r10, 1;\nsetp.lt.s32 %p1, %r10, 8;\n@%p1 bra LOOP;\n" + after
                + "st.global.f32 [%rd1], %f1;\nret;\n}\n";
        return CarriedGroups.choose(Ptx.parse("k.ptx", ptx).function("k").body());
    }

    @Test
    void aGemmKLoopCarriesItsAccumulator() throws Exception {
        List<CarriedGroups.Group> g = groups("", MMA, "");
        assertEquals(1, g.size());
        assertEquals(List.of("%f1", "%f2", "%f3", "%f4"), g.get(0).registers());
        assertFalse(g.get(0).integer());
        assertEquals(1, g.get(0).halves());
        assertEquals(1, groups("", "{\n" + MMA + "}\n", "add.f32 %f5, %f1, %f2;\n").size(), "nested blocks, uses after the loop");
    }

    @Test
    void accumulatorsTouchedInTheLoopOrOutsideAnyLoopStayCurrent() throws Exception {
        assertEquals(List.of(), groups("", MMA + "mul.f32 %f2, %f2, 0f3F000000;\n", ""), "rescaled every iteration");
        assertEquals(List.of(), groups("", "add.f32 %f5, %f3, %f3;\n" + MMA, ""), "read in the loop");
        assertEquals(List.of(), groups(MMA, "", ""), "no loop around the mma");
    }
}
