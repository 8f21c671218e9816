package org.zludaj.ptx.llvm;

import java.util.Set;

import static org.bytedeco.llvm.global.LLVM.*;

import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;

/**
 * PTX floating point with NVIDIA's results on every target, without touching any global rounding or denormal mode
 * (AMD GPUs have only global mode bits; the CPU's are shared with the JVM):
 * <ul>
 *   <li>directed rounding (.rz .rm .rp) = the round-to-nearest result corrected by the sign of the exact error,
 *       which error-free transformations give exactly (TwoSum, FMA remainders of products, quotients and roots);</li>
 *   <li>.ftz flushes subnormal inputs and results to sign-preserving zero; .sat clamps to [0, 1] with NaN to 0;</li>
 *   <li>NaN results are NVIDIA's canonical NaN; min/max order -0 below +0 and return the number when one input is
 *       NaN (the .NaN forms return NaN);</li>
 *   <li>half precision (f16, bf16 and their x2 pairs) computes in a wider type whose single rounding back is exact.</li>
 * </ul>
 */
final class FloatOps {
    private final Lowering l;
    final Conversions conversions;

    FloatOps(Lowering l) {
        this.l = l;
        this.conversions = new Conversions(l, this);
    }

    enum Round { RN, RZ, RM, RP }

    private LLVMBuilderRef b() {
        return l.b;
    }

    private LLVMTypeRef ft(Type t) {
        return switch (t) {
            case F32 -> LLVMFloatTypeInContext(l.ctx);
            case F64 -> LLVMDoubleTypeInContext(l.ctx);
            case F16 -> LLVMHalfTypeInContext(l.ctx);
            case BF16 -> LLVMBFloatTypeInContext(l.ctx);
            default -> throw new IllegalArgumentException(t.name());
        };
    }

    private LLVMTypeRef it(int bits) {
        return LLVMIntTypeInContext(l.ctx, bits);
    }

    private LLVMValueRef real(LLVMTypeRef t, double v) {
        return LLVMConstReal(t, v);
    }

    private LLVMValueRef intr(String name, LLVMTypeRef t, LLVMValueRef... args) {
        return Ll.intrinsic(l.module, b(), name, new LLVMTypeRef[] {t}, args);
    }

    private LLVMValueRef sel(LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildSelect(b(), c, a, b, "");
    }

    private LLVMValueRef fcmp(int p, LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildFCmp(b(), p, a, b, "");
    }

    /** An add, sub or mul without a rounding modifier: round to nearest, and a compiler may fuse a mul into an add. */
    static boolean unrounded(Instruction i) {
        return Set.of("add", "sub", "mul").contains(i.opcode()) && !(i.has(".rn") || i.has(".rz") || i.has(".rm") || i.has(".rp"));
    }

    static Round rounding(Instruction i) {
        if (i.has(".rz") || i.has(".rzi")) return Round.RZ;
        if (i.has(".rm") || i.has(".rmi")) return Round.RM;
        if (i.has(".rp") || i.has(".rpi")) return Round.RP;
        return Round.RN;
    }

    private static boolean half(Type t) {
        return t == Type.F16 || t == Type.BF16 || t == Type.F16X2 || t == Type.BF16X2;
    }

    /** Handles the floating-point instruction forms; returns false for others. */
    boolean lower(Instruction i) {
        Type t = scalarType(i);
        if (t == null) return false;
        String op = i.opcode();
        switch (op) {
            case "add", "sub", "mul", "fma", "mad", "div", "min", "max", "sqrt", "rcp", "rsqrt", "abs", "neg", "copysign",
                 "ex2", "lg2", "sin", "cos", "tanh" -> { }
            case "testp" -> {
                testp(i, t);
                return true;
            }
            default -> {
                return false;
            }
        }
        Type full = l.type(i);
        if (full == Type.F16X2 || full == Type.BF16X2) {
            pair(i, full == Type.F16X2 ? Type.F16 : Type.BF16);
            return true;
        }
        LLVMValueRef[] in = new LLVMValueRef[i.operands().size() - 1];
        for (int k = 0; k < in.length; k++) in[k] = l.read(i, i.operands().get(k + 1), t);
        l.write(i, i.operands().get(0), compute(i, t, in), t);
        return true;
    }

    /** The instruction's float type, or null for non-float instructions. */
    private Type scalarType(Instruction i) {
        Type t = null;
        for (String m : i.modifiers()) {
            Type x = Type.of(m);
            if (x != null) t = x;
        }
        if (t == null || !t.isFloat() || t == Type.TF32) return null;
        return t;
    }

    /** f16x2 / bf16x2: the scalar operation on each half of the packed 32-bit registers. */
    private void pair(Instruction i, Type lane) {
        LLVMTypeRef i16 = it(16), i32 = it(32);
        if (lane == Type.F16 && !i.has(".xorsign") && !i.has(".sat") && !i.has(".relu") && rounding(i) == Round.RN) {
            LLVMValueRef[] words = new LLVMValueRef[i.operands().size() - 1];
            for (int k = 0; k < words.length; k++) words[k] = l.read(i, i.operands().get(k + 1), Type.B32);
            LLVMValueRef own = l.target.halfPairOp(l.module, b(), i.opcode(), i.has(".ftz"), unrounded(i), words);
            if (own != null) {
                l.write(i, i.operands().get(0), own, Type.B32);
                return;
            }
        }
        LLVMValueRef[] lo = new LLVMValueRef[i.operands().size() - 1], hi = new LLVMValueRef[lo.length];
        for (int k = 0; k < lo.length; k++) {
            LLVMValueRef v = l.read(i, i.operands().get(k + 1), Type.B32);
            lo[k] = LLVMBuildBitCast(b(), LLVMBuildTrunc(b(), v, i16, ""), ft(lane), "");
            hi[k] = LLVMBuildBitCast(b(), LLVMBuildTrunc(b(), LLVMBuildLShr(b(), v, LLVMConstInt(i32, 16, 0), ""), i16, ""), ft(lane), "");
        }
        LLVMValueRef rl = LLVMBuildZExt(b(), LLVMBuildBitCast(b(), compute(i, lane, lo), i16, ""), i32, "");
        LLVMValueRef rh = LLVMBuildZExt(b(), LLVMBuildBitCast(b(), compute(i, lane, hi), i16, ""), i32, "");
        l.write(i, i.operands().get(0), LLVMBuildOr(b(), rl, LLVMBuildShl(b(), rh, LLVMConstInt(i32, 16, 0), ""), ""), Type.B32);
    }

