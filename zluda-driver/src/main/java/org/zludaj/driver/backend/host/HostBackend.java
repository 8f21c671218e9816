package org.zludaj.driver.backend.host;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
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
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(HostBackend.class);
    /** Stack of each thread fiber (kernels with barriers or warp operations). */
    static final long FIBER_STACK = 64 * 1024;
    /** cuMemAlloc's alignment: CUDA promises at least 256 bytes, and applications (ggml) place tensors by it. */
    static final long ALIGNMENT = 256;

    /**
     * A fiber's stack: the base (host frames of the kernel, its callees and the runtime) plus twice what the kernel
     * asks for (its .local variables along its call tree, and the context's CU_LIMIT_STACK_SIZE for what the PTX
     * cannot show, such as recursion), rounded to pages.
     */
    static long fiberStack(long localBytes, long stackLimit, long hostFrameBytes) {
        long bytes = FIBER_STACK + Math.max(0, hostFrameBytes) + 2 * (Math.max(0, localBytes) + Math.max(0, stackLimit));
        return (bytes + 4095) / 4096 * 4096;
    }

    /** Bytes of .local variables of {@code f} and, at most once each, of every function it calls (an upper bound). */
    static long localBytes(PtxModule ptx, Function f) {
        long total = 0;
        java.util.Set<String> seen = new java.util.HashSet<>();
        java.util.ArrayDeque<Function> callees = new java.util.ArrayDeque<>(List.of(f));
        seen.add(f.name());
        while (!callees.isEmpty()) {
            Function g = callees.pop();
            if (g.body() == null) continue;
            java.util.ArrayDeque<org.zludaj.ptx.model.Statement> body = new java.util.ArrayDeque<>(g.body());
            while (!body.isEmpty()) {
                org.zludaj.ptx.model.Statement st = body.pop();
                if (st instanceof org.zludaj.ptx.model.Statement.Block b) {
                    body.addAll(b.statements());
                } else if (st instanceof org.zludaj.ptx.model.Statement.Declaration d) {
                    for (var v : d.variables())
                        if (v.space() == org.zludaj.ptx.model.StateSpace.LOCAL) total += v.size() * Math.max(1, v.rangeCount());
                } else if (st instanceof org.zludaj.ptx.model.Statement.Instruction i && i.opcode().equals("call")) {
                    for (var o : i.operands())
                        if (o instanceof org.zludaj.ptx.model.Operand.Name sym && seen.add(sym.name())) {
                            Function callee = ptx.function(sym.name());
                            if (callee != null) callees.push(callee);
                        }
                }
            }
        }
        return total;
    }
    private final Device device;
    private final ConcurrentSkipListMap<Long, Long> allocations = new ConcurrentSkipListMap<>();
    private HostJit jit;

    public HostBackend(int ccMajor, int ccMinor) {
        Device described = HostDevice.describe(ccMajor, ccMinor);
        // KERNEL_EXEC_TIMEOUT: whether kernels have a run-time limit, as on a GPU driving a display (ours: the block
        // time limit, which ends a kernel that computes forever)
        described.attributes()[17] = HostRuntime.blockTimeLimit() > 0 ? 1 : 0;
        this.device = described;
        this.visible = org.zludaj.driver.backend.VisibleDevices.of(System.getenv("CUDA_VISIBLE_DEVICES"), 1).isEmpty()
                ? List.of() : List.of(device);
    }

    @Override
    public String name() {
        return "host";
    }

    @Override
    public List<Device> devices() {
        return visible;
    }

    /** The host device, unless CUDA_VISIBLE_DEVICES hides it (it is device 0). */
    private final List<Device> visible;

    @Override
    public org.zludaj.driver.backend.Blas blas() throws CudaException {
        return OpenBlas.open();
    }

    @Override
    public long allocate(int dev, long bytes) throws CudaException {
        long p = HostRuntime.allocate(bytes, ALIGNMENT);
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

    /** 2 MiB, NVIDIA's granularity too: applications size their pools by it. */
    @Override
    public long granularity(int dev) {
        return 2L << 20;
    }

    private static CudaException vmError(String what, long errno) {
        int r = errno == 12 ? CuResult.CUDA_ERROR_OUT_OF_MEMORY : CuResult.CUDA_ERROR_INVALID_VALUE;
        return new CudaException(r, what + " failed (errno " + errno + ")");
    }

    @Override
    public long reserveAddress(long size, long alignment, long hint) throws CudaException {
        long p = HostRuntime.vaReserve(size, alignment, hint);
        if (p < 0) throw vmError("reserving " + size + " bytes of address space", -p);
        return p;
    }

    @Override
    public void freeAddress(long address, long size) throws CudaException {
        int r = HostRuntime.vaFree(address, size);
        if (r != 0) throw vmError("freeing address range", r);
    }

    @Override
    public long createPhysical(int dev, long size) throws CudaException {
        int fd = HostRuntime.physicalCreate(size);
        if (fd < 0) throw vmError("creating a physical allocation of " + size + " bytes", -fd);
        return fd;
    }

    @Override
    public void releasePhysical(long physical) {
        HostRuntime.physicalClose((int) physical);
    }

    @Override
    public void map(long address, long size, long physical, long offset) throws CudaException {
        int r = HostRuntime.vaMap(address, size, (int) physical, offset);
        if (r != 0) throw vmError("mapping", r);
    }

    @Override
    public void unmap(long address, long size) throws CudaException {
        int r = HostRuntime.vaUnmap(address, size);
        if (r != 0) throw vmError("unmapping", r);
    }

    @Override
    public void setAccess(long address, long size, int device, int flags) throws CudaException {
        int r = HostRuntime.vaProtect(address, size, flags);
        if (r != 0) throw vmError("setting access", r);
    }

    private synchronized HostJit jit() throws PtxException {
        if (jit == null) {
            String rt = new java.io.File(System.getProperty("zluda.native.dir", "."), HostRuntime.LIBRARY).getAbsolutePath();
            jit = new HostJit(List.of(rt), org.zludaj.ptx.cache.CompileCache.fromEnvironment());
        }
        return jit;
    }

    @Override
    public Program load(int dev, PtxModule ptx) throws CudaException {
        try {
            return load(ptx, jit().newPrefix());
        } catch (PtxException e) {
            throw failed(ptx, e);
        }
    }

    /** Units of a module link into the one JIT with the module's symbol prefix, so they share its variables. */
    @Override
    public boolean compilesOnDemand() {
        return true;
    }

    @Override
    public Program loadUnit(Program module, PtxModule unit) throws CudaException {
        return load(unit, ((HostProgram) module).prefix);
    }

    private static CudaException failed(PtxModule ptx, PtxException e) {
        LOG.error("cannot compile {} for the host:\n{}", ptx.name(), e.getMessage());
        boolean unsupported = e.diagnostics().stream().map(Diagnostic::message).anyMatch(m -> m.contains("not supported"));
        return new CudaException(unsupported ? CuResult.CUDA_ERROR_NOT_SUPPORTED : CuResult.CUDA_ERROR_INVALID_PTX, e.getMessage());
    }

    private HostProgram load(PtxModule ptx, String prefix) throws CudaException {
        HostProgram p;
        try {
            p = new HostProgram(ptx, jit().load(ptx, prefix), prefix);
        } catch (PtxException e) {
            throw failed(ptx, e);
        }
        HostJit.Global g = p.loaded().globals().get(HostJit.PRINTF_BUFFER);
        if (g != null) printfBuffer(g.address());
        return p;
    }

    /** Buffered device printf (the AMD emulation): the buffer of each module's pointer variable, by that variable. */
    private final Map<Long, Long> printfBuffers = new java.util.concurrent.ConcurrentHashMap<>();
    static final int PRINTF_BUFFER_BYTES = 1 << 20;

    private void printfBuffer(long variable) throws CudaException {
        if (printfBuffers.containsKey(variable)) return;  // units of one module share the variable
        long buffer = HostRuntime.allocate(PRINTF_BUFFER_BYTES, 64);
        if (buffer == 0) throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "device printf buffer");
        HostRuntime.fill8(buffer, 0, PRINTF_BUFFER_BYTES);
        HostRuntime.putInt(buffer + 4, PRINTF_BUFFER_BYTES);
        HostRuntime.putLong(variable, buffer);
        printfBuffers.put(variable, buffer);
    }

    /** Prints what kernels wrote to printf buffers; true when one of them recorded a failed assert. */
    private boolean drainPrintf() {
        boolean asserted = false;
        for (long buffer : printfBuffers.values()) asserted |= HostRuntime.printfDrain(buffer) >>> 32 != 0;
        return asserted;
    }

    /** A module (or a unit of one) linked into the JIT with its symbol prefix. */
    private record HostProgram(PtxModule ptx, HostJit.Loaded loaded, String prefix) implements Program {
        @Override
        public Kernel kernel(String name) {
            HostJit.Kernel k = loaded.kernels().get(name);
            if (k == null) return null;
            Function f = ptx.function(name);
            return new Program.Kernel(name, k.address(), f, k.staticShared(), k.fibers(), localBytes(ptx, f), k.frameBytes());
        }

        @Override
        public Global global(String name) {
            HostJit.Global g = loaded.globals().get(name);
            return g == null ? null : new Global(g.address(), g.bytes());
        }
    }

    @Override
    public void launch(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes)
            throws CudaException {
        long shared = (kernel.staticShared() + 15) / 16 * 16 + sharedBytes;
        int rc = HostRuntime.launch(kernel.entry(), kernelParams, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared,
                kernel.fibers() ? 1 : 0, fiberStack(kernel.localBytes(), stackBytes, kernel.hostFrameBytes()));
        if (!printfBuffers.isEmpty() && drainPrintf() && rc != 0) rc = -3;  // a buffered assert trapped: CUDA_ERROR_ASSERT
        check(kernel, rc);
    }

    /** Every block on a thread of its own (all resident), the grid workspace zeroed for each launch. */
    @Override
    public void launchCooperative(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes)
            throws CudaException {
        long shared = (kernel.staticShared() + 15) / 16 * 16 + sharedBytes;
        long workspace = HostRuntime.allocate(64, 64);
        if (workspace == 0) throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "grid workspace");
        try {
            HostRuntime.fill8(workspace, 0, 64);
            check(kernel, HostRuntime.launchCooperative(kernel.entry(), kernelParams, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                    shared, kernel.fibers() ? 1 : 0, fiberStack(kernel.localBytes(), stackBytes, kernel.hostFrameBytes()), workspace));
        } finally {
            HostRuntime.release(workspace);
        }
    }

    private static void check(Program.Kernel kernel, int rc) throws CudaException {
        if (rc == -2) throw new CudaException(CuResult.CUDA_ERROR_LAUNCH_FAILED, "kernel " + kernel.name()
                + " deadlocked: every thread of a block waits at a barrier or warp operation that others never reach");
        if (rc == -7) throw new CudaException(CuResult.CUDA_ERROR_LAUNCH_TIMEOUT, "kernel " + kernel.name()
                + " cannot end: the remaining threads of a block did nothing but wait in loops polling memory for "
                + "ZLUDA_KERNEL_TIMEOUT seconds (default 30)");
        if (rc == -8) throw new CudaException(CuResult.CUDA_ERROR_LAUNCH_TIMEOUT, "kernel " + kernel.name()
                + ": a block ran longer than ZLUDA_BLOCK_TIME_LIMIT allows (" + HostRuntime.blockTimeLimit()
                + " CPU seconds; 0: no limit), as a kernel that cannot end would");
        if (rc == -3) throw new CudaException(CuResult.CUDA_ERROR_ASSERT, "kernel " + kernel.name() + ": a device-side assert failed");
        if (rc == -5) throw new CudaException(CuResult.CUDA_ERROR_ILLEGAL_ADDRESS, "kernel " + kernel.name()
                + " accessed an address outside every allocation");
        if (rc == -6) throw new CudaException(CuResult.CUDA_ERROR_LAUNCH_FAILED, "kernel " + kernel.name() + ": arithmetic fault");
        if (rc == -4) throw new CudaException(CuResult.CUDA_ERROR_LAUNCH_FAILED, "kernel " + kernel.name() + " executed trap");  // NVIDIA (H200): 719
        if (rc != 0) throw new CudaException(CuResult.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "kernel " + kernel.name() + ": no memory for its threads");
    }

    @Override
    public void synchronize() {
        // launches and copies complete before they return in this slice
    }
}
