package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;

/**
 * The scalar instructions of every type that neither IntegerOps nor FloatOps takes whole: {@code add sub mul div rem
 * and or xor shl shr min max} ({@code .hi/.wide}, saturation, NVIDIA's results for a zero divisor and MIN / -1),
 * {@code mad/fma}, {@code neg not abs}, and {@code setp} with its combining forms and the f16x2/bf16x2 pair.
 */
final class ScalarOps {
    private final Lowering l;

    ScalarOps(Lowering l) {
        this.l = l;
    }

    /** Handles the instruction if it is one of these; returns false otherwise. */
    boolean lower(Instruction i) {
        if ((i.opcode().equals("min") || i.opcode().equals("max")) && (i.has(".s16x2") || i.has(".u16x2"))) {
            minMaxPairs(i);
            return true;
        }
        switch (i.opcode()) {
            case "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "min", "max" -> binary(i);
            case "mad", "fma" -> mad(i);
            case "neg", "not", "abs" -> unary(i);
            case "setp" -> setp(i);
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * Integer div/rem with NVIDIA's results where LLVM's are undefined (recorded on an H200): a zero divisor gives
     * all ones for both, and MIN / -1 gives MIN (remainder 0), which dividing by 1 instead produces. No l.target traps.
     */
    private LLVMValueRef divide(String op, boolean signed, LLVMValueRef x, LLVMValueRef y) {
        LLVMTypeRef t = LLVMTypeOf(y);
        // a divisor known only at run time: the target's own division where it has PTX's results (NVPTX: NVIDIA's
        // div/rem, which its compiler splits into a 32-bit path itself; LLVM's guard and its own split came on top)
        if (LLVMIsConstant(y) == 0) {
            LLVMValueRef own = l.target.ownInteger(l.b, op + (signed ? ".s" : ".u") + LLVMGetIntTypeWidth(t), x, y);
            if (own != null) return own;
        }
        LLVMValueRef zero = LLVMBuildICmp(l.b, LLVMIntEQ, y, LLVMConstInt(t, 0, 0), ""), one = LLVMConstInt(t, 1, 0);
        LLVMValueRef unsafe = zero;
        if (signed) {
            int w = LLVMGetIntTypeWidth(t);
            LLVMValueRef min = LLVMBuildICmp(l.b, LLVMIntEQ, x, LLVMConstInt(t, 1L << (w - 1), 0), "");
            unsafe = LLVMBuildOr(l.b, zero, LLVMBuildAnd(l.b, min, LLVMBuildICmp(l.b, LLVMIntEQ, y, LLVMConstAllOnes(t), ""), ""), "");
        }
        LLVMValueRef d = LLVMBuildSelect(l.b, unsafe, one, y, "");
        LLVMValueRef r = op.equals("div") ? (signed ? LLVMBuildSDiv(l.b, x, d, "") : LLVMBuildUDiv(l.b, x, d, ""))
                : (signed ? LLVMBuildSRem(l.b, x, d, "") : LLVMBuildURem(l.b, x, d, ""));
        return LLVMBuildSelect(l.b, zero, LLVMConstAllOnes(t), r, "");
    }

    private void binary(Instruction i) {
        Type t = l.type(i);
        List<Operand> o = i.operands();
        String op = i.opcode();
        boolean wide = i.has(".wide"), hi = i.has(".hi");
        if (op.equals("mul") && (wide || hi)) {
            LLVMValueRef a = l.read(i, o.get(1), t), c = l.read(i, o.get(2), t);
            // mul.hi: the target's own where it has one (NVPTX: LLVM's middle end hoisted the widening of a
            // loop-invariant factor, after which NVPTX emitted a 64-bit mul.lo and took its high word)
            LLVMValueRef own = hi ? l.target.ownInteger(l.b, "mul.hi." + (t.isSigned() ? "s" : "u") + t.bits(), a, c) : null;
            if (own != null) {
                l.write(i, o.get(0), own, t);
                return;
            }
            Type wt = l.widened(i, t);
            LLVMValueRef r = LLVMBuildMul(l.b, l.extend(a, t, wt), l.extend(c, t, wt), "");
            if (hi) {
                r = LLVMBuildLShr(l.b, r, LLVMConstInt(l.llvmType(wt), t.bits(), 0), "");
                r = LLVMBuildTrunc(l.b, r, l.llvmType(t), "");
                l.write(i, o.get(0), r, t);
            } else {
                l.write(i, o.get(0), r, wt);
            }
            return;
        }
        LLVMValueRef x = l.read(i, o.get(1), t);
        Type yt = op.equals("shl") || op.equals("shr") ? Type.U32 : t;
        LLVMValueRef y = l.read(i, o.get(2), yt);
        LLVMValueRef r;
        if (t.isFloat()) {
            r = switch (op) {
                case "add" -> LLVMBuildFAdd(l.b, x, y, "");
                case "sub" -> LLVMBuildFSub(l.b, x, y, "");
                case "mul" -> LLVMBuildFMul(l.b, x, y, "");
                case "div" -> LLVMBuildFDiv(l.b, x, y, "");
                case "min" -> Ll.intrinsic(l.module, l.b, "llvm.minnum", new LLVMTypeRef[] {l.llvmType(t)}, x, y);
                case "max" -> Ll.intrinsic(l.module, l.b, "llvm.maxnum", new LLVMTypeRef[] {l.llvmType(t)}, x, y);
                default -> throw l.unsupported(i);
            };
            if (i.has(".sat")) throw l.unsupported(i);
        } else {
            boolean signed = t.isSigned();
            boolean sat = i.has(".sat");  // add.sat.s32/sub.sat.s32: clamped to [INT_MIN, INT_MAX]
            if (sat && !(t == Type.S32 && (op.equals("add") || op.equals("sub")))) throw l.unsupported(i);
            r = switch (op) {
                case "add" -> sat ? Ll.intrinsic(l.module, l.b, "llvm.sadd.sat", new LLVMTypeRef[] {l.llvmType(t)}, x, y) : LLVMBuildAdd(l.b, x, y, "");
                case "sub" -> sat ? Ll.intrinsic(l.module, l.b, "llvm.ssub.sat", new LLVMTypeRef[] {l.llvmType(t)}, x, y) : LLVMBuildSub(l.b, x, y, "");
                case "mul" -> LLVMBuildMul(l.b, x, y, "");
                case "div", "rem" -> divide(op, signed, x, y);
                case "and" -> LLVMBuildAnd(l.b, x, y, "");
                case "or" -> LLVMBuildOr(l.b, x, y, "");
                case "xor" -> LLVMBuildXor(l.b, x, y, "");
                case "min" -> relu(i, LLVMBuildSelect(l.b, LLVMBuildICmp(l.b, signed ? LLVMIntSLT : LLVMIntULT, x, y, ""), x, y, ""));
                case "max" -> relu(i, LLVMBuildSelect(l.b, LLVMBuildICmp(l.b, signed ? LLVMIntSGT : LLVMIntUGT, x, y, ""), x, y, ""));
                case "shl", "shr" -> shift(t, x, y, op.equals("shl"), signed);
                default -> throw l.unsupported(i);
            };
        }
        l.write(i, o.get(0), r, t);
    }

    /** {@code min/max.relu} (.s32, .s16x2 element by element): a negative result becomes 0; only signed forms take it. */
    private LLVMValueRef relu(Instruction i, LLVMValueRef r) {
        if (!i.has(".relu")) return r;
        if (!i.has(".s32") && !i.has(".s16x2")) throw l.unsupported(i);
        LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(r));
        return LLVMBuildSelect(l.b, LLVMBuildICmp(l.b, LLVMIntSLT, r, zero, ""), zero, r, "");
    }

    /** {@code min/max{.relu}.s16x2/.u16x2}: each half-word on its own (.relu: a negative half becomes 0). */
    private void minMaxPairs(Instruction i) {
        boolean signed = i.has(".s16x2"), min = i.opcode().equals("min");
        LLVMTypeRef v2 = LLVMVectorType(LLVMInt16TypeInContext(l.ctx), 2);
        LLVMValueRef x = LLVMBuildBitCast(l.b, l.read(i, i.operands().get(1), Type.B32), v2, "");
        LLVMValueRef y = LLVMBuildBitCast(l.b, l.read(i, i.operands().get(2), Type.B32), v2, "");
        int pred = min ? (signed ? LLVMIntSLT : LLVMIntULT) : (signed ? LLVMIntSGT : LLVMIntUGT);
        LLVMValueRef r = relu(i, LLVMBuildSelect(l.b, LLVMBuildICmp(l.b, pred, x, y, ""), x, y, ""));
        l.write(i, i.operands().get(0), LLVMBuildBitCast(l.b, r, LLVMInt32TypeInContext(l.ctx), ""), Type.B32);
    }

    private void mad(Instruction i) {
        Type t = l.type(i);
        List<Operand> o = i.operands();
        if (t.isFloat()) {
            if (i.has(".sat") || i.has(".ftz") && t == Type.F32 && false) throw l.unsupported(i);
            LLVMValueRef x = l.read(i, o.get(1), t), y = l.read(i, o.get(2), t), z = l.read(i, o.get(3), t);
            l.write(i, o.get(0), Ll.intrinsic(l.module, l.b, "llvm.fma", new LLVMTypeRef[] {l.llvmType(t)}, x, y, z), t);
            return;
        }
        if (i.has(".wide") || i.has(".hi")) {
            Type wt = l.widened(i, t);
            LLVMValueRef x = l.extend(l.read(i, o.get(1), t), t, wt), y = l.extend(l.read(i, o.get(2), t), t, wt);
            LLVMValueRef p = LLVMBuildMul(l.b, x, y, "");
            if (i.has(".wide")) {
                if (i.has(".sat")) throw l.unsupported(i);
                l.write(i, o.get(0), LLVMBuildAdd(l.b, p, l.read(i, o.get(3), wt), ""), wt);
            } else {
                LLVMValueRef h = LLVMBuildTrunc(l.b, LLVMBuildLShr(l.b, p, LLVMConstInt(l.llvmType(wt), t.bits(), 0), ""), l.llvmType(t), "");
                LLVMValueRef c = l.read(i, o.get(3), t);
                if (i.has(".sat") && t != Type.S32) throw l.unsupported(i);
                // mad.hi.sat.s32: the final addition saturates to [INT_MIN, INT_MAX]
                l.write(i, o.get(0), i.has(".sat") ? Ll.intrinsic(l.module, l.b, "llvm.sadd.sat", new LLVMTypeRef[] {l.llvmType(t)}, h, c)
                        : LLVMBuildAdd(l.b, h, c, ""), t);
            }
            return;
        }
        if (i.has(".sat")) throw l.unsupported(i);  // only mad.hi.sat.s32 saturates
        LLVMValueRef r = LLVMBuildAdd(l.b, LLVMBuildMul(l.b, l.read(i, o.get(1), t), l.read(i, o.get(2), t), ""), l.read(i, o.get(3), t), "");
        l.write(i, o.get(0), r, t);
    }

    private void unary(Instruction i) {
        Type t = l.type(i);
        LLVMValueRef x = l.read(i, i.operands().get(1), t);
        LLVMValueRef r = switch (i.opcode()) {
            case "neg" -> t.isFloat() ? LLVMBuildFNeg(l.b, x, "") : LLVMBuildNeg(l.b, x, "");
            case "not" -> LLVMBuildNot(l.b, x, "");
            case "abs" -> t.isFloat() ? Ll.intrinsic(l.module, l.b, "llvm.fabs", new LLVMTypeRef[] {l.llvmType(t)}, x)
                    : integerAbs(t, x);
            default -> throw l.unsupported(i);
        };
        l.write(i, i.operands().get(0), r, t);
    }

    /** abs.sNN: the l.target's own form, else LLVM's (the most negative value is its own absolute value). */
    private LLVMValueRef integerAbs(Type t, LLVMValueRef x) {
        LLVMValueRef own = l.target.integerAbs(l.module, l.b, x);
        return own != null ? own
                : Ll.intrinsic(l.module, l.b, "llvm.abs", new LLVMTypeRef[] {l.llvmType(t)}, x, LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 0, 0));
    }

