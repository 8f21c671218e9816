package org.zludaj.ptx.llvm;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.zludaj.ptx.Compiler;
import org.zludaj.ptx.Ptx;
import org.zludaj.ptx.PtxException;
import org.zludaj.ptx.TextureDescriptor;

/**
 * TextureOps: every texture and surface form nvcc emits for texture/surface objects compiles for each target into
 * code that samples in software (no hardware texture instruction is left), and the forms that are not supported are
 * reported with their line. What the fetches return is checked by ptx-tests' textures.cu against a CPU reference,
 * on the host and on NVIDIA's GPU.
 */
class TextureOpsTest {
    private static final String HEAD = ".version 7.0\n.target sm_75\n.address_size 64\n"
            + ".visible .entry k(.param .u64 t, .param .u64 s, .param .u64 o)\n{\n"
            + ".reg .b32 %r<16>;\n.reg .f32 %f<16>;\n.reg .b64 %rd<4>;\n"
            + "ld.param.u64 %rd1, [t];\nld.param.u64 %rd2, [s];\nld.param.u64 %rd3, [o];\nmov.f32 %f1, 0f3F000000;\nmov.u32 %r1, 3;\n";

    private static String kernel(String body) {
        return HEAD + body + "st.global.f32 [%rd3], %f5;\nret;\n}\n";
    }

    static final String ALL = kernel("""
            tex.1d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd1, {%r1}];
            tex.1d.v4.s32.s32 {%r2, %r3, %r4, %r5}, [%rd1, {%r1}];
            tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f1}];
            tex.2d.v4.u32.f32 {%r2, %r3, %r4, %r5}, [%rd1, {%f1, %f1}];
            tex.3d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f1, %f1, %f1}];
            tex.a1d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%r1, %f1}];
            tex.a2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%r1, %f1, %f1, %f1}];
            tex.level.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f1}], %f1;
            tex.grad.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f1}], {%f1, %f1}, {%f1, %f1};
            txq.num_mipmap_levels.b32 %r6, [%rd1];
            tld4.g.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f1}];
            txq.width.b32 %r6, [%rd1];
            txq.normalized_coords.b32 %r6, [%rd1];
            suq.height.b32 %r6, [%rd2];
            suld.b.2d.v2.b32.zero {%r7, %r8}, [%rd2, {%r1, %r1}];
            suld.b.2d.v2.b32.clamp {%r7, %r8}, [%rd2, {%r1, %r1}];
            suld.b.a1d.b32.trap {%r9}, [%rd2, {%r1, %r1}];
            sust.b.2d.v2.b32.trap [%rd2, {%r1, %r1}], {%r7, %r8};
            sust.b.a1d.b32.zero [%rd2, {%r1, %r1}], {%r9};
            sust.b.3d.b8.clamp [%rd2, {%r1, %r1, %r1, %r1}], %r9;
            """);

    @Test
    void everyFormCompilesForEachTargetWithoutHardwareTextureInstructions() throws Exception {
        String nvptx = Compiler.nvptx(Ptx.parse("tex.ptx", ALL), 90);
        for (String hw : new String[] {"tex.", "tld4.", "suld.", "sust.", "txq.", "suq."})
            assertFalse(nvptx.contains("\t" + hw), "NVIDIA's " + hw + " would need NVIDIA's texture objects: " + hw);
        assertTrue(nvptx.contains(TextureOps.TEXEL) || nvptx.contains("ld.u32") || nvptx.contains("ld.global"), "the sampler reads the descriptor");
        for (String gfx : new String[] {"gfx1030", "gfx1100", "gfx1201"}) {
            byte[] co = Compiler.amdgpu(Ptx.parse("tex.ptx", ALL), gfx);
            assertEquals(0x7f, co[0], gfx);
            assertEquals('E', co[1], gfx);
        }
    }

