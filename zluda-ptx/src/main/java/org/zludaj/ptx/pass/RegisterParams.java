package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Variable;

/**
 * {@code .func} parameters in {@code .reg} (the form without an ABI, which NVIDIA's ptxas requires for a function with
 * several return values: {@code .func (.reg .u32 lo, .reg .u32 hi) split(.reg .u32 x)}) become {@code .param}
 * parameters, so that lowering sees one calling convention. In the function, each keeps its name as a register:
 * inputs are loaded from the new parameter at entry, results stored into theirs before every {@code ret} (and at the
 * end of the body). Each call passes registers or immediates: it becomes a block declaring {@code .param} arguments,
 * storing them, calling, and loading the results into the caller's registers. New names start with {@code $zluda_rp_}.
 */
public final class RegisterParams implements ModulePass {
    static final String PREFIX = "$zluda_rp_";

    @Override
    public String name() {
        return "register-params";
    }

    @Override
    public PtxModule apply(PtxModule m) {
        Map<String, Function> changed = new HashMap<>();
        for (Function f : m.functions()) {
            if (!f.entry() && (hasReg(f.params()) || hasReg(f.returns()))) changed.put(f.name(), f);
        }
        if (changed.isEmpty()) return m;
        List<Function> functions = new ArrayList<>();
        for (Function f : m.functions()) {
            Function g = changed.containsKey(f.name()) ? rewriteSignature(f) : f;
            if (g.isDefined()) g = withBody(g, calls(g.body(), changed, new int[] {0}));
            functions.add(g);
        }
        return new PtxModule(m.name(), m.version(), m.targets(), m.addressSize(), m.globals(), functions);
    }

    private static boolean hasReg(List<Variable> vs) {
        for (Variable v : vs) if (v.space() == StateSpace.REG) return true;
        return false;
    }

    private static Variable asParam(Variable v, String name) {
        return new Variable(StateSpace.PARAM, v.type(), v.vectorWidth(), v.align(), name, 0, v.arrayDims(), null, v.attributes(), v.line());
    }

    private static Variable asReg(Variable v) {
        return new Variable(StateSpace.REG, v.type(), v.vectorWidth(), v.align(), v.name(), 0, v.arrayDims(), null, List.of(), v.line());
    }

    private static Function withBody(Function f, List<Statement> body) {
        return new Function(f.entry(), f.attributes(), f.name(), f.returns(), f.params(), f.directives(), body, f.line());
    }

    private static String suffix(Variable v) {
        return "." + v.type().name().toLowerCase(java.util.Locale.ROOT);
    }

    private static Instruction ins(String opcode, List<String> modifiers, List<Operand> operands, int line, Statement.Guard guard) {
        return new Instruction(guard, opcode, modifiers, operands, line, 0);
    }

    /** The function with .param parameters; its body loads and stores the registers of the old ones. */
    private static Function rewriteSignature(Function f) {
        List<Variable> params = new ArrayList<>(), returns = new ArrayList<>();
        for (Variable v : f.params()) params.add(v.space() == StateSpace.REG ? asParam(v, PREFIX + v.name()) : v);
        for (Variable v : f.returns()) returns.add(v.space() == StateSpace.REG ? asParam(v, PREFIX + v.name()) : v);
        if (!f.isDefined()) return new Function(f.entry(), f.attributes(), f.name(), returns, params, f.directives(), null, f.line());
        List<Statement> body = new ArrayList<>();
        List<Variable> regs = new ArrayList<>();
        for (Variable v : f.params()) if (v.space() == StateSpace.REG) regs.add(asReg(v));
        for (Variable v : f.returns()) if (v.space() == StateSpace.REG) regs.add(asReg(v));
        body.add(new Statement.Declaration(regs, f.line()));
        for (Variable v : f.params()) {
            if (v.space() != StateSpace.REG) continue;
            body.add(ins("ld", List.of(".param", suffix(v)), List.of(new Operand.Name(v.name(), null),
                    new Operand.Address(new Operand.Name(PREFIX + v.name(), null), 0)), f.line(), null));
        }
        List<Statement> stores = new ArrayList<>();
        for (Variable v : f.returns()) {
            if (v.space() != StateSpace.REG) continue;
            stores.add(ins("st", List.of(".param", suffix(v)), List.of(new Operand.Address(new Operand.Name(PREFIX + v.name(), null), 0),
                    new Operand.Name(v.name(), null)), f.line(), null));
        }
        body.addAll(beforeReturns(f.body(), stores));
        Statement last = f.body().isEmpty() ? null : f.body().get(f.body().size() - 1);
        boolean endsInRet = last instanceof Instruction li && li.opcode().equals("ret") && li.guard() == null;
        if (!endsInRet) body.addAll(stores);
        return new Function(f.entry(), f.attributes(), f.name(), returns, params, f.directives(), body, f.line());
    }

