package org.zludaj.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.zludaj.ptx.NvptxLoweringTest.HEAD;
import static org.zludaj.ptx.NvptxLoweringTest.count;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * target/ExtendedShifts: a 64-bit shift by a constant that the PTX wrote, of a widened 32-bit value, stays NVIDIA's
 * {@code cvt.s64.s32} and {@code shl.b64} in our NVPTX (LLVM's NVPTX back end made it a {@code mul.wide.s32} by the power
 * of two, which ptxas folded into each iteration of ggml's q5_0 matrix-vector loop); a {@code mul.wide.s32} the PTX
 * wrote stays one, and a shift of a value not widened is not touched.
 */
class ExtendedShiftsTest {
    @Test
    void shiftsOfWidenedValuesKeepNvidiasForm(@TempDir Path dir) throws Exception {
        String text = HEAD + """
                .visible .entry k(.param .u64 p, .param .u32 n)
                {
                	.reg .pred %p<2>;
                	.reg .b32 %r<12>;
                	.reg .b64 %rd<16>;
                	ld.param.u64 %rd1, [p];
                	ld.param.u32 %r1, [n];
                	mov.u32 %r2, %tid.x;
                	shl.b32 %r3, %r2, 1;
                	sub.s32 %r4, 7, %r2;
                	cvt.s64.s32 %rd2, %r3;
                	cvt.s64.s32 %rd3, %r4;
                	shl.b64 %rd4, %rd2, 2;
                	shl.b64 %rd5, %rd3, 3;
                	mul.wide.s32 %rd6, %r2, 4;
                	ld.global.u64 %rd7, [%rd1];
                	shl.b64 %rd8, %rd7, 2;
                	mov.u32 %r5, 0;
                	mov.u32 %r6, 0;
                LOOP:
                	mul.wide.u32 %rd9, %r5, 36;
                	add.s64 %rd10, %rd1, %rd9;
                	add.s64 %rd11, %rd10, %rd4;
                	ld.global.u32 %r7, [%rd11+4];
                	add.s64 %rd12, %rd10, %rd5;
                	ld.global.u32 %r8, [%rd12+4];
                	add.s64 %rd13, %rd10, %rd6;
                	ld.global.u32 %r9, [%rd13];
                	add.s32 %r6, %r6, %r7;
                	add.s32 %r6, %r6, %r8;
                	add.s32 %r6, %r6, %r9;
                	add.s32 %r5, %r5, 64;
                	setp.lt.u32 %p1, %r5, %r1;
                	@%p1 bra LOOP;
                	add.s64 %rd14, %rd1, %rd8;
                	st.global.u32 [%rd14], %r6;
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("shifts.ptx", text), 90);
        assertEquals(2, count(out, "cvt\\.s64\\.s32\\s+%rd\\d+, %r\\d+;"), out);
        assertEquals(2, count(out, "shl\\.b64\\s+%rd\\d+, %rd\\d+, 2;\\s"), "the shift of a widened value, and of a loaded one: " + out);
        assertEquals(1, count(out, "shl\\.b64\\s+%rd\\d+, %rd\\d+, 3;"), out);
        assertEquals(1, count(out, "mul\\.wide\\.s32\\s+%rd\\d+, %r\\d+, 4;"), "the PTX's own mul.wide: " + out);
        assertEquals(0, count(out, "mul\\.wide\\.s32\\s+%rd\\d+, %r\\d+, 8;"), out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }
}
