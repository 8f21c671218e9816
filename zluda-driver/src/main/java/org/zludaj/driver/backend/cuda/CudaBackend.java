package org.zludaj.driver.backend.cuda;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.zludaj.api.CuResult;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend;
import org.zludaj.driver.backend.KernelUnits;
import org.zludaj.driver.backend.Device;
import org.zludaj.nativ.GpuVmm;
import org.zludaj.nativ.NvidiaDriver;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.cache.CompileCache;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;

/**
 * The cuda backend (NVIDIA loopback): our compiler's NVPTX output run on an NVIDIA GPU through NVIDIA's own driver,
 * loaded privately (rt/nvidia.c). Nothing of the application's PTX reaches NVIDIA: every module is compiled by
 * ZLUDA-J for the device's sm (through the compile cache; with a warm cache LLVM is never loaded) and loaded from our
 * PTX. Modules compile whole (a CUmodule cannot share variables with another). Launches wait for their kernel, so a
 * fault is the launch's error. Virtual memory management (cuMemCreate, cuMemMap ...) is NVIDIA's, forwarded.
 */
public final class CudaBackend implements Backend {
    static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(CudaBackend.class);
    private static final int ATTRIBUTES = 148;

    private final Device device;
    private final int sm;
    /** NVIDIA's minimum granularity for cuMemCreate/cuMemMap; 0 where its driver has no virtual memory management. */
    private final long granularity;
    private final CompileCache cache = CompileCache.fromEnvironment();

    private CudaBackend(Device device, int sm, long granularity) {
        this.device = device;
        this.sm = sm;
        this.granularity = granularity;
    }

