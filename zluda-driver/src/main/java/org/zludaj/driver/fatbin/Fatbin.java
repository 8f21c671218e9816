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

    /** One element of a container: PTX text (decompressed, NUL stripped) or a cubin ELF. */
    public record Entry(int kind, int smVersion, int isaMajor, int isaMinor, byte[] payload) {
        public boolean isPtx() {
            return kind == KIND_PTX;
        }

        public String text() {
            int n = payload.length;
            while (n > 0 && payload[n - 1] == 0) n--;
            return new String(payload, 0, n, StandardCharsets.UTF_8);
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

    /** The elements of the 0xBA55ED50 container at {@code address}. */
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
        return parseElements(le(java.util.Arrays.copyOfRange(container, headerSize, (int) (headerSize + size))));
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
            if ((flags & (FLAG_ZSTD | FLAG_LZ4)) != 0) payload = decompress(payload, (int) compressed, uncompressed, flags);
            if (kind == KIND_PTX || kind == KIND_ELF) out.add(new Entry(kind, sm, major, minor, payload));
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
