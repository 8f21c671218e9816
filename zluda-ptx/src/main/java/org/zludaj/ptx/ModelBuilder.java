package org.zludaj.ptx;

import java.util.ArrayList;
import java.util.List;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.tree.TerminalNode;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Type;
import org.zludaj.ptx.model.Variable;
import org.zludaj.ptx.parser.PtxParser;

/**
 * Parse tree of one piece of a module to model. Problems become {@link Diagnostic}s attributed to the function they
 * are in (so that function alone is dropped), never exceptions.
 */
final class ModelBuilder {
    private final String moduleName;
    final List<Diagnostic> diagnostics = new ArrayList<>();
    /** Functions that had a problem while being built. */
    final List<String> failed = new ArrayList<>();
    String version;
    final List<String> targets = new ArrayList<>();
    int addressSize = -1;
    final List<Variable> globals = new ArrayList<>();
    final List<Function> functions = new ArrayList<>();
    private String currentFunction;
    private boolean currentFailed;
    private boolean noUnroll;

    ModelBuilder(String moduleName) {
        this.moduleName = moduleName;
    }

    private void error(ParserRuleContext at, String message) {
        error(at.getStart(), message);
    }

    private void error(Token at, String message) {
        String where = currentFunction != null ? "function " + currentFunction + ": " : "";
        diagnostics.add(new Diagnostic(moduleName, at.getLine(), at.getCharPositionInLine() + 1, where + message));
        currentFailed = true;
    }

    void module(PtxParser.ModuleContext m) {
        for (PtxParser.TopLevelContext t : m.topLevel()) {
            if (t.versionDirective() != null) version = t.versionDirective().FLOAT().getText();
            else if (t.targetDirective() != null) t.targetDirective().ID().forEach(id -> targets.add(id.getText()));
            else if (t.addressSizeDirective() != null) {
                addressSize = (int) parseInt(t.addressSizeDirective().INT().getText());
                if (addressSize != 64) error(t, ".address_size " + addressSize + " is not supported (only 64)");
            } else if (t.declaration() != null) {
                currentFunction = null;
                globals.addAll(declaration(t.declaration()));
            } else if (t.function() != null) {
                currentFunction = t.function().name.getText();
                currentFailed = false;
                Function f = function(t.function());
                if (currentFailed) failed.add(f.name());
                else functions.add(f);
                currentFunction = null;
            } else if (t.pragmaDirective() != null && strings(t.pragmaDirective()).contains("\"nounroll\"")) {
                noUnroll = true;
            }
        }
        // a module-level "nounroll" covers every loop of the module, those before it too: each function's directive
        if (noUnroll) {
            String pragma = ".pragma \"nounroll\";";
            functions.replaceAll(f -> {
                if (f.directives().contains(pragma)) return f;
                List<String> d = new ArrayList<>(f.directives());
                d.add(pragma);
                return new Function(f.entry(), f.attributes(), f.name(), f.returns(), f.params(), List.copyOf(d), f.body(), f.line());
            });
        }
    }

    private Function function(PtxParser.FunctionContext f) {
        List<String> attrs = new ArrayList<>();
        for (PtxParser.AttributeContext a : f.attribute()) {
            String t = attributeText(a);
            // as ptxas: ".visible .visible .entry" and ".visible 4 .entry" are syntax errors
            if (attrs.contains(t) || a.INT() != null) error(a, "Parsing error near '" + (a.INT() != null ? a.INT().getText() : t) + "': syntax error");
            attrs.add(t);
        }
        boolean entry = f.kind.getText().equals(".entry");
        List<Variable> returns = List.of(), params = List.of();
        int nameIndex = f.name.getTokenIndex();
        for (PtxParser.ParamsContext p : f.params()) {
            List<Variable> vs = params(p);
            if (p.getStart().getTokenIndex() < nameIndex) returns = vs;
            else params = vs;
        }
        List<String> directives = new ArrayList<>();
        for (PtxParser.PerformanceDirectiveContext d : f.performanceDirective()) {
            if (d.pragmaDirective() != null) directives.add(".pragma " + String.join(", ", strings(d.pragmaDirective())) + ";");
            else if (d.DOT_ID() != null) {
                StringBuilder s = new StringBuilder(d.DOT_ID().getText());
                for (int i = 0; i < d.INT().size(); i++) s.append(i == 0 ? " " : ", ").append(d.INT(i).getText());
                directives.add(s.toString());
            } else directives.add(d.getText());
        }
        List<Statement> body = f.body() == null ? null : statements(f.body().statement());
        return new Function(entry, List.copyOf(attrs), f.name.getText(), returns, params, List.copyOf(directives), body,
                f.getStart().getLine());
    }

