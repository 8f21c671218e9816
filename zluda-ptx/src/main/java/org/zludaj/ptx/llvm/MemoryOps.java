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
 * Memory instructions: {@code ld/ldu/st} in every state space and vector width (with {@code .volatile} and the
 * ordered {@code .relaxed/.acquire/.release} forms), {@code atom/red} as LLVM atomics (f16/bf16 additions as
 * compare-and-swap loops), {@code cvta} and {@code isspacep}. Addresses come from {@link Lowering#address}.
 */
final class MemoryOps {
    private final Lowering l;

    MemoryOps(Lowering l) {
        this.l = l;
    }

    /** Handles the instruction if it is a memory instruction; returns false otherwise. */
    boolean lower(Instruction i) {
        switch (i.opcode()) {
            case "ld", "ldu" -> load(i);
            case "st" -> store(i);
            case "atom", "red" -> atomic(i);
            case "cvta" -> cvta(i);
            case "isspacep" -> isspacep(i);
            case "alloca", "stacksave", "stackrestore" -> stack(i);
            default -> {
                return false;
            }
        }
        return true;
    }

    private int vectorWidth(Instruction i) {
        return i.has(".v2") ? 2 : i.has(".v4") ? 4 : i.has(".v8") ? 8 : 1;
    }

    private void load(Instruction i) {
        Type t = l.type(i);
        LLVMValueRef p = l.address(i, (Operand.Address) l.o(i, 1, Operand.Address.class), l.space(i));
        int n = vectorWidth(i);
        List<Operand> dst = n == 1 ? List.of(i.operands().get(0)) : ((Operand.Vector) l.o(i, 0, Operand.Vector.class)).elements();
        if (wholeVector(i, n, t)) {  // one access of the vector's size (PTX requires it aligned to that size)
            LLVMValueRef v = LLVMBuildLoad2(l.b, LLVMVectorType(l.llvmType(t), n), p, "");
            LLVMSetAlignment(v, n * t.bytes());
            if (i.has(".volatile") || ordered(i)) LLVMSetVolatile(v, 1);
            // LLVM 20's VectorCombine splits a vector load read only by extractelements into scalar loads and drops
            // invariant.load on the way (ld.global.nc.v2.f32 became two plain loads): a freeze between keeps it whole
            if (readOnly(i, v)) v = LLVMBuildFreeze(l.b, v, "");
            if (i.has(".acquire")) LLVMBuildFence(l.b, LLVMAtomicOrderingAcquire, 0, "");
            for (int k = 0; k < n; k++) l.writeElement(i, dst.get(k), LLVMBuildExtractElement(l.b, v, l.i32(k), ""), t);
            return;
        }
        for (int k = 0; k < n; k++) {
            LLVMValueRef at = k == 0 ? p : LLVMBuildGEP2(l.b, LLVMInt8TypeInContext(l.ctx), p, Ll.array(LLVMConstInt(LLVMInt64TypeInContext(l.ctx), (long) k * t.bytes(), 0)), 1, "");
            LLVMValueRef v = LLVMBuildLoad2(l.b, l.llvmType(t), at, "");
            order(i, v, t);
            readOnly(i, v);
            if (n > 1) l.writeElement(i, dst.get(k), v, t);
            else l.write(i, dst.get(k), v, t);
        }
    }

    /**
     * ld.global.nc: the kernel promises the memory does not change while it runs, which is LLVM's invariant.load (NVPTX
     * then emits ld.global.nc again, NVIDIA's read-only path; AMDGPU may load a uniform address with a scalar load).
     */
    private boolean readOnly(Instruction i, LLVMValueRef load) {
        if (!i.has(".nc") || i.has(".volatile") || ordered(i)) return false;
        LLVMSetMetadata(load, LLVMGetMDKindIDInContext(l.ctx, "invariant.load", 14),
                LLVMMetadataAsValue(l.ctx, LLVMMDNodeInContext2(l.ctx, (org.bytedeco.javacpp.PointerPointer) null, 0)));
        return true;
    }

    private void store(Instruction i) {
        Type t = l.type(i);
        LLVMValueRef p = l.address(i, (Operand.Address) l.o(i, 0, Operand.Address.class), l.space(i));
        int n = vectorWidth(i);
        List<Operand> src = n == 1 ? List.of(i.operands().get(1)) : ((Operand.Vector) l.o(i, 1, Operand.Vector.class)).elements();
        if (wholeVector(i, n, t) && src.stream().noneMatch(e -> e instanceof Operand.Sink)) {
            LLVMValueRef v = LLVMGetUndef(LLVMVectorType(l.llvmType(t), n));
            for (int k = 0; k < n; k++) v = LLVMBuildInsertElement(l.b, v, l.readElement(i, src.get(k), t), l.i32(k), "");
            if (i.has(".release")) LLVMBuildFence(l.b, LLVMAtomicOrderingRelease, 0, "");
            LLVMValueRef st = LLVMBuildStore(l.b, v, p);
            LLVMSetAlignment(st, n * t.bytes());
            if (i.has(".volatile") || ordered(i)) LLVMSetVolatile(st, 1);
            return;
        }
        for (int k = 0; k < n; k++) {
            LLVMValueRef at = k == 0 ? p : LLVMBuildGEP2(l.b, LLVMInt8TypeInContext(l.ctx), p, Ll.array(LLVMConstInt(LLVMInt64TypeInContext(l.ctx), (long) k * t.bytes(), 0)), 1, "");
            LLVMValueRef st = LLVMBuildStore(l.b, n > 1 ? l.readElement(i, src.get(k), t) : l.read(i, src.get(k), t), at);
            order(i, st, t);
        }
    }

    /**
     * Whether a .vN access moves as one LLVM vector: weak or volatile accesses of up to 32 bytes, and ordered ones
     * (.relaxed/.acquire/.release) of up to 16 bytes. LLVM has no atomic vector accesses, so an ordered vector becomes
     * one volatile access of its whole size (fenced for .acquire/.release): code such as CUB's decoupled look-back
     * stores a status and a value with one st.relaxed.v2.u64 and relies on reading both with one ld.relaxed.v2.u64,
     * which NVIDIA's GPUs, AMD's and x86-64 all do as one 16-byte access. Element by element, a reader could see the
     * new status with the old value.
     */
    private static boolean wholeVector(Instruction i, int n, Type t) {
        return n > 1 && n * t.bytes() <= (ordered(i) ? 16 : 32) && t != Type.PRED && t.bytes() <= 8;
    }

    private static boolean ordered(Instruction i) {
        return i.has(".relaxed") || i.has(".acquire") || i.has(".release");
    }

    /** .volatile, .relaxed, .acquire, .release: volatile or atomic accesses with that ordering. */
    private void order(Instruction i, LLVMValueRef access, Type t) {
        LLVMSetAlignment(access, Math.max(1, t.bytes()));
        if (i.has(".volatile")) LLVMSetVolatile(access, 1);
        int ordering = i.has(".acquire") ? LLVMAtomicOrderingAcquire : i.has(".release") ? LLVMAtomicOrderingRelease
                : i.has(".relaxed") ? LLVMAtomicOrderingMonotonic : -1;
        if (ordering >= 0 && t.bytes() <= 8) LLVMSetOrdering(access, ordering);
    }

    /** cvta.space (space to generic) and cvta.to.space (generic to space): address-space casts of the address value. */
    private void cvta(Instruction i) {
        Type t = l.type(i);
        StateSpace space = l.space(i);
        LLVMValueRef a = l.read(i, i.operands().get(1), t);
        boolean toSpace = i.has(".to");
        int from = toSpace ? 0 : l.spaceOf(space), to = toSpace ? l.spaceOf(space) : 0;
        LLVMValueRef r = a;
        if (space == StateSpace.SHARED && l.target.hostSharedMemory()) {  // window offset <-> host address
            LLVMValueRef base = LLVMBuildPtrToInt(l.b, l.sharedBase, l.llvmType(t), "");
            r = toSpace ? LLVMBuildSub(l.b, a, base, "") : LLVMBuildAdd(l.b, a, base, "");
        } else if (from != to) {
            LLVMValueRef p = LLVMBuildIntToPtr(l.b, a, LLVMPointerTypeInContext(l.ctx, from), "");
            r = LLVMBuildPtrToInt(l.b, LLVMBuildAddrSpaceCast(l.b, p, LLVMPointerTypeInContext(l.ctx, to), ""), l.llvmType(t), "");
        }
        l.write(i, i.operands().get(0), r, t);
    }

    private void isspacep(Instruction i) {
        StateSpace space = l.space(i);
        LLVMValueRef a = l.read(i, i.operands().get(1), Type.U64);
        LLVMValueRef generic = LLVMBuildIntToPtr(l.b, a, LLVMPointerTypeInContext(l.ctx, 0), "");
        LLVMValueRef r = l.target.isSpace(l.module, l.b, l.threadContext(), generic, space);
        if (r == null) throw l.unsupported(i);
        if ((!l.target.constantBankSeparate() || l.vars.constViaGeneric) && (space == StateSpace.CONST || space == StateSpace.GLOBAL)) {
            // .const variables are in global memory here (or, through the driver on NVIDIA, reached by a global address
            // the variables unit gave); on NVIDIA their generic addresses are .const and not .global (isspacep_spaces):
            // told apart by the module's own .const variables
            LLVMValueRef inConst = inConstVariable(a, i);
            r = space == StateSpace.CONST ? inConst : LLVMBuildAnd(l.b, r, LLVMBuildNot(l.b, inConst, ""), "");
        }
        l.write(i, i.operands().get(0), r, Type.PRED);
    }

    /** Whether address {@code a} is in one of the module's .const variables (in name order: the same IR every time). */
    private LLVMValueRef inConstVariable(LLVMValueRef a, Instruction at) {
        LLVMTypeRef i64 = LLVMInt64TypeInContext(l.ctx);
        LLVMValueRef in = LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 0, 0);
        var layout = LLVMGetModuleDataLayout(l.module);
        for (Lowering.Var v : new java.util.TreeMap<>(l.vars.globals).values()) {
            if (v.v().space() != StateSpace.CONST) continue;
            long size = LLVMABISizeOfType(layout, l.vars.storageType(v.v()));
            if (size == 0) continue;  // an extern array of no declared size
            LLVMValueRef base = LLVMBuildPtrToInt(l.b, l.variablePointer(v, at), i64, "");
            LLVMValueRef inside = LLVMBuildAnd(l.b, LLVMBuildICmp(l.b, LLVMIntUGE, a, base, ""),
                    LLVMBuildICmp(l.b, LLVMIntULT, a, LLVMBuildAdd(l.b, base, LLVMConstInt(i64, size, 0), ""), ""), "");
            in = LLVMBuildOr(l.b, in, inside, "");
        }
        return in;
    }

    /**
     * {@code alloca.type ptr, size{, align}} (local memory allocated at run time on the function's stack, 8-byte aligned
     * unless an alignment is given; ptr is a .local address), {@code stacksave.type d} and {@code stackrestore.type a}
     * (the stack pointer as a .local address): LLVM's dynamic alloca and llvm.stacksave/stackrestore in the local
     * address space, which every target's code generator supports (NVPTX gives NVIDIA's alloca back).
     */
    private void stack(Instruction i) {
        Type t = l.type(i);
        if (t != Type.U32 && t != Type.U64) throw l.unsupported(i);
        // a 32-bit .local address where .local addresses are 64-bit (host): an offset from the target's local base
        LLVMValueRef base = t == Type.U32 ? l.localBase32() : null;
        LLVMTypeRef local = LLVMPointerTypeInContext(l.ctx, l.spaceOf(StateSpace.LOCAL));
        // allocas live in the data layout's alloca address space (NVPTX: generic, then cvta.to.local)
        var m = ALLOCA_SPACE.matcher(LLVMGetDataLayoutStr(l.module).getString());
        LLVMTypeRef stack = LLVMPointerTypeInContext(l.ctx, m.find() ? Integer.parseInt(m.group(1)) : 0);
        switch (i.opcode()) {
            case "alloca" -> {
                if (i.operands().size() < 2 || i.operands().size() > 3) throw l.unsupported(i);
                long align = 8;
                if (i.operands().size() == 3) {
                    if (!(i.operands().get(2) instanceof Operand.IntImm imm) || Long.bitCount(imm.value()) != 1 || imm.value() > (1L << 23))
                        throw l.unsupported(i);
                    align = imm.value();
                }
                LLVMValueRef size = l.read(i, i.operands().get(1), t);
                LLVMValueRef a = LLVMBuildArrayAlloca(l.b, LLVMInt8TypeInContext(l.ctx), size, "alloca");
                LLVMSetAlignment(a, (int) align);
                l.write(i, i.operands().get(0), localAddress(toSpace(a, local), t, base), t);
            }
            case "stacksave" -> {
                LLVMValueRef sp = Ll.intrinsic(l.module, l.b, "llvm.stacksave", new LLVMTypeRef[] {stack});
                l.write(i, i.operands().get(0), localAddress(toSpace(sp, local), t, base), t);
            }
            default -> {
                LLVMValueRef v = l.read(i, i.operands().get(0), t);
                LLVMValueRef sp = base == null ? LLVMBuildIntToPtr(l.b, v, local, "") : l.localPointer32(base, v);
                Ll.intrinsic(l.module, l.b, "llvm.stackrestore", new LLVMTypeRef[] {stack}, toSpace(sp, stack));
            }
        }
    }

    /** A .local pointer as a .local address of type t: an offset from {@code base} where the target has one. */
    private LLVMValueRef localAddress(LLVMValueRef p, Type t, LLVMValueRef base) {
        return base == null ? LLVMBuildPtrToInt(l.b, p, l.llvmType(t), "") : l.localOffset32(base, p);
    }

    /** The data layout's alloca address space ("A5"; none: 0). */
    private static final java.util.regex.Pattern ALLOCA_SPACE = java.util.regex.Pattern.compile("(?:^|-)A(\\d+)");

    private LLVMValueRef toSpace(LLVMValueRef p, LLVMTypeRef want) {
        return LLVMGetPointerAddressSpace(LLVMTypeOf(p)) == LLVMGetPointerAddressSpace(want) ? p : LLVMBuildAddrSpaceCast(l.b, p, want, "");
    }

    /** atom and red: LLVM atomicrmw / cmpxchg on the addressed memory, relaxed unless an ordering is given. */
    private void atomic(Instruction i) {
        boolean red = i.opcode().equals("red");
        Type t = l.type(i);
        if (vectorWidth(i) > 1 || t == Type.B128) throw l.unsupported(i);
        int a = red ? 0 : 1;
        LLVMValueRef p = l.address(i, (Operand.Address) l.o(i, a, Operand.Address.class), l.space(i));
        int ordering = i.has(".acquire") ? LLVMAtomicOrderingAcquire : i.has(".release") ? LLVMAtomicOrderingRelease
                : i.has(".acq_rel") ? LLVMAtomicOrderingAcquireRelease : LLVMAtomicOrderingMonotonic;
        if (t == Type.F16 || t == Type.BF16 || t == Type.F16X2 || t == Type.BF16X2) {
            if (!i.has(".add")) throw l.unsupported(i);
            LLVMValueRef old = halfAtomicAdd(p, l.read(i, i.operands().get(a + 1), t.bits() == 32 ? Type.B32 : Type.B16), t, ordering);
            if (!red) l.write(i, i.operands().get(0), old, t.bits() == 32 ? Type.B32 : Type.B16);
            return;
        }
        LLVMValueRef v = l.read(i, i.operands().get(a + 1), t);
        LLVMValueRef result;
        if (i.has(".cas")) {
            LLVMValueRef nv = l.read(i, i.operands().get(a + 2), t);
            LLVMValueRef pair = LLVMBuildAtomicCmpXchg(l.b, p, v, nv, ordering == LLVMAtomicOrderingMonotonic ? LLVMAtomicOrderingMonotonic : ordering,
                    LLVMAtomicOrderingMonotonic, 0);
            result = LLVMBuildExtractValue(l.b, pair, 0, "");
        } else {
            int op;
            if (i.has(".add")) op = t.isFloat() ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd;
            else if (i.has(".exch")) op = LLVMAtomicRMWBinOpXchg;
            else if (i.has(".and")) op = LLVMAtomicRMWBinOpAnd;
            else if (i.has(".or")) op = LLVMAtomicRMWBinOpOr;
            else if (i.has(".xor")) op = LLVMAtomicRMWBinOpXor;
            else if (i.has(".inc")) op = LLVMAtomicRMWBinOpUIncWrap;
            else if (i.has(".dec")) op = LLVMAtomicRMWBinOpUDecWrap;
            else if (i.has(".min")) op = t.isFloat() ? LLVMAtomicRMWBinOpFMin : t.isSigned() ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
            else if (i.has(".max")) op = t.isFloat() ? LLVMAtomicRMWBinOpFMax : t.isSigned() ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
            else throw l.unsupported(i);
            result = LLVMBuildAtomicRMW(l.b, op, p, v, ordering, 0);
        }
        if (!red) l.write(i, i.operands().get(0), result, t);
    }

    /**
     * atom/red.add of f16, bf16 and their x2 forms: a compare-and-swap loop on the 16- or 32-bit word whose new value
     * is computed by the shared float code (round to nearest, no flush: .noftz), so no l.target needs half-precision
     * atomics or conversion library calls. Returns the old bits.
     */
    private LLVMValueRef halfAtomicAdd(LLVMValueRef p, LLVMValueRef v, Type t, int ordering) {
        boolean pair = t.bits() == 32;
        Type lane = t == Type.F16 || t == Type.F16X2 ? Type.F16 : Type.BF16;
        LLVMTypeRef it = LLVMIntTypeInContext(l.ctx, pair ? 32 : 16), i16 = LLVMInt16TypeInContext(l.ctx);
        LLVMBasicBlockRef entry = LLVMGetInsertBlock(l.b);
        LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(l.ctx, l.kernel, "atom.half"), done = LLVMAppendBasicBlockInContext(l.ctx, l.kernel, "atom.half.done");
        LLVMValueRef init = LLVMBuildLoad2(l.b, it, p, "");
        LLVMSetOrdering(init, LLVMAtomicOrderingMonotonic);
        LLVMSetAlignment(init, pair ? 4 : 2);
        LLVMBuildBr(l.b, loop);
        LLVMPositionBuilderAtEnd(l.b, loop);
        LLVMValueRef old = LLVMBuildPhi(l.b, it, "");
        LLVMValueRef sum = LLVMConstInt(it, 0, 0);
        for (int k = 0; k < (pair ? 2 : 1); k++) {
            LLVMValueRef shift = LLVMConstInt(it, 16L * k, 0);
            LLVMValueRef x = LLVMBuildBitCast(l.b, LLVMBuildTrunc(l.b, LLVMBuildLShr(l.b, old, shift, ""), i16, ""), l.llvmType(lane), "");
            LLVMValueRef y = LLVMBuildBitCast(l.b, LLVMBuildTrunc(l.b, LLVMBuildLShr(l.b, v, shift, ""), i16, ""), l.llvmType(lane), "");
            LLVMValueRef r = l.floats.compute(new Instruction(null, "add", List.of(".rn", lane == Type.F16 ? ".f16" : ".bf16"), List.of(), 0, 0),
                    lane, new LLVMValueRef[] {x, y});
            LLVMValueRef bits = LLVMBuildZExt(l.b, LLVMBuildBitCast(l.b, r, i16, ""), it, "");
            sum = LLVMBuildOr(l.b, sum, LLVMBuildShl(l.b, bits, shift, ""), "");
        }
        LLVMValueRef cas = LLVMBuildAtomicCmpXchg(l.b, p, old, sum, ordering == LLVMAtomicOrderingRelease ? LLVMAtomicOrderingAcquireRelease
                : ordering == LLVMAtomicOrderingMonotonic ? LLVMAtomicOrderingMonotonic : ordering, LLVMAtomicOrderingMonotonic, 0);
        LLVMValueRef seen = LLVMBuildExtractValue(l.b, cas, 0, ""), ok = LLVMBuildExtractValue(l.b, cas, 1, "");
        LLVMAddIncoming(old, Ll.array(init, seen), Ll.array(entry, LLVMGetInsertBlock(l.b)), 2);
        LLVMBuildCondBr(l.b, ok, done, loop);
        LLVMPositionBuilderAtEnd(l.b, done);
        return seen;
    }
}
