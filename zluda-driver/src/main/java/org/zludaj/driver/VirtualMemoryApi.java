package org.zludaj.driver;

import java.util.Map;
import java.util.TreeMap;
import org.zludaj.api.CuResult;
import org.zludaj.api.CuVirtualMemoryApi;
import org.zludaj.nativ.HostRuntime;

/**
 * Virtual memory management (CUDA's "Virtual Memory Management" group: cuMemCreate, cuMemAddressReserve, cuMemMap,
 * cuMemSetAccess ...). Physical allocations and address reservations are the backend's; this class keeps the
 * driver's view: which handle is mapped where, with which access, and the reference counts that decide when a
 * released allocation's memory goes (when it is neither held by a handle nor mapped, as NVIDIA's driver does).
 * Shareable handles (export/import) and sparse arrays are not supported.
 */
final class VirtualMemoryApi implements CuVirtualMemoryApi {
    /** CUmemAllocationType PINNED, CUmemLocationType DEVICE. */
    static final int ALLOCATION_PINNED = 1, LOCATION_DEVICE = 1;

    /** A physical allocation: the backend's token, and the CUmemAllocationProp it was created with. */
    static final class Physical {
        final long token, size;
        final int device, handleTypes;
        long handle;
        /** Handles held by the application (create, retain) plus mappings. */
        int references = 1;

        Physical(long token, long size, int device, int handleTypes) {
            this.token = token;
            this.size = size;
            this.device = device;
            this.handleTypes = handleTypes;
        }
    }

    record Mapping(long size, Physical physical, long offset, int access) {}

    /** A reserved range and its mappings by address. */
    record Reservation(long size, TreeMap<Long, Mapping> mappings) {}

    private final Driver d;

    VirtualMemoryApi(Driver d) {
        this.d = d;
    }

