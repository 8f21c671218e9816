package org.zludaj.driver.backend.hip;

import java.util.Map;
import java.util.TreeMap;
import org.zludaj.api.CuResult;
import org.zludaj.ptx.target.AmdgpuTarget;

/**
 * The hip backend's translation tables: CUDA device attributes to HIP's (hipDeviceAttribute_t of ROCm 6/7), HIP
 * errors to the nearest CUresult, and HIP's architecture names to compile targets. Attributes HIP does not have keep
 * the values of the configured compute capability (as on the host device); the compute capability itself is never
 * HIP's (AMD's "major" means something else): it is ZLUDA_CC.
 */
public final class HipMappings {
    private HipMappings() {}

    /** CUdevice_attribute -> hipDeviceAttribute_t, for every attribute HIP answers. */
    static final Map<Integer, Integer> ATTRIBUTES = new TreeMap<>(Map.ofEntries(
            Map.entry(1, 56),    // MAX_THREADS_PER_BLOCK -> MaxThreadsPerBlock
            Map.entry(2, 26), Map.entry(3, 27), Map.entry(4, 28),   // MAX_BLOCK_DIM_X/Y/Z
            Map.entry(5, 29), Map.entry(6, 30), Map.entry(7, 31),   // MAX_GRID_DIM_X/Y/Z
            Map.entry(8, 74),    // MAX_SHARED_MEMORY_PER_BLOCK
            Map.entry(9, 83),    // TOTAL_CONSTANT_MEMORY
            Map.entry(10, 87),   // WARP_SIZE (32 on the wave32 GPUs we target)
            Map.entry(11, 58),   // MAX_PITCH
            Map.entry(12, 71),   // MAX_REGISTERS_PER_BLOCK
            Map.entry(13, 5),    // CLOCK_RATE
            Map.entry(14, 81),   // TEXTURE_ALIGNMENT
            Map.entry(15, 12),   // GPU_OVERLAP -> DeviceOverlap
            Map.entry(16, 63),   // MULTIPROCESSOR_COUNT
            Map.entry(17, 18),   // KERNEL_EXEC_TIMEOUT
            Map.entry(18, 16),   // INTEGRATED
            Map.entry(19, 3),    // CAN_MAP_HOST_MEMORY
            Map.entry(20, 6),    // COMPUTE_MODE
            Map.entry(21, 39),   // MAXIMUM_TEXTURE1D_WIDTH
            Map.entry(22, 43), Map.entry(23, 44),                   // MAXIMUM_TEXTURE2D_WIDTH/HEIGHT
            Map.entry(24, 49), Map.entry(25, 50), Map.entry(26, 51), // MAXIMUM_TEXTURE3D_WIDTH/HEIGHT/DEPTH
            Map.entry(30, 79),   // SURFACE_ALIGNMENT
            Map.entry(31, 8),    // CONCURRENT_KERNELS
            Map.entry(32, 0),    // ECC_ENABLED
            Map.entry(33, 67), Map.entry(34, 68), Map.entry(50, 69), // PCI_BUS_ID, PCI_DEVICE_ID, PCI_DOMAIN_ID
            Map.entry(35, 80),   // TCC_DRIVER
            Map.entry(36, 60),   // MEMORY_CLOCK_RATE
            Map.entry(37, 59),   // GLOBAL_MEMORY_BUS_WIDTH
            Map.entry(38, 19),   // L2_CACHE_SIZE
            Map.entry(39, 57),   // MAX_THREADS_PER_MULTIPROCESSOR
            Map.entry(40, 2),    // ASYNC_ENGINE_COUNT
            Map.entry(41, 85),   // UNIFIED_ADDRESSING
            Map.entry(78, 78),   // STREAM_PRIORITIES_SUPPORTED
            Map.entry(79, 14), Map.entry(80, 20),                   // GLOBAL/LOCAL_L1_CACHE_SUPPORTED
            Map.entry(81, 76),   // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR -> SharedMemPerMultiprocessor
            Map.entry(82, 72),   // MAX_REGISTERS_PER_MULTIPROCESSOR
            Map.entry(83, 24),   // MANAGED_MEMORY
            Map.entry(84, 17), Map.entry(85, 62),                   // MULTI_GPU_BOARD, MULTI_GPU_BOARD_GROUP_ID
            Map.entry(86, 15),   // HOST_NATIVE_ATOMIC_SUPPORTED
            Map.entry(87, 77),   // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
            Map.entry(88, 65),   // PAGEABLE_MEMORY_ACCESS
            Map.entry(89, 9),    // CONCURRENT_MANAGED_ACCESS
            Map.entry(90, 7),    // COMPUTE_PREEMPTION_SUPPORTED
            Map.entry(91, 4),    // CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
            Map.entry(95, 10), Map.entry(96, 11),                   // COOPERATIVE_LAUNCH, COOPERATIVE_MULTI_DEVICE_LAUNCH
            Map.entry(97, 75),   // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
            Map.entry(99, 90),   // HOST_REGISTER_SUPPORTED
            Map.entry(100, 66),  // PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES
            Map.entry(101, 13),  // DIRECT_MANAGED_MEM_ACCESS_FROM_HOST
            Map.entry(102, 89),  // VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
            Map.entry(106, 25),  // MAX_BLOCKS_PER_MULTIPROCESSOR
            Map.entry(108, 70),  // MAX_PERSISTING_L2_CACHE_SIZE
            Map.entry(109, 1),   // MAX_ACCESS_POLICY_WINDOW_SIZE
            Map.entry(111, 73),  // RESERVED_SHARED_MEMORY_PER_BLOCK
            Map.entry(115, 88),  // MEMORY_POOLS_SUPPORTED
            Map.entry(119, 91),  // MEMPOOL_SUPPORTED_HANDLE_TYPES
            Map.entry(134, 92)   // HOST_NUMA_ID
    ));

