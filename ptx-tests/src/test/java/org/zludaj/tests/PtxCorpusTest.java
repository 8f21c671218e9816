package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zludaj.driver.fatbin.Fatbin;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.Positions;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Statement;

/**
 * The front end over real PTX: what nvcc 13 emits for ptx-tests' own CUDA programs (compute_75, 80, 86, 90, plus
 * debug -G and -lineinfo variants), and the PTX inside NVIDIA libraries found on disk (Python wheels' nvidia/ and
 * torch/lib, or a folder of fatbins named by ZLUDA_PTX_CORPUS). Every module must parse with zero diagnostics and
 * survive print-and-parse unchanged. Prints the corpus figures.
 */
class PtxCorpusTest {
    record Stats(int modules, int functions, long lines, int forms, double seconds) {
        @Override
        public String toString() {
            return String.format("%d modules, %d functions, %d lines, %d distinct opcode+modifier forms, %.2f s (%.0f lines/s)",
                    modules, functions, lines, forms, seconds, lines / seconds);
        }
    }

    static Stats check(List<String[]> named) {
        Set<String> forms = ConcurrentHashMap.newKeySet();
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicInteger functions = new java.util.concurrent.atomic.AtomicInteger();
        long lines = named.stream().mapToLong(n -> n[1].lines().count()).sum();
        long t0 = System.nanoTime();
        named.parallelStream().forEach(n -> {
            Ptx.Parsed p = Ptx.parseLenient(n[0], n[1]);
            if (!p.ok()) {
                problems.add(n[0] + ": " + p.diagnostics().size() + " diagnostics, first " + p.diagnostics().get(0));
                return;
            }
            functions.addAndGet(p.module().functions().size());
            collect(p.module(), forms);
        });
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(problems.isEmpty(), problems.size() + " modules with diagnostics:\n" + String.join("\n", problems.subList(0, Math.min(10, problems.size()))));
        named.parallelStream().forEach(n -> {
            PtxModule m = Ptx.parseLenient(n[0], n[1]).module();
            Ptx.Parsed again = Ptx.parseLenient(n[0] + " (printed)", PtxPrinter.print(m));
            if (!again.ok() || !Positions.strip(m).equals(Positions.strip(again.module()))) problems.add(n[0] + " does not round-trip");
        });
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        return new Stats(named.size(), functions.get(), lines, forms.size(), seconds);
    }

    static void collect(PtxModule m, Set<String> forms) {
        for (var f : m.functions()) if (f.body() != null) collect(f.body(), forms);
    }

    static void collect(List<Statement> body, Set<String> forms) {
        for (Statement s : body) {
            if (s instanceof Statement.Instruction i) forms.add(i.text());
            else if (s instanceof Statement.Block b) collect(b.statements(), forms);
        }
    }

