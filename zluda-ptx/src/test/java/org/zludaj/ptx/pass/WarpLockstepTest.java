package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;

class WarpLockstepTest {
    private static String kernel(String body) {
        return """
                .version 8.0
                .target sm_80
                .address_size 64
                .shared .align 4 .b8 tile[512];
                .visible .entry k(.param .u64 out)
                {
                \t.reg .b32 %r<8>;
                \t.reg .b64 %rd<8>;
                \t.reg .pred %p<4>;
                """ + body + "\tret;\n}\n";
    }

    /** The printed body lines of the pass's output, trimmed. */
    private static List<String> run(String body) throws Exception {
        PtxModule out = new WarpLockstep().apply(Ptx.parse("k.ptx", kernel(body)));
        String printed = PtxPrinter.print(out);
        assertDoesNotThrow(() -> Ptx.parse("again.ptx", printed), printed);
        return printed.lines().map(String::trim).toList();
    }

    private static long meetings(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("activemask.b32 %__zluda_lockstep")).count();
    }

    private static int indexOf(List<String> lines, String prefix) {
        for (int k = 0; k < lines.size(); k++) if (lines.get(k).startsWith(prefix)) return k;
        return -1;
    }

    @Test
    void lanesMeetBetweenAStoreAndALoadOfSharedMemory() throws Exception {
        List<String> l = run("""
                \tmov.u32 %r1, %tid.x;
                \tst.shared.u32 [tile], %r1;
                \tld.shared.u32 %r2, [tile+4];
                \tld.shared.u32 %r3, [tile+8];
                \tst.shared.u32 [tile+12], %r3;
                """);
        assertEquals(2, meetings(l), String.join("\n", l));
        int st = indexOf(l, "st.shared.u32 [tile]"), ld = indexOf(l, "ld.shared.u32 %r2");
        assertEquals(ld - 1, indexOf(l, "activemask"), "the meeting is right before the first load after the store");
        assertTrue(st < ld);
        assertTrue(l.get(indexOf(l, "st.shared.u32 [tile+12]") - 1).startsWith("activemask"), "and before the store after the loads");
        assertTrue(l.stream().anyMatch(s -> s.startsWith(".reg .b32 %__zluda_lockstep")), "its register is declared");
    }

    @Test
    void globalMemoryAndOneDirectionNeedNoMeeting() throws Exception {
        List<String> l = run("""
                \tld.param.u64 %rd1, [out];
                \tld.global.u32 %r1, [%rd1];
                \tst.global.u32 [%rd1+4], %r1;
                \tld.global.u32 %r2, [%rd1+8];
                \tst.shared.u32 [tile], %r1;
                \tst.shared.u32 [tile+4], %r2;
                \tld.local.u32 %r3, [%rd1];
                """);
        assertEquals(0, meetings(l), String.join("\n", l));
    }

    @Test
    void barriersAndCollectivesAreMeetingPointsAlready() throws Exception {
        List<String> l = run("""
                \tst.shared.u32 [tile], %r1;
                \tbar.sync 0;
                \tld.shared.u32 %r2, [tile+4];
                \tshfl.sync.idx.b32 %r3, %r2, 0, 31, -1;
                \tst.shared.u32 [tile], %r3;
                \tbar.arrive 1, 64;
                \tld.shared.u32 %r4, [tile+4];
                """);
        assertEquals(1, meetings(l), "only after bar.arrive, which does not wait: " + String.join("\n", l));
        assertTrue(l.get(indexOf(l, "ld.shared.u32 %r4") - 1).startsWith("activemask"));
    }

    @Test
    void aLoopCarriesItsStoreToTheLoadAtItsTopAndGenericAccessesCount() throws Exception {
        List<String> l = run("""
                \tmov.u64 %rd1, tile;
                \tcvta.shared.u64 %rd2, %rd1;
                LOOP:
                \tld.u32 %r1, [%rd2];
                \tadd.u32 %r1, %r1, 1;
                \tst.u32 [%rd2], %r1;
                \tsetp.lt.u32 %p1, %r1, 10;
                \t@%p1 bra LOOP;
                """);
        // the store meets before it (a load precedes it); the load meets too: the back edge brings the store
        assertEquals(2, meetings(l), String.join("\n", l));
        assertTrue(l.get(indexOf(l, "ld.u32 %r1") - 1).startsWith("activemask"));
        assertTrue(l.get(indexOf(l, "st.u32 [%rd2]") - 1).startsWith("activemask"));
    }

    /** Zero-fill by every lane, then a store by the lanes a condition picks: they meet first, as a converged warp. */
    @Test
    void aConditionalStoreAfterAStoreMeetsButStraightStoresDoNot() throws Exception {
        List<String> l = run("""
                \tmov.u32 %r1, %tid.x;
                \tst.shared.u32 [tile], 0;
                \tst.shared.u32 [tile+4], 0;
                \tsetp.ne.u32 %p1, %r1, 0;
                \t@%p1 bra SKIP;
                \tst.shared.u32 [tile+8], %r1;
                SKIP:
                \tret;
                """);
        assertEquals(1, meetings(l), String.join("\n", l));
        assertTrue(l.get(indexOf(l, "st.shared.u32 [tile+8]") - 1).startsWith("activemask"));
    }

    @Test
    void aCallMayHaveDoneEither() throws Exception {
        String ptx = """
                .version 8.0
                .target sm_80
                .address_size 64
                .shared .align 4 .b8 tile[512];
                .func f()
                {
                \tret;
                }
                .visible .entry k()
                {
                \t.reg .b32 %r<4>;
                \tcall f, ();
                \tld.shared.u32 %r1, [tile];
                \tret;
                }
                """;
        PtxModule out = new WarpLockstep().apply(Ptx.parse("k.ptx", ptx));
        List<String> l = PtxPrinter.print(out).lines().map(String::trim).toList();
        assertEquals(1, meetings(l), String.join("\n", l));
    }

    @Test
    void aModuleWithNothingToDoIsReturnedItself() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", kernel("\tld.shared.u32 %r1, [tile];\n\tld.shared.u32 %r2, [tile+4];\n"));
        assertSame(in, new WarpLockstep().apply(in));
    }
}
