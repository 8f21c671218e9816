package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;
import org.zludaj.ptx.target.Target;

/**
 * The matrix family — {@code mma.sync}, {@code wmma}, {@code ldmatrix}, {@code stmatrix}, {@code movmatrix},
 * {@code cp.async} — with NVIDIA's semantics, the reference every other lowering of these instructions is checked
 * against. NVPTX keeps NVIDIA's own instructions ({@link Target#nativeMatrix}); elsewhere a warp-wide operation
 * first gathers the warp's fragments ({@link Lowering#gather}), rebuilds the operand matrices from NVIDIA's fragment
 * layouts (PTX ISA "Matrix fragments for mma.m16n8k*"; the same layouts CUTLASS documents) and computes the lane's
 * own elements of D exactly: products and sums in f64 (every f16/bf16/tf32 product is exact there) or i64, C
 * added last, one rounding to the destination type. {@code cp.async} copies at once, so its groups are always
 * complete. {@code wmma} fragments are opaque in CUDA: here they use the mma layouts tiled over the larger shapes.
 */
final class MatrixOps {
    private final Lowering l;
    private final NativeMatrixOps natives;
    private final MatrixMoves moves;
    private final FragmentExchange exchange;
    private final DotProductMma dots;

    MatrixOps(Lowering l) {
        this.l = l;
        this.natives = new NativeMatrixOps(l);
        this.moves = new MatrixMoves(l, this);
        this.exchange = new FragmentExchange(this, l);
        this.dots = new DotProductMma(this, l);
    }

    /** Lowers {@code i} when it belongs to the matrix family; false otherwise. */
    boolean lower(Instruction i) {
        switch (i.opcode()) {
            case "mma", "wmma", "ldmatrix", "stmatrix", "movmatrix" -> { }
            case "cp" -> {
                if (!i.has(".async") || i.has(".bulk")) return false;
            }
            case "mbarrier" -> {
                if (!l.target.nativeMatrix()) return false;  // elsewhere: AsyncBarriers
            }
            default -> {
                return false;
            }
        }
        if (l.target.nativeMatrix()) {
            natives.lower(i);
            return true;
        }
        switch (i.opcode()) {
            case "mma" -> mma(i);
            case "wmma" -> wmma(i);
            case "ldmatrix" -> moves.ldmatrix(i);
            case "stmatrix" -> moves.stmatrix(i);
            case "movmatrix" -> moves.movmatrix(i);
            default -> moves.cpAsync(i);
        }
        return true;
    }

    private LLVMBuilderRef b() {
        return l.b;
    }

    LLVMTypeRef i32t() {
        return LLVMInt32TypeInContext(l.ctx);
    }

    LLVMTypeRef i64t() {
        return LLVMInt64TypeInContext(l.ctx);
    }

    LLVMValueRef c32(long v) {
        return LLVMConstInt(i32t(), v, 0);
    }

    Lowering.Unsupported unsupported(Instruction i, String why) {
        return new Lowering.Unsupported(i.line(), "instruction " + i.text() + " " + why + " (target " + l.target.name() + ")");
    }

    // ------------------------------------------------------------------------------------------- layouts

    /** One coordinate of a fragment element as a function of the lane's group g = lane/4, t = lane%4 and element v. */
    interface F {
        int at(int g, int t, int v);
    }

    /** A fragment: how many distinct elements a lane holds and where element v lives (row, column of its matrix). */
    record Frag(int elements, F row, F col) {
        int row(int lane, int v) {
            return row.at(lane >> 2, lane & 3, v);
        }

        int col(int lane, int v) {
            return col.at(lane >> 2, lane & 3, v);
        }
    }

    /** A coordinate for the running lane: the layouts are affine in g and t (checked here, for every lane). */
    private LLVMValueRef coordinate(F f, int v, LLVMValueRef g, LLVMValueRef t) {
        int base = f.at(0, 0, v), dg = f.at(1, 0, v) - base, dt = f.at(0, 1, v) - base;
        for (int gg = 0; gg < 8; gg++)
            for (int tt = 0; tt < 4; tt++)
                if (f.at(gg, tt, v) != base + dg * gg + dt * tt) throw new IllegalStateException("fragment layout is not affine");
        LLVMValueRef r = c32(base);
        if (dg != 0) r = LLVMBuildAdd(b(), r, LLVMBuildMul(b(), g, c32(dg), ""), "");
        if (dt != 0) r = LLVMBuildAdd(b(), r, LLVMBuildMul(b(), t, c32(dt), ""), "");
        return r;
    }

    /** A of mma.m16n8k16 (f16/bf16): registers {row g | g+8} x {cols 2t.. | 2t+8..}, two halves each. */
    static final Frag A_M16K16_16BIT = new Frag(8, (g, t, v) -> g + 8 * ((v >> 1) & 1), (g, t, v) -> 2 * t + (v & 1) + 8 * (v >> 2));
    static final Frag B_K16N8_16BIT = new Frag(4, (g, t, v) -> 2 * t + (v & 1) + 8 * (v >> 1), (g, t, v) -> g);
    static final Frag C_M16N8 = new Frag(4, (g, t, v) -> g + 8 * (v >> 1), (g, t, v) -> 2 * t + (v & 1));

    /** The fragments of an mma.sync shape and A type: {A, B, C}. */
    static Frag[] mmaFragments(int m, int n, int k, Type a) {
        boolean bits16 = a == Type.F16 || a == Type.BF16, bytes = a == Type.S8 || a == Type.U8, tf32 = a == Type.TF32;
        String shape = "m" + m + "n" + n + "k" + k;
        Frag c = m == 16 ? C_M16N8 : new Frag(2, (g, t, v) -> g, (g, t, v) -> 2 * t + v);
        return switch (shape) {
            case "m16n8k16" -> bits16 ? new Frag[] {A_M16K16_16BIT, B_K16N8_16BIT, c}
                    : bytes ? new Frag[] {new Frag(8, (g, t, v) -> g + 8 * ((v >> 2) & 1), (g, t, v) -> 4 * t + (v & 3)),
                            new Frag(4, (g, t, v) -> 4 * t + v, (g, t, v) -> g), c} : null;
            case "m16n8k8" -> bits16 ? new Frag[] {new Frag(4, (g, t, v) -> g + 8 * (v >> 1), (g, t, v) -> 2 * t + (v & 1)),
                    new Frag(2, (g, t, v) -> 2 * t + v, (g, t, v) -> g), c}
                    : tf32 ? new Frag[] {new Frag(4, (g, t, v) -> g + 8 * (v & 1), (g, t, v) -> t + 4 * (v >> 1)),
                            new Frag(2, (g, t, v) -> t + 4 * v, (g, t, v) -> g), c} : null;
            case "m16n8k4" -> tf32 ? new Frag[] {new Frag(2, (g, t, v) -> g + 8 * v, (g, t, v) -> t),
                    new Frag(1, (g, t, v) -> t, (g, t, v) -> g), c} : null;
            case "m16n8k32" -> bytes ? new Frag[] {new Frag(16, (g, t, v) -> g + 8 * ((v >> 2) & 1), (g, t, v) -> 4 * t + (v & 3) + 16 * (v >> 3)),
                    new Frag(8, (g, t, v) -> 4 * t + (v & 3) + 16 * (v >> 2), (g, t, v) -> g), c} : null;
            case "m8n8k16" -> bytes ? new Frag[] {new Frag(4, (g, t, v) -> g, (g, t, v) -> 4 * t + v),
                    new Frag(4, (g, t, v) -> 4 * t + v, (g, t, v) -> g), c} : null;
            default -> null;
        };
    }