    /** One scalar operation of type t (F16, BF16, F32, F64) with the instruction's modifiers. */
    LLVMValueRef compute(Instruction i, Type t, LLVMValueRef[] in) {
        // .ftz: f32 and f16, and the two f64 forms that take it (rcp/rsqrt.approx.ftz.f64: a subnormal input is a zero,
        // a subnormal result 0, as NVIDIA's H100 gives them: ptx-tests f64_rcp_approx_ftz_edges, f64_rsqrt_...)
        boolean ftz = i.has(".ftz") && (t == Type.F32 || t == Type.F16
                || t == Type.F64 && (i.opcode().equals("rcp") || i.opcode().equals("rsqrt")));
        boolean unrounded = unrounded(i);
        if ((t == Type.F32 || t == Type.F64) && !i.has(".xorsign") && !i.has(".NaN") && !i.has(".full")) {
            LLVMValueRef own = l.target.floatOp(l.module, b(), i.opcode(), t == Type.F64,
                    unrounded ? "" : rounding(i).name().toLowerCase(java.util.Locale.ROOT), ftz, i.has(".approx"), in);
            if (own != null) return i.has(".sat") ? saturate(own, t) : own;
        }
        if (t == Type.F16 && !i.has(".xorsign") && rounding(i) == Round.RN) {
            LLVMValueRef own = l.target.halfOp(l.module, b(), i.opcode(), ftz, unrounded, in);
            if (own != null) {
                if (i.has(".sat")) own = saturate(own, t);
                return i.has(".relu") ? relu(own, t) : own;  // fma.rn.relu.f16
            }
        }
        if (ftz && t == Type.F64) {
            // NVIDIA computes rcp/rsqrt.approx.ftz.f64 from the high word of its input (a NaN whose payload is all in
            // the low word is an infinity there: 1/x = 0) and gives only a high word back; the input likewise here
            LLVMTypeRef i64 = LLVMInt64TypeInContext(l.ctx);
            LLVMValueRef hi = LLVMBuildAnd(b(), LLVMBuildBitCast(b(), in[0], i64, ""), LLVMConstInt(i64, 0xffffffff00000000L, 0), "");
            in[0] = LLVMBuildBitCast(b(), hi, ft(t), "");
        }
        if (ftz) for (int k = 0; k < in.length; k++) in[k] = flush(in[k], t);
        LLVMValueRef r;
        String op = i.opcode();
        if (selfMinMax(i, in)) {
            r = in[0];
        } else if (half(t)) {
            r = halfOp(i, t, in);
        } else {
            Round rnd = rounding(i);
            boolean approx = i.has(".approx");
            r = switch (op) {
                case "add" -> sum(rnd, t, in[0], in[1], in);
                case "sub" -> sum(rnd, t, in[0], LLVMBuildFNeg(b(), in[1], ""), in);
                case "mul" -> {
                    LLVMValueRef p = LLVMBuildFMul(b(), in[0], in[1], "");
                    if (rnd == Round.RN) yield p;
                    if (t == Type.F32) yield directed(rnd, t, p, errorOf(p, LLVMBuildFMul(b(), wide(in[0]), wide(in[1]), ""), null), in);
                    yield directed(rnd, t, p, mulError64(in[0], in[1], p), in);
                }
                case "fma", "mad" -> fma(rnd, t, in);
                case "div" -> approx ? approxDivide(t, in[0], in[1], ftz) : divide(rnd, t, in[0], in[1]);
                case "rcp" -> approx ? LLVMBuildFDiv(b(), real(ft(t), 1), in[0], "") : divide(rnd, t, real(ft(t), 1), in[0]);
                case "sqrt" -> approx ? intr("llvm.sqrt", ft(t), in[0]) : sqrt(rnd, t, in[0]);
                case "rsqrt" -> LLVMBuildFDiv(b(), real(ft(t), 1), intr("llvm.sqrt", ft(t), in[0]), "");
                case "min", "max" -> minMax(i, t, in);
                case "abs" -> intr("llvm.fabs", ft(t), in[0]);
                case "neg" -> LLVMBuildFNeg(b(), in[0], "");
                case "copysign" -> intr("llvm.copysign", ft(t), in[1], in[0]);
                case "ex2", "lg2", "sin", "cos" -> approx(op, t, in[0], i.has(".ftz"));
                case "tanh" -> tanh(t, in[0]);
                default -> throw l.unsupported(i);
            };
        }
        // abs and neg give the canonical NaN too (NVIDIA's sm_90, forms_ptx.py), except in f64: the NaN quieted
        boolean absNeg = op.equals("abs") || op.equals("neg");
        if (absNeg && t == Type.F64) r = quietNaN(in[0], r);
        // f64 NaNs propagate (quieted); of two NaN operands NVIDIA's sub gives the second's (x86: the first; ptx-test
        // sub_nan_operands, H100). Its add, mul and fma choose as its compiler orders the operands (ptx-test
        // f64_nan_operands against corpus kernel fuzz_1_00055): no rule to follow, a NaN-payload difference.
        if (t == Type.F64 && op.equals("sub") && in.length == 2)
            r = quietWhere(LLVMBuildAnd(b(), isNaN(in[0]), isNaN(in[1]), ""), in[1], r);
        boolean keepsNaN = t == Type.F64 || op.equals("copysign")
                || (op.equals("min") || op.equals("max")) && !i.has(".NaN");
        // NVPTX: NVIDIA's arithmetic gives the canonical NaN itself, LLVM's fabs/fneg/min/max lowerings do not
        boolean own = t == Type.F32 && l.target.canonicalNaN() && !absNeg && !op.equals("min") && !op.equals("max");
        if (!keepsNaN && !own) r = canonical(r, t);
        if (ftz) r = flush(r, t);
        if (i.has(".sat")) r = saturate(r, t);
        if (i.has(".relu")) r = relu(r, t);
        return r;
    }

    /**
     * div.approx: a * (1/b) as the ISA defines it, so a divisor of magnitude 2^126 or more gives zero (its reciprocal
     * is subnormal and flushed); other divisors, subnormal ones included, give the quotient (NVIDIA's non-.ftz form
     * scales them; within the 2 ulp the ISA allows).
     */
    private LLVMValueRef approxDivide(Type t, LLVMValueRef a, LLVMValueRef d, boolean ftz) {
        LLVMTypeRef f = ft(t);
        LLVMValueRef huge = fcmp(LLVMRealOGE, intr("llvm.fabs", f, d), real(f, 0x1p126));
        LLVMValueRef q = ftz ? LLVMBuildFMul(b(), a, LLVMBuildFDiv(b(), real(f, 1), d, ""), "") : LLVMBuildFDiv(b(), a, d, "");
        return sel(huge, LLVMBuildFMul(b(), a, intr("llvm.copysign", f, real(f, 0), d), ""), q);
    }

    /** The target's approximate function if it has one, else LLVM's intrinsic (f64 and host). */
    private LLVMValueRef approx(String op, Type t, LLVMValueRef x, boolean ftz) {
        if (t == Type.F32) {
            LLVMValueRef r = l.target.approxMath(l.module, b(), op, ftz, x);
            if (r != null) return r;
        }
        String name = switch (op) {
            case "ex2" -> "llvm.exp2";
            case "lg2" -> "llvm.log2";
            case "sin" -> "llvm.sin";
            default -> "llvm.cos";
        };
        return intr(name, ft(t), x);
    }