    @Test
    void textureReferencesReadTheDescriptorAddressFromTheirVariable() throws Exception {
        String ptx = """
                .version 7.0
                .target sm_75
                .address_size 64
                .global .texref tref;
                .global .surfref sref;
                .visible .entry k(.param .u64 o)
                {
                .reg .f32 %f<8>; .reg .u64 %rd<2>; .reg .u32 %r<4>;
                ld.param.u64 %rd1, [o];
                mov.f32 %f1, 0f3F000000;
                mov.u32 %r2, 4;
                tex.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [tref, {%f1, %f1}];
                suld.b.2d.b32.zero {%r1}, [sref, {%r2, %r2}];
                st.global.f32 [%rd1], %f2;
                st.global.u32 [%rd1+4], %r1;
                ret;
                }
                """;
        String nvptx = Compiler.nvptx(Ptx.parse("texref.ptx", ptx), 90);
        assertTrue(nvptx.contains("[tref]") && nvptx.contains("[sref]"), "the descriptor address is loaded from the variables: " + nvptx);
        assertTrue(nvptx.contains(".global .align 8 .b8 tref[8]"), "a reference is 8 bytes of global memory");
        assertEquals(0x7f, Compiler.amdgpu(Ptx.parse("texref.ptx", ptx), "gfx1100")[0]);
    }

    @Test
    void gradientsCompileForEveryTarget() throws Exception {
        // the level of detail's log2 is computed in IR: NVPTX has no lowering for llvm.log2 (LLVM aborts)
        String ptx = kernel("tex.grad.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f1}], {%f1, %f2}, {%f2, %f1};\n");
        assertTrue(Compiler.nvptx(Ptx.parse("grad.ptx", ptx), 90).contains("st.global.f32"));
        assertEquals(0x7f, Compiler.amdgpu(Ptx.parse("grad.ptx", ptx), "gfx1100")[0]);
    }

    private static void unsupported(String body, String why, int line) {
        PtxException e = assertThrows(PtxException.class, () -> Compiler.amdgpu(Ptx.parse("tex.ptx", kernel(body)), "gfx1100"), body);
        assertTrue(e.getMessage().contains(why), e.getMessage());
        assertTrue(e.getMessage().contains(":" + line), "the PTX line is named: " + e.getMessage());
    }

    @Test
    void unsupportedFormsAreReportedWithTheirLine() {
        int line = HEAD.split("\n").length + 1;
        unsupported("tex.cube.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f1, %f1, %f1}];\n", "cube map", line);
        unsupported("tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, %rd2, {%f1, %f1}];\n", "separate samplers", line);
        unsupported("sust.p.2d.v2.b32.trap [%rd2, {%r1, %r1}], {%r7, %r8};\n", "formatted surface", line);
        unsupported("txq.channel_order.b32 %r6, [%rd1];\n", "not supported", line);
    }

    @Test
    void descriptorLayoutIsTheOneTheSamplerReads() {
        TextureDescriptor t = new TextureDescriptor(0x1000, 64, 320, 16, 5, 2, 0, 0x01, 4, 2, 1, new int[] {0, 1, 3},
                new float[] {0.25f, 0.5f, 0.75f, 1});
        ByteBuffer b = ByteBuffer.wrap(t.toBytes()).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(TextureDescriptor.BYTES, b.capacity());
        assertEquals(0x1000, b.getLong(TextureDescriptor.BASE));
        assertEquals(320, b.getLong(TextureDescriptor.SLICE_PITCH));
        assertEquals(5, b.getInt(TextureDescriptor.HEIGHT));
        assertEquals(4, b.getInt(TextureDescriptor.ELEMENT_BYTES), "uchar4: 4 bytes a texel");
        assertEquals(3, b.getInt(TextureDescriptor.ADDRESS + 8));
        assertEquals(0.75f, b.getFloat(TextureDescriptor.BORDER + 8));
        assertTrue(TextureDescriptor.readsAsFloat(0x01, 0), "8-bit integers read as normalized floats by default");
        assertFalse(TextureDescriptor.readsAsFloat(0x01, TextureDescriptor.READ_AS_INTEGER));
        assertFalse(TextureDescriptor.readsAsFloat(0x03, 0), "32-bit integers always read as integers");
        assertTrue(TextureDescriptor.readsAsFloat(0x10, TextureDescriptor.READ_AS_INTEGER), "half reads as float");
    }
}
