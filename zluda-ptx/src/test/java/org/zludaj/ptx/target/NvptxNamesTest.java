package org.zludaj.ptx.target;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** NvptxNames: the renaming of '%' names, usable where LLVM is absent (the cuda backend running from the cache). */
class NvptxNamesTest {
    @Test
    void namesBeginningWithPercentAreRenamedOthersKept() {
        assertEquals(NvptxNames.PERCENT + "k", NvptxNames.of("%k"));
        assertEquals(NvptxNames.PERCENT + "rd2", NvptxNames.of("%rd2"));
        assertEquals("k_param$1", NvptxNames.of("k_param$1"));
        assertEquals("__zluda_got$" + NvptxNames.PERCENT + "gv", NvptxNames.of("__zluda_got$%gv"), "a variable's slot");
        assertEquals(NvptxNames.of("%k"), new NvptxTarget(90).symbol("%k"));
    }

    /**
     * The GPU check's distribution has no LLVM (every kernel comes from the compile cache): the cuda backend once looked
     * names up through NvptxTarget, whose loading needs LLVM's classes, and every cuModuleGetFunction failed there.
     */
    @Test
    void needsNoLlvmClasses() throws Exception {
        try (var in = NvptxNames.class.getResourceAsStream("NvptxNames.class")) {
            String constants = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertFalse(constants.contains("org/bytedeco"), "NvptxNames refers to LLVM's classes");
            assertFalse(constants.contains("org/zludaj/ptx/target/NvptxTarget"), "NvptxNames refers to NvptxTarget");
        }
    }
}
