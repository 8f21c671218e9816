package org.zludaj.ptx;

import java.util.ArrayList;
import java.util.List;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Variable;

/** Model to PTX text. Parsing the output gives the same model again (up to source positions). */
public final class PtxPrinter {
    private PtxPrinter() {}

    public static String print(PtxModule m) {
        StringBuilder s = new StringBuilder();
        if (m.version() != null) s.append(".version ").append(m.version()).append('\n');
        if (!m.targets().isEmpty()) s.append(".target ").append(String.join(", ", m.targets())).append('\n');
        s.append(".address_size ").append(m.addressSize()).append("\n\n");
        for (Variable v : m.globals()) s.append(variable(v)).append(";\n");
        for (Function f : m.functions()) function(s, f);
        return s.toString();
    }

    static void function(StringBuilder s, Function f) {
        s.append('\n');
        for (String a : f.attributes()) s.append(a).append(' ');
        s.append(f.entry() ? ".entry " : ".func ");
        if (!f.returns().isEmpty()) s.append('(').append(params(f.returns())).append(") ");
        s.append(f.name());
        if (!f.params().isEmpty() || f.entry()) s.append("(\n\t").append(params(f.params()).replace(", ", ",\n\t")).append("\n)");
        for (String d : f.directives()) s.append('\n').append(d);
        if (f.body() == null) {
            s.append(";\n");
            return;
        }
        s.append("\n{\n");
        statements(s, f.body(), "\t");
        s.append("}\n");
    }

    private static String params(List<Variable> ps) {
        List<String> out = new ArrayList<>();
        for (Variable p : ps) out.add(variable(p));
        return String.join(", ", out);
    }

    /** One variable declaration without the trailing ';'. */
    public static String variable(Variable v) {
        return declaration(v, List.of(declarator(v)));
    }

    private static String declaration(Variable v, List<String> declarators) {
        StringBuilder s = new StringBuilder();
        int ptr = v.attributes().indexOf(".ptr");
        List<String> before = ptr < 0 ? v.attributes() : v.attributes().subList(0, ptr);
        List<String> after = ptr < 0 ? List.of() : v.attributes().subList(ptr, v.attributes().size());
        for (String a : before) s.append(a).append(' ');
        s.append('.').append(v.space().name().toLowerCase(java.util.Locale.ROOT));
        if (v.align() > 0) s.append(" .align ").append(v.align());
        if (v.vectorWidth() > 0) s.append(" .v").append(v.vectorWidth());
        s.append(' ').append(v.type().modifier());
        for (String a : after) s.append(' ').append(a);
        s.append(' ').append(String.join(", ", declarators));
        return s.toString();
    }

    private static String declarator(Variable v) {
        StringBuilder s = new StringBuilder(v.name());
        if (v.rangeCount() > 0) s.append('<').append(v.rangeCount()).append('>');
        for (long d : v.arrayDims()) s.append('[').append(d < 0 ? "" : Long.toString(d)).append(']');
        if (v.initializer() != null) s.append(" = ").append(operand(v.initializer()));
        return s.toString();
    }

    static void statements(StringBuilder s, List<Statement> body, String indent) {
        for (Statement st : body) {
            if (st instanceof Statement.Instruction i) {
                s.append(indent);
                if (i.guard() != null) s.append('@').append(i.guard().negated() ? "!" : "").append(i.guard().predicate()).append(' ');
                s.append(i.opcode());
                for (String m : i.modifiers()) s.append(m);
                for (int k = 0; k < i.operands().size(); k++) s.append(k == 0 ? " " : ", ").append(operand(i.operands().get(k)));
                s.append(";\n");
            } else if (st instanceof Statement.Label l) {
                s.append(l.name()).append(":\n");
            } else if (st instanceof Statement.Declaration d) {
                if (d.variables().isEmpty()) continue;
                List<String> names = new ArrayList<>();
                for (Variable v : d.variables()) names.add(declarator(v));
                s.append(indent).append(declaration(d.variables().get(0), names)).append(";\n");
            } else if (st instanceof Statement.Block b) {
                s.append(indent).append("{\n");
                statements(s, b.statements(), indent + "\t");
                s.append(indent).append("}\n");
            } else if (st instanceof Statement.Pragma p) {
                s.append(indent).append(".pragma ").append(String.join(", ", p.values())).append(";\n");
            } else if (st instanceof Statement.Directive d) {
                s.append(indent).append(d.text()).append(";\n");
            }
        }
    }

    public static String operand(Operand o) {
        if (o instanceof Operand.Name n) return n.component() == null ? n.name() : n.name() + n.component();
        if (o instanceof Operand.IntImm i) return Long.toString(i.value());
        if (o instanceof Operand.FloatImm f) {
            if (f.width() == 32) return String.format("0f%08X", f.bits());
            if (f.width() == 64) return String.format("0d%016X", f.bits());
            return Double.toString(f.value());
        }
        if (o instanceof Operand.Address a) {
            if (a.base() == null) return "[" + a.offset() + "]";
            return "[" + operand(a.base()) + (a.offset() == 0 ? "" : "+" + a.offset()) + "]";
        }
        if (o instanceof Operand.Bracket b) return "[" + list(b.elements()) + "]";
        if (o instanceof Operand.Vector v) return "{" + list(v.elements()) + "}";
        if (o instanceof Operand.Aggregate a) return "{" + list(a.elements()) + "}";
        if (o instanceof Operand.Tuple t) return "(" + list(t.elements()) + ")";
        if (o instanceof Operand.Pair p) return operand(p.first()) + "|" + operand(p.second());
        if (o instanceof Operand.Not n) return "!" + atom(n.operand());
        if (o instanceof Operand.Neg n) return "-" + atom(n.operand());
        if (o instanceof Operand.Call c) return c.function() + "(" + operand(c.argument()) + ")";
        if (o instanceof Operand.Sum s) return operand(s.left()) + (s.subtract() ? "-" : "+") + atom(s.right());
        return "_";
    }

    private static String atom(Operand o) {
        return o instanceof Operand.Sum || o instanceof Operand.Neg ? "(" + operand(o) + ")" : operand(o);
    }

    private static String list(List<Operand> os) {
        List<String> out = new ArrayList<>();
        for (Operand o : os) out.add(operand(o));
        return String.join(", ", out);
    }
}
