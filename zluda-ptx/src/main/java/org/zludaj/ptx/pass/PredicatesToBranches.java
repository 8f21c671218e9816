package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.List;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Guard;
import org.zludaj.ptx.model.Statement.Instruction;

/**
 * Predicates to control flow: {@code @p op ...} becomes {@code @!p bra SKIP; op ...; SKIP:}, so that lowering sees
 * guards only on branches. Labels are {@code $zluda_skip_N}, numbered per function (PTX identifiers may start with
 * {@code $}; nvcc never emits that prefix). The new statements keep the instruction's line for diagnostics.
 */
public final class PredicatesToBranches implements ModulePass {
    static final String PREFIX = "$zluda_skip_";

    @Override
    public String name() {
        return "predicates-to-branches";
    }

    @Override
    public PtxModule apply(PtxModule m) {
        List<Function> functions = new ArrayList<>();
        for (Function f : m.functions()) {
            if (!f.isDefined()) {
                functions.add(f);
                continue;
            }
            int[] counter = {0};
            functions.add(new Function(f.entry(), f.attributes(), f.name(), f.returns(), f.params(), f.directives(),
                    body(f.body(), counter), f.line()));
        }
        return new PtxModule(m.name(), m.version(), m.targets(), m.addressSize(), m.globals(), functions);
    }

    private static List<Statement> body(List<Statement> in, int[] counter) {
        List<Statement> out = new ArrayList<>(in.size());
        for (Statement s : in) {
            if (s instanceof Statement.Block b) {
                out.add(new Statement.Block(body(b.statements(), counter), b.line()));
            } else if (s instanceof Instruction i && i.guard() != null && !i.opcode().equals("bra")) {
                String label = PREFIX + counter[0]++;
                Guard skip = new Guard(i.guard().predicate(), !i.guard().negated());
                out.add(new Instruction(skip, "bra", List.of(), List.of(new Operand.Name(label, null)), i.line(), i.column()));
                out.add(new Instruction(null, i.opcode(), i.modifiers(), i.operands(), i.line(), i.column()));
                out.add(new Statement.Label(label, i.line()));
            } else {
                out.add(s);
            }
        }
        return out;
    }
}
