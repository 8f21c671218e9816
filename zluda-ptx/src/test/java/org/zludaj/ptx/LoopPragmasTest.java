package org.zludaj.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our NVPTX keeps the PTX's loops as they are (LLVM unrolls none) and carries each {@code .pragma "nounroll"} to its
 * loop, in the three scopes of the PTX ISA (statement in the loop header, function, module), and no other: ptxas then
 * unrolls what it unrolls of NVIDIA's own PTX ({@link org.zludaj.ptx.llvm.LoopPragmas}).
 */
class LoopPragmasTest {
    /** Two nested loops summing floats (no reassociation: LLVM cannot fold them); PRAGMA after the outer loop's label. */
    static String nested(String moduleLevel, String functionLevel, String outerPragma) {
        return NvptxLoweringTest.HEAD + moduleLevel + """
                .visible .entry k(.param .u64 out, .param .u32 n)
                """ + functionLevel + """
                {
                	.reg .b32 %r<8>;
                	.reg .b64 %rd<4>;
                	.reg .pred %p<4>;
                	.reg .f32 %f<4>;
                	ld.param.u64 %rd2, [out];
                	ld.param.u32 %r1, [n];
                	mov.u32 %r2, 0;
                	mov.f32 %f1, 0f00000000;
                OUTER:
                """ + outerPragma + """
                	mov.u32 %r3, 0;
                INNER:
                	cvt.rn.f32.u32 %f2, %r3;
                	add.f32 %f1, %f1, %f2;
                	add.u32 %r3, %r3, 1;
                	setp.lt.u32 %p1, %r3, %r1;
                	@%p1 bra INNER;
                	add.u32 %r2, %r2, 1;
                	setp.lt.u32 %p2, %r2, %r1;
                	@%p2 bra OUTER;
                	st.global.f32 [%rd2], %f1;
                	ret;
                }
                """;
    }

    /** A loop of the output: its header's line, the line of the branch back to it, whether the pragma starts it. */
    record Loop(int header, int back, boolean nounroll) {
        boolean contains(Loop o) {
            return header <= o.header && o.back <= back && !equals(o);
        }
    }

