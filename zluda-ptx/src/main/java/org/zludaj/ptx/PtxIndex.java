package org.zludaj.ptx;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Variable;

/**
 * A module's index for compilation on demand: its text cut at top-level boundaries (no parsing), each piece
 * classified (directives, module-scope variables, functions by name). For a kernel it gives the unit to compile: the
 * directives, the module-scope variables and the kernel with every function it reaches. Loading a module only builds
 * this; the units of kernels are parsed and compiled when a kernel is first needed, and all of them share the
 * module's variables (which a separate variables-only unit defines: see {@link #asKernelUnit}).
 */
public final class PtxIndex {
    private enum Kind { DIRECTIVE, VARIABLE, FUNCTION, OTHER }

    /** A piece of the module's text: {@code [start, end)} of it (read where a unit needs it, never copied whole). */
    private record Piece(Kind kind, String name, boolean entry, boolean defined, int start, int end) {}

    private static final Pattern FUNCTION = Pattern.compile("\\.(entry|func)\\s*(?:\\([^)]*\\)\\s*)?([A-Za-z_$%][\\w$]*)");
    /** Leading blank space or comments, then a line-terminated directive (.version, .target, .address_size, .file). */
    private static final Pattern DIRECTIVE_LINE =
            Pattern.compile("(?:\\s|//[^\\n]*|/\\*(?s:.*?)\\*/)*(\\.version|\\.target|\\.address_size|\\.file)\\b[^\\n]*");

    private final String text;
    private final List<Piece> pieces = new ArrayList<>();
    /** Function pieces (declarations and definitions) by name. */
    private final Map<String, List<Piece>> functions = new LinkedHashMap<>();
    /** Whether a function's name holds a '%' (then '%' tokens, registers, are looked up too). */
    private boolean percentNames;

    private PtxIndex(String text) {
        this.text = text;
    }

    /** Indexes PTX text: one linear scan, no parse. */
    public static PtxIndex of(String text) {
        PtxIndex ix = new PtxIndex(text);
        Matcher d = DIRECTIVE_LINE.matcher(text);
        StringBuilder before = new StringBuilder();
        for (Chunks.Chunk c : Chunks.split(text, false)) {  // the pieces' lines are not needed
            int from = c.start(), to = c.end();
            // directives end at their line, not at a ';': a chunk may start with several of them
            while (d.region(from, to).lookingAt()) {
                boolean file = d.group(1).equals(".file");
                ix.pieces.add(new Piece(file ? Kind.OTHER : Kind.DIRECTIVE, null, false, false, from, d.end()));
                from = d.end();
            }
            // the chunk up to its first brace, comments blanked: a function's body (up to megabytes) is not read
            before.setLength(0);
            boolean brace = headBeforeBrace(text, from, to, before);
            String head = before.toString().strip();
            Piece p;
            Matcher m = FUNCTION.matcher(head);
            if (head.startsWith(".version") || head.startsWith(".target") || head.startsWith(".address_size")) {
                p = new Piece(Kind.DIRECTIVE, null, false, false, from, to);
            } else if (m.find() && !head.startsWith(".section")) {
                p = new Piece(Kind.FUNCTION, m.group(2), m.group(1).equals("entry"), brace, from, to);
                ix.functions.computeIfAbsent(p.name, k -> new ArrayList<>()).add(p);
                ix.percentNames |= p.name.indexOf('%') >= 0;
            } else if (head.matches("(?s)^(?:\\.(?:visible|extern|weak|common)\\s+)*\\.(?:global|const|shared)\\b.*")) {
                p = new Piece(Kind.VARIABLE, null, false, false, from, to);
            } else if (head.isEmpty() || head.startsWith(".section")) {
                continue;  // debug sections are not needed to compile
            } else {
                p = new Piece(Kind.OTHER, null, false, false, from, to);
            }
            ix.pieces.add(p);
        }
        return ix;
    }

    private String text(Piece p) {
        return text.substring(p.start, p.end);
    }

