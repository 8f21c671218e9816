package org.zludaj.ptx;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The progress line of a compilation: when one takes more than a second, stderr says what is being compiled for
 * which target, and then how long it took (users otherwise wait on a silent first run).
 */
public final class CompileProgress {
    private CompileProgress() {}

    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "zluda-compile-progress");
        t.setDaemon(true);
        return t;
    });

    /** A compilation step that may fail. */
    public interface Work<T> {
        T run() throws PtxException;
    }

    /** Runs {@code work}, saying on stderr what it compiles ({@code what}, for {@code target}) after a second. */
    public static <T> T run(String what, String target, Work<T> work) throws PtxException {
        long t0 = System.nanoTime();
        boolean[] said = new boolean[1];
        var line = TIMER.schedule(() -> {
            said[0] = true;
            System.err.println("ZLUDA-J: compiling " + what + " for " + target + "...");
        }, 1, TimeUnit.SECONDS);
        try {
            return work.run();
        } finally {
            line.cancel(false);
            if (said[0]) System.err.println("ZLUDA-J: compiled " + what + " in " + (System.nanoTime() - t0) / 1_000_000 / 1000.0 + " s");
        }
    }

    /** A module's name and kernel count, as the progress line names it. */
    public static String describe(org.zludaj.ptx.model.PtxModule ptx) {
        return ptx.name() + " (" + ptx.functions().stream().filter(org.zludaj.ptx.model.Function::entry).count() + " kernels)";
    }
}
