package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Instruction;

/**
 * State spaces of generic pointers: a generic {@code ld}, {@code st}, {@code atom} or {@code red} through a register
 * whose only definition in the function is {@code cvta.SPACE r, x} (global, shared, local or const) accesses SPACE
 * at {@code x} instead ({@code [r+8]} becomes {@code .SPACE [x+8]}), when {@code x} is a variable or a register
 * defined once, textually before that {@code cvta} (so that it holds the same value wherever {@code r} does). On AMD
 * GPUs that turns flat instructions into global or LDS ones, on every target it spares the generic address
 * arithmetic; the values accessed are the same. Registers written more than once, by a call or by a vector or pair
 * destination are never followed.
 */
public final class GenericToSpecific implements ModulePass {
    private static final Set<String> MEMORY = Set.of("ld", "st", "atom", "red");
    private static final Set<String> NO_DESTINATION = Set.of("st", "red", "bar", "barrier", "membar", "fence", "prefetch",
            "prefetchu", "bra", "brx", "ret", "exit", "trap", "nanosleep", "cp", "pmevent", "discard", "applypriority", "stmatrix", "wmma");

    @Override
    public String name() {
        return "generic-to-specific";
    }

    private static void declared(List<Statement> body, Set<String> out) {
        for (Statement s : body) {
            if (s instanceof Statement.Block b) declared(b.statements(), out);
            else if (s instanceof Statement.Declaration d)
                for (org.zludaj.ptx.model.Variable v : d.variables()) if (v.space() != StateSpace.REG) out.add(v.name());
        }
    }

    @Override
    public PtxModule apply(PtxModule m) {
        return ModulePass.rewriteBodies(m, (f, in) -> {
            Map<String, Integer> definitions = new HashMap<>(), order = new HashMap<>();
            Map<String, Instruction> cvta = new HashMap<>();
            count(in, definitions, order, cvta, new int[1]);
            Set<String> variables = new java.util.HashSet<>();  // what a cvta may name besides registers
            for (org.zludaj.ptx.model.Variable v : m.globals()) variables.add(v.name());
            declared(in, variables);
            int[] rewritten = {0};
            List<Statement> body = rewrite(in, definitions, order, cvta, rewritten, variables);
            return rewritten[0] == 0 ? in : body;
        });
    }

    /** Counts the definitions of every register; remembers the single cvta that defines one and textual order. */
    private static void count(List<Statement> body, Map<String, Integer> definitions, Map<String, Integer> order,
                              Map<String, Instruction> cvta, int[] position) {
        for (Statement s : body) {
            if (s instanceof Statement.Block b) {
                count(b.statements(), definitions, order, cvta, position);
                continue;
            }
            if (!(s instanceof Instruction i) || i.operands().isEmpty()) continue;
            position[0]++;
            if (i.opcode().equals("call")) {  // call (outputs), f, (inputs): the outputs are written
                if (i.operands().get(0) instanceof Operand.Tuple t) for (Operand o : t.elements()) defined(o, definitions, order, position[0], 2);
                continue;
            }
            if (NO_DESTINATION.contains(i.opcode())) continue;
            Operand d = i.operands().get(0);
            boolean plain = d instanceof Operand.Name;
            defined(d, definitions, order, position[0], plain ? 1 : 2);  // vectors and pairs: never followed
            if (plain && i.opcode().equals("cvta") && !i.has(".to")) cvta.put(((Operand.Name) d).name(), i);
        }
    }

    private static void defined(Operand o, Map<String, Integer> definitions, Map<String, Integer> order, int position, int weight) {
        if (o instanceof Operand.Name n) {
            definitions.merge(n.name(), weight, Integer::sum);
            order.putIfAbsent(n.name(), position);
        } else if (o instanceof Operand.Vector v) {
            for (Operand e : v.elements()) defined(e, definitions, order, position, 2);
        } else if (o instanceof Operand.Pair p) {
            defined(p.first(), definitions, order, position, 2);
            defined(p.second(), definitions, order, position, 2);
        }
    }

    private static List<Statement> rewrite(List<Statement> body, Map<String, Integer> definitions, Map<String, Integer> order,
                                           Map<String, Instruction> cvta, int[] rewritten, Set<String> variables) {
        List<Statement> out = new ArrayList<>(body.size());
        for (Statement s : body) {
            if (s instanceof Statement.Block b) {
                out.add(new Statement.Block(rewrite(b.statements(), definitions, order, cvta, rewritten, variables), b.line()));
            } else if (s instanceof Instruction i && MEMORY.contains(i.opcode()) && generic(i)) {
                Instruction r = specific(i, definitions, order, cvta, variables);
                if (r != i) rewritten[0]++;
                out.add(r);
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /** No state-space modifier (or .generic): the address is generic. */
    private static boolean generic(Instruction i) {
        for (String mod : i.modifiers()) {
            if (StateSpace.of(mod) != null || mod.startsWith(".shared::") || mod.startsWith(".param::")) return false;
        }
        return true;
    }

    private static Instruction specific(Instruction i, Map<String, Integer> definitions, Map<String, Integer> order,
                                        Map<String, Instruction> cvta, Set<String> variables) {
        int at = i.opcode().equals("st") || i.opcode().equals("red") ? 0 : 1;
        if (at >= i.operands().size() || !(i.operands().get(at) instanceof Operand.Address a) || a.base() == null) return i;
        String r = a.base().name();
        Instruction def = cvta.get(r);
        if (def == null || definitions.getOrDefault(r, 0) != 1 || def.operands().size() != 2) return i;
        StateSpace space = null;
        for (String mod : def.modifiers()) if (StateSpace.of(mod) != null) space = StateSpace.of(mod);
        if (space == null || space == StateSpace.GENERIC || space == StateSpace.PARAM) return i;
        if (!(def.operands().get(1) instanceof Operand.Name x) || x.component() != null) return i;
        if (variables.contains(x.name())) {
            if (definitions.containsKey(x.name())) return i;
        } else if (definitions.getOrDefault(x.name(), 0) != 1 || order.getOrDefault(x.name(), Integer.MAX_VALUE) >= order.get(r)) {
            return i;  // a register must be defined once, before the cvta
        }
        List<String> mods = new ArrayList<>();
        boolean placed = false;
        for (String mod : i.modifiers()) {
            if (mod.equals(".generic")) continue;
            if (!placed && !mod.equals(".volatile") && !mod.equals(".relaxed") && !mod.equals(".acquire") && !mod.equals(".release")
                    && !mod.equals(".weak") && !mod.startsWith(".sys") && !mod.equals(".cta") && !mod.equals(".gpu") && !mod.equals(".cluster")) {
                mods.add("." + space.name().toLowerCase(java.util.Locale.ROOT));
                placed = true;
            }
            mods.add(mod);
        }
        if (!placed) mods.add("." + space.name().toLowerCase(java.util.Locale.ROOT));
        List<Operand> ops = new ArrayList<>(i.operands());
        ops.set(at, new Operand.Address(x, a.offset()));
        return new Instruction(i.guard(), i.opcode(), mods, ops, i.line(), i.column());
    }
}
