package org.zludaj.ptx.check;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.zludaj.ptx.Diagnostic;
import org.zludaj.ptx.isa.InstructionTable;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Statement.Instruction;
import org.zludaj.ptx.model.Type;
import org.zludaj.ptx.model.Variable;

/**
 * Semantic checks of a parsed module, per function: the instruction table (opcode, modifiers, operand count, PTX
 * version and target), name resolution with PTX scoping (module, parameters, nested blocks), labels (duplicate,
 * undefined), operand types under the ISA's relaxed rules, and state spaces of addressed variables.
 */
public final class Checker {
    private Checker() {}

    public record Result(List<Diagnostic> diagnostics, Set<String> failed) {}

    /** Special registers (with or without a .x/.y/.z component) and their families. */
    static boolean isSpecial(String name) {
        if (SPECIAL.contains(name)) return true;
        return name.matches("%envreg([0-9]|[12][0-9]|3[01])|%pm[0-7](_64)?|%lanemask_(eq|le|lt|ge|gt)|%reserved_smem_offset_(begin|end|cap|[01])");
    }

    private static final Set<String> SPECIAL = Set.of("%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid",
            "%smid", "%nsmid", "%gridid", "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo",
            "%globaltimer_hi", "%total_smem_size", "%aggr_smem_size", "%dynamic_smem_size", "%current_graph_exec",
            "%is_explicit_cluster", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank",
            "%cluster_nctarank", "WARP_SZ");

    public static Result check(PtxModule m) {
        List<Diagnostic> diags = new ArrayList<>();
        Set<String> failed = new LinkedHashSet<>();
        Map<String, Variable> globals = new HashMap<>();
        Set<String> functions = new HashSet<>();
        for (Variable v : m.globals()) {
            if (globals.put(v.name(), v) != null && !v.attributes().contains(".extern"))
                diags.add(new Diagnostic(m.name(), v.line(), 0, "duplicate declaration of " + v.name()));
            if (incomplete(v)) diags.add(new Diagnostic(m.name(), v.line(), 0, incompleteMessage(v)));
        }
        for (Function f : m.functions()) functions.add(f.name());
        int ptx = 0, sm = m.smVersion();
        try {
            if (m.version() != null) ptx = (int) Math.round(Double.parseDouble(m.version()) * 10);
        } catch (NumberFormatException e) {
            diags.add(new Diagnostic(m.name(), 1, 1, "bad .version " + m.version()));
        }
        for (Variable v : m.globals()) checkInitializer(m, v, globals, functions, diags);
        for (Function f : m.functions()) {
            if (!f.isDefined()) continue;
            FunctionChecker fc = new FunctionChecker(m, f, globals, functions, ptx, sm);
            fc.run();
            if (!fc.diags.isEmpty()) {
                diags.addAll(fc.diags);
                failed.add(f.name());
            }
        }
        return new Result(diags, failed);
    }

    /** As ptxas: an array of unknown or zero size ({@code x[]}, {@code x[0]}) is .extern or has an initializer that sizes it. */
    static boolean incomplete(Variable v) {
        return (v.arrayDims().contains(-1L) || v.arrayDims().contains(0L)) && v.initializer() == null && !v.attributes().contains(".extern") && v.space() != StateSpace.PARAM;
    }

    static String incompleteMessage(Variable v) {
        return "Non-external variable '" + v.name() + "' has incomplete type";
    }

    private static void checkInitializer(PtxModule m, Variable v, Map<String, Variable> globals, Set<String> functions,
                                         List<Diagnostic> diags) {
        if (v.initializer() == null) return;
        // as ptxas: "Greater number of elements in array initializer" (fewer are zero-filled)
        if (v.initializer() instanceof Operand.Aggregate a && !v.arrayDims().isEmpty() && v.arrayDims().get(0) >= 0
                && a.elements().size() > v.arrayDims().get(0))
            diags.add(new Diagnostic(m.name(), v.line(), 0, "Greater number of elements in array initializer of " + v.name()
                    + " (" + a.elements().size() + " for " + v.arrayDims().get(0) + ")"));
        Deque<Operand> work = new ArrayDeque<>(List.of(v.initializer()));
        while (!work.isEmpty()) {
            Operand o = work.pop();
            if (o instanceof Operand.Name n && !globals.containsKey(n.name()) && !functions.contains(n.name()))
                diags.add(new Diagnostic(m.name(), v.line(), 0, "initializer of " + v.name() + " names undefined " + n.name()));
            else if (o instanceof Operand.Aggregate a) a.elements().forEach(work::push);
            else if (o instanceof Operand.Call c) work.push(c.argument());
            else if (o instanceof Operand.Sum s) {
                work.push(s.left());
                work.push(s.right());
            } else if (o instanceof Operand.Neg n) work.push(n.operand());
        }
    }

    private static final class FunctionChecker {
        final PtxModule m;
        final Function f;
        final Map<String, Variable> globals;
        final Set<String> functions;
        final int ptx, sm;
        final List<Diagnostic> diags = new ArrayList<>();
        final Deque<Map<String, Variable>> scopes = new ArrayDeque<>();
        final Set<String> labels = new HashSet<>();
        final InstructionTable table = InstructionTable.get();
        final Set<String> kernels = new HashSet<>();

        FunctionChecker(PtxModule m, Function f, Map<String, Variable> globals, Set<String> functions, int ptx, int sm) {
            this.m = m;
            this.f = f;
            this.globals = globals;
            this.functions = functions;
            for (Function g : m.functions()) if (g.entry()) kernels.add(g.name());
            this.ptx = ptx;
            this.sm = sm;
        }

        void error(int line, int column, String message) {
            diags.add(new Diagnostic(m.name(), line, column, "function " + f.name() + ": " + message));
        }

