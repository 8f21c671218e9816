package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Ll;
import org.zludaj.ptx.model.StateSpace;

/** NVIDIA GPUs through LLVM's NVPTX back end: the cuda loopback backend runs our PTX output on NVIDIA's driver. */
public record NvptxTarget(int sm) implements Target {
    @Override
    public String name() {
        return "sm_" + sm;
    }

    @Override
    public String triple() {
        return "nvptx64-nvidia-cuda";
    }

    @Override
    public String cpu() {
        return "sm_" + sm;
    }

    @Override
    public String features() {
        return sm >= 90 ? "+ptx80" : sm >= 80 ? "+ptx70" : "+ptx64";
    }

    @Override
    public int addressSpace(StateSpace space) {
        return switch (space) {
            case GLOBAL -> 1;
            case SHARED -> 3;
            case CONST -> 4;
            case LOCAL -> 5;
            default -> 0;
        };
    }

    @Override
    public LLVMValueRef specialRegister(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, String name, int dim) {
        if (dim < 0) {
            return switch (name) {
                case "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%clock", "%lanemask_eq", "%lanemask_le",
                     "%lanemask_lt", "%lanemask_ge", "%lanemask_gt" ->
                        Ll.intrinsic(m, b, "llvm.nvvm.read.ptx.sreg." + name.substring(1).replace("lanemask_", "lanemask."), new LLVMTypeRef[0]);
                default -> null;
            };
        }
        return Ll.intrinsic(m, b, "llvm.nvvm.read.ptx.sreg." + name.substring(1) + "." + "xyz".charAt(dim), new LLVMTypeRef[0]);
    }

    @Override
    public LLVMValueRef approxMath(LLVMModuleRef m, LLVMBuilderRef b, String op, boolean ftz, LLVMValueRef x) {
        String name = switch (op) {
            case "ex2" -> "llvm.nvvm.ex2.approx" + (ftz ? ".ftz" : "") + ".f";
            case "lg2" -> "llvm.nvvm.lg2.approx" + (ftz ? ".ftz" : "") + ".f";
            case "sin" -> "llvm.nvvm.sin.approx" + (ftz ? ".ftz" : "") + ".f";
            case "cos" -> "llvm.nvvm.cos.approx" + (ftz ? ".ftz" : "") + ".f";
            default -> null;
        };
        return name == null ? null : Ll.intrinsic(m, b, name, new LLVMTypeRef[0], x);
    }

    @Override
    public LLVMTypeRef functionType(LLVMContextRef ctx, int pointers) {
        LLVMTypeRef[] ps = new LLVMTypeRef[pointers];
        java.util.Arrays.fill(ps, LLVMPointerTypeInContext(ctx, 0));
        return LLVMFunctionType(LLVMVoidTypeInContext(ctx), Ll.array(ps), ps.length, 0);
    }

    @Override
    public void markKernel(LLVMModuleRef m, LLVMValueRef kernel) {
        LLVMSetFunctionCallConv(kernel, LLVMPTXKernelCallConv);
    }
}
