package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.FloatOps.Round;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;

/**
 * PTX cvt, and the floating-point format changes everything else uses. Narrowing between IEEE-style formats is one
 * routine in integer IR (any exponent and mantissa widths, every rounding mode, saturation to finite), so f16,
 * bf16, tf32 and the fp8 formats need no library calls on any target and round exactly as NVIDIA does.
 */
final class Conversions {
    /** A binary floating-point format: exponent and stored-mantissa widths; fp8 e4m3 has no infinity. */
    record Format(int exp, int mant, boolean hasInf) {
        int width() {
            return 1 + exp + mant;
        }

        int bias() {
            return (1 << (exp - 1)) - 1;
        }
    }

    static final Format F16 = new Format(5, 10, true), BF16 = new Format(8, 7, true), F32 = new Format(8, 23, true),
            F64 = new Format(11, 52, true), TF32 = new Format(8, 10, true), E4M3 = new Format(4, 3, false),
            E5M2 = new Format(5, 2, true);

    private final Lowering l;
    private final FloatOps floats;

    Conversions(Lowering l, FloatOps floats) {
        this.l = l;
        this.floats = floats;
    }

    private LLVMBuilderRef b() {
        return l.b;
    }

    private LLVMTypeRef i(int bits) {
        return LLVMIntTypeInContext(l.ctx, bits);
    }

    private LLVMValueRef c64(long v) {
        return LLVMConstInt(i(64), v, 0);
    }

    private LLVMValueRef sel(LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildSelect(b(), c, a, b, "");
    }

    private LLVMValueRef eq(LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildICmp(b(), LLVMIntEQ, a, b, "");
    }

    private LLVMValueRef and(LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildAnd(b(), a, b, "");
    }

    private LLVMValueRef or(LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildOr(b(), a, b, "");
    }

    private LLVMValueRef add(LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildAdd(b(), a, b, "");
    }

    private LLVMValueRef shl(LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildShl(b(), a, b, "");
    }

    private LLVMValueRef lshr(LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildLShr(b(), a, b, "");
    }