    /** HIP's attribute for a CUDA attribute, or -1 when HIP has none. */
    public static int hipAttribute(int cudaAttribute) {
        return ATTRIBUTES.getOrDefault(cudaAttribute, -1);
    }

    /** hipError_t -> CUresult: HIP's codes are CUDA's where both have the error; the runtime-API ones are translated. */
    public static int cuResult(int hipError) {
        return switch (hipError) {
            case 0, 1, 2, 3, 4, 5, 6, 7, 8, 100, 101, 200, 201, 202, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217,
                 218, 219, 300, 301, 302, 303, 304, 400, 401, 500, 600, 700, 701, 702, 704, 705, 708, 709, 710, 712, 713, 719, 720,
                 801, 900, 901, 902, 903, 904, 905, 906, 907, 908, 910, 999 -> hipError;
            case 9, 12, 17, 21, 52, 911, 912 -> CuResult.CUDA_ERROR_INVALID_VALUE;  // configuration, pitch, pointer, direction, texture
            case 13 -> CuResult.CUDA_ERROR_NOT_FOUND;          // hipErrorInvalidSymbol
            case 35 -> CuResult.CUDA_ERROR_SYSTEM_DRIVER_MISMATCH; // hipErrorInsufficientDriver
            case 53 -> CuResult.CUDA_ERROR_LAUNCH_FAILED;      // hipErrorPriorLaunchFailure
            case 98 -> CuResult.CUDA_ERROR_INVALID_HANDLE;     // hipErrorInvalidDeviceFunction
            case 1052 -> CuResult.CUDA_ERROR_OUT_OF_MEMORY;    // hipErrorRuntimeMemory (HSA)
            default -> CuResult.CUDA_ERROR_UNKNOWN;            // hipErrorRuntimeOther, hipErrorTbd, anything new
        };
    }

    /** The compile target of a gcnArchName ("gfx1100:sramecc-:xnack-" -> gfx1100), or null with {@link #whyNot}. */
    public static String target(String gcnArchName) {
        String base = gcnArchName == null ? "" : gcnArchName.split(":", 2)[0].trim();
        return AmdgpuTarget.SUPPORTED.contains(base) ? base : null;
    }

    /** Why a GPU cannot be used, for the message that skips it. */
    public static String whyNot(String gcnArchName) {
        String base = gcnArchName == null ? "" : gcnArchName.split(":", 2)[0].trim();
        if (base.isEmpty()) return "HIP did not report its architecture";
        if (base.startsWith("gfx9")) return base + " runs waves of 64 only (CDNA/GCN); ZLUDA-J targets wave32 GPUs (RDNA2/3/4)";
        return base + " is not a supported target (gfx1030-1036, gfx1100-1103, gfx1150/1151, gfx1200/1201)";
    }
}
