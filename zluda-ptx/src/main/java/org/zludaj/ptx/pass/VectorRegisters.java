package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Block;
import org.zludaj.ptx.model.Statement.Declaration;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Variable;

/**
 * Vector-typed registers ({@code .reg .v2 .f32 %w;}, {@code .reg .v4 .u32 %v<2>;}) as the scalar registers they
 * hold: each element becomes a register of its own ({@code %v$x .. %v$w}), an element access ({@code %v.x},
 * {@code %v.g}: PTX names elements x y z w or r g b a) becomes that register, and a whole vector used as an operand
 * (ld/st/mov of a vector, mma fragments) becomes the vector operand of its elements ({@code {%v$x, %v$y, ...}}),
 * which every later stage already handles. Runs after {@link ScopedNames}, so a name means one register in a function.
 */
public final class VectorRegisters implements ModulePass {
    private static final String ELEMENTS = "xyzw", COLORS = "rgba";

    @Override
    public String name() {
        return "vector-registers";
    }

    @Override
    public PtxModule apply(PtxModule m) {
        return ModulePass.rewriteBodies(m, (f, body) -> {
            Map<String, Integer> vectors = new HashMap<>();
            collect(body, vectors);
            if (vectors.isEmpty()) return body;
            List<Variable> temps = new ArrayList<>();
            List<Statement> out = statements(body, vectors, temps);
            if (!temps.isEmpty()) out.add(0, new Declaration(temps, out.isEmpty() ? 0 : out.get(0).line()));
            return out;
        });
    }

    private static void collect(List<Statement> body, Map<String, Integer> vectors) {
        for (Statement s : body) {
            if (s instanceof Declaration d) {
                for (Variable v : d.variables()) {
                    if (!vector(v)) continue;
                    if (v.rangeCount() > 0) for (int i = 0; i < v.rangeCount(); i++) vectors.put(v.name() + i, v.vectorWidth());
                    else vectors.put(v.name(), v.vectorWidth());
                }
            } else if (s instanceof Block b) {
                collect(b.statements(), vectors);
            }
        }
    }

