package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.llvm.LLVM.LLVMBasicBlockRef;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.Diagnostic;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;
import org.zludaj.ptx.model.Variable;
import org.zludaj.ptx.target.Target;

/**
 * Lowers a PTX module to LLVM IR, the same way for every target; the {@link Target} supplies kernel signatures,
 * parameter access, special registers and address spaces. Registers become allocas (promoted by LLVM's mem2reg),
 * labels become basic blocks, guards become branches. Anything not yet supported is a {@link PtxException} naming
 * the instruction, its line, the function and the target; nothing is dropped.
 */
public final class Lowering {
    final PtxModule ptx;
    final Target target;
    final LLVMContextRef ctx;
    final LLVMModuleRef module;
    private final String symbolPrefix;
    private final List<Diagnostic> errors = new ArrayList<>();

    private Lowering(PtxModule ptx, Target target, LLVMContextRef ctx, String dataLayout, String symbolPrefix) {
        this.ptx = ptx;
        this.target = target;
        this.ctx = ctx;
        this.symbolPrefix = symbolPrefix;
        this.module = LLVMModuleCreateWithNameInContext(ptx.name(), ctx);
        LLVMSetTarget(module, target.triple());
        if (dataLayout != null) LLVMSetDataLayout(module, dataLayout);
    }

    /** What lowering a module produced: the LLVM module and the static shared memory its kernels need (host). */
    public record Lowered(LLVMModuleRef module, long staticShared, java.util.Set<String> fiberKernels) {}

    /** Lowers every defined kernel of {@code ptx} into a new module of {@code ctx}. */
    public static LLVMModuleRef lower(PtxModule ptx, Target target, LLVMContextRef ctx, String dataLayout,
                                      String symbolPrefix) throws PtxException {
        return lowerModule(ptx, target, ctx, dataLayout, symbolPrefix).module();
    }

    public static Lowered lowerModule(PtxModule ptx, Target target, LLVMContextRef ctx, String dataLayout,
                                      String symbolPrefix) throws PtxException {
        return lowerModule(ptx, target, ctx, dataLayout, symbolPrefix, org.zludaj.ptx.CompileProfile.NONE);
    }

    /** Our passes for {@code target}: the common ones, then those the target asks for. */
    public static PtxModule passes(PtxModule ptx, Target target) {
        ptx = org.zludaj.ptx.pass.ModulePass.runAll(ptx);
        if (target.wmmaLayout() != null) ptx = new org.zludaj.ptx.pass.PairMma().apply(ptx);  // 16x16 WMMA: pair m16n8 operations
        if (target.softwareNamedBarriers()) ptx = new org.zludaj.ptx.pass.NamedBarriers().apply(ptx);  // one hardware barrier per block
        if (target.lanesRunApart()) ptx = new org.zludaj.ptx.pass.WarpLockstep().apply(ptx);  // host fibers: warps meet
        if (target.lanesRunApart()) ptx = new org.zludaj.ptx.pass.SpinLoops().apply(ptx);  // host fibers: pollers let others run
        return ptx;
    }

    /** {@link #lowerModule}, the time of our passes, the IR's construction and the verifier added to {@code profile}. */
    public static Lowered lowerModule(PtxModule source, Target target, LLVMContextRef ctx, String dataLayout,
                                      String symbolPrefix, org.zludaj.ptx.CompileProfile profile) throws PtxException {
        PtxModule ptx = profile.time(org.zludaj.ptx.CompileProfile.Stage.PASSES, () -> passes(source, target));
        Lowering l = new Lowering(ptx, target, ctx, dataLayout, symbolPrefix);
        profile.time(org.zludaj.ptx.CompileProfile.Stage.IR, () -> {
            target.configureModule(l.module);
            try {
                l.declareModule();
            } catch (Unsupported u) {
                l.errors.add(new Diagnostic(ptx.name(), u.line, 0, u.getMessage() + " (target " + target.name() + ")"));
            }
            if (l.errors.isEmpty()) {
                for (Function f : ptx.functions()) if (f.isDefined()) l.function(f);
            }
            if (!l.errors.isEmpty()) {
                LLVMDisposeModule(l.module);
                throw new PtxException(l.errors);
            }
            return null;
        });
        profile.time(org.zludaj.ptx.CompileProfile.Stage.VERIFY, () -> {
            BytePointer err = new BytePointer((org.bytedeco.javacpp.Pointer) null);
            if (LLVMVerifyModule(l.module, LLVMReturnStatusAction, err) != 0) {
                String msg = Ll.message(err);
                LLVMDisposeModule(l.module);
                throw new PtxException(new Diagnostic(ptx.name(), 0, 0, "LLVM verifier (" + target.name() + "): " + msg));
            }
            Ll.message(err);
            return null;
        });
        return new Lowered(l.module, l.vars.sharedSize, l.fiberKernels);
    }

    // ------------------------------------------------------------------------------------ module variables

    /**
     * A variable with storage: its pointer (in the variable's address space) or, for host shared memory, its offset;
     * or, for a module variable another code object defines (GPU targets), the slot holding its address.
     */
    record Var(Variable v, LLVMValueRef pointer, long sharedOffset, LLVMValueRef slot) {
        Var(Variable v, LLVMValueRef pointer, long sharedOffset) {
            this(v, pointer, sharedOffset, null);
        }
    }

    /** The prefix of the slot variables of {@link Target#variablesThroughSlots}; the driver fills each after loading. */
    public static final String SLOT_PREFIX = "__zluda_got$";  // "$": valid in PTX, ELF and HIP names

    /** The LLVM address space of state space {@code s} here. */
    int spaceOf(StateSpace s) {
        return s == StateSpace.CONST && vars.constViaGeneric ? target.addressSpace(StateSpace.GENERIC) : target.addressSpace(s);
    }

    /** The module's variables (and functions' .shared/.global ones): storage, initializers, host shared offsets. */
    final ModuleVariables vars = new ModuleVariables(this);
    final Map<String, LLVMValueRef> functions = new HashMap<>();

    /**
     * The LLVM type a .func passes a parameter or its one result as, by value: scalars of 1, 2, 4 or 8 bytes as the
     * integer of their size (so that .f32 and .b32 declarations of one slot agree); null for the others (arrays,
     * vectors, predicates), passed as a pointer to their storage. By value, a recursive function keeps no pointers to
     * its caller's slots across its own calls: NVIDIA's ptxas then needs about the stack frame nvcc's code needs.
     */
    LLVMTypeRef byValue(Variable v) {
        if (v.vectorWidth() > 1 || !v.arrayDims().isEmpty() || v.type() == Type.PRED) return null;
        long n = v.type().bytes();
        return n == 1 || n == 2 || n == 4 || n == 8 ? LLVMIntTypeInContext(ctx, (int) (8 * n)) : null;
    }

