package org.zludaj.driver.backend.hip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend.Program;
import org.zludaj.driver.backend.Backend.SequencedLaunch;
import org.zludaj.nativ.HostRuntime;

/**
 * A graph's kernels as one native call per replay on the hip backend (HipSequence, Hip.launchSequence): the records
 * HIP's loop gets, the sequence's own copy of the arguments (the executable's may change or go), updates in place,
 * errors; and when the backend makes none.
 */
class HipSequenceTest {
    /** Reads each record of launchSequence's call back: function, grid x, block x, shared, then each u64 argument. */
    static final class SequenceHip extends HipBackendTest.RecordingHip {
        final List<String> launched = new ArrayList<>();
        int result;

        @Override public boolean launchesSequences() { return true; }

        @Override public int launchSequence(long records, int count, long stream) {
            for (int i = 0; i < count; i++) {
                long r = records + 8L * org.zludaj.driver.backend.LaunchRecords.WORDS * i, params = HostRuntime.getLong(r + 64);
                StringBuilder s = new StringBuilder(Long.toHexString(HostRuntime.getLong(r)) + " grid " + HostRuntime.getLong(r + 8)
                        + " block " + HostRuntime.getLong(r + 32) + " shared " + HostRuntime.getLong(r + 56) + " on " + Long.toHexString(stream));
                for (int p = 0; params != 0 && p < 2; p++) s.append(" arg ").append(HostRuntime.getLong(HostRuntime.getLong(params + 8L * p)));
                launched.add(s.toString());
            }
            return result;
        }
    }

    private static final Program.Kernel A = new Program.Kernel("a", 0x6000, null, 0, false, 0), B = new Program.Kernel("b", 0x6100, null, 0, false, 0);

    /** A kernelParams array of two u64 arguments, as the driver keeps a node's (native memory). */
    private static long args(long x, long y) {
        long m = HostRuntime.allocate(32, 16);
        HostRuntime.putLong(m + 16, x);
        HostRuntime.putLong(m + 24, y);
        HostRuntime.putLong(m, m + 16);
        HostRuntime.putLong(m + 8, m + 24);
        return m;
    }

    private static SequencedLaunch launch(Program.Kernel k, int grid, long params) {
        return new SequencedLaunch(k, new int[] {grid, 1, 1}, new int[] {32, 1, 1}, 0, params, false, params == 0 ? new int[0] : new int[] {8, 8});
    }

    @Test
    void theLaunchesKeepTheirOwnArgumentsAndTakeUpdatesInPlace() throws Exception {
        SequenceHip hip = new SequenceHip();
        long p = args(91, 7);
        HipSequence s = new HipSequence(hip, List.of(launch(A, 2, p), launch(B, 1, 0)));
        s.launch(0x3000);
        assertEquals(List.of("6000 grid 2 block 32 shared 0 on 3000 arg 91 arg 7", "6100 grid 1 block 32 shared 0 on 3000"), hip.launched);
        // the executable's copy changed (or freed): the sequence launches what it was made of
        HostRuntime.putLong(p + 16, 1234);
        HostRuntime.release(p);
        hip.launched.clear();
        s.launch(0x3010);
        assertEquals(List.of("6000 grid 2 block 32 shared 0 on 3010 arg 91 arg 7", "6100 grid 1 block 32 shared 0 on 3010"), hip.launched);
        // an update of the first launch's shape and arguments, in place
        long q = args(92, 8);
        assertTrue(s.update(new int[] {0}, List.of(launch(A, 3, q))));
        HostRuntime.release(q);
        hip.launched.clear();
        s.launch(0x3000);
        assertEquals(List.of("6000 grid 3 block 32 shared 0 on 3000 arg 92 arg 8", "6100 grid 1 block 32 shared 0 on 3000"), hip.launched);
        // another kernel at a position: refused (the caller makes a new sequence)
        assertFalse(s.update(new int[] {1}, List.of(launch(A, 1, args(1, 2)))));
        // HIP's error stops the replay and is the launch's
        hip.result = 98;  // hipErrorInvalidDeviceFunction
        CudaException e = assertThrows(CudaException.class, () -> s.launch(0x3000));
        assertTrue(e.getMessage().contains("hipError_t 98"), e.getMessage());
        s.close();
    }

    @Test
    void noSequenceWhereALaunchIsMoreThanHipsCall() throws Exception {
        SequenceHip hip = new SequenceHip();
        HipBackend b = HipBackend.open(hip, 8, 6, null);
        assertTrue(b.kernelSequence(List.of(launch(A, 1, 0))) != null, "plain launches: a sequence");
        assertNull(b.kernelSequence(List.of(new SequencedLaunch(A, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, 0, true, new int[0]))),
                "a cooperative launch (its grid workspace, its wait)");
        assertNull(b.kernelSequence(List.of(new SequencedLaunch(A, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, 0, false))),
                "arguments of unknown sizes");
        assertNull(HipBackend.open(new HipBackendTest.RecordingHip(), 8, 6, null).kernelSequence(List.of(launch(A, 1, 0))),
                "a runtime without the native loop");
    }
}
