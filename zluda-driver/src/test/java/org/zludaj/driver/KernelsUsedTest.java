package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelsUsedTest {
    @Test
    void eachNameOncePerProcessAppendedToWhatIsThere(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("used.txt");
        Files.writeString(f, "from_another_process\n");
        Set<String> seen = ConcurrentHashMap.newKeySet();
        KernelsUsed.record(f, "_Z4vaddPKfS0_Pfi", seen);
        KernelsUsed.record(f, "_Z5saxpyfPKfPfi", seen);
        KernelsUsed.record(f, "_Z4vaddPKfS0_Pfi", seen);
        assertEquals(List.of("from_another_process", "_Z4vaddPKfS0_Pfi", "_Z5saxpyfPKfPfi"), Files.readAllLines(f));
    }

    @Test
    void anUnwritableFileIsNoError(@TempDir Path dir) {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        assertDoesNotThrow(() -> KernelsUsed.record(dir.resolve("no/such/dir/used.txt"), "k", seen));
        assertDoesNotThrow(() -> KernelsUsed.record(dir.resolve("no/such/dir/used.txt"), "k2", seen));
    }

    @Test
    void unsetOrBlankIsOff() {
        assertNull(KernelsUsed.file(null));
        assertNull(KernelsUsed.file("  "));
        assertEquals(Path.of("/tmp/k.txt"), KernelsUsed.file(" /tmp/k.txt "));
    }
}
