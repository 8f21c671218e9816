package org.zludaj.driver.backend.hip;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.llvm.Tools;

/**
 * comgr against the comgr this machine has (Debian's libamd-comgr2, pulled in by libamdhip64-5): our relocatable
 * object linked by comgr is a code object with the same kernel, metadata and code as ld.lld's; by default comgr links
 * for the GPUs it lists and ld.lld for the others (ZLUDA_CODEOBJECT chooses one for all).
 */
class ComgrLinkerTest {
    /** This machine's comgr; the test is skipped, saying why, where there is none. */
    private static ComgrLinker comgrOrSkip() {
        try {
            return ComgrLinker.open();
        } catch (java.io.IOException e) {
            Assumptions.abort("no comgr here (" + e.getMessage() + "): apt-get install libamd-comgr2");
            return null;
        }
    }

    @Test
    void comgrLinksOurRelocatableObjectsLikeLld(@TempDir Path dir) throws Exception {
        ComgrLinker comgr = comgrOrSkip();
        assertTrue(comgr.library().startsWith("libamd_comgr"), comgr.library());
        var ptx = Ptx.parse("k.ptx", HipBackendTest.PTX);
        int linked = 0;
        for (String gfx : List.of("gfx1030", "gfx1100", "gfx1201")) {
            byte[] lld = Compiler.amdgpu(ptx, gfx, Compiler.LLD);
            byte[] viaComgr;
            try {
                viaComgr = Compiler.amdgpu(ptx, gfx, comgr);
            } catch (PtxException e) {
                // an older comgr may not know a newer GPU: it must say so, not crash
                assertTrue(e.getMessage().contains("comgr"), e.getMessage());
                System.out.println("comgr (" + comgr.library() + ") cannot link " + gfx + ": " + e.getMessage().lines().findFirst().orElse(""));
                continue;
            }
            linked++;
            assertEquals(3, viaComgr[16], gfx + ": ET_DYN, a loadable code object");
            Path a = dir.resolve(gfx + "-lld.hsaco"), b = dir.resolve(gfx + "-comgr.hsaco");
            Files.write(a, lld);
            Files.write(b, viaComgr);
            String notesA = Tools.run("llvm-readobj", List.of("--notes", a.toString())).replace(a.toString(), "");
            String notesB = Tools.run("llvm-readobj", List.of("--notes", b.toString())).replace(b.toString(), "");
            assertEquals(notesA, notesB, gfx + ": the same kernel metadata");
            String dynB = Tools.run("llvm-readobj", List.of("--dyn-symbols", b.toString()));
            assertTrue(dynB.contains("k.kd") && dynB.contains("counter"), gfx + ": kernel descriptor and variable exported: " + dynB);
            String asmA = Tools.run("llvm-objdump", List.of("-d", "--no-show-raw-insn", "--no-leading-addr", a.toString()));
            String asmB = Tools.run("llvm-objdump", List.of("-d", "--no-show-raw-insn", "--no-leading-addr", b.toString()));
            assertEquals(body(asmA), body(asmB), gfx + ": the same code");
        }
        System.out.println("comgr (" + comgr.library() + ") linked " + linked + " of 3 targets like ld.lld");
        assertTrue(linked >= 1, "comgr links at least gfx1030");
        // unknown targets are an error with comgr's reason
        PtxException e = assertThrows(PtxException.class, () -> Compiler.amdgpu(ptx, "gfx1030", new Compiler.CodeObjectLinker() {
            public String name() { return "comgr"; }
            public byte[] link(byte[] o, String gfx) throws java.io.IOException { return comgr.link(o, "gfx9999"); }
        }));
        assertTrue(e.getMessage().contains("comgr"), e.getMessage());
    }

    /** Disassembly without the file name line. */
    private static String body(String asm) {
        return asm.substring(asm.indexOf("Disassembly of section"));
    }

    @Test
    void theLinkerChoiceFollowsZludaCodeobject() {
        assertSame(Compiler.LLD, HipBackend.linker("lld"));
        assertSame(Compiler.LLD, HipBackend.linker("gold"), "unknown choices fall back to ld.lld");
        Compiler.CodeObjectLinker c = HipBackend.linker("comgr");
        Compiler.CodeObjectLinker auto = HipBackend.linker(null);
        assertEquals(auto.name(), HipBackend.linker("auto").name());
        assertEquals(auto.name(), HipBackend.linker("").name());
        ComgrLinker comgr;
        try {
            comgr = ComgrLinker.open();
        } catch (java.io.IOException e) {
            assertSame(Compiler.LLD, c, "without comgr: ld.lld");
            assertSame(Compiler.LLD, auto, "without comgr, the default is ld.lld");
            return;
        }
        assertEquals("comgr", c.name());
        assertSame(c, c.forTarget("gfx9999"), "ZLUDA_CODEOBJECT=comgr: comgr for every GPU");
        // the default: comgr for the GPUs it lists, ld.lld for the others, chosen before compiling
        assertTrue(comgr.knows("gfx1030"), "every comgr since ROCm 4 lists gfx1030");
        assertFalse(comgr.knows("gfx9999"));
        assertFalse(comgr.knows("gfx103"), "a prefix of a name is not the name");
        assertSame(Compiler.LLD, auto.forTarget("gfx9999"), "a GPU comgr does not know: ld.lld");
        assertEquals("comgr", auto.forTarget("gfx1030").name());
        for (String gfx : List.of("gfx1030", "gfx1100", "gfx1201")) {
            String kind = Compiler.codeObjectKind(auto, gfx);
            assertEquals(comgr.knows(gfx) ? "amdgpu-code-object+comgr" : "amdgpu-code-object", kind,
                    gfx + ": the cache keeps each code object under the linker that made it");
        }
    }

    @Test
    void theDefaultLinksWithComgrWhereItKnowsTheGpuAndTheCacheServesItsOwn(@TempDir Path dir) throws Exception {
        ComgrLinker comgr = comgrOrSkip();
        var ptx = Ptx.parse("k.ptx", HipBackendTest.PTX);
        var cache = new org.zludaj.ptx.cache.CompileCache(dir, 1 << 24);
        Compiler.CodeObjectLinker auto = HipBackend.linker(null);
        byte[] viaAuto = Compiler.amdgpuCached(cache, ptx, "gfx1030", auto);
        assertTrue(Compiler.lastCompiled());
        assertArrayEquals(Compiler.amdgpu(ptx, "gfx1030", comgr), viaAuto, "gfx1030: linked by comgr");
        assertArrayEquals(viaAuto, Compiler.amdgpuCached(cache, ptx, "gfx1030", auto));
        assertFalse(Compiler.lastCompiled(), "the second time from the cache");
        Compiler.amdgpuCached(cache, ptx, "gfx1030", Compiler.LLD);
        assertTrue(Compiler.lastCompiled(), "ld.lld's code object is another entry (ZLUDA_CODEOBJECT=lld)");
    }
}
