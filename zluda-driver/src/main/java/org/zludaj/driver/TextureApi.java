package org.zludaj.driver;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.zludaj.api.CuResult;
import org.zludaj.api.CuTextureApi;
import org.zludaj.nativ.HostRuntime;
import org.zludaj.ptx.TextureDescriptor;

/**
 * Texture and surface objects (cuTexObjectCreate, cuSurfObjectCreate ... ). A handle is the device address of a
 * {@link TextureDescriptor} the driver writes: kernels compiled by ZLUDA-J read it and fetch texels themselves, on
 * every backend. Resources: CUDA arrays (1-D, 2-D, 3-D, layered), mipmapped arrays (a descriptor per level), linear
 * memory and pitched 2-D memory; sRGB conversion and resource views other than the identity answer
 * CUDA_ERROR_NOT_SUPPORTED. Texture references (cuTexRef*, CUDA's first texture API): {@link TextureReference}.
 */
final class TextureApi implements CuTextureApi {
    /** CUresourcetype. */
    static final int RESOURCE_ARRAY = 0, RESOURCE_MIPMAPPED_ARRAY = 1, RESOURCE_LINEAR = 2, RESOURCE_PITCH2D = 3;
    /** sizeof CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC, CUDA_RESOURCE_VIEW_DESC. */
    static final int RESOURCE_DESC_BYTES = 144, TEXTURE_DESC_BYTES = 104, VIEW_DESC_BYTES = 112;
    /** CUDA_ARRAY3D_LAYERED, _SURFACE_LDST, _TEXTURE_GATHER. */
    static final int ARRAY_LAYERED = 1, ARRAY_SURFACE_LDST = 2, ARRAY_TEXTURE_GATHER = 8;
    private static final int TRSF_SRGB = 0x10;

    /** A live object: its descriptor's device memory and the application's descriptions, as given. */
    record TexObject(boolean surface, byte[] resource, byte[] texture, byte[] view) {}

    private final Driver d;
    private final ConcurrentHashMap<Long, TexObject> objects = new ConcurrentHashMap<>();

    TextureApi(Driver d) {
        this.d = d;
    }

    private static byte[] read(long address, int bytes) {
        byte[] b = new byte[bytes];
        if (address != 0) HostRuntime.read(address, b, 0, bytes);
        return b;
    }

    /**
     * The texels of a resource, their axis of layers (-1: none), whether they are linear memory, and for a mipmapped
     * array every level's (null otherwise; {@code texels} is then level 0).
     */
    record Resource(TextureDescriptor texels, int layerAxis, boolean linear, List<Resource> levels) {
        Resource(TextureDescriptor texels, int layerAxis, boolean linear) {
            this(texels, layerAxis, linear, null);
        }
    }

    private static final int[] CLAMPED = {TextureDescriptor.CLAMP, TextureDescriptor.CLAMP, TextureDescriptor.CLAMP};

    /** A CUDA array's texels (layered arrays keep their layers on the next axis). */
    static Resource fromArray(CudaArray a) {
        long pitch = a.pitch();
        boolean layered = (a.flags & ARRAY_LAYERED) != 0;
        int w = (int) a.width, h = (int) Math.max(1, a.height), depth = (int) Math.max(1, a.depth), layers = 0, axis = -1;
        if (layered && a.height == 0) {  // 1-D layered: the layers are rows
            layers = depth;
            h = depth;
            depth = 1;
            axis = 1;
        } else if (layered) {
            layers = depth;
            axis = 2;
        }
        return new Resource(new TextureDescriptor(a.base, pitch, pitch * h, w, h, depth, layers, a.format, a.channels, 0, 0, CLAMPED, new float[4]),
                axis, false);
    }

