package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;

/**
 * PTX's SIMD video instructions ({@code vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2} on half-words and the
 * {@code ...4} forms on bytes), on every target from the ISA's semantics: each element of {@code a} and {@code b} is
 * picked from the eight bytes (four half-words) of the pair {@code {b, a}} by the selectors ({@code .b3210/.b7654} and
 * {@code .h10/.h32} by default), sign- or zero-extended by its type; the operation is exact, {@code .sat} clamps to
 * the element's signed or unsigned range by the destination's type; then either the elements named by the mask
 * ({@code d.b310}, {@code d.h1}; all by default) replace those of {@code c} (the others keep {@code c}'s), or with
 * {@code .add} their sum is added to {@code c}. NVIDIA's H100 gives exactly this (ptx-test {@code video_simd}: 198
 * forms on edge and random words).
 */
final class SimdVideoOps {
    private final Lowering l;

    SimdVideoOps(Lowering l) {
        this.l = l;
    }

    private LLVMBuilderRef b() {
        return l.b;
    }

    private LLVMTypeRef i32() {
        return LLVMInt32TypeInContext(l.ctx);
    }

    private LLVMValueRef c32(long v) {
        return LLVMConstInt(i32(), v, 1);
    }

    /** Handles the instruction if it is a SIMD video instruction; returns false otherwise. */
    boolean lower(Instruction i) {
        String op = i.opcode();
        switch (op) {
            case "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
                 "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4" -> { }
            default -> {
                return false;
            }
        }
        int lanes = op.charAt(op.length() - 1) - '0', bits = 32 / lanes;
        boolean vset = op.startsWith("vset");
        boolean[] signed = VideoOps.types(l, i, vset ? 2 : 3);
        if (i.operands().size() != 4) throw l.unsupported(i);
        if (i.has(".add") && i.has(".sat")) throw l.unsupported(i);
        boolean dSigned = !vset && signed[0];
        boolean aSigned = vset ? signed[0] : signed[1], bSigned = vset ? signed[1] : signed[2];
        char kind = lanes == 2 ? 'h' : 'b';
        Operand d = i.operands().get(0), a = i.operands().get(1), bo = i.operands().get(2);
        String low = lanes == 2 ? "10" : "3210";
        int[] mask = digits(i, component(d), kind, low, true, lanes);
        int[] asel = digits(i, component(a), kind, low, false, lanes);
        int[] bsel = digits(i, component(bo), kind, lanes == 2 ? "32" : "7654", false, lanes);
        LLVMTypeRef i64 = LLVMInt64TypeInContext(l.ctx);
        LLVMValueRef av = LLVMBuildZExt(b(), l.read(i, plain(a), Type.B32), i64, "");
        LLVMValueRef bv = LLVMBuildZExt(b(), l.read(i, plain(bo), Type.B32), i64, "");
        LLVMValueRef pair = LLVMBuildOr(b(), av, LLVMBuildShl(b(), bv, LLVMConstInt(i64, 32, 0), ""), "");
        LLVMValueRef c = l.read(i, i.operands().get(3), Type.B32);
        boolean[] inMask = new boolean[lanes];
        for (int m : mask) inMask[m] = true;
        LLVMValueRef result = i.has(".add") ? c : c32(0);
        for (int e = 0; e < lanes; e++) {
            if (i.has(".add") && !inMask[e]) continue;
            LLVMValueRef x = element(pair, asel[e], bits, aSigned), y = element(pair, bsel[e], bits, bSigned);
            LLVMValueRef t = operate(i, op.substring(0, op.length() - 1), x, y);
            if (i.has(".sat")) t = VideoOps.saturate(b(), t, dSigned, bits);
            if (i.has(".add")) {
                result = LLVMBuildAdd(b(), result, t, "");
            } else {
                LLVMValueRef field = c32(((1L << bits) - 1) << (e * bits));
                LLVMValueRef part = inMask[e] ? LLVMBuildShl(b(), t, c32(e * bits), "") : c;
                result = LLVMBuildOr(b(), result, LLVMBuildAnd(b(), part, field, ""), "");
            }
        }
        l.write(i, plain(d), result, Type.B32);
        return true;
    }

    private static String component(Operand o) {
        return o instanceof Operand.Name n ? n.component() : null;
    }

    private static Operand plain(Operand o) {
        return o instanceof Operand.Name n && n.component() != null ? new Operand.Name(n.name(), null) : o;
    }

    /**
     * The digits of a selector ({@code .h10}, {@code .b7654}: one per element, element 0 last, each naming one of the
     * pair's 2 x lanes parts) or of a mask ({@code .h1}, {@code .b310}: the elements written, 1 to lanes of them), in
     * element order; {@code dflt} when the operand has none.
     */
    private int[] digits(Instruction i, String sel, char kind, String dflt, boolean mask, int lanes) {
        if (sel != null && (sel.length() < 3 || sel.charAt(1) != kind)) throw l.unsupported(i);
        String s = sel == null ? dflt : sel.substring(2);
        if (mask ? s.length() > lanes : s.length() != lanes) throw l.unsupported(i);
        int limit = mask ? lanes : 2 * lanes;
        int[] out = new int[s.length()];
        for (int k = 0; k < s.length(); k++) {
            int v = s.charAt(s.length() - 1 - k) - '0';
            if (v < 0 || v >= limit) throw l.unsupported(i);
            out[k] = v;
        }
        return out;
    }

    /** Byte or half-word {@code index} of the 64-bit pair, extended to 32 bits by its type. */
    private LLVMValueRef element(LLVMValueRef pair, int index, int bits, boolean signed) {
        LLVMTypeRef i64 = LLVMInt64TypeInContext(l.ctx);
        LLVMValueRef shifted = LLVMBuildLShr(b(), pair, LLVMConstInt(i64, (long) index * bits, 0), "");
        LLVMValueRef narrow = LLVMBuildTrunc(b(), shifted, LLVMIntTypeInContext(l.ctx, bits), "");
        return signed ? LLVMBuildSExt(b(), narrow, i32(), "") : LLVMBuildZExt(b(), narrow, i32(), "");
    }

    /** The exact result of one element's operation (the extended elements fit 32 bits with room to spare). */
    private LLVMValueRef operate(Instruction i, String op, LLVMValueRef x, LLVMValueRef y) {
        return switch (op) {
            case "vadd" -> LLVMBuildAdd(b(), x, y, "");
            case "vsub" -> LLVMBuildSub(b(), x, y, "");
            case "vavrg" -> {  // rounds half away from zero: (s + 1) >> 1 for s >= 0, s >> 1 below
                LLVMValueRef s = LLVMBuildAdd(b(), x, y, "");
                LLVMValueRef up = LLVMBuildAShr(b(), LLVMBuildAdd(b(), s, c32(1), ""), c32(1), "");
                yield LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSGE, s, c32(0), ""), up,
                        LLVMBuildAShr(b(), s, c32(1), ""), "");
            }
            case "vabsdiff" -> {
                LLVMValueRef diff = LLVMBuildSub(b(), x, y, "");
                yield LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSLT, diff, c32(0), ""), LLVMBuildNeg(b(), diff, ""), diff, "");
            }
            case "vmin" -> LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSLT, x, y, ""), x, y, "");
            case "vmax" -> LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSGT, x, y, ""), x, y, "");
            default -> LLVMBuildZExt(b(), LLVMBuildICmp(b(), VideoOps.comparison(l, i), x, y, ""), i32(), "");  // vset
        };
    }
}