    /** Every ret (nested blocks too) preceded by the result stores, under the ret's own guard. */
    private static List<Statement> beforeReturns(List<Statement> in, List<Statement> stores) {
        List<Statement> out = new ArrayList<>();
        for (Statement s : in) {
            if (s instanceof Statement.Block b) {
                out.add(new Statement.Block(beforeReturns(b.statements(), stores), b.line()));
            } else if (s instanceof Instruction i && i.opcode().equals("ret")) {
                for (Statement st : stores) {
                    Instruction x = (Instruction) st;
                    out.add(new Instruction(i.guard(), x.opcode(), x.modifiers(), x.operands(), i.line(), i.column()));
                }
                out.add(s);
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /** Calls of a changed function: .param arguments stored, results loaded into the caller's registers. */
    private static List<Statement> calls(List<Statement> in, Map<String, Function> changed, int[] counter) {
        List<Statement> out = new ArrayList<>();
        for (Statement s : in) {
            if (s instanceof Statement.Block b) {
                out.add(new Statement.Block(calls(b.statements(), changed, counter), b.line()));
                continue;
            }
            if (!(s instanceof Instruction i) || !i.opcode().equals("call")) {
                out.add(s);
                continue;
            }
            List<Operand> ops = i.operands();
            int k = 0;
            List<Operand> rets = List.of();
            if (!ops.isEmpty() && ops.get(0) instanceof Operand.Tuple t) {
                rets = t.elements();
                k = 1;
            }
            Function f = k < ops.size() && ops.get(k) instanceof Operand.Name n ? changed.get(n.name()) : null;
            if (f == null || rets.size() != f.returns().size()) {
                out.add(s);
                continue;
            }
            List<Operand> args = k + 1 < ops.size() && ops.get(k + 1) instanceof Operand.Tuple t ? t.elements() : List.of();
            if (args.size() != f.params().size()) {
                out.add(s);
                continue;
            }
            int n = counter[0]++;
            List<Variable> decl = new ArrayList<>();
            List<Statement> block = new ArrayList<>();
            List<Operand> newArgs = new ArrayList<>(), newRets = new ArrayList<>();
            List<Statement> loads = new ArrayList<>();
            for (int a = 0; a < args.size(); a++) {
                Variable p = f.params().get(a);
                if (p.space() != StateSpace.REG) {
                    newArgs.add(args.get(a));
                    continue;
                }
                String name = PREFIX + "arg" + n + "_" + a;
                decl.add(asParam(p, name));
                block.add(ins("st", List.of(".param", suffix(p)), List.of(new Operand.Address(new Operand.Name(name, null), 0), args.get(a)), i.line(), null));
                newArgs.add(new Operand.Name(name, null));
            }
            for (int r = 0; r < rets.size(); r++) {
                Variable p = f.returns().get(r);
                if (p.space() != StateSpace.REG) {
                    newRets.add(rets.get(r));
                    continue;
                }
                String name = PREFIX + "ret" + n + "_" + r;
                decl.add(asParam(p, name));
                loads.add(ins("ld", List.of(".param", suffix(p)), List.of(rets.get(r), new Operand.Address(new Operand.Name(name, null), 0)), i.line(), i.guard()));
                newRets.add(new Operand.Name(name, null));
            }
            List<Operand> newOps = new ArrayList<>();
            if (k == 1) newOps.add(new Operand.Tuple(newRets));
            newOps.add(ops.get(k));
            if (k + 1 < ops.size()) newOps.add(new Operand.Tuple(newArgs));
            for (int x = k + 2; x < ops.size(); x++) newOps.add(ops.get(x));
            List<Statement> all = new ArrayList<>();
            all.add(new Statement.Declaration(decl, i.line()));
            all.addAll(block);
            all.add(new Instruction(i.guard(), "call", i.modifiers(), newOps, i.line(), i.column()));
            all.addAll(loads);
            out.add(new Statement.Block(all, i.line()));
        }
        return out;
    }
}
