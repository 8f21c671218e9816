package org.zludaj.ptx.pass;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
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
 * Warp-synchronous memory on targets whose lanes run one after another between collectives (the host's fibers).
 * A converged warp executes each instruction for all its lanes before the next, so CUDA code commonly has lanes
 * exchange data through shared memory with no barrier (ggml's {@code mul_mat_f} writes its tile, then reads the
 * other lanes' results). Run lane by lane, a lane would read before its neighbours wrote, or overwrite what they have
 * yet to read. This pass puts a point where the lanes that execute together meet ({@code activemask}, which on the
 * host completes once every lane of the warp has arrived, finished or is blocked elsewhere) wherever a shared or
 * generic access of the other direction follows: before a load that some path reaches with a store since the last
 * meeting point, and before a store after a load; and before a store that follows a store under a condition (a
 * guarded store, or one past a conditional branch): a converged warp completes the first store for all its lanes
 * before the lanes that meet the condition make the second (ggml's q8_1 quantization zero-fills a buffer and then
 * writes the scales where some lanes' zeros fell). Block barriers and warp collectives are meeting points already;
 * a call may do either. Global memory is left alone (lanes exchanging data through it without a barrier is rare,
 * and every elementwise kernel would pay). Only what is needed is added: straight code of one direction keeps its
 * speed.
 */
public final class WarpLockstep implements ModulePass {
    static final String REGISTER = "%__zluda_lockstep";
    /** LOAD, STORE: accesses since the last meeting; DIVERGED: a condition (branch or guard) since the last store. */
    private static final int LOAD = 1, STORE = 2, DIVERGED = 4;
    private static final Set<String> MEETING = Set.of("shfl", "vote", "match", "redux", "activemask", "elect",
            "ldmatrix", "stmatrix", "wmma", "mma");

    @Override
    public String name() {
        return "warp-lockstep";
    }

    @Override
    public PtxModule apply(PtxModule m) {
        return ModulePass.rewriteBodies(m, this::rewrite);
    }

    /** What an instruction does to shared or generic memory: LOAD, STORE, both (a call) or 0; -1: a meeting point. */
    static int effect(Instruction i) {
        String op = i.opcode();
        if (MEETING.contains(op)) return -1;
        if (op.equals("bar") || op.equals("barrier")) return i.has(".arrive") ? 0 : -1;
        if (op.equals("call")) return LOAD | STORE;
        boolean local = sharedOrGeneric(i);
        return switch (op) {
            case "ld", "ldu" -> local ? LOAD : 0;
            case "st", "atom", "red" -> local ? STORE : 0;
            case "cp" -> i.has(".async") || i.has(".bulk") ? STORE : 0;  // writes shared memory
            default -> 0;
        };
    }

    private static boolean sharedOrGeneric(Instruction i) {
        for (String mod : i.modifiers()) {
            if (mod.startsWith(".shared")) return true;
            StateSpace s = StateSpace.of(mod);
            if (s != null) return false;
        }
        return true;
    }

    private List<Statement> rewrite(Function f, List<Statement> body) {
        List<Statement> flat = new ArrayList<>();
        flatten(body, flat);
        Map<String, Integer> labels = new HashMap<>();
        for (int k = 0; k < flat.size(); k++) if (flat.get(k) instanceof Statement.Label l) labels.put(l.name(), k);
        int n = flat.size();
        int[] in = new int[n + 1];
        boolean[] seen = new boolean[n + 1];
        Deque<Integer> work = new ArrayDeque<>();
        in[0] = f.entry() ? 0 : LOAD | STORE;  // a function's caller may have accessed memory either way
        seen[0] = true;
        work.add(0);
        Set<Instruction> meet = Collections.newSetFromMap(new IdentityHashMap<>());
        while (!work.isEmpty()) {
            int k = work.poll();
            if (k >= n) continue;
            int state = in[k];
            Statement s = flat.get(k);
            List<Integer> next = new ArrayList<>(2);
            if (s instanceof Instruction i) {
                int e = effect(i);
                boolean guarded = i.guard() != null;
                if (e < 0) state = 0;
                else if (e == (LOAD | STORE)) state = LOAD | STORE;
                else if (e == LOAD) {  // a store since the last meeting: meet first
                    if ((state & STORE) != 0) meet.add(i);
                    state = LOAD;
                } else if (e == STORE) {
                    // a load since the last meeting, or a store that only some lanes make after one all made (the
                    // "fill, then overwrite where a condition holds" idiom: a converged warp's second store wins)
                    if ((state & LOAD) != 0 || (state & STORE) != 0 && ((state & DIVERGED) != 0 || guarded)) meet.add(i);
                    state = STORE;
                }
                if (guarded && (state & STORE) != 0 && e != STORE) state |= DIVERGED;
                switch (i.opcode()) {
                    case "bra" -> {
                        Integer t = i.operands().isEmpty() || !(i.operands().get(0) instanceof Operand.Name nm) ? null : labels.get(nm.name());
                        if (t == null) labels.values().forEach(next::add);
                        else next.add(t);
                        if (guarded) next.add(k + 1);
                    }
                    case "brx" -> labels.values().forEach(next::add);  // an indexed branch: any label of the function
                    case "ret", "exit", "trap" -> { if (guarded) next.add(k + 1); }
                    default -> next.add(k + 1);
                }
            } else {
                next.add(k + 1);
            }
            for (int t : next) {
                if (seen[t] && (in[t] | state) == in[t]) continue;
                in[t] |= state;
                seen[t] = true;
                work.add(t);
            }
        }
        if (meet.isEmpty()) return body;
        List<Statement> out = new ArrayList<>();
        out.add(new Statement.Declaration(List.of(new Variable(StateSpace.REG, Type.B32, 0, 0, REGISTER, 0, List.of(), null,
                List.of(), f.line())), f.line()));
        out.addAll(insert(body, meet));
        return out;
    }

    private static void flatten(List<Statement> body, List<Statement> out) {
        for (Statement s : body) {
            if (s instanceof Statement.Block b) flatten(b.statements(), out);
            else out.add(s);
        }
    }

    private static List<Statement> insert(List<Statement> body, Set<Instruction> meet) {
        List<Statement> out = new ArrayList<>(body.size() + meet.size());
        for (Statement s : body) {
            if (s instanceof Statement.Block b) {
                out.add(new Statement.Block(insert(b.statements(), meet), b.line()));
                continue;
            }
            if (s instanceof Instruction i && meet.contains(i))
                out.add(new Instruction(null, "activemask", List.of(".b32"), List.of(new Operand.Name(REGISTER, null)), i.line(), i.column()));
            out.add(s);
        }
        return out;
    }
}
