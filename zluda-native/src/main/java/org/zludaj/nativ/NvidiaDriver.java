package org.zludaj.nativ;

/**
 * NVIDIA's own driver, loaded privately for the cuda backend (rt/nvidia.c in libzluda_rt.so): the few functions the
 * backend needs, each returning NVIDIA's CUresult. Opened by absolute path, isolated from ZLUDA-J's libcuda.so.1.
 */
public final class NvidiaDriver {
    private NvidiaDriver() {}

    static {
        HostRuntime.threadId();  // loads libzluda_rt.so
    }

    /** Opens NVIDIA's libcuda.so.1 at {@code path}: 0, or -1 with the reason written to {@code message}. */
    public static native int open(String path, byte[] message);

    /** cuInit and the device count; {@code preinit}: the address of a C function to wait with first (the shim's
     * wait for its own cuInit of NVIDIA's driver on another thread), or 0. */
    public static native int init(int[] count, long preinit);

    /** Retains the device's primary context; the backend's calls run in it from then on. */
    public static native int retainPrimary(int device);

    /** A CUdevice_attribute (0 where NVIDIA has none). */
    public static native int attribute(int device, int attribute);

    public static native String name(int device);

    public static native long totalMemory(int device);

    /** kind 0: device memory, 1: page-locked host memory (mapped, portable), 2: managed memory. */
    public static native int alloc(int kind, long size, long[] out);

    public static native int free(int kind, long address);

    /** cuMemcpy: any direction (unified addressing). */
    public static native int copy(long dst, long src, long bytes);

    public static native int fill(long dst, int elementBytes, int value, long count);

    /** cuMemcpyAsync on {@code stream}. */
    public static native int copyAsync(long dst, long src, long bytes, long stream);

    /**
     * The address of the C function {@link #copyAsync} calls, {@code CUresult (uint64_t dst, uint64_t src, size_t
     * bytes, void *stream)}: the shim calls it for the device-to-device copies it repeats without the JVM
     * (shim/copy.c).
     */
    public static native long directCopyFunction();

    /** cuMemsetD8Async/D16Async/D32Async on {@code stream}. */
    public static native int fillAsync(long dst, int elementBytes, int value, long count, long stream);

    /** Loads PTX text (NUL-terminated bytes); NVIDIA's JIT error log goes to {@code log} on failure. */
    public static native int moduleLoad(byte[] ptx, long[] out, byte[] log);

    public static native int function(long module, String name, long[] out);

    /** out[0]: address, out[1]: size. */
    public static native int global(long module, String name, long[] out);

    public static native int functionAttribute(long function, int attribute);

    /** cuOccupancyMaxActiveBlocksPerMultiprocessor of a loaded function, -1 on error. */
    public static native int occupancy(long function, int blockSize, long dynamicShared);

    /** cuLaunchKernel in {@code stream} (queued: a fault shows at the next synchronization). */
    public static native int launch(long function, int gx, int gy, int gz, int bx, int by, int bz, int shared, long kernelParams,
                                    long stream);

    /**
     * The address of the C function {@link #launch} calls, {@code CUresult (void *function, int gx, int gy, int gz,
     * int bx, int by, int bz, int shared, void **kernelParams, void *stream)}: the shim calls it for the launches it
     * repeats without the JVM (shim/launch.c).
     */
    public static native long directLaunchFunction();

    /** cuStreamCreate (blocking) in the private context. */
    public static native int streamCreate(long[] out);

    public static native int streamDestroy(long stream);

    public static native int streamSynchronize(long stream);

    public static native int synchronize();

    /** cuLaunchCooperativeKernel in {@code stream} (queued: a fault shows at the next synchronization). */
    public static native int launchCooperative(long function, int gx, int gy, int gz, int bx, int by, int bz, int shared, long kernelParams,
                                               long stream);

    /**
     * An executable NVIDIA graph of kernel launches run one after the other: 10 values per launch (function, grid x/y/z,
     * block x/y/z, dynamic shared bytes, kernelParams, cooperative 0/1); its handle in out[0], the NVIDIA graph it was
     * made of in out[1] and launch i's node in out[2 + i] (out holds 2 + launches values). 801 where the driver has no
     * graphs.
     */
    public static native int graphBuild(long[] nodes, long[] out);

    /**
     * {@link #graphBuild} of {@code count} LaunchRecords at {@code records} (9 words each: function, grid x/y/z, block
     * x/y/z, dynamic shared bytes, kernelParams; none cooperative), then uploaded on a private stream and waited for
     * (where NVIDIA's driver has cuGraphUpload; its failure is not an error). out holds 2 + count values.
     */
    public static native int graphBuildRecords(long records, int count, long[] out);

    /** {@code count} LaunchRecords at {@code records} launched one after the other on {@code stream}; the first error stops it. */
    public static native int launchRecords(long records, int count, long stream);

    /**
     * cuGraphExecKernelNodeSetParams on a graphBuild executable: 10 values per node (function, grid x/y/z, block x/y/z,
     * dynamic shared bytes, kernelParams, the node from graphBuild's out). 801 where the driver has no such call.
     */
    public static native int graphSetParams(long exec, long[] nodes);

    /**
     * cuStreamBeginCapture_v2 (relaxed mode) of the backend's private capture stream (non-blocking, made at the first
     * call): its handle in out[0]. 801 where the driver has no stream capture. One capture at a time.
     */
    public static native int captureBegin(long[] out);

    /**
     * cuStreamEndCapture of {@code stream} and cuGraphInstantiateWithFlags of what it captured: the executable in
     * out[0], the graph in out[1] (graphLaunch and graphDestroy take them); on an error nothing is kept.
     */
    public static native int captureEnd(long stream, long[] out);

    /** cuGraphLaunch of a graphBuild (or captureEnd) executable in {@code stream}. */
    public static native int graphLaunch(long exec, long stream);

    /** cuGraphExecDestroy of a graphBuild executable and cuGraphDestroy of its graph. */
    public static native int graphDestroy(long exec, long graph);

    /** Resets the primary context after a kernel fault and retains it again. */
    public static native int reset();

    /** Virtual memory management: one {@link GpuVmm} operation on {@code device}; its result, if any, in out[0]. */
    public static native int vmm(int op, int device, long a, long b, long c, long d, long[] out);

    /**
     * Opens NVIDIA's cuBLASLt and cuBLAS (absolute paths) in a namespace of their own whose libcuda.so.1 is
     * {@code forwarder} (libzluda_nvfwd.so: NVIDIA's driver, as opened here); 0, or -1 with the reason in message.
     */
    public static native int openBlas(String forwarder, String cublas, String cublasLt, byte[] message);

    /** The address of a cuBLAS or cuBLASLt function, 0 when neither has it. */
    public static native long blasSymbol(String name);

    /**
     * Calls a cuBLAS function (every argument an integer or a pointer; rt/blascall.c: an argument 0x5a4c000000000000 | i
     * is the address of slots[2i], 16 bytes copied back after the call); its cublasStatus_t.
     */
    public static native int blasCall(long function, long[] args, long[] slots);

    /** The C function the shim calls for a GEMM it repeats without the JVM (rt/nvidia.c direct_blas, shim/blas.c). */
    public static native long directBlasFunction();
}
