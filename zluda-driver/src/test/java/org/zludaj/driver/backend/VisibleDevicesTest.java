package org.zludaj.driver.backend;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;

class VisibleDevicesTest {
    @Test
    void cudaVisibleDevicesAsNvidiaReadsIt() {
        assertEquals(List.of(0, 1, 2), VisibleDevices.of(null, 3), "unset: all");
        assertEquals(List.of(2, 0), VisibleDevices.of("2,0", 3), "the listed order");
        assertEquals(List.of(), VisibleDevices.of("", 3), "empty: none");
        assertEquals(List.of(), VisibleDevices.of("-1", 3));
        assertEquals(List.of(1), VisibleDevices.of("1,7,0", 3), "an index out of range ends the list");
        assertEquals(List.of(0), VisibleDevices.of("0,0,1", 3), "a repeated index ends the list");
        assertEquals(List.of(0), VisibleDevices.of("0, GPU-8a1c", 3), "a UUID we do not have ends the list");
        assertEquals(List.of(), VisibleDevices.of("1", 1), "the host backend's one device is index 0");
        assertEquals(List.of(0), VisibleDevices.of(" 0 ", 1));
    }
}