    /** tanh(x) = sign(x) (1 - 2 / (2^(2|x| log2 e) + 1)), 1 beyond |x| = 9: no library call on any target. */
    private LLVMValueRef tanh(Type t, LLVMValueRef x) {
        if (t == Type.F32) {  // the target's own (NVPTX: tanh.approx.f32, where the formula's division cost a call)
            LLVMValueRef r = l.target.approxMath(l.module, b(), "tanh", false, x);
            if (r != null) return r;
        }
        LLVMTypeRef f = ft(t);
        LLVMValueRef ax = intr("llvm.fabs", f, x);
        LLVMValueRef e = approx("ex2", t, LLVMBuildFMul(b(), ax, real(f, 2 * 1.4426950408889634), ""), false);
        LLVMValueRef r = LLVMBuildFSub(b(), real(f, 1), LLVMBuildFDiv(b(), real(f, 2), LLVMBuildFAdd(b(), e, real(f, 1), ""), ""), "");
        r = sel(fcmp(LLVMRealOGT, ax, real(f, 9)), real(f, 1), r);
        // below 1/8 the formula cancels (tanh(1e-10) came out 0): x (1 - x^2/3 + 2 x^4/15), relative error under 2e-7,
        // as NVIDIA's tanh.approx is relatively accurate for small x (ptx-tests bf16_tanh_approx, f32_tanh_approx_edges)
        LLVMValueRef x2 = LLVMBuildFMul(b(), ax, ax, "");
        LLVMValueRef poly = LLVMBuildFAdd(b(), real(f, -1.0 / 3), LLVMBuildFMul(b(), x2, real(f, 2.0 / 15), ""), "");
        LLVMValueRef small = LLVMBuildFMul(b(), ax, LLVMBuildFAdd(b(), real(f, 1), LLVMBuildFMul(b(), x2, poly, ""), ""), "");
        r = sel(fcmp(LLVMRealOLT, ax, real(f, 0.125)), small, r);
        return intr("llvm.copysign", f, r, x);
    }

    // ---- the pieces

    /** NVIDIA's canonical NaN for the type. */
    LLVMValueRef canonicalNaN(Type t) {
        return switch (t) {
            case F32 -> LLVMConstBitCast(LLVMConstInt(it(32), 0x7fffffffL, 0), ft(t));
            case F64 -> LLVMConstBitCast(LLVMConstInt(it(64), 0x7fffffffffffffffL, 0), ft(t));
            default -> LLVMConstBitCast(LLVMConstInt(it(16), 0x7fff, 0), ft(t));
        };
    }

    /**
     * NVIDIA's canonical NaN for any NaN. The select is made on the bits: LLVM treats NaN payloads as unspecified and
     * folds a float select of one NaN for another away (it did after llvm.sqrt on the host).
     */
    LLVMValueRef canonical(LLVMValueRef v, Type t) {
        return canonicalWhere(fcmp(LLVMRealUNO, v, v), v, t);
    }

    /** {@code cond ? canonical NaN : v}, selected on the bits (see {@link #canonical}). */
    private LLVMValueRef canonicalWhere(LLVMValueRef cond, LLVMValueRef v, Type t) {
        LLVMTypeRef bits = it(t == Type.F32 ? 32 : t == Type.F64 ? 64 : 16);
        LLVMValueRef r = sel(cond, LLVMConstBitCast(canonicalNaN(t), bits), LLVMBuildBitCast(b(), v, bits, ""));
        return LLVMBuildBitCast(b(), r, ft(t), "");
    }

    /** abs/neg.f64 of a NaN: the NaN quieted, its sign kept (NVIDIA's sm_90); other values as computed. */
    private LLVMValueRef quietNaN(LLVMValueRef x, LLVMValueRef r) {
        return quietWhere(fcmp(LLVMRealUNO, x, x), x, r);
    }

    /** {@code cond ? x quieted : r} for f64, on the bits. */
    private LLVMValueRef quietWhere(LLVMValueRef cond, LLVMValueRef x, LLVMValueRef r) {
        LLVMTypeRef i64 = it(64);
        LLVMValueRef q = LLVMBuildOr(b(), LLVMBuildBitCast(b(), x, i64, ""), LLVMConstInt(i64, 0x0008000000000000L, 0), "");
        LLVMValueRef v = sel(cond, q, LLVMBuildBitCast(b(), r, i64, ""));
        return LLVMBuildBitCast(b(), v, ft(Type.F64), "");
    }

    LLVMValueRef flush(LLVMValueRef v, Type t) {
        // a zero or subnormal (llvm.is.fpclass: one v_cmp_class on AMD) becomes the zero of its sign; no fabs/copysign,
        // whose one-by-one sinking in LLVM's AMDGPU CodeGenPrepare is quadratic in a block's length (ggml's ftz kernels)
        LLVMTypeRef it = it(t.bits());
        LLVMValueRef tiny = Ll.intrinsic(l.module, b(), "llvm.is.fpclass", new LLVMTypeRef[] {ft(t)}, v, LLVMConstInt(it(32), 0xf0, 0));
        LLVMValueRef signedZero = LLVMBuildBitCast(b(), LLVMBuildAnd(b(), LLVMBuildBitCast(b(), v, it, ""),
                LLVMConstInt(it, 1L << (t.bits() - 1), 0), ""), ft(t), "");
        return sel(tiny, signedZero, v);
    }

    /**
     * .ftz for an f16 or bf16 value already widened to f32: magnitudes below the half format's smallest normal (2^-14
     * or f32's) become zeros of their sign, compared on the exponent field (no fabs/copysign, as in {@link #flush}).
     */
    LLVMValueRef flushHalf(LLVMValueRef f32, Type lane) {
        LLVMTypeRef i32 = it(32);
        LLVMValueRef x = LLVMBuildBitCast(b(), f32, i32, "");
        long minNormal = lane == Type.F16 ? 0x38800000L : 0x00800000L;
        LLVMValueRef tiny = LLVMBuildICmp(b(), LLVMIntULT, LLVMBuildAnd(b(), x, LLVMConstInt(i32, 0x7f800000L, 0), ""), LLVMConstInt(i32, minNormal, 0), "");
        LLVMValueRef r = sel(tiny, LLVMBuildAnd(b(), x, LLVMConstInt(i32, 0x80000000L, 0), ""), x);
        return LLVMBuildBitCast(b(), r, LLVMTypeOf(f32), "");
    }

    LLVMValueRef saturate(LLVMValueRef v, Type t) {
        LLVMValueRef zero = real(ft(t), 0), one = real(ft(t), 1);
        LLVMValueRef r = sel(fcmp(LLVMRealOGT, v, one), one, v);
        r = sel(fcmp(LLVMRealOLT, r, zero), zero, r);
        r = sel(fcmp(LLVMRealOEQ, r, zero), zero, r);  // -0 becomes +0
        return sel(fcmp(LLVMRealUNO, v, v), zero, r);
    }

