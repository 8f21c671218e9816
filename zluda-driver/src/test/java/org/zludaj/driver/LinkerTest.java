package org.zludaj.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.zludaj.api.CuResult;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxPrinter;
import org.zludaj.ptx.model.Function;
import org.zludaj.ptx.model.PtxModule;

/** Linker.link: PTX inputs into one module that every target compiles (the run is ptx-tests' driver_modules.c). */
class LinkerTest {
    static final String CALLER = """
            .version 7.0
            .target sm_75
            .address_size 64
            .extern .func (.param .u32 r) triple(.param .u32 x);
            .extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
            .extern .global .u32 counter;
            .visible .entry run(.param .u64 out)
            {
            .reg .u64 %rd<3>; .reg .u32 %r<4>;
            ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x;
            { .param .u32 x; .param .u32 r; st.param.u32 [x], %r1; call (r), triple, (x); ld.param.u32 %r2, [r]; }
            ld.global.u32 %r3, [counter]; add.u32 %r2, %r2, %r3;
            mul.wide.u32 %rd2, %r1, 4; add.u64 %rd2, %rd1, %rd2; st.global.u32 [%rd2], %r2; ret;
            }
            """;
    static final String CALLEE = """
            .version 7.8
            .target sm_80
            .address_size 64
            .visible .global .u32 counter = 5;
            .visible .func (.param .u32 r) triple(.param .u32 x)
            {
            .reg .u32 %r<3>; ld.param.u32 %r1, [x]; mul.lo.u32 %r2, %r1, 3; st.param.u32 [r], %r2; ret;
            }
            """;

    @Test
    void externsResolveToTheOtherInputsDefinitions() throws Exception {
        PtxModule linked = Linker.link(List.of(Ptx.parse("caller.ptx", CALLER), Ptx.parse("callee.ptx", CALLEE)));
        assertEquals("7.8", linked.version(), "the newest PTX version");
        assertEquals(List.of("sm_80"), linked.targets(), "the highest target");
        Function triple = linked.function("triple");
        assertTrue(triple.isDefined() && !triple.attributes().contains(".extern"), "the definition wins");
        assertFalse(linked.function("vprintf").isDefined(), "a name no input defines stays external");
        assertEquals(1, linked.globals().size(), "counter once, defined");
        assertFalse(linked.globals().get(0).attributes().contains(".extern"));
        String text = PtxPrinter.print(linked);
        PtxModule again = Ptx.parse("linked.ptx", text);
        assertEquals(linked.functions().size(), again.functions().size());
        assertTrue(Compiler.amdgpu(again, "gfx1100").length > 0);
        assertTrue(Compiler.nvptx(again, 80).contains(".entry run"));
    }

    @Test
    void twoDefinitionsOfOneNameAreAnError() throws Exception {
        CudaException e = assertThrows(CudaException.class,
                () -> Linker.link(List.of(Ptx.parse("a.ptx", CALLEE), Ptx.parse("b.ptx", CALLEE))));
        assertEquals(CuResult.CUDA_ERROR_INVALID_PTX, e.result());
        assertTrue(Linker.link(List.of()).functions().isEmpty(), "an empty link completes (as NVIDIA's) with an empty module");
    }
}
