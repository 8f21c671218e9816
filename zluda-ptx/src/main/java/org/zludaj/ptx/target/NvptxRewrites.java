package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Ll;

/**
 * The rewrites of a module's optimized IR just before NVPTX code generation ({@link NvptxTarget#beforeCodegen}): each
 * gives NVIDIA's JIT the form of an operation that it translates right, or as fast as NVIDIA's own PTX, where LLVM's
 * middle end or NVPTX back end would emit another (sign flips for negations, constant shifts and divisions back to
 * LLVM's, converted half constants, u32 round trips through s64, high-word tests, half pairs as one move, predicate
 * phis, joins after collectives). {@link ExtendedShifts} and {@link org.zludaj.ptx.llvm.LoopPragmas} run beside them.
 */
public final class NvptxRewrites {
    private NvptxRewrites() {}

    /**
     * Every {@code fneg} becomes an integer flip of the sign bit. LLVM's fneg flips the sign of a NaN too, and LLVM moves
     * negations on that ground ({@code fneg(copysign(m, s))} becomes {@code copysign(m, fneg(s))}); NVPTX emits fneg as
     * PTX {@code neg}, which on NVIDIA's GPUs gives the canonical NaN for a NaN, so such a sign came out positive: 11 of
     * the differential corpus's 20,000 kernels differed from NVIDIA's (and from the host) through the cuda backend, at
     * every JIT level (2026-11-26). PTX's own {@code neg} keeps NVIDIA's NaN in the shared lowering, before this.
     */
    static void signFlips(LLVMModuleRef m) {
        Ll.withBuilder(m, b -> forEachInstruction(m, i -> {
            if (LLVMGetInstructionOpcode(i) == LLVMFNeg) {
                LLVMPositionBuilderBefore(b, i);
                Ll.replace(i, Ll.signBit(b, LLVMGetOperand(i, 0), true));
            }
        }));
    }

