package org.zludaj.driver.backend;

import java.util.List;
import org.zludaj.api.CuResult;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend.SequencedLaunch;
import org.zludaj.nativ.HostRuntime;

/**
 * A kernel sequence's launches as native records that C code launches in one call (the hip backend's
 * Hip.launchSequence, the cuda backend's NvidiaDriver.launchRecords and graphBuildRecords): {@link #WORDS} words per
 * launch (function, grid x/y/z, block x/y/z, dynamic shared bytes, kernelParams), then per launch its own
 * kernelParams array and a copy of its argument values (the executable's copies may change or be freed once it is
 * updated). Every launch needs its {@link SequencedLaunch#paramSizes}.
 */
public final class LaunchRecords {
    /** Words of one launch's record. */
    public static final int WORDS = 9;

    private final int count;
    /** The records, then each launch's parameter block; 0 once freed. */
    private long memory;
    /** Each launch's parameter block: its kernelParams array, then its argument values, 8-byte aligned. */
    private final long[] params;
    private final int[][] sizes;
    /** Each launch's kernel (its record's first word, kept for {@link #fits} after the records are freed). */
    private final long[] kernels;

    public LaunchRecords(List<SequencedLaunch> launches) throws CudaException {
        count = launches.size();
        params = new long[count];
        sizes = new int[count][];
        kernels = new long[count];
        long bytes = (long) count * WORDS * 8;
        long[] at = new long[count];
        for (int i = 0; i < count; i++) {
            sizes[i] = launches.get(i).paramSizes();
            kernels[i] = launches.get(i).kernel().entry();
            at[i] = bytes;
            bytes += blockBytes(sizes[i]);
        }
        memory = HostRuntime.allocate(Math.max(bytes, 8), 16);
        if (memory == 0) throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "a sequence of " + count + " kernels");
        for (int i = 0; i < count; i++) {
            params[i] = memory + at[i];
            write(i, launches.get(i));
        }
    }

    /** Whether every launch can be recorded (its parameters' sizes known) and none is cooperative. */
    public static boolean recordable(List<SequencedLaunch> launches) {
        for (SequencedLaunch l : launches) if (l.cooperative() || l.paramSizes() == null) return false;
        return true;
    }

    /** The bytes of a launch's parameter block: a pointer per parameter, then each value rounded up to 8 bytes. */
    private static long blockBytes(int[] sizes) {
        long b = 8L * sizes.length;
        for (int s : sizes) b += (s + 7) & ~7L;
        return b;
    }

    /** The records' address. */
    public long memory() {
        return memory;
    }

    public int count() {
        return count;
    }

    /** Whether launch i may take {@code l} in place: the same kernel, so the same parameter sizes (its block keeps its size). */
    public boolean fits(int i, SequencedLaunch l) {
        return !l.cooperative() && l.paramSizes() != null && java.util.Arrays.equals(l.paramSizes(), sizes[i])
                && kernels[i] == l.kernel().entry();
    }

    /** Launch i's record and its own copy of its arguments ({@link #fits}). */
    public void write(int i, SequencedLaunch l) {
        long r = memory + (long) i * WORDS * 8, block = params[i];
        int[] s = l.paramSizes();
        long value = block + 8L * s.length;
        for (int p = 0; p < s.length; p++) {
            HostRuntime.copy(value, HostRuntime.getLong(l.kernelParams() + 8L * p), s[p]);
            HostRuntime.putLong(block + 8L * p, value);
            value += (s[p] + 7) & ~7L;
        }
        long[] words = {l.kernel().entry(), l.grid()[0], l.grid()[1], l.grid()[2], l.block()[0], l.block()[1], l.block()[2],
                l.sharedBytes(), s.length == 0 ? 0 : block};
        for (int w = 0; w < words.length; w++) HostRuntime.putLong(r + 8L * w, words[w]);
    }

    /** Word w of launch i's record (0 its function ... 8 its kernelParams: {@link #WORDS}). */
    public long word(int i, int w) {
        return HostRuntime.getLong(memory + ((long) i * WORDS + w) * 8);
    }

    /** Frees the records (once; {@link #fits} still answers). */
    public void free() {
        if (memory != 0) HostRuntime.release(memory);
        memory = 0;
    }

    /** Whether {@link #free} was called. */
    public boolean freed() {
        return memory == 0;
    }
}