    private static List<String> strings(PtxParser.PragmaDirectiveContext p) {
        List<String> out = new ArrayList<>();
        for (TerminalNode s : p.STRING()) out.add(s.getText());
        return out;
    }

    private List<Variable> params(PtxParser.ParamsContext p) {
        List<Variable> vs = new ArrayList<>();
        if (p == null) return vs;
        for (PtxParser.ParamDeclContext d : p.paramDecl()) {
            List<Long> dims = new ArrayList<>();
            for (PtxParser.ArraySuffixContext a : d.arraySuffix()) dims.add(a.INT() == null ? -1 : parseInt(a.INT().getText()));
            String name = d.ID() != null ? d.ID().getText() : "_";
            Variable v = variable(d, d.attribute(), name, 0, dims, null);
            if (v != null) vs.add(v);
        }
        return List.copyOf(vs);
    }

    private List<Variable> declaration(PtxParser.DeclarationContext d) {
        List<Variable> out = new ArrayList<>();
        for (PtxParser.DeclaratorContext dc : d.declarator()) {
            int range = dc.INT() == null ? 0 : (int) parseInt(dc.INT().getText());
            List<Long> dims = new ArrayList<>();
            for (PtxParser.ArraySuffixContext a : dc.arraySuffix()) dims.add(a.INT() == null ? -1 : parseInt(a.INT().getText()));
            Operand init = dc.initializer() == null ? null : initializer(dc.initializer());
            Variable v = variable(d, d.attribute(), dc.ID().getText(), range, dims, init);
            if (v != null) out.add(v);
        }
        return out;
    }

    private static String attributeText(PtxParser.AttributeContext a) {
        if (a.DOT_ID().size() > 1) {  // .attribute(.managed, ...)
            StringBuilder s = new StringBuilder(a.DOT_ID(0).getText()).append('(');
            for (int i = 1; i < a.DOT_ID().size(); i++) s.append(i > 1 ? ", " : "").append(a.DOT_ID(i).getText());
            return s.append(')').toString();
        }
        if (a.DOT_ID().size() == 1) return a.INT() != null ? a.DOT_ID(0).getText() + " " + a.INT().getText() : a.DOT_ID(0).getText();
        return a.getText();
    }

    private Variable variable(ParserRuleContext at, List<PtxParser.AttributeContext> attributes, String name, int range,
                              List<Long> dims, Operand init) {
        StateSpace space = null;
        Type type = null;
        int vector = 0, align = 0;
        boolean pointer = false;
        List<String> other = new ArrayList<>();
        for (PtxParser.AttributeContext a : attributes) {
            String key = a.DOT_ID().isEmpty() ? a.getText() : a.DOT_ID(0).getText();
            if (a.INT() != null && !key.equals(".align") || a.INT() == null && key.equals(".align") && a.DOT_ID().size() == 1) {
                // as ptxas: a number belongs to .align alone (".shared 4 .b32 s[8]" is a syntax error)
                error(a, "Parsing error near '" + (a.INT() != null ? a.INT().getText() : key) + "': syntax error in the declaration of " + name);
            }
            StateSpace s = StateSpace.of(key);
            Type t = Type.of(key);
            if (pointer || a.DOT_ID().size() > 1) other.add(attributeText(a));           // .ptr .global .align 16: the pointee's
            else if (key.equals(".ptr")) { pointer = true; other.add(key); }
            else if (s != null && space == null) space = s;
            else if (t != null && type == null) type = t;
            else if (key.equals(".v2") || key.equals(".v4") || key.equals(".v8")) vector = key.charAt(2) - '0';
            else if (key.equals(".align") && a.INT() != null) {
                align = (int) parseInt(a.INT().getText());
                if (Integer.bitCount(align) != 1) error(a, "Alignment must be a power of two (.align " + a.INT().getText() + " of " + name + ")");
            }
            else if (key.equals(".visible") || key.equals(".extern") || key.equals(".weak") || key.equals(".common")) other.add(key);
            else {
                error(a, "unexpected " + attributeText(a) + " in the declaration of " + name);
            }
        }
        if (space == null) {
            error(at, "declaration of " + name + " has no state space");
            return null;
        }
        if (type == null) {
            error(at, "declaration of " + name + " has no type");
            return null;
        }
        return new Variable(space, type, vector, align, name, range, List.copyOf(dims), init, List.copyOf(other),
                at.getStart().getLine());
    }

