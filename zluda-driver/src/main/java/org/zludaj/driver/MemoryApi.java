package org.zludaj.driver;

import org.zludaj.api.CuMemoryApi;
import org.zludaj.api.CuResult;
import org.zludaj.nativ.HostRuntime;

/**
 * Memory (cuMem*): allocation, copies and sets. Asynchronous forms complete before they return in this slice, which
 * is a valid schedule of their stream; the stream handle is still validated.
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
            Context c = d.requireCurrent();
            if (bytesize == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cuMemAlloc of 0 bytes");
            HostRuntime.putLong(dptr, d.backend.allocate(c.device, bytesize));
        });
    }

    /** Managed memory: on the host backend device memory is host memory already (flags ATTACH_GLOBAL or ATTACH_HOST). */
    @Override
    public int cuMemAllocManaged(long dptr, long bytesize, int flags) {
        return Api.call("cuMemAllocManaged", () -> {
            Mem.nonNull(dptr, "dptr");
            Context c = d.requireCurrent();
            if (bytesize == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cuMemAllocManaged of 0 bytes");
            if (flags != 1 && flags != 2) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST");
            HostRuntime.putLong(dptr, d.backend.allocate(c.device, bytesize));
        });
    }

    @Override
    public int cuMemFree_v2(long dptr) {
        return Api.call("cuMemFree", () -> {
            d.requireCurrent();
            if (dptr != 0) d.backend.free(dptr);
        });
    }

    @Override
    public int cuMemGetInfo_v2(long free, long total) {
        return Api.call("cuMemGetInfo", () -> {
            Context c = d.requireCurrent();
            long t = d.devices().get(c.device).totalMemory();
            Mem.putLong(total, t, "total");
            Mem.putLong(free, t, "free");
        });
    }

    @Override
    public int cuMemHostAlloc(long pp, long bytesize, int flags) {
        return Api.call("cuMemHostAlloc", () -> {
            Mem.nonNull(pp, "pp");
            Context c = d.requireCurrent();
            if (bytesize == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "cuMemHostAlloc of 0 bytes");
            HostRuntime.putLong(pp, d.backend.allocate(c.device, bytesize));
        });
    }

    @Override
    public int cuMemAllocHost_v2(long pp, long bytesize) {
        return cuMemHostAlloc(pp, bytesize, 0);
    }

    @Override
    public int cuMemFreeHost(long p) {
        return Api.call("cuMemFreeHost", () -> {
            d.requireCurrent();
            d.backend.free(p);
        });
    }

    @Override
    public int cuMemHostGetDevicePointer_v2(long pdptr, long p, int flags) {
        return Api.call("cuMemHostGetDevicePointer", () -> {
            d.requireCurrent();
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            Mem.putLong(pdptr, p, "pdptr");  // host and device share one address space on this backend
        });
    }

    private int copy(String name, long dst, long src, long bytes, long stream) {
        return Api.call(name, () -> {
            d.requireCurrent();
            if (stream != -1) streams.stream(stream);
            d.backend.copy(dst, src, bytes);
        });
    }

    @Override public int cuMemcpyHtoD_v2(long dst, long src, long n) { return copy("cuMemcpyHtoD", dst, src, n, -1); }
    @Override public int cuMemcpyDtoH_v2(long dst, long src, long n) { return copy("cuMemcpyDtoH", dst, src, n, -1); }
    @Override public int cuMemcpyDtoD_v2(long dst, long src, long n) { return copy("cuMemcpyDtoD", dst, src, n, -1); }
    @Override public int cuMemcpy(long dst, long src, long n) { return copy("cuMemcpy", dst, src, n, -1); }
    @Override public int cuMemcpyHtoD_v2_ptds(long dst, long src, long n) { return copy("cuMemcpyHtoD", dst, src, n, -1); }
    @Override public int cuMemcpyDtoH_v2_ptds(long dst, long src, long n) { return copy("cuMemcpyDtoH", dst, src, n, -1); }
    @Override public int cuMemcpyDtoD_v2_ptds(long dst, long src, long n) { return copy("cuMemcpyDtoD", dst, src, n, -1); }
    @Override public int cuMemcpy_ptds(long dst, long src, long n) { return copy("cuMemcpy", dst, src, n, -1); }
    @Override public int cuMemcpyAsync(long dst, long src, long n, long s) { return copy("cuMemcpyAsync", dst, src, n, s); }
    @Override public int cuMemcpyHtoDAsync_v2(long dst, long src, long n, long s) { return copy("cuMemcpyHtoDAsync", dst, src, n, s); }
    @Override public int cuMemcpyDtoHAsync_v2(long dst, long src, long n, long s) { return copy("cuMemcpyDtoHAsync", dst, src, n, s); }
    @Override public int cuMemcpyDtoDAsync_v2(long dst, long src, long n, long s) { return copy("cuMemcpyDtoDAsync", dst, src, n, s); }
    @Override public int cuMemcpyAsync_ptsz(long dst, long src, long n, long s) { return copy("cuMemcpyAsync", dst, src, n, s); }
    @Override public int cuMemcpyHtoDAsync_v2_ptsz(long dst, long src, long n, long s) { return copy("cuMemcpyHtoDAsync", dst, src, n, s); }
    @Override public int cuMemcpyDtoHAsync_v2_ptsz(long dst, long src, long n, long s) { return copy("cuMemcpyDtoHAsync", dst, src, n, s); }
    @Override public int cuMemcpyDtoDAsync_v2_ptsz(long dst, long src, long n, long s) { return copy("cuMemcpyDtoDAsync", dst, src, n, s); }

    private int set(String name, long dst, int width, int value, long count, long stream) {
        return Api.call(name, () -> {
            d.requireCurrent();
            if (stream != -1) streams.stream(stream);
            d.backend.fill(dst, width, value, count);
        });
    }

    @Override public int cuMemsetD8_v2(long dst, int v, long n) { return set("cuMemsetD8", dst, 1, v, n, -1); }
    @Override public int cuMemsetD16_v2(long dst, int v, long n) { return set("cuMemsetD16", dst, 2, v, n, -1); }
    @Override public int cuMemsetD32_v2(long dst, int v, long n) { return set("cuMemsetD32", dst, 4, v, n, -1); }
    @Override public int cuMemsetD8_v2_ptds(long dst, int v, long n) { return set("cuMemsetD8", dst, 1, v, n, -1); }
    @Override public int cuMemsetD16_v2_ptds(long dst, int v, long n) { return set("cuMemsetD16", dst, 2, v, n, -1); }
    @Override public int cuMemsetD32_v2_ptds(long dst, int v, long n) { return set("cuMemsetD32", dst, 4, v, n, -1); }
    @Override public int cuMemsetD8Async(long dst, int v, long n, long s) { return set("cuMemsetD8Async", dst, 1, v, n, s); }
    @Override public int cuMemsetD16Async(long dst, int v, long n, long s) { return set("cuMemsetD16Async", dst, 2, v, n, s); }
    @Override public int cuMemsetD32Async(long dst, int v, long n, long s) { return set("cuMemsetD32Async", dst, 4, v, n, s); }
    @Override public int cuMemsetD8Async_ptsz(long dst, int v, long n, long s) { return set("cuMemsetD8Async", dst, 1, v, n, s); }
    @Override public int cuMemsetD16Async_ptsz(long dst, int v, long n, long s) { return set("cuMemsetD16Async", dst, 2, v, n, s); }
    @Override public int cuMemsetD32Async_ptsz(long dst, int v, long n, long s) { return set("cuMemsetD32Async", dst, 4, v, n, s); }
}
