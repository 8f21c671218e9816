package org.zludaj.ptx.target;

import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.StateSpace;

/**
 * The target-specific part of lowering: everything else is shared by all targets. A target decides the kernel's
 * signature and how its parameters are reached, what special registers read, the address spaces, and how the
 * finished module becomes code.
 */
public sealed interface Target permits HostTarget, AmdgpuTarget, NvptxTarget {
    /** Short name, e.g. "host", "gfx1100", "sm_90". */
    String name();

    String triple();

    String cpu();

    String features();

    /** LLVM address space used for a PTX state space. */
    int addressSpace(StateSpace space);

    /** The LLVM name of the kernel (the host prefixes it to keep modules apart in one JIT). */
    default String kernelSymbol(String ptxName, String modulePrefix) {
        return ptxName;
    }

    /** The kernel's LLVM function type, given its PTX parameters' LLVM types. */
    LLVMTypeRef kernelType(LLVMContextRef ctx, List<LLVMTypeRef> params);

    /** Called at the kernel's entry: returns a pointer to each parameter's value (in the PARAM address space). */
    List<LLVMValueRef> kernelParams(LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef kernel, List<LLVMTypeRef> params);

    /** Reads a special register ({@code %tid}, {@code %ntid}, {@code %ctaid}, {@code %nctaid}; dim 0..2) as i32. */
    LLVMValueRef specialRegister(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef kernel, String name, int dim);

    /** Marks a function as a kernel (calling convention, attributes, metadata). */
    void markKernel(LLVMModuleRef m, LLVMValueRef kernel);

    /** Module-level settings (flags) before code generation. */
    default void configureModule(LLVMModuleRef m) {}
}