    private List<Statement> statements(List<PtxParser.StatementContext> list) {
        List<Statement> out = new ArrayList<>(list.size());
        for (PtxParser.StatementContext s : list) {
            int line = s.getStart().getLine();
            if (s instanceof PtxParser.InstructionContext i) out.add(instruction(i));
            else if (s instanceof PtxParser.LabelContext l) out.add(new Statement.Label(l.ID().getText(), line));
            else if (s instanceof PtxParser.LocalDeclarationContext d)
                out.add(new Statement.Declaration(List.copyOf(declaration(d.declaration())), line));
            else if (s instanceof PtxParser.BlockContext b) out.add(new Statement.Block(statements(b.body().statement()), line));
            else if (s instanceof PtxParser.PragmaStatementContext p) out.add(new Statement.Pragma(strings(p.pragmaDirective()), line));
            else if (s instanceof PtxParser.CallPrototypeContext c) out.add(new Statement.Directive(callPrototype(c), line));
            else if (s instanceof PtxParser.TargetListContext tl) {
                List<String> names = new ArrayList<>();
                for (TerminalNode id : tl.ID()) names.add(id.getText());
                out.add(new Statement.Directive(tl.kind.getText() + " " + String.join(", ", names), line));
            }
            else if (s instanceof PtxParser.BareDirectiveContext bd) {  // ptxas takes a type alone (".f32;") as an empty statement
                if (Type.of(bd.DOT_ID().getText()) == null) error(bd, "Parsing error near ';': syntax error after " + bd.DOT_ID().getText());
            }
            else if (s instanceof PtxParser.OtherDirectiveContext o) {
                StringBuilder t = new StringBuilder(o.DOT_ID().getText());
                for (int k = 1; k < o.getChildCount() - 1; k++) {
                    String x = o.getChild(k).getText();
                    t.append(x.equals(",") ? "," : " " + x);
                }
                out.add(new Statement.Directive(t.toString(), line));
            }
        }
        return List.copyOf(out);
    }

    private String callPrototype(PtxParser.CallPrototypeContext c) {
        StringBuilder s = new StringBuilder(".callprototype");
        boolean beforeSink = true;
        for (int k = 1; k < c.getChildCount(); k++) {
            var ch = c.getChild(k);
            String x = ch.getText();
            if (ch instanceof PtxParser.ParamsContext p) {
                List<String> items = new ArrayList<>();
                for (Variable v : params(p)) items.add(PtxPrinter.variable(v));
                s.append(String.join(", ", items));
            } else if (x.equals("(")) s.append(" (");
            else if (x.equals(")")) s.append(")");
            else if (x.equals("_") && beforeSink) { s.append(" _"); beforeSink = false; }
            else if (x.equals(";")) { }
            else s.append(' ').append(x);
        }
        return s.toString();
    }

    private Statement.Instruction instruction(PtxParser.InstructionContext i) {
        Statement.Guard guard = null;
        if (i.guard() != null) guard = new Statement.Guard(i.guard().ID().getText(), i.guard().getChildCount() == 3);
        List<TerminalNode> dots = i.DOT_ID();
        List<String> mods = new ArrayList<>(dots.size());
        for (TerminalNode m : dots) mods.add(m.getText());
        List<Operand> ops = List.of();
        if (i.operandList() != null) {
            List<PtxParser.OperandContext> os = i.operandList().operand();
            ops = new ArrayList<>(os.size());
            for (PtxParser.OperandContext o : os) ops.add(operand(o));
        }
        return new Statement.Instruction(guard, i.opcode.getText(), mods, ops, i.getStart().getLine(),
                i.getStart().getCharPositionInLine() + 1);
    }

