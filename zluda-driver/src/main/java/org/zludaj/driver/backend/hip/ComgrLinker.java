package org.zludaj.driver.backend.hip;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.zludaj.nativ.Comgr;
import org.zludaj.ptx.Compiler;

/**
 * Links our relocatable AMD objects with AMD's comgr instead of the bundled ld.lld: the object, never bitcode, since
 * ROCm's LLVM may be older than ours. In the process a link takes ~2 ms, where an ld.lld process takes ~60 (most of it
 * loading LLVM's library): by default ({@link #auto}) comgr links for the GPUs it lists and ld.lld for the others.
 * {@link #open} says why it cannot be used.
 */
public final class ComgrLinker implements Compiler.CodeObjectLinker {
    private final String library;
    /** The ISA names comgr lists, or null where it cannot list them. */
    private final java.util.Set<String> isas;

    private ComgrLinker(String library, java.util.Set<String> isas) {
        this.library = library;
        this.isas = isas;
    }

    /** Opens comgr; the reason it is not there as an IOException. */
    public static ComgrLinker open() throws IOException {
        byte[] msg = new byte[512];
        int r = Comgr.open(msg);
        String text = new String(msg, StandardCharsets.UTF_8).trim();
        if (r != 0) throw new IOException(text);
        String list = Comgr.isas();
        return new ComgrLinker(text, list == null ? null : java.util.Set.copyOf(list.lines().filter(l -> !l.isBlank()).toList()));
    }

    /**
     * Whether comgr lists {@code gfx} among its ISAs (names such as {@code amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-}
     * count for their processor); a comgr that cannot list them is taken to know every GPU.
     */
    public boolean knows(String gfx) {
        if (isas == null) return true;
        String name = "amdgcn-amd-amdhsa--" + gfx;
        return isas.stream().anyMatch(i -> i.equals(name) || i.startsWith(name + ":"));
    }

    /**
     * The default linker: comgr for the GPUs it knows, the bundled ld.lld for the others (a comgr older than the GPU)
     * and everywhere when there is no comgr. The choice is made per GPU before compiling, so that the compile cache
     * keeps each code object under the linker that made it.
     */
    public static Compiler.CodeObjectLinker auto(ComgrLinker comgr) {
        return new Compiler.CodeObjectLinker() {
            @Override
            public String name() {
                return "comgr where it knows the GPU (" + comgr.library() + "), else ld.lld";
            }

            @Override
            public Compiler.CodeObjectLinker forTarget(String gfx) {
                return comgr.knows(gfx) ? comgr : Compiler.LLD;
            }

            @Override
            public byte[] link(byte[] relocatable, String gfx) throws IOException {
                return forTarget(gfx).link(relocatable, gfx);
            }
        };
    }

    /** The library and version comgr reported, e.g. "libamd_comgr.so.2 2.4". */
    public String library() {
        return library;
    }

    @Override
    public String name() {
        return "comgr";
    }

    @Override
    public byte[] link(byte[] relocatable, String gfx) throws IOException {
        byte[] log = new byte[8192];
        byte[] out = Comgr.link(relocatable, "amdgcn-amd-amdhsa--" + gfx, log);
        if (out == null) throw new IOException("comgr (" + library + "): " + new String(log, StandardCharsets.UTF_8).trim());
        return out;
    }
}
