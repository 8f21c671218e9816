package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random well-defined kernels of tools/gpu-check/fuzz_ptx.py on the host backend: every one compiles and runs (no
 * refusal, no fault, no crash of the compiler or the process). Their results are compared with NVIDIA's execution by
 * tools/gpu-check (the same generator, 200 kernels per GPU check); here only that nothing breaks, and that two runs
 * give the same bits (no undefined or uninitialized value reaches an output).
 */
class FuzzPtxTest {
    @Test
    void randomKernelsCompileAndRunTheSameTwice(@TempDir Path work) throws Exception {
        Assumptions.assumeTrue(Programs.onPath("python3") != null, "python3 is not installed: the PTX fuzzer is skipped");
        Path script = Programs.TESTS.getParent().getParent().getParent().resolve("tools/gpu-check/fuzz_ptx.py");
        Path kernels = Files.createDirectories(work.resolve("k"));
        Programs.Result g = Programs.run(List.of("python3", script.toString(), kernels.toString(), "40", "3"), Map.of(), work);
        assertEquals(0, g.exit(), g.toString());
        Path exe = Programs.build(List.of("gcc", "-O1", "-o", work.resolve("ptxrun").toString(),
                Programs.TESTS.resolve("c/ptxrun.c").toString(), "-ldl"), work.resolve("ptxrun"), work);
        List<String> dirs = new ArrayList<>();
        try (var s = Files.list(kernels)) {
            s.sorted().forEach(p -> dirs.add(p.toString()));
        }
        String[] args = dirs.toArray(new String[0]);
        Programs.Result first = Programs.withShim(exe, Map.of(), args);
        Programs.Result second = Programs.withShim(exe, Map.of(), args);
        assertEquals(0, first.exit(), first.toString());
        assertEquals(40, first.stdout().lines().filter(l -> l.startsWith("== ")).count(), first.toString());
        assertFalse(first.stdout().contains("ERROR"), first.toString());
        assertEquals(first.stdout(), second.stdout(), "two runs of the same random kernels differ");
    }
}
