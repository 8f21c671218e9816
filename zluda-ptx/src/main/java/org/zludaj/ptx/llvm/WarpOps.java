package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;
import org.zludaj.ptx.target.Target;

/**
 * Block and warp operations ({@code bar/barrier} in every form, {@code shfl vote match redux activemask elect}): each
 * becomes the target's block barrier or warp collective ({@link Target#blockBarrier}, {@link Target#warpCollective}),
 * and marks the function as using block operations (the host then runs its threads as fibers).
 */
final class WarpOps {
    private final Lowering l;
    /** Numbers each activemask of the module: the host's lanes meet only with the lanes at the same one. */
    private int activemaskSites;

    WarpOps(Lowering l) {
        this.l = l;
    }

    /** Handles the instruction if it is a block or warp operation; returns false otherwise. */
    boolean lower(Instruction i) {
        switch (i.opcode()) {
            case "bar", "barrier" -> barrier(i);
            case "shfl", "vote", "match", "redux", "activemask", "elect" -> warp(i);
            default -> {
                return false;
            }
        }
        return true;
    }

    private void barrier(Instruction i) {
        l.usesBlockOperations = true;
        List<Operand> o = i.operands();
        if (i.has(".warp")) {  // bar.warp.sync mask
            LLVMValueRef r = l.target.warpCollective(l.module, l.b, l.threadContext(), Target.WARP_SYNC, l.read(i, o.get(0), Type.B32),
                    LLVMConstInt(LLVMInt64TypeInContext(l.ctx), 0, 0), l.i32(0), l.i32(0));
            if (r == null) throw l.blockUnsupported(i);
            return;
        }
        if (i.has(".arrive")) {  // bar.arrive a, b
            if (l.target.blockBarrier(l.module, l.b, l.threadContext(), l.read(i, o.get(0), Type.U32), l.read(i, o.get(1), Type.U32), -2, null, aligned(i)) == null)
                throw l.blockUnsupported(i);
            return;
        }
        if (i.has(".red")) {
            int op = i.has(".popc") ? 0 : i.has(".and") ? 1 : 2;
            boolean popc = op == 0;
            LLVMValueRef id = l.read(i, o.get(1), Type.U32);
            LLVMValueRef count = o.size() == 4 ? l.read(i, o.get(2), Type.U32) : l.i32(0);
            LLVMValueRef pred = LLVMBuildZExt(l.b, l.read(i, o.get(o.size() - 1), Type.PRED), LLVMInt32TypeInContext(l.ctx), "");
            LLVMValueRef r = l.target.blockBarrier(l.module, l.b, l.threadContext(), id, count, op, pred, aligned(i));
            if (r == null) throw l.blockUnsupported(i);
            if (popc) l.write(i, o.get(0), r, Type.U32);
            else l.write(i, o.get(0), LLVMBuildICmp(l.b, LLVMIntNE, r, l.i32(0), ""), Type.PRED);
            return;
        }
        LLVMValueRef id = l.read(i, o.get(0), Type.U32);
        LLVMValueRef count = o.size() > 1 ? l.read(i, o.get(1), Type.U32) : l.i32(0);
        if (l.target.blockBarrier(l.module, l.b, l.threadContext(), id, count, -1, null, aligned(i)) == null) throw l.blockUnsupported(i);
    }

    /** bar.* is barrier.*.aligned: every thread of a warp executes it together. */
    private static boolean aligned(Instruction i) {
        return i.opcode().equals("bar") || i.has(".aligned");
    }

