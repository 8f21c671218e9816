package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Ll;

/**
 * A 64-bit left shift by a constant that the PTX wrote, of a 32-bit value widened ({@code cvt.s64.s32} then
 * {@code shl.b64}: nvcc's form for 64-bit index arithmetic), keeps that form in our NVPTX. LLVM's NVPTX back end makes
 * every shift of a widened value a {@code mul.wide.s32} by the power of two, and ptxas treats the two differently: in
 * ggml's {@code mul_mat_vec_q<q5_0>} (q5_0 weights, one column) the two lane offsets of its loop became such products,
 * which ptxas folded into each iteration's addresses (an IMAD.WIDE a load), where NVIDIA's shifted offsets stayed in
 * registers. Timed alone (H200, {@code ptxrun}): ggml's PTX 18.0-18.2 us a launch; ggml's PTX with our preheader spliced
 * in 18.6-18.8; with our preheader but these two instructions as NVIDIA wrote them 18.0-18.2.
 *
 * <p>The lowering marks the shifts PTX wrote ({@link #mark}); before code generation ({@link #keep}) a marked shift of
 * a sign or zero extension from 32 bits takes the extension as NVIDIA's own {@code cvt} in inline PTX, which the back
 * end does not look through. A multiplication by a power of two ({@code mul.wide.s32}, nvcc's form for array indexing,
 * which LLVM's middle end also makes a shift) is not marked and stays {@code mul.wide}.
 */
public final class ExtendedShifts {
    private static final String KIND = "zluda.ptx.shl";

    private ExtendedShifts() {}

    /** Marks {@code shift} (an instruction, or a constant the builder folded: nothing to mark) as a shift the PTX wrote. */
    public static void mark(LLVMContextRef ctx, LLVMValueRef shift) {
        LLVMValueRef i = LLVMIsAInstruction(shift);
        if (i == null || i.isNull()) return;
        LLVMSetMetadata(shift, LLVMGetMDKindIDInContext(ctx, KIND, KIND.length()), LLVMMDNodeInContext(ctx, (LLVMValueRef) null, 0));
    }

    /** Gives each marked 64-bit shift by a constant of a widened 32-bit value that widening as NVIDIA's cvt. */
    public static void keep(LLVMModuleRef m) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        int kind = LLVMGetMDKindIDInContext(ctx, KIND, KIND.length());
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
        List<LLVMValueRef> shifts = new ArrayList<>();
        for (LLVMValueRef f = LLVMGetFirstFunction(m); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) {
            Ll.forEachInstruction(f, i -> {
                if (LLVMGetInstructionOpcode(i) != LLVMShl || !LLVMTypeOf(i).equals(i64) || LLVMGetMetadata(i, kind) == null
                        || LLVMGetMetadata(i, kind).isNull()) return;
                LLVMValueRef by = LLVMGetOperand(i, 1), x = LLVMIsAInstruction(LLVMGetOperand(i, 0));
                if (LLVMIsAConstantInt(by) == null || LLVMIsAConstantInt(by).isNull() || x == null || x.isNull()) return;
                int op = LLVMGetInstructionOpcode(x);
                if ((op == LLVMSExt || op == LLVMZExt) && LLVMTypeOf(LLVMGetOperand(x, 0)).equals(i32)) shifts.add(i);
            });
        }
        if (shifts.isEmpty()) return;
        Map<LLVMValueRef, LLVMValueRef> cvts = new HashMap<>();  // an extension -> its cvt, one for all its marked shifts
        Ll.withBuilder(m, b -> {
            for (LLVMValueRef s : shifts) {
                LLVMValueRef ext = LLVMGetOperand(s, 0);
                LLVMValueRef cvt = cvts.get(ext);
                if (cvt == null) {
                    LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(ext));  // where the extension was (a block ends in a terminator)
                    boolean signed = LLVMGetInstructionOpcode(ext) == LLVMSExt;
                    cvt = Ll.pureAsm(b, i64, signed ? "cvt.s64.s32 $0, $1;" : "cvt.u64.u32 $0, $1;", "=l,r", LLVMGetOperand(ext, 0));
                    cvts.put(ext, cvt);
                }
                LLVMSetOperand(s, 0, cvt);
            }
        });
        for (LLVMValueRef ext : cvts.keySet()) {
            if (LLVMGetFirstUse(ext) == null || LLVMGetFirstUse(ext).isNull()) LLVMInstructionEraseFromParent(ext);
        }
    }
}
