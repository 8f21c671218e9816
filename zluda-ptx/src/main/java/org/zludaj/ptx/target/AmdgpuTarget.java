package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import java.util.Set;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
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

    /**
     * The module variable holding a cooperative launch's grid workspace address, which PTX reads as %envreg1 (high
     * half) and %envreg2 (low half): the hip backend sets it before hipModuleLaunchCooperativeKernel.
     */
    public static final String ENVREG = "__zluda_envreg";

    @Override
    public LLVMValueRef specialRegister(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, String name, int dim) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
        if (dim < 0) {
            return switch (name) {
                case "%laneid" -> Ll.intrinsic(m, b, "llvm.amdgcn.mbcnt.lo", new LLVMTypeRef[0], LLVMConstInt(i32, -1, 1), LLVMConstInt(i32, 0, 0));
                case "%clock" -> LLVMBuildTrunc(b, Ll.intrinsic(m, b, "llvm.readcyclecounter", new LLVMTypeRef[0]), i32, "");
                // one SM identifier: RDNA exposes no stable compute-unit index to shaders (PTX: %smid < %nsmid)
                case "%smid", "%gridid" -> LLVMConstInt(i32, 0, 0);
                case "%nsmid" -> LLVMConstInt(i32, 1, 0);
                // the constant 100 MHz "real time" counter (s_memrealtime / s_sendmsg_rtn), in nanoseconds
                case "%globaltimer" -> LLVMBuildMul(b, Ll.intrinsic(m, b, "llvm.readsteadycounter", new LLVMTypeRef[0]),
                        LLVMConstInt(LLVMInt64TypeInContext(ctx), 10, 0), "");
                case "%dynamic_smem_size" -> dynamicLds(m, b);
                case "%total_smem_size" -> LLVMBuildAdd(b, dynamicLds(m, b), LLVMConstInt(i32, staticLds(m), 0), "");
                // the cooperative launch's grid workspace (high and low halves), from the variable the driver sets
                case "%envreg1", "%envreg2" -> {
                    LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
                    LLVMValueRef g = LLVMGetNamedGlobal(m, ENVREG);
                    if (g == null || g.isNull()) {
                        g = LLVMAddGlobalInAddressSpace(m, i64, ENVREG, 1);
                        LLVMSetInitializer(g, LLVMConstInt(i64, 0, 0));
                        LLVMSetAlignment(g, 8);
                    }
                    LLVMValueRef w = LLVMBuildLoad2(b, i64, g, "");
                    LLVMSetAlignment(w, 8);
                    if (name.equals("%envreg1")) w = LLVMBuildLShr(b, w, LLVMConstInt(i64, 32, 0), "");
                    yield LLVMBuildTrunc(b, w, i32, "");
                }
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

    /** COv5 implicit argument hidden_dynamic_lds_size (u32 at offset 120), which HIP fills at launch. */
    private static LLVMValueRef dynamicLds(LLVMModuleRef m, LLVMBuilderRef b) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMValueRef implicit = Ll.intrinsic(m, b, "llvm.amdgcn.implicitarg.ptr", new LLVMTypeRef[0]);
        LLVMValueRef p = LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), implicit, Ll.array(LLVMConstInt(LLVMInt32TypeInContext(ctx), 120, 0)), 1, "");
        return LLVMBuildLoad2(b, LLVMInt32TypeInContext(ctx), p, "dynamic_lds");
    }

    /** Bytes of the module's LDS variables (the .shared variables, laid out by lowering before any function). */
    private static long staticLds(LLVMModuleRef m) {
        var layout = LLVMGetModuleDataLayout(m);
        long total = 0;
        for (LLVMValueRef g = LLVMGetFirstGlobal(m); g != null && !g.isNull(); g = LLVMGetNextGlobal(g)) {
            if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 3) continue;
            long align = Math.max(1, LLVMGetAlignment(g));
            total = (total + align - 1) / align * align + LLVMABISizeOfType(layout, LLVMGlobalGetValueType(g));
        }
        return total;
    }


    /**
     * isspacep: the aperture checks of the flat address. Global is what is neither LDS nor scratch; .const and .param
     * data live in global memory on AMD GPUs, so a generic address is never reported as one of those.
     */
    @Override
    public LLVMValueRef isSpace(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef generic, StateSpace space) {
        LLVMValueRef shared = Ll.intrinsic(m, b, "llvm.amdgcn.is.shared", new LLVMTypeRef[0], generic);
        LLVMValueRef local = Ll.intrinsic(m, b, "llvm.amdgcn.is.private", new LLVMTypeRef[0], generic);
        return switch (space) {
            case SHARED -> shared;
            case LOCAL -> local;
            case GLOBAL -> LLVMBuildNot(b, LLVMBuildOr(b, shared, local, ""), "");
            default -> LLVMConstInt(LLVMInt1TypeInContext(LLVMGetModuleContext(m)), 0, 0);
        };
    }

    /** The wave instructions of RDNA in wave32. */
    static WaveCollectives.Primitives wave(LLVMModuleRef m) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
        return new WaveCollectives.Primitives() {
            @Override
            public LLVMValueRef lane(LLVMBuilderRef b) {
                return Ll.intrinsic(m, b, "llvm.amdgcn.mbcnt.lo", new LLVMTypeRef[0], LLVMConstInt(i32, -1, 1), LLVMConstInt(i32, 0, 0));
            }

            @Override
            public LLVMValueRef ballot(LLVMBuilderRef b, LLVMValueRef p) {
                return Ll.intrinsic(m, b, "llvm.amdgcn.ballot", new LLVMTypeRef[] {i32}, p);
            }

            @Override
            public LLVMValueRef readLane(LLVMBuilderRef b, LLVMValueRef v, int k) {
                return Ll.intrinsic(m, b, "llvm.amdgcn.readlane", new LLVMTypeRef[] {i32}, v, LLVMConstInt(i32, k, 0));
            }

            @Override
            public LLVMValueRef permute(LLVMBuilderRef b, LLVMValueRef v, LLVMValueRef src) {
                // ds_bpermute addresses lanes in bytes
                return Ll.intrinsic(m, b, "llvm.amdgcn.ds.bpermute", new LLVMTypeRef[0], LLVMBuildShl(b, src, LLVMConstInt(i32, 2, 0), ""), v);
            }

            @Override
            public void waveBarrier(LLVMBuilderRef b) {
                Ll.intrinsic(m, b, "llvm.amdgcn.wave.barrier", new LLVMTypeRef[0]);
            }
        };
    }

    @Override
    public LLVMValueRef warpCollective(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, int kind,
                                       LLVMValueRef mask, LLVMValueRef value, LLVMValueRef bv, LLVMValueRef cv) {
        return new WaveCollectives(m, b, wave(m)).collective(kind, mask, value, bv, cv);
    }

    /**
     * bar.sync/barrier over the whole block: RDNA has one hardware barrier per workgroup, s_barrier. Thread counts,
     * bar.arrive and bar.red never get here: {@code pass.NamedBarriers} turns them into shared-memory barriers.
     */
    @Override
    public LLVMValueRef blockBarrier(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef id,
                                     LLVMValueRef count, int redOp, LLVMValueRef pred, boolean aligned) {
        if (redOp != -1) return null;
        return workgroupBarrier(m, b);
    }

    @Override
    public boolean softwareNamedBarriers() {
        return true;
    }

    @Override
    public boolean variablesThroughSlots() {
        return true;
    }

    /** s_sleep 1 (about 64 clocks) between polls of a spinning wave. */
    @Override
    public void nanosleep(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef nanoseconds) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        Ll.intrinsic(m, b, "llvm.amdgcn.s.sleep", new LLVMTypeRef[0], LLVMConstInt(LLVMInt32TypeInContext(ctx), 1, 0));
    }

    private static int syncScope(LLVMContextRef ctx, String name) {
        return LLVMGetSyncScopeID(ctx, name, name.length());
    }

    /** s_barrier between workgroup-scope release and acquire fences (shared and global memory made visible). */
    private static LLVMValueRef workgroupBarrier(LLVMModuleRef m, LLVMBuilderRef b) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        int wg = syncScope(ctx, "workgroup");
        LLVMBuildFenceSyncScope(b, LLVMAtomicOrderingRelease, wg, "");
        LLVMValueRef r = Ll.intrinsic(m, b, "llvm.amdgcn.s.barrier", new LLVMTypeRef[0]);
        LLVMBuildFenceSyncScope(b, LLVMAtomicOrderingAcquire, wg, "");
        return r;
    }

    @Override
    public void markKernel(LLVMModuleRef m, LLVMValueRef kernel) {
        LLVMSetFunctionCallConv(kernel, LLVMAMDGPUKERNELCallConv);
        Ll.addStringAttribute(kernel, "amdgpu-flat-work-group-size", "1,1024");
    }

    /** The register budget follows the block size: 1024 threads leave 192 VGPRs per wave32 lane on RDNA3, 128 leave 256. */
    @Override
    public void boundThreads(LLVMValueRef kernel, long threads) {
        if (threads > 0 && threads < 1024) Ll.addStringAttribute(kernel, "amdgpu-flat-work-group-size", "1," + threads);
    }

    /**
     * Basic blocks longer than this many LLVM instructions are scheduled for instruction-level parallelism
     * ("amdgpu-sched-strategy"="max-ilp") instead of by AMDGPU's default occupancy scheduler, whose rescheduling
     * stages grow faster than linearly with a block's length: on ggml's flash-attention kernels (single blocks of
     * 30,000-100,000 instructions) they took 75-85% of the compile time, for the same register count and occupancy
     * (docs/compiler.md, "Compile speed"). Their {@code fabs} and {@code fneg} become integer arithmetic on the sign
     * bit too ({@link #signBitsAsIntegers}).
     */
    public static final int HUGE_BLOCK = 8000;

    @Override
    public void beforeCodegen(LLVMModuleRef m) {
        for (LLVMValueRef f = LLVMGetFirstFunction(m); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) {
            if (LLVMCountBasicBlocks(f) == 0 || Ll.longestBlock(f) <= HUGE_BLOCK) continue;
            Ll.addStringAttribute(f, "amdgpu-sched-strategy", "max-ilp");
            signBitsAsIntegers(m, f);
        }
    }

    /**
     * RDNA2 (gfx10, the only generation here with SDWA) generates functions with a block over {@link #HUGE_BLOCK}
     * instructions in the bundled llc without the SDWA peephole ({@code -amdgpu-sdwa-peephole=0}, an option LLVM only
     * has process-wide). The peephole re-scans a block until nothing changes: on ggml's {@code flash_attn_tile}
     * (a block of 200,000 instructions) 170 of code generation's 199 s, for 1.5% fewer instructions (172,285 with it,
     * 174,933 without; the same VGPRs, occupancy and scratch). Smaller functions keep it, in this process.
     */
    @Override
    public List<String> separateCodegen(LLVMModuleRef m) {
        if (!gfx.startsWith("gfx10")) return null;
        for (LLVMValueRef f = LLVMGetFirstFunction(m); f != null && !f.isNull(); f = LLVMGetNextFunction(f)) {
            if (LLVMCountBasicBlocks(f) > 0 && Ll.longestBlock(f) > HUGE_BLOCK) return List.of("-amdgpu-sdwa-peephole=0");
        }
        return null;
    }

    /**
     * Every {@code fabs} and {@code fneg} of a function as the same operation on the sign bit's integer (exact, NaNs
     * included). LLVM's CodeGenPrepare sinks fabs/fneg operands next to their users (AMDGPU folds them into source
     * modifiers) and numbers the whole basic block for each user it looks at: on a flash-attention kernel's block of
     * 220,000 instructions, the 98 {@code fabs} of its {@code tanh.approx} took 5.7 of the 7.4 s to CodeGenPrepare's
     * end. Instruction selection folds the sign mask back into a modifier within a block. Runs after LLVM's middle
     * end, which would turn the integer form back into fabs.
     */
    static void signBitsAsIntegers(LLVMModuleRef m, LLVMValueRef f) {
        Ll.withBuilder(m, b -> Ll.forEachInstruction(f, i -> {
            boolean neg = LLVMGetInstructionOpcode(i) == LLVMFNeg;
            String callee = neg ? null : Ll.calledName(i);
            if (!neg && (callee == null || !callee.startsWith("llvm.fabs."))) return;
            LLVMPositionBuilderBefore(b, i);
            Ll.replace(i, Ll.signBit(b, LLVMGetOperand(i, 0), neg));
        }));
    }

    @Override
    public void configureModule(LLVMModuleRef m) {
        String key = "amdhsa_code_object_version";
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorError, key, key.length(),
                LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 500, 0)));
    }

    @Override
    public WmmaLayout wmmaLayout() {
        return gfx.startsWith("gfx11") ? WmmaLayout.RDNA3 : gfx.startsWith("gfx12") ? WmmaLayout.RDNA4 : null;
    }

    @Override
    public LLVMValueRef lanePermute(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef value, LLVMValueRef srcLane) {
        return wave(m).permute(b, value, srcLane);
    }

    /**
     * v_wmma_f32_16x16x16_f16/bf16 and v_wmma_i32_16x16x16_iu8: RDNA3 takes all 16 k per lane (lanes 16-31 repeat
     * 0-15), RDNA4 half of them.
     */
    @Override
    public java.util.List<LLVMValueRef> wmma(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, WmmaInput input,
                                             java.util.List<LLVMValueRef> a, java.util.List<LLVMValueRef> bw, java.util.List<LLVMValueRef> c) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), f32 = LLVMFloatTypeInContext(ctx), i1 = LLVMInt1TypeInContext(ctx);
        LLVMValueRef d;
        if (input.integer()) {
            LLVMTypeRef in = LLVMVectorType(i32, a.size()), acc = LLVMVectorType(i32, 8);
            d = Ll.intrinsic(m, b, "llvm.amdgcn.wmma.i32.16x16x16.iu8", new LLVMTypeRef[] {acc, in},
                    LLVMConstInt(i1, input.signedA() ? 1 : 0, 0), vector(b, i32, a), LLVMConstInt(i1, input.signedB() ? 1 : 0, 0),
                    vector(b, i32, bw), vector(b, i32, c), LLVMConstInt(i1, 0, 0));
        } else {
            LLVMTypeRef half = input == WmmaInput.BF16 ? LLVMInt16TypeInContext(ctx) : LLVMHalfTypeInContext(ctx);
            LLVMTypeRef in = LLVMVectorType(half, 2 * a.size()), acc = LLVMVectorType(f32, 8);
            LLVMValueRef va = LLVMBuildBitCast(b, vector(b, i32, a), in, ""), vb = LLVMBuildBitCast(b, vector(b, i32, bw), in, "");
            String name = input == WmmaInput.BF16 ? "llvm.amdgcn.wmma.f32.16x16x16.bf16" : "llvm.amdgcn.wmma.f32.16x16x16.f16";
            d = Ll.intrinsic(m, b, name, new LLVMTypeRef[] {acc, in}, va, vb, vector(b, f32, c));
        }
        java.util.List<LLVMValueRef> out = new java.util.ArrayList<>();
        for (int v = 0; v < 8; v++) out.add(LLVMBuildExtractElement(b, d, LLVMConstInt(i32, v, 0), ""));
        return out;
    }

    private static LLVMValueRef vector(LLVMBuilderRef b, LLVMTypeRef element, java.util.List<LLVMValueRef> items) {
        LLVMValueRef v = LLVMGetUndef(LLVMVectorType(element, items.size()));
        LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(element));
        for (int k = 0; k < items.size(); k++) v = LLVMBuildInsertElement(b, v, items.get(k), LLVMConstInt(i32, k, 0), "");
        return v;
    }

    /** v_dot2c_f32_f16 on GPUs without WMMA (gfx10.3), where the matrix family is lowered to dot products. */
    @Override
    public LLVMValueRef dot2F16(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef a, LLVMValueRef bw, LLVMValueRef acc) {
        if (wmmaLayout() != null) return null;
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef h2 = LLVMVectorType(LLVMHalfTypeInContext(ctx), 2);
        return Ll.intrinsic(m, b, "llvm.amdgcn.fdot2", new LLVMTypeRef[0], LLVMBuildBitCast(b, a, h2, ""), LLVMBuildBitCast(b, bw, h2, ""),
                acc, LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0));
    }

    /** v_dot4_i32_i8 / v_dot4_u32_u8 on GPUs without WMMA (gfx10.3). */
    @Override
    public LLVMValueRef dot4(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef a, LLVMValueRef bw, LLVMValueRef acc, boolean signed) {
        if (wmmaLayout() != null) return null;
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        return Ll.intrinsic(m, b, signed ? "llvm.amdgcn.sdot4" : "llvm.amdgcn.udot4", new LLVMTypeRef[0], a, bw, acc,
                LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0));
    }

    /** Kernels cannot call the host: printf and assert write records the driver prints after the kernel. */
    @Override
    public boolean bufferedPrintf() {
        return true;
    }
}
