package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement.Instruction;

/**
 * {@code vprintf} and {@code __assertfail} for targets whose kernels cannot call the host (AMD GPUs; the host's AMD
 * emulation runs the same code): buffered records the driver prints after the kernel. The module holds
 * {@value #GLOBAL}, the address of a buffer the driver allocates (0: printf returns -1 and writes nothing). The
 * buffer's 16-byte header is {u32 used, u32 capacity, u32 lost, u32 0}; records follow, each
 * {u32 kind, u32 bytes, ...}, the kind written last: 1 printf (u64 format address, then a copy of CUDA's argument
 * buffer, whose size a scan of the format gives: ints 4 bytes, longs, doubles and pointers 8, each aligned to its
 * size), 2 assert (u64 message, file and function addresses, u32 line, u32 0, u32 ctaid[3], u32 tid[3]; the kernel
 * then traps, and the driver reports CUDA_ERROR_ASSERT). A full buffer counts its lost records. The driver reads
 * strings from device memory when it prints (zluda-native printf.c).
 */
final class DevicePrintf {
    static final String GLOBAL = "__zluda_printf";
    private static final String SCAN = "__zluda_printf_scan";
    private final Lowering l;
    private LLVMValueRef global;

    DevicePrintf(Lowering l) {
        this.l = l;
    }

    static boolean handles(String name) {
        return name.equals("vprintf") || name.equals("__assertfail");
    }

    private LLVMTypeRef i8() { return LLVMInt8TypeInContext(l.ctx); }
    private LLVMTypeRef i32() { return LLVMInt32TypeInContext(l.ctx); }
    private LLVMTypeRef i64() { return LLVMInt64TypeInContext(l.ctx); }
    private LLVMTypeRef ptr() { return LLVMPointerTypeInContext(l.ctx, 0); }
    private LLVMValueRef c32(long v) { return LLVMConstInt(i32(), v, 0); }
    private LLVMValueRef c64(long v) { return LLVMConstInt(i64(), v, 0); }

    /** The buffer pointer variable; weak on the host so that the units of one module share one. */
    LLVMValueRef global() {
        if (global == null) {
            global = LLVMAddGlobalInAddressSpace(l.module, i64(), l.target.kernelSymbol(GLOBAL, l.symbolPrefix()),
                    l.target.addressSpace(StateSpace.GLOBAL));
            LLVMSetInitializer(global, c64(0));
            LLVMSetAlignment(global, 8);
            if (l.target.hostSharedMemory()) LLVMSetLinkage(global, LLVMWeakAnyLinkage);
        }
        return global;
    }