        void run() {
            // as NVIDIA's ptxas (each once compiled silently here: mutations of ptx-tests against ptxas 13.0)
            if (f.attributes().contains(".entry") || f.attributes().contains(".func"))
                error(f.line(), 0, "Parsing error near '" + (f.entry() ? ".entry" : ".func") + "': a second " + (f.entry() ? ".entry" : ".func"));
            if (f.entry()) {
                for (Variable p : f.params()) {
                    if (p.space() != StateSpace.PARAM) error(p.line(), 0, "Entry parameter '" + p.name() + "' must have .param state space");
                }
            }
            Map<String, Variable> params = new HashMap<>();
            for (Variable p : f.params()) params.put(p.name(), p);
            for (Variable p : f.returns()) params.put(p.name(), p);
            scopes.push(params);
            collectLabels(f.body());
            block(f.body());
        }

        void collectLabels(List<Statement> body) {
            for (Statement s : body) {
                if (s instanceof Statement.Label l && !labels.add(l.name())) error(l.line(), 0, "duplicate label " + l.name());
                else if (s instanceof Statement.Block b) collectLabels(b.statements());
            }
        }

        void block(List<Statement> body) {
            Map<String, Variable> scope = new HashMap<>();
            scopes.push(scope);
            for (Statement s : body) {  // declarations are visible in the whole block
                if (s instanceof Statement.Directive d && DECLARATION.matcher(d.text()).lookingAt())
                    error(d.line(), 0, "Parsing error: a declaration without a type (" + d.text() + ")");
                else if (s instanceof Statement.Directive d && !BODY_DIRECTIVE.matcher(d.text()).lookingAt())
                    error(d.line(), 0, "Parsing error: " + d.text().split("[ ,]")[0] + " is not a directive of a function body (" + d.text() + ")");
                if (s instanceof Statement.Declaration d) {
                    for (Variable v : d.variables()) {
                        if (v.initializer() != null && v.space() != StateSpace.GLOBAL && v.space() != StateSpace.CONST)
                            error(v.line(), 0, "No initial value is allowed for '" + v.name() + "' in this state space");
                        if (incomplete(v)) error(v.line(), 0, incompleteMessage(v));
                        if (v.rangeCount() > 0) {
                            for (int i = 0; i < v.rangeCount(); i++) declare(scope, v.name() + i, v);
                        } else {
                            declare(scope, v.name(), v);
                        }
                    }
                }
            }
            for (Statement s : body) {
                if (s instanceof Statement.Instruction i) instruction(i);
                else if (s instanceof Statement.Block b) block(b.statements());
            }
            scopes.pop();
        }

        void declare(Map<String, Variable> scope, String name, Variable v) {
            if (scope.put(name, v) != null) error(v.line(), 0, "duplicate declaration of " + name);
        }

        Variable lookup(String name) {
            for (Map<String, Variable> s : scopes) {
                Variable v = s.get(name);
                if (v != null) return v;
            }
            return globals.get(name);
        }

        void instruction(Instruction i) {
            String bad = table.validate(i, ptx, sm);
            if (bad != null) {
                error(i.line(), i.column(), bad);
                return;
            }
            if (i.guard() != null) {
                Variable g = lookup(i.guard().predicate());
                if (g == null) error(i.line(), i.column(), "undefined predicate " + i.guard().predicate());
                else if (g.type() != Type.PRED) error(i.line(), i.column(), "guard " + i.guard().predicate() + " is not a .pred register");
            }
            boolean branch = i.opcode().equals("bra") || i.opcode().equals("brx") || i.opcode().equals("call");
            for (int k = 0; k < i.operands().size(); k++) names(i, i.operands().get(k), branch && k == 0);
            if (diags.isEmpty()) {
                shapes(i);
                operandKinds(i);
                memoryOperands(i);
                types(i);
                spaces(i);
            }
        }

        /**
         * As NVIDIA's ptxas takes ld, ldu and st: the value's register is at least as wide as the type (wider ones are
         * extended or truncated), an integer type never in float registers only; an address register is an integer one;
         * a vector expression's registers, in any instruction, are of one size. Anything else was loaded or stored silently with another width here
         * (found by mutating ptx-tests against ptxas 13.0).
         */
        void memoryOperands(Instruction i) {
            for (int k = 0; k < i.operands().size(); k++) {
                if (!(i.operands().get(k) instanceof Operand.Address a) || a.base() == null) continue;
                Variable v = lookup(a.base().name());
                if (v != null && v.space() == StateSpace.REG && v.vectorWidth() == 0 && (v.type().isFloat() || v.type() == Type.PRED)) {
                    error(i.line(), i.column(), "Illegal to use symbol '" + a.base().name() + "' of type " + v.type().modifier()
                            + " as address operand. Use integer or bit only.");
                    return;
                }
                if (v != null && v.space() == StateSpace.REG && v.vectorWidth() == 0 && v.type().bits() == 32 && wideSpace(i, k)) {
                    error(i.line(), i.column(), "32-Bit ABI (32-bit addressing) is not supported: " + a.base().name()
                            + " as a .global or generic address under .address_size 64");
                    return;
                }
            }
            if (i.opcode().equals("cvta") && i.has(".u32")) {  // the generic side of the conversion would be 32-bit
                error(i.line(), i.column(), "32-Bit ABI (32-bit addressing) is not supported: cvta.u32 under .address_size 64");
                return;
            }
            for (Operand o : i.operands()) {
                if (o instanceof Operand.Vector vec && !sameSizes(vec.elements())) {
                    error(i.line(), i.column(), "Incompatible elements of vector expression in " + i.text());
                    return;
                }
            }
            boolean load = i.opcode().equals("ld") || i.opcode().equals("ldu");
            if (!load && !i.opcode().equals("st") || i.operands().size() < 2) return;
            Type t = null;
            for (String mod : i.modifiers()) {
                Type x = Type.of(mod);
                if (x != null) t = x;
            }
            if (t == null || t == Type.PRED) return;
            Operand value = load ? i.operands().get(0) : i.operands().get(i.operands().size() - 1);
            List<Operand> elements = value instanceof Operand.Vector vec ? vec.elements() : List.of(value);
            int registers = 0, floats = 0;
            for (Operand e : elements) {
                if (!(e instanceof Operand.Name n) || n.component() != null) continue;
                Variable r = lookup(n.name());
                if (r == null || r.space() != StateSpace.REG || r.vectorWidth() > 0 || r.type() == Type.PRED) continue;
                registers++;
                if (r.type().isFloat()) floats++;
                if (r.type().bits() < t.bits() || t.isFloat() && r.type().isFloat() && r.type().bits() != t.bits()) {
                    error(i.line(), i.column(), "Arguments mismatch for instruction '" + i.opcode() + "' (" + n.name() + " is "
                            + r.type().modifier() + ", the instruction's type " + t.modifier() + ")");
                    return;
                }
            }
            // an integer type in float registers only: ptxas takes ld.v2.u32 {%r1, %f1} but not ld.u32 %f1 or {%f1, %f2}
            if (registers > 0 && floats == registers && t.kind() != Type.Kind.BITS && !t.isFloat()) {
                error(i.line(), i.column(), "Arguments mismatch for instruction '" + i.opcode() + "' (float registers for "
                        + t.modifier() + ")");
            }
        }

