package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.llvm.Ll;
import org.zludaj.ptx.llvm.LoopPragmas;
import org.zludaj.ptx.model.StateSpace;

/** NVIDIA GPUs through LLVM's NVPTX back end: the cuda loopback backend runs our PTX output on NVIDIA's driver. */
public record NvptxTarget(int sm) implements Target {
    @Override
    public String name() {
        return "sm_" + sm;
    }

    @Override
    public String triple() {
        return "nvptx64-nvidia-cuda";
    }

    /** PTX names beginning with {@code %} renamed ({@link NvptxNames}): LLVM's NVPTX assembler ends the process on them. */
    @Override
    public String symbol(String ptxName) {
        return NvptxNames.of(ptxName);
    }

    @Override
    public String cpu() {
        return "sm_" + sm;
    }

    @Override
    public String features() {
        return sm >= 90 ? "+ptx80" : sm >= 80 ? "+ptx70" : "+ptx64";
    }

    @Override
    public int addressSpace(StateSpace space) {
        return switch (space) {
            case GLOBAL -> 1;
            case SHARED -> 3;
            case CONST -> 4;
            case LOCAL -> 5;
            default -> 0;
        };
    }

    @Override
    public LLVMValueRef specialRegister(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, String name, int dim) {
        if (dim < 0) {
            return switch (name) {
                case "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%clock", "%lanemask_eq", "%lanemask_le",
                     "%lanemask_lt", "%lanemask_ge", "%lanemask_gt" ->
                        Ll.intrinsic(m, b, "llvm.nvvm.read.ptx.sreg." + name.substring(1).replace("lanemask_", "lanemask."), new LLVMTypeRef[0]);
                // registers without an LLVM intrinsic: read by NVIDIA's own mov
                case "%clock64", "%globaltimer" -> Ll.asm(b, LLVMInt64TypeInContext(LLVMGetModuleContext(m)), "mov.u64 $0, " + name + ";", "=l");
                case "%dynamic_smem_size", "%total_smem_size", "%globaltimer_lo", "%globaltimer_hi", "%clock_hi" ->
                        Ll.asm(b, LLVMInt32TypeInContext(LLVMGetModuleContext(m)), "mov.u32 $0, " + name + ";", "=r");
                default -> name.matches("%envreg([0-9]|[12][0-9]|3[01])")
                        ? Ll.asm(b, LLVMInt32TypeInContext(LLVMGetModuleContext(m)), "mov.b32 $0, " + name + ";", "=r") : null;
            };
        }
        return Ll.intrinsic(m, b, "llvm.nvvm.read.ptx.sreg." + name.substring(1) + "." + "xyz".charAt(dim), new LLVMTypeRef[0]);
    }

    @Override
    public LLVMValueRef approxMath(LLVMModuleRef m, LLVMBuilderRef b, String op, boolean ftz, LLVMValueRef x) {
        // tanh.approx.f32 (PTX 7.0, sm_75 on; our output declares 7.0 from sm_80): NVIDIA's own, in inline PTX
        if (op.equals("tanh")) return sm >= 80 ? Ll.pureAsm(b, LLVMTypeOf(x), "tanh.approx.f32 $0, $1;", "=f,f", x) : null;
        String name = switch (op) {
            case "ex2" -> "llvm.nvvm.ex2.approx" + (ftz ? ".ftz" : "") + ".f";
            case "lg2" -> "llvm.nvvm.lg2.approx" + (ftz ? ".ftz" : "") + ".f";
            case "sin" -> "llvm.nvvm.sin.approx" + (ftz ? ".ftz" : "") + ".f";
            case "cos" -> "llvm.nvvm.cos.approx" + (ftz ? ".ftz" : "") + ".f";
            default -> null;
        };
        return name == null ? null : Ll.intrinsic(m, b, name, new LLVMTypeRef[0], x);
    }

    @Override
    public boolean canonicalNaN() {
        return true;
    }

    /**
     * f16 add/sub/mul/fma as NVIDIA's own instructions in inline PTX (opaque to LLVM, so its folds cannot change NaN
     * bits): on NVIDIA's GPUs they are PTX's semantics by definition. The generic lowering (f64 with rounding to odd
     * for fma) made ggml's f16 matrix-vector kernels run at half of NVIDIA's speed. An add, sub or mul written without
     * a rounding modifier keeps none, so NVIDIA's compiler may fuse it as it does in NVIDIA's own PTX.
     */
    @Override
    public LLVMValueRef halfOp(LLVMModuleRef m, LLVMBuilderRef b, String op, boolean ftz, boolean unrounded, LLVMValueRef[] in) {
        String text = halfText(op, ftz, unrounded, ".f16", in.length);
        if (text == null) return null;
        LLVMTypeRef i16 = LLVMInt16TypeInContext(LLVMGetModuleContext(m)), half = LLVMTypeOf(in[0]);
        LLVMValueRef[] bits = new LLVMValueRef[in.length];
        for (int k = 0; k < in.length; k++) bits[k] = LLVMBuildBitCast(b, in[k], i16, "");
        return LLVMBuildBitCast(b, inline(b, text, i16, bits), half, "");
    }

