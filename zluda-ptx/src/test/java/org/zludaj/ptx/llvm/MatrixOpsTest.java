package org.zludaj.ptx.llvm;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.model.Type;

/**
 * MatrixOps: the fragment layouts it is built on, and what each target makes of the matrix family. Semantics are
 * checked by the ptx-tests (mma_*, wmma_*, ldmatrix_*, stmatrix_*, movmatrix_*, cp_async_*) against exact references
 * and NVIDIA's GPU.
 */
class MatrixOpsTest {
    /** Every element of the matrix is held by exactly one (lane, element) of the warp. */
    private static void assertCovers(MatrixOps.Frag f, int rows, int cols, String what) {
        assertEquals(rows * cols, 32 * f.elements(), what + ": elements per lane");
        int[] seen = new int[rows * cols];
        for (int lane = 0; lane < 32; lane++) {
            for (int v = 0; v < f.elements(); v++) {
                int r = f.row(lane, v), c = f.col(lane, v);
                assertTrue(r >= 0 && r < rows && c >= 0 && c < cols, what + ": lane " + lane + " element " + v + " outside");
                seen[r * cols + c]++;
            }
        }
        for (int i = 0; i < seen.length; i++) assertEquals(1, seen[i], what + ": element " + i / cols + "," + i % cols);
    }

    @Test
    void mmaFragmentsCoverTheirMatricesOnce() {
        record Form(int m, int n, int k, Type a) {}
        for (Form f : List.of(new Form(16, 8, 16, Type.F16), new Form(16, 8, 8, Type.BF16), new Form(16, 8, 8, Type.TF32),
                new Form(16, 8, 4, Type.TF32), new Form(16, 8, 32, Type.S8), new Form(16, 8, 16, Type.U8), new Form(8, 8, 16, Type.S8))) {
            MatrixOps.Frag[] fr = MatrixOps.mmaFragments(f.m, f.n, f.k, f.a);
            assertNotNull(fr, f.toString());
            assertCovers(fr[0], f.m, f.k, f + " A");
            assertCovers(fr[1], f.k, f.n, f + " B");
            assertCovers(fr[2], f.m, f.n, f + " C");
        }
        assertNull(MatrixOps.mmaFragments(16, 8, 16, Type.TF32), "a shape the type does not have");
    }

