package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;
import org.zludaj.ptx.model.Variable;

/**
 * Vector and immediate operands: the vector operands of {@code ld}, {@code ldu}, {@code st} ({@code .v2/.v4/.v8})
 * and of {@code mov}'s packs become lists of distinct registers. An immediate element ({@code st.v4 [a], {%f1, 0f00000000,
 * ...}}) is moved into a temporary of the instruction's type first, an ignored element ({@code _}) of a load gets
 * a temporary nobody reads, and a register named twice in a load's destination keeps its first place and gets
 * temporaries for the others, copied to it after the load (so the last element wins, as when elements are written
 * in order). Lowering then moves a whole vector with one access of
 * the vector's size and alignment.
 */
public final class ExpandVectorOperands implements ModulePass {
    static final String TEMP = "%__vx";

    @Override
    public String name() {
        return "expand-vector-operands";
    }

    @Override
    public PtxModule apply(PtxModule m) {
        return ModulePass.rewriteInstructions(m, (i, counter) -> {
            Statement s = rewrite(i, counter);
            return s == i ? null : List.of(s);
        });
    }

    private static Type type(Instruction i) {
        for (int k = i.modifiers().size() - 1; k >= 0; k--) {
            Type t = Type.of(i.modifiers().get(k));
            if (t != null) return t;
        }
        return null;
    }

    private static Statement rewrite(Instruction i, int[] counter) {
        String op = i.opcode();
        Type t = type(i);
        if (t == null || i.operands().size() < 2) return i;
        boolean load = op.equals("ld") || op.equals("ldu");
        int at;
        if (load) at = 0;
        else if (op.equals("st")) at = 1;
        else if (op.equals("mov") && i.operands().get(1) instanceof Operand.Vector) at = 1;  // pack: the sources
        else return i;
        if (!(i.operands().get(at) instanceof Operand.Vector v)) return i;
        Type element = t;
        if (op.equals("mov")) {  // mov.bN d, {a, b, ...}: elements of N / count bits
            element = switch (t.bits() / v.elements().size()) {
                case 8 -> Type.B8;
                case 16 -> Type.B16;
                case 32 -> Type.B32;
                case 64 -> Type.B64;
                default -> null;
            };
            if (element == null) return i;
        }
        List<Variable> temps = new ArrayList<>();
        List<Statement> before = new ArrayList<>(), after = new ArrayList<>();
        List<Operand> elements = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Operand e : v.elements()) {
            boolean replace;
            if (load) replace = e instanceof Operand.Sink || e instanceof Operand.Name n && !seen.add(n.name());
            else replace = e instanceof Operand.IntImm || e instanceof Operand.FloatImm || (!op.equals("mov") && e instanceof Operand.Sink);
            if (!replace) {
                elements.add(e);
                continue;
            }
            String name = TEMP + counter[0]++;
            temps.add(new Variable(StateSpace.REG, element, 0, 0, name, 0, List.of(), null, List.of(), i.line()));
            Operand.Name tn = new Operand.Name(name, null);
            elements.add(tn);
            if (load && e instanceof Operand.Name n) {
                after.add(new Instruction(null, "mov", List.of(element.modifier()), List.of(n, tn), i.line(), i.column()));
            } else if (!load) {
                Operand value = e instanceof Operand.Sink ? new Operand.IntImm(0) : e;
                before.add(new Instruction(null, "mov", List.of(element.modifier()), List.of(tn, value), i.line(), i.column()));
            }
        }
        if (temps.isEmpty()) return i;
        List<Operand> ops = new ArrayList<>(i.operands());
        ops.set(at, new Operand.Vector(elements));
        List<Statement> block = new ArrayList<>();
        block.add(new Statement.Declaration(temps, i.line()));
        block.addAll(before);
        block.add(new Instruction(i.guard(), i.opcode(), i.modifiers(), ops, i.line(), i.column()));
        block.addAll(after);
        return new Statement.Block(block, i.line());
    }
}
