package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Ll;

/**
 * PTX's warp collectives (shfl, vote, match, redux, elect, activemask, bar.warp.sync) written once against four wave
 * primitives of a 32-lane wave that executes in lockstep: this lane's index, a ballot of the active lanes, reading
 * one lane's value, and reading a computed lane's value. A target binds the primitives to its instructions (AMDGPU:
 * mbcnt, ballot, readlane, ds_bpermute).
 *
 * <p>The member mask restricts which lanes' values and predicates count; lanes are never waited for, because the
 * wave's active lanes execute the instruction together. Results are i64: the 32-bit value in the low half, the
 * predicate (shfl's in-range flag, match.all's and elect's predicate) in bit 32.
 */
public final class WaveCollectives {
    /** The wave instructions a target provides. */
    public interface Primitives {
        /** This lane's index, 0..31. */
        LLVMValueRef lane(LLVMBuilderRef b);

        /** Bit k set when lane k is active and {@code p} (i1) is true there. */
        LLVMValueRef ballot(LLVMBuilderRef b, LLVMValueRef p);

        /** The i32 {@code v} of lane {@code k} (a constant lane index). */
        LLVMValueRef readLane(LLVMBuilderRef b, LLVMValueRef v, int k);

        /** The i32 {@code v} of lane {@code src} (an i32 that differs per lane). */
        LLVMValueRef permute(LLVMBuilderRef b, LLVMValueRef v, LLVMValueRef src);

        /** Orders the wave's lanes at this point (bar.warp.sync). */
        void waveBarrier(LLVMBuilderRef b);
    }

    private final LLVMModuleRef m;
    private final LLVMBuilderRef b;
    private final Primitives wave;
    private final LLVMTypeRef i1, i32, i64;

    public WaveCollectives(LLVMModuleRef m, LLVMBuilderRef b, Primitives wave) {
        this.m = m;
        this.b = b;
        this.wave = wave;
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        i1 = LLVMInt1TypeInContext(ctx);
        i32 = LLVMInt32TypeInContext(ctx);
        i64 = LLVMInt64TypeInContext(ctx);
    }

    private LLVMValueRef c(long v) {
        return LLVMConstInt(i32, v, 0);
    }

    private LLVMValueRef and(LLVMValueRef x, LLVMValueRef y) {
        return LLVMBuildAnd(b, x, y, "");
    }

    private LLVMValueRef or(LLVMValueRef x, LLVMValueRef y) {
        return LLVMBuildOr(b, x, y, "");
    }

    private LLVMValueRef eq(LLVMValueRef x, LLVMValueRef y) {
        return LLVMBuildICmp(b, LLVMIntEQ, x, y, "");
    }

    private LLVMValueRef sel(LLVMValueRef p, LLVMValueRef x, LLVMValueRef y) {
        return LLVMBuildSelect(b, p, x, y, "");
    }

    /** value (i32) | pred (i1) << 32 */
    private LLVMValueRef result(LLVMValueRef value, LLVMValueRef pred) {
        LLVMValueRef v = LLVMBuildZExt(b, value, i64, "");
        if (pred == null) return v;
        return or(v, LLVMBuildShl(b, LLVMBuildZExt(b, pred, i64, ""), LLVMConstInt(i64, 32, 0), ""));
    }

    /** The collective {@code kind} (Target's constants); value is i64, mask/bv/cv i32. */
    public LLVMValueRef collective(int kind, LLVMValueRef mask, LLVMValueRef value, LLVMValueRef bv, LLVMValueRef cv) {
        LLVMValueRef v32 = LLVMBuildTrunc(b, value, i32, "");
        LLVMValueRef active = wave.ballot(b, LLVMConstInt(i1, 1, 0));
        LLVMValueRef members = and(active, mask);
        return switch (kind) {
            case Target.SHFL_UP, Target.SHFL_DOWN, Target.SHFL_BFLY, Target.SHFL_IDX -> shuffle(kind, v32, bv, cv);
            case Target.BALLOT -> result(and(wave.ballot(b, LLVMBuildICmp(b, LLVMIntNE, value, LLVMConstInt(i64, 0, 0), "")), mask), null);
            case Target.VOTE_ALL, Target.VOTE_ANY, Target.VOTE_UNI -> {
                LLVMValueRef yes = and(wave.ballot(b, LLVMBuildICmp(b, LLVMIntNE, value, LLVMConstInt(i64, 0, 0), "")), mask);
                LLVMValueRef r = switch (kind) {
                    case Target.VOTE_ALL -> eq(yes, members);
                    case Target.VOTE_ANY -> LLVMBuildICmp(b, LLVMIntNE, yes, c(0), "");
                    default -> or(eq(yes, c(0)), eq(yes, members));
                };
                yield result(LLVMBuildZExt(b, r, i32, ""), null);
            }
            case Target.MATCH_ANY, Target.MATCH_ALL -> {
                LLVMValueRef lo = v32, hi = LLVMBuildTrunc(b, LLVMBuildLShr(b, value, LLVMConstInt(i64, 32, 0), ""), i32, "");
                LLVMValueRef same = c(0);
                for (int k = 0; k < 32; k++) {
                    LLVMValueRef equal = and(eq(wave.readLane(b, lo, k), lo), eq(wave.readLane(b, hi, k), hi));
                    same = or(same, sel(equal, c(1L << k), c(0)));
                }
                same = and(same, members);
                if (kind == Target.MATCH_ANY) yield result(same, null);
                LLVMValueRef all = eq(same, members);
                yield result(sel(all, members, c(0)), all);
            }
            case Target.REDUX_ADD, Target.REDUX_MIN, Target.REDUX_MAX, Target.REDUX_UMIN, Target.REDUX_UMAX, Target.REDUX_AND,
                 Target.REDUX_OR, Target.REDUX_XOR -> result(reduce(kind, v32, members), null);
            case Target.WARP_SYNC -> {
                wave.waveBarrier(b);
                yield LLVMConstInt(i64, 0, 0);
            }
            case Target.ELECT -> {
                LLVMValueRef first = Ll.intrinsic(m, b, "llvm.cttz", new LLVMTypeRef[] {i32}, members, LLVMConstInt(i1, 0, 0));
                yield result(first, eq(wave.lane(b), first));
            }
            case Target.ACTIVEMASK -> result(active, null);
            default -> throw new IllegalArgumentException("warp collective " + kind);
        };
    }