    private Operand operand(PtxParser.OperandContext o) {
        if (o instanceof PtxParser.PlainContext p) {
            Operand first = expression(p.expression(0));
            if (p.expression().size() == 1) return first;
            // %p|%q is a predicate pair; between integer constants | is a bitwise or (ptxas: add.u32 %r1, %r2, 1|2|4)
            List<Operand> parts = new ArrayList<>();
            for (PtxParser.ExpressionContext e : p.expression()) parts.add(expression(e));
            if (parts.stream().allMatch(x -> x instanceof Operand.IntImm))
                return new Operand.IntImm(parts.stream().mapToLong(x -> ((Operand.IntImm) x).value()).reduce(0, (a, b) -> a | b));
            if (parts.size() != 2) error(p, "| joins two predicates (d|p) or integer constants: " + p.getText());
            return new Operand.Pair(parts.get(0), parts.get(1));
        }
        if (o instanceof PtxParser.AddressContext a) {
            if (a.operand().size() == 1 && a.operand(0) instanceof PtxParser.PlainContext p && p.expression().size() == 1)
                return address(p.expression(0));
            List<Operand> es = new ArrayList<>();
            for (PtxParser.OperandContext e : a.operand()) es.add(operand(e));
            return new Operand.Bracket(es);
        }
        if (o instanceof PtxParser.VectorContext v) {
            List<Operand> es = new ArrayList<>();
            for (PtxParser.OperandContext e : v.operand()) es.add(operand(e));
            return new Operand.Vector(es);
        }
        if (o instanceof PtxParser.TupleContext t) {
            List<Operand> es = new ArrayList<>();
            if (t.operandList() != null) for (PtxParser.OperandContext e : t.operandList().operand()) es.add(operand(e));
            return new Operand.Tuple(es);
        }
        return new Operand.Sink();
    }

    private Operand address(PtxParser.ExpressionContext e) {
        Operand x = expression(e);
        if (x instanceof Operand.Sum s && s.subtract() && s.left() instanceof Operand.Name) {  // ptxas: [%rd1+-4], not [%rd1-4]
            error(e, "Parsing error near '-': syntax error in [" + e.getText() + "] (an offset is added: [r+-4])");
            return new Operand.Address(null, 0);
        }
        if (x instanceof Operand.Name n) return new Operand.Address(n, 0);
        if (x instanceof Operand.IntImm i) return new Operand.Address(null, i.value());
        if (x instanceof Operand.Sum s && s.left() instanceof Operand.Name n && s.right() instanceof Operand.IntImm i)
            return new Operand.Address(n, s.subtract() ? -i.value() : i.value());
        if (x instanceof Operand.Sum s && s.left() instanceof Operand.Name n && s.right() instanceof Operand.Neg ng
                && ng.operand() instanceof Operand.IntImm i)
            return new Operand.Address(n, s.subtract() ? i.value() : -i.value());
        error(e, "unsupported address expression [" + e.getText() + "]");
        return new Operand.Address(null, 0);
    }

    private Operand initializer(PtxParser.InitializerContext i) {
        if (!i.expression().isEmpty()) {  // a | b | c: bitwise or, the lowest precedence of PTX's constant expressions here
            Operand first = expression(i.expression(0));
            if (i.expression().size() == 1) return first;
            long v = 0;
            for (PtxParser.ExpressionContext e : i.expression()) {
                Operand x = expression(e);
                if (!(x instanceof Operand.IntImm n)) {
                    error(e, "operator | applies to integer constants only: " + i.getText());
                    return new Operand.IntImm(0);
                }
                v |= n.value();
            }
            return new Operand.IntImm(v);
        }
        List<Operand> es = new ArrayList<>();
        for (PtxParser.InitializerContext e : i.initializer()) es.add(initializer(e));
        return new Operand.Aggregate(es);
    }

