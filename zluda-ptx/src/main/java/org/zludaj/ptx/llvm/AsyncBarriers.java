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

/**
 * {@code mbarrier} (init, arrive, arrive_drop, arrive.noComplete, test_wait, try_wait, their .parity forms, inval)
 * and {@code cp.async.mbarrier.arrive}, for targets without NVIDIA's own (NVPTX keeps them, see MatrixOps). The
 * 64-bit object is opaque in PTX; here: bits 0-31 the arrivals still pending in the current phase, 32-62 the
 * expected count, 63 the phase parity. An arrival is a compare-and-swap loop; the one that completes the phase flips
 * the parity and reloads the pending count. The state an arrive returns is the parity of its phase (bit 63), so
 * test_wait compares parities. Waits that find the phase incomplete let the target run other threads
 * ({@code Target.spinWait}: the host's fibers). Transaction counts (expect_tx, complete_tx: TMA) are not supported.
 */
final class AsyncBarriers {
    private final Lowering l;

    AsyncBarriers(Lowering l) {
        this.l = l;
    }

    private LLVMTypeRef i64() {
        return LLVMInt64TypeInContext(l.ctx);
    }

    private LLVMValueRef c64(long v) {
        return LLVMConstInt(i64(), v, 0);
    }

    boolean lower(Instruction i) {
        if (!i.opcode().equals("mbarrier")) return false;
        l.usesBlockOperations = true;
        if (i.has(".expect_tx") || i.has(".complete_tx")) throw new Lowering.Unsupported(i.line(), "instruction " + i.text()
                + " (transaction counts) is not supported yet (target " + l.target.name() + ")");
        List<Operand> o = i.operands();
        if (i.has(".init")) {
            LLVMValueRef count = LLVMBuildZExt(l.b, l.read(i, o.get(1), Type.U32), i64(), "");
            LLVMValueRef v = LLVMBuildOr(l.b, LLVMBuildShl(l.b, count, c64(32), ""), count, "");
            LLVMValueRef st = LLVMBuildStore(l.b, v, object(i, o.get(0)));
            LLVMSetAlignment(st, 8);
        } else if (i.has(".inval")) {
            LLVMValueRef st = LLVMBuildStore(l.b, c64(0), object(i, o.get(0)));
            LLVMSetAlignment(st, 8);
        } else if (i.has(".arrive") || i.has(".arrive_drop")) {
            LLVMValueRef count = o.size() > 2 ? LLVMBuildZExt(l.b, l.read(i, o.get(2), Type.U32), i64(), "") : c64(1);
            LLVMValueRef phase = arrive(object(i, o.get(1)), count, i.has(".arrive_drop"));
            if (!(o.get(0) instanceof Operand.Sink)) l.write(i, o.get(0), phase, Type.B64);
        } else if (i.has(".test_wait") || i.has(".try_wait")) {
            LLVMValueRef cur = LLVMBuildLoad2(l.b, i64(), object(i, o.get(1)), "");
            LLVMSetAlignment(cur, 8);
            LLVMSetOrdering(cur, LLVMAtomicOrderingAcquire);
            LLVMValueRef parity = LLVMBuildLShr(l.b, cur, c64(63), "");
            LLVMValueRef waited = i.has(".parity") ? LLVMBuildZExt(l.b, LLVMBuildAnd(l.b, l.read(i, o.get(2), Type.U32),
                    LLVMConstInt(LLVMInt32TypeInContext(l.ctx), 1, 0), ""), i64(), "")
                    : LLVMBuildLShr(l.b, l.read(i, o.get(2), Type.B64), c64(63), "");
            LLVMValueRef done = LLVMBuildICmp(l.b, LLVMIntNE, parity, waited, "");
            // an incomplete phase: let the threads that will complete it run (a wait loop follows)
            LLVMBasicBlockRef spin = LLVMAppendBasicBlockInContext(l.ctx, l.kernel, "mbarrier.spin");
            LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(l.ctx, l.kernel, "mbarrier.after");
            LLVMBuildCondBr(l.b, done, after, spin);
            LLVMPositionBuilderAtEnd(l.b, spin);
            l.target.spinWait(l.module, l.b, l.threadContext());
            LLVMBuildBr(l.b, after);
            LLVMPositionBuilderAtEnd(l.b, after);
            l.write(i, o.get(0), done, Type.PRED);
        } else {
            throw new Lowering.Unsupported(i.line(), "instruction " + i.text() + " is not supported yet (target " + l.target.name() + ")");
        }
        return true;
    }

