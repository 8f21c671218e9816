package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shim on a JDK with Java's foreign-function API (22 and later): every call into the JVM, the driver's and
 * cuBLAS's, goes through an upcall stub (org.zludaj.api.Upcalls) instead of JNI, with the same answers, and the JDK's
 * warnings about sun.misc.Unsafe stay out of the application's output. Runs where such a JDK is found
 * (ZLUDA_TEST_NEW_JDK, or under /usr/lib/jvm); says so and is skipped where none is.
 */
class UpcallsTest {
    /** A JDK of feature version 22 or later, if one is installed. */
    static Optional<Path> newJdk() throws Exception {
        String env = System.getenv("ZLUDA_TEST_NEW_JDK");
        if (env != null && !env.isEmpty()) return Optional.of(Path.of(env));
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) return Optional.empty();
        try (Stream<Path> s = Files.list(jvms)) {
            return s.filter(j -> feature(j) >= 22 && Files.isRegularFile(j.resolve("lib/server/libjvm.so")))
                    .max(Comparator.comparingInt(UpcallsTest::feature));
        }
    }

    private static int feature(Path jdk) {
        try {
            for (String l : Files.readAllLines(jdk.resolve("release")))
                if (l.startsWith("JAVA_VERSION=\"")) return Integer.parseInt(l.substring(14).split("[.\"]")[0]);
        } catch (Exception ignored) {
            // no release file
        }
        return 0;
    }

    private static Map<String, String> env(Path jdk) {
        return Map.of("ZLUDA_JAVA_HOME", jdk.toString(), "ZLUDA_UPCALLS", "sync", "ZLUDA_LOG", "debug");
    }

    @Test
    void driverAndCublasCallsTakeTheUpcallStubsWithTheSameAnswers(@TempDir Path dir) throws Exception {
        Optional<Path> jdk = newJdk();
        if (jdk.isEmpty()) System.err.println("UpcallsTest skipped: no JDK 22 or later (set ZLUDA_TEST_NEW_JDK)");
        assumeTrue(jdk.isPresent(), "no JDK 22 or later");

        Path memo = Programs.gccAgainstDist(dir, "driver_memo.c", "driver_memo");
        Programs.Result r = Programs.withShim(memo, env(jdk.get()));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS"), r.toString());
        assertTrue(r.stderr().contains("upcall stub for org/zludaj/api/Dispatch.callRaw made"), r.stderr());
        assertFalse(r.stderr().contains("sun.misc.Unsafe"), r.stderr());

        Programs.Result b = Programs.withShim(CublasProgramsTest.build(dir), env(jdk.get()));
        assertEquals(0, b.exit(), b.toString());
        assertTrue(b.stdout().contains("PASS: cublas"), b.toString());
        assertTrue(b.stderr().contains("upcall stub for org/zludaj/api/cublas/Dispatch.callRaw made"), b.stderr());
        assertFalse(b.stderr().contains("sun.misc.Unsafe"), b.stderr());
        String nvidia = Files.readString(Programs.TESTS.resolve("c/cublas_calls.expected"));
        assertEquals(nvidia.lines().filter(l -> l.startsWith("misuse ")).toList(),
                b.stdout().lines().filter(l -> l.startsWith("misuse ")).toList());
    }

    @Test
    void zludaUpcallsZeroKeepsJni(@TempDir Path dir) throws Exception {
        Optional<Path> jdk = newJdk();
        assumeTrue(jdk.isPresent(), "no JDK 22 or later");
        Path memo = Programs.gccAgainstDist(dir, "driver_memo.c", "driver_memo");
        Programs.Result r = Programs.withShim(memo, Map.of("ZLUDA_JAVA_HOME", jdk.get().toString(), "ZLUDA_UPCALLS", "0", "ZLUDA_LOG", "debug"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.stdout().contains("PASS"), r.toString());
        assertFalse(r.stderr().contains("upcall stub"), r.stderr());
    }
}
