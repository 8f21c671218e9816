package org.zludaj.ptx;

import java.util.List;
import java.util.stream.Collectors;

/** PTX that cannot be read or compiled; carries every diagnostic found. */
public class PtxException extends Exception {
    private final List<Diagnostic> diagnostics;

    public PtxException(List<Diagnostic> diagnostics) {
        super(diagnostics.stream().map(Diagnostic::toString).collect(Collectors.joining("\n")));
        this.diagnostics = List.copyOf(diagnostics);
    }

    public PtxException(Diagnostic d) {
        this(List.of(d));
    }

    public List<Diagnostic> diagnostics() {
        return diagnostics;
    }
}
