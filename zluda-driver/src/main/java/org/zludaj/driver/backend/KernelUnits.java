package org.zludaj.driver.backend;

import java.nio.charset.StandardCharsets;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxIndex;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.cache.CompileCache;
import org.zludaj.ptx.model.PtxModule;

/**
 * Kernel units found in the compile cache by their text, before any parse (GPU backends'
 * {@link Backend#loadUnit(Backend.Program, String, String, Backend.Parse)}). A unit's compiled code is stored under
 * the key of its model ({@link CompileCache#unitKey}), which needs the unit parsed, checked and printed: most of a
 * warm process's first evaluation (GPT-2 through ggml: 16 kernels, 220-260 ms of a cold JVM on two cores). Beside it,
 * under a key of the kernel's name and its module's text (the digest of the whole text: the unit's text, which the
 * module's index cuts from it, is a function of the two and of the build), an entry names that code's key and holds the
 * unit's interface ({@link PtxIndex#kernelInterface}): what the driver reads of a loaded unit. A later process finds
 * both, parses only the interface and loads the code. The entry holds no code of its own (the cache keeps one copy);
 * an evicted or corrupt code entry is a miss, and the unit is parsed and compiled as before.
 */
public final class KernelUnits {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(KernelUnits.class);

    private KernelUnits() {}

    /** The code and the interface of a unit found by its text. */
    public record Found(PtxModule unit, byte[] code) {}

    /**
     * The key of kernel {@code kernel}'s unit in the module whose text has digest {@code moduleDigest}
     * ({@link CompileCache#textDigest}), for output {@code kind} on {@code target}.
     */
    public static String sourceKey(String kind, String target, String kernel, String moduleDigest) {
        return CompileCache.sourceKeyOfDigest(kind + " kernel " + kernel, target, moduleDigest);
    }

    /** The entry stored under the source key: the key of the unit's code, a newline, the unit's interface as PTX. */
    public static byte[] entry(String codeKey, PtxModule unit, String kernel) {
        return (codeKey + "\n" + PtxPrinter.print(PtxIndex.kernelInterface(unit, kernel))).getBytes(StandardCharsets.UTF_8);
    }

    /** Stores kernel {@code kernel}'s entry, the unit's code being in the cache under {@code codeKey}. */
    public static void put(CompileCache cache, String sourceKey, String codeKey, PtxModule unit, String kernel) {
        if (cache != null) cache.put(sourceKey, entry(codeKey, unit, kernel));
    }

    /**
     * The unit's code and interface under {@code sourceKey}, or null where either is not in the cache (or the
     * interface does not read: then the unit is compiled from its text as if never stored).
     */
    public static Found find(CompileCache cache, String sourceKey, String origin, String kernel) {
        if (cache == null) return null;
        byte[] entry = cache.get(sourceKey);
        if (entry == null) return null;
        String text = new String(entry, StandardCharsets.UTF_8);
        int nl = text.indexOf('\n');
        if (nl != 64) return null;
        byte[] code = cache.get(text.substring(0, nl));
        if (code == null) return null;
        Ptx.Parsed p = Ptx.parseLenient(origin, text.substring(nl + 1));
        if (!p.ok() || p.module().function(kernel) == null) return null;
        LOG.debug("{}: kernel {} found in the compile cache by its text", origin, kernel);
        return new Found(p.module(), code);
    }
}
