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
 * ZLUDA-J must equal NVIDIA's bit for bit, except the kernels src/test/fuzz/host-differences.txt lists: those marked
 * "nan" may differ only where NVIDIA's and ours are both NaNs (payload and sign: the stated tolerance, as for the
 * ptx-tests' float outputs), the others name their reason. The whole corpus runs in bench/fuzz-corpus.sh.
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
        // host-differences.txt: "name nan" (only NaN payloads or signs differ: checked below) or "name other REASON"
        Map<String, String> known = new LinkedHashMap<>();
        for (String l : Files.readAllLines(fuzz.resolve("host-differences.txt"))) {
            if (l.isBlank() || l.startsWith("#")) continue;
            String[] w = l.trim().split("\\s+", 2);
            known.put(w[0], w.length > 1 ? w[1] : "");
        }

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
        Map<String, String> values = blocks(new String(new GZIPInputStream(Files.newInputStream(fuzz.resolve("nvidia-h100-values.txt.gz")))
                .readAllBytes(), StandardCharsets.UTF_8));
        List<String> wrong = new ArrayList<>(), fixed = new ArrayList<>(), notNan = new ArrayList<>();
        int matched = 0, nan = 0;
        for (String n : names) {
            String out = blocks.get(n);
            boolean same = out != null && digest(out.getBytes(StandardCharsets.UTF_8)).equals(nvidia.get(n)[1]);
            if (same) matched++;
            if (!same && !known.containsKey(n)) wrong.add(n);
            if (same && known.containsKey(n)) fixed.add(n);
            if (!same && "nan".equals(known.get(n))) {
                String why = out == null ? "no output" : onlyNanDiffers(values.get(n), out);
                if (why == null) nan++;
                else notNan.add(n + " (" + why + ")");
            }
        }
        System.out.printf("fuzz corpus on the host: %d of %d kernels equal NVIDIA's results bit for bit; %d more differ only in NaN payloads "
                + "or signs; %d listed with another reason%n", matched, names.size(), nan, known.size() - nan - notNan.size());
        assertTrue(wrong.isEmpty(), "results differ from NVIDIA's (tools/gpu-check/fuzz_corpus.py check shows the words): " + wrong);
        assertTrue(fixed.isEmpty(), "these now equal NVIDIA's results: remove them from host-differences.txt: " + fixed);
        assertTrue(notNan.isEmpty(), "listed as NaN differences, but other values differ: " + notNan);
    }

    /**
     * Null when two outputs of one kernel (ptxrun blocks of 32-bit words, one per line) differ only where both
     * words are NaNs: as f32, as both f16 halves (or equal halves), or as the two words of an f64 stored at an even
     * word; else the first other difference.
     */
    static String onlyNanDiffers(String nvidia, String ours) {
        if (nvidia == null) return "NVIDIA's values are not kept";
        String[] a = nvidia.split("\n"), b = ours.split("\n");
        if (a.length != b.length) return "line count " + a.length + " against " + b.length;
        for (int k = 1; k < a.length; k++) {
            if (a[k].equals(b[k])) continue;
            long x = Long.parseLong(a[k].trim(), 16), y = Long.parseLong(b[k].trim(), 16);
            if (nan32(x) && nan32(y) || halvesNan(x, y)) continue;
            int word = k - 1;  // the first line is the buffer's header
            boolean f64 = word % 2 == 0 && k + 1 < a.length
                    && nan64(Long.parseLong(a[k + 1].trim(), 16), x) && nan64(Long.parseLong(b[k + 1].trim(), 16), y);
            if (!f64) return "line " + k + ": NVIDIA " + a[k] + ", ours " + b[k];
        }
        return null;
    }

    static boolean nan32(long w) {
        return (w & 0x7f800000L) == 0x7f800000L && (w & 0x7fffffL) != 0;
    }

    static boolean nan16(long h) {
        return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    }

    static boolean halvesNan(long x, long y) {
        for (int shift = 0; shift < 32; shift += 16) {
            long p = (x >> shift) & 0xffff, q = (y >> shift) & 0xffff;
            if (p != q && !(nan16(p) && nan16(q))) return false;
        }
        return true;
    }

    static boolean nan64(long hi, long lo) {
        return (hi & 0x7ff00000L) == 0x7ff00000L && ((hi & 0xfffffL) | lo) != 0;
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
