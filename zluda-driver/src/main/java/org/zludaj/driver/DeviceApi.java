package org.zludaj.driver;

import java.nio.charset.StandardCharsets;
import org.zludaj.api.CuDeviceApi;
import org.zludaj.api.CuResult;
import org.zludaj.driver.backend.Device;
import org.zludaj.nativ.HostRuntime;

/** Device management: cuDeviceGet*, and the primary-context calls cuDevicePrimaryCtx* live in {@link ContextApi}. */
final class DeviceApi implements CuDeviceApi {
    private final Driver d;

    DeviceApi(Driver d) {
        this.d = d;
    }

    private Device dev(int ordinal) throws CudaException {
        return d.devices().get(d.checkDevice(ordinal));
    }

    @Override
    public int cuDeviceGet(long device, int ordinal) {
        return Api.call("cuDeviceGet", () -> {
            Mem.nonNull(device, "device");
            d.checkDevice(ordinal);
            HostRuntime.putInt(device, ordinal);
        });
    }

    @Override
    public int cuDeviceGetCount(long count) {
        return Api.call("cuDeviceGetCount", () -> {
            Mem.nonNull(count, "count");
            d.requireInit();
            HostRuntime.putInt(count, d.deviceCount());
        });
    }

    @Override
    public int cuDeviceGetName(long name, int len, int device) {
        return Api.call("cuDeviceGetName", () -> {
            Mem.nonNull(name, "name");
            if (len <= 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "len " + len);
            byte[] b = dev(device).name().getBytes(StandardCharsets.UTF_8);
            int n = Math.min(b.length, len - 1);
            HostRuntime.write(name, b, 0, n);
            HostRuntime.write(name + n, new byte[1], 0, 1);
        });
    }

    /**
     * The deprecated CUdevprop: maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], sharedMemPerBlock,
     * totalConstantMemory, SIMDWidth, memPitch, regsPerBlock, clockRate, textureAlign, from the device's attributes.
     */
    @Override
    public int cuDeviceGetProperties(long prop, int device) {
        return Api.call("cuDeviceGetProperties", () -> {
            Mem.nonNull(prop, "prop");
            Device v = dev(device);
            int[] attrs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
            for (int i = 0; i < attrs.length; i++) HostRuntime.putInt(prop + 4L * i, v.attribute(attrs[i]));
        });
    }

    /** The device's default CUmemoryPool (cuMemAllocAsync's, unless cuDeviceSetMemPool chose another). */
    @Override
    public int cuDeviceGetDefaultMemPool(long poolOut, int device) {
        return Api.call("cuDeviceGetDefaultMemPool", () -> {
            Mem.nonNull(poolOut, "pool_out");
            HostRuntime.putLong(poolOut, d.defaultPool(d.checkDevice(device)).handle);
        });
    }

    @Override
    public int cuDeviceGetMemPool(long pool, int device) {
        return Api.call("cuDeviceGetMemPool", () -> {
            Mem.nonNull(pool, "pool");
            HostRuntime.putLong(pool, d.currentPool(d.checkDevice(device)).handle);
        });
    }

