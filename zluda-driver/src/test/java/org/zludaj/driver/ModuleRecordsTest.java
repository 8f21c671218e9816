package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.zludaj.driver.fatbin.Fatbin;

/** A module's record as the compile cache holds it (ModuleRecords), and the key it is found by. */
class ModuleRecordsTest {
    private static final String A = "a".repeat(64), B = "b".repeat(64);

    @Test
    void aRecordReadsBackAsWritten() {
        String declarations = ".version 8.0\n.target sm_75\n.address_size 64\n.global .align 4 .b8 table[32];\n";
        var r = new ModuleRecords.Record(A, B, List.of("first", "_Z6secondPii", "k$3"), declarations);
        var back = ModuleRecords.Record.decode(r.encode());
        assertEquals(r, back);
        var none = new ModuleRecords.Record(A, B, List.of(), "");
        assertEquals(none, ModuleRecords.Record.decode(none.encode()), "a module without kernels, nothing declared");
    }

    @Test
    void whatIsNotARecordReadsAsNone() {
        byte[] good = new ModuleRecords.Record(A, B, List.of("k1", "k2"), ".version 8.0\n").encode();
        String text = new String(good, StandardCharsets.UTF_8);
        assertNull(ModuleRecords.Record.decode("garbage".getBytes(StandardCharsets.UTF_8)));
        assertNull(ModuleRecords.Record.decode(new byte[0]));
        assertNull(ModuleRecords.Record.decode(text.replace("record 1", "record 0").getBytes(StandardCharsets.UTF_8)), "another version");
        assertNull(ModuleRecords.Record.decode(text.replace("\n2\n", "\nxx\n").getBytes(StandardCharsets.UTF_8)), "no kernel count");
        assertNull(ModuleRecords.Record.decode(text.replace("\n2\n", "\n9\n").getBytes(StandardCharsets.UTF_8)), "fewer kernels than counted");
        assertNull(ModuleRecords.Record.decode(text.replace(A, "abc").getBytes(StandardCharsets.UTF_8)), "not a digest");
    }

    /** The key is the element as stored: its bytes, its target, its compression; never its decompressed text. */
    @Test
    void aRecordsKeyIsTheElementAsStored() {
        byte[] ptx = ".version 8.0\n.target sm_75\n".getBytes(StandardCharsets.UTF_8);
        var e = new Fatbin.Entry(1, 75, 8, 0, ptx);
        assertEquals(ModuleRecords.key(e), ModuleRecords.key(new Fatbin.Entry(1, 75, 8, 0, ptx.clone())));
        assertNotEquals(ModuleRecords.key(e), ModuleRecords.key(new Fatbin.Entry(1, 86, 8, 0, ptx)), "another target");
        byte[] other = ptx.clone();
        other[other.length - 2] = '6';
        assertNotEquals(ModuleRecords.key(e), ModuleRecords.key(new Fatbin.Entry(1, 75, 8, 0, other)), "another text");
    }
}
