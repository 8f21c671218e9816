package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
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
    private static String constraint(LLVMTypeRef t) {
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
     * {@link #middleEnd}).
     */
    @Override
    public void afterMiddleEnd(LLVMModuleRef m, LLVMTargetMachineRef tm) throws PtxException {
        LoopPragmas.disableLicmAbove(m, LICM_LOOP_LIMIT);
        Compiler.optimize(m, tm, "function(loop-mssa(licm))", true, true);
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
        signFlips(m);
        constantShiftsAndDivisors(m);
        ExtendedShifts.keep(m);
        selectedHalfConstants(m);
        unsignedRoundTrips(m);
        highWordTests(m);
        halfPairs(m);
        predicatePhis(m);
        collectiveJoins(m);
        LoopPragmas.place(m);
    }

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
                if (LLVMGetInstructionOpcode(i) != LLVMPHI || constraint(LLVMTypeOf(i)) == null) return;
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
                String c = constraint(t);
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
