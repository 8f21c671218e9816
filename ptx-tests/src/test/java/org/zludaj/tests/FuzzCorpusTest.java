package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The differential corpus on the host backend: the first kernels of tools/gpu-check/fuzz_ptx.py (seed 1), generated
 * again, must be the kernels NVIDIA ran (their digests in src/test/fuzz/nvidia-h100.tsv.gz), and their results through
 * ZLUDA-J must equal NVIDIA's bit for bit, except the kernels src/test/fuzz/host-differences.txt lists (open
 * differences, each to be fixed and removed). The whole corpus runs in bench/fuzz-corpus.sh.
 */
class FuzzCorpusTest {
    static final int SLICE = Integer.getInteger("fuzz.corpus.slice", 500);

    @Test
    void hostResultsEqualNvidiasRecordedOnes(@TempDir Path work) throws Exception {
        Assumptions.assumeTrue(Programs.onPath("python3") != null, "python3 is not installed: the differential corpus is skipped");
        Path fuzz = Programs.TESTS.resolve("fuzz");
        Map<String, String[]> nvidia = new LinkedHashMap<>();
        try (var in = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(fuzz.resolve("nvidia-h100.tsv.gz"))),
                StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                String[] w = line.split("\t");
                nvidia.put(w[0], new String[] {w[1], w[2]});
            }
        }
        assertEquals(20000, nvidia.size(), "the recorded corpus");
        Set<String> known = new TreeSet<>();
        for (String l : Files.readAllLines(fuzz.resolve("host-differences.txt"))) if (!l.isBlank() && !l.startsWith("#")) known.add(l.trim());

        Path script = Programs.TESTS.getParent().getParent().getParent().resolve("tools/gpu-check/fuzz_ptx.py");
        Path kernels = Files.createDirectories(work.resolve("k"));
        Programs.Result g = Programs.run(List.of("python3", script.toString(), kernels.toString(), String.valueOf(SLICE), "1"), Map.of(), work);
        assertEquals(0, g.exit(), g.toString());
        List<String> names = new ArrayList<>();
        try (var s = Files.list(kernels)) {
            s.map(p -> p.getFileName().toString()).sorted().forEach(names::add);
        }
        assertEquals(SLICE, names.size());
        for (String n : names) {
            String[] want = nvidia.get(n);
            assertNotNull(want, n + " is not in the corpus");
            byte[] k = concat(Files.readAllBytes(kernels.resolve(n).resolve("kernel.ptx")), Files.readAllBytes(kernels.resolve(n).resolve("test.txt")));
            assertEquals(want[0], digest(k), n + ": the generator changed since NVIDIA's corpus was recorded; record it again (docs/gpu-check.md)");
        }

        Path exe = Programs.build(List.of("gcc", "-O1", "-o", work.resolve("ptxrun").toString(),
                Programs.TESTS.resolve("c/ptxrun.c").toString(), "-ldl"), work.resolve("ptxrun"), work);
        List<String> args = new ArrayList<>();
        for (String n : names) args.add(kernels.resolve(n).toString());
        Programs.Result r = Programs.withShim(exe, Map.of(), args.toArray(new String[0]));
        assertEquals(0, r.exit(), r.stderr());
        Map<String, String> blocks = blocks(r.stdout());
        List<String> wrong = new ArrayList<>(), fixed = new ArrayList<>();
        int matched = 0;
        for (String n : names) {
            String out = blocks.get(n);
            boolean same = out != null && digest(out.getBytes(StandardCharsets.UTF_8)).equals(nvidia.get(n)[1]);
            if (same) matched++;
            if (!same && !known.contains(n)) wrong.add(n);
            if (same && known.contains(n)) fixed.add(n);
        }
        System.out.printf("fuzz corpus on the host: %d of %d kernels equal NVIDIA's results (%d listed as open differences)%n",
                matched, names.size(), known.size());
        assertTrue(wrong.isEmpty(), "results differ from NVIDIA's (tools/gpu-check/fuzz_corpus.py check shows the words): " + wrong);
        assertTrue(fixed.isEmpty(), "these now equal NVIDIA's results: remove them from host-differences.txt: " + fixed);
    }

    /** ptxrun's output: kernel folder name -> its block's lines joined by newlines (as fuzz_corpus.py digests them). */
    static Map<String, String> blocks(String stdout) {
        Map<String, String> found = new LinkedHashMap<>();
        String name = null;
        StringBuilder b = new StringBuilder();
        for (String line : stdout.split("\n", -1)) {
            if (line.startsWith("== ")) {
                if (name != null) found.put(name, trimLast(b));
                String p = line.substring(3);
                while (p.endsWith("/")) p = p.substring(0, p.length() - 1);
                name = p.substring(p.lastIndexOf('/') + 1);
                b.setLength(0);
            } else if (name != null) {
                b.append(line).append('\n');
            }
        }
        if (name != null) found.put(name, trimLast(b));
        return found;
    }

    private static String trimLast(StringBuilder b) {
        String s = b.toString();
        while (s.endsWith("\n")) s = s.substring(0, s.length() - 1);
        return s;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + 1 + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length + 1, b.length);
        return r;
    }

    static String digest(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data)).substring(0, 16);
    }
}
