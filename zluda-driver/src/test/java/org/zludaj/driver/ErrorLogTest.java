package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The error log's entries: NVIDIA's line format, made when read, and the kept size bounded by their text's length. */
class ErrorLogTest {
    @Test
    void entriesReadAsNvidiasLinesAndStayWithinTheCapacity() {
        ErrorLog log = new ErrorLog();
        log.add("cuCtxGetDevice", "no current context", 201);
        List<ErrorLog.Entry> e = log.since(0);
        assertEquals(2, e.size());
        assertTrue(e.get(0).text().matches("\\[\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\]\\[\\d+\\]\\[CUDA\\]\\[E\\] no current context"), e.get(0).text());
        assertTrue(e.get(1).text().endsWith("][CUDA][E] Returning 201 (CUDA_ERROR_INVALID_CONTEXT) from cuCtxGetDevice"), e.get(1).text());
        for (ErrorLog.Entry x : e) assertEquals(x.text().length(), x.length());
        for (int i = 0; i < 2000; i++) log.add("cuMemAlloc", "out of memory " + i, 2);
        int kept = 0;
        for (ErrorLog.Entry x : log.since(0)) kept += x.text().length() + 1;
        assertTrue(kept <= ErrorLog.CAPACITY && kept > ErrorLog.CAPACITY - 200, "kept " + kept);
        assertEquals(4002, log.next());
    }
}