        /** The instructions whose address operands are in the space their modifiers name (none: generic). */
        static final Set<String> ADDRESSED = Set.of("ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "mbarrier",
                "applypriority", "discard");

        /**
         * Whether address operand {@code k} of {@code i} is in a space whose addresses are 64-bit under .address_size 64:
         * .global or generic. ptxas 13.0 refuses a 32-bit register there for every target ("32-Bit ABI ... is not
         * supported", "32-Bit compilation is no longer supported"); .shared, .local, .const and .param take one, and so
         * does cp.async's global source.
         */
        static boolean wideSpace(Instruction i, int k) {
            if (!ADDRESSED.contains(i.opcode())) return false;
            for (String m : i.modifiers()) {
                if (m.startsWith(".shared") || m.equals(".local") || m.equals(".const") || m.startsWith(".param")) return false;
            }
            return true;
        }

        /** Whether a vector expression's registers ({%r1, %r2}) are all of one size (ptxas refuses {%r1, %rd1}). */
        private boolean sameSizes(List<Operand> elements) {
            int width = -1;
            for (Operand e : elements) {
                if (!(e instanceof Operand.Name n) || n.component() != null) continue;
                Variable r = lookup(n.name());
                if (r == null || r.space() != StateSpace.REG || r.vectorWidth() > 0 || r.type() == Type.PRED) continue;
                if (width >= 0 && r.type().bits() != width) return false;
                width = r.type().bits();
            }
            return true;
        }