    /**
     * A conversion from f16 of one of two constants chosen by a predicate ({@code fpext} of the bits {@code zext i1},
     * {@code sext i1} or a select of two constants) becomes the select of the two converted constants. NVIDIA's
     * optimizer converted such a value wrong: with {@code selp.u16 %rs, 1, 0, %p} (the f16 bits 0x0001, 2^-24) and
     * {@code selp.u32 %r, 1, 0, %p} of the same predicate in one kernel, {@code cvt.f32.f16} of {@code %rs} gave 1.0
     * (corpus kernels fuzz_1_06043, 06812, 09239, 14236: the f16 1.0 where 2^-24 was right, at NVIDIA's JIT -O1 to
     * -O4 and not at -O0; the select of f32 constants gives NVIDIA's own result at every level).
     */
    static void selectedHalfConstants(LLVMModuleRef m) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        Ll.withBuilder(m, b -> forEachInstruction(m, i -> {
            if (LLVMGetInstructionOpcode(i) == LLVMFPExt && LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(i, 0))) == LLVMHalfTypeKind
                    || halfWidening(i)) {
                LLVMValueRef v = LLVMGetOperand(i, 0);
                if (opcodeOf(v) == LLVMBitCast) v = LLVMGetOperand(v, 0);
                LLVMValueRef cond = null;
                long[] bits = null;
                int op = opcodeOf(v);
                if ((op == LLVMZExt || op == LLVMSExt) && LLVMTypeOf(LLVMGetOperand(v, 0)).equals(LLVMInt1TypeInContext(ctx))) {
                    cond = LLVMGetOperand(v, 0);
                    bits = new long[] {op == LLVMZExt ? 1 : 0xffff, 0};
                } else if (op == LLVMSelect && LLVMIsAConstantInt(LLVMGetOperand(v, 1)) != null && !LLVMIsAConstantInt(LLVMGetOperand(v, 1)).isNull()
                        && LLVMIsAConstantInt(LLVMGetOperand(v, 2)) != null && !LLVMIsAConstantInt(LLVMGetOperand(v, 2)).isNull()) {
                    cond = LLVMGetOperand(v, 0);
                    bits = new long[] {LLVMConstIntGetZExtValue(LLVMGetOperand(v, 1)) & 0xffff, LLVMConstIntGetZExtValue(LLVMGetOperand(v, 2)) & 0xffff};
                }
                if (cond != null && LLVMTypeOf(cond).equals(LLVMInt1TypeInContext(ctx))
                        && !Double.isNaN(halfValue((int) bits[0])) && !Double.isNaN(halfValue((int) bits[1]))) {
                    LLVMTypeRef t = LLVMTypeOf(i);
                    LLVMPositionBuilderBefore(b, i);
                    LLVMValueRef r = LLVMBuildSelect(b, cond, LLVMConstReal(t, halfValue((int) bits[0])), LLVMConstReal(t, halfValue((int) bits[1])), "");
                    Ll.replace(i, r);
                }
            }
        }));
    }

    /**
     * A u32 that a float-to-u32 conversion made goes back to f32 through a zero-extended s64 ({@code cvt.u64.u32},
     * {@code cvt.rn.f32.s64}: the same value, rounded the same). NVIDIA's optimizer (driver 580, CUDA 13.0's ptxas, JIT
     * -O1 and above) folds {@code cvt.rYi.u32.f32(cvt.rn.f32.u32(cvt.rXi.u32.f32(x)))} into {@code cvt.rYi.u32.f32(x)},
     * dropping the first rounding where X and Y differ: ceil(floor(2.5)) came out 3. Only u32 from f32 (s32, 16- and
     * 64-bit integers and f64 keep both roundings; H100, 2026-11-27), and NVIDIA's own PTX of that chain too (corpus
     * kernel fuzz_1_05104 through the cuda backend; ptx-tests {@code cvt_u32_round_trip}).
     */
    static void unsignedRoundTrips(LLVMModuleRef m) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), f32 = LLVMFloatTypeInContext(ctx);
        java.util.List<LLVMValueRef> found = new java.util.ArrayList<>();
        forEachInstruction(m, i -> {
            if (LLVMGetInstructionOpcode(i) == LLVMUIToFP && LLVMTypeOf(i).equals(f32)
                    && LLVMTypeOf(LLVMGetOperand(i, 0)).equals(i32) && fromFloatToUnsigned(LLVMGetOperand(i, 0)))
                found.add(i);
        });
        if (found.isEmpty()) return;
        Ll.withBuilder(m, b -> {
            for (LLVMValueRef i : found) {
                LLVMPositionBuilderBefore(b, i);
                Ll.replace(i, Ll.pureAsm(b, f32, "{ .reg .b64 %zw; cvt.u64.u32 %zw, $1; cvt.rn.f32.s64 $0, %zw; }", "=f,r",
                        LLVMGetOperand(i, 0)));
            }
        });
    }

    /**
     * An unsigned 64-bit comparison with a power of two 2^k, 32 <= k < 64 ({@code x < 2^k}, {@code x > 2^k - 1} and
     * their negations) compares the bits from k up as a 32-bit value with 0. It is what LLVM makes of nvcc's test before
     * each 64-bit division ({@code and.b64 %t, %x, -4294967296; setp.eq.s64 %p, %t, 0}: both operands fit 32 bits, so a
     * 32-bit division does); ptxas reads that form from the high registers alone, but takes {@code setp.lt.u64 %p, %x,
     * 4294967296} for a comparison of both halves (and the or before it of both halves too). ggml's strided copy
     * ({@code cpy_scalar}, six such divisions per element) came out of ptxas with 440 SASS instructions against 424
     * from NVIDIA's PTX and ran at 0.93 of NVIDIA's speed (H200, 2026-11-28).
     */
    static void highWordTests(LLVMModuleRef m) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
        java.util.List<LLVMValueRef> found = new java.util.ArrayList<>();
        forEachInstruction(m, i -> {
            if (highBits(i, i64) != 0) found.add(i);
        });
        if (found.isEmpty()) return;
        Ll.withBuilder(m, b -> {
            for (LLVMValueRef i : found) {
                int p = LLVMGetICmpPredicate(i);
                LLVMPositionBuilderBefore(b, i);
                LLVMValueRef shifted = LLVMBuildLShr(b, LLVMGetOperand(i, 0), LLVMConstInt(i64, highBits(i, i64), 0), "");
                Ll.replace(i, LLVMBuildICmp(b, p == LLVMIntULT || p == LLVMIntULE ? LLVMIntEQ : LLVMIntNE,
                        LLVMBuildTrunc(b, shifted, i32, ""), LLVMConstInt(i32, 0, 0), ""));
            }
        });
    }

    /** k where {@code i} compares an i64 unsigned with 2^k or 2^k - 1 (32 <= k < 64) as highWordTests rewrites; else 0. */
    private static int highBits(LLVMValueRef i, LLVMTypeRef i64) {
        if (LLVMGetInstructionOpcode(i) != LLVMICmp || !LLVMTypeOf(LLVMGetOperand(i, 0)).equals(i64)) return 0;
        LLVMValueRef c = LLVMIsAConstantInt(LLVMGetOperand(i, 1));
        if (c == null || c.isNull()) return 0;
        long v = LLVMConstIntGetZExtValue(c);
        int p = LLVMGetICmpPredicate(i);
        // x < 2^k and x >= 2^k; x > 2^k - 1 and x <= 2^k - 1
        long power = p == LLVMIntULT || p == LLVMIntUGE ? v : p == LLVMIntUGT || p == LLVMIntULE ? v + 1 : 0;
        if (power == 0 || Long.bitCount(power) != 1 || Long.numberOfTrailingZeros(power) < 32) return 0;
        return Long.numberOfTrailingZeros(power);
    }

    /**
     * Two 16-bit values put into one 32-bit register (PTX's {@code mov.b32 %r, {%h0, %h1}}, which LLVM's instcombine
     * makes {@code or(shl(zext h1, 16), zext h0)}) are a vector of two halves bitcast to i32 again, which NVPTX emits as
     * that one {@code mov.b32}; the shifts came out as two {@code cvt.u32.u16}, a {@code shl} and an {@code or} per pair
     * (ggml's flash_attn_tile kernels for head size 72, packing f16 pairs for their f16x2 products: 15% more SASS than
     * from NVIDIA's PTX).
     */
    static void halfPairs(LLVMModuleRef m) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i16 = LLVMInt16TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
        java.util.List<LLVMValueRef[]> found = new java.util.ArrayList<>();  // the or, its low half, its high half
        forEachInstruction(m, i -> {
            if (LLVMGetInstructionOpcode(i) != LLVMOr || !LLVMTypeOf(i).equals(i32)) return;
            for (int k = 0; k < 2; k++) {
                LLVMValueRef low = widenedHalf(LLVMGetOperand(i, k), i16), shifted = LLVMGetOperand(i, 1 - k);
                if (low == null || opcodeOf(shifted) != LLVMShl) continue;
                LLVMValueRef by = LLVMGetOperand(shifted, 1);
                if (LLVMIsAConstantInt(by) == null || LLVMIsAConstantInt(by).isNull() || LLVMConstIntGetZExtValue(by) != 16) continue;
                LLVMValueRef high = widenedHalf(LLVMGetOperand(shifted, 0), i16);
                if (high == null) continue;
                found.add(new LLVMValueRef[] {i, low, high});
                return;
            }
        });
        if (found.isEmpty()) return;
        LLVMTypeRef pair = LLVMVectorType(i16, 2);
        Ll.withBuilder(m, b -> {
            for (LLVMValueRef[] f : found) {
                LLVMPositionBuilderBefore(b, f[0]);
                LLVMValueRef v = LLVMBuildInsertElement(b, LLVMGetPoison(pair), f[1], LLVMConstInt(i32, 0, 0), "");
                v = LLVMBuildInsertElement(b, v, f[2], LLVMConstInt(i32, 1, 0), "");
                Ll.replace(f[0], LLVMBuildBitCast(b, v, i32, ""));
            }
        });
    }

    /** The i16 that {@code v} zero-extends to i32, or null. */
    private static LLVMValueRef widenedHalf(LLVMValueRef v, LLVMTypeRef i16) {
        if (opcodeOf(v) != LLVMZExt) return null;
        LLVMValueRef h = LLVMGetOperand(v, 0);
        return LLVMTypeOf(h).equals(i16) ? h : null;
    }

    /**
     * Whether {@code v} is a conversion of a float to u32 (LLVM's fptoui, saturating or not, or an own cvt.*.u32.f32),
     * or a phi or select of which one incoming value is (a loop's exit value, as in fuzz_1_05104).
     */
    private static boolean fromFloatToUnsigned(LLVMValueRef v) {
        return fromFloatToUnsigned(v, new java.util.HashSet<>());
    }

    private static boolean fromFloatToUnsigned(LLVMValueRef v, java.util.Set<LLVMValueRef> seen) {
        int op = opcodeOf(v);
        if ((op == LLVMPHI || op == LLVMSelect) && seen.add(v) && seen.size() < 64) {
            if (op == LLVMSelect) return fromFloatToUnsigned(LLVMGetOperand(v, 1), seen) || fromFloatToUnsigned(LLVMGetOperand(v, 2), seen);
            for (int k = 0; k < LLVMCountIncoming(v); k++)
                if (fromFloatToUnsigned(LLVMGetIncomingValue(v, k), seen)) return true;
            return false;
        }
        if (op == LLVMFPToUI) return true;
        if (op != LLVMCall) return false;
        String text = inlineText(v, 40);
        if (text != null) return text.startsWith("cvt.r") && text.contains(".u32.f32 ");
        LLVMValueRef callee = LLVMGetCalledValue(v);
        return callee != null && !callee.isNull() && LLVMGetValueName(callee).getString().startsWith("llvm.fptoui.sat.");
    }

    private static final java.util.regex.Pattern OWN_SHIFT_OR_DIVISION =
            java.util.regex.Pattern.compile("(shl\\.b|shr\\.u|shr\\.s|div\\.u|div\\.s|rem\\.u|rem\\.s)(16|32|64) \\$0, \\$1, \\$2;");

    /**
     * {@link #ownInteger}'s shifts and divisions whose amount or divisor LLVM's middle end found constant go back to
     * LLVM's own operations, with PTX's results (a shift past the width clamped, a zero divisor all ones): NVIDIA's
     * optimizer folded {@code shl.b64} of a register by a constant 0x80000000 amount wrong where the register was known
     * (corpus kernel fuzz_1_00135: right on the host and in NVIDIA's own PTX, whose amount is computed at run time), and
     * LLVM turns a constant divisor into a multiplication itself.
     */
    static void constantShiftsAndDivisors(LLVMModuleRef m) {
        java.util.List<LLVMValueRef> calls = new java.util.ArrayList<>();
        java.util.List<java.util.regex.Matcher> forms = new java.util.ArrayList<>();
        forEachInstruction(m, i -> {
            String text = inlineText(i, 32);
            java.util.regex.Matcher f = text == null ? null : OWN_SHIFT_OR_DIVISION.matcher(text);
            if (f != null && f.matches() && LLVMIsAConstantInt(LLVMGetOperand(i, 1)) != null && !LLVMIsAConstantInt(LLVMGetOperand(i, 1)).isNull()) {
                calls.add(i);
                forms.add(f);
            }
        });
        if (calls.isEmpty()) return;
        Ll.withBuilder(m, b -> {
            for (int k = 0; k < calls.size(); k++) {
                LLVMValueRef i = calls.get(k), x = LLVMGetOperand(i, 0), y = LLVMGetOperand(i, 1);
                String op = forms.get(k).group(1);
                LLVMTypeRef t = LLVMTypeOf(i);
                int width = LLVMGetIntTypeWidth(t);
                long v = LLVMConstIntGetZExtValue(y);
                LLVMPositionBuilderBefore(b, i);
                LLVMValueRef r;
                if (op.startsWith("sh")) {
                    long amount = v & 0xffffffffL;  // the amount is a u32
                    boolean arithmetic = op.equals("shr.s");
                    if (amount >= width) r = arithmetic ? LLVMBuildAShr(b, x, LLVMConstInt(t, width - 1, 0), "") : LLVMConstInt(t, 0, 0);
                    else {
                        LLVMValueRef a = LLVMConstInt(t, amount, 0);
                        r = op.equals("shl.b") ? LLVMBuildShl(b, x, a, "") : arithmetic ? LLVMBuildAShr(b, x, a, "") : LLVMBuildLShr(b, x, a, "");
                    }
                } else {
                    long divisor = width == 64 ? v : v & ((1L << width) - 1);
                    boolean signed = op.endsWith(".s");
                    if (divisor == 0) r = LLVMConstAllOnes(t);  // NVIDIA's result for both
                    else if (signed && LLVMConstIntGetSExtValue(y) == -1) continue;  // MIN / -1: left to NVIDIA's instruction
                    else r = op.startsWith("div") ? (signed ? LLVMBuildSDiv(b, x, y, "") : LLVMBuildUDiv(b, x, y, ""))
                            : (signed ? LLVMBuildSRem(b, x, y, "") : LLVMBuildURem(b, x, y, ""));
                }
                Ll.replace(i, r);
            }
        });
    }

    /** The text of an inline-PTX call (its first {@code most} characters), or null for any other instruction. */
    private static String inlineText(LLVMValueRef i, int most) {
        if (LLVMGetInstructionOpcode(i) != LLVMCall) return null;
        LLVMValueRef callee = LLVMGetCalledValue(i);
        if (callee == null || callee.isNull() || LLVMIsAInlineAsm(callee) == null || LLVMIsAInlineAsm(callee).isNull()) return null;
        org.bytedeco.javacpp.SizeTPointer n = new org.bytedeco.javacpp.SizeTPointer(1);
        org.bytedeco.javacpp.BytePointer p = LLVMGetInlineAsmAsmString(callee, n);
        byte[] bytes = new byte[(int) Math.min(n.get(), most)];
        p.get(bytes);
        return new String(bytes, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * Where a block that runs a warp collective that lanes may reach apart ({@link #lanesApart}) joins the others, each
     * incoming value of a join (an LLVM phi) that has other uses is copied into a register of its own at the end of its
     * block.
     * Without it, LLVM's register coalescing gave the phi the register of an incoming value that an instruction before
     * the branch had read, so that the collective's block wrote it again: NVIDIA's optimizer (JIT -O1 and above) then
     * computed that earlier instruction from the later value (corpus kernel fuzz_1_13572, reduced on an H100: an
     * {@code xor} of a loaded register that odd lanes redefined after a partial-mask {@code vote.sync}; right with the
     * register written once, without the vote, or without the later read; {@link #predicatePhis} is the same defect
     * for predicates, fuzz_1_11444). The copies cost registers under ptxas: with them after every {@code .sync}
     * block, ggml's {@code flash_attn_ext_f16} kernels spilled 592 bytes (head 256, 32 columns) and 2,184 (head 512,
     * 4x4 columns) where NVIDIA's PTX spills 156 and 776; after the collectives of {@link #lanesApart} only, 200 and 664.
     */
    static void collectiveJoins(LLVMModuleRef m) {
        java.util.List<LLVMValueRef> phis = new java.util.ArrayList<>();
        for (LLVMValueRef f = LLVMGetFirstFunction(m); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) {
            java.util.Set<LLVMBasicBlockRef> sync = new java.util.HashSet<>();
            Ll.forEachInstruction(f, i -> {
                String text = inlineText(i, 200);
                if (text != null && lanesApart(i, text)) sync.add(LLVMGetInstructionParent(i));
            });
            if (sync.isEmpty()) continue;
            Ll.forEachInstruction(f, i -> {
                if (LLVMGetInstructionOpcode(i) != LLVMPHI || NvptxTarget.constraint(LLVMTypeOf(i)) == null) return;
                for (int k = 0; k < LLVMCountIncoming(i); k++)
                    if (sync.contains(LLVMGetIncomingBlock(i, k))) {
                        phis.add(i);
                        return;
                    }
            });
        }
        if (phis.isEmpty()) return;
        Ll.withBuilder(m, b -> {
            for (LLVMValueRef phi : phis) {
                LLVMTypeRef t = LLVMTypeOf(phi);
                String c = NvptxTarget.constraint(t);
                String mov = switch (c) {
                    case "h" -> "mov.b16";
                    case "l", "d" -> "mov.b64";
                    default -> "mov.b32";
                };
                for (int k = 0; k < LLVMCountIncoming(phi); k++) {
                    LLVMValueRef v = LLVMGetIncomingValue(phi, k);
                    if (LLVMIsUndef(v) != 0 || LLVMIsPoison(v) != 0 || !usedElsewhere(v)) continue;
                    LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(phi, k)));
                    LLVMSetOperand(phi, k, Ll.pureAsm(b, t, mov + " $0, $1;", "=" + c + "," + c, v));
                }
            }
        });
    }

    private static final java.util.regex.Pattern SYNC_OPCODE = java.util.regex.Pattern.compile("[a-z][\\w.]*\\.sync(?:\\.[\\w]+)*");

    /**
     * Whether an inline-PTX call runs a warp collective that some lanes of a warp may run without the others: a
     * {@code .sync} instruction that is not {@code .aligned} ({@code vote/match/shfl/redux/elect.sync},
     * {@code bar.warp.sync}, {@code barrier.sync}) and, for those with a member mask (the call's last argument), not one
     * whose mask is the constant 0xffffffff. An {@code .aligned} one ({@code bar.sync}, {@code mma/ldmatrix.sync.aligned})
     * and one of the whole warp are run by all its lanes together or by none, so no lane writes a register in their
     * block that the others do not.
     */
    public static boolean lanesApart(LLVMValueRef call, String text) {
        if (!unalignedCollective(text)) return false;
        if (text.contains("barrier.")) return true;  // a block's barrier without .aligned: no member mask
        int n = LLVMGetNumArgOperands(call);  // every warp collective's mask is its last argument (warpCollective)
        if (n == 0) return true;
        LLVMValueRef mask = LLVMGetOperand(call, n - 1);
        return LLVMIsAConstantInt(mask) == null || LLVMIsAConstantInt(mask).isNull()
                || (LLVMConstIntGetZExtValue(mask) & 0xffffffffL) != 0xffffffffL;
    }

    /** Whether an inline-PTX text holds a {@code .sync} instruction that is not {@code .aligned}. */
    public static boolean unalignedCollective(String text) {
        java.util.regex.Matcher m = SYNC_OPCODE.matcher(text);
        while (m.find())
            if (!m.group().contains(".aligned")) return true;
        return false;
    }

    /** Whether {@code v} has a use besides one phi: only then may its register be read before the phi's block writes it. */
    private static boolean usedElsewhere(LLVMValueRef v) {
        if (LLVMIsAConstant(v) != null && !LLVMIsAConstant(v).isNull()) return false;
        org.bytedeco.llvm.LLVM.LLVMUseRef u = LLVMGetFirstUse(v);
        return u != null && !u.isNull() && LLVMGetNextUse(u) != null && !LLVMGetNextUse(u).isNull();
    }

    /** Whether {@code i} is {@link #ownConvert}'s cvt.f32.f16 or cvt.f64.f16 (an inline-PTX call of the i16 bits). */
    private static boolean halfWidening(LLVMValueRef i) {
        String text = inlineText(i, 16);
        return text != null && (text.startsWith("cvt.f32.f16 ") || text.startsWith("cvt.f64.f16 "));
    }

    /**
     * Every i1 phi becomes an i32 phi of the zero-extended incoming values and a compare with 0 after it, so that no
     * PTX predicate register is written in more than one place (LLVM writes a phi's register in each predecessor).
     * With {@code selp.u32 %r79, 1, 0, %p78} read after a block that wrote {@code %p78} again, NVIDIA's optimizer
     * used the new value: {@code @!%p1 not.b32} of corpus kernel fuzz_1_11444 came out applied to the wrong lanes at
     * JIT -O1 to -O4 (right at -O0, on the host, and without predicate phis).
     */
    static void predicatePhis(LLVMModuleRef m) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i1 = LLVMInt1TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
        java.util.List<LLVMValueRef> phis = new java.util.ArrayList<>();
        forEachInstruction(m, i -> {
            if (LLVMGetInstructionOpcode(i) == LLVMPHI && LLVMTypeOf(i).equals(i1)) phis.add(i);
        });
        if (phis.isEmpty()) return;
        Ll.withBuilder(m, b -> {
            for (LLVMValueRef phi : phis) {
                LLVMBasicBlockRef home = LLVMGetInstructionParent(phi);
                LLVMPositionBuilderBefore(b, phi);
                LLVMValueRef wide = LLVMBuildPhi(b, i32, "");
                java.util.Map<LLVMBasicBlockRef, LLVMValueRef> extended = new java.util.HashMap<>();
                int n = LLVMCountIncoming(phi);
                for (int k = 0; k < n; k++) {
                    LLVMValueRef v = LLVMGetIncomingValue(phi, k);
                    LLVMBasicBlockRef from = LLVMGetIncomingBlock(phi, k);
                    LLVMValueRef w;
                    if (LLVMIsAConstantInt(v) != null && !LLVMIsAConstantInt(v).isNull()) w = LLVMConstInt(i32, LLVMConstIntGetZExtValue(v), 0);
                    else if (LLVMIsUndef(v) != 0) w = LLVMGetUndef(i32);
                    else w = extended.computeIfAbsent(from, bb -> {
                        LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(bb));
                        return LLVMBuildZExt(b, v, i32, "");
                    });
                    LLVMAddIncoming(wide, Ll.array(w), Ll.array(from), 1);
                }
                LLVMValueRef first = LLVMGetFirstInstruction(home);
                while (LLVMGetInstructionOpcode(first) == LLVMPHI) first = LLVMGetNextInstruction(first);
                LLVMPositionBuilderBefore(b, first);
                LLVMValueRef test = LLVMBuildICmp(b, LLVMIntNE, wide, LLVMConstInt(i32, 0, 0), "");
                Ll.replace(phi, test);
            }
        });
    }

    /** Calls {@code action} on every instruction of the module; it may replace or erase the one it is given. */
    private static void forEachInstruction(LLVMModuleRef m, java.util.function.Consumer<LLVMValueRef> action) {
        for (LLVMValueRef f = LLVMGetFirstFunction(m); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) Ll.forEachInstruction(f, action);
    }

    /** The opcode of an instruction, 0 for any other value. */
    private static int opcodeOf(LLVMValueRef v) {
        LLVMValueRef i = LLVMIsAInstruction(v);
        return i == null || i.isNull() ? 0 : LLVMGetInstructionOpcode(v);
    }

    /** The value of IEEE binary16 bits (subnormals, infinities; NaN for a NaN). */
    static double halfValue(int h) {
        int e = (h >> 10) & 0x1f, f = h & 0x3ff;
        double sign = (h & 0x8000) != 0 ? -1 : 1;
        if (e == 0x1f) return f == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
        return sign * (e == 0 ? f * 0x1p-24 : (1024 + f) * Math.scalb(1.0, e - 25));
    }
}