    /** f16x2 add/sub/mul/fma as NVIDIA's own packed instructions (one instruction, not two halves and a repack). */
    @Override
    public LLVMValueRef halfPairOp(LLVMModuleRef m, LLVMBuilderRef b, String op, boolean ftz, boolean unrounded, LLVMValueRef[] in) {
        String text = halfText(op, ftz, unrounded, ".f16x2", in.length);
        return text == null ? null : inline(b, text, LLVMInt32TypeInContext(LLVMGetModuleContext(m)), in);
    }

    private static String halfText(String op, boolean ftz, boolean unrounded, String type, int operands) {
        String f = ftz ? ".ftz" : "";
        return switch (op) {
            case "add", "sub", "mul" -> operands == 2 ? op + (unrounded ? "" : ".rn") + f + type : null;
            case "fma", "mad" -> operands == 3 ? "fma.rn" + f + type : null;
            default -> null;
        };
    }

    /**
     * NVIDIA's instructions themselves, through LLVM's NVVM intrinsics or inline PTX (each one PTX instruction). An
     * add, sub or mul without a rounding modifier stays without one, in inline PTX (the intrinsics all name one), so
     * NVIDIA's compiler fuses a mul into an add as it does in NVIDIA's own PTX (ggml's attention kernels: 161 of them
     * in one vector kernel).
     */
    @Override
    public LLVMValueRef floatOp(LLVMModuleRef m, LLVMBuilderRef b, String op, boolean f64, String rounding, boolean ftz, boolean approx,
                                LLVMValueRef[] in) {
        String t = f64 ? ".d" : ".f", f = ftz ? ".ftz" : "", r = rounding.isEmpty() ? "" : "." + rounding;
        if (f64 && ftz) return null;
        if (rounding.isEmpty() && (op.equals("add") || op.equals("mul")) && !approx && in.length == 2) {
            String k = f64 ? "d" : "f";
            return Ll.pureAsm(b, LLVMTypeOf(in[0]), op + f + (f64 ? ".f64" : ".f32") + " $0, $1, $2;", "=" + k + "," + k + "," + k, in);
        }
        // copysign (sign of the first operand, magnitude of the second) as bit operations in inline PTX, opaque to
        // LLVM: LLVM 20's InstCombine folded min(copysign(x, y), min(x, y)) to min(x, y), wrong wherever y is
        // negative and x positive (corpus kernel fuzz_1_19670: -5.9e-22 for NVIDIA's -2.5e21); and NVIDIA's JIT gave
        // |x| for its own copysign.f32 of one register twice (copysign(x, x) is x) in our output (six corpus kernels)
        if (op.equals("copysign") && in.length == 2) {
            String k = f64 ? "d" : "f", w = f64 ? "b64" : "b32";
            String sign = f64 ? "0x8000000000000000" : "0x80000000", magnitude = f64 ? "0x7FFFFFFFFFFFFFFF" : "0x7FFFFFFF";
            String text = "{ .reg ." + w + " %za, %zb; mov." + w + " %za, $1; mov." + w + " %zb, $2; and." + w + " %za, %za, " + sign
                    + "; and." + w + " %zb, %zb, " + magnitude + "; or." + w + " %za, %za, %zb; mov." + w + " $0, %za; }";
            return Ll.pureAsm(b, LLVMTypeOf(in[0]), text, "=" + k + "," + k + "," + k, in);
        }
        // sub as NVIDIA's own sub, not add of a negation: NVIDIA's sub with a NaN subtrahend gives that NaN with its
        // own sign, our sign flip before an add gave the opposite sign (corpus kernel fuzz_1_06405: sub.rz.f64, its
        // NaN's sign then carried into 64-bit integer arithmetic)
        if (op.equals("sub") && !approx && in.length == 2) {
            String k = f64 ? "d" : "f";
            return Ll.pureAsm(b, LLVMTypeOf(in[0]), "sub" + r + f + (f64 ? ".f64" : ".f32") + " $0, $1, $2;", "=" + k + "," + k + "," + k, in);
        }
        // abs and neg as NVIDIA's own instructions in inline PTX: their NaN (the canonical one), -0 and .ftz are the
        // GPU's own; LLVM's fabs/fneg needed each of those made explicit, ten instructions for an abs.ftz.f32 where
        // NVIDIA's PTX has one (ggml's quantizing copies take the absolute value of each element: their SASS 1.2 times
        // NVIDIA's)
        if ((op.equals("abs") || op.equals("neg")) && in.length == 1 && !approx) {
            String k = f64 ? "d" : "f";
            return Ll.pureAsm(b, LLVMTypeOf(in[0]), op + f + (f64 ? ".f64" : ".f32") + " $0, $1;", "=" + k + "," + k, in);
        }
        // min/max as NVIDIA's own instructions in inline PTX (see minMax below)
        if ((op.equals("min") || op.equals("max")) && in.length == 2) {
            String k = f64 ? "d" : "f";
            return Ll.pureAsm(b, LLVMTypeOf(in[0]), op + f + (f64 ? ".f64" : ".f32") + " $0, $1, $2;", "=" + k + "," + k + "," + k, in);
        }
        String name = switch (op) {
            case "add" -> approx ? null : "llvm.nvvm.add" + r + f + t;
            case "mul" -> approx ? null : "llvm.nvvm.mul" + r + f + t;
            case "fma", "mad" -> in.length == 3 ? "llvm.nvvm.fma" + r + f + t : null;
            case "div" -> approx ? (f64 ? null : "llvm.nvvm.div.approx" + f + t) : "llvm.nvvm.div" + r + f + t;
            case "rcp" -> approx ? (ftz && !f64 ? "llvm.nvvm.rcp.approx.ftz.f" : null) : "llvm.nvvm.rcp" + r + f + t;
            case "sqrt" -> approx ? (f64 ? null : "llvm.nvvm.sqrt.approx" + f + t) : "llvm.nvvm.sqrt" + r + f + t;
            case "rsqrt" -> approx ? "llvm.nvvm.rsqrt.approx" + f + t : null;
            case "ex2", "lg2", "sin", "cos" -> approx && !f64 ? "llvm.nvvm." + op + ".approx" + f + t : null;
            default -> null;
        };
        if (name == null) return null;
        return Ll.intrinsic(m, b, name, new LLVMTypeRef[0], in.clone());
    }

