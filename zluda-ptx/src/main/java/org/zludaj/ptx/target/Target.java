package org.zludaj.ptx.target;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Ll;
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
        return symbol(ptxName);
    }

    /**
     * The name a PTX symbol (kernel, function, variable, variable slot) has in this target's output, where the
     * target's assembler does not take every PTX name (NVPTX: {@link NvptxTarget#symbol}); the driver looks symbols up
     * by it.
     */
    default String symbol(String ptxName) {
        return ptxName;
    }

    /**
     * The kernel's LLVM function type, given its PTX parameters' LLVM types: on GPUs the parameters themselves;
     * the host target passes them through a thread context instead.
     */
    default LLVMTypeRef kernelType(LLVMContextRef ctx, List<LLVMTypeRef> params) {
        return LLVMFunctionType(LLVMVoidTypeInContext(ctx), Ll.array(params.toArray(new LLVMTypeRef[0])), params.size(), 0);
    }

    /**
     * Called at the kernel's entry: returns a pointer to each parameter's value (in the PARAM address space). By
     * default the kernel receives its parameters by value and each is stored to a stack slot (GPU targets).
     */
    default List<LLVMValueRef> kernelParams(LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef kernel, List<LLVMTypeRef> params) {
        List<LLVMValueRef> out = new java.util.ArrayList<>();
        for (int i = 0; i < params.size(); i++) {
            LLVMValueRef slot = org.bytedeco.llvm.global.LLVM.LLVMBuildAlloca(b, params.get(i), "param" + i);
            org.bytedeco.llvm.global.LLVM.LLVMBuildStore(b, org.bytedeco.llvm.global.LLVM.LLVMGetParam(kernel, i), slot);
            out.add(slot);
        }
        return out;
    }

    /**
     * Whether a kernel that takes the address of a parameter copies its parameters into one block and gives the block
     * to {@link #paramWindow} (where isspacep.param has no hardware window to test: the host).
     */
    default boolean recordsParamWindow() {
        return false;
    }

    /** Records the kernel's parameter block [lo, hi) (i64 addresses) in the thread context ({@link #recordsParamWindow}). */
    default void paramWindow(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef lo, LLVMValueRef hi) {}

    /**
     * Whether a kernel that takes the address of a parameter receives its parameters by reference, in the target's
     * own parameter window (NVPTX's grid constants: the address is {@code cvta.param}'s, as in NVIDIA's PTX), instead
     * of by value into copies on its stack. Such a kernel's LLVM parameters are pointers, marked by {@link #byReference}.
     */
    default boolean paramsByReference() {
        return false;
    }

    /** Marks {@code kernel}'s pointer parameters as by-reference parameters of {@code types}, aligned to {@code aligns}. */
    default void byReference(LLVMModuleRef m, LLVMValueRef kernel, List<LLVMTypeRef> types, int[] aligns) {}

    /**
     * Reads a special register as i32: {@code %tid %ntid %ctaid %nctaid} with dim 0..2, or a scalar one ({@code %laneid},
     * {@code %clock} ...; dim -1). {@code threadContext} is {@link #threadContext}'s value in the current function.
     * Returns null for registers the target does not provide (the lowering then computes them from the others).
     */
    LLVMValueRef specialRegister(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, String name, int dim);

    /**
     * Device functions (.func): the LLVM type of a function taking {@code params} (scalars by value, the others as
     * {@link #paramPointerType} pointers to their storage) and returning {@code ret} (void when results are passed by
     * pointer). Targets that pass a thread context put it first ({@link #firstFunctionParameter}).
     */
    default LLVMTypeRef functionType(LLVMContextRef ctx, List<LLVMTypeRef> params, LLVMTypeRef ret) {
        return LLVMFunctionType(ret, Ll.array(params.toArray(new LLVMTypeRef[0])), params.size(), 0);
    }

    /** The pointer type of a .func parameter or result passed by reference (arrays, vectors, several results). */
    default LLVMTypeRef paramPointerType(LLVMContextRef ctx) {
        return LLVMPointerTypeInContext(ctx, addressSpace(StateSpace.PARAM));
    }

    /** Index of the first PTX parameter pointer among a .func's LLVM parameters. */
    default int firstFunctionParameter() {
        return 0;
    }

    /** The thread context the target passes explicitly (host), else null. */
    default LLVMValueRef threadContext(LLVMValueRef function, boolean kernel) {
        return null;
    }

    /**
     * True when shared memory is per-block host memory reached through the thread context ({@link #sharedBase});
     * false when .shared variables are globals of the SHARED address space.
     */
    default boolean hostSharedMemory() {
        return false;
    }

    /** Base address of the block's shared memory (host). */
    default LLVMValueRef sharedBase(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext) {
        throw new UnsupportedOperationException();
    }

    /**
     * The target's own approximate math ({@code ex2 lg2 sin cos} of f32), or null to use LLVM's generic intrinsic.
     * NVPTX must not use the generic ones: they become calls into a library that is not there.
     */
    default LLVMValueRef approxMath(LLVMModuleRef m, LLVMBuilderRef b, String op, boolean ftz, LLVMValueRef x) {
        return null;
    }

    /**
     * Whether the target's f32 arithmetic gives PTX's canonical NaN (0x7fffffff) by itself, as NVIDIA's GPUs do;
     * other targets replace a NaN result by it after each operation.
     */
    default boolean canonicalNaN() {
        return false;
    }

    /**
     * One f16 PTX instruction ({@code add sub mul fma}, round to nearest, with or without .ftz) as the target's own
     * instruction of exactly PTX's semantics, or null: then the generic lowering computes it in a wider type and rounds
     * once (every target gives NVIDIA's bits, at the cost of some twenty instructions an operation, eighty for fma).
     * {@code unrounded}: an add, sub or mul written without a rounding modifier, which PTX lets a compiler fuse with a
     * neighbouring mul or add. Saturation is applied by the caller.
     */
    default LLVMValueRef halfOp(LLVMModuleRef m, LLVMBuilderRef b, String op, boolean ftz, boolean unrounded, LLVMValueRef[] in) {
        return null;
    }

    /**
     * As {@link #halfOp} for the packed form ({@code .f16x2}, no .sat or .relu): operands and result are i32 words of
     * two halves; null where the target has no such instruction (each half is then computed on its own).
     */
    default LLVMValueRef halfPairOp(LLVMModuleRef m, LLVMBuilderRef b, String op, boolean ftz, boolean unrounded, LLVMValueRef[] in) {
        return null;
    }

    /**
     * One f32 or f64 PTX instruction ({@code add sub mul fma mad div rcp sqrt rsqrt min max ex2 lg2 sin cos copysign}) as the
     * target's own instruction of exactly PTX's semantics for the given rounding ("rn", "rz", "rm", "rp"; "" for an
     * add, sub or mul written without one: round to nearest, and PTX lets a compiler fuse it with a neighbouring mul or
     * add), .ftz and .approx (NaN results, subnormals and signed zeros included), or null where it has none: then the
     * generic lowering applies, which makes every target give NVIDIA's bits. Saturation is applied by the caller.
     */
    default LLVMValueRef floatOp(LLVMModuleRef m, LLVMBuilderRef b, String op, boolean f64, String rounding, boolean ftz, boolean approx,
                                 LLVMValueRef[] in) {
        return null;
    }

    /**
     * {@code abs.s16/.s32/.s64} (the absolute value; the most negative value is its own) where the target needs
     * another form than LLVM's {@code llvm.abs}, or null.
     */
    default LLVMValueRef integerAbs(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef x) {
        return null;
    }

    /**
     * PTX's min or max of two f32 (or f64) values as one instruction of the target with exactly PTX's semantics
     * (-0 below +0, a NaN input gives the other value; {@code nan}: the .NaN form), or null where the target has none
     * (then the generic lowering with compares applies).
     */
    default LLVMValueRef minMax(LLVMModuleRef m, LLVMBuilderRef b, boolean min, boolean nan, boolean f64, LLVMValueRef x, LLVMValueRef y) {
        return null;
    }

    /**
     * The target's implementation of a function of NVIDIA's device runtime that PTX declares extern
     * ({@code vprintf}, {@code __assertfail}), called with the device-function ABI; null when the target has none.
     */
    default String runtimeFunction(String name) {
        return null;
    }

    /**
     * Whether kernels print through a buffer the driver reads after the kernel ({@code llvm.DevicePrintf}) instead of
     * calling {@link #runtimeFunction}s: targets whose kernels cannot call the host.
     */
    default boolean bufferedPrintf() {
        return false;
    }

    /** Ends a thread whose assert failed (buffered printf): a trap on GPUs, the host ends that thread only. */
    default void assertTrap(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext) {
        trap(m, b, threadContext);
    }

    /**
     * Whether the target calls the device runtime's {@code name} itself, with its C signature (NVPTX: NVIDIA's own
     * {@code vprintf} and {@code __assertfail}, which NVIDIA's JIT links), instead of {@link #runtimeFunction}.
     */
    default boolean hasRuntimeCall(String name) {
        return false;
    }

    /** Emits that call: the return values' and arguments' .param storage are given as pointers. */
    default void runtimeCall(LLVMModuleRef m, LLVMBuilderRef b, LLVMContextRef ctx, String name, List<LLVMValueRef> rets,
                             List<LLVMValueRef> args) {
        throw new IllegalStateException(name + " has no runtime call on " + name());
    }

    /** Warp collective kinds, shared with zluda-native's fibers.c. */
    int SHFL_UP = 0, SHFL_DOWN = 1, SHFL_BFLY = 2, SHFL_IDX = 3, VOTE_ALL = 4, VOTE_ANY = 5, VOTE_UNI = 6, BALLOT = 7,
            MATCH_ANY = 8, MATCH_ALL = 9, REDUX_ADD = 10, REDUX_MIN = 11, REDUX_MAX = 12, REDUX_UMIN = 13, REDUX_UMAX = 14,
            REDUX_AND = 15, REDUX_OR = 16, REDUX_XOR = 17, WARP_SYNC = 18, ELECT = 19, ACTIVEMASK = 20, GATHER = 21;

    /**
     * bar.sync / bar.red / bar.arrive: waits for {@code count} threads (0 = the block) at barrier {@code id}; with
     * redOp 0/1/2 (popc/and/or) combines {@code pred} and returns the i32 result; redOp -2 arrives without waiting.
     * {@code aligned}: the source's {@code bar.*} or {@code barrier.*.aligned}, which every thread of a warp executes
     * together (NVIDIA's compiler then knows the warp converged after it; its shuffles need no divergence check).
     * Null when the target cannot.
     */
    default LLVMValueRef blockBarrier(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef id,
                                      LLVMValueRef count, int redOp, LLVMValueRef pred, boolean aligned) {
        return null;
    }

    /** A warp collective over the lanes of {@code mask}: i64 result (low 32 bits value, bit 32 predicate). */
    default LLVMValueRef warpCollective(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, int kind,
                                        LLVMValueRef mask, LLVMValueRef value, LLVMValueRef bv, LLVMValueRef cv) {
        return null;
    }

    /**
     * Gathers the warp's words in one step: {@code buffer} (i32s) holds this lane's {@code words} values at [0, words);
     * afterwards lane L's are at [words + L*words, ...). All 32 lanes take part. False when the target has no such
     * step (the lowering then uses index shuffles).
     */
    default boolean warpGather(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef buffer, int words) {
        return false;
    }

    /**
     * Whether the lanes of a warp run one after another between collectives (the host's fibers) rather than in
     * lockstep. A warp-wide instruction that reads or writes memory lane by lane (ldmatrix, stmatrix, wmma.load/store)
     * then ends with a warp synchronization, so that no lane goes on (and overwrites what it read, or reads what
     * another lane has yet to write) before every lane has done its part, as the one instruction does on a GPU.
     */
    default boolean lanesRunApart() {
        return false;
    }

    /** Whether {@link #warpGather} is one step here (then it beats a series of lane permutes). */
    default boolean hasWarpGather() {
        return false;
    }

    /**
     * Whether the matrix family (mma, wmma, ldmatrix, stmatrix, movmatrix, cp.async) stays the target's own
     * instructions (NVPTX) rather than being lowered.
     */
    default boolean nativeMatrix() {
        return false;
    }

    /** The operand layout of a target's 16x16x16 wave matrix instruction (WMMA): RDNA3 (gfx11) or RDNA4 (gfx12). */
    enum WmmaLayout { RDNA3, RDNA4 }

    /** Which WMMA the matrix family is lowered to; null: none (the reference lowering). */
    default WmmaLayout wmmaLayout() {
        return null;
    }

    /**
     * Independent lane permutes that all lanes execute together: value k read from lane {@code srcLanes[k]}, as
     * {@link #lanePermute} each. {@code scratch}: null, or 3n i32 of the function's memory when {@link
     * #batchesLanePermutes} (the target may make them one step with it).
     */
    default List<LLVMValueRef> lanePermutes(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext,
                                            List<LLVMValueRef> values, List<LLVMValueRef> srcLanes, LLVMValueRef scratch) {
        List<LLVMValueRef> out = new java.util.ArrayList<>();
        for (int k = 0; k < values.size(); k++) out.add(lanePermute(m, b, threadContext, values.get(k), srcLanes.get(k)));
        return out;
    }

    /** Whether {@link #lanePermutes} makes several permutes one step with a scratch buffer of 3n words. */
    default boolean batchesLanePermutes() {
        return false;
    }

    /** Lane permute: every lane reads {@code value} (i32) of lane {@code srcLane} (0..31); all lanes execute it. */
    default LLVMValueRef lanePermute(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef value,
                                     LLVMValueRef srcLane) {
        LLVMContextRef ctx = LLVMGetModuleContext(m);
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
        LLVMValueRef r = warpCollective(m, b, threadContext, SHFL_IDX, LLVMConstInt(i32, 0xffffffffL, 0),
                LLVMBuildZExt(b, value, i64, ""), srcLane, LLVMConstInt(i32, 0x1f, 0));
        return r == null ? null : LLVMBuildTrunc(b, r, i32, "");
    }

    /** The inputs of a WMMA: f16, bf16, or 8-bit integers (each operand signed or unsigned). */
    enum WmmaInput { F16, BF16, S8S8, S8U8, U8S8, U8U8;
        public boolean integer() {
            return ordinal() >= 2;
        }

        public boolean signedA() {
            return this == S8S8 || this == S8U8;
        }

        public boolean signedB() {
            return this == S8S8 || this == U8S8;
        }
    }

    /**
     * D = A x B + C of one 16x16x16 WMMA in this target's {@link #wmmaLayout}: {@code a} and {@code b} are the lane's
     * operand registers as i32 words (two f16/bf16 or four 8-bit values each: 8 or 4 words on RDNA3, 4 or 2 on RDNA4),
     * {@code c} its 8 accumulator elements (f32, or i32 for integers, which wrap); returns D's 8 elements.
     */
    default java.util.List<LLVMValueRef> wmma(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, WmmaInput input,
                                              java.util.List<LLVMValueRef> a, java.util.List<LLVMValueRef> bw,
                                              java.util.List<LLVMValueRef> c) {
        throw new IllegalStateException(name() + " has no WMMA");
    }

    /**
     * The target's two-element dot product, {@code a.lo*b.lo + a.hi*b.hi + acc} of two f16 packed in each i32 word
     * into an f32 accumulator, or null to use plain arithmetic.
     */
    default LLVMValueRef dot2F16(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef a, LLVMValueRef bw, LLVMValueRef acc) {
        return null;
    }

    /** The target's four-element byte dot product into an i32 accumulator (both operands signed or both unsigned), or null. */
    default LLVMValueRef dot4(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef a, LLVMValueRef bw, LLVMValueRef acc, boolean signed) {
        return null;
    }

    /**
     * Called where a thread finds what it waits for (an mbarrier phase) not there yet and will look again: the host
     * lets its other fibers run; GPUs need nothing (their other threads run anyway).
     */
    default void spinWait(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext) {}

    /** isspacep: whether a generic address (as pointer in address space 0) lies in {@code space}; null if unknown. */
    default LLVMValueRef isSpace(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef generic, StateSpace space) {
        return null;
    }

    /**
     * trap: stops the thread's block and fails the launch. GPUs use their trap instruction; the host calls the
     * runtime, which unwinds the block (a CPU trap instruction would kill the application). Unreachable follows.
     */
    default void trap(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext) {
        Ll.intrinsic(m, b, "llvm.trap", new LLVMTypeRef[0]);
    }

    /**
     * nanosleep.u32 t: the ISA allows any delay in [0, 2t], so by default none; NVPTX keeps NVIDIA's instruction, AMD
     * sleeps a little, and the host lets the block's other threads run (a thread polling in a loop must not starve
     * the one it waits for).
     */
    default void nanosleep(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext, LLVMValueRef nanoseconds) {}

    /**
     * Whether module variables declared {@code .extern} (a kernel unit's view of its module's variables, which the
     * variables unit defines in another code object) are reached through slots ({@code llvm.Lowering.SLOT_PREFIX +
     * name}, 64-bit addresses the driver writes after loading the unit): GPU code objects cannot refer to another's
     * symbols. The host links units by name instead.
     */
    default boolean variablesThroughSlots() {
        return false;
    }

    /** Whether .const memory is a window of its own that global addresses cannot reach (NVPTX's constant bank). */
    default boolean constantBankSeparate() {
        return false;
    }

    /**
     * Whether barriers with a thread count, bar.arrive and bar.red need {@code pass.NamedBarriers} (shared-memory
     * barriers) because the target has one hardware barrier per block.
     */
    default boolean softwareNamedBarriers() {
        return false;
    }

    /** Marks a function as a kernel (calling convention, attributes, metadata). */
    void markKernel(LLVMModuleRef m, LLVMValueRef kernel);

    /**
     * The kernel's blocks have at most {@code threads} threads (its .maxntid or .reqntid; the driver refuses larger
     * launches, as NVIDIA's does), which lets the code use more registers per thread where the target divides them.
     */
    default void boundThreads(LLVMValueRef kernel, long threads) {}

    /**
     * The kernel's performance directives ({@code .maxntid}, {@code .reqntid}, {@code .minnctapersm}, {@code .maxnreg})
     * as the target's own, where its code generator takes them (NVPTX: they reach ptxas, which allocates registers by
     * them as it does for NVIDIA's PTX).
     */
    default void kernelDirectives(LLVMModuleRef m, LLVMValueRef kernel, org.zludaj.ptx.model.Function f) {}

    /**
     * {@code bfe} (operands a, pos, len) or {@code bfi} (a, b, pos, len) of {@code type} as the target's own instruction,
     * or null where it has none (the lowering then computes the field). NVPTX keeps NVIDIA's instructions: their
     * 64-bit forms behave exactly as NVIDIA's do, and NVIDIA's optimizer mistranslated loops of the shift-and-select
     * sequence the general lowering makes (corpus kernel fuzz_1_00998, right only at -O0).
     */
    default LLVMValueRef bitField(LLVMBuilderRef b, String opcode, org.zludaj.ptx.model.Type type, LLVMValueRef... operands) {
        return null;
    }

    /** Whether {@link #bitField} gives the target's own instructions. */
    default boolean hasBitFields() {
        return false;
    }

    /** Called on a left shift by a constant amount that the PTX wrote (an instruction, or a folded constant). */
    default void constantShift(LLVMContextRef ctx, LLVMValueRef shift) {}

    /**
     * An integer PTX instruction the target executes itself ({@code prmt} with its mode, {@code dp4a}, {@code
     * dp2a.lo/.hi} with their types, {@code div}/{@code rem} of a divisor and {@code shl}/{@code shr} of an amount known
     * at run time, {@code mul.hi}): {@code instruction} is
     * its opcode and modifiers as PTX writes them ("dp4a.s32.u32", "div.s64"), the result of the first operand's
     * type. Null where the target has none (the generic lowering applies).
     */
    default LLVMValueRef ownInteger(LLVMBuilderRef b, String instruction, LLVMValueRef... operands) {
        return null;
    }

    /**
     * A conversion the target executes itself with PTX's semantics (rounding, .ftz, .sat, .relu, NaN and out-of-range
     * values): f32/f64 to an integer, f16 to f32/f64 and f32 to f16 (16-bit operands as i16), two f32 to a packed
     * f16x2/bf16x2; {@code instruction} as PTX writes it
     * ("cvt.rzi.ftz.s32.f32", "cvt.rn.f16x2.f32"), {@code to} the result's LLVM type. Null where the target has none.
     */
    default LLVMValueRef ownConvert(LLVMBuilderRef b, String instruction, LLVMTypeRef to, LLVMValueRef... x) {
        return null;
    }

    /**
     * A float comparison the target executes itself with PTX's semantics ({@code instruction} as PTX writes it,
     * "setp.lt.ftz.f32", without destinations): the i1 result, or null where the target has none.
     */
    default LLVMValueRef ownCompare(LLVMBuilderRef b, String instruction, LLVMValueRef x, LLVMValueRef y) {
        return null;
    }

    /**
     * Whether LLVM keeps the PTX's loops (no unrolling or interleaving of its own) and the source's
     * {@code .pragma "nounroll"} reaches the output ({@link org.zludaj.ptx.llvm.LoopPragmas}): targets whose output
     * goes through NVIDIA's ptxas, which unrolls loops itself.
     */
    default boolean keepsLoops() {
        return false;
    }

    /**
     * LLVM's middle end for this target, as a pass pipeline ({@code LLVMRunPasses}): LLVM's O2, unless the target's
     * output goes through an optimizer of its own that wants the PTX's code as it was ({@link NvptxTarget}).
     */
    default String middleEnd() {
        return "default<O2>";
    }

    /**
     * The address a 32-bit .local address is an offset from, as an i64 ({@code alloca.u32}, {@code stacksave.u32}, a
     * .local variable's address or a .local access through a 32-bit register), or null where .local addresses fit 32
     * bits themselves (GPUs: a local window under 4 GiB).
     */
    default LLVMValueRef localBase32(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef threadContext) {
        return null;
    }

    /**
     * Whether {@link #middleEnd}'s pipeline runs LLVM's SLP vectorizer (which packs independent scalar operations
     * of one thread into vector instructions).
     */
    default boolean slpVectorization() {
        return true;
    }

    /**
     * Whether code generation runs LLVM's loop strength reduction (the loops' induction variables and addresses
     * rewritten for the target's addressing modes).
     */
    default boolean strengthReduction() {
        return true;
    }

    /**
     * Whether code generation's two-address pass moves instructions below a kill to spare a copy (LLVM's
     * {@code -twoaddr-reschedule}). Its search is quadratic in a block's size: code of huge straight-line blocks may
     * spend most of its code generation there.
     */
    default boolean twoAddressRescheduling() {
        return true;
    }

    /**
     * The SelectionDAG scheduler before register allocation (LLVM's {@code -pre-RA-sched}: "fast", "linearize"...);
     * null: the target's default. A process option like the ones above.
     */
    default String preRaScheduler() {
        return null;
    }

    /**
     * After {@link #middleEnd}'s pipeline: what the target's middle end does beyond one pipeline (NVPTX: LICM in small
     * loops); skipped where the system property {@code zluda.llvm.passes} replaces the pipeline (a diagnostic).
     */
    default void afterMiddleEnd(LLVMModuleRef m, LLVMTargetMachineRef tm) throws org.zludaj.ptx.PtxException {}

    /** Module-level settings (flags) before code generation. */
    default void configureModule(LLVMModuleRef m) {}

    /** After LLVM's middle end, before code generation: per-function code-generation choices (AMD: the scheduler). */
    default void beforeCodegen(LLVMModuleRef m) {}

    /**
     * After {@link #beforeCodegen}: null to generate code in this process, or the LLVM options for which the bundled
     * {@code llc} generates this module's code in a process of its own (options LLVM only has process-wide).
     */
    default java.util.List<String> separateCodegen(LLVMModuleRef m) {
        return null;
    }
}
