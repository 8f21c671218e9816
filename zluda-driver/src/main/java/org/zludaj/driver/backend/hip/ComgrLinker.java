package org.zludaj.driver.backend.hip;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.zludaj.nativ.Comgr;
import org.zludaj.ptx.Compiler;

/**
 * Links our relocatable AMD objects with AMD's comgr (ZLUDA_CODEOBJECT=comgr) instead of the bundled ld.lld: the
 * object, never bitcode, since ROCm's LLVM may be older than ours. {@link #open} says why it cannot be used.
 */
public final class ComgrLinker implements Compiler.CodeObjectLinker {
    private final String library;

    private ComgrLinker(String library) {
        this.library = library;
    }

    /** Opens comgr; the reason it is not there as an IOException. */
    public static ComgrLinker open() throws IOException {
        byte[] msg = new byte[512];
        int r = Comgr.open(msg);
        String text = new String(msg, StandardCharsets.UTF_8).trim();
        if (r != 0) throw new IOException(text);
        return new ComgrLinker(text);
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
