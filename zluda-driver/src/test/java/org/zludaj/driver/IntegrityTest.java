package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class IntegrityTest {
    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    @Test
    void md2MatchesRfc1319() throws Exception {
        MessageDigest md2 = MessageDigest.getInstance("MD2");
        assertEquals("8350e5a3e24c153df2275c9f80692773", hex(md2.digest(new byte[0])));
        assertEquals("da853b0d3f88d99b30283a69e6ded6bb", hex(md2.digest("abc".getBytes(StandardCharsets.US_ASCII))));
        assertEquals("4e8ddff3650292ab5a4108c3aa47940b",
                hex(md2.digest("abcdefghijklmnopqrstuvwxyz".getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void hmacIsRfc2104WithA16ByteBlock() throws Exception {
        byte[] msg = "message".getBytes(StandardCharsets.US_ASCII);
        byte[] ipad = new byte[16], opad = new byte[16];
        for (int i = 0; i < 16; i++) {
            ipad[i] = (byte) (Integrity.KEY[i] ^ 0x36);
            opad[i] = (byte) (Integrity.KEY[i] ^ 0x5c);
        }
        MessageDigest md2 = MessageDigest.getInstance("MD2");
        byte[] inner = md2.digest(concat(ipad, msg));
        byte[] expected = md2.digest(concat(opad, inner));
        assertArrayEquals(expected, Integrity.hmacMd2(Integrity.KEY, msg));
        assertFalse(java.util.Arrays.equals(expected, Integrity.hmacMd2(new byte[16], msg)), "the key matters");
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Test
    void messageLayoutIs48BytesPlus28PerDevice() {
        byte[] uuid = new byte[16];
        uuid[0] = (byte) 0xac;
        uuid[15] = 0x0f;
        byte[] m = Integrity.message(13000, 13002, 456, 0xc115d000, 0x1111, 0x2222, 0x3333, 1700000000L,
                new Integrity.DeviceInfo[] {new Integrity.DeviceInfo(uuid, 0, 0, 6)});
        assertEquals(48 + 28, m.length);
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(13000, b.getInt(0));
        assertEquals(13002, b.getInt(4));
        assertEquals(456, b.getInt(8));
        assertEquals(0xc115d000, b.getInt(12));
        assertEquals(0x1111, b.getLong(16));
        assertEquals(0x2222, b.getLong(24));
        assertEquals(0x3333, b.getLong(32));
        assertEquals(1700000000L, b.getLong(40));
        assertEquals((byte) 0xac, m[48]);
        assertEquals(0x0f, m[63]);
        assertEquals(6, b.getInt(72));
    }
}