    private static List<Statement> statements(List<Statement> in, Map<String, Integer> vectors, List<Variable> temps) {
        List<Statement> out = new ArrayList<>(in.size());
        for (Statement s : in) {
            if (s instanceof Declaration d) {
                List<Variable> vs = new ArrayList<>();
                for (Variable v : d.variables()) {
                    if (!vector(v)) {
                        vs.add(v);
                        continue;
                    }
                    List<String> names = new ArrayList<>();
                    if (v.rangeCount() > 0) for (int i = 0; i < v.rangeCount(); i++) names.add(v.name() + i);
                    else names.add(v.name());
                    for (String n : names)
                        for (int e = 0; e < v.vectorWidth(); e++)
                            vs.add(new Variable(v.space(), v.type(), 0, v.align(), element(n, e), 0, List.of(), null, v.attributes(), v.line()));
                }
                out.add(new Declaration(vs, d.line()));
            } else if (s instanceof Block b) {
                out.add(new Block(statements(b.statements(), vectors, temps), b.line()));
            } else if (s instanceof Instruction i) {
                Instruction r = instruction(i, vectors);
                if (r.opcode().equals("mov") && r.operands().size() == 2 && r.operands().get(0) instanceof Operand.Vector d
                        && r.operands().get(1) instanceof Operand.Vector src && d.elements().size() == src.elements().size()) {
                    out.addAll(elementwise(r, d.elements(), src.elements(), temps));
                } else {
                    out.add(r);
                }
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * {@code mov.vN.T {d..}, {s..}} (a vector register copied or built whole) as N scalar moves; through temporaries
     * where a destination element is also a source ({@code mov.v4.u32 %v, {%v.w, %v.z, %v.y, %v.x}}).
     */
    private static List<Statement> elementwise(Instruction i, List<Operand> dst, List<Operand> src, List<Variable> temps) {
        List<String> mods = i.modifiers().stream().filter(m -> !m.matches("\\.v[248]")).toList();
        org.zludaj.ptx.model.Type t = null;
        for (String m : mods) if (org.zludaj.ptx.model.Type.of(m) != null) t = org.zludaj.ptx.model.Type.of(m);
        java.util.Set<String> written = new java.util.HashSet<>();
        for (Operand d : dst) if (d instanceof Operand.Name n) written.add(n.name());
        boolean overlap = false;
        for (Operand o : src) overlap |= o instanceof Operand.Name n && written.contains(n.name());
        List<Statement> out = new ArrayList<>();
        List<Operand> from = src;
        if (overlap) {
            if (t == null) return List.of(i);
            from = new ArrayList<>();
            for (int k = 0; k < src.size(); k++) {
                String name = "$vmov" + temps.size();
                temps.add(new Variable(StateSpace.REG, t, 0, 0, name, 0, List.of(), null, List.of(), i.line()));
                out.add(new Instruction(null, "mov", mods, List.of(new Operand.Name(name, null), src.get(k)), i.line(), i.column()));
                from.add(new Operand.Name(name, null));
            }
        }
        for (int k = 0; k < dst.size(); k++) {
            if (dst.get(k) instanceof Operand.Sink) continue;
            out.add(new Instruction(i.guard(), "mov", mods, List.of(dst.get(k), from.get(k)), i.line(), i.column()));
        }
        return out;
    }

    /** A vector register this pass splits (an array of them is left for lowering to refuse). */
    private static boolean vector(Variable v) {
        return v.space() == StateSpace.REG && v.vectorWidth() > 1 && v.arrayDims().isEmpty();
    }

    /** The register holding element {@code e} of vector register {@code name}. */
    static String element(String name, int e) {
        return name + "$" + ELEMENTS.charAt(e);
    }

    private static Instruction instruction(Instruction i, Map<String, Integer> vectors) {
        List<Operand> ops = new ArrayList<>(i.operands().size());
        boolean changed = false;
        for (Operand o : i.operands()) {
            Operand r = operand(o, vectors, i);
            changed |= r != o;
            ops.add(r);
        }
        return changed ? new Instruction(i.guard(), i.opcode(), i.modifiers(), ops, i.line(), i.column()) : i;
    }

    private static Operand operand(Operand o, Map<String, Integer> vectors, Instruction i) {
        if (o instanceof Operand.Name n) {
            Integer width = vectors.get(n.name());
            if (width == null) return n;
            if (n.component() == null) {
                List<Operand> elements = new ArrayList<>(width);
                for (int e = 0; e < width; e++) elements.add(new Operand.Name(element(n.name(), e), null));
                return new Operand.Vector(elements);
            }
            String c = n.component().substring(1);
            int e = c.length() == 1 ? Math.max(ELEMENTS.indexOf(c), COLORS.indexOf(c)) : -1;
            if (e < 0 || e >= width) return n;  // not an element: lowering reports the operand with its line
            return new Operand.Name(element(n.name(), e), null);
        }
        if (o instanceof Operand.Vector v) return rebuild(v.elements(), vectors, i, Operand.Vector::new, v);
        if (o instanceof Operand.Bracket b) return rebuild(b.elements(), vectors, i, Operand.Bracket::new, b);
        if (o instanceof Operand.Tuple t) return rebuild(t.elements(), vectors, i, Operand.Tuple::new, t);
        if (o instanceof Operand.Address a && a.base() != null && vectors.containsKey(a.base().name())) {
            Operand base = operand(a.base(), vectors, i);
            return base instanceof Operand.Name bn ? new Operand.Address(bn, a.offset()) : a;
        }
        if (o instanceof Operand.Not n) {
            Operand x = operand(n.operand(), vectors, i);
            return x == n.operand() ? n : new Operand.Not(x);
        }
        if (o instanceof Operand.Neg n) {
            Operand x = operand(n.operand(), vectors, i);
            return x == n.operand() ? n : new Operand.Neg(x);
        }
        return o;
    }

    private static Operand rebuild(List<Operand> elements, Map<String, Integer> vectors, Instruction i,
                                   java.util.function.Function<List<Operand>, Operand> make, Operand same) {
        List<Operand> out = new ArrayList<>(elements.size());
        boolean changed = false;
        for (Operand e : elements) {
            Operand r = operand(e, vectors, i);
            changed |= r != e;
            out.add(r);
        }
        return changed ? make.apply(out) : same;
    }
}
