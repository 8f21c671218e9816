package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;

/**
 * PTX's scalar video instructions ({@code vadd vsub vabsdiff vmin vmax vshl vshr vset}), on every target from the
 * ISA's pseudo-code: each source is a byte, half-word or word of its register (selectors {@code .b0-.b3 .h0 .h1}),
 * sign- or zero-extended by its type; the operation is exact (in 64 bits; {@code vshl} in 34, as NVIDIA's GPUs);
 * {@code .sat} clamps to the destination's type, or as NVIDIA's GPUs do for a destination selector
 * ({@link #saturatePart}); then a secondary operation with {@code c} ({@code .add .min .max}) or a merge into
 * {@code c} at the destination selector ({@link #merge}). The ISA's pseudo-code and NVIDIA's H100 disagree for
 * saturated sub-word destinations and for {@code vshl}'s intermediate: these follow the H100. {@code vmad} as the H100
 * computes it ({@link #mad}).
 */
final class VideoOps {
    private final Lowering l;

    VideoOps(Lowering l) {
        this.l = l;
    }

    private LLVMBuilderRef b() {
        return l.b;
    }

    private LLVMTypeRef i64() {
        return LLVMInt64TypeInContext(l.ctx);
    }

    private LLVMValueRef c64(long v) {
        return LLVMConstInt(i64(), v, 1);
    }

