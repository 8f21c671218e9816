package org.zludaj.driver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

/**
 * {@code zluda link IN.ptx... [-o OUT.ptx]}: links PTX files as cuLinkCreate/cuLinkAddData/cuLinkComplete do
 * ({@link Linker}) and writes the module cuLinkComplete would hand out (to stdout without -o). With it, the kernels of
 * a program that links at run time can be precompiled ({@code zluda precompile OUT.ptx}).
 */
public final class LinkMain {
    private LinkMain() {}

    public static void main(String[] args) throws Exception {
        List<PtxModule> inputs = new ArrayList<>();
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("-o") && i + 1 < args.length) out = Path.of(args[++i]);
            else {
                try {
                    inputs.add(Ptx.parse(args[i], Files.readString(Path.of(args[i]))));
                } catch (java.io.IOException | org.zludaj.ptx.PtxException e) {
                    System.err.println("zluda link: " + args[i] + ": " + e.getMessage());
                    System.exit(1);
                }
            }
        }
        if (inputs.isEmpty()) {
            System.err.println("usage: zluda link IN.ptx... [-o OUT.ptx]");
            System.exit(2);
        }
        String text;
        try {
            text = PtxPrinter.print(Linker.link(inputs));
        } catch (CudaException e) {
            System.err.println("zluda link: " + e.getMessage());
            System.exit(1);
            return;
        }
        if (out == null) System.out.print(text);
        else Files.writeString(out, text);
    }
}
