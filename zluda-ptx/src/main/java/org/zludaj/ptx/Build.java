package org.zludaj.ptx;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * The compiler's build identity, part of every compile cache key: a digest of the jar holding the compiler (a new
 * build never reads an older build's entries), or the version plus "-dev" when running from a class directory.
 * Free of LLVM, so that a run served entirely by the cache never loads LLVM.
 */
public final class Build {
    private Build() {}

    /** Version of the compiler's output format. */
    public static final String VERSION = "zluda-j-ptx-0.1";

    public static final String ID = id();

    private static String id() {
        try {
            var source = Build.class.getProtectionDomain().getCodeSource();
            Path p = source == null ? null : Path.of(source.getLocation().toURI());
            if (p != null && Files.isRegularFile(p))
                return VERSION + "-" + HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)), 0, 8);
        } catch (Exception e) {
            // fall through: an unusual class loader
        }
        return VERSION + "-dev";
    }
}
