package org.zludaj.driver;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The answer of export-table slot d4082055[1] for versions whose last digit is 2 or more: HMAC-MD2 (RFC 2104, MD2
 * block 16 bytes) keyed with NVIDIA's key, over a 48-byte header (driver version, requested version, pid, thread,
 * the addresses of two export tables and of the slot function, the caller's time) followed by 28 bytes per device
 * (UUID, PCI domain, bus, device). Verified by cudart accepting it (see docs/architecture.md).
 */
public final class Integrity {
    private Integrity() {}

    static final byte[] KEY = {0x14, 0x6A, (byte) 0xDD, (byte) 0xAE, 0x53, (byte) 0xA9, (byte) 0xA7, 0x52,
        (byte) 0xAA, 0x08, 0x41, 0x36, 0x0B, (byte) 0xF5, 0x5A, (byte) 0x9F};

    public record DeviceInfo(byte[] uuid, int pciDomain, int pciBus, int pciDevice) {}

    public static byte[] message(int driverVersion, int version, int pid, int threadId, long cudartTable,
                                 long integrityTable, long integritySlot, long unixSeconds, DeviceInfo[] devices) {
        ByteBuffer b = ByteBuffer.allocate(48 + 28 * devices.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(driverVersion).putInt(version).putInt(pid).putInt(threadId);
        b.putLong(cudartTable).putLong(integrityTable).putLong(integritySlot).putLong(unixSeconds);
        for (DeviceInfo d : devices) b.put(d.uuid(), 0, 16).putInt(d.pciDomain()).putInt(d.pciBus()).putInt(d.pciDevice());
        return b.array();
    }

    public static byte[] hmacMd2(byte[] key, byte[] message) {
        try {
            byte[] k = java.util.Arrays.copyOf(key, 16);
            byte[] ipad = new byte[16], opad = new byte[16];
            for (int i = 0; i < 16; i++) {
                ipad[i] = (byte) (k[i] ^ 0x36);
                opad[i] = (byte) (k[i] ^ 0x5C);
            }
            MessageDigest md2 = MessageDigest.getInstance("MD2");
            md2.update(ipad);
            byte[] inner = md2.digest(message);
            md2.update(opad);
            return md2.digest(inner);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no MD2", e);
        }
    }
}
