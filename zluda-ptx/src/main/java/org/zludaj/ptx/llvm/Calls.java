package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Lowering.Unsupported;
import org.zludaj.ptx.llvm.Lowering.Var;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;
import org.zludaj.ptx.model.Variable;

/**
 * {@code call}: to a device function of the module (a scalar sole result by value, the rest through pointers to their
 * {@code .param} storage), through a register holding a function's address, to {@code vprintf} (the target's
 * buffered printf) and to the extern functions of NVIDIA's device runtime that the target implements.
 */
final class Calls {
    private final Lowering l;

    Calls(Lowering l) {
        this.l = l;
    }

    /** call (rets), f, (args)[, proto]: every return value and argument is passed as a pointer to its .param storage. */
    void call(Instruction i) {
        List<Operand> ops = i.operands();
        int k = 0;
        List<Operand> rets = List.of();
        if (ops.get(0) instanceof Operand.Tuple t) {
            rets = t.elements();
            k = 1;
        }
        Operand callee = ops.get(k++);
        List<Operand> args = k < ops.size() && ops.get(k) instanceof Operand.Tuple t ? t.elements() : List.of();
        if (callee instanceof Operand.Name rn && l.ptx.function(rn.name()) != null && !l.ptx.function(rn.name()).isDefined()
                && l.target.bufferedPrintf() && DevicePrintf.handles(rn.name())) {
            List<LLVMValueRef> retPointers = new ArrayList<>(), argPointers = new ArrayList<>();
            for (Operand r : rets) retPointers.add(paramPointer(i, r));
            for (Operand a : args) argPointers.add(paramPointer(i, a));
            l.printf.call(i, rn.name(), retPointers, argPointers);
            return;
        }
        if (callee instanceof Operand.Name rn && l.ptx.function(rn.name()) != null && !l.ptx.function(rn.name()).isDefined()
                && l.target.hasRuntimeCall(rn.name())) {
            List<LLVMValueRef> retPointers = new ArrayList<>(), argPointers = new ArrayList<>();
            for (Operand r : rets) retPointers.add(paramPointer(i, r));
            for (Operand a : args) argPointers.add(paramPointer(i, a));
            l.target.runtimeCall(l.module, l.b, l.ctx, rn.name(), retPointers, argPointers);
            return;
        }
        String name = callee instanceof Operand.Name n ? n.name() : "";
        Function declared = l.ptx.function(name);
        // an extern device function (NVIDIA's device runtime, ours per target) takes every value by pointer
        boolean external = declared != null && !declared.isDefined();
        List<Variable> retVars = new ArrayList<>(), argVars = new ArrayList<>();
        for (Operand r : rets) retVars.add(paramVariable(i, r));
        for (Operand a : args) argVars.add(paramVariable(i, a));
        LLVMTypeRef retType = external ? null : l.returnByValue(retVars);
        List<LLVMValueRef> values = new ArrayList<>();
        List<LLVMTypeRef> types = new ArrayList<>();
        if (l.threadContext() != null) values.add(l.threadContext());
        if (retType == null) {
            for (Operand r : rets) {
                values.add(paramPointer(i, r));
                types.add(l.target.paramPointerType(l.ctx));
            }
        }
        for (int k2 = 0; k2 < args.size(); k2++) {
            LLVMTypeRef t = external ? null : l.byValue(argVars.get(k2));
            LLVMValueRef p = paramPointer(i, args.get(k2));
            values.add(t == null ? p : LLVMBuildLoad2(l.b, t, p, ""));
            types.add(t == null ? l.target.paramPointerType(l.ctx) : t);
        }
        LLVMTypeRef type = l.target.functionType(l.ctx, types, retType != null ? retType : LLVMVoidTypeInContext(l.ctx));
        LLVMValueRef f;
        if (callee instanceof Operand.Name n && l.functions.containsKey(n.name())) {
            f = l.functions.get(n.name());
        } else if (callee instanceof Operand.Name n && l.regs.containsKey(n.name())) {
            f = LLVMBuildIntToPtr(l.b, l.read(i, callee, Type.U64), LLVMPointerTypeInContext(l.ctx, 0), "");
        } else {
            throw new Unsupported(i.line(), "call of " + callee + " is not supported yet");
        }
        if (external) {  // an extern device function: NVIDIA's device runtime
            String impl = l.target.runtimeFunction(name);
            if (impl == null)
                throw new Unsupported(i.line(), "call of the device runtime's " + name + " is not supported yet on " + l.target.name());
            LLVMValueRef g = LLVMGetNamedFunction(l.module, impl);
            f = g != null && !g.isNull() ? g : LLVMAddFunction(l.module, impl, type);
        }
        LLVMValueRef result = LLVMBuildCall2(l.b, type, f, Ll.array(values.toArray(new LLVMValueRef[0])), values.size(), "");
        if (retType != null) LLVMBuildStore(l.b, result, paramPointer(i, rets.get(0)));
    }

    /** The .param variable (or the function's own parameter) a call passes. */
    private Variable paramVariable(Instruction i, Operand o) {
        if (o instanceof Operand.Name n) {
            Var v = l.variable(n.name());
            if (v != null) return v.v();
            if (l.params.containsKey(n.name())) return l.params.get(n.name()).variable();
        }
        throw new Unsupported(i.line(), "call argument " + o + " must be a .param variable");
    }

    private LLVMValueRef paramPointer(Instruction i, Operand o) {
        if (o instanceof Operand.Name n) {
            Var v = l.variable(n.name());
            if (v != null) {
                LLVMValueRef p = l.variablePointer(v, i);
                int want = l.target.addressSpace(StateSpace.PARAM);
                if (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != want) p = LLVMBuildAddrSpaceCast(l.b, p, LLVMPointerTypeInContext(l.ctx, want), "");
                return p;
            }
            if (l.params.containsKey(n.name())) return l.params.get(n.name()).address();
        }
        throw new Unsupported(i.line(), "call argument " + o + " must be a .param variable");
    }

}
