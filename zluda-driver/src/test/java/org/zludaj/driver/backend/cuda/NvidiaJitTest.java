package org.zludaj.driver.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxIndex;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

/** ZLUDA_NVIDIA_JIT's pieces: which kernels it names, and the PTX handed to NVIDIA's JIT for a kernel unit. */
class NvidiaJitTest {
    static final String PTX = """
            .version 8.0
            .target sm_75
            .address_size 64
            .global .align 4 .u32 table[2] = {7, 9};
            .visible .entry scale(.param .u64 p)
            {
            	.reg .b32 %r<3>;
            	.reg .b64 %rd<3>;
            	ld.param.u64 %rd1, [p];
            	cvta.to.global.u64 %rd1, %rd1;
            	ld.global.u32 %r1, [table+4];
            	st.global.u32 [%rd1], %r1;
            	ret;
            }
            .visible .entry other(.param .u64 p)
            {
            	ret;
            }
            """;

    @Test
    void thePatternNamesKernelsOnly() throws Exception {
        PtxModule m = Ptx.parse("m", PTX);
        assertEquals(List.of("scale"), CudaBackend.nvidiaJitKernels(CudaBackend.nvidiaJitPattern("sca"), m));
        assertEquals(List.of("scale", "other"), CudaBackend.nvidiaJitKernels(CudaBackend.nvidiaJitPattern("."), m));
        assertEquals(List.of(), CudaBackend.nvidiaJitKernels(CudaBackend.nvidiaJitPattern(null), m));
        assertNull(CudaBackend.nvidiaJitPattern("("), "not a regular expression: ignored");
    }

    @Test
    void aKernelUnitGetsTheModulesVariableDefinitions(@TempDir Path work) throws Exception {
        PtxModule m = Ptx.parse("m", PTX);
        PtxModule unit = PtxIndex.asKernelUnit(m, "scale");
        PtxModule variables = Ptx.parse("m", PtxIndex.of(PTX).variablesText());
        assertTrue(PtxPrinter.print(unit).contains(".extern"), "the unit only declares the table");
        String text = PtxPrinter.print(CudaBackend.withVariables(unit, variables));
        assertFalse(text.contains(".extern"), text);
        assertTrue(text.replace(" ", "").contains("table[2]={7,9}"), text);
        assertFalse(text.contains("other"), text);
        // NVIDIA's compiler takes it where it is installed
        Path in = Files.writeString(work.resolve("unit.ptx"), text);
        Process p;
        try {
            p = new ProcessBuilder("ptxas", "-arch=sm_75", in.toString(), "-o", work.resolve("unit.cubin").toString())
                    .redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            System.out.println("ptxas is not installed: the unit's PTX is not assembled by NVIDIA's compiler here");
            return;
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), new String(p.getInputStream().readAllBytes()));
    }
}
