package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Ll;
import org.zludaj.ptx.model.StateSpace;

/**
 * The host CPU (x86-64), run by the host backend. A kernel is {@code void k(void **params, zluda_thread_ctx *ctx)}:
 * {@code params} is CUDA's kernelParams array and {@code ctx} the thread's context, whose layout is shared with
 * zluda-native's hostrt.h: twelve u32 (tid, ntid, ctaid, nctaid, x/y/z each) then the block's shared memory.
 */
public record HostTarget(String triple, String cpu, String features, String emulatedGpu) implements Target {
    /** Index of the first u32 of each special register in zluda_thread_ctx. */
    static int ctxField(String register) {
        return switch (register) {
            case "%tid" -> 0;
            case "%ntid" -> 3;
            case "%ctaid" -> 6;
            case "%nctaid" -> 9;
            default -> -1;
        };
    }

    /**
     * The CPU this process runs on. {@code ZLUDA_HOST_WMMA=gfx1100|gfx1201|gfx1030} lowers the matrix family as for that
     * AMD GPU (WMMA in its operand layout on gfx11/gfx12, dot products on gfx10.3; lane permutes instead of the host's
     * one-step gather) with the WMMA emulated by the host runtime: how CI runs the AMD lowering itself. Unset: NVIDIA's
     * semantics directly (the reference).
     */
    public static HostTarget native_() {
        Ll.initialize();
        BytePointer t = LLVMGetDefaultTargetTriple(), c = LLVMGetHostCPUName(), f = LLVMGetHostCPUFeatures();
        return new HostTarget(Ll.message(t), Ll.message(c), Ll.message(f), emulation(System.getenv("ZLUDA_HOST_WMMA")));
    }

    /** The AMD target whose matrix lowering the host runs (checked: a supported gfx name), null for none or unset. */
    public static String emulation(String gfx) {
        if (gfx == null || gfx.isBlank()) return null;
        return new AmdgpuTarget(gfx.trim()).gfx();
    }

    /**
     * No SLP vectorizer on x86: LLVM 20.1's packs compares of different predicates and operand orders into vectors
     * wrongly (ptx-test video_simd: 30 of 25,344 words wrong, vset2.u32.u32.gt beside other vset2 forms, right with
     * the pass off); the threads of a block are still vectorized as a loop. The vector-add and SGEMM rates of
     * bench/host-bench.sh did not move; ggml's test subset (GgmlBackendOpsTest) took 594 s instead of 567.
     */
    @Override
    public boolean slpVectorization() {
        return false;
    }

    /**
     * No rescheduling in the two-address pass: ggml's head-512 flash-attention kernel under the AMD lowering's
     * emulation ({@code flash_attn_ext_f16<512,512,1,8>}, ZLUDA_HOST_WMMA=gfx1100) spent 103 of its 129 s of x86 code
     * generation there (llc -time-passes); without it 38 s in process (144 s before). The same kernel without the
     * emulation: 15.2 s, 12.2 s. A process option ({@link org.zludaj.ptx.Compiler#targetOptions}).
     */
    @Override
    public boolean twoAddressRescheduling() {
        return false;
    }

    /**
     * Under the AMD lowering's emulation, LLVM's fast DAG scheduler: the default one (source order, bottom-up with
     * backtracking around physical registers) keeps a topological order of the block's DAG and re-walks it for the
     * runtime calls' argument registers, quadratic in a block's size: ggml's MMQ kernel {@code mul_mat_q<q4_0,128>}
     * for gfx1201's emulation was still there after 24 CPU minutes (92% of the time in ScheduleDAGTopologicalSort::DFS);
     * with the fast scheduler its whole compile took 92 s. Without the emulation the default stays (that kernel
     * 3.5 s either way).
     */
    @Override
    public String preRaScheduler() {
        return emulatedGpu != null ? "fast" : null;
    }

