package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

class SpinLoopsTest {
    private static List<String> run(String body) throws Exception {
        String ptx = """
                .version 8.0
                .target sm_80
                .address_size 64
                .visible .entry k(.param .u64 flag)
                {
                \t.reg .b32 %r<8>;
                \t.reg .b64 %rd<8>;
                \t.reg .pred %p<4>;
                \tld.param.u64 %rd1, [flag];
                """ + body + "\tret;\n}\n";
        PtxModule in = Ptx.parse("k.ptx", ptx);
        PtxModule out = new SpinLoops().apply(in);
        String printed = PtxPrinter.print(out);
        assertDoesNotThrow(() -> Ptx.parse("again.ptx", printed), printed);
        if (!printed.contains("nanosleep")) assertSame(in, out, "nothing to do: the module itself");
        return printed.lines().map(String::trim).toList();
    }

    private static int indexOf(List<String> lines, String prefix) {
        for (int k = 0; k < lines.size(); k++) if (lines.get(k).startsWith(prefix)) return k;
        return -1;
    }

    @Test
    void aLoopPollingAVolatileFlagLetsOthersRunBeforeItsBackwardBranch() throws Exception {
        List<String> l = run("""
                SPIN:
                \tld.volatile.global.u32 %r1, [%rd1];
                \tsetp.eq.u32 %p1, %r1, 0;
                \t@%p1 bra SPIN;
                """);
        int sleep = indexOf(l, "nanosleep.u32 0;"), branch = indexOf(l, "@%p1 bra SPIN;");
        assertTrue(sleep >= 0 && sleep == branch - 1, String.join("\n", l));
        assertEquals(1, l.stream().filter(s -> s.startsWith("nanosleep")).count());
    }

    @Test
    void everyWaitingAccessCountsAndOthersDoNot() throws Exception {
        for (String poll : List.of("ld.relaxed.gpu.global.u32 %r1, [%rd1];", "ld.acquire.sys.u32 %r1, [%rd1];",
                "ld.global.cv.u32 %r1, [%rd1];", "atom.global.cas.b32 %r1, [%rd1], 0, 1;", "atom.exch.b32 %r1, [%rd1], 1;",
                "{\n\tld.volatile.shared.u32 %r1, [%rd1];\n\t}")) {
            List<String> l = run("L:\n\t" + poll + "\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra L;\n");
            assertEquals(1, l.stream().filter(s -> s.startsWith("nanosleep")).count(), poll);
        }
        // a loop of plain loads or of atomic additions (a histogram) does not wait for anyone: left alone
        for (String work : List.of("ld.global.u32 %r1, [%rd1];", "atom.global.add.u32 %r1, [%rd1], 1;")) {
            List<String> l = run("L:\n\t" + work + "\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra L;\n");
            assertEquals(0, l.stream().filter(s -> s.startsWith("nanosleep")).count(), work);
        }
    }

    @Test
    void forwardBranchesAndLoopsAroundNoPollingAreLeftAlone() throws Exception {
        List<String> l = run("""
                \tld.volatile.global.u32 %r1, [%rd1];
                \tsetp.eq.u32 %p1, %r1, 0;
                \t@%p1 bra DONE;
                \tmov.u32 %r2, 8;
                LOOP:
                \tsub.u32 %r2, %r2, 1;
                \tsetp.ne.u32 %p2, %r2, 0;
                \t@%p2 bra LOOP;
                \tld.volatile.global.u32 %r3, [%rd1];
                DONE:
                """);
        assertEquals(-1, indexOf(l, "nanosleep"), String.join("\n", l));
    }

    @Test
    void anOuterLoopWhoseBodyPollsYieldsAtItsOwnBranch() throws Exception {
        List<String> l = run("""
                OUTER:
                \tmov.u32 %r2, 4;
                INNER:
                \tsub.u32 %r2, %r2, 1;
                \tsetp.ne.u32 %p2, %r2, 0;
                \t@%p2 bra INNER;
                \tatom.global.cas.b32 %r1, [%rd1], 0, 1;
                \tsetp.ne.u32 %p1, %r1, 0;
                \t@%p1 bra.uni OUTER;
                """);
        assertEquals(1, l.stream().filter(s -> s.startsWith("nanosleep")).count(), String.join("\n", l));
        assertEquals(indexOf(l, "@%p1 bra.uni OUTER;") - 1, indexOf(l, "nanosleep"));
    }

