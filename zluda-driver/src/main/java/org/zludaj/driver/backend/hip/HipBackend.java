package org.zludaj.driver.backend.hip;

import java.util.List;
import org.zludaj.api.CuResult;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend;
import org.zludaj.driver.backend.Device;
import org.zludaj.driver.backend.host.HostDevice;
import org.zludaj.nativ.GpuVmm;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.cache.CompileCache;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;

/**
 * The hip backend: AMD GPUs through the HIP runtime, a thin adapter over the {@link Hip} table. Modules are our AMD
 * code objects for the GPU's gfx target (through the compile cache), loaded with hipModuleLoadData and launched with
 * hipModuleLaunchKernel (kernelParams as CUDA gives them: the code object's kernarg layout is the C layout of the
 * PTX parameters, HIP adds the hidden arguments). Modules compile whole (a HIP module cannot share variables with
 * another). Every GPU we can target is a CUDA device, in HIP's order; the others are skipped with a message.
 * Launches return once HIP has queued the kernel on its null stream, which orders them with copies and frees; the
 * driver waits ({@link #fence}) where the host must see the work done, and a kernel's fault is reported there, as
 * NVIDIA reports asynchronous errors. Modules that print wait for each kernel (their lines belong to the launch).
 * Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap, cuMemSetAccess) maps one to one onto
 * HIP's functions of the same names where the runtime has them and the GPU reports support.
 */
public final class HipBackend implements Backend {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(HipBackend.class);
    private static final int ATTRIBUTES = 148;

    private final Hip hip;
    private final List<Gpu> gpus;
    private final CompileCache cache;
    private final org.zludaj.ptx.Compiler.CodeObjectLinker linker;

    /** A GPU we target: HIP's index for it (after HIP applied HIP_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES), as CUDA sees it, its target. */
    record Gpu(int hipIndex, Device device, String gfx, long granularity) {}

    /** HIP's current device is per thread: the one this thread last selected, -1 before. */
    private final ThreadLocal<int[]> current = ThreadLocal.withInitial(() -> new int[] {-1});
    /** The HIP device of each loaded kernel (hipModuleLaunchKernel needs its device current). */
    private final java.util.concurrent.ConcurrentHashMap<Long, Integer> kernelDevice = new java.util.concurrent.ConcurrentHashMap<>();

    HipBackend(Hip hip, List<Gpu> gpus, CompileCache cache) {
        this.hip = hip;
        this.gpus = List.copyOf(gpus);
        this.cache = cache;
        this.linker = linker(System.getenv("ZLUDA_CODEOBJECT"));
    }