    /** The call {@code name(args)} with CUDA's .param storage given as pointers. */
    void call(Instruction i, String name, List<LLVMValueRef> rets, List<LLVMValueRef> args) {
        if (name.equals("vprintf")) {
            if (args.size() != 2) throw new Lowering.Unsupported(i.line(), "vprintf takes two parameters");
            LLVMValueRef fmt = load(args.get(0), i64()), argBuffer = load(args.get(1), i64());
            LLVMValueRef scan = LLVMBuildCall2(l.b, scanType(), scanFunction(), Ll.array(fmt), 1, "");
            LLVMValueRef bytes = LLVMBuildAnd(l.b, scan, c64(0xffffffffL), "");
            LLVMValueRef count = LLVMBuildTrunc(l.b, LLVMBuildLShr(l.b, scan, c64(32), ""), i32(), "");
            LLVMValueRef record = LLVMBuildAdd(l.b, c64(16), LLVMBuildAnd(l.b, LLVMBuildAdd(l.b, bytes, c64(7), ""), c64(~7L), ""), "");
            Slot at = reserve(record);
            LLVMValueRef ok = at.ok();
            LLVMBasicBlockRef write = block("printf.write"), done = block("printf.done"), before;
            LLVMBuildCondBr(l.b, ok, write, done);
            LLVMPositionBuilderAtEnd(l.b, write);
            LLVMValueRef rec = at.record();
            store(rec, 8, fmt);
            // copy the argument buffer in 4-byte words (its size is a multiple of 4)
            LLVMBasicBlockRef head = LLVMGetInsertBlock(l.b), loop = block("printf.copy"), copied = block("printf.copied");
            LLVMBuildCondBr(l.b, LLVMBuildICmp(l.b, LLVMIntEQ, bytes, c64(0), ""), copied, loop);
            LLVMPositionBuilderAtEnd(l.b, loop);
            LLVMValueRef k = LLVMBuildPhi(l.b, i64(), "");
            LLVMValueRef src = LLVMBuildIntToPtr(l.b, LLVMBuildAdd(l.b, argBuffer, k, ""), ptr(), "");
            LLVMValueRef word = LLVMBuildLoad2(l.b, i32(), src, "");
            LLVMSetAlignment(word, 4);
            LLVMValueRef dst = LLVMBuildGEP2(l.b, i8(), rec, Ll.array(LLVMBuildAdd(l.b, k, c64(16), "")), 1, "");
            LLVMSetAlignment(LLVMBuildStore(l.b, word, dst), 4);
            LLVMValueRef next = LLVMBuildAdd(l.b, k, c64(4), "");
            LLVMAddIncoming(k, Ll.array(c64(0), next), Ll.array(head, loop), 2);
            LLVMBuildCondBr(l.b, LLVMBuildICmp(l.b, LLVMIntULT, next, bytes, ""), loop, copied);
            LLVMPositionBuilderAtEnd(l.b, copied);
            commit(rec, 1, record);
            before = LLVMGetInsertBlock(l.b);
            LLVMBuildBr(l.b, done);
            LLVMPositionBuilderAtEnd(l.b, done);
            LLVMValueRef result = LLVMBuildPhi(l.b, i32(), "");
            LLVMAddIncoming(result, Ll.array(count, c32(-1)), Ll.array(before, at.decide()), 2);
            if (!rets.isEmpty()) LLVMSetAlignment(LLVMBuildStore(l.b, result, rets.get(0)), 4);
        } else {
            if (args.size() < 4) throw new Lowering.Unsupported(i.line(), "__assertfail takes five parameters");
            Slot at = reserve(c64(64));
            LLVMBasicBlockRef write = block("assert.write"), done = block("assert.trap");
            LLVMBuildCondBr(l.b, at.ok(), write, done);
            LLVMPositionBuilderAtEnd(l.b, write);
            LLVMValueRef rec = at.record();
            store(rec, 8, load(args.get(0), i64()));
            store(rec, 16, load(args.get(1), i64()));
            store(rec, 24, load(args.get(3), i64()));
            store(rec, 32, LLVMBuildZExt(l.b, load(args.get(2), i32()), i64(), ""));
            for (int d = 0; d < 3; d++) {
                store(rec, 40 + 4 * d, l.target.specialRegister(l.module, l.b, l.threadContext(), "%ctaid", d));
                store(rec, 52 + 4 * d, l.target.specialRegister(l.module, l.b, l.threadContext(), "%tid", d));
            }
            commit(rec, 2, c64(64));
            LLVMBuildBr(l.b, done);
            LLVMPositionBuilderAtEnd(l.b, done);
            l.target.assertTrap(l.module, l.b, l.threadContext());
            LLVMBuildUnreachable(l.b);
            LLVMPositionBuilderAtEnd(l.b, block("assert.after"));
        }
    }

    private LLVMBasicBlockRef block(String name) {
        return LLVMAppendBasicBlockInContext(l.ctx, l.kernel, name);
    }

    private LLVMValueRef load(LLVMValueRef p, LLVMTypeRef t) {
        LLVMValueRef v = LLVMBuildLoad2(l.b, t, p, "");
        LLVMSetAlignment(v, 4);
        return v;
    }

    private void store(LLVMValueRef rec, int offset, LLVMValueRef v) {
        LLVMValueRef p = LLVMBuildGEP2(l.b, i8(), rec, Ll.array(c64(offset)), 1, "");
        LLVMSetAlignment(LLVMBuildStore(l.b, v, p), 4);
    }

    /** A reserved record: its pointer, whether there was room, and the block that branches on that. */
    private record Slot(LLVMValueRef record, LLVMValueRef ok, LLVMBasicBlockRef decide) {}

