package org.zludaj.ptx.llvm;

import java.util.ArrayList;
import java.util.List;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.Type;

/**
 * Which mma accumulators {@link MatrixOps} carries in the WMMA layout across loop iterations. A group is the D of
 * WMMA-lowered mma operations (f32/s32, the same registers every time, no register in two groups); it qualifies when
 * those operations sit in a loop (a backward branch's range) in which nothing else touches the group, as in a GEMM's
 * k-loop. Linear in the function: where each register occurs is collected once, and each group checks only its own
 * occurrences (a scan of the loop per mma was 3 of 5 s of IR construction of an MMQ kernel).
 */
final class CarriedGroups {
    private CarriedGroups() {}

    /** A group to carry: its registers, integer (s32) or f32, and 1 or 2 (paired) m16n8 tiles in its 16 columns. */
    record Group(List<String> registers, boolean integer, int halves) {}

    static List<Group> choose(List<org.zludaj.ptx.model.Statement> body) {
        List<org.zludaj.ptx.model.Statement> flat = new ArrayList<>();
        flatten(body, flat);
        java.util.Map<String, Integer> labels = new java.util.HashMap<>();
        for (int k = 0; k < flat.size(); k++) if (flat.get(k) instanceof org.zludaj.ptx.model.Statement.Label lb) labels.put(lb.name(), k);
        List<int[]> loops = new ArrayList<>();
        for (int k = 0; k < flat.size(); k++) {
            if (flat.get(k) instanceof Instruction i && (i.opcode().equals("bra") || i.opcode().equals("brx")) && !i.operands().isEmpty()
                    && i.operands().get(0) instanceof Operand.Name n && labels.containsKey(n.name()) && labels.get(n.name()) < k) {
                loops.add(new int[] {labels.get(n.name()), k});
            }
        }
        java.util.Map<List<String>, List<Integer>> groups = new java.util.LinkedHashMap<>();
        java.util.Map<List<String>, Integer> halves = new java.util.HashMap<>();
        java.util.Map<String, List<String>> owner = new java.util.HashMap<>();
        java.util.Set<String> excluded = new java.util.HashSet<>();
        for (int k = 0; k < flat.size(); k++) {
            if (!(flat.get(k) instanceof Instruction i) || !i.opcode().equals("mma") || i.operands().size() != 4) continue;
            List<Type> ts = MatrixOps.types(i);
            int[] sh = MatrixOps.shape(i);
            if (sh == null || ts.size() != 4 || !MatrixOps.wmmaLowered(sh, ts.get(1), ts.get(2))) continue;
            Type dt = ts.get(0);
            List<String> regs = MatrixOps.registerNames(List.of(i.operands().get(0)));
            if (dt != Type.F32 && dt != Type.S32 || ts.get(3) != dt || regs.stream().anyMatch(r -> r.startsWith("?"))) {
                excluded.addAll(regs);
                continue;
            }
            for (String r : regs) {
                List<String> prev = owner.putIfAbsent(r, regs);
                if (prev != null && !prev.equals(regs)) {  // one register in two different groups: leave both current
                    excluded.addAll(prev);
                    excluded.addAll(regs);
                }
            }
            groups.computeIfAbsent(regs, x -> new ArrayList<>()).add(k);
            halves.put(regs, (i.has(org.zludaj.ptx.pass.PairMma.PAIR) ? 2 : 1) * (dt == Type.S32 ? -1 : 1));
        }
        java.util.Map<String, List<int[]>> touches = groups.isEmpty() ? java.util.Map.of() : touches(flat);
        List<Group> out = new ArrayList<>();
        for (var e : groups.entrySet()) {
            List<String> regs = e.getKey();
            if (regs.stream().anyMatch(excluded::contains) || !worthCarrying(touches, loops, regs, e.getValue())) continue;
            int h = halves.get(regs);
            out.add(new Group(regs, h < 0, Math.abs(h)));
        }
        return out;
    }

    private static void flatten(List<org.zludaj.ptx.model.Statement> body, List<org.zludaj.ptx.model.Statement> out) {
        for (var st : body) {
            if (st instanceof org.zludaj.ptx.model.Statement.Block blk) flatten(blk.statements(), out);
            else out.add(st);
        }
    }

    /** Where each name occurs: {instruction index, operand index} pairs, once for the whole function. */
    private static java.util.Map<String, List<int[]>> touches(List<org.zludaj.ptx.model.Statement> flat) {
        java.util.Map<String, List<int[]>> at = new java.util.HashMap<>();
        for (int k = 0; k < flat.size(); k++) {
            if (!(flat.get(k) instanceof Instruction i)) continue;
            List<Operand> ops = i.operands();
            for (int n = 0; n < ops.size(); n++) {
                for (String name : org.zludaj.ptx.pass.PairMma.names(ops.get(n))) at.computeIfAbsent(name, x -> new ArrayList<>()).add(new int[] {k, n});
            }
        }
        return at;
    }

    /**
     * Every mma of the group lies in a loop, and in such a loop no other instruction (or operand) touches the group.
     * Linear in the group's occurrences: the loops around its mma first, then each place a register of it occurs.
     */
    private static boolean worthCarrying(java.util.Map<String, List<int[]>> touches, List<int[]> loops, List<String> regs,
                                         List<Integer> mmas) {
        java.util.Set<int[]> around = new java.util.LinkedHashSet<>();  // each loop once (arrays by identity)
        for (int at : mmas) {
            boolean inLoop = false;
            for (int[] loop : loops) {
                if (at < loop[0] || at > loop[1]) continue;
                inLoop = true;
                around.add(loop);
            }
            if (!inLoop) return false;
        }
        java.util.Set<Integer> groupMmas = new java.util.HashSet<>(mmas);
        for (String r : regs) {
            for (int[] t : touches.getOrDefault(r, List.of())) {
                if (groupMmas.contains(t[0]) && (t[1] == 0 || t[1] == 3)) continue;  // its own D and C
                for (int[] loop : around) if (t[0] >= loop[0] && t[0] <= loop[1]) return false;
            }
        }
        return true;
    }
}
