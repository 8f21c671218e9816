package org.zludaj.driver;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.zludaj.driver.fatbin.Fatbin;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.HostJit;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.cache.CompileCache;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.target.AmdgpuTarget;

/**
 * {@code zluda precompile FILES|DIRS... --target host|gfx1100|sm_90 [--cache DIR] [--kernels REGEX|@FILE]}: finds the PTX
 * in executables and
 * shared libraries (fatbin containers in their ELF {@code .nv_fatbin} sections), in fatbin files and in .ptx files,
 * and compiles every kernel (and each module's variables) into the compile cache, in parallel on all cores, exactly
 * as the driver would at run time: a later run compiles nothing. {@code --kernels} limits it to the kernels whose
 * names a regular expression finds, or to those a file names one per line (modules without one are skipped). Prints
 * one line per module and a summary.
 */
public final class PrecompileMain {
    private PrecompileMain() {}

    /** One module found: where, and its PTX candidates (highest SM first, as the loader tries them). */
    /** A module found: its PTX candidates; {@code recordAs} its one PTX element of a fatbin (ModuleRecords), else null. */
    record Found(String origin, List<String> candidates, Fatbin.Entry recordAs) {
        Found(String origin, List<String> candidates) {
            this(origin, candidates, null);
        }
    }

    public static void main(String[] args) throws Exception {
        String target = null;
        Path cacheDir = null;
        List<Path> inputs = new ArrayList<>();
        java.util.function.Predicate<String> wanted = k -> true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--target" -> target = args[++i];
                case "--cache" -> cacheDir = Path.of(args[++i]);
                case "--kernels" -> wanted = kernels(args[++i]);
                default -> inputs.add(Path.of(args[i]));
            }
        }
        if (target == null || inputs.isEmpty()) {
            System.err.println("usage: zluda precompile FILES|DIRS... --target host|gfx1100|sm_90 [--cache DIR] [--kernels REGEX|@FILE]");
            System.exit(2);
        }
        if (!target.equals("host") && !target.startsWith("sm_") && !AmdgpuTarget.SUPPORTED.contains(target)) {
            System.err.println("zluda precompile: unknown target " + target + " (host, sm_NN, or one of " + AmdgpuTarget.SUPPORTED + ")");
            System.exit(2);
        }
        CompileCache cache = cacheDir != null ? new CompileCache(cacheDir, CompileCache.DEFAULT_MAX_BYTES) : CompileCache.fromEnvironment();
        if (cache == null) {
            System.err.println("zluda precompile: the compile cache is off (ZLUDA_CACHE=off)");
            System.exit(2);
        }
        List<Found> modules = new ArrayList<>();
        // the compute capability the loader will report: the GPU's for sm_NN, else ZLUDA_CC (default 8.6)
        int cc = target.startsWith("sm_") ? Integer.parseInt(target.substring(3).replaceAll("[^0-9]", "")) : reportedCc();
        for (Path in : inputs) {
            if (!Files.exists(in)) {
                System.err.println("zluda precompile: " + in + ": no such file or directory");
                System.exit(2);
            }
            find(in, modules, cc);
        }
        long t0 = System.nanoTime();
        AtomicInteger compiled = new AtomicInteger(), cachedAlready = new AtomicInteger(), failed = new AtomicInteger();
        HostJit host = target.equals("host") ? new HostJit(List.of(), cache) : null;
        String t = target;
        java.util.function.Predicate<String> want = wanted;
        // the linker the hip backend will use (ZLUDA_CODEOBJECT): the cache keeps code objects under their linker
        Compiler.CodeObjectLinker linker = t.startsWith("gfx")
                ? org.zludaj.driver.backend.hip.HipBackend.linker(System.getenv("ZLUDA_CODEOBJECT")).forTarget(t) : Compiler.LLD;
        if (t.startsWith("gfx")) System.out.println("linking " + t + " code objects with " + linker.name());
        // modules in parallel too (an application of many one-kernel modules would otherwise use one core), and the
        // units of each module in parallel: both on the common fork-join pool, which steals work between them
        modules.parallelStream().forEach(m -> precompileModule(m, want, t, linker, cache, host, compiled, cachedAlready, failed));
        System.out.printf(Locale.ROOT, "%d modules, %d units compiled, %d already cached, %d failed, %.1f s; cache %s%n", modules.size(),
                compiled.get(), cachedAlready.get(), failed.get(), (System.nanoTime() - t0) / 1e9, cache.directory());
        System.exit(failed.get() == 0 ? 0 : 1);
    }

    /** Compiles the wanted kernels of one module (and its variables) into the cache, counting each unit. */
    private static void precompileModule(Found m, java.util.function.Predicate<String> want, String t,
                                         Compiler.CodeObjectLinker linker, org.zludaj.ptx.cache.CompileCache cache, HostJit host, AtomicInteger compiled,
                                         AtomicInteger cachedAlready, AtomicInteger failed) {
        CodeLoader.Read r;
        try {
            r = CodeLoader.read(m.candidates(), m.origin(), null, new CodeLoader.ParseMarks(() -> cache));  // marks what a run then need not parse
        } catch (CudaException e) {
            System.out.println(m.origin() + ": PTX errors, skipped: " + e.getMessage().lines().findFirst().orElse(""));
            failed.incrementAndGet();
            return;
        }
        // the module's record, as its first load at a run would write it: that load is then by the record already
        if (m.recordAs() != null && r.whole() == null)
            ModuleRecords.put(cache, m.recordAs(), r.index(), org.zludaj.ptx.cache.CompileCache.textDigest(r.index().variablesText()));
        List<String> kernels = r.index().kernels().stream().filter(want).toList();
        if (kernels.isEmpty()) return;
        List<PtxModule> units = new ArrayList<>();
        java.util.Map<PtxModule, String> kernelOf = new java.util.IdentityHashMap<>();  // kernel units, found by their text at a run
        String variablesSource = null;  // the variables unit's text, when a run finds it by that (CodeLoader.read)
        boolean whole = r.whole() != null;  // modules whose variables hold function addresses
        if (whole) {
            try {
                units.add(CodeLoader.whole(r, m.candidates(), m.origin()));
            } catch (CudaException e) {
                failed.incrementAndGet();
                return;
            }
        } else {
            try {
                units.add(CodeLoader.variables(r, m.origin(), null));  // each kernel's unit reaches the module's variables in this one
            } catch (CudaException e) {
                failed.incrementAndGet();
                return;
            }
            variablesSource = r.index().variablesText();  // a marked small module is read as a large one next time
            for (String k : kernels) {
                try {
                    PtxModule u = Library.unit(r.index(), r.parsed(), k, m.origin());
                    units.add(u);
                    kernelOf.put(u, k);
                } catch (CudaException e) {
                    System.out.println(m.origin() + ": kernel " + k + ": " + e.getMessage().lines().findFirst().orElse(""));
                    failed.incrementAndGet();
                }
            }
        }
        PtxModule variablesUnit = variablesSource == null ? null : units.get(0);
        String source = variablesSource;
        units.parallelStream().forEach(u -> {
            try {
                boolean did;
                if (host != null) did = host.precompile(u);
                else if (t.startsWith("sm_")) {
                    String out = Compiler.nvptxCached(cache, u, Integer.parseInt(t.substring(3)));
                    did = Compiler.lastCompiled();
                    if (u == variablesUnit) cache.put(org.zludaj.ptx.cache.CompileCache.sourceKey("nvptx", t, source),
                            out.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    byText(cache, "nvptx", t, r, kernelOf.get(u), u);
                } else {
                    byte[] out = Compiler.amdgpuCached(cache, u, t, linker);
                    did = Compiler.lastCompiled();
                    if (u == variablesUnit)
                        cache.put(org.zludaj.ptx.cache.CompileCache.sourceKey(Compiler.codeObjectKind(linker, t), t, source), out);
                    byText(cache, Compiler.codeObjectKind(linker, t), t, r, kernelOf.get(u), u);
                }
                (did ? compiled : cachedAlready).incrementAndGet();
            } catch (PtxException | RuntimeException e) {
                System.out.println(m.origin() + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
                failed.incrementAndGet();
            }
        });
        System.out.println(m.origin() + ": " + (whole ? "whole module, " : "") + kernels.size() + " kernels"
                + (kernels.size() < r.index().kernels().size() ? " of " + r.index().kernels().size() : ""));
    }

    /** Kernel {@code kernel}'s unit {@code u}, compiled, also found by its text at a run (KernelUnits); null: not a kernel unit. */
    private static void byText(org.zludaj.ptx.cache.CompileCache cache, String kind, String t, CodeLoader.Read r, String kernel, PtxModule u) {
        if (kernel == null) return;
        org.zludaj.driver.backend.KernelUnits.put(cache, org.zludaj.driver.backend.KernelUnits.sourceKey(kind, t, kernel, r.index().digest()),
                org.zludaj.ptx.cache.CompileCache.unitKey(kind, t, u), u, kernel);
    }

    /** ZLUDA_CC as the driver reads it (8.6 by default), as major*10+minor. */
    static int reportedCc() {
        String[] v = System.getenv().getOrDefault("ZLUDA_CC", "8.6").split("\\.");
        try {
            return Integer.parseInt(v[0]) * 10 + (v.length > 1 ? Integer.parseInt(v[1]) : 0);
        } catch (NumberFormatException e) {
            return 86;
        }
    }

    /** The kernels {@code --kernels} selects: those a regular expression finds, or those a file (@FILE) names. */
    static java.util.function.Predicate<String> kernels(String spec) throws IOException {
        if (spec.startsWith("@")) {
            java.util.Set<String> names = new java.util.HashSet<>();
            for (String l : Files.readAllLines(Path.of(spec.substring(1)))) if (!l.isBlank()) names.add(l.strip());
            return names::contains;
        }
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(spec);
        return k -> p.matcher(k).find();
    }

    /** Modules in a file, or in every file under a directory. */
    static void find(Path in, List<Found> out) throws IOException {
        find(in, out, 86);
    }

    /**
     * The modules of a file or folder; a fatbin's PTX images in the order the loader tries them on a device of
     * compute capability {@code cc} (CodeLoader.preference), so that precompiling fills the entries the loader asks for.
     */
    static void find(Path in, List<Found> out, int cc) throws IOException {
        if (Files.isDirectory(in)) {
            try (Stream<Path> files = Files.walk(in)) {
                for (Path f : files.filter(Files::isRegularFile).sorted().toList()) find(f, out, cc);
            }
            return;
        }
        byte[] b = Files.readAllBytes(in);
        if (b.length >= 4 && le(b).getInt(0) == Fatbin.ELF_MAGIC) {
            byte[] section = section(b, ".nv_fatbin");
            if (section != null) containers(in.toString(), section, out, cc);
        } else if (b.length >= 4 && le(b).getInt(0) == Fatbin.CONTAINER_MAGIC) {
            containers(in.toString(), b, out, cc);
        } else if (in.toString().endsWith(".ptx")) {
            out.add(new Found(in.toString(), List.of(new String(b, StandardCharsets.UTF_8))));
        }
    }

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The contents of the named section of a 64-bit little-endian ELF file, or null. */
    static byte[] section(byte[] elf, String name) {
        ByteBuffer e = le(elf);
        if (elf.length < 64 || elf[4] != 2 || elf[5] != 1) return null;  // ELFCLASS64, little endian
        long shoff = e.getLong(0x28);
        int shentsize = Short.toUnsignedInt(e.getShort(0x3A)), shnum = Short.toUnsignedInt(e.getShort(0x3C));
        int shstrndx = Short.toUnsignedInt(e.getShort(0x3E));
        if (shoff <= 0 || shstrndx >= shnum || shoff + (long) shnum * shentsize > elf.length) return null;
        long strOff = e.getLong((int) (shoff + (long) shstrndx * shentsize) + 24);
        for (int i = 0; i < shnum; i++) {
            int h = (int) (shoff + (long) i * shentsize);
            int nameOff = e.getInt(h);
            long off = e.getLong(h + 24), size = e.getLong(h + 32);
            int type = e.getInt(h + 4);
            StringBuilder s = new StringBuilder();
            for (long k = strOff + nameOff; k < elf.length && elf[(int) k] != 0; k++) s.append((char) elf[(int) k]);
            if (s.toString().equals(name) && type != 8 /* SHT_NOBITS */ && off + size <= elf.length)
                return java.util.Arrays.copyOfRange(elf, (int) off, (int) (off + size));
        }
        return null;
    }

    /** Fatbin containers back to back (8-byte aligned), each one module. */
    static void containers(String origin, byte[] data, List<Found> out, int cc) {
        ByteBuffer b = le(data);
        int pos = 0, n = 0;
        while (pos + 16 <= data.length) {
            if (b.getInt(pos) != Fatbin.CONTAINER_MAGIC) {
                pos += 8;  // padding between containers
                continue;
            }
            int headerSize = Short.toUnsignedInt(b.getShort(pos + 6));
            long size = b.getLong(pos + 8);
            if (size < 0 || pos + headerSize + size > data.length) break;
            try {
                List<Fatbin.Entry> ptx = new ArrayList<>(Fatbin.fromBytes(java.util.Arrays.copyOfRange(data, pos, (int) (pos + headerSize + size)))
                        .stream().filter(Fatbin.Entry::isPtx).toList());
                ptx.sort(CodeLoader.preference(cc));
                if (!ptx.isEmpty())
                    out.add(new Found(origin + "#" + n, ptx.stream().map(Fatbin.Entry::text).toList(), ptx.size() == 1 ? ptx.get(0) : null));
            } catch (Fatbin.FatbinException e) {
                System.out.println(origin + "#" + n + ": " + e.getMessage());
            }
            n++;
            pos += (int) ((headerSize + size + 7) & ~7L);
        }
    }
}