    /**
     * shfl.sync as the PTX ISA defines it: c packs the clamp value (bits 0-4) and the segment mask (bits 8-12); the
     * source lane j is valid within [minLane, maxLane], else the lane keeps its own value.
     */
    private LLVMValueRef shuffle(int kind, LLVMValueRef v, LLVMValueRef bv, LLVMValueRef cv) {
        LLVMValueRef lane = wave.lane(b);
        LLVMValueRef[] jValid = shuffleSource(b, kind, lane, bv, cv);
        LLVMValueRef src = sel(jValid[1], jValid[0], lane);
        return result(wave.permute(b, v, src), jValid[1]);
    }

    /**
     * The source lane j of a shfl.sync and whether it is valid (the instruction's predicate output), from the lane,
     * b and c (all i32) as the PTX ISA's pseudocode computes them: a lane's own arithmetic, no other lane involved.
     */
    public static LLVMValueRef[] shuffleSource(LLVMBuilderRef b, int kind, LLVMValueRef lane, LLVMValueRef bv, LLVMValueRef cv) {
        LLVMTypeRef i32 = LLVMTypeOf(lane);
        LLVMValueRef k31 = LLVMConstInt(i32, 31, 0);
        LLVMValueRef bval = LLVMBuildAnd(b, bv, k31, ""), cval = LLVMBuildAnd(b, cv, k31, "");
        LLVMValueRef seg = LLVMBuildAnd(b, LLVMBuildLShr(b, cv, LLVMConstInt(i32, 8, 0), ""), k31, "");
        LLVMValueRef notSeg = LLVMBuildNot(b, seg, "");
        LLVMValueRef minLane = LLVMBuildAnd(b, lane, seg, "");
        LLVMValueRef maxLane = LLVMBuildOr(b, minLane, LLVMBuildAnd(b, cval, notSeg, ""), "");
        LLVMValueRef j = switch (kind) {
            case Target.SHFL_UP -> LLVMBuildSub(b, lane, bval, "");
            case Target.SHFL_DOWN -> LLVMBuildAdd(b, lane, bval, "");
            case Target.SHFL_BFLY -> LLVMBuildXor(b, lane, bval, "");
            default -> LLVMBuildOr(b, minLane, LLVMBuildAnd(b, bval, notSeg, ""), "");
        };
        // up: j >= maxLane (signed: lane - b may be negative); the others: j <= maxLane
        return new LLVMValueRef[] {j, LLVMBuildICmp(b, kind == Target.SHFL_UP ? LLVMIntSGE : LLVMIntSLE, j, maxLane, "")};
    }

    /** redux.sync over the member lanes, in lane order. */
    private LLVMValueRef reduce(int kind, LLVMValueRef v, LLVMValueRef members) {
        LLVMValueRef acc = c(switch (kind) {
            case Target.REDUX_AND, Target.REDUX_UMIN -> 0xffffffffL;
            case Target.REDUX_MIN -> 0x7fffffffL;
            case Target.REDUX_MAX -> 0x80000000L;
            default -> 0;
        });
        for (int k = 0; k < 32; k++) {
            LLVMValueRef x = wave.readLane(b, v, k);
            LLVMValueRef next = switch (kind) {
                case Target.REDUX_ADD -> LLVMBuildAdd(b, acc, x, "");
                case Target.REDUX_MIN -> sel(LLVMBuildICmp(b, LLVMIntSLT, x, acc, ""), x, acc);
                case Target.REDUX_MAX -> sel(LLVMBuildICmp(b, LLVMIntSGT, x, acc, ""), x, acc);
                case Target.REDUX_UMIN -> sel(LLVMBuildICmp(b, LLVMIntULT, x, acc, ""), x, acc);
                case Target.REDUX_UMAX -> sel(LLVMBuildICmp(b, LLVMIntUGT, x, acc, ""), x, acc);
                case Target.REDUX_AND -> and(acc, x);
                case Target.REDUX_OR -> or(acc, x);
                default -> LLVMBuildXor(b, acc, x, "");
            };
            LLVMValueRef member = LLVMBuildICmp(b, LLVMIntNE, and(members, c(1L << k)), c(0), "");
            acc = sel(member, next, acc);
        }
        return acc;
    }
}