    /** NVIDIA's driver: ZLUDA_NVIDIA_LIB, else the usual places, never ZLUDA-J's own folder. */
    static Path findLibrary(Path ours) {
        String explicit = System.getenv("ZLUDA_NVIDIA_LIB");
        if (explicit != null && !explicit.isBlank()) return Path.of(explicit);
        for (String dir : List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
                "/usr/lib/wsl/lib", "/usr/lib")) {
            Path p = Path.of(dir, "libcuda.so.1");
            if (Files.exists(p) && (ours == null || !p.toAbsolutePath().getParent().equals(ours))) return p;
        }
        return null;
    }

    /** Opens NVIDIA's driver and its first device; a CudaException says why it cannot. */
    public static CudaBackend open() throws CudaException {
        String nativeDir = System.getProperty("zluda.native.dir");
        Path lib = findLibrary(nativeDir == null ? null : Path.of(nativeDir).toAbsolutePath());
        if (lib == null) throw new CudaException(CuResult.CUDA_ERROR_NO_DEVICE, "NVIDIA's libcuda.so.1 not found (set ZLUDA_NVIDIA_LIB)");
        byte[] msg = new byte[512];
        long t0 = System.nanoTime();
        if (NvidiaDriver.open(lib.toString(), msg) != 0)
            throw new CudaException(CuResult.CUDA_ERROR_NO_DEVICE, "cannot open " + lib + ": " + new String(msg, StandardCharsets.UTF_8).trim());
        long t1 = System.nanoTime();
        int[] count = new int[1];
        // the shim started NVIDIA's cuInit on a thread of its own when the application's first call came: wait for it
        // to end, then call cuInit (a call made while the first runs returns 10-15 ms after it ends, on an H200)
        int r = NvidiaDriver.init(count, Long.getLong("zluda.nvidia.preinit", 0L));
        long t2 = System.nanoTime();
        if (r != 0 || count[0] == 0) throw new CudaException(CuResult.CUDA_ERROR_NO_DEVICE, "NVIDIA's driver: cuInit " + r + ", " + count[0] + " devices");
        r = NvidiaDriver.retainPrimary(0);
        if (r != 0) throw new CudaException(r, "NVIDIA's driver: cannot retain the primary context (" + r + ")");
        int[] a = new int[ATTRIBUTES];
        for (int i = 1; i < ATTRIBUTES; i++) a[i] = NvidiaDriver.attribute(0, i);
        long[] g = new long[1];
        long granularity = a[102] != 0 && NvidiaDriver.vmm(GpuVmm.GRANULARITY, 0, 0, 0, 0, 0, g) == 0 ? g[0] : 0;
        if (granularity == 0) a[102] = 0;  // VIRTUAL_MEMORY_MANAGEMENT only where the calls forward
        Device d = new Device(NvidiaDriver.name(0) + " (ZLUDA-J cuda backend)", NvidiaDriver.totalMemory(0),
                new byte[16], a);
        long t3 = System.nanoTime();
        if (org.zludaj.driver.Bootstrap.TRACE)  // no printf: a first one costs milliseconds of the start it measures
            System.err.println(new StringBuilder("ZLUDA-J start: cuda backend: NVIDIA's driver opened ").append(org.zludaj.driver.Bootstrap.ms(t1 - t0))
                    .append(" ms, cuInit ").append(org.zludaj.driver.Bootstrap.ms(t2 - t1)).append(" ms, device queried ")
                    .append(org.zludaj.driver.Bootstrap.ms(t3 - t2)).append(" ms"));
        LOG.info("cuda backend: {} from {}, sm_{}{}", d.name(), lib, a[75], a[76]);
        LOG.debug("cuda backend opened: NVIDIA's driver loaded in {} ms, cuInit {} ms, device queried in {} ms", (t1 - t0) / 1_000_000,
                (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000);
        return new CudaBackend(d, a[75] * 10 + a[76], granularity);
    }

    private NvidiaCublas blas;

    /** NVIDIA's cuBLAS, opened on first use beside NVIDIA's driver (NOT_SUPPORTED where it is not installed). */
    @Override
    public synchronized org.zludaj.driver.backend.Blas blas() throws CudaException {
        if (blas == null) blas = NvidiaCublas.open(this);
        return blas;
    }

    private static void check(int r, String what) throws CudaException {
        if (r != 0) throw new CudaException(r, what + " failed on NVIDIA's driver (" + r + ")");
    }

    /** Launches and cuBLAS calls are queued on the device stream and return at once. */
    @Override
    public boolean submitsAsynchronously() {
        return true;
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public List<Device> devices() {
        return List.of(device);
    }

    /** NVIDIA's allocation of {@code kind} (0 device, 1 pinned host, 2 managed) through the private driver. */
    private static long alloc(int kind, long bytes, String call) throws CudaException {
        long[] out = new long[1];
        check(NvidiaDriver.alloc(kind, bytes, out), call);
        return out[0];
    }

    @Override
    public long allocate(int dev, long bytes) throws CudaException {
        return alloc(0, bytes, "cuMemAlloc");
    }

    @Override
    public long allocateHost(int dev, long bytes) throws CudaException {
        return alloc(1, bytes, "cuMemHostAlloc");
    }

    @Override
    public void freeHost(long address) throws CudaException {
        check(NvidiaDriver.free(1, address), "cuMemFreeHost");
    }

    @Override
    public long allocateManaged(int dev, long bytes) throws CudaException {
        return alloc(2, bytes, "cuMemAllocManaged");
    }

    @Override
    public void free(long address) throws CudaException {
        check(NvidiaDriver.free(0, address), "cuMemFree");
    }

    @Override
    public void copy(long dst, long src, long bytes) throws CudaException {
        if (bytes == 0) return;
        check(NvidiaDriver.copy(dst, src, bytes), "cuMemcpy");
    }

    @Override
    public void fill(long dst, int elementBytes, int value, long count) throws CudaException {
        if (count == 0) return;
        check(NvidiaDriver.fill(dst, elementBytes, value, count), "cuMemset");
    }

    /** cuMemcpyAsync on the queue's NVIDIA stream (pageable host memory: NVIDIA's driver returns once done with it). */
    @Override
    public void copyAsync(long dst, long src, long bytes, long queue) throws CudaException {
        if (bytes == 0) return;
        check(NvidiaDriver.copyAsync(dst, src, bytes, queue), "cuMemcpyAsync");
    }

    @Override
    public void fillAsync(long dst, int elementBytes, int value, long count, long queue) throws CudaException {
        if (count == 0) return;
        check(NvidiaDriver.fillAsync(dst, elementBytes, value, count, queue), "cuMemsetAsync");
    }

    /** One virtual memory operation on NVIDIA's driver (its errors are CUresults already). */
    private long vmm(int op, long a, long b, long c, long d) throws CudaException {
        if (granularity == 0) throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "NVIDIA's driver has no virtual memory management");
        long[] out = new long[1];
        check(NvidiaDriver.vmm(op, 0, a, b, c, d, out), "cuMem" + GpuVmm.name(op));
        return out[0];
    }

    @Override
    public long granularity(int dev) {
        return granularity == 0 ? Backend.super.granularity(dev) : granularity;
    }

    @Override
    public long reserveAddress(long size, long alignment, long hint) throws CudaException {
        return vmm(GpuVmm.RESERVE, size, alignment, hint, 0);
    }

    @Override
    public void freeAddress(long address, long size) throws CudaException {
        vmm(GpuVmm.ADDRESS_FREE, address, size, 0, 0);
    }

    @Override
    public long createPhysical(int dev, long size) throws CudaException {
        return vmm(GpuVmm.CREATE, size, 0, 0, 0);
    }

    @Override
    public void releasePhysical(long physical) throws CudaException {
        vmm(GpuVmm.RELEASE, physical, 0, 0, 0);
    }

    @Override
    public void map(long address, long size, long physical, long offset) throws CudaException {
        vmm(GpuVmm.MAP, address, size, offset, physical);
    }

    @Override
    public void unmap(long address, long size) throws CudaException {
        vmm(GpuVmm.UNMAP, address, size, 0, 0);
    }

    @Override
    public void setAccess(long address, long size, int dev, int flags) throws CudaException {
        vmm(GpuVmm.SET_ACCESS, address, size, flags, 0);
    }

    /** Our NVPTX for the device's sm, from the cache when it is there (then LLVM is not needed at all). */
    String nvptx(PtxModule ptx) throws CudaException {
        return nvptx(ptx, CompileCache.unitKey("nvptx", "sm_" + sm, ptx));
    }

    /** {@link #nvptx(PtxModule)} under its cache key {@code key}, known to the caller. */
    private String nvptx(PtxModule ptx, String key) throws CudaException {
        long t0 = System.nanoTime();
        byte[] hit = cache == null ? null : cache.get(key);
        if (hit != null) {
            if (LOG.isDebugEnabled()) LOG.debug("{} from the compile cache in {} us", ptx.name(), (System.nanoTime() - t0) / 1000);
            return new String(hit, StandardCharsets.UTF_8);
        }
        try {
            String out = org.zludaj.ptx.CompileProgress.run(org.zludaj.ptx.CompileProgress.describe(ptx), "sm_" + sm,
                    () -> org.zludaj.ptx.Compiler.nvptx(ptx, sm));
            if (cache != null) cache.put(key, out.getBytes(StandardCharsets.UTF_8));
            LOG.debug("compiled {} for sm_{} in {} ms", ptx.name(), sm, (System.nanoTime() - t0) / 1_000_000);
            return out;
        } catch (PtxException e) {
            LOG.error("cannot compile {} for sm_{}:\n{}", ptx.name(), sm, e.getMessage());
            boolean unsupported = e.getMessage().contains("not supported");
            throw new CudaException(unsupported ? CuResult.CUDA_ERROR_NOT_SUPPORTED : CuResult.CUDA_ERROR_INVALID_PTX, e.getMessage());
        } catch (NoClassDefFoundError | UnsatisfiedLinkError e) {
            String kernels = ptx.functions().stream().filter(org.zludaj.ptx.model.Function::entry).map(org.zludaj.ptx.model.Function::name)
                    .collect(java.util.stream.Collectors.joining(", "));
            String why = (kernels.isEmpty() ? "the variables" : "kernel " + kernels) + " of " + ptx.name()
                    + " is not in the compile cache and LLVM is not available here (" + e + ")";
            LOG.error("cannot compile for sm_{}: {}", sm, why);
            throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, why);
        }
    }

    /**
     * ZLUDA_NVIDIA_JIT (a diagnostic, cuda backend only): kernels whose names this regular expression finds are
     * compiled by NVIDIA's JIT from their own PTX (as our parser read it) instead of by our compiler, so that a wrong
     * result can be narrowed down to the kernels whose compilation by us causes it. Such a kernel reads NVIDIA's copy
     * of the module's variables, not the one cuModuleGetGlobal gives the application.
     */
    private static final java.util.regex.Pattern NVIDIA_JIT = nvidiaJitPattern(System.getenv("ZLUDA_NVIDIA_JIT"));

    static java.util.regex.Pattern nvidiaJitPattern(String regex) {
        if (regex == null || regex.isEmpty()) return null;
        try {
            return java.util.regex.Pattern.compile(regex);
        } catch (java.util.regex.PatternSyntaxException e) {
            LOG.warn("ZLUDA_NVIDIA_JIT is not a regular expression, ignored: {}", e.getMessage());
            return null;
        }
    }

    /** The kernels of {@code ptx} that ZLUDA_NVIDIA_JIT names (none without it). */
    static List<String> nvidiaJitKernels(java.util.regex.Pattern pattern, PtxModule ptx) {
        if (pattern == null) return List.of();
        return ptx.functions().stream().filter(f -> f.entry() && f.isDefined() && pattern.matcher(f.name()).find())
                .map(Function::name).toList();
    }

    /** A kernel unit with the definitions of the module's variables in place of their declarations. */
    static PtxModule withVariables(PtxModule unit, PtxModule variables) {
        java.util.Map<String, org.zludaj.ptx.model.Variable> defined = new java.util.HashMap<>();
        for (var v : variables.globals())
            if (!v.attributes().contains(".extern")) defined.put(v.name(), v);
        List<org.zludaj.ptx.model.Variable> globals = unit.globals().stream()
                .map(v -> v.attributes().contains(".extern") ? defined.getOrDefault(v.name(), v) : v).toList();
        return new PtxModule(unit.name(), unit.version(), unit.targets(), unit.addressSize(), globals, unit.functions());
    }

    /** PTX for NVIDIA's driver: ours, or the module's own where ZLUDA_NVIDIA_JIT names one of its kernels. */
    private String text(PtxModule ptx) throws CudaException {
        List<String> passed = nvidiaJitKernels(NVIDIA_JIT, ptx);
        if (passed.isEmpty()) return nvptx(ptx);
        LOG.info("ZLUDA_NVIDIA_JIT: NVIDIA's JIT compiles {} of {} from its PTX", passed, ptx.name());
        return org.zludaj.ptx.PtxPrinter.print(ptx);
    }

    @Override
    public Program load(int dev, PtxModule ptx) throws CudaException {
        return load(ptx, ptx);
    }

    /**
     * The variables unit's NVPTX from the compile cache by its text, parsed and compiled (or found by its model) only
     * where it is not there (see Backend.loadVariables); ZLUDA_NVIDIA_JIT's kernels need the parsed variables.
     */
    @Override
    public Program loadVariables(int dev, PtxModule declarations, String sourceDigest, Parse parse) throws CudaException {
        if (cache == null || NVIDIA_JIT != null) return load(dev, parse.get());
        String key = CompileCache.sourceKeyOfDigest("nvptx", "sm_" + sm, sourceDigest);
        byte[] hit = cache.get(key);
        if (hit != null) return loadText(declarations, new String(hit, StandardCharsets.UTF_8));
        PtxModule variables = parse.get();
        String out = nvptx(variables);
        cache.put(key, out.getBytes(StandardCharsets.UTF_8));
        return loadText(variables, out);
    }

    private Program load(PtxModule ptx, PtxModule compiled) throws CudaException {
        return loadText(ptx, text(compiled));
    }

    /** Loads our NVPTX (or PTX for NVIDIA's JIT) of {@code ptx} into NVIDIA's driver. */
    private Program loadText(PtxModule ptx, String code) throws CudaException {
        byte[] text = (code + "\0").getBytes(StandardCharsets.UTF_8);
        long[] out = new long[1];
        byte[] log = new byte[8192];
        long t0 = System.nanoTime();
        int r = NvidiaDriver.moduleLoad(text, out, log);
        if (LOG.isDebugEnabled()) LOG.debug("{}: NVIDIA's driver loaded {} bytes of PTX in {} us", ptx.name(), text.length, (System.nanoTime() - t0) / 1000);
        if (r != 0) {
            String msg = new String(log, StandardCharsets.UTF_8).trim();
            LOG.error("NVIDIA's driver refused our PTX for {} ({}): {}", ptx.name(), r, msg);
            throw new CudaException(r, "NVIDIA's JIT: " + msg);
        }
        long module = out[0];
        return new CudaProgram(module, ptx);
    }

    /**
     * Kernels compile one by one beside their module's variables unit (loaded by {@link #load}); each unit reaches the
     * module's variables through slots that get their addresses here (the compiler's Target.variablesThroughSlots),
     * so every kernel of a module shares them, as with NVIDIA's own module.
     */
    @Override
    public boolean compilesOnDemand() {
        return true;
    }

    @Override
    public Program loadUnit(Program module, PtxModule unit) throws CudaException {
        boolean nvidiaJit = !nvidiaJitKernels(NVIDIA_JIT, unit).isEmpty();
        return slotted(module, unit, (CudaProgram) load(unit, nvidiaJit ? withVariables(unit, ((CudaProgram) module).ptx()) : unit));
    }

    /** A kernel unit by its text: its NVPTX and interface from the cache (KernelUnits), parsed and compiled only where not there. */
    @Override
    public Program loadUnit(Program module, String kernel, String moduleDigest, Parse parse) throws CudaException {
        if (cache == null || NVIDIA_JIT != null) return loadUnit(module, parse.get());
        String key = KernelUnits.sourceKey("nvptx", "sm_" + sm, kernel, moduleDigest);
        KernelUnits.Found found = KernelUnits.find(cache, key, ((CudaProgram) module).ptx().name(), kernel);
        if (found != null) return slotted(module, found.unit(), (CudaProgram) loadText(found.unit(), new String(found.code(), StandardCharsets.UTF_8)));
        PtxModule unit = parse.get();
        String codeKey = CompileCache.unitKey("nvptx", "sm_" + sm, unit);  // printed once: the code's key and the entry's
        CudaProgram p = (CudaProgram) loadText(unit, nvptx(unit, codeKey));
        KernelUnits.put(cache, key, codeKey, unit, kernel);
        return slotted(module, unit, p);
    }

    /** {@code p}, kernel unit {@code unit} loaded, with its slots holding the addresses of {@code module}'s variables. */
    private Program slotted(Program module, PtxModule unit, CudaProgram p) throws CudaException {
        org.zludaj.driver.backend.VariableSlots.fill(unit, module, symbol -> {
            long[] slot = new long[2];
            return NvidiaDriver.global(p.module, org.zludaj.ptx.target.NvptxNames.of(symbol), slot) != 0 ? 0 : slot[0];
        }, (address, value) -> {  // two 32-bit fills: no host buffer needed
            check(NvidiaDriver.fill(address, 4, (int) value, 1), "cuMemsetD32");
            check(NvidiaDriver.fill(address + 4, 4, (int) (value >>> 32), 1), "cuMemsetD32");
        });
        return p;
    }

    /** NVIDIA's stream capture on the backend's private non-blocking stream (relaxed mode, as ggml captures). */
    @Override
    public long beginCapture() throws CudaException {
        long[] out = new long[1];
        int r = NvidiaDriver.captureBegin(out);
        if (r != 0) {
            LOG.debug("cuStreamBeginCapture on NVIDIA's driver: {}", r);
            return 0;
        }
        return out[0];
    }

    /** The captured NVIDIA graph, instantiated: a replay is one cuGraphLaunch; an update makes it again. */
    @Override
    public KernelSequence endCapture(long queue) throws CudaException {
        long[] out = new long[2];
        int r = NvidiaDriver.captureEnd(queue, out);
        if (r != 0) {
            LOG.debug("cuStreamEndCapture or cuGraphInstantiate on NVIDIA's driver: {}", r);
            return null;
        }
        long exec = out[0], graph = out[1];
        return new KernelSequence() {
            @Override
            public void launch(long q) throws CudaException {
                int e = NvidiaDriver.graphLaunch(exec, q);
                if (e != 0) throw faulted(e, "a captured graph of kernels and cuBLAS calls (cuGraphLaunch)");
            }

            @Override
            public void close() {
                NvidiaDriver.graphDestroy(exec, graph);
            }
        };
    }

    /** NVIDIA's own occupancy of our compiled kernel: it knows the registers ptxas gave it. */
    @Override
    public int activeBlocks(Program.Kernel kernel, int blockSize, long dynamicShared) {
        if (stale(kernel)) return -1;  // the driver's own model answers
        return NvidiaDriver.occupancy(kernel.entry(), blockSize, dynamicShared);
    }

    @Override
    public int compiledAttribute(Program.Kernel kernel, int attribute) {
        if ((attribute != 0 && attribute != 4) || stale(kernel)) return -1;
        int v = NvidiaDriver.functionAttribute(kernel.entry(), attribute);
        return v > 0 ? v : -1;
    }

    /** A loaded CUmodule of our PTX: a module's variables unit, a kernel unit, or a whole module. */
    private record CudaProgram(long module, PtxModule ptx) implements Program {
        @Override
        public Kernel kernel(String name) {
            Function f = ptx.function(name);
            long[] fn = new long[1];
            if (f == null || !f.entry() || NvidiaDriver.function(module, org.zludaj.ptx.target.NvptxNames.of(name), fn) != 0) return null;
            LOADED_IN.put(fn[0], RESETS.get());
            int staticShared = NvidiaDriver.functionAttribute(fn[0], 1);  // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
            return new Kernel(name, fn[0], f, staticShared, false, NvidiaDriver.functionAttribute(fn[0], 3));
        }

        @Override
        public Global global(String name) {
            long[] g = new long[2];
            return NvidiaDriver.global(module, org.zludaj.ptx.target.NvptxNames.of(name), g) != 0 ? null : new Global(g[0], g[1]);
        }
    }

    @Override
    public void launch(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes)
            throws CudaException {
        launch(kernel, grid, block, sharedBytes, kernelParams, stackBytes, 0);
    }

    @Override
    public void launch(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes,
                       long queue) throws CudaException {
        loadedInThisContext(kernel);
        int r = NvidiaDriver.launch(kernel.entry(), grid[0], grid[1], grid[2], block[0], block[1], block[2], (int) sharedBytes, kernelParams,
                queue);
        if (r != 0) throw faulted(r, "kernel " + kernel.name());
    }

    /** {@link #launch}'s own C function, for a kernel of NVIDIA's current context. */
    @Override
    public long directLaunchFunction(Program.Kernel kernel) {
        return stale(kernel) ? 0 : NvidiaDriver.directLaunchFunction();
    }

    /** {@link #copyAsync}'s own C function (cuMemcpyAsync in NVIDIA's current context). */
    @Override
    public long directCopyFunction() {
        return NvidiaDriver.directCopyFunction();
    }

    /**
     * An executable NVIDIA graph of the launches, chained in their order (NVIDIA copies their arguments); updated in
     * place node by node (cuGraphExecKernelNodeSetParams) where an update changes launches but not their kernels. A
     * graph of {@link CudaSequence#IN_BACKGROUND} plain launches or more is built in the background ({@link CudaSequence}).
     */
    @Override
    public KernelSequence kernelSequence(List<SequencedLaunch> launches) throws CudaException {
        for (SequencedLaunch l : launches) loadedInThisContext(l.kernel());
        if (launches.size() >= CudaSequence.IN_BACKGROUND && org.zludaj.driver.backend.LaunchRecords.recordable(launches)) {
            return new CudaSequence(launches);  // built in the background while its replays launch the kernels
        }
        long[] nodes = new long[10 * launches.size()];
        int i = 0;
        for (SequencedLaunch l : launches) i = put(nodes, i, l, l.cooperative() ? 1 : 0);
        long[] out = new long[2 + launches.size()];
        int r = NvidiaDriver.graphBuild(nodes, out);
        if (r == CuResult.CUDA_ERROR_NOT_SUPPORTED) return null;
        if (r != 0) throw faulted(r, "a graph of " + launches.size() + " kernels (cuGraphInstantiate)");
        NvidiaGraph g = new NvidiaGraph(out, launches.size());
        return new KernelSequence() {
            @Override
            public void launch(long queue) throws CudaException {
                g.launch(queue);
            }

            @Override
            public boolean update(int[] positions, List<SequencedLaunch> changed) {
                for (int j = 0; j < positions.length; j++) {
                    SequencedLaunch was = launches.get(positions[j]), now = changed.get(j);
                    if (now.kernel() != was.kernel() || now.cooperative() != was.cooperative()) return false;
                }
                return g.setParams(positions, changed);
            }

            @Override
            public void close() {
                g.destroy();
            }
        };
    }

    /** A launch as graphBuild and graphSetParams take it, at {@code i} of {@code values}; the index after it. */
    static int put(long[] values, int i, SequencedLaunch l, long last) {
        values[i++] = l.kernel().entry();
        for (int v : l.grid()) values[i++] = v;
        for (int v : l.block()) values[i++] = v;
        values[i++] = l.sharedBytes();
        values[i++] = l.kernelParams();
        values[i++] = last;
        return i;
    }

    /** A blocking NVIDIA stream for one CUDA stream of the application (kernels of different streams may overlap). */
    @Override
    public long createQueue(int dev, boolean legacy) throws CudaException {
        if (legacy) return CU_STREAM_LEGACY;
        long[] out = new long[1];
        check(NvidiaDriver.streamCreate(out), "cuStreamCreate");
        return out[0];
    }

    /**
     * NVIDIA's handle of its legacy default stream: the legacy stream's kernels and copies go there, so NVIDIA's driver
     * keeps CUDA's implicit synchronization with the blocking streams (handle 0 would be the per-thread stream in a
     * program compiled for it; this one is the legacy stream always).
     */
    static final long CU_STREAM_LEGACY = 1;

    @Override
    public void destroyQueue(long queue) {
        if (queue == CU_STREAM_LEGACY) return;
        int r = NvidiaDriver.streamDestroy(queue);
        if (r != 0) LOG.warn("cuStreamDestroy on NVIDIA's driver: {}", r);
    }

    @Override
    public void fence(long queue) throws CudaException {
        if (queue == 0) {
            synchronize();
            return;
        }
        int r = NvidiaDriver.streamSynchronize(queue);
        if (r != 0) throw faulted(r, "a kernel (cuStreamSynchronize)");
    }

    /** How many times a fault made the backend reset NVIDIA's context. */
    private static final java.util.concurrent.atomic.AtomicInteger RESETS = new java.util.concurrent.atomic.AtomicInteger();
    /** NVIDIA's CUfunction of each kernel loaded, and the reset count when it was: a later reset destroyed it. */
    private static final java.util.concurrent.ConcurrentHashMap<Long, Integer> LOADED_IN = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A kernel loaded in NVIDIA's context before the backend reset it (a fault) is refused, as NVIDIA's driver refuses
     * work after a fault (709): its function belongs to the destroyed context, and NVIDIA's cuLaunchKernel crashed on
     * one (a module of the reset context; a cuLibrary's kernel, which outlives contexts, would be the same).
     */
    private static void loadedInThisContext(Program.Kernel kernel) throws CudaException {
        if (stale(kernel))
            throw new CudaException(CuResult.CUDA_ERROR_CONTEXT_IS_DESTROYED,
                    "kernel " + kernel.name() + " was loaded in NVIDIA's context before a fault reset it");
    }

    private static boolean stale(Program.Kernel kernel) {
        int resets = RESETS.get();
        if (resets == 0) return false;  // no fault yet: a launch pays no lookup
        Integer at = LOADED_IN.get(kernel.entry());
        return at != null && at != resets;
    }

    /** A fault leaves NVIDIA's context unusable: it is reset, as an application recreating its context expects. */
    static CudaException faulted(int r, String what) {
        if (r == 700 || r == 702 || (r >= 710 && r <= 719)) {
            CudaSequence.drain();  // no graph built under the context as it is reset
            int reset = NvidiaDriver.reset();
            RESETS.incrementAndGet();
            org.zludaj.nativ.ShimEpochs.contexts();  // the shim's repeated launches hold functions of the old context
            LOG.warn("{} faulted on NVIDIA's driver ({}); its context was reset ({})", what, r, reset);
        }
        return new CudaException(r, what + " on NVIDIA's driver: " + r);
    }

    @Override
    public void launchCooperative(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes)
            throws CudaException {
        launchCooperative(kernel, grid, block, sharedBytes, kernelParams, stackBytes, 0);
    }

    @Override
    public void launchCooperative(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes,
                                  long queue) throws CudaException {
        loadedInThisContext(kernel);
        int r = NvidiaDriver.launchCooperative(kernel.entry(), grid[0], grid[1], grid[2], block[0], block[1], block[2], (int) sharedBytes,
                kernelParams, queue);
        if (r != 0) throw faulted(r, "cooperative kernel " + kernel.name());
    }

    @Override
    public boolean queuesCooperative() {
        return true;
    }

    @Override
    public void synchronize() throws CudaException {
        int r = NvidiaDriver.synchronize();
        if (r != 0) throw faulted(r, "a kernel (cuCtxSynchronize)");
    }
}
