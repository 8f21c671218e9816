package org.zludaj.ptx.pass;

import java.util.List;
import org.zludaj.ptx.model.PtxModule;

/** A transformation of the checked PTX model into another, run before lowering: a function from model to model. */
public interface ModulePass {
    String name();

    PtxModule apply(PtxModule module);

    /** The model passes every target runs, in order, before {@code llvm.Lowering}. */
    List<ModulePass> PIPELINE = List.of(new PredicatesToBranches(), new ExpandVectorOperands(), new ImplicitConversions(),
            new GenericToSpecific());

    /** Runs {@link #PIPELINE} over {@code module}. */
    static PtxModule runAll(PtxModule module) {
        for (ModulePass p : PIPELINE) module = p.apply(module);
        return module;
    }
}
