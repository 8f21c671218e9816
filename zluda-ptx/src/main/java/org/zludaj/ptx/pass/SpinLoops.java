package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Instruction;

/**
 * Loops that wait for another thread, for targets whose threads run in turn (the host's fibers switch only where a
 * thread waits: barriers, warp collectives, {@code nanosleep}). A loop that polls memory for another thread's write
 * (a flag read with {@code ld.volatile}, an ordered {@code ld.relaxed/.acquire}, {@code ld.cv}) or takes a lock
 * ({@code atom.cas}, {@code atom.exch}) would otherwise spin on the one running thread forever, where NVIDIA's GPUs
 * (independent thread scheduling, sm_70 on) let the writer run. Before every backward branch whose loop (the
 * statements from its label to the branch) holds such an access that one of its branches depends on, and no
 * {@code nanosleep} of its own, this pass puts {@code nanosleep.u32 0}, where the host lets the block's other threads
 * run; it does so too before the backward branch of a loop that can never end once that branch is taken
 * ({@link #neverEnds}); its runtime ends a block whose every remaining thread only polled again where it polled before for
 * ZLUDA_KERNEL_TIMEOUT seconds (loops that cannot end), with an error naming the kernel.
 */
public final class SpinLoops implements ModulePass {
    @Override
    public String name() {
        return "spin-loops";
    }

    /** A memory access that can observe another thread's write on a later iteration of the same loop. */
    static boolean polls(Instruction i) {
        return switch (i.opcode()) {
            case "ld" -> i.has(".volatile") || i.has(".relaxed") || i.has(".acquire") || i.has(".cv");
            case "atom" -> i.has(".cas") || i.has(".exch");
            default -> false;
        };
    }

    @Override
    public PtxModule apply(PtxModule m) {
        return ModulePass.rewriteBodies(m, (f, body) -> {
            List<Statement> flat = new ArrayList<>();
            flatten(body, flat);
            Map<String, Integer> labels = new HashMap<>();
            for (int k = 0; k < flat.size(); k++) if (flat.get(k) instanceof Statement.Label l) labels.put(l.name(), k);
            int[] pollsBefore = new int[flat.size() + 1];  // prefix counts of polling accesses
            for (int k = 0; k < flat.size(); k++)
                pollsBefore[k + 1] = pollsBefore[k] + (flat.get(k) instanceof Instruction i && polls(i) ? 1 : 0);
            Set<Statement> yieldBefore = Collections.newSetFromMap(new IdentityHashMap<>());
            for (int k = 0; k < flat.size(); k++) {
                if (!(flat.get(k) instanceof Instruction i) || !i.opcode().equals("bra") || i.operands().isEmpty()) continue;
                if (!(i.operands().get(0) instanceof Operand.Name target)) continue;
                Integer at = labels.get(target.name());
                if (at == null || at > k) continue;
                List<Statement> loop = flat.subList(at, k + 1);
                if (pollsBefore[k] > pollsBefore[at] && exitsOnPolledValue(loop) || neverEnds(loop, labels, at, k)) yieldBefore.add(i);
            }
            return yieldBefore.isEmpty() ? body : ModulePass.rewriteBody(body, (i, counter) -> !yieldBefore.contains(i) ? null
                    : List.of(new Instruction(null, "nanosleep", List.of(".u32"), List.of(new Operand.IntImm(0)), i.line(), i.column()), i));
        });
    }

    /** Instructions whose first operand is no destination. */
    private static final Set<String> NO_DESTINATION = Set.of("st", "red", "bra", "brx", "bar", "barrier", "membar", "fence",
            "nanosleep", "ret", "exit", "trap", "prefetch", "prefetchu", "call", "cp", "mbarrier", "pmevent", "discard", "applypriority");

    /**
     * Whether a loop waits for what it polls: some conditional branch in it depends (through the loop's instructions)
     * on a value a polling access loaded. A counted loop that exchanges data through volatile shared memory (warp-
     * synchronous code, whose lanes must not be let apart) is no such loop.
     */
    static boolean exitsOnPolledValue(List<Statement> loop) {
        // a loop that sleeps already lets the others run (pass.NamedBarriers' polls, a program's own backoff)
        for (Statement s : loop) if (s instanceof Instruction i && i.opcode().equals("nanosleep")) return false;
        Set<String> tainted = new java.util.HashSet<>();
        for (boolean changed = true; changed; ) {
            changed = false;
            for (Statement s : loop) {
                if (!(s instanceof Instruction i) || NO_DESTINATION.contains(i.opcode()) || i.operands().isEmpty()) continue;
                boolean from = polls(i);
                for (int k = 1; k < i.operands().size() && !from; k++) from = names(i.operands().get(k)).stream().anyMatch(tainted::contains);
                if (from) for (String d : names(i.operands().get(0))) changed |= tainted.add(d);
            }
        }
        for (Statement s : loop)
            if (s instanceof Instruction i && i.opcode().equals("bra") && i.guard() != null && tainted.contains(i.guard().predicate())) return true;
        return false;
    }

    /**
     * Whether a loop, once its backward branch is taken, runs forever: no instruction in it can leave the thread or
     * the loop except branches, every branch in it (its backward branch too) is decided by predicates the loop does
     * not write, and no branch leaves it unconditionally. Every iteration then takes the same path, and the path that
     * took the backward branch once takes it again ({@code while (1);}, a flag hoisted out of its loop). Such a loop
     * yields as a poll does, so the runtime ends it after the kernel timeout. A loop that already sleeps is the
     * runtime's to bound as it is.
     */
    static boolean neverEnds(List<Statement> loop, Map<String, Integer> labels, int from, int to) {
        Set<String> written = new java.util.HashSet<>();
        for (Statement s : loop) {
            if (!(s instanceof Instruction i)) continue;
            switch (i.opcode()) {
                case "ret", "exit", "trap", "call", "brx", "nanosleep" -> {
                    return false;
                }
                case "bra" -> {
                }
                default -> {
                    if (!i.operands().isEmpty()) written.addAll(names(i.operands().get(0)));
                }
            }
        }
        for (Statement s : loop) {
            if (!(s instanceof Instruction i) || !i.opcode().equals("bra")) continue;
            if (i.guard() != null && written.contains(i.guard().predicate())) return false;
            Integer target = i.operands().isEmpty() || !(i.operands().get(0) instanceof Operand.Name n) ? null : labels.get(n.name());
            boolean leaves = target == null || target < from || target > to;
            if (leaves && i.guard() == null) return false;
        }
        return true;
    }

    /** The register names an operand reads or writes. */
    private static List<String> names(Operand o) {
        List<String> out = new ArrayList<>();
        if (o instanceof Operand.Name n) out.add(n.name());
        else if (o instanceof Operand.Vector v) v.elements().forEach(e -> out.addAll(names(e)));
        else if (o instanceof Operand.Pair p) {
            out.addAll(names(p.first()));
            out.addAll(names(p.second()));
        } else if (o instanceof Operand.Not n) out.addAll(names(n.operand()));
        else if (o instanceof Operand.Neg n) out.addAll(names(n.operand()));
        else if (o instanceof Operand.Address a && a.base() != null) out.add(a.base().name());
        return out;
    }

    private static void flatten(List<Statement> body, List<Statement> out) {
        for (Statement s : body) {
            if (s instanceof Statement.Block b) flatten(b.statements(), out);
            else out.add(s);
        }
    }

}
