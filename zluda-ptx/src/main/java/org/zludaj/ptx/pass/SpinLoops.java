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
 * statements from its label to the branch) holds such an access, this pass puts {@code nanosleep.u32 0}, where the
 * host lets the block's other threads run; its runtime also ends a block whose every live thread has done nothing but
 * poll for ZLUDA_KERNEL_TIMEOUT seconds (a loop that cannot end), with an error naming the kernel.
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
                if (at != null && at <= k && pollsBefore[k] > pollsBefore[at]) yieldBefore.add(i);
            }
            return yieldBefore.isEmpty() ? body : rewrite(body, yieldBefore);
        });
    }

    private static void flatten(List<Statement> body, List<Statement> out) {
        for (Statement s : body) {
            if (s instanceof Statement.Block b) flatten(b.statements(), out);
            else out.add(s);
        }
    }

    private static List<Statement> rewrite(List<Statement> body, Set<Statement> yieldBefore) {
        List<Statement> out = new ArrayList<>(body.size() + 1);
        for (Statement s : body) {
            if (s instanceof Statement.Block b) {
                out.add(new Statement.Block(rewrite(b.statements(), yieldBefore), b.line()));
                continue;
            }
            if (yieldBefore.contains(s)) {
                Instruction i = (Instruction) s;
                out.add(new Instruction(null, "nanosleep", List.of(".u32"), List.of(new Operand.IntImm(0)), i.line(), i.column()));
            }
            out.add(s);
        }
        return out;
    }
}