    /** Handles the instruction if it is a scalar video instruction; returns false otherwise. */
    boolean lower(Instruction i) {
        String op = i.opcode();
        switch (op) {
            case "vmad" -> {
                mad(i);
                return true;
            }
            case "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset" -> { }
            default -> {
                return false;
            }
        }
        // types: vset.atype.btype.cmp; the others .dtype.atype.btype
        boolean vset = op.equals("vset");
        boolean[] signed = types(l, i, vset ? 2 : 3);
        boolean dSigned = !vset && signed[0];
        boolean aSigned = vset ? signed[0] : signed[1];
        boolean bSigned = vset ? signed[1] : signed[2];
        boolean shift = op.equals("vshl") || op.equals("vshr");
        if (shift) bSigned = false;  // the shift amount is always unsigned
        Operand d = i.operands().get(0);
        LLVMValueRef ta = part(i, i.operands().get(1), aSigned), tb = part(i, i.operands().get(2), bSigned);
        LLVMValueRef tmp = switch (op) {
            case "vadd" -> LLVMBuildAdd(b(), ta, tb, "");
            case "vsub" -> LLVMBuildSub(b(), ta, tb, "");
            case "vabsdiff" -> {
                LLVMValueRef diff = LLVMBuildSub(b(), ta, tb, "");
                yield LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSLT, diff, c64(0), ""), LLVMBuildNeg(b(), diff, ""), diff, "");
            }
            case "vmin" -> LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSLT, ta, tb, ""), ta, tb, "");
            case "vmax" -> LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSGT, ta, tb, ""), ta, tb, "");
            case "vshl", "vshr" -> shift(i, op.equals("vshl"), ta, tb);
            default -> compare(i, ta, tb);  // vset
        };
        String dsel = d instanceof Operand.Name dn ? dn.component() : null;
        if (i.has(".sat")) tmp = dsel == null ? saturate(tmp, dSigned, 32) : saturatePart(tmp, dSigned, width(dsel));
        String op2 = i.has(".add") ? "add" : i.has(".min") ? "min" : i.has(".max") ? "max" : null;
        if (op2 != null || dsel != null) {
            if (i.operands().size() != 4) throw l.unsupported(i);
            LLVMValueRef c = extend(l.read(i, i.operands().get(3), Type.B32), dSigned);
            if (op2 != null) {
                tmp = switch (op2) {
                    case "add" -> LLVMBuildAdd(b(), tmp, c, "");
                    case "min" -> LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSLT, tmp, c, ""), tmp, c, "");
                    default -> LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSGT, tmp, c, ""), tmp, c, "");
                };
            } else {
                tmp = merge(i, dsel, tmp, c, i.has(".sat"));
            }
        } else if (i.operands().size() != 3) {
            throw l.unsupported(i);
        }
        Operand target = d instanceof Operand.Name dn && dn.component() != null ? new Operand.Name(dn.name(), null) : d;
        l.write(i, target, LLVMBuildTrunc(b(), tmp, LLVMInt32TypeInContext(l.ctx), ""), Type.B32);
        return true;
    }

    /**
     * The signedness of a video instruction's {@code .u32/.s32} types in their order (dtype, atype, btype; vset and
     * vset2/4: atype, btype): exactly {@code count} of them.
     */
    static boolean[] types(Lowering l, Instruction i, int count) {
        boolean[] signed = new boolean[count];
        int n = 0;
        for (String m : i.modifiers()) {
            if (m.equals(".u32") || m.equals(".s32")) {
                if (n == count) throw l.unsupported(i);
                signed[n++] = m.equals(".s32");
            }
        }
        if (n != count) throw l.unsupported(i);
        return signed;
    }

    /** An operand with its selector: the byte, half-word or word, sign- or zero-extended to 64 bits. */
    private LLVMValueRef part(Instruction i, Operand o, boolean signed) {
        String sel = null;
        if (o instanceof Operand.Name n && n.component() != null) {
            sel = n.component();
            o = new Operand.Name(n.name(), null);
        }
        LLVMValueRef v = l.read(i, o, Type.B32);
        if (sel == null) return extend(v, signed);
        int bits = width(sel);
        if (bits == 32) throw l.unsupported(i);
        int index = sel.charAt(2) - '0';
        LLVMTypeRef i32 = LLVMInt32TypeInContext(l.ctx);
        LLVMValueRef shifted = LLVMBuildLShr(b(), v, LLVMConstInt(i32, (long) index * bits, 0), "");
        LLVMValueRef narrow = LLVMBuildTrunc(b(), shifted, LLVMIntTypeInContext(l.ctx, bits), "");
        return signed ? LLVMBuildSExt(b(), narrow, i64(), "") : LLVMBuildZExt(b(), narrow, i64(), "");
    }

    private LLVMValueRef extend(LLVMValueRef v32, boolean signed) {
        return signed ? LLVMBuildSExt(b(), v32, i64(), "") : LLVMBuildZExt(b(), v32, i64(), "");
    }

    /** Bits a selector names: 8 (.b0-.b3), 16 (.h0 .h1), or 32 (none). */
    private static int width(String sel) {
        if (sel == null) return 32;
        return sel.startsWith(".b") ? 8 : sel.startsWith(".h") ? 16 : 32;
    }

    /** vshl/vshr: the amount clamped to 32 (.clamp) or taken modulo 32 (.wrap); shifts of the exact value. */
    private LLVMValueRef shift(Instruction i, boolean left, LLVMValueRef ta, LLVMValueRef tb) {
        if (i.has(".clamp")) tb = LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntUGT, tb, c64(32), ""), c64(32), tb, "");
        else if (i.has(".wrap")) tb = LLVMBuildAnd(b(), tb, c64(31), "");
        else throw l.unsupported(i);
        if (!left) return LLVMBuildAShr(b(), ta, tb, "");
        // NVIDIA (H100) keeps the shifted value in 34 bits, two's complement: what saturation sees is the low 34 bits
        // of the exact product, sign-extended (a bit shifted into bit 33 makes the value negative)
        LLVMTypeRef i128 = LLVMIntTypeInContext(l.ctx, 128);
        LLVMValueRef wide = LLVMBuildShl(b(), LLVMBuildSExt(b(), ta, i128, ""), LLVMBuildZExt(b(), tb, i128, ""), "");
        return LLVMBuildSExt(b(), LLVMBuildTrunc(b(), wide, LLVMIntTypeInContext(l.ctx, 34), ""), i64(), "");
    }

    /** vset: 1 where {@code ta cmp tb} holds, else 0. */
    private LLVMValueRef compare(Instruction i, LLVMValueRef ta, LLVMValueRef tb) {
        return LLVMBuildZExt(b(), LLVMBuildICmp(b(), comparison(l, i), ta, tb, ""), i64(), "");
    }

    /** The signed integer predicate of vset's (and vset2/vset4's) comparison modifier. */
    static int comparison(Lowering l, Instruction i) {
        if (i.has(".eq")) return LLVMIntEQ;
        if (i.has(".ne")) return LLVMIntNE;
        if (i.has(".lt")) return LLVMIntSLT;
        if (i.has(".le")) return LLVMIntSLE;
        if (i.has(".gt")) return LLVMIntSGT;
        if (i.has(".ge")) return LLVMIntSGE;
        throw l.unsupported(i);
    }

    private LLVMValueRef saturate(LLVMValueRef v, boolean signed, int bits) {
        return saturate(b(), v, signed, bits);
    }

    /** Clamps v (an integer wide enough to hold the range) to the signed or unsigned range of {@code bits} bits. */
    static LLVMValueRef saturate(LLVMBuilderRef b, LLVMValueRef v, boolean signed, int bits) {
        long lo = signed ? -(1L << (bits - 1)) : 0, hi = signed ? (1L << (bits - 1)) - 1 : (1L << bits) - 1;
        LLVMValueRef clo = LLVMConstInt(LLVMTypeOf(v), lo, 1), chi = LLVMConstInt(LLVMTypeOf(v), hi, 1);
        v = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, v, clo, ""), clo, v, "");
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, v, chi, ""), chi, v, "");
    }

    /**
     * Saturation for a destination byte or half-word as NVIDIA's GPUs do it (H100, ptx-test video_scalar), not as the
     * ISA's pseudo-code reads: a signed result outside [0, max] of the part's signed range (negative ones included)
     * becomes that max; an unsigned result is clamped to the whole word's range, [0, 2^32 - 1].
     */
    private LLVMValueRef saturatePart(LLVMValueRef v, boolean signed, int bits) {
        if (!signed) return saturate(v, false, 32);
        long hi = (1L << (bits - 1)) - 1;
        LLVMValueRef out = LLVMBuildOr(b(), LLVMBuildICmp(b(), LLVMIntSLT, v, c64(0), ""),
                LLVMBuildICmp(b(), LLVMIntSGT, v, c64(hi), ""), "");
        return LLVMBuildSelect(b(), out, c64(hi), v, "");
    }

    /**
     * {@code tmp} in place of the part of {@code c} that {@code dsel} names: its low byte or half-word, except that a
     * saturated result merged into the upper half-word gives its own bits 16-31 there (NVIDIA, H100: video_scalar).
     */
    private LLVMValueRef merge(Instruction i, String dsel, LLVMValueRef tmp, LLVMValueRef c, boolean sat) {
        int bits = width(dsel);
        if (bits == 32) throw l.unsupported(i);
        int at = (dsel.charAt(2) - '0') * bits;
        long field = ((1L << bits) - 1) << at;
        boolean inPlace = sat && dsel.equals(".h1");
        LLVMValueRef part = LLVMBuildAnd(b(), inPlace ? tmp : LLVMBuildShl(b(), tmp, c64(at), ""), c64(field), "");
        return LLVMBuildOr(b(), part, LLVMBuildAnd(b(), c, c64(~field & 0xffffffffL), ""), "");
    }

    /**
     * {@code vmad d, {-}a{.sel}, {-}b{.sel}, {-}c} ({@code .po}, {@code .sat}, {@code .shr7/.shr15}) as NVIDIA's H100
     * computes it (ptx-test {@code video_mad}: 60 forms on edge and random words), which the ISA's pseudo-code
     * describes only in part: a byte or half-word is extended by its operand's type, but a whole word and {@code c}
     * are always sign-extended; the product (one's complement when a or b is negated, or {@code c}'s when c is, plus
     * one, as for {@code .po}) plus {@code c} is exact in 64 bits; the result is signed when a type is {@code .s32} or
     * an operand is negated, and then shifted arithmetically, else logically (a negative sum becomes a large one);
     * {@code .sat} clamps the 64-bit value to the signed or unsigned 32-bit range by that signedness, whatever the
     * destination's type.
     */
    private void mad(Instruction i) {
        boolean[] signed = types(l, i, 3);
        if (i.operands().size() != 4) throw l.unsupported(i);
        Operand a = i.operands().get(1), bo = i.operands().get(2), c = i.operands().get(3);
        boolean negA = a instanceof Operand.Neg, negB = bo instanceof Operand.Neg, negC = c instanceof Operand.Neg;
        if (negA) a = ((Operand.Neg) a).operand();
        if (negB) bo = ((Operand.Neg) bo).operand();
        boolean po = i.has(".po");
        // NVIDIA's ptxas (and Checker): "Operand negation limited to either (source A xor source B) or source C"; none with .po
        if (po && (negA || negB || negC)) throw l.unsupported(i);
        // the ISA: the product is negated when exactly one of a and b is (ptx-test video_mad_negated_pair)
        if (negA && negB) negA = negB = false;
        if ((negA || negB) && negC) throw l.unsupported(i);
        LLVMValueRef ta = madPart(i, a, signed[1]);
        LLVMValueRef tb = madPart(i, bo, signed[2]);
        LLVMValueRef cv = l.read(i, negC ? ((Operand.Neg) c).operand() : c, Type.B32);
        boolean signedFinal = signed[1] || signed[2] || negA || negB || negC;
        LLVMValueRef tmp = LLVMBuildMul(b(), ta, tb, "");
        long lsb = po || negA || negB || negC ? 1 : 0;
        if (negA || negB) tmp = LLVMBuildNot(b(), tmp, "");
        else if (negC && !po) cv = LLVMBuildNot(b(), cv, "");
        tmp = LLVMBuildAdd(b(), LLVMBuildAdd(b(), tmp, extend(cv, true), ""), c64(lsb), "");
        int shift = i.has(".shr7") ? 7 : i.has(".shr15") ? 15 : 0;
        if (shift != 0) tmp = signedFinal ? LLVMBuildAShr(b(), tmp, c64(shift), "") : LLVMBuildLShr(b(), tmp, c64(shift), "");
        if (i.has(".sat")) tmp = saturate(tmp, signedFinal, 32);
        l.write(i, i.operands().get(0), LLVMBuildTrunc(b(), tmp, LLVMInt32TypeInContext(l.ctx), ""), Type.B32);
    }

    /** A vmad source: its byte or half-word extended by type, or the whole word sign-extended (as the H100 does). */
    private LLVMValueRef madPart(Instruction i, Operand o, boolean signed) {
        return o instanceof Operand.Name n && n.component() != null ? part(i, o, signed) : extend(l.read(i, o, Type.B32), true);
    }
}
