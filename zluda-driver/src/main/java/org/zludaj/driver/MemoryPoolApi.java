package org.zludaj.driver;

import org.zludaj.api.CuMemoryPoolApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/**
 * The stream-ordered memory allocator (CUDA's "Stream Ordered Memory Allocator" group): cuMemAllocAsync,
 * cuMemFreeAsync, pools and their attributes. An allocation is made when the call is made (earlier than its place in
 * the stream, which is always safe); its free happens in stream order, when the stream reaches it. Pool export and
 * import between processes are not supported.
 */
final class MemoryPoolApi implements CuMemoryPoolApi {
    private final Driver d;
    private final StreamApi streams;

    MemoryPoolApi(Driver d) {
        this.d = d;
        this.streams = new StreamApi(d);
    }

    /** The pool behind a CUmemoryPool handle. */
    MemoryPool pool(long handle) throws CudaException {
        MemoryPool p = d.handles.get(handle, MemoryPool.class);
        if (p.destroyed) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "the pool was destroyed");
        return p;
    }

    private int alloc(String name, long dptr, long bytes, long pool, long stream, boolean ptsz) {
        return Api.call(name, () -> {
            Mem.nonNull(dptr, "dptr");
            Context c = d.requireCurrent();
            Stream s = streams.resolve(stream, ptsz);
            if (s.capture != null) throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, name + " during stream capture (memory allocation nodes) is not supported");
            MemoryPool p = pool == 0 ? d.currentPool(c.device) : pool(pool);
            HostRuntime.putLong(dptr, bytes == 0 ? 0 : p.allocate(bytes));  // 0 bytes: success and NULL, as NVIDIA
        });
    }

    @Override public int cuMemAllocAsync(long dptr, long bytes, long s) { return alloc("cuMemAllocAsync", dptr, bytes, 0, s, false); }
    @Override public int cuMemAllocAsync_ptsz(long dptr, long bytes, long s) { return alloc("cuMemAllocAsync", dptr, bytes, 0, s, true); }

    @Override
    public int cuMemAllocFromPoolAsync(long dptr, long bytes, long pool, long s) {
        return pool == 0 ? CuResult.CUDA_ERROR_INVALID_VALUE : alloc("cuMemAllocFromPoolAsync", dptr, bytes, pool, s, false);
    }

    @Override
    public int cuMemAllocFromPoolAsync_ptsz(long dptr, long bytes, long pool, long s) {
        return pool == 0 ? CuResult.CUDA_ERROR_INVALID_VALUE : alloc("cuMemAllocFromPoolAsync", dptr, bytes, pool, s, true);
    }

    private int free(long dptr, long stream, boolean ptsz) {
        return Api.call("cuMemFreeAsync", () -> {
            d.requireCurrent();
            Stream s = streams.resolve(stream, ptsz);
            if (dptr == 0) return;
            MemoryPool p = d.poolAllocations.remove(dptr);
            if (p != null) {
                s.enqueue("cuMemFreeAsync", () -> {
                    s.context.fence(d.backend, s.deviceQueue());  // the stream's kernels are done with it before others may reuse it
                    p.release(dptr);
                }, null, null);
                return;
            }
            // NVIDIA frees cuMemAlloc's memory in stream order too
            if (d.deviceMemory.get(dptr) == null || d.managedMemory.contains(dptr) || d.reservations.floorEntry(dptr) != null && isMapped(dptr))
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "0x" + Long.toHexString(dptr) + " is not the start of a device allocation");
            d.deviceMemory.remove(dptr);
            s.enqueue("cuMemFreeAsync", () -> d.backend.free(dptr), null, null);
        });
    }

    private boolean isMapped(long ptr) {
        var r = d.reservations.floorEntry(ptr);
        return r != null && ptr < r.getKey() + r.getValue().size();
    }

    @Override public int cuMemFreeAsync(long dptr, long s) { return free(dptr, s, false); }
    @Override public int cuMemFreeAsync_ptsz(long dptr, long s) { return free(dptr, s, true); }

    /** A CUmemLocation argument that must name one of our devices. */
    private int deviceAt(long location) throws CudaException {
        Mem.nonNull(location, "location");
        int type = HostRuntime.getInt(location), id = HostRuntime.getInt(location + 4);
        if (type != VirtualMemoryApi.LOCATION_DEVICE) throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "pools at location type " + type + " (only DEVICE)");
        if (id < 0 || id >= d.deviceCount()) throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "no device " + id);
        return id;
    }

    @Override
    public int cuMemPoolCreate(long pool, long props) {
        return Api.call("cuMemPoolCreate", () -> {
            d.requireInit();
            Mem.nonNull(pool, "pool");
            Mem.nonNull(props, "poolProps");
            // CUmemPoolProps {allocType, handleTypes, location{type, id}, win32SecurityAttributes, maxSize, usage ...}
            int allocType = HostRuntime.getInt(props), handleTypes = HostRuntime.getInt(props + 4);
            if (allocType != VirtualMemoryApi.ALLOCATION_PINNED) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "allocType " + allocType + " (only PINNED)");
            int dev = deviceAt(props + 8);
            if (handleTypes != 0) throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "exportable pools are not supported");
            MemoryPool p = new MemoryPool(d, dev, false);
            p.handle = d.handles.add(p);
            HostRuntime.putLong(pool, p.handle);
        });
    }

    @Override
    public int cuMemPoolDestroy(long pool) {
        return Api.call("cuMemPoolDestroy", () -> {
            d.requireInit();
            MemoryPool p = pool(pool);
            if (p.isDefault) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "a device's default pool cannot be destroyed");
            d.resetCurrentPool(p);
            p.destroy();
            d.handles.remove(pool);
        });
    }

    @Override
    public int cuMemPoolSetAttribute(long pool, int attr, long value) {
        return Api.call("cuMemPoolSetAttribute", () -> {
            d.requireInit();
            MemoryPool p = pool(pool);
            Mem.nonNull(value, "value");
            p.setAttribute(attr, attr <= 3 ? HostRuntime.getInt(value) : HostRuntime.getLong(value));
        });
    }

    @Override
    public int cuMemPoolGetAttribute(long pool, int attr, long value) {
        return Api.call("cuMemPoolGetAttribute", () -> {
            d.requireInit();
            MemoryPool p = pool(pool);
            Mem.nonNull(value, "value");
            long v = p.attribute(attr);
            if (attr <= 3) HostRuntime.putInt(value, (int) v);
            else HostRuntime.putLong(value, v);
        });
    }

    @Override
    public int cuMemPoolTrimTo(long pool, long minBytesToKeep) {
        return Api.call("cuMemPoolTrimTo", () -> {
            d.requireInit();
            pool(pool).trim(minBytesToKeep);
        });
    }

    /** The pool's own device always has read-write access; there is no other device to grant it to. */
    @Override
    public int cuMemPoolSetAccess(long pool, long map, long count) {
        return Api.call("cuMemPoolSetAccess", () -> {
            d.requireInit();
            MemoryPool p = pool(pool);
            Mem.nonNull(map, "map");
            for (long i = 0; i < count; i++) {
                int dev = deviceAt(map + 12 * i), flags = HostRuntime.getInt(map + 12 * i + 8);
                if (dev == p.device && flags != 3)
                    throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "the pool's own device keeps read-write access");
            }
        });
    }

    @Override
    public int cuMemPoolGetAccess(long flags, long pool, long location) {
        return Api.call("cuMemPoolGetAccess", () -> {
            d.requireInit();
            MemoryPool p = pool(pool);
            Mem.nonNull(flags, "flags");
            int dev = deviceAt(location);
            HostRuntime.putInt(flags, dev == p.device ? 3 : 0);
        });
    }

    private void checkType(int type) throws CudaException {
        if (type != VirtualMemoryApi.ALLOCATION_PINNED) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "allocation type " + type + " (only PINNED)");
    }

    @Override
    public int cuMemGetDefaultMemPool(long poolOut, long location, int type) {
        return Api.call("cuMemGetDefaultMemPool", () -> {
            d.requireInit();
            Mem.nonNull(poolOut, "pool_out");
            checkType(type);
            HostRuntime.putLong(poolOut, d.defaultPool(deviceAt(location)).handle);
        });
    }

    @Override
    public int cuMemGetMemPool(long pool, long location, int type) {
        return Api.call("cuMemGetMemPool", () -> {
            d.requireInit();
            Mem.nonNull(pool, "pool");
            checkType(type);
            HostRuntime.putLong(pool, d.currentPool(deviceAt(location)).handle);
        });
    }

    @Override
    public int cuMemSetMemPool(long location, int type, long pool) {
        return Api.call("cuMemSetMemPool", () -> {
            d.requireInit();
            checkType(type);
            int dev = deviceAt(location);
            MemoryPool p = pool(pool);
            if (p.device != dev) throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "the pool belongs to device " + p.device);
            d.setCurrentPool(dev, p);
        });
    }
}
