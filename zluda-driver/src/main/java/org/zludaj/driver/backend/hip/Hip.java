package org.zludaj.driver.backend.hip;

/**
 * The HIP functions the hip backend uses, as a table: {@link NativeHip} calls the real runtime, tests put a
 * recording fake in its place. Every method returns HIP's hipError_t; outputs go to the arrays given.
 */
public interface Hip {
    /** Opens the runtime: null when it is there, else the reason. */
    String open();

    int init(int[] count);

    int setDevice(int device);

    int attribute(int device, int hipAttribute, int[] out);

    String name(int device);

    long totalMemory(int device);

    String archName(int device);

    int alloc(int kind, long size, long[] out);

    int free(int kind, long address);

    int copy(long dst, long src, long bytes);

    int fill(long dst, int elementBytes, int value, long count);

    /** hipMemcpyAsync (hipMemcpyDefault) on {@code stream}: pageable host memory is copied synchronously. */
    int copyAsync(long dst, long src, long bytes, long stream);

    /** hipMemsetD8Async/D16Async/D32Async on {@code stream}. */
    int fillAsync(long dst, int elementBytes, int value, long count, long stream);

    /** hipMemcpy2D with hipMemcpyDefault: {@code height} rows of {@code width} bytes. */
    int copy2D(long dst, long dpitch, long src, long spitch, long width, long height);

    int moduleLoad(byte[] codeObject, long[] out);

    int function(long module, String name, long[] out);

    int global(long module, String name, long[] out);

    /** hipModuleLaunchKernel on {@code stream} (0: the null stream). */
    int launch(long function, int gx, int gy, int gz, int bx, int by, int bz, int shared, long kernelParams, long stream);

    /**
     * The address of a C function that makes {@link #launch}'s call, for the launches the shim repeats without the JVM
     * (Backend.directLaunchFunction); 0 where there is none (a fake).
     */
    default long directLaunchFunction() {
        return 0;
    }

    /** Whether {@link #launchSequence} is there (the runtime's; not a fake's). */
    default boolean launchesSequences() {
        return false;
    }

    /**
     * {@code count} launches one after the other on {@code stream}, each {@link org.zludaj.driver.backend.LaunchRecords#WORDS} words at
     * {@code records} (function, grid x/y/z, block x/y/z, dynamic shared bytes, kernelParams): hipModuleLaunchKernel's
     * calls in one native call; the first error stops it.
     */
    default int launchSequence(long records, int count, long stream) {
        return 801;
    }

    /** The C function of {@link #copyAsync}'s call for the shim's device-to-device copies; 0 where there is none (a fake). */
    default long directCopyFunction() {
        return 0;
    }

    /** hipModuleLaunchCooperativeKernel on the null stream; hipErrorNotSupported (801) where the runtime lacks it. */
    int launchCooperative(long function, int gx, int gy, int gz, int bx, int by, int bz, int shared, long kernelParams);

    /** Whether the runtime has hipModuleLaunchCooperativeKernel (ROCm 6 and later). */
    boolean hasCooperativeLaunch();

    /** hipModuleOccupancyMaxActiveBlocksPerMultiprocessor of a loaded function; -1 where the runtime gives no answer. */
    int occupancy(long function, int blockSize, long dynamicShared);

    /** hipFuncGetAttribute (CUDA's numbering: 0 MAX_THREADS_PER_BLOCK, 4 NUM_REGS); -1 where the runtime gives no answer. */
    int functionAttribute(long function, int attribute);

    /** hipStreamCreate (a blocking stream: it synchronizes with the null stream). */
    int streamCreate(long[] out);

    int streamDestroy(long stream);

    int streamSynchronize(long stream);

    int synchronize();

    /** Device printf: zeroes the device buffer, writes its header (capacity) and stores its address at {@code global}. */
    int printfInit(long global, long buffer, long capacity);

    /** Prints and empties a device printf buffer: failed asserts << 32 | lines printed, or -1 when unreadable. */
    long printfDrain(long buffer);

    /** Whether the runtime has hipMemCreate, hipMemAddressReserve, hipMemMap, hipMemSetAccess ... (ROCm 5.3 and later). */
    boolean hasVirtualMemory();

    /**
     * Virtual memory management: one {@link org.zludaj.nativ.GpuVmm} operation (hipMemGetAllocationGranularity,
     * hipMemCreate, hipMemRelease, hipMemAddressReserve, hipMemAddressFree, hipMemMap, hipMemUnmap, hipMemSetAccess)
     * for HIP device {@code device}; its result, if any, in out[0].
     */
    int vmm(int op, int device, long a, long b, long c, long d, long[] out);

    /**
     * Peer access between HIP devices: op 0 hipDeviceCanAccessPeer(device, peer) into out[0]; op 1
     * hipDeviceEnablePeerAccess(peer, 0) and op 2 hipDeviceDisablePeerAccess(peer) from the current device.
     */
    int peer(int op, int device, int peer, int[] out);
}
