package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Variable;

/**
 * Named barriers in shared memory, for GPUs with one hardware barrier per block (AMD: {@code s_barrier} is the whole
 * workgroup). {@code bar.sync/barrier.sync} with a thread count, {@code bar.arrive} and {@code bar.red} (and every
 * plain barrier on an id that an arrive or a counted form uses; an id in a register makes that all of them) become PTX
 * over {@value #STATE}: per id a 64-bit count of arrived threads, never reset, and three reduction words. Barriers
 * count by warps, as NVIDIA's do: one elected lane per warp adds 32 (the count is rounded up to warps), so phase
 * {@code g} of a barrier with count {@code c} completes when the count reaches {@code (g+1)c}, and a waiting warp's
 * leader polls for that ({@code nanosleep} between polls, which lets the host's fibers run). {@code bar.red} adds its
 * warp's ballot count (for {@code .and} the false ones) to word {@code g mod 3} before arriving; the warp that
 * completes phase {@code g} clears word {@code (g+2) mod 3}, which nobody can use before phase {@code g+1} completes.
 * Each kernel zeroes the state first (thread 0, then the hardware barrier). Barriers without a count on other ids
 * stay the hardware barrier. The generated statements carry the line of the instruction they replace.
 */
public final class NamedBarriers implements ModulePass {
    static final String STATE = "__zluda_named_barriers";
    static final String LABEL = "$zluda_bar_";
    private static final int BYTES_PER_ID = 32;

    @Override
    public String name() {
        return "named-barriers";
    }

    /** Barrier instructions, not bar.warp.sync. */
    static boolean isBarrier(Instruction i) {
        return (i.opcode().equals("bar") || i.opcode().equals("barrier")) && !i.has(".warp");
    }

    /** Forms the hardware barrier cannot do: a thread count, arrive without waiting, or a reduction. */
    static boolean needsSoftware(Instruction i) {
        return i.has(".red") || partial(i);
    }

    /** Forms where only some threads of the block may take part: arrive, or a thread count. */
    static boolean partial(Instruction i) {
        return i.has(".arrive") || i.operands().size() > (i.has(".red") ? 3 : 1);
    }

    /** The id operand of a barrier instruction. */
    private static Operand id(Instruction i) {
        return i.has(".red") ? i.operands().get(1) : i.operands().get(0);
    }

    @Override
    public PtxModule apply(PtxModule m) {
        Set<Long> ids = new HashSet<>();
        boolean[] any = {false, false};  // any software barrier; an id held in a register
        for (Function f : m.functions()) if (f.isDefined()) scan(f.body(), ids, any);
        if (!any[0]) return m;
        int[] counter = {0};
        List<Function> functions = new ArrayList<>();
        for (Function f : m.functions()) {
            if (!f.isDefined()) {
                functions.add(f);
                continue;
            }
            List<Statement> body = body(f.body(), ids, any[1], counter);
            if (f.entry()) {
                List<Statement> withInit = new ArrayList<>();
                withInit.add(relined(snippet(init(counter[0]++), null, null, null, null), f.line()));
                withInit.addAll(body);
                body = withInit;
            }
            functions.add(new Function(f.entry(), f.attributes(), f.name(), f.returns(), f.params(), f.directives(), body, f.line()));
        }
        List<Variable> globals = new ArrayList<>(m.globals());
        globals.add(new Variable(org.zludaj.ptx.model.StateSpace.SHARED, org.zludaj.ptx.model.Type.B8, 0, 8, STATE, 0,
                List.of((long) BYTES_PER_ID * 16), null, List.of(), 0));
        return new PtxModule(m.name(), m.version(), m.targets(), m.addressSize(), globals, functions);
    }

    private static void scan(List<Statement> body, Set<Long> ids, boolean[] any) {
        for (Statement s : body) {
            if (s instanceof Statement.Block b) scan(b.statements(), ids, any);
            else if (s instanceof Instruction i && isBarrier(i) && needsSoftware(i)) {
                any[0] = true;
                if (!partial(i)) continue;  // bar.red over the whole block meets plain barriers in the same order
                if (id(i) instanceof Operand.IntImm imm) ids.add(imm.value() & 15);
                else any[1] = true;
            }
        }
    }