    private void setp(Instruction i) {
        Type t = l.type(i);
        List<Operand> o = i.operands();
        String cmp = i.modifiers().get(0);
        if (t == Type.F16X2 || t == Type.BF16X2) {
            setpPair(i, cmp, t == Type.F16X2 ? Type.F16 : Type.BF16);
            return;
        }
        LLVMValueRef x = l.read(i, o.get(1), t), y = l.read(i, o.get(2), t);
        // .ftz f32: the target's own comparison where it has one (NVPTX: no flush of each operand before it)
        LLVMValueRef own = t == Type.F32 && i.has(".ftz") ? l.target.ownCompare(l.b, "setp" + cmp + ".ftz.f32", x, y) : null;
        if (own != null) {
            combineAndWrite(i, own, LLVMBuildNot(l.b, own, ""));
            return;
        }
        if ((t == Type.F16 || t == Type.F32) && i.has(".ftz")) {  // subnormals compare as zeros
            x = l.floats.flush(x, t);
            y = l.floats.flush(y, t);
        }
        LLVMValueRef r = l.integers.compare(i, cmp, t, x, y);
        // p = cmp BOOL c; q = !cmp BOOL c (PTX: the second destination combines the complement of the comparison)
        combineAndWrite(i, r, LLVMBuildNot(l.b, r, ""));
    }