        /**
         * Operand rules of single instructions as NVIDIA's ptxas has them (mutations of the differential corpus against
         * ptxas 13.0, tools/ptxas_accept_diff.py --from): an immediate address ({@code [16]}) only in .local; shfl.sync
         * with its member mask (5 operands) and shfl without .sync without (4), the same for vote (3 and 2); bfe's and
         * bfi's value operands of the type's size and their positions and lengths of 32 bits; cvt from a float type
         * not of an integer constant; no double negation ({@code !!%p}). {@code shfl.sync.up.b32 %r0, %r4, %r0, 0 -1}
         * (a comma lost: "0 -1" is one operand) was compiled with a member mask of its own here.
         */
        void shapes(Instruction i) {
            for (Operand o : i.operands()) {
                if (o instanceof Operand.Address a && a.base() == null && !i.has(".local")) {
                    error(i.line(), i.column(), "Immediate addresses allowed only for .local state space");
                    return;
                }
                if (o instanceof Operand.Not n && n.operand() instanceof Operand.Not) {
                    error(i.line(), i.column(), "Parsing error near '!': a negation of a negation");
                    return;
                }
            }
            int n = i.operands().size();
            boolean sync = i.has(".sync");
            if (i.opcode().equals("shfl") && n != (sync ? 5 : 4) || i.opcode().equals("vote") && n != (sync ? 3 : 2)) {
                error(i.line(), i.column(), "Arguments mismatch for instruction '" + i.opcode() + "' (" + n + " operands"
                        + (sync ? ": .sync takes a member mask last" : "") + ")");
                return;
            }
            if (i.opcode().equals("wmma") && (i.has(".mma") ? n != 4 : n < 2 || n > 3)) {  // load/store: the stride is optional
                error(i.line(), i.column(), "Arguments mismatch for instruction 'wmma' (" + n + " operands)");
                return;
            }
            // discard and applypriority act on one 128-byte line: their size operand is that constant
            if ((i.opcode().equals("discard") || i.opcode().equals("applypriority")) && n == 2) {
                Operand size = i.operands().get(1);
                if (!(size instanceof Operand.IntImm c)) {
                    error(i.line(), i.column(), "Arguments mismatch for instruction '" + i.opcode() + "' (the size is the constant 128)");
                    return;
                }
                if (c.value() != 128) {
                    error(i.line(), i.column(), "Argument 2 of instruction '" + i.opcode() + "': unexpected value '" + c.value() + "', expected to be 128");
                    return;
                }
            }
            // untyped instructions whose operands are integers take no float constant (isspacep.global %p, 0f3F800000)
            if ((i.opcode().equals("isspacep") || i.opcode().equals("bar") || i.opcode().equals("barrier"))
                    && i.operands().stream().anyMatch(o -> o instanceof Operand.FloatImm)) {
                error(i.line(), i.column(), "Arguments mismatch for instruction '" + i.opcode() + "' (a float constant)");
                return;
            }
            // a barrier's thread count, where a constant, is a multiple of the warp size (bar.sync 1, 33)
            if ((i.opcode().equals("bar") || i.opcode().equals("barrier")) && !i.has(".warp")) {
                int countAt = i.has(".red") ? (n == 4 ? 2 : -1) : (n == 2 ? 1 : -1);
                if (countAt >= 0 && i.operands().get(countAt) instanceof Operand.IntImm c && c.value() % 32 != 0) {
                    error(i.line(), i.column(), "Number of threads participating in barrier must be in multiple of warp size");
                    return;
                }
            }
            // the fragments are vector expressions and the memory an address: wmma.load {..}, [p]; wmma.store [p], {..}
            if ((i.opcode().equals("wmma") || i.opcode().equals("mma")) && n >= 2) {
                boolean store = i.has(".store"), load = i.has(".load");
                for (int k = 0; k < (load || store ? 2 : Math.min(n, 4)); k++) {  // mma.sp's metadata operands follow
                    boolean address = load ? k == 1 : store && k == 0;
                    Operand o = i.operands().get(k);
                    if (address ? !(o instanceof Operand.Address) : !(o instanceof Operand.Vector)) {
                        error(i.line(), i.column(), "Arguments mismatch for instruction '" + i.opcode() + "' (operand " + (k + 1)
                                + " must be " + (address ? "an address [p]" : "a vector expression {...}") + ")");
                        return;
                    }
                }
            }
            // a wmma.load/store stride and the address isspacep asks about are integer registers (32-bit; 32 or 64)
            Operand integer = i.opcode().equals("wmma") && n == 3 ? i.operands().get(2) : i.opcode().equals("isspacep") && n == 2 ? i.operands().get(1) : null;
            Operand.Name in = integer instanceof Operand.Name x && x.component() == null ? x : null;
            Variable r = in != null ? lookup(in.name()) : null;
            if (r != null && r.space() == StateSpace.REG && r.vectorWidth() == 0 && (r.type().isFloat() || r.type() == Type.PRED
                    || r.type().bits() != 32 && (i.opcode().equals("wmma") || r.type().bits() != 64))) {
                error(i.line(), i.column(), "Arguments mismatch for instruction '" + i.opcode() + "' (" + in.name() + " is " + r.type().modifier() + ")");
                return;
            }
            Type t = null;
            for (String mod : i.modifiers()) {
                Type x = Type.of(mod);
                if (x != null) t = x;
            }
            if (i.opcode().equals("bar") || i.opcode().equals("barrier")) barrierOperands(i, t);
            if (VIDEO.contains(i.opcode()) && !videoOperands(i)) return;
            if (t == null) return;
            if (i.opcode().equals("bfe") || i.opcode().equals("bfi")) {
                int values = i.opcode().equals("bfe") ? 2 : 3;
                for (int k = 0; k < n; k++) checkReg(i, i.operands().get(k), k < values ? t : Type.U32, k < values ? t.bits() : 32);
            }
            String signature = SIGNATURES.get(i.opcode());
            if (signature != null) {
                Type first = firstType(i);
                String[] slots = signature.split(" ");
                for (int k = 0; k < Math.min(n, slots.length); k++) {
                    Type want = signatureSlot(slots[k], i.opcode(), t, first);
                    if (want != null) checkReg(i, i.operands().get(k), want, want.bits());
                }
            }
            if (i.opcode().equals("cvt") && n == 2) cvtOperands(i);
            if (i.opcode().equals("cvt") && n == 3 && (i.has(".f16x2") || i.has(".bf16x2"))) {
                // cvt.rn.f16x2.f32 d, a, b packs two values into one register: as ptxas 13.0 takes them, d is an integer
                // register of 32 bits or more for f16x2 and of exactly 32 for bf16x2, a and b float registers of their
                // type's size or integer registers of its size or, for f16x2, more (tools: operand sweep, 2026-11-28)
                boolean bf = i.has(".bf16x2");
                packed(i, i.operands().get(0), 32, bf, false);
                packed(i, i.operands().get(1), t.bits(), bf, true);
                packed(i, i.operands().get(2), t.bits(), bf, true);
            }
            // cvt takes a third and fourth operand only to pack (.f16x2, .e4m3x2..., cvt.pack) or with .rs's random bits
            if (i.opcode().equals("cvt") && n > 2 && !i.has(".pack") && !i.has(".rs")
                    && i.modifiers().stream().noneMatch(m -> m.endsWith("x2") || m.endsWith("x4"))) {
                error(i.line(), i.column(), "Arguments mismatch for instruction 'cvt' (" + n + " operands)");
                return;
            }
            floatConstants(i, t);
            floatLiterals(i, t);
        }

        /**
         * Operand types of instructions whose operands are not all of the instruction's type (T: its last type, D: its
         * first, U32/B32/PRED: fixed, -: not checked), as ptxas 13.0 has them ("Arguments mismatch",
         * tools/ptxas_accept_diff.py seed 8): a shift amount is 32-bit, lop3/prmt/shf/fns/dp4a operands are 32-bit,
         * slct's selector has its second type, popc/clz/bfind give 32 bits.
         */
        static final Map<String, String> SIGNATURES = Map.ofEntries(
                Map.entry("shl", "T T U32"), Map.entry("shr", "T T U32"), Map.entry("lop3", "B32 B32 B32 B32 -"),
                Map.entry("prmt", "B32 B32 B32 B32"), Map.entry("shf", "B32 B32 B32 U32"), Map.entry("fns", "B32 B32 B32 -"),
                Map.entry("dp4a", "U32 U32 U32 U32"), Map.entry("dp2a", "U32 U32 U32 U32"), Map.entry("slct", "D D D T"),
                Map.entry("popc", "U32 T"), Map.entry("clz", "U32 T"), Map.entry("bfind", "U32 T"), Map.entry("brev", "T T"),
                Map.entry("mul24", "T T T"), Map.entry("mad24", "T T T T"), Map.entry("testp", "PRED T"),
                Map.entry("bmsk", "B32 U32 U32"), Map.entry("szext", "T T U32"), Map.entry("shfl", "B32 B32 B32 B32 U32"),
                Map.entry("vote", "T - U32"), Map.entry("match", "U32 T U32"), Map.entry("atom", "T - T T"), Map.entry("red", "- T"),
                Map.entry("redux", "T T U32"), Map.entry("set", "D T T PRED"));

