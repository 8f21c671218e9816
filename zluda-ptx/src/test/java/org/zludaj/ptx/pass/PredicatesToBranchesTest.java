package org.zludaj.ptx.pass;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Golden;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.PtxModule;
import org.zludaj.ptx.model.Statement;

class PredicatesToBranchesTest {
    static final String PTX = """
            .version 8.0
            .target sm_80
            .address_size 64
            .visible .entry k(.param .u64 out)
            {
            \t.reg .pred %p<3>;
            \t.reg .b32 %r<4>;
            \t.reg .b64 %rd<2>;
            \tld.param.u64 %rd1, [out];
            \tmov.u32 %r1, %tid.x;
            \tsetp.lt.u32 %p1, %r1, 16;
            \t@%p1 add.u32 %r2, %r1, 1;
            \t@!%p1 st.global.u32 [%rd1], %r1;
            \t{
            \t@%p1 bra END;
            \t@%p2 mul.lo.u32 %r3, %r2, 3;
            \t}
            END:
            \tret;
            }
            """;

    @Test
    void guardedInstructionsBecomeBranchesAroundThem() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", PTX);
        PtxModule out = new PredicatesToBranches().apply(in);
        String printed = PtxPrinter.print(out);
        Golden.check("predicates-to-branches.ptx", printed);
        // the result is valid PTX again: it parses and checks
        PtxModule again = Ptx.parse("k2.ptx", printed);
        long guardedNonBranches = again.function("k").body().stream().flatMap(PredicatesToBranchesTest::flatten)
                .filter(s -> s instanceof Statement.Instruction i && i.guard() != null && !i.opcode().equals("bra")).count();
        assertEquals(0, guardedNonBranches);
        assertTrue(printed.contains("@!%p1 bra $zluda_skip_0;"), printed);
        assertTrue(printed.contains("@%p1 bra $zluda_skip_1;"), printed);  // the negated guard inverted back
        assertTrue(printed.contains("@%p1 bra END;"), "branches keep their guard");
    }

    @Test
    void unguardedModuleIsUnchanged() throws Exception {
        PtxModule in = Ptx.parse("k.ptx", PTX.replace("@%p1 ", "").replace("@!%p1 ", "").replace("@%p2 ", ""));
        assertEquals(in, new PredicatesToBranches().apply(in));
    }

    private static java.util.stream.Stream<Statement> flatten(Statement s) {
        return s instanceof Statement.Block b ? b.statements().stream().flatMap(PredicatesToBranchesTest::flatten) : java.util.stream.Stream.of(s);
    }
}
