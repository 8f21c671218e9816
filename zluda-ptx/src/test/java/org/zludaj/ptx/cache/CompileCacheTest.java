package org.zludaj.ptx.cache;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The compile cache: round trip, verification, permissions, LRU eviction, concurrent writers in two processes. */
class CompileCacheTest {
    private static byte[] payload(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 31 + seed);
        return b;
    }

    @Test
    void storesAndReadsBackByKey(@TempDir Path dir) {
        CompileCache c = new CompileCache(dir.resolve("cache"), 1 << 20);
        String k = CompileCache.key("host", "x86-64", "module text");
        assertNull(c.get(k));
        c.put(k, payload(1000, 1));
        assertArrayEquals(payload(1000, 1), c.get(k));
        assertNotEquals(k, CompileCache.key("host", "x86-64", "module text!"), "the key covers the text");
        assertNotEquals(CompileCache.key("ab", "c"), CompileCache.key("a", "bc"), "parts are delimited");
        assertEquals(new CompileCache.Stats(1, 1, 0, 1, 0), c.stats());
    }

    @Test
    void directoryAndEntriesArePrivate(@TempDir Path dir) throws Exception {
        Path root = dir.resolve("a/b/cache");
        CompileCache c = new CompileCache(root, 1 << 20);
        String k = CompileCache.key("p");
        c.put(k, payload(10, 2));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(root)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(c.path(k).getParent())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(c.path(k))));
        // an existing directory with a wider mode is narrowed
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        new CompileCache(root, 1 << 20);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(root)));
    }

    @Test
    void corruptTruncatedOrRenamedEntriesAreMissesAndRemoved(@TempDir Path dir) throws Exception {
        CompileCache c = new CompileCache(dir, 1 << 20);
        String k1 = CompileCache.key("one"), k2 = CompileCache.key("two"), k3 = CompileCache.key("three");
        c.put(k1, payload(500, 3));
        c.put(k2, payload(500, 4));
        // a flipped bit in the payload
        byte[] b = Files.readAllBytes(c.path(k1));
        b[b.length - 7] ^= 0x10;
        Files.write(c.path(k1), b);
        assertNull(c.get(k1));
        assertFalse(Files.exists(c.path(k1)), "the corrupt entry is removed");
        // truncated
        byte[] t = Files.readAllBytes(c.path(k2));
        Files.write(c.path(k2), Arrays.copyOf(t, t.length - 1));
        assertNull(c.get(k2));
        // a valid entry copied under another key (its checksum covers the key)
        c.put(k2, payload(500, 4));
        Files.createDirectories(c.path(k3).getParent());
        Files.copy(c.path(k2), c.path(k3));
        assertNull(c.get(k3));
        assertArrayEquals(payload(500, 4), c.get(k2));
        assertEquals(3, c.stats().corrupt());
    }

    @Test
    void evictsLeastRecentlyUsedEntriesAtTheBound(@TempDir Path dir) throws Exception {
        CompileCache c = new CompileCache(dir, 10_000);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String k = CompileCache.key("entry", Integer.toString(i));
            keys.add(k);
            c.put(k, payload(2000, i));
            Files.setLastModifiedTime(c.path(k), FileTime.fromMillis(1_000_000L * (i + 1)));  // written in order
        }
        assertNotNull(c.get(keys.get(0)));  // entry 0 becomes the most recently used
        c.put(CompileCache.key("entry", "4"), payload(2000, 4));  // 5 x ~2 KiB > 10,000 bytes
        assertTrue(c.size() <= 9_000, "within 90% of the bound: " + c.size());
        assertNotNull(c.get(keys.get(0)), "recently read: kept");
        assertNotNull(c.get(CompileCache.key("entry", "4")), "just written: kept");
        assertNull(c.get(keys.get(1)), "least recently used: evicted");
        assertTrue(c.stats().evictions() >= 1);
    }

    /** Two processes writing the same and different keys at once: every entry ends up whole and valid. */
    @Test
    void concurrentWritersFromTwoProcesses(@TempDir Path dir) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        List<Process> ps = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            ps.add(new ProcessBuilder(java, "-cp", cp, Writer.class.getName(), dir.toString(), Integer.toString(w))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("writer" + w + ".log").toFile()).start());
        }
        for (Process p : ps) {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "writer finished");
            assertEquals(0, p.exitValue(), Files.readString(dir.resolve("writer" + ps.indexOf(p) + ".log")));
        }
        CompileCache c = new CompileCache(dir.resolve("cache"), 1L << 30);
        for (int i = 0; i < Writer.SHARED; i++) assertArrayEquals(Writer.payloadOf("shared", i), c.get(CompileCache.key("shared", "" + i)));
        for (int w = 0; w < 2; w++)
            for (int i = 0; i < Writer.OWN; i++)
                assertArrayEquals(Writer.payloadOf("own" + w, i), c.get(CompileCache.key("own" + w, "" + i)));
        assertEquals(0, c.stats().corrupt());
        try (var files = Files.walk(dir.resolve("cache"))) {
            assertEquals(0, files.filter(f -> f.getFileName().toString().startsWith(".tmp-")).count(), "no temporary file left");
        }
    }

    /** One writer process of {@link #concurrentWritersFromTwoProcesses}. */
    public static final class Writer {
        static final int SHARED = 40, OWN = 40;

        static byte[] payloadOf(String what, int i) {
            byte[] seed = (what + ":" + i + ":").getBytes(StandardCharsets.UTF_8);
            byte[] b = new byte[20_000 + 97 * i];
            for (int j = 0; j < b.length; j++) b[j] = seed[j % seed.length];
            return b;
        }

        public static void main(String[] args) {
            CompileCache c = new CompileCache(Path.of(args[0]).resolve("cache"), 1L << 30);
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < SHARED; i++) {
                    String k = CompileCache.key("shared", "" + i);
                    c.put(k, payloadOf("shared", i));
                    byte[] got = c.get(k);
                    if (got == null || !Arrays.equals(got, payloadOf("shared", i))) {
                        System.out.println("bad read of shared " + i);
                        System.exit(1);
                    }
                }
                for (int i = 0; i < OWN; i++) c.put(CompileCache.key("own" + args[1], "" + i), payloadOf("own" + args[1], i));
            }
            if (c.stats().corrupt() != 0) System.exit(2);
            System.out.println("ok " + new File(args[0]));
        }
    }
}
