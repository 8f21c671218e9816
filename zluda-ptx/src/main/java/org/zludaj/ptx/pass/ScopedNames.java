package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Block;
import org.zludaj.ptx.model.Statement.Declaration;
import org.zludaj.ptx.model.Statement.Guard;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Variable;

/**
 * PTX's block scoping made explicit: a variable declared in a nested {@code { }} block hides a variable of the same
 * name declared outside it (the function's registers and parameters, an enclosing block), and sibling blocks may each
 * declare the same name with different types ({@code .param .b64 param0} in one call block, {@code .param .b32 param0}
 * in the next). Later passes and lowering keep one variable per name in a function, so every declaration in a block
 * whose name was declared before anywhere in the function is renamed ({@code name$sN}, {@code $} being a PTX
 * identifier character nvcc never emits there) together with the uses the block's scope resolves to it; a range
 * {@code %r<4>} is renamed as a whole ({@code %r$sN_0 ..}). nvcc's inline-assembly wrappers write such blocks (CUB's
 * {@code __syncthreads_and} declares {@code .reg .pred %p1} inside a kernel whose own {@code %p1} is live across it).
 */
public final class ScopedNames implements ModulePass {
    @Override
    public String name() {
        return "scoped-names";
    }

    @Override
    public PtxModule apply(PtxModule m) {
        return ModulePass.rewriteBodies(m, (f, body) -> {
            Set<String> seen = new HashSet<>();
            for (Variable v : f.params()) seen.add(v.name());
            for (Variable v : f.returns()) seen.add(v.name());
            int[] counter = {0};
            boolean[] changed = {false};
            List<Statement> out = statements(body, Map.of(), seen, counter, changed, true);
            return changed[0] ? out : body;
        });
    }

    /** The names a variable declares: its own, or name0 .. name(n-1) for a range. */
    private static List<String> names(Variable v) {
        if (v.rangeCount() <= 0) return List.of(v.name());
        List<String> out = new ArrayList<>(v.rangeCount());
        for (int i = 0; i < v.rangeCount(); i++) out.add(v.name() + i);
        return out;
    }

    /**
     * One scope's statements: its declarations first (a name declared anywhere in a block is the block's for all of
     * it), renamed where they collide with an earlier one when {@code top} is false; then each statement with the
     * scope's renames applied, blocks recursively.
     */
    private static List<Statement> statements(List<Statement> in, Map<String, String> outer, Set<String> seen, int[] counter,
                                              boolean[] changed, boolean top) {
        Map<String, String> scope = new HashMap<>(outer);
        Map<Variable, Variable> renamedVars = new HashMap<>();
        for (Statement s : in) {
            if (!(s instanceof Declaration d)) continue;
            for (Variable v : d.variables()) {
                List<String> declared = names(v);
                boolean collides = !top && declared.stream().anyMatch(seen::contains);
                if (collides) {
                    String base = v.name() + "$s" + counter[0]++ + (v.rangeCount() > 0 ? "_" : "");
                    Variable r = new Variable(v.space(), v.type(), v.vectorWidth(), v.align(), base, v.rangeCount(), v.arrayDims(),
                            v.initializer(), v.attributes(), v.line());
                    renamedVars.put(v, r);
                    List<String> now = names(r);
                    for (int i = 0; i < declared.size(); i++) {
                        scope.put(declared.get(i), now.get(i));
                        seen.add(now.get(i));
                    }
                    changed[0] = true;
                } else {
                    for (String n : declared) scope.remove(n);  // a fresh name here hides an outer rename of it
                }
                seen.addAll(declared);
            }
        }
        List<Statement> out = new ArrayList<>(in.size());
        for (Statement s : in) {
            if (s instanceof Declaration d) {
                List<Variable> vs = d.variables().stream().map(v -> renamedVars.getOrDefault(v, v)).toList();
                out.add(vs.equals(d.variables()) ? d : new Declaration(vs, d.line()));
            } else if (s instanceof Block b) {
                out.add(new Block(statements(b.statements(), scope, seen, counter, changed, false), b.line()));
            } else if (s instanceof Instruction i && !scope.isEmpty()) {
                out.add(rename(i, scope));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    private static Instruction rename(Instruction i, Map<String, String> scope) {
        Guard g = i.guard();
        if (g != null && scope.containsKey(g.predicate())) g = new Guard(scope.get(g.predicate()), g.negated());
        List<Operand> ops = i.operands().stream().map(o -> rename(o, scope)).toList();
        if (g == i.guard() && ops.equals(i.operands())) return i;
        return new Instruction(g, i.opcode(), i.modifiers(), ops, i.line(), i.column());
    }

    static Operand rename(Operand o, Map<String, String> scope) {
        if (o instanceof Operand.Name n) return scope.containsKey(n.name()) ? new Operand.Name(scope.get(n.name()), n.component()) : n;
        if (o instanceof Operand.Address a) return a.base() == null ? a : new Operand.Address((Operand.Name) rename(a.base(), scope), a.offset());
        if (o instanceof Operand.Bracket b) return new Operand.Bracket(all(b.elements(), scope));
        if (o instanceof Operand.Vector v) return new Operand.Vector(all(v.elements(), scope));
        if (o instanceof Operand.Tuple t) return new Operand.Tuple(all(t.elements(), scope));
        if (o instanceof Operand.Aggregate a) return new Operand.Aggregate(all(a.elements(), scope));
        if (o instanceof Operand.Pair p) return new Operand.Pair(rename(p.first(), scope), rename(p.second(), scope));
        if (o instanceof Operand.Not n) return new Operand.Not(rename(n.operand(), scope));
        if (o instanceof Operand.Neg n) return new Operand.Neg(rename(n.operand(), scope));
        if (o instanceof Operand.Sum s) return new Operand.Sum(rename(s.left(), scope), rename(s.right(), scope), s.subtract());
        if (o instanceof Operand.Call c) return new Operand.Call(c.function(), rename(c.argument(), scope));
        return o;  // immediates, the sink
    }

    private static List<Operand> all(List<Operand> ops, Map<String, String> scope) {
        return ops.stream().map(e -> rename(e, scope)).toList();
    }
}
