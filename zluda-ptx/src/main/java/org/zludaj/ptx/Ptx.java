package org.zludaj.ptx;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.antlr.v4.runtime.BailErrorStrategy;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.DefaultErrorStrategy;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.atn.PredictionMode;
import org.antlr.v4.runtime.misc.ParseCancellationException;
import org.zludaj.ptx.check.Checker;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.parser.PtxLexer;
import org.zludaj.ptx.parser.PtxParser;

/**
 * The PTX front end: text to {@link PtxModule}. The text is split at top-level boundaries; pieces are parsed (in
 * parallel for large modules) with ANTLR's fast SLL prediction, falling back to full LL for diagnostics. Then the
 * instruction table and the semantic checks ({@link Checker}) run per function. A function with a problem is
 * reported and left out; the rest of the module stays usable ({@link #parseLenient}).
 */
public final class Ptx {
    private Ptx() {}

    /** Modules larger than this are parsed in parallel pieces of about this size. */
    static final int PARALLEL_CHARS = 256 * 1024;

    /** The result of lenient parsing: the usable module, every diagnostic, and the functions left out. */
    public record Parsed(PtxModule module, List<Diagnostic> diagnostics, Set<String> failedFunctions) {
        public boolean ok() {
            return diagnostics.isEmpty();
        }

        /** Diagnostics as one text (for CU_JIT_ERROR_LOG_BUFFER and logs). */
        public String log() {
            return diagnostics.stream().map(Diagnostic::toString).collect(Collectors.joining("\n"));
        }
    }

    /** Parses and checks; any problem is a {@link PtxException} carrying every diagnostic. */
    public static PtxModule parse(String moduleName, String text) throws PtxException {
        Parsed p = parseLenient(moduleName, text);
        if (!p.ok()) throw new PtxException(p.diagnostics());
        return p.module();
    }

    /** Parses and checks, keeping what is usable. Never throws for bad input. */
    public static Parsed parseLenient(String moduleName, String text) {
        return parseLenient(moduleName, text, PARALLEL_CHARS);
    }

    /** As {@link #parseLenient(String, String)}, splitting into parallel pieces of about {@code pieceChars}. */
    static Parsed parseLenient(String moduleName, String text, int pieceChars) {
        List<Chunks.Chunk> chunks = Chunks.split(text);
        List<Chunks.Chunk> batches = text.length() > pieceChars ? Chunks.batch(chunks, pieceChars) : List.of(wholeOf(chunks));
        List<ModelBuilder> built = batches.size() > 1
                ? batches.parallelStream().map(b -> parseBatch(moduleName, text, b, chunks)).toList()
                : List.of(parseBatch(moduleName, text, batches.get(0), chunks));
        List<Diagnostic> diags = new ArrayList<>();
        Set<String> failed = new LinkedHashSet<>();
        String version = null;
        List<String> targets = new ArrayList<>();
        int addressSize = -1;
        List<org.zludaj.ptx.model.Variable> globals = new ArrayList<>();
        List<Function> functions = new ArrayList<>();
        for (ModelBuilder b : built) {
            diags.addAll(b.diagnostics);
            failed.addAll(b.failed);
            if (version == null) version = b.version;
            targets.addAll(b.targets);
            if (addressSize < 0) addressSize = b.addressSize;
            globals.addAll(b.globals);
            functions.addAll(b.functions);
        }
        if (version == null || targets.isEmpty() || addressSize < 0) {
            // the module's header shares its piece with the first function (no ';' between them): a syntax error
            // there lost it, and with it the version and target the other functions are checked against
            Header h = header(text);
            if (version == null) version = h.version();
            if (targets.isEmpty()) targets.addAll(h.targets());
            if (addressSize < 0) addressSize = h.addressSize();
        }
        if (version == null) diags.add(new Diagnostic(moduleName, 1, 1, "missing .version directive"));
        PtxModule module = new PtxModule(moduleName, version, List.copyOf(targets), addressSize < 0 ? 64 : addressSize,
                List.copyOf(globals), List.copyOf(functions));
        Checker.Result checked = Checker.check(module);
        diags.addAll(checked.diagnostics());
        if (!checked.failed().isEmpty()) {
            failed.addAll(checked.failed());
            module = new PtxModule(module.name(), module.version(), module.targets(), module.addressSize(), module.globals(),
                    module.functions().stream().filter(f -> !checked.failed().contains(f.name())).toList());
        }
        return new Parsed(module, List.copyOf(diags), Set.copyOf(failed));
    }

