package org.zludaj.ptx.model;

import java.util.List;

/** A parsed PTX module: directives, module-scope variables and functions, in source order. */
public record PtxModule(String name, String version, List<String> targets, int addressSize,
                        List<Variable> globals, List<Function> functions) {

    /** The SM number of the first {@code .target} (e.g. 75 for sm_75), 0 when absent. */
    public int smVersion() {
        for (String t : targets) {
            if (t.startsWith("sm_")) {
                String digits = t.substring(3).replaceAll("[^0-9].*$", "");
                if (!digits.isEmpty()) return Integer.parseInt(digits);
            }
        }
        return 0;
    }

    /** The function of this name: its definition where the module has one (after forward declarations), else its declaration. */
    public Function function(String name) {
        Function declared = null;
        for (Function f : functions) {
            if (!f.name().equals(name)) continue;
            if (f.isDefined()) return f;
            if (declared == null) declared = f;
        }
        return declared;
    }
}
