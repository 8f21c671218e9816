package org.zludaj.driver.backend;

import java.util.List;
import org.zludaj.driver.CudaException;
import org.zludaj.ptx.model.PtxModule;

/**
 * What the driver needs from an execution platform. Three implementations: host (the CPU), hip (AMD GPUs) and
 * cuda (NVIDIA loopback). Everything CUDA-specific (handles, contexts, fatbins, argument checks) stays above it.
 */
public interface Backend {
    String name();

    List<Device> devices();

    /** Device memory of {@code bytes} on {@code device}; the address is what kernels and copies use. */
    long allocate(int device, long bytes) throws CudaException;

    void free(long address) throws CudaException;

    /** Page-locked host memory the device can use (cuMemHostAlloc); device memory is host memory on the host backend. */
    default long allocateHost(int device, long bytes) throws CudaException {
        return allocate(device, bytes);
    }

    default void freeHost(long address) throws CudaException {
        free(address);
    }

    /** Memory reachable from host and device (cuMemAllocManaged), freed with {@link #free}. */
    default long allocateManaged(int device, long bytes) throws CudaException {
        return allocate(device, bytes);
    }

    /**
     * Whether launches and library calls only hand work to a device queue and return (GPU backends): the driver then
     * submits them from the calling thread when their stream has nothing pending. The host backend runs kernels on
     * its stream threads.
     */
    default boolean submitsAsynchronously() {
        return false;
    }

    /**
     * A C function that submits a launch of {@code kernel} to a device queue as {@link #launch} would, which the shim
     * may call itself for the next launches of the kernel on the same stream (shim/launch.c): {@code CUresult
     * (void *entry, int gx, int gy, int gz, int bx, int by, int bz, int shared, void **kernelParams, void *queue)}, with
     * the kernel's {@code entry()} and the stream's queue; 0 where launches must go through {@link #launch}.
     */
    default long directLaunchFunction(Program.Kernel kernel) {
        return 0;
    }

    /**
     * A C function that queues a copy as {@link #copyAsync} would, {@code CUresult (uint64_t dst, uint64_t src, size_t
     * bytes, void *queue)}, which the shim may call itself for the next device-to-device copies on the same stream
     * (shim/copy.c); 0 where copies must go through {@link #copyAsync}.
     */
    default long directCopyFunction() {
        return 0;
    }

    /**
     * Whether kernels can be compiled one by one beside their module's variables ({@link #loadUnit}); GPU modules
     * (a CUmodule, a hipModule) cannot share variables with another, so GPU backends compile modules whole.
     */
    default boolean compilesOnDemand() {
        return false;
    }

    /** Copies between any two addresses the backend understands (host or device). */
    void copy(long dst, long src, long bytes) throws CudaException;

    /**
     * Copies {@code height} rows of {@code width} bytes, rows {@code dpitch}/{@code spitch} bytes apart (cuMemcpy2D and
     * the slices of cuMemcpy3D); by default row by row, or at once when both sides are contiguous.
     */
    default void copy2D(long dst, long dpitch, long src, long spitch, long width, long height) throws CudaException {
        if (dpitch == width && spitch == width) copy(dst, src, width * height);
        else for (long y = 0; y < height; y++) copy(dst + y * dpitch, src + y * spitch, width);
    }

    /** Sets {@code count} elements of {@code elementBytes} (1, 2 or 4) to {@code value}. */
    void fill(long dst, int elementBytes, int value, long count) throws CudaException;

    /**
     * A copy queued on device queue {@code queue} ({@link #createQueue}; 0 the device's default queue) behind the
     * queue's earlier work, where the backend {@link #submitsAsynchronously}: it returns once the copy is queued, or,
     * with pageable host memory, once the device runtime is done with that memory (as NVIDIA's and HIP's asynchronous
     * copies do: a copy from it returns when the data is staged, one to it when the data is there). By default a
     * synchronous {@link #copy}.
     */
    default void copyAsync(long dst, long src, long bytes, long queue) throws CudaException {
        copy(dst, src, bytes);
    }

