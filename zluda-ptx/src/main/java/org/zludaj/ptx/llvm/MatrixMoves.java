package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;

/**
 * The matrix family's data movement on targets without NVIDIA's instructions: {@code ldmatrix}, {@code stmatrix} and
 * {@code movmatrix} (.m8n8 .b16, .x1/.x2/.x4, .trans) through lane permutes or the warp's gathered addresses, and
 * {@code cp.async} as an immediate copy (its groups are then always complete).
 */
final class MatrixMoves {
    private final Lowering l;
    private final MatrixOps m;

    MatrixMoves(Lowering l, MatrixOps m) {
        this.l = l;
        this.m = m;
    }

    private int count(Instruction i) {
        return i.has(".x4") ? 4 : i.has(".x2") ? 2 : 1;
    }

    private void checkM8n8(Instruction i) {
        if (!i.has(".m8n8") || !i.has(".b16")) throw m.unsupported(i, "(only .m8n8 .b16) is not supported yet");
    }

    /** ldmatrix: lanes 8j..8j+7 give the rows of matrix j; lane L receives row L/4, columns 2(L%4).. of each. */
    void ldmatrix(Instruction i) {
        checkM8n8(i);
        int n = count(i);
        List<Operand> o = i.operands();
        LLVMValueRef p = l.address(i, (Operand.Address) o.get(1), l.space(i));
        LLVMTypeRef pt = LLVMTypeOf(p);
        LLVMValueRef addr = LLVMBuildPtrToInt(l.b, p, m.i64t(), "");
        List<LLVMValueRef> mine = List.of(LLVMBuildTrunc(l.b, addr, m.i32t(), ""),
                LLVMBuildTrunc(l.b, LLVMBuildLShr(l.b, addr, LLVMConstInt(m.i64t(), 32, 0), ""), m.i32t(), ""));
        boolean narrow = LLVMGetPointerAddressSpace(pt) != 0 && l.target.addressSpace(StateSpace.SHARED) == LLVMGetPointerAddressSpace(pt)
                && !l.target.hasWarpGather();  // 32-bit LDS addresses on GPUs: one word to move
        LLVMValueRef all = l.target.hasWarpGather() ? l.gather(i, mine) : null;
        // the row addresses that lanes `sources` gave: from the gathered words, else by permutes (one batch)
        java.util.function.Function<List<LLVMValueRef>, List<LLVMValueRef>> rowsOf = sources -> {
            List<LLVMValueRef> rows = new java.util.ArrayList<>();
            if (all != null) {
                for (LLVMValueRef source : sources) rows.add(rowAddress(all, source, pt));
                return rows;
            }
            List<LLVMValueRef> values = new java.util.ArrayList<>(), srcs = new java.util.ArrayList<>();
            for (LLVMValueRef source : sources)
                for (int w = 0; w < (narrow ? 1 : 2); w++) {
                    values.add(mine.get(w));
                    srcs.add(source);
                }
            List<LLVMValueRef> got = m.permutes(values, srcs);
            for (int k = 0; k < sources.size(); k++) {
                LLVMValueRef lo = LLVMBuildZExt(l.b, got.get(narrow ? k : 2 * k), m.i64t(), "");
                LLVMValueRef a = narrow ? lo : LLVMBuildOr(l.b, lo, LLVMBuildShl(l.b, LLVMBuildZExt(l.b, got.get(2 * k + 1), m.i64t(), ""),
                        LLVMConstInt(m.i64t(), 32, 0), ""), "");
                rows.add(LLVMBuildIntToPtr(l.b, a, pt, ""));
            }
            return rows;
        };
        l.usesBlockOperations = true;
        LLVMValueRef lane = l.laneId(i);
        LLVMValueRef g = LLVMBuildLShr(l.b, lane, m.c32(2), ""), t = LLVMBuildAnd(l.b, lane, m.c32(3), "");
        List<Operand> d = MatrixOps.elements(o.get(0));
        List<LLVMValueRef> sources = new java.util.ArrayList<>();  // the lanes whose row addresses this lane reads
        for (int j = 0; j < n; j++) {
            if (!i.has(".trans")) {
                sources.add(LLVMBuildAdd(l.b, m.c32(8L * j), g, ""));
            } else {
                sources.add(LLVMBuildAdd(l.b, m.c32(8L * j), LLVMBuildMul(l.b, t, m.c32(2), ""), ""));
                sources.add(LLVMBuildAdd(l.b, m.c32(8L * j + 1), LLVMBuildMul(l.b, t, m.c32(2), ""), ""));
            }
        }
        List<LLVMValueRef> rows = rowsOf.apply(sources);
        for (int j = 0; j < n; j++) {
            LLVMValueRef v;
            if (!i.has(".trans")) {
                LLVMValueRef row = rows.get(j);
                v = LLVMBuildLoad2(l.b, m.i32t(), gep(row, LLVMBuildMul(l.b, t, m.c32(4), "")), "");
            } else {  // element (r, c) of the result = element (c, r) of the matrix in memory
                LLVMValueRef r0 = rows.get(2 * j), r1 = rows.get(2 * j + 1);
                LLVMValueRef col = LLVMBuildMul(l.b, g, m.c32(2), "");
                LLVMTypeRef i16 = LLVMInt16TypeInContext(l.ctx);
                LLVMValueRef lo = LLVMBuildZExt(l.b, LLVMBuildLoad2(l.b, i16, gep(r0, col), ""), m.i32t(), "");
                LLVMValueRef hi = LLVMBuildZExt(l.b, LLVMBuildLoad2(l.b, i16, gep(r1, col), ""), m.i32t(), "");
                v = LLVMBuildOr(l.b, lo, LLVMBuildShl(l.b, hi, m.c32(16), ""), "");
            }
            l.write(i, d.get(j), v, Type.B32);
        }
        l.warpMemoryDone(i);
    }