    /** Linear memory: integer fetches outside read zeros whatever the address mode. */
    static Resource fromLinear(long ptr, int format, int channels, long size) throws CudaException {
        int element = element(format, channels);
        if (ptr == 0 || size < element) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "linear resource of " + size + " bytes at 0x" + Long.toHexString(ptr));
        if (size / element > Integer.MAX_VALUE) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "linear resource too large");
        int[] zeros = {TextureDescriptor.BORDER_MODE, TextureDescriptor.BORDER_MODE, TextureDescriptor.BORDER_MODE};
        return new Resource(new TextureDescriptor(ptr, size, size, (int) (size / element), 1, 1, 0, format, channels, 0, 0, zeros, new float[4]),
                -1, true);
    }

    /** Pitched 2-D memory (its pitch a multiple of the device's TEXTURE_PITCH_ALIGNMENT). */
    static Resource fromPitch2D(Driver d, long ptr, int format, int channels, long w, long h, long pitch) throws CudaException {
        int element = element(format, channels);
        if (ptr == 0 || w <= 0 || h <= 0 || w > Integer.MAX_VALUE || h > Integer.MAX_VALUE || pitch < w * element)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "pitch2D resource " + w + "x" + h + " pitch " + pitch);
        int pitchAlign = d.backend.devices().get(0).attribute(51);  // TEXTURE_PITCH_ALIGNMENT
        if (pitchAlign > 0 && pitch % pitchAlign != 0)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "pitch " + pitch + " is not a multiple of " + pitchAlign);
        return new Resource(new TextureDescriptor(ptr, pitch, pitch * h, (int) w, (int) h, 1, 0, format, channels, 0, 0, CLAMPED, new float[4]),
                -1, false);
    }

    /** The texels a CUDA_RESOURCE_DESC names, as a descriptor with default sampling (point, clamp, unnormalized). */
    private Resource resource(long res, boolean surface) throws CudaException {
        int type = HostRuntime.getInt(res);
        if (surface && type != RESOURCE_ARRAY)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "surface objects are made of CUDA arrays (resource type " + type + ")");
        return switch (type) {
            // (NVIDIA makes surfaces of arrays created without CUDA_ARRAY3D_SURFACE_LDST too: recorded on an H200)
            case RESOURCE_ARRAY -> fromArray(d.handles.get(HostRuntime.getLong(res + 8), CudaArray.class));
            case RESOURCE_MIPMAPPED_ARRAY -> {
                if (surface) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "surface objects are made of CUDA arrays");
                var m = d.handles.get(HostRuntime.getLong(res + 8), MemoryApi.MipmappedArray.class);
                List<Resource> levels = m.levels().stream().map(TextureApi::fromArray).toList();
                yield new Resource(levels.get(0).texels(), levels.get(0).layerAxis(), false, levels);
            }
            case RESOURCE_LINEAR -> fromLinear(HostRuntime.getLong(res + 8), HostRuntime.getInt(res + 16), HostRuntime.getInt(res + 20),
                    HostRuntime.getLong(res + 24));
            case RESOURCE_PITCH2D -> fromPitch2D(d, HostRuntime.getLong(res + 8), HostRuntime.getInt(res + 16), HostRuntime.getInt(res + 20),
                    HostRuntime.getLong(res + 24), HostRuntime.getLong(res + 32), HostRuntime.getLong(res + 40));
            default -> throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "resource type " + type);
        };
    }

    static int element(int format, int channels) throws CudaException {
        int bytes = TextureDescriptor.formatBytes(format);
        if (bytes < 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "format 0x" + Integer.toHexString(format));
        if (channels != 1 && channels != 2 && channels != 4) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "numChannels " + channels);
        return bytes * channels;
    }

    /** The resource's descriptor with a CUDA_TEXTURE_DESC's sampling applied. */
    private static TextureDescriptor sampled(Resource res, long tex) throws CudaException {
        int[] address = new int[3];
        for (int k = 0; k < 3; k++) address[k] = HostRuntime.getInt(tex + 4L * k);
        float[] border = new float[4];
        for (int k = 0; k < 4; k++) border[k] = Float.intBitsToFloat(HostRuntime.getInt(tex + 40 + 4L * k));
        return sampled(res, address, HostRuntime.getInt(tex + 12), HostRuntime.getInt(tex + 16), border);
    }

    /** The resource's descriptor with this sampling: address modes, filter, CU_TRSF_* flags, border color. */
    static TextureDescriptor sampled(Resource res, int[] addressModes, int filter, int flags, float[] borderColor) throws CudaException {
        TextureDescriptor r = res.texels();
        int[] address = addressModes.clone();
        for (int k = 0; k < 3; k++)
            if (address[k] < 0 || address[k] > 3) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "address mode " + address[k]);
        if (filter != 0 && filter != 1) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "filter mode " + filter);
        if ((flags & TRSF_SRGB) != 0) throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "sRGB textures are not supported");
        float[] border = new float[4];
        for (int k = 0; k < 4; k++) border[k] = inFormat(borderColor[k], r.format(), flags);
        // what the resource fixes stays: linear memory reads zeros outside, a layer axis clamps
        if (res.linear()) {
            address = r.address().clone();
            border = new float[4];
            filter = 0;  // no filtering of linear memory
        } else if (res.layerAxis() >= 0) {
            address[res.layerAxis()] = TextureDescriptor.CLAMP;
        }
        return new TextureDescriptor(r.base(), r.pitch(), r.slicePitch(), r.width(), r.height(), r.depth(), r.layers(), r.format(),
                r.channels(), flags & (TextureDescriptor.READ_AS_INTEGER | TextureDescriptor.NORMALIZED_COORDINATES), filter, address, border);
    }

    /**
     * A border color as the texture returns it: converted to the texel format and read back (NVIDIA's hardware, recorded
     * on an H200: 0.25 reads 64/255 from an 8-bit normalized texture), as raw integer bits where the texture reads
     * integers.
     */
    static float inFormat(float v, int format, int flags) {
        boolean asFloat = TextureDescriptor.readsAsFloat(format, flags);
        if (!asFloat) return Float.intBitsToFloat((int) Math.rint(v));
        return switch (format) {
            case 0x01 -> (float) (Math.rint(Math.min(Math.max(v, 0f), 1f) * 255) / 255);
            case 0x02 -> (float) (Math.rint(Math.min(Math.max(v, 0f), 1f) * 65535) / 65535);
            case 0x08 -> Math.max((float) (Math.rint(Math.min(Math.max(v, -1f), 1f) * 127) / 127), -1f);
            case 0x09 -> Math.max((float) (Math.rint(Math.min(Math.max(v, -1f), 1f) * 32767) / 32767), -1f);
            case 0x10 -> toHalfAndBack(v);
            default -> v;
        };
    }

    /** The nearest IEEE half value (ties to even; overflow to infinity), as a float. */
    static float toHalfAndBack(float v) {
        if (Float.isNaN(v) || Float.isInfinite(v) || v == 0) return v;
        if (Math.abs(v) >= 65520f) return Math.copySign(Float.POSITIVE_INFINITY, v);
        int exp = Math.max(Math.getExponent(v), -14);  // below 2^-14 half values are subnormal: a fixed step of 2^-24
        return (float) Math.scalb(Math.rint(Math.scalb((double) v, 10 - exp)), exp - 10);
    }

    /** Writes {@code bytes} to device memory {@code dev} (through host memory the backend can copy from). */
    static void writeDevice(Driver d, long dev, byte[] bytes) throws CudaException {
        long staging = HostRuntime.allocate(bytes.length, 16);
        if (staging == 0) throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "texture descriptor");
        try {
            HostRuntime.write(staging, bytes, 0, bytes.length);
            d.backend.copy(dev, staging, bytes.length);
        } finally {
            HostRuntime.release(staging);
        }
    }

    /** Writes the descriptor to new device memory of the current context's device: the handle. */
    private long publish(byte[] descriptor, TexObject o) throws CudaException {
        Context c = d.requireCurrent();
        long dev = d.backend.allocate(c.device, descriptor.length);
        try {
            writeDevice(d, dev, descriptor);
        } catch (CudaException e) {
            d.backend.free(dev);
            throw e;
        }
        objects.put(dev, o);
        return dev;
    }

    private TexObject object(long handle, boolean surface) throws CudaException {
        TexObject o = objects.get(handle);
        if (o == null || o.surface() != surface)
            throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "no " + (surface ? "surface" : "texture") + " object 0x" + Long.toHexString(handle));
        return o;
    }

    private void destroy(long handle, boolean surface) throws CudaException {
        if (handle == 0) return;  // NVIDIA answers CUDA_SUCCESS for the null object (recorded on an H200)
        object(handle, surface);
        if (objects.remove(handle) == null) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "destroyed already");
        Context c = d.current();
        if (c != null) c.drain();  // kernels in flight may still read it
        d.backend.free(handle);
    }

    @Override
    public int cuTexObjectCreate(long pTexObject, long pResDesc, long pTexDesc, long pResViewDesc) {
        return Api.call("cuTexObjectCreate", () -> {
            d.requireInit();
            Mem.nonNull(pTexObject, "pTexObject");
            Mem.nonNull(pResDesc, "pResDesc");
            Mem.nonNull(pTexDesc, "pTexDesc");
            Resource res = resource(pResDesc, false);
            byte[] bytes;
            if (res.levels() != null) {  // a descriptor per level, the mipmap settings in the first
                List<TextureDescriptor> levels = new java.util.ArrayList<>();
                for (Resource level : res.levels()) levels.add(sampled(level, pTexDesc));
                int mipFilter = HostRuntime.getInt(pTexDesc + 24);
                if (mipFilter != 0 && mipFilter != 1) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "mipmap filter mode " + mipFilter);
                bytes = TextureDescriptor.chain(levels, mipFilter, Float.intBitsToFloat(HostRuntime.getInt(pTexDesc + 28)),
                        Float.intBitsToFloat(HostRuntime.getInt(pTexDesc + 32)), Float.intBitsToFloat(HostRuntime.getInt(pTexDesc + 36)));
            } else {
                bytes = sampled(res, pTexDesc).toBytes();
            }
            byte[] view = read(pResViewDesc, VIEW_DESC_BYTES);
            if (pResViewDesc != 0) {
                // only the identity view: no format reinterpretation, the whole mip chain and every layer
                int format = HostRuntime.getInt(pResViewDesc), firstLevel = HostRuntime.getInt(pResViewDesc + 32),
                        firstLayer = HostRuntime.getInt(pResViewDesc + 40);
                if (format != 0 || firstLevel != 0 || firstLayer != 0)
                    throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "resource views (format " + format + ", level " + firstLevel + ", layer " + firstLayer + ")");
            }
            long h = publish(bytes, new TexObject(false, read(pResDesc, RESOURCE_DESC_BYTES), read(pTexDesc, TEXTURE_DESC_BYTES), view));
            HostRuntime.putLong(pTexObject, h);
        });
    }

    @Override
    public int cuTexObjectDestroy(long texObject) {
        return Api.call("cuTexObjectDestroy", () -> {
            d.requireInit();
            destroy(texObject, false);
        });
    }

    @Override
    public int cuTexObjectGetResourceDesc(long pResDesc, long texObject) {
        return Api.call("cuTexObjectGetResourceDesc", () -> {
            d.requireInit();
            Mem.nonNull(pResDesc, "pResDesc");
            byte[] r = object(texObject, false).resource();
            HostRuntime.write(pResDesc, r, 0, r.length);
        });
    }

    @Override
    public int cuTexObjectGetTextureDesc(long pTexDesc, long texObject) {
        return Api.call("cuTexObjectGetTextureDesc", () -> {
            d.requireInit();
            Mem.nonNull(pTexDesc, "pTexDesc");
            // NVIDIA writes the sampling fields only (address modes to the mipmap clamps, 40 bytes), leaving the border
            // color and the reserved words as they were (recorded on an H200)
            byte[] t = object(texObject, false).texture();
            HostRuntime.write(pTexDesc, t, 0, 40);
        });
    }

    @Override
    public int cuTexObjectGetResourceViewDesc(long pResViewDesc, long texObject) {
        return Api.call("cuTexObjectGetResourceViewDesc", () -> {
            d.requireInit();
            Mem.nonNull(pResViewDesc, "pResViewDesc");
            byte[] v = object(texObject, false).view();
            HostRuntime.write(pResViewDesc, v, 0, v.length);
        });
    }

    @Override
    public int cuSurfObjectCreate(long pSurfObject, long pResDesc) {
        return Api.call("cuSurfObjectCreate", () -> {
            d.requireInit();
            Mem.nonNull(pSurfObject, "pSurfObject");
            Mem.nonNull(pResDesc, "pResDesc");
            TextureDescriptor t = resource(pResDesc, true).texels();
            long h = publish(t.toBytes(), new TexObject(true, read(pResDesc, RESOURCE_DESC_BYTES), new byte[0], new byte[0]));
            HostRuntime.putLong(pSurfObject, h);
        });
    }

    @Override
    public int cuSurfObjectDestroy(long surfObject) {
        return Api.call("cuSurfObjectDestroy", () -> {
            d.requireInit();
            destroy(surfObject, true);
        });
    }

    @Override
    public int cuSurfObjectGetResourceDesc(long pResDesc, long surfObject) {
        return Api.call("cuSurfObjectGetResourceDesc", () -> {
            d.requireInit();
            Mem.nonNull(pResDesc, "pResDesc");
            byte[] r = object(surfObject, true).resource();
            HostRuntime.write(pResDesc, r, 0, r.length);
        });
    }

    // ---- texture and surface references (cuTexRef*, cuSurfRef*: CUDA's first texture API, gone from CUDA 12's runtime)

    private TextureReference ref(long h, boolean surface) throws CudaException {
        TextureReference r = d.handles.get(h, TextureReference.class);
        if (r.surface != surface) throw new CudaException(CuResult.CUDA_ERROR_INVALID_HANDLE, surface ? "not a surface reference" : "not a texture reference");
        return r;
    }

    /** Runs a change of a texture reference's state, then rewrites its descriptor. */
    private int change(String name, long h, TextureReference.Change change) {
        return change(name, h, change, true);
    }

    /**
     * {@code strict}: the new state must describe a texture (bindings); otherwise (format, filter: NVIDIA accepts any
     * value there, recorded on an H200) a state that describes none reads zeros until it is corrected.
     */
    private int change(String name, long h, TextureReference.Change change, boolean strict) {
        return Api.call(name, () -> {
            TextureReference r = ref(h, false);
            synchronized (r) {
                change.apply(r);
                r.update(d, strict);
            }
        });
    }

    @Override
    public int cuTexRefCreate(long pTexRef) {
        return Api.call("cuTexRefCreate", () -> {
            Mem.nonNull(pTexRef, "pTexRef");
            TextureReference r = new TextureReference(false, 0, d.requireCurrent().device);
            r.create(d);
            HostRuntime.putLong(pTexRef, d.handles.add(r));
        });
    }

    @Override
    public int cuTexRefDestroy(long hTexRef) {
        return Api.call("cuTexRefDestroy", () -> {
            TextureReference r = ref(hTexRef, false);
            if (r.slot != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "a module's texture reference lives as long as the module");
            d.handles.remove(hTexRef);
            Context c = d.current();
            if (c != null) c.drain();
            d.backend.free(r.descriptor);
        });
    }

    /** Flags: CU_TRSA_OVERRIDE_FORMAT (1) keeps the reference's format instead of the array's. */
    @Override
    public int cuTexRefSetArray(long hTexRef, long hArray, int flags) {
        return change("cuTexRefSetArray", hTexRef, r -> {
            CudaArray a = d.handles.get(hArray, CudaArray.class);
            if ((flags & ~1) != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags " + flags);
            r.bindArray(a, hArray, (flags & 1) != 0);
        });
    }

    private int setAddress(long byteOffset, long hTexRef, long dptr, long bytes) {
        return change("cuTexRefSetAddress", hTexRef, r -> {
            if (byteOffset != 0) HostRuntime.putLong(byteOffset, 0);  // no alignment offset: any address is taken as it is
            r.bindLinear(dptr, bytes);
        });
    }

    @Override public int cuTexRefSetAddress_v2(long byteOffset, long h, long dptr, long bytes) { return setAddress(byteOffset, h, dptr, bytes); }

    /** CUDA_ARRAY_DESCRIPTOR {Width, Height, Format, NumChannels} describes the pitched memory. */
    private int setAddress2D(long hTexRef, long desc, long dptr, long pitch) {
        return change("cuTexRefSetAddress2D", hTexRef, r -> {
            Mem.nonNull(desc, "desc");
            r.bindPitch2D(dptr, HostRuntime.getLong(desc), HostRuntime.getLong(desc + 8), HostRuntime.getInt(desc + 16),
                    HostRuntime.getInt(desc + 20), pitch);
        });
    }

    @Override public int cuTexRefSetAddress2D_v2(long h, long desc, long dptr, long pitch) { return setAddress2D(h, desc, dptr, pitch); }
    @Override public int cuTexRefSetAddress2D_v3(long h, long desc, long dptr, long pitch) { return setAddress2D(h, desc, dptr, pitch); }

    @Override
    public int cuTexRefSetFormat(long hTexRef, int fmt, int components) {
        return change("cuTexRefSetFormat", hTexRef, r -> {
            r.format = fmt;
            r.channels = components;
        }, false);
    }

    @Override
    public int cuTexRefSetAddressMode(long hTexRef, int dim, int am) {
        return change("cuTexRefSetAddressMode", hTexRef, r -> {
            if (dim < 0 || dim > 2 || am < 0 || am > 3) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "dimension " + dim + ", mode " + am);
            r.addressModes[dim] = am;
        });
    }

    @Override
    public int cuTexRefSetFilterMode(long hTexRef, int fm) {
        return change("cuTexRefSetFilterMode", hTexRef, r -> r.filter = fm, false);
    }

    @Override
    public int cuTexRefSetFlags(long hTexRef, int flags) {
        return change("cuTexRefSetFlags", hTexRef, r -> r.flags = flags);
    }

    @Override
    public int cuTexRefSetBorderColor(long hTexRef, long color) {
        return change("cuTexRefSetBorderColor", hTexRef, r -> {
            Mem.nonNull(color, "pBorderColor");
            for (int k = 0; k < 4; k++) r.border[k] = Float.intBitsToFloat(HostRuntime.getInt(color + 4L * k));
        });
    }

    /** Anisotropy and the mipmap settings are kept and read back; without mipmapped arrays they change no fetch. */
    @Override
    public int cuTexRefSetMaxAnisotropy(long hTexRef, int maxAniso) {
        return change("cuTexRefSetMaxAnisotropy", hTexRef, r -> r.maxAnisotropy = maxAniso);
    }

    @Override
    public int cuTexRefSetMipmapFilterMode(long hTexRef, int fm) {
        return change("cuTexRefSetMipmapFilterMode", hTexRef, r -> {
            if (fm != 0 && fm != 1) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "filter mode " + fm);
            r.mipmapFilter = fm;
        });
    }

    @Override
    public int cuTexRefSetMipmapLevelBias(long hTexRef, float bias) {
        return change("cuTexRefSetMipmapLevelBias", hTexRef, r -> r.mipmapBias = bias);
    }

    @Override
    public int cuTexRefSetMipmapLevelClamp(long hTexRef, float min, float max) {
        return change("cuTexRefSetMipmapLevelClamp", hTexRef, r -> {
            r.mipmapMin = min;
            r.mipmapMax = max;
        });
    }

    @Override
    public int cuTexRefSetMipmappedArray(long hTexRef, long hMipmappedArray, int flags) {
        return Api.call("cuTexRefSetMipmappedArray", () -> {
            throw new CudaException(CuResult.CUDA_ERROR_NOT_SUPPORTED, "mipmapped arrays are not supported");
        });
    }

    private interface Getter {
        void get(TextureReference r) throws CudaException;
    }

    private int get(String name, long h, Getter g) {
        return Api.call(name, () -> {
            TextureReference r = ref(h, false);
            synchronized (r) {
                g.get(r);
            }
        });
    }

    @Override
    public int cuTexRefGetAddress_v2(long pdptr, long h) {
        return get("cuTexRefGetAddress", h, r -> {
            if (r.kind != TextureReference.LINEAR && r.kind != TextureReference.PITCH2D)
                throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "the reference is not bound to memory");
            Mem.putLong(pdptr, r.address, "pdptr");
        });
    }

    @Override
    public int cuTexRefGetArray(long phArray, long h) {
        return get("cuTexRefGetArray", h, r -> {
            if (r.kind != TextureReference.ARRAY) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "the reference is not bound to an array");
            Mem.putLong(phArray, r.arrayHandle, "phArray");
        });
    }

    @Override
    public int cuTexRefGetAddressMode(long pam, long h, int dim) {
        return get("cuTexRefGetAddressMode", h, r -> {
            if (dim < 0 || dim > 2) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "dimension " + dim);
            Mem.putInt(pam, r.addressModes[dim], "pam");
        });
    }

    @Override public int cuTexRefGetFilterMode(long pfm, long h) { return get("cuTexRefGetFilterMode", h, r -> Mem.putInt(pfm, r.filter, "pfm")); }
    @Override public int cuTexRefGetFlags(long pFlags, long h) { return get("cuTexRefGetFlags", h, r -> Mem.putInt(pFlags, r.flags, "pFlags")); }
    @Override public int cuTexRefGetMaxAnisotropy(long p, long h) { return get("cuTexRefGetMaxAnisotropy", h, r -> Mem.putInt(p, r.maxAnisotropy, "pmaxAniso")); }
    @Override public int cuTexRefGetMipmapFilterMode(long p, long h) { return get("cuTexRefGetMipmapFilterMode", h, r -> Mem.putInt(p, r.mipmapFilter, "pfm")); }

    @Override
    public int cuTexRefGetFormat(long pFormat, long pNumChannels, long h) {
        return get("cuTexRefGetFormat", h, r -> {
            if (pFormat != 0) HostRuntime.putInt(pFormat, r.format);
            if (pNumChannels != 0) HostRuntime.putInt(pNumChannels, r.channels);
        });
    }

    @Override
    public int cuTexRefGetBorderColor(long color, long h) {
        return get("cuTexRefGetBorderColor", h, r -> {
            Mem.nonNull(color, "pBorderColor");
            for (int k = 0; k < 4; k++) HostRuntime.putInt(color + 4L * k, Float.floatToRawIntBits(r.border[k]));
        });
    }

    @Override
    public int cuTexRefGetMipmapLevelBias(long p, long h) {
        return get("cuTexRefGetMipmapLevelBias", h, r -> Mem.putInt(p, Float.floatToRawIntBits(r.mipmapBias), "pbias"));
    }

    @Override
    public int cuTexRefGetMipmapLevelClamp(long pMin, long pMax, long h) {
        return get("cuTexRefGetMipmapLevelClamp", h, r -> {
            Mem.putInt(pMin, Float.floatToRawIntBits(r.mipmapMin), "pminMipmapLevelClamp");
            Mem.putInt(pMax, Float.floatToRawIntBits(r.mipmapMax), "pmaxMipmapLevelClamp");
        });
    }

    @Override
    public int cuSurfRefSetArray(long hSurfRef, long hArray, int flags) {
        return Api.call("cuSurfRefSetArray", () -> {
            TextureReference r = ref(hSurfRef, true);
            CudaArray a = d.handles.get(hArray, CudaArray.class);
            if (flags != 0) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "flags must be 0");
            synchronized (r) {
                r.bindArray(a, hArray, false);
                r.update(d, true);
            }
        });
    }

    @Override
    public int cuSurfRefGetArray(long phArray, long hSurfRef) {
        return Api.call("cuSurfRefGetArray", () -> {
            TextureReference r = ref(hSurfRef, true);
            synchronized (r) {
                if (r.kind != TextureReference.ARRAY) throw new CudaException(CuResult.CUDA_ERROR_INVALID_VALUE, "the reference is not bound to an array");
                Mem.putLong(phArray, r.arrayHandle, "phArray");
            }
        });
    }

}
