package org.zludaj.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.zludaj.ptx.NvptxLoweringTest.HEAD;
import static org.zludaj.ptx.NvptxLoweringTest.count;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * target/HoistedSums: an address the PTX sums in its loop as {@code (y + 36 i) + 4} plus a lane offset stays summed in
 * the loop in that order in our NVPTX: LLVM's LICM had made it {@code 36 i + ((y + 4) + offset)}, one 64-bit base per
 * offset hoisted to the preheader and live across the loop (ggml's q5_0 matrix-vector loop, two of them).
 */
class HoistedSumsTest {
    static final String KERNEL = HEAD + """
            .visible .entry k(.param .u64 p, .param .u64 q, .param .u32 n)
            {
            	.reg .pred %p<2>;
            	.reg .b32 %r<12>;
            	.reg .b64 %rd<32>;
            	ld.param.u64 %rd1, [p];
            	ld.param.u64 %rd20, [q];
            	cvta.to.global.u64 %rd5, %rd20;
            	ld.param.u32 %r1, [n];
            	mov.u32 %r2, %tid.x;
            	shl.b32 %r3, %r2, 1;
            	sub.s32 %r4, 7, %r2;
            	cvt.s64.s32 %rd2, %r3;
            	cvt.s64.s32 %rd3, %r4;
            	shl.b64 %rd4, %rd2, 2;
            	shl.b64 %rd6, %rd3, 2;
            	mov.u32 %r5, 0;
            	mov.u32 %r6, 0;
            LOOP:
            	cvt.u64.u32 %rd9, %r5;
            	mul.lo.s64 %rd23, %rd9, 36;
            	add.s64 %rd24, %rd5, %rd23;
            	add.s64 %rd25, %rd24, 4;
            	add.s64 %rd28, %rd25, %rd4;
            	ld.global.u32 %r7, [%rd28];
            	ld.global.u32 %r9, [%rd28+16];
            	add.s64 %rd30, %rd25, %rd6;
            	ld.global.u32 %r8, [%rd30];
            	add.s32 %r6, %r6, %r7;
            	add.s32 %r6, %r6, %r8;
            	add.s32 %r6, %r6, %r9;
            	add.s32 %r5, %r5, 64;
            	setp.lt.u32 %p1, %r5, %r1;
            	@%p1 bra LOOP;
            	st.global.u32 [%rd1], %r6;
            	ret;
            }
            """;

    @Test
    void loopAddressesAreSummedInTheLoopAsThePtxWroteThem(@TempDir Path dir) throws Exception {
        String out = Compiler.nvptx(Ptx.parse("sums.ptx", KERNEL), 90);
        Matcher loop = Pattern.compile("(?s)\\$L__BB0_\\d+:\\n(.*?)@%p\\d+ bra").matcher(out);
        assertTrue(loop.find(), out);
        String body = loop.group(1);
        // the block's address (y + 36 i) and its + 4 once in the loop, then each lane offset added to that: four adds
        assertEquals(4, count(body, "add\\.s64\\s"), body);
        assertEquals(1, count(body, "add\\.s64\\s+%rd\\d+, %rd\\d+, 4;"), body);
        String preheader = out.substring(0, loop.start());
        assertEquals(0, count(preheader, "add\\.s64\\s+%rd\\d+, %rd\\d+, 4;"), "no base hoisted before the loop: " + out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }

    /**
     * Nested loops: the inner loop's hoisted sum (its block's address plus 4) holds the outer loop's varying address,
     * and LICM reassociated it again in the outer loop ({@code invariant.op.reass}). That sum is summed again in the
     * outer loop and the inner address from it (the first version erased the shared sum twice: a crash in LLVM on
     * ggml's modules).
     */
    @Test
    void nestedLoopsSumTheirPartsInTheirOwnLoop(@TempDir Path dir) throws Exception {
        String text = HEAD + """
            .visible .entry k(.param .u64 p, .param .u64 q, .param .u32 n, .param .u32 m)
            {
            	.reg .pred %p<3>;
            	.reg .b32 %r<16>;
            	.reg .b64 %rd<48>;
            	ld.param.u64 %rd1, [p];
            	ld.param.u64 %rd20, [q];
            	cvta.to.global.u64 %rd5, %rd20;
            	ld.param.u32 %r1, [n];
            	ld.param.u32 %r11, [m];
            	mov.u32 %r2, %tid.x;
            	shl.b32 %r3, %r2, 1;
            	cvt.s64.s32 %rd2, %r3;
            	shl.b64 %rd4, %rd2, 2;
            	mov.u32 %r6, 0;
            	mov.u32 %r10, 0;
            OUTER:
            	mul.wide.u32 %rd41, %r10, 4096;
            	add.s64 %rd42, %rd5, %rd41;
            	mov.u32 %r5, 0;
            INNER:
            	mul.wide.u32 %rd23, %r5, 36;
            	add.s64 %rd24, %rd42, %rd23;
            	add.s64 %rd25, %rd24, 4;
            	add.s64 %rd28, %rd25, %rd4;
            	ld.global.u32 %r7, [%rd28];
            	add.s32 %r6, %r6, %r7;
            	add.s32 %r5, %r5, 64;
            	setp.lt.u32 %p1, %r5, %r1;
            	@%p1 bra INNER;
            	add.s32 %r10, %r10, 1;
            	setp.lt.u32 %p2, %r10, %r11;
            	@%p2 bra OUTER;
            	st.global.u32 [%rd1], %r6;
            	ret;
            }
            """;
        String out = Compiler.nvptx(Ptx.parse("nested.ptx", text), 90);
        Matcher inner = Pattern.compile("(?s)\\$L__BB0_\\d+:\\n(\\s*mul\\.wide\\.u32\\s+%rd\\d+, %r\\d+, 36;.*?)@%p\\d+ bra").matcher(out);
        assertTrue(inner.find(), out);
        // 36 i, plus the outer loop's address plus 4 (summed in the outer loop), plus the lane offset
        assertEquals(2, count(inner.group(1), "add\\.s64\\s"), inner.group(1));
        Matcher outer = Pattern.compile("(?s)\\$L__BB0_\\d+:\\n(\\s*mul\\.wide\\.u32\\s+%rd\\d+, %r\\d+, 4096;.*?)\\$L__BB0_").matcher(out);
        assertTrue(outer.find(), out);
        assertEquals(2, count(outer.group(1), "add\\.s64\\s"), "the outer address and its + 4 in the outer loop: " + out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }
}
