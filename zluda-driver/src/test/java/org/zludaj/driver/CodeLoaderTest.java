package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.zludaj.driver.fatbin.Fatbin;

/** Which of a fatbin's PTX images the loader tries first, for the compute capability it reports. */
class CodeLoaderTest {
    private static List<Integer> order(int cc, int... sms) {
        List<Fatbin.Entry> entries = new ArrayList<>();
        for (int sm : sms) entries.add(new Fatbin.Entry(1, sm, 0, 0, new byte[0]));
        entries.sort(CodeLoader.preference(cc));
        return entries.stream().map(Fatbin.Entry::smVersion).toList();
    }

    @Test
    void theHighestPtxNotAboveTheDeviceFirstThenNewerOnesLowestFirst() {
        // as NVIDIA's driver on an 8.6 device: compute_80 before compute_75; compute_89 and compute_90 only after them
        assertEquals(List.of(80, 75, 89, 90), order(86, 75, 90, 80, 89));
        // llama.cpp's release builds: compute_89 PTX only, taken although newer than 8.6
        assertEquals(List.of(89), order(86, 89));
        // the cuda backend on an H100 reports 9.0
        assertEquals(List.of(90, 86, 75), order(90, 75, 86, 90));
    }

    /**
     * The same variables text (each of ggml's modules declares the same 96 KB of tables) is parsed once per process:
     * the second module gets the first one's model under its own name; a text with errors is not kept.
     */
    @Test
    void aVariablesTextIsParsedOnce() throws Exception {
        String ptx = ".version 7.0\n.target sm_75\n.address_size 64\n.global .align 4 .b8 table[4] = {1, 2, 3, 4};\n"
                + ".visible .entry k() { ret; }\n";
        CodeLoader.ParsedTexts memo = new CodeLoader.ParsedTexts(4);
        CodeLoader.Read a = CodeLoader.read(List.of(ptx + "\n".repeat(2 << 20)), "a", memo);
        CodeLoader.Read b = CodeLoader.read(List.of(ptx + "\n".repeat(2 << 20)), "b", memo);
        assertNull(a.parsed(), "a module over 1 MiB is indexed, not parsed whole");
        assertEquals("a", a.variables().name());
        assertEquals("b", b.variables().name());
        assertSame(a.variables().globals(), b.variables().globals(), "parsed once");
        assertEquals(1, b.variables().globals().size());
        CodeLoader.ParsedTexts small = new CodeLoader.ParsedTexts(1);
        assertFalse(small.parse("bad", ".version 7.0\n.target sm_75\n.address_size 64\n.global .u32 x = ;\n").ok());
        assertFalse(small.parse("bad", ".version 7.0\n.target sm_75\n.address_size 64\n.global .u32 x = ;\n").ok(), "errors again, not kept");
    }
}
