package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * zluda precompile: the fatbins of an nvcc-built executable (its ELF .nv_fatbin section) compiled into a cache
 * folder, after which the program runs without compiling anything; precompiling again finds everything cached.
 */
class PrecompileTest {
    @Test
    void precompiledExecutableRunsWithoutCompiling(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "vectoradd.cu", "vectoradd", "-arch=compute_75");
        Path cache = dir.resolve("cache");
        List<String> precompile = List.of(Programs.DIST.resolve("bin/zluda").toString(), "precompile", exe.toString(), "--target", "host",
                "--cache", cache.toString());
        Programs.Result p = Programs.run(precompile, Map.of(), dir);
        assertEquals(0, p.exit(), p.toString());
        assertTrue(p.stdout().contains(": 2 kernels"), p.toString());
        assertTrue(p.stdout().contains("1 modules, 3 units compiled, 0 already cached, 0 failed"), "variables + 2 kernels: " + p);

        Programs.Result run = Programs.withShim(exe, Map.of("ZLUDA_CACHE_DIR", cache.toString(), "ZLUDA_LOG", "debug"), "5000");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.stdout().contains("PASS: vectoradd n=5000"), run.toString());
        assertFalse(run.stderr().contains("for the host in"), "nothing compiled: " + run.stderr());
        assertTrue(run.stderr().contains("from the compile cache"), run.stderr());
        // precompile recorded the module as a run's first load would: the run loads it by its record (ModuleRecords)
        assertTrue(run.stderr().contains("loaded by its record (2 kernels)"), run.stderr());
        assertFalse(run.stderr().contains("read and decompressed"), run.stderr());

        Programs.Result again = Programs.run(precompile, Map.of(), dir);
        assertTrue(again.stdout().contains("0 units compiled, 3 already cached"), again.toString());
    }

    @Test
    void kernelsSelectsByRegexOrByAListOfNames(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "vectoradd.cu", "vectoradd", "-arch=compute_75");
        String zluda = Programs.DIST.resolve("bin/zluda").toString();
        Programs.Result none = Programs.run(List.of(zluda, "precompile", exe.toString(), "--target", "host", "--cache",
                dir.resolve("c1").toString(), "--kernels", "^no_such_kernel$"), Map.of(), dir);
        assertEquals(0, none.exit(), none.toString());
        assertTrue(none.stdout().contains("0 modules") || none.stdout().contains("0 units compiled, 0 already cached"), none.toString());
        String kernel = Programs.run(List.of(zluda, "extract", exe.toString(), "-o", dir.resolve("ptx").toString()), Map.of(), dir).exit() == 0
                ? java.nio.file.Files.walk(dir.resolve("ptx")).filter(f -> f.toString().endsWith(".ptx")).findFirst()
                        .map(f -> { try { return java.nio.file.Files.readString(f); } catch (java.io.IOException e) { throw new RuntimeException(e); } })
                        .flatMap(t -> t.lines().filter(l -> l.contains(".entry")).findFirst())
                        .map(l -> l.replaceAll(".*\\.entry\\s+([A-Za-z0-9_$]+).*", "$1")).orElseThrow()
                : null;
        assertNotNull(kernel);
        java.nio.file.Path list = dir.resolve("kernels.txt");
        java.nio.file.Files.writeString(list, kernel + "\n");
        Programs.Result one = Programs.run(List.of(zluda, "precompile", exe.toString(), "--target", "host", "--cache",
                dir.resolve("c2").toString(), "--kernels", "@" + list), Map.of(), dir);
        assertEquals(0, one.exit(), one.toString());
        assertTrue(one.stdout().contains(": 1 kernels of 2"), one.toString());
        assertTrue(one.stdout().contains("1 modules, 2 units compiled"), "variables + the one kernel: " + one);
    }

    /** ZLUDA_KERNELS_USED records the kernels a run looks up; precompile --kernels @FILE compiles exactly those. */
    @Test
    void kernelsUsedByARunArePrecompiledFromItsList(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        Path exe = Programs.nvcc(dir, "vectoradd.cu", "vectoradd", "-arch=compute_75");
        Path used = dir.resolve("used.txt");
        Programs.Result run = Programs.withShim(exe, Map.of("ZLUDA_CACHE_DIR", dir.resolve("c1").toString(),
                "ZLUDA_KERNELS_USED", used.toString()), "5000");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.stdout().contains("PASS: vectoradd n=5000"), run.toString());
        assertEquals(java.util.Set.of("_Z4vaddPKfS0_Pfi", "_Z5saxpyfPKfPfi"), java.util.Set.copyOf(java.nio.file.Files.readAllLines(used)),
                "the two kernels vectoradd launches, once each");
        Programs.Result again = Programs.withShim(exe, Map.of("ZLUDA_CACHE_DIR", dir.resolve("c1").toString(),
                "ZLUDA_KERNELS_USED", used.toString()), "100");
        assertEquals(0, again.exit(), again.toString());
        assertEquals(4, java.nio.file.Files.readAllLines(used).size(), "a second process appends its own two lines");

        Path cache = dir.resolve("c2");
        Programs.Result pre = Programs.run(List.of(Programs.DIST.resolve("bin/zluda").toString(), "precompile", exe.toString(),
                "--target", "host", "--cache", cache.toString(), "--kernels", "@" + used), Map.of(), dir);
        assertEquals(0, pre.exit(), pre.toString());
        assertTrue(pre.stdout().contains(": 2 kernels") && pre.stdout().contains("1 modules, 3 units compiled"), pre.toString());
        Programs.Result cached = Programs.withShim(exe, Map.of("ZLUDA_CACHE_DIR", cache.toString(), "ZLUDA_LOG", "debug"), "5000");
        assertEquals(0, cached.exit(), cached.toString());
        assertFalse(cached.stderr().contains("for the host in"), "nothing compiled: " + cached.stderr());
    }
}
