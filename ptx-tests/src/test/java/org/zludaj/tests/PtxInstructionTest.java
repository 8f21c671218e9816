package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every ptx-tests folder (src/test/ptx/NAME: kernel.ptx, test.txt, expected.txt recorded on NVIDIA's driver) run on
 * the host backend through ZLUDA-J's libcuda.so.1 by the ptxrun harness, and compared with NVIDIA's results.
 * Tests listed in host-pending.txt are not expected to pass yet; one that passes must be taken off that list.
 */
class PtxInstructionTest {
    static final Path PTX = Programs.TESTS.resolve("ptx");
    static final int BATCH = 25;

    /** Output buffers of one run: name -> (type, values as bits). */
    record Buffers(Map<String, String> types, Map<String, List<Long>> values, String error) {}

    static Map<String, Buffers> parse(String stdout) {
        Map<String, Buffers> out = new LinkedHashMap<>();
        String test = null;
        Map<String, String> types = null;
        Map<String, List<Long>> values = null;
        List<Long> cur = null;
        StringBuilder error = null;
        for (String line : stdout.split("\n")) {
            if (line.startsWith("== ")) {
                if (test != null) out.put(test, new Buffers(types, values, error == null ? null : error.toString()));
                test = Path.of(line.substring(3).trim()).getFileName().toString();
                types = new HashMap<>();
                values = new HashMap<>();
                error = null;
                cur = null;
            } else if (line.startsWith("ERROR") || error != null) {
                if (error == null) error = new StringBuilder();
                error.append(line).append('\n');
            } else if (line.startsWith("#")) {
                continue;  // a crash report (the process died): the test shows as having no complete output
            } else if (line.contains(" ")) {
                String[] f = line.split(" ");
                types.put(f[0], f[1]);
                values.put(f[0], cur = new ArrayList<>());
            } else if (!line.isBlank() && cur != null && line.trim().matches("[0-9a-f]{1,16}")) {
                cur.add(Long.parseUnsignedLong(line.trim(), 16));
            }
        }
        if (test != null) out.put(test, new Buffers(types, values, error == null ? null : error.toString()));
        return out;
    }

    /** Null when equal within the test's tolerance, else the first difference. */
    static String compare(String name, Buffers want, Buffers got, String tolerance) {
        if (got == null) return "no output (the harness crashed)";
        if (want.error != null) {  // NVIDIA fails the launch (trap): the same call must fail with the same error
            String w = want.error.lines().findFirst().orElse(""), g = got.error == null ? null : got.error.lines().findFirst().orElse("");
            return w.equals(g) ? null : "NVIDIA: " + w + "; ZLUDA-J: " + (g == null ? "no error" : g);
        }
        if (got.error != null) return got.error.strip();
        for (var e : want.values.entrySet()) {
            List<Long> w = e.getValue(), g = got.values.get(e.getKey());
            if (g == null || g.size() != w.size()) return "buffer " + e.getKey() + " missing or of another size";
            String type = want.types.get(e.getKey());
            int bad = 0;
            String first = null;
            for (int i = 0; i < w.size(); i++) {
                if (!close(type, w.get(i), g.get(i), tolerance)) {
                    if (first == null) first = String.format("%s[%d]: NVIDIA %x, ZLUDA-J %x", e.getKey(), i, w.get(i), g.get(i));
                    bad++;
                }
            }
            if (bad > 0) return bad + " of " + w.size() + " values differ, first " + first;
        }
        return null;
    }

    static boolean close(String type, long want, long got, String tolerance) {
        if (want == got) return true;
        if (tolerance != null && (tolerance.startsWith("ulp16 ") || tolerance.startsWith("ulpb16 "))
                && (type.equals("u16") || type.equals("u32"))) {
            // f16 (ulp16) or bf16 (ulpb16) values, two in a u32 word: each within N units in the last place, of the
            // same sign, and a NaN only where NVIDIA's is one
            long n = Long.parseLong(tolerance.substring(tolerance.indexOf(' ') + 1).trim());
            long inf = tolerance.startsWith("ulp16") ? 0x7c00 : 0x7f80;
            for (int shift = 0; shift < (type.equals("u32") ? 32 : 16); shift += 16) {
                long w = want >>> shift & 0xffff, g = got >>> shift & 0xffff;
                if (w == g) continue;
                boolean nanW = (w & 0x7fff) > inf, nanG = (g & 0x7fff) > inf;
                if (nanW && nanG) continue;
                if ((w & 0x8000) != (g & 0x8000) || Math.abs(w - g) > n || nanW != nanG) return false;
            }
            return true;
        }
        if (type.equals("f32") || type.equals("f64")) {
            double w = type.equals("f32") ? Float.intBitsToFloat((int) want) : Double.longBitsToDouble(want);
            double g = type.equals("f32") ? Float.intBitsToFloat((int) got) : Double.longBitsToDouble(got);
            if (Double.isNaN(w) && Double.isNaN(g)) return true;  // NaN payloads are not compared
            if (tolerance == null || Double.isNaN(w) || Double.isNaN(g)) return false;
            String[] t = tolerance.split(" ");
            double x = Double.parseDouble(t[1]);
            return switch (t[0]) {
                case "ulp" -> Math.abs(want - got) <= (long) x && (want < 0) == (got < 0);
                case "abs" -> Math.abs(w - g) <= x || w == g;
                case "rel" -> Math.abs(w - g) <= x * Math.max(Math.abs(w), Double.MIN_NORMAL) || w == g;
                default -> false;
            };
        }
        return false;
    }

    /** A short reason for host-pending.txt. */
    static String reason(String diff) {
        var m = java.util.regex.Pattern.compile("instruction (\\S+) .*?is not supported yet|register (%\\w+) is not supported|"
                + "\\.func \\(device functions and calls\\)|variable \\S+ inside a function|LLVM verifier|Failed to materialize|no output")
                .matcher(diff);
        if (m.find()) return m.group(0);
        if (diff.contains("values differ")) return "results differ from NVIDIA";
        return diff.lines().findFirst().orElse("").replaceAll("0x[0-9a-f]+", "").strip();
    }

    static String tolerance(Path dir) throws Exception {
        for (String line : Files.readAllLines(dir.resolve("test.txt"))) {
            String[] f = line.trim().split("\\s+");
            if (f[0].equals("output") && f.length >= 4) return f[2] + " " + f[3];
        }
        return null;
    }

    static Map<String, String> pending() throws Exception {
        Map<String, String> p = new TreeMap<>();
        Path f = PTX.resolve("host-pending.txt");
        if (!Files.exists(f)) return p;
        for (String line : Files.readAllLines(f)) {
            line = line.strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            int sp = line.indexOf(' ');
            p.put(sp < 0 ? line : line.substring(0, sp), sp < 0 ? "" : line.substring(sp + 1).strip());
        }
        return p;
    }

    public static List<Path> tests() throws Exception {
        try (Stream<Path> s = Files.list(PTX)) {
            return s.filter(d -> Files.exists(d.resolve("expected.txt"))).sorted().toList();
        }
    }

    /** Runs tests in batches (one process and one JVM per batch); a crashed batch is rerun one test per process. */
    static Map<String, Buffers> runAll(Path exe, List<Path> dirs, Path work) throws Exception {
        return runAll(exe, dirs, work, Map.of());
    }

    static Map<String, Buffers> runAll(Path exe, List<Path> dirs, Path work, Map<String, String> env) throws Exception {
        Map<String, Buffers> got = Collections.synchronizedMap(new HashMap<>());
        List<List<Path>> batches = new ArrayList<>();
        for (int i = 0; i < dirs.size(); i += BATCH) batches.add(dirs.subList(i, Math.min(dirs.size(), i + BATCH)));
        IntStream.range(0, batches.size()).parallel().forEach(b -> {
            try {
                got.putAll(batch(exe, batches.get(b), work, env));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        return got;
    }

    static Map<String, Buffers> batch(Path exe, List<Path> dirs, Path work, Map<String, String> extraEnv) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(exe.toString()));
        List<String> names = new ArrayList<>();
        for (Path d : dirs) {
            cmd.add(d.toString());
            names.add(d.getFileName().toString());
        }
        if (dirs.size() == 1) cmd.add(dirs.get(0).toString());  // two names keep the "== NAME" framing
        Map<String, String> env = new HashMap<>(extraEnv);
        env.put("LD_LIBRARY_PATH", Programs.DIST.resolve("lib").toString());
        env.put("ZLUDA_LOG", "error");
        Programs.Result r = Programs.run(cmd, env, work);
        Map<String, Buffers> out = parse(r.stdout());
        if (out.keySet().containsAll(names) && r.exit() == 0) return out;
        if (dirs.size() == 1) return out;  // crashed on its own: reported as no output
        Map<String, Buffers> each = new HashMap<>();
        for (Path d : dirs) each.putAll(batch(exe, List.of(d), work, extraEnv));
        return each;
    }

    @Test
    void everyTestMatchesNvidiaOnTheHost(@TempDir Path work) throws Exception {
        Path exe = Programs.build(List.of("gcc", "-O1", "-o", work.resolve("ptxrun").toString(),
                Programs.TESTS.resolve("c/ptxrun.c").toString(), "-ldl"), work.resolve("ptxrun"), work);
        List<Path> dirs = tests();
        assertTrue(dirs.size() > 300, "ptx-tests folders found: " + dirs.size());
        Map<String, Buffers> got = runAll(exe, dirs, work);
        Map<String, String> pending = pending();
        List<String> failures = new ArrayList<>(), nowPassing = new ArrayList<>();
        Map<String, String> stillFailing = new TreeMap<>();
        int passed = 0;
        for (Path d : dirs) {
            String name = d.getFileName().toString();
            Buffers want = parse("== " + name + "\n" + Files.readString(d.resolve("expected.txt"))).get(name);
            String diff = compare(name, want, got.get(name), tolerance(d));
            if (diff == null) passed++;
            if (diff == null && pending.containsKey(name)) nowPassing.add(name);
            if (diff != null && !pending.containsKey(name)) failures.add(name + ": " + diff);
            if (diff != null) stillFailing.put(name, reason(diff));
        }
        if (Boolean.getBoolean("ptx.tests.updatePending")) {  // development aid: rewrite the list from this run
            StringBuilder f = new StringBuilder("# ptx-tests not yet passing on the host backend, with the first reason"
                    + " (PtxInstructionTest keeps this list true).\n");
            stillFailing.forEach((n, r) -> f.append(n).append(' ').append(r).append('\n'));
            Files.writeString(PTX.resolve("host-pending.txt"), f.toString());
            return;
        }
        System.out.printf("ptx-tests on the host backend: %d of %d match NVIDIA (%d listed as pending)%n", passed, dirs.size(), pending.size());
        assertTrue(failures.isEmpty(), failures.size() + " tests differ from NVIDIA:\n" + String.join("\n", failures));
        assertTrue(nowPassing.isEmpty(), "these tests pass now: take them off host-pending.txt: " + nowPassing);
    }

    /**
     * The matrix and barrier tests with the AMD lowering (WMMA in the gfx11 or gfx12 operand layout, dot products on
     * gfx10.3, lane permutes; named barriers, bar.arrive and bar.red in shared memory, pass.NamedBarriers) executed on
     * the host, the WMMA emulated as the AMD ISA defines it (ZLUDA_HOST_WMMA): the code that runs on an RDNA GPU,
     * checked against the same references as NVIDIA's GPU.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"gfx1100", "gfx1201", "gfx1030"})
    void matrixTestsMatchWithTheAmdLoweringEmulated(String gfx, @TempDir Path work) throws Exception {
        Path exe = Programs.build(List.of("gcc", "-O1", "-o", work.resolve("ptxrun").toString(),
                Programs.TESTS.resolve("c/ptxrun.c").toString(), "-ldl"), work.resolve("ptxrun"), work);
        List<Path> dirs = tests().stream().filter(d -> d.getFileName().toString().matches("(w?mma|ldmatrix|stmatrix|movmatrix|cp_async|bar)_.*")).toList();
        assertTrue(dirs.size() >= 52, "matrix and barrier tests found: " + dirs.size());
        Map<String, Buffers> got = runAll(exe, dirs, work, Map.of("ZLUDA_HOST_WMMA", gfx));
        List<String> failures = new ArrayList<>();
        for (Path d : dirs) {
            String name = d.getFileName().toString();
            Buffers want = parse("== " + name + "\n" + Files.readString(d.resolve("expected.txt"))).get(name);
            String diff = compare(name, want, got.get(name), tolerance(d));
            if (diff != null) failures.add(name + ": " + diff);
        }
        System.out.printf("matrix and barrier tests with the %s lowering emulated on the host: %d of %d match%n", gfx, dirs.size() - failures.size(), dirs.size());
        assertTrue(failures.isEmpty(), failures.size() + " differ:\n" + String.join("\n", failures));
    }
}