    /**
     * The ISA's arithmetic, {@code (x ^ s) - s} with {@code s = x >> (w - 1)}, in inline PTX, not NVIDIA's {@code abs}:
     * its optimizer takes {@code abs.s32} for never negative and folds a sign test of it to false, wrong for the
     * most negative value, whose absolute value is itself (corpus kernels such as fuzz_1_02412: LLVM's saturating
     * addition of an {@code abs} tests the operand's sign; right at NVIDIA's JIT -O0, wrong from -O1 on).
     */
    @Override
    public LLVMValueRef integerAbs(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef x) {
        int w = LLVMGetIntTypeWidth(LLVMTypeOf(x));
        String k = w == 64 ? "l" : w == 32 ? "r" : w == 16 ? "h" : null;
        if (k == null) return null;
        String text = "{ .reg .b" + w + " %zs; shr.s" + w + " %zs, $1, " + (w - 1) + "; xor.b" + w + " $0, $1, %zs; sub.s" + w
                + " $0, $0, %zs; }";
        return Ll.pureAsm(b, LLVMTypeOf(x), text, "=" + k + "," + k, new LLVMValueRef[] {x});
    }

    /**
     * min.f32/max.f32 (.NaN: sm_80 and later), min.f64/max.f64: NVIDIA's own instructions, in inline PTX. Through
     * LLVM's NVVM intrinsics LLVM took them for maxnum/minnum, whose NaN results it does not define, and rewrote
     * them: max(x, max.NaN(y, x)) became "x where the inner result is NaN", x's own NaN where NVIDIA's max of two NaNs
     * gives the canonical one, whose sign a later copysign then carried (fuzz_2_00805 of seed 2; fuzz_2_01161: min(x,
     * -x) of a NaN came out 0x7fc00000, NVIDIA's 0x7fffffff, and indexed a shuffle as an integer).
     */
    @Override
    public LLVMValueRef minMax(LLVMModuleRef m, LLVMBuilderRef b, boolean min, boolean nan, boolean f64, LLVMValueRef x, LLVMValueRef y) {
        if (nan && (f64 || sm < 80)) return null;
        String k = f64 ? "d" : "f";
        String text = (min ? "min" : "max") + (nan ? ".NaN" : "") + (f64 ? ".f64" : ".f32") + " $0, $1, $2;";
        return Ll.pureAsm(b, LLVMTypeOf(x), text, "=" + k + "," + k + "," + k, new LLVMValueRef[] {x, y});
    }


    // ---- block and warp operations: NVIDIA's own instructions, passed through as inline PTX with exact semantics

    /** A struct of two i32 outputs. */
    private static LLVMTypeRef pair(LLVMContextRef ctx) {
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
        return LLVMStructTypeInContext(ctx, Ll.array(i32, i32), 2, 0);
    }

