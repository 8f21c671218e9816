package org.zludaj.driver.backend.hip;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zludaj.api.CuResult;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend;
import org.zludaj.driver.backend.Device;
import org.zludaj.driver.backend.host.HostDevice;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.cache.CompileCache;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;

/**
 * The hip backend: AMD GPUs through the HIP runtime, a thin adapter over the {@link Hip} table. Modules are our AMD
 * code objects for the GPU's gfx target (through the compile cache), loaded with hipModuleLoadData and launched with
 * hipModuleLaunchKernel (kernelParams as CUDA gives them: the code object's kernarg layout is the C layout of the
 * PTX parameters, HIP adds the hidden arguments). Modules compile whole (a HIP module cannot share variables with
 * another). The first usable GPU is used; GPUs whose architecture we cannot target are skipped with a message.
 * Launches return once HIP has queued the kernel on its null stream, which orders them with copies and frees; the
 * driver waits ({@link #fence}) where the host must see the work done, and a kernel's fault is reported there, as
 * NVIDIA reports asynchronous errors. Modules that print wait for each kernel (their lines belong to the launch).
 * Virtual memory management is not mapped yet.
 */
public final class HipBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(HipBackend.class);
    private static final int ATTRIBUTES = 148;

    private final Hip hip;
    private final Device device;
    private final String gfx;
    private final CompileCache cache;
    private final org.zludaj.ptx.Compiler.CodeObjectLinker linker;

    HipBackend(Hip hip, Device device, String gfx, CompileCache cache) {
        this.hip = hip;
        this.device = device;
        this.gfx = gfx;
        this.cache = cache;
        this.linker = linker(System.getenv("ZLUDA_CODEOBJECT"));
    }

    /**
     * ZLUDA_CODEOBJECT=comgr links code objects with AMD's comgr where it can be opened (else, said once, ld.lld);
     * unset or "lld": the bundled ld.lld.
     */
    static org.zludaj.ptx.Compiler.CodeObjectLinker linker(String choice) {
        if (choice == null || choice.isEmpty() || choice.equals("lld")) return org.zludaj.ptx.Compiler.LLD;
        if (!choice.equals("comgr")) {
            LOG.warn("ZLUDA_CODEOBJECT={} is neither lld nor comgr: linking with ld.lld", choice);
            return org.zludaj.ptx.Compiler.LLD;
        }
        try {
            ComgrLinker c = ComgrLinker.open();
            LOG.info("linking AMD code objects with comgr ({})", c.library());
            return c;
        } catch (java.io.IOException | UnsatisfiedLinkError e) {
            LOG.warn("ZLUDA_CODEOBJECT=comgr, but comgr cannot be used ({}): linking with ld.lld", e.getMessage());
            return org.zludaj.ptx.Compiler.LLD;
        }
    }

    public String target() {
        return gfx;
    }

    /**
     * Opens HIP and takes its first GPU that we can target; the CudaException says why there is none (no runtime,
     * no device, or only GPUs we cannot target). The compute capability reported is the configured one.
     */
    public static HipBackend open(Hip hip, int ccMajor, int ccMinor, CompileCache cache) throws CudaException {
        String why = hip.open();
        if (why != null) throw new CudaException(CuResult.CUDA_ERROR_NO_DEVICE, why);
        int[] count = new int[1];
        int r = hip.init(count);
        if (r != 0 || count[0] == 0)
            throw new CudaException(CuResult.CUDA_ERROR_NO_DEVICE, "HIP finds no GPU (hipInit/hipGetDeviceCount: " + r + ", " + count[0] + " devices)");
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
            Device dev = new Device(hip.name(d), hip.totalMemory(d), new byte[16], a);
            LOG.info("hip backend: {} ({}), compiling for {}", dev.name(), arch, target);
            return new HipBackend(hip, dev, target, cache);
        }
        throw new CudaException(CuResult.CUDA_ERROR_NO_DEVICE, "HIP finds no GPU that ZLUDA-J can target");
    }

    private static void check(int hipError, String what) throws CudaException {
        if (hipError != 0) throw new CudaException(HipMappings.cuResult(hipError), what + " failed (hipError_t " + hipError + ")");
    }

    @Override
    public String name() {
        return "hip";
    }

    @Override
    public List<Device> devices() {
        return List.of(device);
    }

    private long alloc(int kind, long bytes, String what) throws CudaException {
        long[] out = new long[1];
        check(hip.alloc(kind, bytes, out), what);
        return out[0];
    }

    @Override public long allocate(int dev, long bytes) throws CudaException { return alloc(0, bytes, "hipMalloc"); }
    @Override public long allocateHost(int dev, long bytes) throws CudaException { return alloc(1, bytes, "hipHostMalloc"); }
    @Override public long allocateManaged(int dev, long bytes) throws CudaException { return alloc(2, bytes, "hipMallocManaged"); }
    @Override public void free(long address) throws CudaException { check(hip.free(0, address), "hipFree"); }
    @Override public void freeHost(long address) throws CudaException { check(hip.free(1, address), "hipHostFree"); }

    @Override
    public void copy(long dst, long src, long bytes) throws CudaException {
        if (bytes != 0) check(hip.copy(dst, src, bytes), "hipMemcpy");
    }

    @Override
    public void fill(long dst, int elementBytes, int value, long count) throws CudaException {
        if (count != 0) check(hip.fill(dst, elementBytes, value, count), "hipMemset");
    }

    @Override
    public Program load(int dev, PtxModule ptx) throws CudaException {
        byte[] code;
        try {
            code = org.zludaj.ptx.Compiler.amdgpuCached(cache, ptx, gfx, linker);
        } catch (PtxException e) {
            LOG.error("cannot compile {} for {}:\n{}", ptx.name(), gfx, e.getMessage());
            throw new CudaException(e.getMessage().contains("not supported") ? CuResult.CUDA_ERROR_NOT_SUPPORTED : CuResult.CUDA_ERROR_INVALID_PTX,
                    e.getMessage());
        }
        long[] out = new long[1];
        check(hip.moduleLoad(code, out), "hipModuleLoadData");
        long module = out[0];
        if (ptx.functions().stream().anyMatch(f -> !f.isDefined() && (f.name().equals("vprintf") || f.name().equals("__assertfail")))) {
            long[] g = new long[2];
            check(hip.global(module, PRINTF_VARIABLE, g), "hipModuleGetGlobal " + PRINTF_VARIABLE);
            long buffer = alloc(0, PRINTF_BUFFER_BYTES, "hipMalloc (device printf buffer)");
            check(hip.printfInit(g[0], buffer, PRINTF_BUFFER_BYTES), "device printf buffer");
            printfBuffers.add(buffer);
        }
        return new Program() {
            @Override
            public Kernel kernel(String name) {
                Function f = ptx.function(name);
                long[] fn = new long[1];
                if (f == null || !f.entry() || hip.function(module, name, fn) != 0) return null;
                return new Kernel(name, fn[0], f, 0, false, 0);
            }

            @Override
            public Global global(String name) {
                long[] g = new long[2];
                return hip.global(module, name, g) != 0 ? null : new Global(g[0], g[1]);
            }
        };
    }

    @Override
    public void launch(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes)
            throws CudaException {
        check(hip.launch(kernel.entry(), grid[0], grid[1], grid[2], block[0], block[1], block[2], (int) sharedBytes, kernelParams),
                "hipModuleLaunchKernel " + kernel.name());
        if (!printfBuffers.isEmpty()) fence("kernel " + kernel.name());  // its lines and asserts belong to the launch
    }

    /** Waits for the device; prints what kernels printed; a recorded assert is CUDA_ERROR_ASSERT. */
    private void fence(String what) throws CudaException {
        int r = hip.synchronize();
        boolean asserted = false;
        for (long buffer : printfBuffers) asserted |= hip.printfDrain(buffer) > 0xffffffffL;
        if (asserted) throw new CudaException(CuResult.CUDA_ERROR_ASSERT, what + ": a device-side assert failed");
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

    @Override
    public void synchronize() throws CudaException {
        fence("hipDeviceSynchronize");
    }
}
