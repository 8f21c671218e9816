package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.api.CuResult;

class HandlesTest {
    @Test
    void liveDestroyedForeignAndNullHandles() throws Exception {
        Handles h = new Handles();
        Stream s = new Stream(new Context(0, false, 0), 0, 0, false);
        long hs = h.add(s);
        assertSame(s, h.get(hs, Stream.class));
        assertEquals(CuResult.CUDA_ERROR_INVALID_HANDLE, assertThrows(CudaException.class, () -> h.get(hs, Event.class)).result(),
                "a stream is not an event");
        h.remove(hs);
        assertEquals(CuResult.CUDA_ERROR_INVALID_HANDLE, assertThrows(CudaException.class, () -> h.get(hs, Stream.class)).result());
        assertEquals(CuResult.CUDA_ERROR_INVALID_HANDLE, assertThrows(CudaException.class, () -> h.get(0, Stream.class)).result());
        assertEquals(CuResult.CUDA_ERROR_INVALID_HANDLE,
                assertThrows(CudaException.class, () -> h.get(0x12345678, Stream.class)).result());
        long hc = h.add(new Context(0, false, 0));
        h.remove(hc);
        assertEquals(CuResult.CUDA_ERROR_CONTEXT_IS_DESTROYED, assertThrows(CudaException.class, () -> h.get(hc, Context.class)).result());
    }

    @Test
    void handlesAreNeverReused() {
        Handles h = new Handles();
        long a = h.add(new Object());
        h.remove(a);
        assertNotEquals(a, h.add(new Object()));
    }

    @Test
    void errorNamesAndStringsAreNvidias() {
        assertEquals("CUDA_ERROR_NOT_SUPPORTED", CuResult.name(801));
        assertEquals("operation not supported", CuResult.string(801));
        assertEquals("CUDA_ERROR_INVALID_PTX", CuResult.name(218));
        assertNull(CuResult.name(12345));
    }
}
