package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.*;

import ch.qos.logback.classic.Level;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.zludaj.driver.backend.host.HostDevice;

/** What the driver's start was made cheaper with (issue 21): logging set up in code, the host device's identity. */
class StartupPiecesTest {
    @Test
    void zludaLogNamesLogbacksLevelAndAnythingElseIsWarn() {
        assertEquals(Level.TRACE, LogConfigurator.level("trace"));
        assertEquals(Level.DEBUG, LogConfigurator.level(" debug "));
        assertEquals(Level.INFO, LogConfigurator.level("INFO"));
        assertEquals(Level.WARN, LogConfigurator.level("warn"));
        assertEquals(Level.WARN, LogConfigurator.level(null));
        assertEquals(Level.WARN, LogConfigurator.level(""));
        assertEquals(Level.WARN, LogConfigurator.level("loud"));
    }

    @Test
    void logbackIsConfiguredByTheServiceWithoutAnXmlFile() {
        var root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        assertNotNull(root.getAppender("STDERR"), "LogConfigurator's appender");
        assertEquals(LogConfigurator.level(System.getenv("ZLUDA_LOG")), root.getLevel());
    }

    @Test
    void theHostDevicesUuidIsStableNameBasedAndDiffersPerMachine() {
        UUID a = HostDevice.stableUuid("ZLUDA host CPU16"), b = HostDevice.stableUuid("ZLUDA host CPU16");
        assertEquals(a, b);
        assertEquals(3, a.version());
        assertEquals(2, a.variant());
        assertNotEquals(a, HostDevice.stableUuid("ZLUDA host CPU2"));
    }
}
