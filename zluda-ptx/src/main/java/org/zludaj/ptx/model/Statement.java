package org.zludaj.ptx.model;

import java.util.List;

/** A statement of a function body. */
public sealed interface Statement {
    int line();

    record Label(String name, int line) implements Statement {}

    /** Variables declared in the body ({@code .reg}, {@code .local}, {@code .shared}, {@code .param} ...). */
    record Declaration(List<Variable> variables, int line) implements Statement {}

    /** A nested {@code { ... }} block with its own scope. */
    record Block(List<Statement> statements, int line) implements Statement {}

    /** Other directives in a body, kept as normalized text: {@code .callprototype}, {@code .branchtargets} ... */
    record Directive(String text, int line) implements Statement {}

    /** A {@code .pragma} inside a body. */
    record Pragma(List<String> values, int line) implements Statement {}

    /** The generic instruction shape: guard, opcode, ordered modifiers, operands. */
    record Instruction(Guard guard, String opcode, List<String> modifiers, List<Operand> operands, int line, int column)
            implements Statement {
        public boolean has(String modifier) {
            return modifiers.contains(modifier);
        }

        public String text() {
            return opcode + String.join("", modifiers);
        }
    }

    /** {@code @p} or {@code @!p}. */
    record Guard(String predicate, boolean negated) {}
}