    /** cp.async.mbarrier.arrive: the copies are complete already. Without .noinc the pending count is raised by one
     * before the arrive-on, so the net effect is none; with .noinc it is an arrival. */
    void cpAsyncArrive(Instruction i) {
        if (!i.has(".noinc")) return;
        l.usesBlockOperations = true;
        arrive(object(i, i.operands().get(0)), c64(1), false);
    }

    private LLVMValueRef object(Instruction i, Operand o) {
        if (!(o instanceof Operand.Address a)) throw new Lowering.Unsupported(i.line(), i.text() + ": the mbarrier operand must be an address");
        StateSpace space = l.space(i);
        return l.address(i, a, space == StateSpace.GENERIC ? StateSpace.GENERIC : space);
    }

    /** Arrives {@code count} times (and, for arrive_drop, lowers the expected count); returns the phase's parity as bit 63. */
    private LLVMValueRef arrive(LLVMValueRef p, LLVMValueRef count, boolean drop) {
        LLVMBasicBlockRef before = LLVMGetInsertBlock(l.b);
        LLVMValueRef first = LLVMBuildLoad2(l.b, i64(), p, "");
        LLVMSetAlignment(first, 8);
        LLVMSetOrdering(first, LLVMAtomicOrderingMonotonic);
        LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(l.ctx, l.kernel, "mbarrier.arrive");
        LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(l.ctx, l.kernel, "mbarrier.arrived");
        LLVMBuildBr(l.b, loop);
        LLVMPositionBuilderAtEnd(l.b, loop);
        LLVMValueRef old = LLVMBuildPhi(l.b, i64(), "");
        LLVMValueRef mask32 = c64(0xffffffffL), phaseBit = c64(Long.MIN_VALUE);
        LLVMValueRef pending = LLVMBuildAnd(l.b, old, mask32, "");
        LLVMValueRef expected = LLVMBuildAnd(l.b, LLVMBuildLShr(l.b, old, c64(32), ""), c64(0x7fffffffL), "");
        if (drop) expected = LLVMBuildSub(l.b, expected, count, "");
        LLVMValueRef left = LLVMBuildSub(l.b, pending, count, "");
        LLVMValueRef complete = LLVMBuildICmp(l.b, LLVMIntSLE, left, c64(0), "");
        LLVMValueRef phase = LLVMBuildAnd(l.b, old, phaseBit, "");
        LLVMValueRef next = LLVMBuildSelect(l.b, complete,
                LLVMBuildOr(l.b, LLVMBuildXor(l.b, phase, phaseBit, ""), LLVMBuildOr(l.b, LLVMBuildShl(l.b, expected, c64(32), ""), expected, ""), ""),
                LLVMBuildOr(l.b, LLVMBuildOr(l.b, phase, LLVMBuildShl(l.b, expected, c64(32), ""), ""), LLVMBuildAnd(l.b, left, mask32, ""), ""), "");
        LLVMValueRef pair = LLVMBuildAtomicCmpXchg(l.b, p, old, next, LLVMAtomicOrderingAcquireRelease, LLVMAtomicOrderingMonotonic, 0);
        LLVMValueRef seen = LLVMBuildExtractValue(l.b, pair, 0, "");
        LLVMValueRef ok = LLVMBuildExtractValue(l.b, pair, 1, "");
        LLVMBasicBlockRef end = LLVMGetInsertBlock(l.b);
        LLVMAddIncoming(old, Ll.array(first, seen), Ll.array(before, end), 2);
        LLVMBuildCondBr(l.b, ok, done, loop);
        LLVMPositionBuilderAtEnd(l.b, done);
        return phase;
    }
}
