package org.zludaj.ptx.pass;

import java.util.List;
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
        return ModulePass.rewriteInstructions(m, (i, counter) -> {
            if (i.guard() == null || i.opcode().equals("bra")) return null;
            String label = PREFIX + counter[0]++;
            Guard skip = new Guard(i.guard().predicate(), !i.guard().negated());
            return List.of(new Instruction(skip, "bra", List.of(), List.of(new Operand.Name(label, null)), i.line(), i.column()),
                    new Instruction(null, i.opcode(), i.modifiers(), i.operands(), i.line(), i.column()),
                    new Statement.Label(label, i.line()));
        });
    }
}