    /** setp.f16x2/bf16x2 p|q: p takes the comparison of the lower halves, q that of the upper halves. */
    private void setpPair(Instruction i, String cmp, Type lane) {
        List<Operand> o = i.operands();
        LLVMValueRef[] lo = new LLVMValueRef[2], hi = new LLVMValueRef[2];
        LLVMTypeRef i16 = LLVMInt16TypeInContext(l.ctx), f32 = LLVMFloatTypeInContext(l.ctx);
        for (int k = 0; k < 2; k++) {
            LLVMValueRef v = l.read(i, o.get(k + 1), Type.B32);
            LLVMValueRef l16 = LLVMBuildTrunc(l.b, v, i16, ""), h16 = LLVMBuildTrunc(l.b, LLVMBuildLShr(l.b, v, LLVMConstInt(LLVMTypeOf(v), 16, 0), ""), i16, "");
            lo[k] = LLVMBuildFPExt(l.b, LLVMBuildBitCast(l.b, l16, l.llvmType(lane), ""), f32, "");  // exact
            hi[k] = LLVMBuildFPExt(l.b, LLVMBuildBitCast(l.b, h16, l.llvmType(lane), ""), f32, "");
            if (i.has(".ftz")) {
                lo[k] = l.floats.flushHalf(lo[k], lane);
                hi[k] = l.floats.flushHalf(hi[k], lane);
            }
        }
        LLVMValueRef p = l.integers.compare(i, cmp, Type.F32, lo[0], lo[1]), q = l.integers.compare(i, cmp, Type.F32, hi[0], hi[1]);
        combineAndWrite(i, p, q);
    }

