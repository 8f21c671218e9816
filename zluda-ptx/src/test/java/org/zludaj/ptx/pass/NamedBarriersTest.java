package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Golden;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

class NamedBarriersTest {
    /**
     * Barrier 1 is used with a count and by bar.arrive: every barrier on id 1 becomes the shared-memory barrier;
     * bar.red over the block (id 0) too, but __syncthreads (bar.sync 0) stays the hardware barrier, and so does
     * barrier 3, which no counted form uses.
     */
    static final String PTX = """
            .version 8.0
            .target sm_80
            .address_size 64
            .visible .entry k(.param .u64 out)
            {
            \t.reg .b32 %r<8>;
            \t.reg .pred %p<4>;
            \tmov.u32 %r1, %tid.x;
            \tsetp.lt.u32 %p1, %r1, 64;
            \tbar.sync 0;
            \t@%p1 bra PRODUCE;
            \tbar.sync 1, 128;
            \tbra DONE;
            PRODUCE:
            \tbar.arrive 1, 128;
            DONE:
            \tbar.sync 1;
            \tbar.red.popc.u32 %r2, 0, %p1;
            \tbar.red.and.pred %p2, 0, !%p1;
            \tbarrier.sync 3;
            \tret;
            }
            """;

    @Test
    void countedArriveAndReductionFormsBecomeSharedMemoryBarriers() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", PTX);
        PtxModule out = new NamedBarriers().apply(in);
        String printed = PtxPrinter.print(out);
        Golden.check("named-barriers.ptx", printed);
        assertTrue(out.globals().stream().anyMatch(v -> v.name().equals(NamedBarriers.STATE) && v.size() == 512), printed);
        // left as hardware barriers: bar.sync 0 (in the kernel's code and the state's initialization) and barrier 3
        assertEquals(2, printed.lines().filter(l -> l.trim().equals("bar.sync 0;")).count(), printed);
        assertEquals(1, printed.lines().filter(l -> l.trim().equals("barrier.sync 3;")).count(), printed);
        assertFalse(printed.contains("bar.sync 1") || printed.contains("bar.arrive") || printed.contains("bar.red"), printed);
        // five replaced: each polls (except the arrive) and adds its warp's 32 arrivals
        assertEquals(5, printed.lines().filter(l -> l.contains("atom.shared.add.u64")).count(), printed);
        assertEquals(4, printed.lines().filter(l -> l.contains("nanosleep")).count(), printed);
        assertTrue(printed.contains("vote.sync.ballot.b32 %__zb_v, !%p1, %__zb_m;"), "the reduction's predicate, negated as written");
        assertTrue(printed.contains("setp.eq.u32 %p2, %__zb_r, 0;"), ".and: no thread had a false predicate");
        assertTrue(printed.contains("mov.u32 %r2, %__zb_r;"), ".popc: the count");
        // the result parses and checks again (names, types)
        assertDoesNotThrow(() -> Ptx.parse("again.ptx", printed));
    }

    @Test
    void modulesWithoutSuchBarriersAreLeftAsTheyAre() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", PTX.replaceAll("\\tbar\\.(arrive|red)[^\\n]*\\n", "").replace("bar.sync 1, 128", "bar.sync 1"));
        assertSame(in, new NamedBarriers().apply(in));
    }
}
