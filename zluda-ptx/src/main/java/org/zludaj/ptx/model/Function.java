package org.zludaj.ptx.model;

import java.util.List;

/**
 * A {@code .entry} (kernel) or {@code .func}; {@code body} is null for a declaration without definition.
 * {@code attributes} are the linkage directives before it ({@code .visible}, {@code .extern}, {@code .weak} ...),
 * {@code directives} the performance directives after it ({@code .maxntid 256, 1, 1}, {@code .noreturn} ...).
 */
public record Function(boolean entry, List<String> attributes, String name, List<Variable> returns,
                       List<Variable> params, List<String> directives, List<Statement> body, int line) {
    public boolean isDefined() {
        return body != null;
    }
}