    /**
     * Narrows {@code bits} (an integer of {@code from.width()} bits, zero-extended to i64 allowed) from one format to a
     * smaller one. NaN becomes {@code nan} (the destination's canonical NaN bits). Returns the destination bits in i64.
     */
    LLVMValueRef narrow(LLVMValueRef bits, Format from, Format to, Round rnd, boolean ties, boolean satfinite, long nan) {
        LLVMValueRef x = LLVMGetIntTypeWidth(LLVMTypeOf(bits)) < 64 ? LLVMBuildZExt(b(), bits, i(64), "") : bits;
        LLVMValueRef sign = and(lshr(x, c64(from.width() - 1)), c64(1));
        LLVMValueRef exp = and(lshr(x, c64(from.mant())), c64((1L << from.exp()) - 1));
        LLVMValueRef mant = and(x, c64((1L << from.mant()) - 1));
        LLVMValueRef maxExp = c64((1L << from.exp()) - 1);
        LLVMValueRef special = eq(exp, maxExp);
        LLVMValueRef isNaN = and(special, LLVMBuildICmp(b(), LLVMIntNE, mant, c64(0), ""));
        LLVMValueRef zeroExp = eq(exp, c64(0));
        LLVMValueRef full = sel(zeroExp, mant, or(mant, c64(1L << from.mant())));
        // unbiased exponent of full's bit `from.mant`, rebased for the destination
        LLVMValueRef e = LLVMBuildSub(b(), sel(zeroExp, c64(1), exp), c64(from.bias()), "");
        LLVMValueRef de = add(e, c64(to.bias()));
        LLVMValueRef normal = LLVMBuildICmp(b(), LLVMIntSGE, de, c64(1), "");
        LLVMValueRef shift = sel(normal, c64(from.mant() - to.mant()), add(c64(from.mant() - to.mant() + 1), LLVMBuildNeg(b(), de, "")));
        shift = sel(LLVMBuildICmp(b(), LLVMIntSGT, shift, c64(62), ""), c64(62), shift);
        LLVMValueRef q = lshr(full, shift);
        LLVMValueRef rem = and(full, LLVMBuildSub(b(), shl(c64(1), shift), c64(1), ""));
        LLVMValueRef half = shl(c64(1), LLVMBuildSub(b(), shift, c64(1), ""));
        LLVMValueRef inexact = LLVMBuildICmp(b(), LLVMIntNE, rem, c64(0), "");
        LLVMValueRef neg = eq(sign, c64(1));
        LLVMValueRef up = switch (rnd) {
            case RN -> ties ? LLVMBuildICmp(b(), LLVMIntUGE, rem, half, "")
                    : or(LLVMBuildICmp(b(), LLVMIntUGT, rem, half, ""), and(eq(rem, half), eq(and(q, c64(1)), c64(1))));
            case RZ -> LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 0, 0);
            case RP -> and(inexact, LLVMBuildNot(b(), neg, ""));
            case RM -> and(inexact, neg);
        };
        q = add(q, LLVMBuildZExt(b(), up, i(64), ""));
        LLVMValueRef mag = sel(normal, add(shl(LLVMBuildSub(b(), de, c64(1), ""), c64(to.mant())), q), q);
        // overflow and saturation
        long maxFinite = to.hasInf() ? (((1L << to.exp()) - 2) << to.mant()) | ((1L << to.mant()) - 1) : (1L << (to.exp() + to.mant())) - 2;
        long inf = to.hasInf() ? ((1L << to.exp()) - 1) << to.mant() : maxFinite;
        LLVMValueRef over = LLVMBuildICmp(b(), LLVMIntUGT, mag, c64(maxFinite), "");
        LLVMValueRef overflowValue = switch (rnd) {
            case RN -> c64(satfinite || !to.hasInf() ? maxFinite : inf);
            case RZ -> c64(maxFinite);
            case RP -> sel(neg, c64(maxFinite), c64(satfinite ? maxFinite : inf));
            case RM -> sel(neg, c64(satfinite ? maxFinite : inf), c64(maxFinite));
        };
        mag = sel(over, overflowValue, mag);
        LLVMValueRef infValue = c64(satfinite || !to.hasInf() ? maxFinite : inf);
        mag = sel(special, infValue, mag);
        LLVMValueRef result = or(shl(sign, c64(to.width() - 1)), mag);
        return sel(isNaN, c64(nan), result);
    }

    /** Widens {@code bits} exactly from a smaller format; NaN becomes {@code nan}. Returns destination bits in i64. */
    LLVMValueRef widen(LLVMValueRef bits, Format from, Format to, long nan) {
        LLVMValueRef x = LLVMGetIntTypeWidth(LLVMTypeOf(bits)) < 64 ? LLVMBuildZExt(b(), bits, i(64), "") : bits;
        LLVMValueRef sign = and(lshr(x, c64(from.width() - 1)), c64(1));
        LLVMValueRef exp = and(lshr(x, c64(from.mant())), c64((1L << from.exp()) - 1));
        LLVMValueRef mant = and(x, c64((1L << from.mant()) - 1));
        LLVMValueRef special = eq(exp, c64((1L << from.exp()) - 1));
        LLVMValueRef isNaN = and(special, LLVMBuildICmp(b(), LLVMIntNE, mant, c64(0), ""));
        if (!from.hasInf()) {  // e4m3: the all-ones exponent holds normal numbers; only S.1111.111 is NaN
            isNaN = and(special, eq(mant, c64((1L << from.mant()) - 1)));
            special = isNaN;
        }
        // subnormal: normalize the mantissa
        LLVMValueRef lz = Ll.intrinsic(l.module, b(), "llvm.ctlz", new LLVMTypeRef[] {i(64)}, mant, LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 0, 0));
        LLVMValueRef norm = LLVMBuildSub(b(), lz, c64(64 - from.mant() - 1), "");  // shift bringing the top bit to `from.mant`
        LLVMValueRef subMant = and(shl(mant, norm), c64((1L << from.mant()) - 1));
        LLVMValueRef subExp = LLVMBuildSub(b(), c64(1), norm, "");
        LLVMValueRef zeroExp = eq(exp, c64(0));
        LLVMValueRef isZero = and(zeroExp, eq(mant, c64(0)));
        LLVMValueRef m = sel(zeroExp, subMant, mant);
        LLVMValueRef e = sel(zeroExp, subExp, exp);
        LLVMValueRef de = add(e, c64(to.bias() - from.bias()));
        LLVMValueRef mag = or(shl(de, c64(to.mant())), shl(m, c64(to.mant() - from.mant())));
        mag = sel(isZero, c64(0), mag);
        if (to.bias() == from.bias()) {  // same exponent range (bf16 to f32): subnormals stay subnormal
            mag = sel(zeroExp, shl(mant, c64(to.mant() - from.mant())), mag);
        }
        mag = sel(special, c64(((1L << to.exp()) - 1) << to.mant()), mag);
        LLVMValueRef result = or(shl(sign, c64(to.width() - 1)), mag);
        return sel(isNaN, c64(nan), result);
    }

    static Format format(Type t) {
        return switch (t) {
            case F16, F16X2 -> F16;
            case BF16, BF16X2 -> BF16;
            case F32 -> F32;
            case F64 -> F64;
            case TF32 -> TF32;
            case E4M3X2 -> E4M3;
            case E5M2X2 -> E5M2;
            default -> null;
        };
    }

    static long canonicalNaN(Format f) {
        if (f == F64) return 0x7fffffffffffffffL;
        if (f == E4M3) return 0x7f;
        if (f == E5M2) return 0x7f;
        return (1L << (f.width() - 1)) - 1;
    }

    /** Floating value of a scalar float type as its bit pattern (i64). */
    private LLVMValueRef toBits(LLVMValueRef v, Type t) {
        return LLVMBuildZExt(b(), LLVMBuildBitCast(b(), v, i(t.bits()), ""), i(64), "");
    }

    private LLVMValueRef fromBits(LLVMValueRef bits64, Type t) {
        LLVMValueRef n = LLVMBuildTrunc(b(), bits64, i(t.bits()), "");
        return t.isFloat() ? LLVMBuildBitCast(b(), n, l.llvmType(t), "") : n;
    }

    /** Any float to any float: widening exact, narrowing with rounding. */
    LLVMValueRef convertFloat(LLVMValueRef v, Type from, Type to, Round rnd, boolean ties, boolean satfinite) {
        Format ff = format(from), tf = format(to);
        if (ff == tf) return v;
        LLVMValueRef fast = fastConvert(v, from, ff, to, tf, rnd, ties, satfinite);
        if (fast != null) return fast;
        return exactConvert(v, from, to, rnd, ties, satfinite);
    }

    /**
     * The conversions every half-precision kernel is made of, as a few instructions the targets have (the integer
     * routine costs ~50 instructions each, and ggml's attention kernels hold thousands): f16 and bf16 widened exactly
     * (fpext; bf16 is f32's top half), f32 to f16 rounded to nearest even (fptrunc) and f32 to bf16 (integer rounding
     * of the top half); a NaN becomes the destination's canonical NaN as in {@link #exactConvert}, except bf16 to f32,
     * where NVIDIA keeps it. On NVPTX the target's own cvt in inline PTX, which gives NVIDIA's NaN by itself: no test
     * and select after each (376 of them in one of ggml's f16 attention kernels); not LLVM's fpext/fptrunc, which LLVM
     * moves across a negation (its NaN signs are unspecified: NVIDIA's 7fff became ffff, corpus kernel fuzz_1_00181).
     * Null for the rest.
     */
    private LLVMValueRef fastConvert(LLVMValueRef v, Type from, Format ff, Type to, Format tf, Round rnd, boolean ties, boolean satfinite) {
        LLVMTypeRef i32 = i(32), i16 = i(16);
        if (ff == F16 && (tf == F32 || tf == F64)) {
            LLVMValueRef own = l.target.ownConvert(b(), "cvt" + to.modifier() + ".f16", l.llvmType(to), LLVMBuildBitCast(b(), v, i16, ""));
            if (own != null) return own;
            return canonicalIfNaN(v, LLVMBuildFPExt(b(), v, l.llvmType(to), ""), to, tf);
        }
        if (ff == BF16 && (tf == F32 || tf == F64)) {
            LLVMValueRef bits = LLVMBuildZExt(b(), LLVMBuildBitCast(b(), v, i16, ""), i32, "");
            LLVMValueRef f = LLVMBuildBitCast(b(), LLVMBuildShl(b(), bits, LLVMConstInt(i32, 16, 0), ""), LLVMFloatTypeInContext(l.ctx), "");
            // NVIDIA (H100, ptx-test cvt_f32_bf16): to f32 a NaN keeps its sign and payload (the shift itself)
            if (tf == F32) return f;
            return canonicalIfNaN(f, LLVMBuildFPExt(b(), f, l.llvmType(to), ""), to, tf);
        }
        boolean nearestEven = rnd == Round.RN && !ties && !satfinite;
        if (ff == F32 && tf == F16 && nearestEven) {
            LLVMValueRef own = l.target.ownConvert(b(), "cvt.rn.f16.f32", i16, v);
            if (own != null) return LLVMBuildBitCast(b(), own, l.llvmType(to), "");
            return canonicalIfNaN(v, LLVMBuildFPTrunc(b(), v, l.llvmType(to), ""), to, tf);
        }
        if (ff == F32 && tf == BF16 && nearestEven) {
            // bits + 0x7fff + (bit 16): ties to even; overflow carries into the exponent and gives infinity
            LLVMValueRef bits = LLVMBuildBitCast(b(), v, i32, "");
            LLVMValueRef lsb = LLVMBuildAnd(b(), LLVMBuildLShr(b(), bits, LLVMConstInt(i32, 16, 0), ""), LLVMConstInt(i32, 1, 0), "");
            LLVMValueRef rounded = LLVMBuildAdd(b(), LLVMBuildAdd(b(), bits, LLVMConstInt(i32, 0x7fff, 0), ""), lsb, "");
            LLVMValueRef top = LLVMBuildTrunc(b(), LLVMBuildLShr(b(), rounded, LLVMConstInt(i32, 16, 0), ""), i16, "");
            return canonicalIfNaN(v, LLVMBuildBitCast(b(), top, l.llvmType(to), ""), to, tf);
        }
        return null;
    }

    /** {@code r}, or the canonical NaN of {@code to} where the source {@code v} is a NaN. */
    private LLVMValueRef canonicalIfNaN(LLVMValueRef v, LLVMValueRef r, Type to, Format tf) {
        LLVMTypeRef it = i(tf.width());
        LLVMValueRef nan = LLVMBuildFCmp(b(), LLVMRealUNO, v, v, "");
        LLVMValueRef bits = sel(nan, LLVMConstInt(it, canonicalNaN(tf), 0), LLVMBuildBitCast(b(), r, it, ""));
        return LLVMBuildBitCast(b(), bits, l.llvmType(to), "");
    }

    /** Every conversion by the integer routines ({@link #narrow}, {@link #widen}). */
    private LLVMValueRef exactConvert(LLVMValueRef v, Type from, Type to, Round rnd, boolean ties, boolean satfinite) {
        Format ff = format(from), tf = format(to);
        if (ff == tf) return v;
        if (ff.width() < tf.width() || ff == BF16 && tf == F16) {
            if (ff == BF16 && tf == F16) {  // via f32
                LLVMValueRef f32 = widen(toBits(v, from), BF16, F32, canonicalNaN(F32));
                return fromBits(narrow(f32, F32, F16, rnd, ties, satfinite, canonicalNaN(F16)), to);
            }
            if (ff == F32 && tf == F64) return LLVMBuildFPExt(b(), v, l.llvmType(to), "");
            return fromBits(widen(toBits(v, from), ff, tf, canonicalNaN(tf)), to);
        }
        LLVMValueRef bits = toBits(v, from), r = narrow(bits, ff, tf, rnd, ties, satfinite, canonicalNaN(tf));
        if (ff == F64 && (tf == F16 || tf == BF16)) {
            // NVIDIA (H200): an f64 NaN becomes the half format's default quiet NaN with the source's sign (f16 0x7e00,
            // bf16 0x7fc0), not the 0x7fff that f32 sources give
            LLVMValueRef signedNaN = or(and(lshr(bits, c64(48)), c64(0x8000)), c64(tf == F16 ? 0x7e00 : 0x7fc0));
            r = sel(LLVMBuildFCmp(b(), LLVMRealUNO, v, v, ""), signedNaN, r);
        }
        if (ff == F64 && tf == F32) {
            // NVIDIA (H100, forms_ptx.py): an f64 NaN keeps its sign and the top of its payload, quieted, in every
            // rounding, .ftz or not (0x7ff8000000000000 -> 0x7fc00000)
            LLVMValueRef keep = or(and(lshr(bits, c64(32)), c64(0x80000000L)), or(c64(0x7fc00000L), and(lshr(bits, c64(29)), c64(0x7fffff))));
            r = sel(LLVMBuildFCmp(b(), LLVMRealUNO, v, v, ""), keep, r);
        }
        return fromBits(r, to);
    }

    // ------------------------------------------------------------------------------------------------ cvt

    void cvt(Instruction ins) {
        if (ins.has(".pack")) {
            packIntegers(ins);
            return;
        }
        List<Type> types = new ArrayList<>();
        for (String m : ins.modifiers()) {
            Type t = Type.of(m);
            if (t != null) types.add(t);
        }
        if (types.size() != 2) throw l.unsupported(ins);
        Type to = types.get(0), from = types.get(1);
        Round rnd = FloatOps.rounding(ins);
        boolean ties = ins.has(".rna");
        boolean sat = ins.has(".sat"), satfinite = ins.has(".satfinite"), relu = ins.has(".relu"), ftz = ins.has(".ftz");
        // packed destinations from two f32 sources: d = {cvt(a) in the upper half, cvt(b) in the lower}
        if ((to == Type.F16X2 || to == Type.BF16X2) && from == Type.F32 || to == Type.E4M3X2 || to == Type.E5M2X2) {
            packed(ins, to, from, rnd, relu, satfinite);
            return;
        }
        if (to == Type.F16X2 && from == Type.E4M3X2 || to == Type.F16X2 && from == Type.E5M2X2) {
            unpackFp8(ins, from);
            return;
        }
        LLVMValueRef x = l.read(ins, ins.operands().get(1), from);
        LLVMValueRef r;
        // f32/f64 to an integer: the target's own conversion where it has PTX's (NVPTX: the cvt itself; the generic
        // lowering adds a NaN test and a select to LLVM's saturating conversion)
        boolean integral = ins.has(".rni") || ins.has(".rzi") || ins.has(".rmi") || ins.has(".rpi");  // PTX requires one
        if ((from == Type.F32 || from == Type.F64) && integral && !to.isFloat() && to.bits() >= 16
                && (to.isSigned() || to.kind() == Type.Kind.UNSIGNED)) {
            StringBuilder form = new StringBuilder("cvt");
            for (String m : List.of(".rni", ".rzi", ".rmi", ".rpi", ".ftz", ".sat")) if (ins.has(m)) form.append(m);
            LLVMValueRef own = l.target.ownConvert(b(), form + to.modifier() + from.modifier(), l.llvmType(to), x);
            if (own != null) {
                l.write(ins, ins.operands().get(0), own, to);
                return;
            }
        }
        if (from.isFloat() && ftz && from == Type.F32) x = floats.flush(x, from);
        // cvt.ftz.f64.f32 also makes a NaN canonical before widening (0x7fffffffe0000000 on NVIDIA's sm_90)
        if (ftz && from == Type.F32 && to == Type.F64) x = floats.canonical(x, from);
        if (!from.isFloat() && !to.isFloat()) {
            r = intToInt(x, from, to, sat);
        } else if (from.isFloat() && to.isFloat()) {
            // .relu to a 16-bit float on the f32 source (as for the packed forms): negative values and -0 to +0 before
            // rounding gives the same bits, and LLVM's NVPTX back end cannot select a select on bf16 (it aborts)
            boolean early = relu && from == Type.F32 && (to == Type.F16 || to == Type.BF16);
            if (early) x = relu(x);
            if (to == from) {
                r = roundIntegral(ins, x, from);
            } else {
                r = convertFloat(x, from, to, rnd, ties, satfinite);
            }
            if (to == Type.TF32 && from == Type.F32) r = convertTf32(x, rnd, ties);
            if (ftz && to == Type.F32) r = floats.flush(r, to);
            if (sat && to.isFloat() && to != Type.TF32) r = floats.saturate(r, to);
            if (relu && !early) r = LLVMBuildSelect(b(), LLVMBuildFCmp(b(), LLVMRealOLE, r, LLVMConstReal(l.llvmType(to), 0), ""), LLVMConstReal(l.llvmType(to), 0), r, "");  // -0 -> +0 too
        } else if (from.isFloat()) {
            r = floatToInt(ins, x, from, to);
        } else {
            r = intToFloat(x, from, to, rnd);
        }
        l.write(ins, ins.operands().get(0), r, to);
    }

    private LLVMValueRef convertTf32(LLVMValueRef x, Round rnd, boolean ties) {
        // tf32 keeps f32's layout with the low 13 mantissa bits cleared
        LLVMValueRef bits = LLVMBuildBitCast(b(), x, i(32), "");
        if (ties) {
            // .rna as NVIDIA computes it, for every input: add half a tf32 ulp to the bits and truncate. NaN payloads
            // are truncated too (0x7f80003d becomes infinity), and the largest finite values round to infinity.
            LLVMValueRef r = LLVMBuildAnd(b(), LLVMBuildAdd(b(), bits, LLVMConstInt(i(32), 0x1000, 0), ""),
                    LLVMConstInt(i(32), 0xffffe000L, 0), "");
            return LLVMBuildBitCast(b(), r, LLVMFloatTypeInContext(l.ctx), "");
        }
        LLVMValueRef n = narrow(LLVMBuildZExt(b(), bits, i(64), ""), F32, TF32, rnd, ties, false, 0x7fffffffL);
        LLVMValueRef sign = and(n, c64(0x80000));
        LLVMValueRef mag = and(n, c64(0x7ffff));
        LLVMValueRef out = or(shl(sign, c64(12)), shl(mag, c64(13)));
        LLVMValueRef nan = LLVMBuildFCmp(b(), LLVMRealUNO, x, x, "");
        out = sel(nan, c64(0x7fffffffL), out);
        return LLVMBuildBitCast(b(), LLVMBuildTrunc(b(), out, i(32), ""), LLVMFloatTypeInContext(l.ctx), "");
    }

    /**
     * cvt.pack.sat.{u16,s16,u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b{, c}: a and b saturated to the narrow type, b in the
     * lowest bits of d, a above it, and (the 8/4/2-bit forms) the rest of d from the low bits of c.
     */
    private void packIntegers(Instruction ins) {
        int bits = 0;
        boolean signed = false;
        for (String m : ins.modifiers()) {
            switch (m) {
                case ".u16", ".s16" -> bits = 16;
                case ".u8", ".s8" -> bits = 8;
                case ".u4", ".s4" -> bits = 4;
                case ".u2", ".s2" -> bits = 2;
                default -> { continue; }
            }
            signed = m.startsWith(".s");
            break;
        }
        if (bits == 0 || !ins.has(".sat") || ins.operands().size() != (bits == 16 ? 3 : 4)) throw l.unsupported(ins);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(l.ctx);
        long lo = signed ? -(1L << (bits - 1)) : 0, hi = signed ? (1L << (bits - 1)) - 1 : (1L << bits) - 1;
        LLVMValueRef mask = LLVMConstInt(i32, (1L << bits) - 1, 0);
        LLVMValueRef[] v = new LLVMValueRef[2];
        for (int k = 0; k < 2; k++) {
            LLVMValueRef x = l.read(ins, ins.operands().get(k + 1), Type.S32);
            LLVMValueRef min = LLVMConstInt(i32, lo, 1), max = LLVMConstInt(i32, hi, 0);
            x = LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSLT, x, min, ""), min, x, "");
            x = LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSGT, x, max, ""), max, x, "");
            v[k] = LLVMBuildAnd(b(), x, mask, "");
        }
        LLVMValueRef d = LLVMBuildOr(b(), LLVMBuildShl(b(), v[0], LLVMConstInt(i32, bits, 0), ""), v[1], "");
        if (bits < 16) {
            LLVMValueRef c = l.read(ins, ins.operands().get(3), Type.B32);
            d = LLVMBuildOr(b(), d, LLVMBuildShl(b(), c, LLVMConstInt(i32, 2L * bits, 0), ""), "");
        }
        l.write(ins, ins.operands().get(0), d, Type.B32);
    }

    private void packed(Instruction ins, Type to, Type from, Round rnd, boolean relu, boolean satfinite) {
        Format tf = format(to);
        int lane = tf.width();
        LLVMValueRef hi = l.read(ins, ins.operands().get(1), Type.F32), lo = l.read(ins, ins.operands().get(2), Type.F32);
        if ((to == Type.F16X2 || to == Type.BF16X2) && (rnd == Round.RN || rnd == Round.RZ)) {
            String form = "cvt." + rnd.name().toLowerCase(java.util.Locale.ROOT) + (relu ? ".relu" : "") + (satfinite ? ".satfinite" : "")
                    + to.modifier() + ".f32";
            LLVMValueRef own = l.target.ownConvert(b(), form, i(32), hi, lo);
            if (own != null) {
                l.write(ins, ins.operands().get(0), own, Type.B32);
                return;
            }
        }
        if (relu) {
            hi = relu(hi);
            lo = relu(lo);
        }
        LLVMValueRef h = narrow(toBits(hi, Type.F32), F32, tf, rnd, false, satfinite, canonicalNaN(tf));
        LLVMValueRef w = narrow(toBits(lo, Type.F32), F32, tf, rnd, false, satfinite, canonicalNaN(tf));
        LLVMValueRef v = or(shl(h, c64(lane)), w);
        Type outType = lane * 2 == 16 ? Type.B16 : Type.B32;
        l.write(ins, ins.operands().get(0), LLVMBuildTrunc(b(), v, i(lane * 2), ""), outType);
    }

    private LLVMValueRef relu(LLVMValueRef f32) {
        LLVMValueRef zero = LLVMConstReal(LLVMFloatTypeInContext(l.ctx), 0);
        return LLVMBuildSelect(b(), LLVMBuildFCmp(b(), LLVMRealOLE, f32, zero, ""), zero, f32, "");  // -0 -> +0 too
    }

    private void unpackFp8(Instruction ins, Type from) {
        Format ff = format(from);
        LLVMValueRef x = LLVMBuildZExt(b(), l.read(ins, ins.operands().get(1), Type.B16), i(64), "");
        LLVMValueRef lo = widen8(and(x, c64(0xff)), ff), hi = widen8(and(lshr(x, c64(8)), c64(0xff)), ff);
        LLVMValueRef v = or(shl(hi, c64(16)), lo);
        l.write(ins, ins.operands().get(0), LLVMBuildTrunc(b(), v, i(32), ""), Type.B32);
    }

    /** fp8 to f16 (exact); e4m3's NaN is S.1111.111. */
    private LLVMValueRef widen8(LLVMValueRef b8, Format ff) {
        return widen(b8, ff, F16, 0x7fff);
    }

    private LLVMValueRef roundIntegral(Instruction ins, LLVMValueRef x, Type t) {
        String f = ins.has(".rni") ? "llvm.roundeven" : ins.has(".rzi") ? "llvm.trunc" : ins.has(".rmi") ? "llvm.floor"
                : ins.has(".rpi") ? "llvm.ceil" : null;
        if (f != null && (t == Type.F32 || t == Type.F64)) {  // NVPTX: NVIDIA's cvt.rXi itself, its NaN included
            String rounding = ins.has(".rni") ? ".rni" : ins.has(".rzi") ? ".rzi" : ins.has(".rmi") ? ".rmi" : ".rpi";
            LLVMValueRef own = l.target.ownConvert(b(), "cvt" + rounding + t.modifier() + t.modifier(), l.llvmType(t), x);
            if (own != null) return own;
        }
        LLVMValueRef r = f == null ? x : Ll.intrinsic(l.module, b(), f, new LLVMTypeRef[] {l.llvmType(t)}, x);
        return t == Type.F64 ? r : floats.canonical(r, t);
    }

    private LLVMValueRef intToInt(LLVMValueRef x, Type from, Type to, boolean sat) {
        LLVMTypeRef wide = i(Math.max(from.bits(), to.bits()) + 1);
        LLVMValueRef w = from.isSigned() ? LLVMBuildSExt(b(), x, wide, "") : LLVMBuildZExt(b(), x, wide, "");
        if (sat && (to.isSigned() || to.kind() == Type.Kind.UNSIGNED)) {
            long lo = to.isSigned() ? -(1L << (to.bits() - 1)) : 0;
            LLVMValueRef min = LLVMConstInt(wide, lo, 1);
            LLVMValueRef max = to.bits() == 64 && !to.isSigned() ? LLVMConstAllOnes(i(64)) : null;
            LLVMValueRef maxW = to.bits() == 64 ? (to.isSigned() ? LLVMConstInt(wide, Long.MAX_VALUE, 0) : LLVMBuildZExt(b(), max, wide, ""))
                    : LLVMConstInt(wide, to.isSigned() ? (1L << (to.bits() - 1)) - 1 : (1L << to.bits()) - 1, 0);
            w = sel(LLVMBuildICmp(b(), LLVMIntSLT, w, min, ""), min, w);
            w = sel(LLVMBuildICmp(b(), LLVMIntSGT, w, maxW, ""), maxW, w);
        }
        return LLVMBuildTrunc(b(), w, l.llvmType(to), "");
    }

    private LLVMValueRef floatToInt(Instruction ins, LLVMValueRef x, Type from, Type to) {
        if (from == Type.F16 || from == Type.BF16) {
            x = convertFloat(x, from, Type.F32, Round.RN, false, false);
            from = Type.F32;
        }
        LLVMValueRef r = roundIntegral(ins, x, from);
        LLVMTypeRef lt = l.llvmType(to);
        LLVMValueRef v = Ll.intrinsic(l.module, b(), to.isSigned() ? "llvm.fptosi.sat" : "llvm.fptoui.sat",
                new LLVMTypeRef[] {lt, l.llvmType(from)}, r);
        if (to.bits() == 64 || from == Type.F64) {
            // NVIDIA (H200) converts NaN to the destination's top bit alone: f64 NaN for every integer type, signed or
            // not (0x8000 for u16, 0x80000000 for u32 and s32), f32 NaN for 64-bit ones; other NaN conversions give 0
            // (as the saturating conversion does)
            v = sel(LLVMBuildFCmp(b(), LLVMRealUNO, x, x, ""), LLVMConstInt(lt, 1L << (to.bits() - 1), 0), v);
        }
        return v;
    }

    private LLVMValueRef intToFloat(LLVMValueRef x, Type from, Type to, Round rnd) {
        Type via = to == Type.F64 ? Type.F64 : Type.F32;
        LLVMTypeRef ft = l.llvmType(via);
        LLVMValueRef r = from.isSigned() ? LLVMBuildSIToFP(b(), x, ft, "") : LLVMBuildUIToFP(b(), x, ft, "");
        if (rnd != Round.RN) {
            // sign of (x - r), exactly: r is an integer-valued float; converted back it fits the source type unless it
            // rounded up to 2^bits (signed: 2^(bits-1)), and then x < r
            LLVMTypeRef src = l.llvmType(from);
            double limit = from.isSigned() ? Math.pow(2, from.bits() - 1) : Math.pow(2, from.bits());
            LLVMValueRef tooBig = LLVMBuildFCmp(b(), LLVMRealOGE, r, LLVMConstReal(ft, limit), "");
            LLVMValueRef back = from.isSigned() ? LLVMBuildFPToSI(b(), sel(tooBig, LLVMConstReal(ft, 0), r), src, "")
                    : LLVMBuildFPToUI(b(), sel(tooBig, LLVMConstReal(ft, 0), r), src, "");
            LLVMValueRef lt = LLVMBuildICmp(b(), from.isSigned() ? LLVMIntSLT : LLVMIntULT, x, back, "");
            LLVMValueRef gt = LLVMBuildICmp(b(), from.isSigned() ? LLVMIntSGT : LLVMIntUGT, x, back, "");
            LLVMValueRef err = sel(LLVMBuildOr(b(), tooBig, lt, ""), LLVMConstReal(ft, -1), sel(gt, LLVMConstReal(ft, 1), LLVMConstReal(ft, 0)));
            r = floats.directedFrom(rnd, via, r, err);
        }
        if (via != to) r = convertFloat(r, via, to, rnd, false, false);
        return r;
    }
}
