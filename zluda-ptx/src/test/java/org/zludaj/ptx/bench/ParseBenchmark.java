package org.zludaj.ptx.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.zludaj.ptx.Ptx;

/**
 * PTX front-end throughput: parse and check (grammar, model, instruction table, semantic checks). One operation is
 * one PTX line, so JMH's ops/s are lines/s. Inputs: the nvcc 13 corpus in test resources (10 modules, 2,222 lines,
 * 56,648 bytes: 25.5 bytes a line), parsed on one core; and one large module (the corpus 40 times, 88,880 lines)
 * parsed in parallel pieces on all cores. Run: bench/parse-bench.sh
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx4g"})
public class ParseBenchmark {
    static final int CORPUS_LINES = 2222;
    static final int COPIES = 40;
    static final String[] CORPUS = {"vectoradd_75", "vectoradd_90", "reduction_75", "reduction_90", "sgemm_75", "sgemm_90",
        "streams_75", "streams_90", "wmma_75", "wmma_90"};

    List<String> modules;
    String large;

    @Setup
    public void load() throws Exception {
        modules = new ArrayList<>();
        long lines = 0;
        for (String n : CORPUS) {
            String t = new String(ParseBenchmark.class.getResourceAsStream("/corpus/" + n + ".ptx").readAllBytes());
            modules.add(t);
            lines += t.lines().count();
        }
        if (lines != CORPUS_LINES) throw new IllegalStateException("corpus has " + lines + " lines, the benchmark counts " + CORPUS_LINES);
        StringBuilder b = new StringBuilder(".version 9.0\n.target sm_90\n.address_size 64\n");
        int k = 0;
        for (int c = 0; c < COPIES; c++) {
            for (String t : modules) {  // every module-scope name made unique per copy
                String body = t.substring(t.indexOf(".address_size 64") + ".address_size 64".length());
                String suffix = "_" + k++;
                body = body.replaceAll("\\b(_Z\\w+|s|counter|coeffs|__cudart_\\w+)\\b", "$1" + suffix).replace("$str", "$str" + suffix);
                b.append(body);
            }
        }
        large = b.toString();
        Ptx.Parsed p = Ptx.parseLenient("large.ptx", large);
        if (!p.ok()) throw new IllegalStateException(p.log().lines().limit(5).toList().toString());
    }

    /** Lines/s on one core: the corpus, module after module. */
    @Benchmark
    @OperationsPerInvocation(CORPUS_LINES)
    public int oneCore() {
        int n = 0;
        for (String t : modules) n += Ptx.parseLenient("m.ptx", t).module().functions().size();
        return n;
    }

    /** Lines/s on all cores: one large module split into pieces parsed in parallel. */
    @Benchmark
    @OperationsPerInvocation(CORPUS_LINES * COPIES)
    public int allCoresOneLargeModule() {
        return Ptx.parseLenient("large.ptx", large).module().functions().size();
    }
}
