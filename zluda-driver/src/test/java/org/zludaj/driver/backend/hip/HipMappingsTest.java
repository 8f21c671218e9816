package org.zludaj.driver.backend.hip;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashSet;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.zludaj.api.CuResult;

/** Every mapping of the hip backend's tables: attributes, errors, architectures. */
class HipMappingsTest {
    @Test
    void attributesMapToHipsEnumeration() {
        // a selection spelled out against hip_runtime_api.h (ROCm 6/7 hipDeviceAttribute_t)
        Map<Integer, Integer> expected = Map.ofEntries(Map.entry(1, 56), Map.entry(2, 26), Map.entry(5, 29), Map.entry(8, 74),
                Map.entry(10, 87), Map.entry(13, 5), Map.entry(16, 63), Map.entry(19, 3), Map.entry(32, 0), Map.entry(33, 67),
                Map.entry(38, 19), Map.entry(39, 57), Map.entry(41, 85), Map.entry(81, 76), Map.entry(83, 24), Map.entry(95, 10),
                Map.entry(97, 75), Map.entry(102, 89), Map.entry(106, 25), Map.entry(115, 88));
        expected.forEach((cuda, hip) -> assertEquals(hip, HipMappings.hipAttribute(cuda), "CUDA attribute " + cuda));
        assertEquals(-1, HipMappings.hipAttribute(75), "compute capability is ZLUDA_CC, never HIP's");
        assertEquals(-1, HipMappings.hipAttribute(76));
        assertEquals(-1, HipMappings.hipAttribute(9999));
        // one HIP attribute per CUDA attribute, all within HIP's CUDA-compatible range
        assertEquals(HipMappings.ATTRIBUTES.size(), new HashSet<>(HipMappings.ATTRIBUTES.values()).size(), "no HIP attribute used twice");
        for (int hip : HipMappings.ATTRIBUTES.values()) assertTrue(hip >= 0 && hip <= 92, "HIP attribute " + hip);
        assertEquals(67, HipMappings.ATTRIBUTES.size(), "the table as reviewed");
    }

    @Test
    void errorsMapToTheNearestCuResult() {
        for (int same : new int[] {0, 1, 2, 3, 100, 101, 200, 201, 209, 218, 400, 401, 500, 600, 700, 701, 710, 719, 801, 900, 901, 999})
            assertEquals(same, HipMappings.cuResult(same), "hipError_t " + same + " has CUDA's number");
        assertEquals(CuResult.CUDA_ERROR_INVALID_VALUE, HipMappings.cuResult(9));     // hipErrorInvalidConfiguration
        assertEquals(CuResult.CUDA_ERROR_INVALID_VALUE, HipMappings.cuResult(12));    // hipErrorInvalidPitchValue
        assertEquals(CuResult.CUDA_ERROR_INVALID_VALUE, HipMappings.cuResult(17));    // hipErrorInvalidDevicePointer
        assertEquals(CuResult.CUDA_ERROR_INVALID_VALUE, HipMappings.cuResult(21));    // hipErrorInvalidMemcpyDirection
        assertEquals(CuResult.CUDA_ERROR_NOT_FOUND, HipMappings.cuResult(13));        // hipErrorInvalidSymbol
        assertEquals(CuResult.CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, HipMappings.cuResult(35));
        assertEquals(CuResult.CUDA_ERROR_LAUNCH_FAILED, HipMappings.cuResult(53));    // hipErrorPriorLaunchFailure
        assertEquals(CuResult.CUDA_ERROR_INVALID_HANDLE, HipMappings.cuResult(98));   // hipErrorInvalidDeviceFunction
        assertEquals(CuResult.CUDA_ERROR_OUT_OF_MEMORY, HipMappings.cuResult(1052));  // hipErrorRuntimeMemory
        assertEquals(CuResult.CUDA_ERROR_UNKNOWN, HipMappings.cuResult(1053));        // hipErrorRuntimeOther
        assertEquals(CuResult.CUDA_ERROR_UNKNOWN, HipMappings.cuResult(12345));
    }

    @Test
    void architecturesBecomeTargetsOrAreSkippedWithAReason() {
        assertEquals("gfx1100", HipMappings.target("gfx1100:sramecc-:xnack-"));
        assertEquals("gfx1201", HipMappings.target("gfx1201"));
        assertEquals("gfx1030", HipMappings.target("gfx1030"));
        assertEquals("gfx1151", HipMappings.target("gfx1151:xnack-"));
        assertNull(HipMappings.target("gfx90a:sramecc+:xnack-"));
        assertTrue(HipMappings.whyNot("gfx90a:sramecc+:xnack-").contains("waves of 64"));
        assertTrue(HipMappings.whyNot("gfx942").contains("waves of 64"));
        assertNull(HipMappings.target("gfx1010"));
        assertTrue(HipMappings.whyNot("gfx1010").contains("not a supported target"));
        assertNull(HipMappings.target(""));
        assertTrue(HipMappings.whyNot("").contains("did not report"));
    }
}
