package org.zludaj.driver.backend.host;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zludaj.api.CuResult;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend;
import org.zludaj.driver.backend.Device;
import org.zludaj.nativ.HostRuntime;
import org.zludaj.ptx.Diagnostic;
import org.zludaj.ptx.HostJit;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;

/**
 * The CPU as a CUDA device: kernels compiled by LLVM's ORC JIT for this machine and run by zluda-native's host
 * runtime (blocks over a worker pool, threads of a block in turn). Device memory is host memory, 64-byte aligned.
 * This first slice has no barriers or warp operations: kernels using them fail to load with
 * CUDA_ERROR_NOT_SUPPORTED and the reason.
 */
public final class HostBackend implements Backend {
    private static final Logger LOG = LoggerFactory.getLogger(HostBackend.class);
    /** Stack of each thread fiber (kernels with barriers or warp operations). */
    static final long FIBER_STACK = 64 * 1024;
    private final Device device;
    private final ConcurrentSkipListMap<Long, Long> allocations = new ConcurrentSkipListMap<>();
    private HostJit jit;

    public HostBackend(int ccMajor, int ccMinor) {
        this.device = HostDevice.describe(ccMajor, ccMinor);
    }

    @Override
    public String name() {
        return "host";
    }

    @Override
    public List<Device> devices() {
        return List.of(device);
    }

    @Override
    public long allocate(int dev, long bytes) throws CudaException {
        long p = HostRuntime.allocate(bytes, 64);
        if (p == 0) throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "cannot allocate " + bytes + " bytes");
        allocations.put(p, bytes);
        return p;
    }

    @Override
    public void free(long address) throws CudaException {
        if (allocations.remove(address) == null)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "0x" + Long.toHexString(address) + " is not an allocation");
        HostRuntime.release(address);
    }

    /** The allocation containing {@code address}: (base, size), or null. */
    public Map.Entry<Long, Long> allocationOf(long address) {
        Map.Entry<Long, Long> e = allocations.floorEntry(address);
        return e != null && address < e.getKey() + Math.max(1, e.getValue()) ? e : null;
    }

    @Override
    public void copy(long dst, long src, long bytes) throws CudaException {
        if (bytes == 0) return;
        if (dst == 0 || src == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "copy with a NULL address");
        HostRuntime.copy(dst, src, bytes);
    }

    @Override
    public void fill(long dst, int elementBytes, int value, long count) throws CudaException {
        if (count == 0) return;
        if (dst == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "memset of a NULL address");
        switch (elementBytes) {
            case 1 -> HostRuntime.fill8(dst, value, count);
            case 2 -> HostRuntime.fill16(dst, value, count);
            case 4 -> HostRuntime.fill32(dst, value, count);
            default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "memset element of " + elementBytes + " bytes");
        }
    }

    private synchronized HostJit jit() throws PtxException {
        if (jit == null) {
            String rt = new java.io.File(System.getProperty("zluda.native.dir", "."), HostRuntime.LIBRARY).getAbsolutePath();
            jit = new HostJit(List.of(rt));
        }
        return jit;
    }

    @Override
    public Program load(int dev, PtxModule ptx) throws CudaException {
        HostJit.Loaded loaded;
        try {
            loaded = jit().load(ptx);
        } catch (PtxException e) {
            LOG.error("cannot compile {} for the host:\n{}", ptx.name(), e.getMessage());
            boolean unsupported = e.diagnostics().stream().map(Diagnostic::message).anyMatch(m -> m.contains("not supported"));
            throw new CudaException(unsupported ? CuResult.CUDA_ERROR_NOT_SUPPORTED : CuResult.CUDA_ERROR_INVALID_PTX, e.getMessage());
        }
        return new Program() {
            @Override
            public Kernel kernel(String name) {
                HostJit.Kernel k = loaded.kernels().get(name);
                return k == null ? null : new Program.Kernel(name, k.address(), ptx.function(name), k.staticShared(), k.fibers());
            }

            @Override
            public Global global(String name) {
                HostJit.Global g = loaded.globals().get(name);
                return g == null ? null : new Global(g.address(), g.bytes());
            }
        };
    }

    @Override
    public void launch(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams) throws CudaException {
        long shared = (kernel.staticShared() + 15) / 16 * 16 + sharedBytes;
        int rc = HostRuntime.launch(kernel.entry(), kernelParams, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
                kernel.fibers() ? 1 : 0, FIBER_STACK);
        if (rc == -2) throw new CudaException(CuResult.CUDA_ERROR_LAUNCH_FAILED, "kernel " + kernel.name()
                + " deadlocked: every thread of a block waits at a barrier or warp operation that others never reach");
        if (rc == -3) throw new CudaException(CuResult.CUDA_ERROR_ASSERT, "kernel " + kernel.name() + ": a device-side assert failed");
        if (rc != 0) throw new CudaException(CuResult.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "kernel " + kernel.name() + ": no memory for its threads");
    }

    @Override
    public void synchronize() {
        // launches and copies complete before they return in this slice
    }
}