    /** The header directives as they begin their lines before the first brace (comments aside). */
    record Header(String version, List<String> targets, int addressSize) {}

    private static final java.util.regex.Pattern HEADER = java.util.regex.Pattern.compile(
            "(?m)^[ \\t]*\\.(version|target|address_size)[ \\t]+([^\\n/]*)");

    static Header header(String text) {
        int brace = text.indexOf('{');
        java.util.regex.Matcher m = HEADER.matcher(brace < 0 ? text : text.substring(0, brace));
        String version = null;
        List<String> targets = new ArrayList<>();
        int addressSize = -1;
        while (m.find()) {
            String value = m.group(2).trim();
            switch (m.group(1)) {
                case "version" -> { if (version == null && value.matches("[0-9]+\\.[0-9]+")) version = value; }
                case "target" -> { for (String t : value.split(",")) if (!t.isBlank()) targets.add(t.trim()); }
                default -> { if (addressSize < 0 && value.matches("32|64")) addressSize = Integer.parseInt(value); }
            }
        }
        return new Header(version, targets, addressSize);
    }

    private static Chunks.Chunk wholeOf(List<Chunks.Chunk> chunks) {
        return new Chunks.Chunk(chunks.get(0).start(), chunks.get(chunks.size() - 1).end(), chunks.get(0).line());
    }

    /** Parses a batch; if it has syntax errors, parses its chunks one by one so that only the broken ones are lost. */
    private static ModelBuilder parseBatch(String name, String text, Chunks.Chunk batch, List<Chunks.Chunk> all) {
        ModelBuilder b = new ModelBuilder(name);
        List<Diagnostic> syntax = new ArrayList<>();
        PtxParser.ModuleContext tree = syntax(name, text, batch, syntax);
        if (syntax.isEmpty()) {
            b.module(tree);
            return b;
        }
        for (Chunks.Chunk c : all) {
            if (c.start() < batch.start() || c.end() > batch.end()) continue;
            List<Diagnostic> d = new ArrayList<>();
            PtxParser.ModuleContext t = syntax(name, text, c, d);
            if (d.isEmpty()) {
                b.module(t);
            } else {
                String fn = functionName(text.substring(c.start(), c.end()));
                for (Diagnostic x : d) {
                    b.diagnostics.add(fn == null ? x : new Diagnostic(x.module(), x.line(), x.column(), "function " + fn + ": " + x.message()));
                }
                if (fn != null) b.failed.add(fn);
            }
        }
        return b;
    }

    private static final java.util.regex.Pattern FUNCTION =
            java.util.regex.Pattern.compile("\\.(?:entry|func)\\s*(?:\\([^)]*\\)\\s*)?([A-Za-z_$%][\\w$]*)");

    private static String functionName(String chunk) {
        java.util.regex.Matcher m = FUNCTION.matcher(chunk);
        return m.find() ? m.group(1) : null;
    }

    private static PtxParser.ModuleContext syntax(String name, String text, Chunks.Chunk c, List<Diagnostic> diags) {
        List<Diagnostic> lexical = new ArrayList<>();
        BaseErrorListener listener = new BaseErrorListener() {
            @Override
            public void syntaxError(Recognizer<?, ?> r, Object symbol, int line, int col, String msg, RecognitionException e) {
                List<Diagnostic> to = r instanceof PtxLexer ? lexical : diags;
                if (to.size() < 100) to.add(new Diagnostic(name, line, col + 1, msg));
            }
        };
        PtxLexer lexer = new PtxLexer(CharStreams.fromString(text.substring(c.start(), c.end()), name));
        lexer.setLine(c.line());
        lexer.removeErrorListeners();
        lexer.addErrorListener(listener);
        CommonTokenStream tokens = new CommonTokenStream(lexer);
        tokens.fill();
        PtxParser parser = new PtxParser(tokens);
        parser.getInterpreter().setPredictionMode(PredictionMode.SLL);
        parser.removeErrorListeners();
        parser.setErrorHandler(new BailErrorStrategy());
        try {
            PtxParser.ModuleContext tree = parser.module();
            if (lexical.isEmpty()) return tree;
        } catch (ParseCancellationException e) {
            // fall through: full LL parse with error reporting and recovery
        }
        tokens.seek(0);
        parser.reset();
        parser.addErrorListener(listener);
        parser.setErrorHandler(new DefaultErrorStrategy());
        parser.getInterpreter().setPredictionMode(PredictionMode.LL);
        PtxParser.ModuleContext tree = parser.module();
        diags.addAll(0, lexical);
        return tree;
    }
}