    private Operand expression(PtxParser.ExpressionContext e) {
        if (e instanceof PtxParser.NameContext n)
            return new Operand.Name(n.ID().getText(), n.DOT_ID() == null ? null : n.DOT_ID().getText());
        if (e instanceof PtxParser.IntegerContext i) {
            try {
                return new Operand.IntImm(parseInt(i.INT().getText()));
            } catch (NumberFormatException x) {
                error(e, "integer constant " + i.INT().getText() + " is out of range");
                return new Operand.IntImm(0);
            }
        }
        if (e instanceof PtxParser.HexFloatContext h) {
            String t = h.HEXFLOAT().getText();
            boolean f32 = Character.toLowerCase(t.charAt(1)) == 'f';
            if (t.length() != (f32 ? 10 : 18)) {
                error(e, "hexadecimal float " + t + " must have " + (f32 ? 8 : 16) + " digits");
                return new Operand.FloatImm(0, 0, 32);
            }
            long bits = Long.parseUnsignedLong(t.substring(2), 16);
            double value = f32 ? Float.intBitsToFloat((int) bits) : Double.longBitsToDouble(bits);
            return new Operand.FloatImm(value, bits, f32 ? 32 : 64);
        }
        if (e instanceof PtxParser.FloatingContext f) return new Operand.FloatImm(Double.parseDouble(f.FLOAT().getText()), 0, 0);
        if (e instanceof PtxParser.NegateContext n) {
            Operand x = expression(n.expression());
            if (x instanceof Operand.IntImm i) return new Operand.IntImm(-i.value());
            if (x instanceof Operand.FloatImm f && f.width() == 0) return new Operand.FloatImm(-f.value(), 0, 0);
            return new Operand.Neg(x);
        }
        if (e instanceof PtxParser.PositiveContext p) {  // [%rd1+ +8]: ptxas takes a unary plus on a constant
            Operand x = expression(p.expression());
            if (!(x instanceof Operand.IntImm) && !(x instanceof Operand.FloatImm)) error(e, "+ applies to constants only: " + e.getText());
            return x;
        }
        if (e instanceof PtxParser.NotContext n) return new Operand.Not(expression(n.expression()));
        if (e instanceof PtxParser.ComplementContext c) {
            Operand x = expression(c.expression());
            if (x instanceof Operand.IntImm i) return new Operand.IntImm(~i.value());
            error(e, "~ applies to integer constants only: " + e.getText());
            return x;
        }
        if (e instanceof PtxParser.ParenContext p) return expression(p.expression());
        if (e instanceof PtxParser.CallContext c) return new Operand.Call(c.ID().getText(), expression(c.expression()));
        if (e instanceof PtxParser.AddSubContext a) {
            Operand l = expression(a.expression(0)), r = expression(a.expression(1));
            boolean sub = a.op.getText().equals("-");
            if (l instanceof Operand.IntImm x && r instanceof Operand.IntImm y)
                return new Operand.IntImm(sub ? x.value() - y.value() : x.value() + y.value());
            // [%rd1+4-8]: ptxas reads a name plus a constant expression, %rd1 + (4-8)
            if (l instanceof Operand.Sum s && s.right() instanceof Operand.IntImm x && r instanceof Operand.IntImm y)
                return new Operand.Sum(s.left(), new Operand.IntImm((s.subtract() ? -x.value() : x.value()) + (sub ? -y.value() : y.value())), false);
            return new Operand.Sum(l, r, sub);
        }
        if (e instanceof PtxParser.MulDivContext || e instanceof PtxParser.ShiftContext || e instanceof PtxParser.BitAndContext
                || e instanceof PtxParser.BitXorContext || e instanceof PtxParser.CompareContext
                || e instanceof PtxParser.EqualContext) {  // the PTX ISA's constant expressions, 64-bit; comparisons give 1 or 0
            Operand l = expression((PtxParser.ExpressionContext) e.getChild(0)), r = expression((PtxParser.ExpressionContext) e.getChild(2));
            String op = e.getChild(1).getText();
            if (!(l instanceof Operand.IntImm x) || !(r instanceof Operand.IntImm y)) {
                error(e, "operator " + op + " applies to integer constants only: " + e.getText());
                return new Operand.IntImm(0);
            }
            if (op.equals("/") && y.value() == 0) {
                error(e, "division by zero in constant expression " + e.getText());
                return new Operand.IntImm(0);
            }
            return new Operand.IntImm(switch (op) {
                case "*" -> x.value() * y.value();
                case "/" -> x.value() / y.value();
                case "<<" -> x.value() << y.value();
                case ">>" -> x.value() >> y.value();
                case "&" -> x.value() & y.value();
                case "<" -> x.value() < y.value() ? 1 : 0;
                case ">" -> x.value() > y.value() ? 1 : 0;
                case "<=" -> x.value() <= y.value() ? 1 : 0;
                case ">=" -> x.value() >= y.value() ? 1 : 0;
                case "==" -> x.value() == y.value() ? 1 : 0;
                case "!=" -> x.value() != y.value() ? 1 : 0;
                default -> x.value() ^ y.value();
            });
        }
        error(e, "unsupported expression " + e.getText());
        return new Operand.IntImm(0);
    }

    static long parseInt(String t) {
        if (t.endsWith("U") || t.endsWith("u")) t = t.substring(0, t.length() - 1);
        if (t.startsWith("0x") || t.startsWith("0X")) return Long.parseUnsignedLong(t.substring(2), 16);
        if (t.startsWith("0b") || t.startsWith("0B")) return Long.parseUnsignedLong(t.substring(2), 2);
        if (t.length() > 1 && t.startsWith("0")) return Long.parseUnsignedLong(t.substring(1), 8);
        return Long.parseUnsignedLong(t);
    }
}