    /**
     * Appends to {@code out} the text of {@code t} from {@code from} before its first '{' outside comments (and before
     * {@code n}), each comment as one blank; returns whether there is such a brace.
     */
    static boolean headBeforeBrace(String t, int from, int n, StringBuilder out) {
        int i = from;
        while (i < n) {  // from one '/' or '{' to the next, the text between appended whole
            int stop = i;  // (not indexOf: the next '/' or '{' of the text may be megabytes away, past n)
            while (stop < n && t.charAt(stop) != '/' && t.charAt(stop) != '{') stop++;
            out.append(t, i, stop);
            if (stop == n) return false;
            if (t.charAt(stop) == '{') return true;
            if (stop + 1 < n && t.charAt(stop + 1) == '/') {
                int e = t.indexOf('\n', stop);
                i = e < 0 || e >= n ? n : e;
                out.append(' ');
            } else if (stop + 1 < n && t.charAt(stop + 1) == '*') {
                int e = t.indexOf("*/", stop + 2);
                i = e < 0 || e + 2 > n ? n : e + 2;
                out.append(' ');
            } else {
                out.append('/');
                i = stop + 1;
            }
        }
        return false;
    }

    /** The defined kernels (.entry with a body), in module order. */
    public List<String> kernels() {
        List<String> out = new ArrayList<>();
        for (Piece p : pieces) if (p.kind == Kind.FUNCTION && p.entry && p.defined) out.add(p.name);
        return out;
    }

    public boolean hasKernel(String name) {
        return kernels().contains(name);
    }

    /** Whether some module-scope variable names a function (a table of function addresses): then the module compiles whole. */
    public boolean variablesReferenceFunctions() {
        for (Piece p : pieces) if (p.kind == Kind.VARIABLE && functionNames(p, name -> true)) return true;
        return false;
    }