        /** A scalar video instruction's byte or half-word selector. */
        static final java.util.regex.Pattern SCALAR_SELECTOR = java.util.regex.Pattern.compile("\\.(b[0-3]|h[01])");

        /** The video instructions (PTX ISA 9.7.16): scalar, and SIMD on half-words and bytes. */
        static final Set<String> VIDEO = Set.of("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset",
                "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4", "vavrg4", "vabsdiff4",
                "vmin4", "vmax4", "vset4");

        /**
         * Video operands as ptxas 13.0 takes them (tools/ptxas_accept_diff.py seed 23, then every operand of video_mad's
         * forms replaced in turn): 32-bit integer registers, or constants in the scalar forms; no selector on c, nor on
         * vmad's destination; scalar forms select one byte or half-word, and not the destination's with a secondary
         * operation; negation only in vmad, of (a xor b) or c (both a and b negated is a product not negated), never
         * with .po.
         * False where the instruction was refused.
         */
        boolean videoOperands(Instruction i) {
            List<Operand> o = i.operands();
            String op = i.opcode();
            boolean mad = op.equals("vmad"), simd = op.endsWith("2") || op.endsWith("4");
            boolean secondary = i.has(".add") || i.has(".min") || i.has(".max");
            boolean[] neg = new boolean[o.size()];
            for (int k = 0; k < o.size(); k++) {
                Operand x = o.get(k);
                if (x instanceof Operand.FloatImm) {
                    error(i.line(), i.column(), "Arguments mismatch for instruction '" + op + "' (a float constant)");
                    return false;
                }
                if (simd && k > 0 && !(x instanceof Operand.Name)) {  // vadd2 d, a, 5, c: no constants in SIMD video
                    error(i.line(), i.column(), "Incorrect video selector for operand " + k);
                    return false;
                }
                if (x instanceof Operand.Neg n) {
                    neg[k] = true;
                    x = n.operand();
                    if (!mad) {
                        error(i.line(), i.column(), "Operand negation not allowed for instruction '" + op + "'");
                        return false;
                    }
                }
                if (!(x instanceof Operand.Name n)) continue;
                Variable v = lookup(n.name());
                if (v == null || v.space() != StateSpace.REG || v.vectorWidth() > 0) continue;
                if (v.type().bits() != 32 || v.type().isFloat() || v.type() == Type.PRED) {
                    error(i.line(), i.column(), "Arguments mismatch for instruction '" + op + "' (" + n.name() + " is "
                            + v.type().modifier() + ", video operands are 32-bit integers)");
                    return false;
                }
                if (n.component() != null && !simd && k < 3 && !SCALAR_SELECTOR.matcher(n.component()).matches()) {
                    error(i.line(), i.column(), "Incorrect video selector for operand " + k);  // %r1.h10 in vadd
                    return false;
                }
                if (n.component() != null && !simd && k == 0 && secondary) {
                    error(i.line(), i.column(), "Video instruction cannot have destination selector and secondary operation");
                    return false;
                }
                if (n.component() != null && k == 3) {
                    error(i.line(), i.column(), "Video selector is not allowed on 'source C' operand");
                    return false;
                }
                if (n.component() != null && k == 0 && mad) {
                    error(i.line(), i.column(), "Video selector is not allowed on destination for instruction 'vmad'");
                    return false;
                }
            }
            if (mad && o.size() == 4) {
                if (i.has(".po") && (neg[1] || neg[2] || neg[3])) {
                    error(i.line(), i.column(), "Conflicting use of '.po' modifier with operand negation");
                    return false;
                }
                if ((neg[1] ^ neg[2]) && neg[3]) {
                    error(i.line(), i.column(), "Operand negation limited to either (source A xor source B) or source C");
                    return false;
                }
            }
            return true;
        }

        /**
         * bar/barrier: the barrier's number and thread count are 32-bit integers ({@code bar.sync %rd6} is refused by
         * ptxas 13.0: "Arguments mismatch", tools/ptxas_accept_diff.py seed 22); {@code bar.red} gives its type (a .u32
         * count or a predicate) from a predicate, its last operand, and takes the barrier's thread count as the other
         * forms do ({@code bar.red.and.pred p, 1, 64, q}: four operands).
         */
        void barrierOperands(Instruction i, Type t) {
            List<Operand> o = i.operands();
            boolean red = i.has(".red");
            // bar.sync a{, b}, bar.arrive a, b, bar.warp.sync mask; bar.red d, a{, b}, {!}c
            if (red ? o.size() < 3 : o.size() > 2) {
                error(i.line(), i.column(), "Arguments mismatch for instruction '" + i.opcode() + (red ? ".red" : "") + "' ("
                        + o.size() + " operands)");
                return;
            }
            for (int k = red ? 1 : 0; k < o.size() - (red ? 1 : 0); k++) checkReg(i, o.get(k), Type.U32, 32);
            if (red && t != null && o.size() >= 3) {
                checkReg(i, o.get(0), t, t.bits());
                checkReg(i, o.get(o.size() - 1), Type.PRED, 1);
            }
        }

        /** The type a {@link #SIGNATURES} slot names, with {@code t} the instruction's last type and {@code first} its first. */
        private static Type signatureSlot(String slot, String opcode, Type t, Type first) {
            Type want = switch (slot) {
                case "T" -> t;
                case "D" -> first;
                case "U32" -> Type.U32;
                case "B32" -> Type.B32;
                case "PRED" -> Type.PRED;
                default -> null;
            };
            // redux.sync of bits (and/or/xor .b32) takes integer registers only (ptxas 13.0)
            return want != null && want.kind() == Type.Kind.BITS && opcode.equals("redux") ? Type.U32 : want;
        }

        /** An instruction's first type modifier ({@code cvt.rn.f32.s32}: .f32), or null. */
        private static Type firstType(Instruction i) {
            for (String mod : i.modifiers()) {
                Type x = Type.of(mod);
                if (x != null) return x;
            }
            return null;
        }

