package org.zludaj.driver.backend.hip;

import java.util.List;
import org.zludaj.api.CuResult;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend.KernelSequence;
import org.zludaj.driver.backend.Backend.SequencedLaunch;
import org.zludaj.nativ.HostRuntime;

/**
 * A graph's kernel launches prepared once for the hip backend and made in one native call per replay
 * ({@link Hip#launchSequence}: hipModuleLaunchKernel for each, in order, in C), instead of one call into HIP from the
 * JVM per node. Native memory holds the launches' records ({@link HipBackend#SEQUENCE_WORDS} words each) and, per
 * launch, its own kernelParams array and a copy of its argument values (the executable's copies may change or be freed
 * once it is updated). HIP copies a launch's arguments when it is made, so an update may rewrite them for the next
 * replays while earlier ones run.
 */
final class HipSequence implements KernelSequence {
    private final Hip hip;
    private final List<SequencedLaunch> launches;
    /** The records, then each launch's parameter block. */
    private final long memory;
    /** Each launch's parameter block: its kernelParams array, then its argument values, 8-byte aligned. */
    private final long[] params;

    HipSequence(Hip hip, List<SequencedLaunch> launches) throws CudaException {
        this.hip = hip;
        this.launches = List.copyOf(launches);
        int n = launches.size();
        params = new long[n];
        long bytes = (long) n * HipBackend.SEQUENCE_WORDS * 8;
        long[] at = new long[n];
        for (int i = 0; i < n; i++) {
            at[i] = bytes;
            bytes += blockBytes(launches.get(i).paramSizes());
        }
        memory = HostRuntime.allocate(Math.max(bytes, 8), 16);
        if (memory == 0) throw new CudaException(CuResult.CUDA_ERROR_OUT_OF_MEMORY, "a sequence of " + n + " kernels");
        for (int i = 0; i < n; i++) {
            params[i] = memory + at[i];
            write(i, launches.get(i));
        }
    }

    /** The bytes of a launch's parameter block: a pointer per parameter, then each value rounded up to 8 bytes. */
    private static long blockBytes(int[] sizes) {
        long b = 8L * sizes.length;
        for (int s : sizes) b += (s + 7) & ~7L;
        return b;
    }

    /** Launch i's record and its own copy of its arguments. */
    private void write(int i, SequencedLaunch l) {
        long r = memory + (long) i * HipBackend.SEQUENCE_WORDS * 8, block = params[i];
        int[] sizes = l.paramSizes();
        long value = block + 8L * sizes.length;
        for (int p = 0; p < sizes.length; p++) {
            HostRuntime.copy(value, HostRuntime.getLong(l.kernelParams() + 8L * p), sizes[p]);
            HostRuntime.putLong(block + 8L * p, value);
            value += (sizes[p] + 7) & ~7L;
        }
        long[] words = {l.kernel().entry(), l.grid()[0], l.grid()[1], l.grid()[2], l.block()[0], l.block()[1], l.block()[2],
                l.sharedBytes(), sizes.length == 0 ? 0 : block};
        for (int w = 0; w < words.length; w++) HostRuntime.putLong(r + 8L * w, words[w]);
    }

    @Override
    public void launch(long queue) throws CudaException {
        int r = hip.launchSequence(memory, launches.size(), queue);
        if (r != 0) throw new CudaException(HipMappings.cuResult(r), "a sequence of " + launches.size() + " kernels: hipModuleLaunchKernel failed (hipError_t " + r + ")");
    }

    /** Same kernels only (their parameter blocks keep their sizes); new shapes and argument values in place. */
    @Override
    public boolean update(int[] positions, List<SequencedLaunch> changed) {
        for (int j = 0; j < positions.length; j++) {
            SequencedLaunch was = launches.get(positions[j]), now = changed.get(j);
            if (now.kernel() != was.kernel() || now.cooperative() || now.paramSizes() == null
                    || !java.util.Arrays.equals(now.paramSizes(), was.paramSizes())) return false;
        }
        for (int j = 0; j < positions.length; j++) write(positions[j], changed.get(j));
        return true;
    }

    @Override
    public void close() {
        HostRuntime.release(memory);
    }
}
