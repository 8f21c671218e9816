package org.zludaj.driver.fatbin;

import io.airlift.compress.MalformedInputException;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * NVIDIA fatbinaries: the {@code __fatBinC_Wrapper_t} cudart hands to cuLibraryLoadData, the 0xBA55ED50 container
 * and its PTX/ELF elements, zstd (flag 0x8000) and raw LZ4 block (0x2000) payloads. Layouts as measured from nvcc
 * 13 (shared/research/cudart13-driver-interface.md §6).
 */
public final class Fatbin {
    private Fatbin() {}

    public static final int WRAPPER_MAGIC = 0x466243B1;
    public static final int CONTAINER_MAGIC = 0xBA55ED50;
    public static final int ELF_MAGIC = 0x464C457F;
    static final int KIND_PTX = 1, KIND_ELF = 2;
    static final long FLAG_LZ4 = 0x2000, FLAG_ZSTD = 0x8000;

    /**
     * One element of a container: PTX text or a cubin ELF, its payload as stored (zstd or LZ4 compressed, or not) and
     * decompressed when first asked for ({@link #payload}): a module loaded by its record (ModuleRecords) never is.
     */
    public static final class Entry {
        private final int kind, smVersion, isaMajor, isaMinor;
        private final byte[] stored;
        private final int compressed;
        private final long uncompressed, flags;
        private volatile byte[] payload;

        /** An element whose payload is stored as it is (not compressed). */
        public Entry(int kind, int smVersion, int isaMajor, int isaMinor, byte[] payload) {
            this(kind, smVersion, isaMajor, isaMinor, payload, 0, payload.length, 0);
            this.payload = payload;
        }

        Entry(int kind, int smVersion, int isaMajor, int isaMinor, byte[] stored, int compressed, long uncompressed, long flags) {
            this.kind = kind;
            this.smVersion = smVersion;
            this.isaMajor = isaMajor;
            this.isaMinor = isaMinor;
            this.stored = stored;
            this.compressed = compressed;
            this.uncompressed = uncompressed;
            this.flags = flags;
        }

        public int kind() {
            return kind;
        }

        public int smVersion() {
            return smVersion;
        }

        public int isaMajor() {
            return isaMajor;
        }

        public int isaMinor() {
            return isaMinor;
        }

        public boolean isPtx() {
            return kind == KIND_PTX;
        }

        /** The payload decompressed (now, the first time); FatbinException where it is corrupt. */
        public byte[] decompressed() throws FatbinException {
            byte[] p = payload;
            if (p == null) payload = p = (flags & (FLAG_ZSTD | FLAG_LZ4)) != 0 ? decompress(stored, compressed, uncompressed, flags) : stored;
            return p;
        }

        /** The payload decompressed; an IllegalStateException where it is corrupt (see {@link #decompressed}). */
        public byte[] payload() {
            try {
                return decompressed();
            } catch (FatbinException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }

        /** The PTX text (NULs at its end stripped). */
        public String text() {
            byte[] b = payload();
            int n = b.length;
            while (n > 0 && b[n - 1] == 0) n--;
            return new String(b, 0, n, StandardCharsets.UTF_8);
        }

        /** SHA-256 (hex) of the element as stored (kind, target, compression and bytes), without decompressing it. */
        public String storedDigest() {
            java.security.MessageDigest md;
            try {
                md = java.security.MessageDigest.getInstance("SHA-256");
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            md.update(ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN).putInt(kind).putInt(smVersion).putLong(flags)
                    .putLong(compressed).putLong(uncompressed).putLong(stored.length).array());
            md.update(stored);
            return java.util.HexFormat.of().formatHex(md.digest());
        }
    }

    /** Malformed fatbin data. */
    public static final class FatbinException extends Exception {
        public FatbinException(String message) {
            super(message);
        }
    }

    /** Reads raw memory of the process: address, length -> bytes. */
    @FunctionalInterface
    public interface Memory {
        byte[] read(long address, int length);
    }

    /** The containers behind a {@code __fatBinC_Wrapper_t} at {@code address}. */
    public static List<Entry> fromWrapper(Memory mem, long address) throws FatbinException {
        ByteBuffer w = le(mem.read(address, 24));
        if (w.getInt(0) != WRAPPER_MAGIC) throw new FatbinException("not a fatbin wrapper (magic 0x" + Integer.toHexString(w.getInt(0)) + ")");
        int version = w.getInt(4);
        long data = w.getLong(8), extra = w.getLong(16);
        List<Entry> out = new ArrayList<>();
        if (data != 0) out.addAll(fromContainer(mem, data));
        if (version == 2 && extra != 0) {  // NULL-terminated array of prelinked containers
            for (int i = 0; i < 4096; i++) {
                long p = le(mem.read(extra + 8L * i, 8)).getLong(0);
                if (p == 0) break;
                out.addAll(fromContainer(mem, p));
            }
        } else if (version != 1 && version != 2) {
            throw new FatbinException("unknown fatbin wrapper version " + version);
        }
        return out;
    }

