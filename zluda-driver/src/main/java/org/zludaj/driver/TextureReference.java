package org.zludaj.driver;

import org.zludaj.api.CuResult;
import org.zludaj.ptx.TextureDescriptor;

/**
 * A CUtexref or CUsurfref: CUDA's first texture API. A module's {@code .texref}/{@code .surfref} variable holds the
 * device address of this reference's {@link TextureDescriptor} (written once, when the reference is first asked
 * for); every change of the binding or the sampling rewrites the descriptor, which later launches read. Unbound, the
 * descriptor describes one texel of zeros (its own border color words), so a fetch reads zeros instead of faulting.
 */
final class TextureReference {
    static final int NONE = 0, ARRAY = 1, LINEAR = 2, PITCH2D = 3;

    /** A change of the reference's state (cuTexRefSet*). */
    interface Change {
        void apply(TextureReference r) throws CudaException;
    }

    final boolean surface;
    /** The module variable holding the descriptor's address (0: made by cuTexRefCreate). */
    final long slot;
    final int device;
    long handle, descriptor;

    int kind = NONE;
    CudaArray array;
    long arrayHandle, address, width, height, pitch;
    boolean overrideFormat;
    int format = 0x20, channels = 1, filter, flags, maxAnisotropy = 1, mipmapFilter;
    final int[] addressModes = {0, 0, 0};
    final float[] border = new float[4];
    float mipmapBias, mipmapMin, mipmapMax;

    TextureReference(boolean surface, long slot, int device) {
        this.surface = surface;
        this.slot = slot;
        this.device = device;
    }

    /** Allocates the descriptor, writes it (unbound) and stores its address in the module's variable. */
    void create(Driver d) throws CudaException {
        descriptor = d.backend.allocate(device, TextureDescriptor.BYTES);
        update(d, true);
        if (slot != 0) {
            byte[] p = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(descriptor).array();
            TextureApi.writeDevice(d, slot, p);
        }
    }

    void bindArray(CudaArray a, long handle, boolean override) {
        kind = ARRAY;
        array = a;
        arrayHandle = handle;
        overrideFormat = override;
        if (!override) {
            format = a.format;
            channels = a.channels;
        }
    }

    void bindLinear(long dptr, long bytes) throws CudaException {
        if (dptr == 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "dptr is NULL");
        kind = LINEAR;
        address = dptr;
        width = bytes;
    }

    void bindPitch2D(long dptr, long w, long h, int fmt, int ch, long rowPitch) throws CudaException {
        TextureApi.element(fmt, ch);
        kind = PITCH2D;
        address = dptr;
        width = w;
        height = h;
        format = fmt;
        channels = ch;
        pitch = rowPitch;
    }

    /**
     * Rewrites the descriptor from the current binding and sampling; where they describe no texture, strictly an error,
     * else a descriptor that reads zeros.
     */
    void update(Driver d, boolean strict) throws CudaException {
        try {
            write(d, resource(d));
        } catch (CudaException e) {
            if (strict) throw e;
            write(d, null);
        }
    }

    private void write(Driver d, TextureApi.Resource res) throws CudaException {
        TextureDescriptor t;
        if (res == null) {  // unbound: one texel of zeros, read from the descriptor's own (zero) border words
            int[] border = {TextureDescriptor.BORDER_MODE, TextureDescriptor.BORDER_MODE, TextureDescriptor.BORDER_MODE};
            t = new TextureDescriptor(descriptor + TextureDescriptor.BORDER, 16, 16, 1, 1, 1, 0, 0x20, 4, 0, 0, border, new float[4]);
        } else if (surface) {
            t = res.texels();
        } else {
            t = TextureApi.sampled(res, addressModes, filter == 1 ? 1 : 0, flags, border);
        }
        TextureApi.writeDevice(d, descriptor, t.toBytes());
    }

    private TextureApi.Resource resource(Driver d) throws CudaException {
        return switch (kind) {
            case ARRAY -> {
                TextureApi.Resource r = TextureApi.fromArray(array);
                if (!overrideFormat) yield r;
                TextureDescriptor t = r.texels();
                if (TextureDescriptor.formatBytes(format) * channels != t.elementBytes())
                    throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "the format's texels differ in size from the array's");
                yield new TextureApi.Resource(new TextureDescriptor(t.base(), t.pitch(), t.slicePitch(), t.width(), t.height(), t.depth(),
                        t.layers(), format, channels, 0, 0, t.address(), t.border()), r.layerAxis(), false);
            }
            case LINEAR -> TextureApi.fromLinear(address, format, channels, width);
            case PITCH2D -> TextureApi.fromPitch2D(d, address, format, channels, width, height, pitch);
            default -> null;
        };
    }

    /** The module's reference of this name (cuModuleGetTexRef/SurfRef): one object per name, made at first ask. */
    static TextureReference of(Driver d, Library lib, String name, boolean surface) throws CudaException {
        var v = lib.ptx.globals().stream().filter(g -> g.name().equals(name)).findFirst().orElse(null);
        org.zludaj.ptx.model.Type want = surface ? org.zludaj.ptx.model.Type.SURFREF : org.zludaj.ptx.model.Type.TEXREF;
        if (v == null || v.type() != want)
            throw new CudaException(CuResult.CUDA_ERROR_NOT_FOUND, "no " + (surface ? ".surfref " : ".texref ") + name + " in the module");
        synchronized (lib.references) {
            TextureReference r = lib.references.get(name);
            if (r == null) {
                var g = lib.program.global(name);
                if (g == null) throw new CudaException(CuResult.CUDA_ERROR_NOT_FOUND, "no storage for " + name);
                r = new TextureReference(surface, g.address(), d.requireCurrent().device);
                r.create(d);
                r.handle = d.handles.add(r);
                lib.references.put(name, r);
            }
            return r;
        }
    }
}
