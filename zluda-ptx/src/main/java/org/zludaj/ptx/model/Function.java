package org.zludaj.ptx.model;

import java.util.List;

/** A {@code .entry} (kernel) or {@code .func}; {@code body} is null for a declaration without definition. */
public record Function(boolean entry, List<String> attributes, String name, List<Variable> returns,
                       List<Variable> params, List<Statement> body, int line) {
    public boolean isDefined() {
        return body != null;
    }
}
