package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Type;
import org.zludaj.ptx.model.Variable;

/**
 * The variables of a module being lowered (and the .shared/.global/.const ones declared inside functions): their
 * storage as LLVM globals (or host shared-memory offsets, or slots for variables another code object defines) and
 * their initializers.
 */
final class ModuleVariables {
    private final Lowering l;
    /** Every variable with storage, by name (a function's own as "function$name"). */
    final Map<String, Lowering.Var> globals = new HashMap<>();
    /** Host: the static shared memory of the variables so far. */
    long sharedSize;
    /** NVPTX units whose .const variables live in another module: their const accesses are generic ones. */
    boolean constViaGeneric;

    ModuleVariables(Lowering l) {
        this.l = l;
    }

    LLVMTypeRef storageType(Variable v) {
        long count = Math.max(1, v.vectorWidth());
        for (long d : v.arrayDims()) count *= Math.max(0, d);
        LLVMTypeRef elem = v.type() == Type.PRED ? LLVMInt8TypeInContext(l.ctx) : l.llvmType(v.type());
        return LLVMArrayType2(elem, count);
    }

    static int alignment(Variable v) {
        return v.align() > 0 ? v.align() : (int) Math.max(1, v.type().bytes());
    }

    void declareGlobal(Variable v, String name) {
        if (v.space() == StateSpace.SHARED) {
            boolean dynamic = v.attributes().contains(".extern") || v.arrayDims().contains(-1L);
            if (l.target.hostSharedMemory()) {
                if (dynamic) {
                    globals.put(name, new Lowering.Var(v, null, -1));
                } else {
                    long a = alignment(v);
                    sharedSize = (sharedSize + a - 1) / a * a;
                    globals.put(name, new Lowering.Var(v, null, sharedSize));
                    sharedSize += v.size();
                }
                return;
            }
            LLVMTypeRef t = dynamic ? LLVMArrayType2(l.llvmType(v.type() == Type.PRED ? Type.U8 : v.type()), 0) : storageType(v);
            LLVMValueRef g = LLVMAddGlobalInAddressSpace(l.module, t, l.target.kernelSymbol(name, l.symbolPrefix()), l.target.addressSpace(StateSpace.SHARED));
            if (dynamic) LLVMSetLinkage(g, LLVMExternalLinkage);
            else {
                LLVMSetInitializer(g, LLVMGetUndef(t));
                LLVMSetLinkage(g, LLVMInternalLinkage);
            }
            LLVMSetAlignment(g, Math.max(alignment(v), dynamic ? 16 : 1));
            globals.put(name, new Lowering.Var(v, g, 0));
            return;
        }
        if (v.space() != StateSpace.GLOBAL && v.space() != StateSpace.CONST)
            throw new Lowering.Unsupported(v.line(), "module-scope ." + v.space().name().toLowerCase() + " variable " + v.name() + " is not supported yet");
        LLVMTypeRef t = storageType(v);
        if (v.attributes().contains(".extern") && l.target.variablesThroughSlots()) {
            // defined by the module's variables unit, another code object: reached through a slot the driver fills
            LLVMTypeRef i64 = LLVMInt64TypeInContext(l.ctx);
            LLVMValueRef slot = LLVMAddGlobalInAddressSpace(l.module, i64, l.target.symbol(Lowering.SLOT_PREFIX + name), l.target.addressSpace(StateSpace.GLOBAL));
            LLVMSetInitializer(slot, LLVMConstInt(i64, 0, 0));
            LLVMSetAlignment(slot, 8);
            if (v.space() == StateSpace.CONST && l.target.constantBankSeparate()) constViaGeneric = true;
            globals.put(name, new Lowering.Var(v, null, 0, slot));
            return;
        }
        LLVMValueRef g = LLVMAddGlobalInAddressSpace(l.module, t, l.target.kernelSymbol(name, l.symbolPrefix()), l.target.addressSpace(v.space()));
        LLVMSetAlignment(g, alignment(v));
        if (v.attributes().contains(".extern")) LLVMSetLinkage(g, LLVMExternalLinkage);
        else LLVMSetInitializer(g, LLVMConstNull(t));
        globals.put(name, new Lowering.Var(v, g, 0));
    }

