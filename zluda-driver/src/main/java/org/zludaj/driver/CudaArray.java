package org.zludaj.driver;

import org.zludaj.api.CuResult;

/**
 * A CUarray (cuArrayCreate, cuArray3DCreate): rows of width elements, height rows per slice, depth slices, each element
 * NumChannels values of a CUarray_format. Backend memory laid out linearly (pitch = width x element size), so copies
 * reach it like pitched memory, and texture and surface objects read it where it is (TextureApi). Layered arrays keep
 * their layers as slices (a 1-D layered array's as rows).
 */
final class CudaArray {
    final long width, height, depth;
    final int format, channels, flags;
    final long base;

    CudaArray(long width, long height, long depth, int format, int channels, int flags, long base) {
        this.width = width;
        this.height = height;
        this.depth = depth;
        this.format = format;
        this.channels = channels;
        this.flags = flags;
        this.base = base;
    }

    /** Bytes of one channel value of a CUarray_format (the formats of CUDA's classic arrays), or -1. */
    static int formatBytes(int format) {
        return switch (format) {
            case 0x01, 0x08 -> 1;         // UNSIGNED/SIGNED_INT8
            case 0x02, 0x09, 0x10 -> 2;   // UNSIGNED/SIGNED_INT16, HALF
            case 0x03, 0x0a, 0x20 -> 4;   // UNSIGNED/SIGNED_INT32, FLOAT
            default -> -1;
        };
    }

    static void check(long width, long height, long depth, int format, int channels) throws CudaException {
        if (formatBytes(format) < 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "array format 0x" + Integer.toHexString(format));
        if (channels != 1 && channels != 2 && channels != 4) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "NumChannels " + channels);
        if (width <= 0 || height < 0 || depth < 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "array extent " + width + "x" + height + "x" + depth);
    }

    /** Bytes of one row: the pitch of the array's memory. */
    long pitch() {
        return width * formatBytes(format) * channels;
    }

    long rows() {
        return Math.max(1, height);
    }

    long bytes() {
        return pitch() * rows() * Math.max(1, depth);
    }
}
