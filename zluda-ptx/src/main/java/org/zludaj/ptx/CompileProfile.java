package org.zludaj.ptx;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.EnumMap;
import java.util.Map;

/**
 * Where one or more compilations spent their time, stage by stage (wall nanoseconds of the compiling thread), and the
 * compiling threads' CPU time. Filled by {@link Compiler} and {@link HostJit} when a caller passes one (bench/ and
 * {@code zluda precompile --profile}); {@link #NONE} records nothing. Safe to share between threads.
 */
public final class CompileProfile {
    /** The stages of a compilation, in order. */
    public enum Stage {
        /** Our model-to-model passes (ModulePass.runAll and the target's own). */
        PASSES,
        /** Building the LLVM IR from the model. */
        IR,
        /** LLVM's verifier on the built IR. */
        VERIFY,
        /** LLVM's middle-end pipeline. */
        OPTIMIZE,
        /** LLVM's code generation (instruction selection, scheduling, register allocation, emission). */
        CODEGEN,
        /** Linking the AMD code object (ld.lld). */
        LINK
    }

    /** Records nothing. */
    public static final CompileProfile NONE = new CompileProfile(false);

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final boolean on;
    private final Map<Stage, Long> wall = new EnumMap<>(Stage.class);
    private long cpu;

    private CompileProfile(boolean on) {
        this.on = on;
    }

    public CompileProfile() {
        this(true);
    }

    /** A stage's work. */
    public interface Work<T> {
        T run() throws PtxException;
    }

    /** Runs {@code work} as stage {@code s}, adding its wall time. */
    public <T> T time(Stage s, Work<T> work) throws PtxException {
        if (!on) return work.run();
        long t0 = System.nanoTime();
        try {
            return work.run();
        } finally {
            add(s, System.nanoTime() - t0);
        }
    }

    /** The calling thread's CPU time so far (ns), for {@link #addCpu}; 0 where the JVM does not measure it. */
    public long threadCpu() {
        return on && THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : 0;
    }

    public synchronized void add(Stage s, long ns) {
        if (on) wall.merge(s, ns, Long::sum);
    }

    public synchronized void addCpu(long ns) {
        if (on) cpu += ns;
    }

    /** Wall nanoseconds spent in {@code s}. */
    public synchronized long wall(Stage s) {
        return wall.getOrDefault(s, 0L);
    }

    /** CPU nanoseconds of the compiling threads, and the wall time of the single-threaded tools they ran (ld.lld, llc). */
    public synchronized long cpu() {
        return cpu;
    }

    /** Adds another profile's figures to this one. */
    public synchronized void add(CompileProfile other) {
        for (Stage s : Stage.values()) add(s, other.wall(s));
        addCpu(other.cpu());
    }
}