    /**
     * Hands {@code found} each identifier of the piece (outside comments) that names a function of the module, until it
     * answers true; whether one did. One pass over the characters: a token that starts with a digit (a number such
     * as 0f3F800000) is skipped whole, and registers ('%' names) are not looked up where no function's name has a '%'.
     */
    private boolean functionNames(Piece p, java.util.function.Predicate<String> found) {
        int i = p.start, n = p.end;
        while (i < n) {
            char c = text.charAt(i);
            if (c == '/' && i + 1 < n && text.charAt(i + 1) == '/') {
                int e = text.indexOf('\n', i);
                i = e < 0 || e >= n ? n : e;
            } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
                int e = text.indexOf("*/", i + 2);
                i = e < 0 || e + 2 > n ? n : e + 2;
            } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%') {
                int j = i + 1;
                while (j < n && word(text.charAt(j))) j++;
                if ((c != '%' || percentNames) && functions.containsKey(text.substring(i, j)) && found.test(text.substring(i, j))) return true;
                i = j;
            } else if (c >= '0' && c <= '9') {
                int j = i + 1;
                while (j < n && word(text.charAt(j))) j++;
                i = j;
            } else {
                i++;
            }
        }
        return false;
    }

    private static boolean word(char c) {
        return c == '_' || c == '$' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    /** The kernel and every function it reaches (by name, through calls or addresses), found by scanning the text. */
    public Set<String> closure(String kernel) {
        Set<String> seen = new LinkedHashSet<>();
        ArrayDeque<String> work = new ArrayDeque<>(List.of(kernel));
        while (!work.isEmpty()) {
            String f = work.pop();
            if (!seen.add(f)) continue;
            for (Piece p : functions.getOrDefault(f, List.of())) {
                functionNames(p, id -> {
                    if (!seen.contains(id)) work.push(id);
                    return false;
                });
            }
        }
        return seen;
    }

    /** The text of a unit: directives, variables and other top-level statements, and the pieces of {@code names}. */
    public String unitText(Set<String> names) {
        return unitText(names, false);
    }

    /**
     * As {@link #unitText(Set)}; {@code declareVariables}: the module-scope variables without their initializers where
     * they can be cut (a kernel unit declares them only, {@link #asKernelUnit}: ggml's modules carry 96 KB of lookup
     * tables, which every kernel's parse read again).
     */
    private String unitText(Set<String> names, boolean declareVariables) {
        StringBuilder s = new StringBuilder();
        for (Piece p : pieces) {
            if (p.kind == Kind.FUNCTION && !names.contains(p.name)) continue;
            if (declareVariables && p.kind == Kind.VARIABLE) s.append(withoutInitializer(text(p)));
            else s.append(text, p.start, p.end);
            s.append('\n');
        }
        return s.toString();
    }

    /**
     * A module-scope variable's text without its initializer ({@code = {...}} or {@code = value}), its lines kept (so
     * the unit's line numbers stay the module's); the text unchanged where the cut could change the declaration: an
     * array sized by its initializer ({@code []}), several declarators, anything but one initializer before the ';'.
     */
    static String withoutInitializer(String t) {
        int n = t.length(), eq = -1;
        for (int i = 0; i < n && eq < 0; i++) {
            char c = t.charAt(i);
            if (c == '/' && i + 1 < n && (t.charAt(i + 1) == '/' || t.charAt(i + 1) == '*')) i = skipComment(t, i) - 1;
            else if (c == '=') eq = i;
            else if (c == ',' || c == ';' || c == '{') return t;  // several declarators, or no initializer
        }
        if (eq < 0 || t.substring(0, eq).matches("(?s).*\\[\\s*\\].*")) return t;
        int depth = 0, end = -1;
        for (int i = eq + 1; i < n && end < 0; i++) {
            char c = t.charAt(i);
            if (c == '/' && i + 1 < n && (t.charAt(i + 1) == '/' || t.charAt(i + 1) == '*')) i = skipComment(t, i) - 1;
            else if (c == '{') depth++;
            else if (c == '}') depth--;
            else if (depth == 0 && c == ',') return t;  // another declarator follows
            else if (depth == 0 && c == ';') end = i;
        }
        if (end < 0 || depth != 0) return t;
        int from = eq;
        while (from > 0 && (t.charAt(from - 1) == ' ' || t.charAt(from - 1) == '\t')) from--;
        String cut = t.substring(from, end);
        StringBuilder out = new StringBuilder(t.length() - cut.length() + 16).append(t, 0, from);
        for (int i = 0; i < cut.length(); i++) if (cut.charAt(i) == '\n') out.append('\n');
        return out.append(t, end, n).toString();
    }

    /** The index just past the comment starting at {@code i} ('//' to the line's end, or a block comment). */
    private static int skipComment(String t, int i) {
        if (t.charAt(i + 1) == '/') {
            int e = t.indexOf('\n', i);
            return e < 0 ? t.length() : e;
        }
        int e = t.indexOf("*/", i + 2);
        return e < 0 ? t.length() : e + 2;
    }

    /** The unit of one kernel: see {@link #unitText}; its variables declared without their initializers. */
    public String kernelText(String kernel) {
        return unitText(closure(kernel), true);
    }

    /** Directives and module-scope variables only. */
    public String variablesText() {
        return unitText(Set.of());
    }

    /**
     * Directives and module-scope variables without their initializers where they can be cut (see
     * {@link #withoutInitializer}): what the driver reads of a module's variables (their names, spaces and sizes), a
     * few kilobytes where the variables text of one of ggml's modules is 96 KB of lookup tables.
     */
    public String declarationsText() {
        return unitText(Set.of(), true);
    }

    private volatile String digest;

    /** SHA-256 (hex) of the module's text ({@code CompileCache.textDigest}), computed at the first call. */
    public String digest() {
        String d = digest;
        if (d == null) digest = d = org.zludaj.ptx.cache.CompileCache.textDigest(text);
        return d;
    }

    /** Bytes of PTX text indexed. */
    public int length() {
        return text.length();
    }

    /**
     * A kernel unit as compiled beside its module's variables unit: the module-scope .global and .const variables
     * become declarations (the variables unit defines them, so every kernel of the module shares them), kernels
     * other than {@code kernel} are dropped, and functions lose external visibility (each unit has its own copy).
     */
    public static PtxModule asKernelUnit(PtxModule m, String kernel) {
        List<Variable> globals = new ArrayList<>();
        for (Variable v : m.globals()) {
            if ((v.space() == StateSpace.GLOBAL || v.space() == StateSpace.CONST) && !v.attributes().contains(".extern")) {
                List<String> attrs = new ArrayList<>(v.attributes());
                attrs.removeIf(a -> a.equals(".visible") || a.equals(".weak") || a.equals(".common"));
                attrs.add(0, ".extern");
                v = new Variable(v.space(), v.type(), v.vectorWidth(), v.align(), v.name(), v.rangeCount(), v.arrayDims(), null,
                        List.copyOf(attrs), v.line());
            }
            globals.add(v);
        }
        List<Function> functions = new ArrayList<>();
        for (Function f : m.functions()) {
            if (f.entry() && !f.name().equals(kernel)) continue;
            if (!f.entry() && f.isDefined()) {
                List<String> attrs = new ArrayList<>(f.attributes());
                attrs.removeIf(a -> a.equals(".visible") || a.equals(".weak"));
                f = new Function(false, List.copyOf(attrs), f.name(), f.returns(), f.params(), f.directives(), f.body(), f.line());
            }
            functions.add(f);
        }
        return new PtxModule(m.name(), m.version(), m.targets(), m.addressSize(), List.copyOf(globals), List.copyOf(functions));
    }

    /**
     * What a driver reads of kernel {@code kernel}'s compiled unit, without its code: the unit's variables, its
     * declared-only functions (vprintf...), and the kernel's linkage, parameters and directives with a body of its
     * {@code .shared} declarations alone (renamed in order: only their sizes and alignments count), the rest of its
     * statements and the functions it calls left out. Printed, it is a few kilobytes that parse in a fraction of the
     * unit's time: a kernel found compiled in the cache by its text is loaded with it (the driver's KernelUnits).
     */
    public static PtxModule kernelInterface(PtxModule unit, String kernel) {
        List<Function> functions = new ArrayList<>();
        for (Function f : unit.functions()) {
            if (!f.isDefined()) {
                functions.add(f);
            } else if (f.entry() && f.name().equals(kernel)) {
                List<org.zludaj.ptx.model.Statement> shared = new ArrayList<>();
                sharedDeclarations(f.body(), shared);
                functions.add(new Function(true, f.attributes(), f.name(), f.returns(), f.params(), f.directives(), List.copyOf(shared), f.line()));
            }
        }
        return new PtxModule(unit.name(), unit.version(), unit.targets(), unit.addressSize(), unit.globals(), List.copyOf(functions));
    }

    private static void sharedDeclarations(List<org.zludaj.ptx.model.Statement> body, List<org.zludaj.ptx.model.Statement> out) {
        for (org.zludaj.ptx.model.Statement s : body) {
            if (s instanceof org.zludaj.ptx.model.Statement.Declaration d) {
                for (Variable v : d.variables()) {
                    if (v.space() != StateSpace.SHARED) continue;
                    Variable renamed = new Variable(v.space(), v.type(), v.vectorWidth(), v.align(), "__zluda_shared" + out.size(),
                            0, v.arrayDims(), null, v.attributes(), v.line());
                    out.add(new org.zludaj.ptx.model.Statement.Declaration(List.of(renamed), d.line()));
                }
            } else if (s instanceof org.zludaj.ptx.model.Statement.Block b) {
                sharedDeclarations(b.statements(), out);
            }
        }
    }

    /** The module reduced to the functions in {@code names} (from an already parsed module). */
    public static PtxModule restrict(PtxModule m, Set<String> names) {
        return new PtxModule(m.name(), m.version(), m.targets(), m.addressSize(), m.globals(),
                m.functions().stream().filter(f -> names.contains(f.name())).toList());
    }
}
