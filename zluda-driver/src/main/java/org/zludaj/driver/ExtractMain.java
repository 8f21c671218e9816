package org.zludaj.driver;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code zluda extract FILES|DIRS... -o DIR}: writes the PTX of every module found in executables, shared libraries
 * and fatbin files (as {@code cuobjdump -xptx all} does) into DIR, one file per module and PTX candidate, named
 * {@code <file>.<container>.<n>.ptx}. The PTX is the text the driver would compile.
 */
public final class ExtractMain {
    private ExtractMain() {}

    public static void main(String[] args) throws Exception {
        Path outDir = null;
        List<Path> inputs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("-o") && i + 1 < args.length) outDir = Path.of(args[++i]);
            else inputs.add(Path.of(args[i]));
        }
        if (outDir == null || inputs.isEmpty()) {
            System.err.println("usage: zluda extract FILES|DIRS... -o DIR");
            System.exit(2);
        }
        Files.createDirectories(outDir);
        List<PrecompileMain.Found> modules = new ArrayList<>();
        for (Path in : inputs) PrecompileMain.find(in, modules);
        int files = 0;
        for (PrecompileMain.Found m : modules) {
            String base = Path.of(m.origin().replace('#', '.')).getFileName().toString();
            for (int c = 0; c < m.candidates().size(); c++) {
                Files.writeString(outDir.resolve(base + "." + c + ".ptx"), m.candidates().get(c), StandardCharsets.UTF_8);
                files++;
            }
        }
        System.out.println(modules.size() + " modules, " + files + " PTX files written to " + outDir);
    }
}
