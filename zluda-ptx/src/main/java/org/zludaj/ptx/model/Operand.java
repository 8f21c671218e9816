package org.zludaj.ptx.model;

import java.util.List;

/** Instruction operands and initializer expressions. */
public sealed interface Operand {
    /** A register, symbol or label; {@code component} is a suffix such as {@code .x} of {@code %tid.x}, or null. */
    record Name(String name, String component) implements Operand {}

    record IntImm(long value) implements Operand {}

    /** A float immediate: decimal, or {@code 0f}/{@code 0d} hex bits ({@code bits} set, width 32 or 64). */
    record FloatImm(double value, long bits, int width) implements Operand {}

    /** {@code [base + offset]}; base is null for an absolute address. */
    record Address(Name base, long offset) implements Operand {}

    /** {@code [a, b, ...]} with more than one item (texture and surface instructions). */
    record Bracket(List<Operand> elements) implements Operand {}

    record Vector(List<Operand> elements) implements Operand {}

    /** {@code (a, b, ...)} argument lists of call. */
    record Tuple(List<Operand> elements) implements Operand {}

    /** {@code p|q}: the two destinations of setp. */
    record Pair(Operand first, Operand second) implements Operand {}

    record Not(Operand operand) implements Operand {}

    record Neg(Operand operand) implements Operand {}

    /** {@code generic(sym)} and similar function-like initializers. */
    record Call(String function, Operand argument) implements Operand {}

    record Sum(Operand left, Operand right, boolean subtract) implements Operand {}

    record Sink() implements Operand {}

    /** {@code {a, b, ...}} array initializer. */
    record Aggregate(List<Operand> elements) implements Operand {}
}
