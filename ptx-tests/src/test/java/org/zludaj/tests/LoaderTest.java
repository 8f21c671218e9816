package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * zluda-ld, the LD_AUDIT library: c/loader/loader_probe.c is linked with -lcuda and a DT_RPATH pointing at a folder of
 * fake vendor libraries ("theirs"), so without the auditor the loader picks the fakes, before LD_LIBRARY_PATH. Through
 * the launcher (and with LD_AUDIT alone) the linked libcuda, a dlopen of libcuda.so.1/libcuda.so and the other listed
 * libraries come from our folder; unlisted libraries, libraries our folder does not ship, requests made by our own
 * libraries and requests made inside a dlmopen namespace are left alone.
 */
class LoaderTest {
    @TempDir
    static Path dir;

    static Path theirs, ours, probe;

    private static void fake(Path folder, String file, String... defines) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("gcc", "-shared", "-fPIC", "-O1", "-o", folder.resolve(file).toString()));
        for (String d : defines) cmd.add("-D" + d);
        cmd.add(Programs.TESTS.resolve("c/loader/fake_lib.c").toString());
        cmd.add("-ldl");
        Programs.build(cmd, folder.resolve(file), dir);
    }

    @BeforeAll
    static void buildFakesAndProbe() throws Exception {
        theirs = Files.createDirectories(dir.resolve("theirs"));
        ours = Files.createDirectories(dir.resolve("ours"));
        fake(theirs, "libcuda.so.1", "VERSION=1");
        for (String lib : List.of("libcublas.so.12", "libnvidia-ml.so.1", "libfoo.so.1", "libcurand.so.10", "libcufft.so.11"))
            fake(theirs, lib, "WHO=\"theirs\"");
        fake(theirs, "libns_probe.so", "WHO=\"theirs-ns\"", "NESTED=\"libnvidia-ml.so.1\"");
        fake(ours, "libcuda.so.1", "VERSION=2");
        for (String lib : List.of("libcublas.so.13", "libnvidia-ml.so.1", "libcufft.so.12")) fake(ours, lib, "WHO=\"ours\"");
        fake(ours, "libcublasLt.so.13", "WHO=\"ours\"", "NESTED=\"libcufft.so.11\"");
        probe = dir.resolve("loader_probe");
        Programs.build(List.of("gcc", "-O1", "-Wall", "-o", probe.toString(), Programs.TESTS.resolve("c/loader/loader_probe.c").toString(),
                "-L" + Programs.DIST.resolve("lib"), "-lcuda", "-ldl", "-Wl,--disable-new-dtags,-rpath," + theirs), probe, dir);
        Programs.Result elf = Programs.run(List.of("readelf", "-d", probe.toString()), Map.of(), dir);
        assertTrue(elf.stdout().contains("(RPATH)") && elf.stdout().contains("[libcuda.so.1]"), "DT_RPATH and DT_NEEDED: " + elf);
    }

    @Test
    void withoutTheAuditorTheRpathFakesWin() throws Exception {
        Programs.Result r = Programs.run(List.of(probe.toString(), "libcuda.so.1", "libcublas.so.12"), Map.of(), dir);
        assertEquals(0, r.exit(), r.toString());
        assertEquals("linked libcuda: 1\nlibcuda.so.1: version 1\nlibcublas.so.12: theirs\n", r.stdout(), r.toString());
    }

    @Test
    void theLauncherRedirectsLinkedAndDlopenedLibcuda() throws Exception {
        Programs.Result r = Programs.run(List.of(Programs.DIST.resolve("bin/zluda").toString(), "run", "--", probe.toString(),
                "libcuda.so.1", "libcuda.so", "libcublas.so.12", "libfoo.so.1"), Map.of(), dir);
        assertEquals(0, r.exit(), r.toString());
        // libcublas.so.12 is the distribution's (it has no WHO symbol and reaches our libcuda.so.1, its dependency);
        // libfoo is not one of NVIDIA's libraries: the search goes on as it was
        assertEquals("linked libcuda: 13000\nlibcuda.so.1: version 13000\nlibcuda.so: version 13000\n"
                + "libcublas.so.12: version 13000\nlibfoo.so.1: theirs\n", r.stdout(), r.toString());
    }

    @Test
    void listedLibrariesOnlyFromTheBaseNamespaceAndNeverForOurOwnRequests() throws Exception {
        Programs.Result r = Programs.run(List.of(probe.toString(), "libcublasLt.so.12", "libcublas.so.12", "libnvidia-ml.so.1",
                        "libcurand.so.10", "libfoo.so.1", "ns:libns_probe.so"),
                Map.of("LD_AUDIT", Programs.DIST.resolve("lib/libzluda_ld.so").toString(), "ZLUDA_LD_TARGET_DIR", ours.toString(),
                        "LD_LIBRARY_PATH", theirs.toString(), "ZLUDA_LD_DEBUG", "1"), dir);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(String.join("\n",
                "linked libcuda: 2",                  // DT_NEEDED despite DT_RPATH
                "libcublasLt.so.12: ours>theirs",     // redirected (to the shipped .so.13); its own request is not
                "libcublas.so.12: ours",
                "libnvidia-ml.so.1: ours",
                "libcurand.so.10: theirs",            // listed but not shipped
                "libfoo.so.1: theirs",                // not listed
                "ns:libns_probe.so: theirs-ns>theirs", // inside a dlmopen namespace
                ""), r.stdout(), r.toString());
        assertTrue(r.stderr().contains("zluda_ld: libcuda.so.1 -> " + ours.toRealPath() + "/libcuda.so.1"), r.toString());
    }

    /** zluda info: backends and devices, compile targets, JDK, LLVM and the compile cache the environment selects. */
    @Test
    void launcherInfoNamesBackendsTargetsJdkLlvmAndCache() throws Exception {
        Path cache = dir.resolve("info-cache");
        Programs.Result r = Programs.run(List.of(Programs.DIST.resolve("bin/zluda").toString(), "info"),
                Map.of("ZLUDA_CACHE_DIR", cache.toString()), dir);
        assertEquals(0, r.exit(), r.toString());
        for (String line : List.of("driver exports)", "JDK: ", "LLVM: 20.1.7",
                "host: available: ZLUDA host CPU, compute capability 8.6", "compile targets: host x86_64", "gfx1100",
                "compile cache: " + cache + " (0 entries"))
            assertTrue(r.stdout().contains(line), line + " in:\n" + r);
    }
}
