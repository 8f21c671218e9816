package org.zludaj.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code ZLUDA_PROFILE=calls}: per driver and cuBLAS function, how many calls entered the JVM and the wall time they
 * spent in it (what the function waited for included: a synchronization's time is the device's), printed to stderr
 * when the process exits, largest total first. Calls the shim answers in C are not counted. Off, it costs one branch
 * on a constant.
 */
public final class CallProfile {
    private CallProfile() {}

    /** Whether calls are timed (fixed at start). */
    public static final boolean ON = "calls".equals(System.getenv("ZLUDA_PROFILE"));

    private record Totals(LongAdder calls, LongAdder nanos) {}

    private static final Map<String, Totals> TOTALS = new ConcurrentHashMap<>();

    /** Adds one call of {@code function} that took {@code nanos}. */
    public static void add(String function, long nanos) {
        Totals t = TOTALS.computeIfAbsent(function, f -> new Totals(new LongAdder(), new LongAdder()));
        t.calls().increment();
        t.nanos().add(nanos);
    }

    /** The table: function, calls, total ms, us per call; largest total first. */
    public static String table() {
        List<Map.Entry<String, Totals>> rows = new ArrayList<>(TOTALS.entrySet());
        rows.sort((a, b) -> Long.compare(b.getValue().nanos().sum(), a.getValue().nanos().sum()));
        StringBuilder s = new StringBuilder(String.format("%-48s %10s %12s %10s%n", "ZLUDA-J calls (ZLUDA_PROFILE=calls)", "calls", "total ms", "us/call"));
        for (var e : rows) {
            long n = e.getValue().calls().sum(), ns = e.getValue().nanos().sum();
            s.append(String.format("%-48s %10d %12.3f %10.3f%n", e.getKey(), n, ns / 1e6, n == 0 ? 0 : ns / 1e3 / n));
        }
        return s.toString();
    }

    /** Called by the shim at process exit. */
    public static void print() {
        if (ON) System.err.print(table());
    }
}
