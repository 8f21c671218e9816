package org.zludaj.ptx;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

class CompileProgressTest {
    /** A compilation over a second says so on stderr (what, for which target, then how long); a quick one says nothing. */
    @Test
    void slowCompilationsSayWhatTheyCompile() throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true));
        try {
            assertEquals(7, CompileProgress.run("quick.ptx (1 kernels)", "gfx1100", () -> 7));
            assertEquals("", captured.toString(), "nothing for a quick compilation");
            assertEquals(8, CompileProgress.run("big.ptx (3 kernels)", "sm_90", () -> {
                try {
                    Thread.sleep(1300);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return 8;
            }));
        } finally {
            System.setErr(err);
        }
        String text = captured.toString();
        assertTrue(text.contains("ZLUDA-J: compiling big.ptx (3 kernels) for sm_90..."), text);
        assertTrue(text.matches("(?s).*ZLUDA-J: compiled big\\.ptx \\(3 kernels\\) in 1\\.[0-9]+ s.*"), text);
    }
}
