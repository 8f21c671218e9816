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
     * A large module's variables are read declared only, without their initializers (each of ggml's modules carries
     * 96 KB of tables), and the same text is parsed once per process: the second module gets the first one's model
     * under its own name; the variables unit itself is parsed when asked for; a text with errors is not kept.
     */
    @Test
    void aVariablesTextIsParsedOnce() throws Exception {
        String ptx = ".version 7.0\n.target sm_75\n.address_size 64\n.global .align 4 .b8 table[4] = {1, 2, 3, 4};\n"
                + ".visible .entry k() { ret; }\n";
        CodeLoader.ParsedTexts memo = new CodeLoader.ParsedTexts(4);
        CodeLoader.Read a = CodeLoader.read(List.of(ptx + "\n".repeat(2 << 20)), "a", memo, null);
        CodeLoader.Read b = CodeLoader.read(List.of(ptx + "\n".repeat(2 << 20)), "b", memo, null);
        assertNull(a.parsed(), "a module over 1 MiB is indexed, not parsed whole");
        assertNull(a.variables(), "its variables only declared: their initializers are the backend's to parse, if at all");
        assertEquals("a", a.declarations().name());
        assertEquals("b", b.declarations().name());
        assertSame(a.declarations().globals(), b.declarations().globals(), "parsed once");
        assertEquals(1, b.declarations().globals().size());
        assertNull(b.declarations().globals().get(0).initializer());
        var table = CodeLoader.variables(b, "b", memo).globals().get(0);
        assertEquals("table", table.name());
        assertNotNull(table.initializer(), "the variables unit, parsed when asked for");
        CodeLoader.ParsedTexts small = new CodeLoader.ParsedTexts(1);
        assertFalse(small.parse("bad", ".version 7.0\n.target sm_75\n.address_size 64\n.global .u32 x = ;\n").ok());
        assertFalse(small.parse("bad", ".version 7.0\n.target sm_75\n.address_size 64\n.global .u32 x = ;\n").ok(), "errors again, not kept");
    }

    /**
     * A small module is parsed whole at its first load (its errors are the load's, as NVIDIA's), and marked in the
     * compile cache; a later load of the same text, by this process or another, reads it as large modules are read
     * (index and variables). A text with errors is never marked: it fails at every load.
     */
    @Test
    void aSmallModuleParsedWithoutErrorIsNotParsedWholeAgain(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        String ptx = ".version 7.0\n.target sm_75\n.address_size 64\n.global .align 4 .b8 table[4] = {1, 2, 3, 4};\n"
                + ".visible .entry k(.param .u64 p) { .reg .b64 %rd<2>; ld.param.u64 %rd1, [p]; ret; }\n";
        var cache = new org.zludaj.ptx.cache.CompileCache(dir, 1 << 20);
        CodeLoader.Read first = CodeLoader.read(List.of(ptx), "m", null, new CodeLoader.ParseMarks(() -> cache));
        assertNotNull(first.parsed(), "parsed whole at the first load");
        CodeLoader.Read again = CodeLoader.read(List.of(ptx), "m", null, new CodeLoader.ParseMarks(() -> cache));
        assertNull(again.parsed(), "not parsed whole again");
        assertEquals(List.of("k"), again.index().kernels());
        assertEquals(1, again.declarations().globals().size());
        assertEquals(first.variables().globals().get(0).name(), again.declarations().globals().get(0).name());
        String bad = ptx.replace("ret;", "ret ret;");
        for (int i = 0; i < 2; i++) {
            var e = assertThrows(CudaException.class, () -> CodeLoader.read(List.of(bad), "bad", null, new CodeLoader.ParseMarks(() -> cache)));
            assertEquals(org.zludaj.api.CuResult.CUDA_ERROR_INVALID_PTX, e.result());
        }
        CodeLoader.Read off = CodeLoader.read(List.of(ptx), "m", null, new CodeLoader.ParseMarks(() -> null));
        assertNotNull(off.parsed(), "no cache (ZLUDA_CACHE=off): parsed whole");
    }
}