    private LLVMValueRef gep(LLVMValueRef p, LLVMValueRef byteOffset) {
        return LLVMBuildGEP2(l.b, LLVMInt8TypeInContext(l.ctx), p, Ll.array(LLVMBuildZExt(l.b, byteOffset, m.i64t(), "")), 1, "");
    }

    /** The address lane {@code source} gave (two gathered words), as a pointer of type {@code pt}. */
    private LLVMValueRef rowAddress(LLVMValueRef all, LLVMValueRef source, LLVMTypeRef pt) {
        LLVMValueRef at = LLVMBuildAdd(l.b, m.c32(2), LLVMBuildMul(l.b, source, m.c32(2), ""), "");
        LLVMValueRef lo = LLVMBuildZExt(l.b, m.load32At(all, at), m.i64t(), "");
        LLVMValueRef hi = LLVMBuildZExt(l.b, m.load32At(all, LLVMBuildAdd(l.b, at, m.c32(1), "")), m.i64t(), "");
        LLVMValueRef a = LLVMBuildOr(l.b, lo, LLVMBuildShl(l.b, hi, LLVMConstInt(m.i64t(), 32, 0), ""), "");
        return LLVMBuildIntToPtr(l.b, a, pt, "");
    }

    /** stmatrix: the inverse of ldmatrix; lane L stores row L%8 of matrix L/8 at its own address. */
    void stmatrix(Instruction i) {
        checkM8n8(i);
        int n = count(i);
        List<Operand> o = i.operands();
        LLVMValueRef p = l.address(i, (Operand.Address) o.get(0), l.space(i));
        List<LLVMValueRef> words = m.readWords(i, o.get(1));
        LLVMValueRef all = l.gather(i, words);
        LLVMValueRef lane = l.laneId(i);
        LLVMValueRef matrix = LLVMBuildLShr(l.b, lane, m.c32(3), ""), r = LLVMBuildAnd(l.b, lane, m.c32(7), "");
        // this lane's part is matrix L/8 < n: the register of that matrix is chosen by a select chain
        var fn = l.kernel;
        var doStore = LLVMAppendBasicBlockInContext(l.ctx, fn, "stmatrix.store");
        var done = LLVMAppendBasicBlockInContext(l.ctx, fn, "stmatrix.done");
        LLVMBuildCondBr(l.b, LLVMBuildICmp(l.b, LLVMIntULT, matrix, m.c32(n), ""), doStore, done);
        LLVMPositionBuilderAtEnd(l.b, doStore);
        // all[n + L*n + j] is register j of lane L
        for (int e = 0; e < (i.has(".trans") ? 8 : 4); e++) {
            if (!i.has(".trans")) {  // word e of row r: register `matrix` of lane 4r + e
                LLVMValueRef src = LLVMBuildAdd(l.b, LLVMBuildMul(l.b, r, m.c32(4), ""), m.c32(e), "");
                LLVMValueRef w = m.load32At(all, LLVMBuildAdd(l.b, m.c32(n), LLVMBuildAdd(l.b, LLVMBuildMul(l.b, src, m.c32(n), ""), matrix, ""), ""));
                LLVMBuildStore(l.b, w, gep(p, m.c32(4L * e)));
            } else {  // element e of stored row r = fragment element (e, r): lane 4e + r/2, half r%2
                LLVMValueRef src = LLVMBuildAdd(l.b, m.c32(4L * e), LLVMBuildLShr(l.b, r, m.c32(1), ""), "");
                LLVMValueRef w = m.load32At(all, LLVMBuildAdd(l.b, m.c32(n), LLVMBuildAdd(l.b, LLVMBuildMul(l.b, src, m.c32(n), ""), matrix, ""), ""));
                LLVMValueRef h = LLVMBuildLShr(l.b, w, LLVMBuildMul(l.b, LLVMBuildAnd(l.b, r, m.c32(1), ""), m.c32(16), ""), "");
                LLVMBuildStore(l.b, LLVMBuildTrunc(l.b, h, LLVMInt16TypeInContext(l.ctx), ""), gep(p, m.c32(2L * e)));
            }
        }
        LLVMBuildBr(l.b, done);
        LLVMPositionBuilderAtEnd(l.b, done);
        l.warpMemoryDone(i);
    }

