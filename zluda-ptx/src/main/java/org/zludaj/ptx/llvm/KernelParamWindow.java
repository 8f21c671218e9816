package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Variable;
import org.zludaj.ptx.target.Target;

/**
 * A kernel that takes the address of one of its parameters ({@code mov.u64 r, param}, then {@code cvta.param} or a
 * generic load), whose address NVIDIA's GPUs give in the .param window (isspacep.param and .global true, .local false:
 * ptx-test {@code isspacep_windows}). NVPTX ({@link Target#paramsByReference}): the kernel takes its parameters by
 * reference, as grid constants. The host ({@link Target#recordsParamWindow}), where each parameter is wherever the
 * launch put it: the parameters are copied into one block of the kernel's frame at its entry and the block is recorded
 * in the thread context, where isspacep looks. Other kernels, and AMD's (parameters in the kernel's argument segment,
 * .global there), are left as they are.
 */
final class KernelParamWindow {
    private KernelParamWindow() {}

    /** Adds kernel {@code name} taking its parameters by reference: one pointer each, marked by {@link Target#byReference}. */
    static LLVMValueRef addByReference(Target target, LLVMModuleRef m, LLVMContextRef ctx, String name, Function f, List<LLVMTypeRef> types) {
        LLVMTypeRef[] pointers = new LLVMTypeRef[types.size()];
        java.util.Arrays.fill(pointers, LLVMPointerTypeInContext(ctx, 0));
        LLVMValueRef kernel = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(ctx), Ll.array(pointers), pointers.length, 0));
        var layout = LLVMGetModuleDataLayout(m);
        int[] aligns = new int[types.size()];
        for (int i = 0; i < aligns.length; i++)
            aligns[i] = Math.max(ModuleVariables.alignment(f.params().get(i)), LLVMABIAlignmentOfType(layout, types.get(i)));
        target.byReference(m, kernel, types, aligns);
        return kernel;
    }

    /** The parameters' addresses of a kernel made by {@link #addByReference}: its arguments, in the .param space. */
    static List<LLVMValueRef> arguments(Target target, LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef kernel, int n) {
        List<LLVMValueRef> out = new ArrayList<>();
        LLVMTypeRef want = LLVMPointerTypeInContext(ctx, target.addressSpace(org.zludaj.ptx.model.StateSpace.PARAM));
        for (int i = 0; i < n; i++) {
            LLVMValueRef a = LLVMGetParam(kernel, i);
            out.add(target.addressSpace(org.zludaj.ptx.model.StateSpace.PARAM) == 0 ? a : LLVMBuildAddrSpaceCast(b, a, want, ""));
        }
        return out;
    }

    /** Whether {@code f} uses one of its parameters' names anywhere but as the address of an {@code ld.param}. */
    static boolean takesAddress(Function f) {
        Set<String> names = new java.util.HashSet<>();
        for (Variable p : f.params()) names.add(p.name());
        return !names.isEmpty() && takesAddress(f.body(), names);
    }

    private static boolean takesAddress(List<Statement> body, Set<String> names) {
        for (Statement s : body) {
            if (s instanceof Statement.Block blk && takesAddress(blk.statements(), names)) return true;
            if (!(s instanceof Statement.Instruction i)) continue;
            boolean paramLoad = i.opcode().equals("ld") && i.has(".param");
            for (int k = 0; k < i.operands().size(); k++) {
                if (paramLoad && k == 1) continue;  // ld.param's own address: a read of the value
                if (names(i.operands().get(k), names)) return true;
            }
        }
        return false;
    }

    private static boolean names(Operand o, Set<String> names) {
        if (o instanceof Operand.Name n) return names.contains(n.name());
        if (o instanceof Operand.Address a) return a.base() != null && names.contains(a.base().name());
        if (o instanceof Operand.Bracket br) return any(br.elements(), names);
        if (o instanceof Operand.Vector v) return any(v.elements(), names);
        if (o instanceof Operand.Tuple t) return any(t.elements(), names);
        if (o instanceof Operand.Aggregate ag) return any(ag.elements(), names);
        if (o instanceof Operand.Pair p) return names(p.first(), names) || names(p.second(), names);
        if (o instanceof Operand.Not n) return names(n.operand(), names);
        if (o instanceof Operand.Neg n) return names(n.operand(), names);
        if (o instanceof Operand.Call c) return names(c.argument(), names);
        if (o instanceof Operand.Sum s) return names(s.left(), names) || names(s.right(), names);
        return false;
    }

    private static boolean any(List<Operand> operands, Set<String> names) {
        for (Operand e : operands) if (names(e, names)) return true;
        return false;
    }

    /**
     * Copies the parameters (each at {@code addresses.get(i)}, of LLVM type {@code types.get(i)}) into one block of
     * the frame, records it with {@link Target#paramWindow} and returns each parameter's new address.
     */
    static List<LLVMValueRef> copy(Target target, LLVMModuleRef m, LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef threadContext,
                                   List<LLVMTypeRef> types, List<LLVMValueRef> addresses) {
        LLVMTypeRef block = LLVMStructTypeInContext(ctx, Ll.array(types.toArray(new LLVMTypeRef[0])), types.size(), 0);
        LLVMValueRef storage = LLVMBuildAlloca(b, block, "params");
        LLVMSetAlignment(storage, 16);
        var layout = LLVMGetModuleDataLayout(m);
        LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
        List<LLVMValueRef> out = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            LLVMValueRef field = LLVMBuildStructGEP2(b, block, storage, i, "");
            LLVMBuildMemCpy(b, field, 1, addresses.get(i), 1, LLVMConstInt(i64, LLVMABISizeOfType(layout, types.get(i)), 0));
            LLVMTypeRef want = LLVMTypeOf(addresses.get(i));
            boolean same = LLVMGetPointerAddressSpace(LLVMTypeOf(field)) == LLVMGetPointerAddressSpace(want);
            out.add(same ? field : LLVMBuildAddrSpaceCast(b, field, want, ""));
        }
        LLVMValueRef lo = LLVMBuildPtrToInt(b, storage, i64, "");
        target.paramWindow(m, b, threadContext, lo, LLVMBuildAdd(b, lo, LLVMConstInt(i64, LLVMABISizeOfType(layout, block), 0), ""));
        return out;
    }
}
