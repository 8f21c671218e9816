package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;

/**
 * Lowering of PTX's integer and bit-manipulation instructions (target independent): 24-bit multiplies, sad,
 * popc/clz/brev/bfind, bit-field extract/insert, byte permute, lop3, funnel shifts, dot products, carry chains,
 * set/slct, szext/bmsk. Semantics follow the PTX ISA's pseudo-code; results are checked against NVIDIA's.
 */
final class IntegerOps {
    private final Lowering l;
    /** CC.CF of the carry chains (add.cc, addc, sub.cc, subc, mad.cc, madc): one i1 per function. */
    private LLVMValueRef carry;
    private LLVMValueRef carryFunction;

    IntegerOps(Lowering l) {
        this.l = l;
    }

    private LLVMBuilderRef b() {
        return l.b;
    }

    private LLVMTypeRef t(Type t) {
        return l.llvmType(t);
    }

    private LLVMValueRef c(LLVMTypeRef type, long v) {
        return LLVMConstInt(type, v, 0);
    }

    private LLVMValueRef c32(long v) {
        return c(LLVMInt32TypeInContext(l.ctx), v);
    }

    private LLVMValueRef op(Instruction i, int k, Type t) {
        return l.read(i, i.operands().get(k), t);
    }

    private void out(Instruction i, LLVMValueRef v, Type t) {
        l.write(i, i.operands().get(0), v, t);
    }

    private LLVMValueRef intrinsic(String name, LLVMTypeRef overload, LLVMValueRef... args) {
        return Ll.intrinsic(l.module, b(), name, overload == null ? new LLVMTypeRef[0] : new LLVMTypeRef[] {overload}, args);
    }

    private LLVMValueRef select(LLVMValueRef cond, LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildSelect(b(), cond, a, b, "");
    }

    private LLVMValueRef icmp(int pred, LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildICmp(b(), pred, a, b, "");
    }

    /** Handles the instruction if it is one of this family; returns false otherwise. */
    boolean lower(Instruction i) {
        String op = i.opcode();
        if (i.has(".cc") || op.equals("addc") || op.equals("subc") || op.equals("madc")) {
            carryChain(i);
            return true;
        }
        switch (op) {
            case "mul24", "mad24" -> mul24(i);
            case "sad" -> sad(i);
            case "popc" -> out(i, trunc32(intrinsic("llvm.ctpop", t(type(i)), op(i, 1, type(i)))), Type.U32);
            case "clz" -> out(i, trunc32(intrinsic("llvm.ctlz", t(type(i)), op(i, 1, type(i)), c(LLVMInt1TypeInContext(l.ctx), 0))), Type.U32);
            case "brev" -> out(i, intrinsic("llvm.bitreverse", t(type(i)), op(i, 1, type(i))), type(i));
            case "bfind" -> bfind(i);
            case "fns" -> fns(i);
            case "bfe" -> bfe(i);
            case "bfi" -> bfi(i);
            case "prmt" -> prmt(i);
            case "lop3" -> lop3(i);
            case "shf" -> shf(i);
            case "dp4a", "dp2a" -> dot(i);
            case "cnot" -> {
                Type t = type(i);
                LLVMValueRef z = icmp(LLVMIntEQ, op(i, 1, t), c(t(t), 0));
                out(i, LLVMBuildZExt(b(), z, t(t), ""), t);
            }
            case "szext" -> szext(i);
            case "bmsk" -> bmsk(i);
            case "set" -> set(i);
            case "slct" -> slct(i);
            default -> {
                return false;
            }
        }
        return true;
    }

    private Type type(Instruction i) {
        return l.type(i);
    }

    /** The first type modifier (dp4a.u32.s32, slct.s32.f32, set.lt.u32.f32 name several). */
    private Type firstType(Instruction i) {
        for (String m : i.modifiers()) {
            Type t = Type.of(m);
            if (t != null) return t;
        }
        throw l.unsupported(i);
    }

    private LLVMValueRef trunc32(LLVMValueRef v) {
        LLVMTypeRef i32 = LLVMInt32TypeInContext(l.ctx);
        return LLVMTypeOf(v).equals(i32) ? v : LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 32 ? LLVMBuildTrunc(b(), v, i32, "")
                : LLVMBuildZExt(b(), v, i32, "");
    }

    // ---- carry chains

