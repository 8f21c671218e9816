package org.zludaj.ptx.model;

import java.util.List;

/**
 * A declared variable: register, parameter or module/function-scope variable. {@code rangeCount} > 0 declares
 * {@code name0 .. name(rangeCount-1)} (the {@code %r<N>} form). {@code arrayDims} holds each {@code [n]} (-1 when
 * unsized); {@code initializer} is null when absent.
 */
public record Variable(StateSpace space, Type type, int vectorWidth, int align, String name, int rangeCount,
                       List<Long> arrayDims, Operand initializer, List<String> attributes, int line) {

    /** Size in bytes of one element (vector included). */
    public long elementSize() {
        return (long) type.bytes() * Math.max(1, vectorWidth);
    }

    /** Total size in bytes (unsized arrays count as 0). */
    public long size() {
        long n = elementSize();
        for (long d : arrayDims) n *= Math.max(0, d);
        return n;
    }
}