    @Override
    public int cuDeviceSetMemPool(int device, long pool) {
        return Api.call("cuDeviceSetMemPool", () -> {
            d.checkDevice(device);
            MemoryPool p = d.handles.get(pool, MemoryPool.class);
            if (p.destroyed) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "the pool was destroyed");
            if (p.device != device) throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "the pool belongs to device " + p.device);
            d.setCurrentPool(device, p);
        });
    }

    @Override
    public int cuDeviceTotalMem_v2(long bytes, int device) {
        return Api.call("cuDeviceTotalMem", () -> Mem.putLong(bytes, dev(device).totalMemory(), "bytes"));
    }

    @Override
    public int cuDeviceTotalMem(long bytes, int device) {
        return Api.call("cuDeviceTotalMem", () -> Mem.putInt(bytes, (int) Math.min(Integer.MAX_VALUE, dev(device).totalMemory()), "bytes"));
    }

    @Override
    public int cuDeviceGetAttribute(long pi, int attrib, int device) {
        return Api.call("cuDeviceGetAttribute", () -> {
            Mem.nonNull(pi, "pi");
            Device dv = dev(device);
            if (attrib <= 0 || attrib >= dv.attributes().length)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "no device attribute " + attrib);
            HostRuntime.putInt(pi, dv.attribute(attrib));
        });
    }

    @Override
    public int cuDeviceGetUuid(long uuid, int device) {
        return Api.call("cuDeviceGetUuid", () -> {
            Mem.nonNull(uuid, "uuid");
            HostRuntime.write(uuid, dev(device).uuid(), 0, 16);
        });
    }

    @Override
    public int cuDeviceGetUuid_v2(long uuid, int device) {
        return cuDeviceGetUuid(uuid, device);
    }

    @Override
    public int cuDeviceComputeCapability(long major, long minor, int device) {
        return Api.call("cuDeviceComputeCapability", () -> {
            Device dv = dev(device);
            Mem.putInt(major, dv.attribute(75), "major");
            Mem.putInt(minor, dv.attribute(76), "minor");
        });
    }

    @Override
    public int cuDeviceGetPCIBusId(long pciBusId, int len, int device) {
        return Api.call("cuDeviceGetPCIBusId", () -> {
            Mem.nonNull(pciBusId, "pciBusId");
            Device dv = dev(device);
            String id = String.format("%08x:%02x:%02x.0", dv.attribute(50), dv.attribute(33), dv.attribute(34));
            if (len < id.length() + 1) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "buffer of " + len + " bytes");
            byte[] b = (id + "\0").getBytes(StandardCharsets.US_ASCII);
            HostRuntime.write(pciBusId, b, 0, b.length);
        });
    }

    /** The device whose PCI address ("domain:bus:device.function", domain optional, hexadecimal) is given. */
    @Override
    public int cuDeviceGetByPCIBusId(long dev, long pciBusId) {
        return Api.call("cuDeviceGetByPCIBusId", () -> {
            d.requireInit();
            Mem.nonNull(dev, "dev");
            String id = Mem.string(pciBusId, "pciBusId").trim().toLowerCase(java.util.Locale.ROOT);
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:([0-9a-f]{1,8}):)?([0-9a-f]{1,2}):([0-9a-f]{1,2})(?:\\.[0-7])?").matcher(id);
            if (!m.matches()) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "not a PCI bus id: " + id);
            int domain = m.group(1) == null ? 0 : Integer.parseInt(m.group(1), 16);
            int bus = Integer.parseInt(m.group(2), 16), device = Integer.parseInt(m.group(3), 16);
            for (int i = 0; i < d.deviceCount(); i++) {
                Device dv = dev(i);
                if (dv.attribute(50) == domain && dv.attribute(33) == bus && dv.attribute(34) == device) {
                    Mem.putInt(dev, i, "dev");
                    return;
                }
            }
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_DEVICE, "no device at " + id);
        });
    }

    /** The widest 1-D texture over linear memory of this element: the device's limit in elements (2^27 on NVIDIA's). */
    @Override
    public int cuDeviceGetTexture1DLinearMaxWidth(long maxWidthInElements, int format, int numChannels, int device) {
        return Api.call("cuDeviceGetTexture1DLinearMaxWidth", () -> {
            Mem.nonNull(maxWidthInElements, "maxWidthInElements");
            Device dv = dev(device);
            if (org.zludaj.ptx.TextureDescriptor.formatBytes(format) < 0 || (numChannels != 1 && numChannels != 2 && numChannels != 4))
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "format 0x" + Integer.toHexString(format) + " x " + numChannels);
            HostRuntime.putLong(maxWidthInElements, dv.attribute(69));  // MAXIMUM_TEXTURE1D_LINEAR_WIDTH
        });
    }
}
