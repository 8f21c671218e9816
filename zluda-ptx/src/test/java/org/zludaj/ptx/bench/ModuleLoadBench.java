package org.zludaj.ptx.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.zludaj.ptx.HostJit;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxIndex;
import org.zludaj.ptx.cache.CompileCache;
import org.zludaj.ptx.model.PtxModule;

/**
 * Module load on the host: the largest PTX file under the given folders, loaded (1) whole and compiled with an empty
 * cache, (2) whole from a warm cache, (3) on demand: index plus variables, then the first kernel's first launch
 * (cold and warm). Prints a table. Usage: ModuleLoadBench DIR... (bench/module-load-bench.sh).
 */
public final class ModuleLoadBench {
    private ModuleLoadBench() {}

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }

    public static void main(String[] args) throws Exception {
        Path largest = null;
        for (String a : args) {
            try (Stream<Path> files = Files.walk(Path.of(a))) {
                Path p = files.filter(f -> f.toString().endsWith(".ptx")).max(Comparator.comparingLong(f -> f.toFile().length())).orElse(null);
                if (p != null && (largest == null || Files.size(p) > Files.size(largest))) largest = p;
            }
        }
        if (largest == null) throw new IllegalArgumentException("no .ptx file under " + List.of(args));
        String text = Files.readString(largest);
        Path dir = Files.createTempDirectory("zluda-bench-cache");
        CompileCache cache = new CompileCache(dir, 1L << 30);
        // kernels with barriers or warp operations call the host runtime: link it as the driver does
        Path rt = Path.of(System.getProperty("zluda.native.dir", "dist/lib"), "libzluda_rt.so").toAbsolutePath();
        HostJit jit = new HostJit(Files.exists(rt) ? List.of(rt.toString()) : List.of(), cache);
        PtxModule whole = Ptx.parse(largest.getFileName().toString(), text);
        long kernels = whole.functions().stream().filter(f -> f.entry() && f.isDefined()).count();
        System.out.printf(Locale.ROOT, "module: %s, %d bytes, %d kernels, %d functions%n", largest, text.length(), kernels, whole.functions().size());
        System.out.println("| step | ms |");
        System.out.println("| --- | --- |");
        long t0 = System.nanoTime();
        Ptx.parse("again", text);
        System.out.printf(Locale.ROOT, "| parse whole module | %.1f |%n", ms(t0));
        t0 = System.nanoTime();
        jit.load(whole);
        System.out.printf(Locale.ROOT, "| whole module, cold cache (compile) | %.1f |%n", ms(t0));
        t0 = System.nanoTime();
        jit.load(whole);
        System.out.printf(Locale.ROOT, "| whole module, warm cache | %.1f |%n", ms(t0));
        // on demand, with a cache of its own (cold, then warm)
        CompileCache lazyCache = new CompileCache(Files.createTempDirectory("zluda-bench-cache"), 1L << 30);
        jit = new HostJit(Files.exists(rt) ? List.of(rt.toString()) : List.of(), lazyCache);
        for (String phase : List.of("cold", "warm")) {
            t0 = System.nanoTime();
            PtxIndex ix = PtxIndex.of(text);
            PtxModule vars = Ptx.parse("vars", ix.variablesText());
            String prefix = jit.newPrefix();
            jit.load(vars, prefix);
            double load = ms(t0);
            String k = ix.kernels().get(0);
            t0 = System.nanoTime();
            PtxModule unit = PtxIndex.asKernelUnit(Ptx.parse("unit", ix.kernelText(k)), k);
            jit.load(unit, prefix);
            System.out.printf(Locale.ROOT, "| on demand, %s cache: module load (index + variables) | %.1f |%n", phase, load);
            System.out.printf(Locale.ROOT, "| on demand, %s cache: first launch of %s (parse + compile its unit) | %.1f |%n", phase,
                    k.length() > 40 ? k.substring(0, 40) + "..." : k, ms(t0));
        }
        // a module with many kernels, as llama.cpp's are (141 modules, 6,677 kernels): load cost whole vs on demand
        StringBuilder many = new StringBuilder(".version 7.0\n.target sm_75\n.address_size 64\n.visible .global .u32 calls;\n");
        int n = 200;
        for (int i = 0; i < n; i++) {
            many.append(".visible .entry k").append(i).append("(.param .u64 a, .param .u32 n)\n{\n\t.reg .u32 %r<6>;\n\t.reg .u64 %rd<4>;\n")
                .append("\t.reg .pred %p;\n\tld.param.u64 %rd1, [a];\n\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, %tid.x;\n")
                .append("\tsetp.ge.u32 %p, %r2, %r1;\n\t@%p ret;\n\tmul.wide.u32 %rd2, %r2, 4;\n\tadd.u64 %rd3, %rd1, %rd2;\n")
                .append("\tld.global.u32 %r3, [%rd3];\n\tadd.u32 %r3, %r3, ").append(i).append(";\n\tst.global.u32 [%rd3], %r3;\n")
                .append("\tatom.global.add.u32 %r4, [calls], 1;\n\tret;\n}\n");
        }
        String manyText = many.toString();
        CompileCache c2 = new CompileCache(Files.createTempDirectory("zluda-bench-cache"), 1L << 30);
        HostJit j2 = new HostJit(List.of(), c2);
        t0 = System.nanoTime();
        j2.load(Ptx.parse("many", manyText));
        System.out.printf(Locale.ROOT, "| %d-kernel module (%d bytes), whole, cold cache | %.1f |%n", n, manyText.length(), ms(t0));
        CompileCache c3 = new CompileCache(Files.createTempDirectory("zluda-bench-cache"), 1L << 30);
        HostJit j3 = new HostJit(List.of(), c3);
        t0 = System.nanoTime();
        PtxIndex mix = PtxIndex.of(manyText);
        String p3 = j3.newPrefix();
        j3.load(Ptx.parse("vars", mix.variablesText()), p3);
        System.out.printf(Locale.ROOT, "| %d-kernel module, on demand, cold cache: module load | %.1f |%n", n, ms(t0));
        t0 = System.nanoTime();
        j3.load(PtxIndex.asKernelUnit(Ptx.parse("unit", mix.kernelText("k7")), "k7"), p3);
        System.out.printf(Locale.ROOT, "| %d-kernel module, on demand, cold cache: first launch of one kernel | %.1f |%n", n, ms(t0));
        System.out.printf(Locale.ROOT, "compilations: %d; whole-module cache: %s; on-demand cache: %s%n", HostJit.compilations(),
                cache.stats(), lazyCache.stats());
    }
}