        /**
         * cvt's relaxed rule (PTX ISA: cvt's operands may be wider than its types, so narrow values live in regular
         * registers) as ptxas 13.0 applies it: a register narrower than its type is refused ({@code cvt.u64.u32 %rd1, %h2},
         * {@code cvt.rp.f64.s64 %r1, %rd1}), and a float register must have its type's size ({@code cvt.rzi.u32.f64 %r1,
         * %f2}, {@code cvt.f32.f32 %fd1, %f2}), an integer type is not in a float register ({@code cvt.rzi.s32.f32 %f1,
         * %f2}); {@code cvt.u32.u16 %rd1, %h2} and {@code cvt.rn.f16.f32 %r1, %f2} are valid.
         */
        void cvtOperands(Instruction i) {
            List<Type> types = new ArrayList<>();
            for (String mod : i.modifiers()) {
                Type x = Type.of(mod);
                if (x != null) types.add(x);
            }
            if (types.size() != 2) return;
            for (int k = 0; k < 2; k++) {
                if (!(i.operands().get(k) instanceof Operand.Name n) || n.component() != null) continue;
                Variable v = lookup(n.name());
                if (v == null || v.space() != StateSpace.REG || v.vectorWidth() > 0 || v.type() == Type.PRED) continue;
                Type want = types.get(k), r = v.type();
                // cvt.rna.tf32.f32: a 32-bit destination that is not a float register, a 32-bit source (ptxas 13.0)
                boolean tf32 = types.get(0) == Type.TF32 && (r.bits() != 32 || k == 0 && r.isFloat());
                // an integer type is never in a float register (cvt.rzi.s32.f32 %f1, %f2)
                boolean integerInFloat = r.isFloat() && (want.kind() == Type.Kind.SIGNED || want.kind() == Type.Kind.UNSIGNED);
                if (tf32 || integerInFloat || r.bits() < want.bits() || r.isFloat() && r.bits() != want.bits()) {
                    error(i.line(), i.column(), "Arguments mismatch for instruction 'cvt' (" + n.name() + " is " + r.modifier()
                            + ", the " + (k == 0 ? "destination" : "source") + " type " + want.modifier() + ")");
                    return;
                }
            }
        }

        /** An operand of a packing cvt ({@link #instruction}): see there. */
        private void packed(Instruction i, Operand o, int bits, boolean exact, boolean floatAllowed) {
            if (!(o instanceof Operand.Name n) || n.component() != null) return;
            Variable v = lookup(n.name());
            if (v == null || v.space() != StateSpace.REG || v.vectorWidth() > 0) return;
            Type r = v.type();
            boolean ok = r != Type.PRED && (r.isFloat() ? floatAllowed && r.bits() == bits : exact ? r.bits() == bits : r.bits() >= bits);
            if (!ok) error(i.line(), i.column(), "Arguments mismatch for instruction 'cvt' (" + n.name() + " is " + r.modifier() + ")");
        }

        /**
         * A float constant ({@code 0f3F800000}, 32 bits; {@code 0d...}, 64 bits) where an operand is not a float: ptxas
         * 13.0 takes one for an f32 or f64 operand (converting it) and, as bits, for a .b32 or .b64 operand of its own
         * size, nowhere else ({@code add.u32 %r1, %r2, 0f3F800000}, {@code shl.b32 %r1, %r1, 0f3F800000}, {@code mov.b64
         * %rd1, 0f3F800000}: "Arguments mismatch"; found by replacing each operand of the ptx-tests in turn, 2026-11-28).
         */
        void floatLiterals(Instruction i, Type t) {
            List<Operand> ops = i.operands();
            for (int k = 0; k < ops.size(); k++) {
                Operand o = ops.get(k);
                List<Operand> values = o instanceof Operand.Vector v ? v.elements() : List.of(o);
                for (Operand e : values) {
                    if (!(e instanceof Operand.FloatImm f)) continue;
                    Type slot = slotType(i, k, t);
                    if (slot == null || slot.isFloat()) continue;
                    if (slot.kind() == Type.Kind.BITS && slot.bits() == f.width()) continue;
                    error(i.line(), i.column(), "Arguments mismatch for instruction '" + i.opcode() + "' (a " + f.width()
                            + "-bit float constant for a " + slot.modifier() + " operand)");
                    return;
                }
            }
        }

        /** The type of operand {@code k} where the checks know it: {@link #SIGNATURES}, cvt's and set's two types, the
         *  value of st, and the instructions whose operands all have the instruction's type; null elsewhere. */
        private Type slotType(Instruction i, int k, Type t) {
            Type first = firstType(i);
            String op = i.opcode();
            if (op.equals("bar") || op.equals("barrier") || op.equals("isspacep") && k == 1) return Type.U32;  // numbers, counts, addresses
            if (op.equals("vote") && k == 1) return Type.PRED;
            String signature = SIGNATURES.get(op);
            if (signature != null) {
                String[] slots = signature.split(" ");
                return k < slots.length ? signatureSlot(slots[k], op, t, first) : null;
            }
            if (op.equals("cvt")) return k == 0 ? first : t;
            if (op.equals("st")) return k == i.operands().size() - 1 ? t : null;
            if (op.equals("bfe") || op.equals("bfi")) return k < (op.equals("bfe") ? 2 : 3) ? t : Type.U32;
            if (!SAME_TYPE.contains(op)) return null;
            if (op.equals("setp") && (k == 0 || k == 3) || op.equals("selp") && k == 3) return Type.PRED;
            if (i.has(".wide") && (k == 0 || k == 3)) return null;
            return t;
        }

        /** The operands of each instruction that have its (last) type, where it is a float type: the others are
         *  predicates, addresses, or have types of their own (cvt's and set's destinations). */
        static final Map<String, int[]> FLOAT_OPERANDS = Map.ofEntries(
                Map.entry("cvt", new int[] {1, 2}), Map.entry("set", new int[] {1, 2}), Map.entry("testp", new int[] {1}),
                Map.entry("selp", new int[] {0, 1, 2}), Map.entry("setp", new int[] {1, 2}), Map.entry("st", new int[] {1}),
                Map.entry("atom", new int[] {2, 3}), Map.entry("red", new int[] {1}));