    private void warp(Instruction i) {
        l.usesBlockOperations = true;
        List<Operand> o = i.operands();
        LLVMTypeRef i64 = LLVMInt64TypeInContext(l.ctx), i32t = LLVMInt32TypeInContext(l.ctx);
        LLVMValueRef full = LLVMConstInt(i32t, 0xffffffffL, 0);
        String op = i.opcode();
        int kind;
        LLVMValueRef value, bv = l.i32(0), cv = l.i32(0), mask;
        Operand dst = o.get(0);
        switch (op) {
            case "shfl" -> {
                kind = i.has(".up") ? Target.SHFL_UP : i.has(".down") ? Target.SHFL_DOWN : i.has(".bfly") ? Target.SHFL_BFLY : Target.SHFL_IDX;
                value = LLVMBuildZExt(l.b, l.read(i, o.get(1), Type.B32), i64, "");
                bv = l.read(i, o.get(2), Type.U32);
                cv = l.read(i, o.get(3), Type.U32);
                mask = o.size() > 4 ? l.read(i, o.get(4), Type.B32) : full;
            }
            case "vote" -> {
                kind = i.has(".ballot") ? Target.BALLOT : i.has(".all") ? Target.VOTE_ALL : i.has(".any") ? Target.VOTE_ANY : Target.VOTE_UNI;
                value = LLVMBuildZExt(l.b, l.read(i, o.get(1), Type.PRED), i64, "");
                mask = o.size() > 2 ? l.read(i, o.get(2), Type.B32) : full;
            }
            case "match" -> {
                Type t = l.type(i);
                kind = i.has(".all") ? Target.MATCH_ALL : Target.MATCH_ANY;
                LLVMValueRef v = l.read(i, o.get(1), t);
                value = t.bits() == 64 ? v : LLVMBuildZExt(l.b, v, i64, "");
                mask = l.read(i, o.get(2), Type.B32);
            }
            case "redux" -> {
                Type t = l.type(i);
                kind = i.has(".add") ? Target.REDUX_ADD : i.has(".and") ? Target.REDUX_AND : i.has(".or") ? Target.REDUX_OR
                        : i.has(".xor") ? Target.REDUX_XOR : i.has(".min") ? (t.isSigned() ? Target.REDUX_MIN : Target.REDUX_UMIN)
                        : t.isSigned() ? Target.REDUX_MAX : Target.REDUX_UMAX;
                if (t.isFloat()) throw l.unsupported(i);
                value = LLVMBuildZExt(l.b, l.read(i, o.get(1), Type.B32), i64, "");
                mask = l.read(i, o.get(2), Type.B32);
            }
            case "elect" -> {
                kind = Target.ELECT;
                value = LLVMConstInt(i64, 0, 0);
                mask = l.read(i, o.get(1), Type.B32);
            }
            default -> {  // activemask
                kind = Target.ACTIVEMASK;
                // which activemask this is: the host's lanes meet only with the lanes at the same instruction (in
                // divergent code each branch's lanes execute theirs apart, as on NVIDIA's GPUs)
                value = LLVMConstInt(i64, ++activemaskSites, 0);
                mask = full;
            }
        }
        LLVMValueRef r = l.target.warpCollective(l.module, l.b, l.threadContext(), kind, mask, value, bv, cv);
        if (r == null) throw l.blockUnsupported(i);
        LLVMValueRef low = LLVMBuildTrunc(l.b, r, i32t, "");
        LLVMValueRef pred = LLVMBuildTrunc(l.b, LLVMBuildLShr(l.b, r, LLVMConstInt(i64, 32, 0), ""), LLVMInt1TypeInContext(l.ctx), "");
        if (op.equals("vote") && kind != Target.BALLOT) {
            l.write(i, dst, LLVMBuildICmp(l.b, LLVMIntNE, low, l.i32(0), ""), Type.PRED);
        } else if (op.equals("match") && l.type(i).bits() == 64 && kind == Target.MATCH_ANY) {
            writePair(i, dst, low, pred, Type.B32);
        } else {
            writePair(i, dst, low, pred, Type.B32);
        }
    }

    /** Writes d or d|p (the predicate half of shfl, match.all, elect). */
    private void writePair(Instruction i, Operand dst, LLVMValueRef value, LLVMValueRef pred, Type t) {
        if (dst instanceof Operand.Pair p) {
            l.write(i, p.first(), value, t);
            if (!(p.second() instanceof Operand.Sink)) l.write(i, p.second(), pred, Type.PRED);
        } else {
            l.write(i, dst, value, t);
        }
    }
}