    /** setp's destinations: p, and q into the second of p|q, each combined with c by .and/.or/.xor when given. */
    private void combineAndWrite(Instruction i, LLVMValueRef p, LLVMValueRef q) {
        List<Operand> o = i.operands();
        String op = i.modifiers().size() > 2 ? i.modifiers().get(1) : null;
        if (op != null && (op.equals(".and") || op.equals(".or") || op.equals(".xor"))) {
            LLVMValueRef c = l.read(i, o.get(3), Type.PRED);
            p = combine(op, p, c);
            q = combine(op, q, c);
        }
        if (o.get(0) instanceof Operand.Pair pair) {
            if (!(pair.first() instanceof Operand.Sink)) l.write(i, pair.first(), p, Type.PRED);
            if (!(pair.second() instanceof Operand.Sink)) l.write(i, pair.second(), q, Type.PRED);
        } else {
            l.write(i, o.get(0), p, Type.PRED);
        }
    }

    private LLVMValueRef combine(String op, LLVMValueRef x, LLVMValueRef c) {
        return switch (op) {
            case ".and" -> LLVMBuildAnd(l.b, x, c, "");
            case ".or" -> LLVMBuildOr(l.b, x, c, "");
            default -> LLVMBuildXor(l.b, x, c, "");
        };
    }

    /** PTX shifts clamp: amounts >= width give 0 (or the sign for arithmetic right shifts). */
    private LLVMValueRef shift(Type t, LLVMValueRef x, LLVMValueRef amount32, boolean left, boolean signed) {
        LLVMTypeRef lt = l.llvmType(t);
        // an amount known only at run time: the target's own shift where it clamps as PTX does (NVPTX: NVIDIA's shl/shr,
        // as in ggml's fast division by a run-time shift; LLVM's shifts past the width need a compare and select)
        if (LLVMIsConstant(amount32) == 0) {
            LLVMValueRef own = l.target.ownInteger(l.b, (left ? "shl.b" : signed ? "shr.s" : "shr.u") + t.bits(), x, amount32);
            if (own != null) return own;
        }
        LLVMValueRef width = LLVMConstInt(LLVMInt32TypeInContext(l.ctx), t.bits(), 0);
        LLVMValueRef big = LLVMBuildICmp(l.b, LLVMIntUGE, amount32, width, "");
        LLVMValueRef clamped = LLVMBuildSelect(l.b, big, LLVMConstInt(LLVMInt32TypeInContext(l.ctx), t.bits() - 1, 0), amount32, "");
        LLVMValueRef amt = t.bits() > 32 ? LLVMBuildZExt(l.b, clamped, lt, "") : t.bits() < 32 ? LLVMBuildTrunc(l.b, clamped, lt, "") : clamped;
        if (left) {
            LLVMValueRef r = LLVMBuildShl(l.b, x, amt, "");
            if (LLVMIsConstant(amount32) != 0) l.target.constantShift(l.ctx, r);
            return LLVMBuildSelect(l.b, big, LLVMConstInt(lt, 0, 0), r, "");
        }
        if (signed) return LLVMBuildAShr(l.b, x, amt, "");
        LLVMValueRef r = LLVMBuildLShr(l.b, x, amt, "");
        return LLVMBuildSelect(l.b, big, LLVMConstInt(lt, 0, 0), r, "");
    }
}