    /**
     * The host's .local memory is the thread's own stack, at 64-bit addresses: a 32-bit .local address is an offset
     * from the stack's low end (a fiber's stack or the thread's, a few MiB), which the thread context holds.
     */
    @Override
    public LLVMValueRef localBase32(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        return LLVMBuildLoad2(b, LLVMInt64TypeInContext(ctx), LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), threadContext,
                Ll.array(LLVMConstInt(LLVMInt32TypeInContext(ctx), STACK_OFFSET, 0)), 1, ""), "stack.lo");
    }

    @Override
    public WmmaLayout wmmaLayout() {
        return emulatedGpu == null ? null : new AmdgpuTarget(emulatedGpu).wmmaLayout();
    }

    /**
     * The emulated WMMA: a warp collective of the host runtime that computes D for every lane from the operands of
     * all 32 lanes, read where the AMD ISA puts them (zluda-native rt/fibers.c, {@code zluda_wmma}).
     */
    @Override
    public List<LLVMValueRef> wmma(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, WmmaInput input,
                                   List<LLVMValueRef> a, List<LLVMValueRef> bw, List<LLVMValueRef> c) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), f32 = LLVMFloatTypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
        LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
        LLVMBuilderRef entry = LLVMCreateBuilderInContext(ctx);
        LLVMBasicBlockRef first = LLVMGetEntryBasicBlock(fn);
        if (LLVMGetFirstInstruction(first) == null) LLVMPositionBuilderAtEnd(entry, first);
        else LLVMPositionBuilderBefore(entry, LLVMGetFirstInstruction(first));
        LLVMValueRef block = LLVMBuildAlloca(entry, LLVMArrayType2(i32, 32), "wmma.lane");  // a[8] b[8] c[8] d[8]
        LLVMDisposeBuilder(entry);
        for (int k = 0; k < a.size(); k++) LLVMBuildStore(b, a.get(k), word(b, i32, block, k));
        for (int k = 0; k < bw.size(); k++) LLVMBuildStore(b, bw.get(k), word(b, i32, block, 8 + k));
        for (int k = 0; k < 8; k++) LLVMBuildStore(b, input.integer() ? c.get(k) : LLVMBuildBitCast(b, c.get(k), i32, ""), word(b, i32, block, 16 + k));
        LLVMTypeRef t = LLVMFunctionType(LLVMVoidTypeInContext(ctx), Ll.array(ptr, ptr, i32, i32), 4, 0);
        LLVMBuildCall2(b, t, runtime(m, "zluda_wmma", t), Ll.array(threadContext, block,
                LLVMConstInt(i32, wmmaLayout() == WmmaLayout.RDNA3 ? 3 : 4, 0), LLVMConstInt(i32, input.ordinal(), 0)), 4, "");
        List<LLVMValueRef> d = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            LLVMValueRef x = LLVMBuildLoad2(b, i32, word(b, i32, block, 24 + k), "");
            d.add(input.integer() ? x : LLVMBuildBitCast(b, x, f32, ""));
        }
        return d;
    }

    /**
     * Under the emulation, the permutes of one step of the AMD lowering (a fragment exchange's rounds, a dot-product
     * mma's fetches) are one collective of the host runtime ({@code zluda_warp_permutes}): each value still comes from
     * the lane its own address names, as the GPU's ds_bpermute would deliver it, for a fraction of the fiber switches.
     */
    @Override
    public boolean batchesLanePermutes() {
        return emulatedGpu != null;
    }

    @Override
    public List<LLVMValueRef> lanePermutes(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext,
                                           List<LLVMValueRef> values, List<LLVMValueRef> srcLanes, LLVMValueRef scratch) {
        int n = values.size();
        if (scratch == null || n < 2) return Target.super.lanePermutes(m, b, threadContext, values, srcLanes, null);
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
        for (int k = 0; k < n; k++) {
            LLVMBuildStore(b, values.get(k), word(b, i32, scratch, k));
            LLVMBuildStore(b, srcLanes.get(k), word(b, i32, scratch, n + k));
        }
        LLVMTypeRef t = LLVMFunctionType(LLVMVoidTypeInContext(ctx), Ll.array(ptr, ptr, i32), 3, 0);
        LLVMBuildCall2(b, t, runtime(m, "zluda_warp_permutes", t), Ll.array(threadContext, scratch, LLVMConstInt(i32, n, 0)), 3, "");
        List<LLVMValueRef> out = new ArrayList<>();
        for (int k = 0; k < n; k++) out.add(LLVMBuildLoad2(b, i32, word(b, i32, scratch, 2 * n + k), ""));
        return out;
    }

    private static LLVMValueRef word(LLVMBuilderRef b, LLVMTypeRef i32, LLVMValueRef base, int k) {
        return LLVMBuildGEP2(b, i32, base, Ll.array(LLVMConstInt(i32, k, 0)), 1, "");
    }

    @Override
    public String name() {
        return "host";
    }

    @Override
    public int addressSpace(StateSpace space) {
        return 0;
    }

    @Override
    public String kernelSymbol(String ptxName, String modulePrefix) {
        return modulePrefix + ptxName;
    }

    @Override
    public LLVMTypeRef kernelType(LLVMContextRef ctx, List<LLVMTypeRef> params) {
        LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
        return LLVMFunctionType(LLVMVoidTypeInContext(ctx), Ll.array(ptr, ptr), 2, 0);
    }

    @Override
    public List<LLVMValueRef> kernelParams(LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef kernel, List<LLVMTypeRef> params) {
        LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
        LLVMValueRef array = LLVMGetParam(kernel, 0);
        List<LLVMValueRef> out = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) {
            LLVMValueRef slot = LLVMBuildGEP2(b, ptr, array, Ll.array(LLVMConstInt(LLVMInt64TypeInContext(ctx), i, 0)), 1, "");
            out.add(LLVMBuildLoad2(b, ptr, slot, "param" + i));
        }
        return out;
    }

    @Override
    public LLVMValueRef specialRegister(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, String name, int dim) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
        int field = ctxField(name);
        if (field >= 0 && dim >= 0) {
            LLVMValueRef p = LLVMBuildGEP2(b, i32, threadContext, Ll.array(LLVMConstInt(i32, field + dim, 0)), 1, "");
            return LLVMBuildLoad2(b, i32, p, name.substring(1) + "." + "xyz".charAt(dim));
        }
        return switch (name) {
            case "%clock" -> LLVMBuildTrunc(b, Ll.intrinsic(m, b, "llvm.readcyclecounter", new LLVMTypeRef[0]), i32, "");
            case "%nsmid" -> LLVMConstInt(i32, Runtime.getRuntime().availableProcessors(), 0);
            case "%smid", "%gridid" -> LLVMConstInt(i32, 0, 0);
            case "%envreg1", "%envreg2" -> {  // the cooperative grid's workspace (hostrt.h: i32 fields 19 and 20), 0 otherwise
                LLVMValueRef p = LLVMBuildGEP2(b, i32, threadContext, Ll.array(LLVMConstInt(i32, name.equals("%envreg1") ? 19 : 20, 0)), 1, "");
                yield LLVMBuildLoad2(b, i32, p, name.substring(1));
            }
            case "%dynamic_smem_size", "%total_smem_size" -> {
                LLVMValueRef p = LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), threadContext, Ll.array(LLVMConstInt(i32, SHARED_SIZE_OFFSET, 0)), 1, "");
                yield LLVMBuildTrunc(b, LLVMBuildLoad2(b, LLVMInt64TypeInContext(ctx), p, ""), i32, "");
            }
            default -> null;
        };
    }

    /** Size of zluda_thread_ctx (hostrt.h), rounded up to 8. */
    static final int CTX_SIZE = 120;

    /**
     * Adds {@code block(void **params, zluda_thread_ctx *ctx)}: runs every thread of a block by calling the kernel,
     * which is made always-inline. The thread context and each parameter value are first copied into locals, so
     * that after inlining they are plain values and LLVM can vectorize across the threads of the block.
     */
    public void addBlockFunction(LLVMModuleRef m, LLVMValueRef kernel, String name, long[] paramSizes) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
        LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
        LLVMTypeRef type = kernelType(ctx, List.of());
        String inline = "alwaysinline";
        LLVMAddAttributeAtIndex(kernel, LLVMAttributeFunctionIndex,
                LLVMCreateEnumAttribute(ctx, LLVMGetEnumAttributeKindForName(inline, inline.length()), 0));
        LLVMSetLinkage(kernel, LLVMInternalLinkage);
        LLVMValueRef f = LLVMAddFunction(m, name, type);
        LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
        LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, f, "entry");
        LLVMPositionBuilderAtEnd(b, entry);
        LLVMValueRef local = LLVMBuildAlloca(b, LLVMArrayType2(i8, CTX_SIZE), "ctx");
        LLVMSetAlignment(local, 8);
        LLVMBuildMemCpy(b, local, 8, LLVMGetParam(f, 1), 8, LLVMConstInt(i64, CTX_SIZE, 0));
        LLVMValueRef params = LLVMBuildAlloca(b, LLVMArrayType2(ptr, Math.max(1, paramSizes.length)), "params");
        for (int i = 0; i < paramSizes.length; i++) {
            LLVMValueRef copy = LLVMBuildAlloca(b, LLVMArrayType2(i8, Math.max(1, paramSizes[i])), "p" + i);
            LLVMSetAlignment(copy, 16);
            LLVMValueRef src = LLVMBuildLoad2(b, ptr, LLVMBuildGEP2(b, ptr, LLVMGetParam(f, 0), Ll.array(LLVMConstInt(i64, i, 0)), 1, ""), "");
            LLVMBuildMemCpy(b, copy, 16, src, 1, LLVMConstInt(i64, paramSizes[i], 0));
            LLVMBuildStore(b, copy, LLVMBuildGEP2(b, ptr, params, Ll.array(LLVMConstInt(i64, i, 0)), 1, ""));
        }
        LLVMValueRef[] n = new LLVMValueRef[3], at = new LLVMValueRef[3];
        for (int d = 0; d < 3; d++) {
            n[d] = LLVMBuildLoad2(b, i32, LLVMBuildGEP2(b, i32, local, Ll.array(LLVMConstInt(i32, 3 + d, 0)), 1, ""), "");
            at[d] = LLVMBuildGEP2(b, i32, local, Ll.array(LLVMConstInt(i32, d, 0)), 1, "");
        }
        // for z, for y, for x: tid = (x, y, z); kernel(params, ctx). The loops start at the tid the caller passes
        // (0,0,0, or the thread after one whose assert ended the previous call: the block's other threads run on)
        LLVMValueRef[] start = new LLVMValueRef[3];
        for (int d = 0; d < 3; d++) start[d] = LLVMBuildLoad2(b, i32, at[d], "start" + d);
        LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(ctx, f, "done");
        loop(ctx, b, f, 2, n, at, start, LLVMConstInt(LLVMInt1TypeInContext(ctx), 1, 0), done, kernel, type, params, local);
        LLVMPositionBuilderAtEnd(b, done);
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
    }

    /** Loop over dimension d; {@code first}: every enclosing loop is at its start, so this one starts at start[d]. */
    private void loop(LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef f, int d, LLVMValueRef[] n, LLVMValueRef[] at,
                      LLVMValueRef[] start, LLVMValueRef first, LLVMBasicBlockRef exit, LLVMValueRef kernel, LLVMTypeRef type,
                      LLVMValueRef params, LLVMValueRef local) {
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
        LLVMValueRef init = LLVMBuildSelect(b, first, start[d], LLVMConstInt(i32, 0, 0), "");
        LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
        LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(ctx, f, "loop" + d);
        LLVMBasicBlockRef latchExit = LLVMAppendBasicBlockInContext(ctx, f, "next" + d);
        LLVMBuildBr(b, head);
        LLVMPositionBuilderAtEnd(b, head);
        LLVMValueRef iv = LLVMBuildPhi(b, i32, "t" + d);
        LLVMBuildStore(b, iv, at[d]);
        if (d == 0) {
            LLVMBuildCall2(b, type, kernel, Ll.array(params, local), 2, "");
            LLVMBuildBr(b, latchExit);
        } else {
            LLVMValueRef innerFirst = LLVMBuildAnd(b, first, LLVMBuildICmp(b, LLVMIntEQ, iv, init, ""), "");
            loop(ctx, b, f, d - 1, n, at, start, innerFirst, latchExit, kernel, type, params, local);
        }
        LLVMPositionBuilderAtEnd(b, latchExit);
        LLVMValueRef next = LLVMBuildAdd(b, iv, LLVMConstInt(i32, 1, 0), "");
        LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, n[d], ""), head, exit);
        LLVMAddIncoming(iv, Ll.array(init, next), Ll.array(pre, latch), 2);
    }

    /** Byte offsets in zluda_thread_ctx: the block's shared memory and its size. */
    static final int SHARED_OFFSET = 48, SHARED_SIZE_OFFSET = 56;
    /** Byte offset in zluda_thread_ctx of the thread's stack range (stack_lo, then stack_hi): its .local memory. */
    static final int STACK_OFFSET = 88;
    /** Byte offset in zluda_thread_ctx of the kernel's parameter window (param_lo, then param_hi). */
    static final int PARAM_OFFSET = 104;

    /**
     * A kernel that takes a parameter's address copies its parameters into one block of its stack frame and records
     * the block in the thread context: isspacep.param is true inside it, and .local false (on NVIDIA a kernel
     * parameter's generic address is .param and .global).
     */
    @Override
    public boolean recordsParamWindow() {
        return true;
    }

    @Override
    public void paramWindow(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef lo, LLVMValueRef hi) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
        LLVMBuildStore(b, lo, LLVMBuildGEP2(b, i8, threadContext, Ll.array(LLVMConstInt(i32, PARAM_OFFSET, 0)), 1, ""));
        LLVMBuildStore(b, hi, LLVMBuildGEP2(b, i8, threadContext, Ll.array(LLVMConstInt(i32, PARAM_OFFSET + 8, 0)), 1, ""));
    }

    @Override
    public LLVMTypeRef functionType(LLVMContextRef ctx, List<LLVMTypeRef> params, LLVMTypeRef ret) {
        List<LLVMTypeRef> ps = new java.util.ArrayList<>();
        ps.add(LLVMPointerTypeInContext(ctx, 0));  // the thread context
        ps.addAll(params);
        return LLVMFunctionType(ret, Ll.array(ps.toArray(new LLVMTypeRef[0])), ps.size(), 0);
    }

    @Override
    public int firstFunctionParameter() {
        return 1;
    }

    @Override
    public LLVMValueRef threadContext(LLVMValueRef function, boolean kernel) {
        return LLVMGetParam(function, kernel ? 1 : 0);
    }

    private static LLVMValueRef runtime(LLVMModuleRef m, String name, LLVMTypeRef type) {
        LLVMValueRef f = LLVMGetNamedFunction(m, name);
        return f != null && !f.isNull() ? f : LLVMAddFunction(m, name, type);
    }

    @Override
    public LLVMValueRef blockBarrier(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef id,
                                     LLVMValueRef count, int redOp, LLVMValueRef pred, boolean aligned) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
        if (redOp < 0) {
            LLVMTypeRef t = LLVMFunctionType(LLVMVoidTypeInContext(ctx), Ll.array(ptr, i32, i32), 3, 0);
            return LLVMBuildCall2(b, t, runtime(m, redOp == -2 ? "zluda_bar_arrive" : "zluda_bar_sync", t), Ll.array(threadContext, id, count), 3, "");
        }
        LLVMTypeRef t = LLVMFunctionType(i32, Ll.array(ptr, i32, i32, i32, i32), 5, 0);
        return LLVMBuildCall2(b, t, runtime(m, "zluda_bar_red", t),
                Ll.array(threadContext, id, count, LLVMConstInt(i32, redOp, 0), pred), 5, "");
    }

    @Override
    public LLVMValueRef warpCollective(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, int kind,
                                       LLVMValueRef mask, LLVMValueRef value, LLVMValueRef bv, LLVMValueRef cv) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
        LLVMTypeRef t = LLVMFunctionType(i64, Ll.array(ptr, i32, i32, i64, i32, i32), 6, 0);
        return LLVMBuildCall2(b, t, runtime(m, "zluda_warp", t),
                Ll.array(threadContext, LLVMConstInt(i32, kind, 0), mask, value, bv, cv), 6, "");
    }

    @Override
    public void spinWait(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext) {
        callWithContext(m, b, "zluda_fiber_yield", threadContext);
    }

    /** Fibers: a warp's lanes run in turn between collectives. */
    @Override
    public boolean lanesRunApart() {
        return true;
    }

    /** The one-step gather, except when running an AMD GPU's lowering (which permutes lane by lane). */
    @Override
    public boolean hasWarpGather() {
        return emulatedGpu == null;
    }

    @Override
    public boolean warpGather(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef buffer, int words) {
        if (!hasWarpGather()) return false;
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), ptr = LLVMPointerTypeInContext(ctx, 0);
        LLVMTypeRef t = LLVMFunctionType(LLVMVoidTypeInContext(ctx), Ll.array(ptr, ptr, i32), 3, 0);
        LLVMBuildCall2(b, t, runtime(m, "zluda_warp_gather", t), Ll.array(threadContext, buffer, LLVMConstInt(i32, words, 0)), 3, "");
        return true;
    }

    @Override
    public void trap(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext) {
        callWithContext(m, b, "zluda_trap", threadContext);
    }

    @Override
    public void assertTrap(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext) {
        callWithContext(m, b, "zluda_assert_stop", threadContext);
    }

    @Override
    public void nanosleep(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef nanoseconds) {
        callWithContext(m, b, "zluda_nanosleep", threadContext);
    }

    /** A call of the host runtime's {@code void name(zluda_thread_ctx *)}. */
    private static LLVMValueRef callWithContext(LLVMModuleRef m, LLVMBuilderRef b, String name, LLVMValueRef threadContext) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef t = LLVMFunctionType(LLVMVoidTypeInContext(ctx), Ll.array(LLVMPointerTypeInContext(ctx, 0)), 1, 0);
        return LLVMBuildCall2(b, t, runtime(m, name, t), Ll.array(threadContext), 1, "");
    }

    /** The AMD emulation runs AMD's shared-memory named barriers. */
    @Override
    public boolean softwareNamedBarriers() {
        return emulatedGpu != null;
    }

    /** The AMD emulation prints as AMD GPUs do (buffered records), so that path runs here too. */
    @Override
    public boolean bufferedPrintf() {
        return emulatedGpu != null;
    }

    @Override
    public String runtimeFunction(String name) {
        return switch (name) {
            case "vprintf" -> "zluda_vprintf";
            case "__assertfail" -> "zluda_assertfail";
            default -> null;
        };
    }

    @Override
    public boolean hostSharedMemory() {
        return true;
    }

    @Override
    public LLVMValueRef sharedBase(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMValueRef p = LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), threadContext,
                Ll.array(LLVMConstInt(LLVMInt32TypeInContext(ctx), SHARED_OFFSET, 0)), 1, "");
        return LLVMBuildLoad2(b, LLVMPointerTypeInContext(ctx, 0), p, "shared");
    }

    @Override
    public LLVMValueRef isSpace(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef generic, StateSpace space) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
        LLVMValueRef base = LLVMBuildPtrToInt(b, sharedBase(m, b, threadContext), i64, "");
        LLVMValueRef sizeP = LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), threadContext,
                Ll.array(LLVMConstInt(LLVMInt32TypeInContext(ctx), SHARED_SIZE_OFFSET, 0)), 1, "");
        LLVMValueRef size = LLVMBuildLoad2(b, i64, sizeP, "");
        LLVMValueRef a = LLVMBuildPtrToInt(b, generic, i64, "");
        LLVMValueRef inShared = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntUGE, a, base, ""),
                LLVMBuildICmp(b, LLVMIntULT, a, LLVMBuildAdd(b, base, size, ""), ""), "");
        // .local memory is on the thread's stack (a fiber's, or the worker's on the fast path): its range is in the context
        LLVMValueRef lo = LLVMBuildLoad2(b, i64, LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), threadContext,
                Ll.array(LLVMConstInt(LLVMInt32TypeInContext(ctx), STACK_OFFSET, 0)), 1, ""), "");
        LLVMValueRef hi = LLVMBuildLoad2(b, i64, LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), threadContext,
                Ll.array(LLVMConstInt(LLVMInt32TypeInContext(ctx), STACK_OFFSET + 8, 0)), 1, ""), "");
        LLVMValueRef inStack = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntUGE, a, lo, ""), LLVMBuildICmp(b, LLVMIntULT, a, hi, ""), "");
        // a kernel's parameters whose address it takes are in a window of its stack frame (paramWindow): .param, not .local
        LLVMValueRef plo = LLVMBuildLoad2(b, i64, LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), threadContext,
                Ll.array(LLVMConstInt(LLVMInt32TypeInContext(ctx), PARAM_OFFSET, 0)), 1, ""), "");
        LLVMValueRef phi = LLVMBuildLoad2(b, i64, LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), threadContext,
                Ll.array(LLVMConstInt(LLVMInt32TypeInContext(ctx), PARAM_OFFSET + 8, 0)), 1, ""), "");
        LLVMValueRef inParam = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntUGE, a, plo, ""), LLVMBuildICmp(b, LLVMIntULT, a, phi, ""), "");
        LLVMValueRef inLocal = LLVMBuildAnd(b, inStack, LLVMBuildNot(b, inParam, ""), "");
        return switch (space) {
            case SHARED -> inShared;
            case LOCAL -> inLocal;
            case PARAM -> inParam;
            // .const variables are told apart by MemoryOps (module variables in global memory here)
            case GLOBAL, CONST -> LLVMBuildNot(b, LLVMBuildOr(b, inShared, inLocal, ""), "");
            default -> LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0);
        };
    }

    @Override
    public void markKernel(LLVMModuleRef m, LLVMValueRef kernel) {
        LLVMSetLinkage(kernel, LLVMExternalLinkage);
    }
}