    /**
     * wmma fragments {A, B, C} of a shape: the mma.m16n8k16 layouts (16-bit, or 8-bit when {@code bytes}) tiled; opaque
     * in CUDA, so any layout is right, and these let WMMA targets run wmma as m16n8k16 operations on the tiles.
     */
    static Frag[] wmmaFragments(int m, int n, int k, boolean bytes) {
        if (k != 16) return null;
        if (bytes) {
            Frag c = wmmaFragments(m, n, k, false)[2];
            if (m == 16 && n == 16) return new Frag[] {
                    new Frag(8, (g, t, v) -> g + 8 * ((v >> 2) & 1), (g, t, v) -> 4 * t + (v & 3)),
                    new Frag(8, (g, t, v) -> 4 * t + (v & 3), (g, t, v) -> g + 8 * (v >> 2)), c};
            if (m == 32 && n == 8) return new Frag[] {
                    new Frag(16, (g, t, v) -> g + 8 * ((v >> 2) & 1) + 16 * (v >> 3), (g, t, v) -> 4 * t + (v & 3)),
                    new Frag(4, (g, t, v) -> 4 * t + v, (g, t, v) -> g), c};
            if (m == 8 && n == 32) return new Frag[] {
                    new Frag(4, (g, t, v) -> g, (g, t, v) -> 4 * t + v),
                    new Frag(16, (g, t, v) -> 4 * t + (v & 3), (g, t, v) -> g + 8 * (v >> 2)), c};
            return null;
        }
        if (m == 16 && n == 16) return new Frag[] {A_M16K16_16BIT,
                new Frag(8, (g, t, v) -> 2 * t + (v & 1) + 8 * ((v >> 1) & 1), (g, t, v) -> g + 8 * (v >> 2)),
                new Frag(8, (g, t, v) -> g + 8 * ((v >> 1) & 1), (g, t, v) -> 2 * t + (v & 1) + 8 * (v >> 2))};
        if (m == 32 && n == 8) return new Frag[] {
                new Frag(16, (g, t, v) -> g + 8 * ((v >> 1) & 1) + 16 * (v >> 3), (g, t, v) -> 2 * t + (v & 1) + 8 * ((v >> 2) & 1)),
                B_K16N8_16BIT,
                new Frag(8, (g, t, v) -> g + 8 * ((v >> 1) & 1) + 16 * (v >> 2), (g, t, v) -> 2 * t + (v & 1))};
        if (m == 8 && n == 32) return new Frag[] {
                new Frag(4, (g, t, v) -> g, (g, t, v) -> 2 * t + (v & 1) + 8 * (v >> 1)),
                new Frag(16, (g, t, v) -> 2 * t + (v & 1) + 8 * ((v >> 1) & 1), (g, t, v) -> g + 8 * (v >> 2)),
                new Frag(8, (g, t, v) -> g, (g, t, v) -> 2 * t + (v & 1) + 8 * (v >> 1))};
        return null;
    }

    // ------------------------------------------------------------------------------------------- elements

    /** Elements of a type packed in one 32-bit register. */
    private static int perWord(Type t) {
        return t == Type.F16 || t == Type.BF16 ? 2 : t == Type.S8 || t == Type.U8 ? 4 : 1;
    }

    /** Element {@code sub} of a 32-bit word as f64 (floats) or i64 (integers). */
    LLVMValueRef element(LLVMValueRef word, int sub, Type t) {
        int bits = 32 / perWord(t);
        LLVMValueRef x = sub == 0 ? word : LLVMBuildLShr(b(), word, c32((long) sub * bits), "");
        LLVMTypeRef f64 = LLVMDoubleTypeInContext(l.ctx);
        return switch (t) {
            case F16, BF16 -> {
                LLVMValueRef h = LLVMBuildBitCast(b(), LLVMBuildTrunc(b(), x, LLVMInt16TypeInContext(l.ctx), ""), l.llvmType(t), "");
                yield l.floats.conversions.convertFloat(h, t, Type.F64, FloatOps.Round.RN, false, false);
            }
            case TF32 -> LLVMBuildFPExt(b(), LLVMBuildBitCast(b(), LLVMBuildAnd(b(), x, c32(0xffffe000L), ""),
                    LLVMFloatTypeInContext(l.ctx), ""), f64, "");
            case F32 -> LLVMBuildFPExt(b(), LLVMBuildBitCast(b(), x, LLVMFloatTypeInContext(l.ctx), ""), f64, "");
            case S8 -> LLVMBuildSExt(b(), LLVMBuildTrunc(b(), x, LLVMInt8TypeInContext(l.ctx), ""), i64t(), "");
            case U8 -> LLVMBuildZExt(b(), LLVMBuildTrunc(b(), x, LLVMInt8TypeInContext(l.ctx), ""), i64t(), "");
            case S32, U32, B32 -> LLVMBuildSExt(b(), x, i64t(), "");
            default -> throw new IllegalArgumentException("matrix element type " + t);
        };
    }