    @Test
    void nvccOutputOfOurPrograms(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        List<String[]> jobs = new ArrayList<>();
        try (Stream<Path> s = Files.list(Programs.TESTS.resolve("cuda"))) {
            for (Path cu : s.filter(p -> p.toString().endsWith(".cu")).sorted().toList()) {
                String base = cu.getFileName().toString().replace(".cu", "");
                for (String a : List.of("75", "80", "86", "90")) jobs.add(new String[] {cu.toString(), base + "_" + a, "-arch=compute_" + a});
                jobs.add(new String[] {cu.toString(), base + "_86_G", "-arch=compute_86", "-G"});
                jobs.add(new String[] {cu.toString(), base + "_90_lineinfo", "-arch=compute_90", "-lineinfo"});
            }
        }
        List<String[]> modules = java.util.Collections.synchronizedList(new ArrayList<>());
        jobs.parallelStream().forEach(j -> {
            try {
                Path out = dir.resolve(j[1] + ".ptx");
                List<String> cmd = new ArrayList<>(List.of("nvcc", "-ptx", "-o", out.toString()));
                cmd.addAll(List.of(j).subList(2, j.length));
                cmd.add(j[0]);
                Programs.build(cmd, out, dir);
                modules.add(new String[] {j[1] + ".ptx", Files.readString(out)});
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertEquals(jobs.size(), modules.size());
        System.out.println("PTX corpus, nvcc 13 output of ptx-tests' programs: " + check(modules));
    }

    @Test
    void ptxInNvidiaLibraries() throws Exception {
        List<Path> libs = libraries();
        assumeTrue(!libs.isEmpty(), "no NVIDIA libraries (Python wheels nvidia/*, torch/lib, or ZLUDA_PTX_CORPUS) on this machine");
        List<String[]> modules = new ArrayList<>();
        for (Path lib : libs) {
            int n = 0;
            for (byte[] container : containers(lib)) {
                for (Fatbin.Entry e : Fatbin.fromBytes(container)) {
                    if (e.isPtx()) modules.add(new String[] {lib.getFileName() + "#" + n++, e.text()});
                }
            }
        }
        assumeTrue(!modules.isEmpty(), "the NVIDIA libraries found hold no PTX");
        System.out.println("PTX corpus, NVIDIA libraries (" + libs.size() + " files): " + check(modules));
    }

    /** Shared libraries of NVIDIA's wheels, or files in ZLUDA_PTX_CORPUS (ELF files or raw fatbin containers). */
    static List<Path> libraries() throws Exception {
        List<Path> out = new ArrayList<>();
        String env = System.getenv("ZLUDA_PTX_CORPUS");
        List<Path> roots = new ArrayList<>();
        if (env != null) roots.add(Path.of(env));
        else for (String r : List.of("/usr/lib", "/usr/local/lib", "/opt", System.getProperty("user.home") + "/.local/lib",
                System.getProperty("user.home") + "/.pyenv/versions")) roots.add(Path.of(r));
        for (Path root : roots) {
            if (!Files.isDirectory(root)) continue;
            try (Stream<Path> s = Files.walk(root, 9)) {
                s.filter(Files::isRegularFile).filter(p -> {
                    String f = p.toString();
                    if (env != null) return true;
                    return (f.contains("/site-packages/nvidia/") || f.contains("/dist-packages/nvidia/") || f.contains("/torch/lib/"))
                            && f.matches(".*\\.so(\\.\\d+)*$");
                }).forEach(out::add);
            } catch (java.io.UncheckedIOException e) {
                // unreadable folders are skipped
            }
        }
        out.sort(null);
        return out;
    }

    /** The fatbin containers of an ELF file's .nv_fatbin section, or of a file that is one or more containers. */
    static List<byte[]> containers(Path file) throws Exception {
        byte[] all = Files.readAllBytes(file);
        ByteBuffer b = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
        int start = 0, end = all.length;
        if (all.length > 64 && b.getInt(0) == Fatbin.ELF_MAGIC) {
            long shoff = b.getLong(0x28);
            int shentsize = Short.toUnsignedInt(b.getShort(0x3a)), shnum = Short.toUnsignedInt(b.getShort(0x3c));
            int shstrndx = Short.toUnsignedInt(b.getShort(0x3e));
            long strOff = b.getLong((int) (shoff + (long) shstrndx * shentsize + 0x18));
            start = -1;
            for (int i = 0; i < shnum; i++) {
                int sh = (int) (shoff + (long) i * shentsize);
                int nameOff = b.getInt(sh);
                StringBuilder name = new StringBuilder();
                for (int k = (int) strOff + nameOff; all[k] != 0; k++) name.append((char) all[k]);
                if (name.toString().equals(".nv_fatbin")) {
                    start = (int) b.getLong(sh + 0x18);
                    end = start + (int) b.getLong(sh + 0x20);
                }
            }
            if (start < 0) return List.of();
        }
        List<byte[]> out = new ArrayList<>();
        for (int pos = start; pos + 16 <= end; ) {
            if (b.getInt(pos) != Fatbin.CONTAINER_MAGIC) {
                pos += 8;
                continue;
            }
            long size = b.getLong(pos + 8);
            int len = (int) Math.min(16 + size, end - pos);
            out.add(java.util.Arrays.copyOfRange(all, pos, pos + len));
            pos = (int) ((pos + 16 + size + 7) & ~7L);
        }
        return out;
    }
}
