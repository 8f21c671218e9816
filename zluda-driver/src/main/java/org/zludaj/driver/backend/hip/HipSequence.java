package org.zludaj.driver.backend.hip;

import java.util.List;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend.KernelSequence;
import org.zludaj.driver.backend.Backend.SequencedLaunch;
import org.zludaj.driver.backend.LaunchRecords;

/**
 * A graph's kernel launches prepared once for the hip backend and made in one native call per replay
 * ({@link Hip#launchSequence}: hipModuleLaunchKernel for each, in order, in C), instead of one call into HIP from the
 * JVM per node: {@link LaunchRecords} with each launch's own copy of its arguments. HIP copies a launch's arguments
 * when it is made, so an update may rewrite them for the next replays while earlier ones run.
 */
final class HipSequence implements KernelSequence {
    private final Hip hip;
    private final LaunchRecords records;

    HipSequence(Hip hip, List<SequencedLaunch> launches) throws CudaException {
        this.hip = hip;
        this.records = new LaunchRecords(launches);
    }

    @Override
    public void launch(long queue) throws CudaException {
        int r = hip.launchSequence(records.memory(), records.count(), queue);
        if (r != 0) throw new CudaException(HipMappings.cuResult(r), "a sequence of " + records.count() + " kernels: hipModuleLaunchKernel failed (hipError_t " + r + ")");
    }

    /** Same kernels only (their parameter blocks keep their sizes); new shapes and argument values in place. */
    @Override
    public boolean update(int[] positions, List<SequencedLaunch> changed) {
        for (int j = 0; j < positions.length; j++) if (!records.fits(positions[j], changed.get(j))) return false;
        for (int j = 0; j < positions.length; j++) records.write(positions[j], changed.get(j));
        return true;
    }

    @Override
    public void close() {
        records.free();
    }
}
