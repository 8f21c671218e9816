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

    @Test
    void slowCallsAreListedWithWhereTheyWaited() throws InterruptedException {
        long t0 = CallProfile.begin("cuTestSlow");
        long nested = CallProfile.begin("cuTestNested");  // a call inside a call: counted, not listed on its own
        Thread.sleep(5);
        CallProfile.end("cuTestNested", nested);
        Thread.sleep(40);
        CallProfile.end("cuTestSlow", t0);
        String table = CallProfile.table();
        List<String> lines = table.lines().toList();
        int at = -1;
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith("  cuTestSlow at ")) at = i;
        assertTrue(at > 0, table);
        double ms = Double.parseDouble(lines.get(at).replaceAll(".*: ([0-9.]+) ms$", "$1"));
        assertTrue(ms >= 45, table);
        assertTrue(lines.get(at + 1).matches("\\s+\\d+ x Thread\\.sleep.* < CallProfileTest\\.slowCallsAreListedWithWhereTheyWaited:\\d+.*"), table);
        assertTrue(table.lines().noneMatch(l -> l.startsWith("  cuTestNested at ")), table);
        assertTrue(table.lines().anyMatch(l -> l.startsWith("cuTestNested ")), table);
    }
}