    /** Makes CUDA device {@code ordinal}'s GPU current on this thread. */
    private void select(int ordinal) throws CudaException {
        if (ordinal < 0 || ordinal >= gpus.size()) throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "device " + ordinal);
        selectHip(gpus.get(ordinal).hipIndex());
    }

    private void selectHip(int hipIndex) throws CudaException {
        int[] c = current.get();
        if (c[0] == hipIndex) return;
        check(hip.setDevice(hipIndex), "hipSetDevice");
        c[0] = hipIndex;
    }

    /**
     * The code-object linker ZLUDA_CODEOBJECT names: unset, empty or "auto": comgr for the GPUs it knows and the
     * bundled ld.lld for the others, or everywhere without comgr ({@link ComgrLinker#auto}); "lld": ld.lld; "comgr":
     * comgr for every GPU where it can be opened (else, said once, ld.lld).
     */
    public static org.zludaj.ptx.Compiler.CodeObjectLinker linker(String choice) {
        boolean auto = choice == null || choice.isEmpty() || choice.equals("auto");
        if (choice != null && choice.equals("lld")) return org.zludaj.ptx.Compiler.LLD;
        if (!auto && !choice.equals("comgr")) {
            LOG.warn("ZLUDA_CODEOBJECT={} is neither auto, lld nor comgr: linking with ld.lld", choice);
            return org.zludaj.ptx.Compiler.LLD;
        }
        try {
            ComgrLinker c = ComgrLinker.open();
            if (auto) {
                LOG.debug("linking AMD code objects with comgr ({}) for the GPUs it knows, else with ld.lld", c.library());
                return ComgrLinker.auto(c);
            }
            LOG.info("linking AMD code objects with comgr ({})", c.library());
            return c;
        } catch (java.io.IOException | UnsatisfiedLinkError e) {
            if (auto) LOG.debug("no comgr ({}): linking AMD code objects with ld.lld", e.getMessage());
            else LOG.warn("ZLUDA_CODEOBJECT=comgr, but comgr cannot be used ({}): linking with ld.lld", e.getMessage());
            return org.zludaj.ptx.Compiler.LLD;
        }
    }

    /** The compile target of the first GPU. */
    public String target() {
        return gpus.get(0).gfx();
    }

    /**
     * Opens HIP and takes every GPU that we can target, in HIP's order (HIP has applied HIP_VISIBLE_DEVICES or
     * CUDA_VISIBLE_DEVICES); the CudaException says why there is none (no runtime, no device, or only GPUs we cannot
     * target). The compute capability reported is the configured one. {@code cache}: null for the environment's
     * (made only once a GPU is found).
     */
    public static HipBackend open(Hip hip, int ccMajor, int ccMinor, CompileCache cache) throws CudaException {
        String why = hip.open();
        if (why != null) throw new CudaException(CuResult.CUDA_ERROR_NO_DEVICE, why);
        int[] count = new int[1];
        int r = hip.init(count);
        if (r != 0 || count[0] == 0)
            throw new CudaException(CuResult.CUDA_ERROR_NO_DEVICE, "HIP finds no GPU (hipInit/hipGetDeviceCount: " + r + ", " + count[0] + " devices)");
        List<Gpu> usable = new java.util.ArrayList<>();
        for (int d = 0; d < count[0]; d++) {
            String arch = hip.archName(d);
            String target = HipMappings.target(arch);
            if (target == null) {
                LOG.warn("HIP device {} ({}) skipped: {}", d, hip.name(d), HipMappings.whyNot(arch));
                continue;
            }
            check(hip.setDevice(d), "hipSetDevice");
            int[] a = new int[ATTRIBUTES];
            Device defaults = HostDevice.describe(ccMajor, ccMinor);
            int[] v = new int[1];
            for (int i = 1; i < ATTRIBUTES; i++) {
                a[i] = i == 18 ? 0 : defaults.attribute(i);  // a discrete GPU unless HIP says INTEGRATED
                int h = HipMappings.hipAttribute(i);
                if (h >= 0 && hip.attribute(d, h, v) == 0) a[i] = v[0];
            }
            a[75] = ccMajor;
            a[76] = ccMinor;
            // VIRTUAL_MEMORY_MANAGEMENT (HIP's attribute) only where the runtime has the functions and tells the
            // granularity; else 0, so applications (ggml's pool) use cuMemAlloc instead of failing on cuMemCreate
            long[] g = new long[1];
            long granularity = a[102] != 0 && hip.hasVirtualMemory() && hip.vmm(GpuVmm.GRANULARITY, d, 0, 0, 0, 0, g) == 0 ? g[0] : 0;
            if (granularity <= 0 || Long.bitCount(granularity) != 1) {
                granularity = 0;
                a[102] = 0;
            } else {
                a[102] = 1;
            }
            a[96] = 0;  // COOPERATIVE_MULTI_DEVICE_LAUNCH: not mapped
            if (!hip.hasCooperativeLaunch()) a[95] = 0;  // without hipModuleLaunchCooperativeKernel applications take their other path
            Device dev = new Device(hip.name(d), hip.totalMemory(d), new byte[16], a);
            LOG.info("hip backend: device {} = {} ({}), compiling for {}", usable.size(), dev.name(), arch, target);
            usable.add(new Gpu(d, dev, target, granularity));
        }
        if (usable.isEmpty()) throw new CudaException(CuResult.CUDA_ERROR_NO_DEVICE, "HIP finds no GPU that ZLUDA-J can target");
        HipBackend b = new HipBackend(hip, usable, cache != null ? cache : CompileCache.fromEnvironment());
        b.current.get()[0] = usable.get(usable.size() - 1).hipIndex();  // the last hipSetDevice above
        return b;
    }

    private static void check(int hipError, String what) throws CudaException {
        if (hipError != 0) throw new CudaException(HipMappings.cuResult(hipError), what + " failed (hipError_t " + hipError + ")");
    }

    /** Launches and cuBLAS calls are queued on the device stream and return at once. */
    @Override
    public boolean submitsAsynchronously() {
        return true;
    }

    @Override
    public String name() {
        return "hip";
    }

    @Override
    public List<Device> devices() {
        return gpus.stream().map(Gpu::device).toList();
    }

    private long alloc(int kind, long bytes, String what) throws CudaException {
        long[] out = new long[1];
        check(hip.alloc(kind, bytes, out), what);
        return out[0];
    }

    @Override public long allocate(int dev, long bytes) throws CudaException { select(dev); return alloc(0, bytes, "hipMalloc"); }
    @Override public long allocateHost(int dev, long bytes) throws CudaException { select(dev); return alloc(1, bytes, "hipHostMalloc"); }
    @Override public long allocateManaged(int dev, long bytes) throws CudaException { select(dev); return alloc(2, bytes, "hipMallocManaged"); }
    @Override public void free(long address) throws CudaException { check(hip.free(0, address), "hipFree"); }
    @Override public void freeHost(long address) throws CudaException { check(hip.free(1, address), "hipHostFree"); }

    private RocblasAdapter blas;
    /** The rocBLAS table: AMD's library, or a test's recording fake. */
    Rocblas rocblas = new NativeRocblas();

    /** AMD's rocBLAS, opened on first use (NOT_SUPPORTED where it is not installed). */
    @Override
    public synchronized org.zludaj.driver.backend.Blas blas() throws CudaException {
        if (blas == null) blas = RocblasAdapter.open(rocblas, hip);
        return blas;
    }

    @Override
    public void copy(long dst, long src, long bytes) throws CudaException {
        if (bytes != 0) check(hip.copy(dst, src, bytes), "hipMemcpy");
    }

    /** One hipMemcpy2D (any direction, peer included: HIP's unified addressing tells them apart). */
    @Override
    public void copy2D(long dst, long dpitch, long src, long spitch, long width, long height) throws CudaException {
        if (width != 0 && height != 0) check(hip.copy2D(dst, dpitch, src, spitch, width, height), "hipMemcpy2D");
    }

    @Override
    public void fill(long dst, int elementBytes, int value, long count) throws CudaException {
        if (count != 0) check(hip.fill(dst, elementBytes, value, count), "hipMemset");
    }

    /** hipMemcpyAsync on the queue's HIP stream (0: the null stream); pageable host memory HIP copies synchronously. */
    @Override
    public void copyAsync(long dst, long src, long bytes, long queue) throws CudaException {
        if (bytes != 0) check(hip.copyAsync(dst, src, bytes, queue), "hipMemcpyAsync");
    }

    @Override
    public void fillAsync(long dst, int elementBytes, int value, long count, long queue) throws CudaException {
        if (count != 0) check(hip.fillAsync(dst, elementBytes, value, count, queue), "hipMemsetAsync");
    }

    /** hipDeviceCanAccessPeer between the two GPUs (a GPU is not its own peer). */
    @Override
    public boolean canAccessPeer(int device, int peer) throws CudaException {
        if (device < 0 || device >= gpus.size() || peer < 0 || peer >= gpus.size())
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "device " + device + " or " + peer);
        if (device == peer) return false;
        int[] out = new int[1];
        int r = hip.peer(0, gpus.get(device).hipIndex(), gpus.get(peer).hipIndex(), out);
        return r == 0 && out[0] != 0;
    }

    /** hipDeviceEnablePeerAccess / hipDeviceDisablePeerAccess with {@code device} current. */
    @Override
    public void peerAccess(int device, int peer, boolean enable) throws CudaException {
        select(device);
        if (peer < 0 || peer >= gpus.size()) throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "device " + peer);
        check(hip.peer(enable ? 1 : 2, gpus.get(device).hipIndex(), gpus.get(peer).hipIndex(), new int[1]),
                enable ? "hipDeviceEnablePeerAccess" : "hipDeviceDisablePeerAccess");
    }

    /** One virtual memory operation on HIP device {@code hipIndex} (HIP's errors mapped to CUDA's). */
    private long vmm(int op, int hipIndex, long a, long b, long c, long d) throws CudaException {
        long[] out = new long[1];
        check(hip.vmm(op, hipIndex, a, b, c, d, out), "hipMem" + GpuVmm.name(op));
        return out[0];
    }

    private Gpu withVirtualMemory(int ordinal) throws CudaException {
        if (ordinal < 0 || ordinal >= gpus.size()) throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "device " + ordinal);
        Gpu g = gpus.get(ordinal);
        if (g.granularity() == 0) throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "virtual memory management on " + g.device().name() + " (HIP)");
        return g;
    }

    @Override
    public long granularity(int dev) {
        long g = dev >= 0 && dev < gpus.size() ? gpus.get(dev).granularity() : 0;
        return g == 0 ? Backend.super.granularity(dev) : g;
    }

    @Override
    public long reserveAddress(long size, long alignment, long hint) throws CudaException {
        return vmm(GpuVmm.RESERVE, withVirtualMemory(0).hipIndex(), size, alignment, hint, 0);
    }

    @Override
    public void freeAddress(long address, long size) throws CudaException {
        vmm(GpuVmm.ADDRESS_FREE, withVirtualMemory(0).hipIndex(), address, size, 0, 0);
    }

    @Override
    public long createPhysical(int dev, long size) throws CudaException {
        Gpu g = withVirtualMemory(dev);
        selectHip(g.hipIndex());
        return vmm(GpuVmm.CREATE, g.hipIndex(), size, 0, 0, 0);
    }

    @Override
    public void releasePhysical(long physical) throws CudaException {
        vmm(GpuVmm.RELEASE, withVirtualMemory(0).hipIndex(), physical, 0, 0, 0);
    }

    @Override
    public void map(long address, long size, long physical, long offset) throws CudaException {
        vmm(GpuVmm.MAP, withVirtualMemory(0).hipIndex(), address, size, offset, physical);
    }

    @Override
    public void unmap(long address, long size) throws CudaException {
        vmm(GpuVmm.UNMAP, withVirtualMemory(0).hipIndex(), address, size, 0, 0);
    }

    @Override
    public void setAccess(long address, long size, int dev, int flags) throws CudaException {
        vmm(GpuVmm.SET_ACCESS, withVirtualMemory(dev).hipIndex(), address, size, flags, 0);
    }

    @Override
    public Program load(int dev, PtxModule ptx) throws CudaException {
        select(dev);
        return loadCode(dev, ptx, codeObject(ptx, gpus.get(dev).gfx()));
    }

    /** Our code object of {@code ptx} for {@code gfx}, through the compile cache. */
    private byte[] codeObject(PtxModule ptx, String gfx) throws CudaException {
        return codeObject(ptx, gfx, org.zludaj.ptx.cache.CompileCache.unitKey(org.zludaj.ptx.Compiler.codeObjectKind(linker, gfx), gfx, ptx));
    }

    /** {@link #codeObject(PtxModule, String)} under its cache key {@code key}, known to the caller. */
    private byte[] codeObject(PtxModule ptx, String gfx, String key) throws CudaException {
        try {
            return org.zludaj.ptx.Compiler.amdgpuCached(cache, ptx, gfx, linker, key);
        } catch (PtxException e) {
            LOG.error("cannot compile {} for {}:\n{}", ptx.name(), gfx, e.getMessage());
            throw new CudaException(e.getMessage().contains("not supported") ? CuResult.CUDA_ERROR_NOT_SUPPORTED : CuResult.CUDA_ERROR_INVALID_PTX,
                    e.getMessage());
        }
    }

    /** The variables unit's code object from the compile cache by its text, parsed only where it is not there. */
    @Override
    public Program loadVariables(int dev, PtxModule declarations, String sourceDigest, Parse parse) throws CudaException {
        if (cache == null) return load(dev, parse.get());
        select(dev);
        String gfx = gpus.get(dev).gfx();
        String key = org.zludaj.ptx.cache.CompileCache.sourceKeyOfDigest(org.zludaj.ptx.Compiler.codeObjectKind(linker, gfx), gfx, sourceDigest);
        byte[] code = cache.get(key);
        if (code != null) return loadCode(dev, declarations, code);
        PtxModule variables = parse.get();
        code = codeObject(variables, gfx);
        cache.put(key, code);
        return loadCode(dev, variables, code);
    }

    /** Loads a code object of {@code ptx} on GPU {@code dev} (selected), with the device printf buffer it may use. */
    private Program loadCode(int dev, PtxModule ptx, byte[] code) throws CudaException {
        int hipIndex = gpus.get(dev).hipIndex();
        long[] out = new long[1];
        check(hip.moduleLoad(code, out), "hipModuleLoadData");
        long module = out[0];
        if (ptx.functions().stream().anyMatch(f -> !f.isDefined() && (f.name().equals("vprintf") || f.name().equals("__assertfail")))) {
            long[] g = new long[2];
            check(hip.global(module, PRINTF_VARIABLE, g), "hipModuleGetGlobal " + PRINTF_VARIABLE);
            synchronized (printfBuffer) {  // one buffer per GPU, shared by its modules
                Long buffer = printfBuffer.get(hipIndex);
                if (buffer == null) {
                    buffer = alloc(0, PRINTF_BUFFER_BYTES, "hipMalloc (device printf buffer)");
                    check(hip.printfInit(g[0], buffer, PRINTF_BUFFER_BYTES), "device printf buffer");
                    printfBuffer.put(hipIndex, buffer);
                    printfBuffers.add(buffer);
                    org.zludaj.nativ.ShimEpochs.contexts();  // launches now end with a fence: none repeated by the shim
                } else {
                    writeLong(g[0], buffer);
                }
            }
        }
        return new HipProgram(dev, module, ptx, hipIndex);
    }

    /**
     * Kernels compile one by one (a unit: the kernel and what it calls) beside their module's variables unit, which
     * {@link #load} loaded: the unit reaches each module variable through a slot (see the compiler's
     * Target.variablesThroughSlots) that gets the variable's address here, so every kernel of a module shares them.
     */
    @Override
    public boolean compilesOnDemand() {
        return true;
    }

    @Override
    public Program loadUnit(Program module, PtxModule unit) throws CudaException {
        HipProgram m = (HipProgram) module;
        return slotted(m, unit, (HipProgram) load(m.dev, unit));
    }

    /** A kernel unit by its text: its code object and interface from the cache (KernelUnits), parsed and compiled only where not there. */
    @Override
    public Program loadUnit(Program module, String kernel, String moduleDigest, Parse parse) throws CudaException {
        if (cache == null) return loadUnit(module, parse.get());
        HipProgram m = (HipProgram) module;
        select(m.dev);
        String gfx = gpus.get(m.dev).gfx(), kind = org.zludaj.ptx.Compiler.codeObjectKind(linker, gfx);
        String key = org.zludaj.driver.backend.KernelUnits.sourceKey(kind, gfx, kernel, moduleDigest);
        var found = org.zludaj.driver.backend.KernelUnits.find(cache, key, m.ptx.name(), kernel);
        if (found != null) return slotted(m, found.unit(), (HipProgram) loadCode(m.dev, found.unit(), found.code()));
        PtxModule unit = parse.get();
        String codeKey = org.zludaj.ptx.cache.CompileCache.unitKey(kind, gfx, unit);  // printed once: the code's key and the entry's
        HipProgram p = (HipProgram) loadCode(m.dev, unit, codeObject(unit, gfx, codeKey));
        org.zludaj.driver.backend.KernelUnits.put(cache, key, codeKey, unit, kernel);
        return slotted(m, unit, p);
    }

    /** {@code p}, kernel unit {@code unit} loaded, with its slots holding the addresses of {@code m}'s variables. */
    private Program slotted(HipProgram m, PtxModule unit, HipProgram p) throws CudaException {
        org.zludaj.driver.backend.VariableSlots.fill(unit, m, symbol -> {
            long[] slot = new long[2];
            return hip.global(p.module, symbol, slot) != 0 ? 0 : slot[0];
        }, this::writeLong);
        return p;
    }

    /** Writes a 64-bit value to device memory (two 32-bit fills: no host buffer needed; ordered on HIP's null stream). */
    private void writeLong(long dst, long value) throws CudaException {
        check(hip.fill(dst, 4, (int) value, 1), "hipMemsetD32");
        check(hip.fill(dst + 4, 4, (int) (value >>> 32), 1), "hipMemsetD32");
    }

    /** A loaded code object: a module's variables unit, a kernel unit, or a whole module. */
    private final class HipProgram implements Program {
        final int dev;
        final long module;
        final PtxModule ptx;
        final int hipIndex;

        HipProgram(int dev, long module, PtxModule ptx, int hipIndex) {
            this.dev = dev;
            this.module = module;
            this.ptx = ptx;
            this.hipIndex = hipIndex;
        }

        @Override
        public Kernel kernel(String name) {
            Function f = ptx.function(name);
            long[] fn = new long[1];
            if (f == null || !f.entry() || hip.function(module, name, fn) != 0) return null;
            kernelDevice.put(fn[0], hipIndex);
            kernelModule.put(fn[0], module);
            return new Kernel(name, fn[0], f, 0, false, 0);
        }

        @Override
        public Global global(String name) {
            long[] g = new long[2];
            return hip.global(module, name, g) != 0 ? null : new Global(g[0], g[1]);
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
        Integer device = kernelDevice.get(kernel.entry());
        if (device != null) selectHip(device);
        check(hip.launch(kernel.entry(), grid[0], grid[1], grid[2], block[0], block[1], block[2], (int) sharedBytes, kernelParams, queue),
                "hipModuleLaunchKernel " + kernel.name());
        if (!printfBuffers.isEmpty()) fence(queue, "kernel " + kernel.name());  // its lines and asserts belong to the launch
    }

    /**
     * hipModuleLaunchKernel's C call, for the launches the shim repeats, where a launch is nothing more: one GPU (so
     * the thread's HIP device is the kernel's) and no device printf (whose launches end with a fence).
     */
    @Override
    public long directLaunchFunction(Program.Kernel kernel) {
        return gpus.size() == 1 && printfBuffers.isEmpty() ? hip.directLaunchFunction() : 0;
    }

    /**
     * A graph's kernels as one native call per replay (Hip.launchSequence: hipModuleLaunchKernel for each, in order, in
     * C), with the sequence's own copy of each launch's arguments (the executable's may change or go); where a launch
     * is nothing more than that call: one GPU, no device printf, no cooperative launch. Null otherwise (node by node).
     */
    @Override
    public KernelSequence kernelSequence(List<SequencedLaunch> launches) throws CudaException {
        if (gpus.size() != 1 || !printfBuffers.isEmpty() || !hip.launchesSequences()) return null;
        return org.zludaj.driver.backend.LaunchRecords.recordable(launches) ? new HipSequence(hip, launches) : null;
    }

    @Override
    public long directCopyFunction() {
        return gpus.size() == 1 ? hip.directCopyFunction() : 0;
    }

    /** The module of each loaded kernel (a cooperative launch sets that module's workspace variable). */
    private final java.util.concurrent.ConcurrentHashMap<Long, Long> kernelModule = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A cooperative launch: a zeroed 64-byte grid workspace whose address the kernel's module holds in
     * {@code __zluda_envreg} (read as %envreg1:%envreg2, where cooperative groups keep their grid barrier), then
     * hipModuleLaunchCooperativeKernel, which refuses grids that cannot all be resident. It waits for the kernel, then
     * frees the workspace. One cooperative launch at a time (a module's launches share its variable).
     */
    @Override
    public void launchCooperative(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes)
            throws CudaException {
        Integer device = kernelDevice.get(kernel.entry());
        if (device != null) selectHip(device);
        Long module = kernelModule.get(kernel.entry());
        long[] g = new long[2];
        boolean reads = module != null && hip.global(module, org.zludaj.ptx.target.AmdgpuTarget.ENVREG, g) == 0;
        long workspace = 0;
        synchronized (kernelModule) {
            try {
                if (reads) {
                    workspace = alloc(0, 64, "hipMalloc (grid workspace)");
                    check(hip.fill(workspace, 1, 0, 64), "hipMemsetD8");
                    writeLong(g[0], workspace);
                }
                check(hip.launchCooperative(kernel.entry(), grid[0], grid[1], grid[2], block[0], block[1], block[2], (int) sharedBytes,
                        kernelParams), "hipModuleLaunchCooperativeKernel " + kernel.name());
                fence("cooperative kernel " + kernel.name());
            } finally {
                if (workspace != 0) free(workspace);
            }
        }
    }

    /**
     * A HIP stream of the device for one CUDA stream: the legacy stream is HIP's null stream of the device (0, which
     * HIP's blocking streams synchronize with, as CUDA's legacy stream), the others blocking HIP streams (HIP's
     * null-stream copies wait for their kernels).
     */
    @Override
    public long createQueue(int dev, boolean legacy) throws CudaException {
        if (legacy) return 0;
        select(dev);
        long[] out = new long[1];
        check(hip.streamCreate(out), "hipStreamCreate");
        queueDevice.put(out[0], gpus.get(dev).hipIndex());
        return out[0];
    }

    @Override
    public void destroyQueue(long queue) {
        if (queue == 0) return;  // the null stream
        Integer device = queueDevice.remove(queue);
        try {
            if (device != null) selectHip(device);
            int r = hip.streamDestroy(queue);
            if (r != 0) LOG.warn("hipStreamDestroy: hipError_t {}", r);
        } catch (CudaException e) {
            LOG.warn("hipStreamDestroy: {}", e.getMessage());
        }
    }

    /** The HIP device of each queue. */
    private final java.util.concurrent.ConcurrentHashMap<Long, Integer> queueDevice = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public void fence(long queue) throws CudaException {
        fence(queue, "hipStreamSynchronize");
    }

    private void fence(long queue, String what) throws CudaException {
        Integer device = queue == 0 ? null : queueDevice.get(queue);
        if (device == null) {
            fence(what);
            return;
        }
        selectHip(device);
        int r = hip.streamSynchronize(queue);
        drainPrintf(what);
        check(r, what);
    }

    private void drainPrintf(String what) throws CudaException {
        boolean asserted = false;
        for (long buffer : printfBuffers) asserted |= hip.printfDrain(buffer) > 0xffffffffL;
        if (asserted) throw new CudaException(CuResult.CUDA_ERROR_ASSERT, what + ": a device-side assert failed");
    }

    /** Waits for every GPU; prints what kernels printed; a recorded assert is CUDA_ERROR_ASSERT. */
    private void fence(String what) throws CudaException {
        int r = 0;
        for (Gpu g : gpus) {
            selectHip(g.hipIndex());
            int e = hip.synchronize();
            if (r == 0) r = e;
        }
        drainPrintf(what);
        check(r, what);
    }

    /**
     * Device printf and assert: a module that declares vprintf or __assertfail gets a device buffer whose address its
     * {@value #PRINTF_VARIABLE} holds (see the compiler's llvm.DevicePrintf); launches print its records when the kernel
     * is done, and a recorded assert makes the launch fail with CUDA_ERROR_ASSERT.
     */
    static final String PRINTF_VARIABLE = "__zluda_printf";
    static final int PRINTF_BUFFER_BYTES = 1 << 20;
    private final List<Long> printfBuffers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.Map<Integer, Long> printfBuffer = new java.util.HashMap<>();

    /** HIP's own occupancy of our code object's kernel (its VGPRs and SGPRs, LDS, waves per compute unit). */
    @Override
    public int activeBlocks(Program.Kernel kernel, int blockSize, long dynamicShared) {
        return hip.occupancy(kernel.entry(), blockSize, dynamicShared);
    }

    @Override
    public int compiledAttribute(Program.Kernel kernel, int attribute) {
        if (attribute != 0 && attribute != 4) return -1;
        int v = hip.functionAttribute(kernel.entry(), attribute);
        return v > 0 ? v : -1;
    }

    @Override
    public void synchronize() throws CudaException {
        fence("hipDeviceSynchronize");
    }
}
