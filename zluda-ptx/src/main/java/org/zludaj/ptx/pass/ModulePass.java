package org.zludaj.ptx.pass;

import java.util.ArrayList;
import java.util.List;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Statement;

/** A transformation of the checked PTX model into another, run before lowering: a function from model to model. */
public interface ModulePass {
    String name();

    PtxModule apply(PtxModule module);

    /** The model passes every target runs, in order, before {@code llvm.Lowering}. */
    List<ModulePass> PIPELINE = List.of(new RegisterParams(), new ScopedNames(), new VectorRegisters(), new PredicatesToBranches(), new ExpandVectorOperands(), new ImplicitConversions(),
            new GenericToSpecific());

    /** What a pass does to one defined function's body; the same list (by identity) when it changes nothing. */
    interface BodyRewrite {
        List<Statement> apply(Function f, List<Statement> body);
    }

    /**
     * The module with every defined function's body rewritten by {@code rewrite}; the module itself (no copy) when no
     * body changed.
     */
    static PtxModule rewriteBodies(PtxModule m, BodyRewrite rewrite) {
        boolean changed = false;
        List<Function> functions = new ArrayList<>(m.functions().size());
        for (Function f : m.functions()) {
            List<Statement> body = f.isDefined() ? rewrite.apply(f, f.body()) : f.body();
            if (body == f.body()) {
                functions.add(f);
                continue;
            }
            changed = true;
            functions.add(new Function(f.entry(), f.attributes(), f.name(), f.returns(), f.params(), f.directives(), body, f.line()));
        }
        return changed ? new PtxModule(m.name(), m.version(), m.targets(), m.addressSize(), m.globals(), functions) : m;
    }

    /**
     * What a pass does to one instruction: the statements that replace it ({@code counter} numbers what the pass
     * makes, per function), or null to keep it.
     */
    interface InstructionRewrite {
        List<Statement> apply(Statement.Instruction i, int[] counter);
    }

    /** {@link #rewriteBodies} instruction by instruction, nested blocks included. */
    static PtxModule rewriteInstructions(PtxModule m, InstructionRewrite rewrite) {
        return rewriteBodies(m, (f, in) -> {
            int[] counter = {0};
            boolean[] changed = {false};
            List<Statement> body = walk(in, rewrite, counter, changed);
            return changed[0] ? body : in;
        });
    }

    /** One body rewritten instruction by instruction, nested blocks included. */
    static List<Statement> rewriteBody(List<Statement> in, InstructionRewrite rewrite) {
        return walk(in, rewrite, new int[] {0}, new boolean[] {false});
    }

    private static List<Statement> walk(List<Statement> in, InstructionRewrite rewrite, int[] counter, boolean[] changed) {
        List<Statement> out = new ArrayList<>(in.size());
        for (Statement s : in) {
            if (s instanceof Statement.Block b) {
                out.add(new Statement.Block(walk(b.statements(), rewrite, counter, changed), b.line()));
            } else if (s instanceof Statement.Instruction i) {
                List<Statement> r = rewrite.apply(i, counter);
                if (r == null) {
                    out.add(s);
                } else {
                    out.addAll(r);
                    changed[0] = true;
                }
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /** Runs {@link #PIPELINE} over {@code module}. */
    static PtxModule runAll(PtxModule module) {
        for (ModulePass p : PIPELINE) module = p.apply(module);
        return module;
    }
}
