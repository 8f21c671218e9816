package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;

/**
 * Every ptx-test compiled by ZLUDA-J for sm_90 (the cuda loopback backend's target), everywhere, and assembled by
 * NVIDIA's ptxas where the CUDA toolkit is installed (skipped in CI): our NVPTX output, inline PTX of block and warp
 * operations included, is PTX that NVIDIA's tools accept.
 */
class NvptxPtxasTest {
    @Test
    void everyTestAssemblesWithPtxasForSm90(@TempDir Path work) throws Exception {
        boolean ptxas = Programs.onPath("ptxas") != null;
        if (!ptxas) System.out.println("ptxas not found: the sm_90 output is compiled but NVIDIA's assembler check is skipped");
        List<Path> dirs = PtxInstructionTest.tests();
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        dirs.parallelStream().forEach(d -> {
            String name = d.getFileName().toString();
            try {
                String ptx = Compiler.nvptx(Ptx.parse(name + ".ptx", Files.readString(d.resolve("kernel.ptx"))), 90);
                Path in = work.resolve(name + ".ptx");
                Files.writeString(in, ptx);
                if (!ptxas) return;
                Programs.Result r = Programs.run(List.of("ptxas", "-arch=sm_90", in.toString(), "-o", work.resolve(name + ".cubin").toString()),
                        Map.of(), work);
                if (r.exit() != 0) problems.add(name + ": " + (r.stdout() + r.stderr()).strip());
            } catch (Exception e) {
                problems.add(name + ": " + e);
            }
        });
        System.out.printf("ptx-tests for sm_90: %d of %d " + (ptxas ? "accepted by ptxas" : "compiled") + "%n", dirs.size() - problems.size(), dirs.size());
        assertTrue(problems.isEmpty(), problems.size() + " rejected:\n" + String.join("\n", problems));
    }
}