    /** The result passed by value: the only result, when it is a scalar; else null (results by pointer). */
    LLVMTypeRef returnByValue(List<Variable> rets) {
        return rets.size() == 1 ? byValue(rets.get(0)) : null;
    }

    private LLVMTypeRef functionType(List<Variable> rets, List<Variable> params) {
        LLVMTypeRef ret = returnByValue(rets);
        List<LLVMTypeRef> ps = new ArrayList<>();
        if (ret == null) for (Variable r : rets) ps.add(target.paramPointerType(ctx));
        for (Variable p : params) {
            LLVMTypeRef t = byValue(p);
            ps.add(t != null ? t : target.paramPointerType(ctx));
        }
        return target.functionType(ctx, ps, ret != null ? ret : LLVMVoidTypeInContext(ctx));
    }

    /** The stack storage of a .local or .param variable. */
    private LLVMValueRef stackSlot(Variable v) {
        LLVMValueRef a = LLVMBuildAlloca(b, vars.storageType(v), v.name().replace("%", ""));
        LLVMSetAlignment(a, Math.max(ModuleVariables.alignment(v), 4));
        return a;
    }

    /** A stack slot for a parameter or result passed by value, as a pointer in the .param address space. */
    private LLVMValueRef paramSlot(Variable v) {
        LLVMValueRef a = stackSlot(v);
        int want = target.addressSpace(StateSpace.PARAM);
        return LLVMGetPointerAddressSpace(LLVMTypeOf(a)) == want ? a : LLVMBuildAddrSpaceCast(b, a, LLVMPointerTypeInContext(ctx, want), "");
    }

    /** Returns from the current function: its result by value, loaded from its slot, where it has one. */
    private void buildReturn() {
        if (returnType == null) LLVMBuildRetVoid(b);
        else LLVMBuildRet(b, LLVMBuildLoad2(b, returnType, returnSlot, ""));
    }

    private void declareModule() {
        for (Function f : ptx.functions()) {
            if (f.entry()) continue;
            if (!f.isDefined() && target.hasRuntimeCall(f.name())) continue;  // the target calls its own (C signature)
            if (functions.containsKey(f.name())) continue;  // a forward declaration and its definition: one function
            LLVMValueRef fn = LLVMAddFunction(module, target.kernelSymbol(f.name(), symbolPrefix), functionType(f.returns(), f.params()));
            functions.put(f.name(), fn);
        }
        for (Variable v : ptx.globals()) vars.declareGlobal(v, v.name());
        for (Variable v : ptx.globals()) vars.initialize(v, v.name());
    }

    // ------------------------------------------------------------------------------------------ per kernel

    /** Thrown inside one function's lowering; becomes a diagnostic and lowering continues with the next function. */
    static final class Unsupported extends RuntimeException {
        final int line;

        Unsupported(int line, String message) {
            super(message, null, false, false);
            this.line = line;
        }
    }

    record Reg(LLVMValueRef slot, Type type, LLVMTypeRef llvmType) {}

    record Param(LLVMValueRef address, Variable variable) {}

    private Function fn;
    /** Whether the kernel being lowered takes a parameter's address ({@link KernelParamWindow}): its body scanned once. */
    private boolean takesParamAddress;
    LLVMValueRef kernel;
    LLVMBuilderRef b;
    Map<String, Reg> regs;
    Map<String, Param> params;
    private Map<String, LLVMBasicBlockRef> labels;
    private LLVMBasicBlockRef entryBlock;

    private Map<String, Var> locals;
    private LLVMValueRef threadContext;
    private Map<String, List<String>> targetLists;

    /** Kernels that use block or warp operations, directly or through the device functions they call. */
    private final java.util.Set<String> fiberKernels = new java.util.HashSet<>();
    private boolean anyFunctionUsesBlockOperations;

    /** The current .func's result passed by value (type and slot), or null. */
    private LLVMTypeRef returnType;
    private LLVMValueRef returnSlot;

