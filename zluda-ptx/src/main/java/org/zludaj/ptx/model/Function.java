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

    /** The thread counts of directive {@code name} ({@code .maxntid} or {@code .reqntid}: x[, y[, z]]), null if absent. */
    public int[] threads(String name) {
        for (String d : directives) {
            if (!d.startsWith(name + " ")) continue;
            String[] parts = d.substring(name.length()).trim().split("\\s*,\\s*");
            int[] n = {1, 1, 1};
            for (int i = 0; i < Math.min(3, parts.length); i++) n[i] = Integer.parseInt(parts[i].trim());
            return n;
        }
        return null;
    }

    /** The value of a one-number directive ({@code .minnctapersm 2}, {@code .maxnreg 64}), or -1 if absent. */
    public long value(String name) {
        for (String d : directives) {
            if (!d.startsWith(name + " ")) continue;
            try {
                return Long.parseLong(d.substring(name.length()).trim());
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }

    /** The most threads a block of this kernel may have by its .maxntid or .reqntid (0: not declared). */
    public long maxThreads() {
        int[] n = threads(".maxntid");
        if (n == null) n = threads(".reqntid");
        return n == null ? 0 : (long) n[0] * n[1] * n[2];
    }
}
