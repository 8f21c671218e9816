package org.zludaj.ptx.cache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The compile cache: compiled code on disk, content-addressed. A key is the SHA-256 of everything the output depends
 * on (the PTX text of the unit, target, CPU and features, the compiler's build, options). Entries live in
 * {@code <dir>/<first two hex digits>/<key>} inside a directory of mode 0700; each holds a header with the payload's
 * length and a SHA-256 over key and payload, checked on every read: a corrupt, truncated or renamed entry is logged,
 * deleted and reported as a miss (so the caller recompiles). Writers write a private temporary file and rename it
 * into place, so concurrent processes never see a partial entry and the last of equal writers wins. Reads refresh an
 * entry's modification time; when the directory exceeds its size bound the least recently used entries go.
 */
public final class CompileCache {
    /** SLF4J's logger, made at its first use: starting logback costs 40-50 ms, which the driver's start need not pay. */
    private static final class Lazy {
        static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CompileCache.class);
    }
    private static final byte[] MAGIC = "ZJC1".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER = 4 + 8 + 32;
    /** Default size bound: 2 GiB. */
    public static final long DEFAULT_MAX_BYTES = 2L << 30;

    private final Path dir;
    private final long maxBytes;
    private final AtomicLong hits = new AtomicLong(), misses = new AtomicLong(), corrupt = new AtomicLong(),
            writes = new AtomicLong(), evictions = new AtomicLong();

    /** Counters of this process's use of the cache. */
    public record Stats(long hits, long misses, long corrupt, long writes, long evictions) {}

    public CompileCache(Path dir, long maxBytes) {
        this.dir = dir.toAbsolutePath();
        this.maxBytes = maxBytes;
        try {
            createPrivate(this.dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the compile cache at " + this.dir, e);
        }
    }

    /**
     * The cache the environment asks for: {@code ZLUDA_CACHE_DIR}, else {@code $XDG_CACHE_HOME/zluda-j}, else
     * {@code ~/.cache/zluda-j}; bounded by {@code ZLUDA_CACHE_MAX_MB} (default 2048). Null when {@code ZLUDA_CACHE=off}
     * or the directory cannot be made (said once, and compilation goes on without a cache).
     */
    public static CompileCache fromEnvironment() {
        if ("off".equalsIgnoreCase(System.getenv("ZLUDA_CACHE"))) return null;
        Path dir = defaultDirectory();
        long max = DEFAULT_MAX_BYTES;
        String mb = System.getenv("ZLUDA_CACHE_MAX_MB");
        if (mb != null) {
            try {
                max = Long.parseLong(mb.trim()) << 20;
            } catch (NumberFormatException e) {
                Lazy.LOG.warn("ZLUDA_CACHE_MAX_MB={} is not a number; using {} MiB", mb, DEFAULT_MAX_BYTES >> 20);
            }
        }
        try {
            return new CompileCache(dir, max);
        } catch (UncheckedIOException e) {
            Lazy.LOG.warn("no compile cache: {} ({})", e.getMessage(), e.getCause().toString());
            return null;
        }
    }

    /** Where {@link #fromEnvironment} puts the cache. */
    public static Path defaultDirectory() {
        String explicit = System.getenv("ZLUDA_CACHE_DIR");
        if (explicit != null && !explicit.isBlank()) return Path.of(explicit);
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("zluda-j");
    }

    public Path directory() {
        return dir;
    }

    public long maxBytes() {
        return maxBytes;
    }

    public Stats stats() {
        return new Stats(hits.get(), misses.get(), corrupt.get(), writes.get(), evictions.get());
    }

    /** The key of a unit: SHA-256 (hex) over the parts, each followed by a NUL. */
    public static String key(String... parts) {
        MessageDigest md = sha256();
        for (String p : parts) {
            md.update(p.getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** The key of a device-code unit: its kind of output, the target, the compiler's build and the unit's PTX text. */
    public static String unitKey(String kind, String target, org.zludaj.ptx.model.PtxModule ptx) {
        return key(kind, org.zludaj.ptx.Build.ID, target, org.zludaj.ptx.PtxPrinter.print(ptx));
    }

    /**
     * The key of a device-code unit by its PTX text as the loader has it, before any parse: the same output as
     * {@link #unitKey} of the text's model, stored under both. A module's variables unit is mostly lookup tables (ggml's
     * 96 KB took a cold JVM 100-300 ms to parse): a load that finds it by its text does not parse it.
     */
    public static String sourceKey(String kind, String target, String source) {
        return sourceKeyOfDigest(kind, target, textDigest(source));
    }

    /** {@link #sourceKey} of a text known by its {@link #textDigest} (a module loaded by its record has no text at hand). */
    public static String sourceKeyOfDigest(String kind, String target, String digest) {
        return key(kind + " by source", org.zludaj.ptx.Build.ID, target, digest);
    }

    /** SHA-256 (hex) of a text's UTF-8 bytes. */
    public static String textDigest(String text) {
        MessageDigest md = sha256();
        md.update(text.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(md.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] checksum(String key, byte[] payload) {
        MessageDigest md = sha256();
        md.update(key.getBytes(StandardCharsets.US_ASCII));
        md.update(payload);
        return md.digest();
    }

    private static void createPrivate(Path d) throws IOException {
        if (!Files.isDirectory(d)) {
            Files.createDirectories(d.getParent());
            try {
                Files.createDirectory(d, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another process made it
            }
        }
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
    }

    Path path(String key) {
        if (!key.matches("[0-9a-f]{64}")) throw new IllegalArgumentException("not a cache key: " + key);
        return dir.resolve(key.substring(0, 2)).resolve(key);
    }

    /** The payload stored under {@code key}, verified; null when absent or corrupt (a corrupt entry is deleted). */
    public byte[] get(String key) {
        Path p = path(key);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(p);
        } catch (NoSuchFileException e) {
            misses.incrementAndGet();
            return null;
        } catch (IOException e) {
            Lazy.LOG.warn("compile cache: cannot read {}: {}", p, e.toString());
            misses.incrementAndGet();
            return null;
        }
        byte[] payload = verify(key, bytes);
        if (payload == null) {
            corrupt.incrementAndGet();
            misses.incrementAndGet();
            Lazy.LOG.warn("compile cache: entry {} is corrupt or was changed; it is removed and compiled again", p);
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // another process may have replaced it already
            }
            return null;
        }
        try {
            Files.setLastModifiedTime(p, FileTime.fromMillis(System.currentTimeMillis()));  // recently used
        } catch (IOException ignored) {
            // evicted meanwhile: the payload is still good
        }
        hits.incrementAndGet();
        return payload;
    }

    private static byte[] verify(String key, byte[] bytes) {
        if (bytes.length < HEADER) return null;
        for (int i = 0; i < MAGIC.length; i++) if (bytes[i] != MAGIC[i]) return null;
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long length = b.getLong(4);
        if (length != bytes.length - HEADER) return null;
        byte[] sum = new byte[32];
        b.get(12, sum);
        byte[] payload = new byte[(int) length];
        b.get(HEADER, payload);
        return MessageDigest.isEqual(sum, checksum(key, payload)) ? payload : null;
    }

    /** Stores {@code payload} under {@code key} (atomically), then keeps the directory within its bound. */
    public void put(String key, byte[] payload) {
        Path p = path(key);
        ByteBuffer b = ByteBuffer.allocate(HEADER + payload.length);
        b.put(MAGIC).putLong(payload.length).put(checksum(key, payload)).put(payload);
        try {
            createPrivate(p.getParent());
            Path tmp = p.resolveSibling(".tmp-" + ProcessHandle.current().pid() + "-" + Thread.currentThread().getId() + "-"
                    + Long.toHexString(ThreadLocalRandom.current().nextLong()));
            Files.write(tmp, b.array());
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            try {
                Files.move(tmp, p, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, p, StandardCopyOption.REPLACE_EXISTING);
            }
            writes.incrementAndGet();
        } catch (IOException e) {
            Lazy.LOG.warn("compile cache: cannot write {}: {}", p, e.toString());
            return;
        }
        afterWrite(b.capacity());
    }

    /** Puts between two listings of the directory (other processes' writes are seen at the next one). */
    private static final int RECOUNT_EVERY = 1000;
    /** The directory's bytes as last listed plus what this instance wrote since; -1 before the first listing. */
    private final AtomicLong estimate = new AtomicLong(-1);
    private final AtomicLong putsSinceListing = new AtomicLong();

    /**
     * Keeps the directory within its bound without listing it at every write: listing stats every entry, and a
     * precompile of 16,664 units into a cache of 30,000 entries spent 33 of its 67 CPU minutes doing that (2026-11-26).
     */
    private void afterWrite(long bytes) {
        if (estimate.get() >= 0 && putsSinceListing.incrementAndGet() < RECOUNT_EVERY && estimate.addAndGet(bytes) <= maxBytes) return;
        putsSinceListing.set(0);
        estimate.set(evictIfNeeded());
    }

    private record Entry(Path path, long size, long time) {}

    /** Total bytes of the entries now on disk. */
    public long size() {
        return entries().stream().mapToLong(Entry::size).sum();
    }

    private List<Entry> entries() {
        List<Entry> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir, 2)) {
            files.filter(f -> f.getFileName().toString().matches("[0-9a-f]{64}")).forEach(f -> {
                try {
                    out.add(new Entry(f, Files.size(f), Files.getLastModifiedTime(f).toMillis()));
                } catch (IOException gone) {
                    // removed by another process
                }
            });
        } catch (IOException | UncheckedIOException e) {
            Lazy.LOG.debug("compile cache: listing {}: {}", dir, e.toString());
        }
        return out;
    }

    /** Over the bound: removes least recently used entries until the directory holds at most 90% of it; its bytes then. */
    long evictIfNeeded() {
        List<Entry> all = entries();
        long total = all.stream().mapToLong(Entry::size).sum();
        if (total <= maxBytes) return total;
        all.sort(Comparator.comparingLong(Entry::time));
        long target = maxBytes / 10 * 9;
        for (Entry e : all) {
            if (total <= target) break;
            try {
                if (Files.deleteIfExists(e.path)) evictions.incrementAndGet();
            } catch (IOException ignored) {
                // another process evicted it
            }
            total -= e.size;
        }
        Lazy.LOG.debug("compile cache: evicted down to {} bytes (bound {})", total, maxBytes);
        return total;
    }
}
