package org.zludaj.ptx;

import static org.bytedeco.llvm.global.LLVM.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMPassBuilderOptionsRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMTargetRef;
import org.zludaj.ptx.llvm.Ll;
import org.zludaj.ptx.llvm.Lowering;
import org.zludaj.ptx.llvm.Tools;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.target.AmdgpuTarget;
import org.zludaj.ptx.target.NvptxTarget;
import org.zludaj.ptx.target.Target;

/** PTX to code for the device targets: AMD code objects (COv5, linked by ld.lld) and NVPTX text. */
public final class Compiler {
    private Compiler() {}

    /** Version of the compiler's output format; part of every cache key. */
    public static final String VERSION = Build.VERSION;

    /** The compiler's build (see {@link Build}), part of every cache key. */
    public static final String BUILD_ID = Build.ID;

    /** The options {@link #llvmOptions} gave this process's LLVM, passed on to a separate llc too. */
    private static final List<String> userOptions = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The options LLVM parsed for this process (its one parse, {@link #processOptions(List)}); null before it. */
    private static List<String> parsedOptions;

    /** Options asked for after the parse, reported once each. */
    private static final java.util.Set<String> notApplied = new java.util.HashSet<>();

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Compiler.class);

    /**
     * LLVM's own command-line options for this process (e.g. "-time-passes": per-pass times on stderr at exit;
     * "-debug-counter=instcombine-visit=0-N": only the first rewrites of a pass, to bisect a wrong result), given to
     * LLVM with the target's own ({@link #targetOptions}) at the process's first compilation: LLVM 20 applies only
     * the first {@code LLVMParseCommandLineOptions} of a process (a second call's {@code -twoaddr-reschedule=false}
     * changed nothing: 127 s of code generation, against 56 s with both options in the first call).
     */
    public static void llvmOptions(String options) {
        List<String> o = List.of(options.trim().split("\\s+"));
        synchronized (Compiler.class) {
            userOptions.addAll(o);
            if (parsedOptions == null) return;  // parsed with the target's at the first compilation
        }
        processOptions(o);  // too late: reported
    }

    /**
     * The process-wide LLVM options a target's code needs: no SLP vectorizer ({@link Target#slpVectorization}: LLVM 20
     * runs it whatever the pipeline options say), no loop strength reduction ({@link Target#strengthReduction}), no
     * two-address rescheduling ({@link Target#twoAddressRescheduling}), the DAG scheduler ({@link Target#preRaScheduler}).
     * None has a per-target setting in LLVM.
     */
    public static List<String> targetOptions(Target t) {
        List<String> o = new java.util.ArrayList<>();
        if (!t.slpVectorization()) o.add("-vectorize-slp=false");
        if (!t.strengthReduction()) o.add("-disable-lsr");
        if (!t.twoAddressRescheduling()) o.add("-twoaddr-reschedule=false");
        if (t.preRaScheduler() != null) o.add("-pre-RA-sched=" + t.preRaScheduler());
        return o;
    }

    /**
     * Gives LLVM {@code wanted} with the options {@link #llvmOptions} recorded, in the process's one parse, when it has
     * not happened yet (a compilation without options leaves it for a later one); after it, an option it did not hold
     * is reported once (a process that compiled for the host and then for NVPTX gives NVPTX the host's options).
     */
    public static void processOptions(List<String> wanted) {
        Ll.initialize();  // may record ZLUDA_LLVM_OPTIONS (before this class's lock: Ll's is taken first there)
        synchronized (Compiler.class) {
            if (parsedOptions == null) {
                List<String> all = new java.util.ArrayList<>(userOptions);
                for (String w : wanted) if (!all.contains(w)) all.add(w);
                if (all.isEmpty()) return;  // nothing to give: the parse stays for a compilation that has options
                List<String> argv = new java.util.ArrayList<>(List.of("zluda"));
                argv.addAll(all);
                org.bytedeco.javacpp.PointerPointer<BytePointer> p = new org.bytedeco.javacpp.PointerPointer<>(argv.toArray(new String[0]));
                LLVMParseCommandLineOptions(argv.size(), p, new BytePointer(""));
                parsedOptions = List.copyOf(all);
                return;
            }
            for (String w : wanted) {
                if (!parsedOptions.contains(w) && notApplied.add(w)) {
                    LOG.warn("LLVM option {} not applied: LLVM took this process's options at its first compilation ({})", w, parsedOptions);
                }
            }
        }
    }

    /** The options LLVM parsed for this process; empty before its first compilation. */
    public static synchronized List<String> parsedOptions() {
        return parsedOptions == null ? List.of() : parsedOptions;
    }

    public static LLVMTargetMachineRef targetMachine(Target t) throws PtxException {
        Ll.initialize();
        LLVMTargetRef target = new LLVMTargetRef();
        BytePointer err = new BytePointer((Pointer) null);
        if (LLVMGetTargetFromTriple(new BytePointer(t.triple()), target, err) != 0) {
            throw new PtxException(new Diagnostic("-", 0, 0, "no LLVM target " + t.triple() + ": " + Ll.message(err)));
        }
        return LLVMCreateTargetMachine(target, t.triple(), t.cpu(), t.features(), LLVMCodeGenLevelDefault, LLVMRelocPIC,
                LLVMCodeModelDefault);
    }

    /** The data layout string of a target machine. */
    public static String dataLayout(LLVMTargetMachineRef tm) {
        var layout = LLVMCreateTargetDataLayout(tm);
        String s = Ll.message(LLVMCopyStringRepOfTargetData(layout));
        LLVMDisposeTargetData(layout);
        return s;
    }

    /**
     * Runs LLVM's O2 pipeline (new pass manager), or the pipeline the system property {@code zluda.llvm.passes} names
     * (a diagnostic: {@code zluda compile --passes default<O0>} shows whether an optimization changes a result).
     */
    public static void optimize(LLVMModuleRef m, LLVMTargetMachineRef tm) throws PtxException {
        optimize(m, tm, "default<O2>", false, true);
    }

    /**
     * Runs {@code pipeline} ({@link Target#middleEnd}), or the one the system property {@code zluda.llvm.passes} names;
     * {@code keepLoops}: no loop unrolling or interleaving ({@link Target#keepsLoops}); {@code slp}: LLVM's SLP
     * vectorizer in the pipeline ({@link Target#slpVectorization}).
     */
    public static void optimize(LLVMModuleRef m, LLVMTargetMachineRef tm, String pipeline, boolean keepLoops, boolean slp)
            throws PtxException {
        LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
        try {
            if (!slp) processOptions(List.of("-vectorize-slp=false"));
            if (keepLoops) {
                LLVMPassBuilderOptionsSetLoopUnrolling(opts, 0);
                LLVMPassBuilderOptionsSetLoopInterleaving(opts, 0);
            }
            var e = LLVMRunPasses(m, System.getProperty("zluda.llvm.passes", pipeline), tm, opts);
            if (e != null && !e.isNull()) throw new PtxException(new Diagnostic("-", 0, 0, "LLVM passes: " + Ll.message(LLVMGetErrorMessage(e))));
        } finally {
            LLVMDisposePassBuilderOptions(opts);
        }
    }

    static byte[] emit(LLVMTargetMachineRef tm, LLVMModuleRef m, int fileType) throws PtxException {
        LLVMMemoryBufferRef buf = new LLVMMemoryBufferRef();
        BytePointer err = new BytePointer((Pointer) null);
        if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, fileType, err, buf) != 0) {
            throw new PtxException(new Diagnostic("-", 0, 0, "LLVM code generation: " + Ll.message(err)));
        }
        LlvmDiagnostics.check("code generation");
        BytePointer start = LLVMGetBufferStart(buf);
        byte[] out = new byte[(int) LLVMGetBufferSize(buf)];
        start.capacity(out.length).get(out);
        LLVMDisposeMemoryBuffer(buf);
        return out;
    }

    /**
     * Code generation by the bundled llc in a process of its own, with {@code options} added to those of this process
     * and to the target machine's settings (the same pipeline as {@link #emit}: -O2, PIC, the target's CPU and
     * features). The child's CPU time is counted as its wall time (llc runs on one thread).
     */
    static byte[] emitWithLlc(Target t, LLVMModuleRef m, int fileType, List<String> options, CompileProfile profile) throws PtxException {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("zluda-llc");
            Path bc = dir.resolve("k.bc"), out = dir.resolve(fileType == LLVMObjectFile ? "k.o" : "k.s");
            if (LLVMWriteBitcodeToFile(m, bc.toString()) != 0) throw new IOException("cannot write " + bc);
            List<String> a = llcArguments(t, fileType);
            a.addAll(options);
            a.addAll(List.of("-o", out.toString(), bc.toString()));
            long w0 = System.nanoTime();
            Tools.run("llc", a, 3600);  // what code generation in this process would take, unbounded there
            profile.addCpu(System.nanoTime() - w0);
            return Files.readAllBytes(out);
        } catch (IOException e) {
            throw new PtxException(new Diagnostic("-", 0, 0, "LLVM code generation (llc " + String.join(" ", options) + "): " + e.getMessage()));
        } finally {
            if (dir != null) {
                try (var files = Files.list(dir)) {
                    for (Path f : files.toList()) Files.deleteIfExists(f);
                    Files.deleteIfExists(dir);
                } catch (IOException ignored) {
                    // a temporary folder left behind
                }
            }
        }
    }

    /** The bundled llc's options for {@link #emit}'s pipeline on target {@code t}, with this process's LLVM options. */
    public static List<String> llcArguments(Target t, int fileType) {
        List<String> a = new java.util.ArrayList<>(List.of("-mtriple=" + t.triple(), "-mcpu=" + t.cpu(), "-O2", "-relocation-model=pic",
                "-asm-verbose=false", "-filetype=" + (fileType == LLVMObjectFile ? "obj" : "asm")));
        if (!t.features().isEmpty()) a.add("-mattr=" + t.features());
        a.addAll(userOptions);
        for (String o : targetOptions(t)) if (!a.contains(o)) a.add(o);
        return a;
    }

    /** What one compilation produced: optimized LLVM IR, and the target's code (object, code object or PTX). */
    public record Output(String llvmIr, byte[] code) {}

    /** Lowers, optimizes and generates code ({@code LLVMObjectFile} or {@code LLVMAssemblyFile}); with the optimized IR. */
    public static Output compile(PtxModule ptx, Target t, int fileType) throws PtxException {
        return compile(ptx, t, fileType, true, CompileProfile.NONE);
    }

    /**
     * Lowers, optimizes and generates code, adding each stage's time to {@code profile}; the optimized IR's text only
     * when {@code withIr} (printing a large kernel's IR costs as much as a pass).
     */
    public static Output compile(PtxModule ptx, Target t, int fileType, boolean withIr, CompileProfile profile) throws PtxException {
        return compile(ptx, t, fileType, withIr, profile, t::separateCodegen);
    }

    /** As above, with the choice of {@link Target#separateCodegen} made by {@code separate} (tests). */
    static Output compile(PtxModule ptx, Target t, int fileType, boolean withIr, CompileProfile profile,
                          java.util.function.Function<LLVMModuleRef, List<String>> separate) throws PtxException {
        return BigStack.call(() -> compileHere(ptx, t, fileType, withIr, profile, separate));
    }

    private static Output compileHere(PtxModule ptx, Target t, int fileType, boolean withIr, CompileProfile profile,
                                      java.util.function.Function<LLVMModuleRef, List<String>> chooser) throws PtxException {
        processOptions(targetOptions(t));
        long cpu0 = profile.threadCpu();
        LLVMTargetMachineRef tm = targetMachine(t);
        org.zludaj.ptx.llvm.Ll.COMPILING.set(ptx.name() + " " + ptx.functions().stream().filter(f -> f.entry() && f.isDefined())
                .map(org.zludaj.ptx.model.Function::name).limit(3).toList() + " for " + t.name());
        LLVMContextRef ctx = LLVMContextCreate();
        LlvmDiagnostics.install(ctx);
        try {
            LLVMModuleRef m = Lowering.lowerModule(ptx, t, ctx, dataLayout(tm), "", profile).module();
            profile.time(CompileProfile.Stage.OPTIMIZE, () -> {
                optimize(m, tm, t.middleEnd(), t.keepsLoops(), t.slpVectorization());
                if (System.getProperty("zluda.llvm.passes") == null) t.afterMiddleEnd(m, tm);
                return null;
            });
            t.beforeCodegen(m);
            String ir = withIr ? Ll.print(m) : null;
            List<String> separate = chooser.apply(m);
            byte[] code = profile.time(CompileProfile.Stage.CODEGEN,
                    () -> separate == null ? emit(tm, m, fileType) : emitWithLlc(t, m, fileType, separate, profile));
            LLVMDisposeModule(m);
            return new Output(ir, code);
        } finally {
            LLVMContextDispose(ctx);
            LLVMDisposeTargetMachine(tm);
            org.zludaj.ptx.llvm.Ll.COMPILING.remove();
            profile.addCpu(profile.threadCpu() - cpu0);
        }
    }

    /**
     * The last step of an AMD code object: a relocatable object to an executable (COv5). {@link #LLD} is the ld.lld
     * of our LLVM; the driver offers comgr (ZLUDA_CODEOBJECT=comgr), fed the same relocatable object.
     */
    public interface CodeObjectLinker {
        /** Names the linker in cache keys and messages. */
        String name();

        byte[] link(byte[] relocatable, String gfx) throws IOException;

        /** The linker that links for {@code gfx} (a linker that chooses per GPU names its choice, for cache keys). */
        default CodeObjectLinker forTarget(String gfx) {
            return this;
        }
    }

    /** The bundled ld.lld. */
    public static final CodeObjectLinker LLD = new CodeObjectLinker() {
        @Override
        public String name() {
            return "ld.lld";
        }

        @Override
        public byte[] link(byte[] object, String gfx) throws IOException {
            Path dir = Files.createTempDirectory("zluda-amdgpu");
            Path o = dir.resolve("k.o"), co = dir.resolve("k.hsaco");
            try {
                Files.write(o, object);
                Tools.run("lld", List.of("-flavor", "gnu", "-shared", "--no-undefined", "-o", co.toString(), o.toString()));
                return Files.readAllBytes(co);
            } finally {
                Files.deleteIfExists(o);
                Files.deleteIfExists(co);
                Files.deleteIfExists(dir);
            }
        }
    };

    /** An AMD GPU code object (ELF, COv5), linked with the bundled ld.lld. */
    public static byte[] amdgpu(PtxModule ptx, String gfx) throws PtxException {
        return amdgpu(ptx, gfx, LLD);
    }

    /** The relocatable AMD GPU object of {@code ptx}, before linking. */
    public static byte[] amdgpuObject(PtxModule ptx, String gfx) throws PtxException {
        return amdgpuObject(ptx, gfx, CompileProfile.NONE);
    }

    static byte[] amdgpuObject(PtxModule ptx, String gfx, CompileProfile profile) throws PtxException {
        return compile(ptx, new AmdgpuTarget(gfx), LLVMObjectFile, false, profile).code();
    }

    /** An AMD GPU code object linked by {@code linker}. */
    public static byte[] amdgpu(PtxModule ptx, String gfx, CodeObjectLinker linker) throws PtxException {
        return amdgpu(ptx, gfx, linker, CompileProfile.NONE);
    }

    /** An AMD GPU code object linked by {@code linker}, each stage's time added to {@code profile}. */
    public static byte[] amdgpu(PtxModule ptx, String gfx, CodeObjectLinker linker, CompileProfile profile) throws PtxException {
        byte[] object = amdgpuObject(ptx, gfx, profile);
        try {
            long t0 = System.nanoTime();
            byte[] linked = linker.link(object, gfx);
            long wall = System.nanoTime() - t0;
            profile.add(CompileProfile.Stage.LINK, wall);
            profile.addCpu(wall);  // ld.lld is a process of its own, on one thread: its time is CPU time spent for this unit
            return linked;
        } catch (IOException e) {
            throw new PtxException(new Diagnostic(ptx.name(), 0, 0, "linking the " + gfx + " code object with " + linker.name() + ": "
                    + e.getMessage()));
        }
    }

    /** Code for a device target through the compile cache: {@code kind} and {@code target} name what {@code compile} makes. */
    public interface Compile {
        byte[] run() throws PtxException;
    }

    /** Whether the last {@link #cached} call compiled (false: it came from the cache); per thread. */
    private static final ThreadLocal<Boolean> COMPILED = ThreadLocal.withInitial(() -> false);

    public static boolean lastCompiled() {
        return COMPILED.get();
    }

    public static byte[] cached(org.zludaj.ptx.cache.CompileCache cache, String kind, String target, PtxModule ptx, Compile compile)
            throws PtxException {
        return cachedUnder(cache, org.zludaj.ptx.cache.CompileCache.unitKey(kind, target, ptx), target, ptx, compile);
    }

    /** {@link #cached} under {@code key}, the unit's {@code CompileCache.unitKey} computed by the caller (who needs it too). */
    public static byte[] cachedUnder(org.zludaj.ptx.cache.CompileCache cache, String key, String target, PtxModule ptx, Compile compile)
            throws PtxException {
        byte[] hit = cache == null ? null : cache.get(key);
        COMPILED.set(hit == null);
        if (hit != null) return hit;
        byte[] out = CompileProgress.run(CompileProgress.describe(ptx), target, compile::run);
        if (cache != null) cache.put(key, out);
        return out;
    }

    /** {@link #amdgpu} through the cache (what the hip backend loads). */
    public static byte[] amdgpuCached(org.zludaj.ptx.cache.CompileCache cache, PtxModule ptx, String gfx) throws PtxException {
        return amdgpuCached(cache, ptx, gfx, LLD);
    }

    /** {@link #amdgpu} with {@code linker} through the cache; the linker is part of the key. */
    public static byte[] amdgpuCached(org.zludaj.ptx.cache.CompileCache cache, PtxModule ptx, String gfx, CodeObjectLinker linker)
            throws PtxException {
        CodeObjectLinker chosen = linker.forTarget(gfx);
        return cached(cache, codeObjectKind(chosen, gfx), gfx, ptx, () -> amdgpu(ptx, gfx, chosen));
    }

    /** {@link #amdgpuCached(org.zludaj.ptx.cache.CompileCache, PtxModule, String, CodeObjectLinker)} under its key {@code key}. */
    public static byte[] amdgpuCached(org.zludaj.ptx.cache.CompileCache cache, PtxModule ptx, String gfx, CodeObjectLinker linker, String key)
            throws PtxException {
        CodeObjectLinker chosen = linker.forTarget(gfx);
        return cachedUnder(cache, key, gfx, ptx, () -> amdgpu(ptx, gfx, chosen));
    }

    /** The compile cache's kind of output for AMD code objects for {@code gfx} linked by {@code linker}. */
    public static String codeObjectKind(CodeObjectLinker linker, String gfx) {
        CodeObjectLinker chosen = linker.forTarget(gfx);
        return chosen == LLD ? "amdgpu-code-object" : "amdgpu-code-object+" + chosen.name();
    }

    /** {@link #nvptx} through the cache (what the cuda backend loads). */
    public static String nvptxCached(org.zludaj.ptx.cache.CompileCache cache, PtxModule ptx, int sm) throws PtxException {
        return new String(cached(cache, "nvptx", "sm_" + sm, ptx, () -> nvptx(ptx, sm).getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                java.nio.charset.StandardCharsets.UTF_8);
    }

    /** PTX text from LLVM's NVPTX back end, for NVIDIA GPUs of compute capability sm/10. */
    public static String nvptx(PtxModule ptx, int sm) throws PtxException {
        return nvptx(ptx, sm, CompileProfile.NONE);
    }

    /** {@link #nvptx}, each stage's time added to {@code profile}. */
    public static String nvptx(PtxModule ptx, int sm, CompileProfile profile) throws PtxException {
        return new String(compile(ptx, new NvptxTarget(sm), LLVMAssemblyFile, false, profile).code(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
