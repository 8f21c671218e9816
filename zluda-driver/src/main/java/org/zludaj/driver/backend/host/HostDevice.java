package org.zludaj.driver.backend.host;

import java.lang.management.ManagementFactory;
import java.util.UUID;
import org.zludaj.driver.backend.Device;

/** The host CPU described as a CUDA device: every CUdevice_attribute defined, consistent with the compute capability. */
public final class HostDevice {
    private HostDevice() {}

    /** Highest CUdevice_attribute of CUDA 13.0, plus one. */
    static final int ATTRIBUTE_COUNT = 148;

    public static Device describe(int ccMajor, int ccMinor) {
        int cores = Runtime.getRuntime().availableProcessors();
        long ram = physicalMemory();
        long total = Math.max(1L << 30, ram / 2);  // half of RAM, what a process can reasonably use
        int[] a = new int[ATTRIBUTE_COUNT];
        a[1] = 1024;                 // MAX_THREADS_PER_BLOCK
        a[2] = 1024; a[3] = 1024; a[4] = 64;                   // MAX_BLOCK_DIM_X/Y/Z
        a[5] = Integer.MAX_VALUE; a[6] = 65535; a[7] = 65535;  // MAX_GRID_DIM_X/Y/Z
        a[8] = 48 * 1024;            // MAX_SHARED_MEMORY_PER_BLOCK
        a[9] = 64 * 1024;            // TOTAL_CONSTANT_MEMORY
        a[10] = 32;                  // WARP_SIZE
        a[11] = Integer.MAX_VALUE;   // MAX_PITCH
        a[12] = 65536;               // MAX_REGISTERS_PER_BLOCK
        a[13] = 1_000_000;           // CLOCK_RATE (kHz)
        a[14] = 512;                 // TEXTURE_ALIGNMENT
        a[15] = 1;                   // GPU_OVERLAP
        a[16] = cores;               // MULTIPROCESSOR_COUNT
        a[17] = 0;                   // KERNEL_EXEC_TIMEOUT (the host backend sets it from its block time limit)
        a[18] = 1;                   // INTEGRATED: device memory is host memory
        a[19] = 1;                   // CAN_MAP_HOST_MEMORY
        a[20] = 0;                   // COMPUTE_MODE default
        a[30] = 512;                 // SURFACE_ALIGNMENT
        a[31] = 1;                   // CONCURRENT_KERNELS
        a[32] = 0;                   // ECC_ENABLED
        a[33] = 0; a[34] = 0; a[50] = 0;  // PCI bus, device, domain: none
        a[35] = 0;                   // TCC_DRIVER
        a[36] = 1_000_000;           // MEMORY_CLOCK_RATE (kHz)
        a[37] = 64;                  // GLOBAL_MEMORY_BUS_WIDTH
        a[38] = 4 << 20;             // L2_CACHE_SIZE
        a[39] = 2048;                // MAX_THREADS_PER_MULTIPROCESSOR
        a[40] = 1;                   // ASYNC_ENGINE_COUNT
        a[41] = 1;                   // UNIFIED_ADDRESSING
        a[75] = ccMajor;             // COMPUTE_CAPABILITY_MAJOR
        a[76] = ccMinor;             // COMPUTE_CAPABILITY_MINOR
        a[78] = 0;                   // STREAM_PRIORITIES_SUPPORTED
        a[79] = 1; a[80] = 1;        // GLOBAL/LOCAL_L1_CACHE_SUPPORTED
        a[81] = 100 * 1024;          // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        a[82] = 65536;               // MAX_REGISTERS_PER_MULTIPROCESSOR
        a[83] = 1;                   // MANAGED_MEMORY
        a[86] = 1;                   // HOST_NATIVE_ATOMIC_SUPPORTED
        a[87] = 2;                   // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
        a[88] = 1;                   // PAGEABLE_MEMORY_ACCESS
        a[89] = 1;                   // CONCURRENT_MANAGED_ACCESS
        a[91] = 1;                   // CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
        a[92] = 0; a[93] = 0; a[94] = 0;  // the deprecated v1 memory-operation attributes: 0, as NVIDIA reports them now
        a[95] = 1;                   // COOPERATIVE_LAUNCH: every block of a cooperative grid gets a thread of its own
        a[97] = 99 * 1024;           // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        a[99] = 1;                   // HOST_REGISTER_SUPPORTED
        a[100] = 1;                  // PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES
        a[101] = 1;                  // DIRECT_MANAGED_MEM_ACCESS_FROM_HOST
        a[102] = 1;                  // VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED (cuMemCreate, cuMemMap ...)
        a[106] = 16;                 // MAX_BLOCKS_PER_MULTIPROCESSOR
        a[111] = 1024;               // RESERVED_SHARED_MEMORY_PER_BLOCK
        a[115] = 1;                  // MEMORY_POOLS_SUPPORTED (cuMemAllocAsync)
        a[123] = 1;                  // CAN_USE_STREAM_WAIT_VALUE_NOR
        a[126] = 1;                  // MEM_SYNC_DOMAIN_COUNT
        a[130] = 0; a[131] = -1; a[134] = -1;  // NUMA: none
        // texture and surface limits: the values of a compute-capability 8.x device
        a[21] = 131072; a[22] = 131072; a[23] = 65536; a[24] = 16384; a[25] = 16384; a[26] = 16384;
        a[27] = 32768; a[28] = 32768; a[29] = 2048; a[42] = 32768; a[43] = 2048; a[44] = 1; a[45] = 32768; a[46] = 32768;
        a[47] = 8192; a[48] = 8192; a[49] = 32768; a[51] = 32; a[52] = 32768; a[53] = 32768; a[54] = 2046;
        a[55] = 32768; a[56] = 131072; a[57] = 65536; a[58] = 16384; a[59] = 16384; a[60] = 16384; a[61] = 32768;
        a[62] = 2048; a[63] = 32768; a[64] = 32768; a[65] = 2048; a[66] = 32768; a[67] = 32768; a[68] = 2046;
        a[69] = 268435456; a[70] = 131072; a[71] = 65000; a[72] = 2097120; a[73] = 32768; a[74] = 32768; a[77] = 32768;
        String name = "ZLUDA host CPU";
        byte[] uuid = uuidBytes(stableUuid(name + cores));
        return new Device(name, total, uuid, a);
    }

    /**
     * A UUID that stays the same for the same text (the device's identity across runs), with the bits of a name-based
     * UUID; mixed from the text's hash rather than MD5, whose security provider costs 20-30 ms of the driver's start.
     */
    public static UUID stableUuid(String text) {
        long hi = mix(0x9E3779B97F4A7C15L ^ text.hashCode()), lo = mix(hi ^ text.length());
        return new UUID((hi & ~0xF000L) | 0x3000L, (lo & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L);
    }

    private static long mix(long z) {  // splitmix64's finalizer
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static byte[] uuidBytes(UUID u) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (u.getMostSignificantBits() >>> (56 - 8 * i));
            b[8 + i] = (byte) (u.getLeastSignificantBits() >>> (56 - 8 * i));
        }
        return b;
    }

    /** The machine's memory: /proc/meminfo's MemTotal (the management beans cost 30-50 ms of start-up), else theirs. */
    private static long physicalMemory() {
        try (var lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/meminfo"))) {
            var total = lines.filter(l -> l.startsWith("MemTotal:")).findFirst();
            if (total.isPresent()) return Long.parseLong(total.get().replaceAll("[^0-9]", "")) * 1024;
        } catch (Exception ignored) {
            // not Linux: the management bean
        }
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return 8L << 30;
    }
}
