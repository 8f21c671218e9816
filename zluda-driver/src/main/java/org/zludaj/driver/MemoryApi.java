package org.zludaj.driver;

import java.util.List;

import org.zludaj.api.CuMemoryApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/**
 * Memory (cuMem*): allocation, copies and sets. Every copy and set runs in stream order: the synchronous forms on the
 * default stream (legacy, or the thread's for _ptds) and wait for it; the asynchronous forms return at once when the
 * host memory involved is page-locked (cuMemAllocHost/cuMemHostAlloc) and otherwise wait, as NVIDIA's do with
 * pageable memory. Frees wait for the context's work, which may still use the memory.
 */
final class MemoryApi implements CuMemoryApi {
    private final Driver d;
    private final StreamApi streams;

    MemoryApi(Driver d) {
        this.d = d;
        this.streams = new StreamApi(d);
    }

    @Override
    public int cuMemAlloc_v2(long dptr, long bytesize) {
        return Api.call("cuMemAlloc", () -> {
            Mem.nonNull(dptr, "dptr");
            Context c = d.requireUsable();
            if (bytesize == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cuMemAlloc of 0 bytes");
            long p = d.backend.allocate(c.device, bytesize);
            d.deviceMemory.put(p, bytesize);
            HostRuntime.putLong(dptr, p);
        });
    }

    /** Managed memory: on the host backend device memory is host memory already (flags ATTACH_GLOBAL or ATTACH_HOST). */
    @Override
    public int cuMemAllocManaged(long dptr, long bytesize, int flags) {
        return Api.call("cuMemAllocManaged", () -> {
            Mem.nonNull(dptr, "dptr");
            Context c = d.requireUsable();
            if (bytesize == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cuMemAllocManaged of 0 bytes");
            if (flags != 1 && flags != 2) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST");
            long p = d.backend.allocateManaged(c.device, bytesize);
            d.deviceMemory.put(p, bytesize);
            d.pinnedMemory.put(p, bytesize);  // reachable from the host too
            d.managedMemory.add(p);
            HostRuntime.putLong(dptr, p);
        });
    }

    @Override
    public int cuMemFree_v2(long dptr) {
        return Api.call("cuMemFree", () -> {
            Context c = d.requireUsable();
            if (dptr == 0) return;
            c.drain();
            MemoryPool pool = d.poolAllocations.remove(dptr);
            if (pool != null) {  // cuMemAllocAsync's memory: back to its pool once the work before is done
                pool.release(dptr);
                return;
            }
            d.backend.free(dptr);
            d.deviceMemory.remove(dptr);
            d.pinnedMemory.remove(dptr);
            d.managedMemory.remove(dptr);
            d.graphMemory.remove(dptr);
        });
    }

    @Override
    public int cuMemGetInfo_v2(long free, long total) {
        return Api.call("cuMemGetInfo", () -> {
            Context c = d.requireUsable();
            long t = d.devices().get(c.device).totalMemory();
            long used = 0;
            for (long size : d.deviceMemory.values()) used += size;
            // NULL out-parameters are skipped, as NVIDIA's driver does
            if (total != 0) HostRuntime.putLong(total, t);
            if (free != 0) HostRuntime.putLong(free, Math.max(0, t - used));
        });
    }

    @Override
    public int cuMemHostAlloc(long pp, long bytesize, int flags) {
        return Api.call("cuMemHostAlloc", () -> {
            Mem.nonNull(pp, "pp");
            Context c = d.requireUsable();
            if (bytesize == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cuMemHostAlloc of 0 bytes");
            if ((flags & ~0xF) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
            long p = d.backend.allocateHost(c.device, bytesize);
            d.pinnedMemory.put(p, bytesize);
            d.hostFlags.put(p, flags | 2);  // with unified addressing every allocation is device-mapped (NVIDIA: DEVICEMAP)
            HostRuntime.putLong(pp, p);
        });
    }

    @Override
    public int cuMemAllocHost_v2(long pp, long bytesize) {
        return cuMemHostAlloc(pp, bytesize, 0);
    }

    @Override
    public int cuMemFreeHost(long p) {
        return Api.call("cuMemFreeHost", () -> {
            d.requireUsable().drain();
            d.backend.freeHost(p);
            d.pinnedMemory.remove(p);
            d.hostFlags.remove(p);
        });
    }

    @Override
    public int cuMemHostGetDevicePointer_v2(long pdptr, long p, int flags) {
        return Api.call("cuMemHostGetDevicePointer", () -> {
            d.requireUsable();
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            Mem.putLong(pdptr, p, "pdptr");  // host and device share one address space on this backend
        });
    }

    /** How a copy's addresses are checked for asynchrony: which side is host memory. */
    private enum Kind { HTOD, DTOH, DTOD, ANY }

    /** Whether the host memory of a copy is page-locked, so that the copy may finish after the call returns. */
    private boolean asyncAllowed(Kind kind, long dst, long src) {
        boolean dstOk = switch (kind) {
            case DTOH -> Driver.within(d.pinnedMemory, dst);
            case ANY -> Driver.within(d.pinnedMemory, dst) || Driver.within(d.deviceMemory, dst);
            default -> true;
        };
        boolean srcOk = switch (kind) {
            case HTOD -> Driver.within(d.pinnedMemory, src);
            case ANY -> Driver.within(d.pinnedMemory, src) || Driver.within(d.deviceMemory, src);
            default -> true;
        };
        return dstOk && srcOk;
    }

    /** stream: -1 for the synchronous forms; ptds: the _ptds/_ptsz variant (default stream = the thread's). */
    private int copy(String name, Kind kind, long dst, long src, long bytes, long stream, boolean ptds) {
        return Api.call(name, () -> {
            Stream s = streams.resolve(stream == -1 ? 0 : stream, ptds);
            if (bytes != 0 && (dst == 0 || src == 0)) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "copy with a NULL address");
            if (stream != -1 && d.backend.submitsAsynchronously()) {
                // device to device, the stream idle: made here and offered to the shim, which makes the next such
                // copies on this stream itself (DirectCopy)
                long direct = kind == Kind.DTOD && DirectCopy.enabled() ? d.backend.directCopyFunction() : 0;
                if (direct != 0 && s.tryHere(name, () -> {
                    long queue = s.queue(d.backend);
                    d.backend.copyAsync(dst, src, bytes, queue);
                    DirectCopy.offer(direct, stream, ptds, queue);
                })) return;
                // the device stream orders it: queued from the caller where nothing is pending in ours, as a launch
                Stream.Op op = () -> d.backend.copyAsync(dst, src, bytes, Stream.runningQueue(d.backend));
                if (asyncAllowed(kind, dst, src)) s.submit(name, op, true);
                else s.run(name, op, true);  // pageable: the device runtime returns once done with the host memory
                return;
            }
            Stream.Op op = () -> d.backend.copy(dst, src, bytes);
            if (stream != -1 && asyncAllowed(kind, dst, src)) s.enqueue(name, op, null, null);
            else s.run(name, op, d.backend.submitsAsynchronously());  // synchronous: on the caller where the stream is idle
        });
    }

    @Override public int cuMemcpyHtoD_v2(long dst, long src, long n) { return copy("cuMemcpyHtoD", Kind.HTOD, dst, src, n, -1, false); }
    @Override public int cuMemcpyDtoH_v2(long dst, long src, long n) { return copy("cuMemcpyDtoH", Kind.DTOH, dst, src, n, -1, false); }
    @Override public int cuMemcpyDtoD_v2(long dst, long src, long n) { return copy("cuMemcpyDtoD", Kind.DTOD, dst, src, n, -1, false); }
    @Override public int cuMemcpy(long dst, long src, long n) { return copy("cuMemcpy", Kind.ANY, dst, src, n, -1, false); }
    @Override public int cuMemcpyHtoD_v2_ptds(long dst, long src, long n) { return copy("cuMemcpyHtoD", Kind.HTOD, dst, src, n, -1, true); }
    @Override public int cuMemcpyDtoH_v2_ptds(long dst, long src, long n) { return copy("cuMemcpyDtoH", Kind.DTOH, dst, src, n, -1, true); }
    @Override public int cuMemcpyDtoD_v2_ptds(long dst, long src, long n) { return copy("cuMemcpyDtoD", Kind.DTOD, dst, src, n, -1, true); }
    @Override public int cuMemcpy_ptds(long dst, long src, long n) { return copy("cuMemcpy", Kind.ANY, dst, src, n, -1, true); }
    @Override public int cuMemcpyAsync(long dst, long src, long n, long s) { return copy("cuMemcpyAsync", Kind.ANY, dst, src, n, s, false); }
    @Override public int cuMemcpyHtoDAsync_v2(long dst, long src, long n, long s) { return copy("cuMemcpyHtoDAsync", Kind.HTOD, dst, src, n, s, false); }
    @Override public int cuMemcpyDtoHAsync_v2(long dst, long src, long n, long s) { return copy("cuMemcpyDtoHAsync", Kind.DTOH, dst, src, n, s, false); }
    @Override public int cuMemcpyDtoDAsync_v2(long dst, long src, long n, long s) { return copy("cuMemcpyDtoDAsync", Kind.DTOD, dst, src, n, s, false); }
    @Override public int cuMemcpyAsync_ptsz(long dst, long src, long n, long s) { return copy("cuMemcpyAsync", Kind.ANY, dst, src, n, s, true); }
    @Override public int cuMemcpyHtoDAsync_v2_ptsz(long dst, long src, long n, long s) { return copy("cuMemcpyHtoDAsync", Kind.HTOD, dst, src, n, s, true); }
    @Override public int cuMemcpyDtoHAsync_v2_ptsz(long dst, long src, long n, long s) { return copy("cuMemcpyDtoHAsync", Kind.DTOH, dst, src, n, s, true); }
    @Override public int cuMemcpyDtoDAsync_v2_ptsz(long dst, long src, long n, long s) { return copy("cuMemcpyDtoDAsync", Kind.DTOD, dst, src, n, s, true); }

    private int set(String name, long dst, int width, int value, long count, long stream, boolean ptds) {
        return Api.call(name, () -> {
            Stream s = streams.resolve(stream == -1 ? 0 : stream, ptds);
            if (count != 0 && dst == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "set of a NULL address");
            boolean deviceSide = Driver.within(d.deviceMemory, dst) || Driver.within(d.pinnedMemory, dst);
            if (stream != -1 && deviceSide && d.backend.submitsAsynchronously()) {
                s.submit(name, () -> d.backend.fillAsync(dst, width, value, count, Stream.runningQueue(d.backend)), true);
                return;
            }
            Stream.Op op = () -> d.backend.fill(dst, width, value, count);
            if (stream != -1 && deviceSide) s.enqueue(name, op, null, null);
            else s.run(name, op, d.backend.submitsAsynchronously());  // synchronous: on the caller where the stream is idle
        });
    }

    @Override public int cuMemsetD8_v2(long dst, int v, long n) { return set("cuMemsetD8", dst, 1, v, n, -1, false); }
    @Override public int cuMemsetD16_v2(long dst, int v, long n) { return set("cuMemsetD16", dst, 2, v, n, -1, false); }
    @Override public int cuMemsetD32_v2(long dst, int v, long n) { return set("cuMemsetD32", dst, 4, v, n, -1, false); }
    @Override public int cuMemsetD8_v2_ptds(long dst, int v, long n) { return set("cuMemsetD8", dst, 1, v, n, -1, true); }
    @Override public int cuMemsetD16_v2_ptds(long dst, int v, long n) { return set("cuMemsetD16", dst, 2, v, n, -1, true); }
    @Override public int cuMemsetD32_v2_ptds(long dst, int v, long n) { return set("cuMemsetD32", dst, 4, v, n, -1, true); }
    @Override public int cuMemsetD8Async(long dst, int v, long n, long s) { return set("cuMemsetD8Async", dst, 1, v, n, s, false); }
    @Override public int cuMemsetD16Async(long dst, int v, long n, long s) { return set("cuMemsetD16Async", dst, 2, v, n, s, false); }
    @Override public int cuMemsetD32Async(long dst, int v, long n, long s) { return set("cuMemsetD32Async", dst, 4, v, n, s, false); }
    @Override public int cuMemsetD8Async_ptsz(long dst, int v, long n, long s) { return set("cuMemsetD8Async", dst, 1, v, n, s, true); }
    @Override public int cuMemsetD16Async_ptsz(long dst, int v, long n, long s) { return set("cuMemsetD16Async", dst, 2, v, n, s, true); }
    @Override public int cuMemsetD32Async_ptsz(long dst, int v, long n, long s) { return set("cuMemsetD32Async", dst, 4, v, n, s, true); }

    // ---- 2-D copies and sets, pitched allocations

    /** cuMemAllocPitch: rows padded to 512 bytes (NVIDIA's pitch for current GPUs); elementSize 4, 8 or 16. */
    @Override
    public int cuMemAllocPitch_v2(long dptr, long pPitch, long widthInBytes, long height, int elementSizeBytes) {
        return Api.call("cuMemAllocPitch", () -> {
            Mem.nonNull(dptr, "dptr");
            Mem.nonNull(pPitch, "pPitch");
            Context c = d.requireUsable();
            if (elementSizeBytes != 4 && elementSizeBytes != 8 && elementSizeBytes != 16)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "ElementSizeBytes must be 4, 8 or 16");
            if (widthInBytes == 0 || height == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "empty pitched allocation");
            long pitch = (widthInBytes + 511) / 512 * 512;
            long p = d.backend.allocate(c.device, pitch * height);
            d.deviceMemory.put(p, pitch * height);
            HostRuntime.putLong(dptr, p);
            HostRuntime.putLong(pPitch, pitch);
        });
    }

    /** CUDA_MEMCPY2D (cuda.h), 128 bytes: one side's fields at base 0 (source) or 56 (destination). */
    private record Side(long base, long pitch, int type) {
        static Side read(Handles handles, long p, long at, String what) throws CudaException {
            long x = HostRuntime.getLong(p + at), y = HostRuntime.getLong(p + at + 8);
            int type = HostRuntime.getInt(p + at + 16);
            long host = HostRuntime.getLong(p + at + 24), device = HostRuntime.getLong(p + at + 32);
            long array = HostRuntime.getLong(p + at + 40), pitch = HostRuntime.getLong(p + at + 48);
            long origin = switch (type) {
                case 1 -> host;                  // CU_MEMORYTYPE_HOST
                case 2, 4 -> device;             // DEVICE, UNIFIED
                case 3 -> 0;
                default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, what + " memory type " + type);
            };
            if (type == 3) {  // a CUDA array: its memory, rows of its own pitch
                CudaArray a = handles.get(array, CudaArray.class);
                return new Side(a.base + y * a.pitch() + x, a.pitch(), type);
            }
            if (origin == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, what + " address is NULL");
            return new Side(origin + y * pitch + x, pitch, type);
        }
    }

    private int copy2D(String name, long pCopy, long stream, boolean ptds) {
        return Api.call(name, () -> {
            Mem.nonNull(pCopy, "pCopy");
            Stream s = streams.resolve(stream == -1 ? 0 : stream, ptds);
            Side src = Side.read(d.handles, pCopy, 0, "source"), dst = Side.read(d.handles, pCopy, 56, "destination");
            long width = HostRuntime.getLong(pCopy + 112), height = HostRuntime.getLong(pCopy + 120);
            if (height > 1 && (width > src.pitch || width > dst.pitch))
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "WidthInBytes " + width + " exceeds a pitch");
            Stream.Op op = () -> {
                if (width != 0) d.backend.copy2D(dst.base, dst.pitch, src.base, src.pitch, width, height);
            };
            boolean pinned = (src.type != 1 || Driver.within(d.pinnedMemory, src.base)) && (dst.type != 1 || Driver.within(d.pinnedMemory, dst.base));
            if (stream != -1 && pinned) s.enqueue(name, op, null, null);
            else s.run(name, op, d.backend.submitsAsynchronously());  // synchronous: on the caller where the stream is idle
        });
    }

