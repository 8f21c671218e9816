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

    /** Lowers every defined kernel of {@code ptx} into a new module of {@code ctx}. */
    public static LLVMModuleRef lower(PtxModule ptx, Target target, LLVMContextRef ctx, String dataLayout,
                                      String symbolPrefix) throws PtxException {
        Lowering l = new Lowering(ptx, target, ctx, dataLayout, symbolPrefix);
        target.configureModule(l.module);
        for (Function f : ptx.functions()) {
            if (!f.isDefined()) continue;
            if (!f.entry()) {
                l.errors.add(new Diagnostic(ptx.name(), f.line(), 0, "function " + f.name()
                        + ": .func (device functions and calls) is not supported yet on " + target.name()));
                continue;
            }
            l.kernel(f);
        }
        if (!l.errors.isEmpty()) {
            LLVMDisposeModule(l.module);
            throw new PtxException(l.errors);
        }
        BytePointer err = new BytePointer((org.bytedeco.javacpp.Pointer) null);
        if (LLVMVerifyModule(l.module, LLVMReturnStatusAction, err) != 0) {
            String msg = Ll.message(err);
            LLVMDisposeModule(l.module);
            throw new PtxException(new Diagnostic(ptx.name(), 0, 0, "LLVM verifier (" + target.name() + "): " + msg));
        }
        Ll.message(err);
        return l.module;
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

    private record Reg(LLVMValueRef slot, Type type, LLVMTypeRef llvmType) {}

    private record Param(LLVMValueRef address, Variable variable) {}

    private Function fn;
    LLVMValueRef kernel;
    LLVMBuilderRef b;
    private Map<String, Reg> regs;
    private Map<String, Param> params;
    private Map<String, LLVMBasicBlockRef> labels;
    private LLVMBasicBlockRef entryBlock;

    private void kernel(Function f) {
        fn = f;
        regs = new HashMap<>();
        params = new HashMap<>();
        labels = new HashMap<>();
        List<LLVMTypeRef> paramTypes = new ArrayList<>();
        for (Variable p : f.params()) paramTypes.add(paramType(p));
        kernel = LLVMAddFunction(module, target.kernelSymbol(f.name(), symbolPrefix), target.kernelType(ctx, paramTypes));
        target.markKernel(module, kernel);
        b = LLVMCreateBuilderInContext(ctx);
        try {
            entryBlock = LLVMAppendBasicBlockInContext(ctx, kernel, "entry");
            LLVMPositionBuilderAtEnd(b, entryBlock);
            List<LLVMValueRef> addrs = target.kernelParams(ctx, b, kernel, paramTypes);
            for (int i = 0; i < f.params().size(); i++) params.put(f.params().get(i).name(), new Param(addrs.get(i), f.params().get(i)));
            declare(f.body());
            collectLabels(f.body());
            LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(ctx, kernel, "start");
            LLVMBuildBr(b, start);
            LLVMPositionBuilderAtEnd(b, start);
            statements(f.body());
            if (LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b)) == null) LLVMBuildRetVoid(b);
        } catch (Unsupported u) {
            errors.add(new Diagnostic(ptx.name(), u.line, 0, "function " + f.name() + " (target " + target.name() + "): " + u.getMessage()));
            LLVMDeleteFunction(kernel);
        } finally {
            LLVMDisposeBuilder(b);
        }
    }

    private LLVMTypeRef paramType(Variable p) {
        if (p.arrayDims().isEmpty() && p.vectorWidth() == 0) return llvmType(p.type());
        long n = p.size();
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
        for (Statement s : body) {
            if (s instanceof Statement.Label l) labels.put(l.name(), LLVMAppendBasicBlockInContext(ctx, kernel, l.name()));
            else if (s instanceof Statement.Block blk) collectLabels(blk.statements());
        }
    }

    private void statements(List<Statement> body) {
        for (Statement s : body) {
            if (s instanceof Statement.Label l) {
                LLVMBasicBlockRef bb = labels.get(l.name());
                if (LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b)) == null) LLVMBuildBr(b, bb);
                LLVMPositionBuilderAtEnd(b, bb);
            } else if (s instanceof Statement.Block blk) {
                statements(blk.statements());
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
        LLVMValueRef p = predicate(i.guard().predicate(), i);
        if (i.guard().negated()) p = LLVMBuildNot(b, p, "");
        LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(ctx, kernel, "");
        if (i.opcode().equals("bra")) {
            LLVMBuildCondBr(b, p, label(i, i.operands().get(0)), next);
        } else {
            LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(ctx, kernel, "");
            LLVMBuildCondBr(b, p, then, next);
            LLVMPositionBuilderAtEnd(b, then);
            instruction(i);
            if (LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b)) == null) LLVMBuildBr(b, next);
        }
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

    private final IntegerOps integers = new IntegerOps(this);
    private final FloatOps floats = new FloatOps(this);

    private void instruction(Instruction i) {
        if (integers.lower(i)) return;
        if (floats.lower(i)) return;
        List<Operand> o = i.operands();
        switch (i.opcode()) {
            case "ret", "exit" -> LLVMBuildRetVoid(b);
            case "bra" -> LLVMBuildBr(b, label(i, o.get(0)));
            case "mov" -> {
                Type t = type(i);
                write(i, o.get(0), read(i, o.get(1), t), t);
            }
            case "cvta" -> {  // generic <-> global/shared/...: numerically the identity for global memory
                if (!i.has(".global") && !i.has(".to")) throw unsupported(i);
                if (!i.has(".global")) throw unsupported(i);
                Type t = type(i);
                write(i, o.get(0), read(i, o.get(1), t), t);
            }
            case "ld", "ldu" -> load(i);
            case "st" -> store(i);
            case "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "min", "max" -> binary(i);
            case "mad", "fma" -> mad(i);
            case "neg", "not", "abs" -> unary(i);
            case "setp" -> setp(i);
            case "selp" -> {
                Type t = type(i);
                LLVMValueRef c = read(i, o.get(3), Type.PRED);
                write(i, o.get(0), LLVMBuildSelect(b, c, read(i, o.get(1), t), read(i, o.get(2), t), ""), t);
            }
            case "cvt" -> floats.conversions.cvt(i);
            case "bar", "barrier", "shfl", "vote", "match", "redux", "activemask", "membar", "fence", "atom", "red" ->
                    throw new Unsupported(i.line(), "instruction " + i.text()
                            + " (block, warp or atomic operation) is not supported yet on " + target.name());
            default -> throw unsupported(i);
        }
    }

    private void load(Instruction i) {
        Type t = type(i);
        if (i.has(".v2") || i.has(".v4")) throw unsupported(i);
        LLVMValueRef p = address(i, (Operand.Address) o(i, 1, Operand.Address.class), space(i));
        write(i, i.operands().get(0), LLVMBuildLoad2(b, llvmType(t), p, ""), t);
    }

    private void store(Instruction i) {
        Type t = type(i);
        if (i.has(".v2") || i.has(".v4")) throw unsupported(i);
        LLVMValueRef p = address(i, (Operand.Address) o(i, 0, Operand.Address.class), space(i));
        LLVMBuildStore(b, read(i, i.operands().get(1), t), p);
    }

    private Operand o(Instruction i, int index, Class<? extends Operand> kind) {
        if (index >= i.operands().size() || !kind.isInstance(i.operands().get(index)))
            throw new Unsupported(i.line(), i.text() + ": operand " + (index + 1) + " must be " + kind.getSimpleName());
        return i.operands().get(index);
    }

    private StateSpace space(Instruction i) {
        for (String m : i.modifiers()) {
            StateSpace s = StateSpace.of(m);
            if (s != null) return s;
        }
        return StateSpace.GENERIC;
    }

    /** Pointer for {@code [base+offset]} in state space {@code space}. */
    private LLVMValueRef address(Instruction i, Operand.Address a, StateSpace space) {
        LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
        LLVMValueRef base;
        if (a.base() != null && params.containsKey(a.base().name())) {
            base = params.get(a.base().name()).address;
        } else if (a.base() != null && regs.containsKey(a.base().name())) {
            LLVMValueRef v = read(i, a.base(), Type.U64);
            base = LLVMBuildIntToPtr(b, v, LLVMPointerTypeInContext(ctx, target.addressSpace(space)), "");
        } else if (a.base() == null) {
            base = LLVMBuildIntToPtr(b, LLVMConstInt(i64, 0, 0), LLVMPointerTypeInContext(ctx, target.addressSpace(space)), "");
        } else {
            throw new Unsupported(i.line(), i.text() + ": unknown name " + a.base().name() + " in address");
        }
        if (a.offset() == 0) return base;
        return LLVMBuildGEP2(b, i8, base, Ll.array(LLVMConstInt(i64, a.offset(), 1)), 1, "");
    }

    private void binary(Instruction i) {
        Type t = type(i);
        List<Operand> o = i.operands();
        String op = i.opcode();
        boolean wide = i.has(".wide"), hi = i.has(".hi");
        if ((op.equals("mul")) && (wide || hi)) {
            Type wt = widened(i, t);
            LLVMValueRef x = extend(read(i, o.get(1), t), t, wt), y = extend(read(i, o.get(2), t), t, wt);
            LLVMValueRef r = LLVMBuildMul(b, x, y, "");
            if (hi) {
                r = LLVMBuildLShr(b, r, LLVMConstInt(llvmType(wt), t.bits(), 0), "");
                r = LLVMBuildTrunc(b, r, llvmType(t), "");
                write(i, o.get(0), r, t);
            } else {
                write(i, o.get(0), r, wt);
            }
            return;
        }
        LLVMValueRef x = read(i, o.get(1), t);
        Type yt = op.equals("shl") || op.equals("shr") ? Type.U32 : t;
        LLVMValueRef y = read(i, o.get(2), yt);
        LLVMValueRef r;
        if (t.isFloat()) {
            r = switch (op) {
                case "add" -> LLVMBuildFAdd(b, x, y, "");
                case "sub" -> LLVMBuildFSub(b, x, y, "");
                case "mul" -> LLVMBuildFMul(b, x, y, "");
                case "div" -> LLVMBuildFDiv(b, x, y, "");
                case "min" -> Ll.intrinsic(module, b, "llvm.minnum", new LLVMTypeRef[] {llvmType(t)}, x, y);
                case "max" -> Ll.intrinsic(module, b, "llvm.maxnum", new LLVMTypeRef[] {llvmType(t)}, x, y);
                default -> throw unsupported(i);
            };
            if (i.has(".sat")) throw unsupported(i);
        } else {
            boolean signed = t.isSigned();
            r = switch (op) {
                case "add" -> LLVMBuildAdd(b, x, y, "");
                case "sub" -> LLVMBuildSub(b, x, y, "");
                case "mul" -> LLVMBuildMul(b, x, y, "");
                case "div" -> signed ? LLVMBuildSDiv(b, x, y, "") : LLVMBuildUDiv(b, x, y, "");
                case "rem" -> signed ? LLVMBuildSRem(b, x, y, "") : LLVMBuildURem(b, x, y, "");
                case "and" -> LLVMBuildAnd(b, x, y, "");
                case "or" -> LLVMBuildOr(b, x, y, "");
                case "xor" -> LLVMBuildXor(b, x, y, "");
                case "min" -> LLVMBuildSelect(b, LLVMBuildICmp(b, signed ? LLVMIntSLT : LLVMIntULT, x, y, ""), x, y, "");
                case "max" -> LLVMBuildSelect(b, LLVMBuildICmp(b, signed ? LLVMIntSGT : LLVMIntUGT, x, y, ""), x, y, "");
                case "shl", "shr" -> shift(t, x, y, op.equals("shl"), signed);
                default -> throw unsupported(i);
            };
        }
        write(i, o.get(0), r, t);
    }

    /** PTX shifts clamp: amounts >= width give 0 (or the sign for arithmetic right shifts). */
    LLVMValueRef shift(Type t, LLVMValueRef x, LLVMValueRef amount32, boolean left, boolean signed) {
        LLVMTypeRef lt = llvmType(t);
        LLVMValueRef width = LLVMConstInt(LLVMInt32TypeInContext(ctx), t.bits(), 0);
        LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, amount32, width, "");
        LLVMValueRef clamped = LLVMBuildSelect(b, big, LLVMConstInt(LLVMInt32TypeInContext(ctx), t.bits() - 1, 0), amount32, "");
        LLVMValueRef amt = t.bits() > 32 ? LLVMBuildZExt(b, clamped, lt, "") : t.bits() < 32 ? LLVMBuildTrunc(b, clamped, lt, "") : clamped;
        if (left) {
            LLVMValueRef r = LLVMBuildShl(b, x, amt, "");
            return LLVMBuildSelect(b, big, LLVMConstInt(lt, 0, 0), r, "");
        }
        if (signed) return LLVMBuildAShr(b, x, amt, "");
        LLVMValueRef r = LLVMBuildLShr(b, x, amt, "");
        return LLVMBuildSelect(b, big, LLVMConstInt(lt, 0, 0), r, "");
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

    private void mad(Instruction i) {
        Type t = type(i);
        List<Operand> o = i.operands();
        if (t.isFloat()) {
            if (i.has(".sat") || i.has(".ftz") && t == Type.F32 && false) throw unsupported(i);
            LLVMValueRef x = read(i, o.get(1), t), y = read(i, o.get(2), t), z = read(i, o.get(3), t);
            write(i, o.get(0), Ll.intrinsic(module, b, "llvm.fma", new LLVMTypeRef[] {llvmType(t)}, x, y, z), t);
            return;
        }
        if (i.has(".wide") || i.has(".hi")) {
            Type wt = widened(i, t);
            LLVMValueRef x = extend(read(i, o.get(1), t), t, wt), y = extend(read(i, o.get(2), t), t, wt);
            LLVMValueRef p = LLVMBuildMul(b, x, y, "");
            if (i.has(".wide")) {
                write(i, o.get(0), LLVMBuildAdd(b, p, read(i, o.get(3), wt), ""), wt);
            } else {
                LLVMValueRef h = LLVMBuildTrunc(b, LLVMBuildLShr(b, p, LLVMConstInt(llvmType(wt), t.bits(), 0), ""), llvmType(t), "");
                write(i, o.get(0), LLVMBuildAdd(b, h, read(i, o.get(3), t), ""), t);
            }
            return;
        }
        LLVMValueRef r = LLVMBuildAdd(b, LLVMBuildMul(b, read(i, o.get(1), t), read(i, o.get(2), t), ""), read(i, o.get(3), t), "");
        write(i, o.get(0), r, t);
    }

    private void unary(Instruction i) {
        Type t = type(i);
        LLVMValueRef x = read(i, i.operands().get(1), t);
        LLVMValueRef r = switch (i.opcode()) {
            case "neg" -> t.isFloat() ? LLVMBuildFNeg(b, x, "") : LLVMBuildNeg(b, x, "");
            case "not" -> LLVMBuildNot(b, x, "");
            case "abs" -> t.isFloat() ? Ll.intrinsic(module, b, "llvm.fabs", new LLVMTypeRef[] {llvmType(t)}, x)
                    : Ll.intrinsic(module, b, "llvm.abs", new LLVMTypeRef[] {llvmType(t)}, x, LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0));
            default -> throw unsupported(i);
        };
        write(i, i.operands().get(0), r, t);
    }

    private void setp(Instruction i) {
        Type t = type(i);
        List<Operand> o = i.operands();
        String cmp = i.modifiers().get(0);
        LLVMValueRef x = read(i, o.get(1), t), y = read(i, o.get(2), t);
        LLVMValueRef r;
        if (t.isFloat()) {
            int pred = switch (cmp) {
                case ".eq" -> LLVMRealOEQ;
                case ".ne" -> LLVMRealONE;
                case ".lt" -> LLVMRealOLT;
                case ".le" -> LLVMRealOLE;
                case ".gt" -> LLVMRealOGT;
                case ".ge" -> LLVMRealOGE;
                case ".equ" -> LLVMRealUEQ;
                case ".neu" -> LLVMRealUNE;
                case ".ltu" -> LLVMRealULT;
                case ".leu" -> LLVMRealULE;
                case ".gtu" -> LLVMRealUGT;
                case ".geu" -> LLVMRealUGE;
                case ".num" -> LLVMRealORD;
                case ".nan" -> LLVMRealUNO;
                default -> throw unsupported(i);
            };
            r = LLVMBuildFCmp(b, pred, x, y, "");
        } else {
            boolean s = t.isSigned();
            int pred = switch (cmp) {
                case ".eq" -> LLVMIntEQ;
                case ".ne" -> LLVMIntNE;
                case ".lt" -> s ? LLVMIntSLT : LLVMIntULT;
                case ".le" -> s ? LLVMIntSLE : LLVMIntULE;
                case ".gt" -> s ? LLVMIntSGT : LLVMIntUGT;
                case ".ge" -> s ? LLVMIntSGE : LLVMIntUGE;
                case ".lo" -> LLVMIntULT;
                case ".ls" -> LLVMIntULE;
                case ".hi" -> LLVMIntUGT;
                case ".hs" -> LLVMIntUGE;
                default -> throw unsupported(i);
            };
            r = LLVMBuildICmp(b, pred, x, y, "");
        }
        // p = cmp BOOL c; q = !cmp BOOL c (PTX: the second destination combines the complement of the comparison)
        LLVMValueRef notR = LLVMBuildNot(b, r, "");
        String combine = i.modifiers().size() > 2 ? i.modifiers().get(1) : null;
        if (combine != null && (combine.equals(".and") || combine.equals(".or") || combine.equals(".xor"))) {
            LLVMValueRef c = read(i, o.get(3), Type.PRED);
            r = combine(combine, r, c);
            notR = combine(combine, notR, c);
        }
        if (o.get(0) instanceof Operand.Pair pair) {
            write(i, pair.first(), r, Type.PRED);
            if (!(pair.second() instanceof Operand.Sink)) write(i, pair.second(), notR, Type.PRED);
        } else {
            write(i, o.get(0), r, Type.PRED);
        }
    }

    private LLVMValueRef combine(String op, LLVMValueRef x, LLVMValueRef c) {
        return switch (op) {
            case ".and" -> LLVMBuildAnd(b, x, c, "");
            case ".or" -> LLVMBuildOr(b, x, c, "");
            default -> LLVMBuildXor(b, x, c, "");
        };
    }

    private void cvt(Instruction i) {
        List<Type> types = new ArrayList<>();
        for (String m : i.modifiers()) {
            Type t = Type.of(m);
            if (t != null) types.add(t);
        }
        if (types.size() != 2 || i.has(".sat") || i.has(".ftz")) throw unsupported(i);
        Type to = types.get(0), from = types.get(1);
        LLVMValueRef x = read(i, i.operands().get(1), from);
        LLVMTypeRef lt = llvmType(to);
        LLVMValueRef r;
        if (!from.isFloat() && !to.isFloat()) {
            if (to.bits() == from.bits()) r = x;
            else if (to.bits() < from.bits()) r = LLVMBuildTrunc(b, x, lt, "");
            else r = from.isSigned() ? LLVMBuildSExt(b, x, lt, "") : LLVMBuildZExt(b, x, lt, "");
        } else if (from.isFloat() && to.isFloat()) {
            if (to.bits() == from.bits()) r = x;
            else if (to.bits() > from.bits()) r = LLVMBuildFPExt(b, x, lt, "");
            else if (i.has(".rn") || !i.modifiers().stream().anyMatch(m -> m.matches("\\.r[zmp]"))) r = LLVMBuildFPTrunc(b, x, lt, "");
            else throw unsupported(i);
        } else if (from.isFloat()) {  // float -> int: .rzi truncates; PTX saturates out-of-range values
            LLVMValueRef rounded = x;
            if (i.has(".rni")) rounded = Ll.intrinsic(module, b, "llvm.roundeven", new LLVMTypeRef[] {llvmType(from)}, x);
            else if (i.has(".rmi")) rounded = Ll.intrinsic(module, b, "llvm.floor", new LLVMTypeRef[] {llvmType(from)}, x);
            else if (i.has(".rpi")) rounded = Ll.intrinsic(module, b, "llvm.ceil", new LLVMTypeRef[] {llvmType(from)}, x);
            r = Ll.intrinsic(module, b, to.isSigned() ? "llvm.fptosi.sat" : "llvm.fptoui.sat",
                    new LLVMTypeRef[] {lt, llvmType(from)}, rounded);
        } else {
            if (!(i.has(".rn") || i.modifiers().stream().noneMatch(m -> m.matches("\\.r[zmp]")))) throw unsupported(i);
            r = from.isSigned() ? LLVMBuildSIToFP(b, x, lt, "") : LLVMBuildUIToFP(b, x, lt, "");
        }
        write(i, i.operands().get(0), r, to);
    }

    // ------------------------------------------------------------------------------------------- operands

    /** Reads an operand as PTX type {@code t} (registers of another type of the same size are reinterpreted). */
    LLVMValueRef read(Instruction i, Operand o, Type t) {
        LLVMTypeRef lt = llvmType(t);
        if (o instanceof Operand.IntImm imm) {
            if (t.isFloat()) return LLVMConstReal(lt, imm.value());
            return LLVMConstInt(lt, imm.value(), 1);
        }
        if (o instanceof Operand.FloatImm f) {
            if (!t.isFloat()) {
                if (f.width() != 0) return LLVMConstInt(lt, f.bits(), 0);
                throw new Unsupported(i.line(), i.text() + ": float immediate for integer operand");
            }
            if (f.width() == 32 && t == Type.F32) return LLVMConstBitCast(LLVMConstInt(LLVMInt32TypeInContext(ctx), f.bits(), 0), lt);
            if (f.width() == 64 && t == Type.F64) return LLVMConstBitCast(LLVMConstInt(LLVMInt64TypeInContext(ctx), f.bits(), 0), lt);
            return LLVMConstReal(lt, f.value());
        }
        if (o instanceof Operand.Not n && t == Type.PRED) return LLVMBuildNot(b, read(i, n.operand(), t), "");
        if (o instanceof Operand.Name n) {
            if (n.component() != null && isSpecial(n.name())) {
                int dim = "xyz".indexOf(n.component().charAt(1));
                if (dim < 0) throw new Unsupported(i.line(), "special register " + n.name() + n.component() + " is not supported yet");
                return convert(i, target.specialRegister(module, b, kernel, n.name(), dim), Type.U32, t);
            }
            Reg r = regs.get(n.name());
            if (r == null) {
                if (isSpecial(n.name()) || n.name().startsWith("%"))
                    throw new Unsupported(i.line(), "register " + n.name() + " is not supported yet");
                throw new Unsupported(i.line(), i.text() + ": unknown name " + n.name());
            }
            return convert(i, LLVMBuildLoad2(b, r.llvmType, r.slot, ""), r.type, t);
        }
        throw new Unsupported(i.line(), i.text() + ": operand " + o + " is not supported yet");
    }

    private static boolean isSpecial(String name) {
        return name.equals("%tid") || name.equals("%ntid") || name.equals("%ctaid") || name.equals("%nctaid");
    }

    void write(Instruction i, Operand dst, LLVMValueRef v, Type t) {
        if (dst instanceof Operand.Sink) return;
        if (!(dst instanceof Operand.Name n) || !regs.containsKey(n.name()))
            throw new Unsupported(i.line(), i.text() + ": destination " + dst + " is not a register");
        Reg r = regs.get(n.name());
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
