package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Instruction;

/**
 * Pairs {@code mma.sync} m16n8k16/m16n8k8 (f16, bf16) and m16n8k32/m16n8k16 (s8, u8) operations that share their A registers into one 16-column
 * operation, for GPUs whose matrix instruction is 16x16x16 (AMD WMMA): two NVIDIA m16n8 products then cost one
 * WMMA instead of two half-empty ones. The first operation moves down to the second (it is not moved up: the
 * second's B is often loaded in between) when nothing in between touches its D registers or writes its A, B or C
 * registers, and the second does not read the first's D. The pair is one instruction of the same opcode with the
 * modifier {@link #PAIR} and operands {D1 D2}, A, {B1 B2}, {C1 C2}; only {@code llvm.MatrixOps} reads it.
 * Straight-line code only: the search stops at labels, blocks, branches, calls and guarded instructions.
 */
public final class PairMma implements ModulePass {
    public static final String PAIR = ".zluda_pair";

    @Override
    public String name() {
        return "pair-mma";
    }

    @Override
    public PtxModule apply(PtxModule m) {
        List<Function> functions = new ArrayList<>();
        for (Function f : m.functions()) {
            functions.add(f.isDefined() ? new Function(f.entry(), f.attributes(), f.name(), f.returns(), f.params(), f.directives(),
                    body(f.body()), f.line()) : f);
        }
        return new PtxModule(m.name(), m.version(), m.targets(), m.addressSize(), m.globals(), functions);
    }

    /** Whether an instruction is an mma this pass pairs (the forms MatrixOps lowers to WMMA). */
    static boolean pairable(Statement s) {
        if (!(s instanceof Instruction i) || !i.opcode().equals("mma") || i.guard() != null || i.has(PAIR)) return false;
        boolean f16 = i.modifiers().stream().filter(x -> x.equals(".f16")).count() >= 2;
        boolean bf16 = i.modifiers().stream().filter(x -> x.equals(".bf16")).count() == 2;
        boolean bytes = i.modifiers().stream().filter(x -> x.equals(".s8") || x.equals(".u8")).count() == 2;
        boolean shape = (f16 || bf16) && (i.has(".m16n8k16") || i.has(".m16n8k8")) || bytes && (i.has(".m16n8k32") || i.has(".m16n8k16"));
        return shape && i.operands().size() == 4 && !i.has(".sp");
    }

    private static List<Statement> body(List<Statement> in) {
        List<Statement> out = new ArrayList<>(in.size());
        for (Statement s : in) out.add(s instanceof Statement.Block b ? new Statement.Block(body(b.statements()), b.line()) : s);
        boolean[] taken = new boolean[out.size()];
        Statement[] replaced = new Statement[out.size()];
        for (int x = 0; x < out.size(); x++) {
            if (taken[x] || !pairable(out.get(x))) continue;
            Instruction first = (Instruction) out.get(x);
            Set<String> d1 = names(first.operands().get(0));
            Set<String> inputs = new HashSet<>();
            for (int k = 1; k < 4; k++) inputs.addAll(names(first.operands().get(k)));
            for (int y = x + 1; y < out.size(); y++) {
                Statement s = out.get(y);
                if (!(s instanceof Instruction i) || i.guard() != null || i.opcode().equals("bra") || i.opcode().equals("call")
                        || i.opcode().equals("ret") || i.opcode().equals("exit") || i.opcode().equals("brx") || taken[y]) break;
                if (pairable(i) && i.modifiers().equals(first.modifiers()) && i.operands().get(1).equals(first.operands().get(1))
                        && disjoint(names(i.operands().get(2)), d1) && disjoint(names(i.operands().get(3)), d1)
                        && disjoint(names(i.operands().get(1)), d1)) {
                    List<String> mods = new ArrayList<>(first.modifiers());
                    mods.add(PAIR);
                    replaced[y] = new Instruction(null, "mma", mods, List.of(join(first.operands().get(0), i.operands().get(0)),
                            first.operands().get(1), join(first.operands().get(2), i.operands().get(2)),
                            join(first.operands().get(3), i.operands().get(3))), i.line(), i.column());
                    taken[x] = taken[y] = true;
                    break;
                }
                Set<String> all = new HashSet<>();
                for (Operand o : i.operands()) all.addAll(names(o));
                if (!disjoint(all, d1)) break;                       // reads or writes the first one's D
                if (!i.operands().isEmpty() && !(i.operands().get(0) instanceof Operand.Address)
                        && !disjoint(names(i.operands().get(0)), inputs)) break;  // writes its A, B or C
            }
        }
        List<Statement> result = new ArrayList<>(out.size());
        for (int k = 0; k < out.size(); k++) {
            if (replaced[k] != null) result.add(replaced[k]);
            else if (!taken[k]) result.add(out.get(k));
        }
        return result;
    }

    private static Operand join(Operand a, Operand b) {
        List<Operand> all = new ArrayList<>(elements(a));
        all.addAll(elements(b));
        return new Operand.Vector(all);
    }

    private static List<Operand> elements(Operand o) {
        return o instanceof Operand.Vector v ? v.elements() : List.of(o);
    }

    private static boolean disjoint(Set<String> a, Set<String> b) {
        for (String s : a) if (b.contains(s)) return false;
        return true;
    }

    /** Every name an operand mentions (registers, address bases), recursively. */
    public static Set<String> names(Operand o) {
        Set<String> out = new HashSet<>();
        collect(o, out);
        return out;
    }

    private static void collect(Operand o, Set<String> out) {
        if (o instanceof Operand.Name n) out.add(n.name());
        else if (o instanceof Operand.Address a && a.base() != null) out.add(a.base().name());
        else if (o instanceof Operand.Vector v) v.elements().forEach(e -> collect(e, out));
        else if (o instanceof Operand.Bracket v) v.elements().forEach(e -> collect(e, out));
        else if (o instanceof Operand.Tuple v) v.elements().forEach(e -> collect(e, out));
        else if (o instanceof Operand.Pair p) {
            collect(p.first(), out);
            collect(p.second(), out);
        } else if (o instanceof Operand.Not n) collect(n.operand(), out);
        else if (o instanceof Operand.Neg n) collect(n.operand(), out);
    }
}