    /** The elements of the 0xBA55ED50 container at {@code address} (payloads decompressed when first asked for). */
    public static List<Entry> fromContainer(Memory mem, long address) throws FatbinException {
        ByteBuffer h = le(mem.read(address, 16));
        if (h.getInt(0) != CONTAINER_MAGIC) throw new FatbinException("not a fatbin container (magic 0x" + Integer.toHexString(h.getInt(0)) + ")");
        int headerSize = Short.toUnsignedInt(h.getShort(6));
        long size = h.getLong(8);
        if (size < 0 || size > (1L << 31) - 64) throw new FatbinException("fatbin container of " + size + " bytes");
        return parseElements(le(mem.read(address + headerSize, (int) size)));
    }

    /** Elements of an in-memory container (header included). */
    public static List<Entry> fromBytes(byte[] container) throws FatbinException {
        ByteBuffer h = le(container);
        if (container.length < 16 || h.getInt(0) != CONTAINER_MAGIC) throw new FatbinException("not a fatbin container");
        int headerSize = Short.toUnsignedInt(h.getShort(6));
        long size = h.getLong(8);
        if (headerSize + size > container.length) throw new FatbinException("truncated fatbin container");
        List<Entry> out = parseElements(le(java.util.Arrays.copyOfRange(container, headerSize, (int) (headerSize + size))));
        for (Entry e : out) e.decompressed();  // a corrupt element is this call's error
        return out;
    }

    private static List<Entry> parseElements(ByteBuffer b) throws FatbinException {
        List<Entry> out = new ArrayList<>();
        int pos = 0;
        while (pos + 0x40 <= b.capacity()) {
            int kind = Short.toUnsignedInt(b.getShort(pos));
            long headerSize = Integer.toUnsignedLong(b.getInt(pos + 4));
            long payloadSize = b.getLong(pos + 8);
            long compressed = Integer.toUnsignedLong(b.getInt(pos + 0x10));
            int minor = Short.toUnsignedInt(b.getShort(pos + 0x18)), major = Short.toUnsignedInt(b.getShort(pos + 0x1a));
            int sm = b.getInt(pos + 0x1c);
            long flags = b.getLong(pos + 0x28);
            long uncompressed = b.getLong(pos + 0x38);
            long start = pos + headerSize;
            if (headerSize < 0x40 || payloadSize < 0 || start + payloadSize > b.capacity())
                throw new FatbinException("fatbin element at +" + pos + " runs past its container");
            byte[] payload = new byte[(int) payloadSize];
            b.get((int) start, payload);
            boolean packed = (flags & (FLAG_ZSTD | FLAG_LZ4)) != 0;
            if (packed && (uncompressed <= 0 || uncompressed > (1L << 31) - 64))
                throw new FatbinException("compressed element of " + uncompressed + " bytes");
            if (kind == KIND_PTX || kind == KIND_ELF)
                out.add(new Entry(kind, sm, major, minor, payload, (int) compressed, packed ? uncompressed : payloadSize, packed ? flags : 0));
            pos = (int) (start + payloadSize);
        }
        return out;
    }

    private static byte[] decompress(byte[] payload, int compressed, long uncompressed, long flags) throws FatbinException {
        if (uncompressed <= 0 || uncompressed > (1L << 31) - 64) throw new FatbinException("compressed element of " + uncompressed + " bytes");
        int len = compressed > 0 && compressed <= payload.length ? compressed : payload.length;
        byte[] out = new byte[(int) uncompressed];
        try {
            int n = (flags & FLAG_ZSTD) != 0
                    ? new ZstdDecompressor().decompress(payload, 0, len, out, 0, out.length)
                    : new Lz4Decompressor().decompress(payload, 0, len, out, 0, out.length);
            return n == out.length ? out : java.util.Arrays.copyOf(out, n);
        } catch (MalformedInputException | IllegalArgumentException e) {
            throw new FatbinException("corrupt " + ((flags & FLAG_ZSTD) != 0 ? "zstd" : "LZ4") + " payload: " + e.getMessage());
        }
    }

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }
}