    private static List<Statement> body(List<Statement> in, Set<Long> ids, boolean allIds, int[] counter) {
        List<Statement> out = new ArrayList<>(in.size());
        for (Statement s : in) {
            if (s instanceof Statement.Block b) {
                out.add(new Statement.Block(body(b.statements(), ids, allIds, counter), b.line()));
            } else if (s instanceof Instruction i && isBarrier(i) && (needsSoftware(i) || allIds
                    || !(id(i) instanceof Operand.IntImm imm) || ids.contains(imm.value() & 15))) {
                if (i.guard() != null) throw new IllegalStateException("guarded barrier after predicates-to-branches");
                out.add(relined(rewrite(i, counter[0]++), i.line()));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /** The replacement of one barrier instruction. */
    private static Statement rewrite(Instruction i, int n) {
        List<Operand> o = i.operands();
        boolean red = i.has(".red"), arrive = i.has(".arrive");
        Operand dst = red ? o.get(0) : null, pred = red ? o.get(o.size() - 1) : null;
        int first = red ? 1 : 0;
        Operand id = o.get(first);
        Operand count = o.size() > first + 1 + (red ? 1 : 0) ? o.get(first + 1) : null;
        String op = !red ? null : i.has(".popc") ? "popc" : i.has(".and") ? "and" : "or";
        String l = LABEL + n;
        StringBuilder t = new StringBuilder();
        t.append("{\n.reg .b32 %__zb_m, %__zb_l, %__zb_c, %__zb_n, %__zb_v, %__zb_r;\n.reg .b64 %__zb_a, %__zb_w, %__zb_old, %__zb_g, %__zb_t, %__zb_now, %__zb_c64, %__zb_s;\n");
        t.append(".reg .pred %__zb_p, %__zb_q;\n");
        t.append("membar.cta;\nactivemask.b32 %__zb_m;\n");
        if (red) {
            t.append("vote.sync.ballot.b32 %__zb_v, %__zb_pred, %__zb_m;\npopc.b32 %__zb_v, %__zb_v;\n");
            if (op.equals("and")) t.append("popc.b32 %__zb_n, %__zb_m;\nsub.u32 %__zb_v, %__zb_n, %__zb_v;\n");
        }
        t.append("mov.u32 %__zb_r, 0;\n");
        // the warp's leader: its lowest active lane (elect.sync needs sm_90)
        t.append("neg.s32 %__zb_l, %__zb_m;\nand.b32 %__zb_l, %__zb_l, %__zb_m;\nbfind.u32 %__zb_l, %__zb_l;\n");
        t.append("mov.u32 %__zb_n, %laneid;\nsetp.eq.u32 %__zb_p, %__zb_n, %__zb_l;\n@!%__zb_p bra ").append(l).append("_done;\n");
        if (count != null) {
            t.append("mov.u32 %__zb_c, %__zb_count;\n");
        } else {
            t.append("mov.u32 %__zb_c, %ntid.x;\nmov.u32 %__zb_n, %ntid.y;\nmul.lo.u32 %__zb_c, %__zb_c, %__zb_n;\n");
            t.append("mov.u32 %__zb_n, %ntid.z;\nmul.lo.u32 %__zb_c, %__zb_c, %__zb_n;\n");
        }
        t.append("add.u32 %__zb_c, %__zb_c, 31;\nand.b32 %__zb_c, %__zb_c, -32;\ncvt.u64.u32 %__zb_c64, %__zb_c;\n");
        t.append("mov.u32 %__zb_n, %__zb_id;\nand.b32 %__zb_n, %__zb_n, 15;\nmul.wide.u32 %__zb_a, %__zb_n, ").append(BYTES_PER_ID).append(";\n");
        t.append("mov.u64 %__zb_w, ").append(STATE).append(";\nadd.u64 %__zb_a, %__zb_a, %__zb_w;\n");
        if (red) {
            // this phase's word: the phase is fixed until this warp arrives
            t.append("ld.volatile.shared.u64 %__zb_now, [%__zb_a];\ndiv.u64 %__zb_g, %__zb_now, %__zb_c64;\n");
            t.append("rem.u64 %__zb_s, %__zb_g, 3;\nshl.b64 %__zb_s, %__zb_s, 2;\nadd.u64 %__zb_s, %__zb_s, %__zb_a;\n");
            t.append("atom.shared.add.u32 %__zb_n, [%__zb_s+8], %__zb_v;\nmembar.cta;\n");
        }
        t.append("atom.shared.add.u64 %__zb_old, [%__zb_a], 32;\n");
        t.append("div.u64 %__zb_g, %__zb_old, %__zb_c64;\nadd.u64 %__zb_t, %__zb_g, 1;\nmul.lo.u64 %__zb_t, %__zb_t, %__zb_c64;\n");
        if (red) {
            // the warp that completes phase g clears the word of phase g+2
            t.append("add.u64 %__zb_now, %__zb_old, 32;\nsetp.lt.u64 %__zb_q, %__zb_now, %__zb_t;\n@%__zb_q bra ").append(l).append("_wait;\n");
            t.append("add.u64 %__zb_w, %__zb_g, 2;\nrem.u64 %__zb_w, %__zb_w, 3;\nshl.b64 %__zb_w, %__zb_w, 2;\nadd.u64 %__zb_w, %__zb_w, %__zb_a;\n");
            t.append("st.volatile.shared.u32 [%__zb_w+8], 0;\n");
        }
        if (!arrive) {
            t.append(l).append("_wait:\nld.volatile.shared.u64 %__zb_now, [%__zb_a];\nsetp.ge.u64 %__zb_q, %__zb_now, %__zb_t;\n@%__zb_q bra ")
                    .append(l).append("_arrived;\nnanosleep.u32 20;\nbra ").append(l).append("_wait;\n").append(l).append("_arrived:\n");
        } else if (red) {
            t.append(l).append("_wait:\n");
        }
        if (red) t.append("membar.cta;\nld.volatile.shared.u32 %__zb_r, [%__zb_s+8];\n");
        t.append(l).append("_done:\n");
        if (red) t.append("shfl.sync.idx.b32 %__zb_r, %__zb_r, %__zb_l, 31, %__zb_m;\n");
        else t.append("bar.warp.sync %__zb_m;\n");
        t.append("membar.cta;\n");
        if (red) {
            t.append(switch (op) {
                case "popc" -> "mov.u32 %__zb_dst32, %__zb_r;\n";
                case "and" -> "setp.eq.u32 %__zb_dstp, %__zb_r, 0;\n";
                default -> "setp.ne.u32 %__zb_dstp, %__zb_r, 0;\n";
            });
        }
        t.append("}\n");
        return snippet(t.toString(), id, count, pred, dst);
    }

    /** Thread 0 of the block zeroes the barrier state, then the whole block meets at the hardware barrier. */
    private static String init(int n) {
        String l = LABEL + n;
        return "{\n.reg .b32 %__zb_t, %__zb_n;\n.reg .b64 %__zb_a, %__zb_e;\n.reg .pred %__zb_p;\n"
                + "mov.u32 %__zb_t, %tid.x;\nmov.u32 %__zb_n, %tid.y;\nor.b32 %__zb_t, %__zb_t, %__zb_n;\nmov.u32 %__zb_n, %tid.z;\n"
                + "or.b32 %__zb_t, %__zb_t, %__zb_n;\nsetp.ne.u32 %__zb_p, %__zb_t, 0;\n@%__zb_p bra " + l + "_ready;\n"
                + "mov.u64 %__zb_a, " + STATE + ";\nadd.u64 %__zb_e, %__zb_a, " + BYTES_PER_ID * 16 + ";\n"
                + l + "_zero:\nst.shared.u64 [%__zb_a], 0;\nadd.u64 %__zb_a, %__zb_a, 8;\nsetp.lt.u64 %__zb_p, %__zb_a, %__zb_e;\n@%__zb_p bra " + l + "_zero;\n"
                + l + "_ready:\nbar.sync 0;\n}\n";
    }

    /** Parses a block of PTX written over placeholder registers and puts the instruction's operands in their place. */
    private static Statement snippet(String text, Operand id, Operand count, Operand pred, Operand dst) {
        String module = ".version 7.0\n.target sm_70\n.address_size 64\n.shared .align 8 .b8 " + STATE + "[" + BYTES_PER_ID * 16 + "];\n"
                + ".entry zluda_snippet()\n{\n.reg .b32 %__zb_id, %__zb_count, %__zb_dst32;\n.reg .pred %__zb_pred, %__zb_dstp;\n" + text + "}\n";
        PtxModule m;
        try {
            m = Ptx.parse("named-barriers", module);
        } catch (PtxException e) {
            throw new IllegalStateException("named-barriers: generated PTX does not parse: " + e.getMessage() + "\n" + module, e);
        }
        List<Statement> body = m.function("zluda_snippet").body();
        Statement block = body.get(body.size() - 1);
        return substitute(block, id, count, pred, dst);
    }

    private static Statement substitute(Statement s, Operand id, Operand count, Operand pred, Operand dst) {
        if (s instanceof Statement.Block b) {
            List<Statement> out = new ArrayList<>();
            for (Statement x : b.statements()) out.add(substitute(x, id, count, pred, dst));
            return new Statement.Block(out, b.line());
        }
        if (s instanceof Instruction i) {
            List<Operand> ops = new ArrayList<>();
            for (Operand o : i.operands()) ops.add(substitute(o, id, count, pred, dst));
            return new Instruction(i.guard(), i.opcode(), i.modifiers(), ops, i.line(), i.column());
        }
        return s;
    }

    private static Operand substitute(Operand o, Operand id, Operand count, Operand pred, Operand dst) {
        if (o instanceof Operand.Name n && n.component() == null) {
            return switch (n.name()) {
                case "%__zb_id" -> id;
                case "%__zb_count" -> count;
                case "%__zb_pred" -> pred;
                case "%__zb_dst32", "%__zb_dstp" -> dst;
                default -> o;
            };
        }
        if (o instanceof Operand.Pair p) return new Operand.Pair(substitute(p.first(), id, count, pred, dst), substitute(p.second(), id, count, pred, dst));
        if (o instanceof Operand.Not n) return new Operand.Not(substitute(n.operand(), id, count, pred, dst));
        return o;
    }

    /** Gives every statement of the block the line of the instruction it replaces (diagnostics point there). */
    static Statement relined(Statement s, int line) {
        if (s instanceof Statement.Block b) return new Statement.Block(b.statements().stream().map(x -> relined(x, line)).toList(), line);
        if (s instanceof Instruction i) return new Instruction(i.guard(), i.opcode(), i.modifiers(), i.operands(), line, i.column());
        if (s instanceof Statement.Label lb) return new Statement.Label(lb.name(), line);
        if (s instanceof Statement.Declaration d) return new Statement.Declaration(d.variables(), line);
        return s;
    }
}