        /** Unary and binary arithmetic with every operand of the instruction's type. */
        static final Set<String> FLOAT_ARITHMETIC = Set.of("add", "sub", "mul", "mad", "fma", "div", "min", "max", "neg", "abs",
                "copysign", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "mov");

        /**
         * As ptxas 13.0 (tools/ptxas_accept_diff.py): an operand of a float type is a register or a float constant
         * ({@code 0f3F800000}), never an integer constant ({@code add.f32 %f1, %f2, 1} is refused, as are
         * {@code st.global.f32 [a], 1} and {@code red.add.f32 [a], 1}); one of a half type (f16, f16x2, bf16, bf16x2)
         * is a register only ({@code add.f16 %h1, %h2, 0x3C00}, {@code red.add.noftz.f16x2 [a], 1},
         * {@code cvt.f32.f16 %f1, 0f3F800000}: "Arguments mismatch").
         */
        void floatConstants(Instruction i, Type t) {
            if (t == null || !t.isFloat()) return;
            int[] slots = FLOAT_OPERANDS.get(i.opcode());
            if (slots == null && !FLOAT_ARITHMETIC.contains(i.opcode())) return;
            boolean half = t.bytes() == 2 || t == Type.F16X2 || t == Type.BF16X2;
            for (int k = 0; k < i.operands().size(); k++) {
                if (slots != null && !contains(slots, k)) continue;
                Operand o = i.operands().get(k);
                List<Operand> values = o instanceof Operand.Vector v ? v.elements() : List.of(o);
                for (Operand e : values) {
                    if (e instanceof Operand.IntImm || half && e instanceof Operand.FloatImm) {
                        error(i.line(), i.column(), "Arguments mismatch for instruction '" + i.opcode() + "' (" + (half ? "a constant" : "an integer constant")
                                + " for a " + t.modifier() + " operand" + (half ? ": only registers" : ": 1.0 is 0f3F800000") + ")");
                        return;
                    }
                }
            }
        }

        private static boolean contains(int[] slots, int k) {
            for (int x : slots) if (x == k) return true;
            return false;
        }

        /** A state space's directive that the grammar took for some other directive: {@code .reg %r1, 0;}. */
        static final java.util.regex.Pattern DECLARATION = java.util.regex.Pattern.compile("\\.(reg|local|shared|param|const|global)\\b");

        /** The directives a body holds besides declarations and pragmas (an instruction without its opcode, such as
         *  {@code .b64 %rd1, %r2, 4;}, was taken for one and dropped). */
        static final java.util.regex.Pattern BODY_DIRECTIVE = java.util.regex.Pattern.compile("\\.(callprototype|branchtargets|calltargets)\\b");

        /** Instructions whose operands may name a variable (its address): everywhere else only inside [ ]. */
        static final Set<String> TAKES_VARIABLES = Set.of("mov", "cvta", "call", "getctarank", "mapa", "istypep");

        /**
         * As NVIDIA's ptxas: a variable's name (its address) is an operand of mov, cvta to the generic space and the
         * cluster instructions only, elsewhere only inside an address ([var+8]); a special register one of mov and cvt
         * only. Anything else was compiled silently as an address or a value (found by mutating ptx-tests against
         * ptxas 13.0): ptxas refuses it, and so does the driver's load.
         */
        void operandKinds(Instruction i) {
            String op = i.opcode().equals("cvta") && i.has(".to") ? "cvta.to" : i.opcode();
            boolean variables = TAKES_VARIABLES.contains(op), specials = op.equals("mov") || op.equals("cvt");
            for (int k = 0; k < i.operands().size(); k++) {
                if (i.operands().get(k) instanceof Operand.Sum s
                        && (s.subtract() || !(s.left() instanceof Operand.Name) || !(s.right() instanceof Operand.IntImm))) {
                    error(i.line(), i.column(), "Parsing error: argument " + k + " of instruction '" + op
                            + "': only a register or a variable plus an integer (r+4, var+8)");
                    return;
                }
                for (Operand.Name n : topLevelNames(i.operands().get(k))) {
                    Variable v = lookup(n.name());
                    if (v != null && v.space() != StateSpace.REG && !variables) {
                        error(i.line(), i.column(), "Argument " + k + " of instruction '" + op + "': must be register (" + n.name()
                                + " is a ." + v.space().name().toLowerCase() + " variable)");
                        return;
                    }
                    if (v == null && !specials && isSpecial(n.name()) && !n.name().equals("WARP_SZ")) {
                        error(i.line(), i.column(), "Special register argument not allowed for instruction '" + op + "' (" + n.name() + ")");
                        return;
                    }
                }
            }
        }

        /** The names an operand holds outside addresses and call lists: a name, a vector's, a pair's, a negation's. */
        private static List<Operand.Name> topLevelNames(Operand o) {
            if (o instanceof Operand.Name n) return List.of(n);
            List<Operand.Name> out = new ArrayList<>();
            if (o instanceof Operand.Vector v) v.elements().forEach(e -> out.addAll(topLevelNames(e)));
            else if (o instanceof Operand.Pair p) {
                out.addAll(topLevelNames(p.first()));
                out.addAll(topLevelNames(p.second()));
            } else if (o instanceof Operand.Not n) out.addAll(topLevelNames(n.operand()));
            else if (o instanceof Operand.Neg n) out.addAll(topLevelNames(n.operand()));
            return out;
        }

        /** Every name an operand mentions must resolve: register, variable, label, function or special register. */
        /** The suffixes of a vector register's element, a special register's dimension and the video instructions'
         *  byte and half-word selectors ({@code %r1.b3210}, {@code %r2.h10}). */
        static final java.util.regex.Pattern COMPONENT = java.util.regex.Pattern.compile("\\.([xyzwrgba]|b[0-7]{1,4}|h[0-3]{1,2})");