    @Override public int cuMemcpy2D_v2(long pCopy) { return copy2D("cuMemcpy2D", pCopy, -1, false); }
    @Override public int cuMemcpy2D_v2_ptds(long pCopy) { return copy2D("cuMemcpy2D", pCopy, -1, true); }
    @Override public int cuMemcpy2DUnaligned_v2(long pCopy) { return copy2D("cuMemcpy2DUnaligned", pCopy, -1, false); }
    @Override public int cuMemcpy2DUnaligned_v2_ptds(long pCopy) { return copy2D("cuMemcpy2DUnaligned", pCopy, -1, true); }
    @Override public int cuMemcpy2DAsync_v2(long pCopy, long s) { return copy2D("cuMemcpy2DAsync", pCopy, s, false); }
    @Override public int cuMemcpy2DAsync_v2_ptsz(long pCopy, long s) { return copy2D("cuMemcpy2DAsync", pCopy, s, true); }

    /** A CUDA_MEMCPY3D (cuda.h, 200 bytes) read and checked: the copy, and whether its host sides are page-locked. */
    record Copy3D(Stream.Op op, boolean pinned) {}

    /** One side of a CUDA_MEMCPY3D at base 0 (source) or 88 (destination): the address of its first byte, pitch, slice. */
    private record Side3D(long start, long pitch, long slice, int type) {
        static Side3D read(Handles handles, long p, long at, String what) throws CudaException {
            long x = HostRuntime.getLong(p + at), y = HostRuntime.getLong(p + at + 8), z = HostRuntime.getLong(p + at + 16);
            long lod = HostRuntime.getLong(p + at + 24);
            int type = HostRuntime.getInt(p + at + 32);
            long host = HostRuntime.getLong(p + at + 40), device = HostRuntime.getLong(p + at + 48);
            long pitch = HostRuntime.getLong(p + at + 72), height = HostRuntime.getLong(p + at + 80);
            if (type == 3) {  // a CUDA array: its memory, its own pitch and rows
                CudaArray a = handles.get(HostRuntime.getLong(p + at + 56), CudaArray.class);
                pitch = a.pitch();
                height = a.rows();
                if (lod != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, what + " LOD must be 0");
                return new Side3D(a.base + (z * height + y) * pitch + x, pitch, pitch * height, type);
            }
            long origin = switch (type) {
                case 1 -> host;
                case 2, 4 -> device;
                default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, what + " memory type " + type);
            };
            if (lod != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, what + " LOD must be 0");
            if (origin == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, what + " address is NULL");
            return new Side3D(origin + (z * height + y) * pitch + x, pitch, pitch * height, type);
        }
    }

    Copy3D read3D(long pCopy) throws CudaException {
        Mem.nonNull(pCopy, "pCopy");
        Side3D src = Side3D.read(d.handles, pCopy, 0, "source"), dst = Side3D.read(d.handles, pCopy, 88, "destination");
        long width = HostRuntime.getLong(pCopy + 176), height = HostRuntime.getLong(pCopy + 184), depth = HostRuntime.getLong(pCopy + 192);
        if ((height > 1 || depth > 1) && (width > src.pitch || width > dst.pitch))
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "WidthInBytes " + width + " exceeds a pitch");
        Stream.Op op = () -> {
            if (width == 0) return;
            for (long z = 0; z < depth; z++)  // slice by slice, each a 2-D copy
                d.backend.copy2D(dst.start + z * dst.slice, dst.pitch, src.start + z * src.slice, src.pitch, width, height);
        };
        boolean pinned = (src.type != 1 || Driver.within(d.pinnedMemory, src.start)) && (dst.type != 1 || Driver.within(d.pinnedMemory, dst.start));
        return new Copy3D(op, pinned);
    }

    private int copy3D(String name, long pCopy, long stream, boolean ptds) {
        return Api.call(name, () -> {
            Stream s = streams.resolve(stream == -1 ? 0 : stream, ptds);
            Copy3D c = read3D(pCopy);
            if (stream != -1 && c.pinned) s.enqueue(name, c.op, null, null);
            else s.run(name, c.op, d.backend.submitsAsynchronously());
        });
    }

    /**
     * CUDA_MEMCPY3D_PEER has CUDA_MEMCPY3D's layout with each side's context where CUDA_MEMCPY3D keeps a reserved
     * pointer: the contexts are checked, and the copy is the same (unified addressing reaches both devices).
     */
    private int copy3DPeer(String name, long pCopy, long stream, boolean ptds) {
        return Api.call(name, () -> {
            Mem.nonNull(pCopy, "pCopy");
            for (long at : new long[] {64, 88 + 64}) {
                long ctx = HostRuntime.getLong(pCopy + at);
                if (ctx != 0) d.handles.get(ctx, Context.class);
            }
            Stream s = streams.resolve(stream == -1 ? 0 : stream, ptds);
            Copy3D c = read3D(pCopy);
            if (stream != -1 && c.pinned) s.enqueue(name, c.op, null, null);
            else s.run(name, c.op, d.backend.submitsAsynchronously());
        });
    }

    @Override public int cuMemcpy3DPeer(long pCopy) { return copy3DPeer("cuMemcpy3DPeer", pCopy, -1, false); }
    @Override public int cuMemcpy3DPeer_ptds(long pCopy) { return copy3DPeer("cuMemcpy3DPeer", pCopy, -1, true); }
    @Override public int cuMemcpy3DPeerAsync(long pCopy, long s) { return copy3DPeer("cuMemcpy3DPeerAsync", pCopy, s, false); }
    @Override public int cuMemcpy3DPeerAsync_ptsz(long pCopy, long s) { return copy3DPeer("cuMemcpy3DPeerAsync", pCopy, s, true); }

    @Override public int cuMemcpy3D_v2(long pCopy) { return copy3D("cuMemcpy3D", pCopy, -1, false); }
    @Override public int cuMemcpy3D_v2_ptds(long pCopy) { return copy3D("cuMemcpy3D", pCopy, -1, true); }
    @Override public int cuMemcpy3DAsync_v2(long pCopy, long s) { return copy3D("cuMemcpy3DAsync", pCopy, s, false); }
    @Override public int cuMemcpy3DAsync_v2_ptsz(long pCopy, long s) { return copy3D("cuMemcpy3DAsync", pCopy, s, true); }

    // ---- CUDA arrays (linear memory on every backend here; textures and surfaces over them: TextureApi)

    private long createArray(long pHandle, long w, long h, long depth, int format, int channels, int flags) throws CudaException {
        Mem.nonNull(pHandle, "pHandle");
        Context c = d.requireUsable();
        CudaArray.check(w, h, depth, format, channels);
        int known = TextureApi.ARRAY_LAYERED | TextureApi.ARRAY_SURFACE_LDST | TextureApi.ARRAY_TEXTURE_GATHER;
        if ((flags & ~known) != 0) throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "array flags 0x" + Integer.toHexString(flags) + " (cubemap, depth, sparse ...)");
        if ((flags & TextureApi.ARRAY_LAYERED) != 0 && depth == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "a layered array needs Depth layers");
        long bytes = w * CudaArray.formatBytes(format) * channels * Math.max(1, h) * Math.max(1, depth);
        CudaArray a = new CudaArray(w, h, depth, format, channels, flags, d.backend.allocate(c.device, bytes));
        HostRuntime.putLong(pHandle, d.handles.add(a));
        return a.base;
    }

    /** CUDA_ARRAY_DESCRIPTOR {Width, Height, Format, NumChannels}. */
    @Override
    public int cuArrayCreate_v2(long pHandle, long desc) {
        return Api.call("cuArrayCreate", () -> {
            Mem.nonNull(desc, "pAllocateArray");
            createArray(pHandle, HostRuntime.getLong(desc), HostRuntime.getLong(desc + 8), 0, HostRuntime.getInt(desc + 16),
                    HostRuntime.getInt(desc + 20), 0);
        });
    }

    /** CUDA_ARRAY3D_DESCRIPTOR {Width, Height, Depth, Format, NumChannels, Flags}. */
    @Override
    public int cuArray3DCreate_v2(long pHandle, long desc) {
        return Api.call("cuArray3DCreate", () -> {
            Mem.nonNull(desc, "pAllocateArray");
            createArray(pHandle, HostRuntime.getLong(desc), HostRuntime.getLong(desc + 8), HostRuntime.getLong(desc + 16),
                    HostRuntime.getInt(desc + 24), HostRuntime.getInt(desc + 28), HostRuntime.getInt(desc + 32));
        });
    }

    @Override
    public int cuArrayGetDescriptor_v2(long desc, long hArray) {
        return Api.call("cuArrayGetDescriptor", () -> {
            CudaArray a = d.handles.get(hArray, CudaArray.class);
            Mem.nonNull(desc, "pArrayDescriptor");
            HostRuntime.putLong(desc, a.width);
            HostRuntime.putLong(desc + 8, a.height);
            HostRuntime.putInt(desc + 16, a.format);
            HostRuntime.putInt(desc + 20, a.channels);
        });
    }

    @Override
    public int cuArray3DGetDescriptor_v2(long desc, long hArray) {
        return Api.call("cuArray3DGetDescriptor", () -> {
            CudaArray a = d.handles.get(hArray, CudaArray.class);
            Mem.nonNull(desc, "pArrayDescriptor");
            HostRuntime.putLong(desc, a.width);
            HostRuntime.putLong(desc + 8, a.height);
            HostRuntime.putLong(desc + 16, a.depth);
            HostRuntime.putInt(desc + 24, a.format);
            HostRuntime.putInt(desc + 28, a.channels);
            HostRuntime.putInt(desc + 32, a.flags);
        });
    }

    @Override
    public int cuArrayDestroy(long hArray) {
        return Api.call("cuArrayDestroy", () -> {
            CudaArray a = d.handles.get(hArray, CudaArray.class);
            d.requireUsable().drain();
            d.backend.free(a.base);
            d.handles.remove(hArray);
        });
    }

    /** An array's byte range [offset, offset + n) for the copies by offset, checked. */
    private long arrayAt(long hArray, long offset, long n) throws CudaException {
        CudaArray a = d.handles.get(hArray, CudaArray.class);
        // NVIDIA (recorded on an H200): by byte offset, a 2-D or 3-D array is reachable only within its first row
        long limit = a.height > 0 || a.depth > 0 ? a.pitch() : a.bytes();
        if (offset < 0 || n < 0 || offset + n > limit)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "[" + offset + ", +" + n + ") is outside the array's " + limit + " bytes reachable by offset");
        return a.base + offset;
    }

    private int arrayCopy(String name, java.util.concurrent.Callable<long[]> ends, long n, long stream, boolean ptds) {
        return Api.call(name, () -> {
            long[] dstSrc;
            try {
                dstSrc = ends.call();
            } catch (CudaException e) {
                throw e;
            } catch (Exception e) {
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, e.toString());
            }
            Stream s = streams.resolve(stream == -1 ? 0 : stream, ptds);
            if (dstSrc[0] == 0 || dstSrc[1] == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "copy with a NULL address");
            Stream.Op op = () -> d.backend.copy(dstSrc[0], dstSrc[1], n);
            boolean pinned = Driver.within(d.pinnedMemory, dstSrc[0]) || Driver.within(d.pinnedMemory, dstSrc[1]);
            if (stream != -1 && pinned) s.enqueue(name, op, null, null);
            else s.run(name, op, d.backend.submitsAsynchronously());  // synchronous: on the caller where the stream is idle
        });
    }

    @Override public int cuMemcpyHtoA_v2(long dstArray, long dstOffset, long src, long n) { return arrayCopy("cuMemcpyHtoA", () -> new long[] {arrayAt(dstArray, dstOffset, n), src}, n, -1, false); }
    @Override public int cuMemcpyHtoA_v2_ptds(long dstArray, long dstOffset, long src, long n) { return arrayCopy("cuMemcpyHtoA", () -> new long[] {arrayAt(dstArray, dstOffset, n), src}, n, -1, true); }
    @Override public int cuMemcpyAtoH_v2(long dst, long srcArray, long srcOffset, long n) { return arrayCopy("cuMemcpyAtoH", () -> new long[] {dst, arrayAt(srcArray, srcOffset, n)}, n, -1, false); }
    @Override public int cuMemcpyAtoH_v2_ptds(long dst, long srcArray, long srcOffset, long n) { return arrayCopy("cuMemcpyAtoH", () -> new long[] {dst, arrayAt(srcArray, srcOffset, n)}, n, -1, true); }
    @Override public int cuMemcpyDtoA_v2(long dstArray, long dstOffset, long src, long n) { return arrayCopy("cuMemcpyDtoA", () -> new long[] {arrayAt(dstArray, dstOffset, n), src}, n, -1, false); }
    @Override public int cuMemcpyDtoA_v2_ptds(long dstArray, long dstOffset, long src, long n) { return arrayCopy("cuMemcpyDtoA", () -> new long[] {arrayAt(dstArray, dstOffset, n), src}, n, -1, true); }
    @Override public int cuMemcpyAtoD_v2(long dst, long srcArray, long srcOffset, long n) { return arrayCopy("cuMemcpyAtoD", () -> new long[] {dst, arrayAt(srcArray, srcOffset, n)}, n, -1, false); }
    @Override public int cuMemcpyAtoD_v2_ptds(long dst, long srcArray, long srcOffset, long n) { return arrayCopy("cuMemcpyAtoD", () -> new long[] {dst, arrayAt(srcArray, srcOffset, n)}, n, -1, true); }
    @Override public int cuMemcpyAtoA_v2(long dstArray, long dstOffset, long srcArray, long srcOffset, long n) { return arrayCopy("cuMemcpyAtoA", () -> new long[] {arrayAt(dstArray, dstOffset, n), arrayAt(srcArray, srcOffset, n)}, n, -1, false); }
    @Override public int cuMemcpyAtoA_v2_ptds(long dstArray, long dstOffset, long srcArray, long srcOffset, long n) { return arrayCopy("cuMemcpyAtoA", () -> new long[] {arrayAt(dstArray, dstOffset, n), arrayAt(srcArray, srcOffset, n)}, n, -1, true); }
    @Override public int cuMemcpyHtoAAsync_v2(long dstArray, long dstOffset, long src, long n, long s) { return arrayCopy("cuMemcpyHtoAAsync", () -> new long[] {arrayAt(dstArray, dstOffset, n), src}, n, s, false); }
    @Override public int cuMemcpyHtoAAsync_v2_ptsz(long dstArray, long dstOffset, long src, long n, long s) { return arrayCopy("cuMemcpyHtoAAsync", () -> new long[] {arrayAt(dstArray, dstOffset, n), src}, n, s, true); }
    @Override public int cuMemcpyAtoHAsync_v2(long dst, long srcArray, long srcOffset, long n, long s) { return arrayCopy("cuMemcpyAtoHAsync", () -> new long[] {dst, arrayAt(srcArray, srcOffset, n)}, n, s, false); }
    @Override public int cuMemcpyAtoHAsync_v2_ptsz(long dst, long srcArray, long srcOffset, long n, long s) { return arrayCopy("cuMemcpyAtoHAsync", () -> new long[] {dst, arrayAt(srcArray, srcOffset, n)}, n, s, true); }

    private int set2D(String name, long dst, long pitch, int width, int value, long w, long h, long stream, boolean ptds) {
        return Api.call(name, () -> {
            Stream s = streams.resolve(stream == -1 ? 0 : stream, ptds);
            if (dst == 0 && w != 0 && h != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "set of a NULL address");
            if (h > 1 && w * width > pitch) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "Width exceeds dstPitch");
            Stream.Op op = () -> {
                for (long y = 0; y < h; y++) d.backend.fill(dst + y * pitch, width, value, w);
            };
            if (stream != -1 && (Driver.within(d.deviceMemory, dst) || Driver.within(d.pinnedMemory, dst))) s.enqueue(name, op, null, null);
            else s.run(name, op, d.backend.submitsAsynchronously());  // synchronous: on the caller where the stream is idle
        });
    }

    @Override public int cuMemsetD2D8_v2(long dst, long pitch, int v, long w, long h) { return set2D("cuMemsetD2D8", dst, pitch, 1, v, w, h, -1, false); }
    @Override public int cuMemsetD2D16_v2(long dst, long pitch, int v, long w, long h) { return set2D("cuMemsetD2D16", dst, pitch, 2, v, w, h, -1, false); }
    @Override public int cuMemsetD2D32_v2(long dst, long pitch, int v, long w, long h) { return set2D("cuMemsetD2D32", dst, pitch, 4, v, w, h, -1, false); }
    @Override public int cuMemsetD2D8_v2_ptds(long dst, long pitch, int v, long w, long h) { return set2D("cuMemsetD2D8", dst, pitch, 1, v, w, h, -1, true); }
    @Override public int cuMemsetD2D16_v2_ptds(long dst, long pitch, int v, long w, long h) { return set2D("cuMemsetD2D16", dst, pitch, 2, v, w, h, -1, true); }
    @Override public int cuMemsetD2D32_v2_ptds(long dst, long pitch, int v, long w, long h) { return set2D("cuMemsetD2D32", dst, pitch, 4, v, w, h, -1, true); }
    @Override public int cuMemsetD2D8Async(long dst, long pitch, int v, long w, long h, long s) { return set2D("cuMemsetD2D8Async", dst, pitch, 1, v, w, h, s, false); }
    @Override public int cuMemsetD2D16Async(long dst, long pitch, int v, long w, long h, long s) { return set2D("cuMemsetD2D16Async", dst, pitch, 2, v, w, h, s, false); }
    @Override public int cuMemsetD2D32Async(long dst, long pitch, int v, long w, long h, long s) { return set2D("cuMemsetD2D32Async", dst, pitch, 4, v, w, h, s, false); }
    @Override public int cuMemsetD2D8Async_ptsz(long dst, long pitch, int v, long w, long h, long s) { return set2D("cuMemsetD2D8Async", dst, pitch, 1, v, w, h, s, true); }
    @Override public int cuMemsetD2D16Async_ptsz(long dst, long pitch, int v, long w, long h, long s) { return set2D("cuMemsetD2D16Async", dst, pitch, 2, v, w, h, s, true); }
    @Override public int cuMemsetD2D32Async_ptsz(long dst, long pitch, int v, long w, long h, long s) { return set2D("cuMemsetD2D32Async", dst, pitch, 4, v, w, h, s, true); }

    // ---- registered host memory, address ranges, pointer attributes

    /**
     * cuMemHostRegister: the range becomes page-locked memory the device can use at the same address (every host
     * address is one on this backend); ranges may not overlap a registration.
     */
    @Override
    public int cuMemHostRegister_v2(long p, long bytesize, int flags) {
        return Api.call("cuMemHostRegister", () -> {
            d.requireUsable();
            if (p == 0 || bytesize == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "empty or NULL range");
            if ((flags & ~0xF) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
            var before = d.pinnedMemory.floorEntry(p + bytesize - 1);
            if (before != null && before.getKey() + before.getValue() > p)
                throw new CudaException(CuResult.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "range overlaps page-locked memory");
            d.pinnedMemory.put(p, bytesize);
            d.hostFlags.put(p, flags | 2);  // device-mapped, as with unified addressing on NVIDIA
            d.registeredMemory.add(p);
        });
    }

    @Override
    public int cuMemHostUnregister(long p) {
        return Api.call("cuMemHostUnregister", () -> {
            Context c = d.requireUsable();
            if (!d.registeredMemory.contains(p))
                throw new CudaException(CuResult.CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "not the start of a registered range");
            c.drain();
            d.registeredMemory.remove(p);
            d.pinnedMemory.remove(p);
            d.hostFlags.remove(p);
        });
    }

    @Override
    public int cuMemHostGetFlags(long pFlags, long p) {
        return Api.call("cuMemHostGetFlags", () -> {
            d.requireUsable();
            var e = Driver.allocationOf(d.pinnedMemory, p);
            Integer flags = e == null ? null : d.hostFlags.get(e.getKey());
            if (flags == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not page-locked host memory");
            Mem.putInt(pFlags, flags, "pFlags");
        });
    }

    @Override
    public int cuMemGetAddressRange_v2(long pbase, long psize, long dptr) {
        return Api.call("cuMemGetAddressRange", () -> {
            d.requireUsable();
            var e = Driver.allocationOf(d.deviceMemory, dptr);
            if (e == null) throw new CudaException(CuResult.CUDA_ERROR_NOT_FOUND, "0x" + Long.toHexString(dptr) + " is in no allocation");
            if (pbase != 0) HostRuntime.putLong(pbase, e.getKey());
            if (psize != 0) HostRuntime.putLong(psize, e.getValue());
        });
    }

    /** What the driver knows of an address: the allocation, device or page-locked host memory, managed. */
    private record Pointer(long base, long size, boolean device, boolean managed) {}

    private Pointer pointer(long ptr) {
        var dev = Driver.allocationOf(d.deviceMemory, ptr);
        if (dev != null) return new Pointer(dev.getKey(), dev.getValue(), true, d.managedMemory.contains(dev.getKey()));
        var host = Driver.allocationOf(d.pinnedMemory, ptr);
        if (host != null) return new Pointer(host.getKey(), host.getValue(), false, false);
        return null;
    }

    /** Writes one CUpointer_attribute of ptr to data; false when the attribute is unknown or unsupported. */
    private boolean pointerAttribute(long data, int attribute, long ptr, Pointer p, Context c) throws CudaException {
        switch (attribute) {
            case 1 -> HostRuntime.putLong(data, c.handle);                      // CONTEXT
            case 2 -> HostRuntime.putInt(data, p.device ? 2 : 1);               // MEMORY_TYPE: DEVICE / HOST
            case 3, 4 -> HostRuntime.putLong(data, ptr);                        // DEVICE_POINTER, HOST_POINTER: one address space
            case 6 -> HostRuntime.putInt(data, 1);                              // SYNC_MEMOPS
            case 7 -> HostRuntime.putLong(data, p.base);                        // BUFFER_ID: the allocation's base, unique while it lives
            case 8 -> HostRuntime.putInt(data, p.managed ? 1 : 0);              // IS_MANAGED
            case 9 -> HostRuntime.putInt(data, c.device);                       // DEVICE_ORDINAL
            case 10, 15 -> HostRuntime.putInt(data, 0);                         // IPC / GPUDirect RDMA capable
            case 11 -> HostRuntime.putLong(data, p.base);                       // RANGE_START_ADDR
            case 12 -> HostRuntime.putLong(data, p.size);                       // RANGE_SIZE
            case 13 -> HostRuntime.putInt(data, 1);                             // MAPPED
            case 14 -> HostRuntime.putLong(data, 0);                            // ALLOWED_HANDLE_TYPES
            case 16 -> HostRuntime.putInt(data, 3);                             // ACCESS_FLAGS: read and write
            case 17 -> {                                                        // MEMPOOL_HANDLE
                MemoryPool pool = d.poolAllocations.get(p.base);
                HostRuntime.putLong(data, pool == null ? 0 : pool.handle);
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    @Override
    public int cuPointerGetAttribute(long data, int attribute, long ptr) {
        return Api.call("cuPointerGetAttribute", () -> {
            Context c = d.requireUsable();
            Mem.nonNull(data, "data");
            Pointer p = pointer(ptr);
            if (p == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "0x" + Long.toHexString(ptr) + " is not memory of this driver");
            if (attribute == 4 && p.device && !p.managed)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "HOST_POINTER of device memory");
            if (!pointerAttribute(data, attribute, ptr, p, c))
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "pointer attribute " + attribute);
        });
    }

    /** cuPointerGetAttributes: unknown pointers are not an error; their attributes read as 0 (MEMORY_TYPE 0). */
    @Override
    public int cuPointerGetAttributes(int numAttributes, long attributes, long data, long ptr) {
        return Api.call("cuPointerGetAttributes", () -> {
            Context c = d.requireUsable();
            Mem.nonNull(attributes, "attributes");
            Mem.nonNull(data, "data");
            Pointer p = pointer(ptr);
            for (int i = 0; i < numAttributes; i++) {
                int a = HostRuntime.getInt(attributes + 4L * i);
                long slot = HostRuntime.getLong(data + 8L * i);
                if (slot == 0) continue;
                if (p == null) {
                    if (a == 1 || a == 3 || a == 4 || a == 7 || a == 11 || a == 12 || a == 14 || a == 17) HostRuntime.putLong(slot, 0);
                    else HostRuntime.putInt(slot, a == 9 ? -2 : 0);  // DEVICE_ORDINAL of unknown memory: -2, as NVIDIA
                } else if (!pointerAttribute(slot, a, ptr, p, c)) {
                    throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "pointer attribute " + a);
                }
            }
        });
    }

    // ---- peer copies (one device: the same copy between two contexts), managed-memory hints

    private int peer(String name, long dst, long dstCtx, long src, long srcCtx, long bytes, long stream, boolean ptds) {
        return Api.call(name, () -> {
            d.handles.get(dstCtx, Context.class);
            d.handles.get(srcCtx, Context.class);
            Stream s = streams.resolve(stream == -1 ? 0 : stream, ptds);
            if (bytes != 0 && (dst == 0 || src == 0)) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "copy with a NULL address");
            Stream.Op op = () -> d.backend.copy(dst, src, bytes);
            if (stream != -1) s.enqueue(name, op, null, null);
            else s.run(name, op, d.backend.submitsAsynchronously());  // synchronous: on the caller where the stream is idle
        });
    }

    @Override public int cuMemcpyPeer(long dst, long dstCtx, long src, long srcCtx, long n) { return peer("cuMemcpyPeer", dst, dstCtx, src, srcCtx, n, -1, false); }
    @Override public int cuMemcpyPeer_ptds(long dst, long dstCtx, long src, long srcCtx, long n) { return peer("cuMemcpyPeer", dst, dstCtx, src, srcCtx, n, -1, true); }
    @Override public int cuMemcpyPeerAsync(long dst, long dstCtx, long src, long srcCtx, long n, long s) { return peer("cuMemcpyPeerAsync", dst, dstCtx, src, srcCtx, n, s, false); }
    @Override public int cuMemcpyPeerAsync_ptsz(long dst, long dstCtx, long src, long srcCtx, long n, long s) { return peer("cuMemcpyPeerAsync", dst, dstCtx, src, srcCtx, n, s, true); }

    /** Managed memory is host memory the device uses in place: prefetching moves nothing, but is ordered and checked. */
    @Override
    public int cuMemPrefetchAsync_v2(long devPtr, long count, long location, int flags, long hStream) {
        return prefetch(devPtr, count, flags, hStream, false);
    }

    @Override
    public int cuMemPrefetchAsync_v2_ptsz(long devPtr, long count, long location, int flags, long hStream) {
        return prefetch(devPtr, count, flags, hStream, true);
    }

    /** The CUDA 8 form: a device ordinal or CU_DEVICE_CPU (-1). */
    @Override
    public int cuMemPrefetchAsync(long devPtr, long count, int dstDevice, long hStream) {
        return prefetch(devPtr, count, 0, hStream, false);
    }

    @Override
    public int cuMemPrefetchAsync_ptsz(long devPtr, long count, int dstDevice, long hStream) {
        return prefetch(devPtr, count, 0, hStream, true);
    }

    private int prefetch(long devPtr, long count, int flags, long hStream, boolean ptsz) {
        return Api.call("cuMemPrefetchAsync", () -> {
            Stream s = streams.resolve(hStream, ptsz);
            var e = Driver.allocationOf(d.deviceMemory, devPtr);
            if (e == null || !d.managedMemory.contains(e.getKey()) || devPtr + count > e.getKey() + e.getValue())
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a range of managed memory");
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            s.enqueue("cuMemPrefetchAsync", () -> {}, null, null);
        });
    }

    /** The CUDA 8 form (a device ordinal, or CU_DEVICE_CPU): the same hints. */
    @Override
    public int cuMemAdvise(long devPtr, long count, int advice, int device) {
        return Api.call("cuMemAdvise", () -> {
            if (device != -1) d.checkDevice(device);
            advise(devPtr, count, advice);
        });
    }

    private void advise(long devPtr, long count, int advice) throws CudaException {
        d.requireUsable();
        var e = Driver.allocationOf(d.deviceMemory, devPtr);
        if (e == null || !d.managedMemory.contains(e.getKey()) || devPtr + count > e.getKey() + e.getValue())
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a range of managed memory");
        if (advice < 1 || advice > 6) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "advice " + advice);
    }

    @Override
    public int cuMemAdvise_v2(long devPtr, long count, int advice, long location) {
        return Api.call("cuMemAdvise", () -> advise(devPtr, count, advice));
    }

    // ---- batched copies and memory hints (CUDA 12.8/13)

    /**
     * count copies, each of sizes[i] bytes from srcs[i] to dsts[i], in stream order (not on the legacy stream, as
     * NVIDIA requires). The attributes (access order and location hints) only describe the copies: checked, then
     * nothing more to do here.
     */
    private int batchCopy(long dsts, long srcs, long sizes, long count, long attrs, long attrsIdxs, long numAttrs, long failIdx,
                          long hStream, boolean ptsz) {
        return Api.call("cuMemcpyBatchAsync", () -> {
            if (failIdx != 0) HostRuntime.putLong(failIdx, -1L);  // SIZE_MAX: not a particular copy
            if (count == 0 || hStream == 0 || hStream == 1) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, count == 0 ? "no copies" : "the legacy stream");
            Mem.nonNull(dsts, "dsts");
            Mem.nonNull(srcs, "srcs");
            Mem.nonNull(sizes, "sizes");
            if (numAttrs < 1 || numAttrs > count) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "numAttrs " + numAttrs);
            Mem.nonNull(attrs, "attrs");
            Mem.nonNull(attrsIdxs, "attrsIdxs");
            if (HostRuntime.getLong(attrsIdxs) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "attrsIdxs[0] must be 0");
            Stream s = streams.resolve(hStream, ptsz);
            long[][] copies = new long[(int) count][3];
            for (int i = 0; i < count; i++) {
                copies[i] = new long[] {HostRuntime.getLong(dsts + 8L * i), HostRuntime.getLong(srcs + 8L * i), HostRuntime.getLong(sizes + 8L * i)};
                if (copies[i][2] > 0 && (copies[i][0] == 0 || copies[i][1] == 0)) {
                    if (failIdx != 0) HostRuntime.putLong(failIdx, i);
                    throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "copy " + i + " has a null address");
                }
            }
            s.enqueue("cuMemcpyBatchAsync", () -> {
                for (long[] c : copies) if (c[2] > 0) d.backend.copy(c[0], c[1], c[2]);
            }, null, null);
        });
    }

    @Override
    public int cuMemcpyBatchAsync(long dsts, long srcs, long sizes, long count, long attrs, long attrsIdxs, long numAttrs, long failIdx, long s) {
        return batchCopy(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, s, false);
    }

    @Override
    public int cuMemcpyBatchAsync_ptsz(long dsts, long srcs, long sizes, long count, long attrs, long attrsIdxs, long numAttrs, long failIdx, long s) {
        return batchCopy(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, s, true);
    }

    @Override
    public int cuMemcpyBatchAsync_v2(long dsts, long srcs, long sizes, long count, long attrs, long attrsIdxs, long numAttrs, long s) {
        return batchCopy(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, 0, s, false);
    }

    @Override
    public int cuMemcpyBatchAsync_v2_ptsz(long dsts, long srcs, long sizes, long count, long attrs, long attrsIdxs, long numAttrs, long s) {
        return batchCopy(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, 0, s, true);
    }

    /**
     * Prefetching and discarding ranges of managed memory: hints where all memory is reachable from host and device
     * alike (their contents after a discard are undefined, which keeping them satisfies). Checked and ordered in the
     * stream.
     */
    private int batchHint(String name, long dptrs, long sizes, long count, long flags, long hStream, boolean ptsz) {
        return Api.call(name, () -> {
            if (count == 0 || flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, count == 0 ? "no ranges" : "flags must be 0");
            Mem.nonNull(dptrs, "dptrs");
            Mem.nonNull(sizes, "sizes");
            Stream s = streams.resolve(hStream, ptsz);
            for (int i = 0; i < count; i++) {
                long p = HostRuntime.getLong(dptrs + 8L * i), n = HostRuntime.getLong(sizes + 8L * i);
                var e = Driver.allocationOf(d.deviceMemory, p);
                if (e == null || !d.managedMemory.contains(e.getKey()) || p + n > e.getKey() + e.getValue())
                    throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "range " + i + " is not managed memory");
            }
            s.enqueue(name, () -> {}, null, null);
        });
    }

    @Override
    public int cuMemPrefetchBatchAsync(long dptrs, long sizes, long count, long locs, long locIdxs, long numLocs, long flags, long s) {
        return batchHint("cuMemPrefetchBatchAsync", dptrs, sizes, count, flags, s, false);
    }

    @Override
    public int cuMemPrefetchBatchAsync_ptsz(long dptrs, long sizes, long count, long locs, long locIdxs, long numLocs, long flags, long s) {
        return batchHint("cuMemPrefetchBatchAsync", dptrs, sizes, count, flags, s, true);
    }

    @Override
    public int cuMemDiscardBatchAsync(long dptrs, long sizes, long count, long flags, long s) {
        return batchHint("cuMemDiscardBatchAsync", dptrs, sizes, count, flags, s, false);
    }

    @Override
    public int cuMemDiscardBatchAsync_ptsz(long dptrs, long sizes, long count, long flags, long s) {
        return batchHint("cuMemDiscardBatchAsync", dptrs, sizes, count, flags, s, true);
    }

    @Override
    public int cuMemDiscardAndPrefetchBatchAsync(long dptrs, long sizes, long count, long locs, long locIdxs, long numLocs, long flags, long s) {
        return batchHint("cuMemDiscardAndPrefetchBatchAsync", dptrs, sizes, count, flags, s, false);
    }

    @Override
    public int cuMemDiscardAndPrefetchBatchAsync_ptsz(long dptrs, long sizes, long count, long locs, long locIdxs, long numLocs, long flags, long s) {
        return batchHint("cuMemDiscardAndPrefetchBatchAsync", dptrs, sizes, count, flags, s, true);
    }

    /** The first ABI of cuMemHostRegister has the same arguments. (The other first-ABI memory functions take 32-bit
     * device addresses and sizes, which no allocation here fits: they answer CUDA_ERROR_NOT_SUPPORTED.) */
    @Override
    public int cuMemHostRegister(long p, long bytesize, int flags) {
        return cuMemHostRegister_v2(p, bytesize, flags);
    }

    /** One side of a 3-D batched copy (CUmemcpy3DOperand, 40 bytes): its start, row pitch and slice pitch in bytes. */
    private record Operand3D(long start, long pitch, long slice, CudaArray array) {}

    /**
     * CUmemcpy3DOperand: type 1 POINTER {ptr, rowLength, layerHeight, locHint} (lengths in elements, 0: the copy's
     * own), type 2 ARRAY {array, offset x, y, z in elements}.
     */
    private Operand3D operand3D(long p, long width, long height, int element) throws CudaException {
        int type = HostRuntime.getInt(p);
        long u = p + 8;
        if (type == 1) {
            long ptr = HostRuntime.getLong(u), row = HostRuntime.getLong(u + 8), layer = HostRuntime.getLong(u + 16);
            if (ptr == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "a NULL pointer operand");
            long pitch = (row == 0 ? width : row) * element;
            return new Operand3D(ptr, pitch, pitch * (layer == 0 ? height : layer), null);
        }
        if (type == 2) {
            CudaArray a = d.handles.get(HostRuntime.getLong(u), CudaArray.class);
            long x = HostRuntime.getLong(u + 8), y = HostRuntime.getLong(u + 16), z = HostRuntime.getLong(u + 24);
            long slice = a.pitch() * a.rows();
            return new Operand3D(a.base + x * CudaArray.formatBytes(a.format) * a.channels + y * a.pitch() + z * slice, a.pitch(), slice, a);
        }
        throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "operand type " + type);
    }

    /**
     * numOps copies, each CUDA_MEMCPY3D_BATCH_OP {src, dst (CUmemcpy3DOperand), extent (elements: bytes between
     * pointers, the array's texels otherwise), srcAccessOrder, flags}, in stream order as one operation.
     */
    private int batch3D(long numOps, long ops, long failIdx, long flags, long hStream, boolean ptsz) {
        return Api.call("cuMemcpy3DBatchAsync", () -> {
            if (failIdx != 0) HostRuntime.putLong(failIdx, -1L);
            if (numOps == 0 || flags != 0 || hStream == 0 || hStream == 1)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, numOps == 0 ? "no copies" : flags != 0 ? "flags must be 0" : "the legacy stream");
            Mem.nonNull(ops, "opList");
            Stream s = streams.resolve(hStream, ptsz);
            java.util.List<long[]> copies = new java.util.ArrayList<>();
            for (int i = 0; i < numOps; i++) {
                long op = ops + 112L * i;
                try {
                    long w = HostRuntime.getLong(op + 80), h = HostRuntime.getLong(op + 88), depth = HostRuntime.getLong(op + 96);
                    if (w == 0 || h == 0 || depth == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "a zero extent");
                    int srcType = HostRuntime.getInt(op), dstType = HostRuntime.getInt(op + 40);
                    int element = 1;
                    for (long side : new long[] {op, op + 40}) {
                        if (HostRuntime.getInt(side) == 2) {
                            CudaArray a = d.handles.get(HostRuntime.getLong(side + 8), CudaArray.class);
                            int e = CudaArray.formatBytes(a.format) * a.channels;
                            if (srcType == 2 && dstType == 2 && element != 1 && e != element)
                                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "arrays of different element sizes");
                            element = e;
                        }
                    }
                    Operand3D src = operand3D(op, w, h, element), dst = operand3D(op + 40, w, h, element);
                    copies.add(new long[] {dst.start(), dst.pitch(), dst.slice(), src.start(), src.pitch(), src.slice(), w * element, h, depth});
                } catch (CudaException e) {
                    if (failIdx != 0) HostRuntime.putLong(failIdx, i);
                    throw e;
                }
            }
            s.enqueue("cuMemcpy3DBatchAsync", () -> {
                for (long[] c : copies)
                    for (long z = 0; z < c[8]; z++) d.backend.copy2D(c[0] + z * c[2], c[1], c[3] + z * c[5], c[4], c[6], c[7]);
            }, null, null);
        });
    }

    @Override public int cuMemcpy3DBatchAsync(long n, long ops, long failIdx, long flags, long s) { return batch3D(n, ops, failIdx, flags, s, false); }
    @Override public int cuMemcpy3DBatchAsync_ptsz(long n, long ops, long failIdx, long flags, long s) { return batch3D(n, ops, failIdx, flags, s, true); }
    @Override public int cuMemcpy3DBatchAsync_v2(long n, long ops, long flags, long s) { return batch3D(n, ops, 0, flags, s, false); }
    @Override public int cuMemcpy3DBatchAsync_v2_ptsz(long n, long ops, long flags, long s) { return batch3D(n, ops, 0, flags, s, true); }

    // ---- mipmapped arrays: a CUDA array per level (extents halved, at least 1; layers kept)

    /** A CUmipmappedArray: its levels' arrays and their handles. */
    record MipmappedArray(List<CudaArray> levels, List<Long> handles) {}

    @Override
    public int cuMipmappedArrayCreate(long pHandle, long desc, int numLevels) {
        return Api.call("cuMipmappedArrayCreate", () -> {
            Mem.nonNull(pHandle, "pHandle");
            Mem.nonNull(desc, "pMipmappedArrayDesc");
            Context c = d.requireUsable();
            long w = HostRuntime.getLong(desc), h = HostRuntime.getLong(desc + 8), depth = HostRuntime.getLong(desc + 16);
            int format = HostRuntime.getInt(desc + 24), channels = HostRuntime.getInt(desc + 28), flags = HostRuntime.getInt(desc + 32);
            CudaArray.check(w, h, depth, format, channels);
            boolean layered = (flags & TextureApi.ARRAY_LAYERED) != 0;
            int most = 64 - Long.numberOfLeadingZeros(Math.max(w, Math.max(h, layered ? 1 : depth)));
            if (numLevels < 1 || numLevels > most)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, numLevels + " levels for " + w + "x" + h + "x" + depth + " (at most " + most + ")");
            int known = TextureApi.ARRAY_LAYERED | TextureApi.ARRAY_SURFACE_LDST | TextureApi.ARRAY_TEXTURE_GATHER;
            if ((flags & ~known) != 0) throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "array flags 0x" + Integer.toHexString(flags));
            List<CudaArray> levels = new java.util.ArrayList<>();
            List<Long> handles = new java.util.ArrayList<>();
            for (int k = 0; k < numLevels; k++) {
                long lw = Math.max(1, w >> k), lh = h == 0 ? 0 : Math.max(1, h >> k), ld = layered || depth == 0 ? depth : Math.max(1, depth >> k);
                long bytes = lw * CudaArray.formatBytes(format) * channels * Math.max(1, lh) * Math.max(1, ld);
                CudaArray a = new CudaArray(lw, lh, ld, format, channels, flags, d.backend.allocate(c.device, bytes));
                levels.add(a);
                handles.add(d.handles.add(a));
            }
            HostRuntime.putLong(pHandle, d.handles.add(new MipmappedArray(List.copyOf(levels), List.copyOf(handles))));
        });
    }

    @Override
    public int cuMipmappedArrayGetLevel(long pLevelArray, long hMipmappedArray, int level) {
        return Api.call("cuMipmappedArrayGetLevel", () -> {
            Mem.nonNull(pLevelArray, "pLevelArray");
            MipmappedArray m = d.handles.get(hMipmappedArray, MipmappedArray.class);
            if (level < 0 || level >= m.levels().size())
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "level " + level + " of " + m.levels().size());
            HostRuntime.putLong(pLevelArray, m.handles().get(level));
        });
    }

    @Override
    public int cuMipmappedArrayDestroy(long hMipmappedArray) {
        return Api.call("cuMipmappedArrayDestroy", () -> {
            MipmappedArray m = d.handles.get(hMipmappedArray, MipmappedArray.class);
            d.requireUsable().drain();
            for (int k = 0; k < m.levels().size(); k++) {
                d.backend.free(m.levels().get(k).base);
                d.handles.remove(m.handles().get(k));
            }
            d.handles.remove(hMipmappedArray);
        });
    }
}
