package org.zludaj.driver.backend.cuda;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.zludaj.driver.CudaException;
import org.zludaj.driver.backend.Backend.KernelSequence;
import org.zludaj.driver.backend.Backend.SequencedLaunch;
import org.zludaj.driver.backend.LaunchRecords;
import org.zludaj.nativ.NvidiaDriver;

/**
 * A large graph of kernels on the cuda backend ({@link #IN_BACKGROUND} launches or more, none cooperative): its NVIDIA
 * graph is built, instantiated and uploaded on a thread of its own while the replays run the launches themselves, one
 * native call each replay ({@link LaunchRecords}, cuLaunchKernel for each in C, as the application's own launches
 * went). The first replay always does; a later one launches the NVIDIA graph once it is there, and the records go
 * then (NVIDIA's graph holds its own copy of the arguments: for ggml's 65,520 attention kernels of 24 parameters the
 * records would hold 30 MB). Built at the first
 * replay instead, a graph of 7,950 kernels held that replay 88 ms (NVIDIA's node-by-node build, instantiation and
 * first upload: test-backend-ops' perf mode times it), where NVIDIA's launches of the same kernels keep the GPU busy.
 * The price: a replay before the graph is there costs what the launches cost, for tiny kernels several times a graph
 * replay (bench/graph_once.c, 65,520 nodes on an H200: 5.6-5.9 us a node for the first two replays, 0.54 natively), so
 * a graph made once and replayed twice at once costs about what it did (11.2 us a node made once, 14.8-16.0 before).
 */
final class CudaSequence implements KernelSequence {
    private static final org.zludaj.api.Log LOG = org.zludaj.api.Log.of(CudaSequence.class);

    /** Launches from which a graph is built in the background (a smaller one is built at its first replay). */
    static final int IN_BACKGROUND = 256;

    /** The one thread that builds graphs (NVIDIA's context is made current on it by the native calls). */
    private static final ExecutorService BUILDER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "zluda-graph-build");
        t.setDaemon(true);
        return t;
    });

    private enum State { BUILDING, BUILT, FAILED, CLOSED }

    private final LaunchRecords records;
    private final int count;
    private State state = State.BUILDING;
    /** NVIDIA's graph once built. */
    private NvidiaGraph built;
    private boolean launched;
    /** Replays launching the records now (the records are freed once the graph is built and none does). */
    private int launching;
    /** Launches updated while the graph was built: their nodes take the records' values once it is. */
    private final java.util.BitSet pending = new java.util.BitSet();

    CudaSequence(List<SequencedLaunch> launches) throws CudaException {
        this.records = new LaunchRecords(launches);
        this.count = launches.size();
        BUILDER.execute(this::build);
    }

    /** Waits for the graphs being built (before NVIDIA's context is reset under them). */
    static void drain() {
        try {
            BUILDER.submit(() -> {}).get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.debug("graphs still being built after 60 s: {}", e.toString());
        }
    }

    private void build() {
        long t0 = System.nanoTime();
        long[] out = new long[2 + count];
        synchronized (this) {
            if (state == State.CLOSED) {
                records.free();
                return;
            }
        }
        int r = NvidiaDriver.graphBuildRecords(records.memory(), count, out);
        synchronized (this) {
            if (state == State.CLOSED) {  // closed while it was built: nothing keeps it
                if (r == 0) NvidiaDriver.graphDestroy(out[0], out[1]);
                records.free();
                return;
            }
            if (r != 0) {
                state = State.FAILED;  // the replays go on launching the records, which report what is wrong
                LOG.debug("a graph of {} kernels not built on NVIDIA's driver ({}): its replays launch them one by one", count, r);
                return;
            }
            if (!pending.isEmpty() && (r = NvidiaDriver.graphSetParams(out[0], fromRecords(out))) != 0) {
                NvidiaDriver.graphDestroy(out[0], out[1]);
                state = State.FAILED;
                LOG.debug("a graph of {} kernels not updated on NVIDIA's driver ({}): its replays launch them one by one", count, r);
                return;
            }
            built = new NvidiaGraph(out, count);
            state = State.BUILT;
            dropRecords();
        }
        LOG.debug("a graph of {} kernels built and uploaded in the background in {} ms", count, (System.nanoTime() - t0) / 1_000_000);
    }

    @Override
    public void launch(long queue) throws CudaException {
        NvidiaGraph graph;
        synchronized (this) {
            graph = launched && state == State.BUILT ? built : null;
            launched = true;
            if (graph == null) launching++;
        }
        if (graph != null) {
            graph.launch(queue);
            return;
        }
        int r;
        try {
            r = NvidiaDriver.launchRecords(records.memory(), count, queue);
        } finally {
            synchronized (this) {
                launching--;
                dropRecords();
            }
        }
        if (r != 0) throw CudaBackend.faulted(r, "a graph of " + count + " kernels (cuLaunchKernel)");
    }

    /**
     * The records go once the graph is built, the first replay (which launches them whatever the builder did) is made
     * and no replay launches them now: NVIDIA's graph holds its own copy of the arguments.
     */
    private void dropRecords() {
        if (state == State.BUILT && launched && launching == 0) records.free();
    }

    /** The pending launches' nodes as graphSetParams takes them, from the records. */
    private long[] fromRecords(long[] out) {
        long[] values = new long[10 * pending.cardinality()];
        int v = 0;
        for (int i = pending.nextSetBit(0); i >= 0; i = pending.nextSetBit(i + 1)) {
            for (int w = 0; w < LaunchRecords.WORDS; w++) values[v++] = records.word(i, w);
            values[v++] = out[2 + i];
        }
        pending.clear();
        return values;
    }

    /**
     * In place, the same kernels only: the records (what the replays launch until the graph is there) and, once built,
     * the NVIDIA graph's nodes (cuGraphExecKernelNodeSetParams); while it is built, its nodes take them when it is.
     */
    @Override
    public synchronized boolean update(int[] positions, List<SequencedLaunch> changed) {
        if (state == State.CLOSED) return false;
        for (int j = 0; j < positions.length; j++) if (!records.fits(positions[j], changed.get(j))) return false;
        if (state == State.BUILT && !built.setParams(positions, changed)) return false;
        if (records.freed()) return true;
        for (int j = 0; j < positions.length; j++) records.write(positions[j], changed.get(j));
        if (state == State.BUILDING) for (int p : positions) pending.set(p);
        return true;
    }

    @Override
    public void close() {
        NvidiaGraph b;
        synchronized (this) {
            State was = state;
            state = State.CLOSED;
            if (was == State.BUILDING) return;  // the builder frees it when done
            b = built;
        }
        if (b != null) b.destroy();
        records.free();
    }
}
