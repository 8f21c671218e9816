package org.zludaj.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.zludaj.ptx.target.NvptxRewrites;
import org.zludaj.ptx.target.NvptxTarget;

/**
 * What the NVPTX lowering must keep of the PTX it compiles, checked on its output: each warp collective stays at its own
 * place (LLVM merged the activemask of three branches into one before them), ordered vector accesses stay one access
 * (CUB's look-back reads a status and its value together), min/max of one register with itself is the register, and
 * device functions take scalar parameters and return a scalar result by value (by pointer, a recursive function kept
 * 64-bit pointers to its caller's slots alive across its calls: NVIDIA's ptxas gave fib a 72-byte frame against nvcc's
 * 24, and 15 levels overflowed the default 1 KiB stack: mixed_calls faulted on the GPU).
 */
class NvptxLoweringTest {
    static final String HEAD = ".version 7.8\n.target sm_80\n.address_size 64\n";

    /** Our NVPTX for sm_90 of a kernel: %f0 and %f1 loaded from p[0] and p[1], BODY, %f3 stored to p[2]. */
    static String nvptxOfTwoFloats(String name, String body) throws Exception {
        String ptx = HEAD + """
                .visible .entry k(.param .u64 p)
                {
                	.reg .f32 %f<4>;
                	.reg .b64 %rd<2>;
                	ld.param.u64 %rd0, [p];
                	ld.global.f32 %f0, [%rd0];
                	ld.global.f32 %f1, [%rd0+4];
                """ + body + """
                	st.global.f32 [%rd0+8], %f3;
                	ret;
                }
                """;
        return Compiler.nvptx(Ptx.parse(name, ptx), 90);
    }

