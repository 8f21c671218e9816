package org.zludaj.tests;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zludaj.driver.fatbin.Fatbin;

/** The fatbin reader on real nvcc 13 output: plain, zstd (default) and LZ4 (--compress-mode=speed) elements. */
class FatbinTest {
    /** The TU's own container in .nv_fatbin (nvcc puts the device-link container first). */
    static List<Fatbin.Entry> entries(Path exe, Path dir) throws Exception {
        Path sec = dir.resolve("fatbin.bin");
        Programs.build(List.of("objcopy", "-O", "binary", "--only-section=.nv_fatbin", exe.toString(), sec.toString()), sec, dir);
        byte[] all = Files.readAllBytes(sec);
        ByteBuffer b = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
        List<Fatbin.Entry> found = new java.util.ArrayList<>();
        for (int pos = 0; pos + 16 <= all.length; ) {
            assertEquals(Fatbin.CONTAINER_MAGIC, b.getInt(pos), "container at " + pos);
            int size = (int) b.getLong(pos + 8);
            found.addAll(Fatbin.fromBytes(java.util.Arrays.copyOfRange(all, pos, pos + 16 + size)));
            pos = (pos + 16 + size + 7) & ~7;
        }
        return found;
    }

    static void assertVectoraddPtx(List<Fatbin.Entry> es, int sm) {
        Fatbin.Entry ptx = es.stream().filter(Fatbin.Entry::isPtx).findFirst().orElseThrow(() -> new AssertionError("no PTX in " + es));
        assertEquals(sm, ptx.smVersion());
        assertEquals(9, ptx.isaMajor());
        assertTrue(ptx.text().contains(".visible .entry _Z4vaddPKfS0_Pfi("), ptx.text());
        assertTrue(ptx.text().contains(".target sm_" + sm), ptx.text());
    }

    @Test
    void zstdPtx(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        assertVectoraddPtx(entries(Programs.nvcc(dir, "vectoradd.cu", "z", "-arch=compute_75"), dir), 75);
    }

    @Test
    void lz4Ptx(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        assertVectoraddPtx(entries(Programs.nvcc(dir, "vectoradd.cu", "l", "-arch=compute_86", "--compress-mode=speed"), dir), 86);
    }

    @Test
    void uncompressedPtxAndCubin(@TempDir Path dir) throws Exception {
        Programs.requireNvcc();
        List<Fatbin.Entry> es = entries(Programs.nvcc(dir, "vectoradd.cu", "n", "-gencode", "arch=compute_90,code=[sm_90,compute_90]",
                "--no-compress"), dir);
        assertVectoraddPtx(es, 90);
        assertTrue(es.stream().anyMatch(e -> !e.isPtx() && e.payload()[0] == 0x7f && e.payload()[1] == 'E'), "cubin ELF kept: " + es);
    }

    @Test
    void corruptContainerIsAnErrorNotACrash() {
        byte[] c = new byte[16 + 0x40 + 8];
        ByteBuffer b = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, Fatbin.CONTAINER_MAGIC).putShort(4, (short) 1).putShort(6, (short) 16).putLong(8, 0x48);
        b.putShort(16, (short) 1).putInt(20, 0x40).putLong(24, 8).putLong(16 + 0x28, 0x8011).putLong(16 + 0x38, 100);
        Fatbin.FatbinException e = assertThrows(Fatbin.FatbinException.class, () -> Fatbin.fromBytes(c));
        assertTrue(e.getMessage().contains("zstd"), e.getMessage());
    }
}
