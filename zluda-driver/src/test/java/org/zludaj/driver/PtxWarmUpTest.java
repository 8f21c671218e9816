package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import org.junit.jupiter.api.Test;

/** The warm-up's sample PTX parses and indexes as it says (each round throws where it does not). */
class PtxWarmUpTest {
    @Test
    void sampleModulesParseAndIndex() {
        assertDoesNotThrow(() -> PtxWarmUp.read(2));
        assertDoesNotThrow(PtxWarmUp::index);
    }
}
