package org.zludaj.driver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code ZLUDA_KERNELS_USED=FILE}: the name of each kernel the application looks up (cudart does at a kernel's first
 * launch; the backend compiles it then) is appended to FILE, one per line, once per process. {@code zluda precompile
 * --kernels @FILE} then compiles exactly those, for another target or another machine's cache: the kernels a run of an
 * application needs, without reading its code to find which of its templates it instantiates for which sizes. Processes
 * may share the file (each line is one append).
 */
final class KernelsUsed {
    private KernelsUsed() {}

    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(KernelsUsed.class);
    private static final Path FILE = file(System.getenv("ZLUDA_KERNELS_USED"));
    private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();
    private static final java.util.concurrent.atomic.AtomicBoolean WARNED = new java.util.concurrent.atomic.AtomicBoolean();

    static Path file(String env) {
        return env == null || env.isBlank() ? null : Path.of(env.strip());
    }

    /** Records kernel {@code name} (nothing without ZLUDA_KERNELS_USED, or when this process recorded it already). */
    static void record(String name) {
        if (FILE != null) record(FILE, name, SEEN);
    }

    static void record(Path file, String name, Set<String> seen) {
        if (!seen.add(name)) return;
        try {
            Files.write(file, (name + "\n").getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            if (!WARNED.getAndSet(true)) LOG.warn("ZLUDA_KERNELS_USED: cannot append to {}: {}", file, e.toString());
        }
    }
}
