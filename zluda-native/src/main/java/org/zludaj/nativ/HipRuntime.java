package org.zludaj.nativ;

/**
 * The HIP runtime (libamdhip64), loaded at run time for the hip backend (rt/hip.c in libzluda_rt.so). Each function
 * returns HIP's hipError_t.
 */
public final class HipRuntime {
    private HipRuntime() {}

    static {
        HostRuntime.threadId();  // loads libzluda_rt.so
    }

    /** Opens the HIP runtime: 0 with the library's name in {@code message}, or -1 with the reason. */
    public static native int open(byte[] message);

    public static native int init(int[] count);

    public static native int setDevice(int device);

    public static native int attribute(int device, int hipAttribute, int[] out);

    public static native String name(int device);

    public static native long totalMemory(int device);

    /** gcnArchName, e.g. "gfx1100:sramecc-:xnack-" ("" when unknown). */
    public static native String archName(int device);

    /** kind 0: device memory, 1: page-locked host memory, 2: managed memory. */
    public static native int alloc(int kind, long size, long[] out);

    public static native int free(int kind, long address);

    public static native int copy(long dst, long src, long bytes);

    public static native int fill(long dst, int elementBytes, int value, long count);

    /** hipMemcpyAsync (hipMemcpyDefault) on {@code stream}. */
    public static native int copyAsync(long dst, long src, long bytes, long stream);

    /** As {@link #copyAsync}, a C function for the shim's device-to-device copies (shim/copy.c); nothing for no bytes. */
    public static native long directCopyFunction();

    /** hipMemsetD8Async/D16Async/D32Async on {@code stream}. */
    public static native int fillAsync(long dst, int elementBytes, int value, long count, long stream);

    public static native int moduleLoad(byte[] codeObject, long[] out);

    public static native int function(long module, String name, long[] out);

    public static native int global(long module, String name, long[] out);

    public static native int launch(long function, int gx, int gy, int gz, int bx, int by, int bz, int shared, long kernelParams,
                                    long stream);

    /** The address of the C function {@link #launch} calls (shim/launch.c calls it for the launches it repeats). */
    public static native long directLaunchFunction();

    /**
     * {@code count} hipModuleLaunchKernel calls on {@code stream}, each 9 words at {@code records} (function, grid x/y/z,
     * block x/y/z, dynamic shared bytes, kernelParams); the first error (the rest not launched), else 0.
     */
    public static native int launchSequence(long records, int count, long stream);

    public static native int launchCooperative(long function, int gx, int gy, int gz, int bx, int by, int bz, int shared,
                                               long kernelParams);

    public static native boolean hasCooperativeLaunch();

    /** hipModuleOccupancyMaxActiveBlocksPerMultiprocessor of a loaded function, -1 where HIP has no answer. */
    public static native int occupancy(long function, int blockSize, long dynamicShared);

    /** hipFuncGetAttribute (CUDA's numbering), -1 where HIP has no answer. */
    public static native int functionAttribute(long function, int attribute);

    public static native int streamCreate(long[] out);

    public static native int streamDestroy(long stream);

    public static native int streamSynchronize(long stream);

    public static native int synchronize();

    /** hipMemcpy2D(dst, dpitch, src, spitch, width, height, hipMemcpyDefault). */
    public static native int copy2D(long dst, long dpitch, long src, long spitch, long width, long height);

    /** Device printf: zeroes {@code capacity} bytes at {@code buffer}, writes its header and stores its address in the module's global. */
    public static native int printfInit(long global, long buffer, long capacity);

    /** Prints and empties a device printf buffer: failed asserts << 32 | lines printed, or -1. */
    public static native long printfDrain(long buffer);

    /** Whether the runtime has hipMemCreate, hipMemAddressReserve, hipMemMap ... (all eight of {@link GpuVmm}). */
    public static native boolean hasVirtualMemory();

    /** Virtual memory management: one {@link GpuVmm} operation on HIP device {@code device}; its result in out[0]. */
    public static native int vmm(int op, int device, long a, long b, long c, long d, long[] out);

    /** Peer access: op 0 hipDeviceCanAccessPeer(device, peer) into out[0]; 1 enable, 2 disable access to peer from the current device. */
    public static native int peer(int op, int device, int peer, int[] out);

    /** Opens rocBLAS (ZLUDA_ROCBLAS_LIB, librocblas.so.5/.4/.0, /opt/rocm/lib); 0, or -1 with the reason in message. */
    public static native int rocblasOpen(byte[] message);

    /** The address of a rocBLAS function, 0 when it has none of that name. */
    public static native long rocblasSymbol(String name);

    /** Calls a rocBLAS function (rt/blascall.c: an argument 0x5a4c000000000000 | i is the address of slots[2i]). */
    public static native int rocblasCall(long function, long[] args, long[] slots);

    /** The C function the shim calls for a GEMM it repeats without the JVM (rt/hip.c direct_rocblas, shim/blas.c). */
    public static native long directBlasFunction();
}
