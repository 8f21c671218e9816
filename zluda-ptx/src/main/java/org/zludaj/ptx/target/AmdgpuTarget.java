package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import java.util.Set;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Ll;
import org.zludaj.ptx.model.StateSpace;

/**
 * AMD GPUs (RDNA, wave32), code object v5. Kernel parameters are the kernel's explicit arguments in CUDA's
 * kernelParams layout (natural alignment, in order); HIP appends the hidden arguments. Block and grid sizes come
 * from the COv5 implicit arguments: hidden_block_count_x/y/z (u32 at 0, 4, 8) and hidden_group_size_x/y/z
 * (u16 at 12, 14, 16).
 */
public record AmdgpuTarget(String gfx) implements Target {
    /** The RDNA architectures ZLUDA-J compiles for (wave32). */
    public static final Set<String> SUPPORTED = Set.of("gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035",
            "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1200", "gfx1201");

    public AmdgpuTarget {
        if (!SUPPORTED.contains(gfx)) {
            throw new IllegalArgumentException(gfx + " is not supported: ZLUDA-J targets RDNA wave32 GPUs "
                    + "(gfx1030-1036, gfx1100-1103, gfx1150/1151, gfx1200/1201); wave64-only GPUs such as gfx90a and gfx942 are not");
        }
    }

    @Override
    public String name() {
        return gfx;
    }

    @Override
    public String triple() {
        return "amdgcn-amd-amdhsa";
    }

    @Override
    public String cpu() {
        return gfx;
    }

    @Override
    public String features() {
        return "+wavefrontsize32";
    }

    @Override
    public int addressSpace(StateSpace space) {
        return switch (space) {
            case GLOBAL -> 1;
            case SHARED -> 3;
            case CONST -> 4;
            case LOCAL, PARAM -> 5;
            default -> 0;
        };
    }

    @Override
    public LLVMValueRef specialRegister(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, String name, int dim) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
        if (dim < 0) {
            return switch (name) {
                case "%laneid" -> Ll.intrinsic(m, b, "llvm.amdgcn.mbcnt.lo", new LLVMTypeRef[0], LLVMConstInt(i32, -1, 1), LLVMConstInt(i32, 0, 0));
                case "%clock" -> LLVMBuildTrunc(b, Ll.intrinsic(m, b, "llvm.readcyclecounter", new LLVMTypeRef[0]), i32, "");
                default -> null;
            };
        }
        char xyz = "xyz".charAt(dim);
        return switch (name) {
            case "%tid" -> Ll.intrinsic(m, b, "llvm.amdgcn.workitem.id." + xyz, new LLVMTypeRef[0]);
            case "%ctaid" -> Ll.intrinsic(m, b, "llvm.amdgcn.workgroup.id." + xyz, new LLVMTypeRef[0]);
            case "%ntid", "%nctaid" -> {
                LLVMValueRef implicit = Ll.intrinsic(m, b, "llvm.amdgcn.implicitarg.ptr", new LLVMTypeRef[0]);
                LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx);
                boolean block = name.equals("%ntid");
                long offset = block ? 12 + 2L * dim : 4L * dim;
                LLVMValueRef p = LLVMBuildGEP2(b, i8, implicit, Ll.array(LLVMConstInt(i32, offset, 0)), 1, "");
                LLVMTypeRef t = block ? LLVMInt16TypeInContext(ctx) : i32;
                LLVMValueRef v = LLVMBuildLoad2(b, t, p, name.substring(1) + "." + xyz);
                yield block ? LLVMBuildZExt(b, v, i32, "") : v;
            }
            default -> throw new IllegalArgumentException(name);
        };
    }

    @Override
    public LLVMTypeRef functionType(LLVMContextRef ctx, int pointers) {
        LLVMTypeRef[] ps = new LLVMTypeRef[pointers];
        java.util.Arrays.fill(ps, LLVMPointerTypeInContext(ctx, 5));
        return LLVMFunctionType(LLVMVoidTypeInContext(ctx), Ll.array(ps), ps.length, 0);
    }

    @Override
    public LLVMValueRef isSpace(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef generic, StateSpace space) {
        return switch (space) {
            case SHARED -> Ll.intrinsic(m, b, "llvm.amdgcn.is.shared", new LLVMTypeRef[0], generic);
            case LOCAL -> Ll.intrinsic(m, b, "llvm.amdgcn.is.private", new LLVMTypeRef[0], generic);
            default -> null;
        };
    }

    @Override
    public void markKernel(LLVMModuleRef m, LLVMValueRef kernel) {
        LLVMSetFunctionCallConv(kernel, LLVMAMDGPUKERNELCallConv);
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        String k = "amdgpu-flat-work-group-size", v = "1,1024";
        LLVMAddAttributeAtIndex(kernel, LLVMAttributeFunctionIndex, LLVMCreateStringAttribute(ctx, k, k.length(), v, v.length()));
    }

    @Override
    public void configureModule(LLVMModuleRef m) {
        String key = "amdhsa_code_object_version";
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorError, key, key.length(),
                LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 500, 0)));
    }
}