    /** A counted loop exchanging data through volatile shared memory (warp-synchronous code) does not wait: no yield. */
    @Test
    void aCountedLoopOfVolatileAccessesIsNoSpin() throws Exception {
        List<String> l = run("""
                \tmov.u32 %r2, 0;
                LOOP:
                \tst.volatile.shared.u32 [%rd1], %r3;
                \tld.volatile.shared.u32 %r1, [%rd1+4];
                \tmad.lo.u32 %r3, %r3, 3, %r1;
                \tadd.u32 %r2, %r2, 1;
                \tsetp.lt.u32 %p1, %r2, 8;
                \t@%p1 bra LOOP;
                """);
        assertEquals(-1, indexOf(l, "nanosleep"), String.join("\n", l));
        // the exit through a forward branch on the polled value counts (the back edge itself unconditional)
        List<String> m = run("""
                SPIN:
                \tld.volatile.global.u32 %r1, [%rd1];
                \tsetp.ne.u32 %p1, %r1, 0;
                \t@%p1 bra DONE;
                \tbra.uni SPIN;
                DONE:
                """);
        assertEquals(indexOf(m, "bra.uni SPIN;") - 1, indexOf(m, "nanosleep"), String.join("\n", m));
    }

    private static long sleeps(List<String> l) {
        return l.stream().filter(s -> s.startsWith("nanosleep")).count();
    }

    /** Loops that never end once their backward branch is taken yield before it, so the runtime can bound them. */
    @Test
    void loopsThatCannotEndYieldBeforeTheirBackwardBranch() throws Exception {
        List<String> self = run("L:\n\tbra.uni L;\n");
        assertEquals(indexOf(self, "bra.uni L;") - 1, indexOf(self, "nanosleep.u32 0;"), String.join("\n", self));
        // a flag loaded before the loop that tests it (a hoisted plain load): the predicate does not change in it
        List<String> hoisted = run("""
                \tld.global.u32 %r1, [%rd1];
                \tsetp.eq.u32 %p1, %r1, 0;
                L:
                \tadd.u32 %r2, %r2, 1;
                \t@%p1 bra L;
                """);
        assertEquals(indexOf(hoisted, "@%p1 bra L;") - 1, indexOf(hoisted, "nanosleep.u32 0;"), String.join("\n", hoisted));
        // an exit decided by a predicate the loop does not write: not taken the first time, never taken
        List<String> exit = run("""
                \tsetp.eq.u32 %p1, %r1, 0;
                L:
                \t@%p1 bra OUT;
                \tst.global.u32 [%rd1], %r2;
                \tbra.uni L;
                OUT:
                """);
        assertEquals(1, sleeps(exit), String.join("\n", exit));
    }

    /** Loops that can end, or leave the thread, are left alone: no yield, no change. */
    @Test
    void loopsThatCanEndAreLeftAlone() throws Exception {
        for (String body : List.of(
                // counted: the branch depends on a register the loop writes
                "\tmov.u32 %r2, 0;\nL:\n\tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p1, %r2, 8;\n\t@%p1 bra L;\n",
                // the path to an invariant exit depends on the loop's own count
                "\tsetp.eq.u32 %p1, %r1, 0;\nL:\n\tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p2, %r2, 8;\n\t@%p2 bra SKIP;\n"
                        + "\t@%p1 bra OUT;\nSKIP:\n\tbra.uni L;\nOUT:\n",
                // a way out of the thread, a call (which may end it), an unconditional way out
                "L:\n\t@%p1 exit;\n\tbra.uni L;\n", "L:\n\t@%p1 ret;\n\tbra.uni L;\n",
                "L:\n\tbra.uni OUT;\n\tbra.uni L;\nOUT:\n",
                // a loop that sleeps already: the runtime bounds it as it is
                "L:\n\tnanosleep.u32 100;\n\tbra.uni L;\n",
                // a branch over a part of the loop decided by a load in it
                "L:\n\tld.global.u32 %r1, [%rd1];\n\tsetp.eq.u32 %p2, %r1, 0;\n\t@%p2 bra L;\n"))
            assertEquals(body.contains("nanosleep") ? 1 : 0, sleeps(run(body)), body);
    }
}
