package org.zludaj.driver.backend.cuda;

import java.util.List;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend.SequencedLaunch;
import org.zludaj.nativ.NvidiaDriver;

/**
 * An executable NVIDIA graph of chained kernel nodes, as NvidiaDriver.graphBuild and graphBuildRecords give it: the
 * executable in out[0], the graph it was made of in out[1], launch i's node in out[2 + i]. Shared by the graphs built
 * at their first replay and in the background ({@link CudaSequence}).
 */
record NvidiaGraph(long[] out, int count) {
    void launch(long queue) throws CudaException {
        int r = NvidiaDriver.graphLaunch(out[0], queue);
        if (r != 0) throw CudaBackend.faulted(r, "a graph of " + count + " kernels (cuGraphLaunch)");
    }

    /**
     * New shapes and arguments for the nodes at {@code positions} (cuGraphExecKernelNodeSetParams, the same kernels);
     * false where NVIDIA's driver refuses (an older driver, a limit): the caller makes the graph again, which reports
     * what is wrong.
     */
    boolean setParams(int[] positions, List<SequencedLaunch> changed) {
        long[] values = new long[10 * changed.size()];
        int v = 0;
        for (int j = 0; j < positions.length; j++) v = CudaBackend.put(values, v, changed.get(j), out[2 + positions[j]]);
        int r = NvidiaDriver.graphSetParams(out[0], values);
        if (r != 0) CudaBackend.LOG.debug("cuGraphExecKernelNodeSetParams on NVIDIA's driver: {}; the graph is made again", r);
        return r == 0;
    }

    void destroy() {
        int r = NvidiaDriver.graphDestroy(out[0], out[1]);
        if (r != 0) CudaBackend.LOG.warn("cuGraphExecDestroy on NVIDIA's driver: {}", r);
    }
}
