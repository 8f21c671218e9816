package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Ll;

/**
 * A sum in a loop that LLVM's LICM reassociated to hoist its invariant part is summed again in the loop, in the order
 * the PTX wrote it. LICM (LLVM 20, {@code hoistBOAssociation}) makes {@code (v + a) + b}, {@code v} varying and
 * {@code a}, {@code b} invariant, into {@code v + invariant.op} with {@code invariant.op = a + b} in the preheader. For
 * addresses that is a second base register live across the loop for each offset: in ggml's
 * {@code mul_mat_vec_q<q5_0>} the q8_1 block's address {@code (y + 36 i) + 4} plus each of two lane offsets became
 * {@code 36 i + ((y + 4) + offset)}, two 64-bit bases where nvcc's PTX keeps one address and its offsets. Timed alone
 * (H200, {@code ptxrun}, the kernel with its lane offsets as NVIDIA wrote them, {@link ExtendedShifts}): 18.54-18.72 us
 * a launch with LICM's bases, 18.32-18.46 with the PTX's order (ggml's own PTX through NVIDIA's JIT 18.02-18.21).
 *
 * <p>Only what LICM made is undone: an integer {@code add} LICM named {@code *.reass} whose second operand is its
 * {@code invariant.op} sum; that sum's terms (the nested {@code invariant.op} adds taken apart) are added to the varying
 * value one by one before the {@code .reass} add, the same partial sum shared within a block, and the preheader's sums
 * left without a use are erased. Products and the other forms LICM hoists are kept.
 */
public final class HoistedSums {
    private HoistedSums() {}

    private record Partial(LLVMBasicBlockRef block, LLVMValueRef sum, LLVMValueRef term) {}

    /** Sums the hoisted parts of LICM's reassociated adds in their loops again. */
    public static void restore(LLVMModuleRef m) {
        List<LLVMValueRef> reassociated = new ArrayList<>();
        for (LLVMValueRef f = LLVMGetFirstFunction(m); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) {
            Ll.forEachInstruction(f, i -> {
                if (LLVMGetInstructionOpcode(i) == LLVMAdd && isReassociated(name(i))) reassociated.add(i);
            });
        }
        Map<Partial, LLVMValueRef> partials = new HashMap<>();
        Set<LLVMValueRef> hoisted = new LinkedHashSet<>();  // every hoisted sum the restored adds used, nested ones too
        Ll.withBuilder(m, b -> {
            for (LLVMValueRef add : reassociated) {
                if (!isHoistedSum(LLVMGetOperand(add, 1))) continue;  // (what LICM made is LV + sum)
                LLVMBasicBlockRef block = LLVMGetInstructionParent(add);
                LLVMPositionBuilderBefore(b, add);
                List<LLVMValueRef> terms = new ArrayList<>();
                termsOf(LLVMGetOperand(add, 1), terms, hoisted);
                LLVMValueRef sum = LLVMGetOperand(add, 0);
                for (LLVMValueRef term : terms) {
                    // a partial sum made before, earlier in this block, dominates this add (the adds go in block order)
                    Partial key = new Partial(block, sum, term);
                    LLVMValueRef next = partials.get(key);
                    if (next == null) {
                        next = LLVMBuildAdd(b, sum, term, "");
                        partials.put(key, next);
                    }
                    sum = next;
                }
                if (name(add).startsWith("invariant.op") && isInstruction(sum)) LLVMSetValueName2(sum, "invariant.op", 12);
                Ll.replace(add, sum);
            }
        });
        eraseUnused(hoisted);
    }

    /**
     * An add LICM made of a loop's varying value and a hoisted sum ({@code NAME.reass}, numbered). A hoisted sum of an
     * inner loop can be one too, reassociated again in the outer loop ({@code invariant.op.reass}): it is summed again
     * in the outer loop, and the last add of that sum is named a hoisted sum, so that the inner loop's adds that used it
     * take it apart in turn (done in either order, the result is right: only how far the inner sums are restored differs).
     */
    private static boolean isReassociated(String name) {
        return name.contains(".reass");
    }

    private static boolean isInstruction(LLVMValueRef v) {
        LLVMValueRef i = LLVMIsAInstruction(v);
        return i != null && !i.isNull();
    }

    /** A sum LICM hoisted out of a loop ({@code invariant.op}, numbered), not reassociated again itself. */
    private static boolean isHoistedSum(LLVMValueRef v) {
        if (!isInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMAdd) return false;
        String name = name(v);
        return name.startsWith("invariant.op") && !name.contains(".reass");
    }

    /** The terms of a hoisted sum in the order they were added: nested hoisted sums taken apart, left to right. */
    private static void termsOf(LLVMValueRef v, List<LLVMValueRef> terms, Set<LLVMValueRef> hoisted) {
        if (!isHoistedSum(v)) {
            terms.add(v);
            return;
        }
        hoisted.add(v);
        termsOf(LLVMGetOperand(v, 0), terms, hoisted);
        termsOf(LLVMGetOperand(v, 1), terms, hoisted);
    }

    /** Erases the hoisted sums left without a use (a sum used by another one goes once that one has gone). */
    private static void eraseUnused(Set<LLVMValueRef> hoisted) {
        for (boolean erased = true; erased; ) {
            erased = false;
            for (var it = hoisted.iterator(); it.hasNext(); ) {
                LLVMValueRef v = it.next();
                if (LLVMGetFirstUse(v) != null && !LLVMGetFirstUse(v).isNull()) continue;
                LLVMInstructionEraseFromParent(v);
                it.remove();
                erased = true;
            }
        }
    }

    private static String name(LLVMValueRef v) {
        return LLVMGetValueName(v).getString();  // (no length pointer to allocate: this runs for every add)
    }
}