    /** {@link #fill} queued on device queue {@code queue}, as {@link #copyAsync}; by default a synchronous fill. */
    default void fillAsync(long dst, int elementBytes, int value, long count, long queue) throws CudaException {
        fill(dst, elementBytes, value, count);
    }

    /** Compiles and loads a module's kernels for {@code device}. */
    Program load(int device, PtxModule ptx) throws CudaException;

    /** A unit's model, parsed when asked for. */
    interface Parse {
        PtxModule get() throws CudaException;
    }

    /**
     * Loads a module's variables unit ({@link #loadUnit}'s {@code module}) known by its text: {@code sourceDigest}, the
     * {@code CompileCache.textDigest} of the module's directives and variables with their initializers, whose model
     * {@code parse} gives; {@code declarations}
     * is the model without initializers (what the driver itself reads). GPU backends look the compiled unit up in the
     * compile cache by the text ({@code CompileCache.sourceKey}) and parse it only when it is not there: ggml's
     * modules each carry 96 KB of lookup tables, a cold JVM's parse of which cost every module load 100-300 ms. By
     * default {@link #load} of the parsed text.
     */
    default Program loadVariables(int device, PtxModule declarations, String sourceDigest, Parse parse) throws CudaException {
        return load(device, parse.get());
    }

    /**
     * Compiles a unit of a module on its own (one kernel and the functions it reaches, with the module's variables
     * declared only) beside {@code module}, the program {@link #load} made of the module's variables, which the unit
     * uses: every unit of a module shares one set of module-scope variables. Only backends that
     * {@link #compilesOnDemand} have it.
     */
    default Program loadUnit(Program module, PtxModule unit) throws CudaException {
        throw new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_NOT_SUPPORTED, "the " + name() + " backend compiles modules whole");
    }

    /**
     * {@link #loadUnit(Program, PtxModule)} of kernel {@code kernel}'s unit known by its module's text: {@code
     * moduleDigest}, that text's {@code CompileCache.textDigest}; {@code parse} gives the unit's model. GPU backends look
     * the compiled unit up in the compile cache by the two ({@link KernelUnits}) and parse it only when it is not
     * there. By default the parsed unit.
     */
    default Program loadUnit(Program module, String kernel, String moduleDigest, Parse parse) throws CudaException {
        return loadUnit(module, parse.get());
    }

    /**
     * Runs a kernel; {@code kernelParams} is CUDA's array of pointers to the argument values; {@code stackBytes} is
     * the context's per-thread stack limit (CU_LIMIT_STACK_SIZE).
     */
    void launch(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes)
            throws CudaException;

    /**
     * {@link #launch} on device queue {@code queue} ({@link #createQueue}; 0 the device's default queue). GPU
     * backends queue kernels of different CUDA streams on different device streams, so they can run concurrently;
     * the driver's streams keep CUDA's ordering between them.
     */
    default void launch(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes,
                        long queue) throws CudaException {
        launch(kernel, grid, block, sharedBytes, kernelParams, stackBytes);
    }

    /**
     * A device queue for one CUDA stream on {@code device}: GPU backends give the {@code legacy} default stream the
     * device runtime's own legacy (null) stream, and make a blocking stream of the device runtime for every other, so
     * that the device keeps CUDA's implicit synchronization between the legacy stream's work and the other streams'
     * kernels (a legacy-stream kernel waits for the kernels queued before it in blocking streams, and they for it).
     * Non-blocking CUDA streams get blocking device streams too: the synchronous copies and sets that stream
     * operations make on the legacy stream (graph memcpy and memset nodes, 2D copies) rely on waiting for them, at
     * the cost of waiting where CUDA would not. 0 when the backend has none (the host runs kernels to completion).
     */
    default long createQueue(int device, boolean legacy) throws CudaException {
        return 0;
    }

    default void destroyQueue(long queue) {}

    /** {@link #fence} for the work of one queue only; queue 0: the whole device. */
    default void fence(long queue) throws CudaException {
        fence();
    }

    /**
     * Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap, cuMemSetAccess): the granularity of
     * physical allocations and mappings, in bytes (a power of two). Backends without it keep these defaults, which
     * refuse with CUDA_ERROR_NOT_SUPPORTED.
     */
    default long granularity(int device) {
        return 2L << 20;
    }

    private CudaException noVirtualMemory() {
        return new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_NOT_SUPPORTED, "virtual memory management on the " + name() + " backend");
    }

    /** Reserves {@code size} bytes of device address space aligned to {@code alignment}, at {@code hint} if free. */
    default long reserveAddress(long size, long alignment, long hint) throws CudaException {
        throw noVirtualMemory();
    }

    default void freeAddress(long address, long size) throws CudaException {
        throw noVirtualMemory();
    }

    /** A physical allocation of {@code size} bytes on {@code device}: an opaque token for {@link #map}. */
    default long createPhysical(int device, long size) throws CudaException {
        throw noVirtualMemory();
    }

    /** Releases the allocation; its memory lives on while it is mapped somewhere. */
    default void releasePhysical(long physical) throws CudaException {
        throw noVirtualMemory();
    }

    /** Maps {@code size} bytes of {@code physical} from {@code offset} at {@code address}, inaccessible until {@link #setAccess}. */
    default void map(long address, long size, long physical, long offset) throws CudaException {
        throw noVirtualMemory();
    }

    default void unmap(long address, long size) throws CudaException {
        throw noVirtualMemory();
    }

    /** CUmemAccess_flags for the range from {@code device}: 0 none, 1 read, 3 read and write. */
    default void setAccess(long address, long size, int device, int flags) throws CudaException {
        throw noVirtualMemory();
    }

    /** Whether device {@code device} can reach {@code peer}'s memory directly (cuDeviceCanAccessPeer). */
    default boolean canAccessPeer(int device, int peer) throws CudaException {
        return false;
    }

    /** Lets {@code device} reach {@code peer}'s memory (cuCtxEnablePeerAccess), or stops it. */
    default void peerAccess(int device, int peer, boolean enable) throws CudaException {
        throw new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access on the " + name() + " backend");
    }

    /**
     * A cooperative launch: every block resident at once, with a zeroed grid workspace whose address the kernel reads
     * from %envreg1 (high half) and %envreg2 (low half), where cooperative groups keep their grid barrier.
     */
    default void launchCooperative(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes)
            throws CudaException {
        throw new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_NOT_SUPPORTED, "cooperative launch on the " + name() + " backend");
    }

    /**
     * A cooperative launch into device queue {@code queue}, as {@link #launch(Program.Kernel, int[], int[], long, long, long, long)}
     * queues a plain one, where {@link #queuesCooperative} says the backend can; otherwise the launch runs to its end.
     */
    default void launchCooperative(Program.Kernel kernel, int[] grid, int[] block, long sharedBytes, long kernelParams, long stackBytes,
                                   long queue) throws CudaException {
        launchCooperative(kernel, grid, block, sharedBytes, kernelParams, stackBytes);
    }

    /**
     * Whether cooperative launches are queued on the device like plain ones (and may be part of a {@link #kernelSequence});
     * false where each one runs to its end (the host's threads, the HIP backend's grid workspace).
     */
    default boolean queuesCooperative() {
        return false;
    }

    /**
     * One launch of a {@link #kernelSequence}: what {@link #launch} takes; cooperative ones only where {@link
     * #queuesCooperative}; {@code paramSizes}: the bytes of each of the kernel's parameters (a backend that keeps its own
     * copy of the arguments reads them so; null: not known).
     */
    record SequencedLaunch(Program.Kernel kernel, int[] grid, int[] block, int sharedBytes, long kernelParams, boolean cooperative,
                           int[] paramSizes) {
        public SequencedLaunch(Program.Kernel kernel, int[] grid, int[] block, int sharedBytes, long kernelParams, boolean cooperative) {
            this(kernel, grid, block, sharedBytes, kernelParams, cooperative, null);
        }
    }

    /** Kernel launches prepared once and submitted together each time (a graph's replay): see {@link #kernelSequence}. */
    interface KernelSequence {
        /** Submits every launch, in order, to device queue {@code queue}. */
        void launch(long queue) throws CudaException;

        /**
         * Gives some launches new shapes and arguments in place, for the submissions from now on (those already
         * submitted keep theirs): {@code positions} their indices in the sequence, {@code launches} the same kernels
         * with the new values, copied now. False where the backend cannot (the caller then makes a new sequence).
         */
        default boolean update(int[] positions, java.util.List<SequencedLaunch> launches) throws CudaException {
            return false;
        }

        /** Frees the prepared sequence (launches already submitted run to their end). */
        void close();
    }

    /**
     * Prepares {@code launches} to be submitted as one (on NVIDIA GPUs an executable graph: one driver call per
     * replay instead of one per kernel); the arguments are copied now. Null where the backend has no such thing (the
     * launches then go one by one).
     */
    default KernelSequence kernelSequence(java.util.List<SequencedLaunch> launches) throws CudaException {
        return null;
    }

    /**
     * Begins capturing, into one backend graph, the work then given to a private device queue (NVIDIA's stream
     * capture): kernels and library calls (a graph replay's cuBLAS GEMMs, whose kernels only NVIDIA's library knows).
     * That queue, or 0 where the backend cannot. One capture at a time: the caller's; {@link #endCapture} ends it.
     */
    default long beginCapture() throws CudaException {
        return 0;
    }

    /**
     * Ends {@link #beginCapture}'s capture of {@code queue}: what it captured as a sequence submitted whole (one
     * NVIDIA graph launch), or null where the capture failed (nothing kept; the caller runs the work as before).
     */
    default KernelSequence endCapture(long queue) throws CudaException {
        return null;
    }

    /** The BLAS under ZLUDA-J's cuBLAS on this backend, or null when the backend has none (cuBLAS then answers NOT_SUPPORTED). */
    default Blas blas() throws CudaException {
        return null;
    }

    /**
     * Blocks of {@code kernel} resident at once on one multiprocessor with {@code blockSize} threads and
     * {@code dynamicShared} bytes of dynamic shared memory, as the device's own driver counts them (its registers
     * included: cuOccupancyMaxActiveBlocksPerMultiprocessor); -1 where this backend has no such count (the driver's
     * model of threads and shared memory then answers).
     */
    default int activeBlocks(Program.Kernel kernel, int blockSize, long dynamicShared) {
        return -1;
    }

    /**
     * A CUfunction_attribute of the compiled kernel as the device's own driver reports it: MAX_THREADS_PER_BLOCK (0)
     * and NUM_REGS (4), which depend on the registers the code uses; -1 where this backend does not know.
     */
    default int compiledAttribute(Program.Kernel kernel, int attribute) {
        return -1;
    }

    /** Waits for all work of the backend. */
    void synchronize() throws CudaException;

    /**
     * Waits until the device has finished the work launched so far, and throws a kernel's fault. GPU backends return
     * from {@link #launch} once the kernel is queued on the device (the GPU's own stream keeps the order of launches,
     * copies and frees); the driver calls this where the host must see the work done: stream, event and context
     * synchronization, event records, host functions and callbacks, CUDA_LAUNCH_BLOCKING. The host backend runs
     * kernels to completion, so it has nothing to wait for.
     */
    default void fence() throws CudaException {
        synchronize();
    }

    /** A loaded module: its kernels and its module-scope variables by PTX name (null when absent). */
    interface Program {
        Kernel kernel(String name);

        Global global(String name);

        /** A {@code .global} or {@code .const} variable: its device address and size (cuModuleGetGlobal). */
        record Global(long address, long bytes) {}

        /**
         * A kernel: its entry, its PTX, the static shared memory it needs per block, whether its threads run as
         * fibers, the .local bytes one thread needs along its call tree, and (host backend) the bytes of host stack
         * frames its compiled code needs.
         */
        record Kernel(String name, long entry, org.zludaj.ptx.model.Function ptx, long staticShared, boolean fibers,
                      long localBytes, long hostFrameBytes) {
            public Kernel(String name, long entry, org.zludaj.ptx.model.Function ptx, long staticShared, boolean fibers, long localBytes) {
                this(name, entry, ptx, staticShared, fibers, localBytes, 0);
            }
        }
    }
}