    private LLVMValueRef carrySlot() {
        if (carry == null || !carryFunction.equals(l.kernel)) {
            LLVMBuilderRef entry = LLVMCreateBuilderInContext(l.ctx);
            LLVMPositionBuilderBefore(entry, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(l.kernel)));
            carry = LLVMBuildAlloca(entry, LLVMInt1TypeInContext(l.ctx), "cc.cf");
            LLVMBuildStore(entry, c(LLVMInt1TypeInContext(l.ctx), 0), carry);
            LLVMDisposeBuilder(entry);
            carryFunction = l.kernel;
        }
        return carry;
    }

    private void carryChain(Instruction i) {
        Type t = type(i);
        LLVMTypeRef lt = t(t);
        LLVMTypeRef i1 = LLVMInt1TypeInContext(l.ctx);
        LLVMValueRef slot = carrySlot();
        boolean setCarry = i.has(".cc");
        String op = i.opcode();
        boolean useCarry = op.endsWith("c");
        LLVMValueRef cin = useCarry ? LLVMBuildLoad2(b(), i1, slot, "") : c(i1, 0);
        LLVMValueRef a = op(i, 1, t), bb = op(i, 2, t);
        LLVMValueRef result, cout;
        if (op.startsWith("add")) {
            LLVMValueRef s1 = LLVMBuildAdd(b(), a, bb, ""), s2 = LLVMBuildAdd(b(), s1, LLVMBuildZExt(b(), cin, lt, ""), "");
            cout = LLVMBuildOr(b(), icmp(LLVMIntULT, s1, a), icmp(LLVMIntULT, s2, s1), "");
            result = s2;
        } else if (op.startsWith("sub")) {
            // CC.CF is a carry for subtraction too, as NVIDIA's GPUs keep it: a - b is a + ~b + 1, sub.cc's carry-out is
            // "no borrow" and subc computes a + ~b + CF (a - b - 1 + CF). A chain of subtractions gives the borrow
            // arithmetic of the manual; a chain mixing add.cc and subc gives NVIDIA's results (forms_ptx.py on an H100)
            LLVMValueRef nb = LLVMBuildNot(b(), bb, "");
            LLVMValueRef in = useCarry ? LLVMBuildZExt(b(), cin, lt, "") : c(lt, 1);
            LLVMValueRef s1 = LLVMBuildAdd(b(), a, nb, ""), s2 = LLVMBuildAdd(b(), s1, in, "");
            cout = LLVMBuildOr(b(), icmp(LLVMIntULT, s1, a), icmp(LLVMIntULT, s2, s1), "");
            result = s2;
        } else {  // mad.lo/.hi.cc, madc.lo/.hi[.cc]: (a*b).lo|hi + c + carry-in
            Type wt = t.bits() == 32 ? (t.isSigned() ? Type.S64 : Type.U64) : Type.B128;
            LLVMValueRef p = LLVMBuildMul(b(), l.extend(a, t, wt), l.extend(bb, t, wt), "");
            LLVMValueRef part = i.has(".hi") ? LLVMBuildLShr(b(), p, c(t(wt), t.bits()), "") : p;
            part = LLVMBuildTrunc(b(), part, lt, "");
            LLVMValueRef cc = op(i, 3, t);
            LLVMValueRef s1 = LLVMBuildAdd(b(), part, cc, ""), s2 = LLVMBuildAdd(b(), s1, LLVMBuildZExt(b(), cin, lt, ""), "");
            cout = LLVMBuildOr(b(), icmp(LLVMIntULT, s1, part), icmp(LLVMIntULT, s2, s1), "");
            result = s2;
        }
        if (setCarry) LLVMBuildStore(b(), cout, slot);
        out(i, result, t);
    }

    // ---- multiplies and differences

    private void mul24(Instruction i) {
        Type t = type(i);
        boolean signed = t.isSigned();
        LLVMTypeRef i64 = LLVMInt64TypeInContext(l.ctx);
        LLVMValueRef a = ext24(op(i, 1, t), signed), bb = ext24(op(i, 2, t), signed);
        LLVMValueRef p = LLVMBuildMul(b(), a, bb, "");  // the 48-bit product, exact in 64 bits
        LLVMValueRef r = i.has(".hi") ? LLVMBuildLShr(b(), p, c(i64, 16), "") : p;
        r = LLVMBuildTrunc(b(), r, t(t), "");
        if (i.opcode().equals("mad24")) {
            // mad24.hi.sat.s32: bits 47..16 plus c, saturated to [INT_MIN, INT_MAX]
            if (i.has(".sat") && (t != Type.S32 || !i.has(".hi"))) throw l.unsupported(i);
            r = i.has(".sat") ? intrinsic("llvm.sadd.sat", t(t), r, op(i, 3, t)) : LLVMBuildAdd(b(), r, op(i, 3, t), "");
        }
        out(i, r, t);
    }

    private LLVMValueRef ext24(LLVMValueRef v, boolean signed) {
        LLVMTypeRef i64 = LLVMInt64TypeInContext(l.ctx);
        LLVMValueRef w = LLVMBuildZExt(b(), LLVMBuildAnd(b(), v, c32(0xffffff), ""), i64, "");
        if (!signed) return w;
        LLVMValueRef s = LLVMBuildShl(b(), w, c(i64, 40), "");
        return LLVMBuildAShr(b(), s, c(i64, 40), "");
    }

    private void sad(Instruction i) {
        Type t = type(i);
        LLVMValueRef a = op(i, 1, t), bb = op(i, 2, t);
        LLVMValueRef gt = icmp(t.isSigned() ? LLVMIntSGT : LLVMIntUGT, a, bb);
        LLVMValueRef diff = select(gt, LLVMBuildSub(b(), a, bb, ""), LLVMBuildSub(b(), bb, a, ""));
        out(i, LLVMBuildAdd(b(), diff, op(i, 3, t), ""), t);
    }

    // ---- bit fields

    private void bfind(Instruction i) {
        Type t = type(i);
        LLVMTypeRef lt = t(t);
        LLVMValueRef a = op(i, 1, t);
        LLVMValueRef x = a;
        if (t.isSigned()) x = select(icmp(LLVMIntSLT, a, c(lt, 0)), LLVMBuildNot(b(), a, ""), a);  // msb that differs from the sign
        LLVMValueRef lz = trunc32(intrinsic("llvm.ctlz", lt, x, c(LLVMInt1TypeInContext(l.ctx), 0)));
        LLVMValueRef pos = LLVMBuildSub(b(), c32(t.bits() - 1), lz, "");
        LLVMValueRef r = i.has(".shiftamt") ? lz : pos;
        out(i, select(icmp(LLVMIntEQ, x, c(lt, 0)), c32(0xffffffffL), r), Type.U32);
    }

    /**
     * Position and length operands of bfe/bfi in the width their arithmetic needs. The 32-bit forms use the low 8 bits
     * (as the ISA says and the hardware does); the 64-bit forms, emulated by NVIDIA's compiler, use the whole 32-bit
     * values (recorded on an H200: a position of 0x22bb690f extracts nothing), so they are widened to 64 bits.
     */
    private LLVMValueRef fieldOperand(Instruction i, int n, LLVMTypeRef it) {
        LLVMValueRef v = op(i, n, Type.U32);
        return LLVMGetIntTypeWidth(it) == 32 ? LLVMBuildAnd(b(), v, c32(0xff), "") : LLVMBuildZExt(b(), v, it, "");
    }

    private void bfe(Instruction i) {
        Type t = type(i);
        LLVMTypeRef lt = t(t);  // the field arithmetic runs in the operand width: no overflow with 64-bit positions
        int w = t.bits();
        LLVMValueRef a = op(i, 1, t);
        LLVMValueRef own = l.target.hasBitFields() ? l.target.bitField(b(), "bfe", t, a, op(i, 2, Type.U32), op(i, 3, Type.U32)) : null;
        if (own != null) {
            out(i, own, t);
            return;
        }
        LLVMValueRef pos = fieldOperand(i, 2, lt), len = fieldOperand(i, 3, lt);
        LLVMValueRef big = icmp(LLVMIntUGE, pos, c(lt, w));
        LLVMValueRef shifted = select(big, c(lt, 0), LLVMBuildLShr(b(), a, select(big, c(lt, 0), pos), ""));
        // bits available: n = min(len, w - pos) when pos < w
        LLVMValueRef avail = LLVMBuildSub(b(), c(lt, w), pos, "");
        LLVMValueRef n = select(big, c(lt, 0), select(icmp(LLVMIntULT, len, avail), len, avail));
        LLVMValueRef full = icmp(LLVMIntUGE, n, c(lt, w));
        LLVMValueRef mask = select(full, c(lt, -1), LLVMBuildSub(b(), LLVMBuildShl(b(), c(lt, 1), select(full, c(lt, 0), n), ""), c(lt, 1), ""));
        LLVMValueRef value = LLVMBuildAnd(b(), shifted, mask, "");
        if (t.isSigned()) {
            // sbit = a[min(pos + len - 1, msb)]; with len == 0 it is taken at pos - 1 (0 when pos is 0)
            LLVMValueRef sum = LLVMBuildAdd(b(), pos, len, "");
            LLVMValueRef zero = icmp(LLVMIntEQ, sum, c(lt, 0));
            LLVMValueRef top = LLVMBuildSub(b(), sum, c(lt, 1), "");
            LLVMValueRef idx = select(zero, c(lt, 0), select(icmp(LLVMIntUGT, top, c(lt, w - 1)), c(lt, w - 1), top));
            LLVMValueRef bit = LLVMBuildTrunc(b(), LLVMBuildLShr(b(), a, idx, ""), LLVMInt1TypeInContext(l.ctx), "");
            bit = select(zero, c(LLVMInt1TypeInContext(l.ctx), 0), bit);
            value = select(bit, LLVMBuildOr(b(), value, LLVMBuildNot(b(), mask, ""), ""), value);
            value = select(icmp(LLVMIntEQ, len, c(lt, 0)), c(lt, 0), value);  // NVIDIA: a zero-length field is 0
        }
        out(i, value, t);
    }

    private void bfi(Instruction i) {
        Type t = type(i);
        LLVMTypeRef lt = t(t);
        int w = t.bits();
        LLVMValueRef a = op(i, 1, t), base = op(i, 2, t);
        LLVMValueRef own = l.target.hasBitFields() ? l.target.bitField(b(), "bfi", t, a, base, op(i, 3, Type.U32), op(i, 4, Type.U32)) : null;
        if (own != null) {
            out(i, own, t);
            return;
        }
        LLVMValueRef pos = fieldOperand(i, 3, lt), len = fieldOperand(i, 4, lt);
        LLVMValueRef none = LLVMBuildOr(b(), icmp(LLVMIntEQ, len, c(lt, 0)), icmp(LLVMIntUGE, pos, c(lt, w)), "");
        LLVMValueRef fullLen = icmp(LLVMIntUGE, len, c(lt, w));
        LLVMValueRef safePos = select(none, c(lt, 0), pos);
        LLVMValueRef ones = select(fullLen, c(lt, -1), LLVMBuildSub(b(), LLVMBuildShl(b(), c(lt, 1), select(fullLen, c(lt, 0), len), ""), c(lt, 1), ""));
        LLVMValueRef mask = LLVMBuildShl(b(), ones, safePos, "");
        LLVMValueRef ins = LLVMBuildAnd(b(), LLVMBuildShl(b(), a, safePos, ""), mask, "");
        LLVMValueRef r = LLVMBuildOr(b(), LLVMBuildAnd(b(), base, LLVMBuildNot(b(), mask, ""), ""), ins, "");
        out(i, select(none, base, r), t);
    }

    /** Byte indices (b3 b2 b1 b0) of prmt's modes for selector 0..3, as 16 nibbles (selector s, byte k at 4*(4s+k)). */
    private static long prmtTable(String mode) {
        int[][] t = switch (mode) {
            case ".f4e" -> new int[][] {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}};
            case ".b4e" -> new int[][] {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}};
            case ".rc8" -> new int[][] {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}};
            case ".ecl" -> new int[][] {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}};
            case ".ecr" -> new int[][] {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}};
            case ".rc16" -> new int[][] {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}};
            default -> null;
        };
        if (t == null) return -1;
        long v = 0;
        for (int s = 0; s < 4; s++) for (int k = 0; k < 4; k++) v |= (long) t[s][k] << (4 * (4 * s + k));
        return v;
    }

    private void prmt(Instruction i) {
        LLVMTypeRef i64 = LLVMInt64TypeInContext(l.ctx), i32 = LLVMInt32TypeInContext(l.ctx);
        LLVMValueRef a = op(i, 1, Type.B32), bb = op(i, 2, Type.B32), sel = op(i, 3, Type.B32);
        LLVMValueRef v = LLVMBuildOr(b(), LLVMBuildShl(b(), LLVMBuildZExt(b(), bb, i64, ""), c(i64, 32), ""), LLVMBuildZExt(b(), a, i64, ""), "");
        String mode = null;
        for (String m : i.modifiers()) if (prmtTable(m) >= 0) mode = m;
        LLVMValueRef own = l.target.ownInteger(b(), "prmt.b32" + (mode == null ? "" : mode), a, bb, sel);
        if (own != null) {
            out(i, own, Type.B32);
            return;
        }
        LLVMValueRef result = c32(0);
        for (int k = 0; k < 4; k++) {
            LLVMValueRef idx, signRep = null;
            if (mode == null) {
                LLVMValueRef nib = LLVMBuildLShr(b(), sel, c32(4L * k), "");
                idx = LLVMBuildAnd(b(), nib, c32(7), "");
                signRep = LLVMBuildTrunc(b(), LLVMBuildLShr(b(), nib, c32(3), ""), LLVMInt1TypeInContext(l.ctx), "");
            } else {
                LLVMValueRef s = LLVMBuildAnd(b(), sel, c32(3), "");
                LLVMValueRef shiftBy = LLVMBuildAdd(b(), LLVMBuildMul(b(), s, c32(16), ""), c32(4L * k), "");
                idx = LLVMBuildTrunc(b(), LLVMBuildAnd(b(), LLVMBuildLShr(b(), c(i64, prmtTable(mode)), LLVMBuildZExt(b(), shiftBy, i64, ""), ""), c(i64, 7), ""), i32, "");
            }
            LLVMValueRef byteV = LLVMBuildTrunc(b(), LLVMBuildAnd(b(), LLVMBuildLShr(b(), v, LLVMBuildZExt(b(), LLVMBuildMul(b(), idx, c32(8), ""), i64, ""), ""), c(i64, 0xff), ""), i32, "");
            if (signRep != null) {
                LLVMValueRef neg = icmp(LLVMIntNE, LLVMBuildAnd(b(), byteV, c32(0x80), ""), c32(0));
                byteV = select(signRep, select(neg, c32(0xff), c32(0)), byteV);
            }
            result = LLVMBuildOr(b(), result, LLVMBuildShl(b(), byteV, c32(8L * k), ""), "");
        }
        out(i, result, Type.B32);
    }

    /**
     * lop3.b32 d, a, b, c, immLut; and (PTX 8.2) lop3.BoolOp.b32 d|p, a, b, c, immLut, q: p = (d != 0) BoolOp q.
     */
    private void lop3(Instruction i) {
        boolean withPredicate = i.has(".and") || i.has(".or");
        if (i.operands().size() != (withPredicate ? 6 : 5) || !(i.operands().get(4) instanceof Operand.IntImm lut)
                || withPredicate && !(i.operands().get(0) instanceof Operand.Pair)) throw l.unsupported(i);
        LLVMValueRef a = op(i, 1, Type.B32), bb = op(i, 2, Type.B32), cc = op(i, 3, Type.B32);
        LLVMValueRef na = LLVMBuildNot(b(), a, ""), nb = LLVMBuildNot(b(), bb, ""), nc = LLVMBuildNot(b(), cc, "");
        LLVMValueRef r = c32(0);
        for (int m = 0; m < 8; m++) {  // minterm m = (a<<2)|(b<<1)|c: the LUT's bit m (a = 0xF0, b = 0xCC, c = 0xAA)
            if ((lut.value() >> m & 1) == 0) continue;
            LLVMValueRef t = LLVMBuildAnd(b(), (m & 4) != 0 ? a : na, (m & 2) != 0 ? bb : nb, "");
            t = LLVMBuildAnd(b(), t, (m & 1) != 0 ? cc : nc, "");
            r = LLVMBuildOr(b(), r, t, "");
        }
        if (!withPredicate) {
            out(i, r, Type.B32);
            return;
        }
        Operand.Pair pair = (Operand.Pair) i.operands().get(0);
        l.write(i, pair.first(), r, Type.B32);
        LLVMValueRef nonzero = icmp(LLVMIntNE, r, c32(0)), q = l.read(i, i.operands().get(5), Type.PRED);
        l.write(i, pair.second(), i.has(".and") ? LLVMBuildAnd(b(), nonzero, q, "") : LLVMBuildOr(b(), nonzero, q, ""), Type.PRED);
    }

    private void shf(Instruction i) {
        LLVMValueRef a = op(i, 1, Type.B32), bb = op(i, 2, Type.B32), n = op(i, 3, Type.U32);
        boolean left = i.has(".l");
        LLVMTypeRef i32 = LLVMInt32TypeInContext(l.ctx);
        LLVMValueRef r = left ? intrinsic("llvm.fshl", i32, bb, a, n) : intrinsic("llvm.fshr", i32, bb, a, n);
        if (i.has(".clamp")) r = select(icmp(LLVMIntUGE, n, c32(32)), left ? a : bb, r);
        out(i, r, Type.B32);
    }

    private void dot(Instruction i) {
        List<Type> types = new java.util.ArrayList<>();
        for (String m : i.modifiers()) if (Type.of(m) != null) types.add(Type.of(m));
        boolean sa = types.get(0).isSigned(), sb = types.get(types.size() - 1).isSigned();
        Type rt = sa || sb ? Type.S32 : Type.U32;
        LLVMValueRef a = op(i, 1, Type.B32), bb = op(i, 2, Type.B32);
        LLVMValueRef acc = op(i, 3, rt);
        StringBuilder form = new StringBuilder(i.opcode());
        if (i.opcode().equals("dp2a")) form.append(i.has(".hi") ? ".hi" : ".lo");
        for (Type t : types) form.append(t.modifier());
        LLVMValueRef own = types.size() == 2 ? l.target.ownInteger(b(), form.toString(), a, bb, acc) : null;
        if (own != null) {
            out(i, own, rt);
            return;
        }
        if (i.opcode().equals("dp4a")) {
            for (int k = 0; k < 4; k++) acc = LLVMBuildAdd(b(), acc, LLVMBuildMul(b(), part(a, 8 * k, 8, sa), part(bb, 8 * k, 8, sb), ""), "");
        } else {
            int base = i.has(".hi") ? 16 : 0;
            for (int k = 0; k < 2; k++)
                acc = LLVMBuildAdd(b(), acc, LLVMBuildMul(b(), part(a, 16 * k, 16, sa), part(bb, base + 8 * k, 8, sb), ""), "");
        }
        out(i, acc, rt);
    }

    /** Bits [at, at+width) of a 32-bit value, sign- or zero-extended to 32 bits. */
    private LLVMValueRef part(LLVMValueRef v, int at, int width, boolean signed) {
        LLVMValueRef s = LLVMBuildShl(b(), v, c32(32 - at - width), "");
        return signed ? LLVMBuildAShr(b(), s, c32(32 - width), "") : LLVMBuildLShr(b(), s, c32(32 - width), "");
    }

    private void szext(Instruction i) {
        Type t = type(i);
        LLVMValueRef a = op(i, 1, Type.B32), n = op(i, 2, Type.U32);
        LLVMValueRef bits = i.has(".clamp") ? select(icmp(LLVMIntUGT, n, c32(32)), c32(32), n) : LLVMBuildAnd(b(), n, c32(31), "");
        LLVMValueRef full = icmp(LLVMIntUGE, bits, c32(32));
        LLVMValueRef sh = LLVMBuildSub(b(), c32(32), select(full, c32(32), bits), "");
        LLVMValueRef safe = select(icmp(LLVMIntUGE, sh, c32(32)), c32(31), sh);
        LLVMValueRef up = LLVMBuildShl(b(), a, safe, "");
        LLVMValueRef r = t.isSigned() ? LLVMBuildAShr(b(), up, safe, "") : LLVMBuildLShr(b(), up, safe, "");
        r = select(full, a, select(icmp(LLVMIntEQ, bits, c32(0)), c32(0), r));
        out(i, r, Type.B32);
    }

    private void bmsk(Instruction i) {
        LLVMTypeRef i64 = LLVMInt64TypeInContext(l.ctx), i32 = LLVMInt32TypeInContext(l.ctx);
        LLVMValueRef pos = op(i, 1, Type.U32), width = op(i, 2, Type.U32);
        if (i.has(".clamp")) {
            pos = select(icmp(LLVMIntUGT, pos, c32(32)), c32(32), pos);
            width = select(icmp(LLVMIntUGT, width, c32(32)), c32(32), width);
        } else {
            pos = LLVMBuildAnd(b(), pos, c32(31), "");
            width = LLVMBuildAnd(b(), width, c32(31), "");
        }
        LLVMValueRef ones = LLVMBuildSub(b(), LLVMBuildShl(b(), c(i64, 1), LLVMBuildZExt(b(), width, i64, ""), ""), c(i64, 1), "");
        LLVMValueRef m = LLVMBuildShl(b(), ones, LLVMBuildZExt(b(), pos, i64, ""), "");
        out(i, LLVMBuildTrunc(b(), m, i32, ""), Type.B32);
    }

    private void set(Instruction i) {
        // set.CmpOp[.BoolOp].dtype.stype d, a, b[, c]: compare like setp, then all ones (integer) or 1.0f
        Type dtype = firstType(i), stype = type(i);
        String cmp = i.modifiers().get(0);
        String combine = i.modifiers().size() > 3 ? i.modifiers().get(1) : null;
        if (stype == Type.F16X2 || stype == Type.BF16X2 || stype == Type.F16 || stype == Type.BF16) {
            setHalf(i, cmp, combine, dtype, stype);
            return;
        }
        LLVMValueRef x = op(i, 1, stype), y = op(i, 2, stype);
        if (stype == Type.F32 && i.has(".ftz")) {  // subnormals compare as zeros, as in setp
            x = l.floats.flush(x, stype);
            y = l.floats.flush(y, stype);
        }
        LLVMValueRef p = combine(i, combine, compare(i, cmp, stype, x, y));
        LLVMValueRef r = dtype == Type.F32 ? select(p, LLVMConstReal(LLVMFloatTypeInContext(l.ctx), 1.0), LLVMConstReal(LLVMFloatTypeInContext(l.ctx), 0))
                : select(p, c(t(dtype), -1), c(t(dtype), 0));
        out(i, r, dtype);
    }

    /** set's BoolOp with the predicate c (the fourth operand), where the instruction has one. */
    private LLVMValueRef combine(Instruction i, String combine, LLVMValueRef p) {
        if (combine == null || i.operands().size() != 4) return p;
        LLVMValueRef q = l.read(i, i.operands().get(3), Type.PRED);
        return switch (combine) {
            case ".and" -> LLVMBuildAnd(b(), p, q, "");
            case ".or" -> LLVMBuildOr(b(), p, q, "");
            default -> LLVMBuildXor(b(), p, q, "");
        };
    }

    /**
     * set with f16/bf16 sources (one value, or two packed halves compared half by half): each result is 1.0 in the
     * destination's half format (f16 0x3c00, bf16 0x3f80), or all ones of an integer destination (0xffff per half of a
     * packed comparison), else 0. Halves are compared exactly in f32 (.ftz flushes the half format's subnormals).
     */
    private void setHalf(Instruction i, String cmp, String combine, Type dtype, Type stype) {
        boolean packed = stype == Type.F16X2 || stype == Type.BF16X2;
        Type lane = stype == Type.F16X2 || stype == Type.F16 ? Type.F16 : Type.BF16;
        LLVMTypeRef i16 = LLVMInt16TypeInContext(l.ctx), i32 = LLVMInt32TypeInContext(l.ctx), f32 = LLVMFloatTypeInContext(l.ctx);
        LLVMValueRef[] t = new LLVMValueRef[packed ? 2 : 1];
        LLVMValueRef[][] v = new LLVMValueRef[2][t.length];
        for (int k = 0; k < 2; k++) {
            LLVMValueRef bits = packed ? op(i, k + 1, Type.B32) : op(i, k + 1, Type.B16);
            for (int h = 0; h < t.length; h++) {
                LLVMValueRef half = packed ? LLVMBuildTrunc(b(), h == 0 ? bits : LLVMBuildLShr(b(), bits, c32(16), ""), i16, "") : bits;
                LLVMValueRef x = LLVMBuildFPExt(b(), LLVMBuildBitCast(b(), half, t(lane), ""), f32, "");  // exact
                v[k][h] = i.has(".ftz") ? l.floats.flushHalf(x, lane) : x;
            }
        }
        for (int h = 0; h < t.length; h++) t[h] = combine(i, combine, compare(i, cmp, Type.F32, v[0][h], v[1][h]));
        boolean halfResult = dtype == Type.F16 || dtype == Type.BF16 || dtype == Type.F16X2 || dtype == Type.BF16X2;
        if (!halfResult && (dtype.isFloat() || dtype == Type.PRED) || !packed && (dtype == Type.F16X2 || dtype == Type.BF16X2)) throw l.unsupported(i);
        long one = !halfResult ? 0xffff : dtype == Type.F16 || dtype == Type.F16X2 ? 0x3c00 : 0x3f80;
        if (packed) {
            LLVMValueRef lo = select(t[0], c32(one), c32(0)), hi = select(t[1], c32(one << 16), c32(0));
            out(i, LLVMBuildOr(b(), lo, hi, ""), Type.B32);
        } else if (halfResult) {
            out(i, select(t[0], c(i16, one), c(i16, 0)), Type.B16);
        } else {
            out(i, select(t[0], c(t(dtype), -1), c(t(dtype), 0)), dtype);
        }
    }

    /** Integer and float comparisons of setp/set. */
    LLVMValueRef compare(Instruction i, String cmp, Type t, LLVMValueRef x, LLVMValueRef y) {
        if (t.isFloat()) {
            int pred = switch (cmp) {
                case ".eq" -> LLVMRealOEQ;
                case ".ne" -> LLVMRealONE;
                case ".lt" -> LLVMRealOLT;
                case ".le" -> LLVMRealOLE;
                case ".gt" -> LLVMRealOGT;
                case ".ge" -> LLVMRealOGE;
                case ".equ" -> LLVMRealUEQ;
                case ".neu" -> LLVMRealUNE;
                case ".ltu" -> LLVMRealULT;
                case ".leu" -> LLVMRealULE;
                case ".gtu" -> LLVMRealUGT;
                case ".geu" -> LLVMRealUGE;
                case ".num" -> LLVMRealORD;
                case ".nan" -> LLVMRealUNO;
                default -> throw l.unsupported(i);
            };
            return LLVMBuildFCmp(b(), pred, x, y, "");
        }
        boolean s = t.isSigned();
        int pred = switch (cmp) {
            case ".eq" -> LLVMIntEQ;
            case ".ne" -> LLVMIntNE;
            case ".lt" -> s ? LLVMIntSLT : LLVMIntULT;
            case ".le" -> s ? LLVMIntSLE : LLVMIntULE;
            case ".gt" -> s ? LLVMIntSGT : LLVMIntUGT;
            case ".ge" -> s ? LLVMIntSGE : LLVMIntUGE;
            case ".lo" -> LLVMIntULT;
            case ".ls" -> LLVMIntULE;
            case ".hi" -> LLVMIntUGT;
            case ".hs" -> LLVMIntUGE;
            default -> throw l.unsupported(i);
        };
        return icmp(pred, x, y);
    }

    /**
     * fns.b32 d, mask, base, offset: the position of the offset-th set bit of mask counted from bit base (included)
     * towards bit 31 (offset > 0) or bit 0 (offset < 0); offset 0: base itself if its bit is set; 0xffffffff when
     * there is none or base is outside 0..31 (the ISA's loop over pos = base, base + inc, ... while 0 <= pos < 32);
     * offset INT_MIN gives 0, whatever mask and base (NVIDIA's H100 at JIT -O0 and its default, from a register or an
     * immediate; every other offset, INT_MIN + 1 and INT_MAX included, follows the loop: ptx-test fns_b32).
     * Without the loop: the bits on the searched side of base, and the k-th lowest of them found by halving (five
     * population counts), k = offset, or popcount - |offset| + 1 searching down.
     */
    private void fns(Instruction i) {
        LLVMTypeRef i32 = LLVMInt32TypeInContext(l.ctx), i64 = LLVMInt64TypeInContext(l.ctx);
        LLVMValueRef mask = op(i, 1, Type.B32), base = op(i, 2, Type.B32), offset = op(i, 3, Type.S32);
        LLVMValueRef inRange = icmp(LLVMIntULT, base, c32(32));
        LLVMValueRef sh = LLVMBuildAnd(b(), base, c32(31), "");
        LLVMValueRef up = LLVMBuildAnd(b(), mask, LLVMBuildShl(b(), c32(0xffffffffL), sh, ""), "");        // bits base..31
        LLVMValueRef down = LLVMBuildAnd(b(), mask, LLVMBuildLShr(b(), c32(0xffffffffL), LLVMBuildSub(b(), c32(31), sh, ""), ""), "");  // 0..base
        LLVMValueRef forward = icmp(LLVMIntSGT, offset, c32(0));
        LLVMValueRef m = select(forward, up, down);
        LLVMValueRef count = LLVMBuildZExt(b(), intrinsic("llvm.ctpop", i32, m), i64, "");
        // |offset| in 64 bits (INT_MIN's magnitude too); the rank from the low end, 1-based
        LLVMValueRef off64 = LLVMBuildSExt(b(), offset, i64, "");
        LLVMValueRef mag = select(forward, off64, LLVMBuildNeg(b(), off64, ""));
        LLVMValueRef found = LLVMBuildAnd(b(), inRange, icmp(LLVMIntULE, mag, count), "");
        LLVMValueRef rank = LLVMBuildTrunc(b(), select(forward, mag, LLVMBuildAdd(b(), LLVMBuildSub(b(), count, mag, ""),
                LLVMConstInt(i64, 1, 0), "")), i32, "");
        LLVMValueRef pos = c32(0);
        for (int w = 16; w >= 1; w /= 2) {
            LLVMValueRef part = LLVMBuildAnd(b(), LLVMBuildLShr(b(), m, pos, ""), c32((1L << w) - 1), "");
            LLVMValueRef n = intrinsic("llvm.ctpop", i32, part);
            LLVMValueRef beyond = icmp(LLVMIntUGT, rank, n);
            rank = select(beyond, LLVMBuildSub(b(), rank, n, ""), rank);
            pos = select(beyond, LLVMBuildAdd(b(), pos, c32(w), ""), pos);
        }
        LLVMValueRef atBase = LLVMBuildAnd(b(), inRange, LLVMBuildTrunc(b(), LLVMBuildLShr(b(), mask, sh, ""), LLVMInt1TypeInContext(l.ctx), ""), "");
        LLVMValueRef zero = icmp(LLVMIntEQ, offset, c32(0));
        LLVMValueRef r = select(zero, select(atBase, base, c32(0xffffffffL)), select(found, pos, c32(0xffffffffL)));
        r = select(icmp(LLVMIntEQ, offset, c32(0x80000000L)), c32(0), r);
        out(i, r, Type.B32);
    }

    /**
     * slct: a where c >= 0, else b; with .ftz a subnormal f32 c counts as zero (without it, a negative subnormal selects
     * b: NVIDIA's H100 at JIT -O0 and its default, ptx-test forms_more).
     */
    private void slct(Instruction i) {
        Type dt = firstType(i), ct = type(i);
        LLVMValueRef cc = op(i, 3, ct);
        if (ct == Type.F32 && i.has(".ftz")) cc = l.floats.flush(cc, ct);
        LLVMValueRef ge = ct.isFloat() ? LLVMBuildFCmp(b(), LLVMRealOGE, cc, LLVMConstReal(t(ct), 0), "")
                : icmp(LLVMIntSGE, cc, c(t(ct), 0));
        out(i, select(ge, op(i, 1, dt), op(i, 2, dt)), dt);
    }
}
