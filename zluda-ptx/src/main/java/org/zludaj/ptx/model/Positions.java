package org.zludaj.ptx.model;

import java.util.ArrayList;
import java.util.List;

/** Removes source positions from a model, so that models from different texts compare by meaning. */
public final class Positions {
    private Positions() {}

    public static PtxModule strip(PtxModule m) {
        List<Function> fs = new ArrayList<>();
        for (Function f : m.functions()) {
            fs.add(new Function(f.entry(), f.attributes(), f.name(), vars(f.returns()), vars(f.params()), f.directives(),
                    f.body() == null ? null : statements(f.body()), 0));
        }
        return new PtxModule("", m.version(), m.targets(), m.addressSize(), vars(m.globals()), fs);
    }

    private static List<Variable> vars(List<Variable> vs) {
        List<Variable> out = new ArrayList<>();
        for (Variable v : vs) {
            out.add(new Variable(v.space(), v.type(), v.vectorWidth(), v.align(), v.name(), v.rangeCount(), v.arrayDims(),
                    v.initializer(), v.attributes(), 0));
        }
        return out;
    }

    private static List<Statement> statements(List<Statement> body) {
        List<Statement> out = new ArrayList<>();
        for (Statement s : body) {
            if (s instanceof Statement.Label l) out.add(new Statement.Label(l.name(), 0));
            else if (s instanceof Statement.Declaration d) out.add(new Statement.Declaration(vars(d.variables()), 0));
            else if (s instanceof Statement.Block b) out.add(new Statement.Block(statements(b.statements()), 0));
            else if (s instanceof Statement.Directive d) out.add(new Statement.Directive(d.text(), 0));
            else if (s instanceof Statement.Pragma p) out.add(new Statement.Pragma(p.values(), 0));
            else if (s instanceof Statement.Instruction i)
                out.add(new Statement.Instruction(i.guard(), i.opcode(), i.modifiers(), i.operands(), 0, 0));
        }
        return out;
    }
}
