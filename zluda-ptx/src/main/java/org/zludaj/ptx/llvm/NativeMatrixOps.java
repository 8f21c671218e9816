package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.llvm.LLVM.LLVMTypeRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;

/** The matrix family on NVPTX (targets with {@code nativeMatrix}): NVIDIA's own instructions, passed through. */
final class NativeMatrixOps {
    private final Lowering l;

    NativeMatrixOps(Lowering l) {
        this.l = l;
    }

    /**
     * NVPTX: the instruction itself as inline PTX, its operands bound to registers ("h" 16-bit, "r" 32-bit, "l"
     * 64-bit, "f" f32, "d" f64; predicates through a local .pred), addresses as 32-bit shared or 64-bit pointers.
     */
    void lower(Instruction i) {
        boolean output = switch (i.opcode()) {
            case "mma", "ldmatrix", "movmatrix" -> true;
            case "wmma" -> !i.has(".store");
            case "mbarrier" -> !i.has(".init") && !i.has(".inval") && !(i.operands().get(0) instanceof Operand.Address);
            default -> false;
        };
        List<Operand> o = i.operands();
        StringBuilder text = new StringBuilder(), constraints = new StringBuilder(), predicates = new StringBuilder();
        List<LLVMValueRef> args = new ArrayList<>();
        List<LLVMTypeRef> outTypes = new ArrayList<>();
        List<Operand> outRegs = new ArrayList<>();
        List<Type> outPtx = new ArrayList<>();
        int next = 0;
        StringBuilder after = new StringBuilder();
        List<String> outNames = new ArrayList<>();
        if (output) {
            for (Operand e : MatrixOps.elements(o.get(0))) {
                if (e instanceof Operand.Sink) {  // "_": a local register of the right width takes it
                    outNames.add("%zls");
                    predicates.append(".reg .b64 %zls; ");
                    continue;
                }
                boolean pred = l.isPredicate(e);
                Type t = pred ? Type.B32 : asmType(i, e);
                outRegs.add(e);
                outPtx.add(pred ? Type.PRED : t);
                outTypes.add(l.llvmType(t));
                constraints.append(constraints.length() > 0 ? "," : "").append('=').append(constraint(t));
                if (pred) {  // PTX predicates cannot be asm operands: a local .pred, copied out as 0/1
                    String name = "%zlq" + next;
                    predicates.append(".reg .pred ").append(name).append("; ");
                    after.append(" selp.u32 $").append(next).append(", 1, 0, ").append(name).append(';');
                    outNames.add(name);
                } else {
                    outNames.add("$" + next);
                }
                next++;
            }
        }
        text.append(i.opcode()).append(String.join("", i.modifiers())).append(' ');
        int outIndex = 0;
        int predicateCount = 0;
        for (int k = 0; k < o.size(); k++) {
            if (k > 0) text.append(", ");
            Operand op = o.get(k);
            if (k == 0 && output) {
                text.append(o.get(0) instanceof Operand.Vector ? "{" + String.join(", ", outNames) + "}" : outNames.get(0));
                continue;
            }
            if (op instanceof Operand.Address a) {
                StateSpace space = i.opcode().equals("cp") && !i.has(".mbarrier") ? (k == 0 ? StateSpace.SHARED : StateSpace.GLOBAL)
                        : i.opcode().equals("mbarrier") && l.space(i) == StateSpace.GENERIC ? StateSpace.GENERIC : l.space(i);
                LLVMValueRef p = l.address(i, a, space);
                boolean narrow = space == StateSpace.SHARED;
                args.add(LLVMBuildPtrToInt(l.b, p, narrow ? LLVMInt32TypeInContext(l.ctx) : LLVMInt64TypeInContext(l.ctx), ""));
                constraints.append(constraints.length() > 0 ? "," : "").append(narrow ? "r" : "l");
                text.append("[$").append(next++).append(']');
            } else if (op instanceof Operand.IntImm imm) {
                text.append(imm.value());
            } else if (op instanceof Operand.Vector vec) {
                text.append('{');
                for (int e = 0; e < vec.elements().size(); e++) {
                    if (e > 0) text.append(", ");
                    if (vec.elements().get(e) instanceof Operand.IntImm imm) {  // ptxas takes constants in fragments
                        text.append(imm.value());
                        continue;
                    }
                    if (vec.elements().get(e) instanceof Operand.FloatImm f) {
                        text.append(f.width() == 32 ? String.format("0f%08X", f.bits())
                                : String.format("0d%016X", f.width() == 64 ? f.bits() : Double.doubleToRawLongBits(f.value())));
                        continue;
                    }
                    Type t = asmType(i, vec.elements().get(e));
                    args.add(l.read(i, vec.elements().get(e), t));
                    constraints.append(constraints.length() > 0 ? "," : "").append(constraint(t));
                    text.append('$').append(next++);
                }
                text.append('}');
            } else if (l.isPredicate(op)) {
                String name = "%zlp" + predicateCount++;
                predicates.append(".reg .pred ").append(name).append("; setp.ne.b32 ").append(name).append(", $").append(next).append(", 0; ");
                args.add(LLVMBuildZExt(l.b, l.read(i, op, Type.PRED), LLVMInt32TypeInContext(l.ctx), ""));
                constraints.append(constraints.length() > 0 ? "," : "").append('r');
                next++;
                text.append(name);
            } else {
                Type t = asmType(i, op);
                args.add(l.read(i, op, t));
                constraints.append(constraints.length() > 0 ? "," : "").append(constraint(t));
                text.append('$').append(next++);
            }
        }
        text.append(';').append(after);
        String body = predicates.length() > 0 ? "{ " + predicates + text + " }" : text.toString();
        LLVMTypeRef ret = outTypes.isEmpty() ? LLVMVoidTypeInContext(l.ctx) : outTypes.size() == 1 ? outTypes.get(0)
                : LLVMStructTypeInContext(l.ctx, Ll.array(outTypes.toArray(new LLVMTypeRef[0])), outTypes.size(), 0);
        LLVMValueRef r = Ll.asm(l.b, ret, body, constraints.toString(), args.toArray(new LLVMValueRef[0]));
        for (int e = 0; e < outRegs.size(); e++) {
            LLVMValueRef v = outRegs.size() == 1 ? r : LLVMBuildExtractValue(l.b, r, e, "");
            if (outPtx.get(e) == Type.PRED) v = LLVMBuildICmp(l.b, LLVMIntNE, v, LLVMConstInt(LLVMInt32TypeInContext(l.ctx), 0, 0), "");
            l.write(i, outRegs.get(e), v, outPtx.get(e));
        }
    }

    /** The type a register operand is bound as in inline PTX: its declared type, 16-bit floats as bits. */
    private Type asmType(Instruction i, Operand o) {
        Type t = l.registerType(i, o);
        return switch (t) {
            case F16, BF16, U16, S16 -> Type.B16;
            case F16X2, BF16X2, U32, S32 -> Type.B32;
            case U64, S64 -> Type.B64;
            default -> t;
        };
    }

    private static char constraint(Type t) {
        return switch (t) {
            case B16 -> 'h';
            case B64 -> 'l';
            case F32 -> 'f';
            case F64 -> 'd';
            default -> 'r';
        };
    }
}
