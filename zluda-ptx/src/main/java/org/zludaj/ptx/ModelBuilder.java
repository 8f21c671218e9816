package org.zludaj.ptx;

import java.util.ArrayList;
import java.util.List;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.tree.TerminalNode;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.Operand;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.StateSpace;
import org.zludaj.ptx.model.Statement;
import org.zludaj.ptx.model.Type;
import org.zludaj.ptx.model.Variable;
import org.zludaj.ptx.parser.PtxParser;

/** Parse tree to typed model; problems become {@link Diagnostic}s, never exceptions. */
final class ModelBuilder {
    private final String moduleName;
    private final List<Diagnostic> diags = new ArrayList<>();

    ModelBuilder(String moduleName) {
        this.moduleName = moduleName;
    }

    List<Diagnostic> diagnostics() {
        return diags;
    }

    private void error(ParserRuleContext at, String message) {
        diags.add(new Diagnostic(moduleName, at.getStart().getLine(), at.getStart().getCharPositionInLine() + 1, message));
    }

    PtxModule module(PtxParser.ModuleContext m) {
        String version = null;
        List<String> targets = new ArrayList<>();
        int addressSize = 64;
        List<Variable> globals = new ArrayList<>();
        List<Function> functions = new ArrayList<>();
        for (PtxParser.TopLevelContext t : m.topLevel()) {
            if (t.versionDirective() != null) version = t.versionDirective().FLOAT().getText();
            else if (t.targetDirective() != null) t.targetDirective().ID().forEach(id -> targets.add(id.getText()));
            else if (t.addressSizeDirective() != null) addressSize = (int) parseInt(t.addressSizeDirective().INT().getText());
            else if (t.declaration() != null) globals.addAll(declaration(t.declaration()));
            else if (t.function() != null) {
                Function f = function(t.function());
                if (f != null) functions.add(f);
            }
        }
        if (version == null) diags.add(new Diagnostic(moduleName, 1, 1, "missing .version directive"));
        if (addressSize != 64) diags.add(new Diagnostic(moduleName, 1, 1, ".address_size " + addressSize + " is not supported (only 64)"));
        return new PtxModule(moduleName, version, List.copyOf(targets), addressSize, List.copyOf(globals), List.copyOf(functions));
    }

    private Function function(PtxParser.FunctionContext f) {
        List<String> attrs = new ArrayList<>();
        for (PtxParser.AttributeContext a : f.attribute()) attrs.add(a.getText());
        boolean entry = f.kind.getText().equals(".entry");
        List<Variable> returns = List.of(), params = List.of();
        List<PtxParser.ParamsContext> ps = f.params();
        // ( returns ) name ( params ): the first list is the return list only when it precedes the name
        int nameIndex = f.name.getTokenIndex();
        for (PtxParser.ParamsContext p : ps) {
            List<Variable> vs = new ArrayList<>();
            for (PtxParser.ParamDeclContext d : p.paramDecl()) vs.add(param(d));
            if (p.getStart().getTokenIndex() < nameIndex) returns = vs;
            else params = vs;
        }
        List<Statement> body = f.body() == null ? null : statements(f.body().statement());
        return new Function(entry, List.copyOf(attrs), f.name.getText(), returns, params, body, f.getStart().getLine());
    }