        void names(Instruction i, Operand o, boolean branchTarget) {
            if (o instanceof Operand.Name n) {
                String name = n.name();
                if (n.component() != null && !COMPONENT.matcher(n.component()).matches()) {  // %rd5.param0
                    error(i.line(), i.column(), "Parsing error near '" + n.component() + "': syntax error");
                    return;
                }
                if (!i.opcode().equals("call") && kernels.contains(name) && lookup(name) == null) {
                    // ptxas takes a kernel's name as an address constant (for CUDA's device-side launches, which need
                    // NVIDIA's device runtime): not compiled here, and said so rather than "unknown name"
                    error(i.line(), i.column(), i.text() + ": the address of kernel " + name
                            + " (device-side launches, CUDA dynamic parallelism) is not supported");
                    return;
                }
                if (lookup(name) != null || functions.contains(name) || isSpecial(name)) return;
                if (labels.contains(name)) return;
                error(i.line(), i.column(), (branchTarget ? "undefined label " : "undefined name ") + name + " in " + i.text());
            } else if (o instanceof Operand.Address a) {
                if (a.base() != null) names(i, a.base(), false);
            } else if (o instanceof Operand.Vector v) {
                v.elements().forEach(e -> names(i, e, false));
            } else if (o instanceof Operand.Bracket b) {
                b.elements().forEach(e -> names(i, e, false));
            } else if (o instanceof Operand.Tuple t) {
                t.elements().forEach(e -> names(i, e, branchTarget));
            } else if (o instanceof Operand.Pair p) {
                names(i, p.first(), false);
                names(i, p.second(), false);
            } else if (o instanceof Operand.Not n) {
                names(i, n.operand(), false);
            } else if (o instanceof Operand.Neg n) {
                names(i, n.operand(), false);
            }
        }

        static final Set<String> SAME_TYPE = Set.of("add", "sub", "mul", "mad", "fma", "div", "rem", "min", "max", "neg",
                "abs", "and", "or", "xor", "not", "mov", "selp", "setp", "cnot", "copysign", "rcp", "sqrt", "rsqrt", "cvta", "sad", "addc", "subc",
                "madc", "tanh", "ex2", "lg2", "sin", "cos");

        /** The relaxed type rules for instructions whose register operands all have the instruction's type. */
        void types(Instruction i) {
            if (!SAME_TYPE.contains(i.opcode())) return;
            Type t = null;
            for (String mod : i.modifiers()) {
                Type x = Type.of(mod);
                if (x != null) t = x;
            }
            if (t == null || t == Type.PRED && !i.opcode().equals("mov")) return;
            boolean wide = i.has(".wide");
            for (int k = 0; k < i.operands().size(); k++) {
                Operand o = i.operands().get(k);
                boolean predicateSlot = i.opcode().equals("setp") && (k == 0 || k == 3) || i.opcode().equals("selp") && k == 3;
                Type want = predicateSlot ? Type.PRED : t;
                int bits = want.bits() * (wide && (k == 0 || k == 3 && i.opcode().equals("mad")) ? 2 : 1);
                if (o instanceof Operand.Pair p) {
                    checkReg(i, p.first(), want, bits);
                    checkReg(i, p.second(), want, bits);
                } else if (o instanceof Operand.Not n) {
                    checkReg(i, n.operand(), want, bits);
                } else if (!(o instanceof Operand.Vector)) {
                    checkReg(i, o, want, bits);
                }
            }
        }

        void checkReg(Instruction i, Operand o, Type want, int bits) {
            if (!(o instanceof Operand.Name n)) return;
            Variable v = lookup(n.name());
            // a vector register's element (%v.x) has the vector's element type (ptxas: xor.b32 of a .b16 element is refused)
            if (v == null || v.space() != StateSpace.REG || (n.component() == null) != (v.vectorWidth() == 0)) return;
            Type r = v.type();
            if (want == Type.PRED || r == Type.PRED) {
                if (want != r) error(i.line(), i.column(), i.text() + ": " + n.name() + " is ." + r.name().toLowerCase()
                        + ", a ." + want.name().toLowerCase() + " operand is needed");
                return;
            }
            boolean sizeOk = r.bits() == bits;
            // a pair of halves is in a bit or integer register (ptxas 13.0 refuses add.f16x2 of an .f32 register)
            boolean pairOk = !(want == Type.F16X2 || want == Type.BF16X2) || !r.isFloat() || r == want;
            boolean kindOk = pairOk && (r.kind() == Type.Kind.BITS || want.kind() == Type.Kind.BITS
                    || want.isFloat() == r.isFloat());
            if (!sizeOk || !kindOk) {
                error(i.line(), i.column(), i.text() + ": register " + n.name() + " of type " + r.modifier()
                        + " does not fit a " + bits + "-bit " + (want.isFloat() ? "float" : "integer") + " operand");
            }
        }

        /** A variable addressed directly must live in the instruction's state space (or be reached generically). */
        void spaces(Instruction i) {
            if (!i.opcode().equals("ld") && !i.opcode().equals("st") && !i.opcode().equals("ldu")) return;
            StateSpace space = null;
            for (String mod : i.modifiers()) {
                String key = mod.contains("::") ? mod.substring(0, mod.indexOf("::")) : mod;
                StateSpace s = StateSpace.of(key);
                if (s != null) space = s;
            }
            for (Operand o : i.operands()) {
                if (!(o instanceof Operand.Address a) || a.base() == null) continue;
                Variable v = lookup(a.base().name());
                if (v == null || v.space() == StateSpace.REG) continue;
                if (space != null && v.space() != space) {
                    error(i.line(), i.column(), i.text() + " addresses " + v.name() + ", a ." + v.space().name().toLowerCase()
                            + " variable");
                }
                boolean kernelParam = f.entry() && f.params().contains(v);
                if (i.opcode().equals("st") && (v.space() == StateSpace.CONST || kernelParam))
                    error(i.line(), i.column(), "cannot store to ." + v.space().name().toLowerCase() + " variable " + v.name());
            }
        }
    }
}
