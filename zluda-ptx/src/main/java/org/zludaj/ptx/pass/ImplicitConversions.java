package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;
import org.zludaj.ptx.model.Variable;

/**
 * The ISA's implicit conversions made explicit ("operand size exceeding instruction-type size"): {@code ld}, {@code
 * ldu}, {@code st} and {@code cvt} may name registers wider than the instruction's type. A wider destination is
 * written extended by the instruction type's kind (signed: sign-extended; unsigned and bit types: zero-extended); a
 * wider source is read truncated to the type's size. Each such instruction becomes a block with a temporary register
 * of exactly the instruction's type and an explicit {@code cvt} (integer narrowing or widening), so that after this
 * pass every data register of these instructions has the instruction's size and lowering only reinterprets
 * same-size registers (PTX's bit types). Float instruction types are extended or truncated as their bits; registers
 * narrower than the type, floats wider than a float type and vector elements that are not registers are left to
 * the checker and lowering. Immediates need nothing.
 */
public final class ImplicitConversions implements ModulePass {
    static final String TEMP = "%__ic";

    @Override
    public String name() {
        return "implicit-conversions";
    }

    @Override
    public PtxModule apply(PtxModule m) {
        return ModulePass.rewriteBodies(m, (f, in) -> {
            int[] counter = {0};
            List<Statement> body = body(in, null, counter);
            return counter[0] == 0 ? in : body;
        });
    }

    /**
     * The register types a block sees: its own declarations, then the enclosing blocks' (a chain, not a copy per
     * block: nvcc's kernels nest thousands of small blocks in functions of thousands of registers).
     */
    private record Scope(Map<String, Type> own, Scope outer) {
        Type get(String name) {
            for (Scope s = this; s != null; s = s.outer) {
                Type t = s.own.get(name);
                if (t != null) return t;
            }
            return null;
        }
    }

    private static List<Statement> body(List<Statement> in, Scope outer, int[] counter) {
        Scope regs = new Scope(new HashMap<>(), outer);  // a block's declarations shadow the enclosing ones
        for (Statement s : in) {
            if (s instanceof Statement.Declaration d) {
                for (Variable v : d.variables()) {
                    if (v.space() != StateSpace.REG || v.vectorWidth() != 0 || !v.arrayDims().isEmpty()) continue;
                    if (v.rangeCount() > 0) for (int k = 0; k < v.rangeCount(); k++) regs.own().put(v.name() + k, v.type());
                    else regs.own().put(v.name(), v.type());
                }
            }
        }
        List<Statement> out = new ArrayList<>(in.size());
        for (Statement s : in) {
            if (s instanceof Statement.Block b) out.add(new Statement.Block(body(b.statements(), regs, counter), b.line()));
            else if (s instanceof Instruction i) out.add(rewrite(i, regs, counter));
            else out.add(s);
        }
        return out;
    }

    private static Statement rewrite(Instruction i, Scope regs, int[] counter) {
        List<Type> types = new ArrayList<>();
        for (String mod : i.modifiers()) {
            Type t = Type.of(mod);
            if (t != null) types.add(t);
        }
        String op = i.opcode();
        boolean load = op.equals("ld") || op.equals("ldu"), store = op.equals("st");
        if ((load || store) && types.size() == 1 && scalar(types.get(0))) {
            int at = load ? 0 : 1;
            return widen(i, at, types.get(0), load, regs, counter);
        }
        if (op.equals("cvt") && types.size() == 2 && scalar(types.get(0)) && scalar(types.get(1)) && i.operands().size() == 2) {
            Statement s = widen(i, 1, types.get(1), false, regs, counter);  // the source first
            if (s instanceof Statement.Block b) {
                List<Statement> st = new ArrayList<>(b.statements());
                Instruction inner = (Instruction) st.remove(st.size() - 1);
                Statement d = widen(inner, 0, types.get(0), true, regs, counter);
                if (d instanceof Statement.Block db) {
                    List<Variable> vars = new ArrayList<>(((Statement.Declaration) st.get(0)).variables());
                    vars.addAll(((Statement.Declaration) db.statements().get(0)).variables());
                    st.set(0, new Statement.Declaration(vars, i.line()));
                    st.addAll(db.statements().subList(1, db.statements().size()));
                } else {
                    st.add(d);
                }
                return new Statement.Block(st, i.line());
            }
            return widen(i, 0, types.get(0), true, regs, counter);
        }
        return i;
    }

