package org.zludaj.ptx;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.llvm.LLVM.LLVMContextRef;
import org.bytedeco.llvm.LLVM.LLVMErrorRef;
import org.bytedeco.llvm.LLVM.LLVMMemoryBufferRef;
import org.bytedeco.llvm.LLVM.LLVMModuleRef;
import org.bytedeco.llvm.LLVM.LLVMOrcDefinitionGeneratorRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMOrcLLJITRef;
import org.bytedeco.llvm.LLVM.LLVMOrcThreadSafeContextRef;
import org.bytedeco.llvm.LLVM.LLVMTargetMachineRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.llvm.Ll;
import org.zludaj.ptx.llvm.Lowering;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.target.HostTarget;

/**
 * The host target's code generator: PTX modules compiled to x86-64 object files and linked by ORC LLJIT into this
 * process. Objects go through the compile cache (keyed by the module's PTX text, the CPU and the compiler's build):
 * a module compiled once is never compiled again. Each loaded module's symbols get a unique prefix, so modules with
 * equal kernel names (and the same module loaded twice, with its own variables) coexist in the one JIT: objects are
 * compiled with a placeholder prefix of the same length, replaced in the object's bytes when it is linked.
 */
public final class HostJit {
    /** SLF4J's logger, made at its first use: starting logback costs 40-50 ms, which the driver's start need not pay. */
    private static final class Lazy {
        static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HostJit.class);
    }
    private final LLVMOrcLLJITRef jit = new LLVMOrcLLJITRef();
    private final HostTarget target;
    private final AtomicLong modules = new AtomicLong();
    private final org.zludaj.ptx.cache.CompileCache cache;
    /** PTX modules compiled (not taken from the cache) by this process. */
    private static final AtomicLong COMPILATIONS = new AtomicLong();
    /** The symbol prefix objects are compiled with; {@link #prefix} gives each load its own of the same length. */
    static final String PLACEHOLDER = "zmzzzzzzzzzzzzzzzz_";

    public HostJit() throws PtxException {
        this(List.of(), null);
    }

    /** Modules this process compiled (cache misses and uncached loads). */
    public static long compilations() {
        return COMPILATIONS.get();
    }

    /** A fresh symbol prefix: a module's units loaded with the same prefix share its variables. */
    public String newPrefix() {
        return String.format("zm%016x_", modules.incrementAndGet());
    }

    /** A JIT whose kernels may also call into {@code libraries} (the host runtime), caching objects in {@code cache} (or not: null). */
    public HostJit(List<String> libraries, org.zludaj.ptx.cache.CompileCache cache) throws PtxException {
        this.cache = cache;
        Ll.initialize();
        LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
        check(LLVMOrcCreateLLJIT(jit, builder), "creating the host JIT");
        // kernels may call the C library (libm for exp2f, sinf ...): resolve from this process
        LLVMOrcDefinitionGeneratorRef process = new LLVMOrcDefinitionGeneratorRef();
        check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(process, LLVMOrcLLJITGetGlobalPrefix(jit), null, null),
                "resolving process symbols");
        LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), process);
        // libm may be loaded only locally (as a dependency of libjvm): search it by name as well
        LLVMOrcDefinitionGeneratorRef libm = new LLVMOrcDefinitionGeneratorRef();
        check(LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(libm, new org.bytedeco.javacpp.BytePointer("libm.so.6"), LLVMOrcLLJITGetGlobalPrefix(jit), null, null),
                "loading libm");
        LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), libm);
        for (String lib : libraries) {
            LLVMOrcDefinitionGeneratorRef g = new LLVMOrcDefinitionGeneratorRef();
            check(LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(g, new org.bytedeco.javacpp.BytePointer(lib), LLVMOrcLLJITGetGlobalPrefix(jit), null, null),
                    "loading " + lib);
            LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), g);
        }
        target = HostTarget.native_();
    }

    private static void check(LLVMErrorRef e, String what) throws PtxException {
        if (e != null && !e.isNull()) throw new PtxException(new Diagnostic("-", 0, 0, what + ": " + Ll.message(LLVMGetErrorMessage(e))));
    }

    public HostTarget target() {
        return target;
    }

    /**
     * A compiled host kernel: its entry (with {@code fibers}: the per-thread kernel; else the block function running
     * every thread of a block), the static shared memory of its module, and the host stack its code needs at most
     * (its frame and those of every other function of its module, each once: recursion aside, no call chain needs more).
     */
    public record Kernel(long address, long staticShared, boolean fibers, long frameBytes) {}

    /** A module-scope {@code .global} or {@code .const} variable: its address in the process and its size. */
    public record Global(long address, long bytes) {}

    /** A compiled module: kernels and module-scope variables by PTX name. */
    public record Loaded(Map<String, Kernel> kernels, Map<String, Global> globals) {}

    /** Compiles every kernel of {@code ptx}; returns kernel name -> entry address. */
    public synchronized Map<String, Long> add(PtxModule ptx) throws PtxException {
        Map<String, Long> out = new HashMap<>();
        load(ptx).kernels().forEach((k, v) -> out.put(k, v.address()));
        return out;
    }

    /** Compiles every kernel of {@code ptx}. */
    public synchronized Map<String, Kernel> addKernels(PtxModule ptx) throws PtxException {
        return load(ptx).kernels();
    }

    /**
     * A module compiled for the host: the object (placeholder prefix), its static shared bytes, its fiber kernels, and
     * each kernel's host stack bytes (see {@link Kernel}).
     */
    record Unit(byte[] object, long staticShared, java.util.Set<String> fibers, Map<String, Long> frames) {
        byte[] encode() {
            var bytes = new java.io.ByteArrayOutputStream();
            try (var out = new java.io.DataOutputStream(bytes)) {
                out.writeLong(staticShared);
                out.writeInt(fibers.size());
                for (String f : fibers) out.writeUTF(f);
                out.writeInt(frames.size());
                for (var e : frames.entrySet()) {
                    out.writeUTF(e.getKey());
                    out.writeLong(e.getValue());
                }
                out.writeInt(object.length);
                out.write(object);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return bytes.toByteArray();
        }

        static Unit decode(byte[] b) {
            try (var in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(b))) {
                long shared = in.readLong();
                int n = in.readInt();
                java.util.Set<String> fibers = new java.util.HashSet<>();
                for (int i = 0; i < n; i++) fibers.add(in.readUTF());
                Map<String, Long> frames = new HashMap<>();
                for (int i = in.readInt(); i > 0; i--) frames.put(in.readUTF(), in.readLong());
                byte[] object = new byte[in.readInt()];
                in.readFully(object);
                return new Unit(object, shared, fibers, frames);
            } catch (java.io.IOException e) {
                return null;
            }
        }
    }

    /** Lowers, optimizes and generates the module's object file (with the placeholder prefix). */
    private Unit compile(PtxModule ptx) throws PtxException {
        return compile(ptx, CompileProfile.NONE);
    }

    private Unit compile(PtxModule ptx, CompileProfile profile) throws PtxException {
        return BigStack.call(() -> compileHere(ptx, profile));
    }

    private Unit compileHere(PtxModule ptx, CompileProfile profile) throws PtxException {
        Compiler.processOptions(Compiler.targetOptions(target));
        long cpu0 = profile.threadCpu();
        LLVMContextRef ctx = LLVMContextCreate();
        LlvmDiagnostics.install(ctx);
        LLVMTargetMachineRef tm = Compiler.targetMachine(target);
        try {
            Lowering.Lowered lowered = Lowering.lowerModule(ptx, target, ctx, LLVMOrcLLJITGetDataLayoutStr(jit).getString(), PLACEHOLDER, profile);
            LLVMModuleRef m = lowered.module();
            LLVMSetTarget(m, LLVMOrcLLJITGetTripleString(jit));
            // kernels without block or warp operations: one call per block, the threads a loop LLVM can vectorize
            for (Function f : ptx.functions()) {
                if (!f.entry() || !f.isDefined() || lowered.fiberKernels().contains(f.name())) continue;
                long[] sizes = f.params().stream().mapToLong(org.zludaj.ptx.model.Variable::size).toArray();
                LLVMValueRef k = LLVMGetNamedFunction(m, target.kernelSymbol(f.name(), PLACEHOLDER));
                target.addBlockFunction(m, k, target.kernelSymbol(f.name(), PLACEHOLDER) + "$block", sizes);
            }
            profile.time(CompileProfile.Stage.OPTIMIZE, () -> {
                Compiler.optimize(m, tm, target.middleEnd(), target.keepsLoops(), target.slpVectorization());
                return null;
            });
            // code generation reports every function's stack frame (LLVMDiagnostics): fiber stacks are sized by them
            for (LLVMValueRef f = LLVMGetFirstFunction(m); f != null && !f.isNull(); f = LLVMGetNextFunction(f))
                if (LLVMCountBasicBlocks(f) > 0) Ll.addStringAttribute(f, "warn-stack-size", "0");
            byte[] object = profile.time(CompileProfile.Stage.CODEGEN, () -> Compiler.emit(tm, m, LLVMObjectFile));
            LLVMDisposeModule(m);
            COMPILATIONS.incrementAndGet();
            return new Unit(object, lowered.staticShared(), java.util.Set.copyOf(lowered.fiberKernels()), kernelFrames(ptx, LlvmDiagnostics.takeFrames()));
        } finally {
            LLVMDisposeTargetMachine(tm);
            LLVMContextDispose(ctx);
            profile.addCpu(profile.threadCpu() - cpu0);
        }
    }

    /**
     * Host stack bytes per kernel: its own frame (the per-thread function, or the block function and the kernel it
     * runs) plus every function that is not a kernel's, each once.
     */
    private Map<String, Long> kernelFrames(PtxModule ptx, Map<String, Long> frames) {
        Map<String, Long> own = new HashMap<>();
        java.util.Set<String> kernelSymbols = new java.util.HashSet<>();
        for (Function f : ptx.functions()) {
            if (!f.entry() || !f.isDefined()) continue;
            String symbol = target.kernelSymbol(f.name(), PLACEHOLDER);
            kernelSymbols.add(symbol);
            kernelSymbols.add(symbol + "$block");
            own.put(f.name(), frames.getOrDefault(symbol, 0L) + frames.getOrDefault(symbol + "$block", 0L));
        }
        long callees = 0;
        for (var e : frames.entrySet()) if (!kernelSymbols.contains(e.getKey())) callees += e.getValue();
        Map<String, Long> out = new HashMap<>();
        for (var e : own.entrySet()) out.put(e.getKey(), e.getValue() + callees);
        return out;
    }

    /** The cache key of a module for this host: its PTX text, the CPU, the compiler's build. */
    private String key(PtxModule ptx) {
        return org.zludaj.ptx.cache.CompileCache.key("host-object", Compiler.BUILD_ID, target.triple(), target.cpu(),
                target.features() + (target.emulatedGpu() == null ? "" : ";matrix-lowering=" + target.emulatedGpu()),
                PtxPrinter.print(ptx));
    }

    /** Replaces every occurrence of the placeholder prefix in the object by {@code prefix} (same length). */
    static byte[] relabel(byte[] object, String prefix) {
        byte[] from = PLACEHOLDER.getBytes(java.nio.charset.StandardCharsets.US_ASCII), to = prefix.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        if (from.length != to.length) throw new IllegalArgumentException("prefix " + prefix + " is not " + from.length + " bytes");
        byte[] out = object.clone();
        outer:
        for (int i = 0; i + from.length <= out.length; i++) {
            for (int j = 0; j < from.length; j++) if (out[i + j] != from[j]) continue outer;
            System.arraycopy(to, 0, out, i, to.length);
            i += from.length - 1;
        }
        return out;
    }

    /** Compiles {@code ptx} (or takes it from the cache): its kernels, and the addresses of its defined .global and .const variables. */
    public Loaded load(PtxModule ptx) throws PtxException {
        return load(ptx, newPrefix());
    }

    /** zluda precompile: compiles {@code ptx} into the cache unless it is there; true when it compiled. */
    public boolean precompile(PtxModule ptx) throws PtxException {
        return precompile(ptx, CompileProfile.NONE);
    }

    /** {@link #precompile(PtxModule)}, each stage's time added to {@code profile}. */
    public boolean precompile(PtxModule ptx, CompileProfile profile) throws PtxException {
        if (cache == null) throw new IllegalStateException("precompiling needs a compile cache");
        String key = key(ptx);
        byte[] cached = cache.get(key);
        if (cached != null && Unit.decode(cached) != null) return false;
        cache.put(key, compile(ptx, profile).encode());
        return true;
    }

    /** Compiles {@code ptx} for this host without the cache (benchmarks), each stage's time added to {@code profile}. */
    public void compileOnly(PtxModule ptx, CompileProfile profile) throws PtxException {
        compile(ptx, profile);
    }

    /**
     * Compiles {@code ptx} (or takes it from the cache) and links it with symbol prefix {@code prefix}; units of one
     * module loaded with the same prefix share the module-scope variables one of them defines.
     */
    public Loaded load(PtxModule ptx, String prefix) throws PtxException {
        String key = cache == null ? null : key(ptx);
        byte[] cached = key == null ? null : cache.get(key);
        Unit unit = cached == null ? null : Unit.decode(cached);
        if (unit == null) {
            long t0 = System.nanoTime();
            unit = CompileProgress.run(CompileProgress.describe(ptx), "the host", () -> compile(ptx));
            if (cache != null) cache.put(key, unit.encode());
            Lazy.LOG.debug("compiled {} for the host in {} ms", ptx.name(), (System.nanoTime() - t0) / 1_000_000);
        } else {
            Lazy.LOG.debug("{} from the compile cache", ptx.name());
        }
        return link(ptx, unit, prefix);
    }

    private synchronized Loaded link(PtxModule ptx, Unit unit, String prefix) throws PtxException {
        byte[] object = relabel(unit.object(), prefix);
        org.bytedeco.javacpp.BytePointer bytes = new org.bytedeco.javacpp.BytePointer(object);
        LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(bytes, object.length, new org.bytedeco.javacpp.BytePointer(ptx.name()));
        check(LLVMOrcLLJITAddObjectFile(jit, LLVMOrcLLJITGetMainJITDylib(jit), buffer), "adding module " + ptx.name());
        long shared = unit.staticShared();
        java.util.Set<String> fibers = unit.fibers();
        Map<String, Kernel> out = new HashMap<>();
        for (Function f : ptx.functions()) {
            if (!f.entry() || !f.isDefined()) continue;
            LongPointer addr = new LongPointer(1);
            boolean perThread = fibers.contains(f.name());
            check(LLVMOrcLLJITLookup(jit, addr, target.kernelSymbol(f.name(), prefix) + (perThread ? "" : "$block")), "looking up " + f.name());
            out.put(f.name(), new Kernel(addr.get(), shared, fibers.contains(f.name()), unit.frames().getOrDefault(f.name(), 0L)));
        }
        Map<String, Global> globals = new HashMap<>();
        for (org.zludaj.ptx.model.Variable v : ptx.globals()) {
            boolean data = v.space() == org.zludaj.ptx.model.StateSpace.GLOBAL || v.space() == org.zludaj.ptx.model.StateSpace.CONST;
            if (!data || v.attributes().contains(".extern")) continue;
            LongPointer addr = new LongPointer(1);
            check(LLVMOrcLLJITLookup(jit, addr, target.kernelSymbol(v.name(), prefix)), "looking up " + v.name());
            globals.put(v.name(), new Global(addr.get(), v.size()));
        }
        if (target.bufferedPrintf() && ptx.functions().stream().anyMatch(f -> !f.isDefined()
                && (f.name().equals("vprintf") || f.name().equals("__assertfail")))) {
            LongPointer addr = new LongPointer(1);  // the AMD emulation's printf buffer pointer (llvm.DevicePrintf)
            check(LLVMOrcLLJITLookup(jit, addr, target.kernelSymbol(PRINTF_BUFFER, prefix)), "looking up " + PRINTF_BUFFER);
            globals.put(PRINTF_BUFFER, new Global(addr.get(), 8));
        }
        return new Loaded(out, globals);
    }

    /** The module variable that holds a buffered-printf target's buffer address (see llvm.DevicePrintf). */
    public static final String PRINTF_BUFFER = "__zluda_printf";
}