    private Variable param(PtxParser.ParamDeclContext d) {
        List<Long> dims = new ArrayList<>();
        for (PtxParser.ArraySuffixContext a : d.arraySuffix()) dims.add(a.INT() == null ? -1 : parseInt(a.INT().getText()));
        return variable(d, d.attribute(), d.ID().getText(), 0, dims, null);
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

    private Variable variable(ParserRuleContext at, List<PtxParser.AttributeContext> attributes, String name, int range,
                              List<Long> dims, Operand init) {
        StateSpace space = null;
        Type type = null;
        int vector = 0, align = 0;
        List<String> other = new ArrayList<>();
        for (PtxParser.AttributeContext a : attributes) {
            String key = a.DOT_ID() != null ? a.DOT_ID().getText() : a.getText();
            StateSpace s = StateSpace.of(key);
            Type t = Type.of(key);
            if (s != null) space = s;
            else if (t != null) type = t;
            else if (key.equals(".v2") || key.equals(".v4") || key.equals(".v8")) vector = key.charAt(2) - '0';
            else if (key.equals(".align") && a.INT() != null) align = (int) parseInt(a.INT().getText());
            else other.add(a.getText());
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
        List<Statement> out = new ArrayList<>();
        for (PtxParser.StatementContext s : list) {
            int line = s.getStart().getLine();
            if (s instanceof PtxParser.LabelContext l) out.add(new Statement.Label(l.ID().getText(), line));
            else if (s instanceof PtxParser.LocalDeclarationContext d)
                out.add(new Statement.Declaration(declaration(d.declaration()), line));
            else if (s instanceof PtxParser.BlockContext b) out.add(new Statement.Block(statements(b.body().statement()), line));
            else if (s instanceof PtxParser.PragmaStatementContext p) {
                List<String> values = new ArrayList<>();
                for (TerminalNode str : p.pragmaDirective().STRING()) values.add(unquote(str.getText()));
                out.add(new Statement.Pragma(values, line));
            } else if (s instanceof PtxParser.InstructionContext i) out.add(instruction(i));
        }
        return out;
    }

    private Statement.Instruction instruction(PtxParser.InstructionContext i) {
        Statement.Guard guard = null;
        if (i.guard() != null) guard = new Statement.Guard(i.guard().ID().getText(), i.guard().getChildCount() == 3);
        List<String> mods = new ArrayList<>();
        for (TerminalNode m : i.DOT_ID()) mods.add(m.getText());
        List<Operand> ops = new ArrayList<>();
        if (i.operandList() != null) for (PtxParser.OperandContext o : i.operandList().operand()) ops.add(operand(o));
        return new Statement.Instruction(guard, i.opcode.getText(), List.copyOf(mods), List.copyOf(ops),
                i.getStart().getLine(), i.getStart().getCharPositionInLine() + 1);
    }

    private Operand operand(PtxParser.OperandContext o) {
        if (o instanceof PtxParser.AddressContext a) return address(a.expression());
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
        if (o instanceof PtxParser.SinkContext) return new Operand.Sink();
        PtxParser.PlainContext p = (PtxParser.PlainContext) o;
        Operand first = expression(p.expression(0));
        return p.expression().size() == 2 ? new Operand.Pair(first, expression(p.expression(1))) : first;
    }

    private Operand address(PtxParser.ExpressionContext e) {
        Operand x = expression(e);
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
        if (i.expression() != null) return expression(i.expression());
        List<Operand> es = new ArrayList<>();
        for (PtxParser.InitializerContext e : i.initializer()) es.add(initializer(e));
        return new Operand.Aggregate(es);
    }

    private Operand expression(PtxParser.ExpressionContext e) {
        if (e instanceof PtxParser.NameContext n)
            return new Operand.Name(n.ID().getText(), n.DOT_ID() == null ? null : n.DOT_ID().getText());
        if (e instanceof PtxParser.IntegerContext i) return new Operand.IntImm(parseInt(i.INT().getText()));
        if (e instanceof PtxParser.FloatingContext f) return new Operand.FloatImm(Double.parseDouble(f.FLOAT().getText()), 0, 0);
        if (e instanceof PtxParser.HexFloatContext h) {
            String t = h.HEXFLOAT().getText();
            long bits = Long.parseUnsignedLong(t.substring(2), 16);
            boolean f32 = Character.toLowerCase(t.charAt(1)) == 'f';
            double value = f32 ? Float.intBitsToFloat((int) bits) : Double.longBitsToDouble(bits);
            return new Operand.FloatImm(value, bits, f32 ? 32 : 64);
        }
        if (e instanceof PtxParser.NegateContext n) {
            Operand x = expression(n.expression());
            if (x instanceof Operand.IntImm i) return new Operand.IntImm(-i.value());
            if (x instanceof Operand.FloatImm f && f.width() == 0) return new Operand.FloatImm(-f.value(), 0, 0);
            return new Operand.Neg(x);
        }
        if (e instanceof PtxParser.NotContext n) return new Operand.Not(expression(n.expression()));
        if (e instanceof PtxParser.ComplementContext c) {
            Operand x = expression(c.expression());
            if (x instanceof Operand.IntImm i) return new Operand.IntImm(~i.value());
            error(e, "unsupported expression " + e.getText());
            return x;
        }
        if (e instanceof PtxParser.ParenContext p) return expression(p.expression());
        if (e instanceof PtxParser.CallContext c) return new Operand.Call(c.ID().getText(), expression(c.expression()));
        if (e instanceof PtxParser.AddSubContext a) {
            Operand l = expression(a.expression(0)), r = expression(a.expression(1));
            boolean sub = a.op.getText().equals("-");
            if (l instanceof Operand.IntImm x && r instanceof Operand.IntImm y)
                return new Operand.IntImm(sub ? x.value() - y.value() : x.value() + y.value());
            return new Operand.Sum(l, r, sub);
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

    private static String unquote(String s) {
        return s.length() >= 2 ? s.substring(1, s.length() - 1) : s;
    }
}
