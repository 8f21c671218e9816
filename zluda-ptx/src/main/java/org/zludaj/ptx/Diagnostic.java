package org.zludaj.ptx;

/** A problem found in PTX, located by module name, line and column (1-based; column 0 when unknown). */
public record Diagnostic(String module, int line, int column, String message) {
    @Override
    public String toString() {
        return module + ":" + line + ":" + column + ": " + message;
    }
}
