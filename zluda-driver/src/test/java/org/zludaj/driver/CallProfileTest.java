package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** ZLUDA_PROFILE=calls' table: calls and time per function, largest total first. */
class CallProfileTest {
    @Test
    void tableListsFunctionsByTotalTime() {
        CallProfile.add("cuTestSmall", 1_000);
        CallProfile.add("cuTestLarge", 3_000_000);
        CallProfile.add("cuTestLarge", 1_000_000);
        List<String> lines = CallProfile.table().lines().toList();
        int large = -1, small = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("cuTestLarge ")) large = i;
            if (lines.get(i).startsWith("cuTestSmall ")) small = i;
        }
        assertTrue(large > 0 && small > large, CallProfile.table());
        String[] row = lines.get(large).trim().split("\\s+");
        assertEquals("2", row[1]);
        assertEquals(4.0, Double.parseDouble(row[2]), 1e-9, "total ms");
        assertEquals(2000.0, Double.parseDouble(row[3]), 1e-9, "us per call");
    }
}