    /** value | pred << 32 from an asm result {value, pred as 0/1} (or a single i32 value). */
    private static LLVMValueRef result(LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef r, boolean twoOutputs) {
        if (!twoOutputs) return LLVMBuildZExt(b, r, LLVMInt64TypeInContext(ctx), "");
        return pack(ctx, b, LLVMBuildExtractValue(b, r, 0, ""), LLVMBuildExtractValue(b, r, 1, ""));
    }

    /** value | pred << 32 (pred an i32 0/1 or an i1). */
    private static LLVMValueRef pack(LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef value, LLVMValueRef pred) {
        LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
        LLVMValueRef v = LLVMBuildZExt(b, value, i64, ""), p = LLVMBuildZExt(b, pred, i64, "");
        return LLVMBuildOr(b, v, LLVMBuildShl(b, p, LLVMConstInt(i64, 32, 0), ""), "");
    }

    @Override
    public LLVMValueRef blockBarrier(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef id,
                                     LLVMValueRef count, int redOp, LLVMValueRef pred, boolean aligned) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
        boolean all = LLVMIsAConstantInt(count) != null && LLVMConstIntGetZExtValue(count) == 0;
        String operands = all ? "$1" : "$1, $2";
        String a = aligned ? ".aligned" : "";  // barrier.sync.aligned is bar.sync
        if (redOp == -2) {
            Ll.convergent(Ll.asm(b, LLVMVoidTypeInContext(ctx), "barrier.arrive" + a + " $0, $1;", "r,r,~{memory}", id, count));
            return LLVMConstInt(i32, 0, 0);
        }
        if (redOp < 0) {
            Ll.convergent(Ll.asm(b, LLVMVoidTypeInContext(ctx), all ? "barrier.sync" + a + " $0;" : "barrier.sync" + a + " $0, $1;",
                    all ? "r,~{memory}" : "r,r,~{memory}", all ? new LLVMValueRef[] {id} : new LLVMValueRef[] {id, count}));
            return LLVMConstInt(i32, 0, 0);
        }
        String text = redOp == 0
                ? "{ .reg .pred %zp; setp.ne.u32 %zp, $3, 0; barrier.red.popc" + a + ".u32 $0, " + operands + ", %zp; }"
                : "{ .reg .pred %zp, %zq; setp.ne.u32 %zp, $3, 0; barrier.red." + (redOp == 1 ? "and" : "or") + a + ".pred %zq, "
                  + operands + ", %zp; selp.u32 $0, 1, 0, %zq; }";
        return Ll.convergent(Ll.asm(b, i32, text, "=r,r,r,r,~{memory}", id, count, pred));
    }

    /**
     * Inline assembly of one warp collective, its text made unique in the module by a comment: LLVM merges identical
     * side-effecting calls of an if/else (or if/else if/else) into one before the branch (convergent does not forbid
     * hoisting), so three {@code activemask} of three branches became one that every lane executes together. Each
     * PTX instruction keeps its own place, as in NVIDIA's compilation of the same PTX.
     */
    private static LLVMValueRef site(LLVMModuleRef m, LLVMBuilderRef b, LLVMTypeRef ret, String text, String constraints,
                                     LLVMValueRef... args) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        int id = LLVMGetNamedMetadataNumOperands(m, SITES);
        LLVMAddNamedMetadataOperand(m, SITES, LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, (org.bytedeco.javacpp.PointerPointer) null, 0)));
        return Ll.convergent(Ll.asm(b, ret, text + " // " + id, constraints, args));
    }

    private static final String SITES = "zluda.warp.sites";

    @Override
    public LLVMValueRef warpCollective(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, int kind,
                                       LLVMValueRef mask, LLVMValueRef value, LLVMValueRef bv, LLVMValueRef cv) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
        LLVMValueRef v32 = LLVMBuildTrunc(b, value, i32, "");
        return switch (kind) {
            case SHFL_UP, SHFL_DOWN, SHFL_BFLY, SHFL_IDX -> {
                String mode = kind == SHFL_UP ? "up" : kind == SHFL_DOWN ? "down" : kind == SHFL_BFLY ? "bfly" : "idx";
                // the predicate output from the ISA's arithmetic, not from shfl.sync's own |p: NVIDIA's optimizer
                // (JIT -O1 and up) moves a shuffle whose value is unused into the branch that uses its predicate,
                // where the lanes outside that branch never join it: the warp hangs (corpus kernel fuzz_1_09427)
                LLVMValueRef lane = specialRegister(m, b, threadContext, "%laneid", -1);
                LLVMValueRef valid = WaveCollectives.shuffleSource(b, kind, lane, bv, cv)[1];
                yield pack(ctx, b, site(m, b, i32, "shfl.sync." + mode + ".b32 $0, $1, $2, $3, $4;", "=r,r,r,r,r", v32, bv, cv, mask), valid);
            }
            case BALLOT -> result(ctx, b, site(m, b, i32, "{ .reg .pred %zp; setp.ne.u32 %zp, $1, 0; vote.sync.ballot.b32 $0, %zp, $2; }",
                    "=r,r,r", v32, mask), false);
            case VOTE_ALL, VOTE_ANY, VOTE_UNI -> {
                String mode = kind == VOTE_ALL ? "all" : kind == VOTE_ANY ? "any" : "uni";
                yield result(ctx, b, site(m, b, i32, "{ .reg .pred %zp, %zq; setp.ne.u32 %zp, $1, 0; vote.sync." + mode
                        + ".pred %zq, %zp, $2; selp.u32 $0, 1, 0, %zq; }", "=r,r,r", v32, mask), false);
            }
            // 32-bit values arrive zero-extended: comparing them as 64-bit values gives the same groups
            case MATCH_ANY -> result(ctx, b, site(m, b, i32, "match.any.sync.b64 $0, $1, $2;", "=r,l,r", value, mask), false);
            case MATCH_ALL -> result(ctx, b, site(m, b, pair(ctx), "{ .reg .pred %zp; match.all.sync.b64 $0|%zp, $2, $3; selp.u32 $1, 1, 0, %zp; }",
                    "=r,=r,l,r", value, mask), true);
            case REDUX_ADD, REDUX_MIN, REDUX_MAX, REDUX_UMIN, REDUX_UMAX, REDUX_AND, REDUX_OR, REDUX_XOR -> {
                String op = switch (kind) {
                    case REDUX_ADD -> "add.u32";
                    case REDUX_MIN -> "min.s32";
                    case REDUX_MAX -> "max.s32";
                    case REDUX_UMIN -> "min.u32";
                    case REDUX_UMAX -> "max.u32";
                    case REDUX_AND -> "and.b32";
                    case REDUX_OR -> "or.b32";
                    default -> "xor.b32";
                };
                yield result(ctx, b, site(m, b, i32, "redux.sync." + op + " $0, $1, $2;", "=r,r,r", v32, mask), false);
            }
            case WARP_SYNC -> {
                site(m, b, LLVMVoidTypeInContext(ctx), "bar.warp.sync $0;", "r,~{memory}", mask);
                yield LLVMConstInt(LLVMInt64TypeInContext(ctx), 0, 0);
            }
            case ELECT -> result(ctx, b, site(m, b, pair(ctx), "{ .reg .pred %zp; elect.sync $0|%zp, $2; selp.u32 $1, 1, 0, %zp; }",
                    "=r,=r,r", mask), true);
            case ACTIVEMASK -> result(ctx, b, site(m, b, i32, "activemask.b32 $0;", "=r"), false);
            default -> null;
        };
    }

    @Override
    public void nanosleep(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef nanoseconds) {
        Ll.asm(b, LLVMVoidTypeInContext(LLVMGetModuleContext(m)), "nanosleep.u32 $0;", "r", nanoseconds);
    }

    @Override
    public LLVMValueRef isSpace(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef generic, StateSpace space) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        String s = switch (space) {
            case GLOBAL -> "global";
            case SHARED -> "shared";
            case LOCAL -> "local";
            case CONST -> "const";
            case PARAM -> "param";
            default -> null;
        };
        if (s == null) return null;
        LLVMValueRef a = LLVMBuildPtrToInt(b, generic, LLVMInt64TypeInContext(ctx), "");
        LLVMValueRef r = Ll.asm(b, LLVMInt32TypeInContext(ctx), "{ .reg .pred %zp; isspacep." + s + " %zp, $1; selp.u32 $0, 1, 0, %zp; }", "=r,l", a);
        return LLVMBuildICmp(b, LLVMIntNE, r, LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0), "");
    }

    @Override
    public boolean hasBitFields() {
        return true;
    }

    @Override
    public LLVMValueRef bitField(LLVMBuilderRef b, String opcode, org.zludaj.ptx.model.Type type, LLVMValueRef... operands) {
        String r = type.bits() == 64 ? "l" : "r";
        boolean bfi = opcode.equals("bfi");
        String text = opcode + type.modifier() + (bfi ? " $0, $1, $2, $3, $4;" : " $0, $1, $2, $3;");
        String constraints = "=" + r + "," + r + (bfi ? "," + r : "") + ",r,r";
        return Ll.pureAsm(b, LLVMTypeOf(operands[0]), text, constraints, operands);
    }

    /**
     * prmt, dp4a, dp2a and integer div/rem as NVIDIA's own instructions in inline PTX: their generic lowerings (a byte
     * select of four shifts and masks each, four extended multiply-adds; a zero-divisor guard and LLVM's split of
     * 64-bit division on top of nvcc's own) made ggml's quantized matrix-vector kernels three times the size of
     * NVIDIA's (128 prmt and 32 dp4a in one of them).
     */
    @Override
    public LLVMValueRef ownInteger(LLVMBuilderRef b, String instruction, LLVMValueRef... operands) {
        if (instruction.startsWith("dp") && sm < 61) return null;
        return inline(b, instruction, LLVMTypeOf(operands[0]), operands);
    }

    /** A left shift by a constant the PTX wrote: marked, so that a shift of a widened value keeps its form ({@link ExtendedShifts}). */
    @Override
    public void constantShift(LLVMContextRef ctx, LLVMValueRef shift) {
        ExtendedShifts.mark(ctx, shift);
    }

    /**
     * Float to integer conversions and the packed f32 pairs to f16x2/bf16x2 (one instruction, not two conversions and
     * a repack) as NVIDIA's cvt: its saturation and NaN results are PTX's by definition.
     */
    @Override
    public LLVMValueRef ownConvert(LLVMBuilderRef b, String instruction, LLVMTypeRef to, LLVMValueRef... x) {
        if (instruction.contains("bf16x2") && sm < 80) return null;
        return inline(b, instruction, to, x);
    }

    /** {@code instruction $0, $1, ...;} in inline PTX, its operands in the registers of their types; null for other types. */
    private static LLVMValueRef inline(LLVMBuilderRef b, String instruction, LLVMTypeRef result, LLVMValueRef... operands) {
        String into = constraint(result);
        if (into == null) return null;
        StringBuilder text = new StringBuilder(instruction).append(" $0"), constraints = new StringBuilder("=").append(into);
        for (int k = 0; k < operands.length; k++) {
            String c = constraint(LLVMTypeOf(operands[k]));
            if (c == null) return null;
            text.append(", $").append(k + 1);
            constraints.append(',').append(c);
        }
        return Ll.pureAsm(b, result, text.append(';').toString(), constraints.toString(), operands);
    }

    /** setp.CMP.ftz.f32 as NVIDIA's own (LLVM's fcmp would need each operand flushed first), through an i32. */
    @Override
    public LLVMValueRef ownCompare(LLVMBuilderRef b, String instruction, LLVMValueRef x, LLVMValueRef y) {
        String k = constraint(LLVMTypeOf(x));
        if (k == null || !k.equals("f")) return null;
        LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(LLVMTypeOf(x)));
        LLVMValueRef r = Ll.pureAsm(b, i32, "{ .reg .pred %zp; " + instruction + " %zp, $1, $2; selp.u32 $0, 1, 0, %zp; }",
                "=r,f,f", x, y);
        return LLVMBuildICmp(b, LLVMIntNE, r, LLVMConstInt(i32, 0, 0), "");
    }

    /** The inline-assembly register class of a scalar type (null: none used here). */
    static String constraint(LLVMTypeRef t) {
        int kind = LLVMGetTypeKind(t);
        if (kind == LLVMFloatTypeKind) return "f";
        if (kind == LLVMDoubleTypeKind) return "d";
        if (kind != LLVMIntegerTypeKind) return null;
        return switch (LLVMGetIntTypeWidth(t)) {
            case 16 -> "h";
            case 32 -> "r";
            case 64 -> "l";
            default -> null;
        };
    }

    @Override
    public void markKernel(LLVMModuleRef m, LLVMValueRef kernel) {
        LLVMSetFunctionCallConv(kernel, LLVMPTXKernelCallConv);
    }

    /**
     * The kernel's .maxntid, .reqntid, .minnctapersm and .maxnreg reach ptxas as they were (LLVM 20 takes them as
     * {@code nvvm.annotations}): without them ptxas neither knows the block size a kernel is limited to nor the
     * occupancy it was written for, and allocates registers otherwise than for NVIDIA's PTX of the same kernel.
     */
    @Override
    public void kernelDirectives(LLVMModuleRef m, LLVMValueRef kernel, org.zludaj.ptx.model.Function f) {
        for (String d : List.of(".maxntid", ".reqntid")) {
            int[] n = f.threads(d);
            if (n == null) continue;
            String name = d.substring(1);
            annotate(m, kernel, name + "x", n[0], name + "y", n[1], name + "z", n[2]);
        }
        long minBlocks = f.value(".minnctapersm"), maxRegisters = f.value(".maxnreg");
        if (minBlocks > 0) annotate(m, kernel, "minctasm", minBlocks);
        if (maxRegisters > 0) annotate(m, kernel, "maxnreg", maxRegisters);
    }

    /**
     * A kernel that takes a parameter's address gets its parameters as grid constants (PTX 7.7 and sm_70 on): LLVM
     * then reads them with {@code ld.param} and gives their address by {@code cvta.param}, a generic address in the
     * .param window as NVIDIA's (isspacep.param and .global true: ptx-test isspacep_windows, H100). Otherwise LLVM
     * copied such a parameter to the stack and its address was .local. The parameters become byte arrays of their
     * size and alignment in the PTX, which leaves the kernel's parameter layout as it was.
     */
    @Override
    public boolean paramsByReference() {
        return sm >= 90;  // PTX 8.0 (features()); sm_80's PTX 7.0 has no cvta.param of kernel parameters
    }

    @Override
    public void byReference(LLVMModuleRef m, LLVMValueRef kernel, List<LLVMTypeRef> types, int[] aligns) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        int byval = LLVMGetEnumAttributeKindForName("byval", 5), align = LLVMGetEnumAttributeKindForName("align", 5);
        LLVMValueRef[] indices = new LLVMValueRef[types.size()];
        for (int i = 0; i < types.size(); i++) {
            LLVMAddAttributeAtIndex(kernel, i + 1, LLVMCreateTypeAttribute(ctx, byval, types.get(i)));
            LLVMAddAttributeAtIndex(kernel, i + 1, LLVMCreateEnumAttribute(ctx, align, aligns[i]));
            indices[i] = LLVMConstInt(LLVMInt32TypeInContext(ctx), i + 1, 0);
        }
        LLVMValueRef[] ops = {kernel, LLVMMDStringInContext(ctx, "grid_constant", 13),
                LLVMMDNodeInContext(ctx, new org.bytedeco.javacpp.PointerPointer<>(indices), indices.length)};
        LLVMAddNamedMetadataOperand(m, "nvvm.annotations", LLVMMDNodeInContext(ctx, new org.bytedeco.javacpp.PointerPointer<>(ops), ops.length));
    }

    /** One {@code !nvvm.annotations} entry of {@code kernel}: name, value pairs. */
    private static void annotate(LLVMModuleRef m, LLVMValueRef kernel, Object... pairs) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMValueRef[] ops = new LLVMValueRef[pairs.length + 1];
        ops[0] = kernel;
        for (int i = 0; i < pairs.length; i += 2) {
            String name = (String) pairs[i];
            ops[i + 1] = LLVMMDStringInContext(ctx, name, name.length());
            ops[i + 2] = LLVMConstInt(LLVMInt32TypeInContext(ctx), ((Number) pairs[i + 1]).longValue(), 0);
        }
        LLVMAddNamedMetadataOperand(m, "nvvm.annotations", LLVMMDNodeInContext(ctx, new org.bytedeco.javacpp.PointerPointer<>(ops), ops.length));
    }

    /**
     * The PTX's loops reach ptxas as they were: LLVM unrolls none of them, and each source {@code .pragma "nounroll"}
     * is placed again at its loop's head ({@link LoopPragmas}), so ptxas unrolls what it would unroll of NVIDIA's own
     * PTX (nvcc has unrolled what it wanted to). Until 2026-11-27 LLVM unrolled loops as it saw fit and every loop got
     * the pragma: NVIDIA's ptxas (CUDA 13.0, driver 580) had unrolled a loop that LLVM had already unrolled by four,
     * hoisted a loop-invariant select into the preheader of its own sixteen-fold copy only, and the path that skipped
     * that copy read the register uninitialized (corpus kernel fuzz_1_00998); but with no loop unrolled by ptxas, ggml's
     * f32 matrix-vector kernels came out at two thirds of NVIDIA's code size and ran at half its speed.
     */
    @Override
    public boolean keepsLoops() {
        return true;
    }

    /**
     * Our lowering's code cleaned up (SROA, early CSE, instcombine, CFG simplification; our helpers inlined), then
     * LICM for small loops only ({@link #afterMiddleEnd}): the PTX comes from NVIDIA's own optimizer and ptxas
     * optimizes it again. LLVM's O2 moved code as well, above all loop-invariant code out of every loop (LICM), which
     * ptxas does not sink back: every hoisted value stays live across the loop. ggml's flash-attention vector kernels
     * (module 138, q4_0 K/V, launch bounds 128 threads) came out of ptxas with 255 registers and 404-1,240 bytes of
     * spills for head sizes 128 and 256 and 255 registers for head size 64, where NVIDIA's PTX needs 144-255 registers
     * and no spill; this pipeline gives NVIDIA's figures (no spill, 151 registers at head size 64) and less SASS than
     * NVIDIA's PTX. LICM on every loop, added to it, brings the spills back.
     */
    @Override
    public String middleEnd() {
        return "always-inline,function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg)";
    }

    /**
     * Loops up to this many LLVM instructions get LLVM's LICM ({@link #afterMiddleEnd}). ggml's module 138 through
     * ptxas: no spill with LICM up to loops of 1,000 instructions, 776 bytes up to 4,000, 7,448 with every loop.
     */
    public static final int LICM_LOOP_LIMIT = 200;

    /**
     * LLVM's LICM for small loops only ({@link LoopPragmas#disableLicmAbove}): NVIDIA's ptxas
     * mistranslates loop-invariant code it hoists itself out of a small loop it unrolls (corpus kernel fuzz_1_00782:
     * a predicated {@code mad.hi} of invariant operands in a loop of at most eight iterations, which our lowering made
     * a conditional block: wrong from NVIDIA's JIT -O2 on, right with the product hoisted first; fuzz_1_00998 was the
     * same defect), while hoisting out of large loops raised ggml's attention kernels' register pressure (see
     * {@link #middleEnd}). The sums LICM reassociated to hoist part of them are then summed in their loop again, as the
     * PTX wrote them ({@link HoistedSums}).
     */
    @Override
    public void afterMiddleEnd(LLVMModuleRef m, LLVMTargetMachineRef tm) throws PtxException {
        LoopPragmas.disableLicmAbove(m, LICM_LOOP_LIMIT);
        Compiler.optimize(m, tm, "function(loop-mssa(licm))", true, true);
        HoistedSums.restore(m);
    }

    /**
     * No LLVM loop strength reduction: ptxas reduces the loops' arithmetic itself, and LLVM's rewrite of them (a second
     * induction variable, 64-bit addresses walked as pointers, the factors of a {@code mul.hi} taken apart) came out of
     * ptxas longer than NVIDIA's PTX: ggml's broadcast kernels ({@code k_bin_bcast}: each loop's {@code mul.hi.u32} of
     * the fast division became a 64-bit {@code mul.lo} of a hoisted extension), its norms (a normalizing loop over two
     * pointers, which ptxas unrolled four times more: module 38, 6,600 SASS instructions against NVIDIA's 5,784) and
     * its concatenations (module 9, 10,888 against 9,000). Without it: 5,696 and 8,840; modules 6, 75, 80 and 138 by
     * 0.5-3% fewer too, module 16 (copies) 1% more.
     */
    @Override
    public boolean strengthReduction() {
        return false;
    }

    @Override
    public void beforeCodegen(LLVMModuleRef m) {
        NvptxRewrites.signFlips(m);
        NvptxRewrites.constantShiftsAndDivisors(m);
        ExtendedShifts.keep(m);
        NvptxRewrites.selectedHalfConstants(m);
        NvptxRewrites.unsignedRoundTrips(m);
        NvptxRewrites.highWordTests(m);
        NvptxRewrites.halfPairs(m);
        NvptxRewrites.predicatePhis(m);
        NvptxRewrites.collectiveJoins(m);
        LoopPragmas.place(m);
    }

    /** NVIDIA's device runtime: vprintf(fmt, args) -> int and __assertfail(message, file, line, function, charSize). */
    @Override
    public boolean hasRuntimeCall(String name) {
        return name.equals("vprintf") || name.equals("__assertfail");
    }

    @Override
    public void runtimeCall(LLVMModuleRef m, LLVMBuilderRef b, LLVMContextRef ctx, String name, List<LLVMValueRef> rets,
                            List<LLVMValueRef> args) {
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
        boolean printf = name.equals("vprintf");
        LLVMTypeRef[] sig = printf ? new LLVMTypeRef[] {ptr, ptr} : new LLVMTypeRef[] {ptr, ptr, i32, ptr, i64};
        LLVMTypeRef type = LLVMFunctionType(printf ? i32 : LLVMVoidTypeInContext(ctx), Ll.array(sig), sig.length, 0);
        LLVMValueRef f = LLVMGetNamedFunction(m, name);
        if (f == null || f.isNull()) f = LLVMAddFunction(m, name, type);
        LLVMValueRef[] values = new LLVMValueRef[sig.length];
        for (int k = 0; k < sig.length; k++) {
            boolean isPtr = sig[k].equals(ptr);
            LLVMValueRef v = LLVMBuildLoad2(b, isPtr ? i64 : sig[k], args.get(k), "");
            values[k] = isPtr ? LLVMBuildIntToPtr(b, v, ptr, "") : v;
        }
        LLVMValueRef r = LLVMBuildCall2(b, type, f, Ll.array(values), values.length, "");
        if (printf && !rets.isEmpty()) LLVMBuildStore(b, r, rets.get(0));
    }

    @Override
    public boolean nativeMatrix() {
        return true;
    }

    @Override
    public boolean variablesThroughSlots() {
        return true;
    }

    @Override
    public boolean constantBankSeparate() {
        return true;
    }
}
