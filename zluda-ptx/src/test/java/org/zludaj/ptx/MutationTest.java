package org.zludaj.ptx;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Robustness: 10,000 mutations of corpus modules (tokens deleted, duplicated, replaced; truncation; random bytes).
 * Every case must end in a result or diagnostics within 1 s, never in an exception.
 */
class MutationTest {
    static final int CASES = 10_000;
    static final Pattern TOKEN = Pattern.compile("\\.?[A-Za-z_$%][\\w$.:]*|0[fFdDxX][0-9a-fA-F]+|\\d+|\\S");

    record Tokens(String text, List<int[]> spans) {}

    static Tokens tokens(String text) {
        List<int[]> spans = new ArrayList<>();
        Matcher m = TOKEN.matcher(text);
        while (m.find()) spans.add(new int[] {m.start(), m.end()});
        return new Tokens(text, spans);
    }

    static String mutate(Tokens t, Random r) {
        String s = t.text();
        int[] a = t.spans().get(r.nextInt(t.spans().size()));
        int[] b = t.spans().get(r.nextInt(t.spans().size()));
        return switch (r.nextInt(6)) {
            case 0 -> s.substring(0, a[0]) + s.substring(a[1]);                                       // delete a token
            case 1 -> s.substring(0, a[0]) + s.substring(a[0], a[1]) + " " + s.substring(a[0]);        // duplicate it
            case 2 -> s.substring(0, a[0]) + s.substring(b[0], b[1]) + s.substring(a[1]);              // replace by another
            case 3 -> s.substring(0, r.nextInt(s.length()));                                         // truncate
            case 4 -> {                                                                               // random bytes
                StringBuilder x = new StringBuilder(s);
                for (int k = 0, n = 1 + r.nextInt(8); k < n; k++) x.insert(r.nextInt(x.length()), (char) r.nextInt(256));
                yield x.toString();
            }
            default -> {                                                                              // several edits
                String y = s.substring(0, a[0]) + s.substring(a[1]);
                int p = Math.min(b[0], y.length());
                yield y.substring(0, p) + "{ ( ; ] .reg" + y.substring(p);
            }
        };
    }

    @Test
    void tenThousandMutationsEndInDiagnostics() throws Exception {
        List<Tokens> bases = new ArrayList<>();
        for (String text : FrontEndTest.corpus()) bases.add(tokens(text));
        AtomicInteger withDiagnostics = new AtomicInteger();
        AtomicLong slowest = new AtomicLong();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        IntStream.range(0, CASES).parallel().forEach(i -> {
            Random r = new Random(i);
            Tokens base = bases.get(i % bases.size());
            String mutated = mutate(base, r);
            long t0 = System.nanoTime();
            try {
                Ptx.Parsed p = Ptx.parseLenient("mutant" + i + ".ptx", mutated);
                if (!p.ok()) withDiagnostics.incrementAndGet();
                for (Diagnostic d : p.diagnostics()) {
                    if (d.line() < 0 || d.message().isEmpty()) failures.add(i + ": bad diagnostic " + d);
                }
            } catch (Throwable e) {
                failures.add(i + ": " + e);
            }
            long ns = System.nanoTime() - t0;
            slowest.accumulateAndGet(ns, Math::max);
            if (ns > 1_000_000_000L) failures.add(i + ": took " + ns / 1_000_000 + " ms");
        });
        assertTrue(failures.isEmpty(), failures.size() + " failures, first: " + failures.subList(0, Math.min(5, failures.size())));
        assertTrue(withDiagnostics.get() > CASES / 2, "most mutants are invalid PTX: " + withDiagnostics.get());
        System.out.printf("mutation test: %d cases, %d with diagnostics, slowest %.1f ms%n", CASES, withDiagnostics.get(),
                slowest.get() / 1e6);
    }
}