    private void function(Function f) {
        fn = f;
        usesBlockOperations = false;
        regs = new HashMap<>();
        params = new HashMap<>();
        labels = new HashMap<>();
        locals = new HashMap<>();
        targetLists = new HashMap<>();
        scratch = new HashMap<>();
        boolean isKernel = f.entry();
        returnType = null;
        returnSlot = null;
        List<LLVMTypeRef> paramTypes = new ArrayList<>();
        for (Variable p : f.params()) paramTypes.add(paramType(p));
        if (isKernel) {
            String symbol = target.kernelSymbol(f.name(), symbolPrefix);
            takesParamAddress = KernelParamWindow.takesAddress(f);
            kernel = takesParamAddress && target.paramsByReference() ? KernelParamWindow.addByReference(target, module, ctx, symbol, f, paramTypes)
                    : LLVMAddFunction(module, symbol, target.kernelType(ctx, paramTypes));
            target.markKernel(module, kernel);
            target.boundThreads(kernel, f.maxThreads());
            target.kernelDirectives(module, kernel, f);
        } else {
            kernel = functions.get(f.name());
            LLVMSetLinkage(kernel, f.attributes().contains(".visible") ? LLVMExternalLinkage : LLVMInternalLinkage);
        }
        if (target.keepsLoops() && f.directives().contains(NOUNROLL)) LoopPragmas.markAll(kernel);
        b = LLVMCreateBuilderInContext(ctx);
        try {
            entryBlock = LLVMAppendBasicBlockInContext(ctx, kernel, "entry");
            LLVMPositionBuilderAtEnd(b, entryBlock);
            threadContext = target.threadContext(kernel, isKernel);
            if (isKernel) {
                List<LLVMValueRef> addrs = takesParamAddress && target.paramsByReference()
                        ? KernelParamWindow.arguments(target, ctx, b, kernel, paramTypes.size()) : target.kernelParams(ctx, b, kernel, paramTypes);
                if (takesParamAddress && target.recordsParamWindow())
                    addrs = KernelParamWindow.copy(target, module, ctx, b, threadContext, paramTypes, addrs);
                for (int i = 0; i < f.params().size(); i++) params.put(f.params().get(i).name(), new Param(addrs.get(i), f.params().get(i)));
            } else {
                int k = target.firstFunctionParameter();
                returnType = returnByValue(f.returns());
                if (returnType != null) {
                    returnSlot = paramSlot(f.returns().get(0));
                    params.put(f.returns().get(0).name(), new Param(returnSlot, f.returns().get(0)));
                } else {
                    for (Variable r : f.returns()) params.put(r.name(), new Param(LLVMGetParam(kernel, k++), r));
                }
                for (Variable p : f.params()) {
                    if (byValue(p) == null) {
                        params.put(p.name(), new Param(LLVMGetParam(kernel, k++), p));
                    } else {
                        LLVMValueRef slot = paramSlot(p);
                        LLVMBuildStore(b, LLVMGetParam(kernel, k++), slot);
                        params.put(p.name(), new Param(slot, p));
                    }
                }
            }
            if (target.hostSharedMemory()) sharedBase = target.sharedBase(module, b, threadContext);
            declare(f.body());
            matrices.beginFunction(f.body());
            collectLabels(f.body());
            LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(ctx, kernel, "start");
            LLVMBuildBr(b, start);
            LLVMPositionBuilderAtEnd(b, start);
            statements(f.body());
            if (LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b)) == null) buildReturn();
            // conservative: a kernel is run on fibers when it, or any device function of the module, synchronizes
            if (usesBlockOperations && !f.entry()) anyFunctionUsesBlockOperations = true;
            if (f.entry() && (usesBlockOperations || hasSynchronizingFunction())) fiberKernels.add(f.name());
        } catch (Unsupported u) {
            errors.add(new Diagnostic(ptx.name(), u.line, 0, "function " + f.name() + " (target " + target.name() + "): " + u.getMessage()));
            LLVMDeleteFunction(kernel);
        } catch (RuntimeException e) {  // a compiler bug: reported with the function, never thrown at the driver
            errors.add(new Diagnostic(ptx.name(), f.line(), 0, "function " + f.name() + " (target " + target.name()
                    + "): internal compiler error: " + e));
            LLVMDeleteFunction(kernel);
        } finally {
            LLVMDisposeBuilder(b);
        }
    }

    LLVMValueRef sharedBase;

    private boolean hasSynchronizingFunction() {
        for (Function g : ptx.functions()) {
            if (g.entry() || g.body() == null) continue;
            if (containsBlockOperation(g.body())) return true;
        }
        return false;
    }

    private static boolean containsBlockOperation(List<Statement> body) {
        for (Statement s : body) {
            if (s instanceof Instruction i && java.util.Set.of("bar", "barrier", "shfl", "vote", "match", "redux", "activemask", "elect").contains(i.opcode()))
                return true;
            if (s instanceof Statement.Block blk && containsBlockOperation(blk.statements())) return true;
        }
        return false;
    }

    /** Pointer to a variable's storage, in its own address space (host shared memory: the block's memory + offset). */
    LLVMValueRef variablePointer(Var v, Instruction at) {
        if (v.pointer() != null) return v.pointer();
        if (v.slot() != null) {
            LLVMValueRef address = LLVMBuildLoad2(b, LLVMInt64TypeInContext(ctx), v.slot(), "");
            LLVMSetAlignment(address, 8);
            LLVMSetMetadata(address, LLVMGetMDKindIDInContext(ctx, "invariant.load", 14),
                    LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, (org.bytedeco.javacpp.PointerPointer) null, 0)));
            return LLVMBuildIntToPtr(b, address, LLVMPointerTypeInContext(ctx, spaceOf(v.v().space())), "");
        }
        return LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), sharedBase, Ll.array(LLVMConstInt(LLVMInt64TypeInContext(ctx), sharedOffset(v), 0)), 1, "");
    }

    /** Host shared variables: the offset in the block's shared window (extern ones after the static part). */
    private long sharedOffset(Var v) {
        return v.sharedOffset() >= 0 ? v.sharedOffset() : (vars.sharedSize + 15) / 16 * 16;
    }

    Var variable(String name) {
        Var v = locals.get(name);
        return v != null ? v : vars.globals.get(name);
    }

    /**
     * A kernel parameter's LLVM type. A byte array (a struct passed by value) of declared alignment 8 or 4 is an array
     * of i64 or i32 of the same size: the same bytes and layout, but read in words rather than byte by byte (NVPTX
     * loaded ggml's 128-byte soft_max_params a byte at a time, 150 instructions in every thread).
     */
    private LLVMTypeRef paramType(Variable p) {
        if (p.arrayDims().isEmpty() && p.vectorWidth() == 0) return llvmType(p.type());
        long n = p.size();
        if (p.align() >= 8 && n % 8 == 0 && n > 0) return LLVMArrayType2(LLVMInt64TypeInContext(ctx), n / 8);
        if (p.align() >= 4 && n % 4 == 0 && n > 0) return LLVMArrayType2(LLVMInt32TypeInContext(ctx), n / 4);
        return LLVMArrayType2(LLVMInt8TypeInContext(ctx), n);
    }

    LLVMTypeRef llvmType(Type t) {
        return switch (t) {
            case PRED -> LLVMInt1TypeInContext(ctx);
            case B8, U8, S8 -> LLVMInt8TypeInContext(ctx);
            case B16, U16, S16 -> LLVMInt16TypeInContext(ctx);
            case B32, U32, S32, F16X2, BF16X2 -> LLVMInt32TypeInContext(ctx);
            case B64, U64, S64 -> LLVMInt64TypeInContext(ctx);
            case B128 -> LLVMInt128TypeInContext(ctx);
            case F16 -> LLVMHalfTypeInContext(ctx);
            case BF16 -> LLVMBFloatTypeInContext(ctx);
            case F32 -> LLVMFloatTypeInContext(ctx);
            case F64 -> LLVMDoubleTypeInContext(ctx);
            case F8X2, E4M3X2, E5M2X2 -> LLVMInt16TypeInContext(ctx);
            case TF32 -> LLVMInt32TypeInContext(ctx);
            case TEXREF, SAMPLERREF, SURFREF -> LLVMInt64TypeInContext(ctx);
        };
    }

    private void declare(List<Statement> body) {
        for (Statement s : body) {
            if (s instanceof Statement.Declaration d) {
                for (Variable v : d.variables()) {
                    if (v.space() == StateSpace.LOCAL || v.space() == StateSpace.PARAM) {
                        locals.put(v.name(), new Var(v, stackSlot(v), 0));
                        continue;
                    }
                    if (v.space() == StateSpace.SHARED || v.space() == StateSpace.GLOBAL || v.space() == StateSpace.CONST) {
                        String unique = fn.name() + "$" + v.name();
                        if (!vars.globals.containsKey(unique)) {
                            vars.declareGlobal(v, unique);
                            vars.initialize(v, unique);
                        }
                        locals.put(v.name(), vars.globals.get(unique));
                        continue;
                    }
                    if (v.space() != StateSpace.REG) {
                        throw new Unsupported(v.line(), v.space().name().toLowerCase() + " variable " + v.name()
                                + " inside a function is not supported yet");
                    }
                    if (v.vectorWidth() != 0 || !v.arrayDims().isEmpty())
                        throw new Unsupported(v.line(), "vector or array register " + v.name() + " is not supported yet");
                    LLVMTypeRef t = llvmType(v.type());
                    if (v.rangeCount() > 0) {
                        for (int i = 0; i < v.rangeCount(); i++) addReg(v.name() + i, v.type(), t);
                    } else {
                        addReg(v.name(), v.type(), t);
                    }
                }
            } else if (s instanceof Statement.Block blk) {
                declare(blk.statements());
            }
        }
    }

    private void addReg(String name, Type type, LLVMTypeRef t) {
        regs.put(name, new Reg(LLVMBuildAlloca(b, t, name.replace("%", "")), type, t));
    }

    private void collectLabels(List<Statement> body) {
        for (int k = 0; k < body.size(); k++) {
            Statement s = body.get(k);
            if (s instanceof Statement.Label l) {
                labels.put(l.name(), LLVMAppendBasicBlockInContext(ctx, kernel, l.name()));
                if (k + 1 < body.size() && body.get(k + 1) instanceof Statement.Directive d && d.text().startsWith(".branchtargets ")) {
                    targetLists.put(l.name(), List.of(d.text().substring(".branchtargets ".length()).split(",\\s*")));
                }
            } else if (s instanceof Statement.Block blk) {
                collectLabels(blk.statements());
            }
        }
    }

    /** A function-level (or, spread by the parser, module-level) {@code .pragma "nounroll"} among a function's directives. */
    public static final String NOUNROLL = ".pragma \"nounroll\";";

    private void statements(List<Statement> body) {
        for (Statement s : body) {
            if (s instanceof Statement.Label l) {
                LLVMBasicBlockRef bb = labels.get(l.name());
                if (LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b)) == null) LLVMBuildBr(b, bb);
                LLVMPositionBuilderAtEnd(b, bb);
            } else if (s instanceof Statement.Block blk) {
                statements(blk.statements());
            } else if (s instanceof Statement.Pragma p) {
                if (target.keepsLoops() && p.values().contains("\"nounroll\"")
                        && LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b)) == null) LoopPragmas.mark(module, b);
            } else if (s instanceof Instruction i) {
                if (LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b)) != null) {
                    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, kernel, "dead"));
                }
                guarded(i);
            }
        }
    }

    // ---------------------------------------------------------------------------------------- instructions

    private void guarded(Instruction i) {
        if (i.guard() == null) {
            instruction(i);
            return;
        }
        // pass.PredicatesToBranches left guards on branches only
        if (!i.opcode().equals("bra")) throw new Unsupported(i.line(), "guarded " + i.text() + " reached lowering");
        LLVMValueRef p = predicate(i.guard().predicate(), i);
        if (i.guard().negated()) p = LLVMBuildNot(b, p, "");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(ctx, kernel, "");
        LLVMBuildCondBr(b, p, label(i, i.operands().get(0)), next);
        LLVMPositionBuilderAtEnd(b, next);
    }

    private LLVMBasicBlockRef label(Instruction i, Operand o) {
        if (o instanceof Operand.Name n && labels.containsKey(n.name())) return labels.get(n.name());
        throw new Unsupported(i.line(), "branch target " + o + " is not a label");
    }

    private LLVMValueRef predicate(String name, Instruction i) {
        Reg r = regs.get(name);
        if (r == null || r.type != Type.PRED) throw new Unsupported(i.line(), name + " is not a predicate register");
        return LLVMBuildLoad2(b, r.llvmType, r.slot, "");
    }

    Type type(Instruction i) {
        for (int k = i.modifiers().size() - 1; k >= 0; k--) {
            Type t = Type.of(i.modifiers().get(k));
            if (t != null) return t;
        }
        throw new Unsupported(i.line(), i.text() + ": no type modifier");
    }

    Unsupported unsupported(Instruction i) {
        return new Unsupported(i.line(), "instruction " + i.text() + " is not supported yet");
    }

    final IntegerOps integers = new IntegerOps(this);
    final FloatOps floats = new FloatOps(this);
    private final MatrixOps matrices = new MatrixOps(this);
    final AsyncBarriers barriers = new AsyncBarriers(this);
    final DevicePrintf printf = new DevicePrintf(this);
    private final Calls calls = new Calls(this);
    private final TextureOps textures = new TextureOps(this);
    private final VideoOps video = new VideoOps(this);
    private final SimdVideoOps simdVideo = new SimdVideoOps(this);
    private final MemoryOps memory = new MemoryOps(this);
    private final WarpOps warps = new WarpOps(this);
    private final ScalarOps scalars = new ScalarOps(this);
    /** activemask instructions lowered so far in the module: each one's identity. */

    String symbolPrefix() {
        return symbolPrefix;
    }

    private void instruction(Instruction i) {
        if (integers.lower(i)) return;
        if (floats.lower(i)) return;
        if (matrices.lower(i)) return;
        if (barriers.lower(i)) return;
        if (textures.lower(i)) return;
        if (video.lower(i)) return;
        if (simdVideo.lower(i)) return;
        if (memory.lower(i)) return;
        if (warps.lower(i)) return;
        if (scalars.lower(i)) return;
        List<Operand> o = i.operands();
        switch (i.opcode()) {
            case "ret", "exit" -> buildReturn();
            case "bra" -> LLVMBuildBr(b, label(i, o.get(0)));
            case "mov" -> {
                Type t = type(i);
                if (o.get(1) instanceof Operand.Vector v) write(i, o.get(0), pack(i, v, t), t);
                else if (o.get(0) instanceof Operand.Vector v) unpack(i, v, read(i, o.get(1), t), t);
                else write(i, o.get(0), read(i, o.get(1), t), t);
            }
            case "call" -> calls.call(i);
            case "brx" -> brx(i);
            case "membar", "fence" -> LLVMBuildFence(b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
            case "prefetch", "prefetchu", "applypriority", "discard", "pmevent" -> { }  // hints without effect on results
            // a cache eviction policy for the .L2::cache_hint operands of loads, stores and copies, which hint only: the
            // policy is an opaque 64-bit value that no instruction reads here (every form gives the same one)
            case "createpolicy" -> write(i, o.get(0), LLVMConstInt(LLVMInt64TypeInContext(ctx), 0, 0), Type.B64);
            case "trap", "brkpt" -> {
                target.trap(module, b, threadContext);
                LLVMBuildUnreachable(b);
            }
            case "nanosleep" -> {
                if (target.hostSharedMemory()) usesBlockOperations = true;  // the host yields to the block's other fibers
                target.nanosleep(module, b, threadContext, read(i, o.get(0), Type.U32));
            }
            case "selp" -> {
                Type t = type(i);
                LLVMValueRef c = read(i, o.get(3), Type.PRED);
                write(i, o.get(0), LLVMBuildSelect(b, c, read(i, o.get(1), t), read(i, o.get(2), t), ""), t);
            }
            case "cvt" -> floats.conversions.cvt(i);
            case "bar_unsupported" ->
                    throw new Unsupported(i.line(), "instruction " + i.text()
                            + " (block, warp or atomic operation) is not supported yet on " + target.name());
            default -> throw unsupported(i);
        }
    }

    Operand o(Instruction i, int index, Class<? extends Operand> kind) {
        if (index >= i.operands().size() || !kind.isInstance(i.operands().get(index)))
            throw new Unsupported(i.line(), i.text() + ": operand " + (index + 1) + " must be " + kind.getSimpleName());
        return i.operands().get(index);
    }

    StateSpace space(Instruction i) {
        for (String m : i.modifiers()) {
            StateSpace s = StateSpace.of(m);
            if (s != null) return s;
        }
        return StateSpace.GENERIC;
    }

    /** Pointer for {@code [base+offset]} in state space {@code space}. */
    LLVMValueRef address(Instruction i, Operand.Address a, StateSpace space) {
        LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
        LLVMValueRef base;
        if (a.base() != null && params.containsKey(a.base().name())) {
            base = params.get(a.base().name()).address;
        } else if (a.base() != null && variable(a.base().name()) != null) {
            Var v = variable(a.base().name());
            base = variablePointer(v, i);
            int want = spaceOf(space), have = LLVMGetPointerAddressSpace(LLVMTypeOf(base));
            if (want != have) base = LLVMBuildAddrSpaceCast(b, base, LLVMPointerTypeInContext(ctx, want), "");
        } else if (a.base() != null && regs.containsKey(a.base().name())) {
            LLVMValueRef v = read(i, a.base(), Type.U64);
            LLVMValueRef local32 = space == StateSpace.LOCAL && regs.get(a.base().name()).type().bytes() == 4 ? localBase32() : null;
            if (space == StateSpace.SHARED && target.hostSharedMemory()) {  // a shared address is an offset in the block's window
                base = LLVMBuildGEP2(b, i8, sharedBase, Ll.array(v), 1, "");
            } else if (local32 != null) {  // a 32-bit .local address where they are 64-bit: an offset from the local base
                base = localPointer32(local32, v);
            } else {
                base = LLVMBuildIntToPtr(b, v, LLVMPointerTypeInContext(ctx, spaceOf(space)), "");
            }
        } else if (a.base() == null) {
            base = LLVMBuildIntToPtr(b, LLVMConstInt(i64, 0, 0), LLVMPointerTypeInContext(ctx, spaceOf(space)), "");
        } else {
            throw new Unsupported(i.line(), i.text() + ": unknown name " + a.base().name() + " in address");
        }
        if (a.offset() == 0) return base;
        return LLVMBuildGEP2(b, i8, base, Ll.array(LLVMConstInt(i64, a.offset(), 1)), 1, "");
    }

    /** The address a 32-bit .local address is an offset from here ({@link Target#localBase32}), or null. */
    LLVMValueRef localBase32() {
        return target.localBase32(module, b, threadContext);
    }

    /** A 32-bit .local address, an offset from {@code base}, as a .local pointer. */
    LLVMValueRef localPointer32(LLVMValueRef base, LLVMValueRef offset) {
        LLVMValueRef start = LLVMBuildIntToPtr(b, base, LLVMPointerTypeInContext(ctx, spaceOf(StateSpace.LOCAL)), "");
        return LLVMBuildGEP2(b, LLVMInt8TypeInContext(ctx), start, Ll.array(LLVMBuildZExt(b, offset, LLVMInt64TypeInContext(ctx), "")), 1, "");
    }

    /** A .local pointer as a 32-bit .local address: its offset from {@code base}. */
    LLVMValueRef localOffset32(LLVMValueRef base, LLVMValueRef p) {
        return LLVMBuildTrunc(b, LLVMBuildSub(b, LLVMBuildPtrToInt(b, p, LLVMInt64TypeInContext(ctx), ""), base, ""), LLVMInt32TypeInContext(ctx), "");
    }

    Unsupported blockUnsupported(Instruction i) {
        return new Unsupported(i.line(), "instruction " + i.text() + " (block, warp or atomic operation) is not supported yet on " + target.name());
    }

    /** True once the function uses a block or warp operation (the host then runs its threads as fibers). */
    boolean usesBlockOperations;

    /** An i32 constant. */
    LLVMValueRef i32(long v) {
        return LLVMConstInt(LLVMInt32TypeInContext(ctx), v, 0);
    }

    /** mov.bN d, {a, b, ...}: the elements side by side, the first in the low bits. */
    private LLVMValueRef pack(Instruction i, Operand.Vector v, Type t) {
        int n = v.elements().size(), w = t.bits() / n;
        LLVMTypeRef whole = LLVMIntTypeInContext(ctx, t.bits());
        Type part = Type.of(".b" + w);
        if (part == null) throw unsupported(i);
        LLVMValueRef r = LLVMConstInt(whole, 0, 0);
        for (int k = 0; k < n; k++) {
            if (v.elements().get(k) instanceof Operand.Sink) continue;
            LLVMValueRef e = LLVMBuildZExt(b, readElement(i, v.elements().get(k), part), whole, "");
            r = LLVMBuildOr(b, r, LLVMBuildShl(b, e, LLVMConstInt(whole, (long) k * w, 0), ""), "");
        }
        return r;
    }

    /** mov.bN {a, b, ...}, d: the reverse of {@link #pack}. */
    private void unpack(Instruction i, Operand.Vector v, LLVMValueRef value, Type t) {
        int n = v.elements().size(), w = t.bits() / n;
        Type part = Type.of(".b" + w);
        if (part == null) throw unsupported(i);
        LLVMValueRef bits = LLVMBuildBitCast(b, value, LLVMIntTypeInContext(ctx, t.bits()), "");
        for (int k = 0; k < n; k++) {
            LLVMValueRef e = LLVMBuildTrunc(b, LLVMBuildLShr(b, bits, LLVMConstInt(LLVMIntTypeInContext(ctx, t.bits()), (long) k * w, 0), ""),
                    LLVMIntTypeInContext(ctx, w), "");
            writeElement(i, v.elements().get(k), e, part);
        }
    }

    /** brx.idx index, targets: a switch over the .branchtargets list. */
    private void brx(Instruction i) {
        List<String> list = i.operands().get(1) instanceof Operand.Name n ? targetLists.get(n.name()) : null;
        if (list == null) throw new Unsupported(i.line(), "brx.idx needs a .branchtargets list");
        LLVMValueRef idx = read(i, i.operands().get(0), Type.U32);
        LLVMBasicBlockRef dflt = LLVMAppendBasicBlockInContext(ctx, kernel, "brx.out");
        LLVMValueRef sw = LLVMBuildSwitch(b, idx, dflt, list.size());
        for (int k = 0; k < list.size(); k++) {
            LLVMBasicBlockRef target = labels.get(list.get(k).strip());
            if (target == null) throw new Unsupported(i.line(), "undefined label " + list.get(k));
            LLVMAddCase(sw, LLVMConstInt(LLVMInt32TypeInContext(ctx), k, 0), target);
        }
        LLVMPositionBuilderAtEnd(b, dflt);
        LLVMBuildUnreachable(b);
    }

    Type widened(Instruction i, Type t) {
        return switch (t) {
            case U16 -> Type.U32;
            case S16 -> Type.S32;
            case U32 -> Type.U64;
            case S32 -> Type.S64;
            case U64, S64 -> Type.B128;
            default -> throw unsupported(i);
        };
    }

    LLVMValueRef extend(LLVMValueRef v, Type from, Type to) {
        return from.isSigned() ? LLVMBuildSExt(b, v, llvmType(to), "") : LLVMBuildZExt(b, v, llvmType(to), "");
    }

    // ------------------------------------------------------------------------------------ helpers for MatrixOps

    /** Scratch slots of the current function, shared by the instructions that ask for the same key. */
    private Map<String, LLVMValueRef> scratch = new HashMap<>();

    /** One entry-block slot per function and key (instructions run one after the other, so they can share it). */
    LLVMValueRef scratch(LLVMTypeRef t, String key) {
        return scratch.computeIfAbsent(key, k -> entryAlloca(t, k));
    }

    /** Emits into another function (a helper of this module) with {@code body}, then returns to the current one. */
    void inFunction(LLVMValueRef function, Runnable body) {
        LLVMValueRef savedKernel = kernel;
        LLVMBuilderRef savedB = b;
        LLVMBasicBlockRef savedEntry = entryBlock;
        Map<String, LLVMValueRef> savedScratch = scratch;
        b = LLVMCreateBuilderInContext(ctx);
        kernel = function;
        entryBlock = LLVMAppendBasicBlockInContext(ctx, function, "entry");
        scratch = new HashMap<>();
        LLVMPositionBuilderAtEnd(b, entryBlock);
        try {
            body.run();
        } finally {
            LLVMDisposeBuilder(b);
            b = savedB;
            kernel = savedKernel;
            entryBlock = savedEntry;
            scratch = savedScratch;
        }
    }

    /** An alloca in the function's entry block (one slot however often the code around it runs). */
    LLVMValueRef entryAlloca(LLVMTypeRef t, String name) {
        LLVMBuilderRef entry = LLVMCreateBuilderInContext(ctx);
        LLVMValueRef first = LLVMGetFirstInstruction(entryBlock);
        if (first == null) LLVMPositionBuilderAtEnd(entry, entryBlock);
        else LLVMPositionBuilderBefore(entry, first);
        LLVMValueRef a = LLVMBuildAlloca(entry, t, name);
        LLVMDisposeBuilder(entry);
        return a;
    }

    /** The thread context the target passes (host), else null. */
    LLVMValueRef threadContext() {
        return threadContext;
    }

    /** %laneid as i32. */
    LLVMValueRef laneId(Instruction i) {
        return scalarSpecial(i, "%laneid");
    }

    /** Whether an operand is a predicate register (or its negation). */
    boolean isPredicate(Operand o) {
        if (o instanceof Operand.Not n) return isPredicate(n.operand());
        return o instanceof Operand.Name n && regs.containsKey(n.name()) && regs.get(n.name()).type == Type.PRED;
    }

    /** The declared type of a register operand. */
    Type registerType(Instruction i, Operand o) {
        if (o instanceof Operand.Name n && regs.containsKey(n.name())) return regs.get(n.name()).type;
        throw new Unsupported(i.line(), i.text() + ": operand " + o + " must be a register");
    }

    /**
     * Every lane of the warp shares {@code words} (i32 each): returns a buffer holding this lane's words at
     * [0, n) and lane L's at [n + L*n, n + L*n + n). The target gathers in one step where it can (host runtime),
     * else 32 index shuffles per word. All 32 lanes must execute it (the .sync.aligned matrix instructions).
     */
    LLVMValueRef gather(Instruction i, List<LLVMValueRef> words) {
        usesBlockOperations = true;
        int n = words.size();
        LLVMTypeRef i32t = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
        LLVMValueRef buf = scratch(LLVMArrayType2(i32t, 33L * n), "warp.gather." + n);
        for (int w = 0; w < n; w++)
            LLVMBuildStore(b, words.get(w), LLVMBuildGEP2(b, i32t, buf, Ll.array(LLVMConstInt(i64, w, 0)), 1, ""));
        if (target.warpGather(module, b, threadContext, buf, n)) return buf;
        LLVMValueRef full = LLVMConstInt(i32t, 0xffffffffL, 0);
        forLanes(lane -> {
            for (int w = 0; w < n; w++) {
                LLVMValueRef r = target.warpCollective(module, b, threadContext, Target.SHFL_IDX, full,
                        LLVMBuildZExt(b, words.get(w), i64, ""), lane, i32(0x1f));
                if (r == null) throw blockUnsupported(i);
                LLVMValueRef at = LLVMBuildAdd(b, LLVMBuildMul(b, lane, i32(n), ""), i32(n + w), "");
                LLVMBuildStore(b, LLVMBuildTrunc(b, r, i32t, ""), LLVMBuildGEP2(b, i32t, buf, Ll.array(at), 1, ""));
            }
        });
        return buf;
    }

    /**
     * The end of a warp-wide instruction whose memory accesses are done lane by lane: where the lanes run apart
     * (host fibers) every lane of the warp waits here until all have done theirs (see {@link Target#lanesRunApart}).
     */
    void warpMemoryDone(Instruction i) {
        if (!target.lanesRunApart()) return;
        usesBlockOperations = true;
        LLVMValueRef r = target.warpCollective(module, b, threadContext, Target.WARP_SYNC, i32(0xffffffff),
                LLVMConstInt(LLVMInt64TypeInContext(ctx), 0, 0), i32(0), i32(0));
        if (r == null) throw blockUnsupported(i);
    }

    /** Emits {@code body} in a loop over lanes 0..31 (an i32 value inside the loop): code once, not 32 times. */
    void forLanes(java.util.function.Consumer<LLVMValueRef> body) {
        LLVMTypeRef i32t = LLVMInt32TypeInContext(ctx);
        LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
        LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(ctx, kernel, "lanes"), done = LLVMAppendBasicBlockInContext(ctx, kernel, "lanes.done");
        LLVMBuildBr(b, loop);
        LLVMPositionBuilderAtEnd(b, loop);
        LLVMValueRef lane = LLVMBuildPhi(b, i32t, "lane");
        body.accept(lane);
        LLVMValueRef next = LLVMBuildAdd(b, lane, i32(1), "");
        LLVMBasicBlockRef end = LLVMGetInsertBlock(b);
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, i32(32), ""), loop, done);
        LLVMAddIncoming(lane, Ll.array(i32(0), next), Ll.array(pre, end), 2);
        LLVMPositionBuilderAtEnd(b, done);
    }

    // ------------------------------------------------------------------------------------------- operands

    /** Reads an operand as PTX type {@code t} (registers of another type of the same size are reinterpreted). */
    LLVMValueRef read(Instruction i, Operand o, Type t) {
        LLVMTypeRef lt = llvmType(t);
        boolean real = ModuleVariables.realType(lt);
        if (o instanceof Operand.IntImm imm) {
            if (t.isFloat() && real) return LLVMConstReal(lt, imm.value());
            return LLVMConstInt(lt, imm.value(), 1);  // integers, and the bits of packed halves (f16x2, bf16x2)
        }
        if (o instanceof Operand.FloatImm f) {
            if (!t.isFloat() || !real) {
                if (f.width() != 0) return LLVMConstInt(lt, f.bits(), 0);
                throw new Unsupported(i.line(), i.text() + ": float immediate for integer operand");
            }
            if (f.width() == 32 && t == Type.F32) return LLVMConstBitCast(LLVMConstInt(LLVMInt32TypeInContext(ctx), f.bits(), 0), lt);
            if (f.width() == 64 && t == Type.F64) return LLVMConstBitCast(LLVMConstInt(LLVMInt64TypeInContext(ctx), f.bits(), 0), lt);
            return LLVMConstReal(lt, f.value());
        }
        if (o instanceof Operand.Not n && t == Type.PRED) return LLVMBuildNot(b, read(i, n.operand(), t), "");
        if (o instanceof Operand.Sum s && !s.subtract() && s.left() instanceof Operand.Name && s.right() instanceof Operand.IntImm imm
                && !t.isFloat() && t != Type.PRED)  // reg+imm or var+imm (ptxas takes both in any instruction)
            return LLVMBuildAdd(b, read(i, s.left(), t), LLVMConstInt(lt, imm.value(), 1), "");
        if (o instanceof Operand.Name n) {
            if (n.component() != null && isSpecial(n.name())) {
                int dim = "xyz".indexOf(n.component().charAt(1));
                if (dim < 0) throw new Unsupported(i.line(), "special register " + n.name() + n.component() + " is not supported yet");
                return convert(i, target.specialRegister(module, b, threadContext, n.name(), dim), Type.U32, t);
            }
            Reg r = regs.get(n.name());
            if (r != null) {
                matrices.beforeRead(n.name());
                return convert(i, LLVMBuildLoad2(b, r.llvmType, r.slot, ""), r.type, t);
            }
            Var v = variable(n.name());
            if (v != null) {  // the variable's address in its own state space
                LLVMTypeRef it = llvmType(t.bytes() == 4 ? Type.U32 : Type.U64);
                if (v.pointer() == null && v.slot() == null) return LLVMConstInt(it, sharedOffset(v), 0);  // host shared: offset in the block's window
                LLVMValueRef p = variablePointer(v, i);
                int want = spaceOf(v.v().space());  // e.g. NVPTX allocas are generic: .local needs a local address
                if (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != want) p = LLVMBuildAddrSpaceCast(b, p, LLVMPointerTypeInContext(ctx, want), "");
                LLVMValueRef local32 = v.v().space() == StateSpace.LOCAL && t.bytes() == 4 ? localBase32() : null;
                if (local32 != null) return localOffset32(local32, p);  // a 32-bit .local address where they are 64-bit
                return LLVMBuildPtrToInt(b, p, it, "");
            }
            if (functions.containsKey(n.name())) return LLVMBuildPtrToInt(b, functions.get(n.name()), llvmType(t), "");
            Param prm = params == null ? null : params.get(n.name());
            if (prm != null)  // kernel and function parameters are addressable: the address in the .param state space
                return LLVMBuildPtrToInt(b, prm.address, llvmType(t.bytes() == 4 ? Type.U32 : Type.U64), "");
            if (n.name().equals("WARP_SZ")) return LLVMConstInt(llvmType(t), 32, 0);  // PTX's predefined constant: the warp size
            if (n.name().startsWith("%")) {
                LLVMValueRef sr = scalarSpecial(i, n.name());
                if (sr != null) return convert(i, sr, n.name().equals("%clock64") || n.name().startsWith("%globaltimer") && !n.name().endsWith("_lo") && !n.name().endsWith("_hi") ? Type.U64 : Type.U32, t);
                throw new Unsupported(i.line(), "register " + n.name() + " is not supported");
            }
            throw new Unsupported(i.line(), i.text() + ": unknown name " + n.name());
        }
        throw new Unsupported(i.line(), i.text() + ": operand " + o + " is not supported yet");
    }

    /** Scalar special registers: from the target, or computed from %tid/%ntid. */
    private LLVMValueRef scalarSpecial(Instruction i, String name) {
        LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
        LLVMValueRef v = target.specialRegister(module, b, threadContext, name, -1);
        if (v != null) return v;
        if (name.startsWith("%envreg")) return LLVMConstInt(i32, 0, 0);
        switch (name) {
            case "%clock64", "%globaltimer" -> {
                return Ll.intrinsic(module, b, "llvm.readcyclecounter", new LLVMTypeRef[0]);
            }
            case "%globaltimer_lo", "%clock_hi", "%globaltimer_hi" -> {
                LLVMValueRef c = Ll.intrinsic(module, b, "llvm.readcyclecounter", new LLVMTypeRef[0]);
                if (name.endsWith("_hi")) c = LLVMBuildLShr(b, c, LLVMConstInt(i64, 32, 0), "");
                return LLVMBuildTrunc(b, c, i32, "");
            }
            default -> { }
        }
        // linear thread id within the block; warps are 32 consecutive threads
        LLVMValueRef tx = target.specialRegister(module, b, threadContext, "%tid", 0), ty = target.specialRegister(module, b, threadContext, "%tid", 1),
                tz = target.specialRegister(module, b, threadContext, "%tid", 2), nx = target.specialRegister(module, b, threadContext, "%ntid", 0),
                ny = target.specialRegister(module, b, threadContext, "%ntid", 1), nz = target.specialRegister(module, b, threadContext, "%ntid", 2);
        LLVMValueRef linear = LLVMBuildAdd(b, tx, LLVMBuildMul(b, nx, LLVMBuildAdd(b, ty, LLVMBuildMul(b, ny, tz, ""), ""), ""), "");
        LLVMValueRef lane = LLVMBuildAnd(b, linear, LLVMConstInt(i32, 31, 0), "");
        LLVMValueRef one = LLVMConstInt(i32, 1, 0);
        LLVMValueRef eq = LLVMBuildShl(b, one, lane, "");
        return switch (name) {
            case "%laneid" -> lane;
            case "%warpid" -> LLVMBuildLShr(b, linear, LLVMConstInt(i32, 5, 0), "");
            case "%nwarpid" -> LLVMBuildLShr(b, LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildMul(b, nx, ny, ""), nz, ""), LLVMConstInt(i32, 31, 0), ""), LLVMConstInt(i32, 5, 0), "");
            case "%lanemask_eq" -> eq;
            case "%lanemask_lt" -> LLVMBuildSub(b, eq, one, "");
            case "%lanemask_le" -> LLVMBuildOr(b, eq, LLVMBuildSub(b, eq, one, ""), "");
            case "%lanemask_ge" -> LLVMBuildNot(b, LLVMBuildSub(b, eq, one, ""), "");
            case "%lanemask_gt" -> LLVMBuildNot(b, LLVMBuildOr(b, eq, LLVMBuildSub(b, eq, one, ""), ""), "");
            default -> null;
        };
    }

    private static boolean isSpecial(String name) {
        return name.equals("%tid") || name.equals("%ntid") || name.equals("%ctaid") || name.equals("%nctaid");
    }

    /**
     * An element of a vector expression that is stored or packed ({@code st.v2.u32 [a], {%p1, %r1}}, {@code mov.b64 %rd1,
     * {%p1, %r1}}): ptxas takes a predicate register there in a 32-bit vector, but NVIDIA's driver does not give it one
     * meaning (H100, driver 580.159.04: a true predicate stored as 0xFFFFFFFF by st.v2 and mov.b64, as 1 by st.v4, whose
     * register elements were stored as 1 too; a kernel with both made the driver's JIT end the process with a
     * segmentation fault). Refused here with that reason; predicates loaded or unpacked from words are {@link #writeElement}.
     */
    LLVMValueRef readElement(Instruction i, Operand o, Type t) {
        if (isPredicate(o))
            throw new Unsupported(i.line(), i.text() + ": a predicate stored or packed as a vector element has no consistent "
                    + "meaning on NVIDIA's GPUs (its driver stores it as -1 or 1, or crashes); select a word first (selp.u32)");
        return read(i, o, t);
    }

    /**
     * An element of a vector expression that is loaded or unpacked ({@code ld.v4.u32 {%p1, %p2, %r1, %r2}, [a]},
     * {@code mov.b64 {%p1, %r1}, %rd1}): ptxas takes a predicate register there in a vector of 32-bit integers, true
     * where the word is not 0, as NVIDIA's GPUs load it (ptx-test predicate_vector_elements).
     */
    void writeElement(Instruction i, Operand dst, LLVMValueRef v, Type t) {
        if (t.bits() == 32 && !t.isFloat() && isPredicate(dst)) {
            write(i, dst, LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0), ""), Type.PRED);
            return;
        }
        write(i, dst, v, t);
    }

    void write(Instruction i, Operand dst, LLVMValueRef v, Type t) {
        if (dst instanceof Operand.Sink) return;
        if (!(dst instanceof Operand.Name n) || !regs.containsKey(n.name()))
            throw new Unsupported(i.line(), i.text() + ": destination " + dst + " is not a register");
        Reg r = regs.get(n.name());
        matrices.written(n.name());
        LLVMBuildStore(b, convert(i, v, t, r.type), r.slot);
    }

    /** PTX's relaxed type rules: same size reinterprets; integers of other widths truncate or extend. */
    private LLVMValueRef convert(Instruction i, LLVMValueRef v, Type from, Type to) {
        if (from == to) return v;
        LLVMTypeRef lt = llvmType(to);
        if (from == Type.PRED || to == Type.PRED)
            throw new Unsupported(i.line(), i.text() + ": predicate used as " + to.name().toLowerCase());
        if (from.bits() == to.bits()) return LLVMBuildBitCast(b, v, lt, "");
        if (from.isFloat() || to.isFloat()) {
            // sizes differ: go through integers of the right width
            LLVMValueRef asInt = from.isFloat() ? LLVMBuildBitCast(b, v, LLVMIntTypeInContext(ctx, from.bits()), "") : v;
            LLVMTypeRef intTo = LLVMIntTypeInContext(ctx, to.bits());
            LLVMValueRef sized = to.bits() < from.bits() ? LLVMBuildTrunc(b, asInt, intTo, "") : LLVMBuildZExt(b, asInt, intTo, "");
            return to.isFloat() ? LLVMBuildBitCast(b, sized, lt, "") : sized;
        }
        if (to.bits() < from.bits()) return LLVMBuildTrunc(b, v, lt, "");
        return from.isSigned() ? LLVMBuildSExt(b, v, lt, "") : LLVMBuildZExt(b, v, lt, "");
    }
}