    /** Initializers: integers, floats, and addresses of variables and functions, flattened into the element array. */
    void initialize(Variable v, String name) {
        if (v.initializer() == null || v.space() == StateSpace.SHARED) return;
        Lowering.Var var = globals.get(name);
        LLVMTypeRef arrayType = storageType(v);
        LLVMTypeRef elem = LLVMGetElementType(arrayType);
        long count = LLVMGetArrayLength2(arrayType);
        List<Operand> flat = new ArrayList<>();
        flatten(v.initializer(), flat);
        LLVMValueRef[] items = new LLVMValueRef[(int) count];
        for (int k = 0; k < count; k++) items[k] = k < flat.size() ? constant(v, flat.get(k), elem) : LLVMConstNull(elem);
        LLVMSetInitializer(var.pointer(), LLVMConstArray2(elem, Ll.array(items), count));
    }

    /** Whether LLVMConstReal may be given this type (LLVM crashes the process on any other). */
    static boolean realType(LLVMTypeRef t) {
        int k = LLVMGetTypeKind(t);
        return k == LLVMHalfTypeKind || k == LLVMBFloatTypeKind || k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind;
    }

    private static void flatten(Operand o, List<Operand> out) {
        if (o instanceof Operand.Aggregate a) for (Operand e : a.elements()) flatten(e, out);
        else out.add(o);
    }

    private LLVMValueRef constant(Variable v, Operand o, LLVMTypeRef elem) {
        if (o instanceof Operand.IntImm i) {
            if (LLVMGetTypeKind(elem) == LLVMIntegerTypeKind) return LLVMConstInt(elem, i.value(), 1);
            if (!realType(elem)) throw new Lowering.Unsupported(v.line(), "initializer " + i.value() + " of " + v.name() + " is not supported yet");
            return LLVMConstReal(elem, i.value());
        }
        if (o instanceof Operand.FloatImm f) {
            if (LLVMGetTypeKind(elem) == LLVMIntegerTypeKind) return LLVMConstInt(elem, f.width() != 0 ? f.bits() : (long) f.value(), 0);
            if (f.width() == 32 && LLVMGetTypeKind(elem) == LLVMFloatTypeKind) return LLVMConstBitCast(LLVMConstInt(LLVMInt32TypeInContext(l.ctx), f.bits(), 0), elem);
            if (f.width() == 64 && LLVMGetTypeKind(elem) == LLVMDoubleTypeKind) return LLVMConstBitCast(LLVMConstInt(LLVMInt64TypeInContext(l.ctx), f.bits(), 0), elem);
            if (!realType(elem)) throw new Lowering.Unsupported(v.line(), "initializer " + f.value() + " of " + v.name() + " is not supported yet");
            return LLVMConstReal(elem, f.value());
        }
        if (o instanceof Operand.Call c && c.function().equals("generic")) return constant(v, c.argument(), elem);
        if (o instanceof Operand.Sum sum && sum.right() instanceof Operand.IntImm off) {
            LLVMValueRef base = constant(v, sum.left(), elem);
            return LLVMConstAdd(base, LLVMConstInt(elem, sum.subtract() ? -off.value() : off.value(), 1));
        }
        if (o instanceof Operand.Name n) {
            LLVMValueRef target;
            if (l.functions.containsKey(n.name())) target = l.functions.get(n.name());
            else if (globals.containsKey(n.name()) && globals.get(n.name()).pointer() != null) target = globals.get(n.name()).pointer();
            else throw new Lowering.Unsupported(v.line(), "initializer of " + v.name() + ": address of " + n.name() + " is not supported yet");
            if (LLVMGetTypeKind(elem) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(elem) < 32)
                throw new Lowering.Unsupported(v.line(), "initializer of " + v.name() + ": an address needs a 32- or 64-bit element");
            LLVMValueRef generic = LLVMGetPointerAddressSpace(LLVMTypeOf(target)) == 0 ? target
                    : LLVMConstAddrSpaceCast(target, LLVMPointerTypeInContext(l.ctx, 0));
            return LLVMConstPtrToInt(generic, elem);
        }
        throw new Lowering.Unsupported(v.line(), "initializer of " + v.name() + " is not supported yet: " + o);
    }
}