    /** The loops of NVPTX text, by its labels and the branches back to them. */
    static List<Loop> loops(String out) {
        List<String> lines = out.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("//")).toList();
        Map<String, Integer> labels = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).endsWith(":")) labels.put(lines.get(i).substring(0, lines.get(i).length() - 1), i);
        List<Loop> loops = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = Pattern.compile("\\bbra(?:\\.uni)?\\s+(\\S+);").matcher(lines.get(i));
            if (!m.find() || !labels.containsKey(m.group(1)) || labels.get(m.group(1)) > i) continue;
            int h = labels.get(m.group(1));
            loops.add(new Loop(h, i, lines.get(h + 1).equals(".pragma \"nounroll\";")));
        }
        return loops;
    }

    /** The output's two loops, outer first (each the same loop of the PTX: LLVM unrolled neither, one add each). */
    static List<Loop> twoNested(String out) {
        List<Loop> loops = loops(out);
        assertEquals(2, loops.size(), out);
        Loop a = loops.get(0), b = loops.get(1);
        assertTrue(a.contains(b) || b.contains(a), "nested loops\n" + out);
        assertEquals(1, NvptxLoweringTest.count(out, "\\badd(\\.rn)?\\.f32\\b"), "one float add: no loop unrolled\n" + out);
        assertEquals(loops.stream().filter(Loop::nounroll).count(), NvptxLoweringTest.count(out, "\\.pragma"),
                "every pragma at a loop's head\n" + out);
        return a.contains(b) ? List.of(a, b) : List.of(b, a);
    }

    @Test
    void aStatementPragmaStaysWithItsLoopOnly(@TempDir Path dir) throws Exception {
        String out = Compiler.nvptx(Ptx.parse("loops.ptx", nested("", "", "\t.pragma \"nounroll\";\n")), 90);
        List<Loop> loops = twoNested(out);
        assertTrue(loops.get(0).nounroll(), "the outer loop keeps its pragma\n" + out);
        assertFalse(loops.get(1).nounroll(), "the inner loop had none\n" + out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }

    @Test
    void noPragmaNoneAdded() throws Exception {
        String out = Compiler.nvptx(Ptx.parse("loops.ptx", nested("", "", "")), 90);
        twoNested(out);
        assertFalse(out.contains(".pragma"), out);
    }

    @Test
    void functionAndModulePragmasCoverEveryLoop(@TempDir Path dir) throws Exception {
        for (String[] scope : new String[][] {{"", ".pragma \"nounroll\";\n"}, {".pragma \"nounroll\";\n", ""}}) {
            String out = Compiler.nvptx(Ptx.parse("loops.ptx", nested(scope[0], scope[1], "")), 90);
            List<Loop> loops = twoNested(out);
            assertTrue(loops.get(0).nounroll() && loops.get(1).nounroll(), "both loops\n" + out);
            TargetsTest.assertPtxasAccepts(dir, out);
        }
    }

    /**
     * The loop of corpus kernel fuzz_1_00998 stays one loop for ptxas to unroll as it unrolls NVIDIA's own PTX: LLVM had
     * unrolled it by four, ptxas unrolled that again and left a hoisted select uninitialized on one path (0 instead of
     * 0x3fc00fff on an H200). Kept by the GPU check (ptx-tests' fuzz cases through the cuda backend).
     */
    @Test
    void llvmUnrollsNoLoop() throws Exception {
        String ptx = NvptxLoweringTest.HEAD + """
                .global .align 8 .u64 vals[4] = {0x402000003fc00fff, 0, 30, 0x7fff7fff};
                .visible .entry k(.param .u64 out)
                {
                	.reg .b32 %r<32>;
                	.reg .b64 %rd<16>;
                	.reg .pred %p<8>;
                	ld.param.u64 %rd2, [out];
                	mov.u64 %rd1, vals;
                	ld.global.u64 %rd11, [%rd1];
                	ld.global.u32 %r5, [%rd1+8];
                	ld.global.u32 %r1, [%rd1+16];
                	ld.global.u32 %r4, [%rd1+24];
                	and.b32 %r11, %r4, 7;
                	add.u32 %r11, %r11, 1;
                LOOP:
                	bfe.u64 %rd11, %rd11, %r5, %r1;
                	sub.u32 %r11, %r11, 1;
                	setp.ne.u32 %p3, %r11, 0;
                	@%p3 bra LOOP;
                	st.global.u64 [%rd2], %rd11;
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("loop.ptx", ptx), 90);
        assertEquals(1, loops(out).size(), out);
        assertEquals(1, NvptxLoweringTest.count(out, "\\bbfe\\.u64\\b"), out);
        assertFalse(out.contains(".pragma"), out);
    }

    /**
     * {@code LoopPragmas.disableLicmAbove}: loops over the limit get their own {@code llvm.loop} node (distinct, itself
     * its first operand) with {@code llvm.licm.disable} on the branch back to their header, the others none; LLVM's
     * LICM then leaves the marked loop's invariant product in place and hoists the small loop's.
     */
    @Test
    void largeLoopsAloneAreMarkedAgainstLicm() throws Exception {
        String ir = """
                define void @k(i32 %n, i32 %a, i32 %b, ptr %p) {
                entry:
                  br label %small
                small:
                  %i = phi i32 [ 0, %entry ], [ %i1, %small ]
                  %m = mul i32 %a, %b
                  %x = xor i32 %m, %i
                  store volatile i32 %x, ptr %p
                  %i1 = add i32 %i, 1
                  %c = icmp ult i32 %i1, %n
                  br i1 %c, label %small, label %between
                between:
                  br label %large
                large:
                  %j = phi i32 [ 0, %between ], [ %j1, %large ]
                  %m2 = mul i32 %b, %a
                  %y = xor i32 %m2, %j
                  store volatile i32 %y, ptr %p
                  store volatile i32 %j, ptr %p
                  store volatile i32 %j, ptr %p
                  %j1 = add i32 %j, 1
                  %d = icmp ult i32 %j1, %n
                  br i1 %d, label %large, label %exit
                exit:
                  ret void
                }
                """;
        var ctx = org.bytedeco.llvm.global.LLVM.LLVMContextCreate();
        try {
            var buf = org.bytedeco.llvm.global.LLVM.LLVMCreateMemoryBufferWithMemoryRangeCopy(new org.bytedeco.javacpp.BytePointer(ir), ir.length(),
                    new org.bytedeco.javacpp.BytePointer("loops"));
            var m = new org.bytedeco.llvm.LLVM.LLVMModuleRef();
            var err = new org.bytedeco.javacpp.BytePointer((org.bytedeco.javacpp.Pointer) null);
            assertEquals(0, org.bytedeco.llvm.global.LLVM.LLVMParseIRInContext(ctx, buf, m, err));
            assertEquals(1, org.zludaj.ptx.llvm.LoopPragmas.disableLicmAbove(m, 7));  // the small loop has 7 instructions
            String marked = org.bytedeco.llvm.global.LLVM.LLVMPrintModuleToString(m).getString();
            assertTrue(marked.contains("br i1 %d, label %large, label %exit, !llvm.loop !0"), marked);
            assertTrue(marked.contains("br i1 %c, label %small, label %between\n"), marked);
            assertTrue(marked.contains("!0 = distinct !{!0, !1}") && marked.contains("!1 = !{!\"llvm.licm.disable\"}"), marked);
            var tm = Compiler.targetMachine(new org.zludaj.ptx.target.NvptxTarget(90));
            try {
                Compiler.optimize(m, tm, "function(loop-mssa(licm))", true, true);
            } finally {
                org.bytedeco.llvm.global.LLVM.LLVMDisposeTargetMachine(tm);
            }
            String after = org.bytedeco.llvm.global.LLVM.LLVMPrintModuleToString(m).getString();
            String entry = after.substring(after.indexOf("entry:"), after.indexOf("small:"));
            String large = after.substring(after.indexOf("\nlarge:"), after.indexOf("\nexit:"));
            assertTrue(entry.contains("mul i32 %a, %b"), after);
            assertTrue(large.contains("mul i32 %b, %a"), after);
            org.bytedeco.llvm.global.LLVM.LLVMDisposeModule(m);
        } finally {
            org.bytedeco.llvm.global.LLVM.LLVMContextDispose(ctx);
        }
    }
}