    static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) n++;
        return n;
    }

    /** PTX names may begin with '%'; LLVM's NVPTX assembler ended the process on them (tools/ptxas_accept_diff.py). */
    @Test
    void namesBeginningWithPercentAreRenamedNotFatal() throws Exception {
        String ptx = ".version 7.8\n.target sm_80\n.address_size 64\n.global .align 4 .u32 %gv[4];\n"
                + ".func (.param .u32 %r) %f(.param .u32 %x)\n{\n.reg .b32 %q<2>;\nld.param.u32 %q1, [%x];\nst.param.u32 [%r], %q1;\nret;\n}\n"
                + ".visible .entry %k(.param .u64 %p)\n{\n.reg .b64 %rd<3>;\n.reg .b32 %s<3>;\nld.param.u64 %rd1, [%p];\n"
                + "ld.global.u32 %s1, [%gv+4];\n{\n.param .u32 a;\n.param .u32 b;\nst.param.u32 [a], %s1;\n"
                + "call.uni (b), %f, (a);\nld.param.u32 %s2, [b];\n}\nst.global.u32 [%rd1], %s2;\nret;\n}\n";
        String out = Compiler.nvptx(Ptx.parse("k.ptx", ptx), 90);
        assertTrue(out.contains(".entry " + org.zludaj.ptx.target.NvptxNames.PERCENT + "k(") && out.contains(org.zludaj.ptx.target.NvptxNames.PERCENT + "gv"), out);
        assertEquals(org.zludaj.ptx.target.NvptxNames.PERCENT + "k", org.zludaj.ptx.target.NvptxNames.of("%k"));
        assertEquals("k", org.zludaj.ptx.target.NvptxNames.of("k"));
    }

    @Test
    void warpCollectivesOfDivergentBranchesAreNotMerged() throws Exception {
        String ptx = HEAD + """
                .visible .entry k(.param .u64 out)
                {
                	.reg .pred %p<4>;
                	.reg .b32 %r<8>;
                	.reg .b64 %rd<4>;
                	ld.param.u64 %rd1, [out];
                	mov.u32 %r1, %tid.x;
                	rem.u32 %r2, %r1, 3;
                	setp.eq.u32 %p1, %r2, 0;
                	@%p1 bra ZERO;
                	setp.eq.u32 %p2, %r2, 1;
                	@%p2 bra ONE;
                	activemask.b32 %r3;
                	vote.sync.ballot.b32 %r4, %p1, %r3;
                	bra.uni JOIN;
                ONE:
                	activemask.b32 %r3;
                	vote.sync.ballot.b32 %r4, %p1, %r3;
                	bra.uni JOIN;
                ZERO:
                	activemask.b32 %r3;
                	vote.sync.ballot.b32 %r4, %p1, %r3;
                JOIN:
                	add.u32 %r5, %r3, %r4;
                	mul.wide.u32 %rd2, %r1, 4;
                	add.s64 %rd3, %rd1, %rd2;
                	st.global.u32 [%rd3], %r5;
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("branches.ptx", ptx), 90);
        assertEquals(3, count(out, "activemask\\.b32"), out);
        assertEquals(3, count(out, "vote\\.sync\\.ballot\\.b32"), out);
    }

    @Test
    void orderedVectorAccessesStayOneAccess() throws Exception {
        String ptx = HEAD + """
                .visible .entry k(.param .u64 p)
                {
                	.reg .b32 %r<8>;
                	.reg .b64 %rd<8>;
                	ld.param.u64 %rd1, [p];
                	cvta.to.global.u64 %rd1, %rd1;
                	ld.relaxed.gpu.global.v2.u64 {%rd2, %rd3}, [%rd1];
                	ld.acquire.gpu.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];
                	add.s64 %rd4, %rd2, %rd3;
                	add.u32 %r5, %r1, %r4;
                	st.relaxed.gpu.global.v2.u64 [%rd1+32], {%rd4, %rd2};
                	st.release.gpu.global.v4.u32 [%rd1+48], {%r5, %r2, %r3, %r1};
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("ordered.ptx", ptx), 90);
        assertEquals(1, count(out, "ld\\.volatile\\.global\\.v2\\.u64"), out);
        assertEquals(1, count(out, "ld\\.volatile\\.global\\.v4\\.u32"), out);
        assertEquals(1, count(out, "st\\.volatile\\.global\\.v2\\.u64"), out);
        assertEquals(1, count(out, "st\\.volatile\\.global\\.v4\\.u32"), out);
        assertTrue(count(out, "fence\\.") >= 2, "acquire and release keep their fences:\n" + out);
        assertFalse(out.contains("ld.global.u64") || out.contains("ld.relaxed"), "no element-by-element access:\n" + out);
    }

    @Test
    void minAndMaxOfOneRegisterWithItselfIsTheRegister() throws Exception {
        String ptx = HEAD + """
                .visible .entry k(.param .u64 p)
                {
                	.reg .b16 %h<4>;
                	.reg .f32 %f<4>;
                	.reg .b64 %rd<4>;
                	ld.param.u64 %rd1, [p];
                	cvta.to.global.u64 %rd1, %rd1;
                	ld.global.f32 %f1, [%rd1];
                	ld.global.b16 %h1, [%rd1+4];
                	max.f32 %f2, %f1, %f1;
                	min.f16 %h2, %h1, %h1;
                	st.global.f32 [%rd1+8], %f2;
                	st.global.b16 [%rd1+12], %h2;
                	ret;
                }
                """;
        // on the host: no comparison left, the loaded bits are stored back (a NaN keeps its payload, as with ptxas)
        String ir = Compiler.compile(Ptx.parse("minmax.ptx", ptx), org.zludaj.ptx.target.HostTarget.native_(),
                org.bytedeco.llvm.global.LLVM.LLVMAssemblyFile).llvmIr();
        assertFalse(ir.contains("fcmp"), ir);
    }

    @Test
    void deviceFunctionsTakeAndReturnScalarsByValue() throws Exception {
        String ptx = HEAD + """
                .visible .func (.param .b32 ret) fib(.param .b32 n)
                {
                	.reg .pred %p<2>;
                	.reg .b32 %r<8>;
                	ld.param.u32 %r1, [n];
                	setp.lt.s32 %p1, %r1, 2;
                	@%p1 bra DONE;
                	add.s32 %r2, %r1, -1;
                	{
                	.param .b32 a;
                	st.param.b32 [a], %r2;
                	.param .b32 r;
                	call.uni (r), fib, (a);
                	ld.param.b32 %r3, [r];
                	}
                	add.s32 %r4, %r1, -2;
                	{
                	.param .b32 a;
                	st.param.b32 [a], %r4;
                	.param .b32 r;
                	call.uni (r), fib, (a);
                	ld.param.b32 %r5, [r];
                	}
                	add.s32 %r1, %r3, %r5;
                DONE:
                	st.param.b32 [ret], %r1;
                	ret;
                }
                .visible .func (.param .align 8 .b8 pair[16]) two(.param .b64 x)
                {
                	.reg .b64 %rd<4>;
                	ld.param.u64 %rd1, [x];
                	st.param.b64 [pair], %rd1;
                	st.param.b64 [pair+8], %rd1;
                	ret;
                }
                .visible .entry k(.param .u64 out)
                {
                	.reg .b32 %r<4>;
                	.reg .b64 %rd<8>;
                	ld.param.u64 %rd1, [out];
                	mov.u32 %r1, %tid.x;
                	{
                	.param .b32 a;
                	st.param.b32 [a], %r1;
                	.param .b32 r;
                	call.uni (r), fib, (a);
                	ld.param.b32 %r2, [r];
                	}
                	st.global.u32 [%rd1], %r2;
                	cvt.u64.u32 %rd2, %r1;
                	{
                	.param .b64 a;
                	st.param.b64 [a], %rd2;
                	.param .align 8 .b8 r[16];
                	call.uni (r), two, (a);
                	ld.param.b64 %rd3, [r+8];
                	}
                	st.global.u64 [%rd1+8], %rd3;
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("byvalue.ptx", ptx), 90);
        // fib: a 32-bit result and a 32-bit parameter, no pointer to either
        assertTrue(Pattern.compile("\\.func\\s+\\(\\.param \\.b32 [\\w$]+\\) fib\\(\\s*\\.param \\.b32 [\\w$]+\\s*\\)").matcher(out).find(), out);
        // two: the 16-byte aggregate result by pointer, the 64-bit scalar by value
        assertTrue(Pattern.compile("\\.func two\\(\\s*\\.param \\.b64 [\\w$]+,\\s*\\.param \\.b64 [\\w$]+\\s*\\)").matcher(out).find(), out);
    }

    /**
     * bfe and bfi stay NVIDIA's own instructions on NVPTX: their 64-bit forms then behave exactly as NVIDIA's, and
     * NVIDIA's optimizer mistranslated the shift-and-select sequence of the general lowering in a loop (corpus kernel
     * fuzz_1_00998: right at -O0 only; with the instructions right at every level, on an H200).
     */
    @Test
    void bitFieldsStayNvidiasInstructions() throws Exception {
        String ptx = HEAD + """
                .visible .entry k(.param .u64 out)
                {
                	.reg .b32 %r<8>;
                	.reg .b64 %rd<8>;
                	ld.param.u64 %rd1, [out];
                	ld.global.u64 %rd2, [%rd1];
                	ld.global.u32 %r1, [%rd1+8];
                	ld.global.u32 %r2, [%rd1+12];
                	bfe.u64 %rd3, %rd2, %r1, %r2;
                	bfe.s32 %r3, %r1, %r2, %r1;
                	bfi.b64 %rd4, %rd3, %rd2, %r1, %r2;
                	st.global.u64 [%rd1+16], %rd3;
                	st.global.u32 [%rd1+24], %r3;
                	st.global.u64 [%rd1+32], %rd4;
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("fields.ptx", ptx), 90);
        assertEquals(1, count(out, "\\bbfe\\.u64 "), out);
        assertEquals(1, count(out, "\\bbfe\\.s32 "), out);
        assertEquals(1, count(out, "\\bbfi\\.b64 "), out);
    }

    /**
     * A negation of a copysign is not moved onto the copysign's sign operand (fneg(copysign(m, s)) to
     * copysign(m, fneg(s))), where NVPTX's PTX neg gave the canonical NaN on NVIDIA's GPUs and the result's sign came
     * out positive (corpus kernels fuzz_1_15995 and 10 more through the cuda backend, every JIT level, H200): the
     * output negates the copysign's result as the PTX does (copysign is inline bit operations, opaque to LLVM), and
     * a negation LLVM makes itself is a flip of the sign bit (NvptxRewrites.signFlips).
     */
    @Test
    void negationsOfNaNSignsStaySignFlips() throws Exception {
        String out = nvptxOfTwoFloats("signs.ptx", """
                	copysign.f32 %f2, %f0, %f1;
                	neg.f32 %f3, %f2;
                """);
        // copysign: { ... mov.b32 %za, SIGN; mov.b32 %zb, MAGNITUDE; ... mov.b32 RESULT, %za; }
        Matcher cs = Pattern.compile("mov\\.b32 %za, (%f[0-9]+); mov\\.b32 %zb, (%f[0-9]+);[^}]*mov\\.b32 (%f[0-9]+), %za; }")
                .matcher(out);
        assertTrue(cs.find(), out);
        assertEquals(1, count(out, "mov\\.b32 %za, %f"), out);
        assertEquals(0, count(out, "\\bneg\\.f32\\s+%f[0-9]+, " + Pattern.quote(cs.group(1)) + ";"), out);  // not its sign operand
        assertEquals(1, count(out, "\\bneg\\.f32\\s+%f[0-9]+, " + Pattern.quote(cs.group(3)) + ";")
                + count(out, "\\bxor\\.b32 "), out);  // its result, by NVIDIA's neg (as the PTX says) or a sign flip
    }

    /**
     * shfl.sync's predicate output comes from the ISA's arithmetic on the lane, b and c, never from the instruction's
     * own |p: with its value unused and its predicate used in one branch only, NVIDIA's JIT (-O1 and up) moved the
     * shuffle into that branch, where the lanes of the other branch never joined it, and the warp hung (corpus kernel
     * fuzz_1_09427, ptx-test warp_shfl_predicate_only on the GPU).
     */
    @Test
    void shufflePredicatesAreTheLanesOwnArithmetic() throws Exception {
        String ptx = HEAD + """
                .visible .entry k(.param .u64 out)
                {
                	.reg .pred %p<4>;
                	.reg .b32 %r<8>;
                	.reg .b64 %rd<4>;
                	ld.param.u64 %rd1, [out];
                	mov.u32 %r1, %tid.x;
                	shfl.sync.idx.b32 %r2|%p1, %r1, 26, 7711, -1;
                	shfl.sync.up.b32 %r3|%p2, %r1, 3, 0, -1;
                	selp.u32 %r4, 1, 2, %p1;
                	selp.u32 %r5, 4, 8, %p2;
                	add.u32 %r4, %r4, %r5;
                	add.u32 %r4, %r4, %r3;
                	mul.wide.u32 %rd2, %r1, 4;
                	add.s64 %rd3, %rd1, %rd2;
                	st.global.u32 [%rd3], %r4;
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("shfl.ptx", ptx), 90);
        assertEquals(0, count(out, "shfl\\.sync\\.[a-z]+\\.b32 [^;]*\\|"), out);
        assertEquals(1, count(out, "shfl\\.sync\\.up\\.b32"), out);  // its value is used
        assertTrue(count(out, "%laneid") >= 1, out);
    }

    /**
     * copysign is bit operations in inline PTX, opaque to LLVM: LLVM 20's InstCombine folded min(copysign(x, y),
     * min(x, y)) to min(x, y), wrong for a positive x and a negative y (corpus kernel fuzz_1_19670, ptx-test
     * copysign_min_of_min); and not NVIDIA's copysign.f32, which NVIDIA's JIT got wrong for copysign(x, x).
     */
    @Test
    void minOfCopysignAndMinKeepsBoth() throws Exception {
        String out = nvptxOfTwoFloats("copysign.ptx", """
                	min.f32 %f2, %f0, %f1;
                	copysign.f32 %f1, %f1, %f0;
                	min.f32 %f3, %f1, %f2;
                """);
        assertEquals(2, count(out, "\\bmin\\.f32 "), out);
        assertEquals(1, count(out, "and\\.b32 %za, %za, 0x80000000"), out);  // the copysign, bit by bit
        assertEquals(0, count(out, "\\bcopysign\\.f32 "), out);
    }

    /**
     * f16 arithmetic reaches NVIDIA's GPUs as NVIDIA's own f16 instructions (one each, f16x2 as one packed), not as
     * the generic f64 emulation with rounding to odd that other targets need; .sat and .relu stay the caller's, and an
     * add/sub/mul written without a rounding modifier keeps none (NVIDIA's compiler may fuse it, as in its own PTX).
     */
    @Test
    void halfArithmeticIsNvidiasOwn() throws Exception {
        String text = HEAD + """
                .visible .entry h(.param .u64 p)
                {
                	.reg .b32 %r<8>;
                	.reg .b16 %h<8>;
                	.reg .b64 %rd<2>;
                	ld.param.u64 %rd1, [p];
                	ld.global.u32 %r1, [%rd1];
                	ld.global.u32 %r2, [%rd1+4];
                	ld.global.u32 %r3, [%rd1+8];
                	fma.rn.f16x2 %r4, %r1, %r2, %r3;
                	mov.b32 {%h1, %h2}, %r1;
                	add.f16 %h3, %h1, %h2;
                	mul.ftz.f16 %h4, %h3, %h1;
                	sub.sat.f16 %h5, %h4, %h2;
                	fma.rn.relu.f16 %h6, %h5, %h4, %h3;
                	st.global.u32 [%rd1+12], %r4;
                	st.global.u16 [%rd1+16], %h5;
                	st.global.u16 [%rd1+18], %h6;
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("half.ptx", text), 90);
        assertEquals(1, count(out, "\\bfma\\.rn\\.f16x2 "), out);
        assertEquals(1, count(out, "\\bfma\\.rn\\.f16 "), out);
        assertEquals(1, count(out, "\\badd\\.f16 "), out);
        assertEquals(1, count(out, "\\bmul\\.ftz\\.f16 "), out);
        assertEquals(1, count(out, "\\bsub\\.f16 "), out);
        assertEquals(0, count(out, "\\.f64\\b"), "no f64 emulation: " + out);
    }

    /**
     * What ggml's attention and matrix-vector kernels are made of reaches NVIDIA's GPUs as NVIDIA's own instructions
     * (ptxas then makes of it what it makes of NVIDIA's PTX): ld.global.nc stays non-coherent (vectors too, whole),
     * f16 to f32 is a bare cvt (NVIDIA's gives the canonical NaN itself), add/mul without a rounding modifier keep
     * none, tanh.approx, prmt in both forms, dp4a and dp2a, float-to-integer cvt, f32 pairs to f16x2, setp.ftz, and the division
     * of a run-time divisor (a constant one stays LLVM's multiply). Assembled by ptxas where it is installed.
     */
    @Test
    void ggmlsInstructionsAreNvidiasOwn(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String text = HEAD + """
                .visible .entry k(.param .u64 p, .param .u64 q)
                {
                	.reg .b32 %r<16>;
                	.reg .b16 %h<4>;
                	.reg .f32 %f<16>;
                	.reg .b64 %rd<4>;
                	.reg .pred %p<2>;
                	ld.param.u64 %rd1, [p];
                	ld.param.u64 %rd2, [q];
                	ld.global.nc.v2.f32 {%f1, %f2}, [%rd1];
                	ld.global.nc.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+16];
                	ld.global.nc.u16 %h1, [%rd1+32];
                	cvt.f32.f16 %f3, %h1;
                	mul.ftz.f32 %f4, %f1, %f2;
                	add.ftz.f32 %f5, %f4, %f3;
                	add.rn.f32 %f6, %f5, %f1;
                	tanh.approx.f32 %f7, %f6;
                	prmt.b32 %r5, %r1, %r2, 0x5140;
                	prmt.b32.f4e %r6, %r3, %r4, %r5;
                	dp4a.s32.u32 %r7, %r5, %r6, %r1;
                	dp2a.hi.u32.s32 %r8, %r7, %r2, %r3;
                	mul.ftz.f32 %f8, %f7, %f7;
                	cvt.rzi.ftz.s32.f32 %r9, %f8;
                	cvt.rni.f32.f32 %f9, %f8;
                	setp.lt.ftz.f32 %p1, %f9, %f1;
                	selp.b32 %r10, %r9, %r8, %p1;
                	cvt.s64.s32 %rd3, %r10;
                	div.s64 %rd3, %rd3, %rd1;
                	div.u32 %r11, %r10, 12;
                	cvt.rn.f16x2.f32 %r12, %f8, %f9;
                	xor.b32 %r11, %r11, %r12;
                	shr.u32 %r11, %r11, %r1;
                	shl.b32 %r11, %r11, 3;
                	st.global.f32 [%rd2], %f7;
                	st.global.u32 [%rd2+4], %r11;
                	st.global.u64 [%rd2+8], %rd3;
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("ggml.ptx", text), 90);
        assertEquals(1, count(out, "ld\\.global\\.nc\\.v2\\.f32"), out);
        assertEquals(1, count(out, "ld\\.global\\.nc\\.v4\\.u32"), out);
        assertEquals(1, count(out, "ld\\.global\\.nc\\.u16"), out);
        assertEquals(1, count(out, "\\bcvt\\.f32\\.f16\\b"), out);
        assertEquals(2, count(out, "\\bmul\\.ftz\\.f32 "), out);
        assertEquals(1, count(out, "\\badd\\.ftz\\.f32 "), out);
        assertEquals(1, count(out, "\\badd\\.rn\\.f32 "), out);
        assertEquals(1, count(out, "\\btanh\\.approx\\.f32 "), out);
        assertEquals(2, count(out, "\\bprmt\\.b32"), out);
        assertEquals(1, count(out, "\\bprmt\\.b32\\.f4e "), out);
        assertEquals(1, count(out, "\\bdp4a\\.s32\\.u32 "), out);
        assertEquals(1, count(out, "\\bdp2a\\.hi\\.u32\\.s32 "), out);
        assertEquals(1, count(out, "\\bcvt\\.rzi\\.ftz\\.s32\\.f32 "), out);
        assertEquals(1, count(out, "\\bsetp\\.lt\\.ftz\\.f32 "), out);
        assertEquals(1, count(out, "\\bdiv\\.s64 "), "a run-time divisor: NVIDIA's division, " + out);
        assertEquals(1, count(out, "\\bcvt\\.rn\\.f16x2\\.f32 "), out);
        assertEquals(1, count(out, "\\bshr\\.u32 %r\\d+, %r\\d+, %r\\d+;"), "a run-time amount: NVIDIA's clamping shift, " + out);
        assertEquals(0, count(out, "\\bmin\\.u32"), "no clamp of the amount: " + out);
        assertEquals(0, count(out, "\\bdiv\\.u32 "), "a constant divisor: LLVM's multiply, " + out);
        assertEquals(0, count(out, "setp\\.nan"), "no NaN selects: " + out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }

    /**
     * bar.* is barrier.*.aligned (the ISA: every thread of the warp executes the same bar instruction), and NVIDIA's
     * compiler relies on it: after an aligned barrier the warp is known converged, so the shuffles that follow need no
     * divergence check. Our NVPTX made every barrier barrier.sync: ptxas gave ggml's quantized flash-attention kernels a
     * second, warp-synchronizing copy of their main loop (SASS 1.6-2.2 times NVIDIA's, 0.36 of its speed). A
     * barrier.* without .aligned stays without (threads of a warp may reach it apart).
     */
    @Test
    void barriersKeepTheirAlignment(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String text = HEAD + """
                .visible .entry k(.param .u64 p)
                {
                	.reg .b32 %r<8>;
                	.reg .b64 %rd<2>;
                	.reg .pred %p<4>;
                	ld.param.u64 %rd1, [p];
                	mov.u32 %r1, %tid.x;
                	setp.lt.u32 %p1, %r1, 7;
                	bar.sync 0;
                	barrier.sync 1;
                	barrier.sync.aligned 2, 64;
                	bar.red.popc.u32 %r2, 0, %p1;
                	barrier.red.and.pred %p2, 3, %p1;
                	bar.red.or.pred %p3, 0, %p1;
                	bar.arrive 4, 64;
                	barrier.arrive 5, 64;
                	selp.b32 %r3, 1, 0, %p2;
                	selp.b32 %r4, 1, 0, %p3;
                	add.u32 %r2, %r2, %r3;
                	add.u32 %r2, %r2, %r4;
                	st.global.u32 [%rd1], %r2;
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("barriers.ptx", text), 90);
        assertEquals(2, count(out, "\\bbarrier\\.sync\\.aligned "), out);
        assertEquals(1, count(out, "\\bbarrier\\.sync %r\\d+;"), "barrier.sync 1 stays unaligned: " + out);
        assertEquals(1, count(out, "\\bbarrier\\.red\\.popc\\.aligned\\.u32 "), out);
        assertEquals(1, count(out, "\\bbarrier\\.red\\.or\\.aligned\\.pred "), out);
        assertEquals(1, count(out, "\\bbarrier\\.red\\.and\\.pred "), "barrier.red.and stays unaligned: " + out);
        assertEquals(1, count(out, "\\bbarrier\\.arrive\\.aligned "), out);
        assertEquals(1, count(out, "\\bbarrier\\.arrive %r"), "barrier.arrive stays unaligned: " + out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }

    /**
     * A kernel's launch bounds reach ptxas: .maxntid, .reqntid, .minnctapersm and .maxnreg in our NVPTX as in the PTX
     * (ggml's flash-attention kernels declare .maxntid 128, 1, 1 and .minnctapersm 1; without them ptxas allocated
     * their registers otherwise than for NVIDIA's PTX, and the larger ones spilled where NVIDIA's did not).
     */
    @Test
    void launchBoundsReachPtxas(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String text = HEAD + """
                .visible .entry bounded(.param .u64 p)
                .maxntid 128, 1, 1
                .minnctapersm 2
                {
                	.reg .b64 %rd<2>;
                	ld.param.u64 %rd1, [p];
                	st.global.u32 [%rd1], 1;
                	ret;
                }
                .visible .entry exact(.param .u64 p)
                .reqntid 64, 2
                .maxnreg 40
                {
                	.reg .b64 %rd<2>;
                	ld.param.u64 %rd1, [p];
                	st.global.u32 [%rd1], 2;
                	ret;
                }
                .visible .entry free(.param .u64 p)
                {
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("bounds.ptx", text), 90);
        String bounded = out.substring(out.indexOf(".entry bounded"), out.indexOf(".entry exact"));
        String exact = out.substring(out.indexOf(".entry exact"), out.indexOf(".entry free"));
        assertTrue(bounded.matches("(?s).*\\.maxntid 128, 1, 1\\s.*") && bounded.contains(".minnctapersm 2"), out);
        assertTrue(exact.matches("(?s).*\\.reqntid 64, 2, 1\\s.*") && exact.contains(".maxnreg 40"), out);
        assertFalse(out.substring(out.indexOf(".entry free")).matches("(?s).*\\.(maxntid|reqntid|minnctapersm|maxnreg).*"), out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }

    /**
     * LLVM's middle end for NVPTX ({@code NvptxTarget.middleEnd}, {@code afterMiddleEnd}) moves code that does not
     * change in a loop out of small loops only: out of a large loop LLVM's LICM raised the register pressure of ggml's
     * flash-attention kernels (spills), and in a small one NVIDIA's ptxas hoisting it itself mistranslated a corpus
     * kernel (fuzz_1_00782).
     */
    @Test
    void loopInvariantCodeLeavesSmallLoopsOnly(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        StringBuilder large = new StringBuilder();
        for (int k = 0; k < NvptxTarget.LICM_LOOP_LIMIT; k++) large.append("\tmad.lo.s32 %r6, %r6, %r4, %r1;\n");
        for (boolean big : new boolean[] {false, true}) {
            var compiled = Compiler.compile(Ptx.parse("invariant.ptx", HEAD + """
                    .visible .entry k(.param .u64 p, .param .u32 n, .param .u32 a, .param .u32 b)
                    {
                    	.reg .pred %p<2>;
                    	.reg .b32 %r<8>;
                    	.reg .b64 %rd<4>;
                    	ld.param.u64 %rd1, [p];
                    	ld.param.u32 %r1, [n];
                    	ld.param.u32 %r2, [a];
                    	ld.param.u32 %r3, [b];
                    	mov.u32 %r4, 0;
                    $L_loop:
                    	mul.lo.s32 %r5, %r2, %r3;
                    	xor.b32 %r6, %r5, %r4;
                    """ + (big ? large : "") + """
                    	mul.wide.u32 %rd2, %r4, 4;
                    	add.s64 %rd3, %rd1, %rd2;
                    	st.global.u32 [%rd3], %r6;
                    	add.s32 %r4, %r4, 1;
                    	setp.lt.u32 %p1, %r4, %r1;
                    	@%p1 bra $L_loop;
                    	ret;
                    }
                    """), new NvptxTarget(90), org.bytedeco.llvm.global.LLVM.LLVMAssemblyFile);
            String ir = compiled.llvmIr();
            java.util.List<String> lines = ir.lines().toList();
            int xor = -1, mul = -1;
            for (int n = 0; n < lines.size(); n++) {
                if (lines.get(n).contains(" = xor i32 ") && xor < 0) xor = n;
                if (lines.get(n).contains(" = mul i32 ") && !lines.get(n).contains(", 4") && mul < 0) mul = n;
            }
            int block = xor;
            while (block > 0 && !lines.get(block).matches("^(\"[^\"]+\"|[\\w.$-]+):.*")) block--;
            assertTrue(xor > 0 && block > 0 && mul > 0, ir);
            // in the loop's block (before the xor, after the block's label) in the large loop, before that label in the small one
            assertEquals(big, mul > block && mul < xor, (big ? "large" : "small") + " loop\n" + ir);
            TargetsTest.assertPtxasAccepts(dir, new String(compiled.code(), java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    /**
     * abs and neg of f32/f64 stay NVIDIA's instructions: their NaN, -0 and flush to zero are the GPU's, one instruction
     * each where LLVM's fabs/fneg with those made explicit took ten for an abs.ftz.f32 (ggml's quantizing copies).
     */
    @Test
    void absAndNegAreNvidiasOwn(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String out = Compiler.nvptx(Ptx.parse("absneg.ptx", HEAD + """
                .visible .entry k(.param .u64 p)
                {
                	.reg .f32 %f<6>;
                	.reg .f64 %fd<4>;
                	.reg .b64 %rd<2>;
                	ld.param.u64 %rd1, [p];
                	ld.global.f32 %f1, [%rd1];
                	abs.ftz.f32 %f2, %f1;
                	neg.ftz.f32 %f3, %f2;
                	abs.f32 %f4, %f3;
                	neg.f32 %f5, %f4;
                	st.global.f32 [%rd1], %f5;
                	ld.global.f64 %fd1, [%rd1+8];
                	abs.f64 %fd2, %fd1;
                	neg.f64 %fd3, %fd2;
                	st.global.f64 [%rd1+8], %fd3;
                	ret;
                }
                """), 90);
        for (String own : List.of("abs.ftz.f32", "neg.ftz.f32", "abs.f32", "neg.f32", "abs.f64", "neg.f64"))
            assertTrue(Pattern.compile("(?m)^\\s*" + Pattern.quote(own) + "\\s").matcher(out).find(), own + "\n" + out);
        assertFalse(out.contains("setp.nan") || out.contains("testp"), out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }

    /**
     * abs.s32/.s64/.s16 are the ISA's arithmetic, not NVIDIA's abs, whose sign NVIDIA's optimizer takes for positive:
     * a saturating addition of abs(INT_MIN) tests that sign (corpus kernel fuzz_1_02412).
     */
    @Test
    void integerAbsoluteValuesKeepTheirSign() throws Exception {
        String out = Compiler.nvptx(Ptx.parse("abs.ptx", HEAD + """
                .visible .entry k(.param .u64 p)
                {
                	.reg .b32 %r<4>;
                	.reg .b64 %rd<4>;
                	.reg .b16 %h<2>;
                	ld.param.u64 %rd0, [p];
                	ld.global.u32 %r0, [%rd0];
                	ld.global.u32 %r1, [%rd0+4];
                	ld.global.u64 %rd1, [%rd0+8];
                	ld.global.u16 %h0, [%rd0+16];
                	abs.s32 %r2, %r0;
                	add.sat.s32 %r3, %r1, %r2;
                	abs.s64 %rd2, %rd1;
                	abs.s16 %h1, %h0;
                	st.global.u32 [%rd0], %r3;
                	st.global.u64 [%rd0+8], %rd2;
                	st.global.u16 [%rd0+16], %h1;
                	ret;
                }
                """), 90);
        assertEquals(0, count(out, "\\babs\\.s(16|32|64)\\b"), out);
        for (String w : new String[] {"16", "32", "64"})
            assertEquals(1, count(out, "shr\\.s" + w + " %zs, %\\w+, " + (Integer.parseInt(w) - 1) + "; xor\\.b" + w), out);
    }

    /**
     * f16 bits chosen by a predicate and converted are the converted constants chosen by it: NVIDIA's optimizer gave
     * 1.0 for {@code cvt.f32.f16} of {@code selp.u16 1, 0} where the bits 0x0001 are 2^-24 (four corpus kernels).
     */
    @Test
    void halfBitsChosenByAPredicateConvertAsConstants() throws Exception {
        String out = nvptxOfTwoFloats("half.ptx", """
                	.reg .pred %p<2>;
                	.reg .b16 %h<2>;
                	.reg .b32 %r<2>;
                	setp.lt.f32 %p1, %f0, %f1;
                	selp.b16 %h0, 1, 0, %p1;
                	cvt.f32.f16 %f2, %h0;
                	selp.u32 %r1, 1, 0, %p1;
                	cvt.rn.f32.u32 %f3, %r1;
                	add.rn.f32 %f3, %f3, %f2;
                """);
        assertEquals(0, count(out, "cvt\\.f32\\.f16"), out);
        assertEquals(1, count(out, "0f33800000"), out);  // 2^-24, the value of the bits 0x0001
        assertEquals(0, count(out, "selp\\.u16"), out);
    }

    /**
     * A u32 made from a float goes back to f32 through s64: NVIDIA's optimizer folds cvt.rYi.u32.f32 of cvt.rn.f32.u32
     * of cvt.rXi.u32.f32 x into cvt.rYi.u32.f32 x (corpus kernel fuzz_1_05104, ptx-test cvt_u32_round_trip); other
     * u32 conversions to f32 stay NVIDIA's single cvt.
     */
    @Test
    void unsignedFromFloatGoesBackThroughS64() throws Exception {
        String out = nvptxOfTwoFloats("roundtrip.ptx", """
                	.reg .b32 %r<4>;
                	cvt.rmi.sat.u32.f32 %r1, %f0;
                	cvt.rn.f32.u32 %f2, %r1;
                	cvt.rpi.sat.u32.f32 %r2, %f2;
                	mov.b32 %r3, %f1;
                	cvt.rn.f32.u32 %f3, %r3;
                	cvt.rn.f32.u32 %f1, %r2;
                	add.rn.f32 %f3, %f3, %f1;
                """);
        assertEquals(2, count(out, "cvt\\.u64\\.u32 %zw, %r\\d+; cvt\\.rn\\.f32\\.s64 %f\\d+, %zw;"), out);
        assertEquals(1, count(out, "cvt\\.rn\\.f32\\.u32"), out);  // the loaded bits' conversion
    }

    /** The start of the join kernels below: two values loaded, their xor (read before the branch) stored. */
    private static final String READ_BEFORE_THE_JOIN = """
            	.reg .pred %p<3>;
            	.reg .b32 %r<8>;
            	.reg .b64 %rd<4>;
            	.shared .align 4 .b8 sm[128];
            	ld.param.u64 %rd0, [p];
            	mov.u32 %r0, %tid.x;
            	mul.wide.u32 %rd1, %r0, 4;
            	add.s64 %rd1, %rd0, %rd1;
            	ld.global.u32 %r1, [%rd1];
            	ld.global.u32 %r2, [%rd1+128];
            	xor.b32 %r3, %r1, %r2;
            	st.global.u32 [%rd1+256], %r3;
            """;

    /**
     * A register that a block with a warp collective writes is not also the register of a value read before that
     * block: each incoming value of the join that has other uses is copied at the end of its block (corpus kernel fuzz_1_13572, where
     * NVIDIA's optimizer computed an earlier xor from the value odd lanes wrote after a partial-mask vote.sync).
     */
    @Test
    void valuesReadBeforeACollectiveBlockKeepTheirRegister() throws Exception {
        String out = Compiler.nvptx(Ptx.parse("join.ptx", HEAD + """
                .visible .entry k(.param .u64 p)
                {
                """ + READ_BEFORE_THE_JOIN + """
                	and.b32 %r4, %r0, 1;
                	setp.eq.u32 %p1, %r4, 1;
                	@!%p1 bra SKIP;
                	setp.ne.u32 %p2, %r2, 0;
                	vote.sync.ballot.b32 %r5, %p2, -1431655766;
                	mov.b32 %r1, %r5;
                SKIP:
                	mov.u32 %r6, sm;
                	shl.b32 %r7, %r0, 2;
                	add.u32 %r6, %r6, %r7;
                	st.shared.u32 [%r6], %r1;
                	ret;
                }
                """), 90);
        Matcher load = Pattern.compile("ld\\.global\\.u32\\s+(%r\\d+), \\[%rd\\d+\\];").matcher(out);
        assertTrue(load.find(), out);
        String r = load.group(1);
        int writes = count(out, "(?m)(?:^|[;{])\\s*(?:@!?%\\w+\\s+)?[a-z][\\w.]*\\s+" + Pattern.quote(r) + "[,;|]");  // statements of inline PTX too
        assertEquals(1, writes, r + " written " + writes + " times:\n" + out);
        assertTrue(out.contains("vote.sync.ballot.b32"), out);
    }

    /**
     * A join after a block whose only collective is {@code .aligned} ({@code bar.sync}, {@code mma/ldmatrix.sync.aligned})
     * or of the whole warp (mask 0xffffffff): all lanes run it together, and the join keeps LLVM's registers: the copies of {@link #valuesReadBeforeACollectiveBlockKeepTheirRegister}
     * raised ptxas's spills in ggml's head-256 attention kernel from 156 bytes (NVIDIA's PTX) to 592, 200 without them.
     */
    @Test
    void joinsAfterAlignedCollectivesAreNotCopied() throws Exception {
        String kernel = HEAD + """
                .visible .entry k(.param .u64 p, .param .u32 n)
                {
                """ + READ_BEFORE_THE_JOIN + """
                	ld.param.u32 %r4, [n];
                	mov.u32 %r6, sm;
                	shl.b32 %r7, %r0, 2;
                	add.u32 %r6, %r6, %r7;
                	st.shared.u32 [%r6], %r2;
                	setp.eq.u32 %p1, %r4, 1;
                	@!%p1 bra SKIP;
                	COLLECTIVE
                	ld.shared.u32 %r5, [%r6+4];
                	mov.b32 %r1, %r5;
                SKIP:
                	st.global.u32 [%rd1+384], %r1;
                	ret;
                }
                """;
        String copy = "inline asm\\s+mov\\.b32\\s+%r\\d+, %r\\d+;";
        String aligned = Compiler.nvptx(Ptx.parse("aligned.ptx", kernel.replace("COLLECTIVE", "bar.sync 0;")), 90);
        assertTrue(aligned.contains("barrier.sync.aligned"), aligned);
        assertEquals(0, count(aligned, copy), aligned);
        String unaligned = Compiler.nvptx(Ptx.parse("unaligned.ptx", kernel.replace("COLLECTIVE", "barrier.sync 0;")), 90);
        assertTrue(count(unaligned, copy) > 0, unaligned);
        String wholeWarp = Compiler.nvptx(Ptx.parse("warp.ptx", kernel.replace("COLLECTIVE", "shfl.sync.bfly.b32 %r5, %r2, 1, 31, -1;\n\tst.shared.u32 [%r6+8], %r5;")), 90);
        assertTrue(wholeWarp.contains("shfl.sync.bfly.b32"), wholeWarp);
        assertEquals(0, count(wholeWarp, copy), wholeWarp);
        String someLanes = Compiler.nvptx(Ptx.parse("lanes.ptx", kernel.replace("COLLECTIVE", "shfl.sync.bfly.b32 %r5, %r2, 1, 31, 65535;\n\tst.shared.u32 [%r6+8], %r5;")), 90);
        assertTrue(count(someLanes, copy) > 0, someLanes);
        assertTrue(NvptxRewrites.unalignedCollective("vote.sync.ballot.b32 $0, $1, $2;"));
        assertTrue(NvptxRewrites.unalignedCollective("{ .reg .pred %zp; shfl.sync.bfly.b32 $0|%zp, $1, $2, $3, $4; }"));
        assertTrue(NvptxRewrites.unalignedCollective("bar.warp.sync $0;"));
        assertFalse(NvptxRewrites.unalignedCollective("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {$0, $1}, {$2}, {$3}, {$4};"));
        assertFalse(NvptxRewrites.unalignedCollective("ldmatrix.sync.aligned.m8n8.x4.b16 {$0, $1, $2, $3}, [$4];"));
        assertFalse(NvptxRewrites.unalignedCollective("cvt.rn.f16.f32 $0, $1;"));
    }

    /**
     * No predicate register is written in two places: a predicate that two paths set (an LLVM phi) goes through an
     * integer register. NVIDIA's optimizer read such a predicate's later value into a {@code selp} taken before the
     * second write (corpus kernel fuzz_1_11444, ptx-test ballot_not_after_predicate_phi).
     */
    @Test
    void noPredicateRegisterIsWrittenTwice() throws Exception {
        String out = nvptxOfTwoFloats("phi.ptx", """
                	.reg .pred %p<4>;
                	.reg .b32 %r<4>;
                	mov.u32 %r0, %tid.x;
                	and.b32 %r0, %r0, 1;
                	setp.lt.f32 %p1, %f0, %f1;
                	setp.eq.u32 %p2, %r0, 0;
                	setp.gt.f32 %p3, %f1, 0f00000000;
                	selp.u32 %r1, 1, 0, %p1;
                	@%p2 bra SKIP;
                	vote.sync.any.pred %p1, %p3, 1431655765;
                SKIP:
                	@!%p1 not.b32 %r1, %r1;
                	cvt.rn.f32.u32 %f3, %r1;
                """);
        java.util.Map<String, Integer> writes = new java.util.HashMap<>();
        Matcher m = Pattern.compile("(?m)^\\s*(?:@!?%\\w+\\s+)?[a-z][\\w.]*\\s+(%p\\d+)[,;]").matcher(out);
        while (m.find()) writes.merge(m.group(1), 1, Integer::sum);
        assertFalse(writes.isEmpty(), out);
        writes.forEach((p, n) -> assertEquals(1, n, p + " written " + n + " times:\n" + out));
    }

    /**
     * min/max reach NVIDIA as its own instructions, out of LLVM's reach: through the NVVM intrinsics LLVM took them for
     * minnum/maxnum and rewrote max(x, max.NaN(y, x)) as a select of x where the inner result is NaN, x's own NaN
     * where NVIDIA's max of two NaNs gives the canonical one (seed 2's kernel fuzz_2_00805, ptx-test
     * max_two_nans_copysign).
     */
    @Test
    void minAndMaxStayNvidiasInstructions() throws Exception {
        String out = nvptxOfTwoFloats("max.ptx", """
                	.reg .f32 %g<2>;
                	max.NaN.f32 %g0, %f1, %f0;
                	max.f32 %g1, %f0, %g0;
                	min.ftz.f32 %f3, %g1, %f1;
                """);
        assertEquals(1, count(out, "max\\.NaN\\.f32 %"), out);
        assertEquals(1, count(out, "max\\.f32 %"), out);
        assertEquals(1, count(out, "min\\.ftz\\.f32 %"), out);
        assertEquals(0, count(out, "selp\\.f32 %f\\d+, %f\\d+, %f\\d+"), out);  // no "x where the other is NaN"
    }

    /**
     * nvcc's test before a 64-bit division (and.b64 with -2^32, setp.eq.s64: both operands fit 32 bits), which LLVM
     * makes an unsigned comparison with 2^32, reaches ptxas as a 32-bit test of the high word: ptxas compared both
     * halves of setp.lt.u64 against the constant (ggml's cpy_scalar, six divisions per element: 440 SASS instructions
     * against NVIDIA's 424, 0.93 of its speed). The same for x >= 2^k, x > 2^k - 1 and x <= 2^k - 1 up to 2^63; a
     * signed comparison stays one (ptx-test int_div_s64_high_word runs the forms at their edges).
     */
    @Test
    void unsignedTestsOfHighBitsReadTheHighWord(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String text = HEAD + """
                .visible .entry k(.param .u64 p)
                {
                	.reg .pred %p<8>;
                	.reg .b32 %r<8>;
                	.reg .b64 %rd<8>;
                	ld.param.u64 %rd1, [p];
                	ld.global.u64 %rd2, [%rd1];
                	ld.global.u64 %rd3, [%rd1+8];
                	or.b64 %rd4, %rd2, %rd3;
                	and.b64 %rd5, %rd4, -4294967296;
                	setp.eq.s64 %p1, %rd5, 0;
                	@%p1 bra FAST;
                	div.s64 %rd6, %rd2, %rd3;
                	bra.uni DONE;
                FAST:
                	cvt.u32.u64 %r1, %rd3;
                	cvt.u32.u64 %r2, %rd2;
                	div.u32 %r3, %r2, %r1;
                	cvt.u64.u32 %rd6, %r3;
                DONE:
                	setp.gt.u64 %p2, %rd2, 1099511627775;
                	setp.lt.s64 %p3, %rd3, 4294967296;
                	selp.u64 %rd7, 1, 0, %p2;
                	add.s64 %rd6, %rd6, %rd7;
                	selp.u64 %rd7, 2, 0, %p3;
                	add.s64 %rd6, %rd6, %rd7;
                	st.global.u64 [%rd1+16], %rd6;
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("highword.ptx", text), 90);
        assertEquals(0, count(out, "setp\\.\\w+\\.u64\\s[^;]*(4294967296|4294967295|1099511627775|1099511627776);"), out);
        assertEquals(1, count(out, "mov\\.b64 \\{\\w+, %r\\d+\\}, %rd\\d+;"), "the or's high word: " + out);
        assertEquals(1, count(out, "shr\\.u64\\s+%rd\\d+, %rd\\d+, 40;"), "p[0]'s bits from 2^40: " + out);
        assertEquals(2, count(out, "setp\\.(eq|ne)\\.s32\\s+%p\\d+, %r\\d+, 0;"), out);
        assertEquals(1, count(out, "setp\\.lt\\.s64\\s[^;]*4294967296;"), "the signed comparison stays: " + out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }

    /**
     * Two halves put into one register ({@code mov.b32 %r, {%h0, %h1}}, before an f16x2 instruction) stay that one
     * mov: LLVM's instcombine made it shifts, which NVPTX emitted as two cvt.u32.u16, a shl and an or (ggml's
     * flash_attn_tile kernels for head size 72: 15% more SASS than NVIDIA's PTX gives, 1% less now). An or of other
     * shifts stays one.
     */
    @Test
    void halfPairsStayOneMove(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String out = nvptxOfTwoFloats("pairs.ptx", """
                	.reg .b16 %h<4>;
                	.reg .b32 %r<8>;
                	cvt.rn.f16.f32 %h0, %f0;
                	cvt.rn.f16.f32 %h1, %f1;
                	add.rn.f32 %f2, %f0, %f1;
                	cvt.rn.f16.f32 %h2, %f2;
                	mov.b32 %r1, {%h0, %h1};
                	mov.b32 %r2, {%h1, %h2};
                	mul.rn.f16x2 %r3, %r1, %r2;
                	mov.b32 %r4, %f0;
                	shl.b32 %r5, %r4, 8;
                	or.b32 %r5, %r5, %r3;
                	mov.b32 %f3, %r5;
                """);
        assertEquals(2, count(out, "mov\\.b32\\s+%r\\d+, \\{%rs\\d+, %rs\\d+\\};"), out);
        assertEquals(0, count(out, "cvt\\.u32\\.u16"), out);
        assertEquals(1, count(out, "shl\\.b32\\s+%r\\d+, %r\\d+, 8;"), "the other shift stays: " + out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }

    /**
     * A loop's fast division by a run-time divisor (ggml's uint3 divisors: mul.hi.u32 of the index by a magic number,
     * add, shr) keeps NVIDIA's mul.hi.u32, and the loop keeps one induction variable: LLVM hoisted the widening of the
     * invariant factor and NVPTX emitted a 64-bit mul.lo and took its high word, and LLVM's loop strength reduction
     * (off for NVPTX) gave the loop a second index and 64-bit pointers that ptxas compiled longer than NVIDIA's PTX.
     */
    @Test
    void loopsKeepNvidiasHighProductsAndOneIndex(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String text = HEAD + """
                .visible .entry k(.param .u64 p, .param .u32 n, .param .u32 m, .param .u32 s, .param .u32 d)
                {
                	.reg .pred %p<4>;
                	.reg .b32 %r<16>;
                	.reg .f32 %f<4>;
                	.reg .b64 %rd<8>;
                	ld.param.u64 %rd1, [p];
                	cvta.to.global.u64 %rd1, %rd1;
                	ld.param.u32 %r1, [n];
                	ld.param.u32 %r2, [m];
                	ld.param.u32 %r3, [s];
                	ld.param.u32 %r4, [d];
                	mov.u32 %r5, %tid.x;
                	mov.u32 %r6, %ntid.x;
                	setp.ge.u32 %p1, %r5, %r1;
                	@%p1 bra DONE;
                LOOP:
                	mul.hi.u32 %r7, %r5, %r2;
                	add.s32 %r8, %r7, %r5;
                	shr.u32 %r9, %r8, %r3;
                	mul.lo.s32 %r10, %r9, %r4;
                	sub.s32 %r11, %r5, %r10;
                	mul.wide.u32 %rd2, %r11, 4;
                	add.s64 %rd3, %rd1, %rd2;
                	ld.global.f32 %f1, [%rd3];
                	mul.wide.u32 %rd4, %r5, 4;
                	add.s64 %rd5, %rd1, %rd4;
                	st.global.f32 [%rd5+4096], %f1;
                	add.s32 %r5, %r5, %r6;
                	setp.lt.u32 %p2, %r5, %r1;
                	@%p2 bra LOOP;
                DONE:
                	ret;
                }
                """;
        String out = Compiler.nvptx(Ptx.parse("mulhi.ptx", text), 90);
        String loop = out.substring(out.lastIndexOf("$L__BB0_2:"));
        assertEquals(1, count(loop, "mul\\.hi\\.u32 "), out);
        assertEquals(0, count(loop, "mul\\.lo\\.s64|mad\\.lo\\.s64"), out);
        assertEquals(2, count(loop, "mul\\.wide\\.u32"), "both addresses from the one index: " + out);
        assertEquals(1, count(loop, "add\\.s32\\s+%r\\d+, %r\\d+, %r\\d+;\\s+setp\\.lt\\.u32"), "one index stepped: " + out);
        TargetsTest.assertPtxasAccepts(dir, out);
    }
}
