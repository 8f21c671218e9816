package org.zludaj.ptx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What a texture or surface object handle (CUtexObject, CUsurfObject) points to: a {@value #BYTES}-byte descriptor
 * in device memory that the driver writes and compiled kernels read (llvm.TextureOps). It is ZLUDA-J's own layout,
 * the same on every target, so texture fetches are computed by the kernel itself (addressing, filtering, format
 * conversion) and give the same results on the host, on NVIDIA GPUs and on AMD GPUs.
 *
 * <p>Texels are {@code channels} values of a CUarray_format each ({@code elementBytes} together), rows {@code pitch}
 * bytes apart, slices {@code slicePitch} apart. Unused dimensions have extent 1. A layered resource keeps its layers
 * on the next axis (a 1-D layered array's layers are its rows, a 2-D layered array's its slices) with that axis
 * clamped; {@code layers} is 0 for unlayered ones. Address modes are CUaddress_mode (0 wrap, 1 clamp, 2 mirror,
 * 3 border), filter CUfilter_mode (0 point, 1 linear), flags CU_TRSF_* (1 read as integer, 2 normalized
 * coordinates).
 *
 * @param base device address of texel (0, 0, 0)
 */
public record TextureDescriptor(long base, long pitch, long slicePitch, int width, int height, int depth, int layers,
                                int format, int channels, int flags, int filter, int[] address, float[] border) {
    public static final int BYTES = 128;
    public static final int BASE = 0, PITCH = 8, SLICE_PITCH = 16, WIDTH = 24, HEIGHT = 28, DEPTH = 32, LAYERS = 36,
            FORMAT = 40, CHANNELS = 44, FLAGS = 48, FILTER = 52, ADDRESS = 56, ELEMENT_BYTES = 68, BORDER = 72;
    /**
     * Mipmapped textures: the descriptors of the levels follow one another ({@value #BYTES} bytes each); the first
     * holds the level count (0 or 1: not mipmapped), the mipmap filter (0 point, 1 linear), the level bias and the
     * level clamps.
     */
    public static final int LEVELS = 88, MIP_FILTER = 92, MIP_BIAS = 96, MIP_MIN = 100, MIP_MAX = 104;
    /** CU_TRSF_READ_AS_INTEGER, CU_TRSF_NORMALIZED_COORDINATES. */
    public static final int READ_AS_INTEGER = 1, NORMALIZED_COORDINATES = 2;
    /** CUaddress_mode. */
    public static final int WRAP = 0, CLAMP = 1, MIRROR = 2, BORDER_MODE = 3;

    /** Bytes of one channel value of a CUarray_format, or -1 for formats textures do not take. */
    public static int formatBytes(int format) {
        return switch (format) {
            case 0x01, 0x08 -> 1;         // UNSIGNED/SIGNED_INT8
            case 0x02, 0x09, 0x10 -> 2;   // UNSIGNED/SIGNED_INT16, HALF
            case 0x03, 0x0a, 0x20 -> 4;   // UNSIGNED/SIGNED_INT32, FLOAT
            default -> -1;
        };
    }

    /** Whether texels of this format read as floats: float formats, and 8/16-bit integers unless read as integers. */
    public static boolean readsAsFloat(int format, int flags) {
        return format == 0x10 || format == 0x20 || (formatBytes(format) < 4 && (flags & READ_AS_INTEGER) == 0);
    }

    public int elementBytes() {
        return formatBytes(format) * channels;
    }

    public byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(BASE, base).putLong(PITCH, pitch).putLong(SLICE_PITCH, slicePitch);
        b.putInt(WIDTH, width).putInt(HEIGHT, height).putInt(DEPTH, depth).putInt(LAYERS, layers);
        b.putInt(FORMAT, format).putInt(CHANNELS, channels).putInt(FLAGS, flags).putInt(FILTER, filter);
        for (int k = 0; k < 3; k++) b.putInt(ADDRESS + 4 * k, address[k]);
        b.putInt(ELEMENT_BYTES, elementBytes());
        for (int k = 0; k < 4; k++) b.putFloat(BORDER + 4 * k, border[k]);
        return b.array();
    }

    /** The descriptors of a mipmapped texture's levels, one after another, with the mipmap settings in the first. */
    public static byte[] chain(java.util.List<TextureDescriptor> levels, int mipFilter, float bias, float minClamp, float maxClamp) {
        ByteBuffer b = ByteBuffer.allocate(BYTES * levels.size()).order(ByteOrder.LITTLE_ENDIAN);
        for (int k = 0; k < levels.size(); k++) b.put(k * BYTES, levels.get(k).toBytes());
        b.putInt(LEVELS, levels.size()).putInt(MIP_FILTER, mipFilter).putFloat(MIP_BIAS, bias).putFloat(MIP_MIN, minClamp)
                .putFloat(MIP_MAX, maxClamp);
        return b.array();
    }
}
