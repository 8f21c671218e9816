package org.zludaj.driver;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A CUmemoryPool: the memory behind cuMemAllocAsync. Blocks come from the backend and return to the pool when their
 * free is reached in stream order (so a later allocation can never get a block that earlier work still uses); the
 * pool keeps freed blocks for reuse up to its release threshold and gives the rest back at once (NVIDIA gives them
 * back at the next synchronization: the same state when the application can observe it).
 */
final class MemoryPool {
    /** Allocation sizes are rounded up to this, as NVIDIA's pools do to their own granularity. */
    static final long BLOCK = 512;

    final int device;
    final boolean isDefault;
    long handle;
    volatile boolean destroyed;

    private final Driver d;
    long releaseThreshold;
    boolean followEventDependencies = true, allowOpportunistic = true, allowInternalDependencies = true;
    private long used, usedHigh, reserved, reservedHigh;
    /** Freed blocks by size; every block's size by base (live and freed). */
    private final TreeMap<Long, ArrayDeque<Long>> cached = new TreeMap<>();
    private final Map<Long, Long> blocks = new HashMap<>();

    MemoryPool(Driver d, int device, boolean isDefault) {
        this.d = d;
        this.device = device;
        this.isDefault = isDefault;
    }

    synchronized long allocate(long bytes) throws CudaException {
        long size = (bytes + BLOCK - 1) / BLOCK * BLOCK;
        long base;
        var fit = cached.ceilingEntry(size);
        if (fit != null && fit.getKey() <= 2 * size) {  // reuse a freed block that is not much larger
            base = fit.getValue().pop();
            if (fit.getValue().isEmpty()) cached.remove(fit.getKey());
            size = fit.getKey();
        } else {
            base = d.backend.allocate(device, size);
            blocks.put(base, size);
            d.deviceMemory.put(base, size);
            reserved += size;
            reservedHigh = Math.max(reservedHigh, reserved);
        }
        used += size;
        usedHigh = Math.max(usedHigh, used);
        d.poolAllocations.put(base, this);
        return base;
    }

    /** The block at {@code base} is free (its free was reached in stream order). */
    synchronized void release(long base) throws CudaException {
        long size = blocks.get(base);
        used -= size;
        cached.computeIfAbsent(size, k -> new ArrayDeque<>()).push(base);
        trim(destroyed ? 0 : releaseThreshold);
    }

    /** Gives freed blocks back, largest first, until at most {@code keep} bytes are reserved. */
    synchronized void trim(long keep) throws CudaException {
        while (Long.compareUnsigned(reserved, keep) > 0 && !cached.isEmpty()) {  // keep: cuuint64_t
            var largest = cached.lastEntry();
            long base = largest.getValue().pop();
            if (largest.getValue().isEmpty()) cached.remove(largest.getKey());
            blocks.remove(base);
            d.deviceMemory.remove(base);
            d.backend.free(base);
            reserved -= largest.getKey();
        }
    }

    /** CUmemPool_attribute: 1-3 booleans, 4 RELEASE_THRESHOLD, 5-8 RESERVED/USED_MEM_CURRENT/HIGH. */
    synchronized long attribute(int attr) throws CudaException {
        return switch (attr) {
            case 1 -> followEventDependencies ? 1 : 0;
            case 2 -> allowOpportunistic ? 1 : 0;
            case 3 -> allowInternalDependencies ? 1 : 0;
            case 4 -> releaseThreshold;
            case 5 -> reserved;
            case 6 -> reservedHigh;
            case 7 -> used;
            case 8 -> usedHigh;
            default -> throw new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_INVALID_VALUE, "pool attribute " + attr);
        };
    }

    synchronized void setAttribute(int attr, long value) throws CudaException {
        switch (attr) {
            case 1 -> followEventDependencies = value != 0;
            case 2 -> allowOpportunistic = value != 0;
            case 3 -> allowInternalDependencies = value != 0;
            case 4 -> {
                releaseThreshold = value;
                trim(value);
            }
            case 6, 8 -> {  // high-water marks: only reset, to the current value
                if (value != 0) throw new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_INVALID_VALUE, "a high-water mark can only be reset to 0");
                if (attr == 6) reservedHigh = reserved;
                else usedHigh = used;
            }
            default -> throw new CudaException(org.zludaj.api.CuResult.CUDA_ERROR_INVALID_VALUE, "pool attribute " + attr + " cannot be set");
        }
    }

    /** Destroyed: freed blocks go now, the others when they are freed. */
    synchronized void destroy() throws CudaException {
        destroyed = true;
        trim(0);
    }
}
