package org.zludaj.ptx;

import java.util.ArrayList;
import java.util.List;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.parser.PtxLexer;
import org.zludaj.ptx.parser.PtxParser;

/** The PTX front end: text to {@link PtxModule}, or a {@link PtxException} listing every problem. */
public final class Ptx {
    private Ptx() {}

    public static PtxModule parse(String moduleName, String text) throws PtxException {
        List<Diagnostic> diags = new ArrayList<>();
        BaseErrorListener listener = new BaseErrorListener() {
            @Override
            public void syntaxError(Recognizer<?, ?> r, Object symbol, int line, int col, String msg, RecognitionException e) {
                diags.add(new Diagnostic(moduleName, line, col + 1, msg));
            }
        };
        PtxLexer lexer = new PtxLexer(CharStreams.fromString(text, moduleName));
        lexer.removeErrorListeners();
        lexer.addErrorListener(listener);
        PtxParser parser = new PtxParser(new CommonTokenStream(lexer));
        parser.removeErrorListeners();
        parser.addErrorListener(listener);
        PtxParser.ModuleContext tree = parser.module();
        if (!diags.isEmpty()) throw new PtxException(diags);
        ModelBuilder builder = new ModelBuilder(moduleName);
        PtxModule module = builder.module(tree);
        if (!builder.diagnostics().isEmpty()) throw new PtxException(builder.diagnostics());
        return module;
    }
}
