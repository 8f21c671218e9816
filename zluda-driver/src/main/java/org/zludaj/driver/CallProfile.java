package org.zludaj.driver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code ZLUDA_PROFILE=calls}: per driver and cuBLAS function, how many calls entered the JVM and the wall time they
 * spent in it (what the function waited for included: a synchronization's time is the device's), printed to stderr
 * when the process exits, largest total first. Calls the shim answers in C are not counted. Off, it costs one branch
 * on a constant.
 *
 * <p>It also tells where the slowest single calls spent their time: a daemon thread samples the stack of every call
 * in flight for longer than {@link #SAMPLE_AFTER_NS} every {@link #SAMPLE_EVERY_MS} ms, and the calls that took over
 * {@code ZLUDA_PROFILE_SLOW_MS} (default 10) are listed at exit, slowest first ({@link #SLOWEST} of them), each with
 * when it began (ms after the first call), its duration and the stacks sampled in it (our frames, and the frame that
 * was running: a native function, a wait), the most frequent first.
 */
public final class CallProfile {
    private CallProfile() {}

    /** Whether calls are timed (fixed at start). */
    public static final boolean ON = "calls".equals(System.getenv("ZLUDA_PROFILE"));

    static final long SAMPLE_AFTER_NS = 2_000_000L;
    static final int SAMPLE_EVERY_MS = 2;
    static final int SLOWEST = 40;
    private static final long SLOW_NS = slowNanos(System.getenv("ZLUDA_PROFILE_SLOW_MS"));

    static long slowNanos(String ms) {
        try {
            return ms == null ? 10_000_000L : (long) (Double.parseDouble(ms) * 1e6);
        } catch (NumberFormatException e) {
            return 10_000_000L;
        }
    }

    private record Totals(LongAdder calls, LongAdder nanos) {}

    private static final Map<String, Totals> TOTALS = new ConcurrentHashMap<>();

    /** A call in flight on a thread: what the sampler saw of it (guarded by itself). */
    private static final class InFlight {
        final String function;
        final long t0;
        final Map<String, Integer> stacks = new HashMap<>();

        InFlight(String function, long t0) {
            this.function = function;
            this.t0 = t0;
        }
    }

    /** A finished slow call. */
    record Slow(String function, long startNs, long nanos, Map<String, Integer> stacks) {}

    private static final Map<Thread, InFlight> IN_FLIGHT = new ConcurrentHashMap<>();
    private static final PriorityQueue<Slow> SLOW = new PriorityQueue<>((a, b) -> Long.compare(a.nanos, b.nanos));
    private static final LongAdder SLOW_COUNT = new LongAdder();
    private static volatile long firstNs;

    /** The sampling thread, started by the first timed call. */
    private static final class Sampler {
        static {
            Thread sampler = new Thread(CallProfile::sample, "zluda-call-sampler");
            sampler.setDaemon(true);
            sampler.start();
        }

        static void started() {}
    }

    /** Starts timing a call of {@code function} on this thread; hand the result to {@link #end}. */
    public static long begin(String function) {
        long t0 = System.nanoTime();
        if (firstNs == 0) firstNs = t0;
        Sampler.started();
        IN_FLIGHT.putIfAbsent(Thread.currentThread(), new InFlight(function, t0));  // a nested call: the outer one's
        return t0;
    }

    /** Ends the call that {@link #begin} started at {@code t0}. */
    public static void end(String function, long t0) {
        long ns = System.nanoTime() - t0;
        add(function, ns);
        Thread me = Thread.currentThread();
        InFlight f = IN_FLIGHT.get(me);
        if (f == null || f.t0 != t0 || !f.function.equals(function)) return;  // nested
        IN_FLIGHT.remove(me);
        if (ns < SLOW_NS) return;
        SLOW_COUNT.increment();
        Map<String, Integer> stacks;
        synchronized (f) {
            stacks = new HashMap<>(f.stacks);
        }
        synchronized (SLOW) {
            SLOW.add(new Slow(function, t0 - firstNs, ns, stacks));
            if (SLOW.size() > SLOWEST) SLOW.poll();
        }
    }

    /** Adds one call of {@code function} that took {@code nanos}. */
    public static void add(String function, long nanos) {
        Totals t = TOTALS.computeIfAbsent(function, f -> new Totals(new LongAdder(), new LongAdder()));
        t.calls().increment();
        t.nanos().add(nanos);
    }

    private static void sample() {
        while (true) {
            try {
                Thread.sleep(SAMPLE_EVERY_MS);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (var e : IN_FLIGHT.entrySet()) {
                InFlight f = e.getValue();
                if (now - f.t0 < SAMPLE_AFTER_NS) continue;
                String key = stackKey(e.getKey().getStackTrace());
                synchronized (f) {
                    f.stacks.merge(key, 1, Integer::sum);
                }
            }
        }
    }

    /** The running frame, then our own frames (innermost first, up to eight), " < " between them. */
    static String stackKey(StackTraceElement[] stack) {
        StringBuilder s = new StringBuilder();
        int ours = 0;
        for (int i = 0; i < stack.length && ours < 8; i++) {
            StackTraceElement e = stack[i];
            boolean own = e.getClassName().startsWith("org.zludaj.");
            if (i > 0 && !own) continue;
            if (own) ours++;
            if (s.length() > 0) s.append(" < ");
            String c = e.getClassName();
            s.append(c.substring(c.lastIndexOf('.') + 1)).append('.').append(e.getMethodName());
            if (e.getLineNumber() > 0) s.append(':').append(e.getLineNumber());
        }
        return s.length() == 0 ? "(no stack)" : s.toString();
    }

    /** The table: function, calls, total ms, us per call; largest total first; then the slowest calls. */
    public static String table() {
        List<Map.Entry<String, Totals>> rows = new ArrayList<>(TOTALS.entrySet());
        rows.sort((a, b) -> Long.compare(b.getValue().nanos().sum(), a.getValue().nanos().sum()));
        StringBuilder s = new StringBuilder(String.format("%-48s %10s %12s %10s%n", "ZLUDA-J calls (ZLUDA_PROFILE=calls)", "calls", "total ms", "us/call"));
        for (var e : rows) {
            long n = e.getValue().calls().sum(), ns = e.getValue().nanos().sum();
            s.append(String.format("%-48s %10d %12.3f %10.3f%n", e.getKey(), n, ns / 1e6, n == 0 ? 0 : ns / 1e3 / n));
        }
        List<Slow> slow;
        synchronized (SLOW) {
            slow = new ArrayList<>(SLOW);
        }
        if (slow.isEmpty()) return s.toString();
        slow.sort((a, b) -> Long.compare(b.nanos, a.nanos));
        s.append(String.format("%d calls took over %.1f ms; the slowest (began at ms after the first call, took ms; stacks sampled every %d ms):%n",
                SLOW_COUNT.sum(), SLOW_NS / 1e6, SAMPLE_EVERY_MS));
        for (Slow c : slow) {
            s.append(String.format("  %s at %.1f ms: %.1f ms%n", c.function, c.startNs / 1e6, c.nanos / 1e6));
            c.stacks.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(4)
                    .forEach(e -> s.append(String.format("    %4d x %s%n", e.getValue(), e.getKey())));
        }
        return s.toString();
    }

    /** Called by the shim at process exit. */
    public static void print() {
        if (ON) System.err.print(table());
    }
}