    @Test
    void wmmaFragmentsCoverTheirMatricesOnce() {
        for (int[] s : new int[][] {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}}) for (boolean bytes : new boolean[] {false, true}) {
            MatrixOps.Frag[] fr = MatrixOps.wmmaFragments(s[0], s[1], s[2], bytes);
            assertCovers(fr[0], s[0], s[2], "wmma A " + s[0] + "x" + s[1]);
            assertCovers(fr[1], s[2], s[1], "wmma B " + s[0] + "x" + s[1]);
            assertCovers(fr[2], s[0], s[1], "wmma C " + s[0] + "x" + s[1]);
        }
    }

    private static final String MMA = ".version 7.8\n.target sm_80\n.address_size 64\n"
            + ".shared .align 16 .b8 sm[512];\n"
            + ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<16>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<2>;\n.reg .pred %p<2>;\n"
            + "ld.param.u64 %rd1, [p];\nmov.u32 %r9, sm;\n"
            + "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r9];\n"
            + "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f4, %f5, %f6, %f7};\n"
            + "setp.eq.u32 %p1, %r1, 0;\n"
            + "cp.async.ca.shared.global [%r9+16], [%rd1], 16, %p1;\n"
            + "cp.async.commit_group;\ncp.async.wait_group 0;\n"
            + "st.global.f32 [%rd1], %f0;\nret;\n}\n";

    @Test
    void nvptxKeepsNvidiasInstructions() throws Exception {
        String ptx = Compiler.nvptx(Ptx.parse("mma.ptx", MMA), 90);
        assertTrue(ptx.contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {"), ptx);
        assertTrue(ptx.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {"), ptx);
        assertTrue(ptx.matches("(?s).*setp.ne.b32 %zlp0, %r\\d+, 0; cp.async.ca.shared.global \\[%r\\d+\\], \\[%rd\\d+\\], 16, %zlp0;.*"),
                "the ignore-src predicate reaches cp.async through a local .pred: " + ptx);
        assertTrue(ptx.contains("cp.async.wait_group 0;"), ptx);
    }

    @Test
    void gpusWithWmmaUseItAndOthersTheReference() throws Exception {
        String twice = MMA.replace("st.global.f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, "
                + "{%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f0, %f1, %f2, %f3};\nst.global.f32");
        for (String gfx : List.of("gfx1100", "gfx1201")) {
            var ctx = org.bytedeco.llvm.global.LLVM.LLVMContextCreate();
            try {
                var m = Lowering.lower(Ptx.parse("mma.ptx", twice), new org.zludaj.ptx.target.AmdgpuTarget(gfx), ctx, null, "");
                String ir = Ll.print(m);
                String operand = gfx.equals("gfx1100") ? "<16 x half>" : "<8 x half>";
                assertEquals(2, ir.split("call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v" + (gfx.equals("gfx1100") ? "16" : "8") + "f16\\(" + operand, -1).length - 1, ir);
                assertFalse(ir.contains("zluda.matrix.mma"), "no reference helper on " + gfx);
                assertTrue(ir.contains("llvm.amdgcn.ds.bpermute"), "fragments re-laid out by lane permutes");
                org.bytedeco.llvm.global.LLVM.LLVMDisposeModule(m);
            } finally {
                org.bytedeco.llvm.global.LLVM.LLVMContextDispose(ctx);
            }
        }
    }

    @Test
    void gpusWithoutWmmaUseLanePermutesAndDotProducts() throws Exception {
        var ctx = org.bytedeco.llvm.global.LLVM.LLVMContextCreate();
        try {
            var m = Lowering.lower(Ptx.parse("mma.ptx", MMA), new org.zludaj.ptx.target.AmdgpuTarget("gfx1030"), ctx, null, "");
            String ir = Ll.print(m);
            assertFalse(ir.contains("zluda.matrix.mma"), "no reference helper on gfx1030");
            assertFalse(ir.contains("wmma"), ir);
            assertEquals(32 + 4, ir.split("call i32 @llvm.amdgcn.ds.bpermute\\(", -1).length - 1,
                    "an m16n8k16 fetches 16 A and 16 B words; ldmatrix.x4 one 32-bit LDS row address per matrix");
            org.bytedeco.llvm.global.LLVM.LLVMDisposeModule(m);
        } finally {
            org.bytedeco.llvm.global.LLVM.LLVMContextDispose(ctx);
        }
    }

    @Test
    void theHostReferenceLowersThroughOneHelperPerForm() throws Exception {
        String twice = MMA.replace("st.global.f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, "
                + "{%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f0, %f1, %f2, %f3};\nst.global.f32");
        for (var t : List.<org.zludaj.ptx.target.Target>of(new org.zludaj.ptx.target.HostTarget("x86_64-unknown-linux-gnu", "x86-64", "", null))) {
            var ctx = org.bytedeco.llvm.global.LLVM.LLVMContextCreate();
            try {
                var m = Lowering.lower(Ptx.parse("mma.ptx", twice), t, ctx, null, "");
                String ir = Ll.print(m);
                assertEquals(1, ir.split("define internal void @zluda.matrix.mma.m16n8k16.f16.f16.4.2\\(", -1).length - 1, ir);
                assertEquals(2, ir.split("call void @zluda.matrix.mma.m16n8k16.f16.f16.4.2\\(", -1).length - 1, ir);
                org.bytedeco.llvm.global.LLVM.LLVMDisposeModule(m);
            } finally {
                org.bytedeco.llvm.global.LLVM.LLVMContextDispose(ctx);
            }
        }
        for (String gfx : List.of("gfx1030", "gfx1100", "gfx1201")) assertTrue(Compiler.amdgpu(Ptx.parse("mma.ptx", twice), gfx).length > 0);
    }

    @Test
    void formsNotYetLoweredAreNamedErrors() {
        String sparse = MMA.replace("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32");
        PtxException e = assertThrows(PtxException.class, () -> Compiler.amdgpu(Ptx.parse("mix.ptx", sparse), "gfx1100"));
        assertTrue(e.getMessage().contains("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32"), e.getMessage());
        assertTrue(e.getMessage().contains("gfx1100"), e.getMessage());
    }
}
