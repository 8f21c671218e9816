package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;

/** mma.sync on AMD GPUs without a matrix instruction (RDNA2, gfx10.3): lane permutes and dot products. */
final class DotProductMma {
    private final MatrixOps m;
    private final Lowering l;

    DotProductMma(MatrixOps m, Lowering l) {
        this.m = m;
        this.l = l;
    }

    private LLVMBuilderRef b() {
        return l.b;
    }

    private LLVMValueRef and(LLVMValueRef a, int mask) {
        return LLVMBuildAnd(b(), a, m.c32(mask), "");
    }

    private LLVMValueRef add(LLVMValueRef a, LLVMValueRef c) {
        return LLVMBuildAdd(b(), a, c, "");
    }

    private LLVMValueRef mul(LLVMValueRef a, int k) {
        return LLVMBuildMul(b(), a, m.c32(k), "");
    }

    /**
     * mma.sync on a GPU without a matrix instruction (RDNA2 gfx10.3): each lane fetches the words of its two rows of A
     * and its two columns of B by lane permutes (NVIDIA's layouts: A (i,k) at lane (i%8)*4 + (k%8)/2, register
     * i/8 + 2(k/8), for 8-bit (k%16)/4 and 2(k/16); B (k,j) at lane (j%8)*4 + the same, register k/8 or k/16) and
     * forms its four elements of D with two-element (16-bit floats, f32 sums) or four-element (8-bit, exact) dot
     * products: the target's (gfx10.3: v_dot2c_f32_f16, v_dot4_i32_i8, v_dot4_u32_u8) where it has them, plain
     * arithmetic otherwise (bf16, mixed signedness, the host). 32 permutes per m16n8k16.
     */
    void mma(Instruction i, int[] shape, Type dt, Type at, Type bt, Type ct) {
        l.usesBlockOperations = true;
        boolean integer = at == Type.S8 || at == Type.U8, m8 = shape[0] == 8;
        int k = shape[2], blocks = integer ? k / 16 : k / 8;   // 8-bit: k-blocks of 16 (4 words); 16-bit: of 8
        if (m8) blocks = 1;
        List<Operand> o = i.operands();
        List<LLVMValueRef> aw = m.readWords(i, o.get(1)), bw = m.readWords(i, o.get(2)), cw = m.readWords(i, o.get(3));
        LLVMValueRef lane = l.laneId(i), g = LLVMBuildLShr(b(), lane, m.c32(2), ""), t = and(lane, 3);
        int rows = m8 ? 1 : 2, elements = m8 ? 2 : 4;
        // A words of rows g (+8): [rowHalf][block][q]; B words of columns 2t, 2t+1: [col][block][q]
        LLVMValueRef[][][] ar = new LLVMValueRef[rows][blocks][4], bc = new LLVMValueRef[2][blocks][4];
        List<LLVMValueRef> values = new ArrayList<>(), srcs = new ArrayList<>();  // every fetch, then one batch
        for (int q = 0; q < 4; q++) {
            LLVMValueRef srcA = add(mul(g, 4), m.c32(q));
            for (int rh = 0; rh < rows; rh++)
                for (int kb = 0; kb < blocks; kb++) {
                    values.add(aw.get(m8 ? 0 : rh + 2 * kb));
                    srcs.add(srcA);
                }
            for (int c = 0; c < 2; c++) {
                LLVMValueRef srcB = add(mul(add(mul(t, 2), m.c32(c)), 4), m.c32(q));
                for (int kb = 0; kb < blocks; kb++) {
                    values.add(bw.get(kb));
                    srcs.add(srcB);
                }
            }
        }
        List<LLVMValueRef> got = m.permutes(values, srcs);
        int next = 0;
        for (int q = 0; q < 4; q++) {
            for (int rh = 0; rh < rows; rh++)
                for (int kb = 0; kb < blocks; kb++) ar[rh][kb][q] = got.get(next++);
            for (int c = 0; c < 2; c++)
                for (int kb = 0; kb < blocks; kb++) bc[c][kb][q] = got.get(next++);
        }
        List<LLVMValueRef> out = new ArrayList<>();
        LLVMTypeRef f32 = LLVMFloatTypeInContext(l.ctx);
        for (int e = 0; e < elements; e++) {
            int rh = e >> 1, c = e & 1;
            LLVMValueRef acc;
            if (integer) {
                acc = m.c32(0);
                for (int kb = 0; kb < blocks; kb++)
                    for (int q = 0; q < 4; q++) {
                        LLVMValueRef d = at == bt ? l.target.dot4(l.module, b(), ar[rh][kb][q], bc[c][kb][q], acc, at == Type.S8) : null;
                        acc = d != null ? d : LLVMBuildAdd(b(), acc, dot4(ar[rh][kb][q], at, bc[c][kb][q], bt), "");
                    }
                LLVMValueRef cv = cw.get(e);
                acc = i.has(".satfinite") ? m.narrow(LLVMBuildAdd(b(), LLVMBuildSExt(b(), acc, m.i64t(), ""), LLVMBuildSExt(b(), cv, m.i64t(), ""), ""),
                        Type.S32, true) : LLVMBuildAdd(b(), acc, cv, "");
            } else {
                acc = ct == Type.F32 ? LLVMBuildBitCast(b(), cw.get(e), f32, "")
                        : LLVMBuildFPTrunc(b(), m.element(cw.get(e / 2), e % 2, Type.F16), f32, "");
                for (int kb = 0; kb < blocks; kb++)
                    for (int q = 0; q < 4; q++) acc = dot2(ar[rh][kb][q], bc[c][kb][q], at, acc);
                acc = LLVMBuildBitCast(b(), acc, m.i32t(), "");
            }
            out.add(acc);
        }
        if (dt == Type.S32 || dt == Type.F32) {
            List<Operand> regs = MatrixOps.elements(o.get(0));
            for (int e = 0; e < regs.size(); e++) l.write(i, regs.get(e), dt == Type.F32 ? LLVMBuildBitCast(b(), out.get(e), f32, "") : out.get(e),
                    dt == Type.F32 ? Type.F32 : Type.B32);
        } else {
            m.writeD(i, o.get(0), dt, out);
        }
    }

