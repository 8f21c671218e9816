package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;
import org.zludaj.tests.IsaCoverage.Proof;

/**
 * Keeps docs/isa-coverage.md true: the coverage of instructions.txt's forms by the ptx-tests (each parsed, run on the
 * host, compiled for AMD and sm_90 by the tests named in the page, with NVIDIA-checked expectations as
 * nvidia-checked.txt lists them) and by the first 500 kernels of the differential corpus (run on the host against
 * NVIDIA's recorded results; those using a form no ptx-test compiles for AMD or sm_90 are compiled for it here). Fails when the page differs from what the suite proves, or when a test uses a form
 * instructions.txt does not list.
 */
class IsaCoverageTest {
    static final int FUZZ = 500;

    @Test
    void coverageTableIsTrue(@TempDir Path work) throws Exception {
        Assumptions.assumeTrue(Programs.onPath("python3") != null, "python3 is not installed: the corpus part of the ISA coverage table is skipped");
        Path ptx = PtxInstructionTest.PTX;
        Set<String> hostPending = PtxInstructionTest.pending().keySet();
        Set<String> amdPending = names(ptx.resolve("amd-pending.txt"));
        Set<String> checked = names(ptx.resolve("nvidia-checked.txt"));
        IsaCoverage c = new IsaCoverage();
        List<Path> tests = PtxInstructionTest.tests();
        for (Path d : tests) {
            String n = d.getFileName().toString();
            var p = Ptx.parseLenient(n + ".ptx", Files.readString(d.resolve("kernel.ptx")));
            assertTrue(p.ok(), n + " does not parse: " + p.diagnostics());
            EnumSet<Proof> proofs = EnumSet.of(Proof.PARSED, Proof.SM90);
            if (!hostPending.contains(n)) proofs.add(Proof.HOST);
            if (!amdPending.contains(n)) proofs.add(Proof.AMD);
            if (checked.contains(n) && !hostPending.contains(n)) proofs.add(Proof.NVIDIA);
            c.add(n, p.module(), proofs);
        }

        Path fuzz = Programs.TESTS.resolve("fuzz");
        Set<String> differences = names(fuzz.resolve("host-differences.txt"));
        Path script = Programs.TESTS.getParent().getParent().getParent().resolve("tools/gpu-check/fuzz_ptx.py");
        Path kernels = Files.createDirectories(work.resolve("k"));
        Programs.Result g = Programs.run(List.of("python3", script.toString(), kernels.toString(), String.valueOf(FUZZ), "1"), Map.of(), work);
        assertEquals(0, g.exit(), g.toString());
        int corpus = 0, compiled = 0;
        try (var s = Files.list(kernels)) {
            for (Path k : s.sorted().toList()) {
                String n = k.getFileName().toString();
                var p = Ptx.parseLenient(n + ".ptx", Files.readString(k.resolve("kernel.ptx")));
                assertTrue(p.ok(), n + " does not parse: " + p.diagnostics());
                EnumSet<Proof> proofs = EnumSet.of(Proof.PARSED, Proof.HOST);
                if (!differences.contains(n)) proofs.add(Proof.NVIDIA);
                // the corpus is not compiled for the GPUs elsewhere in the suite: a kernel that adds a form is, here
                if (c.adds(n, p.module(), Proof.AMD)) {
                    String bad = null;
                    for (String gfx : List.of("gfx1030", "gfx1100", "gfx1201")) {
                        String why = AmdCodeObjectTest.check(Compiler.amdgpu(p.module(), gfx), gfx);
                        if (why != null) bad = gfx + ": " + why;
                    }
                    assertNull(bad, n + " for AMD");
                    proofs.add(Proof.AMD);
                    compiled++;
                }
                if (c.adds(n, p.module(), Proof.SM90)) {
                    assertFalse(Compiler.nvptx(p.module(), 90).isEmpty(), n + " for sm_90");
                    proofs.add(Proof.SM90);
                }
                c.add(n, p.module(), proofs);
                corpus++;
            }
        }
        assertEquals(FUZZ, corpus);
        System.out.printf("ISA coverage: %d corpus kernels compiled for AMD for the forms they add%n", compiled);
        assertTrue(c.unlisted.isEmpty(), "forms used by tests but missing from instructions.txt (form=kernel): " + c.unlisted);

        String page = c.render(tests.size() + " ptx-tests, the first " + FUZZ + " kernels of the differential corpus");
        System.out.printf("ISA coverage: %d forms, parsed %d, host %d, AMD %d, sm_90 %d, NVIDIA-checked %d%n", c.total(),
                c.count(Proof.PARSED), c.count(Proof.HOST), c.count(Proof.AMD), c.count(Proof.SM90), c.count(Proof.NVIDIA));
        Path doc = Programs.TESTS.getParent().getParent().getParent().resolve("docs/isa-coverage.md");
        if (Boolean.getBoolean("golden.update")) Files.writeString(doc, page);
        assertTrue(Files.exists(doc), doc + " is missing (create it with -Dgolden.update=true)");
        assertEquals(page, Files.readString(doc), "docs/isa-coverage.md is out of date: rerun with -Dgolden.update=true and review the diff");
    }

    /** The first word of each line that is neither blank nor a comment. */
    static Set<String> names(Path f) throws Exception {
        Set<String> s = new TreeSet<>();
        if (!Files.exists(f)) return s;
        for (String l : Files.readAllLines(f)) {
            l = l.strip();
            if (!l.isEmpty() && !l.startsWith("#")) s.add(l.split("\\s+")[0]);
        }
        return s;
    }
}