    /** movmatrix.m8n8.trans.b16: lane L, half j of the result = element (2(L%4)+j, L/4) of the fragment matrix. */
    void movmatrix(Instruction i) {
        checkM8n8(i);
        if (!i.has(".trans")) throw m.unsupported(i, "without .trans is not a PTX instruction");
        List<Operand> o = i.operands();
        LLVMValueRef mine = l.read(i, o.get(1), Type.B32);
        l.usesBlockOperations = true;
        LLVMValueRef all = l.target.hasWarpGather() ? l.gather(i, List.of(mine)) : null;
        LLVMValueRef lane = l.laneId(i);
        LLVMValueRef g = LLVMBuildLShr(l.b, lane, m.c32(2), ""), t = LLVMBuildAnd(l.b, lane, m.c32(3), "");
        LLVMValueRef shift = LLVMBuildMul(l.b, LLVMBuildAnd(l.b, g, m.c32(1), ""), m.c32(16), "");
        LLVMValueRef result = null;
        for (int j = 0; j < 2; j++) {
            LLVMValueRef row = LLVMBuildAdd(l.b, LLVMBuildMul(l.b, t, m.c32(2), ""), m.c32(j), "");
            LLVMValueRef src = LLVMBuildAdd(l.b, LLVMBuildMul(l.b, row, m.c32(4), ""), LLVMBuildLShr(l.b, g, m.c32(1), ""), "");
            LLVMValueRef w = all != null ? m.load32At(all, LLVMBuildAdd(l.b, m.c32(1), src, "")) : m.permute(mine, src);
            LLVMValueRef h = LLVMBuildAnd(l.b, LLVMBuildLShr(l.b, w, shift, ""), m.c32(0xffff), "");
            result = j == 0 ? h : LLVMBuildOr(l.b, result, LLVMBuildShl(l.b, h, m.c32(16), ""), "");
        }
        l.write(i, o.get(0), result, Type.B32);
    }

    // ------------------------------------------------------------------------------------------- cp.async

    /**
     * cp.async copies at once (the thread sees its data immediately, other threads after the usual barrier), so
     * commit_group, wait_group and wait_all have nothing left to wait for. src-size copies fewer bytes and fills
     * the rest with zeros; ignore-src copies none.
     */
    void cpAsync(Instruction i) {
        if (i.has(".commit_group") || i.has(".wait_group") || i.has(".wait_all")) return;
        if (i.has(".mbarrier")) {  // the copies are complete already: the arrive-on happens now
            l.barriers.cpAsyncArrive(i);
            return;
        }
        List<Operand> o = i.operands();
        if (o.size() < 3) throw m.unsupported(i, "has too few operands");
        LLVMValueRef dst = l.address(i, (Operand.Address) o.get(0), StateSpace.SHARED);
        LLVMValueRef src = l.address(i, (Operand.Address) o.get(1), StateSpace.GLOBAL);
        long size = ((Operand.IntImm) o.get(2)).value();
        LLVMValueRef n = LLVMConstInt(m.i64t(), size, 0);
        if (o.size() > 3) {
            Operand extra = o.get(3);
            if (l.isPredicate(extra)) {
                n = LLVMBuildSelect(l.b, l.read(i, extra, Type.PRED), LLVMConstInt(m.i64t(), 0, 0), n, "");
            } else {
                LLVMValueRef srcSize = LLVMBuildZExt(l.b, l.read(i, extra, Type.U32), m.i64t(), "");
                n = LLVMBuildSelect(l.b, LLVMBuildICmp(l.b, LLVMIntULT, srcSize, n, ""), srcSize, n, "");
            }
        }
        LLVMTypeRef i8 = LLVMInt8TypeInContext(l.ctx);
        for (int k = 0; k < size; k++) {  // at most 16 bytes: byte by byte, the missing ones zero
            LLVMValueRef inside = LLVMBuildICmp(l.b, LLVMIntULT, LLVMConstInt(m.i64t(), k, 0), n, "");
            var fn = l.kernel;
            var copy = LLVMAppendBasicBlockInContext(l.ctx, fn, "cp.byte");
            var next = LLVMAppendBasicBlockInContext(l.ctx, fn, "cp.next");
            var from = LLVMGetInsertBlock(l.b);
            LLVMBuildCondBr(l.b, inside, copy, next);
            LLVMPositionBuilderAtEnd(l.b, copy);
            LLVMValueRef x = LLVMBuildLoad2(l.b, i8, LLVMBuildGEP2(l.b, i8, src, Ll.array(LLVMConstInt(m.i64t(), k, 0)), 1, ""), "");
            LLVMBuildBr(l.b, next);
            LLVMPositionBuilderAtEnd(l.b, next);
            LLVMValueRef phi = LLVMBuildPhi(l.b, i8, "");
            LLVMAddIncoming(phi, Ll.array(x, LLVMConstInt(i8, 0, 0)), Ll.array(copy, from), 2);
            LLVMBuildStore(l.b, phi, LLVMBuildGEP2(l.b, i8, dst, Ll.array(LLVMConstInt(m.i64t(), k, 0)), 1, ""));
        }
    }
}