    /** Reserves {@code bytes} in the buffer; the builder is left in the block that decides. */
    private Slot reserve(LLVMValueRef bytes) {
        LLVMValueRef buffer = LLVMBuildLoad2(l.b, i64(), global(), "");
        LLVMSetAlignment(buffer, 8);
        LLVMBasicBlockRef has = block("printf.buffer"), none = block("printf.none"), decide = block("printf.decide");
        LLVMBuildCondBr(l.b, LLVMBuildICmp(l.b, LLVMIntNE, buffer, c64(0), ""), has, none);
        LLVMPositionBuilderAtEnd(l.b, has);
        LLVMValueRef base = LLVMBuildIntToPtr(l.b, buffer, ptr(), "");
        LLVMValueRef used = LLVMBuildAtomicRMW(l.b, LLVMAtomicRMWBinOpAdd, base, LLVMBuildTrunc(l.b, bytes, i32(), ""),
                LLVMAtomicOrderingMonotonic, 0);
        LLVMValueRef capacity = LLVMBuildLoad2(l.b, i32(), LLVMBuildGEP2(l.b, i8(), base, Ll.array(c64(4)), 1, ""), "");
        LLVMSetAlignment(capacity, 4);
        LLVMValueRef end = LLVMBuildAdd(l.b, LLVMBuildAdd(l.b, LLVMBuildZExt(l.b, used, i64(), ""), bytes, ""), c64(16), "");
        LLVMValueRef fits = LLVMBuildICmp(l.b, LLVMIntULE, end, LLVMBuildZExt(l.b, capacity, i64(), ""), "");
        LLVMValueRef rec = LLVMBuildGEP2(l.b, i8(), base, Ll.array(LLVMBuildAdd(l.b, LLVMBuildZExt(l.b, used, i64(), ""), c64(16), "")), 1, "");
        LLVMBasicBlockRef full = block("printf.full");
        LLVMBuildCondBr(l.b, fits, decide, full);
        LLVMPositionBuilderAtEnd(l.b, full);
        LLVMBuildAtomicRMW(l.b, LLVMAtomicRMWBinOpAdd, LLVMBuildGEP2(l.b, i8(), base, Ll.array(c64(8)), 1, ""), c32(1),
                LLVMAtomicOrderingMonotonic, 0);
        LLVMBuildBr(l.b, none);
        LLVMPositionBuilderAtEnd(l.b, none);
        LLVMBuildBr(l.b, decide);
        LLVMPositionBuilderAtEnd(l.b, decide);
        LLVMValueRef recPhi = LLVMBuildPhi(l.b, ptr(), "");
        LLVMAddIncoming(recPhi, Ll.array(rec, LLVMConstNull(ptr())), Ll.array(has, none), 2);
        LLVMValueRef okPhi = LLVMBuildPhi(l.b, LLVMInt1TypeInContext(l.ctx), "");
        LLVMAddIncoming(okPhi, Ll.array(LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 1, 0), LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 0, 0)),
                Ll.array(has, none), 2);
        return new Slot(recPhi, okPhi, decide);
    }

    /** Writes the record's size, then (after a release fence) its kind, which makes it complete. */
    private void commit(LLVMValueRef rec, int kind, LLVMValueRef bytes) {
        store(rec, 4, LLVMBuildTrunc(l.b, bytes, i32(), ""));
        LLVMBuildFence(l.b, LLVMAtomicOrderingRelease, 0, "");
        store(rec, 0, c32(kind));
    }

    private LLVMTypeRef scanType() {
        return LLVMFunctionType(i64(), Ll.array(i64()), 1, 0);
    }

    /**
     * {@code i64 scan(i64 format)}: the number of arguments the format converts (high half) and the size of CUDA's
     * argument buffer for them (low half), as the printing side reads them: %d %i %u %x %X %o %c take 4 bytes (8 with
     * l, ll, z, j, t), %f %e %g %a (any case), %s and %p 8, each aligned to its size; %% and unknown conversions none.
     */
    private LLVMValueRef scanFunction() {
        LLVMValueRef f = LLVMGetNamedFunction(l.module, SCAN);
        if (f != null && !f.isNull()) return f;
        f = LLVMAddFunction(l.module, SCAN, scanType());
        LLVMSetLinkage(f, LLVMInternalLinkage);
        LLVMBuilderRef b = LLVMCreateBuilderInContext(l.ctx);
        try {
            LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(l.ctx, f, "entry"), loop = LLVMAppendBasicBlockInContext(l.ctx, f, "loop"),
                    body = LLVMAppendBasicBlockInContext(l.ctx, f, "char"), exit = LLVMAppendBasicBlockInContext(l.ctx, f, "end");
            LLVMPositionBuilderAtEnd(b, entry);
            LLVMBuildBr(b, loop);
            LLVMPositionBuilderAtEnd(b, loop);
            LLVMValueRef idx = LLVMBuildPhi(b, i64(), ""), off = LLVMBuildPhi(b, i64(), ""), cnt = LLVMBuildPhi(b, i64(), ""),
                    state = LLVMBuildPhi(b, i32(), ""), longs = LLVMBuildPhi(b, LLVMInt1TypeInContext(l.ctx), "");
            LLVMValueRef at = LLVMBuildIntToPtr(b, LLVMBuildAdd(b, LLVMGetParam(f, 0), idx, ""), ptr(), "");
            LLVMValueRef c = LLVMBuildLoad2(b, i8(), at, "");
            LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, c, LLVMConstInt(i8(), 0, 0), ""), exit, body);
            LLVMPositionBuilderAtEnd(b, body);
            LLVMValueRef pct = is(b, c, "%");
            LLVMValueRef digit = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntUGE, c, LLVMConstInt(i8(), '0', 0), ""),
                    LLVMBuildICmp(b, LLVMIntULE, c, LLVMConstInt(i8(), '9', 0), ""), "");
            LLVMValueRef more = LLVMBuildOr(b, LLVMBuildOr(b, digit, is(b, c, "-+ #.*"), ""), is(b, c, "hlzjt"), "");
            LLVMValueRef longNow = is(b, c, "lzjt");
            LLVMValueRef intConv = is(b, c, "diuxXoc"), wide = is(b, c, "fFeEgGaAsp");
            LLVMValueRef inText = LLVMBuildICmp(b, LLVMIntEQ, state, c32(0), "");
            LLVMValueRef literal = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, state, c32(1), ""), pct, "");
            LLVMValueRef inSpec = LLVMBuildNot(b, LLVMBuildOr(b, inText, literal, ""), "");
            LLVMValueRef conversion = LLVMBuildAnd(b, inSpec, LLVMBuildNot(b, more, ""), "");
            LLVMValueRef size = LLVMBuildSelect(b, intConv, LLVMBuildSelect(b, longs, c64(8), c64(4), ""),
                    LLVMBuildSelect(b, wide, c64(8), c64(0), ""), "");
            LLVMValueRef takes = LLVMBuildAnd(b, conversion, LLVMBuildICmp(b, LLVMIntNE, size, c64(0), ""), "");
            LLVMValueRef aligned = LLVMBuildAnd(b, LLVMBuildAdd(b, off, LLVMBuildSub(b, size, c64(1), ""), ""),
                    LLVMBuildNeg(b, size, ""), "");
            LLVMValueRef nextOff = LLVMBuildSelect(b, takes, LLVMBuildAdd(b, aligned, size, ""), off, "");
            LLVMValueRef nextCnt = LLVMBuildSelect(b, takes, LLVMBuildAdd(b, cnt, c64(1), ""), cnt, "");
            LLVMValueRef nextState = LLVMBuildSelect(b, inText, LLVMBuildSelect(b, pct, c32(1), c32(0), ""),
                    LLVMBuildSelect(b, LLVMBuildAnd(b, inSpec, more, ""), c32(2), c32(0), ""), "");
            LLVMValueRef nextLongs = LLVMBuildAnd(b, LLVMBuildAnd(b, inSpec, more, ""), LLVMBuildOr(b, longs, longNow, ""), "");
            LLVMValueRef nextIdx = LLVMBuildAdd(b, idx, c64(1), "");
            LLVMBuildBr(b, loop);
            LLVMValueRef f1 = LLVMConstInt(LLVMInt1TypeInContext(l.ctx), 0, 0);
            LLVMAddIncoming(idx, Ll.array(c64(0), nextIdx), Ll.array(entry, body), 2);
            LLVMAddIncoming(off, Ll.array(c64(0), nextOff), Ll.array(entry, body), 2);
            LLVMAddIncoming(cnt, Ll.array(c64(0), nextCnt), Ll.array(entry, body), 2);
            LLVMAddIncoming(state, Ll.array(c32(0), nextState), Ll.array(entry, body), 2);
            LLVMAddIncoming(longs, Ll.array(f1, nextLongs), Ll.array(entry, body), 2);
            LLVMPositionBuilderAtEnd(b, exit);
            LLVMBuildRet(b, LLVMBuildOr(b, LLVMBuildShl(b, cnt, c64(32), ""), off, ""));
        } finally {
            LLVMDisposeBuilder(b);
        }
        return f;
    }

    /** c is one of {@code chars}. */
    private LLVMValueRef is(LLVMBuilderRef b, LLVMValueRef c, String chars) {
        LLVMValueRef r = null;
        for (char ch : chars.toCharArray()) {
            LLVMValueRef e = LLVMBuildICmp(b, LLVMIntEQ, c, LLVMConstInt(i8(), ch, 0), "");
            r = r == null ? e : LLVMBuildOr(b, r, e, "");
        }
        return r;
    }
}
