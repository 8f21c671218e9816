package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compile cache through the whole stack: a program's second run compiles nothing (every module comes from the
 * cache), and a corrupted entry is detected, logged and compiled again, the program still passing.
 */
class CompileCacheProgramTest {
    private static long count(String text, String what) {
        return text.lines().filter(l -> l.contains(what)).count();
    }

    @Test
    void warmRunCompilesNothingAndCorruptEntriesAreRecompiled(@TempDir Path dir) throws Exception {
        Path exe = Programs.gccAgainstDist(dir, "driver_graph_nodes.c", "driver_graph_nodes");
        Path cache = dir.resolve("cache");
        Map<String, String> env = Map.of("ZLUDA_CACHE_DIR", cache.toString(), "ZLUDA_LOG", "debug");

        Programs.Result cold = Programs.withShim(exe, env);
        assertEquals(0, cold.exit(), cold.toString());
        // compiled on demand: the module's variables, then the one kernel the program uses
        assertEquals(2, count(cold.stderr(), "for the host in"), "variables and kernel compiled: " + cold.stderr());

        Programs.Result warm = Programs.withShim(exe, env);
        assertEquals(0, warm.exit(), warm.toString());
        assertEquals(0, count(warm.stderr(), "for the host in"), "no compilation with a warm cache: " + warm.stderr());
        assertEquals(2, count(warm.stderr(), "from the compile cache"), warm.stderr());

        List<Path> entries;
        try (Stream<Path> files = Files.walk(cache)) {
            entries = files.filter(f -> f.getFileName().toString().matches("[0-9a-f]{64}")).toList();
        }
        // the variables unit, the kernel and the mark that the module's text parsed without error (CodeLoader.ParseMarks)
        assertEquals(3, entries.size());
        for (Path entry : entries) {
            byte[] b = Files.readAllBytes(entry);
            b[b.length / 2] ^= 0x01;
            Files.write(entry, b);
        }

        Programs.Result repaired = Programs.withShim(exe, env);
        assertEquals(0, repaired.exit(), repaired.toString());
        assertTrue(repaired.stdout().contains("PASS: graph nodes"), repaired.toString());
        assertEquals(3, count(repaired.stderr(), "is corrupt or was changed"), repaired.stderr());  // a corrupt mark: parsed whole again
        assertEquals(2, count(repaired.stderr(), "for the host in"), "compiled again: " + repaired.stderr());
    }
}