    private LLVMValueRef relu(LLVMValueRef v, Type t) {
        if (t == Type.BF16) {  // through f32 (exact both ways): LLVM's NVPTX back end cannot select a select on bf16
            LLVMTypeRef f32 = LLVMFloatTypeInContext(l.ctx);
            LLVMValueRef w = LLVMBuildFPExt(b(), v, f32, "");
            return LLVMBuildFPTrunc(b(), sel(fcmp(LLVMRealOLE, w, real(f32, 0)), real(f32, 0), w), ft(t), "");
        }
        LLVMValueRef zero = real(ft(t), 0);
        return sel(fcmp(LLVMRealOLE, v, zero), zero, v);  // -0 -> +0 too (NVIDIA's fma.rn.relu.f16)
    }

    private LLVMValueRef wide(LLVMValueRef f32) {
        return LLVMBuildFPExt(b(), f32, LLVMDoubleTypeInContext(l.ctx), "");
    }

    /**
     * For f32: a value with the sign of (exact - r32), where the exact result is hi + lo in f64 (lo exact or null).
     * f64 has room for the whole f32 range, subnormals included, so this is exact where f32 error terms underflow.
     */
    private LLVMValueRef errorOf(LLVMValueRef r32, LLVMValueRef hi, LLVMValueRef lo) {
        LLVMTypeRef d = LLVMDoubleTypeInContext(l.ctx);
        LLVMValueRef diff = LLVMBuildFSub(b(), hi, wide(r32), "");
        LLVMValueRef sign = lo == null ? diff : sel(fcmp(LLVMRealONE, diff, real(d, 0)), diff, lo);
        LLVMValueRef unit = sel(fcmp(LLVMRealOLT, sign, real(d, 0)), real(d, -1), sel(fcmp(LLVMRealOGT, sign, real(d, 0)), real(d, 1), real(d, 0)));
        return LLVMBuildFPTrunc(b(), unit, LLVMFloatTypeInContext(l.ctx), "");
    }

    /** a + b with the instruction's rounding; an exact zero is -0 when rounding toward minus infinity (IEEE 754). */
    private LLVMValueRef sum(Round rnd, Type t, LLVMValueRef a, LLVMValueRef bv, LLVMValueRef[] in) {
        LLVMValueRef s = LLVMBuildFAdd(b(), a, bv, "");
        if (rnd == Round.RN) return s;
        LLVMValueRef err;
        if (t == Type.F32) {
            LLVMValueRef a64 = wide(a), b64 = wide(bv);
            err = errorOf(s, LLVMBuildFAdd(b(), a64, b64, ""), sumError(a64, b64, Type.F64));
        } else {
            err = sumError(a, bv, t);
        }
        LLVMValueRef r = directed(rnd, t, s, err, in);
        if (rnd == Round.RM) {
            LLVMValueRef bothPlusZero = LLVMBuildICmp(b(), LLVMIntEQ, LLVMBuildOr(b(), bits(a, t), bits(bv, t), ""), LLVMConstInt(it(t.bits()), 0, 0), "");
            LLVMValueRef exactZero = LLVMBuildAnd(b(), fcmp(LLVMRealOEQ, s, real(ft(t), 0)), fcmp(LLVMRealOEQ, err, real(ft(t), 0)), "");
            r = sel(LLVMBuildAnd(b(), exactZero, LLVMBuildNot(b(), bothPlusZero, ""), ""), real(ft(t), -0.0), r);
        }
        return r;
    }

    /** TwoSum: the exact error of a + b, given as the second term. */
    private LLVMValueRef sumError(LLVMValueRef a, LLVMValueRef bv, Type t) {
        LLVMValueRef s = LLVMBuildFAdd(b(), a, bv, "");
        LLVMValueRef bb = LLVMBuildFSub(b(), s, a, "");
        LLVMValueRef aa = LLVMBuildFSub(b(), s, bb, "");
        return LLVMBuildFAdd(b(), LLVMBuildFSub(b(), a, aa, ""), LLVMBuildFSub(b(), bv, bb, ""), "");
    }

