package org.zludaj.ptx.llvm;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import org.bytedeco.llvm.global.LLVM;
import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.target.AmdgpuTarget;
import org.zludaj.ptx.target.HostTarget;

/**
 * FragmentExchange moves every fragment value once: one lane permute per round, a round per candidate register.
 * Counted in the generated code of one m16n8k16 f32 mma and of two that share A (PairMma fuses them into one WMMA).
 * That the values land where the WMMA expects them is checked by executing every mma form under the AMD lowering
 * on the host (ptx-tests, PtxInstructionTest.matrixTestsMatchWithTheAmdLoweringEmulated) against NVIDIA's results.
 */
class FragmentExchangeTest {
    private static String kernel(boolean paired) {
        StringBuilder s = new StringBuilder(".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                + ".reg .b32 %r<16>;\n.reg .f32 %f<24>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [p];\nmov.u32 %r15, %tid.x;\n"
                + "mul.wide.u32 %rd2, %r15, 64;\nadd.s64 %rd1, %rd1, %rd2;\n");
        for (int i = 0; i < 8; i++) s.append("ld.global.b32 %r").append(i).append(", [%rd1+").append(4 * i).append("];\n");
        for (int i = 0; i < 8; i++) s.append("ld.global.f32 %f").append(i).append(", [%rd1+").append(32 + 4 * i).append("];\n");
        s.append("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f10,%f11,%f12,%f13}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f0,%f1,%f2,%f3};\n");
        if (paired)
            s.append("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f14,%f15,%f16,%f17}, {%r0,%r1,%r2,%r3}, {%r6,%r7}, {%f4,%f5,%f6,%f7};\n");
        for (int i = 0; i < (paired ? 8 : 4); i++) s.append("st.global.f32 [%rd1+").append(4 * i).append("], %f").append(10 + i).append(";\n");
        return s.append("ret;\n}\n").toString();
    }

    private static long permutes(String gfx, boolean paired) throws Exception {
        byte[] asm = Compiler.compile(Ptx.parse("k.ptx", kernel(paired)), new AmdgpuTarget(gfx), LLVM.LLVMAssemblyFile).code();
        String text = new String(asm, StandardCharsets.UTF_8);
        assertEquals(1, text.lines().filter(l -> l.contains("v_wmma_f32_16x16x16_f16")).count(), gfx + ": one WMMA");
        return text.lines().filter(l -> l.contains("ds_bpermute_b32")).count();
    }

    @Test
    void eachValueMovesOnce() throws Exception {
        // RDNA3: A and B two rounds per pair of words (8 each), C and D four rounds per 4 words (8 each), paired or not
        assertEquals(32, permutes("gfx1100", false));
        assertEquals(32, permutes("gfx1100", true));
        // RDNA4: A and B four rounds (lanes 16-31 hold k 8-15), C and D eight rounds
        assertEquals(24, permutes("gfx1201", false));
        assertEquals(24, permutes("gfx1201", true));
    }

    /** Calls of a host runtime function in the host's assembly of the kernel under {@code gfx}'s emulation. */
    private static long hostCalls(String gfx, boolean paired, String function) throws Exception {
        HostTarget host = new HostTarget("x86_64-unknown-linux-gnu", "x86-64", "", gfx);
        String text = new String(Compiler.compile(Ptx.parse("k.ptx", kernel(paired)), host, LLVM.LLVMAssemblyFile).code(), StandardCharsets.UTF_8);
        return text.lines().filter(l -> l.matches("\\s*(call|jmp)q?\\s+" + function + "(@PLT)?\\s*")).count();
    }

    @Test
    void theHostEmulationMakesEachExchangeOneCollective() throws Exception {
        // the same rounds, each of A, B, C and D one step of the fiber runtime (zluda_warp_permutes), no single shuffles
        for (String gfx : new String[] {"gfx1100", "gfx1201"}) {
            for (boolean paired : new boolean[] {false, true}) {
                long batches = hostCalls(gfx, paired, "zluda_warp_permutes"), single = hostCalls(gfx, paired, "zluda_warp");
                System.out.printf("%s paired=%s: %d batches, %d single collectives, %d WMMA%n", gfx, paired, batches, single,
                        hostCalls(gfx, paired, "zluda_wmma"));
                assertEquals(1, hostCalls(gfx, paired, "zluda_wmma"), gfx + ": one emulated WMMA");
                assertEquals(0, single, gfx + ": no permute left alone");
                assertEquals(4, batches, gfx + ": one step for each of A, B, C and D");
            }
        }
    }
}