    /** acc + a.lo*b.lo + a.hi*b.hi for two f16/bf16 in each word, in f32 (the products are exact there). */
    private LLVMValueRef dot2(LLVMValueRef a, LLVMValueRef b, Type t, LLVMValueRef acc) {
        LLVMValueRef d = t == Type.F16 ? l.target.dot2F16(l.module, b(), a, b, acc) : null;
        if (d != null) return d;
        LLVMTypeRef f32 = LLVMFloatTypeInContext(l.ctx);
        for (int h = 0; h < 2; h++) {
            LLVMValueRef x = LLVMBuildFPTrunc(b(), m.element(a, h, t), f32, ""), y = LLVMBuildFPTrunc(b(), m.element(b, h, t), f32, "");
            acc = LLVMBuildFAdd(b(), acc, LLVMBuildFMul(b(), x, y, ""), "");
        }
        return acc;
    }

    /** The sum of the four byte products of two words (i32, exact). */
    private LLVMValueRef dot4(LLVMValueRef a, Type at, LLVMValueRef b, Type bt) {
        LLVMValueRef sum = null;
        for (int k = 0; k < 4; k++) {
            LLVMValueRef x = LLVMBuildTrunc(b(), m.element(a, k, at), m.i32t(), ""), y = LLVMBuildTrunc(b(), m.element(b, k, bt), m.i32t(), "");
            LLVMValueRef p = LLVMBuildMul(b(), x, y, "");
            sum = sum == null ? p : LLVMBuildAdd(b(), sum, p, "");
        }
        return sum;
    }
}