    /** Reads a CUmemAllocationProp: {type, requestedHandleTypes, location{type, id}, win32 metadata, flags}. */
    private int deviceOf(long prop) throws CudaException {
        Mem.nonNull(prop, "prop");
        int type = HostRuntime.getInt(prop), locType = HostRuntime.getInt(prop + 8), id = HostRuntime.getInt(prop + 12);
        if (type != ALLOCATION_PINNED) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "allocation type " + type + " (only PINNED)");
        if (locType != LOCATION_DEVICE) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "location type " + locType + " (only DEVICE)");
        if (id < 0 || id >= d.deviceCount()) throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "no device " + id);
        return id;
    }

    private long granularity() {
        return d.backend.granularity(0);
    }

    private void multiple(long value, String what) throws CudaException {
        if (value % granularity() != 0)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, what + " " + value + " is not a multiple of the granularity " + granularity());
    }

    @Override
    public int cuMemGetAllocationGranularity(long granularity, long prop, int option) {
        return Api.call("cuMemGetAllocationGranularity", () -> {
            d.requireInit();
            Mem.nonNull(granularity, "granularity");
            int dev = deviceOf(prop);
            if (option != 0 && option != 1) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "option " + option);
            HostRuntime.putLong(granularity, d.backend.granularity(dev));
        });
    }

    @Override
    public int cuMemCreate(long handle, long size, long prop, long flags) {
        return Api.call("cuMemCreate", () -> {
            d.requireInit();
            Mem.nonNull(handle, "handle");
            int dev = deviceOf(prop);
            int handleTypes = HostRuntime.getInt(prop + 4);
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            if (size == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "size 0");
            multiple(size, "size");
            if (handleTypes != 0) throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "shareable handle types " + handleTypes + " are not supported");
            Physical p = new Physical(d.backend.createPhysical(dev, size), size, dev, handleTypes);
            p.handle = d.handles.add(p);
            HostRuntime.putLong(handle, p.handle);
        });
    }

    /** A CUmemGenericAllocationHandle: 0 is an invalid value (not an invalid handle), as NVIDIA answers. */
    private Physical physical(long handle) throws CudaException {
        if (handle == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "allocation handle 0");
        return d.handles.get(handle, Physical.class);
    }

    private synchronized void unreference(Physical p) throws CudaException {
        if (--p.references == 0) {
            d.handles.remove(p.handle);
            d.backend.releasePhysical(p.token);
        }
    }

    @Override
    public int cuMemRelease(long handle) {
        return Api.call("cuMemRelease", () -> {
            d.requireInit();
            unreference(physical(handle));
        });
    }

    @Override
    public int cuMemGetAllocationPropertiesFromHandle(long prop, long handle) {
        return Api.call("cuMemGetAllocationPropertiesFromHandle", () -> {
            d.requireInit();
            Mem.nonNull(prop, "prop");
            Physical p = physical(handle);
            HostRuntime.write(prop, new byte[32], 0, 32);
            HostRuntime.putInt(prop, ALLOCATION_PINNED);
            HostRuntime.putInt(prop + 4, p.handleTypes);
            HostRuntime.putInt(prop + 8, LOCATION_DEVICE);
            HostRuntime.putInt(prop + 12, p.device);
        });
    }

    @Override
    public int cuMemAddressReserve(long ptr, long size, long alignment, long addr, long flags) {
        return Api.call("cuMemAddressReserve", () -> {
            d.requireInit();
            Mem.nonNull(ptr, "ptr");
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            if (size == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "size 0");
            multiple(size, "size");
            long align = alignment == 0 ? granularity() : alignment;
            if (Long.bitCount(align) != 1) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "alignment " + alignment + " is not a power of two");
            align = Math.max(align, granularity());
            long hint = addr % align == 0 ? addr : 0;
            long base = d.backend.reserveAddress(size, align, hint);
            synchronized (this) {
                d.reservations.put(base, new Reservation(size, new TreeMap<>()));
            }
            HostRuntime.putLong(ptr, base);
        });
    }

    @Override
    public int cuMemAddressFree(long ptr, long size) {
        return Api.call("cuMemAddressFree", () -> {
            d.requireInit();
            synchronized (this) {
                Reservation r = d.reservations.get(ptr);
                if (r == null || r.size != size)
                    throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "no reservation of " + size + " bytes at 0x" + Long.toHexString(ptr));
                if (!r.mappings.isEmpty()) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "the range is still mapped");
                d.backend.freeAddress(ptr, size);
                d.reservations.remove(ptr);
            }
        });
    }

    /** The reservation holding all of [ptr, ptr + size). */
    private Reservation reservation(long ptr, long size) throws CudaException {
        var e = d.reservations.floorEntry(ptr);
        if (e == null || size <= 0 || ptr + size > e.getKey() + e.getValue().size)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "[0x" + Long.toHexString(ptr) + ", +" + size + ") is not inside a reserved range");
        return e.getValue();
    }

    /** The mappings making up exactly [ptr, ptr + size), in order; an error if the range is not entirely mapped by them. */
    private static java.util.List<Map.Entry<Long, Mapping>> covering(Reservation r, long ptr, long size) throws CudaException {
        var list = new java.util.ArrayList<Map.Entry<Long, Mapping>>();
        long at = ptr;
        for (var e : r.mappings.subMap(ptr, true, ptr + size, false).entrySet()) {
            if (e.getKey() != at) break;
            list.add(e);
            at += e.getValue().size;
        }
        if (at != ptr + size) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "[0x" + Long.toHexString(ptr) + ", +" + size + ") is not a whole number of mappings");
        return list;
    }

    @Override
    public int cuMemMap(long ptr, long size, long offset, long handle, long flags) {
        return Api.call("cuMemMap", () -> {
            d.requireInit();
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            Physical p = physical(handle);
            // NVIDIA's driver maps whole allocations only, from offset 0: CUDA_ERROR_NOT_SUPPORTED for a part of one
            // (checked before the address range, as it does; recorded on an H200)
            if (offset != 0 || size != p.size)
                throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "cuMemMap of " + size + " bytes at offset " + offset + " of an allocation of " + p.size + " (whole allocations only)");
            synchronized (this) {
                Reservation r = reservation(ptr, size);
                var before = r.mappings.floorEntry(ptr + size - 1);
                if (before != null && before.getKey() + before.getValue().size > ptr)
                    throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "0x" + Long.toHexString(before.getKey()) + " is mapped already");
                d.backend.map(ptr, size, p.token, offset);
                p.references++;
                r.mappings.put(ptr, new Mapping(size, p, offset, 0));
                d.deviceMemory.put(ptr, size);
            }
        });
    }

    @Override
    public int cuMemUnmap(long ptr, long size) {
        return Api.call("cuMemUnmap", () -> {
            d.requireInit();
            Context c = d.current();
            if (c != null) c.drain();  // work in flight may still use the range
            synchronized (this) {
                Reservation r = reservation(ptr, size);
                var mapped = covering(r, ptr, size);
                d.backend.unmap(ptr, size);
                for (var e : mapped) {
                    r.mappings.remove(e.getKey());
                    d.deviceMemory.remove(e.getKey());
                    unreference(e.getValue().physical);
                }
            }
        });
    }

    @Override
    public int cuMemSetAccess(long ptr, long size, long desc, long count) {
        return Api.call("cuMemSetAccess", () -> {
            d.requireInit();
            Mem.nonNull(desc, "desc");
            if (count <= 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "count " + count);
            int flags = -1;
            int[] devices = new int[(int) Math.min(count, 1024)], access = new int[devices.length];
            if (count > devices.length) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "count " + count);
            for (int i = 0; i < count; i++) {  // CUmemAccessDesc {location{type, id}, flags}: 12 bytes
                long a = desc + 12L * i;
                int type = HostRuntime.getInt(a), id = HostRuntime.getInt(a + 4), f = HostRuntime.getInt(a + 8);
                if (type != LOCATION_DEVICE) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "location type " + type + " (only DEVICE)");
                if (id < 0 || id >= d.deviceCount()) throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "no device " + id);
                if (f != 0 && f != 1 && f != 3) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "access flags " + f);
                devices[i] = id;
                access[i] = f;
                flags = f;
            }
            synchronized (this) {
                Reservation r = reservation(ptr, size);
                var mapped = covering(r, ptr, size);
                for (int i = 0; i < count; i++) d.backend.setAccess(ptr, size, devices[i], access[i]);
                for (var e : mapped) {
                    Mapping m = e.getValue();
                    r.mappings.put(e.getKey(), new Mapping(m.size, m.physical, m.offset, flags));
                }
            }
        });
    }

    /** The mapping containing {@code ptr}, or null. */
    synchronized Mapping mappingAt(long ptr) {
        var r = d.reservations.floorEntry(ptr);
        if (r == null) return null;
        var m = r.getValue().mappings.floorEntry(ptr);
        return m != null && ptr < m.getKey() + m.getValue().size ? m.getValue() : null;
    }

    @Override
    public int cuMemGetAccess(long flags, long location, long ptr) {
        return Api.call("cuMemGetAccess", () -> {
            d.requireInit();
            Mem.nonNull(flags, "flags");
            Mem.nonNull(location, "location");
            int type = HostRuntime.getInt(location), id = HostRuntime.getInt(location + 4);
            if (type != LOCATION_DEVICE || id < 0 || id >= d.deviceCount())
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "location (" + type + ", " + id + ")");
            Mapping m = mappingAt(ptr);
            if (m == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "0x" + Long.toHexString(ptr) + " is not mapped");
            HostRuntime.putLong(flags, m.access);
        });
    }

    @Override
    public int cuMemRetainAllocationHandle(long handle, long addr) {
        return Api.call("cuMemRetainAllocationHandle", () -> {
            d.requireInit();
            Mem.nonNull(handle, "handle");
            synchronized (this) {
                Mapping m = mappingAt(addr);
                if (m == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "0x" + Long.toHexString(addr) + " is not mapped");
                m.physical.references++;
                HostRuntime.putLong(handle, m.physical.handle);
            }
        });
    }
}