    private static boolean scalar(Type t) {
        return t.bytes() <= 8 && t != Type.PRED && t.kind() != Type.Kind.OPAQUE && t != Type.F16X2 && t != Type.BF16X2
                && t != Type.F8X2 && t != Type.E4M3X2 && t != Type.E5M2X2;
    }

    /**
     * Operand {@code at} of {@code i} (a register or a vector of them) read ({@code written} false) or written at type
     * {@code t}: registers wider than {@code t} go through temporaries. The instruction itself when none is.
     */
    private static Statement widen(Instruction i, int at, Type t, boolean written, Scope regs, int[] counter) {
        Operand o = i.operands().get(at);
        List<Operand> elements = o instanceof Operand.Vector v ? v.elements() : List.of(o);
        List<Operand> replaced = new ArrayList<>();
        List<Variable> temps = new ArrayList<>();
        List<Statement> before = new ArrayList<>(), after = new ArrayList<>();
        for (Operand e : elements) {
            Type r = e instanceof Operand.Name n && n.component() == null ? regs.get(n.name()) : null;
            if (r == null || r.bytes() <= t.bytes() || r.kind() == Type.Kind.PRED || r.isFloat()) {
                replaced.add(e);
                continue;
            }
            // the temporary has the instruction's type; floats travel as their bits
            Type temp = t.isFloat() ? bits(t) : t;
            String name = TEMP + counter[0]++;
            temps.add(new Variable(StateSpace.REG, temp, 0, 0, name, 0, List.of(), null, List.of(), i.line()));
            Operand.Name tn = new Operand.Name(name, null);
            replaced.add(tn);
            if (written) {  // extend into the register: by the instruction type's kind
                Type from = t.isSigned() ? t : unsigned(temp), to = t.isSigned() ? signed(r) : unsigned(r);
                after.add(new Instruction(null, "cvt", List.of(to.modifier(), from.modifier()), List.of(e, tn), i.line(), i.column()));
            } else {  // truncate the register to the instruction's size
                before.add(new Instruction(null, "cvt", List.of(unsigned(temp).modifier(), unsigned(r).modifier()), List.of(tn, e),
                        i.line(), i.column()));
            }
        }
        if (temps.isEmpty()) return i;
        List<Operand> ops = new ArrayList<>(i.operands());
        ops.set(at, o instanceof Operand.Vector ? new Operand.Vector(replaced) : replaced.get(0));
        List<Statement> block = new ArrayList<>();
        block.add(new Statement.Declaration(temps, i.line()));
        block.addAll(before);
        block.add(new Instruction(i.guard(), i.opcode(), i.modifiers(), ops, i.line(), i.column()));
        block.addAll(after);
        if (i.guard() != null) throw new IllegalStateException("guarded instruction after predicates-to-branches");
        return new Statement.Block(block, i.line());
    }

    /** The type of kind {@code kind} with {@code t}'s size: bits, unsigned or signed. */
    private static Type sized(Type.Kind kind, Type t) {
        for (Type x : Type.values()) if (x.kind() == kind && x.bytes() == t.bytes()) return x;
        throw new IllegalArgumentException(kind + " of " + t.bytes() + " bytes");
    }

    private static Type bits(Type t) {
        return sized(Type.Kind.BITS, t);
    }

    private static Type unsigned(Type t) {
        return sized(Type.Kind.UNSIGNED, t);
    }

    private static Type signed(Type t) {
        return sized(Type.Kind.SIGNED, t);
    }
}
