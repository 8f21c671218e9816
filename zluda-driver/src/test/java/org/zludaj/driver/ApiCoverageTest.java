package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.zludaj.driver.backend.host.HostBackend;

/** ApiCoverage counts what the driver's classes implement, from the classes themselves. */
class ApiCoverageTest {
    @Test
    void countsEveryExportAndWhatIsImplemented() {
        var apis = new Driver(new HostBackend(8, 6)).apis();
        int[] total = ApiCoverage.total(apis);
        assertEquals(682, total[1], "every function libcuda.so.1 exports (cuda-driver.api)");
        assertTrue(total[0] >= 480, "implemented: " + total[0]);
        Map<String, int[]> groups = ApiCoverage.count(apis);
        assertEquals(0, groups.get("CuInteropApi")[0], "graphics interop is not implemented");
        assertEquals(groups.get("CuErrorApi")[1], groups.get("CuErrorApi")[0], "cuGetErrorName/String");
        assertTrue(ApiCoverage.describe(apis).startsWith("driver API: " + total[0] + " of 682 functions implemented"));
    }
}