    /**
     * The directed-rounding result from the round-to-nearest result x and the sign of (exact - x), given as a value
     * of that sign (zero when exact). Overflow to infinity from finite inputs is handled too.
     */
    private LLVMValueRef directed(Round rnd, Type t, LLVMValueRef x, LLVMValueRef err, LLVMValueRef[] inputs) {
        if (rnd == Round.RN) return x;
        LLVMTypeRef f = ft(t);
        LLVMValueRef zero = real(f, 0);
        LLVMValueRef below = fcmp(LLVMRealOLT, err, zero), above = fcmp(LLVMRealOGT, err, zero);
        LLVMValueRef r = switch (rnd) {
            case RZ -> sel(LLVMBuildOr(b(), LLVMBuildAnd(b(), fcmp(LLVMRealOGT, x, zero), below, ""),
                    LLVMBuildAnd(b(), fcmp(LLVMRealOLT, x, zero), above, ""), ""), towardZero(x, t), x);
            case RM -> sel(below, nextDown(x, t), x);
            default -> sel(above, nextUp(x, t), x);
        };
        // overflow: round to nearest gave infinity although all inputs are finite
        LLVMValueRef finite = LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 1, 0);
        for (LLVMValueRef in : inputs) finite = LLVMBuildAnd(b(), finite, isFinite(in, t), "");
        LLVMValueRef overflow = LLVMBuildAnd(b(), finite, isInf(x, t), "");
        double max = t == Type.F64 ? Double.MAX_VALUE : Float.MAX_VALUE;
        LLVMValueRef pos = fcmp(LLVMRealOGT, x, zero);
        LLVMValueRef clamped = switch (rnd) {
            case RZ -> intr("llvm.copysign", f, real(f, max), x);
            case RM -> sel(pos, real(f, max), x);
            default -> sel(pos, x, real(f, -max));
        };
        return sel(overflow, clamped, r);
    }

    /** Directed rounding for conversions: x rounded to nearest, err of the sign of (exact - x). */
    LLVMValueRef directedFrom(Round rnd, Type t, LLVMValueRef x, LLVMValueRef err) {
        return directed(rnd, t, x, err, new LLVMValueRef[0]);
    }

    private LLVMValueRef isNaN(LLVMValueRef v) {
        return fcmp(LLVMRealUNO, v, v);
    }

    private LLVMValueRef isFinite(LLVMValueRef v, Type t) {
        return fcmp(LLVMRealOLT, intr("llvm.fabs", ft(t), v), real(ft(t), Double.POSITIVE_INFINITY));
    }

    private LLVMValueRef isInf(LLVMValueRef v, Type t) {
        return fcmp(LLVMRealOEQ, intr("llvm.fabs", ft(t), v), real(ft(t), Double.POSITIVE_INFINITY));
    }

    private LLVMValueRef bits(LLVMValueRef v, Type t) {
        return LLVMBuildBitCast(b(), v, it(t.bits()), "");
    }

    private LLVMValueRef fromBits(LLVMValueRef v, Type t) {
        return LLVMBuildBitCast(b(), v, ft(t), "");
    }

    /** The next value above x (x finite; from -0 or +0 the smallest subnormal). */
    private LLVMValueRef nextUp(LLVMValueRef x, Type t) {
        LLVMTypeRef i = it(t.bits());
        LLVMValueRef bx = bits(x, t), one = LLVMConstInt(i, 1, 0);
        LLVMValueRef isZero = fcmp(LLVMRealOEQ, x, real(ft(t), 0));
        LLVMValueRef pos = fcmp(LLVMRealOGT, x, real(ft(t), 0));
        LLVMValueRef r = sel(pos, LLVMBuildAdd(b(), bx, one, ""), LLVMBuildSub(b(), bx, one, ""));
        return sel(isZero, fromBits(one, t), fromBits(r, t));
    }

    private LLVMValueRef nextDown(LLVMValueRef x, Type t) {
        return LLVMBuildFNeg(b(), nextUp(LLVMBuildFNeg(b(), x, ""), t), "");
    }

    /** The next value toward zero (x finite and non-zero). */
    private LLVMValueRef towardZero(LLVMValueRef x, Type t) {
        return fromBits(LLVMBuildSub(b(), bits(x, t), LLVMConstInt(it(t.bits()), 1, 0), ""), t);
    }

    private LLVMValueRef fma(Round rnd, Type t, LLVMValueRef[] in) {
        LLVMValueRef r = intr("llvm.fma", ft(t), in[0], in[1], in[2]);
        if (rnd == Round.RN) return r;
        if (t == Type.F32) {
            // in double: the product is exact, TwoSum gives the exact error of adding c; then the f32 rounding error
            LLVMTypeRef d = LLVMDoubleTypeInContext(l.ctx);
            LLVMValueRef a = LLVMBuildFPExt(b(), in[0], d, ""), bb = LLVMBuildFPExt(b(), in[1], d, ""), c = LLVMBuildFPExt(b(), in[2], d, "");
            LLVMValueRef p = LLVMBuildFMul(b(), a, bb, "");
            LLVMValueRef s = LLVMBuildFAdd(b(), p, c, ""), e = sumError(p, c, Type.F64);
            LLVMValueRef back = LLVMBuildFPExt(b(), r, d, "");
            LLVMValueRef diff = LLVMBuildFSub(b(), s, back, "");
            LLVMValueRef sign = sel(fcmp(LLVMRealONE, diff, real(d, 0)), diff, e);
            return fmaZeroSign(rnd, t, in, r, directed(rnd, t, r, LLVMBuildFPTrunc(b(), sel(fcmp(LLVMRealOLT, sign, real(d, 0)), real(d, -1), sel(fcmp(LLVMRealOGT, sign, real(d, 0)), real(d, 1), real(d, 0))), ft(t), ""), in));
        }
        return fmaZeroSign(rnd, t, in, r, directed(rnd, t, r, fmaError64(in[0], in[1], in[2], r), in));
    }

    /**
     * IEEE 754: an exact zero sum is -0 when rounding toward minus infinity, unless both addends (here a*b and c)
     * are +0. {@code err} is zero exactly when r is exact.
     */
    private LLVMValueRef fmaZeroSign(Round rnd, Type t, LLVMValueRef[] in, LLVMValueRef r, LLVMValueRef directedResult) {
        if (rnd != Round.RM) return directedResult;
        LLVMValueRef zero = real(ft(t), 0);
        LLVMValueRef productZero = LLVMBuildOr(b(), fcmp(LLVMRealOEQ, in[0], zero), fcmp(LLVMRealOEQ, in[1], zero), "");
        LLVMValueRef productPlus = LLVMBuildICmp(b(), LLVMIntEQ, signBit(in[0], t), signBit(in[1], t), "");
        LLVMValueRef cPlusZero = LLVMBuildICmp(b(), LLVMIntEQ, bits(in[2], t), LLVMConstInt(it(t.bits()), 0, 0), "");
        LLVMValueRef bothPlusZero = LLVMBuildAnd(b(), LLVMBuildAnd(b(), productZero, productPlus, ""), cPlusZero, "");
        // an exact zero: the round-to-nearest result is zero and exact (a tiny result of either sign rounded to zero is
        // no exact zero: a positive one rounded down is +0, as NVIDIA gives; ptx-test fma_zero_signs)
        LLVMValueRef exact = LLVMBuildAnd(b(), fcmp(LLVMRealOEQ, r, zero), exactZero(t, in, r), "");
        LLVMValueRef isZero = LLVMBuildAnd(b(), fcmp(LLVMRealOEQ, directedResult, zero), exact, "");
        return sel(LLVMBuildAnd(b(), isZero, LLVMBuildNot(b(), bothPlusZero, ""), ""), real(ft(t), -0.0), directedResult);
    }

    /** Whether a*b + c is exactly r (used where r is zero): the error terms are all zero. */
    private LLVMValueRef exactZero(Type t, LLVMValueRef[] in, LLVMValueRef r) {
        LLVMTypeRef d = LLVMDoubleTypeInContext(l.ctx);
        LLVMValueRef err = t == Type.F64 ? fmaError64(in[0], in[1], in[2], r)
                : LLVMBuildFAdd(b(), LLVMBuildFMul(b(), wide(in[0]), wide(in[1]), ""), wide(in[2]), "");  // exact for f32 zeros
        return fcmp(LLVMRealOEQ, err, real(d, 0));
    }

    private LLVMValueRef signBit(LLVMValueRef v, Type t) {
        return LLVMBuildLShr(b(), bits(v, t), LLVMConstInt(it(t.bits()), t.bits() - 1, 0), "");
    }

    // ---- f64 error terms without subnormals: operands are split into a mantissa in [0.5, 1) and an exponent, the
    // ---- error is computed on the mantissas and the result scaled to match, so it is exact at every magnitude

    /** {mantissa with x's sign in [0.5, 1), exponent as i32} of a finite f64; zero gives (0, -4000). */
    private LLVMValueRef[] split(LLVMValueRef x) {
        LLVMTypeRef d = LLVMDoubleTypeInContext(l.ctx), i64 = it(64), i32 = it(32);
        LLVMValueRef tiny = fcmp(LLVMRealOLT, intr("llvm.fabs", d, x), real(d, 0x1p-1000));
        LLVMValueRef y = sel(tiny, LLVMBuildFMul(b(), x, real(d, 0x1p64), ""), x);
        LLVMValueRef bits = LLVMBuildBitCast(b(), y, i64, "");
        LLVMValueRef be = LLVMBuildTrunc(b(), LLVMBuildAnd(b(), LLVMBuildLShr(b(), bits, LLVMConstInt(i64, 52, 0), ""), LLVMConstInt(i64, 0x7ff, 0), ""), i32, "");
        LLVMValueRef e = LLVMBuildSub(b(), be, sel(tiny, LLVMConstInt(i32, 1022 + 64, 0), LLVMConstInt(i32, 1022, 0)), "");
        LLVMValueRef m = LLVMBuildBitCast(b(), LLVMBuildOr(b(), LLVMBuildAnd(b(), bits, LLVMConstInt(i64, ~(0x7ffL << 52), 0), ""),
                LLVMConstInt(i64, 1022L << 52, 0), ""), d, "");
        LLVMValueRef zero = fcmp(LLVMRealOEQ, x, real(d, 0));
        return new LLVMValueRef[] {sel(zero, real(d, 0), m), sel(zero, LLVMConstInt(i32, -4000, 1), e)};
    }

    /** x * 2^n (n: i32, clamped to +-3000) in three steps of the same sign: exact whenever the result is normal. */
    private LLVMValueRef scale(LLVMValueRef x, LLVMValueRef n) {
        LLVMTypeRef d = LLVMDoubleTypeInContext(l.ctx), i32 = it(32), i64 = it(64);
        LLVMValueRef lo = LLVMConstInt(i32, -3000, 1), hi = LLVMConstInt(i32, 3000, 1);
        n = sel(LLVMBuildICmp(b(), LLVMIntSLT, n, lo, ""), lo, sel(LLVMBuildICmp(b(), LLVMIntSGT, n, hi, ""), hi, n));
        LLVMValueRef n1 = LLVMBuildSDiv(b(), n, LLVMConstInt(i32, 3, 0), "");
        LLVMValueRef rest = LLVMBuildSub(b(), n, n1, "");
        LLVMValueRef n2 = LLVMBuildSDiv(b(), rest, LLVMConstInt(i32, 2, 0), "");
        LLVMValueRef n3 = LLVMBuildSub(b(), rest, n2, "");
        for (LLVMValueRef k : new LLVMValueRef[] {n1, n2, n3}) {
            LLVMValueRef p = LLVMBuildBitCast(b(), LLVMBuildShl(b(), LLVMBuildZExt(b(), LLVMBuildAdd(b(), k, LLVMConstInt(i32, 1023, 0), ""), i64, ""),
                    LLVMConstInt(i64, 52, 0), ""), d, "");
            x = LLVMBuildFMul(b(), x, p, "");
        }
        return x;
    }

    /** err unless an input is infinite or NaN (then the round-to-nearest result is exact or NaN): 0. */
    private LLVMValueRef finiteOnly(LLVMValueRef err, LLVMValueRef... inputs) {
        LLVMValueRef finite = LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 1, 0);
        for (LLVMValueRef v : inputs) finite = LLVMBuildAnd(b(), finite, isFinite(v, Type.F64), "");
        return sel(finite, err, real(LLVMDoubleTypeInContext(l.ctx), 0));
    }

    /** A value with the sign of (a*b - p) for f64, exact at every magnitude. */
    private LLVMValueRef mulError64(LLVMValueRef a, LLVMValueRef bv, LLVMValueRef p) {
        LLVMValueRef[] sa = split(a), sb = split(bv);
        LLVMValueRef ps = scale(p, LLVMBuildNeg(b(), LLVMBuildAdd(b(), sa[1], sb[1], ""), ""));
        return finiteOnly(intr("llvm.fma", LLVMDoubleTypeInContext(l.ctx), sa[0], sb[0], LLVMBuildFNeg(b(), ps, "")), a, bv);
    }

    /**
     * A value with the sign of (a*b + c - r) for f64, exact at every magnitude: the larger of the terms a*b and c is
     * scaled to [0.5, 1), then TwoProd and two TwoSums. A term smaller than 2^-900 of the other decides only where the
     * rest is exact.
     */
    private LLVMValueRef fmaError64(LLVMValueRef a, LLVMValueRef bv, LLVMValueRef c, LLVMValueRef r) {
        LLVMTypeRef d = LLVMDoubleTypeInContext(l.ctx), i32 = it(32);
        LLVMValueRef[] sa = split(a), sb = split(bv), sc = split(c);
        LLVMValueRef ep = LLVMBuildAdd(b(), sa[1], sb[1], "");
        LLVMValueRef productZero = LLVMBuildOr(b(), fcmp(LLVMRealOEQ, a, real(d, 0)), fcmp(LLVMRealOEQ, bv, real(d, 0)), "");
        ep = sel(productZero, LLVMConstInt(i32, -8000, 1), ep);
        LLVMValueRef e = sel(LLVMBuildICmp(b(), LLVMIntSGT, ep, sc[1], ""), ep, sc[1]);
        LLVMValueRef a1 = sa[0], b1 = scale(sb[0], LLVMBuildSub(b(), ep, e, "")), c1 = scale(sc[0], LLVMBuildSub(b(), sc[1], e, ""));
        LLVMValueRef rs = scale(r, LLVMBuildNeg(b(), e, ""));
        LLVMValueRef pSmall = LLVMBuildAnd(b(), LLVMBuildICmp(b(), LLVMIntSLT, LLVMBuildSub(b(), ep, e, ""), LLVMConstInt(i32, -900, 1), ""),
                LLVMBuildNot(b(), productZero, ""), "");
        LLVMValueRef cSmall = LLVMBuildICmp(b(), LLVMIntSLT, LLVMBuildSub(b(), sc[1], e, ""), LLVMConstInt(i32, -900, 1), "");
        c1 = sel(cSmall, real(d, 0), c1);
        LLVMValueRef u1 = LLVMBuildFMul(b(), a1, b1, "");
        LLVMValueRef u2 = intr("llvm.fma", d, a1, b1, LLVMBuildFNeg(b(), u1, ""));
        LLVMValueRef s1 = LLVMBuildFAdd(b(), c1, u2, ""), z = sumError(c1, u2, Type.F64);
        LLVMValueRef s2 = LLVMBuildFAdd(b(), u1, s1, ""), w = sumError(u1, s1, Type.F64);
        LLVMValueRef err = LLVMBuildFAdd(b(), LLVMBuildFAdd(b(), LLVMBuildFSub(b(), s2, rs, ""), w, ""), z, "");
        LLVMValueRef zero = real(d, 0);
        LLVMValueRef productSign = sel(LLVMBuildICmp(b(), LLVMIntEQ, signBit(a, Type.F64), signBit(bv, Type.F64), ""), real(d, 1), real(d, -1));
        LLVMValueRef cSign = sel(fcmp(LLVMRealOLT, c, zero), real(d, -1), sel(fcmp(LLVMRealOGT, c, zero), real(d, 1), zero));
        err = sel(pSmall, productSign, sel(LLVMBuildAnd(b(), cSmall, fcmp(LLVMRealOEQ, err, zero), ""), cSign, err));
        return finiteOnly(err, a, bv, c);
    }

    private LLVMValueRef divide(Round rnd, Type t, LLVMValueRef a, LLVMValueRef d) {
        LLVMValueRef q = LLVMBuildFDiv(b(), a, d, "");
        if (rnd == Round.RN) return q;
        if (t == Type.F32) {  // the f64 quotient and its exact remainder decide the direction
            LLVMValueRef a64 = wide(a), d64 = wide(d), q64 = LLVMBuildFDiv(b(), a64, d64, "");
            LLVMValueRef rem = intr("llvm.fma", LLVMDoubleTypeInContext(l.ctx), LLVMBuildFNeg(b(), q64, ""), d64, a64);
            LLVMValueRef lo = sel(fcmp(LLVMRealOLT, d64, real(LLVMDoubleTypeInContext(l.ctx), 0)), LLVMBuildFNeg(b(), rem, ""), rem);
            return directed(rnd, t, q, errorOf(q, q64, lo), new LLVMValueRef[] {a, d, q});
        }
        // a - q*d exactly, on operands scaled to [0.5, 1) so that no term is subnormal; the exact quotient lies above q
        // when that remainder has the sign of d
        LLVMValueRef[] sa = split(a), sd = split(d);
        LLVMValueRef qs = scale(q, LLVMBuildSub(b(), sd[1], sa[1], ""));
        LLVMValueRef rem = intr("llvm.fma", ft(t), LLVMBuildFNeg(b(), qs, ""), sd[0], sa[0]);
        LLVMValueRef err = sel(fcmp(LLVMRealOLT, d, real(ft(t), 0)), LLVMBuildFNeg(b(), rem, ""), rem);
        return directed(rnd, t, q, finiteOnly(err, a, d), new LLVMValueRef[] {a, d, q});
    }

    private LLVMValueRef sqrt(Round rnd, Type t, LLVMValueRef a) {
        LLVMValueRef s = intr("llvm.sqrt", ft(t), a);
        if (rnd == Round.RN) {
            if (t != Type.F32) return s;
            // the root of |a| with a's sign, and the canonical NaN chosen for a < 0: LLVM's x86 back end folded the canonical-NaN
            // select after sqrt(a) away (sqrt of a negative number is a NaN anyway), leaving x86's own NaN 0xffc00000
            LLVMValueRef m = intr("llvm.copysign", ft(t), intr("llvm.sqrt", ft(t), intr("llvm.fabs", ft(t), a)), a);  // -0 stays -0
            return sel(fcmp(LLVMRealOLT, a, real(ft(t), 0)), canonicalNaN(t), m);
        }
        if (t == Type.F32) {
            LLVMTypeRef d = LLVMDoubleTypeInContext(l.ctx);
            LLVMValueRef a64 = wide(a), s64 = intr("llvm.sqrt", d, a64);
            LLVMValueRef rem = intr("llvm.fma", d, LLVMBuildFNeg(b(), s64, ""), s64, a64);
            return directed(rnd, t, s, errorOf(s, s64, rem), new LLVMValueRef[] {a});
        }
        // a - s*s exactly, with a scaled by an even power of two into [0.5, 2) and s by half of it
        LLVMValueRef[] sa = split(a);
        LLVMTypeRef i32 = it(32);
        LLVMValueRef odd = LLVMBuildAnd(b(), sa[1], LLVMConstInt(i32, 1, 0), "");
        LLVMValueRef m = sel(LLVMBuildICmp(b(), LLVMIntNE, odd, LLVMConstInt(i32, 0, 0), ""), LLVMBuildFMul(b(), sa[0], real(ft(t), 2), ""), sa[0]);
        LLVMValueRef half = LLVMBuildAShr(b(), LLVMBuildSub(b(), sa[1], odd, ""), LLVMConstInt(i32, 1, 0), "");
        LLVMValueRef ss = scale(s, LLVMBuildNeg(b(), half, ""));
        LLVMValueRef rem = intr("llvm.fma", ft(t), LLVMBuildFNeg(b(), ss, ""), ss, m);
        return directed(rnd, t, s, finiteOnly(rem, a), new LLVMValueRef[] {a});
    }

    /**
     * min/max (any float type) of one register with itself: NVIDIA's ptxas folds it to the register, a NaN keeping its
     * payload and a signaling NaN included; not the .ftz forms (they give the canonical NaN, as the differential corpus
     * shows), nor .NaN or .xorsign.abs.
     */
    private static boolean selfMinMax(Instruction i, LLVMValueRef[] in) {
        return (i.opcode().equals("min") || i.opcode().equals("max")) && in.length == 2 && i.operands().size() == 3
                && i.operands().get(1) instanceof org.zludaj.ptx.model.Operand.Name && i.operands().get(1).equals(i.operands().get(2))
                && !i.has(".ftz") && !i.has(".NaN") && !i.has(".xorsign");
    }

    private LLVMValueRef minMax(Instruction i, Type t, LLVMValueRef[] in) {
        boolean min = i.opcode().equals("min"), nan = i.has(".NaN"), xorsign = i.has(".xorsign");
        // .xorsign.abs: the minimum/maximum of the magnitudes, with the sign of a xor b
        LLVMValueRef[] v = xorsign ? new LLVMValueRef[] {intr("llvm.fabs", ft(t), in[0]), intr("llvm.fabs", ft(t), in[1])} : in;
        LLVMValueRef r = minMax2(t, v[0], v[1], min, nan);
        for (int k = 2; k < v.length; k++) r = minMax2(t, r, v[k], min, nan);
        if (xorsign) {
            LLVMValueRef s = LLVMBuildXor(b(), bits(in[0], t), bits(in[1], t), "");
            LLVMValueRef neg = LLVMBuildICmp(b(), LLVMIntSLT, s, LLVMConstInt(it(t.bits()), 0, 0), "");
            r = sel(neg, LLVMBuildFNeg(b(), intr("llvm.fabs", ft(t), r), ""), intr("llvm.fabs", ft(t), r));
        }
        return r;
    }

    /**
     * PTX min/max of two values: -0 orders below +0; with one NaN input the other value (the .NaN forms: NaN).
     * Written with compares: LLVM 20's minimumnum lowering is not dependable on every target.
     */
    private LLVMValueRef minMax2(Type t, LLVMValueRef a, LLVMValueRef bv, boolean min, boolean nan) {
        if (t == Type.F32 || t == Type.F64) {
            LLVMValueRef own = l.target.minMax(l.module, b(), min, nan, t == Type.F64, a, bv);
            if (own != null) return own;
        }
        LLVMValueRef lt = fcmp(min ? LLVMRealOLT : LLVMRealOGT, a, bv);
        LLVMValueRef eq = fcmp(LLVMRealOEQ, a, bv);
        LLVMValueRef ba = bits(a, t), bb = bits(bv, t);
        LLVMValueRef zeros = fromBits(min ? LLVMBuildOr(b(), ba, bb, "") : LLVMBuildAnd(b(), ba, bb, ""), t);
        LLVMValueRef r = sel(lt, a, sel(eq, zeros, bv));
        LLVMValueRef aNaN = fcmp(LLVMRealUNO, a, a), bNaN = fcmp(LLVMRealUNO, bv, bv);
        if (nan) return canonicalWhere(LLVMBuildOr(b(), aNaN, bNaN, ""), r, t);
        r = sel(aNaN, bv, sel(bNaN, a, r));
        if (t == Type.F64) return quietWhere(LLVMBuildAnd(b(), aNaN, bNaN, ""), a, r);  // two NaNs: the first, quieted (sm_90)
        return canonicalWhere(LLVMBuildAnd(b(), aNaN, bNaN, ""), r, t);
    }

    /** f16/bf16 arithmetic in a wider type whose single rounding back is exact (f32 for one operation, f64 for fma). */
    private LLVMValueRef halfOp(Instruction i, Type t, LLVMValueRef[] in) {
        String op = i.opcode();
        switch (op) {
            case "neg" -> { return fromBits(LLVMBuildXor(b(), bits(in[0], t), LLVMConstInt(it(16), 0x8000, 0), ""), t); }
            case "abs" -> { return fromBits(LLVMBuildAnd(b(), bits(in[0], t), LLVMConstInt(it(16), 0x7fff, 0), ""), t); }
            default -> { }
        }
        boolean fused = op.equals("fma") || op.equals("mad");
        LLVMTypeRef wide = fused ? LLVMDoubleTypeInContext(l.ctx) : LLVMFloatTypeInContext(l.ctx);
        Type wt = fused ? Type.F64 : Type.F32;
        LLVMValueRef[] w = new LLVMValueRef[in.length];
        for (int k = 0; k < in.length; k++) w[k] = conversions.convertFloat(in[k], t, wt, Round.RN, false, false);
        LLVMValueRef r = switch (op) {
            case "add" -> LLVMBuildFAdd(b(), w[0], w[1], "");
            case "sub" -> LLVMBuildFSub(b(), w[0], w[1], "");
            case "mul" -> LLVMBuildFMul(b(), w[0], w[1], "");
            case "fma", "mad" -> roundToOddSum(LLVMBuildFMul(b(), w[0], w[1], ""), w[2]);  // the product is exact in f64
            case "min", "max" -> minMax(i, wt, w);
            case "ex2" -> approx("ex2", Type.F32, w[0], false);
            case "tanh" -> tanh(Type.F32, w[0]);  // tanh.approx.f16/bf16: f32's, rounded to the half format
            default -> throw l.unsupported(i);
        };
        if (rounding(i) != Round.RN) throw l.unsupported(i);
        if (i.has(".xorsign")) {  // the sign of a xor b from the 16-bit inputs (widening canonicalized NaN signs)
            LLVMTypeRef i16 = it(16);
            LLVMValueRef sign = LLVMBuildAnd(b(), LLVMBuildXor(b(), bits(in[0], t), bits(in[1], t), ""), LLVMConstInt(i16, 0x8000, 0), "");
            LLVMValueRef mag = LLVMBuildAnd(b(), bits(narrow(r, wt, t), t), LLVMConstInt(i16, 0x7fff, 0), "");
            return fromBits(LLVMBuildOr(b(), mag, sign, ""), t);
        }
        if (op.equals("ex2")) {
            // NVIDIA (H200): the f32 result truncated to f16/bf16 (every finite result of the test is the truncation of
            // the exact power), while overflow still gives infinity
            LLVMValueRef nearest = narrow(r, wt, t);
            return sel(isInf(nearest, t), nearest, conversions.convertFloat(r, wt, t, Round.RZ, false, false));
        }
        return narrow(r, wt, t);
    }

    /**
     * p + c in f64 rounded to odd (an inexact result gets its last mantissa bit set, toward the exact value), so that
     * rounding it again to f16 or bf16 rounds the exact sum: a tie of the narrow format broken by a tiny c stays broken.
     */
    private LLVMValueRef roundToOddSum(LLVMValueRef p, LLVMValueRef c) {
        LLVMTypeRef d = LLVMDoubleTypeInContext(l.ctx), i64 = it(64);
        LLVMValueRef s = LLVMBuildFAdd(b(), p, c, ""), e = sumError(p, c, Type.F64);
        LLVMValueRef bits = LLVMBuildBitCast(b(), s, i64, "");
        LLVMValueRef even = LLVMBuildICmp(b(), LLVMIntEQ, LLVMBuildAnd(b(), bits, LLVMConstInt(i64, 1, 0), ""), LLVMConstInt(i64, 0, 0), "");
        LLVMValueRef inexact = LLVMBuildAnd(b(), fcmp(LLVMRealONE, e, real(d, 0)), isFinite(s, Type.F64), "");
        LLVMValueRef away = LLVMBuildICmp(b(), LLVMIntEQ, signBit(s, Type.F64), signBit(e, Type.F64), "");
        LLVMValueRef odd = LLVMBuildBitCast(b(), sel(away, LLVMBuildAdd(b(), bits, LLVMConstInt(i64, 1, 0), ""),
                LLVMBuildSub(b(), bits, LLVMConstInt(i64, 1, 0), "")), d, "");
        return sel(LLVMBuildAnd(b(), inexact, even, ""), odd, s);
    }

    /** Round-to-nearest-even from f32/f64 to f16 or bf16, NaN to the canonical NaN. */
    LLVMValueRef narrow(LLVMValueRef v, Type from, Type to) {
        return conversions.convertFloat(v, from, to, Round.RN, false, false);
    }

    private void testp(Instruction i, Type t) {
        LLVMValueRef a = l.read(i, i.operands().get(1), t);
        LLVMValueRef abs = intr("llvm.fabs", ft(t), a);
        double min = t == Type.F64 ? Double.MIN_NORMAL : Float.MIN_NORMAL;
        LLVMValueRef inf = real(ft(t), Double.POSITIVE_INFINITY);
        LLVMValueRef r;
        if (i.has(".finite")) r = fcmp(LLVMRealOLT, abs, inf);
        else if (i.has(".infinite")) r = fcmp(LLVMRealOEQ, abs, inf);
        else if (i.has(".number")) r = fcmp(LLVMRealORD, a, a);
        else if (i.has(".notanumber")) r = fcmp(LLVMRealUNO, a, a);
        else if (i.has(".normal")) {  // NVIDIA: zero counts as normal
            LLVMValueRef normalOrZero = LLVMBuildOr(b(), fcmp(LLVMRealOGE, abs, real(ft(t), min)), fcmp(LLVMRealOEQ, abs, real(ft(t), 0)), "");
            r = LLVMBuildAnd(b(), normalOrZero, fcmp(LLVMRealOLT, abs, inf), "");
        }
        else r = LLVMBuildAnd(b(), fcmp(LLVMRealOLT, abs, real(ft(t), min)), fcmp(LLVMRealONE, abs, real(ft(t), 0)), "");
        l.write(i, i.operands().get(0), r, Type.PRED);
    }
}