    /** An f64/i64 result rounded (RN) or wrapped/saturated to {@code t}, as the bits of {@code t} in the low bits of an i32. */
    LLVMValueRef narrow(LLVMValueRef x, Type t, boolean satfinite) {
        return switch (t) {
            case F32 -> LLVMBuildBitCast(b(), LLVMBuildFPTrunc(b(), x, LLVMFloatTypeInContext(l.ctx), ""), i32t(), "");
            case F16 -> {
                LLVMValueRef h = l.floats.conversions.convertFloat(x, Type.F64, Type.F16, FloatOps.Round.RN, false, satfinite);
                yield LLVMBuildZExt(b(), LLVMBuildBitCast(b(), h, LLVMInt16TypeInContext(l.ctx), ""), i32t(), "");
            }
            case S32 -> {
                LLVMValueRef v = x;
                if (satfinite) {
                    LLVMValueRef lo = LLVMConstInt(i64t(), Integer.MIN_VALUE, 1), hi = LLVMConstInt(i64t(), Integer.MAX_VALUE, 1);
                    v = LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSLT, v, lo, ""), lo, v, "");
                    v = LLVMBuildSelect(b(), LLVMBuildICmp(b(), LLVMIntSGT, v, hi, ""), hi, v, "");
                }
                yield LLVMBuildTrunc(b(), v, i32t(), "");
            }
            default -> throw new IllegalArgumentException("matrix result type " + t);
        };
    }

    /** Packs per-element i32 bit patterns of {@code t} into 32-bit registers. */
    private List<LLVMValueRef> pack(List<LLVMValueRef> elements, Type t) {
        int per = perWord(t), bits = 32 / per;
        List<LLVMValueRef> words = new ArrayList<>();
        for (int w = 0; w < elements.size() / per; w++) {
            LLVMValueRef word = null;
            for (int s = 0; s < per; s++) {
                LLVMValueRef e = elements.get(w * per + s);
                if (bits < 32) e = LLVMBuildAnd(b(), e, c32((1L << bits) - 1), "");
                if (s > 0) e = LLVMBuildShl(b(), e, c32((long) s * bits), "");
                word = word == null ? e : LLVMBuildOr(b(), word, e, "");
            }
            words.add(word);
        }
        return words;
    }

    // ------------------------------------------------------------------------------------------- operands

    static List<Operand> elements(Operand o) {
        return o instanceof Operand.Vector v ? v.elements() : List.of(o);
    }

    List<LLVMValueRef> readWords(Instruction i, Operand o) {
        List<LLVMValueRef> out = new ArrayList<>();
        for (Operand e : elements(o)) out.add(l.read(i, e, Type.B32));
        return out;
    }

    static List<Type> types(Instruction i) {
        List<Type> ts = new ArrayList<>();
        for (String m : i.modifiers()) {
            Type t = Type.of(m);
            if (t != null) ts.add(t);
        }
        return ts;
    }

    static int[] shape(Instruction i) {
        for (String m : i.modifiers()) {
            var x = java.util.regex.Pattern.compile("\\.m(\\d+)n(\\d+)(?:k(\\d+))?").matcher(m);
            if (x.matches()) return new int[] {Integer.parseInt(x.group(1)), Integer.parseInt(x.group(2)),
                    x.group(3) == null ? 0 : Integer.parseInt(x.group(3))};
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------- the product

    /**
     * The running lane's elements of A x B for the C fragment {@code c} (without C): f64 for float types, i64 for
     * integers. {@code aWords}/{@code bWords} are the lane's registers; the warp's are gathered first.
     */
    private List<LLVMValueRef> product(Instruction i, int m, int n, int k, Type at, Type bt, Frag a, Frag bf, Frag c,
                                       List<LLVMValueRef> aWords, List<LLVMValueRef> bWords) {
        boolean integer = at == Type.S8 || at == Type.U8;
        List<LLVMValueRef> mine = new ArrayList<>(aWords);
        mine.addAll(bWords);
        LLVMValueRef all = l.gather(i, mine);
        LLVMTypeRef et = integer ? i64t() : LLVMDoubleTypeInContext(l.ctx);
        // one helper per form and module: the code exists once, and its matrices live only while it runs
        String key = "zluda.matrix." + i.opcode() + ".m" + m + "n" + n + "k" + k + "." + at.name().toLowerCase() + "."
                + bt.name().toLowerCase() + "." + aWords.size() + "." + bWords.size();
        LLVMValueRef out = l.scratch(LLVMArrayType2(et, c.elements()), "mma.d." + c.elements() + (integer ? "i" : "f"));
        LLVMTypeRef ptr = LLVMTypeOf(all);  // the allocas' address space (private on AMD GPUs)
        LLVMValueRef helper = helpers.computeIfAbsent(key, name -> productHelper(name, m, n, k, at, bt, a, bf, c, aWords.size(), bWords.size(), et, ptr));
        LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(l.ctx), Ll.array(ptr, i32t(), ptr), 3, 0);
        LLVMBuildCall2(b(), ft, helper, Ll.array(all, l.laneId(i), out), 3, "");
        List<LLVMValueRef> result = new ArrayList<>();
        for (int v = 0; v < c.elements(); v++) result.add(loadAt(et, out, c32(v)));
        return result;
    }

    private final java.util.Map<String, LLVMValueRef> helpers = new java.util.HashMap<>();

    /** void helper(i32* gathered, i32 lane, T* out): rebuilds A and B from the warp's fragments, out[v] = (A B)[lane's v]. */
    private LLVMValueRef productHelper(String name, int m, int n, int k, Type at, Type bt, Frag a, Frag bf, Frag c,
                                      int aCount, int bCount, LLVMTypeRef et, LLVMTypeRef ptr) {
        boolean integer = et.equals(i64t());
        LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(l.ctx), Ll.array(ptr, i32t(), ptr), 3, 0);
        LLVMValueRef fn = LLVMAddFunction(l.module, name, ft);
        LLVMSetLinkage(fn, LLVMInternalLinkage);
        String noinline = "noinline";
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                LLVMCreateEnumAttribute(l.ctx, LLVMGetEnumAttributeKindForName(noinline, noinline.length()), 0));
        int words = aCount + bCount;
        l.inFunction(fn, () -> {
            LLVMValueRef all = LLVMGetParam(fn, 0), lane = LLVMGetParam(fn, 1), out = LLVMGetParam(fn, 2);
            LLVMValueRef am = l.entryAlloca(LLVMArrayType2(et, (long) m * k), "a");
            LLVMValueRef bm = l.entryAlloca(LLVMArrayType2(et, (long) k * n), "b");
            int perA = perWord(at), perB = perWord(bt);
            l.forLanes(src -> {  // the warp's fragments into whole matrices, one lane per iteration
                LLVMValueRef sg = LLVMBuildLShr(b(), src, c32(2), ""), st = LLVMBuildAnd(b(), src, c32(3), "");
                LLVMValueRef first = LLVMBuildAdd(b(), LLVMBuildMul(b(), src, c32(words), ""), c32(words), "");
                for (int v = 0; v < a.elements(); v++) {
                    LLVMValueRef w = load32At(all, LLVMBuildAdd(b(), first, c32(v / perA), ""));
                    LLVMValueRef idx = LLVMBuildAdd(b(), LLVMBuildMul(b(), coordinate(a.row(), v, sg, st), c32(k), ""), coordinate(a.col(), v, sg, st), "");
                    storeAt(et, am, idx, element(w, v % perA, at));
                }
                for (int v = 0; v < bf.elements(); v++) {
                    LLVMValueRef w = load32At(all, LLVMBuildAdd(b(), first, c32(aCount + v / perB), ""));
                    LLVMValueRef idx = LLVMBuildAdd(b(), LLVMBuildMul(b(), coordinate(bf.row(), v, sg, st), c32(n), ""), coordinate(bf.col(), v, sg, st), "");
                    storeAt(et, bm, idx, element(w, v % perB, bt));
                }
            });
            LLVMValueRef g = LLVMBuildLShr(b(), lane, c32(2), ""), t = LLVMBuildAnd(b(), lane, c32(3), "");
            for (int v = 0; v < c.elements(); v++) {
                LLVMValueRef row = coordinate(c.row(), v, g, t), col = coordinate(c.col(), v, g, t);
                LLVMValueRef rowBase = LLVMBuildMul(b(), row, c32(k), "");
                LLVMValueRef acc = null;
                for (int kk = 0; kk < k; kk++) {
                    LLVMValueRef x = loadAt(et, am, LLVMBuildAdd(b(), rowBase, c32(kk), ""));
                    LLVMValueRef y = loadAt(et, bm, LLVMBuildAdd(b(), c32((long) kk * n), col, ""));
                    LLVMValueRef p = integer ? LLVMBuildMul(b(), x, y, "") : LLVMBuildFMul(b(), x, y, "");
                    acc = acc == null ? p : integer ? LLVMBuildAdd(b(), acc, p, "") : LLVMBuildFAdd(b(), acc, p, "");
                }
                storeAt(et, out, c32(v), acc);
            }
            LLVMBuildRetVoid(b());
        });
        return fn;
    }

    LLVMValueRef load32At(LLVMValueRef base, LLVMValueRef index) {
        LLVMValueRef p = LLVMBuildGEP2(b(), i32t(), base, Ll.array(index), 1, "");
        return LLVMBuildLoad2(b(), i32t(), p, "");
    }

    private void storeAt(LLVMTypeRef et, LLVMValueRef base, LLVMValueRef index, LLVMValueRef v) {
        LLVMValueRef p = LLVMBuildGEP2(b(), et, base, Ll.array(index), 1, "");
        LLVMBuildStore(b(), v, p);
    }

    private LLVMValueRef loadAt(LLVMTypeRef et, LLVMValueRef base, LLVMValueRef index) {
        LLVMValueRef p = LLVMBuildGEP2(b(), et, base, Ll.array(index), 1, "");
        return LLVMBuildLoad2(b(), et, p, "");
    }

    /** C's elements (f64 or i64) from its registers. */
    private List<LLVMValueRef> accumulator(Instruction i, Operand c, Type ct, int count) {
        List<LLVMValueRef> words = readWords(i, c);
        int per = perWord(ct);
        List<LLVMValueRef> out = new ArrayList<>();
        for (int v = 0; v < count; v++) out.add(element(words.get((v / per) % words.size()), v % per, ct));
        return out;
    }

    /** D = product + C, rounded once, written to D's registers (slot s holds element s mod count). */
    private void finish(Instruction i, Operand d, Type dt, List<LLVMValueRef> product, List<LLVMValueRef> c, boolean satfinite) {
        boolean integer = dt == Type.S32;
        List<Operand> regs = elements(d);
        int per = perWord(dt);
        List<LLVMValueRef> results = new ArrayList<>();
        for (int v = 0; v < product.size(); v++) {
            LLVMValueRef sum = integer ? LLVMBuildAdd(b(), product.get(v), c.get(v), "") : LLVMBuildFAdd(b(), product.get(v), c.get(v), "");
            results.add(narrow(sum, dt, satfinite));
        }
        List<LLVMValueRef> slots = new ArrayList<>();
        for (int s = 0; s < regs.size() * per; s++) slots.add(results.get(s % results.size()));
        List<LLVMValueRef> words = pack(slots, dt);
        for (int r = 0; r < regs.size(); r++) {
            if (dt == Type.F32) l.write(i, regs.get(r), LLVMBuildBitCast(b(), words.get(r), LLVMFloatTypeInContext(l.ctx), ""), Type.F32);
            else l.write(i, regs.get(r), words.get(r), Type.B32);
        }
    }

    // ------------------------------------------------------------------------------------------- mma.sync

    private void mma(Instruction i) {
        int[] s = shape(i);
        List<Type> ts = types(i);
        if (s == null || ts.size() != 4 || !i.has(".row") && s[2] != 0) throw unsupported(i, "(shape or types) is not supported yet");
        Type dt = ts.get(0), at = ts.get(1), bt = ts.get(2), ct = ts.get(3);
        Frag[] f = mmaFragments(s[0], s[1], s[2], at);
        if (f == null || i.has(".sp") || i.has(".col") && !i.has(".row")) throw unsupported(i, "(this shape and type) is not supported yet");
        if ((at == Type.F16) && dt != ct) throw unsupported(i, "is not a PTX form (.dtype and .ctype of f16 mma must be equal)");
        List<Operand> o = i.operands();
        boolean bytes = (at == Type.S8 || at == Type.U8) && (bt == Type.S8 || bt == Type.U8);
        boolean wmmaForm = (at == Type.F16 || at == Type.BF16) && bt == at && s[0] == 16 && s[1] == 8 && (s[2] == 16 || s[2] == 8)
                || bytes && (s[0] == 16 && s[1] == 8 && (s[2] == 32 || s[2] == 16) || s[0] == 8 && s[1] == 8 && s[2] == 16);
        if (l.target.wmmaLayout() != null && wmmaForm) {
            if (i.has(org.zludaj.ptx.pass.PairMma.PAIR)) {  // two m16n8 sharing A: columns 0-7 and 8-15 of one WMMA
                List<Operand> d = elements(o.get(0)), bo = elements(o.get(2)), co = elements(o.get(3));
                List<LLVMValueRef> bw = readWords(i, o.get(2));
                mmaWmma(i, s, dt, at, bt, ct, readWords(i, o.get(1)),
                        List.of(bw.subList(0, bo.size() / 2), bw.subList(bo.size() / 2, bo.size())),
                        List.of(new Operand.Vector(co.subList(0, co.size() / 2)), new Operand.Vector(co.subList(co.size() / 2, co.size()))),
                        List.of(new Operand.Vector(d.subList(0, d.size() / 2)), new Operand.Vector(d.subList(d.size() / 2, d.size()))));
            } else {
                mmaWmma(i, s, dt, at, bt, ct, readWords(i, o.get(1)), List.of(readWords(i, o.get(2))), List.of(o.get(3)), List.of(o.get(0)));
            }
            return;
        }
        if (l.target.wmmaLayout() == null && !l.target.hasWarpGather() && wmmaForm) {  // GPUs without WMMA (gfx10.3)
            dots.mma(i, s, dt, at, bt, ct);
            return;
        }
        List<LLVMValueRef> p = product(i, s[0], s[1], s[2], at, bt, f[0], f[1], f[2], readWords(i, o.get(1)), readWords(i, o.get(2)));
        finish(i, o.get(0), dt, p, accumulator(i, o.get(3), ct, f[2].elements()), i.has(".satfinite"));
    }

    /** Whether an mma.sync form goes to WMMA on a WMMA target (the same test as in mma()). */
    static boolean wmmaLowered(int[] s, Type at, Type bt) {
        boolean bytes = (at == Type.S8 || at == Type.U8) && (bt == Type.S8 || bt == Type.U8);
        return (at == Type.F16 || at == Type.BF16) && bt == at && s[0] == 16 && s[1] == 8 && (s[2] == 16 || s[2] == 8)
                || bytes && (s[0] == 16 && s[1] == 8 && (s[2] == 32 || s[2] == 16) || s[0] == 8 && s[1] == 8 && s[2] == 16);
    }

    // ------------------------------------------------------------------------------------------- mma.sync on WMMA

    LLVMValueRef permute(LLVMValueRef v, LLVMValueRef src) {
        return l.target.lanePermute(l.module, b(), l.threadContext(), v, src);
    }

    /** Independent permutes executed together (one step where the target batches them: the host's emulation). */
    List<LLVMValueRef> permutes(List<LLVMValueRef> values, List<LLVMValueRef> srcs) {
        int n = values.size();
        LLVMValueRef scratch = n > 1 && l.target.batchesLanePermutes()
                ? l.scratch(LLVMArrayType2(i32t(), 3L * n), "lane.permutes." + n) : null;
        return l.target.lanePermutes(l.module, b(), l.threadContext(), values, srcs, scratch);
    }

    private LLVMValueRef select(LLVMValueRef cond, LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildSelect(b(), cond, a, b, "");
    }

    private LLVMValueRef and(LLVMValueRef a, int mask) {
        return LLVMBuildAnd(b(), a, c32(mask), "");
    }

    private LLVMValueRef add(LLVMValueRef a, LLVMValueRef b) {
        return LLVMBuildAdd(b(), a, b, "");
    }

    private LLVMValueRef mul(LLVMValueRef a, int k) {
        return LLVMBuildMul(b(), a, c32(k), "");
    }

    private LLVMValueRef isSet(LLVMValueRef a, int mask) {
        return LLVMBuildICmp(b(), LLVMIntNE, and(a, mask), c32(0), "");
    }

    /**
     * mma.sync on a GPU with WMMA: m16n8k16/k8 (f16, bf16) and m16n8k32/k16, m8n8k16 (s8, u8). NVIDIA's A, B and C
     * fragments are re-laid out by lane permutes into the target's 16x16x16 operand layout (B's and C's columns 8-15,
     * and what the shape lacks, are zero), then WMMA (two along k for k32), then D's columns 0-7 go back to NVIDIA's C
     * layout. NVIDIA's layouts: A (i,k) at lane (i%8)*4 + (k%8)/2 (16-bit; 8-bit: (k%16)/4), register i/8 + 2(k/8)
     * (8-bit: 2(k/16)); B (k,j) at lane (j%8)*4 + the same, register k/8 (8-bit: k/16); C (i,j) at lane
     * (i%8)*4 + (j%8)/2, element (i/8)*2 + j%2. RDNA3: lane L holds row/column L%16 of A/B with all 16 k (lanes 16-31
     * repeat), D element v of lane L is (2v + L/16, L%16). RDNA4: lanes 16-31 hold k 8-15, D element v is
     * (8(L/16) + v, L%16). Integer C is added after the products (64-bit for .satfinite), so nothing wraps early.
     */
    private void mmaWmma(Instruction i, int[] shape, Type dt, Type at, Type bt, Type ct, List<LLVMValueRef> aw,
                         List<List<LLVMValueRef>> bws, List<Operand> cs, List<Operand> ds) {
        l.usesBlockOperations = true;
        boolean paired = bws.size() == 2;
        boolean integer = at == Type.S8 || at == Type.U8, m8 = shape[0] == 8;
        int k = shape[2];
        Target.WmmaInput input = !integer ? (at == Type.BF16 ? Target.WmmaInput.BF16 : Target.WmmaInput.F16)
                : at == Type.S8 ? (bt == Type.S8 ? Target.WmmaInput.S8S8 : Target.WmmaInput.S8U8)
                : (bt == Type.S8 ? Target.WmmaInput.U8S8 : Target.WmmaInput.U8U8);
        LLVMValueRef zero = c32(0), lane = l.laneId(i);
        int steps = integer && k == 32 ? 2 : 1;
        List<List<LLVMValueRef>> as = new ArrayList<>(), bs = new ArrayList<>();
        for (int h = 0; h < steps; h++) {  // 8-bit k32 is two WMMAs, h picks the half of k
            if (integer) {
                as.add(exchange.operand8(lane, aw.get(2 * h), m8 ? zero : aw.get(2 * h + 1)));
                bs.add(exchange.operand8(lane, bws.get(0).get(h), paired ? bws.get(1).get(h) : zero));
            } else {  // B's columns 8-15: the second operation's B (paired) or zero
                as.add(exchange.operand16(lane, aw, null, true, k));
                bs.add(exchange.operand16(lane, bws.get(0), paired ? bws.get(1) : null, false, k));
            }
        }
        boolean keep = dt == Type.F32 || dt == Type.S32;
        List<LLVMValueRef> c = keep && ct == dt ? forwarded(cs) : null;
        Accumulator cGroup = ct == Type.F32 || ct == Type.S32 ? accumulators.get(registerNames(cs).get(0)) : null;
        if (c == null && cGroup != null && cGroup.registers.equals(registerNames(cs))) {
            // the shadow while the registers are stale, else the registers converted
            var fn = l.kernel;
            var fromShadow = LLVMAppendBasicBlockInContext(l.ctx, fn, "wmma.c.shadow");
            var fromRegs = LLVMAppendBasicBlockInContext(l.ctx, fn, "wmma.c.registers");
            var join = LLVMAppendBasicBlockInContext(l.ctx, fn, "wmma.c");
            LLVMBuildCondBr(b(), LLVMBuildLoad2(b(), LLVMInt1TypeInContext(l.ctx), cGroup.stale, ""), fromShadow, fromRegs);
            LLVMPositionBuilderAtEnd(b(), fromShadow);
            List<LLVMValueRef> sv = new ArrayList<>();
            for (int v = 0; v < 8; v++) sv.add(loadAt(cGroup.element(), cGroup.shadow, c32(v)));
            LLVMBuildBr(b(), join);
            LLVMPositionBuilderAtEnd(b(), fromRegs);
            List<LLVMValueRef> rv;
            writing = true;  // reading the registers here needs no write-back: they are current on this path
            try {
                rv = accumulatorToWmma(i, ct, cs, lane, m8);
            } finally {
                writing = false;
            }
            var regsEnd = LLVMGetInsertBlock(b());
            LLVMBuildBr(b(), join);
            LLVMPositionBuilderAtEnd(b(), join);
            c = new ArrayList<>();
            for (int v = 0; v < 8; v++) {
                LLVMValueRef phi = LLVMBuildPhi(b(), cGroup.element(), "");
                LLVMAddIncoming(phi, Ll.array(sv.get(v), rv.get(v)), Ll.array(fromShadow, regsEnd), 2);
                c.add(phi);
            }
        }
        if (c == null) c = accumulatorToWmma(i, ct, cs, lane, m8);
        List<LLVMValueRef> dv;
        if (!integer) {
            dv = l.target.wmma(l.module, b(), l.threadContext(), input, as.get(0), bs.get(0), c);
        } else {  // products first (they cannot overflow), C added exactly after
            List<LLVMValueRef> p = new ArrayList<>();
            for (int v = 0; v < 8; v++) p.add(zero);
            for (int h = 0; h < steps; h++) p = l.target.wmma(l.module, b(), l.threadContext(), input, as.get(h), bs.get(h), p);
            dv = new ArrayList<>();
            for (int v = 0; v < 8; v++) dv.add(i.has(".satfinite") ? narrow(LLVMBuildAdd(b(), LLVMBuildSExt(b(), p.get(v), i64t(), ""),
                    LLVMBuildSExt(b(), c.get(v), i64t(), ""), ""), Type.S32, true) : LLVMBuildAdd(b(), p.get(v), c.get(v), ""));
        }
        Accumulator group = keep ? accumulators.get(registerNames(ds).get(0)) : null;
        if (group != null && group.registers.equals(registerNames(ds))) {  // stays in the WMMA layout: registers stale
            for (int v = 0; v < 8; v++) storeAt(group.element(), group.shadow, c32(v), dv.get(v));
            LLVMBuildStore(b(), LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 1, 0), group.stale);
            return;
        }
        writing = true;
        try {
            toNvidia(i, dv, dt, ds, m8);
        } finally {
            writing = false;
        }
        // an f32/s32 accumulator stays available in the WMMA layout for the next operation on the same registers
        if (keep) remember(ds, dv);
    }

    /** D (WMMA layout) back to NVIDIA's C layout into the registers of {@code ds} (one per m16n8 half). */
    private void toNvidia(Instruction i, List<LLVMValueRef> dv, Type dt, List<Operand> ds, boolean m8) {
        List<LLVMValueRef> words = new ArrayList<>();
        for (LLVMValueRef v : dv) words.add(bits(v));
        List<List<LLVMValueRef>> out = exchange.toNvidia(l.laneId(i), words, ds.size(), m8);
        for (int half = 0; half < ds.size(); half++) writeD(i, ds.get(half), dt, out.get(half));
    }

    private LLVMValueRef bits(LLVMValueRef x) {
        return LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMFloatTypeKind ? LLVMBuildBitCast(b(), x, i32t(), "") : x;
    }

    /**
     * C (one or two m16n8 accumulators, or m8n8's) in the WMMA layout: columns 0-7 from the first, 8-15 from the
     * second or zero; f32 for floats (an f16 accumulator widens exactly), i32 for integers.
     */
    private List<LLVMValueRef> accumulatorToWmma(Instruction i, Type ct, List<Operand> cs, LLVMValueRef lane, boolean m8) {
        List<List<LLVMValueRef>> cvs = new ArrayList<>();
        for (Operand c : cs) {
            List<LLVMValueRef> cw = readWords(i, c), cv = new ArrayList<>();
            for (int e = 0; e < (m8 ? 2 : 4); e++) cv.add(ct != Type.F16 ? cw.get(e)
                    : LLVMBuildBitCast(b(), LLVMBuildFPTrunc(b(), element(cw.get(e / 2), e % 2, Type.F16), LLVMFloatTypeInContext(l.ctx), ""), i32t(), ""));
            cvs.add(cv);
        }
        List<LLVMValueRef> acc = new ArrayList<>();
        for (LLVMValueRef x : exchange.accumulator(lane, cvs.get(0), cvs.size() == 2 ? cvs.get(1) : null, m8))
            acc.add(ct == Type.S32 ? x : LLVMBuildBitCast(b(), x, LLVMFloatTypeInContext(l.ctx), ""));
        return acc;
    }

    void writeD(Instruction i, Operand d, Type dt, List<LLVMValueRef> out) {
        List<Operand> regs = elements(d);
        if (dt == Type.F32) {
            for (int e = 0; e < regs.size(); e++) l.write(i, regs.get(e), LLVMBuildBitCast(b(), out.get(e), LLVMFloatTypeInContext(l.ctx), ""), Type.F32);
            return;
        }
        if (dt == Type.S32) {
            for (int e = 0; e < regs.size(); e++) l.write(i, regs.get(e), out.get(e), Type.B32);
            return;
        }
        List<LLVMValueRef> halves = new ArrayList<>();
        for (LLVMValueRef x : out) {
            LLVMValueRef f = LLVMBuildBitCast(b(), x, LLVMFloatTypeInContext(l.ctx), "");
            LLVMValueRef h = l.floats.conversions.convertFloat(f, Type.F32, Type.F16, FloatOps.Round.RN, false, false);
            halves.add(LLVMBuildZExt(b(), LLVMBuildBitCast(b(), h, LLVMInt16TypeInContext(l.ctx), ""), i32t(), ""));
        }
        List<LLVMValueRef> words = pack(halves, Type.F16);
        for (int r = 0; r < regs.size(); r++) l.write(i, regs.get(r), words.get(r), Type.B32);
    }

    // ---- accumulators kept in the WMMA layout: D of one operation is C of the next one in a k-loop; reusing the
    // WMMA-layout values skips two rounds of permutes (LLVM then drops the unused conversion back)

    private record Kept(List<String> registers, List<LLVMValueRef> values, org.bytedeco.llvm.LLVM.LLVMBasicBlockRef block) {}

    private final java.util.Map<String, Kept> kept = new java.util.HashMap<>();
    private boolean writing;

    static List<String> registerNames(List<Operand> operands) {
        List<String> names = new ArrayList<>();
        for (Operand o : operands) for (Operand e : elements(o)) names.add(e instanceof Operand.Name n ? n.name() : "?" + e);
        return names;
    }

    private void remember(List<Operand> ds, List<LLVMValueRef> values) {
        List<String> names = registerNames(ds);
        for (String n : names) {  // whatever was kept for these registers is gone
            Kept old = kept.get(n);
            if (old != null) for (String m : old.registers()) kept.remove(m, old);
        }
        Kept k = new Kept(names, values, LLVMGetInsertBlock(b()));
        for (String n : names) kept.put(n, k);
    }

    private List<LLVMValueRef> forwarded(List<Operand> cs) {
        List<String> names = registerNames(cs);
        Kept k = kept.get(names.get(0));
        if (k == null || !k.registers().equals(names) || !k.block().equals(LLVMGetInsertBlock(b()))) return null;
        return k.values();
    }

    /** Lowering calls this for every register it writes: a kept accumulator is no longer what the register holds. */
    void written(String register) {
        if (writing) return;
        Accumulator acc = accumulators.get(register);
        if (acc != null) acc.materialize();  // the others of the group must be current before this one changes
        if (kept.isEmpty()) return;
        Kept k = kept.get(register);
        if (k != null) for (String n : k.registers()) kept.remove(n, k);
    }

    /** Lowering calls this before it reads a register: an accumulator held in the WMMA layout is written back first. */
    void beforeRead(String register) {
        if (writing || accumulators.isEmpty()) return;
        Accumulator acc = accumulators.get(register);
        if (acc != null) acc.materialize();
    }

    // ---- accumulators carried in the WMMA layout across loops. Registers that are only ever the D of one WMMA-
    // lowered mma form (f32/s32) get a shadow in the WMMA layout and a runtime flag "the registers are stale": the
    // WMMA writes the shadow and sets the flag; an mma whose C is the group takes the shadow while the flag is set;
    // any other read or write of a group register first writes the shadow back (the permutes run then, once). In a
    // k-loop the conversions therefore happen before the loop and after it, not in every iteration.

    private final class Accumulator {
        final List<String> registers;
        final boolean integer;
        final int halves;  // 1 or 2 (paired): m16n8 tiles in the 16 columns
        LLVMValueRef shadow, stale;
        boolean busy;

        Accumulator(List<String> registers, boolean integer, int halves) {
            this.registers = registers;
            this.integer = integer;
            this.halves = halves;
        }

        LLVMTypeRef element() {
            return integer ? i32t() : LLVMFloatTypeInContext(l.ctx);
        }

        void allocate() {
            shadow = l.entryAlloca(LLVMArrayType2(element(), 8), "wmma.acc");
            stale = l.entryAlloca(LLVMInt1TypeInContext(l.ctx), "wmma.stale");
            // the builder is still in the entry block here (Lowering calls beginFunction before the body)
            LLVMBuildStore(b(), LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 0, 0), stale);
        }

        /** If the registers are stale, permute the shadow back into NVIDIA's layout and write them. */
        void materialize() {
            if (busy) return;
            busy = true;
            try {
                var fn = l.kernel;
                var back = LLVMAppendBasicBlockInContext(l.ctx, fn, "wmma.writeback");
                var done = LLVMAppendBasicBlockInContext(l.ctx, fn, "wmma.current");
                LLVMBuildCondBr(b(), LLVMBuildLoad2(b(), LLVMInt1TypeInContext(l.ctx), stale, ""), back, done);
                LLVMPositionBuilderAtEnd(b(), back);
                List<LLVMValueRef> dv = new ArrayList<>();
                for (int v = 0; v < 8; v++) dv.add(loadAt(element(), shadow, c32(v)));
                writing = true;
                try {
                    toNvidia(null, dv, integer ? Type.S32 : Type.F32, groupOperands(), false);
                } finally {
                    writing = false;
                }
                LLVMBuildStore(b(), LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 0, 0), stale);
                LLVMBuildBr(b(), done);
                LLVMPositionBuilderAtEnd(b(), done);
            } finally {
                busy = false;
            }
        }

        List<Operand> groupOperands() {
            List<Operand> ds = new ArrayList<>();
            int per = registers.size() / halves;
            for (int h = 0; h < halves; h++) {
                List<Operand> regs = new ArrayList<>();
                for (String r : registers.subList(h * per, (h + 1) * per)) regs.add(new Operand.Name(r, null));
                ds.add(new Operand.Vector(regs));
            }
            return ds;
        }
    }

    private final java.util.Map<String, Accumulator> accumulators = new java.util.HashMap<>();

    /**
     * Before a function is lowered: the register groups worth carrying in the WMMA layout ({@link CarriedGroups}).
     * Where other code rescales the accumulators every iteration (flash attention) or there is no loop, the registers
     * are kept current (within a block the last D is reused anyway, see {@link #forwarded}).
     */
    void beginFunction(List<org.zludaj.ptx.model.Statement> body) {
        accumulators.clear();
        kept.clear();
        if (l.target.wmmaLayout() == null) return;
        for (CarriedGroups.Group g : CarriedGroups.choose(body)) {
            Accumulator a = new Accumulator(g.registers(), g.integer(), g.halves());
            a.allocate();
            for (String r : g.registers()) accumulators.put(r, a);
        }
    }

    // ------------------------------------------------------------------------------------------- wmma

    private void wmma(Instruction i) {
        int[] s = shape(i);
        List<Type> ts = types(i);
        List<Operand> o = i.operands();
        Type elementType = ts.size() == 2 ? Type.F16 : ts.size() == 4 ? ts.get(1) : ts.isEmpty() ? null : ts.get(0);
        Frag[] f = s == null ? null : wmmaFragments(s[0], s[1], s[2], elementType == Type.S8 || elementType == Type.U8);
        if (f == null) throw unsupported(i, "(this shape) is not supported yet");
        // AMD GPUs: m16n16k16 fragments in the WMMA's own layout (fragments are opaque in CUDA), no re-layout
        boolean amdLayout = l.target.wmmaLayout() != null && s[0] == 16 && s[1] == 16 && s[2] == 16
                && (i.has(".mma") ? elementType != Type.TF32 && elementType != Type.F64 : true)
                && (i.has(".mma") || elementType == Type.F16 || elementType == Type.BF16 || elementType == Type.S8
                    || elementType == Type.U8 || elementType == Type.F32 || elementType == Type.S32)
                && (!i.has(".mma") || ts.size() == 2 || ts.size() == 4 && ts.get(1) == ts.get(2));
        if (i.has(".mma")) {
            Type dt = ts.get(0), ct = ts.get(ts.size() - 1);
            Type at = ts.size() == 4 ? ts.get(1) : Type.F16, bt = ts.size() == 4 ? ts.get(2) : Type.F16;
            if (at == Type.TF32 || at == Type.F64 || ts.size() != 2 && ts.size() != 4 || i.has(".satfinite") && dt != Type.S32)
                throw unsupported(i, "(this type) is not supported yet");
            if (amdLayout) {
                nativeWmmaMma(i, dt, at, bt, ct);
                return;
            }
            if (l.target.wmmaLayout() != null && (at == Type.F16 || at == Type.BF16 || at == Type.S8 || at == Type.U8)
                    && at == bt && s[0] != s[1]) {
                tiledWmmaMma(i, s, dt, at, ct);
                return;
            }
            List<LLVMValueRef> p = product(i, s[0], s[1], s[2], at, bt, f[0], f[1], f[2], readWords(i, o.get(1)), readWords(i, o.get(2)));
            finish(i, o.get(0), dt, p, accumulator(i, o.get(3), ct, f[2].elements()), i.has(".satfinite"));
            return;
        }
        boolean load = i.has(".load");
        if (!load && !i.has(".store") || ts.size() != 1) throw unsupported(i, "is not supported yet");
        Type t = ts.get(0);
        int which = i.has(".a") ? 0 : i.has(".b") ? 1 : 2;
        Frag frag = f[which];
        int rows = which == 1 ? s[2] : s[0], cols = which == 0 ? s[2] : s[1];
        boolean rowMajor = !i.has(".col");
        Operand addr = o.get(load ? 1 : 0), regs = o.get(load ? 0 : 1);
        LLVMValueRef base = l.address(i, (Operand.Address) addr, l.space(i));
        LLVMValueRef stride = o.size() > 2 ? l.read(i, o.get(2), Type.U32) : c32(rowMajor ? cols : rows);
        LLVMValueRef lane = l.laneId(i);
        LLVMValueRef g = LLVMBuildLShr(b(), lane, c32(2), ""), tt = LLVMBuildAnd(b(), lane, c32(3), "");
        int bytes = 4 / perWord(t);
        LLVMTypeRef et = LLVMIntTypeInContext(l.ctx, bytes * 8);
        List<LLVMValueRef> pointers = new ArrayList<>();
        LLVMValueRef l16 = and(lane, 15), half = LLVMBuildLShr(b(), lane, c32(4), "");
        for (int v = 0; v < frag.elements(); v++) {
            LLVMValueRef r, c;
            if (amdLayout) {  // A: row L%16, k 8(L/16)+v; B: k 8(L/16)+v, column L%16; C: the WMMA's accumulator layout
                LLVMValueRef k = add(mul(half, 8), c32(v));
                if (which == 0) { r = l16; c = k; }
                else if (which == 1) { r = k; c = l16; }
                else {
                    r = l.target.wmmaLayout() == Target.WmmaLayout.RDNA3 ? add(c32(2L * v), half) : add(mul(half, 8), c32(v));
                    c = l16;
                }
            } else {
                r = coordinate(frag.row(), v, g, tt);
                c = coordinate(frag.col(), v, g, tt);
            }
            LLVMValueRef index = rowMajor ? LLVMBuildAdd(b(), LLVMBuildMul(b(), r, stride, ""), c, "")
                    : LLVMBuildAdd(b(), LLVMBuildMul(b(), c, stride, ""), r, "");
            LLVMValueRef off = LLVMBuildMul(b(), LLVMBuildZExt(b(), index, i64t(), ""), LLVMConstInt(i64t(), bytes, 0), "");
            pointers.add(LLVMBuildGEP2(b(), LLVMInt8TypeInContext(l.ctx), base, Ll.array(off), 1, ""));
        }
        List<Operand> rs = elements(regs);
        if (load) {
            List<LLVMValueRef> values = new ArrayList<>();
            for (LLVMValueRef p : pointers) {
                LLVMValueRef x = LLVMBuildLoad2(b(), et, p, "");
                values.add(bytes == 4 ? x : LLVMBuildZExt(b(), x, i32t(), ""));
            }
            List<LLVMValueRef> slots = new ArrayList<>();
            for (int k = 0; k < rs.size() * perWord(t); k++) slots.add(values.get(k % values.size()));
            List<LLVMValueRef> words = pack(slots, t);
            for (int r = 0; r < rs.size(); r++) {
                if (t == Type.F32) l.write(i, rs.get(r), LLVMBuildBitCast(b(), words.get(r), LLVMFloatTypeInContext(l.ctx), ""), Type.F32);
                else l.write(i, rs.get(r), words.get(r), Type.B32);
            }
        } else {
            List<LLVMValueRef> words = readWords(i, regs);
            int per = perWord(t);
            for (int v = 0; v < frag.elements(); v++) {
                LLVMValueRef w = words.get(v / per);
                if (v % per != 0) w = LLVMBuildLShr(b(), w, c32((long) (v % per) * (32 / per)), "");
                LLVMBuildStore(b(), bytes == 4 ? w : LLVMBuildTrunc(b(), w, et, ""), pointers.get(v));
            }
        }
        l.warpMemoryDone(i);
    }

    /**
     * wmma.mma.m16n16k16 with fragments already in the WMMA layout: A and B hold k 8(L/16)..+7 of row/column L%16
     * (RDNA4's own operand layout); RDNA3 wants all 16 k in every lane, so the other half comes from lane L^16.
     */
    private void nativeWmmaMma(Instruction i, Type dt, Type at, Type bt, Type ct) {
        l.usesBlockOperations = true;
        boolean rdna3 = l.target.wmmaLayout() == Target.WmmaLayout.RDNA3, integer = at == Type.S8 || at == Type.U8;
        List<Operand> o = i.operands();
        int words = integer ? 2 : 4;  // a half-k operand: 8 elements
        List<LLVMValueRef> a = readWords(i, o.get(1)).subList(0, words), b = readWords(i, o.get(2)).subList(0, words);
        if (rdna3) {
            LLVMValueRef lane = l.laneId(i), other = LLVMBuildXor(b(), lane, c32(16), ""), hi = isSet(lane, 16);
            a = fullK(a, other, hi);
            b = fullK(b, other, hi);
        }
        Target.WmmaInput input = !integer ? (at == Type.BF16 ? Target.WmmaInput.BF16 : Target.WmmaInput.F16)
                : at == Type.S8 ? (bt == Type.S8 ? Target.WmmaInput.S8S8 : Target.WmmaInput.S8U8)
                : (bt == Type.S8 ? Target.WmmaInput.U8S8 : Target.WmmaInput.U8U8);
        List<LLVMValueRef> cw = readWords(i, o.get(3)), c = new ArrayList<>();
        for (int v = 0; v < 8; v++) {
            if (ct == Type.F16) c.add(LLVMBuildFPTrunc(b(), element(cw.get(v / 2), v % 2, Type.F16), LLVMFloatTypeInContext(l.ctx), ""));
            else if (ct == Type.F32) c.add(LLVMBuildBitCast(b(), cw.get(v), LLVMFloatTypeInContext(l.ctx), ""));
            else c.add(cw.get(v));
        }
        List<LLVMValueRef> d;
        if (!integer) {
            d = l.target.wmma(l.module, b(), l.threadContext(), input, a, b, c);
        } else {  // products first, C added exactly (64-bit for .satfinite)
            List<LLVMValueRef> zero = new ArrayList<>();
            for (int v = 0; v < 8; v++) zero.add(c32(0));
            List<LLVMValueRef> p = l.target.wmma(l.module, b(), l.threadContext(), input, a, b, zero);
            d = new ArrayList<>();
            for (int v = 0; v < 8; v++) d.add(i.has(".satfinite") ? narrow(LLVMBuildAdd(b(), LLVMBuildSExt(b(), p.get(v), i64t(), ""),
                    LLVMBuildSExt(b(), c.get(v), i64t(), ""), ""), Type.S32, true) : LLVMBuildAdd(b(), p.get(v), c.get(v), ""));
        }
        List<Operand> regs = elements(o.get(0));
        if (dt == Type.F16) {
            List<LLVMValueRef> halves = new ArrayList<>();
            for (LLVMValueRef x : d) {
                LLVMValueRef h = l.floats.conversions.convertFloat(x, Type.F32, Type.F16, FloatOps.Round.RN, false, false);
                halves.add(LLVMBuildZExt(b(), LLVMBuildBitCast(b(), h, LLVMInt16TypeInContext(l.ctx), ""), i32t(), ""));
            }
            List<LLVMValueRef> w = pack(halves, Type.F16);
            for (int r = 0; r < regs.size(); r++) l.write(i, regs.get(r), w.get(r % w.size()), Type.B32);
        } else {
            for (int r = 0; r < regs.size(); r++) l.write(i, regs.get(r), d.get(r % 8), dt == Type.F32 ? Type.F32 : Type.B32);
        }
    }

    /**
     * wmma.mma m32n8k16 / m8n32k16 (f16, bf16) on a WMMA GPU: their fragments (see {@link #wmmaFragments}) are
     * mma.m16n8k16 fragments tiled, so the operation is m16n8k16 operations on the tiles: m32n8k16 two (rows 0-15 and
     * 16-31), m8n32k16 four 8-row ones (A's rows 8-15 zero) paired two by two, each lowered as mma.sync is.
     */
    private void tiledWmmaMma(Instruction i, int[] s, Type dt, Type at, Type ct) {
        List<Operand> o = i.operands();
        List<LLVMValueRef> aw = readWords(i, o.get(1)), bw = readWords(i, o.get(2));
        List<Operand> c = elements(o.get(3)), d = elements(o.get(0));
        boolean bytes = at == Type.S8 || at == Type.U8;
        int perC = ct == Type.F16 ? 2 : 1, perD = dt == Type.F16 ? 2 : 1;
        int aTile = bytes ? 2 : 4, bTile = bytes ? 1 : 2;  // words of an m16n8k16 A and B
        int[] shape16 = {16, 8, 16};
        if (s[0] == 32) {  // two 16-row tiles; C/D: 4 elements per tile
            for (int t = 0; t < 2; t++) {
                mmaWmma(i, shape16, dt, at, at, ct, aw.subList(aTile * t, aTile * (t + 1)), List.of(bw.subList(0, bTile)),
                        List.of(new Operand.Vector(c.subList(4 * t / perC, 4 * (t + 1) / perC))),
                        List.of(new Operand.Vector(d.subList(4 * t / perD, 4 * (t + 1) / perD))));
            }
            return;
        }
        // m8n32k16: A's elements are rows 0-7 of an m16n8k16 A (the rows-8-15 words zero); B tile j: its words;
        // C/D tile j: elements 2j, 2j+1
        LLVMValueRef zero = c32(0);
        List<LLVMValueRef> a = bytes ? List.of(aw.get(0), zero) : List.of(aw.get(0), zero, aw.get(1), zero);
        int[] shape8 = {8, 8, 16};
        for (int pair = 0; pair < 2; pair++) {
            List<List<LLVMValueRef>> bs = new ArrayList<>();
            List<Operand> cs = new ArrayList<>(), ds = new ArrayList<>();
            for (int j = 2 * pair; j < 2 * pair + 2; j++) {
                bs.add(bw.subList(bTile * j, bTile * (j + 1)));
                cs.add(new Operand.Vector(c.subList(2 * j / perC, (2 * j + 2) / perC)));
                ds.add(new Operand.Vector(d.subList(2 * j / perD, (2 * j + 2) / perD)));
            }
            mmaWmma(i, shape8, dt, at, at, ct, a, bs, cs, ds);
        }
    }

    /** RDNA3 operands from half-k ones: words of k 0-7 then k 8-15, this lane's half and lane L^16's. */
    private List<LLVMValueRef> fullK(List<LLVMValueRef> own, LLVMValueRef other, LLVMValueRef hi) {
        List<LLVMValueRef> theirs = permutes(own, java.util.Collections.nCopies(own.size(), other));
        List<LLVMValueRef> full = new ArrayList<>();
        for (int k = 0; k < own.size(); k++) full.add(select(hi, theirs.get(k), own.get(k)));   // k 0-7: lanes 0-15 hold them
        for (int k = 0; k < own.size(); k++) full.add(select(hi, own.get(k), theirs.get(k)));   // k 8-15
        return full;
    }
}
